# SPDX-License-Identifier: Apache-2.0
"""dist/ is self-contained and current: every file tools.dist writes (file lists, SDC,
copies of sw/ and LICENSE, MANIFEST, the build tables of docs/integration.md) is there and
equal to what it gives now; the MANIFEST's hashes hold; the file lists compile; the tables
say what the builds are."""

import hashlib
import re
import shutil
import subprocess

import pytest

from tools import dist, dist_docs

from .conftest import DIST, ROOT


@pytest.fixture(scope="module")
def generated():
    # every file but the builds' Verilog (test_dist.py renders and compares that)
    return dist.generated([])


def test_every_generated_file_is_shipped_and_current(generated):
    assert set(generated) >= {
        "dist/LICENSE", "dist/MANIFEST", "dist/kv_asu.sdc", "docs/integration.md",
        *(f"dist/sw/{n}" for n in dist.SW_FILES),
        *(f"dist/{b}/files.f" for b in dist.BUILDS)}
    missing = [rel for rel in generated if not (ROOT / rel).is_file()]
    stale = [rel for rel, text in generated.items()
             if rel not in missing and (ROOT / rel).read_text() != text]
    assert not missing and not stale, (
        f"missing {missing}, out of date {stale}; regenerate with: {dist.REGENERATE}")


def test_check_names_a_stale_copy(monkeypatch, tmp_path):
    # a copy of the checkout's dist/ with one driver copy edited: stale_files names it
    copy = tmp_path / "dist"
    shutil.copytree(DIST, copy)
    (copy / "sw" / "kv_asu.c").write_text("/* edited */\n")
    (copy / "LICENSE").unlink()
    monkeypatch.setattr(dist, "DIST", copy)
    monkeypatch.setattr(dist, "ROOT", tmp_path)
    for sub in ("sw", "docs"):
        shutil.copytree(ROOT / sub, tmp_path / sub)
    shutil.copy2(ROOT / "LICENSE", tmp_path / "LICENSE")
    monkeypatch.setattr(dist, "INTEGRATION_MD", tmp_path / "docs" / "integration.md")
    stale = dist.stale_files([])
    assert "dist/sw/kv_asu.c" in stale and "dist/LICENSE" in stale, stale
    assert "dist/MANIFEST" not in stale       # it hashes what the files should be


def test_manifest_hashes_every_file_of_dist():
    lines = [l for l in (DIST / "MANIFEST").read_text().splitlines()
             if l and not l.startswith("#")]
    listed = {}
    for line in lines:
        digest, rel = line.split("  ", 1)
        listed[rel] = digest
    on_disk = {p.relative_to(DIST).as_posix() for p in DIST.rglob("*")
               if p.is_file() and p.name != "MANIFEST"}
    assert set(listed) == on_disk, set(listed) ^ on_disk
    for rel, digest in listed.items():
        assert hashlib.sha256((DIST / rel).read_bytes()).hexdigest() == digest, rel
    # each build's core says its parameters
    text = (DIST / "MANIFEST").read_text()
    assert "# ice40/kv_asu.v: core, ice40 build" in text and "ENTRIES=128" in text


def test_sha256sum_checks_the_manifest():
    proc = subprocess.run(["sha256sum", "--strict", "-c", "MANIFEST"], cwd=DIST,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]


def test_licence_and_driver_copies_equal_their_sources():
    assert (DIST / "LICENSE").read_bytes() == (ROOT / "LICENSE").read_bytes()
    for name in dist.SW_FILES:
        assert (DIST / "sw" / name).read_bytes() == (ROOT / "sw" / name).read_bytes(), name


@pytest.mark.parametrize("build", sorted(dist.BUILDS))
def test_file_list_compiles_the_build_with_icarus(build, tmp_path):
    proc = subprocess.run(["iverilog", "-g2005", "-o", str(tmp_path / "a.vvp"),
                           "-s", "kv_asu_wrapper",
                           *(f"-Pkv_asu_wrapper.{k}={v}"
                             for k, v in dist.BUILDS[build].wrapper_params().items()),
                           "-c", f"{build}/files.f"], cwd=DIST, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-3000:]


def test_sdc_constrains_clk_at_the_ecp5_target():
    from fpga.flow import TARGETS
    text = (DIST / "kv_asu.sdc").read_text()
    period = 1000.0 / TARGETS["ecp5"].default_freq
    assert re.search(rf"^create_clock -name clk -period {period:.3f} \[get_ports clk\]$",
                     text, re.M), text
    assert "rst -> req_ready" in text
    # every other line is a comment: nothing but the clock is constrained
    assert [l for l in text.splitlines() if l and not l.startswith("#")] == [
        f"create_clock -name clk -period {period:.3f} [get_ports clk]"]


def _block(name):
    text = (ROOT / "docs" / "integration.md").read_text()
    begin = dist_docs._BEGIN.format(name=name)
    return text[text.index(begin):text.index(dist_docs._END.format(name=name))]


def _row(block, label):
    for line in block.splitlines():
        if line.startswith(f"| {label}"):
            return [c.strip() for c in line.strip("|").split("|")][1:]
    raise AssertionError(f"no row {label!r}")


def test_build_table_states_the_builds_figures():
    # the figures measured on the shipped Verilog (a testbench that knows nothing of
    # Python: request-to-response latency, credits, STAT LO read, clear sweep, EVICT gaps)
    block = _block("builds")
    assert _row(block, "request-to-response latency") == ["19", "19", "16"]
    assert _row(block, "requests taken with") == ["21", "21", "18"]
    assert _row(block, "AXI read of a statistic") == ["5", "4", "3"]
    assert _row(block, "clear sweep") == ["512", "512", "64"]
    assert _row(block, "EVICT spacing") == ["7 / 4", "7 / 4; in the predictor mode 8 / 10",
                                            "3 / 3"]
    assert _row(block, "`P_POLICIES`")[:3] == ["1", "3 (predictor mode)", "1"]


def test_reset_table_lists_what_differs_and_nothing_else():
    from regmap import REG
    block = _block("reset")
    names = re.findall(r"^\| `(\w+)` \|", block, re.M)
    # the iCE40 build's windows clamped to its P_WMAX of 31 (measured: W2 and W1 read 0x1f)
    assert _row(block, "`W2`")[:3] == ["`0x32` (50)", "`0x32` (50)", "`0x1f` (31)"]
    assert _row(block, "`W1`")[:3] == ["`0x7d` (125)", "`0x7d` (125)", "`0x1f` (31)"]
    assert {"ACT_W2", "ACT_W1", "P_WMAX", "P_ENTRIES", "P_POLICIES"} <= set(names)
    for same in ("W3", "C3", "C2", "CTRL", "MODE", "ID", "VERSION"):
        assert same not in names, same
    assert all(n in REG for n in names)


def test_memory_table_lists_the_default_build_s_memories():
    block = _block("memories")
    rows = [l for l in block.splitlines() if l.startswith("| `default` |")]
    assert any("2048 x 16 | 2 x 1 cycle | 1" in r for r in rows), rows
    assert any("512 x 80 | 1 x 1 cycle | 1" in r and "(4)" in r for r in rows), rows
    assert "transparent" not in block and "asynchronous" not in block


def test_missing_markers_give_one_clear_error():
    with pytest.raises(ValueError, match="has no generated block 'builds'"):
        dist_docs.replace_blocks("no markers here\n", dist.BUILDS, where="x.md")
