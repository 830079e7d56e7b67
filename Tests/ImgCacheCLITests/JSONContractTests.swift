import Foundation
import ImgCacheKit
import ImgCacheTestSupport
import Testing

/// docs/json.md is the contract of `--json`: each `## \`command --json\`` section lists every
/// field in a `| field | type | meaning |` table. The commands are run in scenarios that make
/// every shape of their records; a printed field the doc does not list, a listed field never
/// printed, or a value of another type fails.
@Suite("docs/json.md matches what every --json prints", .serialized)
struct JSONContractTests {
  let env = CLIEnvironment()
  let servers = TestServers.shared

  /// A documented field: its type words (`string`, `integer`, …, `null`).
  typealias Contract = [String: Set<String>]

  /// The sections of docs/json.md, by title (`fetch --json`), each field with its types.
  static func contracts() throws -> [String: Contract] {
    let text = try String(
      contentsOf: repositoryRoot.appendingPathComponent("docs/json.md"), encoding: .utf8)
    var sections = [String: Contract]()
    var current: String?
    for line in text.split(separator: "\n").map(String.init) {
      if line.hasPrefix("## `") {
        current = line.dropFirst(4).prefix { $0 != "`" }.description
        sections[current ?? ""] = [:]
      } else if let section = current, line.hasPrefix("| `") {
        let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
        let name = cells[0].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
        let types = Set(cells[1].components(separatedBy: " or "))
        sections[section]?[name] = types
      }
    }
    return sections
  }

  /// Objects whose keys are the user's data (a table's saved columns), not fields.
  static let dataObjects: Set<String> = ["columns"]

  /// Every field of `value` as a dotted path (`[]` for array elements), with its values; the
  /// keys of ``dataObjects`` are not fields.
  static func flatten(_ value: Any, _ prefix: String = "", into fields: inout [String: [Any]]) {
    guard let object = value as? [String: Any] else {
      if let array = value as? [Any] {
        for element in array where element is [String: Any] {
          flatten(element, prefix + "[]", into: &fields)
        }
      }
      return
    }
    for (key, child) in object {
      let path = prefix.isEmpty ? key : prefix + "." + key
      fields[path, default: []].append(child)
      if !dataObjects.contains(path) { flatten(child, path, into: &fields) }
    }
  }

