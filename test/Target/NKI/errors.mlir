// Every refusal of axe-to-nki is a located diagnostic (and a failed translation).
// RUN: axe-translate --axe-to-nki --split-input-file --verify-diagnostics %s
// RUN: not axe-translate --axe-to-nki %S/Inputs/gemm-errors-input.mlir 2>&1 | FileCheck %s --check-prefix=EXIT
// EXIT: gemm-errors-input.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'axe.gemm' op axe-to-nki: TensorE contracts over the partition axis, but no K iter is on P in both A

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %a = axe.alloc : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %b = axe.alloc : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %c = axe.alloc : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    // expected-error @+1 {{no K iter is on P in both A}}
    axe.gemm %a, %b, %c : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %a = axe.alloc : !axe.tensor<128x64xf16, sbuf, #axe.layout<(128, 64) : (1@F, 2@P)>>
    %b = axe.alloc : !axe.tensor<64x128xf16, sbuf, #axe.layout<(64, 128) : (1@P, 1@F)>>
    %c = axe.alloc : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    // expected-error @+1 {{placed differently on the partition axis}}
    axe.gemm %a, %b, %c : !axe.tensor<128x64xf16, sbuf, #axe.layout<(128, 64) : (1@F, 2@P)>>, !axe.tensor<64x128xf16, sbuf, #axe.layout<(64, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %a = axe.alloc : !axe.tensor<16x128xf16, sbuf, #axe.layout<(16, 128) : (1@F, 1@P)>>
    %b = axe.alloc : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %c = axe.alloc : !axe.tensor<16x128xf32, psum, #axe.layout<(16, 128) : (128@F, 1@F)>>
    // expected-error @+1 {{no M iter is on the free axis of A and the partition axis of C}}
    axe.gemm %a, %b, %c : !axe.tensor<16x128xf16, sbuf, #axe.layout<(16, 128) : (1@F, 1@P)>>, !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<16x128xf32, psum, #axe.layout<(16, 128) : (128@F, 1@F)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %a = axe.alloc : !axe.tensor<128x64xf16, sbuf, #axe.layout<(128, 64) : (1@F, 1@P)>>
    %b = axe.alloc : !axe.tensor<64x2xf16, sbuf, #axe.layout<(64, 2) : (1@P, 64@P)>>
    %c = axe.alloc : !axe.tensor<128x2xf32, psum, #axe.layout<(128, 2) : (1@P, 1@F)>>
    // expected-error @+1 {{no N iter is on the free axis of both B and C}}
    axe.gemm %a, %b, %c : !axe.tensor<128x64xf16, sbuf, #axe.layout<(128, 64) : (1@F, 1@P)>>, !axe.tensor<64x2xf16, sbuf, #axe.layout<(64, 2) : (1@P, 64@P)>>, !axe.tensor<128x2xf32, psum, #axe.layout<(128, 2) : (1@P, 1@F)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %a = axe.alloc : !axe.tensor<128x128xf16, psum, #axe.layout<(128, 128) : (1@F, 1@P)>>
    %b = axe.alloc : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %c = axe.alloc : !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    // expected-error @+1 {{operand A is in psum}}
    axe.gemm %a, %b, %c : !axe.tensor<128x128xf16, psum, #axe.layout<(128, 128) : (1@F, 1@P)>>, !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf32, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %a = axe.alloc : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@F, 1@P)>>
    %b = axe.alloc : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>
    %c = axe.alloc : !axe.tensor<128x128xf16, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    // expected-error @+1 {{C must be f32}}
    axe.gemm %a, %b, %c : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@F, 1@P)>>, !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@P, 1@F)>>, !axe.tensor<128x128xf16, psum, #axe.layout<(128, 128) : (1@P, 1@F)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %a = axe.alloc : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@F, 1@P)>>
    %b = axe.alloc : !axe.tensor<128x512xf16, sbuf, #axe.layout<(128, 512) : (1@P, 1@F)>>
    %c = axe.alloc : !axe.tensor<128x512xf32, psum, #axe.layout<(128, 512) : (1@P, 1@F) + 256@F>>
    // expected-error @+1 {{crossing a 2 KiB PSUM bank}}
    axe.gemm %a, %b, %c : !axe.tensor<128x128xf16, sbuf, #axe.layout<(128, 128) : (1@F, 1@P)>>, !axe.tensor<128x512xf16, sbuf, #axe.layout<(128, 512) : (1@P, 1@F)>>, !axe.tensor<128x512xf32, psum, #axe.layout<(128, 512) : (1@P, 1@F) + 256@F>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    // expected-error @+1 {{PSUM has 16384 (8 banks of 2 KiB)}}
    %c = axe.alloc : !axe.tensor<128x8192xf32, psum, #axe.layout<(128, 8192) : (1@P, 1@F)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  // expected-error @+1 {{HBM tensors must be row-major}}
  func.func @k(%a: !axe.tensor<64x64xf32, global, #axe.layout<(64, 64) : (1, 64)>>) {
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k(%a: !axe.tensor<128x64xf32, global, #axe.layout<(128, 64) : (64, 1)>>) {
    %s = axe.alloc : !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P)>>
    // expected-error @+1 {{needs a transposed store}}
    axe.copy %s, %a : !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@F, 1@P)>>, !axe.tensor<128x64xf32, global, #axe.layout<(128, 64) : (64, 1)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %s = axe.alloc : !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F)>>
    %m = axe.alloc : !axe.tensor<1x64xf32, sbuf, #axe.layout<(1, 64) : (1@P, 1@F)>>
    // expected-error @+1 {{reductions run along the free axis only}}
    axe.reduce max %s, %m dims [0] : !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F)>>, !axe.tensor<1x64xf32, sbuf, #axe.layout<(1, 64) : (1@P, 1@F)>>
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"trn1">} {
  func.func @k() {
    %s = axe.alloc : !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F)>>
    // expected-error @+1 {{kind 'log' is not in the supported NKI subset}}
    axe.unary log %s, %s : !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F)>>, !axe.tensor<128x64xf32, sbuf, #axe.layout<(128, 64) : (1@P, 1@F)>>
    return
  }
}

// -----

// expected-error @+1 {{axe.target = #axe.target<"trn1">}}
module {
  func.func @k() {
    return
  }
}
