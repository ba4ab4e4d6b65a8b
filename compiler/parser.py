"""Reading network descriptions (docs/network-language.md).

:func:`parse_file` and :func:`parse_text` return a checked
:class:`~rapsim.compiler.ir.Network`.  Reading is in two steps:

1. this module parses each file with the Lark grammar (``grammar.lark``),
   follows ``include`` statements (relative to the including file, each
   file once, loops reported), evaluates ``param`` definitions and every
   numeric expression in order (parameters may be overridden from outside),
   and collects declarations -- :class:`Description` -- with the location of
   every name and value;
2. :mod:`rapsim.compiler.check` turns the declarations into the IR and
   checks them.

Every error is collected as ``file:line:col: error: message`` and all of
them are raised together as :class:`rapsim.errors.Diagnostics`.  A syntax
error stops the reading of its file (the rest of it cannot be trusted).
"""
from __future__ import annotations

import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from rapsim.errors import RapError
from rapsim.fileio import read_regular

from .ir import Loc, Network
from .behaviours import BehaviourDecl
from .transfer import TransferDecl

__all__ = ["parse_file", "parse_text", "read_file", "read_text", "Description",
           "parse_param_value", "Name", "Call", "REQUIRED"]

_GRAMMAR = Path(__file__).with_name("grammar.lark")
_parser: Lark | None = None


def _lark() -> Lark:
    global _parser
    if _parser is None:
        _parser = Lark(_GRAMMAR.read_text(), parser="lalr", lexer="contextual",
                       propagate_positions=True, maybe_placeholders=True)
    return _parser


# ---------------------------------------------------------------------------
# Declarations
# ---------------------------------------------------------------------------

@dataclass
class Name:
    """A word as written, with where it was written."""
    text: str
    loc: Loc


@dataclass
class Call:
    """``name(arg, ..., key=value, ...)`` with evaluated numeric arguments:
    a learning-rate schedule or a sparse-connect generator."""
    name: Name
    args: list[tuple[float, Loc]] = field(default_factory=list)
    kwargs: dict[str, tuple[float, Loc]] = field(default_factory=dict)
    ok: bool = True             # False: an argument had an error (already reported)

    def bind(self, signature: dict, errors: list) -> dict | None:
        """Match the arguments to ``signature`` (name -> default, or
        ``REQUIRED``): positional arguments in the signature's order, then
        named ones.  Returns name -> (value, loc), or None after appending
        ``(loc, message)`` pairs to ``errors``."""
        if not self.ok:
            return None
        names = list(signature)
        out: dict[str, tuple] = {}
        n0 = len(errors)
        what = f"{self.name.text}()"
        if len(self.args) > len(names):
            errors.append((self.args[len(names)][1],
                           f"{what} takes at most {len(names)} arguments ({', '.join(names)})"))
        for (value, loc), key in zip(self.args, names):
            out[key] = (value, loc)
        for key, (value, loc) in self.kwargs.items():
            if key not in signature:
                errors.append((loc, f"{what} has no argument {key!r} (it takes {', '.join(names)})"))
            elif key in out:
                errors.append((loc, f"argument {key!r} of {what} is given twice"))
            else:
                out[key] = (value, loc)
        for key, default in signature.items():
            if key not in out:
                if default is REQUIRED:
                    errors.append((self.name.loc, f"{what} needs argument {key!r}"))
                else:
                    out[key] = (default, self.name.loc)
        return out if len(errors) == n0 else None


#: Marks a required argument in a :meth:`Call.bind` signature.
REQUIRED = object()


@dataclass
class LayerDecl:
    name: Name
    kind: Name
    size: int | None            # None: the size expression had an error
    size_loc: Loc
    bias: bool
    placement: object = None    # rapsim.compiler.mapping.PlacementAttrs, when written
    #: exclude PHASE, ...: (the phase words, the place of 'exclude') (compiler/phases.py)
    exclude: tuple | None = None


