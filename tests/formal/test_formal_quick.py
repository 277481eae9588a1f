# SPDX-License-Identifier: Apache-2.0
"""The quick formal subset (``python -m formal.run --quick``) under pytest, one test per
job, each required to PASS. About two minutes in all on the 2-core machine; see
docs/formal.md."""

import shutil
from pathlib import Path

import pytest

from formal.jobs import JOBS
from formal.run import run_job

QUICK = [name for name, job in JOBS.items() if job.get("quick")]

pytestmark = pytest.mark.skipif(shutil.which("yowasp-sby") is None and
                                not (Path(__import__("sys").executable).parent /
                                     "yowasp-sby").exists(),
                                reason="yowasp-sby not installed")


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


def test_predictor_lists_prove_elaborates():
    """The six-stage lists' k-induction (not quick: about 15 minutes) is registered as a
    proof and its harness converts to RTLIL with assertions."""
    from amaranth.back import rtlil
    job = JOBS["predictor_lists_prove"]
    assert job["mode"] == "prove" and not job["quick"]
    text = rtlil.convert(job["build"](), name="top", platform="formal", ports=[])
    assert "$assert" in text or "$check" in text
