# SPDX-License-Identifier: Apache-2.0
"""The register file's writes: commit legality, the statistics' clear, the shadow words and
the CTRL sequencer, which applies CTRL actions between requests (D8)."""

from amaranth import C, Cat, Const, Mux, Signal

import regmap
from regmap import CONFIG_NAMES, MODE_NAMES, REGISTERS

from ..layouts import STAT_NAMES
from .kinds import ACTIONS, DROP_STAT

__all__ = ["commit_checks", "statistics_clear", "register_writes"]


def commit_checks(m, regs, state):
    """Commit legality and "the seed changes", registered for timing (the comparators
    and a 32-bit equality would otherwise sit in front of cfg). They are always current
    when used: a CTRL write is decoded at least two cycles after the B handshake of the
    last shadow write and applied at least one cycle later."""
    p, shadow = regs.params, state.shadow

    # The chains 1 <= C2 <= C3 <= COUNT_MAX and W3 <= W2 <= W1 <= WMAX hold exactly when
    # every word of a chain is zero above the width of its maximum and the chain holds
    # on the low bits, so the comparators are only that wide.
    def chain(words, maximum, minimum=0):
        n = maximum.bit_length()
        lo = [shadow[w][:n] for w in words]
        ok = Cat(shadow[w][n:] == 0 for w in words).all()
        for a, b in zip(lo, lo[1:]):
            ok &= a <= b
        if maximum != (1 << n) - 1:
            ok &= lo[-1] <= maximum
        if minimum:
            ok &= lo[0] >= minimum
        return ok

    # A mode register is legal when no bit outside the fields this build has is set
    # (D13; POLICY.MODE only with the predictor, spec-predictor.md P2).
    mode_ok = Const(1)
    for name in MODE_NAMES:
        defined = regmap.mode_defined(name, predictor=regs.predictor)
        mode_ok &= (shadow[name] & ~C(defined, 32)) == 0
    m.d.sync += [
        state.legal.eq(chain(["C2", "C3"], p.COUNT_MAX, minimum=1) &
                       chain(["W3", "W2", "W1"], p.WMAX) & mode_ok),
        state.seed_changes.eq(shadow["HASH_SEED"] != regs.cfg.hash_seed),
    ]
    if regs.predictor:
        m.d.sync += state.policy_changes.eq(
            shadow["POLICY"][regs.policy_bit] != regs.policy)


def statistics_clear(m, regs, state):
    """The counters in block RAM (hdl/stats/). Clearing waits for a cycle without
    increments (see the CTRL sequencer) and happens in the next, the first cycle of the
    write response: a register, so the decision (idle, legality) does not sit in front
    of the counters' resets. A read ordered after the B response is sampled later
    still, so it sees the clear. A clear that did not wait for the core to drain (see
    ``stat_lag``) discards the increments of the ``stat_lag - 1`` cycles from the clear
    cycle on: they belong to requests accepted before the write (with a drained core
    there are none; with ``stat_lag`` 1 nothing is discarded and an increment in the
    clear cycle counts after it)."""
    # A request accepted at the latest in the cycle before the apply cycle (hold is
    # high in it) pulses at the latest stat_lag - 2 cycles after the clear cycle (the
    # cycle after the apply cycle): mask the clear cycle and the stat_lag - 2 after it.
    discard = Signal(range(max(regs.stat_lag - 1, 1)), name="stat_discard")
    with m.If(state.clear_stats):
        m.d.sync += discard.eq(max(regs.stat_lag - 2, 0))
    with m.Elif(discard != 0):
        m.d.sync += discard.eq(discard - 1)
    masked = state.clear_stats | (discard != 0) if regs.stat_lag > 1 else Const(0)
    m.d.comb += [regs.stats.inc.eq(Mux(masked, 0, regs.stat_inc)),
                 regs.stats.clear.eq(state.clear_stats)]
    m.d.sync += state.clear_stats.eq(0)


