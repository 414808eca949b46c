//! The tool's errors and the exit codes they map to (the contract in `--help`):
//!
//! * `2` — malformed input: a layout, shape, region, coordinate or point that does not parse, or
//!   does not fit the layout (shape not admitted, coordinate out of bounds, unknown axis);
//! * `1` — well-formed input for which the operation has no result (no slice layout, not a
//!   tile, not representable in 64 bits, too large to enumerate, output not writable).
//!
//! Syntax errors carry the byte offset of the offending character and are printed as
//! `error: at column N: message`, followed by the text and a caret under that character.

use axe_layout::{LayoutError, ParseError};

pub const EXIT_NO_RESULT: i32 = 1;
pub const EXIT_MALFORMED: i32 = 2;

#[derive(Debug)]
pub enum CliError {
    /// A syntax error at byte `offset` of `text` (a layout, CuTe layout, shape, region, point).
    Syntax {
        text: String,
        offset: usize,
        message: String,
    },
    /// Malformed input without a position (shape not admitted, unknown axis, …).
    Malformed(String),
    /// The operation does not exist for these inputs; the reason.
    NoResult(String),
}

impl CliError {
    pub fn syntax(text: &str, offset: usize, message: impl Into<String>) -> Self {
        CliError::Syntax {
            text: text.to_string(),
            offset,
            message: message.into(),
        }
    }

    pub fn from_parse(text: &str, e: ParseError) -> Self {
        CliError::syntax(text, e.offset, e.message)
    }

    pub fn exit_code(&self) -> i32 {
        match self {
            CliError::Syntax { .. } | CliError::Malformed(_) => EXIT_MALFORMED,
            CliError::NoResult(_) => EXIT_NO_RESULT,
        }
    }

    /// The full diagnostic, as printed on stderr.
    pub fn render(&self) -> String {
        match self {
            CliError::Syntax { text, offset, message } => {
                // Columns count characters, not bytes, so the caret lines up under UTF-8 text.
                let mut off = (*offset).min(text.len());
                while !text.is_char_boundary(off) {
                    off -= 1;
                }
                let col = text[..off].chars().count();
                // Tabs and newlines would break the caret alignment; show them as spaces.
                let shown: String = text.chars().map(|c| if c.is_whitespace() { ' ' } else { c }).collect();
                format!(
                    "error: at column {}: {message}\n  {shown}\n  {}^\n",
                    col + 1,
                    " ".repeat(col)
                )
            }
            CliError::Malformed(m) | CliError::NoResult(m) => format!("error: {m}\n"),
        }
    }
}

impl From<LayoutError> for CliError {
    /// Structural errors of the inputs are malformed input; an operation that has no answer
    /// (`Unsupported`) or whose answer leaves i64 (`Overflow`) has no result.
    fn from(e: LayoutError) -> Self {
        match e {
            LayoutError::Unsupported(_) | LayoutError::Overflow => CliError::NoResult(e.to_string()),
            LayoutError::NonPositiveExtent(_)
            | LayoutError::ZeroStride
            | LayoutError::BadAxis(_)
            | LayoutError::ShapeNotAdmitted { .. }
            | LayoutError::OutOfBounds { .. } => CliError::Malformed(e.to_string()),
        }
    }
}

pub type CliResult<T> = Result<T, CliError>;
