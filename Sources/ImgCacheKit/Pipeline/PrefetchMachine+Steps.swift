import FoundationEssentials

/// The machine's steps (what it does when nothing is queued) and events (what the owner feeds
/// back). docs/architecture.md, The prefetch loop, has the transition table.
extension PrefetchMachine {
  /// Takes `step`: queues its actions and moves to the step after.
  mutating func enter(_ step: Step) {
    switch step {
    case .top: self.step = cancelled ? .drain : .take(wait: false, then: .parked)
    case .parked:
      // What finished is stored before more input is read, however fast the input comes.
      storeUnstored()
      startParked()
      self.step = .flush(then: .read)
    case .read: beginBatch()
    case .readEnded: endBatch()
    case .admit: admitNext()
    case .drain: drain()
    case .drainWait: self.step = scheduler.hasWork ? .take(wait: true, then: .drain) : .drain
    case .flush(let then):
      if !outbox.isEmpty { enqueue(.send(outbox)) }
      outbox = []
      self.step = then
    case .take(let wait, let then):
      // A wait is preceded by a look: what already arrived is taken before a due store starts.
      taking = wait ? .probe(then: then) : .now(then: then)
      enqueue(.take(wait: false, deadline: nil))
    case .finished: break
    }
  }

  // MARK: Reading the input

  private mutating func beginBatch() {
    batch = []
    // The input has ended: the batch is empty, and the run drains.
    guard !run.inputEnded else { return step = .readEnded }
    busyWhileReading = scheduler.isBusy
    read(upTo: batchSize, wait: firstWait)
  }

  /// How the batch's reads wait while it is empty: with work outstanding, a wait for input
  /// also ends when something arrives.
  private var firstWait: ReadWait { busyWhileReading ? .untilArrival : .block }

  private mutating func read(upTo wanted: Int, wait: ReadWait) {
    lastRead = (wanted, wait)
    enqueue(.read(upTo: wanted, wait: wait))
  }

  /// Event: a read of the input answered `items` (or failed); `waited` says whether it could
  /// wait (an arrival already waiting makes a read that would wait for one answer at once).
  mutating func inputRead(_ items: Result<[URLSourceItem], any Error>, waited: Bool) {
    if lastRead.wait != .none { mayWait = waited }
    switch items {
    case .failure(let error):
      run.inputError = CacheError.io("cannot read the URL list", error)
      run.inputEnded = true
      step = .readEnded
    case .success(let items):
      run.collect(items, into: &batch)
      // What was there is read; a wait that found only duplicates and blank lines goes on.
      let more =
        items.count == lastRead.wanted || (mayWait && batch.isEmpty && !items.isEmpty)
      if batch.count < batchSize && !run.inputEnded && more {
        read(upTo: batchSize - batch.count, wait: mayWait && batch.isEmpty ? firstWait : .none)
      } else {
        step = .readEnded
      }
    }
  }

  private mutating func endBatch() {
    guard batch.isEmpty else {
      enqueue(.lookUp(batch))
      batch = []
      return
    }
    // The input has ended (parked fetches are the drain's, which waits for room).
    if run.inputEnded || (!busyWhileReading && !scheduler.hasParked) { return step = .drain }
    step = .take(wait: !mayWait && !canWake, then: .top)
  }

  /// Event: the batch's URLs looked up, in input order.
  mutating func lookedUp(_ fetches: [Fetch]) {
    var open = [Fetch]()
    for fetch in fetches {
      if fetch.isFinished { record(fetch.result) } else { open.append(fetch) }
    }
    admitting = open[...]
    step = .admit
  }

  // MARK: Admitting

  /// Starts what the scheduler admits of the batch, in input order, while the window has room;
  /// when it admits none (its hosts' parked fetches are as many as it keeps), something must
  /// end first. Nothing once the run is cancelled: what is left is unfinished.
  private mutating func admitNext() {
    guard !admitting.isEmpty else { return step = .flush(then: .top) }
    // The events so far go first: events keep the order they were recorded in.
    guard scheduler.room > 0 else { return step = .flush(then: .take(wait: true, then: .admit)) }
    guard !cancelled else {
      for fetch in admitting { run.noteUnfinished(fetch.display) }
      admitting = []
      return step = .flush(then: .top)
    }
    let starting = scheduler.admit(&admitting)
    guard starting.isEmpty else { return enqueue(.submit(starting)) }
    if !admitting.isEmpty { step = .flush(then: .take(wait: true, then: .admit)) }
  }

  /// Starts the parked fetches whose hosts have room again (none once cancelled).
  private mutating func startParked() {
    guard scheduler.hasParked, !cancelled else { return }
    var none = ArraySlice<Fetch>()
    let starting = scheduler.admit(&none)
    if !starting.isEmpty { enqueue(.submit(starting)) }
  }

  /// Event: the transfers of `fetches` submitted (or the fetches settled on the way).
  mutating func submitted(_ fetches: [Fetch]) {
    for fetch in fetches { hand(fetch) }
    queueSettles()
  }

  private mutating func drain() {
    guard scheduler.hasWork || scheduler.hasParked else { return step = .flush(then: .finished) }
    if cancelled {
      for fetch in scheduler.takeParked() { run.noteUnfinished(fetch.display) }
    }
    startParked()
    step = .flush(then: .drainWait)
  }
}
