/*
 * A physics engine's islands, found the way MuJoCo-style engines ask for
 * them: trees indexed by int, one pair per constraint with -1 for the static
 * world, and labels written straight into the engine's own int array.
 *
 *   cc mujoco_style.c $(pkg-config --cflags --libs aether_planner)
 */
#include <aether_planner.h>

#include <stdio.h>

enum { TREES = 8 };

int main(void) {
  /* Constraints between kinematic trees; -1 is the world. */
  static const int contacts[][2] = {
      {0, -1}, /* tree 0 rests on the floor */
      {1, 2},  /* trees 1 and 2 touch */
      {2, 5},  /* ... and 2 touches 5 */
      {-1, 6}, /* tree 6 hangs from a fixed anchor */
      {7, 4},  /* trees 7 and 4 are welded */
  };
  const int pair_count = (int)(sizeof contacts / sizeof contacts[0]);
  int island_of_tree[TREES]; /* the engine's own array */
  int islands = 0, tree;
  aether_status status =
      aether_islands_i32(TREES, &contacts[0][0], pair_count, island_of_tree, &islands);
  if (status != AETHER_STATUS_OK) {
    fprintf(stderr, "island discovery failed: %s\n", aether_status_str(status));
    return 1;
  }
  printf("%d islands among %d trees\n", islands, TREES);
  for (tree = 0; tree < TREES; tree++) {
    if (island_of_tree[tree] < 0)
      printf("  tree %d: asleep (no constraint)\n", tree);
    else
      printf("  tree %d: island %d\n", tree, island_of_tree[tree]);
  }
  return 0;
}
