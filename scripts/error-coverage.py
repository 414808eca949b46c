#!/usr/bin/env python3
"""Which error sites of the GPU lowering (`convert-axe-to-gpu`) have a lit test.

An error site is a place in `passes/convert_axe_to_gpu/*.rs` that writes the text of an error
message: the string literal or `format!` string given to `AxeError::at`, `AxeError::Message`,
`Err(..)`, `.ok_or(..)`, `.ok_or_else(|| ..)`, `.map_err(|e| ..)` or `ir::error`; to a helper of the
lowering that takes a message (a function or closure with a `String` parameter that it puts
into an error, such as `tma_plan::err`); the `Some(..)` of a function returning
`Option<String>` (a refusal reason its caller reports); or, where the message is a variable or
a call, the `let` or the function that builds it. Each is reported as file:line of its text.

A site whose message starts with `internal:` (or `internal error:`, which the fuzzers' oracles
look for) is an invariant of the lowering (a broken one is a
bug, not a user's error) and is not counted. Each other site counts as tested when the text of
an `expected-error` of a `--verify-diagnostics` test that runs the lowering (`test/Conversion`,
`test/Integration`) holds a distinctive piece of the site's literal text (at least 12
characters of one literal part, or all of the longest part when that is shorter) where the rest
of the test's text agrees with the message (its other literal parts in order, anything in
place of a `{}`, anything before or after it where a caller wraps the message), and no other
site's literal text covers a strict superset of what this site's covers in that text (a short
message found inside a longer one is the longer one's). Sites with the same text are told
apart by nothing here: a test of one counts for each.

    python3 scripts/error-coverage.py            # the untested sites and the summary line
    python3 scripts/error-coverage.py --verbose  # also each tested site and one test of it
    python3 scripts/error-coverage.py --min 90   # exit 1 when below 90 %
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LOWERING = ROOT / "passes" / "convert_axe_to_gpu"
TEST_DIRS = [ROOT / "test" / "Conversion", ROOT / "test" / "Integration"]
# RUN-line words of the tools and pipelines that run the lowering.
LOWERING_RUNS = ("convert-axe-to-gpu", "axe-to-nvvm-pipeline", "axe-lower-to-nvvm")
# The least literal text (characters) a test's text must share with a site to test it.
DISTINCTIVE = 12

# ---------------------------------------------------------------------------------------------
# Rust tokens


@dataclass(frozen=True)
class Tok:
    kind: str  # "ident", "str", "punct", "num", "char", "lifetime"
    text: str  # the source text; for "str" the decoded value
    line: int


_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0", "\\": "\\", "'": "'", '"': '"'}


def _unescape(body: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        n = body[i + 1]
        if n in _ESCAPES:
            out.append(_ESCAPES[n])
            i += 2
        elif n == "x":
            out.append(chr(int(body[i + 2 : i + 4], 16)))
            i += 4
        elif n == "u":
            end = body.index("}", i)
            out.append(chr(int(body[i + 3 : end], 16)))
            i = end + 1
        elif n == "\n":  # a line continuation: the newline and the next line's indentation
            i += 2
            while i < len(body) and body[i] in " \t\n\r":
                i += 1
        else:
            raise ValueError(f"unknown string escape \\{n}")
    return "".join(out)


_PUNCT3 = ("..=", "...", "<<=", ">>=")
_PUNCT2 = ("::", "->", "=>", "==", "!=", "<=", ">=", "&&", "||", "+=", "-=", "*=", "/=", "..", "<<", ">>")


def tokenize(src: str) -> list[Tok]:
    toks: list[Tok] = []
    i, line, n = 0, 1, len(src)
    while i < n:
        c = src[i]
        if c == "\n":
            line += 1
            i += 1
        elif c.isspace():
            i += 1
        elif src.startswith("//", i):
            i = src.find("\n", i)
            i = n if i < 0 else i
        elif src.startswith("/*", i):
            depth, j = 1, i + 2
            while depth:
                if src.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif src.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            line += src.count("\n", i, j)
            i = j
        elif m := re.compile(r'b?r(#*)"').match(src, i):
            end = src.index('"' + m.group(1), m.end())
            toks.append(Tok("str", src[m.end() : end], line))
            line += src.count("\n", i, end)
            i = end + 1 + len(m.group(1))
        elif c == '"' or src.startswith('b"', i):
            j = i + (2 if c == "b" else 1)
            while src[j] != '"':
                j += 2 if src[j] == "\\" else 1
            toks.append(Tok("str", _unescape(src[i + (2 if c == "b" else 1) : j]), line))
            line += src.count("\n", i, j)
            i = j + 1
        elif c == "'":
            if src[i + 1] == "\\":
                j = src.index("'", i + 3)
                toks.append(Tok("char", src[i : j + 1], line))
                i = j + 1
            elif i + 2 < n and src[i + 2] == "'":
                toks.append(Tok("char", src[i : i + 3], line))
                i += 3
            else:
                m2 = re.compile(r"'[A-Za-z_][A-Za-z0-9_]*").match(src, i)
                assert m2, f"line {line}: a quote that starts neither a char nor a lifetime"
                toks.append(Tok("lifetime", m2.group(), line))
                i = m2.end()
        elif c.isalpha() or c == "_":
            m3 = re.compile(r"[A-Za-z0-9_]+").match(src, i)
            assert m3
            toks.append(Tok("ident", m3.group(), line))
            i = m3.end()
        elif c.isdigit():
            m4 = re.compile(r"[0-9][0-9A-Za-z_]*(\.[0-9][0-9A-Za-z_]*)?").match(src, i)
            assert m4
            toks.append(Tok("num", m4.group(), line))
            i = m4.end()
        else:
            for p in (*_PUNCT3, *_PUNCT2, c):
                if src.startswith(p, i):
                    toks.append(Tok("punct", p, line))
                    i += len(p)
                    break
    return toks


_OPEN = {"(": ")", "[": "]", "{": "}"}


def close_of(toks: list[Tok], i: int) -> int:
    """The index of the bracket closing the one at `i`."""
    depth = 0
    for j in range(i, len(toks)):
        t = toks[j]
        if t.kind == "punct" and t.text in _OPEN:
            depth += 1
        elif t.kind == "punct" and t.text in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                return j
    raise ValueError(f"line {toks[i].line}: unbalanced bracket")


def split_args(toks: list[Tok], open_ix: int) -> list[tuple[int, int]]:
    """The [start, end) token ranges of the comma-separated arguments in the brackets at `open_ix`."""
    end = close_of(toks, open_ix)
    args: list[tuple[int, int]] = []
    start, j = open_ix + 1, open_ix + 1
    while j < end:
        t = toks[j]
        if t.kind == "punct" and t.text in _OPEN:
            j = close_of(toks, j) + 1
            continue
        if t.kind == "punct" and t.text == "|" and j == start:  # a closure's parameters
            j += 1
            while not (toks[j].kind == "punct" and toks[j].text == "|"):
                j += 1
            j += 1
            continue
        if t.kind == "punct" and t.text == ",":
            args.append((start, j))
            start = j + 1
        j += 1
    if start < end:
        args.append((start, end))
    return args


def is_p(t: Tok, text: str) -> bool:
    return t.kind == "punct" and t.text == text


def is_i(t: Tok, text: str) -> bool:
    return t.kind == "ident" and t.text == text


# ---------------------------------------------------------------------------------------------
# Functions, closures and error sites


@dataclass
class Func:
    name: str
    params: list[tuple[str, str]]  # (name, type as text)
    ret: str
    body: tuple[int, int]  # token range of the body
    closure: bool = False


@dataclass
class Site:
    path: str
    line: int
    parts: list[str | None]  # the message's literal parts, None where a value goes in

    @property
    def pattern(self) -> str:
        """The message, `{}` where a value goes in."""
        return "".join("{}" if p is None else p for p in self.parts)

    @property
    def internal(self) -> bool:
        return self.pattern.lstrip().startswith(("internal:", "internal error:"))


def format_parts(fmt: str) -> list[str | None]:
    """A format string as literal parts and None for each placeholder ({{ and }} are braces)."""
    parts: list[str | None] = []
    cur: list[str] = []
    i = 0
    while i < len(fmt):
        if fmt.startswith("{{", i) or fmt.startswith("}}", i):
            cur.append(fmt[i])
            i += 2
        elif fmt[i] == "{":
            parts.append("".join(cur))
            parts.append(None)
            cur = []
            i = fmt.index("}", i) + 1
        else:
            cur.append(fmt[i])
            i += 1
    parts.append("".join(cur))
    return [p for p in parts if p != ""]


def inline_names(fmt: str) -> set[str]:
    """The variables a format string names inline (`{m}`, `{m:?}`)."""
    return set(re.findall(r"(?<!\{)\{([A-Za-z_][A-Za-z0-9_]*)(?::[^}]*)?\}", fmt))


class File:
    def __init__(self, path: Path) -> None:
        self.path = path
        self.rel = str(path.relative_to(ROOT))
        toks = tokenize(path.read_text())
        self.toks = self._drop_tests(toks)
        self.funcs = self._funcs()

    @staticmethod
    def _drop_tests(toks: list[Tok]) -> list[Tok]:
        """The tokens without `#[cfg(test)]` items (unit tests build and inspect errors too)."""
        out: list[Tok] = []
        i = 0
        while i < len(toks):
            if (
                is_p(toks[i], "#")
                and i + 5 < len(toks)
                and is_i(toks[i + 2], "cfg")
                and is_i(toks[i + 4], "test")
                and is_p(toks[i + 5], ")")
            ):
                j = i + 7
                while not is_p(toks[j], "{") and not is_p(toks[j], ";"):
                    j += 1
                i = close_of(toks, j) + 1 if is_p(toks[j], "{") else j + 1
                continue
            out.append(toks[i])
            i += 1
        return out

    def _funcs(self) -> list[Func]:
        toks, funcs = self.toks, []
        for i, t in enumerate(toks):
            if is_i(t, "fn") and toks[i + 1].kind == "ident":
                j = i + 2
                if is_p(toks[j], "<"):  # generics
                    depth = 0
                    while True:
                        depth += is_p(toks[j], "<") - is_p(toks[j], ">") - 2 * is_p(toks[j], ">>")
                        j += 1
                        if depth <= 0:
                            break
                if not is_p(toks[j], "("):
                    continue
                params = self._params(j)
                k = close_of(toks, j) + 1
                ret_start = k + 1 if is_p(toks[k], "->") else k
                while not is_p(toks[k], "{") and not is_p(toks[k], ";"):
                    if is_i(toks[k], "where"):
                        break
                    k += 1
                ret = " ".join(x.text for x in toks[ret_start:k]) if ret_start <= k else ""
                while not is_p(toks[k], "{") and not is_p(toks[k], ";"):
                    k += 1
                if is_p(toks[k], "{"):
                    funcs.append(Func(toks[i + 1].text, params, ret, (k, close_of(toks, k) + 1)))
            elif (
                is_i(t, "let")
                and toks[i + 1].kind == "ident"
                and is_p(toks[i + 2], "=")
                and (is_p(toks[i + 3], "|") or is_i(toks[i + 3], "move"))
            ):
                j = i + 3 + is_i(toks[i + 3], "move")
                k = j + 1
                while not is_p(toks[k], "|"):
                    k += 1
                params = self._closure_params(j + 1, k)
                end = self._expr_end(k + 1)
                funcs.append(Func(toks[i + 1].text, params, "", (k + 1, end), closure=True))
        return funcs

    def _params(self, open_ix: int) -> list[tuple[str, str]]:
        out = []
        for a, b in split_args(self.toks, open_ix):
            seg = self.toks[a:b]
            if len(seg) >= 3 and seg[0].kind == "ident" and is_p(seg[1], ":"):
                out.append((seg[0].text, " ".join(x.text for x in seg[2:])))
        return out

    def _closure_params(self, a: int, b: int) -> list[tuple[str, str]]:
        out: list[tuple[str, str]] = []
        j = a
        while j < b:
            k = j
            depth = 0
            while k < b and not (depth == 0 and is_p(self.toks[k], ",")):
                depth += self.toks[k].text in ("<", "(", "[") and self.toks[k].kind == "punct"
                depth -= self.toks[k].text in (">", ")", "]") and self.toks[k].kind == "punct"
                k += 1
            seg = self.toks[j:k]
            if seg and seg[0].kind == "ident":
                ty = " ".join(x.text for x in seg[2:]) if len(seg) > 2 and is_p(seg[1], ":") else ""
                out.append((seg[0].text, ty))
            j = k + 1
        return out

    def _expr_end(self, i: int) -> int:
        """The end of the expression starting at `i` (a `;`, `,` or closing bracket at its depth)."""
        j = i
        while j < len(self.toks):
            t = self.toks[j]
            if t.kind == "punct" and t.text in _OPEN:
                j = close_of(self.toks, j) + 1
                continue
            if t.kind == "punct" and t.text in (";", ",", ")", "]", "}"):
                return j
            j += 1
        return j

    def enclosing(self, i: int) -> Func | None:
        """The innermost function or closure whose body holds token `i`."""
        best: Func | None = None
        for f in self.funcs:
            if f.body[0] <= i < f.body[1] and (best is None or f.body[0] >= best.body[0]):
                best = f
        return best


# The helpers that take a message: (name, argument count) -> the message argument's indices.
Helpers = dict[tuple[str, int], list[int]]
# The functions that return a message: name -> (file, function).
Builders = dict[str, tuple[File, Func]]

_NOT_CALLS = {"if", "match", "while", "for", "return", "in", "else", "move", "as", "let"}


class Extractor:
    def __init__(self, files: list[File]) -> None:
        self.files = files
        self.sites: dict[tuple[str, int, str], Site] = {}
        self.builders: Builders = {}
        for f in files:
            for fn in f.funcs:
                if not fn.closure and fn.ret.replace(" ", "") == "String":
                    self.builders[fn.name] = (f, fn)
        self.helpers = self._helpers()

    # -- message expressions ------------------------------------------------------------------

    def _add(self, f: File, t: Tok, is_format: bool) -> None:
        parts: list[str | None] = format_parts(t.text) if is_format else [t.text]
        site = Site(f.rel, t.line, parts)
        self.sites.setdefault((f.rel, t.line, site.pattern), site)

    def messages(self, f: File, a: int, b: int, seen: frozenset[str] = frozenset(), record: bool = True) -> bool:
        """Records the message texts the expression toks[a:b] can evaluate to; whether it has any
        (an expression that only passes an error or a parameter on has none)."""
        toks = f.toks
        found = False
        if a < b and (is_p(toks[a], "|") or is_p(toks[a], "||") or is_i(toks[a], "move")):  # a closure
            j = a + is_i(toks[a], "move")
            if is_p(toks[j], "|"):
                j += 1
                while not is_p(toks[j], "|"):
                    j += 1
            return self.messages(f, j + 1, b, seen, record)
        # A lone name (perhaps `.into()`, `.to_string()`, `.clone()`): what its `let` built.
        rest = [x.text for x in toks[a + 1 : b]]
        if a < b and toks[a].kind == "ident" and rest in ([], [".", "into", "(", ")"], [".", "to_string", "(", ")"]):
            return self._resolve(f, a, toks[a].text, seen, record)
        j = a
        while j < b:
            t = toks[j]
            nxt = toks[j + 1] if j + 1 < len(toks) else t
            if t.kind == "ident" and is_p(nxt, "!") and j + 2 < b and toks[j + 2].text in _OPEN:
                end = close_of(toks, j + 2)
                if t.text == "format" and toks[j + 3].kind == "str":
                    if record:
                        self._add(f, toks[j + 3], True)
                    found = True
                j = end + 1
            elif t.kind == "str":
                if record:
                    self._add(f, t, False)
                found = True
                j += 1
            elif t.kind == "ident" and is_p(nxt, "(") and t.text not in _NOT_CALLS:
                end = close_of(toks, j + 1)
                if t.text in ("Some", "Ok", "from") or (j > a and is_p(toks[j - 1], "::") and t.text == "from"):
                    found |= self.messages(f, j + 2, end, seen, record)
                elif t.text in self.builders and not (j > a and is_p(toks[j - 1], ".")):
                    bf, bfn = self.builders[t.text]
                    found |= self.messages(bf, bfn.body[0] + 1, bfn.body[1] - 1, seen, record)
                j = end + 1
            elif (
                t.kind == "punct"
                and t.text == "{"
                and j > a
                and toks[j - 1].kind == "ident"
                and not (toks[j - 1].text in ("else",) or (j >= 2 and is_i(toks[j - 2], "if")))
            ):
                j = close_of(toks, j) + 1  # a struct literal
            else:
                j += 1
        return found

    def _resolve(self, f: File, at: int, name: str, seen: frozenset[str], record: bool) -> bool:
        if name in seen:
            return False
        fn = f.enclosing(at)
        if fn is None:
            return False
        toks = f.toks
        for j in range(at - 1, fn.body[0], -1):
            if is_i(toks[j], "let") and is_i(toks[j + 1], name):
                k = j + 2
                if is_p(toks[k], ":"):
                    while not is_p(toks[k], "="):
                        k += 1
                if not is_p(toks[k], "="):
                    return False
                k += 1
                end = k
                while not is_p(toks[end], ";"):
                    end = close_of(toks, end) + 1 if toks[end].text in _OPEN and toks[end].kind == "punct" else end + 1
                return self.messages(f, k, end, seen | {name}, record)
        return False

    # -- helpers ---------------------------------------------------------------------------------

    def _helpers(self) -> Helpers:
        """Functions and closures that put a `String` (or `impl Into<String>`, or error) parameter
        into an error they build, or pass it on to such a helper: their callers' arguments there
        are messages."""
        helpers: Helpers = {}
        while True:
            found: Helpers = {}
            for f in self.files:
                for fn in f.funcs:
                    msg_params = [
                        k
                        for k, (_, ty) in enumerate(fn.params)
                        if ty.replace(" ", "") in ("String", "implInto<String>", "AxeError")
                    ]
                    used: set[int] = set()
                    for _, (a, b) in self._constructors(f, fn.body[0], fn.body[1], helpers) if msg_params else []:
                        names = {t.text for t in f.toks[a:b] if t.kind == "ident"}
                        for t in f.toks[a:b]:
                            if t.kind == "str":
                                names |= inline_names(t.text)
                        used |= {k for k in msg_params if fn.params[k][0] in names}
                    if used:
                        found[(fn.name, len(fn.params))] = sorted(used)
            if found == helpers:
                return helpers
            helpers = found

    def _constructors(self, f: File, lo: int, hi: int, helpers: Helpers) -> list[tuple[int, tuple[int, int]]]:
        """The error constructors in toks[lo:hi]: (token index, message argument range)."""
        toks, out = f.toks, []
        for i in range(lo, min(hi, len(toks) - 3)):
            t, n1 = toks[i], toks[i + 1]
            if is_i(t, "AxeError") and is_p(n1, "::") and toks[i + 3].text == "(":
                args = split_args(toks, i + 3)
                if toks[i + 2].text == "at" and len(args) == 2:
                    out.append((i, args[1]))
                elif toks[i + 2].text in ("Message", "from") and len(args) == 1:
                    out.append((i, args[0]))
                continue
            if is_i(t, "ir") and is_p(n1, "::") and is_i(toks[i + 2], "error") and is_p(toks[i + 3], "("):
                args = split_args(toks, i + 3)  # ir::error(op, message): a diagnostic emitted at once
                if len(args) == 2:
                    out.append((i, args[1]))
                continue
            if t.kind != "ident" or (i > 0 and is_p(toks[i - 1], "::") and toks[i - 2].text in ("AxeError", "ir")):
                continue
            open_ix = i + 1
            if is_p(n1, "::") and is_p(toks[i + 2], "<"):  # a turbofish: name::<T>(..)
                open_ix = i + 3
                depth = 1
                while depth:
                    depth += is_p(toks[open_ix], "<") - is_p(toks[open_ix], ">") - 2 * is_p(toks[open_ix], ">>")
                    open_ix += 1
            if not is_p(toks[open_ix], "("):
                continue
            path = i > 0 and is_p(toks[i - 1], "::")
            method = i > 0 and is_p(toks[i - 1], ".")
            if t.text in ("Err", "Some") and not path and not self._is_pattern(f, i):
                fn = f.enclosing(i)
                some_reason = fn is not None and not fn.closure and fn.ret.replace(" ", "") == "Option<String>"
                args = split_args(toks, open_ix)
                if len(args) == 1 and (t.text == "Err" or some_reason):
                    out.append((i, args[0]))
            elif t.text in ("ok_or", "ok_or_else", "map_err") and method:
                args = split_args(toks, open_ix)
                if len(args) == 1:
                    out.append((i, args[0]))
            elif not method and not (i > 0 and is_i(toks[i - 1], "fn")):
                args = split_args(toks, open_ix)
                for k in helpers.get((t.text, len(args)), []):
                    out.append((i, args[k]))
        return out

    @staticmethod
    def _is_pattern(f: File, i: int) -> bool:
        """Whether `Err(..)`/`Some(..)` at `i` is a pattern (`=> ..`, `let ..`, `|..|`)."""
        toks = f.toks
        end = close_of(toks, i + 1)
        after = toks[end + 1] if end + 1 < len(toks) else toks[end]
        before = toks[i - 1] if i > 0 else toks[i]
        return (
            is_p(after, "=>")
            or is_p(after, "|")
            or (is_p(after, "=") and not is_p(before, "="))
            or is_i(before, "let")
            or is_p(before, "|")
            or is_i(after, "if")
        )

    def run(self) -> list[Site]:
        for f in self.files:
            for _, (a, b) in self._constructors(f, 0, len(f.toks), self.helpers):
                self.messages(f, a, b)
        return sorted(self.sites.values(), key=lambda s: (s.path, s.line))


# ---------------------------------------------------------------------------------------------
# Tests


@dataclass(frozen=True)
class Expected:
    path: str
    line: int
    text: str


_EXPECTED = re.compile(r"expected-error(-re)? *(@([+-][0-9]+|above|below|unknown))? *\{\{(.*)\}\}\s*$")


def expected_errors() -> list[Expected]:
    out: list[Expected] = []
    for d in TEST_DIRS:
        for p in sorted(d.rglob("*.mlir")):
            src = p.read_text()
            runs = [ln for ln in src.splitlines() if "RUN:" in ln]
            if not any("--verify-diagnostics" in r and any(w in r for w in LOWERING_RUNS) for r in runs):
                continue
            for k, ln in enumerate(src.splitlines(), 1):
                m = _EXPECTED.search(ln)
                if m and not m.group(1):  # a regex (-re) case is not matched as text
                    out.append(Expected(str(p.relative_to(ROOT)), k, m.group(4)))
    return out


def op_folded(parts: list[str | None]) -> list[str | None]:
    """The message as emitted: a leading `axe.op:` or `axe.op ` is folded into the `'axe.op' op`
    prefix of the diagnostic (error.rs, op_message)."""
    first = parts[0] if parts else None
    m = re.match(r"axe\.[a-z_]+[: ]", first) if first is not None else None
    if first is None or m is None:
        return parts
    rest = first[m.end() :].lstrip(": ")
    return ([rest] if rest else []) + parts[1:]


def _starts_an_instance(text: str, cells: list[str | None]) -> bool:
    """Whether `text` is a prefix of some text that `cells` (characters, None for any text)
    yield, or yield followed by more: shift-and over the cells."""
    wild = sum(1 << k for k, c in enumerate(cells) if c is None)
    masks: dict[str, int] = {}
    for k, c in enumerate(cells):
        if c is not None:
            masks[c] = masks.get(c, 0) | (1 << k)
    full = (1 << len(cells)) - 1
    state = 1
    for ch in text:
        while (closed := (state | ((state & wild) << 1)) & full) != state:
            state = closed
        state = (((state & masks.get(ch, 0)) << 1) | (state & wild)) & (full | (1 << len(cells)))
        if not state:
            return False
        if state >> len(cells):  # the cells are used up: what follows is other text
            return True
    return True


def _cells(parts: list[str | None]) -> list[str | None]:
    cells: list[str | None] = []
    for p in parts:
        cells.extend([None] if p is None else list(p))
    return cells


def tested_span(text: str, parts: list[str | None], need: int) -> tuple[int, int] | None:
    """Where `text` (a test's expected-error text, matched as a substring of the diagnostic)
    holds the longest run, of at least `need` characters, of one literal part of the message
    `parts` at a place where the rest of `text` agrees with the message around it (the other
    literal parts in order, anything where a value goes in, anything before and after the
    message: a caller may wrap it); None where it holds none."""
    best: tuple[int, int] | None = None
    for li, lit in enumerate(parts):
        if lit is None or len(lit) < need:
            continue
        for q in range(len(text) - need + 1):
            if best is not None and best[0] <= q and q + need <= best[1]:
                continue
            k = lit.find(text[q : q + need])
            while k >= 0:
                before = [None, *_cells(parts[:li]), *lit[:k]]
                after = [*lit[k + need :], *_cells(parts[li + 1 :]), None]
                if _starts_an_instance(text[:q][::-1], before[::-1]) and _starts_an_instance(text[q + need :], after):
                    end = q + need
                    while end < len(text) and k + end - q < len(lit) and text[end] == lit[k + end - q]:
                        end += 1
                    if best is None or end - q > best[1] - best[0]:
                        best = (q, end)
                k = lit.find(text[q : q + need], k + 1)
    return best


def literal_cover(text: str, parts: list[str | None], least: int = 6) -> frozenset[int]:
    """The positions of `text` inside a run of at least `least` characters of one literal part."""
    lits = [p for p in parts if p is not None]
    out: set[int] = set()
    for q in range(len(text)):
        n = least
        while q + n <= len(text) and any(text[q : q + n] in lit for lit in lits):
            n += 1
        if n > least:
            out.update(range(q, q + n - 1))
    return frozenset(out)


def coverage(sites: list[Site], expected: list[Expected]) -> dict[int, list[Expected]]:
    """For each site (by index), the tests whose expected-error text tests it. A text credits
    each site it holds a run of (`tested_span`), except one whose literal text covers less of
    it than another such site's does (`a block argument` within `the operand's shared buffer is
    a block argument; ...`, a shared prefix of two messages within the longer one's)."""
    found: dict[int, list[tuple[int, frozenset[int]]]] = {}
    for si, site in enumerate(sites):
        parts = op_folded(site.parts)
        need = min(DISTINCTIVE, max((len(p.strip()) for p in parts if p is not None), default=0))
        if need == 0:
            continue
        for ei, e in enumerate(expected):
            if tested_span(e.text, parts, need) is not None:
                found.setdefault(ei, []).append((si, literal_cover(e.text, parts)))
    out: dict[int, list[Expected]] = {}
    for ei, credited in found.items():
        for si, cover in credited:
            if not any(cover < other for _, other in credited):
                out.setdefault(si, []).append(expected[ei])
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--min", type=float, help="exit 1 when fewer than this percentage of sites are tested")
    ap.add_argument("--verbose", action="store_true", help="also list the tested sites and the invariants")
    args = ap.parse_args()

    files = [File(p) for p in sorted(LOWERING.glob("*.rs"))]
    sites = Extractor(files).run()
    expected = expected_errors()
    user = [s for s in sites if not s.internal]
    tests = coverage(user, expected)
    untested: list[Site] = []
    for si, s in enumerate(user):
        found = tests.get(si, [])
        if not found:
            untested.append(s)
        elif args.verbose:
            e = found[0]
            print(f"tested    {s.path}:{s.line}: {s.pattern}  [{e.path}:{e.line}]")
    if args.verbose:
        for s in sites:
            if s.internal:
                print(f"invariant {s.path}:{s.line}: {s.pattern}")
    for s in untested:
        print(f"untested  {s.path}:{s.line}: {s.pattern}")
    n, m = len(user) - len(untested), len(user)
    pct = 100.0 * n / m if m else 100.0
    print(f"{len(sites) - m} sites are internal: invariants (not counted)")
    print(f"{n} of {m} user-facing error sites have an expected-error case ({pct:.1f} %)")
    return 1 if args.min is not None and pct < args.min else 0


if __name__ == "__main__":
    sys.exit(main())
