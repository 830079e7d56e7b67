#ifndef IMGCACHE_CVIPS_SHIM_H
#define IMGCACHE_CVIPS_SHIM_H
#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

/*
 * libvips is loaded on first use (dlopen), not at start-up: it pulls in about a hundred shared
 * libraries (GLib, codecs, lcms, ...) whose relocation doubled the start-up time and memory of
 * every command, including the cache hits that never derive anything. So this header includes
 * no libvips or GLib header (nothing links against them): it declares the few types it uses,
 * opaque, and libvips 8's enum values, which its ABI keeps fixed across 8.x (checked against
 * the loaded library by Tests/ImgCacheKitTests/VariantSafetyTests.swift). libvips' entry
 * points take NULL-terminated name/value lists, which Swift cannot call: the wrappers below
 * have fixed signatures and call through a table this header fills and the Swift side keeps
 * (ImgCacheKit/Variants/VipsLibrary.swift, the only importer).
 */

typedef struct imgcache_vips_image VipsImage;
typedef struct imgcache_vips_object VipsObject;
typedef size_t imgcache_gtype;
typedef void (*imgcache_log_function)(const char *, int, const char *, void *);

/* VipsSize, VipsInteresting, VipsCompassDirection (vips/resample.h, vips/conversion.h). */
enum imgcache_vips_size { IMGCACHE_SIZE_BOTH = 0, IMGCACHE_SIZE_UP = 1, IMGCACHE_SIZE_DOWN = 2,
                          IMGCACHE_SIZE_FORCE = 3 };
enum imgcache_vips_interesting { IMGCACHE_INTERESTING_NONE = 0, IMGCACHE_INTERESTING_CENTRE = 1,
                                 IMGCACHE_INTERESTING_ENTROPY = 2,
                                 IMGCACHE_INTERESTING_ATTENTION = 3 };
enum imgcache_vips_direction { IMGCACHE_DIRECTION_CENTRE = 0, IMGCACHE_DIRECTION_NORTH = 1,
                               IMGCACHE_DIRECTION_EAST = 2, IMGCACHE_DIRECTION_SOUTH = 3,
                               IMGCACHE_DIRECTION_WEST = 4, IMGCACHE_DIRECTION_NORTH_EAST = 5,
                               IMGCACHE_DIRECTION_SOUTH_EAST = 6,
                               IMGCACHE_DIRECTION_SOUTH_WEST = 7,
                               IMGCACHE_DIRECTION_NORTH_WEST = 8 };
/* VipsFailOn ERROR, VipsExtend COPY, VipsForeignHeifCompression AV1, VipsInterpretation CMYK,
 * GLogLevelFlags WARNING | MESSAGE | INFO. */
enum { IMGCACHE_FAIL_ON_ERROR = 2, IMGCACHE_EXTEND_COPY = 1, IMGCACHE_HEIF_AV1 = 4,
       IMGCACHE_INTERPRETATION_CMYK = 15, IMGCACHE_LOG_CHATTER = (1 << 4) | (1 << 5) | (1 << 6) };

struct imgcache_vips {
  void *library;
  int (*version)(int);
  int (*init)(const char *);
  unsigned (*log_set_handler)(const char *, int, imgcache_log_function, void *);
  void (*cache_set_max)(int);
  void (*block_untrusted_set)(int);
  void (*concurrency_set)(int);
  imgcache_gtype (*type_find)(const char *, const char *);
  int (*enum_from_nick)(const char *, imgcache_gtype, const char *);
  char *(*error_buffer_copy)(void);
  void (*free)(void *);
  void (*object_unref)(void *);
  void (*thread_shutdown)(void);
  void (*image_set_progress)(VipsImage *, int);
  void (*image_set_kill)(VipsImage *, int);
  unsigned long (*signal_connect_data)(void *, const char *, void (*)(void), void *, void *, int);
  VipsImage *(*image_new_from_file)(const char *, ...);
  int (*image_get_width)(const VipsImage *);
  int (*image_get_height)(const VipsImage *);
  int (*image_get_page_height)(VipsImage *);
  int (*image_get_n_pages)(VipsImage *);
  int (*image_hasalpha)(VipsImage *);
  imgcache_gtype (*image_get_typeof)(const VipsImage *, const char *);
  int (*image_get_orientation_swap)(VipsImage *);
  int (*image_get_orientation)(VipsImage *);
  int (*image_guess_interpretation)(const VipsImage *);
  int (*thumbnail)(const char *, VipsImage **, int, ...);
  int (*gravity)(VipsImage *, VipsImage **, int, int, int, ...);
  void *(*array_double_newv)(int, ...);
  int (*flatten)(VipsImage *, VipsImage **, ...);
  void (*area_unref)(void *);
  VipsObject *(*target_new_to_descriptor)(int);
  int (*jpegsave_target)(VipsImage *, VipsObject *, ...);
  int (*pngsave_target)(VipsImage *, VipsObject *, ...);
  int (*webpsave_target)(VipsImage *, VipsObject *, ...);
  int (*heifsave_target)(VipsImage *, VipsObject *, ...);
  int (*gifsave_target)(VipsImage *, VipsObject *, ...);
};

