/*
 * An inference runtime's arena, planned the way XNNPACK-style runtimes plan
 * it: derive each internal value's lifetime from the operator list, let the
 * in-place activation reuse its input's memory (as xnn_mark_tensor_as_reuse
 * does), ask for 64-byte aligned offsets, allocate one arena, and point every
 * value into it.
 *
 *   cc xnnpack_style.c $(pkg-config --cflags --libs aether_planner)
 */
#define _POSIX_C_SOURCE 200112L /* posix_memalign */
#include <aether_planner.h>

#include <stdio.h>
#include <stdlib.h>

/* A tiny network: value ids are indices into `value_bytes`. */
typedef struct {
  const char *name;
  int inputs[2];  /* -1: unused */
  int output;
} operator_t;

static const size_t value_bytes[] = {
    602112, /* 0: conv1 output, 112x112x12 fp32 */
    602112, /* 1: relu1 output */
    150528, /* 2: pool output */
    301056, /* 3: conv2 output */
    301056, /* 4: residual add output */
    4000,   /* 5: logits */
};
enum { VALUES = sizeof value_bytes / sizeof value_bytes[0] };

static const operator_t operators[] = {
    {"conv1", {-1, -1}, 0}, {"relu1", {0, -1}, 1}, {"pool", {1, -1}, 2},
    {"conv2", {2, -1}, 3},  {"add", {3, 2}, 4},    {"fc", {4, -1}, 5},
};
enum { OPERATORS = sizeof operators / sizeof operators[0] };

int main(void) {
  aether_tensor_lifetime values[VALUES];
  size_t offsets[VALUES];
  /* relu1 runs in place: its output takes over conv1's dying output. */
  const aether_reuse in_place[] = {{1, 0}};
  aether_problem problem;
  aether_plan_options options;
  aether_plan_report report;
  aether_status status;
  unsigned char *arena = NULL;
  int v, k;

  /* A value lives from the operator that writes it to the last that reads it. */
  for (v = 0; v < VALUES; v++) {
    values[v].size = value_bytes[v];
    values[v].first_use = values[v].last_use = 0;
  }
  for (k = 0; k < OPERATORS; k++) {
    int i;
    values[operators[k].output].first_use = (size_t)k;
    values[operators[k].output].last_use = (size_t)k;
    for (i = 0; i < 2; i++)
      if (operators[k].inputs[i] >= 0) values[operators[k].inputs[i]].last_use = (size_t)k;
  }

  aether_plan_options_init(&options);
  options.alignment = 64; /* what XNNPACK and TFLite use on x86 */
  options.strategy = AETHER_STRATEGY_SEARCH;
  report.struct_size = sizeof report;
  AETHER_PROBLEM_INIT(&problem);
  problem.reuses = in_place;
  problem.reuse_count = sizeof in_place / sizeof in_place[0];
  status = aether_plan_problem(values, VALUES, &problem, &options, offsets, &report);
  if (status != AETHER_STATUS_OK) {
    fprintf(stderr, "planning failed: %s\n", aether_status_str(status));
    return 1;
  }
  if (posix_memalign((void **)&arena, 64, report.arena_size) != 0) return 1;

  printf("arena %zu bytes (lower bound %zu, %s)\n", report.arena_size, report.lower_bound,
         report.proven_optimal ? "proven optimal" : "not proven optimal");
  for (k = 0; k < OPERATORS; k++) {
    int out = operators[k].output;
    unsigned char *data = arena + offsets[out];
    printf("  %-6s writes value %d: %7zu bytes at offset %7zu (nodes %zu..%zu)\n",
           operators[k].name, out, values[out].size, offsets[out], values[out].first_use,
           values[out].last_use);
    data[0] = (unsigned char)k; /* the operator would run here */
  }
  printf("relu1 in place: value 1 at offset %zu, value 0 at offset %zu\n", offsets[1], offsets[0]);
  free(arena);
  return 0;
}
