//! Grouping a layout by a logical shape (Axe paper, Appendix B, Algorithm 1).
//!
//! Tiling and tile-of need, for each logical dimension `i`, a consecutive block of shard iters
//! whose extents multiply to `S_i`. Splitting an iter `(e₁e₂, s)` into `(e₁, e₂s), (e₂, s)`
//! preserves the map (Lemma B.1), so the blocks are found by peeling, left to right, the
//! factor `gcd(e, rem)` each block still needs.
//!
//! Two errata of the paper fixed: unit-extent iters are dropped first (Algorithm 1 fails
//! on them because `gcd(1, rem) = 1`, e.g. `(2, 1, 2) : (2, 5@warp, 1)` by `(4)`), and
//! mergeable chains are D1-merged first (`(2, 3) : (3, 1)` by `(3, 2)` needs the merged
//! `(6) : (1)`). Starting from the canonical shard makes the search complete: every shard
//! with the same map normalizes to it (Theorem A.8), a grouping of any of them is a
//! refinement of it, and a block can end inside a canonical iter only at a divisor of its
//! extent — exactly what the gcd step tests. The result has the fewest iters.

use crate::gcd;
use std::ops::Range;

use crate::canon::normalize_shard;
use crate::error::LayoutError;
use crate::layout::{Iter, Layout};

/// A layout refined so that its shard splits into consecutive blocks, one per logical dim.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Grouped {
    /// Same map as the input; shard refined (merged, then split); replica and offset as given.
    pub layout: Layout,
    /// `groups[i]`: the range of shard iters covering logical dim `i` (empty when `S_i = 1`).
    pub groups: Vec<Range<usize>>,
}

impl Layout {
    /// Group the shard by `shape` (Algorithm 1 with the errata fixes).
    ///
    /// Errors: `ShapeNotAdmitted` when `shape` has a non-positive entry or its product is not
    /// `E_D`; `Unsupported` when no grouping exists (a block would end strictly inside an iter
    /// at a point that is not a factor of its extent).
    pub fn group(&self, shape: &[i64]) -> Result<Grouped, LayoutError> {
        self.validate()?;
        self.check_admits(shape)?;
        let src = normalize_shard(&self.shard);
        let mut out: Vec<Iter> = Vec::with_capacity(src.len() + shape.len());
        let mut groups = Vec::with_capacity(shape.len());
        let mut j = 0usize;
        // The unconsumed tail of src[j] (src[j] itself until it is split).
        let mut pending: Option<Iter> = None;
        for (i, &target) in shape.iter().enumerate() {
            let start = out.len();
            let mut cur: i64 = 1;
            while cur < target {
                let it = match pending.take() {
                    Some(t) => t,
                    None => match src.get(j) {
                        Some(t) => t.clone(),
                        None => {
                            return Err(LayoutError::Unsupported(format!(
                                "cannot group {self} by {shape:?}: iters exhausted at dim {i}"
                            )))
                        }
                    },
                };
                let rem = target / cur;
                let g = gcd(it.extent, rem);
                if g != rem && g != it.extent {
                    // Either nothing fits (g = 1) or the block would have to end inside this
                    // iter at a point that is not a factor split of it.
                    return Err(LayoutError::Unsupported(format!(
                        "cannot group {self} by {shape:?}: logical dim {i} (size {target}) still \
                         needs a factor {rem}, but the next iter has extent {} (on {}) and the two \
                         do not divide one another",
                        it.extent, it.axis
                    )));
                }
                let tail = it.extent / g;
                let head_stride = it.stride.checked_mul(tail).ok_or(LayoutError::Overflow)?;
                out.push(Iter {
                    extent: g,
                    stride: head_stride,
                    axis: it.axis.clone(),
                });
                cur = cur.checked_mul(g).ok_or(LayoutError::Overflow)?;
                if tail > 1 {
                    pending = Some(Iter {
                        extent: tail,
                        stride: it.stride,
                        axis: it.axis,
                    });
                } else {
                    j += 1;
                }
            }
            groups.push(start..out.len());
        }
        let layout = Layout {
            shard: out,
            replica: self.replica.clone(),
            offset: self.offset.clone(),
        };
        Ok(Grouped { layout, groups })
    }
}
