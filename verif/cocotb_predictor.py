# SPDX-License-Identifier: Apache-2.0
"""cocotb tests of the predictor mode (docs/spec-predictor.md) through the block's ports.

``predictor_registers`` runs on every build. On the article build (no
``CoreOptions.predictor``) it checks P2's refusal: ``P_POLICIES`` reads 1, a commit of
``POLICY.MODE = 1`` gets ``SLVERR``, sets ``STATUS.ERROR`` and changes nothing (neither
``ACT_POLICY`` nor the configuration it was committed with, and no flush: the lines
observed before are still present). On the predictor build: ``P_POLICIES`` reads 3, a
commit of ``POLICY.MODE = 1`` flushes and switches the block, a reserved bit of ``POLICY``
is refused, and ``MODE.NONBLOCKING`` commits beside ``POLICY.MODE = 1`` (spec-predictor.md
P2, D13).

``predictor_random`` runs on the predictor build only: ``POLICY.MODE = 1`` committed over
AXI4-Lite, seeded random OBSERVE / QUERY / EVICT / EVICT_ANY traffic (colliding windows, a
pool of lines, runtime-like loops over 1.25 to 2 banks with an EVICT after most OBSERVEs,
idle gaps longer than ``WMAX``), random back-pressure on the response stream, random
configurations, and switches of ``POLICY`` to 0 and back (each flushes), both at quiescent
points and while requests are in flight. Every response goes through the scoreboard
against the golden model (which the register mirror switches as the block is switched);
every statistic, ``OCCUPANCY`` and ``ACT_POLICY`` is compared at quiescent points; the
model's own P3 invariants are checked there too. The test asserts that ghost revivals,
replacements, EVICTs that leave ghosts, ``tlevel`` 3 answers and back-pressure stalls all
occurred.

``predictor_reset_mid_traffic`` runs on the predictor build only: ``POLICY.MODE = 1``
traffic (loops that leave ghosts and train the counters and the loop detector) with a
reset while requests are queued and in flight (in the second round a response held by
back-pressure too); afterwards every register reads its reset value (``ACT_POLICY`` 0),
and after ``POLICY.MODE = 1`` is committed again the traffic matches a fresh model in the
mode, so no ghost, counter or selector state survives the reset (D10, spec-predictor.md
P2).

``predictor_nonblocking`` runs on the predictor build only: ``POLICY.MODE = 1`` with
``MODE.NONBLOCKING``, runtime-like loops with EVICTs back to back, every request taken or
dropped as D13's rule (its second form, the EVICT's FREE edges and the longer gap) says
(``verif.tb.front``), the drops of both kinds asserted, then refused writes in the
stream (``cocotb_nonblocking.refused_writes_in_stream``), then OBSERVEs and QUERYs to a
consumer that holds ``rsp.ready`` low for 100 cycles and then takes one response in
four (the credits' drops asserted); then the same traffic blocking.
"""

from __future__ import annotations

from cocotb.triggers import ClockCycles, RisingEdge
from cocotbext.axi import AxiResp

from regmap import REG
from verif.cocotb_nonblocking import evicts_behind_held_responses, refused_writes_in_stream
from verif.cocotb_random import Stimulus, random_config, reset_with_requests_in_flight
from verif.kvasu_tb import (CLEAR_ERROR, ENABLE, EVICT, EVICT_ANY, OBSERVE, QUERY,
                            ST_ERROR, KvAsuTB, ReqItem, tb_test)

POLICY_MODE = REG["POLICY"].mask("MODE")
NONBLOCKING = REG["MODE"].mask("NONBLOCKING")
P_ARTICLE = REG["P_POLICIES"].mask("ARTICLE")
P_PREDICTOR = REG["P_POLICIES"].mask("PREDICTOR")


async def _commit_resp(tb: KvAsuTB, **cfg):
    """Write the shadows ``cfg`` and commit; the write response code (the agent has already
    compared it with the mirror's)."""
    return await tb.commit(**cfg)


async def _observe_lines(tb: KvAsuTB, lines):
    for line in lines:
        await tb.observe(tb.space.addr(line))


async def _all_present(tb: KvAsuTB, lines) -> bool:
    present = []
    for line in lines:
        rsp = await tb.do(QUERY, tb.space.addr(line))
        present.append(rsp["present"])
    return all(present)


