// Global tensors at function boundaries cross as their buffers: memref<span x elt>.
// RUN: axe-opt %s --convert-axe-to-gpu --split-input-file --verify-diagnostics | FileCheck %s

// A tensor argument becomes its buffer (the span of (16, 24) : (24, 1) is 384 elements); the
// body views it again, so the kernel addresses the argument directly. Returning a view of the
// argument's buffer returns the buffer; a call passes the caller's buffer and views the result.
// CHECK-LABEL: func.func @scale(%{{.*}}: memref<384xf32>) -> memref<384xf32>
// CHECK: gpu.launch
// CHECK: memref.load %[[ARG:.*]][%{{.*}}] : memref<384xf32>
// CHECK: return %{{.*}} : memref<384xf32>
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[BUF:.*]]: memref<384xf32>)
// CHECK: %[[R:.*]] = call @scale(%[[BUF]]) : (memref<384xf32>) -> memref<384xf32>
// CHECK: gpu.launch
// CHECK: memref.store %{{.*}}, %[[R]][%{{.*}}] : memref<384xf32>
// CHECK-NOT: axe.{{(view|alloc|copy|fill|kernel)}}
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @scale(%t: !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>) -> !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>> {
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<16x24xf32, register, #axe.layout<(16, 24) : (1@lane, 1@reg)>>
      axe.copy %t, %r : !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>, !axe.tensor<16x24xf32, register, #axe.layout<(16, 24) : (1@lane, 1@reg)>>
      %two = arith.constant 2.0 : f32
      axe.fill %r, %two : !axe.tensor<16x24xf32, register, #axe.layout<(16, 24) : (1@lane, 1@reg)>>, f32
      axe.copy %r, %t : !axe.tensor<16x24xf32, register, #axe.layout<(16, 24) : (1@lane, 1@reg)>>, !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>
    }
    return %t : !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>
  }
  func.func @caller(%buf: memref<384xf32>) {
    %v = axe.view %buf : memref<384xf32> to !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>
    %w = func.call @scale(%v) : (!axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>) -> !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>
    axe.kernel grid [1] threads [32] {
      %r = axe.alloc : !axe.tensor<16x24xf32, register, #axe.layout<(16, 24) : (1@lane, 1@reg)>>
      %one = arith.constant 1.0 : f32
      axe.fill %r, %one : !axe.tensor<16x24xf32, register, #axe.layout<(16, 24) : (1@lane, 1@reg)>>, f32
      axe.copy %r, %w : !axe.tensor<16x24xf32, register, #axe.layout<(16, 24) : (1@lane, 1@reg)>>, !axe.tensor<16x24xf32, global, #axe.layout<(16, 24) : (24, 1)>>
    }
    return
  }
}

// -----

// A column-major 16x24 view with a padded leading dimension (20 >= 16):
// (16, 24) : (1, 20) reaches offset 15 + 23 * 20 = 475, so its buffer is memref<476xf16>.
// CHECK-LABEL: func.func @padded(%{{.*}}: memref<476xf16>)
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @padded(%t: !axe.tensor<16x24xf16, global, #axe.layout<(16, 24) : (1, 20)>>) {
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  // expected-error @+1 {{!axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>> cannot cross a function boundary: only global tensors can (shared and register tensors live inside a kernel)}}
  func.func @shared_arg(%t: !axe.tensor<64xf32, shared, #axe.layout<(64) : (1)>>) {
    return
  }
}

// -----

module attributes {axe.target = #axe.target<"sm_90">} {
  // expected-error @+1 {{crosses a function boundary with layout '?': run axe-infer-layout first}}
  func.func @unknown(%t: !axe.tensor<64xf32, global, ?>) {
    return
  }
}

// -----

// Returning a view of a buffer larger than the result's span: the result's buffer type
// cannot be that buffer.
module attributes {axe.target = #axe.target<"sm_90">} {
  func.func @too_big(%buf: memref<128xf32>) -> !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>> {
    %v = axe.view %buf : memref<128xf32> to !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
    // expected-error @+1 {{this tensor is a view of memref<128xf32>, but it crosses the function boundary as memref<64xf32>: pass a view of the whole buffer}}
    return %v : !axe.tensor<64xf32, global, #axe.layout<(64) : (1)>>
  }
}
