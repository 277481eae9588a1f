# SPDX-License-Identifier: Apache-2.0
"""The trace format (golden_model.trace) and the replay command (golden_model.replay)."""

import json
import re

import numpy as np
import pytest

from golden_model import KvAsuModel, Trace, load_trace, save_trace
from golden_model.trace import TRACE_ARRAYS
from golden_model.bench import main as bench_main, mixed_stream
from golden_model.replay import main as replay_main, parse_config


def small_stream():
    return [0, 1, 1, 5, 10**12], [0, 1, 2, 3, 0], [0x100, 2**64 - 1, 0, 7, 0x100], [0, 3, 0, 1, 2]


def test_round_trip(tmp_path):
    path = tmp_path / "t.npz"
    meta = {"params": {"entries": 16}, "description": "five requests"}
    save_trace(path, *small_stream(), meta=meta)
    trace = load_trace(path)
    for name, values in zip(("cycle", "op", "addr", "min_tlevel"), small_stream()):
        array = getattr(trace, name)
        assert array.tolist() == values
        assert array.dtype == {"cycle": np.uint64, "op": np.uint8, "addr": np.uint64,
                               "min_tlevel": np.uint8}[name]
    assert trace.meta == meta and len(trace) == 5


def test_exact_path_and_layout(tmp_path):
    path = tmp_path / "trace.bin"                  # numpy must not append ".npz"
    save_trace(path, *small_stream())
    assert path.exists() and not (tmp_path / "trace.bin.npz").exists()
    with np.load(path, allow_pickle=False) as data:
        assert sorted(data.files) == ["addr", "cycle", "meta", "min_tlevel", "op"]
        assert json.loads(str(data["meta"])) == {}
    assert load_trace(path).meta == {}


def test_empty_trace(tmp_path):
    save_trace(tmp_path / "e.npz", [], [], [], [])
    trace = load_trace(tmp_path / "e.npz")
    assert len(trace) == 0 and trace.cycle.dtype == np.uint64


def test_trace_without_meta_loads(tmp_path):
    path = tmp_path / "m.npz"
    np.savez(path, cycle=np.array([1], np.uint64), op=np.array([0], np.uint8),
             addr=np.array([5], np.uint64), min_tlevel=np.array([0], np.uint8))
    assert load_trace(path).meta == {}


@pytest.mark.parametrize("change, error, match", [
    ({"cycle": [0, 1, 2]}, ValueError, "same length"),
    ({"cycle": [0, 5, 4, 6, 7]}, ValueError, "must not decrease"),
    ({"op": [0, 1, 4, 0, 0]}, ValueError, "op"),
    ({"min_tlevel": [0, 0, 0, 0, 4]}, ValueError,
     re.escape("'min_tlevel' must hold values 0..3, found 0..4 (the first outside at "
               "index 4: 4)")),
    ({"op": np.array([0, 5, 1, 7, 0], np.int32)}, ValueError,
     re.escape("'op' must hold values 0..3, found 0..7 (the first outside at index 1: 5)")),
    ({"cycle": [-1, 0, 1, 2, 3]}, ValueError, "cycle"),
    ({"addr": [0, 0, 0, 0, 2**64]}, ValueError, "addr"),
    ({"addr": [0.0, 1.0, 2.0, 3.0, 4.0]}, TypeError, "addr"),
    ({"op": [[0]] * 5}, ValueError, "one-dimensional"),
    ({"meta": ["not", "a", "dict"]}, TypeError, "meta"),
    ({"meta": {"params": {"fps": float("nan")}}}, ValueError, "standard JSON"),
    ({"meta": {"gap": float("inf")}}, ValueError, "standard JSON"),
])
def test_validation_errors(tmp_path, change, error, match):
    arrays = dict(zip(("cycle", "op", "addr", "min_tlevel"), small_stream()))
    arrays.update(change)
    with pytest.raises(error, match=match):
        save_trace(tmp_path / "bad.npz", **arrays)
    assert not (tmp_path / "bad.npz").exists()


