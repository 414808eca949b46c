//===- AxeOps.td - Axe operations --------------------------*- tablegen -*-===//
//
// Scoped tensor operators (Axe paper §3.1–3.2). Tensors are handles to storage
// in a memory scope; operators read their source tensors and write their
// destination tensors in place (destination-passing style), and declare those
// effects so upstream CSE/DCE/canonicalize treat them correctly.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_OPS_TD
#define AXE_OPS_TD

include "Axe/AxeDialect.td"
include "Axe/AxeAttrs.td"
include "Axe/AxeTypes.td"
include "mlir/Interfaces/SideEffectInterfaces.td"
include "mlir/IR/CommonAttrConstraints.td"

// arith's `#arith.fastmath<...>` flags as an attribute of Axe ops. Declared here rather than
// by including ArithBase.td, whose enums would then be generated (and documented) as Axe's.
def Axe_ArithFastMathAttr : Attr<CPred<"::llvm::isa<::mlir::arith::FastMathFlagsAttr>($_self)">,
                                 "arith fastmath flags (`#arith.fastmath<...>`)"> {
  let storageType = "::mlir::arith::FastMathFlagsAttr";
  let returnType = "::mlir::arith::FastMathFlags";
  let convertFromStorage = "$_self.getValue()";
}

def Axe_AnyTensor : Type<CPred<"::llvm::isa<::mlir::axe::TensorType>($_self)">,
                         "Axe tensor", "::mlir::axe::TensorType">;

//===----------------------------------------------------------------------===//
// Execution scopes
//===----------------------------------------------------------------------===//

