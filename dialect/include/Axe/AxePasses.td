//===- AxePasses.td - Axe pass declarations ----------------*- tablegen -*-===//
//
// Every Axe pass is declared here (flag, summary, description, options); the
// generated base class's runOnOperation calls the pass body written in Rust
// (passes/). `--help` and the generated Markdown docs come from this file.
//
//===----------------------------------------------------------------------===//

#ifndef AXE_PASSES_TD
#define AXE_PASSES_TD

include "mlir/Pass/PassBase.td"

def AxeMatmulSchedule : Pass<"axe-matmul-schedule", "::mlir::ModuleOp"> {
  let summary = "Choose the schedule of every `axe.matmul` from its shape and the target";
  let description = [{
    Fills in the `#axe.matmul_schedule` of every `axe.matmul`: the fields the
    op already carries are kept (the user's override), the others chosen by
    a documented heuristic (`passes/matmul_schedule.rs`) from M, N, K, the
    element types and the module's `#axe.target` (its SM count, shared memory
    per CTA, cluster support):

    * the tile (`tile_m` 64 or 128, `tile_n` 64–256) that minimizes the
      estimated time of the whole grid: waves of tiles over the SMs, each
      tile's cost its MMA work (a 64-row tile runs one consumer warpgroup at
      half a 128-row tile's rate) plus the bytes it loads, so that small
      batches get narrow tiles that fill every SM instead of a few wide ones;
    * `tile_k` one 128-byte swizzle row (64 16-bit or 128 FP8 elements);
    * `stages` as many as fit in shared memory beside the epilogue's
      staging tile, at most 4 (more bought nothing on the H100);
    * `cluster` 2 (B shared by TMA multicast) only for GEMMs of at least
      10^12 flops with two waves of tiles;
    * `group` 8 (grouped raster for L2 reuse) and `persistent` (one CTA per SM)
      when there are more tiles than SMs' worth of CTAs.

    ```mlir
    axe.matmul %A, %B, %C : ...  // M = 128, N = K = 8192, f16, sm_90a
    // becomes
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<tile_m = 64, tile_n = 128, ...>} : ...
    ```

    A schedule the target cannot run (a tile wider than wgmma's N, more shared
    memory than a CTA may have, a cluster the target lacks) is a located error.
  }];
  let options = [
    Option<"smCount", "sm-count", "int", "0",
           "SMs the grid fills (0: the target's own count, e.g. 132 for sm_90a, "
           "the H100 SXM; 114 for an H100 PCIe)">
  ];
}

