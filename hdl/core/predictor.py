# SPDX-License-Identifier: Apache-2.0
"""The predictor mode's evaluation and commit (docs/spec-predictor.md, ``POLICY.MODE = 1``),
for a core built with ``CoreOptions.predictor``: the second policy beside the article's
``Versions`` / ``Commit``, on the same lanes, in the same E1b / E2 / L cycles, with the
mode's state (``hdl/predictor/``) and its two lists.

OBSERVEs and QUERYs of the mode come one per cycle; an EVICT after a gap free of list
moves, and two FREEs right behind it, the ghost frees of P8 (``Admission.policy``). A
write reaches the request right behind it at this stage's E2 register (``ahead_wrote``: the
written lane as the write leaves it; a FREE's invalidate, the lane emptied), the request
two behind in E1a (``forward``, into ``LaneCompare``'s lanes and the ``pmeta`` words) and
the ones after through the table's bypass; ``PT``, the guard, the bimodal counter, the
loop detector and the lists are read and written in E2, one request per cycle
(docs/rtl-predictor.md, "The core with the mode").
"""

from amaranth import *
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

import regmap

from ..layouts import STAT_NAMES, config_layout, response_layout
from ..predictor.bimodal import BimodalCounter
from ..predictor.constants import ABSENT_KEY, BURST_WIDTH, KEY_WIDTH, SIG_WIDTH
from ..predictor.guard import Guard
from ..predictor.keys import ReuseKey, ReuseLevel
from ..predictor.lists import ListFrom, ListTo, LiveGhostLists
from ..predictor.loop import LoopDetector
from ..predictor.reuse_table import ReuseTable
from .decision import sat_inc, select
from .interfaces import ForwardSignature, lanes_layout, pmeta_layout

__all__ = ["PredictorCommit", "lane_key_layout", "predictor_e2_layout"]

OBSERVE = regmap.OPS["OBSERVE"]
QUERY = regmap.OPS["QUERY"]
EVICT = regmap.OPS["EVICT"]
EVICT_ANY = regmap.OPS["EVICT_ANY"]


#: A lane's key as if it were the match (``ReuseKey`` with ``known``): ``key``, ``near``,
#: ``burst_next``.
lane_key_layout = data.StructLayout({"key": KEY_WIDTH, "near": 1, "burst_next": BURST_WIDTH})


def predictor_e2_layout(p):
    """What E2 holds of the request from E1b: its lanes (``lanes_layout``), every lane's
    ``pmeta`` word (probe order), its key as if it were the match (``lane_key_layout``) and
    its mark at the end of E1b's cycle, with the write of the request then in E2 put into
    the lane it wrote (``ahead_wrote``, one-hot), and whether it is a FREE."""
    P = p.PROBE
    return data.StructLayout({
        "lanes": lanes_layout(p),
        "pm": data.ArrayLayout(pmeta_layout(), P),
        "key": data.ArrayLayout(lane_key_layout, P),
        "mark": P,
        "ahead_wrote": P,
        "free": 1,
    })


