// aether_planner.hpp against independent oracles (pairwise overlap, a
// brute-force peak, a closure-based reduction, the upstream cases) and
// against the C calls it wraps: same values on success, the `_explain`
// detail on failure, the caller's buffers untouched on failure.
#include "aether_planner.hpp"

#include "check.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <cstring>
#include <stdexcept>
#include <utility>
#include <vector>

// Every allocation through operator new, so that a test can show a call
// made none.
static std::size_t cxx_allocations = 0;

void* operator new(std::size_t bytes) {
  cxx_allocations++;
  if (void* p = std::malloc(bytes == 0 ? 1 : bytes)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

namespace {

std::vector<aether_tensor_lifetime> random_tensors(std::size_t n) {
  std::vector<aether_tensor_lifetime> tensors(n);
  for (auto& t : tensors) {
    t.size = rng_below(200);
    t.first_use = rng_below(12);
    t.last_use = t.first_use + rng_below(5);
  }
  return tensors;
}

// 90 tensors over 40 nodes, of sizes 1 to 1000: a starting plan above the
// peak now and then, so that a search runs and reports.
std::vector<aether_tensor_lifetime> searchable_tensors() {
  std::vector<aether_tensor_lifetime> tensors(90);
  for (auto& t : tensors) {
    const std::size_t x = rng_below(40), y = rng_below(40);
    t = aether_tensor_lifetime{1 + rng_below(1000), x < y ? x : y, x < y ? y : x};
  }
  return tensors;
}

std::size_t round_up(std::size_t size, std::size_t alignment) {
  return (size + alignment - 1) / alignment * alignment;
}

// No two tensors live at a common node share a byte, and the arena covers
// every tensor.
bool sound(const std::vector<aether_tensor_lifetime>& tensors,
           const std::vector<std::size_t>& offsets, std::size_t arena, std::size_t alignment) {
  for (std::size_t i = 0; i < tensors.size(); i++) {
    const std::size_t wi = round_up(tensors[i].size, alignment);
    if (wi > 0 && offsets[i] + wi > arena) return false;
    if (offsets[i] % alignment != 0) return false;
    for (std::size_t j = i + 1; j < tensors.size(); j++) {
      const std::size_t wj = round_up(tensors[j].size, alignment);
      const bool live_together = tensors[i].first_use <= tensors[j].last_use &&
                                 tensors[j].first_use <= tensors[i].last_use;
      const bool share = wi > 0 && wj > 0 && offsets[i] < offsets[j] + wj &&
                         offsets[j] < offsets[i] + wi;
      if (live_together && share) return false;
    }
  }
  return true;
}

std::size_t brute_peak(const std::vector<aether_tensor_lifetime>& tensors) {
  std::size_t peak = 0;
  for (std::size_t node = 0; node < 32; node++) {
    std::size_t live = 0;
    for (const auto& t : tensors) {
      if (t.first_use <= node && node <= t.last_use) live += t.size;
    }
    peak = std::max(peak, live);
  }
  return peak;
}

// The reduction by its definition: keep u -> v unless another successor of u
// reaches v (closure by Warshall's algorithm).
std::vector<aether_edge> brute_reduction(std::size_t n, const std::vector<aether_edge>& edges) {
  std::vector<std::vector<bool>> adj(n, std::vector<bool>(n, false));
  for (const auto& e : edges) adj[e.source][e.target] = true;
  auto reach = adj;
  for (std::size_t k = 0; k < n; k++)
    for (std::size_t i = 0; i < n; i++)
      for (std::size_t j = 0; j < n; j++)
        if (reach[i][k] && reach[k][j]) reach[i][j] = true;
  std::vector<aether_edge> kept;
  for (std::size_t u = 0; u < n; u++) {
    for (std::size_t v = 0; v < n; v++) {
      if (!adj[u][v]) continue;
      bool implied = false;
      for (std::size_t w = 0; w < n && !implied; w++) {
        implied = w != v && adj[u][w] && reach[w][v];
      }
      if (!implied) kept.push_back(aether_edge{u, v});
    }
  }
  return kept;
}

bool same_edges(const std::vector<aether_edge>& a, const std::vector<aether_edge>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); i++) {
    if (a[i].source != b[i].source || a[i].target != b[i].target) return false;
  }
  return true;
}

void offsets_match_the_c_call_and_are_sound() {
  for (uint64_t seed = 0; seed < 200; seed++) {
    rng_state = seed;
    const auto tensors = random_tensors(1 + rng_below(14));
    const auto plan = aether::plan_offsets(tensors);
    CHECK(plan.ok());
    CHECK(plan.status() == AETHER_STATUS_OK);
    CHECK(plan->offsets.size() == tensors.size());
    CHECK(sound(tensors, plan->offsets, plan->arena_size, 1));

    std::vector<std::size_t> c_offsets(tensors.size());
    std::size_t c_arena = 0;
    CHECK_STATUS(aether_plan_offsets(tensors.data(), tensors.size(), c_offsets.data(), &c_arena),
                 AETHER_STATUS_OK);
    CHECK(c_offsets == plan->offsets && c_arena == plan->arena_size);

    const auto peak = aether::peak_live_bytes(tensors);
    CHECK(peak && *peak == brute_peak(tensors));
    CHECK(plan->arena_size >= *peak);
  }
}

void offsets_reuse_the_leading_gap() {
  // XNNPACK's ReusesLeadingGap.
  const aether_tensor_lifetime tensors[3] = {{100, 0, 1}, {80, 1, 2}, {60, 2, 3}};
  const auto plan = aether::plan_offsets(tensors, 3);
  CHECK(plan);
  CHECK((plan->offsets == std::vector<std::size_t>{0, 100, 0}));
  CHECK(plan->arena_size == 180);
  std::size_t out[3] = {7, 7, 7};
  const auto arena = aether::plan_offsets(tensors, 3, out);
  CHECK(arena && *arena == 180 && out[0] == 0 && out[1] == 100 && out[2] == 0);
}

void offsets_failure_names_the_tensor_and_writes_nothing() {
  const std::vector<aether_tensor_lifetime> tensors = {{8, 0, 1}, {8, 1, 2}, {8, 5, 3}, {8, 0, 0}};
  const auto plan = aether::plan_offsets(tensors);
  CHECK(!plan);
  CHECK(plan.status() == AETHER_STATUS_INVALID_LIFETIME);
  CHECK(plan.error().status == AETHER_STATUS_INVALID_LIFETIME);
  CHECK(plan.error().index == 2);
  CHECK(std::strcmp(plan.message(), aether_status_str(AETHER_STATUS_INVALID_LIFETIME)) == 0);

  std::size_t out[4] = {11, 22, 33, 44};
  const auto arena = aether::plan_offsets(tensors.data(), tensors.size(), out);
  CHECK(!arena && arena.error().index == 2);
  CHECK(out[0] == 11 && out[1] == 22 && out[2] == 33 && out[3] == 44);

  const auto peak = aether::peak_live_bytes(tensors);
  CHECK(!peak && peak.status() == AETHER_STATUS_INVALID_LIFETIME && peak.error().index == 2);

  // A null array with a non-zero count: the status, no element to name.
  const auto null_plan = aether::plan_offsets(nullptr, 3);
  CHECK(null_plan.status() == AETHER_STATUS_NULL_POINTER);
  CHECK(null_plan.error().index == AETHER_NO_INDEX);
}

void offsets_with_options_align_and_report() {
  for (uint64_t seed = 0; seed < 50; seed++) {
    rng_state = 1000 + seed;
    const auto tensors = random_tensors(1 + rng_below(10));
    for (uint32_t strategy : {AETHER_STRATEGY_GREEDY, AETHER_STRATEGY_HEURISTIC,
                              AETHER_STRATEGY_SEARCH}) {
      auto options = aether::default_plan_options();
      options.alignment = 64;
      options.strategy = strategy;
      const auto plan = aether::plan_offsets_with(tensors, options);
      CHECK(plan.ok());
      CHECK(plan->report.struct_size == sizeof(aether_plan_report));
      CHECK(sound(tensors, plan->offsets, plan->report.arena_size, 64));
      CHECK(plan->report.arena_size >= plan->report.lower_bound);
      CHECK((plan->report.proven_optimal != 0) ==
            (plan->report.arena_size == plan->report.lower_bound));
    }
  }
  auto options = aether::default_plan_options();
  options.alignment = 48;
  const std::vector<aether_tensor_lifetime> tensors = {{8, 0, 1}};
  std::size_t out[1] = {99};
  const auto report = aether::plan_offsets_with(tensors.data(), 1, options, out);
  CHECK(!report && report.status() == AETHER_STATUS_INVALID_ALIGNMENT && out[0] == 99);
  const auto plan = aether::plan_offsets_with(tensors, options);
  CHECK(plan.status() == AETHER_STATUS_INVALID_ALIGNMENT);
}

void observed_plans_report_progress_and_pass_exceptions_on() {
  // Tables whose starting plan is above the peak now and then, so that the
  // search runs and reports.
  std::size_t searched = 0;
  for (uint64_t seed = 0; seed < 20; seed++) {
    rng_state = 7919 * seed + 11;
    const auto tensors = searchable_tensors();
    auto options = aether::default_plan_options();
    options.strategy = AETHER_STRATEGY_SEARCH;
    options.budget_nodes = 2000;
    std::vector<aether_search_progress> seen;
    const auto plan = aether::plan_offsets_observed(
        tensors, options, [&](const aether_search_progress& p) { seen.push_back(p); });
    const auto with = aether::plan_offsets_with(tensors, options);
    CHECK(plan.ok() && with.ok());
    CHECK(plan->offsets == with->offsets);
    CHECK(plan->report.arena_size == with->report.arena_size);
    if (seen.empty()) continue;
    searched++;
    CHECK(seen.back().best_arena == plan->report.arena_size);
    for (std::size_t k = 1; k < seen.size(); k++)
      CHECK(seen[k].best_arena <= seen[k - 1].best_arena &&
            seen[k].lower_bound >= seen[k - 1].lower_bound);
    if (searched == 1) {
      // A throwing callable: its exception comes out of the call.
      bool caught = false;
      try {
        (void)aether::plan_offsets_observed(tensors, options, [](const aether_search_progress&) {
          throw std::runtime_error("stop");
        });
      } catch (const std::runtime_error&) {
        caught = true;
      }
      CHECK(caught);
    }
  }
  CHECK(searched > 0);
  // A failure names the tensor, as plan_offsets_with's does.
  const std::vector<aether_tensor_lifetime> bad = {{8, 0, 1}, {8, 3, 2}};
  const auto refused = aether::plan_offsets_observed(bad, aether::default_plan_options(),
                                                     [](const aether_search_progress&) {});
  CHECK(!refused && refused.status() == AETHER_STATUS_INVALID_LIFETIME &&
        refused.error().index == 1);
}

// plan_problem against the C call it wraps and against its constraints:
// the fixed tensor stays, every offset is a multiple of its tensor's
// alignment, and no two tensors live together share a byte.
void problems_match_the_c_call_and_keep_their_constraints() {
  for (uint64_t seed = 0; seed < 100; seed++) {
    rng_state = 31 * seed + 5;
    const auto tensors = random_tensors(1 + rng_below(40));
    const std::size_t n = tensors.size();
    std::vector<std::size_t> alignments(n), fixed(n, AETHER_OFFSET_FREE);
    for (auto& a : alignments) a = std::size_t{1} << rng_below(7);
    const std::size_t f = rng_below(n);
    fixed[f] = alignments[f] * rng_below(4);
    auto problem = aether::default_problem();
    problem.alignments = alignments.data();
    problem.alignment_count = n;
    problem.fixed_offsets = fixed.data();
    problem.fixed_offset_count = n;
    auto options = aether::default_plan_options();
    options.strategy = seed % 2 ? AETHER_STRATEGY_HEURISTIC : AETHER_STRATEGY_GREEDY;
    const auto plan = aether::plan_problem(tensors, problem, options);
    CHECK(plan.ok() && plan.error().status == AETHER_STATUS_OK);
    if (!plan) continue;
    CHECK(plan->offsets[f] == fixed[f]);
    for (std::size_t i = 0; i < n; i++) CHECK(plan->offsets[i] % alignments[i] == 0);
    CHECK(sound(tensors, plan->offsets, plan->report.arena_size, 1));
    std::vector<std::size_t> c_offsets(n);
    aether_plan_report c_report{};
    c_report.struct_size = sizeof c_report;
    CHECK(aether_plan_problem(tensors.data(), n, &problem, &options, c_offsets.data(),
                              &c_report) == AETHER_STATUS_OK);
    CHECK(c_offsets == plan->offsets && c_report.arena_size == plan->report.arena_size);
    CHECK(c_report.lower_bound == plan->report.lower_bound);
  }
}

// A failed plan_problem leaves the buffer as it was and names what is at
// fault: the two fixed tensors that would share bytes, or, for a capacity
// below the peak, a proven refusal with a lower bound past the capacity.
void problem_failures_name_what_is_at_fault() {
  const std::vector<aether_tensor_lifetime> tensors = {{64, 0, 2}, {8, 5, 6}, {64, 1, 3}};
  const std::vector<std::size_t> fixed = {0, AETHER_OFFSET_FREE, 32};
  auto problem = aether::default_problem();
  problem.fixed_offsets = fixed.data();
  problem.fixed_offset_count = fixed.size();
  const auto options = aether::default_plan_options();
  std::size_t out[3] = {11, 22, 33};
  const auto clash = aether::plan_problem(tensors.data(), tensors.size(), problem, options, out);
  CHECK(!clash && clash.status() == AETHER_STATUS_CONFLICTING_FIXED_OFFSETS);
  CHECK((clash.error().tensor == 0 && clash.error().other_tensor == 2) ||
        (clash.error().tensor == 2 && clash.error().other_tensor == 0));
  CHECK(clash.error().struct_size == sizeof(aether_problem_detail));
  CHECK(out[0] == 11 && out[1] == 22 && out[2] == 33);
  CHECK(std::strcmp(clash.message(),
                    aether_status_str(AETHER_STATUS_CONFLICTING_FIXED_OFFSETS)) == 0);

  auto small = aether::default_problem();
  const std::size_t peak = brute_peak(tensors);
  small.capacity = peak - 1;
  const auto refused = aether::plan_problem(tensors, small, options);
  CHECK(!refused && refused.status() == AETHER_STATUS_DOES_NOT_FIT);
  CHECK(refused.error().proven == 1 && refused.error().lower_bound >= peak);
  CHECK(refused.error().lower_bound > small.capacity);
  CHECK(refused.error().tensor == AETHER_NO_INDEX || refused.error().tensor < tensors.size());

  // The same capacity met: the plan fits within it.
  small.capacity = 1 << 20;
  const auto fits = aether::plan_problem(tensors, small, options);
  CHECK(fits && fits->report.arena_size <= small.capacity);
}

// plan_problem_observed gives plan_problem's plan, reports a search's
// progress, and passes the callable's exception on.
void observed_problems_report_progress_and_pass_exceptions_on() {
  std::size_t searched = 0;
  for (uint64_t seed = 0; seed < 20; seed++) {
    rng_state = 104729 * seed + 3;
    const auto tensors = searchable_tensors();
    std::vector<std::size_t> alignments(tensors.size(), 1);
    alignments[0] = 256;
    auto problem = aether::default_problem();
    problem.alignments = alignments.data();
    problem.alignment_count = alignments.size();
    auto options = aether::default_plan_options();
    options.strategy = AETHER_STRATEGY_SEARCH;
    options.budget_nodes = 2000;
    std::vector<aether_search_progress> seen;
    const auto plan = aether::plan_problem_observed(
        tensors, problem, options, [&](const aether_search_progress& p) { seen.push_back(p); });
    const auto plain = aether::plan_problem(tensors, problem, options);
    CHECK(plan.ok() && plain.ok());
    if (!plan || !plain) continue;
    CHECK(plan->offsets == plain->offsets);
    CHECK(plan->report.arena_size == plain->report.arena_size);
    if (seen.empty()) continue;
    searched++;
    CHECK(seen.back().best_arena == plan->report.arena_size);
    if (searched == 1) {
      bool caught = false;
      try {
        (void)aether::plan_problem_observed(tensors, problem, options,
                                            [](const aether_search_progress&) {
                                              throw std::runtime_error("stop");
                                            });
      } catch (const std::runtime_error&) {
        caught = true;
      }
      CHECK(caught);
    }
  }
  CHECK(searched > 0);
}

void reduction_matches_its_definition() {
  // TensorFlow's TransitiveReductionIsExact: 0 -> 3 is implied by 0 -> 1 -> 2 -> 3.
  const std::vector<aether_edge> bypass = {{0, 3}, {2, 3}, {0, 1}, {1, 2}, {0, 2}};
  const auto reduced = aether::transitive_reduction(4, bypass);
  CHECK(reduced && same_edges(*reduced, {{0, 1}, {1, 2}, {2, 3}}));

  for (uint64_t seed = 0; seed < 200; seed++) {
    rng_state = 5000 + seed;
    const std::size_t n = 1 + rng_below(10);
    std::vector<aether_edge> edges;
    for (std::size_t u = 0; u < n; u++)
      for (std::size_t v = u + 1; v < n; v++)
        if (rng_below(3) == 0) edges.push_back(aether_edge{u, v});
    const auto got = aether::transitive_reduction(n, edges);
    CHECK(got && same_edges(*got, brute_reduction(n, edges)));

    // The same DAG numbered backwards, through the any-order call.
    std::vector<aether_edge> flipped;
    for (const auto& e : edges) flipped.push_back(aether_edge{n - 1 - e.source, n - 1 - e.target});
    const auto any = aether::transitive_reduction_any_order(n, flipped);
    std::vector<aether_edge> expected;
    for (const auto& e : brute_reduction(n, edges))
      expected.push_back(aether_edge{n - 1 - e.source, n - 1 - e.target});
    std::sort(expected.begin(), expected.end(), [](const aether_edge& a, const aether_edge& b) {
      return std::make_pair(a.source, a.target) < std::make_pair(b.source, b.target);
    });
    CHECK(any && same_edges(*any, expected));
  }
}

void reduction_failures_name_the_edge_and_node() {
  const std::vector<aether_edge> backwards = {{0, 1}, {2, 1}};
  const auto reduced = aether::transitive_reduction(3, backwards);
  CHECK(!reduced && reduced.status() == AETHER_STATUS_NOT_TOPOLOGICAL);
  CHECK(reduced.error().index == 1);

  const std::vector<aether_edge> far = {{0, 1}, {1, 2}, {1, 9}};
  aether_edge out[3] = {{7, 7}, {7, 7}, {7, 7}};
  const auto count = aether::transitive_reduction(3, far.data(), far.size(), out, 3);
  CHECK(!count && count.status() == AETHER_STATUS_NODE_OUT_OF_RANGE);
  CHECK(count.error().index == 2 && count.error().node == 9);
  CHECK(out[0].source == 7 && out[2].target == 7);

  const std::vector<aether_edge> cycle = {{0, 1}, {1, 2}, {2, 0}};
  const auto any = aether::transitive_reduction_any_order(3, cycle);
  CHECK(!any && any.status() == AETHER_STATUS_CYCLE);
  CHECK(any.error().node != AETHER_NO_INDEX && any.error().node < 3);

  const std::vector<aether_edge> two = {{0, 1}, {1, 2}};
  aether_edge small[1] = {{7, 7}};
  const auto too_small = aether::transitive_reduction(3, two.data(), two.size(), small, 1);
  CHECK(!too_small && too_small.status() == AETHER_STATUS_BUFFER_TOO_SMALL);
}

void islands_label_components() {
  const std::vector<aether_incidence> contacts = {{3, 1}, {2, 2}};
  const auto found = aether::islands(4, contacts);
  CHECK(found && found->island_count == 2);
  CHECK((found->labels == std::vector<std::size_t>{AETHER_NO_ISLAND, 0, 1, 0}));

  const std::vector<aether_incidence> bad = {{0, 1}, {1, 9}};
  std::size_t labels[4] = {5, 5, 5, 5};
  const auto count = aether::islands(4, bad.data(), bad.size(), labels);
  CHECK(!count && count.status() == AETHER_STATUS_NODE_OUT_OF_RANGE);
  CHECK(count.error().index == 1 && count.error().node == 9);
  CHECK(labels[0] == 5 && labels[3] == 5);
  CHECK(aether::islands(4, bad).error().index == 1);

  // The int layout: -1 is the world, -1 labels are trees in no island.
  const std::int32_t pairs[4] = {0, 1, 2, -1};
  const auto engine = aether::islands_i32(4, pairs, 2);
  CHECK(engine && engine->island_count == 2);
  CHECK((engine->labels == std::vector<std::int32_t>{0, 0, 1, -1}));
  const auto negative = aether::islands_i32(4, pairs, -2);
  CHECK(!negative && negative.status() == AETHER_STATUS_NEGATIVE_COUNT);
  CHECK(aether::islands_i32(-1, pairs, 2).status() == AETHER_STATUS_NEGATIVE_COUNT);
  // Pair 1 names node 7 of 4: the detail says which pair.
  const std::int32_t out_of_range[4] = {0, 1, 7, 2};
  const auto far = aether::islands_i32(4, out_of_range, 2);
  CHECK(!far && far.status() == AETHER_STATUS_NODE_OUT_OF_RANGE && far.error().index == 1);
}

// The heap-free overloads: the main overloads' values, on tables past the
// workspace planner's literal scan too; no C++ allocation (operator new is
// counted below; c_tests/test_engine.c counts the library's mallocs); on
// failure the status alone and the caller's buffers untouched.
void workspace_forms_match_the_main_calls_and_allocate_nothing() {
  for (uint64_t seed = 0; seed < 40; seed++) {
    rng_state = 7000 + seed;
    const std::size_t n = seed % 2 == 0 ? 1 + rng_below(60) : 129 + rng_below(400);
    std::vector<aether_tensor_lifetime> tensors(n);
    for (std::size_t i = 0; i < n; i++) {
      const std::size_t first = seed % 2 == 0 ? rng_below(12) : i;
      tensors[i] = aether_tensor_lifetime{rng_below(200), first, first + rng_below(4)};
    }
    const auto plan = aether::plan_offsets(tensors);
    const auto peak = aether::peak_live_bytes(tensors);
    CHECK(plan && peak);
    std::vector<std::uint64_t> workspace(aether::plan_offsets_workspace_size(n) / 8 + 1);
    std::vector<std::size_t> offsets(n, 7);
    const std::size_t before = cxx_allocations;
    const auto arena = aether::plan_offsets_in_workspace(
        tensors.data(), n, workspace.data(), aether::plan_offsets_workspace_size(n), offsets.data());
    const auto ws_peak = aether::peak_live_bytes_in_workspace(
        tensors.data(), n, workspace.data(), aether::peak_live_bytes_workspace_size(n));
    CHECK(cxx_allocations == before);
    CHECK(arena && *arena == plan->arena_size && offsets == plan->offsets);
    CHECK(ws_peak && *ws_peak == *peak);
    std::vector<std::uint64_t> room(aether::plan_offsets_indexed_workspace_size(n) / 8 + 1);
    std::vector<std::size_t> indexed(n, 7);
    const std::size_t ahead = cxx_allocations;
    const auto indexed_arena = aether::plan_offsets_in_indexed_workspace(
        tensors.data(), n, room.data(), room.size() * 8, indexed.data());
    CHECK(cxx_allocations == ahead);
    CHECK(indexed_arena && *indexed_arena == plan->arena_size && indexed == plan->offsets);
  }

  const std::vector<aether_edge> bypass = {{0, 3}, {2, 3}, {0, 1}, {1, 2}, {0, 2}};
  std::vector<std::uint64_t> workspace(aether::transitive_reduction_workspace_size(4, 5) / 8 + 1);
  aether_edge out[5] = {};
  std::size_t before = cxx_allocations;
  const auto count = aether::transitive_reduction_in_workspace(
      4, bypass.data(), bypass.size(), workspace.data(),
      aether::transitive_reduction_workspace_size(4, 5), out, 5);
  CHECK(cxx_allocations == before);
  CHECK(count && same_edges(std::vector<aether_edge>(out, out + *count), {{0, 1}, {1, 2}, {2, 3}}));
  CHECK(aether::islands_workspace_size(100) == 0);

  // Failures: the status alone, nothing written.
  const std::vector<aether_tensor_lifetime> backwards = {{8, 0, 1}, {8, 3, 2}};
  std::size_t kept[2] = {11, 22};
  std::vector<std::uint64_t> room(aether::plan_offsets_workspace_size(2) / 8 + 1);
  before = cxx_allocations;
  const auto refused = aether::plan_offsets_in_workspace(
      backwards.data(), 2, room.data(), aether::plan_offsets_workspace_size(2), kept);
  CHECK(cxx_allocations == before);
  CHECK(!refused && refused.status() == AETHER_STATUS_INVALID_LIFETIME);
  CHECK(refused.error().index == AETHER_NO_INDEX && kept[0] == 11 && kept[1] == 22);
  const auto short_of_room = aether::plan_offsets_in_workspace(
      backwards.data(), 2, room.data(), aether::plan_offsets_workspace_size(2) - 1, kept);
  CHECK(!short_of_room && short_of_room.status() == AETHER_STATUS_BUFFER_TOO_SMALL);
  CHECK(kept[0] == 11 && kept[1] == 22);
  CHECK(aether::peak_live_bytes_in_workspace(backwards.data(), 2, room.data(),
                                             aether::peak_live_bytes_workspace_size(2))
            .status() == AETHER_STATUS_INVALID_LIFETIME);
}

void a_result_moves_its_value_out() {
  const std::vector<aether_tensor_lifetime> tensors = {{10, 0, 0}, {10, 0, 0}};
  aether::offset_plan plan = std::move(aether::plan_offsets(tensors)).value();
  CHECK(plan.arena_size == 20 && plan.offsets.size() == 2);
}

}  // namespace

int main() {
  offsets_match_the_c_call_and_are_sound();
  offsets_reuse_the_leading_gap();
  offsets_failure_names_the_tensor_and_writes_nothing();
  offsets_with_options_align_and_report();
  observed_plans_report_progress_and_pass_exceptions_on();
  problems_match_the_c_call_and_keep_their_constraints();
  problem_failures_name_what_is_at_fault();
  observed_problems_report_progress_and_pass_exceptions_on();
  reduction_matches_its_definition();
  reduction_failures_name_the_edge_and_node();
  islands_label_components();
  workspace_forms_match_the_main_calls_and_allocate_nothing();
  a_result_moves_its_value_out();
  std::printf("C++ %ld: ", static_cast<long>(__cplusplus));
  return report();
}
