//! Execution test of `convert-axe-to-gpu` on the CPU: kernels are lowered with
//! `emulate-threads-on-cpu=1` (every block and thread runs the per-thread code in loops),
//! JIT-compiled with melior's ExecutionEngine and run on random data; results are compared
//! with a reference computed in Rust from the layouts' definitions (axe-layout's `eval`).

mod common;

use axe::layout::Layout;
use common::{context, f16_to_f32, Buf};
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::parse_pass_pipeline;
use melior::{Context, ExecutionEngine};

const PIPELINE: &str = "builtin.module(convert-axe-to-gpu{emulate-threads-on-cpu=1},canonicalize,\
    convert-vector-to-scf,convert-scf-to-cf,convert-vector-to-llvm,expand-strided-metadata,\
    finalize-memref-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-index-to-llvm,\
    convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)";

/// Lowers `text` and runs function `name` on the 1-D memrefs `bufs` (each passed expanded:
/// allocated, aligned, offset, size, stride), after checking the buffers against the
/// alignment the arguments declare, as a launcher must (`axe::launch::check_alignment`).
fn run(text: &str, name: &str, bufs: &mut [(*mut (), usize)]) {
    try_run(text, name, bufs).unwrap()
}

fn try_run(text: &str, name: &str, bufs: &mut [(*mut (), usize)]) -> Result<(), String> {
    let context = context();
    let mut module = parse_kernel(&context, text, name);
    let addresses: Vec<usize> = bufs.iter().map(|(p, _)| *p as usize).collect();
    axe::launch::check_alignment(&module, name, &addresses).map_err(|e| e.to_string())?;
    let engine = lower_and_jit(&context, &mut module);
    // Descriptor of a 1-D memref: allocated, aligned, offset, size, stride.
    let mut descs: Vec<Box<[i64; 5]>> = bufs
        .iter()
        .map(|(p, len)| Box::new([*p as i64, *p as i64, 0, *len as i64, 1]))
        .collect();
    let mut desc_ptrs: Vec<*mut [i64; 5]> = descs.iter_mut().map(|d| &mut **d as *mut [i64; 5]).collect();
    let mut args: Vec<*mut ()> = desc_ptrs
        .iter_mut()
        .map(|p| p as *mut *mut [i64; 5] as *mut ())
        .collect();
    // SAFETY: `args` points at one live descriptor per argument of `name`, in its order.
    unsafe { engine.invoke_packed(name, &mut args) }.expect("kernel runs");
    Ok(())
}

/// Parses `text`, giving function `name` a C interface: the C API invokes
/// `_mlir_ciface_<name>`, which takes memref descriptors by pointer.
fn parse_kernel<'c>(context: &'c Context, text: &str, name: &str) -> Module<'c> {
    let start = text.find(&format!("func.func @{name}(")).expect("kernel function");
    let sig_end = start + text[start..].find(") {").expect("signature");
    let text = format!(
        "{} attributes {{llvm.emit_c_interface}}{}",
        &text[..sig_end + 1],
        &text[sig_end + 1..]
    );
    Module::parse(context, &text).expect("test kernel parses")
}

/// Lowers `module` with [`PIPELINE`] (threads emulated on the CPU) and JIT-compiles it.
fn lower_and_jit(context: &Context, module: &mut Module) -> ExecutionEngine {
    let pm = PassManager::new(context);
    parse_pass_pipeline(pm.as_operation_pass_manager(), PIPELINE).unwrap();
    pm.run(module).expect("lowering succeeds");
    ExecutionEngine::new(module, 2, &[], false, false)
}

/// A deterministic pseudo-random f32 sequence in [-2, 2).
fn random(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 4.0 - 2.0
        })
        .collect()
}

/// The memory address of logical element `x` under a memory layout (first replica).
fn addr(l: &Layout, x: i64) -> usize {
    let p = &l.eval_set_flat(x).unwrap()[0];
    p.get(&axe::layout::Axis::memory()).copied().unwrap_or(0) as usize
}

fn ty(shape: &str, elt: &str, scope: &str, layout: &str) -> String {
    format!("!axe.tensor<{shape}x{elt}, {scope}, #axe.layout<{layout}>>")
}

/// global (layout `gin`) → [shared (layout `sh`) → barrier →] register (layout `reg`) →
/// global (layout `gout`); checks out[gout(x)] = in[gin(x)] for every x, and that nothing
/// else was written.
fn roundtrip(shape: &str, n: usize, threads: i64, gin: &str, sh: Option<&str>, reg: &str, gout: &str) {
    roundtrip_aligned(shape, n, threads, gin, sh, reg, gout, Some(16), 0).unwrap()
}

/// `roundtrip` with the arguments declaring `declared` (`axe.align`) and buffers starting
/// `misalign` bytes past a 64-byte boundary; Err when the launch check refuses the buffers.
#[allow(clippy::too_many_arguments)]
fn roundtrip_aligned(
    shape: &str,
    n: usize,
    threads: i64,
    gin: &str,
    sh: Option<&str>,
    reg: &str,
    gout: &str,
    declared: Option<i64>,
    misalign: usize,
) -> Result<(), String> {
    let (tin, tr, tout) = (
        ty(shape, "f32", "global", gin),
        ty(shape, "f32", "register", reg),
        ty(shape, "f32", "global", gout),
    );
    let mut body = String::new();
    let src = if let Some(sh) = sh {
        let ts = ty(shape, "f32", "shared", sh);
        body += &format!("      %s = axe.alloc : {ts}\n      axe.copy %A, %s : {tin}, {ts}\n      axe.barrier cta\n");
        body += &format!("      %r = axe.alloc : {tr}\n      axe.copy %s, %r : {ts}, {tr}\n");
        "%r"
    } else {
        body += &format!("      %r = axe.alloc : {tr}\n      axe.copy %A, %r : {tin}, {tr}\n");
        "%r"
    };
    body += &format!("      axe.copy {src}, %B : {tr}, {tout}\n");
    let align = declared
        .map(|a| format!(" {{axe.align = {a} : i64}}"))
        .unwrap_or_default();
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @k(%a: memref<{n}xf32>{align}, %b: memref<{n}xf32>{align}) {{
    %A = axe.view %a : memref<{n}xf32> to {tin}
    %B = axe.view %b : memref<{n}xf32> to {tout}
    axe.kernel grid [1] threads [{threads}] {{
{body}    }}
    return
  }}
}}"
    );
    let input = random(n, n as u64 + threads as u64);
    let a = Buf::misaligned(&input, misalign);
    let b = Buf::misaligned(&vec![f32::NAN; n], misalign);
    try_run(&text, "k", &mut [(a.ptr as *mut (), n), (b.ptr as *mut (), n)])?;
    let out = b.get();
    let (li, lo) = (Layout::parse(gin).unwrap(), Layout::parse(gout).unwrap());
    let mut expected = vec![f32::NAN; n];
    for x in 0..li.size() {
        expected[addr(&lo, x)] = input[addr(&li, x)];
    }
    for i in 0..n {
        assert!(
            out[i] == expected[i] || (out[i].is_nan() && expected[i].is_nan()),
            "{reg}: element {i}: got {}, expected {}\n{text}",
            out[i],
            expected[i]
        );
    }
    Ok(())
}

#[test]
fn copy_row_major_to_column_major_through_lanes_and_registers() {
    roundtrip(
        "32x32",
        1024,
        128,
        "(32, 32) : (32, 1)",
        None,
        "(4, 32, 8) : (1@warp, 1@lane, 1@reg)",
        "(32, 32) : (1, 32)",
    );
}

#[test]
fn copy_tiled_registers_vectorized() {
    // Each thread owns 8 consecutive columns: two 4-wide vector loads/stores.
    roundtrip(
        "16x64",
        1024,
        128,
        "(16, 64) : (64, 1)",
        None,
        "(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)",
        "(16, 64) : (64, 1)",
    );
}

#[test]
fn copy_column_major_registers_with_strided_lanes() {
    // Lanes split over both dimensions, registers interleaved: scalar accesses.
    roundtrip(
        "8x64",
        512,
        64,
        "(8, 64) : (64, 1)",
        None,
        "(8, 2, 32) : (1@reg, 1@warp, 1@lane) ",
        "(8, 64) : (1, 8)",
    );
    roundtrip(
        "8x64",
        512,
        32,
        "(8, 64) : (64, 1)",
        None,
        "(8, 2, 32) : (2@reg, 1@reg, 1@lane)",
        "(8, 64) : (64, 1)",
    );
}

#[test]
fn copy_through_shared_memory() {
    roundtrip(
        "32x32",
        1024,
        128,
        "(32, 32) : (32, 1)",
        Some("(32, 32) : (1, 32)"),
        "(4, 32, 8) : (1@warp, 1@lane, 1@reg)",
        "(32, 32) : (32, 1)",
    );
    // Tiled shared layout (4x4 tiles of 8x8), vectorized global→shared.
    roundtrip(
        "32x32",
        1024,
        64,
        "(32, 32) : (32, 1)",
        Some("(4, 8, 4, 8) : (256, 8, 64, 1)"),
        "(2, 32, 16) : (1@warp, 1@lane, 1@reg)",
        "(32, 32) : (32, 1)",
    );
}

