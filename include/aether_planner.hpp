/*
 * aether-planner for C++17 and later: header-only calls over the C API in
 * aether_planner.h, taking std::vector or pointer + count, and returning a
 * result that carries the status and, on failure, the `_explain` detail
 * (which element, which node).
 *
 *   std::vector<aether_tensor_lifetime> tensors = ...;
 *   auto plan = aether::plan_offsets(tensors);
 *   if (!plan) {
 *     std::fprintf(stderr, "tensor %zu: %s\n", plan.error().index, plan.message());
 *     return;
 *   }
 *   use(plan->offsets, plan->arena_size);
 *
 * plan_problem takes the constraints of aether_plan_problem (start from
 * aether::default_problem()); its result's error() is the
 * aether_problem_detail of aether_plan_problem_explain.
 *
 * Nothing here throws but std::vector's own std::bad_alloc (and what a
 * progress callable of plan_offsets_observed or plan_problem_observed
 * throws, passed on when the call returns). The overloads that write into
 * the caller's buffers make no container of their own (the library
 * allocates its scratch, as the C calls do); the *_in_workspace overloads
 * call the heap-free entry points, so that nothing at all is allocated,
 * and report a failure's status alone. On failure the caller's buffers are
 * left as they were, as in C.
 */
#ifndef AETHER_PLANNER_HPP
#define AETHER_PLANNER_HPP

#include "aether_planner.h"

#include <cstddef>
#include <cstdint>
#include <exception>
#include <type_traits>
#include <utility>
#include <vector>

namespace aether {

/* What a failed call reports: its status, the element at fault and the node
 * at fault (AETHER_NO_INDEX where none applies). */
using error_detail = aether_error_detail;

/* What a failed plan_problem reports: its status, the tensors and the gap or
 * reuse pair at fault, and for a capacity not met the lower bound and
 * whether the refusal is proven (see aether_problem_detail). */
using problem_detail = aether_problem_detail;

namespace detail {
/* The detail of a call that succeeded, for each kind of detail. */
inline error_detail ok_detail(const error_detail*) noexcept {
  return error_detail{AETHER_STATUS_OK, AETHER_NO_INDEX, AETHER_NO_INDEX};
}
inline problem_detail ok_detail(const problem_detail*) noexcept {
  problem_detail detail{};
  detail.struct_size = sizeof detail;
  detail.status = AETHER_STATUS_OK;
  detail.tensor = detail.other_tensor = detail.item = AETHER_NO_INDEX;
  return detail;
}
}  // namespace detail

/* A call's outcome: on success a T, else the status and its detail E. */
template <class T, class E = error_detail>
class result {
 public:
  result(T value)
      : value_(std::move(value)), detail_(detail::ok_detail(static_cast<const E*>(nullptr))) {}
  explicit result(const E& detail) : value_(), detail_(detail) {}

  bool ok() const noexcept { return detail_.status == AETHER_STATUS_OK; }
  explicit operator bool() const noexcept { return ok(); }
  aether_status status() const noexcept { return detail_.status; }
  /* The status with what is at fault. */
  const E& error() const noexcept { return detail_; }
  /* A static description of the status. */
  const char* message() const noexcept { return aether_status_str(detail_.status); }

  /* The value; meaningful only when ok(). */
  T& value() & noexcept { return value_; }
  const T& value() const& noexcept { return value_; }
  T&& value() && noexcept { return std::move(value_); }
  T* operator->() noexcept { return &value_; }
  const T* operator->() const noexcept { return &value_; }
  T& operator*() & noexcept { return value_; }
  const T& operator*() const& noexcept { return value_; }

