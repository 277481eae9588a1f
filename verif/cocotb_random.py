# SPDX-License-Identifier: Apache-2.0
"""Seeded constrained-random cocotb tests.

The seed is printed at the start of every test (``seed N`` in the log) and is taken from
``$KVASU_SEED`` / ``$RANDOM_SEED`` when set, so a failure reproduces with
``KVASU_SEED=N make test`` (or the command the scoreboard prints). The number of requests
scales with the run's ``scale`` (smaller on Icarus).
"""

from __future__ import annotations

import cocotb

from verif.kvasu_tb import (CLEAR_ERROR, CLEAR_STATS, COMMIT, ENABLE, EVICT, EVICT_ANY, FLUSH,
                            OBSERVE, QUERY, KvAsuTB, ReqItem, tb_test)


class Stimulus:
    """Requests over address pools chosen to collide: a few windows crowded with more lines
    than PROBE, neighbouring homes, a pool of random lines, fresh lines, tag aliases."""

    def __init__(self, tb: KvAsuTB, crowd_windows=3):
        self.tb, self.rng = tb, tb.rng
        self.rebuild(crowd_windows)
        self.weights = self.random_weights()

    def rebuild(self, crowd_windows=3):
        tb, p, rng = self.tb, self.tb.p, self.rng
        seed = tb.active["HASH_SEED"]
        self.crowd = []
        for _ in range(crowd_windows):
            h = rng.randrange(p.ENTRIES)
            self.crowd += tb.space.lines_with_h(h, p.PROBE + 2, seed, exclude=self.crowd)
            self.crowd += tb.space.lines_with_h((h + 1) % p.ENTRIES, 1, seed, exclude=self.crowd)
        self.pool = [tb.space.random_line() for _ in range(min(4 * p.ENTRIES, 300))]

    def random_weights(self):
        r = self.rng
        return [r.choice([40, 60, 80]), r.choice([10, 25, 40]), r.choice([2, 6, 12]),
                r.choice([0, 1, 4])]

    def line(self):
        r, tb = self.rng.random(), self.tb
        if r < 0.45:
            return self.rng.choice(self.crowd)
        if r < 0.85:
            return self.rng.choice(self.pool)
        if r < 0.92:
            alias = tb.space.alias_line(self.rng.choice(self.crowd))
            if alias is not None:
                return alias
        return tb.space.random_line()

    def gap(self):
        r, p, tb = self.rng.random(), self.tb.p, self.tb
        if r < 0.88:
            return 0
        if r < 0.97:
            return self.rng.randint(1, 6)
        if r < 0.995:
            return self.rng.randint(1, 2 * (tb.active["W1"] + 2)) << p.TICK_SHIFT
        return (self.rng.randint(1, 5) << p.TS_WIDTH) + self.rng.randint(-3, 3) << p.TICK_SHIFT

    def item(self):
        op = self.rng.choices((OBSERVE, QUERY, EVICT, EVICT_ANY), self.weights)[0]
        return ReqItem(op, self.tb.space.addr(self.line()), self.rng.randrange(4),
                       max(0, self.gap()))

    def items(self, n):
        return [self.item() for _ in range(n)]


def random_config(tb: KvAsuTB, legal=True):
    p, r = tb.p, tb.rng
    c3 = r.randint(1, min(p.COUNT_MAX, 10))
    c2 = r.randint(1, c3)
    w1 = r.randint(0, p.WMAX)
    w2 = r.randint(0, w1)
    w3 = r.randint(0, w2)
    cfg = {"C3": c3, "C2": c2, "W3": w3, "W2": w2, "W1": w1}
    if r.random() < 0.15:
        cfg["HASH_SEED"] = r.getrandbits(32)
    if legal:
        return cfg
    bad = r.choice(["c2zero", "c2gtc3", "c3big", "w3gtw2", "w2gtw1", "w1big", "huge"])
    if bad == "c2zero":
        cfg["C2"] = 0
    elif bad == "c2gtc3":
        cfg["C2"] = c3 + 1
    elif bad == "c3big":
        cfg["C3"] = p.COUNT_MAX + 1 + r.randrange(3)
    elif bad == "w3gtw2":
        cfg["W3"] = w2 + 1
    elif bad == "w2gtw1":
        cfg["W2"] = w1 + 1
    elif bad == "w1big":
        cfg["W1"] = p.WMAX + 1
    else:
        cfg[r.choice(["C3", "W1", "W2"])] = 0xFFFF_FFFF
    return cfg


async def commit_random_config(tb: KvAsuTB, stim: Stimulus):
    """Write a random legal configuration to the shadows and commit it (ENABLE kept); the
    stimulus' colliding pools follow a new HASH_SEED."""
    cfg = random_config(tb)
    for k, v in cfg.items():
        await tb.write_reg(k, v)
    await tb.write_ctrl(COMMIT | ENABLE)
    if "HASH_SEED" in cfg:
        stim.rebuild()


