// Malformed layouts and types: each gets a diagnostic at the offending token.
// RUN: axe-opt %s --split-input-file --verify-diagnostics --allow-unregistered-dialect

// expected-error @+1 {{extent must be positive, got 0}}
"test.op"() {l = #axe.layout<(0) : (1)>} : () -> ()

// -----

// expected-error @+1 {{extent must be positive, got -3}}
"test.op"() {l = #axe.layout<(-3) : (1)>} : () -> ()

// -----

// expected-error @+1 {{stride must be non-zero}}
"test.op"() {l = #axe.layout<(4) : (0@lane)>} : () -> ()

// -----

// expected-error @+1 {{layout has 2 extents but 1 strides}}
"test.op"() {l = #axe.layout<(4, 2) : (1@lane)>} : () -> ()

// -----

// expected-error @+1 {{expected an axis name after '@'}}
"test.op"() {l = #axe.layout<(4) : (1@)>} : () -> ()

// -----

// expected-error @+1 {{expected an axis name after '@', found '3'}}
"test.op"() {l = #axe.layout<(4) : (1@3x)>} : () -> ()

// -----

// An unknown token.
// expected-error @+1 {{unexpected '$' after layout}}
"test.op"() {l = #axe.layout<(4) : (1) $>} : () -> ()

// -----

// expected-error @+1 {{expected an integer extent, found 'x'}}
"test.op"() {l = #axe.layout<(x) : (1)>} : () -> ()

// -----

// 2^70 does not fit in 64 bits.
// expected-error @+1 {{integer 1180591620717411303424 does not fit in 64 bits}}
"test.op"() {l = #axe.layout<(1180591620717411303424) : (1)>} : () -> ()

// -----

// The product of extents overflows i64.
// expected-error @+1 {{product of extents overflows 64-bit integers}}
"test.op"() {l = #axe.layout<(9223372036854775807, 4) : (1, 1)>} : () -> ()

// -----

// expected-error @+1 {{extent times stride overflows 64-bit integers}}
"test.op"() {l = #axe.layout<(4) : (4611686018427387904)>} : () -> ()

// -----

// Unbalanced brackets: the replica is never closed (MLIR's lexer sees it first).
// expected-error @+1 {{unbalanced '[' character in pretty dialect name}}
"test.op"() {l = #axe.layout<(4) : (1) + [(2) : (3@lane)>} : () -> ()

// -----

// A missing parenthesis inside balanced brackets reaches the layout grammar.
// expected-error @+1 {{expected ')' in layout, found '2'}}
"test.op"() {l = #axe.layout<(4 2) : (1, 1)>} : () -> ()

// -----

// expected-error @+1 {{an empty replica '[() : ()]' is not allowed; omit it}}
"test.op"() {l = #axe.layout<(4) : (1) + [() : ()]>} : () -> ()

// -----

// expected-error @+1 {{the replica '[…]' must come once, right after the shard}}
"test.op"() {l = #axe.layout<(4) : (1) + 2 + [(2) : (1@warp)]>} : () -> ()

// -----

// expected-error @+1 {{unknown Axe attribute 'lay<(4) : (1)>'}}
"test.op"() {l = #axe.lay<(4) : (1)>} : () -> ()

// -----

// The shape must be admitted: 16x24 has 384 elements, the layout 256.
// expected-error @+1 {{layout #axe.layout<(16, 16) : (16, 1)> of 256 elements does not admit shape with 384 elements}}
func.func private @f(!axe.tensor<16x24xf16, global, #axe.layout<(16, 16) : (16, 1)>>)

// -----

// expected-error @+1 {{unknown memory scope 'texture'}}
func.func private @f(!axe.tensor<16xf16, texture, ?>)

// -----

// expected-error @+1 {{expected an #axe.layout or '?'}}
func.func private @f(!axe.tensor<16xf16, global, 3 : i32>)

// -----

// expected-error @+1 {{tensor element type must be an integer or float}}
func.func private @f(!axe.tensor<16xindex, global, ?>)

// -----

// expected-error @+1 {{unknown Axe type 'tensr'}}
func.func private @f(!axe.tensr<16xf16, global, ?>)

// -----

func.func @view_elt(%b: memref<16xf32>) {
  // expected-error @+1 {{'axe.view' op element type 'f16' of the view differs from the memref's element type 'f32'}}
  %t = axe.view %b : memref<16xf32> to !axe.tensor<16xf16, global, ?>
  return
}

// -----

func.func @view_scope(%b: memref<16xf16>) {
  // expected-error @+1 {{'axe.view' op can only view memory in the global or shared scope, not 'register'}}
  %t = axe.view %b : memref<16xf16> to !axe.tensor<16xf16, register, ?>
  return
}

// -----

// expected-error @+1 {{only shared tensors can be swizzled, not register ones}}
func.func private @f(!axe.tensor<64xf16, register, ?, #axe.swizzle<3, 3, 3>>)

// -----

// A swizzle whose shift is below its width is not an involution.
// expected-error @+1 {{#axe.swizzle<3, 3, 1> must satisfy B >= 1, M >= 0, S >= B and M + B + S <= 30}}
func.func private @f(!axe.tensor<64xf16, shared, ?, #axe.swizzle<3, 3, 1>>)

// -----

// expected-error @+1 {{expected an #axe.swizzle<B, M, S>}}
func.func private @f(!axe.tensor<64xf16, shared, ?, 3 : i32>)
