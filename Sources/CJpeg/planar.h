#ifndef IMGCACHE_CJPEG_PLANAR_H
#define IMGCACHE_CJPEG_PLANAR_H

/*
 * The direct path's planar way (docs/design.md, Variants): a 4:2:0 YCbCr JPEG made into a 4:2:0
 * JPEG without leaving YCbCr. libjpeg hands its planes over as they are decoded
 * (`raw_data_out`) and takes the resized ones back (`raw_data_in`), and libyuv resizes each
 * plane on its own. This skips what the BGRX way pays for every pixel: the chroma upsampling
 * and the conversion to RGB on decode, and the conversion back and the chroma downsampling on
 * encode; the resize moves 1.5 bytes a pixel, not 4. Resizing commutes with the colour
 * conversion (an affine map), so the pixels are the BGRX way's but for rounding. Included by
 * shim.h, whose helpers it uses.
 */

/* Said by the planar way when the image is not for it: the BGRX way takes it. */
enum { IMGCACHE_JPEG_NOT_PLANAR = 4 };

/* One plane of samples: `width` x `height` in use, rows `stride` bytes apart, `rows` rows. */
struct imgcache_jpeg_plane {
  unsigned char *data;
  int width, height, stride, rows;
};

/* Allocates `plane`'s samples, counting them against `budget` (bytes left); 0 when over it. */
static inline int imgcache_jpeg_plane_make(struct imgcache_jpeg_plane *plane, int width,
                                           int height, int stride, int rows, size_t *budget) {
  size_t bytes = (size_t)stride * (size_t)rows;
  *plane = (struct imgcache_jpeg_plane){NULL, width, height, stride, rows};
  if (width < 1 || height < 1 || stride < width || rows < height || bytes > *budget) return 0;
  *budget -= bytes;
  return (plane->data = malloc(bytes)) != NULL;
}

static inline void imgcache_jpeg_planes_free(struct imgcache_jpeg_plane *planes, int count) {
  for (int index = 0; index < count; index++) {
    free(planes[index].data);
    planes[index].data = NULL;
  }
}

/* Whether `job` is for the planar way: written at a quality that keeps 4:2:0 (under 90), from
 * an original of even sides decoded at its whole size, resized, its crop starting on even
 * pixels. (A DCT shrink decodes the chroma at the luma's size, and an odd start halves the
 * chroma anew: the BGRX way is as fast then. An odd side has a chroma sample covering one
 * pixel, which a plane resize would stretch. An image not resized goes the BGRX way too,
 * whose chroma is libvips' to the byte.) */
static inline int imgcache_jpeg_planar_job(const struct imgcache_jpeg_job *job) {
  return job->quality < 90 && job->shrink == 1 && job->source_width % 2 == 0 &&
         job->source_height % 2 == 0 && job->crop_left % 2 == 0 && job->crop_top % 2 == 0 &&
         (job->width != job->source_width || job->height != job->source_height);
}

/* Whether a decompression whose header was read is for the planar way: YCbCr at 4:2:0 (luma
 * 2x2, each chroma 1x1). */
static inline int imgcache_jpeg_is_planar(j_decompress_ptr info) {
  if (info->num_components != 3 || info->jpeg_color_space != JCS_YCbCr) return 0;
  const jpeg_component_info *components = info->comp_info;
  return components[0].h_samp_factor == 2 && components[0].v_samp_factor == 2 &&
         components[1].h_samp_factor == 1 && components[1].v_samp_factor == 1 &&
         components[2].h_samp_factor == 1 && components[2].v_samp_factor == 1;
}

/* Reads a started raw decompression's planes into `planes`, asking `proceed` between rows of
 * blocks. Each plane holds every row libjpeg may write: whole rows of blocks. */
static inline int imgcache_jpeg_raw_rows(const struct imgcache_jpeg *api,
                                         const struct imgcache_jpeg_job *job,
                                         j_decompress_ptr info,
                                         struct imgcache_jpeg_plane *planes) {
  int lines = info->max_v_samp_factor * info->min_DCT_scaled_size;
  while (info->output_scanline < info->output_height) {
    if (!job->proceed(job->context)) return IMGCACHE_JPEG_STOPPED;
    JSAMPROW rows[3][2 * DCTSIZE];
    JSAMPARRAY arrays[3] = {rows[0], rows[1], rows[2]};
    for (int index = 0; index < 3; index++) {
      const jpeg_component_info *component = &info->comp_info[index];
      int count = component->v_samp_factor * component->DCT_scaled_size;
      int first = (int)(info->output_scanline / (JDIMENSION)lines) * count;
      for (int row = 0; row < count; row++)
        rows[index][row] = planes[index].data + (size_t)(first + row) * planes[index].stride;
    }
    if (api->read_raw_data(info, arrays, (JDIMENSION)lines) == 0) return IMGCACHE_JPEG_DECLINED;
  }
  return IMGCACHE_JPEG_DONE;
}

/* Sizes the planes of a started raw decompression and reads them. */
static inline int imgcache_jpeg_raw_planes(const struct imgcache_jpeg *api,
                                           const struct imgcache_jpeg_job *job,
                                           j_decompress_ptr info,
                                           struct imgcache_jpeg_plane *planes) {
  size_t budget = job->max_bytes;
  for (int index = 0; index < 3; index++) {
    const jpeg_component_info *component = &info->comp_info[index];
    int size = component->DCT_scaled_size;
    int count = component->v_samp_factor * size;
    if (size < 1 || size > DCTSIZE || count > 2 * DCTSIZE) return IMGCACHE_JPEG_DECLINED;
    if (!imgcache_jpeg_plane_make(&planes[index], (int)component->downsampled_width,
                                  (int)component->downsampled_height,
                                  (int)component->width_in_blocks * size,
                                  (int)info->total_iMCU_rows * count, &budget))
      return IMGCACHE_JPEG_DECLINED;
  }
  return imgcache_jpeg_raw_rows(api, job, info, planes);
}

/* Decodes `data` at 1/`shrink` into three planes (freed by the caller), or says the image is
 * not for the planar way. */
static inline int imgcache_jpeg_raw_decode(const struct imgcache_jpeg *api,
                                           const struct imgcache_jpeg_job *job,
                                           const unsigned char *data, size_t length,
                                           struct imgcache_jpeg_plane *planes) {
  struct jpeg_decompress_struct info;
  struct imgcache_jpeg_failure failure;
  memset(&info, 0, sizeof info);
  memset(planes, 0, 3 * sizeof *planes);
  imgcache_jpeg_errors(api, &failure);
  info.err = &failure.manager;
  if (setjmp(failure.jump)) {
    api->destroy_decompress(&info);
    return IMGCACHE_JPEG_DECLINED;
  }
  int status = IMGCACHE_JPEG_NOT_PLANAR;
  if (!imgcache_jpeg_open(api, job, &info, data, length)) {
    status = IMGCACHE_JPEG_DECLINED;
  } else if (imgcache_jpeg_is_planar(&info)) {
    info.out_color_space = JCS_YCbCr;
    info.raw_data_out = TRUE;
    info.scale_num = 1;
    info.scale_denom = (unsigned)job->shrink;
    api->start_decompress(&info);
    status = imgcache_jpeg_raw_planes(api, job, &info, planes);
    if (status == IMGCACHE_JPEG_DONE) api->finish_decompress(&info);
  }
  api->destroy_decompress(&info);
  return status;
}

#include "planar-encode.h"

#endif
