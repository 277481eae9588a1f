# SPDX-License-Identifier: Apache-2.0
"""The predictor mode (docs/spec-predictor.md): directed cases from the spec text, and seeded
random streams against a naive re-reading of the spec that shares no code with the model."""

from __future__ import annotations

import random

import mmh3
import pytest

from golden_model import KvAsuModel, Op, Response

from .helpers import colliding_addrs

# Default build: TICK_SHIFT 2, W3 = 25 ticks (100 cycles), W1 = 125 ticks, WMAX = 127.
W3_CYCLES, W1_CYCLES = 100, 500
FAR = 4 * 1000          # cycles: a saturated age (> WMAX ticks)


def predictor(**parameters) -> KvAsuModel:
    return KvAsuModel(policy="predictor", **parameters)


def test_policy_option():
    assert KvAsuModel().policy == "article"
    assert predictor().policy == "predictor"
    with pytest.raises(ValueError, match="policy must be one of"):
        KvAsuModel(policy="lru")


def test_first_observe_predicts_reuse_and_query_levels():
    """P4/P5: a new line uses key 4 (PT = 8, so predicted); QUERY answers 3 while the line
    is inside W3, then 1 within W1, then 0."""
    m = predictor()
    r = m.request(0, Op.OBSERVE, 0x100)
    assert (r.present, r.tracked, r.tlevel, r.count) == (0, 1, 3, 1)
    assert m.request(W3_CYCLES, Op.QUERY, 0x100, 3) == Response(Op.QUERY, 1, 3, 1, 3, 1, 1, r.slot)
    q = m.request(W3_CYCLES + 4, Op.QUERY, 0x100, 3)
    assert (q.tlevel, q.hit) == (1, 0)
    assert m.request(W1_CYCLES + 4, Op.QUERY, 0x100, 0).tlevel == 0
    assert m.stats.obs_t2 == 0


def test_training_uses_the_previous_key_and_lookup_reads_the_trained_value():
    """P4: an OBSERVE after a long gap trains PT[previous key] and PA[previous answer key]
    down; the answer is PA's at key * 8 + seen'; once seen saturates, an OBSERVE trains and
    reads the same PA entry, and reads the trained value."""
    m = predictor()
    pr = m._predictor
    r = m.request(0, Op.OBSERVE, 0x100)                 # key 4, seen 0: PA[32] = 8
    assert r.tlevel == 3 and pr.seen[r.slot] == 0 and pr.pkey[r.slot] == 4
    r = m.request(FAR, Op.OBSERVE, 0x100)               # trains PT[4], PA[32] -> 7; PA[25] = 8
    assert r.tlevel == 3 and r.tlevel_before == 0       # age saturated: level 0 before
    assert pr.pt[4] == 7 and pr.pa[32] == 7 and pr.seen[r.slot] == 1
    r = m.request(2 * FAR, Op.OBSERVE, 0x100)           # trains PT[3] -> 7 (read: 7), PA[25] -> 7
    assert pr.pt[3] == 7 and pr.pa[25] == 7
    assert r.tlevel == 3 and pr.seen[r.slot] == 2       # the answer: PA[26] = 8
    for k in range(3, 8):                               # seen 3 .. 7: PA[27..31] read at 8
        r = m.request((k + 1) * FAR, Op.OBSERVE, 0x100)
        assert r.tlevel == 3 and pr.seen[r.slot] == k and pr.pa[24 + k - 1] == 7
    r = m.request(9 * FAR, Op.OBSERVE, 0x100)           # seen stays 7: trains PA[31] and reads 7
    assert r.tlevel == 1 and pr.seen[r.slot] == 7 and pr.pa[31] == 7
    r = m.request(9 * FAR + 8, Op.OBSERVE, 0x100)       # near: trains PT[3] and PA[31] up
    assert r.tlevel_before == 1 and pr.pa[31] == 8
    assert pr.burst[r.slot] == 1 and pr.pkey[r.slot] == 8


def _cold_line(m: KvAsuModel, addr: int, cycle: int) -> int:
    """Train PT[3] (burst 0, saturated gap) down to 0 and leave ``addr`` live with pkey 3;
    return the cycle."""
    m.request(cycle, Op.OBSERVE, addr)
    for _ in range(9):                                  # PT[4] 8 -> 7, then PT[3] 8 -> 0
        cycle += FAR
        m.request(cycle, Op.OBSERVE, addr)
    assert m._predictor.pt[3] == 0 and m._predictor.pt[4] == 7
    return cycle


