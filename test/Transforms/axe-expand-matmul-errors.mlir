// axe-expand-matmul needs the complete schedule axe-matmul-schedule writes.
// RUN: axe-opt %s --axe-expand-matmul --verify-diagnostics

module attributes {axe.target = #axe.target<"sm_90a">} {
  func.func @unscheduled(%a: memref<16384xf16> {axe.align = 16 : i64}, %b: memref<16384xf16> {axe.align = 16 : i64}, %c: memref<16384xf16> {axe.align = 16 : i64}) {
    %A = axe.view %a : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    %B = axe.view %b : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    %C = axe.view %c : memref<16384xf16> to !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    // expected-error @+1 {{'axe.matmul' op has no complete #axe.matmul_schedule: run axe-matmul-schedule first}}
    axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<tile_n = 64>} : !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>, !axe.tensor<128x128xf16, global, #axe.layout<(128, 128) : (128, 1)>>
    return
  }
}
