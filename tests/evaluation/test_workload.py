# SPDX-License-Identifier: Apache-2.0
"""Workload generator: determinism, layout, parameter effects, the make-sim request stream."""

import numpy as np
import pytest

from evaluation.metrics import reuse_within
from evaluation.sweep import _same_region_share
from evaluation.workload import (EVICT, EVICT_ANY, LINE_BYTES, OBSERVE, PRESETS, QUERY, VideoKVParams,
                                 generate_accesses, generate_video_kv_trace, preset, video_kv_requests)

SMALL = PRESETS["small"]


def _arrays(a):
    return [a.cycle, a.addr, a.is_write, a.kind, a.frame_index, a.tag_frame, a.tag_row, a.tag_col]


def test_same_seed_same_trace_other_seed_other_trace():
    a, b = generate_accesses(SMALL), generate_accesses(SMALL)
    for x, y in zip(_arrays(a), _arrays(b)):
        assert np.array_equal(x, y)
    c = generate_accesses(SMALL.replace(seed=SMALL.seed + 1))
    assert not np.array_equal(a.addr, c.addr)


def test_layout_and_timing():
    p = SMALL
    a = generate_accesses(p)
    assert np.all(np.diff(a.cycle.astype(np.int64)) >= 0)
    assert np.all(a.addr % LINE_BYTES == 0)
    lo = p.base_addr
    hi = p.block_addr(p.layers - 1, p.heads - 1, p.max_tokens - 1) + p.bytes_per_kv_block
    assert a.addr.min() >= lo and a.addr.max() < hi
    # Every access's address is the block of its (layer, head, token), and tags match tokens.
    assert np.array_equal(a.addr.astype(np.int64), p.block_addr(a.layer.astype(np.int64), a.head.astype(np.int64),
                                                                a.token.astype(np.int64)))
    vis = a.tag_row >= 0
    ids = np.array([p.token_id(f, r, c) for f, r, c in zip(a.tag_frame[vis], a.tag_row[vis], a.tag_col[vis])])
    assert np.array_equal(ids, a.token[vis])
    # Frames start no earlier than f * period.
    firsts = np.searchsorted(a.frame_index, np.arange(p.frames))
    assert np.all(a.cycle[firsts] >= np.arange(p.frames) * p.cycles_per_frame)
    # Reads only of tokens that exist already (causality): a read's token was written before.
    written = set()
    for tok, w, layer, head in zip(a.token.tolist(), a.is_write.tolist(), a.layer.tolist(), a.head.tolist()):
        if w:
            written.add((tok, layer, head))
        elif tok >= p.sink_tokens:
            assert (tok, layer, head) in written


def test_cycles_per_frame_from_clock_and_fps():
    p = VideoKVParams(clock_mhz=1000, fps=30)
    assert p.cycles_per_frame == 33_333_333
    assert p.replace(frame_period_cycles=1234).cycles_per_frame == 1234
    assert VideoKVParams(resolution=(1920, 1080), patch_px=120).grid == (9, 16)


def test_bigger_blocks_touch_more_lines():
    a = generate_accesses(SMALL)
    b = generate_accesses(SMALL.replace(bytes_per_kv_block=512))
    assert len(b) == 2 * len(a)
    c = generate_accesses(SMALL.replace(bytes_per_kv_block=128))  # two tokens per line
    assert len(np.unique(c.addr)) < len(np.unique(a.addr))


def test_more_motion_fewer_same_region_rereads():
    base = preset("small", frames=6)
    shares = [_same_region_share(generate_accesses(base.replace(motion_std_px=m))) for m in (0.0, 64.0, 256.0)]
    assert shares[0] == pytest.approx(1.0)
    assert shares[0] > shares[1] > shares[2]


def test_more_layers_heads_frames_more_accesses():
    n = len(generate_accesses(SMALL))
    assert len(generate_accesses(SMALL.replace(layers=3))) > n
    assert len(generate_accesses(SMALL.replace(heads=3))) > n
    assert len(generate_accesses(SMALL.replace(frames=9))) > n
    assert len(generate_accesses(SMALL.replace(decode_steps_per_frame=0))) < n


def test_passive_trace_is_all_observes():
    cycle, op, addr, mt, frame = generate_video_kv_trace(SMALL)
    assert np.all(op == OBSERVE) and np.all(mt == 0)
    assert len(cycle) == len(addr) == len(frame)