def test_evict_makes_a_ghost_and_a_cold_ghost_comes_back_at_the_tail():
    """P8: EVICT pops the tail whatever its age, keeps it as a ghost (not tracked). P6.2: a
    ghost whose counter is 0 re-enters at the tail three times in four, at the head the fourth."""
    m = predictor()
    m._predictor.gsel = 63                               # P12: the ghost rule on throughout
    x, y = 0x1000, 0x2000
    c = _cold_line(m, x, 0)
    c += 4
    m.request(c, Op.OBSERVE, y)                          # y at the head, x at the tail
    sx = m.find(x)
    places = []
    for _ in range(4):
        c += FAR
        r = m.request(c, Op.EVICT, 0)                    # recent or not, the tail goes
        assert (r.victim_valid, r.victim_tag, r.slot) == (1, x >> 8, sx)
        assert m.find(x) is None and m.request(c, Op.QUERY, x).present == 0
        assert m._predictor.gcount == 1 and m.occupancy == 1
        c += FAR
        r = m.request(c, Op.OBSERVE, x)
        assert (r.present, r.tracked, r.tlevel, r.count, r.slot) == (0, 1, 1, 1, sx)
        places.append("tail" if m.lru_order()[0] == sx else "head")
        m.check_invariants()
        if places[-1] == "head":                         # put x back at the tail
            c += 4
            m.request(c, Op.OBSERVE, y)
    assert places == ["tail", "tail", "tail", "head"]
    assert m.stats.inserts == 2 + 4 and m.stats.evicts == 4


def test_the_guard_starts_off_and_learns_from_probes():
    """P12: from reset (gsel 31) a cold ghost revival goes to the head as a probe; a probe
    evicted unobserved counts +1, which turns the ghost rule on (32); the next cold revival
    goes to the tail (eps 2 != 0); a probe observed while live counts -3."""
    m = predictor()
    p = m._predictor
    assert p.gsel == 31 and not p.ghost_rule_on
    x, y = 0x1000, 0x2000
    c = _cold_line(m, x, 0)
    c += 4
    m.request(c, Op.OBSERVE, y)                          # y at the head, x at the tail
    sx = m.find(x)
    c += FAR
    assert m.request(c, Op.EVICT, 0).victim_tag == x >> 8
    c += FAR
    m.request(c, Op.OBSERVE, x)                          # cold revival, guard off: head
    assert m.lru_order()[-1] == sx and p.probe[sx] == 1 and p.eps == 1
    m.check_invariants()
    c += 4
    m.request(c, Op.OBSERVE, y)                          # x back to the tail
    c += FAR
    assert m.request(c, Op.EVICT, 0).victim_tag == x >> 8
    assert p.gsel == 32 and p.ghost_rule_on and p.probe[sx] == 0
    c += FAR
    m.request(c, Op.OBSERVE, x)                          # cold revival, guard on, eps 2: tail
    assert m.lru_order()[0] == sx and p.probe[sx] == 0 and p.eps == 2
    # A probe reused within 2 epochs of the insertion clock: gsel - 3; 3 epochs or more after
    # (LRU would have evicted it by then): + 1. Make x a probe by hand, then observe it.
    p.probe[sx], p.stamp[sx] = 1, (p.epoch - 2) & 7
    c += 4
    m.request(c, Op.OBSERVE, x)
    assert p.gsel == 29 and (p.probe[sx], p.stamp[sx]) == (0, 0)
    m.check_invariants()
    p.probe[sx], p.stamp[sx] = 1, (p.epoch - 3) & 7
    m.request(c + 4, Op.OBSERVE, x)
    assert p.gsel == 30
    p.gsel = 1
    p.probe[sx], p.stamp[sx] = 1, p.epoch
    m.request(c + 8, Op.OBSERVE, x)                      # saturates at 0
    assert p.gsel == 0
    m.flush()
    assert p.gsel == 31 and p.probe == [0] * m.params.ENTRIES and (p.epoch, p.epoch_inserts) == (0, 0)


