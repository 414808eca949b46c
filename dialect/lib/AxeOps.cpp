//===- AxeOps.cpp - Axe operation verifiers -------------------------------===//
//
// Structural invariants of the scoped tensor ops: shapes and element types
// agree, slices stay in bounds, ops run in scopes that can execute them,
// register tensors stay in the scope that owns them, and every layout fits
// the target (the target facts themselves live in Rust, passes/target/mod.rs).
//
//===----------------------------------------------------------------------===//

#include "Axe/AxeDialect.h"
#include "RustHooks.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::axe;

//===----------------------------------------------------------------------===//
// custom<Region>: `[lo0 : hi0, lo1 : hi1]`
//===----------------------------------------------------------------------===//

static ParseResult
parseRegion(OpAsmParser &parser,
            SmallVectorImpl<OpAsmParser::UnresolvedOperand> &origins,
            SmallVectorImpl<OpAsmParser::UnresolvedOperand> &ends,
            DenseI64ArrayAttr &lower, DenseI64ArrayAttr &upper,
            DenseI64ArrayAttr &bounded) {
  SmallVector<int64_t> lo, hi, boundedDims;
  auto parseOne = [&]() -> ParseResult {
    OpAsmParser::UnresolvedOperand origin;
    OptionalParseResult dynamic = parser.parseOptionalOperand(origin);
    if (dynamic.has_value()) {
      int64_t size;
      if (failed(*dynamic) || parser.parseColon() || parser.parsePlus() ||
          parser.parseInteger(size))
        return failure();
      // `until %end`: the dimension's run-time end (a run-time extent).
      if (succeeded(parser.parseOptionalKeyword("until"))) {
        OpAsmParser::UnresolvedOperand end;
        if (parser.parseOperand(end))
          return failure();
        ends.push_back(end);
        boundedDims.push_back(static_cast<int64_t>(lo.size()));
      }
      origins.push_back(origin);
      lo.push_back(SliceOp::kDynamic);
      hi.push_back(size);
      return success();
    }
    int64_t l, h;
    if (parser.parseInteger(l) || parser.parseColon() || parser.parseInteger(h))
      return failure();
    lo.push_back(l);
    hi.push_back(h);
    return success();
  };
  if (parser.parseCommaSeparatedList(OpAsmParser::Delimiter::Square, parseOne))
    return failure();
  lower = parser.getBuilder().getDenseI64ArrayAttr(lo);
  upper = parser.getBuilder().getDenseI64ArrayAttr(hi);
  if (!boundedDims.empty())
    bounded = parser.getBuilder().getDenseI64ArrayAttr(boundedDims);
  return success();
}

static void printRegion(OpAsmPrinter &printer, Operation *,
                        OperandRange origins, OperandRange ends,
                        DenseI64ArrayAttr lower, DenseI64ArrayAttr upper,
                        DenseI64ArrayAttr bounded) {
  printer << "[";
  size_t next = 0, nextEnd = 0;
  for (size_t i = 0; i < lower.size(); ++i) {
    if (i)
      printer << ", ";
    if (lower[i] == SliceOp::kDynamic && next < origins.size()) {
      printer << origins[next++] << " : +" << upper[i];
      if (bounded && llvm::is_contained(bounded.asArrayRef(),
                                        static_cast<int64_t>(i)) &&
          nextEnd < ends.size())
        printer << " until " << ends[nextEnd++];
    } else {
      printer << lower[i] << " : " << upper[i];
    }
  }
  printer << "]";
}

//===----------------------------------------------------------------------===//
// custom<ScopeSlice>: optional `[lo : hi]`
//===----------------------------------------------------------------------===//

static ParseResult parseScopeSlice(OpAsmParser &parser, IntegerAttr &lo,
                                   IntegerAttr &hi) {
  if (failed(parser.parseOptionalLSquare()))
    return success();
  int64_t l, h;
  if (parser.parseInteger(l) || parser.parseColon() ||
      parser.parseInteger(h) || parser.parseRSquare())
    return failure();
  lo = parser.getBuilder().getI64IntegerAttr(l);
  hi = parser.getBuilder().getI64IntegerAttr(h);
  return success();
}

static void printScopeSlice(OpAsmPrinter &printer, Operation *,
                            IntegerAttr lo, IntegerAttr hi) {
  if (lo && hi)
    printer << "[" << lo.getInt() << " : " << hi.getInt() << "]";
}

#define GET_OP_CLASSES
#include "Axe/AxeOps.cpp.inc"

//===----------------------------------------------------------------------===//
// Shared checks
//===----------------------------------------------------------------------===//

/// The target named by the nearest `axe.target` attribute (the dialect's
/// discardable attribute `target`) around `op`.
static TargetAttr findTarget(Operation *op) {
  // Verifiers of Axe ops run with the dialect loaded.
  auto *dialect = op->getContext()->getLoadedDialect<AxeDialect>();
  if (!dialect)
    return {};
  auto target = dialect->getTargetAttrHelper();
  for (Operation *p = op; p; p = p->getParentOp())
    if (auto t = target.getAttr(p))
      return t;
  return {};
}

/// Whether `target` has `feature` (a fact of the Rust target table).
static bool targetHas(TargetAttr target, AxeTargetFeature feature) {
  StringRef name = target.getName();
  return rustHooks().targetHasFeature(name.data(), name.size(), feature);
}

static bool isGpuTarget(TargetAttr target) {
  if (!target)
    return false;
  StringRef name = target.getName();
  return rustHooks().isGpuTarget(name.data(), name.size());
}

/// How fine a scope is: cluster < cta < warpgroup < warp < thread.
static int scopeRank(ScopeKind kind) { return static_cast<int>(kind); }

/// The innermost scope op (axe.scope or axe.kernel) around `op`, or null.
static Operation *enclosingScope(Operation *op) {
  for (Operation *p = op->getParentOp(); p; p = p->getParentOp())
    if (isa<ScopeOp, KernelOp>(p))
      return p;
  return nullptr;
}

