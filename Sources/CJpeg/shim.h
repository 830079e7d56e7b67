#ifndef IMGCACHE_CJPEG_SHIM_H
#define IMGCACHE_CJPEG_SHIM_H
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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
 * then derives the image through libvips, which decides what a damaged file is.
 * ImgCacheKit/Variants/JPEGLibrary.swift is the only importer.
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
  boolean (*finish_decompress)(j_decompress_ptr);
  void (*destroy_decompress)(j_decompress_ptr);
  void (*create_compress)(j_compress_ptr, int, size_t);
  void (*set_defaults)(j_compress_ptr);
  void (*set_quality)(j_compress_ptr, int, boolean);
  void (*start_compress)(j_compress_ptr, boolean);
  JDIMENSION (*write_scanlines)(j_compress_ptr, JSAMPARRAY, JDIMENSION);
  void (*finish_compress)(j_compress_ptr);
  void (*destroy_compress)(j_compress_ptr);
  int (*argb_scale)(const uint8_t *, int, int, int, uint8_t *, int, int, int, int);
  int (*plane_scale)(const uint8_t *, int, int, int, uint8_t *, int, int, int, int);
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
  IMGCACHE_JPEG_SYMBOL(jpeg, finish_decompress, "jpeg_finish_decompress")
  IMGCACHE_JPEG_SYMBOL(jpeg, destroy_decompress, "jpeg_destroy_decompress")
  IMGCACHE_JPEG_SYMBOL(jpeg, create_compress, "jpeg_CreateCompress")
  IMGCACHE_JPEG_SYMBOL(jpeg, set_defaults, "jpeg_set_defaults")
  IMGCACHE_JPEG_SYMBOL(jpeg, set_quality, "jpeg_set_quality")
  IMGCACHE_JPEG_SYMBOL(jpeg, start_compress, "jpeg_start_compress")
  IMGCACHE_JPEG_SYMBOL(jpeg, write_scanlines, "jpeg_write_scanlines")
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
  const char *path;
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
};

