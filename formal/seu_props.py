# SPDX-License-Identifier: Apache-2.0
"""Soft errors (docs/spec-decisions.md D11): one upset in any block-RAM word of the
protected core, and what the core's invariants say before, during and after the recovery.

The core is the protected one (``CoreOptions(protection="auto")``: SECDED on every memory
of the small configuration), built on the register-model memory with its upset port
(``FormalMemory(upsets=True)``) under each of its ``ProtectedMemory`` and
``RegisteredReadRam`` arrays: the table's ``ent<b>``, ``meta<b>``, ``mark<b>`` and
``scrub``, the LRU list's ``prev0/1`` and ``next0/1``, i.e. every block RAM of
``KvAsuCore`` (the statistics memory is in the register block, outside the core; the
response FIFO is distributed RAM, outside D11).

**The upset** (``CoreHarness._upset_port``): free inputs choose one cycle, one memory, one
word and ``flips`` bits of it (1: a single-bit upset; 2: two bits of one word in one
cycle) within the memory's coded width, check bits included; the word takes its value of
that cycle's end XOR those bits. At most one upset per run (the flag has no reset).
Everything else is ``CoreHarness``'s free environment (requests, back-pressure, ``enable``,
``hold``, flushes, configuration changes), with reset in the first cycle only (resets
in every cycle without an upset: ``resets=True``, below).

**The views.** The harness records the flipped bits that no write has rewritten since,
and its views (``valid``, ``tag``, the LRU pointers, ...) are the words *without the
upset* (the record XORed back out; the data bits of the code words). So the view is the
state of a core that had no upset, whatever the core has or has not read of the word.

Asserted every cycle (``flips`` 1 or 2):

* (a) no error is flagged (uncorrectable or corrected) before an upset; with ``flips=1``,
  an upset in a memory whose reads correct (``prev*``, ``next*``, ``scrub``) never starts a
  recovery;
* (b) outside a recovery, every invariant of ``CoreInvariants`` (P1 the LRU list a
  well-formed list of exactly the tracked slots, P2 the occupancy, P3 one slot per line in
  its window, the generation window, every helper invariant of ``CoreHarness``) holds of
  the upset-free view, and a victim E2 reports (an EVICT's, a replacement's) is a tracked
  line of that view with the reported tag: before the upset, after it while the core
  corrects it or has not met it (the core never acts on the flipped word), and again from
  the first cycle after a recovery;
* (c) a recovery (``recovering``) lasts at most D11's bound ``R = LATENCY + ENTRIES + 3``
  (``+ 4`` with ``PROBE`` 1: ``golden_model.soft_errors.recovery_bound``) cycles from the
  cycle ``d`` it starts (``recovering`` is low again by ``d + R``), and
  ``req.ready`` is low throughout;
* when a recovery ends (not by a reset): the LRU list empty, the occupancy 0, every valid
  bit of the table 0, nothing in flight, and the flipped bits rewritten (every word a code
  word again);
* (d) the response stream: never a response without an accepted request (none duplicated),
  at most the FIFO depth owed, the credit counter equal to what is owed, and a valid
  response stays valid with the same payload until it is taken.

With ``invariants=False`` only (a), (c), the end state and (d) are asserted (a smaller
cone, so a deeper BMC). ``SeuCovers`` shows the goals the proofs rely on are reached.

``resets=True`` with no upset (job ``core_seu_reset_bmc``): resets free in every cycle, the
block never flags an error. This holds because the registers that say a read met a write
(``ProtectedMemory``'s ``met`` flag, the table's snoop registers) are not reset: a reset
does not cancel the block RAM's read whose undefined word they mask. The soft-error jobs
with an upset reset only in the first cycle.
"""

from amaranth import *
from amaranth.hdl import Assert, Assume, Cover
from amaranth.hdl._ast import Initial
import regmap
from golden_model.soft_errors import recovery_bound

from .table_props import CoreInvariants

__all__ = ["SeuInvariants", "SeuCovers", "SeuTwin", "CORRECTED_MEMORIES"]

#: The memories whose reads correct a single flipped bit (D11): no recovery for them.
CORRECTED_MEMORIES = ("prev0", "prev1", "next0", "next1", "scrub")