@dataclass
class ConnectDecl:
    src: Name
    dst: Name
    kind: Name                  # "full" when not written
    pairs: list[tuple[int, int, Loc]] | None
    generator: Call | None
    loc: Loc                    # the 'connect' keyword
    ok: bool = True             # False: a pair had an error (already reported)
    #: share_from SRC -> DST [transpose]: (the owner's source, its
    #: destination, the word after them or None, the place of 'share_from')
    share: tuple | None = None
    #: exclude PHASE, ...: (the phase words, the place of 'exclude') (compiler/phases.py)
    exclude: tuple | None = None
    #: calls after the first one (a second plasticity: refused by the checker)
    more: list = field(default_factory=list)


@dataclass
class NetDecl:
    name: Name
    entries: list[tuple[Name, list[Name]]]   # (role, layers)


@dataclass
class Setting:
    """One entry of a train block: a number, a word (mse, true) or a call."""
    name: Name
    value: float | Name | Call | None        # None: the value had an error
    loc: Loc


@dataclass
class Description:
    """Everything a description (with its includes) declares."""
    file: str
    layers: list[LayerDecl] = field(default_factory=list)
    connects: list[ConnectDecl] = field(default_factory=list)
    nets: list[NetDecl] = field(default_factory=list)
    settings: list[Setting] = field(default_factory=list)
    transfers: list[TransferDecl] = field(default_factory=list)
    behaviours: list[BehaviourDecl] = field(default_factory=list)
    stats: list[Name] = field(default_factory=list)     # 'stats' statements
    params: dict[str, float] = field(default_factory=dict)
    param_locs: dict[str, Loc] = field(default_factory=dict)
    files: list[str] = field(default_factory=list)
    errors: list[tuple[Loc, str]] = field(default_factory=list)    # (where, message)
    syntax_errors: int = 0      # files whose reading stopped at a syntax error

    def error(self, loc: Loc, message: str) -> None:
        self.errors.append((loc, message))


# ---------------------------------------------------------------------------
# Entry points
# ---------------------------------------------------------------------------

def parse_file(path, params: dict | None = None) -> Network:
    """Read, check and return the network described in ``path``.

    ``params`` overrides ``param`` definitions by name (values are numbers
    or strings such as ``"256"``, as ``rap cc -P hidden=256`` passes them).
    Raises :class:`Diagnostics` for errors in the description and
    :class:`RapError` for a missing file or a bad override.
    """
    from .check import build_network
    return build_network(read_file(path, params))


def parse_text(text: str, filename: str = "<text>", params: dict | None = None,
               base_dir=None) -> Network:
    """Like :func:`parse_file` for a description held in a string; includes
    are resolved relative to ``base_dir`` (default: the current folder)."""
    from .check import build_network
    return build_network(read_text(text, filename, params, base_dir))


def read_file(path, params: dict | None = None) -> Description:
    """The declarations of ``path`` and its includes (not yet checked)."""
    from rapsim.fileio import read_text as read_text_file
    path = os.fspath(path)
    text = read_text_file(path, "a network description")
    return read_text(text, path, params, os.path.dirname(path))


def read_text(text: str, filename: str = "<text>", params: dict | None = None,
              base_dir=None) -> Description:
    """The declarations of a description held in a string."""
    overrides = {k: parse_param_value(k, v) for k, v in (params or {}).items()}
    r = _Reader(filename, overrides)
    r.read(text, filename, base_dir if base_dir is not None else "")
    unknown = sorted(set(overrides) - set(r.desc.params))
    if unknown and not r.desc.errors:
        declared = ", ".join(r.desc.params) or "none"
        raise RapError(f"parameter {unknown[0]!r} is not defined in {filename} "
                       f"(its parameters: {declared})")
    return r.desc


