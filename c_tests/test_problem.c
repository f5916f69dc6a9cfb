/*
 * aether_plan_problem from C: per-tensor alignment, gaps with windows, fixed
 * offsets, hints, reuse and a capacity, with every plan checked node by
 * node by an occupancy checker written here; the new statuses and the
 * explain call that names what is at fault; the progress callback of
 * aether_plan_problem_observed.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include "check.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define MAX_TENSORS 8

/* Bytes [lo, hi) tensor i occupies at node, or 0 if it is not active. */
static int occupied(const aether_tensor_lifetime *t, size_t i, const aether_gap *gaps,
                    size_t gap_count, size_t offset, size_t node, size_t *lo, size_t *hi) {
  size_t g;
  if (t[i].size == 0 || node < t[i].first_use || node > t[i].last_use) return 0;
  for (g = 0; g < gap_count; g++) {
    if (gaps[g].tensor == i && gaps[g].first <= node && node <= gaps[g].last) {
      if (!gaps[g].has_window || gaps[g].window_lo >= gaps[g].window_hi) return 0;
      *lo = offset + gaps[g].window_lo;
      *hi = offset + gaps[g].window_hi;
      return 1;
    }
  }
  *lo = offset;
  *hi = offset + t[i].size;
  return 1;
}

/* Every constraint of the problem holds for offsets (plan alignment 1). */
static int honoured(const aether_tensor_lifetime *t, size_t n, const aether_problem *p,
                    const size_t *offsets, size_t arena) {
  size_t i, j, r, node, end = 0;
  for (i = 0; i < n; i++) {
    if (p->alignment_count && offsets[i] % p->alignments[i] != 0) return 0;
    if (p->fixed_offset_count && p->fixed_offsets[i] != AETHER_OFFSET_FREE &&
        offsets[i] != p->fixed_offsets[i])
      return 0;
    if (t[i].size > 0 && offsets[i] + t[i].size > end) end = offsets[i] + t[i].size;
  }
  if (end != arena) return 0;
  if (p->capacity != AETHER_NO_CAPACITY && arena > p->capacity) return 0;
  for (r = 0; r < p->reuse_count; r++)
    if (offsets[p->reuses[r].tensor] != offsets[p->reuses[r].reused]) return 0;
  for (i = 0; i < n; i++) {
    for (j = i + 1; j < n; j++) {
      int same_group = 0;
      for (r = 0; r < p->reuse_count; r++)
        if ((p->reuses[r].tensor == i && p->reuses[r].reused == j) ||
            (p->reuses[r].tensor == j && p->reuses[r].reused == i))
          same_group = 1;
      if (same_group) continue;
      for (node = 0; node < 32; node++) {
        size_t a_lo, a_hi, b_lo, b_hi;
        if (occupied(t, i, p->gaps, p->gap_count, offsets[i], node, &a_lo, &a_hi) &&
            occupied(t, j, p->gaps, p->gap_count, offsets[j], node, &b_lo, &b_hi) &&
            a_lo < b_hi && b_lo < a_hi)
          return 0;
      }
    }
  }
  return 1;
}

static aether_plan_options options_for(uint32_t strategy) {
  aether_plan_options options;
  aether_plan_options_init(&options);
  options.strategy = strategy;
  return options;
}

static aether_plan_report new_report(void) {
  aether_plan_report report;
  memset(&report, 0, sizeof report);
  report.struct_size = sizeof report;
  return report;
}

static aether_problem_detail explain(const aether_tensor_lifetime *t, size_t n,
                                     const aether_problem *p, uint32_t strategy) {
  aether_plan_options options = options_for(strategy);
  aether_problem_detail detail;
  memset(&detail, 0, sizeof detail);
  detail.struct_size = sizeof detail;
  CHECK_STATUS(aether_plan_problem_explain(t, n, p, &options, &detail), AETHER_STATUS_OK);
  return detail;
}

