# SPDX-License-Identifier: Apache-2.0
"""The sweeps' own logic (evaluation.sweep), on small streams."""

import math

import pytest

from evaluation import sweep
from evaluation.metrics import LatencyModel
from evaluation.runtime import KvAsuConfig, RuntimeConfig
from evaluation.workload import generate_accesses, preset


def test_recency_only_variant_keeps_the_base_table(monkeypatch):
    # The variant's kvasu=KvAsuConfig(c3=1, c2=1) replaced the base's whole table: with a
    # base of 256 entries, its row ran a table of 2048.
    runs = {}

    def record(acc, cfg, label, **extra):
        runs[label] = cfg
        return {"hit_rate": 0.0, "seconds": 0.0}

    monkeypatch.setattr(sweep, "runtime_record", record)
    base = RuntimeConfig(kvasu=KvAsuConfig(entries=256, probe=2, w1=100))
    acc = generate_accesses(preset("small", frames=2)).first(200)
    sweep.hit_rate_vs_bank(acc, [16], base=base)
    assert set(runs) == set(sweep.RUNTIME_VARIANTS)
    for label, cfg in runs.items():
        assert (cfg.kvasu.entries, cfg.kvasu.probe, cfg.kvasu.w1) == (256, 2, 100), label
    assert (runs["recency-only gate>=2"].kvasu.c3, runs["recency-only gate>=2"].kvasu.c2) == (1, 1)
    assert runs["KV-ASU gate>=2 (article)"].kvasu == base.kvasu


@pytest.mark.parametrize("block", [64, 128])
def test_same_region_share_of_blocks_smaller_than_a_line_is_nan(block):
    # A query's first access (sink token 0) can merge into the previous query's last line
    # read: with 64-byte blocks the queries were miscounted and the share came out 0.3
    # for 1.0. Blocks smaller than a line give no share.
    acc = generate_accesses(preset("small", frames=3, bytes_per_kv_block=block))
    assert math.isnan(sweep._same_region_share(acc))
    assert sweep._same_region_share(generate_accesses(preset("small", frames=3))) == pytest.approx(1.0)


def test_baseline_rates_refuse_another_line_size():
    # The DRAM bytes took latency.line_bytes a miss, the runtime's 256.
    acc = generate_accesses(preset("small", frames=2)).first(200)
    with pytest.raises(ValueError, match="line_bytes"):
        sweep.baseline_rates(acc, 16, LatencyModel(line_bytes=128))


def test_runtime_record_says_how_many_reads_it_scored():
    # A stream cut before the steady-state frames scores no read: its rates of 0.0 read
    # as a bank that never hit unless the record says so.
    acc = generate_accesses(preset("small", frames=3))
    m = sweep.steady_mask(acc)
    cut = acc.first(int(m.argmax()))
    r = sweep.runtime_record(cut, RuntimeConfig(bank_lines=64), "cut")
    assert r["scored_reads"] == 0 and r["hit_rate"] == 0.0
    r = sweep.runtime_record(acc, RuntimeConfig(bank_lines=64), "all")
    assert r["scored_reads"] == int((acc.reads & m).sum()) > 0
