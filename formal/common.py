# SPDX-License-Identifier: Apache-2.0
"""Shared pieces of the formal harnesses.

* ``small_params()``: the small configurations the proofs run on.
* ``FormalMemory``: a drop-in for ``amaranth.lib.memory.Memory`` (the subset the design
  uses) whose words are plain registers exposed as ``cells``, so that a property can name
  the *contents* of the LRU pointer arrays and the table (the response FIFO is Amaranth's
  ``SyncFIFOBuffered``, with the library memory), and so that k-induction sees them as
  ordinary state. Its equivalence with the library memory is checked by the
  ``memory_model_bmc`` and ``memory_model_lanes_bmc`` jobs (``formal/memory_model.py``).
* ``AbstractHash``: a drop-in for ``hdl.hash.Murmur3Hash64``: the hash is an arbitrary
  (symbolic, ``AnyConst``) function of the key, delayed by ``latency`` cycles. The core
  treats the hash as a black box, so a proof for every function covers MurmurHash3 with
  every seed (the seed is constant between flushes).
* ``config_legal_expr(params, config)``: the register map's legality rule of a
  configuration (``regmap.CONFIG_CHAINS``) as an expression, for the harnesses' assumption
  and the register block's assertions alike; ``FORMAL_GEN_WIDTH``: the table generation
  width every core harness builds with.
* ``formal_models(params)``: these substitutes as the core's constructor takes them
  (``KvAsuCore(params, options, hash=..., memory=...)``).
* ``reset_assumptions(m)``: reset is asserted in the first cycle.
* ``ListMoves``: where each slot is as the moves given to ``LiveGhostLists`` leave it, and
  whether a move given now is valid (its slot on the list it names).
* ``pointer_view`` and ``bypass_agreements``: the logical pointers of an XOR-coded pointer
  array (``hdl.lru.banks.XorCodedArray``) with its writes in flight, and what its
  registered bypass choices mean, from an ``hdl.lru.LruObservationSignature`` port (the
  article's LRU list and the predictor mode's lists alike).
"""

import functools
from types import SimpleNamespace

from amaranth import *
from amaranth.hdl import Assert, Assume, Fragment
from amaranth.hdl._ast import AnyConst, AnySeq, Initial
from amaranth.lib import wiring, data
from amaranth.lib.wiring import In, Out
from amaranth.utils import ceil_log2

import regmap

__all__ = ["small_params", "FormalMemory", "AbstractHash", "formal_models",
           "reset_assumptions", "elaborated", "popcount", "free_config", "assert_list",
           "config_legal_expr", "FORMAL_GEN_WIDTH"]

#: The table generation width the core harnesses build with (``KvAsuCore(gen_width=)``):
#: 4 generations, so that the wrap is within a BMC's reach; the generation logic is the
#: same for any width, and fewer state bits keep the solver's work small (the build has
#: 4 bits).
FORMAL_GEN_WIDTH = 2


def small_params(entries=4, probe=2, tag_width=3, count_width=2, ts_width=3, tick_shift=0):
    """A small legal configuration (checked by ``regmap.Params`` and the core)."""
    return regmap.Params(ENTRIES=entries, PROBE=probe, ADDR_WIDTH=tag_width, LINE_SHIFT=0,
                         TAG_WIDTH=tag_width, COUNT_WIDTH=count_width, TS_WIDTH=ts_width,
                         TICK_SHIFT=tick_shift)


def config_legal_expr(params, config):
    """The legality of a configuration as an Amaranth expression: every chain of
    ``regmap.CONFIG_CHAINS`` (the register map's one rule, which ``regmap.config_legal``
    applies in software) non-decreasing. ``config`` maps each name of
    ``regmap.CONFIG_NAMES`` to a value, or is a view with those names in lower case
    (``hdl.layouts.config_layout``); ``COUNT_MAX`` / ``WMAX`` come from ``params``."""
    def value(entry):
        if isinstance(entry, int):
            return Const(entry, max(entry.bit_length(), 1))
        if entry in regmap.CONFIG_NAMES:
            if isinstance(config, dict):
                return Value.cast(config[entry])
            return Value.cast(getattr(config, entry.lower()))
        n = getattr(params, entry)                     # COUNT_MAX, WMAX
        return Const(n, max(n.bit_length(), 1))

    legal = Const(1, 1)
    for chain in regmap.CONFIG_CHAINS:
        values = [value(entry) for entry in chain]
        for a, b in zip(values, values[1:]):
            legal = legal & (a <= b)
    return legal


