# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU golden model: a bit-exact, request-by-request Python reference of the IP core.

It implements ``../shared/spec/KV-ASU.md`` (spec version 1.1), the project's choices in
``docs/spec-decisions.md`` (D1..D13) and the predictor mode of ``docs/spec-predictor.md``,
and nothing else: no cycle timing, no pipeline, no
register bus. The RTL must give, for every accepted request, the response this model gives
for that request at that cycle. Shared *data* (parameters, op codes, statistic names) comes
from :mod:`regmap`; the behaviour is written here, independently of ``hdl/`` and ``verif/``.

State, per slot: ``tag`` (-1 when the slot is free), ``count``, ``last`` (the tick of the
last OBSERVE, an exact integer that never wraps) and the LRU pointers ``prev``/``next``,
plus the list ends ``head`` (most recently used) and ``tail`` (least recently used). The
list is a real doubly linked list over slots, the structure the RTL keeps:

- following ``next`` from ``head`` walks towards ``tail`` (less and less recently used);
- following ``prev`` from ``tail`` walks towards ``head``;
- ``prev[head]``, ``next[tail]`` and both pointers of a free slot are ``-1`` here. The RTL
  has no ``-1``: those pointers mean nothing there and are not compared.

Every request goes through one method, :meth:`KvAsuModel._execute`, whether it comes from
:meth:`~KvAsuModel.request` (one at a time, with a :class:`Response`) or from the fast
path :meth:`~KvAsuModel.run` (a whole stream, responses optional).
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

import regmap
from regmap import PARAM_NAMES, STAT_NAMES, Params
from regmap.arguments import check_int

from ._arrays import uint_array
from . import soft_errors as _soft
from .lists import NONE, link_at_head, move_to_head, walk_list
from .murmur3 import tag_hash
from .records import Config, Op, Response, SlotState, Stats
from .trace import Trace

__all__ = ["KvAsuModel", "POLICIES", "reset_config"]

# Plain ints for the hot loop: comparing IntEnum members is slower than comparing ints.
_OBSERVE, _QUERY, _EVICT, _EVICT_ANY = (int(op) for op in Op)

#: Behaviour modes: the spec's (the reset default) and docs/spec-predictor.md's.
POLICIES = ("article", "predictor")
#: Where ``POLICY.MODE`` sits: a policy's index in ``POLICIES`` is its MODE value.
_POLICY_MODE_BIT = regmap.REG["POLICY"].field("MODE").bit

_MASK64 = (1 << 64) - 1

# Positions of the counters in the model's statistics list. A KeyError here means regmap
# renamed a statistic and the model must be taught its meaning.
_STAT = {name: index for index, name in enumerate(STAT_NAMES)}
_ST_OBSERVES, _ST_OBSERVE_HITS, _ST_INSERTS, _ST_REPLACEMENTS, _ST_DROPS = (
    _STAT[name] for name in ("observes", "observe_hits", "inserts", "replacements", "drops"))
_ST_QUERIES, _ST_QUERY_HITS, _ST_EVICTS, _ST_EVICTS_EMPTY = (
    _STAT[name] for name in ("queries", "query_hits", "evicts", "evicts_empty"))
_ST_OBS_T = tuple(_STAT[f"obs_t{level}"] for level in range(4))
_ST_REQ_DROPPED = _STAT["req_dropped"]


def reset_config(params: Params) -> Config:
    """The reset configuration of decision D4, from the seed's preset (``regmap``'s
    ``[config_defaults]``, data): counts clamped to ``COUNT_MAX``, windows given in cycles
    made ticks by a right shift (so rounded down) and clamped to ``WMAX``."""
    preset = regmap.SPEC["config_defaults"]

    def count(value):
        return min(value, params.COUNT_MAX)

    def window(cycles):
        return min(cycles >> params.TICK_SHIFT, params.WMAX)

    return Config(c3=count(preset["C3"]), c2=count(preset["C2"]),
                  w3=window(preset["W3_CYCLES"]), w2=window(preset["W2_CYCLES"]),
                  w1=window(preset["W1_CYCLES"]), hash_seed=preset["HASH_SEED"])


def _tlevel(count: int, age: int, c3: int, c2: int, w3: int, w2: int, w1: int) -> int:
    """Spec section 5: the T-level of a tracked line with ``count`` and ``age`` (ticks)."""
    if count >= c3 and age <= w3:
        return 3
    if count >= c2 and age <= w2:
        return 2
    if age <= w1:
        return 1
    return 0


