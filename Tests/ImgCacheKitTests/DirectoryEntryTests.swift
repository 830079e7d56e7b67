import Glibc
import Testing

@testable import ImgCacheSupport

/// Directory listings read through `readdir` (`DirectoryListing`, `OpenDirectory`, `FileTree`).
@Suite("Directory entries read as the kernel wrote them")
struct DirectoryEntryTests {
  @Test("a directory entry's name is read in place, never past its record")
  func directoryEntryName() throws {
    // A record whose short name ends the last byte before an unreadable page, as the last
    // record of readdir's buffer can: a copy of the whole 256-byte d_name faulted there.
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let mapped = mmap(nil, 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0)
    let memory = try #require(mapped == MAP_FAILED ? nil : mapped)
    defer { munmap(memory, 2 * page) }
    try #require(mprotect(memory + page, page, PROT_NONE) == 0)
    // 19 bytes before d_name and 5 of name: the record starts 8-byte aligned.
    let name = Array("abcd".utf8) + [0]
    let offset = try #require(MemoryLayout<dirent>.offset(of: \dirent.d_name))
    let record = memory + page - name.count - offset
    name.withUnsafeBytes {
      (memory + page - name.count).copyMemory(from: $0.baseAddress!, byteCount: name.count)
    }
    try #require(Int(bitPattern: record) % MemoryLayout<dirent>.alignment == 0)
    let entry = record.bindMemory(to: dirent.self, capacity: 1)
    #expect(DirectoryListing.name(of: entry) == "abcd")
  }
}
