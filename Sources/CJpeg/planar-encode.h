#ifndef IMGCACHE_CJPEG_PLANAR_ENCODE_H
#define IMGCACHE_CJPEG_PLANAR_ENCODE_H

/*
 * The planar way's second half (planar.h): the decoded planes resized, the job's crop taken
 * into planes of whole blocks, their edges repeated as libjpeg repeats them, and encoded.
 */

/* `source` resized to `width` x `height` into a new plane, `target`; 0 when over budget. */
static inline int imgcache_jpeg_plane_resize(const struct imgcache_jpeg *api,
                                             const struct imgcache_jpeg_plane *source,
                                             struct imgcache_jpeg_plane *target, int width,
                                             int height, size_t *budget) {
  if (!imgcache_jpeg_plane_make(target, width, height, width, height, budget)) return 0;
  api->plane_scale(source->data, source->stride, source->width, source->height, target->data,
                   target->stride, width, height, IMGCACHE_YUV_FILTER_BOX);
  return 1;
}

/* Copies `target`'s width x height of `source` from (`left`, `top`) into `target`, a plane of
 * whole blocks, and repeats its last column and row to the plane's edges (libjpeg's padding). */
static inline void imgcache_jpeg_plane_take(const struct imgcache_jpeg_plane *source, int left,
                                            int top, struct imgcache_jpeg_plane *target) {
  for (int row = 0; row < target->rows; row++) {
    unsigned char *to = target->data + (size_t)row * target->stride;
    if (row >= target->height) {
      memcpy(to, to - target->stride, (size_t)target->stride);
      continue;
    }
    memcpy(to, source->data + (size_t)(top + row) * source->stride + (size_t)left,
           (size_t)target->width);
    memset(to + target->width, to[target->width - 1], (size_t)(target->stride - target->width));
  }
}

/* `size` rounded up to a multiple of `unit`. */
static inline int imgcache_jpeg_round_up(int size, int unit) {
  return (size + unit - 1) / unit * unit;
}

/* The job's crop of the decoded `planes` in `out`: each plane resized to the whole size (the
 * chroma to half of it: a 4:2:0 image decoded whole has its chroma at half the luma's size) and
 * the crop taken (the chroma's from half the crop's origin, which is even). 0 when over
 * budget. */
static inline int imgcache_jpeg_planar_crop(const struct imgcache_jpeg *api,
                                            const struct imgcache_jpeg_job *job,
                                            const struct imgcache_jpeg_plane *planes,
                                            struct imgcache_jpeg_plane *out) {
  size_t budget = job->max_bytes;
  int width = imgcache_jpeg_round_up(job->crop_width, 16);
  int height = imgcache_jpeg_round_up(job->crop_height, 16);
  int done = 1;
  for (int index = 0; index < 3 && done; index++) {
    int half = index > 0 ? 2 : 1;
    struct imgcache_jpeg_plane whole = {NULL, 0, 0, 0, 0};
    done = imgcache_jpeg_plane_resize(api, &planes[index], &whole,
                                      (job->width + half - 1) / half,
                                      (job->height + half - 1) / half, &budget) &&
           imgcache_jpeg_plane_make(&out[index], (job->crop_width + half - 1) / half,
                                    (job->crop_height + half - 1) / half, width / half,
                                    height / half, &budget);
    if (done)
      imgcache_jpeg_plane_take(&whole, job->crop_left / half, job->crop_top / half, &out[index]);
    free(whole.data);
  }
  return done;
}

/* Writes the planes of whole blocks in `out`, asking `proceed` between rows of blocks. */
static inline int imgcache_jpeg_raw_write(const struct imgcache_jpeg *api,
                                          const struct imgcache_jpeg_job *job,
                                          j_compress_ptr info,
                                          const struct imgcache_jpeg_plane *out) {
  while (info->next_scanline < info->image_height) {
    if (!job->proceed(job->context)) return IMGCACHE_JPEG_STOPPED;
    JSAMPROW rows[3][2 * DCTSIZE];
    JSAMPARRAY arrays[3] = {rows[0], rows[1], rows[2]};
    for (int index = 0; index < 3; index++) {
      int count = index == 0 ? 2 * DCTSIZE : DCTSIZE;
      int first = (int)info->next_scanline / (2 * DCTSIZE) * count;
      for (int row = 0; row < count; row++)
        rows[index][row] = out[index].data + (size_t)(first + row) * out[index].stride;
    }
    if (api->write_raw_data(info, arrays, 2 * DCTSIZE) == 0) return IMGCACHE_JPEG_DECLINED;
  }
  return IMGCACHE_JPEG_DONE;
}

/* Encodes the planes in `out` into `output` as the BGRX way's encoder would, at 4:2:0. */
static inline int imgcache_jpeg_raw_encode(const struct imgcache_jpeg *api,
                                           const struct imgcache_jpeg_job *job,
                                           const struct imgcache_jpeg_plane *out,
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
  imgcache_jpeg_create(api, job, &info, output, 3, JCS_YCbCr);
  info.raw_data_in = TRUE;
  int status = IMGCACHE_JPEG_DECLINED;
  if (info.comp_info[0].h_samp_factor == 2 && info.comp_info[0].v_samp_factor == 2) {
    api->start_compress(&info, TRUE);
    status = imgcache_jpeg_raw_write(api, job, &info, out);
    if (status == IMGCACHE_JPEG_DONE) api->finish_compress(&info);
  }
  api->destroy_compress(&info);
  return status;
}

/* The planar way for `data`: decoded, resized, cropped and encoded into `output`; or
 * IMGCACHE_JPEG_NOT_PLANAR, having touched nothing. */
static inline int imgcache_jpeg_planar(const struct imgcache_jpeg *api,
                                       const struct imgcache_jpeg_job *job,
                                       const unsigned char *data, size_t length,
                                       struct imgcache_jpeg_destination *output) {
  struct imgcache_jpeg_plane planes[3], out[3] = {{0}, {0}, {0}};
  int status = imgcache_jpeg_raw_decode(api, job, data, length, planes);
  if (status == IMGCACHE_JPEG_DONE && !imgcache_jpeg_planar_crop(api, job, planes, out))
    status = IMGCACHE_JPEG_DECLINED;
  imgcache_jpeg_planes_free(planes, 3);
  if (status == IMGCACHE_JPEG_DONE) status = imgcache_jpeg_raw_encode(api, job, out, output);
  imgcache_jpeg_planes_free(out, 3);
  return status;
}

#endif
