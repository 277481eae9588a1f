# SPDX-License-Identifier: Apache-2.0
"""Runtime-model invariants (uses the golden model)."""

import numpy as np
import pytest

pytest.importorskip("golden_model")

from evaluation.baselines import simulate_lru
from evaluation.runtime import KvAsuConfig, RuntimeConfig, TinyLSTM, passive_tlevels, run_runtime
from evaluation.workload import generate_accesses, preset

ACC = generate_accesses(preset("small", frames=4))


@pytest.mark.parametrize("cfg", [
    RuntimeConfig(bank_lines=64),
    RuntimeConfig(bank_lines=64, gate=False, watermark=0.5, gc_low=0.4),
    RuntimeConfig(bank_lines=200, frame_boost=True, prefetch="last", prefetch_lines=32),
])
def test_invariants(cfg):
    r = run_runtime(ACC, cfg, record=True)
    reads = ACC.reads
    assert r.max_occupancy <= cfg.bank_lines
    assert set(np.unique(r.served[reads]).tolist()) <= {0, 1, 2}
    assert np.all(r.served[~reads] == 255)
    assert r.hits + r.misses == r.reads == int(reads.sum())
    assert r.bank_hits == int((r.served == 1).sum()) and r.prefetch_hits == int((r.served == 2).sum())
    assert r.requests["query"] == r.reads and r.requests["observe"] == len(ACC)
    assert r.kvasu_stats["queries"] == r.reads and r.kvasu_stats["observes"] == len(ACC)
    # the recorded request stream is a valid trace: cycles never decrease
    assert np.all(np.diff(r.request_log[0].astype(np.int64)) >= 0)
    if cfg.gate:
        # a bank hit needs the gate's T-level to reach min_tlevel
        assert np.all(r.read_tlevel[r.served == 1] >= cfg.min_tlevel)


def test_no_gate_no_gc_is_plain_lru():
    for cap in (16, 100, 400):
        r = run_runtime(ACC, RuntimeConfig(bank_lines=cap, gate=False, watermark=None))
        assert r.bank_hits == int(simulate_lru(ACC.line, cap, ACC.is_write).sum())
        assert r.gc_evictions == 0 and r.requests["evict"] == 0


def test_watermark_gc_evicts_and_keeps_occupancy_down():
    cap = 128
    on = run_runtime(ACC, RuntimeConfig(bank_lines=cap, gate=False, watermark=0.5, gc_low=0.4))
    off = run_runtime(ACC, RuntimeConfig(bank_lines=cap, gate=False, watermark=None))
    assert on.gc_evictions > 0 and on.requests["evict"] >= on.gc_evictions
    assert on.forced_evictions < off.forced_evictions
    assert off.max_occupancy == cap


def test_gate_only_removes_hits():
    cfg = RuntimeConfig(bank_lines=256, watermark=None)
    g2 = run_runtime(ACC, cfg)
    g0 = run_runtime(ACC, cfg.replace(gate=False))
    assert g2.hits <= g0.hits
    assert g2.gated_refetches + g2.bank_hits == g2.resident_reads


def test_boost_never_lowers_the_tlevel():
    cfg = RuntimeConfig(bank_lines=256, watermark=None)
    a = run_runtime(ACC, cfg)
    b = run_runtime(ACC, cfg.replace(frame_boost=True))
    rd = ACC.reads
    assert np.all(b.read_tlevel[rd] >= a.read_tlevel[rd])
    assert np.all(b.read_tlevel[rd] <= a.read_tlevel[rd] + 1)


def test_passive_tlevels_match_window_rule():
    before, after, stats = passive_tlevels(ACC, KvAsuConfig())
    assert stats["observes"] == len(ACC)
    assert sum(stats[f"obs_t{k}"] for k in range(4)) == len(ACC)
    assert np.array_equal(np.bincount(before, minlength=4), [stats[f"obs_t{k}"] for k in range(4)])
    assert np.all(after >= 1) or stats["drops"] > 0  # a tracked line is at least T1 right after an access


