//===- AxeDialect.cpp - dialect, attribute and type hooks -----------------===//
//
// Only what ODS cannot generate: the layout attribute's parser/printer (which
// hand the text to the Rust grammar), the tensor type's syntax and verifiers.
//
//===----------------------------------------------------------------------===//

#include "Axe/AxeDialect.h"
#include "RustHooks.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/ErrorHandling.h"

using namespace mlir;
using namespace mlir::axe;

#include "Axe/AxeDialect.cpp.inc"
#include "Axe/AxeEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "Axe/AxeAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "Axe/AxeTypes.cpp.inc"

static AxeRustHooks gHooks{};
static bool gHooksInstalled = false;

extern "C" void axeInstallRustHooks(const AxeRustHooks *hooks) {
  gHooks = *hooks;
  gHooksInstalled = true;
}

const AxeRustHooks &mlir::axe::rustHooks() {
  if (!gHooksInstalled)
    llvm::report_fatal_error("axe: the Rust hooks were not installed "
                             "(call axeInstallRustHooks first)");
  return gHooks;
}

void AxeDialect::initialize() {
  registerAttributes();
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "Axe/AxeOps.cpp.inc"
      >();
}

void AxeDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "Axe/AxeAttrs.cpp.inc"
      >();
}

void AxeDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "Axe/AxeTypes.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// #axe.layout
//===----------------------------------------------------------------------===//

LayoutAttr LayoutAttr::parse(
    MLIRContext *context, StringRef text,
    llvm::function_ref<void(size_t, StringRef)> onError) {
  std::string out;
  size_t errorOffset = 0;
  if (!rustHooks().parseLayout(text.data(), text.size(), &errorOffset,
                               appendToString, &out)) {
    onError(errorOffset, out);
    return {};
  }
  return LayoutAttr::get(context, out);
}

LogicalResult
LayoutAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   StringRef spec) {
  std::string out;
  size_t errorOffset = 0;
  if (!rustHooks().parseLayout(spec.data(), spec.size(), &errorOffset,
                               appendToString, &out))
    return emitError() << "invalid Axe layout '" << spec << "': " << out;
  if (out != spec)
    return emitError() << "Axe layout text '" << spec
                       << "' is not in canonical printing '" << out << "'";
  return success();
}

/// Parses `layout<TEXT>`: the raw text goes to the Rust grammar, and an error
/// at byte k of TEXT is reported at exactly that source location.
static Attribute parseLayoutBody(DialectAsmParser &parser) {
  llvm::SMLoc start = parser.getCurrentLocation();
  StringRef spec = parser.getFullSymbolSpec();
  // The lexer hands us the whole pretty symbol, e.g. `layout<(4) : (1)>`.
  StringRef body = spec;
  if (!body.consume_front("layout<") || !body.consume_back(">")) {
    parser.emitError(start, "expected '#axe.layout<...>'");
    return {};
  }
  size_t bodyOffset = spec.size() - body.size() - 1;
  Attribute result = LayoutAttr::parse(
      parser.getContext(), body, [&](size_t offset, StringRef message) {
        parser.emitError(llvm::SMLoc::getFromPointer(spec.data() + bodyOffset +
                                                     offset),
                         message);
      });
  return result;
}

Attribute AxeDialect::parseAttribute(DialectAsmParser &parser,
                                     Type type) const {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef spec = parser.getFullSymbolSpec();
  if (spec.starts_with("layout<"))
    return parseLayoutBody(parser);
  if (spec.starts_with("swizzle<")) {
    int32_t b, m, sh;
    if (parser.parseKeyword("swizzle") || parser.parseLess() ||
        parser.parseInteger(b) || parser.parseComma() ||
        parser.parseInteger(m) || parser.parseComma() ||
        parser.parseInteger(sh) || parser.parseGreater())
      return {};
    return SwizzleAttr::getChecked([&] { return parser.emitError(loc); },
                                   parser.getContext(), b, m, sh);
  }
  if (spec.starts_with("target<")) {
    StringRef body = spec.drop_front(strlen("target<"));
    if (!body.consume_back(">") || !body.consume_front("\"") ||
        !body.consume_back("\"")) {
      parser.emitError(loc, "expected #axe.target<\"NAME\">");
      return {};
    }
    return TargetAttr::getChecked([&] { return parser.emitError(loc); },
                                  parser.getContext(), body);
  }
  if (spec.starts_with("matmul_schedule<")) {
    StringRef mnemonic;
    Attribute value;
    OptionalParseResult parsed =
        generatedAttributeParser(parser, &mnemonic, type, value);
    if (parsed.has_value() && succeeded(*parsed))
      return value;
    return {};
  }
  parser.emitError(loc, "unknown Axe attribute '") << spec << "'";
  return {};
}

