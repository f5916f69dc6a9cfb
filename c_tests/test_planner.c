/*
 * The C API exercised from C: the upstream cases, seeded random checks
 * against brute-force oracles written here, and a table of bad inputs after
 * which every output must be byte-for-byte untouched.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static aether_tensor_lifetime tensor(size_t size, size_t first, size_t last) {
  aether_tensor_lifetime t;
  t.size = size;
  t.first_use = first;
  t.last_use = last;
  return t;
}

/* ---------------------------------------------------------------- offsets */

static void check_plan(const aether_tensor_lifetime *tensors, size_t n, const size_t *expected,
                       size_t expected_arena) {
  size_t offsets[16];
  size_t arena = 0, i;
  CHECK_STATUS(aether_plan_offsets(tensors, n, offsets, &arena), AETHER_STATUS_OK);
  CHECK(arena == expected_arena);
  for (i = 0; i < n; i++) CHECK(offsets[i] == expected[i]);
}

static void test_upstream_offset_cases(void) {
  /* XNNPACK ReusesLeadingGap. */
  const aether_tensor_lifetime a[] = {tensor(100, 0, 1), tensor(80, 1, 2), tensor(60, 2, 3)};
  const size_t a_offsets[] = {0, 100, 0};
  /* XNNPACK PrefersSmallerInternalGapOverLeadingGap. */
  const aether_tensor_lifetime b[] = {tensor(100, 0, 0), tensor(90, 0, 2), tensor(80, 0, 0),
                                      tensor(70, 0, 2), tensor(60, 2, 3)};
  const size_t b_offsets[] = {0, 100, 190, 270, 190};
  /* XNNPACK PrefersLeadingGapOnEqualFit. */
  const aether_tensor_lifetime c[] = {tensor(110, 0, 0), tensor(100, 0, 2), tensor(60, 0, 0),
                                      tensor(50, 0, 0), tensor(45, 0, 2), tensor(40, 2, 3)};
  const size_t c_offsets[] = {0, 110, 210, 270, 320, 0};
  size_t peak = 0;

  check_plan(a, 3, a_offsets, 180);
  check_plan(b, 5, b_offsets, 340);
  check_plan(c, 6, c_offsets, 365);
  CHECK_STATUS(aether_peak_live_bytes(a, 3, &peak), AETHER_STATUS_OK);
  CHECK(peak == 180);
}

static int lifetimes_meet(const aether_tensor_lifetime *x, const aether_tensor_lifetime *y) {
  return x->first_use <= y->last_use && y->first_use <= x->last_use;
}

/* The live sum at every node, by brute force. */
static size_t brute_force_peak(const aether_tensor_lifetime *t, size_t n, size_t nodes) {
  size_t node, i, best = 0;
  for (node = 0; node < nodes; node++) {
    size_t live = 0;
    for (i = 0; i < n; i++)
      if (t[i].first_use <= node && node <= t[i].last_use) live += t[i].size;
    if (live > best) best = live;
  }
  return best;
}

static void test_random_plans_are_sound(void) {
  enum { MAX_TENSORS = 48 };
  aether_tensor_lifetime t[MAX_TENSORS];
  size_t offsets[MAX_TENSORS];
  uint64_t seed;
  unsigned unsound = 0, below_peak = 0, peak_wrong = 0;
  for (seed = 0; seed < 300; seed++) {
    size_t n, nodes, i, j, arena = 0, peak = 0, used = 0;
    rng_state = seed * 7919u;
    n = rng_below(MAX_TENSORS + 1);
    nodes = 1 + rng_below(40);
    for (i = 0; i < n; i++) {
      size_t x = rng_below(nodes), y = rng_below(nodes);
      t[i] = tensor(rng_below(8) == 0 ? 0 : 1 + rng_below(4096), x < y ? x : y, x < y ? y : x);
    }
    CHECK_STATUS(aether_plan_offsets(t, n, offsets, &arena), AETHER_STATUS_OK);
    CHECK_STATUS(aether_peak_live_bytes(t, n, &peak), AETHER_STATUS_OK);
    for (i = 0; i < n; i++) {
      if (offsets[i] + t[i].size > used) used = offsets[i] + t[i].size;
      for (j = i + 1; j < n; j++) {
        size_t lo = offsets[i] > offsets[j] ? offsets[i] : offsets[j];
        size_t hi_i = offsets[i] + t[i].size, hi_j = offsets[j] + t[j].size;
        size_t hi = hi_i < hi_j ? hi_i : hi_j;
        if (lifetimes_meet(&t[i], &t[j]) && lo < hi) unsound++;
      }
    }
    if (peak != brute_force_peak(t, n, nodes)) peak_wrong++;
    if (arena < peak || arena != used) below_peak++;
  }
  CHECK(unsound == 0);
  CHECK(peak_wrong == 0);
  CHECK(below_peak == 0);
}

