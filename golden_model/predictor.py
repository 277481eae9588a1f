# SPDX-License-Identifier: Apache-2.0
"""The predictor mode of the golden model (``docs/spec-predictor.md``, ``POLICY = 1``).

:class:`KvAsuModel` built with ``policy="predictor"`` hands every request to
:meth:`PredictorState.execute` instead of the article's loop. The table (``tag``, ``count``,
``last``, ``prev``, ``next``), the LRU list ends and ``occupancy`` stay the model's own
arrays; this module adds what spec-predictor.md P3 lists:

- per slot: ``ghost`` (the slot holds an evicted line, on the ghost list), ``burst``
  (consecutive gaps ``<= W3`` ending at the line's latest access, 0..7), ``pkey`` (the
  key of the line's latest OBSERVE), ``pred`` (the prediction that OBSERVE made),
  ``seen`` (the line's OBSERVEs before the latest, 0..7), ``probe`` (the line is a probe
  of the ghost-rule guard, P12) and ``stamp`` (the guard's epoch when it became one);
- ``pt``: 64 four-bit saturating counters, reset to 8; ``pa``, the answer's counters
  indexed by the key and ``seen`` (P4); ``eps``, a 2-bit counter;
- the ghost list (``ghead`` most recently evicted, ``gtail`` oldest, ``gcount``), a second
  doubly linked list over the same ``prev``/``next`` pointers;
- the loop detector of P11: two shadow directories of sampled lines (``shadow_lru``,
  ``shadow_bip``, :class:`ShadowDirectory`), the 10-bit selector ``psel`` and the 5-bit
  counter ``bip`` of the main list's bimodal insertion;
- the ghost-rule guard of P12: the 6-bit selector ``gsel`` and its insertion clock
  (``epoch``, 3 bits, advanced every ``occupancy >> 2`` insertions, which
  ``epoch_inserts`` counts).

The section numbers P1..P12 in the comments are those of spec-predictor.md.
"""

from __future__ import annotations

from collections import OrderedDict

from .lists import NONE, link_at_head, link_at_tail, move_to_head, unlink, walk_list
from .murmur3 import tag_hash
from .records import Op

__all__ = ["PredictorState", "ShadowDirectory", "PT_ENTRIES", "PA_ENTRIES", "SEEN_MAX", "PT_MAX",
           "PT_INIT", "BURST_MAX", "ABSENT_KEY", "SAMPLE_SHIFT", "PSEL_MAX", "PSEL_INIT",
           "PSEL_LOOP", "PSEL_DOWN", "PSEL_STEP_MAX", "PSEL_STEP_SHIFT", "psel_step",
           "BIP_MASK", "SIG_SHIFT", "shadow_signature", "GSEL_MAX", "GSEL_INIT", "GSEL_ON",
           "GSEL_HIT", "GSEL_DEAD", "EPOCH_MASK", "EPOCH_SHIFT", "PROBE_EXPIRY", "EPS_MASK",
           "key_of", "answer_key", "seen_step", "level_of", "is_sampled", "pt_train",
           "shadow_capacity", "psel_update", "bimodal_step", "ghost_rule_step",
           "guard_probe_observed", "guard_probe_dead", "clock_advance"]

# Plain ints for the hot loop, as in the article mode's (golden_model.model).
_OBSERVE, _QUERY = int(Op.OBSERVE), int(Op.QUERY)