void AxeDialect::printAttribute(Attribute attr,
                                DialectAsmPrinter &printer) const {
  if (auto layout = llvm::dyn_cast<LayoutAttr>(attr)) {
    printer << "layout<" << layout.getSpec() << ">";
    return;
  }
  if (auto swz = llvm::dyn_cast<SwizzleAttr>(attr)) {
    printer << "swizzle<" << swz.getBits() << ", " << swz.getBase() << ", "
            << swz.getShift() << ">";
    return;
  }
  if (auto target = llvm::dyn_cast<TargetAttr>(attr)) {
    printer << "target<\"" << target.getName() << "\">";
    return;
  }
  if (succeeded(generatedAttributePrinter(attr, printer)))
    return;
  llvm_unreachable("unknown Axe attribute");
}

LogicalResult
TargetAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   StringRef name) {
  std::string known;
  if (!rustHooks().isKnownTarget(name.data(), name.size(), appendToString,
                                 &known))
    return emitError() << "unknown Axe target '" << name << "' (known: "
                       << known << ")";
  return success();
}

//===----------------------------------------------------------------------===//
// !axe.tensor<SHAPE x ELT, SCOPE, LAYOUT | ?>
//===----------------------------------------------------------------------===//

Type AxeDialect::parseType(DialectAsmParser &parser) const {
  llvm::SMLoc loc = parser.getCurrentLocation();
  StringRef mnemonic;
  if (parser.parseKeyword(&mnemonic))
    return {};
  if (mnemonic == "token")
    return TokenType::get(parser.getContext());
  if (mnemonic == "mbarrier")
    return MBarrierType::get(parser.getContext());
  if (mnemonic != "tensor") {
    parser.emitError(loc, "unknown Axe type '") << mnemonic << "'";
    return {};
  }
  SmallVector<int64_t> shape;
  Type elementType;
  if (parser.parseLess() ||
      parser.parseDimensionList(shape, /*allowDynamic=*/false) ||
      parser.parseType(elementType) || parser.parseComma())
    return {};
  llvm::SMLoc scopeLoc = parser.getCurrentLocation();
  StringRef scopeName;
  if (parser.parseKeyword(&scopeName))
    return {};
  std::optional<MemoryScope> scope = symbolizeMemoryScope(scopeName);
  if (!scope) {
    parser.emitError(scopeLoc, "unknown memory scope '")
        << scopeName
        << "' (expected global, shared, register, tmem, sbuf or psum)";
    return {};
  }
  if (parser.parseComma())
    return {};
  Attribute layout;
  llvm::SMLoc layoutLoc = parser.getCurrentLocation();
  if (failed(parser.parseOptionalQuestion())) {
    if (parser.parseAttribute(layout))
      return {};
    if (!llvm::isa<LayoutAttr>(layout)) {
      parser.emitError(layoutLoc, "expected an #axe.layout or '?'");
      return {};
    }
  }
  Attribute swizzle;
  if (succeeded(parser.parseOptionalComma())) {
    llvm::SMLoc swizzleLoc = parser.getCurrentLocation();
    if (parser.parseAttribute(swizzle))
      return {};
    if (!llvm::isa<SwizzleAttr>(swizzle)) {
      parser.emitError(swizzleLoc, "expected an #axe.swizzle<B, M, S>");
      return {};
    }
  }
  if (parser.parseGreater())
    return {};
  return axe::TensorType::getChecked(
      [&] { return parser.emitError(loc); }, parser.getContext(), shape,
      elementType, *scope, layout, swizzle);
}

void AxeDialect::printType(Type type, DialectAsmPrinter &printer) const {
  if (llvm::isa<TokenType>(type)) {
    printer << "token";
    return;
  }
  if (llvm::isa<MBarrierType>(type)) {
    printer << "mbarrier";
    return;
  }
  auto tensor = llvm::cast<axe::TensorType>(type);
  printer << "tensor<";
  for (int64_t d : tensor.getShape())
    printer << d << "x";
  printer << tensor.getElementType() << ", "
          << stringifyMemoryScope(tensor.getScope()) << ", ";
  if (tensor.getLayout())
    printer.printAttribute(tensor.getLayout());
  else
    printer << "?";
  if (tensor.getSwizzle()) {
    printer << ", ";
    printer.printAttribute(tensor.getSwizzle());
  }
  printer << ">";
}

