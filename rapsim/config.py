"""Machine configuration: how many nodes, their memories, clock and costs.

Every number is a default of the project's model (../shared/RAP-REFERENCE.md,
section 3) that a user may change; docs/machine-model.md lists them.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace

from rapsim.memmap import MemoryConfig

NODES_PER_BOARD = 4
MAX_BOARDS = 16
MAX_NODES = NODES_PER_BOARD * MAX_BOARDS
MAX_EXTRA_CYCLES = 1 << 40          # the most a host call or a ring hop may cost


@dataclass(frozen=True)
class MachineConfig:
    """A RAP: ``nodes`` TMS320C30 nodes (1-64) on one ring.

    Nodes are numbered 0..N-1; node n's ring output feeds node (n+1) mod N.
    Boards hold 4 nodes each, so node n sits on board n // 4; a machine whose
    node count is not a multiple of 4 has a partially populated last board
    (the ring closes from the last node back to node 0 as on a full one).
    """
    nodes: int = 1
    memory: MemoryConfig = field(default_factory=MemoryConfig)
    clock_hz: float = 16e6               # instruction rate: 62.5 ns per cycle
    hostcall_cycles: int = 1600          # simulated cost of one host call (100 us)
    board_hop_cycles: int = 1            # ring hop from the last node of a board to the next board

    def __post_init__(self):
        if not 1 <= self.nodes <= MAX_NODES:
            raise ValueError(f"a RAP has 1 to {MAX_NODES} nodes (1 to {MAX_BOARDS} boards), "
                             f"not {self.nodes}")
        if not 0 < self.clock_hz < float("inf"):          # NaN fails too
            raise ValueError(f"the clock rate must be a positive number, not {self.clock_hz:g} Hz")
        # (bounded so that no cycle count of a run can overflow 64 bits)
        if not 0 <= self.hostcall_cycles <= MAX_EXTRA_CYCLES:
            raise ValueError(f"the host-call cost must be 0..{MAX_EXTRA_CYCLES} cycles, "
                             f"not {self.hostcall_cycles}")
        if not 1 <= self.board_hop_cycles <= MAX_EXTRA_CYCLES:
            raise ValueError(f"a ring hop takes 1..{MAX_EXTRA_CYCLES} cycles, "
                             f"not {self.board_hop_cycles}")

    @classmethod
    def from_boards(cls, boards: int, **kw) -> "MachineConfig":
        if not 1 <= boards <= MAX_BOARDS:
            raise ValueError(f"a RAP has 1 to {MAX_BOARDS} boards, not {boards}")
        return cls(nodes=NODES_PER_BOARD * boards, **kw)

    @property
    def boards(self) -> int:
        return -(-self.nodes // NODES_PER_BOARD)

    def board_of(self, node: int) -> int:
        return node // NODES_PER_BOARD

    def with_(self, **kw) -> "MachineConfig":
        return replace(self, **kw)