/// The granularity at which `op` executes: its innermost axe.scope's kind,
/// or CTA directly inside a kernel; nullopt outside any kernel.
static std::optional<ScopeKind> executingScope(Operation *op) {
  Operation *s = enclosingScope(op);
  if (!s)
    return std::nullopt;
  if (auto scope = dyn_cast<ScopeOp>(s))
    return scope.getKind();
  return ScopeKind::Cta;
}

/// Checks every Axe tensor type among `op`'s operands and results against
/// the target, and that register tensors are used inside their owning scope.
static LogicalResult verifyTensorUses(Operation *op) {
  TargetAttr target = findTarget(op);
  int64_t numWarps = -1, numDevices = -1;
  if (auto kernel = op->getParentOfType<KernelOp>())
    numWarps = kernel.getNumThreads() / 32;
  // Outside a mesh there are no devices to distribute over (0 devices).
  if (auto mesh = op->getParentOfType<MeshOp>())
    numDevices = mesh.getNumDevices();
  else
    numDevices = 0;
  auto check = [&](Type type, StringRef what, unsigned index) -> LogicalResult {
    auto tensor = dyn_cast<axe::TensorType>(type);
    if (!tensor || !tensor.getLayoutAttr() || !target)
      return success();
    StringRef name = target.getName();
    StringRef layout = tensor.getLayoutAttr().getSpec();
    std::string reason;
    if (!rustHooks().checkLayoutOnTarget(name.data(), name.size(),
                                         layout.data(), layout.size(), numWarps,
                                         numDevices, appendToString, &reason))
      return op->emitOpError() << what << " #" << index << " has layout "
                               << tensor.getLayoutAttr()
                               << " that does not fit target '" << name
                               << "': " << reason;
    return success();
  };
  for (auto [i, v] : llvm::enumerate(op->getOperands()))
    if (failed(check(v.getType(), "operand", i)))
      return failure();
  for (auto [i, v] : llvm::enumerate(op->getResults()))
    if (failed(check(v.getType(), "result", i)))
      return failure();
  // An op executing at a fine scope sees only part of a register tensor: a
  // thread its own registers, a warp its lanes' registers (hardware facts in
  // passes/target/mod.rs). SSA dominance already keeps a register tensor inside
  // the scope that allocated it.
  std::optional<ScopeKind> exec = executingScope(op);
  if (!exec)
    return success();
  for (auto [i, v] : llvm::enumerate(op->getOperands())) {
    auto tensor = dyn_cast<axe::TensorType>(v.getType());
    if (!tensor || tensor.getScope() != MemoryScope::Register ||
        !tensor.getLayoutAttr())
      continue;
    StringRef layout = tensor.getLayoutAttr().getSpec();
    std::string reason;
    if (!rustHooks().checkRegisterLayoutInScope(
            layout.data(), layout.size(), static_cast<int32_t>(*exec),
            appendToString, &reason))
      return op->emitOpError()
             << "cannot use register tensor (operand #" << i << ") with layout "
             << tensor.getLayoutAttr() << " at "
             << stringifyScopeKind(*exec) << " scope: " << reason;
  }
  return success();
}

static LogicalResult requireKernel(Operation *op, StringRef why) {
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError() << why;
  return success();
}

//===----------------------------------------------------------------------===//
// Scopes
//===----------------------------------------------------------------------===//

int64_t KernelOp::getNumThreads() {
  // Saturating: the verifier reports oversized launches instead of wrapping.
  int64_t n = 1;
  for (int64_t t : getThreads())
    if (t > 0 && n > INT64_MAX / t)
      n = INT64_MAX;
    else
      n *= t;
  return n;
}

LogicalResult KernelOp::verify() {
  auto positive = [&](ArrayRef<int64_t> dims, StringRef what) -> LogicalResult {
    if (dims.empty() || dims.size() > 3)
      return emitOpError() << what << " must have 1 to 3 dimensions";
    for (int64_t d : dims)
      if (d <= 0)
        return emitOpError() << what << " sizes must be positive, got " << d;
    return success();
  };
  if (failed(positive(getGrid(), "grid")) ||
      failed(positive(getThreads(), "threads")))
    return failure();
  std::optional<ArrayRef<int64_t>> cluster = getCluster();
  if (cluster && failed(positive(*cluster, "cluster")))
    return failure();
  ArrayRef<int64_t> clusterDims = cluster ? *cluster : ArrayRef<int64_t>();
  if (TargetAttr target = findTarget(*this); isGpuTarget(target)) {
    StringRef name = target.getName();
    std::string reason;
    if (!rustHooks().checkLaunch(name.data(), name.size(), getGrid().data(),
                                 getGrid().size(), getThreads().data(),
                                 getThreads().size(), clusterDims.data(),
                                 clusterDims.size(), appendToString, &reason))
      return emitOpError() << "launch exceeds the limits of '" << name
                           << "': " << reason;
  } else if (getNumThreads() > 1024) {
    return emitOpError() << "a CTA has at most 1024 threads, got "
                         << getNumThreads();
  }
  if ((*this)->getParentOfType<KernelOp>())
    return emitOpError() << "kernels cannot nest";
  return success();
}

