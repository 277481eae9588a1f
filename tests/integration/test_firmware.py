# SPDX-License-Identifier: Apache-2.0
"""The C driver on the Verilated shipped core: every driver call, checked by the golden model;
and the driver alone on a scripted register bus (``verif/firmware/driver_unit_test.c``).

`make test` and `make firmware` run the three shipped builds (the first run builds each
harness with Verilator, 10-30 s each on this machine; later runs reuse build/firmware/ and
take seconds); KVASU_FIRMWARE_BUILDS chooses them here (comma-separated).
"""

import os
import shutil
import subprocess

import pytest

from verif import firmware

from .conftest import ROOT

BUILD_DIR = ROOT / "build" / "firmware"
BUILDS = os.environ.get("KVASU_FIRMWARE_BUILDS", "ice40,predictor,default").split(",")


@pytest.fixture(scope="module", params=BUILDS)
def firmware_log(request, seed):
    exe = firmware.build(request.param, BUILD_DIR / request.param)
    return request.param, firmware.run(exe, seed)


def test_every_driver_call_agrees_with_the_golden_model(firmware_log):
    build, log = firmware_log
    problems = firmware.check(log, firmware.build_params(build), firmware.build_predictor(build),
                              firmware.build_latency(build))
    assert not problems, "\n".join(problems[:20])
    last = log.splitlines()[-1]
    assert last.endswith(" 0 failed") and not last.startswith("0 passed"), last


def test_the_log_covers_every_driver_call(firmware_log):
    build, log = firmware_log
    words = [line.split()[0] for line in log.splitlines()]
    checks = {line.split()[1] for line in log.splitlines() if line.startswith("check ")}
    for name in ("identify", "identify_refuses_wrong_base", "wait_idle_after_reset",
                 "get_config", "configure_legal", "configure_illegal_refused",
                 "configure_illegal_writes_nothing", "configure_draws_no_slverr",
                 "configure_policy_draws_no_slverr", "configure_refused_by_the_block",
                 "refused_commit_keeps_active_config", "refused_commit_keeps_stats",
                 "illegal_commit_bresp_slverr", "flush", "read_stat", "clear_stats_zeroes",
                 "disabled_accepts_nothing", "enabled_again", "read64_cycle",
                 "configure_policy_as_built", "policy_active_as_built", "configure_nonblocking",
                 "nonblocking_drops_evict_in_gap", "read_stat_req_dropped",
                 "configure_blocking_article", "read_soft_errors",
                 "read_soft_errors_null_is_arg_error", "clear_soft_errors_keeps_enable",
                 "configure_keeps_disabled", "flush_keeps_disabled",
                 "clear_stats_keeps_disabled", "flush_times_out_on_the_clear_sweep",
                 "wait_idle_zero_polls_is_timeout"):
        assert name in checks, name
    assert "commit ok" in log and "commit refused" in log
    assert words.count("req") >= 1000 and words.count("rsp") == words.count("req")
    assert words.count("stats") >= 5
    assert words.count("drop") == 1
    if firmware.build_protected(build):      # the upset of a tracked line, end to end
        for name in ("upset_injected", "upset_query_answered_untracked", "upset_reported",
                     "upset_reported_cycle", "upset_recovery_reported",
                     "recovery_empties_table", "clear_soft_errors_after_upset"):
            assert name in checks, name
        assert words.count("soft_error") == 1 and words.count("soft_errors") == 4
    else:
        assert words.count("soft_error") == 0 and words.count("soft_errors") == 2


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


