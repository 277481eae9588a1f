# SPDX-License-Identifier: Apache-2.0
"""Timing diagrams of the RTL as it runs: a request stream through ``KvAsu`` in
``amaranth.sim``, its ports sampled every cycle and written as WaveDrom sources.

``python -m tools.timing_diagrams [--write | --check]``

Each scenario presents a list of requests back to back (each held valid until the block
takes it, as a memory controller's tap would) with ``rsp.ready`` high but in the scenario's
stall, and records, per cycle, ``req.valid``, the op presented, ``req.ready``,
``rsp.valid``, the op answered and ``rsp.ready``.
The sources go into ``docs/rtl.md`` after their ``<!-- wavedrom: NAME -->`` lines
(``--write``); ``tools.render_timing`` renders them to ``docs/timing/NAME.svg`` (``make docs``
runs both). ``--check`` (and ``tests/hdl/test_timing_docs.py``) simulates again and reports
a page whose diagram is not what the RTL does now. So these diagrams are measured, not
drawn: a change of the admission rule or the latency shows in them.

The block is the default build with a small table (16 entries; the ports' timing does not
depend on the table's size), so each scenario simulates in a few seconds.
"""

import argparse
import json
import sys
from dataclasses import dataclass

import regmap
from regmap import Params
from tools import render_timing

__all__ = ["SCENARIOS", "Scenario", "simulate", "wavedrom", "write_sources", "main"]

#: The table's size does not change when a port is ready or a response leaves.
PARAMS = Params(ENTRIES=16, PROBE=4, ADDR_WIDTH=24, LINE_SHIFT=4, TS_WIDTH=5, TICK_SHIFT=1,
                COUNT_WIDTH=3)

_OP_NAMES = {regmap.OPS[n]: n for n in ("OBSERVE", "QUERY", "EVICT", "EVICT_ANY")}
_OP_LABELS = {"OBSERVE": "OBS", "QUERY": "QRY", "EVICT": "EV", "EVICT_ANY": "EVA"}


@dataclass(frozen=True)
class Scenario:
    """``requests``: op names with a line number (the address is ``line << LINE_SHIFT``);
    ``mode_reset``: the MODE register's reset value (1: ``MODE.NONBLOCKING`` from reset);
    ``rsp_stall``: the cycles ``range(*rsp_stall)`` in which ``rsp.ready`` is low;
    ``cycles``: how many cycles the diagram shows."""
    title: str
    requests: tuple
    mode_reset: int = 0
    rsp_stall: tuple = (0, 0)
    cycles: int = 40


_STREAM = (("OBSERVE", 1), ("OBSERVE", 2), ("EVICT", 0), ("EVICT", 0), ("EVICT", 0),
           ("QUERY", 1), ("OBSERVE", 3))

SCENARIOS = {
    "evict_gaps": Scenario(
        "Blocking mode: an EVICT waits 6 cycles behind an OBSERVE and 3 behind an EVICT; "
        "the request after an EVICT does not wait", _STREAM),
    "nonblocking_drops": Scenario(
        "MODE.NONBLOCKING: the same stream, ready stays high, the EVICTs it cannot take "
        "are dropped (no response, STAT_REQ_DROPPED)", _STREAM, mode_reset=1),
    "backpressure": Scenario(
        "rsp.ready low: requests stop when the 21 credits are used, the responses wait in "
        "the FIFO, none is lost or repeated", tuple(("OBSERVE", n) for n in range(1, 27)),
        rsp_stall=(20, 32), cycles=58),
}


def simulate(scenario):
    """Run ``scenario`` through ``KvAsu``; one ``(req_valid, req_op, req_ready, rsp_valid,
    rsp_op, rsp_ready)`` per cycle (the ops are names; ``None`` where the stream is not
    valid)."""
    from amaranth.sim import Simulator

    from hdl.core import CoreOptions
    from hdl.top import KvAsu

    dut = KvAsu(PARAMS, CoreOptions(mode_reset=scenario.mode_reset))
    requests = [(regmap.OPS[op], line << PARAMS.LINE_SHIFT) for op, line in scenario.requests]
    rows = []

    async def bench(ctx):
        pending = list(requests)
        for cycle in range(scenario.cycles):
            ctx.set(dut.rsp.ready, cycle not in range(*scenario.rsp_stall))
            if pending:
                op, addr = pending[0]
                ctx.set(dut.req.valid, 1)
                ctx.set(dut.req.payload.op, op)
                ctx.set(dut.req.payload.addr, addr)
            else:
                ctx.set(dut.req.valid, 0)
            await ctx.delay(1e-9)          # ready depends on the op presented
            valid, ready = ctx.get(dut.req.valid), ctx.get(dut.req.ready)
            rsp_valid, rsp_ready = ctx.get(dut.rsp.valid), ctx.get(dut.rsp.ready)
            rows.append((valid, _OP_NAMES[pending[0][0]] if valid else None, ready, rsp_valid,
                         _OP_NAMES[ctx.get(dut.rsp.payload.op)] if rsp_valid else None,
                         rsp_ready))
            await ctx.tick()
            if valid and ready:
                pending.pop(0)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return rows


