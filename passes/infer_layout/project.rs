//! Projection of a layout onto the dimensions that survive a reduction or a broadcast.
//!
//! Reducing dim `d` leaves one value per remaining coordinate; the threads that held the
//! reduced dim's elements all end up with the result (after the warp shuffles / shared-memory
//! step), so the reduced dim's iters on thread axes become replica iters and its iters on
//! registers (or memory) disappear. A broadcast operand of a pointwise op is the same
//! projection of the destination's layout.

use axe_layout::{Layout, LayoutError};

/// Axes that name threads (a reduced iter on them becomes a replica).
fn is_thread_axis(axis: &str) -> bool {
    matches!(axis, "lane" | "warp" | "cta" | "cluster" | "gpuid")
}

/// The layout of `layout` (over `shape`) with the dims in `reduced` projected away. The
/// result admits `shape` with those dims removed or set to 1.
pub fn project(layout: &Layout, shape: &[i64], reduced: &[usize]) -> Result<Layout, LayoutError> {
    let grouped = layout.group(shape)?;
    let mut shard = Vec::new();
    let mut replica = grouped.layout.replica.clone();
    for (d, range) in grouped.groups.iter().enumerate() {
        for i in range.clone() {
            let it = grouped.layout.shard[i].clone();
            if !reduced.contains(&d) {
                shard.push(it);
            } else if is_thread_axis(it.axis.name()) {
                replica.push(it);
            }
        }
    }
    Ok(Layout::new(shard, replica, grouped.layout.offset.clone())?.canonical())
}

#[cfg(test)]
mod tests {
    use super::*;
    use axe_layout::eval::point;

    /// Brute force: for every kept coordinate, the projection's points are exactly the
    /// original's points over the reduced dims, with reduced registers zeroed.
    #[test]
    fn row_reduce_of_lanes_times_regs() {
        let l = Layout::parse("(4, 8, 4) : (1@warp, 1@lane, 1@reg)").unwrap(); // (32, 4)
        let p = project(&l, &[32, 4], &[1]).unwrap();
        assert_eq!(p.to_string(), "(4, 8) : (1@warp, 1@lane)");
        // Reducing the rows: every (warp, lane) holds the column's result in register j.
        let q = project(&l, &[32, 4], &[0]).unwrap();
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
