# SPDX-License-Identifier: Apache-2.0
"""The LRU list's constants, command enum and layouts, and its observation signature."""

from amaranth.lib import data, enum, wiring
from amaranth.lib.wiring import Out

__all__ = ["CHAIN", "LruCmd", "LruObservationSignature", "lru_command_layout",
           "lru_write_layout", "tail_lag"]


# Slots of the prefetched chain (``tail`` and the two before it).
CHAIN = 3


def tail_lag(registered=True):
    """Cycles from a command to the first cycle in which ``head``/``tail`` show its effect
    (3 with the block-RAM words registered, 2 without)."""
    return 3 if registered else 2


class LruCmd(enum.Enum, shape=2):
    NONE = 0
    TOUCH = 1    # move a linked slot to the head
    INSERT = 2   # link an unlinked slot at the head
    POP = 3      # unlink the tail (the list must not be empty)


def lru_command_layout(params):
    """A command in the list's pipeline: ``cmd`` and its ``slot``."""
    return data.StructLayout({"cmd": LruCmd, "slot": params.SLOT_WIDTH})


def lru_write_layout(params):
    """A pointer write: enable, address (a slot) and the word (a slot)."""
    return data.StructLayout({"en": 1, "addr": params.SLOT_WIDTH, "data": params.SLOT_WIDTH})


class LruObservationSignature(wiring.Signature):
    """What the formal views of the list read (all ``Out``), per pointer array ``A`` of
    ``prev``, ``next``:

    ``A_writes`` : ArrayLayout(ArrayLayout(lru_write_layout, 2), stages)
        The logical writes (element 0 port A, 1 port B) of the commands in flight,
        newest first: registered, those in C4, C5 and C6 (written now) and the two
        written before; not registered, C3 (written now) and the one before.
    ``A_bank_writes`` : ArrayLayout(ArrayLayout(lru_write_layout, 2), 2)
        Registered only: bank ``k``'s coded writes of the cycle before (element 0) and
        of the cycle before that (element 1).
    ``A_fb_hit`` : ArrayLayout(ArrayLayout(1, 2), 2)
        Registered only: the C6 bypass choices of port A (element 0) and port B, for the
        bank write of the cycle before (0) and of the one before that (1).
    """

    def __init__(self, params, *, registered):
        w = lru_write_layout(params)
        members = {}
        for name in ("prev", "next"):
            members[f"{name}_writes"] = Out(data.ArrayLayout(data.ArrayLayout(w, 2),
                                                             5 if registered else 2))
            if registered:
                members[f"{name}_bank_writes"] = Out(data.ArrayLayout(data.ArrayLayout(w, 2), 2))
                members[f"{name}_fb_hit"] = Out(data.ArrayLayout(data.ArrayLayout(1, 2), 2))
        super().__init__(members)

