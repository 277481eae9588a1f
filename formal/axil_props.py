# SPDX-License-Identifier: Apache-2.0
"""Property 6: the AXI4-Lite subordinate ``hdl.regs.KvAsuRegisters`` obeys the handshake
rules, answers every request exactly once, refused writes change nothing, and it keeps the
promises the core relies on.

Environment: the manager obeys AXI (once ``xVALID`` is high it stays high with a stable
payload until ``xREADY``); ``bready``/``rready`` free; the core-side inputs
(``core_idle``, ``occupancy``, ``stat_inc``) free except that ``core_idle`` falls only
after a cycle without ``hold``; ``core_flushing`` is the OR of the clear sweep, free except
that it rises only in the cycle after a ``flush`` or a reset cycle (and may then last any
number of cycles), and of a free signal (a protected build's recovery); ``cycle`` counts;
reset in the first cycle, free afterwards. The two assumptions on the core are asserted of
it (``CoreHarness.register_block_facts``, in ``stream_count_prove``).

Assertions:

* ``bvalid`` stays high with ``bresp`` stable until ``bready``; ``rvalid`` stays high with
  ``rdata``/``rresp`` stable until ``rready``;
* outstanding counts (harness counters): AW handshakes - B handshakes and W handshakes - B
  handshakes are 0 or 1, AR handshakes - R handshakes is 0 or 1; ``bvalid`` only while an
  AW *and* a W are outstanding; ``rvalid`` only while an AR is outstanding (so: no B
  without a preceding AW and W, no R without AR, one response per request);
* R comes at most 2 cycles after its AR handshake, but for a statistic's LO word (the only
  read ``stat_pend`` holds), which takes one more per stage of the block's ``stat_pend``
  shift register (the documented read latencies);
* a write answered ``SLVERR`` or ``DECERR`` changed nothing: in every cycle without a
  write response or with a refused one, ``cfg``, ``enable``, the modes (``nonblocking``,
  ``policy`` in a predictor build) and every shadow word are as in the cycle before
  (unless it was a reset cycle), and neither ``flush`` nor the clear pulses of the
  statistics and the soft-error registers is high; ``STATUS.ERROR`` does not change
  either, except that a refused commit (a CTRL write answered ``SLVERR``) sets it in the
  first cycle of its response;
* ``cfg`` is always a legal configuration, and changes only at a clock edge at which
  ``hold`` and ``core_idle`` were high (the core harness's assumption, D8);
* ``flush`` pulses only while ``hold`` and ``core_idle`` are high and the clear sweep is
  low (the core harness's assumption on ``flush``);
* ``nonblocking`` changes only while ``core_idle`` is high, and (``predictor=True``)
  ``policy`` only in a cycle with the ``flush`` pulse, both also after a reset (the
  predictor core harness's assumptions).
"""

from amaranth import *
from amaranth.hdl import Assert, Assume
from amaranth.hdl._ast import AnySeq

import regmap
from hdl.axil import AxiResp
from hdl.regs import KvAsuRegisters

from .common import config_legal_expr, reset_assumptions

__all__ = ["AxilHarness", "AxilProps"]


