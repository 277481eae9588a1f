# SPDX-License-Identifier: Apache-2.0
"""``make sim``'s command line refuses what it cannot run before it builds anything."""

import pytest

from verif import sim_main


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
