"""Unit tests of the axe_gen package (no GPU, no compiler needed):

    PYTHONPATH=python python3 -m unittest discover -s python/tests

The emitter's typing and structure, and the MoE layer's configurations and schedules. The
kernels the package writes are run in CPU emulation and checked against their definition by
`tests/cpu_execution.rs` (routing, gather, combine) and lowered by the lit tests."""
import contextlib
import io
import os
import shutil
import subprocess
import unittest

from axe_gen import gemm_mma, gemm_rs, gemm_tma, gemm_ws, matmul, moe
from axe_gen.emitter import (
    F16,
    F32,
    I1,
    I32,
    I64,
    INDEX,
    At,
    EmitError,
    Emitter,
    MemRef,
    Param,
    Span,
    Tensor,
)


def row_kernel() -> str:
    """A kernel that copies row %r of a global matrix into registers and back, through an
    alias, a loop with an iteration argument and an if with a result."""
    e = Emitter("test kernel")
    g = e.alias("g", Tensor((4, 64), F16, "global", "(4, 64) : (64, 1)"))
    row = e.alias("row", Tensor((1, 64), F16, "global", "(1, 64) : (64, 1)"))
    reg = Tensor((1, 64), F16, "register", "(32, 2) : (1@lane, 1@reg)")
    with e.module("sm_90"), e.func("k", [Param("x", MemRef(256, F16), align=16), Param("n", MemRef(1, I64))]) as (x, n):
        X = e.view(x, g, name="X")
        with e.kernel([4], [32]):
            r = e.unit_id("cta", name="r")
            zero, one = e.constant(0), e.constant(1)
            with e.for_(zero, r, one, [zero], args=["acc"], name="total") as loop:
                loop.yield_(e.addi(loop.args[0], one))
            big = e.cmpi("ugt", loop.results[0], one, name="big")
            with e.if_(big, [INDEX], name="pick") as br:
                br.yield_(zero)
                br.else_()
                br.yield_(one)
            e.store(e.index_cast(br.results[0], I64), n, zero)
            h = e.alloc(reg, name="h")
            s = e.slice(X, [At(r, 1), Span(0, 64)], row, name="s")
            e.copy(s, h)
            e.copy(h, s)
    return e.text()


def axe_opt() -> str | None:
    """An axe-opt that runs ($AXE_BIN, target/release, target/debug, $PATH), or None."""
    repo = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    dirs = [os.environ.get("AXE_BIN"), os.path.join(repo, "target", "release"), os.path.join(repo, "target", "debug")]
    for tool in [os.path.join(d, "axe-opt") for d in dirs if d] + [shutil.which("axe-opt")]:
        if tool and os.access(tool, os.X_OK):
            return tool
    return None


AXE_OPT = axe_opt()


def verify(text: str) -> subprocess.CompletedProcess[str]:
    """axe-opt parses and verifies `text` (no passes)."""
    assert AXE_OPT
    return subprocess.run([AXE_OPT, "-"], input=text, capture_output=True, text=True, timeout=120)


