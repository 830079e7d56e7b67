#ifndef IMGCACHE_CSHAREDMEMORY_SHIM_H
#define IMGCACHE_CSHAREDMEMORY_SHIM_H
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

/* A shared mapping of a file another process may truncate (docs/design.md, Politeness): a
 * load or store past the file's new end is a SIGBUS. A guarded mapping's fault is caught: the
 * handler puts anonymous zeroed memory in the mapping's place (the instruction then runs on
 * it, as on a table with nothing in it) and marks the mapping faulted, for its owner to map
 * the file again. A fault anywhere else goes to the handler that was there before (the Swift
 * runtime's backtracer, or the default: the process ends as it would have). Only
 * async-signal-safe calls in the handler: mmap, sigaction, atomics. */

#define IMGCACHE_GUARDED_MAPPINGS 64

struct imgcache_guarded_mapping {
  void *base;
  size_t length;
  int faulted;
};

struct imgcache_guard_state {
  struct imgcache_guarded_mapping mappings[IMGCACHE_GUARDED_MAPPINGS];
  struct sigaction previous;
  int installed;
};

/* The process's one state (a static of a function: Swift's importer emits it with the
 * function, where it would leave a file-scope static undefined). */
static inline struct imgcache_guard_state *imgcache_guard(void) {
  static struct imgcache_guard_state state;
  return &state;
}

static void imgcache_guard_handler(int signal, siginfo_t *info, void *context) {
  int saved = errno;
  char *address = (char *)info->si_addr;
  /* A fault (si_code > 0), not a SIGBUS another process sent: si_addr is then a pid. */
  for (int index = 0; info->si_code > 0 && index < IMGCACHE_GUARDED_MAPPINGS; index++) {
    struct imgcache_guarded_mapping *mapping = &imgcache_guard()->mappings[index];
    char *base = (char *)__atomic_load_n(&mapping->base, __ATOMIC_ACQUIRE);
    size_t length = __atomic_load_n(&mapping->length, __ATOMIC_ACQUIRE);
    if (base == NULL || address < base || address >= base + length) continue;
    void *fresh = mmap(base, length, PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
    if (fresh == MAP_FAILED) break;
    __atomic_store_n(&mapping->faulted, 1, __ATOMIC_RELEASE);
    errno = saved;
    return;
  }
  /* Not ours: the previous disposition, which a fault meets again as the instruction runs
   * again; a signal sent by another process is raised again for it. */
  sigaction(signal, &imgcache_guard()->previous, NULL);
  if (info->si_code <= 0) raise(signal);
  errno = saved;
}

/* Guards `length` bytes at `base`: the entry's index when guarded, -1 when no entry is free
 * (the mapping is then used unguarded). Installs the handler on first use, once whatever
 * the threads calling. */
static inline int imgcache_guard_mapping(void *base, size_t length) {
  struct imgcache_guard_state *state = imgcache_guard();
  int expected = 0;
  if (__atomic_compare_exchange_n(&state->installed, &expected, 2, 0, __ATOMIC_ACQ_REL,
                                  __ATOMIC_ACQUIRE)) {
    struct sigaction action;
    memset(&action, 0, sizeof action);
    action.sa_sigaction = imgcache_guard_handler;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    int done = sigaction(SIGBUS, &action, &state->previous) == 0 ? 1 : 3;
    __atomic_store_n(&state->installed, done, __ATOMIC_RELEASE);
  }
  /* Another thread installing: wait for it (a few system calls). */
  while (__atomic_load_n(&state->installed, __ATOMIC_ACQUIRE) == 2) {}
  if (__atomic_load_n(&state->installed, __ATOMIC_ACQUIRE) != 1) return -1;
  for (int index = 0; index < IMGCACHE_GUARDED_MAPPINGS; index++) {
    struct imgcache_guarded_mapping *mapping = &state->mappings[index];
    void *free_entry = NULL;
    if (!__atomic_compare_exchange_n(&mapping->base, &free_entry, base, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
      continue;
    __atomic_store_n(&mapping->faulted, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&mapping->length, length, __ATOMIC_RELEASE);
    return index;
  }
  return -1;
}

/* Stops guarding the mapping at `base` (before it is unmapped). */
static inline void imgcache_unguard_mapping(void *base) {
  for (int index = 0; index < IMGCACHE_GUARDED_MAPPINGS; index++) {
    struct imgcache_guarded_mapping *mapping = &imgcache_guard()->mappings[index];
    if (__atomic_load_n(&mapping->base, __ATOMIC_ACQUIRE) != base) continue;
    __atomic_store_n(&mapping->base, NULL, __ATOMIC_RELEASE);
    return;
  }
}

/* Whether the mapping guarded as entry `index` faulted since this was last asked (the flag
 * is cleared). */
static inline int imgcache_mapping_faulted(int index) {
  if (index < 0 || index >= IMGCACHE_GUARDED_MAPPINGS) return 0;
  return __atomic_exchange_n(&imgcache_guard()->mappings[index].faulted, 0, __ATOMIC_ACQ_REL);
}

/* Microseconds on CLOCK_BOOTTIME: one clock for every process of the machine, which no
 * setting of the wall clock moves. */
static inline long long imgcache_boot_microseconds(void) {
  struct timespec now;
  clock_gettime(CLOCK_BOOTTIME, &now);
  return (long long)now.tv_sec * 1000000LL + (long long)now.tv_nsec / 1000LL;
}

#endif
