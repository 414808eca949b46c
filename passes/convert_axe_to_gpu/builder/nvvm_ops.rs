//! [`B`]'s builders of the `nvvm` dialect: bulk copies and reductions, proxy fences, mbarriers, clusters, cp.async, setmaxnreg, wgmma.

use super::*;
use axe_upstream_ods::nvvm;
use melior::ir::attribute::IntegerAttribute;
use melior::ir::Attribute;

impl B {
    /// `cp.reduce.async.bulk.global.shared::cta.bulk_group{op} [dst], [src], bytes`: the TMA
    /// unit reads `bytes` from the shared address `src` (i32, the shared window) and combines
    /// them into global memory at `dst` (i64); `op` is the PTX reduction suffix
    /// (`.add.noftz.f16`, `.add.f32`, ...). Inline PTX: the NVVM dialect has only the tensor
    /// form (`nvvm.cp.async.bulk.tensor.reduce`), which needs a tensor map.
    pub fn cp_reduce_async_bulk_shared_to_global(&self, op: &str, dst: MlirValue, src: MlirValue, bytes: i64) {
        let asm = format!("cp.reduce.async.bulk.global.shared::cta.bulk_group{op} [$0], [$1], {bytes};");
        self.inline_asm_void(&asm, "l,r,~{memory}", &[dst, src]);
    }

    /// `nvvm.fence.proxy` of kind `async.shared` in the CTA's shared space
    /// (`fence.proxy.async.shared::cta`): this thread's generic-proxy writes to shared memory
    /// become visible to the async proxy (TMA, wgmma) that reads them next.
    pub fn fence_proxy_async_shared(&self) {
        let kind = self.attr("#nvvm.proxy_kind<async.shared>");
        let space = self.attr("#nvvm.shared_space<cta>");
        self.build(|c, l| {
            nvvm::FenceProxyOperation::builder(c, l)
                .kind(Self::attribute(kind))
                .space(Self::attribute(space))
                .build()
        });
    }

    /// `nvvm.fence.proxy` of kind `async.global` (`fence.proxy.async.global`): orders this
    /// thread's generic-proxy accesses to global memory (an acquire that made another CTA's
    /// writes visible) before the async-proxy accesses (TMA loads) it issues next.
    pub fn fence_proxy_async_global(&self) {
        let kind = self.attr("#nvvm.proxy_kind<async.global>");
        self.build(|c, l| {
            nvvm::FenceProxyOperation::builder(c, l)
                .kind(Self::attribute(kind))
                .build()
        });
    }

    /// `nvvm.fence.mbarrier.init`.
    pub fn fence_mbarrier_init(&self) {
        self.build(nvvm::fence_mbarrier_init);
    }

    /// `nvvm.mbarrier.init %bar, %count`.
    pub fn mbarrier_init(&self, bar: MlirValue, count: MlirValue) {
        // SAFETY: live values visible here (module and builder contracts).
        self.build(|c, l| unsafe { nvvm::mbarrier_init(c, value(bar), value(count), l) });
    }

    /// `nvvm.mbarrier.arrive %bar` (no result: the arrival's state is not used).
    pub fn mbarrier_arrive(&self, bar: MlirValue) {
        // SAFETY: `bar` is a live value visible here (module and builder contracts).
        self.build(|c, l| nvvm::mbarrier_arrive(c, unsafe { value(bar) }, l));
    }

    /// `nvvm.cluster.arrive` (barrier.cluster.arrive: release).
    pub fn cluster_arrive(&self) {
        self.build(nvvm::cluster_arrive);
    }

    /// `nvvm.cluster.wait` (barrier.cluster.wait: acquire).
    pub fn cluster_wait(&self) {
        self.build(nvvm::cluster_wait);
    }

    /// `nvvm.mapa %ptr, %rank : ... -> t`: the address of `ptr`'s bytes in the shared memory
    /// of the cluster's CTA of rank `rank` (an i32).
    pub fn mapa(&self, ptr: MlirValue, rank: MlirValue, t: MlirType) -> MlirValue {
        // SAFETY: live values visible here (module and builder contracts).
        self.build_value(|c, l| unsafe { nvvm::mapa(c, Self::type_(t), value(ptr), value(rank), l) })
    }

