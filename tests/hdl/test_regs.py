# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""hdl.regs.KvAsuRegisters in amaranth.sim, driven by a small AXI4-Lite manager written here.

Expected values come from the register map (``regmap``), never from the RTL's own tables.
"""

import os
import random

import pytest
from amaranth import Shape
from amaranth.lib import wiring
from amaranth.sim import Simulator

import regmap
from regmap import MEM_IDS, REG, REGISTERS, STAT_NAMES, Params
from regmap.headers import reset_value
from hdl.axil import AxiLiteSignature, AxiLiteSubordinate, AxiResp
from hdl.regs import KvAsuRegisters
from hdl.regs.observe import RegisterObservationSignature
from hdl.regs.kinds import register_kind

SEED = int(os.environ.get("KV_ASU_TEST_SEED", "20261129"))
OKAY, SLVERR, DECERR = AxiResp.OKAY.value, AxiResp.SLVERR.value, AxiResp.DECERR.value
TIMEOUT = 200  # cycles any single handshake may take before the test calls it a hang

CTRL = REG["CTRL"].offset
STATUS = REG["STATUS"].offset
ENABLE = REG["CTRL"].mask("ENABLE")
FLUSH = REG["CTRL"].mask("FLUSH")
CLEAR_STATS = REG["CTRL"].mask("CLEAR_STATS")
COMMIT = REG["CTRL"].mask("COMMIT")
CLEAR_ERROR = REG["CTRL"].mask("CLEAR_ERROR")
BUSY = REG["STATUS"].mask("BUSY")
ERROR = REG["STATUS"].mask("ERROR")

SMALL = Params(ENTRIES=64, PROBE=4, ADDR_WIDTH=32, LINE_SHIFT=6, COUNT_WIDTH=2, TS_WIDTH=6,
               TICK_SHIFT=0)

MAPPED = {off for reg in REGISTERS for off in reg.offsets}
#: The first word after the statistics: unmapped until a statistic is added there.
AFTER_STATS = regmap.STAT_REGISTERS[-1].offsets[-1] + 4
UNMAPPED = [0x030, 0x038, 0x03C, 0x04C, 0x058, 0x05C, 0x0BC, 0x0FC, AFTER_STATS, 0x800, 0xFFC]


def test_unmapped_words_are_unmapped():
    """The words the tests below take as unmapped are not in the register map."""
    assert not MAPPED & set(UNMAPPED), sorted(hex(o) for o in MAPPED & set(UNMAPPED))


class Manager:
    """A pure-Python AXI4-Lite manager for amaranth.sim testbenches.

    Every method drives the bus cycle by cycle and checks the subordinate's side of the
    handshake rules it can see: B only after both AW and W, bvalid/rvalid and their payload
    held until the manager takes them.
    """

    def __init__(self, bus):
        self.bus = bus

    def idle(self, ctx):
        for name in ("awvalid", "wvalid", "bready", "arvalid", "rready"):
            ctx.set(getattr(self.bus, name), 0)

    async def _send(self, ctx, channel, **fields):
        """Present one AW, W or AR beat and hold it until the handshake edge."""
        for name, value in fields.items():
            ctx.set(getattr(self.bus, name), value)
        valid, ready = getattr(self.bus, channel + "valid"), getattr(self.bus, channel + "ready")
        ctx.set(valid, 1)
        for _ in range(TIMEOUT):
            if ctx.get(ready):
                await ctx.tick()
                ctx.set(valid, 0)
                return
            assert not ctx.get(self.bus.bvalid) or channel == "ar", "B before AW and W"
            await ctx.tick()
        raise AssertionError(f"{channel}ready never rose")

    async def _both(self, ctx, addr, data, strb):
        b = self.bus
        ctx.set(b.awaddr, addr)
        ctx.set(b.wdata, data)
        ctx.set(b.wstrb, strb)
        ctx.set(b.awvalid, 1)
        ctx.set(b.wvalid, 1)
        aw_pending = w_pending = True
        for _ in range(TIMEOUT):
            aw_hs = aw_pending and ctx.get(b.awready)
            w_hs = w_pending and ctx.get(b.wready)
            await ctx.tick()
            if aw_hs:
                aw_pending = False
                ctx.set(b.awvalid, 0)
            if w_hs:
                w_pending = False
                ctx.set(b.wvalid, 0)
            if not (aw_pending or w_pending):
                return
        raise AssertionError("AW/W never accepted")

    async def _response(self, ctx, valid, ready, payload, delay):
        """Wait for valid with ready low for `delay` cycles after it rises, then take it."""
        for _ in range(TIMEOUT):
            if ctx.get(valid):
                break
            await ctx.tick()
        else:
            raise AssertionError("response never came")
        first = [ctx.get(sig) for sig in payload]
        for _ in range(delay):
            await ctx.tick()
            assert ctx.get(valid), "valid dropped before ready"
            assert [ctx.get(sig) for sig in payload] == first, "payload changed while waiting"
        ctx.set(ready, 1)
        await ctx.tick()
        ctx.set(ready, 0)
        return first

    async def write(self, ctx, addr, data, strb=0xF, *, order="both", gap=0, bready_delay=0):
        """One write; `order` is "both", "aw_first" or "w_first". Returns BRESP."""
        b = self.bus
        if order == "both":
            await self._both(ctx, addr, data, strb)
        else:
            first, second = (("aw", dict(awaddr=addr)), ("w", dict(wdata=data, wstrb=strb)))
            if order == "w_first":
                first, second = second, first
            else:
                assert order == "aw_first", order
            await self._send(ctx, first[0], **first[1])
            for _ in range(gap):
                assert not ctx.get(b.bvalid), "B before AW and W"
                await ctx.tick()
            await self._send(ctx, second[0], **second[1])
        (resp,) = await self._response(ctx, b.bvalid, b.bready, [b.bresp], bready_delay)
        return resp

    async def read(self, ctx, addr, *, rready_delay=0):
        """One read. Returns (RDATA, RRESP)."""
        b = self.bus
        await self._send(ctx, "ar", araddr=addr)
        data, resp = await self._response(ctx, b.rvalid, b.rready, [b.rdata, b.rresp],
                                          rready_delay)
        return (data, resp)

    async def read_ok(self, ctx, addr):
        data, resp = await self.read(ctx, addr)
        assert resp == OKAY, f"read {addr:#x}: resp {resp}"
        return data

    async def write_ok(self, ctx, addr, data, strb=0xF, **kw):
        resp = await self.write(ctx, addr, data, strb, **kw)
        assert resp == OKAY, f"write {addr:#x}: resp {resp}"

    async def read64(self, ctx, reg):
        lo = await self.read_ok(ctx, reg.offsets[0])
        hi = await self.read_ok(ctx, reg.offsets[1])
        return hi << 32 | lo

    async def snapshot(self, ctx):
        """Every readable word (64-bit pairs read LO then HI) as {offset: value}."""
        values = {}
        for reg in REGISTERS:
            for off in reg.offsets:
                values[off] = await self.read_ok(ctx, off)
        return values


def run(dut, *benches, processes=(), deadline=None):
    sim = Simulator(dut)
    sim.add_clock(1e-8)
    for bench in benches:
        sim.add_testbench(bench)
    for proc in processes:
        sim.add_process(proc)
    if deadline is None:
        sim.run()
    else:
        sim.run_until(deadline * 1e-8)


def setup(ctx, dut, *, occupancy=0, cycle=0):
    ctx.set(dut.core_idle, 1)
    ctx.set(dut.core_flushing, 0)
    ctx.set(dut.occupancy, occupancy)
    ctx.set(dut.cycle, cycle)
    ctx.set(dut.stat_inc, 0)
    mgr = Manager(dut.axil)
    mgr.idle(ctx)
    return mgr


def expected_reset(params, occupancy, cycle, predictor=False):
    """{offset: value} after reset, from the register map alone."""
    exp = {}
    for reg in REGISTERS:
        if reg.reset is not None:
            value = params.value_of(reg.reset)
        elif reg.build is not None:
            value = regmap.build_word(reg.build, predictor=predictor)
        elif reg.fields:
            value = sum(f.reset << f.bit for f in reg.fields if not f.action)
        elif reg.name == "OCCUPANCY":
            value = occupancy
        elif reg.name == "CYCLE":
            value = cycle
        else:
            value = 0
        if reg.wide:
            exp[reg.offsets[0]], exp[reg.offsets[1]] = value & 0xFFFF_FFFF, value >> 32
        else:
            exp[reg.offset] = value
    return exp


def cfg_dict(ctx, dut):
    return {name: ctx.get(getattr(dut.cfg, name.lower())) for name in regmap.CONFIG_NAMES}


# ---- structure --------------------------------------------------------------------------

def test_ports_and_validation():
    dut = KvAsuRegisters()
    assert dut.signature.members["axil"].flow == wiring.In
    assert dut.signature.members["axil"].signature == AxiLiteSignature(regmap.AXIL_ADDR_WIDTH)
    assert len(dut.stat_inc) == len(STAT_NAMES)
    assert len(dut.occupancy) == dut.params.SLOT_WIDTH + 1
    assert len(dut.cycle) == 64
    with pytest.raises(TypeError):
        KvAsuRegisters(params={"ENTRIES": 16})
    with pytest.raises(ValueError):
        register_kind(regmap.Register(name="NEW_THING", offset=0x200, access="ro", doc=""))
    with pytest.raises(ValueError):
        register_kind(regmap.Register(name="C9", offset=0x200, access="ro", config=True, doc=""))


def test_axil_signature():
    sig = AxiLiteSignature(12)
    assert sig == AxiLiteSignature(12, 32) and sig != AxiLiteSignature(13)
    assert Shape.cast(sig.members["wstrb"].shape).width == 4
    assert list(sig.members) == ["awaddr", "awprot", "awvalid", "awready", "wdata", "wstrb",
                                 "wvalid", "wready", "bresp", "bvalid", "bready", "araddr",
                                 "arprot", "arvalid", "arready", "rdata", "rresp", "rvalid",
                                 "rready"]
    assert Shape.cast(AxiLiteSignature(8, 64).members["wstrb"].shape).width == 8
    for bad in ("12", True):
        with pytest.raises(TypeError):
            AxiLiteSignature(bad)
    with pytest.raises(ValueError):
        AxiLiteSignature(0)
    with pytest.raises(ValueError):
        AxiLiteSignature(12, 16)
    assert [r.value for r in AxiResp] == [0, 1, 2, 3]


def test_subordinate_ports_and_validation():
    dut = KvAsuRegisters()
    sub = dut.subordinate
    assert sub.signature.members["axil"].flow == wiring.In
    assert sub.signature.members["regs"].signature.members["w_addr"].shape == \
        regmap.AXIL_ADDR_WIDTH - 2
    # every mapped word reaches the register file; writes only to shadows (configuration
    # and mode) and CTRL
    assert sub.readable == MAPPED
    assert sub.writable == {r.offset for r in REGISTERS
                            if r.config or r.mode or r.name == "CTRL"}
    assert dut.read_words == [off >> 2 for reg in REGISTERS for off in reg.offsets]
    # the observation ports exist only when asked for
    assert "observe" not in dut.signature.members
    assert "observe" not in sub.signature.members
    with pytest.raises(TypeError, match="observe must be a bool"):
        AxiLiteSubordinate(12, readable=[0], writable=[], observe=1)
    with pytest.raises(TypeError, match="observe must be a bool"):
        KvAsuRegisters(observe="yes")
    with pytest.raises(ValueError, match="read_words"):
        RegisterObservationSignature(12, read_words=0, stat_read_latency=2)
    for bad in ("12", True):
        with pytest.raises(TypeError):
            AxiLiteSubordinate(bad, readable=[0], writable=[])
    with pytest.raises(ValueError, match="at least 3"):
        AxiLiteSubordinate(2, readable=[0], writable=[])
    with pytest.raises(ValueError, match="not a word"):
        AxiLiteSubordinate(12, readable=[2], writable=[])
    with pytest.raises(ValueError, match="not a word"):
        AxiLiteSubordinate(12, readable=[4096], writable=[])
    with pytest.raises(ValueError, match="not readable"):
        AxiLiteSubordinate(12, readable=[0], writable=[4])


def test_observation_port_shows_the_register_files_state():
    # The port the proofs (formal/axil_props.py, covers.py) state their invariants over:
    # each member against what the bus did.
    dut = KvAsuRegisters(observe=True)
    obs = dut.observe
    assert len(obs.read_sel) == len(dut.read_words)
    assert len(obs.stat_pend) == dut.stats.read_latency
    c3 = REG["C3"].offset

    async def bench(ctx):
        mgr = setup(ctx, dut)
        assert ctx.get(obs.shadow.c3) == dut.params.defaults["C3"]
        await ctx.tick()                             # legality is registered
        assert ctx.get(obs.legal) == 1 and ctx.get(obs.error) == 0
        await mgr.write_ok(ctx, c3, dut.params.COUNT_MAX + 1)     # an illegal shadow set
        await ctx.tick().repeat(2)                   # the registered legality
        assert ctx.get(obs.shadow.c3) == dut.params.COUNT_MAX + 1
        assert ctx.get(obs.legal) == 0
        ch = obs.axil
        assert (ctx.get(ch.aw_word), ctx.get(ch.w_mapped), ctx.get(ch.w_writable)) == \
            (c3 >> 2, 1, 1)
        assert await mgr.write(ctx, CTRL, COMMIT | ENABLE) == SLVERR
        assert ctx.get(obs.error) == 1 and ctx.get(obs.sequencing) == 0
        await mgr.read_ok(ctx, STATUS)
        assert ctx.get(obs.read_sel) == 1 << dut.read_words.index(STATUS >> 2)
        assert (ctx.get(ch.ar_word), ctx.get(ch.ar_full), ctx.get(ch.r_wait)) == \
            (STATUS >> 2, 0, 0)
        assert ctx.get(obs.stat_pend) == 0

    run(dut, bench)


# ---- reads ------------------------------------------------------------------------------

@pytest.mark.parametrize("params", [Params(), SMALL], ids=["default", "small"])
def test_reset_values(params):
    dut = KvAsuRegisters(params)
    occupancy, cycle = params.ENTRIES - 1, 0x0123_4567_89AB_CDEF

    async def bench(ctx):
        mgr = setup(ctx, dut, occupancy=occupancy, cycle=cycle)
        assert cfg_dict(ctx, dut) == params.defaults
        assert ctx.get(dut.enable) == REG["CTRL"].field("ENABLE").reset
        assert ctx.get(dut.hold) == 0 and ctx.get(dut.flush) == 0
        assert await mgr.snapshot(ctx) == expected_reset(params, occupancy, cycle)
        # Low address bits are ignored.
        assert await mgr.read_ok(ctx, REG["ID"].offset + 3) == regmap.ID

    run(dut, bench)


@pytest.mark.parametrize("params", [Params(), SMALL], ids=["default", "small"])
def test_documented_reset_values_are_the_values_read(params):
    """The reset column of docs/registers-table.md and the headers' ``*_RESET`` defines
    (``regmap.headers.reset_value``) state what a read after reset returns; only the
    ``live`` registers state none."""
    read = expected_reset(params, occupancy=0, cycle=0)
    for reg in REGISTERS:
        documented = reset_value(reg, params)
        if documented is None:
            assert reg.live, f"{reg.name} states no reset value"
        else:
            assert documented & 0xFFFF_FFFF == read[reg.offset], reg.name


def test_unmapped_and_readonly():
    dut = KvAsuRegisters()

    async def bench(ctx):
        mgr = setup(ctx, dut, occupancy=7, cycle=99)
        before = await mgr.snapshot(ctx)
        for off in UNMAPPED:
            assert await mgr.read(ctx, off) == (0, DECERR), hex(off)
            assert await mgr.write(ctx, off, 0xFFFF_FFFF) == DECERR, hex(off)
        ro = [off for reg in REGISTERS if reg.access == "ro" for off in reg.offsets]
        assert REG["STAT_OBSERVES"].offsets[1] in ro and REG["ACT_C3"].offset in ro
        for off in ro:
            assert await mgr.write(ctx, off, 0xFFFF_FFFF) == SLVERR, hex(off)
        assert await mgr.snapshot(ctx) == before
        assert ctx.get(dut.hold) == 0

    run(dut, bench)


# ---- shadow writes and strobes ----------------------------------------------------------

def test_strobes():
    dut = KvAsuRegisters()
    c3 = REG["C3"].offset
    seed = REG["HASH_SEED"].offset

    async def bench(ctx):
        mgr = setup(ctx, dut)
        default = Params().defaults["C3"]
        await mgr.write_ok(ctx, c3, 0xAABB_CCDD, strb=0b0010)
        assert await mgr.read_ok(ctx, c3) == (default & ~0xFF00) | 0xCC00
        await mgr.write_ok(ctx, c3, 0x1122_3344, strb=0b1000)
        assert await mgr.read_ok(ctx, c3) == 0x1100_CC00 | default
        await mgr.write_ok(ctx, c3, 0xFFFF_FFFF, strb=0)
        assert await mgr.read_ok(ctx, c3) == 0x1100_CC00 | default
        await mgr.write_ok(ctx, seed, 0xDEAD_BEEF)
        await mgr.write_ok(ctx, seed, 0x0000_4200, strb=0b0110)
        assert await mgr.read_ok(ctx, seed) == 0xDE00_42EF
        # Shadows are not active until a commit.
        assert cfg_dict(ctx, dut) == Params().defaults
        assert await mgr.read_ok(ctx, REG["ACT_C3"].offset) == default
        # A CTRL write without the byte 0 strobe does nothing, even with action bits.
        await mgr.write_ok(ctx, CTRL, COMMIT | FLUSH, strb=0b1110)
        assert cfg_dict(ctx, dut) == Params().defaults
        assert ctx.get(dut.enable) == 1

    run(dut, bench)


# ---- commit -------------------------------------------------------------------------------

class FlushMonitor:
    """A process that records every cycle `flush` is high and checks it is only pulsed while
    hold and core_idle are high; optionally models a core that flushes for `length` cycles."""

    def __init__(self, dut, length=0):
        self.dut, self.length, self.pulses = dut, length, []

    async def process(self, ctx):
        dut, remaining, cycle = self.dut, 0, 0
        async for _, _, flush, hold, idle in ctx.tick().sample(dut.flush, dut.hold,
                                                               dut.core_idle):
            cycle += 1
            if flush:
                assert hold and idle, "flush pulsed without hold and core_idle"
                assert remaining == 0, "flush pulsed while a flush is running"
                self.pulses.append(cycle)
                remaining = self.length
                if remaining:
                    ctx.set(dut.core_flushing, 1)
            elif remaining:
                remaining -= 1
                if not remaining:
                    ctx.set(dut.core_flushing, 0)


async def write_config(mgr, ctx, **values):
    for name, value in values.items():
        await mgr.write_ok(ctx, REG[name].offset, value)


def test_legal_commit_and_seed_flush():
    dut = KvAsuRegisters()
    mon = FlushMonitor(dut)
    new = dict(C3=9, C2=9, W3=0, W2=0, W1=127, HASH_SEED=0)

    async def bench(ctx):
        mgr = setup(ctx, dut)
        await write_config(mgr, ctx, **new)
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert cfg_dict(ctx, dut) == new
        for name in regmap.CONFIG_NAMES:
            assert await mgr.read_ok(ctx, REG["ACT_" + name].offset) == new[name]
        assert await mgr.read_ok(ctx, STATUS) == 0
        assert mon.pulses == []                     # seed unchanged: no flush
        await write_config(mgr, ctx, HASH_SEED=0xFFFF_FFFF)
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert len(mon.pulses) == 1                 # seed changed: one flush
        assert ctx.get(dut.cfg.hash_seed) == 0xFFFF_FFFF
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert len(mon.pulses) == 1                 # same seed again: no flush
        await write_config(mgr, ctx, HASH_SEED=1)
        await mgr.write_ok(ctx, CTRL, COMMIT | FLUSH | ENABLE)
        assert len(mon.pulses) == 2                 # both reasons: still one pulse
        await mgr.write_ok(ctx, CTRL, FLUSH | ENABLE)
        assert len(mon.pulses) == 3
        # Commit may also change ENABLE in the same write.
        await mgr.write_ok(ctx, CTRL, COMMIT)
        assert ctx.get(dut.enable) == 0
        assert await mgr.read_ok(ctx, CTRL) == 0
        await mgr.write_ok(ctx, CTRL, ENABLE)
        assert await mgr.read_ok(ctx, CTRL) == ENABLE

    run(dut, bench, processes=[mon.process])


def test_mode_commit_and_reserved_bits():
    """D13: MODE is a shadow; COMMIT applies NONBLOCKING (the ``nonblocking`` port, ACT_MODE);
    a commit of a reserved MODE bit gets SLVERR, sets STATUS.ERROR and changes nothing
    (neither the mode nor the configuration, no flush)."""
    dut = KvAsuRegisters(SMALL)
    mon = FlushMonitor(dut)
    mode, act_mode = REG["MODE"].offset, REG["ACT_MODE"].offset
    nonblocking = REG["MODE"].mask("NONBLOCKING")

    async def bench(ctx):
        mgr = setup(ctx, dut)
        assert ctx.get(dut.nonblocking) == 0
        assert await mgr.read_ok(ctx, mode) == 0 and await mgr.read_ok(ctx, act_mode) == 0
        await mgr.write_ok(ctx, mode, nonblocking)
        assert ctx.get(dut.nonblocking) == 0            # a shadow: nothing until COMMIT
        assert await mgr.read_ok(ctx, act_mode) == 0
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert ctx.get(dut.nonblocking) == 1
        assert await mgr.read_ok(ctx, act_mode) == nonblocking
        before = cfg_dict(ctx, dut)
        for bad in (2, 3, 0x8000_0001, 0x100):
            await write_config(mgr, ctx, C3=SMALL.COUNT_MAX, MODE=bad & ~nonblocking)
            assert await mgr.read_ok(ctx, mode) == bad & ~nonblocking   # all 32 bits kept
            resp = await mgr.write(ctx, CTRL, COMMIT | FLUSH | ENABLE)
            assert resp == SLVERR, hex(bad)
            assert await mgr.read_ok(ctx, STATUS) == ERROR
            assert ctx.get(dut.nonblocking) == 1, hex(bad)
            assert await mgr.read_ok(ctx, act_mode) == nonblocking
            assert cfg_dict(ctx, dut) == before and mon.pulses == []
            await mgr.write_ok(ctx, CTRL, CLEAR_ERROR | ENABLE)
        await write_config(mgr, ctx, MODE=0)
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert ctx.get(dut.nonblocking) == 0 and await mgr.read_ok(ctx, act_mode) == 0
        assert cfg_dict(ctx, dut)["C3"] == SMALL.COUNT_MAX

    run(dut, bench, processes=[mon.process])


@pytest.mark.parametrize("predictor", [False, True], ids=["article", "predictor"])
def test_policy_commit_needs_the_predictor_build(predictor):
    """spec-predictor.md P2: POLICY is a shadow; a commit of POLICY.MODE = 1 is refused on a
    build without the predictor (SLVERR, STATUS.ERROR, nothing changes, no flush) and
    applied on one (the ``policy`` port, ACT_POLICY), with a flush exactly when MODE
    changes; bits 31..1 are refused on both; P_POLICIES reads the build's policies."""
    dut = KvAsuRegisters(SMALL, predictor=predictor)
    mon = FlushMonitor(dut)
    policy, act = REG["POLICY"].offset, REG["ACT_POLICY"].offset
    on = REG["POLICY"].mask("MODE")

    async def bench(ctx):
        mgr = setup(ctx, dut)
        features = REG["P_POLICIES"]
        assert await mgr.read_ok(ctx, features.offset) == (
            features.mask("ARTICLE") | (features.mask("PREDICTOR") if predictor else 0))
        assert await mgr.read_ok(ctx, policy) == 0 and await mgr.read_ok(ctx, act) == 0
        await write_config(mgr, ctx, POLICY=on, C3=SMALL.COUNT_MAX)
        assert await mgr.read_ok(ctx, policy) == on          # a shadow reads back
        before = cfg_dict(ctx, dut)
        resp = await mgr.write(ctx, CTRL, COMMIT | ENABLE)
        if not predictor:
            assert resp == SLVERR and await mgr.read_ok(ctx, STATUS) == ERROR
            assert await mgr.read_ok(ctx, act) == 0 and cfg_dict(ctx, dut) == before
            assert mon.pulses == []
            await mgr.write_ok(ctx, CTRL, CLEAR_ERROR | ENABLE)
        else:
            assert resp == OKAY and await mgr.read_ok(ctx, STATUS) == 0
            assert ctx.get(dut.policy) == 1 and await mgr.read_ok(ctx, act) == on
            assert cfg_dict(ctx, dut)["C3"] == SMALL.COUNT_MAX
            assert len(mon.pulses) == 1                  # MODE changed: one flush
            await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
            assert len(mon.pulses) == 1                  # unchanged: no flush
        pulses = len(mon.pulses)
        for bad in (2, 3, 0x8000_0000):
            await write_config(mgr, ctx, POLICY=bad)
            assert await mgr.write(ctx, CTRL, COMMIT | FLUSH | ENABLE) == SLVERR, hex(bad)
            assert await mgr.read_ok(ctx, STATUS) == ERROR
            assert await mgr.read_ok(ctx, act) == (on if predictor else 0)
            assert len(mon.pulses) == pulses
            await mgr.write_ok(ctx, CTRL, CLEAR_ERROR | ENABLE)
        await write_config(mgr, ctx, POLICY=0)
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert await mgr.read_ok(ctx, act) == 0
        assert len(mon.pulses) == pulses + predictor     # back to 0: a flush if it was 1
        if predictor:
            assert ctx.get(dut.policy) == 0

    run(dut, bench, processes=[mon.process])