class AxilHarness(Elaboratable):
    def __init__(self, params, *, stats_stages=3, predictor=False):
        self.params = params
        self.stats_stages = stats_stages     # KvAsuRegisters(stats_stages=...)
        self.predictor = predictor           # KvAsuRegisters(predictor=...): POLICY.MODE

    def properties(self, m):
        raise NotImplementedError

    def elaborate(self, platform):
        m = Module()
        p = self.params
        regs = self.regs = KvAsuRegisters(p, stats_stages=self.stats_stages,
                                          predictor=self.predictor, observe=True)
        m.submodules.regs = regs
        # The register block's state and the subordinate's channel state, through the
        # block's observation port (hdl.regs.observe).
        self.obs = regs.observe
        reset_assumptions(m)
        bus = self.bus = regs.axil
        free = [bus.awaddr, bus.awprot, bus.awvalid, bus.wdata, bus.wstrb, bus.wvalid,
                bus.bready, bus.araddr, bus.arprot, bus.arvalid, bus.rready,
                regs.core_idle, regs.occupancy, regs.stat_inc]
        for sig in free:
            m.d.comb += sig.eq(AnySeq(len(sig)))
        # The core as the register block sees it. `core_flushing` is the core's clear sweep
        # (`sweep`) OR anything else (`other`: a protected build's recovery, free). The
        # sweep is free but for one rule: it rises only in the cycle after a `flush` or a
        # reset cycle (and then may last any number of cycles); `core_idle` falls only
        # after a cycle without `hold` (the core leaves idle only by accepting a request).
        # Both are asserted of the core (CoreHarness.register_block_facts). `stat_inc`
        # (the request statistics and, in the non-blocking mode, the drops, also while
        # idle) and `occupancy` are free.
        sweep, other = Signal(name="core_sweep"), Signal(name="core_other_busy")
        m.d.comb += [sweep.eq(AnySeq(1)), other.eq(AnySeq(1)),
                     regs.core_flushing.eq(sweep | other)]
        self.core_sweep = sweep
        sweep_prev, flush_prev = Signal(reset_less=True), Signal(reset_less=True)
        rst_prev = Signal(init=1, reset_less=True)       # also the first cycle
        m.d.sync += [sweep_prev.eq(sweep), flush_prev.eq(regs.flush),
                     rst_prev.eq(ResetSignal())]
        m.d.comb += Assume(~sweep | sweep_prev | flush_prev | rst_prev)
        idle_prev, hold_prev = Signal(init=1), Signal()
        m.d.sync += [idle_prev.eq(regs.core_idle), hold_prev.eq(regs.hold)]
        m.d.comb += Assume(~(idle_prev & ~regs.core_idle) | ~hold_prev)
        cyc = Signal(64)
        m.d.sync += cyc.eq(cyc + 1)
        m.d.comb += regs.cycle.eq(cyc)

        # Manager rules: VALID held with a stable payload until READY.
        for valid, ready, payload in ((bus.awvalid, bus.awready, Cat(bus.awaddr, bus.awprot)),
                                      (bus.wvalid, bus.wready, Cat(bus.wdata, bus.wstrb)),
                                      (bus.arvalid, bus.arready, Cat(bus.araddr, bus.arprot))):
            wait = Signal()
            prev = Signal(len(payload))
            m.d.sync += [wait.eq(valid & ~ready), prev.eq(payload)]
            m.d.comb += Assume(~wait | (valid & (payload == prev)))

        self.aw_hs = bus.awvalid & bus.awready
        self.w_hs = bus.wvalid & bus.wready
        self.b_hs = bus.bvalid & bus.bready
        self.ar_hs = bus.arvalid & bus.arready
        self.r_hs = bus.rvalid & bus.rready
        self.properties(m)
        return m


