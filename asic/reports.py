# SPDX-License-Identifier: Apache-2.0
"""Readers of the ASIC flow's tool outputs: the memories of a Yosys JSON netlist, OpenSTA's
``report_checks`` and ``report_power``, and a Liberty file's cell areas.

Pure text and data functions, so that they are tested on small hand-written outputs.
"""

from __future__ import annotations

import re

__all__ = ["liberty_areas", "parse_checks", "parse_power", "yosys_int", "memories",
           "is_flop", "flop_registers"]


def yosys_int(value) -> int:
    """A Yosys JSON parameter (a binary string, or already an int) as an int."""
    if isinstance(value, int):
        return value
    if not value or set(value) - {"0", "1"}:
        raise ValueError(f"not a constant binary parameter: {value!r}")
    return int(value, 2)


def memories(module: dict) -> dict[str, dict]:
    """The ``$mem_v2`` cells of a Yosys JSON module: name -> depth, width, ports, whether
    every read port is synchronous (registered address), whether any is transparent, whether
    every write port is clocked, whether every port is clocked on the rising edge, whether
    any port is a wide one, and the initial contents (``"undefined"``, ``"zero"`` or
    ``"data"``)."""
    found = {}
    for name, cell in module.get("cells", {}).items():
        if cell["type"] != "$mem_v2":
            continue
        p = cell["parameters"]
        reads, writes = yosys_int(p["RD_PORTS"]), yosys_int(p["WR_PORTS"])
        init = set(str(p.get("INIT", "x")))
        found[name] = {
            "depth": yosys_int(p["SIZE"]), "width": yosys_int(p["WIDTH"]),
            "abits": yosys_int(p["ABITS"]), "offset": yosys_int(p["OFFSET"]),
            "reads": reads, "writes": writes,
            "sync_read": reads > 0 and p["RD_CLK_ENABLE"] == "1" * reads,
            "transparent": "1" in p.get("RD_TRANSPARENCY_MASK", ""),
            "write_clocked": p.get("WR_CLK_ENABLE", "1" * writes) == "1" * writes,
            "rising_edge": (p.get("RD_CLK_POLARITY", "1" * reads) == "1" * reads and
                            p.get("WR_CLK_POLARITY", "1" * writes) == "1" * writes),
            "wide": "1" in (str(p.get("RD_WIDE_CONTINUATION", "")) +
                            str(p.get("WR_WIDE_CONTINUATION", ""))),
            "init": ("undefined" if init <= {"x"} else "zero" if init <= {"0", "x"}
                     else "data"),
        }
    return found


def liberty_areas(text: str) -> dict[str, float]:
    """Cell name -> area from a Liberty file (the first ``area`` after each ``cell (``)."""
    areas = {}
    chunks = re.split(r"\bcell\s*\(\s*\"?(\w+)\"?\s*\)", text)
    for name, body in zip(chunks[1::2], chunks[2::2]):
        m = re.search(r"\barea\s*:\s*([0-9.eE+-]+)", body)
        if m:
            areas[name] = float(m.group(1))
    return areas


def is_flop(cell_type: str) -> bool:
    """NanGate45 sequential cells: flip-flops (DFF*, SDFF*) and latches (DLH/DLL)."""
    return bool(re.match(r"S?DFF|DL[HL]_", cell_type))


def flop_registers(netlist: str) -> dict[str, str]:
    """Flip-flop instance -> the register bit it holds (the net on its Q pin), from a
    Yosys ``write_verilog`` netlist: ABC and dfflibmap give flip-flops numbered names."""
    found = {}
    for m in re.finditer(r"^\s*(S?DFF\w*)\s+(\S+)\s*\((.*?)\);", netlist, re.M | re.S):
        q = re.search(r"\.Q\((.*?)\)\s*[,)]?\s*$", m.group(3), re.M)
        if q:
            found[m.group(2).lstrip("\\")] = q.group(1).strip().lstrip("\\").strip()
    return found


_POINT = re.compile(r"^(Startpoint|Endpoint): (\S+)(?: \((.*)\))?", re.M)
_STEP = re.compile(r"^\s*(-?[0-9.]+)\s+(-?[0-9.]+)\s+([\^v])\s+(\S+) \((\w+)\)", re.M)


def parse_checks(text: str) -> list[dict]:
    """Every path of an OpenSTA ``report_checks`` (format ``full``) in ``text``.

    Each: ``start``/``end`` (pin or instance), ``start_kind``/``end_kind`` (OpenSTA's
    description, e.g. "rising edge-triggered flip-flop clocked by clk"), ``arrival_ns``,
    ``required_ns``, ``slack_ns``, ``setup_ns`` (the endpoint's library setup time, 0 if
    none) and ``steps`` (pin, cell, incremental and cumulative delay).
    """
    paths = []
    for block in re.split(r"(?=^Startpoint: )", text, flags=re.M):
        points = {m.group(1): (m.group(2), m.group(3) or "") for m in _POINT.finditer(block)}
        slack = re.search(r"^\s*(-?[0-9.]+)\s+slack \((MET|VIOLATED)\)", block, re.M)
        if "Startpoint" not in points or "Endpoint" not in points or not slack:
            continue
        arrival = re.search(r"^\s*(-?[0-9.]+)\s+data arrival time", block, re.M)
        required = re.search(r"^\s*(-?[0-9.]+)\s+data required time", block, re.M)
        setup = re.search(r"^\s*(-?[0-9.]+)\s+(-?[0-9.]+)\s+library setup time", block, re.M)
        # The data path: the steps before the "data arrival time" line.
        data_part = block[:arrival.start()] if arrival else block
        steps = [{"delay_ns": float(m.group(1)), "time_ns": float(m.group(2)),
                  "edge": "rise" if m.group(3) == "^" else "fall", "pin": m.group(4),
                  "cell": m.group(5)} for m in _STEP.finditer(data_part)]
        paths.append({
            "start": points["Startpoint"][0], "start_kind": points["Startpoint"][1],
            "end": points["Endpoint"][0], "end_kind": points["Endpoint"][1],
            "arrival_ns": float(arrival.group(1)) if arrival else None,
            "required_ns": float(required.group(1)) if required else None,
            "slack_ns": float(slack.group(1)),
            "setup_ns": -float(setup.group(1)) if setup else 0.0,
            "steps": steps,
        })
    return paths


def parse_power(text: str) -> dict[str, dict[str, float]]:
    """The group table of an OpenSTA ``report_power``: group (lower case: sequential,
    combinational, macro, pad, total) -> internal, switching, leakage, total (watts)."""
    groups = {}
    number = r"(-?[0-9.]+(?:[eE][-+]?[0-9]+)?)"
    for m in re.finditer(rf"^(\w+)\s+{number}\s+{number}\s+{number}\s+{number}\s*(?:[0-9.]+%)?\s*$",
                         text, re.M):
        groups[m.group(1).lower()] = {k: float(m.group(i + 2)) for i, k in
                                      enumerate(("internal", "switching", "leakage", "total"))}
    if "total" not in groups:
        raise ValueError("no power table (no 'Total' row) in the report")
    return groups