async def random_action(tb: KvAsuTB, stim: Stimulus, allow_busy_actions=True):
    """One register-side event while (or after) traffic flows."""
    r = tb.rng.random()
    en = ENABLE
    if r < 0.25:
        await commit_random_config(tb, stim)
    elif r < 0.33:
        cfg = random_config(tb, legal=False)
        for k, v in cfg.items():
            await tb.write_reg(k, v)
        await tb.write_ctrl(COMMIT | FLUSH | CLEAR_STATS | en)   # refused: nothing happens
        # make the shadows legal again, and clear the sticky error
        for k, v in tb.active.items():
            await tb.write_reg(k, v)
        await tb.write_ctrl(CLEAR_ERROR | en)
    elif r < 0.40:
        await tb.write_ctrl(FLUSH | en)
    elif r < 0.46:
        await tb.write_ctrl(CLEAR_STATS | en)
    elif r < 0.60:
        await tb.check_quiescent("random")
    elif r < 0.70:
        stim.weights = stim.random_weights()
    else:
        await tb.drain()


async def run_random(tb: KvAsuTB, n, actions=True, seg=(10, 250)):
    stim = Stimulus(tb)
    done = 0
    while done < n:
        k = tb.rng.randint(*seg)
        tb.send_items(stim.items(k))
        done += k
        if actions:
            await random_action(tb, stim)
        else:
            await tb.drain()
    await tb.check_quiescent("end of random stream")
    return stim


@tb_test()
async def random_mix(tb: KvAsuTB):
    """Random OBSERVE/QUERY/EVICT/EVICT_ANY over colliding pools, random valid gaps and idle
    gaps (some many times 2**TS_WIDTH ticks), with commits (some changing HASH_SEED), refused
    commits, flushes and clear-stats issued while traffic is in flight (D8 ordering), and
    statistics/OCCUPANCY compared with the model at quiescent points."""
    await run_random(tb, int(6000 * tb.scale) + 200)


@tb_test()
async def random_backpressure(tb: KvAsuTB):
    """Random traffic with the response consumer stalling at random, including stalls of
    hundreds of cycles, and random valid gaps: every response arrives once, in order."""
    rng = tb.rng
    state = {"left": 0, "val": True}

    def ready():
        if state["left"] <= 0:
            r = rng.random()
            if r < 0.04:
                state["val"], state["left"] = False, rng.randint(16, 300)
            elif r < 0.5:
                state["val"], state["left"] = rng.random() < 0.5, rng.randint(1, 4)
            else:
                state["val"], state["left"] = True, rng.randint(1, 30)
        state["left"] -= 1
        return state["val"]

    tb.driver.rsp_ready_fn = ready
    tb.driver.valid_gap_fn = lambda: 0 if rng.random() < 0.7 else rng.randint(1, 4)
    await run_random(tb, int(3000 * tb.scale) + 200)
    assert tb.driver.max_stall >= 16, f"longest stall only {tb.driver.max_stall}"


@tb_test()
async def reset_mid_traffic(tb: KvAsuTB):
    """Reset asserted while requests are queued, in flight and answered: afterwards the block
    is as new (D10): every register at its reset value, OCCUPANCY 0, statistics 0, CYCLE
    restarted, no stale response, and new traffic matches a fresh model."""
    rng = tb.rng
    for round_ in range(3):
        stim = Stimulus(tb)
        cfg = random_config(tb)
        cfg.pop("HASH_SEED", None)
        await tb.commit(**cfg, HASH_SEED=rng.getrandbits(32))
        tb.driver.rsp_ready_fn = (lambda: rng.random() < 0.6) if round_ else None
        accepted_before = tb.scoreboard.accepted
        tb.send_items(stim.items(int(400 * tb.scale) + 100))
        # the commit changed HASH_SEED, so it flushed (a new table generation, or once in
        # 16 the clear sweep of ENTRIES / PROBE cycles with req.ready low, D12), and the
        # stimulus may open with a long idle gap: reset once this round's traffic flows
        for _ in range(200_000):
            if tb.scoreboard.accepted > accepted_before:
                break
            await cocotb.triggers.RisingEdge(tb.dut.clk)
        for _ in range(rng.randint(20, 150)):
            await cocotb.triggers.RisingEdge(tb.dut.clk)
        assert tb.scoreboard.accepted > accepted_before, "no traffic before the reset"
        tb.cov.hit("reset.mid_traffic")
        await tb.reset(rng.randint(1, 5))
        tb.driver.rsp_ready_fn = None
        assert tb.model.occupancy == 0
        await tb.check_all_registers()          # mirror is fresh: defaults, zero stats
        await tb.check_quiescent("after reset")
        await run_random(tb, int(300 * tb.scale) + 50, actions=False)


@tb_test()
async def commits_racing_traffic(tb: KvAsuTB):
    """Back-to-back traffic with CTRL writes (commit, flush, clear-stats) landing in the middle
    of it: the block drains, applies, answers; every response matches the model that applies
    the action at the write response."""
    stim = Stimulus(tb)
    stim.weights = [70, 25, 4, 1]
    for _ in range(int(30 * tb.scale) + 6):
        tb.send_items([ReqItem(i.op, i.addr, i.min_tlevel, 0) for i in stim.items(150)])
        await cocotb.triggers.ClockCycles(tb.dut.clk, tb.rng.randint(1, 60))
        r = tb.rng.random()
        if r < 0.5:
            await commit_random_config(tb, stim)
        elif r < 0.7:
            await tb.write_ctrl(FLUSH | ENABLE)
        elif r < 0.85:
            await tb.write_ctrl(CLEAR_STATS | ENABLE)
        else:
            await tb.write_ctrl(FLUSH | CLEAR_STATS | ENABLE)
    await tb.check_quiescent("racing")
