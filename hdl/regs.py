# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU register block: AXI4-Lite subordinate, register file, control sequencing and
statistics counters.

Every register comes from ``regmap.REGISTERS`` (``regmap/kv_asu.toml``): this module holds no
address. What a register *is* follows from its entry: ``stat`` (a 64-bit statistics
counter), ``config`` (a shadow configuration word), ``active_of`` (the committed value of a
shadow), a constant ``reset`` on a read-only word (identification and parameters), the
``CTRL`` and ``STATUS`` field sets, and the live inputs ``OCCUPANCY`` and ``CYCLE``. A
register of any other kind makes the constructor raise, so the map cannot grow a register
that the RTL silently ignores. The behaviour is ``docs/spec-decisions.md`` D8; the
integrator's page is ``docs/registers.md``.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.wiring import In, Out

import regmap
from regmap import CONFIG_NAMES, REGISTERS

from .axil import AxiLiteSignature, AxiResp
from .layouts import STAT_NAMES, check_params, config_layout
from .stats import StatisticsCounters

__all__ = ["KvAsuRegisters"]

# Registers whose value is a live input of the block rather than state of its own.
_LIVE = ("OCCUPANCY", "CYCLE")
# CTRL action fields, in the order D8 applies them (COMMIT first: a refused commit stops the
# rest of the write).
_ACTIONS = ("COMMIT", "CLEAR_ERROR", "FLUSH", "CLEAR_STATS")


def _kind(reg):
    """What implements ``reg``; raises ``ValueError`` for a register this block cannot."""
    if reg.stat:
        kind, access = "stat", "ro"
    elif reg.config:
        kind, access = "shadow", "rw"
    elif reg.active_of:
        kind, access = "active", "ro"
    elif reg.name == "CTRL":
        kind, access = "ctrl", "ctrl"
    elif reg.name == "STATUS":
        kind, access = "status", "ro"
    elif reg.name in _LIVE:
        kind, access = "live", "ro"
    elif reg.reset is not None and not reg.wide:
        kind, access = "const", "ro"
    else:
        raise ValueError(f"register {reg.name}: the register block has no implementation "
                         f"for it; extend hdl/regs.py")
    if reg.access != access:
        raise ValueError(f"register {reg.name} of kind {kind} must have access {access!r}, "
                         f"not {reg.access!r}")
    if reg.wide and kind not in ("stat", "live"):
        raise ValueError(f"register {reg.name}: only counters and live inputs can be wide")
    return kind


