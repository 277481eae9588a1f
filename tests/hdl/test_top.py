# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.top.KvAsu: Verilog generation (ports, module name, parameter errors) and a short
integration run through the register block (requests, OCCUPANCY, a CTRL flush)."""

import dataclasses
import re

import pytest
from amaranth.lib import wiring
from amaranth.sim import Simulator

import regmap
from regmap import Params
from hdl.core import CoreOptions, KvAsuCore, check_core_params
from hdl.generate import generate, main
from hdl.table import GEN_WIDTH
from hdl.top import KvAsu

from .harness import (BENCH_OPTIONS, OBSERVE, QUERY, ResetWrap, addr_of, decode, pulse_reset,
                      small_params)

BUSY = regmap.REG["STATUS"].mask("BUSY")

PORTS = {
    "clk": 1, "rst": 1, "req__valid": 1, "req__ready": 1, "rsp__valid": 1, "rsp__ready": 1,
    "axil__awaddr": 12, "axil__awprot": 3, "axil__awvalid": 1, "axil__awready": 1,
    "axil__wdata": 32, "axil__wstrb": 4, "axil__wvalid": 1, "axil__wready": 1,
    "axil__bresp": 2, "axil__bvalid": 1, "axil__bready": 1,
    "axil__araddr": 12, "axil__arprot": 3, "axil__arvalid": 1, "axil__arready": 1,
    "axil__rdata": 32, "axil__rresp": 2, "axil__rvalid": 1, "axil__rready": 1,
}


def module_ports(text, name="kv_asu"):
    body = text[text.index(f"module {name}("):]
    body = body[:body.index("endmodule")]
    ports = {}
    for m in re.finditer(r"^\s*(input|output)\s+(?:\[(\d+):0\]\s+)?(\w+);", body, re.M):
        ports[m.group(3)] = int(m.group(2) or 0) + 1
    return ports


def test_default_config_verilog(tmp_path):
    out = tmp_path / "kv_asu.v"
    assert main(["--out", str(out)]) == 0
    text = out.read_text()
    ports = module_ports(text)
    p = Params()
    expect = dict(PORTS)
    expect["req__payload"] = sum(w for _, w in regmap.request_fields(p))
    expect["rsp__payload"] = sum(w for _, w in regmap.response_fields(p))
    assert ports == expect
    assert (expect["req__payload"], expect["rsp__payload"]) == (68, 93)


def test_small_config_verilog():
    p = small_params()
    text = generate(p)
    ports = module_ports(text)
    assert ports["rsp__payload"] == sum(w for _, w in regmap.response_fields(p))


def test_parameter_errors(capsys):
    with pytest.raises(ValueError, match="ENTRIES / PROBE"):
        check_core_params(Params(PROBE=2))            # 1024 rows > 2**(7+2)
    with pytest.raises(ValueError, match="ENTRIES / PROBE"):
        KvAsuCore(Params(ENTRIES=64, PROBE=1, TS_WIDTH=3, TICK_SHIFT=0))
    check_core_params(Params())                       # 512 rows = 2**9: exactly fits
    assert main(["--out", "/dev/null", "--param", "PROBE=2"]) == 2
    assert "ENTRIES / PROBE" in capsys.readouterr().err
    assert main(["--out", "/dev/null", "--param", "BOGUS=2"]) == 2


async def axi_write(ctx, bus, addr, data):
    ctx.set(bus.awaddr, addr)
    ctx.set(bus.wdata, data)
    ctx.set(bus.wstrb, 0xF)
    ctx.set(bus.awvalid, 1)
    ctx.set(bus.wvalid, 1)
    ctx.set(bus.bready, 1)
    aw = w = False
    for _ in range(200):
        aw = aw or ctx.get(bus.awready)
        w = w or ctx.get(bus.wready)
        b = ctx.get(bus.bvalid)
        resp = ctx.get(bus.bresp)
        await ctx.tick()
        if aw:
            ctx.set(bus.awvalid, 0)
        if w:
            ctx.set(bus.wvalid, 0)
        if b:
            ctx.set(bus.bready, 0)
            return resp
    raise AssertionError("no B")


async def axi_read(ctx, bus, addr):
    ctx.set(bus.araddr, addr)
    ctx.set(bus.arvalid, 1)
    ctx.set(bus.rready, 1)
    for _ in range(200):
        ar = ctx.get(bus.arready)
        r = ctx.get(bus.rvalid)
        data = ctx.get(bus.rdata)
        await ctx.tick()
        if ar:
            ctx.set(bus.arvalid, 0)
        if r:
            ctx.set(bus.rready, 0)
            return data
    raise AssertionError("no R")


@pytest.mark.parametrize("options", [CoreOptions(hash_mul_stages=1),
                                     CoreOptions(compact=True, hash_mul_stages=1),
                                     CoreOptions(serial=True, hash_mul_stages=1)],
                         ids=["pipelined", "compact", "serial"])
def test_clear_stats_without_drain(options):
    """D12: a CTRL write of CLEAR_STATS alone does not drain the core. Requests stream in
    back to back (OBSERVE and QUERY); CLEAR_STATS is written in the middle; afterwards every
    statistic counts exactly the requests accepted after its B handshake (those before
    are still in the pipeline when it is applied: their increments are discarded), and
    `ready` was low only from the write's decode to its B handshake, a few cycles."""
    p = small_params()
    dut = KvAsu(p, options)
    log = {"acc": [], "b": None}

    async def stream(ctx):
        ctx.set(dut.rsp.ready, 1)
        k = 0
        while log["b"] is None or len(log["acc"]) < 60:
            ctx.set(dut.req.valid, 1)
            ctx.set(dut.req.payload.op, QUERY if k % 3 == 2 else OBSERVE)
            ctx.set(dut.req.payload.addr, addr_of(p, 1 + k % 7))
            if ctx.get(dut.req.ready):
                log["acc"].append((ctx.get(dut.timebase.cycle), k % 3 == 2))
                k += 1
            await ctx.tick()
        ctx.set(dut.req.valid, 0)
        log["done"] = True

    async def manager(ctx):
        await ctx.tick().repeat(40)
        ctrl = regmap.REG["CTRL"]
        assert await axi_write(ctx, dut.axil, ctrl.offset,
                               ctrl.mask("ENABLE") | ctrl.mask("CLEAR_STATS")) == 0
        log["b"] = ctx.get(dut.timebase.cycle) - 1          # the B handshake's cycle
        while not log.get("done"):
            await ctx.tick()
        await ctx.tick().repeat(dut.latency + 4)
        after = [q for c, q in log["acc"] if c > log["b"]]
        log["observes"] = await axi_read(ctx, dut.axil, regmap.REG["STAT_OBSERVES"].offset)
        log["queries"] = await axi_read(ctx, dut.axil, regmap.REG["STAT_QUERIES"].offset)
        log["expected"] = (sum(not q for q in after), sum(after))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(stream)
    sim.add_testbench(manager)
    sim.run()
    assert (log["observes"], log["queries"]) == log["expected"]
    assert log["expected"][0] > 0 and any(c < log["b"] for c, _ in log["acc"])
    if not options.serial:
        cycles = [c for c, _ in log["acc"]]
        lost = cycles[-1] - cycles[0] + 1 - len(cycles)
        print(f"{options}: {lost} not-ready cycles across a CLEAR_STATS write")
        assert lost <= 4, lost