def test_tiny_lstm_size_and_learning():
    m = TinyLSTM(seed=3)
    assert m.n_params == 124
    rng = np.random.default_rng(0)
    X = rng.random((5, 40, 6))
    y = (X[-1, :, 0] > 0.5).astype(float)  # learnable from the last step
    m.add(X, y)
    first = m.train(iters=1)
    last = m.train(iters=150)
    assert last < first * 0.8


def _reads(lines, cycles):
    """A stream of reads of ``lines`` at ``cycles`` (no video tags)."""
    from evaluation.workload import KIND_DECODE_READ, LINE_SHIFT, Accesses

    n = len(lines)
    return Accesses(cycle=np.asarray(cycles, np.uint64),
                    addr=np.asarray(lines, np.uint64) << np.uint64(LINE_SHIFT),
                    is_write=np.zeros(n, bool), kind=np.full(n, KIND_DECODE_READ, np.uint8),
                    frame_index=np.zeros(n, np.int32), layer=np.zeros(n, np.int16),
                    head=np.zeros(n, np.int16), token=np.zeros(n, np.int32),
                    tag_frame=np.full(n, -1, np.int32), tag_row=np.full(n, -1, np.int16),
                    tag_col=np.full(n, -1, np.int16))


@pytest.mark.parametrize("start", [2**63, 2**64 - 1000])
def test_cycles_at_the_top_of_the_64_bit_counter(start):
    # Cycles of 2**63 and above turned negative in an int64 cast and the model refused them.
    rng = np.random.default_rng(5)
    lines = rng.integers(0, 40, 600)
    cycles = start + np.arange(600, dtype=np.uint64)
    acc = _reads(lines, cycles)
    plain = run_runtime(acc, RuntimeConfig(bank_lines=16, gate=False, watermark=None), record=True)
    assert plain.bank_hits == int(simulate_lru(lines, 16).sum())
    assert np.array_equal(plain.request_log[0][plain.request_log[1] == 0], cycles)  # OBSERVE cycles
    gated = run_runtime(acc, RuntimeConfig(bank_lines=16))
    assert gated.hits + gated.misses == gated.reads == 600


def test_degenerate_streams():
    empty = run_runtime(_reads([], []), RuntimeConfig(bank_lines=4))
    assert (empty.reads, empty.hits, empty.hit_rate, empty.mean_latency) == (0, 0, 0.0, 0.0)
    one = run_runtime(_reads([7], [0]), RuntimeConfig(bank_lines=1))
    assert (one.reads, one.misses, one.max_occupancy) == (1, 1, 1)
    same = run_runtime(_reads([7] * 5, range(5)), RuntimeConfig(bank_lines=1, gate=False, watermark=None))
    assert same.bank_hits == 4
    with pytest.raises(ValueError, match="bank_lines"):
        run_runtime(_reads([7], [0]), RuntimeConfig(bank_lines=0))


def test_unknown_prefetch_mode_is_refused():
    # A misspelt mode used to run as "last" without a word.
    with pytest.raises(ValueError, match="prefetch"):
        run_runtime(ACC, RuntimeConfig(bank_lines=64, prefetch="LSTM"))


