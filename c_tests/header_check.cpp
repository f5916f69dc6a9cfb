// The public header compiled as C++: extern "C" linkage and no C-only syntax.
#include "aether_planner.h"

#include <cstddef>

int main() {
  const aether_tensor_lifetime tensors[] = {{64, 0, 1}, {32, 1, 2}};
  std::size_t offsets[2] = {0, 0};
  std::size_t arena = 0;
  aether_status status = aether_plan_offsets(tensors, 2, offsets, &arena);
  return status == AETHER_STATUS_OK && arena == 96 ? 0 : 1;
}