def test_top_integration():
    p = small_params()
    dut = KvAsu(p)
    got = []

    async def bench(ctx):
        ctx.set(dut.rsp.ready, 1)
        for tag in (1, 2, 3, 1):
            ctx.set(dut.req.valid, 1)
            ctx.set(dut.req.payload.op, OBSERVE)
            ctx.set(dut.req.payload.addr, addr_of(p, tag))
            while not ctx.get(dut.req.ready):
                await ctx.tick()
            await ctx.tick()
        ctx.set(dut.req.valid, 0)
        for _ in range(dut.latency + 2):
            if ctx.get(dut.rsp.valid):
                got.append(decode(p, ctx.get(dut.rsp.payload)))
            await ctx.tick()
        assert await axi_read(ctx, dut.axil, regmap.REG["OCCUPANCY"].offset) == 3
        assert await axi_read(ctx, dut.axil, regmap.REG["STAT_OBSERVES"].offset) == 4
        ctrl = regmap.REG["CTRL"]
        assert await axi_write(ctx, dut.axil, ctrl.offset,
                               ctrl.mask("ENABLE") | ctrl.mask("FLUSH")) == 0
        # D12: the flush is a generation step, no clear sweep: ready at once, never BUSY
        assert ctx.get(dut.req.ready)
        assert not await axi_read(ctx, dut.axil, regmap.REG["STATUS"].offset) & BUSY
        assert await axi_read(ctx, dut.axil, regmap.REG["OCCUPANCY"].offset) == 0
        ctx.set(dut.req.valid, 1)
        ctx.set(dut.req.payload.op, QUERY)
        ctx.set(dut.req.payload.addr, addr_of(p, 1))
        while not ctx.get(dut.req.ready):
            await ctx.tick()
        await ctx.tick()
        ctx.set(dut.req.valid, 0)
        for _ in range(dut.latency + 2):
            if ctx.get(dut.rsp.valid):
                got.append(decode(p, ctx.get(dut.rsp.payload)))
            await ctx.tick()

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert [r["present"] for r in got] == [0, 0, 0, 1, 0]
    assert got[3]["count"] == 2 and got[4]["op"] == QUERY


