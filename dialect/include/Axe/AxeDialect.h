//===- AxeDialect.h - the Axe dialect ---------------------------*- C++ -*-===//
#ifndef AXE_AXEDIALECT_H
#define AXE_AXEDIALECT_H

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/BuiltinTypeInterfaces.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#include "Axe/AxeEnums.h.inc"

#define GET_ATTRDEF_CLASSES
#include "Axe/AxeAttrs.h.inc"

#define GET_TYPEDEF_CLASSES
#include "Axe/AxeTypes.h.inc"

// After the attributes: the helpers of the dialect's discardable attributes
// (`discardableAttrs` in AxeDialect.td) return them by their classes.
#include "Axe/AxeDialect.h.inc"

#define GET_OP_CLASSES
#include "Axe/AxeOps.h.inc"

#endif // AXE_AXEDIALECT_H
