import Foundation

/// The download stages for a batch of jobs whose transfers ended together: a prefetch takes
/// the responses the loop thread handed over in one turn (``FinishedDownloads``) and moves
/// them on here, without a task, a continuation and a store hop per download. What waits on
/// something else (a flight, another process's lock, a derivation, a write-back) still goes
/// through ``drive(_:options:)``.
extension Fetcher {
  /// Stages `failed` and `received` for a job whose transfer ended with `response`: it comes
  /// back `checked` (to store), `download` (a refused resume, to start again) or `done`.
  func advance(
    _ job: Job, response: Result<DownloadResponse, CacheError>, options: FetchOptions
  ) -> Job {
    guard case .transferring(let plan, _) = job.state else { return job }
    return answered(job, plan: plan, response: response, options: options)
  }

  /// Stages `failed` and `received` for a job whose transfer under `plan` ended with
  /// `response`: `drive`'s for one job, ``advance(_:response:options:)``'s for a batch.
  func answered(
    _ job: Job, plan: Job.Plan, response: Result<DownloadResponse, CacheError>,
    options: FetchOptions
  ) -> Job {
    var job = job
    switch response {
    case .failure(let error):
      job.state = failed(job, plan: plan, error: error, options: options)
    case .success(let answer):
      job = received(job, plan: plan, response: answer, options: options)
    }
    return job
  }

  /// Stage `stored` for a batch: the checked bodies of `jobs` go into one transaction. Each
  /// job comes back `done`, or `stored` when the remote tier takes a write-back of it.
  func store(checked jobs: [Job], options: FetchOptions) async -> [Job] {
    var items = [PendingStore]()
    for job in jobs { if case .checked(_, let pending) = job.state { items.append(pending) } }
    var results = await StoreBatcher.store(items, in: cache).makeIterator()
    let writesBack = self.writesBack(options)
    var moved = jobs
    for index in moved.indices {
      guard case .checked(let plan, _) = moved[index].state, let result = results.next() else {
        continue
      }
      let state = stored(result, plan: plan)
      if case .stored(let outcome) = state, !writesBack {
        moved[index].state = .done(.success(outcome))
      } else {
        moved[index].state = state
      }
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
  /// jobs) runs beside it. The jobs keep the order of `urls`.
  func lookUpOnCores(_ urls: [String], options: FetchOptions) async -> [Job] {
    let parts = min(2 * cores, urls.count / Self.smallestPart)
    guard parts > 1 else { return await lookUp(urls, options: options) }
    let size = (urls.count + parts - 1) / parts
    var looked = [[Job]](repeating: [], count: parts)
    await withTaskGroup(of: (Int, [Job]).self) { group in
      for part in 0..<parts {
        let slice = Array(urls[(part * size)..<min(urls.count, (part + 1) * size)])
        group.addTask { (part, await self.lookUp(slice, options: options)) }
      }
      for await (part, jobs) in group { looked[part] = jobs }
    }
    var jobs = looked.flatMap { $0 }
    // The parts were planned at once, their places in the start order mixed: numbered
    // again, in input order.
    for index in jobs.indices {
      if case .download(var plan) = jobs[index].state {
        plan.sequence = nextSequence()
        jobs[index].state = .download(plan)
      }
    }
    return jobs
  }
}
