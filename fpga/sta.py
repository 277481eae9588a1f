# SPDX-License-Identifier: Apache-2.0
"""Every failing endpoint, not just the worst: a small static timing analysis of nextpnr's SDF.

``python -m fpga.sta build/fpga/ecp5/top.sdf [--period-ns 10] [--paths 3]``
``python -m fpga.sta build/fpga/ecp5/top.sdf --from reset_register`` (one register's fan-out)

nextpnr reports one critical path per clock. To see what else stands between a design and
its target, this reads the SDF that nextpnr writes after routing (``--sdf``: every cell's
delays and every routed connection's delay, the same figures its own timing analysis
uses), computes the latest arrival time at every register and block-RAM input of the
single clock domain, and groups the endpoints that miss the period by where their path
starts and ends (names with bit indices and the packer's suffixes removed), worst first.

Assumptions (true of the KV-ASU's out-of-context build): one clock, every path from a
clocked cell's clock-to-output arc to a setup check of the same clock, maximum delays
(the third value of each ``min:typ:max`` triple), no false or multicycle paths. It agrees
with nextpnr on the worst path of every build it was used on; ``tests/fpga/test_sta.py``
checks a small case worked out by hand.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
from pathlib import Path

from regmap.arguments import check_writable, int_range, positive_number

__all__ = ["TimingGraph", "parse_sdf", "failing_groups", "fan_out", "main"]

_TOKEN = re.compile(r'\(|\)|"[^"]*"|(?:\\.|[^\s()])+')


class TimingGraph:
    """Pins ``(cell, port)`` and the delays between them, from an SDF file.

    Attributes
    ----------
    arcs : dict[(cell, port), list[((cell, port), ps)]]
        Routed connections (``INTERCONNECT``) and cell arcs (``IOPATH``).
    setup : dict[(cell, port), ps]
        Setup time of every input with a setup check.
    clock_pins : set[(cell, port)]
        Pins driven by the clock: the sinks of the cell whose name contains
        ``clock_driver`` (``parse_sdf``; nextpnr's global clock buffer, ``gbuf``).
    """

    def __init__(self):
        self.arcs = collections.defaultdict(list)
        self.setup = {}
        self.clock_pins = set()


def _delay(triple: str) -> float:
    return float(triple.split(":")[-1])


def parse_sdf(text: str, clock_driver: str = "gbuf") -> TimingGraph:
    """Build the timing graph of an SDF file written by nextpnr, its clock the nets that
    cells named like ``clock_driver`` drive (``ValueError`` if there are none)."""
    g = TimingGraph()
    toks = _TOKEN.findall(text)
    cell = ""
    clock_drivers = set()
    for i, tok in enumerate(toks):
        if tok != "(" or i + 1 >= len(toks):
            continue
        kw = toks[i + 1]
        if kw == "INSTANCE":
            cell = toks[i + 2] if toks[i + 2] != ")" else ""
        elif kw == "INTERCONNECT":
            src, dst = (tuple(toks[i + k].rsplit("/", 1)) for k in (2, 3))
            g.arcs[src].append((dst, _delay(toks[i + 5])))
            if clock_driver in src[0]:
                clock_drivers.add(src)
        elif kw == "IOPATH":
            j = i + 2
            if toks[j] == "(":                      # (posedge CLK)
                inp, j = toks[j + 2], j + 4
            else:
                inp, j = toks[j], j + 1
            g.arcs[(cell, inp)].append(((cell, toks[j]), _delay(toks[j + 2])))
        elif kw in ("SETUPHOLD", "SETUP"):
            j = i + 2
            if toks[j] == "(":                      # (posedge D)
                port, j = toks[j + 2], j + 4
            else:
                port, j = toks[j], j + 1
            j += 4 if toks[j] == "(" else 1         # the clock edge
            key = (cell, port)
            g.setup[key] = max(g.setup.get(key, 0.0), _delay(toks[j + 1]))
    if not clock_drivers:
        # (without a clock nothing is launched: every design would seem to meet any period)
        raise ValueError(f"no net in the SDF is driven by a cell named like "
                         f"{clock_driver!r}: pass the clock's driver as clock_driver")
    for drv in clock_drivers:
        g.clock_pins.update(dst for dst, _ in g.arcs[drv])
    return g


def arrival_times(g: TimingGraph, launch=None):
    """Latest arrival (ps) at every pin reached from a clocked cell (``launch``: only from
    these clock pins), and its predecessor."""
    indeg = collections.Counter()
    for src, outs in g.arcs.items():
        if src in g.clock_pins:
            continue
        for dst, _ in outs:
            indeg[dst] += 1
    arrival, pred = {}, {}
    for cp in g.clock_pins if launch is None else launch:   # launch: clock-to-output arcs
        for dst, d in g.arcs.get(cp, []):
            if d > arrival.get(dst, -1.0):
                arrival[dst], pred[dst] = d, cp
    ready = collections.deque(p for p in list(g.arcs) if indeg[p] == 0 and p not in g.clock_pins)
    while ready:
        u = ready.popleft()
        for v, d in g.arcs.get(u, []):
            if u in arrival and arrival[u] + d > arrival.get(v, -1.0):
                arrival[v], pred[v] = arrival[u] + d, u
            indeg[v] -= 1
            if indeg[v] == 0:
                ready.append(v)
    return arrival, pred


def _name(cell: str) -> str:
    """A register or RAM's name without bit indices and packer suffixes."""
    s = cell.replace("\\", "")
    s = re.sub(r"_(TRELLIS_FF_Q|DO[AB]\d+|AD[AB]\d+|DI[AB]\d+).*", "", s)
    s = re.sub(r"(_LUT4|_PFUMX|_L6MUX|_CCU2C|\$CCU2).*", "", s)
    return re.sub(r"\[\d+\]|_\d+$|\.\d+\.\d+$", "", s)


def _path_to(g: TimingGraph, pred, pin) -> list:
    """The pins of the path that ends at ``pin``, from the first after its clock pin."""
    path = [pin]
    while path[-1] in pred and pred[path[-1]] not in g.clock_pins:
        path.append(pred[path[-1]])
    path.reverse()
    return path


def _path_text(path, arrival) -> list:
    """``path`` as ``[(cell/port, arrival_ps), ...]``."""
    return [(f"{c.replace(chr(92), '')}/{p}", round(arrival[(c, p)])) for c, p in path]


def failing_groups(g: TimingGraph, period_ps: float) -> list[dict]:
    """Endpoints whose arrival plus setup exceeds the period, grouped by (start, end),
    worst group first: ``{"start", "end", "endpoints", "worst_ps", "path"}`` with the
    worst path of the group as ``[(pin, arrival_ps), ...]``."""
    arrival, pred = arrival_times(g)
    groups = {}
    for pin, setup in g.setup.items():
        if pin not in arrival:
            continue
        t = arrival[pin] + setup
        if t <= period_ps:
            continue
        path = _path_to(g, pred, pin)
        key = (_name(path[0][0]), _name(pin[0]))
        grp = groups.setdefault(key, {"start": key[0], "end": key[1], "endpoints": 0,
                                      "worst_ps": 0.0, "path": []})
        grp["endpoints"] += 1
        if t > grp["worst_ps"]:
            grp["worst_ps"] = t
            grp["path"] = _path_text(path, arrival)
    return sorted(groups.values(), key=lambda x: -x["worst_ps"])


def fan_out(g: TimingGraph, cell: str) -> dict:
    """The paths that start at the clocked cell named ``cell`` (a register's name as
    :func:`failing_groups` gives it, e.g. the harness's ``reset_register``): ``{"cells":
    the clocked cells of that name, "endpoints": the setup checks they reach, "worst_ps":
    the latest arrival plus setup among them, "path": the worst path as in
    failing_groups}``. ``ValueError`` if no clocked cell has that name."""
    launch = [cp for cp in g.clock_pins if _name(cp[0]) == cell]
    if not launch:
        raise ValueError(f"no clocked cell named {cell!r} in the SDF")
    arrival, pred = arrival_times(g, launch)
    reached = [(arrival[pin] + setup, pin) for pin, setup in g.setup.items() if pin in arrival]
    worst, pin = max(reached, default=(0.0, None))
    path = [] if pin is None else _path_to(g, pred, pin)
    return {"cells": len({cp[0] for cp in launch}), "endpoints": len(reached),
            "worst_ps": worst, "path": _path_text(path, arrival)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m fpga.sta",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("sdf", type=Path)
    ap.add_argument("--period-ns", type=positive_number("ns"), default=10.0)
    ap.add_argument("--paths", type=int_range(0), default=0,
                    help="print the worst path of N groups")
    ap.add_argument("--json", type=Path, help="also write the groups to this file")
    ap.add_argument("--from", dest="start", metavar="REGISTER",
                    help="instead: every path from this register (its name as the groups "
                         "give it, e.g. reset_register), its endpoints and its worst path")
    args = ap.parse_args(argv)
    if not args.sdf.is_file():
        ap.error(f"{args.sdf}: no such file")
    if args.json:
        check_writable(args.json, "--json")
    try:
        g = parse_sdf(args.sdf.read_text(errors="replace"))
        f = fan_out(g, args.start) if args.start else None
    except ValueError as e:
        ap.error(f"{args.sdf}: {e}")
    if args.start:
        print(f"{args.start}: {f['cells']} flip-flop(s), {f['endpoints']} endpoints, the "
              f"worst {f['worst_ps'] / 1000:.2f} ns (with its setup)")
        for pin, t in f["path"]:
            print(f"  {t / 1000:6.2f} ns  {pin}")
        if args.json:
            args.json.write_text(json.dumps(f, indent=1) + "\n")
        return 0
    groups = failing_groups(g, args.period_ns * 1000)
    total = sum(x["endpoints"] for x in groups)
    print(f"{total} endpoints miss {args.period_ns} ns, in {len(groups)} groups")
    print(f"{'worst ns':>8} {'endpoints':>9}  start -> end")
    for x in groups:
        print(f"{x['worst_ps'] / 1000:8.2f} {x['endpoints']:9d}  {x['start']} -> {x['end']}")
    for x in groups[:args.paths]:
        print(f"\n{x['start']} -> {x['end']}:")
        for pin, t in x["path"]:
            print(f"  {t / 1000:6.2f} ns  {pin}")
    if args.json:
        args.json.write_text(json.dumps(groups, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