def test_policy_mode_commits_with_nonblocking():
    """spec-predictor.md P2 / D13: on the predictor build POLICY.MODE = 1 and
    MODE.NONBLOCKING commit together (both ports set, one flush for the policy change),
    and either changes alone afterwards."""
    dut = KvAsuRegisters(SMALL, predictor=True)
    mon = FlushMonitor(dut)
    on, nb = REG["POLICY"].mask("MODE"), REG["MODE"].mask("NONBLOCKING")
    act_mode, act_policy = REG["ACT_MODE"].offset, REG["ACT_POLICY"].offset

    async def bench(ctx):
        mgr = setup(ctx, dut)
        await write_config(mgr, ctx, POLICY=on, MODE=nb, C3=SMALL.COUNT_MAX)
        pulses = len(mon.pulses)
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert (ctx.get(dut.policy), ctx.get(dut.nonblocking)) == (1, 1)
        assert await mgr.read_ok(ctx, act_mode) == nb
        assert await mgr.read_ok(ctx, act_policy) == on
        assert len(mon.pulses) == pulses + 1
        await write_config(mgr, ctx, MODE=0)
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert (ctx.get(dut.policy), ctx.get(dut.nonblocking)) == (1, 0)
        await write_config(mgr, ctx, POLICY=0, MODE=nb)
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert (ctx.get(dut.policy), ctx.get(dut.nonblocking)) == (0, 1)
        assert await mgr.read_ok(ctx, STATUS) & ERROR == 0

    run(dut, bench, processes=[mon.process])


