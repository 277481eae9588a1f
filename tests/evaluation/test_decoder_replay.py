# SPDX-License-Identifier: Apache-2.0
"""A real-decoder trace through the Verilated RTL (``verif.replay``): every response and
statistic equal to the golden model's.

The trace is a short piece of the cached SmolLM2 sparse run of the held-out text: its
last 2500 line accesses (decode steps with Quest-selected pages), about 5000 requests,
written with the decoder's own trace writer. It replays on the fast harness's small
configuration (16 entries, 32-bit addresses: the decoder's address map fits), which keeps
the Verilator build small and shares it with verif/test_fast.py; a full-size trace is
replayed by hand with ``python -m verif.replay`` (docs/decoder.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from evaluation import decoder as dec
from golden_model.trace import load_trace, save_trace
from verif.replay import replay
from verif.soak import CONFIGS


def test_real_decoder_trace_replays_clean_on_the_rtl(tmp_path, fast_build_root):
    acc = dec.tail(dec.cached_accesses("heldout", sparse=True), 2500)
    cycle, op, addr, mt = dec.trace_requests(acc)
    path = tmp_path / "decoder.npz"
    save_trace(path, cycle, op, addr, mt, meta={"description": "SmolLM2 sparse decode, cached selection, tail"})
    assert 4000 < len(load_trace(path)) < 6000
    params = CONFIGS["small"]
    assert int(addr.max()) < 2 ** params.ADDR_WIDTH
    s = replay(path, params, fast_build_root / "small")   # raises fast.Mismatch on any difference
    assert s["requests"] == len(cycle)
    assert s["rtl_stats"] == s["model_stats"] and s["rtl_occupancy"] == s["model_occupancy"]
    assert s["model_stats"]["queries"] == int(acc.reads.sum())
    assert s["model_stats"]["observes"] == len(acc)


def _documented_replay_command() -> list[str]:
    """The arguments of docs/decoder.md's ``verif.replay`` command of the cached trace."""
    doc = (Path(__file__).resolve().parents[2] / "docs" / "decoder.md").read_text()
    lines = [line.split() for line in doc.splitlines()
             if line.strip().startswith(".venv/bin/python -m verif.replay ")]
    assert len(lines) == 1, lines
    return lines[0][3:]


def test_the_documented_rtl_replay_command_passes_the_checks_before_the_build(
        tmp_path, monkeypatch, capsys):
    """docs/decoder.md's command, on the trace ``write_cached_trace`` writes (its meta
    config meant for TS_WIDTH 8), gets past every check of verif.replay before the build
    (the build and the run replaced): the small build's parameters and its reset
    configuration. Without --no-trace-config the same command is refused."""
    import verif.replay as vr

    args = _documented_replay_command()
    cached = "build/decoder/heldout_gfdl13_sparse4_256_cached.npz"
    assert args[0] == cached and "--no-trace-config" in args
    path = tmp_path / Path(cached).name
    meta = dec.write_cached_trace(path)
    assert meta["config"] == dec.BLOCK_CONFIG and meta["requests"] == 2_350_080
    made = []

    def fake(trace, params, build, ready_permille=1000, progress=None, predictor=False,
             config=None):
        made.append({"params": params, "config": config, "requests": len(trace)})
        return {"requests": len(trace), "cycles": len(trace), "policy": "article",
                "rtl_stats": {}, "model_stats": {}, "rtl_occupancy": 0, "model_occupancy": 0}
    monkeypatch.setattr(vr, "replay", fake)
    argv = [str(path), *args[1:], "--build", str(tmp_path / "build")]
    assert vr.main(argv) == 0
    assert made == [{"params": CONFIGS["small"], "config": {}, "requests": 2_350_080}]
    # without the option: the trace's configuration, refused before the build
    with pytest.raises(SystemExit) as exit_:
        vr.main([a for a in argv if a != "--no-trace-config"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert "W3=25" in err and "--no-trace-config" in err
    assert len(made) == 1
