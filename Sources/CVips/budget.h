#ifndef IMGCACHE_CVIPS_BUDGET_H
#define IMGCACHE_CVIPS_BUDGET_H
#include <time.h>

/* Part of shim.h (included at its end): a derivation's time budget, through libvips' own
 * cancellation. */

/* One derivation's time budget (docs/design.md, Variants): libvips' own cancellation. While
 * the image it watches is computed, libvips signals "eval" between tiles; past `deadline`
 * (monotonic seconds; 0: none) or once `cancelled` is set, from any thread, the handler sets
 * the image's kill flag and libvips stops with an error. `killed` says it did. */
struct imgcache_vips_budget {
  double deadline;
  int cancelled;
  int killed;
  void (*set_kill)(VipsImage *, int);
};

/* Seconds on the monotonic clock. */
static inline double imgcache_monotonic_seconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)now.tv_sec + (double)now.tv_nsec / 1e9;
}

/* Starts `budget`: `seconds` from now (0: no deadline), not cancelled. */
static inline void imgcache_vips_budget_start(struct imgcache_vips_budget *budget, double seconds) {
  budget->deadline = seconds > 0 ? imgcache_monotonic_seconds() + seconds : 0;
  __atomic_store_n(&budget->cancelled, 0, __ATOMIC_RELAXED);
  __atomic_store_n(&budget->killed, 0, __ATOMIC_RELAXED);
}

/* Cancels `budget` from any thread: the next "eval" kills the computation. */
static inline void imgcache_vips_budget_cancel(struct imgcache_vips_budget *budget) {
  __atomic_store_n(&budget->cancelled, 1, __ATOMIC_RELAXED);
}

/* Whether the budget's handler killed a computation. */
static inline int imgcache_vips_budget_killed(struct imgcache_vips_budget *budget) {
  return __atomic_load_n(&budget->killed, __ATOMIC_RELAXED);
}

static void imgcache_vips_budget_eval(VipsImage *image, void *progress, void *data) {
  struct imgcache_vips_budget *budget = data;
  int over = budget->deadline > 0 && imgcache_monotonic_seconds() > budget->deadline;
  if (over || __atomic_load_n(&budget->cancelled, __ATOMIC_RELAXED)) {
    __atomic_store_n(&budget->killed, 1, __ATOMIC_RELAXED);
    budget->set_kill(image, 1);
  }
}

/* Whether work under `budget` may go on: 0, and `killed` set, once it is spent or cancelled
 * (asked between rows by the direct JPEG path, which libvips' handler never sees). */
static inline int imgcache_vips_budget_proceed(void *data) {
  struct imgcache_vips_budget *budget = data;
  int over = budget->deadline > 0 && imgcache_monotonic_seconds() > budget->deadline;
  if (!over && !__atomic_load_n(&budget->cancelled, __ATOMIC_RELAXED)) return 1;
  __atomic_store_n(&budget->killed, 1, __ATOMIC_RELAXED);
  return 0;
}

/* Watches the computation of `image` with `budget`, which must outlive it. */
static inline void imgcache_vips_watch(const struct imgcache_vips *api, VipsImage *image,
                                       struct imgcache_vips_budget *budget) {
  budget->set_kill = api->image_set_kill;
  api->image_set_progress(image, 1);
  api->signal_connect_data(image, "eval", (void (*)(void))imgcache_vips_budget_eval, budget,
                           NULL, 0);
}

#endif
