# SPDX-License-Identifier: Apache-2.0
"""``make sim``'s command line refuses what it cannot run before it builds anything; a pass
names its outputs, draws the per-frame plot (verif.sim_plot) and points GTKWave at
docs/sim.gtkw, whose signals all exist in the generated top module."""

import json
import re
import sys

import pytest

from verif import sim_main, sim_plot

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


def frame(n, **overrides):
    """A made-up frame of ``sim_main.json`` (the deltas over one frame)."""
    d = {"frame": n, "observes": 100, "observe_hits": 60, "obs_t0": 40, "obs_t1": 30,
         "obs_t2": 20, "obs_t3": 10, "inserts": 1, "replacements": 2, "drops": 3,
         "queries": 50, "query_hits": 20, "evicts": 5, "evicts_empty": 1, "req_dropped": 0,
         "cycle": 400, "stall": 7}
    d.update(overrides)
    return d


FIGURES = {"preset": "small", "seed": 1, "frames": [frame(0), frame(1, obs_t0=100, obs_t1=0,
                                                                     obs_t2=0, obs_t3=0)]}


@pytest.mark.parametrize("preset, message", [
    ("1080p30", "python -m verif.replay 1080p30.npz"),   # 500 M cycles: the fast harness's job
    ("nope", "--preset must be one of small"),
])
def test_refused_presets(preset, message, tmp_path, capsys):
    with pytest.raises(SystemExit) as exit_:
        sim_main.main(["--preset", preset, "--build", str(tmp_path / "sim")])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not (tmp_path / "sim").exists()        # nothing built


def test_the_built_in_trace_fits_the_bound():
    from evaluation.workload import PRESETS, video_kv_requests
    assert int(video_kv_requests(PRESETS["small"])[0][-1]) < sim_main.MAX_CYCLES



@pytest.mark.parametrize("outcome", ["simulator exits", "test fails", "passes"])
def test_only_a_passing_run_names_its_figures(tmp_path, monkeypatch, capsys, outcome):
    """The waveform and figures of an earlier run are deleted before this one; only a run
    that passes prints both paths, and a failed one at most its own waveform's (never an
    earlier run's)."""
    from verif import runner as R
    build = tmp_path / "sim"
    build.mkdir()
    old = [build / "sim_main.json", build / "kv_asu.fst", build / "results.xml",
           build / "sim_main.png"]
    for path in old:
        path.write_text("an earlier run's\n")

    class Runner:
        log = __import__("logging").getLogger("test")

    def run(*args, **kwargs):
        assert not any(p.exists() for p in old)          # gone before the simulation
        if outcome == "simulator exits":
            raise SystemExit(1)
        failures = int(outcome == "test fails")
        (build / "results.xml").write_text(
            f'<testsuites><testsuite tests="1" failures="{failures}"/></testsuites>')
        if outcome != "simulator exits":
            (build / "kv_asu.fst").write_text("this run's")
        if not failures:
            (build / "sim_main.json").write_text(json.dumps(FIGURES))
    monkeypatch.delenv("WAVES", raising=False)
    monkeypatch.setattr(R, "get_runner", lambda sim: Runner())
    monkeypatch.setattr(R, "build", lambda *args, **kwargs: Runner())
    monkeypatch.setattr(R, "run", run)
    code = sim_main.main(["--build", str(build)])
    out = capsys.readouterr().out
    if outcome == "passes":
        assert code == 0 and "make sim: PASSED" in out
        assert f"per-frame figures: {build / 'sim_main.json'}" in out
        assert f"waveform: {build / 'kv_asu.fst'}" in out
        assert f"view: gtkwave {build / 'kv_asu.fst'} {sim_main.GTKW}" in out
        try:
            import matplotlib  # noqa: F401
        except ImportError:
            assert "plot skipped: No module named 'matplotlib'" in out
        else:
            assert f"per-frame plot: {build / 'sim_main.png'}" in out
            assert (build / "sim_main.png").read_bytes().startswith(PNG_MAGIC)
    elif outcome == "test fails":      # this run's waveform, which ends at the failure
        assert code == 1 and "sim_main.json" not in out and "sim_main.png" not in out
        assert "view: gtkwave" not in out
        assert f"waveform (up to the failure): {build / 'kv_asu.fst'}" in out
    else:
        assert code == 1
        assert "sim_main.json" not in out and "kv_asu.fst" not in out
        assert not (build / "sim_main.json").exists() and not (build / "kv_asu.fst").exists()


def test_the_plot_is_a_png(tmp_path):
    pytest.importorskip("matplotlib")
    out = sim_plot.plot(FIGURES, tmp_path / "sub" / "sim_main.png")
    assert out == tmp_path / "sub" / "sim_main.png"
    data = out.read_bytes()
    assert data.startswith(PNG_MAGIC) and len(data) > 10_000


@pytest.mark.parametrize("figures, message", [
    ({}, "no 'frames' list"),
    ({"frames": []}, "no 'frames' list"),
    ({"frames": [frame(0), {k: v for k, v in frame(1).items() if k != "stall"}]},
     r"frames\[1\] \(frame 1\) lacks stall"),
    ({"frames": [{k: v for k, v in frame(0).items() if k not in ("obs_t2", "cycle")}]},
     "lacks obs_t2, cycle"),
])
def test_the_plot_names_a_missing_key(tmp_path, figures, message):
    with pytest.raises(ValueError, match=message):
        sim_plot.plot(figures, tmp_path / "p.png")
    assert not (tmp_path / "p.png").exists()