    /// `nvvm.mbarrier.arrive.expect_tx %bar, %bytes` (no result).
    pub fn mbarrier_arrive_expect_tx(&self, bar: MlirValue, bytes: MlirValue) {
        // SAFETY: live values visible here (module and builder contracts).
        self.build(|c, l| unsafe { nvvm::mbarrier_arrive_expect_tx(c, value(bar), value(bytes), l) });
    }

    /// `nvvm.mbarrier.try_wait %bar, %phase, %ticks -> i1`.
    pub fn mbarrier_try_wait(&self, bar: MlirValue, phase: MlirValue, ticks: MlirValue) -> MlirValue {
        let i1 = self.int_type(1);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (bar, phase, ticks) = unsafe { (value(bar), value(phase), value(ticks)) };
            nvvm::MBarrierTryWaitOperation::builder(c, l)
                .res(Self::type_(i1))
                .addr(bar)
                .state_or_phase(phase)
                .ticks(ticks)
                .build()
        })
    }

    /// `nvvm.mbarrier.try_wait.parity %bar, %phase, %ticks` (a loop until the phase completes).
    pub fn mbarrier_try_wait_parity(&self, bar: MlirValue, phase: MlirValue, ticks: MlirValue) {
        // SAFETY: live values visible here (module and builder contracts).
        self.build(|c, l| unsafe { nvvm::mbarrier_try_wait_parity(c, value(bar), value(phase), value(ticks), l) });
    }

    /// `nvvm.prefetch tensormap, %ptr`.
    pub fn prefetch_tensormap(&self, ptr: MlirValue) {
        self.build(|c, l| {
            // SAFETY: `ptr` is a live value visible here (module and builder contracts).
            nvvm::PrefetchOperation::builder(c, l)
                .addr(unsafe { value(ptr) })
                .tensormap(Attribute::unit(c))
                .build()
        });
    }

    /// `nvvm.bar.warp.sync %mask`.
    pub fn bar_warp_sync(&self, mask: MlirValue) {
        // SAFETY: `mask` is a live value visible here (module and builder contracts).
        self.build(|c, l| nvvm::bar_warp_sync(c, unsafe { value(mask) }, l));
    }

    /// `nvvm.cp.async.shared.global %dst, %src, size, cache = modifier[, %src_bytes]`: with
    /// `src_bytes` (an `i32`), only that many bytes are read and the rest of the `size` bytes
    /// are zero-filled (PTX's `src-size`: 0 reads nothing, a predicated-off access).
    pub fn cp_async_shared_global(
        &self,
        dst: MlirValue,
        src: MlirValue,
        size: i64,
        modifier: MlirAttribute,
        src_bytes: Option<MlirValue>,
    ) {
        let i32t = self.int_type(32);
        self.build(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (dst, src) = unsafe { (value(dst), value(src)) };
            let size = IntegerAttribute::new(Self::type_(i32t), size);
            let b = nvvm::CpAsyncOperation::builder(c, l)
                .dst(dst)
                .src(src)
                .size(size)
                .modifier(Self::attribute(modifier));
            match src_bytes {
                // SAFETY: as above.
                Some(n) => b.cp_size(unsafe { value(n) }).build(),
                None => b.build(),
            }
        });
    }

    /// `nvvm.cp.async.commit.group`.
    pub fn cp_async_commit_group(&self) {
        self.build(nvvm::cp_async_commit_group);
    }

    /// `nvvm.cp.async.wait.group n`.
    pub fn cp_async_wait_group(&self, n: i64) {
        // An `n` beyond `i32` (the verifier bounds it to [0, 2^31)) is built as an `i64`, for
        // the op's verifier to report, not truncated.
        let t = self.int_type(if i32::try_from(n).is_ok() { 32 } else { 64 });
        self.build(|c, l| nvvm::cp_async_wait_group(c, IntegerAttribute::new(Self::type_(t), n), l));
    }

    /// `nvvm.cp.async.bulk.commit.group`.
    pub fn cp_async_bulk_commit_group(&self) {
        self.build(nvvm::cp_async_bulk_commit_group);
    }

    /// `nvvm.cp.async.bulk.wait_group group`.
    pub fn cp_async_bulk_wait_group(&self, group: i32) {
        let i32t = self.int_type(32);
        self.build(|c, l| {
            nvvm::cp_async_bulk_wait_group(c, IntegerAttribute::new(Self::type_(i32t), i64::from(group)), l)
        });
    }

    /// `nvvm.cp.async.bulk.wait_group group {read}`: waits until at most `group` of the
    /// thread's bulk async-groups are still reading their source (the shared tile is free
    /// again); their writes may still be in flight.
    pub fn cp_async_bulk_wait_group_read(&self, group: i32) {
        let i32t = self.int_type(32);
        self.build(|c, l| {
            nvvm::CpAsyncBulkWaitGroupOperation::builder(c, l)
                .group(IntegerAttribute::new(Self::type_(i32t), i64::from(group)))
                .read(melior::ir::attribute::Attribute::unit(c))
                .build()
        });
    }

    /// `nvvm.cp.async.bulk.global.shared.cta %dst, %src, %bytes`: a one-dimensional bulk copy
    /// (the TMA unit) of `bytes` (an `i32`, a multiple of 16) from shared memory (`ptr<3>`) to
    /// global memory (`ptr<1>`, any device's address the GPU can reach). By name, not through
    /// `axe_upstream_ods`: an op with `AttrSizedOperandSegments` (see [`B::op`]).
    pub fn cp_async_bulk_shared_to_global(&self, dst: MlirValue, src: MlirValue, bytes: MlirValue) {
        let seg = self.i32_array(&[1, 1, 1, 0, 0]);
        self.op(
            "nvvm.cp.async.bulk.global.shared.cta",
            &[dst, src, bytes],
            &[],
            &[("operandSegmentSizes", seg)],
            vec![],
        );
    }

    /// `nvvm.setmaxregister action regCount` (`action` is `increase` or `decrease`).
    pub fn setmaxregister(&self, action: &str, count: i64) {
        let i32t = self.int_type(32);
        let action = self.attr(&format!("#nvvm<action {action}>"));
        self.build(|c, l| {
            let count = IntegerAttribute::new(Self::type_(i32t), count);
            nvvm::setmaxregister(c, count, Self::attribute(action), l)
        });
    }

    /// `nvvm.wgmma.fence.aligned`.
    pub fn wgmma_fence_aligned(&self) {
        self.build(nvvm::wgmma_fence_aligned);
    }

    /// `nvvm.wgmma.commit.group.sync.aligned`.
    pub fn wgmma_commit_group_sync_aligned(&self) {
        self.build(nvvm::wgmma_commit_group_sync_aligned);
    }

    /// `nvvm.wgmma.wait.group.sync.aligned group`.
    pub fn wgmma_wait_group_sync_aligned(&self, group: i64) {
        let i64t = self.int_type(64);
        self.build(|c, l| nvvm::wgmma_wait_group_sync_aligned(c, IntegerAttribute::new(Self::type_(i64t), group), l));
    }

    /// `nvvm.wgmma.mma_async %inouts, %descriptor_a, %descriptor_b` with `attrs`: the
    /// accumulator struct after one warpgroup MMA.
    pub fn wgmma_mma_async(
        &self,
        inouts: MlirValue,
        descriptor_a: MlirValue,
        descriptor_b: MlirValue,
        attrs: &WgmmaAttrs,
    ) -> MlirValue {
        let t = ir::value_type(inouts);
        let a = |x: MlirAttribute| Self::attribute(x);
        self.build_value(|c, l| {
            // SAFETY: live values visible here (module and builder contracts).
            let (inouts, da, db) = unsafe { (value(inouts), value(descriptor_a), value(descriptor_b)) };
            nvvm::WgmmaMmaAsyncOperation::builder(c, l)
                .results(Self::type_(t))
                .inouts(inouts)
                .descriptor_a(da)
                .descriptor_b(db)
                .shape(a(attrs.shape))
                .type_a(a(attrs.type_a))
                .type_b(a(attrs.type_b))
                .type_d(a(attrs.type_d))
                .scale_d(a(attrs.scale_d))
                .scale_a(a(attrs.scale_a))
                .scale_b(a(attrs.scale_b))
                .layout_a(a(attrs.layout_a))
                .layout_b(a(attrs.layout_b))
                .build()
        })
    }
}
