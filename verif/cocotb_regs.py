# SPDX-License-Identifier: Apache-2.0
"""Register tests through the AXI4-Lite port (cocotbext-axi AxiLiteMaster), decision D8."""

from __future__ import annotations

from cocotb.triggers import ClockCycles, FallingEdge
from cocotbext.axi import AxiResp

import regmap
from regmap import CONFIG_NAMES, REG, REGISTERS, STAT_REGISTERS, config_legal
from verif.kvasu_tb import (CLEAR_ERROR, CLEAR_STATS, COMMIT, ENABLE, FLUSH, OBSERVE, ST_ERROR,
                            KvAsuTB, Mismatch, ReqItem, tb_test)
from verif.cocotb_random import Stimulus, back_to_back, random_config
from verif.tb.statistics_memory import deposit_statistics, statistics_memory


#: Registers compared before and after the unmapped sweep (``unmapped_decerr``).
SWEEP_WATCH = ("CTRL", "STATUS", "OCCUPANCY") + tuple(r.name for r in STAT_REGISTERS) + \
    CONFIG_NAMES + tuple(f"ACT_{n}" for n in CONFIG_NAMES)


def mapped_words():
    words = set()
    for reg in REGISTERS:
        words.update(reg.offsets)
    return words


@tb_test(responses=False)
async def reset_values_and_identification(tb: KvAsuTB):
    """Out of reset: ID, VERSION and every parameter register (incl. WMAX) match regmap and
    the build; CTRL=ENABLE; STATUS=0; shadows and ACT_* hold the D4 defaults; OCCUPANCY,
    statistics zero; CYCLE counts from the first edge with reset low."""
    await tb.check_all_registers()
    assert await tb.read_reg("ID") == regmap.ID
    assert await tb.read_reg("P_WMAX") == tb.p.WMAX
    c = await tb.read_reg("CYCLE")
    assert 0 < c < 1000
    # the two low address bits are ignored (D8)
    for reg in (REG["ID"], REG["P_ENTRIES"], REG["C3"]):
        for low in (1, 2, 3):
            r = await tb.axil.read(reg.offset + low, 4 - low)   # one beat, ARADDR unaligned
            v = int.from_bytes(r.data, "little")
            want = tb.registers.expected_word(reg.offset) >> (8 * low)
            if r.resp != AxiResp.OKAY or v != want:
                raise Mismatch(f"read of {reg.name} at {reg.offset + low:#05x}: {r.resp!r} "
                               f"{v:#x}, want OKAY {want:#x} (low address bits are ignored)")
    tb.cov.hit("regs.reset_values")


@tb_test()
async def read_only_writes_refused(tb: KvAsuTB):
    """A write to any read-only word (both halves of 64-bit counters) gets SLVERR and changes
    nothing, in a state where a change would show: after traffic has made the counters
    non-zero and with STATUS.ERROR set (a refused commit), so that a read-only write that
    acted as a CLEAR_ERROR would be seen. Each word is written twice: all ones with every
    strobe, then ones on a random run of byte lanes."""
    stim = Stimulus(tb)
    tb.send_items(stim.items(200))
    await tb.drain()
    for k, v in random_config(tb, legal=False).items():
        await tb.write_reg(k, v)
    await tb.write_ctrl(COMMIT | ENABLE)          # refused: SLVERR (checked), ERROR set
    assert tb.mirror.error == 1
    for reg in REGISTERS:
        if reg.access != "ro":
            continue
        for off in reg.offsets:
            width = tb.rng.randint(1, 4)
            lane = tb.rng.randint(0, 4 - width)
            for at, data in ((off, b"\xff" * 4), (off + lane, b"\xff" * width)):
                resp = await tb.wr_bytes(at, data)
                if resp != AxiResp.SLVERR:
                    raise Mismatch(f"write of {len(data)} byte(s) to RO {reg.name} @ {at:#05x} "
                                   f"got {resp!r}, want SLVERR")
            tb.cov.hit("regs.ro_write_slverr")
    await tb.check_all_registers()
    assert await tb.read_reg("STATUS") & ST_ERROR, f"STATUS.ERROR cleared (seed {tb.seed})"
    await tb.check_quiescent("ro writes")


