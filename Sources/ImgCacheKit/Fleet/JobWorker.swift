import FoundationEssentials
import Glibc
import Synchronization

/// What a worker of a job did (`job work` shows each).
public enum JobWorkEvent: Sendable, Equatable {
  /// It took shard `index` of `urls` URLs, delivered for the `deliveries`th time.
  case took(index: Int, urls: Int, deliveries: Int)
  /// It finished shard `index`; `kept` is false when another worker had finished it first.
  case finished(index: Int, counts: ShardCounts, kept: Bool)
  /// It gave shard `index` back unfinished (a signal, or the job cancelled).
  case gaveBack(index: Int)
  /// It moved `count` shards to the dead list (delivered `max_deliveries` times, or
  /// malformed).
  case buried(count: Int)
  /// It stopped work on shard `index`: its lease had lapsed and another worker took it over.
  case lost(index: Int)
}

/// How a worker's run ended.
public struct JobWorkSummary: Sendable {
  /// Shards it finished, and their counts summed.
  public var shards = 0
  public var counts = ShardCounts()
  /// Whether it stopped because the job was cancelled.
  public var jobCancelled = false
  /// Why it stopped early, when the queue failed.
  public var error: CacheError?
}

/// A worker of a job (docs/fleet.md): takes a shard, prefetches its URLs with the job's
/// options through the local cache and the remote tier while a child task renews its lease,
/// then keeps the shard's manifest and acknowledges it; again until no shard is left.
public struct JobWorker: Sendable {
  /// The job's queue.
  public let queue: JobQueue
  /// The pipeline its URLs go through.
  public let prefetcher: Prefetcher
  /// The fetch options the job asks for.
  public let options: FetchOptions
  /// This worker's name in the consumer group (unique in the fleet).
  public let consumer: String
  /// The lease (renewed every third of it) and the deliveries past which a shard is dead.
  public let lease: Duration
  public let maxDeliveries: Int
  /// The table's saved columns, when the manifest keeps each row's caption and saved columns
  /// (the job names `--caption-col` or `--save-column`); nil when it keeps neither.
  public var keptColumns: [String]?

  /// A worker with these parts.
  public init(
    queue: JobQueue, prefetcher: Prefetcher, options: FetchOptions, consumer: String,
    lease: Duration, maxDeliveries: Int
  ) {
    (self.queue, self.prefetcher, self.options) = (queue, prefetcher, options)
    (self.consumer, self.lease, self.maxDeliveries) = (consumer, lease, maxDeliveries)
  }

  /// `host:pid`, a worker's default name.
  public static var defaultName: String {
    var name = [CChar](repeating: 0, count: 256)
    let host = gethostname(&name, 255) == 0 ? String(cString: name) : "worker"
    return "\(host):\(getpid())"
  }

  /// Works until the job has no shard left pending or held (with `follow`, until cancelled),
  /// the job is cancelled, or the calling task is cancelled: a shard in hand is then given
  /// back. `report` is called with each event, holding nothing. A queue that fails is asked
  /// again for a while (``patience``) before the run ends with its error.
  public func run(
    follow: Bool, report: @Sendable (JobWorkEvent) -> Void
  ) async -> JobWorkSummary {
    var summary = JobWorkSummary()
    // Blocking for new shards pays only while more may come (`--follow`); otherwise a worker
    // with nothing to take looks again soon, to end as soon as the job is complete, or to
    // take over a shard whose worker died. Either way well within a signal's grace.
    let wait = min(lease / 3, follow ? .milliseconds(500) : .milliseconds(200))
    do {
      while !Task.isCancelled {
        let (taken, buried) = try await patiently {
          try queue.take(
            consumer: consumer, lease: lease, maxDeliveries: maxDeliveries, block: wait)
        }
        if buried > 0 { report(.buried(count: buried)) }
        switch taken {
        case .cancelled:
          summary.jobCancelled = true
          return summary
        case .none:
          if !follow, try await patiently({ try queue.isComplete() }) { return summary }
        case .shard(let shard):
          report(.took(index: shard.index, urls: shard.urls.count, deliveries: shard.deliveries))
          switch try await work(shard, &summary) {
          case .finished(let counts, let kept):
            summary.shards += 1
            summary.counts.add(counts)
            report(.finished(index: shard.index, counts: counts, kept: kept))
          case .lost: report(.lost(index: shard.index))
          case .stopped(let givenBack):
            if !givenBack { try? queue.giveBack(shard, consumer: consumer, timeout: 0.3) }
            report(.gaveBack(index: shard.index))
            return summary
          }
        }
      }
    } catch let error as CacheError {
      summary.error = error
    } catch {
      summary.error = CacheError(.network, "job \(queue.name): \(error)")
    }
    return summary
  }

