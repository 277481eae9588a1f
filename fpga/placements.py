# SPDX-License-Identifier: Apache-2.0
"""The record of measured placements: every (target, netlist, seed, speed grade) the FPGA
flow placed, its Fmax and resources, collected from the flow's ``report.json`` files into
one JSON record, summarised and plotted.

One placement of a netlist is one draw: nextpnr's seed moves the Fmax of the same netlist
by more than most design changes do (docs/fpga.md), so a figure means something only
beside the other placements of the same netlist. The record keeps them together and says
which netlist each is of::

    python -m fpga.placements collect --record docs/fpga/placements.json OUT/*/report.json
    python -m fpga.placements collect --drop-other-netlists --record ... OUT/*/report.json
    python -m fpga.placements summary --record docs/fpga/placements.json
    python -m fpga.placements plot --record docs/fpga/placements.json --out F.png
    python -m fpga.placements plot --out build/fpga/placements.png build/fpga/*/report.json
    python -m fpga.placements current --record docs/fpga/placements.json
    python -m fpga.placements doc --record docs/fpga/placements.json --doc docs/fpga.md

Each placement also names its flow (:func:`flow_label`: the synthesis and nextpnr options
it was made with, ``tool defaults`` for none), and placements are grouped by target, netlist,
flow and speed grade. A netlist is named by :func:`netlist_id`: a digest of the harness
Verilog the flow placed (``top.v``) without its source-location attributes, so that a
change of line numbers alone (which moves no cell) keeps the name and any change of logic
or of a name changes it. ``collect`` replaces an entry of the same target, netlist, flow,
target frequency, seed and speed grade, so a placement measured again is recorded once.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import statistics
import sys
from pathlib import Path

from regmap.arguments import check_writable

__all__ = ["netlist_id", "flow_label", "current_flow", "current_netlist",
           "records_from_report", "collect", "summary", "markdown", "write_doc", "plot", "main"]

#: The markers of the block of a Markdown page that ``write_doc`` owns.
DOC_BEGIN = "<!-- placements: written by python -m fpga.placements doc -->"
DOC_END = "<!-- placements: end -->"

#: Amaranth's source-location attributes, ``(* src = "file:line" *)``.
_SRC_ATTRIBUTE = re.compile(r"\(\* src = [^)]*\*\)")


def netlist_id(verilog: str) -> str:
    """The name of the netlist in ``verilog``: 12 hex digits of the SHA-256 of the text
    without its ``src`` attributes."""
    if not isinstance(verilog, str):
        raise TypeError(f"verilog must be a str, not {type(verilog).__name__}")
    return hashlib.sha256(_SRC_ATTRIBUTE.sub("", verilog).encode()).hexdigest()[:12]


def flow_label(flow: dict) -> str:
    """The options a report's ``flow`` says its placements were made with, as one string:
    Yosys's (``synth:OPT``), nextpnr's (``OPT`` or ``OPT=V``) and a placement frequency
    apart from the target's (``place_freq=MHZ``); ``tool defaults`` for none."""
    parts = [f"synth:{x}" for x in flow.get("synth_options", [])]
    parts += list(flow.get("pnr_options", []))
    if flow.get("place_freq_mhz") not in (None, flow.get("target_mhz")):
        parts.append(f"place_freq={flow['place_freq_mhz']:g}")
    return " ".join(parts) or "tool defaults"


def _target(name: str):
    """``fpga.targets.TARGETS[name]``, or a ``ValueError`` naming the known ones."""
    from .targets import TARGETS
    if name not in TARGETS:
        raise ValueError(f"unknown target {name!r}; known: {sorted(TARGETS)}")
    return TARGETS[name]


def current_flow(target_name: str) -> str:
    """The :func:`flow_label` of the options ``fpga.flow`` places ``target_name`` with by
    default (its own, at its default frequency)."""
    from .flow import flow_record
    from .targets import flow_options
    t = _target(target_name)
    return flow_label({**flow_record(flow_options(t, t.default_freq)),
                       "target_mhz": t.default_freq})