@tb_test()
async def unmapped_decerr(tb: KvAsuTB):
    """Every unmapped word of the 4 KiB window: read gives DECERR and 0, write gives DECERR
    and has no effect. The writes (all ones) go to a block that is not at its reset state,
    so that any effect would show: the table holds lines, the statistics are non-zero,
    STATUS.ERROR is 1 (a refused commit), CTRL.ENABLE is 0 and the shadows hold a legal
    configuration other than the active one (so an all-ones write reaching CTRL would
    commit, flush, clear the statistics, clear ERROR or set ENABLE, and one reaching a
    shadow would change it). Afterwards every register is unchanged (the mirror, and
    OCCUPANCY, the statistics, STATUS and CTRL compared with their values before the
    sweep), and the next traffic matches the model. Icarus runs a sample."""
    mapped = mapped_words()
    words = [a for a in range(0, 1 << regmap.AXIL_ADDR_WIDTH, 4) if a not in mapped]
    if tb.scale < 0.5:
        words = sorted(a for a in set(tb.rng.sample(words, 96)) |
                       {0x02C, 0x04C, 0x058, 0x078, 0x098, 0x0FC, 0xFFC,
                        STAT_REGISTERS[-1].offsets[-1] + 4}
                       if a not in mapped)
    stim = Stimulus(tb)
    stim.weights = [60, 30, 0, 0]                 # no EVICT: the table keeps its lines
    tb.send_items([ReqItem(OBSERVE, tb.space.addr(stim.line()))] +
                  back_to_back(stim.items(int(150 * tb.scale) + 20)))
    await tb.drain()
    for k, v in random_config(tb, legal=False).items():
        await tb.write_reg(k, v)
    await tb.write_ctrl(COMMIT | ENABLE)          # refused: SLVERR (checked), ERROR set
    assert tb.mirror.error == 1
    shadow = {k: v for k, v in random_config(tb).items() if k != "HASH_SEED"}
    shadow["HASH_SEED"] = tb.active["HASH_SEED"] ^ 0x5A5A_0001
    for k, v in shadow.items():                   # legal, other than the active one
        await tb.write_reg(k, v)
    assert config_legal(tb.p, tb.mirror.shadow)
    await tb.write_ctrl(0)                        # ENABLE = 0
    await tb.check_quiescent("before the unmapped sweep")
    before = {name: await tb.read_reg(name) for name in SWEEP_WATCH}
    assert before["OCCUPANCY"] > 0, before
    assert before["STATUS"] & ST_ERROR and before["CTRL"] == 0, before
    assert any(before[reg.name] for reg in STAT_REGISTERS), before
    for a in words:
        v, resp = await tb.rd(a)
        if resp != AxiResp.DECERR or v != 0:
            raise Mismatch(f"read of unmapped {a:#05x}: {resp!r} data {v:#x}, want DECERR, 0")
        resp = await tb.wr_bytes(a, (0xFFFFFFFF).to_bytes(4, "little"))
        if resp != AxiResp.DECERR:
            raise Mismatch(f"write to unmapped {a:#05x}: {resp!r}, want DECERR")
    tb.cov.hit("regs.unmapped_decerr", len(words))
    await tb.check_all_registers()                # every register: the mirror's
    after = {name: await tb.read_reg(name) for name in SWEEP_WATCH}
    changed = {n: (before[n], after[n]) for n in before if before[n] != after[n]}
    assert not changed, f"unmapped writes changed {changed} (seed {tb.seed})"
    await tb.write_ctrl(ENABLE)
    tb.send_items(back_to_back(stim.items(int(100 * tb.scale) + 20)))
    await tb.check_quiescent("after the unmapped sweep")


@tb_test(responses=False)
async def write_strobes(tb: KvAsuTB):
    """Byte strobes on the shadow registers: every width (1 to 4 bytes) at every lane it fits
    merges into the 32-bit shadow (which holds all 32 bits, D8); a CTRL write whose strobes
    miss byte 0 does nothing."""
    rng = tb.rng
    # every width at every lane it fits (10 pairs), in a random order per register
    pairs = [(nbytes, byte) for nbytes in (1, 2, 3, 4) for byte in range(5 - nbytes)]
    for name in CONFIG_NAMES:
        await tb.write_reg(name, 0)
        for nbytes, byte in rng.sample(pairs, len(pairs)):
            await tb.write_reg(name, rng.getrandbits(32), nbytes=nbytes, byte=byte)
            await tb.read_reg(name)
            tb.cov.hit(f"regs.strobe_{nbytes}B")
    for k, v in tb.p.defaults.items():
        await tb.write_reg(k, v)
    # CTRL: lanes 1..3 only: no action, enable unchanged
    await tb.write_ctrl(0xFFFFFF00, nbytes=3, byte=1)
    await tb.check_all_registers()
    tb.cov.hit("regs.ctrl_strobe_miss")


