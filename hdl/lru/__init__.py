# SPDX-License-Identifier: Apache-2.0
"""The LRU list: a doubly linked list of slots, most recent at ``head``.

Two pointer arrays, ``prev`` and ``next`` (``ENTRIES`` x ``SLOT_WIDTH``), hold the links.
Every command needs at most one read and two writes of each array (spec section 10), and a
block RAM has one write port per read port we also need, so each array is stored as two
banks ``X0``, ``X1`` with one write port each and the logical value ``X0[s] ^ X1[s]`` (an
XOR-coded two-write-port memory, the block-RAM equivalent of a live value table): write
port A stores ``v ^ X1[a]`` into ``X0[a]``, port B stores ``v ^ X0[b]`` into ``X1[b]``.
Each bank has two read ports: the command's read and the *feedback* read that fetches the
other bank's word at a write address. Everything is in RAM; no per-slot register.

Pipeline of a command given in cycle ``c`` (``cmd``, ``slot``):

* ``C1`` (cycle ``c``): read both banks of both arrays at ``slot`` (for ``POP`` the
  caller gives the ``tail``): the read address is the ``slot`` port itself, not behind
  the command's decode.
* ``C2`` (``c + 1``): register the four words as they leave the block RAMs.
* ``C3`` (``c + 2``): ``p = prev[slot]``, ``n = next[slot]`` (XOR of the registered
  words, with forwarded from registers the logical writes of cycles ``c`` .. ``c + 2``
  and those of the commands now in ``C4`` and ``C5``: the RAM read met the first and
  missed the others); decide the writes and register them; update ``head``, ``tail`` and
  ``empty`` at the end of the cycle.
* ``C4`` (``c + 3``): issue the feedback reads at the registered write addresses.
* ``C5`` (``c + 4``): register the feedback words as they leave the block RAMs.
* ``C6`` (``c + 5``): write ``next[p] = n`` and ``prev[n] = p`` (port A: unlink) and
  ``prev[head] = slot``, ``next[slot] = head`` (port B: link at the head). The feedback
  reads of ``C4`` met the bank writes of the command two ahead and missed those of the
  command ahead; those are bypassed from registers, and the two writes of one array never
  share an address, so the coded words are exact.

With ``registered=False`` (for a small device: about 300 flip-flops fewer) the pipeline
has three stages: ``C2`` computes straight from the read's words (the writes of cycles
``c`` and ``c + 1`` forwarded), issues the feedback reads at the decided addresses and
updates ``head``/``tail``; ``C3`` writes, with the bank writes its feedback reads met
bypassed.

No read port is transparent: a word read in the cycle it is written is undefined
(``no_rw_check``) and never used. With ``registered`` every block-RAM output goes straight
into a register, and no block-RAM address or data input depends on a block-RAM output of
the same cycle.

So a command may be given every cycle: the command of cycle ``c + 1`` sees the ``head`` /
``tail`` left by the command of cycle ``c`` in its ``C3``, and its pointers through the
forwarding.

``POP`` unlinks its ``slot``, which must be the ``tail`` as it will be in the command's
``C3`` (a POP writes no pointer: it only moves ``tail`` to ``prev[slot]``), so it may be
given while only POPs are in ``C2`` / ``C3`` (its slot then the tail those leave), but not
while a ``TOUCH`` or ``INSERT`` is; ``TOUCH`` and ``INSERT`` have no restriction. (The
core gives a POP only while nothing is in ``C2`` / ``C3``: its EVICT gaps.)

The *chain* (registered pipeline only): the slots that are the tail once the POPs in
flight are done, ``tail``, ``prev[tail]``, ``prev[prev[tail]]`` (``CHAIN`` = 3 of them),
the two beyond ``tail`` in registers with a valid bit each. A POP's ``C3`` shifts it by
one; a ``TOUCH`` or ``INSERT``'s ``C3`` (which may move a chain slot or the head) and a
flush leave only ``tail``. It is refilled by the command read port in every cycle without
a command while it is not full (a read of ``prev`` at the chain's last slot); the read's
``C3`` has ``prev`` of that slot as every command's ``C3`` has its slot's (the pointer
writes in flight forwarded), and appends it if the slot is still the chain's last and not
the head (the commands ahead have done their ``C3``: a POP may have shifted the chain, a
TOUCH / INSERT cut it), else drops it. Whether a cycle has no command comes from the
``no_cmd`` port (the core drives it from registers, not from the command's decode, so that
the read address is a choice of registers by registers); a cycle without a command with
``no_cmd`` low (an OBSERVE in E2 that drops) just has no refill. So a refill lands every 3
cycles at most (the pointer chase: read, register, ``C3``) while the chain is short. A POP's ``C3`` takes the
new ``tail`` from the chain when it is valid there (the same slot as ``prev[tail]``).
``evict_slot`` is the tail once the POP given now (``pop_now``) or in ``C2`` / ``C3`` is
done (``tail``, or the chain's second slot; at most one such POP): the tail a POP given 4
cycles later will unlink, so the core reads an EVICT's table window there in R, and gives
it as that EVICT's POP slot.

Pointers of unlinked slots and ``prev[head]`` / ``next[tail]`` are meaningless; they are
never read (so the banks need no initialisation).

One concern per file:

================ =====================================================================
``layouts.py``   ``CHAIN``, ``tail_lag``, ``LruCmd``, the command and write layouts, the
                 observation signature
``lru_list.py``  ``LruList``: ports, parameters, and ``elaborate`` over the stages
``stages.py``    the stages, in the order ``elaborate`` builds them
``banks.py``     ``XorCodedArray``: one pointer array as two XOR-coded banks
================ =====================================================================
"""

from .layouts import (CHAIN, LruCmd, LruObservationSignature, lru_command_layout,
                      lru_write_layout, tail_lag)
from .lru_list import LruList

__all__ = ["CHAIN", "LruCmd", "LruList", "LruObservationSignature", "lru_command_layout",
           "lru_write_layout", "tail_lag"]
