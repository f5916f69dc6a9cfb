#define _POSIX_C_SOURCE 200809L /* setrlimit, clock_gettime */
/*
 * Hostile inputs from C, beyond the table in test_planner.c: node numbers at
 * SIZE_MAX, duplicate edges and incidences, self-incidences and self-edges,
 * huge node counts, sizes whose sums pass SIZE_MAX, counts whose byte length
 * overflows, and edges_out aliasing edges. After every error each output
 * buffer must be byte-for-byte what it was before the call.
 *
 * With no argument: runs every case, prints "N passed, M failed" and exits
 * non-zero on any failure.
 *
 * Resource probes, each meant for a child process (see tests/reliability.rs
 * and scripts/reliability.sh):
 *   hostile reduce <log2 node_count> <chain|one> <address-space limit MiB, 0 = none>
 *     runs one reduction (a chain touches the whole matrix, one edge almost
 *     none of it) and prints "status=<name> seconds=<s>".
 *   hostile peak <tensor_count> <address-space limit MiB>
 *     runs aether_peak_live_bytes on tensor_count zero tensors under the limit
 *     and prints "status=<name>".
 */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* ------------------------------------------------- untouched-output checks */

/* Every output of the error cases points into these, filled with a pattern
 * first so that any write is visible. Each is followed by a guard zone. */
#define POISON 0x5A
static size_t out_sizes[16], out_value, out_guard[4];
static aether_edge out_edges[16];
static aether_error_detail out_detail;

static void poison(void) {
  memset(out_sizes, POISON, sizeof out_sizes);
  memset(&out_value, POISON, sizeof out_value);
  memset(out_guard, POISON, sizeof out_guard);
  memset(out_edges, POISON, sizeof out_edges);
  memset(&out_detail, POISON, sizeof out_detail);
}

static int all_bytes(const void *p, size_t n, unsigned char byte) {
  const unsigned char *c = (const unsigned char *)p;
  size_t i;
  for (i = 0; i < n; i++)
    if (c[i] != byte) return 0;
  return 1;
}

/* Names the first output that was written, or returns 1. */
static int untouched(void) {
  const char *written = !all_bytes(out_sizes, sizeof out_sizes, POISON)        ? "out_sizes"
                        : !all_bytes(&out_value, sizeof out_value, POISON)     ? "out_value"
                        : !all_bytes(out_guard, sizeof out_guard, POISON)      ? "out_guard"
                        : !all_bytes(out_edges, sizeof out_edges, POISON)      ? "out_edges"
                        : !all_bytes(&out_detail, sizeof out_detail, POISON) ? "out_detail"
                                                                                : NULL;
  if (written != NULL) fprintf(stderr, "written: %s\n", written);
  return written == NULL;
}

/* A call that must fail with `status` and write nothing. */
#define REFUSED(call, status)     \
  do {                            \
    poison();                     \
    CHECK_STATUS(call, status);   \
    CHECK(untouched());           \
  } while (0)

/* The explanation of a failing call: the same status, and only detail_out
 * written. `index` is the element at fault or AETHER_NO_INDEX. */
#define EXPLAINED(call, want_status, want_index)                              \
  do {                                                                        \
    aether_error_detail fresh_;                                               \
    poison();                                                                 \
    CHECK_STATUS(call, AETHER_STATUS_OK);                                     \
    fresh_ = out_detail;                                                      \
    CHECK(fresh_.status == (want_status) && fresh_.index == (size_t)(want_index)); \
    memset(&out_detail, POISON, sizeof out_detail);                           \
    CHECK(untouched());                                                       \
  } while (0)

static aether_tensor_lifetime tensor(size_t size, size_t first, size_t last) {
  aether_tensor_lifetime t;
  t.size = size;
  t.first_use = first;
  t.last_use = last;
  return t;
}

static aether_edge edge(size_t source, size_t target) {
  aether_edge e;
  e.source = source;
  e.target = target;
  return e;
}

/* ------------------------------------------------------------- node numbers */

