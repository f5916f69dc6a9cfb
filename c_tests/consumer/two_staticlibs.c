/* aether-planner's static library and another Rust static library in one C
 * program: each carries its own copy of Rust's std, and the link must still
 * succeed and both must work. */
#include <aether_planner.h>

#include <stdint.h>
#include <stdio.h>

uint64_t other_staticlib_sum(uint32_t n);

int main(void) {
  const aether_tensor_lifetime tensors[3] = {{100, 0, 1}, {80, 1, 2}, {60, 2, 3}};
  size_t offsets[3], arena = 0;
  aether_status status = aether_plan_offsets(tensors, 3, offsets, &arena);
  uint64_t sum = other_staticlib_sum(10);
  printf("aether-planner arena %zu, other library sum %llu\n", arena, (unsigned long long)sum);
  return status == AETHER_STATUS_OK && arena == 180 && sum == 45 ? 0 : 1;
}
