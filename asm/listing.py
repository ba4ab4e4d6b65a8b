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

Listing directives (TI's): ``.nolist``/``.list`` stop and resume the
listing; ``.mnolist``/``.mlist`` leave out and put back the lines of macro
expansions and ``.loop`` repetitions; ``.fcnolist``/``.fclist`` the lines
of branches that ``.if`` skips; ``.title "text"`` names the listing in its
page headings; ``.page`` starts a new page (a form feed and the heading);
``.length n`` pages the listing every ``n`` lines; ``.width n`` cuts its
lines at ``n`` characters.  Without ``.page`` or ``.length`` the listing is
one page.
"""
from __future__ import annotations

__all__ = ["ListingMixin"]


class ListingMixin:
    """Listing records (pass 1) and their rendering (after pass 2)."""

    lst: list | None

    def list_line(self, unit, lineno: int, text: str, skipped: bool = False) -> None:
        opt = self.lst_opts
        if (not opt["list"] or (skipped and not opt["fclist"])
                or (unit.tag == "+" and not opt["mlist"])):
            self.lst_cur = None
            return
        rec = [unit.tag, lineno, text, None, 0, 0]
        self.lst.append(rec)
        self.lst_cur = rec

    def list_words(self, sec, off: int, n: int) -> None:
        rec = self.lst_cur
        if rec is not None and rec[3] is None:
            rec[3], rec[4], rec[5] = sec, off, n

    def list_page(self) -> None:
        """``.page``: the next line starts a new page."""
        if self.lst is not None:
            self.lst.append(None)

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
        out: list[str] = []
        for rec in self.lst:
            if rec is None:
                out.append(None)          # a page break
                continue
            tag, lineno, text, sec, off, n = rec
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
        return self._paginate(out, source)

    def _paginate(self, out: list, source: str) -> str:
        """Page headings, page breaks and the line width of the listing."""
        opt = self.lst_opts
        title, length, width = opt["title"], opt["length"], opt["width"]
        pages: list[list[str]] = [[]]
        for line in out:
            if line is None:
                if pages[-1]:
                    pages.append([])
                continue
            if length and len(pages[-1]) >= max(length - 2, 1):
                pages.append([])
            pages[-1].append(line if width is None else line[:width].rstrip())
        heading = f"RAP TMS320C30 assembler    {source}" + (f"    {title}" if title else "")
        text = []
        for k, page in enumerate(pages):
            head = heading if len(pages) == 1 else f"{heading}    page {k + 1}"
            if width is not None:
                head = head[:width]
            text.append("\n".join([head, ""] + page) + "\n")
        return "\f".join(text)