class _Windows(dict):
    """``windows[h]``: the slots ``h, h+1, ..., h+PROBE-1`` (mod ENTRIES), built on demand."""

    def __init__(self, entries: int, probe: int):
        super().__init__()
        self._entries = entries
        self._probe = probe

    def __missing__(self, home: int) -> tuple[int, ...]:
        window = tuple((home + offset) % self._entries for offset in range(self._probe))
        self[home] = window
        return window


class KvAsuModel:
    """Bit-exact golden model of the KV-ASU.

    Parameters are those of spec section 2 in lower case (``entries``, ``probe``,
    ``addr_width``, ``line_shift``, ``tag_width``, ``count_width``, ``ts_width``,
    ``tick_shift``); any not given takes its default. Alternatively pass a ready
    ``params=regmap.Params(...)``. Illegal parameters raise ``TypeError``/``ValueError``
    (from :class:`regmap.Params`, decision D1).

    ``policy`` is the policy the model starts with and returns to on :meth:`reset`:
    ``"article"`` (default, the spec's behaviour, ``POLICY.MODE = 0``, the block's reset
    value) or ``"predictor"`` (``docs/spec-predictor.md``, ``POLICY.MODE = 1``,
    implemented in :mod:`golden_model.predictor`). A commit of the ``POLICY`` register
    (:meth:`commit`'s ``policy``) switches between them at run time, as the block does
    (P2); a testbench of a block drives it that way from the block's reset value 0.

    ``mode_reset`` is the build's reset value of the ``MODE`` register (decision D13, "The
    reset mode"): 0 (default) or ``MODE.NONBLOCKING``; :meth:`reset` restores it, so a
    model with 1 drops (:meth:`drop`) from reset on. A reserved bit is a ``ValueError``.

    The model starts as the block does out of reset (decision D10): every line untracked,
    statistics zero, the reset configuration of decision D4.

    Example::

        model = KvAsuModel(entries=16, probe=2)
        r = model.request(cycle=0, op=Op.OBSERVE, addr=0x1200)
        assert (r.tracked, r.count) == (1, 1)
    """

    def __init__(self, params: Params | None = None, *, policy: str = "article",
                 mode_reset: int = regmap.MODE_DEFAULTS["MODE"], **parameters):
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        if isinstance(mode_reset, np.integer) and not isinstance(mode_reset, np.bool_):
            mode_reset = int(mode_reset)
        self.mode_reset: int = regmap.check_mode_reset(mode_reset)
        if params is not None:
            if parameters:
                raise TypeError("give either params= or individual parameters, not both")
            if not isinstance(params, Params):
                raise TypeError(f"params must be a regmap.Params, not {params!r}")
        else:
            known = {name.lower(): name for name in PARAM_NAMES}
            unknown = sorted(set(parameters) - set(known))
            if unknown:
                raise TypeError(f"unknown parameter(s) {', '.join(unknown)}; "
                                f"the parameters are {', '.join(known)}")
            params = Params(**{known[name]: value for name, value in parameters.items()})
        self.params: Params = params

        p = params
        self._entries = p.ENTRIES
        self._addr_mask = (1 << p.ADDR_WIDTH) - 1
        self._line_shift = p.LINE_SHIFT
        self._tag_mask = (1 << p.TAG_WIDTH) - 1
        self._tick_shift = p.TICK_SHIFT
        self._count_max = p.COUNT_MAX
        self._wmax = p.WMAX
        self._windows = _Windows(p.ENTRIES, p.PROBE)
        # The predictor mode (docs/spec-predictor.md) keeps its own state and request loop:
        # ``_predictor`` is that state while POLICY.MODE = 1, else None (the state object is
        # kept, flushed, for the next switch).
        self._policy_reset = POLICIES.index(policy) << _POLICY_MODE_BIT
        self._predictor_state = None
        self._predictor = None
        self.reset()

    # ---- whole-block actions --------------------------------------------------------------

    def reset(self) -> None:
        """Reset (decision D10): untrack everything, zero the statistics, restore the reset
        configuration and restart the cycle count (the next request may be at cycle 0)."""
        self._config = reset_config(self.params)
        self._stats = [0] * len(STAT_NAMES)
        self._mode = self.mode_reset
        self._select_policy(self._policy_reset)
        self._cycle = 0
        self._home_cache: dict[int, int] = {}
        self._soft = _soft.SoftErrorState()
        self.flush()

    def flush(self) -> None:
        """Untrack every line (spec section 7). Statistics and configuration are kept."""
        entries = self._entries
        self._tag = [NONE] * entries
        self._count = [0] * entries
        self._last = [0] * entries
        self._prev = [NONE] * entries
        self._next = [NONE] * entries
        self._head = NONE
        self._tail = NONE
        self._occupancy = 0
        if self._predictor is not None:
            self._predictor.flush()

    def _select_policy(self, word: int) -> None:
        """Make ``word`` (a legal ``POLICY`` value) the active policy; the caller flushes."""
        self._policy = word
        if word >> _POLICY_MODE_BIT & 1:
            if self._predictor_state is None:
                from .predictor import PredictorState
                self._predictor_state = PredictorState(self._entries)
            self._predictor = self._predictor_state
        else:
            self._predictor = None

    def clear_stats(self) -> None:
        """Zero every statistics counter."""
        self._stats = [0] * len(STAT_NAMES)

    def drop(self, cycle: int) -> None:
        """A request presented at ``cycle`` that the block, in ``MODE.NONBLOCKING``, could
        not take (decision D13; :class:`golden_model.admission.Admission` says which): it
        has no response and no effect but one more ``req_dropped``. Raises ``ValueError``
        if the mode is not active (a blocking block drops nothing)."""
        cycle = self._check_cycle(cycle)
        if not self.nonblocking:
            raise ValueError("a request can only be dropped in MODE.NONBLOCKING (D13)")
        self._stats[_ST_REQ_DROPPED] += 1
        self._cycle = cycle

    # ---- soft errors (decision D11) -------------------------------------------------------

    def on_error(self, memory: str, address: int, *, corrected: bool = False,
                 cycle: int | None = None) -> None:
        """A check of a block-RAM word found an error (D11); apply its effect.

        ``memory`` is one of ``soft_errors.MEM_IDS`` (``"ent"``, ``"meta"``, ``"mark"``,
        ``"scrub"``, ``"prev0"`` .. ``"next1"``, ``"stats"``), ``address`` the slot (the
        counter index for ``"stats"``), ``cycle`` the detection cycle if known (reported as
        ``ERR_FIRST_CYCLE``; it orders nothing here).

        - ``corrected``: counted, nothing else changes.
        - Uncorrectable in a table or LRU memory: a recovery starts. Every line is
          forgotten (a flush); until :meth:`end_recovery`, every request given to
          :meth:`request` / :meth:`run` is answered as an untracked line with no effect
          (give it the requests accepted in cycles ``d - D + 1 .. d``). During a recovery a
          further uncorrectable error belongs to it and changes nothing.
        - Uncorrectable in ``"stats"``: that counter restarts from zero.
        """
        if memory not in _soft.MEM_IDS:
            raise ValueError(f"memory must be one of {', '.join(_soft.MEM_IDS)}, not {memory!r}")
        limit = len(STAT_NAMES) if memory == _soft.STATS_MEMORY else self._entries
        address = check_int("address", address, 0, limit - 1)
        if cycle is not None:
            cycle = check_int("cycle", cycle, 0)
        if not isinstance(corrected, bool):
            raise TypeError(f"corrected must be a bool, not {corrected!r}")
        soft = self._soft
        if corrected:
            soft.record(memory, address, False, cycle)
        elif memory == _soft.STATS_MEMORY:
            soft.record(memory, address, True, cycle)
            self._stats[address] = 0
        elif not soft.recovering:
            soft.record(memory, address, True, cycle)
            soft.recovering = True
            self.flush()

    def end_recovery(self) -> None:
        """The recovery's sweep has ended (``req.ready`` rose again): requests are answered
        normally again, from an empty table."""
        if not self._soft.recovering:
            raise ValueError("no recovery is running (on_error starts one)")
        self._soft.recovering = False

    @property
    def soft_errors(self) -> _soft.SoftErrors:
        """The soft-error registers: ``sticky`` (``STATUS.SOFT_ERROR``), ``recovering``,
        ``uncorrected``, ``corrected``, ``first`` (``ERR_FIRST_*``)."""
        return self._soft.snapshot()

    def clear_soft_errors(self) -> None:
        """``CTRL.CLEAR_SOFT_ERROR``: clear the sticky bit, the counters and the first error."""
        self._soft.clear()

    def commit(self, cycle: int, *, mode: int | None = None, policy: int | None = None,
               **config) -> None:
        """Apply a new configuration before the requests that follow (spec section 7, D8).

        ``config`` holds any subset of ``c3, c2, w3, w2, w1, hash_seed`` (upper case, as in
        ``regmap.CONFIG_NAMES``, is accepted too); the others keep their active values. The
        resulting set must be legal (``regmap.config_violations``: ``1 <= c2 <= c3 <=
        COUNT_MAX``, ``0 <= w3 <= w2 <= w1 <= WMAX``, ``0 <= hash_seed <= 2**32 - 1``). If
        it is not, a ``ValueError`` (``TypeError`` for a non-integer or an unknown key) is
        raised and *nothing* changes. A commit that changes ``hash_seed`` also flushes.

        ``mode`` is the ``MODE`` register (decision D13; ``None``: unchanged): bit 0
        ``NONBLOCKING``, every other bit reserved; a mode with a reserved bit set makes the
        commit illegal too (``ValueError``, nothing changes). The mode changes no response,
        only which requests the block takes (:class:`golden_model.admission.Admission`).

        ``policy`` is the ``POLICY`` register (docs/spec-predictor.md P2; ``None``:
        unchanged): bit 0 ``MODE`` (0 the article's behaviour, 1 the predictor mode),
        every other bit reserved (``ValueError``, nothing changes). A commit that changes
        ``MODE`` also flushes (before the new policy applies; the statistics stay). The
        model implements both policies: that a build without the predictor refuses
        ``MODE = 1`` is the register block's rule (``regmap.mode_violations``).

        ``cycle`` is the cycle of the commit; like request cycles it must not decrease.
        """
        cycle = self._check_cycle(cycle)
        if mode is not None:
            mode = check_int("mode", mode, 0)
            broken = regmap.mode_violations({"MODE": mode})
            if broken:
                raise ValueError(f"illegal mode: {'; '.join(broken)}")
        if policy is not None:
            policy = check_int("policy", policy, 0)
            broken = regmap.mode_violations({"POLICY": policy}, predictor=True)
            if broken:
                raise ValueError(f"illegal policy: {'; '.join(broken)}")
        changes: dict[str, int] = {}
        for key, value in config.items():
            name = key.lower()
            if name not in Config._fields or (key != name and key != name.upper()):
                raise TypeError(f"unknown configuration key {key!r}; "
                                f"the keys are {', '.join(Config._fields)}")
            if name in changes:
                raise TypeError(f"configuration key {name!r} given twice")
            changes[name] = check_int(name, value, 0)
        new = self._config._replace(**changes)
        self._check_config(new)
        switches = policy is not None and (policy ^ self._policy) >> _POLICY_MODE_BIT & 1
        if new.hash_seed != self._config.hash_seed:
            self._home_cache = {}
        if switches:
            self._select_policy(policy)
        elif policy is not None:
            self._policy = policy   # the word as written, though MODE, its one field, stays
        if new.hash_seed != self._config.hash_seed or switches:
            self.flush()            # (the active policy's state: P9, spec section 7)
        self._config = new
        if mode is not None:
            self._mode = mode
        self._cycle = cycle

    def _check_config(self, config: Config) -> None:
        # The legality rule is regmap's (one statement of spec section 5 for the model and
        # the checkers); the RTL implements it on its own.
        broken = regmap.config_violations(self.params, config.as_dict())
        if broken:
            raise ValueError(f"illegal configuration: {'; '.join(broken)}")

    # ---- read-only views ------------------------------------------------------------------

    @property
    def policy(self) -> str:
        """The active policy: ``"article"`` (the spec's behaviour) or ``"predictor"``
        (docs/spec-predictor.md)."""
        return "article" if self._predictor is None else "predictor"

    @property
    def policy_register(self) -> int:
        """The committed ``POLICY`` register (``ACT_POLICY``, spec-predictor.md P2)."""
        return self._policy

    @property
    def config(self) -> Config:
        """The active configuration."""
        return self._config

    @property
    def mode(self) -> int:
        """The committed ``MODE`` register (decision D13); ``mode_reset`` after reset."""
        return self._mode

    @property
    def nonblocking(self) -> bool:
        """``MODE.NONBLOCKING`` is committed: requests the block cannot take are dropped."""
        return bool(self._mode >> regmap.REG["MODE"].field("NONBLOCKING").bit & 1)

    @property
    def stats(self) -> Stats:
        """A snapshot of the statistics (64-bit counters that wrap, decision D7)."""
        return Stats(*(value & _MASK64 for value in self._stats))

    @property
    def occupancy(self) -> int:
        """The number of tracked lines."""
        return self._occupancy

    @property
    def cycle(self) -> int:
        """The cycle of the latest request or commit (0 after reset)."""
        return self._cycle

    @property
    def head(self) -> int | None:
        """The most recently used slot, or ``None`` when the table is empty."""
        return None if self._head == NONE else self._head

    @property
    def tail(self) -> int | None:
        """The least recently used slot, or ``None`` when the table is empty."""
        return None if self._tail == NONE else self._tail

    # ---- addresses, tags, hash and T-levels -------------------------------------------------

    def tag_of(self, addr: int) -> int:
        """The tag of ``addr`` (decision D2): the low ``TAG_WIDTH`` bits of its line."""
        addr = check_int("addr", addr, 0)
        return ((addr & self._addr_mask) >> self._line_shift) & self._tag_mask

    def home_of_tag(self, tag: int) -> int:
        """``h``, the first slot of the tag's window (spec section 3 with decision D2)."""
        if type(tag) is not int:
            tag = check_int("tag", tag, 0, self._tag_mask)
        home = self._home_cache.get(tag)
        if home is None:
            tag = check_int("tag", tag, 0, self._tag_mask)
            home = tag_hash(tag, self._config.hash_seed) % self._entries
            if len(self._home_cache) >= 1 << 16:   # bound the memory of long random streams
                self._home_cache.clear()
            self._home_cache[tag] = home
        return home

    def home_of(self, addr: int) -> int:
        """``h``, the first slot of the window of ``addr``'s line."""
        return self.home_of_tag(self.tag_of(addr))

    def window_of(self, addr: int) -> tuple[int, ...]:
        """The slots ``h, h+1, ..., h+PROBE-1`` (mod ENTRIES) that may hold ``addr``'s line."""
        return self._windows[self.home_of(addr)]

    def find(self, addr: int) -> int | None:
        """The slot holding ``addr``'s line, or ``None`` if it is not tracked."""
        tag = self.tag_of(addr)
        for slot in self._windows[self.home_of_tag(tag)]:
            if self._tag[slot] == tag and not (self._predictor and self._predictor.ghost[slot]):
                return slot
        return None

    def tlevel_of(self, count: int, age: int) -> int:
        """The T-level of a tracked line with ``count`` (1..``COUNT_MAX``) and ``age``
        (ticks, 0 or more) by the article's rule, spec section 5. The predictor mode grades
        a line by its prediction instead (P5): ``ValueError`` there."""
        if self._predictor is not None:
            raise ValueError("tlevel_of is the article mode's rule; the predictor mode "
                             "grades a line by its prediction (docs/spec-predictor.md P5)")
        count = check_int("count", count, 1, self._count_max)
        age = check_int("age", age, 0)
        c3, c2, w3, w2, w1, _ = self._config
        return _tlevel(count, age, c3, c2, w3, w2, w1)

    # ---- debug views of the table and the LRU list --------------------------------------------

    def slot_state(self, slot: int) -> SlotState:
        """The state of one slot. In the predictor mode a ghost (an evicted line the slot
        still holds, P3) has ``valid = 1`` and ``ghost = 1``, and ``prev`` / ``next`` are its
        neighbours on the ghost list; a tracked line has ``ghost = 0``."""
        slot = check_int("slot", slot, 0, self._entries - 1)
        if self._tag[slot] == NONE:
            return SlotState(0, 0, 0, 0, None, None)
        prev, next_ = self._prev[slot], self._next[slot]
        ghost = int(self._predictor is not None and self._predictor.ghost[slot])
        return SlotState(1, self._tag[slot], self._count[slot], self._last[slot],
                         None if prev == NONE else prev, None if next_ == NONE else next_,
                         ghost)

    def slot_states(self) -> list[SlotState]:
        """The state of every slot, in slot order."""
        return [self.slot_state(slot) for slot in range(self._entries)]

    def lru_order(self) -> list[int]:
        """The tracked slots from the tail (least recently used) to the head (most recently used).

        Walks the list and checks its integrity on the way: pointers in range and mutually
        consistent (``next[prev[s]] == s``), no cycle, ``head``/``tail`` at its ends, exactly
        the valid slots on it, ``occupancy`` equal to its length, free slots unlinked.
        Raises ``AssertionError`` describing the first violation.
        """
        if self._predictor is not None:
            return self._predictor.lists(self)[0]
        entries, tags, prev, next_ = self._entries, self._tag, self._prev, self._next
        order = walk_list(prev, next_, self._head, self._tail, entries, "LRU list")
        seen = set(order)
        for s in order:
            if tags[s] == NONE:
                raise AssertionError(f"LRU list: free slot {s} is on the list")
        valid = {s for s in range(entries) if tags[s] != NONE}
        if seen != valid:
            raise AssertionError(f"LRU list: holds {sorted(seen)}, valid slots are {sorted(valid)}")
        if len(order) != self._occupancy:
            raise AssertionError(f"LRU list: {len(order)} slots, occupancy = {self._occupancy}")
        for s in range(entries):
            if tags[s] == NONE and (prev[s] != NONE or next_[s] != NONE):
                raise AssertionError(f"LRU list: free slot {s} has pointers "
                                     f"prev={prev[s]} next={next_[s]}")
        return order

    def check_invariants(self) -> None:
        """Check every structural invariant of the model; raise ``AssertionError`` if one fails.

        Besides :meth:`lru_order`: ``last`` never decreases from tail to head and is not in
        the future; every tracked line sits in its own window, once; counts are
        ``1..COUNT_MAX``.
        """
        if self._predictor is not None:
            return self._predictor.check_invariants(self)
        order = self.lru_order()
        lasts = [self._last[s] for s in order]
        if lasts != sorted(lasts):
            raise AssertionError(f"LRU list not ordered by last access: {list(zip(order, lasts))}")
        now = self._cycle >> self._tick_shift
        if lasts and lasts[-1] > now:
            raise AssertionError(f"slot {order[-1]} last access {lasts[-1]} is after now ({now})")
        seen_tags: dict[int, int] = {}
        for slot in order:
            tag = self._tag[slot]
            if tag in seen_tags:
                raise AssertionError(f"tag {tag:#x} tracked twice, in slots {seen_tags[tag]} "
                                     f"and {slot}")
            seen_tags[tag] = slot
            if slot not in self._windows[self.home_of_tag(tag)]:
                raise AssertionError(f"tag {tag:#x} in slot {slot}, outside its window "
                                     f"{self._windows[self.home_of_tag(tag)]}")
            if not 1 <= self._count[slot] <= self._count_max:
                raise AssertionError(f"slot {slot} count {self._count[slot]} out of range")

    # ---- requests ---------------------------------------------------------------------------

    def _check_cycle(self, cycle) -> int:
        cycle = check_int("cycle", cycle, 0, 2**64 - 1)   # the 64-bit CYCLE counter
        if cycle < self._cycle:
            raise ValueError(f"cycle {cycle} is before the previous request or commit "
                             f"(cycle {self._cycle}); time never goes back (decision D3)")
        return cycle

    def request(self, cycle: int, op: int, addr: int, min_tlevel: int = 0) -> Response:
        """Answer one request accepted at ``cycle`` and apply its effect (spec section 6).

        ``op`` is an :class:`Op` (or its int value), ``addr`` a byte address (bits above
        ``ADDR_WIDTH`` are ignored: they do not exist in the block), ``min_tlevel`` 0..3.
        ``cycle`` must not be before the previous request's.
        """
        # The common case (plain ints in range) is checked inline: the full checks, which
        # also convert numpy integers and word the errors, cost more than the request.
        if (type(cycle) is int and type(addr) is int and type(min_tlevel) is int
                and (type(op) is int or type(op) is Op) and self._cycle <= cycle < 1 << 64
                and 0 <= op <= 3 and 0 <= min_tlevel <= 3 and addr >= 0):
            op = int(op)
        else:
            cycle = self._check_cycle(cycle)
            op = check_int("op", op, 0, 3)
            min_tlevel = check_int("min_tlevel", min_tlevel, 0, 3)
            addr = check_int("addr", addr, 0)
        tag = ((addr & self._addr_mask) >> self._line_shift) & self._tag_mask
        out: list[tuple] = []
        self._execute((cycle >> self._tick_shift,), (op,), (tag,), (self.home_of_tag(tag),),
                      (min_tlevel,), out)
        self._cycle = cycle
        return Response._make(out[0])

    def run(self, cycles, ops, addrs, min_tlevels=None, *, responses: bool = False):
        """The fast path: apply a whole request stream, in order.

        The arguments are equal-length sequences or numpy arrays (``min_tlevels`` defaults
        to all 0). They are validated first, so an error changes nothing. Statistics and
        state are updated exactly as by the same calls of :meth:`request`. With
        ``ADDR_WIDTH <= 64`` the addresses are taken as 64-bit values: one of ``2**64`` or
        more, whose bits above ``ADDR_WIDTH`` :meth:`request` ignores, is refused here.

        Returns the list of :class:`Response` if ``responses`` is set, else ``None``
        (which is faster).
        """
        cycles = uint_array("cycles", cycles, 2**64 - 1)
        ops = uint_array("ops", ops, 3)
        n = len(cycles)
        min_tlevels = (np.zeros(n, dtype=np.uint64) if min_tlevels is None
                       else uint_array("min_tlevels", min_tlevels, 3))
        if self.params.ADDR_WIDTH <= 64:
            addrs = uint_array("addrs", addrs, 2**64 - 1)
        else:  # wider than numpy's integers: the tags are computed with Python ints below
            addrs = list(addrs)
        if len({len(cycles), len(ops), len(addrs), len(min_tlevels)}) != 1:
            raise ValueError("cycles, ops, addrs and min_tlevels must have the same length")
        if n == 0:
            return [] if responses else None
        if int(cycles[0]) < self._cycle or (n > 1 and bool((cycles[1:] < cycles[:-1]).any())):
            raise ValueError(f"cycles must not decrease, nor start before the previous "
                             f"request or commit (cycle {self._cycle}; decision D3)")

        if isinstance(addrs, np.ndarray):
            tags = ((addrs & np.uint64(self._addr_mask)) >> np.uint64(self._line_shift)) \
                & np.uint64(self._tag_mask)
        else:
            tags = np.array([self.tag_of(a) for a in addrs], dtype=np.uint64)
        # Hash each distinct tag once.
        unique_tags, inverse = np.unique(tags, return_inverse=True)
        seed, entries = self._config.hash_seed, self._entries
        unique_homes = np.array(
            [tag_hash(tag, seed) % entries
             for tag in unique_tags.tolist()], dtype=np.int64)
        homes = unique_homes[inverse.reshape(-1)]

        out: list[tuple] | None = [] if responses else None
        self._execute((cycles >> np.uint64(self._tick_shift)).tolist(), ops.tolist(),
                      tags.tolist(), homes.tolist(), min_tlevels.tolist(), out)
        self._cycle = int(cycles[-1])
        return [Response._make(r) for r in out] if responses else None

    def replay(self, trace, *, responses: bool = False):
        """:meth:`run` over a :class:`golden_model.trace.Trace` (see :func:`load_trace`)."""
        if not isinstance(trace, Trace):
            raise TypeError(f"replay takes a Trace (golden_model.trace), not {trace!r}")
        return self.run(trace.cycle, trace.op, trace.addr, trace.min_tlevel,
                        responses=responses)

    def _execute(self, ticks: Iterable[int], ops: Iterable[int], tags: Iterable[int],
                 homes: Iterable[int], min_tlevels: Iterable[int], out: list | None) -> None:
        """Apply validated requests: tick ``t``, op, tag, window start ``h``, min_tlevel.

        The one implementation of spec section 6, written for speed: state and counters are
        held in locals for the loop and written back at the end. If ``out`` is a list, each
        response is appended to it as a tuple in :class:`Response` field order.
        """
        if self._soft.recovering:
            return _soft.recovery_responses(ops, min_tlevels, self._stats, _STAT, out)
        if self._predictor is not None:
            return self._predictor.execute(self, ticks, ops, tags, homes, min_tlevels, out)
        tag_at, count_at, last_at = self._tag, self._count, self._last
        prev, next_ = self._prev, self._next
        head, tail, occupancy = self._head, self._tail, self._occupancy
        windows = self._windows
        c3, c2, w3, w2, w1, _ = self._config
        count_max = self._count_max
        age_cap = self._wmax + 1          # saturated age for replacement: min(age, WMAX + 1)
        new_level = 3 if 1 >= c3 else 2 if 1 >= c2 else 1   # T-level of (count 1, age 0)
        observes = observe_hits = inserts = replacements = drops = 0
        queries = query_hits = evicts = evicts_empty = 0
        obs_t = [0, 0, 0, 0]
        collect = out is not None

        for t, op, tag, home, min_tlevel in zip(ticks, ops, tags, homes, min_tlevels):
            if op == _OBSERVE:
                observes += 1
                window = windows[home]
                # Presence over the whole window before anything else (D6).
                for slot in window:
                    if tag_at[slot] == tag:
                        break
                else:
                    slot = NONE
                if slot != NONE:
                    # Tracked: grade it, bump (or restart) its count, move it to the head.
                    age = t - last_at[slot]
                    count = count_at[slot]
                    level = _tlevel(count, age, c3, c2, w3, w2, w1)
                    if age > w1:
                        count = 1                 # a cold line restarts its count
                    elif count < count_max:
                        count += 1
                    count_at[slot] = count
                    last_at[slot] = t
                    head, tail = move_to_head(prev, next_, slot, head, tail)
                    observe_hits += 1
                    obs_t[level] += 1
                    if collect:
                        after = 3 if count >= c3 else 2 if count >= c2 else 1
                        out.append((op, 1, level, 1, after, count, int(level >= min_tlevel),
                                    slot, 0, 0))
                    continue

                # Not tracked (T0 before): first free slot in probe order, else the slot
                # with the greatest saturated age, ties to the lowest probe offset.
                obs_t[0] += 1
                oldest, oldest_age = NONE, -1
                for slot in window:
                    if tag_at[slot] == NONE:
                        break
                    age = t - last_at[slot]
                    if age > age_cap:
                        age = age_cap
                    if age > oldest_age:          # strictly: ties keep the lower offset
                        oldest, oldest_age = slot, age
                else:
                    slot = NONE
                if slot != NONE:
                    # Insert into the free slot, at the head of the list.
                    tag_at[slot] = tag
                    count_at[slot] = 1
                    last_at[slot] = t
                    head, tail = link_at_head(prev, next_, slot, head, tail)
                    occupancy += 1
                    inserts += 1
                    if collect:
                        out.append((op, 0, 0, 1, new_level, 1, int(min_tlevel == 0),
                                    slot, 0, 0))
                elif oldest_age > w1:
                    # The oldest line is T0 (age > W1; W1 <= WMAX, so saturation cannot
                    # hide it): replace it, a move-to-head of its slot with the new tag.
                    slot = oldest
                    victim = tag_at[slot]
                    tag_at[slot] = tag
                    count_at[slot] = 1
                    last_at[slot] = t
                    head, tail = move_to_head(prev, next_, slot, head, tail)
                    replacements += 1
                    if collect:
                        out.append((op, 0, 0, 1, new_level, 1, int(min_tlevel == 0),
                                    slot, 1, victim))
                else:
                    # Every slot of the window is hot: drop the new line, change nothing.
                    drops += 1
                    if collect:
                        out.append((op, 0, 0, 0, 0, 0, int(min_tlevel == 0), 0, 0, 0))

            elif op == _QUERY:
                queries += 1
                for slot in windows[home]:
                    if tag_at[slot] == tag:
                        count = count_at[slot]
                        level = _tlevel(count, t - last_at[slot], c3, c2, w3, w2, w1)
                        hit = int(level >= min_tlevel)
                        query_hits += hit
                        if collect:
                            out.append((op, 1, level, 1, level, count, hit, slot, 0, 0))
                        break
                else:
                    hit = int(min_tlevel == 0)    # an untracked line is T0
                    query_hits += hit
                    if collect:
                        out.append((op, 0, 0, 0, 0, 0, hit, 0, 0, 0))

            else:
                # EVICT pops the tail if it is T0 (age > W1); EVICT_ANY pops it regardless.
                slot = tail
                if slot != NONE and (op == _EVICT_ANY or t - last_at[slot] > w1):
                    victim = tag_at[slot]
                    tail = prev[slot]
                    if tail == NONE:
                        head = NONE
                    else:
                        next_[tail] = NONE
                    prev[slot] = NONE
                    tag_at[slot] = NONE
                    count_at[slot] = 0
                    last_at[slot] = 0
                    occupancy -= 1
                    evicts += 1
                    if collect:
                        out.append((op, 0, 0, 0, 0, 0, 0, slot, 1, victim))
                else:
                    evicts_empty += 1
                    if collect:
                        out.append((op, 0, 0, 0, 0, 0, 0, 0, 0, 0))

        self._head, self._tail, self._occupancy = head, tail, occupancy
        self._add_stats(observes=observes, observe_hits=observe_hits, inserts=inserts,
                        replacements=replacements, drops=drops, queries=queries,
                        query_hits=query_hits, evicts=evicts, evicts_empty=evicts_empty,
                        obs_t=obs_t)

    def _add_stats(self, *, observes, observe_hits, inserts, replacements, drops, queries,
                   query_hits, evicts, evicts_empty, obs_t) -> None:
        """Add one run's event counts to the statistics (``obs_t``: four counts). Keyword-only:
        ten counts of one type are easy to pass out of order."""
        stats = self._stats
        stats[_ST_OBSERVES] += observes
        stats[_ST_OBSERVE_HITS] += observe_hits
        stats[_ST_INSERTS] += inserts
        stats[_ST_REPLACEMENTS] += replacements
        stats[_ST_DROPS] += drops
        stats[_ST_QUERIES] += queries
        stats[_ST_QUERY_HITS] += query_hits
        stats[_ST_EVICTS] += evicts
        stats[_ST_EVICTS_EMPTY] += evicts_empty
        for level in range(4):
            stats[_ST_OBS_T[level]] += obs_t[level]