@pytest.mark.parametrize("params", [Params(), SMALL], ids=["default", "small"])
def test_illegal_commits(params):
    dut = KvAsuRegisters(params)
    cmax, wmax = params.COUNT_MAX, params.WMAX
    legal = dict(C3=cmax, C2=1, W3=0, W2=wmax, W1=wmax, HASH_SEED=0x5EED)
    variants = [
        dict(C2=0),                                  # C2 >= 1
        dict(C3=1, C2=2) if cmax >= 2 else dict(C2=cmax + 1),  # C2 <= C3
        dict(C3=cmax + 1),                           # C3 <= COUNT_MAX
        dict(C3=0x1_0000_0000 - 1),                  # all 32 bits count
        dict(C3=(1 << 31) | cmax),                   # would be legal if truncated
        dict(W3=1, W2=0),                            # W3 <= W2
        dict(W2=wmax, W1=wmax - 1),                  # W2 <= W1
        dict(W1=wmax + 1),                           # W1 <= WMAX
        dict(W1=0x100 | wmax, W2=0, W3=0),           # would be legal if truncated
    ]
    mon = FlushMonitor(dut)

    async def bench(ctx):
        mgr = setup(ctx, dut)
        await write_config(mgr, ctx, **legal)
        await mgr.write_ok(ctx, CTRL, COMMIT | ENABLE)
        assert cfg_dict(ctx, dut) == legal
        pulses = len(mon.pulses)
        for variant in variants:
            await write_config(mgr, ctx, **variant)
            act = [await mgr.read_ok(ctx, REG["ACT_" + n].offset) for n in regmap.CONFIG_NAMES]
            # Ask for everything at once: none of it may happen.
            resp = await mgr.write(ctx, CTRL, COMMIT | CLEAR_ERROR | FLUSH | CLEAR_STATS)
            assert resp == SLVERR, variant
            assert await mgr.read_ok(ctx, STATUS) == ERROR, variant
            assert cfg_dict(ctx, dut) == legal, variant
            assert ctx.get(dut.enable) == 1, variant          # ENABLE=0 not applied
            assert len(mon.pulses) == pulses, variant        # no flush
            assert [await mgr.read_ok(ctx, REG["ACT_" + n].offset)
                    for n in regmap.CONFIG_NAMES] == act
            # ERROR is sticky: a legal non-commit write does not clear it ...
            await mgr.write_ok(ctx, CTRL, ENABLE)
            assert await mgr.read_ok(ctx, STATUS) == ERROR
            # ... CLEAR_ERROR does.
            await write_config(mgr, ctx, **legal)
            await mgr.write_ok(ctx, CTRL, CLEAR_ERROR | ENABLE)
            assert await mgr.read_ok(ctx, STATUS) == 0

    run(dut, bench, processes=[mon.process])