def current_netlist(target_name: str) -> str:
    """The name of the netlist the flow would place for ``target_name`` now (its
    :func:`fpga.flow.harness_verilog`, without Yosys's synthesis)."""
    from .flow import harness_verilog
    return netlist_id(harness_verilog(_target(target_name))[1])


def _placed(entry: dict) -> bool:
    """Whether a report's placement placed and routed (a report written before the flow
    kept failed placements lists only placed ones, without a ``status``)."""
    return entry.get("status", "placed") == "placed"


def records_from_report(path) -> list[dict]:
    """Every placement of one flow report (``OUT/<target>/report.json``): one entry per
    seed at the first speed grade, and one per further speed grade (its kept seed); a
    placement nextpnr failed to place or route has no Fmax and is not one. The netlist is
    the report's ``netlist``, else :func:`netlist_id` of the ``top.v`` beside it (a report
    written before the flow named its netlist)."""
    path = Path(path)
    report = json.loads(path.read_text())
    if not report.get("placements"):
        raise ValueError(f"{path}: no placements (not a report of fpga.flow)")
    netlist = report.get("netlist")
    if netlist is None:
        verilog = path.parent / "top.v"
        if not verilog.exists():
            raise ValueError(f"{path}: no 'netlist' and no top.v beside it")
        netlist = netlist_id(verilog.read_text())
    res = report["resources"]
    flow = {**report.get("flow", {}), "target_mhz": report["target_mhz"]}
    common = {"target": report["target"], "netlist": netlist, "flow": flow_label(flow),
              "target_mhz": report["target_mhz"],
              "lut": res["lut"]["used"], "ff": res["ff"]["used"], "bram": res["bram"]["used"]}
    grades = report.get("speed_grades", {})
    first = report.get("speed")
    entries = [{**common, "seed": x["seed"], "speed": first, "fmax_mhz": x["fmax_mhz"]}
               for x in report["placements"] if _placed(x)]
    entries += [{**common, "seed": g["seed"], "speed": int(speed), "fmax_mhz": g["fmax_mhz"]}
                for speed, g in grades.items() if int(speed) != first and _placed(g)]
    return entries


def _key(entry):
    """Record order: the targets in ``fpga.targets.TARGETS``' order (the cores, then the
    references), then netlist, flow, target frequency, speed grade and seed. (The target
    frequency is part of a placement's name: nextpnr places to it, so a placement of the
    same seed at another frequency is another placement.)"""
    from .targets import TARGETS
    order = list(TARGETS)
    rank = order.index(entry["target"]) if entry["target"] in order else len(order)
    return (rank, entry["target"], entry["netlist"], entry["flow"], entry["target_mhz"],
            entry["speed"] or 0, entry["seed"])


def collect(reports, record=None, *, drop_other_netlists=False) -> dict:
    """The record (``{"placements": [...]}``) with every placement of ``reports`` added,
    replacing an entry of the same target, netlist, flow, target frequency, seed and speed
    grade. ``drop_other_netlists``: also drop the record's placements of a target of
    ``reports`` whose netlist none of them placed (the netlist as the sources built it
    before; the record then holds each such target's netlist as the reports place it)."""
    new = [entry for path in reports for entry in records_from_report(path)]
    placed = {(e["target"], e["netlist"]) for e in new}
    targets = {target for target, _ in placed}
    entries = {_key(e): e for e in (record or {}).get("placements", [])
               if not (drop_other_netlists and e["target"] in targets
                       and (e["target"], e["netlist"]) not in placed)}
    for entry in new:
        entries[_key(entry)] = entry
    return {"placements": [entries[k] for k in sorted(entries)]}


