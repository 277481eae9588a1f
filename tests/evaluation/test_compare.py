# SPDX-License-Identifier: Apache-2.0
"""evaluation.compare on tiny traces: JSON shape, agreement with the project's baselines,
Belady as the bound, the predictor on a loop longer than the bank, argument errors."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from evaluation import compare as cmp
from evaluation.baselines import simulate_belady, simulate_lru
from golden_model.trace import save_trace
from tests.docs_text import flat, grouped

REQUIRED = ("lru", "belady", "kv_asu_article", "kv_asu_article_gate", "kv_asu_predictor",
            "arc", "lirs", "s3fifo", "sieve", "wtinylfu")


def _write(path, lines, cycles=None, ops=None):
    n = len(lines)
    cycles = np.arange(n) if cycles is None else cycles
    ops = np.zeros(n, np.uint8) if ops is None else ops
    save_trace(path, cycles, ops, np.asarray(lines, np.uint64) << np.uint64(8),
               np.zeros(n, np.uint8), meta={"description": "test"})
    return path


def _random_lines(seed, n=3000, distinct=300):
    rng = np.random.default_rng(seed)
    print(f"seed {seed}")
    hot = rng.integers(0, 20, n)                    # a few hot lines among a wider spread
    wide = rng.integers(20, distinct, n)
    return np.where(rng.random(n) < 0.4, hot, wide).astype(np.int64)


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    path = _write(tmp_path_factory.mktemp("cmp") / "t.npz", _random_lines(7))
    out = path.with_suffix(".json")
    assert cmp.main([str(path), "--bank-lines", "40", "--json", str(out)]) == 0
    return json.loads(out.read_text())


def test_json_shape(doc):
    assert doc["bank_lines"] == 40 and doc["accesses"] == 3000 and doc["entries"] == 2048
    for name in REQUIRED:
        entry = doc["policies"][name]
        assert 0.0 <= entry["hit_rate"] <= 1.0, name
        assert "gap_closed" in entry
    for name in ("kv_asu_article", "kv_asu_article_gate", "kv_asu_predictor"):
        assert -1.0 <= doc["policies"][name]["mcc"] <= 1.0
    assert 0.0 <= doc["policies"]["kv_asu_predictor"]["loop_mode_share"] <= 1.0
    assert 0.0 <= doc["policies"]["kv_asu_predictor"]["ghost_rule_share"] <= 1.0
    assert doc["policies"]["lru"]["gap_closed"] == 0.0
    assert doc["policies"]["belady"]["gap_closed"] == 1.0
    assert doc["best_libcachesim"] in ("arc", "lirs", "s3fifo", "sieve", "wtinylfu", "lrb", "glcache")


def test_lru_and_belady_agree_with_the_project(doc):
    lines = _random_lines(7)
    lru = simulate_lru(lines, 40)
    assert doc["policies"]["lru"]["hits"] == int(lru.sum())
    assert np.array_equal(cmp.libcachesim_hits("lcs_lru", lines, 40), lru)
    ours = int(simulate_belady(lines, 40).sum())
    theirs = int(cmp.libcachesim_hits("lcs_belady", lines, 40).sum())
    # The project's MIN may bypass; libCacheSim's always inserts: never better, and close.
    assert theirs <= ours and theirs >= 0.98 * ours


def _sieve_hits(lines, capacity):
    """SIEVE as its paper states it (NSDI 2024): a FIFO queue of lines, new lines at the
    head; a hit sets the line's visited bit; a miss with the queue full moves the hand from
    where it stopped (at first the tail) towards the head, wrapping to the tail, clearing
    visited bits, and evicts the first line it finds unvisited; the hand stays at the line
    after it."""
    newer, older, visited = {}, {}, {}
    head = tail = hand = None
    hits = np.zeros(len(lines), dtype=bool)
    for i, line in enumerate(lines.tolist()):
        if line in visited:
            visited[line] = True
            hits[i] = True
            continue
        if len(visited) >= capacity:
            victim = tail if hand is None else hand
            while visited[victim]:
                visited[victim] = False
                victim = tail if newer[victim] is None else newer[victim]
            hand = newer[victim]
            before, after = older[victim], newer[victim]
            if before is None:
                tail = after
            else:
                newer[before] = after
            if after is None:
                head = before
            else:
                older[after] = before
            del newer[victim], older[victim], visited[victim]
        older[line], newer[line], visited[line] = head, None, False
        if head is not None:
            newer[head] = line
        head = line
        if tail is None:
            tail = line
    return hits


@pytest.mark.parametrize("seed, capacity", [(7, 40), (11, 5), (3, 120)])
def test_libcachesim_sieve_is_the_papers_sieve(seed, capacity):
    """SIEVE falls far below LRU on the video traces (docs/evaluation.md section 8): the
    library's SIEVE hits exactly where the algorithm as published does, access by access."""
    lines = _random_lines(seed)
    assert np.array_equal(cmp.libcachesim_hits("sieve", lines, capacity),
                          _sieve_hits(lines, capacity))


def test_libcachesim_logs_nothing_on_stderr(capfd):
    """GLCache logs its settings from C when it is built; the comparison's output stays
    its own."""
    cmp.libcachesim_hits("glcache", _random_lines(7, n=500), 40)
    assert "GLCache" not in capfd.readouterr().err