/// Buffers only 4-byte aligned (what a torch view with a storage offset gives): without a
/// declaration the lowering proves only element alignment, so the copies stay scalar on the
/// global side and are correct; the 16-byte aligned shared and emulated buffers still take
/// vector accesses (the segfault of an aligned vector store to a 4-byte aligned alloca is the
/// bug this guards against).
#[test]
fn misaligned_buffers_without_declared_alignment() {
    for misalign in [4, 8, 12] {
        roundtrip_aligned(
            "32x32",
            1024,
            128,
            "(32, 32) : (32, 1)",
            Some("(32, 32) : (1, 32)"),
            "(4, 32, 8) : (1@warp, 1@lane, 1@reg)",
            "(32, 32) : (32, 1)",
            None,
            misalign,
        )
        .unwrap();
        roundtrip_aligned(
            "32x32",
            1024,
            64,
            "(32, 32) : (32, 1)",
            Some("(4, 8, 4, 8) : (256, 8, 64, 1)"),
            "(2, 32, 16) : (1@warp, 1@lane, 1@reg)",
            "(32, 32) : (32, 1)",
            None,
            misalign,
        )
        .unwrap();
        roundtrip_aligned(
            "16x64",
            1024,
            128,
            "(16, 64) : (64, 1)",
            None,
            "(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)",
            "(16, 64) : (64, 1)",
            None,
            misalign,
        )
        .unwrap();
    }
}

/// A declared alignment is a contract: a launcher refuses buffers that break it, cleanly,
/// before anything runs; buffers that keep it (8-byte declared, 8-byte aligned) run correctly.
#[test]
fn misaligned_buffers_against_declared_alignment() {
    let err = roundtrip_aligned(
        "16x64",
        1024,
        128,
        "(16, 64) : (64, 1)",
        None,
        "(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)",
        "(16, 64) : (64, 1)",
        Some(16),
        4,
    )
    .unwrap_err();
    assert!(
        err.contains("argument #0 of @k declares axe.align = 16") && err.contains("not 16-byte aligned"),
        "{err}"
    );
    roundtrip_aligned(
        "16x64",
        1024,
        128,
        "(16, 64) : (64, 1)",
        None,
        "(4, 4, 8, 8) : (1@warp, 8@lane, 1@lane, 1@reg)",
        "(16, 64) : (64, 1)",
        Some(8),
        8,
    )
    .unwrap();
}

#[test]
fn copy_with_partial_lanes_and_offsets() {
    // Only 16 of 32 lanes own data (lanes 16..31 are guarded off); an offset on the lanes.
    roundtrip(
        "16x8",
        128,
        32,
        "(16, 8) : (8, 1)",
        None,
        "(16, 8) : (1@lane, 1@reg) + 16@lane",
        "(16, 8) : (8, 1)",
    );
}

/// fill + unary + binary (broadcast) + in-thread reduce + cast, checked against Rust.
#[test]
fn pointwise_and_in_thread_reduce() {
    let xl = "(2, 32, 8) : (1@warp, 1@lane, 1@reg)"; // 64 rows over threads, 8 columns in registers
    let rl = "(2, 32) : (1@warp, 1@lane)";
    let tx = ty("64x8", "f32", "register", xl);
    let tg = ty("64x8", "f32", "global", "(64, 8) : (8, 1)");
    let tm = ty("64x1", "f32", "register", rl);
    let tmg = ty("64x1", "f32", "global", "(64, 1) : (1, 1)");
    // Every thread needs the bias row: replicated over all lanes and warps.
    let tb = ty("1x8", "f32", "register", "(8) : (1@reg) + [(32, 2) : (1@lane, 1@warp)]");
    let tbg = ty("1x8", "f32", "global", "(8) : (1)");
    let ti = ty("64x8", "i32", "register", xl);
    let tig = ty("64x8", "i32", "global", "(64, 8) : (8, 1)");
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @k(%in: memref<512xf32>, %bias: memref<8xf32>, %out: memref<512xf32>, %rmax: memref<64xf32>, %ints: memref<512xi32>) {{
    %X = axe.view %in : memref<512xf32> to {tg}
    %Bg = axe.view %bias : memref<8xf32> to {tbg}
    %Y = axe.view %out : memref<512xf32> to {tg}
    %M = axe.view %rmax : memref<64xf32> to {tmg}
    %I = axe.view %ints : memref<512xi32> to {tig}
    axe.kernel grid [2] threads [64] {{
      %half = arith.constant 0.5 : f32
      %x = axe.alloc : {tx}
      %y = axe.alloc : {tx}
      %h = axe.alloc : {tx}
      %b = axe.alloc : {tb}
      %m = axe.alloc : {tm}
      %i = axe.alloc : {ti}
      axe.copy %X, %x : {tg}, {tx}
      axe.copy %Bg, %b : {tbg}, {tb}
      axe.fill %h, %half : {tx}, f32
      axe.reduce max %x, %m dims [1] : {tx}, {tm}
      axe.binary sub %x, %m, %y : {tx}, {tm}, {tx}
      axe.unary exp %y, %y : {tx}, {tx}
      axe.binary mul %y, %h, %y : {tx}, {tx}, {tx}
      axe.binary add %y, %b, %y : {tx}, {tb}, {tx}
      axe.cast %x, %i : {tx}, {ti}
      axe.copy %y, %Y : {tx}, {tg}
      axe.copy %m, %M : {tm}, {tmg}
      axe.copy %i, %I : {ti}, {tig}
    }}
    return
  }}
}}"
    );
    let input: Vec<f32> = random(512, 7).iter().map(|v| v * 3.0).collect();
    let bias = random(8, 9);
    let (a, bb) = (Buf::new(&input), Buf::new(&bias));
    let (o, mm, ii) = (
        Buf::new(&vec![0f32; 512]),
        Buf::new(&vec![0f32; 64]),
        Buf::new(&vec![0i32; 512]),
    );
    run(
        &text,
        "k",
        &mut [
            (a.ptr as _, 512),
            (bb.ptr as _, 8),
            (o.ptr as _, 512),
            (mm.ptr as _, 64),
            (ii.ptr as _, 512),
        ],
    );
    let (out, rmax, ints) = (o.get(), mm.get(), ii.get());
    for r in 0..64 {
        let row = &input[r * 8..r * 8 + 8];
        let mx = row.iter().cloned().fold(f32::NEG_INFINITY, f32::max);
        assert_eq!(rmax[r], mx, "row max {r}");
        for c in 0..8 {
            let want = (row[c] - mx).exp() * 0.5 + bias[c];
            assert!(
                (out[r * 8 + c] - want).abs() < 1e-5,
                "y[{r},{c}] = {} want {want}",
                out[r * 8 + c]
            );
            assert_eq!(ints[r * 8 + c], row[c] as i32, "cast [{r},{c}]");
        }
    }
}

/// Fills of global (distributed over the CTA, vectorized) and of a thread-scope register.
#[test]
fn fill_global_and_thread_scope() {
    let tg = ty("96", "f32", "global", "(96) : (1)");
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @k(%out: memref<96xf32>) {{
    %Y = axe.view %out : memref<96xf32> to {tg}
    axe.kernel grid [1] threads [32] {{
      %v = arith.constant 3.0 : f32
      axe.fill %Y, %v : {tg}, f32
    }}
    return
  }}
}}"
    );
    let o = Buf::new(&vec![0f32; 96]);
    run(&text, "k", &mut [(o.ptr as _, 96)]);
    assert!(o.get().iter().all(|&v| v == 3.0));
}

/// Run-time tile origins: 4 CTAs, each copies row tile c of X (8x16 of a 32x16 row-major
/// matrix) through registers into row tile 3 - c of Y; origins from `axe.unit_id cta`.
#[test]
fn tiles_with_run_time_origins() {
    let g = ty("32x16", "f32", "global", "(32, 16) : (16, 1)");
    let tile = ty("8x16", "f32", "global", "(8, 16) : (16, 1)");
    let reg = ty("8x16", "f32", "register", "(8, 4, 4) : (4@lane, 1@lane, 1@reg)");
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @tiles(%x: memref<512xf32>, %y: memref<512xf32>) {{
    %X = axe.view %x : memref<512xf32> to {g}
    %Y = axe.view %y : memref<512xf32> to {g}
    axe.kernel grid [4] threads [32] {{
      %c = axe.unit_id cta
      %c3 = arith.constant 3 : index
      %c8 = arith.constant 8 : index
      %o = arith.muli %c, %c8 : index
      %r = arith.subi %c3, %c : index
      %o2 = arith.muli %r, %c8 : index
      %src = axe.slice %X [%o : +8, 0 : 16] : {g} to {tile}
      %dst = axe.slice %Y [%o2 : +8, 0 : 16] : {g} to {tile}
      %v = axe.alloc : {reg}
      axe.copy %src, %v : {tile}, {reg}
      axe.copy %v, %dst : {reg}, {tile}
    }}
    return
  }}
}}"
    );
    let x = random(512, 7);
    let mut y = vec![f32::NAN; 512];
    let mut xs = x.clone();
    run(
        &text,
        "tiles",
        &mut [(xs.as_mut_ptr() as *mut (), 512), (y.as_mut_ptr() as *mut (), 512)],
    );
    for c in 0..4 {
        for i in 0..8 {
            for j in 0..16 {
                assert_eq!(
                    y[((3 - c) * 8 + i) * 16 + j],
                    x[(c * 8 + i) * 16 + j],
                    "tile {c} ({i}, {j})"
                );
            }
        }
    }
}

