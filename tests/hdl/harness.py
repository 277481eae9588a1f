# SPDX-License-Identifier: Apache-2.0
"""Shared amaranth.sim harness for the core unit tests (not a test module).

``CoreBench`` wraps ``KvAsuCore`` with a ``Timebase`` and drives it cycle by cycle from a
single testbench coroutine: requests (with optional idle gaps), response back-pressure,
flush pulses and configuration. ``RefModel`` is a small, independent reading of the spec
(exact integer times) used by the randomised tests; the directed tests check hand-computed
values.
"""

import mmh3
from amaranth import ClockDomain, Elaboratable, Module
from amaranth.sim import Simulator

import regmap
from regmap import Params
from hdl.core import CoreOptions, KvAsuCore
from hdl.layouts import STAT_NAMES
from hdl.timebase import Timebase

class ResetWrap(Elaboratable):
    """``dut`` under an explicit ``sync`` domain (``cd``), so that a testbench can drive its
    reset (``cd.rst``)."""

    def __init__(self, dut):
        self.dut = dut
        self.cd = ClockDomain("sync")

    def elaborate(self, platform):
        m = Module()
        m.domains.sync = self.cd
        m.submodules.dut = self.dut
        return m


async def pulse_reset(ctx, wrap):
    """A one-cycle synchronous reset of ``wrap`` (a ``ResetWrap``)."""
    ctx.set(wrap.cd.rst, 1)
    await ctx.tick()
    ctx.set(wrap.cd.rst, 0)


OBSERVE, QUERY, EVICT, EVICT_ANY = (regmap.OPS[n] for n in
                                    ("OBSERVE", "QUERY", "EVICT", "EVICT_ANY"))
#: The benches' default build: the fast pipeline with the shortest hash (quick simulation).
BENCH_OPTIONS = CoreOptions(hash_mul_stages=1)

FIELDS = [name for name, _ in regmap.response_fields(Params())]

SMALL = dict(ENTRIES=16, PROBE=4, ADDR_WIDTH=24, LINE_SHIFT=4, TS_WIDTH=5, TICK_SHIFT=1,
             COUNT_WIDTH=3)


def small_params(**kw):
    return Params(**{**SMALL, **kw})


def sim_run(dut, bench):
    """Simulate ``dut`` with one clock until the testbench ``bench`` returns."""
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def hash_slot(params, tag, seed=0):
    return mmh3.hash(tag.to_bytes(8, "little"), seed, signed=False) % params.ENTRIES


def tags_in_window(params, h, n, seed=0, start=1):
    """The first ``n`` tags (from ``start``) whose window starts at slot ``h``."""
    out, tag = [], start
    while len(out) < n:
        if hash_slot(params, tag, seed) == h:
            out.append(tag)
        tag += 1
    return out


def addr_of(params, tag):
    return tag << params.LINE_SHIFT


class _Top(Elaboratable):
    def __init__(self, core):
        self.core = core
        self.tb = Timebase()

    def elaborate(self, platform):
        m = Module()
        m.submodules.core = self.core
        m.submodules.tb = self.tb
        m.d.comb += self.core.cycle.eq(self.tb.cycle)
        return m


def default_cfg(params):
    d = params.defaults
    return {k.lower(): v for k, v in d.items()}