def test_the_library_child_logs_nothing_on_stderr(capfd, monkeypatch):
    """What the C library writes to the standard error while a policy runs (GLCache warns,
    in colour, that it cannot merge) stays out of the comparison's output."""
    def noisy(name, lines, bank_lines):
        os.write(2, b"library noise\n")
        return np.zeros(len(lines), dtype=bool)

    monkeypatch.setattr(cmp, "libcachesim_hits", noisy)
    assert not cmp.isolated_libcachesim_hits("sieve", np.arange(5), 2).any()
    assert "library noise" not in capfd.readouterr().err


def test_the_printed_header_says_when_lines_were_renumbered():
    doc = {"accesses": 2, "distinct_lines": 2, "bank_lines": 1, "entries": 2048, "base_rate": 0.0,
           "reuse_window_cycles": 100, "policies": {}}
    assert "renumbered" not in cmp._format({**doc, "lines_renumbered": False})[0]
    assert "lines renumbered" in cmp._format({**doc, "lines_renumbered": True})[0]


def test_belady_bounds_every_policy(doc):
    bound = doc["policies"]["belady"]["hit_rate"]
    for name, entry in doc["policies"].items():
        if entry.get("hit_rate") is not None:
            assert entry["hit_rate"] <= bound + 1e-12, name


def test_predictor_beats_lru_on_a_loop_longer_than_the_bank():
    """Every line of a 60-line loop is equally frequent and comes back after 60 others: LRU
    with a 40-line bank misses every access; the predictor keeps part of the loop."""
    lines = np.tile(np.arange(1000, 1060), 40)
    cycles = np.arange(len(lines)) * 2                  # a loop of 120 cycles > W3
    doc = cmp.compare(lines, cycles, 40, libcachesim=False)
    lru = doc["policies"]["lru"]["hit_rate"]
    pred = doc["policies"]["kv_asu_predictor"]["hit_rate"]
    assert lru == 0.0
    assert pred >= 0.3, pred
    assert doc["policies"]["kv_asu_predictor"]["fallback_evictions"] == 0


def test_a_small_bank_reaches_loop_mode_on_a_long_loop():
    """P11's step: a 600-line loop through a 150-line bank gives a shadow of 9 lines about 7
    BIP-only hits per pass; at +1 each, PSEL would not reach 512 in 30 passes (the block
    would stay at LRU's 0 %); at +4 it does, and part of the loop stays resident."""
    lines = np.tile(np.arange(1000, 1600), 30)
    cycles = np.arange(len(lines)) * 2
    run = cmp.run_predictor_bank(lines, cycles, 150)
    assert run["duels"]["lru_only"] == 0 and 4 * run["duels"]["bip_only"] > 512
    assert run["duels"]["bip_only"] < 512
    assert run["loop_mode_share"] > 0.2 and run["hits"].mean() > 0.04, (
        run["loop_mode_share"], run["hits"].mean())


def test_the_guard_keeps_lru_where_demoted_ghosts_would_be_reused(monkeypatch):
    """Spec P12: blocks of 20 random lines out of 70, each block read twice in a row, 8
    cycles per read (so a line's two reads are 160 cycles apart, beyond W3, and its history
    predicts no reuse), through a 50-line bank: a ghost that comes back is read again 20
    reads later, which LRU keeps and the ghost rule (demoting it to the tail) loses. With the
    guard the bank equals LRU and the rule is off; without it (the rule always on) it loses."""
    import golden_model.predictor as gp

    rng = np.random.default_rng(5)
    print("seed 5")
    lines = []
    for _ in range(150):
        block = list(rng.choice(np.arange(1000, 1070), 20, replace=False))
        lines += block + block
    lines = np.array(lines)
    cycles = np.arange(len(lines)) * 8
    lru = simulate_lru(lines, 50).mean()
    guarded = cmp.run_predictor_bank(lines, cycles, 50)
    assert guarded["hits"].mean() >= lru - 1e-12 and guarded["ghost_rule_share"] < 0.05
    monkeypatch.setattr(gp, "GSEL_INIT", gp.GSEL_MAX)   # the rule on, never turned off
    monkeypatch.setattr(gp, "GSEL_HIT", 0)
    unguarded = cmp.run_predictor_bank(lines, cycles, 50)
    assert unguarded["hits"].mean() < lru - 0.05, (unguarded["hits"].mean(), lru)


def test_predictor_bank_never_loses_a_line():
    lines = _random_lines(3, n=2000)
    out = cmp.run_predictor_bank(lines, np.arange(len(lines)), 25)
    stats = out["kvasu_stats"]
    assert stats["observes"] == len(lines)
    assert out["hits"].sum() <= simulate_belady(lines, 25).sum()


def test_only_observes_are_accesses(tmp_path):
    lines = np.array([1, 1, 2, 1, 3, 2])
    ops = np.array([0, 1, 0, 2, 0, 0], np.uint8)        # a QUERY and an EVICT are ignored
    trace = __import__("golden_model").load_trace(_write(tmp_path / "o.npz", lines, ops=ops))
    got, cycles = cmp.access_stream(trace)
    assert got.tolist() == [1, 2, 3, 2] and cycles.tolist() == [0, 2, 4, 5]