@tb_test()
async def illegal_commits_refused(tb: KvAsuTB):
    """Each kind of illegal configuration (C2=0, C2>C3, C3>COUNT_MAX, W3>W2, W2>W1, W1>WMAX,
    all-ones values) is refused with SLVERR; ACT_* keep the old values, STATUS.ERROR is set and
    sticky until CLEAR_ERROR, and nothing else in the same CTRL write happens (FLUSH,
    CLEAR_STATS); traffic afterwards still uses the old configuration."""
    p = tb.p
    stim = Stimulus(tb)
    tb.send_items(stim.items(100))
    await tb.drain()
    good = {k: v for k, v in random_config(tb).items() if k != "HASH_SEED"}
    await tb.commit(**good)
    cases = [dict(C2=0), dict(C2=tb.active["C3"] + 1), dict(C3=p.COUNT_MAX + 1),
             dict(W3=tb.active["W2"] + 1), dict(W2=tb.active["W1"] + 1), dict(W1=p.WMAX + 1),
             dict(W1=0xFFFFFFFF), dict(C3=0xFFFFFFFF), dict(C3=1 << 31, C2=1)]
    for case in cases:
        for k, v in tb.active.items():
            await tb.write_reg(k, v)
        for k, v in case.items():
            await tb.write_reg(k, v)
        assert not config_legal(tb.p, tb.mirror.shadow), f"case {case} is legal (seed {tb.seed})"
        occ = tb.model.occupancy
        await tb.write_ctrl(COMMIT | FLUSH | CLEAR_STATS | ENABLE)   # checks SLVERR
        assert tb.mirror.error == 1 and tb.model.occupancy == occ
        await tb.check_all_registers()       # ACT_* unchanged, STATUS.ERROR, stats kept
        tb.send_items(stim.items(50))
        await tb.check_quiescent("after refused commit")
    # sticky until CLEAR_ERROR; a good commit does not clear it either
    for k, v in tb.active.items():
        await tb.write_reg(k, v)
    await tb.write_ctrl(COMMIT | ENABLE)
    await tb.check_all_registers()
    assert tb.mirror.error == 1
    await tb.write_ctrl(CLEAR_ERROR | ENABLE)
    await tb.check_all_registers()
    assert (await tb.read_reg("STATUS")) & ST_ERROR == 0


@tb_test()
async def enable_gates_requests(tb: KvAsuTB):
    """CTRL.ENABLE=0: requests already accepted are answered, no new one is accepted (ready
    low) for as long as it stays 0; ENABLE=1 lets them through."""
    stim = Stimulus(tb)
    tb.send_items(stim.items(300))
    await ClockCycles(tb.dut.clk, 40)
    await tb.write_ctrl(0)
    n = tb.scoreboard.accepted
    await ClockCycles(tb.dut.clk, 200)
    assert tb.scoreboard.accepted == n, "requests accepted while ENABLE=0"
    assert not tb.scoreboard.expected, "accepted requests not answered while disabled"
    assert tb.driver.reqq or tb.driver.cur is not None
    for reg in ("CTRL", "STATUS", "OCCUPANCY"):
        await tb.read_reg(reg)
    tb.cov.hit("regs.enable_low_blocks")
    await tb.write_ctrl(ENABLE)
    await tb.drain()
    await tb.check_quiescent("enable")