/* -------------------------------------------------------------- reduction */

static aether_edge edge(size_t source, size_t target) {
  aether_edge e;
  e.source = source;
  e.target = target;
  return e;
}

static void test_bypass_removed_in_every_edge_order(void) {
  const aether_edge created[4] = {{0, 1}, {0, 3}, {1, 2}, {2, 3}};
  unsigned orders = 0, code;
  for (code = 0; code < 256; code++) {
    unsigned p[4], seen = 0, k;
    aether_edge in[4], out[4];
    size_t count = 0;
    for (k = 0; k < 4; k++) {
      p[k] = (code >> (2 * k)) & 3u;
      seen |= 1u << p[k];
    }
    if (seen != 15u) continue;
    orders++;
    for (k = 0; k < 4; k++) in[k] = created[p[k]];
    CHECK_STATUS(aether_transitive_reduction(4, in, 4, out, 4, &count), AETHER_STATUS_OK);
    CHECK(count == 3);
    CHECK(out[0].source == 0 && out[0].target == 1);
    CHECK(out[1].source == 1 && out[1].target == 2);
    CHECK(out[2].source == 2 && out[2].target == 3);
  }
  CHECK(orders == 24);
}

enum { MAX_NODES = 20 };

/* Warshall's closure: reach[i][j] iff a non-empty path i ~> j. */
static void closure(size_t n, const aether_edge *e, size_t m, unsigned char reach[MAX_NODES][MAX_NODES]) {
  size_t i, j, k;
  memset(reach, 0, sizeof(unsigned char) * MAX_NODES * MAX_NODES);
  for (i = 0; i < m; i++) reach[e[i].source][e[i].target] = 1;
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      if (reach[i][k])
        for (j = 0; j < n; j++)
          if (reach[k][j]) reach[i][j] = 1;
}

static void test_random_reductions_against_warshall(void) {
  enum { MAX_EDGES = MAX_NODES * MAX_NODES };
  static aether_edge in[MAX_EDGES], out[MAX_EDGES], fewer[MAX_EDGES];
  static unsigned char full[MAX_NODES][MAX_NODES], reduced[MAX_NODES][MAX_NODES],
      without[MAX_NODES][MAX_NODES];
  uint64_t seed;
  unsigned wrong_reach = 0, redundant = 0;
  for (seed = 0; seed < 200; seed++) {
    size_t n, m = 0, u, v, count = 0, skip, i, k;
    rng_state = seed * 104729u + 1;
    n = 1 + rng_below(MAX_NODES);
    for (u = 0; u < n; u++)
      for (v = u + 1; v < n; v++)
        if (rng_below(100) < 30) in[m++] = edge(u, v);
    CHECK_STATUS(aether_transitive_reduction(n, in, m, out, m, &count), AETHER_STATUS_OK);
    closure(n, in, m, full);
    closure(n, out, count, reduced);
    if (memcmp(full, reduced, sizeof full) != 0) wrong_reach++;
    for (skip = 0; skip < count; skip++) {
      for (i = 0, k = 0; i < count; i++)
        if (i != skip) fewer[k++] = out[i];
      closure(n, fewer, k, without);
      if (memcmp(without, reduced, sizeof without) == 0) redundant++;
    }
  }
  CHECK(wrong_reach == 0);
  CHECK(redundant == 0);
}

static void test_reduction_in_place(void) {
  aether_edge e[3] = {{0, 2}, {1, 2}, {0, 1}};
  size_t count = 0;
  CHECK_STATUS(aether_transitive_reduction(3, e, 3, e, 3, &count), AETHER_STATUS_OK);
  CHECK(count == 2);
  CHECK(e[0].source == 0 && e[0].target == 1);
  CHECK(e[1].source == 1 && e[1].target == 2);
}

