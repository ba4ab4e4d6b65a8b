"""The ``train { ... }`` block: settings -> :class:`rapsim.compiler.ir.Training`.

Each setting may be given once (over all train blocks of a description and
its includes); the values are checked here, and every problem is reported
as ``(loc, message)``.
"""
from __future__ import annotations

from .ir import ERROR_FUNCTIONS, Loc, Schedule, Training
from .parser import Call, Name, Setting
from .schedule import SCHEDULES

SETTINGS = ("rate", "epochs", "momentum", "error", "seed", "init_scale", "shuffle", "alternate",
            "frames")


def build_training(settings: list[Setting], errors: list) -> tuple[Training, dict[str, Loc]]:
    """The Training of a description, and where each valid setting was
    written."""
    t = Training()
    where: dict[str, Loc] = {}
    valid: dict[str, Loc] = {}
    for s in settings:
        key = s.name.text
        if key not in SETTINGS:
            errors.append((s.name.loc, f"unknown training setting {key!r} "
                                       f"(expected {', '.join(SETTINGS)})"))
            continue
        if key in where:
            errors.append((s.name.loc, f"training setting {key!r} is already set (at {where[key]})"))
            continue
        where[key] = s.loc
        if s.value is None:                 # its expression had an error
            continue
        n = len(errors)
        value = _SETTERS[key](s, errors)
        if len(errors) == n:
            setattr(t, key, value)
            valid[key] = s.loc
    return t, valid


def _rate(s: Setting, errors: list):
    v = s.value
    if isinstance(v, Name):
        errors.append((v.loc, f"unknown parameter {v.text!r}"))
        return None
    if not isinstance(v, Call):
        if v > 0:
            return Schedule("constant", {"rate": float(v)}, s.loc)
        errors.append((s.loc, f"the learning rate must be greater than 0, got {v:g}"))
        return None
    kind = v.name.text
    if not v.ok:
        return None
    if kind not in SCHEDULES:
        errors.append((v.name.loc, f"unknown learning-rate schedule {kind!r} "
                                   f"(expected a number or {', '.join(SCHEDULES)})"))
        return None
    if kind == "list":
        return _rate_list(v, s.loc, errors)
    args = v.bind(SCHEDULES[kind], errors)
    if args is None:
        return None
    params = {}
    n = len(errors)
    for key, (x, loc) in args.items():
        if key == "every":
            if not (isinstance(x, int) or float(x).is_integer()) or x < 1:
                errors.append((loc, f"every of step() must be a whole number of at least 1, got {x:g}"))
            params[key] = int(x)
        elif key in ("start_below", "stop_below"):
            params[key] = float(x)
        elif x <= 0:
            errors.append((loc, f"{key} of {kind}() must be greater than 0, got {x:g}"))
        else:
            params[key] = float(x)
    return Schedule(kind, params, s.loc) if len(errors) == n else None


def _rate_list(v: Call, loc: Loc, errors: list):
    if v.kwargs:
        key, (_, kloc) = next(iter(v.kwargs.items()))
        errors.append((kloc, f"list() takes rates only, not {key}="))
        return None
    if not v.args:
        errors.append((v.name.loc, "list() needs at least one rate"))
        return None
    for x, xloc in v.args:
        if x < 0:
            errors.append((xloc, f"a learning rate cannot be negative, got {x:g}"))
            return None
    return Schedule("list", {"rates": [float(x) for x, _ in v.args]}, loc)


def _number(s: Setting, errors: list) -> bool:
    if isinstance(s.value, (Name, Call)):
        what = s.value.text if isinstance(s.value, Name) else s.value.name.text + "()"
        errors.append((s.loc, f"{s.name.text} must be a number, not {what}"))
        return False
    return True


def _whole(s: Setting, errors: list, low: int):
    if not _number(s, errors):
        return None
    v = s.value
    if not float(v).is_integer() or v < low:
        errors.append((s.loc, f"{s.name.text} must be a whole number of at least {low}, got {v:g}"))
        return None
    return int(v)


def _epochs(s, errors):
    return _whole(s, errors, 1)


def _seed(s, errors):
    return _whole(s, errors, 0)


def _momentum(s, errors):
    if _number(s, errors):
        if 0 <= s.value < 1:
            return float(s.value)
        errors.append((s.loc, f"momentum must be at least 0 and less than 1, got {s.value:g}"))


def _init_scale(s, errors):
    if _number(s, errors):
        if s.value > 0:
            return float(s.value)
        errors.append((s.loc, f"init_scale must be greater than 0, got {s.value:g}"))


def _word(s: Setting, errors: list, choices: tuple):
    v = s.value
    if isinstance(v, Name) and v.text in choices:
        return v.text
    shown = v.text if isinstance(v, Name) else v.name.text + "()" if isinstance(v, Call) else f"{v:g}"
    errors.append((s.loc, f"{s.name.text} must be {' or '.join(choices)}, not {shown}"))


def _error(s, errors):
    return _word(s, errors, ERROR_FUNCTIONS)


def _shuffle(s, errors):
    w = _word(s, errors, ("true", "false"))
    return None if w is None else w == "true"


def _alternate(s, errors):
    return _word(s, errors, ("epoch", "pattern"))


_SETTERS = {"rate": _rate, "epochs": _epochs, "momentum": _momentum, "error": _error,
            "seed": _seed, "init_scale": _init_scale, "shuffle": _shuffle,
            "alternate": _alternate, "frames": _epochs}
