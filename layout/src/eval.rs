//! Evaluation: the forward map `L(x)` (set-valued), the backward map and the full table.
//!
//! These are the definitions every other operation is tested against, so they are written
//! as directly as possible from the paper's Def. 2.2/2.3: no shortcuts.

use std::collections::BTreeMap;

use crate::error::LayoutError;
use crate::layout::{checked_product, Axis, Iter, Layout, Point};

/// Row-major flatten of `coord` under `shape`.
pub fn flatten(coord: &[i64], shape: &[i64]) -> Result<i64, LayoutError> {
    if coord.len() != shape.len() {
        return Err(LayoutError::OutOfBounds {
            coord: coord.to_vec(),
            shape: shape.to_vec(),
        });
    }
    let mut x: i64 = 0;
    for (&c, &e) in coord.iter().zip(shape) {
        if c < 0 || c >= e {
            return Err(LayoutError::OutOfBounds {
                coord: coord.to_vec(),
                shape: shape.to_vec(),
            });
        }
        x = x
            .checked_mul(e)
            .and_then(|v| v.checked_add(c))
            .ok_or(LayoutError::Overflow)?;
    }
    Ok(x)
}

/// Row-major (lexicographic) unflatten of `x` under `shape`.
pub fn unflatten(mut x: i64, shape: &[i64]) -> Vec<i64> {
    let mut out = vec![0; shape.len()];
    for i in (0..shape.len()).rev() {
        out[i] = x % shape[i];
        x /= shape[i];
    }
    out
}

/// Add `digit * stride` of each iter to `point`.
fn add_iters(point: &mut Point, iters: &[Iter], digits: &[i64]) {
    for (it, &d) in iters.iter().zip(digits) {
        *point.entry(it.axis.clone()).or_insert(0) += d * it.stride;
    }
}

impl Layout {
    /// Check that `shape` is admitted: its product equals `E_D`.
    pub fn check_admits(&self, shape: &[i64]) -> Result<(), LayoutError> {
        let size = checked_product(shape.iter().copied())?;
        if shape.iter().any(|&e| e <= 0) || size != self.size() {
            return Err(LayoutError::ShapeNotAdmitted {
                shape: shape.to_vec(),
                size: self.size(),
            });
        }
        Ok(())
    }

    /// The shard `D(x)` for a flat logical index `x` (no replica, no offset).
    pub fn shard_point(&self, x: i64) -> Point {
        let digits = unflatten(x, &self.shape());
        let mut p = Point::new();
        add_iters(&mut p, &self.shard, &digits);
        p
    }

    /// `L(x)` for a flat logical index: every `D(x) + r + O`, one per replica combination
    /// (a multiset: aliasing replica points appear once each, see [`Layout::eval_set`]).
    pub fn eval_flat(&self, x: i64) -> Result<Vec<Point>, LayoutError> {
        if x < 0 || x >= self.size() {
            return Err(LayoutError::OutOfBounds {
                coord: vec![x],
                shape: vec![self.size()],
            });
        }
        let base = self.shard_point(x);
        let rshape: Vec<i64> = self.replica.iter().map(|i| i.extent).collect();
        let mut out = Vec::with_capacity(self.replica_size() as usize);
        for r in 0..self.replica_size() {
            let mut p = base.clone();
            add_iters(&mut p, &self.replica, &unflatten(r, &rshape));
            for (a, o) in &self.offset {
                *p.entry(a.clone()).or_insert(0) += o;
            }
            p.retain(|_, v| *v != 0);
            out.push(p);
        }
        Ok(out)
    }

    /// `L(x)` as a set (duplicates removed, sorted); points omit zero coordinates.
    pub fn eval_set_flat(&self, x: i64) -> Result<Vec<Point>, LayoutError> {
        let mut v = self.eval_flat(x)?;
        v.sort();
        v.dedup();
        Ok(v)
    }

    /// `L(coord)` under an admitted logical `shape` (row-major flattened first).
    pub fn eval_set(&self, coord: &[i64], shape: &[i64]) -> Result<Vec<Point>, LayoutError> {
        self.check_admits(shape)?;
        self.eval_set_flat(flatten(coord, shape)?)
    }

    /// The full table: for every flat logical index, its set of points.
    pub fn table(&self) -> Vec<Vec<Point>> {
        (0..self.size())
            .map(|x| self.eval_set_flat(x).expect("index in range"))
            .collect()
    }

    /// The backward map: the logical flat indices whose image contains `point`.
    /// Unique when the result has one element.
    pub fn preimage(&self, point: &Point) -> Vec<i64> {
        let mut p = point.clone();
        p.retain(|_, v| *v != 0);
        (0..self.size())
            .filter(|&x| self.eval_set_flat(x).map(|s| s.contains(&p)).unwrap_or(false))
            .collect()
    }

    /// The backward map where it is unique: `Ok(Some(x))` when exactly one logical index maps
    /// to `point`, `Ok(None)` when none does, an error when several do.
    pub fn backward(&self, point: &Point) -> Result<Option<i64>, LayoutError> {
        let pre = self.preimage(point);
        match pre.len() {
            0 => Ok(None),
            1 => Ok(Some(pre[0])),
            n => Err(LayoutError::Unsupported(format!(
                "the backward map is not unique: {n} logical indices map to this point"
            ))),
        }
    }

    /// The induced map as a comparable value: per logical index, the sorted set of points.
    pub fn induced_map(&self) -> Vec<Vec<Point>> {
        self.table()
    }
}

/// Build a point from `(axis, value)` pairs (zeros dropped).
pub fn point(pairs: &[(&str, i64)]) -> Point {
    let mut p: Point = BTreeMap::new();
    for &(a, v) in pairs {
        *p.entry(Axis::from(a)).or_insert(0) += v;
    }
    p.retain(|_, v| *v != 0);
    p
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tensor_core_tile_at_2_9() {
        // The Axe paper's §2.2 tile: logical (2, 9) of the 8x16 tile.
        let l = Layout::parse("(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp").unwrap();
        let got = l.eval_set(&[2, 9], &[8, 16]).unwrap();
        assert_eq!(
            got,
            vec![
                point(&[("warp", 6), ("lane", 8), ("reg", 1)]),
                point(&[("warp", 10), ("lane", 8), ("reg", 1)])
            ]
        );
        assert_eq!(l.backward(&got[0]).unwrap(), Some(2 * 16 + 9));
    }

    #[test]
    fn aliasing_replica_is_a_set() {
        // Errata: [(2, 2) : (1, 1)] gives 3 points, not E_R = 4.
        let l = Layout::parse("(1) : (1) + [(2, 2) : (1, 1)]").unwrap();
        assert_eq!(l.eval_flat(0).unwrap().len(), 4);
        assert_eq!(l.eval_set_flat(0).unwrap().len(), 3);
    }

    #[test]
    fn shape_admission() {
        let l = Layout::parse("(4, 6) : (6, 1)").unwrap();
        assert!(l.eval_set(&[1, 1], &[2, 12]).is_ok());
        assert!(matches!(
            l.eval_set(&[0, 0], &[5, 5]),
            Err(LayoutError::ShapeNotAdmitted { .. })
        ));
        assert!(matches!(
            l.eval_set(&[2, 0], &[2, 12]),
            Err(LayoutError::OutOfBounds { .. })
        ));
    }
}
