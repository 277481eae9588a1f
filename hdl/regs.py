# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU register block: the register file behind an AXI4-Lite subordinate
(``hdl.axil.AxiLiteSubordinate``), its CTRL sequencer and the statistics counters.

Every register comes from ``regmap.REGISTERS`` (``regmap/kv_asu.toml``): this module holds no
address. What a register *is* follows from its entry: ``stat`` (a 64-bit statistics
counter), ``config`` (a shadow configuration word), ``active_of`` (the committed value of a
shadow), a constant ``reset`` on a read-only word (identification and parameters), the
``CTRL`` and ``STATUS`` field sets, the live inputs ``OCCUPANCY`` and ``CYCLE``, the
soft-error registers ``ERR_*`` (decision D11), and ``build`` (a constant of the build
options: ``P_POLICIES``, docs/spec-predictor.md P2). A
register of any other kind makes the constructor raise, so the map cannot grow a register
that the RTL silently ignores. The behaviour is ``docs/spec-decisions.md`` D8; the
integrator's page is ``docs/registers.md``.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

import regmap
from regmap import CONFIG_NAMES, MODE_NAMES, REGISTERS

from .axil import AxiLiteSignature, AxiLiteSubordinate
from .layouts import STAT_NAMES, check_params, config_layout
from .stats import StatisticsCounters
from .core.decision import select

__all__ = ["KvAsuRegisters"]

# Registers whose value is a live input of the block rather than state of its own.
_LIVE = ("OCCUPANCY", "CYCLE")
# CTRL action fields, in the order D8 applies them (COMMIT first: a refused commit stops the
# rest of the write).
_ACTIONS = ("COMMIT", "CLEAR_ERROR", "CLEAR_SOFT_ERROR", "FLUSH", "CLEAR_STATS")
# The soft-error registers (D11), read-only state of the register block.
_ERR = ("ERR_UNCORRECTED", "ERR_CORRECTED", "ERR_FIRST_MEM", "ERR_FIRST_ADDR",
        "ERR_FIRST_CYCLE", "ERR_LAST_RECOVERY")
# The statistic of dropped requests (D13) counts at the block's door, not in the pipeline:
# its increments do not keep a CTRL write from finding the core drained.
_DROP_STAT = "req_dropped"


def _kind(reg):
    """What implements ``reg``; raises ``ValueError`` for a register this block cannot."""
    if reg.stat:
        kind, access = "stat", "ro"
    elif reg.config or reg.mode:
        kind, access = "shadow", "rw"
    elif reg.build is not None:
        kind, access = "build", "ro"
    elif reg.active_of:
        kind, access = "active", "ro"
    elif reg.name == "CTRL":
        kind, access = "ctrl", "ctrl"
    elif reg.name == "STATUS":
        kind, access = "status", "ro"
    elif reg.name in _LIVE:
        kind, access = "live", "ro"
    elif reg.name in _ERR:
        kind, access = "error", "ro"
    elif reg.reset is not None and not reg.wide:
        kind, access = "const", "ro"
    else:
        raise ValueError(f"register {reg.name}: the register block has no implementation "
                         f"for it; extend hdl/regs.py")
    if reg.access != access:
        raise ValueError(f"register {reg.name} of kind {kind} must have access {access!r}, "
                         f"not {reg.access!r}")
    if reg.wide and kind not in ("stat", "live", "error"):
        raise ValueError(f"register {reg.name}: only counters and live inputs can be wide")
    return kind


