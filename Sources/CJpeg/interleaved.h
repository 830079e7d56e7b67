#ifndef IMGCACHE_CJPEG_INTERLEAVED_H
#define IMGCACHE_CJPEG_INTERLEAVED_H

/*
 * The direct path's BGRX way (docs/design.md, Variants): the JPEG decoded to BGRX (or grey),
 * resized by libyuv, its crop encoded from BGRX. Every image the planar way (planar.h) does
 * not take goes this way. Included by shim.h, whose helpers it uses.
 */

/* Pixels in memory: `channels` 1 (grey) or 4 (B, G, R, X: libyuv's ARGB). */
struct imgcache_jpeg_pixels {
  unsigned char *data;
  int width, height, channels;
};

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
  int agrees = imgcache_jpeg_open(api, job, &info, data, length);
  int channels = imgcache_jpeg_channels(&info);
  int status = IMGCACHE_JPEG_DECLINED;
  if (channels > 0 && agrees) {
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
  if (pixels->channels == 1) {
    api->plane_scale(pixels->data, source, pixels->width, pixels->height, resized->data,
                     (int)stride, job->width, job->height, IMGCACHE_YUV_FILTER_BOX);
    return IMGCACHE_JPEG_DONE;
  }
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

/* Encodes the job's crop of `pixels` into `output` (its `data` freed by the caller), as libvips'
 * jpegsave would: no JFIF marker, optimised Huffman tables, 4:2:0 chroma below quality 90,
 * 4:4:4 from it. */
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
  imgcache_jpeg_create(api, job, &info, output, pixels->channels,
                       pixels->channels == 1 ? JCS_GRAYSCALE : JCS_EXT_BGRX);
  if (pixels->channels > 1 && job->quality >= 90)
    info.comp_info[0].h_samp_factor = info.comp_info[0].v_samp_factor = 1;
  api->start_compress(&info, TRUE);
  int status = imgcache_jpeg_write_rows(api, job, &info, pixels);
  if (status == IMGCACHE_JPEG_DONE) api->finish_compress(&info);
  api->destroy_compress(&info);
  return status;
}

/* The BGRX way (or grey) for `data`: decoded, resized, cropped and encoded into `output`. */
static inline int imgcache_jpeg_interleaved(const struct imgcache_jpeg *api,
                                            struct imgcache_jpeg_job *job,
                                            const unsigned char *data, size_t length,
                                            struct imgcache_jpeg_destination *output) {
  struct imgcache_jpeg_pixels pixels, resized = {NULL, 0, 0, 0};
  int status = imgcache_jpeg_decode(api, job, data, length, &pixels);
  if (status == IMGCACHE_JPEG_DONE) {
    if (pixels.width == job->width && pixels.height == job->height) {
      resized = pixels;
      pixels.data = NULL;
    } else {
      status = imgcache_jpeg_scale(api, job, &pixels, &resized);
    }
  }
  free(pixels.data);
  if (status == IMGCACHE_JPEG_DONE) status = imgcache_jpeg_encode(api, job, &resized, output);
  free(resized.data);
  return status;
}

#endif
