"""Parsing source lines into statements.

A line is split in Python into its label (an identifier in column 1, colon
optional), its statement and its comment (:func:`split_line`); the
statement is parsed by a Lark LALR parser (``grammar.lark``, contextual
lexer) whose callbacks build the :mod:`rapsim.asm.statements` objects
directly (no parse tree).  Statements are cached by their text, and so are
operands: a statement of the common shape ``MNEMONIC op, op [|| ...]`` is
split at its commas and each operand parsed alone (with the grammar's
``operand_only`` / ``arg_only`` start symbols), so that a new statement made
of operands seen before needs no parse at all.  Cached objects are shared,
so they are never modified after parsing (columns are relative to the
statement's text; the caller adds the line's offset).

Operands come out as the :mod:`rapsim.asm.operands` classes the encoder
takes, holding either numbers (ready to encode as they are) or expression
trees of :mod:`rapsim.asm.expr` to evaluate first.
"""
from __future__ import annotations

import re
from pathlib import Path

from lark import Lark, Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from . import isa
from .expr import Here, Sym, Un, build, is_const, unary
from .operands import DirOp, ImmOp, IndOp, RegOp
from .statements import Bad, Directive, Instr, Str, shift

__all__ = ["Instr", "Directive", "Str", "Bad", "AsmSyntaxError", "parse_statement",
           "split_line", "parse_number", "REGISTERS", "is_reserved"]

#: Register names (upper case) -> number, with the aliases F0-F7.
REGISTERS = dict(isa.REG) | isa.REGISTER_ALIASES


def is_reserved(name: str) -> bool:
    """Register names (C30 and C4x) cannot be symbols."""
    u = name.upper()
    return u in REGISTERS or u in isa.C4X_ONLY_REGISTERS


def _bad_byte(text: str, col: int = 1):
    """An :class:`AsmSyntaxError` for the first source byte in ``text`` (which
    starts at column ``col``) that is not UTF-8 -- read as a lone surrogate
    U+DC80..U+DCFF, see ``Assembler.read_lines`` -- or None."""
    for i, ch in enumerate(text):
        if "\udc80" <= ch <= "\udcff":
            return AsmSyntaxError(f"invalid UTF-8 byte 0x{ord(ch) - 0xDC00:02X} (source files "
                                  "are read as UTF-8)", col + i)
    return None


class AsmSyntaxError(Exception):
    """A statement cannot be parsed; ``col`` is 1-based, relative to the text parsed."""

    def __init__(self, message: str, col: int):
        super().__init__(message)
        self.col = col


# ---------------------------------------------------------------------------
# Number literals
# ---------------------------------------------------------------------------

_FLOAT_RE = re.compile(r"\d+\.\d*(?:[eE][+-]?\d+)?|\d+[eE][+-]?\d+")
_RADIX = (("h", 16, "0123456789abcdef"), ("b", 2, "01"), ("q", 8, "01234567"),
          ("o", 8, "01234567"))


class NumberRangeError(ValueError):
    """A well-formed floating-point literal that a double cannot hold."""


#: Integer literals hold at most this many bits (expressions too, asm/expr.py).
LITERAL_BITS = 64


def short(text: str, most: int = 40) -> str:
    """``text`` for a message: a long literal shortened, with its length."""
    return text if len(text) <= most else f"{text[:most // 2]}... ({len(text)} characters)"


def _int_literal(text: str, digits: str, base: int) -> int:
    """An integer literal's digits as a value of at most LITERAL_BITS bits
    (checked on the digit count first: never a conversion of thousands of
    digits)."""
    sig = digits.lstrip("0")
    most = {2: 64, 8: 22, 10: 20, 16: 16}[base]
    v = int(sig, base) if sig and len(sig) <= most else 0
    if len(sig) > most or v >= 1 << LITERAL_BITS:
        raise NumberRangeError(f"integer literal '{short(text)}' is out of range "
                               f"(integers are at most {LITERAL_BITS} bits: 0..{(1 << LITERAL_BITS) - 1})")
    return v


