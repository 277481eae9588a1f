# SPDX-License-Identifier: Apache-2.0
"""Helpers of the golden-model tests: colliding addresses, and a brute-force reference."""

from __future__ import annotations

import mmh3
from hypothesis import HealthCheck, settings

from golden_model import KvAsuModel, Op, Response

#: Hypothesis settings of every property test: reproducible (derandomized) and small.
PROPERTY_SETTINGS = settings(derandomize=True, max_examples=150, deadline=None,
                             suppress_health_check=[HealthCheck.too_slow,
                                                    HealthCheck.data_too_large])


def addrs_with_home(model: KvAsuModel, home: int, n: int, start_line: int = 1,
                    exclude: tuple = ()) -> list[int]:
    """``n`` addresses of distinct lines whose window starts at slot ``home``.

    Searches lines ``start_line, start_line + 1, ...`` with the model's active seed (the
    addresses are at offset 0 of their line). Lines in ``exclude`` are skipped.
    """
    shift = model.params.LINE_SHIFT
    found, line = [], start_line
    while len(found) < n:
        if line not in exclude and model.home_of(line << shift) == home:
            found.append(line << shift)
        line += 1
        if line > start_line + 10_000 * model.params.ENTRIES * n:
            raise RuntimeError(f"no {n} lines with home {home} found")
    return found


def colliding_addrs(model: KvAsuModel, n: int, start_line: int = 1) -> list[int]:
    """``n`` addresses of distinct lines that share one window (the first line's)."""
    shift = model.params.LINE_SHIFT
    first = start_line << shift
    return addrs_with_home(model, model.home_of(first), n, start_line)


def state(model: KvAsuModel):
    """Everything observable of the model's table, for before/after comparisons."""
    return (model.slot_states(), model.lru_order(), model.occupancy, model.head, model.tail)


class ReferenceModel:
    """A deliberately naive re-reading of spec section 6 (with decisions D2, D5, D6, D7).

    No linked list, no speed: the LRU order is a Python list (tail first) and every rule is
    written as directly as the spec text puts it. Used to cross-check the golden model on
    random streams; shares no code with it.
    """

    def __init__(self, params):
        self.p = params
        d = params.defaults
        self.config = {"c3": d["C3"], "c2": d["C2"], "w3": d["W3"], "w2": d["W2"],
                       "w1": d["W1"], "hash_seed": d["HASH_SEED"]}
        self.slots: list[dict | None] = [None] * params.ENTRIES
        self.lru: list[int] = []          # tail (least recently used) first
        self.stats = {name: 0 for name in ("observes", "observe_hits", "inserts",
                                           "replacements", "drops", "queries", "query_hits",
                                           "evicts", "evicts_empty", "obs_t0", "obs_t1",
                                           "obs_t2", "obs_t3", "req_dropped")}

    def flush(self):
        self.slots = [None] * self.p.ENTRIES
        self.lru = []

    def commit(self, **config):
        if config.get("hash_seed", self.config["hash_seed"]) != self.config["hash_seed"]:
            self.flush()
        self.config.update(config)

    def level(self, line, t):
        if line is None:
            return 0
        c, a, cfg = line["count"], t - line["last"], self.config
        if c >= cfg["c3"] and a <= cfg["w3"]:
            return 3
        if c >= cfg["c2"] and a <= cfg["w2"]:
            return 2
        return 1 if a <= cfg["w1"] else 0

    def request(self, cycle, op, addr, min_tlevel):
        p, cfg = self.p, self.config
        t = cycle >> p.TICK_SHIFT
        line_no = (addr % 2**p.ADDR_WIDTH) >> p.LINE_SHIFT
        tag = line_no % 2**p.TAG_WIDTH
        h = mmh3.hash(tag.to_bytes(8, "little"), cfg["hash_seed"], signed=False) % p.ENTRIES
        window = [(h + i) % p.ENTRIES for i in range(p.PROBE)]
        where = [s for s in window if self.slots[s] is not None and self.slots[s]["tag"] == tag]
        assert len(where) <= 1
        if op in (Op.EVICT, Op.EVICT_ANY):
            if self.lru:
                s = self.lru[0]
                if op == Op.EVICT_ANY or self.level(self.slots[s], t) == 0:
                    victim = self.slots[s]["tag"]
                    self.slots[s] = None
                    self.lru.pop(0)
                    self.stats["evicts"] += 1
                    return Response(op, slot=s, victim_valid=1, victim_tag=victim)
            self.stats["evicts_empty"] += 1
            return Response(op)
        slot = where[0] if where else None
        line = self.slots[slot] if where else None
        before = self.level(line, t)
        hit = int(before >= min_tlevel)
        if op == Op.QUERY:
            self.stats["queries"] += 1
            self.stats["query_hits"] += hit
            if line is None:
                return Response(op, hit=hit)
            return Response(op, 1, before, 1, before, line["count"], hit, slot)
        self.stats["observes"] += 1
        self.stats[f"obs_t{before}"] += 1
        victim = None
        if line is not None:
            self.stats["observe_hits"] += 1
            if t - line["last"] > cfg["w1"]:
                line["count"] = 1
            else:
                line["count"] = min(line["count"] + 1, p.COUNT_MAX)
            line["last"] = t
        else:
            free = [s for s in window if self.slots[s] is None]
            if free:
                slot = free[0]
                self.stats["inserts"] += 1
            else:
                sat = [min(t - self.slots[s]["last"], p.WMAX + 1) for s in window]
                best = max(range(p.PROBE), key=lambda i: (sat[i], -i))
                slot = window[best]
                if self.level(self.slots[slot], t) != 0:
                    self.stats["drops"] += 1
                    return Response(op, hit=hit)
                victim = self.slots[slot]["tag"]
                self.stats["replacements"] += 1
            line = self.slots[slot] = {"tag": tag, "count": 1, "last": t}
        if slot in self.lru:
            self.lru.remove(slot)
        self.lru.append(slot)
        return Response(op, int(where != []), before, 1, self.level(line, t), line["count"],
                        hit, slot, int(victim is not None), victim or 0)