def test_the_insertion_clock_counts_quarters_of_the_occupancy():
    """P12: an epoch ends after max(1, occupancy >> 2) insertions (occupancy after each);
    live hits and drops do not count."""
    m = predictor()
    p = m._predictor
    for i in range(8):                                   # occupancy 1..8 after each insert
        m.request(i, Op.OBSERVE, (i + 1) << 8)
    # Insertions at occupancy 1, 2, 3 end an epoch each (quarter 0 -> 1); at 4..7 the quarter
    # is 1 too; at 8 it is 2: epochs end after inserts 1..7 (7 epochs), the 8th is counted.
    assert (p.epoch, p.epoch_inserts) == (7, 1)
    m.request(20, Op.OBSERVE, 1 << 8)                    # a live hit: no insertion
    assert (p.epoch, p.epoch_inserts) == (7, 1)
    m.request(21, Op.OBSERVE, 9 << 8)                    # occupancy 9, quarter 2: the epoch ends
    assert (p.epoch, p.epoch_inserts) == (0, 0)
    m.check_invariants()


def test_ghosts_never_outnumber_live_lines():
    """P8: after an EVICT the oldest ghosts are freed while gcount > occupancy."""
    m = predictor()
    for i in range(3):
        m.request(i, Op.OBSERVE, (i + 1) << 8)
    m.request(10, Op.EVICT_ANY, 0)                       # 2 live, 1 ghost
    assert (m.occupancy, m._predictor.gcount) == (2, 1)
    m.request(11, Op.EVICT_ANY, 0)                       # 1 live, 2 ghosts -> free one
    assert (m.occupancy, m._predictor.gcount) == (1, 1)
    m.request(12, Op.EVICT_ANY, 0)                       # 0 live -> no ghost either
    assert (m.occupancy, m._predictor.gcount) == (0, 0)
    assert all(s.valid == 0 for s in m.slot_states())
    assert m.request(13, Op.EVICT, 0) == Response(Op.EVICT)
    assert m.stats.evicts_empty == 1
    m.check_invariants()


def test_absent_line_takes_free_then_ghost_then_old_live_slot_else_drops():
    """P6.3: free slot first, then the oldest ghost (an insert, no victim), then the
    article's replacement of a T0 live line (victim reported), else a drop."""
    m = predictor(entries=16, probe=2)
    a, b, c, d = colliding_addrs(m, 4)
    m.request(0, Op.OBSERVE, a)
    m.request(4, Op.OBSERVE, b)
    keep = 1 << 12
    m.request(5, Op.OBSERVE, keep)                       # a live line elsewhere keeps a's ghost
    sa = m.find(a)
    assert m.request(8, Op.EVICT, 0).victim_tag == a >> 8
    r = m.request(12, Op.OBSERVE, c)
    assert (r.tracked, r.slot, r.victim_valid) == (1, sa, 0) and m._predictor.gcount == 0
    assert m.stats.inserts == 4
    r = m.request(16, Op.OBSERVE, d)                     # b and c recent: drop
    assert (r.tracked, r.hit) == (0, 1) and m.stats.drops == 1
    r = m.request(4 + W1_CYCLES + 4, Op.OBSERVE, d, 1)   # b's age > W1 (c's too, b older)
    assert (r.tracked, r.victim_valid, r.victim_tag, r.hit) == (1, 1, b >> 8, 0)
    assert m.stats.replacements == 1
    m.check_invariants()


def test_flush_clears_the_predictor_state():
    m = predictor()
    c = _cold_line(m, 0x100, 0)
    m.request(c, Op.EVICT_ANY, 0)
    m.flush()
    p = m._predictor
    assert p.pt == [8] * 64 and p.eps == 0 and p.gcount == 0 and m.occupancy == 0
    assert m.request(c + 1, Op.OBSERVE, 0x100).tlevel == 3
    m.commit(c + 2, hash_seed=5)                         # a seed change flushes too
    assert m.occupancy == 0


# ---- P11: the loop detector ----------------------------------------------------------------

