import Foundation

extension DiskCache {
  /// Where the download of `key` should write, and from where it resumes: the partial body an
  /// earlier run left (when its record is recent and names a strong validator), else a fresh
  /// start in the same file. `url` is the URL requested now; a record of another URL (a key
  /// filter can map two to one key) is not resumed.
  func resumePoint(key: String, url: String) -> (path: String, offset: Int64, validator: String?) {
    let path = layout.partialFile(forKey: key)
    var info = stat()
    guard lstat(path, &info) == 0 else { return (path, 0, nil) }
    let size = Int64(info.st_size)
    if (info.st_mode & S_IFMT) == S_IFREG, size > 0,
      let record = try? index.partial(forKey: key), record.url == url,
      now().timeIntervalSince(record.updated) < resume.maxAge,
      record.contentLength.map({ size < $0 }) ?? true
    {
      return (path, size, record.validator)
    }
    unlink(path)
    try? index.deletePartials(keys: [key])
    return (path, 0, nil)
  }

  /// Records that the body of `key` started streaming into its partial file with `validator`.
  func recordPartial(url: String, key: String, validator: String, contentLength: Int64?) {
    try? index.savePartial(
      PartialDownload(
        url: url, key: key, file: "tmp/" + CacheLayout.partialPrefix + MD5.hex(of: key),
        validator: validator, contentLength: contentLength, updated: now()))
  }

  /// Forgets the partial body of `key` and its record (a restart, or a body not worth keeping).
  func discardPartial(key: String) {
    unlink(layout.partialFile(forKey: key))
    try? index.deletePartials(keys: [key])
  }
}