# ---- between-requests sequencing ----------------------------------------------------------

def test_hold_waits_for_core_idle():
    dut = KvAsuRegisters()
    log = {}

    async def manager(ctx):
        mgr = setup(ctx, dut)
        ctx.set(dut.core_idle, 0)
        # A write without action bits is immediate, even while the core is busy.
        await mgr.write_ok(ctx, CTRL, 0)
        assert ctx.get(dut.enable) == 0 and ctx.get(dut.hold) == 0
        await write_config(mgr, ctx, C3=6)
        assert ctx.get(dut.hold) == 0
        log["start"] = True
        await mgr.write_ok(ctx, CTRL, COMMIT | CLEAR_STATS | ENABLE, bready_delay=3)
        log["done"] = True

    async def core(ctx):
        # Hold core_idle low for 30 cycles after the action write went out; hold must rise
        # and stay up, and no B may come, until core_idle rises.
        while not log.get("start"):
            await ctx.tick()
        for cycle in range(30):
            ctx.set(dut.stat_inc, 0b1)       # the core still finishing requests
            await ctx.tick()
            assert not ctx.get(dut.axil.bvalid)
            assert ctx.get(dut.cfg.c3) == 5
            if cycle >= 4:
                assert ctx.get(dut.hold), cycle
        # core_idle rising while the last increments still arrive: not applied yet.
        ctx.set(dut.core_idle, 1)
        for _ in range(3):
            await ctx.tick()
            assert not ctx.get(dut.axil.bvalid) and ctx.get(dut.hold)
        assert dut.stats.peek(ctx, 0) == 33
        ctx.set(dut.stat_inc, 0)
        for _ in range(3):
            await ctx.tick()
            if ctx.get(dut.axil.bvalid):
                break
        assert ctx.get(dut.axil.bvalid), "no B after core_idle"
        # Applied before B: new config, enable back on. The counters clear in B's first
        # cycle (a registered clear), before any read ordered after B can sample them.
        # hold stays high while B waits for bready (3 cycles here) and in the cycle of the
        # B handshake (D8: no request at the edge of an action's write response); it falls
        # after it.
        assert ctx.get(dut.cfg.c3) == 6 and ctx.get(dut.enable) == 1
        assert ctx.get(dut.stats.clear) == 1
        first = True
        while True:
            assert ctx.get(dut.hold), "hold fell before the B handshake"
            handshake = ctx.get(dut.axil.bvalid) and ctx.get(dut.axil.bready)
            await ctx.tick()
            if first:
                assert dut.stats.peek(ctx, 0) == 0
                first = False
            if handshake:
                break
        assert not ctx.get(dut.hold)
        while not log.get("done"):
            await ctx.tick()

    run(dut, manager, core)


