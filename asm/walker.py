"""Pass 1 of the assembler: walking the source lines.

:class:`WalkerMixin` (part of :class:`rapsim.asm.assembler.Assembler`) reads
the lines of a file or of a macro expansion one by one: it splits off the
label, parses the statement (cached, :mod:`rapsim.asm.parser`), lays out
instructions (one word each), runs directives, follows ``.if`` blocks,
collects ``.macro`` bodies, expands macro calls and reads ``.include``
files, each as a nested walk with its own conditional stack (so ``.if`` /
``.endif`` must balance within a file and within a macro body).  It also
repeats ``.loop`` blocks, keeps the substitution symbols (``.asg``,
``.eval``, ``.var``) and the local-label scopes, and rewrites each line for
them (:mod:`rapsim.asm.textsubs`) before parsing it.
"""
from __future__ import annotations

import os
import re

from .directives import ALIASES, CONDITIONALS, LABEL_AFTER, LABEL_OWN, search_include
from .expr import Sym
from .macros import MACRO_DEPTH_LIMIT, Macro, directive_word, split_args
from .operands import Reloc
from .parser import AsmSyntaxError, is_reserved, parse_statement, split_line
from .statements import Bad, Directive, Instr, Str
from .textsubs import _ID, SUBST_LIMIT, SubstitutionTooLong, scope_locals, substitute

__all__ = ["WalkerMixin", "Unit", "INCLUDE_DEPTH_LIMIT"]

INCLUDE_DEPTH_LIMIT = 32
#: Most repetitions of one ``.loop`` block (TI's default count is 1024).
LOOP_LIMIT = 1 << 20
#: Lines that macro calls and .loop repetitions may expand to in one
#: assembly, all expansions together: a recursive macro whose every call
#: calls it twice, or nested .loops, stay within depth and count limits yet
#: would expand to billions of lines.  Reported at the line that started the
#: outermost expansion.
EXPANSION_LIMIT = 1 << 20
LOOP_DEFAULT = 1024
#: Directives read from the raw statement text, not parsed as expressions.
RAW_DIRECTIVES = frozenset({".asg", ".eval", ".var"})
_SUBST_NAME = re.compile(_ID)
ADDRESS_SPACE = 1 << 24          # words


class Unit:
    """Lines being walked: a file, or the expansion of a macro call."""
    __slots__ = ("file", "linenos", "note", "tfile", "tline", "tag")

    def __init__(self, file: int, linenos=None, note: str = "", tfile=None, tline=None,
                 tag: str = ""):
        self.file, self.linenos, self.note = file, linenos, note
        self.tfile, self.tline, self.tag = tfile, tline, tag

    def lineno(self, i: int) -> int:
        """The line number of the unit's line ``i`` (0-based)."""
        return self.linenos[i] if self.linenos is not None else i + 1


def _block(lines: list[str], i: int, unit: Unit, opener: str, closer: str):
    """The lines from ``lines[i]`` up to the ``closer`` directive that matches
    (nested ``opener``/``closer`` pairs included): ``(body, their line numbers,
    index of the closer)``; the index is ``len(lines)`` if there is none."""
    body, linenos = [], []
    depth, j = 1, i
    while j < len(lines):
        d = directive_word(lines[j])
        if d == opener:
            depth += 1
        elif d == closer:
            depth -= 1
            if depth == 0:
                break
        body.append(lines[j])
        linenos.append(unit.lineno(j))
        j += 1
    return body, linenos, j


