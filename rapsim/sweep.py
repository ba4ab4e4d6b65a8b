"""Parameter sweeps: run many independent measurement points in parallel,
keep the results in one file written atomically, and resume after an
interruption without recomputing finished points.

A *point* is a dict of JSON-able parameters; a point's identity is its
canonical JSON text.  The measuring function takes a point and returns a
dict of results; it must be a module-level function (it is pickled to run in
worker processes or on a Dask cluster).

Results files are JSON (a list of records) or CSV (one row per record,
columns = the union of the record keys), chosen by the file suffix.  Each
record holds the point's parameters and its results.  After every finished
point the whole file is rewritten through a temporary file renamed over it,
so an interruption leaves the previous complete file, never a truncated one.

Parallelism (``docs/bench.md``): local processes by default
(``concurrent.futures.ProcessPoolExecutor``, one per core); with a Dask
scheduler address, the points are submitted to that cluster instead
(``dask.distributed``, an optional dependency: ``pip install 'rap[dask]'``).
Local workers die with their parent: on Linux each asks the kernel for
SIGKILL when the parent dies (``prctl(PR_SET_PDEATHSIG)``), so even a
SIGKILLed ``rap bench`` leaves no worker (nor, its pipe closed, the resource
tracker) holding the caller's pipes; a SIGTERM is turned into an exit that
terminates the workers first.

A results file is validated when read -- JSON that parses to a list of
records, or CSV whose every row has as many cells as the header and whose
last line is complete -- and refused with a message (never rewritten) when
it is not: a truncated file stays as it is for the user to look at.
"""
from __future__ import annotations

import csv
import io
import json
import ctypes
import multiprocessing
import os
import signal
import sys
import threading
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Callable, Iterable

from rapsim.errors import RapError
from rapsim.fileio import read_regular, write_file

POINT_KEY = "point"


def point_id(point: dict) -> str:
    return json.dumps(point, sort_keys=True, separators=(",", ":"))


def _is_csv(path: str) -> bool:
    return os.fspath(path).lower().endswith(".csv")


def load_results(path: str) -> list[dict]:
    """Records of a results file (empty if it does not exist)."""
    if not os.path.exists(path):
        return []
    try:
        text = read_regular(path).decode("utf-8")
    except OSError as e:
        raise RapError(f"cannot read {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise RapError(f"{path}: not a results file of rap bench (not text)") from None
    if not text.strip():
        return []
    try:
        if _is_csv(path):
            if not text.endswith("\n"):
                raise ValueError("its last line is incomplete (a truncated file?)")
            rows = list(csv.DictReader(io.StringIO(text, newline="")))
            out = []
            for i, row in enumerate(rows):
                if None in row:                 # more cells than the header names
                    raise ValueError(f"row {i + 1} has more cells than the header")
                if None in row.values():        # fewer: a truncated line
                    raise ValueError(f"row {i + 1} has fewer cells than the header "
                                     "(a truncated file?)")
                rec = {k: _parse_cell(v) for k, v in row.items()}
                if POINT_KEY in rec and isinstance(rec[POINT_KEY], str):
                    rec[POINT_KEY] = json.loads(rec[POINT_KEY])
                out.append(rec)
            data = out
        else:
            data = json.loads(text)
    except (json.JSONDecodeError, csv.Error, ValueError) as e:
        raise RapError(f"{path}: not a results file of rap bench ({e})") from None
    if not isinstance(data, list) or not all(isinstance(r, dict)
                                             and isinstance(r.get(POINT_KEY), dict)
                                             for r in data):
        raise RapError(f"{path}: not a results file of rap bench "
                       f"(every record needs a '{POINT_KEY}' object)")
    return data


def _parse_cell(v: str):
    if v is None or v == "":
        return None
    try:
        return json.loads(v)
    except (json.JSONDecodeError, ValueError):
        return v


def save_results(path: str, records: list[dict]) -> None:
    """Write every record (atomically)."""
    if _is_csv(path):
        cols: list[str] = []
        for r in records:
            for k in r:
                if k not in cols:
                    cols.append(k)
        buf = io.StringIO()
        w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n")
        w.writeheader()
        for r in records:
            w.writerow({k: (json.dumps(v) if isinstance(v, (dict, list)) else v) for k, v in r.items()})
        write_file(path, buf.getvalue())
    else:
        write_file(path, json.dumps(records, indent=1) + "\n")


_PR_SET_PDEATHSIG = 1


def _die_with_parent(parent: int) -> None:
    """Worker initializer: SIGKILL this worker when its parent dies (Linux
    prctl(2) PR_SET_PDEATHSIG; elsewhere the SIGTERM handler of the parent
    still terminates the workers), and exit at once if it is dead already."""
    if sys.platform.startswith("linux"):
        try:
            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)