def _ice40_pipeline():
    """The shipped iCE40 build's options (its compact pipeline, two-stage statistics
    engine and LUT hash), for the small parameters."""
    from fpga.flow import TARGETS
    return TARGETS["ice40"].options


@pytest.mark.parametrize("options", [None, CoreOptions(protection="none"), "ice40"],
                         ids=["default", "unprotected", "ice40"])
def test_reset_mid_run_leaves_a_clean_block(options):
    """D10: a synchronous reset with responses pending and lines tracked, on the default
    (protected) build, the unprotected one and the iCE40 build's pipeline."""
    p = small_params()
    dut = KvAsu(p, _ice40_pipeline() if options == "ice40" else options)
    w = ResetWrap(dut)
    got = []

    async def put(ctx, op, tag):
        ctx.set(dut.req.valid, 1)
        ctx.set(dut.req.payload.op, op)
        ctx.set(dut.req.payload.addr, addr_of(p, tag))
        while not ctx.get(dut.req.ready):
            await ctx.tick()
        await ctx.tick()
        ctx.set(dut.req.valid, 0)

    async def bench(ctx):
        ctx.set(dut.rsp.ready, 0)
        for tag in range(1, 6):
            await put(ctx, OBSERVE, tag)
        for _ in range(dut.latency + 2):
            await ctx.tick()
        assert await axi_read(ctx, dut.axil, regmap.REG["OCCUPANCY"].offset) == 5
        assert ctx.get(dut.rsp.valid)
        await pulse_reset(ctx, w)
        assert not ctx.get(dut.rsp.valid)             # pending responses dropped
        assert ctx.get(dut.timebase.cycle) == 0
        # D12: the reset starts a new table generation, so `ready` is high at once (the
        # valid bits in block RAM are not cleared; the old generation's slots read empty)
        assert ctx.get(dut.req.ready)
        assert await axi_read(ctx, dut.axil, regmap.REG["OCCUPANCY"].offset) == 0
        assert not await axi_read(ctx, dut.axil, regmap.REG["STATUS"].offset) & BUSY
        assert await axi_read(ctx, dut.axil, regmap.REG["STAT_OBSERVES"].offset) == 0
        ctx.set(dut.rsp.ready, 1)
        for tag in (1, 2):
            await put(ctx, QUERY, tag)
        await put(ctx, 3, 0)                          # EVICT_ANY on the empty list
        for _ in range(dut.latency + 2):
            if ctx.get(dut.rsp.valid):
                got.append(decode(p, ctx.get(dut.rsp.payload)))
            await ctx.tick()

        # resets 2 .. 2**GEN_WIDTH - 1 are generation steps too (each with a line tracked
        # before it and gone after it); reset 2**GEN_WIDTH has used every generation and
        # sweeps: `ready` low for ENTRIES / PROBE cycles
        sweep = p.ENTRIES // p.PROBE
        for n in range(2, 2 ** GEN_WIDTH + 2):
            await put(ctx, OBSERVE, 7)
            for _ in range(dut.latency + 2):
                if ctx.get(dut.rsp.valid):
                    got.append(decode(p, ctx.get(dut.rsp.payload)))
                await ctx.tick()
            ctx.set(w.cd.rst, 1)
            for _ in range(1 + n % 3):                # held 1..3 cycles: counts once
                await ctx.tick()
            ctx.set(w.cd.rst, 0)
            if n % 2 ** GEN_WIDTH == 0:
                for k in range(sweep):
                    assert not ctx.get(dut.req.ready), (n, k)
                    await ctx.tick()
            assert ctx.get(dut.req.ready), n
            await put(ctx, QUERY, 7)
            for _ in range(dut.latency + 2):
                if ctx.get(dut.rsp.valid):
                    got.append(decode(p, ctx.get(dut.rsp.payload)))
                await ctx.tick()

    sim = Simulator(w)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert [(r["op"], r["present"], r["victim_valid"]) for r in got[:3]] == [
        (1, 0, 0), (1, 0, 0), (3, 0, 0)]
    # each OBSERVE of line 7 inserts it (present 0), each QUERY after the reset misses it
    assert [(r["op"], r["present"], r["tracked"]) for r in got[3:]] == [
        (0, 0, 1), (1, 0, 0)] * 2 ** GEN_WIDTH


