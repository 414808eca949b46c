//! Errors of the layout algebra. A failed precondition is a typed error, never a panic.

use thiserror::Error;

/// A structural or algebraic error on layouts.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum LayoutError {
    #[error("extent must be positive, got {0}")]
    NonPositiveExtent(i64),
    #[error("stride must be non-zero")]
    ZeroStride,
    #[error("malformed axis name '{0}'")]
    BadAxis(String),
    #[error("integer overflow: extents or strides exceed the 64-bit range")]
    Overflow,
    #[error("shape {shape:?} is not admitted by a layout of {size} elements")]
    ShapeNotAdmitted { shape: Vec<i64>, size: i64 },
    #[error("coordinate {coord:?} is out of bounds for shape {shape:?}")]
    OutOfBounds { coord: Vec<i64>, shape: Vec<i64> },
    /// The operation does not exist for these inputs (e.g. no slice layout); the reason says why.
    #[error("{0}")]
    Unsupported(String),
}

/// A syntax error at byte `offset` of the layout text.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("{message}")]
pub struct ParseError {
    pub offset: usize,
    pub message: String,
}
