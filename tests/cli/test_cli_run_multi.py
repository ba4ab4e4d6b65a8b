"""rap run on several nodes: --boards / --nodes, node output (prefixed lines
or --output-dir files), the exit status of the machine, and the reports
(--stats, --stats-json, --dump-regs, --dump) covering every node."""
from __future__ import annotations

import json
import re

import pytest

from clirun import cwd, image  # noqa: F401  (cwd is a fixture)
from clirun import rap_run as rap


def greeter(statuses: list[int]) -> str:
    """Node k writes "hi " and then chr(48 + k) + "\\n" to stdout (two host
    calls: the line is assembled from pieces), chr(48 + k) + "\\n" to stderr,
    leaves 1000 + k in AR3 and k * 3 at 0x809C00, and exits with
    statuses[k] (0 past the end of the list)."""
    table = ", ".join(str(s) for s in statuses) or "0"
    return f"""
        .global start
        .text
start:  LDP     blockp
        LDI     @blockp, AR0
        LDI     @msgp, AR1
        LDI     @statp, AR2
        LDP     0x800000
        LDI     @3, R0          ; NODE_ID
        LDI     R0, R2
        MPYI    3, R2
        STI     R2, @09C00h     ; 3k at RAM1
        LDI     R0, AR3
        ADDI    1000, AR3
        CMPI    {len(statuses)}, R0
        BGE     nostat
        ADDI    R0, AR2         ; AR2 -> statuses[k]
nostat: ADDI    48, R0
        STI     R0, *+AR1(3)    ; the node's character
        LDI     2, R1           ; WRITE(1, msg, 3)
        STI     R1, *AR0
        LDI     1, R1
        STI     R1, *+AR0(3)
        STI     AR1, *+AR0(4)
        LDI     3, R1
        STI     R1, *+AR0(5)
        STI     AR0, @5
        LDI     AR1, R1         ; WRITE(1, msg + 3, 2)
        ADDI    3, R1
        STI     R1, *+AR0(4)
        LDI     2, R1
        STI     R1, *+AR0(5)
        STI     AR0, @5
        LDI     2, R1           ; WRITE(2, msg + 3, 2)
        STI     R1, *+AR0(3)
        STI     AR0, @5
        LDI     1, R1           ; EXIT(statuses[k])
        STI     R1, *AR0
        LDI     *AR2, R1
        STI     R1, *+AR0(3)
        STI     AR0, @5
        B       $
        .data
blockp: .word   block
msgp:   .word   msg
statp:  .word   stat
msg:    .word   104, 105, 32, 0, 10
stat:   .word   {table}
zero:   .word   0
        .bss    block, 8
"""


def ch(k: int) -> str:
    return chr(48 + k)


@pytest.mark.parametrize("opts,nodes", [(["--nodes", "3"], 3), (["--boards", "1"], 4),
                                        (["--boards", "16"], 64), (["--nodes", "64"], 64),
                                        (["--nodes", "1"], 1), ([], 1)])
def test_every_node_runs_and_prefixes_its_lines(cwd, monkeypatch, capsys, opts, nodes):
    img = image("g.out", greeter([]))
    rc, out, err = rap([img, *opts], monkeypatch, capsys)
    assert rc == 0
    if nodes == 1:
        assert out == "hi 0\n" and err == "0\n"
        return
    # whole lines, one per node, "[n] " + what node n wrote
    assert sorted(out.splitlines()) == sorted(f"[{k}] hi {ch(k)}" for k in range(nodes))
    assert sorted(err.splitlines()) == sorted(f"[{k}] {ch(k)}" for k in range(nodes))


def test_output_dir_has_the_files_of_every_node(cwd, monkeypatch, capsys):
    img = image("g.out", greeter([]))
    rc, out, err = rap([img, "--boards", "2", "--output-dir", "o"], monkeypatch, capsys)
    assert rc == 0 and out == "" and err == ""
    names = sorted(p.name for p in (cwd / "o").iterdir())
    assert names == sorted([f"node{k}.out" for k in range(8)] + [f"node{k}.err" for k in range(8)])
    for k in range(8):
        assert (cwd / "o" / f"node{k}.out").read_text() == f"hi {ch(k)}\n"     # no prefix
        assert (cwd / "o" / f"node{k}.err").read_text() == f"{ch(k)}\n"


