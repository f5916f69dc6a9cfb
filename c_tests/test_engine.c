/*
 * The engine-native entry points from C: MuJoCo-style int islands with -1
 * static endpoints, reductions of DAGs in any numbering, and proof that the
 * island calls allocate nothing (this program counts every malloc).
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* ---- allocation counting: glibc's own allocator under the usual names ---- */
extern void *__libc_malloc(size_t size);
extern void *__libc_calloc(size_t count, size_t size);
extern void *__libc_realloc(void *ptr, size_t size);
extern void *__libc_memalign(size_t alignment, size_t size);
extern void __libc_free(void *ptr);

static volatile size_t allocations;

void *malloc(size_t size) {
  allocations++;
  return __libc_malloc(size);
}
void *calloc(size_t count, size_t size) {
  allocations++;
  return __libc_calloc(count, size);
}
void *realloc(void *ptr, size_t size) {
  allocations++;
  return __libc_realloc(ptr, size);
}
int posix_memalign(void **out, size_t alignment, size_t size) {
  allocations++;
  *out = __libc_memalign(alignment, size);
  return *out ? 0 : 12; /* ENOMEM */
}
void *aligned_alloc(size_t alignment, size_t size) {
  allocations++;
  return __libc_memalign(alignment, size);
}
void free(void *ptr) { __libc_free(ptr); }

/* ------------------------------------------------------------------------ */

enum { MAX_TREES = 48 };

/* Islands by relaxation to the smallest member, on MuJoCo pairs with -1
 * static endpoints; -1 labels for trees in no constraint. */
static int reference_islands(int n, const int *pairs, int m, int *labels) {
  int minimum[MAX_TREES], i, count = 0, changed = 1;
  for (i = 0; i < n; i++) minimum[i] = -1;
  for (i = 0; i < m; i++) {
    int a = pairs[2 * i] < 0 ? pairs[2 * i + 1] : pairs[2 * i];
    int b = pairs[2 * i + 1] < 0 ? pairs[2 * i] : pairs[2 * i + 1];
    minimum[a] = a;
    minimum[b] = b;
  }
  while (changed) {
    changed = 0;
    for (i = 0; i < m; i++) {
      int a = pairs[2 * i] < 0 ? pairs[2 * i + 1] : pairs[2 * i];
      int b = pairs[2 * i + 1] < 0 ? pairs[2 * i] : pairs[2 * i + 1];
      int lo = minimum[a] < minimum[b] ? minimum[a] : minimum[b];
      if (minimum[a] != lo || minimum[b] != lo) {
        minimum[a] = minimum[b] = lo;
        changed = 1;
      }
    }
  }
  for (i = 0; i < n; i++) {
    if (minimum[i] < 0) {
      labels[i] = -1;
    } else if (minimum[i] == i) {
      labels[i] = count++;
    } else {
      labels[i] = labels[minimum[i]];
    }
  }
  return count;
}

static void test_mujoco_islands(void) {
  /* Trees 0..5; contacts: 1-world, 4-2, world-3 is 3 alone, 2-1. */
  const int pairs[8] = {1, -1, 4, 2, -1, 3, 2, 1};
  int labels[6] = {9, 9, 9, 9, 9, 9}, count = 9;
  size_t before = allocations;
  CHECK(aether_islands_i32(6, pairs, 4, labels, &count) == AETHER_STATUS_OK);
  CHECK(allocations == before);
  CHECK(count == 2);
  CHECK(labels[0] == -1 && labels[1] == 0 && labels[2] == 0 && labels[3] == 1 && labels[4] == 0 &&
        labels[5] == -1);
  { /* The counter does see the library's allocations where it makes them. */
    const aether_edge edges[2] = {{1, 0}, {2, 1}};
    aether_edge out[2];
    size_t reduced = 0;
    before = allocations;
    CHECK(aether_transitive_reduction_any_order(3, edges, 2, out, 2, &reduced) == AETHER_STATUS_OK);
    CHECK(allocations > before);
  }
}

