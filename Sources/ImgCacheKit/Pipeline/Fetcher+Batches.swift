import FoundationEssentials

/// Fetches moved in batches: a prefetch takes the responses the loop thread handed over in one
/// turn (``FinishedDownloads``) and advances them here, without a task, a continuation and a
/// store hop per download. What waits on something else (a flight, another process's lock, a
/// derivation, a write-back) still goes through ``drive(_:options:action:)``.
extension Fetcher {
  /// Before responses are fed to `fetches`: the records of the partial bodies the loop thread
  /// only handed over ("a partial started", for a fetch holding its key's lock, so resumable)
  /// are written, so that none is written after what follows deletes it.
  func writePartialRecords(before fetches: some Sequence<Fetch>) {
    if fetches.contains(where: { $0.lock != nil }) { cache.flushPartialRecords() }
  }

  /// Feeds `event` to `fetch` and performs what it calls for at once (``performNow(_:for:options:)``):
  /// the fetch comes back with the action it waits for — `store` (a checked body), `submit` (a
  /// refused resume, to start again), `settle`, or one that waits in a task of its own.
  func advance(
    _ fetch: inout Fetch, on event: FetchMachine.Event, rules: FetchMachine.Rules,
    options: FetchOptions
  ) -> FetchMachine.Action {
    performingNow(FetchMachine.handle(event, for: &fetch, rules: rules), &fetch, rules, options)
  }

  /// Performs `action` for `fetch` and what follows it while it does not wait
  /// (``performNow(_:for:options:)``); returns the first action that waits.
  func performingNow(
    _ action: FetchMachine.Action, _ fetch: inout Fetch, _ rules: FetchMachine.Rules,
    _ options: FetchOptions
  ) -> FetchMachine.Action {
    var action = action
    while let event = performNow(action, for: fetch, options: options) {
      action = FetchMachine.handle(event, for: &fetch, rules: rules)
    }
    return action
  }

  /// The checked bodies of `fetches` stored in one transaction; each fetch comes back advanced by
  /// what came of its store (``advance(_:on:rules:options:)``).
  func store(checked fetches: [Fetch], options: FetchOptions) async -> [Fetch] {
    let rules = rules(options)
    var moved = fetches
    var storing = [(index: Int, item: PendingStore)]()
    for index in moved.indices {
      // What each waits for, from the machine: a store carries its body.
      if case .store(let pending) = FetchMachine.next(&moved[index], rules: rules) {
        storing.append((index, pending))
      }
    }
    let results = await StoreBatcher.store(storing.map(\.item), in: cache)
    for (entry, result) in zip(storing, results) {
      _ = advance(
        &moved[entry.index], on: .stored(result.map(storedBody)), rules: rules, options: options)
    }
    return moved
  }
}

extension Fetcher {
  /// The fewest URLs a part of a batch looked up beside the others has: below, a task costs
  /// more than it saves.
  static let smallestPart = 64

  /// Looks `urls` up as ``lookUp(_:options:)`` does, in parts at once when the batch is large
  /// and there are cores for them (two parts a core, at least ``smallestPart`` URLs each): the
  /// index is read by one part at a time, while the rest of the others' lookups (keys, files,
  /// fetches) runs beside it. The parts stop before their plans: the whole batch is planned
  /// once, so its places in the start order follow `urls`.
  func lookUpOnCores(_ urls: [ListedURL], options: FetchOptions) async -> [Fetch] {
    let parts = min(2 * cores, urls.count / Self.smallestPart)
    guard parts > 1 else { return await lookUp(urls, options: options) }
    let size = (urls.count + parts - 1) / parts
    let rules = lookupRules(options)
    var looked = [[Fetch]](repeating: [], count: parts)
    var partRules = rules
    partRules.lastStage = .note
    await withTaskGroup(of: (Int, [Fetch]).self) { [partRules] group in
      for part in 0..<parts {
        let slice = urls[(part * size)..<min(urls.count, (part + 1) * size)]
        group.addTask {
          var machine = LookupMachine(
            slice.map { Fetch($0.url, options: options, notes: $0.notes) }, rules: partRules)
          return (part, await self.perform(&machine, options: options))
        }
      }
      for await (part, fetches) in group { looked[part] = fetches }
    }
    var machine = LookupMachine(looked.flatMap { $0 }, rules: rules, from: .plan)
    return await perform(&machine, options: options)
  }
}
