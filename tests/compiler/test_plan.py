"""The cost model (rapsim.compiler.plan): its predictions against the
simulator for every mapping, the refusals, and its errors.

Tolerance: on these small networks (the square family, n = 48 and 96, on
4 and 8 nodes, and xor with momentum) the predicted cycles per training and
per forward pattern are within 8 % of the simulated ones (docs/plan.md
gives the whole bench sweep)."""
from __future__ import annotations

import os

import pytest

from rapsim.commands.bench import FAMILIES
from rapsim.compiler.mapping import PRESETS, resolve
from rapsim.compiler.parser import parse_file, parse_text
from rapsim.compiler.plan import (SCHEDULES, PlanError, best_mapping, measure_point, plan_all,
                                  predict)
from rapsim.config import MachineConfig
from rapsim.firmware import costs

XOR = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "xor.net")


@pytest.mark.parametrize("mapping", PRESETS)
@pytest.mark.parametrize("size,nodes", [(48, 4), (96, 8)])
def test_prediction_within_8_percent(mapping, size, nodes):
    net = FAMILIES["square"].network(size)
    config = MachineConfig(nodes=nodes)
    p = predict(net, resolve(net, nodes, mapping))
    train, fwd = measure_point(net, config, mapping)
    assert abs(p.train_cycles / train - 1) <= 0.08, (p.train_cycles, train)
    assert abs(p.forward_cycles / fwd - 1) <= 0.08, (p.forward_cycles, fwd)


def test_momentum_and_batch():
    """xor has momentum (_mxoutm); the data mapping with a batch of 3."""
    net = parse_file(XOR)
    config = MachineConfig(nodes=4)
    for mapping, batch in (("rows", 1), ("data", 3)):
        p = predict(net, resolve(net, 4, mapping, batch))
        train, fwd = measure_point(net, config, mapping, batch)
        assert abs(p.train_cycles / train - 1) <= 0.08, (mapping, p.train_cycles, train)
        assert abs(p.forward_cycles / fwd - 1) <= 0.08, (mapping, p.forward_cycles, fwd)
        assert "_mxoutm" in p.train_breakdown or mapping == "data"


def test_breakdown_sums_to_total():
    net = FAMILIES["speech"].network(128)
    for name in PRESETS:
        p = predict(net, resolve(net, 16, name))
        assert sum(p.train_breakdown.values()) == pytest.approx(p.train_cycles)
        assert sum(p.forward_breakdown.values()) == pytest.approx(p.forward_cycles)
        assert p.mcups == pytest.approx(p.connections * p.clock_mhz / p.train_cycles)


def test_missing_cost_entry_is_an_error(monkeypatch):
    net = FAMILIES["square"].network(32)
    monkeypatch.delitem(costs.KERNELS, "_mxv")
    with pytest.raises(PlanError, match="no entry for _mxv"):
        predict(net, resolve(net, 4, "rows"))


def test_missing_schedule_is_an_error(monkeypatch):
    net = FAMILIES["square"].network(32)
    monkeypatch.delitem(SCHEDULES, "layers")
    with pytest.raises(PlanError, match="no schedule for the layers mapping"):
        predict(net, resolve(net, 4, "layers"))


PIPELINE = os.path.join(os.path.dirname(XOR), "pipeline.net")
RECURRENT = os.path.join(os.path.dirname(XOR), "recurrent.net")
DEEP = """
layer x: input 32
layer h1: sigmoid 32 bias
layer h2: sigmoid 32 bias
layer y: sigmoid 32 bias
connect x -> h1 full
connect h1 -> h2 full
connect h2 -> y full
net deep { input x hidden h1, h2 output y schedule pipeline }
train { rate 0.1 epochs 1 error mse }
"""


@pytest.mark.parametrize("source,mapping", [(DEEP, "layers"), (PIPELINE, "layers"),
                                            (RECURRENT, "rows"), (RECURRENT, "layers")])
def test_schedules_within_10_percent(source, mapping):
    """schedule pipeline (a tick a pattern) and stream (a pattern's F
    frames) against the simulator on 4 nodes, within the issue's 10 %
    (pipeline.net's 8-unit layers: its training -9 %, docs/plan.md)."""
    from rapsim.compiler.pipeline import apply_schedule
    net = parse_text(source, "deep.net") if source == DEEP else parse_file(source)
    m = apply_schedule(net, resolve(net, 4, mapping))
    assert m.schedule in ("pipeline", "stream")
    p = predict(net, m)
    assert p.schedule == m.schedule
    train, fwd = measure_point(net, MachineConfig(nodes=4), mapping)
    assert abs(p.train_cycles / train - 1) <= 0.10, (p.train_cycles, train)
    assert abs(p.forward_cycles / fwd - 1) <= 0.10, (p.forward_cycles, fwd)


def test_pipeline_ranked_beside_lockstep():
    """A lockstep description: its layers placement is also priced as a
    pipeline; --schedule keeps one schedule; --mapping auto ranks only the
    schedule the program is built with."""
    net = parse_text(DEEP.replace("schedule pipeline", ""), "d.net")
    ranked, _ = plan_all(net, 4)
    assert {(p.mapping, p.schedule) for p in ranked} >= {("layers", "pipeline"),
                                                         ("layers", "lockstep")}
    assert "layers pipeline" in [p.label for p in ranked]
    only, _ = plan_all(net, 4, schedule="lockstep")
    assert {p.schedule for p in only} == {"lockstep"}
    assert best_mapping(net, 4) == only[0].mapping