static void test_random_mujoco_islands_match_both_references(void) {
  int pairs[2 * MAX_TREES], labels[MAX_TREES], expected[MAX_TREES];
  aether_incidence incidences[MAX_TREES];
  size_t size_labels[MAX_TREES];
  unsigned wrong = 0, allocated = 0;
  uint64_t seed;
  for (seed = 0; seed < 400; seed++) {
    int n, m, i, count = -5, expected_count;
    size_t size_count = 0, before;
    rng_state = seed * 977u + 13;
    n = 1 + (int)rng_below(MAX_TREES);
    m = (int)rng_below((size_t)n + 1);
    for (i = 0; i < m; i++) {
      int a = (int)rng_below((size_t)n), b = (int)rng_below((size_t)n);
      /* A static endpoint now and then, on either side, never both. */
      switch (rng_below(4)) {
        case 0: pairs[2 * i] = -1; pairs[2 * i + 1] = b; break;
        case 1: pairs[2 * i] = a; pairs[2 * i + 1] = -1; break;
        default: pairs[2 * i] = a; pairs[2 * i + 1] = b; break;
      }
      incidences[i].a = (size_t)(pairs[2 * i] < 0 ? pairs[2 * i + 1] : pairs[2 * i]);
      incidences[i].b = (size_t)(pairs[2 * i + 1] < 0 ? pairs[2 * i] : pairs[2 * i + 1]);
    }
    before = allocations;
    CHECK(aether_islands_i32(n, pairs, m, labels, &count) == AETHER_STATUS_OK);
    CHECK(aether_islands((size_t)n, incidences, (size_t)m, size_labels, &size_count) ==
          AETHER_STATUS_OK);
    if (allocations != before) allocated++;
    expected_count = reference_islands(n, pairs, m, expected);
    if (count != expected_count || (size_t)count != size_count) wrong++;
    for (i = 0; i < n; i++) {
      if (labels[i] != expected[i]) wrong++;
      if ((expected[i] < 0 && size_labels[i] != AETHER_NO_ISLAND) ||
          (expected[i] >= 0 && size_labels[i] != (size_t)expected[i]))
        wrong++;
    }
  }
  CHECK(wrong == 0);
  CHECK(allocated == 0);
}

static void test_mujoco_bad_input_leaves_labels_untouched(void) {
  const int both_static[4] = {0, 1, -1, -1};
  const int below[2] = {-2, 1};
  const int beyond[2] = {0, 3};
  int labels[3] = {7, 7, 7}, count = 7;
  CHECK(aether_islands_i32(3, both_static, 2, labels, &count) == AETHER_STATUS_NODE_OUT_OF_RANGE);
  CHECK(aether_islands_i32(3, below, 1, labels, &count) == AETHER_STATUS_NODE_OUT_OF_RANGE);
  CHECK(aether_islands_i32(3, beyond, 1, labels, &count) == AETHER_STATUS_NODE_OUT_OF_RANGE);
  CHECK(aether_islands_i32(-1, beyond, 1, labels, &count) == AETHER_STATUS_NEGATIVE_COUNT);
  CHECK(aether_islands_i32(3, beyond, -4, labels, &count) == AETHER_STATUS_NEGATIVE_COUNT);
  CHECK(aether_islands_i32(3, NULL, 1, labels, &count) == AETHER_STATUS_NULL_POINTER);
  CHECK(aether_islands_i32(3, beyond, 1, labels, NULL) == AETHER_STATUS_NULL_POINTER);
  CHECK(labels[0] == 7 && labels[1] == 7 && labels[2] == 7 && count == 7);
  CHECK(aether_islands_i32(0, NULL, 0, NULL, &count) == AETHER_STATUS_OK && count == 0);
  CHECK(aether_islands_workspace_size(1000) == 0);
}

/* ----------------------------------------------------- any-order reduction */

enum { MAX_NODES = 16 };

static void closure(size_t n, const aether_edge *e, size_t m, unsigned char r[MAX_NODES][MAX_NODES]) {
  size_t i, j, k;
  memset(r, 0, MAX_NODES * MAX_NODES);
  for (i = 0; i < m; i++) r[e[i].source][e[i].target] = 1;
  for (k = 0; k < n; k++)
    for (i = 0; i < n; i++)
      if (r[i][k])
        for (j = 0; j < n; j++)
          if (r[k][j]) r[i][j] = 1;
}