def test_the_checker_finds_a_lost_drop_wrong_modes_and_wrong_soft_errors(firmware_log):
    build, log = firmware_log
    params = firmware.build_params(build)
    predictor = firmware.build_predictor(build)
    lines = log.splitlines()
    assert not firmware.check(log, params, predictor)

    def problems(edit):
        return firmware.check("\n".join(edit(list(lines))), params, predictor)

    # a drop the log does not show: STAT_REQ_DROPPED read 1 more than the model counts
    assert any("statistics" in p and "req_dropped" in p
               for p in problems(lambda ls: [x for x in ls if not x.startswith("drop ")]))
    # the predictor policy: the checker applies the build's rule, not the model's alone
    assert any("the model says" in p for p in firmware.check(log, params, not predictor))
    # an active MODE that differs from the model's
    first_nb = next(i for i, x in enumerate(lines) if x.startswith("config ")
                    and x.split()[-1] == "1")

    def mode_zero(ls):
        ls[first_nb] = " ".join(ls[first_nb].split()[:-1] + ["0"])
        return ls
    assert any("active configuration" in p for p in problems(mode_zero))
    # soft-error registers that report an error the model never had
    first_se = next(i for i, x in enumerate(lines) if x.startswith("soft_errors "))

    def error_reported(ls):
        ls[first_se] = "soft_errors 1 1 0 9 1 3 1234 0"
        return ls
    assert any("soft-error registers" in p for p in problems(error_reported))
    if firmware.build_protected(build):      # the report of the upset the test made
        latency = firmware.build_latency(build)
        reported = next(i for i, x in enumerate(lines) if x.startswith("soft_errors 1 "))

        def report(field, value):
            def edit(ls):
                fields = ls[reported].split()
                fields[field] = str(value)
                ls[reported] = " ".join(fields)
                return ls
            return firmware.check("\n".join(edit(list(lines))), params, predictor, latency)
        slot = int(lines[reported].split()[6])
        assert any("soft-error registers" in p
                   for p in report(6, (slot + 1) % params.ENTRIES))        # another slot
        bound = latency + params.ENTRIES + 3
        assert any("ERR_LAST_RECOVERY" in p for p in report(8, bound + 1))


def test_driver_unit_on_a_scripted_bus(tmp_path):
    """What a clean run on the RTL cannot show: ERR_FIRST_MEM's fields, 64-bit values with
    a non-zero HI word (ERR_FIRST_CYCLE, the statistics, CYCLE) through the HI latch, every
    CTRL action write keeping ENABLE set or clear, POLICY and MODE written before the commit
    and restored after a refusal by the block, nothing written for a set the driver refuses
    itself, the number of polls before KVASU_ERR_TIMEOUT, VERSION's check (any patch, not
    another minor or major), each NULL argument refused with no access, and
    kvasu_init_mmio's own hooks (on an array)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    exe = tmp_path / "driver_unit_test"
    subprocess.run([cc, "-std=c99", "-pedantic", "-Wall", "-Wextra", "-Werror", "-O1",
                    "-I", str(ROOT / "sw"), str(ROOT / "verif" / "firmware" / "driver_unit_test.c"),
                    str(ROOT / "sw" / "kv_asu.c"), "-o", str(exe)], check=True)
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    last = run.stdout.splitlines()[-1]
    assert run.returncode == 0 and last.endswith(" 0 failed"), run.stdout
    assert int(last.split()[0]) >= 80, last


STRICT_WARNINGS = ["-Wall", "-Wextra", "-Wpedantic", "-Wconversion", "-Wshadow", "-Werror"]


@pytest.mark.parametrize("flags", [
    ["-x", "c", "-std=c99", *STRICT_WARNINGS],
    ["-x", "c", "-std=c11", "-O2", *STRICT_WARNINGS],
    ["-x", "c++", "-std=c++11", "-Wall", "-Wextra", "-Wpedantic", "-Werror"],
], ids=["c99", "c11-O2", "c++"])
def test_driver_compiles_warning_free_as_an_integrator_builds_it(tmp_path, flags):
    """sw/kv_asu.c and its headers build without a warning under the flags a firmware
    project commonly uses (C99 and C11 with -Wconversion -Wshadow -Werror), and as C++,
    which kv_asu.h's extern "C" block offers; a C++ unit that includes kv_asu.h links
    against the C object."""
    cxx = flags[1] == "c++"
    compiler = (shutil.which("c++") or shutil.which("g++")) if cxx else \
        (os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc"))
    assert compiler, "no C/C++ compiler"
    obj = tmp_path / "kv_asu.o"
    proc = subprocess.run([compiler, *flags, "-I", str(ROOT / "sw"), "-c",
                           str(ROOT / "sw" / "kv_asu.c"), "-o", str(obj)],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    if not cxx:
        return
    user = tmp_path / "user.cpp"
    user.write_text('#include "kv_asu.h"\n'
                    "int main() {\n"
                    "    kvasu_dev dev;\n"
                    "    kvasu_init_mmio(&dev, 0x40010000u);\n"
                    "    return dev.read32 != nullptr ? 0 : 1;\n"
                    "}\n")
    proc = subprocess.run([compiler, "-std=c++11", "-Wall", "-Wextra", "-Werror", "-I",
                           str(ROOT / "sw"), str(user), str(obj), "-o", str(tmp_path / "user")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def _sixteen_bit_compilers():
    """Compilers for CPUs whose int and uintptr_t are 16 bits, where installed: avr-gcc,
    and clang's MSP430 target (freestanding, its own headers)."""
    found = []
    if shutil.which("avr-gcc"):
        found.append(pytest.param(["avr-gcc", "-mmcu=atmega2560"], id="avr-gcc"))
    clang = shutil.which("clang")
    if clang:
        resource = subprocess.run([clang, "-print-resource-dir"], capture_output=True,
                                  text=True).stdout.strip()
        found.append(pytest.param([clang, "--target=msp430-unknown-elf", "-ffreestanding",
                                   "-nostdinc", "-isystem", f"{resource}/include"],
                                  id="clang-msp430"))
    return found or [pytest.param(None, id="none", marks=pytest.mark.skip(
        reason="neither avr-gcc nor clang installed"))]