def test_load_validates_too(tmp_path):
    path = tmp_path / "bad.npz"
    np.savez(path, cycle=np.array([3, 2], np.uint64), op=np.array([0, 0], np.uint8),
             addr=np.array([0, 0], np.uint64), min_tlevel=np.array([0, 0], np.uint8))
    with pytest.raises(ValueError, match="must not decrease"):
        load_trace(path)
    np.savez(path, cycle=np.array([3], np.uint64), op=np.array([0], np.uint8))
    with pytest.raises(ValueError, match="missing array"):
        load_trace(path)
    # a meta holding a NaN (Python's json writes and reads one; standard JSON has none)
    arrays = dict(zip(TRACE_ARRAYS, (np.array([1], dtype) for dtype in TRACE_ARRAYS.values())))
    np.savez(path, **arrays, meta=np.array('{"fps": NaN}'))
    with pytest.raises(ValueError, match=f"^{re.escape(str(path))}: trace meta must be standard JSON"):
        load_trace(path)


@pytest.mark.parametrize("content, message", [
    (b"", "not a KV-ASU trace: not an .npz archive"),
    (b"cycle,op,addr\n0,0,256\n", "not a KV-ASU trace: not an .npz archive"),
    (b"\x93NUMPY", "not a KV-ASU trace: not an .npz archive"),   # as np.save begins
    (None, "not a KV-ASU trace: not an .npz archive"),          # a single array saved with np.save
    (b"PK\x03\x04" + bytes(40), "not a KV-ASU trace: a damaged .npz archive"),
])
def test_a_file_that_is_no_archive_is_a_value_error(tmp_path, content, message):
    path = tmp_path / "t.npz"
    if content is None:
        with open(path, "wb") as f:
            np.save(f, np.arange(3))
    else:
        path.write_bytes(content)
    with pytest.raises(ValueError, match=re.escape(message)):
        load_trace(path)
    with pytest.raises(FileNotFoundError):
        load_trace(tmp_path / "none.npz")
    with pytest.raises(ValueError, match="cannot be read as a trace"):
        load_trace(tmp_path)                           # a folder


def test_replay_equals_run(tmp_path, capsys):
    cycles, ops, addrs, mins = mixed_stream(3000, seed=7)
    path = tmp_path / "mix.npz"
    save_trace(path, cycles, ops, addrs, mins,
               meta={"params": {"entries": 64, "probe": 2}, "config": {"c3": 3}})
    assert replay_main([str(path), "--json", "--config", "c2=2,hash_seed=0x10"]) == 0
    report = json.loads(capsys.readouterr().out)
    model = KvAsuModel(entries=64, probe=2)
    model.commit(0, c3=3, c2=2, hash_seed=0x10)
    model.replay(load_trace(path))
    assert {name: report[name] for name in model.stats._fields} == model.stats.as_dict()
    assert report["occupancy"] == model.occupancy and report["requests"] == 3000
    assert report["params"]["ENTRIES"] == 64 and report["config"]["c2"] == 2


def test_replay_options_override_meta(tmp_path, capsys):
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream(), meta={"params": {"entries": 64}})
    assert replay_main([str(path), "--entries", "16", "--tick-shift", "0"]) == 0
    out = capsys.readouterr().out
    assert "observes" in out and "requests_per_second" in out
    assert replay_main([str(path), "--json", "--entries", "16"]) == 0
    assert json.loads(capsys.readouterr().out)["params"]["ENTRIES"] == 16


@pytest.mark.parametrize("args", [["--config", "c3=1,c2=2"], ["--config", "x=1"],
                                  ["--entries", "17"], ["--config", "c3=five"]])
def test_replay_reports_bad_input(tmp_path, capsys, args):
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream())
    assert replay_main([str(path), *args]) == 2
    assert capsys.readouterr().err.startswith("error:")


def test_parse_config():
    assert parse_config("c3=5, W1=0x10,hash_seed=0b11") == {"c3": 5, "w1": 16, "hash_seed": 3}
    assert parse_config("") == {}


def test_mixed_stream_is_reproducible_and_valid():
    a, b = mixed_stream(1000, seed=3), mixed_stream(1000, seed=3)
    assert all(np.array_equal(x, y) for x, y in zip(a, b))
    Trace(*a)                                        # a valid trace


def test_bench_runs(capsys):
    bench_main(["--requests", "2000"])
    out = capsys.readouterr().out
    assert "requests/s" in out


def test_replay_refuses_malformed_meta(tmp_path, capsys):
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream(), meta={"params": [16]})
    assert replay_main([str(path)]) == 2
    assert "meta['params']" in capsys.readouterr().err


