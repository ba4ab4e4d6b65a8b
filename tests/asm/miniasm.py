"""A tiny assembler for the linker and disassembler tests.

It exists so that those tests do not depend on the real assembler (written
in parallel); it covers exactly the syntax the disassembler prints plus what
the linker tests need, and encodes through :func:`rapsim.asm.encoder.encode`
so that every instruction word comes from the ISA table:

    label:                      .text / .data / .sect "name"
    name .set value             .bss name, n / name .usect "name", n
    .global a, b                .word expr[, expr...]   .align n (section alignment)
    MNEMONIC op, op [|| MNEMONIC op, op]

Expressions: numbers (decimal, 0x hex, floats), ``$``, ``symbol``, and one
``+``/``-`` constant.  Labels are resolved in a first pass.
"""
from __future__ import annotations

import re

import numpy as np

from rapsim.asm import isa
from rapsim.asm.encoder import encode, encode_parallel
from rapsim.asm.objfile import ObjectFile, Relocation, Section, Symbol
from rapsim.asm.operands import DirOp, ImmOp, IndOp, RegOp, Reloc
from rapsim.asm.reloc import RelocKind

_IND = re.compile(r"^\*(\+\+|--|\+|-)?AR([0-7])(\+\+|--)?(?:\(([^)]*)\))?(%)?(B)?$", re.I)


def _split_ops(text: str) -> list[str]:
    return [t.strip() for t in text.split(",")] if text.strip() else []


