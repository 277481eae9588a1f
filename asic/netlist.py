# SPDX-License-Identifier: Apache-2.0
"""The ASIC flow's changes to a Yosys JSON netlist between its synthesis steps: memories
replaced by SRAM macro instances (:func:`replace_memories`), and every flip-flop or macro
input pin of a shared net given a net of its own (:func:`split_boundary_fanout`)."""

from __future__ import annotations

from . import macros, reports

__all__ = ["replace_memories", "split_boundary_fanout"]


def replace_memories(netlist: dict, top: str, min_words: int):
    """Replace, in a Yosys JSON ``netlist`` (changed in place), every ``$mem_v2`` of module
    ``top`` with at least ``min_words`` words by an instance of its macro cell.

    Returns (macro instances: list of dicts with the memory's name and its MacroSpec,
    memories kept for synthesis: name -> shape). A memory to become a macro must have
    synchronous read ports without reset or transparency, one clock on its rising edge
    (write ports clocked too), no wide ports, offset 0 and initial contents zero or
    undefined (every memory of the KV-ASU's table and LRU list has); otherwise ValueError.
    Zero initial contents are dropped (an SRAM powers up random).
    """
    module = netlist["modules"][top]
    found = reports.memories(module)
    placed, kept = [], {}
    for name, mem in sorted(found.items()):
        if mem["depth"] < min_words or mem["writes"] == 0:
            kept[name] = mem
            continue
        cell = module["cells"][name]
        conn = cell["connections"]
        clocks = set(map(str, conn["RD_CLK"] + conn["WR_CLK"]))
        for bad, why in ((not mem["sync_read"], "an asynchronous read port"),
                         (mem["transparent"], "a transparent read port"),
                         (set(conn["RD_ARST"] + conn["RD_SRST"]) - {"0"},
                          "a read port with a reset"),
                         (len(clocks) != 1, f"{len(clocks)} clocks"),
                         (not mem["write_clocked"], "an unclocked write port"),
                         (not mem["rising_edge"], "a port clocked on the falling edge"),
                         (mem["wide"], "a wide port"),
                         (mem["offset"], f"address offset {mem['offset']}"),
                         (mem["init"] == "data", "initial contents")):
            if bad:
                raise ValueError(f"memory {name} cannot be an SRAM macro: it has {why}")
        spec = macros.MacroSpec(mem["depth"], mem["width"], mem["reads"], mem["writes"])
        mem_abits, width = mem["abits"], mem["width"]

        def address(bits, port):
            """Port ``port``'s address bits, cut or padded with zeros to the macro's."""
            port_bits = bits[port * mem_abits:(port + 1) * mem_abits][:spec.abits]
            return port_bits + ["0"] * (spec.abits - len(port_bits))

        pins = {"CLK": conn["RD_CLK"][:1]}
        for i in range(spec.reads):
            pins[f"R{i}_CE"] = [conn["RD_EN"][i]]
            pins.update({f"R{i}_A_{k}": [b]
                         for k, b in enumerate(address(conn["RD_ADDR"], i))})
            pins.update({f"R{i}_Q_{k}": [b] for k, b in
                         enumerate(conn["RD_DATA"][i * width:(i + 1) * width])})
        for j in range(spec.writes):
            pins.update({f"W{j}_A_{k}": [b]
                         for k, b in enumerate(address(conn["WR_ADDR"], j))})
            for tag, key in (("D", "WR_DATA"), ("M", "WR_EN")):
                pins.update({f"W{j}_{tag}_{k}": [b] for k, b in
                             enumerate(conn[key][j * width:(j + 1) * width])})
        module["cells"][name] = {
            "hide_name": 0, "type": spec.name, "parameters": {}, "attributes": {},
            "port_directions": dict(spec.pins()), "connections": pins,
        }
        placed.append({"memory": name, "spec": spec})
    return placed, kept


def split_boundary_fanout(netlist: dict, top: str) -> int:
    """Give every input pin of a flip-flop or macro (a cell whose type is a library cell, not
    one of Yosys's ``$`` gates) a net of its own, driven through a ``$_BUF_`` from the net
    it was on, where that net is driven by a cell and feeds two or more such pins. Changes
    the Yosys JSON ``netlist`` in place, keeps only module ``top`` (the library cells'
    blackboxes come from the Liberty files again) and returns the pins given a net.

    ABC maps the logic between the flip-flops and macros and sees each net it drives out of
    that logic as one output, loaded as one pin (``abc.constr``'s ``set_load``) whatever
    the pins behind it; a pin on a net of its own is an output of its own, so ABC buffers
    a gate by the pins it really drives. ABC removes the buffers as it reads the logic.
    Nets driven from a module port (the clock, the reset) are left as they are.
    """
    module = netlist["modules"][top]
    cells = module["cells"]
    driven = set()
    sinks: dict[int, list] = {}
    used = [b for n in module["netnames"].values() for b in n["bits"] if isinstance(b, int)]
    for name, cell in cells.items():
        directions = cell.get("port_directions")
        if directions is None:
            raise ValueError(f"cell {name} ({cell['type']}) has no port directions: "
                             f"read its library with read_liberty -lib before write_json")
        boundary = not cell["type"].startswith("$")
        for port, bits in cell["connections"].items():
            for i, bit in enumerate(bits):
                if not isinstance(bit, int):        # a constant
                    continue
                used.append(bit)
                if directions[port] == "output":
                    driven.add(bit)
                elif boundary:
                    sinks.setdefault(bit, []).append((name, port, i))
    fresh = max(used, default=1) + 1
    split = 0
    for bit, pins in sinks.items():
        if len(pins) < 2 or bit not in driven:
            continue
        for name, port, i in pins:
            cells[name]["connections"][port][i] = fresh
            cells[f"$fanout$buf{split}"] = {
                "hide_name": 1, "type": "$_BUF_", "parameters": {}, "attributes": {},
                "port_directions": {"A": "input", "Y": "output"},
                "connections": {"A": [bit], "Y": [fresh]}}
            # Wires and cells share one namespace in Yosys: the net's name differs.
            module["netnames"][f"$fanout$net{split}"] = {"hide_name": 1, "bits": [fresh],
                                                         "attributes": {}}
            fresh += 1
            split += 1
    netlist["modules"] = {top: module}
    return split