def popcount(bits):
    """The number of bits set among ``bits`` (an Amaranth expression)."""
    total = Const(0, 1)
    for b in bits:
        total = total + b
    return total


def free_config(m, core, params):
    """The configuration environment of a core harness: ``core.cfg`` arbitrary and legal
    at the start and after every reset, changing to another legal value only at a clock
    edge where ``hold`` and ``idle`` are high (what ``axil_prove`` proves of the register
    block); the abstract hash ignores the seed. Also drives ``core.cycle`` from a counter.

    Returns a namespace of signals: ``hold_idle``, which the harness drives (``hold &
    idle``: when a change may land); ``first``, 1 in the first cycle and after every
    reset; ``cfg_free`` and ``cfg_prev``, the configuration of this cycle and of the one
    before; ``cyc``, the cycle counter."""
    p, cfg = params, core.cfg
    n_cfg = len(Value.cast(cfg))
    hold_idle = Signal(name="hold_idle")
    cfg_free, cfg_prev = Signal(n_cfg, name="cfg_free"), Signal(n_cfg, name="cfg_prev")
    first = Signal(init=1, name="first")
    may_change = Signal(name="cfg_may_change")
    m.d.comb += [cfg_free.eq(AnySeq(n_cfg)), cfg.eq(cfg_free), cfg.hash_seed.eq(0)]
    m.d.sync += [cfg_prev.eq(cfg_free), first.eq(0), may_change.eq(hold_idle)]
    m.d.comb += Assume(first | may_change | (cfg_free == cfg_prev))
    m.d.comb += Assume(config_legal_expr(p, cfg))
    cyc = Signal(p.TS_WIDTH + p.TICK_SHIFT, name="cyc")
    m.d.sync += cyc.eq(cyc + 1)
    m.d.comb += core.cycle.eq(cyc)
    return SimpleNamespace(hold_idle=hold_idle, first=first, cfg_free=cfg_free,
                           cfg_prev=cfg_prev, cyc=cyc)


class ListMoves:
    """The moves given to ``lists`` (``hdl.predictor.LiveGhostLists``), tracked in ``m``.

    ``where[s]`` is slot ``s``'s list (0 none, 1 live, 2 ghost) as the moves past their end
    update leave it (each move is carried down a copy of the list's pipeline and applied in
    its C3, three-stage: C2, in step with the ends); a flush, or a reset, empties both.
    ``valid_move`` is 1 unless a move is given now whose slot is not, once the moves ahead
    of it are done, on the list it names (``frm``); ``valid_flush`` is 1 unless a flush
    comes with a move given or in flight (``busy``). These are the conditions under which
    the lists are proven well formed (formal/predictor_props.py ``ListsWellFormed``, which
    assumes them; the core's harness asserts them).
    """

    def __init__(self, m, lists, params):
        from hdl.predictor.lists import ListTo
        n, sw = params.ENTRIES, params.SLOT_WIDTH
        cmd = lists.cmd

        def place(destination):       # 0 none, 1 live, 2 ghost
            return Mux(destination == ListTo.NONE, 0,
                       Mux(destination == ListTo.GHOST_HEAD, 2, 1))

        # The moves given and not yet past their end update, newest first: the one given
        # in the cycle before (C2), ..., the one updating the ends now.
        pipe = [(Signal(name=f"mv{k}_valid"), Signal(sw, name=f"mv{k}_slot"),
                 Signal(2, name=f"mv{k}_place")) for k in range(lists.tail_lag - 1)]
        m.d.sync += [x.eq(y) for x, y in zip(pipe[0], (cmd.valid, cmd.payload.slot,
                                                        place(cmd.payload.to)))]
        for newer, older in zip(pipe, pipe[1:]):
            m.d.sync += [x.eq(y) for x, y in zip(older, newer)]
        self.where = [Signal(2, name=f"where{s}") for s in range(n)]
        at = Array(self.where)
        last_valid, last_slot, last_place = pipe[-1]
        with m.If(lists.flush):
            m.d.sync += [w.eq(0) for w in self.where]
        with m.Elif(last_valid):
            m.d.sync += at[last_slot].eq(last_place)
        # where the slot given now is when its C3 comes: after every move ahead of it
        now = at[cmd.payload.slot]
        for mv_valid, mv_slot, mv_place in reversed(pipe):     # oldest first
            now = Mux(mv_valid & (mv_slot == cmd.payload.slot), mv_place, now)
        self.valid_move = ~cmd.valid | (now == cmd.payload.frm.as_value())
        self.valid_flush = ~(lists.flush & (cmd.valid | lists.busy))


