#ifndef IMGCACHE_CHIREDIS_SHIM_H
#define IMGCACHE_CHIREDIS_SHIM_H
#include <hiredis/hiredis.h>
#include <sys/time.h>

/* What Swift cannot reach in hiredis: macros, a fixed-size error buffer, the reply tree. */

static const int imgcache_redis_reply_string = REDIS_REPLY_STRING;
static const int imgcache_redis_reply_array = REDIS_REPLY_ARRAY;
static const int imgcache_redis_reply_integer = REDIS_REPLY_INTEGER;
static const int imgcache_redis_reply_nil = REDIS_REPLY_NIL;
static const int imgcache_redis_reply_status = REDIS_REPLY_STATUS;
static const int imgcache_redis_reply_error = REDIS_REPLY_ERROR;

/* The context's error code (0: none) and its message. */
static inline int imgcache_redis_error_code(const redisContext *c) { return c ? c->err : -1; }
static inline const char *imgcache_redis_error_text(const redisContext *c) {
  return c ? c->errstr : "cannot allocate a redis context";
}

/* A timeout of `ms` milliseconds. */
static inline struct timeval imgcache_redis_timeval(long ms) {
  struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
  return tv;
}

/* Element `i` of an array reply. */
static inline redisReply *imgcache_redis_element(const redisReply *r, size_t i) {
  return r->element[i];
}
#endif
