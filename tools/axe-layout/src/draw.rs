//! `axe-layout draw`: the layout as an SVG picture, in the spirit of CuTe's layout pictures.
//!
//! The logical tensor is drawn as a grid (a 1-D shape is one row; for more than two dimensions
//! the leading dimensions are flattened into rows, so each row is one fixed prefix and the
//! columns run over the last dimension). Every cell is labelled with the hardware coordinates
//! of its points — all of them when the element is replicated — and filled with a colour
//! chosen by one axis' value; a replicated cell is split into one vertical stripe per point.

use std::fmt::Write as _;

use axe_layout::{Axis, Layout, Point};

/// Pastel colours, cycled by the colour axis' value (CuTe uses a similar 8-colour cycle).
const PALETTE: [&str; 12] = [
    "#afd5f0", "#f7c59f", "#b5e3b5", "#f0b3c8", "#d3c4f0", "#f5e6a3", "#a8e0dc", "#e0c2a8", "#c9d99a", "#f2b8b0",
    "#bcc8e8", "#e6d0e6",
];

const FONT_SIZE: usize = 11;
/// Width of one monospace character at FONT_SIZE, rounded up (so labels never overflow).
const CHAR_W: usize = 7;
const LINE_H: usize = 14;
const PAD: usize = 6;

/// The default colour axis: the first non-memory axis in the order the layout mentions them
/// (shard, then replica, then offset), else the memory axis `m`.
pub fn default_color_axis(l: &Layout) -> Axis {
    l.shard
        .iter()
        .chain(l.replica.iter())
        .map(|i| &i.axis)
        .chain(l.offset.keys())
        .find(|a| !a.is_memory())
        .cloned()
        .unwrap_or_else(Axis::memory)
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// One point as a label: every axis of the layout, `axis=value`, space-separated.
fn label(p: &Point, axes: &[Axis]) -> String {
    axes.iter()
        .map(|a| format!("{a}={}", p.get(a).copied().unwrap_or(0)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Render `table` (per row-major logical index, its point set) under `shape` as SVG.
pub fn render(l: &Layout, shape: &[i64], table: &[Vec<Point>], color_by: &Axis) -> String {
    let axes = l.axes();
    let cols = *shape.last().unwrap_or(&1) as usize;
    let rows = table.len().checked_div(cols).unwrap_or(0);
    let lead: Vec<i64> = if shape.len() > 1 {
        shape[..shape.len() - 1].to_vec()
    } else {
        vec![1]
    };

    // Cell geometry from the longest label and the most points in one cell.
    let max_pts = table.iter().map(|s| s.len()).max().unwrap_or(1).max(1);
    let max_label = table
        .iter()
        .flat_map(|s| s.iter().map(|p| label(p, &axes).len()))
        .max()
        .unwrap_or(1);
    let cell_w = (max_label * CHAR_W + 2 * PAD).max(40);
    let cell_h = max_pts * LINE_H + 2 * PAD;

    // Row headers: the coordinate prefix of each row.
    let row_label = |r: usize| -> String {
        if shape.len() <= 1 {
            return "0".to_string();
        }
        let mut v = vec![0i64; lead.len()];
        let mut x = r as i64;
        for k in (0..lead.len()).rev() {
            v[k] = x % lead[k];
            x /= lead[k];
        }
        v.iter().map(|c| c.to_string()).collect::<Vec<_>>().join(",")
    };
    let head_w = (0..rows).map(|r| row_label(r).len()).max().unwrap_or(1) * CHAR_W + 2 * PAD;
    let title_h = 2 * LINE_H + PAD;
    let top = title_h + LINE_H + PAD;
    let width = head_w + cols * cell_w + PAD;
    let height = top + rows * cell_h + PAD;

    let mut s = String::new();
    let _ = writeln!(s, r#"<?xml version="1.0" encoding="UTF-8"?>"#);
    let _ = writeln!(
        s,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" viewBox="0 0 {width} {height}" font-family="monospace" font-size="{FONT_SIZE}">"#
    );
    let shape_txt = shape.iter().map(|e| e.to_string()).collect::<Vec<_>>().join(", ");
    let _ = writeln!(s, "  <title>{}</title>", esc(&format!("{l} over ({shape_txt})")));
    let _ = writeln!(
        s,
        r#"  <rect x="0" y="0" width="{width}" height="{height}" fill="white"/>"#
    );
    let _ = writeln!(
        s,
        r#"  <text x="{PAD}" y="{}" font-weight="bold">{}</text>"#,
        LINE_H,
        esc(&l.to_string())
    );
    let _ = writeln!(
        s,
        r#"  <text x="{PAD}" y="{}">{}</text>"#,
        2 * LINE_H,
        esc(&format!("logical shape ({shape_txt}); colour by {color_by}"))
    );
    // Column headers.
    for c in 0..cols {
        let x = head_w + c * cell_w + cell_w / 2;
        let _ = writeln!(
            s,
            r##"  <text x="{x}" y="{}" text-anchor="middle" fill="#555">{c}</text>"##,
            top - PAD
        );
    }
    for r in 0..rows {
        let y = top + r * cell_h;
        let _ = writeln!(
            s,
            r##"  <text x="{}" y="{}" text-anchor="end" fill="#555">{}</text>"##,
            head_w - PAD,
            y + cell_h / 2 + FONT_SIZE / 3,
            row_label(r)
        );
        for c in 0..cols {
            let pts = &table[r * cols + c];
            let x = head_w + c * cell_w;
            let _ = writeln!(s, r#"  <g class="cell" data-index="{}">"#, r * cols + c);
            // One stripe per point, coloured by the colour axis' value.
            let n = pts.len().max(1);
            for (k, p) in pts.iter().enumerate() {
                let v = p.get(color_by).copied().unwrap_or(0);
                let colour = PALETTE[v.rem_euclid(PALETTE.len() as i64) as usize];
                let x0 = x + k * cell_w / n;
                let x1 = x + (k + 1) * cell_w / n;
                let _ = writeln!(
                    s,
                    r#"    <rect x="{x0}" y="{y}" width="{}" height="{cell_h}" fill="{colour}"/>"#,
                    x1 - x0
                );
            }
            let _ = writeln!(
                s,
                r#"    <rect x="{x}" y="{y}" width="{cell_w}" height="{cell_h}" fill="none" stroke="black" stroke-width="1"/>"#
            );
            let first = y + cell_h / 2 - (pts.len() * LINE_H) / 2 + LINE_H - 3;
            for (k, p) in pts.iter().enumerate() {
                let _ = writeln!(
                    s,
                    r#"    <text x="{}" y="{}" text-anchor="middle">{}</text>"#,
                    x + cell_w / 2,
                    first + k * LINE_H,
                    esc(&label(p, &axes))
                );
            }
            let _ = writeln!(s, "  </g>");
        }
    }
    let _ = writeln!(s, "</svg>");
    s
}