LogicalResult ScopeOp::verify() {
  Operation *parent = enclosingScope(*this);
  if (!parent || !(*this)->getParentOfType<KernelOp>())
    return emitOpError() << "must be nested in an axe.kernel";
  if (auto outer = dyn_cast<ScopeOp>(parent))
    if (scopeRank(outer.getKind()) > scopeRank(getKind()))
      return emitOpError() << "a " << stringifyScopeKind(getKind())
                           << " scope cannot be nested in a "
                           << stringifyScopeKind(outer.getKind()) << " scope";
  if (getLo().has_value() != getHi().has_value())
    return emitOpError() << "a scope slice needs both bounds";
  if (getLo()) {
    int64_t lo = *getLo(), hi = *getHi();
    if (lo < 0 || lo >= hi)
      return emitOpError() << "scope slice [" << lo << " : " << hi
                           << "] must satisfy 0 <= lo < hi";
    // A slice counts units of the enclosing scope's unit (the CTA, or each
    // warpgroup of an enclosing warpgroup scope, ...).
    auto kernel = (*this)->getParentOfType<KernelOp>();
    auto threadsOf = [&](ScopeKind k) -> int64_t {
      switch (k) {
      case ScopeKind::Thread: return 1;
      case ScopeKind::Warp: return 32;
      case ScopeKind::Warpgroup: return 128;
      default: return kernel.getNumThreads();
      }
    };
    auto outer = dyn_cast<ScopeOp>(parent);
    int64_t within = outer ? threadsOf(outer.getKind()) : kernel.getNumThreads();
    within = std::min(within, kernel.getNumThreads());
    int64_t units = -1;
    if (getKind() == ScopeKind::Thread || getKind() == ScopeKind::Warp ||
        getKind() == ScopeKind::Warpgroup)
      units = within / threadsOf(getKind());
    if (units >= 0 && hi > units)
      return emitOpError() << "scope slice [" << lo << " : " << hi
                           << "] exceeds the " << units << " "
                           << stringifyScopeKind(getKind()) << "(s) of "
                           << (outer ? "each unit of the enclosing scope"
                                     : "the kernel");
  }
  return success();
}

int64_t MeshOp::getNumDevices() {
  int64_t n = 1;
  for (int64_t d : getShape())
    n *= d;
  return n;
}

LogicalResult MeshOp::verify() {
  if (getShape().empty())
    return emitOpError() << "mesh shape must not be empty";
  for (int64_t d : getShape())
    if (d <= 0)
      return emitOpError() << "mesh sizes must be positive, got " << d;
  return success();
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

LogicalResult AllocOp::verify() {
  axe::TensorType type = getResult().getType();
  MemoryScope scope = type.getScope();
  TargetAttr target = findTarget(*this);
  bool onChip = scope == MemoryScope::Shared || scope == MemoryScope::Register ||
                scope == MemoryScope::TMem;
  if (onChip && !(*this)->getParentOfType<KernelOp>())
    return emitOpError() << "a " << stringifyMemoryScope(scope)
                         << " tensor can only be allocated inside an axe.kernel";
  if (target) {
    StringRef name = target.getName();
    if (!rustHooks().targetHasMemory(name.data(), name.size(),
                                     static_cast<int32_t>(scope)))
      return emitOpError() << "target '" << name << "' has no "
                           << stringifyMemoryScope(scope) << " memory";
  }
  if (failed(verifyTensorUses(*this)))
    return failure();
  // What the allocation occupies must fit the target (shared memory per CTA).
  Type element = type.getElementType();
  if (target && type.getLayoutAttr() && element.isIntOrFloat()) {
    int32_t swizzleLog2 = -1;
    if (auto swizzle = llvm::dyn_cast_or_null<SwizzleAttr>(type.getSwizzle()))
      swizzleLog2 = swizzle.getBase() + swizzle.getBits() + swizzle.getShift();
    StringRef name = target.getName();
    StringRef layout = type.getLayoutAttr().getSpec();
    std::string reason;
    if (!rustHooks().checkAllocation(
            name.data(), name.size(), layout.data(), layout.size(),
            static_cast<int32_t>(scope), element.getIntOrFloatBitWidth(),
            swizzleLog2, appendToString, &reason))
      return emitOpError() << "the " << stringifyMemoryScope(scope)
                           << " tensor does not fit target '" << name
                           << "': " << reason;
  }
  return success();
}

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
  return verifyTensorUses(*this);
}

LogicalResult SliceOp::verify() {
  axe::TensorType source = getSource().getType();
  axe::TensorType result = getResult().getType();
  ArrayRef<int64_t> lo = getLower(), hi = getUpper();
  if (lo.size() != source.getShape().size())
    return emitOpError() << "region has " << lo.size()
                         << " dimensions but the source has rank "
                         << source.getShape().size();
  if (hi.size() != lo.size())
    return emitOpError() << "region bounds have different ranks";
  int64_t dynamic = llvm::count(lo, kDynamic);
  if (dynamic != static_cast<int64_t>(getOrigins().size()))
    return emitOpError() << "has " << getOrigins().size()
                         << " run-time origins for " << dynamic
                         << " dynamic dimensions";
  if (getClip() && !dynamic)
    return emitOpError() << "'clip' applies to run-time-origin tiles; this "
                            "slice has none";
  if (getClip() && source.getScope() != MemoryScope::Global)
    return emitOpError() << "'clip' needs a global tensor (out-of-bounds "
                            "elements are filled by TMA and skipped by "
                            "predicated stores), not a "
                         << stringifyMemoryScope(source.getScope()) << " one";
  ArrayRef<int64_t> bounded;
  if (auto b = getBoundedAttr())
    bounded = b.asArrayRef();
  if (bounded.size() != getEnds().size())
    return emitOpError() << "has " << getEnds().size() << " run-time ends for "
                         << bounded.size() << " bounded dimensions";
  for (size_t k = 0; k < bounded.size(); ++k) {
    int64_t d = bounded[k];
    if (d < 0 || d >= static_cast<int64_t>(lo.size()) || lo[d] != kDynamic)
      return emitOpError() << "bounded dimension " << d
                           << " has no run-time origin ('until' follows "
                              "`%origin : +size`)";
    if (k && bounded[k - 1] >= d)
      return emitOpError() << "bounded dimensions must be increasing";
  }
  if (!bounded.empty() && source.getScope() != MemoryScope::Global)
    return emitOpError() << "a run-time end ('until') needs a global tensor "
                            "(elements past it are read as zero and not "
                            "written, by predicated accesses), not a "
                         << stringifyMemoryScope(source.getScope()) << " one";
  for (size_t i = 0; i < lo.size(); ++i) {
    int64_t dim = source.getShape()[i];
    if (lo[i] == kDynamic) {
      // `%o : +size`: a tile of the dimension; with `clip` the last tile may
      // reach past it; with `until %end`, a window at any origin of which
      // the elements at or past the end do not exist.
      if ((getClip() || llvm::is_contained(bounded, static_cast<int64_t>(i))) &&
          hi[i] > 0)
        continue;
      if (hi[i] <= 0 || dim % hi[i] != 0)
        return emitOpError() << "a run-time origin needs a tile size dividing "
                                "the dimension: size "
                             << hi[i] << " does not divide " << dim
                             << " (dimension " << i
                             << "; 'clip' allows a partial last tile of a "
                                "global tensor)";
      continue;
    }
    if (lo[i] < 0 || lo[i] >= hi[i] || hi[i] > dim)
      return emitOpError() << "region [" << lo[i] << " : " << hi[i]
                           << "] of dimension " << i
                           << " is out of bounds for size " << dim;
    if (dynamic && (lo[i] != 0 || hi[i] != dim))
      return emitOpError() << "with a run-time origin, every other dimension "
                              "must be whole (0 : "
                           << dim << "), not [" << lo[i] << " : " << hi[i]
                           << "]";
  }
  for (size_t i = 0; i < lo.size(); ++i) {
    int64_t size = lo[i] == kDynamic ? hi[i] : hi[i] - lo[i];
    if (result.getShape().size() != lo.size() || result.getShape()[i] != size)
      return emitOpError() << "result shape must be the region's shape";
  }
  if (result.getElementType() != source.getElementType() ||
      result.getScope() != source.getScope())
    return emitOpError()
           << "result must keep the source's element type and memory scope";
  if (result.getSwizzle() != source.getSwizzle())
    return emitOpError() << "result must keep the source's swizzle (it "
                            "addresses the same shared storage)";
  return verifyTensorUses(*this);
}

