# SPDX-License-Identifier: Apache-2.0
"""E2's outcome: what the request in E2 answers, counts and tells the LRU list, by its op
(spec: the response fields and statistics of OBSERVE, QUERY, EVICT and EVICT_ANY)."""

from amaranth import *

import regmap

from ..layouts import RequestStatistics, response_layout
from ..lru import LruCmd
from ..onehot import select

__all__ = ["outcome"]

OBSERVE = regmap.OPS["OBSERVE"]
QUERY = regmap.OPS["QUERY"]


def outcome(m, p, d2, level_after, level_before, level_hit, ge, *, forward, lru_cmd):
    """The LRU command, the response, the statistics and the insert or eviction of the
    request in E2 (``d2``, ``decision_layout``), by its op: drives ``lru_cmd`` (``LruCmd``)
    and returns the response (``response_layout``, combinational), the request statistics
    (``RequestStatistics``) and the insert and eviction bits. ``level_*`` and ``ge`` are
    the T-levels ``Commit`` makes (after, before, the hit, "level before >= k"),
    ``forward`` E2's write (``ForwardSignature``: whether it tracks the line, its slot)."""
    rsp = Signal(response_layout(p))
    # The request statistics (STAT_NAMES but req_dropped, D13: the admission's drops).
    stats = RequestStatistics()
    count = stats.count

    # The victim's tag, selected here from the lanes' (only the response needs it).
    victim_tag = Signal(p.TAG_WIDTH)
    m.d.comb += victim_tag.eq(select(d2.vict_lane, [d2.lane_tag[i] for i in range(p.PROBE)]))
    inserts, evicts = Signal(), Signal()
    with m.If(d2.valid):
        m.d.comb += rsp.op.eq(d2.op)
        with m.Switch(d2.op):
            with m.Case(OBSERVE):
                m.d.comb += [count("observes"), rsp.hit.eq(level_hit),
                             rsp.tlevel_before.eq(level_before)]
                for lv in range(4):      # level_before == lv
                    with m.If(ge[lv] & ~ge[lv + 1] if lv < 3 else ge[3]):
                        m.d.comb += count(f"obs_t{lv}")
                with m.If(d2.present):
                    m.d.comb += [count("observe_hits"), rsp.present.eq(1),
                                 lru_cmd.eq(LruCmd.TOUCH)]
                with m.Elif(d2.any_free):
                    m.d.comb += [count("inserts"),
                                 lru_cmd.eq(LruCmd.INSERT), inserts.eq(1)]
                with m.Elif(d2.vict_t0):
                    m.d.comb += [count("replacements"),
                                 lru_cmd.eq(LruCmd.TOUCH),
                                 rsp.victim_valid.eq(1), rsp.victim_tag.eq(victim_tag)]
                with m.Else():
                    m.d.comb += count("drops")
                with m.If(forward.write):
                    m.d.comb += [rsp.tracked.eq(1), rsp.tlevel.eq(level_after),
                                 rsp.count.eq(d2.cnt_after), rsp.slot.eq(forward.slot)]
            with m.Case(QUERY):
                m.d.comb += [count("queries"), rsp.hit.eq(level_hit),
                             rsp.tlevel_before.eq(level_before),
                             rsp.tlevel.eq(level_before)]
                with m.If(level_hit):
                    m.d.comb += count("query_hits")
                with m.If(d2.present):
                    m.d.comb += [rsp.present.eq(1), rsp.tracked.eq(1),
                                 rsp.count.eq(d2.hit_cnt), rsp.slot.eq(d2.hit_slot)]
            with m.Default():   # EVICT, EVICT_ANY
                with m.If(d2.take):
                    m.d.comb += [
                        count("evicts"), rsp.victim_valid.eq(1),
                        rsp.victim_tag.eq(d2.lane_tag[0]), rsp.slot.eq(d2.tail_slot),
                        lru_cmd.eq(LruCmd.POP), evicts.eq(1),
                    ]
                with m.Else():
                    m.d.comb += count("evicts_empty")
    return rsp, stats, inserts, evicts
