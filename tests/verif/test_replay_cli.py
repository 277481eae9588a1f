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