def _bit_wave(values):
    return "".join("." if i and v == values[i - 1] else str(v) for i, v in enumerate(values))


def _new(valid, ready):
    """Per cycle: a new transfer is presented (the one before was taken, or none was)."""
    return [v and (i == 0 or not valid[i - 1] or ready[i - 1]) for i, v in enumerate(valid)]


def _data_wave(values, new):
    """WaveDrom's data lane: ``=`` where ``new[i]`` (a new request or response), ``.``
    while the same one is held, ``x`` for none."""
    wave, labels = [], []
    for i, v in enumerate(values):
        if v is None:
            wave.append("." if i and values[i - 1] is None else "x")
        elif new[i]:
            wave.append("=")
            labels.append(_OP_LABELS[v])
        else:
            wave.append(".")
    return "".join(wave), labels


def wavedrom(scenario, rows):
    """The WaveDrom source (text) of ``rows`` for ``scenario``: one signal a line."""
    req_valid, req_op, req_ready, rsp_valid, rsp_op, rsp_ready = (list(c) for c in zip(*rows))
    op_wave, op_labels = _data_wave(req_op, _new(req_valid, req_ready))
    rsp_wave, rsp_labels = _data_wave(rsp_op, _new(rsp_valid, rsp_ready))
    signals = [
        {"name": "clk", "wave": "p" + "." * (len(rows) - 1)},
        {"name": "req.valid", "wave": _bit_wave(req_valid)},
        {"name": "req.op", "wave": op_wave, "data": op_labels},
        {"name": "req.ready", "wave": _bit_wave(req_ready)},
        {"name": "rsp.valid", "wave": _bit_wave(rsp_valid)},
        {"name": "rsp.op", "wave": rsp_wave, "data": rsp_labels},
        {"name": "rsp.ready", "wave": _bit_wave(rsp_ready)},
    ]
    lines = ",\n".join("  " + json.dumps(s) for s in signals)
    return (f'{{ "signal": [\n{lines}\n],\n'
            f'  "head": {{ "text": {json.dumps(scenario.title)}, "tick": 0 }} }}')


def write_sources(text, sources):
    """``text`` with the source of every diagram named in ``sources`` replaced (the blocks
    ``tools.render_timing.BLOCK`` finds; a new block needs a placeholder source, ``{}``)."""
    def replace(match):
        if match.group(1) not in sources:
            return match.group(0)
        block, at = match.group(0), match.start(0)
        return block[:match.start(2) - at] + sources[match.group(1)] + block[match.end(2) - at:]
    return render_timing.BLOCK.sub(replace, text)


def main(argv=None):
    pages = ", ".join(f"docs/{page}" for page in render_timing.PAGES)
    ap = argparse.ArgumentParser(prog="python -m tools.timing_diagrams", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true",
                      help=f"put the simulated sources into {pages}")
    what.add_argument("--check", action="store_true",
                      help=f"exit 1 if a diagram of {pages} is not the simulated one")
    args = ap.parse_args(argv)
    sources = {name: wavedrom(scenario, simulate(scenario))
               for name, scenario in SCENARIOS.items()}
    if not (args.write or args.check):
        for name, source in sources.items():
            print(f"<!-- wavedrom: {name} -->\n```json\n{source}\n```")
        return 0
    in_docs = render_timing.diagrams()
    missing = [name for name in sources if name not in in_docs]
    if missing:
        print(f"{pages} has no block '<!-- wavedrom: NAME -->' for {', '.join(missing)}",
              file=sys.stderr)
        return 1
    if args.write:
        for page in render_timing.PAGES:
            path = render_timing.DOCS / page
            path.write_text(write_sources(path.read_text(), sources))
        print(f"wrote the simulated diagrams {', '.join(sources)} into {pages}")
        return 0
    stale = [name for name, source in sources.items() if in_docs[name] != source]
    for name in stale:
        print(f"stale: the diagram {name} of {pages} is not what the RTL does (run make docs)",
              file=sys.stderr)
    return 1 if stale else 0


if __name__ == "__main__":
    sys.exit(main())
