#define _POSIX_C_SOURCE 200112L /* setenv */
/*
 * Run against a library built with the panic-injection feature: while
 * AETHER_INJECT_PANIC is set every entry point panics inside its boundary and
 * must return AETHER_STATUS_PANIC, leave its outputs alone, and let this
 * process go on; once unset, the same calls succeed.
 */
#include "aether_planner.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned passed, failed;

static void check(int ok, const char *what) {
  if (ok) {
    passed++;
  } else {
    failed++;
    fprintf(stderr, "check failed: %s\n", what);
  }
}

static void call_every_entry_point(aether_status expected) {
  const aether_tensor_lifetime tensors[2] = {{8, 0, 1}, {8, 1, 2}};
  const aether_edge edges[2] = {{0, 1}, {1, 2}};
  const aether_incidence incidences[1] = {{0, 1}};
  size_t offsets[2] = {77, 77}, value = 77, labels[3] = {77, 77, 77};
  aether_edge out[2] = {{77, 77}, {77, 77}};
  aether_error_detail detail = {77, 77, 77};
  aether_plan_options options;
  aether_plan_report report;
  int untouched_if_panic;

  aether_plan_options_init(&options);
  report.struct_size = sizeof report;
  report.arena_size = 77;

  check(aether_plan_offsets(tensors, 2, offsets, &value) == expected, "aether_plan_offsets");
  check(aether_peak_live_bytes(tensors, 2, &value) == expected, "aether_peak_live_bytes");
  check(aether_transitive_reduction(3, edges, 2, out, 2, &value) == expected,
        "aether_transitive_reduction");
  check(aether_islands(3, incidences, 1, labels, &value) == expected, "aether_islands");
  check(aether_plan_offsets_explain(tensors, 2, &detail) == expected, "aether_plan_offsets_explain");
  check(aether_peak_live_bytes_explain(tensors, 2, &detail) == expected,
        "aether_peak_live_bytes_explain");
  check(aether_transitive_reduction_explain(3, edges, 2, &detail) == expected,
        "aether_transitive_reduction_explain");
  check(aether_islands_explain(3, incidences, 1, &detail) == expected, "aether_islands_explain");
  check(aether_plan_offsets_with(tensors, 2, &options, offsets, &report) == expected,
        "aether_plan_offsets_with");
  check(aether_plan_offsets_with_explain(tensors, 2, &options, &detail) == expected,
        "aether_plan_offsets_with_explain");
  check(aether_plan_offsets_observed(tensors, 2, &options, NULL, NULL, offsets, &report) ==
            expected,
        "aether_plan_offsets_observed");
  untouched_if_panic = offsets[0] == 77 && offsets[1] == 77 && value == 77 && labels[0] == 77 &&
                       out[0].source == 77 && detail.status == 77 &&
                       report.arena_size == 77;
  check(expected != AETHER_STATUS_PANIC || untouched_if_panic, "outputs untouched after a panic");
}

int main(void) {
  if (setenv("AETHER_INJECT_PANIC", "1", 1) != 0) return 2;
  call_every_entry_point(AETHER_STATUS_PANIC);
  /* The process is still here, and the library still works. */
  unsetenv("AETHER_INJECT_PANIC");
  call_every_entry_point(AETHER_STATUS_OK);
  printf("%u passed, %u failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}