/// erf by its Maclaurin series in f64 (|x| <= 4: the terms peak near 4e6, so the sum keeps
/// about 1e-9): an oracle independent of the lowering's rational approximation.
fn erf_series(x: f64) -> f64 {
    let (mut term, mut sum) = (x, x);
    for n in 1..200 {
        term *= -x * x / n as f64;
        sum += term / (2 * n + 1) as f64;
    }
    sum * 2.0 / std::f64::consts::PI.sqrt()
}

/// `tanh`, `erf`, `gelu` and `gelu_tanh` (the activations of GPT-style MLPs), in f32 and
/// f16 (computed through f32), against f64 definitions: ONNX's exact Gelu and its tanh
/// approximation.
#[test]
fn tanh_erf_and_gelu() {
    let l = "(32, 8) : (1@lane, 1@reg)";
    let (tx, tg) = (
        ty("32x8", "f32", "register", l),
        ty("32x8", "f32", "global", "(32, 8) : (8, 1)"),
    );
    let (hx, hg) = (
        ty("32x8", "f16", "register", l),
        ty("32x8", "f16", "global", "(32, 8) : (8, 1)"),
    );
    let kinds = ["tanh", "erf", "gelu", "gelu_tanh"];
    let mut args = String::from("%in: memref<256xf32>, %hout: memref<256xf16>");
    let mut body = String::new();
    for k in kinds {
        args += &format!(", %{k}: memref<256xf32>");
        body += &format!(
            "      %y_{k} = axe.alloc : {tx}
      axe.unary {k} %x, %y_{k} : {tx}, {tx}
      %G_{k} = axe.view %{k} : memref<256xf32> to {tg}
      axe.copy %y_{k}, %G_{k} : {tx}, {tg}
"
        );
    }
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @k({args}) {{
    %X = axe.view %in : memref<256xf32> to {tg}
    %H = axe.view %hout : memref<256xf16> to {hg}
    axe.kernel grid [1] threads [32] {{
      %x = axe.alloc : {tx}
      %h = axe.alloc : {hx}
      axe.copy %X, %x : {tg}, {tx}
{body}      axe.cast %x, %h : {tx}, {hx}
      axe.unary gelu %h, %h : {hx}, {hx}
      axe.copy %h, %H : {hx}, {hg}
    }}
    return
  }}
}}"
    );
    // Multiples of 1/256 in (-4, 4): exact in f16 too.
    let input: Vec<f32> = random(256, 11).iter().map(|v| (v * 512.0).round() / 256.0).collect();
    let a = Buf::new(&input);
    let h = Buf::new(&vec![0u16; 256]);
    let outs: Vec<Buf<f32>> = kinds.iter().map(|_| Buf::new(&vec![0f32; 256])).collect();
    let mut bufs = vec![(a.ptr as _, 256), (h.ptr as _, 256)];
    bufs.extend(outs.iter().map(|o| (o.ptr as _, 256)));
    run(&text, "k", &mut bufs);
    let got: Vec<Vec<f32>> = outs.iter().map(|o| o.get()).collect();
    let half = h.get();
    for i in 0..256 {
        let x = f64::from(input[i]);
        let c = (2.0 / std::f64::consts::PI).sqrt() * (x + 0.044715 * x * x * x);
        let want = [
            x.tanh(),
            erf_series(x),
            0.5 * x * (1.0 + erf_series(x / 2f64.sqrt())),
            0.5 * x * (1.0 + c.tanh()),
        ];
        for (k, (g, w)) in kinds.iter().zip(got.iter().map(|g| f64::from(g[i])).zip(want)) {
            assert!((g - w).abs() < 1e-6 * (1.0 + w.abs()), "{k}({x}) = {g} want {w}");
        }
        // f16 (the same inputs, exact there): gelu through f32, rounded once (half an f16 ulp).
        let wh = want[2];
        let gh = f64::from(f16_to_f32(half[i]));
        assert!(
            (gh - wh).abs() <= 1e-3 * wh.abs() + 1e-6,
            "f16 gelu({x}) = {gh} want {wh}"
        );
    }
}

/// `silu` and `sigmoid` (the SwiGLU gate of MoE experts), in f32 and f16, against Rust's
/// x / (1 + e^-x) and 1 / (1 + e^-x).
#[test]
fn silu_and_sigmoid() {
    let l = "(32, 8) : (1@lane, 1@reg)";
    let (tx, tg) = (
        ty("32x8", "f32", "register", l),
        ty("32x8", "f32", "global", "(32, 8) : (8, 1)"),
    );
    let (hx, hg) = (
        ty("32x8", "f16", "register", l),
        ty("32x8", "f16", "global", "(32, 8) : (8, 1)"),
    );
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @k(%in: memref<256xf32>, %silu: memref<256xf32>, %sig: memref<256xf32>, %hsilu: memref<256xf16>) {{
    %X = axe.view %in : memref<256xf32> to {tg}
    %S = axe.view %silu : memref<256xf32> to {tg}
    %G = axe.view %sig : memref<256xf32> to {tg}
    %H = axe.view %hsilu : memref<256xf16> to {hg}
    axe.kernel grid [1] threads [32] {{
      %x = axe.alloc : {tx}
      %y = axe.alloc : {tx}
      %z = axe.alloc : {tx}
      %h = axe.alloc : {hx}
      axe.copy %X, %x : {tg}, {tx}
      axe.unary silu %x, %y : {tx}, {tx}
      axe.unary sigmoid %x, %z : {tx}, {tx}
      axe.cast %x, %h : {tx}, {hx}
      axe.unary silu %h, %h : {hx}, {hx}
      axe.copy %y, %S : {tx}, {tg}
      axe.copy %z, %G : {tx}, {tg}
      axe.copy %h, %H : {hx}, {hg}
    }}
    return
  }}
}}"
    );
    let input: Vec<f32> = random(256, 5).iter().map(|v| v * 4.0).collect();
    let a = Buf::new(&input);
    let (s, g, h) = (
        Buf::new(&vec![0f32; 256]),
        Buf::new(&vec![0f32; 256]),
        Buf::new(&vec![0u16; 256]),
    );
    run(
        &text,
        "k",
        &mut [
            (a.ptr as _, 256),
            (s.ptr as _, 256),
            (g.ptr as _, 256),
            (h.ptr as _, 256),
        ],
    );
    let (silu, sig, half) = (s.get(), g.get(), h.get());
    for i in 0..256 {
        let x = input[i];
        let want_sig = 1.0 / (1.0 + (-x).exp());
        assert!(
            (sig[i] - want_sig).abs() < 1e-6,
            "sigmoid({x}) = {} want {want_sig}",
            sig[i]
        );
        assert!(
            (silu[i] - x * want_sig).abs() < 1e-5,
            "silu({x}) = {} want {}",
            silu[i],
            x * want_sig
        );
        // f16: the input rounded to f16, silu in f16 arithmetic (about 3 decimal digits).
        let got = f16_to_f32(half[i]);
        assert!(
            (got - x * want_sig).abs() < 1e-2 * (1.0 + x.abs()),
            "f16 silu({x}) = {got}"
        );
    }
}

