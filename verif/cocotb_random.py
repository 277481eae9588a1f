# SPDX-License-Identifier: Apache-2.0
"""Seeded constrained-random cocotb tests.

The run's seed (``$KVASU_SEED`` / ``$RANDOM_SEED`` when set, else a fresh one) is printed
by the pytest run that starts the simulator (``[verilator-small] KVASU_SEED=N``) and named
in every mismatch report, with the command that reproduces the failure. The number of requests
scales with the run's ``scale`` (smaller on Icarus).
"""

from __future__ import annotations

import cocotb
from cocotb.triggers import ClockCycles, FallingEdge, ReadOnly, RisingEdge
from cocotbext.axi import AxiResp

from regmap import REG, STAT_NAMES
from verif.kvasu_tb import (CLEAR_ERROR, CLEAR_STATS, COMMIT, ENABLE, EVICT, EVICT_ANY, FLUSH,
                            OBSERVE, QUERY, ST_ERROR, KvAsuTB, ReqItem, tb_test)
from verif.tb.statistics_memory import deposit_statistics, statistics_memory


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


def back_to_back(items):
    """``items`` without their valid gaps (presented one per cycle while ready)."""
    return [ReqItem(i.op, i.addr, i.min_tlevel, 0) for i in items]


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


async def reset_with_requests_in_flight(tb: KvAsuTB, cycles: int, held: bool) -> int:
    """Reset now (``cycles`` edges with ``rst`` high) and check, in the ``ReadOnly`` phase
    just before the first edge with ``rst`` high (the reset edge; the stream driver raises
    ``rst`` and lowers ``req.valid`` and ``rsp.ready`` at the falling edge before it, the
    next one while traffic flows, so no handshake can happen at that edge), that requests
    are in flight: the scoreboard holds responses of accepted requests not yet answered
    (the reset must drop them, D10), requests are still queued, and with ``held`` that
    ``rsp.valid`` is high (a response held by back-pressure). Returns the number of
    responses outstanding at the reset edge."""
    dut = tb.dut
    await RisingEdge(dut.clk)
    resetting = cocotb.start_soon(tb.reset(cycles))
    for _ in range(100_000):           # the driver raises rst at its next active cycle
        await FallingEdge(dut.clk)
        await ReadOnly()
        if int(dut.rst.value):
            break
    assert int(dut.rst.value) == 1, "rst never raised"
    outstanding = len(tb.scoreboard.expected)
    assert outstanding > 0, (f"no accepted request outstanding at the reset edge "
                             f"(seed {tb.seed})")
    assert tb.driver.reqq or tb.driver.cur is not None, \
        f"no request queued at the reset edge (seed {tb.seed})"
    if held:
        assert int(dut.rsp__valid.value) == 1 and int(dut.rsp__ready.value) == 0, (
            f"no response held by back-pressure at the reset edge: rsp.valid "
            f"{int(dut.rsp__valid.value)}, rsp.ready {int(dut.rsp__ready.value)} "
            f"(seed {tb.seed})")
        tb.cov.hit("reset.response_held")
    tb.cov.hit("reset.in_flight", outstanding)
    await resetting
    return outstanding


@tb_test()
async def reset_mid_traffic(tb: KvAsuTB):
    """Reset asserted while requests are queued, in flight and answered: afterwards the block
    is as new (D10): every register at its reset value, OCCUPANCY 0, statistics 0, CYCLE
    restarted, no stale response, and new traffic matches a fresh model. Before each reset
    the requests go back to back (no idle gap), so some are always in flight at the reset
    edge (checked there: ``reset_with_requests_in_flight``); in rounds 1 and 2 the consumer
    back-pressures at random and then holds ``rsp.ready`` low for the last 10 cycles, so a
    response is held at the reset edge (checked: ``rsp.valid`` high)."""
    rng = tb.rng
    latency = tb.cfg["timing"]["latency"]
    for round_ in range(3):
        cfg = random_config(tb)
        cfg.pop("HASH_SEED", None)
        await tb.commit(**cfg, HASH_SEED=rng.getrandbits(32))
        stim = Stimulus(tb)                 # its colliding pools for the new HASH_SEED
        held = round_ > 0
        tb.driver.rsp_ready_fn = (lambda: rng.random() < 0.6) if held else None
        accepted_before = tb.scoreboard.accepted
        received_before = tb.scoreboard.received
        wait = rng.randint(latency + 10, 150)
        # back to back (gap 0): at most one request is accepted per cycle, so more than the
        # cycles to the reset keeps the queue busy up to it
        n = max(int(400 * tb.scale) + 100, wait + 40)
        tb.send_items(back_to_back(stim.items(n)))
        # the commit changed HASH_SEED, so it flushed (a new table generation, or once in
        # 16 the clear sweep of ENTRIES / PROBE cycles with req.ready low, D12): reset a
        # while after this round's traffic starts flowing
        for _ in range(200_000):
            if tb.scoreboard.accepted > accepted_before:
                break
            await RisingEdge(tb.dut.clk)
        assert tb.scoreboard.accepted > accepted_before, "no traffic before the reset"
        await ClockCycles(tb.dut.clk, wait)
        if held:
            tb.driver.rsp_ready_fn = lambda: False      # the last 10 cycles: held
            await ClockCycles(tb.dut.clk, 10)
        else:
            # rsp.ready always high: the first request's response came after `latency`
            assert tb.scoreboard.received > received_before, "nothing answered before the reset"
        tb.cov.hit("reset.mid_traffic")
        outstanding = await reset_with_requests_in_flight(tb, rng.randint(1, 5), held)
        tb.log.info("round %d: reset with %d responses outstanding, %d requests queued",
                    round_, outstanding, len(tb.driver.reqq))
        tb.driver.rsp_ready_fn = None
        assert tb.model.occupancy == 0
        await tb.check_all_registers()          # mirror is fresh: defaults, zero stats
        await tb.check_quiescent("after reset")
        await run_random(tb, int(300 * tb.scale) + 50, actions=False)