static void test_node_numbers_at_size_max(void) {
  const aether_edge to_max[2] = {{0, 1}, {0, SIZE_MAX}};
  const aether_edge from_max[2] = {{0, 1}, {SIZE_MAX, 0}};
  const aether_edge max_self[1] = {{SIZE_MAX, SIZE_MAX}};
  const aether_edge top_pair[1] = {{SIZE_MAX - 1, SIZE_MAX}};
  const aether_edge below_top[1] = {{SIZE_MAX - 65, SIZE_MAX - 64}};
  const aether_incidence inc_max[2] = {{0, 1}, {1, SIZE_MAX}};
  const aether_incidence inc_max_self[1] = {{SIZE_MAX, SIZE_MAX}};

  /* A target at SIZE_MAX is beyond any node_count. */
  REFUSED(aether_transitive_reduction(4, to_max, 2, out_edges, 16, &out_value),
          AETHER_STATUS_NODE_OUT_OF_RANGE);
  EXPLAINED(aether_transitive_reduction_explain(4, to_max, 2, &out_detail),
            AETHER_STATUS_NODE_OUT_OF_RANGE, 1);
  REFUSED(aether_transitive_reduction(SIZE_MAX, to_max, 2, out_edges, 16, &out_value),
          AETHER_STATUS_NODE_OUT_OF_RANGE);
  /* Backwards and out of range at once: reported as backwards (ffi docs). */
  REFUSED(aether_transitive_reduction(4, from_max, 2, out_edges, 16, &out_value),
          AETHER_STATUS_NOT_TOPOLOGICAL);
  EXPLAINED(aether_transitive_reduction_explain(4, from_max, 2, &out_detail),
            AETHER_STATUS_NOT_TOPOLOGICAL, 1);
  REFUSED(aether_transitive_reduction(SIZE_MAX, max_self, 1, out_edges, 16, &out_value),
          AETHER_STATUS_NOT_TOPOLOGICAL);
  /* Valid edges at the top of a huge graph: nodes on no edge cost nothing
   * (see test_known_bug_reduction_at_size_max). */
  CHECK_STATUS(aether_transitive_reduction(SIZE_MAX - 63, below_top, 1, out_edges, 16, &out_value),
               AETHER_STATUS_OK);
  CHECK(out_value == 1 && out_edges[0].source == SIZE_MAX - 65);
  EXPLAINED(aether_transitive_reduction_explain(SIZE_MAX - 63, below_top, 1, &out_detail),
            AETHER_STATUS_OK, AETHER_NO_INDEX);
  REFUSED(aether_transitive_reduction(SIZE_MAX, top_pair, 1, out_edges, 16, &out_value),
          AETHER_STATUS_NODE_OUT_OF_RANGE);

  REFUSED(aether_islands(4, inc_max, 2, out_sizes, &out_value), AETHER_STATUS_NODE_OUT_OF_RANGE);
  EXPLAINED(aether_islands_explain(4, inc_max, 2, &out_detail), AETHER_STATUS_NODE_OUT_OF_RANGE,
            1);
  REFUSED(aether_islands(16, inc_max_self, 1, out_sizes, &out_value),
          AETHER_STATUS_NODE_OUT_OF_RANGE);
  EXPLAINED(aether_islands_explain(16, inc_max_self, 1, &out_detail),
            AETHER_STATUS_NODE_OUT_OF_RANGE, 0);
}

static void test_lifetimes_at_size_max(void) {
  /* Node numbers of lifetimes are plain numbers: SIZE_MAX is a valid node. */
  const aether_tensor_lifetime far[3] = {
      tensor(16, SIZE_MAX, SIZE_MAX), tensor(8, 0, SIZE_MAX), tensor(4, SIZE_MAX - 1, SIZE_MAX - 1)};
  const aether_tensor_lifetime reversed[2] = {tensor(1, 0, 0), tensor(1, SIZE_MAX, 0)};
  size_t offsets[3], arena = 0, peak = 0;

  CHECK_STATUS(aether_peak_live_bytes(far, 3, &peak), AETHER_STATUS_OK);
  CHECK(peak == 24); /* tensors 0 and 1 are live together at node SIZE_MAX */
  CHECK_STATUS(aether_plan_offsets(far, 3, offsets, &arena), AETHER_STATUS_OK);
  CHECK(arena >= peak);
  /* Tensor 1 intersects both others; 0 and 2 never meet. */
  CHECK(offsets[1] + 8 <= offsets[0] || offsets[0] + 16 <= offsets[1]);
  CHECK(offsets[1] + 8 <= offsets[2] || offsets[2] + 4 <= offsets[1]);

  REFUSED(aether_plan_offsets(reversed, 2, out_sizes, &out_value), AETHER_STATUS_INVALID_LIFETIME);
  REFUSED(aether_peak_live_bytes(reversed, 2, &out_value), AETHER_STATUS_INVALID_LIFETIME);
  EXPLAINED(aether_peak_live_bytes_explain(reversed, 2, &out_detail),
            AETHER_STATUS_INVALID_LIFETIME, 1);
}

