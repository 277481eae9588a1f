# SPDX-License-Identifier: Apache-2.0
"""Property 7: every outcome is reachable (SBY ``cover`` mode), and the environments of the
proofs are not vacuous.

Core (``CoreCovers``, free environment of ``CoreHarness``), each from a response taken by
the consumer or a statistics strobe of the core (the flush of a non-empty table, a full
table and exhausted credits from the core's own state):
insert, observe hit, replacement (with ``victim_valid``), drop, QUERY hit, QUERY miss,
EVICT that removes a line, EVICT that finds nothing on a non-empty list (tail not T0),
EVICT on an empty list, EVICT_ANY that removes, an OBSERVE whose line was T3, a flush of a
non-empty table, a full table (``occupancy == ENTRIES``), exhausted credits
(``inflight == fifo depth``: every credit in use, so ``req.ready`` would be low).

Register block (``RegCovers``, environment of ``AxilHarness``): a commit accepted that
changes the configuration, a commit refused (``STATUS.ERROR`` rises), ``SLVERR`` for a
write to a read-only word, ``DECERR`` for a write and for a read, a flush pulse, a
statistics clear pulse and a soft-error clear pulse from a CTRL write, a read answered
``OKAY``.
"""

from amaranth import *
from amaranth.hdl import Cover

import regmap
from hdl.axil import AxiResp
from hdl.layouts import STAT_NAMES

from .axil_props import AxilHarness
from .core_harness import CoreHarness

__all__ = ["CoreCovers", "RegCovers"]

OBSERVE, QUERY, EVICT, EVICT_ANY = (regmap.OPS[n] for n in
                                    ("OBSERVE", "QUERY", "EVICT", "EVICT_ANY"))


class CoreCovers(CoreHarness):
    def properties(self, m):
        p = self.params
        core = self.core
        rsp = core.rsp.payload
        took = self.pop

        def stat(name):
            return core.stat_inc[STAT_NAMES.index(name)]

        goals = {
            "insert": stat("inserts"),
            "observe_hit": stat("observe_hits"),
            "replacement": took & (rsp.op == OBSERVE) & rsp.victim_valid & rsp.tracked,
            "drop": stat("drops"),
            "query_hit": took & (rsp.op == QUERY) & rsp.present & rsp.hit,
            "query_miss": took & (rsp.op == QUERY) & ~rsp.present,
            "evict_removes": took & (rsp.op == EVICT) & rsp.victim_valid,
            "evict_nothing_nonempty": stat("evicts_empty") & (self.occupancy != 0),
            "evict_nothing_empty": stat("evicts_empty") & (self.occupancy == 0),
            "evict_any_removes": took & (rsp.op == EVICT_ANY) & rsp.victim_valid,
            "observe_t3": stat("obs_t3"),
            "flush_nonempty": self.flush & (self.occupancy != 0),
            "table_full": self.occupancy == p.ENTRIES,
            "credits_exhausted": self.inflight == core.fifo_depth,
        }
        self.goals = goals
        for name, cond in goals.items():
            c = Signal(name=f"cover_{name}")
            m.d.comb += c.eq(cond)
            m.d.comb += Cover(c)


class RegCovers(AxilHarness):
    def properties(self, m):
        bus, regs = self.bus, self.regs
        error = regs.observe.error
        error_prev = Signal()
        cfg_prev = Signal.like(regs.cfg)
        m.d.sync += [error_prev.eq(error), cfg_prev.eq(regs.cfg)]
        goals = {
            "commit_accepted": regs.cfg.as_value() != cfg_prev.as_value(),
            "commit_refused": error & ~error_prev,
            "slverr_ro_write": self.b_hs & (bus.bresp == AxiResp.SLVERR) & ~error,
            "decerr_write": self.b_hs & (bus.bresp == AxiResp.DECERR),
            "decerr_read": self.r_hs & (bus.rresp == AxiResp.DECERR),
            "okay_read": self.r_hs & (bus.rresp == AxiResp.OKAY),
            "flush_from_ctrl": regs.flush,
            "clear_stats_from_ctrl": regs.observe.clear_stats,
            "clear_soft_error_from_ctrl": regs.observe.clear_soft_error,
        }
        self.goals = goals
        for name, cond in goals.items():
            c = Signal(name=f"cover_{name}")
            m.d.comb += c.eq(cond)
            m.d.comb += Cover(c)