 private:
  T value_;
  E detail_;
};

struct offset_plan {
  std::vector<std::size_t> offsets;
  std::size_t arena_size = 0;
};

struct offset_plan_with_report {
  std::vector<std::size_t> offsets;
  aether_plan_report report{};
};

struct island_labels {
  std::vector<std::size_t> labels; /* AETHER_NO_ISLAND: in no incidence */
  std::size_t island_count = 0;
};

struct island_labels_i32 {
  std::vector<std::int32_t> labels; /* -1: in no island */
  std::int32_t island_count = 0;
};

/* The options with the defaults and this header's struct_size. */
inline aether_plan_options default_plan_options() noexcept {
  aether_plan_options options{};
  aether_plan_options_init(&options);
  return options;
}

/* A problem with no constraint and this header's struct_size: set the
 * constraints you need (each array empty or one element per tensor). */
inline aether_problem default_problem() noexcept {
  aether_problem problem{};
  aether_problem_init(&problem, sizeof problem);
  return problem;
}

namespace detail {

/* The detail of a call that failed with `status`, from its `_explain` twin
 * over the same inputs. Should the twin see another status (memory ran out
 * in one of them), the call's own status stands, with no element named. */
template <class Explain, class... Args>
error_detail explain(aether_status status, Explain explain_call, Args... args) noexcept {
  error_detail detail{status, AETHER_NO_INDEX, AETHER_NO_INDEX};
  if (explain_call(args..., &detail) != AETHER_STATUS_OK || detail.status != status) {
    detail = error_detail{status, AETHER_NO_INDEX, AETHER_NO_INDEX};
  }
  return detail;
}

/* For an entry point without an `_explain` twin: the status alone. */
inline error_detail status_only(aether_status status) noexcept {
  return error_detail{status, AETHER_NO_INDEX, AETHER_NO_INDEX};
}

template <class T, class E>
result<T, E> failure(const E& detail) {
  return result<T, E>(detail);
}

}  // namespace detail

/* ---- offsets ---------------------------------------------------------- */

/* Writes tensor_count offsets into offsets_out; the value is the arena size. */
inline result<std::size_t> plan_offsets(const aether_tensor_lifetime* tensors,
                                        std::size_t tensor_count, std::size_t* offsets_out) {
  std::size_t arena = 0;
  const aether_status status = aether_plan_offsets(tensors, tensor_count, offsets_out, &arena);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<std::size_t>(
        detail::explain(status, aether_plan_offsets_explain, tensors, tensor_count));
  }
  return arena;
}

inline result<offset_plan> plan_offsets(const aether_tensor_lifetime* tensors,
                                        std::size_t tensor_count) {
  offset_plan plan;
  plan.offsets.resize(tensor_count);
  const auto arena = plan_offsets(tensors, tensor_count, plan.offsets.data());
  if (!arena) return detail::failure<offset_plan>(arena.error());
  plan.arena_size = *arena;
  return plan;
}

inline result<offset_plan> plan_offsets(const std::vector<aether_tensor_lifetime>& tensors) {
  return plan_offsets(tensors.data(), tensors.size());
}

/* Writes tensor_count offsets into offsets_out; the value is the report. */
inline result<aether_plan_report> plan_offsets_with(const aether_tensor_lifetime* tensors,
                                                    std::size_t tensor_count,
                                                    const aether_plan_options& options,
                                                    std::size_t* offsets_out) {
  aether_plan_report report{};
  report.struct_size = sizeof report;
  const aether_status status =
      aether_plan_offsets_with(tensors, tensor_count, &options, offsets_out, &report);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<aether_plan_report>(detail::explain(
        status, aether_plan_offsets_with_explain, tensors, tensor_count, &options));
  }
  return report;
}

inline result<offset_plan_with_report> plan_offsets_with(
    const aether_tensor_lifetime* tensors, std::size_t tensor_count,
    const aether_plan_options& options) {
  offset_plan_with_report plan;
  plan.offsets.resize(tensor_count);
  const auto report = plan_offsets_with(tensors, tensor_count, options, plan.offsets.data());
  if (!report) return detail::failure<offset_plan_with_report>(report.error());
  plan.report = *report;
  return plan;
}

inline result<offset_plan_with_report> plan_offsets_with(
    const std::vector<aether_tensor_lifetime>& tensors, const aether_plan_options& options) {
  return plan_offsets_with(tensors.data(), tensors.size(), options);
}

