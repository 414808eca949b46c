//===- CAPI.cpp - the Axe C API ---------------------------------------------===//

#include "Axe-c/Dialects.h"
#include "Axe/AxeDialect.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Registration.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/AttrTypeSubElements.h"

using namespace mlir;
using namespace mlir::axe;

MLIR_DEFINE_CAPI_DIALECT_REGISTRATION(Axe, axe, mlir::axe::AxeDialect)

bool axeAttributeIsALayout(MlirAttribute attr) {
  return llvm::isa<LayoutAttr>(unwrap(attr));
}

MlirAttribute axeLayoutAttrGet(MlirContext ctx, MlirStringRef text) {
  return wrap(LayoutAttr::parse(unwrap(ctx), unwrap(text),
                                [](size_t, llvm::StringRef) {}));
}

MlirStringRef axeLayoutAttrGetText(MlirAttribute attr) {
  return wrap(llvm::cast<LayoutAttr>(unwrap(attr)).getSpec());
}

bool axeAttributeIsATarget(MlirAttribute attr) {
  return llvm::isa<TargetAttr>(unwrap(attr));
}

MlirStringRef axeTargetAttrGetName(MlirAttribute attr) {
  return wrap(llvm::cast<TargetAttr>(unwrap(attr)).getName());
}

MlirAttribute axeTargetAttrGet(MlirContext ctx, MlirStringRef name) {
  return wrap(TargetAttr::get(unwrap(ctx), unwrap(name)));
}

bool axeTypeIsATensor(MlirType type) {
  return llvm::isa<axe::TensorType>(unwrap(type));
}

bool axeTypeIsAToken(MlirType type) {
  return llvm::isa<axe::TokenType>(unwrap(type));
}

bool axeTypeIsAMBarrier(MlirType type) {
  return llvm::isa<axe::MBarrierType>(unwrap(type));
}

MlirAttribute axeTensorTypeGetLayout(MlirType type) {
  return wrap(llvm::cast<axe::TensorType>(unwrap(type)).getLayout());
}

bool axeTensorTypeGetSwizzle(MlirType type, int32_t *bits, int32_t *base,
                             int32_t *shift) {
  auto swz = llvm::dyn_cast_or_null<SwizzleAttr>(
      llvm::cast<axe::TensorType>(unwrap(type)).getSwizzle());
  if (!swz)
    return false;
  *bits = swz.getBits();
  *base = swz.getBase();
  *shift = swz.getShift();
  return true;
}

MlirType axeTensorTypeWithSwizzle(MlirType type, int32_t bits, int32_t base,
                                  int32_t shift) {
  auto t = llvm::cast<axe::TensorType>(unwrap(type));
  Attribute swz = bits > 0 ? SwizzleAttr::get(t.getContext(), bits, base, shift)
                           : Attribute();
  return wrap(axe::TensorType::get(t.getContext(), t.getShape(),
                                   t.getElementType(), t.getScope(),
                                   t.getLayout(), swz));
}

int32_t axeTensorTypeGetScope(MlirType type) {
  return static_cast<int32_t>(llvm::cast<axe::TensorType>(unwrap(type)).getScope());
}

MlirType axeTensorTypeWithLayout(MlirType type, MlirAttribute layout) {
  auto t = llvm::cast<axe::TensorType>(unwrap(type));
  return wrap(axe::TensorType::get(t.getContext(), t.getShape(),
                                   t.getElementType(), t.getScope(),
                                   unwrap(layout), t.getSwizzle()));
}

void axeReplaceLayoutsIn(MlirOperation op,
                         MlirAttribute (*replace)(MlirAttribute, void *),
                         void *userData) {
  AttrTypeReplacer replacer;
  replacer.addReplacement([&](LayoutAttr attr) -> std::optional<Attribute> {
    Attribute replaced = unwrap(replace(wrap(attr), userData));
    if (!replaced)
      return std::nullopt;
    return replaced;
  });
  replacer.recursivelyReplaceElementsIn(unwrap(op), /*replaceAttrs=*/true,
                                        /*replaceLocs=*/false,
                                        /*replaceTypes=*/true);
}

void axeEmitWarning(MlirLocation loc, const char *message) {
  mlir::emitWarning(unwrap(loc)) << message;
}

void axeEmitRemark(MlirLocation loc, const char *message) {
  mlir::emitRemark(unwrap(loc)) << message;
}

bool axeAttributeIsAMatmulSchedule(MlirAttribute attr) {
  return llvm::isa<MatmulScheduleAttr>(unwrap(attr));
}

void axeMatmulScheduleAttrGetFields(MlirAttribute attr, int64_t *fields) {
  auto s = llvm::cast<MatmulScheduleAttr>(unwrap(attr));
  fields[0] = s.getTileM();
  fields[1] = s.getTileN();
  fields[2] = s.getTileK();
  fields[3] = s.getStages();
  fields[4] = s.getCluster();
  fields[5] = s.getGroup();
  fields[6] = s.getGrid();
  fields[7] = s.getPersistent() ? (s.getPersistent().getValue() ? 1 : 0) : -1;
  fields[8] = s.getSplitK();
  fields[9] = s.getPushers();
  fields[10] = s.getPingpong() ? (s.getPingpong().getValue() ? 1 : 0) : -1;
}

MlirAttribute axeMatmulScheduleAttrGet(MlirContext ctx, const int64_t *fields) {
  MLIRContext *context = unwrap(ctx);
  BoolAttr persistent =
      fields[7] < 0 ? BoolAttr() : BoolAttr::get(context, fields[7] != 0);
  BoolAttr pingpong =
      fields[10] <= 0 ? BoolAttr() : BoolAttr::get(context, true);
  return wrap(MatmulScheduleAttr::get(context, fields[0], fields[1], fields[2],
                                      fields[3], fields[4], fields[5],
                                      fields[6], fields[8], persistent,
                                      fields[9], pingpong));
}

MlirType axeTensorTypeGet(MlirContext ctx, intptr_t rank, const int64_t *shape,
                          MlirType elementType, int32_t scope,
                          MlirAttribute layout) {
  return wrap(axe::TensorType::get(
      unwrap(ctx), ArrayRef<int64_t>(shape, rank), unwrap(elementType),
      static_cast<MemoryScope>(scope), unwrap(layout), Attribute()));
}

MlirType axeTokenTypeGet(MlirContext ctx) {
  return wrap(axe::TokenType::get(unwrap(ctx)));
}

MlirType axeMBarrierTypeGet(MlirContext ctx) {
  return wrap(axe::MBarrierType::get(unwrap(ctx)));
}
