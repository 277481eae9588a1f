# SPDX-License-Identifier: Apache-2.0
"""Properties of the predictor mode's components (hdl/predictor/, spec-predictor.md P10's
formal list), each on the component alone with every input free (``AnySeq``):

* ``ShadowWellFormed``: a shadow directory (``ShadowDirectory``) is a well-formed list of
  distinct signatures of at most ``depth``: its valid places are exactly ``0 .. length -
  1`` (the thermometer), no two valid places hold one signature; and ``hit`` is exactly "a
  valid place holds the signature" (with ``stages=2``: the signature of the access of the
  cycle before, in the state its S2 reads, which proves S2's correction of the registered
  match by the access ahead's update).
* ``ListsWellFormed``: the LRU and the ghost list (``LiveGhostLists``) under free valid
  moves are, in every cycle, two disjoint well-formed lists of exactly the slots moved
  onto them (the pointer writes in flight applied to the pointers, from the ``observe``
  port), ``gcount`` is the ghost list's length, and the ``gtail2`` prefetch is ``prev``
  of ``gtail``.
* ``SaturatingCounters``: ``PT`` (``ReuseTable``), ``PSEL`` (``LoopDetector``) and
  ``GSEL`` (``Guard``) never wrap: from one cycle to the next each changes by one of its
  steps or saturates (PT: +1, -1; PSEL: +s, -8 s with s one of 4, 2, 1; GSEL: +1, -3; 0 and the top as the
  limits), or takes its flush value; ``epoch`` advances by at most one; and the loop
  detector's ``loop_next`` (the mode an OBSERVE's own insertion uses, chosen by the hits
  from values known from the register) is the mode ``PSEL`` has after the update.

The shadow's and the counters' are one-step properties over the components' registers, so
k-induction proves them for every reachable and unreachable state alike
(``predictor_*_prove`` in formal/jobs.py). The lists' statements need the pointer writes
in flight to be inductive; with them, k-induction proves them too
(``predictor_lists_prove``, ``predictor_lists_prove_compact``).

Each harness builds its environment in ``elaborate`` and states its properties in
``properties(m)``: the cover classes of formal/covers.py subclass it and put goals there,
so that their traces come from the proof's own environment (non-vacuity, P7).
"""

from amaranth import *
from amaranth.hdl import Assert, Assume
from amaranth.hdl._ast import AnySeq, Initial

from hdl.predictor import (Guard, ListFrom, ListTo, LiveGhostLists, LoopDetector, ReuseTable,
                           ShadowDirectory)
from hdl.predictor.constants import ANSWER_KEY_WIDTH

from .common import (FormalMemory, ListMoves, assert_list, bypass_agreements, pointer_view,
                     reset_assumptions, small_params)

__all__ = ["ListsWellFormed", "SaturatingCounters", "ShadowWellFormed"]


class ShadowWellFormed(Elaboratable):
    def __init__(self, depth=4, *, bimodal=True, stages=2):
        self.depth, self.bimodal, self.stages = depth, bimodal, stages

    def elaborate(self, platform):
        m = Module()
        reset_assumptions(m)
        d = self.depth
        m.submodules.dut = dut = ShadowDirectory(d, bimodal=self.bimodal, stages=self.stages,
                                                 observe=True)
        sig_in = Signal(16)
        cap_in = Signal(len(dut.access.payload.cap))
        valid_in, flush_in = Signal(), Signal()
        m.d.comb += [sig_in.eq(AnySeq(16)), cap_in.eq(AnySeq(len(cap_in))),
                     valid_in.eq(AnySeq(1)), flush_in.eq(AnySeq(1))]
        m.d.comb += [dut.access.valid.eq(valid_in), dut.access.payload.sig.eq(sig_in),
                     dut.access.payload.cap.eq(cap_in), dut.flush.eq(flush_in)]
        m.d.comb += Assume(cap_in <= d)          # the caller's bound (documented range)
        if self.stages == 2:
            # The access whose hit is reported now: the one of the cycle before.
            sig_hit, valid_hit = Signal(16), Signal()
            m.d.sync += [sig_hit.eq(sig_in), valid_hit.eq(valid_in)]
            m.d.comb += Assume(~(flush_in & valid_hit))    # the component's flush rule
            cap_hit = Signal.like(cap_in)
            m.d.sync += cap_hit.eq(cap_in)
        else:
            sig_hit, valid_hit, cap_hit = sig_in, valid_in, cap_in
        # What the statements (or a subclass's cover goals) read.
        self.dut, self.sig_in, self.cap_in, self.valid_in, self.flush_in = (
            dut, sig_in, cap_in, valid_in, flush_in)
        self.sig_hit, self.valid_hit, self.cap_hit = sig_hit, valid_hit, cap_hit
        self.properties(m)
        return m

    def properties(self, m):
        d, dut, sig_hit, valid_hit = self.depth, self.dut, self.sig_hit, self.valid_hit
        obs = dut.observe
        valid = obs.valid
        length = obs.length

        m.d.comb += Assert(length <= d)
        for e in range(d):
            m.d.comb += Assert(valid[e] == (e < length))
        for e in range(d):
            for f in range(e):
                m.d.comb += Assert(~(valid[e] & valid[f]) | (obs.sig[e] != obs.sig[f]))
        held = Cat(valid[e] & (obs.sig[e] == sig_hit) for e in range(d)).any()
        m.d.comb += Assert(dut.hit == (valid_hit & held))   # check: shadow-hit


