//===- RustHooks.h - calls from C++ into the Rust side ----------*- C++ -*-===//
#ifndef AXE_LIB_RUSTHOOKS_H
#define AXE_LIB_RUSTHOOKS_H

#include "Axe-c/Dialects.h"
#include "llvm/ADT/StringRef.h"
#include <string>

namespace mlir::axe {
/// The hooks installed by Rust (axeInstallRustHooks). Fatal if missing: a
/// host that never installed them cannot parse Axe IR at all.
const AxeRustHooks &rustHooks();

/// Appends the sink's output to a std::string.
inline void appendToString(const char *data, size_t length, void *userData) {
  static_cast<std::string *>(userData)->append(data, length);
}
} // namespace mlir::axe

#endif // AXE_LIB_RUSTHOOKS_H
