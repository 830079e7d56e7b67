import Foundation
import GRDB
import Testing

@testable import ImgCacheIndex

/// The index's schema as SQL text (IndexSchema, IndexSchema+History): a new index, migrated
/// from nothing, is exactly the one GRDB's schema builder made (its `sqlite_master`, recorded
/// before the builder was replaced, below), so every index — old or new — has one form.
@Suite("The index's schema: written as SQL, the same as GRDB's builder made it")
struct IndexSchemaTests {
  static let expected = #"""
    index|entry_created|CREATE INDEX entry_created ON entry(created)
    index|entry_digest|CREATE INDEX entry_digest ON entry(digest)
    index|entry_last_access|CREATE INDEX entry_last_access ON entry(last_access)
    index|entry_size|CREATE INDEX entry_size ON entry(size)
    index|robots_expires|CREATE INDEX "robots_expires" ON "robots"("expires")
    index|sqlite_autoindex_counter_1|
    index|sqlite_autoindex_failed_request_1|
    index|sqlite_autoindex_grdb_migrations_1|
    index|sqlite_autoindex_partial_download_1|
    index|sqlite_autoindex_robots_1|
    index|sqlite_autoindex_variant_1|
    index|variant_by_original|CREATE INDEX variant_by_original ON variant(original)
    table|counter|CREATE TABLE "counter" ("name" TEXT PRIMARY KEY NOT NULL, "value" INTEGER NOT NULL)
    table|entry|CREATE TABLE entry (
      key TEXT NOT NULL, url TEXT, file_ext TEXT NOT NULL, size INTEGER NOT NULL, allocated INTEGER NOT NULL,
      format TEXT, width INTEGER, height INTEGER, scale INTEGER NOT NULL DEFAULT 1,
      content_type TEXT, etag TEXT, last_modified, created DOUBLE NOT NULL,
      last_access DOUBLE NOT NULL, expiry DOUBLE, access_count INTEGER NOT NULL DEFAULT 0,
      sha256 BLOB, cache_control TEXT, expires, date, age TEXT, received DOUBLE, status INTEGER,
      shareable BOOLEAN NOT NULL DEFAULT 0, digest INTEGER NOT NULL, digest_low INTEGER NOT NULL
    )
    table|entry_use|CREATE TABLE entry_use (
      entry_rowid INTEGER PRIMARY KEY,
      last_access DOUBLE NOT NULL,
      access_count INTEGER NOT NULL
    )
    table|failed_request|CREATE TABLE "failed_request" ("url" TEXT NOT NULL, "fingerprint" TEXT NOT NULL, "reason" TEXT NOT NULL, "kind" TEXT NOT NULL, "http_status" INTEGER, "count" INTEGER NOT NULL, "first_failure" DOUBLE NOT NULL, "last_failure" DOUBLE NOT NULL, PRIMARY KEY ("url", "fingerprint"))
    table|grdb_migrations|CREATE TABLE grdb_migrations (identifier TEXT NOT NULL PRIMARY KEY)
    table|partial_download|CREATE TABLE "partial_download" ("url" TEXT PRIMARY KEY NOT NULL, "key" TEXT NOT NULL, "file" TEXT NOT NULL, "bytes" INTEGER NOT NULL, "etag" TEXT, "last_modified" TEXT, "content_length" INTEGER, "updated" DOUBLE NOT NULL)
    table|robots|CREATE TABLE "robots" ("origin" TEXT PRIMARY KEY NOT NULL, "rules" TEXT NOT NULL, "unreachable" TEXT, "expires" DOUBLE NOT NULL)
    table|totals|CREATE TABLE "totals" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), "entries" INTEGER NOT NULL, "bytes" INTEGER NOT NULL, "allocated" INTEGER NOT NULL)
    table|variant|CREATE TABLE variant (
      key TEXT PRIMARY KEY NOT NULL, original TEXT NOT NULL, original_digest INTEGER NOT NULL,
      spec TEXT NOT NULL, source_sha256 BLOB
    )
    trigger|entry_use_forget|CREATE TRIGGER entry_use_forget AFTER DELETE ON entry
    BEGIN DELETE FROM entry_use WHERE entry_rowid = OLD.rowid; END
    trigger|variant_forget|CREATE TRIGGER variant_forget AFTER DELETE ON entry
    BEGIN DELETE FROM variant WHERE key = OLD.key; END
    """#

  @Test("a new index's sqlite_master, table by table and index by index")
  func newIndex() throws {
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("imgcache-schema-\(getpid())-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let queue = try DatabaseQueue(path: directory.appendingPathComponent("index.sqlite").path)
    try queue.writeWithoutTransaction { db in
      try IndexSchema.migrator.migrate(
        try SQLiteConnection(borrowing: #require(db.sqliteConnection), path: "index"))
    }
    let rows = try queue.read { db in
      try String.fetchAll(
        db,
        sql:
          "SELECT type || '|' || name || '|' || COALESCE(sql, '') FROM sqlite_master ORDER BY type, name"
      )
    }
    let actual = rows.joined(separator: "\n").split(separator: "\n")
    let expected = Self.expected.split(separator: "\n")
    #expect(actual.count == expected.count)
    for (line, wanted) in zip(actual, expected) { #expect(line == wanted) }
  }
}
