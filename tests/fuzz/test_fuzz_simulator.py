"""Fuzz: random instruction words on 1 and 4 nodes through the Python API.

Half the words are uniformly random, half are drawn from the instruction
table (a form's fixed opcode bits, random operand fields), so that most
examples run for a while instead of stopping at the first illegal word.
Any outcome of the run is fine (done, error, deadlock, limit, ...) except
an exception, a crash of the extension or a hang; the report's messages
must be produced too (they disassemble and describe the failing node)."""
from __future__ import annotations

import io

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fuzzkit
from rapsim.asm import isa
from rapsim.config import MachineConfig
from rapsim.machine import Simulator

START = 0x40
WORDS = 256            # words per example (1 and 4 nodes: the campaign counts them)

form_word = st.builds(lambda f, r: (f.opcode & f.mask) | (r & ~f.mask & 0xFFFFFFFF),
                      st.sampled_from(isa.FORMS), st.integers(0, 2 ** 32 - 1))
word = st.one_of(st.integers(0, 2 ** 32 - 1), form_word)


@pytest.fixture(scope="module")
def root(tmp_path_factory):
    return str(tmp_path_factory.mktemp("fuzz_sim_root"))


def _run(root: str, nodes: int, words: list[int], quantum: int) -> None:
    sim = Simulator(MachineConfig(nodes=nodes), root=root, stdin=io.BytesIO(b"input\n"))
    sim.write(START, np.array(words, dtype=np.uint64).astype(np.uint32))
    sim.reset(START)
    with fuzzkit.time_limit(30, f"a run of {len(words)} random words on {nodes} nodes"):
        res = sim.run(max_cycles=20_000, quantum=quantum)
    assert res.event in ("done", "error", "deadlock", "idle", "limit", "break"), res.event
    assert res.messages or res.event == "done"
    sim.machine_counters()


@fuzzkit.examples(ci=120, long=3000)
@given(words=st.lists(word, min_size=WORDS, max_size=WORDS), quantum=st.sampled_from([0, 1, 7]))
def test_random_words_one_node(root, words, quantum):
    fuzzkit.count("simulator: random words, 1 node", len(words))
    _run(root, 1, words, quantum)


@fuzzkit.examples(ci=60, long=1200)
@given(words=st.lists(word, min_size=WORDS, max_size=WORDS), quantum=st.sampled_from([0, 1, 7]))
def test_random_words_four_nodes(root, words, quantum):
    fuzzkit.count("simulator: random words, 4 nodes", len(words))
    _run(root, 4, words, quantum)
