# SPDX-License-Identifier: Apache-2.0
"""docs/reliability.md's soft-error figures are those of the kept fault campaigns.

``docs/faults/*.json`` are the ``campaign*.json`` of ``python -m verif.faults`` runs (each
named in reliability.md with its command) and ``protection_cost.json`` the record of
``python -m fpga.protection_cost``. Every table of reliability.md's "Soft errors" section
that comes from them is compared with them cell for cell, and every figure its text quotes
from them is looked for in the text as the record gives it, so that a figure edited by
hand, or a rerun whose figures moved without the doc, fails. The records themselves are
checked against the code as it is: the small configuration's parameters, each memory's
code and coded bits, the campaign's exit-status rules (``verif.fault_checks.failures``),
and every kept run's report against its upset (``verif.fault_checks.report_problem``, the
kind computed from the code, which the three older records predate). The "What is not
protected" figures are held to the kept ECP5 report and to ``fault_checks.coded_bits``."""

import json
import re
from pathlib import Path

import pytest

from regmap import Params
from tests.docs_text import flat, grouped, table_rows
from verif import fast
from verif.fault_checks import (BANKED, Target, codes, coded_bits, failures, granule,
                                report_problem)
from verif.faults import CLASSES
from verif.soak import CONFIGS

ROOT = Path(__file__).resolve().parents[2]
RECORDS = ROOT / "docs" / "faults"
#: The campaign records, each with its configuration (the older ones lack ``config``).
CAMPAIGNS = ("protected_single", "protected_double", "unprotected_single",
             "protected_single_checked", "protected_double_checked", "probe1_per_memory")
#: The records made before the campaign wrote ``config`` and ``ready_permille``.
OLDER = ("protected_single", "protected_double", "unprotected_single")
#: reliability.md's tables of one campaign each, by the text that comes before them.
CLASS_TABLES = {"protected_single": "**The protected core, single-bit upsets.**",
                "protected_double": "**The protected core, double-bit upsets.**",
                "unprotected_single": "**Baseline: the unprotected core**"}
HEADER = ("| memory | code | bits | runs | masked | detected, recovered | "
          "detected, not recovered | silent | hang |")


def _record(name: str) -> dict:
    return json.loads((RECORDS / f"{name}.json").read_text())


def _section() -> str:
    """reliability.md's soft-error section, as written."""
    text = (ROOT / "docs" / "reliability.md").read_text()
    start = text.index("## Soft errors: fault injection")
    end = text.find("\n## ", start + 1)
    return text[start:end if end > 0 else len(text)]


def _bare(cells) -> list[str]:
    return [c.replace("**", "").strip() for c in cells]


def _table(after: str, header: str = HEADER) -> dict[str, list[str]]:
    """The table (first cell -> the others, without emphasis) whose header row is
    ``header``, the first after ``after`` in the section."""
    text = _section()
    rows = table_rows(text[text.index(after):], header)
    return {_bare([k])[0]: _bare(v) for k, v in rows.items()}


def _config(record: dict) -> str:
    return record.get("config", "small")


def _options(record: dict):
    from hdl.core import CoreOptions
    return CoreOptions() if record["protected"] else CoreOptions(protection="none")


def _target(params, record: dict, example: dict) -> Target:
    """The kept run's array as a :class:`Target` (name, D11 memory, bank), its width the
    memory's code words (``fault_checks.granule``)."""
    from hdl.ecc import Code
    memory = example["memory"]
    k, lanes = granule(params, memory)
    width = lanes * Code(record["codes"][memory], k).width
    bank = None
    if memory in BANKED:
        bank = int(re.search(rf"\.{memory}(\d+)\b", example["array"]).group(1))
    # (the depth: not part of the check)
    return Target(fast.MemoryArray(example["array"], width, 1), memory, bank)


