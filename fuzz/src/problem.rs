//! The constrained problem read afresh from its documented semantics (the
//! module docs of `src/offsets/constrained/mod.rs`), sharing nothing with
//! the planner: which problems are well formed, whether a plan honours
//! every constraint, and a brute force over canonical offsets that finds
//! the smallest plan of a few buffers.
//!
//! The semantics, as read here. Node indices are inclusive; a span of
//! nodes is kept half-open in `u128` (`last + 1` never overflows). A tensor
//! occupies `[offset, offset + rounded size)` over its lifetime outside its
//! gaps, `[offset + lo, offset + hi)` in a gap with a window and nothing in
//! a gap without one; sizes are rounded up to the plan's alignment. A reuse
//! group (a tensor, those that reuse it, and so on) shares one offset and
//! is one block, occupying at each node the hull of what its members occupy
//! there. Two blocks that occupy bytes at a common node must keep one of
//! them wholly above the other at every such node. Inside a group only a
//! tensor and the one it reuses directly may share bytes while both are
//! active: two other members (two buffers reusing one buffer, or the ends
//! of a chain) that would share a byte at a node where both occupy bytes
//! make the problem a conflict naming both, as two fixed tensors whose
//! offsets make them share bytes do. Offsets are multiples of the larger
//! of the tensor's alignment and the plan's; fixed tensors keep their
//! offsets; every tensor, one of no bytes included, ends (at `offset +
//! rounded size`) within the capacity; the arena is the largest such end
//! over tensors with bytes.

/// One tensor: `size` bytes live over the nodes `first..=last`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tensor {
    pub size: usize,
    pub first: usize,
    pub last: usize,
}

/// A gap of `tensor` over the nodes `first..=last`, with its window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Gap {
    pub tensor: usize,
    pub first: usize,
    pub last: usize,
    pub window: Option<(usize, usize)>,
}

/// A whole problem, as a caller states it. Per-tensor vectors are empty
/// (no constraint) or have one entry per tensor.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Problem {
    pub tensors: Vec<Tensor>,
    pub alignments: Vec<usize>,
    pub fixed: Vec<Option<usize>>,
    pub hints: Vec<Option<usize>>,
    pub gaps: Vec<Gap>,
    /// `(tensor, reused)`: `tensor` takes over the memory of `reused`.
    pub reuses: Vec<(usize, usize)>,
    pub capacity: Option<usize>,
    /// The plan's alignment.
    pub alignment: usize,
}

/// Bytes `[lo, hi)` above the offset over the nodes `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    start: u128,
    end: u128,
    lo: u128,
    hi: u128,
}

/// A reuse group, planned as one.
#[derive(Clone, Debug)]
struct Group {
    members: Vec<usize>,
    /// The largest alignment any member needs.
    align: u128,
    /// The largest rounded member size.
    size: u128,
    /// Every fixed offset of a member.
    fixed: Vec<u128>,
    /// At each node, the hull of what the members occupy; sorted, one span
    /// per stretch with the same hull.
    profile: Vec<Span>,
}

/// The problem as this module reads it.
#[derive(Clone, Debug)]
pub struct Model {
    problem: Problem,
    groups: Vec<Group>,
    group_of: Vec<usize>,
    /// Two members of one group that share bytes while both occupy them,
    /// neither reusing the other directly: no plan is sound.
    pub clash: Option<(usize, usize)>,
    /// Some span has bytes that start above its offset (a window with
    /// `lo > 0`): the brute force is then a search for witnesses, not a
    /// proof.
    pub raised_windows: bool,
}

fn round_up(value: u128, to: u128) -> u128 {
    value.div_ceil(to) * to
}

impl Problem {
    /// The plan's alignment (the C API reads 0 as... nothing: it must be
    /// a power of two).
    fn plan_alignment(&self) -> u128 {
        self.alignment as u128
    }

    fn own_alignment(&self, t: usize) -> usize {
        self.alignments.get(t).copied().unwrap_or(1)
    }

    fn fixed_of(&self, t: usize) -> Option<usize> {
        self.fixed.get(t).copied().flatten()
    }

    fn rounded(&self, t: usize) -> u128 {
        round_up(self.tensors[t].size as u128, self.plan_alignment())
    }

    /// The tensor `t` reuses, if any (the first pair naming it).
    fn reused_by(&self, t: usize) -> Option<usize> {
        self.reuses.iter().find(|r| r.0 == t).map(|r| r.1)
    }