  static func matches(_ value: Any, _ types: Set<String>) -> Bool {
    switch value {
    case is NSNull: return types.contains("null")
    case let text as String:
      if types.contains("time") {
        return text.range(of: #"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"#, options: .regularExpression)
          != nil
      }
      return types.contains("string")
    case is [String: Any]: return types.contains("object")
    case is [Any]: return types.contains("array")
    case is NSNumber: return !types.isDisjoint(with: ["integer", "number", "boolean"])
    default: return false
    }
  }

  /// Runs `arguments` and returns the records it printed.
  func records(_ arguments: [String], status: Int32 = 0, environment: [String: String] = [:])
    -> [[String: Any]]
  {
    let output = env.run(arguments, environment: environment)
    #expect(output.status == status, "\(arguments): \(output.stderr)")
    let lines = output.stdout.split(separator: "\n")
    let parsed = CLIEnvironment.records(output)
    #expect(parsed.count == lines.count, "\(arguments): a line is not a JSON object")
    return parsed
  }

  /// Scenarios that print every shape of each section's records.
  func scenarios() throws -> [String: [[String: Any]]] {
    let png = servers.nginx("base.png?json=1")
    let missing = servers.fault("/status/404?json=1")
    var made = [String: [[String: Any]]]()
    made["fetch --json"] =
      records(["fetch", "--json", png]) + records(["fetch", "--json", png])
      + records(["fetch", "--json", missing], status: 8)
      + records(["fetch", "--json", "--offline", servers.nginx("base.gif?never")], status: 1)
    // A stored copy served while its origin is down (stale-if-error).
    let id = UUID().uuidString.prefix(8)
    let origin = servers.fault("/origin?id=\(id)&cc=max-age%3D0")
    let stale = ["--json", "--freshness", "http", "--stale-if-error", origin]
    #expect(env.run(["fetch", origin]).status == 0)
    _ = run("/usr/bin/curl", ["-sf", servers.fault("/_down?id=\(id)&how=503")])
    made["fetch --json", default: []] += records(
      ["fetch"] + stale, environment: ["IMGCACHE_RETRY": "0"])
    made["prefetch --json"] =
      records(
        ["prefetch", "--json", "-q", servers.nginx("base.jpg?json=1"), missing, png], status: 11)
      + records(["prefetch", "-q"] + stale, environment: ["IMGCACHE_RETRY": "0"])
    // A variant of the PNG: its record, and later its listing and its query.
    made["fetch --json", default: []] += records(["fetch", "--json", "--resize", "8x8", png])
    made["prefetch --json", default: []] += records(
      ["prefetch", "--json", "-q", "--resize", "8x8", png])
    // A table's row: its caption and saved columns beside the record.
    let rows = env.root.path + "/columns.jsonl"
    try #"{"url": "\#(png)", "caption": "a cat", "n": 1}"#.write(
      toFile: rows, atomically: true, encoding: .utf8)
    made["prefetch --json", default: []] += records(
      ["prefetch", "--json", "-q", "-i", rows, "--caption-col", "caption", "--save-column", "n"])
    made["query --json"] =
      records(["query", "--json", png]) + records(["query", "--json", missing], status: 1)
      + records(["query", "--json", "--resize", "8x8", png])
    made["list --json"] = records(["list", "--json"])
    made["list --failed --json"] = records(["list", "--failed", "--json"])
    made["remove --json"] = records(["remove", "--json", png])
    #expect(env.run(["fetch", png]).status == 0)
    made["clean --json"] =
      records(["clean", "--json", "-v", "--dry-run", "--max-age", "0"])
      + records(["clean", "--json", "--dry-run", "--max-age", "0"])
      + records(
        ["clean", "--json", "-v", "--dry-run", "--max-age", "never", "--max-entries", "1"])
    made["clear --json"] =
      records(["clear", "--json", "--dry-run"])
      + records(["clear", "--json", "--failed", "--dry-run"])
    // The remote tier: a copy from Redis into another cache, a push, the status.
    let redis = RemoteStores(redis: 1)
    let remote = ["--remote", "redis://127.0.0.1:\(redis.redis[0].port)"]
    made["remote push --json"] = records(["remote", "push", "--json", "--all"] + remote)
    made["fetch --json", default: []] += records(
      ["fetch", "--json"] + remote + [png], environment: ["IMGCACHE_DIR": env.root.path + "/b"])
    made["remote status --json"] = records(["remote", "status", "--json"] + remote)
    made["size --json"] = records(["size", "--json"])
    made["size --by --json"] =
      records(["size", "--json", "--by", "format"]) + records(["size", "--json", "--by", "host"])
      + records(["size", "--json", "--by", "variant"])
    made["stats --json"] = records(["stats", "--json"])
    let index = env.cacheDirectory + "/index.sqlite"
    #expect(
      run("/usr/bin/sqlite3", [index, "UPDATE totals SET entries = entries + 1"]).status == 0)
    made["verify --json"] =
      records(["verify", "--json", "--full"], status: 1)
      + records(["verify", "--json", "--repair"])
    // Its keys are the policy keys: each stands for `<key>`.
    made["config --json"] = records(["config", "--json"]).flatMap { record in
      record.values.map { ["<key>": $0] }
    }
    made["config get --json"] = records(["config", "get", "--json", "jobs"])
    made["config path --json"] = records(["config", "path", "--json"])
    try jobScenarios(redis: redis, into: &made)
    let table = try env.root.write(
      "table.csv", Array("url\n\(png)\n\(missing)\n".utf8))
    made["export --json"] = records(
      ["export", "--json", "-i", table, "-o", env.root.path + "/shards"]
    ).map { record in
      record.mapValues { value in
        guard let counts = value as? [String: Any] else { return value }
        return ["<status>": counts.values.first ?? 0]
      }
    }
    return made
  }

  /// A job of a table's two rows (one URL missing; captions and a saved column) submitted,
  /// worked and reported. Keys that name a policy key or a failure class stand for `<key>` and
  /// `<class>`.
  func jobScenarios(redis: RemoteStores, into made: inout [String: [[String: Any]]]) throws {
    let queue = ["--queue", "redis://127.0.0.1:\(redis.redis[0].port)"]
    let rows = [
      "url,caption,n", servers.nginx("base.png?job=1") + ",a cat,1",
      servers.fault("/status/404?job=1") + ",a dog,2",
    ]
    let list = try env.root.write("job.csv", Array((rows.joined(separator: "\n") + "\n").utf8))
    made["job submit --json"] = records(
      [
        "job", "submit", "--json", "contract", "-i", list, "--rate-per-host", "50/s", "--resize",
        "8x8", "--caption-col", "caption", "--save-column", "n",
      ]
        + queue)
    made["job work --json"] = records(["job", "work", "--json", "contract"] + queue).map(
      Self.generic)
    made["job status --json"] = records(["job", "status", "--json", "contract"] + queue).map(
      Self.generic)
    made["job manifest"] = records(["job", "manifest", "contract"] + queue)
    made["job retry --json"] = records(
      ["job", "retry", "--json", "contract", "--class", "http_4xx", "--dead"] + queue)
  }

  /// `record` with the keys of its `failed` and `policy` objects as `<class>` and `<key>`.
  static func generic(_ record: [String: Any]) -> [String: Any] {
    var result = [String: Any]()
    for (key, value) in record {
      guard let object = value as? [String: Any] else {
        result[key] = value
        continue
      }
      if key == "failed" || key == "policy" {
        let name = key == "failed" ? "<class>" : "<key>"
        result[key] = object.isEmpty ? object : [name: object.values.first ?? 0]
      } else {
        result[key] = generic(object)
      }
    }
    return result
  }

  @Test("every section's fields are printed, and every printed field is documented, typed right")
  func contract() throws {
    let contracts = try Self.contracts()
    let produced = try scenarios()
    #expect(Set(contracts.keys) == Set(produced.keys), "sections of docs/json.md vs scenarios")
    for (section, records) in produced {
      let contract = contracts[section] ?? [:]
      #expect(!records.isEmpty, "\(section): no record printed")
      var fields = [String: [Any]]()
      for record in records { Self.flatten(record, into: &fields) }
      let undocumented = Set(fields.keys).subtracting(contract.keys)
      #expect(undocumented.isEmpty, "\(section): printed but not in docs/json.md: \(undocumented)")
      let unseen = Set(contract.keys).subtracting(fields.keys)
      #expect(unseen.isEmpty, "\(section): documented but never printed: \(unseen)")
      for (field, values) in fields {
        guard let types = contract[field] else { continue }
        for value in values where !Self.matches(value, types) {
          Issue.record("\(section): \(field) = \(value) is not \(types.sorted())")
        }
      }
    }
  }

  @Test("a record's keys are the same whatever its outcome (null, never absent)")
  func stableKeys() throws {
    let hit = servers.nginx("base.gif?json=2")
    #expect(env.run(["fetch", hit]).status == 0)
    let a = try #require(records(["query", "--json", hit]).first)
    let b = try #require(
      records(["query", "--json", servers.nginx("x.png?json=2")], status: 1).first)
    let entryFields: Set<String> = [
      "size", "disk_size", "format", "width", "height", "scale", "content_type", "etag",
      "last_modified", "sha256", "created", "last_access", "access_count", "expiry",
      "cache_control", "expires", "fresh_until", "fresh",
    ]
    #expect(Set(a.keys).subtracting(entryFields) == Set(b.keys))
    let error = try #require(
      records(["fetch", "--json", servers.fault("/html?json=2")], status: 9).first)
    let offline = try #require(
      records(["fetch", "--json", "--offline", servers.nginx("y.png?json=2")], status: 1).first)
    #expect(Set(error.keys) == Set(offline.keys))
  }
}