def test_flush_busy_and_action_waits_for_flush_end():
    dut = KvAsuRegisters()
    mon = FlushMonitor(dut, length=20)

    async def bench(ctx):
        mgr = setup(ctx, dut)
        await mgr.write_ok(ctx, CTRL, FLUSH | ENABLE)
        assert mon.pulses and ctx.get(dut.core_flushing)
        # B comes with the flush pulse, before the flush ends; BUSY shows it.
        assert await mgr.read_ok(ctx, STATUS) == BUSY
        assert not ctx.get(dut.hold)
        # A second action waits for the running flush to end before it is applied.
        await mgr.write_ok(ctx, CTRL, FLUSH | ENABLE)
        assert len(mon.pulses) == 2
        assert mon.pulses[1] - mon.pulses[0] > 20
        while ctx.get(dut.core_flushing):
            await ctx.tick()
        assert await mgr.read_ok(ctx, STATUS) == 0

    run(dut, bench, processes=[mon.process])


# ---- statistics and the HI latch ----------------------------------------------------------

def test_statistics_count_and_clear():
    dut = KvAsuRegisters()
    rng = random.Random(SEED)
    print(f"random seed {SEED} (set KV_ASU_TEST_SEED to change)")
    n = len(STAT_NAMES)
    pattern = [rng.getrandbits(n) for _ in range(150)] + [(1 << n) - 1] * 5
    expected = [sum(word >> i & 1 for word in pattern) for i in range(n)]

    async def bench(ctx):
        mgr = setup(ctx, dut)
        for word in pattern:
            ctx.set(dut.stat_inc, word)
            await ctx.tick()
        ctx.set(dut.stat_inc, 0)
        for i, reg in enumerate(regmap.STAT_REGISTERS):
            assert await mgr.read64(ctx, reg) == expected[i], reg.name
        await mgr.write_ok(ctx, CTRL, CLEAR_STATS | ENABLE)
        for reg in regmap.STAT_REGISTERS:
            assert await mgr.read64(ctx, reg) == 0, reg.name

    run(dut, bench)


