import Foundation

/// The pipeline (SDWebImageManager, persistent): blacklist → local lookup → read-only
/// directories → download → validate → store. Fetches of one key in flight share one download.
public final class Fetcher: @unchecked Sendable {
  /// Called once per fetch, on the downloader's thread (or the caller's, for a hit).
  public typealias Completion = @Sendable (FetchResult) -> Void

  /// The cache.
  public let cache: DiskCache
  /// The downloader.
  public let downloader: Downloader
  private let lock = NSLock()
  private var inFlight = [String: [Completion]]()
  private let storeQueue: StoreQueue

  /// Creates a pipeline over `cache` downloading with `transfer` options.
  public init(cache: DiskCache, transfer: TransferOptions = TransferOptions()) {
    self.cache = cache
    self.downloader = Downloader(options: transfer)
    self.storeQueue = StoreQueue(cache: cache)
  }

  /// Fetches `url` and waits for the result.
  public func fetch(_ url: String, options: FetchOptions = FetchOptions()) -> FetchResult {
    let done = DispatchSemaphore(value: 0)
    let box = ResultBox()
    fetch(url, options: options) { result in
      box.value = result
      done.signal()
    }
    done.wait()
    guard let result = box.value else { preconditionFailure("fetch completed without a result") }
    return result
  }

  /// Fetches `url`; `completion` is called exactly once.
  public func fetch(_ url: String, options: FetchOptions, completion: @escaping Completion) {
    let key = options.key(for: url)
    let result = { (outcome: Result<FetchOutcome, CacheError>) in
      completion(FetchResult(url: url, key: key, outcome: outcome, bytes: 0))
    }
    do {
      try RequestURL.validate(url)
      if !options.retryFailed, let failure = try cache.failure(url: url, ttl: options.failedTTL) {
        return result(.failure(RequestURL.blacklisted(failure, ttl: options.failedTTL)))
      }
      var validators: CacheEntry?
      switch options.mode {
      case .normal, .offline:
        if let hit = try cache.lookup(key: key, touch: options.touch) {
          if options.retryFailed { try cache.forgetFailure(url: url) }
          return result(.success(.hit(hit)))
        }
        if options.mode == .offline { return result(.success(.offlineMiss)) }
      case .reload:
        break
      case .refresh:
        if case .local(let entry, _)? = try cache.lookupLocal(key: key, touch: false) {
          validators = entry
        }
      }
      download(url, key: key, validators: validators, options: options, completion: completion)
    } catch let error as CacheError {
      result(.failure(error))
    } catch {
      result(.failure(CacheError.io(url, error)))
    }
  }

  /// Downloads `url`, known to be neither cached nor blacklisted (the prefetcher checked both
  /// for a whole batch at once).
  func fetchUncached(
    _ url: String, key: String, options: FetchOptions, completion: @escaping Completion
  ) {
    do {
      try RequestURL.validate(url)
    } catch {
      return completion(
        FetchResult(url: url, key: key, outcome: .failure(CacheError.io(url, error)), bytes: 0))
    }
    download(url, key: key, validators: nil, options: options, completion: completion)
  }

  /// Downloads `url` for `key`, joining a download of the same key already in flight.
  func download(
    _ url: String, key: String, validators: CacheEntry?, options: FetchOptions,
    completion: @escaping Completion
  ) {
    let flightKey =
      "\(options.mode == .refresh ? "R" : "N")\(options.acceptAnyBody ? "A" : "I")|\(key)|\(url)"
    lock.lock()
    if inFlight[flightKey] != nil {
      inFlight[flightKey]?.append(completion)
      lock.unlock()
      return
    }
    inFlight[flightKey] = [completion]
    lock.unlock()
    let finish: Completion = { [weak self] result in
      guard let self else { return }
      self.lock.lock()
      let waiters = self.inFlight.removeValue(forKey: flightKey) ?? []
      self.lock.unlock()
      for waiter in waiters { waiter(result) }
    }
    let request = DownloadRequest(
      url: url, temporaryDirectory: cache.layout.tmpDirectory.path, etag: validators?.etag,
      lastModified: validators?.lastModified)
    do {
      _ = try cache.writableDatabase()
    } catch {
      return finish(
        FetchResult(url: url, key: key, outcome: .failure(CacheError.io(url, error)), bytes: 0))
    }
    downloader.download(request) { [cache, storeQueue] response in
      let bytes = (try? response.get().bytes) ?? 0
      let done = { (outcome: Result<FetchOutcome, CacheError>) in
        if case .failure(let error) = outcome, error.isPermanent {
          try? cache.recordFailure(url: url, error: error)
        }
        finish(FetchResult(url: url, key: key, outcome: outcome, bytes: bytes))
      }
      let ready: PendingStore
      do {
        let response = try response.get()
        guard let file = response.file else {
          return done(
            Result { try Self.notModified(response, url: url, key: key, cache: cache) }
              .mapError { CacheError.io(url, $0) })
        }
        ready = try Self.validated(file, response: response, url: url, key: key, options: options)
      } catch {
        return done(.failure(CacheError.io(url, error)))
      }
      storeQueue.enqueue(ready) { stored in
        done(
          stored.map { entry in
            let path = cache.layout.dataPath(entry.file)
            return validators == nil
              ? .downloaded(entry, path: path) : .revalidated(entry, path: path)
          })
      }
    }
  }

  /// A 304: keeps the entry and records the new validators and the use.
  private static func notModified(
    _ response: DownloadResponse, url: String, key: String, cache: DiskCache
  ) throws -> FetchOutcome {
    let metadata = EntryMetadata(etag: response.etag, lastModified: response.lastModified)
    guard let entry = try cache.revalidate(key: key, with: metadata) else {
      throw CacheError(.protocolError, "\(url): 304 Not Modified, but the entry is gone")
    }
    try cache.forgetFailure(url: url)
    return .notModified(entry, path: cache.layout.dataPath(entry.file))
  }

  /// The body checked (an image with pixels, unless any body is accepted) and described for
  /// the store; a body that fails is deleted.
  private static func validated(
    _ file: String, response: DownloadResponse, url: String, key: String, options: FetchOptions
  ) throws -> PendingStore {
    var metadata = EntryMetadata(
      contentType: response.contentType, etag: response.etag, lastModified: response.lastModified)
    let info = ImageSniffer.sniff(path: file)
    if !options.acceptAnyBody {
      let type = response.contentType.map { ", \($0)" } ?? ""
      let problem: String?
      if response.bytes == 0 {
        problem = "\(url): empty body\(type)"
      } else if let info {
        problem = info.hasPixels ? nil : "\(url): \(info.format.rawValue) image has 0 pixels"
      } else {
        problem = "\(url): body is not an image (\(response.bytes) bytes\(type))"
      }
      if let problem {
        unlink(file)
        throw CacheError(.notAnImage, problem)
      }
    }
    metadata.format = info?.format
    metadata.width = info?.width
    metadata.height = info?.height
    return PendingStore(temporaryPath: file, key: key, url: url, metadata: metadata)
  }
}

/// A mutable slot for a result crossing threads.
private final class ResultBox: @unchecked Sendable {
  var value: FetchResult?
}