  /// How long a failing queue is asked again, backing off, before the worker gives up.
  static let patience: [Duration] = [
    .milliseconds(500), .seconds(1), .seconds(2), .seconds(4), .seconds(8),
  ]

  /// `body`, asked again after each of ``patience``'s delays while it fails for want of the
  /// network (a usage error, or a cancel, ends at once).
  private func patiently<T>(_ body: () throws -> T) async throws -> T {
    for delay in Self.patience {
      do { return try body() } catch let error as CacheError where error.kind == .network {
        guard !Task.isCancelled else { throw error }
        try? await Task.sleep(for: delay)
      }
    }
    return try body()
  }

  /// How a shard's work ended.
  private enum ShardEnd {
    /// Done; its counts, and whether its manifest was kept.
    case finished(ShardCounts, kept: Bool)
    /// Its lease lapsed and another worker took it over: left to that one.
    case lost
    /// Cancelled (a signal, or the job's cancel); whether it was given back already.
    case stopped(givenBack: Bool)
  }

  /// Prefetches `shard` while its lease is renewed. A cancel gives the shard back at once,
  /// from the cancel itself (a signal's grace is short); a renewal that finds the job
  /// cancelled, or the lease taken over, stops the prefetch. The decisions are
  /// ``ShardLife``'s, shared by the renewals, the cancel and this task behind one lock that
  /// is never held across an action.
  private func work(
    _ shard: JobQueue.Shard, _ summary: inout JobWorkSummary
  ) async throws -> ShardEnd {
    let start = Date()
    var options = options
    if shard.retry { options.retryFailed = true }
    let run = prefetcher.start(URLList(items: shard.items), options: options)
    let life = Mutex(ShardLife(lease: lease))
    let first = life.withLock { $0.first }
    let renewal = Task(executorPreference: EngineExecutor.shared) { [queue, consumer] in
      var action = first
      while !Task.isCancelled {
        switch action {
        case .wait(let delay):
          try? await Task.sleep(for: delay)
          guard !Task.isCancelled else { return }
          action = life.withLock { $0.handle(.timer) }
        case .renew:
          // A failed renewal is tried again at the next third: the lease outlasts two.
          let event: ShardLife.Event =
            (try? queue.renew(shard, consumer: consumer)).map {
              .renewed(held: $0.held, cancelled: $0.state == "cancelled")
            } ?? .renewalFailed
          action = life.withLock { $0.handle(event) }
        case .stopPrefetch:
          run.cancel()
          return
        default: return
        }
      }
    }
    defer { renewal.cancel() }
    var lines = [String]()
    var counts = ShardCounts()
    await withTaskCancellationHandler {
      for await event in run {
        let row = keptColumns.map { RowFields(event.result.notes, saved: $0) }
        lines.append(JobManifestRecord(event.result, worker: consumer).line(with: row))
        counts.note(event.result)
      }
    } onCancel: { [queue, consumer] in
      run.cancel()
      renewal.cancel()
      // Given back before the transfers wind down: a signal leaves the process little time.
      guard life.withLock({ $0.handle(.signalled) }) == .giveBack else { return }
      let ok = (try? queue.giveBack(shard, consumer: consumer, timeout: 0.3)) != nil
      _ = life.withLock { $0.handle(.gaveBack(ok)) }
    }
    let cancelled = await run.summary.cancelled || Task.isCancelled
    counts.seconds = Date().timeIntervalSince(start)
    let ending = life.withLock { $0.handle(.prefetchEnded(cancelled: cancelled)) }
    return try await end(shard, ending, manifest: lines, counts: counts, &summary)
  }

  /// Performs how `shard`'s life ends: its manifest written (`lines`, one a URL) with its
  /// counts, or nothing when it was lost or stopped.
  private func end(
    _ shard: JobQueue.Shard, _ ending: ShardLife.Action, manifest lines: [String],
    counts: ShardCounts, _ summary: inout JobWorkSummary
  ) async throws -> ShardEnd {
    switch ending {
    case .finish:
      let manifest = (lines + [""]).joined(separator: "\n")
      let kept = try await patiently { try queue.finish(shard, manifest: manifest, counts: counts) }
      return .finished(counts, kept: kept)
    case .end(.lost): return .lost
    case .end(.stopped(let givenBack, let jobCancelled)):
      if jobCancelled { summary.jobCancelled = true }
      return .stopped(givenBack: givenBack)
    default: return .stopped(givenBack: false)
    }
  }
}
