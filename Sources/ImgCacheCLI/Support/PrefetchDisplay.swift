import FoundationEssentials
import ImgCacheKit

/// What `prefetch` shows: JSON lines on stdout, a progress bar on a terminal's stderr, and the
/// summary at the end. Used by the one task that consumes the run's events.
struct PrefetchDisplay {
  private let console: Console
  private let json: Bool
  private let freshness: FreshnessPolicy
  private let showBar: Bool
  /// The table's columns a record keeps (`--caption-col`, `--save-column`), when it names any.
  private let kept: TableColumns?
  private var lastDraw = Date.distantPast
  private var drawn = false

  init(console: Console, json: Bool, freshness: FreshnessPolicy, kept: TableColumns? = nil) {
    self.console = console
    self.json = json
    self.freshness = freshness
    self.kept = kept
    showBar = console.stderrIsTerminal && !console.quiet
  }

  /// Shows one finished URL; false when stdout was closed (the run should stop).
  mutating func show(_ event: PrefetchEvent) -> Bool {
    let result = event.result
    if json {
      let record = FetchRecord(result, freshness: freshness).flattened
      let row = kept.map { RowFields(result.notes, saved: $0.saved) }
      guard console.data(Records.line(Flattened(own: record, beside: row))) else { return false }
    }
    switch result.outcome {
    case .failure(let error) where error.kind == .disallowed:
      console.detail("disallowed: \(error.message)")
    case .failure(let error) where error.kind != .cancelled:
      console.detail("failed: \(error.message)")
    case .success(.stale(_, _, let error)):
      console.detail("stale: \(result.url) (\(error.message))")
    default: break
    }
    progress(event.progress)
    return true
  }

  /// Redraws the bar, at most ten times a second.
  private mutating func progress(_ progress: PrefetchProgress) {
    guard showBar, Date().timeIntervalSince(lastDraw) >= 0.1 else { return }
    lastDraw = Date()
    drawn = true
    let width = 30
    let fraction = progress.total > 0 ? Double(progress.done) / Double(progress.total) : 0
    let filled = min(width, max(0, Checked.int(fraction * Double(width)) ?? 0))
    let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
    console.stderr(
      "\r[\(bar)] \(progress.done)/\(progress.total)\(progress.inputFinished ? "" : "+")  \(progress.failed) failed  \(Units.formatBytes(Checked.int64(progress.rate) ?? 0))/s \u{1B}[K"
    )
  }

  /// The summary on stderr.
  func finish(_ summary: PrefetchSummary, interrupted: Bool) {
    if drawn { console.stderr("\r\u{1B}[K") }
    guard !console.quiet else {
      // Errors only: the failures still, one line each.
      for (_, error) in summary.failures.prefix(50) { console.error(error.message) }
      if summary.failureCount > 50 {
        console.error("... and \(summary.failureCount - 50) more failed")
      }
      return
    }
    let p = summary.progress
    var parts = [
      "\(p.hits) hit",
      "\(p.downloaded) downloaded (\(Units.formatBytes(p.bytes)), \(Units.formatBytes(Checked.int64(p.rate) ?? 0))/s)",
    ]
    if p.derived > 0 { parts.append("\(p.derived) derived") }
    if p.notModified > 0 { parts.append("\(p.notModified) not modified") }
    if p.misses > 0 { parts.append("\(p.misses) not cached (offline)") }
    if p.stale > 0 { parts.append("\(p.stale) stale (origin failed)") }
    if p.notStored > 0 { parts.append("\(p.notStored) not stored (no-store)") }
    parts.append("\(p.failed) failed")
    if p.disallowed > 0 { parts.append("\(p.disallowed) disallowed (robots)") }
    if p.duplicates > 0 { parts.append("\(p.duplicates) duplicates") }
    if p.otherShards > 0 { parts.append("\(p.otherShards) in other shards") }
    let head = interrupted ? "prefetch interrupted after" : "prefetch:"
    console.info(
      "\(head) \(p.total) URLs in \(Units.formatDuration(p.elapsed)): "
        + parts.joined(separator: ", "))
    if summary.unfinishedCount > 0 { console.info("unfinished: \(summary.unfinishedCount) URLs") }
    if !summary.disallowed.isEmpty {
      console.info("disallowed (robots):")
      for (_, error) in summary.disallowed.prefix(50) { console.info("  \(error.message)") }
      if p.disallowed > 50 { console.info("  ... and \(p.disallowed - 50) more") }
    }
    guard !summary.failures.isEmpty else { return }
    console.info("failed:")
    for (_, error) in summary.failures.prefix(50) {
      let code =
        error.kind == .httpStatus
        ? error.httpStatus.map(String.init) ?? "http" : error.kind.rawValue
      console.info("  \(code.fitted(to: 13)) \(error.message)")
    }
    if summary.failureCount > 50 { console.info("  ... and \(summary.failureCount - 50) more") }
  }
}
