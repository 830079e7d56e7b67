#ifndef IMGCACHE_CCURL_SHIM_H
#define IMGCACHE_CCURL_SHIM_H
#include <curl/curl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

/*
 * libcurl is loaded on first use (dlopen), not at start-up: it pulls in some thirty shared
 * libraries (TLS, Kerberos, LDAP, SSH, IDN ...) whose relocation would cost every command,
 * including the cache hits and `size` that never touch the network. This header declares the
 * table of entry points, fills it, and calls through it; it holds no state of its own (the
 * table belongs to the Swift side, which loads it once).
 */

struct imgcache_curl {
  void *library;
  CURLcode (*global_init)(long);
  const char *(*easy_strerror)(CURLcode);
  CURL *(*easy_init)(void);
  void (*easy_cleanup)(CURL *);
  void (*easy_reset)(CURL *);
  CURLcode (*easy_setopt)(CURL *, CURLoption, ...);
  CURLcode (*easy_getinfo)(CURL *, CURLINFO, ...);
  struct curl_slist *(*slist_append)(struct curl_slist *, const char *);
  void (*slist_free_all)(struct curl_slist *);
  CURLM *(*multi_init)(void);
  CURLMcode (*multi_cleanup)(CURLM *);
  CURLMcode (*multi_setopt)(CURLM *, CURLMoption, ...);
  CURLMcode (*multi_add_handle)(CURLM *, CURL *);
  CURLMcode (*multi_remove_handle)(CURLM *, CURL *);
  CURLMcode (*multi_perform)(CURLM *, int *);
  CURLMcode (*multi_timeout)(CURLM *, long *);
  CURLMcode (*multi_poll)(CURLM *, struct curl_waitfd *, unsigned int, int, int *);
  CURLMcode (*multi_wakeup)(CURLM *);
  CURLMsg *(*multi_info_read)(CURLM *, int *);
  CURLSH *(*share_init)(void);
  CURLSHcode (*share_cleanup)(CURLSH *);
  CURLSHcode (*share_setopt)(CURLSH *, CURLSHoption, ...);
};

/* Fills `api` from libcurl.so.4; on failure returns 0 with the reason in `error`. */
static inline int imgcache_curl_load(struct imgcache_curl *api, char *error, size_t size) {
  void *lib = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
  if (lib == NULL) {
    const char *why = dlerror();
    snprintf(error, size, "%s", why ? why : "libcurl.so.4 not found");
    return 0;
  }
  api->library = lib;
#define IMGCACHE_CURL_SYMBOL(field, name)                                   \
  if ((*(void **)&api->field = dlsym(lib, name)) == NULL) {                 \
    snprintf(error, size, "libcurl.so.4 has no %s (libcurl 7.68 or later needed)", name); \
    return 0;                                                               \
  }
  IMGCACHE_CURL_SYMBOL(global_init, "curl_global_init")
  IMGCACHE_CURL_SYMBOL(easy_strerror, "curl_easy_strerror")
  IMGCACHE_CURL_SYMBOL(easy_init, "curl_easy_init")
  IMGCACHE_CURL_SYMBOL(easy_cleanup, "curl_easy_cleanup")
  IMGCACHE_CURL_SYMBOL(easy_reset, "curl_easy_reset")
  IMGCACHE_CURL_SYMBOL(easy_setopt, "curl_easy_setopt")
  IMGCACHE_CURL_SYMBOL(easy_getinfo, "curl_easy_getinfo")
  IMGCACHE_CURL_SYMBOL(slist_append, "curl_slist_append")
  IMGCACHE_CURL_SYMBOL(slist_free_all, "curl_slist_free_all")
  IMGCACHE_CURL_SYMBOL(multi_init, "curl_multi_init")
  IMGCACHE_CURL_SYMBOL(multi_cleanup, "curl_multi_cleanup")
  IMGCACHE_CURL_SYMBOL(multi_setopt, "curl_multi_setopt")
  IMGCACHE_CURL_SYMBOL(multi_add_handle, "curl_multi_add_handle")
  IMGCACHE_CURL_SYMBOL(multi_remove_handle, "curl_multi_remove_handle")
  IMGCACHE_CURL_SYMBOL(multi_perform, "curl_multi_perform")
  IMGCACHE_CURL_SYMBOL(multi_timeout, "curl_multi_timeout")
  IMGCACHE_CURL_SYMBOL(multi_poll, "curl_multi_poll")
  IMGCACHE_CURL_SYMBOL(multi_wakeup, "curl_multi_wakeup")
  IMGCACHE_CURL_SYMBOL(multi_info_read, "curl_multi_info_read")
  IMGCACHE_CURL_SYMBOL(share_init, "curl_share_init")
  IMGCACHE_CURL_SYMBOL(share_cleanup, "curl_share_cleanup")
  IMGCACHE_CURL_SYMBOL(share_setopt, "curl_share_setopt")
#undef IMGCACHE_CURL_SYMBOL
  return 1;
}

/* Calls through the table. The typed setopt/getinfo wrappers exist because Swift cannot call
   the variadic curl_easy_setopt/getinfo itself. */
typedef const struct imgcache_curl *imgcache_api;

