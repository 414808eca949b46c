//! # Axe layouts
//!
//! An Axe layout maps a *logical* tensor index to a **set** of coordinates on named hardware
//! axes (memory `m`, `reg`, `lane`, `warp`, `cta`, `gpuid`, accelerator partitions `P`/`F`, …).
//! It is a triple `L = (D, R, O)` (Axe paper §2, Def. 2.3):
//!
//! * the **shard** `D` is an ordered list of iters `(extent, stride@axis)`; a logical index
//!   `x < E_D` is unflattened *lexicographically* over the extents (first iter slowest) and
//!   each digit is scaled by its stride on its axis;
//! * the **replica** `R` is an unordered multiset of iters; every combination of its digits is
//!   added, so one logical element lives in several places (broadcast across warps, devices…);
//! * the **offset** `O` is one integer per axis, added to every point.
//!
//! `L(x) = { D(x) + r + O | r ∈ R }`.
//!
//! ## A worked example
//! `(2, 2) : (1@lane, 2)` over a 2×2 tensor puts row `i` on lane `i` and column `j` at memory
//! address `2j`: logical `(1, 1)` ↦ `{lane 1, m 2}`. Adding `+ [(2) : (1@warp)]` replicates
//! every element on warps 0 and 1; adding `+ 4` shifts every address by 4.
//!
//! ## Direction and invariants
//! The map goes from logical index to hardware (the paper's direction, unlike Triton's linear
//! layouts which map hardware to logical): it is a function onto *sets*, never partial, and need
//! not be injective (two logical indices may share storage, e.g. stride 0 is forbidden but
//! aliasing through replica is allowed).
//!
//! ## Relation to CuTe
//! A CuTe layout is the special case with one memory axis, no replica, no offset, and
//! colexicographic unflattening (first mode fastest); the `cute` module converts by reversing modes.
//!
//! This crate has no MLIR dependency: the dialect hands it the attribute text (through the C ABI
//! of `dialect/rust/`) and prints the canonical text back.

pub mod error;
pub mod eval;
pub mod layout;
pub mod parse;

// The layout algebra core (Appendices A–D) and the ISL export.
pub mod canon;
pub mod compiled;
pub mod equiv;
pub mod group;
pub mod isl;
pub mod span;
pub mod tile;
pub mod tile_of;

// Slicing (App. E), direct sum (App. F), iter intersection (§3.4), CuTe interop and swizzles.
pub mod cute;
pub mod intersect;
pub mod slice;
pub mod sum;
pub mod swizzle;

// Operator-level layout math: the common refinement of an operator's operands over its
// iteration space, the check that a schedule built on it gives every thread what it needs,
// and the projection of a layout that a reduction or broadcast leaves.
pub mod project;
pub mod refine;
pub mod schedule;

/// The greatest common divisor of `|a|` and `|b|` (`gcd(0, x) = |x|`), the one every layout
/// and lowering computation shares.
pub fn gcd(a: i64, b: i64) -> i64 {
    let (mut a, mut b) = (a.unsigned_abs(), b.unsigned_abs());
    while b != 0 {
        (a, b) = (b, a % b);
    }
    a as i64
}

pub use canon::Canonical;
pub use equiv::{equivalent, EquivMethod, Equivalence};
pub use error::{LayoutError, ParseError};
pub use group::Grouped;
pub use layout::{Axis, Iter, Layout, Point, MEMORY_AXIS};
pub use project::project;
pub use refine::{refine, Factor, Operand, Place};
pub use slice::TiledRegion;
pub use tile::tile;
pub use tile_of::tile_of;