def test_hi_latch_and_carry():
    dut = KvAsuRegisters()
    obs, drops = REG["STAT_OBSERVES"], REG["STAT_DROPS"]
    i_obs, i_drops = STAT_NAMES.index(obs.stat), STAT_NAMES.index(drops.stat)
    cycle = REG["CYCLE"]

    async def bench(ctx):
        mgr = setup(ctx, dut)
        # Carry from the low into the high word of a real 64-bit counter.
        dut.stats.poke(ctx, i_obs, 0x0000_0007_FFFF_FFFE)
        ctx.set(dut.stat_inc, 1 << i_obs)
        await ctx.tick().repeat(3)
        ctx.set(dut.stat_inc, 0)
        assert await mgr.read64(ctx, obs) == 0x0000_0008_0000_0001
        # The pair is one sample: a carry between the LO and the HI read does not show.
        dut.stats.poke(ctx, i_obs, 0x0000_0008_FFFF_FFFF)
        assert await mgr.read_ok(ctx, obs.offsets[0]) == 0xFFFF_FFFF
        ctx.set(dut.stat_inc, 1 << i_obs)
        await ctx.tick()
        ctx.set(dut.stat_inc, 0)
        assert dut.stats.peek(ctx, i_obs) == 0x0000_0009_0000_0000
        assert await mgr.read_ok(ctx, obs.offsets[1]) == 8
        assert await mgr.read64(ctx, obs) == 0x0000_0009_0000_0000
        # One latch for all: any HI word returns the high half of the last LO read.
        dut.stats.poke(ctx, i_drops, 0x1234_5678_0000_0000)
        ctx.set(dut.cycle, 0x0000_0005_FFFF_FFFF)
        assert await mgr.read_ok(ctx, cycle.offsets[0]) == 0xFFFF_FFFF
        ctx.set(dut.cycle, 0x0000_0006_0000_0000)
        assert await mgr.read_ok(ctx, drops.offsets[1]) == 5
        assert await mgr.read_ok(ctx, cycle.offsets[1]) == 5
        assert await mgr.read_ok(ctx, drops.offsets[0]) == 0
        assert await mgr.read_ok(ctx, cycle.offsets[1]) == 0x1234_5678
        # Reads of other words (and writes) leave the latch alone.
        await mgr.read_ok(ctx, REG["ID"].offset)
        await mgr.write_ok(ctx, REG["C3"].offset, 5)
        assert await mgr.read_ok(ctx, obs.offsets[1]) == 0x1234_5678

    run(dut, bench)


# ---- AXI4-Lite channel behaviour ------------------------------------------------------------

@pytest.mark.parametrize("order,gap", [("both", 0), ("aw_first", 0), ("aw_first", 5),
                                       ("w_first", 0), ("w_first", 5)])
