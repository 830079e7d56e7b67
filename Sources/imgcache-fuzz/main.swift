// A fuzzer for the untrusted-input boundary (docs/design.md, "Untrusted input"): feeds every
// ``Boundary`` target random and mutated input for a bounded time. A trap is caught by a
// signal handler that prints the target and the input (hex) before exiting 1; an input that
// takes more than 2 s is a hang (exit 3). Not installed; `make test` runs it for a few
// seconds, `make fuzz` for longer.
// Usage: imgcache-fuzz [SECONDS] [SEED]
import FoundationEssentials
import Glibc
import ImgCacheKit
import Synchronization

let arguments = CommandLine.arguments
let seconds = arguments.count > 1 ? Double(arguments[1]) ?? 5 : 5
let seed = arguments.count > 2 ? UInt64(arguments[2]) ?? 1 : UInt64(Date().timeIntervalSince1970)

/// The input being fed now, for the signal handler (written before each feed, read only
/// when the process dies).
nonisolated(unsafe) var current = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 1 << 16)
nonisolated(unsafe) var currentCount = 0
nonisolated(unsafe) var currentTarget = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: 64)
nonisolated(unsafe) var currentTargetCount = 0
/// Inputs fed so far; the watchdog sees it move.
let fed = Atomic<Int>(0)

/// Writes the target and the input in hex to stderr, with write(2) only (signal-safe).
func report(_ headline: StaticString) {
  headline.withUTF8Buffer { _ = write(2, $0.baseAddress, $0.count) }
  _ = write(2, currentTarget.baseAddress, currentTargetCount)
  _ = write(2, " ", 1)
  let digits = Array("0123456789abcdef".utf8)
  var pair = [UInt8](repeating: 0, count: 2)
  for index in 0..<currentCount {
    pair[0] = digits[Int(current[index] >> 4)]
    pair[1] = digits[Int(current[index] & 15)]
    _ = write(2, pair, 2)
  }
  _ = write(2, "\n", 1)
}

for trap in [SIGILL, SIGTRAP, SIGSEGV, SIGBUS, SIGABRT, SIGFPE] {
  signal(trap) { _ in
    report("imgcache-fuzz: crashed on ")
    _exit(1)
  }
}

/// Tokens that have broken parsers before: huge and odd numbers, separators, line breaks.
let tokens = [
  "999999999999", "99999999999999999999999", "-1", "0", "1e300", "inf", "nan", "-", ",", ";",
  "=", "\"", ":", " ", "\t", "\r\n", "\n", "\u{2028}", "\u{85}", "\u{0}", "*", "/", "|", "#", "@",
  "GMT", "UTC", "max-age=", "bytes ", "9223372036854775807", "18446744073709551616", "{", "}",
  "[", "]", "\\u0000", "%00", "..", "\u{FEFF}", "é", String(repeating: "9", count: 400),
]

var state = seed == 0 ? 1 : seed
@MainActor func random(_ bound: Int) -> Int {
  // xorshift64*: reproducible from the seed.
  state ^= state >> 12
  state ^= state << 25
  state ^= state >> 27
  return Int((state &* 2_685_821_657_736_338_717) % UInt64(max(1, bound)))
}

@MainActor func mutate(_ input: [UInt8]) -> [UInt8] {
  var bytes = input
  for _ in 0...random(4) {
    switch random(6) {
    case 0 where !bytes.isEmpty: bytes[random(bytes.count)] = UInt8(random(256))
    case 1: bytes.insert(contentsOf: tokens[random(tokens.count)].utf8, at: random(bytes.count + 1))
    case 2 where !bytes.isEmpty:
      let start = random(bytes.count)
      bytes.removeSubrange(start..<min(bytes.count, start + 1 + random(8)))
    case 3 where !bytes.isEmpty:
      let start = random(bytes.count)
      let slice = bytes[start..<min(bytes.count, start + 1 + random(16))]
      bytes.insert(contentsOf: slice, at: random(bytes.count + 1))
    case 4: bytes = (0..<random(64)).map { _ in UInt8(random(256)) }
    default: break
    }
  }
  return Array(bytes.prefix(current.count))
}

// The watchdog: an input that takes more than 2 s is a hang.
DetachedThread.start {
  var last = -1
  while true {
    sleep(2)
    let now = fed.load(ordering: .relaxed)
    if now == last {
      report("imgcache-fuzz: hang (over 2 s) on ")
      _exit(3)
    }
    last = now
  }
}

let targets = Boundary.Target.allCases
var corpus = Dictionary(
  uniqueKeysWithValues: targets.map { ($0, Boundary.seeds($0).map { Array($0.utf8) }) })
let deadline = Date().addingTimeInterval(seconds)
var count = 0
var accepted = 0
while Date() < deadline {
  for _ in 0..<200 {
    let target = targets[random(targets.count)]
    let pool = corpus[target, default: []]
    let input = mutate(pool[random(pool.count)])
    _ = input.withUnsafeBufferPointer { current.update(fromContentsOf: $0) }
    currentCount = input.count
    let name = Array(target.rawValue.utf8)
    _ = name.withUnsafeBufferPointer { currentTarget.update(fromContentsOf: $0) }
    currentTargetCount = name.count
    if Boundary.feed(target, input) {
      accepted += 1
      // Accepted inputs become seeds: mutations of valid values reach deeper.
      if pool.count < 256 { corpus[target, default: []].append(input) }
    }
    count += 1
    fed.store(count, ordering: .relaxed)
  }
}
print(
  "imgcache-fuzz: \(count) inputs in \(seconds) s (seed \(seed)), \(accepted) accepted; no trap, no hang"
)