def test_the_plot_is_skipped_in_one_line_without_matplotlib(tmp_path, monkeypatch, capsys):
    (tmp_path / "sim_main.json").write_text(json.dumps(FIGURES))
    monkeypatch.setitem(sys.modules, "matplotlib", None)        # import matplotlib fails
    assert not sim_main.plot_figures(tmp_path / "sim_main.json", tmp_path / "sim_main.png")
    captured = capsys.readouterr()
    assert captured.out.startswith("plot skipped: ") and captured.out.count("\n") == 1
    assert "matplotlib" in captured.out and "eval" in captured.out
    assert "Traceback" not in captured.out + captured.err
    assert not (tmp_path / "sim_main.png").exists()


def test_the_plotted_figures_are_the_printed_ones():
    """verif.sim_plot computes each frame's q-hit, kv-hit, T0..T3 mix and req/cyc as the
    frame lines of verif.cocotb_sim_main print them."""
    from verif.cocotb_sim_main import fmt_frame
    for d in (frame(0), frame(1, observes=0, obs_t0=0, obs_t1=0, obs_t2=0, obs_t3=0),
              frame(2, queries=0, query_hits=0, cycle=0), frame(3, obs_t0=7, obs_t3=53)):
        fields = fmt_frame("x", d, d["stall"]).split()
        f = sim_plot.frame_figures(d)
        mix = " ".join(fields[2:-8]).replace(" ", "").split("/")
        want = [f"{m:.0f}" if d["observes"] else "-" for m in f["mix"]]
        assert mix == want
        assert fields[-8:-6] == [f"{f['q_hit']:.1f}%", f"{f['kv_hit']:.1f}%"]
        assert fields[-2:] == [f"{f['req_per_cycle']:.3f}", str(f["stall"])]


# --- docs/sim.gtkw ---------------------------------------------------------------------

def gtkw_signals(text):
    """The signal names a GTKWave save file lists (not its comments, blank traces
    (``-label``), ``[section]`` lines or ``@flags`` / ``*zoom`` lines)."""
    return [line.strip() for line in text.splitlines()
            if line.strip() and line.strip()[0] not in "[@*-#+"]


def top_declarations(verilog, top="kv_asu"):
    """Name -> (msb, lsb) or None (one bit) of every input, output, wire and reg of the
    Verilog module ``top`` (escaped identifiers without their backslash)."""
    body = re.search(rf"^module {top}\(.*?^endmodule", verilog, re.S | re.M)
    assert body, f"no module {top} in the Verilog"
    decls = {}
    for m in re.finditer(r"^\s*(?:input|output|wire|reg)\s+(?:\[(\d+):(\d+)\]\s+)?"
                         r"(\\\S+|[A-Za-z_][\w$]*)\s*;", body.group(0), re.M):
        msb, lsb, name = m.groups()
        decls[name.lstrip("\\")] = (int(msb), int(lsb)) if msb is not None else None
    return decls


def test_gtkw_signals_exist_in_the_generated_top():
    """Every signal docs/sim.gtkw shows is a signal of the default build's top module,
    ``kv_asu`` (the waveform's scope of the same name; Verilator names its FST variables
    after them), with the width the save file gives it: GTKWave silently leaves out a name
    it cannot find."""
    from hdl.generate import generate
    from regmap import Params
    names = gtkw_signals(sim_main.GTKW.read_text())
    assert len(names) >= 20 and len(set(names)) == len(names)
    decls = top_declarations(generate(Params()))
    for want in ("clk", "rst", "req__valid", "req__ready", "rsp__valid", "rsp__ready",
                 "req__payload.op", "req__payload.addr", "rsp__payload.hit",
                 "rsp__payload.tlevel_before", "occupancy", "stat_inc"):
        assert any(n.split("[")[0] == f"kv_asu.{want}" for n in names), want
    for name in names:
        m = re.fullmatch(r"kv_asu\.([^\[\s]+)(?:\[(\d+):(\d+)\])?", name)
        assert m, f"docs/sim.gtkw: {name!r} is not a kv_asu.NAME[msb:lsb] signal"
        base, msb, lsb = m.groups()
        assert base in decls, f"docs/sim.gtkw: {base} is not a signal of module kv_asu"
        assert decls[base] == ((int(msb), int(lsb)) if msb else None), (
            f"docs/sim.gtkw: {name} but kv_asu declares {base} {decls[base]}")


def test_gtkw_signal_parser():
    text = ("[*] comment\n[timestart] 0\n*-9.000000 -1\n@28\nkv_asu.clk\n@200\n-label\n"
            "@22\nkv_asu.req__payload.addr[63:0]\n")
    assert gtkw_signals(text) == ["kv_asu.clk", "kv_asu.req__payload.addr[63:0]"]
    verilog = ("module kv_asu(clk, a);\n  input clk;\n  wire clk;\n  input [67:0] a;\n"
               "  wire [1:0] \\a.op ;\n  wire \\b$3.hit ;\nendmodule\n"
               "module other(x);\n  wire [3:0] y;\nendmodule\n")
    assert top_declarations(verilog) == {"clk": None, "a": (67, 0), "a.op": (1, 0),
                                         "b$3.hit": None}