@tb_test()
async def predictor_registers(tb: KvAsuTB):
    """P_POLICIES, POLICY's commit (applied or refused), and NONBLOCKING beside it."""
    predictor = tb.predictor_build
    policies = await tb.read_reg("P_POLICIES")
    assert policies == (P_ARTICLE | P_PREDICTOR if predictor else P_ARTICLE), \
        f"P_POLICIES reads {policies:#x} on a build with predictor={predictor}"
    assert await tb.read_reg("ACT_POLICY") == 0
    lines = tb.spread_lines(min(6, tb.p.ENTRIES // 2))
    await _observe_lines(tb, lines)
    occupancy = await tb.read_reg("OCCUPANCY")
    assert occupancy == len(lines), occupancy
    w1 = tb.active["W1"]
    new_w1 = (w1 + 1) % (tb.p.WMAX + 1)
    cfg = {"W3": 0, "W2": 0, "W1": new_w1}

    if not predictor:
        # P2: on a build without the mode POLICY.MODE is a reserved bit.
        resp = await _commit_resp(tb, POLICY=POLICY_MODE, **cfg)
        assert resp == AxiResp.SLVERR, f"commit of POLICY.MODE = 1 answered {resp!r}"
        assert await tb.read_reg("STATUS") & ST_ERROR
        assert await tb.read_reg("POLICY") == POLICY_MODE       # the shadow keeps it
        assert await tb.read_reg("ACT_POLICY") == 0
        assert await tb.read_reg("ACT_W1") == w1, "the refused commit changed W1"
        assert await tb.read_reg("OCCUPANCY") == occupancy, "the refused commit flushed"
        assert await _all_present(tb, lines), "a line was lost by the refused commit"
        await tb.write_ctrl(CLEAR_ERROR | ENABLE)
        assert await tb.commit(POLICY=0) == AxiResp.OKAY
        assert not await tb.read_reg("STATUS") & ST_ERROR
        await tb.check_quiescent("article build, after the refused POLICY")
        tb.cov.hit("predictor.refused_on_article_build")
        return

    # The predictor build: MODE = 1 applies, with a flush.
    assert await _commit_resp(tb, POLICY=POLICY_MODE) == AxiResp.OKAY
    assert await tb.read_reg("ACT_POLICY") == POLICY_MODE
    assert await tb.read_reg("OCCUPANCY") == 0, "a change of POLICY.MODE must flush"
    assert tb.model.policy == "predictor"
    await _observe_lines(tb, lines)
    await tb.check_quiescent("predictor build, POLICY = 1")
    occupancy = await tb.read_reg("OCCUPANCY")

    # A reserved bit of POLICY: refused, nothing changes.
    resp = await _commit_resp(tb, POLICY=POLICY_MODE | 0x4, **cfg)
    assert resp == AxiResp.SLVERR, resp
    assert await tb.read_reg("ACT_W1") == w1
    await tb.write_ctrl(CLEAR_ERROR | ENABLE)

    # MODE.NONBLOCKING with POLICY.MODE = 1 (spec-predictor.md P2, D13): one commit sets
    # both, without a flush (the policy stays); the next clears NONBLOCKING alone.
    assert await _commit_resp(tb, POLICY=POLICY_MODE, MODE=NONBLOCKING, **cfg) == AxiResp.OKAY
    assert await tb.read_reg("ACT_MODE") == NONBLOCKING
    assert await tb.read_reg("ACT_POLICY") == POLICY_MODE
    assert await tb.read_reg("ACT_W1") == new_w1
    assert await tb.read_reg("OCCUPANCY") == occupancy, "a commit of MODE alone flushed"
    assert await _all_present(tb, lines)
    assert await _commit_resp(tb, MODE=0) == AxiResp.OKAY
    assert await tb.read_reg("ACT_MODE") == 0
    assert await tb.read_reg("ACT_POLICY") == POLICY_MODE
    await _observe_lines(tb, lines)
    await tb.check_quiescent("predictor build, after NONBLOCKING")
    await tb.check_all_registers()
    tb.cov.hit("predictor.nonblocking_committed")


class PredictorStimulus(Stimulus):
    """``Stimulus``'s colliding pools and gaps, plus runtime-like loops over more lines
    than the bank with an EVICT after most OBSERVEs (ghosts, revivals, both ghost frees of
    an EVICT, replacements of live lines)."""

    def loop(self, n: int) -> list[ReqItem]:
        tb, rng = self.tb, self.rng
        size = int(tb.p.ENTRIES * rng.choice((1.25, 1.5, 2)))
        lines = [tb.space.random_line() for _ in range(size)]
        out, k = [], 0
        while len(out) < n:
            out.append(ReqItem(OBSERVE, tb.space.addr(lines[k % size]), rng.randrange(4),
                               rng.choice((0, 0, 0, 1, 3))))
            k += 1
            if rng.random() < 0.6:
                for _ in range(rng.choice((1, 1, 1, 2, 3))):
                    out.append(ReqItem(rng.choice((EVICT, EVICT_ANY))))
            if rng.random() < 0.15:
                out.append(ReqItem(QUERY, tb.space.addr(rng.choice(lines)), 3))
        return out[:n]

    def mixed(self, n: int) -> list[ReqItem]:
        return self.loop(n) if self.rng.random() < 0.6 else self.items(n)


class EventCounter:
    """Counts, from the golden model's state before each accepted request, the predictor
    events the test must have exercised (its own checks are the scoreboard's)."""

    def __init__(self, tb: KvAsuTB):
        self.tb = tb
        self.revivals = 0          # OBSERVE of a ghost (P6.2)
        self.ghost_evicts = 0      # EVICT / EVICT_ANY that made a ghost (P8)
        self.max_gcount = 0
        self.accepted_in_mode = 0
        scoreboard = tb.scoreboard
        self._accept = scoreboard.accept
        scoreboard.accept = self.accept

    def accept(self, item, cycle):
        model = self.tb.model
        state = model._predictor
        if state is not None and item.op == OBSERVE:
            tag = self.tb.space.tag_of(item.addr)
            if any(t == tag and state.ghost[s] for s, t in enumerate(model._tag)):
                self.revivals += 1
        self._accept(item, cycle)
        if state is not None:
            self.accepted_in_mode += 1
            slot = self.tb.scoreboard.expected[-1][2]
            if item.op in (EVICT, EVICT_ANY) and slot["victim_valid"] and \
                    state.ghost[slot["slot"]]:
                self.ghost_evicts += 1
            self.max_gcount = max(self.max_gcount, state.gcount)


def _back_pressure(tb: KvAsuTB):
    """``rsp.ready`` per cycle: mostly ready, sometimes low for a stretch of cycles."""
    rng = tb.rng
    state = {"low": 0}

    def ready():
        if state["low"]:
            state["low"] -= 1
            return False
        if rng.random() < 0.02:
            state["low"] = rng.randint(5, 40)
            return False
        return rng.random() < 0.75
    return ready


async def _switch(tb: KvAsuTB, policy: int):
    assert await tb.commit(POLICY=policy) == AxiResp.OKAY
    tb.cov.hit(f"predictor.switch_to_{policy}")


def _not_a_predictor_build(cfg):
    return (None if (cfg.get("options") or {}).get("predictor") else
            "only on a build with CoreOptions.predictor")


@tb_test(timeout_ms=2000, skip=_not_a_predictor_build)
async def predictor_random(tb: KvAsuTB):
    """Seeded random traffic in POLICY.MODE = 1 with switches to 0 and back."""
    tb.log.info("predictor_random: seed %d", tb.seed)
    rng = tb.rng
    stim = PredictorStimulus(tb)
    events = EventCounter(tb)
    tb.driver.rsp_ready_fn = _back_pressure(tb)
    await _switch(tb, POLICY_MODE)
    assert tb.model.policy == "predictor"
    rounds = max(4, int(8 * tb.scale))
    switches = 0
    for r in range(rounds):
        stim.weights = stim.random_weights()
        n = rng.randint(300, 700)
        # the first round is a loop and the last switches if none did, so every seed
        # exercises ghosts, revivals and an in-flight switch
        tb.send_items(stim.loop(n) if r == 0 else stim.mixed(n))
        what = rng.random()
        if what < 0.25 or (r == rounds - 1 and not switches):
            # a switch while requests are in flight: D8 orders it between two of them
            if rng.random() < 0.3:
                await tb.idle(rng.randint(0, 30))
            await _switch(tb, 0)
            tb.send_items(stim.items(rng.randint(20, 80)))
            await _switch(tb, POLICY_MODE)
            switches += 1
        elif what < 0.45:
            cfg = random_config(tb)
            assert await tb.commit(**cfg) == AxiResp.OKAY
            if "HASH_SEED" in cfg:
                stim.rebuild()
        await tb.drain()
        await tb.check_quiescent(f"round {r}")
        assert await tb.read_reg("ACT_POLICY") == POLICY_MODE
        tb.model.check_invariants()           # P3, in the mode
        if rng.random() < 0.2:          # quiescent switch, then traffic in the article mode
            await _switch(tb, 0)
            tb.send_items(stim.items(rng.randint(50, 150)))
            await tb.drain()
            await tb.check_quiescent(f"round {r}, POLICY = 0")
            await _switch(tb, POLICY_MODE)
            switches += 1
    # A loop over a few lines inside the widest window: however the random windows fell,
    # the predictor trains towards reuse and OBSERVEs answer tlevel 3 (P5).
    assert await tb.commit(W1=tb.p.WMAX, W2=tb.p.WMAX, W3=tb.p.WMAX) == AxiResp.OKAY
    hot = [tb.space.random_line() for _ in range(4)]
    tb.send_items([ReqItem(OBSERVE, tb.space.addr(line), 3) for _ in range(24) for line in hot])
    await tb.drain()
    await tb.check_quiescent("end")
    stats = tb.model.stats
    tb.log.info("predictor_random: %d requests in the mode, %d revivals, %d ghost-making "
                "EVICTs, max gcount %d, %d switches, replacements %d, obs_t3 %d, longest "
                "rsp stall %d", events.accepted_in_mode, events.revivals, events.ghost_evicts,
                events.max_gcount, switches, stats.replacements, stats.obs_t3,
                tb.driver.max_stall)
    seen = {"ghost revivals": events.revivals, "ghost-making EVICTs": events.ghost_evicts,
            "replacements": stats.replacements, "tlevel 3 answers": stats.obs_t3,
            "POLICY switches": switches, "response stalls": tb.driver.max_stall}
    missing = [k for k, v in seen.items() if not v]
    assert not missing, f"not exercised: {missing} (seed {tb.seed})"
    for k, v in seen.items():
        tb.cov.hit(f"predictor.{k.replace(' ', '_')}", v)


@tb_test(timeout_ms=2000, skip=_not_a_predictor_build)
async def predictor_reset_mid_traffic(tb: KvAsuTB):
    """A reset in the middle of ``POLICY.MODE = 1`` traffic leaves the block as new: every
    register at its reset value (``POLICY.MODE`` 0), nothing tracked, no stale response,
    and the predictor's state (ghosts, ``PT`` / ``PA``, ``PSEL`` / ``GSEL``, the shadows)
    gone: traffic after ``POLICY.MODE = 1`` is committed again matches a fresh model's."""
    rng = tb.rng
    stim = PredictorStimulus(tb)
    for round_ in range(2):
        await _switch(tb, POLICY_MODE)
        held = round_ == 1
        tb.driver.rsp_ready_fn = _back_pressure(tb) if held else None
        accepted_before = tb.scoreboard.accepted
        tb.send_items(stim.loop(1500))          # more than the cycles to the reset
        for _ in range(200_000):
            if tb.scoreboard.accepted > accepted_before:
                break
            await RisingEdge(tb.dut.clk)
        assert tb.scoreboard.accepted > accepted_before, "no traffic before the reset"
        await ClockCycles(tb.dut.clk, rng.randint(200, 400))
        # then a cycle with ghosts on the lists (the model has taken every request
        # accepted so far): the loops leave them, and revive or free them again
        for _ in range(600):
            if tb.model._predictor.gcount > 0:
                break
            await RisingEdge(tb.dut.clk)
        assert tb.model.policy == "predictor" and tb.model._predictor.gcount > 0, \
            f"no ghost before the reset (seed {tb.seed})"
        if held:
            tb.driver.rsp_ready_fn = lambda: False      # the last 10 cycles: held
            await ClockCycles(tb.dut.clk, 10)
        outstanding = await reset_with_requests_in_flight(tb, rng.randint(1, 5), held)
        tb.log.info("predictor_reset_mid_traffic: round %d, reset with %d responses "
                    "outstanding", round_, outstanding)
        tb.driver.rsp_ready_fn = None
        assert tb.model.policy == "article" and tb.model.occupancy == 0
        await tb.check_all_registers()          # the mirror is fresh: reset values
        assert await tb.read_reg("ACT_POLICY") == 0
        await tb.check_quiescent("after the reset")
        # the lines of before the reset, in the policy the reset restores (the commit of
        # POLICY.MODE = 1 below flushes, which would hide what a reset left in the table)
        tb.send_items(stim.loop(200))
        await tb.drain()
        await tb.check_quiescent("article traffic after the reset")
        await _switch(tb, POLICY_MODE)
        tb.send_items(stim.loop(rng.randint(300, 500)) + stim.items(200))
        await tb.drain()
        await tb.check_quiescent("POLICY.MODE = 1 again")
        tb.model.check_invariants()
        tb.cov.hit("predictor.reset_mid_traffic", outstanding)


@tb_test(timeout_ms=2000, skip=_not_a_predictor_build)
async def predictor_nonblocking(tb: KvAsuTB):
    """MODE.NONBLOCKING with POLICY.MODE = 1 (D13 rule 2 in its second form): loops with
    EVICTs back to back and right behind OBSERVEs, every request decided by the front
    door (``verif.tb.front``) and every drop predicted; then the same traffic blocking, in
    which the RTL's ``ready`` must be the rule's. Predictor build only."""
    tb.log.info("predictor_nonblocking: seed %d", tb.seed)
    front = tb.use_front_door()
    assert await tb.commit(POLICY=POLICY_MODE, MODE=NONBLOCKING) == AxiResp.OKAY
    assert tb.model.policy == "predictor" and tb.model.nonblocking
    stim = PredictorStimulus(tb)
    rng = tb.rng

    def evicts_taken_and_dropped(n):
        """The loop, with an EVICT now and then after enough idle cycles to be taken and
        requests right behind it (dropped in its FREE edges)."""
        out = []
        for item in stim.loop(n):
            out.append(item)
            if item.op == OBSERVE and rng.random() < 0.2:
                out.append(ReqItem(rng.choice((EVICT, EVICT_ANY)), gap=rng.randint(6, 9)))
                out += rng.sample(stim.loop(4), rng.randint(1, 3))
        return out

    for _ in range(3):
        tb.send_items(evicts_taken_and_dropped(300))
        await tb.drain()
        await tb.check_quiescent("predictor, non-blocking")
    for reason in ("evict frees", "evict gap"):
        assert front.drop_reasons[reason] > 0, (reason, dict(front.drop_reasons))
    # Refused writes in the stream (an illegal commit, a read-only and an unmapped word),
    # with OBSERVEs and QUERYs back to back so that the commit's window drops some.
    await refused_writes_in_stream(tb, front, [
        ReqItem(OBSERVE if i % 2 else QUERY, tb.space.addr(tb.space.random_line()),
                rng.randrange(4)) for i in range(120)])
    # OBSERVEs and QUERYs back to back (none of them dropped by an EVICT's rules) to a
    # consumer that holds rsp.ready low for 100 cycles, then takes one response in four:
    # the credits run out (rule 3), whatever the seed.
    credit_drops = front.drop_reasons["credits"]
    held = iter(range(100))
    tb.driver.rsp_ready_fn = lambda: next(held, None) is None and rng.random() < 0.25
    tb.send_items([ReqItem(OBSERVE if i % 2 else QUERY, tb.space.addr(tb.space.random_line()),
                           rng.randrange(4)) for i in range(150)])
    await tb.drain()
    tb.driver.rsp_ready_fn = None
    await tb.check_quiescent("predictor, non-blocking, back-pressure")
    assert front.drop_reasons["credits"] > credit_drops, dict(front.drop_reasons)
    # EVICTs taken while responses wait in the FIFO (the FREEs' gap and PREDICTOR_GAP
    # covered): none of their responses lost
    lines = [tb.space.addr(tb.space.random_line()) for _ in range(8)]
    assert await evicts_behind_held_responses(tb, lines, front.rule.timing.predictor_gap + 3) == 8
    assert await tb.read_reg("STAT_REQ_DROPPED") == front.drops > 0
    assert await tb.commit(MODE=0) == AxiResp.OKAY
    tb.send_items(evicts_taken_and_dropped(300))
    await tb.drain()
    await tb.check_quiescent("predictor, blocking, ready by the rule")
    tb.log.info("predictor_nonblocking: %d drops %s", front.drops, dict(front.drop_reasons))
    for reason, count in front.drop_reasons.items():
        tb.cov.hit(f"predictor.nonblocking.drop.{reason.replace(' ', '_')}", count)
