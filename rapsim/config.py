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
        if self.clock_hz <= 0:
            raise ValueError("the clock rate must be positive")
        if self.hostcall_cycles < 0:
            raise ValueError("the host-call cost cannot be negative")
        if self.board_hop_cycles < 1:
            raise ValueError("a ring hop takes at least one cycle")

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