def Axe_KernelOp : Axe_Op<"kernel", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "a GPU kernel: the outermost execution scope";
  let description = [{
    Everything inside runs on a grid of CTAs (`grid`), each of `threads`
    threads, optionally grouped into clusters (`cluster`, sm_90+: at most 8
    CTAs, and the grid a whole number of clusters along each dimension). The
    CTAs of a cluster run at the same time and reach each other's shared
    memory: TMA multicast (`axe.copy ... multicast`), arrivals on a peer's
    barrier (`axe.mbarrier_arrive ... cta %r`) and `axe.barrier cluster`.
    Shared memory and registers exist only inside a kernel. Lowered by
    `convert-axe-to-gpu` into a `gpu.launch` (with `clusters` when
    clustered); a clustered kernel with barriers synchronizes its cluster
    once its barriers are set up and again before it exits, so that no peer
    multicasts into or arrives on a CTA that has not started or has ended.

    `cooperative` declares that the kernel's CTAs wait on each other (a
    persistent kernel passing flags between CTAs with `axe.signal` /
    `axe.signal_wait`): every CTA of the grid must be resident at once. The
    launch manifest says so (`"cooperative": true`), and the runtime then
    launches it cooperatively, which the driver refuses with an error where
    the grid does not fit on the device, instead of the launch hanging.

    ```mlir
    axe.kernel grid [128, 1] threads [256] {
      axe.scope warp [0 : 4] {
        ...
      }
    }
    axe.kernel grid [132] threads [384] cluster [2] { ... }
    axe.kernel grid [132] threads [384] cooperative { ... }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$grid, DenseI64ArrayAttr:$threads,
                       OptionalAttr<DenseI64ArrayAttr>:$cluster,
                       UnitAttr:$cooperative);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    `grid` $grid `threads` $threads (`cluster` $cluster^)? (`cooperative` $cooperative^)?
    attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Threads per CTA (the product of `threads`).
    int64_t getNumThreads();
  }];
}

def Axe_ScopeOp : Axe_Op<"scope", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "an execution scope inside a kernel, optionally a slice of it";
  let description = [{
    Ops in the body execute collectively at the granularity of `kind`
    (cluster, cta, warpgroup, warp, thread). An optional slice `[lo : hi]`
    selects which units run the body — warp specialization:

    ```mlir
    axe.scope warp [0 : 4] { ... }   // producer warps
    axe.scope warp [4 : 8] { ... }   // consumer warps
    axe.scope thread { ... }         // every thread, independently
    ```

    Scopes nest from coarse to fine (a warp scope may not contain a cta scope).
  }];
  let arguments = (ins Axe_ScopeKind:$kind,
                       OptionalAttr<I64Attr>:$lo, OptionalAttr<I64Attr>:$hi);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $kind custom<ScopeSlice>($lo, $hi) attr-dict-with-keyword $body
  }];
  let hasVerifier = 1;
}

def Axe_MeshOp : Axe_Op<"mesh", [
    SingleBlock, NoTerminator, RecursiveMemoryEffects]> {
  let summary = "a device mesh: the scope of distributed tensors";
  let description = [{
    Declares a mesh of devices of the given shape; tensors whose layouts use
    the `gpuid` axis are distributed over it, and collective operators in the
    body run on every device.

    ```mlir
    axe.mesh [8] {
      %w = axe.alloc : !axe.tensor<8x1024xf16, global, #axe.layout<(8, 1024) : (1@gpuid, 1)>>
    }
    ```
  }];
  let arguments = (ins DenseI64ArrayAttr:$shape);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$shape attr-dict-with-keyword $body";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The number of devices (the product of `shape`).
    int64_t getNumDevices();
  }];
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

def Axe_AllocOp : Axe_Op<"alloc"> {
  let summary = "allocate a tensor in its memory scope";
  let description = [{
    Allocates storage for a tensor in the memory scope of its type (shared
    memory, registers, tensor memory, SBUF, PSUM, ...), laid out by the
    type's layout. Shared, register and tensor-memory tensors must be
    allocated inside an `axe.kernel`; a register tensor belongs to the
    innermost scope around its allocation and may only be used inside it.

    ```mlir
    %s = axe.alloc : !axe.tensor<16x24xf16, shared, #axe.layout<(16, 24) : (24, 1)>>
    ```
  }];
  let results = (outs Res<Axe_AnyTensor, "", [MemAlloc]>:$result);
  let assemblyFormat = "attr-dict `:` qualified(type($result))";
  let hasVerifier = 1;
}

def Axe_ViewOp : Axe_Op<"view", [Pure]> {
  let summary = "view a memref as an Axe tensor with a layout";
  let description = [{
    Gives a memref (typically a kernel's global buffer) an Axe tensor type:
    logical shape, element type, memory scope and layout. The element types
    must match; the layout addresses the memref's elements on the memory axis.

    ```mlir
    %t = axe.view %buf : memref<384xf16> to !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (24, 1)>>
    ```
  }];
  let arguments = (ins AnyMemRef:$source);
  let results = (outs Axe_AnyTensor:$result);
  let assemblyFormat = "$source attr-dict `:` type($source) `to` qualified(type($result))";
  let hasVerifier = 1;
}

def Axe_SliceOp : Axe_Op<"slice", [Pure, AttrSizedOperandSegments]> {
  let summary = "a rectangular region of a tensor";
  let description = [{
    `t[lo0:hi0, lo1:hi1, ...]`: the region of `source` with half-open bounds
    per dimension, as a tensor of shape `hi - lo` in the same memory scope.
    Its layout is `?` (axe-slice computes `L[R:S]`, Algorithm 4) or given.

    A register slice lies where its layout says, and an axis its layout no
    longer names is coordinate 0 (Def. 2.3): row 0 of a tensor distributed
    over lanes, `(2) : (1@reg)`, is held by lane 0 alone (row 1 is
    `(2) : (1@reg) + 1@lane`), so only that lane runs the ops that read or
    write it. (A register tensor that never named an axis is every thread's
    own instead.) Ops that would have other threads use such a slice with
    their own registers are refused: copying it into a tensor every lane
    holds, or a tensor-core instruction on it.

    A bound may also be a run-time tile origin, `%o : +size`: the region
    `[%o, %o + size)`, where `%o` must be a multiple of `size` (a tile of the
    dimension). Such a slice covers whole tiles, so its layout is the same for
    every origin (`axe_layout::Layout::tiled_region`); only its offset moves.
    A slice with a run-time origin is static and full (`0 : size`) in its
    other dimensions. Run-time origins move through memory (or devices): a
    tile along registers, lanes, warps or CTAs has a static origin, since a
    thread's registers are addressed by constants.

    With `{clip}`, a slice of a global tensor may have run-time-origin tiles
    whose size does not divide the dimension: the last tile of a dimension
    then reaches past the tensor, and the elements past it do not exist —
    copies read them as zero (TMA's out-of-bounds fill) and do not write
    them (predicated stores). This is how M, N and K that are not tile
    multiples are computed without padding the tensors. The tiles' layout is
    that of the tensor extended to whole tiles, which needs the dimension's
    outermost iter to be extensible (`axe_layout::Layout::padded`).

    A run-time-origin dimension may also end at run time, `%o : +size until
    %end`: a window of `size` elements at any origin (not only a tile
    multiple) of which only those before `%end` exist — the rows of one
    expert in a grouped GEMM, whose row count is data. Elements at or past
    `min(%end, dimension)` do not exist: copies read them as zero
    (predicated loads, `cp.async` zero fill) and do not write them
    (predicated stores). A window at any origin has the same layout only
    where the dimension is one arithmetic progression of memory (one stride,
    e.g. the rows of a row-major matrix), which axe-slice checks; the
    slice's source must be a global tensor. `%end` at or below `%o` makes the
    window empty. TMA copies a window only where `%end` is a constant at or
    past the dimension's extent: the window then ends where its tensor does,
    which is where TMA's zero fill and clipped stores stop (a tile of rows
    at any origin, e.g. one sequence's of a packed batch, whose rows past the
    sequence the kernel masks). The list of bounded dimensions is the `bounded` attribute.
    A `{clip}` tile or window of a dimension laid out backwards (a negative
    outermost stride) is refused: extending it to whole tiles would address
    memory before the buffer.

    ```mlir
    %s = axe.slice %t [16 : 32, 64 : 128] : !axe.tensor<64x256xf16, shared, #axe.layout<(64, 256) : (256, 1)>> to !axe.tensor<16x64xf16, shared, ?>
    %k = axe.slice %a [0 : 128, %k0 : +32] : !axe.tensor<128x4096xf16, global, #axe.layout<(128, 4096) : (4096, 1)>> to !axe.tensor<128x32xf16, global, ?>
    %r = axe.slice %c [%m0 : +128, %n0 : +128] {clip} : !axe.tensor<1000x1000xf32, global, #axe.layout<(1000, 1000) : (1000, 1)>> to !axe.tensor<128x128xf32, global, ?>
    %e = axe.slice %x [%row : +64 until %end, 0 : 2048] : !axe.tensor<32768x2048xf16, global, #axe.layout<(32768, 2048) : (2048, 1)>> to !axe.tensor<64x2048xf16, global, ?>
    ```
  }];
  let arguments = (ins Axe_AnyTensor:$source, Variadic<Index>:$origins,
                       Variadic<Index>:$ends,
                       DenseI64ArrayAttr:$lower, DenseI64ArrayAttr:$upper,
                       OptionalAttr<DenseI64ArrayAttr>:$bounded,
                       UnitAttr:$clip);
  let results = (outs Axe_AnyTensor:$result);
  let assemblyFormat = [{
    $source custom<Region>($origins, $ends, $lower, $upper, $bounded) attr-dict `:` qualified(type($source))
    `to` qualified(type($result))
  }];
  let extraClassDeclaration = [{
    /// The marker in `lower` of a dimension whose origin is a run-time operand
    /// (its `upper` entry is then the region's size).
    static constexpr int64_t kDynamic = ::mlir::ShapedType::kDynamic;
    /// Whether any origin is a run-time value.
    bool hasDynamicOrigin() { return !getOrigins().empty(); }
    /// Whether any dimension ends at a run-time value (`until %end`).
    bool hasRunTimeEnd() { return !getEnds().empty(); }
  }];
  let hasVerifier = 1;
}

def Axe_UnitIdOp : Axe_Op<"unit_id", [Pure]> {
  let summary = "the index of the executing unit";
  let description = [{
    The index of the unit of `kind` that executes this op: `cta` — the CTA
    in the grid (x fastest); `warpgroup`, `warp`, `thread` — within the CTA;
    `cluster` — the cluster in the grid (x fastest; a kernel without
    `cluster` has clusters of one CTA). `cta in_cluster` is the CTA's rank in
    its cluster (x fastest, 0 to the cluster's size - 1): which peer it is,
    e.g. which part of a multicast tile it loads or which of the cluster's
    tiles it computes. Used to compute run-time tile origins
    (`axe.slice %t [%o : +128, ...]`).

    ```mlir
    %c = axe.unit_id cta
    %r = axe.unit_id cta in_cluster
    ```
  }];
  let arguments = (ins Axe_ScopeKind:$kind, UnitAttr:$in_cluster);
  let results = (outs Index:$result);
  let assemblyFormat = "$kind (`in_cluster` $in_cluster^)? attr-dict";
  let hasVerifier = 1;
}

def Axe_DeviceIdOp : Axe_Op<"device_id", [Pure]> {
  let summary = "the rank of the executing device in the enclosing mesh";
  let description = [{
    The index of the device (its `gpuid` coordinate) that executes this op,
    in the enclosing `axe.mesh`: every device runs the same program (SPMD),
    and this is what tells them apart, e.g. to walk the tiles of the rows a
    device owns last, or to slice a distributed tensor at its own or a
    peer's shard (`axe.slice %t [%peer : +1, ...]`). It lowers to the rank
    argument that the mesh gives the function.

    ```mlir
    %r = axe.device_id
    ```
  }];
  let results = (outs Index:$result);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Operators
//===----------------------------------------------------------------------===//

def Axe_CopyOp : Axe_Op<"copy", [AttrSizedOperandSegments]> {
  let summary = "copy a tensor into another (any memory scopes and layouts)";
  let description = [{
    Copies every logical element of `source` into `dest`; the two layouts
    and memory scopes may differ (that is the point: global→shared with a
    swizzle, shared→register into MMA fragments, ...). `schedule` is a hint
    (`tma`, `cp_async`, `ldmatrix`, `vectorized`, default `auto`). With
    `async`, the copy returns a token to wait on (`axe.wait`). A TMA copy
    `after %r` (a token of `axe.arrive`) is issued only once every thread of
    the CTA has arrived there: it may overwrite what they read before.
    A TMA copy with `barrier %b` (an `axe.mbarrier`) returns no token: it
    completes on `%b` instead, counting as one arrival there plus its bytes,
    and whoever waits for the barrier's phase (`axe.mbarrier_wait`) sees the
    data. It is issued once per unit of the executing scope (by the unit's
    first thread): the producer role of a warp-specialized pipeline.

    A TMA store (shared → global, by the CTA or a warpgroup) into a local
    buffer is complete when the op ends. Into a peer device's memory (a
    distributed tensor of a mesh sliced to one device) it is bulk copies of
    the runs that both layouts share, each 16-byte aligned (checked from
    the layouts): the op ends once the shared tile has been read, and the
    writes are complete at the unit's next `axe.signal`, which waits for
    them before it publishes, and at the kernel's exit. An `async` TMA store
    (either kind) ends once issued; its token's `axe.wait`, in the unit that
    issued it, returns once the shared tile has been read (it may then be
    written again), and its writes are complete at the unit's next
    `axe.signal` and at the kernel's exit: a unit fills a second tile while
    the first one travels.

    `multicast [d, ...]` (a barrier copy in a kernel with `cluster`) shares
    the tile among the CTAs of the cluster that differ from this one only
    along cluster dimensions `d, ...` (TMA multicast, sm_90): every one of
    them executes the copy with the same source tile, each loads a part of
    it, and every part lands in the shared memory of every one of them, at
    the destination's offset, completing on their barriers `%b` (each
    counts one arrival and the whole tile's bytes). The tile is read from
    global memory once per group instead of once per CTA. Before a
    producer refills a multicast stage, the consumers of every CTA in the
    group must have released it (`axe.mbarrier_arrive %empty cta %peer`).

    `reduce sum` (a synchronous TMA store: shared → global) combines instead
    of overwriting: every element of `dest` becomes `dest + source` (the
    TMA unit's bulk reductions, `cp.reduce.async.bulk`, performed at the
    destination's memory; sm_90). Each element's add is atomic at GPU scope
    (PTX: relaxed, `.gpu`), so reducing copies from several CTAs into one
    tile need no ordering among themselves, only after whatever initialized
    the tile; adds from several devices into one element rely on the
    reductions being performed at the destination's memory, which the PTX
    memory model does not state. Into a peer's memory it completes as a
    TMA store into a peer does (at the unit's next `axe.signal`); into a
    local buffer, when the op ends. This is the reduce-scatter's
    accumulation done by the memory system (Axe paper §4.3): the owner of a
    tile never reads its peers' partial tiles back. Lowered for `sum` of
    f16, bf16, f32, f64 and 32/64-bit integers.

    ```mlir
    axe.copy %g, %s : !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (4096, 1)>>, !axe.tensor<64x64xf16, shared, ?>
    %tok = axe.copy async %g, %s schedule cp_async : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, shared, ?> -> !axe.token
    %t2 = axe.copy async %g, %s schedule tma after %r : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, shared, ?> -> !axe.token
    axe.copy async %g, %s schedule tma barrier %full : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, shared, ?>
    axe.copy async %g, %s schedule tma barrier %full multicast [0] : !axe.tensor<64x64xf16, global, ?>, !axe.tensor<64x64xf16, shared, ?>
    axe.copy %s, %peer_tile schedule tma reduce sum : !axe.tensor<64x128xf16, shared, ?>, !axe.tensor<64x128xf16, global, ?>
    ```
  }];
  // `dest` is read as well as written: a `reduce` copy adds into it.
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemRead]>:$source,
                       Arg<Axe_AnyTensor, "", [MemRead, MemWrite]>:$dest,
                       Optional<Axe_Token>:$after,
                       Optional<Axe_MBarrier>:$barrier,
                       UnitAttr:$async,
                       DefaultValuedAttr<Axe_CopySchedule, "::mlir::axe::CopySchedule::Auto">:$schedule,
                       OptionalAttr<DenseI64ArrayAttr>:$multicast,
                       OptionalAttr<Axe_ReduceKind>:$reduce);
  let results = (outs Optional<Axe_Token>:$token);
  let assemblyFormat = [{
    (`async` $async^)? $source `,` $dest (`schedule` $schedule^)? (`after` $after^)?
    (`barrier` $barrier^)? (`multicast` $multicast^)? (`reduce` $reduce^)? attr-dict `:`
    qualified(type($source)) `,` qualified(type($dest)) (`->` type($token)^)?
  }];
  let hasVerifier = 1;
}

def Axe_WaitOp : Axe_Op<"wait"> {
  let summary = "wait for asynchronous copies to complete";
  let description = [{
    Blocks the executing thread until its asynchronous copies have completed —
    all of them, or, with `outstanding N`, all but the `N` most recently
    issued (copies complete in issue order, as cp.async groups do). TMA
    copies complete through their tokens (an mbarrier each) or a plain
    `axe.wait`; async gemms (wgmma groups) through a gemm token, with
    `outstanding N` counting gemms; async TMA stores, waited for in the CTA
    or warpgroup that issued them, once their shared sources have been read,
    with `outstanding N` counting the unit's stores. This is
    what lets a loop prefetch the next tile while it computes on the current
    one. The listed tokens document which copies the program relies on; they
    must be among the completed ones. Other threads' copies become visible
    after a following `axe.barrier`.

    ```mlir
    axe.wait %t0, %t1
    axe.wait %t0 outstanding 1
    ```
  }];
  let arguments = (ins Variadic<Axe_Token>:$tokens,
                       // PTX encodes the count as a non-negative 32-bit immediate.
                       DefaultValuedAttr<ConfinedAttr<I64Attr,
                         [IntNonNegative, IntMaxValue<2147483647>]>, "0">:$outstanding);
  let assemblyFormat = "$tokens (`outstanding` $outstanding^)? attr-dict";
}

def Axe_ArriveOp : Axe_Op<"arrive"> {
  let summary = "signal, without waiting, that this thread is done with what it read";
  let description = [{
    Every thread of the CTA executes it and goes on; the token orders TMA
    copies (`axe.copy ... schedule tma after %r`) behind every thread's
    arrival: the copy's issuing thread waits for all of them (an mbarrier
    with one arrival per thread). This is the release half of a CTA barrier,
    for the common case where the only thing that must wait is a TMA copy
    about to overwrite a buffer the CTA was reading.

    ```mlir
    %r = axe.arrive
    ```
  }];
  let results = (outs Axe_Token:$token);
  let assemblyFormat = "attr-dict";
}

def Axe_MBarrierOp : Axe_Op<"mbarrier"> {
  let summary = "a barrier in shared memory whose phases complete on arrivals";
  let description = [{
    Creates one barrier of the CTA (an mbarrier in shared memory, set up
    once when the kernel starts). A phase of it completes when `arrivals`
    arrivals have been made in that phase — each `axe.mbarrier_arrive` by a
    thread is one, each TMA copy on it (`axe.copy ... barrier %b`) is one —
    and the bytes of those copies have landed. Phases alternate parity 0, 1,
    0, ...; `axe.mbarrier_wait %b, %p` waits for the phase of parity `%p` to
    complete. Pairs of such barriers ("full" and "empty" per shared stage)
    are how warp roles hand stages to each other (the Axe paper §4.1,
    warp-specialized GEMM): the producer waits for a stage to be empty and
    fills it with TMA copies on its full barrier; the consumers wait for it
    to be full, compute, and arrive on its empty barrier.

    Must be an op of the kernel's body itself (not nested in a scope or a
    loop): every thread of the CTA sees the same barrier.

    ```mlir
    %full = axe.mbarrier arrivals 2
    %empty = axe.mbarrier arrivals 256
    ```
  }];
  // PTX: an mbarrier's expected arrival count is 1 .. 2^20 - 1.
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<1>, IntMaxValue<1048575>]>:$arrivals);
  let results = (outs Axe_MBarrier:$barrier);
  let assemblyFormat = "`arrivals` $arrivals attr-dict";
  let hasVerifier = 1;
}

def Axe_MBarrierArriveOp : Axe_Op<"mbarrier_arrive"> {
  let summary = "every executing thread arrives once on a barrier, without waiting";
  let description = [{
    Each thread that executes it makes one arrival on `%b`'s current phase
    (release: its earlier reads and writes of shared memory are done before
    the phase completes) and goes on. Count these threads in the barrier's
    `arrivals`: e.g. two consumer warpgroups releasing a stage arrive 256
    times.

    With `cta %r` (a kernel with `cluster`), the arrival is on barrier `%b`
    of the CTA of rank `%r` in this CTA's cluster (`axe.unit_id cta
    in_cluster`): how the consumers of every CTA in a multicast group
    release a stage to each producer that writes it. It is released at CTA
    scope (as CUTLASS's cluster pipelines arrive): the thread's earlier
    reads are done, so the peer may overwrite what they read, but its
    writes are not published to the peer (`axe.barrier cluster` does that).

    ```mlir
    axe.mbarrier_arrive %empty
    axe.mbarrier_arrive %empty cta %peer
    ```
  }];
  let arguments = (ins Axe_MBarrier:$barrier, Optional<Index>:$cta);
  let assemblyFormat = "$barrier (`cta` $cta^)? attr-dict";
  let hasVerifier = 1;
}

def Axe_MBarrierWaitOp : Axe_Op<"mbarrier_wait"> {
  let summary = "wait until a barrier's phase of the given parity completes";
  let description = [{
    Every executing thread waits (acquire) until the phase of `%b` with
    parity `%parity` has completed; then what was written before that
    phase's arrivals — the bytes of its TMA copies included — is visible.
    On a fresh barrier, a wait for parity 1 returns at once (as if for the
    phase before the first): that is how a producer starts on stages that
    are empty.

    ```mlir
    axe.mbarrier_wait %full, %parity
    ```
  }];
  let arguments = (ins Axe_MBarrier:$barrier, I1:$parity);
  let assemblyFormat = "$barrier `,` $parity attr-dict";
  let hasVerifier = 1;
}

def Axe_SetMaxRegistersOp : Axe_Op<"set_max_registers"> {
  let summary = "move registers between warpgroup roles (sm_90a)";
  let description = [{
    Every thread of the enclosing warpgroup scope now has at most `count`
    registers (a multiple of 8, 24 to 256): fewer for a producer role that
    only issues copies, more for consumer roles holding accumulators, so the
    consumers' tiles fit without spilling (the Axe paper §4.1's Hopper
    GEMM). It raises or lowers the allocation the kernel started with (the
    register file divided among the CTA's threads); the roles' new totals
    must fit the register file. Must be an op of an `axe.scope warpgroup`
    body, executed by whole warpgroups.

    ```mlir
    axe.scope warpgroup [0 : 1] { axe.set_max_registers 40 ... }
    axe.scope warpgroup [1 : 3] { axe.set_max_registers 232 ... }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntMinValue<24>, IntMaxValue<256>]>:$count);
  let assemblyFormat = "$count attr-dict";
  let hasVerifier = 1;
}

