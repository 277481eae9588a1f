# SPDX-License-Identifier: Apache-2.0
"""A shadow directory of the predictor mode's loop detector (spec-predictor.md P11).

An ordered list of at most ``depth`` distinct signatures, from the LRU end to the MRU end,
that takes one access per cycle: a fully associative lookup of the signature; on a hit, a
move to the MRU end; on a miss, up to two drops at the LRU end while the list holds at
least ``cap`` signatures, then the insertion of the signature at the MRU end, or, in a
bimodal directory, at the LRU end unless its counter wraps (once in 32).

The list is kept in *position order*: entry ``j`` holds the signature ``j`` places from the
MRU end, and the entries ``0 .. length - 1`` are valid (``valid`` is a thermometer code).
So every change of the order is a shift by one place of a run of entries, and no entry
needs a pointer: a move to the MRU end shifts the entries in front of the hit one place
towards the LRU end, an insertion at the MRU end shifts them all, an insertion at the LRU
end writes the first place after the drops, and a drop is the thermometer's end moving
back. Each entry's next value is one of three (itself, the entry before it, the access's
signature), chosen by the hit's place (an OR of the one-hot match over the places at and
behind it, a log-depth prefix network) or by the miss's kind: no decoder of a pointer and
no read through one, which a list of ``prev`` / ``next`` links needs for every write.

A burst of accesses, one per cycle, needs no queue (docs/rtl-predictor.md states the
choice and its cost). With ``stages=1`` an access is looked up and applied in its cycle.
With ``stages=2`` (the core's choice) the lookup's compare is made in the access's cycle
(S1) and registered as what the update needs (the match's suffix OR, and whether the
signature is held after the access ahead's update), and the update is made in the next
(S2): the access behind then compares against the state before the access ahead's update,
and S2 corrects the registered suffix OR by that update, the only one it missed (the
ahead's shift moved a match one place towards the LRU end; a match its drop took off has
no hit; if both have one signature, the match is the place the ahead wrote). The result
is the same sequence of hits and orders, one cycle later.
"""

from amaranth import *
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_int
from .bimodal import BimodalCounter
from .constants import BIP_WIDTH, SIG_WIDTH

__all__ = ["ShadowDirectory", "ShadowObservationSignature", "access_layout"]


def _at_or_behind(bits):
    """``out[j]``: some bit of ``bits`` at ``j`` or after it is set (a suffix OR), as a
    log-depth prefix network (Kogge-Stone), not a chain of ``len(bits)`` ORs."""
    out = list(bits)
    span = 1
    while span < len(out):
        out = [out[j] | out[j + span] if j + span < len(out) else out[j]
               for j in range(len(out))]
        span *= 2
    return out


def access_layout(depth, sig_width=SIG_WIDTH):
    """An access: the signature ``sig`` and the bound ``cap`` (1..``depth``)."""
    return data.StructLayout({"sig": sig_width, "cap": range(depth + 1)})