namespace detail {
/* The C callback of plan_offsets_observed: calls the C++ callable, and
 * keeps the first exception it throws (none may cross the C library);
 * after one, it calls nothing more. */
template <class F>
struct progress_context {
  F* on_progress;
  std::exception_ptr thrown;
};

template <class F>
int progress_trampoline(const aether_search_progress* progress, void* user) noexcept {
  auto* context = static_cast<progress_context<F>*>(user);
  if (!context->thrown) {
    try {
      (*context->on_progress)(*progress);
    } catch (...) {
      context->thrown = std::current_exception();
    }
  }
  return 0;
}
}  // namespace detail

/* plan_offsets_with, calling on_progress(const aether_search_progress&) as
 * a search improves (see aether_plan_offsets_observed), on this thread,
 * before it returns. An exception from on_progress stops further calls
 * and is rethrown once the plan is done (the buffer then holds the plan).
 * Writes tensor_count offsets into offsets_out; the value is the report. */
template <class F>
result<aether_plan_report> plan_offsets_observed(const aether_tensor_lifetime* tensors,
                                                 std::size_t tensor_count,
                                                 const aether_plan_options& options,
                                                 F&& on_progress, std::size_t* offsets_out) {
  using callable = std::remove_reference_t<F>;
  detail::progress_context<callable> context{&on_progress, nullptr};
  aether_plan_report report{};
  report.struct_size = sizeof report;
  const aether_status status =
      aether_plan_offsets_observed(tensors, tensor_count, &options,
                                   &detail::progress_trampoline<callable>, &context, offsets_out,
                                   &report);
  if (context.thrown) std::rethrow_exception(context.thrown);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<aether_plan_report>(detail::explain(
        status, aether_plan_offsets_with_explain, tensors, tensor_count, &options));
  }
  return report;
}

template <class F>
result<offset_plan_with_report> plan_offsets_observed(
    const std::vector<aether_tensor_lifetime>& tensors, const aether_plan_options& options,
    F&& on_progress) {
  offset_plan_with_report plan;
  plan.offsets.resize(tensors.size());
  const auto report = plan_offsets_observed(tensors.data(), tensors.size(), options,
                                            std::forward<F>(on_progress), plan.offsets.data());
  if (!report) return detail::failure<offset_plan_with_report>(report.error());
  plan.report = *report;
  return plan;
}

/* ---- offsets with constraints ------------------------------------------ */

namespace detail {
/* The detail of a plan_problem that failed with `status`, from
 * aether_plan_problem_explain over the same inputs; should it see another
 * status (memory ran out in one of them), the call's own status stands,
 * with nothing named. */
inline problem_detail explain_problem(aether_status status, const aether_tensor_lifetime* tensors,
                                      std::size_t tensor_count, const aether_problem& problem,
                                      const aether_plan_options& options) noexcept {
  problem_detail detail = ok_detail(static_cast<const problem_detail*>(nullptr));
  const aether_status explained =
      aether_plan_problem_explain(tensors, tensor_count, &problem, &options, &detail);
  if (explained != AETHER_STATUS_OK || detail.status != status) {
    detail = ok_detail(static_cast<const problem_detail*>(nullptr));
    detail.status = status;
  }
  return detail;
}
}  // namespace detail

/* aether_plan_problem: offsets honouring `problem`'s constraints (alignments,
 * gaps, fixed offsets, hints, reuse, capacity). Writes tensor_count offsets
 * into offsets_out; the value is the report. On failure the buffer is left
 * as it was and the detail names what is at fault. */
inline result<aether_plan_report, problem_detail> plan_problem(
    const aether_tensor_lifetime* tensors, std::size_t tensor_count,
    const aether_problem& problem, const aether_plan_options& options,
    std::size_t* offsets_out) {
  aether_plan_report report{};
  report.struct_size = sizeof report;
  const aether_status status =
      aether_plan_problem(tensors, tensor_count, &problem, &options, offsets_out, &report);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<aether_plan_report>(
        detail::explain_problem(status, tensors, tensor_count, problem, options));
  }
  return report;
}

