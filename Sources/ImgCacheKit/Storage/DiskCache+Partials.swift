import Dispatch
import FoundationEssentials
import Glibc

extension DiskCache {
  /// Where the download of `key` should write, and from where it resumes: the partial body an
  /// earlier run left (when its record is recent and names a strong validator), else a fresh
  /// start in the same file. `url` is the URL requested now; a record of another URL (a key
  /// filter can map two to one key) is not resumed. `length` is the whole body's length as
  /// first announced: a 206 must announce the same.
  package func resumePoint(key: String, url: String) -> (
    path: String, offset: Int64, validator: String?, length: Int64?
  ) {
    let path = layout.partialFile(forKey: key)
    var info = stat()
    flushPartialRecords()
    guard lstat(path, &info) == 0 else { return (path, 0, nil, nil) }
    let size = Int64(info.st_size)
    if (info.st_mode & S_IFMT) == S_IFREG, size >= max(1, resume.minimumSize),
      let record = try? index.partial(forKey: key), record.url == url,
      now().timeIntervalSince(record.updated) < resume.maxAge,
      record.contentLength.map({ size < $0 }) ?? true
    {
      return (path, size, record.validator, record.contentLength)
    }
    discardPartial(key: key)
    return (path, 0, nil, nil)
  }

  /// Records (soon, on ``partialRecords``) that the body of `key` started streaming into its
  /// partial file with `validator`. Called on the download loop's thread: it only hands over.
  package func recordPartial(url: String, key: String, validator: String, contentLength: Int64?) {
    let partial = PartialDownload(
      url: url, key: key, file: "tmp/" + CacheLayout.partialPrefix + MD5.hex(of: key),
      validator: validator, contentLength: contentLength, updated: now())
    partialRecords.async { [index] in try? index.savePartial(partial) }
  }

  /// Forgets the partial body of `key` and its record (a restart, or a body not worth keeping).
  package func discardPartial(key: String) {
    unlink(layout.partialFile(forKey: key))
    partialRecords.async { [index] in try? index.deletePartials(keys: [key]) }
  }

  /// Waits until the records handed over so far are written (before a transaction that
  /// deletes them, so that none is written after it).
  package func flushPartialRecords() { partialRecords.sync {} }
}