@pytest.mark.parametrize("serial", [False, True])
@pytest.mark.parametrize("compact", [False, True])
def test_every_variant_converts(serial, compact):
    """The simulator tolerates structural combinational loops that Verilog conversion
    refuses: convert every core variant of a small build."""
    text = generate(small_params(), CoreOptions(serial=serial, compact=compact))
    assert "module kv_asu(" in text


def test_core_options_are_validated_and_frozen():
    opts = CoreOptions(hash_lut_cross_products=["c2", "c1"])
    assert opts.hash_lut_cross_products == frozenset({"c1", "c2"})
    assert (opts.m_stage, opts.split_evaluation, opts.lru_registered, opts.stats_stages) == \
        (True, True, True, 3)
    compact = CoreOptions(compact=True)
    assert (compact.m_stage, compact.split_evaluation, compact.lru_registered,
            compact.stats_stages) == (False, False, False, 2)
    with pytest.raises(dataclasses.FrozenInstanceError):
        opts.compact = True
    for bad, exc in [(dict(serial=1), TypeError), (dict(compact="yes"), TypeError),
                     (dict(hash_mul_stages=4), ValueError), (dict(hash_mul_stages=True), TypeError),
                     (dict(hash_lut_cross_products="c1"), TypeError),
                     (dict(hash_lut_cross_products={"c9"}), ValueError),
                     (dict(tag_compare="lut"), ValueError),
                     (dict(compact=True, tag_compare="ccu2c"), ValueError)]:
        with pytest.raises(exc):
            CoreOptions(**bad)
    with pytest.raises(TypeError):
        KvAsu(small_params(), {"compact": True})
    # The latency and EVICT gap each pipeline documents (docs/rtl.md).
    default_core, compact_core = KvAsu().core, KvAsu(None, compact).core
    assert (default_core.latency, default_core.evict_gap,
            default_core.evict_evict_gap) == (19, 6, 3)
    assert (compact_core.latency, compact_core.evict_gap,
            compact_core.evict_evict_gap) == (16, 2, 2)
    assert KvAsu(None, CoreOptions(hash_mul_stages=3)).latency == 23


def test_default_build_resets_mode_to_blocking():
    """D13 "The reset mode": the default build reads MODE = ACT_MODE = 0 after power-up and
    after a reset, also after a commit of NONBLOCKING before the reset."""
    p = small_params()
    dut = KvAsu(p, CoreOptions(hash_mul_stages=1))
    assert dut.options.mode_reset == 0
    wrap = ResetWrap(dut)
    seen = []

    async def bench(ctx):
        for _ in range(2):
            seen.append((await axi_read(ctx, dut.axil, regmap.REG["MODE"].offset),
                         await axi_read(ctx, dut.axil, regmap.REG["ACT_MODE"].offset)))
            assert await axi_write(ctx, dut.axil, regmap.REG["MODE"].offset, 1) == 0
            ctrl = regmap.REG["CTRL"]
            assert await axi_write(ctx, dut.axil, ctrl.offset,
                                   ctrl.mask("ENABLE") | ctrl.mask("COMMIT")) == 0
            seen.append(await axi_read(ctx, dut.axil, regmap.REG["ACT_MODE"].offset))
            await pulse_reset(ctx, wrap)

    sim = Simulator(wrap)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert seen == [(0, 0), 1, (0, 0), 1]