SPARSE = """
layer x: input 18
layer h: sigmoid 8 bias
layer y: sigmoid 2 bias
connect x -> h sparse local(4, 2)
connect h -> y full
net n { input x hidden h output y }
train { rate 0.1 epochs 1 error mse }
"""


def test_refused_mappings_have_reasons():
    net = parse_text(SPARSE, "s.net")
    ranked, refused = plan_all(net, 4)
    names = {r.mapping: r.reason for r in refused}
    assert "checkerboard" in names and "sparse connect" in names["checkerboard"]
    assert [p.mapping for p in ranked] and all(p.mapping not in names for p in ranked)
    assert [p.train_cycles for p in ranked] == sorted(p.train_cycles for p in ranked)


def test_best_is_ranked_first():
    net = FAMILIES["speech"].network(512)
    ranked, _ = plan_all(net, 16)
    # the hidden-to-output connect split by columns (no 512-word all-gather
    # and reduce-scatter) beats rows on the speech MLP
    assert best_mapping(net, 16) == ranked[0].mapping == "columns"
    assert ranked[0].train_cycles < min(p.train_cycles for p in ranked if p.mapping == "rows")


from hypothesis import given, settings, strategies as st  # noqa: E402


@settings(max_examples=15, deadline=None)
@given(n=st.integers(1, 300), h=st.integers(1, 300), o=st.integers(1, 80),
       nodes=st.integers(1, 64), mapping=st.sampled_from(PRESETS))
def test_every_call_priced_and_breakdown_exact(n, h, o, nodes, mapping):
    """Any MLP, machine and mapping: every call of the program has a cost
    entry (no PlanError), the breakdown adds up to the total, and more
    hidden units never make a pattern cheaper under rows."""
    from rapsim.compiler.lower import LoweringError
    text = (f"layer x: input {n}\nlayer h: sigmoid {h} bias\nlayer y: sigmoid {o} bias\n"
            f"connect x -> h full\nconnect h -> y full\n"
            f"net m {{ input x hidden h output y }}\ntrain {{ rate 0.1 epochs 1 error mse }}\n")
    net = parse_text(text, "p.net")
    try:
        p = predict(net, resolve(net, nodes, mapping))
    except LoweringError:
        return
    assert p.train_cycles > p.forward_cycles > 0
    assert sum(p.train_breakdown.values()) == pytest.approx(p.train_cycles)
    assert sum(p.forward_breakdown.values()) == pytest.approx(p.forward_cycles)
    if mapping == "rows":
        bigger = parse_text(text.replace(f"sigmoid {h} bias", f"sigmoid {h + nodes} bias"),
                            "q.net")
        assert predict(bigger, resolve(bigger, nodes, "rows")).train_cycles > p.train_cycles


SPARSE_RANDOM = """
layer x: input 120
layer h: sigmoid 48 bias
layer y: sigmoid 3 bias
connect x -> h sparse random(20, seed=3)
connect h -> y sparse [0 -> 0, 1 -> 0, 5 -> 1, 6 -> 1, 7 -> 1, 11 -> 0]
net n { input x hidden h output y }
train { rate 0.1 epochs 1 error mse }
"""


@pytest.mark.parametrize("mapping", ["rows", "layers"])
def test_sparse_index_connects_priced(mapping):
    """Connects that are not bands (random fan-in, a written pair list
    with empty rows) run by the sparse kernels: priced from each node's
    pairs, within 8 % of the simulator."""
    net = parse_text(SPARSE_RANDOM, "s.net")
    p = predict(net, resolve(net, 4, mapping))
    assert {"_spmv", "_spmtv", "_spout"} <= set(p.train_breakdown)
    train, fwd = measure_point(net, MachineConfig(nodes=4), mapping)
    assert abs(p.train_cycles / train - 1) <= 0.08, (p.train_cycles, train)
    assert abs(p.forward_cycles / fwd - 1) <= 0.08, (p.forward_cycles, fwd)


BINARY = """
layer b: binary 40
layer h: sigmoid 16 bias
layer y: sigmoid 4 bias
connect b -> h full
connect h -> y full
net n { input b hidden h output y }
train { rate 0.1 epochs 1 error mse momentum 0.5 }
"""


def test_binary_priced_from_active_fraction():
    """A binary input: the binary kernels priced from the assumed active
    units (the measurement's random patterns have each unit on with
    probability 1/2, the default); more active units cost more."""
    net = parse_text(BINARY, "b.net")
    m = resolve(net, 4, "rows")
    p = predict(net, m)
    assert "_bcolsum" in p.forward_breakdown and "_bcolupdm" in p.train_breakdown
    # 24 patterns: the measured ones' active counts average near a half
    train, fwd = measure_point(net, MachineConfig(nodes=4), "rows", patterns=24)
    assert abs(p.train_cycles / train - 1) <= 0.08, (p.train_cycles, train)
    assert abs(p.forward_cycles / fwd - 1) <= 0.08, (p.forward_cycles, fwd)
    assert predict(net, m, active=0.9).train_cycles > p.train_cycles > \
        predict(net, m, active=0.1).train_cycles
