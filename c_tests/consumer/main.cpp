// Finds islands through the installed library from C++.
#include <aether_planner.h>

#include <cstdio>
#include <vector>

int main() {
  const std::vector<aether_incidence> contacts = {{3, 1}, {2, 2}};
  std::vector<std::size_t> labels(4);
  std::size_t islands = 0;
  aether_status status =
      aether_islands(labels.size(), contacts.data(), contacts.size(), labels.data(), &islands);
  if (status != AETHER_STATUS_OK) {
    std::fprintf(stderr, "aether_islands: %s\n", aether_status_str(status));
    return 1;
  }
  std::printf("aether-planner %s: %zu islands\n", aether_version(), islands);
  const bool expected = islands == 2 && labels[0] == AETHER_NO_ISLAND && labels[1] == 0 &&
                        labels[2] == 1 && labels[3] == 0;
  return expected ? 0 : 1;
}
