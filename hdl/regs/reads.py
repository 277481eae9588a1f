# SPDX-License-Identifier: Apache-2.0
"""The register file's read path: every readable word's answer, the one-hot read select
registered at the AR handshake, and the statistics' LO reads through the counter engine."""

from amaranth import C, Cat, Signal

import regmap
from regmap import REGISTERS

from ..layouts import STAT_NAMES
from ..onehot import select

__all__ = ["register_reads"]


def register_reads(m, regs, acc, state):
    """Reads. The subordinate registers AR; the data multiplexer sits alone in the next
    stage. The LO word of a statistic takes more stages (``statistic_reads``). Returns
    ``(read_sel, stat_pend)``."""
    stat_pend = statistic_reads(m, regs, acc, state)
    read_sel = word_reads(m, regs, acc, state, stat_pend)
    return read_sel, stat_pend


def statistic_reads(m, regs, acc, state):
    """The LO word of a statistic: the AR handshake cycle reserves the counter engine
    (stats.rd_reserve), the next cycle samples the counter (stats.rd_en) and
    stats.read_latency cycles later the engine's sum of the RAM word and the pending
    increments (stats.rd_data) is the answer and goes into the HI latch. Returns
    ``stat_pend``, the read waiting for stats.rd_data (``word_reads`` starts it)."""
    stats = regs.stats
    # A statistic's LO read waiting for stats.rd_data: bit k is high k + 1 cycles after
    # the sample; the last bit answers.
    stat_pend = Signal(stats.read_latency)
    m.d.comb += stats.rd_reserve.eq(acc.ar_accept)
    # Whether the address taken is a statistic's LO word, and which counter: decoded
    # from ARADDR in the handshake cycle and registered, so that the sample cycle
    # drives stats.rd_en and stats.rd_addr straight from flip-flops (the engine's
    # visit choice sits behind them).
    ar_stat_lo = Signal()
    ar_stat_idx = Signal(range(len(STAT_NAMES)))
    with m.If(acc.ar_accept):
        m.d.sync += [ar_stat_lo.eq(0), ar_stat_idx.eq(0)]
        with m.Switch(acc.ar_addr):
            for reg in REGISTERS:
                if regs.kinds[reg.name] == "stat":
                    with m.Case(reg.offsets[0] >> 2):
                        m.d.sync += [ar_stat_lo.eq(1),
                                     ar_stat_idx.eq(STAT_NAMES.index(reg.stat))]
    m.d.comb += [stats.rd_en.eq(acc.r_valid & ar_stat_lo), stats.rd_addr.eq(ar_stat_idx)]
    m.d.sync += stat_pend.eq(stat_pend << 1)    # a shift register
    with m.If(stat_pend[-1]):
        m.d.comb += [acc.r_done.eq(1), acc.r_data.eq(stats.rd_data[:32])]
        m.d.sync += state.hi_latch.eq(stats.rd_data[32:64])
    return stat_pend


def _read_values(regs, state):
    """What each register's word reads, by name (``None`` for a statistic: read through
    regs.stats)."""
    p = regs.params
    ctrl, status = regmap.REG["CTRL"], regmap.REG["STATUS"]
    live = {"OCCUPANCY": regs.occupancy, "CYCLE": regs.cycle}
    errors = {"ERR_UNCORRECTED": state.err_uncorrected,
              "ERR_CORRECTED": state.err_corrected, "ERR_FIRST_MEM": state.err_first_mem,
              "ERR_FIRST_ADDR": state.err_first_addr,
              "ERR_FIRST_CYCLE": state.err_first_cycle,
              "ERR_LAST_RECOVERY": state.err_last_recovery}
    protected = regs.protection != "none"
    recovering = regs.recovering if protected else C(0, 1)

    def value(reg):
        kind = regs.kinds[reg.name]
        if kind == "const":
            return C(p.value_of(reg.reset), 32)
        if kind == "shadow":
            return state.shadow[reg.name]
        if kind == "active" and reg.active_of == "MODE":
            return regs.nonblocking << regs.nonblocking_bit
        if kind == "active" and reg.active_of == "POLICY":
            if not regs.predictor:
                return C(0, 32)
            return regs.policy << regs.policy_bit
        if kind == "build":
            return C(regmap.build_word(reg.build, predictor=regs.predictor), 32)
        if kind == "active":
            return getattr(regs.cfg, reg.active_of.lower())
        if kind == "live":
            return live[reg.name]
        if kind == "error":
            return errors[reg.name] if protected else C(0, 64 if reg.wide else 32)
        if kind == "stat":
            return None   # read through regs.stats
        if kind == "ctrl":
            # Action bits read as 0.
            return regs.enable << ctrl.field("ENABLE").bit
        if kind == "status":
            busy = regs.core_flushing | state.flush_pulse
            return ((busy << status.field("BUSY").bit) |
                    (state.error << status.field("ERROR").bit) |
                    (state.soft_error << status.field("SOFT_ERROR").bit) |
                    (recovering << status.field("RECOVERING").bit))
        raise AssertionError(kind)  # pragma: no cover

    return {reg.name: value(reg) for reg in REGISTERS}


def word_reads(m, regs, acc, state, stat_pend):
    """Every readable word's answer, and which one the read is: decoded from ARADDR in the
    handshake cycle into one flip-flop per word (one-hot, ``read_sel``, returned), so that
    in the next cycle the data multiplexer is an AND-OR of registers, not behind a decode.
    A statistic's LO word is answered later: its read starts ``stat_pend``."""
    values = _read_values(regs, state)
    answers = []        # (word, data answered at once or None, HI latch value or None)
    for reg in REGISTERS:
        value = values[reg.name]
        if regs.kinds[reg.name] == "stat":
            # LO: sampled now (stats.rd_en from ar_stat_lo), answered and latched
            # later (``statistic_reads``); HI: the latch.
            answers += [(reg.offsets[0] >> 2, None, None),
                        (reg.offsets[1] >> 2, state.hi_latch, None)]
        elif reg.wide:
            # LO: the low half now, the high half of this same sample into the latch.
            answers += [(reg.offsets[0] >> 2, value[:32], value[32:64]),
                        (reg.offsets[1] >> 2, state.hi_latch, None)]
        else:
            answers.append((reg.offset >> 2, value, None))
    read_sel = Signal(len(answers), name="read_sel")
    # read_sel's bits, in order: the readable words in map order (the observation port's
    # width is taken from this list when the block is constructed)
    assert [word for word, _, _ in answers] == regs.read_words
    with m.If(acc.ar_accept):
        m.d.sync += [read_sel[k].eq(acc.ar_addr == word)
                     for k, (word, _, _) in enumerate(answers)]
    now = [k for k, (_, data, _) in enumerate(answers) if data is not None]
    with m.If(acc.r_valid):
        with m.If(Cat(read_sel[k] for k in now).any()):
            m.d.comb += [acc.r_done.eq(1),
                         acc.r_data.eq(select(Cat(read_sel[k] for k in now),
                                              [answers[k][1] for k in now]))]
        for k, (_, data, latch) in enumerate(answers):
            if data is None:
                with m.If(read_sel[k]):
                    m.d.sync += stat_pend[0].eq(1)
            elif latch is not None:
                with m.If(read_sel[k]):
                    m.d.sync += state.hi_latch.eq(latch)
    return read_sel
