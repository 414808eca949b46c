//===- Axe-c/Dialects.h - C API of the Axe dialect -------------------------===//
//
// The C API for C/C++ hosts and for the Rust side (melior's DialectHandle).
// Also the hook table through which the C++ dialect calls into Rust: Rust
// installs it once (axeInstallRustHooks) before any Axe IR is parsed, so the
// static C++ library never needs link-time references back into Rust.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_C_DIALECTS_H
#define AXE_C_DIALECTS_H

#include "mlir-c/IR.h"
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

MLIR_DECLARE_CAPI_DIALECT_REGISTRATION(Axe, axe);

/// Receives a string (not NUL-terminated) produced by the callee.
typedef void (*AxeStringSink)(const char *data, size_t length, void *userData);

/// Hardware features the dialect's verifiers ask a target about.
enum AxeTargetFeature {
  /// Bulk tensor copies (TMA).
  AxeTargetFeatureTma = 0,
  /// mbarriers (phased shared-memory barriers with transaction counts).
  AxeTargetFeatureMBarrier = 1,
};

/// Functions implemented in Rust and called by the C++ dialect and passes.
typedef struct AxeRustHooks {
  /// Parses layout text (the grammar of layout/src/parse.rs, without the
  /// `#axe.layout<>` wrapper).
  /// On success sends the canonical printing to `sink` and returns true; on
  /// failure sets `*errorOffset` (byte offset into `text`), sends the message
  /// to `sink` and returns false.
  bool (*parseLayout)(const char *text, size_t length, size_t *errorOffset,
                      AxeStringSink sink, void *userData);
  /// The number of logical elements (product of shard extents) of a valid
  /// canonical layout text, or -1 on error.
  int64_t (*layoutSize)(const char *text, size_t length);
  /// Checks a layout against a target (`sm_80`, `sm_90`, `trn1`, ...): every
  /// axis it uses must exist on the target and stay within its bound.
  /// `numWarps` (warps per CTA) and `numDevices` (mesh size) tighten the
  /// bounds of `warp` and `gpuid` when >= 0. Returns true when the layout
  /// fits; otherwise sends the reason to `sink` and returns false.
  bool (*checkLayoutOnTarget)(const char *target, size_t targetLength,
                              const char *layout, size_t layoutLength,
                              int64_t numWarps, int64_t numDevices,
                              AxeStringSink sink, void *userData);
  /// Checks that a register tensor with this layout can be used by an op
  /// executing at scope `scopeKind` (the values of mlir::axe::ScopeKind): a
  /// thread sees only its own registers, a warp its lanes' registers, ...
  /// Returns false and sends the reason to `sink` when it cannot.
  bool (*checkRegisterLayoutInScope)(const char *layout, size_t layoutLength,
                                     int32_t scopeKind, AxeStringSink sink,
                                     void *userData);
  /// Checks what an allocation of memory scope `scope` (the values of
  /// mlir::axe::MemoryScope) with this layout, element width `elementBits` and
  /// swizzle block of 2^`swizzleLog2` elements (< 0: no swizzle) occupies
  /// against the target's capacity (shared memory per CTA). Returns false and
  /// sends the reason to `sink` when it does not fit.
  bool (*checkAllocation)(const char *target, size_t targetLength,
                          const char *layout, size_t layoutLength,
                          int32_t scope, int64_t elementBits,
                          int32_t swizzleLog2, AxeStringSink sink,
                          void *userData);
  /// Checks a kernel's launch shape (`grid`, `threads`: 1 to 3 positive
  /// sizes each; `cluster`: none, or 1 to 3 positive sizes) against the
  /// target's launch limits. Returns false and sends the reason to `sink`
  /// when it exceeds them.
  bool (*checkLaunch)(const char *target, size_t targetLength,
                      const int64_t *grid, size_t gridRank,
                      const int64_t *threads, size_t threadsRank,
                      const int64_t *cluster, size_t clusterRank,
                      AxeStringSink sink, void *userData);
  /// Whether `target` names a known target; when not, sends the list of
  /// known targets to `sink`.
  bool (*isKnownTarget)(const char *target, size_t length, AxeStringSink sink,
                        void *userData);
  /// Whether `target` names a GPU target (one the GPU lowering compiles for:
  /// warps, shared memory, PTX); false for other or unknown targets.
  bool (*isGpuTarget)(const char *target, size_t length);
  /// Whether `target` has `feature` (an AxeTargetFeature); false for unknown
  /// targets.
  bool (*targetHasFeature)(const char *target, size_t length, int32_t feature);
  /// Whether `target` has memory of scope `scope` (an mlir::axe::MemoryScope
  /// value); false for unknown targets.
  bool (*targetHasMemory)(const char *target, size_t length, int32_t scope);
  /// Runs the Rust body of the pass whose flag is `passArgument` on `op`;
  /// `options` is the pass's option string ("k=v k2=v2"). Returns false when
  /// the pass failed (diagnostics have been emitted on the operation).
  bool (*runPass)(const char *passArgument, size_t passArgumentLength,
                  MlirOperation op, const char *options, size_t optionsLength);
  /// Runs the Rust translation `name` (e.g. "axe-to-nki") on `op`, sending the
  /// output text to `sink`. Returns false when it failed (diagnostics emitted).
  bool (*translate)(const char *name, size_t nameLength, MlirOperation op,
                    AxeStringSink sink, void *userData);
} AxeRustHooks;

/// Installs the Rust hooks. Must be called before parsing Axe IR.
MLIR_CAPI_EXPORTED void axeInstallRustHooks(const AxeRustHooks *hooks);

/// Registers the Axe passes in MLIR's global pass registry.
MLIR_CAPI_EXPORTED void axeRegisterPasses(void);