@pytest.mark.parametrize("config, word", [({"policy": 1}, "policy"), ({"MODE": 1}, "mode"),
                                          ({"cycle": 1}, "cycle")])
def test_replay_refuses_meta_config_keys_that_are_no_configuration(tmp_path, capsys, config,
                                                                    word):
    """meta["config"] holds the configuration registers only: a trace cannot switch the
    policy or the mode, nor clash with commit()'s own arguments."""
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream(), meta={"config": config})
    assert replay_main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "unknown key" in err and word in err


def test_replay_names_the_file_when_meta_is_not_json(tmp_path, capsys):
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream())
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    np.savez(path, **{**arrays, "meta": np.array("{not json")})
    assert replay_main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and str(path) in err and "meta is not JSON" in err


@pytest.mark.parametrize("meta", [np.array(b'{"params": {}}'), np.array(['{}']),
                                  np.array([['{}']])])
def test_a_meta_that_is_no_0d_str_array_is_refused_by_its_form(tmp_path, meta):
    """Bytes or a 1-element array holding valid JSON are refused by their form, not as
    text that is no JSON."""
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream())
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    np.savez(path, **{**arrays, "meta": meta})
    with pytest.raises(ValueError, match=re.escape(
            f"meta must be a 0-d str array holding a JSON object, not an array of shape "
            f"{meta.shape} and dtype {meta.dtype}")):
        load_trace(path)


def test_mixed_stream_refuses_what_does_not_fit(capsys):
    with pytest.raises(ValueError, match="line_shift"):
        mixed_stream(5, line_shift=20)          # 48 + 20 bits do not fit a uint64 address
    with pytest.raises(ValueError, match="n must be"):
        mixed_stream(-5)
    with pytest.raises(SystemExit):
        bench_main(["--requests", "-5"])
    assert "--requests" in capsys.readouterr().err


def _rewritten(path, **changes):
    """The trace at ``path`` rewritten by hand with some arrays changed (None: left out)."""
    with np.load(path) as data:
        arrays = {name: data[name] for name in data.files}
    arrays.update(changes)
    with open(path, "wb") as f:
        np.savez(f, **{k: v for k, v in arrays.items() if v is not None})
    return path


@pytest.mark.parametrize("change, message", [
    ({"cycle": np.arange(5, dtype=np.float64)}, "must hold integers, not float64"),
    ({"op": np.zeros(5, bool)}, "must hold integers, not bool"),
    ({"op": np.array(["0"] * 5)}, "must hold integers"),
    ({"op": np.zeros(4, np.uint8)}, "same length"),
    ({"op": np.array([0, 1, 2, 3, 0], dtype=object)}, "an array that cannot be read"),
])
def test_what_is_wrong_in_a_file_is_a_value_error_naming_it(tmp_path, change, message):
    """load_trace's callers catch ValueError: a float array in a file was a TypeError (a
    traceback of python -m evaluation.fresh), an object array's was a ValueError without
    the file's name."""
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream())
    _rewritten(path, **change)
    with pytest.raises(ValueError, match=re.escape(message)) as info:
        load_trace(path)
    assert str(info.value).startswith(str(path))


def test_a_damaged_member_is_a_value_error(tmp_path):
    """A member whose compressed bytes are damaged fails only when it is read, with a
    zlib.error (not a ValueError): it is reported as a damaged archive."""
    path = tmp_path / "t.npz"
    n = 20_000
    save_trace(path, np.arange(n), np.zeros(n, np.uint8), np.arange(n, dtype=np.uint64) * 4096,
               np.zeros(n, np.uint8))
    data = bytearray(path.read_bytes())
    data[2000:2100] = bytes(b ^ 0xFF for b in data[2000:2100])
    path.write_bytes(bytes(data))
    with pytest.raises(ValueError, match="is not a KV-ASU trace: an array that cannot be read"):
        load_trace(path)


