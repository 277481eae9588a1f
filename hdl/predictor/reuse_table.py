# SPDX-License-Identifier: Apache-2.0
"""The reuse tables ``PT`` and ``PA`` of the predictor mode (spec-predictor.md P3, P4, P9).

Four-bit saturating counters in flip-flops: 64 for ``PT`` (6-bit keys), 512 for ``PA``
(9-bit answer keys, ``key_width=9``). In one cycle an OBSERVE trains the counter
its line's previous OBSERVE used (``pkey``) and looks up the counter of its new key; if the
two are the same entry the lookup reads the trained value (P4). The training is written at
the end of the cycle, so the lookup of the next cycle reads it from the flip-flops: one
OBSERVE per cycle needs no forwarding between requests (docs/rtl-predictor.md). Each
counter's trained value is computed beside its register, so the lookup's forward is a
choice among trained values and not a step behind the 64:1 read: ``PT``'s longest path is
20 gates (``python -m hdl.predictor.resources --only ReuseTable``).

A caller that does not know its training key early (the core's E2, where the key comes
from the lane the match picks) can also ask *what-if* lookups: each names a key and the
training it assumes, and reads the counter as that training would leave it. The core makes
one per lane, in parallel with the match, and picks one by the match (docs/rtl-predictor.md).
Its prediction and zero test are read from flags kept beside each counter and chosen by the
assumed training, so that neither waits for the step.
"""

from amaranth import *
from amaranth.lib import data, stream, wiring
from amaranth.lib.wiring import In, Out

from ..layouts import check_int
from .constants import KEY_WIDTH, PT_ENTRIES, PT_INIT, PT_WIDTH

__all__ = ["ReuseTable", "train_layout", "what_if_layout"]


def train_layout(key_width=KEY_WIDTH):
    """A training: the counter ``key`` steps up if ``near``, else down."""
    return data.StructLayout({"key": key_width, "near": 1})


def what_if_layout(key_width=KEY_WIDTH):
    """A what-if lookup: ``key``, looked up as if the counter ``tkey`` were trained with
    ``near`` this cycle (when ``train``) and not by ``ReuseTable.train``."""
    return data.StructLayout({"key": key_width, "train": 1, "tkey": key_width, "near": 1})


