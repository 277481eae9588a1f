# SPDX-License-Identifier: Apache-2.0
"""``LruList``: the LRU list's component, its ports and parameters; ``elaborate`` builds
the stages of ``stages.py`` in pipeline order (the design: ``hdl.lru``)."""

from amaranth import Module
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

import regmap

from ..ecc import check_protection
from ..layouts import check_params
from ..error_report import collect_errors
from ..ram import check_memory
from .layouts import CHAIN, LruCmd, LruObservationSignature, lru_command_layout, tail_lag
from .stages import (chain_registers, chain_update, command_stages, drive_observation,
                     evict_choice, links, pointer_arrays)

__all__ = ["LruList"]


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
    sweep_en : In(1), sweep_addr : In(SLOT_WIDTH)
        Only with ``protection``: the recovery's sweep (the zero code word to that word of
        every bank instead of the bank's write).
    err_uncorrectable, err_corrected : Out(1), err_mem : Out(MEM_ID_WIDTH), err_slot : Out(SLOT_WIDTH)
        Only with ``protection``: a read port failed its check or corrected a bit in the
        cycle before (registered; the memory, ``regmap.MEM_IDS``, and the word of the
        first, uncorrectable first).

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
        which corrects what it can at every read port and adds the ports ``sweep_*`` and
        ``err_*`` (above). Every read port is checked, used or not.

    Attributes
    ----------
    params : regmap.Params
        The elaboration parameters, checked.
    memory : class
        The memory class the banks are built from (the ``memory`` parameter).
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
        check_protection(protection)
        self.protection = protection
        for name, value in (("registered", registered), ("observe", observe)):
            if not isinstance(value, bool):
                raise TypeError(f"{name} must be a bool, not {value!r}")
        self.observed = observe
        self.params = params
        self.registered = registered
        self.memory = check_memory(memory)
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
                          "err_mem": Out(regmap.MEM_ID_WIDTH), "err_slot": Out(sw)})
        super().__init__(ports)

    def elaborate(self, platform):
        m = Module()
        prv, nxt = pointer_arrays(self, m)
        ch = chain_registers(self, m)
        cmd = command_stages(self, m, prv, nxt, ch)
        link = links(self, m, prv, nxt, ch, cmd)
        if self.registered:
            chain_update(self, m, ch, cmd, link.p_of)
            evict_choice(self, m, ch, cmd)
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
            drive_observation(self, m, prv, nxt)
        return m
