/*
 * aether_plan_offsets_with from C: alignment, the three strategies, budgets,
 * the versioned options and report structs, and the progress callback of
 * aether_plan_offsets_observed. Plans are checked by a pairwise overlap
 * oracle and a brute-force peak written here.
 *
 * Prints "N passed, M failed" and exits non-zero on any failure.
 */
#include "check.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

static size_t round_up(size_t size, size_t alignment) {
  return (size + alignment - 1) / alignment * alignment;
}

/* No two tensors that share a node share a byte (sizes rounded up). */
static int sound(const aether_tensor_lifetime *t, size_t n, const size_t *offsets, size_t alignment,
                 size_t arena) {
  size_t i, j;
  for (i = 0; i < n; i++) {
    size_t end_i = offsets[i] + round_up(t[i].size, alignment);
    if (t[i].size > 0 && (offsets[i] % alignment != 0 || end_i > arena)) return 0;
    for (j = i + 1; j < n; j++) {
      size_t end_j = offsets[j] + round_up(t[j].size, alignment);
      int share_node = t[i].first_use <= t[j].last_use && t[j].first_use <= t[i].last_use;
      size_t lo = offsets[i] > offsets[j] ? offsets[i] : offsets[j];
      size_t hi = end_i < end_j ? end_i : end_j;
      if (t[i].size > 0 && t[j].size > 0 && share_node && lo < hi) return 0;
    }
  }
  return 1;
}

static size_t brute_force_peak(const aether_tensor_lifetime *t, size_t n, size_t nodes,
                               size_t alignment) {
  size_t node, i, best = 0;
  for (node = 0; node < nodes; node++) {
    size_t live = 0;
    for (i = 0; i < n; i++)
      if (t[i].first_use <= node && node <= t[i].last_use) live += round_up(t[i].size, alignment);
    if (live > best) best = live;
  }
  return best;
}

static aether_plan_options options_for(uint32_t strategy, size_t alignment) {
  aether_plan_options options;
  aether_plan_options_init(&options);
  options.strategy = strategy;
  options.alignment = alignment;
  return options;
}

static void test_defaults_are_the_plain_greedy_plan(void) {
  const aether_tensor_lifetime t[5] = {{100, 0, 0}, {90, 0, 2}, {80, 0, 0}, {70, 0, 2}, {60, 2, 3}};
  size_t plain[5], with[5], arena = 0, i;
  aether_plan_options options;
  aether_plan_report report;
  aether_plan_options_init(&options);
  CHECK(options.struct_size == sizeof options);
  CHECK(options.alignment == 1 && options.strategy == AETHER_STRATEGY_GREEDY);
  CHECK(options.budget_ms == AETHER_BUDGET_UNLIMITED && options.budget_nodes == 300000);
  report.struct_size = sizeof report;
  CHECK(aether_plan_offsets(t, 5, plain, &arena) == AETHER_STATUS_OK);
  CHECK(aether_plan_offsets_with(t, 5, &options, with, &report) == AETHER_STATUS_OK);
  for (i = 0; i < 5; i++) CHECK(plain[i] == with[i]);
  CHECK(report.arena_size == arena && arena == 340);
  CHECK(report.search_nodes == 0);
  CHECK(report.lower_bound <= report.arena_size);
}

static void test_random_plans_of_every_strategy(void) {
  enum { MAX = 14 };
  aether_tensor_lifetime t[MAX];
  size_t offsets[MAX];
  const size_t alignments[3] = {1, 16, 64};
  unsigned unsound = 0, bad_bound = 0, bad_flag = 0, worse = 0;
  uint64_t seed;
  for (seed = 0; seed < 60; seed++) {
    size_t n, nodes, i, a, arenas[3];
    uint32_t strategy;
    rng_state = seed * 6151u + 3;
    n = 1 + rng_below(MAX);
    nodes = 1 + rng_below(10);
    for (i = 0; i < n; i++) {
      size_t x = rng_below(nodes), y = rng_below(nodes);
      t[i].size = 1 + rng_below(200);
      t[i].first_use = x < y ? x : y;
      t[i].last_use = x < y ? y : x;
    }
    for (a = 0; a < 3; a++) {
      size_t peak = brute_force_peak(t, n, nodes, alignments[a]);
      for (strategy = AETHER_STRATEGY_GREEDY; strategy <= AETHER_STRATEGY_SEARCH; strategy++) {
        aether_plan_options options = options_for(strategy, alignments[a]);
        aether_plan_report report;
        options.budget_nodes = 20000;
        report.struct_size = sizeof report;
        CHECK(aether_plan_offsets_with(t, n, &options, offsets, &report) == AETHER_STATUS_OK);
        if (!sound(t, n, offsets, alignments[a], report.arena_size)) unsound++;
        if (report.lower_bound < peak || report.lower_bound > report.arena_size) bad_bound++;
        if (report.proven_optimal != (report.arena_size == report.lower_bound)) bad_flag++;
        arenas[strategy] = report.arena_size;
      }
      /* The heuristic tries the greedy order too; the search starts from it. */
      if (arenas[1] > arenas[0] || arenas[2] > arenas[1]) worse++;
    }
  }
  CHECK(unsound == 0);
  CHECK(bad_bound == 0);
  CHECK(bad_flag == 0);
  CHECK(worse == 0);
}