@pytest.mark.parametrize("shift", [-1, 64, 6.0, "6", True, None])
def test_a_line_shift_the_block_refuses_is_refused(tmp_path, shift):
    path = tmp_path / "s.npz"
    save_trace(path, np.arange(4), np.zeros(4, np.uint8), np.arange(4, dtype=np.uint64),
               np.zeros(4, np.uint8), meta={"params": {"line_shift": shift}})
    with pytest.raises(ValueError, match=r"meta\['params'\] of the trace\): LINE_SHIFT must be"):
        cmp.access_stream(__import__("golden_model").load_trace(path))


def test_a_line_shift_of_the_trace_is_used(tmp_path):
    path = tmp_path / "s.npz"
    save_trace(path, np.arange(3), np.zeros(3, np.uint8), np.array([0, 64, 128], np.uint64),
               np.zeros(3, np.uint8), meta={"params": {"line_shift": 6}})
    lines, _ = cmp.access_stream(__import__("golden_model").load_trace(path))
    assert lines.tolist() == [0, 1, 2]


def test_the_meta_is_read_as_the_replay_reads_it(tmp_path):
    """Keys in any case (a LINE_SHIFT of 6 is the replay's line_shift), and what the replay
    refuses (a section that is no object, a key given twice, an unknown register, parameters
    or a configuration the block refuses) is refused, though the comparison applies neither."""
    path = tmp_path / "s.npz"
    save_trace(path, np.arange(3), np.zeros(3, np.uint8), np.array([0, 64, 128], np.uint64),
               np.zeros(3, np.uint8), meta={"params": {"LINE_SHIFT": 6}})
    lines, _ = cmp.access_stream(__import__("golden_model").load_trace(path))
    assert lines.tolist() == [0, 1, 2]
    for meta, message in [({"params": [6]}, "must be a JSON object"),
                          ({"params": {"line_shift": 6, "Line_Shift": 7}}, "line_shift twice"),
                          ({"config": {"c4": 1}}, "unknown key"),
                          ({"params": {"entries": 1000}},
                           r"parameters \(meta\['params'\] of the trace\): ENTRIES must be a "
                           r"power of two"),
                          ({"config": {"c3": 1, "c2": 5}},
                           r"configuration \(meta\['config'\] of the trace\): illegal "
                           r"configuration"),
                          ({"config": {"w1": 0.5}}, "configuration")]:
        save_trace(path, np.arange(3), np.zeros(3, np.uint8), np.array([0, 64, 128], np.uint64),
                   np.zeros(3, np.uint8), meta=meta)
        with pytest.raises(ValueError, match=message):
            cmp.access_stream(__import__("golden_model").load_trace(path))
        with pytest.raises(ValueError, match=message):
            cmp.trace_settings_not_applied(meta)


def test_cycles_from_2_63_on_are_moved_down_by_a_multiple_of_2_32(tmp_path):
    start = 2**64 - 3000
    cycles = np.uint64(start) + np.arange(2000, dtype=np.uint64)
    trace = __import__("golden_model").load_trace(_write(tmp_path / "c.npz", np.arange(2000) % 50,
                                                         cycles=cycles))
    lines, got = cmp.access_stream(trace)
    assert got.dtype == np.int64 and 0 <= got.min() and got.max() < 2**63
    assert (np.diff(got) == 1).all()                     # every difference kept
    assert int(got[0]) % 2**32 == start % 2**32          # and the low 32 bits (timestamps)
    small = cmp.compare(lines, got, 10, libcachesim=False)
    base = cmp.compare(lines, got - got[0] + start % 2**32, 10, libcachesim=False)
    assert small["policies"]["kv_asu_predictor"] == {**base["policies"]["kv_asu_predictor"],
                                                     "seconds": small["policies"]["kv_asu_predictor"]["seconds"]}
    wide = np.array([0, 2**63 + 2**40], np.uint64)
    with pytest.raises(ValueError, match="span more than 2"):
        cmp.access_stream(__import__("golden_model").load_trace(_write(tmp_path / "w.npz", [1, 2],
                                                                       cycles=wide)))


@pytest.mark.parametrize("argv,message", [
    (["missing.npz", "--bank-lines", "4"], "no such file"),
    (["{tmp}", "--bank-lines", "4"], "a folder, not a trace file"),
    (["{t}", "--bank-lines", "0"], "at least 1"),
    (["{t}", "--bank-lines", "1/0"], "at least 1"),
    (["{t}", "--bank-lines", "2/8"], "a number of lines or 1/K"),
    (["{t}", "--bank-lines", "lots"], "a number of lines or 1/K"),
    (["{t}", "--bank-lines", "4", "--entries", "100"], "power of two"),
    (["{t}", "--bank-lines", "4", "--entries", "2"], "at least 4"),
    (["{t}", "--bank-lines", str(2**64)], "at most 2^63 - 1"),
    (["{t}", "--bank-lines", "4", "--window", str(2**64)], "--window must be 0..2^63 - 1"),
    (["{t}", "--bank-lines", "4", "--entries", str(2**63)], "--entries must be at most 2^48"),
    (["{t}", "--bank-lines", "4", "--json", "{tmp}/no/such/folder.json"], "no such folder"),
    (["{t}", "--bank-lines", "4", "--json", "{tmp}"], "a folder"),
    (["{empty}", "--bank-lines", "4"], "no OBSERVE"),
    (["{bad}", "--bank-lines", "4"], "not a KV-ASU trace"),
    (["{shift}", "--bank-lines", "4"], "s.npz: parameters (meta['params'] of the trace): "
                                       "LINE_SHIFT must be 0..ADDR_WIDTH-1 (63), not -1"),
])
def test_bad_arguments_give_clear_errors(tmp_path, capsys, argv, message):
    t = _write(tmp_path / "t.npz", np.arange(10))
    empty = _write(tmp_path / "e.npz", np.arange(4), ops=np.ones(4, np.uint8))
    bad = tmp_path / "b.npz"
    np.savez(bad, x=np.arange(3))
    shift = tmp_path / "s.npz"
    save_trace(shift, np.arange(4), np.zeros(4, np.uint8), np.arange(4, dtype=np.uint64),
               np.zeros(4, np.uint8), meta={"params": {"line_shift": -1}})
    argv = [a.format(t=t, empty=empty, bad=bad, shift=shift, tmp=tmp_path)
            for a in argv]
    with pytest.raises(SystemExit) as exit_info:
        cmp.main(argv)
    assert exit_info.value.code == 2
    assert message in capsys.readouterr().err
    with pytest.raises(ValueError, match="at least 1"):
        cmp.compare(np.arange(5), np.arange(5), 0)