class CoreBench:
    """Run a script of requests through the core; return responses and timings.

    ``script`` items: ``("req", op, addr, min_tlevel)``, ``("idle", n)``, ``("at", c)``
    (no request before cycle ``c``),
    ``("flush",)`` (waits for idle, raises hold, pulses flush), ``("cfg", dict)``
    (waits for idle under hold, applies the configuration).
    ``rsp_ready``: a function cycle -> bool (default always ready).
    ``monitors``: processes (``async def monitor(ctx)``) run beside the bench, each
    sampling the core at the clock edges (``ctx.tick().sample(...)``) and asserting.
    """

    def __init__(self, params, options=BENCH_OPTIONS, *, cfg=None, policy=None,
                 on_start=None):
        self.params = params
        # ``policy``: the core's ``policy`` input (a build with CoreOptions.predictor);
        # ``on_start(ctx, core)``: called once the core has left reset, before any request
        self.policy = policy
        self.on_start = on_start
        self.core = KvAsuCore(params, options)
        self.top = _Top(self.core)
        self.cfg = {**default_cfg(params), **(cfg or {})}
        c = self.cfg
        assert 1 <= c["c2"] <= c["c3"] <= params.COUNT_MAX, c
        assert 0 <= c["w3"] <= c["w2"] <= c["w1"] <= params.WMAX, c

    def run(self, script, *, rsp_ready=None, max_cycles=20000, vcd=None, monitors=(),
            must_finish=True):
        """Present ``script`` and collect what the core does. With ``must_finish`` (the
        default) an ``AssertionError`` says so when the script was not all presented, or a
        taken request got no response, within ``max_cycles``: a core that stops taking
        requests must not pass a test that compares only what it took."""
        core = self.core
        results = {"accepted": [], "responses": [], "rsp_cycles": [], "stats": [0] * len(STAT_NAMES),
                   "occupancy": [], "events": [], "flushing_cycles": 0,
                   "stalls": 0}
        rsp_ready = rsp_ready or (lambda c: True)
        items = list(script)

        async def bench(ctx):
            for k, v in self.cfg.items():
                ctx.set(getattr(core.cfg, k), v)
            ctx.set(core.enable, 1)
            if self.policy is not None:
                ctx.set(core.policy, self.policy)
            # The core sweeps its table after a reset that wraps the table generations
            # (``flushing``; none at power-up); script cycles count from the first tick
            # boundary after that (ages only depend on differences).
            while ctx.get(core.flushing) or \
                    ctx.get(self.top.tb.cycle) % (1 << self.params.TICK_SHIFT):
                await ctx.tick()
            if self.on_start is not None:
                await self.on_start(ctx, core)
            t0 = ctx.get(self.top.tb.cycle)
            results["t0"] = t0
            idx = 0
            gap = 0
            cycle = 0
            while cycle < max_cycles:
                now = ctx.get(self.top.tb.cycle) - t0
                while idx < len(items) and items[idx][0] == "at" and now >= items[idx][1]:
                    idx += 1
                item = items[idx] if idx < len(items) else None
                ctx.set(core.req.valid, 0)
                ctx.set(core.hold, 0)
                ctx.set(core.flush, 0)
                if item is not None:
                    kind = item[0]
                    if kind == "req" and gap == 0:
                        _, op, addr, mt = item
                        ctx.set(core.req.valid, 1)
                        ctx.set(core.req.payload.op, op)
                        ctx.set(core.req.payload.addr, addr)
                        ctx.set(core.req.payload.min_tlevel, mt)
                    elif kind in ("flush", "cfg"):
                        ctx.set(core.hold, 1)
                        if ctx.get(core.idle) and not ctx.get(core.flushing):
                            if kind == "flush":
                                ctx.set(core.flush, 1)
                            else:
                                for k, v in item[1].items():
                                    ctx.set(getattr(core.cfg, k), v)
                            results["events"].append(item)
                            idx += 1
                    elif kind == "idle":
                        if gap == 0:
                            gap = item[1]
                ctx.set(core.rsp.ready, int(rsp_ready(cycle)))
                # sample before the edge
                accepted = ctx.get(core.req.valid) and ctx.get(core.req.ready)
                if ctx.get(core.rsp.valid) and ctx.get(core.rsp.ready):
                    results["responses"].append(ctx.get(core.rsp.payload))
                    results["rsp_cycles"].append(now)
                inc = ctx.get(core.stat_inc)
                for i in range(len(STAT_NAMES)):
                    results["stats"][i] += (inc >> i) & 1
                results["occupancy"].append(ctx.get(core.occupancy))
                results["flushing_cycles"] += ctx.get(core.flushing)
                # a request waiting for a reason other than the bench's own `hold`
                results["stalls"] += (ctx.get(core.req.valid) and not ctx.get(core.req.ready)
                                      and not ctx.get(core.hold))
                if ctx.get(core.req.ready):
                    assert not ctx.get(core.hold) and not ctx.get(core.flushing)
                if accepted:
                    results["accepted"].append((item, now))
                    results["events"].append(("req", item[1], item[2], item[3],
                                              (now + t0) >> self.params.TICK_SHIFT))
                    idx += 1
                if item is not None and item[0] == "idle":
                    gap -= 1
                    if gap == 0:
                        idx += 1
                await ctx.tick()
                cycle += 1
                if idx >= len(items) and len(results["responses"]) == len(results["accepted"]) \
                        and ctx.get(core.idle):
                    break
            results["cycles"] = cycle
            results["presented"] = idx
            results["finished"] = (idx >= len(items) and
                                   len(results["responses"]) == len(results["accepted"]))

        sim = Simulator(self.top)
        sim.add_clock(1e-8)
        sim.add_testbench(bench)
        for monitor in monitors:
            sim.add_process(monitor)
        if vcd:
            with sim.write_vcd(vcd):
                sim.run()
        else:
            sim.run()
        if must_finish and not results["finished"]:
            raise AssertionError(
                f"the script did not finish in {max_cycles} cycles: {results['presented']} of "
                f"{len(items)} items presented, {len(results['accepted'])} requests taken, "
                f"{len(results['responses'])} responses")
        results["responses"] = [decode(self.params, r) for r in results["responses"]]
        results["stats"] = dict(zip(STAT_NAMES, results["stats"]))
        return results