def test_channel_orders(order, gap):
    dut = KvAsuRegisters()
    rng = random.Random(SEED)
    regs = [REG[n].offset for n in regmap.CONFIG_NAMES]

    async def bench(ctx):
        mgr = setup(ctx, dut)
        for _ in range(6):
            off, value = rng.choice(regs), rng.getrandbits(32)
            await mgr.write_ok(ctx, off, value, order=order, gap=gap,
                               bready_delay=rng.choice([0, 0, 1, 7]))
            data, resp = await mgr.read(ctx, off, rready_delay=rng.choice([0, 0, 1, 7]))
            assert (data, resp) == (value, OKAY)
        assert await mgr.write(ctx, REG["ID"].offset, 0, order=order, gap=gap,
                               bready_delay=4) == SLVERR

    run(dut, bench)


def test_one_write_and_one_read_outstanding():
    dut = KvAsuRegisters()
    b = dut.axil

    async def bench(ctx):
        setup(ctx, dut)
        # AW+W taken; while B waits (bready low) no further AW or W is accepted.
        ctx.set(b.awaddr, REG["C2"].offset)
        ctx.set(b.wdata, 4)
        ctx.set(b.wstrb, 0xF)
        ctx.set(b.awvalid, 1)
        ctx.set(b.wvalid, 1)
        assert ctx.get(b.awready) and ctx.get(b.wready)
        await ctx.tick()
        for _ in range(10):
            assert not ctx.get(b.awready) and not ctx.get(b.wready)
            await ctx.tick()
        assert ctx.get(b.bvalid) and ctx.get(b.bresp) == OKAY
        ctx.set(b.awvalid, 0)
        ctx.set(b.wvalid, 0)
        ctx.set(b.bready, 1)
        await ctx.tick()
        ctx.set(b.bready, 0)
        assert not ctx.get(b.bvalid)
        # Likewise AR while R waits.
        ctx.set(b.araddr, REG["C2"].offset)
        ctx.set(b.arvalid, 1)
        assert ctx.get(b.arready)
        await ctx.tick()
        ctx.set(b.araddr, REG["ID"].offset)
        for _ in range(10):
            assert not ctx.get(b.arready)
            await ctx.tick()
        assert ctx.get(b.rvalid) and ctx.get(b.rdata) == 4
        ctx.set(b.arvalid, 0)
        ctx.set(b.rready, 1)
        await ctx.tick()
        ctx.set(b.rready, 0)
        assert not ctx.get(b.rvalid)

    run(dut, bench)


def test_read_and_write_concurrently():
    dut = KvAsuRegisters()
    seed = REG["HASH_SEED"].offset

    async def writer(ctx):
        mgr = setup(ctx, dut)
        for value in range(1, 9):
            await mgr.write_ok(ctx, seed, value * 0x1111_1111)

    async def reader(ctx):
        mgr = Manager(dut.axil)
        await ctx.tick()
        for _ in range(12):
            data = await mgr.read_ok(ctx, seed)
            assert data % 0x1111_1111 == 0 and data // 0x1111_1111 <= 8
            assert await mgr.read_ok(ctx, REG["ID"].offset) == regmap.ID

    run(dut, writer, reader)


def test_random_traffic_against_model():
    """Random reads and writes (any order, strobes, delays, mapped or not) against a
    Python model of the register file built from the register map."""
    params = SMALL
    dut = KvAsuRegisters(params)
    rng = random.Random(SEED + 1)
    print(f"random seed {SEED} (set KV_ASU_TEST_SEED to change)")
    occupancy, cycle = 17, 0xAAAA_5555_0000_0001
    words = sorted(MAPPED) + UNMAPPED
    shadows = [REG[n].offset for n in regmap.SHADOW_NAMES]

    async def bench(ctx):
        mgr = setup(ctx, dut, occupancy=occupancy, cycle=cycle)
        model = expected_reset(params, occupancy, cycle)
        lo_words = {reg.offsets[0]: reg.offsets[1] for reg in REGISTERS if reg.wide}
        hi_words = set(lo_words.values())
        latch = 0
        for _ in range(250):
            # Bias towards the shadows (so that their values wander) and the CYCLE pair
            # (the only 64-bit word with a non-zero high half here).
            pick = rng.random()
            off = (rng.choice(shadows) if pick < 0.3 else
                   rng.choice(REG["CYCLE"].offsets) if pick < 0.45 else rng.choice(words))
            addr = off | rng.getrandbits(2)
            if rng.random() < 0.5:
                data, strb = rng.getrandbits(32), rng.getrandbits(4)
                if off == CTRL:
                    data &= ~0x3E  # no actions here (bits 1-5); they have tests of their own
                resp = await mgr.write(ctx, addr, data, strb,
                                       order=rng.choice(["both", "aw_first", "w_first"]),
                                       gap=rng.choice([0, 0, 2]),
                                       bready_delay=rng.choice([0, 0, 3]))
                if off not in MAPPED:
                    assert resp == DECERR
                elif off in shadows:
                    assert resp == OKAY
                    mask = sum(0xFF << 8 * i for i in range(4) if strb >> i & 1)
                    model[off] = (model[off] & ~mask) | (data & mask)
                elif off == CTRL:
                    assert resp == OKAY
                    if strb & 1:
                        model[off] = data & ENABLE
                else:
                    assert resp == SLVERR, hex(off)
            else:
                data, resp = await mgr.read(ctx, addr, rready_delay=rng.choice([0, 0, 3]))
                if off not in MAPPED:
                    assert (data, resp) == (0, DECERR)
                else:
                    assert resp == OKAY
                    # HI words return the one latch, loaded by the last LO read.
                    assert data == (latch if off in hi_words else model[off]), hex(off)
                    if off in lo_words:
                        latch = model[lo_words[off]]
            assert ctx.get(dut.enable) == model[CTRL] & ENABLE
            assert ctx.get(dut.hold) == 0
        assert cfg_dict(ctx, dut) == params.defaults   # never committed

    run(dut, bench)


# ---- soft errors (D11) ----------------------------------------------------------------------

