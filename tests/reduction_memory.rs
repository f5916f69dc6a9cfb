//! The reduction's memory rule, pinned where it matters: nodes on no edge
//! cost nothing in either form (the any-order form once built six arrays of
//! `node_count` entries before refusing), and a matrix larger than the
//! address space left to the process is reduced in smaller blocks instead of
//! refused. Address-space limits are set in a child process (this test
//! binary run again on one test), so they never touch the other tests.
//! Every expected result comes from an independent oracle: a construction
//! whose reduction is known, or a depth-first reachability search.

use std::process::Command;

use aether_planner::{
    try_transitive_reduction, try_transitive_reduction_any_order,
    try_transitive_reduction_with_budget, PlanError,
};

#[path = "common/oracles.rs"]
mod oracles;
use oracles::{sparse_reduction, Rng};

/// Set in the child: the extra address space, in MiB, it may use.
const CHILD: &str = "AETHER_REDUCTION_MEMORY_CHILD_MIB";

/// Limits this process's address space to what it maps now plus `extra`
/// bytes (Linux only).
fn limit_address_space(extra: u64) {
    #[repr(C)]
    struct Rlimit {
        current: u64,
        max: u64,
    }
    extern "C" {
        fn setrlimit(resource: i32, limit: *const Rlimit) -> i32;
    }
    const RLIMIT_AS: i32 = 9;
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let mapped_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmSize:"))
        .and_then(|field| field.split_whitespace().next()?.parse().ok())
        .expect("VmSize");
    let limit = Rlimit {
        current: mapped_kib * 1024 + extra,
        max: mapped_kib * 1024 + extra,
    };
    // SAFETY: `limit` is a valid rlimit; lowering a limit is always allowed.
    assert_eq!(unsafe { setrlimit(RLIMIT_AS, &limit) }, 0, "setrlimit");
}

/// Runs the test `name` of this binary again in a child whose address space
/// may grow by `extra_mib` MiB only, and checks that it passed.
fn in_limited_child(name: &str, extra_mib: u64) {
    let out = Command::new(std::env::current_exe().expect("own path"))
        .args(["--exact", name, "--test-threads=1", "--nocapture"])
        .env(CHILD, extra_mib.to_string())
        .output()
        .expect("spawn the child");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && text.contains("CHILD PASSED"),
        "{name} under a {extra_mib} MiB limit: {:?}\n{text}\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
}

/// In the child: sets its limit and returns true. In the parent: runs the
/// child and returns false, so the caller's body runs only limited.
fn limited(name: &str, extra_mib: u64) -> bool {
    match std::env::var(CHILD) {
        Ok(mib) => {
            limit_address_space(mib.parse::<u64>().expect("MiB") << 20);
            true
        }
        Err(_) => {
            in_limited_child(name, extra_mib);
            false
        }
    }
}

#[test]
fn any_order_with_one_edge_and_2_pow_26_nodes_needs_no_node_sized_array() {
    // 0.1.0 built six arrays of 2^26 entries (2.5 GiB) first, then refused.
    if !limited(
        "any_order_with_one_edge_and_2_pow_26_nodes_needs_no_node_sized_array",
        64,
    ) {
        return;
    }
    let n = 1 << 26;
    assert_eq!(
        try_transitive_reduction_any_order(n, &[(n - 1, 3)]),
        Ok(vec![(n - 1, 3)])
    );
    assert_eq!(
        try_transitive_reduction(n, &[(3, n - 1)]),
        Ok(vec![(3, n - 1)])
    );
    // A cycle among two of the 2^26 nodes is named as one, also without
    // node-sized arrays.
    match try_transitive_reduction_any_order(n, &[(n - 1, 7), (7, n - 1), (7, 8)]) {
        Err(PlanError::Cycle { node }) => assert!(node == 7 || node == n - 1, "{node}"),
        other => panic!("a cycle, not {other:?}"),
    }
    println!("CHILD PASSED");
}

#[test]
fn sparse_graphs_on_huge_node_counts_equal_the_search_in_both_forms() {
    let mut rng = Rng::new(0x5EED_0014);
    for round in 0..200 {
        let node_count = [1usize << 40, 1 << 20, 1_000][round % 3];
        // A few nodes spread over the whole range, so most lie on no edge.
        let mut nodes: Vec<usize> = (0..2 + rng.below(12))
            .map(|_| rng.below(node_count))
            .collect();
        nodes.sort_unstable();
        nodes.dedup();
        let mut edges = Vec::new();
        for _ in 0..rng.below(2 * nodes.len()) {
            let (i, j) = (rng.below(nodes.len()), rng.below(nodes.len()));
            if i < j {
                edges.push((nodes[i], nodes[j]));
            }
        }
        let expected = sparse_reduction(&edges);
        assert_eq!(
            try_transitive_reduction(node_count, &edges).as_ref(),
            Ok(&expected),
            "{node_count} {edges:?}"
        );
        // The any-order form on the same edges with the nodes' names
        // permuted (reversed), mapped back.
        let renamed: Vec<(usize, usize)> = edges
            .iter()
            .map(|&(u, v)| (node_count - 1 - u, node_count - 1 - v))
            .collect();
        let mut expected_renamed: Vec<(usize, usize)> = expected
            .iter()
            .map(|&(u, v)| (node_count - 1 - u, node_count - 1 - v))
            .collect();
        expected_renamed.sort_unstable();
        assert_eq!(
            try_transitive_reduction_any_order(node_count, &renamed),
            Ok(expected_renamed),
            "{node_count} {renamed:?}"
        );
    }
}

#[test]
fn a_triangle_beyond_the_address_space_left_is_reduced_in_smaller_blocks() {
    // 40,000 nodes: a 100 MB triangle, asked for whole (budget usize::MAX)
    // with 48 MiB of address space left. The chain with forward skips has
    // the chain as its reduction: every skip is implied by the chain.
    if !limited(
        "a_triangle_beyond_the_address_space_left_is_reduced_in_smaller_blocks",
        48,
    ) {
        return;
    }
    let n = 40_000;
    let mut rng = Rng::new(0x5EED_0015);
    let chain: Vec<(usize, usize)> = (1..n).map(|v| (v - 1, v)).collect();
    let mut edges = chain.clone();
    for _ in 0..n {
        let u = rng.below(n - 2);
        edges.push((u, u + 2 + rng.below(n - u - 2)));
    }
    let whole_budget = try_transitive_reduction_with_budget(n, &edges, usize::MAX);
    assert_eq!(whole_budget.as_ref(), Ok(&chain));
    assert_eq!(try_transitive_reduction(n, &edges), Ok(chain));
    println!("CHILD PASSED");
}