/* Fills `api` from libvips.so.42 and starts libvips: no operation cache (every derivation is
 * new), loaders and savers marked untrusted blocked, warnings handed to `log` (libvips reports
 * a damaged file as warnings on stderr, and some reasons only so; imgcache reports every
 * failure itself, in one line). On failure returns 0 with the reason in `error`. */
static inline int imgcache_vips_load(struct imgcache_vips *api, char *error, size_t size,
                                     imgcache_log_function log) {
  void *lib = dlopen("libvips.so.42", RTLD_LAZY | RTLD_LOCAL);
  if (lib == NULL) {
    const char *why = dlerror();
    snprintf(error, size, "%s", why ? why : "libvips.so.42 not found");
    return 0;
  }
  api->library = lib;
#define IMGCACHE_VIPS_SYMBOL(field, name)                                                  \
  if ((*(void **)&api->field = dlsym(lib, name)) == NULL) {                                \
    snprintf(error, size, "libvips.so.42 has no %s (libvips 8.13 or later needed)", name); \
    return 0;                                                                              \
  }
  IMGCACHE_VIPS_SYMBOL(version, "vips_version")
  IMGCACHE_VIPS_SYMBOL(init, "vips_init")
  IMGCACHE_VIPS_SYMBOL(log_set_handler, "g_log_set_handler")
  IMGCACHE_VIPS_SYMBOL(cache_set_max, "vips_cache_set_max")
  IMGCACHE_VIPS_SYMBOL(block_untrusted_set, "vips_block_untrusted_set")
  IMGCACHE_VIPS_SYMBOL(concurrency_set, "vips_concurrency_set")
  IMGCACHE_VIPS_SYMBOL(type_find, "vips_type_find")
  IMGCACHE_VIPS_SYMBOL(enum_from_nick, "vips_enum_from_nick")
  IMGCACHE_VIPS_SYMBOL(error_buffer_copy, "vips_error_buffer_copy")
  IMGCACHE_VIPS_SYMBOL(free, "g_free")
  IMGCACHE_VIPS_SYMBOL(object_unref, "g_object_unref")
  IMGCACHE_VIPS_SYMBOL(thread_shutdown, "vips_thread_shutdown")
  IMGCACHE_VIPS_SYMBOL(image_set_progress, "vips_image_set_progress")
  IMGCACHE_VIPS_SYMBOL(image_set_kill, "vips_image_set_kill")
  IMGCACHE_VIPS_SYMBOL(signal_connect_data, "g_signal_connect_data")
  IMGCACHE_VIPS_SYMBOL(image_new_from_file, "vips_image_new_from_file")
  IMGCACHE_VIPS_SYMBOL(image_get_width, "vips_image_get_width")
  IMGCACHE_VIPS_SYMBOL(image_get_height, "vips_image_get_height")
  IMGCACHE_VIPS_SYMBOL(image_get_page_height, "vips_image_get_page_height")
  IMGCACHE_VIPS_SYMBOL(image_get_n_pages, "vips_image_get_n_pages")
  IMGCACHE_VIPS_SYMBOL(image_hasalpha, "vips_image_hasalpha")
  IMGCACHE_VIPS_SYMBOL(image_get_typeof, "vips_image_get_typeof")
  IMGCACHE_VIPS_SYMBOL(image_get_orientation_swap, "vips_image_get_orientation_swap")
  IMGCACHE_VIPS_SYMBOL(image_get_orientation, "vips_image_get_orientation")
  IMGCACHE_VIPS_SYMBOL(image_guess_interpretation, "vips_image_guess_interpretation")
  IMGCACHE_VIPS_SYMBOL(thumbnail, "vips_thumbnail")
  IMGCACHE_VIPS_SYMBOL(gravity, "vips_gravity")
  IMGCACHE_VIPS_SYMBOL(array_double_newv, "vips_array_double_newv")
  IMGCACHE_VIPS_SYMBOL(flatten, "vips_flatten")
  IMGCACHE_VIPS_SYMBOL(area_unref, "vips_area_unref")
  IMGCACHE_VIPS_SYMBOL(target_new_to_descriptor, "vips_target_new_to_descriptor")
  IMGCACHE_VIPS_SYMBOL(jpegsave_target, "vips_jpegsave_target")
  IMGCACHE_VIPS_SYMBOL(pngsave_target, "vips_pngsave_target")
  IMGCACHE_VIPS_SYMBOL(webpsave_target, "vips_webpsave_target")
  IMGCACHE_VIPS_SYMBOL(heifsave_target, "vips_heifsave_target")
  IMGCACHE_VIPS_SYMBOL(gifsave_target, "vips_gifsave_target")
#undef IMGCACHE_VIPS_SYMBOL
  if (api->version(0) != 8 || api->version(1) < 13) {
    snprintf(error, size, "libvips %d.%d is too old (8.13 or later needed)", api->version(0),
             api->version(1));
    return 0;
  }
  if (api->init("imgcache") != 0) {
    snprintf(error, size, "vips_init failed");
    return 0;
  }
  api->log_set_handler("VIPS", IMGCACHE_LOG_CHATTER, log, NULL);
  api->cache_set_max(0);
  api->block_untrusted_set(1);
  /* No ORC (liborc's run-time SIMD code) for libvips 8.14's resamplers and convolutions:
   * ORC programs made and freed by derivations running at once corrupt the heap (liborc's
   * own races: `prefetch --resize` of 20,000 downloads at -j 128 crashed in orc_code_free,
   * docs/design.md, Variants). libvips falls back to its C loops; 8.15 dropped ORC. */
  void (*vector_set_enabled)(int);
  if ((*(void **)&vector_set_enabled = dlsym(lib, "vips_vector_set_enabled")) != NULL) {
    vector_set_enabled(0);
  }
  return 1;
}