def test_shadow_directories_by_hand():
    """P11 steps 1-2 on a capacity of 2: LRU keeps the two most recent tags; BIP puts a new
    tag at the LRU end (31 in 32), so the older resident survives a stream of new tags."""
    from golden_model.predictor import ShadowDirectory

    lru, bip = ShadowDirectory(bimodal=False), ShadowDirectory(bimodal=True)
    assert [lru.access(x, 2) for x in (1, 2, 3, 1)] == [False, False, False, False]
    assert list(lru.order) == [3, 1]                    # 1 was dropped by 3, came back
    assert [bip.access(x, 2) for x in (1, 2, 3, 1)] == [False, False, False, True]
    # 1 at [1]; 2 at the LRU end: [2, 1]; 3 drops 2 and goes to the LRU end: [3, 1]; 1 hits.
    assert list(bip.order) == [3, 1] and bip.counter == 3
    for x in range(10, 38):                             # misses 4..31: LRU end each time
        bip.access(x, 2)
    assert list(bip.order) == [37, 1] and bip.counter == 31
    bip.access(99, 2)                                   # the 32nd miss drops 37, goes to MRU
    assert bip.counter == 0 and list(bip.order) == [1, 99]
    assert lru.access(5, 4) is False and list(lru.order) == [3, 1, 5]
    for x in (6, 7, 8, 9):                              # capacity shrinks to 1: two drops each
        lru.access(x, 1)
    assert list(lru.order) == [9]


def _sampled_addrs(m: KvAsuModel, n: int, sampled: bool = True) -> list[int]:
    """``n`` line addresses whose windows are (or are not) sampled."""
    from golden_model.predictor import is_sampled

    out, line = [], 1
    while len(out) < n:
        if is_sampled(m.home_of(line << 8)) == sampled:
            out.append(line << 8)
        line += 1
    return out


def _bank_run(m: KvAsuModel, addrs, bank_lines: int, cycle: int = 0, bank: set | None = None):
    """The runtime of evaluation.compare: EVICT_ANY on a miss into a full bank, then
    OBSERVE; returns (hits, cycle). ``bank`` (the resident lines) carries over between calls."""
    bank = set() if bank is None else bank
    hits = 0
    for addr in addrs:
        cycle += 1
        if addr in bank:
            hits += 1
        else:
            if len(bank) >= bank_lines:
                r = m.request(cycle, Op.EVICT_ANY, 0)
                assert r.victim_valid and (r.victim_tag << 8) in bank, "EVICT returned an untracked line"
                bank.remove(r.victim_tag << 8)
            bank.add(addr)
        m.request(cycle, Op.OBSERVE, addr)
    return hits, cycle


def test_a_loop_longer_than_the_bank_enters_loop_mode_and_keeps_part_of_it():
    """A cyclic loop over 3x the bank: LRU hits nothing, the BIP shadow keeps part of its
    sampled lines (about cap - 1 BIP-only hits per round), so PSEL climbs from 0 into loop
    mode; new lines then go to the tail and part of the loop stays resident."""
    m = predictor(entries=2048)
    loop = _sampled_addrs(m, 90, sampled=True) + _sampled_addrs(m, 1350, sampled=False)
    random.Random(1).shuffle(loop)
    bank = 480                                          # shadow capacity 480 >> 4 = 30
    resident: set = set()
    _, cycle = _bank_run(m, loop * 24, bank_lines=bank, bank=resident)
    p = m._predictor
    assert p.loop_mode and p.psel >= 512
    hits, cycle = _bank_run(m, loop * 4, bank_lines=bank, cycle=cycle, bank=resident)
    # LRU: 0 (every line comes back after 1439 others); keeping a fixed part: about a third.
    assert hits > 0.2 * len(loop) * 4, hits
    m.check_invariants()
    # In loop mode an absent line goes to the tail (31 times in 32).
    new = _sampled_addrs(m, 3000, sampled=False)[-1]
    bip = p.bip
    r = m.request(cycle + FAR, Op.OBSERVE, new)
    assert r.tracked and (m.lru_order()[0] == r.slot) == ((bip + 1) % 32 != 0)


def test_psel_steps_scale_with_the_bank():
    """P11: s = 4 under 1024 live lines, 2 under 2048, else 1; -8 s and +s, saturating."""
    from golden_model.predictor import psel_step, psel_update

    assert [psel_step(n) for n in (0, 1023, 1024, 2047, 2048, 1 << 20)] == [4, 4, 2, 2, 1, 1]
    assert psel_update(100, True, False, 500) == 68 and psel_update(100, False, True, 500) == 104
    assert psel_update(100, True, False, 1500) == 84 and psel_update(100, False, True, 1500) == 102
    assert psel_update(100, True, False, 3000) == 92 and psel_update(100, False, True, 3000) == 101
    assert psel_update(31, True, False, 0) == 0 and psel_update(1021, False, True, 0) == 1023
    assert psel_update(100, True, True, 0) == psel_update(100, False, False, 0) == 100


