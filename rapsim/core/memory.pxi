# Memory of a node: address decoding onto the regions of rapsim/memmap.py
# (SRAM with the vectors, DRAM, on-chip RAM blocks 0 and 1, ring registers),
# per-region access counters, and invalidation of pre-decoded instructions
# when code is overwritten.  Ring and host-call registers are served by
# ring.pxi, the peripheral bus by periph.pxi; everything else is unmapped
# and stops the node.
from libc.stdlib cimport calloc, free
from libc.string cimport memset


cdef inline int region_of(Node* n, uint32_t a) noexcept nogil:
    """The region holding address a (RG_NONE if unmapped)."""
    if a < n.sram_words:
        return RG_SRAM
    if <uint32_t>(a - RAP_DRAM_BASE) < n.dram_words:
        return RG_DRAM
    if <uint32_t>(a - RAP_RAM0_BASE) < 2 * RAP_ONCHIP_BLOCK_SIZE:
        return RG_RAM0 + ((a - RAP_RAM0_BASE) >> 10)
    if <uint32_t>(a - RAP_RINGIO_BASE) < RAP_RINGIO_SIZE:
        return RG_RINGIO
    if <uint32_t>(a - RAP_PERIPH_BASE) < RAP_PERIPH_SIZE:
        return RG_PERIPH
    return RG_NONE


cdef inline uint32_t* word_ptr(Node* n, uint32_t a, int region) noexcept nogil:
    """Pointer to the storage of a plain memory word (not the ring registers)."""
    if region == RG_SRAM:
        return &n.sram[a]
    if region == RG_DRAM:
        return &n.dram[a - RAP_DRAM_BASE]
    if region == RG_RAM0 or region == RG_RAM1:
        return &n.ram[a - RAP_RAM0_BASE]
    return NULL


cdef inline void invalidate_code(Node* n, uint32_t a) noexcept nogil:
    """A store to a: forget the pre-decoded instruction there, if any."""
    cdef Decoded* page = n.dcache[(a & 0xFFFFFF) >> DPAGE_BITS]
    if page != NULL:
        page[a & (DPAGE_WORDS - 1)].valid = 0


cdef int alloc_node_memory(Node* n, uint32_t sram_words, uint32_t dram_words) noexcept nogil:
    """Allocate a node's memories (zero-filled; the OS commits pages lazily,
    so a 16 MB DRAM costs only what the program touches).  0 on success."""
    n.sram_words = sram_words
    n.dram_words = dram_words
    n.sram = <uint32_t*>calloc(sram_words if sram_words else 1, sizeof(uint32_t))
    n.dram = <uint32_t*>calloc(dram_words if dram_words else 1, sizeof(uint32_t))
    n.dcache = <Decoded**>calloc(NDPAGES, sizeof(Decoded*))
    if n.sram == NULL or n.dram == NULL or n.dcache == NULL:
        free_node_memory(n)
        return -1
    return 0


cdef void free_node_memory(Node* n) noexcept nogil:
    cdef int i
    if n.dcache != NULL:
        for i in range(NDPAGES):
            if n.dcache[i] != NULL:
                free(n.dcache[i])
        free(n.dcache)
        n.dcache = NULL
    if n.sram != NULL:
        free(n.sram)
        n.sram = NULL
    if n.dram != NULL:
        free(n.dram)
        n.dram = NULL


cdef void flush_decode_cache(Node* n) noexcept nogil:
    """Forget every pre-decoded instruction (after a bulk memory load)."""
    cdef int i
    for i in range(NDPAGES):
        if n.dcache[i] != NULL:
            memset(n.dcache[i], 0, DPAGE_WORDS * sizeof(Decoded))
