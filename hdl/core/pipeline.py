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
from amaranth.lib import wiring, stream
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

import regmap

from ..hash import Murmur3Hash64
from ..layouts import STAT_NAMES, check_params, config_layout, request_layout, response_layout
from ..lru import LruList, tail_lag
from ..scrubber import Scrubber
from ..table import GEN_WIDTH, BucketTable
from .admission import Admission
from .commit import Commit
from .interfaces import stage_layout
from .lanes import LaneCompare
from .observe import ObservationSignature
from .interfaces import pmeta_layout
from .predictor import PredictorCommit
from .options import CoreOptions
from .recovery import Recovery
from .versions import Versions
from .window import WindowRead

__all__ = ["KvAsuCore", "check_core_params"]


def check_core_params(params):
    """Raise ``ValueError`` for parameters the RTL cannot implement (beyond ``regmap``).

    * The scrubber visits one row of ``PROBE`` slots per cycle, so every slot once every
      ``ENTRIES / PROBE`` cycles; that must be at most ``2**(TS_WIDTH - 1)`` ticks, i.e.
      ``ENTRIES / PROBE <= 2**(TS_WIDTH - 1 + TICK_SHIFT)``, or a stored timestamp could
      alias before the scrubber marks it stale.
    """
    params = check_params(params)
    rows = params.ENTRIES // params.PROBE
    limit = 2 ** (params.TS_WIDTH - 1 + params.TICK_SHIFT)
    if rows > limit:
        raise ValueError(
            f"ENTRIES / PROBE ({rows}) must be at most 2**(TS_WIDTH - 1 + TICK_SHIFT) "
            f"({limit}): the scrubber visits one row of PROBE slots per cycle and must "
            f"visit every slot within 2**(TS_WIDTH-1) ticks (raise TS_WIDTH, TICK_SHIFT "
            f"or PROBE, or lower ENTRIES)")
    return params


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
    req : In(stream.Signature(request_layout(params)))
        Requests. ``ready`` is low while ``hold``, ``flush`` or ``flushing`` is high, while
        ``enable`` is low, while the response buffer has no room for one more response,
        and (not serial) for an EVICT / EVICT_ANY while an OBSERVE accepted in one of the
        ``evict_gap`` previous cycles, or an EVICT / EVICT_ANY accepted in one of the
        ``evict_evict_gap`` previous cycles, could still change the LRU tail it reads
        (``ready`` depends on ``req.payload.op``; a QUERY moves no tail, and nothing but an
        EVICT waits after an EVICT). With ``policy`` 1 (``options.predictor``) instead: in
        the two cycles after an EVICT / EVICT_ANY (its FREEs), and for an EVICT /
        EVICT_ANY while an OBSERVE, EVICT or FREE was accepted in one of the
        ``predictor_gap`` previous cycles.
        Serial mode: also while any request is in flight. With ``nonblocking`` high,
        ``ready`` is high instead and the request is dropped in those cycles.
    rsp : Out(stream.Signature(response_layout(params)))
        Responses, one per accepted request, in order. Fixed latency ``latency`` cycles
        from acceptance to ``valid`` when the consumer keeps up.
    cfg : In(config_layout(params))
        Active configuration. Must not change while a request is in flight.
    enable : In(1)
        Requests are accepted only while high.
    nonblocking : In(1)
        ``MODE.NONBLOCKING`` (docs/spec-decisions.md D13): ``req.ready`` is high and a
        request the core could not take (every reason above) is dropped, without a
        response; it counts in ``stat_inc``'s ``req_dropped`` bit ``latency - 3`` cycles
        later (one cycle before a request's own increments would come), which puts it on
        the right side of a CLEAR_STATS (``KvAsuRegisters.stat_lag``).
    hold : In(1)
        Requests are not accepted while high.
    flush : In(1)
        One-cycle pulse: untrack every line (only while no request is in flight and not
        ``flushing``). The LRU list and the occupancy are empty at the end of the pulse
        cycle, and the table starts a new generation (``Admission``); every
        ``2**GEN_WIDTH``-th flush or reset instead clears the table's valid bits by a sweep
        (``flushing``), docs/spec-decisions.md D12.
    idle : Out(1)
        No accepted request has a state update or a statistics increment still pending.
        A register: it rises one cycle after the last stage has emptied.
    flushing : Out(1)
        The clear sweep is running: high from the cycle after a ``flush`` pulse or a reset
        that finds every table generation used, for ``ENTRIES / PROBE`` cycles (one table
        row per cycle; the valid bits are in block RAM, which a reset does not clear).
    occupancy : Out(SLOT_WIDTH + 1)
        Number of tracked lines: a request's insert or eviction counts in the cycle its
        response enters the response FIFO (L, one cycle after E2), with its statistics.
    stat_inc : Out(len(STAT_NAMES))
        Bit ``i``: increment statistic ``STAT_NAMES[i]`` this cycle.
    cycle : In(64)
        The cycle counter (``Timebase.cycle``); a request accepted while ``cycle == c``
        has time ``c >> TICK_SHIFT``.
    policy : In(1)
        Only with ``options.predictor``: the committed ``POLICY.MODE``
        (docs/spec-predictor.md P2): 1 answers by the predictor mode (OBSERVE and QUERY
        one per cycle; an EVICT with its two FREEs behind it, ``predictor_gap``).
        Changes only with a flush, while no request is in flight.
    observe : Out(ObservationSignature(...))
        Only with ``observe=True``: the state of every stage in flight, for the formal
        harness (see ``ObservationSignature``).
    err_uncorrectable : Out(1)
        Only with protection (``options.protection``, docs/spec-decisions.md D11): a table
        or LRU read's registered check failed this cycle (the recovery's ``error``).
    recovery_start : Out(1), recovering : Out(1)
        Only with protection: a recovery starts this cycle (an uncorrectable error with
        none running: the cycle ``d`` of D11); a recovery is running (``req.ready`` low,
        ``Recovery``).
    err_started, err_corrected : Out(1), err_mem : Out(4), err_addr : Out(SLOT_WIDTH)
        Only with protection: the report of the cycle before (registers): a recovery
        started in it (``recovery_start`` a cycle later); a table or LRU read's check
        found a corrected word; the memory (``regmap.MEM_IDS``) and slot of its first error
        (the table's before the LRU's, uncorrectable before corrected).

    Attributes
    ----------
    latency : int
        Cycles from the acceptance edge to the edge at which the response can be taken
        (consumer ready).
    eval_lag : int
        Cycles from acceptance to the evaluation stage (also the scrubber's lag).
    evict_gap : int
        An EVICT / EVICT_ANY is accepted only when no OBSERVE was accepted in the
        ``evict_gap`` cycles before it (6 by default, 2 in the compact pipeline)...
    evict_evict_gap : int
        ... and no EVICT / EVICT_ANY in the ``evict_evict_gap`` cycles before it (3 by
        default: back-to-back EVICTs at one per 4 cycles; 2 in the compact pipeline).
    predictor_gap : int or None
        With ``CoreOptions.predictor``, while ``policy`` is 1: an EVICT / EVICT_ANY is
        accepted only when no OBSERVE, EVICT or FREE was accepted in the
        ``predictor_gap`` cycles before it (7 by default; two FREEs follow every EVICT:
        back-to-back EVICTs at one per 10 cycles, the request after an EVICT waits 2).
    decision_lag : int
        ``D`` of D11: cycles from a request's acceptance to the cycle after its decision
        is made (E2; ``eval_lag + 2``): a recovery that starts in cycle ``d`` poisons the
        decisions made from ``d`` on (E1b in ``d`` or later), so it answers the requests
        accepted in ``d - decision_lag + 1 .. d`` as untracked lines.
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
        eval_stages = 3 if options.split_evaluation else 1     # E1a, E1b, E2 or E
        if hash is None:
            hash = Murmur3Hash64(mul_stages=options.hash_mul_stages,
                                 lut_cross_products=options.hash_lut_cross_products)
        self.hash = hash
        self.hash_latency = hash.latency
        # acceptance (cycle a) -> s0 (a+1) -> ... -> R (a+1+Lh) [-> M] -> E1a or E
        # [-> E1b -> E2] -> L; L writes the FIFO, which shows it 2 cycles later (r_rdy).
        self.eval_lag = self.hash_latency + 2 + options.m_stage
        self.latency = self.eval_lag + 2 + eval_stages
        self.fifo_depth = self.latency + 2
        self.decision_lag = self.eval_lag + 2
        # An EVICT reads the table in R at the LRU tail, which shows the LRU command of
        # the request ahead (given in E2) tail_lag cycles later: the cycles before an
        # EVICT's acceptance that must be free of OBSERVE acceptances.
        self.evict_gap = (options.m_stage + eval_stages +
                          tail_lag(options.lru_registered) - 1)
        # Behind EVICTs only, the LRU list's chain gives in R the tail their POPs leave,
        # once each has its POP (or none) in an E2 register (lru.pop_now): the cycles
        # before an EVICT's acceptance that must be free of EVICT acceptances. (The compact
        # pipeline's list has no chain.)
        self.evict_evict_gap = (options.m_stage + eval_stages - 1 if options.lru_registered
                                else self.evict_gap)
        # The predictor mode's EVICT is followed by two FREEs (docs/rtl-predictor.md,
        # "EVICT in this mode"); the second reads in R, two cycles after the EVICT's R, the
        # ghost list's gtail2 prefetch, valid 2 * tail_lag cycles after the last list move
        # (given in E2): the cycles before an EVICT's acceptance free of moves.
        self.predictor_gap = (max(self.evict_gap, options.m_stage + eval_stages
                                  + 2 * tail_lag(options.lru_registered) - 3)
                              if options.predictor else None)
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
        ports = {
            "req": In(stream.Signature(request_layout(params))),
            "rsp": Out(stream.Signature(response_layout(params))),
            "cfg": In(config_layout(params)),
            "enable": In(1),
            "nonblocking": In(1),
            "hold": In(1),
            "flush": In(1),
            "idle": Out(1),
            "flushing": Out(1),
            "occupancy": Out(params.SLOT_WIDTH + 1),
            "stat_inc": Out(len(STAT_NAMES)),
            "cycle": In(64),
        }
        if options.predictor:
            ports["policy"] = In(1)
        if options.protected:
            ports.update({"err_uncorrectable": Out(1), "err_started": Out(1),
                          "err_corrected": Out(1),
                          "err_mem": Out(4), "err_addr": Out(params.SLOT_WIDTH),
                          "recovery_start": Out(1), "recovering": Out(1)})
        if observe:
            ports["observe"] = Out(ObservationSignature(
                params, hash_latency=self.hash_latency, fifo_depth=self.fifo_depth,
                lru_pending_layout=self.lru.signature.members["pending"].shape,
                lru=self.lru.signature.members["observe"].signature))
        super().__init__(ports)

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
            self._predictor(m, s, policy, flush)
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

    def _predictor(self, m, s, policy, flush):
        """The predictor mode (``options.predictor``): the table's and the lists' writes
        are the predictor stage's while ``policy`` is 1, else the article's; its inputs
        (the lanes in E1b, their ``pmeta`` words, the signature) are carried here with the
        request to E1b, and the mode's E2 write goes into E1a's ``pmeta`` words here and
        into its lanes where ``elaborate`` wires the forward (chosen by ``policy``)."""
        p, pred, table, lru = self._params, self.predictor, self.table, self.lru
        commit, window, lanes = self.commit, self.window, self.lanes
        P = p.PROBE
        pb = P.bit_length() - 1
        lh = self.hash_latency
        # The signature (P11): bits 31..16 of the hash, taken in R, carried with the
        # request through M and E1a to E1b.
        sig_m, sig_e1a, sig = (Signal(16, name=f"pred_sig_{x}") for x in ("m", "e1a", "e1b"))
        m.d.sync += [sig_m.eq(self.hash.hash[16:32]), sig_e1a.eq(sig_m), sig.eq(sig_e1a)]
        # A FREE's flags (Admission.s0_free) go with it from s0 to R (its window start)
        # and on through M and E1a to E1b.
        free = [self.admission.s0_free]
        names = [f"s{k}" for k in range(1, lh + 1)] + ["m", "e1a", "e1b"]
        for name in names:
            stage = Signal(2, name=f"pred_free_{name}")
            m.d.sync += stage.eq(free[-1])
            free.append(stage)
        # The lanes' pmeta words, in E1a's cycle (the table's registered read, as E1a's
        # other words, with the mode's pmeta write of that cycle, E2's of the request two
        # ahead, forwarded as E1a forwards the table write), rotated into probe order and
        # registered for E1b.
        pm = Signal(pred.pmeta.shape(), name="pred_pmeta")
        win = window.window
        for i in range(P):
            bank = win.lane_slot[i][:pb]
            read = Array(table.bk_pmeta)[bank] if pb else table.bk_pmeta[0]
            written = pred.pm_en & (pred.pm_slot == win.lane_slot[i])
            m.d.sync += pm[i].eq(Mux(written, pred.pm_data, read))
        m.d.comb += [
            pred.active.eq(policy), pred.lanes.eq(lanes.lanes), pred.pmeta.eq(pm),
            pred.sig.eq(sig), pred.cfg.eq(self.cfg), pred.flush.eq(flush),
            pred.free_r.eq(free[lh]), pred.free.eq(free[-1].any()),
            pred.sc_mark_intent.eq(table.sc_mark_intent),
            pred.sc_mark_value.eq(table.sc_mark_value),
            table.pm_en.eq(pred.pm_en), table.pm_slot.eq(pred.pm_slot),
            table.pm_data.eq(pred.pm_data),
            lru.slot.eq(commit.lru_slot), lru.flush.eq(flush),
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
