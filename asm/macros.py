"""Macros: definition, argument splitting and text substitution (TI style).

A macro is defined with ``NAME .macro p1, p2`` ... ``.endm`` and called by
writing ``NAME a, b`` where an instruction would go.  Each call substitutes,
in a single pass over each body line (text produced by a substitution is
not scanned again):

* ``:p1:`` anywhere in the line, inside strings too, by the argument text;
* a bare identifier equal to a parameter name (case-sensitive), outside
  string and character constants and comments, by the argument text;
* a label or symbol written ``name?`` by ``$name$N``, N being a number unique
  to the call, so that every expansion has its own local labels.

Arguments are split at the commas that are outside parentheses, string and
character constants; surrounding blanks are removed; quotes are kept.  A
missing argument is the empty text.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["Macro", "split_args", "directive_word", "MACRO_DEPTH_LIMIT"]

#: Deepest nesting of macro calls (a recursive macro stops here).
MACRO_DEPTH_LIMIT = 32

_IDENT = r"[A-Za-z_][A-Za-z0-9_$]*"


@dataclass
class Macro:
    name: str
    params: list[str]
    body: list[str]                   # raw body lines
    linenos: list[int]                # their line numbers in the defining file
    file: int                         # index of the defining file
    line: int                         # line of the .macro directive
    _re: tuple | None = field(default=None, repr=False)

    def _patterns(self) -> tuple[re.Pattern, re.Pattern | None]:
        if self._re is None:
            names = "|".join(re.escape(p) for p in sorted(self.params, key=len, reverse=True))
            alts = [r'(?P<str>"(?:[^"\n]|"")*"|\'(?:[^\'\n]|\'\')*\'|;.*)']
            if names:
                alts.insert(0, rf":(?P<colon>{names}):")
                alts.append(rf"(?<![A-Za-z0-9_$.])(?P<bare>{names})(?![A-Za-z0-9_$])")
            alts.append(rf"(?<![A-Za-z0-9_$.])(?P<local>{_IDENT})\?")
            self._re = (re.compile("|".join(alts)),
                        re.compile(rf":(?P<colon>{names}):") if names else None)
        return self._re

    def expand(self, args: list[str], serial: int) -> list[str]:
        """The body with the arguments and call number substituted."""
        values = dict(zip(self.params, args))
        pat, colon = self._patterns()

        def by_colon(m: re.Match) -> str:
            return values.get(m.group("colon"), "")

        def repl(m: re.Match) -> str:
            g = m.lastgroup
            if g == "colon" or g == "bare":
                return values.get(m.group(g), "")
            if g == "local":
                return f"${m.group('local')}${serial}"      # see textsubs._SCOPED
            text = m.group(0)             # a string, character constant or comment
            if colon is not None and text[0] == '"':
                return colon.sub(by_colon, text)
            return text

        return [pat.sub(repl, line) for line in self.body]


def split_args(text: str) -> list[str]:
    """The comma-separated arguments of a macro call."""
    text = text.strip()
    if not text:
        return []
    out, depth, cur, quote = [], 0, [], ""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if quote:
            cur.append(c)
            if c == quote:
                quote = ""
        elif c in "\"'":
            quote = c
            cur.append(c)
        elif c == "(":
            depth += 1
            cur.append(c)
        elif c == ")":
            depth -= 1
            cur.append(c)
        elif c == "," and depth <= 0:
            out.append("".join(cur).strip())
            cur = []
        elif c == ";":
            break
        else:
            cur.append(c)
        i += 1
    out.append("".join(cur).strip())
    return out


_DIRECTIVE_WORD = re.compile(r"(?:[^\s;*][^\s;]*)?[ \t]+(\.[A-Za-z_][A-Za-z0-9_]*)|(\.[A-Za-z_][A-Za-z0-9_]*)")


def directive_word(line: str) -> str | None:
    """The directive a raw line holds (lower case), found without parsing;
    used where lines are only scanned (macro bodies, skipped conditional
    blocks)."""
    if not line or line[0] in "*;":
        return None
    m = _DIRECTIVE_WORD.match(line)
    if m is None:
        return None
    return (m.group(1) or m.group(2)).lower()
