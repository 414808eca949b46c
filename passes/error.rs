//! The crate's one error type: every pass body and translation returns [`AxeError`], and
//! [`AxeError::emit`] is the one place that turns it into an MLIR diagnostic.
//!
//! Most refusals are found deep in a rewrite, where the message is known but the operation to
//! blame is one level up; helpers there return a plain error (a `String`, a
//! [`axe_layout::LayoutError`]) and the caller attaches the operation with [`AtOp::at`].

use mlir_sys::MlirOperation;

/// An operation a diagnostic is located at (a raw handle: errors are reported while the IR
/// they point into is still alive, within the pass that produced them).
#[derive(Clone, Copy, Debug)]
pub struct OpHandle(pub MlirOperation);

impl From<MlirOperation> for OpHandle {
    fn from(op: MlirOperation) -> Self {
        OpHandle(op)
    }
}

/// A failure of an Axe pass or translation.
#[derive(Debug, thiserror::Error)]
pub enum AxeError {
    /// A diagnostic located at an operation (emitted there as `error: message`).
    #[error("{message}")]
    AtOp { op: OpHandle, message: String },
    /// A message not (yet) attached to an operation.
    #[error("{0}")]
    Message(String),
    #[error(transparent)]
    Layout(#[from] axe_layout::LayoutError),
    #[error(transparent)]
    Melior(#[from] melior::Error),
}

/// A result of the passes.
pub type Result<T, E = AxeError> = std::result::Result<T, E>;

impl AxeError {
    /// `message`, located at `op`.
    pub fn at(op: MlirOperation, message: impl Into<String>) -> Self {
        AxeError::AtOp {
            op: OpHandle(op),
            message: message.into(),
        }
    }

    /// This error located at `op`, unless it already names an operation (the more precise
    /// location wins); the message is unchanged.
    pub fn located(self, op: MlirOperation) -> Self {
        match self {
            e @ AxeError::AtOp { .. } => e,
            e => AxeError::at(op, e.to_string()),
        }
    }

    /// The operation this error is located at, if any.
    pub fn op(&self) -> Option<MlirOperation> {
        match self {
            AxeError::AtOp { op, .. } => Some(op.0),
            _ => None,
        }
    }

    /// Emits the error as an MLIR diagnostic at its operation, or at `fallback` when it names
    /// none, naming the operation as the C++ verifiers do (`'axe.copy' op message`; a message
    /// that starts with the op's name, `axe.matmul: ...`, is not prefixed twice).
    pub fn emit(&self, fallback: MlirOperation) {
        let op = self.op().unwrap_or(fallback);
        crate::diagnostics::emit_error_raw(op, &op_message(&crate::ir::name(op), &self.to_string()));
    }
}

/// Runs `apply` on every operation named `name` under `root` (collected first, so `apply` may
/// replace them), emitting each error at its operation; whether all succeeded. The body of
/// the passes that rewrite one op kind (`axe-matmul-schedule`, `axe-expand-matmul`,
/// `axe-expand-attention`).
pub fn for_each_op(root: MlirOperation, name: &str, mut apply: impl FnMut(MlirOperation) -> Result<()>) -> bool {
    let mut ok = true;
    for op in crate::ir::collect(root, &[name]) {
        if let Err(e) = apply(op) {
            e.emit(op);
            ok = false;
        }
    }
    ok
}

/// `message` as a diagnostic of the operation `name`: `'name' op message`, with a leading
/// `name` (and its colon) of the message folded into the prefix.
pub fn op_message(name: &str, message: &str) -> String {
    let rest = match message.strip_prefix(name) {
        Some(r) if r.starts_with([':', ' ']) => r.trim_start_matches(':').trim_start(),
        _ => message,
    };
    format!("'{name}' op {rest}")
}

impl From<String> for AxeError {
    fn from(message: String) -> Self {
        AxeError::Message(message)
    }
}

impl From<&str> for AxeError {
    fn from(message: &str) -> Self {
        AxeError::Message(message.to_string())
    }
}

/// Attaching an operation to the error of a result (`refine(..).at(op)?`).
pub trait AtOp<T> {
    /// The error, converted to an [`AxeError`] and located at `op` (see [`AxeError::located`]).
    fn at(self, op: MlirOperation) -> Result<T>;
}

impl<T, E: Into<AxeError>> AtOp<T> for std::result::Result<T, E> {
    fn at(self, op: MlirOperation) -> Result<T> {
        self.map_err(|e| e.into().located(op))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn located_keeps_the_message_and_the_first_operation() {
        // Distinct, never-dereferenced handles (the error only carries them).
        let a = MlirOperation {
            ptr: std::ptr::dangling_mut(),
        };
        let b = MlirOperation {
            ptr: std::ptr::dangling_mut::<u64>() as *mut _,
        };
        let e: Result<()> = Err::<(), _>(axe_layout::LayoutError::ZeroStride).at(a);
        let e = e.unwrap_err();
        assert_eq!(e.to_string(), "stride must be non-zero");
        assert_eq!(e.op().map(|o| o.ptr as usize), Some(1));
        let e = e.located(b);
        assert_eq!(e.op().map(|o| o.ptr as usize), Some(1));
        let m: Result<()> = Err::<(), _>("plain".to_string()).at(b);
        assert_eq!(m.unwrap_err().to_string(), "plain");
    }

    #[test]
    fn messages_name_their_op_once() {
        assert_eq!(
            op_message("axe.copy", "no vector width fits"),
            "'axe.copy' op no vector width fits"
        );
        assert_eq!(
            op_message("axe.matmul", "axe.matmul: B has layout X"),
            "'axe.matmul' op B has layout X"
        );
        assert_eq!(
            op_message("axe.matmul", "axe.matmul 64x64x64: cannot schedule"),
            "'axe.matmul' op 64x64x64: cannot schedule"
        );
        // A longer name that merely starts like the op's is not folded.
        assert_eq!(op_message("axe.gemm", "axe.gemma x"), "'axe.gemm' op axe.gemma x");
    }
}