def parse_param_value(name: str, value) -> int | float | tuple:
    """A parameter override as a number: ints and floats pass, strings are
    read as decimal numbers (``"256"``, ``"0.5"``, ``"1e-3"``).  A list of
    values (CLONES' Param: a name with a list of values) is a string of
    comma-separated numbers (``"128,256"``) or a list or tuple of numbers,
    and becomes a tuple; a list of one value is that value."""
    if isinstance(value, str) and "," in value:
        value = value.split(",")
    if isinstance(value, (list, tuple)):
        if not value:
            raise RapError(f"parameter {name!r}: an empty list of values")
        items = tuple(parse_param_value(name, v) for v in value)
        return items[0] if len(items) == 1 else items
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise RapError(f"parameter {name!r}: {value!r} is not a number")
    given = value
    if isinstance(value, str):
        text = value.strip()
        try:
            value = int(text)
        except ValueError:
            try:
                value = float(text)
            except ValueError:
                raise RapError(f"parameter {name!r}: {value!r} is not a number") from None
    if isinstance(value, float) and not math.isfinite(value):
        raise RapError(f"parameter {name!r}: {given!r} is not a finite number")
    return value


# ---------------------------------------------------------------------------
# The reader
# ---------------------------------------------------------------------------

class _EvalError(Exception):
    def __init__(self, loc: Loc, message: str):
        super().__init__(message)
        self.loc = loc


_TOKEN_TEXT = {"NAME": "a name", "NUMBER": "a number", "STRING": "a string",
               "$END": "the end of the file"}

# Settings whose value is a word (mse, true), never a parameter's value.
_WORD_SETTINGS = {"error", "shuffle", "alternate"}

# Functions usable in expressions.
_FUNCTIONS = {"min": min, "max": max}


