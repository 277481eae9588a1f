# SPDX-License-Identifier: Apache-2.0
"""The bucket table: per-slot tag, count, last-access time and valid bit, banked for window
reads, all in block RAM.

Slot ``s`` lives in bank ``s mod PROBE`` at row ``s // PROBE``. A window
``h, h+1, ..., h+PROBE-1`` (mod ``ENTRIES``) touches each bank exactly once, so one
synchronous read of every bank returns the whole window in one cycle; the lanes are then
rotated into probe order (lane ``i`` is slot ``h + i``).

Storage, per bank (every array a ``Memory`` with one write port, or with ``output_register``
a ``RegisteredReadRam``):

* ``ent``: ``{tag, count}``, written by ``wr``; one read port (the window);
* ``meta``: ``{last, gen, fresh, valid}``, written by ``wr`` (valid), ``inv`` and ``clear``
  (invalid), every write with the current ``generation`` in ``gen``; one read port (the
  window);
* ``mark``: one bit written only by the scrubber; one read port (the window);
* ``pmeta`` (only with ``pmeta_width``, the predictor build, docs/rtl-predictor.md): the
  predictor mode's per-slot word, written by ``pm`` (its own write port: with the slot's
  entry write, or alone, the ghost write of an EVICT); one read port (the window). It has
  no valid bit: a slot's tracking is ``meta``'s, and a slot that becomes tracked has its
  word written in the same cycle;

and one ``scrub`` memory of whole rows (``PROBE`` lanes of ``{last, fresh, valid}``: no
``gen``), written in step with every bank's ``meta`` (lane write enables), read by the
scrubber one row per cycle: its "port of its own" (spec section 10), one memory for all
banks rather than a second read port per bank.

**Stale marks without a shared write port.** A slot is *stale* when ``fresh != mark``. The
scrubber owns ``mark``: to mark a slot stale it writes ``mark = not fresh`` (idempotent, so
it never needs to read ``mark``); the datapath owns ``fresh``: a write stores
``fresh = mark``, which makes the slot not stale. So each bit has one writer and no memory
needs a second write port. The caller passes the mark of the slot it writes
(``wr_mark``): the bank's ``bk_mark`` from the window read that chose the slot, which is
the mark the slot has at the end of the window's evaluation cycle (the scrubber's write of
that cycle included). The scrubber's decision (``sc_set``) is registered and written in
the next cycle; it is dropped for a slot written (``wr``) in either cycle (the write wins:
the slot has just been accessed), so the mark cannot change between that cycle and the
write if the write follows at once (one evaluation stage); a core with a second stage
forwards the marks of the cycle between (``bk_mark`` already includes the scrubber write
of its own cycle, so a write in the next cycle is exact).

**Generations and clearing.** A slot is tracked (``bk_valid``) when its valid bit is set
*and* its ``gen`` is the current ``generation``: the core untracks every line in one cycle
by moving ``generation`` on (a flush, a reset; docs/spec-decisions.md D12). A slot of an
older generation reads as untracked whatever else it holds. Once the core has used every
generation it clears the valid bits by a sweep: ``clear_en`` writes ``valid = 0`` to row
``clear_row`` of every bank (one row per cycle, ``ENTRIES / PROBE`` cycles for the table),
with ``ready`` low. The scrubber's copy keeps no ``gen``: its ``sc_valid`` is the valid bit
alone, so the scrubber may mark a slot of an older generation stale, which nothing reads
(the write that next tracks the slot clears the mark).

The window's reads are transparent for the write port of their memory: a read issued in the
cycle of a write to the same slot returns the written entry. (The block RAM ports are not
transparent: a bypass register per memory (``bypass.py``), set by comparing the
window's rows with the write sources' registered rows, does it. The scrubber's read of
``scrub`` is not transparent at all; it snoops the writes instead, ``scrub.py``.) So a
window read issued in cycle ``c`` sees every update made in cycles up to and including
``c``: a pipeline that reads in one cycle and writes in the next needs no forwarding.

**The registered read** (``output_register``, the fast pipeline). A block RAM's word takes
most of a cycle to leave the RAM (about 5.8 ns on the ECP5 at speed 6), so any logic
between it and a register limits the clock. With ``output_register`` the window's
``ent``, ``meta`` and ``mark`` arrays are each a ``hdl.ram.RegisteredReadRam``: the word is
registered raw as it leaves the RAM (on the ECP5 in the DP16KD's own output register) and
is on ``bk_*`` two cycles after ``rd_slot``. The bypass then covers two cycles: beside
each output register, a register holds the word written to the row read in the read cycle
or in the cycle after (the later one wins; the second compared against the registered
row, every input a register), and ``bk_*`` is the one or the other, with the generation
compared on each side of that choice. So the window addressed in cycle ``c`` is the table
as it is at the end of ``c + 1``: a pipeline that writes in the cycle after the read
needs no snoop of its own. Both sides of every choice are outputs too (``bk_sides``), and
the bypassed tag is compared with ``rd_tag`` before its register, so that a caller's logic
on the window starts from the output registers rather than behind the choices.

One concern per file, in the order ``BucketTable.elaborate`` builds a bank:

==================== ===================================================================
``layouts.py``       ``GEN_WIDTH``, ``sides_layout``, ``probe_order``; a slot's bank and row
``signature.py``     ``BucketTableSignature``: the ports, each described
``table.py``         ``BucketTable``: parameters, and ``elaborate`` over the banks
``shared.py``        what every bank shares: layouts, rows, the meta write, row compares
``banks.py``         one bank's arrays, the datapath's writes into them, its ``pmeta``
``scrub.py``         the scrubber's port: the ``scrub`` memory, its snoop, the marks
``bypass.py``        the window read's bypass registers and each bank's ``bk_*`` word
==================== ===================================================================
"""

from .layouts import GEN_WIDTH, MAX_GEN_WIDTH, check_gen_width, probe_order, sides_layout
from .signature import BucketTableSignature
from .table import BucketTable

__all__ = ["BucketTable", "BucketTableSignature", "probe_order", "sides_layout", "GEN_WIDTH",
           "MAX_GEN_WIDTH", "check_gen_width"]