class MiniAsm:
    def __init__(self, source: str, name: str = "test.asm"):
        self.source, self.name = source, name

    # -- expressions ------------------------------------------------------
    def value(self, text: str, pc: int, sec: str):
        text = text.strip()
        m = re.match(r"^(.+?)([+-])(\d+|0x[0-9a-fA-F]+)$", text)
        if m and not re.match(r"^[-+]?[\d.]", text):
            base = self.value(m.group(1), pc, sec)
            k = int(m.group(3), 0) * (1 if m.group(2) == "+" else -1)
            return base + k
        if text == "$":
            return Reloc(sec, pc)
        try:
            return int(text, 0)
        except ValueError:
            pass
        try:
            return float(text)
        except ValueError:
            pass
        if text in self.absolute:
            return self.absolute[text]
        if text in self.labels:
            s, off = self.labels[text]
            return Reloc(s, off)
        return Reloc(text, 0)

    def operand(self, text: str, pc: int, sec: str):
        up = text.upper()
        if up in isa.REG:
            return RegOp(isa.REG[up])
        m = _IND.match(text)
        if m:
            pre, ar, post, idx, circ, rev = m.groups()
            pre, post = pre or "", post or ""
            if idx is None:
                index, disp = (isa.Index.NONE if not pre and not post else isa.Index.DISP), None
            elif idx.upper() in ("IR0", "IR1"):
                index, disp = isa.Index(idx.upper()), None
            else:
                index, disp = isa.Index.DISP, int(idx, 0)
            code = isa.indirect_mode_code(pre, post, index, bool(circ), bool(rev))
            assert code is not None, text
            return IndOp(code, int(ar), disp)
        if text.startswith("@"):
            return DirOp(self.value(text[1:], pc, sec))
        return ImmOp(self.value(text, pc, sec))

    # -- passes -----------------------------------------------------------
    def _lines(self):
        for line in self.source.splitlines():
            line = line.split(";", 1)[0].rstrip()
            if not line.strip():
                continue
            m = re.match(r"^([A-Za-z_$][\w$]*):\s*(.*)$", line)
            if m:
                yield m.group(1), None, None
                line = " " + m.group(2)
                if not line.strip():
                    continue
            m = re.match(r"^([A-Za-z_$][\w$]*)\s+(\.set|\.usect)\s+(.*)$", line)
            if m:
                yield m.group(1), m.group(2), m.group(3)
                continue
            parts = line.strip().split(None, 1)
            yield None, parts[0], parts[1] if len(parts) > 1 else ""

    def assemble(self) -> ObjectFile:
        self.labels: dict[str, tuple[str, int]] = {}
        self.absolute: dict[str, int] = {}
        for final in (False, True):
            obj = self._pass(final)
        return obj

    def _pass(self, final: bool) -> ObjectFile:
        obj = ObjectFile(source=self.name, files=[self.name])
        words: dict[str, list[int]] = {}
        sizes: dict[str, int] = {}
        sec = ".text"
        glob: list[str] = []

        def section(name: str, kind: str) -> Section:
            s = obj.section(name)
            if s is None:
                s = Section(name, kind)
                obj.sections.append(s)
                words[name] = []
                sizes[name] = 0
            return s

        def here() -> int:
            return sizes[sec]

        section(sec, "text")
        for label, op, rest in self._lines():
            if label and op is None:
                self.labels[label] = (sec, here())
                continue
            if op == ".set":
                self.absolute[label] = int(rest, 0)
                continue
            if op == ".usect":
                name, n = _split_ops(rest)
                section(name.strip('"'), "bss")
                self.labels[label] = (name.strip('"'), sizes[name.strip('"')])
                sizes[name.strip('"')] += int(n, 0)
                continue
            low = op.lower()
            if low in (".text", ".data"):
                sec = low
                section(sec, "text" if low == ".text" else "data")
            elif low == ".sect":
                sec = rest.strip().strip('"')
                section(sec, "text" if sec.startswith(".text") or "code" in sec else "data")
            elif low == ".bss":
                name, n = _split_ops(rest)
                section(".bss", "bss")
                self.labels[name] = (".bss", sizes[".bss"])
                sizes[".bss"] += int(n, 0)
            elif low == ".global":
                glob += _split_ops(rest)
            elif low == ".align":
                obj.section(sec).align = int(rest, 0)
            elif low == ".word":
                for t in _split_ops(rest):
                    v = self.value(t, here(), sec) if final else 0
                    if isinstance(v, Reloc):
                        obj.section(sec).relocs.append(Relocation(here(), RelocKind.WORD32, v.symbol, v.addend))
                        v = 0
                    words[sec].append(v & 0xFFFFFFFF)
                    sizes[sec] += 1
            else:
                w = 0
                if final:
                    enc = self._encode(op + " " + rest, here(), sec)
                    w = enc.word
                    for f in enc.fixups:
                        obj.section(sec).relocs.append(Relocation(here(), f.kind, f.target.symbol,
                                                                  f.target.addend))
                words[sec].append(w)
                sizes[sec] += 1
        for s in obj.sections:
            s.size = sizes[s.name]
            s.data = None if s.kind == "bss" else np.array(words[s.name], dtype=np.uint32)
            s.lines = [(i, 0, i + 1) for i in range(s.size)] if s.kind != "bss" else []
        obj.sections = [s for s in obj.sections if s.size or s.name != ".text" or s.relocs]
        for name, (s, off) in self.labels.items():
            obj.symbols.append(Symbol(name, s, off, "global" if name in glob else "local"))
        for name, v in self.absolute.items():
            obj.symbols.append(Symbol(name, None, v, "global" if name in glob else "local"))
        for name in glob:
            if name not in self.labels and name not in self.absolute:
                obj.symbols.append(Symbol(name, None, 0, "undefined"))
        return obj

    def _encode(self, text: str, pc: int, sec: str):
        if "||" in text:
            a, b = text.split("||")
            m1, r1 = (a.strip().split(None, 1) + [""])[:2]
            m2, r2 = (b.strip().split(None, 1) + [""])[:2]
            return encode_parallel(m1, [self.operand(t, pc, sec) for t in _split_ops(r1)],
                                   m2, [self.operand(t, pc, sec) for t in _split_ops(r2)], pc, sec)
        m, r = (text.strip().split(None, 1) + [""])[:2]
        return encode(m, [self.operand(t, pc, sec) for t in _split_ops(r)], pc, sec)


def assemble(source: str, name: str = "test.asm") -> ObjectFile:
    return MiniAsm(source, name).assemble()


def real_assembler():
    """A function source -> ObjectFile using the project's assembler
    (``rap as``), or None while it does not exist."""
    import importlib.util
    import tempfile
    from pathlib import Path

    if importlib.util.find_spec("rapsim.commands.assemble") is None:
        return None
    from rapsim import cli
    from rapsim.asm.objfile import read_object

    def run(source: str, name: str = "test.asm") -> ObjectFile:
        with tempfile.TemporaryDirectory() as d:
            src, out = Path(d) / name, Path(d) / (Path(name).stem + ".obj")
            src.write_text(source)
            rc = cli.main(["as", str(src), "-o", str(out)])
            assert rc == 0, f"rap as failed on:\n{source}"
            return read_object(out)
    return run


def assemblers() -> list:
    """(name, function) of every assembler to test with."""
    out = [("miniasm", assemble)]
    real = real_assembler()
    if real is not None:
        out.append(("rap-as", real))
    return out