/* ---------------------------------------------------------------- islands */

static aether_incidence incidence(size_t a, size_t b) {
  aether_incidence i;
  i.a = a;
  i.b = b;
  return i;
}

static void test_island_hand_cases(void) {
  const aether_incidence self[] = {{2, 2}};
  const aether_incidence mixed[] = {{7, 4}, {5, 3}, {6, 6}, {4, 2}};
  const size_t expected[8] = {AETHER_NO_ISLAND, AETHER_NO_ISLAND, 0, 1, 0, 1, 2, 0};
  size_t labels[8], count = 99, i;

  /* A self-incidence activates a singleton; untouched nodes stay outside. */
  CHECK_STATUS(aether_islands(4, self, 1, labels, &count), AETHER_STATUS_OK);
  CHECK(count == 1);
  CHECK(labels[0] == AETHER_NO_ISLAND && labels[1] == AETHER_NO_ISLAND);
  CHECK(labels[2] == 0 && labels[3] == AETHER_NO_ISLAND);

  CHECK_STATUS(aether_islands(8, mixed, 4, labels, &count), AETHER_STATUS_OK);
  CHECK(count == 3);
  for (i = 0; i < 8; i++) CHECK(labels[i] == expected[i]);

  CHECK_STATUS(aether_islands(0, NULL, 0, NULL, &count), AETHER_STATUS_OK);
  CHECK(count == 0);
}

/* Components by repeated relaxation to the smallest reachable node, then
 * numbered in ascending order of that smallest member. */
static size_t reference_islands(size_t n, const aether_incidence *inc, size_t m, size_t *labels) {
  size_t minimum[64], i, count = 0;
  int changed = 1;
  for (i = 0; i < n; i++) minimum[i] = SIZE_MAX;
  for (i = 0; i < m; i++) {
    minimum[inc[i].a] = inc[i].a;
    minimum[inc[i].b] = inc[i].b;
  }
  while (changed) {
    changed = 0;
    for (i = 0; i < m; i++) {
      size_t lo = minimum[inc[i].a] < minimum[inc[i].b] ? minimum[inc[i].a] : minimum[inc[i].b];
      if (minimum[inc[i].a] != lo || minimum[inc[i].b] != lo) {
        minimum[inc[i].a] = minimum[inc[i].b] = lo;
        changed = 1;
      }
    }
  }
  for (i = 0; i < n; i++) {
    if (minimum[i] == SIZE_MAX) {
      labels[i] = AETHER_NO_ISLAND;
    } else if (minimum[i] == i) {
      labels[i] = count++;
    } else {
      labels[i] = labels[minimum[i]];
    }
  }
  return count;
}

static void test_random_islands_against_reference(void) {
  aether_incidence inc[64];
  size_t labels[64], expected[64];
  uint64_t seed;
  unsigned wrong = 0;
  for (seed = 0; seed < 500; seed++) {
    size_t n, m, i, count = 0, expected_count;
    rng_state = seed * 31337u + 5;
    n = 1 + rng_below(64);
    m = rng_below(n + 1);
    for (i = 0; i < m; i++) inc[i] = incidence(rng_below(n), rng_below(n));
    CHECK_STATUS(aether_islands(n, inc, m, labels, &count), AETHER_STATUS_OK);
    expected_count = reference_islands(n, inc, m, expected);
    if (count != expected_count || memcmp(labels, expected, n * sizeof(size_t)) != 0) wrong++;
  }
  CHECK(wrong == 0);
}

/* -------------------------------------------------------------- bad input */

/* Output buffers for the bad-input table, filled with a pattern first so
 * that any write is visible. */
static size_t out_values[8], out_value;
static aether_edge out_edges[8];

static void poison(void) {
  memset(out_values, 0xA5, sizeof out_values);
  memset(&out_value, 0xA5, sizeof out_value);
  memset(out_edges, 0xA5, sizeof out_edges);
}

static int untouched(void) {
  unsigned char pattern[sizeof out_edges];
  memset(pattern, 0xA5, sizeof pattern);
  return memcmp(out_values, pattern, sizeof out_values) == 0 &&
         memcmp(&out_value, pattern, sizeof out_value) == 0 &&
         memcmp(out_edges, pattern, sizeof out_edges) == 0;
}

