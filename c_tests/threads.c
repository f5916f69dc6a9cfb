#define _POSIX_C_SOURCE 200809L /* pthreads */
/*
 * Every entry point from many threads at once, each thread on its own
 * seeded inputs, every result checked against an oracle computed here:
 * plans for soundness and arena >= a brute-force peak, peaks against that
 * brute force, reductions against Warshall's closure and edge-by-edge
 * minimality, islands against a relaxation to each component's minimum,
 * and the explain functions against the status of the call they explain.
 * The other forms are checked against those: aether_plan_offsets_with in
 * every strategy for soundness at its alignment, aether_plan_offsets_observed
 * for the same plan (its callback counting on the thread's stack), the
 * workspace forms and
 * islands_i32 for equal results, the any-order reduction on the reversed
 * numbering for the reversed result.
 *
 * Usage: threads [THREADS [ROUNDS]] (defaults 16 and 60). Prints
 * "N passed, M failed" and exits non-zero on any failure.
 */
#include "aether_planner.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_TENSORS = 48, MAX_NODES = 20, MAX_EDGES = MAX_NODES * MAX_NODES, MAX_ISLAND_NODES = 64 };

/* What one thread saw; summed after join, so no shared counters. */
struct worker {
  pthread_t thread;
  uint64_t seed;
  unsigned rounds;
  unsigned checks, failures;
  char first_failure[160];
};

static int all_bytes(const void *p, size_t n, unsigned char byte) {
  const unsigned char *c = (const unsigned char *)p;
  size_t i;
  for (i = 0; i < n; i++)
    if (c[i] != byte) return 0;
  return 1;
}

static void note(struct worker *w, int ok, const char *what, unsigned round) {
  w->checks++;
  if (!ok) {
    if (w->failures == 0)
      sprintf(w->first_failure, "seed %lu round %u: %s", (unsigned long)w->seed, round, what);
    w->failures++;
  }
}

/* A progress callback of aether_plan_offsets_observed: counts its calls
 * in the caller's counter. */
static int count_progress(const aether_search_progress *progress, void *user) {
  (void)progress;
  ++*(unsigned long *)user;
  return 0;
}