def pointer_view(banks, observe, name, registered):
    """The logical pointers of array ``name`` (``"prev"`` / ``"next"``) of an XOR-coded
    pair: the XOR of its two banks (``banks``: two lists of words, one per slot), with the
    writes the move or command in C6 makes in this cycle and then those the ones in C5 and
    C4 have requested applied (three-stage pipeline: C3's writes of this cycle), read from
    ``observe`` (an ``LruObservationSignature`` port). The view is in step with the list's
    ends, which those commands have updated already."""
    stages = getattr(observe, f"{name}_writes")
    # (newest first: registered C4, C5, C6, ...; else C3, ...)
    order = (2, 1, 0) if registered else (0,)
    writes = [stages[k][n] for k in order for n in range(2)]
    view = []
    for s in range(len(banks[0])):
        v = banks[0][s] ^ banks[1][s]
        for w in writes:                   # oldest first; A and B never share an address
            v = Mux(w.en & (w.addr == s), w.data, v)
        view.append(v)
    return view


def bypass_agreements(observe):
    """The registered pipeline's C6 bypass choices, registered in C5: each says whether the
    bank write of the cycle before (``last``) or two before (``last2``) is at the address the
    C6 write takes its other bank's word from (port A: bank 1, port B: bank 0). Returns the
    conditions, true in every reachable state; asserted, they rule out start states of
    k-induction where the choices disagree."""
    conditions = []
    for name in ("prev", "next"):
        writes = getattr(observe, f"{name}_writes")
        bank_writes = getattr(observe, f"{name}_bank_writes")
        fb_hit = getattr(observe, f"{name}_fb_hit")
        for n, k in ((0, 1), (1, 0)):          # port A reads bank 1, port B bank 0
            addr = writes[2][n].addr           # the write of C6
            for age in range(2):               # the bank write one / two cycles ago
                w = bank_writes[k][age]
                conditions.append(fb_hit[n][age] == (w.en & (w.addr == addr)))
    return conditions


def assert_list(m, head, tail, empty, members, nxt, prv, name):
    """Assert that the doubly linked list ``head`` .. ``tail`` (over the ``nxt`` and ``prv``
    pointer arrays, ``Array`` of slots) holds exactly the slots ``s`` with ``members[s]``,
    each once, ``prv`` mirroring ``nxt`` along it, ``empty`` exactly when it has none.
    Returns its length (the members' count)."""
    n = len(members)
    count = popcount(members)
    xs = [Signal(len(head), name=f"{name}_walk0")]
    m.d.comb += xs[0].eq(head)
    for i in range(1, n):
        x = Signal(len(head), name=f"{name}_walk{i}")
        m.d.comb += x.eq(nxt[xs[i - 1]])
        xs.append(x)
    with m.If(empty):
        m.d.comb += Assert(count == 0)
    with m.Else():
        m.d.comb += Assert(count != 0)
        for i in range(n):
            on = i < count
            m.d.comb += Assert(~on | Array(members)[xs[i]])
            for j in range(i):
                m.d.comb += Assert(~on | (xs[i] != xs[j]))
            if i:
                m.d.comb += Assert(~on | (prv[xs[i]] == xs[i - 1]))
            with m.If(count == i + 1):
                m.d.comb += Assert(xs[i] == tail)
    return count


# ---- memory substitute --------------------------------------------------------------------