/* ------------------------------------------------------ sums past SIZE_MAX */

static void test_sizes_summing_past_size_max(void) {
  const size_t half = SIZE_MAX / 2 + 1; /* two of these pass SIZE_MAX by one */
  const aether_tensor_lifetime live_together[3] = {
      tensor(1, 0, 0), tensor(half, 0, 2), tensor(half, 2, 3)};
  const aether_tensor_lifetime three_thirds[3] = {
      tensor(SIZE_MAX / 3 + 1, 0, 5), tensor(SIZE_MAX / 3 + 1, 1, 4), tensor(SIZE_MAX / 3 + 1, 2, 3)};
  /* Each alone is the whole address space, but they never meet. */
  const aether_tensor_lifetime apart[3] = {
      tensor(SIZE_MAX, 0, 0), tensor(SIZE_MAX, 1, 1), tensor(SIZE_MAX, 2, 2)};
  /* Exactly SIZE_MAX together: fits. */
  const aether_tensor_lifetime exact[2] = {tensor(SIZE_MAX - 100, 0, 1), tensor(100, 1, 2)};
  /* SIZE_MAX - 100 and 101 live together: one past. */
  const aether_tensor_lifetime one_past[2] = {tensor(SIZE_MAX - 100, 0, 1), tensor(101, 1, 2)};
  size_t offsets[3], arena = 0, peak = 0;

  REFUSED(aether_peak_live_bytes(live_together, 3, &out_value), AETHER_STATUS_OVERFLOW);
  REFUSED(aether_plan_offsets(live_together, 3, out_sizes, &out_value), AETHER_STATUS_OVERFLOW);
  REFUSED(aether_peak_live_bytes(three_thirds, 3, &out_value), AETHER_STATUS_OVERFLOW);
  REFUSED(aether_plan_offsets(three_thirds, 3, out_sizes, &out_value), AETHER_STATUS_OVERFLOW);
  REFUSED(aether_plan_offsets(one_past, 2, out_sizes, &out_value), AETHER_STATUS_OVERFLOW);
  REFUSED(aether_peak_live_bytes(one_past, 2, &out_value), AETHER_STATUS_OVERFLOW);
  EXPLAINED(aether_plan_offsets_explain(one_past, 2, &out_detail), AETHER_STATUS_OVERFLOW, 1);

  CHECK_STATUS(aether_peak_live_bytes(apart, 3, &peak), AETHER_STATUS_OK);
  CHECK(peak == SIZE_MAX);
  CHECK_STATUS(aether_plan_offsets(apart, 3, offsets, &arena), AETHER_STATUS_OK);
  CHECK(arena == SIZE_MAX && offsets[0] == 0 && offsets[1] == 0 && offsets[2] == 0);

  CHECK_STATUS(aether_peak_live_bytes(exact, 2, &peak), AETHER_STATUS_OK);
  CHECK(peak == SIZE_MAX);
  CHECK_STATUS(aether_plan_offsets(exact, 2, offsets, &arena), AETHER_STATUS_OK);
  CHECK(arena == SIZE_MAX);
  CHECK(offsets[0] + (SIZE_MAX - 100) <= offsets[1] || offsets[1] + 100 <= offsets[0]);
}

/* --------------------------------------------- count * sizeof overflowing */

