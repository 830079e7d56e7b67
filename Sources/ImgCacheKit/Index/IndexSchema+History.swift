/// Schemas v1 and v2 as SQL, in the form GRDB's schema builder wrote them (an index made by
/// an earlier imgcache holds these tables as written here).
extension IndexSchema {
  /// v1: entries by key, the failed-URL list, the running totals and the counters.
  static let v1 = """
    CREATE TABLE "entry" ("key" TEXT PRIMARY KEY NOT NULL, "url" TEXT NOT NULL, \
    "file" TEXT NOT NULL, "size" INTEGER NOT NULL, "allocated" INTEGER NOT NULL, \
    "format" TEXT, "width" INTEGER, "height" INTEGER, "scale" INTEGER NOT NULL DEFAULT 1, \
    "content_type" TEXT, "etag" TEXT, "last_modified" TEXT, "created" DOUBLE NOT NULL, \
    "last_access" DOUBLE NOT NULL, "expiry" DOUBLE, "access_count" INTEGER NOT NULL DEFAULT 0);
    CREATE INDEX "entry_last_access" ON "entry"("last_access");
    CREATE INDEX "entry_file" ON "entry"("file");
    CREATE TABLE "failed_url" ("url" TEXT PRIMARY KEY NOT NULL, "reason" TEXT NOT NULL, \
    "kind" TEXT NOT NULL, "http_status" INTEGER, "count" INTEGER NOT NULL, \
    "first_failure" DOUBLE NOT NULL, "last_failure" DOUBLE NOT NULL);
    CREATE TABLE "totals" ("id" INTEGER PRIMARY KEY CHECK ("id" = 1), \
    "entries" INTEGER NOT NULL, "bytes" INTEGER NOT NULL, "allocated" INTEGER NOT NULL);
    INSERT INTO totals (id, entries, bytes, allocated) VALUES (1, 0, 0, 0);
    CREATE TABLE "counter" ("name" TEXT PRIMARY KEY NOT NULL, "value" INTEGER NOT NULL);
    """

  /// v2: each body's SHA-256; failures by request (URL and fingerprint), the v1 list copied
  /// with an empty fingerprint; partial bodies kept for a resumed download.
  static let v2 = """
    ALTER TABLE "entry" ADD COLUMN "sha256" TEXT;
    CREATE TABLE "failed_request" ("url" TEXT NOT NULL, "fingerprint" TEXT NOT NULL, \
    "reason" TEXT NOT NULL, "kind" TEXT NOT NULL, "http_status" INTEGER, \
    "count" INTEGER NOT NULL, "first_failure" DOUBLE NOT NULL, "last_failure" DOUBLE NOT NULL, \
    PRIMARY KEY ("url", "fingerprint"));
    INSERT INTO failed_request
    SELECT url, '', reason, kind, http_status, count, first_failure, last_failure
    FROM failed_url;
    DROP TABLE "failed_url";
    CREATE TABLE "partial_download" ("url" TEXT PRIMARY KEY NOT NULL, "key" TEXT NOT NULL, \
    "file" TEXT NOT NULL, "bytes" INTEGER NOT NULL, "etag" TEXT, "last_modified" TEXT, \
    "content_length" INTEGER, "updated" DOUBLE NOT NULL);
    """
}