static void test_any_order_reduction(void) {
  static aether_edge edges[MAX_NODES * MAX_NODES + 1], out[MAX_NODES * MAX_NODES + 1],
      fewer[MAX_NODES * MAX_NODES];
  static unsigned char full[MAX_NODES][MAX_NODES], reduced[MAX_NODES][MAX_NODES],
      without[MAX_NODES][MAX_NODES];
  unsigned wrong = 0, redundant = 0, missed_cycles = 0;
  uint64_t seed;
  for (seed = 0; seed < 200; seed++) {
    size_t n, m = 0, name[MAX_NODES], i, j, u, v, count = 0, skip, k;
    aether_error_detail detail;
    rng_state = seed * 7717u + 1;
    n = 1 + rng_below(MAX_NODES);
    for (i = 0; i < n; i++) name[i] = i;
    for (i = n - 1; i > 0; i--) {
      size_t t, r = rng_below(i + 1);
      t = name[i];
      name[i] = name[r];
      name[r] = t;
    }
    for (u = 0; u < n; u++)
      for (v = u + 1; v < n; v++)
        if (rng_below(100) < 30) {
          edges[m].source = name[u];
          edges[m].target = name[v];
          m++;
        }
    CHECK(aether_transitive_reduction_any_order(n, edges, m, out, m, &count) == AETHER_STATUS_OK);
    closure(n, edges, m, full);
    closure(n, out, count, reduced);
    if (memcmp(full, reduced, sizeof full) != 0) wrong++;
    for (skip = 0; skip < count; skip++) {
      for (i = 0, k = 0; i < count; i++)
        if (i != skip) fewer[k++] = out[i];
      closure(n, fewer, k, without);
      if (memcmp(without, reduced, sizeof without) == 0) redundant++;
    }
    /* Close a cycle: an edge back from a node to one that reaches it (or a
     * self-loop when there is none); the named node must be on a cycle. */
    edges[m].source = edges[m].target = name[0];
    for (i = 0; i < n; i++)
      for (j = 0; j < n; j++)
        if (full[j][i]) {
          edges[m].source = i;
          edges[m].target = j;
        }
    memset(out, 0xA5, sizeof out);
    CHECK(aether_transitive_reduction_any_order(n, edges, m + 1, out, m + 1, &count) ==
          AETHER_STATUS_CYCLE);
    CHECK(aether_transitive_reduction_any_order_explain(n, edges, m + 1, &detail) ==
          AETHER_STATUS_OK);
    closure(n, edges, m + 1, full);
    if (detail.status != AETHER_STATUS_CYCLE || detail.node >= n || !full[detail.node][detail.node])
      missed_cycles++;
  }
  CHECK(wrong == 0);
  CHECK(redundant == 0);
  CHECK(missed_cycles == 0);
}

/* ------------------------------------------------------ workspace variants */