/// `{clip}` output tiles (a ragged M x N = 10 x 12 result in 8 x 8 tiles, 2 x 2 CTAs): every
/// element inside the tensor is written once, with the value of the padded source, and
/// nothing past the tensor's 120 elements is touched (the buffer is larger, with sentinels).
/// Oracle: the source values themselves, by (row, column).
#[test]
fn clipped_tiles_store_only_inside_the_tensor() {
    let src = ty("16x16", "f32", "global", "(16, 16) : (16, 1)");
    let tile = ty("8x8", "f32", "global", "(8, 8) : (16, 1)");
    let dst = ty("10x12", "f32", "global", "(10, 12) : (12, 1)");
    let out = ty("8x8", "f32", "global", "(8, 8) : (12, 1)");
    let reg = ty("8x8", "f32", "register", "(8, 4, 2) : (4@lane, 1@lane, 1@reg)");
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @ragged(%x: memref<256xf32>, %y: memref<120xf32>) {{
    %X = axe.view %x : memref<256xf32> to {src}
    %Y = axe.view %y : memref<120xf32> to {dst}
    axe.kernel grid [4] threads [32] {{
      %c = axe.unit_id cta
      %c2 = arith.constant 2 : index
      %c8 = arith.constant 8 : index
      %tm = arith.divui %c, %c2 : index
      %tn = arith.remui %c, %c2 : index
      %om = arith.muli %tm, %c8 : index
      %on = arith.muli %tn, %c8 : index
      %s = axe.slice %X [%om : +8, %on : +8] : {src} to {tile}
      %d = axe.slice %Y [%om : +8, %on : +8] {{clip}} : {dst} to {out}
      %v = axe.alloc : {reg}
      axe.copy %s, %v : {tile}, {reg}
      axe.copy %v, %d : {reg}, {out}
    }}
    return
  }}
}}"
    );
    let mut x = random(256, 11);
    let mut y = vec![f32::NAN; 200];
    run(
        &text,
        "ragged",
        &mut [(x.as_mut_ptr() as *mut (), 256), (y.as_mut_ptr() as *mut (), 120)],
    );
    for i in 0..10 {
        for j in 0..12 {
            assert_eq!(y[i * 12 + j], x[i * 16 + j], "element ({i}, {j})");
        }
    }
    assert!(
        y[120..].iter().all(|v| v.is_nan()),
        "a store past the tensor: {:?}",
        &y[120..]
    );
}

/// Calls mesh function `name` once per rank (ranks simulated one after another), each with
/// its own buffers (`(pointer, elements)` per memref argument, in order), the peer table
/// memref and its rank, as the lowering's added arguments take them.
fn invoke_ranks(engine: &ExecutionEngine, name: &str, per_rank: &[Vec<(*mut (), usize)>], peers: (*mut (), usize)) {
    for (rank, bufs) in per_rank.iter().enumerate() {
        let desc = |p: *mut (), n: usize| Box::new([p as i64, p as i64, 0, n as i64, 1]);
        let mut descs: Vec<Box<[i64; 5]>> = bufs
            .iter()
            .chain(std::iter::once(&peers))
            .map(|&(p, n)| desc(p, n))
            .collect();
        let mut desc_ptrs: Vec<*mut [i64; 5]> = descs.iter_mut().map(|d| &mut **d as *mut [i64; 5]).collect();
        let mut rank_value = rank as i64;
        let mut args: Vec<*mut ()> = desc_ptrs
            .iter_mut()
            .map(|p| p as *mut *mut [i64; 5] as *mut ())
            .collect();
        args.push(&mut rank_value as *mut i64 as *mut ());
        // SAFETY: `args` points at one live descriptor per argument of `name`, in its order.
        unsafe { engine.invoke_packed(name, &mut args) }.expect("kernel runs");
    }
}

/// Calls the lowered mesh kernel `name` as rank `rank` of a mesh: its own 1-D memref
/// arguments `own` (`(pointer, elements)` each, in order), then the rank, then the peer tables
/// `tables` (the calling convention of a function with an `axe.kernel` in an `axe.mesh`).
fn invoke_as_rank(
    engine: &ExecutionEngine,
    name: &str,
    own: &[(*mut (), usize)],
    rank: usize,
    tables: &[(*mut (), usize)],
) {
    let desc = |&(p, n): &(*mut (), usize)| Box::new([p as i64, p as i64, 0, n as i64, 1]);
    let mut own_descs: Vec<Box<[i64; 5]>> = own.iter().map(desc).collect();
    let mut table_descs: Vec<Box<[i64; 5]>> = tables.iter().map(desc).collect();
    let mut own_ptrs: Vec<*mut [i64; 5]> = own_descs.iter_mut().map(|d| &mut **d as *mut [i64; 5]).collect();
    let mut table_ptrs: Vec<*mut [i64; 5]> = table_descs.iter_mut().map(|d| &mut **d as *mut [i64; 5]).collect();
    let mut rank_value = rank as i64;
    let mut args: Vec<*mut ()> = own_ptrs
        .iter_mut()
        .map(|p| p as *mut *mut [i64; 5] as *mut ())
        .collect();
    args.push(&mut rank_value as *mut i64 as *mut ());
    args.extend(table_ptrs.iter_mut().map(|p| p as *mut *mut [i64; 5] as *mut ()));
    // SAFETY: `args` points at one live descriptor per argument of `name`, in its order.
    unsafe { engine.invoke_packed(name, &mut args) }.expect("kernel runs");
}

/// The paper's Figure 8 reduce-scatter over a 4-device mesh, with simulated ranks: the lowered
/// function is called once per rank (its rank argument), each with its own X shard and Y block
/// and the table of every rank's X buffer (the peer table symmetric memory provides). Checked
/// against the definition: rank r's Y holds rows 16r..16r+15 of the sum of the 4 X blocks.
#[test]
fn reduce_scatter_over_a_mesh_with_simulated_ranks() {
    let (x_ty, y_ty) = (
        ty("4x64x64", "f32", "global", "(4, 64, 64) : (1@gpuid, 64, 1)"),
        ty("64x64", "f32", "global", "(4, 16, 64) : (1@gpuid, 64, 1)"),
    );
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @rs(%xbuf: memref<4096xf32>, %ybuf: memref<1024xf32>) {{
    axe.mesh [4] {{
      %X = axe.view %xbuf : memref<4096xf32> to {x_ty}
      %Y = axe.view %ybuf : memref<1024xf32> to {y_ty}
      axe.reduce sum %X, %Y dims [0] : {x_ty}, {y_ty}
    }}
    return
  }}
}}"
    );
    let context = context();
    let mut module = parse_kernel(&context, &text, "rs");
    let engine = lower_and_jit(&context, &mut module);
    let xs: Vec<Vec<f32>> = (0..4).map(|g| random(4096, 100 + g)).collect();
    let xbufs: Vec<Buf<f32>> = xs.iter().map(|x| Buf::new(x)).collect();
    let ybufs: Vec<Buf<f32>> = (0..4).map(|_| Buf::new(&vec![f32::NAN; 1024])).collect();
    let peers: Vec<i64> = xbufs.iter().map(|b| b.ptr as i64).collect();
    let peer_buf = Buf::new(&peers);
    let per_rank: Vec<Vec<(*mut (), usize)>> = (0..4)
        .map(|r| vec![(xbufs[r].ptr as *mut (), 4096), (ybufs[r].ptr as *mut (), 1024)])
        .collect();
    invoke_ranks(&engine, "rs", &per_rank, (peer_buf.ptr as *mut (), 4));
    for (rank, y) in ybufs.iter().enumerate() {
        let got = y.get();
        for row in 0..16 {
            for col in 0..64 {
                let want: f32 = xs.iter().map(|x| x[(16 * rank + row) * 64 + col]).sum();
                let have = got[row * 64 + col];
                assert!(
                    (have - want).abs() <= 1e-5 * want.abs().max(1.0),
                    "rank {rank} ({row}, {col}): {have} vs {want}"
                );
            }
        }
    }
}

/// All-gather over a 4-device mesh with simulated ranks: X sharded (rank g holds rows
/// 16g..16g+15), Y replicated: every rank's Y must be the whole 64x64 matrix, bit-exact.
#[test]
fn all_gather_over_a_mesh_with_simulated_ranks() {
    let (x_ty, y_ty) = (
        ty("64x64", "f32", "global", "(4, 16, 64) : (1@gpuid, 64, 1)"),
        ty("64x64", "f32", "global", "(64, 64) : (64, 1) + [(4) : (1@gpuid)]"),
    );
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @ag(%xbuf: memref<1024xf32>, %ybuf: memref<4096xf32>) {{
    axe.mesh [4] {{
      %X = axe.view %xbuf : memref<1024xf32> to {x_ty}
      %Y = axe.view %ybuf : memref<4096xf32> to {y_ty}
      axe.copy %X, %Y : {x_ty}, {y_ty}
    }}
    return
  }}
}}"
    );
    let context = context();
    let mut module = parse_kernel(&context, &text, "ag");
    let engine = lower_and_jit(&context, &mut module);
    let xs: Vec<Vec<f32>> = (0..4).map(|g| random(1024, 200 + g)).collect();
    let xbufs: Vec<Buf<f32>> = xs.iter().map(|x| Buf::new(x)).collect();
    let ybufs: Vec<Buf<f32>> = (0..4).map(|_| Buf::new(&vec![f32::NAN; 4096])).collect();
    let peer_buf = Buf::new(&xbufs.iter().map(|b| b.ptr as i64).collect::<Vec<_>>());
    let per_rank: Vec<Vec<(*mut (), usize)>> = (0..4)
        .map(|r| vec![(xbufs[r].ptr as *mut (), 1024), (ybufs[r].ptr as *mut (), 4096)])
        .collect();
    invoke_ranks(&engine, "ag", &per_rank, (peer_buf.ptr as *mut (), 4));
    let whole: Vec<f32> = xs.concat();
    for (rank, y) in ybufs.iter().enumerate() {
        assert_eq!(y.get(), whole, "rank {rank}");
    }
}