static void test_byte_lengths_that_cannot_exist(void) {
  const aether_tensor_lifetime one_tensor[1] = {{8, 0, 0}};
  const aether_edge one_edge[1] = {{0, 1}};
  const aether_incidence one_incidence[1] = {{0, 1}};
  /* The smallest counts whose byte length passes SIZE_MAX, and PTRDIFF_MAX. */
  const size_t tensors_wrap = SIZE_MAX / sizeof(aether_tensor_lifetime) + 1;
  const size_t pairs_wrap = SIZE_MAX / sizeof(aether_edge) + 1;
  const size_t pairs_past_ptrdiff = (SIZE_MAX / 2) / sizeof(aether_edge) + 1;
  const size_t words_past_ptrdiff = (SIZE_MAX / 2) / sizeof(size_t) + 1;

  REFUSED(aether_plan_offsets(one_tensor, tensors_wrap, out_sizes, &out_value),
          AETHER_STATUS_OVERFLOW);
  REFUSED(aether_peak_live_bytes(one_tensor, tensors_wrap, &out_value), AETHER_STATUS_OVERFLOW);
  EXPLAINED(aether_peak_live_bytes_explain(one_tensor, tensors_wrap, &out_detail),
            AETHER_STATUS_OVERFLOW, AETHER_NO_INDEX);
  REFUSED(aether_transitive_reduction(2, one_edge, pairs_wrap, out_edges, 16, &out_value),
          AETHER_STATUS_OVERFLOW);
  REFUSED(aether_transitive_reduction(2, one_edge, pairs_past_ptrdiff, out_edges, 16, &out_value),
          AETHER_STATUS_OVERFLOW);
  REFUSED(aether_transitive_reduction(2, one_edge, 1, out_edges, pairs_wrap, &out_value),
          AETHER_STATUS_OVERFLOW);
  EXPLAINED(aether_transitive_reduction_explain(2, one_edge, pairs_wrap, &out_detail),
            AETHER_STATUS_OVERFLOW, AETHER_NO_INDEX);
  REFUSED(aether_islands(2, one_incidence, pairs_wrap, out_sizes, &out_value),
          AETHER_STATUS_OVERFLOW);
  REFUSED(aether_islands(2, one_incidence, pairs_past_ptrdiff, out_sizes, &out_value),
          AETHER_STATUS_OVERFLOW);
  EXPLAINED(aether_islands_explain(2, one_incidence, pairs_wrap, &out_detail),
            AETHER_STATUS_OVERFLOW, AETHER_NO_INDEX);
  /* node_count is labels_out's length, so it is checked as one. */
  REFUSED(aether_islands(SIZE_MAX, one_incidence, 1, out_sizes, &out_value),
          AETHER_STATUS_OVERFLOW);
  REFUSED(aether_islands(words_past_ptrdiff, one_incidence, 1, out_sizes, &out_value),
          AETHER_STATUS_OVERFLOW);
}

/* ---------------------------------------------------- huge node counts */

static void test_huge_node_counts(void) {
  const aether_edge one_edge[1] = {{0, 1}};
  size_t n;
  /* The largest labels_out length a Rust slice may have. */
  const size_t max_labels = (SIZE_MAX / 2) / sizeof(size_t);

  /* labels_out must hold node_count elements, so aether_islands itself is
   * only called with counts its checks refuse before touching it (in
   * test_byte_lengths_that_cannot_exist). */
  /* A bad incidence is found whatever the node count. */
  {
    const aether_incidence bad_later[2] = {{0, 1}, {SIZE_MAX, 3}};
    EXPLAINED(aether_islands_explain(max_labels, bad_later, 2, &out_detail),
              AETHER_STATUS_NODE_OUT_OF_RANGE, 1);
  }

  /* One edge in graphs whose full matrix would be 2^48 bytes or more: the
   * nodes on no edge cost nothing. */
  for (n = (size_t)1 << 25; sizeof(size_t) >= 8 && n != 0 && n < ((size_t)1 << 62); n <<= 3) {
    CHECK_STATUS(aether_transitive_reduction(n, one_edge, 1, out_edges, 16, &out_value),
                 AETHER_STATUS_OK);
    CHECK(out_value == 1);
  }
  CHECK_STATUS(aether_transitive_reduction(SIZE_MAX - 63, one_edge, 1, out_edges, 16, &out_value),
               AETHER_STATUS_OK);
  CHECK(out_value == 1);

  /* No edges: nothing to allocate, whatever the node count. */
  {
    size_t count = 77;
    CHECK_STATUS(aether_transitive_reduction(SIZE_MAX, NULL, 0, NULL, 0, &count), AETHER_STATUS_OK);
    CHECK(count == 0);
  }
}

/* ------------------------------------------- duplicates and self-loops */

static void test_duplicate_edges(void) {
  /* Every edge three times, with the bypass 0 -> 2 too. */
  const aether_edge dup[9] = {{0, 1}, {1, 2}, {0, 2}, {0, 1}, {0, 2}, {1, 2}, {1, 2}, {0, 1}, {0, 2}};
  const aether_edge only_dups[4] = {{3, 5}, {3, 5}, {3, 5}, {3, 5}};
  aether_edge out[9];
  size_t count = 0;
  CHECK_STATUS(aether_transitive_reduction(3, dup, 9, out, 9, &count), AETHER_STATUS_OK);
  CHECK(count == 2);
  CHECK(out[0].source == 0 && out[0].target == 1 && out[1].source == 1 && out[1].target == 2);
  /* Capacity equal to the result suffices even when edge_count is larger. */
  CHECK_STATUS(aether_transitive_reduction(3, dup, 9, out, 2, &count), AETHER_STATUS_OK);
  CHECK(count == 2);
  CHECK_STATUS(aether_transitive_reduction(6, only_dups, 4, out, 1, &count), AETHER_STATUS_OK);
  CHECK(count == 1 && out[0].source == 3 && out[0].target == 5);
  poison();
  CHECK_STATUS(aether_transitive_reduction(3, dup, 9, out_edges, 1, &out_value),
               AETHER_STATUS_BUFFER_TOO_SMALL);
  CHECK(out_value == 2);
  memset(&out_value, POISON, sizeof out_value);
  CHECK(untouched());
}