@pytest.mark.parametrize("seed", [3, 11])
def test_optgen_unsampled_counts_belady_hits(seed):
    """The prototypes' OPTgen, sampling every line with a history as long as the trace,
    decides exactly as many hits as Belady's MIN with bypass (the baseline's simulator)."""
    from evaluation.predictor_prototype import OptGen

    lines = _random_lines(seed, n=2000, distinct=120)
    decisions = []
    optgen = OptGen(16, lambda sig, hit: decisions.append(hit), sample_shift=0, history=len(lines))
    for x in lines.tolist():
        optgen.observe(x, 0)
    assert sum(decisions) == int(simulate_belady(lines, 16).sum())
    assert len(decisions) == len(lines) - len(np.unique(lines))   # one decision per reuse


def test_section_8_splice_replaces_only_section_8():
    """compare_report's CLI rewrites section 8 of an existing report and nothing else."""
    from evaluation import compare_report as cr

    text = f"# Report\n\n## 7. Before\n\nkept\n\n{cr.SECTION}\n\nold numbers\n\n{cr.NEXT_SECTION}\n\nalso kept\n"
    out = cr.splice(text, f"{cr.SECTION}\n\nnew numbers\n")
    assert "old numbers" not in out and "new numbers" in out
    assert out.startswith("# Report\n\n## 7. Before\n\nkept\n\n")
    assert out.endswith(f"new numbers\n\n{cr.NEXT_SECTION}\n\nalso kept\n")
    with pytest.raises(ValueError):
        cr.splice("no sections here", "x")