@pytest.mark.parametrize("compiler", _sixteen_bit_compilers())
def test_driver_compiles_warning_free_where_int_is_16_bits(tmp_path, compiler):
    """sw/kv_asu.h says the driver is portable to a 16-bit int (AVR, MSP430): the strict
    build passes there too, where uintptr_t is narrower than the uint32_t offsets. (No
    compiler warns of a shift as wide as int by a variable count: the next test keeps such
    shifts out of the driver.)"""
    for std in ("-std=c99", "-std=c11"):
        proc = subprocess.run([*compiler, std, "-Os", *STRICT_WARNINGS, "-I", str(ROOT / "sw"),
                               "-c", str(ROOT / "sw" / "kv_asu.c"),
                               "-o", str(tmp_path / "kv_asu.o")], capture_output=True, text=True)
        assert proc.returncode == 0, proc.stderr


def test_driver_shifts_only_fixed_width_values():
    """Every shift in the driver and its headers shifts a value of a fixed-width type (a
    cast or a variable of one): a bare ``1u << n`` or ``1 << n`` is as wide as ``int``, 16
    bits on AVR and MSP430, where the driver is portable to."""
    import re

    for path in sorted((ROOT / "sw").glob("kv_asu*.[ch]")):
        code = re.sub(r"/\*.*?\*/", "", path.read_text(), flags=re.S)   # comments aside
        for match in re.finditer(r"([\w)]+)\s*<<", code):
            operand = match.group(1)
            assert not re.fullmatch(r"\d+[uU]?", operand), (path.name, code[match.start():match.end() + 20])


def test_driver_needs_no_libc(tmp_path):
    """docs/integration.md: the driver makes no allocation and no libc call. Compiled
    freestanding at every usual optimisation level, its object has no undefined symbol
    (no memset/memcpy a struct copy could bring in)."""
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    nm = shutil.which("nm")
    assert cc and nm, "no C compiler or nm"
    for level in ("-O0", "-O2", "-Os", "-O3"):
        obj = tmp_path / f"kv_asu{level}.o"
        subprocess.run([cc, "-std=c99", "-ffreestanding", level, "-I", str(ROOT / "sw"), "-c",
                        str(ROOT / "sw" / "kv_asu.c"), "-o", str(obj)], check=True)
        undefined = subprocess.run([nm, "-u", str(obj)], capture_output=True, text=True,
                                   check=True).stdout.split()
        assert not undefined, (level, undefined)


