//===- AxePasses.h - Axe passes ---------------------------------*- C++ -*-===//
#ifndef AXE_AXEPASSES_H
#define AXE_AXEPASSES_H

#include "mlir/Pass/Pass.h"

namespace mlir::axe {
#define GEN_PASS_DECL
#include "Axe/AxePasses.h.inc"

#define GEN_PASS_REGISTRATION
#include "Axe/AxePasses.h.inc"
} // namespace mlir::axe

#endif // AXE_AXEPASSES_H
