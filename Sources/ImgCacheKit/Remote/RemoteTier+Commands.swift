import FoundationEssentials
import Synchronization

/// What `remote status` reports of one server.
public struct RemoteServerStatus: Sendable {
  /// The backend as printed (credentials as `***`).
  public var backend: String
  /// The server's name in `servers=`, empty for a backend of one server.
  public var server: String
  public var readOnly: Bool
  public var reachable: Bool
  /// How long the status request took.
  public var latency: TimeInterval
  /// Objects and bytes the store holds, where cheap to know (Redis: keys and memory used;
  /// S3: one listing page).
  public var objects: Int64?
  public var bytes: Int64?
  /// Why it is not reachable.
  public var error: String?
}

/// What `remote push` did.
public struct RemotePushReport: Sendable {
  /// Entries written to at least one backend.
  public var pushed = 0
  /// Entries no backend took (each backend that failed is listed in `errors`).
  public var failed = 0
  /// Entries not for sharing (``RemoteTier/isShareable(_:)``): fetched with credentials,
  /// cookies or headers of their own, `private` or `no-store`, stored before that was
  /// recorded, or without a SHA-256.
  public var skipped = 0
  /// Bytes sent.
  public var bytes: Int64 = 0
  /// The last error of each backend that failed.
  public var errors: [String: String] = [:]

  /// Nothing pushed yet.
  public init() {}
}

extension RemoteTier {
  /// Asks every server whether it answers, how fast, and (where cheap) what it holds.
  public func status() async -> [RemoteServerStatus] {
    var statuses = [RemoteServerStatus]()
    for backend in backends {
      for server in backend.servers {
        let start = ContinuousClock.now
        let outcome: Result<(objects: Int64?, bytes: Int64?), any Error>
        do {
          outcome = .success(try await Blocking.run { try server.server.status() })
        } catch {
          outcome = .failure(error)
        }
        let seconds = (ContinuousClock.now - start) / .seconds(1)
        var status = RemoteServerStatus(
          backend: backend.label, server: server.name, readOnly: backend.spec.readOnly,
          reachable: true, latency: seconds)
        switch outcome {
        case .success(let held): (status.objects, status.bytes) = held
        case .failure(let error):
          status.reachable = false
          status.error = (error as? CacheError)?.message ?? "\(error)"
        }
        statuses.append(status)
      }
    }
    return statuses
  }

  /// Uploads `entries` (ccache's `--reshare`) to every writable backend, `parallel` at once.
  public func push(_ entries: [CacheEntry], parallel: Int = 8) async -> RemotePushReport {
    var report = RemotePushReport()
    let layout = cache.layout
    // A variant goes with the original it was made from, or not at all.
    let sources = cache.variantSources(forKeys: entries.map(\.key).filter(CacheKey.isVariant))
    await withTaskGroup(of: (Int, Int64).self) { group in
      var next = entries.makeIterator()
      func add() -> Bool {
        guard let entry = next.next() else { return false }
        group.addTask {
          guard Self.isShareable(entry) else { return (-1, 0) }
          do {
            let written = try await Blocking.run {
              self.writeBack(entry, path: layout.dataPath(entry.file), source: sources[entry.key])
            }
            guard let written else { return (-1, 0) }
            return (written, written > 0 ? entry.size : 0)
          } catch {
            return (0, 0)
          }
        }
        return true
      }
      for _ in 0..<parallel where !add() { break }
      while let (written, bytes) = await group.next() {
        switch written {
        case -1: report.skipped += 1
        case 0: report.failed += 1
        default:
          report.pushed += 1
          report.bytes += bytes
        }
        _ = add()
      }
    }
    report.errors = lastErrors.withLock { $0 }
    return report
  }

  /// Whether any backend can be written.
  public var hasWritableBackend: Bool { backends.contains { !$0.spec.readOnly } }

  /// Uploads every entry of the local cache, a page at a time in the order they were stored,
  /// until the task is cancelled.
  public func pushAll() async throws -> RemotePushReport {
    var report = RemotePushReport()
    var cursor: EntryCursor?
    repeat {
      let page = try cache.entries(matching: EntryFilter(), order: .stored, after: cursor)
      if !page.entries.isEmpty { report.add(await push(page.entries)) }
      cursor = page.next
    } while cursor != nil && !Task.isCancelled
    return report
  }

  /// Uploads the stored entries of `keys` (a key without an entry is left out).
  public func push(keys: [String]) async throws -> RemotePushReport {
    var report = RemotePushReport()
    for start in stride(from: 0, to: keys.count, by: 256) where !Task.isCancelled {
      let page = Array(keys[start..<min(keys.count, start + 256)])
      report.add(await push(try cache.storedEntries(forKeys: page)))
    }
    return report
  }
}

extension RemotePushReport {
  /// Adds the counts of `other` (a later page); its errors are the latest.
  public mutating func add(_ other: RemotePushReport) {
    pushed += other.pushed
    failed += other.failed
    skipped += other.skipped
    bytes += other.bytes
    errors = other.errors
  }
}

extension RemoteTier {
  /// The backends that failed in this process, each with its last error (for a warning).
  public var failures: [(backend: String, error: String)] {
    lastErrors.withLock { $0 }.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
  }

  /// The backends that served damaged or mismatched objects in this process (each refused
  /// and counted as a miss): how many, and the last reason (for a warning).
  public var corruptObjects: [(backend: String, count: Int, reason: String)] {
    corruptions.withLock { $0 }.sorted { $0.key < $1.key }.map {
      ($0.key, $0.value.count, $0.value.reason)
    }
  }
}