class FormalMemory(Elaboratable):
    """Register model of ``amaranth.lib.memory.Memory`` (synchronous ports, ``sync`` domain;
    a plain shape, or an ``ArrayLayout`` shape with a write enable bit per element).

    Semantics copied from Amaranth 0.5 (``$memwr_v2`` / ``$memrd_v2`` as emitted by
    ``amaranth.back.rtlil``): a write port writes ``data`` to ``addr`` at the clock edge when
    ``en``; a read port registers ``mem[addr]`` at the edge when ``en`` (``en`` resets to 1,
    the data register has no reset), returning the *new* data for a write port in its
    transparency set that writes the same address in the same cycle and the old data
    otherwise; with the Yosys attribute ``no_rw_check`` in ``attrs`` (which lets synthesis
    leave read-during-write undefined) it returns an arbitrary value (``AnySeq``) instead
    of the old data, so a design that uses such a word fails its proofs. The contents are
    not reset (``reset_less``), start from ``init`` (zeros for ``init=[]``, as Amaranth
    emits), and are exposed as ``cells``.

    A write port's ``granularity`` splits the word into lanes with one enable bit each:
    elements of an ``ArrayLayout`` shape (``granularity=1``), or ``granularity`` bits of a
    plain shape (as ``ProtectedMemory`` asks for its coded lanes).

    With ``upsets=True`` (the soft-error proofs, ``formal/seu_props.py``) the memory has an
    upset port: inputs ``upset_en``, ``upset_addr``, ``upset_mask`` (a word of bits). In a
    cycle with ``upset_en`` high, word ``upset_addr`` takes, at the clock edge, the value it
    would have taken (after any write of that cycle) XOR ``upset_mask``: the flip is the
    last thing that happens to the word in that cycle, and a read issued in that cycle
    still returns the word before the flip. ``written[i]`` are the bits of word ``i`` that
    the write ports write this cycle (for the harness's record of what the upset left).
    """

    def __init__(self, data=None, *, shape=None, depth=None, init=None, attrs=None,
                 upsets=False, src_loc_at=0):
        if data is not None:
            raise TypeError("FormalMemory: only shape=/depth=/init= are supported")
        self.shape = shape
        self.depth = depth
        init = list(init or [])
        if any(init):
            raise TypeError("FormalMemory: only zero initial contents are supported")
        self.no_rw_check = bool((attrs or {}).get("no_rw_check"))
        self.cells = [Signal(shape, name=f"cell{i}", reset_less=True) for i in range(depth)]
        self.width = len(Value.cast(self.cells[0]))
        self.upsets = bool(upsets)
        if self.upsets:
            # The upset port (driven by the harness; see the class docstring).
            self.upset_en = Signal(name="upset_en")
            self.upset_addr = Signal(range(depth), name="upset_addr")
            self.upset_mask = Signal(self.width, name="upset_mask")
            # The bits of each word that a write port writes this cycle.
            self.written = [Signal(self.width, name=f"cell{i}_written") for i in range(depth)]
        self._wports = []
        self._rports = []

    def write_port(self, *, domain="sync", granularity=None, src_loc_at=0):
        assert domain == "sync"
        aw = ceil_log2(self.depth)
        lanes = 1
        if granularity is not None:
            if isinstance(self.shape, data.ArrayLayout):
                assert granularity == 1
                lanes = self.shape.length
            else:
                assert isinstance(self.shape, int) and self.shape % granularity == 0
                lanes = self.shape // granularity
        port = SimpleNamespace(addr=Signal(aw, name="w_addr"),
                               data=Signal(self.shape, name="w_data"),
                               en=Signal(lanes, name="w_en"), lanes=lanes)
        self._wports.append(port)
        return port

    def read_port(self, *, domain="sync", transparent_for=(), src_loc_at=0):
        assert domain == "sync"
        aw = ceil_log2(self.depth)
        port = SimpleNamespace(addr=Signal(aw, name="r_addr"),
                               data=Signal(self.shape, name="r_data", reset_less=True),
                               en=Signal(1, name="r_en", init=1),
                               transparent_for=tuple(transparent_for))
        self._rports.append(port)
        return port

    @staticmethod
    def _lanes(wp, target):
        """(part of ``target``, part of ``wp.data``) per write enable bit."""
        if wp.lanes == 1:
            return [(target, wp.data)]
        w = len(Value.cast(target)) // wp.lanes
        t, d = Value.cast(target), Value.cast(wp.data)
        return [(t[k * w:(k + 1) * w], d[k * w:(k + 1) * w]) for k in range(wp.lanes)]

    def elaborate(self, platform):
        m = Module()
        cells = self.cells
        if self.upsets:
            # The word as the writes leave it, then flipped.
            nexts = []
            for i, cell in enumerate(cells):
                nxt = Signal(self.shape, name=f"cell{i}_next")
                m.d.comb += nxt.eq(cell)
                nexts.append(nxt)
                m.d.sync += Value.cast(cell).eq(Value.cast(nxt) ^ Mux(
                    self.upset_en & (self.upset_addr == i), self.upset_mask, 0))
            targets, domain = nexts, m.d.comb
        else:
            targets, domain = cells, m.d.sync
        for wp in self._wports:
            for i, cell in enumerate(targets):
                for lane, (c, d) in enumerate(self._lanes(wp, cell)):
                    with m.If(wp.en[lane] & (wp.addr == i)):
                        domain += c.eq(d)
        if self.upsets:
            for i in range(self.depth):
                bits = Const(0, self.width)
                for wp in self._wports:
                    w = self.width // wp.lanes
                    bits = bits | Cat((wp.en[lane] & (wp.addr == i)).replicate(w)
                                      for lane in range(wp.lanes))
                m.d.comb += self.written[i].eq(bits)
        for rp in self._rports:
            value = Signal(self.shape, name="r_value")
            with m.Switch(rp.addr):
                for i, cell in enumerate(cells):
                    with m.Case(i):
                        m.d.comb += value.eq(cell)
            for wp in self._wports:
                transparent = any(wp is t for t in rp.transparent_for)
                if not (transparent or self.no_rw_check):
                    continue
                for lane, (c, d) in enumerate(self._lanes(wp, value)):
                    c = Value.cast(c)        # (a view of a struct layout has no len())
                    with m.If(wp.en[lane] & (wp.addr == rp.addr)):
                        m.d.comb += c.eq(d if transparent else AnySeq(len(c)))
            with m.If(rp.en):
                m.d.sync += rp.data.eq(value)
        return m


