# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""D12's count of flushes and resets, and a reset during a clear sweep (hdl.top.KvAsu).

docs/spec-decisions.md D12: the table has 16 generations (``GEN_WIDTH`` 4 bits); counting
the flushes and resets since power-up from 1, and not counting a reset during a sweep, the
n-th runs the clear sweep exactly when n is a multiple of 16; a reset's sweep runs in
cycles ``0 .. ENTRIES / PROBE - 1`` after it, with ``req.ready`` low, which rises in cycle
``ENTRIES / PROBE``; "a reset while a sweep runs counts nothing and restarts the sweep,
which again ends in cycle ``ENTRIES / PROBE`` after it"; a reset held for several cycles
counts once. D8/D12: a flush that does not sweep leaves ``req.ready`` high after its
write response and ``STATUS.BUSY`` 0 for a read issued after it.

The expected numbers below come from those sentences (``GENERATIONS``, ``ROWS``), not from
the RTL's constants. The bench (amaranth.sim, the small build with 64 entries: 16 sweep
rows) drives ``rst`` through ``ResetWrap`` and CTRL.FLUSH through AXI4-Lite, and measures,
edge by edge, how long ``req.ready`` stays low after each reset (and the cycle counter,
which restarts at 0 at the first edge with ``rst`` low, D3).
"""

from amaranth.sim import Simulator

import regmap
from hdl.core import CoreOptions
from hdl.top import KvAsu

from .harness import ResetWrap, small_params
from .test_top import axi_read, axi_write

#: D12: 4-bit generations, so 16: every 16th flush or reset since power-up sweeps.
GENERATIONS = 16
PARAMS = small_params(ENTRIES=64)
#: D10 / D12: the clear sweep writes one row per cycle: ENTRIES / PROBE cycles.
ROWS = PARAMS.ENTRIES // PARAMS.PROBE
assert ROWS == 16

CTRL = regmap.REG["CTRL"]
FLUSH = CTRL.mask("ENABLE") | CTRL.mask("FLUSH")
STATUS = regmap.REG["STATUS"]
BUSY = STATUS.mask("BUSY")

#: The counted flushes and resets (1-based, since power-up) that are CTRL flushes; the
#: others are resets, held 1, 2 or 3 cycles (a longer reset counts once).
FLUSHES = {4, 9, 13, 20, 27, 32, 41}


def sweeps(n):
    """D12: the n-th flush or reset since power-up sweeps iff n is a multiple of 16."""
    return n % GENERATIONS == 0


def run(interrupts):
    """The flushes and resets 1 .. 3 * GENERATIONS + 1 since power-up. ``interrupts``:
    ``{n: [k, ...]}``: during the sweep of the n-th (a reset's), a reset at sweep row k
    (``rst`` high at the k-th edge after the reset, rows 0 .. k-1 written), then another at
    row k of the restarted sweep, ...; during the sweep of a flush (``n`` in ``FLUSHES``), a
    reset k edges after the first edge after its write response. Returns the log of what
    was measured."""
    dut = KvAsu(PARAMS, CoreOptions(hash_mul_stages=1))
    wrap = ResetWrap(dut)
    log = {"events": [], "interrupts": [], "errors": []}

    async def bench(ctx):
        ctx.set(dut.rsp.ready, 1)
        ctx.set(dut.req.valid, 0)

        async def reset(hold):
            ctx.set(wrap.cd.rst, 1)
            for _ in range(hold):
                await ctx.tick()
            ctx.set(wrap.cd.rst, 0)

        async def low_edges(after_reset):
            """Edges from now on with req.ready low, up to the first with it high (at
            most 4 * ROWS). After a reset, also checks that the cycle counter reads the
            edge's number (D3: 0 at the first edge with rst low)."""
            n = 0
            while not ctx.get(dut.req.ready) and n <= 4 * ROWS:
                if after_reset and ctx.get(dut.timebase.cycle) != n:
                    log["errors"].append(("cycle", ctx.get(dut.timebase.cycle), n))
                n += 1
                await ctx.tick()
            return n

        async def low_for(k):
            """k edges, each with req.ready low (the sweep's rows 0 .. k-1); returns how
            many of them had it high."""
            high = 0
            for _ in range(k):
                high += bool(ctx.get(dut.req.ready))
                await ctx.tick()
            return high

        for n in range(1, 3 * GENERATIONS + 2):
            if n in FLUSHES:
                assert await axi_write(ctx, dut.axil, CTRL.offset, FLUSH) == 0   # OKAY
                ready = ctx.get(dut.req.ready)            # the cycle after the B handshake
                if n in interrupts:
                    # a reset while the flush's sweep runs: counts nothing, restarts it
                    (k,) = interrupts[n]
                    high = await low_for(k)
                    await reset(1)
                    log["interrupts"].append((n, k, high, await low_edges(True)))
                low = await low_edges(False)
                busy = await axi_read(ctx, dut.axil, STATUS.offset) & BUSY
                log["events"].append((n, "flush", int(ready), low, busy))
            else:
                await reset(1 + n % 3)
                for k in interrupts.get(n, ()):
                    high = await low_for(k)
                    await reset(1 + k % 2)
                    log["interrupts"].append((n, k, high, None))
                log["events"].append((n, "reset", await low_edges(True)))
            for _ in range(2):
                await ctx.tick()

    sim = Simulator(wrap)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return log


def expected(interrupts):
    """What D12 says ``run(interrupts)`` measures."""
    events, inter = [], []
    for n in range(1, 3 * GENERATIONS + 2):
        if n in FLUSHES:
            if n in interrupts:
                # the reset restarts the sweep: ROWS cycles after it, then nothing left
                inter.append((n, interrupts[n][0], 0, ROWS))
                events.append((n, "flush", 0, 0, 0))
            else:
                assert not sweeps(n), "a flush that sweeps is interrupted here"
                events.append((n, "flush", 1, 0, 0))
        else:
            inter += [(n, k, 0, None) for k in interrupts.get(n, ())]
            events.append((n, "reset", ROWS if sweeps(n) else 0))
    return events, inter


def test_reset_during_sweep_counts_nothing_and_restarts_it():
    """Resets and flushes 1 .. 49 since power-up. The 16th (a reset) sweeps, and is
    interrupted by a reset (held 2 cycles) at sweep row 1 and then by another at row
    ROWS - 1 of the restarted sweep, its last; the 32nd (a flush) sweeps and is interrupted
    by a reset at the first edge after its write response (the sweep is running then:
    ``req.ready`` is low); the 48th (a reset) sweeps and is interrupted by a reset at row
    ROWS / 2. After every interrupting reset the sweep starts again: ``req.ready`` low for
    exactly ROWS edges, high at edge ROWS (and the cycle counter restarts, D3). The
    interrupting resets count nothing: exactly the 16th, 32nd and 48th counted ones sweep,
    the 15 between each two of them and the 49th do not."""
    interrupts = {16: [1, ROWS - 1], 32: [0], 48: [ROWS // 2]}
    assert all(sweeps(n) for n in interrupts) and 32 in FLUSHES
    assert not {16, 48} & FLUSHES
    log = run(interrupts)
    assert log["errors"] == [], log["errors"]
    want_events, want_inter = expected(interrupts)
    print("measured:", log)                # shown if it fails
    assert log["events"] == want_events
    assert log["interrupts"] == want_inter
