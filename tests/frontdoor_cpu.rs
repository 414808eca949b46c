//! The front door end to end on the CPU, against onnxruntime: the ONNX graphs of
//! `test/Conversion/LinalgToAxe/Inputs/make_models.py`, as torch-mlir imported them (the
//! checked-in linalg), go through `axe-from-linalg-pipeline` (one Axe row kernel each) and
//! `axe-emulate-on-cpu-pipeline` (threads and CTAs as loops), run JIT-compiled, and their
//! outputs are compared with onnxruntime's for the same inputs (`<model>.ort`, written by the
//! same script: an oracle nobody here wrote).

mod common;

use common::{context, f16_to_f32, Buf};
use melior::ir::Module;
use melior::pass::PassManager;
use melior::utility::parse_pass_pipeline;
use melior::ExecutionEngine;

const INPUTS: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/test/Conversion/LinalgToAxe/Inputs");

/// An f16 input buffer of `make_models.test_input`: exact in f16 (multiples of 1/256, a norm
/// weight's (32..95)/64, a bias's (-16..16)/32), as bits.
fn test_input(name: &str, n: usize) -> Vec<u16> {
    (0..n as i64)
        .map(|i| {
            let v = if name == "g" {
                ((i * 31) % 64 + 32) as f32 / 64.0
            } else if name == "b" {
                ((i * 13) % 33 - 16) as f32 / 32.0
            } else {
                ((i * 7919) % 2001 - 1000) as f32 / 256.0
            };
            exact_f16(v)
        })
        .collect()
}

/// The f16 bits of `v`, which must be 0 or a normal f16 with at most 11 significant bits.
fn exact_f16(v: f32) -> u16 {
    if v == 0.0 {
        return 0;
    }
    let bits = v.to_bits();
    let sign = ((bits >> 16) & 0x8000) as u16;
    let exp = ((bits >> 23) & 0xff) as i32 - 127 + 15;
    let frac = bits & 0x7f_ffff;
    assert!((1..31).contains(&exp) && frac & 0x1fff == 0, "{v} is not exact in f16");
    sign | ((exp as u16) << 10) | (frac >> 13) as u16
}

/// onnxruntime's output for `model` (f16 bits).
fn ort_output(model: &str) -> Vec<u16> {
    let hex = std::fs::read_to_string(format!("{INPUTS}/{model}.ort")).expect("the .ort file");
    let hex = hex.trim();
    (0..hex.len() / 4)
        .map(|i| u16::from_str_radix(&hex[4 * i..4 * i + 4], 16).expect("hex"))
        .collect()
}

