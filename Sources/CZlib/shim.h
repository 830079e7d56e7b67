#ifndef IMGCACHE_CZLIB_SHIM_H
#define IMGCACHE_CZLIB_SHIM_H
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

/*
 * zlib is loaded on first use (dlopen), only by a command that reads a gzip-compressed table:
 * nothing links against it, so a cache hit pays nothing for it. zlib.h gives the types; the
 * three entry points used are called through this table (ImgCacheKit/Dataset/GzipBytes.swift,
 * the only importer).
 */
struct imgcache_zlib {
  int (*inflate_init2)(z_streamp, int, const char *, int);
  int (*inflate)(z_streamp, int);
  int (*inflate_reset)(z_streamp);
  int (*inflate_end)(z_streamp);
};

/* Fills `api` from libz.so.1; on failure returns 0 with the reason in `error`. */
static inline int imgcache_zlib_load(struct imgcache_zlib *api, char *error, size_t size) {
  void *lib = dlopen("libz.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (lib == NULL) {
    const char *why = dlerror();
    snprintf(error, size, "%s", why ? why : "libz.so.1 not found");
    return 0;
  }
#define IMGCACHE_ZLIB_SYMBOL(field, name)                          \
  if ((*(void **)&api->field = dlsym(lib, name)) == NULL) {        \
    snprintf(error, size, "libz.so.1 has no %s", name);            \
    return 0;                                                      \
  }
  IMGCACHE_ZLIB_SYMBOL(inflate_init2, "inflateInit2_")
  IMGCACHE_ZLIB_SYMBOL(inflate, "inflate")
  IMGCACHE_ZLIB_SYMBOL(inflate_reset, "inflateReset")
  IMGCACHE_ZLIB_SYMBOL(inflate_end, "inflateEnd")
#undef IMGCACHE_ZLIB_SYMBOL
  return 1;
}

/* Starts `stream` for gzip or zlib input (the header tells which: window bits 15 + 32). */
static inline int imgcache_inflate_init(const struct imgcache_zlib *api, z_streamp stream) {
  memset(stream, 0, sizeof(*stream));
  return api->inflate_init2(stream, 15 + 32, ZLIB_VERSION, (int)sizeof(z_stream));
}

static inline int imgcache_inflate(const struct imgcache_zlib *api, z_streamp stream) {
  return api->inflate(stream, Z_NO_FLUSH);
}

static inline int imgcache_inflate_reset(const struct imgcache_zlib *api, z_streamp stream) {
  return api->inflate_reset(stream);
}

static inline void imgcache_inflate_end(const struct imgcache_zlib *api, z_streamp stream) {
  api->inflate_end(stream);
}

#endif