/* Every constraint at once, under every strategy. */
static void test_every_constraint_is_honoured(void) {
  /* 0: an input pinned at 0; 1 reuses 0 in place; 2 pauses at nodes 2-3
   * keeping its low 8 bytes; 3 is 64-aligned; 4 has a hint. */
  const aether_tensor_lifetime t[5] = {
      {32, 0, 1}, {32, 1, 3}, {24, 0, 5}, {16, 2, 4}, {8, 4, 5}};
  const size_t alignments[5] = {1, 1, 8, 64, 1};
  const size_t fixed[5] = {0, AETHER_OFFSET_FREE, AETHER_OFFSET_FREE, AETHER_OFFSET_FREE,
                           AETHER_OFFSET_FREE};
  const size_t hints[5] = {AETHER_OFFSET_FREE, AETHER_OFFSET_FREE, AETHER_OFFSET_FREE,
                           AETHER_OFFSET_FREE, 96};
  const aether_gap gaps[1] = {{2, 2, 3, 0, 8, 1}};
  const aether_reuse reuses[1] = {{1, 0}};
  uint32_t strategy;
  aether_problem p;
  AETHER_PROBLEM_INIT(&p);
  p.alignments = alignments;
  p.alignment_count = 5;
  p.fixed_offsets = fixed;
  p.fixed_offset_count = 5;
  p.hints = hints;
  p.hint_count = 5;
  p.gaps = gaps;
  p.gap_count = 1;
  p.reuses = reuses;
  p.reuse_count = 1;
  p.capacity = 128;
  for (strategy = AETHER_STRATEGY_GREEDY; strategy <= AETHER_STRATEGY_SEARCH; strategy++) {
    aether_plan_options options = options_for(strategy);
    aether_plan_report report = new_report();
    size_t offsets[5];
    CHECK_STATUS(aether_plan_problem(t, 5, &p, &options, offsets, &report), AETHER_STATUS_OK);
    CHECK(honoured(t, 5, &p, offsets, report.arena_size));
    CHECK(report.lower_bound <= report.arena_size);
    CHECK(explain(t, 5, &p, strategy).status == AETHER_STATUS_OK);
    if (strategy == AETHER_STRATEGY_SEARCH) CHECK(report.proven_optimal == 1);
  }
}

/* No constraint: exactly aether_plan_offsets_with. */
static void test_no_constraint_is_the_plain_plan(void) {
  const aether_tensor_lifetime t[4] = {{100, 0, 1}, {80, 1, 2}, {60, 2, 3}, {40, 0, 3}};
  aether_problem p;
  uint32_t strategy;
  AETHER_PROBLEM_INIT(&p);
  for (strategy = AETHER_STRATEGY_GREEDY; strategy <= AETHER_STRATEGY_SEARCH; strategy++) {
    aether_plan_options options = options_for(strategy);
    aether_plan_report a = new_report(), b = new_report();
    size_t x[4], y[4];
    CHECK_STATUS(aether_plan_offsets_with(t, 4, &options, x, &a), AETHER_STATUS_OK);
    CHECK_STATUS(aether_plan_problem(t, 4, &p, &options, y, &b), AETHER_STATUS_OK);
    CHECK(memcmp(x, y, sizeof x) == 0);
    CHECK(a.arena_size == b.arena_size && a.lower_bound == b.lower_bound);
  }
}

/* A capacity below the lower bound is proven not to fit; nothing written. */
static void test_does_not_fit_is_told_and_writes_nothing(void) {
  const aether_tensor_lifetime t[3] = {{4, 0, 2}, {4, 3, 8}, {4, 0, 8}};
  aether_problem p;
  aether_plan_options options = options_for(AETHER_STRATEGY_SEARCH);
  aether_plan_report report = new_report();
  size_t offsets[3] = {7, 7, 7};
  aether_problem_detail detail;
  AETHER_PROBLEM_INIT(&p);
  p.capacity = 7;
  CHECK_STATUS(aether_plan_problem(t, 3, &p, &options, offsets, &report),
               AETHER_STATUS_DOES_NOT_FIT);
  CHECK(offsets[0] == 7 && offsets[1] == 7 && offsets[2] == 7 && report.arena_size == 0);
  detail = explain(t, 3, &p, AETHER_STRATEGY_SEARCH);
  CHECK(detail.status == AETHER_STATUS_DOES_NOT_FIT && detail.proven == 1);
  CHECK(detail.lower_bound == 8);
  p.capacity = 8;
  CHECK_STATUS(aether_plan_problem(t, 3, &p, &options, offsets, &report), AETHER_STATUS_OK);
  CHECK(report.arena_size == 8);
}

