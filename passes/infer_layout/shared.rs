//! Shared-memory layouts (Hexcute §5.2): one layout compatible with every access to the
//! tensor, chosen to minimize bank conflicts.
//!
//! The candidates keep the global tensor's dimension order (so global↔shared copies stay
//! vectorized): the compact layout, the compact layout under an XOR swizzle
//! `Swizzle<B, log2 vec, S>` (the vector never split; `2^S` vectors per row, `B ≤ 3`), and
//! the second-fastest dimension's stride padded by a multiple of the vector width. Each
//! candidate is scored by counting, for warp 0 of every access layout touching the tensor,
//! the shared-memory wavefronts of each vector access the way the hardware serves them: 32
//! banks of 4 bytes, a request split into phases of at most 128 bytes, one wavefront per
//! distinct word in the busiest bank. The cheapest wins; on a tie the earlier candidate
//! (compact, then swizzled, then padded: no wasted memory first).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use axe_layout::compiled::Compiled;
use axe_layout::swizzle::Swizzle;
use axe_layout::{Axis, Iter, Layout, LayoutError};

/// An access to the shared tensor: the threads' layout over the tensor's logical shape and
/// the number of consecutive registers each access moves.
pub struct Access {
    pub threads: Layout,
    pub vec: i64,
}

/// Compact layout of `shape` in `order` (fastest first), the second-fastest dim padded by `pad`.
pub fn compact(shape: &[i64], order: &[usize], pad: i64) -> Result<Layout, LayoutError> {
    let mut strides = vec![0i64; shape.len()];
    let mut next = 1i64;
    for (k, &d) in order.iter().enumerate() {
        strides[d] = next;
        next = next.checked_mul(shape[d]).ok_or(LayoutError::Overflow)?;
        if k == 0 && order.len() > 1 {
            next = next.checked_add(pad).ok_or(LayoutError::Overflow)?;
        }
    }
    let shard = (0..shape.len())
        .filter(|&d| shape[d] > 1)
        .map(|d| Iter::mem(shape[d], strides[d]))
        .collect();
    Layout::from_shard(shard)
}

/// Which logical element each (lane, register) of warp 0 handles in `access` (the first one,
/// when a replica puts several there). Computed once per access, on the compiled layout: the
/// candidates of [`choose`] are all scored against it.
pub struct WarpZero {
    owner: HashMap<(i64, i64), i64>,
    vec: i64,
}

impl WarpZero {
    pub fn new(access: &Access) -> Self {
        let mut owner: HashMap<(i64, i64), i64> = HashMap::new();
        if let Ok(c) = Compiled::new(&access.threads) {
            let (lane, reg, warp) = (c.axis("lane"), c.axis("reg"), c.axis("warp"));
            let at = |p: &[i64], k: Option<usize>| k.map_or(0, |k| p[k]);
            for x in 0..c.size() {
                c.for_each_point(x, |p| {
                    if at(p, warp) == 0 {
                        owner.entry((at(p, lane), at(p, reg))).or_insert(x);
                    }
                });
            }
        }
        WarpZero { owner, vec: access.vec }
    }
}

/// Wavefronts needed by warp 0 of `access` over shared layout `shared` (`elem_bytes` each),
/// its offsets optionally swizzled.
#[cfg(test)]
fn wavefronts(access: &Access, shared: &Layout, swizzle: Option<&Swizzle>, elem_bytes: i64) -> i64 {
    wavefronts_of(&WarpZero::new(access), shared, swizzle, elem_bytes)
}

fn wavefronts_of(warp0: &WarpZero, shared: &Layout, swizzle: Option<&Swizzle>, elem_bytes: i64) -> i64 {
    let Ok(shared) = Compiled::new(shared) else {
        return i64::MAX;
    };
    let mem = shared.axis(Axis::memory().name());
    let mut point = vec![0i64; shared.axes.len()];
    let owner = &warp0.owner;
    let regs: BTreeSet<i64> = owner.keys().map(|&(_, r)| r - r % warp0.vec).collect();
    let bytes = warp0.vec * elem_bytes;
    let lanes_per_phase = if bytes >= 4 { (128 / bytes).clamp(1, 32) } else { 32 };
    let mut total = 0;
    for r in regs {
        for phase in (0..32).step_by(lanes_per_phase as usize) {
            let mut words_per_bank: BTreeMap<i64, BTreeSet<i64>> = BTreeMap::new();
            for l in phase..(phase + lanes_per_phase).min(32) {
                let Some(&x) = owner.get(&(l, r)) else { continue };
                shared.shard_into(x, &mut point);
                let offset = mem.map_or(0, |k| point[k]);
                let addr = swizzle.map_or(offset, |s| s.apply(offset)) * elem_bytes;
                for w in (addr / 4)..=((addr + bytes - 1) / 4) {
                    words_per_bank.entry(w.rem_euclid(32)).or_default().insert(w);
                }
            }
            total += words_per_bank.values().map(|s| s.len() as i64).max().unwrap_or(0);
        }
    }
    total
}

/// A chosen shared layout: the layout, its swizzle, and its wavefront count.
pub struct Choice {
    pub layout: Layout,
    pub swizzle: Option<Swizzle>,
    pub wavefronts: i64,
}