inline result<offset_plan_with_report, problem_detail> plan_problem(
    const std::vector<aether_tensor_lifetime>& tensors, const aether_problem& problem,
    const aether_plan_options& options) {
  offset_plan_with_report plan;
  plan.offsets.resize(tensors.size());
  const auto report =
      plan_problem(tensors.data(), tensors.size(), problem, options, plan.offsets.data());
  if (!report) return detail::failure<offset_plan_with_report>(report.error());
  plan.report = *report;
  return plan;
}

/* plan_problem, calling on_progress(const aether_search_progress&) as a
 * search improves (see aether_plan_problem_observed), as
 * plan_offsets_observed does. */
template <class F>
result<aether_plan_report, problem_detail> plan_problem_observed(
    const aether_tensor_lifetime* tensors, std::size_t tensor_count,
    const aether_problem& problem, const aether_plan_options& options, F&& on_progress,
    std::size_t* offsets_out) {
  using callable = std::remove_reference_t<F>;
  detail::progress_context<callable> context{&on_progress, nullptr};
  aether_plan_report report{};
  report.struct_size = sizeof report;
  const aether_status status = aether_plan_problem_observed(
      tensors, tensor_count, &problem, &options, &detail::progress_trampoline<callable>,
      &context, offsets_out, &report);
  if (context.thrown) std::rethrow_exception(context.thrown);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<aether_plan_report>(
        detail::explain_problem(status, tensors, tensor_count, problem, options));
  }
  return report;
}

template <class F>
result<offset_plan_with_report, problem_detail> plan_problem_observed(
    const std::vector<aether_tensor_lifetime>& tensors, const aether_problem& problem,
    const aether_plan_options& options, F&& on_progress) {
  offset_plan_with_report plan;
  plan.offsets.resize(tensors.size());
  const auto report = plan_problem_observed(tensors.data(), tensors.size(), problem, options,
                                            std::forward<F>(on_progress), plan.offsets.data());
  if (!report) return detail::failure<offset_plan_with_report>(report.error());
  plan.report = *report;
  return plan;
}

/* ---- peak ------------------------------------------------------------- */

inline result<std::size_t> peak_live_bytes(const aether_tensor_lifetime* tensors,
                                           std::size_t tensor_count) {
  std::size_t peak = 0;
  const aether_status status = aether_peak_live_bytes(tensors, tensor_count, &peak);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<std::size_t>(
        detail::explain(status, aether_peak_live_bytes_explain, tensors, tensor_count));
  }
  return peak;
}

inline result<std::size_t> peak_live_bytes(const std::vector<aether_tensor_lifetime>& tensors) {
  return peak_live_bytes(tensors.data(), tensors.size());
}

/* ---- transitive reduction --------------------------------------------- */

/* Writes the reduction into edges_out (capacity edge_count always suffices;
 * it may be edges itself); the value is the number of edges written. */
inline result<std::size_t> transitive_reduction(std::size_t node_count, const aether_edge* edges,
                                                std::size_t edge_count, aether_edge* edges_out,
                                                std::size_t edges_out_capacity) {
  std::size_t count = 0;
  const aether_status status = aether_transitive_reduction(node_count, edges, edge_count,
                                                           edges_out, edges_out_capacity, &count);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<std::size_t>(detail::explain(
        status, aether_transitive_reduction_explain, node_count, edges, edge_count));
  }
  return count;
}

inline result<std::vector<aether_edge>> transitive_reduction(std::size_t node_count,
                                                             const aether_edge* edges,
                                                             std::size_t edge_count) {
  std::vector<aether_edge> reduced(edge_count);
  const auto count = transitive_reduction(node_count, edges, edge_count, reduced.data(),
                                          reduced.size());
  if (!count) return detail::failure<std::vector<aether_edge>>(count.error());
  reduced.resize(*count);
  return reduced;
}