class EmitterText(unittest.TestCase):
    def test_aliases_are_printed_once_before_the_module(self) -> None:
        text = row_kernel()
        lines = text.splitlines()
        self.assertEqual(lines[0], "// test kernel")
        self.assertEqual(lines[1], "!g = !axe.tensor<4x64xf16, global, #axe.layout<(4, 64) : (64, 1)>>")
        self.assertEqual(lines[2], "!row = !axe.tensor<1x64xf16, global, #axe.layout<(1, 64) : (64, 1)>>")
        self.assertTrue(lines[3].startswith("module attributes {axe.target = #axe.target<\"sm_90\">}"))
        self.assertEqual(text.count("!g ="), 1)
        self.assertIn("%X = axe.view %x : memref<256xf16> to !g", text)
        self.assertIn("= axe.slice %X [%r : +1, 0 : 64] : !g to !row", text)

    def test_regions_nest_and_close(self) -> None:
        text = row_kernel()
        self.assertEqual(text.count("{") - text.count("{axe.align"), text.count("}") - text.count("{axe.align"))
        self.assertIn("%total = scf.for %i = %c to %r step %c_1 iter_args(%acc = %c) -> (index) {", text)
        self.assertIn("%pick = scf.if %big -> (index) {", text)
        self.assertIn("} else {", text)
        self.assertTrue(text.rstrip().endswith("return\n  }\n}"))

    def test_names_are_unique_where_visible(self) -> None:
        e = Emitter()
        with e.module("sm_90"), e.func("f", []):
            zero = e.constant(0, name="x")
            self.assertEqual(e.constant(1, name="x").name, "x_1")  # %x is visible: renamed
            with e.for_(zero, zero, zero, [zero], args=["x"], name="sum") as loop:
                self.assertEqual(loop.args[0].name, "x_2")
                loop.yield_(e.addi(loop.args[0], zero, name="inner"))
            # The loop body's names end with it; its result stays visible.
            self.assertEqual(e.constant(2, name="inner").name, "inner")
            self.assertEqual(e.constant(3, name="sum").name, "sum_1")

    def test_parameters_carry_their_alignment(self) -> None:
        self.assertIn("func.func @k(%x: memref<256xf16> {axe.align = 16 : i64}, %n: memref<1xi64>) {", row_kernel())

    def test_float_constants_print_a_decimal_point(self) -> None:
        e = Emitter()
        with e.module("sm_90"), e.func("f", []):
            e.constant(0, F32, name="z")
        self.assertIn("%z = arith.constant 0.0 : f32", e.text())


    @unittest.skipUnless(AXE_OPT, "axe-opt is not built")
    def test_the_text_parses_and_verifies(self) -> None:
        done = verify(row_kernel())
        self.assertEqual(done.returncode, 0, done.stderr)


class EmitterTypes(unittest.TestCase):
    def setUp(self) -> None:
        self.e = Emitter()
        self.f = self.e.func("f", [Param("m", MemRef(8, I64))])
        (self.m,) = self.f.__enter__()

    def tearDown(self) -> None:
        self.f.__exit__(None, None, None)

    def test_arith_operands_must_agree(self) -> None:
        with self.assertRaisesRegex(EmitError, "arith.addi: %c_1 is i64, expected index"):
            self.e.addi(self.e.constant(1), self.e.constant(2, I64))

    def test_loads_take_an_index(self) -> None:
        with self.assertRaisesRegex(EmitError, "memref.load index"):
            self.e.load(self.m, self.e.constant(0, I64))

    def test_stores_take_the_element_type(self) -> None:
        with self.assertRaisesRegex(EmitError, "memref.store value"):
            self.e.store(self.e.constant(0), self.m, self.e.constant(0))

    def test_if_takes_an_i1(self) -> None:
        with self.assertRaisesRegex(EmitError, "scf.if condition"), self.e.if_(self.e.constant(1)):
            pass

    def test_yield_must_match_the_loop(self) -> None:
        zero = self.e.constant(0)
        with self.assertRaisesRegex(EmitError, "scf.yield"), self.e.for_(zero, zero, zero, [zero]) as loop:
            loop.yield_(self.e.constant(1, I64))

    def test_copies_need_equal_shapes(self) -> None:
        a = self.e.alloc(Tensor((1, 64), F16, "register"), name="a")
        b = self.e.alloc(Tensor((1, 32), F16, "register"), name="b")
        with self.assertRaisesRegex(EmitError, r"axe.copy: shapes \(1, 64\) and \(1, 32\) differ"):
            self.e.copy(a, b)

    def test_views_take_a_memref(self) -> None:
        with self.assertRaisesRegex(EmitError, "axe.view"):
            self.e.view(self.e.constant(0), Tensor((8,), I64, "global", "(8) : (1)"), name="v")

    def test_aliases_are_defined_once(self) -> None:
        self.e.alias("t", Tensor((1,), F16, "global"))
        with self.assertRaisesRegex(EmitError, "defined twice"):
            self.e.alias("t", Tensor((1,), F16, "global"))

    def test_index_casts_have_an_index_side(self) -> None:
        with self.assertRaisesRegex(EmitError, "index_cast"):
            self.e.index_cast(self.e.constant(0, I64), I1)


