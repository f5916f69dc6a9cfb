/* Compiles the public header under strict warnings; built as C99, C11 and,
 * renamed header_check.cpp, as C++11 and C++17. */
#include "aether_planner.h"
#include "aether_planner.h" /* the include guard holds */

int main(void) {
  aether_tensor_lifetime tensor = {64, 0, 1};
  size_t offset = 0, arena = 0;
  aether_status status = aether_plan_offsets(&tensor, 1, &offset, &arena);
  return status == AETHER_STATUS_OK && arena == 64 ? 0 : 1;
}
