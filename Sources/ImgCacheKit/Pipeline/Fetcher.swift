import FoundationEssentials
import Glibc
import Synchronization

/// The pipeline (SDWebImageManager, persistent), used by `fetch`, `query` and `prefetch`
/// alike: every URL is a ``Fetch`` (docs/architecture.md, The path of a `fetch`). The lookup
/// stages run on a batch at once (``lookUp(_:options:)``: URL check → failed requests → local
/// tiers → remote tier → plan); then ``FetchMachine`` decides each fetch's steps and the pipeline
/// performs them (``drive(_:options:action:)`` for one fetch, ``start(_:options:into:)`` for a
/// batch's transfers). Downloads are validated, stored in batches, and shared by the
/// callers of one request.
public final class Fetcher: Sendable {
  /// The local cache, the first tier.
  public let cache: DiskCache
  /// Every tier, in lookup order; the first is ``cache``.
  public let tiers: [any BlobStore]
  /// How downloads talk to servers.
  public let transfer: TransferOptions
  /// The downloader, created on first use (a lookup alone never loads libcurl's state).
  public var downloader: Downloader {
    if let existing = downloaderSlot.withLock({ $0 }) { return existing }
    let created = Downloader(options: transfer)
    return downloaderSlot.withLock { slot in
      if let existing = slot { return existing }
      slot = created
      return created
    }
  }
  private let downloaderSlot = Mutex<Downloader?>(nil)
  /// The transport the pipeline's transfers go through: the one given at creation, else the
  /// ``downloader``.
  var transport: any Transport { givenTransport ?? downloader }
  private let givenTransport: (any Transport)?
  /// The transport when one was given or made (a cancel handler need not make one to cancel
  /// nothing).
  var existingTransport: (any Transport)? { givenTransport ?? downloaderSlot.withLock { $0 } }
  let flights = SingleFlight<FlightKey, FetchResult>()
  /// The robots.txt files this process knows (`--robots`).
  let robotsBook = RobotsBook()
  let stores: StoreBatcher
  /// Variants just derived, stored in batches as downloads are: one transaction a variant
  /// wrote ten pages of the index's WAL an image in an export.
  let variantStores: StoreBatcher
  /// Derivations at once: one per core (each decodes a whole image), fewer when `jobs` is.
  let derivations: Slots
  /// libvips' threads for one derivation: the cores left to each of ``derivations``.
  let derivationThreads: Int
  /// The cores online when the pipeline was made.
  let cores: Int
  /// The fingerprints of requests without URL credentials, made once (one SHA-256 each), by
  /// whether any body is accepted.
  let plainFingerprints = Mutex<[Bool: String]>([:])
  /// The start order of downloads: numbered as lookups ask for them, in input order.
  private let sequence = Atomic<UInt64>(0)

  /// `count` consecutive places in the start order: the first.
  func nextSequences(_ count: Int) -> UInt64 {
    sequence.add(UInt64(count), ordering: .relaxed).newValue - UInt64(count) + 1
  }

  /// The shared tier asked after `tiers` and written back after downloads, if any.
  public let remote: RemoteTier?
  /// One download per key across a fleet (`fetch work`): a machine that finds the key's lock
  /// taken waits for the remote object.
  public let fleetLocks: (any FleetLocks)?

