# SPDX-License-Identifier: Apache-2.0
"""``KvAsuCore``: the stages of the request pipeline, wired in the order a request meets
them: ``Admission`` -> the hash and its delay line -> R (the window start) -> M (the window
registered in bank order) -> E1a (lane results) -> E1b (``Decision`` versions, one picked)
-> ``Commit`` (E2: T-level, table write, LRU command, response; L) -> the response FIFO.
R, M, E1a and E1b are still written inline here; ``Commit.forward`` (E2's write) is wired
back into them in this one place.

See docs/rtl.md for the block diagram, the pipeline and the timing.
"""

from amaranth import *
from amaranth.lib import wiring, data, stream
from amaranth.lib.fifo import SyncFIFOBuffered
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

import regmap

from ..hash import Murmur3Hash64
from ..layouts import STAT_NAMES, check_params, config_layout, request_layout, response_layout
from ..lru import LruCmd, LruList, tail_lag
from ..scrubber import Scrubber
from ..table import BucketTable, probe_order
from ..tlevel import TLevel, saturated_age
from .admission import Admission
from .commit import Commit
from .decision import Decision, sat_inc as _sat_inc
from .interfaces import bank_layout, decision_layout, lane_layout, stage_layout
from .options import CoreOptions

__all__ = ["KvAsuCore", "check_core_params"]

