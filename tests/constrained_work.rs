//! Work and memory of the constrained planner, measured by counting, not
//! by the clock: what one search node costs must not grow with byte
//! magnitudes.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

#[path = "common/problems.rs"]
mod problems;
use problems::byte_stepping;

use aether_planner::{
    try_plan_problem, LifetimeGap, PlanOptions, PlanProblem, SearchBudget, Strategy, TensorLifetime,
};

/// The system allocator, counting for each thread the bytes it has live
/// (less what it freed of other threads', so possibly below zero), their
/// peak and its allocations in all. The planner runs on its caller's
/// thread alone; the test harness runs tests, and allocates, on others.
struct Counting;

thread_local! {
    static LIVE: Cell<i64> = const { Cell::new(0) };
    static PEAK: Cell<i64> = const { Cell::new(0) };
    /// Bytes allocated in all, freed or not.
    static TOTAL: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded to `System` unchanged; the counters only
// observe (thread-local cells of no destructor, never allocating).
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let p = System.alloc(layout);
        if !p.is_null() {
            let size = layout.size() as i64;
            let _ = LIVE.try_with(|live| {
                live.set(live.get() + size);
                let _ = PEAK.try_with(|peak| peak.set(peak.get().max(live.get())));
            });
            let _ = TOTAL.try_with(|total| total.set(total.get() + layout.size()));
        }
        p
    }
    unsafe fn dealloc(&self, p: *mut u8, layout: Layout) {
        System.dealloc(p, layout);
        let _ = LIVE.try_with(|live| live.set(live.get() - layout.size() as i64));
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Bytes this thread allocated at the peak of `f` above what it had live
/// before it.
fn peak_of<T>(f: impl FnOnce() -> T) -> (T, usize) {
    let before = LIVE.with(Cell::get);
    PEAK.with(|peak| peak.set(before));
    let out = f();
    (out, (PEAK.with(Cell::get) - before) as usize)
}

#[test]
fn a_search_node_costs_the_same_memory_whatever_the_byte_magnitudes() {
    let mut options = PlanOptions::default();
    options.strategy = Strategy::Search;
    options.budget = SearchBudget::nodes(10_000);
    // One alignment for all, and a mixed one, where a cycle's gain per lap
    // depends on the offsets.
    for alignments in [vec![], vec![1, 1, 2, 1, 1, 1, 1]] {
        let mut peaks = Vec::new();
        for k in [8, 20] {
            let big = 1usize << k;
            let (tensors, gaps, fixed) = byte_stepping(big);
            let problem = PlanProblem::new(&tensors)
                .with_alignments(&alignments)
                .with_gaps(&gaps)
                .with_fixed_offsets(&fixed)
                .with_capacity(Some(big + 10));
            let (report, peak) = peak_of(|| try_plan_problem(&problem, &options));
            let report = report.unwrap();
            println!(
                "alignments {alignments:?}, 2^{k} bytes: peak {peak} bytes, {} nodes",
                report.search_nodes
            );
            peaks.push(peak);
        }
        // Raising blocks a byte at a time kept one trail entry per raise:
        // a peak that grows with 2^k. Bounded per-node work keeps it flat
        // (a little slack for the plan's own vectors).
        assert!(peaks[1] <= peaks[0] + 1024, "{alignments:?}: {peaks:?}");
    }
}

/// `n` buffers all live together, sizes varied, one of them aligned.
fn all_live(n: usize) -> (Vec<TensorLifetime>, Vec<usize>) {
    let tensors = (0..n)
        .map(|i| TensorLifetime::new(64 + (i * 37) % 1000, 0, 1 + i % 3))
        .collect();
    let mut alignments = vec![1; n];
    alignments[0] = 2;
    (tensors, alignments)
}

/// Plans `problem` over `tensors`, all active at one node, with every
/// strategy: each plan keeps them apart (checked here, from the tensors)
/// and peaks below 1,000 bytes per tensor, where a conflict list would
/// take at least 16 bytes per pair and side. Returns the plans' offsets.
fn plans_storing_nothing_per_pair(
    problem: &PlanProblem<'_>,
    tensors: &[TensorLifetime],
) -> Vec<Vec<usize>> {
    let n = tensors.len();
    let mut plans = Vec::new();
    for strategy in [Strategy::Greedy, Strategy::Heuristic, Strategy::Search] {
        let mut options = PlanOptions::default();
        options.strategy = strategy;
        options.budget = SearchBudget::nodes(2);
        let (report, peak) = peak_of(|| try_plan_problem(problem, &options));
        let offsets = report.unwrap().plan.offsets;
        let mut ranges: Vec<(usize, usize)> = offsets
            .iter()
            .zip(tensors)
            .map(|(&o, t)| (o, o + t.size))
            .collect();
        ranges.sort_unstable();
        assert!(ranges.windows(2).all(|w| w[0].1 <= w[1].0), "{strategy:?}");
        println!("{strategy:?}: peak {peak} bytes for {n} buffers");
        assert!(peak < 1000 * n, "{strategy:?}: peak {peak} bytes");
        plans.push(offsets);
    }
    plans
}

#[test]
fn one_alignment_over_buffers_all_live_stores_nothing_per_pair() {
    // 3,000 buffers: 4.5 million conflicting pairs, past what is listed.
    let (tensors, alignments) = all_live(3000);
    let problem = PlanProblem::new(&tensors).with_alignments(&alignments);
    for offsets in plans_storing_nothing_per_pair(&problem, &tensors) {
        assert_eq!(offsets[0] % 2, 0);
    }
}

#[test]
fn gaps_in_every_buffer_all_live_store_nothing_per_pair() {
    // 2,000 buffers live at nodes 0 to 3, each inactive at node 1 or at
    // node 2: every two meet at node 0, so all 2 million pairs conflict,
    // and every block has two pieces. Listing them took 193 MB.
    let n = 2000;
    let tensors: Vec<TensorLifetime> = (0..n)
        .map(|i| TensorLifetime::new(64 + (i * 37) % 1000, 0, 3))
        .collect();
    let gaps: Vec<LifetimeGap> = (0..n)
        .map(|i| LifetimeGap::new(i, 1 + i % 2, 1 + i % 2))
        .collect();
    let problem = PlanProblem::new(&tensors).with_gaps(&gaps);
    plans_storing_nothing_per_pair(&problem, &tensors);
}

#[test]
fn one_fixed_offset_in_a_chain_allocates_linearly() {
    // Buffer i lives at nodes i and i + 1; one in the middle is fixed. The
    // lower bound's lowest offset among the fixed blocks, taken for every
    // free block, once built an offset per block for each of them.
    let mut per_buffer = Vec::new();
    for n in [1000, 4000] {
        let tensors: Vec<TensorLifetime> = (0..n)
            .map(|i| TensorLifetime::new(64 + (i * 37) % 1000, i, i + 1))
            .collect();
        let mut fixed = vec![None; n];
        fixed[n / 2] = Some(4096);
        let problem = PlanProblem::new(&tensors).with_fixed_offsets(&fixed);
        for strategy in [Strategy::Greedy, Strategy::Heuristic, Strategy::Search] {
            let mut options = PlanOptions::default();
            options.strategy = strategy;
            let before = TOTAL.with(Cell::get);
            let report = try_plan_problem(&problem, &options).unwrap();
            let bytes = TOTAL.with(Cell::get) - before;
            // Checked here: neighbours in the chain keep apart, the fixed
            // one stays.
            let o = &report.plan.offsets;
            assert_eq!(o[n / 2], 4096);
            for i in 1..n {
                let (a, b) = (o[i - 1], o[i]);
                assert!(a + tensors[i - 1].size <= b || b + tensors[i].size <= a);
            }
            println!("{n} buffers, {strategy:?}: {bytes} bytes allocated");
            per_buffer.push((n, strategy, bytes / n));
        }
    }
    // Bytes allocated per buffer stay flat as the chain grows fourfold.
    let (small, large) = per_buffer.split_at(3);
    for (s, l) in small.iter().zip(large) {
        assert!(l.2 <= 2 * s.2, "{per_buffer:?}");
    }
}