def test_make_sim_request_stream():
    cycle, op, addr, mt, frame = video_kv_requests()
    a = generate_accesses(SMALL)
    assert 20_000 <= len(cycle) <= 40_000
    assert 8 <= int(frame.max()) + 1 <= 16
    assert np.all(np.diff(cycle.astype(np.int64)) >= 1)  # at most one request per cycle
    assert int((op == QUERY).sum()) == int(a.reads.sum())
    assert int((op == OBSERVE).sum()) == len(a)
    assert int((op == EVICT_ANY).sum()) == SMALL.frames
    assert np.all(mt[op == QUERY] == 2) and np.all(mt[op != QUERY] == 0)
    assert int((op == EVICT).sum()) > 0
    # each QUERY is immediately followed by the OBSERVE of the same address
    qi = np.nonzero(op == QUERY)[0]
    assert np.all(op[qi + 1] == OBSERVE) and np.array_equal(addr[qi + 1], addr[qi])


def test_write_trace_round_trip(tmp_path):
    trace = pytest.importorskip("golden_model.trace")
    from evaluation.workload import write_trace
    n = write_trace(tmp_path / "t.npz")
    t = trace.load_trace(tmp_path / "t.npz")
    cycle, op, addr, mt, _ = video_kv_requests()
    assert n == len(t) == len(cycle)
    assert np.array_equal(t.cycle, cycle) and np.array_equal(t.op, op) and np.array_equal(t.addr, addr)
    assert t.meta["params"]["seed"] == SMALL.seed


def test_cli_writes_a_presets_trace(tmp_path, capsys):
    """``python -m evaluation.workload PRESET --trace FILE`` writes what write_trace does."""
    from evaluation.workload import main
    from golden_model.trace import load_trace
    path = tmp_path / "small.npz"
    assert main(["small", "--trace", str(path)]) == 0
    cycle, op, addr, _, _ = video_kv_requests()
    t = load_trace(path)
    assert np.array_equal(t.cycle, cycle) and np.array_equal(t.op, op) and np.array_equal(t.addr, addr)
    assert f"wrote {len(cycle)} requests" in capsys.readouterr().out


def test_reuse_is_mostly_short_range_within_a_frame():
    a = generate_accesses(SMALL)
    lab = reuse_within(a.line, a.cycle, 100)
    assert 0.05 < lab.mean() < 0.95


@pytest.mark.parametrize("target, message", [("folder", "is a folder, not a file"),
                                             ("", "is a folder, not a file"),
                                             ("missing/t.npz", "no such folder to write it in")])
def test_cli_refuses_a_trace_file_it_cannot_write_before_the_work(tmp_path, capsys, monkeypatch, target,
                                                                  message):
    """--trace FOLDER was a traceback after the work, and --trace '' wrote nothing, silently."""
    import evaluation.workload as workload
    (tmp_path / "folder").mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(workload, "generate_accesses", lambda p: pytest.fail("the work started"))
    with pytest.raises(SystemExit) as exit_info:
        workload.main(["small", "--trace", target])
    assert exit_info.value.code == 2 and message in capsys.readouterr().err


@pytest.mark.parametrize("change, error", [
    ({"base_addr": -256}, ValueError),                  # wrapped to addresses near 2**64
    ({"base_addr": 2**64 - 2**20}, ValueError),         # an OverflowError deep in numpy
    ({"fps": 0.0, "frame_period_cycles": None}, ValueError),   # a ZeroDivisionError
    ({"motion_std_px": float("nan")}, ValueError),      # NaN regions, cast to integers
    ({"frames": 2.5}, TypeError),
    ({"sink_tokens": -1}, ValueError),
    ({"prefill": False, "decode_steps_per_frame": 0}, ValueError),  # "need at least one array"
    ({"frame_period_cycles": 2**62}, ValueError),       # an OverflowError deep in numpy
])
def test_parameters_that_make_no_valid_trace_are_refused(change, error):
    with pytest.raises(error, match="must|no access|do not fit"):
        SMALL.replace(**change)


def test_cycles_beyond_a_trace_are_refused():
    with pytest.raises(ValueError, match="do not fit a trace"):
        generate_accesses(SMALL.replace(access_interval_cycles=2**60))


@pytest.mark.parametrize("option", [{"evict_every": 0}, {"gc_burst": -1}, {"min_tlevel": 4},
                                    {"evict_every": 2.0}])
def test_request_options_that_make_no_valid_stream_are_refused(option):
    """evict_every=0 was a division by zero that numpy answers with 0: an EVICT after every
    read, silently."""
    with pytest.raises((ValueError, TypeError), match="must be"):
        video_kv_requests(**option)