class ReuseTable(wiring.Component):
    """``PT``: training and lookup in one cycle.

    Ports
    -----
    train : In(stream.Signature(train_layout(key_width), always_ready=True))
        ``valid``: train ``PT[key]`` this cycle: ``+1`` (saturating at 15) if ``near``,
        else ``-1`` (saturating at 0). Always taken.
    lookup : In(key_width)
        The key looked up this cycle.
    value : Out(PT_WIDTH)
        ``PT[lookup]`` after this cycle's training (combinational).
    predict : Out(1)
        ``value >= 8`` (its bit 3): the prediction ``pred'``.
    zero : Out(1)
        ``value == 0``: a ghost revival with this key is a candidate of the ghost rule.
    flush : In(1)
        Every counter to 8 at the end of the cycle (the training of the cycle is lost).
    counters : Out(ArrayLayout(PT_WIDTH, entries))
        The counters (registers, reset 8), for the tests and the formal views.
    what_if : In(ArrayLayout(what_if_layout(key_width), what_ifs))
        Only with ``what_ifs``: the what-if lookups of this cycle (see the module).
    what_if_value : Out(ArrayLayout(PT_WIDTH, what_ifs))
        ``PT[key]`` after the training each assumes (combinational; ``train`` and this
        cycle's flush play no part).
    what_if_predict, what_if_zero : Out(what_ifs)
        ``value >= 8`` and ``value == 0`` of each.

    Parameters
    ----------
    entries : int
        The number of counters (default 64, ``PT``'s; a power of two at most
        ``2 ** key_width``, smaller only for formal runs: the key's high bits are then
        ignored).
    key_width : int
        The keys' width (default 6, ``PT``'s; 9 for ``PA``).
    what_ifs : int
        The number of what-if lookups (default 0: no such ports).
    """

    def __init__(self, entries=PT_ENTRIES, *, key_width=KEY_WIDTH, what_ifs=0):
        check_int("key_width", key_width, 1)
        check_int("entries", entries, 2)
        if entries < 2 or entries & (entries - 1) or entries > 1 << key_width:
            why = ""
            if entries > 1 << key_width:
                why = f" (2 ** key_width with key_width={key_width}"
                why += (f"; the default entries, {PT_ENTRIES}, needs key_width at least "
                        f"{PT_ENTRIES.bit_length() - 1})" if entries == PT_ENTRIES else ")")
            raise ValueError(f"entries must be a power of two in 2..{1 << key_width}{why}, "
                             f"not {entries}")
        check_int("what_ifs", what_ifs, 0)
        self._entries = entries
        self._what_ifs = what_ifs
        ports = {
            "train": In(stream.Signature(train_layout(key_width), always_ready=True)),
            "lookup": In(key_width),
            "value": Out(PT_WIDTH),
            "predict": Out(1),
            "zero": Out(1),
            "flush": In(1),
            "counters": Out(data.ArrayLayout(PT_WIDTH, entries)),
        }
        if what_ifs:
            ports.update({
                "what_if": In(data.ArrayLayout(what_if_layout(key_width), what_ifs)),
                "what_if_value": Out(data.ArrayLayout(PT_WIDTH, what_ifs)),
                "what_if_predict": Out(what_ifs),
                "what_if_zero": Out(what_ifs),
            })
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        n = self._entries
        bits = n.bit_length() - 1
        top = (1 << PT_WIDTH) - 1
        pt = [Signal(PT_WIDTH, init=PT_INIT, name=f"pt{i}") for i in range(n)]
        for i, c in enumerate(pt):
            m.d.comb += self.counters[i].eq(c)
        # The counters as one vector, read by a key as one word select.
        words = Signal(n * PT_WIDTH, name="words")
        m.d.comb += words.eq(Cat(pt))

        tkey = self.train.payload.key[:bits]
        lkey = self.lookup[:bits]
        # Every counter's trained value is made beside it (a 4-bit saturating step from the
        # register), so a lookup of the entry being trained is one N:1 choice of trained
        # values, not a N:1 read followed by the step.
        def trained_value(value, near):
            """The training's saturating step: +1 up to 15 if ``near``, else -1 down to 0."""
            return Mux(near, Mux(value == top, top, value + 1), Mux(value == 0, 0, value - 1))

        near = self.train.payload.near
        stepped = []
        for i, c in enumerate(pt):
            t = Signal(PT_WIDTH, name=f"pt{i}_trained")
            m.d.comb += t.eq(trained_value(c, near))
            stepped.append(t)
        trained = Signal(n * PT_WIDTH, name="trained")
        m.d.comb += trained.eq(Cat(stepped))

        # The lookup reads the flip-flops, or the trained value when it is the same entry.
        forward = self.train.valid & (tkey == lkey)
        m.d.comb += [
            self.value.eq(Mux(forward, trained.word_select(lkey, PT_WIDTH),
                              words.word_select(lkey, PT_WIDTH))),
            self.predict.eq(self.value >= PT_INIT),
            self.zero.eq(self.value == 0),
        ]
        # A what-if lookup: the N:1 read of its key (early: the key is), then the step its
        # assumed training makes if it trains that entry. The prediction and the zero test
        # do not wait for the step: each is a flag of the counter as it is, chosen by the
        # assumed training (a step up predicts from 7, a step down from 9; a step down
        # reaches 0 from 1, a step up never), and each flag is made beside its counter, so
        # a lookup is an N:1 choice of flags followed by one 3:1 choice.
        assert PT_WIDTH == 4 and PT_INIT == 8, "the flags are written for 4-bit counters " \
            "that predict from 8 (their bit 3)"
        # Each flag of every counter is one bit of an N-bit vector, read by a key as one
        # bit select.
        def flags(name, flag):
            vector = Signal(n, name=name)
            m.d.comb += vector.eq(Cat(flag(c) for c in pt))
            return vector
        ge8 = flags("ge8", lambda c: c[3])
        ge7 = flags("ge7", lambda c: c[3] | (c[:3] == 7))
        ge9 = flags("ge9", lambda c: c[3] & (c[:3] != 0))
        is0 = flags("is0", lambda c: c == 0)
        le1 = flags("le1", lambda c: c[1:] == 0)
        for i in range(self._what_ifs):
            q = self.what_if[i]
            key = q.key[:bits]

            def flag(vector, key=key):
                return vector.bit_select(key, 1)
            read = Signal(PT_WIDTH, name=f"what_if{i}_read")
            same = Signal(name=f"what_if{i}_same")
            m.d.comb += [read.eq(words.word_select(key, PT_WIDTH)),
                         same.eq(q.train & (q.tkey[:bits] == key))]
            m.d.comb += [
                self.what_if_value[i].eq(Mux(same, trained_value(read, q.near), read)),
                self.what_if_predict[i].eq(Mux(same, Mux(q.near, flag(ge7), flag(ge9)),
                                               flag(ge8))),
                self.what_if_zero[i].eq(Mux(same, ~q.near & flag(le1), flag(is0))),
            ]

        with m.If(self.flush):
            m.d.sync += [c.eq(PT_INIT) for c in pt]
        with m.Elif(self.train.valid):
            for i, c in enumerate(pt):
                with m.If(tkey == i):
                    m.d.sync += c.eq(stepped[i])
        return m
