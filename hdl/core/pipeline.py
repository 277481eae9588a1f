# SPDX-License-Identifier: Apache-2.0
"""``KvAsuCore``: the stages of the request pipeline, wired in the order a request meets
them: ``Admission`` -> the hash and its delay line -> ``WindowRead`` (R: the window start;
M: the window registered in bank order) -> ``LaneCompare`` (E1a: lane results) ->
``Versions`` (E1b: ``Decision`` versions, one picked) -> ``Commit`` (E2: T-level, table
write, LRU command, response; L) -> the response FIFO. ``Commit.forward`` (E2's write) is
wired back into the stages behind it in this one place.

See docs/rtl.md for the block diagram, the pipeline and the timing.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory

import regmap

from ..hash import Murmur3Hash64
from ..layouts import STAT_NAMES, response_layout
from ..lru import LruList
from ..scrubber import Scrubber
from ..table import GEN_WIDTH, BucketTable
from .admission import Admission
from .commit import Commit
from .interfaces import pmeta_layout, stage_layout
from .lanes import LaneCompare
from .observe import ObservationSignature
from .options import CoreOptions
from .predictor import PredictorCommit
from .predictor_carry import PredictorCarry
from .recovery import Recovery
from .signature import CoreSignature
from .timing import PipelineTiming, check_core_params
from .versions import Versions
from .window import WindowRead

__all__ = ["KvAsuCore"]


class KvAsuCore(wiring.Component):
    """KV-ASU core: answers OBSERVE / QUERY / EVICT / EVICT_ANY requests.

    Parameters
    ----------
    params : regmap.Params or None
        Elaboration parameters (``None``: the defaults). See ``check_core_params`` for the
        extra restriction of the RTL.
    options : CoreOptions or None
        The build choices (``None``: the defaults): serial or pipelined, the fast or the
        compact pipeline, the hash's multiplies. None changes what the core answers but
        ``predictor``, which adds the predictor mode (``hdl.core.predictor``) selected at
        run time by the ``policy`` port.
    hash : wiring.Component or None
        The hash (ports ``key`` In(64), ``seed`` In(32), ``hash`` Out(32), attribute
        ``latency``); ``None``: ``Murmur3Hash64`` as ``options`` say. The formal harness
        gives an abstract hash.
    memory : class
        The memory the table and the LRU list are built from (default
        ``amaranth.lib.memory.Memory``; the formal harness gives its register model).
    observe : bool
        Add the ``observe`` port (``False`` by default: real builds leave it out).
    gen_width : int
        Bits of the table generation (``hdl.table.GEN_WIDTH``, docs/spec-decisions.md
        D12); the formal harness uses fewer, which changes no logic but the width.

    Ports
    -----
    As ``CoreSignature(params, options, observation=...)`` lists them (``hdl.core.signature``).

    Attributes
    ----------
    timing : PipelineTiming
        The build's cycle counts, also as attributes of the core: ``latency``,
        ``eval_lag``, ``fifo_depth``, ``decision_lag``, ``evict_gap``, ``evict_evict_gap``,
        ``predictor_gap`` (``hdl.core.timing``).
    hash_latency : int
        The hash's latency (``Lh``).
    """

    def __init__(self, params=None, options=None, *, hash=None, memory=Memory, observe=False,
                 gen_width=GEN_WIDTH):
        params = check_core_params(params)
        options = CoreOptions.cast(options)
        if not isinstance(observe, bool):
            raise TypeError(f"observe must be a bool, not {observe!r}")
        if options.predictor and observe:
            raise ValueError("observe=True (the formal views) is not built for "
                             "CoreOptions.predictor")
        self.observed = observe
        self._params = params
        self.options = options
        protection = options.protection if options.protected else "none"
        if hash is None:
            hash = Murmur3Hash64(mul_stages=options.hash_mul_stages,
                                 lut_cross_products=options.hash_lut_cross_products)
        self.hash = hash
        self.hash_latency = hash.latency
        self.timing = timing = PipelineTiming(options, hash.latency)
        for name in ("eval_lag", "latency", "fifo_depth", "decision_lag", "evict_gap",
                     "evict_evict_gap", "predictor_gap"):
            setattr(self, name, getattr(timing, name))
        # (the fast pipeline's M is the table's registered read)
        self.table = BucketTable(params, memory=memory, gen_width=gen_width,
                                 output_register=options.m_stage, ram=options.block_ram,
                                 match=options.tag_compare,
                                 protection=protection,
                                 pmeta_width=pmeta_layout().size if options.predictor else 0)
        self.lru = LruList(params, registered=options.lru_registered, memory=memory,
                           observe=observe, protection=protection)
        self.recovery = Recovery(params.ENTRIES) if options.protected else None
        self.scrubber = Scrubber(params, lag=self.eval_lag)
        self.fifo = SyncFIFOBuffered(width=response_layout(params).size, depth=self.fifo_depth)
        self.admission = Admission(params, options, fifo_depth=self.fifo_depth,
                                   evict_gap=self.evict_gap,
                                   evict_evict_gap=self.evict_evict_gap,
                                   predictor_gap=self.predictor_gap,
                                   gen_width=gen_width)
        self.window = WindowRead(params, options)
        self.lanes = LaneCompare(params, options)
        self.versions = Versions(params, options)
        self.commit = Commit(params, registered=options.split_evaluation,
                             protected=options.protected)
        # The predictor mode (CoreOptions.predictor, POLICY.MODE = 1): its own E1b / E2 / L
        # and lists beside the article's, with its own admission rule (hdl/core/predictor.py).
        self.predictor = (PredictorCommit(params, memory=memory) if options.predictor
                          else None)
        self.predictor_carry = (PredictorCarry(params, hash_latency=self.hash_latency)
                                if options.predictor else None)
        observation = (ObservationSignature(
            params, hash_latency=self.hash_latency, fifo_depth=self.fifo_depth,
            lru_pending_layout=self.lru.signature.members["pending"].shape,
            lru=self.lru.signature.members["observe"].signature) if observe else None)
        super().__init__(CoreSignature(params, options, observation=observation))

    def elaborate(self, platform):
        m = Module()
        p = self._params
        cfg = self.cfg
        m.submodules.hash = hsh = self.hash
        m.submodules.table = table = self.table
        m.submodules.lru = lru = self.lru
        m.submodules.scrubber = scrub = self.scrubber
        m.submodules.fifo = fifo = self.fifo
        m.submodules.admission = admission = self.admission
        m.submodules.window = window = self.window
        m.submodules.lanes = lanes = self.lanes
        m.submodules.versions = versions = self.versions
        m.submodules.commit = commit = self.commit
        protected = self.options.protected
        pred = self.predictor
        if pred is not None:
            m.submodules.predictor = pred
            policy = self.policy
        hold, flush = self.hold, self.flush
        if protected:
            m.submodules.recovery = rec = self.recovery
            hold, flush = Signal(name="hold_or_recovery"), Signal(name="flush_or_recovery")
            m.d.comb += [hold.eq(self.hold | rec.active), flush.eq(self.flush | rec.flush)]
        # E2's write and invalidate: the one way back, into the table and into the stages
        # behind E2, wired here and nowhere else.
        # (With protection, the forward from E2's registers before the recovery's poison:
        # ``Commit.forward_ahead``.)
        fwd = commit.forward_ahead if protected else commit.forward
        for stage in (lanes, versions):
            for name in fwd.signature.members:
                value = getattr(fwd, name)
                if pred is not None and stage is lanes:
                    # (the predictor mode's E2 is its own stage's: its write into E1a)
                    value = Mux(policy, getattr(pred.forward, name), value)
                m.d.comb += getattr(stage.forward, name).eq(value)

        # ---- admission: credits, the EVICT gap, the clear sweep; s0 ---------------------
        wiring.connect(m, wiring.flipped(self.req), admission.req)
        m.d.comb += [
            admission.enable.eq(self.enable), admission.hold.eq(hold),
            admission.nonblocking.eq(self.nonblocking),
            admission.flush.eq(self.flush), admission.cycle.eq(self.cycle),
            admission.pop.eq(fifo.r_rdy & self.rsp.ready),
            self.idle.eq(admission.idle), self.flushing.eq(admission.flushing),
            table.clear_en.eq(admission.flushing), table.clear_row.eq(admission.sweep_row),
            table.generation.eq(admission.generation),
        ]

        # ---- the hash, and the request beside it (s0 .. s[Lh]) --------------------------
        lh = self.hash_latency
        s = [admission.s0] + [Signal(stage_layout(p), name=f"s{k}") for k in range(1, lh + 1)]
        m.d.sync += [s[k].eq(s[k - 1]) for k in range(1, lh + 1)]
        m.d.comb += [hsh.key.eq(s[0].tag), hsh.seed.eq(cfg.hash_seed)]
        m.d.comb += admission.busy.eq(Cat(*(x.valid for x in s[1:]), window.busy,
                                          lanes.busy, commit.busy,
                                          *([pred.busy] if pred is not None else [])).any())
        if pred is not None:
            m.d.comb += admission.policy.eq(policy)

        # ---- R and M: the window read (at the LRU tail for an EVICT) --------------------
        m.d.comb += [window.request.eq(s[lh]), window.hash.eq(hsh.hash[:p.SLOT_WIDTH]),
                     window.tail.eq(lru.evict_slot if pred is None else
                                    Mux(policy, pred.evict_start, lru.evict_slot)),
                     window.cfg.eq(cfg),
                     window.ahead.eq(lanes.lanes.request),
                     window.ahead_start.eq(lanes.lanes.start),
                     table.rd_slot.eq(window.rd_slot),
                     # (the tag the table compares its bypassed words with: M's request)
                     table.rd_tag.eq(window.m.request.tag)]
        m.d.comb += [getattr(window, name).eq(getattr(table, name)) for name in (
            "bk_tag", "bk_count", "bk_last", "bk_valid", "bk_fresh", "bk_mark_raw", "bk_row",
            "bk_sc_row_hit", "bk_sides")]

        # ---- E1a: lanes compared, E2's write forwarded into them ------------------------
        m.d.comb += [lanes.window.eq(window.window), lanes.cfg.eq(cfg),
                     lanes.sc_mark_intent.eq(table.sc_mark_intent),
                     lanes.sc_mark_value.eq(table.sc_mark_value),
                     lanes.sc_mark_row_next.eq(table.sc_mark_row_next)]

        # ---- E1b: a decision for every lane E2 may write, one picked ----------------------
        m.d.comb += [versions.lanes.eq(lanes.lanes), versions.list_empty.eq(lru.empty),
                     versions.sc_mark_intent.eq(table.sc_mark_intent),
                     versions.sc_mark_value.eq(table.sc_mark_value)]

        # ---- E2: T-level, table write, LRU command, response; L -------------------------
        decision = versions.decision
        if protected:
            # D11: from the cycle d a recovery starts in, every decision entering E2 is an
            # untracked line with no effect (no match, no free lane, no victim, no tail, no
            # write): E2 registers the poison beside the decision and applies it
            # (``Commit.poison``). (A window word's check is made in E1a and registered:
            # the error of cycle d is in the window of the request then in E1b, which
            # decides in d.)
            m.d.comb += commit.poison.eq(rec.active | rec.error)
        m.d.comb += [commit.decision.eq(decision), commit.cfg.eq(cfg),
                     commit.flush.eq(flush)]
        # The POP E2 gives, from its decision register (E2's invalidate: an EVICT that
        # takes the tail; the recovery's poison applied), for the slot an
        # EVICT in R reads, without the LRU command's decode.
        m.d.comb += lru.pop_now.eq(commit.forward.invalidate)
        # No LRU command in E2, from E2's registers without the OBSERVE's outcome (an
        # OBSERVE may give none, a drop, and then the list's chain skips that cycle's
        # refill): the list's read address chooses between the command's slot and the
        # chain's refill by this, not by the command's decode.
        d2 = commit.e2
        no_cmd = ~d2.valid | (d2.op == regmap.OPS["QUERY"]) | (d2.op[1] & ~d2.take)
        m.d.comb += lru.no_cmd.eq(no_cmd if pred is None else policy | no_cmd)
        if pred is None:
            m.d.comb += self._commit_writes()
            m.d.comb += [lru.slot.eq(commit.lru_slot), lru.flush.eq(flush)]
        else:
            self._predictor(m, policy, flush)
        # A drop's increment, delayed to one cycle before a request's (D13).
        dropped = admission.dropped
        for k in range(self.latency - 3):
            dropped_q = Signal(name=f"dropped_q{k}")
            m.d.sync += dropped_q.eq(dropped)
            dropped = dropped_q
        drop_bit = STAT_NAMES.index("req_dropped")
        stat_inc = commit.stat_inc if pred is None else Mux(policy, pred.stat_inc,
                                                            commit.stat_inc)
        m.d.comb += self.stat_inc.eq(stat_inc | (dropped << drop_bit))

        # ---- the scrubber: stale marks through the table's row port -----------------------
        m.d.comb += [
            scrub.cycle.eq(self.cycle),
            table.sc_row.eq(scrub.sc_row),
            scrub.sc_last.eq(table.sc_last),
            scrub.sc_valid.eq(table.sc_valid),
            table.sc_set.eq(scrub.sc_set),
        ]

        # ---- the response FIFO ----------------------------------------------------------
        rsp_valid, rsp_payload = commit.response.valid, commit.response.payload
        if pred is not None:
            rsp_valid = Mux(policy, pred.response.valid, rsp_valid)
            rsp_payload = Mux(policy, pred.response.payload, rsp_payload)
        m.d.comb += [
            fifo.w_en.eq(rsp_valid), fifo.w_data.eq(rsp_payload),
            self.rsp.valid.eq(fifo.r_rdy), self.rsp.payload.eq(fifo.r_data),
            fifo.r_en.eq(self.rsp.ready),
        ]
        if protected:
            self._errors(m, rec)
        if self.observed:
            self._observe(m, s)
        return m

    def _predictor(self, m, policy, flush):
        """The predictor mode (``options.predictor``): the table's and the lists' writes
        are the predictor stage's while ``policy`` is 1, else the article's. Its inputs of
        E1b travel with the request in ``PredictorCarry``; its E2 write goes into E1a's
        ``pmeta`` words there, and into E1a's lanes where ``elaborate`` wires the forward
        (chosen by ``policy``)."""
        pred, table, lru, carry = self.predictor, self.table, self.lru, self.predictor_carry
        m.submodules.predictor_carry = carry
        m.d.comb += [
            carry.hash_sig.eq(self.hash.hash[16:32]), carry.s0_free.eq(self.admission.s0_free),
            carry.lane_slot.eq(self.window.window.lane_slot), carry.bk_pmeta.eq(table.bk_pmeta),
            carry.pm_en.eq(pred.pm_en), carry.pm_slot.eq(pred.pm_slot),
            carry.pm_data.eq(pred.pm_data),
            pred.active.eq(policy), pred.lanes.eq(self.lanes.lanes), pred.pmeta.eq(carry.pmeta),
            pred.sig.eq(carry.sig), pred.cfg.eq(self.cfg), pred.flush.eq(flush),
            pred.free_r.eq(carry.free_r), pred.free.eq(carry.free),
            pred.sc_mark_intent.eq(table.sc_mark_intent),
            pred.sc_mark_value.eq(table.sc_mark_value),
            table.pm_en.eq(pred.pm_en), table.pm_slot.eq(pred.pm_slot),
            table.pm_data.eq(pred.pm_data),
            lru.slot.eq(self.commit.lru_slot), lru.flush.eq(flush),
        ]
        with m.If(policy):
            m.d.comb += [
                table.wr_en.eq(pred.wr_en), table.wr_slot.eq(pred.wr_slot),
                table.wr_count.eq(pred.wr_count), table.wr_tag.eq(pred.wr_tag),
                table.wr_last.eq(pred.wr_last), table.wr_mark.eq(pred.wr_mark),
                table.inv_en.eq(pred.inv_en), table.inv_slot.eq(pred.inv_slot),
                self.occupancy.eq(pred.occupancy),
            ]
        with m.Else():
            m.d.comb += self._commit_writes()

    def _commit_writes(self):
        """The article mode's E2 into the table and the LRU list: the write and the
        invalidate (``commit.forward``), the LRU command and the occupancy."""
        table, lru, commit = self.table, self.lru, self.commit
        fwd = commit.forward
        return [
            table.wr_en.eq(fwd.write), table.wr_slot.eq(fwd.slot),
            table.wr_count.eq(fwd.count), table.wr_tag.eq(fwd.tag),
            table.wr_last.eq(fwd.last), table.wr_mark.eq(fwd.mark),
            table.inv_en.eq(fwd.invalidate), table.inv_slot.eq(fwd.window),
            lru.cmd.eq(commit.lru_cmd),
            self.occupancy.eq(commit.occupancy),
        ]

    def _errors(self, m, rec):
        """D11: the table's and the LRU list's checks, the recovery and its sweep. Every
        check is registered before it is used: the recovery starts from the registered
        checks (``err_uncorrectable``, the detection cycle ``d``), and the report collected from
        them (which memory, which slot) is registered once more for the register block."""
        table, lru = self.table, self.lru
        rows = table.rows
        table_first = table.err_uncorrectable | (table.err_corrected & ~lru.err_uncorrectable)
        # The report of the detection cycle, registered for the register block.
        m.d.sync += [
            self.err_started.eq(rec.start),
            self.err_corrected.eq(table.err_corrected | lru.err_corrected),
            self.err_mem.eq(Mux(table_first, table.err_mem, lru.err_mem)),
            self.err_addr.eq(Mux(table_first, table.err_slot, lru.err_slot)),
        ]
        m.d.comb += [
            self.err_uncorrectable.eq(table.err_uncorrectable | lru.err_uncorrectable),
            rec.error.eq(self.err_uncorrectable),
            rec.idle.eq(self.admission.idle),
            self.recovery_start.eq(rec.start),
            self.recovering.eq(rec.active),
            lru.sweep_en.eq(rec.sweep_en), lru.sweep_addr.eq(rec.sweep_addr),
            table.sweep_en.eq(rec.sweep_en & (rec.sweep_addr < rows)),
            table.sweep_row.eq(rec.sweep_addr[:max(0, rows.bit_length() - 1)]),
        ]

    def _observe(self, m, s):
        """The ``observe`` port, from the stages' own ports."""
        obs, commit = self.observe, self.commit
        m.d.comb += [obs.hash_stage[k].eq(x) for k, x in enumerate(s)]
        m.d.comb += [getattr(obs.forward, name).eq(getattr(commit.forward, name))
                     for name in commit.forward.signature.members]
        m.d.comb += [
            obs.m.eq(self.window.m), obs.window.eq(self.window.window),
            obs.lanes.eq(self.lanes.lanes), obs.e2.eq(commit.e2),
            obs.l_valid.eq(commit.response.valid),
            obs.occupancy_inc.eq(commit.occupancy_inc),
            obs.occupancy_dec.eq(commit.occupancy_dec),
            obs.inflight.eq(self.admission.inflight), obs.fifo_level.eq(self.fifo.level),
            obs.sweep_row.eq(self.admission.sweep_row),
            obs.sc_mark_row.eq(self.table.sc_mark_row),
            obs.lru_pending.eq(self.lru.pending),
        ]
        m.d.comb += [getattr(obs.lru, name).eq(getattr(self.lru.observe, name))
                     for name in self.lru.observe.signature.members]
