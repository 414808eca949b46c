// All-gather over a mesh of 4 devices: X is sharded by rows (rank g holds rows 16g..16g+15 of
// a 64x64 f16 matrix), Y is replicated; every rank pulls each row block from its owner through
// the peer table of X. test/gpu/mesh_sim.py runs it with 4 simulated ranks on one GPU.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @mesh_all_gather(%xbuf: memref<1024xf16>, %ybuf: memref<4096xf16>) {
    axe.mesh [4] {
      %X = axe.view %xbuf : memref<1024xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>
      %Y = axe.view %ybuf : memref<4096xf16> to !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1) + [(4) : (1@gpuid)]>>
      axe.copy %X, %Y : !axe.tensor<64x64xf16, global, #axe.layout<(4, 16, 64) : (1@gpuid, 64, 1)>>, !axe.tensor<64x64xf16, global, #axe.layout<(64, 64) : (64, 1) + [(4) : (1@gpuid)]>>
    }
    return
  }
}