#define BAD(call, status)          \
  do {                             \
    poison();                      \
    CHECK_STATUS(call, status);    \
    CHECK(untouched());            \
  } while (0)

static void test_bad_inputs_leave_outputs_untouched(void) {
  const aether_tensor_lifetime good[3] = {{8, 0, 1}, {8, 1, 2}, {8, 2, 3}};
  const aether_tensor_lifetime backwards[3] = {{8, 0, 1}, {8, 1, 2}, {8, 5, 2}};
  const aether_tensor_lifetime huge[2] = {{SIZE_MAX, 0, 1}, {1, 1, 2}};
  const aether_edge chain[3] = {{0, 1}, {1, 2}, {0, 2}};
  const aether_edge back[2] = {{0, 1}, {3, 1}};
  const aether_edge far[2] = {{0, 1}, {0, 9}};
  const aether_edge path[4] = {{0, 1}, {1, 2}, {2, 3}, {0, 3}};
  const aether_incidence outside[2] = {{0, 1}, {2, 7}};
  const aether_incidence pair[1] = {{0, 1}};
  size_t too_many = SIZE_MAX / sizeof(aether_tensor_lifetime) + 1;
  aether_error_detail detail;
  unsigned char raw[64];
  const aether_tensor_lifetime *misaligned = (const aether_tensor_lifetime *)(void *)(raw + 1);

  /* NULL arrays with non-zero counts, and NULL single-value outputs. */
  BAD(aether_plan_offsets(NULL, 3, out_values, &out_value), AETHER_STATUS_NULL_POINTER);
  BAD(aether_plan_offsets(good, 3, NULL, &out_value), AETHER_STATUS_NULL_POINTER);
  BAD(aether_plan_offsets(good, 3, out_values, NULL), AETHER_STATUS_NULL_POINTER);
  BAD(aether_peak_live_bytes(NULL, 1, &out_value), AETHER_STATUS_NULL_POINTER);
  BAD(aether_peak_live_bytes(good, 3, NULL), AETHER_STATUS_NULL_POINTER);
  BAD(aether_transitive_reduction(3, NULL, 2, out_edges, 8, &out_value), AETHER_STATUS_NULL_POINTER);
  BAD(aether_transitive_reduction(3, chain, 3, NULL, 3, &out_value), AETHER_STATUS_NULL_POINTER);
  BAD(aether_transitive_reduction(3, chain, 3, out_edges, 8, NULL), AETHER_STATUS_NULL_POINTER);
  BAD(aether_islands(3, NULL, 1, out_values, &out_value), AETHER_STATUS_NULL_POINTER);
  BAD(aether_islands(3, pair, 1, NULL, &out_value), AETHER_STATUS_NULL_POINTER);
  BAD(aether_islands(3, pair, 1, out_values, NULL), AETHER_STATUS_NULL_POINTER);

  /* Invalid lifetime, named by index. */
  BAD(aether_plan_offsets(backwards, 3, out_values, &out_value), AETHER_STATUS_INVALID_LIFETIME);
  BAD(aether_peak_live_bytes(backwards, 3, &out_value), AETHER_STATUS_INVALID_LIFETIME);
  CHECK_STATUS(aether_plan_offsets_explain(backwards, 3, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_INVALID_LIFETIME && detail.index == 2);
  CHECK_STATUS(aether_peak_live_bytes_explain(backwards, 3, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_INVALID_LIFETIME && detail.index == 2);

  /* Edges against the numbering or out of range; incidences out of range. */
  BAD(aether_transitive_reduction(4, back, 2, out_edges, 8, &out_value), AETHER_STATUS_NOT_TOPOLOGICAL);
  CHECK_STATUS(aether_transitive_reduction_explain(4, back, 2, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_NOT_TOPOLOGICAL && detail.index == 1);
  BAD(aether_transitive_reduction(4, far, 2, out_edges, 8, &out_value), AETHER_STATUS_NODE_OUT_OF_RANGE);
  CHECK_STATUS(aether_transitive_reduction_explain(4, far, 2, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_NODE_OUT_OF_RANGE && detail.index == 1);
  BAD(aether_islands(5, outside, 2, out_values, &out_value), AETHER_STATUS_NODE_OUT_OF_RANGE);
  CHECK_STATUS(aether_islands_explain(5, outside, 2, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_NODE_OUT_OF_RANGE && detail.index == 1);

  /* Sizes whose end offset or live sum passes SIZE_MAX; counts whose byte
   * length cannot exist. */
  BAD(aether_plan_offsets(huge, 2, out_values, &out_value), AETHER_STATUS_OVERFLOW);
  CHECK_STATUS(aether_plan_offsets_explain(huge, 2, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_OVERFLOW && detail.index == 1);
  BAD(aether_peak_live_bytes(huge, 2, &out_value), AETHER_STATUS_OVERFLOW);
  BAD(aether_peak_live_bytes(good, too_many, &out_value), AETHER_STATUS_OVERFLOW);
  BAD(aether_plan_offsets(good, SIZE_MAX / 2, out_values, &out_value), AETHER_STATUS_OVERFLOW);

  /* An output buffer too small: the needed count comes back, edges do not. */
  poison();
  CHECK_STATUS(aether_transitive_reduction(4, path, 4, out_edges, 2, &out_value),
               AETHER_STATUS_BUFFER_TOO_SMALL);
  CHECK(out_value == 3);
  out_value = 0;
  memset(&out_value, 0xA5, sizeof out_value);
  CHECK(untouched());

  /* Huge node counts with one edge: nodes on no edge cost nothing. */
  {
    const aether_edge one[1] = {{0, 1}};
    const size_t counts[3] = {SIZE_MAX / 2, sizeof(size_t) >= 8 ? (size_t)1 << 40 : 1u << 30,
                              (size_t)1 << 31};
    int i;
    for (i = 0; i < 3; i++) {
      CHECK_STATUS(aether_transitive_reduction(counts[i], one, 1, out_edges, 8, &out_value),
                   AETHER_STATUS_OK);
      CHECK(out_value == 1 && out_edges[0].source == 0 && out_edges[0].target == 1);
    }
  }

  /* A misaligned array. */
  BAD(aether_peak_live_bytes(misaligned, 1, &out_value), AETHER_STATUS_MISALIGNED_POINTER);

  /* explain itself needs somewhere to write. */
  CHECK_STATUS(aether_plan_offsets_explain(good, 3, NULL), AETHER_STATUS_NULL_POINTER);
  CHECK_STATUS(aether_plan_offsets_explain(good, 3, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_OK && detail.index == AETHER_NO_INDEX);
  CHECK_STATUS(aether_plan_offsets_explain(NULL, 3, &detail), AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_NULL_POINTER && detail.index == AETHER_NO_INDEX);
}

static void test_empty_inputs(void) {
  size_t arena = 7, peak = 7, count = 7;
  CHECK_STATUS(aether_plan_offsets(NULL, 0, NULL, &arena), AETHER_STATUS_OK);
  CHECK(arena == 0);
  CHECK_STATUS(aether_peak_live_bytes(NULL, 0, &peak), AETHER_STATUS_OK);
  CHECK(peak == 0);
  CHECK_STATUS(aether_transitive_reduction(0, NULL, 0, NULL, 0, &count), AETHER_STATUS_OK);
  CHECK(count == 0);
}

static void test_status_strings_and_version(void) {
  char expected[32];
  uint32_t code;
  for (code = 0; code <= AETHER_STATUS_MISALIGNED_POINTER; code++) {
    const char *text = aether_status_str(code);
    CHECK(text != NULL && strlen(text) > 0);
    CHECK(strcmp(text, aether_status_str(999)) != 0);
  }
  CHECK(aether_status_str(999) != NULL);
  CHECK(aether_status_str(UINT32_MAX) != NULL);
  sprintf(expected, "%d.%d.%d", AETHER_PLANNER_VERSION_MAJOR, AETHER_PLANNER_VERSION_MINOR,
          AETHER_PLANNER_VERSION_PATCH);
  CHECK(strcmp(aether_version(), expected) == 0);
  CHECK(strcmp(aether_version(), AETHER_PLANNER_VERSION_STRING) == 0);
}

int main(void) {
  test_upstream_offset_cases();
  test_random_plans_are_sound();
  test_bypass_removed_in_every_edge_order();
  test_random_reductions_against_warshall();
  test_reduction_in_place();
  test_island_hand_cases();
  test_random_islands_against_reference();
  test_bad_inputs_leave_outputs_untouched();
  test_empty_inputs();
  test_status_strings_and_version();
  return report();
}
