/*
 * An accelerator with a fixed scratchpad: the model's input and output
 * buffers sit at addresses the host's DMA engine was programmed with, so they
 * are pinned at fixed offsets, and everything must fit in the scratchpad's
 * capacity. Intermediate activations are planned around the pinned buffers;
 * a capacity that cannot be met is reported, never exceeded.
 *
 *   cc pinned_io.c $(pkg-config --cflags --libs aether_planner)
 */
#include <aether_planner.h>

#include <stdio.h>

enum { VALUES = 6, SCRATCHPAD = 512 * 1024 };

static const char *const names[VALUES] = {"input", "conv", "act", "pool", "fc", "output"};

int main(void) {
  /* size, first node, last node */
  const aether_tensor_lifetime values[VALUES] = {
      {150528, 0, 1}, {200704, 1, 2}, {200704, 2, 3},
      {50176, 3, 4},  {16384, 4, 5},  {4000, 5, 6},
  };
  /* The DMA engine reads the input at 0 and writes the output at the top. */
  const size_t fixed[VALUES] = {0,
                                AETHER_OFFSET_FREE,
                                AETHER_OFFSET_FREE,
                                AETHER_OFFSET_FREE,
                                AETHER_OFFSET_FREE,
                                SCRATCHPAD - 4096};
  const size_t alignments[VALUES] = {4096, 64, 64, 64, 64, 4096};
  size_t offsets[VALUES];
  aether_problem problem;
  aether_plan_options options;
  aether_plan_report report;
  aether_problem_detail detail;
  aether_status status;
  int v;

  AETHER_PROBLEM_INIT(&problem);
  problem.fixed_offsets = fixed;
  problem.fixed_offset_count = VALUES;
  problem.alignments = alignments;
  problem.alignment_count = VALUES;
  problem.capacity = SCRATCHPAD;
  aether_plan_options_init(&options);
  options.strategy = AETHER_STRATEGY_SEARCH;
  report.struct_size = sizeof report;
  status = aether_plan_problem(values, VALUES, &problem, &options, offsets, &report);
  if (status != AETHER_STATUS_OK) {
    fprintf(stderr, "planning failed: %s\n", aether_status_str(status));
    return 1;
  }
  printf("fits in %d bytes: arena %zu (lower bound %zu, %s)\n", SCRATCHPAD, report.arena_size,
         report.lower_bound, report.proven_optimal ? "proven optimal" : "not proven optimal");
  for (v = 0; v < VALUES; v++)
    printf("  %-6s %7zu bytes at offset %7zu%s\n", names[v], values[v].size, offsets[v],
           fixed[v] != AETHER_OFFSET_FREE ? " (pinned)" : "");

  /* Half the scratchpad cannot hold conv and act side by side. */
  problem.capacity = SCRATCHPAD / 2;
  problem.fixed_offset_count = 0;
  detail.struct_size = sizeof detail;
  aether_plan_problem_explain(values, VALUES, &problem, &options, &detail);
  printf("in %d bytes: %s (lower bound %zu)\n", SCRATCHPAD / 2, aether_status_str(detail.status),
         detail.lower_bound);
  return detail.status == AETHER_STATUS_DOES_NOT_FIT ? 0 : 1;
}