/* The value libvips gives the nickname `nick` of the enum whose type function is `type_name`
 * ("vips_size_get_type"), or -1: what the constants above are checked against. */
static inline int imgcache_vips_enum_value(const struct imgcache_vips *api, const char *type_name,
                                           const char *nick) {
  imgcache_gtype (*type)(void);
  if ((*(void **)&type = dlsym(api->library, type_name)) == NULL) return -1;
  return api->enum_from_nick("imgcache", type(), nick);
}

/* Whether libvips runs ORC code (1), does not (0), or cannot say (-1). */
static inline int imgcache_vips_vector_enabled(const struct imgcache_vips *api) {
  int (*enabled)(void);
  if ((*(void **)&enabled = dlsym(api->library, "vips_vector_isenabled")) == NULL) return -1;
  return enabled();
}

/* Whether this libvips has the operation `nickname` (a saver: "heifsave_target"). */
static inline int imgcache_vips_has_operation(const struct imgcache_vips *api,
                                              const char *nickname) {
  return api->type_find("VipsOperation", nickname) != 0;
}

/* The error buffer's text, copied, and the buffer cleared (NULL when empty). */
static inline char *imgcache_vips_take_error(const struct imgcache_vips *api) {
  return api->error_buffer_copy();
}

/* An image's header only (`name` may carry loader options in brackets); nothing decoded. */
static inline VipsImage *imgcache_vips_open_header(const struct imgcache_vips *api,
                                                   const char *name) {
  return api->image_new_from_file(name, NULL);
}