/* splitmix64, one state per thread. */
static uint64_t next(uint64_t *state) {
  uint64_t z = (*state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
static size_t below(uint64_t *state, size_t bound) { return (size_t)(next(state) % bound); }

/* ------------------------------------------------------------ oracles */

static size_t brute_peak(const aether_tensor_lifetime *t, size_t n) {
  size_t node, i, peak = 0;
  for (i = 0; i < n; i++) {
    /* The peak is reached at some tensor's first node. */
    size_t live = 0, j;
    node = t[i].first_use;
    for (j = 0; j < n; j++)
      if (t[j].first_use <= node && node <= t[j].last_use) live += t[j].size;
    if (live > peak) peak = live;
  }
  return peak;
}

static int plan_is_sound(const aether_tensor_lifetime *t, size_t n, const size_t *offsets,
                         size_t arena) {
  size_t i, j;
  for (i = 0; i < n; i++) {
    if (t[i].size == 0) {
      if (offsets[i] != 0) return 0;
      continue;
    }
    if (offsets[i] + t[i].size > arena) return 0;
    for (j = i + 1; j < n; j++) {
      int meet = t[i].first_use <= t[j].last_use && t[j].first_use <= t[i].last_use;
      int overlap = offsets[i] < offsets[j] + t[j].size && offsets[j] < offsets[i] + t[i].size;
      if (t[j].size > 0 && meet && overlap) return 0;
    }
  }
  return 1;
}

typedef unsigned char matrix[MAX_NODES][MAX_NODES];

static void closure(size_t n, const aether_edge *e, size_t m, matrix reach) {
  size_t i, j, k;
  memset(reach, 0, sizeof(matrix));
  for (i = 0; i < m; i++) reach[e[i].source][e[i].target] = 1;
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      if (reach[i][k])
        for (j = 0; j < n; j++)
          if (reach[k][j]) reach[i][j] = 1;
}

static size_t relaxed_islands(size_t n, const aether_incidence *inc, size_t m, size_t *labels) {
  size_t minimum[MAX_ISLAND_NODES], i, count = 0;
  int changed = 1;
  for (i = 0; i < n; i++) minimum[i] = SIZE_MAX;
  for (i = 0; i < m; i++) minimum[inc[i].a] = inc[i].a, minimum[inc[i].b] = inc[i].b;
  while (changed) {
    changed = 0;
    for (i = 0; i < m; i++) {
      size_t a = minimum[inc[i].a], b = minimum[inc[i].b], lo = a < b ? a : b;
      if (a != lo || b != lo) minimum[inc[i].a] = minimum[inc[i].b] = lo, changed = 1;
    }
  }
  for (i = 0; i < n; i++)
    labels[i] = minimum[i] == SIZE_MAX ? AETHER_NO_ISLAND
                : minimum[i] == i      ? count++
                                       : labels[minimum[i]];
  return count;
}

/* ------------------------------------------------------------ one round */

static void round_of_plans(struct worker *w, uint64_t *rng, unsigned r) {
  aether_tensor_lifetime t[MAX_TENSORS];
  size_t offsets[MAX_TENSORS], n = below(rng, MAX_TENSORS + 1), i, arena = 0, peak = 0;
  aether_error_detail detail;
  int broken = n > 0 && below(rng, 8) == 0;
  for (i = 0; i < n; i++) {
    size_t first = below(rng, 30);
    t[i].size = below(rng, 6) == 0 ? 0 : 1 + below(rng, 1000);
    t[i].first_use = first;
    t[i].last_use = first + below(rng, 10);
  }
  if (broken) {
    /* One backwards lifetime: INVALID_LIFETIME, named, outputs untouched. */
    size_t at = below(rng, n);
    t[at].first_use = t[at].last_use + 1;
    memset(offsets, 0x33, sizeof offsets);
    arena = 0x3333;
    note(w, aether_plan_offsets(t, n, offsets, &arena) == AETHER_STATUS_INVALID_LIFETIME,
         "plan of a backwards lifetime", r);
    note(w, arena == 0x3333 && all_bytes(offsets, sizeof offsets, 0x33), "outputs after error", r);
    note(w, aether_peak_live_bytes_explain(t, n, &detail) == AETHER_STATUS_OK &&
                detail.status == AETHER_STATUS_INVALID_LIFETIME && detail.index <= at,
         "explained backwards lifetime", r);
    return;
  }
  note(w, aether_plan_offsets(t, n, offsets, &arena) == AETHER_STATUS_OK, "plan", r);
  note(w, aether_peak_live_bytes(t, n, &peak) == AETHER_STATUS_OK, "peak", r);
  note(w, peak == brute_peak(t, n), "peak equals brute force", r);
  note(w, arena >= peak, "arena >= peak", r);
  note(w, plan_is_sound(t, n, offsets, arena), "plan is sound", r);
  note(w, aether_plan_offsets_explain(t, n, &detail) == AETHER_STATUS_OK &&
              detail.status == AETHER_STATUS_OK && detail.index == AETHER_NO_INDEX,
       "plan explained as OK", r);
  {
    size_t workspace[4 * MAX_TENSORS + 1], same[MAX_TENSORS], same_arena = 0, same_peak = 0;
    note(w, aether_plan_offsets_workspace_size(n) <= sizeof workspace &&
                aether_peak_live_bytes_workspace_size(n) <= sizeof workspace,
         "workspace sizes", r);
    note(w, aether_plan_offsets_in_workspace(t, n, workspace, sizeof workspace, same,
                                             &same_arena) == AETHER_STATUS_OK &&
                same_arena == arena && memcmp(same, offsets, n * sizeof *same) == 0,
         "workspace plan equals the plan", r);
    note(w, aether_peak_live_bytes_in_workspace(t, n, workspace, sizeof workspace, &same_peak) ==
                    AETHER_STATUS_OK &&
                same_peak == peak,
         "workspace peak equals the peak", r);
  }
  {
    aether_plan_options options;
    aether_plan_report report;
    size_t with[MAX_TENSORS], k;
    uint32_t strategy = (uint32_t)below(rng, 3);
    note(w, AETHER_PLAN_OPTIONS_INIT(&options) == AETHER_STATUS_OK, "options init", r);
    options.strategy = strategy;
    options.alignment = (size_t)1 << below(rng, 7);
    options.budget_nodes = 2000;
    report.struct_size = sizeof report;
    note(w, aether_plan_offsets_with(t, n, &options, with, &report) == AETHER_STATUS_OK &&
                report.arena_size >= peak && report.lower_bound <= report.arena_size,
         "plan with options", r);
    {
      size_t observed[MAX_TENSORS];
      aether_plan_report again;
      unsigned long calls = 0;
      again.struct_size = sizeof again;
      note(w, aether_plan_offsets_observed(t, n, &options, count_progress, &calls, observed,
                                           &again) == AETHER_STATUS_OK &&
                  again.arena_size == report.arena_size &&
                  again.search_nodes == report.search_nodes &&
                  memcmp(observed, with, n * sizeof *with) == 0,
           "observed plan equals the plan with options", r);
      note(w, strategy == AETHER_STRATEGY_SEARCH || calls == 0, "progress only from a search",
           r);
    }
    /* Sound at the alignment: rounded sizes never share a byte. */
    for (k = 0; k < n; k++) t[k].size = (t[k].size + options.alignment - 1) & ~(options.alignment - 1);
    note(w, plan_is_sound(t, n, with, report.arena_size), "plan with options is sound", r);
    for (k = 0; k < n; k++) note(w, with[k] % options.alignment == 0, "aligned offset", r);
    note(w, aether_plan_offsets_with_explain(t, n, &options, &detail) == AETHER_STATUS_OK &&
                detail.status == AETHER_STATUS_OK,
         "plan with options explained as OK", r);
  }
}

/* Sorts edges by (source, target): insertion sort, the lists are short. */
static void sort_edges(aether_edge *e, size_t m) {
  size_t i, j;
  for (i = 1; i < m; i++) {
    aether_edge x = e[i];
    for (j = i; j > 0 && (e[j - 1].source > x.source ||
                          (e[j - 1].source == x.source && e[j - 1].target > x.target));
         j--)
      e[j] = e[j - 1];
    e[j] = x;
  }
}

static void round_of_reductions(struct worker *w, uint64_t *rng, unsigned r) {
  aether_edge in[MAX_EDGES], out[MAX_EDGES], fewer[MAX_EDGES];
  matrix full, reduced, without;
  size_t n = 1 + below(rng, MAX_NODES), m = 0, u, v, count = 0, skip, i, k;
  unsigned density = (unsigned)below(rng, 60);
  aether_error_detail detail;
  for (u = 0; u < n; u++)
    for (v = u + 1; v < n; v++)
      if (below(rng, 100) < density) in[m++] = (aether_edge){u, v};
  /* Shuffle, and sometimes repeat an edge. */
  for (i = m; i > 1; i--) {
    aether_edge swap;
    k = below(rng, i);
    swap = in[i - 1], in[i - 1] = in[k], in[k] = swap;
  }
  if (m > 0 && m < MAX_EDGES && below(rng, 3) == 0) in[m] = in[below(rng, m)], m++;
  if (m > 0 && below(rng, 10) == 0) {
    /* One edge against the numbering. */
    size_t at = below(rng, m);
    aether_edge saved = in[at];
    in[at].source = in[at].target;
    memset(out, 0x33, sizeof out);
    count = 0x3333;
    note(w, aether_transitive_reduction(n, in, m, out, MAX_EDGES, &count) ==
                AETHER_STATUS_NOT_TOPOLOGICAL,
         "reduction of a self-edge", r);
    note(w, count == 0x3333 && all_bytes(out, sizeof out, 0x33), "outputs after error", r);
    note(w, aether_transitive_reduction_explain(n, in, m, &detail) == AETHER_STATUS_OK &&
                detail.status == AETHER_STATUS_NOT_TOPOLOGICAL && detail.index <= at,
         "explained self-edge", r);
    in[at] = saved;
  }
  note(w, aether_transitive_reduction(n, in, m, out, m, &count) == AETHER_STATUS_OK, "reduce", r);
  if (count > m) count = m;
  closure(n, in, m, full);
  closure(n, out, count, reduced);
  note(w, memcmp(full, reduced, sizeof full) == 0, "same reachability", r);
  for (i = 0; i + 1 < count; i++)
    note(w, out[i].source < out[i + 1].source ||
                (out[i].source == out[i + 1].source && out[i].target < out[i + 1].target),
         "sorted, each edge once", r);
  for (skip = 0; skip < count; skip++) {
    for (i = 0, k = 0; i < count; i++)
      if (i != skip) fewer[k++] = out[i];
    closure(n, fewer, k, without);
    note(w, memcmp(without, full, sizeof without) != 0, "every kept edge is needed", r);
  }
  {
    /* The workspace form gives the same result; the any-order form, on the
     * numbering reversed (x -> n - 1 - x), the result reversed. */
    size_t workspace[MAX_NODES + 2 * MAX_EDGES], same = 0, any = 0;
    aether_edge other[MAX_EDGES], reversed[MAX_EDGES], expected[MAX_EDGES];
    note(w, aether_transitive_reduction_workspace_size(n, m) <= sizeof workspace, "workspace", r);
    note(w, aether_transitive_reduction_in_workspace(n, in, m, workspace, sizeof workspace, other,
                                                     m, &same) == AETHER_STATUS_OK &&
                same == count && memcmp(other, out, count * sizeof *other) == 0,
         "workspace reduction equals the reduction", r);
    for (i = 0; i < m; i++) reversed[i] = (aether_edge){n - 1 - in[i].target, n - 1 - in[i].source};
    for (i = 0; i < count; i++)
      expected[i] = (aether_edge){n - 1 - out[i].target, n - 1 - out[i].source};
    sort_edges(expected, count);
    note(w, aether_transitive_reduction_any_order(n, reversed, m, other, m, &any) ==
                    AETHER_STATUS_OK &&
                any == count && memcmp(other, expected, count * sizeof *other) == 0,
         "any-order reduction of the reversed numbering", r);
    note(w, aether_transitive_reduction_any_order_explain(n, reversed, m, &detail) ==
                    AETHER_STATUS_OK &&
                detail.status == AETHER_STATUS_OK,
         "any-order explained as OK", r);
  }
  /* In place gives the same result. */
  {
    size_t again = 0;
    note(w, aether_transitive_reduction(n, in, m, in, m, &again) == AETHER_STATUS_OK &&
                again == count && memcmp(in, out, count * sizeof(aether_edge)) == 0,
         "in place equals out of place", r);
  }
}

static void round_of_islands(struct worker *w, uint64_t *rng, unsigned r) {
  aether_incidence inc[MAX_ISLAND_NODES * 2];
  size_t labels[MAX_ISLAND_NODES], expected[MAX_ISLAND_NODES];
  size_t n = 1 + below(rng, MAX_ISLAND_NODES), m = below(rng, 2 * n + 1), i, count = 0;
  aether_error_detail detail;
  for (i = 0; i < m; i++) inc[i].a = below(rng, n), inc[i].b = below(rng, n);
  if (m > 0 && below(rng, 10) == 0) {
    size_t at = below(rng, m);
    inc[at].b = n + below(rng, 5);
    memset(labels, 0x33, sizeof labels);
    count = 0x3333;
    note(w, aether_islands(n, inc, m, labels, &count) == AETHER_STATUS_NODE_OUT_OF_RANGE,
         "incidence out of range", r);
    note(w, count == 0x3333 && all_bytes(labels, sizeof labels, 0x33), "outputs after error", r);
    note(w, aether_islands_explain(n, inc, m, &detail) == AETHER_STATUS_OK &&
                detail.status == AETHER_STATUS_NODE_OUT_OF_RANGE && detail.index <= at,
         "explained incidence", r);
    inc[at].b = below(rng, n);
  }
  note(w, aether_islands(n, inc, m, labels, &count) == AETHER_STATUS_OK, "islands", r);
  note(w, count == relaxed_islands(n, inc, m, expected), "island count", r);
  note(w, memcmp(labels, expected, n * sizeof(size_t)) == 0, "island labels", r);
  {
    /* The engine layout: a self-incidence as (x, -1) or (-1, x). */
    int pairs[MAX_ISLAND_NODES * 4], ints[MAX_ISLAND_NODES], int_count = -1;
    int same = 1;
    for (i = 0; i < m; i++) {
      int a = (int)inc[i].a, b = (int)inc[i].b;
      if (a == b && below(rng, 2) == 0) {
        if (below(rng, 2) == 0) a = -1; else b = -1;
      }
      pairs[2 * i] = a, pairs[2 * i + 1] = b;
    }
    note(w, aether_islands_i32((int)n, pairs, (int)m, ints, &int_count) == AETHER_STATUS_OK &&
                (size_t)int_count == count,
         "islands_i32", r);
    for (i = 0; i < n; i++)
      same &= expected[i] == AETHER_NO_ISLAND ? ints[i] == -1 : (size_t)ints[i] == expected[i];
    note(w, same, "islands_i32 labels", r);
    note(w, aether_islands_i32_explain((int)n, pairs, (int)m, &detail) == AETHER_STATUS_OK &&
                detail.status == AETHER_STATUS_OK,
         "islands_i32 explained as OK", r);
  }
}

static void *work(void *arg) {
  struct worker *w = (struct worker *)arg;
  uint64_t rng = w->seed;
  unsigned r;
  for (r = 0; r < w->rounds; r++) {
    /* Threads start at different entry points, so all four run at once. */
    switch ((r + (unsigned)w->seed) % 3) {
      case 0:
        round_of_plans(w, &rng, r);
        round_of_reductions(w, &rng, r);
        round_of_islands(w, &rng, r);
        break;
      case 1:
        round_of_reductions(w, &rng, r);
        round_of_islands(w, &rng, r);
        round_of_plans(w, &rng, r);
        break;
      default:
        round_of_islands(w, &rng, r);
        round_of_plans(w, &rng, r);
        round_of_reductions(w, &rng, r);
    }
    note(w, strcmp(aether_version(), AETHER_PLANNER_VERSION_STRING) == 0, "version", r);
    note(w, aether_version_number() == AETHER_PLANNER_VERSION_NUMBER, "version number", r);
  }
  return NULL;
}

int main(int argc, char **argv) {
  unsigned thread_count = argc > 1 ? (unsigned)atoi(argv[1]) : 16;
  unsigned rounds = argc > 2 ? (unsigned)atoi(argv[2]) : 60;
  struct worker *workers;
  unsigned i, checks = 0, failures = 0, started = 0;
  if (thread_count == 0 || thread_count > 1024) thread_count = 16;
  workers = (struct worker *)calloc(thread_count, sizeof *workers);
  if (workers == NULL) return 2;
  for (i = 0; i < thread_count; i++) {
    workers[i].seed = 1000003u * (i + 1);
    workers[i].rounds = rounds;
    if (pthread_create(&workers[i].thread, NULL, work, &workers[i]) == 0) {
      started++;
    } else {
      fprintf(stderr, "could not start thread %u\n", i);
      failures++;
      workers[i].rounds = 0;
    }
  }
  for (i = 0; i < thread_count; i++) {
    if (workers[i].rounds > 0) pthread_join(workers[i].thread, NULL);
    checks += workers[i].checks;
    failures += workers[i].failures;
    if (workers[i].failures > 0) fprintf(stderr, "thread %u: %s\n", i, workers[i].first_failure);
  }
  printf("%u threads x %u rounds: %u passed, %u failed\n", started, rounds, checks - failures, failures);
  free(workers);
  return failures == 0 && started == thread_count ? 0 : 1;
}
