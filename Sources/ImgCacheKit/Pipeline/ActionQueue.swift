/// The actions a machine decided and has not given out yet, in order (``PrefetchMachine``'s;
/// ``LookupMachine``'s stages ask one at most, and keep it in a slot). Each is moved out as it is given, so its owner holds the payload alone:
/// an array of fetches the owner then mutates (a submit) is not copied for the queue's sake.
struct ActionQueue<Action> {
  private var actions = [Action?]()
  private var head = 0

  /// Adds `action` after the others.
  mutating func append(_ action: Action) { actions.append(action) }

  /// The next action, moved out; nil once none is left (the storage is kept for the next).
  mutating func next() -> Action? {
    guard head < actions.count else {
      if head > 0 {
        actions.removeAll(keepingCapacity: true)
        head = 0
      }
      return nil
    }
    defer { head += 1 }
    return actions[head].take()
  }
}