def test_a_recency_friendly_stream_stays_out_of_loop_mode():
    """A working set that fits the bank: both shadows hit alike, PSEL never rises."""
    m = predictor(entries=1024)
    rng = random.Random(2)
    lines = _sampled_addrs(m, 16) + _sampled_addrs(m, 100, sampled=False)
    stream = [rng.choice(lines) for _ in range(6000)]
    hits, _ = _bank_run(m, stream, bank_lines=160)
    assert m._predictor.psel < 64 and not m._predictor.loop_mode
    assert hits > 0.95 * len(stream)
    m.check_invariants()


def test_flush_resets_the_loop_detector():
    m = predictor(entries=1024)
    loop = _sampled_addrs(m, 48) + _sampled_addrs(m, 240, sampled=False)
    _bank_run(m, loop * 6, bank_lines=96)
    p = m._predictor
    assert p.psel > 0 and p.bip == 0 and p.shadow_lru.order and p.shadow_bip.order
    p.psel, p.bip = 600, 7                              # as if in loop mode
    m.flush()
    assert (p.psel, p.bip, p.shadow_bip.counter) == (0, 0, 0)
    assert not p.shadow_lru.order and not p.shadow_bip.order and m.lru_order() == []
    m.check_invariants()


# ---- a naive re-reading of the spec --------------------------------------------------------