# ---- hash substitute ----------------------------------------------------------------------

class AbstractHash(wiring.Component):
    """``Murmur3Hash64`` stand-in: ``hash`` = F(``key`` presented ``latency`` cycles earlier)
    for an arbitrary function F of the low ``key_width`` key bits (one ``AnyConst`` per key
    value), zero-extended to 32 bits. ``seed`` is ignored (F is universally quantified)."""

    key: In(64)
    seed: In(32)
    hash: Out(32)

    def __init__(self, *, key_width, out_width, latency=1):
        assert latency >= 1
        self.latency = latency
        self.key_width = key_width
        self.out_width = out_width
        super().__init__()
        self.table = [AnyConst(out_width, src_loc_at=0) for _ in range(2 ** key_width)]

    def elaborate(self, platform):
        m = Module()
        key = self.key[:self.key_width]
        for _ in range(self.latency):
            q = Signal(self.key_width)
            m.d.sync += q.eq(key)
            key = q
        with m.Switch(key):
            for i, v in enumerate(self.table):
                with m.Case(i):
                    m.d.comb += self.hash.eq(v)
        return m


def formal_models(params, *, hash_latency=1, upsets=False):
    """The substitutes the core is built with for the proofs (``KvAsuCore(..., hash=,
    memory=)``): an abstract hash of the given latency and the register-model memory (with
    ``upsets``: every memory with its upset port)."""
    memory = functools.partial(FormalMemory, upsets=True) if upsets else FormalMemory
    return {"hash": AbstractHash(key_width=params.TAG_WIDTH, out_width=params.SLOT_WIDTH,
                                 latency=hash_latency),
            "memory": memory}


class elaborated(Elaboratable):
    """Wrap a Fragment elaborated ahead of time as a submodule (so that the harness can
    reach what exists only after elaboration, e.g. the table's and the LRU list's
    ``memories``)."""

    def __init__(self, obj, platform):
        self.fragment = Fragment.get(obj, platform)

    def elaborate(self, platform):
        return self.fragment


def reset_assumptions(m):
    """Reset is asserted in the first cycle (and is otherwise free)."""
    with m.If(Initial()):
        m.d.comb += Assume(ResetSignal())
