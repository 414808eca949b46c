//===- AxeOps.cpp - Axe operation verifiers -------------------------------===//

#include "Axe/AxeDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::axe;

#define GET_OP_CLASSES
#include "Axe/AxeOps.cpp.inc"

LogicalResult ViewOp::verify() {
  auto source = llvm::cast<MemRefType>(getSource().getType());
  axe::TensorType result = getResult().getType();
  if (source.getElementType() != result.getElementType())
    return emitOpError("element type ")
           << result.getElementType()
           << " of the view differs from the memref's element type "
           << source.getElementType();
  if (result.getScope() != MemoryScope::Global &&
      result.getScope() != MemoryScope::Shared)
    return emitOpError("can only view memory in the global or shared scope, "
                       "not '")
           << stringifyMemoryScope(result.getScope()) << "'";
  return success();
}