class PredictorCommit(wiring.Component):
    """E1b (the loop detector's first stage, the lanes and their keys registered), E2 (the
    decision of P6-P8 and its writes) and L (response, statistics, occupancy) of the
    predictor mode, with the ghost frees of P8 after an EVICT as FREEs in the pipeline.

    Parameters
    ----------
    params : regmap.Params
    memory : class
        The memory the lists' pointer banks are built from.

    Ports
    -----
    active : In(1)
        ``POLICY.MODE`` is 1: the mode's requests are this stage's (else it takes none;
        its state stays as the last flush left it).
    lanes : In(lanes_layout(params))
        The request in E1b and its lanes (``LaneCompare.lanes``, with this stage's E2
        write of two requests ahead forwarded into them through ``forward``; the write of
        the request right ahead, in E2 now, is put into them at E2's register).
    pmeta : In(ArrayLayout(pmeta_layout(), PROBE))
        The ``pmeta`` words of the E1b request's lanes, probe order.
    sig : In(16)
        The E1b request's signature: bits 31..16 of its hash (P11).
    free : In(1)
        The E1b request is a FREE (``Admission.s0_free``), not an EVICT_ANY.
    free_r : In(2)
        The request in R is the first (bit 0) or the second (bit 1) FREE after an EVICT.
    sc_mark_intent, sc_mark_value : In(PROBE)
        The scrubber's mark write of this cycle, by bank (as ``Versions`` takes them).
    cfg : In(config_layout(params))
        ``w3``, ``w1``.
    flush : In(1)
        Empty both lists, every state of the mode to its flush value (P9), occupancy 0.
    wr_en, wr_slot, wr_tag, wr_count, wr_last, wr_mark : Out
        E2's table write (an OBSERVE that tracks its line), as ``BucketTable``'s ports.
    forward : Out(ForwardSignature(params))
        The same write for ``LaneCompare`` (the request then in E1a; ``lane`` one-hot in
        this request's window, ``count_inc`` its count one more), or a FREE's invalidate
        (lane 0 of its window). An EVICT of the mode invalidates nothing: it writes its
        line's ``pmeta`` word (``ghost``), which reaches the requests behind through the
        table's bypass (two FREEs are between it and the first of them).
    pm_en, pm_slot, pm_data : Out
        E2's ``pmeta`` write: with the table write, or alone (an EVICT's ghost).
    inv_en, inv_slot : Out
        A FREE that is needed (P8): untrack the ghost it reads.
    evict_start : Out(SLOT_WIDTH)
        The window start of the EVICT or FREE in R: the LRU list's tail for an EVICT, the
        ghost tail (FREE 1) or the ghost before it (FREE 2, the ``gtail2`` prefetch), or
        the EVICT's own line where the ghost list ends with it. The lists are settled then
        (``Admission.predictor_gap``: the EVICT's own move comes after its FREEs' R).
    response : Out(stream.Signature(response_layout(params), always_ready=True))
        L: the response of the request that was in E2.
    stat_inc : Out(len(STAT_NAMES))
        L: the statistics increments of that request (``req_dropped`` never).
    occupancy : Out(SLOT_WIDTH + 1)
        Live lines, counted in L.
    busy : Out(1)
        A request of the mode is in E2 or L, or a list move is in flight.

    Attributes
    ----------
    lists, reuse, guard, bip, loop : the mode's components (after construction).
    """

    def __init__(self, params, *, memory):
        self._params = p = params
        P, sw = p.PROBE, p.SLOT_WIDTH
        self.lists = LiveGhostLists(p, registered=True, memory=memory)
        self.reuse = ReuseTable(what_ifs=p.PROBE)
        self.guard = Guard(p)
        self.bip = BimodalCounter()
        self.loop = LoopDetector(p, stages=2)
        width = pmeta_layout().size
        super().__init__({
            "active": In(1),
            "lanes": In(lanes_layout(p)),
            "pmeta": In(data.ArrayLayout(pmeta_layout(), P)),
            "sig": In(SIG_WIDTH),
            "free": In(1), "free_r": In(2),
            "sc_mark_intent": In(P), "sc_mark_value": In(P),
            "cfg": In(config_layout(p)),
            "flush": In(1),
            "wr_en": Out(1), "wr_slot": Out(sw), "wr_tag": Out(p.TAG_WIDTH),
            "wr_count": Out(p.COUNT_WIDTH), "wr_last": Out(p.TS_WIDTH), "wr_mark": Out(1),
            "forward": Out(ForwardSignature(p)),
            "pm_en": Out(1), "pm_slot": Out(sw), "pm_data": Out(width),
            "inv_en": Out(1), "inv_slot": Out(sw),
            "evict_start": Out(sw),
            "response": Out(stream.Signature(response_layout(p), always_ready=True)),
            "stat_inc": Out(len(STAT_NAMES)),
            "occupancy": Out(sw + 1),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        p, cfg = self._params, self.cfg
        P, sw = p.PROBE, p.SLOT_WIDTH
        pb = P.bit_length() - 1
        lists, pt, guard, bip, loop = self.lists, self.reuse, self.guard, self.bip, self.loop
        m.submodules.lists = lists
        m.submodules.reuse = pt
        m.submodules.guard = guard
        m.submodules.bip = bip
        m.submodules.loop = loop
        m.submodules.level = level = ReuseLevel(p)
        flush = self.flush
        m.d.comb += [lists.flush.eq(flush), pt.flush.eq(flush), guard.flush.eq(flush),
                     bip.flush.eq(flush), loop.flush.eq(flush)]

        # ---- R: an EVICT's window at the LRU tail, a FREE's at the ghost it frees (P8) ----
        # FREE 1 frees the ghost tail, FREE 2 the ghost before it; the EVICT ahead puts its
        # line (the LRU tail, unchanged until its move) at the ghost head, so where the
        # ghost list is empty (FREE 1) or holds one ghost (FREE 2) that line is the one.
        one_ghost = lists.gcount == 1
        m.d.comb += self.evict_start.eq(
            Mux(self.free_r[0], Mux(lists.gempty, lists.tail, lists.gtail),
                Mux(self.free_r[1], Mux(one_ghost, lists.tail, lists.gtail2), lists.tail)))

        # ---- E1b: the loop detector's compare (S1), the lanes and marks registered ----
        ln = self.lanes
        req1 = ln.request
        mine1 = self.active & req1.valid
        # The live lines before the request in E2 (``occupancy`` with the change of the
        # request in L: a register of its own, so that E2's guard and writes start from
        # it, not from an adder) and before the one in E1b (with E2's change too: the loop
        # detector's bound).
        inc_now, dec_now = Signal(), Signal()       # E2's change of the occupancy
        occupancy_next = Signal.like(self.occupancy)
        occupancy_e1b = Signal.like(self.occupancy)
        m.d.comb += occupancy_e1b.eq(occupancy_next + inc_now - dec_now)
        m.d.comb += [
            loop.observe.valid.eq(mine1 & (req1.op == OBSERVE)),
            loop.observe.payload.home.eq(ln.start),
            loop.observe.payload.sig.eq(self.sig),
            loop.observe.payload.occupancy.eq(occupancy_e1b),
        ]
        mark_b = Signal(P)
        for i in range(P):
            bank_i = ln.lane[i].slot[:pb]
            sc_hit = (Array(self.sc_mark_intent)[bank_i] if pb
                      else self.sc_mark_intent[0]) & ln.lane[i].sc_row_hit
            sc_val = Array(self.sc_mark_value)[bank_i] if pb else self.sc_mark_value[0]
            m.d.comb += mark_b[i].eq(Mux(sc_hit, sc_val, ln.lane[i].mark))
        e = Signal(predictor_e2_layout(p), name="pe2")
        m.d.sync += [e.lanes.eq(ln), e.pm.eq(self.pmeta), e.mark.eq(mark_b),
                     e.lanes.request.valid.eq(mine1), e.free.eq(self.free)]
        # Every lane's key (P4) as if it were the match, from its burst and age, registered
        # into E2 (the lane the request ahead writes takes the key of what it writes,
        # below): E2's lookups then start from registers, not from the age comparisons.
        def lane_key(name, burst, sage):
            """A ``ReuseKey`` of a line known to be there, and its outputs as a
            ``lane_key_layout`` value."""
            k = ReuseKey(p)
            m.submodules[name] = k
            value = Signal(lane_key_layout, name=f"{name}_value")
            m.d.comb += [k.known.eq(1), k.burst.eq(burst), k.sage.eq(sage), k.w3.eq(cfg.w3),
                         value.key.eq(k.key), value.near.eq(k.near),
                         value.burst_next.eq(k.burst_next)]
            return value
        for i in range(P):
            m.d.sync += e.key[i].eq(lane_key(f"lane_key{i}", self.pmeta[i].burst,
                                             ln.lane[i].age))

        # ---- E2: the decision (P6-P8) ---------------------------------------------------
        req, lane, pm = e.lanes.request, e.lanes.lane, e.pm
        valid = Cat(x.valid for x in lane)
        ghost = Cat(valid[i] & pm[i].ghost for i in range(P))
        free = ~valid
        match = Cat(x.match for x in lane)
        hit_lane = Signal(P)
        for i in range(P):
            m.d.comb += hit_lane[i].eq(match[i] & ~match[i + 1:].any() if i < P - 1
                                       else match[i])
        present = Signal()          # a live line (P6.1)
        revive = Signal()           # a ghost of the line (P6.2)
        m.d.comb += [present.eq((hit_lane & ~ghost).any()), revive.eq((hit_lane & ghost).any())]
        known = present | revive

        def older(i, j):
            """Lane i's line is older than lane j's: E1a's comparison with the line the
            request right ahead wrote into one of them (``ahead_wrote``), else with the
            line of the write two ahead forwarded into one (``forwarded``), else of the
            lanes as read."""
            ln2, w = e.lanes, e.ahead_wrote
            two_ahead = Mux(ln2.forwarded[i], ln2.forward_older[j],
                            Mux(ln2.forwarded[j], ln2.older_forward[i], ln2.older[i][j]))
            return Mux(w[i], ln2.ahead_older[j], Mux(w[j], ln2.older_ahead[i], two_ahead))
        first_free = Signal(P)
        for i in range(P):
            m.d.comb += first_free[i].eq(free[i] & ~free[:i].any() if i else free[0])
        # The oldest ghost lane (greatest sage, ties to the lowest offset), P6.3b, and the
        # oldest lane of all (P6.3c: reached only when every lane is live).
        gwins = Signal(P)
        wins = Signal(P)
        for i in range(P):
            m.d.comb += gwins[i].eq(ghost[i] & Cat(
                *([~ghost[j] | older(i, j) for j in range(i)] +
                  [~ghost[j] | ~older(j, i) for j in range(i + 1, P)]), Const(1, 1)).all())
            m.d.comb += wins[i].eq(Cat(*([older(i, j) for j in range(i)] +
                                         [~older(j, i) for j in range(i + 1, P)]),
                                       Const(1, 1)).all())
        any_free, any_ghost = free.any(), ghost.any()
        vict_t0 = e.lanes.beyond_w1.any()

        is_obs = req.valid & (req.op == OBSERVE)
        is_query = req.valid & (req.op == QUERY)
        is_evict = req.valid & ~e.free & ((req.op == EVICT) | (req.op == EVICT_ANY))
        is_free = req.valid & e.free
        ins_free = is_obs & ~known & any_free                       # P6.3a
        ins_ghost = is_obs & ~known & ~any_free & any_ghost          # P6.3b
        replace = is_obs & ~known & ~any_free & ~any_ghost & vict_t0  # P6.3c
        take = is_evict & ~lists.empty                               # P8
        inserted = (is_obs & revive) | ins_free | ins_ghost | replace
        writes = (is_obs & present) | inserted
        # The lane written: the match, else the free, the ghost or the victim lane.
        wr_lane = Signal(P)
        m.d.comb += wr_lane.eq(Mux(known, hit_lane,
                                   Mux(any_free, first_free, Mux(any_ghost, gwins, wins))))

        hp = Signal(pmeta_layout(), name="hit_pm")
        m.d.comb += hp.eq(select(hit_lane, [pm[i].as_value() for i in range(P)]))
        h_age = select(hit_lane, [x.age for x in lane])
        h_old = (hit_lane & e.lanes.beyond_w1).any()
        m.d.comb += [level.live.eq(present), level.pred.eq(hp.pred), level.sage.eq(h_age),
                     level.w3.eq(cfg.w3), level.w1.eq(cfg.w1)]
        # PT's lookup of the key (P4), made for every lane as if it were the match (a
        # what-if lookup that assumes that lane's training) from the lane's key registered
        # in E1b, and picked by the match: the match's priority and OR are then in front of
        # a choice, not of the age comparisons, the key, the 64:1 read and its step. An
        # absent line's key is ABSENT_KEY (a constant lookup) and trains nothing.
        keys = e.key
        for i in range(P):
            q = pt.what_if[i]
            m.d.comb += [q.key.eq(keys[i].key), q.train.eq(is_obs), q.tkey.eq(pm[i].pkey),
                         q.near.eq(keys[i].near)]
        key_near = select(hit_lane, [keys[i].near for i in range(P)])
        key_burst_next = select(hit_lane, [keys[i].burst_next for i in range(P)])
        key_key = Mux(known, select(hit_lane, [keys[i].key for i in range(P)]), ABSENT_KEY)
        pt_predict = Mux(known, select(hit_lane, pt.what_if_predict), pt.predict)
        pt_zero = Mux(known, select(hit_lane, pt.what_if_zero), pt.zero)
        # PT: the previous key trained (a live or ghost match), the new key looked up.
        m.d.comb += [pt.train.valid.eq(is_obs & known), pt.train.payload.key.eq(hp.pkey),
                     pt.train.payload.near.eq(key_near), pt.lookup.eq(ABSENT_KEY)]
        loop_mode = loop.loop_next
        # The guard (P12) and the bimodal rule (P11).
        m.d.comb += [inc_now.eq((is_obs & revive) | ins_free | ins_ghost), dec_now.eq(take)]
        vict_pm = Signal(pmeta_layout(), name="vict_pm")
        m.d.comb += vict_pm.eq(select(wins, [pm[i].as_value() for i in range(P)]))
        candidate = is_obs & revive & ~loop_mode & pt_zero
        m.d.comb += [
            guard.insert.valid.eq(inserted), guard.insert.payload.occupancy.eq(occupancy_next),
            guard.insert.payload.grows.eq(inc_now),
            guard.candidate.eq(candidate),
            guard.reused.eq(is_obs & present & hp.probe), guard.stamp.eq(hp.stamp),
            guard.dead.eq((replace & vict_pm.probe) | (take & pm[0].probe)),
            bip.step.eq(inserted & loop_mode),
        ]
        to_tail = Mux(loop_mode, bip.at_lru_end, candidate & guard.demote)

        # P8: the EVICT's two FREEs (right behind it) free the ghost tail while the ghosts
        # outnumber the live lines, decided here in the EVICT's E2 from the counts it
        # leaves (the lists are settled: Admission.predictor_gap) and used in theirs.
        free_plan = Signal(2)       # bit 0: the next FREE frees; bit 1: the one after
        freeing = Signal()
        ghosts_after = lists.gcount + take
        live_after = occupancy_next - take
        m.d.comb += freeing.eq(is_free & free_plan[0])
        with m.If(flush):
            m.d.sync += free_plan.eq(0)
        with m.Elif(is_evict):
            m.d.sync += free_plan.eq(Cat(take & (ghosts_after > live_after),
                                         take & (ghosts_after > live_after + 1)))
        with m.Elif(is_free):
            m.d.sync += free_plan.eq(free_plan[1:])

        # The table write, the pmeta write and the list move.
        count_after = Mux(is_obs & present & ~h_old,
                          select(hit_lane, [x.count_inc for x in lane]), 1)
        wr_slot = select(wr_lane, [x.slot for x in lane])
        written = Signal(pmeta_layout(), name="pm_written")
        m.d.comb += [written.ghost.eq(0), written.burst.eq(key_burst_next),
                     written.pkey.eq(key_key), written.pred.eq(pt_predict),
                     written.probe.eq(guard.probe),
                     written.stamp.eq(Mux(guard.probe, guard.epoch_next, 0))]
        as_ghost = Signal(pmeta_layout(), name="pm_ghost")
        m.d.comb += [as_ghost.eq(pm[0]), as_ghost.ghost.eq(1), as_ghost.probe.eq(0),
                     as_ghost.stamp.eq(0)]
        m.d.comb += [
            self.wr_en.eq(writes), self.wr_slot.eq(wr_slot), self.wr_tag.eq(req.tag),
            self.wr_count.eq(count_after), self.wr_last.eq(req.t),
            self.wr_mark.eq((wr_lane & e.mark).any()),
            self.pm_en.eq(writes | take), self.pm_slot.eq(Mux(take, e.lanes.start, wr_slot)),
            self.pm_data.eq(Mux(take, as_ghost, written)),
        ]
        count_after_inc = Signal(p.COUNT_WIDTH)
        m.d.comb += count_after_inc.eq(sat_inc(p, count_after))
        # The request now in E1b meets this write in the lane of its window that holds the
        # slot: the lane as the write leaves it, registered into E2 with the lanes (its
        # comparisons against the written line are E1a's ``*_ahead``).
        written_key = lane_key("written_key", written.burst, ln.age_ahead)
        for i in range(P):
            hit = Signal(name=f"ahead_wrote{i}")
            x, y = ln.lane[i], e.lanes.lane[i]
            # Which lane holds the slot written: its slot compared with every lane of E2's
            # window beside the decision, and picked by the written lane.
            same_slot = Cat(lane[k].slot == x.slot for k in range(P))
            m.d.comb += hit.eq(mine1 & writes & (wr_lane & same_slot).any())
            m.d.sync += e.ahead_wrote[i].eq(hit)
            # A FREE's invalidate (lane 0 of its window) empties the lane that holds it.
            with m.If(mine1 & freeing & (x.slot == e.lanes.start)):
                m.d.sync += [y.valid.eq(0), y.match.eq(0)]
            with m.If(hit):
                m.d.sync += [y.valid.eq(1), y.match.eq(ln.same_line_ahead),
                             y.age.eq(ln.age_ahead), y.tag.eq(req.tag),
                             y.count.eq(count_after), y.count_inc.eq(count_after_inc),
                             y.mark.eq(self.wr_mark), e.mark[i].eq(self.wr_mark),
                             e.lanes.beyond_w1[i].eq(ln.ahead_beyond_w1), e.pm[i].eq(written),
                             e.key[i].eq(written_key)]
        fw = self.forward
        m.d.comb += [
            fw.write.eq(writes), fw.lane.eq(Mux(writes, wr_lane, 0)), fw.slot.eq(wr_slot),
            fw.tag.eq(req.tag), fw.last.eq(req.t), fw.count.eq(count_after),
            fw.count_inc.eq(count_after_inc), fw.mark.eq(self.wr_mark),
            fw.invalidate.eq(freeing), fw.window.eq(e.lanes.start),
        ]
        move = lists.cmd
        with m.If(writes):
            m.d.comb += [move.valid.eq(1), move.payload.slot.eq(wr_slot)]
            with m.If(is_obs & present):
                m.d.comb += [move.payload.frm.eq(ListFrom.LIVE),
                             move.payload.to.eq(ListTo.LIVE_HEAD)]
            with m.Else():
                m.d.comb += [
                    move.payload.frm.eq(Mux(revive | ins_ghost, ListFrom.GHOST,
                                            Mux(replace, ListFrom.LIVE, ListFrom.NONE))),
                    move.payload.to.eq(Mux(to_tail, ListTo.LIVE_TAIL, ListTo.LIVE_HEAD))]
        with m.Elif(take):
            m.d.comb += [move.valid.eq(1), move.payload.slot.eq(e.lanes.start),
                         move.payload.frm.eq(ListFrom.LIVE),
                         move.payload.to.eq(ListTo.GHOST_HEAD)]
        with m.Elif(freeing):
            m.d.comb += [move.valid.eq(1), move.payload.slot.eq(e.lanes.start),
                         move.payload.frm.eq(ListFrom.GHOST), move.payload.to.eq(ListTo.NONE),
                         self.inv_en.eq(1), self.inv_slot.eq(e.lanes.start)]

        # ---- the response and the statistics (L) ----------------------------------------
        rsp = Signal(response_layout(p))
        counted = [name for name in STAT_NAMES if name != "req_dropped"]
        stat = Signal(len(counted))

        def count(name):
            return stat[counted.index(name)].eq(1)
        lv_before = Mux(present, level.level, 0)
        lv_hit = lv_before >= req.min_tlevel
        with m.If(req.valid):
            m.d.comb += rsp.op.eq(req.op)
        with m.If(is_obs):
            m.d.comb += [count("observes"), rsp.hit.eq(lv_hit), rsp.tlevel_before.eq(lv_before),
                         rsp.present.eq(present)]
            with m.Switch(lv_before):
                for lv in range(4):
                    with m.Case(lv):
                        m.d.comb += count(f"obs_t{lv}")
            with m.If(present):
                m.d.comb += count("observe_hits")
            with m.Elif(inserted & ~replace):
                m.d.comb += count("inserts")
            with m.Elif(replace):
                m.d.comb += [count("replacements"), rsp.victim_valid.eq(1),
                             rsp.victim_tag.eq(select(wins, [x.tag for x in lane]))]
            with m.Else():
                m.d.comb += count("drops")
            with m.If(writes):
                m.d.comb += [rsp.tracked.eq(1), rsp.tlevel.eq(Mux(pt_predict, 3, 1)),
                             rsp.count.eq(count_after), rsp.slot.eq(wr_slot)]
        with m.If(is_query):
            m.d.comb += [count("queries"), rsp.hit.eq(lv_hit), rsp.tlevel_before.eq(lv_before),
                         rsp.tlevel.eq(lv_before)]
            with m.If(lv_hit):
                m.d.comb += count("query_hits")
            with m.If(present):
                m.d.comb += [rsp.present.eq(1), rsp.tracked.eq(1),
                             rsp.count.eq(select(hit_lane, [x.count for x in lane])),
                             rsp.slot.eq(select(hit_lane, [x.slot for x in lane]))]
        with m.If(is_evict):
            with m.If(take):
                m.d.comb += [count("evicts"), rsp.victim_valid.eq(1),
                             rsp.victim_tag.eq(lane[0].tag), rsp.slot.eq(e.lanes.start)]
            with m.Else():
                m.d.comb += count("evicts_empty")

        m.d.sync += [
            self.response.valid.eq(req.valid & ~is_free), self.response.payload.eq(rsp),
            self.stat_inc.eq(Cat(stat[counted.index(name)] if name in counted else C(0, 1)
                                 for name in STAT_NAMES)),
        ]

        # L counts E2's change a cycle after ``occupancy_next`` has it.
        with m.If(flush):
            m.d.sync += [self.occupancy.eq(0), occupancy_next.eq(0)]
        with m.Else():
            m.d.sync += [self.occupancy.eq(occupancy_next),
                         occupancy_next.eq(occupancy_e1b)]
        m.d.comb += self.busy.eq(req.valid | self.response.valid | lists.busy)
        return m