/// Runs the torch-mlir module of `model` (function `model`) through the front door on the
/// CPU with `inputs` (f16 buffers with their shapes), returning the output buffer (the out
/// parameter buffer-results-to-out-params adds, of `out_shape`).
fn run(model: &str, inputs: &[(Vec<u16>, Vec<i64>)], out_shape: &[i64]) -> Vec<u16> {
    let text = std::fs::read_to_string(format!("{INPUTS}/{model}.mlir")).expect("the model's linalg");
    // The C interface, for calling the function with memref descriptors.
    let start = text
        .find(&format!("func.func @{model}("))
        .expect("the model's function");
    let body = start + text[start..].find(" {\n").expect("its body");
    let text = format!(
        "{} attributes {{llvm.emit_c_interface}}{}",
        &text[..body],
        &text[body..]
    );
    let context = context();
    let mut module = Module::parse(&context, &text).expect("the model parses");
    let lower = |module: &mut Module, pipeline: &str| {
        let pm = PassManager::new(&context);
        parse_pass_pipeline(pm.as_operation_pass_manager(), pipeline).unwrap();
        pm.run(module)
            .expect("the front door and the emulation lower the model");
    };
    lower(
        &mut module,
        "builtin.module(axe-from-linalg-pipeline{threads-per-row=1})",
    );
    // Buffers 64-byte aligned (what cudaMalloc gives), checked against the alignment the
    // converted function declares, as a launcher must: the emulated kernels' vector accesses
    // rely on it.
    let n_out: i64 = out_shape.iter().product();
    let mut data: Vec<Vec<u16>> = inputs.iter().map(|(d, _)| d.clone()).collect();
    data.push(vec![0xffff; n_out as usize]); // NaN: an element not written fails
    let buffers: Vec<Buf<u16>> = data.iter().map(|d| Buf::new(d)).collect();
    let addresses: Vec<usize> = buffers.iter().map(|b| b.ptr as usize).collect();
    axe::launch::check_alignment(&module, model, &addresses).expect("the buffers are aligned as declared");
    lower(&mut module, "builtin.module(axe-emulate-on-cpu-pipeline)");
    let engine = ExecutionEngine::new(&module, 2, &[], false, false);
    let shapes: Vec<Vec<i64>> = inputs
        .iter()
        .map(|(_, s)| s.clone())
        .chain(std::iter::once(out_shape.to_vec()))
        .collect();
    // A memref descriptor: allocated, aligned, offset, sizes, strides (row-major).
    let mut descs: Vec<Vec<i64>> = buffers
        .iter()
        .zip(&shapes)
        .map(|(b, s)| {
            let p = b.ptr as i64;
            let mut d = vec![p, p, 0];
            d.extend(s);
            let mut stride = 1;
            let mut strides = vec![0; s.len()];
            for k in (0..s.len()).rev() {
                strides[k] = stride;
                stride *= s[k];
            }
            d.extend(strides);
            d
        })
        .collect();
    let mut ptrs: Vec<*mut i64> = descs.iter_mut().map(|d| d.as_mut_ptr()).collect();
    let mut args: Vec<*mut ()> = ptrs.iter_mut().map(|p| p as *mut *mut i64 as *mut ()).collect();
    // SAFETY: `args` points at one live descriptor per argument of the converted function, in
    // its order (the inputs, then the output), each describing a live buffer of its shape.
    unsafe { engine.invoke_packed(model, &mut args) }.expect("the model runs");
    buffers.last().expect("the output").get()
}

/// Within two f16 ulps of onnxruntime's value (both round an f32 computation to f16; the
/// order of the f32 sums differs), plus `slack` where the graph rounds an intermediate to f16
/// that onnxruntime keeps in f32.
fn check(model: &str, got: &[u16], want: &[u16], slack: f32) {
    assert_eq!(got.len(), want.len());
    let mut worst = 0f32;
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        let (g, w) = (f16_to_f32(g), f16_to_f32(w));
        let ulp = 2f32.powi((w.abs().max(2f32.powi(-14))).log2().floor() as i32 - 10);
        assert!(
            (g - w).abs() <= 2.0 * ulp + slack,
            "{model}: element {i} is {g}, onnxruntime {w}"
        );
        worst = worst.max((g - w).abs() / ulp);
    }
    eprintln!("{model}: {} elements within {worst} ulp of onnxruntime", got.len());
}

#[test]
fn softmax_matches_onnxruntime() {
    let (m, k) = (64, 128);
    let x = test_input("X", m * k);
    let got = run("softmax", &[(x, vec![m as i64, k as i64])], &[m as i64, k as i64]);
    check("softmax", &got, &ort_output("softmax"), 0.0);
}

#[test]
fn rmsnorm_matches_onnxruntime() {
    let (m, k) = (64, 128);
    let x = test_input("X", m * k);
    let g = test_input("g", k);
    let got = run(
        "rmsnorm",
        &[(x, vec![m as i64, k as i64]), (g, vec![k as i64])],
        &[m as i64, k as i64],
    );
    check("rmsnorm", &got, &ort_output("rmsnorm"), 0.0);
}

#[test]
fn layernorm_matches_onnxruntime() {
    let (m, k) = (64, 128);
    let inputs = [
        (test_input("X", m * k), vec![m as i64, k as i64]),
        (test_input("g", k), vec![k as i64]),
        (test_input("b", k), vec![k as i64]),
    ];
    let got = run("layernorm", &inputs, &[m as i64, k as i64]);
    // torch-mlir's LayerNorm rounds the normalized rows to f16 before the scale and the bias
    // (onnxruntime's kernel does not): half an f16 ulp of |normalized * g|, at most 4 (rows of
    // these inputs normalize to within +-2.7, g < 1.5), that the bias's addition may expose.
    check("layernorm", &got, &ort_output("layernorm"), 4.0 * 2f32.powi(-11));
}
