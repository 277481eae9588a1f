# SPDX-License-Identifier: Apache-2.0
"""Values no simulation reaches, put into the statistics memory by VPI deposits: counters
near a ``2**32`` boundary (the LO/HI latch of D8) and flipped code words (D11)."""

from __future__ import annotations

from cocotb.triggers import FallingEdge

__all__ = ["DEPOSIT_CYCLES", "statistics_memory", "deposit_statistics"]

#: Cycles a deposit is held (written again at every falling edge). A visit of the
#: statistics engine reads a word in its first stage and writes its sum back at most four
#: cycles later (the protected engine's five stages, hdl/stats/coded.py; three in the plain
#: one), so the last of eight deposits comes after the write-back of every visit that read
#: the word before the first, and the next visit of the counter reads the deposit.
DEPOSIT_CYCLES = 8


def statistics_memory(tb):
    """The statistics memory's simulator handle (one 64-bit counter per word, in the order
    of ``regmap.STAT_NAMES``), found in the build's Verilog as the fault campaign finds it,
    and the code of its words (D11): the code whose coded word is as wide as the array."""
    from hdl.ecc import Code
    from verif.cocotb_flips import memory_handle
    handle, array = memory_handle(tb, "stats", None)
    (code,) = [c for c in (Code(kind, 64) for kind in ("none", "parity", "secded"))
               if c.width == array.width]
    return handle, code


async def deposit_statistics(tb, memory, words: dict[int, int]) -> None:
    """Write ``words`` (counter index -> code word, as ``statistics_memory``'s code stores
    it) into ``memory`` (``statistics_memory``'s handle), each held for ``DEPOSIT_CYCLES``
    falling edges, so that no visit of the statistics engine in flight writes an old sum
    over it. Returns at the last falling edge; the engine's next visit of each counter reads
    the word deposited."""
    for _ in range(DEPOSIT_CYCLES):
        await FallingEdge(tb.dut.clk)
        for index, word in words.items():
            memory[index].value = word