def test_mode_reset_nonblocking_drops_the_post_reset_sweep():
    """D13 "The reset mode", rule 5: with ``CoreOptions(mode_reset=1)`` MODE and ACT_MODE
    read 1 after reset, and across the resets up to the one that wraps the generations
    (D12) `req.ready` is 1 in every cycle with `rst` low; the requests presented back to
    back from cycle 0 after the wrapping reset are dropped during its ENTRIES / PROBE sweep
    cycles (no response, counted in STAT_REQ_DROPPED) and taken after it, as the golden
    model's admission rule predicts, and every response is the golden model's."""
    from golden_model import KvAsuModel
    from golden_model.admission import Admission, BuildTiming

    p = small_params(ENTRIES=64)
    rows = p.ENTRIES // p.PROBE
    dut = KvAsu(p, CoreOptions(hash_mul_stages=1, mode_reset=1))
    wrap = ResetWrap(dut)
    rule = Admission(BuildTiming(latency=dut.latency, evict_gap=dut.core.evict_gap,
                                 evict_evict_gap=dut.core.evict_evict_gap, rows=rows))
    log = {"ready_low": [], "reads": [], "got": [], "expected": []}
    n = rows + 40

    async def bench(ctx):
        ctx.set(dut.rsp.ready, 1)
        for k in range(1, 2 ** GEN_WIDTH):         # generation steps, no sweep
            await pulse_reset(ctx, wrap)
            for _ in range(3):
                if not ctx.get(dut.req.ready):
                    log["ready_low"].append((k, ctx.get(dut.timebase.cycle)))
                await ctx.tick()
        await pulse_reset(ctx, wrap)              # reset 2 ** GEN_WIDTH wraps and sweeps
        model = KvAsuModel(p, mode_reset=1)
        rule.reset(sweeps=True)
        # presented from the first cycle after the wrapping reset, back to back
        for i in range(n + dut.latency + 4):
            edge = ctx.get(dut.timebase.cycle)
            assert edge == i
            if not ctx.get(dut.req.ready):
                log["ready_low"].append(("sweep", edge))
            op = None
            if i < n:
                op = QUERY if i % 3 == 2 else OBSERVE
                addr = addr_of(p, 1 + i % 11)
                ctx.set(dut.req.valid, 1)
                ctx.set(dut.req.payload.op, op)
                ctx.set(dut.req.payload.addr, addr)
            else:
                ctx.set(dut.req.valid, 0)
            if ctx.get(dut.rsp.valid):
                log["got"].append(decode(p, ctx.get(dut.rsp.payload)))
            if rule.rsp_offered(edge) != bool(ctx.get(dut.rsp.valid)):
                log.setdefault("rsp_valid_mismatch", []).append(edge)
            taken = rule.step(edge, op, True, nonblocking=model.nonblocking)
            if taken:
                log["expected"].append(model.request(edge, op, addr).as_dict())
            elif taken is False:
                model.drop(edge)
            await ctx.tick()
        for name in ("MODE", "ACT_MODE", "STAT_REQ_DROPPED", "STAT_OBSERVES",
                     "STAT_QUERIES"):
            log["reads"].append(await axi_read(ctx, dut.axil, regmap.REG[name].offset))
        log["model"] = model.stats

    sim = Simulator(wrap)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    stats = log["model"]
    print(f"rows {rows}: taken {rule.taken}, dropped {rule.dropped} of {n}")
    assert log["ready_low"] == []
    assert "rsp_valid_mismatch" not in log, log["rsp_valid_mismatch"]
    assert (rule.dropped, rule.taken) == (rows, n - rows)
    assert stats.req_dropped == rows
    assert log["reads"] == [1, 1, rows, stats.observes, stats.queries]
    assert len(log["got"]) == len(log["expected"]) == n - rows
    fields = list(log["expected"][0])
    assert [{k: g[k] for k in fields} for g in log["got"]] == log["expected"]
    # a dropped request has no effect: the first taken OBSERVE of each line inserts it
    assert log["got"][0]["present"] == 0


