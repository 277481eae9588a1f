# SPDX-License-Identifier: Apache-2.0
"""The quick formal subset (``python -m formal.run --quick``) under pytest, one test per
job, each required to PASS (yowasp-sby comes with the venv: a missing one fails the jobs,
it does not skip them). About four minutes in all on the 2-core machine; see
docs/formal.md. Also the runner's check of an expect-FAIL job's failing assertions."""

import pytest

from formal.jobs import JOBS
from formal.run import check_location, expected_failure, failed_assertions, mutated_tree, run_job

QUICK = [name for name, job in JOBS.items() if job.get("quick")]


def test_expect_fail_names_the_assertion():
    """An expect-FAIL job passes only when every assertion SBY names as failing is one of
    its checks: another one failing, or none named, is a failure of the job."""
    loc = check_location("axil_props.py:flush-allowed")
    fname, line = loc.split(":")
    assert fname == "axil_props.py" and int(line) > 0
    log = (f"Assert failed in top: /x/formal/{fname}:{line} (_witness_.check_1)\n"
           f"summary:   failed assertion top._witness_.check_1 at /x/formal/{fname}:{line} step 5\n")
    assert failed_assertions(log) == {loc}
    job = {"failing": ("axil_props.py:flush-allowed",)}
    assert expected_failure(job, log)[0]
    other = log + "Assert failed in top: /x/formal/axil_props.py:1 (_witness_.check_2)\n"
    assert not expected_failure(job, other)[0]
    assert not expected_failure(job, "Status: failed\n")[0]
    assert expected_failure({"failing": ("axil_props.py",)}, other)[0]
    with pytest.raises(ValueError):
        check_location("axil_props.py:no-such-check")


def test_mutated_tree(tmp_path):
    """A mutant's replacement must occur exactly once; the copy is changed, hdl/ is not."""
    from formal.run import ROOT
    path = "hdl/regs/ctrl.py"
    job = JOBS["mutant_ctrl_flush_while_flushing"]
    tree = mutated_tree(job["mutant"], tmp_path)
    assert job["mutant"][1] not in (tree / path).read_text()
    assert job["mutant"][1] in (ROOT / path).read_text()
    with pytest.raises(ValueError):
        mutated_tree((path, "m.d", "x"), tmp_path)


@pytest.mark.parametrize("name", QUICK)
def test_formal_quick(name, tmp_path):
    result = run_job(name, JOBS[name], tmp_path)
    detail = "\n".join(result.get("detail", []))
    assert result["status"] == "PASS", f"{name}: {result['status']}\n{detail}"
    if "goals" in result:
        missed = [g for g, ok in result["goals"].items() if not ok]
        assert not missed, f"{name}: cover goals not reached: {missed}"


def test_predictor_core_jobs_elaborate():
    """The core-level predictor jobs (not quick: minutes of BMC, docs/formal.md P9) are
    registered, their sanity twin expects FAIL, and every harness converts to RTLIL (so a
    change of the core's ports or of PredictorCommit's that breaks them shows here)."""
    from amaranth.back import rtlil
    from formal.predictor_core_props import PredictorCoreLists
    names = ("predictor_core_lists_bmc", "predictor_core_lists_free_bmc",
             "sanity_predictor_core_no_ghost", "sanity_predictor_core_free_no_live")
    for name in names:
        assert name in JOBS and not JOBS[name]["quick"] and JOBS[name]["mode"] == "bmc"
    assert JOBS["sanity_predictor_core_no_ghost"]["expect"] == "FAIL"
    assert JOBS["sanity_predictor_core_free_no_live"]["expect"] == "FAIL"
    for name in names:
        text = rtlil.convert(JOBS[name]["build"](), name="top", platform="formal", ports=[])
        assert "$assert" in text or "$check" in text
    with pytest.raises(ValueError):
        PredictorCoreLists(wrong="nonsense")