PT_ENTRIES = 64       #: entries of the prediction table (6-bit keys)
SEEN_MAX = 7          #: 3-bit count of a line's earlier OBSERVEs (P4)
PA_ENTRIES = PT_ENTRIES * (SEEN_MAX + 1)   #: the answer's counters (9-bit answer keys, P4)
PT_MAX = 15           #: 4-bit saturating counters
PT_INIT = 8           #: reset value; a counter predicts reuse when it is >= PT_INIT
BURST_MAX = 7         #: 3-bit burst count
EPS_MASK = 3          #: 2-bit counter: one predicted-cold ghost revival in four goes to the head
ABSENT_KEY = 4        #: burst 0, class 4: a line seen for the first time (or forgotten)
SAMPLE_SHIFT = 4      #: P11: one window in 16 is sampled; a shadow holds occupancy >> 4 lines
PSEL_MAX = 1023       #: P11: 10-bit selector
PSEL_INIT = 0         #: reset value: the LRU-based mode, 512 net BIP-only hits from loop mode
PSEL_LOOP = 512       #: the loop mode (bimodal insertion) when psel >= 512, i.e. its bit 9
PSEL_DOWN = 8         #: a hit only the LRU shadow has: psel - 8 s; one only the BIP one: + s
PSEL_STEP_MAX = 4     #: the step s: 4 in a bank under 1 << PSEL_STEP_SHIFT lines, halved at each
PSEL_STEP_SHIFT = 10  #: doubling of the occupancy, down to 1 (P11)
BIP_MASK = 31         #: 5-bit counters: one bimodal insertion in 32 goes to the head
SIG_SHIFT = 16        #: P11: a shadow holds bits 31..16 of the line's hash, not its tag
GSEL_MAX = 63         #: P12: 6-bit guard selector
GSEL_INIT = 31        #: reset value: one below GSEL_ON, so the ghost rule starts off
GSEL_ON = 32          #: the ghost rule demotes while gsel >= 32, i.e. its bit 5
GSEL_HIT = 3          #: a probe observed again while live: gsel - 3 (LRU order would have kept it)
GSEL_DEAD = 1         #: a probe that leaves the LRU list unobserved: gsel + 1 (it was dead)
EPOCH_MASK = 7        #: P12: 3-bit epochs of the insertion clock, 3-bit stamps
EPOCH_SHIFT = 2       #: an epoch is occupancy >> 2 insertions (a quarter of the bank)
PROBE_EXPIRY = 3      #: a probe observed 3 or more epochs after it was made counts as dead


def is_sampled(home: int) -> bool:
    """P11: the OBSERVEs of lines whose window starts at a multiple of 16 train the selector."""
    return home & ((1 << SAMPLE_SHIFT) - 1) == 0


def shadow_signature(tag: int, seed: int) -> int:
    """P11: the 16-bit signature a shadow directory holds for ``tag``: bits 31..16 of the
    table's hash (D2) of the tag, whose low bits give the home slot."""
    return tag_hash(tag, seed) >> SIG_SHIFT


def key_of(burst: int, sage: int, w3: int, wmax: int) -> tuple[int, int, bool]:
    """P4: ``(key, burst', near)`` of an OBSERVE of a live or ghost line with ``burst`` and
    saturated age ``sage``."""
    near = sage <= w3
    new_burst = min(burst + 1, BURST_MAX) if near else 0
    cls = 0 if sage <= w3 >> 2 else 1 if near else 2 if sage <= wmax else 3
    return new_burst * 8 + cls, new_burst, near


def seen_step(seen: int) -> int:
    """P4: ``seen'`` of an OBSERVE of a live or ghost line whose ``seen`` is ``seen``."""
    return seen + 1 if seen < SEEN_MAX else SEEN_MAX


def answer_key(key: int, seen: int) -> int:
    """P4: the answer's key, ``key * 8 + seen``: the index into ``PA``."""
    return key * (SEEN_MAX + 1) + seen


def level_of(pred: int, sage: int, w3: int, w1: int) -> int:
    """P5: the level of a live line: 3 while a reuse prediction is inside its window, else
    1 within ``W1``, else 0."""
    if pred and sage <= w3:
        return 3
    return 1 if sage <= w1 else 0


def pt_train(value: int, near: bool) -> int:
    """P4: a ``PT`` counter after training with outcome ``near`` (saturating at 0 and 15)."""
    if near:
        return value + 1 if value < PT_MAX else value
    return value - 1 if value > 0 else value


def shadow_capacity(occupancy: int) -> int:
    """P11: a shadow directory's bound for a sampled OBSERVE, ``max(1, occupancy >> 4)``
    (``occupancy`` before the OBSERVE)."""
    return max(1, occupancy >> SAMPLE_SHIFT)