def test_replay_takes_only_the_block_parameters_from_meta(tmp_path, capsys):
    """A workload generator keeps its own settings in meta["params"] (write_trace does):
    they are ignored, with a note, and the block's parameters still apply."""
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream(), meta={"params": {"frames": 8, "fps": 30.0, "ENTRIES": 16}})
    assert replay_main([str(path), "--json"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["params"]["ENTRIES"] == 16
    assert "ignored" in out.err and "fps, frames" in out.err


def test_replay_refuses_a_parameter_given_twice_in_meta(tmp_path, capsys):
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream(), meta={"params": {"entries": 16, "ENTRIES": 32}})
    assert replay_main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "entries twice" in err


def test_replay_reads_the_sections_of_meta_in_any_case(tmp_path, capsys):
    """``Params`` is ``params`` (as its keys are read in any case); both at once is refused,
    as which of them applies would be a guess."""
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream(), meta={"Params": {"entries": 16}, "CONFIG": {"c3": 7}})
    assert replay_main([str(path), "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["params"]["ENTRIES"] == 16 and doc["config"]["c3"] == 7
    save_trace(path, *small_stream(), meta={"Params": {"entries": 16}, "params": {}})
    assert replay_main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error:") and "gives params twice (Params, params)" in err


def test_replay_names_where_a_bad_parameter_came_from(tmp_path, capsys):
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream(), meta={"params": {"entries": True}})
    assert replay_main([str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: parameters (meta['params'] of") and "ENTRIES" in err


def test_replay_reports_a_table_too_large_for_the_memory(tmp_path, capsys, monkeypatch):
    import golden_model.replay as replay

    def no_memory(**params):
        raise MemoryError
    monkeypatch.setattr(replay, "KvAsuModel", no_memory)
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream())
    assert replay_main([str(path), "--entries", str(2**40)]) == 2
    assert capsys.readouterr().err == f"error: not enough memory for a table of {2**40} entries\n"


def test_replay_in_parts_shows_progress_and_answers_as_one_run(tmp_path, capsys, monkeypatch):
    import golden_model.replay as replay

    cycles, ops, addrs, mins = mixed_stream(2500, seed=11)
    path = tmp_path / "mix.npz"
    save_trace(path, cycles, ops, addrs, mins, meta={"params": {"entries": 64}})
    assert replay_main([str(path), "--json"]) == 0
    whole = json.loads(capsys.readouterr().out)
    monkeypatch.setattr(replay, "CHUNK", 1000)
    assert replay_main([str(path), "--json"]) == 0
    out = capsys.readouterr()
    parts = json.loads(out.out)
    for key in ("seconds", "requests_per_second"):
        whole.pop(key), parts.pop(key)
    assert parts == whole
    assert [line.split(" (")[0] for line in out.err.splitlines()] == [
        "replayed 1000 of 2500 requests", "replayed 2000 of 2500 requests",
        "replayed 2500 of 2500 requests"]


def test_a_failed_write_leaves_the_earlier_file_intact(tmp_path, monkeypatch):
    """save_trace writes a temporary file in the folder and renames it into place: a write
    that fails part way (a full disk, a size limit) leaves the trace that was there as it
    was, and no temporary file behind."""
    import errno
    import os
    path = tmp_path / "t.npz"
    save_trace(path, *small_stream(), meta={"description": "the good one"})
    before = path.read_bytes()
    real = np.savez_compressed

    def failing(file, **arrays):
        file.write(b"PK\x03\x04 half an archive")
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
    monkeypatch.setattr(np, "savez_compressed", failing)
    with pytest.raises(OSError, match="No space left"):
        save_trace(path, [0], [0], [0], [0], meta={"description": "the new one"})
    assert path.read_bytes() == before and load_trace(path).meta == {"description": "the good one"}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["t.npz"]
    # an interrupt too; then a good write replaces the file, with the umask's mode
    monkeypatch.setattr(np, "savez_compressed",
                        lambda file, **arrays: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):
        save_trace(path, [0], [0], [0], [0])
    assert path.read_bytes() == before and len(list(tmp_path.iterdir())) == 1
    monkeypatch.setattr(np, "savez_compressed", real)
    save_trace(tmp_path / "new.npz", [0], [0], [0], [0])
    save_trace(path, [0], [0], [0], [0])
    assert len(load_trace(path)) == 1
    assert path.stat().st_mode & 0o777 == (tmp_path / "new.npz").stat().st_mode & 0o777
    assert sorted(p.name for p in tmp_path.iterdir()) == ["new.npz", "t.npz"]


def test_a_link_is_kept_and_its_target_replaced(tmp_path):
    target = tmp_path / "target.npz"
    save_trace(target, *small_stream())
    link = tmp_path / "link.npz"
    link.symlink_to(target)
    save_trace(link, [0], [0], [0], [0])
    assert link.is_symlink() and len(load_trace(target)) == 1