class AxilProps(AxilHarness):
    def properties(self, m):
        p = self.params
        bus, regs = self.bus, self.regs

        # Subordinate handshake rules.
        for valid, ready, payload in ((bus.bvalid, bus.bready, bus.bresp),
                                      (bus.rvalid, bus.rready, Cat(bus.rdata, bus.rresp))):
            wait = Signal()
            prev = Signal(len(payload))
            m.d.sync += [wait.eq(valid & ~ready), prev.eq(payload)]
            m.d.comb += Assert(~wait | (valid & (payload == prev)))

        # One response per request.
        aw_out, w_out, ar_out = Signal(range(4)), Signal(range(4)), Signal(range(4))
        m.d.sync += [aw_out.eq(aw_out + self.aw_hs - self.b_hs),
                     w_out.eq(w_out + self.w_hs - self.b_hs),
                     ar_out.eq(ar_out + self.ar_hs - self.r_hs)]
        m.d.comb += [
            Assert(aw_out <= 1), Assert(w_out <= 1), Assert(ar_out <= 1),
            Assert(~bus.bvalid | ((aw_out == 1) & (w_out == 1))),
            Assert(~bus.rvalid | (ar_out == 1)),
        ]
        # Read latency: R at most 2 cycles after AR, and for the LO word of a statistic one
        # more per stage of the block's `stat_pend` shift register (the block-RAM
        # statistics' read latency).
        obs, ch = self.obs, self.obs.axil
        stat_pend = obs.stat_pend
        pend_stages = len(stat_pend)
        r_wait = Signal(range(4))
        with m.If((ar_out == 1) & ~bus.rvalid):
            m.d.sync += r_wait.eq(r_wait + 1)
        with m.Else():
            m.d.sync += r_wait.eq(0)
        m.d.comb += Assert(r_wait <= 1 + pend_stages)
        # Helper invariants tying the counters to the block's own channel state.
        m.d.comb += [
            Assert(aw_out == ch.aw_full), Assert(w_out == ch.w_full),
            Assert(ar_out == (ch.ar_full | stat_pend.any() | bus.rvalid)),
            Assert(~(ch.ar_full & bus.rvalid)),
            Assert(~(ch.ar_full & stat_pend.any())),
            Assert(~(stat_pend.any() & bus.rvalid)),
            Assert(~ch.ar_full | (r_wait == 0)),
            Assert((r_wait == 0) | bus.rvalid | stat_pend.any()),
        ]
        # The subordinate waits for the register file exactly while a statistic's LO read
        # is in the engine; a CTRL action is sequenced only while its write is unanswered.
        m.d.comb += [
            Assert(ch.r_wait == stat_pend.any()),
            Assert(~obs.sequencing | ~bus.bvalid),
        ]
        # The address decodes registered with the words they decode (the subordinate's
        # mapped / writable / readable bits, the register file's one-hot read select).
        sub = self.regs.subordinate
        aw_word, ar_word = ch.aw_word, ch.ar_word
        m.d.comb += [
            Assert(~ch.aw_full |
                   ((ch.w_mapped == sub.word_in(aw_word, sub.readable)) &
                    (ch.w_writable == sub.word_in(aw_word, sub.writable)))),
            Assert(~ch.ar_full |
                   (ch.r_readable == sub.word_in(ar_word, sub.readable))),
            Assert(~ch.ar_full |
                   (obs.read_sel == Cat(ar_word == w for w in self.regs.read_words))),
        ]
        # Only a statistic's LO word waits in stat_pend: every other read is answered at
        # most 2 cycles after its AR (r_wait <= 1 above, with no stat_pend bit). The word
        # of the last AR handshake, recorded by the harness.
        ar_taken = Signal(len(bus.araddr), name="ar_taken")
        with m.If(self.ar_hs):
            m.d.sync += ar_taken.eq(bus.araddr)
        stat_lo = Cat((ar_taken >> 2) == (reg.offsets[0] >> 2) for reg in regmap.REGISTERS
                      if self.regs.kinds[reg.name] == "stat").any()
        m.d.comb += Assert(~stat_pend.any() | stat_lo)        # check: stat-pend-only-stat
        m.d.comb += Assert(stat_lo | (r_wait <= 1))           # check: read-latency-2
        m.d.comb += Assert(~ch.ar_full | (ch.ar_word == ar_taken >> 2))
        # stat_pend holds one bit at most, k + 1 cycles after the sample.
        m.d.comb += Assert((stat_pend & (stat_pend - 1))[:len(stat_pend)] == 0)
        for k in range(pend_stages):
            m.d.comb += Assert(~stat_pend[k] | (r_wait == k + 1))
        m.d.comb += [
            # HOLD (hold without the flush pulse) and RESP (bvalid) keep AW and W taken;
            # the flush pulse comes in the first RESP cycle.
            Assert(~(bus.bvalid | regs.hold) | (ch.aw_full & ch.w_full)),
            Assert(~regs.flush | bus.bvalid),
            # An action pulses in the first cycle of its write's OKAY response.
            Assert(~(regs.flush | obs.clear_stats | obs.clear_soft_error) |  # check: action-okay
                   (bus.bvalid & (bus.bresp == AxiResp.OKAY))),
        ]

        # Refused writes change nothing (D8). Stated for every cycle of no write response
        # or of a refused one (IDLE, HOLD, RESP with SLVERR / DECERR), so that it is
        # inductive: the configuration, the modes, ENABLE and the shadow words are as in
        # the cycle before (unless that was a reset cycle), and no action pulses. The one
        # exception is STATUS.ERROR, which a refused commit (a CTRL write answered SLVERR)
        # sets in the first cycle of its response; and it does set it.
        written = Cat(regs.cfg.as_value(), regs.enable, regs.nonblocking,
                      obs.shadow.as_value(), regs.policy if self.predictor else C(0, 0))
        written_prev = Signal(len(written), reset_less=True)
        error_prev = Signal(reset_less=True)
        bvalid_prev = Signal()
        after_reset = Signal(init=1, reset_less=True)    # also the first cycle
        m.d.sync += [written_prev.eq(written), error_prev.eq(obs.error),
                     bvalid_prev.eq(bus.bvalid), after_reset.eq(ResetSignal())]
        refused = (bus.bresp == AxiResp.SLVERR) | (bus.bresp == AxiResp.DECERR)
        at_ctrl = ch.aw_word == regmap.REG["CTRL"].offset >> 2
        commit_refused = bus.bvalid & (bus.bresp == AxiResp.SLVERR) & at_ctrl
        # Helper invariant for induction: only a CTRL write is sequenced.
        m.d.comb += Assert(~obs.sequencing | (ch.aw_full & at_ctrl))
        with m.If((~bus.bvalid | refused) & ~after_reset):
            m.d.comb += [
                Assert(written == written_prev),
                Assert(~regs.flush & ~obs.clear_stats & ~obs.clear_soft_error),  # check: refused-no-action
                Assert(obs.error == (error_prev | (commit_refused & ~bvalid_prev))),  # check: refused-error
            ]
        m.d.comb += Assert(~commit_refused | obs.error)   # check: refused-sets-error

        # cfg legal; changes only with hold and core_idle; flush only when allowed.
        cfg = regs.cfg
        m.d.comb += Assert(config_legal_expr(p, cfg))
        cfg_prev = Signal.like(regs.cfg)
        hold_idle_prev = Signal()
        m.d.sync += [cfg_prev.eq(cfg), hold_idle_prev.eq(regs.hold & regs.core_idle)]
        m.d.comb += Assert((cfg.as_value() == cfg_prev.as_value()) | hold_idle_prev)
        m.d.comb += Assert(~regs.flush | (regs.hold & regs.core_idle & ~self.core_sweep))  # check: flush-allowed
        # The modes as the predictor core's harness assumes them (formal/
        # predictor_core_props.py): POLICY.MODE changes only with a flush (or after a
        # reset); MODE.NONBLOCKING changes only while the core is idle (or after a reset).
        after_rst = Signal(init=1, reset_less=True)       # also the first cycle
        nonblocking_prev = Signal(reset_less=True)
        m.d.sync += [after_rst.eq(ResetSignal()), nonblocking_prev.eq(regs.nonblocking)]
        m.d.comb += Assert(after_rst | regs.core_idle | (regs.nonblocking == nonblocking_prev))
        # HASH_SEED changes only with a flush (or after a reset): the core's harness
        # (formal/common.py) keeps one hash for the whole run, which stands for every seed
        # only if lines placed under one seed are never looked up under another.
        seed_prev = Signal.like(cfg.hash_seed, reset_less=True)
        m.d.sync += seed_prev.eq(cfg.hash_seed)
        m.d.comb += Assert(after_rst | regs.flush | (cfg.hash_seed == seed_prev))  # check: seed-with-flush
        if self.predictor:
            policy_prev = Signal(reset_less=True)
            m.d.sync += policy_prev.eq(regs.policy)
            m.d.comb += Assert(after_rst | regs.flush | (regs.policy == policy_prev))  # check: policy-with-flush

        # Helper invariant for induction: while a CTRL action waits in HOLD, the registered
        # legality bit is current (the shadows cannot change in HOLD; hdl/regs/ctrl.py relies on
        # it: "always current when used").
        sh = {n: getattr(self.obs.shadow, n.lower()) for n in regmap.CONFIG_NAMES}
        mode = self.obs.shadow.mode              # D13: no reserved MODE bit
        mode_defined = sum(1 << f.bit for f in regmap.REG["MODE"].fields)
        # spec-predictor.md P2: no POLICY bit this (article) build defines
        policy = self.obs.shadow.policy
        policy_defined = regmap.mode_defined("POLICY", predictor=self.regs.predictor)
        legal_now = (config_legal_expr(p, sh) &
                     ((mode & ~mode_defined) == 0) & ((policy & ~policy_defined) == 0))
        with m.If(regs.hold & ~regs.flush):
            m.d.comb += Assert(self.obs.legal == legal_now)
