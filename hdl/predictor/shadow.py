# SPDX-License-Identifier: Apache-2.0
"""A shadow directory of the predictor mode's loop detector (spec-predictor.md P11).

An ordered list of at most ``depth`` distinct signatures, from the LRU end (``tail``) to
the MRU end (``head``), that takes one access per cycle: a fully associative lookup of the
signature; on a hit, a move to the MRU end; on a miss, up to two drops at the LRU end while
the list holds at least ``cap`` signatures, then the insertion of the signature at the MRU
end, or, in a bimodal directory, at the LRU end unless its counter wraps (once in 32).

Every entry (``valid``, ``sig``, ``prev``, ``next``) and both ends are flip-flops, and a
burst of accesses, one per cycle, needs no queue (docs/rtl-predictor.md states the choice
and its cost). With ``stages=1`` an access is looked up and applied in its cycle. With
``stages=2`` (the core's choice: half the logic depth) the lookup's compare is made in the
access's cycle (S1) and registered, and the update is made in the next (S2): the access
behind then compares against the state before the access ahead's update, and S2 corrects
its registered match by that update, the only one it missed (the entries the access ahead
dropped no longer match; if both have one signature, the match is the entry the access
ahead left it in). The result is the same sequence of hits and orders, one cycle later. ``next`` points from the MRU end towards the LRU end, ``prev`` back; the links of the
ends (``prev[head]``, ``next[tail]``) and of free entries are meaningless and never read.
"""

from amaranth import *
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

from .bimodal import BimodalCounter
from .constants import BIP_WIDTH, SIG_WIDTH

__all__ = ["ShadowDirectory", "ShadowObservationSignature", "access_layout"]


def _or_tree(values):
    """The OR of ``values`` as a balanced tree."""
    while len(values) > 1:
        values = [values[i] | values[i + 1] if i + 1 < len(values) else values[i]
                  for i in range(0, len(values), 2)]
    return values[0]


def _first_set(bits, width):
    """``(any, index)`` of the lowest set bit of ``bits`` (a list of 1-bit values), as a
    balanced tree of 2:1 choices (depth log2 of the count, not a chain)."""
    if len(bits) == 1:
        return bits[0], Const(0, width)
    half = 1 << (ceil_log2(len(bits)) - 1)
    lo_any, lo_idx = _first_set(bits[:half], width)
    hi_any, hi_idx = _first_set(bits[half:], width)
    return lo_any | hi_any, Mux(lo_any, lo_idx, hi_idx | half)    # hi_idx < half: no add


def access_layout(depth, sig_width=SIG_WIDTH):
    """An access: the signature ``sig`` and the bound ``cap`` (1..``depth``)."""
    return data.StructLayout({"sig": sig_width, "cap": range(depth + 1)})


class ShadowObservationSignature(wiring.Signature):
    """The directory's state, for the tests and the formal views (all ``Out``, registers):
    ``valid`` (``depth`` bits), ``sig``, ``prev``, ``next`` (arrays over the entries),
    ``head`` (MRU end), ``tail`` (LRU end), ``length``."""

    def __init__(self, depth, sig_width=SIG_WIDTH):
        iw = max(1, ceil_log2(depth))
        super().__init__({
            "valid": Out(depth),
            "sig": Out(data.ArrayLayout(sig_width, depth)),
            "prev": Out(data.ArrayLayout(iw, depth)),
            "next": Out(data.ArrayLayout(iw, depth)),
            "head": Out(iw),
            "tail": Out(iw),
            "length": Out(range(depth + 1)),
        })