class KvAsuRegisters(wiring.Component):
    """KV-ASU register block.

    The register file of ``regmap`` behind an :class:`hdl.axil.AxiLiteSubordinate` (32-bit
    data, ``regmap.AXIL_ADDR_WIDTH``-bit byte address; submodule ``subordinate``), which
    does the AXI4-Lite handshakes and answers unmapped words and writes to read-only words
    itself. This block owns the shadow and the active configuration, ``CTRL.ENABLE``, the
    sticky ``STATUS.ERROR``, the 64-bit statistics counters and the single high-word latch;
    its CTRL sequencer orders CTRL actions between requests with the core (``hold`` /
    ``core_idle``).

    Latency
        A read's R comes 2 cycles after its AR handshake (``stats.read_latency + 2``, 4
        by default and 5 with ``protection``, for the LO word of a statistic), a plain
        write's B 2 cycles after the later of the AW and W handshakes. Reads and writes proceed independently of each
        other.

    Responses (D8)
        Unmapped word: ``DECERR``, reads 0, a write changes nothing. Write to a read-only
        word (both halves of a 64-bit counter included): ``SLVERR``, changes nothing.
        Shadow configuration words store all 32 bits, byte by byte as ``wstrb`` says.

    CTRL
        A write without the byte 0 strobe does nothing (``OKAY``). A write with no action
        bit set only updates ``ENABLE``, at once. A write with any action bit set is
        applied between requests: the block raises ``hold``, waits for a cycle with
        ``core_flushing`` low (a flush already running finishes first) and, if it commits
        or flushes, ``core_idle`` high and ``stat_inc`` all zero (the pipeline drained; a
        write of only CLEAR_STATS / CLEAR_ERROR does not wait for it, see ``stat_lag``),
        then in that cycle applies, in one step: COMMIT (if the
        shadow set is illegal: ``SLVERR``, ``STATUS.ERROR`` set and nothing else of the
        write happens), CLEAR_ERROR, FLUSH, CLEAR_STATS, ENABLE := the written bit. The new
        ``cfg``, ``policy`` and ``enable`` are driven from the next cycle, in which
        ``bvalid`` rises;
        ``hold`` stays high until the cycle after the B handshake, so no request is ever
        accepted at the edge of an action's write response (D8). When the write flushes
        (``FLUSH``, or a commit that changes ``HASH_SEED`` or ``POLICY.MODE``, the latter
        only in a build with ``predictor``), ``flush`` pulses in the cycle
        ``bvalid`` rises. **The write response comes with the flush pulse, before the flush
        has finished.** The core keeps its request ``ready`` low while it
        flushes; ``STATUS.BUSY`` reads 1 from the flush pulse on (``core_flushing``).

    64-bit words
        Reading the LO word of a counter (``CYCLE`` or a statistic) returns its low half and
        copies the high half of the same sample into the one 32-bit latch; reading any HI
        word returns the latch. The sample is the value in the cycle after the AR handshake.
        The statistics are a :class:`hdl.stats.StatisticsCounters` (block RAM and small
        pre-counters); the read path here reserves its engine in the AR handshake cycle,
        samples the counter in the next cycle and answers with the value (and takes the
        latch) ``stats.read_latency`` cycles after the sample, which keeps the engine's read
        contract (one read at a time, R at least two cycles after the sample).

    Parameters
    ----------
    params : regmap.Params or None
        Elaboration parameters (``None``: the defaults).
    stats_stages : int
        Passed to :class:`hdl.stats.StatisticsCounters` as ``stages`` (3, default: the
        block RAM's word is registered before the adder; 2: one cycle less, for small
        devices). The LO read of a statistic takes ``stats_stages + 1`` cycles from AR to R
        (one more with ``protection``).
    stat_lag : int
        Cycles from a request's acceptance to its ``stat_inc`` pulse, a constant of the
        core (``KvAsuCore.latency - 2``; default 1). A CTRL write of only CLEAR_STATS /
        CLEAR_ERROR (and ENABLE) is applied without draining the core: the requests
        accepted before ``hold`` rose pulse ``stat_inc`` up to ``stat_lag - 2`` cycles
        after the clear cycle, and those pulses are discarded (they count before the clear,
        which zeroes them), so the statistics are exactly those of the requests accepted
        after the write response (D8, D12).
    mode_reset : int
        The value reset gives ``MODE``, shadow and committed (D13, "The reset mode"): 0
        (default) or ``MODE.NONBLOCKING``; a value with a reserved bit set is a
        ``ValueError``.
    predictor : bool
        The build has the predictor mode (``CoreOptions.predictor``, docs/spec-predictor.md
        P2): ``POLICY.MODE`` commits (else it is a reserved bit and a commit that sets it is
        refused), ``P_POLICIES`` reads 3 (else 1), and the ``policy`` port exists.

    Ports
    -----
    axil : In(AxiLiteSignature(regmap.AXIL_ADDR_WIDTH))
        The AXI4-Lite bus (this block is the subordinate).
    nonblocking : Out(1)
        The committed ``MODE.NONBLOCKING`` (D13); resets to ``mode_reset``'s bit. Changes,
        like ``cfg``, only in the cycle after a commit is applied (the first cycle of its
        write response).
    policy : Out(1)
        Only with ``predictor``: the committed ``POLICY.MODE`` (1: the predictor mode);
        resets to 0. Changes like ``nonblocking``, and only with a flush pulse.
    cfg : Out(config_layout(params))
        The active configuration (``c3``, ``c2``, ``w3``, ``w2``, ``w1``, ``hash_seed``);
        resets to ``params.defaults``; changes only when a commit is applied, which is
        only while ``hold`` is high and ``core_idle`` is high.
    enable : Out(1)
        ``CTRL.ENABLE``: the core accepts requests only while it is high. Resets to 1.
    hold : Out(1)
        The core must not accept requests while it is high (a CTRL action is waiting for
        ``core_idle`` or being applied).
    flush : Out(1)
        One-cycle pulse: start a flush. Only ever high while ``hold`` and ``core_idle`` are
        high and ``core_flushing`` is low. The core must raise ``core_flushing`` from the
        next cycle until the flush ends (it may also fold ``flush`` into its own ``ready``).
    core_idle : In(1)
        No accepted request still has a state update or a statistics increment pending.
        Responses waiting in the core's output buffer do not matter.
    core_flushing : In(1)
        A flush is running (``STATUS.BUSY``).
    occupancy : In(params.SLOT_WIDTH + 1)
        Number of tracked lines (``OCCUPANCY``).
    stat_inc : In(len(STAT_NAMES))
        Bit ``i`` increments the counter of ``STAT_NAMES[i]`` by one this cycle; any number
        of bits may be set at once.
    cycle : In(64)
        The core's cycle counter (``CYCLE``).
    err_start, err_corrected : In(1), err_mem : In(4), err_addr : In(SLOT_WIDTH)
        Only with ``protection`` (D11): the core's report, one cycle after the cycle ``d``
        it is of (``KvAsuCore``'s ports of the same names): a recovery started in ``d``;
        a read of ``d`` was corrected; the memory and the slot of ``d``'s first error.
    recovering : In(1)
        Only with ``protection``: a recovery is running (``STATUS.RECOVERING``).

    Attributes
    ----------
    subordinate : hdl.axil.AxiLiteSubordinate
        The AXI4-Lite subordinate in front of the register file.
    stats : hdl.stats.StatisticsCounters
        The statistics counters, in ``STAT_NAMES`` order; testbenches read and
        preload them with ``stats.peek(ctx, i)`` and ``stats.poke(ctx, i, value)``.
    """

    def __init__(self, params=None, *, stats_stages=3, stat_lag=1, protection="none",
                 mode_reset=0, predictor=False):
        params = check_params(params)
        if not isinstance(predictor, bool):
            raise TypeError(f"predictor must be a bool, not {predictor!r}")
        self.predictor = predictor
        if not isinstance(stat_lag, int) or stat_lag < 1:
            raise ValueError(f"stat_lag must be a positive integer, not {stat_lag!r}")
        self.mode_reset = regmap.check_mode_reset(mode_reset)
        self.params = params
        self.stat_lag = stat_lag
        self.protection = protection
        # Classify every register now: an unknown register fails at construction.
        self._kinds = {reg.name: _kind(reg) for reg in REGISTERS}
        ctrl = regmap.REG["CTRL"]
        for name in ("ENABLE", *_ACTIONS):
            ctrl.field(name)  # raises KeyError naming a missing field
        if tuple(r.name for r in REGISTERS if r.config) != CONFIG_NAMES:
            raise ValueError(f"the shadow registers must be {CONFIG_NAMES}")
        if MODE_NAMES != ("POLICY", "MODE"):
            raise ValueError(f"the mode registers must be ('POLICY', 'MODE'), not {MODE_NAMES}")
        # The mode bits the block acts on (each lookup raises KeyError naming a missing field).
        self._nonblocking_bit = regmap.REG["MODE"].field("NONBLOCKING").bit
        self._policy_bit = regmap.REG["POLICY"].field("MODE").bit
        if len(STAT_NAMES) != len([r for r in REGISTERS if r.stat]):
            raise ValueError("STAT_NAMES does not match the statistics registers")
        if params.SLOT_WIDTH + 1 > 32:
            raise ValueError(f"OCCUPANCY needs {params.SLOT_WIDTH + 1} bits, more than a "
                             f"32-bit register holds (ENTRIES = {params.ENTRIES})")

        cfg_init = {name.lower(): params.defaults[name] for name in CONFIG_NAMES}
        super().__init__({
            "axil": In(AxiLiteSignature(regmap.AXIL_ADDR_WIDTH)),
            "cfg": Out(config_layout(params), init=cfg_init),
            "nonblocking": Out(1, init=mode_reset >> self._nonblocking_bit & 1),
            **({"policy": Out(1)} if predictor else {}),
            "enable": Out(1, init=ctrl.field("ENABLE").reset),
            "hold": Out(1),
            "flush": Out(1),
            "core_idle": In(1),
            "core_flushing": In(1),
            "occupancy": In(params.SLOT_WIDTH + 1),
            "stat_inc": In(len(STAT_NAMES)),
            "cycle": In(64),
            **({"err_start": In(1), "err_corrected": In(1), "err_mem": In(4),
                "err_addr": In(params.SLOT_WIDTH), "recovering": In(1)}
               if protection != "none" else {}),
        })
        # Created here rather than in elaborate() so that a testbench can reach them.
        self.subordinate = AxiLiteSubordinate(
            regmap.AXIL_ADDR_WIDTH,
            readable=[off for reg in REGISTERS for off in reg.offsets],
            writable=[reg.offset for reg in REGISTERS if reg.access != "ro"], src_loc_at=1)
        self.stats = StatisticsCounters(count=len(STAT_NAMES), width=64, stages=stats_stages,
                                        protection=protection, src_loc_at=1)

    def elaborate(self, platform):
        m = Module()
        m.submodules.subordinate = sub = self.subordinate
        m.submodules.stats = self.stats
        wiring.connect(m, wiring.flipped(self.axil), sub.axil)
        state = _RegisterFileState(self.params, self.mode_reset)
        self._commit_checks(m, state)
        self._statistics(m, state)
        self._writes(m, sub.regs, state)
        self._soft_errors(m, state)
        self._reads(m, sub.regs, state)
        return m

    def _soft_errors(self, m, state):
        """The ERR_* registers and STATUS.SOFT_ERROR (D11), from the core's report of the
        cycle before (a recovery started: ``err_start``; a read corrected:
        ``err_corrected``; ``err_mem``, ``err_addr``: where) and the statistics memory's
        checks, registered here: every error is counted one cycle after its detection
        cycle ``d``, with ``d`` (the cycle counter registered) as its ``ERR_FIRST_CYCLE``.
        CLEAR_SOFT_ERROR applies before the errors detected in its cycle, which count
        after it; those detected in the cycle before, which arrive in its cycle, it
        clears."""
        if self.protection == "none":
            return
        st, stats = state, self.stats
        # The statistics memory's checks and the cycle counter, a cycle later (as the
        # core's report comes).
        s_unc, s_cor = Signal(name="err_stats_unc"), Signal(name="err_stats_cor")
        s_index = Signal.like(stats.err_index, name="err_stats_index")
        d = Signal(64, name="err_cycle_d")
        m.d.sync += [s_unc.eq(stats.err_uncorrectable), s_cor.eq(stats.err_corrected),
                     s_index.eq(stats.err_index), d.eq(self.cycle)]
        start = self.err_start & ~st.clear_soft
        s_unc, s_cor = s_unc & ~st.clear_soft, s_cor & ~st.clear_soft
        core_cor = self.err_corrected & ~st.clear_soft
        with m.If(st.clear_soft):
            m.d.sync += [st.soft_error.eq(0), st.err_uncorrected.eq(0),
                         st.err_corrected.eq(0), st.err_first_mem.eq(0),
                         st.err_first_addr.eq(0), st.err_first_cycle.eq(0),
                         st.err_last_recovery.eq(0)]
        first_none = st.err_first_mem[:4] == 0
        first_corrected = ~st.err_first_mem[8]
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
                st.err_first_mem.eq(Mux(start, self.err_mem, stats_id) | (1 << 8)),
                st.err_first_addr.eq(Mux(start, self.err_addr, s_index)),
                st.err_first_cycle.eq(d)]
        with m.Elif(cor & first_none):
            m.d.sync += [
                st.err_first_mem.eq(Mux(core_cor, self.err_mem, stats_id)),
                st.err_first_addr.eq(Mux(core_cor, self.err_addr, s_index)),
                st.err_first_cycle.eq(d)]
        # ERR_LAST_RECOVERY: from the start cycle d to the first cycle not recovering
        # (``err_start`` comes in d + 1, in which the recovery is running).
        counting = Signal(name="err_rec_counting")
        length = Signal(32, name="err_rec_cycles")
        with m.If(self.err_start):
            m.d.sync += [counting.eq(1), length.eq(2)]
        with m.Elif(counting & self.recovering):
            m.d.sync += length.eq(Mux(length == 0xFFFF_FFFF, length, length + 1))
        with m.Elif(counting):
            m.d.sync += [counting.eq(0), st.err_last_recovery.eq(length)]

    def _commit_checks(self, m, state):
        """Commit legality and "the seed changes", registered for timing (the comparators
        and a 32-bit equality would otherwise sit in front of cfg). They are always current
        when used: a CTRL write is decoded at least two cycles after the B handshake of the
        last shadow write and applied at least one cycle later."""
        p, shadow = self.params, state.shadow

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
            defined = regmap.mode_defined(name, predictor=self.predictor)
            mode_ok &= (shadow[name] & ~C(defined, 32)) == 0
        m.d.sync += [
            state.legal.eq(chain(["C2", "C3"], p.COUNT_MAX, minimum=1) &
                           chain(["W3", "W2", "W1"], p.WMAX) & mode_ok),
            state.seed_changes.eq(shadow["HASH_SEED"] != self.cfg.hash_seed),
        ]
        if self.predictor:
            m.d.sync += state.policy_changes.eq(
                shadow["POLICY"][self._policy_bit] != self.policy)

    def _statistics(self, m, state):
        """The counters in block RAM (hdl/stats.py). Clearing waits for a cycle without
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
        discard = Signal(range(max(self.stat_lag - 1, 1)), name="stat_discard")
        with m.If(state.clear_stats):
            m.d.sync += discard.eq(max(self.stat_lag - 2, 0))
        with m.Elif(discard != 0):
            m.d.sync += discard.eq(discard - 1)
        masked = state.clear_stats | (discard != 0) if self.stat_lag > 1 else Const(0)
        m.d.comb += [self.stats.inc.eq(Mux(masked, 0, self.stat_inc)),
                     self.stats.clear.eq(state.clear_stats)]
        m.d.sync += state.clear_stats.eq(0)

    def _writes(self, m, acc, state):
        """Writes and the CTRL sequencer. The subordinate passes on only writes to shadow
        words and CTRL. A shadow write and a CTRL write without an action bit are answered
        at once; a CTRL action is held (`sequencing`) until the core is idle, then applied
        and answered in one cycle."""
        ctrl = regmap.REG["CTRL"]

        def cbit(name):
            return ctrl.field(name).bit

        any_action = Cat(acc.w_data[cbit(name)] for name in _ACTIONS).any()
        sequencing = Signal()      # a CTRL action waits for the core to be idle
        action_resp = Signal()     # the write response on B is a CTRL action's
        m.d.comb += self.flush.eq(state.flush_pulse)
        m.d.sync += [state.flush_pulse.eq(0), state.clear_soft.eq(0)]
        with m.If(~acc.b_busy):
            m.d.sync += action_resp.eq(0)

        with m.If(acc.w_valid & ~sequencing):
            with m.Switch(acc.w_addr):
                for reg in REGISTERS:
                    kind = self._kinds[reg.name]
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
                                    m.d.sync += self.enable.eq(acc.w_data[cbit("ENABLE")])

        with m.If(sequencing):
            # Stop the core taking requests, wait until every accepted request has finished
            # (and any running flush), then apply in one cycle. A cycle with a statistics
            # increment is not idle whatever core_idle says: that increment belongs to a
            # request from before the write, so it must land before a CLEAR_STATS, never
            # straddle it.
            drains = acc.w_data[cbit("COMMIT")] | acc.w_data[cbit("FLUSH")]
            request_incs = Cat(self.stat_inc[i] for i, name in enumerate(STAT_NAMES)
                               if name != _DROP_STAT)
            drained = self.core_idle & ~request_incs.any()
            with m.If(~self.core_flushing & (drained | ~drains)):
                m.d.comb += acc.w_done.eq(1)
                m.d.sync += [sequencing.eq(0), action_resp.eq(1)]
                commit = acc.w_data[cbit("COMMIT")]
                with m.If(commit & ~state.legal):
                    m.d.comb += acc.w_error.eq(1)
                    m.d.sync += state.error.eq(1)
                with m.Else():
                    with m.If(commit):
                        m.d.sync += [getattr(self.cfg, name.lower()).eq(state.shadow[name])
                                     for name in CONFIG_NAMES]
                        m.d.sync += self.nonblocking.eq(
                            state.shadow["MODE"][self._nonblocking_bit])
                        if self.predictor:
                            m.d.sync += self.policy.eq(
                                state.shadow["POLICY"][self._policy_bit])
                    with m.If(acc.w_data[cbit("CLEAR_ERROR")]):
                        m.d.sync += state.error.eq(0)
                    m.d.sync += state.clear_soft.eq(acc.w_data[cbit("CLEAR_SOFT_ERROR")])
                    changes = state.seed_changes
                    if self.predictor:
                        changes = changes | state.policy_changes
                    m.d.sync += state.flush_pulse.eq(acc.w_data[cbit("FLUSH")] |
                                                     (commit & changes))
                    m.d.sync += state.clear_stats.eq(acc.w_data[cbit("CLEAR_STATS")])
                    m.d.sync += self.enable.eq(acc.w_data[cbit("ENABLE")])

        # `hold` stays high until the write response of an action has been taken (D8: no
        # request is accepted at the edge of that handshake, so requests and register
        # effects never tie), and through the flush pulse, so that the core sees hold, idle
        # and flush together and its `ready` stays low until `core_flushing` takes over.
        m.d.comb += self.hold.eq(sequencing | (acc.b_busy & action_resp) | state.flush_pulse)

    def _reads(self, m, acc, state):
        """Reads. The subordinate registers AR; the data multiplexer sits alone in the next
        stage. The LO word of a statistic takes more stages: the AR handshake cycle reserves
        the counter engine (stats.rd_reserve), the next cycle samples the counter
        (stats.rd_en) and stats.read_latency cycles later the engine's sum of the RAM word
        and the pending increments (stats.rd_data) is the answer and goes into the HI
        latch."""
        p, stats = self.params, self.stats
        ctrl, status = regmap.REG["CTRL"], regmap.REG["STATUS"]
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
                    if self._kinds[reg.name] == "stat":
                        with m.Case(reg.offsets[0] >> 2):
                            m.d.sync += [ar_stat_lo.eq(1),
                                         ar_stat_idx.eq(STAT_NAMES.index(reg.stat))]
        m.d.comb += [stats.rd_en.eq(acc.r_valid & ar_stat_lo), stats.rd_addr.eq(ar_stat_idx)]
        m.d.sync += stat_pend.eq(stat_pend << 1)    # a shift register
        with m.If(stat_pend[-1]):
            m.d.comb += [acc.r_done.eq(1), acc.r_data.eq(stats.rd_data[:32])]
            m.d.sync += state.hi_latch.eq(stats.rd_data[32:64])

        live = {"OCCUPANCY": self.occupancy, "CYCLE": self.cycle}
        errors = {"ERR_UNCORRECTED": state.err_uncorrected,
                  "ERR_CORRECTED": state.err_corrected, "ERR_FIRST_MEM": state.err_first_mem,
                  "ERR_FIRST_ADDR": state.err_first_addr,
                  "ERR_FIRST_CYCLE": state.err_first_cycle,
                  "ERR_LAST_RECOVERY": state.err_last_recovery}
        protected = self.protection != "none"
        recovering = self.recovering if protected else C(0, 1)

        def read_value(reg):
            kind = self._kinds[reg.name]
            if kind == "const":
                return C(p.value_of(reg.reset), 32)
            if kind == "shadow":
                return state.shadow[reg.name]
            if kind == "active" and reg.active_of == "MODE":
                return self.nonblocking << self._nonblocking_bit
            if kind == "active" and reg.active_of == "POLICY":
                if not self.predictor:
                    return C(0, 32)
                return self.policy << self._policy_bit
            if kind == "build":
                return C(regmap.build_word(reg.build, predictor=self.predictor), 32)
            if kind == "active":
                return getattr(self.cfg, reg.active_of.lower())
            if kind == "live":
                return live[reg.name]
            if kind == "error":
                return errors[reg.name] if protected else C(0, 64 if reg.wide else 32)
            if kind == "stat":
                return None   # read through self.stats
            if kind == "ctrl":
                # Action bits read as 0.
                return self.enable << ctrl.field("ENABLE").bit
            if kind == "status":
                busy = self.core_flushing | state.flush_pulse
                return ((busy << status.field("BUSY").bit) |
                        (state.error << status.field("ERROR").bit) |
                        (state.soft_error << status.field("SOFT_ERROR").bit) |
                        (recovering << status.field("RECOVERING").bit))
            raise AssertionError(kind)  # pragma: no cover

        # Every readable word's answer, and which one the read is: decoded from ARADDR in
        # the handshake cycle into one flip-flop per word (one-hot), so that in the next
        # cycle the data multiplexer is an AND-OR of registers, not behind a decode.
        answers = []        # (word, data answered at once or None, HI latch value or None)
        for reg in REGISTERS:
            value = read_value(reg)
            if self._kinds[reg.name] == "stat":
                # LO: sampled now (stats.rd_en from ar_stat_lo), answered and latched
                # later (see above); HI: the latch.
                answers += [(reg.offsets[0] >> 2, None, None),
                            (reg.offsets[1] >> 2, state.hi_latch, None)]
            elif reg.wide:
                # LO: the low half now, the high half of this same sample into the latch.
                answers += [(reg.offsets[0] >> 2, value[:32], value[32:64]),
                            (reg.offsets[1] >> 2, state.hi_latch, None)]
            else:
                answers.append((reg.offset >> 2, value, None))
        read_sel = Signal(len(answers), name="read_sel")
        self.read_words = [word for word, _, _ in answers]   # read_sel's bits, in order
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


def saturating_add(m, value, n, *, name):
    """``min(value + n, 2**len(value) - 1)`` for the ERR_* counters: the sum's carry out
    says it passes the maximum (one carry chain, no comparison with a bound beside it)."""
    width = len(value)
    total = Signal(width + 1, name=name)
    m.d.comb += total.eq(value + n)
    return Mux(total[width], (1 << width) - 1, total[:width])


class _RegisterFileState:
    """The register file's own state, shared by its write and read paths."""

    def __init__(self, params, mode_reset):
        inits = {**params.defaults, **regmap.MODE_DEFAULTS, "MODE": mode_reset}
        self.shadow = {name: Signal(32, name=f"shadow_{name.lower()}", init=inits[name])
                       for name in CONFIG_NAMES + MODE_NAMES}
        self.error = Signal(name="error")              # STATUS.ERROR, sticky
        # D11: STATUS.SOFT_ERROR and the ERR_* registers; the cycle after an applied
        # CLEAR_SOFT_ERROR
        self.soft_error = Signal(name="soft_error")
        self.err_uncorrected = Signal(32, name="err_uncorrected")
        self.err_corrected = Signal(32, name="err_corrected")
        self.err_first_mem = Signal(32, name="err_first_mem")
        self.err_first_addr = Signal(32, name="err_first_addr")
        self.err_first_cycle = Signal(64, name="err_first_cycle")
        self.err_last_recovery = Signal(32, name="err_last_recovery")
        self.clear_soft = Signal(name="clear_soft")
        self.hi_latch = Signal(32, name="hi_latch")    # the one HI-word latch of D8
        self.flush_pulse = Signal(name="flush_pulse")  # drives `flush`: the cycle after an
                                                       # applied flush
        self.clear_stats = Signal(name="clear_stats")  # the cycle after an applied clear
        self.legal = Signal(name="legal")              # the shadow set is legal
        self.seed_changes = Signal(name="seed_changes")  # a commit would change HASH_SEED
        self.policy_changes = Signal(name="policy_changes")  # ... POLICY.MODE (predictor)
