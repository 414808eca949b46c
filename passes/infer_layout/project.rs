//! Projection of a layout onto the dimensions that survive a reduction or a broadcast: the
//! layout math is `axe_layout::project`; which axes name threads (a reduced iter on them
//! becomes a replica) is this target's fact, given here.

use axe_layout::{Layout, LayoutError};

/// Axes that name threads (a reduced iter on them becomes a replica).
pub const THREAD_AXES: &[&str] = &["lane", "warp", "cta", "cluster", "gpuid"];

/// The layout of `layout` (over `shape`) with the dims in `reduced` projected away, the
/// iters of reduced dims on [`THREAD_AXES`] kept as replicas. The result admits `shape` with
/// those dims removed or set to 1.
pub fn project(layout: &Layout, shape: &[i64], reduced: &[usize]) -> Result<Layout, LayoutError> {
    axe_layout::project(layout, shape, reduced, THREAD_AXES)
}
