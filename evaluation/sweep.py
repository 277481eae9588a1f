# SPDX-License-Identifier: Apache-2.0
"""Experiments and parameter sweeps. Each function runs the models and returns plain data
(dicts / lists of dicts, JSON-serialisable); :mod:`evaluation.report` plots and writes them.

Everything is deterministic: workloads are seeded (seeds are in the returned records),
the golden model is deterministic, and the prefetch predictor is seeded.
"""

from __future__ import annotations

import sys
import time

import numpy as np

from .baselines import POLICIES
from .metrics import LatencyModel, classify, reuse_within
from .runtime import KvAsuConfig, RuntimeConfig, check_line_bytes, passive_tlevels, run_runtime
from .workload import LINE_BYTES, Accesses, describe, generate_accesses, preset

REUSE_WINDOW = 100  # cycles, the article's "next 100 cycles"


def steady_mask(acc: Accesses) -> np.ndarray:
    """Accesses made once the video workload is in steady state: frames from
    ``nearby_frames`` on, when every prefill query has its full history. Everything for
    non-video workloads. Models always see every access; only the scoring is masked.
    Returns a bool array, one flag per access of ``acc``."""
    p = acc.params
    if p is None or not hasattr(p, "nearby_frames"):
        return np.ones(len(acc), dtype=bool)
    return acc.frame_index >= min(p.nearby_frames, p.frames - 1)


class Progress:
    """Progress lines with elapsed time, on stderr."""

    def __init__(self, quiet: bool = False):
        self.t0 = time.perf_counter()
        self.quiet = quiet

    def __call__(self, msg: str) -> None:
        if not self.quiet:
            print(f"[{time.perf_counter() - self.t0:7.1f}s] {msg}", file=sys.stderr, flush=True)


def workload_summary(name: str, acc: Accesses, window: int = REUSE_WINDOW) -> dict:
    """Size, reuse base rate (within ``window`` cycles, steady-state part) and, for a
    generated workload, parameters of ``acc``, under ``name``. Returns a JSON-able dict."""
    lab = reuse_within(acc.line, acc.cycle, window)
    lab = lab[steady_mask(acc)]
    d = {
        "name": name, "accesses": int(len(acc)), "reads": int(acc.reads.sum()),
        "writes": int(acc.is_write.sum()), "distinct_lines": int(len(np.unique(acc.line))),
        "reuse_base_rate": float(lab.mean()) if len(lab) else 0.0,
        "frames": int(acc.frame_index.max()) + 1 if len(acc) else 0,
        "last_cycle": int(acc.cycle[-1]) if len(acc) else 0,
    }
    if acc.params is not None:
        d["description"] = describe(acc.params)
        d["seed"] = acc.params.seed
        d["params"] = acc.params.to_dict()
    return d


# --------------------------------------------------------------------------------------
# Reuse prediction
# --------------------------------------------------------------------------------------
def prediction_scores(acc: Accesses, kvasu: KvAsuConfig = KvAsuConfig(), window: int = REUSE_WINDOW) -> dict:
    """T-level (after each OBSERVE, and before it) as a predictor of reuse within
    ``window`` cycles, for thresholds 1..3, plus the KV-ASU statistics.

    ``acc``: the stream, all of it observed by a KV-ASU built from ``kvasu``, scored on
    its steady-state part (:func:`steady_mask`). Returns a dict: ``after`` / ``before``
    map each threshold to :meth:`Classification.as_dict`; ``best_threshold`` and
    ``best_accuracy`` are the threshold with the highest accuracy *on this same stream*
    (an in-sample pick among three, reported as such); ``scored`` counts the scored
    accesses, ``tlevel_share`` their shares by T-level after the OBSERVE.
    """
    before, after, stats = passive_tlevels(acc, kvasu)
    lab = reuse_within(acc.line, acc.cycle, window)
    m = steady_mask(acc)
    before, after, lab = before[m], after[m], lab[m]
    scored = int(m.sum())
    # No scored access: shares of 0 (as classify's scores are then), not NaN, which is not JSON.
    out = {"window": window, "stats": stats, "after": {}, "before": {}, "scored": scored,
           "tlevel_share": [float(np.mean(after == k)) if scored else 0.0 for k in range(4)]}
    for thr in (1, 2, 3):
        out["after"][thr] = classify(after >= thr, lab).as_dict()
        out["before"][thr] = classify(before >= thr, lab).as_dict()
    best = max((1, 2, 3), key=lambda t: out["after"][t]["accuracy"])
    out["best_threshold"] = best
    out["best_accuracy"] = out["after"][best]["accuracy"]
    return out


