#ifndef IMGCACHE_CSQLITE_SHIM_H
#define IMGCACHE_CSQLITE_SHIM_H
// SQLite's C API for the index (Index/SQLite/ only), with wrappers for what Swift cannot call:
// sqlite3_db_config is variadic.
#include <sqlite3.h>

/// A double-quoted name that names nothing is an error, never a string.
static inline void imgcache_sqlite_disable_quoted_strings(sqlite3 *db) {
  sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DDL, 0, (void *)0);
  sqlite3_db_config(db, SQLITE_DBCONFIG_DQS_DML, 0, (void *)0);
}

#endif
