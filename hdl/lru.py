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

* ``C1`` (cycle ``c``): read both banks of both arrays at ``slot`` (``tail`` for ``POP``).
* ``C2`` (``c + 1``): ``p = prev[slot]``, ``n = next[slot]`` (XOR of the banks, with the
  logical writes of cycles ``c`` and ``c + 1`` forwarded from registers: the RAM read met
  the first and missed the second); decide the writes; issue the feedback reads at their
  addresses; update ``head``, ``tail`` and ``empty`` at the end of the cycle.
* ``C3`` (``c + 2``): write ``next[p] = n`` and ``prev[n] = p`` (port A: unlink) and
  ``prev[head] = slot``, ``next[slot] = head`` (port B: link at the head). The feedback
  reads of ``C2`` met the bank writes of the command ahead (in ``C3`` at the same time);
  those are bypassed from registers, and the two writes of one array never share an
  address, so the coded words are exact.

No read port is transparent: a word read in the cycle it is written is undefined
(``no_rw_check``) and never used, and every block-RAM output passes one LUT before a
register or a block-RAM input (``_CodedArray``).

So a command may be given every cycle: the command of cycle ``c + 1`` sees the ``head`` /
``tail`` left by the command of cycle ``c`` in its ``C2``, and its pointers through the
forwarding.

``POP`` unlinks the ``tail`` register as it is in the cycle of the command, so it must not
be given in the cycle right after another command (while ``busy``), whose ``tail`` update
is still pending; ``TOUCH`` and ``INSERT`` have no such restriction. (The core guarantees
it: an EVICT is accepted only 3 or more cycles after the previous request.)

Pointers of unlinked slots and ``prev[head]`` / ``next[tail]`` are meaningless; they are
never read (so the banks need no initialisation).
"""

from amaranth.lib import enum

from amaranth import *
from amaranth.lib import wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from .layouts import check_params

__all__ = ["LruCmd", "LruList"]


class LruCmd(enum.Enum, shape=2):
    NONE = 0
    TOUCH = 1    # move a linked slot to the head
    INSERT = 2   # link an unlinked slot at the head
    POP = 3      # unlink the tail (the list must not be empty)


class _CodedArray:
    """One pointer array as two XOR-coded banks (see the module docstring).

    ``read(addr)`` issues the command read; ``a``/``b`` are the logical write requests
    ``(en, addr, data)`` of ports A and B, given one cycle before the write happens (their
    feedback reads are issued then).

    Every read port is non-transparent and the banks carry ``no_rw_check``: a read that
    meets a write of the same word in its cycle returns an undefined word, and no such word
    is ever used. The writes of the read's own cycle and of the next one are forwarded from
    registers instead (``value`` and the feedback bypass in ``request``), so no block-RAM
    output passes more than one LUT before the next register or block-RAM input, and Yosys
    adds no transparency or collision logic.
    """

    def __init__(self, m, name, depth, width):
        self.m, self.name = m, name
        self.banks = [Memory(shape=width, depth=depth, init=[], attrs={"no_rw_check": 1})
                      for _ in range(2)]
        for i, mem in enumerate(self.banks):
            m.submodules[f"{name}{i}"] = mem
        self.wp = [mem.write_port() for mem in self.banks]
        self.cmd_rp = [mem.read_port() for mem in self.banks]
        self.fb_rp = [mem.read_port() for mem in self.banks]

        def writes(suffix):
            return {port: (Signal(name=f"{name}_{port}_{suffix}en"),
                           Signal(range(depth), name=f"{name}_{port}_{suffix}addr"),
                           Signal(width, name=f"{name}_{port}_{suffix}data"))
                    for port in "ab"}
        # The logical writes happening this cycle (C3), for forwarding and formal views,
        # and those of the cycle before (which a read issued then did not see).
        self.w = writes("")
        self.w_last = writes("last_")
        for port in "ab":
            m.d.sync += [q.eq(x) for q, x in zip(self.w_last[port], self.w[port])]

    def read(self, addr):
        for rp in self.cmd_rp:
            self.m.d.comb += [rp.addr.eq(addr), rp.en.eq(1)]

    def value(self, addr_q):
        """The logical word at ``addr_q`` (read issued last cycle), with the writes of the
        last cycle (which met the read) and of this one (which it missed) forwarded."""
        # The forwarding choice depends on registers only (the write requests and
        # addr_q), so it settles while the block RAM is still producing its word, which
        # then passes one LUT (two banks, "forward", the forwarded bit) on its way out.
        # Ports A and B never write one address in one cycle; this cycle's writes are
        # newer than the last cycle's.
        cands = [self.w["a"], self.w["b"], self.w_last["a"], self.w_last["b"]]
        hits = [en & (addr == addr_q) for en, addr, _ in cands]
        fwd_hit = Signal(name=f"{self.name}_fwd_hit")
        fwd_val = Signal.like(self.w["a"][2], name=f"{self.name}_fwd_val")
        newest = cands[-1][2]
        for hit, (_, _, dat) in reversed(list(zip(hits, cands))[:-1]):
            newest = Mux(hit, dat, newest)
        self.m.d.comb += [fwd_hit.eq(Cat(*hits).any()), fwd_val.eq(newest)]
        return Mux(fwd_hit, fwd_val, self.cmd_rp[0].data ^ self.cmd_rp[1].data)

    def request(self, a, b):
        """Logical writes decided this cycle (C2): register them for C3 and issue the
        feedback reads (port A needs ``X1[a]``, port B ``X0[b]``)."""
        m = self.m
        for port, (en, addr, dat) in (("a", a), ("b", b)):
            q_en, q_addr, q_data = self.w[port]
            m.d.sync += [q_en.eq(en), q_addr.eq(addr), q_data.eq(dat)]
        m.d.comb += [
            self.fb_rp[1].addr.eq(a[1]), self.fb_rp[1].en.eq(1),
            self.fb_rp[0].addr.eq(b[1]), self.fb_rp[0].en.eq(1),
        ]
        # C3: the coded writes. The feedback read met the bank writes of the cycle it was
        # issued in (the command ahead's C3): those come from registers (`bank_last`),
        # compared on registered addresses.
        bank_last = []
        for k, wp in enumerate(self.wp):
            last = (Signal(name=f"{self.name}{k}_wlast_en"),
                    Signal.like(wp.addr, name=f"{self.name}{k}_wlast_addr"),
                    Signal.like(wp.data, name=f"{self.name}{k}_wlast_data"))
            m.d.sync += [last[0].eq(wp.en), last[1].eq(wp.addr), last[2].eq(wp.data)]
            bank_last.append(last)

        def other_bank(k, addr):
            """Bank ``k``'s word at ``addr`` now, from the feedback read."""
            en, l_addr, l_data = bank_last[k]
            return Mux(en & (l_addr == addr), l_data, self.fb_rp[k].data)

        a_en, a_addr, a_data = self.w["a"]
        b_en, b_addr, b_data = self.w["b"]
        m.d.comb += [
            self.wp[0].en.eq(a_en), self.wp[0].addr.eq(a_addr),
            self.wp[0].data.eq(a_data ^ other_bank(1, a_addr)),
            self.wp[1].en.eq(b_en), self.wp[1].addr.eq(b_addr),
            self.wp[1].data.eq(b_data ^ other_bank(0, b_addr)),
        ]