class _Reader:
    def __init__(self, top: str, overrides: dict):
        self.desc = Description(file=top)
        self.overrides = overrides
        self.stack: list[str] = []          # files being read (include chain)
        self.done: set[str] = set()         # files read (resolved paths)

    # -- files ------------------------------------------------------------
    def read(self, text: str, display: str, base_dir: str) -> None:
        key = os.path.realpath(display) if os.path.exists(display) else display
        self.stack.append(key)
        self.done.add(key)
        self.desc.files.append(display)
        try:
            tree = _lark().parse(text)
        except UnexpectedInput as e:
            self.desc.error(Loc(display, e.line if e.line > 0 else 1,
                                e.column if e.column > 0 else 1), _syntax_message(e))
            self.desc.syntax_errors += 1
            tree = None
        if tree is not None:
            for st in tree.children:
                if isinstance(st, Tree):
                    getattr(self, "_" + st.data)(st, display, base_dir)
        self.stack.pop()

    def _include(self, st: Tree, file: str, base_dir: str) -> None:
        tok = st.children[0]
        loc = _loc(file, tok)
        rel = tok[1:-1]
        path = os.path.normpath(os.path.join(base_dir, rel))
        if not os.path.isfile(path):
            what = "a folder, not a file" if os.path.isdir(path) else "no such file"
            self.desc.error(loc, f"cannot include {rel!r}: {what} ({path})")
            return
        key = os.path.realpath(path)
        if key in self.stack:
            chain = [self._display(k) for k in self.stack[self.stack.index(key):]] + [path]
            self.desc.error(loc, "include loop: " + " -> ".join(chain))
            return
        if key in self.done:
            return                          # each file is read once
        try:
            text = read_regular(path).decode("utf-8-sig")
        except OSError as e:
            self.desc.error(loc, f"cannot include {rel!r}: {e.strerror}")
            return
        except UnicodeDecodeError as e:
            self.desc.error(loc, f"cannot include {rel!r}: byte {e.start} is not UTF-8 text")
            return
        self.read(text, path, os.path.dirname(path))

    def _display(self, key: str) -> str:
        for f in self.desc.files:
            if (os.path.realpath(f) if os.path.exists(f) else f) == key:
                return f
        return key

    # -- statements -------------------------------------------------------
    def _param(self, st: Tree, file: str, base_dir: str) -> None:
        tok, *exprs = st.children
        name, loc = str(tok), _loc(file, tok)
        if not self._free(tok, file, "a parameter"):
            return
        if name in self.desc.params:
            self.desc.error(loc, f"parameter {name!r} is already defined "
                                 f"(at {self.desc.param_locs[name]})")
            return
        if name in _FUNCTIONS:
            self.desc.error(loc, f"{name!r} is a function and cannot be a parameter")
            return
        try:
            values = tuple(self._eval(expr, file) for expr in exprs)
            value = values[0] if len(values) == 1 else values
        except _EvalError as e:
            self.desc.error(e.loc, str(e))
            value = None
        if name in self.overrides:
            value = self.overrides[name]
        if value is not None:
            self.desc.params[name] = value
            self.desc.param_locs[name] = loc

    def _layer(self, st: Tree, file: str, base_dir: str) -> None:
        name, kind, size_expr, *options = st.children
        self._free(name, file, "a layer")
        size_loc = _tree_loc(file, size_expr)
        size = self._number(size_expr, file, f"the size of layer {str(name)!r}",
                            integer=True, minimum=1)
        bias = False
        rest = list(options)
        placement = None
        exclude = None
        while rest:
            opt = rest.pop(0)
            if isinstance(opt, Tree) and opt.data == "exclude":
                if exclude is not None:
                    self.desc.error(_tree_loc(file, opt), f"'exclude' is given twice (at "
                                                          f"{exclude[1]})")
                else:
                    exclude = ([_name(file, t) for t in opt.children], _tree_loc(file, opt))
            elif isinstance(opt, Tree) or opt in ("partition",):
                placement = self._placement(opt, rest, file, placement)
            elif opt == "bias":
                if bias:
                    self.desc.error(_loc(file, opt), "'bias' is given twice")
                bias = True
            else:
                self.desc.error(_loc(file, opt), f"unknown layer option {str(opt)!r} (expected "
                                                 f"bias, partition, nodes, location or exclude)")
        self.desc.layers.append(LayerDecl(_name(file, name), _name(file, kind), size, size_loc, bias,
                                          placement, exclude))

    def _placement(self, opt, rest: list, file: str, attrs):
        """A placement attribute of a layer (compiler/mapping.py): ``partition
        SPLIT`` (SPLIT the next word, taken from ``rest``), ``nodes a..b``,
        ``location G``."""
        from .mapping import SPLITS, PlacementAttrs
        attrs = attrs or PlacementAttrs()
        if not isinstance(opt, Tree):               # partition SPLIT
            loc = _loc(file, opt)
            if not rest or isinstance(rest[0], Tree):
                self.desc.error(loc, f"partition needs one of {', '.join(SPLITS)}")
            elif attrs.partition is not None:
                rest.pop(0)
                self.desc.error(loc, f"'partition' is given twice (at {attrs.partition_loc})")
            elif str(rest[0]) not in SPLITS:
                self.desc.error(_loc(file, rest[0]), f"unknown partition {str(rest.pop(0))!r} "
                                                     f"(expected {', '.join(SPLITS)})")
            else:
                attrs.partition, attrs.partition_loc = str(rest.pop(0)), loc
            return attrs
        loc = _tree_loc(file, opt)
        if opt.data == "layer_nodes":
            lo = self._number(opt.children[0], file, "the first node of 'nodes'", integer=True,
                              minimum=0)
            hi = self._number(opt.children[1], file, "the last node of 'nodes'", integer=True,
                              minimum=0)
            if attrs.nodes is not None or attrs.location is not None:
                self.desc.error(loc, "a layer takes one 'nodes' or 'location'")
            elif lo is not None and hi is not None:
                if hi < lo:
                    self.desc.error(loc, f"nodes {lo}..{hi}: the last node comes before the first")
                else:
                    attrs.nodes, attrs.nodes_loc = (lo, hi), loc
        else:
            g = self._number(opt.children[0], file, "a location", integer=True, minimum=0)
            if attrs.nodes is not None or attrs.location is not None:
                self.desc.error(loc, "a layer takes one 'nodes' or 'location'")
            elif g is not None:
                attrs.location, attrs.location_loc = g, loc
        return attrs

    def _connect(self, st: Tree, file: str, base_dir: str) -> None:
        src, dst, kind, *spec = st.children
        exclude = None
        if spec and (spec[-1] is None or getattr(spec[-1], "data", None) == "exclude"):
            tail = spec.pop()
            if tail is not None:
                exclude = ([_name(file, t) for t in tail.children], _tree_loc(file, tail))
        share = None
        if spec and (spec[-1] is None or getattr(spec[-1], "data", None) == "connect_share"):
            tail = spec.pop()
            if tail is not None:
                s_src, s_dst, word = tail.children
                share = (_name(file, s_src), _name(file, s_dst),
                         _name(file, word) if word is not None else None, _tree_loc(file, tail))
        loc = _tree_loc(file, st)
        kind = _name(file, kind) if kind is not None else Name("full", loc)
        pairs = generator = None
        ok = True
        more = spec.pop() if len(spec) > 1 else None
        more = [self._call(c, file) for c in more.children] if more is not None else []
        if spec and spec[0] is not None:
            if spec[0].data == "pairs":
                pairs = []
                for p in spec[0].children:
                    if p is None:
                        continue
                    s = self._number(p.children[0], file, "a source unit", integer=True)
                    d = self._number(p.children[1], file, "a destination unit", integer=True)
                    if s is None or d is None:
                        ok = False
                    else:
                        pairs.append((s, d, _tree_loc(file, p)))
            else:
                generator = self._call(spec[0], file)
                ok = generator.ok
        self.desc.connects.append(ConnectDecl(_name(file, src), _name(file, dst), kind,
                                              pairs, generator, loc, ok, share, exclude, more))

    def _net(self, st: Tree, file: str, base_dir: str) -> None:
        name, *entries = st.children
        self._free(name, file, "a net")
        decl = NetDecl(_name(file, name), [])
        for e in entries:
            if isinstance(e, Tree):
                role, *layers = e.children
                decl.entries.append((_name(file, role), [_name(file, t) for t in layers]))
        self.desc.nets.append(decl)

    def _transfer(self, st: Tree, file: str, base_dir: str) -> None:
        name, *entries = st.children
        if not self._free(name, file, "a transfer function"):
            return
        decl = TransferDecl(str(name), _loc(file, name), base_dir)
        for e in entries:
            if isinstance(e, Tree):
                key, value = e.children
                is_string = value.type == "STRING"
                decl.entries.append((str(key), value[1:-1] if is_string else str(value),
                                     is_string, _loc(file, key), _loc(file, value)))
        self.desc.transfers.append(decl)

    def _behaviour(self, st: Tree, file: str, base_dir: str) -> None:
        *words, string = st.children
        names = [(str(w), _loc(file, w)) for w in words]
        path = (string[1:-1], _loc(file, string)) if string is not None else None
        self.desc.behaviours.append(BehaviourDecl(names, path, _tree_loc(file, st), base_dir))
    def _stats(self, st: Tree, file: str, base_dir: str) -> None:
        self.desc.stats.extend(_name(file, tok) for tok in st.children)

    def _train(self, st: Tree, file: str, base_dir: str) -> None:
        for e in st.children:
            if not isinstance(e, Tree):
                continue
            tok, expr = e.children
            value = None
            try:
                if isinstance(expr, Tree) and expr.data == "call" and str(expr.children[0]) not in _FUNCTIONS:
                    value = self._call(expr, file)
                elif isinstance(expr, Tree) and expr.data == "ref" and (
                        str(expr.children[0]) not in self.desc.params or str(tok) in _WORD_SETTINGS):
                    value = _name(file, expr.children[0])
                else:
                    value = self._eval(expr, file)
            except _EvalError as err:
                self.desc.error(err.loc, str(err))
            self.desc.settings.append(Setting(_name(file, tok), value, _tree_loc(file, expr)))

    def _free(self, tok: Token, file: str, what: str) -> bool:
        """A name that is not a statement keyword (those are reserved)."""
        if str(tok) in _KEYWORDS_TEXT:
            self.desc.error(_loc(file, tok), f"{str(tok)!r} is a keyword and cannot name {what}")
            return False
        return True

    # -- values -----------------------------------------------------------
    def _call(self, tree: Tree, file: str) -> Call:
        """A schedule or generator call; argument errors are reported here."""
        name, *args = tree.children
        call = Call(_name(file, name))
        for a in args:
            if a is None:
                continue
            try:
                if isinstance(a, Tree) and a.data == "named":
                    key, expr = a.children
                    if str(key) in call.kwargs:
                        self.desc.error(_loc(file, key), f"argument {str(key)!r} of {name}() "
                                                         f"is given twice")
                        call.ok = False
                        continue
                    call.kwargs[str(key)] = (self._eval(expr, file), _loc(file, key))
                else:
                    call.args.append((self._eval(a, file), _tree_loc(file, a)))
            except _EvalError as e:
                self.desc.error(e.loc, str(e))
                call.ok = False
        return call

    def _number(self, expr, file: str, what: str, integer: bool = False,
                minimum: int | None = None):
        """Evaluate; report an error (and return None) when the value is not
        a whole number (``integer``) or is below ``minimum``."""
        try:
            v = self._eval(expr, file)
            if integer:
                v = _whole(v, what, _tree_loc(file, expr))
            if minimum is not None and v < minimum:
                raise _EvalError(_tree_loc(file, expr), f"{what} must be at least {minimum}, got {v}")
            return v
        except _EvalError as e:
            self.desc.error(e.loc, str(e))
            return None

    def _eval(self, t, file: str):
        """The value of an expression tree: an int or a float.  Iterative
        (post-order over an explicit stack), so that long sums and deep
        nesting are no limit."""
        stack: list[tuple[object, bool]] = [(t, False)]
        values: list = []
        while stack:
            node, ready = stack.pop()
            if isinstance(node, Token):             # a bare NAME in a call position
                raise _EvalError(_loc(file, node), f"unexpected {str(node)!r}")
            op = node.data
            if op in ("number", "ref"):
                values.append(self._leaf(node, file))
            elif op == "index":
                values.append(self._index(node, file))
            elif op == "call":
                args = [a for a in node.children[1:] if a is not None]
                if ready:
                    vals = values[len(values) - len(args):]
                    del values[len(values) - len(args):]
                    values.append(_FUNCTIONS[str(node.children[0])](vals))
                    continue
                name = node.children[0]
                if str(name) not in _FUNCTIONS:
                    raise _EvalError(_loc(file, name), f"unknown function {str(name)!r} "
                                                       f"(expressions may use min and max)")
                if not args or any(isinstance(a, Tree) and a.data == "named" for a in args):
                    raise _EvalError(_loc(file, name), f"{name}() takes one or more numbers")
                stack.append((node, True))
                stack.extend((a, False) for a in reversed(args))
            elif not ready:
                stack.append((node, True))
                stack.extend((c, False) for c in reversed(node.children))
            elif op == "neg":
                values.append(-values.pop())
            else:
                b = values.pop()
                values.append(_binary(op, values.pop(), b, _tree_loc(file, node)))
        return values[0]

    def _leaf(self, t: Tree, file: str):
        tok = t.children[0]
        text = str(tok)
        if t.data == "ref":
            if text not in self.desc.params:
                raise _EvalError(_loc(file, tok), f"unknown parameter {text!r}")
            value = self.desc.params[text]
            if isinstance(value, tuple):
                raise _EvalError(_loc(file, tok), f"parameter {text!r} is a list of "
                                                  f"{len(value)} values: take one with "
                                                  f"{text}[0] .. {text}[{len(value) - 1}]")
            return value
        if not any(c in text for c in ".eE"):
            if len(text) > _MAX_DIGITS:
                raise _EvalError(_tree_loc(file, t), f"the number {text[:12]}... is out of range")
            return int(text)
        v = float(text)
        if not math.isfinite(v):
            raise _EvalError(_tree_loc(file, t), f"the number {text} is out of range")
        return v


    def _index(self, t: Tree, file: str):
        """``NAME[i]``: value i (from 0) of a list parameter; a parameter of
        one value is a list of one."""
        tok, expr = t.children
        name = str(tok)
        if name not in self.desc.params:
            raise _EvalError(_loc(file, tok), f"unknown parameter {name!r}")
        value = self.desc.params[name]
        items = value if isinstance(value, tuple) else (value,)
        i = _whole(self._eval(expr, file), "a list index", _tree_loc(file, expr))
        if not 0 <= i < len(items):
            raise _EvalError(_tree_loc(file, expr),
                             f"index {i} is out of range: parameter {name!r} has "
                             f"{len(items)} value{'s' if len(items) > 1 else ''}")
        return items[i]


