# SPDX-License-Identifier: Apache-2.0
"""``python -m verif.replay`` refuses a trace or a parameter it cannot run before it builds
anything (a Verilator build of a new configuration takes minutes)."""

import numpy as np
import pytest

from golden_model.trace import save_trace
from verif import replay


@pytest.fixture
def wide_trace(tmp_path):
    path = tmp_path / "wide.npz"
    save_trace(path, np.arange(3, dtype=np.uint64), np.zeros(3, np.uint8),
               np.array([0x100, 1 << 40, 0x200], np.uint64), np.zeros(3, np.uint8))
    return path


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
    (["--param", "ADDR_WIDTH=32"], "request 1 of"),
    (["--param", "FOO=1"], "no parameter 'FOO'"),
    (["--param", "ENTRIES=3"], "ENTRIES must be a power of two"),
    (["--param", "ENTRIES=x"], "'x' is not an integer"),
])
def test_refused_before_building(wide_trace, tmp_path, capsys, args, message):
    build = tmp_path / "build"
    with pytest.raises(SystemExit) as exit_:
        replay.main([str(wide_trace), "--build", str(build), *args])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err
    assert not build.exists()


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