async def _non_reset_statistics_and_errors(tb: KvAsuTB) -> bool:
    """At a quiescent point, put values no reset leaves into the statistics memory and the
    soft-error registers (D11), as ``counter_lo_hi_latch`` and ``flip_corrected`` reach
    them: the observes counter gets ``2**32`` added (so its LO read latches a high half of
    1, not the latch's reset value 0) with one bit of its code word flipped (corrected:
    ``ERR_CORRECTED``, ``ERR_FIRST_*``), and, on a SECDED build, two bits of the queries
    counter's word (uncorrectable: ``STATUS.SOFT_ERROR``, ``ERR_UNCORRECTED``; that counter
    restarts from zero). Checked by reading them back (not against the model, which is not
    told: a reset follows). Returns whether the soft-error part was done (SECDED build)."""
    memory, code = statistics_memory(tb)
    secded = code.kind == "secded"
    obs, qry = STAT_NAMES.index("observes"), STAT_NAMES.index("queries")
    observes = REG["STAT_OBSERVES"]
    await tb.idle(4 * len(STAT_NAMES))             # every counter visited and written back
    value = (1 << 32) | (tb.model.stats.observes & 0xFFFF_FFFF)
    words = {obs: code.encode_int(value)}
    if secded:
        words[obs] ^= 1 << tb.rng.randrange(64)
        one, two = tb.rng.sample(range(64), 2)
        words[qry] = code.encode_int(tb.model.stats.queries) ^ (1 << one) ^ (1 << two)
    await deposit_statistics(tb, memory, words)
    await tb.idle(4 * len(STAT_NAMES))             # the visits correct / invalidate them
    lo, _ = await tb.rd(observes.offset)
    hi, _ = await tb.rd(observes.offset + 4)
    assert (lo, hi) == (value & 0xFFFF_FFFF, 1), (
        f"the deposit of {value:#x} into the observes counter reads {hi:#x}:{lo:#010x} "
        f"(seed {tb.seed})")
    if secded:
        errors = [await tb.read_reg(name, check=False)
                  for name in ("ERR_CORRECTED", "ERR_UNCORRECTED")]
        assert errors[0] > 0 and errors[1] > 0, (
            f"ERR_CORRECTED, ERR_UNCORRECTED {errors} after the flipped statistics words "
            f"(seed {tb.seed})")
    return secded


def _config_off_defaults(tb: KvAsuTB) -> dict:
    """A legal configuration of which every field differs from its reset value (D4)."""
    p, rng, defaults = tb.p, tb.rng, tb.p.defaults
    for _ in range(10_000):
        cfg = random_config(tb)
        cfg["HASH_SEED"] = rng.randrange(1, 1 << 32)
        if all(cfg[k] != defaults[k] for k in defaults):
            return cfg
    raise AssertionError(f"no legal configuration off every default for {p}")


NONBLOCKING = REG["MODE"].mask("NONBLOCKING")
ST_SOFT_ERROR = REG["STATUS"].mask("SOFT_ERROR")


