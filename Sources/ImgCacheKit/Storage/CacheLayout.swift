import Foundation

/// Paths inside a cache directory (DESIGN.md §2).
public struct CacheLayout: Sendable, Equatable {
  /// The cache directory, `$DIR`.
  public let root: URL

  /// `data/` as a path, computed once: every lookup joins a file name to it.
  private let dataPrefix: String

  /// Creates the layout of the cache at `root`; nothing is created on disk until first use.
  public init(root: URL) {
    self.root = root.standardizedFileURL
    dataPrefix = self.root.appendingPathComponent("data", isDirectory: true).path + "/"
  }

  /// `$DIR/index.sqlite`.
  public var indexFile: URL { root.appendingPathComponent("index.sqlite") }
  /// `$DIR/data`, the content, sharded by the first two hex digits of the MD5.
  public var dataDirectory: URL { root.appendingPathComponent("data", isDirectory: true) }
  /// `$DIR/tmp`, downloads in progress.
  public var tmpDirectory: URL { root.appendingPathComponent("tmp", isDirectory: true) }
  /// `$DIR/CACHEDIR.TAG`.
  public var tagFile: URL { root.appendingPathComponent("CACHEDIR.TAG") }
  /// `$DIR/imgcache.conf`, the optional per-cache policy.
  public var policyFile: URL { root.appendingPathComponent("imgcache.conf") }
  /// `$DIR/clean.lock`, held by `clean` and `clear`.
  var cleanLockFile: URL { root.appendingPathComponent("clean.lock") }

  /// The path of `file` (a `ab/<md5>[.ext]` relative name) under `data/`.
  public func dataPath(_ file: String) -> String { dataPrefix + file }

  /// The relative name (`ab/<md5>[.ext]`) of the file holding `key`.
  public static func relativeFile(for key: String) -> String {
    let name = CacheKey.fileName(for: key)
    return String(name.prefix(2)) + "/" + name
  }

  /// The contents of CACHEDIR.TAG (https://bford.info/cachedir/).
  static let tagContents = """
    Signature: 8a477f597d28d172789f06886806bc55
    # This file is a cache directory tag created by imgcache.
    # For information about cache directory tags, see https://bford.info/cachedir/

    """

  /// Creates `$DIR`, `data/`, `tmp/` and CACHEDIR.TAG when missing; never world-writable.
  func prepare() throws {
    for directory in [root, dataDirectory, tmpDirectory] {
      try Self.makeDirectory(directory.path)
    }
    if access(tagFile.path, F_OK) != 0 {
      try FileIO.writeAtomically(
        Data(Self.tagContents.utf8), to: tagFile.path, tmpDirectory: tmpDirectory.path)
    }
  }

  /// `mkdir -p` with mode 0755 (before umask), failing with a clear message.
  static func makeDirectory(_ path: String) throws {
    if mkdir(path, 0o755) == 0 { return }
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else {
        throw CacheError(.localIO, "cannot use \(path) as a directory: a file is in the way")
      }
      return
    }
    do {
      try FileManager.default.createDirectory(
        atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
    } catch {
      throw CacheError.io("cannot create directory \(path)", error)
    }
  }
}