def test_soft_error_registers():
    """ERR_* and STATUS.SOFT_ERROR / RECOVERING from the core's reports: a corrected error
    is first until an uncorrectable one replaces it, never the other way round; counters;
    the recovery's length; CLEAR_SOFT_ERROR clears them all (and nothing else); they are
    read-only (SLVERR, nothing changed)."""
    dut = KvAsuRegisters(SMALL, protection="auto")
    err = {name: REG[name].offset for name in ("ERR_UNCORRECTED", "ERR_CORRECTED",
                                               "ERR_FIRST_MEM", "ERR_FIRST_ADDR",
                                               "ERR_LAST_RECOVERY")}
    soft, recovering = REG["STATUS"].mask("SOFT_ERROR"), REG["STATUS"].mask("RECOVERING")
    clear_soft = REG["CTRL"].mask("CLEAR_SOFT_ERROR")
    done = []

    async def pulse(ctx, **signals):
        for name, value in signals.items():
            ctx.set(getattr(dut, name), value)
        await ctx.tick()
        for name in signals:
            if name != "err_mem" and name != "err_addr":
                ctx.set(getattr(dut, name), 0)

    async def bench(ctx):
        mgr = setup(ctx, dut, cycle=1000)
        assert [await mgr.read_ok(ctx, off) for off in err.values()] == [0] * 5
        # The core reports an error in the cycle after its detection cycle d, which
        # ERR_FIRST_CYCLE names.
        ctx.set(dut.cycle, 1234)
        await ctx.tick()
        ctx.set(dut.cycle, 1235)
        await pulse(ctx, err_corrected=1, err_mem=MEM_IDS["prev1"], err_addr=7)
        ctx.set(dut.cycle, 1300)
        await pulse(ctx, err_corrected=1, err_mem=MEM_IDS["ent"], err_addr=3)
        assert await mgr.read_ok(ctx, err["ERR_CORRECTED"]) == 2
        assert await mgr.read_ok(ctx, err["ERR_FIRST_MEM"]) == MEM_IDS["prev1"]
        assert await mgr.read_ok(ctx, err["ERR_FIRST_ADDR"]) == 7
        assert await mgr.read64(ctx, REG["ERR_FIRST_CYCLE"]) == 1234
        assert await mgr.read_ok(ctx, REG["STATUS"].offset) & soft == 0
        # An uncorrectable error in d = 2000 starts a recovery, running from d + 1 (in
        # which the core reports it) to d + 5 (ready at d + 6).
        ctx.set(dut.cycle, 2000)
        await ctx.tick()
        ctx.set(dut.cycle, 2001)
        ctx.set(dut.err_start, 1)
        ctx.set(dut.err_mem, MEM_IDS["meta"])
        ctx.set(dut.err_addr, 9)
        ctx.set(dut.recovering, 1)
        await ctx.tick()
        ctx.set(dut.err_start, 0)
        await ctx.tick().repeat(4)
        ctx.set(dut.recovering, 0)
        await ctx.tick()
        assert await mgr.read_ok(ctx, REG["STATUS"].offset) & (soft | recovering) == soft
        assert await mgr.read_ok(ctx, err["ERR_UNCORRECTED"]) == 1
        assert await mgr.read_ok(ctx, err["ERR_FIRST_MEM"]) == MEM_IDS["meta"] | REG["ERR_FIRST_MEM"].mask("UNCORRECTABLE")
        assert await mgr.read_ok(ctx, err["ERR_FIRST_ADDR"]) == 9
        assert await mgr.read64(ctx, REG["ERR_FIRST_CYCLE"]) == 2000
        assert await mgr.read_ok(ctx, err["ERR_LAST_RECOVERY"]) == 6
        # A later corrected error does not replace an uncorrectable first.
        await pulse(ctx, err_corrected=1, err_mem=MEM_IDS["next0"], err_addr=1)
        assert await mgr.read_ok(ctx, err["ERR_FIRST_MEM"]) == MEM_IDS["meta"] | REG["ERR_FIRST_MEM"].mask("UNCORRECTABLE")
        ctx.set(dut.recovering, 1)
        assert await mgr.read_ok(ctx, REG["STATUS"].offset) & recovering
        ctx.set(dut.recovering, 0)
        # Read-only: a write is refused and changes nothing.
        for off in err.values():
            assert await mgr.write(ctx, off, 0) == SLVERR
        assert await mgr.read_ok(ctx, err["ERR_CORRECTED"]) == 3
        before = cfg_dict(ctx, dut)
        await mgr.write_ok(ctx, CTRL, clear_soft | ENABLE)
        assert [await mgr.read_ok(ctx, off) for off in err.values()] == [0] * 5
        assert await mgr.read64(ctx, REG["ERR_FIRST_CYCLE"]) == 0
        assert await mgr.read_ok(ctx, REG["STATUS"].offset) & soft == 0
        assert cfg_dict(ctx, dut) == before and ctx.get(dut.enable) == 1
        done.append(True)

    run(dut, bench)
    assert done


def test_soft_error_registers_unprotected_read_zero():
    dut = KvAsuRegisters(SMALL)
    done = []

    async def bench(ctx):
        mgr = setup(ctx, dut)
        for name in ("ERR_UNCORRECTED", "ERR_CORRECTED", "ERR_FIRST_MEM", "ERR_FIRST_ADDR",
                     "ERR_LAST_RECOVERY"):
            assert await mgr.read_ok(ctx, REG[name].offset) == 0
        await mgr.write_ok(ctx, CTRL, REG["CTRL"].mask("CLEAR_SOFT_ERROR") | ENABLE)
        done.append(True)

    run(dut, bench)
    assert done


def test_error_counters_saturate():
    """The ERR_* counters' add (``hdl.regs.soft_errors.saturating_add``): ``min(value + n, 2**32 - 1)``
    at and around the bound, for the increments the register block makes (0 to 2)."""
    from amaranth import Module, Signal
    from amaranth.sim import Simulator as Sim

    from hdl.regs.soft_errors import saturating_add
    m = Module()
    value, n = Signal(32), Signal(2)
    out = Signal(32)
    m.d.comb += out.eq(saturating_add(m, value, n, name="sum"))
    top = 0xFFFF_FFFF
    checked = []

    async def bench(ctx):
        for v in (0, 1, 0x7FFF_FFFF, top - 3, top - 2, top - 1, top):
            for k in range(3):
                ctx.set(value, v)
                ctx.set(n, k)
                assert ctx.get(out) == min(v + k, top), (hex(v), k)
                checked.append((v, k))

    sim = Sim(m)
    sim.add_testbench(bench)
    sim.run()
    assert len(checked) == 21