def _groups(record):
    """The record's entries by (target, netlist, flow, target frequency, speed), in the
    record's order."""
    groups = {}
    for e in record["placements"]:
        key = (e["target"], e["netlist"], e["flow"], e["target_mhz"], e["speed"])
        groups.setdefault(key, []).append(e)
    return groups


def summary(record) -> list[dict]:
    """Per target, netlist, flow and speed grade: the seeds, their Fmax (lowest, mean, median,
    standard deviation, highest) and how many meet the target frequency."""
    rows = []
    for (target, netlist, flow, _target_mhz, speed), entries in _groups(record).items():
        fmax = [e["fmax_mhz"] for e in entries]
        rows.append({
            "target": target, "netlist": netlist, "flow": flow, "speed": speed,
            "seeds": [e["seed"] for e in entries], "fmax_mhz": fmax,
            "min": min(fmax), "mean": round(statistics.fmean(fmax), 2),
            "median": round(statistics.median(fmax), 2),
            "stdev": round(statistics.stdev(fmax), 2) if len(fmax) > 1 else None,
            "max": max(fmax), "target_mhz": entries[0]["target_mhz"],
            "meet": sum(f >= entries[0]["target_mhz"] for f in fmax),
            "lut": entries[0]["lut"],
        })
    return rows


