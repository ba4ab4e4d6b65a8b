"""Host instructions per simulated instruction, measured with valgrind's
callgrind on the kernels of bench_sim.py (docs/performance.md, "Figures").

Host-instruction counts do not depend on the load of the machine, unlike
wall time.  Each kernel runs twice, at two lengths, under callgrind; the
figure is the difference of the host instructions divided by the difference
of the simulated instructions, so start-up (Python, assembly, loading) is
not counted (with a fixed PYTHONHASHSEED, so that both runs start alike,
and one BLAS thread: numpy's idle BLAS threads otherwise spin for a time
that grows with the run).

    python benchmarks/host_instructions.py [dot|branchy|nn|ring64|compute16 ...]

Needs valgrind on PATH.  Lengths: branchy 20,000 and 120,000 loop
iterations; dot and nn 200 and 1,200 outer passes.  ``ring64`` and
``compute16`` are bench_ring.py's ring-bound loop on 64 nodes (50 and 150
rounds) and compute-bound kernel on 16 nodes (100 and 300 rounds), per
simulated node-cycle (one thread).  Without arguments: dot, branchy, nn.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile

KERNELS = {
    "dot": ("dot_program", "outer", (200, 1200)),
    "branchy": ("branchy_program", "iterations", (20_000, 120_000)),
    "nn": ("nn_program", "passes", (200, 1200)),
    # bench_ring.py's machines: host instructions per simulated node-cycle
    "ring64": ("ring", 64, (50, 150)),
    "compute16": ("compute", 16, (100, 300)),
}

_RUN = """
import sys
sys.path.insert(0, {bench!r})
import bench_sim
sim = bench_sim._setup(bench_sim.{fn}({arg}={length}))
print(bench_sim._run(sim))
"""


_RUN_MACHINE = """
import sys
sys.path.insert(0, {bench!r})
import bench_ring
bench_ring.ROUNDS[{kind!r}][{nodes}] = {length}
sim = bench_ring._simulator({kind!r}, {nodes})
res = sim.run()
assert res.event == "done", res.messages
print(sum(sim.core.cycle(n) for n in range({nodes})))
"""


def _measure(name: str, length: int, workdir: str) -> tuple[int, int]:
    """(host instructions, simulated instructions -- node-cycles for the
    machines of bench_ring.py) of one run."""
    fn, arg, _ = KERNELS[name]
    out = os.path.join(workdir, f"{name}.{length}.out")
    bench = os.path.dirname(os.path.abspath(__file__))
    if isinstance(arg, int):
        code = _RUN_MACHINE.format(bench=bench, kind=fn, nodes=arg, length=length)
    else:
        code = _RUN.format(bench=bench, fn=fn, arg=arg, length=length)
    proc = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                           sys.executable, "-c", code], capture_output=True, text=True,
                          env=dict(os.environ, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1",
                                   OMP_NUM_THREADS="1"))
    if proc.returncode != 0:
        raise SystemExit(f"host_instructions: {name} ({length}) failed:\n{proc.stderr[-2000:]}")
    simulated = int(proc.stdout.split()[-1])
    with open(out) as f:
        m = re.search(r"^(?:summary|totals): (\d+)", f.read(), re.M)
    if m is None:
        raise SystemExit(f"host_instructions: no total in {out}")
    return int(m.group(1)), simulated


def main(argv: list[str]) -> int:
    names = argv or ["dot", "branchy", "nn"]
    for name in names:
        if name not in KERNELS:
            print(f"host_instructions: unknown kernel {name!r} (one of {', '.join(KERNELS)})",
                  file=sys.stderr)
            return 2
    if shutil.which("valgrind") is None:
        print("host_instructions: valgrind is not on PATH", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory() as workdir:
        for name in names:
            short, long_ = KERNELS[name][2]
            h1, s1 = _measure(name, short, workdir)
            h2, s2 = _measure(name, long_, workdir)
            unit = "node-cycle" if isinstance(KERNELS[name][1], int) else "instruction"
            print(f"{name:8s} {(h2 - h1) / (s2 - s1):7.1f} host instructions per simulated "
                  f"{unit} ({s2 - s1} simulated {unit}s, {h2 - h1} host instructions)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