    /// What tensor `t` occupies, relative to its offset: sorted spans with
    /// bytes.
    fn spans(&self, t: usize) -> Vec<Span> {
        let tensor = self.tensors[t];
        let size = self.rounded(t);
        let mut gaps: Vec<&Gap> = self.gaps.iter().filter(|g| g.tensor == t).collect();
        gaps.sort_by_key(|g| g.first);
        let mut out = Vec::new();
        let mut push = |start: u128, end: u128, lo: u128, hi: u128| {
            if start < end && lo < hi {
                out.push(Span { start, end, lo, hi });
            }
        };
        let mut at = tensor.first as u128;
        for g in gaps {
            push(at, g.first as u128, 0, size);
            if let Some((lo, hi)) = g.window {
                push(g.first as u128, g.last as u128 + 1, lo as u128, hi as u128);
            }
            at = g.last as u128 + 1;
        }
        push(at, tensor.last as u128 + 1, 0, size);
        out
    }

    /// Checks what the documentation requires of the input itself, and
    /// reads the groups. Errors say what is malformed: a planner must not
    /// return a plan for it.
    pub fn model(&self) -> Result<Model, String> {
        let n = self.tensors.len();
        if !self.alignment.is_power_of_two() {
            return Err(format!("plan alignment {}", self.alignment));
        }
        for (name, len) in [
            ("alignments", self.alignments.len()),
            ("fixed", self.fixed.len()),
            ("hints", self.hints.len()),
        ] {
            if len != 0 && len != n {
                return Err(format!("{name}: {len} for {n} tensors"));
            }
        }
        for (i, t) in self.tensors.iter().enumerate() {
            if t.first > t.last {
                return Err(format!("tensor {i}: first {} > last {}", t.first, t.last));
            }
            if !self.own_alignment(i).is_power_of_two() {
                return Err(format!("tensor {i}: alignment {}", self.own_alignment(i)));
            }
            if self.rounded(i) > usize::MAX as u128 {
                return Err(format!("tensor {i}: rounded size passes usize::MAX"));
            }
        }
        for (k, g) in self.gaps.iter().enumerate() {
            let Some(t) = self.tensors.get(g.tensor) else {
                return Err(format!("gap {k}: no tensor {}", g.tensor));
            };
            if g.first > g.last || g.first < t.first || g.last > t.last {
                return Err(format!("gap {k}: not inside the lifetime"));
            }
            if g.window.is_some_and(|(lo, hi)| lo > hi || hi > t.size) {
                return Err(format!("gap {k}: window outside the size"));
            }
            for (j, h) in self.gaps.iter().enumerate() {
                if j != k && h.tensor == g.tensor && h.first <= g.last && g.first <= h.last {
                    return Err(format!("gaps {j} and {k} overlap"));
                }
            }
        }
        for (k, &(t, r)) in self.reuses.iter().enumerate() {
            if t >= n || r >= n || t == r {
                return Err(format!("reuse {k}: ({t}, {r})"));
            }
            if self.reuses[..k].iter().any(|p| p.0 == t) {
                return Err(format!("reuse {k}: tensor {t} reuses twice"));
            }
            if self.tensors[t].size > self.tensors[r].size {
                return Err(format!("reuse {k}: {t} is larger than {r}"));
            }
        }
        // The head of each chain; a chain longer than n is a cycle.
        let mut head = vec![0; n];
        for (t, h) in head.iter_mut().enumerate() {
            let mut x = t;
            for step in 0..=n {
                match self.reused_by(x) {
                    Some(r) => x = r,
                    None => break,
                }
                if step == n {
                    return Err(format!("a cycle of reuses through {t}"));
                }
            }
            *h = x;
        }
        let mut heads: Vec<usize> = head.clone();
        heads.sort_unstable();
        heads.dedup();
        let group_of: Vec<usize> = head
            .iter()
            .map(|h| heads.binary_search(h).unwrap())
            .collect();
        let mut raised_windows = false;
        let mut groups = Vec::new();
        for g in 0..heads.len() {
            let members: Vec<usize> = (0..n).filter(|&t| group_of[t] == g).collect();
            let spans: Vec<Span> = members.iter().flat_map(|&t| self.spans(t)).collect();
            raised_windows |= spans.iter().any(|s| s.lo > 0);
            groups.push(Group {
                align: members
                    .iter()
                    .map(|&t| self.own_alignment(t) as u128)
                    .chain([self.plan_alignment()])
                    .max()
                    .unwrap(),
                size: members
                    .iter()
                    .filter(|&&t| self.tensors[t].size > 0)
                    .map(|&t| self.rounded(t))
                    .max()
                    .unwrap_or(0),
                fixed: members
                    .iter()
                    .filter_map(|&t| self.fixed_of(t).map(|f| f as u128))
                    .collect(),
                profile: hull(&spans),
                members,
            });
        }
        let mut model = Model {
            problem: self.clone(),
            groups,
            group_of,
            clash: None,
            raised_windows,
        };
        model.clash = (0..n)
            .flat_map(|x| (x + 1..n).map(move |y| (x, y)))
            .find(|&(x, y)| model.members_clash(x, y));
        Ok(model)
    }

