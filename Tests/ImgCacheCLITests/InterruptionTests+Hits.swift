import Foundation
import ImgCacheTestSupport
import Testing

extension InterruptionTests {
  @Test(
    "SIGTERM or SIGINT while a hit answered on the main thread writes: exit 143 or 130",
    arguments: [(SIGTERM, Int32(143)), (SIGINT, Int32(130))])
  func signalDuringHit(number: Int32, status: Int32) throws {
    let url = servers.nginx("base.png")
    #expect(env.run(["fetch", url]).status == 0)
    // 3,000 answers are more than a pipe holds: the hits block on a stdout no one reads, in
    // the main thread's answer, before any task. The test process starts its children with
    // SIGINT and SIGTERM blocked, as some supervisors do: the answer unblocks them.
    let unread = Pipe()
    let child = try start(["fetch"] + Array(repeating: url, count: 3_000), stdout: unread)
    let wchan = "/proc/\(child.process.processIdentifier)/wchan"
    let deadline = Date().addingTimeInterval(10)
    while child.process.isRunning, Date() < deadline,
      !((try? String(contentsOfFile: wchan, encoding: .utf8)) ?? "").hasSuffix("pipe_write")
    {
      usleep(10_000)
    }
    send(number, to: child)
    guard ends(child, within: 5) else { return }
    expectExit(child, status)
    try? unread.fileHandleForReading.close()
  }
}