def parse_number(text: str) -> int | float:
    """Value of a number literal: decimal ``42``, hex ``0x2A`` or ``2Ah``,
    binary ``101010b``, octal ``52q`` (or ``52o``), float ``1.5``,
    ``2.5e-3``, ``1e3``.  Raises ValueError (NumberRangeError for a
    well-formed literal out of range)."""
    low = text.lower()
    if low.isdigit() and low.isascii():
        return _int_literal(text, low, 10)
    if low.startswith("0x") and len(low) > 2:
        int(low[2:3], 16)                 # ValueError on a bad digit
        if not all(c in "0123456789abcdef" for c in low[2:]):
            raise ValueError(text)
        return _int_literal(text, low[2:], 16)
    if _FLOAT_RE.fullmatch(low) and low.isascii():
        v = float(low)
        if v == float("inf"):
            raise NumberRangeError(f"floating-point literal '{short(text)}' is too large")
        if v == 0.0 and low.split("e")[0].strip("0.") != "":
            raise NumberRangeError(f"floating-point literal '{short(text)}' is too small "
                                   "(it would become 0)")
        return v
    for suffix, base, digits in _RADIX:
        if low.endswith(suffix) and len(low) > 1 and all(c in digits for c in low[:-1]):
            return _int_literal(text, low[:-1], base)
    raise ValueError(text)


# ---------------------------------------------------------------------------
# Indirect operands
# ---------------------------------------------------------------------------

_IND_RE = re.compile(r"\*(\+\+|--|\+|-)?AR([0-7])(\+\+|--)?(?:\((IR[01]|\d+)\))?(%)?(B)?", re.I)


def _indirect(col: int, pre, ar: str, arcol: int, post, postcol, index, circ, suffix,
              sufcol) -> IndOp:
    """The IndOp of ``*`` pre ``ar`` post ``(index)`` ``%`` suffix."""
    arn = ar.upper()
    if not (len(arn) == 3 and arn.startswith("AR") and arn[2] in "01234567"):
        raise AsmSyntaxError(f"malformed indirect operand: expected AR0-AR7 after '*', "
                             f"not '{ar}'", arcol)
    if pre is not None and post is not None:
        raise AsmSyntaxError("malformed indirect operand: ARn cannot be modified both "
                             "before and after", postcol)
    if suffix is not None and suffix.upper() != "B":
        raise AsmSyntaxError(f"malformed indirect operand: unexpected '{suffix}'", sufcol)
    disp = None
    if index is None:
        kind = isa.Index.DISP if (pre or post) else isa.Index.NONE
    else:
        node = index[0]
        name = node.name.upper() if type(node) is Sym else None
        if name in ("IR0", "IR1"):
            kind = isa.Index.IR0 if name == "IR0" else isa.Index.IR1
        elif name is not None and name in REGISTERS:
            raise AsmSyntaxError(f"malformed indirect operand: the index must be a "
                                 f"displacement, IR0 or IR1, not {name}", index[1])
        else:
            kind, disp = isa.Index.DISP, node
    mode = isa.indirect_mode_code(str(pre or ""), str(post or ""), kind,
                                  circular=circ is not None, bitrev=suffix is not None)
    if mode is None:
        raise AsmSyntaxError("malformed indirect operand: no such addressing mode "
                             "(see the indirect modes in docs/assembler.md)", col)
    return IndOp(mode, int(arn[2]), disp, col)


# ---------------------------------------------------------------------------
# The Lark callbacks: terms are (node, col) pairs; statements are objects
# ---------------------------------------------------------------------------

def _col(tok: Token) -> int:
    return tok.column


