"""Generate the simulator's C view of the ISA table (``rapsim/_isa_gen.h``).

Run at build time by setup.py (and by ``python -m rapsim.asm.isagen OUT``):
the simulator's pre-decoder reads the forms, operand fields and decode index
of :mod:`rapsim.asm.isa` from this header, so the encodings exist once, in
the Python table.  The memory-map constants of :mod:`rapsim.memmap` are
emitted too.

The module is importable stand-alone (setup.py loads it by path before the
package is installed): it only needs the ``isa`` and ``memmap`` module
objects passed to :func:`generate`.
"""
from __future__ import annotations

import re
import sys


def _cname(s: str) -> str:
    s = s.replace("||", "_P_")
    return re.sub(r"[^A-Za-z0-9_]", "_", s).upper()


def op_names(isa) -> list[str]:
    """Semantic ops in a stable order (the C enum RAP_OP_*)."""
    seen: list[str] = []
    for f in isa.FORMS:
        if f.op not in seen:
            seen.append(f.op)
    return seen


def generate(isa, memmap) -> str:
    ops = op_names(isa)
    kinds = list(isa.Kind)
    timings = list(isa.Timing)
    fields = list(isa.FIELDS)
    out: list[str] = []
    w = out.append
    w("/* Generated from asm/isa.py and rapsim/memmap.py by asm/isagen.py.  Do not edit. */")
    w("#ifndef RAP_ISA_GEN_H")
    w("#define RAP_ISA_GEN_H")
    w("#include <stdint.h>")
    w("")
    w(f"#define RAP_NFORMS {len(isa.FORMS)}")
    w(f"#define RAP_NOPS {len(ops)}")
    w(f"#define RAP_DECODE_SHIFT {isa.DECODE_SHIFT}")
    w(f"#define RAP_DECODE_SIZE {len(isa.DECODE_INDEX)}")
    maxc = max(len(c) for c in isa.DECODE_INDEX)
    w(f"#define RAP_DECODE_CANDS {maxc}")
    w(f"#define RAP_MAX_OPERANDS {max(len(f.operands) for f in isa.FORMS)}")
    w("")
    w("/* semantic operations */")
    w("enum {")
    for i, o in enumerate(ops):
        w(f"    RAP_OP_{_cname(o)} = {i},")
    w("};")
    w("/* operand kinds */")
    w("enum {")
    for i, k in enumerate(kinds):
        w(f"    RAP_K_{k.name} = {i},")
    w("};")
    w("/* timing classes */")
    w("enum {")
    for i, t in enumerate(timings):
        w(f"    RAP_T_{t.name} = {i},")
    w("};")
    w("/* fields: shift and width */")
    for name in fields:
        lo, width = isa.FIELDS[name]
        w(f"#define RAP_F_{name.upper()}_SHIFT {lo}")
        w(f"#define RAP_F_{name.upper()}_WIDTH {width}")
    w("")
    w("typedef struct { uint8_t kind, shift, width, store; } rap_opspec_t;")
    w("typedef struct {")
    w("    uint32_t opcode, mask;")
    w("    uint16_t op;")
    w("    uint8_t timing, nops, split, cond_shift, pcrel_base, parallel;")
    w("    rap_opspec_t o[%d];" % max(len(f.operands) for f in isa.FORMS))
    w("} rap_form_t;")
    w("")
    w("static const rap_form_t rap_forms[RAP_NFORMS] = {")
    for f in isa.FORMS:
        specs = []
        for spec in f.operands:
            lo, width = isa.FIELDS[spec.field]
            specs.append(f"{{RAP_K_{spec.kind.name}, {lo}, {width}, {int(spec.store)}}}")
        cond_shift = isa.FIELDS[f.cond_field][0] if f.cond_field else 255
        w(f"    /* {f.index:3d} {f.mnemonic} */ {{0x{f.opcode:08X}u, 0x{f.mask:08X}u, "
          f"RAP_OP_{_cname(f.op)}, RAP_T_{f.timing.name}, {len(f.operands)}, {f.split}, "
          f"{cond_shift}, {f.pcrel_base}, {1 if f.is_parallel else 0}, "
          f"{{{', '.join(specs) if specs else '{0,0,0,0}'}}}}},")
    w("};")
    w("")
    w("/* decode index: bits 31..21 -> candidate forms (0xFFFF = none), most specific first */")
    w("static const uint16_t rap_decode[RAP_DECODE_SIZE][RAP_DECODE_CANDS] = {")
    for cands in isa.DECODE_INDEX:
        c = list(cands) + [0xFFFF] * (maxc - len(cands))
        w("    {" + ", ".join(str(x) for x in c) + "},")
    w("};")
    w("")
    w("/* condition codes: valid codes have a non-zero entry */")
    valid = ["0"] * 32
    for c in isa.CONDITIONS:
        valid[c.code] = "1"
    w("static const uint8_t rap_cond_valid[32] = {" + ", ".join(valid) + "};")
    w("")
    w("/* indirect modes: index kind (0 disp, 1 IR0, 2 IR1, 3 none), sign, premodify, update, circular, bitrev */")
    w("typedef struct { uint8_t index, premodify, update, circular, bitrev; int8_t sign; } rap_imode_t;")
    idx = {isa.Index.DISP: 0, isa.Index.IR0: 1, isa.Index.IR1: 2, isa.Index.NONE: 3}
    w("static const rap_imode_t rap_imodes[32] = {")
    for m in isa.INDIRECT_MODES:
        w(f"    {{{idx[m.index]}, {int(m.premodify)}, {int(m.update)}, {int(m.circular)}, "
          f"{int(m.bitrev)}, {m.sign}}},  /* {m.code}: {isa.format_indirect(m.code, 0, 'd')} */")
    for _ in range(32 - len(isa.INDIRECT_MODES)):
        w("    {255, 0, 0, 0, 0, 0},")
    w("};")
    w(f"#define RAP_NUM_IMODES {isa.NUM_INDIRECT_MODES}")
    w(f"#define RAP_NUM_REGISTERS {isa.NUM_REGISTERS}")
    for name in ("AR0", "DP", "IR0", "IR1", "BK", "SP", "ST", "IE", "IF", "IOF", "RS", "RE", "RC"):
        w(f"#define RAP_REG_{name} {isa.REG[name]}")
    w("")
    w("/* memory map (rapsim/memmap.py) */")
    for name in ("RESET_VECTOR", "TRAP_VECTOR_BASE", "DRAM_BASE", "RINGIO_BASE", "RINGIO_SIZE",
                 "RAM0_BASE", "RAM1_BASE", "ONCHIP_BLOCK_SIZE", "RING_DATA", "RING_STAT",
                 "RING_FWD", "NODE_ID", "NODE_COUNT", "HOST_CALL", "PERIPH_BASE", "PERIPH_SIZE",
                 "DMA_GCR", "DMA_SRC", "DMA_DST", "DMA_CNT", "TIMER0_BASE", "TIMER1_BASE"):
        w(f"#define RAP_{name} 0x{getattr(memmap, name):06X}u")
    w("")
    w("#endif")
    return "\n".join(out) + "\n"


