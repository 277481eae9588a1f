# SPDX-License-Identifier: Apache-2.0
"""The soft-error registers ``ERR_*`` and ``STATUS.SOFT_ERROR`` (D11), in builds with
protection."""

from amaranth import Mux, Signal

import regmap

__all__ = ["soft_error_registers", "saturating_add"]

_MEM_ID = regmap.REG["ERR_FIRST_MEM"].field("MEM_ID")
_UNCORRECTABLE = regmap.REG["ERR_FIRST_MEM"].field("UNCORRECTABLE")


def _mem_id_word(mem_id):
    """``ERR_FIRST_MEM`` with ``mem_id`` in its ``MEM_ID`` field (a shift by 0 would still
    add a net to the netlist, so none is made then)."""
    return mem_id << _MEM_ID.bit if _MEM_ID.bit else mem_id


def soft_error_registers(m, regs, state):
    """The ERR_* registers and STATUS.SOFT_ERROR (D11), from the core's report of the
    cycle before (a recovery started: ``err_start``; a read corrected:
    ``err_corrected``; ``err_mem``, ``err_addr``: where) and the statistics memory's
    checks, registered here: every error is counted one cycle after its detection
    cycle ``d``, with ``d`` (the cycle counter registered) as its ``ERR_FIRST_CYCLE``.
    CLEAR_SOFT_ERROR applies before the errors detected in its cycle, which count
    after it; those detected in the cycle before, which arrive in its cycle, it
    clears."""
    if regs.protection == "none":
        return
    st, stats = state, regs.stats
    # The statistics memory's checks and the cycle counter, a cycle later (as the
    # core's report comes).
    s_unc, s_cor = Signal(name="err_stats_unc"), Signal(name="err_stats_cor")
    s_index = Signal.like(stats.err_index, name="err_stats_index")
    d = Signal(64, name="err_cycle_d")
    m.d.sync += [s_unc.eq(stats.err_uncorrectable), s_cor.eq(stats.err_corrected),
                 s_index.eq(stats.err_index), d.eq(regs.cycle)]
    start = regs.err_start & ~st.clear_soft
    s_unc, s_cor = s_unc & ~st.clear_soft, s_cor & ~st.clear_soft
    core_cor = regs.err_corrected & ~st.clear_soft
    with m.If(st.clear_soft):
        m.d.sync += [st.soft_error.eq(0), st.err_uncorrected.eq(0),
                     st.err_corrected.eq(0), st.err_first_mem.eq(0),
                     st.err_first_addr.eq(0), st.err_first_cycle.eq(0),
                     st.err_last_recovery.eq(0)]
    first_none = st.err_first_mem[_MEM_ID.bit:_MEM_ID.bit + _MEM_ID.width] == 0
    first_corrected = ~st.err_first_mem[_UNCORRECTABLE.bit]
    unc = start | s_unc
    cor = core_cor | s_cor
    n_unc = start + s_unc
    with m.If(unc):
        m.d.sync += [st.soft_error.eq(1), st.err_uncorrected.eq(
            saturating_add(m, st.err_uncorrected, n_unc, name="err_unc_sum"))]
    with m.If(cor):
        m.d.sync += st.err_corrected.eq(
            saturating_add(m, st.err_corrected, 1, name="err_cor_sum"))
    stats_id = regmap.MEM_IDS["stats"]
    with m.If(unc & first_corrected):       # none yet or a corrected one: replaced
        m.d.sync += [
            st.err_first_mem.eq(_mem_id_word(Mux(start, regs.err_mem, stats_id))
                                | _UNCORRECTABLE.mask),
            st.err_first_addr.eq(Mux(start, regs.err_addr, s_index)),
            st.err_first_cycle.eq(d)]
    with m.Elif(cor & first_none):
        m.d.sync += [
            st.err_first_mem.eq(_mem_id_word(Mux(core_cor, regs.err_mem, stats_id))),
            st.err_first_addr.eq(Mux(core_cor, regs.err_addr, s_index)),
            st.err_first_cycle.eq(d)]
    # ERR_LAST_RECOVERY: from the start cycle d to the first cycle not recovering
    # (``err_start`` comes in d + 1, in which the recovery is running).
    counting = Signal(name="err_rec_counting")
    length = Signal(32, name="err_rec_cycles")
    with m.If(regs.err_start):
        m.d.sync += [counting.eq(1), length.eq(2)]
    with m.Elif(counting & regs.recovering):
        m.d.sync += length.eq(Mux(length == 0xFFFF_FFFF, length, length + 1))
    with m.Elif(counting):
        m.d.sync += [counting.eq(0), st.err_last_recovery.eq(length)]


def saturating_add(m, value, n, *, name):
    """``min(value + n, 2**len(value) - 1)`` for the ERR_* counters: the sum's carry out
    says it passes the maximum (one carry chain, no comparison with a bound beside it)."""
    width = len(value)
    total = Signal(width + 1, name=name)
    m.d.comb += total.eq(value + n)
    return Mux(total[width], (1 << width) - 1, total[:width])
