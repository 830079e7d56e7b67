import FoundationEssentials
import Glibc

/// What an export has exported, for `--dedup`: the digests of the URLs (MD5) or of the bodies
/// (the first 16 bytes of their SHA-256), 16 bytes each.
struct SeenSamples {
  private var urls = Set<KeyDigest>()
  private var bodies = Set<KeyDigest>()

  /// Notes `url`; false when it was noted before.
  mutating func insert(url: String) -> Bool { urls.insert(KeyDigest(key: url)).inserted }

  /// Notes a body by its hex SHA-256; false when it was noted before.
  mutating func insert(body sha256: String) -> Bool {
    bodies.insert(KeyDigest(key: sha256)).inserted
  }

  /// Notes the URLs of `rows` (a shard skipped: the rows after it see them as exported).
  mutating func noteURLs(of rows: [TableRow]) {
    for row in rows { urls.insert(KeyDigest(key: row.url)) }
  }

  /// Notes the bodies of a whole shard's successes, from its metadata table at `path`.
  mutating func noteBodies(ofShard path: String) {
    guard let bytes = try? WholeFile.read(path, limit: 1 << 30) else { return }
    let decoder = JSONDecoder()
    for line in bytes.split(separator: 0x0A) {
      guard let row = try? decoder.decode(MetadataRow.self, from: Data(line)),
        row.status == .success, let sha256 = row.sha256
      else { continue }
      _ = insert(body: sha256)
    }
  }

  /// The fields of a metadata row a re-run reads back.
  private struct MetadataRow: Decodable {
    var status: SampleStatus
    var sha256: String?
  }
}
