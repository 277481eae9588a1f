# SPDX-License-Identifier: Apache-2.0
"""Property 3: a line is tracked in at most one slot, and only inside its window.

On the core (``CoreHarness``), with the hash an arbitrary function F of the tag (so the
proof holds for MurmurHash3 with any seed):

* no two tracked slots hold the same tag (D6: presence is checked over the whole window
  before an insert, so this is what the design guarantees, not only "within PROBE");
* every tracked slot ``s`` with tag ``g`` lies in the window of ``g``:
  ``(s - F(g)) mod ENTRIES < PROBE`` (spec section 6: a line lives in one of the slots
  ``h .. h+PROBE-1``).
"""

from amaranth import *
from amaranth.hdl import Assert

from .core_harness import CoreHarness
from .lru_props import LruInvariants

__all__ = ["TagInvariants", "CoreInvariants"]


def tag_properties(h, m):
    with m.If(h.flushing):
        h.sweep_properties(m)
    with m.Else():
        _tag_properties(h, m)


def _tag_properties(h, m):
    E = h.params.ENTRIES
    for s in range(E):
        for t in range(s + 1, E):
            m.d.comb += Assert(~(h.valid[s] & h.valid[t] & (h.tag[s] == h.tag[t])))
    for s in range(E):
        hs = h.hash_of(m, h.tag[s])
        m.d.comb += Assert(~h.valid[s] | h.window_of(Const(s, h.params.SLOT_WIDTH), hs))


class TagInvariants(CoreHarness):
    def properties(self, m):
        tag_properties(self, m)


class CoreInvariants(LruInvariants):
    """Properties 1, 2 and 3 together (they support each other under induction)."""

    def properties(self, m):
        super().properties(m)
        tag_properties(self, m)