def generate_pxi(isa) -> str:
    """Cython declarations of the header's names (the values stay in C)."""
    names = ["RAP_NFORMS", "RAP_NOPS", "RAP_DECODE_SHIFT", "RAP_DECODE_CANDS", "RAP_MAX_OPERANDS",
             "RAP_NUM_IMODES", "RAP_NUM_REGISTERS"]
    names += [f"RAP_OP_{_cname(o)}" for o in op_names(isa)]
    names += [f"RAP_K_{k.name}" for k in isa.Kind]
    names += [f"RAP_T_{t.name}" for t in isa.Timing]
    names += [f"RAP_REG_{r}" for r in ("AR0", "DP", "IR0", "IR1", "BK", "SP", "ST", "IE", "IF",
                                       "IOF", "RS", "RE", "RC")]
    names += [f"RAP_{n}" for n in ("RESET_VECTOR", "TRAP_VECTOR_BASE", "DRAM_BASE", "RINGIO_BASE",
                                   "RINGIO_SIZE", "RAM0_BASE", "RAM1_BASE", "ONCHIP_BLOCK_SIZE",
                                   "RING_DATA", "RING_STAT", "RING_FWD", "NODE_ID", "NODE_COUNT",
                                   "HOST_CALL", "PERIPH_BASE", "PERIPH_SIZE", "DMA_GCR",
                                   "DMA_SRC", "DMA_DST", "DMA_CNT", "TIMER0_BASE",
                                   "TIMER1_BASE")]
    lines = [
        "# Generated from asm/isa.py by asm/isagen.py.  Do not edit.",
        "from libc.stdint cimport uint8_t, int8_t, uint16_t, uint32_t",
        "",
        'cdef extern from "_isa_gen.h" nogil:',
        "    ctypedef struct rap_opspec_t:",
        "        uint8_t kind, shift, width, store",
        "    ctypedef struct rap_form_t:",
        "        uint32_t opcode, mask",
        "        uint16_t op",
        "        uint8_t timing, nops, split, cond_shift, pcrel_base, parallel",
        f"        rap_opspec_t o[{max(len(f.operands) for f in isa.FORMS)}]",
        "    ctypedef struct rap_imode_t:",
        "        uint8_t index, premodify, update, circular, bitrev",
        "        int8_t sign",
        "    const rap_form_t rap_forms[]",
        f"    const uint16_t rap_decode[][{max(len(c) for c in isa.DECODE_INDEX)}]",
        "    const uint8_t rap_cond_valid[32]",
        "    const rap_imode_t rap_imodes[32]",
        "    enum:",
    ]
    lines += [f"        {n}" for n in names]
    return "\n".join(lines) + "\n"


def write_generated(isa, memmap, directory: str) -> None:
    """Write _isa_gen.h and _isa_gen.pxi into ``directory`` (if changed)."""
    import os
    for name, text in (("_isa_gen.h", generate(isa, memmap)), ("_isa_gen.pxi", generate_pxi(isa))):
        path = os.path.join(directory, name)
        try:
            with open(path) as fh:
                if fh.read() == text:
                    continue
        except OSError:
            pass
        with open(path, "w") as fh:
            fh.write(text)


def main(argv: list[str]) -> int:
    from rapsim import memmap
    from rapsim.asm import isa
    write_generated(isa, memmap, argv[1] if len(argv) > 1 else ".")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
