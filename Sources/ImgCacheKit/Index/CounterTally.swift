import Synchronization

/// What this process added to the counters and committed (docs/design.md, Metrics): the
/// `counters` of its line in the stats log. An addition is held with its connection's open
/// transaction (``IndexSchema/increment(named:_:)``) and kept when that transaction commits,
/// dropped when it rolls back or its connection closes (``SQLiteConnection/onTransactionEnd``,
/// set on every connection the index opens: only a COMMIT that succeeded keeps them). Off until ``start()``: a process with no stats log pays
/// nothing for it (its first dictionary of connections cost a hit 300,000 instructions).
package enum CounterTally {
  private struct State {
    /// Additions of each connection's open transaction.
    var open = [ObjectIdentifier: [String: Int64]]()
    /// Additions committed.
    var committed = [String: Int64]()
  }

  private static let state = Mutex(State())
  private static let started = Atomic<Bool>(false)

  /// Tallies from now on: call before the index opens a connection.
  package static func start() { started.store(true, ordering: .relaxed) }

  /// Holds `amounts`, added in `db`'s open transaction, until it ends.
  static func add(_ amounts: [String: Int64], on db: SQLiteConnection) {
    guard started.load(ordering: .relaxed) else { return }
    let id = ObjectIdentifier(db)
    state.withLock { state in
      for (name, amount) in amounts where amount != 0 {
        state.open[id, default: [:]][name, default: 0] &+= amount
      }
    }
  }

  /// Keeps what `db`'s transaction held when it commits, drops it when it rolls back.
  static func watch(_ db: SQLiteConnection) {
    guard started.load(ordering: .relaxed) else { return }
    let id = ObjectIdentifier(db)
    db.onTransactionEnd = { committed in
      state.withLock { state in
        guard let held = state.open.removeValue(forKey: id), committed else { return }
        state.committed.merge(held) { $0 &+ $1 }
      }
    }
  }

  /// Keeps `amounts`, written where no transaction holds them (the use journal).
  static func committed(_ amounts: [Counter: Int64]) {
    guard started.load(ordering: .relaxed) else { return }
    state.withLock { state in
      for (counter, amount) in amounts where amount != 0 {
        state.committed[counter.rawValue, default: 0] &+= amount
      }
    }
  }

  /// Every counter this process changed, by name, with what it added.
  package static func committed() -> [String: Int64] {
    state.withLock { $0.committed.filter { $0.value != 0 } }
  }
}
