# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.predictor.Guard (the ghost rule's ``eps`` and the guard of spec-predictor.md P6.2,
P12) against the golden model's ``ghost_rule_step``, ``guard_probe_observed``,
``guard_probe_dead`` and ``clock_advance``, cycle by cycle, with the events one request can
give together (a live OBSERVE of a probe; an EVICT of one; a replacement of one, which also
inserts; an insert; a ghost revival, an insert that may be a candidate) and flushes."""

import os
import random

import pytest
from amaranth.sim import Simulator

import golden_model.predictor as gm
from regmap import Params
from hdl.predictor import Guard

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261201"))

EVENTS = ["none", "reused", "evict_probe", "replace_probe", "insert", "revival",
          "candidate"]


@pytest.mark.parametrize("entries,dead_bias", [(16, 0.9), (256, 0.8), (2048, 0.95)])
def test_guard_matches_model(entries, dead_bias):
    p = Params(ENTRIES=entries, PROBE=4)
    seed = f"{SEED}-guard-{entries}-{dead_bias}"
    print(f"seed {seed}")
    rng = random.Random(seed)
    dut = Guard(p)
    seen = {"on": 0, "off": 0, "top": 0, "bottom": 0, "demote": 0, "probe": 0,
            "advance": 0, "late": 0}

    async def bench(ctx):
        gsel, epoch, einserts, eps = gm.GSEL_INIT, 0, 0, 0
        occupancy = rng.randrange(1, entries + 1)
        stamps = []                            # the stamps of the probes made so far
        for cycle in range(3000):
            if rng.random() < 0.05:
                occupancy = rng.randrange(0, entries)
            event = rng.choice(EVENTS)
            bias = dead_bias if cycle // 400 % 2 else 1 - dead_bias   # phases: both ends
            if event in ("reused", "evict_probe"):
                event = "evict_probe" if rng.random() < bias else "reused"
            flush = rng.random() < 0.002
            insert = event in ("replace_probe", "insert", "revival", "candidate")
            grows = insert and event != "replace_probe" and occupancy < entries
            occ_after = occupancy + grows
            r = rng.random()
            stamp = (epoch if r < 0.5 else rng.choice(stamps[-6:]) if stamps and r < 0.9
                     else rng.randrange(8))
            ctx.set(dut.insert.valid, insert)
            ctx.set(dut.insert.payload.occupancy, occupancy)
            ctx.set(dut.insert.payload.grows, grows)
            ctx.set(dut.candidate, event == "candidate")
            ctx.set(dut.reused, event == "reused")
            ctx.set(dut.stamp, stamp)
            ctx.set(dut.dead, event in ("evict_probe", "replace_probe"))
            ctx.set(dut.flush, flush)
            # The model, in the order of golden_model.predictor's request loop.
            n_gsel, n_epoch, n_einserts, n_eps = gsel, epoch, einserts, eps
            if event == "reused":
                n_gsel = gm.guard_probe_observed(gsel, epoch, stamp)
                seen["late"] += n_gsel > gsel
            elif event in ("evict_probe", "replace_probe"):
                n_gsel = gm.guard_probe_dead(gsel)
            if insert:
                n_epoch, n_einserts = gm.clock_advance(epoch, einserts, occ_after)
                seen["advance"] += n_epoch != epoch
            demote = probe = False
            if event == "candidate":
                n_eps, demote = gm.ghost_rule_step(eps, gsel)
                probe = not demote
                if probe:
                    stamps.append(n_epoch)
            assert ctx.get(dut.epoch_next) == n_epoch, cycle
            assert (ctx.get(dut.demote), ctx.get(dut.probe)) == (int(demote), int(probe)), cycle
            seen["demote"] += demote
            seen["probe"] += probe
            await ctx.tick()
            if flush:
                n_gsel, n_epoch, n_einserts, n_eps = gm.GSEL_INIT, 0, 0, 0
            gsel, epoch, einserts, eps = n_gsel, n_epoch, n_einserts, n_eps
            occupancy = occ_after
            got = (ctx.get(dut.gsel), ctx.get(dut.epoch), ctx.get(dut.einserts), ctx.get(dut.eps))
            assert got == (gsel, epoch, einserts, eps), cycle
            assert ctx.get(dut.rule_on) == int(gsel >= gm.GSEL_ON), cycle
            seen["on"] += gsel >= gm.GSEL_ON
            seen["off"] += gsel < gm.GSEL_ON
            seen["top"] += gsel == gm.GSEL_MAX
            seen["bottom"] += gsel == 0

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    print(seen)
    assert all(v > 0 for v in seen.values()), seen


def test_guard_reset_values():
    dut = Guard(Params())

    async def bench(ctx):
        assert (ctx.get(dut.gsel), ctx.get(dut.epoch), ctx.get(dut.einserts),
                ctx.get(dut.eps), ctx.get(dut.rule_on)) == (gm.GSEL_INIT, 0, 0, 0, 0)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def test_guard_params_validated():
    with pytest.raises(TypeError, match="params"):
        Guard({"ENTRIES": 16})
