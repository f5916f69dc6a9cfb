//! The greedy on tables whose lifetimes all share one point: every pair
//! conflicts, so each tensor goes on top of the ones before it.
//!
//! Where the latest first use is no later than the earliest last use,
//! every lifetime spans the nodes between the two, and every placed tensor
//! conflicts with every later one. The placed ranges then always make one
//! block `[0, top)`: the first tensor goes at 0 (nothing is placed), and
//! with no gap and no leading interval the next one is appended after the
//! block, at `top`. The specification's plan is therefore the running sum
//! of the sizes in placement order, bit for bit. Such tables are buffers
//! all live together (weights, a model's persistent state) and nested
//! lifetimes held across a turn (the skip connections of an encoder and
//! decoder, forward activations without the short tensors between them),
//! where every other path reads one range or union per conflicting
//! tensor, `O(n²)` pairs.

use super::TensorLifetime;
use crate::error::PlanError;
use crate::input::InputList;

/// Whether the planned tensors (those of non-zero size) of `tensors` all
/// share one point of their lifetimes, so that every pair conflicts:
/// the latest first use is no later than the earliest last use. `false`
/// for a table with no planned tensor.
///
/// Complexity: `O(n)` time, no memory; it stops at the first planned
/// tensor that misses one before it, so on most tables after a few.
pub(crate) fn all_meet<L: InputList<Item = TensorLifetime> + ?Sized>(tensors: &L) -> bool {
    let (mut latest_first, mut earliest_last, mut any) = (0usize, usize::MAX, false);
    for i in 0..tensors.count() {
        let t = tensors.at(i);
        if t.size > 0 {
            latest_first = latest_first.max(t.first_use);
            earliest_last = earliest_last.min(t.last_use);
            if latest_first > earliest_last {
                return false;
            }
            any = true;
        }
    }
    any
}

/// Places the tensors of `order` (placement order; every planned tensor
/// once) of a table where [`all_meet`] holds, each on top of the ones
/// before it; writes their `offsets` and returns the arena. On error
/// nothing is written.
///
/// Errors: [`PlanError::Overflow`] for the first tensor in `order` whose
/// end passes `usize::MAX`.
///
/// Complexity: `O(n)` time, no memory.
pub(super) fn place(
    tensors: &[TensorLifetime],
    order: &[usize],
    offsets: &mut [usize],
) -> Result<usize, PlanError> {
    let arena = top(order.iter().map(|&i| (i, tensors[i].size)))?;
    let mut offset = 0;
    for &i in order {
        offsets[i] = offset;
        offset += tensors[i].size;
    }
    Ok(arena)
}

/// The sum of the sizes of `placed` (tensor, size) pairs, or the overflow
/// of the first tensor whose end passes `usize::MAX` when they are stacked
/// in that order.
pub(crate) fn top(placed: impl Iterator<Item = (usize, usize)>) -> Result<usize, PlanError> {
    let mut top = 0usize;
    for (tensor, size) in placed {
        top = top
            .checked_add(size)
            .ok_or(PlanError::Overflow { tensor })?;
    }
    Ok(top)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::offsets::greedy::naive_plan;
    use crate::rng::XorShift;

    /// Tables whose lifetimes all span node `turn`, of every size class
    /// (equal sizes, zero sizes, nested and identical lifetimes).
    fn tables_meeting_at_a_point(rng: &mut XorShift) -> Vec<Vec<TensorLifetime>> {
        (0..200)
            .map(|_| {
                let n = 1 + rng.below(300);
                let turn = 1 + rng.below(50);
                let sizes = 1 + rng.below(4);
                (0..n)
                    .map(|_| {
                        let first = turn - rng.below(turn + 1);
                        let last = turn + rng.below(50);
                        let size = match sizes {
                            1 => 64,
                            2 => rng.below(3) * 32,
                            _ => rng.below(5000),
                        };
                        TensorLifetime::new(size, first, last)
                    })
                    .collect()
            })
            .collect()
    }

    #[test]
    fn tables_meeting_at_a_point_get_the_naive_plan() {
        let mut rng = XorShift(0x5EED_0C11);
        for tensors in tables_meeting_at_a_point(&mut rng) {
            let planned = tensors.iter().any(|t| t.size > 0);
            assert_eq!(all_meet(tensors.as_slice()), planned);
            assert_eq!(
                crate::try_plan_offsets(&tensors).unwrap(),
                naive_plan(&tensors)
            );
        }
    }

    #[test]
    fn all_meet_is_whether_every_pair_conflicts() {
        let mut rng = XorShift(0x5EED_0C12);
        for _ in 0..2000 {
            let tensors: Vec<TensorLifetime> = (0..1 + rng.below(6))
                .map(|_| {
                    let first = rng.below(8);
                    TensorLifetime::new(rng.below(3), first, first + rng.below(8))
                })
                .collect();
            let planned: Vec<&TensorLifetime> = tensors.iter().filter(|t| t.size > 0).collect();
            let every_pair = planned
                .iter()
                .all(|a| planned.iter().all(|b| a.overlaps(b)));
            assert_eq!(
                all_meet(tensors.as_slice()),
                !planned.is_empty() && every_pair,
                "{tensors:?}"
            );
        }
    }

    /// Tensors meeting at node 2 whose stack passes `usize::MAX` at
    /// tensor 1: placement order is 0 and 2 (equal sizes, input order),
    /// then 1; tensor 3 has size 0.
    pub(crate) fn past_the_address_space() -> [TensorLifetime; 4] {
        let big = usize::MAX / 2;
        [
            TensorLifetime::new(big, 0, 3),
            TensorLifetime::new(4, 1, 2),
            TensorLifetime::new(big, 2, 5),
            TensorLifetime::new(0, 9, 9),
        ]
    }

    #[test]
    fn the_first_tensor_to_pass_the_address_space_is_named() {
        let tensors = past_the_address_space();
        assert!(all_meet(tensors.as_slice()));
        assert_eq!(
            crate::try_plan_offsets(&tensors),
            Err(PlanError::Overflow { tensor: 1 })
        );
        let mut offsets = vec![7; 4];
        assert_eq!(
            place(&tensors, &[0, 2, 1], &mut offsets),
            Err(PlanError::Overflow { tensor: 1 })
        );
        assert_eq!(offsets, vec![7; 4], "nothing is written on error");
    }
}