class _Terminated(SystemExit):
    """SIGTERM, turned into an exit that shuts the workers down first."""


def _on_sigterm(signum, frame):
    raise _Terminated(128 + signum)


def _run_local(fn, todo: list[dict], workers: int, on_done) -> None:
    if workers <= 1:
        for p in todo:
            on_done(p, fn(p))
        return
    # spawned, not forked: the parent may have threads (the progress bar's)
    pool = ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("spawn"),
                               initializer=_die_with_parent, initargs=(os.getpid(),))
    main = threading.current_thread() is threading.main_thread()
    old = signal.signal(signal.SIGTERM, _on_sigterm) if main else None
    pending = {}
    try:
        pending = {pool.submit(fn, p): p for p in todo}
        while pending:
            done, _ = wait(pending, return_when=FIRST_COMPLETED)
            for fut in done:
                p = pending.pop(fut)
                on_done(p, fut.result())
    except BaseException:
        for fut in pending:
            fut.cancel()
        # terminate the workers now: a shutdown that waits would let a
        # SIGTERMed or interrupted sweep run on for the length of a point
        for proc in list((getattr(pool, "_processes", None) or {}).values()):
            proc.terminate()
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        if main:
            signal.signal(signal.SIGTERM, old)


def _run_dask(fn, todo: list[dict], scheduler: str, on_done, timeout: float) -> None:
    try:
        from dask.distributed import Client, as_completed
    except ImportError:
        raise RapError("a Dask scheduler was given but dask.distributed is not installed "
                       "(pip install 'rap[dask]')") from None
    try:
        client = Client(scheduler, timeout=f"{timeout}s")
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        raise RapError(f"cannot reach the Dask scheduler at {scheduler}: {e}") from None
    try:
        futs = {client.submit(fn, p, pure=False): i for i, p in enumerate(todo)}
        for fut in as_completed(futs):
            on_done(todo[futs[fut]], fut.result())
    finally:
        client.close()


def run_sweep(points: Iterable[dict], fn: Callable[[dict], dict], results_path: str, *,
              workers: int | None = None, scheduler: str | None = None,
              progress: bool = True, description: str = "sweep",
              connect_timeout: float = 10.0,
              complete: Callable[[dict], bool] | None = None,
              fresh: bool = False) -> list[dict]:
    """Measure every point not already in ``results_path``; return all the
    records of the points asked for, in the order given.

    ``complete(record)``: is a record of the file usable as it is?  A point
    whose record is not (a file from another version, edited by hand) is
    measured again and its record replaced.  ``fresh``: ignore the records of
    the file and measure every point (the file is replaced when the first
    point is done, so an interruption before that leaves it as it was).

    ``workers``: local processes (default: one per core; 1 runs the points
    in this process); ``scheduler``: the address of a Dask scheduler to
    send the points to instead (``connect_timeout`` seconds to reach it).
    The progress bar goes to standard error."""
    points = list(points)
    records = [] if fresh else load_results(results_path)
    have = {point_id(r[POINT_KEY]): r for r in records if complete is None or complete(r)}
    todo = [p for p in points if point_id(p) not in have]
    workers = workers or os.cpu_count() or 1

    bar = None
    if progress and todo:
        import sys

        from rich.console import Console
        from rich.progress import (BarColumn, Progress, TextColumn, TimeElapsedColumn,
                                   TimeRemainingColumn)
        bar = Progress(TextColumn("{task.description}"), BarColumn(),
                       TextColumn("{task.completed}/{task.total}"), TimeElapsedColumn(),
                       TextColumn("eta"), TimeRemainingColumn(),
                       console=Console(file=sys.stderr), transient=True)
        task = bar.add_task(description, total=len(todo))
        bar.start()

    def on_done(p: dict, result: dict) -> None:
        rec = {POINT_KEY: p, **result}
        pid = point_id(p)
        records[:] = [r for r in records if point_id(r[POINT_KEY]) != pid]
        records.append(rec)
        have[point_id(p)] = rec
        save_results(results_path, records)
        if bar is not None:
            bar.advance(task)

    try:
        if scheduler:
            _run_dask(fn, todo, scheduler, on_done, connect_timeout)
        else:
            _run_local(fn, todo, min(workers, max(1, len(todo))), on_done)
    finally:
        if bar is not None:
            bar.stop()
    return [have[point_id(p)] for p in points if point_id(p) in have]