/// A kernel inside a 4-device mesh that reads a peer's tile (ranks simulated one after
/// another): rank r copies rank (r + 1) mod 4's X into its own Y, 16 rows per CTA, through
/// X's peer table — a distributed tensor sliced at one device is addressed like a local
/// buffer. The lowered function takes its own buffers, then the rank (`axe.device_id`), then
/// X's peer table. Checked bit-exact against the definition.
#[test]
fn kernel_in_a_mesh_reads_a_peer_tile() {
    let (x_ty, y_ty) = (
        ty("4x64x64", "f32", "global", "(4, 64, 64) : (1@gpuid, 64, 1)"),
        ty("1x64x64", "f32", "global", "(1, 64, 64) : (4096, 64, 1)"),
    );
    let tile = ty("1x16x64", "f32", "global", "(16, 64) : (64, 1)");
    let reg = ty("1x16x64", "f32", "register", "(8, 32, 4) : (4@reg, 1@lane, 1@reg)");
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @pull(%xbuf: memref<4096xf32> {{axe.align = 16 : i64}}, %ybuf: memref<4096xf32> {{axe.align = 16 : i64}}) {{
    axe.mesh [4] {{
      %X = axe.view %xbuf : memref<4096xf32> to {x_ty}
      %Y = axe.view %ybuf : memref<4096xf32> to {y_ty}
      axe.kernel grid [4] threads [32] {{
        %rank = axe.device_id
        %c1 = arith.constant 1 : index
        %c4 = arith.constant 4 : index
        %c16 = arith.constant 16 : index
        %r1 = arith.addi %rank, %c1 : index
        %next = arith.remui %r1, %c4 : index
        %cta = axe.unit_id cta
        %om = arith.muli %cta, %c16 : index
        %src = axe.slice %X [%next : +1, %om : +16, 0 : 64] : {x_ty} to {tile}
        %r = axe.alloc : {reg}
        axe.copy %src, %r : {tile}, {reg}
        %dst = axe.slice %Y [0 : 1, %om : +16, 0 : 64] : {y_ty} to {tile}
        axe.copy %r, %dst : {reg}, {tile}
      }}
    }}
    return
  }}
}}"
    );
    let context = context();
    let mut module = parse_kernel(&context, &text, "pull");
    let engine = lower_and_jit(&context, &mut module);
    let xs: Vec<Vec<f32>> = (0..4).map(|g| random(4096, 300 + g)).collect();
    let xbufs: Vec<Buf<f32>> = xs.iter().map(|x| Buf::new(x)).collect();
    let ybufs: Vec<Buf<f32>> = (0..4).map(|_| Buf::new(&vec![f32::NAN; 4096])).collect();
    let peers = Buf::new(&xbufs.iter().map(|b| b.ptr as i64).collect::<Vec<_>>());
    for rank in 0..4 {
        let own = [(xbufs[rank].ptr as *mut (), 4096), (ybufs[rank].ptr as *mut (), 4096)];
        invoke_as_rank(&engine, "pull", &own, rank, &[(peers.ptr as *mut (), 4)]);
    }
    for (rank, y) in ybufs.iter().enumerate() {
        assert_eq!(
            y.get(),
            xs[(rank + 1) % 4],
            "rank {rank} holds rank {}'s X",
            (rank + 1) % 4
        );
    }
}

/// Reducing TMA stores (`axe.copy ... schedule tma reduce sum`) as the CPU emulation runs
/// them, with two simulated ranks: each rank stages rows 0..7 of its X in shared memory and
/// adds them into rows 8..15 of the next rank's Y (a peer's tile of a distributed tensor) and
/// into its own local L. Checked bit-exact against the definition (one f32 add per element).
/// The peer tile's origin is computed before the CTA barrier and used after it, which the
/// emulation (one loop over the threads per phase) recomputes in the later phase.
#[test]
fn reducing_stores_add_into_a_peer_tile_and_a_local_buffer() {
    let x_ty = ty("16x32", "f32", "global", "(16, 32) : (32, 1)");
    let y_ty = ty("32x32", "f32", "global", "(2, 16, 32) : (1@gpuid, 32, 1)");
    let l_ty = ty("8x32", "f32", "global", "(8, 32) : (32, 1)");
    let st_ty = ty("8x32", "f32", "shared", "(8, 32) : (32, 1)");
    let tile = ty("8x32", "f32", "global", "(8, 32) : (32, 1)");
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @acc(%xbuf: memref<512xf32> {{axe.align = 16 : i64}}, %ybuf: memref<512xf32> {{axe.align = 16 : i64}}, %lbuf: memref<256xf32> {{axe.align = 16 : i64}}) {{
    axe.mesh [2] {{
      %X = axe.view %xbuf : memref<512xf32> to {x_ty}
      %Y = axe.view %ybuf : memref<512xf32> to {y_ty}
      %L = axe.view %lbuf : memref<256xf32> to {l_ty}
      axe.kernel grid [1] threads [32] {{
        %rank = axe.device_id
        %c1 = arith.constant 1 : index
        %c2 = arith.constant 2 : index
        %c8 = arith.constant 8 : index
        %c16 = arith.constant 16 : index
        %r1 = arith.addi %rank, %c1 : index
        %next = arith.remui %r1, %c2 : index
        %base = arith.muli %next, %c16 : index
        %row = arith.addi %base, %c8 : index
        %st = axe.alloc : {st_ty}
        %xt = axe.slice %X [0 : 8, 0 : 32] : {x_ty} to {tile}
        axe.copy %xt, %st : {tile}, {st_ty}
        axe.barrier cta
        %yt = axe.slice %Y [%row : +8, 0 : 32] : {y_ty} to {tile}
        axe.copy %st, %yt schedule tma reduce sum : {st_ty}, {tile}
        axe.copy %st, %L schedule tma reduce sum : {st_ty}, {l_ty}
      }}
    }}
    return
  }}
}}"
    );
    let context = context();
    let mut module = parse_kernel(&context, &text, "acc");
    let engine = lower_and_jit(&context, &mut module);
    let xs: Vec<Vec<f32>> = (0..2).map(|g| random(512, 500 + g)).collect();
    let ys: Vec<Vec<f32>> = (0..2).map(|g| random(512, 600 + g)).collect();
    let ls: Vec<Vec<f32>> = (0..2).map(|g| random(256, 700 + g)).collect();
    let xbufs: Vec<Buf<f32>> = xs.iter().map(|x| Buf::new(x)).collect();
    let ybufs: Vec<Buf<f32>> = ys.iter().map(|y| Buf::new(y)).collect();
    let lbufs: Vec<Buf<f32>> = ls.iter().map(|l| Buf::new(l)).collect();
    let peers = Buf::new(&ybufs.iter().map(|b| b.ptr as i64).collect::<Vec<_>>());
    for rank in 0..2 {
        let own = [
            (xbufs[rank].ptr as *mut (), 512),
            (ybufs[rank].ptr as *mut (), 512),
            (lbufs[rank].ptr as *mut (), 256),
        ];
        invoke_as_rank(&engine, "acc", &own, rank, &[(peers.ptr as *mut (), 2)]);
    }
    for rank in 0..2 {
        let from = (rank + 1) % 2; // the rank whose next is this one
        let want_y: Vec<f32> = (0..512)
            .map(|i| {
                if i >= 256 {
                    ys[rank][i] + xs[from][i - 256]
                } else {
                    ys[rank][i]
                }
            })
            .collect();
        assert_eq!(
            ybufs[rank].get(),
            want_y,
            "rank {rank}'s Y: rows 8..15 gain rank {from}'s X rows 0..7"
        );
        let want_l: Vec<f32> = (0..256).map(|i| ls[rank][i] + xs[rank][i]).collect();
        assert_eq!(lbufs[rank].get(), want_l, "rank {rank}'s L gains its own X rows 0..7");
    }
}