/* Small calls, through the table. */
static inline void imgcache_vips_unref(const struct imgcache_vips *api, VipsImage *image) {
  api->object_unref(image);
}
static inline void imgcache_vips_free(const struct imgcache_vips *api, void *memory) {
  api->free(memory);
}
static inline void imgcache_vips_thread_shutdown(const struct imgcache_vips *api) {
  api->thread_shutdown();
}
static inline void imgcache_vips_set_concurrency(const struct imgcache_vips *api, int threads) {
  api->concurrency_set(threads);
}
static inline int imgcache_vips_width(const struct imgcache_vips *api, VipsImage *image) {
  return api->image_get_width(image);
}
static inline int imgcache_vips_height(const struct imgcache_vips *api, VipsImage *image) {
  return api->image_get_height(image);
}
static inline int imgcache_vips_page_height(const struct imgcache_vips *api, VipsImage *image) {
  return api->image_get_page_height(image);
}
static inline int imgcache_vips_page_count(const struct imgcache_vips *api, VipsImage *image) {
  return api->image_get_n_pages(image);
}
static inline int imgcache_vips_has_alpha(const struct imgcache_vips *api, VipsImage *image) {
  return api->image_hasalpha(image) != 0;
}
static inline int imgcache_vips_orientation_swaps(const struct imgcache_vips *api,
                                                  VipsImage *image) {
  return api->image_get_orientation_swap(image) != 0;
}
static inline int imgcache_vips_orientation(const struct imgcache_vips *api, VipsImage *image) {
  return api->image_get_orientation(image);
}
static inline int imgcache_vips_has_profile(const struct imgcache_vips *api, VipsImage *image) {
  return api->image_get_typeof(image, "icc-profile-data") != 0;
}
static inline int imgcache_vips_is_cmyk(const struct imgcache_vips *api, VipsImage *image) {
  return api->image_guess_interpretation(image) == IMGCACHE_INTERPRETATION_CMYK;
}

/* Load, shrink on load, resize, rotate upright unless `no_rotate`, crop to `crop` interest
 * (NONE: no crop), and transform to `export_profile` (NULL: none), failing on any load error. */
static inline int imgcache_vips_thumbnail(const struct imgcache_vips *api, const char *name,
                                          VipsImage **out, int width, int height,
                                          enum imgcache_vips_size size,
                                          enum imgcache_vips_interesting crop, int no_rotate,
                                          const char *export_profile) {
  if (export_profile)
    return api->thumbnail(name, out, width, "height", height, "size", (int)size, "crop",
                          (int)crop, "no_rotate", no_rotate, "export_profile", export_profile,
                          "fail_on", IMGCACHE_FAIL_ON_ERROR, NULL);
  return api->thumbnail(name, out, width, "height", height, "size", (int)size, "crop", (int)crop,
                        "no_rotate", no_rotate, "fail_on", IMGCACHE_FAIL_ON_ERROR, NULL);
}

/* `width` x `height` of `in`, placed at `direction` (a crop when smaller). */
static inline int imgcache_vips_gravity(const struct imgcache_vips *api, VipsImage *in,
                                        VipsImage **out, enum imgcache_vips_direction direction,
                                        int width, int height) {
  return api->gravity(in, out, (int)direction, width, height, "extend", IMGCACHE_EXTEND_COPY,
                      NULL);
}

/* `in` flattened against white: for a saver without alpha. */
static inline int imgcache_vips_flatten_white(const struct imgcache_vips *api, VipsImage *in,
                                              VipsImage **out) {
  void *white = api->array_double_newv(1, 255.0);
  int result = api->flatten(in, out, "background", white, NULL);
  api->area_unref(white);
  return result;
}

/* The savers imgcache writes with, by number. */
enum imgcache_vips_saver { IMGCACHE_SAVER_JPEG = 0, IMGCACHE_SAVER_PNG = 1,
                           IMGCACHE_SAVER_WEBP = 2, IMGCACHE_SAVER_AVIF = 3,
                           IMGCACHE_SAVER_GIF = 4 };

/* Writes `in` to the open descriptor `fd` (left open) with `saver`, quality `quality` (lossy
 * savers only), metadata stripped when `strip`. 0 on success. */
static inline int imgcache_vips_save(const struct imgcache_vips *api, VipsImage *in, int fd,
                                     enum imgcache_vips_saver saver, int quality, int strip) {
  VipsObject *target = api->target_new_to_descriptor(fd);
  if (!target) return -1;
  int result = -1;
  switch (saver) {
  case IMGCACHE_SAVER_JPEG:
    result = api->jpegsave_target(in, target, "Q", quality, "strip", strip, "optimize_coding",
                                  1, NULL);
    break;
  case IMGCACHE_SAVER_PNG:
    result = api->pngsave_target(in, target, "strip", strip, NULL);
    break;
  case IMGCACHE_SAVER_WEBP:
    result = api->webpsave_target(in, target, "Q", quality, "strip", strip, NULL);
    break;
  case IMGCACHE_SAVER_AVIF:
    result = api->heifsave_target(in, target, "Q", quality, "strip", strip, "compression",
                                  IMGCACHE_HEIF_AV1, NULL);
    break;
  case IMGCACHE_SAVER_GIF:
    result = api->gifsave_target(in, target, "strip", strip, NULL);
    break;
  }
  api->object_unref(target);
  return result;
}
#include "budget.h"

#endif