  /// Creates a pipeline over `cache` (then `readOnly` directories, then `remote`) downloading
  /// with `transfer` (through `transport` when one is given: a test's), one download per key
  /// across the fleet with `fleetLocks` (only beside a remote tier: a waiter is served from it).
  public init(
    cache: DiskCache, readOnly: [URL] = [], remote: RemoteTier? = nil,
    transfer: TransferOptions = TransferOptions(), transport: (any Transport)? = nil,
    fleetLocks: (any FleetLocks)? = nil
  ) {
    self.cache = cache
    self.fleetLocks = remote == nil ? nil : fleetLocks
    givenTransport = transport
    tiers = [cache] + (readOnly.isEmpty ? [] : [ReadOnlyDirectories(readOnly)])
    self.remote = remote
    var transfer = transfer
    // Hosts' pauses and rates hold for every process of this cache.
    if transfer.hostsFile == nil { transfer.hostsFile = cache.layout.hostsFile }
    self.transfer = transfer
    stores = StoreBatcher(cache: cache)
    variantStores = StoreBatcher(
      cache: cache, what: ("the variant", "variants"), counting: (.derivations, .bytesDerived))
    // sysconf, not ProcessInfo: its first use costs a hit millions of instructions.
    cores = max(1, sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    let slots = max(1, min(transfer.maxConcurrent, cores))
    derivations = Slots(slots)
    derivationThreads = max(1, cores / slots)
  }

  /// Fetches `url` through the cache.
  public func fetch(_ url: String, options: FetchOptions = FetchOptions()) async -> FetchResult {
    await fetch([url], options: options)[0]
  }

  /// Fetches `urls` through the cache, concurrently: looked up in one batch, their downloads
  /// started in their order; returns the results in that order.
  public func fetch(_ urls: [String], options: FetchOptions = FetchOptions()) async
    -> [FetchResult]
  {
    await withTaskExecutorPreference(EngineExecutor.shared) {
      await fetchHere(urls, options: options)
    }
  }

  /// ``fetch(_:options:)-([String],_)``'s work, on the engine's executor.
  private func fetchHere(_ urls: [String], options: FetchOptions) async -> [FetchResult] {
    guard urls.count < Self.smallestPart else {
      return await fetchLookedUp(
        lookUpOnCores(urls.map { ListedURL($0) }, options: options), options: options)
    }
    return await fetch(continuing: begin(urls, options: options), options: options)
  }

  /// How far ``begin(_:options:)`` took a fetch of a few URLs on the calling thread.
  public struct FetchStart: Sendable {
    fileprivate enum Stage: Sendable {
      /// Every URL answered by the lookup: their results.
      case answered([FetchResult])
      /// The lookup waits for this action (another tier).
      case waiting(LookupMachine, LookupMachine.Action)
      /// Looked up, with fetches still open (downloads, variants, digests).
      case lookedUp([Fetch])
    }
    fileprivate let stage: Stage

    /// Every result, when the lookup answered every URL (hits, refusals, offline misses).
    public var results: [FetchResult]? {
      guard case .answered(let results) = stage else { return nil }
      return results
    }
  }

  /// Starts a fetch of `urls` (a few: a command line's) on the calling thread, with no task
  /// and no thread: the lookup runs as far as the local index answers
  /// (``lookUpAtOnce(_:options:)``) and, when every URL is finished there, settles them — a
  /// hit needs nothing more. Otherwise ``fetch(continuing:options:)`` goes on from where it
  /// stopped, with nothing done twice.
  public func begin(_ urls: [String], options: FetchOptions) -> FetchStart {
    var machine = LookupMachine(
      urls.map { Fetch($0, options: options) }, rules: lookupRules(options))
    switch lookUpAtOnce(&machine, options: options) {
    case .waiting(let action): return FetchStart(stage: .waiting(machine, action))
    case .finished(let fetches):
      let rules = rules(options)
      var settling = [Fetch]()
      for var fetch in fetches {
        guard fetch.isFinished, case .settle = FetchMachine.next(&fetch, rules: rules) else {
          return FetchStart(stage: .lookedUp(fetches))
        }
        settling.append(fetch)
      }
      return FetchStart(stage: .answered(settling.map(settle)))
    }
  }

  /// Finishes the fetch `start` began, on the engine's executor; its results in its URLs'
  /// order.
  public func fetch(continuing start: FetchStart, options: FetchOptions) async -> [FetchResult] {
    if case .answered(let results) = start.stage { return results }
    return await withTaskExecutorPreference(EngineExecutor.shared) {
      switch start.stage {
      case .answered(let results): return results
      case .lookedUp(let fetches): return await fetchLookedUp(fetches, options: options)
      case .waiting(var machine, let action):
        let fetches = await perform(&machine, options: options, from: action)
        return await fetchLookedUp(fetches, options: options)
      }
    }
  }

  /// Drives looked-up `fetches` to their results: downloads started in their order, each
  /// fetch driven to its end.
  private func fetchLookedUp(_ looked: [Fetch], options: FetchOptions) async -> [FetchResult] {
    var fetches = looked
    let open = fetches.indices.filter { !fetches[$0].isFinished }
    var options = options
    // One download: no task group, and its body stored without the batcher's hops.
    options.storesAlone = open.count == 1
    start(&fetches, options: options)
    guard open.count > 1 else {
      var results = [FetchResult]()
      for fetch in fetches { results.append(await drive(fetch, options: options)) }
      return results
    }
    var results = fetches.map { $0.isFinished ? $0.result : nil }
    return await withTaskGroup(of: (Int, FetchResult).self) { [options] group in
      for index in open {
        let fetch = fetches[index]
        group.addTask { (index, await self.drive(fetch, options: options)) }
      }
      for await (index, result) in group { results[index] = result }
      return results.compactMap { $0 }
    }
  }

  /// Settles a done fetch: its key's lock released, its flight's followers handed its result.
  func settle(_ fetch: Fetch) -> FetchResult {
    fetch.lock?.release()
    let result = fetch.result
    if let flight = fetch.flight { flights.finish(flight, with: result) }
    return result
  }
}