class LruList(wiring.Component):
    """Doubly linked LRU list over the table slots.

    Ports
    -----
    cmd : In(LruCmd)
        Command of this cycle; ``head``/``tail`` are updated at the end of the next cycle,
        the pointers written in the one after.
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
        A command is in its second cycle (its ``head``/``tail`` update is pending).
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

        prv = _CodedArray(m, "prev", n, sw)
        nxt = _CodedArray(m, "next", n, sw)

        # C1: issue the command reads.
        raddr = Mux(self.cmd == LruCmd.POP, self.tail, self.slot)
        prv.read(raddr)
        nxt.read(raddr)
        cmd_q = Signal(LruCmd)
        slot_q = Signal(sw)
        m.d.sync += [cmd_q.eq(self.cmd), slot_q.eq(raddr)]
        m.d.comb += self.busy.eq(cmd_q != LruCmd.NONE)

        # C2: the pointers of slot_q, then the writes and the head/tail update.
        p_of = Signal(sw)
        n_of = Signal(sw)
        m.d.comb += [p_of.eq(prv.value(slot_q)), n_of.eq(nxt.value(slot_q))]

        pa = [Signal(name="prev_a_req"), Signal(sw), Signal(sw)]   # prev[n] = p
        pb = [Signal(name="prev_b_req"), Signal(sw), Signal(sw)]   # prev[head] = slot
        na = [Signal(name="next_a_req"), Signal(sw), Signal(sw)]   # next[p] = n
        nb = [Signal(name="next_b_req"), Signal(sw), Signal(sw)]   # next[slot] = head
        head, tail, empty = self.head, self.tail, self.empty
        link = Signal()      # link slot_q before the old head
        m.d.comb += [
            pa[1].eq(n_of), pa[2].eq(p_of), na[1].eq(p_of), na[2].eq(n_of),
            pb[1].eq(head), pb[2].eq(slot_q), nb[1].eq(slot_q), nb[2].eq(head),
            pb[0].eq(link), nb[0].eq(link),
        ]
        with m.Switch(cmd_q):
            with m.Case(LruCmd.TOUCH):
                with m.If(slot_q != head):
                    m.d.comb += [na[0].eq(1), link.eq(1)]
                    with m.If(slot_q == tail):
                        m.d.sync += tail.eq(p_of)
                    with m.Else():
                        m.d.comb += pa[0].eq(1)
                    m.d.sync += head.eq(slot_q)
            with m.Case(LruCmd.INSERT):
                with m.If(empty):
                    m.d.sync += [head.eq(slot_q), tail.eq(slot_q), empty.eq(0)]
                with m.Else():
                    m.d.comb += link.eq(1)
                    m.d.sync += head.eq(slot_q)
            with m.Case(LruCmd.POP):
                with m.If(head == tail):
                    m.d.sync += empty.eq(1)
                with m.Else():
                    m.d.sync += tail.eq(p_of)
        with m.If(self.flush):
            m.d.sync += empty.eq(1)

        prv.request(pa, pb)
        nxt.request(na, nb)
        return m
