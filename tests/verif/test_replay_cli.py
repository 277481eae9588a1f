# SPDX-License-Identifier: Apache-2.0
"""``python -m verif.replay`` reads a trace as ``python -m golden_model.replay`` does, and
refuses a trace or a parameter it cannot run before it builds anything (a Verilator build
of a new configuration takes minutes): one ``error:`` line, exit status 2.

Most tests stop before the build or replace ``replay`` (no Verilator); the two that run the
RTL use the fast harness's small build, shared with verif/test_fast.py."""

import numpy as np
import pytest

from golden_model import KvAsuModel
from golden_model.trace import load_trace, save_trace
from verif import replay
from verif.soak import CONFIGS


def _trace(path, cycles, addrs, ops=None, meta=None):
    n = len(cycles)
    save_trace(path, np.array(cycles, np.uint64),
               np.array(ops if ops is not None else [0] * n, np.uint8),
               np.array(addrs, np.uint64), np.zeros(n, np.uint8), meta=meta)
    return path


@pytest.fixture
def wide_trace(tmp_path):
    return _trace(tmp_path / "wide.npz", [0, 1, 2], [0x100, 1 << 40, 0x200])


@pytest.fixture
def calls(monkeypatch):
    """``replay.replay`` replaced: the calls ``main`` makes, no build (nor a run of days
    where a refusal is expected and missing)."""
    made = []

    def fake(trace, params, build, ready_permille=1000, progress=None, predictor=False,
             config=None):
        made.append({"trace": trace, "params": params, "config": config})
        return {"requests": len(trace), "cycles": 1, "policy": "article", "rtl_stats": {},
                "model_stats": {}, "rtl_occupancy": 0, "model_occupancy": 0}
    monkeypatch.setattr(replay, "replay", fake)
    return made


def test_a_missing_or_unreadable_trace_is_a_usage_error(tmp_path, capsys):
    for path, message in ((tmp_path / "none.npz", "No such file"),
                          (tmp_path / "empty.npz", "is not a KV-ASU trace")):
        if path.name == "empty.npz":
            path.write_bytes(b"")
        with pytest.raises(SystemExit) as exit_:
            replay.main([str(path), "--build", str(tmp_path / "build")])
        assert exit_.value.code == 2
        assert message in capsys.readouterr().err


@pytest.mark.parametrize("args, message", [
    (["--param", "FOO=1"], "no parameter 'FOO'"),
    (["--param", "ENTRIES=3"], "ENTRIES must be a power of two"),
    (["--param", "ENTRIES=x"], "'x' is not an integer"),
    # legal for regmap, but the RTL's scrubber cannot keep up: refused before the build
    (["--param", "TS_WIDTH=2", "--param", "TICK_SHIFT=0"], "the scrubber visits"),
])
def test_refused_before_building(wide_trace, tmp_path, capsys, calls, args, message):
    build = tmp_path / "build"
    with pytest.raises(SystemExit) as exit_:
        replay.main([str(wide_trace), "--build", str(build), *args])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("error: ") and err.count("\n") == 1
    assert not build.exists()