# --------------------------------------------------------------------------------------
# Fast-bank hit rates
# --------------------------------------------------------------------------------------
def baseline_rates(acc: Accesses, capacity: int, latency: LatencyModel = LatencyModel()) -> dict:
    """Hit rate, mean latency and demand DRAM bytes of the baselines (the banks see every
    access).

    ``acc``: the stream; ``capacity``: bank lines; ``latency``: the latency model. Returns
    ``{"lru" | "fifo" | "belady": {"hit_rate", "mean_latency", "dram_bytes"}}``. The hit
    rate and mean latency are over the reads of the steady-state frames
    (:func:`steady_mask`), like :func:`runtime_record`'s; the DRAM bytes are those of every
    frame's read misses, like the runtime's (whose DRAM bytes are over every access).
    ``belady`` is :func:`~evaluation.baselines.simulate_belady` with ``read_optimal=True``:
    the most read hits any policy can have, also where lines are written again.
    ``latency.line_bytes`` must be the workload's line size (``ValueError``)."""
    check_line_bytes(latency)
    m = steady_mask(acc)
    reads = int((acc.reads & m).sum())
    all_reads = int(acc.reads.sum())
    out = {}
    for name, fn in POLICIES.items():
        hit = fn(acc.line, capacity, acc.is_write)
        h = int(hit[m].sum())
        out[name] = {"hit_rate": h / reads if reads else 0.0, "mean_latency": latency.mean(h, reads - h),
                     "dram_bytes": (all_reads - int(hit.sum())) * latency.line_bytes}
    return out


def runtime_record(acc: Accesses, cfg: RuntimeConfig, label: str, **extra) -> dict:
    """Run the runtime configured by ``cfg`` over ``acc`` and score it on the reads of the
    steady-state frames (:func:`steady_mask`). Returns a JSON-able dict under ``label``
    with ``extra`` merged in: ``scored_reads`` (the reads scored; with none, every rate and
    the mean latency are 0.0), hit rates, mean latency and the run's counters (the DRAM
    bytes, evictions, requests and KV-ASU QUERY hit share are over every access), and
    ``gate_prediction``, the gate's T-level as a reuse predictor (None without a gate
    threshold)."""
    r = run_runtime(acc, cfg)
    m = steady_mask(acc)
    rd = acc.reads & m
    n = int(rd.sum())
    sv = r.served[rd]
    hits = int(np.sum((sv == 1) | (sv == 2)))
    d = {"label": label, "scored_reads": n, "hit_rate": hits / n if n else 0.0,
         "resident_rate": float(np.mean(r.resident[rd])) if n else 0.0,
         "bank_hit_rate": float(np.mean(sv == 1)) if n else 0.0,
         "prefetch_hit_rate": float(np.mean(sv == 2)) if n else 0.0,
         "gated_refetch_rate": float(np.mean(r.resident[rd] & (sv != 1))) if n else 0.0,
         "mean_latency": cfg.latency.mean(hits, n - hits), "dram_bytes": r.dram_bytes, "prefetch_bytes": r.prefetch_bytes,
         "gc_evictions": r.gc_evictions, "forced_evictions": r.forced_evictions,
         "max_occupancy": r.max_occupancy, "requests": r.requests, "seconds": r.seconds,
         "bank_lines": cfg.bank_lines, "min_tlevel": cfg.min_tlevel, "gate": cfg.gate,
         "watermark": cfg.watermark, "frame_boost": cfg.frame_boost, "prefetch": cfg.prefetch,
         "kvasu_query_hit_rate": (r.kvasu_stats.get("query_hits", 0) / max(1, r.kvasu_stats.get("queries", 0))),
         "predictor_loss": [float(x) for x in r.predictor_loss]}
    # T-level the gate used, as a reuse predictor over reads.
    lab = reuse_within(acc.line, acc.cycle, REUSE_WINDOW)[rd]
    tl = r.read_tlevel[rd]
    d["gate_prediction"] = classify(tl >= cfg.min_tlevel, lab).as_dict() if cfg.min_tlevel > 0 else None
    d.update(extra)
    return d


