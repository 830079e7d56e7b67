import FoundationEssentials

/// One line of a job's manifest (docs/json.md, `job manifest`): what became of one URL — the
/// dataset's index. The fields of `fetch --json` that mean the same on every machine (no local
/// path, no access times).
struct JobManifestRecord: Encodable {
  struct ErrorField: Codable, Equatable {
    var kind: String
    var message: String
    @Nullable var httpStatus: Int? = nil
  }

  var url: String
  var key: String
  /// `fetch --json`'s status: `hit`, `downloaded`, `derived`, …, `error`, `disallowed`.
  var status: String
  @Nullable var sha256: String? = nil
  @Nullable var size: Int64? = nil
  @Nullable var format: String? = nil
  @Nullable var width: Int? = nil
  @Nullable var height: Int? = nil
  /// The variant's canonical spec, when the job asks for one.
  @Nullable var variant: String? = nil
  @Nullable var error: ErrorField? = nil
  /// The worker that did it.
  var worker: String

  init(_ result: FetchResult, worker: String) {
    url = CacheKey.redacted(result.url)
    key = CacheKey.redacted(result.key)
    self.worker = worker
    variant = result.variant?.spec
    switch result.outcome {
    case .success(let outcome):
      status = outcome.name
      if let stored = outcome.storedEntry {
        (sha256, size, format) = (stored.sha256, stored.size, stored.format)
        (width, height) = (stored.width, stored.height)
      }
    case .failure(let failure):
      status = failure.kind == .disallowed ? "disallowed" : "error"
      error = ErrorField(
        kind: failure.kind.rawValue, message: failure.message, httpStatus: failure.httpStatus)
    }
  }

  private static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.keyEncodingStrategy = .convertToSnakeCase
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  /// The record as one line of JSON (no newline), `row`'s fields (a table's caption and saved
  /// columns) beside its own when given.
  func line(with row: RowFields? = nil) -> String {
    (try? Self.encoder.encode(Flattened(own: self, beside: row))).map {
      String(decoding: $0, as: UTF8.self)
    } ?? "{}"
  }
}

extension ShardCounts {
  /// Counts `result`.
  mutating func note(_ result: FetchResult) {
    urls += 1
    bytes = Checked.sum(bytes, result.bytes) ?? .max
    switch result.outcome {
    case .success(.notStored): notStored += 1
    case .success(.offlineMiss): failed["offline_miss", default: 0] += 1
    case .success(let outcome):
      stored += 1
      switch outcome {
      case .downloaded, .revalidated: downloaded += 1
      case .derived where result.bytes > 0: downloaded += 1
      default: break
      }
    case .failure(let error) where error.kind == .disallowed: disallowed += 1
    case .failure(let error):
      let name = Self.failureClass(kind: error.kind.rawValue, httpStatus: error.httpStatus)
      failed[name, default: 0] += 1
    }
  }
}