@pytest.mark.parametrize("meta, cycles, message", [
    # the meta as golden_model.replay refuses it (a traceback, or ignored, before)
    ({"params": [1, 2]}, [0], "meta['params'] of"),
    ({"params": {"entries": "512"}}, [0], "ENTRIES must be an integer, not '512'"),
    ({"params": {"entries": 512, "ENTRIES": 1024}}, [0], "gives entries twice"),
    ({"config": "c3=2"}, [0], "meta['config'] of"),
    ({"config": {"zz": 2}}, [0], "unknown key(s) zz"),
    ({"config": {"c3": 1, "c2": 3}}, [0], "illegal configuration"),
    # a replay of days, or of ever: the harness simulates every cycle
    ({}, [0, 1 << 40], "its last request is at cycle 1,099,511,627,776"),
    ({}, [2**64 - 2, 2**64 - 1], "after --max-cycles"),
])
def test_a_trace_it_cannot_run_is_refused_before_building(tmp_path, capsys, calls, meta,
                                                          cycles, message):
    trace = _trace(tmp_path / "t.npz", cycles, [0x100] * len(cycles), meta=meta)
    build = tmp_path / "build"
    with pytest.raises(SystemExit) as exit_:
        replay.main([str(trace), "--build", str(build)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert message in err and err.startswith("error: ") and err.count("\n") == 1
    assert not build.exists()


def test_max_cycles_lets_a_long_trace_run(tmp_path, calls):
    trace = _trace(tmp_path / "t.npz", [0, 1 << 40], [0x100, 0x100])
    assert replay.main([str(trace), "--build", str(tmp_path / "b"),
                        "--max-cycles", str(1 << 41)]) == 0
    assert len(calls) == 1


def test_meta_params_of_no_block_parameter_are_named_in_a_note(tmp_path, calls, capsys):
    """A workload generator's own settings in ``meta["params"]`` (evaluation.workload
    writes its frame rate, resolution ...) are ignored with a note naming them, as
    golden_model.replay does; the block's parameters among them apply."""
    trace = _trace(tmp_path / "t.npz", [0], [0x100],
                   meta={"params": {"Entries": 512, "fps": 30, "resolution": [768, 512]}})
    assert replay.main([str(trace), "--build", str(tmp_path / "b")]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: ") and err.count("\n") == 1
    assert "fps, resolution" in err and "entries" not in err
    assert calls[0]["params"].ENTRIES == 512


def test_meta_config_is_committed(tmp_path, calls):
    """``meta["config"]`` (keys in any case) goes to the replay, as golden_model.replay
    commits it at cycle 0 (it was ignored)."""
    trace = _trace(tmp_path / "t.npz", [0], [0x100], meta={"config": {"C3": 2, "c2": 1}})
    assert replay.main([str(trace), "--build", str(tmp_path / "b")]) == 0
    assert calls[0]["config"] == {"c3": 2, "c2": 1}


def test_config_options_as_golden_model_replays(tmp_path, calls, capsys):
    """``--config`` is committed over ``meta["config"]`` (golden_model.replay's option);
    ``--no-trace-config`` leaves ``meta["config"]`` out (the build's reset configuration),
    so a trace whose configuration does not fit ``--param`` still replays; a bad
    ``--config`` is refused before the build."""
    trace = _trace(tmp_path / "t.npz", [0], [0x100],
                   meta={"config": {"c3": 2, "c2": 1, "w3": 25, "w2": 50, "w1": 125}})
    build = tmp_path / "b"
    assert replay.main([str(trace), "--build", str(build), "--config", "c2=2,w1=126"]) == 0
    assert calls[-1]["config"] == {"c3": 2, "c2": 2, "w3": 25, "w2": 50, "w1": 126}
    assert replay.main([str(trace), "--build", str(build), "--no-trace-config"]) == 0
    assert calls[-1]["config"] == {}
    assert replay.main([str(trace), "--build", str(build), "--no-trace-config",
                        "--config", "C3=3"]) == 0
    assert calls[-1]["config"] == {"c3": 3}
    small = [arg for name, value in CONFIGS["small"].as_dict().items()
             for arg in ("--param", f"{name}={value}")]
    for extra, message in ((["--config", "zz=1"], "bad configuration item 'zz=1'"),
                           ([], "--no-trace-config replays from the build's reset"),
                           (["--no-trace-config", "--config", "w3=9"], "error: --config: ")):
        with pytest.raises(SystemExit) as exit_:
            replay.main([str(trace), "--build", str(build), *small, *extra])
        assert exit_.value.code == 2
        err = capsys.readouterr().err
        assert message in err and err.count("\n") == 1, err
    assert len(calls) == 3


def test_address_bits_above_addr_width_are_dropped_with_a_note(wide_trace, tmp_path, calls,
                                                               capsys):
    """Spec D2: only the low ADDR_WIDTH bits of an address exist; golden_model.replay reads
    such a trace, so verif.replay does too (it refused it), saying so."""
    assert replay.main([str(wide_trace), "--build", str(tmp_path / "b"),
                        "--param", "ADDR_WIDTH=32", "--param", "TAG_WIDTH=24"]) == 0
    err = capsys.readouterr().err
    assert err.startswith("note: ") and err.count("\n") == 1
    assert "1 request(s) have address bits above ADDR_WIDTH = 32" in err
    assert "request 1, 0x10000000000" in err


def test_a_failure_of_the_harness_is_not_reported_as_a_mismatch(wide_trace, tmp_path,
                                                                monkeypatch, capsys):
    """The harness's own error (``fast.HarnessError``) exits 3 and says so; it is never
    "MISMATCH between the RTL and the golden model"."""
    from verif import fast

    def broken(*args, **kwargs):
        raise fast.HarnessError("the harness itself failed (killed by signal 11): ")
    monkeypatch.setattr(replay, "replay", broken)
    assert replay.main([str(wide_trace), "--build", str(tmp_path / "b")]) == 3
    out = capsys.readouterr().out
    assert out.startswith("replay: HARNESS ERROR") and "MISMATCH" not in out


# ---- on the RTL (the small build) -----------------------------------------------------------

def _model_stats(params, trace, **config):
    model = KvAsuModel(params)
    if config:
        model.commit(0, **config)
    model.run(trace.cycle, trace.op, trace.addr, trace.min_tlevel)
    return model.stats.as_dict(), model.occupancy


def test_a_committed_config_and_a_long_idle_gap_on_the_rtl(tmp_path, fast_build_root):
    """The configuration is committed in the RTL as in the model (the statistics differ
    from the reset configuration's), and an idle gap longer than the harness's hang bound
    (100 000 cycles) is replayed, not a hang."""
    params = CONFIGS["small"]
    gap = 1 << 17
    cycles = [*range(12), *range(gap, gap + 12)]
    trace = load_trace(_trace(tmp_path / "t.npz", cycles, [0x1200] * 24))
    config = {"c3": 2, "c2": 1, "w3": 1, "w2": 2, "w1": 3}
    s = replay.replay(trace, params, fast_build_root / "small", config=config)
    assert s["config"] == {**s["config"], **config}
    assert (s["model_stats"], s["model_occupancy"]) == _model_stats(params, trace, **config)
    assert s["model_stats"] != _model_stats(params, trace)[0]
    assert s["rtl_stats"] == s["model_stats"] and s["rtl_occupancy"] == s["model_occupancy"]
    assert s["cycles"] > gap


def test_address_bits_above_addr_width_on_the_rtl(tmp_path, fast_build_root):
    """An address and the same one with bits above ADDR_WIDTH (32 in the small build) are
    one line, in the RTL as in the golden model."""
    params = CONFIGS["small"]
    trace = load_trace(_trace(tmp_path / "t.npz", [0, 1, 2],
                              [0x1200, (1 << 40) | 0x1200, 2**64 - 1]))
    s = replay.replay(trace, params, fast_build_root / "small")
    assert (s["model_stats"], s["model_occupancy"]) == _model_stats(params, trace)
    assert s["model_stats"]["observe_hits"] == 1
    assert s["rtl_stats"] == s["model_stats"] and s["rtl_occupancy"] == s["model_occupancy"]