def Axe_BarrierOp : Axe_Op<"barrier"> {
  let summary = "synchronize the units of the enclosing scope";
  let description = [{
    All units of `kind` (by default the CTA) reach the barrier before any
    continues; memory writes before it are visible after it.

    ```mlir
    axe.barrier cta
    ```
  }];
  let arguments = (ins Axe_ScopeKind:$kind);
  let assemblyFormat = "$kind attr-dict";
}

def Axe_SignalOp : Axe_Op<"signal"> {
  let summary = "publish a value at a flag, after the unit's writes (release)";
  let description = [{
    Every thread of the executing unit runs it: the CTA, or the warpgroup,
    warp or thread of the innermost enclosing `axe.scope` (so a role of a
    warp-specialized kernel can publish its tiles; a sliced scope of CTA
    granularity is refused, as its CTA barrier could not complete). Once all
    of them have reached it, the value is stored at `flag` (a one-element `i32` tensor in global
    memory, which may live on a peer device of the mesh) with release
    semantics: a CTA that observes the value with `axe.signal_wait` also
    observes every write the unit made before the signal, on any device.
    The scope is the system in a kernel of an `axe.mesh` (peers may
    observe), else the GPU. This is how a producer tile tells its consumers,
    on this or another GPU, that its output is complete; with a value that
    changes per launch (an epoch), flags need no reset.

    ```mlir
    axe.signal %flag, %epoch : !axe.tensor<1xi32, global, ?>, i32
    ```
  }];
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemWrite]>:$flag, I32:$value);
  let assemblyFormat = "$flag `,` $value attr-dict `:` qualified(type($flag)) `,` type($value)";
  let hasVerifier = 1;
}

