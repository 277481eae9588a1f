# SPDX-License-Identifier: Apache-2.0
"""The predictor mode's two lists over the table slots (spec-predictor.md P3, P10): the LRU
list of the live slots and the ghost list of the evicted ones, over one pair of pointer
arrays, with one general command.

``MOVE(slot, frm, to)`` (``moves.py``) unlinks ``slot`` from the list ``frm`` (none, live,
ghost) and links it into ``to`` (none, the live head, the live tail, the ghost head). Every
request of the mode is one move (docs/rtl-predictor.md): a live OBSERVE live -> live head;
an insert none -> live head or tail; a ghost revival, or the reuse of a ghost's slot, ghost
-> live head or tail; a replacement live -> live head or tail; EVICT the live tail -> ghost
head; freeing the ghost tail ghost -> none.

The storage and the pipeline are ``hdl.lru``'s (``hdl.lru.banks.XorCodedArray``: ``prev``
and ``next`` as XOR-coded pairs of block-RAM banks; the command read in C1, the words
registered in C2, the links decided in C3 with the writes in flight forwarded, feedback
reads in C4, C5 and the writes in C6; three stages with ``registered=False``): an unlink is
port A of each array and a link port B, as there. What is added is the decision in C3:
which list's ends an unlink and a link use, and the link at a tail (the mirror of the link
at a head). The ends of both lists and the ghost list's length are registers.

A move may be given every cycle, for any slot that is on ``frm`` when its C3 comes (the
caller's guarantee: for EVICT the live tail and for a free the ghost tail as the ends are
in the command's cycle, which the core's EVICT gap settles, as for ``hdl.lru``'s POP).
Pointers of unlinked slots and ``prev`` of a head / ``next`` of a tail are meaningless and
never read.
"""

from amaranth import *
from amaranth.lib import stream, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from ..layouts import check_params
from ..lru import LruObservationSignature, tail_lag
from ..lru.banks import XorCodedArray
from ..lru.stages import drive_observation
from ..ram import check_memory
from .moves import ListFrom, ListTo, move_layout

__all__ = ["ListFrom", "ListTo", "LiveGhostLists", "move_layout"]