class SeuInvariants(CoreInvariants):
    """The core's invariants around one upset (see the module docstring).

    Parameters
    ----------
    params : regmap.Params
    flips : int
        Bits flipped by the upset (1 or 2), in one word in one cycle; 0: no upset at all
        (``core_seu_reset_bmc``, with ``resets=True``).
    memories : sequence of str or None
        Upset only these memories (names as in ``CoreHarness.upset_memories``); ``None``:
        any of them.
    protection : str
        ``CoreOptions.protection`` of the core (``"auto"``: D11's choice per memory;
        ``"none"``: the unprotected core, every invariant claimed every cycle, for the
        sanity job).
    resets : bool
        Resets free in every cycle (``False``: in the first cycle only).
    invariants : bool
        Assert (b) (``False``: only (a), (c), the end state and (d), for depth).
    """

    def __init__(self, params, *, flips=1, memories=None, protection="auto",
                 resets=False, invariants=True, **kw):
        if flips not in (0, 1, 2):
            raise ValueError(f"flips must be 0, 1 or 2, not {flips!r}")
        if not isinstance(resets, bool):
            raise TypeError(f"resets must be a bool, not {resets!r}")
        from hdl.core import CoreOptions
        super().__init__(params, upsets=max(flips, 1), upset_memories=memories,
                         options=CoreOptions(protection=protection), **kw)
        self.flips = flips
        self.resets = resets
        # False: only the recovery's properties (c), its end state and (d), for depth
        self.invariants = invariants

    # -- properties ----------------------------------------------------------------------
    def _recovery(self, m):
        """The upset and the recovery's view: ``upset_now``, ``upset_done``,
        ``hit_corrected``, ``rec_end`` (a recovery ends: ``recovering`` fell, not by a
        reset), ``recovery_cycles`` (cycles since its start ``d``: 1 in ``d + 1``, ...),
        ``recovery_bound`` (R)."""
        core, p = self.core, self.params
        rec = core.recovery
        now = self.upset_now
        if not self.flips:
            m.d.comb += Assume(~now)
        hit_corrected = Signal(name="upset_corrected_mem", reset_less=True)
        corrected = Cat(now & (self.upset_which == k) for k, name in
                        enumerate(self.upset_names) if name in CORRECTED_MEMORIES).any()
        m.d.sync += hit_corrected.eq(hit_corrected | corrected)
        self.hit_corrected = hit_corrected
        if not self.resets:
            # Reset only in the first cycle: the upset's proofs keep the reset out of their
            # cone; that a reset alone never flags an error is core_seu_reset_bmc's.
            with m.If(~Initial()):
                m.d.comb += Assume(~ResetSignal())
        recovering = core.recovering
        R = recovery_bound(p, core.latency)
        self.recovery_bound = R

        # A recovery's end: `recovering` falls, not by a reset.
        rec_q = Signal(name="recovering_q", reset_less=True)
        rst_q = Signal(name="rst_q", reset_less=True)
        m.d.sync += [rec_q.eq(recovering), rst_q.eq(ResetSignal())]
        rec_end = Signal(name="recovery_end")
        m.d.comb += rec_end.eq(rec_q & ~recovering & ~rst_q)
        self.rec_end = rec_end
        # Cycles since the recovery's start d (1 in d + 1, ...).
        since = Signal(range(4 * R), name="recovery_cycles")
        with m.If(rec.start):
            m.d.sync += since.eq(1)
        with m.Elif(recovering & (since < 4 * R - 1)):
            m.d.sync += since.eq(since + 1)
        self.recovery_cycles = since

    def properties(self, m):
        if not self.protected:
            # (the sanity job: the unprotected core, every invariant claimed every cycle)
            super().properties(m)
            return
        core = self.core
        rec = core.recovery
        self._recovery(m)
        done, hit_corrected = self.upset_done, self.hit_corrected
        recovering, rec_end, since = core.recovering, self.rec_end, self.recovery_cycles
        R = self.recovery_bound

        # Where the invariants are claimed (CoreHarness's own and CoreInvariants').
        checking = ~recovering if self.invariants else C(0)
        m.d.comb += self.checking.eq(checking)
        if self.invariants:
            with m.If(checking):
                super().properties(m)
                self._victims(m)

        # (a) errors only after an upset; a corrected memory's single upset starts nothing.
        m.d.comb += [Assert(~core.err_uncorrectable | done),
                     Assert(~core.err_corrected | done)]
        if self.flips == 1:
            m.d.comb += Assert(~rec.start | ~hit_corrected)

        # (c) the bound, and no request accepted during a recovery.
        m.d.comb += [Assert(~recovering | (since <= R - 1)),
                     Assert(~recovering | ~core.req.ready)]

        # The state a recovery leaves.
        with m.If(rec_end):
            m.d.comb += [Assert(self.empty), Assert(self.occupancy == 0),
                         Assert(~self.l_valid), Assert(since <= R)]
            m.d.comb += [Assert(~v) for v in self.raw_valid]
            m.d.comb += [Assert(~st[0]) for st in self.stages]
            m.d.comb += Assert(self.flipped_bits == 0)        # the upset rewritten

        # (d) the response stream.
        self._stream(m)

    def _victims(self, m):
        """A victim E2 reports is a tracked line of the view, with the reported tag: an
        EVICT's (the tail's slot, lane 0) and a replacement's (the slot it writes)."""
        obs, p = self.obs, self.params
        d2, fwd = obs.e2, obs.forward
        valid, tag = Array(self.valid), Array(self.tag)
        evict = d2.valid & d2.op[1] & d2.take
        m.d.comb += Assert(~evict | (valid[d2.tail_slot] &
                                     (tag[d2.tail_slot] == d2.lane_tag[0])))
        replace = (d2.valid & (d2.op == regmap.OPS["OBSERVE"]) & ~d2.present &
                   ~d2.any_free & d2.vict_t0)
        vtag = Signal(p.TAG_WIDTH, name="victim_tag_e2")
        for i in range(p.PROBE):
            with m.If(d2.vict_lane[i]):
                m.d.comb += vtag.eq(d2.lane_tag[i])
        m.d.comb += Assert(~replace | (fwd.write & valid[fwd.slot] & (tag[fwd.slot] == vtag)))

    def _stream(self, m):
        core = self.core
        depth = core.fifo_depth
        pending = Signal(range(2 * depth + 2), name="pending")
        m.d.sync += pending.eq(pending + self.accept - self.pop)
        m.d.comb += [Assert(~self.pop | (pending > 0)), Assert(pending <= depth),
                     Assert(pending == self.inflight)]
        rsp = core.rsp
        held = Signal(name="rsp_held")
        payload_q = Signal.like(rsp.payload, name="rsp_payload_q")
        m.d.sync += [held.eq(rsp.valid & ~rsp.ready), payload_q.eq(rsp.payload)]
        rst_q = Signal(name="stream_rst_q", reset_less=True)
        m.d.sync += rst_q.eq(ResetSignal())
        with m.If(held & ~rst_q):
            m.d.comb += [Assert(rsp.valid), Assert(rsp.payload == payload_q)]


