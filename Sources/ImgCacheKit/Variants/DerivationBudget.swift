import CVips
import FoundationEssentials
import Glibc
import Synchronization

/// One derivation's time budget and cancellation (docs/design.md, Variants), shared by the
/// thread that derives and the task that waits for it.
///
/// libvips' own cancellation stops the computation between tiles once the budget is spent or
/// cancelled (an "eval" handler sets the image's kill flag). A decoder that runs long inside
/// one call (a progressive JPEG reads every scan before its first row) never reaches that
/// check: then the waiter gives the derivation up (``abandon()``), removes its temporary file
/// and goes on; the thread finishes in the background and its result is dropped.
// @unchecked: its C budget is read by libvips' handler and written only through the shim's
// atomic stores; its own state is in a `Mutex`.
package final class DerivationBudget: @unchecked Sendable {
  // @unchecked: `budget` is C memory that libvips' handler reads on its threads; after
  // `init` it is written only through the shim's atomic stores. `state` is a Mutex.

  /// The budget in seconds; 0: none.
  package let seconds: TimeInterval
  /// The budget libvips' handler checks (``imgcache_vips_watch``).
  let budget: UnsafeMutablePointer<imgcache_vips_budget>
  private let state = Mutex<State>(State())

  private struct State {
    var temporary: String?
    var abandoned = false
  }

  /// A budget of `seconds` from now (0: no time limit, only cancellation).
  package init(seconds: TimeInterval) {
    self.seconds = seconds
    budget = UnsafeMutablePointer<imgcache_vips_budget>.allocate(capacity: 1)
    budget.initialize(to: imgcache_vips_budget())
    imgcache_vips_budget_start(budget, max(0, seconds))
  }

  deinit { budget.deallocate() }

  /// Whether libvips was stopped by this budget (spent or cancelled).
  var killed: Bool { imgcache_vips_budget_killed(budget) != 0 }

  /// Whether the waiter gave the derivation up.
  var isAbandoned: Bool { state.withLock { $0.abandoned } }

  /// Records the derivation's temporary file, removed by ``abandon()``; false when the
  /// derivation was given up already (the deriver then removes it and stops).
  func adopt(_ path: String) -> Bool {
    state.withLock { state in
      guard !state.abandoned else { return false }
      state.temporary = path
      return true
    }
  }

  /// Gives the derivation up: libvips stops at its next tile, and the temporary file goes now
  /// (a process that exits right after leaves nothing in `tmp/`).
  package func abandon() {
    let path = state.withLock { state -> String? in
      state.abandoned = true
      defer { state.temporary = nil }
      return state.temporary
    }
    imgcache_vips_budget_cancel(budget)
    if let path { unlink(path) }
  }

  /// The failure of a derivation over its budget.
  package var overBudget: CacheError {
    CacheError(
      .cannotDerive,
      "cannot derive a variant: it took longer than \(PolicyValue.text(duration: seconds)) "
        + "(derive_timeout)")
  }
}