@tb_test()
async def flush_and_clear_stats(tb: KvAsuTB):
    """FLUSH untracks everything (OCCUPANCY 0, STATUS.BUSY while a clear sweep runs, D12;
    statistics kept);
    CLEAR_STATS zeroes every counter (table kept); both in one write; action bits read 0."""
    stim = Stimulus(tb)
    tb.send_items(stim.items(300))
    await tb.check_quiescent("before flush")
    await tb.write_ctrl(FLUSH | ENABLE)
    await tb.wait_not_busy()
    await tb.check_all_registers()
    await tb.check_quiescent("after flush")
    tb.send_items(stim.items(200))
    await tb.write_ctrl(CLEAR_STATS | ENABLE)
    await tb.check_quiescent("after clear stats")
    tb.send_items(stim.items(100))
    await tb.write_ctrl(FLUSH | CLEAR_STATS | ENABLE)
    await tb.wait_not_busy()
    await tb.check_all_registers()
    await tb.check_quiescent("after both")


def _handle(dut, *path):
    h = dut
    try:
        for name in path:
            h = getattr(h, name)
        return h
    except AttributeError:
        return None


@tb_test()
async def counter_lo_hi_latch(tb: KvAsuTB):
    """64-bit counters (D8): LO returns the low half and latches the high half of the same
    counter into ONE shared latch that every HI word returns. Counters cannot reach 2**32 in
    simulation, so the test deposits values just below a 2**32 boundary into the RTL's
    statistics memory (coded as D11 stores it, found as the fault campaign finds it) and
    cycle counter (``timebase.cycle``) and checks: the carry into HI, that HI returns the
    latch of the last LO read (of any counter), and that a LO/HI pair of CYCLE is one atomic
    sample although the counter crosses 2**32 between the two reads. A reset at the end
    restores everything."""
    stim = Stimulus(tb)
    tb.send_items(stim.items(100))
    await tb.drain()
    obs, qry, cyc = REG["STAT_OBSERVES"], REG["STAT_QUERIES"], REG["CYCLE"]
    v, _ = await tb.rd(obs.offset)
    assert v == tb.model.stats.observes & 0xFFFFFFFF
    for reg in REGISTERS:
        if reg.wide:
            hi, resp = await tb.rd(reg.offset + 4)
            assert resp == AxiResp.OKAY and hi == 0, (reg.name, hi)
    memory, code = statistics_memory(tb)
    index = regmap.STAT_NAMES.index("observes")
    h_cyc = _handle(tb.dut, "timebase", "cycle")
    assert h_cyc is not None, "the cycle counter (timebase.cycle) not reachable by name"
    base = (1 << 33) - 2                        # 0x1_FFFF_FFFE
    await deposit_statistics(tb, memory, {index: code.encode_int(base)})
    lo, _ = await tb.rd(obs.offset)
    hi, _ = await tb.rd(obs.offset + 4)
    assert (lo, hi) == (0xFFFFFFFE, 1), (
        f"the deposit of {base:#x} into the observes counter reads {hi:#x}:{lo:#010x}")
    n0 = tb.model.stats.observes
    addr = tb.space.addr(tb.space.random_line())
    await tb.batch([(OBSERVE, addr)] * 3)
    await ClockCycles(tb.dut.clk, 64)      # let any pre-counter drain into the counter
    val = base + tb.model.stats.observes - n0
    lo, _ = await tb.rd(obs.offset)
    q_lo, _ = await tb.rd(qry.offset)          # latches the QUERIES high half (0)
    hi_after_other, _ = await tb.rd(obs.offset + 4)
    assert lo == val & 0xFFFFFFFF and hi_after_other == 0, (hex(lo), hi_after_other)
    lo, _ = await tb.rd(obs.offset)
    hi, _ = await tb.rd(qry.offset + 4)         # any HI word returns the one latch
    assert (lo | hi << 32) == val, (hex(lo), hi, hex(val))
    tb.cov.hit("regs.lo_hi_carry")
    # CYCLE crossing 2**32 between the LO and the HI read
    await FallingEdge(tb.dut.clk)
    h_cyc.value = (1 << 32) - 40
    lo, _ = await tb.rd(cyc.offset)
    await ClockCycles(tb.dut.clk, 80)
    hi, _ = await tb.rd(cyc.offset + 4)
    assert lo >= (1 << 32) - 40 and hi == 0, (hex(lo), hi)
    lo, _ = await tb.rd(cyc.offset)
    hi, _ = await tb.rd(cyc.offset + 4)
    assert hi == 1 and lo < 200, (hex(lo), hi)
    tb.cov.hit("regs.lo_hi_atomic")
    await tb.reset(2)                           # the block's time was moved: start afresh
    await tb.check_all_registers()
