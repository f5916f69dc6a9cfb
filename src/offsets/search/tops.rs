//! The tops of the placed tensors over the sections, in a segment tree: a
//! placement tags the `O(log S)` nodes tiling its section range with its
//! top, so the highest top over any section range (the floor of an unplaced
//! tensor there) is an `O(log S)` query, and undoing a placement restores
//! `O(log S)` tags. Logging old floors and section tops instead would keep
//! `O(E)` entries along a deep search path, `E` the conflicting pairs.

use crate::error::PlanError;
use crate::sys::fallible;

pub(super) struct Tops {
    /// Leaves: the section count rounded up to a power of two.
    leaves: usize,
    /// Highest top of the placements whose tiling holds the node.
    tag: Vec<usize>,
    /// Highest tag in the node's subtree, the node included.
    below: Vec<usize>,
    /// Old tags, restored in reverse by [`Tops::undo`].
    log: Vec<(u32, usize)>,
}

impl Tops {
    /// No placement yet over `count` sections. Errors:
    /// [`PlanError::OutOfMemory`].
    pub(super) fn new(count: usize) -> Result<Self, PlanError> {
        let leaves = count.max(1).next_power_of_two();
        Ok(Tops {
            leaves,
            tag: fallible::filled(2 * leaves, 0)?,
            below: fallible::filled(2 * leaves, 0)?,
            log: fallible::with_capacity(64)?,
        })
    }

    /// No placement at all.
    pub(super) fn clear(&mut self) {
        self.tag.fill(0);
        self.below.fill(0);
        self.log.clear();
    }

    /// Length of the log, to [`Tops::undo`] to.
    pub(super) fn log_len(&self) -> usize {
        self.log.len()
    }

    /// Records a placement over the sections `(lo, hi)` with top `top`.
    /// Errors: [`PlanError::OutOfMemory`] if the log cannot grow; the tags
    /// logged so far stay logged, so [`Tops::undo`] still restores them.
    pub(super) fn raise(&mut self, (lo, hi): (usize, usize), top: usize) -> Result<(), PlanError> {
        let (mut l, mut r) = (lo + self.leaves, hi + self.leaves);
        while l < r {
            if l & 1 == 1 {
                self.tag_node(l, top)?;
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                self.tag_node(r, top)?;
            }
            l >>= 1;
            r >>= 1;
        }
        Ok(())
    }

    fn tag_node(&mut self, v: usize, top: usize) -> Result<(), PlanError> {
        if self.tag[v] >= top {
            return Ok(());
        }
        fallible::push(&mut self.log, (v as u32, self.tag[v]))?;
        self.tag[v] = top;
        self.lift(v);
        Ok(())
    }

    /// Recomputes `below` from `v` up to the root.
    fn lift(&mut self, mut v: usize) {
        while v > 0 {
            let children = if v < self.leaves {
                self.below[2 * v].max(self.below[2 * v + 1])
            } else {
                0
            };
            self.below[v] = self.tag[v].max(children);
            v >>= 1;
        }
    }

    /// Takes back the placements recorded after the log had length `len`.
    pub(super) fn undo(&mut self, len: usize) {
        while self.log.len() > len {
            let (v, old) = self.log.pop().expect("length checked");
            self.tag[v as usize] = old;
            self.lift(v as usize);
        }
    }

    /// The highest top over the sections `(lo, hi)` (0 if none).
    pub(super) fn highest(&self, (lo, hi): (usize, usize)) -> usize {
        self.highest_in(1, 0, self.leaves, lo, hi)
    }

    fn highest_in(&self, v: usize, a: usize, b: usize, lo: usize, hi: usize) -> usize {
        if hi <= a || b <= lo {
            return 0;
        }
        if lo <= a && b <= hi {
            return self.below[v];
        }
        let mid = (a + b) / 2;
        self.tag[v]
            .max(self.highest_in(2 * v, a, mid, lo, hi))
            .max(self.highest_in(2 * v + 1, mid, b, lo, hi))
    }

    /// The highest top over section `s`.
    pub(super) fn at(&self, s: usize) -> usize {
        let mut v = s + self.leaves;
        let mut top = 0;
        while v > 0 {
            top = top.max(self.tag[v]);
            v >>= 1;
        }
        top
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Queries agree with a plain array of section tops through seeded
    /// random placements and undos.
    #[test]
    fn queries_match_an_array() {
        let mut rng = crate::rng::XorShift(0xD1B5_4A32_D192_ED03);
        for _ in 0..50 {
            let count = 1 + rng.below(30);
            let mut tops = Tops::new(count).unwrap();
            let mut plain = vec![0usize; count];
            let mut history: Vec<(usize, Vec<usize>)> = Vec::new();
            for _ in 0..60 {
                if rng.below(3) == 0 {
                    if let Some((len, old)) = history.pop() {
                        tops.undo(len);
                        plain = old;
                    }
                } else {
                    let (a, b) = (rng.below(count), rng.below(count));
                    let range = (a.min(b), a.max(b) + 1);
                    let top = rng.below(100);
                    history.push((tops.log_len(), plain.clone()));
                    tops.raise(range, top).unwrap();
                    for t in &mut plain[range.0..range.1] {
                        *t = (*t).max(top);
                    }
                }
                for (s, &top) in plain.iter().enumerate() {
                    assert_eq!(tops.at(s), top);
                }
                let (a, b) = (rng.below(count), rng.below(count));
                let range = (a.min(b), a.max(b) + 1);
                let expected = plain[range.0..range.1].iter().copied().max().unwrap();
                assert_eq!(tops.highest(range), expected);
            }
        }
    }
}
