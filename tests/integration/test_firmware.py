# SPDX-License-Identifier: Apache-2.0
"""The C driver on the Verilated shipped core: every driver call, checked by the golden model.

`make test` runs the iCE40 build (its first run builds the harness with Verilator, about
20 s on this machine; later runs reuse build/firmware/ and take seconds). `make firmware`
runs both builds (the default one's first build takes about 80 s); KVASU_FIRMWARE_BUILDS
chooses them here (comma-separated).
"""

import os

import pytest

from verif import firmware

from .conftest import ROOT

BUILD_DIR = ROOT / "build" / "firmware"
BUILDS = os.environ.get("KVASU_FIRMWARE_BUILDS", "ice40").split(",")


@pytest.fixture(scope="module", params=BUILDS)
def firmware_log(request, seed):
    exe = firmware.build(request.param, BUILD_DIR / request.param)
    return request.param, firmware.run(exe, seed)


def test_every_driver_call_agrees_with_the_golden_model(firmware_log):
    build, log = firmware_log
    problems = firmware.check(log, firmware.build_params(build))
    assert not problems, "\n".join(problems[:20])
    last = log.splitlines()[-1]
    assert last.endswith(" 0 failed") and not last.startswith("0 passed"), last


def test_the_log_covers_every_driver_call(firmware_log):
    _, log = firmware_log
    words = [line.split()[0] for line in log.splitlines()]
    checks = {line.split()[1] for line in log.splitlines() if line.startswith("check ")}
    for name in ("identify", "identify_refuses_wrong_base", "wait_idle_after_reset",
                 "get_config", "configure_legal", "configure_illegal_refused",
                 "refused_commit_keeps_active_config", "refused_commit_keeps_stats",
                 "illegal_commit_bresp_slverr", "flush", "read_stat", "clear_stats_zeroes",
                 "disabled_accepts_nothing", "enabled_again", "read64_cycle"):
        assert name in checks, name
    assert "commit ok" in log and "commit refused" in log
    assert words.count("req") >= 1000 and words.count("rsp") == words.count("req")
    assert words.count("stats") >= 5


def test_the_checker_finds_a_wrong_response_and_a_wrong_statistic(firmware_log):
    build, log = firmware_log
    params = firmware.build_params(build)
    lines = log.splitlines()
    first_rsp = next(i for i, line in enumerate(lines) if line.startswith("rsp "))
    fields = lines[first_rsp].split()
    fields[6] = str(int(fields[6]) + 1)                 # the count
    bad = lines[:first_rsp] + [" ".join(fields)] + lines[first_rsp + 1:]
    assert any("response" in p and "count" in p for p in firmware.check("\n".join(bad), params))
    first_stats = next(i for i, line in enumerate(lines) if line.startswith("stats "))
    fields = lines[first_stats].split()
    fields[1] = str(int(fields[1]) + 1)                 # observes
    bad = lines[:first_stats] + [" ".join(fields)] + lines[first_stats + 1:]
    assert any("statistics" in p for p in firmware.check("\n".join(bad), params))
    bad = [line.replace("commit refused", "commit ok") for line in lines]
    assert any("the model says refused" in p for p in firmware.check("\n".join(bad), params))