class ShadowObservationSignature(wiring.Signature):
    """The directory's state, for the tests and the formal views (all ``Out``, registers):
    ``valid`` (``depth`` bits, a thermometer code: place ``j`` is valid when ``j <
    length``), ``sig`` (an array over the places, place 0 the MRU end) and ``length``."""

    def __init__(self, depth, sig_width=SIG_WIDTH):
        super().__init__({
            "valid": Out(depth),
            "sig": Out(data.ArrayLayout(sig_width, depth)),
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
        Only with ``observe=True``: the places' signatures, the thermometer ``valid`` and ``length``.

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
        check_int("depth", depth, 1)
        for name, value in (("bimodal", bimodal), ("observe", observe)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, not {value!r}")
        check_int("sig_width", sig_width, 1, 32)
        check_int("stages", stages, 1, 2)
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
        valid = Signal(d)                   # thermometer: place j valid when j < length
        sigs = [Signal(self.sig_width, name=f"sig{j}") for j in range(d)]
        length = Signal(range(d + 1))
        m.submodules.counter = bip = BimodalCounter()
        m.d.comb += [bip.flush.eq(self.flush), self.counter.eq(bip.counter)]

        # S1: the fully associative lookup (the signatures are distinct: at most one match).
        x_in = self.access.payload.sig
        raw_match = Signal(d)
        m.d.comb += raw_match.eq(Cat(valid[j] & (sigs[j] == x_in) for j in range(d)))
        # at_or_behind[j]: the hit is at place j or behind it, so places 1 .. j move up
        at_or_behind = Signal(d)
        cap_in = self.access.payload.cap
        cap_fixed = Mux(cap_in == 0, 1, cap_in)     # 0 counts as 1
        shift = Signal(d)           # S2: place j takes place j - 1's signature
        write = Signal(d)           # S2: place j takes the access's signature
        written_or_behind = Signal(d)   # S2: the suffix OR of ``write``
        if self.stages == 1:
            x, cap, av = x_in, Signal(range(d + 1)), self.access.valid
            m.d.comb += [at_or_behind.eq(Cat(_at_or_behind(list(raw_match)))),
                         cap.eq(cap_fixed)]
        else:
            x = Signal(self.sig_width, name="sig_s2")
            cap = Signal(range(d + 1), name="cap_s2")
            av = Signal(name="valid_s2")
            behind_s2 = Signal(d, name="behind_s2")     # S1's suffix OR of the match
            same_s2 = Signal(name="same_s2")        # one signature with the access ahead
            shifted = Signal(d, name="shifted")     # the access ahead's shift ...
            wrote_or_behind = Signal(d, name="wrote_or_behind")   # ... and its write's
            held_s2 = Signal(name="held_s2")        # S1's hit after the ahead's update
            m.d.sync += [x.eq(x_in), cap.eq(cap_fixed),
                         av.eq(self.access.valid),
                         behind_s2.eq(Cat(_at_or_behind(list(raw_match)))),
                         same_s2.eq(av & ~self.flush & (x == x_in)),
                         shifted.eq(shift), wrote_or_behind.eq(written_or_behind)]
            # The suffix OR of the match after the ahead's update, from S1's: the ahead
            # shifts places 1 .. K by one (a hit at K, or every place for an insertion at
            # the MRU end), so a match in front of K moves one place back and one behind
            # it stays: place j in the shifted run takes place j - 1's bit. A match the
            # ahead's drop takes off has no hit (``held_s2``, below, is 0 then: ``hit``
            # gates every use); with the ahead's signature the match is the place the
            # ahead wrote.
            m.d.comb += at_or_behind.eq(Mux(
                same_s2, wrote_or_behind,
                Cat(Mux(shifted[j], behind_s2[j - 1], behind_s2[j]) if j else behind_s2[0]
                    for j in range(d))))
        hit, miss = Signal(), Signal()
        if self.stages == 1:
            m.d.comb += hit.eq(av & raw_match.any())
        else:
            m.d.comb += hit.eq(av & held_s2)
        m.d.comb += [miss.eq(av & ~hit), self.hit.eq(hit)]

        # A miss: the drops at the LRU end (comparisons of the length with the bound), the
        # thermometer after them, and the first place after it (an insertion at the LRU
        # end).
        drop1 = Signal()
        drop2 = Signal()
        m.d.comb += [drop1.eq(length >= cap), drop2.eq(length > cap)]
        kept = Signal(d)
        m.d.comb += kept.eq(Mux(drop2, valid >> 2, Mux(drop1, valid >> 1, valid)))
        if self.stages == 2:
            # S1's hit, registered: the signature is held after the ahead's update when it is
            # the ahead's, or held now in a place the ahead does not drop (a hit drops none;
            # a miss drops the last place, and with two drops the one before it). So S2's
            # `hit` (what the loop detector's `PSEL` and the core's decision read) is a
            # register, not an OR over the corrected match. The last two places come from
            # the thermometer's edge, so the drops' comparisons with the bound meet the
            # compare's OR only at its end.
            last = valid & ~(valid >> 1)
            before_last = (valid >> 1) & ~(valid >> 2)
            at_last, at_before_last = (raw_match & last).any(), (raw_match & before_last).any()
            dropped_now = miss & ((drop1 & at_last) | (drop2 & at_before_last))
            m.d.sync += held_s2.eq(~self.flush & ((av & (x == x_in)) |
                                                  (raw_match.any() & ~dropped_now)))
        after_kept = Cat(~kept[j] & (kept[j - 1] if j else 1) for j in range(d))
        grown = Signal(range(d + 1))         # the length after the drops and the insertion
        m.d.comb += grown.eq(Mux(drop2, length - 1, Mux(drop1, length, length + 1)))
        to_lru = Signal()
        if self.bimodal:
            m.d.comb += to_lru.eq(bip.at_lru_end)

        # The places that move: on a hit at place k, places 1 .. k (k at or behind them);
        # on an insertion at the MRU end, every place but 0 (what leaves the thermometer
        # does not matter). The place written: 0, or the first after the drops (whose
        # suffix OR is the thermometer after the insertion).
        to_mru = miss & ~to_lru
        m.d.comb += [
            shift.eq(Mux(self.flush, 0,
                         Cat(0, *[(hit & at_or_behind[j]) | to_mru for j in range(1, d)]))),
            write.eq(Mux(self.flush, 0,
                         Mux(hit | to_mru, 1, Mux(miss, after_kept, 0)))),
            written_or_behind.eq(Mux(hit | to_mru, 1, Cat(1, kept[:-1]))),
        ]

        with m.If(self.flush):
            m.d.sync += [valid.eq(0), length.eq(0)]
        with m.Elif(miss):
            if self.bimodal:
                m.d.comb += bip.step.eq(1)
            m.d.sync += [valid.eq(Cat(1, kept[:-1])), length.eq(grown)]
        for j in range(d):
            with m.If(write[j]):
                m.d.sync += sigs[j].eq(x)
            if j:
                with m.Elif(shift[j]):
                    m.d.sync += sigs[j].eq(sigs[j - 1])

        if self.observed:
            obs = self.observe
            m.d.comb += [obs.valid.eq(valid), obs.length.eq(length)]
            for j in range(d):
                m.d.comb += obs.sig[j].eq(sigs[j])
        return m