static void test_self_edges_are_not_topological(void) {
  const aether_edge self[3] = {{0, 1}, {1, 1}, {1, 2}};
  REFUSED(aether_transitive_reduction(3, self, 3, out_edges, 16, &out_value),
          AETHER_STATUS_NOT_TOPOLOGICAL);
  EXPLAINED(aether_transitive_reduction_explain(3, self, 3, &out_detail),
            AETHER_STATUS_NOT_TOPOLOGICAL, 1);
}

static void test_self_and_duplicate_incidences(void) {
  /* Self-incidences activate singletons; repeats and both orientations of
   * one pair change nothing. */
  const aether_incidence inc[9] = {{4, 4}, {4, 4}, {1, 3}, {3, 1}, {1, 3},
                                   {6, 6}, {3, 3}, {0, 0}, {6, 6}};
  const size_t expected[8] = {0, 1, AETHER_NO_ISLAND, 1, 2, AETHER_NO_ISLAND, 3, AETHER_NO_ISLAND};
  size_t labels[8], count = 0, i;
  CHECK_STATUS(aether_islands(8, inc, 9, labels, &count), AETHER_STATUS_OK);
  CHECK(count == 4);
  for (i = 0; i < 8; i++) CHECK(labels[i] == expected[i]);
}

/* ------------------------------------------------------------ empty inputs */

