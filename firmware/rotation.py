"""Plans of the rotation collectives (firmware/rotation.asm).

``_ring_allgather_rot(x, off, plan)`` and ``_ring_rs_rot(x, off, plan)`` move the
same words as ``_ring_allgather`` and ``_ring_reduce_scatter``, and add
in the same order, but as rotations of a full ring: in phase k every node
puts one word on the ring (word k of its slice, or of the slice it starts
the sum of) and every word goes once round, one hop a cycle (two with an
addition).  Where a node's words land in x follows from the slice table
alone, so it is worked out here, once, on the host (the compiler emits the
plan as data beside the slice table), and the firmware walks it: per node,
groups of phases with the same shape, each a list of *segments* -- runs of
consecutive words read from the ring whose places in x are a fixed stride
apart (one RPTS or RPTB each), and runs of pad words (words of slices
shorter than k + 1, read and passed on but not stored).

Layout of a plan (every value one 32-bit word):

* ``plan[0 .. N)``: the offset of node j's record from the plan's start;
  three zero words end the plan (the firmware loads the next segment's
  words while it repeats the last one);
* ``plan[N]``: :func:`uniform_stride` -- ``s`` when every slice has ``s``
  words (N >= 4): the firmware then takes its fast path, which needs no
  record (it finds every place from j, N and s), else 0;
* a record of the all-gather: the number of groups, then per group
  ``phases, own, nseg`` and ``nseg`` segments, where ``own`` is ``off[j]``
  when the node has a word k in the group's phases, else 0 (it then writes
  a pad, and x[k], which it then has, stands for "no word pending");
* a record of the reduce-scatter: the number of groups, ``off[j]``, then
  per group ``phases, inject, final, nseg`` and the segments: ``inject`` is
  ``off[j-1]`` when slice j-1 has a word k (the node starts its sum), else
  0 (x[k] is sent as a pad), ``final`` 1 when the node's own slice has a
  word k (it keeps the sum), else 0;
* a segment of the all-gather: ``a, c - 2, d`` -- ``c >= 1`` words, the
  first at ``x[a + k]``, each next one ``d`` words lower -- or ``0, -1 - c,
  0``: ``c`` pad words (negative counts take the firmware's rarer path);
  of the reduce-scatter: ``a, d, c``, or ``0, 0, -c`` (the count last: the
  firmware branches on its sign as it loads it).

docs/firmware.md section 10, "Rotations", gives the schedule and its cost.
"""
from __future__ import annotations

from typing import Sequence


def _lengths(off: Sequence[int]) -> list[int]:
    n = len(off) - 1
    if n < 1 or off[0] != 0 or any(off[k] > off[k + 1] for k in range(n)):
        raise ValueError(f"not a slice table (off[0] = 0, non-decreasing): {list(off)}")
    return [off[k + 1] - off[k] for k in range(n)]


def _segments(ms: list[int], k: int, off: Sequence[int], L: list[int]) -> list[tuple]:
    """The words of phase k that a node reads, slice by slice (``ms``, in
    the order they arrive), as segments: ('r', c, a, d) stored runs, ('p', c)
    pads.  A run goes on from slice m to m - 1 (no wrap) while the stride
    off[m] - off[m-1] stays the same."""
    segs: list[list] = []
    prev = None
    for m in ms:
        if L[m] <= k:
            if segs and segs[-1][0] == "p":
                segs[-1][1] += 1
            else:
                segs.append(["p", 1])
        else:
            s = segs[-1] if segs else None
            if (s is not None and s[0] == "r" and prev is not None and m == prev - 1
                    and (s[1] == 1 or s[3] == L[m])):
                s[1] += 1
                s[3] = L[m]
            else:
                segs.append(["r", 1, off[m], 0])
        prev = m
    return [tuple(s) for s in segs]


def _encode(segs, gather: bool) -> list[int]:
    words: list[int] = []
    for s in segs:
        if gather:
            words += [s[2], s[1] - 2, s[3]] if s[0] == "r" else [0, -1 - s[1], 0]
        else:
            words += [s[2], s[3], s[1]] if s[0] == "r" else [0, 0, -s[1]]
    return words


def _groups(S: int, shape) -> list[tuple[int, tuple]]:
    """Consecutive phases 0 .. S-1 of the same shape, as (phases, shape)."""
    groups: list[list] = []
    for k in range(S):
        sh = shape(k)
        if groups and groups[-1][1] == sh:
            groups[-1][0] += 1
        else:
            groups.append([1, sh])
    return [(g[0], g[1]) for g in groups]


def uniform_stride(off: Sequence[int]) -> int:
    """``s`` when every slice of ``off`` has the same length ``s >= 1`` on
    at least 4 nodes (the rotations' fast path, firmware/rotation.asm: one
    address register walks every phase with the strides s and (N-1)s),
    else 0 (the plan's segments are walked)."""
    L = _lengths(off)
    return L[0] if len(L) >= 4 and L[0] >= 1 and all(c == L[0] for c in L) else 0


def _assemble(records: list[list[int]], stride: int) -> list[int]:
    n = len(records)
    plan, at = [], n + 1
    for r in records:
        plan.append(at)
        at += len(r)
    plan.append(stride)
    for r in records:
        plan += r
    return plan + [0, 0, 0]         # read ahead by the last segment's loop


def allgather_plan(off: Sequence[int]) -> list[int]:
    """The plan of ``_ring_allgather_rot`` for the slice table ``off``."""
    L = _lengths(off)
    N, S = len(L), max(L)
    records = []
    for j in range(N):
        ms = [(j - i) % N for i in range(1, N)]
        groups = _groups(S, lambda k: (off[j] if L[j] > k else 0,
                                       tuple(_segments(ms, k, off, L)))) if N > 1 else []
        rec = [len(groups)]
        for phases, (own, segs) in groups:
            rec += [phases, own, len(segs)] + _encode(segs, True)
        records.append(rec)
    return _assemble(records, uniform_stride(off))


def rs_plan(off: Sequence[int]) -> list[int]:
    """The plan of ``_ring_rs_rot`` for the slice table ``off``."""
    L = _lengths(off)
    N, S = len(L), max(L)
    records = []
    for j in range(N):
        ms = [(j - 1 - i) % N for i in range(1, N - 1)]
        up = (j - 1) % N
        groups = _groups(S, lambda k: (off[up] if L[up] > k else 0, int(L[j] > k),
                                       tuple(_segments(ms, k, off, L)))) if N > 1 else []
        rec = [len(groups), off[j]]
        for phases, (inj, fin, segs) in groups:
            rec += [phases, inj, fin, len(segs)] + _encode(segs, False)
        records.append(rec)
    return _assemble(records, uniform_stride(off))
