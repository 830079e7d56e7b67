import Foundation
import ImgCacheTestSupport
import Testing

@testable import ImgCacheIndex
@testable import ImgCachePipeline
@testable import ImgCacheSupport
@testable import ImgCacheTransport

/// A table row's digest (`--verify-hash`) checked by the transition function: once, on the
/// original's body, before it is stored or anything is made of it. Events in, actions out.
@Suite("The fetch machine checks a row's digest")
struct FetchMachineDigestTests {
  let url = "https://img.example/a.png"
  let plan = Fetch.Plan(
    validators: nil, sequence: 1, fingerprint: "fp", file: "ab/cd.png", takesLock: false)
  let good = String(repeating: "a", count: 64)
  let bad = String(repeating: "b", count: 64)

  func fetch(_ digest: ExpectedDigest, variant: VariantSpec? = nil) -> Fetch {
    var fetch = Fetch(url, options: FetchOptions(), notes: RowNotes(digest: digest))
    fetch.variant = variant
    return fetch
  }

  func pending(sha256: String?) -> PendingStore {
    PendingStore(
      temporaryPath: "/tmp/part-1", key: url, url: url, metadata: EntryMetadata(sha256: sha256))
  }

  func entry(sha256: String?) -> CacheEntry {
    CacheEntry(
      key: url, url: url, file: "ab/cd.png", size: 10, allocated: 4096,
      metadata: EntryMetadata(sha256: sha256), at: Date(timeIntervalSince1970: 1_000_000))
  }

  @Test("a download whose SHA-256 matches is stored; one that differs is deleted, never stored")
  func downloadChecked() {
    var matching = fetch(ExpectedDigest(.sha256, hex: good))
    matching.state = .checking(plan, storable: true)
    let stored = FetchMachine.handle(
      .checked(.success(pending(sha256: good))), for: &matching, rules: .init())
    guard case .store = stored else {
      Issue.record("a matching body not stored: \(stored)")
      return
    }
    #expect(matching.digestChecked)
    var differing = fetch(ExpectedDigest(.sha256, hex: bad))
    differing.state = .checking(plan, storable: true)
    let refused = FetchMachine.handle(
      .checked(.success(pending(sha256: good))), for: &differing, rules: .init())
    guard case .refuse(body: "/tmp/part-1", let error) = refused else {
      Issue.record("a differing body not refused: \(refused)")
      return
    }
    #expect(error.kind == .digestMismatch && !error.isPermanent)
    #expect(error.detail == "its sha256 is \(good), not the table's \(bad)")
    guard case .settle = FetchMachine.handle(.proceed, for: &differing, rules: .init()),
      case .done(.failure) = differing.state
    else {
      Issue.record("a refused body did not end its fetch: \(differing.state.name)")
      return
    }
  }

  @Test("MD5 has the body's digest made; a body that cannot be read is refused as local I/O")
  func madeDigests() {
    var md5 = fetch(ExpectedDigest(.md5, hex: "0123"))
    md5.state = .checking(plan, storable: true)
    let asked = FetchMachine.handle(
      .checked(.success(pending(sha256: good))), for: &md5, rules: .init())
    guard case .digest(.file("/tmp/part-1"), .md5) = asked else {
      Issue.record("no digest asked: \(asked)")
      return
    }
    guard case .store = FetchMachine.handle(.digested("0123"), for: &md5, rules: .init()) else {
      Issue.record("a matching MD5 not stored")
      return
    }
    var unread = fetch(ExpectedDigest(.md5, hex: "0123"))
    unread.state = .checked(plan, pending(sha256: nil))
    _ = FetchMachine.next(&unread, rules: .init())
    let refused = FetchMachine.handle(.digested(nil), for: &unread, rules: .init())
    guard case .refuse(body: "/tmp/part-1", let error) = refused else {
      Issue.record("an unreadable body not refused: \(refused)")
      return
    }
    #expect(error.kind == .localIO && error.detail == "cannot read its body to check its md5")
  }

  @Test("a stored copy is checked by its recorded SHA-256 and kept when it differs")
  func storedCopyChecked() {
    var hit = fetch(ExpectedDigest(.sha256, hex: good))
    hit.state = .done(.success(.hit(.local(entry(sha256: good), path: "/c/ab/cd.png"))))
    guard case .settle = FetchMachine.next(&hit, rules: .init()), case .done(.success) = hit.state
    else {
      Issue.record("a matching copy not served")
      return
    }
    var differing = fetch(ExpectedDigest(.sha256, hex: bad))
    differing.state = .done(.success(.hit(.local(entry(sha256: good), path: "/c/ab/cd.png"))))
    guard case .refuse(body: nil, let error) = FetchMachine.next(&differing, rules: .init()) else {
      Issue.record("a differing copy not refused")
      return
    }
    #expect(error.kind == .digestMismatch)
    var unrecorded = fetch(ExpectedDigest(.sha256, hex: good))
    unrecorded.state = .done(.success(.hit(.local(entry(sha256: nil), path: "/c/ab/cd.png"))))
    guard
      case .digest(.file("/c/ab/cd.png"), .sha256) = FetchMachine.next(&unrecorded, rules: .init())
    else {
      Issue.record("no digest asked of a copy with none recorded")
      return
    }
  }

  @Test(
    "the original is checked before its variant is made, once; a stored variant has its original read"
  )
  func variantsChecked() throws {
    let spec = try VariantSpec.parse(preset: "8x8")
    var original = fetch(ExpectedDigest(.sha256, hex: good), variant: spec)
    original.state = .done(.success(.hit(.local(entry(sha256: good), path: "/c/ab/cd.png"))))
    guard case .lockVariant = FetchMachine.next(&original, rules: .init()) else {
      Issue.record("the variant not started after the check")
      return
    }
    #expect(original.digestChecked)
    var stored = fetch(ExpectedDigest(.sha256, hex: good))
    stored.served = VariantInfo(
      key: url + "#v", spec: "v", width: 8, height: 8, format: .png, originalKey: url)
    stored.state = .done(.success(.hit(.local(entry(sha256: bad), path: "/c/v.png"))))
    guard
      case .digest(.original(variant: url + "#v", original: url), .sha256) = FetchMachine.next(
        &stored, rules: .init())
    else {
      Issue.record("the stored variant's original not read")
      return
    }
    let refused = FetchMachine.handle(.digested(nil), for: &stored, rules: .init())
    guard case .refuse(body: nil, let error) = refused else {
      Issue.record("a variant whose original is gone not refused: \(refused)")
      return
    }
    #expect(error.detail == "cannot check its sha256: its original is not cached")
  }

  @Test("a fetch without a row's digest is never checked")
  func noDigest() {
    var plain = Fetch(url, options: FetchOptions(), notes: RowNotes(caption: "a cat"))
    plain.state = .done(.success(.hit(.local(entry(sha256: good), path: "/c/ab/cd.png"))))
    guard case .settle = FetchMachine.next(&plain, rules: .init()) else {
      Issue.record("a fetch without a digest was checked")
      return
    }
    #expect(plain.result.notes?.caption == "a cat")
  }
}