RUNTIME_VARIANTS = {
    # label: overrides of RuntimeConfig; those of "kvasu" are overrides of the base's KvAsuConfig
    "KV-ASU gate>=2 (article)": dict(gate=True, min_tlevel=2),
    "KV-ASU gate>=1": dict(gate=True, min_tlevel=1),
    "KV-ASU no gate (GC only)": dict(gate=False),
    "recency-only gate>=2": dict(gate=True, min_tlevel=2, kvasu=dict(c3=1, c2=1)),
}


def hit_rate_vs_bank(acc: Accesses, banks, progress=Progress(True), base: RuntimeConfig = RuntimeConfig()) -> list:
    """The baselines (:func:`baseline_rates`) and every :data:`RUNTIME_VARIANTS` entry of
    the runtime ``base`` on ``acc``, at each bank size of ``banks`` (lines), reporting each
    run to ``progress``. Returns a list of rows, one per bank size and policy."""
    rows = []
    for b in banks:
        bl = baseline_rates(acc, b, base.latency)
        for name, v in bl.items():
            rows.append({"bank_lines": b, "policy": name, **v})
        for label, ov in RUNTIME_VARIANTS.items():
            if "kvasu" in ov:  # the base's table (ENTRIES, PROBE, windows) with these changes
                ov = {**ov, "kvasu": base.kvasu.replace(**ov["kvasu"])}
            rec = runtime_record(acc, base.replace(bank_lines=b, **ov), label)
            rows.append({"bank_lines": b, "policy": label, **rec})
            progress(f"  bank {b}: {label}: hit rate {rec['hit_rate']:.3f} ({rec['seconds']:.1f}s)")
        progress(f"  bank {b}: LRU {bl['lru']['hit_rate']:.3f} FIFO {bl['fifo']['hit_rate']:.3f} "
                 f"Belady {bl['belady']['hit_rate']:.3f}")
    return rows


def watermark_sweep(acc: Accesses, marks, base: RuntimeConfig, progress=Progress(True), gated_marks=None) -> list:
    """GC watermark sweep with the gate off (``marks``) and on (``gated_marks``, default the same).

    ``acc``: the stream; ``base``: the runtime the sweep varies (``gc_low`` is the mark
    minus 0.10; a mark of None turns GC off); ``progress`` is told each run. Returns one
    :func:`runtime_record` per run."""
    rows = []
    for gate in (False, True):
        for wm in (marks if not gate or gated_marks is None else gated_marks):
            cfg = base.replace(gate=gate, watermark=wm, gc_low=(max(0.0, wm - 0.10) if wm is not None else 0.75))
            rec = runtime_record(acc, cfg, f"wm={wm} gate={gate}")
            rows.append(rec)
            progress(f"  watermark {wm} gate={gate}: hit rate {rec['hit_rate']:.3f}, GC evictions {rec['gc_evictions']}")
    return rows


def feature_ablation(acc: Accesses, base: RuntimeConfig, progress=Progress(True), name: str = "",
                     prefetches=(None, "last", "lstm"), gates=(True, False)) -> list:
    """Frame-aware boost and prefetch predictor on/off, with and without the gate.

    ``acc``: the stream; ``base``: the runtime varied; ``name``: the workload name put in
    each row; ``prefetches`` / ``gates``: the prefetch modes and gate settings tried;
    ``progress`` is told each run. Returns one :func:`runtime_record` per configuration,
    then a row for LRU given the prefetch bank's lines too (``baseline: True``)."""
    rows = []
    for gate in gates:
        for boost in (False, True):
            if boost and not gate:
                continue  # the boost only changes the gate's decision
            for pf in prefetches:
                cfg = base.replace(gate=gate, frame_boost=boost, prefetch=pf)
                rec = runtime_record(acc, cfg, f"gate={gate} boost={boost} prefetch={pf}", workload=name)
                rows.append(rec)
                progress(f"  {name} gate={gate} boost={boost} prefetch={pf}: hit rate {rec['hit_rate']:.3f} "
                         f"(prefetch hits {rec['prefetch_hit_rate']:.3f})")
    # The prefetch bank's capacity given to a plain LRU bank instead.
    lru_more = baseline_rates(acc, base.bank_lines + base.prefetch_lines, base.latency)["lru"]
    rows.append({"label": f"LRU with {base.bank_lines}+{base.prefetch_lines} lines", "hit_rate": lru_more["hit_rate"],
                 "mean_latency": lru_more["mean_latency"], "workload": name, "baseline": True})
    return rows