/// The least-conflicting candidate for `shape` in `order` (see the module comment).
pub fn choose(
    shape: &[i64],
    order: &[usize],
    vec: i64,
    accesses: &[Access],
    elem_bytes: i64,
) -> Result<Choice, LayoutError> {
    let mut candidates: Vec<(Layout, Option<Swizzle>)> = vec![(compact(shape, order, 0)?, None)];
    if order.len() >= 2 {
        // Swizzles of the compact layout: vectors of 2^M elements, rows of 2^S vectors.
        let row = shape[order[0]];
        let m = vec.trailing_zeros();
        if (row as u64).is_power_of_two() && row >= vec {
            let s = (row / vec).trailing_zeros() as i32;
            for b in 1..=(s.min(3) as u32) {
                candidates.push((
                    compact(shape, order, 0)?,
                    Some(Swizzle {
                        bits: b,
                        base: m,
                        shift: s,
                    }),
                ));
            }
        }
        for pad in [vec, 2 * vec, 4 * vec] {
            candidates.push((compact(shape, order, pad)?, None));
        }
    }
    let warps: Vec<WarpZero> = accesses.iter().map(WarpZero::new).collect();
    let mut best: Option<Choice> = None;
    for (layout, swizzle) in candidates {
        let cost: i64 = warps
            .iter()
            .map(|w| wavefronts_of(w, &layout, swizzle.as_ref(), elem_bytes))
            .fold(0, i64::saturating_add);
        if best.as_ref().is_none_or(|c| cost < c.wavefronts) {
            best = Some(Choice {
                layout,
                swizzle,
                wavefronts: cost,
            });
        }
    }
    best.ok_or_else(|| LayoutError::Unsupported("no shared layout candidate".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A column of a 32x32 f32 row-major tile read by 32 lanes (one element each) hits one
    /// bank 32 times; padding the row by one vector (1 element) spreads it over all banks.
    #[test]
    fn padding_removes_column_conflicts() {
        let column_reader = Access {
            threads: Layout::parse("(32, 32) : (1@lane, 1@reg)").unwrap(),
            vec: 1,
        };
        let unpadded = compact(&[32, 32], &[1, 0], 0).unwrap();
        assert_eq!(unpadded.to_string(), "(32, 32) : (32, 1)");
        assert_eq!(wavefronts(&column_reader, &unpadded, None, 4), 32 * 32);
        // A 3-bit swizzle spreads the column over 8 banks (4 rows share one): 4 per register.
        let swz = Swizzle {
            bits: 3,
            base: 0,
            shift: 5,
        };
        assert_eq!(wavefronts(&column_reader, &unpadded, Some(&swz), 4), 32 * 4);
        let best = choose(&[32, 32], &[1, 0], 1, &[column_reader], 4).unwrap();
        assert_eq!(best.layout.to_string(), "(32, 32) : (33, 1)");
        assert_eq!(best.swizzle, None);
        assert_eq!(best.wavefronts, 32, "one wavefront per register");
    }

    /// Each lane reads its own 16-byte row of a 32x8 f16 tile: 8 lanes per 128-byte phase
    /// cover 128 contiguous bytes, one wavefront per phase, so the compact layout wins
    /// (padding by 8 elements would put lanes 0 and 4 of a phase on the same banks).
    #[test]
    fn row_access_keeps_compact() {
        let row_reader = Access {
            threads: Layout::parse("(32, 8) : (1@lane, 1@reg)").unwrap(),
            vec: 8,
        };
        let best = choose(&[32, 8], &[1, 0], 8, &[row_reader], 2).unwrap();
        assert_eq!(best.layout.to_string(), "(32, 8) : (8, 1)");
        assert_eq!(best.swizzle, None);
        assert_eq!(best.wavefronts, 4);
    }

    /// The classic case: 8 lanes each read one 16-byte chunk down a column of a 64-wide f16
    /// tile (as ldmatrix does). Unswizzled, all 8 rows start at bank 0: 8 wavefronts per
    /// phase. Swizzle<3, 3, 3> XORs the chunk index with the row mod 8, so the 8 chunks land on
    /// 8 different bank groups: 1 wavefront per phase, and no padding.
    #[test]
    fn swizzle_removes_ldmatrix_conflicts() {
        // Lane l reads row l (for 64 rows), chunk c = register group: (64, 8, 8) over (64, 64).
        let column_chunks = Access {
            threads: Layout::parse("(2, 32, 8, 8) : (64@reg, 1@lane, 8@reg, 1@reg)").unwrap(),
            vec: 8,
        };
        let unpadded = compact(&[64, 64], &[1, 0], 0).unwrap();
        let swz = Swizzle {
            bits: 3,
            base: 3,
            shift: 3,
        };
        let plain = wavefronts(&column_chunks, &unpadded, None, 2);
        let swizzled = wavefronts(&column_chunks, &unpadded, Some(&swz), 2);
        assert_eq!(swizzled * 8, plain);
        let best = choose(&[64, 64], &[1, 0], 8, &[column_chunks], 2).unwrap();
        assert_eq!(
            best.swizzle,
            Some(swz),
            "the swizzle is as good as padding and wastes no memory"
        );
        assert_eq!(best.layout.to_string(), "(64, 64) : (64, 1)");
    }
}