/// A tile origin computed from the CTA id before a CTA barrier and used after it: the
/// emulation runs the two phases as separate loops over the threads and recomputes the origin
/// in the second. Each CTA fills its shared tile with its id + 1 and stores it at its own
/// tile of G (initially NaN): every tile must hold its CTA's value.
#[test]
fn values_computed_before_a_barrier_are_recomputed_after_it() {
    let g_ty = ty("128", "f32", "global", "(128) : (1)");
    let s_ty = ty("32", "f32", "shared", "(32) : (1)");
    let t_ty = ty("32", "f32", "global", "(32) : (1)");
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @phases(%buf: memref<128xf32> {{axe.align = 16 : i64}}) {{
    %G = axe.view %buf : memref<128xf32> to {g_ty}
    axe.kernel grid [4] threads [32] {{
      %cta = axe.unit_id cta
      %c32 = arith.constant 32 : index
      %o = arith.muli %cta, %c32 : index
      %i = arith.index_cast %cta : index to i32
      %f = arith.sitofp %i : i32 to f32
      %one = arith.constant 1.0 : f32
      %v = arith.addf %f, %one : f32
      %s = axe.alloc : {s_ty}
      axe.fill %s, %v : {s_ty}, f32
      axe.barrier cta
      %t = axe.slice %G [%o : +32] : {g_ty} to {t_ty}
      axe.copy %s, %t : {s_ty}, {t_ty}
    }}
    return
  }}
}}"
    );
    let g = Buf::new(&[f32::NAN; 128]);
    run(&text, "phases", &mut [(g.ptr as *mut (), 128)]);
    let want: Vec<f32> = (0..128).map(|i| (i / 32 + 1) as f32).collect();
    assert_eq!(g.get(), want);

    // Three phases: the origin (phase 0) feeds a slice in phase 1, and that slice is used again
    // in phase 2 (a reducing store adding the tile once more): phase 2 recomputes both.
    let text3 = text.replace(
        &format!("      axe.copy %s, %t : {s_ty}, {t_ty}\n"),
        &format!("      axe.copy %s, %t : {s_ty}, {t_ty}\n      axe.barrier cta\n      axe.copy %s, %t schedule tma reduce sum : {s_ty}, {t_ty}\n"),
    );
    assert!(text3.contains("reduce sum"), "the three-phase variant was built");
    let g = Buf::new(&[f32::NAN; 128]);
    run(&text3, "phases", &mut [(g.ptr as *mut (), 128)]);
    let want: Vec<f32> = (0..128).map(|i| 2.0 * (i / 32 + 1) as f32).collect();
    assert_eq!(g.get(), want);
}

/// Windows with run-time ends (`[%o : +8 until %end, ...]`): the rows of five groups of a
/// 64 x 16 matrix (sizes 5, 0, 18, 17, 24, offsets read from a buffer, as a grouped GEMM reads
/// its experts' row ranges), four 8-row windows per group at any origin. Through registers
/// (predicated loads and stores) and through shared memory (the memory-to-memory copies'
/// predicates). CTAs walk the groups last to first, so a window that wrote past its group's
/// end would overwrite rows another group wrote before it; windows past the matrix's 64 rows
/// must not touch the sentinels after it. Oracles: every row of Y and Y2 is X's row; each
/// window's full 8-row copy (Z, Z2) is X's rows before the end and zeros after.
#[test]
fn windows_with_run_time_ends_access_only_their_rows() {
    let (rows, cols, groups, per) = (64usize, 16usize, 5usize, 4usize);
    let offsets: [i32; 6] = [0, 5, 5, 23, 40, 64];
    let whole = ty("64x16", "f32", "global", "(64, 16) : (16, 1)");
    let win = ty("8x16", "f32", "global", "(8, 16) : (16, 1)");
    let padded = ty("160x16", "f32", "global", "(160, 16) : (16, 1)");
    let reg = ty("8x16", "f32", "register", "(8, 4, 4) : (4@lane, 1@lane, 1@reg)");
    let shared = ty("8x16", "f32", "shared", "(8, 16) : (16, 1)");
    // The window of CTA %c: group 4 - c / 4, its (c % 4)-th 8 rows; `{p}` prefixes names.
    let window = |p: &str| {
        format!(
            "      %{p}c = axe.unit_id cta
      %{p}c1 = arith.constant 1 : index
      %{p}c4 = arith.constant 4 : index
      %{p}c8 = arith.constant 8 : index
      %{p}q = arith.divui %{p}c, %{p}c4 : index
      %{p}g = arith.subi %{p}c4, %{p}q : index
      %{p}t = arith.remui %{p}c, %{p}c4 : index
      %{p}g1 = arith.addi %{p}g, %{p}c1 : index
      %{p}s32 = memref.load %off[%{p}g] : memref<6xi32>
      %{p}e32 = memref.load %off[%{p}g1] : memref<6xi32>
      %{p}s = arith.index_cast %{p}s32 : i32 to index
      %{p}e = arith.index_cast %{p}e32 : i32 to index
      %{p}t8 = arith.muli %{p}t, %{p}c8 : index
      %{p}o = arith.addi %{p}s, %{p}t8 : index
      %{p}zr = arith.muli %{p}c, %{p}c8 : index
"
        )
    };
    let (w1, w2a, w2b) = (window(""), window("a"), window("b"));
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @grouped(%x: memref<1024xf32>, %off: memref<6xi32>, %y: memref<1024xf32>, %z: memref<2560xf32>, %y2: memref<1024xf32>, %z2: memref<2560xf32>) {{
    %X = axe.view %x : memref<1024xf32> to {whole}
    %Y = axe.view %y : memref<1024xf32> to {whole}
    %Z = axe.view %z : memref<2560xf32> to {padded}
    %Y2 = axe.view %y2 : memref<1024xf32> to {whole}
    %Z2 = axe.view %z2 : memref<2560xf32> to {padded}
    axe.kernel grid [20] threads [32] {{
{w1}      %xs = axe.slice %X [%o : +8 until %e, 0 : 16] : {whole} to {win}
      %ys = axe.slice %Y [%o : +8 until %e, 0 : 16] : {whole} to {win}
      %zs = axe.slice %Z [%zr : +8, 0 : 16] : {padded} to {win}
      %v = axe.alloc : {reg}
      axe.copy %xs, %v : {win}, {reg}
      axe.copy %v, %ys : {reg}, {win}
      axe.copy %v, %zs : {reg}, {win}
    }}
    axe.kernel grid [20] threads [32] {{
      %sh = axe.alloc : {shared}
{w2a}      %xs = axe.slice %X [%ao : +8 until %ae, 0 : 16] : {whole} to {win}
      axe.copy %xs, %sh : {win}, {shared}
      axe.barrier cta
{w2b}      %ys = axe.slice %Y2 [%bo : +8 until %be, 0 : 16] : {whole} to {win}
      %zs = axe.slice %Z2 [%bzr : +8, 0 : 16] : {padded} to {win}
      axe.copy %sh, %ys : {shared}, {win}
      axe.copy %sh, %zs : {shared}, {win}
    }}
    return
  }}
}}"
    );
    let x = random(rows * cols, 19);
    let sentinel = rows * cols + 128;
    let (y, y2) = (Buf::new(&vec![f32::NAN; sentinel]), Buf::new(&vec![f32::NAN; sentinel]));
    let (z, z2) = (Buf::new(&vec![f32::NAN; 2560]), Buf::new(&vec![f32::NAN; 2560]));
    let (xb, ob) = (Buf::new(&x), Buf::new(&offsets));
    run(
        &text,
        "grouped",
        &mut [
            (xb.ptr as _, 1024),
            (ob.ptr as _, 6),
            (y.ptr as _, 1024),
            (z.ptr as _, 2560),
            (y2.ptr as _, 1024),
            (z2.ptr as _, 2560),
        ],
    );
    for (name, yv, zv) in [("registers", y.get(), z.get()), ("shared", y2.get(), z2.get())] {
        for r in 0..rows {
            for j in 0..cols {
                assert_eq!(yv[r * cols + j], x[r * cols + j], "{name}: Y row {r} column {j}");
            }
        }
        assert!(
            yv[rows * cols..].iter().all(|v| v.is_nan()),
            "{name}: a store past the matrix"
        );
        for c in 0..groups * per {
            let g = groups - 1 - c / per;
            let (start, end) = (offsets[g] as usize, offsets[g + 1] as usize);
            let origin = start + 8 * (c % per);
            for i in 0..8 {
                for j in 0..cols {
                    let want = if origin + i < end {
                        x[(origin + i) * cols + j]
                    } else {
                        0.0
                    };
                    assert_eq!(
                        zv[(c * 8 + i) * cols + j],
                        want,
                        "{name}: CTA {c} (group {g}, rows {start}..{end}) window row {i} column {j}"
                    );
                }
            }
        }
    }
}