def test_report_from_results_rewrites_section_8_from_the_json(tmp_path):
    """compare_report --from-results runs no policy: section 8 (with the guard's column) and
    its figure come from results.json's policy_comparison; the rest of the report stays."""
    from evaluation import compare_report as cr

    lines = _random_lines(11, n=1500, distinct=120)
    banks = {f"1/{f}": cmp.compare(lines, np.arange(len(lines)), 120 // f, libcachesim=False)
             for f in (8, 4, 2)}
    (tmp_path / "eval").mkdir()
    (tmp_path / "eval" / "results.json").write_text(json.dumps(
        {"other": 1, "policy_comparison": {"tiny": {"split": "held-out", "distinct_lines": 120, "banks": banks}}}))
    (tmp_path / "evaluation.md").write_text(f"# R\n\n{cr.SECTION}\n\nSTALE-NUMBERS\n\n{cr.NEXT_SECTION}\n\nkept\n")
    assert cr.main(["--docs", str(tmp_path), "--from-results"]) == 0
    text = (tmp_path / "evaluation.md").read_text()
    assert "STALE-NUMBERS" not in text and text.endswith(f"{cr.NEXT_SECTION}\n\nkept\n")
    assert "| ghost rule on |" in text and "### tiny (held-out)" in text
    rate = banks["1/4"]["policies"]["kv_asu_predictor"]["hit_rate"]
    assert f"**{100 * rate:.1f} %**" in text
    assert (tmp_path / "eval" / "policy_tiny.png").stat().st_size > 0
    assert json.loads((tmp_path / "eval" / "results.json").read_text())["other"] == 1


def test_compare_without_baselines_runs_only_the_own_policies():
    """libcachesim=False, article=False: LRU, FIFO, Belady and the predictor only, summarised."""
    lines = _random_lines(5, n=1500, distinct=150)
    doc = cmp.compare(lines, np.arange(len(lines)), 30, libcachesim=False, article=False)
    assert set(doc["policies"]) == {"lru", "fifo", "belady", "kv_asu_predictor"}
    assert doc["best_libcachesim"] is None
    assert doc["policies"]["belady"]["gap_closed"] == 1.0
    assert doc["policies"]["lru"]["hits"] == int(simulate_lru(lines, 30).sum())


@pytest.mark.parametrize("bank", [1, 2, 3, 5, 8, 16])
def test_a_small_bank_runs_every_policy_or_says_why_not(bank):
    """Banks below libCacheSim's working sizes: the library would abort (S3-FIFO under 10
    lines, W-TinyLFU under 6) or never hit (S3-FIFO under 20, W-TinyLFU under 100, LIRS at
    1); the comparison still finishes, every policy that runs hits where LRU does, and the
    others say why they did not run."""
    lines = _random_lines(11, n=1500, distinct=60)
    doc = cmp.compare(lines, np.arange(len(lines)), bank, article=False)
    assert doc["policies"]["lru"]["hits"] > 0
    for name in cmp.LIBCACHESIM_POLICIES:
        entry = doc["policies"][name]
        if bank < cmp.LIBCACHESIM_MIN_LINES.get(name, 1):
            assert entry["hit_rate"] is None and "needs a bank of at least" in entry["error"], name
        else:
            assert entry["hits"] > 0, (name, entry)
    assert doc["best_libcachesim"] is not None


def test_lirs_is_not_run_in_a_bank_of_two_where_it_beat_belady():
    """libCacheSim's LIRS at 2 lines holds more than 2: on a stream of 3 lines it hit more
    often than MIN. It starts at 3 lines, and any policy above Belady is reported as an
    error, never as a figure or the best libCacheSim policy."""
    lines = np.random.default_rng(0).integers(0, 3, 3000).astype(np.uint64)
    doc = cmp.compare(lines, np.arange(len(lines)), 2, article=False)
    assert doc["policies"]["lirs"]["hit_rate"] is None
    assert "at least 3" in doc["policies"]["lirs"]["error"]
    belady = doc["policies"]["belady"]["hit_rate"]
    assert all(e["hit_rate"] <= belady for e in doc["policies"].values() if e.get("hit_rate") is not None)
    fake = {"policies": {"lru": {"hit_rate": 0.5}, "belady": {"hit_rate": 0.8},
                         "lirs": {"hit_rate": 0.9}, "arc": {"hit_rate": 0.6}}}
    cmp.summarise(fake)
    assert fake["policies"]["lirs"]["hit_rate"] is None and "above Belady" in fake["policies"]["lirs"]["error"]
    assert fake["best_libcachesim"] == "arc"


def test_a_bank_beyond_the_distinct_lines_gives_the_library_twice_the_distinct_lines(capfd):
    """A bank of 2**32 lines or more overflows W-TinyLFU's counting filter, which then writes
    to stdout; the library gets twice the distinct lines, where every policy, LIRS too,
    misses only on first accesses, as in the bank asked for."""
    lines = np.tile(np.arange(20, dtype=np.uint64), 10)
    doc = cmp.compare(lines, np.arange(len(lines)), 2**32, article=False)
    assert "CBF" not in capfd.readouterr().out
    for name in cmp.LIBCACHESIM_POLICIES:
        assert doc["policies"][name]["hits"] == len(lines) - 20, name
        assert doc["policies"][name]["bank_lines"] == 40, name


@pytest.mark.parametrize("lines, bank", [
    (np.tile(np.arange(10), 10), 11),   # LIRS in a bank of exactly 10 lines hit 83 of 90
    (np.full(100, 5), 10),              # one line: LIRS, S3-FIFO, W-TinyLFU were not run
])
def test_a_bank_a_little_beyond_the_distinct_lines_is_served_as_asked(lines, bank):
    """A bank above the distinct lines never has to evict: every libCacheSim policy runs and
    misses only on first accesses, as LRU does (given exactly the distinct lines, LIRS still
    evicted, and the policies that need 3 or 6 lines were refused a bank of 1)."""
    doc = cmp.compare(lines, np.arange(len(lines)), bank, article=False)
    first_accesses = len(np.unique(lines))
    assert doc["policies"]["lru"]["hits"] == len(lines) - first_accesses
    for name in cmp.LIBCACHESIM_POLICIES:
        assert doc["policies"][name].get("hits") == len(lines) - first_accesses, \
            (name, doc["policies"][name])
    assert cmp.libcachesim_bank("lirs", 11, 10) == 11 and cmp.libcachesim_bank("lirs", 2, 1) == 2
    assert cmp.libcachesim_bank("wtinylfu", 10, 1) == 6 and cmp.libcachesim_bank("arc", 10, 1) == 2


def test_the_mcc_of_a_label_the_same_for_every_access_is_undefined(tmp_path, capsys):
    """No line reused (or no reuse within the window): the reuse label is constant, the
    correlation undefined; it is None (n/a), not 0, which would read as a useless
    prediction. A label that varies still gives a number."""
    path = _write(tmp_path / "d.npz", np.arange(50))
    out = tmp_path / "d.json"
    assert cmp.main([str(path), "--bank-lines", "4", "--json", str(out)]) == 0
    doc = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert doc["base_rate"] == 0.0
    for name in ("kv_asu_article", "kv_asu_article_gate", "kv_asu_predictor"):
        assert doc["policies"][name]["mcc"] is None, name
    assert doc["policies"]["kv_asu_predictor"]["prediction"]["mcc"] is None
    assert "MCC n/a" in capsys.readouterr().out
    reused = cmp.compare(np.tile(np.arange(8), 4), np.arange(32), 4, libcachesim=False)
    assert isinstance(reused["policies"]["kv_asu_predictor"]["mcc"], float)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="needs a /proc file system")