def AxeExpandMatmul : Pass<"axe-expand-matmul", "::mlir::ModuleOp"> {
  let summary = "Expand every `axe.matmul` into its warp-specialized `axe.kernel`";
  let description = [{
    Replaces each `axe.matmul` (with a complete `#axe.matmul_schedule`: run
    `axe-matmul-schedule` first) by the Axe paper §4.1 Hopper GEMM as scoped
    Axe IR, built through the dialect's typed op builders: one CTA of
    `tile_m / 64 + 1` warpgroups; warp 0 of warpgroup 0 is the TMA producer
    (`axe.copy async ... schedule tma barrier %full_s`, B multicast across a
    cluster), each other warpgroup a wgmma consumer of 64 rows
    (`axe.gemm async`, `axe.wait ... outstanding 1`, `axe.mbarrier_arrive
    %empty_s`), with `axe.set_max_registers` moving registers from the
    producer to the consumers; the epilogue stores each accumulator part
    through a swizzled shared tile with TMA. Tiles past M, N or K are `{clip}`
    slices (TMA zero fill, clipped stores). A persistent grid walks tiles in
    grouped raster order. Global strides that TMA cannot address (not a
    multiple of 16 bytes) are located errors naming the operand. A gathered
    A (`gather(...)`) adds the schedule's `pushers` warps to the producer
    warpgroup (`passes/expand_matmul/gather.rs`).
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect"];
}

def AxeExpandAttention : Pass<"axe-expand-attention", "::mlir::ModuleOp"> {
  let summary = "Expand every `axe.attention` into its warp-specialized `axe.kernel`";
  let description = [{
    Replaces each `axe.attention` by a FlashAttention-style Hopper kernel as
    scoped Axe IR, built through the dialect's typed op builders: one CTA per
    128 query rows of one head (for `causal`, the longest rows first), three
    warpgroups. Warp 0 of warpgroup 0 loads the Q tile and streams K and V
    tiles (`block_n` rows) through `stages` mbarrier stages by TMA (K and V
    of a stage filled and released apart); each of the two consumer
    warpgroups (64 query rows, `axe.set_max_registers` 240) computes S =
    Q Kᵀ (`axe.gemm async`, wgmma), the online softmax on the accumulator
    (`axe.reduce max`/`sum` along its rows, exp2 with the scale folded in),
    casts P to 16 bits — the same register layout, which `axe-infer-layout`
    derives and `convert-axe-to-gpu` checks to be the wgmma A fragment —
    and accumulates O += P V with A from registers. Tile j's Q Kᵀ and tile
    j - 1's P V are issued together and the softmax of tile j overlaps that
    P V (`axe.wait %qk outstanding 1`); the two warpgroups take turns
    issuing (ping-pong). Only the tiles that cross the causal diagonal are
    masked (`axe.iota`). O is normalized, staged in the Q tile's shared
    memory and stored by TMA.

    Sequences of any length, and of different lengths (`cu_seqlens`, read
    in the kernel with `memref.load`): rows are then windows at any origin
    that end at the tensor's end (TMA copies them); keys past a sequence's
    end are masked on its last K tile, and a query tile that reaches past
    the end stores its rows by predicated stores.

    The schedule: `block_n` 128 and 2 stages at D = 128, 3 stages at D = 64,
    64 keys and 2 stages at D = 256 (what fits the 227 KiB of shared memory
    a Hopper CTA may use with the Q tile); the op's `block_n` / `stages` attributes override it. Shapes the
    kernel cannot run (D not 64, 128 or 256, `block_n` not 64 or 128, heads
    not a multiple of kv_heads, strides TMA cannot address) are located
    errors.
  }];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect"];
}

def ConvertLinalgToAxe : Pass<"convert-linalg-to-axe", "::mlir::ModuleOp"> {
  let summary = "Turn bufferized `linalg` matrix products and their epilogues into `axe.matmul`";
  let description = [{
    The front door for IR that existing pipelines produce (torch-mlir's
    linalg-on-tensors after `one-shot-bufferize`, IREE's and StableHLO's
    input pipelines): each `linalg.matmul` on memrefs that overwrites its
    output becomes an `axe.matmul` on views of the same buffers, which
    `axe-matmul-schedule` and `axe-expand-matmul` then schedule and build.

    * **Overwrite, not accumulate**: `linalg.matmul` adds into its output,
      `axe.matmul` writes it; a matmul is converted when its output holds
      zeros before it (the last write is a zero `linalg.fill`, or a copy of
      one, as torch-mlir and IREE emit it after bufferization).
    * **B given as [N, K]**: maps that read B transposed, or a
      `linalg.transpose` of an [N, K] buffer into B (ONNX `Gemm` with
      `transB`, PyTorch's Linear), become `transpose_b` on that buffer.
    * **f32 accumulation, then a narrowing**: a matmul into a freshly
      allocated f32 buffer whose one reader is a `linalg.generic` that
      `arith.truncf`s it elementwise into an f16 or bf16 buffer becomes one
      `axe.matmul` writing the narrow buffer (the accumulator stays in
      registers); the f32 buffer goes.
    * **Buffers**: static shapes, row-major contiguous layouts, function
      arguments or temporaries (which become `{axe.workspace}` arguments);
      each TMA operand gets `{axe.align = 16}` (TMA's requirement, which the
      launcher checks: `axe_runtime` refuses a misaligned buffer).

    * **The epilogue**: a matmul into a freshly allocated buffer whose one
      reader is an elementwise `linalg.generic` (after upstream's elementwise
      fusion, the whole chain of its consumers) computing `act(acc + bias) +
      residual` becomes one `axe.matmul` with `bias`, `activation` and
      `residual`, writing the generic's output; the accumulator goes. The
      bias is an input broadcast along rows (`(d0, d1) -> (d1)`), the
      residual one of the output's shape added last, and the activation,
      a function of one value, is identified by its values (any algebraic
      form of `gelu`, `silu`, `sigmoid`, `relu`, `tanh`, ...). Roundings
      between float types inside the body are not kept: the epilogue
      computes in f32 and rounds once, to the output's type.

    Anything else stays as it was, with a remark that says why (a transposed
    A, a batched product, an accumulating one, a dynamic or strided buffer, a
    tensor operand before bufferization, a consumer that is not such an
    epilogue).

    * **Row operations**: a run of generics (and fills) that work row by
      row (softmax, RMSNorm, LayerNorm, elementwise chains) becomes one
      `axe.kernel` of one CTA per row: inputs loaded once into registers,
      each body applied to whole register tensors, each reduction along
      the row an `axe.reduce`, outputs stored once; temporaries live in
      registers (a temporary read after the run refuses it).

    `target` sets the module's `#axe.target` where it has none (torch-mlir's
    and IREE's modules carry none), which `axe-matmul-schedule` reads.

    Before / after:

    ```mlir
    linalg.fill ins(%zero : f32) outs(%acc : memref<64x128xf32>)
    linalg.matmul ins(%a, %b : memref<64x256xf16>, memref<256x128xf16>) outs(%acc : memref<64x128xf32>)
    linalg.generic {...} ins(%acc : memref<64x128xf32>) outs(%c : memref<64x128xf16>) { arith.truncf ... }
    // becomes
    %A = axe.view %a : memref<64x256xf16> to !axe.tensor<64x256xf16, global, #axe.layout<(64, 256) : (256, 1)>>
    ...
    axe.matmul %A, %B, %C : ...
    ```
  }];
  let options = [
    Option<"target", "target", "std::string", "\"\"",
           "The #axe.target to set on a module that has none (e.g. sm_90a); empty: none">,
    Option<"threadsPerRow", "threads-per-row", "int", "0",
           "Threads of a row kernel per row: 0 chooses (warps of lanes over the row); 1 keeps "
           "each row in one thread's registers (reductions in-thread: what "
           "axe-emulate-on-cpu-pipeline can run)">
  ];
  let dependentDialects = ["::mlir::axe::AxeDialect"];
}

def AxeCanonicalize : Pass<"axe-canonicalize"> {
  let summary = "Put every Axe layout into canonical form";
  let description = [{
    Rewrites every `#axe.layout` attribute reachable from the operation —
    as an attribute or nested in a type such as `!axe.tensor` — into its
    canonical form (the Axe paper's Appendix A: drop unit iters (D0), merge
    chained shard iters (D1), and normalize the replica (C0–C2)). Canonical
    forms make equal maps print equally, so later passes and FileCheck lines
    can compare layouts textually where the gap condition holds.

    Before / after:

    ```mlir
    %a = axe.alloc : !axe.tensor<8x4xf32, shared, #axe.layout<(8, 1, 4) : (4, 7, 1)>>
    // becomes
    %a = axe.alloc : !axe.tensor<8x4xf32, shared, #axe.layout<(32) : (1)>>
    ```

    Then it folds Axe ops, to a fixpoint: a synchronous copy of a tensor onto
    itself is erased; a slice of a slice becomes one slice of the original;
    a fill of a fresh allocation that the next op touching it overwrites
    entirely is erased; a layout conversion between identical types into a
    fresh allocation that is only read afterwards is erased and the
    destination replaced by the source (refused when the source is written
    afterwards, since they would then share storage).

    The pass is idempotent; it never changes the map a layout induces.
  }];
}

def AxeSlice : Pass<"axe-slice"> {
  let summary = "Give region slices their layout L[R:S]";
  let description = [{
    Every `axe.slice` whose source has a layout gets the layout of the region
    it selects, computed by the Axe paper's Algorithm 4 (Appendix E, with the
    paper's errata corrected as listed in `layout/src/slice.rs`: the early
    exit fires on `rem = 1`, Lemma E.2's capacity condition is strict, and a
    one-wrap stride that spans two axes or is zero is refused): the sliced
    layout `L[R:S]`, whose offset is the source's value at the region's first
    element. Chains of slices compose: a slice of a slice is first folded into
    one slice of the original tensor. A region that admits no slice layout
    (neither of Theorem E.3's sufficient forms holds) is reported with a
    located error.

    Before / after:

    ```mlir
    %s = axe.slice %t [0 : 8, 8 : 24] : !axe.tensor<16x24xf16, shared, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x16xf16, shared, ?>
    // becomes
    %s = axe.slice %t [0 : 8, 8 : 24] : !axe.tensor<16x24xf16, shared, #axe.layout<(16, 24) : (24, 1)>> to !axe.tensor<8x16xf16, shared, #axe.layout<(8, 16) : (24, 1) + 8>>
    ```

    A slice whose result already has a layout is checked against `L[R:S]`.
  }];
}

def AxeInferLayout : Pass<"axe-infer-layout"> {
  let summary = "Fill every `?` layout from anchors and propagation";
  let description = [{
    Layout inference after Hexcute (§4–5), on Axe layouts:

    1. anchors: every `axe.gemm` fixes its register operands to the target's
       tensor-core atom (`mma.sync m16n8k16` fragments for sm_80/sm_90), tiled
       over the warps of the scope that runs it — on sm_90a with A and B in
       shared memory, wgmma's m64nNk16 D fragment, unless the accumulator is
       already laid out as a tiling of the mma.sync atom (the instruction
       follows the layout, paper §3.4); an accumulator that already has a
       layout keeps it where it tiles the atom, and A's and B's fragments
       follow from it;
    2. propagation to a fixpoint, largest copies first: a copy between a known
       layout and a `?` register tensor gives the register side a coalesced
       distribution vectorized by the known side's contiguity (16 bytes per
       access at most); pointwise ops and casts share the destination's
       layout and broadcast operands get its projection; `axe.reduce`
       projects its source (reduced thread iters become replicas); slices get
       `L[R:S]`. Shared memory cuts the dataflow;
    3. where two propagated layouts disagree on a pointwise operand or a gemm
       input, an `axe.convert_layout` into a fresh tensor is inserted and a
       remark says so;
    4. each `?` shared tensor gets, in the global tensor's dimension order,
       the compact, XOR-swizzled (`#axe.swizzle<B, M, S>`) or padded layout
       with the fewest bank-conflict wavefronts over all of its accesses
       (a remark reports the choice and the count);
    5. a tensor that nothing constrains, a `?` global tensor, or one whose
       type cannot change (used by a non-Axe op such as `func.return`) is a
       located error.

    ```mlir
    %acc = axe.alloc : !axe.tensor<32x16xf32, register, ?>
    axe.gemm %a, %b, %acc : ...
    // becomes, with 2 warps (2 x 1 over the atom grid):
    %acc = axe.alloc : !axe.tensor<32x16xf32, register, #axe.layout<...>>
    ```

    With `check-only`, nothing is inferred or rewritten: the pass verifies that
    the layouts present are consistent with every op (pointwise operands equal
    to the destination's layout or its projection, reductions projecting their
    source, slices holding `L[R:S]`, gemm register operands holding the
    mma.sync fragment tiling) and reports each inconsistency at its op.
  }];
  let options = [
    Option<"checkOnly", "check-only", "bool", "false",
           "Only verify that the layouts present are consistent with every op">,
  ];
}

def ConvertAxeToGPU : Pass<"convert-axe-to-gpu", "::mlir::ModuleOp"> {
  let summary = "Lower Axe kernels to gpu/scf/memref/vector/nvgpu";
  let description = [{
    Turns every `axe.kernel` into a `gpu.launch` whose thread and block ids
    feed the layouts: each operator becomes a schedule chosen from its
    operands' layouts and scope — vectorized loads/stores (16 bytes where the
    layouts are contiguous and aligned), cp.async for global→shared copies
    (one commit group per copy; `axe.wait outstanding N`), TMA for
    `schedule tma` copies on sm_90+ (a tensor map per global view, built on
    the host with `nvgpu.tma.create.descriptor` and passed to the kernel;
    boxes derived from the shared layout and its swizzle and checked against
    it element by element; an mbarrier per copy site, tokens as i32 barrier
    indices, also through `scf.for`; `axe.arrive` + `after` orders a copy
    behind every thread's arrival on an mbarrier), warp shuffles and a shared-memory
    exchange for reductions, ldmatrix + mma.sync m16n8k16 for gemms, and
    wgmma m64nNk16 on sm_90a when A and B are in shared memory and the
    accumulator has wgmma's D-fragment layout (`async`
    gemms leave their group in flight until an `axe.wait`) — with addresses
    computed by evaluating the layouts symbolically (plus run-time tile
    origins and XOR swizzles). Shared tensors beyond 48 KiB use dynamic
    shared memory. Tensors whose layout is still `?` are refused (run
    axe-infer-layout first), as is every unsupported case, with a located
    error.

    What lowers: `axe.kernel` (grid/threads, clusters) to `gpu.launch`;
    register tensors to per-thread `memref.alloca`, shared tensors to
    workgroup globals or dynamic shared memory; `axe.scope` (sliced ones
    under `scf.if`); `axe.copy`/`axe.convert_layout` between global, shared
    and register tensors; `axe.fill`; `axe.unary`/`axe.binary`
    (broadcasting)/`axe.cast` on register tensors; `axe.reduce` in-thread,
    across lanes (`gpu.shuffle xor`) and across warps; `axe.gemm`;
    `axe.barrier cta|warp|thread`; `axe.wait`; `schedule ldmatrix` copies
    (shared → registers, when the register pairs are ldmatrix's 8x8
    matrices); register layout conversions that move elements between
    threads, through a shared scratch buffer with warp or CTA barriers.
    Device meshes (`axe.mesh`, paper §3.2), SPMD: the function gains the
    rank and a peer table per symmetric buffer reached on a peer; at mesh
    level, `axe.reduce sum` over the gpuid-sharded dimension (reduce-scatter,
    all-reduce) and `axe.copy` between distributed layouts; `axe.kernel` in a
    mesh, where a distributed tensor sliced to one device is that device's
    buffer (addressed through the peer table like a local one),
    `axe.device_id` is the rank, and `axe.signal` / `axe.signal_wait` order
    CTAs across devices (release store after a CTA barrier and a
    system-scope fence; acquire-load spin, then a CTA barrier); a TMA store
    into a peer's memory is one-dimensional bulk copies
    (`cp.async.bulk.global.shared::cta`) of the runs both layouts share,
    waited for reading only, their writes completed by the unit's next
    `axe.signal` and at the kernel's exit.
    Warp specialization (paper §4.1): sliced scopes are the roles (a slice
    counts units within the enclosing scope's unit); `axe.mbarrier` is an
    mbarrier of the CTA initialized with its arrival count, a TMA copy
    `barrier %b` is issued by the first thread of each executing unit with
    `mbarrier.arrive.expect_tx` on it, `axe.mbarrier_wait` is a try_wait loop
    on the given phase parity (safe in divergent roles), `axe.mbarrier_arrive`
    one arrival per thread; `axe.set_max_registers` is setmaxnreg (increase or
    decrease against the launch allocation); `axe.barrier warpgroup` is the
    warpgroup's named barrier (`bar.sync 1 + w, 128`), which also brackets
    a TMA store issued at warpgroup scope.
    Clusters (sm_90): `gpu.launch` with `clusters`; a clustered kernel with
    barriers synchronizes its cluster (`barrier.cluster` arrive and wait)
    after initializing them and before it exits; `axe.unit_id cta in_cluster`
    and `cluster` come from the block id; `axe.copy ... multicast [d]` splits
    the tile's TMA boxes among the CTAs that share it and sends each with
    their CTA mask (`.multicast::cluster`), each CTA expecting the whole
    tile's bytes on its barrier; `axe.mbarrier_arrive %b cta %r` arrives on
    the peer's barrier through `mapa`; `axe.barrier cluster` is
    `barrier.cluster` (a CTA barrier without clusters).
    Refused with a located error: other ops in a mesh,
    kernel operands spread over several devices, TMA loads from a peer's
    memory, TMA stores into a peer's memory whose runs are not 16-byte
    units, flags and mbarriers when emulating on the CPU, CTA barriers
    inside sliced scopes,
    reductions across CTAs, layouts without a common mixed-radix
    refinement, register layouts whose lane/warp iters overlap, TMA sources
    that are not strided views of a kernel argument and destinations no TMA
    box tiling writes.

    With `emulate-threads-on-cpu`, the launch becomes `scf.for` loops over
    block and thread ids (register tensors get one row per thread, top-level
    CTA barriers split the body into phases, each its own loop over the
    threads: a value a later phase uses is recomputed there when it is
    arithmetic, a unit or device id or a slice, and refused otherwise), so
    the per-thread code runs on the CPU; waits do nothing, reducing TMA
    stores add in place, and warp shuffles, mbarriers, signals and nested
    barriers are refused in that mode.
  }];
  let options = [
    Option<"emulateThreadsOnCpu", "emulate-threads-on-cpu", "bool", "false",
           "Lower to loops over block and thread ids instead of gpu.launch "
           "(a test mode: the per-thread code runs on the CPU)">,
    Option<"chip", "chip", "std::string", "\"\"",
           "The chip the code is compiled for (sm_80, sm_90, sm_90a, sm_100; "
           "empty: not checked). A module whose #axe.target needs a newer or "
           "another arch-specific chip is refused with an error at the module">
  ];
  let dependentDialects = ["::mlir::gpu::GPUDialect", "::mlir::scf::SCFDialect",
                           "::mlir::memref::MemRefDialect", "::mlir::arith::ArithDialect",
                           "::mlir::vector::VectorDialect", "::mlir::nvgpu::NVGPUDialect",
                           "::mlir::NVVM::NVVMDialect", "::mlir::math::MathDialect",
                           "::mlir::func::FuncDialect"];
}

def AxeLowerToNVVM : Pass<"axe-lower-to-nvvm", "::mlir::ModuleOp"> {
  let summary = "Lower convert-axe-to-gpu's output to NVVM and PTX for the module's chip";
  let description = [{
    The second half of `axe-to-nvvm-pipeline`: upstream's GPU-to-NVVM
    pipeline (the one `gpu-lower-to-nvvm-pipeline` registers: kernel
    outlining, `nvvm-attach-target`, `convert-gpu-to-nvvm`, `gpu-to-llvm`,
    `gpu-module-to-binary`) with the PTX ("isa") binary format, run on the
    module as a dynamic pipeline so that the chip can come from the module:
    `chip` when given, else the module's `#axe.target` (a module without one
    needs `chip`). A chip that the module's target does not run on is
    refused by `convert-axe-to-gpu` before this pass.

    Between outlining and the rest of upstream's pipeline, a kernel whose
    warpgroups hand registers to each other (`axe.set_max_registers`, as in
    the paper's warp-specialized Hopper GEMM, §4.1) gets `nvvm.minctasm = 1`
    (PTX `.minnctapersm 1`): with only `.maxntid`, ptxas cannot tell how many
    registers each thread starts with, may drop the `setmaxnreg`s (C7508)
    and compile the kernel within the launch count (168 for 384 threads).
  }];
  let options = [
    Option<"chip", "chip", "std::string", "\"\"",
           "Target SM (nvvm-attach-target chip); empty: the module's #axe.target">,
    Option<"features", "features", "std::string", "\"+ptx80\"",
           "PTX features (nvvm-attach-target features)">,
    Option<"barePtr", "bare-ptr-call-conv", "bool", "true",
           "Pass each memref to the kernel as one bare pointer">,
    Option<"optLevel", "opt-level", "int", "2",
           "LLVM optimization level for the kernel">
  ];
}

#endif // AXE_PASSES_TD
