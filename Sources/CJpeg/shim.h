#ifndef IMGCACHE_CJPEG_SHIM_H
#define IMGCACHE_CJPEG_SHIM_H
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <jpeglib.h>

/*
 * The direct JPEG path (docs/design.md, Variants): a JPEG resized to a JPEG with libjpeg-turbo
 * (decoded at 1/1, 1/2, 1/4 or 1/8 of its size by the DCT, encoded) and libyuv's box filter
 * between, with none of libvips' per-image machinery, which costs ten times the pixel work on
 * the small images datasets are made of. Both libraries are loaded with dlopen on first use,
 * like libvips: jpeglib.h gives the types, nothing links against them. libjpeg reports a
 * fatal error by longjmp, which Swift cannot see: every libjpeg call is made here, in C, under
 * setjmp. A warning (data libjpeg works around) ends the path as an error does: the caller
 * then derives the image through libvips, which decides what a damaged file is. Two ways: a
 * 4:2:0 original resized stays in YCbCr planes (planar.h); every other goes by BGRX or grey
 * (interleaved.h). ImgCacheKit/Variants/JPEGLibrary.swift is the only importer.
 */

/* libyuv's FilterMode: box averaging when shrinking, bilinear when enlarging. */
enum { IMGCACHE_YUV_FILTER_BOX = 3 };

struct imgcache_jpeg {
  struct jpeg_error_mgr *(*std_error)(struct jpeg_error_mgr *);
  void (*create_decompress)(j_decompress_ptr, int, size_t);
  void (*mem_src)(j_decompress_ptr, const unsigned char *, unsigned long);
  int (*read_header)(j_decompress_ptr, boolean);
  void (*save_markers)(j_decompress_ptr, int, unsigned int);
  boolean (*start_decompress)(j_decompress_ptr);
  JDIMENSION (*read_scanlines)(j_decompress_ptr, JSAMPARRAY, JDIMENSION);
  JDIMENSION (*read_raw_data)(j_decompress_ptr, JSAMPIMAGE, JDIMENSION);
  boolean (*finish_decompress)(j_decompress_ptr);
  void (*destroy_decompress)(j_decompress_ptr);
  void (*create_compress)(j_compress_ptr, int, size_t);
  void (*set_defaults)(j_compress_ptr);
  void (*set_quality)(j_compress_ptr, int, boolean);
  void (*start_compress)(j_compress_ptr, boolean);
  JDIMENSION (*write_scanlines)(j_compress_ptr, JSAMPARRAY, JDIMENSION);
  JDIMENSION (*write_raw_data)(j_compress_ptr, JSAMPIMAGE, JDIMENSION);
  void (*finish_compress)(j_compress_ptr);
  void (*destroy_compress)(j_compress_ptr);
  int (*argb_scale)(const uint8_t *, int, int, int, uint8_t *, int, int, int, int);
  /* void: this libyuv's ScalePlane returns nothing (later ones return 0). */
  void (*plane_scale)(const uint8_t *, int, int, int, uint8_t *, int, int, int, int);
};

/* Fills `api` from libjpeg.so.62 (libjpeg-turbo) and libyuv.so.0. On failure returns 0 with the
 * reason in `error`. */
