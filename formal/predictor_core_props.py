# SPDX-License-Identifier: Apache-2.0
"""spec-predictor.md P3 / P10's lists on the core: ``KvAsuCore`` built with
``CoreOptions(predictor=True)`` in ``POLICY.MODE = 1``, every input free (as
formal/core_harness.py's environment), its state read from the table's memories and from
``PredictorCommit``'s ports and lists.

``PredictorCoreLists`` asserts, at every *settled* point (``POLICY.MODE = 1``, no clear
sweep, and no list move, table write, ``pmeta`` write or ghost free for ``QUIET`` cycles,
so every pointer write of the last move has landed), over the table's tracked slots
(``valid``: valid bit and current generation, D12) and their ``pmeta`` words:

* the LRU list (``LiveGhostLists`` head, tail, empty, the ``prev`` / ``next`` banks) is a
  well-formed list (the walk from the head over ``next`` reaches the tail, ``prev``
  mirrors it, no slot twice) of exactly the tracked slots with ``ghost = 0``; the ghost
  list likewise of exactly the tracked slots with ``ghost = 1``: so the two are disjoint
  and together hold exactly the tracked slots (P3);
* ``gcount`` is the ghost list's length; the mode's occupancy is the LRU list's length;
  ``gcount <= occupancy``, or both are 0 (P3, after every request);
* no ghost is a probe and has no stamp; a slot with ``probe = 0`` has ``stamp = 0`` (P3,
  P12: probes only on live slots);
* every tracked tag, live or ghost, lies in its own window (the abstract hash ``F``), and
  no two tracked slots hold one tag (P3).

and in *every* cycle that each move the core gives ``LiveGhostLists`` names the list its
slot is on once the moves ahead of it are done, and that no flush comes with a move given
or in flight (``common.ListMoves``): the conditions under which the lists alone are proven
well formed (formal/predictor_props.py ``ListsWellFormed``).

Environment: requests, ``rsp.ready``, ``enable``, ``hold`` free every cycle; ``flush``
only while the core is idle and not sweeping (the register block's guarantee, D8);
``policy`` changes only with a flush (as the register block changes it, spec-predictor.md
P2) and is 1 where the properties are claimed; ``nonblocking`` free, changing only while
the core is idle (a commit's, D13); a legal configuration that changes only at ``hold`` and ``idle``;
``rst`` high in the first cycle and free after it (a reset in the middle of a run keeps
the memories' contents: the ``pmeta`` words of untracked slots are whatever they were).
A BMC from reset (the properties are claimed only when settled, which is not inductive).

``steady=True`` narrows the environment so that the BMC's depth reaches more requests in
the same solver time (about three, enough for an OBSERVE, another and an EVICT that leaves
a ghost): ``rsp.ready`` and ``enable`` high, ``hold`` low, one configuration,
``POLICY.MODE = 1`` from reset, reset in the first cycles only (flushes stay free), and a
request presented only while the core is idle (the mode takes OBSERVEs and QUERYs back to
back, and a BMC of those, the free environment's, reaches no ghost within a depth it can
solve).

``wrong="no_ghost"`` plants a false statement for the sanity job (SBY must report FAIL):
that a settled state never has a ghost. Its counterexample is also the evidence that the
BMC's depth reaches settled states with ghosts (an OBSERVE, another, an EVICT), so the
properties above are not claimed of empty lists only. ``wrong="no_live"`` (that a settled
state never has a live line) does the same for the free environment. A sanity variant
claims its planted statement alone (the properties above are the main jobs'), so that the
solver's work at each step is the search for the state that refutes it.

The statements are made in ``properties(m)``; ``formal.covers.PredictorCoreCovers``
replaces them by cover goals on the same environment (non-vacuity, P7).
"""

from amaranth import *
from amaranth.hdl import Assert, Assume
from amaranth.hdl._ast import AnySeq

from amaranth.lib import data

from hdl.core import CoreOptions, KvAsuCore
from hdl.core.interfaces import pmeta_layout