def Axe_SignalWaitOp : Axe_Op<"signal_wait"> {
  let summary = "wait until a flag (or every flag of a tensor) holds a value (acquire)";
  let description = [{
    Every thread of the executing unit runs it (the CTA, or the warpgroup,
    warp or thread of the innermost enclosing `axe.scope`, as for
    `axe.signal`). One thread polls `flag` (a one-element `i32` tensor in
    global memory, on this or a peer device) with acquire loads (system
    scope in a kernel of an `axe.mesh`, else GPU scope) until it holds
    `value`; then the unit synchronizes and, in a kernel with TMA copies,
    each of its threads fences the async proxy (`fence.proxy.async.global`).
    Every write
    that the signalling unit made before its `axe.signal` is visible to
    every thread after the wait, to its loads and to the TMA copies it
    issues next. With several flags (any `i32` tensor in global memory,
    e.g. a row of a flag array), it waits until every one holds `value`:
    the polling thread reads them all per round (relaxed loads, in
    flight together) and, once all hold it, fences with acquire ordering,
    one round trip per poll rather than one per flag. The producer
    must not itself wait for this CTA (no cycles), and it must be able to
    run while this CTA waits: on one device, either a producer tile is
    dispatched before its consumers (a lower CTA index), or every CTA of
    the grid is resident at once (a persistent kernel whose CTAs wait on
    each other: launch it no wider than the device holds).

    ```mlir
    axe.signal_wait %flag, %epoch : !axe.tensor<1xi32, global, ?>, i32
    ```
  }];
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemRead]>:$flag, I32:$value);
  let assemblyFormat = "$flag `,` $value attr-dict `:` qualified(type($flag)) `,` type($value)";
  let hasVerifier = 1;
}