static void test_a_node_budget_gives_the_same_plan_every_time(void) {
  aether_tensor_lifetime t[24];
  size_t first[24], again[24], i;
  aether_plan_options options = options_for(AETHER_STRATEGY_SEARCH, 8);
  aether_plan_report a, b;
  rng_state = 42;
  for (i = 0; i < 24; i++) {
    size_t x = rng_below(12), y = rng_below(12);
    t[i].size = 1 + rng_below(500);
    t[i].first_use = x < y ? x : y;
    t[i].last_use = x < y ? y : x;
  }
  options.budget_nodes = 5000;
  a.struct_size = b.struct_size = sizeof a;
  CHECK(aether_plan_offsets_with(t, 24, &options, first, &a) == AETHER_STATUS_OK);
  CHECK(aether_plan_offsets_with(t, 24, &options, again, &b) == AETHER_STATUS_OK);
  CHECK(memcmp(first, again, sizeof first) == 0);
  CHECK(a.arena_size == b.arena_size && a.search_nodes == b.search_nodes);
  CHECK(a.search_nodes <= 5000);
}

static void test_a_progress_callback_sees_each_improvement_and_the_same_plan(void) {
  enum { MAX = 90 };
  static progress_log log;
  aether_tensor_lifetime t[MAX];
  size_t with[MAX], observed[MAX], i;
  unsigned searched = 0, differ = 0, out_of_order = 0, off_end = 0, unsound = 0;
  uint64_t seed;
  for (seed = 0; seed < 20; seed++) {
    size_t n, peak;
    aether_plan_options options = options_for(AETHER_STRATEGY_SEARCH, 1);
    aether_plan_report a, b;
    rng_state = seed * 7919u + 11;
    /* Sizes up to 1,000 over 40 nodes: now and then a table whose
       starting plan is above the peak, so that the search runs. */
    n = MAX;
    for (i = 0; i < n; i++) {
      size_t x = rng_below(40), y = rng_below(40);
      t[i].size = 1 + rng_below(1000);
      t[i].first_use = x < y ? x : y;
      t[i].last_use = x < y ? y : x;
    }
    peak = brute_force_peak(t, n, 40, 1);
    options.budget_nodes = 2000;
    a.struct_size = b.struct_size = sizeof a;
    memset(&log, 0, sizeof log);
    CHECK(aether_plan_offsets_with(t, n, &options, with, &a) == AETHER_STATUS_OK);
    CHECK(aether_plan_offsets_observed(t, n, &options, log_progress, &log, observed, &b) ==
          AETHER_STATUS_OK);
    if (memcmp(with, observed, n * sizeof with[0]) != 0 || a.arena_size != b.arena_size ||
        a.lower_bound != b.lower_bound || a.search_nodes != b.search_nodes)
      differ++;
    if (!sound(t, n, observed, 1, b.arena_size)) unsound++;
    if (log.calls == 0) {
      /* No search: the starting plan met the peak. */
      if (!b.proven_optimal || b.search_nodes != 0) off_end++;
      continue;
    }
    searched++;
    if (log.seen[0].lower_bound != peak) out_of_order++;
    out_of_order += progress_disorder(&log);
    if (log.count == log.calls && (log.seen[log.count - 1].best_arena != b.arena_size ||
                                   log.seen[log.count - 1].lower_bound != b.lower_bound ||
                                   log.seen[log.count - 1].nodes > b.search_nodes))
      off_end++;
  }
  CHECK(searched > 0);
  CHECK(differ == 0);
  CHECK(unsound == 0);
  CHECK(out_of_order == 0);
  CHECK(off_end == 0);

  /* No callback: the plan of aether_plan_offsets_with. Greedy: no call. */
  {
    const aether_tensor_lifetime two[2] = {{8, 0, 1}, {8, 1, 2}};
    aether_plan_options options = options_for(AETHER_STRATEGY_GREEDY, 1);
    aether_plan_report r;
    size_t offsets[2] = {7, 7};
    r.struct_size = sizeof r;
    memset(&log, 0, sizeof log);
    CHECK(aether_plan_offsets_observed(two, 2, &options, NULL, NULL, offsets, &r) ==
          AETHER_STATUS_OK);
    CHECK(r.arena_size == 16);
    CHECK(aether_plan_offsets_observed(two, 2, &options, log_progress, &log, offsets, &r) ==
          AETHER_STATUS_OK);
    CHECK(log.calls == 0);
  }
}

