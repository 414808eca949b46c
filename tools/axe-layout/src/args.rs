//! Parsers for the small argument languages: `--shape 16,24`, `--coord 2,9`,
//! `--region 0:8,8:24`, `--point lane=8,warp=6`. Errors are located like layout errors.

use axe_layout::parse::{scan_identifier, scan_integer};
use axe_layout::{Axis, Layout, Point};

use crate::error::{CliError, CliResult};

/// A cursor over one argument's text.
struct Cursor<'a> {
    text: &'a str,
    pos: usize,
}

impl<'a> Cursor<'a> {
    fn new(text: &'a str) -> Self {
        Cursor { text, pos: 0 }
    }

    fn skip_ws(&mut self) {
        while self.text[self.pos..].starts_with(|c: char| c.is_ascii_whitespace()) {
            self.pos += 1;
        }
    }

    fn found(&self) -> String {
        match self.text[self.pos..].chars().next() {
            None => "end of input".to_string(),
            Some(c) => format!("'{c}'"),
        }
    }

    fn err<T>(&self, at: usize, msg: impl Into<String>) -> CliResult<T> {
        Err(CliError::syntax(self.text, at, msg))
    }

    fn eat(&mut self, c: char) -> bool {
        self.skip_ws();
        if self.text[self.pos..].starts_with(c) {
            self.pos += c.len_utf8();
            true
        } else {
            false
        }
    }

    fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos == self.text.len()
    }

    /// An optionally signed decimal integer that fits in i64; returns (value, offset).
    fn int(&mut self, what: &str) -> CliResult<(i64, usize)> {
        self.skip_ws();
        let start = self.pos;
        let Some(end) = scan_integer(self.text, start) else {
            return self.err(start, format!("expected {what}, found {}", self.found()));
        };
        let lit = &self.text[start..end];
        match lit.parse::<i64>() {
            Ok(v) => {
                self.pos = end;
                Ok((v, start))
            }
            Err(_) => self.err(start, format!("integer {lit} does not fit in 64 bits")),
        }
    }

    fn ident(&mut self) -> CliResult<(String, usize)> {
        self.skip_ws();
        let start = self.pos;
        let end = scan_identifier(self.text, start);
        if end == start {
            return self.err(start, format!("expected an axis name, found {}", self.found()));
        }
        self.pos = end;
        Ok((self.text[start..end].to_string(), start))
    }

    fn end_of_item(&mut self, list: &str) -> CliResult<bool> {
        if self.eat(',') {
            return Ok(true);
        }
        if self.at_end() {
            return Ok(false);
        }
        self.err(
            self.pos,
            format!("expected ',' or the end of the {list}, found {}", self.found()),
        )
    }
}

/// `--shape 16,24`: a non-empty list of positive extents (product checked for overflow).
pub fn parse_shape(text: &str) -> CliResult<Vec<i64>> {
    let mut c = Cursor::new(text);
    let mut out = Vec::new();
    let mut product: i64 = 1;
    loop {
        let (v, at) = c.int("a positive extent")?;
        if v <= 0 {
            return c.err(at, format!("extent must be positive, got {v}"));
        }
        product = match product.checked_mul(v) {
            Some(p) => p,
            None => return c.err(at, "the product of the shape overflows 64-bit integers"),
        };
        out.push(v);
        if !c.end_of_item("shape")? {
            return Ok(out);
        }
    }
}

/// `--coord 2,9`: a logical coordinate, checked against `shape` (same rank, in bounds).
pub fn parse_coord(text: &str, shape: &[i64]) -> CliResult<Vec<i64>> {
    let mut c = Cursor::new(text);
    let mut out = Vec::new();
    loop {
        let (v, at) = c.int("a coordinate")?;
        let k = out.len();
        if k >= shape.len() {
            return c.err(
                at,
                format!("coordinate has more entries than the shape {shape:?} has dimensions"),
            );
        }
        if v < 0 || v >= shape[k] {
            return c.err(
                at,
                format!("coordinate {v} is out of bounds for dimension {k} of size {}", shape[k]),
            );
        }
        out.push(v);
        if !c.end_of_item("coordinate")? {
            break;
        }
    }
    if out.len() != shape.len() {
        return Err(CliError::syntax(
            text,
            text.len(),
            format!(
                "coordinate has {} entries but the shape {shape:?} has {} dimensions",
                out.len(),
                shape.len()
            ),
        ));
    }
    Ok(out)
}

