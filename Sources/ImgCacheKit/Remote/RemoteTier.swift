import FoundationEssentials
import Glibc
import Synchronization

/// The shared tier after the local cache and the read-only directories (ccache's remote
/// storage): lookups ask each backend in order, write-backs go to every writable one. A hit
/// is verified (size, SHA-256, image format) and copied into the local cache, where it is an
/// ordinary entry. A backend that fails — refused, timed out, 5xx, bad data — is not asked
/// again by this process: a remote fault never fails a fetch and costs a batch at most its
/// timeouts once.
public final class RemoteTier: Sendable {
  /// One server: a backend, or one of its `servers=`.
  final class Server: Sendable {
    let server: any RemoteServer
    /// Its name in `servers=`; empty for a backend of one server.
    let name: String
    /// Whether it failed in this process (then it is not asked again).
    let failed = Atomic<Bool>(false)
    /// Slow answers in a row (see ``RemoteTier/timed(_:_:_:)``).
    let slowAnswers = Atomic<Int>(0)

    init(server: any RemoteServer, name: String) {
      self.server = server
      self.name = name
    }
  }

  /// One backend of `remote_storage`, with its servers.
  final class Backend: Sendable {
    let spec: RemoteSpec
    let servers: [Server]
    /// How the backend is shown (credentials as `***`); its counters are kept under it.
    var label: String { spec.display }

    init(spec: RemoteSpec, servers: [Server]) {
      self.spec = spec
      self.servers = servers
    }

    /// The server that holds `name` (rendezvous hashing: the server whose hash with the name
    /// is highest, so adding a server moves only the keys it wins).
    func server(for name: String) -> Server {
      guard servers.count > 1 else { return servers[0] }
      return servers.max { a, b in
        Self.weight(a.name, name) < Self.weight(b.name, name)
      } ?? servers[0]
    }

    private static func weight(_ server: String, _ name: String) -> String {
      SHA256.hex(of: Array((server + "\u{0}" + name).utf8))
    }
  }

  let backends: [Backend]
  let cache: DiskCache

  /// The tier of `specs`, copying hits into `cache`; S3 credentials may come from
  /// `environment`. Throws `.invalidInput` for a malformed backend.
  public init(specs: [RemoteSpec], cache: DiskCache, environment: [String: String]) throws {
    self.cache = cache
    backends = try specs.map { spec in
      let servers = try spec.serverURLs.map { name, url -> Server in
        switch spec.kind {
        case .redis: return Server(server: try RedisServer(url: url, spec: spec), name: name)
        case .http: return Server(server: try HTTPServer(url: url, spec: spec), name: name)
        case .s3:
          return Server(
            server: try S3Listing.server(url: url, spec: spec, environment: environment),
            name: name)
        }
      }
      return Backend(spec: spec, servers: servers)
    }
  }

  /// The object name of a cache key: its SHA-256, plain hex.
  package static func objectName(_ key: String) -> String { SHA256.hex(of: Array(key.utf8)) }

  /// Counts `counts` for `backend`, and globally unless a transaction already did.
  func count(_ backend: Backend, _ counts: [Counter: Int64], globally: Bool = true) {
    var named = [String: Int64]()
    for (counter, value) in counts { named[Counter.remoteName(backend.label, counter)] = value }
    cache.index.note(globally ? counts : [:], named: named)
  }

  /// Marks `server` failed after `error` and counts it.
  func fail(_ backend: Backend, _ server: Server, _ error: CacheError) {
    // Only the first failure counts: operations under way at that moment fail too.
    guard !server.failed.exchange(true, ordering: .acquiringAndReleasing) else { return }
    count(backend, [error.isTimeout ? .remoteTimeouts : .remoteErrors: 1])
    lastErrors.withLock { $0[backend.label] = error.message }
  }

  /// Slow answers in a row after which a server is marked failed, like an error.
  static let slowAnswersToFail = 3

  /// Runs one operation of `server`: an answer that took over half the operation timeout is
  /// slow, and ``slowAnswersToFail`` in a row mark the server failed (a backend that answers
  /// each lookup just under its timeout would make every batch that much longer).
  func timed<T>(_ backend: Backend, _ server: Server, _ operation: () throws -> T) rethrows -> T {
    let start = ContinuousClock.now
    defer {
      let seconds = (ContinuousClock.now - start) / .seconds(1)
      if seconds > backend.spec.operationTimeout / 2 {
        let streak = server.slowAnswers.add(1, ordering: .relaxed).newValue
        if streak >= Self.slowAnswersToFail {
          fail(
            backend, server,
            CacheError(
              .network,
              "timed out (\(backend.label)): \(streak) answers in a row took over half of "
                + "operation-timeout"))
        }
      } else {
        server.slowAnswers.store(0, ordering: .relaxed)
      }
    }
    return try operation()
  }

  /// The last error of each backend, for `remote status` and warnings.
  let lastErrors = Mutex<[String: String]>([:])
  /// How many objects each backend served that were refused as damaged, and the last reason.
  let corruptions = Mutex<[String: (count: Int, reason: String)]>([:])

  // MARK: Lookup

  /// A check of a verified object beyond the one every object passes (a variant's, against
  /// its spec): its key, its metadata and what its body measured; throws
  /// ``RemoteObjectRefusal``.
  package typealias ObjectCheck = @Sendable (String, RemoteMetadata, EntryMetadata) throws -> Void