/// Runs `axe-opt` (upstream MlirOptMain with every upstream dialect, extension
/// and pass, plus Axe's). Returns the process exit code.
MLIR_CAPI_EXPORTED int axeOptMain(int argc, char **argv);

/// Runs `axe-translate` (upstream mlirTranslateMain with Axe's translations
/// and upstream's). Returns the process exit code.
MLIR_CAPI_EXPORTED int axeTranslateMain(int argc, char **argv);

/// Registers every upstream dialect and extension plus Axe in `registry`
/// (a `mlir::DialectRegistry *`); used by the mlir-opt dialect plugin.
MLIR_CAPI_EXPORTED void axeRegisterDialectPlugin(void *registry);

//===----------------------------------------------------------------------===//
// #axe.layout
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool axeAttributeIsALayout(MlirAttribute attr);
/// Builds `#axe.layout<text>`; returns a null attribute when `text` is not a
/// valid layout.
MLIR_CAPI_EXPORTED MlirAttribute axeLayoutAttrGet(MlirContext ctx,
                                                  MlirStringRef text);
/// The canonical text of the layout (owned by the context).
MLIR_CAPI_EXPORTED MlirStringRef axeLayoutAttrGetText(MlirAttribute attr);

//===----------------------------------------------------------------------===//
// #axe.target
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool axeAttributeIsATarget(MlirAttribute attr);
/// The target's name (`sm_90a`, `trn1`, ...), owned by the context.
MLIR_CAPI_EXPORTED MlirStringRef axeTargetAttrGetName(MlirAttribute attr);
/// `#axe.target<"name">`, unchecked: the caller names a known target.
MLIR_CAPI_EXPORTED MlirAttribute axeTargetAttrGet(MlirContext ctx,
                                                  MlirStringRef name);

//===----------------------------------------------------------------------===//
// !axe.tensor
//===----------------------------------------------------------------------===//

MLIR_CAPI_EXPORTED bool axeTypeIsATensor(MlirType type);
/// Whether `type` is an `!axe.token` (what asynchronous copies and gemms return).
MLIR_CAPI_EXPORTED bool axeTypeIsAToken(MlirType type);
/// Whether `type` is an `!axe.mbarrier` (what `axe.mbarrier` creates).
MLIR_CAPI_EXPORTED bool axeTypeIsAMBarrier(MlirType type);
/// The tensor's layout attribute, or a null attribute when it is `?`.
MLIR_CAPI_EXPORTED MlirAttribute axeTensorTypeGetLayout(MlirType type);
/// The tensor's memory scope (the values of mlir::axe::MemoryScope: global 0,
/// shared 1, register 2, tmem 3, sbuf 4, psum 5).
MLIR_CAPI_EXPORTED int32_t axeTensorTypeGetScope(MlirType type);
/// The tensor's swizzle: false when it has none, else its B, M, S.
MLIR_CAPI_EXPORTED bool axeTensorTypeGetSwizzle(MlirType type, int32_t *bits,
                                                int32_t *base, int32_t *shift);
/// The tensor type with its swizzle replaced (`bits` <= 0: none).
MLIR_CAPI_EXPORTED MlirType axeTensorTypeWithSwizzle(MlirType type, int32_t bits,
                                                     int32_t base, int32_t shift);
/// The tensor type with its layout replaced (null `layout` means `?`).
MLIR_CAPI_EXPORTED MlirType axeTensorTypeWithLayout(MlirType type,
                                                    MlirAttribute layout);

/// A new `!axe.tensor` of `shape`, `elementType`, memory `scope` (as for
/// axeTensorTypeGetScope) and `layout` (null: `?`), without swizzle.
MLIR_CAPI_EXPORTED MlirType axeTensorTypeGet(MlirContext ctx, intptr_t rank,
                                             const int64_t *shape,
                                             MlirType elementType, int32_t scope,
                                             MlirAttribute layout);

/// `!axe.token` and `!axe.mbarrier`.
MLIR_CAPI_EXPORTED MlirType axeTokenTypeGet(MlirContext ctx);
MLIR_CAPI_EXPORTED MlirType axeMBarrierTypeGet(MlirContext ctx);

/// Whether `attr` is an `#axe.matmul_schedule`.
MLIR_CAPI_EXPORTED bool axeAttributeIsAMatmulSchedule(MlirAttribute attr);
/// The schedule's fields into `fields[11]`: tile_m, tile_n, tile_k, stages,
/// cluster, group, grid (0 where absent), persistent (-1 absent, 0 false,
/// 1 true), split_k and pushers (0 where absent), pingpong (-1 absent, 0
/// false, 1 true).
MLIR_CAPI_EXPORTED void axeMatmulScheduleAttrGetFields(MlirAttribute attr,
                                                       int64_t *fields);
/// The `#axe.matmul_schedule` of `fields[11]`, encoded as above (pingpong
/// false is left out, as absent).
MLIR_CAPI_EXPORTED MlirAttribute axeMatmulScheduleAttrGet(MlirContext ctx,
                                                          const int64_t *fields);

/// Replaces every `#axe.layout` in `op` and below (attributes, nested in types,
/// block arguments and results) by `replace(attr, userData)`; a null return
/// leaves the attribute as it is.
MLIR_CAPI_EXPORTED void axeReplaceLayoutsIn(
    MlirOperation op, MlirAttribute (*replace)(MlirAttribute, void *),
    void *userData);

/// Emits a warning / a remark at `loc` (the C API has only mlirEmitError).
MLIR_CAPI_EXPORTED void axeEmitWarning(MlirLocation loc, const char *message);
MLIR_CAPI_EXPORTED void axeEmitRemark(MlirLocation loc, const char *message);

#ifdef __cplusplus
}
#endif

#endif // AXE_C_DIALECTS_H