def test_a_json_path_that_cannot_be_created_is_refused_before_the_run(tmp_path, capsys):
    """Permissions alone say /proc is writable to root, where no file can be made: the
    path is tried before the run. A new --json file tried so is not left behind."""
    path = _write(tmp_path / "t.npz", np.arange(10))
    with pytest.raises(SystemExit) as exit_info:
        cmp.main([str(path), "--bank-lines", "4", "--json", "/proc/kv_asu_compare.json"])
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert "cannot make a file in /proc" in err and "running every policy" not in err
    empty = _write(tmp_path / "e.npz", np.arange(4), ops=np.ones(4, np.uint8))
    with pytest.raises(SystemExit):
        cmp.main([str(empty), "--bank-lines", "4", "--json", str(tmp_path / "new.json")])
    assert not (tmp_path / "new.json").exists()


def test_a_value_that_is_not_a_finite_number_is_not_written_as_json(tmp_path, monkeypatch, capsys):
    """The JSON is strict: a NaN in the results is an error (status 1), never written."""
    path = _write(tmp_path / "t.npz", np.arange(10))
    doc = {"accesses": 10, "distinct_lines": 10, "bank_lines": 4, "entries": 2048,
           "reuse_window_cycles": 100, "base_rate": 0.0, "lines_renumbered": False,
           "policies": {"lru": {"hit_rate": float("nan"), "gap_closed": None}}}
    monkeypatch.setattr(cmp, "compare", lambda *args, **kwargs: doc)
    out = tmp_path / "n.json"
    assert cmp.main([str(path), "--bank-lines", "4", "--json", str(out)]) == 1
    assert not out.exists() and "not written" in capsys.readouterr().err


def test_kv_asu_settings_of_the_trace_that_are_not_applied_are_reported(tmp_path, capsys):
    """The KV-ASU runs in the comparison's own configuration: a trace asking for another
    (its meta's params or config) is told so, on stderr and in the JSON; a workload's own
    parameters, line_shift, entries and settings equal to the comparison's are not listed."""
    assert cmp.trace_settings_not_applied({"params": {"entries": 64, "line_shift": 8,
                                                      "resolution": [64, 64], "probe": 4},
                                           "config": {"C3": 5, "hash_seed": 0}}) == {}
    from evaluation.decoder import BLOCK_CONFIG, BLOCK_PARAMS
    assert cmp.trace_settings_not_applied({"params": BLOCK_PARAMS, "config": BLOCK_CONFIG}) == {}
    n = 200
    lines = np.random.default_rng(19).integers(0, 30, n).astype(np.uint64)
    path = tmp_path / "c.npz"
    save_trace(path, np.arange(n), np.zeros(n, np.uint8), lines << np.uint64(8), np.zeros(n, np.uint8),
               meta={"params": {"tick_shift": 0}, "config": {"C3": 4, "w1": 127}})
    out = tmp_path / "c.json"
    assert cmp.main([str(path), "--bank-lines", "8", "--json", str(out)]) == 0
    assert "tick_shift=0, c3=4, w1=127 are not applied" in capsys.readouterr().err
    doc = json.loads(out.read_text(), parse_constant=lambda c: pytest.fail(f"{c} in the JSON"))
    assert doc["trace_settings_not_applied"] == {"tick_shift": {"trace": 0, "used": 2},
                                                 "c3": {"trace": 4, "used": 5},
                                                 "w1": {"trace": 127, "used": 125}}


def test_small_queue_shares_are_rounded_up_to_a_line():
    """The library's own arguments wherever they give every queue a line."""
    assert cmp.libcachesim_params("s3fifo", 200) == {} == cmp.libcachesim_params("wtinylfu", 100)
    assert int(cmp.libcachesim_params("s3fifo", 10)["small_size_ratio"] * 10) == 2
    assert int(cmp.libcachesim_params("wtinylfu", 50)["window_size"] * 50) == 1
    assert cmp.libcachesim_params("arc", 3) == {}


def test_a_policy_that_aborts_is_reported_not_fatal(monkeypatch):
    """A child process that the library stops with an abort becomes an error entry."""
    import os

    def aborting(name, lines, bank_lines):
        if name == "sieve":
            os.abort()
        if name == "arc":
            raise MemoryError("no memory")
        return np.zeros(len(lines), bool)

    monkeypatch.setattr(cmp, "libcachesim_hits", aborting)
    lines = _random_lines(3, n=400, distinct=50)
    doc = cmp.compare(lines, np.arange(len(lines)), 10, article=False)
    assert doc["policies"]["sieve"]["hit_rate"] is None
    assert "SIGABRT" in doc["policies"]["sieve"]["error"]
    assert doc["policies"]["arc"]["error"] == "MemoryError: no memory"
    assert doc["policies"]["lirs"]["hit_rate"] == 0.0


def test_article_levels_do_not_depend_on_the_chunk(monkeypatch):
    """The article mode's levels, made a chunk at a time, equal those of one call."""
    lines = _random_lines(13, n=2500, distinct=400)
    cycles = np.arange(len(lines), dtype=np.int64)
    whole = cmp._article_levels(lines, cycles, 256)
    monkeypatch.setattr(cmp, "_CHUNK", 333)
    assert np.array_equal(cmp._article_levels(lines, cycles, 256), whole)
    assert whole.max() > 0