class SaturatingCounters(Elaboratable):
    def __init__(self, pt_entries=4):
        self.pt_entries = pt_entries

    def elaborate(self, platform):
        m = Module()
        reset_assumptions(m)
        p = small_params(entries=16, probe=4)
        m.submodules.pt = pt = ReuseTable(self.pt_entries)
        # PA: the same component with 9-bit keys (its high key bits ignored at this size).
        m.submodules.pa = pa = ReuseTable(self.pt_entries, key_width=ANSWER_KEY_WIDTH)
        # The default table's size: its occupancy reaches every step of PSEL (4, 2, 1).
        m.submodules.loop = loop = LoopDetector(small_params(entries=2048, probe=4))
        m.submodules.guard = guard = Guard(p)
        for comp in (pt, pa, loop, guard):
            for path, member, value in comp.signature.flatten(comp):
                if member.flow.name == "In" and not (path[-1] == "ready"):
                    m.d.comb += value.eq(AnySeq(Value.cast(value).shape().width))

        # The previous cycle: whether it was a reset or a flush, and the counters then.
        was_reset = Signal(reset_less=True)
        m.d.sync += was_reset.eq(ResetSignal())
        started = Signal(reset_less=True)
        m.d.sync += started.eq(1)
        m.d.comb += Assume(~(Initial() & started))
        # What the statements (or a subclass's cover goals) read.
        self.pt, self.pa, self.loop, self.guard = pt, pa, loop, guard
        self.started, self.was_reset = started, was_reset
        self.properties(m)
        return m

    def properties(self, m):
        pt, pa, loop, guard = self.pt, self.pa, self.loop, self.guard
        started, was_reset = self.started, self.was_reset

        def step(m, name, value, flush, allowed, init):
            q = Signal(Value.cast(value).shape(), name=f"{name}_q", reset_less=True)
            fq = Signal(name=f"{name}_flush_q", reset_less=True)
            m.d.sync += [q.eq(value), fq.eq(flush)]
            ok = Const(0)
            for cond in allowed(q):
                ok = ok | cond
            with m.If(started & ~was_reset):
                m.d.comb += Assert(Mux(fq, value == init, ok))

        top = 15
        for name, table in (("pt", pt), ("pa", pa)):
            for i in range(self.pt_entries):
                c = table.counters[i]
                step(m, f"{name}{i}", c, table.flush,
                     lambda q, c=c: [c == q, c == q + 1, c == q - 1], 8)
                m.d.comb += Assert(c <= top)
                # no wrap: 15 never becomes 0 and 0 never 15 in one step
                q = Signal(4, name=f"{name}_wrap_q{i}", reset_less=True)
                m.d.sync += q.eq(c)
                with m.If(started & ~was_reset):
                    m.d.comb += Assert(~((q == 15) & (c == 0)))
                    m.d.comb += Assert(~((q == 0) & (c == 15)))
        psel = loop.psel
        step(m, "psel", psel, loop.flush,
             lambda q: [psel == q] + [
                 move for s in (4, 2, 1) for move in (
                     (psel == q + s) & (q + s <= 1023), (psel == 1023) & (q + s > 1023),
                     (psel == q - 8 * s) & (q >= 8 * s), (psel == 0) & (q < 8 * s))], 0)
        gsel = guard.gsel
        step(m, "gsel", gsel, guard.flush,
             lambda q: [gsel == q, (gsel == q + 1) & (q != 63), (gsel == 63) & (q == 63),
                        (gsel == q - 3) & (q >= 3), (gsel == 0) & (q < 3)], 31)
        epoch = guard.epoch
        step(m, "epoch", epoch, guard.flush,
             lambda q: [epoch == q, epoch == (q + 1)[:3]], 0)
        m.d.comb += Assert(loop.loop == psel[9])
        loop_next_q = Signal(name="loop_next_q", reset_less=True)
        loop_flush_q = Signal(name="loop_flush_q", reset_less=True)
        m.d.sync += [loop_next_q.eq(loop.loop_next), loop_flush_q.eq(loop.flush)]
        with m.If(started & ~was_reset & ~loop_flush_q):
            m.d.comb += Assert(loop.loop == loop_next_q)
        m.d.comb += Assert(guard.rule_on == gsel[5])


