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
"""

import functools
from types import SimpleNamespace

from amaranth.lib import enum

from amaranth import *
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

import regmap

from .layouts import check_params
from .ecc import PROTECTIONS
from .lru_banks import XorCodedArray
from .protect import ProtectedMemory, collect_errors

__all__ = ["CHAIN", "LruCmd", "LruList", "LruObservationSignature", "lru_command_layout",
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


class LruList(wiring.Component):
    """Doubly linked LRU list over the table slots.

    Ports
    -----
    cmd : In(LruCmd)
        Command of this cycle; ``head``/``tail`` show its effect ``tail_lag`` cycles later.
    slot : In(SLOT_WIDTH)
        Slot of ``TOUCH`` (a linked slot) / ``INSERT`` (an unlinked slot) / ``POP`` (the
        ``tail``; only when not ``empty`` and not ``busy``). The command reads' address.
    flush : In(1)
        Empty the list (at the end of the cycle); not while ``busy``.
    head, tail : Out(SLOT_WIDTH)
        Most / least recently used slot (meaningless while ``empty``). Registers.
    empty : Out(1)
        The list holds no slot. Register, 1 after reset.
    busy : Out(1)
        A command's ``head``/``tail`` update is pending (it is in C2 or C3; not registered:
        in C2).
    pending : Out(ArrayLayout(lru_command_layout(params), tail_lag - 1))
        Those commands (registers): element 0 in C2, element 1 in C3 (registered only);
        ``cmd`` is ``NONE`` where there is none. For the formal views.
    no_cmd : In(1)
        No command is given in this cycle: the command read port refills the chain only
        then (registered list; ``False``: unused). Must be low whenever ``cmd`` is not
        ``NONE``; low in a cycle without a command only skips that cycle's refill. The core
        drives it from E2's registers (no decode of the OBSERVE's outcome), so that the
        read address does not wait for ``cmd``'s decode.
    pop_now : In(1)
        A POP is given in this cycle (``cmd``), for ``evict_slot``: the core drives it from
        a register (E2's invalidate), so that ``evict_slot`` does not wait for ``cmd``'s
        decode. High without a POP (a cancelled one) only makes ``evict_slot`` meaningless.
    evict_slot : Out(SLOT_WIDTH)
        The tail once the POP given now (``pop_now``) or in C2 / C3 is done: ``tail``, or
        with such a POP the chain's second slot; meaningless unless ``evict_known``, and
        while a TOUCH or INSERT is in C2 / C3. Not registered: a 2:1 choice of registers by
        an OR of two registers (``pop_now`` and whether a POP is in C2 / C3, registered a
        cycle ahead).
    evict_known : Out(1)
        ``evict_slot`` is a slot of the list (that chain slot is valid, or it is ``tail``
        and the list is not empty) and at most one such POP is in flight, for the formal
        views and the tests.
    chain : Out(ArrayLayout(SLOT_WIDTH, CHAIN)), chain_valid : Out(CHAIN)
        The chain (element 0 is ``tail``) and its valid bits (registers; with
        ``registered=False`` only element 0). For the formal views.
    observe : Out(LruObservationSignature(params, registered=registered))
        Only with ``observe=True``: the pointer writes in flight and the bypass state.

    Parameters
    ----------
    params : regmap.Params
    registered : bool
        ``True`` (default): the six-stage pipeline above, every block-RAM output registered
        first. ``False``: three stages for a small device (about 300 fewer flip-flops):
        C2 computes straight from the command read's words and issues the feedback reads,
        C3 writes; ``head``/``tail`` then show a command 2 cycles later, not 3.
    memory : class
        The memory the banks are built from (default ``amaranth.lib.memory.Memory``; the
        formal harness gives its register model).
    observe : bool
        Add the ``observe`` port (default ``False``).
    protection : str
        ``"none"`` (default) or a ``hdl.ecc.PROTECTIONS`` code: every bank a
        ``hdl.protect.ProtectedMemory`` of ``memory`` (docs/spec-decisions.md D11),
        which corrects what it can at every read port and adds the ports
        ``sweep_en`` In(1), ``sweep_addr`` In(SLOT_WIDTH) (the recovery's sweep: the zero
        code word to that word of every bank instead of the bank's write) and
        ``err_uncorrectable``, ``err_corrected`` Out(1), ``err_mem`` Out(4), ``err_slot``
        Out(SLOT_WIDTH) (a read port of this cycle failed its check or corrected a bit; the
        memory, ``regmap.MEM_IDS``, and the word of the first, uncorrectable first). Every
        read port is checked, used or not.

    Attributes
    ----------
    tail_lag : int
        Cycles from a command to the first cycle in which ``head``/``tail`` show its effect
        (``tail_lag(registered)``); the core's EVICT reads ``evict_slot``, which shows a
        POP from the cycle it is given.
    memories : dict
        After elaboration: the coded banks by name (``prev0``, ``prev1``, ``next0``,
        ``next1``), for the formal views of the contents (with the register-model memory).
    """

    def __init__(self, params=None, *, registered=True, memory=Memory, observe=False,
                 protection="none"):
        params = check_params(params)
        if protection not in PROTECTIONS:
            raise ValueError(f"protection must be one of {PROTECTIONS}, not {protection!r}")
        self.protection = protection
        for name, value in (("registered", registered), ("observe", observe)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, not {value!r}")
        self.observed = observe
        self._params = params
        self.registered = registered
        self._memory = memory
        self.tail_lag = tail_lag(registered)
        sw = params.SLOT_WIDTH
        ports = {
            "cmd": In(LruCmd),
            "slot": In(sw),
            "flush": In(1),
            "head": Out(sw),
            "tail": Out(sw),
            "empty": Out(1, init=1),
            "busy": Out(1),
            "pending": Out(data.ArrayLayout(lru_command_layout(params), self.tail_lag - 1)),
            "no_cmd": In(1),
            "pop_now": In(1),
            "evict_slot": Out(sw),
            "evict_known": Out(1),
            "chain": Out(data.ArrayLayout(sw, CHAIN)),
            "chain_valid": Out(CHAIN),
        }
        if observe:
            ports["observe"] = Out(LruObservationSignature(params, registered=registered))
        if protection != "none":
            ports.update({"sweep_en": In(1), "sweep_addr": In(sw),
                          "err_uncorrectable": Out(1), "err_corrected": Out(1),
                          "err_mem": Out(4), "err_slot": Out(sw)})
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        prv, nxt = self._pointer_arrays(m)
        ch = self._chain(m)
        cmd = self._command_stages(m, prv, nxt, ch)
        link = self._links(m, prv, nxt, ch, cmd)
        if self.registered:
            self._chain_update(m, ch, cmd, link.p_of)
            self._evict_slot(m, ch, cmd)
        else:
            m.d.comb += [self.evict_slot.eq(self.tail), self.evict_known.eq(~self.empty)]
        kept = CHAIN if self.registered else 1
        m.d.comb += [self.chain[k].eq(ch.slot[k]) for k in range(kept)]
        m.d.comb += [self.chain_valid[k].eq(ch.valid[k]) for k in range(kept)]

        prv.request(link.pa, link.pb)
        nxt.request(link.na, link.nb)
        self.memories = {f"{a.name}{i}": mem for a in (prv, nxt) for i, mem in enumerate(a.banks)}
        if self.protection != "none":
            checks = [(rp.error, rp.corrected, regmap.MEM_IDS[f"{a.name}{i}"], rp.error_addr)
                      for a in (prv, nxt) for i in range(2)
                      for rp in (a.cmd_rp[i], a.fb_rp[i])]
            collect_errors(m, self, sorted(checks, key=lambda c: c[2]), registered=True)
        if self.observed:
            self._observe(m, prv, nxt)
        return m

    def _pointer_arrays(self, m):
        """The ``prev`` and ``next`` arrays (``XorCodedArray``), each two coded banks of
        ``memory`` (with protection a ``ProtectedMemory`` of it)."""
        p = self._params
        n, sw = p.ENTRIES, p.SLOT_WIDTH
        reg = self.registered
        memory = self._memory
        if self.protection != "none":
            memory = functools.partial(ProtectedMemory, protection=self.protection,
                                       sweep_en=self.sweep_en, sweep_addr=self.sweep_addr,
                                       memory=memory)
        coded = self.protection != "none" and reg    # C2 and C5 in the read ports
        prv = XorCodedArray(m, "prev", n, sw, reg, memory, coded)
        nxt = XorCodedArray(m, "next", n, sw, reg, memory, coded)
        return prv, nxt

    def _chain(self, m):
        """The chain's slots and valid bits (registered only; element 0 is ``tail``), its
        last valid slot (``end``) and whether this cycle's command read is a refill
        (``refill``, registered along the pipeline as ``refill_q``, ``refill_qq``)."""
        sw = self._params.SLOT_WIDTH
        tail, empty = self.tail, self.empty
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

    def _command_stages(self, m, prv, nxt, ch):
        """C1: the command reads (at the ``slot`` port: a POP's is the tail it will
        unlink), or in a cycle without a command the chain's refill; C2: the command
        travels along its registered words (and through C3 with ``registered``)."""
        sw = self._params.SLOT_WIDTH
        reg = self.registered
        refill, refill_q, refill_qq = ch.refill, ch.refill_q, ch.refill_qq
        raddr = Signal(sw)
        m.d.comb += raddr.eq(Mux(refill, ch.end, self.slot))
        prv.read(raddr)
        nxt.read(raddr)
        # C2: the words are registered (in XorCodedArray); the command travels along.
        cmd_q = Signal(LruCmd, name="cmd_q")
        slot_q = Signal(sw, name="slot_q")
        m.d.sync += [cmd_q.eq(self.cmd), slot_q.eq(raddr)]
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
            m.d.comb += refill.eq(self.no_cmd & ~ch.valid[CHAIN - 1])
            m.d.sync += [refill_q.eq(refill), refill_qq.eq(refill_q)]
            m.d.comb += self.busy.eq((cmd_q != LruCmd.NONE) | (cmd_qq != LruCmd.NONE))
        else:
            cmd_qq, slot_qq = cmd_q, slot_q      # (the command computes in C2)
            m.d.comb += self.busy.eq(cmd_q != LruCmd.NONE)
        m.d.comb += [self.pending[0].cmd.eq(cmd_q), self.pending[0].slot.eq(slot_q)]
        if reg:
            m.d.comb += [self.pending[1].cmd.eq(cmd_qq), self.pending[1].slot.eq(slot_qq)]
        return SimpleNamespace(cmd_q=cmd_q, slot_q=slot_q, cmd_qq=cmd_qq, slot_qq=slot_qq)

    def _links(self, m, prv, nxt, ch, cmd):
        """C3 (not registered: C2): the pointers of the command's slot (``p_of``,
        ``n_of``), the pointer writes it requests (returned: ``pa``, ``pb``, ``na``,
        ``nb``, each ``[enable, address, value]``) and the ``head`` / ``tail`` / ``empty``
        update."""
        sw = self._params.SLOT_WIDTH
        reg = self.registered
        head, tail, empty = self.head, self.tail, self.empty
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
        with m.If(self.flush):
            m.d.sync += empty.eq(1)
        return SimpleNamespace(p_of=p_of, pa=pa, pb=pb, na=na, nb=nb)

    def _chain_update(self, m, ch, cmd, p_of):
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
                with m.If(ch.refill_qq & (cmd.slot_qq == ch_end) & (ch_end != self.head) &
                          ~self.empty):
                    for k in range(1, CHAIN):
                        with m.If(~ch_v[k] & ch_v[k - 1]):
                            m.d.sync += [chain[k].eq(p_of), ch_v[k].eq(1)]
        with m.If(self.flush):
            m.d.sync += [v.eq(0) for v in ch_v[1:]]

    def _evict_slot(self, m, ch, cmd):
        """``evict_slot``: the tail after the POP given now or in C2 / C3 (one at most:
        with two, ``evict_known`` is low), a 2:1 choice of registers by an OR of two:
        whether a POP is in C2 or C3 is registered a cycle ahead (``pop_q_any``), so no
        command decode sits in front of R's read address."""
        cmd_q, cmd_qq = cmd.cmd_q, cmd.cmd_qq
        pop_q_any = Signal(name="pop_q_any")
        m.d.sync += pop_q_any.eq((self.cmd == LruCmd.POP) | (cmd_q == LruCmd.POP))
        ahead = [self.pop_now, cmd_q == LruCmd.POP, cmd_qq == LruCmd.POP]
        one_ahead = Signal()
        m.d.comb += [
            one_ahead.eq(self.pop_now | pop_q_any),
            self.evict_slot.eq(Mux(one_ahead, ch.slot[1], self.tail)),
            self.evict_known.eq(Mux(one_ahead, ch.valid[1], ~self.empty) & (sum(ahead) < 2)),
        ]

    def _observe(self, m, *arrays):
        obs = self.observe
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