/// `--region 0:8,8:24`: half-open `[lo, hi)` per dimension, checked against `shape`.
pub fn parse_region(text: &str, shape: &[i64]) -> CliResult<Vec<(i64, i64)>> {
    let mut c = Cursor::new(text);
    let mut out = Vec::new();
    loop {
        let (lo, lo_at) = c.int("the start of a range 'lo:hi'")?;
        if !c.eat(':') {
            return c.err(c.pos, format!("expected ':' in a range 'lo:hi', found {}", c.found()));
        }
        let (hi, hi_at) = c.int("the end of a range 'lo:hi'")?;
        let k = out.len();
        if k >= shape.len() {
            return c.err(
                lo_at,
                format!("region has more ranges than the shape {shape:?} has dimensions"),
            );
        }
        if lo < 0 || lo >= shape[k] {
            return c.err(
                lo_at,
                format!(
                    "range start {lo} is out of bounds for dimension {k} of size {}",
                    shape[k]
                ),
            );
        }
        if hi <= lo || hi > shape[k] {
            return c.err(
                hi_at,
                format!("range end {hi} must be in ({lo}, {}] for dimension {k}", shape[k]),
            );
        }
        out.push((lo, hi));
        if !c.end_of_item("region")? {
            break;
        }
    }
    if out.len() != shape.len() {
        return Err(CliError::syntax(
            text,
            text.len(),
            format!(
                "region has {} ranges but the shape {shape:?} has {} dimensions",
                out.len(),
                shape.len()
            ),
        ));
    }
    Ok(out)
}

/// `--point lane=8,warp=6,reg=1`: a hardware coordinate. Axes the layout does not mention are
/// refused (they would always have to be 0); unlisted axes are 0.
pub fn parse_point(text: &str, layout: &Layout) -> CliResult<Point> {
    let axes = layout.axes();
    let mut c = Cursor::new(text);
    let mut p = Point::new();
    loop {
        let (name, at) = c.ident()?;
        let axis = Axis::new(name.clone());
        if !axes.contains(&axis) {
            let known: Vec<&str> = axes.iter().map(|a| a.name()).collect();
            return c.err(
                at,
                format!("the layout has no axis '{name}' (its axes: {})", known.join(", ")),
            );
        }
        if p.contains_key(&axis) {
            return c.err(at, format!("axis '{name}' is given twice"));
        }
        if !c.eat('=') {
            return c.err(c.pos, format!("expected '=' after the axis name, found {}", c.found()));
        }
        let (v, _) = c.int("an integer coordinate")?;
        p.insert(axis, v);
        if !c.end_of_item("point")? {
            return Ok(p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn offset_of(r: CliResult<impl std::fmt::Debug>) -> usize {
        match r {
            Err(CliError::Syntax { offset, .. }) => offset,
            other => panic!("expected a syntax error, got {other:?}"),
        }
    }

    #[test]
    fn shapes() {
        assert_eq!(parse_shape("16,24").unwrap(), vec![16, 24]);
        assert_eq!(parse_shape(" 4 , 2 ").unwrap(), vec![4, 2]);
        assert_eq!(offset_of(parse_shape("16,0")), 3);
        assert_eq!(offset_of(parse_shape("16,x")), 3);
        assert_eq!(offset_of(parse_shape("")), 0);
        assert_eq!(offset_of(parse_shape("4 4")), 2);
        assert_eq!(offset_of(parse_shape("4294967296,4294967296")), 11);
    }

    #[test]
    fn regions_and_coords() {
        assert_eq!(parse_region("0:8,8:24", &[16, 24]).unwrap(), vec![(0, 8), (8, 24)]);
        assert_eq!(offset_of(parse_region("0:8,8:25", &[16, 24])), 6);
        assert_eq!(offset_of(parse_region("0:8", &[16, 24])), 3);
        assert_eq!(offset_of(parse_region("4:4,0:1", &[16, 24])), 2);
        assert_eq!(parse_coord("2,9", &[8, 16]).unwrap(), vec![2, 9]);
        assert_eq!(offset_of(parse_coord("2,16", &[8, 16])), 2);
        assert_eq!(offset_of(parse_coord("2,1,1", &[8, 16])), 4);
    }

    #[test]
    fn points() {
        let l = Layout::parse("(8, 2) : (4@lane, 1@warp) + 5@warp").unwrap();
        let p = parse_point("lane=8, warp=-1", &l).unwrap();
        assert_eq!(p.get(&Axis::from("lane")), Some(&8));
        assert_eq!(p.get(&Axis::from("warp")), Some(&-1));
        assert_eq!(offset_of(parse_point("lane=8,reg=1", &l)), 7);
        assert_eq!(offset_of(parse_point("lane=8,lane=1", &l)), 7);
        assert_eq!(offset_of(parse_point("lane:8", &l)), 4);
    }
}