def test_mode_reset_option_is_validated():
    from hdl.regs import KvAsuRegisters

    with pytest.raises(ValueError, match="reserved"):
        CoreOptions(mode_reset=2)
    with pytest.raises(TypeError, match="mode_reset"):
        CoreOptions(mode_reset=True)
    with pytest.raises(ValueError, match="reserved"):
        KvAsuRegisters(small_params(), mode_reset=0x80)
    assert CoreOptions(mode_reset=1).as_dict()["mode_reset"] == 1
    assert main(["--mode-reset", "2", "--out", "/dev/null"]) == 2


def test_generate_mode_reset_flag(tmp_path):
    """``hdl.generate --mode-reset 1``: the shadow and committed MODE flip-flops reset to 1
    (their initial values and their reset values); nothing else of the netlist changes."""
    params = [f"{k}={v}" for k, v in dataclasses.asdict(small_params()).items()]
    texts = {}
    for mode in (0, 1):
        out = tmp_path / f"kv_asu_{mode}.v"
        assert main(["--out", str(out), "--mode-reset", str(mode),
                     *[a for p in params for a in ("--param", p)]]) == 0
        texts[mode] = [line for line in out.read_text().splitlines()
                       if not line.startswith("//")]
    changed = [(a, b) for a, b in zip(texts[0], texts[1]) if a != b]
    assert len(texts[0]) == len(texts[1]) and changed
    assert ("  reg nonblocking = 1'h0;", "  reg nonblocking = 1'h1;") in changed
    assert ("  reg [31:0] shadow_mode = 32'd0;", "  reg [31:0] shadow_mode = 32'd1;") in changed
    assert len(changed) == 4, changed           # and the two reset assignments


def test_generate_protection_flag(tmp_path):
    """``hdl.generate --protection none`` builds the unprotected core: fewer block-RAM bits
    than the default (``auto``: SECDED or parity per memory), and an unknown code is refused."""
    params = [a for k, v in dataclasses.asdict(small_params()).items()
              for a in ("--param", f"{k}={v}")]
    texts = {}
    for code in ("auto", "none"):
        out = tmp_path / f"kv_asu_{code}.v"
        assert main(["--out", str(out), "--protection", code, *params]) == 0
        texts[code] = out.read_text()
    assert texts["auto"] != texts["none"]
    # the coded words are wider: count the declared memory bits of each netlist
    def memory_bits(text):
        bits = 0
        for width, depth in re.findall(r"reg \[(\d+):0\] \S+ \[(\d+):0\];", text):
            bits += (int(width) + 1) * (int(depth) + 1)
        return bits
    assert memory_bits(texts["auto"]) > memory_bits(texts["none"]) > 0
    with pytest.raises(SystemExit):
        main(["--out", str(tmp_path / "bad.v"), "--protection", "ecc"])


# The link between the register block and the core, as hdl.top wires it: the register
# block's port -> the core's (each the other's direction, the same shape).
CONTROL_LINK = {"cfg": "cfg", "enable": "enable", "nonblocking": "nonblocking",
                "hold": "hold", "flush": "flush", "core_idle": "idle",
                "core_flushing": "flushing", "occupancy": "occupancy",
                "stat_inc": "stat_inc"}
PREDICTOR_LINK = {"policy": "policy"}
PROTECTED_LINK = {"err_start": "err_started", "err_corrected": "err_corrected",
                  "err_mem": "err_mem", "err_addr": "err_addr", "recovering": "recovering"}
# Ports outside the link: the buses, the cycle counter both take from the timebase, and the
# core's error signals that stay inside it.
REGS_OWN = {"axil", "cycle"}
CORE_OWN = {"req", "rsp", "cycle", "err_uncorrectable", "recovery_start"}


@pytest.mark.parametrize("options", [CoreOptions(), CoreOptions(protection="none"),
                                     CoreOptions(protection="none", predictor=True),
                                     CoreOptions(compact=True)],
                         ids=["protected", "unprotected", "predictor", "compact"])