static inline CURLcode imgcache_global_init(imgcache_api a, long flags) { return a->global_init(flags); }
static inline const char *imgcache_strerror(imgcache_api a, CURLcode c) { return a->easy_strerror(c); }
static inline CURL *imgcache_easy_init(imgcache_api a) { return a->easy_init(); }
static inline void imgcache_easy_cleanup(imgcache_api a, CURL *h) { a->easy_cleanup(h); }
static inline void imgcache_easy_reset(imgcache_api a, CURL *h) { a->easy_reset(h); }

static inline CURLcode imgcache_setopt_long(imgcache_api a, CURL *h, CURLoption o, long v) {
  return a->easy_setopt(h, o, v);
}
static inline CURLcode imgcache_setopt_off(imgcache_api a, CURL *h, CURLoption o, curl_off_t v) {
  return a->easy_setopt(h, o, v);
}
static inline CURLcode imgcache_setopt_string(imgcache_api a, CURL *h, CURLoption o, const char *v) {
  return a->easy_setopt(h, o, v);
}
static inline CURLcode imgcache_setopt_pointer(imgcache_api a, CURL *h, CURLoption o, void *v) {
  return a->easy_setopt(h, o, v);
}
static inline CURLcode imgcache_setopt_slist(imgcache_api a, CURL *h, CURLoption o,
                                             struct curl_slist *v) {
  return a->easy_setopt(h, o, v);
}
static inline CURLcode imgcache_setopt_share(imgcache_api a, CURL *h, CURLSH *s) {
  return a->easy_setopt(h, CURLOPT_SHARE, s);
}

typedef size_t (*imgcache_data_callback)(char *, size_t, size_t, void *);
static inline CURLcode imgcache_setopt_read_function(imgcache_api a, CURL *h, imgcache_data_callback f) {
  return a->easy_setopt(h, CURLOPT_READFUNCTION, f);
}
static inline CURLcode imgcache_setopt_write_function(imgcache_api a, CURL *h, imgcache_data_callback f) {
  return a->easy_setopt(h, CURLOPT_WRITEFUNCTION, f);
}
static inline CURLcode imgcache_setopt_header_function(imgcache_api a, CURL *h, imgcache_data_callback f) {
  return a->easy_setopt(h, CURLOPT_HEADERFUNCTION, f);
}
typedef int (*imgcache_xferinfo_callback)(void *, curl_off_t, curl_off_t, curl_off_t, curl_off_t);
static inline CURLcode imgcache_setopt_xferinfo_function(imgcache_api a, CURL *h,
                                                         imgcache_xferinfo_callback f) {
  return a->easy_setopt(h, CURLOPT_XFERINFOFUNCTION, f);
}

static inline CURLcode imgcache_getinfo_long(imgcache_api a, CURL *h, CURLINFO i, long *v) {
  return a->easy_getinfo(h, i, v);
}
static inline CURLcode imgcache_getinfo_string(imgcache_api a, CURL *h, CURLINFO i, char **v) {
  return a->easy_getinfo(h, i, v);
}

static inline struct curl_slist *imgcache_slist_append(imgcache_api a, struct curl_slist *l,
                                                       const char *s) {
  return a->slist_append(l, s);
}
static inline void imgcache_slist_free_all(imgcache_api a, struct curl_slist *l) { a->slist_free_all(l); }

static inline CURLM *imgcache_multi_init(imgcache_api a) { return a->multi_init(); }
static inline CURLMcode imgcache_multi_cleanup(imgcache_api a, CURLM *m) { return a->multi_cleanup(m); }
static inline CURLMcode imgcache_multi_setopt_long(imgcache_api a, CURLM *m, CURLMoption o, long v) {
  return a->multi_setopt(m, o, v);
}
static inline CURLMcode imgcache_multi_add_handle(imgcache_api a, CURLM *m, CURL *h) {
  return a->multi_add_handle(m, h);
}
static inline CURLMcode imgcache_multi_remove_handle(imgcache_api a, CURLM *m, CURL *h) {
  return a->multi_remove_handle(m, h);
}
static inline CURLMcode imgcache_multi_perform(imgcache_api a, CURLM *m, int *running) {
  return a->multi_perform(m, running);
}
static inline CURLMcode imgcache_multi_timeout(imgcache_api a, CURLM *m, long *ms) {
  return a->multi_timeout(m, ms);
}
static inline CURLMcode imgcache_multi_poll(imgcache_api a, CURLM *m, int ms) {
  return a->multi_poll(m, NULL, 0, ms, NULL);
}
static inline CURLMcode imgcache_multi_wakeup(imgcache_api a, CURLM *m) { return a->multi_wakeup(m); }
static inline CURLMsg *imgcache_multi_info_read(imgcache_api a, CURLM *m, int *left) {
  return a->multi_info_read(m, left);
}

static inline CURLSH *imgcache_share_init(imgcache_api a) { return a->share_init(); }
static inline CURLSHcode imgcache_share_cleanup(imgcache_api a, CURLSH *s) { return a->share_cleanup(s); }
static inline CURLSHcode imgcache_share_setopt_long(imgcache_api a, CURLSH *s, CURLSHoption o, long v) {
  return a->share_setopt(s, o, v);
}

/* Macros Swift does not import. */
static const int imgcache_error_size = CURL_ERROR_SIZE;
static const long imgcache_auth_basic = (long)CURLAUTH_BASIC;

/* CURLMsg.data is a union; expose the result code. */
static inline CURLcode imgcache_msg_result(CURLMsg *m) { return m->data.result; }

#endif