static inline int imgcache_jpeg_load(struct imgcache_jpeg *api, char *error, size_t size) {
  void *jpeg = dlopen("libjpeg.so.62", RTLD_LAZY | RTLD_LOCAL);
  void *yuv = jpeg ? dlopen("libyuv.so.0", RTLD_LAZY | RTLD_LOCAL) : NULL;
  if (jpeg == NULL || yuv == NULL) {
    const char *why = dlerror();
    snprintf(error, size, "%s", why ? why : "libjpeg.so.62 or libyuv.so.0 not found");
    return 0;
  }
#define IMGCACHE_JPEG_SYMBOL(library, field, name)                  \
  if ((*(void **)&api->field = dlsym(library, name)) == NULL) {     \
    snprintf(error, size, "%s has no %s", #library, name);          \
    return 0;                                                       \
  }
  IMGCACHE_JPEG_SYMBOL(jpeg, std_error, "jpeg_std_error")
  IMGCACHE_JPEG_SYMBOL(jpeg, create_decompress, "jpeg_CreateDecompress")
  IMGCACHE_JPEG_SYMBOL(jpeg, mem_src, "jpeg_mem_src")
  IMGCACHE_JPEG_SYMBOL(jpeg, read_header, "jpeg_read_header")
  IMGCACHE_JPEG_SYMBOL(jpeg, save_markers, "jpeg_save_markers")
  IMGCACHE_JPEG_SYMBOL(jpeg, start_decompress, "jpeg_start_decompress")
  IMGCACHE_JPEG_SYMBOL(jpeg, read_scanlines, "jpeg_read_scanlines")
  IMGCACHE_JPEG_SYMBOL(jpeg, read_raw_data, "jpeg_read_raw_data")
  IMGCACHE_JPEG_SYMBOL(jpeg, finish_decompress, "jpeg_finish_decompress")
  IMGCACHE_JPEG_SYMBOL(jpeg, destroy_decompress, "jpeg_destroy_decompress")
  IMGCACHE_JPEG_SYMBOL(jpeg, create_compress, "jpeg_CreateCompress")
  IMGCACHE_JPEG_SYMBOL(jpeg, set_defaults, "jpeg_set_defaults")
  IMGCACHE_JPEG_SYMBOL(jpeg, set_quality, "jpeg_set_quality")
  IMGCACHE_JPEG_SYMBOL(jpeg, start_compress, "jpeg_start_compress")
  IMGCACHE_JPEG_SYMBOL(jpeg, write_scanlines, "jpeg_write_scanlines")
  IMGCACHE_JPEG_SYMBOL(jpeg, write_raw_data, "jpeg_write_raw_data")
  IMGCACHE_JPEG_SYMBOL(jpeg, finish_compress, "jpeg_finish_compress")
  IMGCACHE_JPEG_SYMBOL(jpeg, destroy_compress, "jpeg_destroy_compress")
  IMGCACHE_JPEG_SYMBOL(yuv, argb_scale, "ARGBScale")
  IMGCACHE_JPEG_SYMBOL(yuv, plane_scale, "ScalePlane")
#undef IMGCACHE_JPEG_SYMBOL
  return 1;
}

/* How a derivation by the direct path ended. */
enum imgcache_jpeg_status {
  IMGCACHE_JPEG_DONE = 0,     /* written */
  IMGCACHE_JPEG_DECLINED = 1, /* not for this path (or libjpeg objected): nothing written */
  IMGCACHE_JPEG_FAILED = 2,   /* the file could not be written: `error` says why */
  IMGCACHE_JPEG_STOPPED = 3,  /* `proceed` said stop: nothing written */
};

/* One derivation: the original's size as its header gives it (checked again here), the DCT
 * shrink, the whole image's size once resized, the crop of it written, the quality. */
struct imgcache_jpeg_job {
  const unsigned char *data;  /* the original's bytes, read by the caller */
  size_t length;
  int descriptor;
  int source_width, source_height, shrink;
  int width, height;
  int crop_left, crop_top, crop_width, crop_height;
  int quality;
  size_t max_bytes;           /* the most the file or a pixel buffer may take */
  long marker_bytes;          /* APP1 and APP2 bytes the caller saw before the first scan */
  int (*proceed)(void *);     /* asked between rows: 0 stops */
  void *context;
  int error;                  /* the errno of a failed write */
  int planar;                 /* in: the planar way (planar.h) may be tried; out: it made it */
};

struct imgcache_jpeg_failure {
  struct jpeg_error_mgr manager;
  jmp_buf jump;
};

static void imgcache_jpeg_fail(j_common_ptr info) {
  longjmp(((struct imgcache_jpeg_failure *)info->err)->jump, 1);
}
static void imgcache_jpeg_message(j_common_ptr info, int level) {
  if (level < 0) imgcache_jpeg_fail(info);
}
static void imgcache_jpeg_quiet(j_common_ptr info) { (void)info; }

static inline void imgcache_jpeg_errors(const struct imgcache_jpeg *api,
                                        struct imgcache_jpeg_failure *failure) {
  api->std_error(&failure->manager);
  failure->manager.error_exit = imgcache_jpeg_fail;
  failure->manager.emit_message = imgcache_jpeg_message;
  failure->manager.output_message = imgcache_jpeg_quiet;
}

/* Whether the APP1 and APP2 segments libjpeg saw are the ones the caller's walk decided on
 * (their total length; none an ICC profile): the file may have been replaced since. */
static inline int imgcache_jpeg_markers_agree(const struct imgcache_jpeg_job *job,
                                              j_decompress_ptr info) {
  long total = 0;
  for (jpeg_saved_marker_ptr marker = info->marker_list; marker != NULL; marker = marker->next) {
    total += (long)marker->original_length;
    if (marker->marker == JPEG_APP0 + 2 && marker->data_length >= 11 &&
        memcmp(marker->data, "ICC_PROFILE", 11) == 0)
      return 0;
  }
  return total == job->marker_bytes;
}

/* Creates the decompression `info` of `data` (the APP1 and APP2 segments kept) and reads its
 * header: whether it is the image the caller's walk decided on, its segments and size. Called
 * under the caller's setjmp. */
static inline int imgcache_jpeg_open(const struct imgcache_jpeg *api,
                                     const struct imgcache_jpeg_job *job, j_decompress_ptr info,
                                     const unsigned char *data, size_t length) {
  api->create_decompress(info, JPEG_LIB_VERSION, sizeof *info);
  api->mem_src(info, data, (unsigned long)length);
  api->save_markers(info, JPEG_APP0 + 1, 0xFFFF);
  api->save_markers(info, JPEG_APP0 + 2, 0xFFFF);
  api->read_header(info, TRUE);
  return imgcache_jpeg_markers_agree(job, info) && (int)info->image_width == job->source_width &&
         (int)info->image_height == job->source_height;
}

/* A growing buffer libjpeg writes into, owned here (libjpeg's own memory destination forgets
 * its buffer when an error ends the compression after the buffer has grown). */
struct imgcache_jpeg_destination {
  struct jpeg_destination_mgr manager;
  unsigned char *data;
  size_t size, length;
};

static void imgcache_jpeg_destination_start(j_compress_ptr info) {
  struct imgcache_jpeg_destination *destination = (struct imgcache_jpeg_destination *)info->dest;
  destination->manager.next_output_byte = destination->data;
  destination->manager.free_in_buffer = destination->size;
}

static boolean imgcache_jpeg_destination_grow(j_compress_ptr info) {
  struct imgcache_jpeg_destination *destination = (struct imgcache_jpeg_destination *)info->dest;
  unsigned char *grown = realloc(destination->data, destination->size * 2);
  if (grown == NULL) imgcache_jpeg_fail((j_common_ptr)info);
  destination->manager.next_output_byte = grown + destination->size;
  destination->manager.free_in_buffer = destination->size;
  destination->data = grown;
  destination->size *= 2;
  return TRUE;
}

static void imgcache_jpeg_destination_end(j_compress_ptr info) {
  struct imgcache_jpeg_destination *destination = (struct imgcache_jpeg_destination *)info->dest;
  destination->length = destination->size - destination->manager.free_in_buffer;
}

/* Makes `output` the destination of the compression `info`. */
static inline void imgcache_jpeg_destination_attach(j_compress_ptr info,
                                                    struct imgcache_jpeg_destination *output) {
  output->manager.init_destination = imgcache_jpeg_destination_start;
  output->manager.empty_output_buffer = imgcache_jpeg_destination_grow;
  output->manager.term_destination = imgcache_jpeg_destination_end;
  info->dest = &output->manager;
}

/* Creates the compression `info` of the job's crop into `output`, `components` samples of
 * `space` a pixel, set as libvips' jpegsave sets it: the job's quality, optimised Huffman
 * tables, no JFIF marker (and libjpeg's 4:2:0 for colour). Called under the caller's setjmp. */
static inline void imgcache_jpeg_create(const struct imgcache_jpeg *api,
                                        const struct imgcache_jpeg_job *job, j_compress_ptr info,
                                        struct imgcache_jpeg_destination *output, int components,
                                        J_COLOR_SPACE space) {
  api->create_compress(info, JPEG_LIB_VERSION, sizeof *info);
  imgcache_jpeg_destination_attach(info, output);
  info->image_width = (JDIMENSION)job->crop_width;
  info->image_height = (JDIMENSION)job->crop_height;
  info->input_components = components;
  info->in_color_space = space;
  api->set_defaults(info);
  api->set_quality(info, job->quality, TRUE);
  info->optimize_coding = TRUE;
  info->write_JFIF_header = FALSE;
}

/* Writes `length` bytes of `data` to the job's descriptor. */
static inline int imgcache_jpeg_write(struct imgcache_jpeg_job *job, const unsigned char *data,
                                      size_t length) {
  size_t done = 0;
  while (done < length) {
    ssize_t wrote = write(job->descriptor, data + done, length - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote <= 0) {
      job->error = wrote < 0 ? errno : EIO;
      return IMGCACHE_JPEG_FAILED;
    }
    done += (size_t)wrote;
  }
  return IMGCACHE_JPEG_DONE;
}

#include "interleaved.h"
#include "planar.h"

/* Runs `job`: decode at its shrink, resize, crop, encode, write. Nothing is written unless
 * every step before the write succeeded. */
static inline int imgcache_jpeg_thumbnail(const struct imgcache_jpeg *api,
                                          struct imgcache_jpeg_job *job) {
  if (job->shrink < 1 || job->shrink > 8 || (job->shrink & (job->shrink - 1)) != 0 ||
      job->crop_left < 0 || job->crop_top < 0 || job->crop_width < 1 || job->crop_height < 1 ||
      job->crop_width > job->width - job->crop_left ||
      job->crop_height > job->height - job->crop_top)
    return IMGCACHE_JPEG_DECLINED;
  if (job->data == NULL || job->length == 0 || job->length > job->max_bytes)
    return IMGCACHE_JPEG_DECLINED;
  struct imgcache_jpeg_destination output = {{0}, NULL, 64 * 1024, 0};
  if ((output.data = malloc(output.size)) == NULL) return IMGCACHE_JPEG_DECLINED;
  int status = job->planar && imgcache_jpeg_planar_job(job)
                   ? imgcache_jpeg_planar(api, job, job->data, job->length, &output)
                   : IMGCACHE_JPEG_NOT_PLANAR;
  job->planar = status != IMGCACHE_JPEG_NOT_PLANAR;
  if (!job->planar) status = imgcache_jpeg_interleaved(api, job, job->data, job->length, &output);
  if (status == IMGCACHE_JPEG_DONE) status = imgcache_jpeg_write(job, output.data, output.length);
  free(output.data);
  return status;
}

#endif