class EmitterAsync(unittest.TestCase):
    """The ops of the pipelined GEMMs: async copies and their tokens, split barriers, packed
    loop results, clipped slices."""

    def pipeline(self) -> str:
        e = Emitter()
        g = Tensor((256, 64), F16, "global", "(256, 64) : (64, 1)")
        t = Tensor((128, 64), F16, "global")
        st = Tensor((128, 64), F16, "shared", "(128, 64) : (64, 1)", (3, 3, 3))
        sb = Tensor((64, 64), F16, "shared", "(64, 64) : (64, 1)", (3, 3, 3))
        acc_t = Tensor((128, 64), F32, "register")
        with e.module("sm_90a"), e.func("f", [Param("x", MemRef(256 * 64, F16), 16), Param("m", MemRef(2, I32))]) as (x, m):
            with e.mesh(2):
                X = e.view(x, g, name="X")
                with e.kernel([2], [128], cluster=[2]):
                    rank = e.device_id()
                    c0, c1 = e.constant(0, name="c0"), e.constant(1, name="c1")
                    used = e.cmpi("sge", e.load(m, rank, name="e32"), e.constant(0, I32, name="z32"), name="used")
                    with e.if_(used):
                        sa = e.alloc(st, name="sa")
                        sbv = e.alloc(sb, name="sb")
                        acc = e.alloc(acc_t, name="acc")
                        a = e.slice(X, [At(rank, 128), Span(0, 64)], t, name="at", clip=True)
                        tok = e.copy_async(a, sa, schedule="tma", name="ta")
                        with e.for_(c0, c1, c1, [tok, tok], iv="k", args=["la", "lb"], packed=True) as loop:
                            e.wait(*loop.args)
                            g_ = e.gemm_async(sa, sbv, acc, name="g")
                            e.wait(g_, outstanding=1)
                            rel = e.arrive(name="rel")
                            nxt = e.copy_async(a, sa, schedule="tma", after=rel, name="tn")
                            e.gemm(sa, sbv, acc)
                            loop.yield_(nxt, nxt)
                        e.wait(loop.results[0], loop.results[1])
        return e.text()

    def test_async_ops_print_their_tokens(self) -> None:
        text = self.pipeline()
        self.assertIn("%ta = axe.copy async %at, %sa schedule tma : ", text)
        self.assertIn("%tn = axe.copy async %at, %sa schedule tma after %rel : ", text)
        self.assertIn("-> !axe.token", text)
        self.assertIn("%rel = axe.arrive", text)
        self.assertIn("axe.wait %la, %lb", text)
        self.assertIn("axe.wait %g outstanding 1", text)
        self.assertIn("%rank = axe.device_id", text)
        self.assertIn("axe.kernel grid [2] threads [128] cluster [2] {", text)
        self.assertIn("[%rank : +128, 0 : 64] {clip} : ", text)

    def test_packed_results_and_nested_regions(self) -> None:
        text = self.pipeline()
        self.assertIn("%r:2 = scf.for %k = %c0 to %c1 step %c1 iter_args(%la = %ta, %lb = %ta)", text)
        self.assertIn("axe.wait %r#0, %r#1", text)
        lines = text.splitlines()
        # Each region's ops are indented one step past its opener.
        for opener, first in (("axe.mesh", "%X"), ("scf.if %used", "%sa")):
            at = next(i for i, line in enumerate(lines) if opener in line)
            self.assertEqual(lines[at].index(opener.split()[0]) + 2, lines[at + 1].index(first))

    def test_async_operands_are_checked(self) -> None:
        e = Emitter()
        with e.module("sm_90a"), e.func("f", []):
            a = e.alloc(Tensor((64, 64), F16, "shared"), name="a")
            b = e.alloc(Tensor((64, 32), F16, "shared"), name="b")
            with self.assertRaisesRegex(EmitError, "axe.copy async: shapes"):
                e.copy_async(a, b, schedule="tma")
            with self.assertRaisesRegex(EmitError, "axe.copy async after"):
                e.copy_async(a, a, schedule="tma", after=e.constant(0))
            with self.assertRaisesRegex(EmitError, "axe.wait"):
                e.wait(e.constant(0))
            with self.assertRaisesRegex(EmitError, "axe.gemm"):
                e.gemm(a, a, b)
            with self.assertRaisesRegex(EmitError, "axe.slice"):
                e.slice(a, [Span(0, 64)], Tensor((64,), F16, "shared"), name="s")
            # A 1x1 right operand is a broadcast scale; other shapes must agree.
            s = e.alloc(Tensor((1, 1), F16, "shared"), name="s1")
            e.binary("mul", a, s, a)
            with self.assertRaisesRegex(EmitError, "axe.binary mul"):
                e.binary("mul", a, b, a)

    @unittest.skipUnless(AXE_OPT, "axe-opt is not built")
    def test_the_tokens_parse(self) -> None:
        done = verify(self.pipeline().replace(" cluster [2]", ""))
        self.assertEqual(done.returncode, 0, done.stderr)