def test_driver_legality_is_the_regmaps(tmp_path, seed):
    """``kvasu_config_legal`` (the generated ``KVASU_CONFIG_LEGAL`` and mode masks, and the
    driver's use of them) takes exactly the sets that ``regmap.config_legal`` and
    ``regmap.mode_violations`` take, in builds with and without the predictor and of
    several widths, on random sets drawn around every edge of the rule."""
    import random

    from regmap import Params, config_legal, mode_violations
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    main = tmp_path / "legal.c"
    main.write_text(
        '#include <stdio.h>\n#include "kv_asu.h"\n'
        "int main(void) {\n"
        "    kvasu_info i = {0}; kvasu_config c;\n"
        "    unsigned long v[11];\n"
        "    while (scanf(\"%lu %lu %lu %lu %lu %lu %lu %lu %lu %lu %lu\", &v[0], &v[1], &v[2],\n"
        "                 &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &v[10]) == 11) {\n"
        "        i.count_width = (uint32_t)v[0]; i.wmax = (uint32_t)v[1];\n"
        "        i.policies = (uint32_t)v[2];\n"
        "        c.c3 = (uint32_t)v[3]; c.c2 = (uint32_t)v[4]; c.w3 = (uint32_t)v[5];\n"
        "        c.w2 = (uint32_t)v[6]; c.w1 = (uint32_t)v[7]; c.hash_seed = (uint32_t)v[8];\n"
        "        c.policy = (uint32_t)v[9]; c.mode = (uint32_t)v[10];\n"
        "        printf(\"%d\\n\", kvasu_config_legal(&i, &c));\n"
        "    }\n    return 0;\n}\n")
    exe = tmp_path / "legal"
    subprocess.run([cc, "-std=c99", "-Wall", "-Wextra", "-Werror", "-I", str(ROOT / "sw"),
                    str(main), str(ROOT / "sw" / "kv_asu.c"), "-o", str(exe)], check=True)
    rng = random.Random(seed)
    builds = [(Params(COUNT_WIDTH=cw, TS_WIDTH=tw), predictor)
              for cw, tw in ((16, 8), (4, 4), (8, 6), (1, 4), (32, 8))
              for predictor in (False, True)]

    def near(edge):                # a value at, just below or just above an edge, or any
        return rng.choices((edge, max(edge - 1, 0), edge + 1, rng.getrandbits(32)),
                           weights=(6, 2, 2, 1))[0]

    lines, want = [], []
    for _ in range(3000):
        params, predictor = rng.choice(builds)
        c2 = near(rng.choice((1, params.COUNT_MAX)))
        c3 = near(rng.choice((c2, params.COUNT_MAX)))
        w1 = near(params.WMAX)
        w2 = near(rng.choice((w1, 0)))
        w3 = near(w2)
        config = {"C3": c3, "C2": c2, "W3": w3, "W2": w2, "W1": w1,
                  "HASH_SEED": rng.getrandbits(32)}
        config = {k: v & 0xFFFF_FFFF for k, v in config.items()}
        policy, mode = (rng.choice((0, 0, 0, 0, 1, 1, 2, 1 << 31)) for _ in range(2))
        lines.append(" ".join(str(v) for v in (
            params.COUNT_WIDTH, params.WMAX, 1 | int(predictor) << 1, *config.values(),
            policy, mode)))
        want.append(config_legal(params, config)
                    and not mode_violations({"POLICY": policy, "MODE": mode},
                                            predictor=predictor))
    run = subprocess.run([str(exe)], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True, timeout=60)
    got = [line == "1" for line in run.stdout.split()]
    assert len(got) == len(want)
    wrong = [(lines[k], want[k]) for k in range(len(want)) if got[k] != want[k]]
    assert not wrong, wrong[:5]
    assert 150 < sum(want) < 2850, sum(want)       # both answers met often
