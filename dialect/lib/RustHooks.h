//===- RustHooks.h - calls from C++ into the Rust side ----------*- C++ -*-===//
#ifndef AXE_LIB_RUSTHOOKS_H
#define AXE_LIB_RUSTHOOKS_H

#include "Axe-c/Dialects.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir {
class Operation;
class Pass;
} // namespace mlir

namespace mlir::axe {
/// The hooks installed by Rust (axeInstallRustHooks). Fatal if missing: a
/// host that never installed them cannot parse Axe IR at all.
const AxeRustHooks &rustHooks();

/// The pass's option values as `key=value` words, taken from its textual
/// pipeline form `name{key=value ...}` (empty when it has no options): every
/// option, sorted by name, booleans as true/false, a string holding a space
/// wrapped in `{...}`. Rust reads them strictly into the pass's options struct
/// generated from AxePasses.td (PassOptions::parse in dialect/rust/ods.rs).
std::string optionText(Pass &pass);

/// Runs the Rust body registered under `pass`'s flag on `op`, with the pass's
/// option values; true on success (diagnostics already emitted on failure).
bool runRustPass(Pass &pass, Operation *op);

/// Appends the sink's output to a std::string.
inline void appendToString(const char *data, size_t length, void *userData) {
  static_cast<std::string *>(userData)->append(data, length);
}
} // namespace mlir::axe

#endif // AXE_LIB_RUSTHOOKS_H