class SeuCovers(SeuInvariants):
    """Non-vacuity of the soft-error proofs (cover goals, no assertions): each kind of
    table memory's upset detected (a recovery starts and reports ``err_mem`` that memory), an
    LRU bank's and ``scrub``'s upset corrected, a recovery that ends, one that takes the
    whole bound ``R``, a request accepted after a recovery, and three corner cases: a
    recovery that starts while a flush's clear sweep runs (``recovery_starts_in_sweep``; the
    window read port is checked every cycle, used or not, so no request is needed), an LRU
    word that an ``EVICT_ANY``'s POP reads corrected (``lru_corrected_in_pop``: the report
    of that read, for the popped slot), and a recovery running while the response FIFO is
    full and ``rsp.ready`` low (``recovery_fifo_full``)."""

    #: Cycles from a POP given in E2 (the list's C1 read of the tail it unlinks) to the
    #: report of that read's check (``lru.err_*``, registered).
    POP_REPORT = 2

    def properties(self, m):
        from hdl.lru.layouts import LruCmd
        core = self.core
        lru, commit = core.lru, core.commit
        self._recovery(m)
        ids = regmap.MEM_IDS
        after = Signal(name="after_recovery", reset_less=True)
        with m.If(self.rec_end):
            m.d.sync += after.eq(1)
        # An EVICT_ANY's POP, and its slot, registered along to its read's report.
        pop_q = Signal(name="evict_any_pop")
        m.d.comb += pop_q.eq((commit.lru_cmd == LruCmd.POP) &
                             (commit.e2.op == regmap.OPS["EVICT_ANY"]))
        slot_q = commit.lru_slot
        for k in range(1, self.POP_REPORT + 1):
            pq = Signal(name=f"evict_any_pop_q{k}")
            sq = Signal.like(commit.lru_slot, name=f"evict_any_slot_q{k}")
            m.d.sync += [pq.eq(pop_q), sq.eq(slot_q)]
            pop_q, slot_q = pq, sq
        # The report (which memory) is registered a cycle after the recovery starts
        # (D11), beside ``err_started``.
        reported = core.err_started
        goals = {
            "detect_ent": reported & (core.err_mem == ids["ent"]),
            "detect_meta": reported & (core.err_mem == ids["meta"]),
            "detect_mark": reported & (core.err_mem == ids["mark"]),
            "corrected_lru": lru.err_corrected,
            "corrected_scrub": core.table.err_corrected & (core.table.err_mem == ids["scrub"]),
            "recovery_end": self.rec_end,
            "recovery_full_bound": self.rec_end & (self.recovery_cycles == self.recovery_bound),
            "accept_after_recovery": after & self.accept,
            "recovery_starts_in_sweep": core.recovery.start & core.flushing,
            "lru_corrected_in_pop": lru.err_corrected & pop_q & (lru.err_slot == slot_q),
            "recovery_fifo_full": core.recovering & ~core.rsp.ready &
                                  (self.fifo_level == core.fifo_depth),
        }
        for name, cond in goals.items():
            c = Signal(name=f"cover_{name}")
            m.d.comb += [c.eq(cond), Cover(c)]