static void test_bad_options_leave_outputs_untouched(void) {
  const aether_tensor_lifetime t[2] = {{8, 0, 1}, {8, 1, 2}};
  const aether_tensor_lifetime backwards[2] = {{8, 0, 1}, {8, 3, 2}};
  size_t offsets[2];
  aether_plan_report report, before;
  aether_error_detail detail;
  aether_plan_options options;
  struct {
    aether_plan_options known;
    uint64_t newer_field;
  } newer;
  size_t alignment_cases[3] = {0, 3, 48};
  size_t i;

  memset(&report, 0xA5, sizeof report);
  report.struct_size = sizeof report;
  before = report;
  for (i = 0; i < 3; i++) {
    options = options_for(AETHER_STRATEGY_GREEDY, alignment_cases[i]);
    memset(offsets, 0xA5, sizeof offsets);
    CHECK(aether_plan_offsets_with(t, 2, &options, offsets, &report) ==
          AETHER_STATUS_INVALID_ALIGNMENT);
    CHECK(offsets[0] == offsets[1] && memcmp(&report, &before, sizeof report) == 0);
  }
  options = options_for(7, 1);
  CHECK(aether_plan_offsets_with(t, 2, &options, offsets, &report) == AETHER_STATUS_INVALID_OPTIONS);
  options = options_for(AETHER_STRATEGY_GREEDY, 1);
  options.struct_size = sizeof options - 1;
  CHECK(aether_plan_offsets_with(t, 2, &options, offsets, &report) == AETHER_STATUS_INVALID_OPTIONS);
  CHECK(memcmp(&report, &before, sizeof report) == 0);

  /* A newer caller's struct: accepted while its extra field is zero. */
  memset(&newer, 0, sizeof newer);
  newer.known = options_for(AETHER_STRATEGY_HEURISTIC, 4);
  newer.known.struct_size = sizeof newer;
  CHECK(aether_plan_offsets_with(t, 2, &newer.known, offsets, &report) == AETHER_STATUS_OK);
  newer.newer_field = 1;
  report = before;
  CHECK(aether_plan_offsets_with(t, 2, &newer.known, offsets, &report) == AETHER_STATUS_INVALID_OPTIONS);

  /* A report struct whose size is not set is refused. */
  report.struct_size = 0;
  options = options_for(AETHER_STRATEGY_GREEDY, 1);
  CHECK(aether_plan_offsets_with(t, 2, &options, offsets, &report) == AETHER_STATUS_INVALID_OPTIONS);
  CHECK(aether_plan_offsets_with(t, 2, NULL, offsets, &before) == AETHER_STATUS_NULL_POINTER);

  /* explain names the tensor at fault. */
  CHECK(aether_plan_offsets_with_explain(backwards, 2, &options, &detail) == AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_INVALID_LIFETIME && detail.index == 1);
  options.alignment = 6;
  CHECK(aether_plan_offsets_with_explain(t, 2, &options, &detail) == AETHER_STATUS_OK);
  CHECK(detail.status == AETHER_STATUS_INVALID_ALIGNMENT && detail.index == AETHER_NO_INDEX);
  aether_plan_options_init(NULL); /* does nothing, does not crash */
}

/* A caller compiled against a newer header: its struct has a field this
 * library does not know. Initialised the recommended way, the field is zero
 * and accepted; once set, it is refused (0.1.0's init wrote its own size,
 * so the field was silently ignored). */
struct newer_plan_options {
  aether_plan_options known;
  uint64_t later_field;
};

