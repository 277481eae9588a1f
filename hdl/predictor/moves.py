# SPDX-License-Identifier: Apache-2.0
"""The ``MOVE`` command of the predictor mode's lists (``LiveGhostLists``): the slot, the
list it leaves and where it goes."""

from amaranth.lib import data, enum

__all__ = ["ListFrom", "ListTo", "move_layout"]


class ListFrom(enum.Enum, shape=2):
    NONE = 0     # the slot is on no list
    LIVE = 1     # unlink from the LRU list
    GHOST = 2    # unlink from the ghost list


class ListTo(enum.Enum, shape=2):
    NONE = 0         # link nowhere (a freed ghost)
    LIVE_HEAD = 1    # the LRU list's head (most recent)
    LIVE_TAIL = 2    # the LRU list's tail (the next victim)
    GHOST_HEAD = 3   # the ghost list's head (most recently evicted)


def move_layout(params):
    """A move: the ``slot``, the list it leaves (``frm``) and where it goes (``to``)."""
    return data.StructLayout({"slot": params.SLOT_WIDTH, "frm": ListFrom, "to": ListTo})