def test_output_dir_with_machine_messages_on_stderr(cwd, monkeypatch, capsys):
    # the run's own messages (a deadlock report) still go to the terminal
    img = image("d.out", """
        .global start
start:  LDP     0x800000
        LDI     @0, R0
""")
    rc, out, err = rap([img, "--nodes", "4", "--output-dir", "o"], monkeypatch, capsys)
    assert rc == 3 and out == ""
    assert err.startswith("rap run: deadlock: no node can progress\n")
    assert len(re.findall(r"^  node \d+: cycle \d+, PC 0x000041 .*waits to read from the ring$",
                          err, re.M)) == 4


@pytest.mark.parametrize("statuses,rc", [([], 0), ([0, 0, 0, 0], 0), ([0, 0, 7, 9], 7),
                                         ([5, 0, 3, 0], 5), ([0, 0, 0, 256 + 4], 4),
                                         ([0] * 63 + [12], 12)])
def test_exit_status_is_the_first_non_zero_in_node_order(cwd, monkeypatch, capsys, statuses, rc):
    img = image("g.out", greeter(statuses))
    nodes = max(4, len(statuses))
    got, _, _ = rap([img, "--nodes", nodes, "--stats-json", "s.json"], monkeypatch, capsys)
    assert got == rc
    s = json.loads((cwd / "s.json").read_text())
    assert [n["exit_status"] for n in s["nodes"]] == \
        [(statuses[k] if k < len(statuses) else 0) for k in range(nodes)]
    assert s["exit_status"] & 0xFF == rc


def test_exit_status_order_is_by_node_not_by_time(cwd, monkeypatch, capsys):
    # node 3 exits with 9 long before node 1 exits with 6: the status is node 1's
    src = greeter([0, 6, 0, 9]).replace("start:  LDP     blockp", """start:  LDP     0x800000
        LDI     @3, R0
        CMPI    1, R0
        BNE     go
        LDI     2000, AR4
spin:   DBU     AR4, spin
go:     LDP     blockp""")
    img = image("g.out", src)
    rc, _, _ = rap([img, "--nodes", "4", "--stats-json", "s.json"], monkeypatch, capsys)
    assert rc == 6
    s = json.loads((cwd / "s.json").read_text())
    assert s["nodes"][1]["cycles"] > s["nodes"][3]["cycles"] + 8000


def test_stats_table_has_a_row_per_node_and_a_total(cwd, monkeypatch, capsys):
    img = image("g.out", greeter([0, 3]))
    rc, out, err = rap([img, "--boards", "2", "--stats"], monkeypatch, capsys)
    assert rc == 3
    assert "8 nodes on 2 boards" in err
    rows = re.findall(r"^│\s+(\d+|all) │ ([^│]*?)\s*│\s+(\d+) │\s+(\d+) │", err, re.M)
    counters = rows[:9]
    assert [r[0] for r in counters] == [str(k) for k in range(8)] + ["all"]
    assert [r[1] for r in counters[:8]] == ["exit 0", "exit 3"] + ["exit 0"] * 6
    cycles = [int(r[2]) for r in counters[:8]]
    instr = [int(r[3]) for r in counters[:8]]
    assert int(counters[8][2]) == max(cycles)
    assert int(counters[8][3]) == sum(instr)
    # the memory table has the same rows
    mem_rows = re.findall(r"^│\s+(\d+|all) │\s+(\d+)/(\d+)/(\d+) │", err, re.M)
    assert [r[0] for r in mem_rows] == [str(k) for k in range(8)] + ["all"]
    assert sum(int(r[1]) for r in mem_rows[:8]) == int(mem_rows[8][1])
    assert "ring: 0 words moved" in err


def test_stats_json_covers_every_node(cwd, monkeypatch, capsys):
    img = image("g.out", greeter([]))
    rc, _, _ = rap([img, "--nodes", "6", "--stats-json", "s.json"], monkeypatch, capsys)
    assert rc == 0
    s = json.loads((cwd / "s.json").read_text())
    assert [n["node"] for n in s["nodes"]] == list(range(6))
    assert [n["board"] for n in s["nodes"]] == [0, 0, 0, 0, 1, 1]
    assert s["machine"]["nodes"] == 6 and s["machine"]["boards"] == 2
    for n in s["nodes"]:
        assert n["status"] == "exited" and n["exit_status"] == 0
        assert n["host_calls"] == 4
        assert n["cycles"] == n["instructions"] + sum(n["stalls"].values())
    assert s["machine"]["instructions"] == sum(n["instructions"] for n in s["nodes"])
    assert s["machine"]["cycles"] == max(n["cycles"] for n in s["nodes"])