/// A {clip} source tile read by vectors that span two rows: a 9 x 4 f16 tensor in 8-row tiles,
/// each of 4 lanes holding 8 consecutive elements (two rows) in registers. The last tile has
/// one row: a vector holding it and the next (nonexistent) row must not be loaded whole, or
/// the row past the tensor (sentinel ones, 0x3C00) would be read instead of zeros. Oracle:
/// X's rows, then zeros.
#[test]
fn vectors_spanning_rows_do_not_read_past_a_bound() {
    let x_t = ty("9x4", "f16", "global", "(9, 4) : (4, 1)");
    // The tile's rows merged into one iter, so that nothing splits a vector at a row.
    let tile = ty("8x4", "f16", "global", "(32) : (1)");
    let z_t = ty("16x4", "f16", "global", "(16, 4) : (4, 1)");
    let reg = ty("8x4", "f16", "register", "(4, 8) : (1@lane, 1@reg)");
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @spans(%x: memref<36xf16> {{axe.align = 16 : i64}}, %z: memref<64xf16> {{axe.align = 16 : i64}}) {{
    %X = axe.view %x : memref<36xf16> to {x_t}
    %Z = axe.view %z : memref<64xf16> to {z_t}
    axe.kernel grid [2] threads [32] {{
      %c = axe.unit_id cta
      %c8 = arith.constant 8 : index
      %o = arith.muli %c, %c8 : index
      %xs = axe.slice %X [%o : +8, 0 : 4] {{clip}} : {x_t} to {tile}
      %zs = axe.slice %Z [%o : +8, 0 : 4] : {z_t} to {tile}
      %v = axe.alloc : {reg}
      axe.copy %xs, %v : {tile}, {reg}
      axe.copy %v, %zs : {reg}, {tile}
    }}
    return
  }}
}}"
    );
    // X's 36 halves (small integers, exact in f16), then sentinel ones past the tensor.
    let mut x: Vec<u16> = (0..36).map(|i| 0x4000 + i as u16 * 0x10).collect();
    x.resize(64, 0x3C00);
    let xb = Buf::new(&x);
    let z = Buf::new(&[0xFFFFu16; 64]);
    run(&text, "spans", &mut [(xb.ptr as _, 36), (z.ptr as _, 64)]);
    let got = z.get();
    for i in 0..64 {
        let want = if i < 36 { x[i] } else { 0 };
        assert_eq!(got[i], want, "Z element {i} (row {}, column {})", i / 4, i % 4);
    }
}