class GemmTma(unittest.TestCase):
    def test_names_and_structure(self) -> None:
        self.assertEqual(gemm_tma.name(512, 256, 1024, 128, 2), "gemm_512x256x1024_tma_bn128_s2")
        text = gemm_tma.kernel(512, 256, 1024, 128, 2)
        self.assertIn("func.func @gemm_512x256x1024_tma_bn128_s2(%a: memref<524288xf16> {axe.align = 16 : i64}", text)
        self.assertIn("!a_stage = !axe.tensor<128x64xf16, shared, #axe.layout<(128, 64) : (64, 1)>, "
                      "#axe.swizzle<3, 3, 3>>", text)
        self.assertIn("%r:2 = scf.for %k = %c0 to %kend step %kstep iter_args(%la0 = %ta_p0, %lb0 = %tb_p0)", text)
        self.assertEqual(text.count("{"), text.count("}"))

    def test_variants_name_their_options(self) -> None:
        text = gemm_tma.kernel(512, 256, 1024, 128, 3, 1, 8, "sm_90", 2)
        self.assertIn("%ta_l1 = axe.copy async %at_l1, %sa0 schedule tma after %rel_l0", text)
        fp8 = gemm_tma.kernel(1000, 1000, 1008, 128, 2, 1, 8, "sm_90a", 0, "e4m3", "bf16")
        self.assertIn("{clip}", fp8)
        self.assertIn("{transpose_b}", fp8)
        self.assertIn("%scale_a: memref<1xf32>", fp8)
        rs = gemm_tma.kernel(2048, 1024, 2048, 256, 4, 1, 8, "sm_90a", 1, "f16", "f16", ranks=2)
        self.assertIn("axe.mesh [2] {", rs)
        self.assertIn("axe.signal_wait %fl1, %epoch", rs)

    def test_refusals(self) -> None:
        with self.assertRaisesRegex(AssertionError, "RELEASE 2"):
            gemm_tma.kernel(512, 256, 1024, 128, 3, 1, 8, "sm_90a", 2)

    @unittest.skipUnless(AXE_OPT, "axe-opt is not built")
    def test_kernels_parse_and_verify(self) -> None:
        variants: list[gemm_tma.Variant] = [(512, 256, 1024, 128, 2),
                                            (512, 256, 1024, 128, 3, 1, 8, "sm_90", 1, "f16", "f32", 0, 1),
                                            (1000, 1000, 1008, 128, 2, 1, 8, "sm_90a", 0, "e4m3", "bf16")]
        for v in variants:
            done = verify(gemm_tma.kernel(*v))
            self.assertEqual(done.returncode, 0, done.stderr)
        done = verify(gemm_tma.kernel(512, 1024, 1024, 128, 2, 1, 1, "sm_90a", 0, "f16", "f16", experts=4, swiglu=64))
        self.assertEqual(done.returncode, 0, done.stderr)