@pytest.mark.parametrize("name", CAMPAIGNS)
def test_record_is_the_campaign_as_it_is(name):
    """Each record is of its configuration (the older ones: the small one, whose params
    they hold), with the codes and coded bits the code gives; it passes the campaign's exit
    status rules; and each kept run's report passes the report check as it is now."""
    record = _record(name)
    if name in OLDER:
        assert "config" not in record and "ready_permille" not in record
    else:
        assert record["ready_permille"] == 800 and "report_problems" in record
    params = CONFIGS[_config(record)]
    assert record["params"] == params.as_dict()
    assert record["codes"] == codes(params, _options(record))
    assert record["memory_bits"] == coded_bits(params, _options(record))
    assert sum(record["classes"].values()) == record["faults"]
    assert failures(record) == {}
    assert record["misreported"] == 0 and record["fault_free_failures"] == []
    for example in record["examples"]:
        target = _target(params, record, example)
        assert report_problem(params, target, example["word"], example["bits"],
                              example["errors"], record["codes"][example["memory"]],
                              example["cycle"]) == "", example


@pytest.mark.parametrize("name", CLASS_TABLES)
def test_class_table_quotes_the_record(name):
    record = _record(name)
    n, classes = record["faults"], record["classes"]
    expected = {f"`{mem}`": [record["codes"][mem], str(record["memory_bits"][mem]),
                             str(sum(by_class.values())), *(str(by_class[c]) for c in CLASSES)]
                for mem, by_class in record["by_memory"].items()}

    def share(c):
        return f"{classes[c]} ({classes[c] / n:.1%})"
    expected["all"] = ["", str(sum(record["memory_bits"].values())), str(n), share("masked"),
                       share("detected_recovered"), str(classes["detected_unrecovered"]),
                       share("silent"), str(classes["hang"])]
    assert _table(CLASS_TABLES[name]) == expected


def _command_paragraph(start: str) -> str:
    text = _section()
    i = text.index(start)
    return flat(text[i:text.index("\n\n", i)])


def test_single_bit_figures_quote_the_record():
    r = _record("protected_single")
    head = _command_paragraph("**The protected core, single-bit upsets.**")
    assert f"--faults {r['faults']} --seed {r['seed']} --jobs {r['jobs']}" in head
    assert f"{grouped(sum(r['memory_bits'].values()))} coded block-RAM bits" in head
    assert (f"{grouped(r['traffic_streams'])} traffic streams of {r['runs_per_traffic']} "
            f"runs; {r['run_seconds']} s of runs, {r['wall_seconds']} s in all") in head
    text = _command_paragraph("D11's targets hold:")
    latency, n = r["latency"], r["params"]["ENTRIES"]
    by = r["by_memory"]
    window = sum(by[m]["detected_recovered"] for m in ("ent", "meta", "mark", "scrub"))
    assert window == r["reported_uncorrectable"] == r["recoveries"]
    for figure in (
            f"of {grouped(r['faults'])}",
            f"every one of the {grouped(r['recoveries'])} recoveries",
            f"the longest took {r['longest_recovery']} cycles",
            f"= {latency} + {n} + 3 = {r['recovery_bound']}",
            f"`decision_lag` {r['decision_lag']}", f"`stat_lag` {r['stat_lag']}",
            f"none of the {grouped(r['fault_free_runs'])} fault-free runs failed",
            f"{grouped(r['reported_uncorrectable'])} reported uncorrectable",
            f"median {r['detection_latency']['median']} cycles",
            f"99th percentile {r['detection_latency']['p99']}",
            f"longest {r['detection_latency']['max']}"):
        assert figure in text, figure
    assert r["latency"] + n + 3 == r["recovery_bound"]
    assert r["classes"]["silent"] == r["classes"]["hang"] == 0
    assert r["classes"]["detected_unrecovered"] == 0
    stats = _command_paragraph("The statistics words are the memory masked most often")
    assert (f"({grouped(by['stats']['masked'])} of "
            f"{grouped(sum(by['stats'].values()))})") in stats
    assert max(by, key=lambda m: by[m]["masked"] / sum(by[m].values())) in ("stats", "mark")