LogicalResult
SwizzleAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                    int32_t bits, int32_t base, int32_t shift) {
  if (bits < 1 || base < 0 || shift < bits || base + bits + shift > 30)
    return emitError() << "#axe.swizzle<" << bits << ", " << base << ", "
                       << shift
                       << "> must satisfy B >= 1, M >= 0, S >= B and "
                          "M + B + S <= 30";
  return success();
}

LogicalResult
axe::TensorType::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   ArrayRef<int64_t> shape, Type elementType,
                   MemoryScope scope, Attribute layout, Attribute swizzle) {
  if (swizzle) {
    if (!llvm::isa<SwizzleAttr>(swizzle))
      return emitError() << "tensor swizzle must be an #axe.swizzle";
    if (scope != MemoryScope::Shared)
      return emitError() << "only shared tensors can be swizzled, not "
                         << stringifyMemoryScope(scope) << " ones";
  }
  int64_t elements = 1;
  for (int64_t d : shape) {
    if (d <= 0)
      return emitError() << "tensor dimensions must be positive, got " << d;
    if (__builtin_mul_overflow(elements, d, &elements))
      return emitError() << "tensor shape overflows 64-bit element count";
  }
  if (!elementType.isIntOrFloat())
    return emitError() << "tensor element type must be an integer or float, got "
                       << elementType;
  if (!layout)
    return success();
  auto layoutAttr = llvm::dyn_cast<LayoutAttr>(layout);
  if (!layoutAttr)
    return emitError() << "tensor layout must be an #axe.layout or '?'";
  StringRef spec = layoutAttr.getSpec();
  int64_t size = rustHooks().layoutSize(spec.data(), spec.size());
  if (size != elements)
    return emitError() << "layout " << layoutAttr << " of " << size
                       << " elements does not admit shape with " << elements
                       << " elements";
  return success();
}

axe::TensorType axe::TensorType::cloneWith(std::optional<ArrayRef<int64_t>> shape,
                                 Type elementType) const {
  return axe::TensorType::get(getContext(), shape ? *shape : getShape(),
                         elementType, getScope(), getLayout(), getSwizzle());
}

//===----------------------------------------------------------------------===//
// Argument attributes
//===----------------------------------------------------------------------===//

/// `axe.align` on a function argument: the byte alignment the caller promises
/// for the buffer's base (a power of two, at least 1). The names are the
/// dialect's discardable attributes (`discardableAttrs` in AxeDialect.td).
LogicalResult AxeDialect::verifyRegionArgAttribute(Operation *op,
                                                   unsigned regionIndex,
                                                   unsigned argIndex,
                                                   NamedAttribute attr) {
  // Arguments convert-axe-to-gpu adds for a device mesh: the rank, and the table of a
  // symmetric buffer's device addresses on every rank.
  if (attr.getName() == getMeshRankAttrHelper().getName()) {
    if (!llvm::isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << MeshRankAttrHelper::getNameStr()
                             << "' on argument #" << argIndex
                             << " must be a unit attribute";
    return success();
  }
  // A zeroed scratch buffer the launcher allocates (convert-linalg-to-axe).
  if (attr.getName() == getWorkspaceAttrHelper().getName()) {
    if (!llvm::isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << WorkspaceAttrHelper::getNameStr()
                             << "' on argument #" << argIndex
                             << " must be a unit attribute";
    return success();
  }
  if (attr.getName() == getPeersOfAttrHelper().getName()) {
    auto of = llvm::dyn_cast<IntegerAttr>(attr.getValue());
    if (!of || of.getInt() < 0)
      return op->emitError() << "'" << PeersOfAttrHelper::getNameStr()
                             << "' on argument #" << argIndex
                             << " must name an argument (a non-negative i64)";
    return success();
  }
  if (attr.getName() != getAlignAttrHelper().getName())
    return op->emitError() << "unknown Axe argument attribute '"
                           << attr.getName().getValue() << "'";
  auto align = llvm::dyn_cast<IntegerAttr>(attr.getValue());
  if (!align || !align.getType().isInteger(64))
    return op->emitError() << "'" << AlignAttrHelper::getNameStr()
                           << "' on argument #" << argIndex
                           << " must be an i64 integer";
  int64_t value = align.getInt();
  if (value < 1 || !llvm::isPowerOf2_64(value) || value > (1 << 20))
    return op->emitError() << "'" << AlignAttrHelper::getNameStr()
                           << "' on argument #" << argIndex
                           << " must be a power of two in [1, 2^20], got "
                           << value;
  return success();
}
