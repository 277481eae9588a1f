# SPDX-License-Identifier: Apache-2.0
"""How ``KvAsuCore`` wires E2's outputs into what sits beside the pipeline: the table's
write and invalidate, the LRU list's command, the occupancy and the statistics increments
(with the drops of the non-blocking admission, D13). With the predictor mode
(``CoreOptions.predictor``) its E2 owns the same outputs while ``POLICY.MODE`` is 1
(``connect_predictor``); the choice by ``policy`` is made in the line that wires each.
"""

from amaranth import *

import regmap

from ..layouts import STAT_NAMES
from .predictor_wiring import connect_predictor

__all__ = ["connect_commit", "connect_response", "article_writes"]


def connect_commit(m, core, *, policy, flush):
    """Wire ``core.commit`` (and ``core.predictor``, if built) into ``core.table``,
    ``core.lru``, ``core.occupancy`` and ``core.stat_inc`` in ``m``.

    Parameters
    ----------
    m : Module
        The core's module.
    core : KvAsuCore
        The core; its ``commit``, ``admission``, ``table``, ``lru`` and ``predictor`` are
        read and driven.
    policy : Value or None
        ``POLICY.MODE`` in a build with the predictor mode, else ``None``.
    flush : Value
        The core's flush (with the recovery's, if any): empties the LRU list.
    """
    commit, lru, pred = core.commit, core.lru, core.predictor
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
        m.d.comb += article_writes(core)
        m.d.comb += [lru.slot.eq(commit.lru_slot), lru.flush.eq(flush)]
    else:
        connect_predictor(m, core, policy=policy, flush=flush,
                          article_writes=article_writes(core))
    # A drop's increment, delayed to one cycle before a request's (D13).
    dropped = core.admission.dropped
    for k in range(core.timing.drop_stat_lag):
        dropped_q = Signal(name=f"dropped_q{k}")
        m.d.sync += dropped_q.eq(dropped)
        dropped = dropped_q
    drop_bit = STAT_NAMES.index("req_dropped")
    stat_inc = commit.stat_inc if pred is None else Mux(policy, pred.stat_inc,
                                                        commit.stat_inc)
    m.d.comb += core.stat_inc.eq(stat_inc | (dropped << drop_bit))

def connect_response(m, core, *, policy):
    """Wire E2's response (``core.commit``'s, or ``core.predictor``'s while ``policy``) into
    ``core.fifo``, and the FIFO's output to the core's ``rsp`` port, in ``m``."""
    commit, pred, fifo = core.commit, core.predictor, core.fifo
    rsp_valid, rsp_payload = commit.response.valid, commit.response.payload
    if pred is not None:
        rsp_valid = Mux(policy, pred.response.valid, rsp_valid)
        rsp_payload = Mux(policy, pred.response.payload, rsp_payload)
    m.d.comb += [
        fifo.w_en.eq(rsp_valid), fifo.w_data.eq(rsp_payload),
        core.rsp.valid.eq(fifo.r_rdy), core.rsp.payload.eq(fifo.r_data),
        fifo.r_en.eq(core.rsp.ready),
    ]


def article_writes(core):
    """The article mode's E2 into the table and the LRU list: the write and the
    invalidate (``commit.forward``), the LRU command and the occupancy (a list of
    assignments)."""
    table, lru, commit = core.table, core.lru, core.commit
    fwd = commit.forward
    return [
        table.wr_en.eq(fwd.write), table.wr_slot.eq(fwd.slot),
        table.wr_count.eq(fwd.count), table.wr_tag.eq(fwd.tag),
        table.wr_last.eq(fwd.last), table.wr_mark.eq(fwd.mark),
        table.inv_en.eq(fwd.invalidate), table.inv_slot.eq(fwd.window),
        lru.cmd.eq(commit.lru_cmd),
        core.occupancy.eq(commit.occupancy),
    ]