    /// Whether one of `x` and `y` reuses the other directly.
    fn reuse_pair(&self, x: usize, y: usize) -> bool {
        self.reused_by(x) == Some(y) || self.reused_by(y) == Some(x)
    }
}

/// The hull of `spans` at every node, as sorted spans.
fn hull(spans: &[Span]) -> Vec<Span> {
    let mut cuts: Vec<u128> = spans.iter().flat_map(|s| [s.start, s.end]).collect();
    cuts.sort_unstable();
    cuts.dedup();
    let mut out: Vec<Span> = Vec::new();
    for w in cuts.windows(2) {
        let covering = spans.iter().filter(|s| s.start <= w[0] && w[1] <= s.end);
        let Some((lo, hi)) = covering.fold(None, |acc: Option<(u128, u128)>, s| {
            Some(acc.map_or((s.lo, s.hi), |(lo, hi)| (lo.min(s.lo), hi.max(s.hi))))
        }) else {
            continue;
        };
        match out.last_mut() {
            Some(last) if last.end == w[0] && last.lo == lo && last.hi == hi => last.end = w[1],
            _ => out.push(Span {
                start: w[0],
                end: w[1],
                lo,
                hi,
            }),
        }
    }
    out
}

/// How two blocks lie at one common node: `Some(true)` when the second is
/// above the first, `Some(false)` below, `None` when they share bytes.
fn relation(a: &Span, oa: u128, b: &Span, ob: u128) -> Option<bool> {
    if oa + a.hi <= ob + b.lo {
        Some(true)
    } else if ob + b.hi <= oa + a.lo {
        Some(false)
    } else {
        None
    }
}

/// The least `o_b - o_a` that puts `b` above `a` at every common node, and
/// the least `o_a - o_b` for the reverse; `None` if they never meet.
fn separation(a: &[Span], b: &[Span]) -> Option<(i128, i128)> {
    let mut out: Option<(i128, i128)> = None;
    for p in a {
        for q in b.iter().filter(|q| p.start < q.end && q.start < p.end) {
            let (up, down) = (p.hi as i128 - q.lo as i128, q.hi as i128 - p.lo as i128);
            out = Some(out.map_or((up, down), |(u, d)| (u.max(up), d.max(down))));
        }
    }
    out
}

impl Model {
    /// Whether tensors `x` and `y` are two members of one group, neither
    /// reusing the other directly, that would share a byte at a node where
    /// both occupy bytes: the reuse pins them to one offset, so no plan is
    /// sound.
    pub fn members_clash(&self, x: usize, y: usize) -> bool {
        let p = &self.problem;
        x != y
            && self.group_of[x] == self.group_of[y]
            && !p.reuse_pair(x, y)
            && p.spans(x).iter().any(|a| {
                p.spans(y)
                    .iter()
                    .any(|b| a.start < b.end && b.start < a.end && a.lo < b.hi && b.lo < a.hi)
            })
    }

    /// Whether a refusal `ConflictingFixedOffsets { first, second }` is
    /// right: `first < second`, and either they clash inside one group
    /// ([`Model::members_clash`]), or both are fixed and their offsets
    /// cannot both be kept: fixed apart inside one group, or, in two
    /// groups, each group at its fixed offset sharing bytes with the other
    /// at a common node or changing places with it.
    pub fn conflict_is_right(&self, first: usize, second: usize) -> bool {
        let p = &self.problem;
        let n = p.tensors.len();
        if first >= second || second >= n {
            return false;
        }
        if self.members_clash(first, second) {
            return true;
        }
        let (Some(f), Some(s)) = (p.fixed_of(first), p.fixed_of(second)) else {
            return false;
        };
        let (g, h) = (self.group_of[first], self.group_of[second]);
        if g == h {
            return f != s;
        }
        self.groups_clash(g, f as u128, h, s as u128).is_some()
    }