def psel_step(occupancy: int) -> int:
    """P11: the selector's step ``s = max(1, 4 >> (occupancy >> 10))`` (``occupancy`` before
    the OBSERVE): a small bank's shadows are small and give few hits per pass over a loop,
    so each counts for more."""
    return max(1, PSEL_STEP_MAX >> (occupancy >> PSEL_STEP_SHIFT))


def psel_update(psel: int, lru_hit: bool, bip_hit: bool, occupancy: int) -> int:
    """P11: ``PSEL`` after a sampled OBSERVE with these shadow outcomes, with ``occupancy``
    before it (``-8 * s`` for a hit only the LRU shadow has, ``+s`` for one only the BIP
    shadow has, :func:`psel_step`; saturating at 0 and 1023)."""
    step = psel_step(occupancy)
    if lru_hit and not bip_hit:
        return max(psel - PSEL_DOWN * step, 0)
    if bip_hit and not lru_hit:
        return min(psel + step, PSEL_MAX)
    return psel


def bimodal_step(counter: int) -> tuple[int, bool]:
    """P11: one bimodal insertion: ``(counter', at_lru_end)``, the 5-bit counter advanced,
    the LRU end (tail) unless it wrapped to 0."""
    counter = (counter + 1) & BIP_MASK
    return counter, counter != 0


def ghost_rule_step(eps: int, gsel: int) -> tuple[int, bool]:
    """P6.2: a predicted-cold ghost revival outside loop mode (a *candidate*, P12):
    ``(eps', demote)``: ``eps`` advanced; ``demote`` (link at the LRU tail) while the rule
    is on (``gsel >= 32``) and ``eps' != 0``, else the revival is a probe at the head."""
    eps = (eps + 1) & EPS_MASK
    return eps, gsel >= GSEL_ON and eps != 0


def guard_probe_observed(gsel: int, epoch: int, stamp: int) -> int:
    """P12: ``GSEL`` after a live OBSERVE of a probe stamped ``stamp`` in ``epoch``: -3 if
    fewer than three epochs passed (LRU kept it until its reuse), else +1."""
    if (epoch - stamp) & EPOCH_MASK >= PROBE_EXPIRY:
        return min(gsel + GSEL_DEAD, GSEL_MAX)
    return max(gsel - GSEL_HIT, 0)


def guard_probe_dead(gsel: int) -> int:
    """P12: ``GSEL`` after a probe leaves the LRU list unobserved (EVICT, replacement)."""
    return min(gsel + GSEL_DEAD, GSEL_MAX)


def clock_advance(epoch: int, einserts: int, occupancy: int) -> tuple[int, int]:
    """P12: the insertion clock ``(epoch, einserts)`` after one insertion that leaves
    ``occupancy`` live lines."""
    einserts += 1
    if einserts >= max(1, occupancy >> EPOCH_SHIFT):
        return (epoch + 1) & EPOCH_MASK, 0
    return epoch, einserts



class ShadowDirectory:
    """P11: a shadow directory, the signatures of the sampled lines that a bank of
    ``occupancy >> 4`` lines would hold under LRU (``bimodal=False``) or bimodal insertion
    (``bimodal=True``).

    ``order`` holds the signatures from the LRU end (first) to the MRU end (last);
    ``counter`` is the bimodal insertion's 5-bit counter (unused under LRU)."""

    def __init__(self, bimodal: bool):
        self.bimodal = bimodal
        self.order: OrderedDict = OrderedDict()
        self.counter = 0

    def access(self, signature: int, capacity: int) -> bool:
        """One sampled OBSERVE of ``signature`` (:func:`shadow_signature` of its line);
        ``True`` if the shadow holds it (a shadow hit, which two lines of one signature
        share)."""
        order = self.order
        if signature in order:
            order.move_to_end(signature)            # to the MRU end, under either rule
            return True
        for _ in range(2):                          # at most two drops per access
            if len(order) < capacity:
                break
            order.popitem(last=False)
        order[signature] = None
        if self.bimodal:
            self.counter, to_lru_end = bimodal_step(self.counter)
            if to_lru_end:
                order.move_to_end(signature, last=False)  # 31 in 32 at the LRU end
        return False


