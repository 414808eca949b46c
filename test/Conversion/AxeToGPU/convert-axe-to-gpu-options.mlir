// The pass's options reach the Rust body typed: MLIR's own option parser refuses an unknown
// option or an ill-typed value (before the pass runs), and the Rust body reads the values the
// C++ shell prints back (PassOptions::parse, generated from AxePasses.td) and refuses a chip
// that is no GPU target. Each error is clean, with a non-zero exit.

// Both options set, through the textual pipeline: the kernel lowers to loops (emulation).
// RUN: axe-opt %s '--pass-pipeline=builtin.module(convert-axe-to-gpu{chip=sm_90a emulate-threads-on-cpu=true})' | FileCheck %s --check-prefix=EMULATE
// EMULATE-LABEL: func.func @kernel
// EMULATE-NOT: gpu.launch
// EMULATE: scf.for
// EMULATE-NOT: gpu.launch

// The defaults (the shell prints `chip= emulate-threads-on-cpu=false`): a gpu.launch.
// RUN: axe-opt %s --convert-axe-to-gpu | FileCheck %s --check-prefix=DEFAULT
// DEFAULT: gpu.launch

// RUN: not axe-opt %s --convert-axe-to-gpu=chip=sm_75 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: convert-axe-to-gpu: chip 'sm_75' is not a GPU target (sm_80, sm_90, sm_90a, sm_100, trn1)

// A string with a space travels braced (`chip={sm 90}`) and reaches the Rust body whole.
// RUN: not axe-opt %s '--pass-pipeline=builtin.module(convert-axe-to-gpu{chip={sm 90}})' 2>&1 | FileCheck %s --check-prefix=SPACE
// SPACE: error: convert-axe-to-gpu: chip 'sm 90' is not a GPU target

// RUN: not axe-opt %s --convert-axe-to-gpu=emulate-threads-on-cpu=maybe 2>&1 | FileCheck %s --check-prefix=BOOL
// BOOL: for the --emulate-threads-on-cpu option: 'maybe' is invalid value for boolean argument

// RUN: not axe-opt %s --convert-axe-to-gpu=bogus=1 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: <Pass-Options-Parser>: no such option bogus

func.func @kernel() {
  axe.kernel grid [1] threads [8] {
  }
  return
}
