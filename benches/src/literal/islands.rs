//! Islands by a disjoint-set forest, literally as the specification states
//! it.
//!
//! One parent array. Union links the larger root under the smaller, so every
//! root is its set's minimum; find compresses the path it walks. One
//! ascending pass numbers the roots in order and gives every other node its
//! root's number.
//!
//! `O(n + m log n)` amortised time for `m` incidences; one word per node.

use aether_planner::PlanError;

const INACTIVE: usize = usize::MAX;

fn find(parent: &mut [usize], x: usize) -> usize {
    let mut root = x;
    while parent[root] != root {
        root = parent[root];
    }
    let mut node = x;
    while node != root {
        let next = parent[node];
        parent[node] = root;
        node = next;
    }
    root
}

/// Each node's canonical island label and the number of islands, with the
/// library's error for the first incidence naming a node out of range.
pub fn islands(
    node_count: usize,
    incidences: &[(usize, usize)],
) -> Result<(Vec<Option<usize>>, usize), PlanError> {
    for (i, &(a, b)) in incidences.iter().enumerate() {
        let node = a.max(b);
        if node >= node_count {
            return Err(PlanError::IncidenceOutOfRange {
                incidence: i,
                node,
                node_count,
            });
        }
    }
    let mut parent = vec![INACTIVE; node_count];
    for &(a, b) in incidences {
        for x in [a, b] {
            if parent[x] == INACTIVE {
                parent[x] = x;
            }
        }
        let ra = find(&mut parent, a);
        let rb = find(&mut parent, b);
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
        }
    }
    let mut labels = vec![None; node_count];
    let mut count = 0;
    for x in 0..node_count {
        if parent[x] == INACTIVE {
            continue;
        }
        let root = find(&mut parent, x);
        if root == x {
            labels[x] = Some(count);
            count += 1;
        } else {
            labels[x] = labels[root];
        }
    }
    Ok((labels, count))
}