    /// How groups `g` at `og` and `h` at `oh` break the rule that blocks
    /// active at a common node keep one wholly above the other over every
    /// such node, in words; `None` when they keep it.
    fn groups_clash(&self, g: usize, og: u128, h: usize, oh: u128) -> Option<String> {
        let mut order: Option<(bool, u128)> = None;
        for a in &self.groups[g].profile {
            for b in &self.groups[h].profile {
                if !(a.start < b.end && b.start < a.end) {
                    continue;
                }
                let node = a.start.max(b.start);
                let Some(above) = relation(a, og, b, oh) else {
                    return Some(format!(
                        "tensors {:?} and {:?} share bytes at node {node}",
                        self.groups[g].members, self.groups[h].members
                    ));
                };
                match order {
                    Some((o, first)) if o != above => {
                        return Some(format!(
                            "tensors {:?} and {:?} change places between nodes {first} and \
                             {node}",
                            self.groups[g].members, self.groups[h].members
                        ))
                    }
                    None => order = Some((above, node)),
                    _ => {}
                }
            }
        }
        None
    }

    /// Some fixed tensor whose end (`offset + rounded size`, its offset
    /// when it has no bytes) passes the capacity: no plan fits, provably.
    pub fn fixed_past_capacity(&self) -> Option<usize> {
        let p = &self.problem;
        let c = p.capacity? as u128;
        (0..p.tensors.len()).find(|&t| p.fixed_of(t).is_some_and(|f| f as u128 + p.rounded(t) > c))
    }

    /// Checks a plan against every constraint and returns its arena.
    ///
    /// Errors: the first constraint broken, in words.
    pub fn check(&self, offsets: &[usize]) -> Result<u128, String> {
        let p = &self.problem;
        let n = p.tensors.len();
        if offsets.len() != n {
            return Err(format!("{} offsets for {n} tensors", offsets.len()));
        }
        if let Some((x, y)) = self.clash {
            return Err(format!(
                "tensors {x} and {y} share memory by reuse, neither reusing the other, and \
                 share bytes while both are live: no plan is sound"
            ));
        }
        let mut arena = 0u128;
        for (t, &o) in offsets.iter().enumerate() {
            let align = p.own_alignment(t).max(p.alignment);
            if o % align != 0 {
                return Err(format!("tensor {t} at {o}: not a multiple of {align}"));
            }
            if let Some(f) = p.fixed_of(t) {
                if o != f {
                    return Err(format!("tensor {t} fixed at {f}, planned at {o}"));
                }
            }
            if let Some(r) = p.reused_by(t) {
                if o != offsets[r] {
                    return Err(format!("tensor {t} reuses {r}: {o} != {}", offsets[r]));
                }
            }
            let end = o as u128 + p.rounded(t);
            if end > usize::MAX as u128 {
                return Err(format!("tensor {t} ends at {end}, past usize::MAX"));
            }
            // A tensor of no bytes counts in no arena, but it ends at its
            // offset, and that within the capacity.
            if let Some(c) = p.capacity.filter(|&c| end > c as u128) {
                return Err(format!("tensor {t} ends at {end}, past the capacity {c}"));
            }
            if p.tensors[t].size > 0 {
                arena = arena.max(end);
            }
        }
        let at = |g: usize| offsets[self.groups[g].members[0]] as u128;
        for g in 0..self.groups.len() {
            for h in g + 1..self.groups.len() {
                if let Some(why) = self.groups_clash(g, at(g), h, at(h)) {
                    return Err(why);
                }
            }
        }
        Ok(arena)
    }
}

/// What the brute force found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Brute {
    /// The smallest plan found within the capacity, and its arena.
    pub best: Option<(u128, Vec<usize>)>,
    /// Whether no plan was missed: the canonical offsets are complete for
    /// these spans (no window starting above its offset) and no limit cut
    /// the enumeration short.
    pub exact: bool,
}

/// Candidate offsets kept per group, and placements tried in all.
const MOST_CANDIDATES: usize = 512;
const MOST_STEPS: u64 = 400_000;

