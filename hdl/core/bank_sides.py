# SPDX-License-Identifier: Apache-2.0
"""A window bank's fields as E1a reads them: on both sides of the table's bypass choices
(``Sides``: the raw word from the block RAM's output register, the bypassed word from the
register beside it, ``BucketTable.bk_sides``), so that E1a's carry chains start at those
registers and their results are chosen after them (``age_order.chosen``)."""

from ..tlevel import saturated_diff
from .age_order import Sides, chosen

__all__ = ["bank_mark", "bank_last", "bank_count", "bank_age"]


def bank_mark(window, b):
    """Bank ``b``'s mark on both sides of the ``mark`` choice (``window``:
    ``window_layout``)."""
    sd = window.bank[b].sides
    return Sides(sd.mark, sd.mark_byp, sd.mark_raw)


def bank_last(window, b):
    """Bank ``b``'s (last-access stamp, fresh bit) on both sides of the ``meta`` choice."""
    sd = window.bank[b].sides
    return Sides(sd.meta, (sd.last_byp, sd.fresh_byp), (sd.last_raw, sd.fresh_raw))


def bank_count(window, b):
    """Bank ``b``'s count on both sides of the ``ent`` choice."""
    sd = window.bank[b].sides
    return Sides(sd.ent, sd.count_byp, sd.count_raw)


def bank_age(p, window, b):
    """Bank ``b``'s saturated age as a function of one side of its ``meta`` choice (a
    ``(stamp, fresh bit)`` of ``bank_last``): from that side's stamp and its stale bit
    (``fresh != mark``, the mark on each side of its own choice)."""
    e = window.request
    ts = p.TS_WIDTH
    return lambda lf: chosen(lambda mk: saturated_diff(p, (e.t - lf[0])[:ts], lf[1] ^ mk),
                             bank_mark(window, b))
