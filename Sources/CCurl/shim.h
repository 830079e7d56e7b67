#ifndef IMGCACHE_CCURL_SHIM_H
#define IMGCACHE_CCURL_SHIM_H
#include <curl/curl.h>

/* Typed wrappers: Swift cannot call the variadic curl_easy_setopt/getinfo directly. */

static inline CURLcode imgcache_setopt_long(CURL *h, CURLoption o, long v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode imgcache_setopt_off(CURL *h, CURLoption o, curl_off_t v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode imgcache_setopt_string(CURL *h, CURLoption o, const char *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode imgcache_setopt_pointer(CURL *h, CURLoption o, void *v) {
  return curl_easy_setopt(h, o, v);
}
static inline CURLcode imgcache_setopt_slist(CURL *h, CURLoption o, struct curl_slist *v) {
  return curl_easy_setopt(h, o, v);
}

typedef size_t (*imgcache_data_callback)(char *, size_t, size_t, void *);
static inline CURLcode imgcache_setopt_write_function(CURL *h, imgcache_data_callback f) {
  return curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
}
static inline CURLcode imgcache_setopt_header_function(CURL *h, imgcache_data_callback f) {
  return curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, f);
}

typedef int (*imgcache_xferinfo_callback)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
static inline CURLcode imgcache_setopt_xferinfo_function(CURL *h, imgcache_xferinfo_callback f) {
  return curl_easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f);
}

static inline CURLcode imgcache_getinfo_long(CURL *h, CURLINFO i, long *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode imgcache_getinfo_string(CURL *h, CURLINFO i, char **v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode imgcache_getinfo_off(CURL *h, CURLINFO i, curl_off_t *v) {
  return curl_easy_getinfo(h, i, v);
}
static inline CURLcode imgcache_getinfo_pointer(CURL *h, CURLINFO i, void **v) {
  return curl_easy_getinfo(h, i, v);
}

static inline CURLMcode imgcache_multi_setopt_long(CURLM *m, CURLMoption o, long v) {
  return curl_multi_setopt(m, o, v);
}
static inline CURLSHcode imgcache_share_setopt_long(CURLSH *s, CURLSHoption o, long v) {
  return curl_share_setopt(s, o, v);
}
static inline CURLcode imgcache_setopt_share(CURL *h, CURLSH *s) {
  return curl_easy_setopt(h, CURLOPT_SHARE, s);
}

/* Macros Swift does not import. */
static const int imgcache_error_size = CURL_ERROR_SIZE;
static const long imgcache_auth_basic = (long)CURLAUTH_BASIC;

/* CURLMsg.data is a union; expose the result code. */
static inline CURLcode imgcache_msg_result(CURLMsg *m) { return m->data.result; }

#endif
