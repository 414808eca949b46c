//! Tensor-core atoms: the register fragment layouts of one warp's `mma.sync.m16n8k16`
//! (f16/bf16 inputs, f32 accumulator), written as Axe layouts.
//!
//! From the PTX ISA's fragment tables for `mma.m16n8k16` (".f16/.bf16" A/B, ".f32" C/D),
//! with `g = laneid / 4` (groupID) and `q = laneid % 4` (threadID_in_group):
//! * C/D (16×8): `c{2h+b}` holds row `8h + g`, column `2q + b`;
//! * A (16×16, row major): `a{4j+2h+b}` holds row `8h + g`, column `8j + 2q + b`;
//! * B (16×8, K×N): `b{2j+b}` holds row `8j + 2q + b`, column `g`.
//!
//! Lexicographically, a row `8h + g` is the iters (h: 2, g: 8) and a column `2q + b` is
//! (q: 4, b: 2); lane = 4g + q. These are exactly CuTe's `SM80_16x8x16_F32F16F16F32_TN`
//! thread-value layouts, with Axe's lexicographic order.

use axe_layout::{Iter, Layout};

/// The m16n8k16 atom's shape (M, N, K).
pub const M: i64 = 16;
pub const N: i64 = 8;
pub const K: i64 = 16;

/// An atom's fragment layout from its iters. The iters are the constants below (positive
/// extents and strides on the register and lane axes), never input, so building them cannot
/// fail; `fragments_match_the_ptx_isa_tables` builds every one.
fn layout(iters: &[(i64, i64, &str)]) -> Layout {
    Layout::from_shard(iters.iter().map(|&(e, s, a)| Iter::new(e, s, a)).collect()).expect("the atom layouts are valid")
}

/// C/D fragment over shape (16, 8): `(2, 8, 4, 2) : (2@reg, 4@lane, 1@lane, 1@reg)`.
pub fn c_fragment() -> Layout {
    layout(&[(2, 2, "reg"), (8, 4, "lane"), (4, 1, "lane"), (2, 1, "reg")])
}

/// A fragment over shape (16, 16): `(2, 8, 2, 4, 2) : (2@reg, 4@lane, 4@reg, 1@lane, 1@reg)`.
pub fn a_fragment() -> Layout {
    layout(&[
        (2, 2, "reg"),
        (8, 4, "lane"),
        (2, 4, "reg"),
        (4, 1, "lane"),
        (2, 1, "reg"),
    ])
}

/// B fragment over shape (16, 8): `(2, 4, 2, 8) : (2@reg, 1@lane, 1@reg, 4@lane)`.
pub fn b_fragment() -> Layout {
    layout(&[(2, 2, "reg"), (4, 1, "lane"), (2, 1, "reg"), (8, 4, "lane")])
}

#[cfg(test)]
mod tests {
    use super::*;
    use axe_layout::eval::point;

    /// Enumerate the PTX ISA's fragment formulas directly (an oracle independent of the
    /// layouts above) and compare with the layouts' forward maps.
    #[test]
    fn fragments_match_the_ptx_isa_tables() {
        for lane in 0..32 {
            let (g, q) = (lane / 4, lane % 4);
            for h in 0..2 {
                for b in 0..2 {
                    let (row, col) = (8 * h + g, 2 * q + b);
                    let want = point(&[("lane", lane), ("reg", 2 * h + b)]);
                    assert_eq!(c_fragment().eval_set(&[row, col], &[16, 8]).unwrap(), vec![want]);
                    for j in 0..2 {
                        let a = point(&[("lane", lane), ("reg", 4 * j + 2 * h + b)]);
                        let (ar, ac) = (8 * h + g, 8 * j + 2 * q + b);
                        assert_eq!(a_fragment().eval_set(&[ar, ac], &[16, 16]).unwrap(), vec![a]);
                    }
                }
            }
            for j in 0..2 {
                for b in 0..2 {
                    let want = point(&[("lane", lane), ("reg", 2 * j + b)]);
                    let (br, bc) = (8 * j + 2 * q + b, g);
                    assert_eq!(b_fragment().eval_set(&[br, bc], &[16, 8]).unwrap(), vec![want]);
                }
            }
        }
    }
}