def decode(params, payload):
    """A response payload (a View or int) as a dict of ints."""
    if not isinstance(payload, int):
        payload = payload.as_value().value if hasattr(payload, "as_value") else int(payload)
    out, pos = {}, 0
    for name, width in regmap.response_fields(params):
        out[name] = (payload >> pos) & ((1 << width) - 1)
        pos += width
    return out


class RefModel:
    """Independent small reading of spec sections 5-6 and D5-D7, exact integer ticks."""

    def __init__(self, params, cfg=None):
        self.p = params
        self.cfg = {**default_cfg(params), **(cfg or {})}
        self.flush()
        self.stats = dict.fromkeys(STAT_NAMES, 0)

    def flush(self):
        self.slots = [None] * self.p.ENTRIES   # [tag, count, last]
        self.lru = []                            # head first

    def level(self, count, age):
        c = self.cfg
        if count >= c["c3"] and age <= c["w3"]:
            return 3
        if count >= c["c2"] and age <= c["w2"]:
            return 2
        if age <= c["w1"]:
            return 1
        return 0

    def request(self, op, addr, mt, t):
        p = self.p
        r = dict.fromkeys(FIELDS, 0)
        r["op"] = op
        st = self.stats
        if op in (EVICT, EVICT_ANY):
            if self.lru:
                s = self.lru[-1]
                tag, cnt, last = self.slots[s]
                if op == EVICT_ANY or t - last > self.cfg["w1"]:
                    self.lru.pop()
                    self.slots[s] = None
                    r.update(victim_valid=1, victim_tag=tag, slot=s)
            st["evicts" if r["victim_valid"] else "evicts_empty"] += 1
            return r
        tag = (addr >> p.LINE_SHIFT) & ((1 << p.TAG_WIDTH) - 1)
        h = hash_slot(p, tag, self.cfg["hash_seed"])
        win = [(h + i) % p.ENTRIES for i in range(p.PROBE)]
        where = [s for s in win if self.slots[s] and self.slots[s][0] == tag]
        if where:
            s = where[0]
            _, cnt, last = self.slots[s]
            age = t - last
            tlb = self.level(cnt, age)
        else:
            s, tlb = None, 0
        r["tlevel_before"] = tlb
        r["hit"] = int(tlb >= mt)
        if op == QUERY:
            st["queries"] += 1
            st["query_hits"] += r["hit"]
            if s is not None:
                r.update(present=1, tracked=1, tlevel=tlb, count=cnt, slot=s)
            return r
        st["observes"] += 1
        st[f"obs_t{tlb}"] += 1
        cmax = p.COUNT_MAX
        if s is not None:
            st["observe_hits"] += 1
            cnt = 1 if age > self.cfg["w1"] else min(cnt + 1, cmax)
            self.slots[s] = [tag, cnt, t]
            self.lru.remove(s)
            self.lru.insert(0, s)
            r.update(present=1, tracked=1, count=cnt, slot=s, tlevel=self.level(cnt, 0))
            return r
        free = [x for x in win if self.slots[x] is None]
        if free:
            s = free[0]
            st["inserts"] += 1
        else:
            best = max(win, key=lambda x: (min(t - self.slots[x][2], p.WMAX + 1),
                                           -win.index(x)))
            if t - self.slots[best][2] <= self.cfg["w1"]:
                st["drops"] += 1
                return r
            st["replacements"] += 1
            r.update(victim_valid=1, victim_tag=self.slots[best][0])
            self.lru.remove(best)
            s = best
        self.slots[s] = [tag, 1, t]
        self.lru.insert(0, s)
        r.update(tracked=1, count=1, slot=s, tlevel=self.level(1, 0))
        return r

    @property
    def occupancy(self):
        return len(self.lru)


def replay(params, results, cfg=None):
    """Expected responses of ``results["events"]`` from ``RefModel``; returns (ref, list)."""
    ref = RefModel(params, cfg)
    expected = []
    for ev in results["events"]:
        if ev[0] == "req":
            _, op, addr, mt, t = ev
            expected.append(ref.request(op, addr, mt, t))
        elif ev[0] == "flush":
            ref.flush()
        elif ev[0] == "cfg":
            ref.cfg.update(ev[1])
            if "hash_seed" in ev[1]:
                pass  # the test flushes explicitly when it changes the seed
    return ref, expected


def check_against_ref(params, results, cfg=None):
    ref, expected = replay(params, results, cfg)
    got = results["responses"]
    assert len(got) == len(expected)
    for n, (g, x) in enumerate(zip(got, expected)):
        assert g == x, f"response {n} ({results['events']}): got {g}, expected {x}" if len(
            expected) < 8 else f"response {n}: got {g}, expected {x}"
    assert results["stats"] == ref.stats
    assert results["occupancy"][-1] == ref.occupancy
    return ref
