"""The memory map of a RAP node: the one place that says what lives where.

Facts from the TMS320C30 (User's Guide SPRU031, section 3.3 "Memory
Organization", figure 3-3, microprocessor mode) and the model decisions of
../shared/RAP-REFERENCE.md section 3:

==========  ==================  ==========  ======================================
region      addresses           bus         contents
==========  ==================  ==========  ======================================
VECTORS     0x000000-0x00003F   primary     reset, interrupt and trap vectors (in SRAM)
SRAM        0x000040-...        primary     node SRAM, 256 K words (or 64 K) in all
DRAM        0x400000-0x7FFFFF   primary     node DRAM, 4 M words (16 MB)
RINGIO      0x800000-0x801FFF   expansion   ring and node registers (RING_DATA ...)
PERIPH      0x808000-0x8097FF   peripheral  C30 on-chip peripherals: DMA, timers
RAM0        0x809800-0x809BFF   on-chip     RAM block 0, 1 K words
RAM1        0x809C00-0x809FFF   on-chip     RAM block 1, 1 K words
==========  ==================  ==========  ======================================

Every other address is unmapped: an access to it stops the node with an
error.  Wait states are per region and configurable (defaults: on-chip 0,
SRAM 0, DRAM 2, ring registers 0 beyond the ring's own blocking).

The peripheral bus holds the registers of the on-chip peripherals this model
has (guide chapter 12, "Peripherals": section 12.3 for the DMA controller,
12.1 for the timers): the DMA channel's global control,
source, destination and transfer counter, and the two timers' global
control, counter and period registers.  Every other peripheral-bus address
(the serial ports, the bus-control registers) is not modelled and stops the
node like an unmapped address.  Peripheral registers take no wait states.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

ADDRESS_BITS = 24
ADDRESS_SPACE = 1 << ADDRESS_BITS

# Fixed C30 addresses (guide figure 3-3).
RESET_VECTOR = 0x000000
TRAP_VECTOR_BASE = 0x000020        # TRAP n jumps through word 0x20 + n
VECTORS_END = 0x000040
SRAM_BASE = 0x000000
DRAM_BASE = 0x400000
RINGIO_BASE = 0x800000
RINGIO_SIZE = 0x2000
PERIPH_BASE = 0x808000
PERIPH_SIZE = 0x1800
RAM0_BASE = 0x809800
RAM1_BASE = 0x809C00
ONCHIP_BLOCK_SIZE = 0x400

# Ring and node registers (RAP-REFERENCE.md section 3), on the expansion bus.
RING_DATA = RINGIO_BASE + 0
RING_STAT = RINGIO_BASE + 1
RING_FWD = RINGIO_BASE + 2
NODE_ID = RINGIO_BASE + 3
NODE_COUNT = RINGIO_BASE + 4
HOST_CALL = RINGIO_BASE + 5

# On-chip peripherals on the peripheral bus (guide 12.3: DMA; 12.1: timers).
DMA_GCR = PERIPH_BASE + 0x00        # DMA global control
DMA_SRC = PERIPH_BASE + 0x04        # DMA source address
DMA_DST = PERIPH_BASE + 0x06        # DMA destination address
DMA_CNT = PERIPH_BASE + 0x08        # DMA transfer counter
TIMER0_BASE = PERIPH_BASE + 0x20
TIMER1_BASE = PERIPH_BASE + 0x30
TIMER_GCR_OFS = 0x0                 # timer global control
TIMER_CNT_OFS = 0x4                 # timer counter
TIMER_PRD_OFS = 0x8                 # timer period
TIMER0_GCR = TIMER0_BASE + TIMER_GCR_OFS
TIMER0_CNT = TIMER0_BASE + TIMER_CNT_OFS
TIMER0_PRD = TIMER0_BASE + TIMER_PRD_OFS
TIMER1_GCR = TIMER1_BASE + TIMER_GCR_OFS
TIMER1_CNT = TIMER1_BASE + TIMER_CNT_OFS
TIMER1_PRD = TIMER1_BASE + TIMER_PRD_OFS
#: the peripheral registers this model has, by address
PERIPH_REGISTERS = {
    DMA_GCR: "DMA_GCR", DMA_SRC: "DMA_SRC", DMA_DST: "DMA_DST", DMA_CNT: "DMA_CNT",
    TIMER0_GCR: "TIMER0_GCR", TIMER0_CNT: "TIMER0_CNT", TIMER0_PRD: "TIMER0_PRD",
    TIMER1_GCR: "TIMER1_GCR", TIMER1_CNT: "TIMER1_CNT", TIMER1_PRD: "TIMER1_PRD",
}

SRAM_WORDS_DEFAULT = 256 * 1024     # 1 MB board option
SRAM_WORDS_SMALL = 64 * 1024        # 256 KB board option
DRAM_WORDS_DEFAULT = 4 * 1024 * 1024


@dataclass(frozen=True)
class Region:
    """A mapped range of the node's address space."""
    name: str
    origin: int
    length: int
    bus: str              # "primary", "expansion", "onchip0", "onchip1"
    wait_states: int
    allocatable: bool     # may the linker place sections here?

    @property
    def end(self) -> int:
        """One past the last address."""
        return self.origin + self.length

    def contains(self, addr: int) -> bool:
        return self.origin <= addr < self.end


@dataclass(frozen=True)
class MemoryConfig:
    """Sizes and wait states of a node's memories (all configurable)."""
    sram_words: int = SRAM_WORDS_DEFAULT
    dram_words: int = DRAM_WORDS_DEFAULT
    sram_wait: int = 0
    dram_wait: int = 2
    onchip_wait: int = 0
    ringio_wait: int = 0

    def __post_init__(self):
        if not 0x40 < self.sram_words <= DRAM_BASE:
            raise ValueError(f"SRAM size {self.sram_words} words is outside 65..{DRAM_BASE}")
        if not 0 <= self.dram_words <= RINGIO_BASE - DRAM_BASE:
            raise ValueError(f"DRAM size {self.dram_words} words is outside 0..{RINGIO_BASE - DRAM_BASE}")
        for n in ("sram_wait", "dram_wait", "onchip_wait", "ringio_wait"):
            if not 0 <= getattr(self, n) <= 255:
                raise ValueError(f"{n} must be 0..255")

    def regions(self) -> list[Region]:
        """The mapped regions, in address order."""
        out = [
            Region("VECTORS", RESET_VECTOR, VECTORS_END, "primary", self.sram_wait, True),
            Region("SRAM", VECTORS_END, self.sram_words - VECTORS_END, "primary", self.sram_wait, True),
        ]
        if self.dram_words:
            out.append(Region("DRAM", DRAM_BASE, self.dram_words, "primary", self.dram_wait, True))
        out += [
            Region("RINGIO", RINGIO_BASE, RINGIO_SIZE, "expansion", self.ringio_wait, False),
            Region("PERIPH", PERIPH_BASE, PERIPH_SIZE, "peripheral", 0, False),
            Region("RAM0", RAM0_BASE, ONCHIP_BLOCK_SIZE, "onchip0", self.onchip_wait, True),
            Region("RAM1", RAM1_BASE, ONCHIP_BLOCK_SIZE, "onchip1", self.onchip_wait, True),
        ]
        return out

    def with_(self, **kw) -> "MemoryConfig":
        return replace(self, **kw)


DEFAULT = MemoryConfig()


def region_of(addr: int, config: MemoryConfig = DEFAULT) -> Region | None:
    """The region holding ``addr``, or None if it is unmapped."""
    for r in config.regions():
        if r.contains(addr):
            return r
    return None
