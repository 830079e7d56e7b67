import Foundation
import ImgCacheKit

/// Blanks the secrets of `--remote` values (and of `remote_storage` given to `config set`) in
/// the process's own argument memory once they are copied, as curl does for `-u`: for the rest
/// of the run `/proc/<pid>/cmdline` and `ps` show `*`s in their place. They were visible until
/// then; the README points to `IMGCACHE_REMOTE_STORAGE` and the config file instead.
enum ArgumentSecrets {
  /// Overwrites every secret byte of the remote values in `CommandLine.unsafeArgv`.
  static func blank() {
    let count = Int(CommandLine.argc)
    let argv = CommandLine.unsafeArgv
    var index = 1
    while index < count {
      guard let argument = argv[index] else { break }
      let text = String(cString: argument)
      if text == "--" { break }
      if text == "--remote" || text == "remote_storage", index + 1 < count,
        let value = argv[index + 1]
      {
        blank(value, from: 0)
        index += 2
        continue
      }
      if text.hasPrefix("--remote=") { blank(argument, from: "--remote=".utf8.count) }
      index += 1
    }
  }

  /// Overwrites the secrets of the C string at `value`, from byte `offset` on, with `*`.
  private static func blank(_ value: UnsafeMutablePointer<CChar>, from offset: Int) {
    let length = strlen(value)
    guard length > offset else { return }
    let bytes = (offset..<length).map { UInt8(bitPattern: value[$0]) }
    for range in RemoteSpec.secretRanges(in: bytes) {
      for position in range { value[offset + position] = CChar(bitPattern: UInt8(ascii: "*")) }
    }
  }
}