def test_a_bank_larger_than_the_trace_sizes_the_table_by_its_lines():
    """A bank of a billion lines on a 300-line trace: the KV-ASU's table is sized by the
    lines (sized by the bank it would have 2**31 entries, more memory than the machine has), and
    every policy misses only on first accesses."""
    assert cmp.default_entries(5000) == 16384 and cmp.default_entries(5000, 300) == 2048
    assert cmp.default_entries(5000, 3000) == 8192 and cmp.default_entries(5000, 10**6) == 16384
    lines = _random_lines(13, n=1500, distinct=300)
    doc = cmp.compare(lines, np.arange(len(lines)), 10**9)
    assert doc["entries"] == 2048
    first_accesses = doc["distinct_lines"]
    for name, entry in doc["policies"].items():
        if name != "kv_asu_article_gate":
            assert entry["hits"] == len(lines) - first_accesses, name


def test_a_bank_given_as_a_share_of_the_distinct_lines(tmp_path, capsys):
    """--bank-lines 1/K: a K-th of the trace's distinct lines, as the report sizes its banks;
    the same figures as that many lines given outright."""
    lines = _random_lines(17, n=1200, distinct=200)
    path = _write(tmp_path / "s.npz", lines)
    distinct = len(np.unique(lines))
    for arg, bank in (("1/8", distinct // 8), ("1/1", distinct), (f"1/{10 * distinct}", 1)):
        out = tmp_path / f"{bank}.json"
        assert cmp.main([str(path), "--bank-lines", arg, "--json", str(out)]) == 0
        doc = json.loads(out.read_text())
        assert doc["bank_lines"] == bank
        assert doc["policies"]["lru"]["hits"] == int(simulate_lru(lines, bank).sum())
    assert f"bank {distinct // 8} lines" in capsys.readouterr().err


def test_lines_high_in_the_address_space_are_renumbered_for_the_kv_asu():
    """Line numbers whose address (line << 8) does not fit in 64 bits (64-byte lines near the
    top of the address space): not renumbered, every KV-ASU EVICT_ANY would return a wrapped
    tag the bank does not hold, and the predictor would fall back to LRU on every eviction. Renumbered, the stream gives
    exactly the figures of the same stream at lines 0..N-1."""
    loop = np.tile(np.arange(60, dtype=np.int64), 40)      # as in the loop test above
    cycles = np.arange(len(loop)) * 2
    low = cmp.compare(loop, cycles, 40, libcachesim=False)
    high = cmp.compare(loop + (1 << 60), cycles, 40, libcachesim=False)
    assert high["lines_renumbered"] and not low["lines_renumbered"]
    for name, entry in low["policies"].items():
        assert high["policies"][name]["hits"] == entry["hits"], name
    assert high["policies"]["kv_asu_predictor"]["fallback_evictions"] == 0
    assert high["policies"]["kv_asu_predictor"]["hits"] > high["policies"]["lru"]["hits"]
    lines, renumbered = cmp.kvasu_lines(np.array([5, -1, 1 << 58, 5]))
    assert renumbered and lines.tolist() == [1, 0, 2, 1]


def test_duels_count_each_sampled_outcome():
    """count_duels pairs the LRU shadow's outcome with the BIP shadow's that follows it."""
    from types import SimpleNamespace

    outcomes = [(True, False), (False, True), (True, True), (False, False), (False, True)]
    lru_hits = iter(o[0] for o in outcomes)
    bip_hits = iter(o[1] for o in outcomes)
    state = SimpleNamespace(shadow_lru=SimpleNamespace(access=lambda tag, cap: next(lru_hits)),
                            shadow_bip=SimpleNamespace(access=lambda tag, cap: next(bip_hits)))
    counts = cmp.count_duels(state)
    for _ in outcomes:                       # as PredictorState._duel asks them
        state.shadow_lru.access(0, 1)
        state.shadow_bip.access(0, 1)
    assert counts == {"lru_only": 1, "bip_only": 2, "both": 1, "neither": 1}


def test_a_loop_many_times_the_bank_wins_the_duels_for_bip():
    """A loop of 1 000 lines through a bank of 100: the BIP shadow keeps a few of the loop's
    sampled lines, the LRU shadow none, so every duel one shadow wins goes to BIP (P11); the
    duels are the sampled OBSERVEs, about one window in 16."""
    lines = np.tile(np.arange(5000, 6000), 12)
    duels = cmp.run_predictor_bank(lines, np.arange(len(lines)) * 2, 100)["duels"]
    assert duels["lru_only"] == 0 and duels["both"] == 0 and duels["bip_only"] > 0, duels
    assert 0.03 < sum(duels.values()) / len(lines) < 0.12, duels


def test_cycles_from_2_63_on_are_read_as_the_64_bit_counter():
    """compare() takes the counter's values as they are (a uint64 array from 2^63 on, as
    the CLI's trace may hold): the same stream moved up by 2^63 gives the same document,
    as 2^63 is a multiple of every tick; a negative cycle is refused."""
    def figures(doc):
        """The document without its run times, which differ from run to run."""
        if isinstance(doc, dict):
            return {k: figures(v) for k, v in doc.items() if k != "seconds"}
        return doc

    n = 300
    lines = np.random.default_rng(23).integers(0, 40, n).astype(np.uint64)
    low = np.arange(n, dtype=np.uint64) * np.uint64(3)
    high = cmp.compare(lines, low + np.uint64(2**63), 8, libcachesim=False)
    assert figures(high) == figures(cmp.compare(lines, low, 8, libcachesim=False))
    assert high["policies"]["lru"]["hits"] > 0
    with pytest.raises(ValueError, match="cycles must be >= 0"):
        cmp.int64_cycles(np.array([-1, 0]))


def test_points_against_lru_and_policies_that_are_lru(doc):
    """``vs_lru_points`` is the difference from LRU in points, with or without a gap; a
    libCacheSim policy says whether it hit exactly where LRU hits (LRU's own binding does,
    Belady's does not on this trace); the article mode reports its prediction's rates."""
    pol = doc["policies"]
    for name, entry in pol.items():
        if entry.get("hit_rate") is not None:
            assert entry["vs_lru_points"] == pytest.approx(
                100 * (entry["hit_rate"] - pol["lru"]["hit_rate"])), name
    assert pol["lcs_lru"]["same_hits_as_lru"] is True
    assert pol["lcs_belady"]["same_hits_as_lru"] is False
    assert all(isinstance(pol[k].get("same_hits_as_lru"), bool) for k in cmp.LIBCACHESIM_POLICIES
               if pol[k].get("hit_rate") is not None)
    prediction = pol["kv_asu_article"]["prediction"]
    assert prediction["mcc"] == pol["kv_asu_article"]["mcc"]
    assert 0.0 <= prediction["positive_rate"] <= 1.0


def test_a_loop_the_bank_holds_shows_the_article_modes_loss_in_points(tmp_path, capsys):
    """A loop over 100 lines, one read every 10 cycles, in a bank of 110 lines: LRU and
    Belady hit 99 % (no gap), while the article's watermark GC evicts each line before it
    comes back (T0 by then): the table shows -99 points where no share of a gap exists."""
    lines = np.tile(np.arange(100), 100)
    path = _write(tmp_path / "loop.npz", lines, cycles=10 * np.arange(len(lines)))
    out = tmp_path / "loop.json"
    assert cmp.main([str(path), "--bank-lines", "110", "--json", str(out)]) == 0
    pol = json.loads(out.read_text())["policies"]
    assert pol["lru"]["hit_rate"] == pol["belady"]["hit_rate"] == 0.99
    assert pol["kv_asu_article"]["gap_closed"] is None
    assert pol["kv_asu_article"]["vs_lru_points"] == pytest.approx(-99.0)
    row = next(r for r in capsys.readouterr().out.splitlines() if r.startswith("kv_asu_article "))
    assert "vs LRU  -99.00 pts" in row and "gap closed" not in row


@pytest.mark.parametrize("lines, bank, loop_mode, hit", [(1500, 187, "44.9", "4.2"), (3000, 375, "73.1", "6.8"),
                                                        (600, 150, "39.3", "8.3")])
def test_the_loops_of_spec_predictor_reach_loop_mode_as_it_says(lines, bank, loop_mode, hit):
    """spec-predictor.md, "The step `s`": each cyclic loop of 30 passes spends the share of its
    OBSERVEs in loop mode and hits as often as the page says (the page's figures, rerun)."""
    stream = np.tile(np.arange(lines, dtype=np.int64), 30)
    result = cmp.run_predictor_bank(stream, np.arange(len(stream), dtype=np.int64), bank)
    assert f"{100 * result['loop_mode_share']:.1f}" == loop_mode
    assert f"{100 * np.mean(result['hits']):.1f}" == hit
    text = " ".join((Path(__file__).resolve().parents[2] / "docs" / "spec-predictor.md").read_text().split())
    assert f"{loop_mode} %" in text and f"{hit} %" in text


def test_section_8_quotes_the_mcc_spacing_example():
    """evaluation.md section 8's example of the MCC's dependence on request spacing is what
    ``compare_report.spacing_example`` computes now."""
    from evaluation.compare_report import SPACING_EXAMPLE, spacing_example

    on_accesses, on_requests = spacing_example()
    assert abs(on_requests - on_accesses) > 0.2          # the example shows a large difference
    text = flat((Path(__file__).resolve().parents[2] / "docs" / "evaluation.md").read_text())
    assert (f"seed {SPACING_EXAMPLE[1]['seed']}, " in text and f"the predictor's MCC is {on_accesses:.2f} on its "
            f"accesses one per cycle and {on_requests:.2f} on the trace's request stream" in text)


def test_the_readme_quotes_the_predictor_below_lru_on_a_short_decoder_trace():
    """README: the held-out decoder trace's first 128 tokens (the cached selection), through a
    bank of one decode step's working set, half the trace's lines: the predictor's points
    below LRU."""
    from evaluation import decoder

    acc = decoder.cached_accesses("heldout", sparse=True, n_tokens=128)
    lines, cycles = acc.line.astype(np.int64), acc.cycle.astype(np.int64)
    distinct = len(np.unique(lines))
    bank = cmp.bank_of_share(distinct, 2)
    policies = cmp.compare(lines, cycles, bank, libcachesim=False, article=False)["policies"]
    below = 100 * (policies["lru"]["hit_rate"] - policies["kv_asu_predictor"]["hit_rate"])
    assert below > 0
    text = flat((Path(__file__).resolve().parents[2] / "README.md").read_text())
    assert (f"the held-out decoder trace's first 128 tokens, through a bank of one decode step's working set "
            f"({grouped(bank)} lines, half the trace's lines), give {below:.2f} points below") in text