class GemmMma(unittest.TestCase):
    def test_structure(self) -> None:
        text = gemm_mma.kernel(512, 256, 1024, 64)
        self.assertIn("func.func @gemm_512x256x1024_bk64(", text)
        self.assertIn("%tak1 = axe.copy async %atk1, %sa1 schedule cp_async : !a_tile, !a_stage -> !axe.token", text)
        self.assertEqual(text.count("axe.wait outstanding 2"), 3)
        self.assertEqual(text.count("axe.gemm %sa"), 4)

    @unittest.skipUnless(AXE_OPT, "axe-opt is not built")
    def test_kernel_parses_and_verifies(self) -> None:
        done = verify(gemm_mma.kernel(512, 256, 1024))
        self.assertEqual(done.returncode, 0, done.stderr)


class GemmWs(unittest.TestCase):
    def test_options_are_the_keywords(self) -> None:
        # The positional call of the drivers, its keywords and the frozen configuration agree.
        positional = gemm_ws.kernel(256, 256, 512, 128, 2, "f32", 1, 8, 2, 0, 1, "f16", 1, "sm_90")
        options = gemm_ws.Options(bn=128, stages=2, out="f32", sms=2, regs=0, tma_store=1, chip="sm_90")
        self.assertEqual(positional, gemm_ws.generate(256, 256, 512, options))
        self.assertEqual(positional, gemm_ws.kernel(256, 256, 512, bn=128, stages=2, out="f32", sms=2, regs=0,
                                                    tma_store=1, chip="sm_90"))
        self.assertEqual(options.name(256, 256, 512), "gemm_256x256x512_ws_bn128_s2_p_sm2_nr_ts_mma")

    def test_roles_and_barriers(self) -> None:
        text = gemm_ws.kernel(512, 512, 1024, 256, 4, "f16", 1, 8, 4, 1, 2, "f16", 2)
        self.assertIn("axe.kernel grid [4] threads [384] cluster [2] {", text)
        self.assertIn("%cta = axe.unit_id cluster", text)
        self.assertIn("axe.copy async %bt0, %sb0 schedule tma barrier %full0 multicast [0] : !b_tile, !b_stage", text)
        self.assertIn("axe.mbarrier_arrive %empty3 cta %lane", text)
        self.assertIn("axe.wait outstanding 0", text)
        self.assertEqual(text.count("axe.scope warpgroup"), 3)

    def test_the_compiler_builds_the_tma_store_form(self) -> None:
        self.assertIn("axe.matmul %A, %B, %C {schedule = #axe.matmul_schedule<tile_m = 128, tile_n = 256",
                      gemm_ws.kernel(4096, 4096, 4096, 256, 4, "f16", 1, 8, 132, 1, 1))

    def test_the_reduce_scatter_forms(self) -> None:
        reduce = gemm_ws.kernel(2048, 1024, 2048, 256, 4, "f16", 1, 8, 16, 1, 1, ranks=2, cooperative=False,
                                reduce=True)
        self.assertIn("schedule tma reduce sum", reduce)
        comm = gemm_ws.kernel(2048, 1024, 2048, 256, 4, "f16", 1, 8, 16, 1, 1, ranks=2, cooperative=False, comm=2)
        lines = comm.splitlines()
        # The communication CTAs' branch, then the computing CTAs' (else), each indented.
        at = next(i for i, line in enumerate(lines) if line.strip() == "} else {")
        self.assertEqual(lines[at].index("}") + 2, lines[at + 1].index("axe.scope"))

    def test_the_command_line_takes_named_options(self) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            gemm_ws.main(["256", "256", "512", "--bn", "128", "--stages", "2", "--out", "f32", "--sms", "2",
                          "--regs", "0", "--tma-store", "1", "--chip", "sm_90"])
        self.assertEqual(out.getvalue(), gemm_ws.kernel(256, 256, 512, 128, 2, "f32", 1, 8, 2, 0, 1, "f16", 1, "sm_90"))

    @unittest.skipUnless(AXE_OPT, "axe-opt is not built")
    def test_kernels_parse_and_verify(self) -> None:
        for text in (gemm_ws.kernel(256, 256, 512, 128, 2, "f32", 1, 8, 2, 0, 1, "f16", 1, "sm_90"),
                     gemm_ws.kernel(256, 256, 512, 128, 2, "f32", 1, 8, 2, 1, 1, "f16", 2, "sm_90a-mma-frag"),
                     gemm_ws.kernel(2048, 1024, 2048, 256, 4, "f16", 1, 8, 16, 1, 1, ranks=2, pushers=True)):
            done = verify(text)
            self.assertEqual(done.returncode, 0, done.stderr)


