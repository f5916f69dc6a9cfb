/*
 * What every C test here shares: pass/fail counting with the failing
 * expression reported, and a seeded generator so every random case can be
 * replayed. Each test program includes it once.
 */
#ifndef AETHER_C_TESTS_CHECK_H
#define AETHER_C_TESTS_CHECK_H

#include "aether_planner.h"

#include <stdint.h>
#include <stdio.h>

static unsigned passed, failed;

#define CHECK(cond)                                                              \
  do {                                                                           \
    if (cond) {                                                                  \
      passed++;                                                                  \
    } else {                                                                     \
      failed++;                                                                  \
      fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond);   \
    }                                                                            \
  } while (0)

#define CHECK_STATUS(call, expected)                                              \
  do {                                                                            \
    aether_status got_ = (call);                                                  \
    if (got_ == (expected)) {                                                     \
      passed++;                                                                   \
    } else {                                                                      \
      failed++;                                                                   \
      fprintf(stderr, "%s:%d: %s returned %u (%s), expected %u (%s)\n", __FILE__, \
              __LINE__, #call, (unsigned)got_, aether_status_str(got_),           \
              (unsigned)(expected), aether_status_str(expected));                 \
    }                                                                             \
  } while (0)

/* splitmix64 over a global state: set rng_state to a seed, then draw. */
static uint64_t rng_state;
static inline uint64_t rng_next(void) {
  uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
/* Uniform in [0, bound), bound > 0. */
static inline size_t rng_below(size_t bound) { return (size_t)(rng_next() % bound); }

/* What a progress callback of an _observed entry point saw: every report,
 * in order, up to MAX_SEEN, and how many calls there were. */
enum { MAX_SEEN = 4096 };
typedef struct {
  aether_search_progress seen[MAX_SEEN];
  size_t count, calls;
} progress_log;

static inline int log_progress(const aether_search_progress *progress, void *user) {
  progress_log *log = (progress_log *)user;
  if (log->count < MAX_SEEN) log->seen[log->count++] = *progress;
  log->calls++;
  return 0;
}

/* How many of the reports break the callback's promises: the first at node
 * 0, each the size of the struct with its bound at most its best arena, and
 * none going back on nodes, best arena or bound. */
static inline unsigned progress_disorder(const progress_log *log) {
  unsigned wrong = log->count > 0 && log->seen[0].nodes != 0;
  size_t k;
  for (k = 0; k < log->count; k++) {
    const aether_search_progress *p = &log->seen[k];
    if (p->struct_size != sizeof *p || p->lower_bound > p->best_arena) wrong++;
    if (k > 0 && (p->nodes < log->seen[k - 1].nodes ||
                  p->best_arena > log->seen[k - 1].best_arena ||
                  p->lower_bound < log->seen[k - 1].lower_bound))
      wrong++;
  }
  return wrong;
}

/* Prints the closing line the test runners read; the exit status. */
static inline int report(void) {
  printf("%u passed, %u failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

#endif