class LiveGhostLists(wiring.Component):
    """The LRU list and the ghost list (P3) with the ``MOVE`` command.

    Ports
    -----
    cmd : In(stream.Signature(move_layout(params), always_ready=True))
        ``valid``: a move this cycle. Always taken; the ends show it ``tail_lag`` cycles
        later (3, or 2 with ``registered=False``). ``payload.slot`` is the command read's
        address.
    flush : In(1)
        Empty both lists (at the end of the cycle); not while ``busy``.
    head, tail : Out(SLOT_WIDTH)
        The LRU list's most and least recently used slot (meaningless while ``empty``).
    empty : Out(1)
        The LRU list is empty (1 after reset).
    ghead, gtail : Out(SLOT_WIDTH)
        The ghost list's newest and oldest ghost (meaningless while ``gempty``).
    gempty : Out(1)
        The ghost list is empty (1 after reset).
    gcount : Out(SLOT_WIDTH + 1)
        The ghost list's length (``gcount`` of P3).
    gtail2, gtail2_valid : Out(SLOT_WIDTH), Out(1)
        The ghost after ``gtail`` towards ``ghead`` (``prev[gtail]``, the second ghost an
        EVICT may free, P8; meaningless while ``gcount < 2``), valid while
        ``gtail2_valid``: the prefetch. In a cycle without a move the command read port
        reads ``prev[gtail]`` (the address a register); in its C3, with the pointer writes
        in flight forwarded, the word is registered if no move is in C3 then and ``gtail``
        is still the slot read. So ``gtail2_valid`` is 1 from the ``2 * tail_lag``-th
        cycle (6; 4 with ``registered=False``) after a move on, while no move follows, and
        0 the cycle after a move's C3.
    busy : Out(1)
        A move's end update is pending (it is in C2 or C3; not registered: C2).
    observe : Out(hdl.lru.LruObservationSignature(params, registered=registered))
        Only with ``observe=True``: the pointer writes in flight and the bypass state, as
        ``hdl.lru.LruList``'s (for the formal views, formal/predictor_props.py).

    Parameters
    ----------
    params : regmap.Params
    registered : bool
        The six-stage pipeline (default) or the three-stage one, as ``hdl.lru.LruList``.
    memory : class
        The memory the banks are built from (default ``amaranth.lib.memory.Memory``).
    observe : bool
        Add the ``observe`` port (default ``False``).

    Attributes
    ----------
    tail_lag : int
    memories : dict
        After elaboration: the coded banks by name (``prev0``, ``prev1``, ``next0``,
        ``next1``): the logical pointer is the XOR of a pair.
    """

    def __init__(self, params=None, *, registered=True, memory=Memory, observe=False):
        params = check_params(params)
        for name, value in (("registered", registered), ("observe", observe)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, not {value!r}")
        self._params = params
        self.registered = registered
        self.observed = observe
        self._memory = check_memory(memory)
        self.tail_lag = tail_lag(registered)
        sw = params.SLOT_WIDTH
        ports = {
            "cmd": In(stream.Signature(move_layout(params), always_ready=True)),
            "flush": In(1),
            "head": Out(sw),
            "tail": Out(sw),
            "empty": Out(1, init=1),
            "ghead": Out(sw),
            "gtail": Out(sw),
            "gempty": Out(1, init=1),
            "gcount": Out(sw + 1),
            "gtail2": Out(sw),
            "gtail2_valid": Out(1),
            "busy": Out(1),
        }
        if observe:
            ports["observe"] = Out(LruObservationSignature(params, registered=registered))
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        p = self._params
        n, sw = p.ENTRIES, p.SLOT_WIDTH
        reg = self.registered
        prv = XorCodedArray(m, "prev", n, sw, reg, self._memory)
        nxt = XorCodedArray(m, "next", n, sw, reg, self._memory)

        # C1: the command reads at the slot; without a command, the prefetch of gtail2
        # reads prev[gtail] (the address a register either way).
        raddr = Signal(sw, name="rd_addr")
        m.d.comb += raddr.eq(Mux(self.cmd.valid, self.cmd.payload.slot, self.gtail))
        prv.read(raddr)
        nxt.read(raddr)
        raddr_q = Signal(sw, name="rd_addr_q")
        m.d.sync += raddr_q.eq(raddr)
        cmd_q = Signal(move_layout(p), name="cmd_q")
        valid_q = Signal(name="valid_q")
        m.d.sync += [cmd_q.eq(self.cmd.payload), valid_q.eq(self.cmd.valid)]
        if reg:
            cmd_qq = Signal(move_layout(p), name="cmd_qq")
            valid_qq = Signal(name="valid_qq")
            raddr_qq = Signal(sw, name="rd_addr_qq")
            m.d.sync += [cmd_qq.eq(cmd_q), valid_qq.eq(valid_q), raddr_qq.eq(raddr_q)]
            m.d.comb += self.busy.eq(valid_q | valid_qq)
        else:
            cmd_qq, valid_qq, raddr_qq = cmd_q, valid_q, raddr_q
            m.d.comb += self.busy.eq(valid_q)

        # C3 (not registered: C2): the slot's links, forwarded.
        s = cmd_qq.slot
        p_of = Signal(sw)
        n_of = Signal(sw)
        # (with a command in C3, raddr_qq is its slot: the read's own address)
        m.d.comb += [p_of.eq(prv.value(raddr_q, raddr_qq)), n_of.eq(nxt.value(raddr_q, raddr_qq))]

        # The prefetch's C3: prev[gtail], current if no move is in C3 (none can change the
        # ends or a pointer in this cycle) and gtail is still the slot read.
        m.d.sync += [self.gtail2.eq(p_of),
                     self.gtail2_valid.eq(~valid_qq & (raddr_qq == self.gtail))]

        pa = [Signal(name="prev_a_req"), Signal(sw), Signal(sw)]   # unlink: prev[n] = p
        na = [Signal(name="next_a_req"), Signal(sw), Signal(sw)]   # unlink: next[p] = n
        pb = [Signal(name="prev_b_req"), Signal(sw), Signal(sw)]   # link
        nb = [Signal(name="next_b_req"), Signal(sw), Signal(sw)]   # link
        m.d.comb += [pa[1].eq(n_of), pa[2].eq(p_of), na[1].eq(p_of), na[2].eq(n_of)]

        live = (self.head, self.tail, self.empty)
        ghost = (self.ghead, self.gtail, self.gempty)
        # The ends after the unlink (the link uses them when both are one list).
        ends = {name: [Signal(sw, name=f"{name}_head_u"), Signal(sw, name=f"{name}_tail_u"),
                       Signal(name=f"{name}_empty_u")] for name in ("live", "ghost")}
        for name, (h, t, e) in (("live", live), ("ghost", ghost)):
            m.d.comb += [ends[name][0].eq(h), ends[name][1].eq(t), ends[name][2].eq(e)]

        active = valid_qq & ~self.flush
        for name, which in (("live", ListFrom.LIVE), ("ghost", ListFrom.GHOST)):
            h, t, e = (live if name == "live" else ghost)
            uh, ut, ue = ends[name]
            with m.If(active & (cmd_qq.frm == which)):
                with m.If((s == h) & (s == t)):
                    m.d.comb += ue.eq(1)
                with m.Elif(s == h):
                    m.d.comb += uh.eq(n_of)
                with m.Elif(s == t):
                    m.d.comb += ut.eq(p_of)
                with m.Else():
                    m.d.comb += [pa[0].eq(1), na[0].eq(1)]

        # The link, into the ends left by the unlink.
        new = {name: [Signal(sw, name=f"{name}_head_n"), Signal(sw, name=f"{name}_tail_n"),
                      Signal(name=f"{name}_empty_n")] for name in ("live", "ghost")}
        for name in ("live", "ghost"):
            m.d.comb += [a.eq(b) for a, b in zip(new[name], ends[name])]

        def link_head(name):
            uh, ut, ue = ends[name]
            nh, nt, ne = new[name]
            with m.If(ue):
                m.d.comb += [nh.eq(s), nt.eq(s), ne.eq(0)]
            with m.Else():
                m.d.comb += [nb[0].eq(1), nb[1].eq(s), nb[2].eq(uh),     # next[s] = head
                             pb[0].eq(1), pb[1].eq(uh), pb[2].eq(s),     # prev[head] = s
                             nh.eq(s)]

        with m.If(active):
            with m.Switch(cmd_qq.to):
                with m.Case(ListTo.LIVE_HEAD):
                    link_head("live")
                with m.Case(ListTo.GHOST_HEAD):
                    link_head("ghost")
                with m.Case(ListTo.LIVE_TAIL):
                    uh, ut, ue = ends["live"]
                    nh, nt, ne = new["live"]
                    with m.If(ue):
                        m.d.comb += [nh.eq(s), nt.eq(s), ne.eq(0)]
                    with m.Else():
                        m.d.comb += [pb[0].eq(1), pb[1].eq(s), pb[2].eq(ut),   # prev[s] = tail
                                     nb[0].eq(1), nb[1].eq(ut), nb[2].eq(s),   # next[tail] = s
                                     nt.eq(s)]

        with m.If(self.flush):
            m.d.sync += [self.empty.eq(1), self.gempty.eq(1), self.gcount.eq(0)]
        with m.Else():
            for name, regs in (("live", live), ("ghost", ghost)):
                m.d.sync += [r.eq(v) for r, v in zip(regs, new[name])]
            with m.If(active):
                leaves = cmd_qq.frm == ListFrom.GHOST
                joins = cmd_qq.to == ListTo.GHOST_HEAD
                m.d.sync += self.gcount.eq(self.gcount + joins - leaves)

        prv.request(pa, pb)
        nxt.request(na, nb)
        if self.observed:
            drive_observation(self, m, prv, nxt)
        self.memories = {f"{a.name}{i}": mem for a in (prv, nxt) for i, mem in enumerate(a.banks)}
        return m
