# SPDX-License-Identifier: Apache-2.0
"""E1a's comparisons for the victim choice: which of two lines is older, and which is
older than W1, made from the lines' last-access stamps beside their saturated ages.

A saturated age (``WMAX + 1``) equals any other saturated one and exceeds any other, and two
unsaturated ages (below ``2**(TS_WIDTH - 1)``) compare as their stamps do: ``last_x -
last_y`` is ``age_y - age_x`` modulo ``2**TS_WIDTH`` and lies in ``[-WMAX, WMAX]``, so
``age_x > age_y`` exactly when it is negative (its top bit, the carry chain's last sum: no
zero test); ``age_x > W1`` exactly when ``(t - W1 - 1) - last_x`` is not negative. One
subtraction of registered stamps each, and one LUT.

A value here may be ``Sides``: the same value on both sides of one of the table's bypass
choices. A comparison is then made on each side and chosen after it (``chosen``), so that
the block RAM's output register, not a multiplexer, is in front of its carry chain.
"""

from typing import NamedTuple

from amaranth import *

__all__ = ["Sides", "chosen", "age_stamp", "register_age_order"]


class Sides(NamedTuple):
    """A value on both sides of a choice: ``byp`` if ``sel`` else ``raw``."""
    sel: object
    byp: object
    raw: object


def chosen(f, *operands):
    """``f(*operands)``, where an operand may be ``Sides``: ``f`` made on each of its sides
    and the result chosen after it (for every such operand in turn)."""
    for k, x in enumerate(operands):
        if isinstance(x, Sides):
            head, tail = operands[:k], operands[k + 1:]
            return Mux(x.sel, chosen(f, *head, x.byp, *tail), chosen(f, *head, x.raw, *tail))
    return f(*operands)


def age_stamp(age, last, ts):
    """A line's ``(saturated, last-access stamp)`` pair, from its ``ts``-bit saturated
    age."""
    return age[ts - 1], last


def register_age_order(m, *, ts, out, banks, forwarded, ahead, t_w1, fw_wr, rotated, per_bank):
    """Register E1a's age comparisons into ``out`` (``lanes_layout``): between every two
    banks, between each bank and E2's forwarded line, and the line the request ahead
    leaves (``ahead``), and each against W1.

    The pairwise comparisons are registered as read and against the forwarded lane,
    separately (E1b picks between them by ``forwarded``: that keeps E2's forward out of
    E1a's longest paths); the single-lane ones are picked here, where their paths are
    shorter.

    ``ts``: ``TS_WIDTH``; ``banks``: every bank's ``age_stamp`` pair (or ``Sides`` of
    pairs); ``forwarded``, ``ahead``: the pairs of E2's forwarded line and of the line the
    request ahead leaves;
    ``t_w1``: the request's ``t - W1 - 1``; ``fw_wr[i]``: lane ``i`` holds E2's forwarded
    write; ``rotated(values, i)``: lane ``i``'s value of per-bank ``values``;
    ``per_bank(f, name)``: a named ``PROBE``-bit signal of ``f(bank)``.
    """
    P = len(banks)

    def sign(x, y):
        """The top bit of ``x - y`` (``ts`` bits)."""
        return (x - y)[:ts][ts - 1]

    def gt(x, y):
        """age(x) > age(y) for (saturated, stamp) pairs, either of them ``Sides``."""
        def gt_pair(x, y):
            (sx, lx), (sy, ly) = x, y
            return (sx & ~sy) | (~sx & ~sy & sign(lx, ly))
        return chosen(gt_pair, x, y)

    def old(x):
        def old_pair(x):
            sx, lx = x
            return sx | ~sign(t_w1, lx)
        return chosen(old_pair, x)

    fw_gt = per_bank(lambda b: gt(forwarded, banks[b]), "fw_gt_bank")
    gt_fw = per_bank(lambda b: gt(banks[b], forwarded), "gt_fw_bank")
    # gt_d[k][a]: bank a's age exceeds bank (a + k) mod P's
    gt_d = [None] + [per_bank(lambda a, k=k: gt(banks[a], banks[(a + k) % P]),
                              f"gt_bank_d{k}") for k in range(1, P)]
    gtp_b = per_bank(lambda b: gt(banks[b], ahead), "gtp_bank")
    pgt_b = per_bank(lambda b: gt(ahead, banks[b]), "pgt_bank")
    old_b = per_bank(lambda b: old(banks[b]), "old_bank")

    def final(i, f, bank_values):
        """``f`` of lane i's final (saturated, stamp): the forward, or the read."""
        return Mux(fw_wr[i], f(forwarded), rotated(bank_values, i))

    for i in range(P):
        m.d.sync += [out.forwarded[i].eq(fw_wr[i]),
                     out.forward_older[i].eq(rotated(fw_gt, i)),
                     out.older_forward[i].eq(rotated(gt_fw, i)),
                     out.older_ahead[i].eq(final(i, lambda x: gt(x, ahead), gtp_b)),
                     out.ahead_older[i].eq(final(i, lambda x: gt(ahead, x), pgt_b)),
                     out.beyond_w1[i].eq(final(i, old, old_b))]
        m.d.sync += [out.older[i][j].eq(rotated(gt_d[(j - i) % P], i))
                     for j in range(P) if j != i]
    m.d.sync += out.ahead_beyond_w1.eq(old(ahead))
