"""Pass 2 of the assembler: encoding, data words and the object file.

:class:`EmitMixin` (part of :class:`rapsim.asm.assembler.Assembler`) walks
the items pass 1 queued, evaluates their operands with the complete symbol
table, encodes instructions through :mod:`rapsim.asm.encoder` (which picks
the form from the instruction table), writes data words, records
relocations and the line table, and builds the
:class:`~rapsim.asm.objfile.ObjectFile`.
"""
from __future__ import annotations

import numpy as np

from . import isa
from .directives import Fill, data_size
from .encoder import EncodeError, encode, encode_parallel
from .expr import POISON, ExprError, evaluate, is_const
from .objfile import ObjectFile, Relocation, Section, Symbol
from .operands import IndOp, RegOp, Reloc
from .statements import Instr

__all__ = ["EmitMixin"]

_DELAYED = frozenset({isa.Timing.BRANCH_D, isa.Timing.DB_D})
#: What may not sit in the 3 delay slots of a delayed branch (guide, "Delayed Branches";
#: RAP-REFERENCE.md).
_NOT_IN_SLOT = frozenset({
    isa.Timing.BRANCH, isa.Timing.BRANCH_D, isa.Timing.DB, isa.Timing.DB_D, isa.Timing.CALL,
    isa.Timing.CALLC, isa.Timing.RETS, isa.Timing.RETI, isa.Timing.TRAP, isa.Timing.RPTS,
    isa.Timing.RPTB, isa.Timing.IDLE, isa.Timing.SWI})


class EmitMixin:
    """Pass 2 and the object (methods of the Assembler)."""

    # -- pass 2 -----------------------------------------------------------
    def _operands(self, ops, here) -> list:
        """The operands with their expressions evaluated (numbers are kept)."""
        out = []
        for op in ops:
            t = type(op)
            if t is RegOp:
                out.append(op)
            elif t is IndOp:
                d = op.disp
                if d is None or type(d) is int:
                    out.append(op)
                    continue
                v = evaluate(d, self._lookup2, here)
                if type(v) is not int:
                    raise ExprError("an indirect displacement must be an absolute integer, "
                                    f"not {'an address' if type(v) is Reloc else repr(v)}",
                                    op.col)
                out.append(IndOp(op.mode, op.ar, v, op.col))
            elif is_const(op.value):
                out.append(op)
            else:
                out.append(t(evaluate(op.value, self._lookup2, here), op.col))
        return out

    def _encode(self, k: int, sec, off: int, st: Instr, loc):
        """Encode item ``k``; returns the form's timing class or None."""
        if st.word is not None:
            sec.words[off] = st.word
            return st.timing
        here = Reloc(sec.name, off)
        par = st.par
        ops = ops2 = None
        try:
            ops = self._operands(st.ops, here)
            if par is not None:
                ops2 = self._operands(par.ops, here)
        except ExprError as e:
            self.error(loc if ops is None else self.second_loc.get(k, loc), e.col, str(e))
            return None
        try:
            if par is None:
                enc = encode(st.mnem, ops, off, sec.name)
            else:
                enc = encode_parallel(st.mnem, ops, par.mnem, ops2, off, sec.name)
        except EncodeError as e:
            self._encode_error(k, st, loc, e)
            return None
        sec.words[off] = enc.word
        for fx in enc.fixups:
            sec.relocs.append(Relocation(off, fx.kind, fx.target.symbol, fx.target.addend))
        warned = self._check_same_ar(ops, loc) if par is None else \
            self._check_same_ar(ops, loc, ops2, self.second_loc.get(k, loc))
        if st.const and not enc.fixups and not warned:
            st.word, st.timing = enc.word, enc.form.timing
        return enc.form.timing

    def _encode_error(self, k: int, st: Instr, loc, e: EncodeError) -> None:
        i = e.operand
        if i is None:
            self.error(loc, st.col, str(e))
            return
        n1 = len(st.ops)
        if i < n1:
            self.error(loc, st.ops[i].col, str(e))
        else:
            self.error(self.second_loc.get(k, loc), st.par.ops[i - n1].col, str(e))

    def _check_same_ar(self, ops, loc, ops2=None, loc2=None) -> bool:
        """Guide 13-24: when both indirect operands of a 3-operand or parallel
        instruction update the same ARn only one update is kept (for a
        parallel store pair the guide leaves it undefined); warn (True if
        warned).  ``ops2``/``loc2``: the second part of a parallel pair."""
        if len(ops) < 3 and ops2 is None:
            return False
        seen = set()
        for op, at in [(o, loc) for o in ops] + [(o, loc2 or loc) for o in ops2 or ()]:
            if type(op) is IndOp and isa.INDIRECT_MODES[op.mode].update:
                if op.ar in seen:
                    self.warning(at, op.col, f"two operands update AR{op.ar}; the processor "
                                             "keeps only one of the updates")
                    return True
                seen.add(op.ar)
        return False

    def _pass2(self) -> None:
        for sec in self.sections.values():
            if not sec.bss:
                sec.words = [0] * sec.size
        slot = None                       # (section, offset, mnemonic) of a delayed branch
        for k, (sec, off, st, loc) in enumerate(self.items):
            t = type(st)
            if t is Instr:
                timing = self._encode(k, sec, off, st, loc)
                sec.lines.append((off, loc[5], loc[6]))
                if slot is not None:
                    if slot[0] is sec and 0 < off - slot[1] <= 3:
                        if timing in _NOT_IN_SLOT:
                            self.warning(loc, st.col, f"{st.mnem} in a delay slot of the delayed "
                                                      f"branch {slot[2]} (3 instructions after it "
                                                      "may not branch, call, return, trap, "
                                                      "repeat or idle)")
                    else:
                        slot = None
                if timing in _DELAYED:
                    slot = (sec, off, st.mnem)
            elif t is Fill:
                sec.words[off:off + st.count] = [st.value] * st.count
            else:
                self.emit_data(sec, off, st, loc)
                sec.lines.extend((o, loc[5], loc[6]) for o in range(off, off + data_size(st)))
        self.convert_floats()

    # -- the object -------------------------------------------------------
    def _symbols(self) -> list[Symbol]:
        out = []
        for name, v in self.values.items():
            g = name in self.globals
            kind = self.kinds.get(name)
            if kind == "extern":
                out.append(Symbol(name, None, 0, "undefined"))
            elif type(v) is Reloc and v.symbol in self.sections:
                out.append(Symbol(name, v.symbol, v.addend, "global" if g else "local"))
            elif type(v) is int:
                if not -(1 << 31) <= v < (1 << 32):
                    if g:
                        _, gloc, gcol = self.globals[name]
                        self.error(gloc, gcol, f"global symbol '{name}' = {v} does not fit "
                                               "in 32 bits")
                    continue
                out.append(Symbol(name, None, v, "global" if g else "local"))
            elif g and v is not POISON:
                self.error(self.globals[name][1], self.globals[name][2],
                           f"'{name}' cannot be global: its value is not an integer or an "
                           "address of this file")
        return out

    def _object(self, source: str) -> ObjectFile:
        obj = ObjectFile(source=source, files=list(self.files))
        for sec in self.sections.values():
            kind = sec.final_kind()
            data = None if sec.bss else np.array(sec.words, dtype=np.uint32)
            obj.sections.append(Section(sec.name, kind, sec.size, data, sec.align,
                                        sec.relocs, sec.lines))
        obj.symbols = self._symbols()
        return obj