class _Callbacks:
    """Lark inline transformer: called during the LALR parse."""

    # -- terms ------------------------------------------------------------
    def number(self, c):
        tok = c[0]
        try:
            return parse_number(tok), _col(tok)
        except NumberRangeError as e:
            raise AsmSyntaxError(str(e), _col(tok)) from None
        except ValueError:
            raise AsmSyntaxError(f"bad number literal '{short(tok)}'", _col(tok)) from None

    def symbol(self, c):
        tok = c[0]
        up = tok.upper()
        if up in isa.C4X_ONLY_REGISTERS:
            raise AsmSyntaxError(f"{up} is a TMS320C4x register, not available on the TMS320C30",
                                 _col(tok))
        return Sym(str(tok), _col(tok)), _col(tok)

    def here(self, c):
        return Here(_col(c[0])), _col(c[0])

    def char(self, c):
        tok = c[0]
        body = tok[1:-1].replace("''", "'")
        if _bad_byte(tok):
            raise _bad_byte(tok, _col(tok))
        if len(body) != 1:
            raise AsmSyntaxError("a character constant holds exactly one character", _col(tok))
        return ord(body), _col(tok)

    def paren(self, c):
        return c[1][0], _col(c[0])

    def unary(self, c):
        op, (node, _) = c
        col = _col(op)
        if is_const(node):
            try:
                return unary(str(op), node, col), col
            except Exception:  # noqa: BLE001 - reported at evaluation
                pass
        return Un(str(op), node, col), col

    def expr(self, c):
        if len(c) == 1:
            return c[0]
        terms = [t[0] for t in c[0::2]]
        ops = [(str(o), _col(o)) for o in c[1::2]]
        return build(terms, ops), c[0][1]

    # -- operands ---------------------------------------------------------
    def immediate(self, c):
        node, col = c[0]
        return ImmOp(node, col)

    def register(self, c):
        tok = c[0]
        return RegOp(REGISTERS[tok.upper()], _col(tok))

    def direct(self, c):
        return DirOp(c[1][0], _col(c[0]))

    def simple_indirect(self, c):
        tok = c[0]
        m = _IND_RE.fullmatch(tok)
        pre, ar, post, index, circ, bitrev = m.groups()
        col = _col(tok)
        if index is not None and index[0] in "iI":
            index = (Sym(index, col), col)
        elif index is not None:
            try:
                index = (parse_number(index), col)
            except ValueError as e:
                raise AsmSyntaxError(str(e), col) from None
        return _indirect(col, pre, "AR" + ar, col, post, col, index, circ, bitrev, col)

    def indirect(self, c):
        star, pre, ar, post, index, circ, suffix = c
        if type(index) is Token:                      # a REG token: IR0, IR1 or a mistake
            index = (Sym(str(index), _col(index)), _col(index))
        return _indirect(_col(star), pre, ar, _col(ar), post, post and _col(post), index,
                         circ, suffix, suffix and _col(suffix))

    # -- statements -------------------------------------------------------
    def instr(self, c):
        m = c[0]
        ops = tuple(o for o in c[1:] if o is not None)
        return Instr(m.upper(), _col(m), ops)

    def operand_only(self, c):
        return c[0]

    def arg_only(self, c):
        return c[0]

    def single(self, c):
        return c[0]

    def parallel(self, c):
        return c[0].pair(c[2])

    def continuation(self, c):
        i = c[1]
        return Instr(i.mnem, i.col, i.ops, lead=True)

    def string(self, c):
        tok = c[0]
        if _bad_byte(tok):
            raise _bad_byte(tok, _col(tok))
        return Str(tok[1:-1].replace('""', '"')), _col(tok)

    def directive(self, c):
        d = c[0]
        args = tuple(a for a in c[1:] if a is not None)
        return Directive(d.lower(), _col(d), args)


_GRAMMAR = Path(__file__).with_name("grammar.lark")
_parser: Lark | None = None


def _get_parser() -> Lark:
    global _parser
    if _parser is None:
        _parser = Lark(_GRAMMAR.read_text(), parser="lalr", lexer="contextual",
                       transformer=_Callbacks(), maybe_placeholders=True,
                       start=["start", "operand_only", "arg_only"])
    return _parser


# ---------------------------------------------------------------------------
# Errors of the parser, as messages
# ---------------------------------------------------------------------------

_TOKEN_TEXT = {"$END": "end of line", "IDENT": "name", "NUMBER": "number",
               "DIRECTIVE": "directive", "STRING": "string", "CHAR": "character constant",
               "PAR": "parallel bar"}


