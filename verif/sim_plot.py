# SPDX-License-Identifier: Apache-2.0
"""The plot of ``make sim``'s per-frame figures (``sim_main.json``), ``sim_main.png``.

    python -m verif.sim_plot build/sim/sim_main.json [--out build/sim/sim_main.png]

Four panels over the frames, the quantities of the printed frame lines: the mix of
``tlevel_before`` over the frame's OBSERVEs (T0..T3, stacked, % of OBSERVEs); q-hit (QUERY
hits / QUERYs) and kv-hit (OBSERVEs of lines already at T1..T3 / OBSERVEs), in %; requests
per cycle of the frame's active span; and stall cycles. ``plot(figures, out)`` takes the
JSON's dict; matplotlib (the ``eval`` extra) draws it with the Agg backend.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

#: What every entry of ``figures["frames"]`` must hold for the plot.
FRAME_KEYS = ("frame", "observes", "obs_t0", "obs_t1", "obs_t2", "obs_t3", "queries",
              "query_hits", "evicts", "evicts_empty", "cycle", "stall")


def frame_figures(d: dict) -> dict:
    """One frame's quantities, those the frame lines print (``verif.cocotb_sim_main``) and
    the plot draws: ``requests``, ``mix`` (T0..T3 in % of OBSERVEs, zeros for a frame
    without OBSERVEs), ``q_hit`` and ``kv_hit`` (%), ``req_per_cycle`` and ``stall``
    (cycles)."""
    obs = d["observes"]
    reqs = d["observes"] + d["queries"] + d["evicts"] + d["evicts_empty"]
    return {
        "requests": reqs,
        "mix": [100 * d[f"obs_t{k}"] / obs if obs else 0.0 for k in range(4)],
        "q_hit": 100 * d["query_hits"] / d["queries"] if d["queries"] else 0.0,
        "kv_hit": 100 * (obs - d["obs_t0"]) / obs if obs else 0.0,
        "req_per_cycle": reqs / d["cycle"] if d["cycle"] else 0.0,
        "stall": d["stall"],
    }


def check_figures(figures: dict) -> list[dict]:
    """The frames of ``figures``; ``ValueError`` naming what is missing if it has no
    frames or a frame lacks one of ``FRAME_KEYS``."""
    frames = figures.get("frames") if isinstance(figures, dict) else None
    if not isinstance(frames, list) or not frames:
        raise ValueError("the per-frame figures hold no 'frames' list (or an empty one): "
                         "nothing to plot")
    for i, d in enumerate(frames):
        missing = [k for k in FRAME_KEYS if k not in d]
        if missing:
            raise ValueError(f"frames[{i}] (frame {d.get('frame', '?')}) lacks "
                             f"{', '.join(missing)}: cannot plot it")
    return frames


def plot(figures: dict, out: Path) -> Path:
    """Draw ``figures`` (the dict of ``sim_main.json``) to the PNG ``out`` and return its
    path. ``ValueError`` if the figures lack a key the plot needs (checked before
    matplotlib is imported); ``ImportError`` if matplotlib is not installed."""
    frames = check_figures(figures)
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    x = list(range(len(frames)))
    labels = [str(d["frame"]) for d in frames]
    rows = [frame_figures(d) for d in frames]
    fig, axes = plt.subplots(4, 1, figsize=(8, 9), sharex=True,
                             gridspec_kw={"height_ratios": [3, 2, 2, 2]})
    ax = axes[0]
    bottom = [0.0] * len(frames)
    colours = ("#bbbbbb", "#9ecae1", "#4292c6", "#08519c")
    for k in range(4):
        part = [r["mix"][k] for r in rows]
        ax.bar(x, part, bottom=bottom, color=colours[k], label=f"T{k}")
        bottom = [b + p for b, p in zip(bottom, part)]
    ax.set_ylim(0, 100)
    ax.set_ylabel("OBSERVEs by tlevel_before (%)")
    ax.legend(ncol=4, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)

    ax = axes[1]
    ax.plot(x, [r["q_hit"] for r in rows], "o-", label="q-hit (QUERY hits / QUERYs)")
    ax.plot(x, [r["kv_hit"] for r in rows], "s-", label="kv-hit (OBSERVEs at T1..T3)")
    ax.set_ylim(0, 105)
    ax.set_ylabel("hit rate (%)")
    ax.legend(loc="best", fontsize="small")

    ax = axes[2]
    ax.plot(x, [r["req_per_cycle"] for r in rows], "o-", color="tab:green")
    ax.set_ylim(0, max(r["req_per_cycle"] for r in rows) * 1.15 or 1)
    ax.set_ylabel("requests per cycle")

    ax = axes[3]
    ax.bar(x, [r["stall"] for r in rows], color="tab:red")
    ax.set_ylabel("stall (cycles)")
    ax.set_xlabel("frame")
    ax.set_xticks(x, labels)
    for ax in axes:
        ax.grid(axis="y", alpha=0.3)
    title = "make sim: per-frame figures from the RTL's statistics registers"
    if "preset" in figures or "seed" in figures:
        title += f"\n(preset {figures.get('preset', '?')}, seed {figures.get('seed', '?')})"
    fig.suptitle(title, fontsize="medium")
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verif.sim_plot", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("figures", type=Path, help="sim_main.json")
    ap.add_argument("--out", type=Path, default=None,
                    help="output PNG (default: beside the JSON, sim_main.png)")
    args = ap.parse_args(argv)
    out = args.out or args.figures.with_suffix(".png")
    try:
        print(plot(json.loads(args.figures.read_text()), out))
    except (OSError, ValueError, ImportError) as exc:
        print(f"python -m verif.sim_plot: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
