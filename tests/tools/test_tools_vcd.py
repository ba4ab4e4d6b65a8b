"""The VCD waveform, parsed back with pyvcd's reader: node states, PCs and
ring latches of a hand-analysed ring program."""
from __future__ import annotations

import pytest
from vcd.reader import TokenKind, tokenize

from rapsim.waveform import Waveform
from test_tools_timeline import PASS
from toolprogs import DEADLOCK, image_file, rap_main, sim_of

PERIOD = 62500          # ps per cycle at 16 MHz


def parse(path) -> dict[str, list[tuple[int, object]]]:
    """{"node1.state": [(cycle, value), ...], "link0.in_data": ...}."""
    scopes, names, out, t = [], {}, {}, 0
    with open(path, "rb") as f:
        for tok in tokenize(f):
            if tok.kind is TokenKind.SCOPE:
                scopes.append(tok.data.ident)
            elif tok.kind is TokenKind.UPSCOPE:
                scopes.pop()
            elif tok.kind is TokenKind.VAR:
                names[tok.data.id_code] = ".".join(scopes[1:] + [tok.data.reference]).replace(
                    "ring.", "")
            elif tok.kind is TokenKind.CHANGE_TIME:
                t = tok.data
            elif tok.kind in (TokenKind.CHANGE_SCALAR, TokenKind.CHANGE_VECTOR,
                              TokenKind.CHANGE_STRING):
                assert t % PERIOD == 0
                out.setdefault(names[tok.data.id_code], []).append((t // PERIOD, tok.data.value))
    return out


def at(signal: list[tuple[int, object]], cycle: int):
    """The value of a signal during a cycle (the last change at or before it)."""
    v = None
    for t, value in signal:
        if t <= cycle:
            v = value
    return v


def wave_of(src, nodes, tmp_path, cycles=300):
    sim = sim_of(src, nodes)
    w = Waveform(sim)
    sim.probes.trace(w)
    sim.run(max_cycles=cycles)
    w.write(tmp_path / "w.vcd")
    return sim, parse(tmp_path / "w.vcd")


def test_node_states_and_pcs(tmp_path):
    sim, v = wave_of(PASS, 4, tmp_path)
    s0 = v["node0.state"]
    # node 0: LDP (0), LDI @3 waits 2 for DP (1-2), runs (3), BNZ (4, then 3 branch
    # cycles), CALL at 8
    assert [at(s0, c) for c in range(9)] == [
        "running", "register_conflict", "register_conflict", "running", "running",
        "branch", "branch", "branch", "running"]
    assert at(v["node0.pc"], 8) == sim.image.symbols["start"] + 3       # the CALL
    # node 1 waits to read from cycle 8 until node 0's word arrives at 43
    s1 = v["node1.state"]
    assert at(s1, 7) != "ring_read_wait"
    assert all(at(s1, c) == "ring_read_wait" for c in range(8, 43))
    assert at(s1, 43) == "running"
    assert at(v["node0.state"], 10_000) == "break"
    codes = v["node0.state_code"]
    assert at(codes, 1) == 1 and at(codes, 8) == 0


def test_ring_latches(tmp_path):
    _, v = wave_of(PASS, 4, tmp_path)
    # node 0 writes 42 at 42: in its output latch for a cycle, then in node
    # 1's input latch at 43, read at once
    assert at(v["link0.out_full"], 42) == "1" and at(v["link0.out_data"], 42) == 42
    assert at(v["link0.out_full"], 43) == "0"
    assert at(v["link0.in_full"], 43) == "0"       # moved in and read in the same cycle
    assert (43, 42) in v["link0.in_data"]
    for link in range(4):
        assert all(0 <= int(x) <= 2 for _, x in v[f"link{link}.occupancy"])
    # the word goes round: every link carries it once
    assert all(any(val == 42 for _, val in v[f"link{k}.out_data"]) for k in range(4))


def test_deadlock_waveform(tmp_path):
    _, v = wave_of(DEADLOCK, 3, tmp_path)
    for n in range(3):
        assert at(v[f"node{n}.state"], 10_000) == "ring_read_wait"


def test_rap_run_vcd(cwd, monkeypatch, capsys):
    img = image_file(cwd / "p.out", PASS)
    rc = rap_main(["run", img, "--nodes", "4", "--vcd", "w.vcd", "--max-cycles", "300"],
                  monkeypatch)
    assert rc == 3
    v = parse(cwd / "w.vcd")
    assert {f"node{n}.state" for n in range(4)} <= set(v)
    rc = rap_main(["run", img, "--vcd", "nodir/w.vcd"], monkeypatch)
    assert rc == 1 and "nodir" in capsys.readouterr().err


@pytest.mark.parametrize("hostcall", [0, 100])
def test_host_call_state(tmp_path, hostcall):
    """A host call (here a request block of zeros, which the daemon answers)
    shows as host_call for the simulated time it costs."""
    from rapsim.config import MachineConfig
    from rapsim.machine import Simulator
    from rapsim.toolchain import build_text
    src = """
        .global start
start:  LDP  0x800000
        LDI  0x100, R0
        STI  R0, @5            ; HOST_CALL
        SWI
"""
    sim = Simulator(MachineConfig(hostcall_cycles=hostcall))
    sim.load(build_text(src))
    w = Waveform(sim)
    sim.probes.trace(w)
    sim.run(max_cycles=1000)
    w.write(tmp_path / "h.vcd")
    state = parse(tmp_path / "h.vcd")["node0.state"]
    assert state[-1][1] == "break"
    calls = [t for t, x in state if x == "host_call"]
    if hostcall:
        (t,) = calls
        assert at(state, t + hostcall - 1) == "host_call" and at(state, t + hostcall) == "running"
    else:
        assert calls == []
