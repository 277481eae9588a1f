# SPDX-License-Identifier: Apache-2.0
"""``KvAsuCore``: the stages of the request pipeline, wired in the order a request meets
them: ``Admission`` -> the hash and its delay line -> ``WindowRead`` (R: the window start;
M: the window registered in bank order) -> ``LaneCompare`` (E1a: lane results) ->
``Versions`` (E1b: ``Decision`` versions, one picked) -> ``Commit`` (E2: T-level, table
write, LRU command, response; L) -> the response FIFO. ``Commit.forward`` (E2's write) is
wired back into the stages behind it in this one place. What only some builds have is
wired by a function beside its component: the predictor mode's ``connect_predictor``
(``predictor_wiring.py``), the soft-error recovery's ``connect_recovery``
(``recovery.py``), the formal observation port's ``drive_observation`` (``observe.py``).

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
from .observe import ObservationSignature, drive_observation
from .options import CoreOptions
from .predictor import PredictorCommit
from .predictor_carry import PredictorCarry
from .predictor_wiring import connect_predictor
from .recovery import Recovery, connect_recovery
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
            connect_predictor(m, self, policy=policy, flush=flush,
                              article_writes=self._commit_writes())
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
            connect_recovery(m, rec, table=table, lru=lru, admission=admission, report=self)
        if self.observed:
            drive_observation(m, self.observe, hash_stage=s, admission=admission,
                              window=window, lanes=lanes, commit=commit, table=table,
                              lru=lru, fifo=fifo)
        return m

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