class PredictorState:
    """The predictor mode's own state and its request loop (spec-predictor.md)."""

    def __init__(self, entries: int):
        self._entries = entries
        self.flush()

    def flush(self) -> None:
        """P9: every slot's predictor fields 0, both lists and both shadows empty, ``pt`` and
        ``pa`` 8,
        ``eps`` 0, ``psel`` 0, ``bip`` 0, ``gsel`` 31, the guard's clock 0. (The model frees
        the table and the LRU list itself.)"""
        n = self._entries
        self.ghost = [0] * n
        self.burst = [0] * n
        self.pkey = [0] * n
        self.pred = [0] * n
        self.seen = [0] * n
        self.probe = [0] * n
        self.stamp = [0] * n
        self.pt = [PT_INIT] * PT_ENTRIES
        self.pa = [PT_INIT] * PA_ENTRIES
        self.eps = 0
        self.ghead = self.gtail = NONE
        self.gcount = 0
        self.shadow_lru = ShadowDirectory(bimodal=False)
        self.shadow_bip = ShadowDirectory(bimodal=True)
        self.psel = PSEL_INIT
        self.bip = 0
        self.gsel = GSEL_INIT
        self.epoch = self.epoch_inserts = 0

    @property
    def loop_mode(self) -> bool:
        """P11: ``psel >= 512``: every insertion is bimodal (mostly at the LRU end)."""
        return self.psel >= PSEL_LOOP

    @property
    def ghost_rule_on(self) -> bool:
        """P12: ``gsel >= 32``: a predicted-cold ghost revival may go to the LRU tail."""
        return self.gsel >= GSEL_ON

    def _duel(self, signature: int, occupancy: int) -> None:
        """P11: a sampled OBSERVE (its line's ``signature``) updates both shadows, then
        ``psel`` from their outcomes."""
        capacity = shadow_capacity(occupancy)
        lru_hit = self.shadow_lru.access(signature, capacity)
        bip_hit = self.shadow_bip.access(signature, capacity)
        self.psel = psel_update(self.psel, lru_hit, bip_hit, occupancy)

    def _bimodal_to_tail(self) -> bool:
        """P11: the main list's bimodal insertion: the head once in 32, else the tail."""
        self.bip, to_tail = bimodal_step(self.bip)
        return to_tail

    # ---- the request loop -------------------------------------------------------------------

    def execute(self, model, ticks, ops, tags, homes, min_tlevels, out) -> None:
        """Apply validated requests to ``model`` in predictor mode (P6..P8); append each
        response tuple to ``out`` if it is a list. Statistics as in the article's mode."""
        tag_at, count_at, last_at = model._tag, model._count, model._last
        prev, next_ = model._prev, model._next
        head, tail, occupancy = model._head, model._tail, model._occupancy
        ghost, burst_at, pkey_at, pred_at, pt = self.ghost, self.burst, self.pkey, self.pred, self.pt
        seen_at, pa = self.seen, self.pa
        probe_at, stamp_at, gsel = self.probe, self.stamp, self.gsel
        epoch, epoch_inserts = self.epoch, self.epoch_inserts
        ghead, gtail, gcount, eps = self.ghead, self.gtail, self.gcount, self.eps
        windows = model._windows
        _c3, _c2, w3, _w2, w1, seed = model._config
        wmax = model._wmax
        age_cap = wmax + 1
        count_max = model._count_max
        observes = observe_hits = inserts = replacements = drops = 0
        queries = query_hits = evicts = evicts_empty = 0
        obs_t = [0, 0, 0, 0]
        collect = out is not None

        for t, op, tag, home, min_tlevel in zip(ticks, ops, tags, homes, min_tlevels):
            if op == _OBSERVE:
                observes += 1
                if is_sampled(home):                # P11: the loop detector learns first
                    self._duel(shadow_signature(tag, seed), occupancy)
                loop = self.psel >= PSEL_LOOP
                window = windows[home]
                for slot in window:                 # live and ghost slots alike (P6)
                    if tag_at[slot] == tag:
                        break
                else:
                    slot = NONE
                if slot != NONE:
                    age = t - last_at[slot]
                    sage = age if age < age_cap else age_cap
                    # Train the counters the previous OBSERVE used, then look up (P4).
                    key, new_burst, near = key_of(burst_at[slot], sage, w3, wmax)
                    trained = pkey_at[slot]
                    pt[trained] = pt_train(pt[trained], near)
                    answer_trained = answer_key(trained, seen_at[slot])
                    pa[answer_trained] = pt_train(pa[answer_trained], near)
                    seen = seen_step(seen_at[slot])
                    pred = 1 if pa[answer_key(key, seen)] >= PT_INIT else 0
                    level_after = 3 if pred else 1
                    if not ghost[slot]:
                        # P6.1: a live line.
                        level = level_of(pred_at[slot], sage, w3, w1)
                        count = count_at[slot]
                        if age > w1:
                            count = 1
                        elif count < count_max:
                            count += 1
                        count_at[slot] = count
                        last_at[slot] = t
                        burst_at[slot], pkey_at[slot], pred_at[slot] = new_burst, key, pred
                        seen_at[slot] = seen
                        if probe_at[slot]:          # P12: a probe reused while live
                            gsel = guard_probe_observed(gsel, epoch, stamp_at[slot])
                            probe_at[slot] = stamp_at[slot] = 0
                        head, tail = move_to_head(prev, next_, slot, head, tail)
                        observe_hits += 1
                        obs_t[level] += 1
                        if collect:
                            out.append((op, 1, level, 1, level_after, count,
                                        int(level >= min_tlevel), slot, 0, 0))
                        continue
                    # P6.2: a ghost comes back: it was evicted too early.
                    ghead, gtail = unlink(prev, next_, slot, ghead, gtail)
                    gcount -= 1
                    ghost[slot] = 0
                    count_at[slot] = 1
                    last_at[slot] = t
                    burst_at[slot], pkey_at[slot], pred_at[slot] = new_burst, key, pred
                    seen_at[slot] = seen
                    # P12: the insertion clock
                    epoch, epoch_inserts = clock_advance(epoch, epoch_inserts, occupancy + 1)
                    to_tail = False
                    if loop:                        # P11: bimodal insertion
                        to_tail = self._bimodal_to_tail()
                    elif pt[key] == 0:              # a history that is never reused soon
                        eps, to_tail = ghost_rule_step(eps, gsel)   # the rule may demote it
                        if not to_tail:
                            probe_at[slot] = 1      # P12: at the head, its fate is watched
                            stamp_at[slot] = epoch
                    if to_tail:
                        head, tail = link_at_tail(prev, next_, slot, head, tail)
                    else:
                        head, tail = link_at_head(prev, next_, slot, head, tail)
                    occupancy += 1
                    inserts += 1
                    obs_t[0] += 1
                    if collect:
                        out.append((op, 0, 0, 1, level_after, 1, int(min_tlevel == 0), slot, 0, 0))
                    continue

                # P6.3: absent. No training; the first-sight key.
                obs_t[0] += 1
                pred = 1 if pa[answer_key(ABSENT_KEY, 0)] >= PT_INIT else 0
                chosen, victim = NONE, NONE
                best_ghost, best_ghost_age = NONE, -1
                best_live, best_live_age = NONE, -1
                for slot in window:
                    if tag_at[slot] == NONE:
                        chosen = slot               # a: the first free slot
                        break
                    age = t - last_at[slot]
                    sage = age if age < age_cap else age_cap
                    if ghost[slot]:
                        if sage > best_ghost_age:   # strictly: ties keep the lower offset
                            best_ghost, best_ghost_age = slot, sage
                    elif sage > best_live_age:
                        best_live, best_live_age = slot, sage
                if chosen == NONE and best_ghost != NONE:
                    chosen = best_ghost             # b: reuse a ghost's slot
                    ghead, gtail = unlink(prev, next_, chosen, ghead, gtail)
                    gcount -= 1
                    ghost[chosen] = 0
                if chosen != NONE:
                    occupancy += 1
                    inserts += 1
                elif best_live_age > w1:
                    chosen = best_live              # c: the article's replacement
                    victim = tag_at[chosen]
                    head, tail = unlink(prev, next_, chosen, head, tail)
                    if probe_at[chosen]:            # P12: a probe leaves unobserved
                        probe_at[chosen] = stamp_at[chosen] = 0
                        gsel = guard_probe_dead(gsel)
                    replacements += 1
                else:
                    drops += 1                      # d: every live slot is recent
                    if collect:
                        out.append((op, 0, 0, 0, 0, 0, int(min_tlevel == 0), 0, 0, 0))
                    continue
                # P12: the insertion clock
                epoch, epoch_inserts = clock_advance(epoch, epoch_inserts, occupancy)
                tag_at[chosen] = tag
                count_at[chosen] = 1
                last_at[chosen] = t
                burst_at[chosen], pkey_at[chosen], pred_at[chosen] = 0, ABSENT_KEY, pred
                seen_at[chosen] = 0
                if loop and self._bimodal_to_tail():   # P11: bimodal insertion
                    head, tail = link_at_tail(prev, next_, chosen, head, tail)
                else:
                    head, tail = link_at_head(prev, next_, chosen, head, tail)
                if collect:
                    out.append((op, 0, 0, 1, 3 if pred else 1, 1, int(min_tlevel == 0), chosen,
                                int(victim != NONE), 0 if victim == NONE else victim))

            elif op == _QUERY:
                queries += 1
                for slot in windows[home]:
                    if tag_at[slot] == tag and not ghost[slot]:
                        age = t - last_at[slot]
                        level = level_of(pred_at[slot], age if age < age_cap else age_cap, w3, w1)
                        hit = int(level >= min_tlevel)
                        query_hits += hit
                        if collect:
                            out.append((op, 1, level, 1, level, count_at[slot], hit, slot, 0, 0))
                        break
                else:
                    hit = int(min_tlevel == 0)
                    query_hits += hit
                    if collect:
                        out.append((op, 0, 0, 0, 0, 0, hit, 0, 0, 0))

            else:
                # P8: EVICT and EVICT_ANY pop the LRU tail; it becomes the newest ghost.
                slot = tail
                if slot == NONE:
                    evicts_empty += 1
                    if collect:
                        out.append((op, 0, 0, 0, 0, 0, 0, 0, 0, 0))
                    continue
                victim = tag_at[slot]
                head, tail = unlink(prev, next_, slot, head, tail)
                occupancy -= 1
                if probe_at[slot]:                  # P12: a probe leaves unobserved
                    probe_at[slot] = stamp_at[slot] = 0
                    gsel = guard_probe_dead(gsel)
                ghost[slot] = 1
                ghead, gtail = link_at_head(prev, next_, slot, ghead, gtail)
                gcount += 1
                while gcount > occupancy:           # at most twice
                    old = gtail
                    ghead, gtail = unlink(prev, next_, old, ghead, gtail)
                    gcount -= 1
                    tag_at[old] = NONE
                    count_at[old] = last_at[old] = 0
                    ghost[old] = burst_at[old] = pkey_at[old] = pred_at[old] = seen_at[old] = 0
                evicts += 1
                if collect:
                    out.append((op, 0, 0, 0, 0, 0, 0, slot, 1, victim))

        model._head, model._tail, model._occupancy = head, tail, occupancy
        self.ghead, self.gtail, self.gcount, self.eps, self.gsel = ghead, gtail, gcount, eps, gsel
        self.epoch, self.epoch_inserts = epoch, epoch_inserts
        model._add_stats(observes=observes, observe_hits=observe_hits, inserts=inserts,
                         replacements=replacements, drops=drops, queries=queries,
                         query_hits=query_hits, evicts=evicts, evicts_empty=evicts_empty,
                         obs_t=obs_t)

    # ---- structure checks -----------------------------------------------------------------

    def lists(self, model) -> tuple[list[int], list[int]]:
        """``(live, ghosts)``: the LRU list and the ghost list, each from tail to head, after
        checking P3's invariants on them (``AssertionError`` names the first violation)."""
        live = walk_list(model._prev, model._next, model._head, model._tail, self._entries,
                         "LRU list")
        ghosts = walk_list(model._prev, model._next, self.ghead, self.gtail, self._entries,
                           "ghost list")
        tags = model._tag
        live_set = {s for s in range(self._entries) if tags[s] != NONE and not self.ghost[s]}
        ghost_set = {s for s in range(self._entries) if tags[s] != NONE and self.ghost[s]}
        if set(live) != live_set:
            raise AssertionError(f"LRU list holds {sorted(live)}, live slots are {sorted(live_set)}")
        if set(ghosts) != ghost_set:
            raise AssertionError(f"ghost list holds {sorted(ghosts)}, ghosts are {sorted(ghost_set)}")
        if len(live) != model._occupancy:
            raise AssertionError(f"LRU list: {len(live)} slots, occupancy = {model._occupancy}")
        if len(ghosts) != self.gcount:
            raise AssertionError(f"ghost list: {len(ghosts)} slots, gcount = {self.gcount}")
        if self.gcount > model._occupancy:
            raise AssertionError(f"{self.gcount} ghosts but only {model._occupancy} live lines")
        for s in range(self._entries):
            if tags[s] == NONE and (model._prev[s] != NONE or model._next[s] != NONE
                                     or self.ghost[s] or self.burst[s] or self.pkey[s]
                                     or self.pred[s] or self.probe[s] or self.stamp[s]
                                     or self.seen[s]):
                raise AssertionError(f"free slot {s} has state")
        return live, ghosts

    def check_invariants(self, model) -> None:
        """P3's invariants, and the article's on the live lines (ordered by last access,
        in their own windows once, counts in range); ``pt`` in 0..15, fields in range."""
        live, ghosts = self.lists(model)
        # A ghost revived at the tail breaks "last never decreases from tail to head" only
        # for that line; the order itself is what P6 says, so it is not checked by time.
        slot_of: dict[int, int] = {}
        for slot in live + ghosts:
            tag = model._tag[slot]
            if tag in slot_of:
                raise AssertionError(f"tag {tag:#x} in slots {slot_of[tag]} and {slot}")
            slot_of[tag] = slot
            if slot not in model._windows[model.home_of_tag(tag)]:
                raise AssertionError(f"tag {tag:#x} in slot {slot}, outside its window")
            if not 1 <= model._count[slot] <= model._count_max:
                raise AssertionError(f"slot {slot} count {model._count[slot]} out of range")
            if (not 0 <= self.burst[slot] <= BURST_MAX or not 0 <= self.pkey[slot] < PT_ENTRIES
                    or not 0 <= self.seen[slot] <= SEEN_MAX):
                raise AssertionError(f"slot {slot} burst/pkey/seen out of range")
        if any(not 0 <= v <= PT_MAX for v in self.pt + self.pa):
            raise AssertionError(f"prediction tables out of range: {self.pt}, {self.pa}")
        # P11: the selector and counters in range, each shadow within its bound and holding
        # 16-bit signatures, once each (an OrderedDict cannot hold one twice).
        if not 0 <= self.psel <= PSEL_MAX or not 0 <= self.bip <= BIP_MASK:
            raise AssertionError(f"psel {self.psel} or bip {self.bip} out of range")
        # P12: the guard selector in range; only live lines are probes.
        if not 0 <= self.gsel <= GSEL_MAX:
            raise AssertionError(f"gsel {self.gsel} out of range")
        if not 0 <= self.epoch <= EPOCH_MASK or self.epoch_inserts < 0:
            raise AssertionError(f"guard clock out of range: {self.epoch}, {self.epoch_inserts}")
        for slot in ghosts:
            if self.probe[slot] or self.stamp[slot]:
                raise AssertionError(f"ghost slot {slot} is marked as a probe")
        for slot in live:
            if not self.probe[slot] and self.stamp[slot]:
                raise AssertionError(f"slot {slot} has a stamp but is not a probe")
        bound = self._entries >> SAMPLE_SHIFT
        for shadow in (self.shadow_lru, self.shadow_bip):
            if len(shadow.order) > max(1, bound):
                raise AssertionError(f"a shadow holds {len(shadow.order)} signatures, bound {bound}")
            for sig in shadow.order:
                if not 0 <= sig < 1 << (32 - SIG_SHIFT):
                    raise AssertionError(f"shadow signature {sig:#x} out of range")