def test_core_and_register_ports_mirror_each_other(options):
    """The register block's signature and the core's are written apart (their names differ:
    ``core_idle`` / ``idle``, ...): every port of the link is on both sides, with the same
    shape and opposite directions, and neither side has a port the link lacks."""
    top = KvAsu(small_params(), options)
    regs = top.regs.signature.members
    core = top.core.signature.members
    link = dict(CONTROL_LINK)
    if options.predictor:
        link.update(PREDICTOR_LINK)
    if options.protected:
        link.update(PROTECTED_LINK)
    assert set(regs) - REGS_OWN == set(link)
    assert set(core) - CORE_OWN == set(link.values())
    for regs_name, core_name in link.items():
        r, c = regs[regs_name], core[core_name]
        assert r.is_port and c.is_port, regs_name
        assert r.flow == c.flow.flip(), regs_name
        assert r.shape == c.shape, regs_name
    for name in ("cycle",):
        assert regs[name].flow == core[name].flow == wiring.In
        assert regs[name].shape == core[name].shape


@pytest.mark.parametrize("action", ["COMMIT", "FLUSH"])
def test_a_reset_while_a_ctrl_action_waits_abandons_it(action):
    """D10 with D8: a COMMIT (of a new C3) or a FLUSH written while requests are in flight
    waits for them, with ``req.ready`` low and no write response yet; a reset in that wait
    abandons it: no write response ever comes (not even to a manager that keeps BREADY
    high), the configuration is the reset one, nothing is tracked, and the block then takes
    requests and a new commit as a new block does."""
    p = small_params()
    dut = KvAsu(p, BENCH_OPTIONS)
    w = ResetWrap(dut)
    reg, ctrl = regmap.REG, regmap.REG["CTRL"]
    c3_reset = p.defaults["C3"]
    c3_new = c3_reset + 1 if c3_reset < p.COUNT_MAX else c3_reset - 1
    seen = {}

    async def bench(ctx):
        bus = dut.axil
        ctx.set(dut.rsp.ready, 1)
        assert await axi_write(ctx, bus, reg["C3"].offset, c3_new) == 0
        ctx.set(dut.req.valid, 1)                       # OBSERVEs back to back
        for k in range(6):
            ctx.set(dut.req.payload.op, OBSERVE)
            ctx.set(dut.req.payload.addr, addr_of(p, 1 + k))
            await ctx.tick()
        ctx.set(dut.req.valid, 0)
        ctx.set(bus.awaddr, ctrl.offset)                # the action, requests in flight
        ctx.set(bus.wdata, ctrl.mask("ENABLE") | ctrl.mask(action))
        ctx.set(bus.wstrb, 0xF)
        ctx.set(bus.awvalid, 1)
        ctx.set(bus.wvalid, 1)
        ctx.set(bus.bready, 1)
        aw = wr = False
        while not (aw and wr):
            aw = aw or ctx.get(bus.awready)
            wr = wr or ctx.get(bus.wready)
            await ctx.tick()
            ctx.set(bus.awvalid, 0 if aw else 1)
            ctx.set(bus.wvalid, 0 if wr else 1)
        await ctx.tick()
        seen["waiting"] = (not ctx.get(bus.bvalid), not ctx.get(dut.req.ready))
        await pulse_reset(ctx, w)                       # while the action waits
        stray = 0
        for _ in range(dut.latency + 20):               # BREADY still high
            stray += ctx.get(bus.bvalid)
            await ctx.tick()
        ctx.set(bus.bready, 0)
        seen["stray_b"] = stray
        seen["after"] = {name: await axi_read(ctx, bus, reg[name].offset)
                         for name in ("ACT_C3", "C3", "OCCUPANCY", "STATUS", "STAT_OBSERVES")}
        seen["ready"] = ctx.get(dut.req.ready)
        assert await axi_write(ctx, bus, reg["C3"].offset, c3_new) == 0
        assert await axi_write(ctx, bus, ctrl.offset,
                               ctrl.mask("ENABLE") | ctrl.mask("COMMIT")) == 0
        seen["committed"] = await axi_read(ctx, bus, reg["ACT_C3"].offset)

    sim = Simulator(w)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert seen["waiting"] == (True, True), seen        # the action was still waiting
    assert seen["stray_b"] == 0, seen
    assert seen["after"] == {"ACT_C3": c3_reset, "C3": c3_reset, "OCCUPANCY": 0, "STATUS": 0,
                             "STAT_OBSERVES": 0}, seen
    assert seen["ready"] and seen["committed"] == c3_new, seen
