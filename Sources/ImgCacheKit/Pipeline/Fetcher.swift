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

  /// Creates a pipeline over `cache` downloading with `transfer` options.
  public init(cache: DiskCache, transfer: TransferOptions = TransferOptions()) {
    self.cache = cache
    self.downloader = Downloader(options: transfer)
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
    downloader.download(request) { [cache] response in
      let stored = Self.store(
        response, url: url, key: key, validators: validators, options: options, cache: cache)
      let bytes = (try? response.get().bytes) ?? 0
      finish(FetchResult(url: url, key: key, outcome: stored, bytes: bytes))
    }
  }

  /// Validates and stores a response; records or forgets the URL's failure.
  static func store(
    _ response: Result<DownloadResponse, CacheError>, url: String, key: String,
    validators: CacheEntry?, options: FetchOptions, cache: DiskCache
  ) -> Result<FetchOutcome, CacheError> {
    let outcome: Result<FetchOutcome, CacheError>
    do {
      let response = try response.get()
      outcome = .success(
        try place(
          response, url: url, key: key, validators: validators, options: options, cache: cache))
    } catch let error as CacheError {
      outcome = .failure(error)
    } catch {
      outcome = .failure(CacheError.io(url, error))
    }
    switch outcome {
    case .success:
      try? cache.forgetFailure(url: url)
    case .failure(let error) where error.isPermanent:
      try? cache.recordFailure(url: url, error: error)
    case .failure:
      break
    }
    return outcome
  }

  private static func place(
    _ response: DownloadResponse, url: String, key: String, validators: CacheEntry?,
    options: FetchOptions, cache: DiskCache
  ) throws -> FetchOutcome {
    guard let file = response.file else {
      let metadata = EntryMetadata(etag: response.etag, lastModified: response.lastModified)
      guard let entry = try cache.revalidate(key: key, with: metadata) else {
        throw CacheError(.protocolError, "\(url): 304 Not Modified, but the entry is gone")
      }
      return .notModified(entry, path: cache.layout.dataPath(entry.file))
    }
    var metadata = EntryMetadata(
      contentType: response.contentType, etag: response.etag, lastModified: response.lastModified)
    do {
      if let info = try validate(
        file, response: response, url: url, acceptAny: options.acceptAnyBody)
      {
        metadata.format = info.format
        metadata.width = info.width
        metadata.height = info.height
      }
      let entry = try cache.store(file, key: key, url: url, metadata: metadata)
      let path = cache.layout.dataPath(entry.file)
      return validators == nil ? .downloaded(entry, path: path) : .revalidated(entry, path: path)
    } catch {
      unlink(file)
      throw error
    }
  }

  /// The sniffed image, or nil for an accepted non-image body; throws `.notAnImage`.
  private static func validate(
    _ file: String, response: DownloadResponse, url: String, acceptAny: Bool
  )
    throws -> ImageInfo?
  {
    let info = ImageSniffer.sniff(path: file)
    if acceptAny { return info }
    let type = response.contentType.map { ", \($0)" } ?? ""
    guard response.bytes > 0 else { throw CacheError(.notAnImage, "\(url): empty body\(type)") }
    guard let info else {
      throw CacheError(.notAnImage, "\(url): body is not an image (\(response.bytes) bytes\(type))")
    }
    guard info.hasPixels else {
      throw CacheError(.notAnImage, "\(url): \(info.format.rawValue) image has 0 pixels")
    }
    return info
  }
}

/// A mutable slot for a result crossing threads.
private final class ResultBox: @unchecked Sendable {
  var value: FetchResult?
}