class ShadowDirectory(wiring.Component):
    """One shadow directory (``SA`` with ``bimodal=False``, ``SB`` with ``bimodal=True``).

    Ports
    -----
    access : In(stream.Signature(access_layout(depth, sig_width), always_ready=True))
        ``valid``: an access this cycle with ``payload.sig`` and ``payload.cap`` (the
        caller's ``max(1, occupancy >> 4)``, at most ``depth``; 0 counts as 1). Always
        taken; its effect is in the state at the end of the cycle.
    hit : Out(1)
        The access finds its signature (0 without ``valid``): with ``stages=1`` this
        cycle's access (combinational), with ``stages=2`` the access of the cycle before
        (combinational from S2's registers).
    flush : In(1)
        Empty the directory and clear the bimodal counter at the end of the cycle. With
        ``stages=1`` it wins over the access of its cycle; with ``stages=2`` it must not
        follow an access directly (no access in S2: the caller's rule; an access of the
        flush's own cycle is made after it).
    counter : Out(5)
        The bimodal counter (``sbip``; stays 0 when not ``bimodal``).
    observe : Out(ShadowObservationSignature(depth, sig_width))
        Only with ``observe=True``: the entries and ends.

    Parameters
    ----------
    depth : int
        The bound on the signatures held, at least 1 (``max(1, ENTRIES / 16)`` in the
        core: 128 by default).
    bimodal : bool
        Insert a new signature at the LRU end 31 times in 32 (the BIP shadow).
    sig_width : int
        Bits per signature (default 16, the spec's; 1..32).
    stages : int
        1 or 2 (default): the cycles from an access to its ``hit`` and its update.
    observe : bool
        Add the ``observe`` port (default ``False``).
    """

    def __init__(self, depth, *, bimodal, sig_width=SIG_WIDTH, stages=2, observe=False):
        if not isinstance(depth, int) or isinstance(depth, bool):
            raise TypeError(f"depth must be an integer, not {depth!r}")
        if depth < 1:
            raise ValueError(f"depth must be at least 1, not {depth}")
        for name, value in (("bimodal", bimodal), ("observe", observe)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, not {value!r}")
        if not isinstance(sig_width, int) or isinstance(sig_width, bool):
            raise TypeError(f"sig_width must be an integer, not {sig_width!r}")
        if not 1 <= sig_width <= 32:
            raise ValueError(f"sig_width must be 1..32, not {sig_width}")
        if stages not in (1, 2) or isinstance(stages, bool):
            raise ValueError(f"stages must be 1 or 2, not {stages!r}")
        self.depth, self.bimodal, self.sig_width = depth, bimodal, sig_width
        self.stages = stages
        self.observed = observe
        ports = {
            "access": In(stream.Signature(access_layout(depth, sig_width), always_ready=True)),
            "hit": Out(1),
            "flush": In(1),
            "counter": Out(BIP_WIDTH),
        }
        if observe:
            ports["observe"] = Out(ShadowObservationSignature(depth, sig_width))
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        d = self.depth
        iw = max(1, ceil_log2(d))
        valid = Signal(d)
        sigs = [Signal(self.sig_width, name=f"sig{e}") for e in range(d)]
        prvs = [Signal(iw, name=f"prev{e}") for e in range(d)]
        nxts = [Signal(iw, name=f"next{e}") for e in range(d)]
        sig, prv, nxt = Array(sigs), Array(prvs), Array(nxts)
        head = Signal(iw)
        tail = Signal(iw)
        length = Signal(range(d + 1))
        m.submodules.counter = bip = BimodalCounter()
        m.d.comb += [bip.flush.eq(self.flush), self.counter.eq(bip.counter)]

        # S1: the fully associative lookup (the signatures are distinct: at most one match).
        x_in = self.access.payload.sig
        raw_match = Signal(d)
        m.d.comb += raw_match.eq(Cat(valid[e] & (sigs[e] == x_in) for e in range(d)))
        match = Signal(d)
        cap_in = self.access.payload.cap
        cap_fixed = Mux(cap_in == 0, 1, cap_in)     # 0 counts as 1
        if self.stages == 1:
            x, cap, av = x_in, Signal(range(d + 1)), self.access.valid
            m.d.comb += [match.eq(raw_match), cap.eq(cap_fixed)]
        else:
            x = Signal(self.sig_width, name="sig_s2")
            cap = Signal(range(d + 1), name="cap_s2")
            av = Signal(name="valid_s2")
            match_s2 = Signal(d, name="match_s2")
            same_s2 = Signal(name="same_s2")        # one signature with the access ahead
            dropped = Signal(d, name="dropped")     # what the access ahead dropped ...
            left = Signal(d, name="left")           # ... and the entry it left its signature in
            flushed = Signal(name="flushed")
            m.d.sync += [x.eq(x_in), cap.eq(cap_fixed),
                         av.eq(self.access.valid), match_s2.eq(raw_match),
                         same_s2.eq(av & ~self.flush & (x == x_in)),
                         flushed.eq(self.flush)]
            with m.If(flushed):
                m.d.comb += match.eq(0)
            with m.Elif(same_s2):
                m.d.comb += match.eq(left)
            with m.Else():
                m.d.comb += match.eq(match_s2 & ~dropped)
        found = Signal(iw)
        m.d.comb += found.eq(_first_set([match[e] for e in range(d)], iw)[1])
        m.d.comb += self.hit.eq(av & match.any())

        # A miss: the drops at the LRU end, the entry the signature takes. (Comparisons of
        # the length with the bound and with constants, no subtraction behind them.)
        drop1 = Signal()
        drop2 = Signal()
        m.d.comb += [drop1.eq(length >= cap), drop2.eq(length > cap)]
        # The two entries before the LRU end, for the double drop, without two chained
        # reads of `prev`: the entry before the tail is the valid one whose `next` is the
        # tail (one compare per entry, in parallel: one-hot), and the one before that is its
        # `prev` (an AND-OR of the one-hot). (On a list of one entry neither is used.)
        t1 = tail
        t2_onehot = Signal(d)
        m.d.comb += t2_onehot.eq(Cat(valid[e] & (nxts[e] == t1) & (t1 != e) for e in range(d)))
        t2 = Signal(iw)
        t3 = Signal(iw)
        m.d.comb += [t2.eq(_or_tree([Mux(t2_onehot[e], e, 0) for e in range(d)])),
                     t3.eq(_or_tree([Mux(t2_onehot[e], prvs[e], 0) for e in range(d)]))]
        new_tail = Signal(iw)
        m.d.comb += new_tail.eq(Mux(drop2, t3, Mux(drop1, t2, t1)))
        none_kept = Signal()                 # the drops empty the list
        m.d.comb += none_kept.eq((length == 0) | ((length == 1) & drop1) | ((length == 2) & drop2))
        grown = Signal(range(d + 1))         # the length after the drops and the insertion
        m.d.comb += grown.eq(Mux(drop2, length - 1, Mux(drop1, length, length + 1)))
        free = Signal(iw)             # the first free entry, or the dropped tail when full
        any_free, first_free = _first_set([~valid[e] for e in range(d)], iw)
        m.d.comb += free.eq(Mux(any_free, first_free, t1))
        to_lru = Signal()
        if self.bimodal:
            m.d.comb += to_lru.eq(bip.at_lru_end)

        if self.stages == 2:
            def onehot(index):
                return Cat(index == e for e in range(d))
            hit_now = av & match.any()
            miss_now = av & ~match.any()
            m.d.sync += [
                dropped.eq(Mux(miss_now & drop1, onehot(t1), 0) |
                           Mux(miss_now & drop2, t2_onehot, 0)),
                left.eq(Mux(hit_now, onehot(found), Mux(miss_now, onehot(free), 0))),
            ]

        with m.If(self.flush):
            m.d.sync += [valid.eq(0), length.eq(0)]
        with m.Elif(av & match.any()):
            # Move to the MRU end.
            e = found
            with m.If(e != head):
                # The matched entry's links by an AND-OR of the one-hot match (not behind
                # the encoder).
                p = _or_tree([Mux(match[x], prvs[x], 0) for x in range(d)])
                n = _or_tree([Mux(match[x], nxts[x], 0) for x in range(d)])
                m.d.sync += nxt[p].eq(n)
                with m.If(e == tail):
                    m.d.sync += tail.eq(p)
                with m.Else():
                    m.d.sync += prv[n].eq(p)
                m.d.sync += [nxt[e].eq(head), prv[head].eq(e), head.eq(e)]
        with m.Elif(av):
            if self.bimodal:
                m.d.comb += bip.step.eq(1)
            with m.If(drop1):
                m.d.sync += valid.bit_select(t1, 1).eq(0)
            with m.If(drop2):
                m.d.sync += valid.bit_select(t2, 1).eq(0)
            m.d.sync += [valid.bit_select(free, 1).eq(1), sig[free].eq(x),
                         length.eq(grown)]
            with m.If(none_kept):
                m.d.sync += [head.eq(free), tail.eq(free)]
            with m.Elif(to_lru):
                m.d.sync += [prv[free].eq(new_tail), nxt[new_tail].eq(free), tail.eq(free)]
            with m.Else():
                m.d.sync += [nxt[free].eq(head), prv[head].eq(free), head.eq(free),
                             tail.eq(new_tail)]

        if self.observed:
            obs = self.observe
            m.d.comb += [obs.valid.eq(valid), obs.head.eq(head), obs.tail.eq(tail),
                         obs.length.eq(length)]
            for e in range(d):
                m.d.comb += [obs.sig[e].eq(sigs[e]), obs.prev[e].eq(prvs[e]),
                             obs.next[e].eq(nxts[e])]
        return m
