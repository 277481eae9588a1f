# SPDX-License-Identifier: Apache-2.0
"""The LRU list's stages, parts of ``LruList.elaborate`` in the order it builds them (the
pipeline: ``hdl.lru``): the pointer arrays, the chain's registers, the command reads and
C2, C3's links and ``head`` / ``tail`` update, the chain's update, ``evict_slot``, and the
observation port. ``lru`` is the ``LruList`` (its ports and parameters), ``m`` its module."""

import functools
from types import SimpleNamespace

from amaranth import Mux, Signal

from ..protect import ProtectedMemory
from .banks import XorCodedArray
from .layouts import CHAIN, LruCmd

__all__ = ["pointer_arrays", "chain_registers", "command_stages", "links", "chain_update",
           "evict_choice", "drive_observation"]


def pointer_arrays(lru, m):
    """The ``prev`` and ``next`` arrays (``XorCodedArray``), each two coded banks of
    ``memory`` (with protection a ``ProtectedMemory`` of it)."""
    p = lru.params
    n, sw = p.ENTRIES, p.SLOT_WIDTH
    reg = lru.registered
    memory = lru.memory
    if lru.protection != "none":
        memory = functools.partial(ProtectedMemory, protection=lru.protection,
                                   sweep_en=lru.sweep_en, sweep_addr=lru.sweep_addr,
                                   memory=memory)
    coded = lru.protection != "none" and reg    # C2 and C5 in the read ports
    prv = XorCodedArray(m, "prev", n, sw, reg, memory, coded)
    nxt = XorCodedArray(m, "next", n, sw, reg, memory, coded)
    return prv, nxt


def chain_registers(lru, m):
    """The chain's slots and valid bits (registered only; element 0 is ``tail``), its
    last valid slot (``end``) and whether this cycle's command read is a refill
    (``refill``, registered along the pipeline as ``refill_q``, ``refill_qq``)."""
    sw = lru.params.SLOT_WIDTH
    tail, empty = lru.tail, lru.empty
    ch = [tail] + [Signal(sw, name=f"chain{k}") for k in range(1, CHAIN)]
    ch_v = [~empty] + [Signal(name=f"chain{k}_valid") for k in range(1, CHAIN)]
    refill = Signal()            # the command read of this cycle is a refill
    refill_q = Signal(name="refill_q")
    refill_qq = Signal(name="refill_qq")
    ch_end = Signal(sw)          # the chain's last valid slot
    m.d.comb += ch_end.eq(tail)
    for k in range(1, CHAIN):
        with m.If(ch_v[k]):
            m.d.comb += ch_end.eq(ch[k])
    return SimpleNamespace(slot=ch, valid=ch_v, end=ch_end,
                           refill=refill, refill_q=refill_q, refill_qq=refill_qq)