def plot(record, out, *, speed=6, title=None) -> Path:
    """A strip plot of every placement at ``speed``: one column per target, netlist and flow,
    one point per seed (labelled with it), the mean as a bar, the target frequency as a
    line. Writes ``out`` (PNG) and returns its path."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in summary(record) if r["speed"] == speed]
    if not rows:
        raise ValueError(f"no placements at speed {speed}")
    # (a design far above its target, the reference with the block RAM's output register,
    # would squash the others' scale: it is named in the title instead)
    far = [r for r in rows if r["min"] > 1.5 * r["target_mhz"]]
    near = [r for r in rows if r not in far]
    if near:
        rows = near
    else:
        far = []
    # (a column's label names what tells it from the others: the netlist where a target
    # has several, the flow where the columns have several)
    several_netlists = {t for t in {r["target"] for r in rows}
                        if len({r["netlist"] for r in rows if r["target"] == t}) > 1}
    several_flows = len({r["flow"] for r in rows}) > 1
    labels = [r["target"] + (f" {r['netlist'][:6]}" if r["target"] in several_netlists else "")
              + (f"\n{_flow_text(r['flow'])}" if several_flows else "")
              + f"\n({r['lut']} LUT4; seeds {_seed_span(r['seeds'])})" for r in rows]
    fig, ax = plt.subplots(figsize=(2.2 + 2.0 * len(rows), 4.6))
    for x, r in enumerate(rows):
        met = [f >= r["target_mhz"] for f in r["fmax_mhz"]]
        # (the seeds side by side across the column, in seed order, so that points of
        # close Fmax do not hide each other)
        n = len(r["seeds"])
        xs = [x + (0.7 * (k / (n - 1) - 0.5) if n > 1 else 0) for k in range(n)]
        ax.scatter(xs, r["fmax_mhz"], c=["tab:green" if m else "tab:red" for m in met],
                   s=22, zorder=3)
        for xk, seed, f in zip(xs, r["seeds"], r["fmax_mhz"]):
            ax.annotate(str(seed), (xk, f), xytext=(0, 5), textcoords="offset points",
                        fontsize=6.5, color="0.35", ha="center")
        ax.hlines(r["mean"], x - 0.4, x + 0.4, colors="0.2", linewidth=1.2, zorder=2)
        ax.annotate(f"mean {r['mean']:.1f}\n{r['meet']} of {len(r['seeds'])} meet",
                    (x, r["min"]), xytext=(-30, -30), textcoords="offset points", fontsize=7)
    for target_mhz in sorted({r["target_mhz"] for r in rows}):
        ax.axhline(target_mhz, color="tab:blue", linestyle="--", linewidth=1)
        ax.annotate(f"target {target_mhz:g} MHz", (len(rows) - 0.5, target_mhz),
                    xytext=(0, 3), textcoords="offset points", ha="right", fontsize=8,
                    color="tab:blue")
    ax.set_xticks(range(len(rows)), labels, fontsize=8)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    lo = min(r["min"] for r in rows)
    ax.set_ylim(lo - 12, max(max(r["max"] for r in rows), *[r["target_mhz"] for r in rows]) + 6)
    ax.set_ylabel(f"Fmax at speed {speed} (MHz)")
    ax.set_title(title or "Fmax per placement seed (a point per seed, numbered, in seed "
                 "order; bar: mean; green: meets the target)" +
                 "".join(f"\nnot drawn: {r['target']} ({r['flow']}), {r['min']:.1f}-"
                         f"{r['max']:.1f} MHz" for r in far), fontsize=9)
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    out = Path(out)
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, dpi=110)
    plt.close(fig)
    return out


def markdown(record) -> str:
    """The summary as a Markdown table, one row per target, netlist, flow and speed
    grade."""
    lines = ["| target | netlist | flow | speed | LUT4 | Fmax per seed (MHz) | lowest | mean | "
             "median | sd | highest | meet the target |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in summary(record):
        per_seed = ", ".join(f"{s}: {f:.2f}" for s, f in zip(r["seeds"], r["fmax_mhz"]))
        sd = f"{r['stdev']:.1f}" if r["stdev"] is not None else "-"
        lines.append(
            f"| `{r['target']}` | `{r['netlist']}` | {r['flow']} | {r['speed']} | {r['lut']} | "
            f"{per_seed} | "
            f"{r['min']:.2f} | {r['mean']:.2f} | {r['median']:.2f} | {sd} | {r['max']:.2f} | "
            f"{r['meet']} of {len(r['seeds'])} ({r['target_mhz']:g} MHz) |")
    return "\n".join(lines) + "\n"


def write_doc(record, doc) -> bool:
    """Replace the block between ``DOC_BEGIN`` and ``DOC_END`` of the page ``doc`` with
    :func:`markdown` of ``record``; return whether the page changed."""
    doc = Path(doc)
    text = doc.read_text()
    if text.count(DOC_BEGIN) != 1 or text.count(DOC_END) != 1:
        raise ValueError(f"{doc}: needs one {DOC_BEGIN!r} and one {DOC_END!r}")
    head, rest = text.split(DOC_BEGIN)
    _, tail = rest.split(DOC_END)
    new = f"{head}{DOC_BEGIN}\n{markdown(record)}{DOC_END}{tail}"
    if new != text:
        doc.write_text(new)
    return new != text


def _flow_text(flow: str) -> str:
    """A flow label for a reader: nextpnr's default placer named."""
    return "tool defaults (HeAP)" if flow == "tool defaults" else flow


def _seed_span(seeds) -> str:
    """``1-15`` for consecutive seeds, else the list."""
    seeds = sorted(seeds)
    if len(seeds) > 2 and seeds == list(range(seeds[0], seeds[-1] + 1)):
        return f"{seeds[0]}-{seeds[-1]}"
    return ", ".join(map(str, seeds))


