import Foundation
import ImgCacheKit

/// JSON records with stable snake_case fields, sizes in bytes, times in RFC 3339.
enum Records {
  private static let dateFormatter: ISO8601DateFormatter = {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter
  }()

  static func date(_ date: Date?) -> Any { date.map { dateFormatter.string(from: $0) } ?? NSNull() }

  static func value(_ value: Any?) -> Any { value ?? NSNull() }

  /// One line of JSON with sorted keys.
  static func line(_ object: [String: Any]) -> String {
    guard
      let data = try? JSONSerialization.data(
        withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
    else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }

  /// The stored metadata of an entry.
  static func entry(_ entry: CacheEntry) -> [String: Any] {
    [
      "key": entry.key, "size": entry.size, "disk_size": entry.allocated,
      "format": value(entry.format), "width": value(entry.width), "height": value(entry.height),
      "scale": entry.scale, "content_type": value(entry.contentType), "etag": value(entry.etag),
      "last_modified": value(entry.lastModified), "created": date(entry.created),
      "last_access": date(entry.lastAccess), "access_count": entry.accessCount,
      "expiry": date(entry.expiry),
    ]
  }

  /// A fetch result.
  static func fetch(_ result: FetchResult, output: String? = nil) -> [String: Any] {
    var record: [String: Any] = ["url": result.url, "key": result.key, "bytes": result.bytes]
    switch result.outcome {
    case .success(let outcome):
      record["status"] = outcome.name
      record["path"] = value(output ?? outcome.path)
      record["exit_code"] = outcome == .offlineMiss ? ExitStatus.negative : ExitStatus.ok
      switch outcome {
      case .hit(.local(let entry, _)), .downloaded(let entry, _), .revalidated(let entry, _),
        .notModified(let entry, _):
        record.merge(self.entry(entry)) { current, _ in current }
        record["source"] = "local"
      case .hit(.readOnly):
        record["source"] = "read_only"
      case .offlineMiss:
        break
      }
      record["error"] = NSNull()
    case .failure(let error):
      record["status"] = "error"
      record["path"] = NSNull()
      record["exit_code"] = ExitStatus.code(for: error.kind)
      record["error"] = self.error(error)
    }
    return record
  }

  static func error(_ error: CacheError) -> [String: Any] {
    ["kind": error.kind.rawValue, "message": error.message, "http_status": value(error.httpStatus)]
  }

  static func removed(_ entry: RemovedEntry) -> [String: Any] {
    [
      "key": entry.key, "url": value(entry.url), "file": entry.file, "size": entry.size,
      "disk_size": entry.allocated, "last_access": date(entry.lastAccess),
    ]
  }

  static func totals(_ totals: CacheTotals) -> [String: Any] {
    ["entries": totals.entries, "bytes": totals.bytes, "disk_bytes": totals.allocated]
  }
}
