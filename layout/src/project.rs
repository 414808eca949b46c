//! Projection of a layout onto the dimensions that survive a reduction or a broadcast.
//!
//! Reducing dim `d` leaves one value per remaining coordinate; the threads that held the
//! reduced dim's elements all end up with the result (after the warp shuffles / shared-memory
//! step), so the reduced dim's iters on thread axes become replica iters and its iters on
//! registers (or memory) disappear. A broadcast operand of a pointwise op is the same
//! projection of the destination's layout.
//!
//! Which axes name threads is a fact of the target, so the caller passes them in.

use crate::error::LayoutError;
use crate::layout::Layout;

/// The layout of `layout` (over `shape`) with the dims in `reduced` projected away: the
/// shard is grouped by `shape` (the paper's Appendix B), the iters of the kept dims stay in
/// the shard, the reduced dims' iters on an axis of `thread_axes` join the replica, and their
/// other iters are dropped; replica and offset are kept. The result is canonical and admits
/// `shape` with the reduced dims removed or set to 1.
///
/// In terms of the definition (Def. 2.3): for a kept index `y`, the result's points are
/// `{ D_kept(y) + t + r + O }` where `t` ranges over the thread-axis part of `D` at every
/// value of the reduced dims and `r + O` over the original replica and offset.
///
/// Errors: those of [`Layout::group`] (a shape not admitted, a shard that does not group by
/// it).
pub fn project(layout: &Layout, shape: &[i64], reduced: &[usize], thread_axes: &[&str]) -> Result<Layout, LayoutError> {
    let grouped = layout.group(shape)?;
    let mut shard = Vec::new();
    let mut replica = grouped.layout.replica.clone();
    for (d, range) in grouped.groups.iter().enumerate() {
        for i in range.clone() {
            let it = grouped.layout.shard[i].clone();
            if !reduced.contains(&d) {
                shard.push(it);
            } else if thread_axes.contains(&it.axis.name()) {
                replica.push(it);
            }
        }
    }
    Ok(Layout::new(shard, replica, grouped.layout.offset.clone())?.canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::point;

    const THREADS: &[&str] = &["lane", "warp", "cta", "cluster", "gpuid"];

    /// Brute force: for every kept coordinate, the projection's points are exactly the
    /// original's points over the reduced dims, with reduced registers zeroed.
    #[test]
    fn row_reduce_of_lanes_times_regs() {
        let l = Layout::parse("(4, 8, 4) : (1@warp, 1@lane, 1@reg)").unwrap(); // (32, 4)
        let p = project(&l, &[32, 4], &[1], THREADS).unwrap();
        assert_eq!(p.to_string(), "(4, 8) : (1@warp, 1@lane)");
        // Reducing the rows: every (warp, lane) holds the column's result in register j.
        let q = project(&l, &[32, 4], &[0], THREADS).unwrap();
        q.check_admits(&[4]).unwrap();
        for j in 0..4 {
            let mut want = Vec::new();
            for w in 0..4 {
                for ln in 0..8 {
                    want.push(point(&[("warp", w), ("lane", ln), ("reg", j)]));
                }
            }
            want.sort();
            assert_eq!(q.eval_set_flat(j).unwrap(), want);
        }
    }
}
