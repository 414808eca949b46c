//! The one grammar of the layout text, shared by the dialect's attribute
//! parser (through the C ABI), the `axe-layout` tool and error messages.
//!
//! ```text
//! layout  := iters ( '+' '[' iters ']' )? ( '+' scaled )*
//! iters   := '(' ( INT ( ',' INT )* )? ')' ':' '(' ( scaled ( ',' scaled )* )? ')'
//! scaled  := INT ( '@' IDENT )?          -- no '@axis' means the memory axis `m`
//! ```
//! Every error carries the byte offset of the offending token, so the dialect can report an
//! exact `file:line:col`. Semantic errors (extent ≤ 0, stride 0, i64 overflow) are reported at
//! the token that causes them.

use std::collections::BTreeMap;

use crate::error::ParseError;
use crate::layout::{Axis, Iter, Layout};

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

type PResult<T> = Result<T, ParseError>;

impl<'a> Parser<'a> {
    fn err<T>(&self, offset: usize, message: impl Into<String>) -> PResult<T> {
        Err(ParseError {
            offset,
            message: message.into(),
        })
    }

    fn skip_ws(&mut self) {
        while let Some(c) = self.text[self.pos..].chars().next() {
            if c.is_whitespace() {
                self.pos += c.len_utf8();
            } else {
                break;
            }
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.text[self.pos..].chars().next()
    }

    fn describe_here(&mut self) -> String {
        match self.peek() {
            None => "end of layout".to_string(),
            Some(c) => format!("'{c}'"),
        }
    }

    fn expect(&mut self, want: char) -> PResult<()> {
        if self.peek() == Some(want) {
            self.pos += 1;
            Ok(())
        } else {
            let found = self.describe_here();
            self.err(self.pos, format!("expected '{want}' in layout, found {found}"))
        }
    }

    /// An integer literal with an optional sign; returns (value, offset of the literal).
    fn integer(&mut self, what: &str) -> PResult<(i64, usize)> {
        self.skip_ws();
        let start = self.pos;
        let Some(end) = scan_integer(self.text, start) else {
            let found = self.describe_here();
            return self.err(start, format!("expected an integer {what}, found {found}"));
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

    fn identifier(&mut self) -> PResult<String> {
        // No whitespace is allowed between '@' and the axis name.
        let start = self.pos;
        let end = scan_identifier(self.text, start);
        if end == start {
            let found = match self.text[start..].chars().next() {
                None => "end of layout".to_string(),
                Some(c) => format!("'{c}'"),
            };
            return self.err(start, format!("expected an axis name after '@', found {found}"));
        }
        self.pos = end;
        Ok(self.text[start..end].to_string())
    }

    /// `INT ('@' IDENT)?`
    fn scaled(&mut self, what: &str) -> PResult<(i64, Axis, usize)> {
        let (v, at) = self.integer(what)?;
        if self.text[self.pos..].starts_with('@') {
            self.pos += 1;
            let name = self.identifier()?;
            Ok((v, Axis(name), at))
        } else {
            Ok((v, Axis::memory(), at))
        }
    }

    fn iters(&mut self) -> PResult<Vec<Iter>> {
        self.expect('(')?;
        let mut extents = Vec::new();
        if self.peek() != Some(')') {
            loop {
                let (e, at) = self.integer("extent")?;
                if e <= 0 {
                    return self.err(at, format!("extent must be positive, got {e}"));
                }
                extents.push((e, at));
                if self.peek() == Some(',') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
        }
        self.expect(')')?;
        self.expect(':')?;
        self.skip_ws();
        let open = self.pos;
        self.expect('(')?;
        let mut strides = Vec::new();
        if self.peek() != Some(')') {
            loop {
                let (s, axis, at) = self.scaled("stride")?;
                if s == 0 {
                    return self.err(at, "stride must be non-zero");
                }
                strides.push((s, axis, at));
                if self.peek() == Some(',') {
                    self.pos += 1;
                } else {
                    break;
                }
            }
        }
        self.expect(')')?;
        if extents.len() != strides.len() {
            return self.err(
                open,
                format!("layout has {} extents but {} strides", extents.len(), strides.len()),
            );
        }
        let mut product: i64 = 1;
        let mut out = Vec::with_capacity(extents.len());
        for ((e, eat), (s, axis, sat)) in extents.into_iter().zip(strides) {
            product = match product.checked_mul(e) {
                Some(p) => p,
                None => return self.err(eat, "product of extents overflows 64-bit integers"),
            };
            if (e - 1).checked_mul(s).is_none() {
                return self.err(sat, "extent times stride overflows 64-bit integers");
            }
            out.push(Iter {
                extent: e,
                stride: s,
                axis,
            });
        }
        Ok(out)
    }

    fn layout(&mut self) -> PResult<Layout> {
        let shard = self.iters()?;
        let mut replica = Vec::new();
        let mut offset: BTreeMap<Axis, i64> = BTreeMap::new();
        let mut seen_offset = false;
        while self.peek() == Some('+') {
            self.pos += 1;
            if self.peek() == Some('[') {
                let at = self.pos;
                if seen_offset || !replica.is_empty() {
                    return self.err(at, "the replica '[…]' must come once, right after the shard");
                }
                self.pos += 1;
                replica = self.iters()?;
                if replica.is_empty() {
                    return self.err(at, "an empty replica '[() : ()]' is not allowed; omit it");
                }
                self.expect(']')?;
            } else {
                let (v, axis, at) = self.scaled("offset")?;
                seen_offset = true;
                let e = offset.entry(axis).or_insert(0);
                *e = match e.checked_add(v) {
                    Some(x) => x,
                    None => return self.err(at, "offset overflows 64-bit integers"),
                };
            }
        }
        self.skip_ws();
        if self.pos != self.text.len() {
            let found = self.describe_here();
            return self.err(self.pos, format!("unexpected {found} after layout"));
        }
        offset.retain(|_, v| *v != 0);
        let l = Layout { shard, replica, offset };
        if let Err(e) = l.validate() {
            return self.err(0, e.to_string());
        }
        Ok(l)
    }
}

/// Parse a layout in the syntax above (without the `#axe.layout<…>` wrapper).
pub fn parse_layout(text: &str) -> Result<Layout, ParseError> {
    Parser { text, pos: 0 }.layout()
}

/// The end of an optionally signed decimal integer starting at byte `start` of `text` (no
/// whitespace skipped), or `None` when no digit follows. Shared with `axe-layout`'s argument
/// parser, which reads the same literals.
pub fn scan_integer(text: &str, start: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut end = start;
    if end < b.len() && b[end] == b'-' {
        end += 1;
    }
    let digits = end;
    while end < b.len() && b[end].is_ascii_digit() {
        end += 1;
    }
    (end > digits).then_some(end)
}

/// The end of an identifier (`[A-Za-z_][A-Za-z0-9_]*`) starting at byte `start` of `text`;
/// `start` itself when there is none.
pub fn scan_identifier(text: &str, start: usize) -> usize {
    let b = text.as_bytes();
    let mut end = start;
    if end < b.len() && (b[end].is_ascii_alphabetic() || b[end] == b'_') {
        end += 1;
        while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
            end += 1;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rt(s: &str) -> String {
        parse_layout(s).unwrap().to_string()
    }

    #[test]
    fn round_trips_canonical_text() {
        for s in [
            "(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp",
            "(16, 8) : (8, 1)",
            "(4) : (-1)",
            "() : ()",
            "(2) : (1) + 3 + 2@warp",
        ] {
            assert_eq!(rt(s), s);
        }
    }

    #[test]
    fn normalizes_spacing_and_memory_axis() {
        assert_eq!(rt("(16,8):(8@m,1)+64@m"), "(16, 8) : (8, 1) + 64");
        assert_eq!(rt("(2):(1) + 1@warp + 2@warp"), "(2) : (1) + 3@warp");
        assert_eq!(rt("(2):(1) + 1@warp + -1@warp"), "(2) : (1)");
    }

    #[test]
    fn errors_are_located() {
        let cases: &[(&str, usize, &str)] = &[
            ("(0) : (1)", 1, "extent must be positive"),
            ("(4) : (0@lane)", 7, "stride must be non-zero"),
            ("(4, 2) : (1@lane)", 9, "2 extents but 1 strides"),
            ("(4 : (1)", 3, "expected ')'"),
            ("(9223372036854775807, 4) : (1, 1)", 22, "overflows"),
            ("(4) : (1@)", 9, "axis name"),
            ("(4) : (1) + [(2) : (3@lane)", 27, "expected ']'"),
            ("(4) : (1) $", 10, "unexpected '$'"),
            ("(99999999999999999999) : (1)", 1, "does not fit"),
            ("(4) : (1) + 2 + [(2) : (1)]", 16, "replica"),
        ];
        for (text, off, msg) in cases {
            let e = parse_layout(text).unwrap_err();
            assert!(e.message.contains(msg), "{text}: {}", e.message);
            assert_eq!(e.offset, *off, "{text}: {}", e.message);
        }
    }
}