class GemmRs(unittest.TestCase):
    def test_names_and_interfaces(self) -> None:
        self.assertEqual(gemm_rs.name_ws(8192, 1024, 4096, 2, sms=16, cooperative=False, bulk=True, defer=True,
                                         async_push=2), "gemm_rs_8192x1024x4096_r2_ws_b_sm16_nc_a2")
        text = gemm_rs.write(2048, 1024, 4096, 2)
        self.assertIn("func.func @gemm_rs_2048x1024x4096_r2(%a: memref<4194304xf16> {axe.align = 16 : i64}, "
                      "%b: memref<2097152xf16> {axe.align = 16 : i64}, %p: memref<2097152xf16> {axe.align = 16 : i64}, "
                      "%y: memref<1048576xf16> {axe.align = 16 : i64}, %flags: memref<64xi32>, %epoch: i32) {", text)
        self.assertIn("%rank = axe.device_id", text)
        reduce = gemm_rs.write_ws(2048, 1024, 4096, 2, 16, False, reduce=True)
        self.assertIn("%flags: memref<128xi32>, %epoch: i32) {", reduce)

    def test_the_command_line(self) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            gemm_rs.main(["--ws", "2048", "1024", "4096", "2", "16", "0", "async2"])
        self.assertEqual(out.getvalue(), gemm_rs.write_ws(2048, 1024, 4096, 2, 16, False, True, True, async_push=2))

    @unittest.skipUnless(AXE_OPT, "axe-opt is not built")
    def test_kernels_parse_and_verify(self) -> None:
        for text in (gemm_rs.write(2048, 1024, 4096, 2), gemm_rs.write_ws(2048, 1024, 4096, 2, 16, False, comm=2)):
            done = verify(text)
            self.assertEqual(done.returncode, 0, done.stderr)