# --------------------------------------------------------------------------------------
# Configuration sweeps (passive prediction quality, cheap)
# --------------------------------------------------------------------------------------
def _pred_row(acc, kv: KvAsuConfig, **extra) -> dict:
    """The headline scores of :func:`prediction_scores` of ``acc`` under ``kv``, as one
    flat row with ``extra`` in front (``tracked_share`` and ``drop_share``: shares of every
    OBSERVE, the steady-state mask aside)."""
    s = prediction_scores(acc, kv)
    st = s["stats"]
    return {**extra, "acc2": s["after"][2]["accuracy"], "f1_2": s["after"][2]["f1"],
            "acc3": s["after"][3]["accuracy"], "f1_3": s["after"][3]["f1"],
            "mcc2": s["after"][2]["mcc"], "mcc3": s["after"][3]["mcc"],
            "prec3": s["after"][3]["precision"], "rec3": s["after"][3]["recall"],
            "base_rate": s["after"][2]["base_rate"],
            "tracked_share": st["observe_hits"] / max(1, st["observes"]),
            "drop_share": st["drops"] / max(1, st["observes"])}


def config_sweep(acc: Accesses, progress=Progress(True)) -> dict:
    """Passive prediction quality on ``acc`` as one KV-ASU parameter at a time changes
    (ENTRIES, PROBE, TICK_SHIFT, C3 x C2), telling ``progress`` after each sweep. Returns
    a dict of lists of :func:`_pred_row` rows, by parameter."""
    out = {"entries": [], "probe": [], "tick_shift": [], "c3c2": []}
    for e in (256, 512, 1024, 2048, 4096):
        out["entries"].append(_pred_row(acc, KvAsuConfig(entries=e), entries=e))
    progress("  ENTRIES sweep done")
    for p in (1, 2, 4, 8, 16):
        out["probe"].append(_pred_row(acc, KvAsuConfig(probe=p), probe=p))
    progress("  PROBE sweep done")
    for ts in (0, 1, 2, 3, 4):
        # Same tick values, so windows of 100/200/500 cycles scaled by 2**(ts-2).
        out["tick_shift"].append(_pred_row(acc, KvAsuConfig(tick_shift=ts), tick_shift=ts,
                                           w3_cycles=25 << ts, w2_cycles=50 << ts, w1_cycles=125 << ts))
    progress("  window (TICK_SHIFT) sweep done")
    for c3 in range(1, 9):
        for c2 in range(1, c3 + 1):
            out["c3c2"].append(_pred_row(acc, KvAsuConfig(c3=c3, c2=c2), c3=c3, c2=c2))
    progress("  C3 x C2 sweep done")
    return out


def tuning_rule(motions, base_params, progress=Progress(True), c3_values=range(1, 9)) -> list:
    """For every motion level: the C3 that maximises the accuracy (the article's metric) and
    the Matthews correlation of 'T3 predicts reuse', against the article's rule
    ``round(5 * motion_std / 15)``. (F1 is not used to pick: it rewards predicting
    everything positive.)

    ``motions``: motion_std values (pixels); ``base_params``: the video workload whose
    motion is varied; ``c3_values``: the C3 tried (the rule's too, when legal), each with
    C2 = min(3, C3); ``progress`` is told each level. The best C3 is picked on the very
    trace it is scored on (an oracle to compare the rule with, not a tuned setting).
    Returns one row per motion level."""
    rows = []
    for m in motions:
        acc = generate_accesses(base_params.replace(motion_std_px=float(m)))
        per = []
        rule = int(round(5 * m / 15))
        for c3 in sorted(set(c3_values) | ({rule} if rule >= 1 else set())):
            r = _pred_row(acc, KvAsuConfig(c3=c3, c2=min(3, c3)), c3=c3)
            per.append(r)
        best_mcc = max(per, key=lambda r: r["mcc3"])
        best_acc = max(per, key=lambda r: r["acc3"])
        at_rule = next((r for r in per if r["c3"] == rule), None)
        rows.append({"motion_std_px": float(m), "rule_c3": rule, "best_c3_mcc": best_mcc["c3"],
                     "best_mcc3": best_mcc["mcc3"], "best_c3_acc": best_acc["c3"], "best_acc3": best_acc["acc3"],
                     "rule_acc3": at_rule["acc3"] if at_rule else None, "rule_mcc3": at_rule["mcc3"] if at_rule else None,
                     "per_c3": per, "base_rate": per[0]["base_rate"]})
        progress(f"  motion {m:g}px: best C3 by accuracy = {best_acc['c3']}, by MCC = {best_mcc['c3']}, rule says {rule}")
    return rows


