"""The assembler listing (``rap as -l``), in the style of TI's listings.

One line per source line, in the order the assembler read them::

    TAG LINE ADDRESS WORD     SOURCE
         12 000004 08610005  start:  LDI   5, R1
    A     3 000005 0000002A'         .word x      (line 3 of an included file)
    +     2 000006 02010001          ADDI  1, R1  (line 2 of a macro body)

TAG is blank for the main file, ``A``, ``B``... for files included one,
two... levels deep, and ``+`` for the lines of a macro expansion (numbered
by their line in the macro's definition).  ADDRESS is the offset in the
section (every section starts at 0 in an object).  A word a relocation will
change at link time is followed by ``'`` (address of this file) or ``!``
(external symbol).  A directive emitting several words lists the others on
continuation lines; ``.space`` shows only its address; lines skipped by
``.if`` and macro definitions show no address.
"""
from __future__ import annotations

__all__ = ["ListingMixin"]


class ListingMixin:
    """Listing records (pass 1) and their rendering (after pass 2)."""

    lst: list | None

    def list_line(self, unit, lineno: int, text: str) -> None:
        self.lst.append([unit.tag, lineno, text, None, 0, 0])

    def list_words(self, sec, off: int, n: int) -> None:
        if self.lst:
            rec = self.lst[-1]
            if rec[3] is None:
                rec[3], rec[4], rec[5] = sec, off, n

    def _marks(self) -> dict:
        marks = {}
        for sec in self.sections.values():
            for r in sec.relocs:
                if r.symbol in self.sections:
                    marks[(sec.name, r.offset)] = "'"
                elif r.symbol:
                    marks[(sec.name, r.offset)] = "!"
        return marks

    def render_listing(self, source: str) -> str:
        marks = self._marks()
        out = [f"RAP TMS320C30 assembler    {source}", ""]
        for tag, lineno, text, sec, off, n in self.lst:
            head = f"{tag or ' ':1}{lineno:>5} "
            if sec is None:
                out.append(f"{head}{'':6} {'':9} {text}".rstrip())
                continue
            words = sec.words if not sec.bss else []
            for k in range(max(n, 1)):
                a = off + k
                if k < n and a < len(words):
                    w = f"{words[a]:08X}{marks.get((sec.name, a), ' ')}"
                else:
                    w = ""
                line = f"{head if k == 0 else ' ' * len(head)}{a:06X} {w:9} "
                out.append((line + (text if k == 0 else "")).rstrip())
        return "\n".join(out) + "\n"
