//! A layout compiled for repeated evaluation: axes numbered once, every point a dense vector
//! of coordinates (one per axis) instead of a map, the replica's distinct shifts enumerated
//! once. What passes use in their inner loops (bank-conflict scoring, fragment checks); the
//! definitions in [`crate::eval`] stay the oracle it is tested against.

use crate::error::LayoutError;
use crate::layout::{Axis, Layout, Point};

/// The most distinct replica shifts a compiled layout enumerates.
pub const REPLICA_LIMIT: i64 = 1 << 16;

#[derive(Debug, Clone)]
pub struct Compiled {
    /// The axes the layout uses, in a fixed order; coordinates are indexed by position here.
    pub axes: Vec<Axis>,
    /// The shard's iters: extent, stride, axis position.
    shard: Vec<(i64, i64, usize)>,
    /// Every distinct replica shift with the offset added (at least one: the offset).
    shifts: Vec<Vec<i64>>,
    size: i64,
}

impl Compiled {
    /// Compiles `layout`; errors when its replica has more than [`REPLICA_LIMIT`] combinations
    /// (the layout's validation already bounds every coordinate to i64).
    pub fn new(layout: &Layout) -> Result<Self, LayoutError> {
        let axes = layout.axes();
        let pos = |a: &Axis| axes.iter().position(|b| b == a).expect("the layout's own axis");
        let shard = layout
            .shard
            .iter()
            .map(|it| (it.extent, it.stride, pos(&it.axis)))
            .collect();
        if layout.replica_size() > REPLICA_LIMIT {
            return Err(LayoutError::Unsupported(format!(
                "the replica has {} combinations, more than the {REPLICA_LIMIT} a compiled layout enumerates",
                layout.replica_size()
            )));
        }
        let mut base = vec![0i64; axes.len()];
        for (a, o) in &layout.offset {
            base[pos(a)] += o;
        }
        let mut shifts = vec![base];
        for it in &layout.replica {
            let p = pos(&it.axis);
            let mut next = Vec::with_capacity(shifts.len() * it.extent as usize);
            for s in &shifts {
                for d in 0..it.extent {
                    let mut t = s.clone();
                    t[p] += d * it.stride;
                    next.push(t);
                }
            }
            next.sort();
            next.dedup();
            shifts = next;
        }
        Ok(Compiled {
            axes,
            shard,
            shifts,
            size: layout.size(),
        })
    }

    /// The position of `axis` among [`Compiled::axes`].
    pub fn axis(&self, name: &str) -> Option<usize> {
        self.axes.iter().position(|a| a.name() == name)
    }

    /// The number of logical elements.
    pub fn size(&self) -> i64 {
        self.size
    }

    /// Writes `D(x)` (shard only, no replica or offset) into `out` (one slot per axis).
    /// `x` must be in `[0, size)`.
    pub fn shard_into(&self, mut x: i64, out: &mut [i64]) {
        out.iter_mut().for_each(|v| *v = 0);
        for &(e, s, a) in self.shard.iter().rev() {
            out[a] += (x % e) * s;
            x /= e;
        }
    }

    /// Calls `f` with every point of `L(x)` (each distinct point once).
    pub fn for_each_point(&self, x: i64, mut f: impl FnMut(&[i64])) {
        let mut base = vec![0i64; self.axes.len()];
        self.shard_into(x, &mut base);
        let mut p = vec![0i64; self.axes.len()];
        for s in &self.shifts {
            for ((o, b), d) in p.iter_mut().zip(&base).zip(s) {
                *o = b + d;
            }
            f(&p);
        }
    }

    /// Whether `L(x)` contains the point with coordinates `coords` (axis name, value): axes
    /// not named are 0; a named axis the layout does not use must be 0 to match.
    pub fn contains(&self, x: i64, coords: &[(&str, i64)]) -> bool {
        let mut want = vec![0i64; self.axes.len()];
        for &(name, v) in coords {
            match self.axis(name) {
                Some(k) => want[k] = v,
                None if v != 0 => return false,
                None => {}
            }
        }
        let mut found = false;
        self.for_each_point(x, |p| found |= p == want.as_slice());
        found
    }

    /// A point as the map [`crate::eval`] returns (zeros dropped).
    pub fn to_point(&self, coords: &[i64]) -> Point {
        self.axes
            .iter()
            .zip(coords)
            .filter(|(_, v)| **v != 0)
            .map(|(a, v)| (a.clone(), *v))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn agrees(text: &str) {
        let l = Layout::parse(text).unwrap();
        let c = Compiled::new(&l).unwrap();
        for x in 0..l.size() {
            let mut got = Vec::new();
            c.for_each_point(x, |p| got.push(c.to_point(p)));
            got.sort();
            got.dedup();
            assert_eq!(got, l.eval_set_flat(x).unwrap(), "{text} at {x}");
        }
    }

    #[test]
    fn matches_the_definition() {
        agrees("(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp");
        agrees("(1) : (1) + [(2, 2) : (1, 1)]");
        agrees("(4, 6) : (6, 1) + 3");
        agrees("(2, 3) : (-1@lane, 5) + [(3) : (2@warp)] + -4@lane");
        let l = Layout::parse("(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp").unwrap();
        let c = Compiled::new(&l).unwrap();
        // The Axe paper's §2.2 tile: logical (2, 9) of the 8x16 tile is at warp 6 and warp 10, lane 8, reg 1.
        assert!(c.contains(2 * 16 + 9, &[("warp", 6), ("lane", 8), ("reg", 1)]));
        assert!(c.contains(2 * 16 + 9, &[("warp", 10), ("lane", 8), ("reg", 1)]));
        assert!(!c.contains(2 * 16 + 9, &[("warp", 6), ("lane", 8), ("reg", 1), ("cta", 1)]));
        assert!(!c.contains(2 * 16 + 9, &[("warp", 7), ("lane", 8), ("reg", 1)]));
    }
}
