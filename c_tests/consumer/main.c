/* Plans a three-tensor arena through the installed library. */
#include <aether_planner.h>

#include <stdio.h>

int main(void) {
  const aether_tensor_lifetime tensors[3] = {{100, 0, 1}, {80, 1, 2}, {60, 2, 3}};
  size_t offsets[3], arena = 0;
  aether_status status = aether_plan_offsets(tensors, 3, offsets, &arena);
  if (status != AETHER_STATUS_OK) {
    fprintf(stderr, "aether_plan_offsets: %s\n", aether_status_str(status));
    return 1;
  }
  printf("aether-planner %s: offsets %zu %zu %zu, arena %zu\n", aether_version(), offsets[0],
         offsets[1], offsets[2], arena);
  return offsets[0] == 0 && offsets[1] == 100 && offsets[2] == 0 && arena == 180 ? 0 : 1;
}