@pytest.mark.parametrize("change, error, name", [
    (dict(bank_lines=2.5), TypeError, "bank_lines"),       # ran with 2 lines
    (dict(bank_lines=True), TypeError, "bank_lines"),      # ran with 1 line
    (dict(min_tlevel=2.7), TypeError, "min_tlevel"),       # ran as 2
    (dict(gate="no"), TypeError, "gate"),                  # a non-empty string ran as True
    (dict(frame_boost="off"), TypeError, "frame_boost"),
    (dict(watermark=1.5), ValueError, "watermark"),        # a GC that never starts
    (dict(watermark=-0.1), ValueError, "watermark"),
    (dict(watermark=float("nan")), ValueError, "watermark"),
    (dict(watermark=0.5), ValueError, "gc_low"),           # gc_low 0.75 above it
    (dict(gc_max=0), ValueError, "gc_max"),                # a GC that sends no EVICT
    (dict(gc_retry_cycles=-1), ValueError, "gc_retry_cycles"),
    (dict(prefetch_lines=-1), ValueError, "prefetch_lines"),
    (dict(prefetch_frames=0), ValueError, "prefetch_frames"),
    (dict(predictor_seed=-1), ValueError, "predictor_seed"),
])
def test_bad_switches_are_refused_before_the_run(change, error, name):
    with pytest.raises(error, match=name):
        run_runtime(ACC.first(50), RuntimeConfig(bank_lines=16).replace(**change))


def test_min_tlevel_out_of_range_is_refused_on_a_stream_of_writes():
    # The model refused it only at the first QUERY: a stream without reads ran.
    writes = ACC.first(int(np.argmin(ACC.is_write)))
    assert writes.is_write.all() and len(writes) > 0
    with pytest.raises(ValueError, match="min_tlevel"):
        run_runtime(writes, RuntimeConfig(bank_lines=16, min_tlevel=4))


def test_another_line_size_in_the_latency_model_is_refused():
    # DRAM bytes counted 256 a miss while the miss latency moved latency.line_bytes.
    from evaluation.metrics import LatencyModel

    with pytest.raises(ValueError, match="line_bytes"):
        run_runtime(ACC.first(50), RuntimeConfig(bank_lines=16, latency=LatencyModel(line_bytes=128)))


def test_numpy_integers_run_as_ints():
    acc = ACC.first(2000)
    a = run_runtime(acc, RuntimeConfig(bank_lines=64, min_tlevel=1, prefetch_lines=8))
    b = run_runtime(acc, RuntimeConfig(bank_lines=np.int64(64), min_tlevel=np.uint8(1), prefetch_lines=np.int32(8)))
    assert np.array_equal(a.served, b.served) and a.hits == b.hits > 0


@pytest.mark.parametrize("field, delta", [("is_write", -3), ("is_write", 3), ("tag_row", -1), ("cycle", -1)])
def test_arrays_of_another_length_are_refused(field, delta):
    # A shorter array ended in an IndexError mid-run, a longer one was cut silently.
    import dataclasses

    acc = ACC.first(100)
    v = getattr(ACC, field)[:100 + delta]
    with pytest.raises(ValueError, match=field):
        run_runtime(dataclasses.replace(acc, **{field: v}), RuntimeConfig(bank_lines=16))


def test_prefetch_needs_a_video_workload():
    # Without a patch grid and frame motion the run went on with no prefetch at all.
    with pytest.raises(ValueError, match="video"):
        run_runtime(_reads([1, 2, 3], [0, 1, 2]), RuntimeConfig(bank_lines=4, prefetch="last"))


@pytest.mark.parametrize("mode", ["last", "lstm"])
def test_prefetch_on_a_stream_that_starts_after_frame_0(mode):
    # The predictor's per-frame history was indexed by position: a stream starting at
    # frame 1 ended in an IndexError at its first frame boundary.
    import dataclasses

    keep = ACC.frame_index >= 1
    tail = dataclasses.replace(ACC, **{f.name: getattr(ACC, f.name)[keep] for f in dataclasses.fields(ACC)
                                      if f.name not in ("params", "frame_motion")})
    r = run_runtime(tail, RuntimeConfig(bank_lines=64, prefetch=mode, prefetch_lines=64))
    assert r.hits + r.misses == r.reads == int(tail.reads.sum())
    assert r.prefetch_bytes > 0  # frame 3 has frames 1 and 2 behind it
    assert r.prefetch_hits == int((r.served == 2).sum())
    if mode == "last":
        assert r.prefetch_hits > 0