def workload_sweep(progress=Progress(True), base_name: str = "1080p30", frames: int = 6,
                   motions=(0, 4, 8, 15, 30, 60, 120), resolutions=((854, 480), (1280, 720), (1920, 1080)),
                   fps_values=(15, 30, 60), bank_lines: int = 1024, radii=(1, 2, 3)) -> dict:
    """Prediction quality and hit rates as the workload changes (motion, resolution, fps,
    and the sparse-attention neighbourhood radius, which sets how many consecutive queries
    read a line: ``2 * radius + 1``). Returns a dict of lists of rows, one list per swept
    quantity (``motion``, ``resolution``, ``fps``, ``region_radius``)."""
    base = preset(base_name, frames=frames)
    out = {"motion": [], "resolution": [], "fps": []}
    rc = RuntimeConfig(bank_lines=bank_lines)

    def one(prm, **key):
        acc = generate_accesses(prm)
        s = prediction_scores(acc)
        lru = baseline_rates(acc, bank_lines)["lru"]["hit_rate"]
        rec = runtime_record(acc, rc, "KV-ASU gate>=2")
        same = _same_region_share(acc)
        return {**key, "base_rate": s["after"][2]["base_rate"], "acc2": s["after"][2]["accuracy"],
                "f1_1": s["after"][1]["f1"], "acc1": s["after"][1]["accuracy"], "mcc2": s["after"][2]["mcc"],
                "mcc3": s["after"][3]["mcc"],
                "f1_2": s["after"][2]["f1"], "acc3": s["after"][3]["accuracy"], "f1_3": s["after"][3]["f1"],
                "best_accuracy": s["best_accuracy"], "lru_hit_rate": lru, "kvasu_hit_rate": rec["hit_rate"],
                "accesses": int(len(acc)), "same_region_share": same, "seed": prm.seed}

    for m in motions:
        out["motion"].append(one(base.replace(motion_std_px=float(m)), motion_std_px=float(m)))
        progress(f"  motion {m:g}px done")
    for res in resolutions:
        out["resolution"].append(one(base.replace(resolution=tuple(res)), resolution=f"{res[0]}x{res[1]}",
                                     tokens_per_frame=base.replace(resolution=tuple(res)).tokens_per_frame))
        progress(f"  resolution {res[0]}x{res[1]} done")
    for f in fps_values:
        out["fps"].append(one(base.replace(fps=float(f)), fps=float(f)))
        progress(f"  fps {f} done")
    out["region_radius"] = []
    for rad in radii:
        out["region_radius"].append(one(base.replace(region_radius=int(rad)), region_radius=int(rad),
                                        burst=2 * int(rad) + 1))
        progress(f"  region radius {rad} done")
    return out


def _same_region_share(acc: Accesses) -> float:
    """Share of prefill reads of earlier frames' visual tokens whose (row, col) is within
    the region radius of the query token's own (row, col) — 'same region' re-reads.
    Returns NaN when ``acc`` is not a video workload with prefill reads and sink tokens, or
    when its KV blocks are smaller than a line (then one access stands for the tokens that
    share its line, and a query's first access, to sink token 0, can be merged with the
    previous query's last one: the queries are not found)."""
    p = acc.params
    if p is None or p.bytes_per_kv_block < LINE_BYTES:
        return float("nan")
    # The query of a prefill read is not stored per access; recover it from the order:
    # prefill reads of one (frame, layer, head) come query by query in raster order, each
    # starting with the sink tokens.
    from .workload import KIND_PREFILL_READ
    m = (acc.kind == KIND_PREFILL_READ)
    idx = np.nonzero(m)[0]
    if len(idx) == 0:
        return float("nan")
    tok = acc.token[idx]
    starts = (tok == 0) & np.r_[True, tok[:-1] != 0]  # each query's selection starts with sink token 0
    if p.sink_tokens == 0:
        return float("nan")
    qno = np.cumsum(starts) - 1
    rows, cols = p.grid
    P = rows * cols
    qpos = qno % P  # raster index of the query within its frame
    qr, qc = qpos // cols, qpos % cols
    tr, tc, tfr = acc.tag_row[idx], acc.tag_col[idx], acc.tag_frame[idx]
    past = (tr >= 0) & (tfr < acc.frame_index[idx])
    near = (np.abs(tr - qr) <= p.region_radius) & (np.abs(tc - qc) <= p.region_radius)
    return float(near[past].mean()) if past.any() else float("nan")