@tb_test()
async def reset_restores_every_register(tb: KvAsuTB):
    """D10 from registers that are not at their reset value: before the reset, CTRL.ENABLE is
    0 (written while the stream runs), STATUS.ERROR 1 (a refused commit, D8), the committed
    configuration differs from D4 in every field and MODE.NONBLOCKING is committed (ACT_*
    and ACT_MODE off their reset values), the shadows hold other values (C2 = 0 and
    POLICY.MODE = 1 of the refused commit among them), the table holds lines, the
    statistics are non-zero (the observes counter above 2**32 by a deposit), the soft-error
    registers are set (a corrected and an uncorrectable statistics word, D11), and the
    LO/HI latch holds 1 (D8). Each of these is read back before the reset and asserted off
    its reset value. The reset comes with requests accepted and unanswered and a response
    held by back-pressure. After it: the first access, a HI word, reads the latch's reset
    value 0; every register equals its reset value (the fresh register mirror); the
    stream is blocking again and new traffic matches a fresh model. The front door
    (D13's rule) decides the requests of the non-blocking stretch."""
    front = tb.use_front_door()
    rng = tb.rng
    latency = tb.cfg["timing"]["latency"]
    stim = Stimulus(tb)
    tb.send_items(back_to_back(stim.items(100)))
    await tb.drain()
    soft = await _non_reset_statistics_and_errors(tb)

    cfg = _config_off_defaults(tb)
    await tb.commit(**cfg, MODE=NONBLOCKING)        # HASH_SEED changes: flushes too
    await tb.wait_not_busy()                          # (once in 16 a clear sweep, D12)
    assert tb.active["MODE"] == NONBLOCKING and tb.model.nonblocking
    stim.rebuild()
    await tb.write_reg("C2", 0)                       # illegal: C2 >= 1 (D8)
    await tb.write_reg("POLICY", 1)
    await tb.write_ctrl(COMMIT | ENABLE)              # SLVERR (checked), ERROR set
    assert tb.mirror.error == 1

    # back-to-back OBSERVE / QUERY (no EVICT: the table keeps lines), then rsp.ready low,
    # then CTRL.ENABLE = 0 while requests are still presented (dropped: non-blocking)
    stim.weights = [60, 40, 0, 0]
    accepted = tb.scoreboard.accepted
    tb.send_items(back_to_back(stim.items(600)))
    for _ in range(1000):
        if tb.scoreboard.accepted >= accepted + 4:
            break
        await RisingEdge(tb.dut.clk)
    assert tb.scoreboard.accepted >= accepted + 4, "the stream is not taken"
    tb.driver.rsp_ready_fn = lambda: False
    await ClockCycles(tb.dut.clk, rng.randint(latency + 2, latency + 30))
    await tb.write_ctrl(0)
    assert tb.mirror.enable == 0

    before = {}                                       # the registers off their reset value
    for name in ("CTRL", "C3", "C2", "W3", "W2", "W1", "HASH_SEED", "POLICY", "MODE",
                 "ACT_C3", "ACT_C2", "ACT_W3", "ACT_W2", "ACT_W1", "ACT_HASH_SEED",
                 "ACT_MODE"):
        before[name] = await tb.read_reg(name)        # checked against the mirror
    before["STATUS"] = await tb.read_reg("STATUS", check=False)
    before["OCCUPANCY"] = await tb.read_reg("OCCUPANCY", check=False)
    assert before["STATUS"] & ST_ERROR, before
    assert before["OCCUPANCY"] > 0, before
    errors = ("ERR_CORRECTED", "ERR_UNCORRECTED", "ERR_FIRST_MEM", "ERR_FIRST_ADDR")
    if soft:
        assert before["STATUS"] & ST_SOFT_ERROR, before
        for name in errors:
            before[name] = await tb.read_reg(name, check=False)
            assert before[name] != 0, (name, before)
        # (a 64-bit register: its LO read moves the latch, so before the last LO read)
        first_cycle = await tb.read_reg("ERR_FIRST_CYCLE", check=False)
        assert first_cycle > 0
        tb.cov.hit("reset.soft_errors_before")
    dropped = await tb.read_reg("STAT_REQ_DROPPED", check=False)
    assert dropped > 0, "no request dropped while ENABLE = 0 in MODE.NONBLOCKING"
    # the last LO read before the reset: the observes counter, above 2**32, latches 1
    observes = REG["STAT_OBSERVES"]
    lo, _ = await tb.rd(observes.offset)
    hi, _ = await tb.rd(observes.offset + 4)
    assert hi == 1, (hex(lo), hi)

    outstanding = await reset_with_requests_in_flight(tb, rng.randint(1, 5), held=True)
    tb.driver.rsp_ready_fn = None
    tb.cov.hit("reset.from_non_reset_values")
    # the first access after the reset: a HI word, which returns the latch (D8)
    hi, resp = await tb.rd(observes.offset + 4)
    assert resp == AxiResp.OKAY and hi == tb.mirror.read(observes.offset + 4)[1] == 0, (
        f"{observes.name}_HI first after the reset read {hi:#x} ({resp!r}), want the "
        f"latch's reset value 0 (it held 1 before the reset; seed {tb.seed})")
    assert not tb.model.nonblocking and not front.nonblocking
    reset_value = {name: tb.mirror.read(REG[name].offset)[1] for name in before}
    for name in before:
        # the check below can fail: the register was off its reset value
        assert before[name] != reset_value[name], (name, before[name], reset_value[name])
    for name in before:
        got = await tb.read_reg(name)
        assert got == reset_value[name], (f"{name} reads {got:#x} after the reset, want its "
                                          f"reset value {reset_value[name]:#x} (seed {tb.seed})")
    await tb.check_all_registers()                    # every register: the fresh mirror
    assert await tb.read_reg("STAT_OBSERVES") == 0
    await tb.check_quiescent("after the reset")
    tb.log.info("reset with %d responses outstanding; %d requests dropped before it",
                outstanding, front.drops)
    await run_random(tb, int(200 * tb.scale) + 50, actions=False)


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
