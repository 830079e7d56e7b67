import FoundationEssentials
import Glibc

/// S3 (and S3-compatible stores: MinIO, Ceph, moto) through ``HTTPServer``: path-style URLs
/// `<endpoint>/<bucket>/<prefix>/<name>`, signed with AWS Signature Version 4 by libcurl.
enum S3Listing {
  /// An S3 server for `url` (`s3://BUCKET[/PREFIX]`); credentials from the attributes, else
  /// `environment`'s `AWS_ACCESS_KEY_ID`, `AWS_SECRET_ACCESS_KEY`, `AWS_SESSION_TOKEN`.
  static func server(url: String, spec: RemoteSpec, environment: [String: String]) throws
    -> HTTPServer
  {
    let display = spec.label(of: url)
    func bad(_ why: String) -> CacheError {
      CacheError(.invalidInput, "remote storage \(display): \(why)")
    }
    let path = url.dropFirst("s3://".count).split(separator: "/").map(String.init)
    guard let bucket = path.first, !bucket.isEmpty else { throw bad("no bucket") }
    let region = spec.attributes["region"] ?? environment["AWS_REGION"] ?? "us-east-1"
    let endpoint = spec.attributes["endpoint"] ?? "https://s3.\(region).amazonaws.com"
    guard endpoint.hasPrefix("http://") || endpoint.hasPrefix("https://") else {
      throw bad("endpoint must be an http:// or https:// URL")
    }
    guard
      let key = spec.attributes["access-key"] ?? environment["AWS_ACCESS_KEY_ID"],
      let secret = spec.attributes["secret-key"] ?? environment["AWS_SECRET_ACCESS_KEY"]
    else {
      throw bad(
        "no credentials (access-key/secret-key, or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY)")
    }
    let base =
      ([endpoint.hasSuffix("/") ? String(endpoint.dropLast()) : endpoint, bucket]
      + path.dropFirst()).joined(separator: "/")
    var addressing = HTTPServer.Addressing(
      base: base, subdirectories: spec.attributes["layout"] == "subdirs")
    addressing.credentials = "\(key):\(secret)"
    addressing.awsSignature = "aws:amz:\(region):s3"
    // Each becomes a request header or the signing key: a line break would add header lines.
    let session = spec.attributes["session-token"] ?? environment["AWS_SESSION_TOKEN"]
    guard ![key, secret, region, session ?? ""].contains(where: \.containsControlCharacters) else {
      throw bad("a key, token or region holds a control character")
    }
    if let token = session { addressing.headers.append("x-amz-security-token: \(token)") }
    return HTTPServer(addressing: addressing, spec: spec, display: display)
  }

  /// How many objects and bytes the first listing page (1,000 objects) holds under the
  /// prefix; nil counts past that (more than one page is not cheap).
  static func count(_ server: HTTPServer, base: String) throws -> (objects: Int64?, bytes: Int64?) {
    // base = endpoint/bucket[/prefix]: list the bucket with the prefix.
    guard let scheme = base.firstRange(of: "://") else { return (nil, nil) }
    let parts = base[scheme.upperBound...].split(separator: "/", maxSplits: 2).map(String.init)
    guard parts.count >= 2 else { return (nil, nil) }
    let prefix = parts.count == 3 ? parts[2] + "/" : ""
    let bucketURL = String(base[..<scheme.upperBound]) + parts[0] + "/" + parts[1]
    // libcurl 7.88 signs the query as written: a prefix goes unencoded, so only a plain one.
    let plain = prefix.allSatisfy {
      $0.isASCII && ($0.isLetter || $0.isNumber || "/._-".contains($0))
    }
    guard plain else { return (nil, nil) }
    let query = "?list-type=2&max-keys=1000" + (prefix.isEmpty ? "" : "&prefix=" + prefix)
    let listing = FileManager.default.temporaryDirectory.appendingPathComponent(
      "imgcache-s3-list-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
    ).path
    defer { unlink(listing) }
    let status = try server.list(bucketURL + query, into: listing)
    guard status == 200, let xml = FileManager.default.contents(atPath: listing) else {
      throw CacheError(.httpStatus, "listing the bucket: HTTP \(status)", httpStatus: status)
    }
    let text = String(decoding: xml, as: UTF8.self)
    // The listing is the store's word: a size that is no number, or a sum past Int64, is
    // "unknown", never a trap.
    let sizes = text.components(separatedBy: "<Size>").dropFirst().map {
      Checked.digits($0.prefix { $0 != "<" })
    }
    let truncated = text.contains("<IsTruncated>true</IsTruncated>")
    guard !truncated else { return (nil, nil) }
    let bytes = sizes.contains(nil) ? nil : Checked.total(sizes.compactMap { $0 })
    return (Int64(sizes.count), bytes)
  }
}
