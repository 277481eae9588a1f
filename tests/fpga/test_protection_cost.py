# SPDX-License-Identifier: Apache-2.0
"""fpga.protection_cost --only takes the other build's counts from its earlier run only if
that run is of the netlist the sources build now, and says so in one line before any
synthesis if it is not."""

import json

import pytest

import fpga.protection_cost as cost


def _counts(lut):
    return {col: 0 for col in cost.COLUMNS} | {"LUT4": lut}


@pytest.fixture
def tools(monkeypatch):
    """Synthesis replaced (it records what it synthesised); the sources build netlist
    ``now-<protection>``."""
    synthesised = []

    def synthesise(protection, out):
        synthesised.append(protection)
        return {"protection": protection, "summary": _counts(200)}

    monkeypatch.setattr(cost, "synthesise", synthesise)
    monkeypatch.setattr(cost, "_current_netlist", lambda protection: f"now-{protection}")
    return synthesised


def _earlier_run(tmp_path, netlist):
    (tmp_path / "none").mkdir()
    (tmp_path / "none" / "run.json").write_text(json.dumps(
        {"protection": "none", "netlist": netlist, "summary": _counts(150)}))


def test_only_one_takes_the_other_from_its_earlier_run_of_the_same_netlist(tmp_path, tools):
    _earlier_run(tmp_path, "now-none")
    assert cost.main(["--out", str(tmp_path), "--only", "auto"]) == 0
    assert tools == ["auto"]
    report = json.loads((tmp_path / "protection_cost.json").read_text())
    assert report["protection_cost"]["LUT4"] == 50


@pytest.mark.parametrize("netlist, message", [
    (None, "no earlier run in {out}: run without --only"),
    ("before", "the earlier run in {out} is of netlist before, the sources build now-none "
               "now: run without --only"),
])
def test_an_earlier_run_of_another_netlist_is_refused_before_any_synthesis(
        tmp_path, tools, capsys, netlist, message):
    if netlist is not None:
        _earlier_run(tmp_path, netlist)
    assert cost.main(["--out", str(tmp_path), "--only", "auto"]) == 2
    err = capsys.readouterr().err
    assert err == f"error: --only auto: {message.format(out=tmp_path / 'none')}\n"
    assert tools == [] and not (tmp_path / "protection_cost.json").exists()


def test_an_unwritable_output_folder_is_refused(tmp_path, tools, capsys):
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit) as exit_:
        cost.main(["--out", str(tmp_path / "file")])
    assert exit_.value.code == 2 and tools == []
    assert f"--out {tmp_path / 'file'}: is a file, not a folder" in capsys.readouterr().err
