/// The fleet locks' requests of one process sent together on its one `locks` connection
/// (docs/fleet.md, Connections): while one batch is on its way, the attempts and releases
/// that come meanwhile wait, and go in the next batch, as one script — a group commit. A
/// value with no I/O: the owner (``RedisFleetLocks``) sends each batch and wakes the callers
/// it names.
///
/// The sender is a caller whose attempt waits: the first caller when no batch is on its way,
/// else, after each batch, the first attempt left waiting. Releases wait for no answer: when
/// only releases are left, the owner sends them from a task of its own.
struct FleetLockBatches: Sendable {
  /// One caller's attempt.
  struct Ticket: Hashable, Sendable {
    let number: Int
  }

  /// What a waiting attempt is told.
  enum Word: Sendable, Equatable {
    /// Send the next batch (its own attempt is in it).
    case lead
    /// Its answer: held, or held by another machine; nil when Redis did not answer.
    case answer(held: Bool?)
  }

  /// One caller's attempt on a lock's name.
  struct Attempt: Sendable, Equatable {
    var ticket: Ticket
    var name: String
  }

  /// One batch: the names to let go of, then those to take, in order.
  struct Batch: Sendable, Equatable {
    var releases: [String]
    var attempts: [Attempt]
  }

  /// What happens after a batch.
  enum Next: Sendable, Equatable {
    /// Nothing waits: no one sends.
    case idle
    /// The attempt of this ticket sends the next batch.
    case lead(Ticket)
    /// Only releases wait: a task of the owner's sends them.
    case sendReleases
  }

  /// The most names a batch holds.
  static let largest = 256

  private var numbered = 0
  private var attempts = [Attempt]()
  private var releases = [String]()
  private var sending = false
  /// The attempt told to send the next batch, until it takes it.
  private var leader: Ticket?

  /// Whether a batch is on its way.
  var isSending: Bool { sending }

  /// A new attempt on `name`: its ticket, and whether the caller sends at once (no batch on
  /// its way) — else it waits for a ``Word``.
  mutating func attempt(_ name: String) -> (ticket: Ticket, leads: Bool) {
    numbered += 1
    let ticket = Ticket(number: numbered)
    attempts.append(Attempt(ticket: ticket, name: name))
    defer { sending = true }
    return (ticket, !sending)
  }

  /// A release of `name`: whether the caller has a task send it now (no batch on its way).
  mutating func release(_ name: String) -> Bool {
    releases.append(name)
    defer { sending = true }
    return !sending
  }

  /// The sender's batch: the attempts and the releases waiting, oldest first, at most
  /// ``largest`` names — the oldest attempt always in it (its caller sends it), and half the
  /// room kept for releases when both wait.
  mutating func batch() -> Batch {
    leader = nil
    let releaseRoom = min(releases.count, Self.largest / 2)
    let taken = attempts.prefix(Self.largest - releaseRoom)
    attempts.removeFirst(taken.count)
    let freed = releases.prefix(Self.largest - taken.count)
    releases.removeFirst(freed.count)
    return Batch(releases: Array(freed), attempts: Array(taken))
  }

  /// After a batch was sent (answered or not): who sends next.
  mutating func sent() -> Next {
    if let first = attempts.first {
      leader = first.ticket
      return .lead(first.ticket)
    }
    if !releases.isEmpty { return .sendReleases }
    sending = false
    return .idle
  }

  /// Takes back an attempt still waiting to be sent (its caller gave up): true when it was
  /// waiting; false when it is in a batch on its way or was told to lead (its caller must
  /// then wait for its word, which comes within a batch's deadline).
  mutating func withdraw(_ ticket: Ticket) -> Bool {
    guard ticket != leader, let index = attempts.firstIndex(where: { $0.ticket == ticket })
    else { return false }
    attempts.remove(at: index)
    return true
  }
}