inline result<std::vector<aether_edge>> transitive_reduction(
    std::size_t node_count, const std::vector<aether_edge>& edges) {
  return transitive_reduction(node_count, edges.data(), edges.size());
}

/* The same for a DAG numbered in any order; a cycle is AETHER_STATUS_CYCLE. */
inline result<std::size_t> transitive_reduction_any_order(std::size_t node_count,
                                                          const aether_edge* edges,
                                                          std::size_t edge_count,
                                                          aether_edge* edges_out,
                                                          std::size_t edges_out_capacity) {
  std::size_t count = 0;
  const aether_status status = aether_transitive_reduction_any_order(
      node_count, edges, edge_count, edges_out, edges_out_capacity, &count);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<std::size_t>(detail::explain(
        status, aether_transitive_reduction_any_order_explain, node_count, edges, edge_count));
  }
  return count;
}

inline result<std::vector<aether_edge>> transitive_reduction_any_order(std::size_t node_count,
                                                                       const aether_edge* edges,
                                                                       std::size_t edge_count) {
  std::vector<aether_edge> reduced(edge_count);
  const auto count = transitive_reduction_any_order(node_count, edges, edge_count,
                                                    reduced.data(), reduced.size());
  if (!count) return detail::failure<std::vector<aether_edge>>(count.error());
  reduced.resize(*count);
  return reduced;
}

inline result<std::vector<aether_edge>> transitive_reduction_any_order(
    std::size_t node_count, const std::vector<aether_edge>& edges) {
  return transitive_reduction_any_order(node_count, edges.data(), edges.size());
}

/* ---- islands ------------------------------------------------------------ */

/* Writes node_count labels into labels_out; the value is the island count. */
inline result<std::size_t> islands(std::size_t node_count, const aether_incidence* incidences,
                                   std::size_t incidence_count, std::size_t* labels_out) {
  std::size_t count = 0;
  const aether_status status =
      aether_islands(node_count, incidences, incidence_count, labels_out, &count);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<std::size_t>(detail::explain(status, aether_islands_explain,
                                                        node_count, incidences, incidence_count));
  }
  return count;
}

inline result<island_labels> islands(std::size_t node_count, const aether_incidence* incidences,
                                     std::size_t incidence_count) {
  island_labels out;
  out.labels.resize(node_count);
  const auto count = islands(node_count, incidences, incidence_count, out.labels.data());
  if (!count) return detail::failure<island_labels>(count.error());
  out.island_count = *count;
  return out;
}

inline result<island_labels> islands(std::size_t node_count,
                                     const std::vector<aether_incidence>& incidences) {
  return islands(node_count, incidences.data(), incidences.size());
}

/* A physics engine's int layout: 2 * pair_count ints, -1 for the world.
 * Writes node_count labels into labels_out; the value is the island count. */
inline result<std::int32_t> islands_i32(std::int32_t node_count, const std::int32_t* pairs,
                                        std::int32_t pair_count, std::int32_t* labels_out) {
  std::int32_t count = 0;
  const aether_status status = aether_islands_i32(node_count, pairs, pair_count, labels_out, &count);
  if (status != AETHER_STATUS_OK) {
    return detail::failure<std::int32_t>(
        detail::explain(status, aether_islands_i32_explain, node_count, pairs, pair_count));
  }
  return count;
}

inline result<island_labels_i32> islands_i32(std::int32_t node_count, const std::int32_t* pairs,
                                             std::int32_t pair_count) {
  island_labels_i32 out;
  /* A negative count is the C call's to refuse; no labels are needed then. */
  out.labels.resize(node_count > 0 ? static_cast<std::size_t>(node_count) : 0);
  const auto count = islands_i32(node_count, pairs, pair_count, out.labels.data());
  if (!count) return detail::failure<island_labels_i32>(count.error());
  out.island_count = *count;
  return out;
}

/* ---- heap-free forms ------------------------------------------------------ */

