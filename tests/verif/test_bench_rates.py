# SPDX-License-Identifier: Apache-2.0
"""The requests-per-cycle figure of ``tools.bench`` and ``tools.bench_predictor``
(``tools.bench.acceptance_rate``), on synthetic acceptance cycles: ``n`` requests accepted
one every ``k`` cycles run at exactly ``1 / k`` (the rate between the first acceptance and
the last), not ``n / (k(n - 1) + 1)`` (the requests over the cycles from the first to the
last inclusive, the figure the benches published before). No Verilator build here."""

import numpy as np
import pytest

from tools import bench, bench_predictor
from tools.bench import acceptance_rate


@pytest.mark.parametrize("k, n, rate", [
    (1, 2, 1.0), (1, 1500, 1.0),          # back to back, one per cycle: exactly 1.0
    (4, 64, 0.25), (4, 2, 0.25),          # one per 4 (EVICT_ANY back to back, MODE 0)
    (10, 64, 0.1), (10, 1500, 0.1),       # one per 10 (EVICT back to back, MODE 1)
], ids=lambda v: str(v))
def test_one_every_k_cycles_is_one_over_k(k, n, rate):
    start = 37                             # the first acceptance's cycle does not matter
    cycles = np.arange(n, dtype=np.int64) * k + start
    assert acceptance_rate(cycles) == pytest.approx(rate, rel=1e-12)
    assert acceptance_rate(list(cycles)) == pytest.approx(rate, rel=1e-12)
    if k == 1:
        assert acceptance_rate(cycles) == 1.0


def test_not_the_old_figure():
    # 64 EVICT_ANYs one per 4 cycles: the old n / (last - first + 1) gave 64/253 = 0.253,
    # one per 10: 64/631 = 0.101 (9.86 cycles per request)
    four, ten = np.arange(64) * 4, np.arange(64) * 10
    assert round(acceptance_rate(four), 3) == 0.250 != round(64 / 253, 3)
    assert round(acceptance_rate(ten), 3) == 0.100 != round(64 / 631, 3)
    assert round(1 / acceptance_rate(ten), 2) == 10.0 != round(631 / 64, 2)


def test_uneven_spacing_is_the_mean_rate():
    # gaps 1, 1, 8: three intervals over 10 cycles
    assert acceptance_rate([5, 6, 7, 15]) == pytest.approx(0.3)


@pytest.mark.parametrize("cycles", [[], [12], np.array([0], dtype=np.int64)],
                         ids=["none", "one", "one (array)"])
def test_a_single_request_has_no_rate(cycles):
    assert acceptance_rate(cycles) is None


def test_acceptances_out_of_order_are_refused():
    with pytest.raises(ValueError):
        acceptance_rate([3, 3])
    with pytest.raises(ValueError):
        acceptance_rate([9, 4])


def test_both_benches_use_the_one_function():
    assert bench_predictor.acceptance_rate is bench.acceptance_rate


def test_the_nonblocking_bench_names_its_figure_for_what_it_is():
    """``tools.bench_nonblocking`` (and its cocotb side) reports ``taken_fraction_of_cycles``:
    the requests taken over the cycles from the first presentation to the last, both
    counted; not a requests-per-cycle rate, which is ``acceptance_rate``'s alone. The same
    blocking stream of 256 EVICT_ANYs, one taken per 4 cycles, is 0.2507 there and 0.2500
    here."""
    import json
    from pathlib import Path

    from tools import bench_nonblocking
    record_dir = Path(__file__).resolve().parents[2] / "docs" / "bench"
    for name in ("bench_nonblocking.json", "bench_nonblocking_predictor.json"):
        record = json.loads((record_dir / name).read_text())
        runs = [*(p for patterns in record["patterns"].values() for p in patterns.values()),
                *record["reset_sweep"].values()]
        for p in runs:
            assert "taken_per_cycle" not in p, name
            assert p["taken_fraction_of_cycles"] == bench_nonblocking.taken_fraction_of_cycles(
                p["taken"], p["cycles"]), (name, p)
    blocking = json.loads((record_dir / "bench_nonblocking.json").read_text())[
        "patterns"]["blocking"]["evict_any_back_to_back"]
    assert (blocking["taken"], blocking["cycles"]) == (256, 1021)
    assert blocking["taken_fraction_of_cycles"] == round(256 / 1021, 4) == 0.2507
    assert bench_nonblocking.taken_fraction_of_cycles(5, 0) is None
    assert acceptance_rate(np.arange(256) * 4) == 0.25
    assert "acceptance_rate" in bench_nonblocking.__doc__