static void test_empty_inputs(void) {
  aether_tensor_lifetime t[1] = {{8, 0, 0}};
  aether_edge e[1] = {{0, 1}};
  aether_incidence inc[1] = {{0, 1}};
  size_t labels[5], count = 77, i, arena = 77;
  aether_error_detail detail;

  /* Non-NULL pointers with count 0 are fine too, and read nothing. */
  CHECK_STATUS(aether_plan_offsets(t, 0, out_sizes, &arena), AETHER_STATUS_OK);
  CHECK(arena == 0);
  CHECK_STATUS(aether_transitive_reduction(2, e, 0, out_edges, 0, &count), AETHER_STATUS_OK);
  CHECK(count == 0);
  CHECK_STATUS(aether_islands(0, inc, 0, NULL, &count), AETHER_STATUS_OK);
  CHECK(count == 0);
  /* Nodes but no incidences: every node is in no island. */
  CHECK_STATUS(aether_islands(5, NULL, 0, labels, &count), AETHER_STATUS_OK);
  CHECK(count == 0);
  for (i = 0; i < 5; i++) CHECK(labels[i] == AETHER_NO_ISLAND);
  /* Zero-size tensors only. */
  {
    aether_tensor_lifetime zeros[3] = {{0, 0, 9}, {0, 3, 3}, {0, 0, 0}};
    size_t offsets[3] = {7, 7, 7}, peak = 7;
    CHECK_STATUS(aether_plan_offsets(zeros, 3, offsets, &arena), AETHER_STATUS_OK);
    CHECK(arena == 0 && offsets[0] == 0 && offsets[1] == 0 && offsets[2] == 0);
    CHECK_STATUS(aether_peak_live_bytes(zeros, 3, &peak), AETHER_STATUS_OK);
    CHECK(peak == 0);
  }
  CHECK_STATUS(aether_plan_offsets_explain(NULL, 0, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_OK && detail.index == AETHER_NO_INDEX);
  CHECK_STATUS(aether_transitive_reduction_explain(0, NULL, 0, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_OK);
  CHECK_STATUS(aether_islands_explain(0, NULL, 0, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_OK);
}

/* ------------------------------------------------------------- aliasing */

/* The documented aliasing: edges_out may be the same buffer as edges
 * (header: "the input is read fully first"). Tested here: the very same
 * pointer, and an output that overlaps the input shifted either way, on
 * success, on BUFFER_TOO_SMALL (input untouched) and on every input error. */
static void test_edges_out_aliasing_edges(void) {
  const aether_edge original[6] = {{2, 4}, {0, 1}, {1, 2}, {0, 4}, {2, 3}, {0, 2}};
  /* 0->1->2, 2->3, 2->4: 0->4 and 0->2 are implied. */
  const aether_edge expected[4] = {{0, 1}, {1, 2}, {2, 3}, {2, 4}};
  aether_edge buffer[10];
  aether_edge before[10];
  size_t count, shift;

  /* Same pointer. */
  memcpy(buffer, original, sizeof original);
  count = 0;
  CHECK_STATUS(aether_transitive_reduction(5, buffer, 6, buffer, 6, &count), AETHER_STATUS_OK);
  CHECK(count == 4 && memcmp(buffer, expected, sizeof expected) == 0);
  CHECK(memcmp(buffer + 4, original + 4, 2 * sizeof(aether_edge)) == 0); /* past count: kept */

  /* The output starts `shift` edges after the input, inside it. */
  for (shift = 1; shift <= 4; shift++) {
    memset(buffer, 0, sizeof buffer);
    memcpy(buffer, original, sizeof original);
    count = 0;
    CHECK_STATUS(aether_transitive_reduction(5, buffer, 6, buffer + shift, 6, &count),
                 AETHER_STATUS_OK);
    CHECK(count == 4 && memcmp(buffer + shift, expected, sizeof expected) == 0);
  }
  /* The output starts before the input and runs into it. */
  for (shift = 1; shift <= 4; shift++) {
    memset(buffer, 0, sizeof buffer);
    memcpy(buffer + shift, original, sizeof original);
    count = 0;
    CHECK_STATUS(aether_transitive_reduction(5, buffer + shift, 6, buffer, 6, &count),
                 AETHER_STATUS_OK);
    CHECK(count == 4 && memcmp(buffer, expected, sizeof expected) == 0);
  }

  /* Too small, in place: the count comes back, the shared buffer stays. */
  memcpy(buffer, original, sizeof original);
  memcpy(before, buffer, sizeof buffer);
  count = 0;
  CHECK_STATUS(aether_transitive_reduction(5, buffer, 6, buffer, 3, &count),
               AETHER_STATUS_BUFFER_TOO_SMALL);
  CHECK(count == 4 && memcmp(buffer, before, sizeof buffer) == 0);

  /* Input errors, in place: the shared buffer and the count stay. */
  {
    const aether_edge backwards[3] = {{0, 1}, {2, 1}, {1, 2}};
    const aether_edge too_far[3] = {{0, 1}, {1, SIZE_MAX}, {1, 2}};
    const aether_edge *bad[2];
    const aether_status why[2] = {AETHER_STATUS_NOT_TOPOLOGICAL, AETHER_STATUS_NODE_OUT_OF_RANGE};
    int k;
    bad[0] = backwards;
    bad[1] = too_far;
    for (k = 0; k < 2; k++) {
      memcpy(buffer, bad[k], 3 * sizeof(aether_edge));
      memcpy(before, buffer, sizeof buffer);
      count = 77;
      CHECK_STATUS(aether_transitive_reduction(3, buffer, 3, buffer, 3, &count), why[k]);
      CHECK(count == 77 && memcmp(buffer, before, sizeof buffer) == 0);
    }
    /* A huge node count, in place: the nodes on no edge cost nothing and
     * the result is the 5-node one. */
    memcpy(buffer, original, sizeof original);
    count = 77;
    CHECK_STATUS(aether_transitive_reduction(SIZE_MAX / 2, buffer, 6, buffer, 6, &count),
                 AETHER_STATUS_OK);
    CHECK(count == 4 && memcmp(buffer, expected, sizeof expected) == 0);
  }
}

/* ------------------------------------------------ output pointers in guard */

/* A single-value output placed right after an array output: a write past
 * the array's count would land in it. */
static void test_outputs_stay_inside_their_counts(void) {
  struct {
    size_t offsets[3];
    size_t fence[2];
  } plan;
  struct {
    aether_edge edges[2];
    aether_edge fence[2];
  } red;
  struct {
    size_t labels[4];
    size_t fence[2];
  } isl;
  const aether_tensor_lifetime t[3] = {{4, 0, 1}, {4, 1, 2}, {4, 2, 3}};
  const aether_edge e[3] = {{0, 1}, {1, 2}, {0, 2}};
  const aether_incidence inc[2] = {{0, 3}, {1, 1}};
  size_t arena, count;

  memset(&plan, POISON, sizeof plan);
  CHECK_STATUS(aether_plan_offsets(t, 3, plan.offsets, &arena), AETHER_STATUS_OK);
  CHECK(all_bytes(plan.fence, sizeof plan.fence, POISON));
  memset(&red, POISON, sizeof red);
  CHECK_STATUS(aether_transitive_reduction(3, e, 3, red.edges, 2, &count), AETHER_STATUS_OK);
  CHECK(count == 2 && all_bytes(red.fence, sizeof red.fence, POISON));
  memset(&isl, POISON, sizeof isl);
  CHECK_STATUS(aether_islands(4, inc, 2, isl.labels, &count), AETHER_STATUS_OK);
  CHECK(count == 2 && all_bytes(isl.fence, sizeof isl.fence, POISON));
}

/* ------------------------------------------------- once-found bugs, pinned */

/* Run by `hostile known-bugs` (tests/reliability.rs). node_count above
 * SIZE_MAX - 63 with at least one valid edge: the reduction once sized its
 * matrix blocks before refusing such counts, and 64 * ceil(n / 64)
 * overflowed (PANIC in debug builds). Nodes on no edge now cost nothing,
 * so these succeed. */
static void test_known_bug_reduction_at_size_max(void) {
  const aether_edge below_max[1] = {{SIZE_MAX - 2, SIZE_MAX - 1}};
  const aether_edge one_edge[1] = {{0, 1}};
  CHECK_STATUS(aether_transitive_reduction(SIZE_MAX, below_max, 1, out_edges, 16, &out_value),
               AETHER_STATUS_OK);
  CHECK(out_value == 1 && out_edges[0].target == SIZE_MAX - 1);
  EXPLAINED(aether_transitive_reduction_explain(SIZE_MAX, below_max, 1, &out_detail),
            AETHER_STATUS_OK, AETHER_NO_INDEX);
  CHECK_STATUS(aether_transitive_reduction(SIZE_MAX - 62, one_edge, 1, out_edges, 16, &out_value),
               AETHER_STATUS_OK);
  CHECK(out_value == 1);
}

/* ------------------------------------------------------- resource probes */

static void limit_address_space(unsigned long mib) {
  struct rlimit limit;
  if (mib == 0) return;
  limit.rlim_cur = limit.rlim_max = (rlim_t)mib << 20;
  if (setrlimit(RLIMIT_AS, &limit) != 0) {
    perror("setrlimit");
    exit(2);
  }
}

static double now_seconds(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *status_name(aether_status s) {
  static const char *const names[] = {"OK",       "NULL_POINTER",     "INVALID_LIFETIME",
                                      "NOT_TOPOLOGICAL", "NODE_OUT_OF_RANGE", "OVERFLOW",
                                      "BUFFER_TOO_SMALL", "OUT_OF_MEMORY",    "PANIC",
                                      "MISALIGNED_POINTER", "INVALID_ALIGNMENT", "INVALID_OPTIONS",
                                      "CYCLE", "NEGATIVE_COUNT", "DOES_NOT_FIT",
                                      "DOES_NOT_FIT_UNPROVEN", "CONFLICTING_FIXED_OFFSETS",
                                      "INVALID_GAP", "INVALID_REUSE", "MISALIGNED_FIXED_OFFSET",
                                      "OVERLAPPING_BUFFERS"};
  return s < sizeof names / sizeof names[0] ? names[s] : "UNKNOWN";
}

/* One reduction of 2^log2_nodes nodes, strict or in any order; the any-order
 * form gets the chain numbered backwards, so that it must reorder. */
static int probe_reduce(int any_order, unsigned log2_nodes, const char *shape,
                        unsigned long limit_mib) {
  const size_t n = (size_t)1 << log2_nodes;
  const int chain = strcmp(shape, "chain") == 0;
  const size_t m = chain ? n - 1 : 1;
  aether_edge *edges = (aether_edge *)malloc(m * sizeof *edges);
  size_t i, count = 0;
  double start;
  aether_status status;
  if (edges == NULL) return 2;
  for (i = 0; i < m; i++) edges[i] = chain ? edge(i, i + 1) : edge(0, n - 1);
  if (any_order)
    for (i = 0; i < m; i++) edges[i] = edge(n - 1 - edges[i].target, n - 1 - edges[i].source);
  limit_address_space(limit_mib);
  start = now_seconds();
  status = any_order ? aether_transitive_reduction_any_order(n, edges, m, edges, m, &count)
                     : aether_transitive_reduction(n, edges, m, edges, m, &count);
  printf("status=%s seconds=%.3f count=%lu\n", status_name(status), now_seconds() - start,
         (unsigned long)count);
  free(edges);
  return 0;
}

static int probe_peak(size_t tensor_count, unsigned long limit_mib) {
  aether_tensor_lifetime *tensors = (aether_tensor_lifetime *)calloc(tensor_count, sizeof *tensors);
  size_t peak = 77;
  aether_status status;
  size_t i;
  if (tensors == NULL) return 2;
  /* Touch the input so it is really resident, as a caller's would be. Node
   * indices eight apart: too sparse for a table over the nodes, so the peak
   * needs its sorted uses, the scratch this probe denies it. */
  for (i = 0; i < tensor_count; i++) {
    tensors[i].size = 1;
    tensors[i].first_use = 8 * i;
    tensors[i].last_use = 8 * i;
  }
  limit_address_space(limit_mib);
  status = aether_peak_live_bytes(tensors, tensor_count, &peak);
  printf("status=%s peak=%lu\n", status_name(status), (unsigned long)peak);
  free(tensors);
  return 0;
}

/* aether_plan_offsets_with over tensor_count tensors of one size, each live
 * at two nodes of a sliding window (a realistic, sparse conflict graph). */
static int probe_with(const char *strategy, size_t tensor_count, unsigned long limit_mib) {
  aether_tensor_lifetime *tensors = (aether_tensor_lifetime *)malloc(tensor_count * sizeof *tensors);
  size_t *offsets = (size_t *)malloc(tensor_count * sizeof *offsets);
  aether_plan_options options;
  aether_plan_report report = {.struct_size = sizeof(aether_plan_report)};
  aether_status status;
  size_t i;
  if (tensors == NULL || offsets == NULL) return 2;
  for (i = 0; i < tensor_count; i++) {
    tensors[i].size = 64 + (i % 7) * 16;
    tensors[i].first_use = i;
    tensors[i].last_use = i + 1;
  }
  memset(offsets, 0, tensor_count * sizeof *offsets);
  if (AETHER_PLAN_OPTIONS_INIT(&options) != AETHER_STATUS_OK) return 2;
  options.alignment = 64;
  options.strategy = strcmp(strategy, "search") == 0      ? AETHER_STRATEGY_SEARCH
                     : strcmp(strategy, "heuristic") == 0 ? AETHER_STRATEGY_HEURISTIC
                                                          : AETHER_STRATEGY_GREEDY;
  limit_address_space(limit_mib);
  status = aether_plan_offsets_with(tensors, tensor_count, &options, offsets, &report);
  printf("status=%s arena=%lu\n", status_name(status), (unsigned long)report.arena_size);
  free(offsets);
  free(tensors);
  return 0;
}

int main(int argc, char **argv) {
  if (argc == 5 && strcmp(argv[1], "reduce") == 0)
    return probe_reduce(0, (unsigned)atoi(argv[2]), argv[3], strtoul(argv[4], NULL, 10));
  if (argc == 5 && strcmp(argv[1], "any-order") == 0)
    return probe_reduce(1, (unsigned)atoi(argv[2]), argv[3], strtoul(argv[4], NULL, 10));
  if (argc == 5 && strcmp(argv[1], "with") == 0)
    return probe_with(argv[2], (size_t)strtoull(argv[3], NULL, 10), strtoul(argv[4], NULL, 10));
  if (argc == 4 && strcmp(argv[1], "peak") == 0)
    return probe_peak((size_t)strtoull(argv[2], NULL, 10), strtoul(argv[3], NULL, 10));
  if (argc == 2 && strcmp(argv[1], "known-bugs") == 0) {
    test_known_bug_reduction_at_size_max();
    return report();
  }
  if (argc != 1) {
    fprintf(stderr, "usage: hostile [known-bugs | reduce|any-order LOG2N chain|one LIMIT_MIB |\n"
                    "                peak COUNT LIMIT_MIB | with greedy|heuristic|search COUNT LIMIT_MIB]\n");
    return 2;
  }
  test_node_numbers_at_size_max();
  test_lifetimes_at_size_max();
  test_sizes_summing_past_size_max();
  test_byte_lengths_that_cannot_exist();
  test_huge_node_counts();
  test_duplicate_edges();
  test_self_edges_are_not_topological();
  test_self_and_duplicate_incidences();
  test_empty_inputs();
  test_edges_out_aliasing_edges();
  test_outputs_stay_inside_their_counts();
  return report();
}