/* The *_in_workspace calls plan over a workspace the caller sizes with the
 * *_workspace_size functions and owns (aligned for size_t, overlapping no
 * other argument), and allocate nothing; these overloads allocate nothing
 * either. On failure their detail is the status alone: naming the element
 * at fault takes the `_explain` call, which allocates, so a caller who may
 * allocate then calls it (or the overload without a workspace). */

inline std::size_t plan_offsets_workspace_size(std::size_t tensor_count) noexcept {
  return aether_plan_offsets_workspace_size(tensor_count);
}

/* Writes tensor_count offsets into offsets_out; the value is the arena size. */
inline result<std::size_t> plan_offsets_in_workspace(const aether_tensor_lifetime* tensors,
                                                     std::size_t tensor_count, void* workspace,
                                                     std::size_t workspace_size,
                                                     std::size_t* offsets_out) noexcept {
  std::size_t arena = 0;
  const aether_status status = aether_plan_offsets_in_workspace(
      tensors, tensor_count, workspace, workspace_size, offsets_out, &arena);
  if (status != AETHER_STATUS_OK) return detail::failure<std::size_t>(detail::status_only(status));
  return arena;
}

inline std::size_t plan_offsets_indexed_workspace_size(std::size_t tensor_count) noexcept {
  return aether_plan_offsets_indexed_workspace_size(tensor_count);
}

/* The same plan over the whole workspace (at least plan_offsets_workspace_size
 * bytes, at most plan_offsets_indexed_workspace_size are used): near-linear
 * where many tensors conflict at once. */
inline result<std::size_t> plan_offsets_in_indexed_workspace(const aether_tensor_lifetime* tensors,
                                                             std::size_t tensor_count,
                                                             void* workspace,
                                                             std::size_t workspace_size,
                                                             std::size_t* offsets_out) noexcept {
  std::size_t arena = 0;
  const aether_status status = aether_plan_offsets_in_indexed_workspace(
      tensors, tensor_count, workspace, workspace_size, offsets_out, &arena);
  if (status != AETHER_STATUS_OK) return detail::failure<std::size_t>(detail::status_only(status));
  return arena;
}

inline std::size_t peak_live_bytes_workspace_size(std::size_t tensor_count) noexcept {
  return aether_peak_live_bytes_workspace_size(tensor_count);
}

inline result<std::size_t> peak_live_bytes_in_workspace(const aether_tensor_lifetime* tensors,
                                                        std::size_t tensor_count,
                                                        void* workspace,
                                                        std::size_t workspace_size) noexcept {
  std::size_t peak = 0;
  const aether_status status =
      aether_peak_live_bytes_in_workspace(tensors, tensor_count, workspace, workspace_size, &peak);
  if (status != AETHER_STATUS_OK) return detail::failure<std::size_t>(detail::status_only(status));
  return peak;
}

inline std::size_t transitive_reduction_workspace_size(std::size_t node_count,
                                                       std::size_t edge_count) noexcept {
  return aether_transitive_reduction_workspace_size(node_count, edge_count);
}

/* Writes the reduction into edges_out (capacity edge_count always suffices;
 * it may be edges itself); the value is the number of edges written. */
inline result<std::size_t> transitive_reduction_in_workspace(
    std::size_t node_count, const aether_edge* edges, std::size_t edge_count, void* workspace,
    std::size_t workspace_size, aether_edge* edges_out, std::size_t edges_out_capacity) noexcept {
  std::size_t count = 0;
  const aether_status status =
      aether_transitive_reduction_in_workspace(node_count, edges, edge_count, workspace,
                                               workspace_size, edges_out, edges_out_capacity, &count);
  if (status != AETHER_STATUS_OK) return detail::failure<std::size_t>(detail::status_only(status));
  return count;
}

/* The islands need no workspace (always 0): for engines that size every
 * call's workspace alike. */
inline std::size_t islands_workspace_size(std::size_t node_count) noexcept {
  return aether_islands_workspace_size(node_count);
}

}  // namespace aether

#endif /* AETHER_PLANNER_HPP */
