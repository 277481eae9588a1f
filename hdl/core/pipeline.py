# SPDX-License-Identifier: Apache-2.0
"""``KvAsuCore``: the stages of the request pipeline, wired in the order a request meets
them: ``Admission`` -> the hash and its delay line -> ``WindowRead`` (R: the window start;
M: the window registered in bank order) -> ``LaneCompare`` (E1a: lane results) ->
``Versions`` (E1b: ``Decision`` versions, one picked) -> ``Commit`` (E2: T-level, table
write, LRU command, response; L) -> the response FIFO. ``Commit.forward`` (E2's write) is
wired back into the stages behind it in this one place. What sits beside the pipeline is
wired by a function beside its component: E2 into the table, the LRU list, the statistics
and the response FIFO (``connect_commit``, ``connect_response``: ``commit_wiring.py``,
with the predictor mode's ``connect_predictor``), the scrubber (``connect_scrubber``), the
soft-error recovery (``connect_recovery``: ``recovery.py``) and the formal observation
port (``drive_observation``: ``observe.py``).

See docs/rtl.md for the block diagram, the pipeline and the timing.
"""

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory

from ..hash import Murmur3Hash64
from ..layouts import response_layout
from ..lru import LruList
from ..scrubber import Scrubber, connect_scrubber
from ..table import GEN_WIDTH, BucketTable, check_gen_width
from .admission import Admission
from .commit import Commit
from .commit_wiring import connect_commit, connect_response
from .interfaces import pmeta_layout, stage_layout
from .lanes import LaneCompare
from .observe import ObservationSignature, drive_observation
from .options import CoreOptions, check_hash
from .predictor import PredictorCommit
from .predictor_carry import PredictorCarry
from .recovery import Recovery, connect_recovery, settle_cycles
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
        The build choices (``None``: the defaults). None changes what the core answers but
        ``predictor``, which adds the predictor mode selected by the ``policy`` port.
    hash : wiring.Component or None
        The hash (ports ``key`` In(64), ``seed`` In(32), ``hash`` Out(32), attribute
        ``latency``, an integer of at least 0, from which the core's timing follows);
        ``None``: ``Murmur3Hash64`` as ``options`` say. A ``Murmur3Hash64`` given must be
        the one ``options`` describe (``hash_mul_stages``, ``hash_lut_cross_products``),
        else the options would misstate the build's hash and its latency; another
        component stands in for it with a latency of its own (the formal harness gives an
        abstract hash).
    memory : class
        The memory the table and the LRU list are built from (default
        ``amaranth.lib.memory.Memory``; the formal harness gives its register model).
    observe : bool
        Add the ``observe`` port (``False`` by default: real builds leave it out).
    gen_width : int
        Bits of the table generation (``hdl.table.GEN_WIDTH``, docs/spec-decisions.md
        D12); the formal harness uses fewer, which changes no logic but the width. 1 to
        16 (``hdl.table.MAX_GEN_WIDTH``): every slot's word stores the generation, and at
        16 bits the clear sweep already runs only once in 65536 flushes, so a wider one
        would cost block RAM in every slot and buy nothing.

    Ports
    -----
    As ``CoreSignature(params, options, observation=...)`` lists them.

    Attributes
    ----------
    timing : PipelineTiming
        The build's cycle counts (``latency``, ``eval_lag``, ``fifo_depth``,
        ``decision_lag``, ``evict_gap``, ``evict_evict_gap``, ``predictor_gap``), each
        also an attribute of the core.
    hash_latency : int
        The hash's latency (``Lh``).
    """

    def __init__(self, params=None, options=None, *, hash=None, memory=Memory, observe=False,
                 gen_width=GEN_WIDTH):
        params = check_core_params(params)
        options = CoreOptions.cast(options)
        if not isinstance(observe, bool):
            raise TypeError(f"observe must be a bool, not {observe!r}")
        check_gen_width(gen_width)
        if options.predictor and observe:
            raise ValueError("observe=True (the formal views) is not built for "
                             "CoreOptions.predictor")
        self.observed = observe
        self._params = params
        self.options = options
        if hash is None:
            hash = Murmur3Hash64(mul_stages=options.hash_mul_stages,
                                 lut_cross_products=options.hash_lut_cross_products)
        check_hash(hash, options)
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
                                 protection=options.built_protection,
                                 pmeta_width=pmeta_layout().size if options.predictor else 0)
        self.lru = LruList(params, registered=options.lru_registered, memory=memory,
                           observe=observe, protection=options.built_protection)
        self.recovery = (Recovery(params.ENTRIES, settle_cycles(params))
                         if options.protected else None)
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
        policy = None
        if pred is not None:
            m.submodules.predictor = pred
            policy = self.policy
        hold, flush_or_recovery = self.hold, self.flush
        if protected:
            m.submodules.recovery = rec = self.recovery
            hold = Signal(name="hold_or_recovery")
            flush_or_recovery = Signal(name="flush_or_recovery")
            m.d.comb += [hold.eq(self.hold | rec.active),
                         flush_or_recovery.eq(self.flush | rec.flush)]
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
            # the core's flush only: a recovery zeroes the table with its own sweep
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
        if protected:
            # D11: from the cycle d a recovery starts in, every decision entering E2 is an
            # untracked line with no effect (``Commit.poison``). (A window word's check is
            # registered in E1a: cycle d's error is in the window of the request E1b
            # decides in d.)
            m.d.comb += commit.poison.eq(rec.active | rec.error)
        m.d.comb += [commit.decision.eq(versions.decision), commit.cfg.eq(cfg),
                     commit.flush.eq(flush_or_recovery)]
        connect_commit(m, self, policy=policy, flush=flush_or_recovery)

        # ---- the scrubber (stale marks through the table's row port); the response FIFO --
        connect_scrubber(m, scrub, table=table, cycle=self.cycle)
        connect_response(m, self, policy=policy)
        if protected:
            connect_recovery(m, rec, table=table, lru=lru, admission=admission, report=self)
        if self.observed:
            drive_observation(m, self.observe, hash_stage=s, admission=admission,
                              window=window, lanes=lanes, commit=commit, table=table,
                              lru=lru, fifo=fifo)
        return m