impl Model {
    /// The smallest arena over canonical plans: each free group at 0 or just
    /// above another group (its offset plus their separation, rounded up to
    /// the alignment), along chains of at most one step per group. Every
    /// plan can be lowered to such a one without growing its arena when
    /// separations are positive (no window starting above its offset), so
    /// the search is then exact; with raised windows it is a search for
    /// witnesses. Plans found are checked by [`Model::check`].
    pub fn brute_force(&self) -> Brute {
        let k = self.groups.len();
        let mut exact = !self.raised_windows;
        if self.clash.is_some() {
            return Brute { best: None, exact };
        }
        let limit = self
            .problem
            .capacity
            .map_or(usize::MAX as u128, |c| c as u128);
        // Separations between groups: sep[g][h] = least o_h - o_g with h
        // above g, if they meet.
        let sep: Vec<Vec<Option<i128>>> = (0..k)
            .map(|g| {
                (0..k)
                    .map(|h| {
                        let (a, b) = (&self.groups[g].profile, &self.groups[h].profile);
                        (g != h)
                            .then(|| separation(a, b))
                            .flatten()
                            .map(|(up, _)| up)
                    })
                    .collect()
            })
            .collect();
        let fits = |g: usize, o: u128| o + self.groups[g].size <= limit;
        let mut candidates: Vec<Vec<u128>> = self
            .groups
            .iter()
            .map(|group| match group.fixed.first() {
                Some(&f) => vec![f],
                None => vec![0],
            })
            .collect();
        for _ in 1..k {
            let mut next = candidates.clone();
            for g in (0..k).filter(|&g| self.groups[g].fixed.is_empty()) {
                for h in (0..k).filter(|&h| h != g) {
                    let Some(up) = sep[h][g] else { continue };
                    for &v in &candidates[h] {
                        let raw = v as i128 + up;
                        let o = round_up(raw.max(0) as u128, self.groups[g].align);
                        if fits(g, o) && !next[g].contains(&o) {
                            next[g].push(o);
                        }
                    }
                }
                if next[g].len() > MOST_CANDIDATES {
                    next[g].sort_unstable();
                    next[g].truncate(MOST_CANDIDATES);
                    exact = false;
                }
            }
            candidates = next;
        }
        for c in &mut candidates {
            c.sort_unstable();
        }
        // Fixed groups first: they prune the most.
        let mut order: Vec<usize> = (0..k).collect();
        order.sort_by_key(|&g| self.groups[g].fixed.is_empty());
        let mut search = Search {
            model: self,
            sep: &sep,
            candidates: &candidates,
            order: &order,
            limit,
            placed: vec![0; k],
            best: None,
            steps: 0,
        };
        search.place(0, 0);
        if search.steps > MOST_STEPS {
            exact = false;
        }
        let best = search.best.map(|(arena, at)| {
            let offsets: Vec<usize> = (0..self.problem.tensors.len())
                .map(|t| at[self.group_of[t]] as usize)
                .collect();
            let checked = self.check(&offsets);
            assert_eq!(
                checked,
                Ok(arena),
                "the brute force's own plan {offsets:?} fails the checker"
            );
            (arena, offsets)
        });
        Brute { best, exact }
    }
}

/// The depth-first enumeration of [`Model::brute_force`].
struct Search<'a> {
    model: &'a Model,
    sep: &'a [Vec<Option<i128>>],
    candidates: &'a [Vec<u128>],
    order: &'a [usize],
    limit: u128,
    placed: Vec<u128>,
    best: Option<(u128, Vec<u128>)>,
    steps: u64,
}

