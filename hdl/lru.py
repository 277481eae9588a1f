"""The LRU list: a doubly linked list of slots, most recent at ``head``.

Two pointer arrays, ``prev`` and ``next`` (``ENTRIES`` x ``SLOT_WIDTH``), hold the links.
Every command needs at most one read and two writes of each array (spec section 10). Each
array is two ``Memory`` banks with one write port each; a per-slot *live value table* bit
(a register) records which bank holds the current value of a slot. Port A writes bank 0
and clears the slot's bit, port B writes bank 1 and sets it; a read reads both banks and
picks the live one.

Timing: a command is given in cycle ``c`` (``cmd``, ``slot``); the pointer reads are
issued in ``c`` and the writes and the ``head``/``tail``/``empty`` update happen in
``c + 1``. Reads are transparent for the writes of the same cycle, and the live value
table and ``head``/``tail`` are registers updated at the end of ``c + 1``, so a command
may be given every cycle with no forwarding: the command of cycle ``c + 1`` reads the
state as left by the command of cycle ``c``.

``POP`` unlinks the ``tail`` register as it is in the cycle of the command, so it must not
be given in the cycle right after another command (while ``busy``), whose ``tail`` update
is still pending; ``TOUCH`` and ``INSERT`` have no such restriction. (The core guarantees
it: an EVICT is accepted only 3 or more cycles after the previous request.)

Pointers of unlinked slots and ``prev[head]`` / ``next[tail]`` are meaningless; they are
never read.
"""

from amaranth.lib import enum

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .bitvec import onehot
from .layouts import check_params

__all__ = ["LruCmd", "LruList"]


class LruCmd(enum.Enum, shape=2):
    NONE = 0
    TOUCH = 1    # move a linked slot to the head
    INSERT = 2   # link an unlinked slot at the head
    POP = 3      # unlink the tail (the list must not be empty)


class LruList(wiring.Component):
    """Doubly linked LRU list over the table slots.

    Ports
    -----
    cmd : In(LruCmd)
        Command of this cycle; executed (pointer writes, head/tail update) next cycle.
    slot : In(SLOT_WIDTH)
        Slot of ``TOUCH`` (a linked slot) / ``INSERT`` (an unlinked slot); ignored by ``POP``,
        which unlinks ``tail`` (only when not ``empty`` and not ``busy``).
    flush : In(1)
        Empty the list (at the end of the cycle); no command may be in its second cycle.
    head, tail : Out(SLOT_WIDTH)
        Most / least recently used slot (meaningless while ``empty``). Registers.
    empty : Out(1)
        The list holds no slot. Register, 1 after reset.
    busy : Out(1)
        A command is in its second (write) cycle.
    """

    def __init__(self, params=None):
        params = check_params(params)
        self._params = params
        sw = params.SLOT_WIDTH
        super().__init__({
            "cmd": In(LruCmd),
            "slot": In(sw),
            "flush": In(1),
            "head": Out(sw),
            "tail": Out(sw),
            "empty": Out(1, init=1),
            "busy": Out(1),
        })

    def elaborate(self, platform):
        m = Module()
        p = self._params
        n, sw = p.ENTRIES, p.SLOT_WIDTH

        def dual_bank(name):
            mems = [Memory(shape=sw, depth=n, init=[]) for _ in range(2)]
            for i, mem in enumerate(mems):
                m.submodules[f"{name}{i}"] = mem
            wps = [mem.write_port() for mem in mems]
            rps = [mem.read_port(transparent_for=(wp,)) for mem, wp in zip(mems, wps)]
            lvt = Signal(n, name=f"{name}_lvt")
            return wps, rps, lvt

        prev_w, prev_r, prev_lvt = dual_bank("prev")
        next_w, next_r, next_lvt = dual_bank("next")

        # Cycle c: issue reads.
        raddr = Mux(self.cmd == LruCmd.POP, self.tail, self.slot)
        for rp in prev_r + next_r:
            m.d.comb += [rp.addr.eq(raddr), rp.en.eq(1)]
        cmd_q = Signal(LruCmd)
        slot_q = Signal(sw)
        m.d.sync += [cmd_q.eq(self.cmd), slot_q.eq(raddr)]
        m.d.comb += self.busy.eq(cmd_q != LruCmd.NONE)

        # Cycle c + 1: live values of prev[slot], next[slot].
        p_of = Mux(prev_lvt.bit_select(slot_q, 1), prev_r[1].data, prev_r[0].data)
        n_of = Mux(next_lvt.bit_select(slot_q, 1), next_r[1].data, next_r[0].data)

        # Write ports: A = bank 0 (lvt bit cleared), B = bank 1 (lvt bit set).
        pa_en, pa_addr, pa_data = Signal(), Signal(sw), Signal(sw)
        pb_en, pb_addr, pb_data = Signal(), Signal(sw), Signal(sw)
        na_en, na_addr, na_data = Signal(), Signal(sw), Signal(sw)
        nb_en, nb_addr, nb_data = Signal(), Signal(sw), Signal(sw)

        head, tail, empty = self.head, self.tail, self.empty
        with m.Switch(cmd_q):
            with m.Case(LruCmd.TOUCH):
                with m.If(slot_q != head):
                    # Unlink: next[p] = n; prev[n] = p (or tail = p).
                    m.d.comb += [na_en.eq(1), na_addr.eq(p_of), na_data.eq(n_of)]
                    with m.If(slot_q == tail):
                        m.d.sync += tail.eq(p_of)
                    with m.Else():
                        m.d.comb += [pa_en.eq(1), pa_addr.eq(n_of), pa_data.eq(p_of)]
                    # Link before the old head.
                    m.d.comb += [
                        pb_en.eq(1), pb_addr.eq(head), pb_data.eq(slot_q),
                        nb_en.eq(1), nb_addr.eq(slot_q), nb_data.eq(head),
                    ]
                    m.d.sync += head.eq(slot_q)
            with m.Case(LruCmd.INSERT):
                with m.If(empty):
                    m.d.sync += [head.eq(slot_q), tail.eq(slot_q), empty.eq(0)]
                with m.Else():
                    m.d.comb += [
                        pb_en.eq(1), pb_addr.eq(head), pb_data.eq(slot_q),
                        nb_en.eq(1), nb_addr.eq(slot_q), nb_data.eq(head),
                    ]
                    m.d.sync += head.eq(slot_q)
            with m.Case(LruCmd.POP):
                with m.If(head == tail):
                    m.d.sync += empty.eq(1)
                with m.Else():
                    m.d.sync += tail.eq(p_of)
        with m.If(self.flush):
            m.d.sync += empty.eq(1)

        for (wps, lvt, a, b) in ((prev_w, prev_lvt, (pa_en, pa_addr, pa_data),
                                  (pb_en, pb_addr, pb_data)),
                                 (next_w, next_lvt, (na_en, na_addr, na_data),
                                  (nb_en, nb_addr, nb_data))):
            for wp, (en, addr, dat) in zip(wps, (a, b)):
                m.d.comb += [wp.en.eq(en), wp.addr.eq(addr), wp.data.eq(dat)]
            clr = onehot(m, a[1], n, a[0], name=f"{lvt.name}_clr")
            st = onehot(m, b[1], n, b[0], name=f"{lvt.name}_set")
            m.d.sync += lvt.eq((lvt & ~clr) | st)
        return m