static void test_workspace_variants_match_and_do_not_allocate(void) {
  enum { MAX_T = 40, MAX_N = 24, MAX_E = MAX_N * MAX_N };
  static size_t workspace[(MAX_N * MAX_N + 2 * MAX_E + 8 * MAX_T) + 64];
  static aether_tensor_lifetime t[MAX_T];
  static aether_edge edges[MAX_E], heap_out[MAX_E], ws_out[MAX_E];
  size_t heap_offsets[MAX_T], ws_offsets[MAX_T];
  unsigned differ = 0, allocated = 0;
  uint64_t seed;
  for (seed = 0; seed < 200; seed++) {
    size_t n, nodes, i, u, v, m = 0, heap_arena, ws_arena, heap_peak, ws_peak, heap_count,
        ws_count, before;
    rng_state = seed * 3571u + 7;
    n = rng_below(MAX_T + 1);
    nodes = 1 + rng_below(30);
    for (i = 0; i < n; i++) {
      size_t x = rng_below(nodes), y = rng_below(nodes);
      t[i].size = rng_below(6) == 0 ? 0 : 1 + rng_below(300);
      t[i].first_use = x < y ? x : y;
      t[i].last_use = x < y ? y : x;
    }
    nodes = 1 + rng_below(MAX_N);
    for (u = 0; u < nodes; u++)
      for (v = u + 1; v < nodes; v++)
        if (rng_below(100) < 30) {
          edges[m].source = u;
          edges[m].target = v;
          m++;
        }
    CHECK(aether_plan_offsets(t, n, heap_offsets, &heap_arena) == AETHER_STATUS_OK);
    CHECK(aether_peak_live_bytes(t, n, &heap_peak) == AETHER_STATUS_OK);
    CHECK(aether_transitive_reduction(nodes, edges, m, heap_out, m, &heap_count) ==
          AETHER_STATUS_OK);
    CHECK(aether_plan_offsets_workspace_size(n) <= sizeof workspace);
    CHECK(aether_transitive_reduction_workspace_size(nodes, m) <= sizeof workspace);

    before = allocations;
    CHECK(aether_plan_offsets_in_workspace(t, n, workspace, aether_plan_offsets_workspace_size(n),
                                           ws_offsets, &ws_arena) == AETHER_STATUS_OK);
    CHECK(aether_peak_live_bytes_in_workspace(t, n, workspace,
                                              aether_peak_live_bytes_workspace_size(n),
                                              &ws_peak) == AETHER_STATUS_OK);
    CHECK(aether_transitive_reduction_in_workspace(
              nodes, edges, m, workspace, aether_transitive_reduction_workspace_size(nodes, m),
              ws_out, m, &ws_count) == AETHER_STATUS_OK);
    if (allocations != before) allocated++;

    if (ws_arena != heap_arena || ws_peak != heap_peak || ws_count != heap_count) differ++;
    if (n > 0 && memcmp(ws_offsets, heap_offsets, n * sizeof(size_t)) != 0) differ++;
    if (ws_count == heap_count && ws_count > 0 &&
        memcmp(ws_out, heap_out, ws_count * sizeof(aether_edge)) != 0)
      differ++;
  }
  CHECK(differ == 0);
  CHECK(allocated == 0);
}

/* Past 128 tensors the workspace planner finds conflicts through its
 * max-tree (sparse tables at any size, dense ones past 8192): the same plan,
 * still without an allocation. Shapes: a chain, short random lifetimes,
 * one tensor live throughout beside short ones (a table a sampled density
 * estimate takes for dense), and a staircase of nested lifetimes (all
 * meeting at the turn, which every form stacks). */
static void test_the_workspace_planner_at_scale_matches_and_does_not_allocate(void) {
  enum { MAX_T = 9000 };
  static aether_tensor_lifetime t[MAX_T];
  static size_t workspace[4 * MAX_T], heap_offsets[MAX_T], ws_offsets[MAX_T];
  const size_t sizes[] = {129, 1000, MAX_T};
  unsigned differ = 0, allocated = 0, shape, k;
  for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    for (shape = 0; shape < 4; shape++) {
      size_t n = sizes[k], i, heap_arena, ws_arena, before;
      rng_state = 1000u * k + shape + 1;
      for (i = 0; i < n; i++) {
        size_t first = shape == 0 ? i : rng_below(n), length = shape == 0 ? 1 : rng_below(40);
        t[i].size = rng_below(9) == 0 ? 0 : 16 * (1 + rng_below(200));
        t[i].first_use = shape == 3 ? i : first;
        t[i].last_use = shape == 3 ? 2 * n - 1 - i : first + length;
      }
      if (shape == 2) {
        t[0].first_use = 0;
        t[0].last_use = n + 40;
      }
      CHECK(aether_plan_offsets(t, n, heap_offsets, &heap_arena) == AETHER_STATUS_OK);
      CHECK(aether_plan_offsets_workspace_size(n) <= sizeof workspace);
      before = allocations;
      CHECK(aether_plan_offsets_in_workspace(t, n, workspace,
                                             aether_plan_offsets_workspace_size(n), ws_offsets,
                                             &ws_arena) == AETHER_STATUS_OK);
      if (allocations != before) allocated++;
      if (ws_arena != heap_arena || memcmp(ws_offsets, heap_offsets, n * sizeof(size_t)) != 0)
        differ++;
    }
  }
  CHECK(differ == 0);
  CHECK(allocated == 0);
}