from .common import (FORMAL_GEN_WIDTH, ListMoves, assert_list, elaborated, formal_models,
                     free_config, popcount, reset_assumptions, small_params)

__all__ = ["PredictorCoreLists"]


class PredictorCoreLists(Elaboratable):
    #: Cycles without a move or table write after which the lists are settled: a move's
    #: pointer writes land in its C6 (hdl.lru's six-stage pipeline).
    QUIET = 6

    def __init__(self, params=None, *, hash_latency=1, wrong=None, steady=False):
        self.params = params or small_params()
        self.hash_latency = hash_latency
        # steady: the narrower environment of the deep BMC (rsp.ready, enable high, hold
        # low, one configuration, POLICY.MODE = 1 from reset, reset only in the first
        # cycle, a request only while the core is idle), so that its depth reaches more
        # requests, and a ghost, in the same solver time
        self.steady = steady
        if wrong not in (None, "no_ghost", "no_live"):
            self._MustUse__silence = True
            raise ValueError(f"unknown planted statement {wrong!r}")
        self.wrong = wrong

    def elaborate(self, platform):
        m = Module()
        p = self.params
        E, P = p.ENTRIES, p.PROBE
        pb = P.bit_length() - 1
        options = CoreOptions(predictor=True, protection="none")
        core = KvAsuCore(p, options, gen_width=FORMAL_GEN_WIDTH,
                         **formal_models(p, hash_latency=self.hash_latency))
        m.submodules.core = elaborated(core, platform)
        reset_assumptions(m)
        pred, adm, tbl = core.predictor, core.admission, core.table
        lists = pred.lists

        # ---- environment (formal/core_harness.py's, with the policy) -------------------
        env = free_config(m, core, p)
        hold_idle, first = env.hold_idle, env.first
        cfg_free, cfg_prev = env.cfg_free, env.cfg_prev
        req_valid, rsp_ready, enable, hold, flush, nonblocking = (Signal(name=n) for n in (
            "req_valid", "rsp_ready", "enable", "hold", "flush", "nonblocking"))
        req_payload = Signal.like(core.req.payload)
        policy = Signal(name="policy")
        for sig in (req_valid, req_payload, rsp_ready, enable, hold, flush, policy,
                    nonblocking):
            m.d.comb += sig.eq(AnySeq(len(Value.cast(sig))))
        m.d.comb += [
            core.req.valid.eq(req_valid), core.req.payload.eq(req_payload),
            core.rsp.ready.eq(rsp_ready), core.enable.eq(enable), core.hold.eq(hold),
            core.flush.eq(flush), core.nonblocking.eq(nonblocking), core.policy.eq(policy),
            hold_idle.eq(hold & core.idle),
        ]
        m.d.comb += Assume(~flush | (core.idle & ~core.flushing))
        # POLICY.MODE changes only with a flush (the commit's pulse), or at reset.
        policy_q = Signal()
        m.d.sync += policy_q.eq(policy)
        m.d.comb += Assume(first | flush | (policy == policy_q))
        # MODE.NONBLOCKING changes only with a commit, while the core is idle.
        nonblocking_q = Signal()
        m.d.sync += nonblocking_q.eq(nonblocking)
        m.d.comb += Assume(first | core.idle | (nonblocking == nonblocking_q))
        if self.steady:
            started = Signal()
            m.d.sync += started.eq(1)
            m.d.comb += [Assume(rsp_ready & enable & ~hold & policy),
                         Assume(~started | (cfg_free == cfg_prev)),
                         Assume(~started | ~ResetSignal()),
                         Assume(~req_valid | core.idle)]

        # ---- views ---------------------------------------------------------------------
        valid, tag, pm = [], [], []
        for s in range(E):
            b, row = s % P, s >> pb
            meta = tbl.memories[f"meta{b}"].cells[row]
            valid.append(meta.valid & (meta.gen == adm.generation))
            tag.append(tbl.memories[f"ent{b}"].cells[row].tag)
            pm.append(data.View(pmeta_layout(), tbl.memories[f"pmeta{b}"].cells[row]))
        banks = {name: [lists.memories[f"{name}{i}"].cells for i in range(2)]
                 for name in ("prev", "next")}
        prv = Array(banks["prev"][0][s] ^ banks["prev"][1][s] for s in range(E))
        nxt = Array(banks["next"][0][s] ^ banks["next"][1][s] for s in range(E))

        # settled: no move, write or free for QUIET cycles, in the mode, no sweep
        activity = (lists.cmd.valid | pred.wr_en | pred.pm_en | pred.inv_en | flush)
        quiet = Signal(range(self.QUIET + 1))
        with m.If(activity | ResetSignal()):
            m.d.sync += quiet.eq(0)
        with m.Elif(quiet != self.QUIET):
            m.d.sync += quiet.eq(quiet + 1)
        settled = Signal()
        m.d.comb += settled.eq((quiet == self.QUIET) & policy & ~flush & ~core.flushing &
                               ~ResetSignal())

        live = [Signal(name=f"live{s}") for s in range(E)]
        ghost = [Signal(name=f"ghost{s}") for s in range(E)]
        for s in range(E):
            m.d.comb += [live[s].eq(valid[s] & ~pm[s].ghost), ghost[s].eq(valid[s] & pm[s].ghost)]

        # What the statements (or a subclass's cover goals) read.
        self.core, self.pred, self.lists = core, pred, lists
        self.flush, self.policy, self.settled = flush, policy, settled
        self.valid, self.tag, self.pm, self.live, self.ghost = valid, tag, pm, live, ghost
        self.prv, self.nxt = prv, nxt
        self.properties(m)
        return m

    def properties(self, m):
        p, core, pred, lists = self.params, self.core, self.pred, self.lists
        E, P, sw = p.ENTRIES, p.PROBE, p.SLOT_WIDTH
        settled, valid, tag, pm = self.settled, self.valid, self.tag, self.pm
        live, ghost, prv, nxt = self.live, self.ghost, self.prv, self.nxt
        if self.wrong is None:
            # In every cycle, the moves the core gives its lists are those under which the
            # lists alone are proven well formed (formal/predictor_props.py ListsWellFormed).
            moves = ListMoves(m, lists, p)
            m.d.comb += [Assert(moves.valid_move), Assert(moves.valid_flush)]

        if self.wrong is not None:
            # A sanity variant claims its planted statement only: the solver then searches
            # for the state that refutes it, not also for a refutation of every property
            # above at every step (those are the main jobs'), and its counterexample's
            # step is the depth at which the BMC reaches such a state.
            with m.If(settled):
                if self.wrong == "no_ghost":
                    m.d.comb += Assert(popcount(ghost) == 0)    # check: no-ghost
                else:
                    m.d.comb += Assert(popcount(live) == 0)     # check: no-live
            return

        with m.If(settled):
            n_live = assert_list(m, lists.head, lists.tail, lists.empty, live, nxt, prv, "live")
            n_ghost = assert_list(m, lists.ghead, lists.gtail, lists.gempty, ghost, nxt, prv,
                                  "ghost")
            occ = pred.occupancy
            m.d.comb += [
                Assert(lists.gcount == n_ghost),
                Assert(occ == n_live),
                Assert((lists.gcount <= occ) | ((occ == 0) & (lists.gcount == 0))),
            ]
            for s in range(E):
                m.d.comb += [
                    Assert(~ghost[s] | (~pm[s].probe & (pm[s].stamp == 0))),
                    Assert(~valid[s] | pm[s].probe | (pm[s].stamp == 0)),
                ]
                # its own window (F of its tag), and one slot per tag
                home = Signal(sw, name=f"home{s}")
                with m.Switch(tag[s]):
                    for t, v in enumerate(core.hash.table):
                        with m.Case(t):
                            m.d.comb += home.eq(v)
                m.d.comb += Assert(~valid[s] | ((s - home)[:sw] < P) if sw else Const(1))
                for r in range(s):
                    m.d.comb += Assert(~(valid[s] & valid[r]) | (tag[s] != tag[r]))
