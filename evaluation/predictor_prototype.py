# SPDX-License-Identifier: Apache-2.0
"""Prototypes of the victim-choice mechanisms tried for the KV-ASU's predictor mode, and the
training / held-out split they were tuned and judged on.

    python -m evaluation.predictor_prototype [--split train|heldout|both|synthetic|loops] [--json F]

Each prototype is a fully associative bank of ``capacity`` lines that sees the access
stream ``(line, cycle)`` and answers hit or miss; none models the hashed table (the golden
model's predictor mode does, in :mod:`evaluation.compare`). They are written for a quick
comparison, not as references: the chosen mechanism's reference is
``docs/spec-predictor.md`` and :mod:`golden_model.predictor`.

- ``srrip`` / ``brrip``: RRIP (2-bit re-reference prediction values) kept as four LRU-ordered
  lists, one per value; "age everything" is a rotation of the lists, so no scan is needed
  (a list form a fully associative hardware table could keep).
- ``ship``: SRRIP with SHiP's insertion, the signature being address bits (``line >> 4``,
  hashed into 2048 3-bit counters) instead of the program counter.
- ``ghost_bip``: LRU, but a line that comes back after being evicted ("ghost", as in ARC)
  is inserted at the LRU end, one in four at the MRU end.
- ``dip``: LRU vs. bimodal insertion chosen by a 10-bit selector trained on two sampled
  shadow directories (1/16 of the lines), DIP's set dueling for a fully associative bank.
- ``cold_first``: the reuse predictor below, and two LRU lists: victims come from the
  predicted-cold list first.
- ``predictor``: the burst/gap-class reuse predictor (64 4-bit counters) and ghost-guided
  tail insertion of lines whose counter is 0 (spec-predictor.md P4-P6; ``dueling_bip`` adds
  P11's loop detector to it).
- ``hawkeye_address`` / ``hawkeye_history``: Hawkeye's training without its program
  counter: OPTgen (Belady's decisions, reconstructed online) on a sampled 1/16 of the lines
  with a bank of 1/16 of the size and a history of 8 bank sizes trains 3-bit counters
  indexed by a signature of the line's previous access: its address (``line`` hashed into
  256 entries) or its history (the predictor's 40 burst/gap keys, from a history of every
  line ever seen: a shortcut that favours the prototype). A line predicted
  cache-averse is placed at the LRU end, a cache-friendly one at the MRU end.
- ``dueling``: the predictor, its ghost-guided tail insertion switched on or off by a 10-bit
  selector trained on two sampled shadow directories (1/8 of the lines, 1/8 of the bank:
  one LRU, one the predictor), DIP's set dueling against LRU.
- ``ghost_learn``: the predictor, plus a second 64-entry table of 3-bit counters (reset 0)
  that learns, per key, whether reviving a ghost at the MRU end pays: a ghost revived at the
  MRU end that is evicted again without a hit counts +1 for its key, one that is hit counts
  -1; a ghost also goes to the LRU end (three in four) when its key's counter is >= 3.
- ``dueling_ghost_learn``: ``ghost_learn`` under the same set dueling against LRU.
- ``dip_leaders``: DIP with leader lines instead of shadows (1/32 of the lines always MRU
  insertion, 1/32 always bimodal, their misses steer a 10-bit selector for the others):
  in one shared list the bimodal leaders are evicted by everyone else's insertions, so they
  cannot show what bimodal insertion would gain.
- ``ghost_filter``: the predictor with a longer ghost memory: a two-generation hashed filter
  of 16384 bits per generation of evicted lines (a generation lasts twice the bank's size in
  evictions), whose members count as ghosts.
- ``dueling_bip``: spec-predictor.md P11 at this level (the choice before the guard): the predictor,
  and set dueling between an LRU and a bimodal-insertion shadow directory (1/16 of the
  lines, 1/16 of the bank; a hit only the LRU shadow has: -8, one only the BIP shadow has:
  +1, 10-bit selector from 0); at >= 512 every missed line is inserted bimodally (31 in 32
  at the LRU end).
- ``ghost_shadow_guard``: ``dueling_bip`` plus a third sampled shadow directory running the
  ghost rule (its own ghost list, the main predictor's counters) against the LRU shadow, a
  10-bit selector from 512 switching the main bank's ghost rule: at 1/16 sampling the
  shadows of the small video banks (6-12 lines) almost never revive a ghost, the selector
  stays near 512 and the rule's losses are not seen.
- ``guarded``: the chosen mechanism (spec-predictor.md P12): ``dueling_bip`` whose ghost
  rule is guarded by the fate of probes, the predicted-cold ghost revivals linked at the MRU
  end anyway (one in four while the rule is on, all while it is off): a probe hit within 3
  epochs of a clock of insertions (an epoch: a quarter of the bank) counts -3, one hit later
  or evicted unhit +1, on a 6-bit selector from 31; the rule is on at >= 32. ``PSEL``'s
  steps are ``-8 s`` and ``+s`` with P11's ``s = max(1, 4 >> (bank >> 10))``
  (``step_max=4``).
  ``guarded_step1``: the same with ``s = 1`` at every bank (the mechanism before the step;
  the variants below, ``guarded_noclock`` to ``first_sight_*``, are variants of it);
  ``guarded_step2``, ``guarded_step8``, ``guarded_step128``: ``s = 128 / 2**floor(log2(
  shadow))``, at most 2, 8 or 128 (a pass over a loop moves ``PSEL`` as far as in a shadow
  of 128 lines, up to that factor).
  ``guarded_noclock`` judges a probe by hit or eviction alone (the first version: a 60-line
  loop through a 40-line bank falls from 50 % to 25 %, since while the rule is on the probes
  live on the demoted lines' evictions).
  ``guarded_down4`` / ``guarded_down2``: ``guarded`` with ``PSEL``'s step for a hit only
  the LRU shadow has -4 or -2 instead of -8 (loop mode on weaker evidence).
- ``guarded_neighbours``: ``guarded`` whose counters are indexed by P4's key widened by the
  age classes of ``line - 1`` and ``line + 1`` from a table of 4 096 groups of 8 lines
  (:class:`NeighbourReusePredictor`; the feature of spec-predictor.md P4's study, "What the
  keys can learn", inside the mechanism, where a line whose ghost is dropped is forgotten).
- ``guarded_seen``: ``guarded`` whose *answer* (the prediction scored by the MCC) comes
  from a second table indexed by P4's key and a 3-bit count of the line's earlier accesses
  (:class:`SeenReusePredictor`); the ghost rule keeps P4's table, so the victims are
  ``guarded``'s. This is the mode as specified (spec-predictor.md P4: ``PT`` and ``PA``);
  ``guarded`` is its victim choice with the answer the mode had before ``PA``. ``guarded_seen_key``: the same count in P4's one table, which the ghost
  rule then reads too (:class:`SeenKeyReusePredictor`).
- ``first_sight_shared``, ``first_sight_own``, ``first_sight_own4``, ``first_sight_switch``:
  ``guarded`` whose demotion also covers *first sights*: a missed line that is neither
  resident nor a ghost, while the first-sight key's counter is 0 and loop mode is off, goes
  to the LRU end three times in four while a guard is on, else to the MRU end as a probe.
  The guard is the ghost rule's own (``shared``: its 1-in-4 counter, selector and probes),
  a second one of the same rules (``own``: a probe judged at 3 epochs; ``own4``: at 4), or
  the ghost rule's switch with no probes of first sights (``switch``); ``*_recent1`` /
  ``*_recent4``: a first sight is a candidate only within 1 or 4 epochs of a ghost's
  return (with the ghost rule's guard, or with a second one: ``own``). This is the
  insertion side of scan resistance (a line read once leaves at the next miss instead of
  pushing the bank's lines towards the tail).

``PSEL``'s step, on the training split and the cyclic loops (``--split loops``; hit rate in
%, banks 1/8, 1/4, 1/2): with ``step_max`` 4 every training figure equals ``guarded_step1``'s;
the loops gain (600 lines: 0.0, 11.6, 42.7 against 0.0, 0.0, 33.8; 1 200 lines: 2.4, 15.8,
42.9 against 0.0, 0.0, 37.4; 2 400 lines: 4.5, 17.1, 40.2 against 0.0, 3.9, 37.3).
``step_max`` 2 keeps training too, with about half the loops' gain (1 200 lines at 1/4:
9.3); 8 loses on video 1080p radius 2 at 1/8 (85.74 against 86.71) and 128 on all three
training videos at 1/8 (480p 70.81 against 71.57, 720p 76.04 against 76.79). So 4.

``guarded`` (then with ``s = 1``) against ``dueling_bip`` on the training split (hit rate in %, banks 1/8, 1/4,
1/2): video 480p 71.57, 85.03, 90.07 (unguarded 71.79, 84.93, 89.85; LRU 67.07, 85.03,
90.07); 720p 76.79, 86.27, 90.83 (77.16, 86.23, 90.71; LRU 72.82, 86.27, 90.83); 1080p
86.71, 93.01, 95.95 (86.91, 92.98, 95.94; LRU 84.61, 93.01, 95.95); MiniLM prefill equal to
LRU either way; SmolLM2 sparse 41.30, 70.72, 97.55 (41.90, 72.55, 97.32; LRU 4.92, 13.89,
97.55). Variants of the guard tried there: down steps -1..-4 (equal within 0.01 point on
video), a 10-bit selector from 512 (did not move on the small video banks), starting on
(kept 0.05 point of loss at 480p 1/2), no clock (the 60-line loop of ``guarded_noclock``), a clock of exact miss
counts with expiry at 0.5, 0.7, 1.0 bank (0.7: the figures of the 3-epoch clock; 1.0: the
loop at 29 %), 2-bit stamps (wrap: the loop at 26 %), learning only while the rule is off
with a leak while on (half of the 1/8-bank gains lost), the same probe test applied to loop
mode's bimodal insertion (SmolLM2 sparse 1/4: 59.8 % against 70.7 %), demoting candidates
whose counter is up to 2, 4 or 7 instead of 0 (video 1/8: 0.01 to 0.1 point less), and
demoting seven candidates in eight instead of three in four (video 1/8: +0.3 to +0.5 point,
SmolLM2 sparse 1/4: -0.6 point, and half as many probes while the rule is on, so it was not
taken).

Demoting first sights, on the training split (hit rate in %, banks 1/8, 1/4, 1/2; against
``guarded``): it gains where the bank is short of the reused lines and loses where LRU
already keeps them. MiniLM prefill, where LRU equals Belady at 1/4 and 1/2 (93.48): every
variant with first-sight probes 88.87, 92.34-92.35, 92.58-92.59 (``guarded`` 88.45, 93.48,
93.48): most first sights are never read again, so the probes turn the guard on, and it
cannot see that the demoted lines' evictions gain nothing; video at 1/4 up to 0.4 point
below (720p: 85.91-85.97 against 86.27; 1080p radius 2: 92.60-92.69 against 93.01);
``switch`` equals ``guarded`` there but loses on the sparse decoder (70.24 against 70.72 at
1/4, 97.49 against 97.55 at 1/2, under LRU). On the synthetic streams (``--split
synthetic``, not used to choose) the variants with probes gain: Zipf 58.9-59.5 against 56.2
at 1/8, the scan 54.2-57.8 against 44.7 at 1/4. Gating first sights on a ghost's return
within 1 or 4 epochs (``*_recent*``) removes the MiniLM loss (93.48 at 1/4 and 1/2;
88.68-88.69 at 1/8 with 4 epochs) and keeps most of the synthetic gains (Zipf 58.8-59.4 at
1/8, the scan 54.2-56.2 at 1/4), but still loses on video at 1/4 (720p 85.95-86.13, 1080p
radius 2 92.60-92.91, against 86.27 and 93.01) and, with the ghost rule's guard, on the
sparse decoder at 1/4 (69.7-70.0 against 70.7). None is specified: each falls below LRU on
a training trace.

``PSEL``'s down step on the training split (``guarded_down4``, ``guarded_down2`` against
``guarded``'s -8): equal on the three video traces and MiniLM prefill at every bank; SmolLM2
sparse 41.39 / 41.37 % at 1/8 (-8: 41.30), 68.77 / 66.56 % at 1/4 (-8: 70.72), equal at 1/2.
Where bimodal insertion beats LRU but the ghost rule beats both (the sparse decoder at 1/4),
a smaller step switches to loop mode sooner and loses; so -8 stays.

The reuse prediction's MCC (OBSERVE ``tlevel >= 3`` against reuse within 100 cycles) was
not improved: keying the 4-bit counters on the history key and 2 or 4 hashed address bits
(``line``, ``line >> 4`` or ``line >> 8``; 256 or 1024 counters) gave on the training
split 0.42..0.57 for video 480p (0.557 without), 0.42..0.48 for 720p (0.488), 0.75..0.78
for 1080p (0.752), 0.46..0.49 for MiniLM prefill (0.493) and 0.72..0.76 for the sparse
decoder (0.723, first 400 000 accesses): no consistent gain, so the 64-entry table stays.

The split (the same traces for every mechanism): training = video 480p seed 1; 720p seed 2
with 30 px motion; 1080p seed 3 with region radius 2 and two nearby frames (5 frames);
MiniLM attention in prefill order; SmolLM2 decoding the training text (GPL-3, first 192
tokens, sparse top-4 pages, from the cached selection). Held-out = the evaluation report's
own workloads: video 1080p30, 720p30 and 1080p30 with 60 px motion (seed 0, 6 frames),
MiniLM attention in decode order, SmolLM2 decoding the held-out text (GFDL-1.3), dense and
sparse. The dense decoder trace does not depend on the text (every step reads every earlier
token), so it has no training counterpart that differs from the held-out one and is not in
the training split. The first mechanisms (up to ``dueling_ghost_learn``) were chosen before
any decoder trace existed, on the first four training traces.

A candidate is chosen on the training split, the default ``--split``; the held-out figures
(``--split heldout`` or ``both``) are then seen too, which makes the held-out traces a
validation split (docs/evaluation.md section 8 says which choices they saw).

    python -m evaluation.predictor_prototype --prototypes dueling_bip,dip_leaders --merge F

runs only the named prototypes and merges their numbers into the JSON file ``F``. The kept
record, ``docs/eval/predictor_prototype.json``, holds every split (section 8 of
docs/evaluation.md reads its training and held-out figures); it is rebuilt with
``--split both --json F``, then ``--split synthetic --merge F`` and ``--split loops --merge F``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import OrderedDict
from pathlib import Path

import mmh3
import numpy as np

from golden_model.predictor import PA_ENTRIES, answer_key, seen_step
from regmap.arguments import check_int, check_writable

from . import decoder, real_attention
from .baselines import simulate_belady, simulate_lru
from .metrics import classify, reuse_within
from .reuse_features import GroupTable
from .workload import generate_accesses, preset

FRACTIONS = (8, 4, 2)   #: bank sizes: 1/8, 1/4, 1/2 of the trace's distinct lines


#: The names :func:`training_workloads` gives its traces (the report marks them "training").
TRAINING_NAMES = ("video 480p30 seed 1", "video 720p30 seed 2, 30 px", "video 1080p30 seed 3, radius 2",
                  "MiniLM attention, prefill order", "SmolLM2 decode, sparse top-4 pages, training text")
DECODER_TOKENS = 192    #: decode steps of the cached decoder runs (as in the report)


def training_workloads() -> dict:
    """The traces the mechanism was tuned on (name -> Accesses)."""
    traces = (
        generate_accesses(preset("480p30", frames=6, seed=1)),
        generate_accesses(preset("720p30", frames=6, seed=2, motion_std_px=30.0)),
        generate_accesses(preset("1080p30", frames=5, seed=3, region_radius=2, nearby_frames=2)),
        real_attention.generate_attention_accesses(real_attention.AttentionParams(order="prefill")),
        decoder.cached_accesses("train", sparse=True, n_tokens=DECODER_TOKENS),
    )
    return dict(zip(TRAINING_NAMES, traces))


def heldout_workloads() -> dict:
    """The traces the mechanism is judged on, never used for tuning (name -> Accesses)."""
    return {
        "video 1080p30": generate_accesses(preset("1080p30", frames=6)),
        "video 720p30": generate_accesses(preset("720p30", frames=6)),
        "video 1080p30 high motion (60 px)": generate_accesses(preset("1080p30", frames=6, motion_std_px=60.0)),
        "MiniLM attention, decode order": real_attention.generate_attention_accesses(
            real_attention.AttentionParams(order="decode")),
        "SmolLM2 decode, dense": decoder.cached_accesses("heldout", sparse=False, n_tokens=DECODER_TOKENS),
        "SmolLM2 decode, sparse top-4 pages": decoder.cached_accesses("heldout", sparse=True,
                                                                      n_tokens=DECODER_TOKENS),
    }


def synthetic_workloads() -> dict:
    """The two streams of :mod:`evaluation.fresh` that are not KV traffic: an IID Zipf
    stream and a hot set under a cyclic scan (name -> stream). Never used for tuning: a
    mechanism tried here is judged on the training split; these show what it does where
    only popularity, or a scan, separates the lines."""
    from . import fresh    # imported here: fresh imports this module through compare_report

    return {spec["name"]: make(**{k: v for k, v in spec.items() if k != "name"})
            for spec, make in ((fresh.ZIPF, fresh.zipf_stream), (fresh.SCAN_MIX, fresh.scan_mix_stream))}


#: The cyclic loops of :func:`loop_workloads`: (lines, passes).
LOOPS = ((600, 40), (1200, 30), (2400, 20))


def loop_workloads() -> dict:
    """Plain cyclic loops, not KV traffic: ``lines`` lines read in order, ``passes`` times,
    one access per cycle (``LOOPS``). Part of the tuning: ``PSEL``'s step (P11) was chosen
    on them together with the training split, as the case the training traces do not have
    (a loop far longer than a small bank). The loop of :mod:`evaluation.fresh`'s scan is
    not one of them."""
    from . import fresh    # imported here: fresh imports this module through compare_report

    out = {}
    for lines, passes in LOOPS:
        line = np.tile(np.arange(lines, dtype=np.int64) * 7 + 1000, passes)
        out[f"cyclic loop, {lines} lines x {passes}"] = fresh.Stream(
            line=line, cycle=np.arange(len(line), dtype=np.int64))
    return out


# ---- prototypes ---------------------------------------------------------------------------------

class Rrip:
    """RRIP over ``2**bits`` recency-ordered lists (see the module docstring)."""

    def __init__(self, capacity, insert="srrip", ship=False, bits=2, brrip_one_in=32):
        self.cap, self.top = check_int("capacity", capacity, 1), (1 << bits) - 1
        self.lists = [OrderedDict() for _ in range(self.top + 1)]
        self.where: dict = {}
        self.insert, self.ship, self.one_in, self.n = insert, ship, brrip_one_in, 0
        self.shct = [4] * 2048
        self.reused: dict = {}

    def _sig(self, line):
        return mmh3.hash((line >> 4).to_bytes(8, "little"), 0, signed=False) % 2048

    def access(self, line, cycle):
        top = self.top
        if line in self.where:
            del self.lists[self.where[line]][line]
            self.lists[0][line] = None
            self.where[line] = 0
            if self.ship and not self.reused[line]:
                s = self._sig(line)
                self.shct[s] = min(7, self.shct[s] + 1)
                self.reused[line] = True
            return True
        if len(self.where) >= self.cap:
            while not self.lists[top]:           # age: every list one value more distant
                self.lists = [OrderedDict()] + self.lists[:top - 1] + [self.lists[top - 1]]
                for value, lst in enumerate(self.lists):
                    for x in lst:
                        self.where[x] = value
            victim, _ = self.lists[top].popitem(last=False)
            del self.where[victim]
            if self.ship and not self.reused.pop(victim):
                s = self._sig(victim)
                self.shct[s] = max(0, self.shct[s] - 1)
        self.n += 1
        if self.ship:
            value = top if self.shct[self._sig(line)] == 0 else top - 1
            self.reused[line] = False
        elif self.insert == "brrip":
            value = top - 1 if self.n % self.one_in == 0 else top
        else:
            value = top - 1
        self.lists[value][line] = None
        self.where[line] = value
        return False


class GhostBip:
    """LRU; a line evicted and seen again is inserted at the LRU end (one in four at MRU);
    ``cold=False`` (GhostShadowGuard's shadow: the line's counter is not 0) keeps it at MRU."""

    def __init__(self, capacity):
        self.cap, self.bank, self.ghosts, self.k = (check_int("capacity", capacity, 1), OrderedDict(),
                                                    OrderedDict(), 0)

    def access(self, line, cycle, cold=True):
        if line in self.bank:
            self.bank.move_to_end(line)
            return True
        if len(self.bank) >= self.cap:
            victim, _ = self.bank.popitem(last=False)
            self.ghosts[victim] = None
            if len(self.ghosts) > self.cap:
                self.ghosts.popitem(last=False)
        self.bank[line] = None
        if line in self.ghosts:
            del self.ghosts[line]
            if cold:
                self.k = (self.k + 1) & 3
                if self.k:
                    self.bank.move_to_end(line, last=False)
        return False


class Lru:
    """A plain LRU bank (the dueling prototypes' main bank or shadow)."""

    def __init__(self, capacity):
        self.cap, self.bank = check_int("capacity", capacity, 1), OrderedDict()

    def access(self, line, cycle):
        if line in self.bank:
            self.bank.move_to_end(line)
            return True
        if len(self.bank) >= self.cap:
            self.bank.popitem(last=False)
        self.bank[line] = None
        return False


class Dip:
    """LRU or bimodal insertion, chosen by set dueling on two sampled shadow directories."""

    def __init__(self, capacity, one_in=32, sample_bits=4, psel_bits=10):
        capacity = check_int("capacity", capacity, 1)
        self.main, self.one_in, self.k = Lru(capacity), one_in, 0
        self.mask, self.pmax = (1 << sample_bits) - 1, (1 << psel_bits) - 1
        self.psel = self.pmax // 2 + 1
        size = max(1, capacity >> sample_bits)
        self.shadows = [[OrderedDict(), size, False, 0], [OrderedDict(), size, True, 0]]

    @staticmethod
    def _insert(state, line):
        lst, size, bimodal, _ = state
        if line in lst:
            lst.move_to_end(line)
            return True
        if len(lst) >= size:
            lst.popitem(last=False)
        lst[line] = None
        if bimodal:
            state[3] += 1
            if state[3] % 32:
                lst.move_to_end(line, last=False)
        return False

    def access(self, line, cycle):
        if mmh3.hash(line.to_bytes(8, "little"), 7, signed=False) & self.mask == 0:
            lru_hit, bip_hit = self._insert(self.shadows[0], line), self._insert(self.shadows[1], line)
            if lru_hit and not bip_hit:
                self.psel = max(0, self.psel - 1)
            elif bip_hit and not lru_hit:
                self.psel = min(self.pmax, self.psel + 1)
        if self.main.access(line, cycle):
            return True
        if self.psel > self.pmax // 2:
            self.k += 1
            if self.k % self.one_in:
                self.main.bank.move_to_end(line, last=False)
        return False


class ReusePredictor:
    """The burst/gap-class predictor of spec-predictor.md P4 (cycles -> ticks by >> 2)."""

    def __init__(self, w3=25, wmax=127, keys=64):
        self.w3, self.wmax = w3, wmax
        self.pt = [8] * keys
        self.history: dict = {}       # line -> (last tick, burst, key)

    def widen(self, key, line, tick):
        """The key the counters are indexed by (P4's; :class:`NeighbourReusePredictor`
        adds the neighbours' classes)."""
        return key

    def observe(self, line, cycle) -> bool:
        t = cycle >> 2
        if line in self.history:
            last, burst, key = self.history[line]
            sage = min(t - last, self.wmax + 1)
            near = sage <= self.w3
            self.pt[key] = min(15, self.pt[key] + 1) if near else max(0, self.pt[key] - 1)
            burst = min(7, burst + 1) if near else 0
            cls = 0 if sage <= self.w3 >> 2 else 1 if near else 2 if sage <= self.wmax else 3
        else:
            burst, cls = 0, 4
        key = self.widen(burst * 8 + cls, line, t)
        self.history[line] = (t, burst, key)
        self.counter = self.pt[key]
        return self.counter >= 8

    def forget(self, line):
        self.history.pop(line, None)


class NeighbourReusePredictor(ReusePredictor):
    """P4's key widened by the age classes of ``line - 1`` and ``line + 1`` from
    :class:`evaluation.reuse_features.GroupTable` (4 096 groups of 8 lines), as the study
    of spec-predictor.md P4 ("What the keys can learn") replays it: 64 x 64 counters."""

    def __init__(self, index_bits=12):
        super().__init__(keys=64 * 64)
        self.groups = GroupTable(index_bits)

    def widen(self, key, line, tick):
        before, after = self.groups.access(line, tick)
        return (key * 8 + before) * 8 + after


class SeenKeyReusePredictor(ReusePredictor):
    """P4's key widened by a 3-bit count of the line's earlier accesses while it is known
    (0 at its first, saturating at 7; forgotten with the line): one table of 64 x 8
    counters, for the answer and the ghost rule alike."""

    def __init__(self):
        super().__init__(keys=PA_ENTRIES)
        self.seen: dict = {}

    def widen(self, key, line, tick):
        seen = self.seen.get(line)
        self.seen[line] = 0 if seen is None else seen_step(seen)
        return answer_key(key, self.seen[line])

    def forget(self, line):
        super().forget(line)
        self.seen.pop(line, None)


class SeenReusePredictor(ReusePredictor):
    """P4's counters for the ghost rule as they are (``counter``), and the *answer* (the
    prediction and so the level) from a :class:`SeenKeyReusePredictor` beside them that
    sees the same accesses: the ``+ seen`` key of spec-predictor.md P4's study, "What the
    keys can learn", without touching the victim choice."""

    def __init__(self):
        super().__init__()
        self.answer = SeenKeyReusePredictor()

    def observe(self, line, cycle) -> bool:
        super().observe(line, cycle)
        return self.answer.observe(line, cycle)

    def forget(self, line):
        super().forget(line)
        self.answer.forget(line)


def with_predictor(sim, predictor):
    """``sim`` (a :class:`Predictor`) with ``predictor`` as its reuse predictor."""
    sim.pred = predictor
    return sim


class ColdFirst:
    """Two LRU lists by prediction; victims from the predicted-cold list first."""

    def __init__(self, capacity):
        self.cap, self.hot, self.cold = check_int("capacity", capacity, 1), OrderedDict(), OrderedDict()
        self.pred = ReusePredictor()
        self.predictions: list = []

    def access(self, line, cycle):
        hit = line in self.hot or line in self.cold
        self.hot.pop(line, None)
        self.cold.pop(line, None)
        if not hit and len(self.hot) + len(self.cold) >= self.cap:
            victim = next(iter(self.cold or self.hot))
            self.hot.pop(victim, None)
            self.cold.pop(victim, None)
            self.pred.forget(victim)
        p = self.pred.observe(line, cycle)
        self.predictions.append(p)
        (self.hot if p else self.cold)[line] = None
        return hit


class OptGen:
    """Hawkeye's OPTgen on sampled lines: for each reuse of a sampled line, would Belady's MIN
    (with a bank of ``capacity >> sample_shift`` lines over the sampled stream) have hit?
    ``train(signature, hit)`` is called with the signature of the line's previous access."""

    def __init__(self, capacity, train, sample_shift=4, history=8):
        self.mask = (1 << sample_shift) - 1
        self.cap = max(1, capacity >> sample_shift)
        self.len = history * self.cap
        self.occupancy = np.zeros(self.len, np.int32)   # lines MIN holds at each sampled time
        self.time, self.last, self.train = 0, {}, train

    def observe(self, line, signature):
        if mmh3.hash(line.to_bytes(8, "little"), 7, signed=False) & self.mask:
            return
        now = self.time
        if line in self.last:
            then, previous = self.last[line]
            span = np.arange(then, now) % self.len
            hit = now - then < self.len and bool((self.occupancy[span] < self.cap).all())
            if hit:
                self.occupancy[span] += 1
            self.train(previous, hit)
        self.occupancy[now % self.len] = 0
        self.last[line] = (now, signature)
        self.time += 1
        if len(self.last) > 4 * self.len:                # drop lines beyond the history
            self.last = {k: v for k, v in self.last.items() if now - v[0] < self.len}


class Hawkeye:
    """LRU order; OPTgen-trained counters place cache-averse lines at the LRU end."""

    def __init__(self, capacity, signature="address"):
        self.cap, self.bank, self.signature = check_int("capacity", capacity, 1), OrderedDict(), signature
        self.entries = 256 if signature == "address" else 64
        self.counters = [4] * self.entries             # 3-bit, friendly when >= 4
        self.optgen = OptGen(capacity, self._train)
        self.history = ReusePredictor()                # only its keys are used

    def _train(self, sig, hit):
        self.counters[sig] = min(7, self.counters[sig] + 1) if hit else max(0, self.counters[sig] - 1)

    def access(self, line, cycle):
        if self.signature == "address":
            sig = mmh3.hash(line.to_bytes(8, "little"), 3, signed=False) % self.entries
        else:
            self.history.observe(line, cycle)
            sig = self.history.history[line][2]
        self.optgen.observe(line, sig)
        hit = line in self.bank
        if hit:
            self.bank.move_to_end(line)
        else:
            if len(self.bank) >= self.cap:
                self.bank.popitem(last=False)
            self.bank[line] = None
        if self.counters[sig] < 4:
            self.bank.move_to_end(line, last=False)
        return hit


class Predictor:
    """The ghost rule without the hashed table: LRU order, ghosts bounded by the
    bank's size, a ghost whose counter is 0 re-enters at the LRU end (three in four).
    ``tail_ok(line, key)`` says whether a returning ghost may go to the LRU end at all, and
    ``extra_tail(key)`` sends it there even when its counter is not 0 (the variants below)."""

    def __init__(self, capacity):
        self.cap, self.bank, self.ghosts, self.k = (check_int("capacity", capacity, 1), OrderedDict(),
                                                    OrderedDict(), 0)
        self.pred = ReusePredictor()
        self.predictions: list = []

    def tail_ok(self, line, key):
        return True

    def extra_tail(self, key):
        return False

    def on_hit(self, line):
        pass

    def on_evict(self, line):
        pass

    def on_head_revival(self, line, key):
        pass

    def _install(self, line, ghost):
        """Insert a missed line at the MRU end; the LRU line, if the bank is full, becomes
        the newest ghost (ghosts bounded by the bank's size)."""
        if ghost:
            del self.ghosts[line]
        if len(self.bank) >= self.cap:
            victim, _ = self.bank.popitem(last=False)
            self.on_evict(victim)
            self.ghosts[victim] = None
            if len(self.ghosts) > self.cap:
                old, _ = self.ghosts.popitem(last=False)
                self.pred.forget(old)
        self.bank[line] = None

    def access(self, line, cycle):
        hit, ghost = line in self.bank, line in self.ghosts
        p = self.pred.observe(line, cycle)
        self.predictions.append(p)
        if hit:
            self.on_hit(line)
            self.bank.move_to_end(line)
            return True
        self._install(line, ghost)
        if ghost:
            key = self.pred.history[line][2]
            to_tail = False
            if self.tail_ok(line, key) and (self.pred.counter == 0 or self.extra_tail(key)):
                self.k = (self.k + 1) & 3
                to_tail = self.k != 0
            if to_tail:
                self.bank.move_to_end(line, last=False)
            else:
                self.on_head_revival(line, key)
        return False


class GhostLearn(Predictor):
    """The predictor plus a per-key table learning whether an MRU-end revival pays."""

    def __init__(self, capacity, threshold=3, top=7):
        super().__init__(capacity)
        self.gpt, self.threshold, self.top = [0] * 64, threshold, top
        self.revived: dict = {}        # line -> key of its MRU-end revival, until hit or evicted

    def extra_tail(self, key):
        return self.gpt[key] >= self.threshold

    def on_head_revival(self, line, key):
        self.revived[line] = key

    def on_hit(self, line):
        key = self.revived.pop(line, None)
        if key is not None:
            self.gpt[key] = max(0, self.gpt[key] - 1)

    def on_evict(self, line):
        key = self.revived.pop(line, None)
        if key is not None:
            self.gpt[key] = min(self.top, self.gpt[key] + 1)


def dueling(base):
    """``base`` with its ghost-guided tail insertion on or off by set dueling against LRU
    (DIP): two sampled shadow directories (1/8 of the lines, 1/8 of the bank), one LRU, one
    ``base``; a 10-bit selector counts their differing hits."""

    class Dueling(base):
        def __init__(self, capacity, sample_shift=3, psel_bits=10):
            super().__init__(capacity)
            self.mask, self.pmax = (1 << sample_shift) - 1, (1 << psel_bits) - 1
            self.psel = self.pmax // 2 + 1
            shadow = max(1, capacity >> sample_shift)
            self.shadow_lru, self.shadow_base = Lru(shadow), base(shadow)

        def tail_ok(self, line, key):
            return self.psel > self.pmax // 2

        def access(self, line, cycle):
            if mmh3.hash(line.to_bytes(8, "little"), 11, signed=False) & self.mask == 0:
                lru_hit = self.shadow_lru.access(line, cycle)
                base_hit = self.shadow_base.access(line, cycle)
                if lru_hit and not base_hit:
                    self.psel = max(0, self.psel - 1)
                elif base_hit and not lru_hit:
                    self.psel = min(self.pmax, self.psel + 1)
            return super().access(line, cycle)

    Dueling.__name__ = Dueling.__qualname__ = f"Dueling{base.__name__}"
    return Dueling


def _sampled(line, seed, mask):
    return mmh3.hash(line.to_bytes(8, "little"), seed, signed=False) & mask == 0


class Bip(Lru):
    """A bank with bimodal insertion: a missed line at the LRU end, one in 32 at the MRU end."""

    def __init__(self, capacity, one_in=32):
        super().__init__(capacity)
        self.one_in, self.k = one_in, 0

    def insert_bimodal(self, line):
        """Move the line just inserted to the LRU end, except one in ``one_in``."""
        self.k = (self.k + 1) % self.one_in
        if self.k:
            self.bank.move_to_end(line, last=False)

    def access(self, line, cycle):
        if Lru.access(self, line, cycle):
            return True
        self.insert_bimodal(line)
        return False


class DipLeaders(Bip):
    """DIP with leader lines in the one shared list (module docstring)."""

    def __init__(self, capacity, one_in=32):
        super().__init__(capacity, one_in)
        self.psel = 512

    def access(self, line, cycle):
        if Lru.access(self, line, cycle):
            return True
        group = mmh3.hash(line.to_bytes(8, "little"), 7, signed=False) & 31
        if group == 0:
            self.psel = min(1023, self.psel + 1)    # an MRU leader missed: favour BIP
        elif group == 1:
            self.psel = max(0, self.psel - 1)
        if group == 1 or (group > 1 and self.psel > 511):
            self.insert_bimodal(line)
        return False


class GhostFilter(Predictor):
    """The predictor with a hashed two-generation filter of evicted lines as ghosts."""

    def __init__(self, capacity, bits=16384):
        super().__init__(capacity)
        self.bits, self.cur, self.old, self.nev = bits, set(), set(), 0

    def _fh(self, line):
        return mmh3.hash(line.to_bytes(8, "little"), 5, signed=False) % self.bits

    def on_evict(self, line):
        self.cur.add(self._fh(line))
        self.nev += 1
        if self.nev >= 2 * self.cap:
            self.old, self.cur, self.nev = self.cur, set(), 0

    def access(self, line, cycle):
        if line not in self.bank and line not in self.ghosts:
            f = self._fh(line)
            if f in self.cur or f in self.old:
                self.ghosts[line] = None            # counts as a ghost (bounded below)
        return super().access(line, cycle)


class DuelingBip(Predictor):
    """P11 without P12: the predictor plus set dueling against bimodal insertion on an
    LRU and a BIP shadow directory (module docstring; spec-predictor.md P11)."""

    def __init__(self, capacity, sample_mask=15, down=8):
        super().__init__(capacity)
        self.mask, self.down, self.psel, self.kb = sample_mask, down, 0, 0
        shadow = max(1, capacity // (sample_mask + 1))
        self.shadow_lru, self.shadow_bip = Lru(shadow), Bip(shadow)

    def access(self, line, cycle):
        if _sampled(line, 11, self.mask):
            lru_hit = self.shadow_lru.access(line, cycle)
            bip_hit = self.shadow_bip.access(line, cycle)
            if lru_hit and not bip_hit:
                self.psel = max(0, self.psel - self.down)
            elif bip_hit and not lru_hit:
                self.psel = min(1023, self.psel + 1)
        hit = line in self.bank
        super().access(line, cycle)
        if not hit and self.psel >= 512:
            self.kb = (self.kb + 1) % 32
            self.bank.move_to_end(line, last=self.kb == 0)
        return hit


class GuardedBase(Predictor):
    """The predictor with P11's loop detector and a switch on its ghost rule; the subclasses
    say how the switch learns (``_sampled_update``, ``on_hit``, ``on_evict``)."""

    def __init__(self, capacity, sample_mask=15, down=8, step_max=1):
        super().__init__(capacity)
        self.mask, self.down, self.psel, self.kb = sample_mask, down, 0, 0
        shadow = max(1, capacity // (sample_mask + 1))
        self.shadow_lru, self.shadow_bip = Lru(shadow), Bip(shadow)
        # PSEL's step s (+s, -down * s): a pass over a loop gives about `shadow` BIP-only
        # hits, so s = 128 / 2**floor(log2(shadow)) would move PSEL as far per pass as a
        # shadow of 128 lines does, whatever the bank's size; at most step_max
        # (step_max=4 is P11's s = max(1, 4 >> (occupancy >> 10)) with the bank's size)
        self.up = max(1, min(step_max, 128 >> (shadow.bit_length() - 1)))
        self.down *= self.up

    def rule_on(self) -> bool:
        """Whether the ghost rule is on now: each subclass's switch defines it."""
        raise NotImplementedError

    def _sampled_update(self, line, cycle, lru_hit):
        pass

    def _on_candidate_at_head(self, line):
        pass

    def access(self, line, cycle):
        hit, ghost = line in self.bank, line in self.ghosts
        self.predictions.append(self.pred.observe(line, cycle))
        counter = self.pred.counter
        if _sampled(line, 11, self.mask):
            lru_hit = self.shadow_lru.access(line, cycle)
            bip_hit = self.shadow_bip.access(line, cycle)
            if lru_hit and not bip_hit:
                self.psel = max(0, self.psel - self.down)
            elif bip_hit and not lru_hit:
                self.psel = min(1023, self.psel + self.up)
            self._sampled_update(line, counter, lru_hit)
        if hit:
            self.on_hit(line)
            self.bank.move_to_end(line)
            return True
        self._install(line, ghost)
        if self.psel >= 512:                      # loop mode: bimodal insertion
            self.kb = (self.kb + 1) % 32
            self.bank.move_to_end(line, last=self.kb == 0)
        elif ghost and counter == 0:              # a candidate of the ghost rule
            self._candidate(line)
        elif not ghost and counter == 0:          # a first sight whose key is never reused soon
            self._first_sight(line)
        return False

    def _candidate(self, line, probe=True):
        """The ghost rule for a candidate just installed: to the LRU end three times in
        four while the rule is on, else left at the MRU end, as a probe if ``probe``."""
        self.k = (self.k + 1) & 3
        if self.rule_on() and self.k:
            self.bank.move_to_end(line, last=False)
        elif probe:
            self._on_candidate_at_head(line)

    def _first_sight(self, line):
        """A missed line that is neither resident nor a ghost, while its key's counter is 0
        and loop mode is off: inserted at the MRU end here; a subclass may demote it."""


class GhostShadowGuard(GuardedBase):
    """The ghost rule switched by a third sampled shadow against the LRU shadow (docstring)."""

    def __init__(self, capacity):
        super().__init__(capacity)
        self.shadow_ghost = GhostBip(max(1, capacity // (self.mask + 1)))
        self.gsel = 512

    def rule_on(self):
        return self.gsel >= 512

    def _sampled_update(self, line, counter, lru_hit):
        ghost_hit = self.shadow_ghost.access(line, None, cold=counter == 0)
        if lru_hit and not ghost_hit:
            self.gsel = max(0, self.gsel - 1)
        elif ghost_hit and not lru_hit:
            self.gsel = min(1023, self.gsel + 1)


class Guarded(GuardedBase):
    """The chosen mechanism: the probe guard of spec-predictor.md P12 (docstring)."""

    def __init__(self, capacity, hit_step=3, dead_step=1, gsel_max=63, gsel_init=31, gsel_on=32,
                 clock=True, down=8, step_max=1):
        super().__init__(capacity, down=down, step_max=step_max)
        self.gsel, self.gmax, self.gon = gsel_init, gsel_max, gsel_on
        self.hit_step, self.dead_step, self.clock = hit_step, dead_step, clock
        self.probes: dict = {}        # line -> epoch (mod 8) when it became a probe
        self.inserts = 0              # insertions (misses) so far

    def _epochs(self):
        """Epochs of the insertion clock since the start (one per quarter of the bank)."""
        return self.inserts // max(1, self.cap >> 2)

    def _epoch(self):
        return self._epochs() & 7

    def rule_on(self):
        return self.gsel >= self.gon

    def _on_candidate_at_head(self, line):
        self.probes[line] = self._epoch()

    def on_hit(self, line):
        stamp = self.probes.pop(line, None)
        if stamp is not None:
            if self.clock and (self._epoch() - stamp) & 7 >= 3:
                self.gsel = min(self.gmax, self.gsel + self.dead_step)
            else:
                self.gsel = max(0, self.gsel - self.hit_step)

    def on_evict(self, line):
        if self.probes.pop(line, None) is not None:
            self.gsel = min(self.gmax, self.gsel + self.dead_step)

    def access(self, line, cycle):
        if line not in self.bank:
            self.inserts += 1
        return super().access(line, cycle)


class GuardedFirstSight(Guarded):
    """``guarded`` whose demotion also covers first sights (docstring): a line seen for the
    first time while the first-sight key's counter is 0 is demoted three times in four
    while a guard is on, else a probe at the MRU end. ``own=False``: the ghost rule's guard
    (its ``k``, selector and probes); ``own=True``: a second guard of the same rules
    (``gsel`` from 31, -3 / +1, on at 32, a probe judged at ``expiry`` epochs); ``probes=False``:
    the ghost rule's switch only, first sights never probes; ``recent=N``: a first sight is
    a candidate only if a ghost came back in the last ``N`` epochs (evidence that the bank is
    short of reused lines, so that a demotion can gain anything)."""

    def __init__(self, capacity, own=False, expiry=3, probes=True, recent=None):
        super().__init__(capacity)
        self.own, self.expiry, self.make_probes = own, expiry, probes
        self.fk, self.fsel, self.fprobes = 0, 31, {}
        self.recent, self.revived_at = recent, None

    def access(self, line, cycle):
        if line in self.ghosts:
            self.revived_at = self._epochs()
        return super().access(line, cycle)

    def _first_sight(self, line):
        if self.recent is not None and (self.revived_at is None
                                        or self._epochs() - self.revived_at >= self.recent):
            return                                # no ghost came back lately: LRU loses nothing
        if not self.own:
            self._candidate(line, probe=self.make_probes)
            return
        self.fk = (self.fk + 1) & 3
        if self.fsel >= 32 and self.fk:
            self.bank.move_to_end(line, last=False)
        else:
            self.fprobes[line] = self._epoch()

    def on_hit(self, line):
        super().on_hit(line)
        stamp = self.fprobes.pop(line, None)
        if stamp is not None:
            self.fsel = (min(63, self.fsel + 1) if (self._epoch() - stamp) & 7 >= self.expiry
                         else max(0, self.fsel - 3))

    def on_evict(self, line):
        super().on_evict(line)
        if self.fprobes.pop(line, None) is not None:
            self.fsel = min(63, self.fsel + 1)


PROTOTYPES = {
    "srrip": lambda c: Rrip(c), "brrip": lambda c: Rrip(c, insert="brrip"),
    "ship": lambda c: Rrip(c, ship=True), "ghost_bip": GhostBip, "dip": Dip,
    "cold_first": ColdFirst, "predictor": Predictor,
    "hawkeye_address": Hawkeye, "hawkeye_history": lambda c: Hawkeye(c, signature="history"),
    "dueling": dueling(Predictor), "ghost_learn": GhostLearn, "dueling_ghost_learn": dueling(GhostLearn),
    "dip_leaders": DipLeaders, "ghost_filter": GhostFilter, "dueling_bip": DuelingBip,
    "ghost_shadow_guard": GhostShadowGuard, "guarded": lambda c: Guarded(c, step_max=4),
    "guarded_neighbours": lambda c: with_predictor(Guarded(c, step_max=4), NeighbourReusePredictor()),
    "guarded_seen": lambda c: with_predictor(Guarded(c, step_max=4), SeenReusePredictor()),
    "guarded_seen_key": lambda c: with_predictor(Guarded(c, step_max=4), SeenKeyReusePredictor()),
    "guarded_step1": Guarded, "guarded_step2": lambda c: Guarded(c, step_max=2),
    "guarded_step8": lambda c: Guarded(c, step_max=8),
    "guarded_step128": lambda c: Guarded(c, step_max=128),
    "guarded_noclock": lambda c: Guarded(c, clock=False),
    "guarded_down4": lambda c: Guarded(c, down=4), "guarded_down2": lambda c: Guarded(c, down=2),
    "first_sight_shared": GuardedFirstSight,
    "first_sight_own": lambda c: GuardedFirstSight(c, own=True),
    "first_sight_own4": lambda c: GuardedFirstSight(c, own=True, expiry=4),
    "first_sight_switch": lambda c: GuardedFirstSight(c, probes=False),
    "first_sight_recent1": lambda c: GuardedFirstSight(c, recent=1),
    "first_sight_recent4": lambda c: GuardedFirstSight(c, recent=4),
    "first_sight_own_recent1": lambda c: GuardedFirstSight(c, own=True, recent=1),
    "first_sight_own_recent4": lambda c: GuardedFirstSight(c, own=True, recent=4),
}


def evaluate(workloads: dict, progress=None, prototypes=None) -> dict:
    """Hit rate of LRU, Belady and every prototype at each bank fraction, and the MCC of
    the predictors, per workload."""
    say = progress or (lambda message: None)
    out: dict = {}
    for name, acc in workloads.items():
        lines = acc.line.astype(np.int64)
        cycles = acc.cycle.astype(np.int64)
        label = reuse_within(lines, cycles, 100)
        distinct = len(np.unique(lines))
        if distinct < max(FRACTIONS):
            raise ValueError(f"workload {name!r}: {distinct} distinct lines, so no line for a bank "
                             f"of 1/{max(FRACTIONS)} of them")
        out[name] = {"accesses": len(lines), "distinct_lines": distinct, "banks": {}}
        for fraction in FRACTIONS:
            cap = distinct // fraction
            row = {"bank_lines": cap, "lru": float(simulate_lru(lines, cap).mean()),
                   "belady": float(simulate_belady(lines, cap).mean())}
            for proto, make in PROTOTYPES.items():
                if prototypes is not None and proto not in prototypes:
                    continue
                started = time.perf_counter()
                sim = make(cap)
                hits = [sim.access(x, c) for x, c in zip(lines.tolist(), cycles.tolist())]
                row[proto] = float(np.mean(hits))
                if hasattr(sim, "predictions"):
                    row[f"{proto}_mcc"] = classify(np.array(sim.predictions), label).mcc
                row[f"{proto}_seconds"] = round(time.perf_counter() - started, 2)
            out[name]["banks"][f"1/{fraction}"] = row
            say(f"{name} 1/{fraction} ({cap} lines): " + " ".join(
                f"{k}={v:.4f}" for k, v in row.items() if k in PROTOTYPES or k in ("lru", "belady")))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.predictor_prototype", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("train", "heldout", "both", "synthetic", "loops"),
                    default="train",
                    help="the training (default) or held-out traces, or both; 'synthetic': the two "
                         "streams of evaluation.fresh that are not KV traffic (never used for "
                         "tuning); 'loops': the cyclic loops PSEL's step was tuned on")
    ap.add_argument("--json", type=Path, help="write the results to this file")
    ap.add_argument("--prototypes", help="comma-separated prototype names (default: all)")
    ap.add_argument("--merge", type=Path, help="merge the results into this existing JSON file")
    args = ap.parse_args(argv)
    names = None if args.prototypes is None else args.prototypes.split(",")
    unknown = sorted(set(names or ()) - set(PROTOTYPES))
    if unknown:
        ap.error(f"unknown prototypes: {', '.join(map(repr, unknown))} (known: {', '.join(PROTOTYPES)})")
    if args.json:
        check_writable(args.json, "--json")             # (written at the end of the run)
    merged: dict = {}
    if args.merge:
        check_writable(args.merge, "--merge")
        if args.merge.is_file():                        # read before the run, not after it
            try:
                merged = json.loads(args.merge.read_text())
            except (OSError, UnicodeDecodeError, ValueError) as exc:
                ap.error(f"--merge {args.merge}: not a JSON file ({exc})")
            if not isinstance(merged, dict) or not all(isinstance(v, dict) for v in merged.values()):
                ap.error(f"--merge {args.merge}: not results of this script (a JSON object of "
                         "splits, each an object of workloads)")
    say = lambda message: print(message, file=sys.stderr, flush=True)  # noqa: E731
    result = {}
    if args.split in ("train", "both"):
        result["train"] = evaluate(training_workloads(), say, names)
    if args.split in ("heldout", "both"):
        result["heldout"] = evaluate(heldout_workloads(), say, names)
    if args.split == "synthetic":
        result["synthetic"] = evaluate(synthetic_workloads(), say, names)
    if args.split == "loops":
        result["loops"] = evaluate(loop_workloads(), say, names)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=1))
        say(f"wrote {args.json}")
    if args.merge:
        for split, workloads in result.items():
            for name, entry in workloads.items():
                old = merged.setdefault(split, {}).setdefault(name, {**entry, "banks": {}})
                for bank, row in entry["banks"].items():
                    old["banks"].setdefault(bank, {}).update(row)
        args.merge.parent.mkdir(parents=True, exist_ok=True)
        args.merge.write_text(json.dumps(merged, indent=1))
        say(f"merged into {args.merge}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
