# SPDX-License-Identifier: Apache-2.0
"""Functional coverage of the cocotb testbench: named bins with hit counts, and the goals a
full run must hit (verif/test_kv_asu.py reports the ones missed)."""

from __future__ import annotations

import collections
import json
from pathlib import Path

from regmap import OPS, CtrlWriteEffect, Params

from .addresses import AddrSpace

__all__ = ["Coverage"]

OBSERVE, QUERY = OPS["OBSERVE"], OPS["QUERY"]
OP_NAMES = {value: name for name, value in OPS.items()}


class Coverage:
    """Named bins with hit counts. ``GOALS`` lists the bins a run is expected to hit."""

    def __init__(self, p: Params):
        self.p = p
        self.bins = collections.Counter()

    def hit(self, name, n=1):
        self.bins[name] += n

    def sample(self, req, exp, pre_occ, gap_cycles, seed_active, space: AddrSpace):
        """One accepted request ``req`` and its expected response ``exp`` (dicts); the
        occupancy before it, the cycles since the previous acceptance (``None`` for the
        first) and the active HASH_SEED."""
        op, b = req["op"], self.bins
        opn = OP_NAMES[op]
        if gap_cycles is not None:
            gap_ticks = gap_cycles >> self.p.TICK_SHIFT
            if gap_ticks > 4 * (1 << self.p.TS_WIDTH):
                b["gap.ticks>4*2^TS_WIDTH"] += 1
            elif gap_ticks > (1 << self.p.TS_WIDTH):
                b["gap.ticks>2^TS_WIDTH"] += 1
            elif gap_ticks > self.p.WMAX:
                b["gap.ticks>WMAX"] += 1
        if op == OBSERVE:
            tag = space.tag_of(req["addr"])
            off = (exp["slot"] - space.h(tag, seed_active)) % self.p.ENTRIES
            if exp["present"]:
                b["observe.hit"] += 1
                if exp["tlevel_before"] == 0:
                    b["observe.hit_cold_restart"] += 1
                if exp["count"] == self.p.COUNT_MAX:
                    b["observe.count_saturated"] += 1
                b[f"observe.hit_offset{off}"] += 1
            elif exp["tracked"] and exp["victim_valid"]:
                b["observe.replace"] += 1
                b[f"observe.replace_offset{off}"] += 1
            elif exp["tracked"]:
                b["observe.insert"] += 1
                b[f"observe.insert_offset{off}"] += 1
            else:
                b["observe.drop"] += 1
            b[f"observe.tlevel T{exp['tlevel_before']}->T{exp['tlevel']}"] += 1
            b[f"observe.min_tlevel{req['min_tlevel']}.hit{exp['hit']}"] += 1
        elif op == QUERY:
            b[f"query.present{exp['present']}.hit{exp['hit']}"] += 1
            b[f"query.tlevel T{exp['tlevel_before']}"] += 1
            b[f"query.min_tlevel{req['min_tlevel']}.hit{exp['hit']}"] += 1
        else:
            if exp["victim_valid"]:
                b[f"{opn.lower()}.victim"] += 1
            elif pre_occ == 0:
                b[f"{opn.lower()}.empty_table"] += 1
            else:
                b[f"{opn.lower()}.tail_not_T0"] += 1

    def sample_ctrl(self, effect: CtrlWriteEffect, seed_changed: bool):
        """One CTRL write applied with ``effect``; ``seed_changed``: its commit changed
        HASH_SEED."""
        if effect.refused:
            self.hit("ctrl.commit_refused")
            return
        if effect.commit:
            self.hit("ctrl.commit_ok")
            if seed_changed:
                self.hit("ctrl.commit_seed_change")
        if effect.flush:
            self.hit("ctrl.flush")
        if effect.clear_stats:
            self.hit("ctrl.clear_stats")

    GOALS = [
        "observe.insert", "observe.replace", "observe.drop", "observe.hit",
        "observe.hit_cold_restart", "observe.count_saturated",
        "query.present0.hit0", "query.present0.hit1", "query.present1.hit0", "query.present1.hit1",
        "evict.victim", "evict.empty_table", "evict.tail_not_T0",
        "evict_any.victim", "evict_any.empty_table",
        "gap.ticks>2^TS_WIDTH", "gap.ticks>4*2^TS_WIDTH",
        "ctrl.commit_ok", "ctrl.commit_refused", "ctrl.commit_seed_change", "ctrl.flush",
        "ctrl.clear_stats", "reset.mid_traffic", "rsp.backpressure_stall>=16",
    ] + [f"observe.tlevel T0->T{k}" for k in range(4)] + [
        f"query.tlevel T{k}" for k in range(4)]

    @classmethod
    def goals_for(cls, sim, params: Params):
        """The goals a full run of (sim, configuration) must hit."""
        goals = list(cls.GOALS)
        if params.COUNT_MAX > 4096:
            goals.remove("observe.count_saturated")      # the test runs on Verilator only
        return goals

    def missing(self, goals=None):
        return [g for g in (goals or self.GOALS) if not self.bins.get(g)]

    def summary(self):
        lines = [f"  {k:<40s} {v}" for k, v in sorted(self.bins.items())]
        return "\n".join(lines)

    def dump(self, path):
        Path(path).parent.mkdir(parents=True, exist_ok=True)
        Path(path).write_text(json.dumps(dict(sorted(self.bins.items())), indent=1))
