// Plans through the installed C++ header.
#include <aether_planner.hpp>

#include <cstdio>
#include <vector>

int main() {
  const std::vector<aether_tensor_lifetime> tensors = {{100, 0, 1}, {80, 1, 2}, {60, 2, 3}};
  const auto plan = aether::plan_offsets(tensors);
  if (!plan) {
    std::fprintf(stderr, "tensor %zu: %s\n", plan.error().index, plan.message());
    return 1;
  }
  std::printf("aether-planner %s (C++): arena %zu\n", aether_version(), plan->arena_size);
  const auto bad = aether::plan_offsets(std::vector<aether_tensor_lifetime>{{8, 0, 1}, {8, 3, 2}});
  return plan->arena_size == 180 && !bad && bad.error().index == 1 ? 0 : 1;
}