def test_double_bit_figures_quote_the_record():
    r = _record("protected_double")
    head = _command_paragraph("**The protected core, double-bit upsets.**")
    assert f"--faults {r['faults']} --seed {r['seed']} --double --jobs {r['jobs']}" in head
    assert f"{r['run_seconds']} s of runs" in head
    text = _command_paragraph("Every double upset a check met")
    detected = r["classes"]["detected_recovered"] + r["classes"]["detected_unrecovered"]
    assert r["reported_uncorrectable"] == detected
    assert (f"({grouped(r['reported_uncorrectable'])} of {grouped(detected)} detected runs; "
            f"{grouped(r['recoveries'])} recoveries") in text
    assert f"the longest {r['longest_recovery']} cycles" in text
    assert r["recoveries_over_bound"] == 0
    silent = [e for e in r["examples"] if e["class"] == "silent"]
    assert f"The {len(silent)} silent runs" in text
    assert {e["memory"] for e in silent} == {"scrub"} and r["codes"]["scrub"] == "parity"
    rows = r["params"]["ENTRIES"] // r["params"]["PROBE"]
    lane_bits = r["memory_bits"]["scrub"] // rows // r["params"]["PROBE"]
    runs = {e["index"]: e for e in silent}
    # run: (word, bits, lane) as the text gives them
    quoted = {311: (2, [18, 20], 2), 1701: (1, [10, 11], 1), 1118: (3, [10, 11], 1)}
    assert {i: (e["word"], sorted(e["bits"]), e["bits"][0] // lane_bits)
            for i, e in runs.items()} == quoted
    assert all(len({b // lane_bits for b in e["bits"]}) == 1 for e in silent)   # one lane
    assert "runs 311, 1701 and 1118" in text
    assert ("bits 18 and 20 of word 2, lane 2; bits 10 and 11 of word 1 and of word 3, "
            "lane 1") in text


CHECKED_HEADER = ("| campaign | runs | masked | detected, recovered | detected, not recovered "
                  "| silent | hang | misreported | recoveries | longest recovery |")
CHECKED_ROWS = {"single-bit, seed 11": "protected_single_checked",
                "double-bit, seed 12": "protected_double_checked"}


def test_checked_campaigns_quote_the_records():
    rows = _table("**With the report's kind and cycle checked.**", CHECKED_HEADER)
    assert set(rows) == set(CHECKED_ROWS)
    head = _command_paragraph("**With the report's kind and cycle checked.**")
    for label, name in CHECKED_ROWS.items():
        r = _record(name)
        assert label.endswith(f"seed {r['seed']}") and (r["bits_per_fault"] == 2) == (
            "double" in label)
        assert f"--faults {r['faults']} --seed {r['seed']}" in head
        classes, n = r["classes"], r["faults"]
        assert rows[label] == [
            grouped(n), *(f"{grouped(classes[c])} ({classes[c] / n:.1%})" for c in CLASSES),
            str(r["misreported"]), grouped(r["recoveries"]),
            f"{r['longest_recovery']} (bound {r['recovery_bound']})"], label
    text = flat(_section())
    single, double = (_record(n) for n in CHECKED_ROWS.values())
    assert single["reported_uncorrectable"] == sum(
        single["by_memory"][m]["detected_recovered"] for m in ("ent", "meta", "mark", "scrub"))
    assert (f"{grouped(single['reported_uncorrectable'])} of "
            f"{grouped(single['classes']['detected_recovered'])} detected single-bit runs "
            f"reported uncorrectable") in text
    detected = double["classes"]["detected_recovered"] + double["classes"]["detected_unrecovered"]
    assert double["reported_uncorrectable"] == detected
    assert f"{grouped(detected)} of {grouped(detected)} detected double-bit runs" in text
    silent = [e for e in double["examples"] if e["class"] == "silent"]
    assert len(silent) == double["classes"]["silent"] and double["codes"]["scrub"] == "parity"
    lane_bits = double["memory_bits"]["scrub"] // single["params"]["ENTRIES"]
    assert all(e["memory"] == "scrub" and len({b // lane_bits for b in e["bits"]}) == 1
               for e in silent), silent
    assert f"The double-bit campaign's {len(silent)} silent runs are again two flips in one " \
           "parity lane of `scrub`" in text


def test_probe1_figures_quote_the_record():
    r = _record("probe1_per_memory")
    assert r["config"] == "probe1" and r["per_memory"]
    text = _command_paragraph("**One slot per window**")
    assert f"--config probe1 --per-memory --faults {r['faults']} --seed {r['seed']}" in text
    c, n = r["classes"], r["faults"]
    assert (f"{c['detected_recovered'] / n:.1%} detected and recovered, "
            f"{c['masked'] / n:.1%} masked").replace("%", " %") in text
    assert c["silent"] == c["hang"] == c["detected_unrecovered"] == r["misreported"] == 0
    assert (f"{grouped(r['recoveries'])} recoveries, the longest {r['longest_recovery']} "
            f"cycles (the bound {r['recovery_bound']})") in text


def test_unprotected_figures_quote_the_record():
    r = _record("unprotected_single")
    head = _command_paragraph("**Baseline: the unprotected core**")
    assert f"--faults {r['faults']} --seed {r['seed']} --unprotected" in head
    assert f"({grouped(sum(r['memory_bits'].values()))} block-RAM bits; " \
           f"{r['run_seconds']} s of runs, {r['wall_seconds']} s in all" in head
    text = flat(_section())
    assert f"({r['rates']['silent']:.1%} of the runs, a lower bound".replace("%", " %") in text
    first = r["silent_first_difference"]
    ent = first["ent"]
    assert (f"`ent`: {ent['response: victim_tag']} of {r['by_memory']['ent']['silent']} a "
            "`victim_tag` alone") in text
    banks = ("prev0", "prev1", "next0", "next1")
    slot_victim = sum(k.startswith("response: slot victim_tag") and v
                      for m in banks for k, v in first[m].items())
    silent_banks = sum(r["by_memory"][m]["silent"] for m in banks)
    assert f"the pointer banks: {slot_victim} of {silent_banks} an EVICT's `slot`" in text
    assert first["stats"] == {"register": r["by_memory"]["stats"]["silent"]}
    stats = r["by_memory"]["stats"]["silent"]
    assert f"statistics: {stats} of {stats} a register read" in text
    assert f"the protected core's **0 silent** of " \
           f"{grouped(_record('protected_single')['faults'])}" in text


def test_protection_cost_table_quotes_the_record():
    runs = _record("protection_cost")["runs"]
    auto, none = runs["auto"]["summary"], runs["none"]["summary"]
    rows = _table("**What protection costs**", "| build | LUT4 | FF | CCU2C | DP16KD |")
    keys = ("LUT4", "FF", "CCU2C", "DP16KD", "distributed RAM")
    assert rows['`protection="auto"` (SECDED everywhere)'] == [grouped(auto[k]) for k in keys]
    assert rows['`protection="none"`'] == [grouped(none[k]) for k in keys]

    def difference(k):
        d = auto[k] - none[k]
        return f"+{grouped(d)}" if d else "0"
    assert rows["difference"] == [
        f"{difference('LUT4')} (+{(auto['LUT4'] - none['LUT4']) / none['LUT4']:.1%})"
        .replace("%", " %"), *(difference(k) for k in keys[1:])]
    assert len(rows) == 3


def test_what_is_not_protected_quotes_the_report_and_the_code():
    text = flat(_section())
    report = json.loads((ROOT / "docs" / "fpga" / "reports" / "ecp5.json").read_text())
    cells = report["yosys_cells"]
    assert report["resources"]["ff"]["used"] == cells["TRELLIS_FF"]
    assert f"build places {grouped(cells['TRELLIS_FF'])} flip-flops" in text
    dpr = cells["TRELLIS_DPR16X4"]
    assert f"{dpr} `TRELLIS_DPR16X4` distributed-RAM cells ({grouped(dpr * 64)} bits)" in text
    default = coded_bits(Params())
    assert set(codes(Params()).values()) == {"secded"}
    assert f"against {grouped(sum(default.values()))} coded block-RAM bits" in text
    small = coded_bits(CONFIGS["small"])
    assert small == _record("protected_single")["memory_bits"]
    assert f"statistics words are {small['stats'] / sum(small.values()):.0%} of the coded " \
           f"bits".replace("%", " %") in text
    rows = _table("**What is not protected.**",
                  "| memory | small: coded bits | share | default: coded bits | share |")

    def shares(bits):
        total = sum(bits.values())
        return {m: (grouped(b), f"{b / total:.1%}") for m, b in bits.items()}
    s, d = shares(small), shares(default)
    expected = {f"`{m}`": [*s[m], *d[m]] for m in small}
    expected["all"] = [grouped(sum(small.values())), "100 %",
                       grouped(sum(default.values())), "100 %"]
    assert rows == expected