def Axe_FillOp : Axe_Op<"fill"> {
  let summary = "set every element of a tensor to a scalar";
  let description = [{
    ```mlir
    axe.fill %acc, %zero : !axe.tensor<128x128xf32, register, ?>, f32
    ```
  }];
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemWrite]>:$dest, AnyType:$value);
  let assemblyFormat = "$dest `,` $value attr-dict `:` qualified(type($dest)) `,` type($value)";
  let hasVerifier = 1;
}

def Axe_IotaOp : Axe_Op<"iota"> {
  let summary = "set every element of a register tensor to its index along a dimension";
  let description = [{
    Each element of `dest` becomes its coordinate along dimension `dim`
    (converted to the element type, integer or float): what masks are built
    from, e.g. attention's causal mask, a key column against a query row,
    or the columns past a sequence's end. Offsets (a tile's origin) are added
    with `axe.binary`.

    ```mlir
    axe.iota %cols dim 1 : !axe.tensor<64x128xf32, register, ?>
    ```
  }];
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemWrite]>:$dest, I64Attr:$dim);
  let assemblyFormat = "$dest `dim` $dim attr-dict `:` qualified(type($dest))";
  let hasVerifier = 1;
}

def Axe_GemmOp : Axe_Op<"gemm"> {
  let summary = "C += op(A) · op(B)";
  let description = [{
    Matrix multiply-accumulate: with `transpose_a`, A is read as [K, M]
    instead of [M, K]; with `transpose_b`, B as [N, K] instead of [K, N].
    C is [M, N] and its element type is the accumulation type (e.g. f16
    inputs, f32 accumulator). A and B have the same element type.

    With `async`, the gemm returns a token and may still be running when the
    next operation starts (wgmma groups on sm_90a; other schedules complete
    at once): until an `axe.wait` on its token, C must not be read or written
    other than by further gemms, nor A and B overwritten. `axe.wait %g
    outstanding N` returns once at most the N most recently issued async
    gemms are still running: `outstanding 1` right after issuing the next
    gemm lets the previous one's A and B be reused while it runs.

    With `overwrite`, C = op(A) · op(B): C's prior contents are not read
    (wgmma starts the accumulation with scale-d 0; mma.sync after zeroing C),
    so a loop need not zero C before each product.

    ```mlir
    axe.gemm %a, %b, %c : !axe.tensor<128x32xf16, shared, ?>, !axe.tensor<32x128xf16, shared, ?>, !axe.tensor<128x128xf32, register, ?>
    %g = axe.gemm async %a, %b, %c : !axe.tensor<64x64xf16, shared, ?>, !axe.tensor<64x128xf16, shared, ?>, !axe.tensor<64x128xf32, register, ?> -> !axe.token
    ```
  }];
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemRead]>:$a,
                       Arg<Axe_AnyTensor, "", [MemRead]>:$b,
                       Arg<Axe_AnyTensor, "", [MemRead, MemWrite]>:$c,
                       UnitAttr:$transpose_a, UnitAttr:$transpose_b,
                       UnitAttr:$async, UnitAttr:$overwrite);
  let results = (outs Optional<Axe_Token>:$token);
  let assemblyFormat = [{
    (`async` $async^)? $a `,` $b `,` $c attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($c)) (`->` type($token)^)?
  }];
  let hasVerifier = 1;
}