class ListsWellFormed(Elaboratable):
    """``LiveGhostLists`` with free moves: two disjoint well-formed lists of exactly the
    slots moved onto them, checked in every cycle, so that k-induction proves it for every
    input sequence.

    The pointers are the logical view the ends are in step with: the XOR of each array's
    two banks with the logical writes still in flight applied (those of the moves in C4,
    C5 and C6, read from the ``observe`` port; three-stage pipeline: C3's):
    ``common.pointer_view``, as for the article's LRU list on the core. The slots expected
    on each list are those the moves that have passed their end update (C3; three-stage:
    C2) put there (``common.ListMoves`` carries each move down a copy of the pipeline and
    applies it in that cycle). A move is given only for a slot on the list it names when
    its C3 comes (the slot's place after the moves ahead of it), a flush only while no
    move is in flight. Asserted in every cycle:

    * the LRU list and the ghost list are well formed (``assert_list``) and hold exactly
      the slots expected on them (so they are disjoint), ``gcount`` is the ghost list's
      length;
    * the prefetch: while ``gtail2_valid`` and the ghost list has two or more slots,
      ``gtail2`` is ``prev`` of ``gtail``;
    * the coded banks' bypass choices (``fb_hit``) say whether the bank write of one or
      two cycles before is at the address the C6 write reads its other bank's word from
      (``common.bypass_agreements``): a start state where they disagree is ruled out.

    ``any_move=True`` drops the assumption on the moves' slots (the sanity job: a move of
    a slot that is not on the list it names breaks the lists, and the check must fail).
    """

    def __init__(self, entries=4, *, registered=True, any_move=False):
        self.entries, self.registered, self.any_move = entries, registered, any_move

    def elaborate(self, platform):
        m = Module()
        reset_assumptions(m)
        n = self.entries
        p = small_params(entries=n, probe=min(2, n))
        dut = LiveGhostLists(p, registered=self.registered, memory=FormalMemory, observe=True)
        dut._MustUse__silence = True                    # elaborated here, not by the tree
        m.submodules.dut = dut.elaborate(platform)      # (its memories are named then)
        sw = p.SLOT_WIDTH
        valid, slot, frm, to, flush = (Signal(), Signal(sw), Signal(ListFrom), Signal(ListTo),
                                       Signal())
        m.d.comb += [valid.eq(AnySeq(1)), slot.eq(AnySeq(sw)), frm.eq(AnySeq(2)),
                     to.eq(AnySeq(2)), flush.eq(AnySeq(1))]
        m.d.comb += [dut.cmd.valid.eq(valid), dut.cmd.payload.slot.eq(slot),
                     dut.cmd.payload.frm.eq(frm), dut.cmd.payload.to.eq(to),
                     dut.flush.eq(flush)]

        moves = ListMoves(m, dut, p)
        m.d.comb += Assume(moves.valid_flush)
        if not self.any_move:
            m.d.comb += Assume(moves.valid_move)

        # What the statements (or a subclass's cover goals) read.
        self.dut, self.moves, self.params = dut, moves, p
        self.properties(m)
        return m

    def properties(self, m):
        dut, where, n = self.dut, self.moves.where, self.entries
        banks = {name: [dut.memories[f"{name}{i}"].cells for i in range(2)]
                 for name in ("prev", "next")}
        prv, nxt = (Array(pointer_view(banks[name], dut.observe, name, self.registered))
                    for name in ("prev", "next"))

        def check(head, tail, empty, code, name):
            expected = [Signal(name=f"{name}_exp{s}") for s in range(n)]
            for s in range(n):
                m.d.comb += expected[s].eq(where[s] == code)
            return assert_list(m, head, tail, empty, expected, nxt, prv, name)

        check(dut.head, dut.tail, dut.empty, 1, "live")
        ghosts = check(dut.ghead, dut.gtail, dut.gempty, 2, "ghost")
        m.d.comb += Assert(dut.gcount == ghosts)
        with m.If(dut.gtail2_valid & (ghosts >= 2)):
            m.d.comb += Assert(dut.gtail2 == prv[dut.gtail])   # check: gtail2

        if self.registered:
            m.d.comb += [Assert(c) for c in bypass_agreements(dut.observe)]