/* Bad constraints: each status, and explain names the element at fault. */
static void test_bad_constraints_are_named(void) {
  const aether_tensor_lifetime t[2] = {{8, 0, 3}, {8, 2, 5}};
  const size_t fixed[2] = {0, 4};
  const size_t misaligned[2] = {4, AETHER_OFFSET_FREE};
  const size_t alignments[2] = {8, 1};
  const aether_gap outside[1] = {{1, 0, 3, 0, 0, 0}};
  const aether_reuse larger[1] = {{1, 0}}; /* 8 bytes over 4 */
  const aether_reuse self[1] = {{1, 1}};
  aether_problem p;
  aether_problem_detail detail;

  AETHER_PROBLEM_INIT(&p);
  p.fixed_offsets = fixed;
  p.fixed_offset_count = 2;
  detail = explain(t, 2, &p, AETHER_STRATEGY_GREEDY);
  CHECK(detail.status == AETHER_STATUS_CONFLICTING_FIXED_OFFSETS);
  CHECK(detail.tensor == 0 && detail.other_tensor == 1);

  p.fixed_offsets = misaligned;
  p.alignments = alignments;
  p.alignment_count = 2;
  detail = explain(t, 2, &p, AETHER_STRATEGY_GREEDY);
  CHECK(detail.status == AETHER_STATUS_MISALIGNED_FIXED_OFFSET && detail.tensor == 0);

  AETHER_PROBLEM_INIT(&p);
  p.gaps = outside;
  p.gap_count = 1;
  detail = explain(t, 2, &p, AETHER_STRATEGY_GREEDY);
  CHECK(detail.status == AETHER_STATUS_INVALID_GAP && detail.tensor == 1 && detail.item == 0);

  AETHER_PROBLEM_INIT(&p);
  p.reuses = self;
  p.reuse_count = 1;
  detail = explain(t, 2, &p, AETHER_STRATEGY_GREEDY);
  CHECK(detail.status == AETHER_STATUS_INVALID_REUSE && detail.tensor == 1 && detail.item == 0);
  {
    const aether_tensor_lifetime unequal[2] = {{4, 0, 1}, {8, 1, 2}};
    p.reuses = larger;
    detail = explain(unequal, 2, &p, AETHER_STRATEGY_GREEDY);
    CHECK(detail.status == AETHER_STATUS_INVALID_REUSE && detail.other_tensor == 0);
  }

  AETHER_PROBLEM_INIT(&p);
  p.alignments = alignments;
  p.alignment_count = 1; /* neither 0 nor tensor_count */
  detail = explain(t, 2, &p, AETHER_STRATEGY_GREEDY);
  CHECK(detail.status == AETHER_STATUS_INVALID_OPTIONS);

  AETHER_PROBLEM_INIT(&p);
  p.gap_count = 1; /* NULL with a count */
  detail = explain(t, 2, &p, AETHER_STRATEGY_GREEDY);
  CHECK(detail.status == AETHER_STATUS_NULL_POINTER);

  AETHER_PROBLEM_INIT(&p);
  p.struct_size = sizeof p - 1;
  detail = explain(t, 2, &p, AETHER_STRATEGY_GREEDY);
  CHECK(detail.status == AETHER_STATUS_INVALID_OPTIONS);
  CHECK(strstr(aether_status_str(AETHER_STATUS_DOES_NOT_FIT_UNPROVEN), "not proven") != NULL);
}

/* Two reusers of one tensor live together would share its bytes: refused,
 * naming both, with nothing written; a fixed zero-size tensor ends at its
 * offset, which must lie within the capacity. */