def Axe_MatmulOp : Axe_Op<"matmul", [AttrSizedOperandSegments]> {
  let summary = "C = A · B on global tensors: a whole GEMM, its schedule chosen by the compiler";
  let description = [{
    A complete matrix product over global tensors, outside any kernel: C[M, N]
    = A[M, K] · B[K, N] (with `transpose_b`, B is given as [N, K], K-major —
    what FP8 wgmma reads), accumulated in f32 and stored in C's element type.
    A and B are f16, bf16, or FP8 (f8E4M3FN / f8E5M2, with `transpose_b`);
    FP8 takes scales (`scales(%sa, %sb : ...)`, f32 global tensors): per
    tensor (both 1x1), which multiply the accumulator, or per block as
    DeepSeek-V3's FP8 checkpoints ship them — %sa [M, ceil(K/128)], one per
    row of A and 128 of K, %sb [ceil(N/128), ceil(K/128)], one per 128x128
    block of B, any layout (e.g. %sa column-major, as `torch._scaled_mm`
    takes it): each 128-deep slab of the product is scaled before it is added
    up in f32 (the tile's columns then lie in one block of B: `tile_n` 64 or
    128). C is f16, bf16 or f32. Shapes need
    not be tile multiples; each global row stride must be a multiple of 16
    bytes (TMA).

    `workspace(%partials, %flags : ...)` lets the schedule split K over
    several CTAs per output tile (`split_k`), for shapes whose output tiles
    cannot fill the GPU (small batches, long K): `%partials` is an
    [M, N] f32 global tensor for the running sums, `%flags` an
    [ceil(M/64), ceil(N/64)] i32 global tensor, all zero before the first
    launch — every launch leaves them zero again (as cuBLAS's workspace, the
    caller allocates both once).

    `gate silu` (any `axe.unary` kind) fuses a gated linear unit into the
    epilogue, as a tensor-parallel MLP's up/gate projection does (SwiGLU):
    B is `[B_gate | B_up]`, [K, 2N], and C[M, N] = silu(A · B_gate) ⊙
    (A · B_up). Each tile computes matching columns of both halves.
    `up(%Bu : ...)` gives B_up as a tensor of its own (a model's separate
    gate and up weights): then B is B_gate alone, both [K, N].

    The epilogue may also add a bias, apply an activation and add a
    residual, in f32 on the accumulator before C's rounding, in this order
    (cuBLASLt's bias-then-activation, then the residual stream's add): C =
    act(A · B + bias) + residual. `bias(%b : ...)` is a [1, N] global tensor
    (f16, bf16 or f32) added to every row; `activation gelu` is any
    `axe.unary` kind; `residual(%r : ...)` an [M, N] global tensor (f16,
    bf16 or f32; it may be C itself). A gated product takes a residual but
    neither bias nor activation (its gate is the activation).

    `gather(%G, %F, %epoch : ...)` fuses an all-gather of A's rows into the
    GEMM, inside an `axe.mesh [R]`: A is distributed by rows, layout
    `(R, M/R, K) : (1@gpuid, K, 1)` (device r holds rows r M/R ..), and
    every device computes its C from all M rows. `%G` is the symmetric
    gather buffer, [R, M, K] with layout `(R, M, K) : (1@gpuid, K, 1)`
    (device d's copy of every row); `%F` the symmetric flags, [R, R + 1, P]
    i32 with layout `(R, R + 1, P) : (1@gpuid, P, 1)`: per device, a row per
    source device (one flag per 64 x 512 piece of its rows of A,
    Q = ceil(M/R / 64) · ceil(K / 512) of them) and a row of start flags,
    P = Q · ceil(R / Q) slots each; zero before the first launch;
    `%epoch` an i32 the caller increments per launch (flags are never
    reset). Both buffers must be `axe.view`s of function arguments. Each
    device computes its own rows first while spare warps of the producer
    warpgroup (the schedule's `pushers`, one by default) push its rows,
    64 x 512 pieces, into the peers' G, each piece published with a flag
    (`axe.signal`); a device's producer waits (`axe.signal_wait`) only for
    the pieces of the row tile it loads next. Pushes into a peer start
    once that peer's launch of the same epoch has started (its start flag),
    so consecutive launches need no host barrier.

    `axe-matmul-schedule` chooses the `schedule` (a `#axe.matmul_schedule`)
    from the shapes, types and the module's `#axe.target`, keeping the fields
    already given; `axe-expand-matmul` replaces the op by the warp-specialized
    `axe.kernel` of that schedule (TMA producer warp, wgmma consumer
    warpgroups, mbarrier stages). Both run first in `axe-to-nvvm-pipeline`.

    ```mlir
    axe.matmul %A, %B, %C : !axe.tensor<128x4096xf16, global, #axe.layout<(128, 4096) : (4096, 1)>>, !axe.tensor<4096x8192xf16, global, #axe.layout<(4096, 8192) : (8192, 1)>>, !axe.tensor<128x8192xf16, global, #axe.layout<(128, 8192) : (8192, 1)>>
    axe.matmul %A, %B, %C scales(%sa, %sb : ...) workspace(%P, %F : ...) {transpose_b, schedule = #axe.matmul_schedule<tile_n = 128>} : ...
    axe.matmul %X, %W, %H gate silu gather(%G, %F, %epoch : ...) : ...
    axe.matmul %X, %W, %Y bias(%b : ...) activation gelu residual(%R : ...) : ...
    ```
  }];
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemRead]>:$a,
                       Arg<Axe_AnyTensor, "", [MemRead]>:$b,
                       Arg<Axe_AnyTensor, "", [MemWrite]>:$c,
                       Arg<Optional<Axe_AnyTensor>, "", [MemRead]>:$scale_a,
                       Arg<Optional<Axe_AnyTensor>, "", [MemRead]>:$scale_b,
                       Arg<Optional<Axe_AnyTensor>, "", [MemRead, MemWrite]>:$partials,
                       Arg<Optional<Axe_AnyTensor>, "", [MemRead, MemWrite]>:$flags,
                       Arg<Optional<Axe_AnyTensor>, "", [MemRead, MemWrite]>:$gathered,
                       Arg<Optional<Axe_AnyTensor>, "", [MemRead, MemWrite]>:$gather_flags,
                       Optional<I32>:$epoch,
                       Arg<Optional<Axe_AnyTensor>, "", [MemRead]>:$bias,
                       Arg<Optional<Axe_AnyTensor>, "", [MemRead]>:$residual,
                       Arg<Optional<Axe_AnyTensor>, "", [MemRead]>:$b_up,
                       UnitAttr:$transpose_b,
                       OptionalAttr<Axe_UnaryKind>:$gate,
                       OptionalAttr<Axe_UnaryKind>:$activation,
                       OptionalAttr<Axe_MatmulScheduleAttr>:$schedule);
  let assemblyFormat = [{
    $a `,` $b `,` $c
    (`gate` $gate^)?
    (`up` `(` $b_up^ `:` qualified(type($b_up)) `)`)?
    (`bias` `(` $bias^ `:` qualified(type($bias)) `)`)?
    (`activation` $activation^)?
    (`residual` `(` $residual^ `:` qualified(type($residual)) `)`)?
    (`gather` `(` $gathered^ `,` $gather_flags `,` $epoch `:` qualified(type($gathered)) `,` qualified(type($gather_flags)) `)`)?
    (`scales` `(` $scale_a^ `,` $scale_b `:` qualified(type($scale_a)) `,` qualified(type($scale_b)) `)`)?
    (`workspace` `(` $partials^ `,` $flags `:` qualified(type($partials)) `,` qualified(type($flags)) `)`)?
    attr-dict `:` qualified(type($a)) `,` qualified(type($b)) `,` qualified(type($c))
  }];
  let hasVerifier = 1;
}