OBSERVE = regmap.OPS["OBSERVE"]
QUERY = regmap.OPS["QUERY"]
EVICT = regmap.OPS["EVICT"]
EVICT_ANY = regmap.OPS["EVICT_ANY"]
assert EVICT & 2 and EVICT_ANY & 2 and not OBSERVE & 2 and not QUERY & 2


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
        compact pipeline, the hash's multiplies. None changes what the core answers.
    hash : wiring.Component or None
        The hash (ports ``key`` In(64), ``seed`` In(32), ``hash`` Out(32), attribute
        ``latency``); ``None``: ``Murmur3Hash64`` as ``options`` say. The formal harness
        gives an abstract hash.
    memory : class
        The memory the table and the LRU list are built from (default
        ``amaranth.lib.memory.Memory``; the formal harness gives its register model).

    Ports
    -----
    req : In(stream.Signature(request_layout(params)))
        Requests. ``ready`` is low while ``hold``, ``flush`` or ``flushing`` is high, while
        ``enable`` is low, while the response buffer has no room for one more response,
        and (not serial) for an EVICT / EVICT_ANY while a request accepted in one of
        the ``evict_gap`` previous cycles could still change the LRU tail (``ready``
        depends on ``req.payload.op``), and with the split evaluation for any request in
        the cycle after an EVICT / EVICT_ANY was accepted.
        Serial mode: also while any request is in flight.
    rsp : Out(stream.Signature(response_layout(params)))
        Responses, one per accepted request, in order. Fixed latency ``latency`` cycles
        from acceptance to ``valid`` when the consumer keeps up.
    cfg : In(config_layout(params))
        Active configuration. Must not change while a request is in flight.
    enable : In(1)
        Requests are accepted only while high.
    hold : In(1)
        Requests are not accepted while high.
    flush : In(1)
        One-cycle pulse: untrack every line (only while no request is in flight and not
        ``flushing``). The LRU list and the occupancy are empty at the end of the pulse
        cycle; the table's valid bits are then cleared by a sweep (``flushing``).
    idle : Out(1)
        No accepted request has a state update or a statistics increment still pending.
        A register: it rises one cycle after the last stage has emptied.
    flushing : Out(1)
        The clear sweep is running: high from the cycle after a ``flush`` pulse, and from
        reset, for ``ENTRIES / PROBE`` cycles (one table row per cycle; the valid bits are
        in block RAM, which a reset does not clear).
    occupancy : Out(SLOT_WIDTH + 1)
        Number of tracked lines: a request's insert or eviction counts in the cycle its
        response enters the response FIFO (L, one cycle after E2), with its statistics.
    stat_inc : Out(len(STAT_NAMES))
        Bit ``i``: increment statistic ``STAT_NAMES[i]`` this cycle.
    cycle : In(64)
        The cycle counter (``Timebase.cycle``); a request accepted while ``cycle == c``
        has time ``c >> TICK_SHIFT``.

    Attributes
    ----------
    latency : int
        Cycles from the acceptance edge to the edge at which the response can be taken
        (consumer ready).
    eval_lag : int
        Cycles from acceptance to the evaluation stage (also the scrubber's lag).
    evict_gap : int
        An EVICT / EVICT_ANY is accepted only when no request was accepted in the
        ``evict_gap`` cycles before it (6 by default).
    """

    def __init__(self, params=None, options=None, *, hash=None, memory=Memory):
        params = check_core_params(params)
        options = CoreOptions.cast(options)
        self._params = params
        self.options = options
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
        # An EVICT reads the table in R at the LRU tail, which shows the LRU command of
        # the request ahead (given in E2) tail_lag cycles later: the cycles before an
        # EVICT's acceptance that must be free of acceptances.
        self.evict_gap = (options.m_stage + eval_stages +
                          tail_lag(options.lru_registered) - 1)
        self.table = BucketTable(params, memory=memory)
        self.lru = LruList(params, registered=options.lru_registered, memory=memory)
        self.scrubber = Scrubber(params, lag=self.eval_lag)
        self.fifo = SyncFIFOBuffered(width=response_layout(params).size, depth=self.fifo_depth)
        self.admission = Admission(params, options, fifo_depth=self.fifo_depth,
                                   evict_gap=self.evict_gap)
        self.commit = Commit(params, registered=options.split_evaluation)
        super().__init__({
            "req": In(stream.Signature(request_layout(params))),
            "rsp": Out(stream.Signature(response_layout(params))),
            "cfg": In(config_layout(params)),
            "enable": In(1),
            "hold": In(1),
            "flush": In(1),
            "idle": Out(1),
            "flushing": Out(1),
            "occupancy": Out(params.SLOT_WIDTH + 1),
            "stat_inc": Out(len(STAT_NAMES)),
            "cycle": In(64),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params
        P, sw, ts = p.PROBE, p.SLOT_WIDTH, p.TS_WIDTH
        cfg = self.cfg

        m.submodules.hash = hsh = self.hash
        m.submodules.table = table = self.table
        m.submodules.lru = lru = self.lru
        m.submodules.scrubber = scrub = self.scrubber
        m.submodules.fifo = fifo = self.fifo

        split = self.options.split_evaluation     # E1a, E1b, E2 (else one stage E)
        stage = stage_layout(p)

        # ---- admission: credits, the EVICT gap, the clear sweep; s0 -----------------------
        m.submodules.admission = admission = self.admission
        m.submodules.commit = commit = self.commit
        fwd = commit.forward          # E2's write, back into M, E1a and E1b (see there)
        wiring.connect(m, wiring.flipped(self.req), admission.req)
        m.d.comb += [
            admission.enable.eq(self.enable), admission.hold.eq(self.hold),
            admission.flush.eq(self.flush), admission.cycle.eq(self.cycle),
            admission.pop.eq(fifo.r_rdy & self.rsp.ready),
            self.idle.eq(admission.idle), self.flushing.eq(admission.flushing),
            table.clear_en.eq(admission.flushing), table.clear_row.eq(admission.sweep_row),
        ]

        # ---- the hash, and the request beside it (s0 .. s[Lh]) -----------------------------
        lh = self.hash_latency
        s = [admission.s0] + [Signal(stage, name=f"s{k}") for k in range(1, lh + 1)]
        for k in range(1, lh + 1):
            m.d.sync += s[k].eq(s[k - 1])
        m.d.comb += [hsh.key.eq(s[0].tag), hsh.seed.eq(cfg.hash_seed)]
        mreq = Signal(stage, name="mreq")     # M: the table's read data arrives
        e = Signal(stage, name="e")
        eb = Signal(stage, name="eb")         # E1b
        m.d.comb += admission.busy.eq(Cat(*(x.valid for x in s[1:]), mreq.valid, e.valid,
                                          eb.valid, commit.busy).any())

        # ---- R: window read (or the LRU tail for EVICT) --------------------------------
        r = s[lh]
        rd_slot = Signal(sw)
        m.d.comb += rd_slot.eq(Mux(r.op[1], lru.tail, hsh.hash[:sw]))
        m.d.comb += table.rd_slot.eq(rd_slot)
        m_h = Signal(sw)
        e_h = Signal(sw)
        if self.options.m_stage:
            m.d.sync += [mreq.eq(r), m_h.eq(rd_slot), e.eq(mreq), e_h.eq(m_h)]
        else:
            m.d.sync += [e.eq(r), e_h.eq(rd_slot)]

        # ---- M: register the window straight out of the block RAMs (bank order) -----------
        # with the table write / invalidate of this cycle snooped in, so E starts from
        # flip-flops; rotation into probe order happens in E.
        pb = P.bit_length() - 1
        mb = [Signal(bank_layout(p), name=f"mbank{b}") for b in range(P)]

        # ---- E1a + E1b (or E): analyse the window, decide -------------------------------
        # The decision `d` depends only on the window lanes; in the split evaluation the
        # commit stage registers it (E2) and does the rest (T-level, writes, LRU command,
        # response); E2's table write and invalidate (`fwd`) are forwarded into the lanes
        # of the request in E1a, and E1b picks one of its precomputed decisions by it. In
        # the compact pipeline E decides and the commit stage commits in the same cycle.
        decision = decision_layout(p)
        d = Signal(decision)

        # Slot of each lane: constant adds from the window start of the stage before E
        # (M, or R), registered alongside e_h: never behind the decision.
        pre_h = m_h if self.options.m_stage else rd_slot
        pre_req = mreq if self.options.m_stage else r     # the request in that stage
        lane_slots = [Signal(sw, name=f"lane_slot{i}") for i in range(P)]
        for i in range(P):
            m.d.sync += lane_slots[i].eq((pre_h + i)[:sw])

        def overlap(h_ahead, name):
            """Registered ``ov[i][j]``: lane i of the window starting at ``pre_h`` is lane j
            of the window starting at ``h_ahead`` (``pre_h - h_ahead == j - i`` mod
            ENTRIES), so that a forward finds the lane a request ahead writes from its
            one-hot ``fwd.lane`` with an AND-OR, not with slot comparators behind E2."""
            delta = Signal(sw, name=f"{name}_delta")
            m.d.comb += delta.eq(pre_h - h_ahead)
            ov = [Signal(P, name=f"{name}{i}") for i in range(P)]
            for i in range(P):
                for j in range(P):
                    m.d.sync += ov[i][j].eq(delta == ((j - i) % p.ENTRIES))
            return ov

        if split:
            eb_tail = Signal(sw)                # E1b's window start
            # The request in E2 while this one is in E1a is in E1b now; the one in E2
            # while this one is in E1b is in E1a now.
            e_ov = overlap(eb_tail, "e_ov")
            e_ov1 = overlap(e_h, "e_ov1")
            if self.options.m_stage:
                # The same for M's snoop, per bank: m_ov[b][j] is "the slot the request
                # entering M reads in bank b is lane j of the window of the request that
                # will be in E2 then" (in E1b now), so the snoop needs no slot comparator
                # behind E2's decision either.
                # (computed for both window starts R may take, the hash and the LRU tail,
                # from their registers, and chosen after: not behind R's multiplexer.
                # Lane i of the window at h is lane j of E1b's when h == eb_tail + j - i:
                # an equality with registered sums, no subtraction behind the tail.)
                eb_tail_plus = {k: Signal(sw, name=f"eb_tail_plus{k + P - 1}")
                                for k in range(-(P - 1), P)}
                m.d.sync += [x.eq((e_h + k)[:sw]) for k, x in eb_tail_plus.items()]

                def m_overlap(h, name):
                    ov = [Signal(P, name=f"{name}{b}") for b in range(P)]
                    for b in range(P):
                        for j in range(P):
                            lanes = [((h[:pb] + i)[:pb] == b if pb else Const(1)) &
                                     (h == eb_tail_plus[j - i]) for i in range(P)]
                            m.d.comb += ov[b][j].eq(Cat(*lanes).any())
                    return ov
                ov_hash = m_overlap(hsh.hash[:sw], "m_ov_hash")
                ov_tail = m_overlap(lru.tail, "m_ov_tail")
                m_ov = [Signal(P, name=f"m_ov{b}") for b in range(P)]
                for b in range(P):
                    m.d.sync += m_ov[b].eq(Mux(r.op[1], ov_tail[b], ov_hash[b]))

        # M (continued): the snoop of this cycle's write into each bank's register.
        # Without the window register the table's outputs feed E directly (the write of
        # the cycle before is then seen through the read port's transparency).
        for b in range(P):
            if not self.options.m_stage:
                # (the mark as read: the mark at the end of the cycle depends on this
                # cycle's write, which in the compact pipeline depends on these lanes)
                m.d.comb += [
                    mb[b].tag.eq(table.bk_tag[b]), mb[b].count.eq(table.bk_count[b]),
                    mb[b].last.eq(table.bk_last[b]), mb[b].valid.eq(table.bk_valid[b]),
                    mb[b].fresh.eq(table.bk_fresh[b]), mb[b].mark.eq(table.bk_mark_raw[b]),
                    mb[b].row.eq(table.bk_row[b]),
                    mb[b].sc_row_hit.eq(table.bk_row[b] == table.sc_mark_row),
                ]
                continue
            row_b = table.bk_row[b]
            # (E2 writes lane `fwd.lane` of its window and invalidates lane 0, the tail)
            written = fwd.write & (fwd.lane & m_ov[b]).any()
            gone = fwd.invalidate & m_ov[b][0]
            m.d.sync += [
                mb[b].tag.eq(Mux(written, fwd.tag, table.bk_tag[b])),
                mb[b].count.eq(Mux(written, fwd.count, table.bk_count[b])),
                mb[b].last.eq(Mux(written, fwd.last, table.bk_last[b])),
                mb[b].valid.eq(written | (table.bk_valid[b] & ~gone)),
                mb[b].fresh.eq(Mux(written, fwd.mark, table.bk_fresh[b])),
                mb[b].mark.eq(table.bk_mark[b]),
                mb[b].row.eq(row_b),
                mb[b].sc_row_hit.eq(row_b == table.sc_mark_row_next),
            ]

        # E: lanes in probe order (lane i is bank (lo + i) mod P). Staleness is as of the
        # end of the previous cycle; the mark a write must carry is the one at the end of
        # this cycle, so the scrubber's mark write of this cycle is applied to it.
        mark_now_b = Signal(P)
        for b in range(P):
            if not split:
                # E writes in this cycle: a scrubber mark of the slot it writes is dropped,
                # so the mark as held is the one to carry (and the snoop would depend on
                # E's own write).
                m.d.comb += mark_now_b[b].eq(mb[b].mark)
                continue
            # The scrubber's write as it intends it (`sc_mark_intent`), not as E2's write
            # may cancel it (`sc_mark_en`): it is cancelled only when E2 writes that slot, and
            # then the lane holding it is forwarded from E2 (fwd.mark), so the two agree on
            # every lane used, and the lanes do not wait for E2's decision.
            sc_hit = table.sc_mark_intent[b] & mb[b].sc_row_hit
            m.d.comb += mark_now_b[b].eq(Mux(sc_hit, table.sc_mark_value[b], mb[b].mark))

        # Lane i is bank (lo + i) mod P: the low bits of its slot, a register of its own
        # (so the rotation's select needs no add, and each lane's has its own fan-out).
        def rotated(values, i):
            return probe_order(values, lane_slots[i][:pb], 0)

        if split:
            # Forwarding of E2's write and invalidate (the request ahead) into this window,
            # compare-then-forward: which lane E2 writes is decided from E2's registered
            # slots (no late wr_slot mux in front of a comparator), and the forwarded lane's
            # match and age are computed from registers alongside the lanes' own, so the
            # forward is a 2:1 choice of results rather than of raw data.
            # The forwarded lane's match (this tag == E2's) and age (from E2's stamp) are
            # compared a cycle ahead, between the same two requests one stage earlier
            # (the stages move in lockstep), and registered: no 56-bit comparison behind
            # E2 in front of the lane multiplexers.
            ahead = eb                          # the request that is in E2 next cycle
            same_tag = Signal()
            age_fw = Signal(ts)
            m.d.sync += [same_tag.eq(pre_req.tag == ahead.tag),
                         age_fw.eq(saturated_age(p, pre_req.t, ahead.t, 0))]

        valid_l = Signal(P)
        tag_l = [Signal(p.TAG_WIDTH, name=f"tag{i}") for i in range(P)]
        cnt_l = [Signal(p.COUNT_WIDTH, name=f"cnt{i}") for i in range(P)]
        mark_l = Signal(P)
        ages = [Signal(ts, name=f"age{i}") for i in range(P)]
        match = Signal(P)
        r_cnts, fw_wrs = [], []   # per lane: the count as read; "E2 writes it"
        # The tag comparison and the age are made per bank, straight from the M registers,
        # and only their results rotated into lanes (a 1-bit / TS_WIDTH-bit rotation after
        # the comparator, not a TAG_WIDTH-bit one before it).
        tag_eq_b = Signal(P)
        age_b = [Signal(ts, name=f"age_bank{b}") for b in range(P)]
        for b in range(P):
            m.d.comb += [tag_eq_b[b].eq(mb[b].tag == e.tag),
                         age_b[b].eq(saturated_age(p, e.t, mb[b].last,
                                                   mb[b].fresh ^ mb[b].mark))]
        for i in range(P):
            r_valid = rotated([x.valid for x in mb], i)
            r_tag = rotated([x.tag for x in mb], i)
            r_tag_eq = rotated(list(tag_eq_b), i)
            r_cnt = rotated([x.count for x in mb], i)
            r_mark = rotated(list(mark_now_b), i)
            r_age = rotated(age_b, i)
            if split:
                fw_wr = Signal(name=f"fw_wr{i}")
                fw_inv = Signal(name=f"fw_inv{i}")
                # (an EVICT's tail slot is lane 0 of its window)
                m.d.comb += [fw_wr.eq(fwd.write & (fwd.lane & e_ov[i]).any()),
                             fw_inv.eq(fwd.invalidate & e_ov[i][0])]
                kept = r_valid & ~fw_inv
                r_cnts.append(r_cnt)
                fw_wrs.append(fw_wr)
                m.d.comb += [
                    valid_l[i].eq(fw_wr | kept),
                    match[i].eq(Mux(fw_wr, same_tag, kept & r_tag_eq)),
                    ages[i].eq(Mux(fw_wr, age_fw, r_age)),
                    tag_l[i].eq(Mux(fw_wr, fwd.tag, r_tag)),
                    cnt_l[i].eq(Mux(fw_wr, fwd.count, r_cnt)),
                    mark_l[i].eq(Mux(fw_wr, fwd.mark, r_mark)),
                ]
            else:
                # No forwarding (and no structural path from the write back to the lanes,
                # which would be a combinational cycle: E decides and writes in one cycle).
                m.d.comb += [
                    valid_l[i].eq(r_valid), tag_l[i].eq(r_tag), cnt_l[i].eq(r_cnt),
                    mark_l[i].eq(r_mark), ages[i].eq(r_age),
                    match[i].eq(r_valid & r_tag_eq),
                ]
        def sat_inc(x, k=1):
            return _sat_inc(p, x, k)

        def decide(req, valid_l, match, ages, tag_l, cnt_l, mark_l, slots, tail_slot,
                   name, gt=None, old=None, inc=None, inc2=None):
            """A ``Decision`` for request ``req`` from its window's lane results.

            ``gt(i, j)`` (``ages[i] > ages[j]``), ``old`` (``ages[i] > W1`` per lane) and
            ``inc`` / ``inc2`` (``sat_inc(cnt_l[i], 1 / 2)``) may be given precomputed; by
            default they are computed here.
            """
            if inc is None:
                inc = [sat_inc(x) for x in cnt_l]
            if inc2 is None:
                inc2 = [sat_inc(x, 2) for x in cnt_l]
            if gt is None:
                def gt(i, j):
                    return ages[i] > ages[j]
            if old is None:
                old = Cat(ages[i] > cfg.w1 for i in range(P))
            m.submodules[name] = dec = Decision(p)
            m.d.comb += [
                dec.request.eq(req), dec.valid.eq(valid_l), dec.match.eq(match),
                dec.mark.eq(mark_l), dec.beyond_w1.eq(old), dec.window.eq(tail_slot),
                dec.list_empty.eq(lru.empty),
            ]
            for i in range(P):
                m.d.comb += [
                    dec.age[i].eq(ages[i]), dec.tag[i].eq(tag_l[i]),
                    dec.count[i].eq(cnt_l[i]), dec.slot[i].eq(slots[i]),
                    dec.count_inc[i].eq(inc[i]), dec.count_inc2[i].eq(inc2[i]),
                ]
                m.d.comb += [dec.older[i][j].eq(gt(i, j)) for j in range(P) if j != i]
            return dec.decision

        if not split:
            m.d.comb += d.eq(decide(e, valid_l, match, ages, tag_l, cnt_l, mark_l,
                                    lane_slots, e_h, "dec"))
        else:
            # E1b: the request ahead (now in E2) writes this cycle; its lane is not known
            # until E2 has decided, so decide for every case at once, from registers:
            # nothing of this window written (version P), or lane j holding the line of
            # the request ahead (version j), and let the forwarding only pick a version.
            eb_l = [Signal(lane_layout(p), name=f"eb_lane{i}") for i in range(P)]
            same_prev = Signal()      # this request's line is the line of the one ahead
            age_prev = Signal(ts)     # its age if the one ahead writes it
            age_prev_now = saturated_age(p, e.t, eb.t, 0)
            m.d.sync += [eb.eq(e), eb_tail.eq(e_h),
                         same_prev.eq(e.tag == eb.tag),
                         age_prev.eq(age_prev_now)]
            # The age comparisons of the victim choice, made here and registered so that
            # E1b is logic on flip-flops only: every ordered pair of lanes, every lane
            # against the age the request ahead would leave (`age_prev`) both ways, and
            # every age against W1. Compare-then-forward again: the lanes' ages as read
            # and E2's forwarded age are compared in parallel with `fw_wr`, which only
            # picks results. The comparisons do not wait for the ages either: a saturated
            # age (WMAX + 1) equals any other saturated one and exceeds any other, and two
            # unsaturated ages (below 2**(TS_WIDTH - 1)) compare as their stamps do:
            # last_x - last_y is age_y - age_x modulo 2**TS_WIDTH, and that difference lies
            # in [-(WMAX), WMAX], so age_x > age_y exactly when last_x - last_y is negative
            # as a TS_WIDTH-bit signed number (its top bit, the carry chain's last sum: no
            # zero test); age_x > W1 exactly when (t - W1 - 1) - last_x is not negative.
            # So each is one subtraction of registered stamps, beside the ages' own
            # subtractions, and one LUT for the saturation cases.
            t_w1 = Signal(ts)            # t - W1 - 1 of the request in E1a
            m.d.sync += t_w1.eq((pre_req.t - cfg.w1 - 1)[:ts])

            def stamp(age, last):
                return age[ts - 1], last        # (saturated, last-access stamp)

            def gt(x, y):
                """age(x) > age(y) for (saturated, stamp) pairs."""
                (sx, lx), (sy, ly) = x, y
                return (sx & ~sy) | (~sx & ~sy & (lx - ly)[:ts][ts - 1])

            def old(x):
                sx, lx = x
                return sx | ~(t_w1 - lx)[:ts][ts - 1]

            # Compared per bank (from the M registers), then rotated into lanes, as above.
            bank_st = [stamp(age_b[b], mb[b].last) for b in range(P)]
            lane_fw = stamp(age_fw, fwd.last)
            prev = stamp(age_prev_now, eb.t)

            def per_bank(f, name):
                out = Signal(P, name=name)
                m.d.comb += [out[b].eq(f(b)) for b in range(P)]
                return out

            fw_gt = per_bank(lambda b: gt(lane_fw, bank_st[b]), "fw_gt_bank")
            gt_fw = per_bank(lambda b: gt(bank_st[b], lane_fw), "gt_fw_bank")
            # gt_d[k][a]: bank a's age exceeds bank (a + k) mod P's
            gt_d = [None] + [per_bank(lambda a, k=k: gt(bank_st[a], bank_st[(a + k) % P]),
                                      f"gt_bank_d{k}") for k in range(1, P)]

            def final(i, f, bank_values):
                """``f`` of lane i's final (saturated, stamp): the forward, or the read
                (``bank_values``: ``f`` per bank)."""
                return Mux(fw_wrs[i], f(lane_fw), rotated(list(bank_values), i))

            gtp_b = per_bank(lambda b: gt(bank_st[b], prev), "gtp_bank")
            pgt_b = per_bank(lambda b: gt(prev, bank_st[b]), "pgt_bank")
            old_b = per_bank(lambda b: old(bank_st[b]), "old_bank")

            # eb_gt[i][j] (ages[i] > ages[j]) is picked in E1b from registered results:
            # the pair as read (eb_gt_rd), or the forwarded lane against the other as read
            # (eb_fw_gt, eb_gt_fw), by which lane E2 wrote (eb_fw). The pick costs E1b one
            # LUT, where E1b's paths from these registers had slack, and takes E2's
            # forward out of E1a's longest paths (subtraction, saturation, rotation). The
            # single-lane results (eb_gtp, eb_pgt, eb_old) stay picked in E1a: their paths
            # are shorter there, and E1b has no slack left for them.
            eb_gt = [[Signal(name=f"eb_gt{i}_{j}") if i != j else None for j in range(P)]
                     for i in range(P)]
            eb_gt_rd = [[Signal(name=f"eb_gt_rd{i}_{j}") if i != j else None
                         for j in range(P)] for i in range(P)]
            eb_fw = Signal(P)        # E2 wrote lane i of this window (fw_wrs)
            eb_fw_gt = Signal(P)     # the forwarded age > lane j's as read
            eb_gt_fw = Signal(P)     # lane i's as read > the forwarded age
            eb_gtp = Signal(P)       # ages[i] > age_prev
            eb_pgt = Signal(P)       # age_prev > ages[i]
            eb_old = Signal(P)       # ages[i] > W1
            eb_old_prev = Signal()   # age_prev > W1
            for i in range(P):
                m.d.sync += [eb_fw[i].eq(fw_wrs[i]), eb_fw_gt[i].eq(rotated(list(fw_gt), i)),
                             eb_gt_fw[i].eq(rotated(list(gt_fw), i))]
                for j in range(P):
                    if i != j:
                        m.d.sync += eb_gt_rd[i][j].eq(rotated(list(gt_d[(j - i) % P]), i))
                        # E2 writes at most one lane of this window.
                        m.d.comb += eb_gt[i][j].eq(Mux(
                            eb_fw[i], eb_fw_gt[j], Mux(eb_fw[j], eb_gt_fw[i], eb_gt_rd[i][j])))
                m.d.sync += [
                    eb_gtp[i].eq(final(i, lambda x: gt(x, prev), gtp_b)),
                    eb_pgt[i].eq(final(i, lambda x: gt(prev, x), pgt_b)),
                    eb_old[i].eq(final(i, old, old_b)),
                ]
            m.d.sync += eb_old_prev.eq(old(prev))
            # Which lane of this window each lane j of the request ahead's window is (see
            # overlap()), by j: whether it is in this window at all (eb_ov_any) and the
            # bits of the lane it is (eb_ov_bit{k}), so that the version pick below is a
            # binary multiplexer, not a one-hot priority chain.
            eb_ov_any = Signal(P, name="eb_ov_any")
            eb_ov_bit = [Signal(P, name=f"eb_ov_bit{k}") for k in range(pb)]
            for j in range(P):
                m.d.sync += eb_ov_any[j].eq(Cat(e_ov1[i][j] for i in range(P)).any())
                for k in range(pb):
                    m.d.sync += eb_ov_bit[k][j].eq(
                        Cat(e_ov1[i][j] for i in range(P) if (i >> k) & 1).any())
            for i in range(P):
                m.d.sync += [
                    eb_l[i].valid.eq(valid_l[i]), eb_l[i].match.eq(match[i]),
                    eb_l[i].age.eq(ages[i]), eb_l[i].tag.eq(tag_l[i]),
                    eb_l[i].count.eq(cnt_l[i]), eb_l[i].mark.eq(mark_l[i]),
                    # (the counts one and two more, for E1b's count after: compared and
                    # added here from the lane as read and E2's registered counts)
                    eb_l[i].count_inc.eq(Mux(fw_wrs[i], fwd.count_inc,
                                             sat_inc(r_cnts[i]))),
                    eb_l[i].count_inc2.eq(Mux(fw_wrs[i], sat_inc(fwd.count_inc),
                                              sat_inc(r_cnts[i], 2))),
                    eb_l[i].slot.eq(lane_slots[i]),
                    eb_l[i].sc_row_hit.eq(lane_slots[i][pb:] == table.sc_mark_row_next),
                ]
            # Marks as they will be at the end of this cycle (this cycle's scrubber write;
            # as intended, see mark_now_b: the lane whose write E2 cancels is the lane
            # E2 writes, and the version picked then takes that lane from E2).
            mark_b = Signal(P)
            for i in range(P):
                bank_i = eb_l[i].slot[:pb]      # lane i's bank: its slot's low bits
                sc_hit = (Array(table.sc_mark_intent)[bank_i] if pb
                          else table.sc_mark_intent[0]) & eb_l[i].sc_row_hit
                sc_val = Array(table.sc_mark_value)[bank_i] if pb else table.sc_mark_value[0]
                m.d.comb += mark_b[i].eq(Mux(sc_hit, sc_val, eb_l[i].mark))
            versions = []
            inc_ahead2 = sat_inc(fwd.count_inc)    # the count after E2's, plus two
            for v in range(P + 1):       # v < P: lane v holds the line of the one ahead
                def pick(i, own, ahead):
                    return ahead if i == v else own
                vv = Signal(P, name=f"v{v}_valid")
                vm = Signal(P, name=f"v{v}_match")
                vmk = Signal(P, name=f"v{v}_mark")
                va = [Signal(ts, name=f"v{v}_age{i}") for i in range(P)]
                for i in range(P):
                    m.d.comb += [
                        vv[i].eq(pick(i, eb_l[i].valid, 1)),
                        vm[i].eq(pick(i, eb_l[i].match, same_prev)),
                        vmk[i].eq(pick(i, mark_b[i], fwd.mark)),
                        va[i].eq(pick(i, eb_l[i].age, age_prev)),
                    ]
                def gt_v(i, j, v=v):
                    if i == v:
                        return eb_pgt[j]
                    if j == v:
                        return eb_gtp[i]
                    return eb_gt[i][j]
                versions.append(decide(
                    eb, vv, vm, va,
                    [pick(i, eb_l[i].tag, fwd.tag) for i in range(P)],
                    [pick(i, eb_l[i].count, fwd.count) for i in range(P)],
                    vmk, [x.slot for x in eb_l], eb_tail, f"dec{v}",
                    gt=gt_v, old=Cat(pick(i, eb_old[i], eb_old_prev) for i in range(P)),
                    inc=[pick(i, eb_l[i].count_inc, fwd.count_inc) for i in range(P)],
                    inc2=[pick(i, eb_l[i].count_inc2, inc_ahead2) for i in range(P)]))
            # Whether the request ahead writes a lane of this window (fw1_any), and which
            # (fw1_lane, in binary: E2 writes at most one lane, and fwd.lane is one-hot).
            fw1_any = Signal()
            fw1_lane = Signal(range(P), name="fw1_lane")
            m.d.comb += fw1_any.eq(fwd.write & (fwd.lane & eb_ov_any).any())
            m.d.comb += [fw1_lane[k].eq((fwd.lane & eb_ov_bit[k]).any()) for k in range(pb)]
            m.d.comb += d.eq(Mux(fw1_any, Array(versions[:P])[fw1_lane], versions[P]))

        # ---- E2 (or E): T-level, LRU update, response; L --------------------------------
        m.d.comb += [commit.decision.eq(d), commit.cfg.eq(cfg), commit.flush.eq(self.flush)]
        m.d.comb += [
            table.wr_en.eq(fwd.write), table.wr_slot.eq(fwd.slot), table.wr_count.eq(fwd.count),
            table.wr_tag.eq(fwd.tag), table.wr_last.eq(fwd.last), table.wr_mark.eq(fwd.mark),
            table.inv_en.eq(fwd.invalidate), table.inv_slot.eq(fwd.window),
            lru.cmd.eq(commit.lru_cmd), lru.slot.eq(commit.lru_slot), lru.flush.eq(self.flush),
            self.occupancy.eq(commit.occupancy), self.stat_inc.eq(commit.stat_inc),
        ]

        # Scrubber.
        m.d.comb += [
            scrub.cycle.eq(self.cycle),
            table.sc_row.eq(scrub.sc_row),
            scrub.sc_last.eq(table.sc_last),
            scrub.sc_valid.eq(table.sc_valid),
            table.sc_set.eq(scrub.sc_set),
        ]

        # ---- the response FIFO ---------------------------------------------------------
        m.d.comb += [
            fifo.w_en.eq(commit.response.valid), fifo.w_data.eq(commit.response.payload),
            self.rsp.valid.eq(fifo.r_rdy), self.rsp.payload.eq(fifo.r_data),
            fifo.r_en.eq(self.rsp.ready),
        ]
        return m