def test_stats_json_of_a_ring_program(cwd, monkeypatch, capsys):
    # a token round the ring: every node sends and receives one word
    img = image("t.out", """
        .global start
start:  LDP     0x800000
        LDI     @3, R0
        BNZ     pass
        STI     R0, @0
        LDI     @0, R0
        B       done
pass:   LDI     @0, R1
        STI     R1, @0
done:   LDI     1, R1           ; EXIT(0) with a block at 0x809C00
        LDI     0x80, AR0
        LSH     16, AR0
        OR      09C00h, AR0
        STI     R1, *AR0
        LDI     0, R1
        STI     R1, *+AR0(3)
        STI     AR0, @5
""")
    rc, _, _ = rap([img, "--boards", "3", "--board-hop-cycles", "5", "--stats-json", "s.json"],
                   monkeypatch, capsys)
    assert rc == 0
    s = json.loads((cwd / "s.json").read_text())
    assert len(s["nodes"]) == 12
    assert all(n["ring"]["sent"] == 1 and n["ring"]["received"] == 1 for n in s["nodes"])
    assert s["machine"]["ring_words"] == 12
    # node 0 waits for the token to pass 12 hops, 3 of them board hops of 5
    assert s["nodes"][0]["stalls"]["ring_read"] > 12 + 3 * 4


def test_dump_regs_and_memory_cover_every_node(cwd, monkeypatch, capsys):
    img = image("g.out", greeter([]))
    rc, out, err = rap([img, "--nodes", "5", "--dump-regs", "r.json", "--dump", "0x809C00:1",
                        "--dump", "0x809C00:2:m.txt", "--output-dir", "o"], monkeypatch, capsys)
    assert rc == 0
    r = json.loads((cwd / "r.json").read_text())
    assert len(r["nodes"]) == 5
    assert [n["AR3"] for n in r["nodes"]] == [1000 + k for k in range(5)]
    assert all(n["PC"] == r["nodes"][0]["PC"] for n in r["nodes"])
    # node after node, one 8-digit hex word per line
    assert out == "".join(f"{3 * k:08X}\n" for k in range(5))
    assert (cwd / "m.txt").read_text() == "".join(f"{3 * k:08X}\n00000000\n" for k in range(5))


@pytest.mark.parametrize("opts,text", [
    (["--nodes", "0"], "1 to 64 nodes"),
    (["--nodes", "-3"], "1 to 64 nodes"),
    (["--nodes", "65"], "1 to 64 nodes"),
    (["--nodes", "1000000000000"], "1 to 64 nodes"),
    (["--boards", "0"], "1 to 16 boards"),
    (["--boards", "-1"], "1 to 16 boards"),
    (["--boards", "17"], "1 to 16 boards"),
    (["--board-hop-cycles", "0", "--boards", "2"], "hop"),
])
def test_bad_sizes_are_rejected(cwd, monkeypatch, capsys, opts, text):
    img = image("g.out", greeter([]))
    rc, out, err = rap([img, *opts, "--output-dir", "o"], monkeypatch, capsys)
    assert rc == 1 and out == ""
    assert err.startswith("rap run: error: ") and text in err
    assert err.count("\n") == 1
    assert not (cwd / "o").exists() or not any((cwd / "o").iterdir())


@pytest.mark.parametrize("opts", [["--nodes", "x"], ["--nodes", "4.5"], ["--boards", ""],
                                  ["--boards", "2", "--nodes", "8"], ["--nodes"]])
def test_unparsable_sizes_are_usage_errors(cwd, monkeypatch, capsys, opts):
    img = image("g.out", greeter([]))
    with pytest.raises(SystemExit) as e:
        rap([img, *opts], monkeypatch, capsys)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert "rap run: error: argument" in err and "Traceback" not in err
