# SPDX-License-Identifier: Apache-2.0
"""The design study of P11's shadow bound (evaluation.loop_bound_study): its count of the
sampled live lines, its substitute duel (and that it leaves the golden model as it was),
the loop it was written for, and spec-predictor.md's figures against its record."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from evaluation import compare, loop_bound_study as study
from golden_model import KvAsuModel, Op, predictor
from tests.docs_text import flat, grouped

ROOT = Path(__file__).resolve().parents[2]
RECORD = ROOT / "docs" / "eval" / "loop_bound_study.json"


def test_sampled_live_lines_counts_the_live_lines_of_sampled_windows():
    seed = 5
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    model = KvAsuModel(policy="predictor")
    for cycle, line in enumerate(rng.integers(0, 3000, 6000).tolist()):
        op = Op.EVICT_ANY if cycle % 5 == 4 else Op.OBSERVE
        model.request(cycle, op, line << 8)
    states = model.slot_states()
    live = [s for s in states if s.valid and not s.ghost]
    assert len(live) == model.occupancy and any(s.ghost for s in states)
    expected = sum(predictor.is_sampled(model.home_of_tag(s.tag)) for s in live)
    assert 0 < expected < len(live)
    assert study.sampled_live_lines(model, {}) == expected


def test_the_sampled_bound_is_undone_on_leaving():
    built = compare._model
    with pytest.raises(RuntimeError):
        with study.sampled_bound():
            assert compare._model is not built
            raise RuntimeError("leave")
    assert compare._model is built


def _second_loop_of_1045():
    """``(stream, cycles)``: the study's second line set of a 1 045-line loop (seed 11), 8
    passes."""
    rng = np.random.default_rng(11)
    lines = [rng.choice(1 << 40, 1045, replace=False) for _ in range(2)][1]
    return study.loop_stream(lines, 8)


def test_a_loop_the_occupancy_bound_leaves_undetected():
    """The second of the study's line sets of a 1 045-line loop (seed 11): under P11's bound
    the duels tie and loop mode never comes; bounded by the sampled live lines, the LRU
    shadow misses as the bank does and the block reaches loop mode."""
    stream, cycles = _second_loop_of_1045()
    spec, sampled = (study.run_bank(stream, cycles, 1024, bound) for bound in ("occupancy", "sampled"))
    assert spec["loop_mode_share"] == 0 and spec["duels"]["both"] > 100 * spec["duels"]["bip_only"]
    assert sampled["duels"]["bip_only"] > 100 * max(1, sampled["duels"]["both"])
    assert sampled["loop_mode_share"] > 0.5 and sampled["hits"].mean() > spec["hits"].mean() + 0.2


def test_the_scaled_bound_is_p11s_at_256_and_smaller_below():
    """``scaled_256`` is P11's bound, run for run; at 192 the LRU shadow of the loop above
    no longer holds the whole sampled loop, and the block reaches loop mode."""
    stream, cycles = _second_loop_of_1045()
    spec, same, smaller = (study.run_bank(stream, cycles, 1024, bound)
                           for bound in ("occupancy", "scaled_256", "scaled_192"))
    assert same["duels"] == spec["duels"] and (same["hits"] == spec["hits"]).all()
    assert spec["loop_mode_share"] == 0 and smaller["loop_mode_share"] > 0.5
    with pytest.raises(ValueError, match="unknown bound"):
        study.run_bank(stream, cycles, 1024, "largest")


def test_p11_quotes_the_record():
    doc = json.loads(RECORD.read_text())
    text = flat((ROOT / "docs" / "spec-predictor.md").read_text())
    cases = {(c["loop_lines"], c["bank_lines"], c["passes"]): c for c in doc["cases"]}
    quoted = re.findall(r"loop of ([\d ]+) lines through a bank of ([\d ]+), (\d+) passes: (\d+) of (\d+) "
                        r"line sets below 60 % under P11's bound, (\d+) under the sampled one", text)
    at_40 = {key for key in cases if key[2] == 40}
    assert {(int(a.replace(" ", "")), int(b.replace(" ", "")), int(p)) for a, b, p, *_ in quoted} == at_40, \
        "P11 quotes every case of the record at 40 passes"
    for loop, bank, passes, below, sets, below_sampled in quoted:
        case = cases[(int(loop.replace(" ", "")), int(bank.replace(" ", "")), int(passes))]
        assert int(sets) == doc["sets"]
        assert (int(below), int(below_sampled)) == (case["occupancy"]["below_low"],
                                                    case["sampled"]["below_low"])
    assert f"(seed {doc['seed']}," in text and "python -m evaluation.loop_bound_study" in text
    missed = [h for c in doc["cases"] if c["passes"] == 40 for h in c["occupancy"]["hit_rates"] if h < doc["low"]]
    assert (f"the ghost rule gives, {100 * min(missed):.0f}-{100 * max(missed):.0f} % of its accesses at 40 "
            f"passes in the study") in text
    assert f"`(B - 1) / L` of a pass ({100 * 1023 / 1100:.0f} % for 1 100 lines and a bank of 1 024)" in text
    d = 550 - 512
    few = [c for c in doc["cases"] if (c["loop_lines"], c["bank_lines"], c["passes"]) == (550, 512, 40)][0]
    assert (f"({few['sampled']['below_low']} of {doc['sets']} where `(15/16)^{d}` gives about "
            f"{round(doc['sets'] * (15 / 16) ** d)})") in text
    for loop in doc["spec_loops"]:
        lines, bank = grouped(loop["loop_lines"]), grouped(loop["bank_lines"])
        shares = [f"{100 * loop[b]['loop_mode_share']:.1f} %" for b in ("occupancy", "sampled")]
        assert (f"{lines} lines through a bank of {bank} is in loop mode for {shares[0]} of its OBSERVEs under "
                f"P11's bound and {shares[1]} under the sampled one" in text
                or f"{lines} lines through {bank}: {shares[0]} and {shares[1]}" in text), loop
    # the scaled bounds: the cliff's sets, the long loops, the two splits
    at40 = [c for c in doc["cases"] if c["passes"] == 40]
    below = {b: sum(c[b]["below_low"] for c in at40) for b in ("occupancy", "scaled_224", "scaled_192")}
    assert doc["scales"] == [224, 192]
    assert (f"Of the {len(at40) * doc['sets']} line sets of the six cases above at 40 passes, P11's bound "
            f"leaves {below['occupancy']} below 60 %, `K = 224` (7/8) leaves {below['scaled_224']} and "
            f"`K = 192` (3/4) {below['scaled_192']}.") in text
    spec = {(x["loop_lines"], x["bank_lines"]): x for x in doc["spec_loops"]}
    share = {key: {b: f"{100 * x[b]['loop_mode_share']:.1f} %" for b in x if isinstance(x[b], dict)}
             for key, x in spec.items()}
    s600, s1500 = share[(600, 150)], share[(1500, 187)]
    assert (f"the loop of 600 lines through 150 is in loop mode for {s600['scaled_224']} of its OBSERVEs at 224 "
            f"and {s600['scaled_192']} at 192 ({s600['occupancy']} under P11's bound), 1 500 lines through 187 "
            f"for {s1500['scaled_224']} and {s1500['scaled_192']} ({s1500['occupancy']})") in text
    sparse = "SmolLM2 decode, sparse top-4 pages"
    rates = {split: doc["splits"][split][name]["1/4"] for split, name in
             (("training", f"{sparse}, training text"), ("validation", sparse))}
    for split, row in rates.items():
        fig = [f"{100 * row[b]['hit_rate']:.2f} %" for b in ("occupancy", "scaled_224", "scaled_192")]
        assert f"the {split} split's {fig[0]} becomes {fig[1]} and {fig[2]}" in text, split
    others = [row[b]["hit_rate"] - row["occupancy"]["hit_rate"]
              for split, workloads in doc["splits"].items() for name, banks in workloads.items()
              for fraction, row in banks.items() for b in ("scaled_224", "scaled_192")
              if not (fraction == "1/4" and name.startswith(sparse))]
    assert all(d > -0.0001 for d in others) and len(others) == 2 * (3 * 11 - 2)
    assert (f"moves by less than 0.01 point or gains, by up to {100 * max(others):.2f} points") in text
    near = [c["occupancy"]["below_low"] for c in doc["cases"]
            if c["bank_lines"] == 1024 and c["loop_lines"] <= 1100 and c["passes"] == 40]
    longer = [round(100 * (c["loop_lines"] / c["bank_lines"] - 1)) for c in doc["cases"]
              if c["bank_lines"] == 1024 and c["loop_lines"] <= 1100 and c["passes"] == 40]
    readme = flat((ROOT / "README.md").read_text())
    assert (f"On a loop {min(longer)} to {max(longer)} % longer than a bank of 1 024 lines it misses loop mode "
            f"on {min(near)} to {max(near)} of {doc['sets']} random line sets, 40 passes") in readme


@pytest.mark.parametrize("argv, message", [
    (["--seed", "-1"], "--seed: must be at least 0, not -1"),
    (["--sets", "0"], "--sets: must be at least 1, not 0"),
    (["--passes", "1"], "--passes: must be at least 2, not 1"),
    (["--out", "{tmp}"], "is a folder"),
    (["--scales", "256"], "--scales: must be"),
])
def test_bad_arguments_are_refused_before_the_run(argv, message, tmp_path, capsys, monkeypatch):
    monkeypatch.setattr(study, "run_case", lambda *args: pytest.fail("the study ran"))
    with pytest.raises(SystemExit) as exit_:
        study.main([a.format(tmp=tmp_path) for a in argv])
    assert exit_.value.code == 2 and message in capsys.readouterr().err
