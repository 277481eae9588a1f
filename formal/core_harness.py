# SPDX-License-Identifier: Apache-2.0
"""Formal harness around ``hdl.core.KvAsuCore``: a free environment plus logical views of
the core's state.

The core is built with the register-model memories and an abstract hash
(``formal.common.formal_models``, through its constructor) and with ``observe=True``, and
elaborated ahead of the harness (the table's and the LRU list's ``memories`` exist after
elaboration), so that the harness can read, from the core's ``observe`` port
(``hdl.core.observe.ObservationSignature``) and the memories' registers:

* ``valid[s]``, ``tag[s]`` of every slot (table registers / memory cells): ``valid`` is
  tracked, i.e. the valid bit set *and* the slot's generation the current one (D12);
  ``raw_valid[s]`` the valid bit alone;
* ``generation``, ``generations_used``: the table generation and the generations started
  since the last clear sweep; every slot whose valid bit is set holds one of the last
  ``generations_used + 1`` generations (asserted: so no slot of an older generation can
  come back as tracked when the generation number is used again);
* ``nxt[s]``, ``prv[s]``: the *logical* LRU pointers, i.e. the XOR of the two coded banks
  with the pointer writes of this cycle and those requested in C4 to C6 applied
  (``_pointer_view``);
* ``flushing``, ``sweep_row``: the clear sweep after reset and flush (the invariants
  below hold outside it; ``sweep_properties`` holds during it);
* ``head``, ``tail``, ``empty``, the pending LRU commands (``lru_pending``: C2 and C3);
* ``occupancy``, the pipeline valid bits, the credit counter ``inflight``, the FIFO level.

Environment (what ``KvAsuRegisters`` and the stream partners may do):

* ``req.valid``, ``req.payload``, ``rsp.ready``, ``enable``, ``hold``: free every cycle;
* ``flush``: free, but only while the core is ``idle`` and not ``flushing`` (the register
  block's guarantee, D8, proven by ``axil_prove``); the register block's proof assumes two
  facts of the core in turn, which ``register_block_facts`` asserts (``StreamCount``);
* ``cfg``: an arbitrary *legal* configuration, which may change (to any legal value) only at
  a clock edge at which ``hold`` and ``idle`` are high: exactly what ``axil_prove`` proves
  of the register block (D8). The seed is ignored (the abstract hash is any function);
* ``cycle``: a counter from 0 after reset (``Timebase``), only its low
  ``TS_WIDTH + TICK_SHIFT`` bits (all the core reads);
* ``rst``: high in the first cycle, free afterwards (a reset in the middle of a run, with
  memory contents *not* reset, is part of every proof of this harness; the soft-error
  harnesses reset in the first cycle only, but for ``core_seu_reset_bmc``);
* ``nonblocking``: 0, the blocking mode (``MODE.NONBLOCKING`` is checked in simulation:
  the cocotb front door against the golden model's admission rule, and the soaks; the
  predictor mode's harness leaves it free).
"""

import dataclasses

from amaranth import *
from amaranth.hdl import Assert, Assume
from amaranth.hdl._ast import AnySeq
from amaranth.lib import data
from hdl.core import CoreOptions, KvAsuCore
import regmap
from hdl.lru import LruCmd
from hdl.table.layouts import ent_word_layout, meta_word_layout

from .common import (FORMAL_GEN_WIDTH, bypass_agreements, elaborated, formal_models,
                     free_config, pointer_view, popcount, reset_assumptions)

__all__ = ["CoreHarness", "table_layouts"]


def table_layouts(params, gen_width):
    """The word layouts of the table's ``ent``, ``meta`` and ``mark`` arrays (the table's
    own, ``hdl.table.layouts``), for the views of the coded words' data bits in the
    soft-error proofs."""
    return {"ent": ent_word_layout(params), "meta": meta_word_layout(params, gen_width),
            "mark": unsigned(1)}


