import Dispatch
import FoundationEssentials
import Glibc
import ImgCacheKit
import Synchronization

/// SIGINT and SIGTERM, while installed, cancel the command's work instead of killing the
/// process, so transfers stop, temporary files go, and a summary still prints. Should the work
/// not wind down within ``grace`` (stdout blocked on a reader that stopped reading, say), the
/// process exits with the signal's status anyway.
final class Interrupts {
  /// How long cancelled work may take to wind down.
  static let grace: DispatchTimeInterval = .milliseconds(800)

  private let sources: [any DispatchSourceSignal]
  private let received: SignalFlag

  /// Installs the handlers; `cancel` runs (on a dispatch queue, holding no lock) at each signal.
  init(cancel: @escaping @Sendable () -> Void) {
    var sources = [any DispatchSourceSignal]()
    let received = SignalFlag()
    for number in [SIGINT, SIGTERM] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
      source.setEventHandler {
        received.value.store(number, ordering: .relaxed)
        cancel()
        DispatchQueue.global().asyncAfter(deadline: .now() + Self.grace) {
          Glibc._exit(number == SIGINT ? ExitStatus.interrupted : ExitStatus.terminated)
        }
      }
      source.resume()
      sources.append(source)
    }
    self.sources = sources
    self.received = received
  }

  deinit {
    for source in sources { source.cancel() }
    signal(SIGINT, SIG_DFL)
    signal(SIGTERM, SIG_DFL)
  }

  /// The exit status the signal received calls for (130 or 143), or nil.
  var status: Int32? {
    switch received.value.load(ordering: .relaxed) {
    case SIGINT: return ExitStatus.interrupted
    case SIGTERM: return ExitStatus.terminated
    default: return nil
    }
  }

  /// Runs `work` in a task that a signal cancels; returns its value and the signal's status.
  static func run<T: Sendable>(_ work: @escaping @Sendable () async -> T) async -> (T, Int32?) {
    let task = Task(executorPreference: EngineExecutor.shared) { await work() }
    let interrupts = Interrupts { task.cancel() }
    let value = await task.value
    return (value, interrupts.status)
  }
}

/// The last signal received.
private final class SignalFlag: Sendable {
  let value = Atomic<Int32>(0)
}