/// One of the MoE layer's generator functions or values in the `axe_gen.moe` package
/// (`python/axe_gen/moe.py`; `call`, e.g. `route(MODELS['qwen3-30b-a3b'], 4, 8)`), as text.
fn gen_moe(call: &str) -> String {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::process::Command::new("python3")
        .env("PYTHONPATH", format!("{root}/python"))
        .args([
            "-c",
            &format!("from axe_gen import moe; from axe_gen.moe import MODELS; print(moe.{call})"),
        ])
        .output()
        .expect("python3 runs the generator");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The MoE routing plan from its definition (the oracle of the routing kernels): each expert's
/// assignments in order, padded to whole `bm`-row tiles, experts in order. Returns each
/// assignment's row, the row tile -> expert map (-1 past the used tiles, `tiles` long) and the
/// number of used tiles.
fn routing_plan(ids: &[i64], experts: usize, bm: i64, tiles: usize) -> (Vec<i64>, Vec<i32>, i32) {
    let mut counts = vec![0i64; experts];
    ids.iter().for_each(|&e| counts[e as usize] += 1);
    let rows: Vec<i64> = counts.iter().map(|c| (c + bm - 1) / bm * bm).collect();
    let starts: Vec<i64> = (0..experts).map(|e| rows[..e].iter().sum()).collect();
    let mut rank = vec![0i64; experts];
    let pos: Vec<i64> = ids
        .iter()
        .map(|&e| {
            rank[e as usize] += 1;
            starts[e as usize] + rank[e as usize] - 1
        })
        .collect();
    let total: i64 = rows.iter().sum();
    let mut tile_e = vec![-1i32; tiles];
    for e in 0..experts {
        for j in 0..rows[e] / bm {
            tile_e[(starts[e] / bm + j) as usize] = e as i32;
        }
    }
    (pos, tile_e, (total / bm) as i32)
}

/// A model's MoE shapes as `axe_gen.moe.MoEConfig` gives them: (experts with the shared ones,
/// assignments per token, hidden size).
fn moe_shapes(model: &str) -> (usize, usize, usize) {
    let get = |field: &str| gen_moe(&format!("MODELS['{model}'].{field}")).trim().parse().unwrap();
    (get("n_experts"), get("slots"), get("hidden"))
}

/// Runs the routing step of `axe_gen.moe` for `model` and `t` tokens with `bm`-row tiles (one
/// kernel up to 32 tokens, else the segmented pair) on `ids` in the CPU emulation and compares
/// it with `routing_plan`.
fn check_routing(model: &str, t: usize, bm: i64, ids: &[i64]) {
    let (experts, slots, _) = moe_shapes(model);
    let n = t * slots;
    assert_eq!(ids.len(), n);
    let tiles = n / bm as usize + experts.min(n);
    let cfg = format!("MODELS['{model}']");
    let name = |kind: &str, bm: Option<i64>| {
        let tag = gen_moe(&format!("MODELS['{model}'].tag")).trim().to_string();
        format!("moe_{tag}_{kind}_t{t}") + &bm.map(|b| format!("_bm{b}")).unwrap_or_default()
    };
    let idb = Buf::new(ids);
    let pos = Buf::new(&vec![-7i64; n]);
    let tile_e = Buf::new(&vec![7i32; tiles]);
    let used = Buf::new(&[0i32]);
    if t <= 32 {
        let padded = Buf::new(&vec![0i64; experts]);
        run(
            &gen_moe(&format!("route({cfg}, {t}, {bm})")),
            &name("route", Some(bm)),
            &mut [
                (idb.ptr as _, n),
                (pos.ptr as _, n),
                (tile_e.ptr as _, tiles),
                (used.ptr as _, 1),
                (padded.ptr as _, experts),
            ],
        );
    } else {
        let segs = n.div_ceil(256);
        let counts = Buf::new(&vec![-1i64; segs * experts]);
        run(
            &gen_moe(&format!("route_count({cfg}, {t})")),
            &name("route_count", None),
            &mut [(idb.ptr as _, n), (counts.ptr as _, segs * experts)],
        );
        let padded = Buf::new(&vec![0i64; segs * experts]);
        run(
            &gen_moe(&format!("route_place({cfg}, {t}, {bm})")),
            &name("route_place", Some(bm)),
            &mut [
                (idb.ptr as _, n),
                (pos.ptr as _, n),
                (tile_e.ptr as _, tiles),
                (used.ptr as _, 1),
                (counts.ptr as _, segs * experts),
                (padded.ptr as _, segs * experts),
            ],
        );
    }
    let (want_pos, want_tiles, want_used) = routing_plan(ids, experts, bm, tiles);
    let what = format!("{model}, {t} tokens, {bm}-row tiles");
    assert_eq!(pos.get(), want_pos, "rows of the assignments ({what})");
    assert_eq!(tile_e.get(), want_tiles, "row tile -> expert ({what})");
    assert_eq!(used.get(), vec![want_used], "used tiles ({what})");
}

/// The MoE routing kernel of `axe_gen.moe` (Qwen3-30B-A3B, 4 tokens, 8 experts each,
/// 8-row tiles), generated by the script and run in the CPU emulation (one CTA, a thread per
/// expert, a barrier between counting and placing), against `routing_plan`.
#[test]
fn moe_routing_kernel_matches_its_definition() {
    // 32 assignments: expert 3 seven times, 127 twice, the others spread (some experts twice).
    let ids: Vec<i64> = (0..32)
        .map(|i: i64| match i % 9 {
            0 | 4 => 3,
            7 => 127,
            _ => (i * 37) % 128,
        })
        .collect();
    check_routing("qwen3-30b-a3b", 4, 8, &ids);
}

/// The segmented routing kernels for larger batches (`route_count` then `route_place`) in the
/// CPU emulation, against `routing_plan`: 64 tokens (512 assignments, two CTAs of 256) with
/// 16-row tiles, and 96 tokens (three CTAs) with 128-row tiles. The ids make experts span the
/// segments (so a row depends on the other CTAs' counts), fill some tiles exactly and leave
/// most experts empty.
#[test]
fn moe_segmented_routing_matches_its_definition() {
    for (t, bm) in [(64usize, 16i64), (96, 128)] {
        let ids: Vec<i64> = (0..(t * 8) as i64)
            .map(|i| match i % 11 {
                0 | 5 => 3,
                3 => 127,
                7 => 64 + (i % 3),
                _ => (i * 29) % 40,
            })
            .collect();
        check_routing("qwen3-30b-a3b", t, bm, &ids);
    }
}

/// Each token's assignments as a model's router makes them: `topk` distinct routed experts
/// (a pseudo-random walk, skewed towards the low ids), then every shared expert.
fn moe_ids(t: usize, routed: usize, topk: usize, shared: usize, seed: u64) -> Vec<i64> {
    let mut state = seed;
    let mut ids = Vec::new();
    for _ in 0..t {
        let mut mine: Vec<i64> = Vec::new();
        while mine.len() < topk {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let r = (state >> 33) as usize;
            let e = if r.is_multiple_of(3) {
                r % routed.min(4)
            } else {
                r % routed
            } as i64;
            if !mine.contains(&e) {
                mine.push(e);
            }
        }
        ids.extend(mine);
        ids.extend((routed..routed + shared).map(|e| e as i64));
    }
    ids
}

/// The routing step for the other published configurations, against `routing_plan`: Mixtral
/// (8 experts, top-2; 200 tokens: 400 assignments, a partial last segment), DeepSeek-V2-Lite
/// (64 routed + 2 shared experts, top-6; 40 tokens: 320 assignments, the shared experts in
/// every token's), Llama-4-Scout (16 + 1 shared, top-1; one kernel at 16 tokens) and
/// DeepSeek-V3 (256 + 1 shared, top-8: a CTA of 257 threads).
#[test]
fn moe_routing_for_other_models_matches_its_definition() {
    check_routing("mixtral-8x7b", 200, 128, &moe_ids(200, 8, 2, 0, 1));
    check_routing("mixtral-8x7b", 3, 8, &moe_ids(3, 8, 2, 0, 2));
    check_routing("deepseek-v2-lite", 40, 32, &moe_ids(40, 64, 6, 2, 3));
    check_routing("llama-4-scout", 16, 16, &moe_ids(16, 16, 1, 1, 4));
    check_routing("deepseek-v3", 40, 16, &moe_ids(40, 256, 8, 1, 5));
}

/// The f16 bits of `x`, which must be a normal f16 number exactly (the tests' values are).
fn f16_bits(x: f32) -> u16 {
    if x == 0.0 {
        return 0;
    }
    let b = x.to_bits();
    let (sign, exp, man) = ((b >> 16) & 0x8000, ((b >> 23) & 0xff) as i32 - 127 + 15, b & 0x7f_ffff);
    assert!((1..31).contains(&exp) && man & 0x1fff == 0, "{x} is not a normal f16");
    (sign | ((exp as u32) << 10) | (man >> 13)) as u16
}

/// f32 -> f16 bits, rounded to nearest even (normal results only).
fn f16_round(x: f32) -> u16 {
    let b = x.to_bits();
    let (sign, exp, man) = ((b >> 16) & 0x8000, ((b >> 23) & 0xff) as i32 - 127 + 15, b & 0x7f_ffff);
    if x == 0.0 || exp < 1 {
        return sign as u16;
    }
    let (keep, rest) = (man >> 13, man & 0x1fff);
    let up = rest > 0x1000 || (rest == 0x1000 && keep & 1 == 1);
    ((sign | ((exp as u32) << 10)) + keep + up as u32) as u16
}

/// The MoE layer's gather and weighted combine (`axe_gen.moe.gather` / `combine`) for hidden
/// sizes other than the paper's 2048 (Mixtral's 4096: 512 threads; DeepSeek-V3's 7168: 896
/// threads, 9 assignments per token with the shared expert), in the CPU emulation: the
/// gather against the rows it must write (each token's row at each of its assignments' rows;
/// no other row written), the combine against the weighted sum in f32 from its definition,
/// rounded to f16.
#[test]
fn moe_gather_and_combine_for_other_hidden_sizes() {
    for (model, t) in [("mixtral-8x7b", 3usize), ("deepseek-v3", 2)] {
        let (_, slots, h) = moe_shapes(model);
        let n = t * slots;
        let rows: usize = gen_moe(&format!("combine_rows(MODELS['{model}'], {t})"))
            .trim()
            .parse()
            .unwrap();
        let tag = gen_moe(&format!("MODELS['{model}'].tag")).trim().to_string();
        // Assignment k of token i goes to row 5 n - 3 (i slots + k) (distinct, spread).
        let pos: Vec<i64> = (0..n as i64).map(|a| 5 * n as i64 - 3 * a).collect();
        let value = |r: usize, c: usize| ((r * 7 + c * 3) % 64) as f32 / 16.0 - 2.0;
        let x: Vec<u16> = (0..t * h).map(|i| f16_bits(value(i / h, i % h))).collect();
        let xb = Buf::new(&x);
        let posb = Buf::new(&pos);
        let xp = Buf::new(&vec![0x7e00u16; rows * h]); // NaN: rows not written stay so
        run(
            &gen_moe(&format!("gather(MODELS['{model}'], {t})")),
            &format!("moe_{tag}_gather_t{t}"),
            &mut [(xb.ptr as _, t * h), (posb.ptr as _, n), (xp.ptr as _, rows * h)],
        );
        let got = xp.get();
        let mut want = vec![0x7e00u16; rows * h];
        for (a, &p) in pos.iter().enumerate() {
            want[p as usize * h..(p as usize + 1) * h].copy_from_slice(&x[(a / slots) * h..(a / slots + 1) * h]);
        }
        assert!(
            got == want,
            "{model}: the gathered rows differ from each token's row at its assignments' rows"
        );
        // The combine: Y's rows at `pos`, weights k / 4 (exact), summed in f32.
        let y: Vec<u16> = (0..rows * h).map(|i| f16_bits(value(i / h + 1, i % h))).collect();
        let w: Vec<f32> = (0..n).map(|a| (a % 5) as f32 / 4.0 - 0.25).collect();
        let yb = Buf::new(&y);
        let wb = Buf::new(&w);
        let out = Buf::new(&vec![0u16; t * h]);
        run(
            &gen_moe(&format!("combine(MODELS['{model}'], {t})")),
            &format!("moe_{tag}_combine_t{t}"),
            &mut [
                (yb.ptr as _, rows * h),
                (posb.ptr as _, n),
                (wb.ptr as _, n),
                (out.ptr as _, t * h),
            ],
        );
        let got = out.get();
        for i in 0..t {
            for c in 0..h {
                let mut acc = 0f32;
                for k in 0..slots {
                    let a = i * slots + k;
                    acc += w[a] * f16_to_f32(y[pos[a] as usize * h + c]);
                }
                assert_eq!(
                    got[i * h + c],
                    f16_round(acc),
                    "{model}: combined token {i}, column {c}: {} against {acc}",
                    f16_to_f32(got[i * h + c])
                );
            }
        }
    }
}

/// `axe.iota` on registers distributed over lanes, warps and registers (the wgmma D fragment
/// of a 64x16 tile over one warpgroup, and a replicated 64x1 column): every element of the
/// copy to global memory is its own row or column index, whichever thread holds it — the
/// oracle is the coordinate itself, not the layout.
#[test]
fn iota_rows_and_columns() {
    let acc = "#axe.layout<(4, 2, 8, 2, 4, 2) : (1@warp, 2@reg, 4@lane, 4@reg, 1@lane, 1@reg)>";
    let col = "#axe.layout<(4, 2, 8) : (1@warp, 2@reg, 4@lane) + [(4) : (1@lane)]>";
    let g = ty("64x16", "f32", "global", "(64, 16) : (16, 1)");
    let g1 = ty("64x1", "i32", "global", "(64, 1) : (1, 1)");
    let text = format!(
        "module attributes {{axe.target = #axe.target<\"sm_90\">}} {{
  func.func @k(%r: memref<1024xf32>, %c: memref<1024xf32>, %q: memref<64xi32>) {{
    %R = axe.view %r : memref<1024xf32> to {g}
    %C = axe.view %c : memref<1024xf32> to {g}
    %Q = axe.view %q : memref<64xi32> to {g1}
    axe.kernel grid [1] threads [128] {{
      %rows = axe.alloc : !axe.tensor<64x16xf32, register, {acc}>
      %cols = axe.alloc : !axe.tensor<64x16xf32, register, {acc}>
      %qr = axe.alloc : !axe.tensor<64x1xi32, register, {col}>
      axe.iota %rows dim 0 : !axe.tensor<64x16xf32, register, {acc}>
      axe.iota %cols dim 1 : !axe.tensor<64x16xf32, register, {acc}>
      axe.iota %qr dim 0 : !axe.tensor<64x1xi32, register, {col}>
      axe.copy %rows, %R : !axe.tensor<64x16xf32, register, {acc}>, {g}
      axe.copy %cols, %C : !axe.tensor<64x16xf32, register, {acc}>, {g}
      axe.copy %qr, %Q : !axe.tensor<64x1xi32, register, {col}>, {g1}
    }}
    return
  }}
}}"
    );
    let r = Buf::new(&vec![-1f32; 1024]);
    let c = Buf::new(&vec![-1f32; 1024]);
    let q = Buf::new(&vec![-1i32; 64]);
    run(
        &text,
        "k",
        &mut [(r.ptr as _, 1024), (c.ptr as _, 1024), (q.ptr as _, 64)],
    );
    let (r, c, q) = (r.get(), c.get(), q.get());
    for i in 0..64 {
        for j in 0..16 {
            assert_eq!(r[i * 16 + j], i as f32, "row index of ({i}, {j})");
            assert_eq!(c[i * 16 + j], j as f32, "column index of ({i}, {j})");
        }
        assert_eq!(q[i], i as i32, "row index of ({i}, 0)");
    }
}
