// axe-expand-attention's refusals: each a located error naming what the kernel cannot run.
// RUN: axe-opt %s --axe-expand-attention --split-input-file --verify-diagnostics

// Head dimension 96: the kernel has 64 and 128.
!q = !axe.tensor<256x192xf16, global, #axe.layout<(256, 192) : (192, 1)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @head_dim(%q: memref<49152xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<49152xf16> to !q
    // expected-error @+1 {{'axe.attention' op cannot expand: head dimension 96 (the kernel has 64, 128 and 256)}}
    axe.attention %Q, %Q, %Q, %Q {heads = 2, seq_len = 256} : !q, !q, !q, !q
    return
  }
}

// -----

// Four stages of 128 keys at D = 128 need 288 KiB of shared memory.
!q = !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @stages(%q: memref<32768xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<32768xf16> to !q
    // expected-error @+1 {{the Q tile and 4 K/V stages need 294912 bytes of shared memory; the target has}}
    axe.attention %Q, %Q, %Q, %Q {heads = 1, seq_len = 256, stages = 4} : !q, !q, !q, !q
    return
  }
}

// -----

// sm_80 has no wgmma.
!q = !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
module attributes {axe.target = #axe.target<"sm_80">} {
  func.func @target(%q: memref<32768xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<32768xf16> to !q
    // expected-error @+1 {{'axe.attention' op expands to a wgmma kernel, which target sm_80 does not have (sm_90a)}}
    axe.attention %Q, %Q, %Q, %Q {heads = 1, seq_len = 256} : !q, !q, !q, !q
    return
  }
}

// -----

// A row stride TMA cannot address: 129 f16 elements is not a multiple of 16 bytes.
!q = !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (129, 1)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @stride(%q: memref<33024xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<33024xf16> to !q
    // expected-error @+1 {{'axe.attention' op Q has layout}}
    axe.attention %Q, %Q, %Q, %Q {heads = 1, seq_len = 256} : !q, !q, !q, !q
    return
  }
}

// -----

// block_n must be 64 or 128.
!q = !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @block_n(%q: memref<32768xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<32768xf16> to !q
    // expected-error @+1 {{'axe.attention' op cannot expand: block_n 96 must be 64 or 128}}
    axe.attention %Q, %Q, %Q, %Q {heads = 1, seq_len = 256, block_n = 96} : !q, !q, !q, !q
    return
  }
}

// -----

!q = !axe.tensor<256x128xf16, global, #axe.layout<(256, 128) : (128, 1)>>
module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @no_stages(%q: memref<32768xf16> {axe.align = 16 : i64}) {
    %Q = axe.view %q : memref<32768xf16> to !q
    // expected-error @+1 {{'axe.attention' op cannot expand: stages 0 (1 to 4)}}
    axe.attention %Q, %Q, %Q, %Q {heads = 1, seq_len = 256, stages = 0} : !q, !q, !q, !q
    return
  }
}