LogicalResult DeviceIdOp::verify() {
  if (!(*this)->getParentOfType<MeshOp>())
    return emitOpError() << "must be inside an axe.mesh (it is the rank of "
                            "the device in the mesh)";
  return success();
}

/// A flag of axe.signal / axe.signal_wait: one i32 element in global memory.
/// `many`: a wait may watch several flags at once (it waits until all hold
/// the value); a signal sets one.
static LogicalResult verifyFlag(Operation *op, axe::TensorType t, bool many) {
  if (!t.getElementType().isSignlessInteger(32))
    return op->emitOpError() << "flag must hold i32 elements, not "
                             << t.getElementType();
  int64_t n = 1;
  for (int64_t d : t.getShape())
    n *= d;
  if (n != 1 && !many)
    return op->emitOpError() << "flag must be one element, not " << t
                             << " (slice the flag array)";
  if (t.getScope() != MemoryScope::Global)
    return op->emitOpError() << "flag must live in global memory (other "
                                "CTAs and devices read it), not "
                             << stringifyMemoryScope(t.getScope());
  if (!op->getParentOfType<KernelOp>())
    return op->emitOpError() << "must be inside an axe.kernel";
  return success();
}

LogicalResult SignalOp::verify() {
  return verifyFlag(*this, getFlag().getType(), /*many=*/false);
}

LogicalResult SignalWaitOp::verify() {
  return verifyFlag(*this, getFlag().getType(), /*many=*/true);
}

LogicalResult MBarrierOp::verify() {
  if (!llvm::isa_and_nonnull<KernelOp>((*this)->getParentOp()))
    return emitOpError() << "must be an op of an axe.kernel's body (not "
                            "nested in a scope or a loop): every thread of "
                            "the CTA shares the barrier";
  if (TargetAttr target = findTarget(*this);
      target && !targetHas(target, AxeTargetFeatureMBarrier))
    return emitOpError() << "mbarriers need sm_90 or newer, target is '"
                         << target.getName() << "'";
  return success();
}

/// An operand of type !axe.mbarrier must come straight from an axe.mbarrier
/// (the lowering gives each one a fixed slot in shared memory).
static LogicalResult verifyBarrierOperand(Operation *op, Value barrier) {
  if (!barrier.getDefiningOp<MBarrierOp>())
    return op->emitOpError() << "takes a barrier defined by axe.mbarrier (not "
                                "a block argument or another op's result)";
  return success();
}

/// The kernel around `op` launches clusters (`axe.kernel ... cluster [...]`).
static LogicalResult requireCluster(Operation *op, StringRef what) {
  auto kernel = op->getParentOfType<KernelOp>();
  if (!kernel || !kernel.getCluster())
    return op->emitOpError() << what
                             << " needs a kernel launched in clusters "
                                "(axe.kernel ... cluster [...])";
  return success();
}

LogicalResult MBarrierArriveOp::verify() {
  if (getCta() && failed(requireCluster(*this, "an arrival on a peer CTA's barrier ('cta')")))
    return failure();
  return verifyBarrierOperand(*this, getBarrier());
}

LogicalResult MBarrierWaitOp::verify() {
  return verifyBarrierOperand(*this, getBarrier());
}

LogicalResult SetMaxRegistersOp::verify() {
  if (getCount() % 8 != 0)
    return emitOpError() << "register count must be a multiple of 8, not "
                         << getCount();
  auto scope = dyn_cast_or_null<ScopeOp>((*this)->getParentOp());
  if (!scope || scope.getKind() != ScopeKind::Warpgroup)
    return emitOpError() << "must be an op of an axe.scope warpgroup body "
                            "(whole warpgroups change their registers)";
  return success();
}