class Reference:
    """spec-predictor.md P3..P9 written as directly as the text: lists of slots for the two
    orders (tail first), dicts for lines. Shares no code with golden_model.predictor."""

    def __init__(self, p):
        self.p = p
        self.w3, self.w1 = p.defaults["W3"], p.defaults["W1"]
        self.flush()

    def flush(self):
        self.slots = [None] * self.p.ENTRIES
        self.lru, self.ghosts = [], []          # tail first
        self.pt, self.pa, self.eps = [8] * 64, [8] * 512, 0
        self.sa, self.sb = [], []               # P11 shadows, LRU end first
        self.psel, self.bip, self.sbip = 0, 0, 0
        self.gsel = 31                          # P12
        self.epoch, self.inserts = 0, 0         # P12's insertion clock

    def advance(self, occupancy_after):
        """P12: every insertion counts; an epoch is a quarter of the occupancy after it."""
        self.inserts += 1
        if self.inserts >= max(1, occupancy_after // 4):
            self.inserts, self.epoch = 0, (self.epoch + 1) % 8

    def shadow(self, which, tag, cap):
        """P11 steps 1 and 2, from the text: True on a shadow hit."""
        order = self.sa if which == "A" else self.sb
        if tag in order:
            order.remove(tag)
            order.append(tag)
            return True
        drops = 0
        while len(order) >= cap and drops < 2:
            order.pop(0)
            drops += 1
        if which == "A":
            order.append(tag)
        else:
            self.sbip = (self.sbip + 1) % 32
            order.append(tag) if self.sbip == 0 else order.insert(0, tag)
        return False

    def link(self, slot, at_tail):
        self.lru.insert(0, slot) if at_tail else self.lru.append(slot)

    def bimodal_at_tail(self):
        self.bip = (self.bip + 1) % 32
        return self.bip != 0

    def sage(self, line, t):
        return min(t - line["last"], self.p.WMAX + 1)

    def level(self, line, t):
        if line is None or line["ghost"]:
            return 0
        s = self.sage(line, t)
        if line["pred"] and s <= self.w3:
            return 3
        return 1 if s <= self.w1 else 0

    def probe_left(self, line):
        """P12: a probe leaves the LRU list without being observed again."""
        if line["probe"]:
            line["probe"] = False
            self.gsel = min(self.gsel + 1, 63)

    def free(self, s):
        self.slots[s] = None

    def request(self, cycle, op, addr, mt):
        p, t = self.p, cycle >> self.p.TICK_SHIFT
        tag = (addr >> p.LINE_SHIFT) % 2**p.TAG_WIDTH
        h = mmh3.hash(tag.to_bytes(8, "little"), 0, signed=False) % p.ENTRIES
        window = [(h + i) % p.ENTRIES for i in range(p.PROBE)]
        found = [s for s in window if self.slots[s] and self.slots[s]["tag"] == tag]
        slot = found[0] if found else None
        line = self.slots[slot] if found else None
        if op in (Op.EVICT, Op.EVICT_ANY):
            if not self.lru:
                return Response(op)
            s = self.lru.pop(0)
            self.probe_left(self.slots[s])
            victim = self.slots[s]["tag"]
            self.slots[s]["ghost"] = True
            self.ghosts.append(s)
            while len(self.ghosts) > len(self.lru):
                self.free(self.ghosts.pop(0))
            return Response(op, slot=s, victim_valid=1, victim_tag=victim)
        if op == Op.QUERY:
            if line is None or line["ghost"]:
                return Response(op, hit=int(mt == 0))
            lv = self.level(line, t)
            return Response(op, 1, lv, 1, lv, line["count"], int(lv >= mt), slot)
        if h % 16 == 0:                             # P11: a sampled OBSERVE
            cap = max(1, len(self.lru) >> 4)
            sig = mmh3.hash(tag.to_bytes(8, "little"), 0, signed=False) >> 16
            a, b = self.shadow("A", sig, cap), self.shadow("B", sig, cap)
            step = 4 if len(self.lru) < 1024 else 2 if len(self.lru) < 2048 else 1
            if a and not b:
                self.psel = max(self.psel - 8 * step, 0)
            elif b and not a:
                self.psel = min(self.psel + step, 1023)
        loop = self.psel >= 512
        before = self.level(line, t)
        if line is not None:
            s = self.sage(line, t)
            near = s <= self.w3
            k, ak = line["pkey"], line["pkey"] * 8 + line["seen"]
            self.pt[k] = min(self.pt[k] + 1, 15) if near else max(self.pt[k] - 1, 0)
            self.pa[ak] = min(self.pa[ak] + 1, 15) if near else max(self.pa[ak] - 1, 0)
            burst = min(line["burst"] + 1, 7) if near else 0
            cls = 0 if s <= self.w3 // 4 else 1 if near else 2 if s <= p.WMAX else 3
            key = burst * 8 + cls
            seen = min(line["seen"] + 1, 7)
            pred = self.pa[key * 8 + seen] >= 8
            if not line["ghost"]:
                line["count"] = 1 if t - line["last"] > self.w1 else min(line["count"] + 1, p.COUNT_MAX)
                line.update(last=t, burst=burst, pkey=key, pred=pred, seen=seen)
                if line["probe"]:                   # P12: reused while live
                    line["probe"] = False
                    if (self.epoch - line["stamp"]) % 8 >= 3:
                        self.gsel = min(self.gsel + 1, 63)
                    else:
                        self.gsel = max(self.gsel - 3, 0)
                self.lru.remove(slot)
                self.lru.append(slot)
                return Response(op, 1, before, 1, 3 if pred else 1, line["count"],
                                int(before >= mt), slot)
            self.ghosts.remove(slot)
            line.update(ghost=False, count=1, last=t, burst=burst, pkey=key, pred=pred, seen=seen)
            self.advance(len(self.lru) + 1)
            at_tail = False
            if loop:
                at_tail = self.bimodal_at_tail()
            elif self.pt[key] == 0:
                self.eps = (self.eps + 1) % 4
                if self.gsel >= 32 and self.eps != 0:
                    at_tail = True
                else:
                    line.update(probe=True, stamp=self.epoch)
            self.link(slot, at_tail)
            return Response(op, 0, 0, 1, 3 if pred else 1, 1, int(mt == 0), slot)
        pred = self.pa[4 * 8 + 0] >= 8
        free = [s for s in window if self.slots[s] is None]
        ghosts = [s for s in window if self.slots[s] and self.slots[s]["ghost"]]
        live = [s for s in window if self.slots[s] and not self.slots[s]["ghost"]]
        victim = None
        if free:
            slot = free[0]
        elif ghosts:
            slot = max(ghosts, key=lambda s: (self.sage(self.slots[s], t), -window.index(s)))
            self.ghosts.remove(slot)
        else:
            slot = max(live, key=lambda s: (self.sage(self.slots[s], t), -window.index(s)))
            if t - self.slots[slot]["last"] <= self.w1:
                return Response(op, hit=int(mt == 0))
            victim = self.slots[slot]["tag"]
            self.probe_left(self.slots[slot])
            self.lru.remove(slot)
        self.advance(len(self.lru) + 1)
        self.slots[slot] = {"tag": tag, "ghost": False, "count": 1, "last": t, "burst": 0,
                            "pkey": 4, "pred": pred, "probe": False, "seen": 0}
        self.link(slot, loop and self.bimodal_at_tail())
        return Response(op, 0, 0, 1, 3 if pred else 1, 1, int(mt == 0), slot,
                        int(victim is not None), victim or 0)


def _random_stream(rng: random.Random, n: int, lines: int):
    cycle, recent = 0, []
    for _ in range(n):
        # Gaps on both sides of every boundary: W3 >> 2, W3, W1, WMAX ticks (x 4 cycles).
        cycle += rng.choice((0, 1, 1, 2, 4, 24, 28, 100, 104, 500, 504, 508, 512, 3000))
        op = rng.choices((Op.OBSERVE, Op.QUERY, Op.EVICT, Op.EVICT_ANY), (10, 3, 2, 1))[0]
        # A third of the requests go to one of the last few lines: bursts, so predictions form.
        line = rng.choice(recent) if recent and rng.random() < 0.35 else rng.randrange(lines)
        recent = (recent + [line])[-4:]
        yield cycle, op, line << 8, rng.randrange(4)


@pytest.mark.parametrize("entries,probe,lines,psel,gsel", [
    (16, 2, 40, 0, 31), (32, 4, 24, 0, 31), (8, 8, 30, 0, 31), (64, 4, 200, 0, 31),
    (64, 4, 120, 1023, 31), (16, 2, 40, 0, 63), (32, 4, 60, 0, 40)])
def test_random_streams_match_the_reference(seed, entries, probe, lines, psel, gsel):
    """Every response equal to the naive reference; every invariant after every request.
    ``psel`` 1023: both start in loop mode (a random stream rarely gets there from 0), so the
    bimodal insertion and the selector's way down are compared too; ``gsel`` above 31: the
    ghost rule starts on (P12), so demotions as well as probes are compared."""
    rng = random.Random(seed)
    m = predictor(entries=entries, probe=probe)
    ref = Reference(m.params)
    m._predictor.psel = ref.psel = psel
    m._predictor.gsel = ref.gsel = gsel
    modes = set()
    gsels = set()
    for i, (cycle, op, addr, mt) in enumerate(_random_stream(rng, 2500, lines)):
        if op == Op.EVICT and rng.random() < 0.02:
            m.flush()
            ref.flush()
        got, want = m.request(cycle, op, addr, mt), ref.request(cycle, op, addr, mt)
        assert got == want, f"request {i} {op.name} {addr:#x} @ {cycle}: {got.diff(want)}"
        m.check_invariants()
        assert ref.pt == m._predictor.pt
        assert (ref.psel, ref.bip) == (m._predictor.psel, m._predictor.bip)
        assert ref.gsel == m._predictor.gsel
        gsels.add(m._predictor.gsel)
        assert ref.sa == list(m._predictor.shadow_lru.order)
        assert ref.sb == list(m._predictor.shadow_bip.order)
        modes.add(m._predictor.loop_mode)
    assert modes == ({False, True} if psel else {False})
    assert len(gsels) > 1, "the stream never moved the guard selector"


def test_fast_path_equals_request_by_request(seed):
    """run() and request() give the same responses, statistics and state."""
    rng = random.Random(seed)
    stream = list(_random_stream(rng, 3000, 50))
    one, fast = predictor(entries=16, probe=2), predictor(entries=16, probe=2)
    singles = [one.request(*r) for r in stream]
    batch = fast.run(*zip(*stream), responses=True)
    assert batch == singles and one.stats == fast.stats
    assert one.lru_order() == fast.lru_order() and one._predictor.pt == fast._predictor.pt
    s = fast.stats
    assert s.observes == s.inserts + s.replacements + s.drops + s.observe_hits
    assert s.observes == s.obs_t0 + s.obs_t1 + s.obs_t2 + s.obs_t3 and s.obs_t2 == 0


def test_article_mode_is_untouched_by_the_option(seed):
    """policy="article" (the default) answers exactly as a model built without the option."""
    rng = random.Random(seed)
    stream = list(_random_stream(rng, 2000, 40))
    a, b = KvAsuModel(entries=16, probe=2), KvAsuModel(entries=16, probe=2, policy="article")
    article = a.run(*zip(*stream), responses=True)
    assert b.run(*zip(*stream), responses=True) == article
    assert predictor(entries=16, probe=2).run(*zip(*stream), responses=True) != article


def test_shadows_hold_the_upper_hash_bits_of_sampled_lines():
    """P11: a sampled OBSERVE puts bits 31..16 of the line's hash (with the committed seed)
    into both shadows; an unsampled one touches neither."""
    from golden_model.predictor import shadow_signature

    m = predictor(entries=1024)
    m.commit(0, hash_seed=7)
    sampled, other = _sampled_addrs(m, 1)[0], _sampled_addrs(m, 1, sampled=False)[0]
    m.request(1, Op.OBSERVE, other)
    assert not m._predictor.shadow_lru.order
    m.request(2, Op.OBSERVE, sampled)
    sig = mmh3.hash((sampled >> 8).to_bytes(8, "little"), 7, signed=False) >> 16
    assert shadow_signature(sampled >> 8, 7) == sig
    assert list(m._predictor.shadow_lru.order) == [sig] == list(m._predictor.shadow_bip.order)
    m.check_invariants()


def test_policy_register_switches_the_mode_and_flushes(seed):
    """P2: the POLICY register selects the mode at run time. A commit that changes MODE
    flushes (statistics stay) and from then on the model answers as one built in that
    policy from an empty table; a commit that keeps MODE does not flush; an illegal POLICY
    changes nothing; reset returns to the constructor's policy."""
    rng = random.Random(seed)
    first = list(_random_stream(rng, 600, 30))
    m = KvAsuModel(entries=16, probe=2)
    assert (m.policy, m.policy_register) == ("article", 0)
    m.run(*zip(*first))
    assert m.occupancy > 0
    stats = m.stats
    t = first[-1][0]
    m.commit(t, policy=1)
    assert (m.policy, m.policy_register, m.occupancy, m.stats) == ("predictor", 1, 0, stats)
    second = [(c + t, op, addr, lv) for c, op, addr, lv in _random_stream(rng, 600, 30)]
    fresh = predictor(entries=16, probe=2)
    fresh.commit(t)
    assert m.run(*zip(*second), responses=True) == fresh.run(*zip(*second), responses=True)
    occupancy, t = m.occupancy, second[-1][0]
    assert occupancy > 0
    m.commit(t, policy=1, c3=6)                 # MODE unchanged: no flush
    assert m.occupancy == occupancy and m.config.c3 == 6
    for bad in (2, 3, 1 << 31):
        with pytest.raises(ValueError, match="illegal policy"):
            m.commit(t, policy=bad, c3=7)
        assert (m.policy_register, m.config.c3, m.occupancy) == (1, 6, occupancy)
    m.commit(t, policy=0)
    assert (m.policy, m.occupancy) == ("article", 0)
    third = [(c + t, op, addr, lv) for c, op, addr, lv in _random_stream(rng, 600, 30)]
    article = KvAsuModel(entries=16, probe=2)
    article.commit(t, c3=6)
    assert m.run(*zip(*third), responses=True) == article.run(*zip(*third), responses=True)
    m.reset()
    assert m.policy == "article"
    p = predictor(entries=16, probe=2)
    p.commit(0, policy=0)
    assert p.policy == "article"
    p.reset()
    assert (p.policy, p.policy_register) == ("predictor", 1)


def test_policy_mode_and_nonblocking_commit_together():
    """P2 / D13: POLICY.MODE = 1 and MODE.NONBLOCKING commit together or one after the
    other (the mode's admission rule is D13's rule 2 in its second form); a model can
    start in the predictor policy with mode_reset NONBLOCKING."""
    m = KvAsuModel(entries=16, probe=2)
    m.request(0, Op.OBSERVE, 0x100)
    m.commit(1, policy=1, mode=1, c3=6)
    assert (m.policy, m.mode, m.config.c3, m.occupancy) == ("predictor", 1, 6, 0)
    m.commit(2, mode=0)
    assert (m.policy, m.mode) == ("predictor", 0)
    m.commit(3, policy=0, mode=1)
    assert (m.policy, m.mode) == ("article", 1)
    m = KvAsuModel(entries=16, probe=2, policy="predictor", mode_reset=1)
    assert (m.policy, m.mode) == ("predictor", 1)