def command_stages(lru, m, prv, nxt, ch):
    """C1: the command reads (at the ``slot`` port: a POP's is the tail it will
    unlink), or in a cycle without a command the chain's refill; C2: the command
    travels along its registered words (and through C3 with ``registered``)."""
    sw = lru.params.SLOT_WIDTH
    reg = lru.registered
    refill, refill_q, refill_qq = ch.refill, ch.refill_q, ch.refill_qq
    raddr = Signal(sw)
    m.d.comb += raddr.eq(Mux(refill, ch.end, lru.slot))
    prv.read(raddr)
    nxt.read(raddr)
    # C2: the words are registered (in XorCodedArray); the command travels along.
    cmd_q = Signal(LruCmd, name="cmd_q")
    slot_q = Signal(sw, name="slot_q")
    m.d.sync += [cmd_q.eq(lru.cmd), slot_q.eq(raddr)]
    if reg:
        cmd_qq = Signal(LruCmd, name="cmd_qq")
        slot_qq = Signal(sw, name="slot_qq")
        m.d.sync += [cmd_qq.eq(cmd_q), slot_qq.eq(slot_q)]
        # A refill: in any cycle without a command while the chain is not full. Its C3
        # appends what it read only if its slot is still the chain's last (the
        # commands ahead of it have done their C3, and may have shifted or cut the
        # chain) and not the head (whose prev is meaningless); else it is dropped.
        # (`no_cmd` comes from registers, not from the command's decode, so the read
        # address is a choice of registers by registers)
        m.d.comb += refill.eq(lru.no_cmd & ~ch.valid[CHAIN - 1])
        m.d.sync += [refill_q.eq(refill), refill_qq.eq(refill_q)]
        m.d.comb += lru.busy.eq((cmd_q != LruCmd.NONE) | (cmd_qq != LruCmd.NONE))
    else:
        cmd_qq, slot_qq = cmd_q, slot_q      # (the command computes in C2)
        m.d.comb += lru.busy.eq(cmd_q != LruCmd.NONE)
    m.d.comb += [lru.pending[0].cmd.eq(cmd_q), lru.pending[0].slot.eq(slot_q)]
    if reg:
        m.d.comb += [lru.pending[1].cmd.eq(cmd_qq), lru.pending[1].slot.eq(slot_qq)]
    return SimpleNamespace(cmd_q=cmd_q, slot_q=slot_q, cmd_qq=cmd_qq, slot_qq=slot_qq)


def links(lru, m, prv, nxt, ch, cmd):
    """C3 (not registered: C2): the pointers of the command's slot (``p_of``,
    ``n_of``), the pointer writes it requests (returned: ``pa``, ``pb``, ``na``,
    ``nb``, each ``[enable, address, value]``) and the ``head`` / ``tail`` / ``empty``
    update."""
    sw = lru.params.SLOT_WIDTH
    reg = lru.registered
    head, tail, empty = lru.head, lru.tail, lru.empty
    ch_v, chain = ch.valid, ch.slot
    slot_q, cmd_qq, slot_qq = cmd.slot_q, cmd.cmd_qq, cmd.slot_qq
    p_of = Signal(sw)
    n_of = Signal(sw)
    m.d.comb += [p_of.eq(prv.value(slot_q, slot_qq)),
                 n_of.eq(nxt.value(slot_q, slot_qq))]

    pa = [Signal(name="prev_a_req"), Signal(sw), Signal(sw)]   # prev[n] = p
    pb = [Signal(name="prev_b_req"), Signal(sw), Signal(sw)]   # prev[head] = slot
    na = [Signal(name="next_a_req"), Signal(sw), Signal(sw)]   # next[p] = n
    nb = [Signal(name="next_b_req"), Signal(sw), Signal(sw)]   # next[slot] = head
    link = Signal()      # link slot_qq before the old head
    m.d.comb += [
        pa[1].eq(n_of), pa[2].eq(p_of), na[1].eq(p_of), na[2].eq(n_of),
        pb[1].eq(head), pb[2].eq(slot_qq), nb[1].eq(slot_qq), nb[2].eq(head),
        pb[0].eq(link), nb[0].eq(link),
    ]
    with m.Switch(cmd_qq):
        with m.Case(LruCmd.TOUCH):
            with m.If(slot_qq != head):
                m.d.comb += [na[0].eq(1), link.eq(1)]
                with m.If(slot_qq == tail):
                    m.d.sync += tail.eq(p_of)
                with m.Else():
                    m.d.comb += pa[0].eq(1)
                m.d.sync += head.eq(slot_qq)
        with m.Case(LruCmd.INSERT):
            with m.If(empty):
                m.d.sync += [head.eq(slot_qq), tail.eq(slot_qq), empty.eq(0)]
            with m.Else():
                m.d.comb += link.eq(1)
                m.d.sync += head.eq(slot_qq)
        with m.Case(LruCmd.POP):
            with m.If(head == tail):
                m.d.sync += empty.eq(1)
            with m.Else():
                # prev[tail]: the chain's second slot if valid (the same slot), so the
                # tail an EVICT read in R follows from the chain alone
                m.d.sync += tail.eq(Mux(ch_v[1], chain[1], p_of) if reg else p_of)
    with m.If(lru.flush):
        m.d.sync += empty.eq(1)
    return SimpleNamespace(p_of=p_of, pa=pa, pb=pb, na=na, nb=nb)