class CoreHarness(Elaboratable):
    """Subclass and override ``properties(m)``; every ``h.<view>`` is available there."""

    def __init__(self, params, *, hash_latency=1, always_ready=False, no_flush=False,
                 unsafe_flush=False, options=None, upsets=0, upset_memories=None):
        self.params = params
        # KvAsuCore(params, options). Unprotected unless `upsets` (the soft-error proofs,
        # formal/seu_props.py: bits flipped by the one upset, 0 for none): then
        # `options.protection` as given, every memory with its upset port
        # (`_upset_port`; only `upset_memories` if given) and the views below are the
        # contents without the upset.
        if upsets not in (0, 1, 2):
            raise ValueError(f"upsets must be 0, 1 or 2, not {upsets!r}")
        options = CoreOptions.cast(options)
        if not upsets:
            options = dataclasses.replace(options, protection="none")
        self.options = options
        self.upsets = upsets
        self.upset_targets = None if upset_memories is None else tuple(upset_memories)
        self.protected = options.protected
        # Where the harness's own invariants are claimed: always, unless a subclass
        # drives it (the soft-error proofs: outside a recovery).
        self.checking = Signal(init=1, name="checking")
        self.unsafe_flush = unsafe_flush    # sanity job only: drop the flush assumption
        self.hash_latency = hash_latency
        self.always_ready = always_ready
        self.no_flush = no_flush

    # -- to override -----------------------------------------------------------------------
    def properties(self, m):
        raise NotImplementedError

    # -- construction ------------------------------------------------------------------------
    def elaborate(self, platform):
        m = Module()
        p = self.params
        # FORMAL_GEN_WIDTH generation bits (formal.common).
        core = KvAsuCore(p, self.options, observe=True, gen_width=FORMAL_GEN_WIDTH,
                         **formal_models(p, hash_latency=self.hash_latency,
                                         upsets=bool(self.upsets)))
        m.submodules.core = elaborated(core, platform)
        self.core = core
        E, P = p.ENTRIES, p.PROBE
        pb = P.bit_length() - 1
        reset_assumptions(m)

        # ---- environment --------------------------------------------------------------
        # cfg: arbitrary and legal at the start; may change to another legal value only at
        # a clock edge where `hold` and `idle` are high (what axil_prove proves of the
        # register block); any legal value after a reset. The abstract hash ignores the seed.
        env = free_config(m, core, p)
        self.cyc = env.cyc

        # Free inputs: AnySeq (an undriven signal would be its constant init value).
        self.req_valid = Signal()
        self.req_payload = Signal.like(core.req.payload)
        self.rsp_ready = Signal()
        self.enable = Signal()
        self.hold = Signal()
        self.flush = Signal()
        for sig in (self.req_valid, self.req_payload, self.rsp_ready, self.enable,
                    self.hold, self.flush):
            m.d.comb += sig.eq(AnySeq(len(Value.cast(sig))))
        m.d.comb += [
            core.req.valid.eq(self.req_valid), core.req.payload.eq(self.req_payload),
            core.rsp.ready.eq(self.rsp_ready), core.enable.eq(self.enable),
            core.hold.eq(self.hold), core.flush.eq(self.flush),
        ]
        if not self.unsafe_flush:
            m.d.comb += Assume(~self.flush | (core.idle & ~core.flushing))
        m.d.comb += env.hold_idle.eq(self.hold & core.idle)
        if self.always_ready:
            m.d.comb += Assume(self.rsp_ready & self.enable & ~self.hold)
        if self.always_ready or self.no_flush:
            m.d.comb += Assume(~self.flush)
        self.accept = core.req.valid & core.req.ready
        self.pop = core.rsp.valid & core.rsp.ready

        # ---- views -----------------------------------------------------------------------
        tbl, lru = core.table, core.lru
        obs = self.obs = core.observe
        self.table = tbl
        self.valid, self.raw_valid, self.tag, self.stale = [], [], [], []
        adm = core.admission
        self.generation, self.generations_used = adm.generation, adm.generations_used
        gw = len(adm.generation)
        if self.upsets:
            self._upset_port(m, tbl, lru)
        words = self._table_words(m, tbl, gw)
        for s in range(E):
            b, row = s % P, s >> pb
            meta = words[f"meta{b}"][row]
            self.valid.append(meta.valid & (meta.gen == adm.generation))
            self.raw_valid.append(meta.valid)
            m.d.comb += self._inv(~meta.valid |
                               ((adm.generation - meta.gen)[:gw] <= adm.generations_used))
            self.stale.append(meta.fresh ^ words[f"mark{b}"][row])
            self.tag.append(words[f"ent{b}"][row].tag)
        self.nxt = self._pointer_view(lru, "next")
        self.prv = self._pointer_view(lru, "prev")
        self.flushing = core.flushing
        self.sweep_row = obs.sweep_row
        self.head, self.tail, self.empty = lru.head, lru.tail, lru.empty
        # the LRU commands whose head/tail update is still pending (in C2 and C3; with
        # the compact LRU (registered=False) only C2)
        self.lru_pending = [(x.cmd, x.slot) for x in obs.lru_pending]
        # The occupancy as the table has it: the port lags E2's insert / eviction by a
        # cycle (counted in L), so the one registered for L is added in.
        occ_inc_q, occ_dec_q = obs.occupancy_inc, obs.occupancy_dec
        self.occupancy = (core.occupancy + occ_inc_q - occ_dec_q)[:len(core.occupancy)]
        self.hash_fn = core.hash.table      # F(tag) for every tag value
        # Pipeline stage registers before L (bit 0 of each is `valid`): s0..s[Lh], M, E1a
        # (E), E1b and E2.
        split = self.options.split_evaluation
        self.stages = [Value.cast(x) for x in obs.hash_stage]
        if self.options.m_stage:
            self.stages.append(Value.cast(obs.m.request))
        self.stages.append(Value.cast(obs.window.request))
        if split:
            self.stages += [Value.cast(obs.lanes.request), Value.cast(obs.e2)]
        self.l_valid = obs.l_valid
        # What L counts into the occupancy belongs to the request in L (at most one).
        m.d.comb += self._inv(~(occ_inc_q | occ_dec_q) | (self.l_valid & ~(occ_inc_q & occ_dec_q)))
        self.inflight = obs.inflight
        self.fifo_level = obs.fifo_level
        # `idle` is a register that lags the pipeline by a cycle; in every reachable state
        # it is high only while every stage is empty (what the flush assumption relies on).
        busy = Cat(*(st[0] for st in self.stages), self.l_valid).any()
        m.d.comb += self._inv(~core.idle | ~busy)
        if split:
            self.forward_invariants(m)
            self.precomputation_invariants(m)
        if lru.registered:
            self.lru_bypass_invariants(m, lru)
        self.pop_invariant(m, lru)
        self.properties(m)
        return m

    def forward_invariants(self, m):
        """The split evaluation (three stages): E's forwarded-lane match and age, registered a
        cycle ahead from the stage before, are E's tag against E2's and E's tick minus
        E2's stamp, saturated at WMAX + 1 (in a reachable state; asserted for
        k-induction, as below)."""
        ts = self.params.TS_WIDTH
        win, d2 = self.obs.window, self.obs.e2
        e_req = win.request
        diff = (e_req.t - d2.t)[:ts]
        m.d.comb += self._inv(~(e_req.valid & d2.valid) | (
            (win.same_line == (e_req.tag == d2.tag)) &
            (win.forward_age == Mux(diff[ts - 1], 1 << (ts - 1), diff))))

    def precomputation_invariants(self, m):
        """Three evaluation stages: what the registers precomputed for E1a and E1b mean.

        They are registered every cycle from the values they summarise, so in a reachable
        state they always agree; k-induction starts from an arbitrary state, where a lane
        overlap or an age comparison could disagree with the slots and ages it stands for
        and steer a forward to the wrong lane. Asserted (so proven), they rule that out:
        lane slots are the window start plus the lane; ``window.overlap`` says which lane
        of E2's window (starting at ``e2.tail_slot``) each lane of E1a is,
        ``lanes.ahead_in_window`` / ``ahead_lane`` which lane of E1b's window each
        lane of E2's window is; E1b's comparisons (``lanes.older`` picked by
        ``forwarded``, ``older_ahead``, ``ahead_older``, ``beyond_w1``) are the
        comparisons of its lane ages, ``age_ahead`` and W1; the ``sc_row_hit`` bits say
        whether a lane's (bank's) row is the scrubber's mark row; E2's ``wr`` / ``inv`` are its write /
        invalidate enables and ``wr_lane`` the lane of the slot it writes.
        """
        p, obs = self.params, self.obs
        P, sw = p.PROBE, p.SLOT_WIDTH
        win, lanes, d2 = obs.window, obs.lanes, obs.e2
        e_valid, eb_valid = win.request.valid, lanes.request.valid
        e_h, eb_tail = win.start, lanes.start
        eb_l = lanes.lane
        age_prev, w1 = lanes.age_ahead, self.core.cfg.w1

        def slot(base, k):
            return (base + k)[:sw]

        def older(i, j):         # as Versions picks it
            return Mux(lanes.forwarded[i], lanes.forward_older[j],
                       Mux(lanes.forwarded[j], lanes.older_forward[i], lanes.older[i][j]))

        for i in range(P):
            m.d.comb += [
                self._inv(~e_valid | (win.lane_slot[i] == slot(e_h, i))),
                self._inv(~eb_valid | (eb_l[i].slot == slot(eb_tail, i))),
            ]
            for j in range(P):
                m.d.comb += [
                    self._inv(~(e_valid & d2.valid) |
                           (win.overlap[i][j] == (slot(e_h, i) == slot(d2.tail_slot, j)))),
                ]
                if i != j:
                    m.d.comb += self._inv(~eb_valid | (older(i, j) == (eb_l[i].age > eb_l[j].age)))
        # E1b's overlaps, by lane j of E2's window: in E1b's window at all, and at which
        # lane.
        pbits = P.bit_length() - 1
        for j in range(P):
            at = [eb_l[i].slot == slot(d2.tail_slot, j) for i in range(P)]
            m.d.comb += self._inv(~(eb_valid & d2.valid) |
                               (lanes.ahead_in_window[j] == Cat(*at).any()))
            for i in range(P):
                m.d.comb += self._inv(~(eb_valid & d2.valid) | (lanes.ahead_lane[i][j] == at[i]))
        for i in range(P):
            m.d.comb += self._inv(~eb_valid | (
                (lanes.older_ahead[i] == (eb_l[i].age > age_prev)) &
                (lanes.ahead_older[i] == (age_prev > eb_l[i].age)) &
                (lanes.beyond_w1[i] == (eb_l[i].age > w1))))
        m.d.comb += self._inv(~eb_valid | (lanes.ahead_beyond_w1 == (age_prev > w1)))
        # The lanes' and banks' "my row is the scrubber's mark row" bits.
        mark_row = obs.sc_mark_row
        for i in range(P):
            m.d.comb += self._inv(~eb_valid | (eb_l[i].sc_row_hit ==
                                            (eb_l[i].slot[pbits:] == mark_row)))
        for b in range(P):
            mbank = win.bank[b]
            m.d.comb += self._inv(~e_valid | (mbank.sc_row_hit == (mbank.row == mark_row)))
        # E2 writes lane j of its window exactly when wr_lane is j.
        wr_en, wr_slot = obs.forward.write, obs.forward.slot
        obs_op = d2.valid & (d2.op == regmap.OPS["OBSERVE"])
        m.d.comb += [
            self._inv(d2.wr == (obs_op & (d2.present | d2.any_free | d2.vict_t0))),
            self._inv(d2.inv == (d2.valid & ((d2.op == regmap.OPS["EVICT"]) |
                                          (d2.op == regmap.OPS["EVICT_ANY"])) & d2.take)),
            self._inv(~obs_op | (wr_en == d2.wr_lane.any())),
        ]
        # wr_lane is one-hot by construction (hit_lane, first free lane, the one winner of
        # a consistent comparison set), and its bit is the lane of the slot E2 writes.
        m.d.comb += self._inv((d2.wr_lane & (d2.wr_lane - 1))[:P] == 0)
        for j in range(P):
            m.d.comb += self._inv(~(obs_op & d2.wr_lane[j]) | (wr_slot == slot(d2.tail_slot, j)))

    def register_block_facts(self, m):
        """What the register block's proof (``formal/axil_props.py``) assumes of the core,
        asserted of it: ``idle`` falls only after a cycle without ``hold`` (the core leaves
        idle only by accepting a request, never while held), and the clear sweep
        (``flushing``) rises only in the cycle after a ``flush`` or a reset cycle."""
        core = self.core
        idle_prev, hold_prev, flushing_prev, flush_prev = (
            Signal(reset_less=True, name=n) for n in ("link_idle_prev", "link_hold_prev",
                                                      "link_flushing_prev", "link_flush_prev"))
        rst_prev = Signal(init=1, reset_less=True, name="link_rst_prev")   # also cycle 0
        m.d.sync += [idle_prev.eq(core.idle), hold_prev.eq(self.hold),
                     flushing_prev.eq(core.flushing), flush_prev.eq(self.flush),
                     rst_prev.eq(ResetSignal())]
        m.d.comb += [
            Assert(~(idle_prev & ~core.idle) | ~hold_prev),   # check: idle-falls
            Assert(~core.flushing | flushing_prev | flush_prev | rst_prev),  # check: sweep-rises
        ]

    def pop_invariant(self, m, lru):
        """The LRU list's restriction, as the core meets it: a ``POP`` (an EVICT that takes
        the tail, in E2) is given with the ``tail`` register as its slot (the list reads
        there, the EVICT read its window there in R: ``lru.evict_slot`` then), while the
        list is not empty and no command's head/tail update is pending (the EVICT gaps:
        the EVICT ahead is 4 cycles ahead at least, an OBSERVE 7); ``pop_now`` is that POP;
        ``no_cmd`` is high only without a command.
        With the registered list also: the chain's second slot is valid then, or the tail
        is the head, so that the EVICT 4 cycles behind finds the tail this POP leaves in
        the chain in its R (and the chain's shape: a valid slot follows a valid one that is
        not the head)."""
        commit = self.core.commit
        pop = commit.lru_cmd == LruCmd.POP
        m.d.comb += self._inv(lru.pop_now == pop)
        # ``no_cmd`` (the refill's read address choice, from E2's registers) is never high
        # with a command.
        m.d.comb += self._inv(~lru.no_cmd | (lru.cmd == LruCmd.NONE))
        m.d.comb += self._inv(~pop | ((commit.lru_slot == lru.tail) & ~lru.empty & ~lru.busy))
        if not lru.registered:
            return
        m.d.comb += self._inv(~pop | lru.chain_valid[1] | (lru.tail == lru.head))
        m.d.comb += self._inv(lru.chain[0] == lru.tail)
        for k in range(1, len(lru.chain_valid)):
            m.d.comb += self._inv(~lru.chain_valid[k] | (
                lru.chain_valid[k - 1] & (lru.chain[k - 1] != lru.head)))

    def chain_invariants(self, m, lru):
        """The LRU list's chain (registered list) is the list's last slots, tail first:
        element 0 is ``tail``, valid exactly when the list is not empty, and a valid element
        ``k > 0`` is ``prv`` of element ``k - 1`` (asserted with the list's shape, in
        ``LruInvariants``)."""
        m.d.comb += self._inv((lru.chain[0] == lru.tail) & (lru.chain_valid[0] == ~lru.empty))
        for k in range(1, len(lru.chain_valid)):
            prev = Array(self.prv)[lru.chain[k - 1]]
            m.d.comb += self._inv(~lru.chain_valid[k] | (lru.chain[k] == prev))

    def lru_bypass_invariants(self, m, lru):
        """The LRU's C6 bypass choices agree with the bank writes they stand for
        (``common.bypass_agreements``)."""
        for condition in bypass_agreements(self.obs.lru):
            m.d.comb += self._inv(condition)

    # -- helpers -----------------------------------------------------------------------------
    def _inv(self, cond):
        """An invariant of the harness: asserted while ``checking`` (located at the
        caller's line, which a failing check's report names)."""
        return Assert(~self.checking | cond, src_loc_at=1)

    def _upset_port(self, m, tbl, lru):
        """With ``upsets``: every block RAM of the core (``upset_memories``: the table's
        arrays, ``scrub`` and the LRU banks, as register models, the coded words with
        protection) gets its upset port driven from one free choice, ``upset_now`` (the
        upset happens at the end of this cycle) in memory ``upset_mem``, word
        ``upset_word``, bits ``upset_bits`` (``upsets`` of them, within the memory's
        width), at most once per run (``upset_done``: from the cycle after, no reset).

        The harness records the flipped bits that no write has rewritten since
        (``flipped``: memory, word and mask), so that ``_upset_free`` gives every word as
        it would be without the upset."""
        mems = {name: (mem.inner if hasattr(mem, "inner") else mem)
                for name, mem in list(tbl.memories.items()) + list(lru.memories.items())}
        if self.upset_targets is not None:
            unknown = set(self.upset_targets) - set(mems)
            if unknown:
                raise ValueError(f"no memory {sorted(unknown)} to upset")
        self.upset_memories = mems
        targets = sorted(n for n in mems if self.upset_targets is None or
                         n in self.upset_targets)
        self.upset_names = targets
        width = max(mems[n].width for n in targets)
        abits = max(len(mems[n].upset_addr) for n in targets)
        now, which = Signal(name="upset_now"), Signal(range(len(targets)), name="upset_mem")
        addr, mask = Signal(abits, name="upset_word"), Signal(width, name="upset_bits")
        for sig in (now, which, addr, mask):
            m.d.comb += sig.eq(AnySeq(len(sig)))
        done = Signal(name="upset_done", reset_less=True)
        m.d.sync += done.eq(done | now)
        m.d.comb += Assume(~(now & done))                       # at most one upset
        with m.If(now):
            m.d.comb += [Assume(which < len(targets)),
                         Assume(popcount(mask) == self.upsets)]
        # The record: which word, and its flipped bits not rewritten since.
        f_mem = Signal(range(len(targets)), name="flipped_mem", reset_less=True)
        f_word = Signal(abits, name="flipped_word", reset_less=True)
        f_mask = Signal(width, name="flipped_bits", reset_less=True)
        self.flipped = {}
        rewritten = Signal(width, name="flipped_rewritten")
        for k, name in enumerate(targets):
            mem = mems[name]
            sel = Signal(name=f"upset_sel_{name}")
            m.d.comb += [sel.eq(now & (which == k)), mem.upset_en.eq(sel),
                         mem.upset_addr.eq(addr), mem.upset_mask.eq(mask[:mem.width])]
            with m.If(sel):
                m.d.comb += [Assume(addr < mem.depth), Assume((mask >> mem.width) == 0)]
            here = f_mem == k
            with m.If(here):
                with m.Switch(f_word):
                    for i in range(mem.depth):
                        with m.Case(i):
                            m.d.comb += rewritten.eq(mem.written[i])
            self.flipped[name] = [Mux(here & (f_word == i), f_mask[:mem.width], 0)
                                  for i in range(mem.depth)]
        with m.If(now):
            m.d.sync += [f_mem.eq(which), f_word.eq(addr), f_mask.eq(mask)]
        with m.Else():
            m.d.sync += f_mask.eq(f_mask & ~rewritten)
        self.upset_now, self.upset_done, self.upset_which = now, done, which
        self.flipped_bits = f_mask

    def _upset_free(self, name, mem, i):
        """Word ``i`` of memory ``name`` (its register model ``mem``) as it would be
        without the upset (all of it, coded bits included)."""
        cell = Value.cast(mem.cells[i])
        if not self.upsets or name not in self.flipped:
            return cell
        return cell ^ self.flipped[name][i]

    def _table_words(self, m, tbl, gen_width):
        """``{array: [word of each row]}`` of the table's ``ent<b>``, ``meta<b>``,
        ``mark<b>``, without the upset (``_upset_free``); with protection the data bits
        of the coded words (the low bits: ``hdl.ecc.Code``), as views of the table's
        word layouts."""
        layouts = table_layouts(self.params, gen_width)
        words = {}
        for name, mem in tbl.memories.items():
            if name == "scrub":            # (protected only; no view: only its upsets)
                continue
            if not self.upsets:
                words[name] = mem.cells
                continue
            layout = layouts[name.rstrip("0123456789")]
            k = Shape.cast(layout).width
            words[name] = []
            for row in range(mem.depth):
                raw = self._upset_free(name, mem, row)[:k]
                words[name].append(data.View(layout, raw) if isinstance(layout, data.Layout)
                                   else raw)
        return words

    def _bank_cells(self, lru, name):
        """The words of LRU bank ``name`` (``prev0`` ...), without the upset; with
        protection their data bits."""
        mem = lru.memories[name]
        if not self.upsets:
            return mem.cells
        k = mem.code.k if hasattr(mem, "inner") else mem.width
        cells = mem.inner if hasattr(mem, "inner") else mem
        return [self._upset_free(name, cells, s)[:k] for s in range(cells.depth)]

    def _pointer_view(self, lru, name):
        """Logical pointers of array ``name`` (``next``/``prev``) in step with
        ``head``/``tail`` (``common.pointer_view``), over the banks without the upset."""
        banks = [self._bank_cells(lru, f"{name}{i}") for i in range(2)]
        return pointer_view(banks, self.obs.lru, name, lru.registered)

    def sweep_properties(self, m):
        """While the clear sweep runs (after reset or a flush): nothing in flight, the list
        and the occupancy empty, and every row already swept has its valid bits clear."""
        p = self.params
        pb = p.PROBE.bit_length() - 1
        m.d.comb += [
            self._inv(self.empty), self._inv(self.occupancy == 0), self._inv(~self.l_valid),
            *(self._inv(cmd == LruCmd.NONE) for cmd, _ in self.lru_pending),
        ]
        for st in self.stages:
            m.d.comb += self._inv(~st[0])      # check: sweep-nothing-in-flight
        for s in range(p.ENTRIES):
            m.d.comb += self._inv(~((s >> pb) < self.sweep_row) | ~self.raw_valid[s])

    def on_list_expected(self, s):
        """Slot ``s`` must be on the list once the pending LRU commands (in C2 and C3) are
        done; the registered list lags the table's valid bits by those commands (each
        INSERT or POP of ``s`` toggles it)."""
        toggled = Const(0)
        for cmd, slot in self.lru_pending:
            toggled = toggled ^ (((cmd == LruCmd.INSERT) | (cmd == LruCmd.POP)) & (slot == s))
        return self.valid[s] ^ toggled

    def window_of(self, slot_sig, h):
        """``slot`` lies in the window ``h .. h+PROBE-1`` (mod ENTRIES)."""
        p = self.params
        return ((slot_sig - h)[:p.SLOT_WIDTH] < p.PROBE) if p.SLOT_WIDTH else Const(1)

    def hash_of(self, m, tag):
        out = Signal(self.params.SLOT_WIDTH)
        with m.Switch(tag):
            for i, v in enumerate(self.hash_fn):
                with m.Case(i):
                    m.d.comb += out.eq(v)
        return out