class WalkerMixin:
    """The line walker of pass 1 (methods of the Assembler)."""

    def include(self, name: str, loc, col) -> None:
        """Assemble the file ``name`` here (``.include``/``.copy``)."""
        including = self.files[loc[1]]
        path, tried = search_include(name, including, self.include_dirs)
        if path is None:
            where = ", ".join(repr(d or ".") for d in tried)
            self.error(loc, col, f"cannot find include file '{name}'"
                                 + (f" (searched {where})" if where else ""))
            return
        real = os.path.realpath(path)
        if real in self.open_files:
            self.error(loc, col, f"include loop: '{name}' is already being assembled")
            return
        if len(self.open_files) >= INCLUDE_DEPTH_LIMIT:
            self.error(loc, col, f"includes nested deeper than {INCLUDE_DEPTH_LIMIT}")
            return
        try:
            lines = self.read_lines(path)
        except OSError as e:
            self.error(loc, col, f"cannot read include file '{name}': {e.strerror}")
            return
        idx = self.file_index(os.path.normpath(path))
        depth = len(self.open_files)
        self.open_files.append(real)
        self.new_scope()                  # entering an included file
        self._run(lines, Unit(idx, tag=chr(ord("A") + depth - 1)))
        self.open_files.pop()
        self.new_scope()                  # and leaving it

    # -- pass 1: the line walker ------------------------------------------
    def _run(self, lines: list[str], unit: Unit) -> None:
        """Walk ``lines`` (hot path: keep per-line work small)."""
        conds: list[list] = []            # [active, done, else_seen, loc, col]
        active = True
        f, note, linenos = unit.file, unit.note, unit.linenos
        lst = self.lst
        i, n = 0, len(lines)
        while i < n and not self.ended and not self.breaking:
            text = lines[i]
            lineno = linenos[i] if linenos is not None else i + 1
            i += 1
            self.seq += 1
            if not active:
                d = directive_word(text)
                if d in CONDITIONALS:
                    active = self._cond_skipped(d, text, conds, unit, lineno)
                if lst is not None:
                    self.list_line(unit, lineno, text, True)
                continue
            if lst is not None:
                self.list_line(unit, lineno, text)
            if text and (self.subst or "$" in text or "?" in text) and text[0] not in "*;":
                try:
                    text = self._rewrite(text)
                except SubstitutionTooLong as e:
                    self.error((self.seq, f, lineno, 0, note), 1, str(e))
                    continue
            try:
                label, stext, col = split_line(text)
            except AsmSyntaxError as e:
                self.error((self.seq, f, lineno, 0, note), e.col, str(e))
                continue
            loc = (self.seq, f, lineno, col - 1, note,
                   f if unit.tfile is None else unit.tfile,
                   lineno if unit.tline is None else unit.tline)
            if not stext:
                if label is not None:
                    self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
                    self.prev_instr = None
                continue
            if self.macros:
                word = stext.split(None, 1)[0]
                m = self.macros.get(word.upper())
                if m is not None:
                    self._call(m, label, stext[len(word):], loc, unit)
                    continue
            if stext[0] == ".":
                word = stext.split(None, 1)[0].lower()
                if word in RAW_DIRECTIVES:
                    self.prev_instr = None
                    self._raw_directive(word, label, stext[len(word):], loc)
                    continue
            st = parse_statement(stext)
            t = type(st)
            if t is Instr:
                if st.lead:
                    self._continuation(label, st, loc)
                    continue
                sec = self.cur
                if label is not None:
                    self.define(label, Reloc(sec.name, sec.size), loc, None)
                if sec.size >= ADDRESS_SPACE and not self._room(sec, 1, loc):
                    continue
                self.prev_instr = len(self.items)
                self.items.append((sec, sec.size, st, loc))
                if lst is not None:
                    self.list_words(sec, sec.size, 1)
                sec.size += 1
                sec.has_code = True
                continue
            self.prev_instr = None
            if t is Bad:
                if label is not None:
                    self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
                self.error(loc, st.col, st.msg)
                continue
            name = ALIASES.get(st.name, st.name)
            if name in CONDITIONALS:
                active = self._cond(name, st, conds, loc)
            elif name == ".macro":
                i = self._define_macro(label, st, lines, i, unit, loc)
            elif name == ".loop":
                i = self._loop(label, st, lines, i, unit, loc)
            elif name == ".break":
                self._break(label, st, loc)
            else:
                self._directive(name, label, st, loc)
        for c in conds:
            if not self.ended and not self.breaking:
                self.error(c[3], c[4], "unterminated .if (missing .endif)")

    def _directive(self, name: str, label, st: Directive, loc) -> None:
        handler = getattr(self, "d_" + name[1:], None) if name[1:].isidentifier() else None
        if handler is None:
            self.error(loc, st.col, f"unknown directive '{st.name}'")
            return
        if label is not None and name not in LABEL_AFTER and name not in LABEL_OWN:
            self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
        handler(label, st, loc)
        if label is not None and name in LABEL_AFTER:
            self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)

    def _continuation(self, label, st: Instr, loc) -> None:
        """A TI-style ``|| INSTR`` line: the second half of the previous one."""
        if label is not None:
            self.error(loc, None, "a '||' line cannot have a label")
        k = self.prev_instr
        self.prev_instr = None
        if k is None:
            self.error(loc, 1, "'||' must follow an instruction (the first of the pair)")
            return
        sec, off, first, floc = self.items[k]
        if first.par is not None:
            self.error(loc, 1, "an instruction cannot have more than two parallel parts")
            return
        self.items[k] = (sec, off, first.pair(st), floc)
        self.second_loc[k] = loc

    # -- conditional assembly ---------------------------------------------
    def _truth(self, st: Directive, loc) -> bool | None:
        """The condition of ``.if``/``.elseif``; None after an error."""
        if len(st.args) != 1:
            self.error(loc, st.col, f"{st.name} takes 1 argument, got {len(st.args)}")
            return None
        node, col = st.args[0]
        if type(node) is Str:
            self.error(loc, col, f"the condition of {st.name} must be a value, not a string")
            return None
        v = self.value1(node, loc)
        if v is None:
            return None
        if type(v) is Reloc:
            self.error(loc, col, f"the condition of {st.name} must be absolute, not an address")
            return None
        return bool(v)

    def _cond(self, name: str, st: Directive, conds: list, loc) -> bool:
        """A conditional directive in an active region; returns the new state."""
        if name == ".if":
            v = self._truth(st, loc)
            # after an error no branch is assembled (done = True)
            conds.append([bool(v), v is not False, False, loc, st.col])
            return bool(v)
        if not conds:
            self.error(loc, st.col, f"{name} without .if")
            return True
        top = conds[-1]
        if name == ".endif":
            if st.args:
                self.error(loc, st.col, ".endif takes no arguments")
            conds.pop()
            return True
        if top[2]:
            self.error(loc, st.col, f"{name} after .else")
        if name == ".else":
            top[2] = True
        top[0], top[1] = False, True      # the branch that was active is over
        return False

    def _cond_skipped(self, d: str, text: str, conds: list, unit: Unit, lineno: int) -> bool:
        """A conditional directive met while skipping; returns the new state."""
        if d == ".if":
            conds.append([False, True, False, (self.seq, unit.file, lineno, 0, unit.note), 1])
            return False
        top = conds[-1]
        if d == ".endif":
            conds.pop()
            return conds[-1][0] if conds else True
        if top[2]:
            col = text.lower().find(d) + 1
            self.error((self.seq, unit.file, lineno, 0, unit.note), col, f"{d} after .else")
            return False
        if d == ".else":
            top[2] = True
            top[0] = not top[1]
            top[1] = True
            return top[0]
        if top[1]:                            # .elseif after a taken branch
            return False
        if self.subst:
            text = self._rewrite(text)
        try:
            _, stext, col = split_line(text)
        except AsmSyntaxError:
            stext, col = text.strip(), 1
        loc = (self.seq, unit.file, lineno, col - 1, unit.note)
        st = parse_statement(stext)
        if type(st) is Bad:
            self.error(loc, st.col, st.msg)
            return False
        v = self._truth(st, loc)
        top[0], top[1] = bool(v), v is not False
        return top[0]

    # -- macros -----------------------------------------------------------
    def _define_macro(self, label, st: Directive, lines: list[str], i: int, unit: Unit,
                      loc) -> int:
        """Collect a macro body from ``lines[i:]``; returns the index after ``.endm``."""
        body, linenos, j = _block(lines, i, unit, ".macro", ".endm")
        if j == len(lines):
            self.error(loc, st.col, "unterminated .macro (missing .endm)")
        if self.lst is not None:
            for k in range(i, min(j + 1, len(lines))):
                self.list_line(unit, unit.lineno(k), lines[k])
        params = []
        for node, col in st.args:
            if type(node) is not Sym:
                self.error(loc, col, "macro parameters must be names")
            elif node.name in params:
                self.error(loc, col, f"duplicate macro parameter '{node.name}'")
            else:
                params.append(node.name)
        if label is None:
            self.error(loc, st.col, ".macro needs a name in the label field")
        else:
            self.macros[label.upper()] = Macro(label, params, body, linenos, unit.file, loc[2])
        return j + 1

    def _call(self, m: Macro, label, argtext: str, loc, unit: Unit) -> None:
        """Expand a call of macro ``m`` and walk its lines."""
        self.prev_instr = None
        if label is not None:
            self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
        if self.macro_depth >= MACRO_DEPTH_LIMIT:
            self.error(loc, 1, f"macro calls nested deeper than {MACRO_DEPTH_LIMIT} "
                               f"(is '{m.name}' recursive?)")
            return
        if len(argtext) > SUBST_LIMIT:
            self.error(loc, 1, f"the arguments of macro '{m.name}' are {len(argtext)} characters "
                               f"long; at most {SUBST_LIMIT}")
            return
        args = split_args(argtext)
        if not self.macro_depth and not self.loop_depth:
            self.expansion_start = loc
        if not self._expanding(len(m.body), loc):
            return
        if len(args) > len(m.params):
            self.error(loc, 1, f"macro '{m.name}' takes {len(m.params)} argument"
                               f"{'s' if len(m.params) != 1 else ''}, got {len(args)}")
            return
        self.serial += 1
        note = f" (in macro '{m.name}' called at {self.files[loc[1]]}:{loc[2]})"
        sub = Unit(m.file, m.linenos, note, loc[5], loc[6], "+")
        caller_scope, self.scope = self.scope, self.serial
        self.macro_depth += 1
        self.var_frames.append({})
        self._run(m.expand(args, self.serial), sub)
        for name, old in self.var_frames.pop().items():     # .var symbols end here
            if old is None:
                self.subst.pop(name, None)
            else:
                self.subst[name] = old
        self.macro_depth -= 1
        self.scope = caller_scope

    def _expanding(self, lines: int, loc) -> bool:
        """Count ``lines`` more expanded lines (a macro body, a .loop
        repetition) against EXPANSION_LIMIT; past it, report the error at the
        line that started the outermost expansion and end the assembly."""
        self.expanded += lines
        if self.expanded <= EXPANSION_LIMIT:
            return True
        start = self.expansion_start or loc
        self.error(start, 1, f"macro and .loop expansion exceeds {EXPANSION_LIMIT} lines "
                             "(a recursive macro or nested .loops?); assembly stopped")
        self.ended = True
        return False

    # -- line rewriting: substitution symbols and local labels --------------
    def _rewrite(self, text: str) -> str:
        if self.subst:
            d = directive_word(text)
            if d != ".var" and d != ".macro":
                text = substitute(text, self.subst, keep_last=d in (".asg", ".eval"))
        if "$" in text or "?" in text:
            text = scope_locals(text, self.scope, self.local_names)
        return text

    def _raw_directive(self, name: str, label, argtext: str, loc) -> None:
        """``.asg``, ``.eval`` and ``.var``, whose arguments are text."""
        if label is not None:
            self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
        args = split_args(argtext)
        col = len(name) + 1 + len(argtext) - len(argtext.lstrip())   # of the first argument
        if name == ".var":
            if not self.var_frames:
                self.error(loc, 1, ".var is allowed only in a macro")
                return
            if not args or not all(args):
                self.error(loc, col, ".var takes one or more symbol names")
                return
            frame = self.var_frames[-1]
            for a in args:
                if not _SUBST_NAME.fullmatch(a):
                    self.error(loc, col, f".var: '{a}' is not a symbol name")
                    continue
                frame.setdefault(a, self.subst.get(a))
                self.subst[a] = ""
            return
        if len(args) != 2 or not args[0] and name == ".eval":
            self.error(loc, col, f"{name} takes 2 arguments (a {'text' if name == '.asg' else 'value'}"
                                 f" and a substitution symbol), got {len(args)}")
            return
        value, sym = args
        if not _SUBST_NAME.fullmatch(sym) or is_reserved(sym):
            self.error(loc, len(name) + 1 + argtext.rfind(sym), f"{name}: '{sym}' is not a valid substitution symbol name")
            return
        if name == ".asg":
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1].replace('""', '"')
            if len(value) > SUBST_LIMIT:
                self.error(loc, col, f".asg: the text is {len(value)} characters long; "
                                     f"a substitution symbol holds at most {SUBST_LIMIT}")
                return
            self.subst[sym] = value
            return
        # parsed at its own column, so that errors point into the line
        st = parse_statement(".eval" + " " * max(1, col - 6) + value)
        if type(st) is Bad:
            self.error(loc, st.col, st.msg)
            return
        node, ecol = st.args[0]
        if type(node) is Str:
            self.error(loc, ecol, ".eval needs a value, not a string")
            return
        v = self.value1(node, loc)
        if v is None:
            return
        if type(v) is Reloc:
            self.error(loc, ecol, ".eval needs an absolute value, not an address")
            return
        self.subst[sym] = str(v) if type(v) is int else repr(float(v))

    # -- repeated blocks: .loop / .break / .endloop ---------------------------
    def _loop(self, label, st: Directive, lines: list[str], i: int, unit: Unit, loc) -> int:
        """Assemble ``lines[i:]`` up to the matching ``.endloop`` repeatedly;
        returns the index after ``.endloop``."""
        if label is not None:
            self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
        body, linenos, j = _block(lines, i, unit, ".loop", ".endloop")
        if j == len(lines):
            self.error(loc, st.col, "unterminated .loop (missing .endloop)")
            return j
        count = LOOP_DEFAULT
        if len(st.args) > 1:
            self.error(loc, st.col, f".loop takes 0 or 1 arguments, got {len(st.args)}")
            return j + 1
        if st.args:
            count = self.absolute(st.args[0], loc, "a .loop count")
            if count is None:
                return j + 1
            if not 0 <= count <= LOOP_LIMIT:
                self.error(loc, st.args[0][1],
                           f"a .loop count must be 0..{LOOP_LIMIT}, got {count}")
                return j + 1
        # the repetitions are listed as expansions ('+'), like a macro's lines
        sub = Unit(unit.file, linenos, unit.note, unit.tfile, unit.tline, "+")
        self.prev_instr = None
        if not self.macro_depth and not self.loop_depth:
            self.expansion_start = loc
        self.loop_depth += 1
        for _ in range(count):
            if not self._expanding(len(body), loc):
                break
            self._run(body, sub)
            if self.breaking or self.ended:
                break
        self.loop_depth -= 1
        self.breaking = False
        if self.lst is not None:
            self.list_line(unit, unit.lineno(j), lines[j])
        return j + 1

    def _break(self, label, st: Directive, loc) -> None:
        if label is not None:
            self.define(label, Reloc(self.cur.name, self.cur.size), loc, None)
        if not self.loop_depth:
            self.error(loc, st.col, ".break outside a .loop block")
            return
        if len(st.args) > 1:
            self.error(loc, st.col, f".break takes 0 or 1 arguments, got {len(st.args)}")
            return
        if st.args:
            v = self._truth(st, loc)
            if not v:
                return
        self.breaking = True