class Matmul(unittest.TestCase):
    def test_the_op_carries_its_parts_in_order(self) -> None:
        text = matmul.module(16, 4096, 14336, "bf16", "bf16", bias=True, activation="gelu", residual=True,
                             workspace=True, schedule="stages = 8")
        self.assertIn("axe.matmul %A, %B, %C bias(%BIAS : !bias) activation gelu residual(%R : !residual) "
                      "workspace(%P, %F : !partials, !flags) {schedule = #axe.matmul_schedule<stages = 8>} "
                      ": !a, !b, !c", text)
        self.assertIn("!flags = !axe.tensor<1x64xi32, global, #axe.layout<(1, 64) : (64, 1)>>", text)

    def test_fp8_takes_b_transposed_and_its_scales(self) -> None:
        text = matmul.module(128, 7168, 2048, "e4m3b", "bf16")
        self.assertIn("!scale_a = !axe.tensor<128x16xf32, global, #axe.layout<(128, 16) : (1, 128)>>", text)
        self.assertIn("scales(%SA, %SB : !scale_a, !scale_b) {transpose_b}", text)

    def test_a_gathered_product_runs_in_a_mesh(self) -> None:
        text = matmul.module(8192, 14336, 4096, gate="silu", gather=4)
        self.assertIn("axe.mesh [4] {", text)
        self.assertIn("gate silu gather(%G, %GF, %epoch : !g, !gf)", text)

    def test_shapes_must_agree(self) -> None:
        e = Emitter()
        with e.module("sm_90a"), e.func("f", []):
            a = e.alloc(Tensor((64, 128), F16, "global"), name="a")
            b = e.alloc(Tensor((64, 256), F16, "global"), name="b")
            c = e.alloc(Tensor((64, 256), F16, "global"), name="c")
            with self.assertRaisesRegex(EmitError, "axe.matmul"):
                e.matmul(a, b, c)

    @unittest.skipUnless(AXE_OPT, "axe-opt is not built")
    def test_modules_parse_and_verify(self) -> None:
        for text in (matmul.module(100, 4096, 4096, workspace=True), matmul.module(64, 4096, 4096, "e4m3", "bf16"),
                     matmul.module(8192, 14336, 4096, gate="silu", gather=2, up=True),
                     matmul.module(200, 1000, 512, bias=True, activation="gelu", residual=True)):
            done = verify(text)
            self.assertEqual(done.returncode, 0, done.stderr)


class MoE(unittest.TestCase):
    def test_every_published_configuration_is_served(self) -> None:
        for cfg in moe.MODELS.values():
            cfg.check()

    def test_refusals_name_the_field(self) -> None:
        with self.assertRaisesRegex(ValueError, "hidden size 2000 is not a multiple of 256"):
            moe.MoEConfig("odd", 2000, 768, 8, 2).check()
        with self.assertRaisesRegex(ValueError, "1025 experts"):
            moe.MoEConfig("many", 2048, 768, 1025, 2).check()

    def test_tile_bound_covers_any_routing(self) -> None:
        # Every expert with tokens adds at most one partial tile: the bound must hold for the
        # worst routing, each of min(E, T K) experts with one assignment more than whole tiles.
        cfg = moe.MODELS["deepseek-v2-lite"]
        for t in (1, 3, 64, 1000):
            for bm in moe.ROW_TILES:
                n = t * cfg.slots
                busy = min(cfg.n_experts, n)
                counts = [n // busy + (1 if i < n % busy else 0) for i in range(busy)]
                self.assertLessEqual(sum(-(-c // bm) for c in counts), moe.max_tiles(cfg, t, bm))

    def test_kernels_declare_their_interface(self) -> None:
        cfg = moe.MODELS["deepseek-v3"]
        text = moe.gather(cfg, 4)
        self.assertIn(f"func.func @moe_dsv3_gather_t4(%x: memref<{4 * 7168}xf16> {{axe.align = 16 : i64}}", text)
        self.assertIn(f"axe.kernel grid [4] threads [{7168 // 8}]", text)
        self.assertEqual(text.count("axe.copy %h, %d"), cfg.slots)
        place = moe.route_place(cfg, 100, 16)
        self.assertIn(f"axe.kernel grid [{moe.route_segments(cfg, 100)}] threads [{cfg.n_experts}]", place)

    @unittest.skipUnless(AXE_OPT, "axe-opt is not built")
    def test_kernels_parse_and_verify(self) -> None:
        cfg = moe.MODELS["llama-4-scout"]
        for text in (moe.gather(cfg, 3), moe.combine(cfg, 3), moe.route(cfg, 3, 8), moe.route_count(cfg, 300),
                     moe.route_place(cfg, 300, 32)):
            done = verify(text)
            self.assertEqual(done.returncode, 0, done.stderr)


if __name__ == "__main__":
    unittest.main()
