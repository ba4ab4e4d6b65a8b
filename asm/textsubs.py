"""Rewriting of a source line before it is parsed: local labels and
substitution symbols, as TI's assemblers have them.

Local labels (``$0`` .. ``$9`` and ``name?``) are given the number of the
*local-label scope* the line is in: ``$1`` becomes ``$1$S`` and ``loop?``
becomes ``$loop$S``.  A new scope starts at ``.newblock``, at every
``.text``/``.data``/``.sect``, on entering and on leaving an included file,
and for each macro expansion (which ends by returning to the caller's
scope); see docs/assembler.md, "Local labels".

Substitution symbols (``.asg``, ``.eval``, ``.var``) are replaced by their
text: ``:sym:`` anywhere in the line (in the label field and inside strings
too), and a bare ``sym`` in the statement outside strings, character
constants and comments.  The text a symbol brings in is scanned again, and
a symbol met a second time along one chain of replacements is left as it
is, so that substitution always ends.
"""
from __future__ import annotations

import re

__all__ = ["scope_locals", "substitute", "shown", "LOCAL_NAME", "is_local"]

_ID = r"[A-Za-z_][A-Za-z0-9_$]*"
# strings, character constants and comments: left alone by bare substitution
_SKIP = r'"(?:[^"\n]|"")*"|\'(?:[^\'\n]|\'\')*\'|;.*'

_LOCAL_RE = re.compile(rf"(?P<skip>{_SKIP})"
                       rf"|(?<![A-Za-z0-9_$.])(?:\$(?P<digit>\d)(?![A-Za-z0-9_$])"
                       rf"|(?P<name>{_ID})\?)")
#: How a scoped ``$n`` label looks after :func:`scope_locals`.
LOCAL_NAME = re.compile(r"\$(\d)\$\d+")
#: A scoped ``$n`` or ``name?`` label (``$1$S``, ``$name$S``; a macro's ``name?``
#: is ``$name$N`` too, asm/macros.py): a leading ``$`` keeps them apart from
#: every identifier a user can write (``name$3`` is an ordinary symbol).
_SCOPED = re.compile(rf"(?<![A-Za-z0-9_$])\$(?:(?P<digit>\d)|(?P<name>{_ID}))\$\d+"
                     rf"(?![A-Za-z0-9_$])")
_FORCED_RE = re.compile(rf":(?P<name>{_ID}):")
_BARE_RE = re.compile(rf"(?P<skip>{_SKIP})|(?<![A-Za-z0-9_$.:])(?P<name>{_ID})(?![A-Za-z0-9_$])")
_LABEL_FIELD = re.compile(rf"{_ID}:?|\$\d:?")


def scope_locals(line: str, scope: int, made: set | None = None) -> str:
    """``line`` with its local labels numbered for ``scope``; the names made
    are added to ``made``."""
    def repl(m: re.Match) -> str:
        if m.group("skip") is not None:
            return m.group(0)
        d = m.group("digit")
        name = f"${d}${scope}" if d is not None else f"${m.group('name')}${scope}"
        if made is not None:
            made.add(name)
        return name
    return _LOCAL_RE.sub(repl, line)


def is_local(name: str) -> bool:
    """Is ``name`` a scoped ``$n`` local label?"""
    return LOCAL_NAME.fullmatch(name) is not None


def shown(text: str) -> str:
    """``text`` with scoped local labels written as the user wrote them."""
    if "$" not in text:
        return text
    return _SCOPED.sub(lambda m: "$" + m.group("digit") if m.group("digit") is not None
                       else m.group("name") + "?", text)


#: Characters a substitution symbol's text, or a line after substitution,
#: may have: symbols whose texts name other symbols twice expand
#: exponentially (docs/assembler.md, "Limits").
SUBST_LIMIT = 1 << 16


class SubstitutionTooLong(ValueError):
    """A line grew past SUBST_LIMIT characters by substitution."""

    def __init__(self):
        super().__init__(f"substitution makes the line longer than {SUBST_LIMIT} characters "
                         "(substitution symbols that expand to each other?)")


def _expand(name: str, table: dict[str, str], seen: frozenset) -> str:
    """The text of substitution symbol ``name``, its own symbols replaced."""
    text = table[name]
    seen = seen | {name}

    def repl(m: re.Match) -> str:
        n = m.group("name")
        if n is None or n in seen or n not in table:
            return m.group(0)
        return _expand(n, table, seen)
    text = _BARE_RE.sub(repl, text)
    if len(text) > SUBST_LIMIT:
        raise SubstitutionTooLong()
    return text


def substitute(line: str, table: dict[str, str], keep_last: bool = False) -> str:
    """``line`` with the substitution symbols of ``table`` replaced.

    ``keep_last``: leave the text after the statement's last top-level
    comma alone (the symbol that ``.asg``/``.eval`` assigns)."""
    def forced(m: re.Match) -> str:
        n = m.group("name")
        return _expand(n, table, frozenset()) if n in table else m.group(0)

    if ":" in line:
        line = _FORCED_RE.sub(forced, line)
    # the label field (column 1) takes only forced substitution
    start = 0
    if line and not line[0].isspace() and line[0] not in "*;.|":
        m = _LABEL_FIELD.match(line)
        start = m.end() if m else 0
    body = line[start:]
    tail = ""
    if keep_last:
        cut = _last_comma(body)
        if cut >= 0:
            body, tail = body[:cut], body[cut:]

    def bare(m: re.Match) -> str:
        n = m.group("name")
        if n is None or n not in table:
            return m.group(0)
        return _expand(n, table, frozenset())
    line = line[:start] + _BARE_RE.sub(bare, body) + tail
    if len(line) > SUBST_LIMIT:
        raise SubstitutionTooLong()
    return line


def _last_comma(text: str) -> int:
    """Index of the last comma outside strings, character constants,
    parentheses and the comment, or -1."""
    last, depth, quote = -1, 0, ""
    for i, c in enumerate(text):
        if quote:
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
        elif c == "(":
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == ";":
            break
        elif c == "," and depth <= 0:
            last = i
    return last
