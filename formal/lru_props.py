# SPDX-License-Identifier: Apache-2.0
"""Properties 1 and 2: the LRU list is a well-formed doubly linked list of exactly the
tracked slots, and the occupancy is the number of tracked slots.

Expressed on the core (``CoreHarness``) with the list unrolled over the small ``ENTRIES``:

* walk ``x0 = head, x(i+1) = next[x(i)]`` for ``ENTRIES`` steps; ``len`` is the first
  ``k`` with ``x(k-1) == tail``;
* unless ``empty``: ``tail`` is reached (``1 <= len <= ENTRIES``), ``x0 .. x(len-1)`` are
  distinct, ``prev[x(i)] == x(i-1)`` for ``0 < i < len``;
* the set ``{x0 .. x(len-1)}`` (empty set when ``empty``) equals the set of slots that are
  tracked once the pending LRU commands are done (``valid[s]``, except the slots of an
  ``INSERT`` / ``POP`` in C2 or C3, ``lru_pending``: the table's ``valid`` leads the list
  by exactly those commands);
* ``occupancy == popcount(valid)`` and ``len`` equals the number of slots expected on the
  list;
* the registered list's chain (``CoreHarness.chain_invariants``): element 0 is ``tail``,
  valid exactly when the list is not empty, and each valid element after it is ``prev`` of
  the one before, which is not the head: the valid elements are the list's last slots.

``next``/``prev`` are the logical pointer values (the XOR of the two coded banks, with the
pointer writes of this cycle and those requested in C4 to C6 applied), read from the register-model memories. During the clear
sweep after reset or flush the harness's ``sweep_properties`` hold instead.
"""

from amaranth import *
from amaranth.hdl import Assert

from .core_harness import CoreHarness
from .common import popcount

__all__ = ["LruInvariants"]


class LruInvariants(CoreHarness):
    def properties(self, m):
        p = self.params
        E = p.ENTRIES
        sw = p.SLOT_WIDTH
        nxt = Array(self.nxt)
        prv = Array(self.prv)

        xs = [Signal(sw, name="walk0")]
        m.d.comb += xs[0].eq(self.head)
        for i in range(1, E):
            x = Signal(sw, name=f"walk{i}")
            m.d.comb += x.eq(nxt[xs[i - 1]])
            xs.append(x)
        # first[k]: x(k) is the tail and no earlier x is.
        first = []
        seen = Const(0)
        for k in range(E):
            here = xs[k] == self.tail
            first.append(here & ~seen)
            seen = seen | here
        reached = seen
        in_walk = [Signal(name=f"in_walk{k}") for k in range(E)]   # k < len
        for k in range(E):
            m.d.comb += in_walk[k].eq(~Cat(*first[:k]).any() if k else 1)
        length = Signal(range(E + 1))
        for k in range(E):
            with m.If(first[k]):
                m.d.comb += length.eq(k + 1)

        expected = [Signal(name=f"exp_on_list{s}") for s in range(E)]
        for s in range(E):
            m.d.comb += expected[s].eq(self.on_list_expected(s))
        n_expected = popcount(expected)

        with m.If(self.flushing):
            self.sweep_properties(m)
        with m.Elif(self.empty):
            m.d.comb += Assert(n_expected == 0)
        with m.Else():
            m.d.comb += Assert(reached)
            for i in range(E):
                for j in range(i + 1, E):
                    m.d.comb += Assert(~in_walk[j] | (xs[i] != xs[j]))
            for i in range(1, E):
                m.d.comb += Assert(~in_walk[i] | (prv[xs[i]] == xs[i - 1]))
            for s in range(E):
                on = Cat(*(in_walk[k] & (xs[k] == s) for k in range(E))).any()
                m.d.comb += Assert(on == expected[s])
            m.d.comb += Assert(length == n_expected)

        # The LRU list's chain is its last slots, tail first (as far as marked valid).
        if self.core.lru.registered:
            with m.If(~self.flushing):
                self.chain_invariants(m, self.core.lru)

        # Property 2: occupancy.
        with m.If(~self.flushing):
            m.d.comb += Assert(self.occupancy == popcount(self.valid))