#: Integers stay exact, but no larger than floats go (about 1.8e308).
_MAX_INT = 2 ** 1024
_MAX_DIGITS = 309


def _binary(op: str, a, b, loc: Loc):
    try:
        if op == "add":
            r = a + b
        elif op == "sub":
            r = a - b
        elif op == "mul":
            r = a * b
        elif op == "div":
            r = a / b
        elif op == "floordiv":
            r = a // b
        elif op == "mod":
            r = a % b
        elif op == "pow":
            r = a ** b if isinstance(a, int) and isinstance(b, int) and 0 <= b <= 64 \
                else float(a) ** float(b)
        else:                                    # pragma: no cover - grammar and code agree
            raise AssertionError(op)
    except ZeroDivisionError:
        raise _EvalError(loc, "division by zero") from None
    except (OverflowError, ValueError):
        raise _EvalError(loc, "the value is out of range") from None
    if isinstance(r, complex) or (isinstance(r, float) and not math.isfinite(r)) \
            or (isinstance(r, int) and abs(r) >= _MAX_INT):
        raise _EvalError(loc, "the value is out of range")
    return r


def _whole(v, what: str, loc: Loc) -> int:
    if isinstance(v, float):
        if not v.is_integer():
            raise _EvalError(loc, f"{what} must be a whole number, got {v:g}")
        v = int(v)
    return v