_LAST_WORD = re.compile(r"([A-Za-z_][A-Za-z0-9_$]*)\s*$")
_OPERATORS = frozenset({"PLUS", "MINUS", "STAR", "SLASH", "PERCENT", "SHL", "SHR", "AMP", "VBAR",
                        "CARET", "EQ", "NE", "LT", "GT", "LE", "GE"})


def _expected_text(expected: set[str]) -> str:
    if expected & {"NUMBER", "IDENT", "LPAR"}:
        return "an operand or expression"
    if expected & {"COMMA", "$END"}:
        return "an operator, ',' or the end of the statement"
    if "RPAR" in expected:
        return "an operator or ')'"
    return ""


def _message(e: UnexpectedInput, text: str) -> tuple[str, int]:
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream] if e.pos_in_stream < len(text) else ""
        if ch == "?":
            return "'?' may end a label only inside a macro", e.column
        if _bad_byte(ch):
            return str(_bad_byte(ch)), e.column
        before = text[:e.pos_in_stream]
        if ch == ":" and _LABEL_RE.fullmatch(before.strip()):      # "   loop: NOP"
            start = len(before) - len(before.lstrip())
            return ("a label must start in column 1 (this one is indented)",
                    e.column - (e.pos_in_stream - start))
        return f"unexpected character {ch!r}", e.column
    if isinstance(e, UnexpectedToken):
        tok = e.token
        if tok.type == "$END":
            what, col = "end of line", len(text) + 1
        else:
            what = _TOKEN_TEXT.get(tok.type)
            what = f"{what} '{tok}'" if what else f"'{tok}'"
            col = tok.column
            before = _LAST_WORD.search(text, 0, col - 1)
            if before and before.group(1).upper() in REGISTERS and tok.type in _OPERATORS:
                return f"register {before.group(1).upper()} cannot be used in an expression", \
                    before.start(1) + 1
        exp = _expected_text(set(e.expected))
        return f"syntax error: unexpected {what}" + (f", expected {exp}" if exp else ""), col
    return f"syntax error: {e}", getattr(e, "column", 1) or 1


# ---------------------------------------------------------------------------
# Public entry points
# ---------------------------------------------------------------------------

_CACHE_LIMIT = 200_000
_cache: dict[str, object] = {}                         # statement text -> statement
_part_cache: dict[tuple[str, str], object] = {}        # (start, text) -> operand / argument


def _lark_parse(text: str, start: str = "start"):
    """Parse with Lark; a :class:`Bad` if the text is not valid."""
    p = _get_parser()
    try:
        return p.parse(text, start=start)
    except AsmSyntaxError as e:
        return Bad(str(e), e.col)
    except UnexpectedInput as e:
        orig = getattr(e, "orig_exc", None)
        if isinstance(orig, AsmSyntaxError):
            return Bad(str(orig), orig.col)
        return Bad(*_message(e, text))


def _part(start: str, text: str):
    key = (start, text)
    x = _part_cache.get(key)
    if x is None:
        x = _lark_parse(text, start)
        if len(_part_cache) >= _CACHE_LIMIT:
            _part_cache.clear()
        _part_cache[key] = x
    return x


_HEAD_RE = re.compile(r"[ \t]*(\.[A-Za-z_][A-Za-z0-9_]*|[A-Za-z_][A-Za-z0-9_$]*)(?:[ \t]+|$)")


def _pieces(text: str, pos: int, end: int, start: str) -> list | None:
    """The comma-separated operands (or arguments) in ``text[pos:end]``,
    each parsed alone (cached) and moved to its column; None if one of
    them does not parse (the whole statement is then parsed again, so that
    its error is reported as Lark sees it)."""
    out = []
    if text[pos:end].strip() == "":
        return out
    while True:
        comma = text.find(",", pos, end)
        stop = end if comma < 0 else comma
        piece = text[pos:stop]
        body = piece.strip()
        if not body:
            return None
        x = _part(start, body)
        if type(x) is Bad:
            return None
        out.append(shift(x, pos + piece.index(body[0])))
        if comma < 0:
            return out
        pos = comma + 1