static void test_unsound_reuse_and_fixed_empty_tensors_are_refused(void) {
  const aether_tensor_lifetime t[3] = {{8, 0, 5}, {8, 1, 3}, {4, 2, 4}};
  const aether_reuse siblings[2] = {{1, 0}, {2, 0}};
  const aether_tensor_lifetime empty[2] = {{8, 0, 1}, {0, 0, 1}};
  const size_t fixed[2] = {AETHER_OFFSET_FREE, 100};
  uint32_t strategy;
  aether_problem p;
  aether_problem_detail detail;
  AETHER_PROBLEM_INIT(&p);
  p.reuses = siblings;
  p.reuse_count = 2;
  for (strategy = AETHER_STRATEGY_GREEDY; strategy <= AETHER_STRATEGY_SEARCH; strategy++) {
    aether_plan_options options = options_for(strategy);
    aether_plan_report report = new_report();
    size_t offsets[3] = {7, 7, 7};
    CHECK_STATUS(aether_plan_problem(t, 3, &p, &options, offsets, &report),
                 AETHER_STATUS_CONFLICTING_FIXED_OFFSETS);
    CHECK(offsets[0] == 7 && offsets[1] == 7 && offsets[2] == 7);
    detail = explain(t, 3, &p, strategy);
    CHECK(detail.status == AETHER_STATUS_CONFLICTING_FIXED_OFFSETS);
    CHECK(detail.tensor == 1 && detail.other_tensor == 2);
  }

  AETHER_PROBLEM_INIT(&p);
  p.fixed_offsets = fixed;
  p.fixed_offset_count = 2;
  p.capacity = 50;
  detail = explain(empty, 2, &p, AETHER_STRATEGY_GREEDY);
  CHECK(detail.status == AETHER_STATUS_DOES_NOT_FIT && detail.proven == 1);
  p.capacity = 100;
  {
    aether_plan_options options = options_for(AETHER_STRATEGY_GREEDY);
    aether_plan_report report = new_report();
    size_t offsets[2];
    CHECK_STATUS(aether_plan_problem(empty, 2, &p, &options, offsets, &report), AETHER_STATUS_OK);
    CHECK(offsets[1] == 100 && report.arena_size == 8);
  }
}

/* The observed call plans as aether_plan_problem does, and its progress
 * only improves, ending at the report's arena and bound. */
static void test_the_observed_problem_plan_is_the_problem_plan(void) {
  enum { N = 30 };
  static progress_log log;
  aether_tensor_lifetime t[N];
  size_t alignments[N], want[N], got[N], i;
  unsigned searched = 0, differ = 0, out_of_order = 0, dishonoured = 0;
  uint64_t seed;
  for (seed = 0; seed < 16; seed++) {
    aether_plan_options options = options_for(AETHER_STRATEGY_SEARCH);
    aether_plan_report a = new_report(), b = new_report();
    aether_problem p;
    aether_status sa, sb;
    rng_state = seed * 104729u + 3;
    for (i = 0; i < N; i++) {
      size_t x = rng_below(30), y = rng_below(30);
      t[i].size = 1 + rng_below(100);
      t[i].first_use = x < y ? x : y;
      t[i].last_use = x < y ? y : x;
      alignments[i] = i % 3 == 0 ? 32 : 1;
    }
    AETHER_PROBLEM_INIT(&p);
    p.alignments = alignments;
    p.alignment_count = N;
    options.budget_nodes = 400;
    memset(&log, 0, sizeof log);
    sa = aether_plan_problem(t, N, &p, &options, want, &a);
    sb = aether_plan_problem_observed(t, N, &p, &options, log_progress, &log, got, &b);
    CHECK_STATUS(sa, AETHER_STATUS_OK);
    CHECK_STATUS(sb, AETHER_STATUS_OK);
    if (memcmp(want, got, sizeof want) != 0 || a.arena_size != b.arena_size ||
        a.lower_bound != b.lower_bound || a.search_nodes != b.search_nodes)
      differ++;
    if (!honoured(t, N, &p, got, b.arena_size)) dishonoured++;
    if (log.calls == 0) continue;
    searched++;
    out_of_order += progress_disorder(&log);
    if (log.count == log.calls && (log.seen[log.count - 1].best_arena != b.arena_size ||
                                   log.seen[log.count - 1].lower_bound != b.lower_bound))
      out_of_order++;
  }
  CHECK(searched > 0);
  CHECK(differ == 0);
  CHECK(out_of_order == 0);
  CHECK(dishonoured == 0);
  /* NULL progress: aether_plan_problem itself. */
  {
    aether_plan_options options = options_for(AETHER_STRATEGY_SEARCH);
    aether_plan_report r = new_report();
    aether_problem p;
    AETHER_PROBLEM_INIT(&p);
    CHECK_STATUS(aether_plan_problem_observed(t, N, &p, &options, NULL, NULL, got, &r),
                 AETHER_STATUS_OK);
    CHECK(r.arena_size >= r.lower_bound);
  }
}

int main(void) {
  test_every_constraint_is_honoured();
  test_no_constraint_is_the_plain_plan();
  test_does_not_fit_is_told_and_writes_nothing();
  test_bad_constraints_are_named();
  test_unsound_reuse_and_fixed_empty_tensors_are_refused();
  test_the_observed_problem_plan_is_the_problem_plan();
  return report();
}