class SeuTwin(SeuInvariants):
    """The responses of the core with the upset against those of a twin core without it
    (the same protected core on the plain register model, the same hash function, the same
    inputs every cycle): until the first cycle in which the upset core starts a recovery,
    ``req.ready``, ``rsp.valid``, the response payload while valid, ``idle``, ``occupancy``
    and ``stat_inc`` are the twin's. So an upset that is corrected (or not yet met)
    changes nothing the block's user sees; with ``flips=1`` and an upset in a memory
    whose reads correct (no recovery, asserted by ``SeuInvariants``) that is the whole run.
    Only the first half of (a) (no error flagged before the upset) and the comparison are
    asserted (``invariants=False``)."""

    def __init__(self, params, *, compare_always=False, **kw):
        super().__init__(params, invariants=False, **kw)
        # sanity job: compare after a recovery has started too (must then fail)
        self.compare_always = compare_always

    def properties(self, m):
        from hdl.core import KvAsuCore
        from .common import FORMAL_GEN_WIDTH, formal_models
        core, p = self.core, self.params
        self._recovery(m)
        m.d.comb += self.checking.eq(0)            # (the comparison only)
        done = self.upset_done
        m.d.comb += [Assert(~core.err_uncorrectable | done),
                     Assert(~core.err_corrected | done)]
        if not self.resets:
            with m.If(~Initial()):
                m.d.comb += Assume(~ResetSignal())
        models = formal_models(p, hash_latency=self.hash_latency)
        twin = KvAsuCore(p, self.options, gen_width=FORMAL_GEN_WIDTH, **models)
        m.submodules.twin = twin
        for a, b in zip(twin.hash.table, core.hash.table):
            m.d.comb += Assume(a == b)
        m.d.comb += [
            twin.req.valid.eq(core.req.valid), twin.req.payload.eq(core.req.payload),
            twin.rsp.ready.eq(core.rsp.ready), twin.enable.eq(core.enable),
            twin.hold.eq(core.hold), twin.flush.eq(core.flush), twin.cfg.eq(core.cfg),
            twin.cycle.eq(core.cycle), twin.nonblocking.eq(core.nonblocking),
        ]
        started = Signal(name="recovery_started", reset_less=True)
        with m.If(core.recovery.start):
            m.d.sync += started.eq(1)
        same = C(1) if self.compare_always else ~started & ~core.recovery.start
        with m.If(same):
            m.d.comb += [
                Assert(twin.req.ready == core.req.ready),             # check: twin-ready
                Assert(twin.rsp.valid == core.rsp.valid),             # check: twin-rsp-valid
                Assert(~core.rsp.valid | (twin.rsp.payload == core.rsp.payload)),  # check: twin-payload
                Assert(twin.idle == core.idle),                       # check: twin-idle
                Assert(twin.occupancy == core.occupancy),             # check: twin-occupancy
                Assert(twin.stat_inc == core.stat_inc),               # check: twin-stat-inc
                Assert(~twin.err_uncorrectable & ~twin.err_corrected),
            ]