def chain_update(lru, m, ch, cmd, p_of):
    """The chain (registered only): a POP shifts it, a TOUCH / INSERT or a flush
    leaves only ``tail``, a refill's C3 appends ``prev`` of the slot it read if that
    is still the last."""
    chain, ch_v, ch_end = ch.slot, ch.valid, ch.end
    with m.Switch(cmd.cmd_qq):
        with m.Case(LruCmd.POP):
            m.d.sync += [x.eq(y) for x, y in zip(chain[1:-1], chain[2:])]
            m.d.sync += [x.eq(y) for x, y in zip(ch_v[1:-1], ch_v[2:])]
            m.d.sync += ch_v[CHAIN - 1].eq(0)
        with m.Case(LruCmd.TOUCH, LruCmd.INSERT):
            m.d.sync += [v.eq(0) for v in ch_v[1:]]
        with m.Default():
            with m.If(ch.refill_qq & (cmd.slot_qq == ch_end) & (ch_end != lru.head) &
                      ~lru.empty):
                for k in range(1, CHAIN):
                    with m.If(~ch_v[k] & ch_v[k - 1]):
                        m.d.sync += [chain[k].eq(p_of), ch_v[k].eq(1)]
    with m.If(lru.flush):
        m.d.sync += [v.eq(0) for v in ch_v[1:]]


def evict_choice(lru, m, ch, cmd):
    """``evict_slot``: the tail after the POP given now or in C2 / C3 (one at most:
    with two, ``evict_known`` is low), a 2:1 choice of registers by an OR of two:
    whether a POP is in C2 or C3 is registered a cycle ahead (``pop_q_any``), so no
    command decode sits in front of R's read address."""
    cmd_q, cmd_qq = cmd.cmd_q, cmd.cmd_qq
    pop_q_any = Signal(name="pop_q_any")
    m.d.sync += pop_q_any.eq((lru.cmd == LruCmd.POP) | (cmd_q == LruCmd.POP))
    ahead = [lru.pop_now, cmd_q == LruCmd.POP, cmd_qq == LruCmd.POP]
    one_ahead = Signal()
    m.d.comb += [
        one_ahead.eq(lru.pop_now | pop_q_any),
        lru.evict_slot.eq(Mux(one_ahead, ch.slot[1], lru.tail)),
        lru.evict_known.eq(Mux(one_ahead, ch.valid[1], ~lru.empty) & (sum(ahead) < 2)),
    ]


def drive_observation(lru, m, *arrays):
    obs = lru.observe
    for a in arrays:
        writes = getattr(obs, f"{a.name}_writes")
        for k, stage in enumerate(a.pending):
            for n, port in enumerate("ab"):
                m.d.comb += [getattr(writes[k][n], f).eq(x)
                             for f, x in zip(("en", "addr", "data"), stage[port])]
        if not a.registered:
            continue
        bank_writes, fb_hit = (getattr(obs, f"{a.name}_{x}") for x in ("bank_writes", "fb_hit"))
        for k in range(2):
            for n, w in enumerate((a.bank_last[k], a.bank_last2[k])):
                m.d.comb += [getattr(bank_writes[k][n], f).eq(x)
                             for f, x in zip(("en", "addr", "data"), w)]
        for n, port in enumerate("ab"):
            hit_last2, hit_last = a.fb_hit[port]
            m.d.comb += [fb_hit[n][0].eq(hit_last), fb_hit[n][1].eq(hit_last2)]