def _loc(file: str, tok: Token) -> Loc:
    return Loc(file, tok.line, tok.column)


def _tree_loc(file: str, t) -> Loc:
    if isinstance(t, Token):
        return _loc(file, t)
    return Loc(file, t.meta.line, t.meta.column)


def _name(file: str, tok: Token) -> Name:
    return Name(str(tok), _loc(file, tok))


def _syntax_message(e: UnexpectedInput) -> str:
    if isinstance(e, UnexpectedCharacters):
        return f"syntax error: unexpected character {e.char!r}"
    if isinstance(e, UnexpectedEOF) or (isinstance(e, UnexpectedToken) and e.token.type == "$END"):
        return "syntax error: unexpected end of file"
    tok = e.token
    what = f"keyword {str(tok)!r}" if tok.type in _KEYWORDS else repr(str(tok))
    expected = sorted({_expected_text(x) for x in e.expected if x != "$END"} - {None})
    tail = f"; expected {_one_of(expected)}" if expected else ""
    return f"syntax error: unexpected {what}{tail}"


_KEYWORDS = {"INCLUDE", "PARAM", "LAYER", "CONNECT", "NET", "TRAIN", "STATS", "TRANSFER",
             "BEHAVIOUR"}
_KEYWORDS_TEXT = {k.lower() for k in _KEYWORDS}


def _expected_text(term: str) -> str | None:
    if term in _TOKEN_TEXT:
        return _TOKEN_TEXT[term]
    if term in _KEYWORDS:
        return term.lower()
    pat = _lark().get_terminal(term).pattern
    return f"'{pat.value}'" if pat.type == "str" else term.lower()


def _one_of(items: list[str]) -> str:
    if len(items) == 1:
        return items[0]
    return "one of " + ", ".join(items)