def Axe_AttentionOp : Axe_Op<"attention", [AttrSizedOperandSegments]> {
  let summary = "O = softmax(scale · Q Kᵀ (+ causal mask)) V on global tensors: fused attention, built by the compiler";
  let description = [{
    Scaled dot-product attention forward over a batch of sequences of
    `seq_len` tokens each, the tokens packed along rows (the "THD" layout of
    FlashAttention's variable-length interface): Q and O are
    [tokens, heads · D], K and V [tokens, kv_heads · D], row-major, f16 or
    bf16 (all one type), D (the head dimension) 64, 128 or 256. Query head h reads
    key/value head h / (heads / kv_heads) (grouped-query attention; kv_heads
    = heads is multi-head attention). `causal` masks key j > query i within
    each sequence. `scale` multiplies Q Kᵀ (default 1/√D). The softmax runs
    online in f32 (exp2 with the scale folded in); O is normalized and
    rounded once.

    `lse(%L : ...)` also writes each row's log-sum-exp (natural log, of the
    scaled scores: what a backward pass reads), an f32 [tokens, heads] global
    tensor — give it a column-major layout for FlashAttention's [heads,
    tokens] storage.

    Sequences of different lengths (`cu_seqlens(%cu : memref<(B+1)xi32>)`,
    FlashAttention's cumulative sequence offsets): sequence b is rows
    `cu[b] .. cu[b+1]` of Q, K, V and O, at any row; `seq_len` is then the
    longest sequence's length (FlashAttention's `max_seqlen`), which sizes
    the grid: a sequence longer than it has its later rows left unwritten.
    Without `cu_seqlens` every sequence has `seq_len` tokens. Any length
    runs: keys past a sequence's end are masked, its query rows past the
    end are not written.

    `axe-expand-attention` replaces the op by one `axe.kernel`: a work item
    is a 128-row tile of one head's queries; a TMA producer warp streams K and
    V tiles through a ring of stages; two consumer warpgroups (64 rows each)
    compute S = Q Kᵀ with wgmma, the online softmax on the accumulator's
    registers, and O += P V with P taken from those registers as wgmma's A
    operand. Where the compiler finds it faster (every item the same work at
    D <= 128; causal at D = 64 up to 1024 tokens, as pairs of tiles of equal
    work) the grid is persistent: at most one CTA per SM of the target, each
    walking items, so that the next item's loads overlap this one's
    epilogue; else one CTA per item. `block_n` (key rows per stage), `stages`
    and `persistent` (true or false) override the compiler's choice.

    ```mlir
    axe.attention %Q, %K, %V, %O lse(%L : ...) {heads = 32, kv_heads = 8, seq_len = 4096, causal} : ...
    axe.attention %Q, %K, %V, %O cu_seqlens(%cu : memref<9xi32>) {heads = 16, seq_len = 4096} : ...
    ```
  }];
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemRead]>:$q,
                       Arg<Axe_AnyTensor, "", [MemRead]>:$k,
                       Arg<Axe_AnyTensor, "", [MemRead]>:$v,
                       Arg<Axe_AnyTensor, "", [MemWrite]>:$o,
                       Arg<Optional<Axe_AnyTensor>, "", [MemWrite]>:$lse,
                       Arg<Optional<AnyMemRef>, "", [MemRead]>:$cu_seqlens,
                       I64Attr:$heads,
                       OptionalAttr<I64Attr>:$kv_heads,
                       I64Attr:$seq_len,
                       UnitAttr:$causal,
                       OptionalAttr<F32Attr>:$scale,
                       OptionalAttr<I64Attr>:$block_n,
                       OptionalAttr<I64Attr>:$stages,
                       OptionalAttr<BoolAttr>:$persistent);
  let assemblyFormat = [{
    $q `,` $k `,` $v `,` $o
    (`lse` `(` $lse^ `:` qualified(type($lse)) `)`)?
    (`cu_seqlens` `(` $cu_seqlens^ `:` type($cu_seqlens) `)`)?
    attr-dict `:` qualified(type($q)) `,` qualified(type($k)) `,` qualified(type($v)) `,` qualified(type($o))
  }];
  let hasVerifier = 1;
}