def _by_parts(text: str):
    """Parse a statement operand by operand (the fast path: operands repeat
    far more than whole statements).  None where the statement is not of
    the simple shape ``HEAD op, op... [|| HEAD op, op...]`` without quotes."""
    if '"' in text or "'" in text or ";" in text:
        return None
    bar = text.find("||")
    ends = [len(text)] if bar < 0 else [bar, len(text)]
    if text.find("||", bar + 2) >= 0 and bar >= 0:
        return None
    parts = []
    pos = 0
    for end in ends:
        if not text[pos:end].strip():
            parts.append(None)
        else:
            m = _HEAD_RE.match(text, pos, end)
            if m is None:
                return None
            head = m.group(1)
            start = "arg_only" if head[0] == "." else "operand_only"
            ops = _pieces(text, m.end(), end, start)
            if ops is None:
                return None
            parts.append((head, m.start(1) + 1, tuple(ops)))
        pos = end + 2
    first = parts[0]
    if len(parts) == 1:
        if first is None:
            return None
        if first[0][0] == ".":
            return Directive(first[0].lower(), first[1], first[2])
        return Instr(first[0].upper(), first[1], first[2])
    second = parts[1]
    if second is None or second[0][0] == "." or (first is not None and first[0][0] == "."):
        return None
    i2 = Instr(second[0].upper(), second[1], second[2])
    if first is None:
        return Instr(i2.mnem, i2.col, i2.ops, lead=True)
    return Instr(first[0].upper(), first[1], first[2]).pair(i2)


def parse_statement(text: str):
    """Parse one statement (no label, no leading blanks): an :class:`Instr`,
    a :class:`Directive`, or a :class:`Bad` holding the error."""
    st = _cache.get(text)
    if st is not None:
        return st
    try:
        st = _by_parts(text)
        if st is None:
            st = _lark_parse(text)
    except RecursionError:
        st = Bad("statement nested too deeply", 1)
    if len(_cache) >= _CACHE_LIMIT:
        _cache.clear()
    _cache[text] = st
    return st


def clear_caches() -> None:
    _cache.clear()
    _part_cache.clear()


_LABEL_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_$]*|\$(?:\d|[A-Za-z_][A-Za-z0-9_$]*)\$\d+")  # textsubs


def split_line(line: str) -> tuple[str | None, str, int]:
    """``(label, statement, column of the statement)`` of a source line.

    Column 1 holds a label (an identifier, colon optional), a ``*`` or ``;``
    comment, or blanks.  As a convenience a directive (``.``) or a parallel
    bar (``||``) may also start in column 1.  The statement comes back
    without its comment when that can be cut without parsing (no quote
    before the ``;``).  Raises :class:`AsmSyntaxError` for a bad label.
    """
    if not line:
        return None, "", 0
    c = line[0]
    label = None
    if c == " " or c == "\t" or c.isspace():
        rest = line
    elif c == "*" or c == ";":
        return None, "", 0
    elif c == "." or c == "|":
        rest = line
    else:
        m = _LABEL_RE.match(line)
        if m is None:
            raise _bad_byte(c) or AsmSyntaxError(
                f"invalid label: a label starts with a letter or '_', "
                f"not {c!r} (indent instructions)", 1)
        label = m.group()
        end = m.end()
        if end < len(line) and line[end] == ":":
            end += 1
        elif end < len(line) and not (line[end].isspace() or line[end] == ";"):
            raise _bad_byte(line[end], end + 1) or AsmSyntaxError(
                f"invalid character {line[end]!r} in label", end + 1)
        rest = line[end:]
    stmt = rest.lstrip()
    col = len(line) - len(stmt) + 1
    i = stmt.find(";")
    if i >= 0 and '"' not in stmt[:i] and "'" not in stmt[:i]:
        stmt = stmt[:i]
    return label, stmt.rstrip(), col