def test_predictor_cover_jobs_elaborate():
    """The predictor proofs' cover jobs that are not quick (minutes each, docs/formal.md
    P7) are registered as covers and their harnesses convert to RTLIL with named goals."""
    from amaranth.back import rtlil
    for name in ("covers_predictor_counters", "covers_predictor_core",
                 "covers_predictor_core_free"):
        job = JOBS[name]
        assert job["mode"] == "cover" and not job["quick"], name
        text = rtlil.convert(job["build"](), name="top", platform="formal", ports=[])
        assert "\\cover_" in text, name


def test_predictor_lists_prove_elaborates():
    """The six-stage lists' k-induction (not quick: about 15 minutes) is registered as a
    proof and its harness converts to RTLIL with assertions."""
    from amaranth.back import rtlil
    job = JOBS["predictor_lists_prove"]
    assert job["mode"] == "prove" and not job["quick"]
    text = rtlil.convert(job["build"](), name="top", platform="formal", ports=[])
    assert "$assert" in text or "$check" in text


def test_mutant_jobs_apply():
    """Every documented mutant job (run by ``make formal``) expects FAIL on named checks,
    and its replacement still applies to hdl/ exactly once (so an edit of the RTL that
    moves the mutated text shows here)."""
    from formal.run import ROOT
    mutants = {n: j for n, j in JOBS.items() if j.get("mutant")}
    assert mutants
    for name, job in mutants.items():
        path, old, _ = job["mutant"]
        assert job["expect"] == "FAIL" and job["failing"] and not job["quick"], name
        assert (ROOT / path).read_text().count(old) == 1, name
        for spec in job["failing"]:
            check_location(spec)


def test_docs_list_every_job_as_the_runner_defines_it():
    """docs/formal.md's table has one row per job of ``formal.jobs`` (a job added or
    dropped without the docs fails), with its quick mark, mode, depth and expected result,
    and "Runs" counts them."""
    import re
    from pathlib import Path

    from formal.jobs import JOBS
    text = (Path(__file__).resolve().parents[2] / "docs" / "formal.md").read_text()
    rows = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        match = re.fullmatch(r"`(\w+)`( \(quick\))?", cells[0]) if line.startswith("| `") else None
        if match:
            assert match.group(1) not in rows, f"{match.group(1)}: two rows"
            rows[match.group(1)] = (bool(match.group(2)), cells[2], cells[3])
    assert set(rows) == set(JOBS), (set(JOBS) ^ set(rows))
    modes = {"bmc": "BMC", "prove": "k-induction", "cover": "cover"}
    for name, job in JOBS.items():
        quick, mode, depth = rows[name]
        assert quick == job["quick"], name
        assert mode.startswith(modes[job["mode"]]), (name, mode)
        assert ("expect FAIL" in mode) == (job["expect"] == "FAIL"), (name, mode)
        assert depth.split()[0] == str(job["depth"]), (name, depth)
    quick = sum(job["quick"] for job in JOBS.values())
    assert f"{len(JOBS)} jobs ({quick} quick)" in " ".join(text.split())


def test_docs_state_the_total_time_of_make_formal():
    """docs/formal.md and README.md state the time of ``make formal`` that the table's
    times add up to (within a tenth: the times vary with load, the total is rounded)."""
    import re
    from pathlib import Path
    root = Path(__file__).resolve().parents[2]
    text = (root / "docs" / "formal.md").read_text()
    total = 0.0
    for line in text.splitlines():
        if line.startswith("| `"):
            cell = [c.strip() for c in line.strip().strip("|").split("|")][5]
            found = re.search(r"(\d+(?: \d{3})*(?:\.\d+)?) s\b", cell)
            assert found, f"no time in the row: {line[:60]}"
            total += float(found.group(1).replace(" ", ""))
    stated = re.search(r"\*\*`make formal` takes about ([\d.]+) hours\*\*", text)
    assert stated, "docs/formal.md does not state the time of make formal"
    hours = float(stated.group(1))
    assert abs(hours - total / 3600) <= 0.1 * total / 3600, (hours, total / 3600)
    readme = [line for line in (root / "README.md").read_text().splitlines()
              if line.startswith("| `make formal` |")]
    assert len(readme) == 1 and f"about {stated.group(1)} hours" in readme[0], readme