class KvAsuRegisters(wiring.Component):
    """KV-ASU register block.

    An AXI4-Lite subordinate (32-bit data, ``regmap.AXIL_ADDR_WIDTH``-bit byte address) in
    front of the register file of ``regmap``. It owns the shadow and the active
    configuration, ``CTRL.ENABLE``, the sticky ``STATUS.ERROR``, the 64-bit statistics
    counters and the single high-word latch; it sequences CTRL actions between requests
    with the core (``hold`` / ``core_idle``).

    AXI4-Lite
        AW and W are accepted independently, in either order or together, one write at a
        time: after both have been taken ``awready`` and ``wready`` stay low until the B
        handshake. One read at a time: ``arready`` is low from the AR handshake until the R
        handshake. ``bvalid``/``rvalid`` and their payloads hold until ``bready``/``rready``.
        Address bits 1:0 and ``AxPROT`` are ignored. Latency: a read's R comes 2 cycles
        after its AR handshake (``stats_stages + 1``, 4 by default, for the LO word of a
        statistic), a plain write's B 2
        cycles after the later of the AW and W handshakes. Reads and writes proceed
        independently of each other.

    Responses (D8)
        Unmapped word: ``DECERR``, reads 0, a write changes nothing. Write to a read-only
        word (both halves of a 64-bit counter included): ``SLVERR``, changes nothing.
        Shadow configuration words store all 32 bits, byte by byte as ``wstrb`` says.

    CTRL
        A write without the byte 0 strobe does nothing (``OKAY``). A write with no action
        bit set only updates ``ENABLE``, at once. A write with any action bit set is
        applied between requests: the block raises ``hold``, waits for a cycle with
        ``core_idle`` high, ``core_flushing`` low (a flush already running finishes first)
        and ``stat_inc`` all zero, then in that cycle applies, in one step: COMMIT (if the
        shadow set is illegal: ``SLVERR``, ``STATUS.ERROR`` set and nothing else of the
        write happens), CLEAR_ERROR, FLUSH, CLEAR_STATS, ENABLE := the written bit. The new
        ``cfg`` and ``enable`` are driven from the next cycle, in which ``bvalid`` rises;
        ``hold`` stays high until the cycle after the B handshake, so no request is ever
        accepted at the edge of an action's write response (D8). When the write flushes
        (``FLUSH``, or a commit that changes ``HASH_SEED``), ``flush`` pulses in the cycle
        ``bvalid`` rises. **The write response comes with the flush pulse, before the flush
        has finished.** The core keeps its request ``ready`` low while it
        flushes; ``STATUS.BUSY`` reads 1 from the flush pulse on (``core_flushing``).

    64-bit words
        Reading the LO word of a counter (``CYCLE`` or a statistic) returns its low half and
        copies the high half of the same sample into the one 32-bit latch; reading any HI
        word returns the latch. The sample is the value in the cycle after the AR handshake.
        The statistics are a :class:`hdl.stats.StatisticsCounters` (block RAM and small
        pre-counters); the read path here reserves its engine in the AR handshake cycle,
        samples the counter in the next cycle and takes the value into RDATA and the latch
        ``stats.read_latency`` cycles after the sample, which keeps the engine's read
        contract (one read at a time, R at least two cycles after the sample).

    Parameters
    ----------
    params : regmap.Params or None
        Elaboration parameters (``None``: the defaults).
    stats_stages : int
        Passed to :class:`hdl.stats.StatisticsCounters` as ``stages`` (3, default: the
        block RAM's word is registered before the adder; 2: one cycle less, for small
        devices). The LO read of a statistic takes ``stats_stages + 1`` cycles from AR to R.

    Attributes
    ----------
    axil : In(AxiLiteSignature(regmap.AXIL_ADDR_WIDTH))
        The AXI4-Lite bus (this block is the subordinate).
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
    stats : hdl.stats.StatisticsCounters
        Not a port: the statistics counters, in ``STAT_NAMES`` order; testbenches read and
        preload them with ``stats.peek(ctx, i)`` and ``stats.poke(ctx, i, value)``.
    """

    def __init__(self, params=None, *, stats_stages=3):
        params = check_params(params)
        self.params = params
        # Classify every register now: an unknown register fails at construction.
        self._kinds = {reg.name: _kind(reg) for reg in REGISTERS}
        ctrl = regmap.REG["CTRL"]
        for name in ("ENABLE", *_ACTIONS):
            ctrl.field(name)  # raises KeyError naming a missing field
        if tuple(r.name for r in REGISTERS if r.config) != CONFIG_NAMES:
            raise ValueError(f"the shadow registers must be {CONFIG_NAMES}")
        if len(STAT_NAMES) != len([r for r in REGISTERS if r.stat]):
            raise ValueError("STAT_NAMES does not match the statistics registers")
        if params.SLOT_WIDTH + 1 > 32:
            raise ValueError(f"OCCUPANCY needs {params.SLOT_WIDTH + 1} bits, more than a "
                             f"32-bit register holds (ENTRIES = {params.ENTRIES})")

        cfg_init = {name.lower(): params.defaults[name] for name in CONFIG_NAMES}
        super().__init__({
            "axil": In(AxiLiteSignature(regmap.AXIL_ADDR_WIDTH)),
            "cfg": Out(config_layout(params), init=cfg_init),
            "enable": Out(1, init=ctrl.field("ENABLE").reset),
            "hold": Out(1),
            "flush": Out(1),
            "core_idle": In(1),
            "core_flushing": In(1),
            "occupancy": In(params.SLOT_WIDTH + 1),
            "stat_inc": In(len(STAT_NAMES)),
            "cycle": In(64),
        })
        # Created here rather than in elaborate() so that a testbench can reach them.
        self.stats = StatisticsCounters(count=len(STAT_NAMES), width=64, stages=stats_stages,
                                        src_loc_at=1)

    def elaborate(self, platform):
        m = Module()
        p = self.params
        bus = self.axil
        ctrl = regmap.REG["CTRL"]
        status = regmap.REG["STATUS"]

        def cbit(name):
            return ctrl.field(name).bit

        # ---- state ---------------------------------------------------------------------
        shadow = {name: Signal(32, name=f"shadow_{name.lower()}", init=p.defaults[name])
                  for name in CONFIG_NAMES}
        error = Signal()           # STATUS.ERROR, sticky
        hi_latch = Signal(32)      # the one HI-word latch of D8
        flush_pulse = Signal()     # drives `flush`: the cycle after an applied flush

        live = {"OCCUPANCY": self.occupancy, "CYCLE": self.cycle}

        # Commit legality and "the seed changes", registered for timing (the comparators
        # and a 32-bit equality would otherwise sit in front of cfg). They are
        # always current when used: a CTRL write is decoded at least two cycles after the
        # B handshake of the last shadow write and applied at least one cycle later.
        # The chains 1 <= C2 <= C3 <= COUNT_MAX and W3 <= W2 <= W1 <= WMAX hold exactly when
        # every word of a chain is zero above the width of its maximum and the chain holds
        # on the low bits, so the comparators are only that wide.
        legal = Signal()
        seed_changes = Signal()
        sh = shadow

        def chain(words, maximum, minimum=0):
            n = maximum.bit_length()
            lo = [sh[w][:n] for w in words]
            ok = Cat(sh[w][n:] == 0 for w in words).all()
            for a, b in zip(lo, lo[1:]):
                ok &= a <= b
            if maximum != (1 << n) - 1:
                ok &= lo[-1] <= maximum
            if minimum:
                ok &= lo[0] >= minimum
            return ok

        m.d.sync += [
            legal.eq(chain(["C2", "C3"], p.COUNT_MAX, minimum=1) &
                     chain(["W3", "W2", "W1"], p.WMAX)),
            seed_changes.eq(sh["HASH_SEED"] != self.cfg.hash_seed),
        ]

        # ---- statistics counters ---------------------------------------------------------
        # In block RAM (hdl/stats.py). Clearing waits for a cycle without increments (see
        # HOLD below) and happens in the next, the first cycle of RESP: a register, so the
        # HOLD decision (idle, legality) does not sit in front of the counters' resets. The
        # core is still held then, so `stat_inc` stays 0; an increment in the clear cycle
        # would count after the clear anyway. A read ordered after the B response is
        # sampled later still, so it sees the clear.
        clear_stats = Signal()
        m.submodules.stats = stats = self.stats
        m.d.comb += [stats.inc.eq(self.stat_inc), stats.clear.eq(clear_stats)]
        m.d.sync += clear_stats.eq(0)

        # ---- write channel -------------------------------------------------------------
        aw_full = Signal()
        aw_word = Signal(regmap.AXIL_ADDR_WIDTH - 2)
        w_full = Signal()
        w_data = Signal(32)
        w_strb = Signal(4)
        bresp = Signal(2)

        m.d.comb += [
            bus.awready.eq(~aw_full),
            bus.wready.eq(~w_full),
            bus.bresp.eq(bresp),
            self.flush.eq(flush_pulse),
        ]
        with m.If(bus.awvalid & ~aw_full):
            m.d.sync += [aw_full.eq(1), aw_word.eq(bus.awaddr[2:])]
        with m.If(bus.wvalid & ~w_full):
            m.d.sync += [w_full.eq(1), w_data.eq(bus.wdata), w_strb.eq(bus.wstrb)]

        any_action = Cat(w_data[cbit(name)] for name in _ACTIONS).any()

        m.d.sync += flush_pulse.eq(0)
        action_resp = Signal()      # the pending write response is a CTRL action's
        with m.FSM(name="write") as write_fsm:
            with m.State("IDLE"):
                with m.If(aw_full & w_full):
                    m.next = "RESP"
                    m.d.sync += [bresp.eq(AxiResp.OKAY), action_resp.eq(0)]
                    with m.Switch(aw_word):
                        for reg in REGISTERS:
                            kind = self._kinds[reg.name]
                            for off in reg.offsets:
                                with m.Case(off >> 2):
                                    if reg.access == "ro":
                                        m.d.sync += bresp.eq(AxiResp.SLVERR)
                                    elif kind == "shadow":
                                        # Byte by byte, so that WSTRB is the
                                        # flip-flops' enable and not a LUT per bit.
                                        reg_sig = shadow[reg.name]
                                        for b in range(4):
                                            with m.If(w_strb[b]):
                                                m.d.sync += reg_sig[8 * b:8 * b + 8].eq(
                                                    w_data[8 * b:8 * b + 8])
                                    elif kind == "ctrl":
                                        with m.If(w_strb[0] & any_action):
                                            m.next = "HOLD"
                                        with m.Elif(w_strb[0]):
                                            m.d.sync += self.enable.eq(w_data[cbit("ENABLE")])
                                    else:  # pragma: no cover - _kind() rules this out
                                        raise AssertionError(reg.name)
                        with m.Default():
                            m.d.sync += bresp.eq(AxiResp.DECERR)

            with m.State("HOLD"):
                # A CTRL action: stop the core taking requests, wait until every accepted
                # request has finished (and any running flush), then apply in one cycle.
                # A cycle with a statistics increment is not idle whatever core_idle says:
                # that increment belongs to a request from before the write, so it must
                # land before a CLEAR_STATS, never straddle it.
                with m.If(self.core_idle & ~self.core_flushing & ~self.stat_inc.any()):
                    m.next = "RESP"
                    m.d.sync += action_resp.eq(1)
                    commit = w_data[cbit("COMMIT")]
                    with m.If(commit & ~legal):
                        m.d.sync += [error.eq(1), bresp.eq(AxiResp.SLVERR)]
                    with m.Else():
                        m.d.sync += bresp.eq(AxiResp.OKAY)
                        with m.If(commit):
                            m.d.sync += [getattr(self.cfg, name.lower()).eq(shadow[name])
                                         for name in CONFIG_NAMES]
                        with m.If(w_data[cbit("CLEAR_ERROR")]):
                            m.d.sync += error.eq(0)
                        m.d.sync += flush_pulse.eq(w_data[cbit("FLUSH")] |
                                                   (commit & seed_changes))
                        m.d.sync += clear_stats.eq(w_data[cbit("CLEAR_STATS")])
                        m.d.sync += self.enable.eq(w_data[cbit("ENABLE")])

            with m.State("RESP"):
                m.d.comb += bus.bvalid.eq(1)
                with m.If(bus.bready):
                    m.next = "IDLE"
                    m.d.sync += [aw_full.eq(0), w_full.eq(0)]

        # `hold` stays high until the write response of an action has been taken (D8: no
        # request is accepted at the edge of that handshake, so requests and register
        # effects never tie), and through the flush pulse, so that the core sees hold, idle
        # and flush together and its `ready` stays low until `core_flushing` takes over.
        m.d.comb += self.hold.eq(write_fsm.ongoing("HOLD") |
                                 (write_fsm.ongoing("RESP") & action_resp) | flush_pulse)

        # ---- read channel --------------------------------------------------------------
        # AR is registered first and the data multiplexer sits alone in the next stage. The
        # LO word of a statistic takes more stages: the AR handshake cycle reserves the
        # counter engine (stats.rd_reserve), the next cycle samples the counter
        # (stats.rd_en) and stats.read_latency cycles later the engine's sum of the RAM
        # word and the pending increments (stats.rd_data) goes into RDATA and the HI latch.
        ar_full = Signal()
        ar_word = Signal(regmap.AXIL_ADDR_WIDTH - 2)
        # A statistic's LO read waiting for stats.rd_data: bit k is high k + 1 cycles after
        # the sample; the last bit takes the data.
        stat_pend = Signal(stats.read_latency)
        rvalid = Signal()
        rdata = Signal(32)
        rresp = Signal(2)
        ar_take = Signal()
        m.d.comb += [
            ar_take.eq(bus.arvalid & ~ar_full & ~stat_pend.any() & ~rvalid),
            bus.arready.eq(~ar_full & ~stat_pend.any() & ~rvalid),
            bus.rvalid.eq(rvalid),
            bus.rdata.eq(rdata),
            bus.rresp.eq(rresp),
            stats.rd_reserve.eq(ar_take),
        ]
        # Whether the address taken is a statistic's LO word, and which counter: decoded
        # from ARADDR in the handshake cycle and registered, so that the sample cycle
        # drives stats.rd_en and stats.rd_addr straight from flip-flops (the engine's
        # visit choice sits behind them).
        ar_stat_lo = Signal()
        ar_stat_idx = Signal(range(len(STAT_NAMES)))
        with m.If(ar_take):
            m.d.sync += [ar_full.eq(1), ar_word.eq(bus.araddr[2:]), ar_stat_lo.eq(0),
                         ar_stat_idx.eq(0)]
            with m.Switch(bus.araddr[2:]):
                for reg in REGISTERS:
                    if self._kinds[reg.name] == "stat":
                        with m.Case(reg.offsets[0] >> 2):
                            m.d.sync += [ar_stat_lo.eq(1),
                                         ar_stat_idx.eq(STAT_NAMES.index(reg.stat))]
        m.d.comb += [stats.rd_en.eq(ar_full & ar_stat_lo), stats.rd_addr.eq(ar_stat_idx)]
        with m.If(rvalid & bus.rready):
            m.d.sync += rvalid.eq(0)
        m.d.sync += stat_pend.eq(stat_pend << 1)    # a shift register
        with m.If(stat_pend[-1]):
            m.d.sync += [rvalid.eq(1), rdata.eq(stats.rd_data[:32]),
                         hi_latch.eq(stats.rd_data[32:64])]

        def read_value(reg):
            kind = self._kinds[reg.name]
            if kind == "const":
                return C(p.value_of(reg.reset), 32)
            if kind == "shadow":
                return shadow[reg.name]
            if kind == "active":
                return getattr(self.cfg, reg.active_of.lower())
            if kind == "live":
                return live[reg.name]
            if kind == "stat":
                return None   # read through self.stats
            if kind == "ctrl":
                # Action bits read as 0.
                return self.enable << cbit("ENABLE")
            if kind == "status":
                busy = self.core_flushing | flush_pulse
                return ((busy << status.field("BUSY").bit) |
                        (error << status.field("ERROR").bit))
            raise AssertionError(kind)  # pragma: no cover

        with m.If(ar_full):
            m.d.sync += [ar_full.eq(0), rvalid.eq(1), rresp.eq(AxiResp.OKAY), rdata.eq(0)]
            with m.Switch(ar_word):
                for reg in REGISTERS:
                    value = read_value(reg)
                    if self._kinds[reg.name] == "stat":
                        with m.Case(reg.offsets[0] >> 2):
                            # LO: sampled now (stats.rd_en from ar_stat_lo), RDATA and
                            # the latch later (see above).
                            m.d.sync += [rvalid.eq(0), stat_pend[0].eq(1)]
                        with m.Case(reg.offsets[1] >> 2):
                            m.d.sync += rdata.eq(hi_latch)
                    elif reg.wide:
                        with m.Case(reg.offsets[0] >> 2):
                            # LO: the low half now, the high half of this same sample into
                            # the latch.
                            m.d.sync += [rdata.eq(value[:32]), hi_latch.eq(value[32:64])]
                        with m.Case(reg.offsets[1] >> 2):
                            m.d.sync += rdata.eq(hi_latch)
                    else:
                        with m.Case(reg.offset >> 2):
                            m.d.sync += rdata.eq(value)
                with m.Default():
                    m.d.sync += rresp.eq(AxiResp.DECERR)

        return m
