import FoundationEssentials
import Glibc

/// Paths inside a cache directory (docs/design.md, On disk).
public struct CacheLayout: Sendable, Equatable {
  /// `$DIR`, the cache directory, as a path. The layout's paths are strings joined here:
  /// FoundationEssentials' `URL` builds, at the first `path`, `standardizedFileURL` or
  /// `appendingPathComponent` of a process, a `Set` whose conformances the runtime finds by
  /// scanning every conformance record of the binary (docs/architecture.md, Start-up).
  public let rootPath: String

  /// `data/` as a path, computed once: every lookup joins a file name to it.
  private let dataPrefix: String
  /// `$DIR/tmp`, downloads in progress.
  public let tmpPath: String

  /// Creates the layout of the cache at the folder `path` (made absolute and standard:
  /// ``StandardPath``); nothing is created on disk until first use.
  public init(path: String) {
    rootPath = StandardPath.of(path) ?? path
    dataPrefix = FileIO.path("data/", in: rootPath)
    tmpPath = FileIO.path("tmp", in: rootPath)
  }

  /// Creates the layout of the cache at `root`; nothing is created on disk until first use.
  public init(root: URL) { self.init(path: root.path) }

  /// The cache directory, `$DIR`.
  public var root: URL { URL(fileURLWithPath: rootPath, isDirectory: true) }

  /// `$DIR/index.sqlite`.
  public var indexPath: String { FileIO.path("index.sqlite", in: rootPath) }
  /// `$DIR/data`, the content, sharded by the first two hex digits of the MD5.
  public var dataFolder: String { FileIO.path("data", in: rootPath) }
  /// `$DIR/locks`: `keys`, the one file of every key's download lock (``KeyLocks``).
  public var locksPath: String { FileIO.path("locks", in: rootPath) }
  /// `$DIR/locks/keys`: one byte-range lock a key being downloaded, shared by every process.
  var keyLocksFile: String { locksPath + "/keys" }
  /// `$DIR/locks/hosts`: hosts' pauses and rates, shared by every process (docs/design.md,
  /// Politeness).
  package var hostsFile: String { locksPath + "/hosts" }
  /// The name prefix of partial bodies kept in `tmp/` for a resumed download.
  static let partialPrefix = "resume-"
  /// Where the partial body of `key`'s download is kept (``PartialDownload``).
  package func partialFile(forKey key: String) -> String {
    tmpPath + "/" + Self.partialPrefix + MD5.hex(of: key)
  }
  /// `$DIR/CACHEDIR.TAG`.
  public var tagPath: String { FileIO.path("CACHEDIR.TAG", in: rootPath) }
  /// `$DIR/imgcache.conf`, the optional per-cache policy.
  public var policyPath: String { FileIO.path("imgcache.conf", in: rootPath) }
  /// `$DIR/clean.lock`, held by `clean` and `clear`.
  var cleanLockPath: String { FileIO.path("clean.lock", in: rootPath) }

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
    try Self.makeDirectory(rootPath, allowLink: true)
    if access(tagPath, F_OK) != 0 {
      try FileIO.writeAtomically(Data(Self.tagContents.utf8), to: tagPath)
    }
  }

  /// Creates `$DIR`, `data/`, `tmp/` and CACHEDIR.TAG when missing, before anything is written
  /// to `tmp/` or `data/`: those must be real folders, never links.
  func prepare() throws {
    try prepareRoot()
    for directory in [dataFolder, tmpPath, locksPath] {
      try Self.makeDirectory(directory)
    }
  }

  /// Opens `$DIR`; nil when it does not exist.
  func openRoot() throws -> OpenDirectory? { try OpenDirectory.open(rootPath) }

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