def _print_summary(rows) -> None:
    for r in rows:
        sd = f"{r['stdev']:.1f}" if r["stdev"] is not None else "-"
        print(f"{r['target']:<18} netlist {r['netlist']} flow {r['flow']} speed {r['speed']}: "
              f"{len(r['seeds'])} seeds, {r['min']:.1f}-{r['max']:.1f} MHz, mean "
              f"{r['mean']:.1f}, median {r['median']:.1f}, sd {sd}; {r['meet']} meet "
              f"{r['target_mhz']:g} MHz ({r['lut']} LUT4)")


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fpga.placements",
                                 description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect", help="add the placements of flow reports to the record")
    c.add_argument("--record", required=True, type=Path, help="the record (created if absent)")
    c.add_argument("reports", nargs="+", type=Path, help="fpga.flow report.json files")
    c.add_argument("--drop-other-netlists", action="store_true",
                   help="drop the record's placements of the reports' targets that are of "
                        "another netlist than the reports' (a netlist the sources no longer "
                        "build)")
    s = sub.add_parser("summary", help="print the record per target, netlist, flow and speed")
    s.add_argument("--record", required=True, type=Path)
    p = sub.add_parser("plot", help="plot the record's (or the reports') placements")
    p.add_argument("--record", type=Path, help="the record to plot")
    p.add_argument("--out", required=True, type=Path, help="the PNG to write")
    p.add_argument("--speed", type=int, choices=(6, 7, 8), default=6,
                   help="the speed grade (default 6)")
    p.add_argument("reports", nargs="*", type=Path, help="or: fpga.flow report.json files")
    k = sub.add_parser("current", help="whether the record holds placements of each "
                       "target's netlist and flow as the sources build and place it now "
                       "(exit 1 if not)")
    k.add_argument("--record", required=True, type=Path)
    k.add_argument("targets", nargs="*", help="the targets to check (default: the record's)")
    d = sub.add_parser("doc", help="write the summary table into a Markdown page")
    d.add_argument("--record", required=True, type=Path)
    d.add_argument("--doc", required=True, type=Path, help="the page (its marked block)")
    args = ap.parse_args(argv)
    # Every file read is there and every file written can be, before any work; a file
    # that is not what it should be is one line, not a traceback.
    for path in [*getattr(args, "reports", []),
                 *([args.record] if args.record and args.command != "collect" else []),
                 *([args.doc] if args.command == "doc" else [])]:
        if not path.is_file():
            ap.error(f"{path}: no such file")
    if args.command == "collect":
        check_writable(args.record, "--record")
    if args.command == "plot":
        check_writable(args.out, "--out")
    try:
        return _command(ap, args)
    except ValueError as e:
        # (a report without placements, a file that is not JSON, an unknown target, no
        # placement at the speed grade plotted)
        print(f"error: {e}", file=sys.stderr)
        return 2


def _command(ap, args) -> int:
    """The sub-command of ``args``, its files checked by :func:`main`."""
    if args.command == "collect":
        record = json.loads(args.record.read_text()) if args.record.exists() else None
        record = collect(args.reports, record,
                         drop_other_netlists=args.drop_other_netlists)
        args.record.parent.mkdir(parents=True, exist_ok=True)
        args.record.write_text(json.dumps(record, indent=1) + "\n")
        print(f"{args.record}: {len(record['placements'])} placements")
        _print_summary(summary(record))
        return 0
    if args.command == "summary":
        _print_summary(summary(json.loads(args.record.read_text())))
        return 0
    if args.command == "doc":
        changed = write_doc(json.loads(args.record.read_text()), args.doc)
        print(f"{'wrote' if changed else 'unchanged'} {args.doc}")
        return 0
    if args.command == "current":
        record = json.loads(args.record.read_text())
        stale = 0
        for target in args.targets or sorted({e["target"] for e in record["placements"]}):
            now, flow = current_netlist(target), current_flow(target)
            seeds = [e["seed"] for e in record["placements"] if e["target"] == target
                     and e["netlist"] == now and e["flow"] == flow]
            stale += not seeds
            print(f"{target:<18} netlist {now}, flow {flow}: " +
                  (f"{len(seeds)} placements recorded" if seeds else
                   "STALE, no placement of it recorded (place it: python -m fpga.flow "
                   f"--target {target} ..., then collect)"), flush=True)
        return 1 if stale else 0
    if (args.record is None) == (not args.reports):
        ap.error("plot takes --record or report files, not both or neither")
    record = (json.loads(args.record.read_text()) if args.record
              else collect(args.reports))
    print(f"wrote {plot(record, args.out, speed=args.speed)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