def register_writes(m, regs, acc, state):
    """Writes and the CTRL sequencer. The subordinate passes on only writes to shadow
    words and CTRL. A shadow write and a CTRL write without an action bit are answered
    at once; a CTRL action is held (`sequencing`) until the core is idle, then applied
    and answered in one cycle. Returns `sequencing`."""
    ctrl = regmap.REG["CTRL"]

    def cbit(name):
        return ctrl.field(name).bit

    any_action = Cat(acc.w_data[cbit(name)] for name in ACTIONS).any()
    sequencing = Signal()      # a CTRL action waits for the core to be idle
    action_resp = Signal()     # the write response on B is a CTRL action's
    m.d.comb += regs.flush.eq(state.flush_pulse)
    m.d.sync += [state.flush_pulse.eq(0), state.clear_soft.eq(0)]
    with m.If(~acc.b_busy):
        m.d.sync += action_resp.eq(0)

    with m.If(acc.w_valid & ~sequencing):
        with m.Switch(acc.w_addr):
            for reg in REGISTERS:
                kind = regs.kinds[reg.name]
                if kind == "shadow":
                    with m.Case(reg.offset >> 2):
                        m.d.comb += acc.w_done.eq(1)
                        # Byte by byte, so that WSTRB is the flip-flops' enable and
                        # not a LUT per bit.
                        for b in range(4):
                            with m.If(acc.w_strb[b]):
                                m.d.sync += state.shadow[reg.name][8 * b:8 * b + 8].eq(
                                    acc.w_data[8 * b:8 * b + 8])
                elif kind == "ctrl":
                    with m.Case(reg.offset >> 2):
                        with m.If(acc.w_strb[0] & any_action):
                            m.d.sync += sequencing.eq(1)
                        with m.Else():
                            m.d.comb += acc.w_done.eq(1)
                            with m.If(acc.w_strb[0]):
                                m.d.sync += regs.enable.eq(acc.w_data[cbit("ENABLE")])

    with m.If(sequencing):
        # Stop the core taking requests, wait until every accepted request has finished
        # (and any running flush), then apply in one cycle. A cycle with a statistics
        # increment is not idle whatever core_idle says: that increment belongs to a
        # request from before the write, so it must land before a CLEAR_STATS, never
        # straddle it.
        drains = acc.w_data[cbit("COMMIT")] | acc.w_data[cbit("FLUSH")]
        request_incs = Cat(regs.stat_inc[i] for i, name in enumerate(STAT_NAMES)
                           if name != DROP_STAT)
        drained = regs.core_idle & ~request_incs.any()
        with m.If(~regs.core_flushing & (drained | ~drains)):
            m.d.comb += acc.w_done.eq(1)
            m.d.sync += [sequencing.eq(0), action_resp.eq(1)]
            commit = acc.w_data[cbit("COMMIT")]
            with m.If(commit & ~state.legal):
                m.d.comb += acc.w_error.eq(1)
                m.d.sync += state.error.eq(1)
            with m.Else():
                with m.If(commit):
                    m.d.sync += [getattr(regs.cfg, name.lower()).eq(state.shadow[name])
                                 for name in CONFIG_NAMES]
                    m.d.sync += regs.nonblocking.eq(
                        state.shadow["MODE"][regs.nonblocking_bit])
                    if regs.predictor:
                        m.d.sync += regs.policy.eq(
                            state.shadow["POLICY"][regs.policy_bit])
                with m.If(acc.w_data[cbit("CLEAR_ERROR")]):
                    m.d.sync += state.error.eq(0)
                m.d.sync += state.clear_soft.eq(acc.w_data[cbit("CLEAR_SOFT_ERROR")])
                changes = state.seed_changes
                if regs.predictor:
                    changes = changes | state.policy_changes
                m.d.sync += state.flush_pulse.eq(acc.w_data[cbit("FLUSH")] |
                                                 (commit & changes))
                m.d.sync += state.clear_stats.eq(acc.w_data[cbit("CLEAR_STATS")])
                m.d.sync += regs.enable.eq(acc.w_data[cbit("ENABLE")])

    # `hold` stays high until the write response of an action has been taken (D8: no
    # request is accepted at the edge of that handshake, so requests and register
    # effects never tie), and through the flush pulse, so that the core sees hold, idle
    # and flush together and its `ready` stays low until `core_flushing` takes over.
    m.d.comb += regs.hold.eq(sequencing | (acc.b_busy & action_resp) | state.flush_pulse)
    return sequencing
