# SPDX-License-Identifier: Apache-2.0
"""How ``KvAsuCore`` wires the predictor mode (``CoreOptions.predictor``) beside the
article's stages: ``PredictorCarry`` takes the E1b inputs along with the request, and
``PredictorCommit``'s E2 owns the table's and the lists' writes while ``POLICY.MODE`` is 1.

The core (``pipeline.py``, and ``commit_wiring.py`` for E2's outputs) wires what both modes
share (admission, hash, R, M, E1a, the response FIFO) and, where the modes differ on a port
of a shared stage (E1a's forward, R's window start at an EVICT, the LRU command, the
response and the statistics), makes the choice by ``policy`` in the line that wires it;
everything of the mode's own is here.
"""

from ..predictor.constants import SIG_SHIFT, SIG_WIDTH

__all__ = ["connect_predictor"]


def connect_predictor(m, core, *, policy, flush, article_writes):
    """Wire ``core.predictor`` and ``core.predictor_carry`` in ``m``.

    Parameters
    ----------
    m : Module
        The core's module.
    core : KvAsuCore
        A core built with ``CoreOptions.predictor``; its ``hash``, ``admission``,
        ``window``, ``lanes``, ``commit``, ``table`` and ``lru`` feed the mode, and its
        ``cfg`` and ``occupancy`` ports are read and driven.
    policy : Value
        ``POLICY.MODE``: 1 gives the table's writes and the occupancy to the mode.
    flush : Value
        The core's flush (with the recovery's, if any): empties the mode's lists too.
    article_writes : list of Assign
        The article mode's E2 into the table, the LRU list and the occupancy, made while
        ``policy`` is 0.

    The mode's inputs of E1b travel with the request in ``PredictorCarry``; its E2 write
    goes into E1a's ``pmeta`` words there, and into E1a's lanes where the core wires the
    forward (chosen by ``policy``).
    """
    pred, table, lru, carry = core.predictor, core.table, core.lru, core.predictor_carry
    m.submodules.predictor_carry = carry
    m.d.comb += [
        carry.hash_sig.eq(core.hash.hash[SIG_SHIFT:SIG_SHIFT + SIG_WIDTH]),
        carry.s0_free.eq(core.admission.s0_free),
        carry.lane_slot.eq(core.window.window.lane_slot), carry.bk_pmeta.eq(table.bk_pmeta),
        carry.pm_en.eq(pred.pm_en), carry.pm_slot.eq(pred.pm_slot),
        carry.pm_data.eq(pred.pm_data),
        pred.active.eq(policy), pred.lanes.eq(core.lanes.lanes), pred.pmeta.eq(carry.pmeta),
        pred.sig.eq(carry.sig), pred.cfg.eq(core.cfg), pred.flush.eq(flush),
        pred.free_r.eq(carry.free_r), pred.free.eq(carry.free),
        pred.sc_mark_intent.eq(table.sc_mark_intent),
        pred.sc_mark_value.eq(table.sc_mark_value),
        table.pm_en.eq(pred.pm_en), table.pm_slot.eq(pred.pm_slot),
        table.pm_data.eq(pred.pm_data),
        lru.slot.eq(core.commit.lru_slot), lru.flush.eq(flush),
    ]
    with m.If(policy):
        m.d.comb += [
            table.wr_en.eq(pred.wr_en), table.wr_slot.eq(pred.wr_slot),
            table.wr_count.eq(pred.wr_count), table.wr_tag.eq(pred.wr_tag),
            table.wr_last.eq(pred.wr_last), table.wr_mark.eq(pred.wr_mark),
            table.inv_en.eq(pred.inv_en), table.inv_slot.eq(pred.inv_slot),
            core.occupancy.eq(pred.occupancy),
        ]
    with m.Else():
        m.d.comb += article_writes
