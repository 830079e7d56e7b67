import FoundationEssentials
import Glibc

/// Paths inside a cache directory (docs/design.md, On disk).
public struct CacheLayout: Sendable, Equatable {
  /// The cache directory, `$DIR`.
  public let root: URL

  /// `data/` as a path, computed once: every lookup joins a file name to it.
  private let dataPrefix: String
  /// `tmp/` as a path, computed once (`URL.path` costs 3,700 instructions a call).
  public let tmpPath: String

  /// Creates the layout of the cache at `root`; nothing is created on disk until first use.
  public init(root: URL) {
    self.root = root.standardizedFileURL
    dataPrefix = self.root.appendingPathComponent("data", isDirectory: true).path + "/"
    tmpPath = self.root.appendingPathComponent("tmp", isDirectory: true).path
  }

  /// `$DIR/index.sqlite`.
  public var indexFile: URL { root.appendingPathComponent("index.sqlite") }
  /// `$DIR/data`, the content, sharded by the first two hex digits of the MD5.
  public var dataDirectory: URL { root.appendingPathComponent("data", isDirectory: true) }
  /// `$DIR/tmp`, downloads in progress.
  public var tmpDirectory: URL { root.appendingPathComponent("tmp", isDirectory: true) }
  /// `$DIR/locks`: `keys`, the one file of every key's download lock (``KeyLocks``).
  public var locksDirectory: URL { root.appendingPathComponent("locks", isDirectory: true) }
  /// `$DIR/locks/keys`: one byte-range lock a key being downloaded, shared by every process.
  var keyLocksFile: String { locksDirectory.path + "/keys" }
  /// `$DIR/locks/hosts`: hosts' pauses and rates, shared by every process (docs/design.md,
  /// Politeness).
  package var hostsFile: String { locksDirectory.path + "/hosts" }
  /// The name prefix of partial bodies kept in `tmp/` for a resumed download.
  static let partialPrefix = "resume-"
  /// Where the partial body of `key`'s download is kept (``PartialDownload``).
  package func partialFile(forKey key: String) -> String {
    tmpPath + "/" + Self.partialPrefix + MD5.hex(of: key)
  }
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
    relativeFile(named: CacheKey.fileName(for: key))
  }

  /// The relative name of the file `name` in its folder: `ab/<name>`, by its first two digits.
  public static func relativeFile(named name: String) -> String {
    String(name.prefix(2)) + "/" + name
  }

  /// The contents of CACHEDIR.TAG (https://bford.info/cachedir/).
  static let tagContents = """
    Signature: 8a477f597d28d172789f06886806bc55
    # This file is a cache directory tag created by imgcache.
    # For information about cache directory tags, see https://bford.info/cachedir/

    """

  /// Creates `$DIR` and CACHEDIR.TAG when missing: what the index needs. `$DIR` may be a link
  /// (the user's choice). Maintenance (`clean`, `clear`, `verify`) needs no more, so a link
  /// where `data/` or `tmp/` belongs is reported by them, not in their way.
  func prepareRoot() throws {
    try Self.makeDirectory(root.path, allowLink: true)
    if access(tagFile.path, F_OK) != 0 {
      try FileIO.writeAtomically(Data(Self.tagContents.utf8), to: tagFile.path)
    }
  }

  /// Creates `$DIR`, `data/`, `tmp/` and CACHEDIR.TAG when missing, before anything is written
  /// to `tmp/` or `data/`: those must be real folders, never links.
  func prepare() throws {
    try prepareRoot()
    for directory in [dataDirectory, tmpDirectory, locksDirectory] {
      try Self.makeDirectory(directory.path)
    }
  }

  /// Opens `$DIR`; nil when it does not exist.
  func openRoot() throws -> OpenDirectory? { try OpenDirectory.open(root.path) }

  /// `mkdir -p` (0777 before the umask), failing with a clear message when something else is
  /// in the way — a file, or a link unless `allowLink`.
  package static func makeDirectory(_ path: String, allowLink: Bool = false) throws {
    if mkdir(path, 0o777) == 0 { return }
    let code = errno
    var info = stat()
    if code == EEXIST, lstat(path, &info) == 0 {
      if (info.st_mode & S_IFMT) == S_IFDIR { return }
      if (info.st_mode & S_IFMT) == S_IFLNK {
        guard allowLink else { throw foreign(path) }
        if stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR { return }
      }
      throw CacheError(.localIO, "cannot use \(path) as a directory: a file is in the way")
    }
    // A missing parent is made first (parents above the cache are the user's: links are fine);
    // any other reason is reported as the system gives it (ENOTDIR, EACCES, EROFS, ENOSPC).
    let parent = FileIO.parent(of: path)
    guard code == ENOENT, !parent.isEmpty, parent != path else {
      throw CacheError.posix("cannot create directory", path: path, code: code)
    }
    try makeDirectory(parent, allowLink: true)
    if mkdir(path, 0o777) == 0 { return }
    // Made meanwhile by another process: check what it is.
    if errno == EEXIST { return try makeDirectory(path, allowLink: allowLink) }
    throw CacheError.posix("cannot create directory", path: path)
  }

  /// The error for a link where a folder of the cache belongs.
  static func foreign(_ path: String) -> CacheError {
    CacheError(
      .localIO,
      "\(path) is a symlink, not a folder of the cache: imgcache never follows it (remove it, "
        + "or run 'imgcache clear' to start over)")
  }
}