def Axe_UnaryOp : Axe_Op<"unary"> {
  let summary = "dest = f(source), elementwise";
  let description = [{
    The functions: `neg`, `exp`, `exp2`, `log`, `sqrt`, `rsqrt`, `abs`,
    `relu`, `sigmoid`, `silu` (x · sigmoid x), `tanh`, `erf`, `gelu` (x ·
    (1 + erf(x / √2)) / 2, ONNX's and PyTorch's exact GELU) and `gelu_tanh`
    (its tanh approximation). On floats narrower than f32, the
    transcendental ones are computed in f32 and rounded once.

    ```mlir
    axe.unary exp %x, %y : !axe.tensor<128xf32, register, ?>, !axe.tensor<128xf32, register, ?>
    ```
  }];
  let arguments = (ins Axe_UnaryKind:$kind, Arg<Axe_AnyTensor, "", [MemRead]>:$source,
                       Arg<Axe_AnyTensor, "", [MemWrite]>:$dest);
  let assemblyFormat = [{
    $kind $source `,` $dest attr-dict `:` qualified(type($source)) `,` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Axe_BinaryOp : Axe_Op<"binary"> {
  let summary = "dest = lhs ⊕ rhs, elementwise with broadcasting";
  let description = [{
    Operand shapes broadcast numpy-style against `dest`'s shape: each operand
    has the destination's rank, and each of its dimensions equals the
    destination's or is 1 (broadcast along it).

    ```mlir
    axe.binary sub %x, %rowmax, %y : !axe.tensor<64x128xf32, register, ?>, !axe.tensor<64x1xf32, register, ?>, !axe.tensor<64x128xf32, register, ?>
    ```

    Each float result is rounded to the destination's type, as `arith`'s ops
    round theirs. The optional `fastmath` flags are `arith`'s and reach the
    arith op each element is computed with: `contract` lets a multiply and the
    add or subtraction that consumes it be fused into one `fma` (what CUDA
    compilers do by default; without it NVPTX writes `mul.rn`/`add.rn`, which
    ptxas never fuses), at the price of the product's rounding, so that
    `x - min(x)` need not be 0 where x is smallest. The kernels Axe's
    passes build (`axe-expand-matmul`, `axe-expand-attention`) set it.

    ```mlir
    axe.binary mul %x, %c, %x {fastmath = #arith.fastmath<contract>} : ...
    ```
  }];
  let arguments = (ins Axe_BinaryKind:$kind, Arg<Axe_AnyTensor, "", [MemRead]>:$lhs,
                       Arg<Axe_AnyTensor, "", [MemRead]>:$rhs,
                       Arg<Axe_AnyTensor, "", [MemWrite]>:$dest,
                       OptionalAttr<Axe_ArithFastMathAttr>:$fastmath);
  let assemblyFormat = [{
    $kind $lhs `,` $rhs `,` $dest attr-dict `:` qualified(type($lhs)) `,` qualified(type($rhs)) `,` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Axe_CastOp : Axe_Op<"cast"> {
  let summary = "dest = convert(source) to dest's element type, elementwise";
  let description = [{
    ```mlir
    axe.cast %acc, %out : !axe.tensor<128xf32, register, ?>, !axe.tensor<128xf16, register, ?>
    ```
  }];
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemRead]>:$source,
                       Arg<Axe_AnyTensor, "", [MemWrite]>:$dest);
  let assemblyFormat = "$source `,` $dest attr-dict `:` qualified(type($source)) `,` qualified(type($dest))";
  let hasVerifier = 1;
}

def Axe_ReduceOp : Axe_Op<"reduce"> {
  let summary = "reduce a tensor over some dimensions";
  let description = [{
    `dest` has the source's shape with every reduced dimension either
    removed or kept as 1.

    ```mlir
    axe.reduce max %x, %m dims [1] : !axe.tensor<64x128xf32, register, ?>, !axe.tensor<64x1xf32, register, ?>
    ```
  }];
  let arguments = (ins Axe_ReduceKind:$kind, Arg<Axe_AnyTensor, "", [MemRead]>:$source,
                       Arg<Axe_AnyTensor, "", [MemWrite]>:$dest, DenseI64ArrayAttr:$dims);
  let assemblyFormat = [{
    $kind $source `,` $dest `dims` $dims attr-dict `:` qualified(type($source)) `,` qualified(type($dest))
  }];
  let hasVerifier = 1;
}

def Axe_ConvertLayoutOp : Axe_Op<"convert_layout"> {
  let summary = "move a tensor's elements into a different layout";
  let description = [{
    Same shape, element type and memory scope; only the layout differs.
    `axe-infer-layout` inserts these where two propagated layouts disagree;
    `axe-canonicalize` removes those between equivalent layouts.

    ```mlir
    axe.convert_layout %x, %y : !axe.tensor<64xf32, register, #axe.layout<(64) : (1@lane)>>, !axe.tensor<64xf32, register, #axe.layout<(2, 32) : (1@reg, 1@lane)>>
    ```
  }];
  let arguments = (ins Arg<Axe_AnyTensor, "", [MemRead]>:$source,
                       Arg<Axe_AnyTensor, "", [MemWrite]>:$dest);
  let assemblyFormat = "$source `,` $dest attr-dict `:` qualified(type($source)) `,` qualified(type($dest))";
  let hasVerifier = 1;
}

#endif // AXE_OPS_TD
