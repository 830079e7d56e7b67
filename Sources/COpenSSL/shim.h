#ifndef IMGCACHE_COPENSSL_SHIM_H
#define IMGCACHE_COPENSSL_SHIM_H
// OpenSSL's digests through their one-algorithm functions (MD5_*, SHA1_*, SHA256_*), not EVP.
// They are deprecated in OpenSSL 3 in favour of EVP but stay in libcrypto, run the same
// assembly, and cost less: EVP's context costs a cache key's digest twice the instructions
// (2,030 against 922 for a 40-byte URL). And they stand alone: the release binary links
// libcrypto statically (docs/architecture.md, Start-up), where EVP would bring OpenSSL's
// providers, 3 MB of code a digest never runs. The file names and index of every cache are
// MD5s (docs/design.md, On disk).
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/md5.h>
#include <openssl/sha.h>
#include <errno.h>
#include <stddef.h>
#include <unistd.h>

/// The MD5 of `count` bytes at `data` into `out` (16 bytes), on a context on the stack.
static inline void imgcache_md5(const void *data, size_t count, unsigned char *out) {
  MD5_CTX context;
  MD5_Init(&context);
  MD5_Update(&context, data, count);
  MD5_Final(out, &context);
}

/// The MD5 of what is left to read from `fd` into `out` (16 bytes), 16 KiB at a time: a body
/// of any size in flat memory. 0, or -1 (errno set) when a read fails.
static inline int imgcache_md5_descriptor(int fd, unsigned char *out) {
  MD5_CTX context;
  unsigned char buffer[16384];
  MD5_Init(&context);
  for (;;) {
    ssize_t count = read(fd, buffer, sizeof buffer);
    if (count < 0 && errno == EINTR) continue;
    if (count < 0) return -1;
    if (count == 0) break;
    MD5_Update(&context, buffer, (size_t)count);
  }
  MD5_Final(out, &context);
  return 0;
}

/// The SHA-1 of `count` bytes at `data` into `out` (20 bytes). Not OpenSSL's one-shot `SHA1`,
/// which goes through EVP.
static inline void imgcache_sha1(const void *data, size_t count, unsigned char *out) {
  SHA_CTX context;
  SHA1_Init(&context);
  SHA1_Update(&context, data, count);
  SHA1_Final(out, &context);
}

/// Starts `context` over.
static inline void imgcache_sha256_reset(SHA256_CTX *context) { SHA256_Init(context); }

/// Adds `count` bytes at `data` to `context`.
static inline void imgcache_sha256_update(SHA256_CTX *context, const void *data, size_t count) {
  SHA256_Update(context, data, count);
}

/// Writes the digest of what `context` was given to `out` (32 bytes).
static inline void imgcache_sha256_finish(SHA256_CTX *context, unsigned char *out) {
  SHA256_Final(out, context);
}
#endif
