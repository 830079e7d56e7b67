import FoundationEssentials
import Glibc
import ImgCacheKit

/// Blanks the secrets of the command line in the process's own argument memory once they are
/// copied, as curl does for `-u`: for the rest of the run `/proc/<pid>/cmdline` and `ps` show
/// `*`s in their place — the secrets of `--remote` and `--queue` values (and of
/// `remote_storage` given to `config set`, and of `export -o` naming a store), the password of
/// `-u`/`--user`, and the userinfo of any URL given as an argument. They were visible until then; the README points to
/// `IMGCACHE_REMOTE_STORAGE` and the config file instead.
enum ArgumentSecrets {
  /// Options whose value is a remote spec (``RemoteSpec/secretRanges(in:)``).
  private static let remoteOptions: Set<String> = ["--remote", "--queue", "remote_storage"]
  /// Options whose value is `user:password`.
  private static let userOptions: Set<String> = ["-u", "--user"]
  /// Options whose value is a remote spec when it names a store (`export -o s3://…`).
  private static let outputOptions: Set<String> = ["-o", "--output"]

  /// Overwrites every secret byte of the arguments in `CommandLine.unsafeArgv`.
  static func blank() {
    let count = Int(CommandLine.argc)
    let argv = CommandLine.unsafeArgv
    var index = 1
    while index < count {
      guard let argument = argv[index] else { break }
      let text = String(cString: argument)
      if text == "--" { break }
      if remoteOptions.contains(text) || userOptions.contains(text)
        || (outputOptions.contains(text) && index + 1 < count
          && argv[index + 1].map { ShardStore.names(String(cString: $0)) } == true),
        index + 1 < count, let value = argv[index + 1]
      {
        blank(value, from: 0, user: userOptions.contains(text))
        index += 2
        continue
      }
      if let name = text.split(separator: "=", maxSplits: 1).first.map(String.init),
        text.contains("="),
        remoteOptions.contains(name) || userOptions.contains(name)
          || (outputOptions.contains(name)
            && ShardStore.names(String(text.dropFirst(name.count + 1))))
      {
        blank(argument, from: name.utf8.count + 1, user: userOptions.contains(name))
      } else if let offset = shortUser(text) {
        // `-u` grouped with other short flags (`-ku`), its value next or attached (`-kuA:B`).
        if offset == text.utf8.count, index + 1 < count, let value = argv[index + 1] {
          blank(value, from: 0, user: true)
          index += 2
          continue
        }
        blank(argument, from: offset, user: true)
      } else {
        blankURL(argument)
      }
      index += 1
    }
  }

  /// Overwrites the secrets of the C string at `value`, from byte `offset` on, with `*`: a
  /// remote spec's, or with `user` the part after the first ':'.
  private static func blank(_ value: UnsafeMutablePointer<CChar>, from offset: Int, user: Bool) {
    let length = strlen(value)
    guard length > offset else { return }
    let bytes = (offset..<length).map { UInt8(bitPattern: value[$0]) }
    let ranges: [Range<Int>]
    if user {
      ranges = bytes.firstIndex(of: UInt8(ascii: ":")).map { [($0 + 1)..<bytes.count] } ?? []
    } else {
      ranges = RemoteSpec.secretRanges(in: bytes)
    }
    for range in ranges {
      for position in range { value[offset + position] = CChar(bitPattern: UInt8(ascii: "*")) }
    }
  }

  /// Where `-u`'s value begins in a group of short flags (`-ku`, `-kuA:B`): the offset past
  /// its `u` (the argument's length when the value is the next argument); nil for anything
  /// else.
  private static func shortUser(_ text: String) -> Int? {
    let bytes = Array(text.utf8)
    guard bytes.count >= 2, bytes[0] == UInt8(ascii: "-"), bytes[1] != UInt8(ascii: "-"),
      let u = bytes.firstIndex(of: UInt8(ascii: "u")),
      bytes[1..<u].allSatisfy({ $0.isASCIILetter })
    else { return nil }
    return u + 1
  }

  /// Overwrites the userinfo of a URL argument (`scheme://user:password@host/…`).
  private static func blankURL(_ value: UnsafeMutablePointer<CChar>) {
    let length = strlen(value)
    let bytes = (0..<length).map { UInt8(bitPattern: value[$0]) }
    let scheme = Array("://".utf8)
    guard let start = bytes.indices.first(where: { bytes[$0...].starts(with: scheme) }) else {
      return
    }
    let authority = start + scheme.count
    let end =
      bytes[authority...].firstIndex { "/?#".utf8.contains($0) } ?? bytes.count
    guard let at = bytes[authority..<end].lastIndex(of: UInt8(ascii: "@")) else { return }
    for position in authority..<at { value[position] = CChar(bitPattern: UInt8(ascii: "*")) }
  }
}

extension UInt8 {
  fileprivate var isASCIILetter: Bool {
    (0x41...0x5A).contains(self) || (0x61...0x7A).contains(self)
  }
}