/* Pixels in memory: `channels` 1 (grey) or 4 (B, G, R, X: libyuv's ARGB). */
struct imgcache_jpeg_pixels {
  unsigned char *data;
  int width, height, channels;
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

/* The original's bytes, read whole (at most `max_bytes`); NULL when it cannot be. */
static inline unsigned char *imgcache_jpeg_read(const struct imgcache_jpeg_job *job,
                                                size_t *length) {
  int fd = open(job->path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return NULL;
  struct stat status;
  unsigned char *data = NULL;
  if (fstat(fd, &status) == 0 && status.st_size > 0 && (size_t)status.st_size <= job->max_bytes &&
      (data = malloc((size_t)status.st_size)) != NULL) {
    size_t done = 0;
    while (done < (size_t)status.st_size) {
      ssize_t got = read(fd, data + done, (size_t)status.st_size - done);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) break;
      done += (size_t)got;
    }
    if (done != (size_t)status.st_size) {
      free(data);
      data = NULL;
    }
    *length = done;
  }
  close(fd);
  return data;
}

/* Chooses grey or BGRX output for the JPEG's colour space; 0 for one this path leaves alone
 * (CMYK, YCCK, anything unusual). */
static inline int imgcache_jpeg_channels(j_decompress_ptr info) {
  if (info->num_components == 1 && info->jpeg_color_space == JCS_GRAYSCALE) {
    info->out_color_space = JCS_GRAYSCALE;
    return 1;
  }
  if (info->num_components == 3 &&
      (info->jpeg_color_space == JCS_YCbCr || info->jpeg_color_space == JCS_RGB)) {
    info->out_color_space = JCS_EXT_BGRX;
    return 4;
  }
  return 0;
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

/* Reads every row of a started decompression into `pixels`, asking `proceed` between rows. */
static inline int imgcache_jpeg_rows(const struct imgcache_jpeg *api,
                                     const struct imgcache_jpeg_job *job, j_decompress_ptr info,
                                     struct imgcache_jpeg_pixels *pixels) {
  size_t stride = (size_t)pixels->width * (size_t)pixels->channels;
  while (info->output_scanline < info->output_height) {
    if (!job->proceed(job->context)) return IMGCACHE_JPEG_STOPPED;
    JSAMPROW rows[16];
    JDIMENSION count = info->output_height - info->output_scanline;
    if (count > 16) count = 16;
    for (JDIMENSION row = 0; row < count; row++)
      rows[row] = pixels->data + (info->output_scanline + row) * stride;
    api->read_scanlines(info, rows, count);
  }
  return IMGCACHE_JPEG_DONE;
}

/* Decodes `data` at 1/`shrink` of its size into `pixels` (freed by the caller). */
static inline int imgcache_jpeg_decode(const struct imgcache_jpeg *api,
                                       const struct imgcache_jpeg_job *job,
                                       const unsigned char *data, size_t length,
                                       struct imgcache_jpeg_pixels *pixels) {
  struct jpeg_decompress_struct info;
  struct imgcache_jpeg_failure failure;
  memset(&info, 0, sizeof info);
  imgcache_jpeg_errors(api, &failure);
  info.err = &failure.manager;
  pixels->data = NULL;
  if (setjmp(failure.jump)) {
    api->destroy_decompress(&info);
    return IMGCACHE_JPEG_DECLINED;
  }
  api->create_decompress(&info, JPEG_LIB_VERSION, sizeof info);
  api->mem_src(&info, data, (unsigned long)length);
  api->save_markers(&info, JPEG_APP0 + 1, 0xFFFF);
  api->save_markers(&info, JPEG_APP0 + 2, 0xFFFF);
  api->read_header(&info, TRUE);
  int channels = imgcache_jpeg_channels(&info);
  int status = IMGCACHE_JPEG_DECLINED;
  if (channels > 0 && imgcache_jpeg_markers_agree(job, &info) &&
      (int)info.image_width == job->source_width &&
      (int)info.image_height == job->source_height) {
    info.scale_num = 1;
    info.scale_denom = (unsigned)job->shrink;
    api->start_decompress(&info);
    *pixels = (struct imgcache_jpeg_pixels){NULL, (int)info.output_width,
                                            (int)info.output_height, channels};
    size_t bytes = (size_t)pixels->width * (size_t)pixels->height * (size_t)channels;
    if (bytes <= job->max_bytes && (pixels->data = malloc(bytes)) != NULL)
      status = imgcache_jpeg_rows(api, job, &info, pixels);
    if (status == IMGCACHE_JPEG_DONE) api->finish_decompress(&info);
  }
  api->destroy_decompress(&info);
  return status;
}

/* `pixels` resized to the job's whole size (a new buffer in `resized`). */
static inline int imgcache_jpeg_scale(const struct imgcache_jpeg *api,
                                      const struct imgcache_jpeg_job *job,
                                      const struct imgcache_jpeg_pixels *pixels,
                                      struct imgcache_jpeg_pixels *resized) {
  *resized = (struct imgcache_jpeg_pixels){NULL, job->width, job->height, pixels->channels};
  size_t stride = (size_t)job->width * (size_t)pixels->channels;
  if (stride * (size_t)job->height > job->max_bytes) return IMGCACHE_JPEG_DECLINED;
  if ((resized->data = malloc(stride * (size_t)job->height)) == NULL)
    return IMGCACHE_JPEG_DECLINED;
  int source = pixels->width * pixels->channels;
  if (pixels->channels == 1)
    return api->plane_scale(pixels->data, source, pixels->width, pixels->height, resized->data,
                            (int)stride, job->width, job->height, IMGCACHE_YUV_FILTER_BOX) == 0
               ? IMGCACHE_JPEG_DONE
               : IMGCACHE_JPEG_DECLINED;
  return api->argb_scale(pixels->data, source, pixels->width, pixels->height, resized->data,
                         (int)stride, job->width, job->height, IMGCACHE_YUV_FILTER_BOX) == 0
             ? IMGCACHE_JPEG_DONE
             : IMGCACHE_JPEG_DECLINED;
}

/* Writes every row of the crop, asking `proceed` between rows. */
static inline int imgcache_jpeg_write_rows(const struct imgcache_jpeg *api,
                                           const struct imgcache_jpeg_job *job,
                                           j_compress_ptr info,
                                           const struct imgcache_jpeg_pixels *pixels) {
  size_t stride = (size_t)pixels->width * (size_t)pixels->channels;
  const unsigned char *start =
      pixels->data + (size_t)job->crop_top * stride + (size_t)job->crop_left * pixels->channels;
  while (info->next_scanline < info->image_height) {
    if (!job->proceed(job->context)) return IMGCACHE_JPEG_STOPPED;
    JSAMPROW rows[16];
    JDIMENSION count = info->image_height - info->next_scanline;
    if (count > 16) count = 16;
    for (JDIMENSION row = 0; row < count; row++)
      rows[row] = (JSAMPROW)(start + (info->next_scanline + row) * stride);
    api->write_scanlines(info, rows, count);
  }
  return IMGCACHE_JPEG_DONE;
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

/* Encodes the job's crop of `pixels` into `output` (its `data` freed by the caller), as libvips'
 * jpegsave would: no JFIF marker, optimised Huffman tables, 4:2:0 chroma below quality 90, 4:4:4 from it. */
static inline int imgcache_jpeg_encode(const struct imgcache_jpeg *api,
                                       struct imgcache_jpeg_job *job,
                                       const struct imgcache_jpeg_pixels *pixels,
                                       struct imgcache_jpeg_destination *output) {
  struct jpeg_compress_struct info;
  struct imgcache_jpeg_failure failure;
  memset(&info, 0, sizeof info);
  imgcache_jpeg_errors(api, &failure);
  info.err = &failure.manager;
  if (setjmp(failure.jump)) {
    api->destroy_compress(&info);
    return IMGCACHE_JPEG_DECLINED;
  }
  api->create_compress(&info, JPEG_LIB_VERSION, sizeof info);
  output->manager.init_destination = imgcache_jpeg_destination_start;
  output->manager.empty_output_buffer = imgcache_jpeg_destination_grow;
  output->manager.term_destination = imgcache_jpeg_destination_end;
  info.dest = &output->manager;
  info.image_width = (JDIMENSION)job->crop_width;
  info.image_height = (JDIMENSION)job->crop_height;
  info.input_components = pixels->channels;
  info.in_color_space = pixels->channels == 1 ? JCS_GRAYSCALE : JCS_EXT_BGRX;
  api->set_defaults(&info);
  api->set_quality(&info, job->quality, TRUE);
  info.optimize_coding = TRUE;
  info.write_JFIF_header = FALSE;
  if (pixels->channels > 1 && job->quality >= 90)
    info.comp_info[0].h_samp_factor = info.comp_info[0].v_samp_factor = 1;
  api->start_compress(&info, TRUE);
  int status = imgcache_jpeg_write_rows(api, job, &info, pixels);
  if (status == IMGCACHE_JPEG_DONE) api->finish_compress(&info);
  api->destroy_compress(&info);
  return status;
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

/* Runs `job`: read, decode at its shrink, resize, crop, encode, write. Nothing is written unless
 * every step before the write succeeded. */
static inline int imgcache_jpeg_thumbnail(const struct imgcache_jpeg *api,
                                          struct imgcache_jpeg_job *job) {
  if (job->shrink < 1 || job->shrink > 8 || (job->shrink & (job->shrink - 1)) != 0 ||
      job->crop_left < 0 || job->crop_top < 0 || job->crop_width < 1 || job->crop_height < 1 ||
      job->crop_width > job->width - job->crop_left ||
      job->crop_height > job->height - job->crop_top)
    return IMGCACHE_JPEG_DECLINED;
  size_t length = 0;
  unsigned char *data = imgcache_jpeg_read(job, &length);
  if (data == NULL) return IMGCACHE_JPEG_DECLINED;
  struct imgcache_jpeg_pixels pixels, resized = {NULL, 0, 0, 0};
  int status = imgcache_jpeg_decode(api, job, data, length, &pixels);
  free(data);
  if (status == IMGCACHE_JPEG_DONE) {
    if (pixels.width == job->width && pixels.height == job->height) {
      resized = pixels;
      pixels.data = NULL;
    } else {
      status = imgcache_jpeg_scale(api, job, &pixels, &resized);
    }
  }
  free(pixels.data);
  struct imgcache_jpeg_destination output = {{0}, NULL, 64 * 1024, 0};
  if (status == IMGCACHE_JPEG_DONE && (output.data = malloc(output.size)) == NULL)
    status = IMGCACHE_JPEG_DECLINED;
  if (status == IMGCACHE_JPEG_DONE) status = imgcache_jpeg_encode(api, job, &resized, &output);
  free(resized.data);
  if (status == IMGCACHE_JPEG_DONE) status = imgcache_jpeg_write(job, output.data, output.length);
  free(output.data);
  return status;
}

#endif