static void test_the_init_macro_lets_newer_fields_be_seen(void) {
  const aether_tensor_lifetime t[2] = {{100, 0, 1}, {50, 1, 2}};
  struct newer_plan_options newer;
  aether_plan_report report = {.struct_size = sizeof(aether_plan_report)};
  size_t offsets[2];
  memset(&newer, 0x5A, sizeof newer);
  CHECK_STATUS(AETHER_PLAN_OPTIONS_INIT(&newer.known), AETHER_STATUS_OK);
  /* The macro passes sizeof *(&newer.known): the caller's own type. */
  CHECK(newer.known.struct_size == sizeof(aether_plan_options));
  CHECK_STATUS(aether_plan_options_init_sized(&newer.known, sizeof newer), AETHER_STATUS_OK);
  CHECK(newer.known.struct_size == sizeof newer && newer.later_field == 0);
  CHECK(newer.known.strategy == AETHER_STRATEGY_GREEDY && newer.known.alignment == 1);
  CHECK_STATUS(aether_plan_offsets_with(t, 2, &newer.known, offsets, &report), AETHER_STATUS_OK);
  newer.later_field = 1;
  CHECK_STATUS(aether_plan_offsets_with(t, 2, &newer.known, offsets, &report),
               AETHER_STATUS_INVALID_OPTIONS);
  CHECK_STATUS(aether_plan_options_init_sized(&newer.known, 3), AETHER_STATUS_INVALID_OPTIONS);
  CHECK_STATUS(aether_plan_options_init_sized(NULL, sizeof newer), AETHER_STATUS_NULL_POINTER);
  /* A struct_size past the documented maximum is refused unread. */
  newer.later_field = 0;
  newer.known.struct_size = AETHER_PLAN_OPTIONS_MAX_SIZE + 8;
  CHECK_STATUS(aether_plan_offsets_with(t, 2, &newer.known, offsets, &report),
               AETHER_STATUS_INVALID_OPTIONS);
}

/* aether_plan_report as a caller compiled against 0.1.0 has it (40 bytes),
 * followed by bytes of the caller's that the library must not write. */
struct report_0_1 {
  size_t struct_size;
  size_t arena_size;
  size_t lower_bound;
  uint32_t proven_optimal;
  uint64_t search_nodes;
  unsigned char after[16];
};

static void test_a_0_1_report_gets_its_own_fields_and_no_byte_more(void) {
  const aether_tensor_lifetime t[3] = {{100, 0, 1}, {50, 1, 2}, {80, 2, 3}};
  aether_plan_options options = options_for(AETHER_STRATEGY_SEARCH, 1);
  aether_plan_report current = {.struct_size = sizeof(aether_plan_report)};
  struct report_0_1 old;
  size_t offsets[3], old_offsets[3];
  size_t i;
  CHECK(sizeof old == 56 && offsetof(struct report_0_1, after) == 40);
  CHECK(offsetof(aether_plan_report, stacked_tensors) == 40);
  CHECK_STATUS(aether_plan_offsets_with(t, 3, &options, offsets, &current), AETHER_STATUS_OK);
  CHECK(current.struct_size == sizeof(aether_plan_report) && current.stacked_tensors == 0);
  memset(&old, 0xA5, sizeof old);
  old.struct_size = 40;
  CHECK_STATUS(aether_plan_offsets_with(t, 3, &options, old_offsets,
                                        (aether_plan_report *)(void *)&old),
               AETHER_STATUS_OK);
  CHECK(old.struct_size == 40 && old.arena_size == current.arena_size);
  CHECK(old.lower_bound == current.lower_bound && old.proven_optimal == current.proven_optimal);
  CHECK(old.search_nodes == current.search_nodes);
  CHECK(memcmp(offsets, old_offsets, sizeof offsets) == 0);
  for (i = 0; i < sizeof old.after; i++) CHECK(old.after[i] == 0xA5);
  /* Below 0.1's size, or past the maximum: refused, nothing written. */
  for (i = 0; i < 2; i++) {
    size_t bad = i == 0 ? 39 : AETHER_PLAN_REPORT_MAX_SIZE + 1;
    struct report_0_1 before;
    memset(&old, 0xA5, sizeof old);
    old.struct_size = bad;
    memcpy(&before, &old, sizeof old);
    memset(old_offsets, 0xA5, sizeof old_offsets);
    CHECK_STATUS(aether_plan_offsets_with(t, 3, &options, old_offsets,
                                          (aether_plan_report *)(void *)&old),
                 AETHER_STATUS_INVALID_OPTIONS);
    CHECK(memcmp(&old, &before, sizeof old) == 0);
    CHECK(old_offsets[0] == old_offsets[1] && old_offsets[1] == old_offsets[2]);
  }
}

static void test_the_version_number_matches_the_header(void) {
  CHECK(aether_version_number() == AETHER_PLANNER_VERSION_NUMBER);
  CHECK(AETHER_PLANNER_VERSION_NUMBER == AETHER_PLANNER_VERSION_MAJOR * 10000 +
                                             AETHER_PLANNER_VERSION_MINOR * 100 +
                                             AETHER_PLANNER_VERSION_PATCH);
}

int main(void) {
  test_the_init_macro_lets_newer_fields_be_seen();
  test_the_version_number_matches_the_header();
  test_defaults_are_the_plain_greedy_plan();
  test_random_plans_of_every_strategy();
  test_a_node_budget_gives_the_same_plan_every_time();
  test_bad_options_leave_outputs_untouched();
  test_a_0_1_report_gets_its_own_fields_and_no_byte_more();
  test_a_progress_callback_sees_each_improvement_and_the_same_plan();
  return report();
}