LogicalResult UnitIdOp::verify() {
  if (!(*this)->getParentOfType<KernelOp>())
    return emitOpError() << "must be inside an axe.kernel";
  if (getInCluster()) {
    if (getKind() != ScopeKind::Cta)
      return emitOpError() << "'in_cluster' numbers the CTAs of a cluster; "
                              "use it with 'cta', not '"
                           << stringifyScopeKind(getKind()) << "'";
    return requireCluster(*this, "a CTA's rank in its cluster ('in_cluster')");
  }
  return success();
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

static LogicalResult sameShape(Operation *op, axe::TensorType a,
                               axe::TensorType b, StringRef what) {
  if (a.getShape() != b.getShape())
    return op->emitOpError() << what << " shapes differ: " << a << " vs " << b;
  return success();
}

LogicalResult CopyOp::verify() {
  axe::TensorType src = getSource().getType(), dst = getDest().getType();
  if (failed(sameShape(*this, src, dst, "source and destination")))
    return failure();
  if (src.getElementType() != dst.getElementType())
    return emitOpError() << "copy cannot change the element type (from "
                         << src.getElementType() << " to "
                         << dst.getElementType() << "); use axe.cast";
  if (getBarrier()) {
    if (getSchedule() != CopySchedule::Tma || !getAsync() || getToken() ||
        getAfter())
      return emitOpError() << "a copy on a barrier is an async tma copy with "
                              "no token and no 'after' (it completes on the "
                              "barrier)";
    if (failed(verifyBarrierOperand(*this, getBarrier())))
      return failure();
    if (src.getScope() != MemoryScope::Global ||
        dst.getScope() != MemoryScope::Shared)
      return emitOpError() << "only a tma load (global to shared) completes "
                              "on a barrier";
  } else if (getMulticast()) {
    return emitOpError() << "a multicast copy is a tma load on a barrier "
                            "('barrier %b'): each CTA of the group counts its "
                            "bytes there";
  } else if (getAsync() != (getToken() != nullptr))
    return emitOpError() << "an async copy returns exactly one token, and only "
                            "an async copy does";
  if (std::optional<ArrayRef<int64_t>> dims = getMulticast()) {
    if (failed(requireCluster(*this, "a multicast copy")))
      return failure();
    size_t rank = (*this)->getParentOfType<KernelOp>().getCluster()->size();
    if (dims->empty())
      return emitOpError() << "multicast names at least one cluster dimension";
    llvm::SmallVector<bool, 3> seen(rank, false);
    for (int64_t d : *dims) {
      if (d < 0 || d >= static_cast<int64_t>(rank))
        return emitOpError() << "multicast dimension " << d
                             << " is not a dimension of the kernel's "
                             << rank << "-d cluster";
      if (seen[d])
        return emitOpError() << "multicast dimension " << d << " is repeated";
      seen[d] = true;
    }
  }
  if (getReduce() &&
      (getSchedule() != CopySchedule::Tma ||
       src.getScope() != MemoryScope::Shared ||
       dst.getScope() != MemoryScope::Global))
    return emitOpError() << "a reducing copy is a tma store (shared to global "
                            "memory, 'schedule tma'), which the TMA unit "
                            "combines into the destination";
  if (getReduce() && (getAsync() || getAfter()))
    return emitOpError() << "a reducing copy is synchronous: no 'async' token "
                            "and no 'after' (its unit synchronizes before it "
                            "issues)";
  if (getAfter() && getSchedule() != CopySchedule::Tma)
    return emitOpError() << "only a tma copy is ordered after an axe.arrive";
  if (getAfter() && !getAfter().getDefiningOp<ArriveOp>())
    return emitOpError() << "'after' takes the token of an axe.arrive";
  MemoryScope s = src.getScope(), d = dst.getScope();
  auto scopeName = [](MemoryScope m) { return stringifyMemoryScope(m); };
  std::optional<ScopeKind> exec = executingScope(*this);
  switch (getSchedule()) {
  case CopySchedule::CpAsync:
    if (s != MemoryScope::Global || d != MemoryScope::Shared)
      return emitOpError() << "cp_async copies global to shared memory, not "
                           << scopeName(s) << " to " << scopeName(d);
    break;
  case CopySchedule::Tma: {
    bool g2s = s == MemoryScope::Global && d == MemoryScope::Shared;
    bool s2g = s == MemoryScope::Shared && d == MemoryScope::Global;
    if (!g2s && !s2g)
      return emitOpError() << "tma copies between global and shared memory, "
                              "not "
                           << scopeName(s) << " to " << scopeName(d);
    TargetAttr target = findTarget(*this);
    if (target && !targetHas(target, AxeTargetFeatureTma))
      return emitOpError() << "tma needs sm_90 or newer, target is '"
                           << target.getName() << "'";
    if (exec && *exec == ScopeKind::Thread)
      return emitOpError() << "a tma copy cannot execute at thread scope";
    break;
  }
  case CopySchedule::Ldmatrix:
    if (s != MemoryScope::Shared || d != MemoryScope::Register)
      return emitOpError() << "ldmatrix copies shared memory to registers, not "
                           << scopeName(s) << " to " << scopeName(d);
    if (exec && scopeRank(*exec) > scopeRank(ScopeKind::Warp))
      return emitOpError() << "ldmatrix needs at least a warp";
    break;
  default:
    break;
  }
  if (getAsync() && (s != MemoryScope::Global || d != MemoryScope::Shared) &&
      !(s == MemoryScope::Shared && d == MemoryScope::Global))
    return emitOpError() << "async copies move data between global and shared "
                            "memory";
  bool onChip = s == MemoryScope::Shared || d == MemoryScope::Shared ||
                s == MemoryScope::Register || d == MemoryScope::Register;
  if (onChip && failed(requireKernel(*this, "copies shared or register memory "
                                            "and must be inside an axe.kernel")))
    return failure();
  return verifyTensorUses(*this);
}

LogicalResult IotaOp::verify() {
  auto t = getDest().getType();
  if (t.getScope() != MemoryScope::Register)
    return emitOpError() << "writes a register tensor (got a "
                         << stringifyMemoryScope(t.getScope()) << " tensor)";
  int64_t rank = t.getShape().size();
  if (getDim() < 0 || getDim() >= rank)
    return emitOpError() << "dim " << getDim() << " is not a dimension of a rank-"
                         << rank << " tensor";
  if (!isa<IntegerType, FloatType>(t.getElementType()))
    return emitOpError() << "needs an integer or float element type, not "
                         << t.getElementType();
  return verifyTensorUses(*this);
}

LogicalResult FillOp::verify() {
  if (getValue().getType() != getDest().getType().getElementType())
    return emitOpError() << "fill value type " << getValue().getType()
                         << " differs from the tensor's element type "
                         << getDest().getType().getElementType();
  return verifyTensorUses(*this);
}

/// The checks `axe.gemm` and `axe.matmul` share: C[M, N] = op(A)[M, K] op(B)[K, N], A and B
/// of one element type (A is [K, M] with `transposeA`, B is [N, K] with `transposeB`).
static LogicalResult verifyContraction(Operation *op, axe::TensorType a,
                                       axe::TensorType b, axe::TensorType c,
                                       bool transposeA, bool transposeB,
                                       int64_t bColumnsPerC = 1) {
  int64_t m = transposeA ? a.getShape()[1] : a.getShape()[0];
  int64_t ka = transposeA ? a.getShape()[0] : a.getShape()[1];
  int64_t kb = transposeB ? b.getShape()[1] : b.getShape()[0];
  int64_t n = transposeB ? b.getShape()[0] : b.getShape()[1];
  if (ka != kb)
    return op->emitOpError() << "contraction sizes differ: A has K = " << ka
                             << ", B has K = " << kb;
  if (c.getShape()[0] != m || c.getShape()[1] * bColumnsPerC != n)
    return op->emitOpError() << "C must be " << m << "x" << n / bColumnsPerC << ", got "
                             << c.getShape()[0] << "x" << c.getShape()[1];
  if (a.getElementType() != b.getElementType())
    return op->emitOpError() << "A and B element types differ: "
                             << a.getElementType() << " vs "
                             << b.getElementType();
  return success();
}

LogicalResult GemmOp::verify() {
  axe::TensorType a = getA().getType(), b = getB().getType(),
                  c = getC().getType();
  if (a.getShape().size() != 2 || b.getShape().size() != 2 ||
      c.getShape().size() != 2)
    return emitOpError() << "operands must be 2-D";
  if (failed(verifyContraction(*this, a, b, c, getTransposeA(), getTransposeB())))
    return failure();
  if (c.getElementType().getIntOrFloatBitWidth() <
      a.getElementType().getIntOrFloatBitWidth())
    return emitOpError() << "the accumulator type " << c.getElementType()
                         << " is narrower than the inputs' "
                         << a.getElementType();
  if (getAsync() != (getToken() != nullptr))
    return emitOpError() << "an async gemm returns exactly one token, and only "
                            "an async gemm does";
  std::optional<ScopeKind> exec = executingScope(*this);
  if (exec && *exec == ScopeKind::Thread)
    return emitOpError() << "a gemm needs at least a warp to execute; it cannot "
                            "run at thread scope";
  return verifyTensorUses(*this);
}

LogicalResult AttentionOp::verify() {
  if (getOperation()->getParentOfType<KernelOp>())
    return emitOpError() << "is a whole attention that expands into its own kernel; "
                            "inside an axe.kernel use axe.gemm";
  axe::TensorType q = getQ().getType(), k = getK().getType(),
                  v = getV().getType(), o = getO().getType();
  for (auto [t, what] : {std::pair{q, "Q"}, {k, "K"}, {v, "V"}, {o, "O"}}) {
    if (t.getShape().size() != 2)
      return emitOpError() << what << " must be 2-D [tokens, heads * head_dim]";
    if (t.getScope() != MemoryScope::Global)
      return emitOpError() << what << " must be a global tensor, got "
                           << stringifyMemoryScope(t.getScope());
    if (t.getElementType() != q.getElementType())
      return emitOpError() << "Q, K, V and O must have one element type; " << what
                           << " has " << t.getElementType() << ", Q "
                           << q.getElementType();
  }
  if (!isa<Float16Type, BFloat16Type>(q.getElementType()))
    return emitOpError() << "Q, K, V and O must be f16 or bf16, got "
                         << q.getElementType();
  int64_t heads = getHeads(), kvHeads = getKvHeads().value_or(heads);
  int64_t tokens = q.getShape()[0], seq = getSeqLen();
  if (heads < 1 || kvHeads < 1 || heads % kvHeads != 0)
    return emitOpError() << "heads (" << heads << ") must be a positive multiple of kv_heads ("
                         << kvHeads << ")";
  if (q.getShape()[1] % heads != 0)
    return emitOpError() << "Q's " << q.getShape()[1] << " columns are not " << heads
                         << " heads of one head dimension";
  int64_t d = q.getShape()[1] / heads;
  if (q.getShape() != o.getShape())
    return emitOpError() << "O must have Q's shape";
  for (auto [t, what] : {std::pair{k, "K"}, {v, "V"}})
    if (t.getShape()[0] != tokens || t.getShape()[1] != kvHeads * d)
      return emitOpError() << what << " must be [" << tokens << ", " << kvHeads * d
                           << "] (tokens, kv_heads * head_dim)";
  if (Value cu = getCuSeqlens()) {
    auto t = cast<MemRefType>(cu.getType());
    if (t.getRank() != 1 || !t.hasStaticShape() || t.getShape()[0] < 2 ||
        !t.getElementType().isInteger(32))
      return emitOpError() << "cu_seqlens must be a static 1-D memref of i32 with one more "
                              "entry than there are sequences (at least 2), got "
                           << t;
    if (seq < 1 || seq > tokens)
      return emitOpError() << "seq_len " << seq << " (the longest sequence's length, with "
                           << "cu_seqlens) must be between 1 and the " << tokens << " tokens";
  } else if (seq < 1 || tokens % seq != 0) {
    return emitOpError() << "seq_len " << seq << " does not divide the " << tokens
                         << " tokens into whole sequences";
  }
  if (Value l = getLse()) {
    auto t = cast<axe::TensorType>(l.getType());
    if (t.getShape() != ArrayRef<int64_t>{tokens, heads} || !t.getElementType().isF32() ||
        t.getScope() != MemoryScope::Global)
      return emitOpError() << "lse must be an f32 global tensor [" << tokens << ", "
                           << heads << "], got " << t;
  }
  return verifyTensorUses(*this);
}

LogicalResult MatmulOp::verify() {
  axe::TensorType a = getA().getType(), b = getB().getType(),
                  c = getC().getType();
  if (getOperation()->getParentOfType<KernelOp>())
    return emitOpError() << "is a whole GEMM that expands into its own kernel; "
                            "inside an axe.kernel use axe.gemm";
  for (auto [t, what] : {std::pair{a, "A"}, {b, "B"}, {c, "C"}}) {
    if (t.getShape().size() != 2)
      return emitOpError() << what << " must be 2-D";
    if (t.getScope() != MemoryScope::Global)
      return emitOpError() << what << " must be a global tensor, got "
                           << stringifyMemoryScope(t.getScope());
  }
  // A gated product computes both halves of B's columns: the contraction is
  // checked against a C twice as wide (C's columns are the gate half's).
  std::optional<UnaryKind> gate = getGate();
  if (getBUp()) {
    if (!gate)
      return emitOpError() << "`up(...)` is the up half of a gated product: it needs `gate`";
    auto up = cast<axe::TensorType>(getBUp().getType());
    if (up.getShape() != b.getShape() || up.getElementType() != b.getElementType() ||
        up.getScope() != MemoryScope::Global)
      return emitOpError() << "the up weights must be a global tensor of B's shape and type "
                           << b << ", got " << up;
  }
  if (gate && !getBUp()) {
    int64_t nb = getTransposeB() ? b.getShape()[0] : b.getShape()[1];
    if (nb != 2 * c.getShape()[1])
      return emitOpError() << "a gated product (`gate " << stringifyUnaryKind(*gate)
                           << "`) needs B = [B_gate | B_up] with twice C's "
                           << c.getShape()[1] << " columns, got " << nb;
  }
  if (failed(verifyContraction(*this, a, b, c, /*transposeA=*/false,
                               getTransposeB(), gate && !getBUp() ? 2 : 1)))
    return failure();
  int64_t m = a.getShape()[0], n = c.getShape()[1];
  Type e = a.getElementType(), o = c.getElementType();
  bool fp8 = isa<Float8E4M3FNType, Float8E5M2Type>(e);
  if (!fp8 && !isa<Float16Type, BFloat16Type>(e))
    return emitOpError() << "A and B must be f16, bf16, f8E4M3FN or f8E5M2, got "
                         << e;
  if (!isa<Float16Type, BFloat16Type, Float32Type>(o))
    return emitOpError() << "C must be f16, bf16 or f32, got " << o;
  if (fp8 && !getTransposeB())
    return emitOpError() << "FP8 B must be given as [N, K] (`transpose_b`): "
                            "wgmma reads FP8 operands only K-major";
  if (fp8 != (getScaleA() != nullptr))
    return emitOpError() << (fp8 ? "FP8 operands need scales (`scales(%sa, "
                                   "%sb : ...)`, per tensor or per block)"
                                 : "scales are for FP8 operands only");
  if (fp8) {
    // Per-tensor (1x1 each) or DeepSeek-V3's blocks: A's 1x128 (one scale per
    // row and 128 of K), B's 128x128 (per 128 of N and 128 of K).
    int64_t k = a.getShape()[1], kb = (k + 127) / 128, nb = (n + 127) / 128;
    auto sa = cast<axe::TensorType>(getScaleA().getType());
    auto sb = cast<axe::TensorType>(getScaleB().getType());
    bool perTensor = sa.getShape() == ArrayRef<int64_t>{1, 1} &&
                     sb.getShape() == ArrayRef<int64_t>{1, 1};
    bool blocks = sa.getShape() == ArrayRef<int64_t>{m, kb} &&
                  sb.getShape() == ArrayRef<int64_t>{nb, kb};
    for (axe::TensorType t : {sa, sb})
      if (!t.getElementType().isF32() || t.getScope() != MemoryScope::Global)
        return emitOpError() << "a scale must be an f32 global tensor, got " << t;
    if (!perTensor && !blocks)
      return emitOpError()
             << "the scales must be per tensor (1x1 and 1x1) or per block (A's "
             << m << "x" << kb << ": a row by 128 of K; B's " << nb << "x" << kb
             << ": 128 of N by 128 of K), got " << sa << " and " << sb;
    if (blocks && !perTensor && (gate || getGathered()))
      return emitOpError() << "block scales are not built with "
                           << (gate ? "a gated product" : "a gathered A");
  }
  if (getGathered()) {
    auto mesh = (*this)->getParentOfType<MeshOp>();
    if (!mesh)
      return emitOpError() << "a gathered A (`gather(...)`) is distributed over a "
                              "mesh: the op must be inside an axe.mesh";
    int64_t r = mesh.getNumDevices(), k = a.getShape()[1];
    if (m % r != 0)
      return emitOpError() << "A's " << m << " rows do not split evenly over the "
                           << r << " devices of the mesh";
    auto g = cast<axe::TensorType>(getGathered().getType());
    auto f = cast<axe::TensorType>(getGatherFlags().getType());
    if (g.getShape() != ArrayRef<int64_t>{r, m, k} ||
        g.getElementType() != e || g.getScope() != MemoryScope::Global)
      return emitOpError() << "the gather buffer must be a global " << r << "x"
                           << m << "x" << k << " tensor of A's element type " << e
                           << " (every device's copy of A), got " << g;
    // Per device: a row of flags per source (one per 64 x 512 piece of its
    // rows of A) and a row of start flags (one per source), rows of P slots:
    // the pieces, rounded up to a multiple of them that holds R.
    int64_t pieces = (m / r + 63) / 64 * ((k + 511) / 512);
    int64_t slots = pieces * ((r + pieces - 1) / pieces);
    if (f.getShape() != ArrayRef<int64_t>{r, r + 1, slots} ||
        !f.getElementType().isInteger(32) || f.getScope() != MemoryScope::Global)
      return emitOpError() << "the gather flags must be an " << r << "x" << r + 1
                           << "x" << slots
                           << "xi32 global tensor (per device: a row per source, "
                              "one flag per 64 x 512 piece of its rows of A, and "
                              "a row of start flags), got "
                           << f;
    if (getPartials())
      return emitOpError() << "a gathered A takes no split-K workspace";
  }
  if (gate && getPartials())
    return emitOpError() << "a gated product takes no split-K workspace";
  // The epilogue's operands: a bias row and a residual, any 16- or 32-bit
  // float (added in f32).
  auto epilogueOperand = [&](Value v, ArrayRef<int64_t> shape,
                             StringRef what) -> LogicalResult {
    if (!v)
      return success();
    auto t = cast<axe::TensorType>(v.getType());
    Type et = t.getElementType();
    if (t.getShape() != shape || t.getScope() != MemoryScope::Global ||
        !isa<Float16Type, BFloat16Type, Float32Type>(et))
      return emitOpError() << "the " << what << " must be a " << shape[0] << "x"
                           << shape[1] << " global tensor of f16, bf16 or f32, got "
                           << t;
    return success();
  };
  if (failed(epilogueOperand(getBias(), {1, n}, "bias")) ||
      failed(epilogueOperand(getResidual(), {m, n}, "residual")))
    return failure();
  if (gate && (getBias() || getActivation()))
    return emitOpError() << "a gated product takes no bias or activation (its "
                            "gate `"
                         << stringifyUnaryKind(*gate)
                         << "` is the activation); a residual it may take";
  if ((getPartials() != nullptr) != (getFlags() != nullptr))
    return emitOpError() << "a workspace is partials and flags, both or neither";
  if (getPartials()) {
    auto p = cast<axe::TensorType>(getPartials().getType());
    auto f = cast<axe::TensorType>(getFlags().getType());
    auto ceil64 = [](int64_t x) { return (x + 63) / 64; };
    if (p.getShape() != ArrayRef<int64_t>{m, n} || !p.getElementType().isF32() ||
        p.getScope() != MemoryScope::Global)
      return emitOpError() << "the workspace's partials must be a " << m << "x"
                           << n << " f32 global tensor, got " << p;
    if (f.getShape() != ArrayRef<int64_t>{ceil64(m), ceil64(n)} ||
        !f.getElementType().isInteger(32) || f.getScope() != MemoryScope::Global)
      return emitOpError() << "the workspace's flags must be a " << ceil64(m)
                           << "x" << ceil64(n)
                           << " i32 global tensor (one per 64x64 block of C), got "
                           << f;
  }
  return verifyTensorUses(*this);
}

/// Elementwise ops: every operand has the destination's rank and each
/// dimension equals the destination's or is 1 (broadcast).
static LogicalResult broadcastsTo(Operation *op, axe::TensorType operand,
                                  axe::TensorType dest, StringRef what) {
  ArrayRef<int64_t> s = operand.getShape(), d = dest.getShape();
  if (s.size() != d.size())
    return op->emitOpError() << what << " has rank " << s.size()
                             << " but the destination has rank " << d.size();
  for (size_t i = 0; i < s.size(); ++i)
    if (s[i] != d[i] && s[i] != 1)
      return op->emitOpError()
             << what << " dimension " << i << " of size " << s[i]
             << " does not broadcast to " << d[i];
  return success();
}

LogicalResult UnaryOp::verify() {
  if (failed(sameShape(*this, getSource().getType(), getDest().getType(),
                       "source and destination")))
    return failure();
  if (getSource().getType().getElementType() !=
      getDest().getType().getElementType())
    return emitOpError() << "element types differ; use axe.cast";
  return verifyTensorUses(*this);
}

LogicalResult BinaryOp::verify() {
  axe::TensorType d = getDest().getType();
  if (failed(broadcastsTo(*this, getLhs().getType(), d, "lhs")) ||
      failed(broadcastsTo(*this, getRhs().getType(), d, "rhs")))
    return failure();
  if (getLhs().getType().getElementType() != d.getElementType() ||
      getRhs().getType().getElementType() != d.getElementType())
    return emitOpError() << "operand element types must equal the "
                            "destination's; use axe.cast";
  if (getFastmath() && !isa<FloatType>(d.getElementType()))
    return emitOpError() << "fastmath flags apply to float elements, not "
                         << d.getElementType();
  return verifyTensorUses(*this);
}

LogicalResult CastOp::verify() {
  if (failed(sameShape(*this, getSource().getType(), getDest().getType(),
                       "source and destination")))
    return failure();
  return verifyTensorUses(*this);
}

LogicalResult ReduceOp::verify() {
  ArrayRef<int64_t> s = getSource().getType().getShape();
  ArrayRef<int64_t> d = getDest().getType().getShape();
  ArrayRef<int64_t> dims = getDims();
  if (dims.empty())
    return emitOpError() << "needs at least one dimension to reduce";
  llvm::SmallDenseSet<int64_t> reduced;
  for (int64_t k : dims) {
    if (k < 0 || k >= static_cast<int64_t>(s.size()))
      return emitOpError() << "dimension " << k << " is out of range for rank "
                           << s.size();
    if (!reduced.insert(k).second)
      return emitOpError() << "dimension " << k << " is listed twice";
  }
  SmallVector<int64_t> kept, keptDims;
  for (size_t i = 0; i < s.size(); ++i) {
    keptDims.push_back(reduced.contains(i) ? 1 : s[i]);
    if (!reduced.contains(i))
      kept.push_back(s[i]);
  }
  if (d != ArrayRef<int64_t>(kept) && d != ArrayRef<int64_t>(keptDims))
    return emitOpError() << "destination shape must be the source's with the "
                            "reduced dimensions removed or kept as 1";
  if (getSource().getType().getElementType() !=
      getDest().getType().getElementType())
    return emitOpError() << "element types differ; use axe.cast";
  return verifyTensorUses(*this);
}

LogicalResult ConvertLayoutOp::verify() {
  axe::TensorType s = getSource().getType(), d = getDest().getType();
  if (failed(sameShape(*this, s, d, "source and destination")))
    return failure();
  if (s.getElementType() != d.getElementType() || s.getScope() != d.getScope())
    return emitOpError() << "only the layout may change (element type and "
                            "memory scope must match)";
  return verifyTensorUses(*this);
}
