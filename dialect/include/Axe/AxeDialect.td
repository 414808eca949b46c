//===- AxeDialect.td - the Axe dialect ---------------------*- tablegen -*-===//
//
// The dialect of the Axe layout abstraction: named-axis layouts, scoped
// tensors and tensor operators. The layout grammar lives once, in Rust (crate
// `axe-layout`); the C++ here only hands the attribute text to it.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_DIALECT_TD
#define AXE_DIALECT_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Axe_Dialect : Dialect {
  let name = "axe";
  let cppNamespace = "::mlir::axe";
  let summary = "Axe: one layout language over named hardware axes";
  let description = [{
    The Axe dialect carries the Axe layout abstraction into MLIR. A layout
    `#axe.layout<D + [R] + O>` maps a logical tensor index to a set of
    coordinates on named hardware axes (memory `m`, `reg`, `lane`, `warp`,
    `cta`, `gpuid`, accelerator partitions `P`/`F`, ...):

    ```mlir
    #axe.layout<(8, 2, 4, 2) : (4@lane, 1@warp, 1@lane, 1@reg) + [(2) : (4@warp)] + 5@warp>
    ```

    The shard `D` is an ordered list of iters `extent : stride@axis`,
    unflattened lexicographically (first iter slowest); the replica `R` is a
    multiset of iters whose every combination is added; the offset `O` is one
    integer per axis. A stride written without `@axis` is on the memory axis.

    A function argument may declare the byte alignment of the buffer it is
    given, `{axe.align = 16 : i64}` (a power of two): the lowering proves the
    alignment of vector and bulk accesses from it, and without it assumes only
    the element's natural alignment.
  }];
  // The attributes the dialect defines on operations and function arguments it
  // does not own (`axe.<name>`): the one place their names are spelled. ODS
  // generates a helper per name (`AxeDialect::getTargetAttrHelper()`, with
  // `getNameStr()`), and build.rs the Rust constants
  // (`axe::dialect::ods::discardable_attrs::TARGET`).
  let discardableAttrs = (ins
    // On a module (or any op around a kernel): the hardware it targets.
    "::mlir::axe::TargetAttr":$target,
    // On a function argument: the byte alignment promised for its buffer.
    "::mlir::IntegerAttr":$align,
    // On a function argument that convert-axe-to-gpu adds for a device mesh:
    // the rank of the device running the kernel (a unit attribute).
    "::mlir::UnitAttr":$mesh_rank,
    // On such an argument: the table of a symmetric buffer's device addresses
    // on every rank; the value is the position of the buffer's argument.
    "::mlir::IntegerAttr":$peers_of,
    // On a function argument that convert-linalg-to-axe adds: a zeroed scratch
    // buffer (split-K's partial sums and flags) the launcher allocates once
    // and passes to every launch, which leaves it zero (a unit attribute).
    "::mlir::UnitAttr":$workspace,
    // On a lowered host function: per argument, the buffer a launcher passes.
    "::mlir::ArrayAttr":$arguments,
    // On a lowered host function: the TMA tensor maps its launcher builds.
    "::mlir::ArrayAttr":$tensor_maps,
    // On a lowered host function: the positions, among its gpu.launch ops in
    // order, of the launches that must be cooperative (`axe.kernel ...
    // cooperative`: every CTA resident at once), read back into the launch
    // manifest (outlining drops attributes of the gpu.launch itself).
    "::mlir::DenseI64ArrayAttr":$cooperative_launches
  );
  let hasRegionArgAttrVerify = 1;
  let useDefaultAttributePrinterParser = 0;
  let useDefaultTypePrinterParser = 0;
  let extraClassDeclaration = [{
    ::mlir::Attribute parseAttribute(::mlir::DialectAsmParser &parser,
                                     ::mlir::Type type) const override;
    void printAttribute(::mlir::Attribute attr,
                        ::mlir::DialectAsmPrinter &printer) const override;
    ::mlir::Type parseType(::mlir::DialectAsmParser &parser) const override;
    void printType(::mlir::Type type,
                   ::mlir::DialectAsmPrinter &printer) const override;
  private:
    void registerAttributes();
    void registerTypes();
  public:
  }];
}

class Axe_Op<string mnemonic, list<Trait> traits = []>
    : Op<Axe_Dialect, mnemonic, traits>;

#endif // AXE_DIALECT_TD