/* A training step's lifetimes for tensor i of n (n a multiple of 3): the
 * activation, temporary and gradient of layer i / 3, the activations live
 * from their forward node to their backward one. */
static void set_training_step_lifetime(aether_tensor_lifetime *t, size_t i, size_t n) {
  size_t layer = i / 3, turn = 2 * (n / 3);
  t->first_use = i % 3 == 2 ? turn - 1 - layer : layer;
  t->last_use = i % 3 == 0 ? turn - 1 - layer : i % 3 == 1 ? layer : turn - layer;
}

/* The indexed form plans as aether_plan_offsets on every shape (a training
 * step's nested activations among them, and a staircase of them alone,
 * which it stacks), with its whole stated workspace or any part of it past
 * the 4 words per tensor, and allocates nothing. */
static void test_the_indexed_workspace_planner_matches_and_does_not_allocate(void) {
  enum { MAX_T = 6000 };
  static aether_tensor_lifetime t[MAX_T];
  static size_t heap_offsets[MAX_T], ws_offsets[MAX_T];
  const size_t sizes[] = {100, 129, 1000, MAX_T};
  size_t most = aether_plan_offsets_indexed_workspace_size(MAX_T);
  size_t *workspace = malloc(most);
  unsigned differ = 0, allocated = 0, shape, k, part;
  CHECK(workspace != NULL);
  CHECK(most > aether_plan_offsets_workspace_size(MAX_T));
  for (k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
    for (shape = 0; shape < 5; shape++) {
      size_t n = sizes[k] - sizes[k] % 3, i, heap_arena, before;
      size_t least = aether_plan_offsets_workspace_size(n);
      size_t full = aether_plan_offsets_indexed_workspace_size(n);
      rng_state = 2000u * k + shape + 1;
      for (i = 0; i < n; i++) {
        size_t first = shape == 0 ? i : rng_below(n), length = shape == 0 ? 1 : rng_below(40);
        t[i].size = rng_below(9) == 0 ? 0 : 16 * (1 + rng_below(200));
        t[i].first_use = first;
        t[i].last_use = first + length;
        if (shape == 3) set_training_step_lifetime(&t[i], i, n);
        if (shape == 4) {
          t[i].first_use = i;
          t[i].last_use = 2 * n - 1 - i;
        }
      }
      if (shape == 2) {
        t[0].first_use = 0;
        t[0].last_use = n + 40;
      }
      CHECK(aether_plan_offsets(t, n, heap_offsets, &heap_arena) == AETHER_STATUS_OK);
      CHECK(full <= most);
      for (part = 0; part < 3; part++) {
        size_t bytes = part == 0 ? full : part == 1 ? least : least + (full - least) / 3, ws_arena;
        memset(ws_offsets, 0xA5, sizeof ws_offsets);
        before = allocations;
        CHECK(aether_plan_offsets_in_indexed_workspace(t, n, workspace, bytes, ws_offsets,
                                                       &ws_arena) == AETHER_STATUS_OK);
        if (allocations != before) allocated++;
        if (ws_arena != heap_arena || memcmp(ws_offsets, heap_offsets, n * sizeof(size_t)) != 0)
          differ++;
      }
    }
  }
  {
    /* Too small, misplaced or overlapping: refused, nothing written. */
    size_t offsets[3] = {7, 7, 7}, value = 7, need = aether_plan_offsets_workspace_size(3);
    CHECK(aether_plan_offsets_in_indexed_workspace(t, 3, workspace, need - 1, offsets, &value) ==
          AETHER_STATUS_BUFFER_TOO_SMALL);
    CHECK(aether_plan_offsets_in_indexed_workspace(t, 3, NULL, need, offsets, &value) ==
          AETHER_STATUS_NULL_POINTER);
    CHECK(aether_plan_offsets_in_indexed_workspace(t, 3, (char *)workspace + 1, need, offsets,
                                                   &value) == AETHER_STATUS_MISALIGNED_POINTER);
    CHECK(aether_plan_offsets_in_indexed_workspace(t, 3, workspace, need, (size_t *)workspace,
                                                   &value) == AETHER_STATUS_OVERLAPPING_BUFFERS);
    CHECK(offsets[0] == 7 && offsets[1] == 7 && offsets[2] == 7 && value == 7);
    CHECK(aether_plan_offsets_indexed_workspace_size(SIZE_MAX / 2) == SIZE_MAX);
  }
  {
    /* A workspace_size past the buffer: only the bytes the size function
     * gives are used, never the ones after them. */
    size_t n = 3000 - 3000 % 3, i, arena, heap_arena, full = aether_plan_offsets_indexed_workspace_size(n);
    unsigned char *room = malloc(full + 64);
    CHECK(room != NULL);
    for (i = 0; i < n; i++) {
      t[i].size = 64 * (1 + (i * 7919) % 500);
      set_training_step_lifetime(&t[i], i, n);
    }
    memset(room + full, 0x5A, 64);
    CHECK(aether_plan_offsets(t, n, heap_offsets, &heap_arena) == AETHER_STATUS_OK);
    CHECK(aether_plan_offsets_in_indexed_workspace(t, n, room, SIZE_MAX, ws_offsets, &arena) ==
          AETHER_STATUS_OK);
    CHECK(arena == heap_arena && memcmp(ws_offsets, heap_offsets, n * sizeof(size_t)) == 0);
    for (i = 0; i < 64; i++) CHECK(room[full + i] == 0x5A);
    free(room);
  }
  free(workspace);
  CHECK(differ == 0);
  CHECK(allocated == 0);
}