  /// The hits among `keys` (`urls[key]` is the URL asked for each), each verified (and passed
  /// by `check`) and copied into the local cache; at most `parallel` objects are fetched at
  /// once, and the copies are stored in one transaction.
  package func lookup(
    keys: [String], urls: [String: String], acceptAnyBody: Bool, maxSize: Int64,
    check: ObjectCheck? = nil, parallel: Int = 8
  ) async -> [String: CacheHit] {
    guard !backends.isEmpty, !keys.isEmpty else { return [:] }
    let fetched = await withTaskGroup(of: Fetched?.self) { group in
      var fetched = [Fetched]()
      var next = keys.makeIterator()
      func add() -> Bool {
        guard let key = next.next() else { return false }
        let url = urls[key] ?? key
        group.addTask {
          let copy = try? await Blocking.run {
            try self.fetch(
              key: key, url: url, acceptAnyBody: acceptAnyBody, maxSize: maxSize, check: check)
          }
          return copy ?? nil
        }
        return true
      }
      for _ in 0..<parallel where !add() { break }
      while let copy = await group.next() {
        if let copy { fetched.append(copy) }
        _ = add()
      }
      return fetched
    }
    guard !fetched.isEmpty else { return [:] }
    // The store's transaction counts the hits and their bytes; each backend's own here.
    let stored =
      (try? await Blocking.run { [cache] in
        try cache.store(fetched.map(\.item), counting: (.remoteHits, .remoteBytesDown))
      }) ?? []
    var found = [String: CacheHit]()
    for (copy, result) in zip(fetched, stored) {
      guard case .success(let entry) = result else { continue }
      count(copy.backend, [.remoteHits: 1, .remoteBytesDown: entry.size], globally: false)
      found[entry.key] = .remote(
        entry, path: cache.layout.dataPath(entry.file), backend: copy.backend.label)
    }
    if stored.isEmpty { fetched.forEach { unlink($0.item.temporaryPath) } }
    return found
  }

  /// A verified remote copy waiting to be stored, and the backend it came from.
  struct Fetched: Sendable {
    var item: PendingStore
    var backend: Backend
  }

  /// Asks each backend in turn for `key`; returns the first verified copy. An object that
  /// cannot be taken is a miss of that backend (counted `remote_corrupt` when damaged, and
  /// replaced by the write-back of the download that follows); only a failing server is
  /// marked failed.
  private func fetch(
    key: String, url: String, acceptAnyBody: Bool, maxSize: Int64, check: ObjectCheck?
  ) throws -> Fetched? {
    let name = Self.objectName(key)
    for backend in backends {
      let server = backend.server(for: name)
      guard !server.failed.load(ordering: .relaxed) else { continue }
      let (path, descriptor) = try cache.makeTemporaryFile()
      close(descriptor)
      do {
        let answer = try timed(backend, server) {
          try server.server.get(name, into: path, maxSize: maxSize)
        }
        guard let metadata = answer else {
          unlink(path)
          count(backend, [.remoteMisses: 1])
          continue
        }
        var checked = try metadata.validated(
          forKey: key, body: path, maxSize: maxSize, acceptAnyBody: acceptAnyBody, now: Date())
        try check?(key, metadata, checked)
        // From the shared store: anyone's, by definition.
        checked.shareable = true
        return Fetched(
          item: PendingStore(temporaryPath: path, key: key, url: url, metadata: checked),
          backend: backend)
      } catch let refusal as RemoteObjectRefusal {
        unlink(path)
        switch refusal.reason {
        case .corrupt:
          count(backend, [.remoteCorrupt: 1, .remoteMisses: 1])
          corruptions.withLock {
            $0[backend.label] = (($0[backend.label]?.count ?? 0) + 1, refusal.detail)
          }
        case .unsuitable: count(backend, [.remoteMisses: 1])
        }
      } catch let error as CacheError {
        unlink(path)
        if error.kind == .localIO { throw error }
        fail(backend, server, error)
      }
    }
    return nil
  }

  // MARK: Write-back

  /// The one rule of what leaves this machine, for write-back and `remote push` alike: an
  /// entry fetched by a request that could be anyone's (``CacheEntry/shareable``: no
  /// credentials, cookies or headers of its own; unknown, so false, for entries stored before
  /// it was recorded), not marked `private` or `no-store` by its origin, with a SHA-256 that
  /// others can verify.
  public static func isShareable(_ entry: CacheEntry) -> Bool {
    guard entry.shareable, entry.sha256 != nil else { return false }
    let directives = CacheDirectives(entry.freshness.cacheControl)
    return !directives.isPrivate && !directives.noStore
  }

  /// Writes the body of `entry` at `path` (opened without following a link) to every
  /// writable backend that works; returns how many took it, nil when it is not for sharing
  /// (``isShareable(_:)``).
  /// A variant's entry goes only with its `source`, the original it was made from.
  @discardableResult
  package func writeBack(_ entry: CacheEntry, path: String, source: VariantSource? = nil) -> Int? {
    guard Self.isShareable(entry), let metadata = RemoteMetadata(entry, source: source) else {
      return nil
    }
    let name = Self.objectName(entry.key)
    var written = 0
    for backend in backends where !backend.spec.readOnly {
      let server = backend.server(for: name)
      guard !server.failed.load(ordering: .relaxed) else { continue }
      do {
        let sent = try timed(backend, server) {
          try server.server.put(name, body: path, metadata: metadata)
        }
        count(backend, [.remoteWrites: 1, .remoteBytesUp: sent])
        written += 1
      } catch let error as CacheError where error.kind == .localIO {
        // The body went away here (a clean, a remove): not the backend's fault.
        continue
      } catch let error as CacheError {
        fail(backend, server, error)
      } catch {
        fail(backend, server, CacheError(.network, "\(backend.label): \(error)"))
      }
    }
    return written
  }
}