impl Search<'_> {
    fn place(&mut self, depth: usize, arena: u128) {
        if depth == self.order.len() {
            if self.best.as_ref().is_none_or(|(b, _)| arena < *b) {
                self.best = Some((arena, self.placed.clone()));
            }
            return;
        }
        let g = self.order[depth];
        let group = &self.model.groups[g];
        // A group whose members are fixed apart, or fixed off their
        // alignment, has no place.
        if group
            .fixed
            .iter()
            .any(|&f| f != group.fixed[0] || f % group.align != 0)
        {
            return;
        }
        for &o in &self.candidates[g] {
            self.steps += 1;
            if self.steps > MOST_STEPS {
                return;
            }
            // Every group ends within the limit, one of no bytes at its
            // offset; only groups with bytes count in the arena.
            let end = if group.size > 0 { o + group.size } else { 0 };
            if o + group.size > self.limit
                || self
                    .best
                    .as_ref()
                    .is_some_and(|(b, _)| end.max(arena) >= *b)
            {
                // Candidates rise: every later one ends higher still.
                break;
            }
            let fits = self.order[..depth].iter().all(|&h| {
                let oh = self.placed[h] as i128;
                let og = o as i128;
                let above = self.sep[h][g].is_none_or(|up| og - oh >= up);
                let below = self.sep[g][h].is_none_or(|up| oh - og >= up);
                self.sep[h][g].is_none() || above || below
            });
            if fits {
                self.placed[g] = o;
                self.place(depth + 1, arena.max(end));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tensor(size: usize, first: usize, last: usize) -> Tensor {
        Tensor { size, first, last }
    }

    fn problem(tensors: Vec<Tensor>) -> Problem {
        Problem {
            tensors,
            alignment: 1,
            ..Problem::default()
        }
    }

    #[test]
    fn the_checker_names_each_broken_constraint() {
        let mut p = problem(vec![tensor(8, 0, 2), tensor(8, 1, 3), tensor(4, 3, 4)]);
        p.alignments = vec![8, 1, 4];
        p.fixed = vec![None, None, Some(0)];
        let m = p.model().unwrap();
        assert_eq!(m.check(&[0, 8, 0]), Ok(16));
        assert!(m.check(&[0, 4, 0]).unwrap_err().contains("share bytes"));
        assert!(m.check(&[4, 12, 0]).unwrap_err().contains("multiple of 8"));
        assert!(m.check(&[0, 8, 4]).unwrap_err().contains("fixed at 0"));
        p.capacity = Some(15);
        assert!(p
            .model()
            .unwrap()
            .check(&[0, 8, 0])
            .unwrap_err()
            .contains("capacity"));
        // The plan's alignment rounds sizes: 4 bytes then take 8.
        let mut q = problem(vec![tensor(4, 0, 1), tensor(4, 1, 2)]);
        q.alignment = 8;
        let m = q.model().unwrap();
        assert_eq!(m.check(&[0, 8]), Ok(16));
        assert!(m.check(&[0, 4]).is_err());
    }

    #[test]
    fn windows_must_keep_one_order_over_every_shared_node() {
        // a pauses at nodes 1 and 3, keeping bytes [0, 2) then [8, 10); b
        // (2 bytes) at 4 is above a's first window and below its second.
        let mut p = problem(vec![tensor(10, 0, 4), tensor(2, 1, 3)]);
        p.gaps = vec![
            Gap {
                tensor: 0,
                first: 1,
                last: 1,
                window: Some((0, 2)),
            },
            Gap {
                tensor: 0,
                first: 2,
                last: 2,
                window: None,
            },
            Gap {
                tensor: 0,
                first: 3,
                last: 3,
                window: Some((8, 10)),
            },
        ];
        let m = p.model().unwrap();
        assert!(m.check(&[0, 4]).unwrap_err().contains("change places"));
        assert_eq!(m.check(&[0, 10]), Ok(12));
        assert_eq!(
            m.check(&[0, 1]),
            Err("tensors [0] and [1] share bytes at node 1".into())
        );
        // b under both windows, a raised past it.
        assert_eq!(m.check(&[2, 0]), Ok(12));
        // b above both windows is the least: 10 + 2.
        let brute = m.brute_force();
        assert_eq!(brute.best.map(|b| b.0), Some(12));
    }

    #[test]
    fn buffers_reusing_one_buffer_while_live_together_have_no_sound_plan() {
        // b and c both reuse a and are live together at node 2.
        let mut p = problem(vec![tensor(8, 0, 1), tensor(8, 1, 2), tensor(8, 2, 3)]);
        p.reuses = vec![(1, 0), (2, 0)];
        let m = p.model().unwrap();
        assert_eq!(m.clash, Some((1, 2)));
        assert!(m
            .check(&[0, 0, 0])
            .unwrap_err()
            .contains("no plan is sound"));
        assert_eq!(
            m.brute_force(),
            Brute {
                best: None,
                exact: true
            }
        );
        // The refusal must name them, lower index first.
        assert!(m.conflict_is_right(1, 2));
        assert!(!m.conflict_is_right(2, 1));
        assert!(!m.conflict_is_right(0, 1), "a tensor and the one it reuses");
        assert!(!m.conflict_is_right(0, 2));
        // A chain (c reuses b, which reuses a) is in-place work: sound.
        p.reuses = vec![(1, 0), (2, 1)];
        let m = p.model().unwrap();
        assert_eq!(m.clash, None);
        assert_eq!(m.check(&[0, 0, 0]), Ok(8));
        assert!(!m.conflict_is_right(0, 2), "the chain's ends never meet");
        // Its ends live together share bytes: only a direct reuse may.
        p.tensors[0].last = 2;
        let m = p.model().unwrap();
        assert_eq!(m.clash, Some((0, 2)));
        assert!(m.conflict_is_right(0, 2));
        assert!(!m.conflict_is_right(1, 2));
        // Unless one of them has no bytes then: a gap, or no size.
        let mut r = p.clone();
        r.gaps = vec![Gap {
            tensor: 0,
            first: 2,
            last: 2,
            window: None,
        }];
        assert_eq!(r.model().unwrap().clash, None);
        // A window of a's keeps bytes c overlaps.
        r.gaps[0].window = Some((7, 8));
        assert_eq!(r.model().unwrap().clash, Some((0, 2)));
        r.tensors[2].size = 0;
        assert_eq!(r.model().unwrap().clash, None);
        // Siblings that never meet are sound too.
        let mut q = problem(vec![tensor(8, 0, 1), tensor(8, 1, 1), tensor(8, 2, 3)]);
        q.reuses = vec![(1, 0), (2, 0)];
        assert_eq!(q.model().unwrap().check(&[0, 0, 0]), Ok(8));
    }

    #[test]
    fn fixed_conflicts_are_right_only_for_offsets_that_cannot_both_stay() {
        // a and b live together, fixed 8 bytes apart (sound) or 4 (not).
        let mut p = problem(vec![tensor(8, 0, 2), tensor(8, 1, 3), tensor(4, 0, 3)]);
        p.fixed = vec![Some(0), Some(8), None];
        let m = p.model().unwrap();
        assert!(!m.conflict_is_right(0, 1));
        p.fixed[1] = Some(4);
        let m = p.model().unwrap();
        assert!(m.conflict_is_right(0, 1));
        assert!(!m.conflict_is_right(0, 2), "c is free");
        // One group fixed at two offsets, though its members never meet.
        let mut q = problem(vec![tensor(8, 0, 1), tensor(8, 2, 3)]);
        q.reuses = vec![(1, 0)];
        q.fixed = vec![Some(0), Some(8)];
        assert!(q.model().unwrap().conflict_is_right(0, 1));
        q.fixed = vec![Some(8), Some(8)];
        assert!(!q.model().unwrap().conflict_is_right(0, 1));
    }

    #[test]
    fn a_fixed_tensor_of_no_bytes_ends_at_its_offset_within_the_capacity() {
        let mut p = problem(vec![tensor(8, 0, 1), tensor(0, 0, 1)]);
        p.fixed = vec![None, Some(32)];
        p.capacity = Some(16);
        let m = p.model().unwrap();
        assert_eq!(m.fixed_past_capacity(), Some(1));
        assert!(m.check(&[0, 32]).unwrap_err().contains("capacity"));
        assert_eq!(m.brute_force().best, None);
        // At the capacity it fits, and counts in no arena.
        p.fixed[1] = Some(16);
        let m = p.model().unwrap();
        assert_eq!(m.fixed_past_capacity(), None);
        assert_eq!(m.check(&[0, 16]), Ok(8));
        assert_eq!(m.brute_force().best.map(|b| b.0), Some(8));
        // A free one too must end within it.
        p.fixed = vec![];
        assert!(p.model().unwrap().check(&[0, 17]).is_err());
    }

    #[test]
    fn malformed_problems_are_named() {
        let base = problem(vec![tensor(8, 0, 3), tensor(4, 2, 5)]);
        type Change = Box<dyn Fn(&mut Problem)>;
        let cases: Vec<(Change, &str)> = vec![
            (Box::new(|p| p.alignment = 3), "plan alignment"),
            (Box::new(|p| p.alignments = vec![1, 6]), "alignment 6"),
            (Box::new(|p| p.tensors[1].first = 9), "first 9 > last 5"),
            (
                Box::new(|p| {
                    p.gaps = vec![Gap {
                        tensor: 0,
                        first: 3,
                        last: 4,
                        window: None,
                    }]
                }),
                "not inside",
            ),
            (
                Box::new(|p| {
                    p.gaps = vec![Gap {
                        tensor: 1,
                        first: 2,
                        last: 2,
                        window: Some((1, 5)),
                    }]
                }),
                "window",
            ),
            (
                Box::new(|p| {
                    p.gaps = vec![
                        Gap {
                            tensor: 0,
                            first: 1,
                            last: 2,
                            window: None,
                        },
                        Gap {
                            tensor: 0,
                            first: 2,
                            last: 3,
                            window: None,
                        },
                    ]
                }),
                "overlap",
            ),
            (Box::new(|p| p.reuses = vec![(0, 1)]), "larger"),
            (Box::new(|p| p.reuses = vec![(1, 1)]), "reuse 0"),
            (Box::new(|p| p.reuses = vec![(1, 0), (1, 0)]), "twice"),
            (
                Box::new(|p| {
                    p.tensors[1].size = 8;
                    p.reuses = vec![(1, 0), (0, 1)]
                }),
                "cycle",
            ),
        ];
        assert!(base.model().is_ok());
        for (change, expected) in cases {
            let mut p = base.clone();
            change(&mut p);
            let why = p.model().unwrap_err();
            assert!(why.contains(expected), "{why:?} for {p:?}");
        }
    }

    #[test]
    fn the_brute_force_finds_minimallocs_example_in_12_bytes() {
        // data/minimalloc/examples/input.12.csv: MiniMalloc's README solves
        // it in 12 bytes, the peak.
        let p = problem(vec![
            tensor(4, 0, 2),
            tensor(4, 3, 8),
            tensor(4, 0, 8),
            tensor(4, 9, 20),
            tensor(4, 3, 20),
        ]);
        let brute = p.model().unwrap().brute_force();
        assert!(brute.exact);
        assert_eq!(brute.best.map(|b| b.0), Some(12));
    }

    #[test]
    fn the_brute_force_agrees_with_an_exhaustive_grid_on_small_problems() {
        // Every offset assignment on a grid of the alignment, up to the sum
        // of the sizes: slow but plainly complete, for problems without
        // raised windows.
        let mut state = 0x853c_49e6_748f_ea9bu64;
        let mut below = |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n as u64) as usize
        };
        for _ in 0..200 {
            let n = 1 + below(3);
            let mut p = problem(
                (0..n)
                    .map(|_| {
                        let first = below(5);
                        tensor(below(6), first, first + below(3))
                    })
                    .collect(),
            );
            p.alignment = [1, 1, 2][below(3)];
            p.alignments = (0..n).map(|_| [1, 1, 2, 4][below(4)]).collect();
            if below(3) == 0 {
                p.fixed = (0..n)
                    .map(|_| (below(4) == 0).then(|| 2 * below(4)))
                    .collect();
            }
            for t in 0..n {
                if below(3) == 0 && p.tensors[t].last > p.tensors[t].first {
                    let first = p.tensors[t].first + 1;
                    let hi = below(p.tensors[t].size + 1);
                    let window = (below(2) == 0).then_some((0, hi));
                    p.gaps.push(Gap {
                        tensor: t,
                        first,
                        last: first,
                        window,
                    });
                }
            }
            for t in 1..n {
                let r = below(t);
                if below(4) == 0 && p.tensors[t].size <= p.tensors[r].size {
                    p.reuses.push((t, r));
                }
            }
            if below(2) == 0 {
                p.capacity = Some(below(16));
            }
            let Ok(m) = p.model() else { continue };
            let brute = m.brute_force();
            assert!(brute.exact);
            // Past every fixed offset, then room for each tensor and its
            // alignment: some least plan lies inside.
            let total: usize = p.tensors.iter().map(|t| t.size + 4).sum::<usize>() + 6;
            let mut best: Option<u128> = None;
            let mut offsets = vec![0; n];
            loop {
                if let Ok(arena) = m.check(&offsets) {
                    best = Some(best.map_or(arena, |b| b.min(arena)));
                }
                // The next assignment, like an odometer.
                let mut i = 0;
                while i < n {
                    offsets[i] += 1;
                    if offsets[i] <= total {
                        break;
                    }
                    offsets[i] = 0;
                    i += 1;
                }
                if i == n {
                    break;
                }
            }
            assert_eq!(brute.best.map(|b| b.0), best, "{p:?}");
        }
    }
}