static void test_a_small_workspace_is_refused_and_nothing_written(void) {
  const aether_tensor_lifetime t[3] = {{8, 0, 1}, {8, 1, 2}, {8, 2, 3}};
  const aether_edge e[2] = {{0, 1}, {1, 2}};
  size_t workspace[64], offsets[3] = {7, 7, 7}, value = 7;
  aether_edge out[2] = {{7, 7}, {7, 7}};
  size_t need = aether_plan_offsets_workspace_size(3);
  CHECK(need == 4 * 3 * sizeof(size_t));
  CHECK(aether_plan_offsets_in_workspace(t, 3, workspace, need - 1, offsets, &value) ==
        AETHER_STATUS_BUFFER_TOO_SMALL);
  CHECK(aether_peak_live_bytes_in_workspace(t, 3, workspace, 0, &value) ==
        AETHER_STATUS_BUFFER_TOO_SMALL);
  CHECK(aether_transitive_reduction_in_workspace(3, e, 2, workspace, 8, out, 2, &value) ==
        AETHER_STATUS_BUFFER_TOO_SMALL);
  CHECK(aether_plan_offsets_in_workspace(t, 3, NULL, need, offsets, &value) ==
        AETHER_STATUS_NULL_POINTER);
  CHECK(aether_plan_offsets_in_workspace(t, 3, (char *)workspace + 1, need, offsets, &value) ==
        AETHER_STATUS_MISALIGNED_POINTER);
  CHECK(offsets[0] == 7 && offsets[1] == 7 && offsets[2] == 7 && value == 7);
  CHECK(out[0].source == 7 && out[1].target == 7);
  CHECK(aether_transitive_reduction_workspace_size(SIZE_MAX / 2, 1) == SIZE_MAX);
  CHECK(aether_plan_offsets_in_workspace(NULL, 0, NULL, 0, NULL, &value) == AETHER_STATUS_OK &&
        value == 0);
}

int main(void) {
  test_workspace_variants_match_and_do_not_allocate();
  test_the_indexed_workspace_planner_matches_and_does_not_allocate();
  test_the_workspace_planner_at_scale_matches_and_does_not_allocate();
  test_a_small_workspace_is_refused_and_nothing_written();
  test_mujoco_islands();
  test_random_mujoco_islands_match_both_references();
  test_mujoco_bad_input_leaves_labels_untouched();
  test_any_order_reduction();
  return report();
}
