"""Helpers for per-slot bit vectors kept in registers (valid, stale, live value tables).

``onehot(m, addr, n, en)`` decodes ``addr`` into an ``n``-bit one-hot mask (all zero when
``en`` is low) as the AND of two pre-decoded halves of the address, so each mask bit costs
one small gate instead of a slice of an ``n``-wide barrel shifter.
"""

from amaranth import *

__all__ = ["onehot"]


def onehot(m, addr, n, en=1, *, name="onehot"):
    """``Signal(n)``: bit ``addr`` set if ``en``, else 0. ``n`` is a power of two."""
    w = n.bit_length() - 1
    assert n == 1 << w, n
    out = Signal(n, name=name)
    if w == 0:
        m.d.comb += out.eq(en)
        return out
    k = w // 2
    lo = Signal(1 << k, name=f"{name}_lo")
    hi = Signal(1 << (w - k), name=f"{name}_hi")
    addr = Value.cast(addr)[:w]
    for j in range(1 << k):
        m.d.comb += lo[j].eq(addr[:k] == j if k else 1)
    for j in range(1 << (w - k)):
        m.d.comb += hi[j].eq(en & (addr[k:] == j))
    for i in range(n):
        m.d.comb += out[i].eq(hi[i >> k] & lo[i & ((1 << k) - 1)])
    return out
