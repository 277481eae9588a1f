# SPDX-License-Identifier: Apache-2.0
"""Timing diagrams of the RTL as it runs: a request stream through ``KvAsu`` in
``amaranth.sim``, its ports sampled every cycle and written as WaveDrom sources.

``python -m tools.timing_diagrams [--write | --check]``

Each scenario presents a list of requests back to back (each held valid until the block
takes it, as a memory controller's tap would; an ``("idle", n)`` entry leaves ``req.valid``
low for ``n`` cycles) with ``rsp.ready`` high but in the scenario's stall, and records, per
cycle, ``req.valid``, the request presented, ``req.ready``, ``rsp.valid``, the response,
``rsp.ready``, the core's ``stat_inc``, the admission's ``dropped`` pulse and the pipeline
stage a lone request is in. A diagram draws the ports and the lanes of its scenario's
``lanes``.

Labels: a request is its op and line (``OBS3``: an OBSERVE of line 3; ``EV``: an EVICT,
whose address is not used), or its line alone in a scenario of one op (``line_labels``).
A response carries no address: the responses leave in the
order the requests were taken, so the k-th response is labelled with the k-th request the
block took and did not drop (``?`` for a response without one).
``tests/hdl/test_timing_docs.py`` checks every response against the golden model's answer
to the request it is labelled with, so a lost, repeated or reordered response fails it.

The sources are ``docs/timing/NAME.json`` (``--write``); ``tools.render_timing`` renders
each to ``docs/timing/NAME.svg``, which ``docs/rtl.md`` shows (``make docs`` runs both).
``--check`` (and ``tests/hdl/test_timing_docs.py``) simulates again and reports a source
that is not what the RTL does now. So these diagrams are measured, not drawn: a change of
the admission rule or the latency shows in them.

The block is the default build with a small table (16 entries; the ports' timing does not
depend on the table's size), so each scenario simulates in a few seconds. The cycle
numbers above a diagram are the block's cycle counter (``CYCLE``), 0 in the first cycle
after reset.
"""

import argparse
import json
import sys
from collections import namedtuple
from dataclasses import dataclass

import regmap
from regmap import Params
from tools import render_timing

__all__ = ["SCENARIOS", "Scenario", "Row", "build", "simulate", "taken", "responses",
           "wavedrom", "main"]

#: The table's size does not change when a port is ready or a response leaves.
PARAMS = Params(ENTRIES=16, PROBE=4, ADDR_WIDTH=24, LINE_SHIFT=4, TS_WIDTH=5, TICK_SHIFT=1,
                COUNT_WIDTH=3)

_OP_NAMES = {regmap.OPS[n]: n for n in ("OBSERVE", "QUERY", "EVICT", "EVICT_ANY")}
_OP_LABELS = {"OBSERVE": "OBS", "QUERY": "QRY", "EVICT": "EV", "EVICT_ANY": "EVA"}
_RSP_FIELDS = tuple(name for name, _ in regmap.response_fields(PARAMS))
#: The lanes a scenario may add to the ports.
LANES = ("dropped", "stage", "stat_inc")


@dataclass(frozen=True)
class Scenario:
    """``requests``: op names with a line number (the address is ``line << LINE_SHIFT``),
    or ``("idle", n)`` for ``n`` cycles without a request;
    ``mode_reset``: the MODE register's reset value (1: ``MODE.NONBLOCKING`` from reset);
    ``rsp_stall``: the cycles ``range(*rsp_stall)`` in which ``rsp.ready`` is low;
    ``cycles``: how many cycles the diagram shows;
    ``lanes``: the lanes of :data:`LANES` drawn beside the ports (``stage`` only means
    something while one request is in flight);
    ``line_labels``: label the transfers with the line alone (lanes ``req line``, ``rsp
    line``), for a stream of one op too long for ``OBS26`` to fit a cycle."""
    title: str
    requests: tuple
    mode_reset: int = 0
    rsp_stall: tuple = (0, 0)
    cycles: int = 40
    lanes: tuple = ()
    line_labels: bool = False


#: One cycle: ``req`` is ``(op name, line)`` while ``req_valid``, else ``None``;
#: ``dropped`` the admission's pulse (``MODE.NONBLOCKING``: the request presented is not
#: taken); ``rsp`` the response's fields (``{name: int}``) while ``rsp_valid``, else
#: ``None``; ``stat_inc`` the core's statistics strobes (bit ``i``: ``regmap.STAT_NAMES[i]``);
#: ``stage`` the pipeline stage holding a request (``None``: none).
Row = namedtuple("Row", "req_valid req req_ready dropped rsp_valid rsp rsp_ready stat_inc stage")


_STREAM = (("OBSERVE", 1), ("OBSERVE", 2), ("EVICT", 0), ("EVICT", 0), ("EVICT", 0),
           ("QUERY", 1), ("OBSERVE", 3))

SCENARIOS = {
    "latency": Scenario(
        "One OBSERVE: taken in cycle 0, its statistics counted in cycle 17 (L), its response "
        "in cycle 19, the build's latency", (("OBSERVE", 1),), cycles=22,
        lanes=("stage", "stat_inc")),
    "evict_gaps": Scenario(
        "Blocking mode: an EVICT waits 6 cycles behind an OBSERVE and 3 behind an EVICT; "
        "the request after an EVICT does not wait", _STREAM),
    "nonblocking_drops": Scenario(
        "MODE.NONBLOCKING: the same stream, ready stays high, an EVICT within 6 cycles of an "
        "OBSERVE is dropped (no response, STAT_REQ_DROPPED); 7 cycles after, one is taken",
        _STREAM + (("idle", 5), ("EVICT", 0), ("EVICT", 0)), mode_reset=1,
        lanes=("dropped",)),
    "backpressure": Scenario(
        "26 OBSERVEs of lines 1..26, rsp.ready low: requests stop when the 21 credits are "
        "used, the responses wait in the FIFO and leave in order, none lost or repeated",
        tuple(("OBSERVE", n) for n in range(1, 27)), rsp_stall=(20, 32), cycles=58,
        line_labels=True),
}


def build(scenario):
    """The ``KvAsu`` that ``scenario`` runs through (its ``latency`` and ``core.timing``
    are the build's)."""
    from hdl.core import CoreOptions
    from hdl.top import KvAsu
    return KvAsu(PARAMS, CoreOptions(mode_reset=scenario.mode_reset))


def _stages(core):
    """The default pipeline's stages after s0's hash, each with the valid bit of the
    request in its input registers (the hash's own stages are the cycles between s0 and
    R, the response FIFO's those after L)."""
    return (("s0", core.admission.s0.valid), ("R", core.window.request.valid),
            ("M", core.window.m.request.valid), ("E1a", core.window.window.request.valid),
            ("E1b", core.lanes.lanes.request.valid), ("E2", core.commit.e2.valid),
            ("L", core.commit.response.valid))


def simulate(scenario):
    """Run ``scenario`` through ``KvAsu``: one :class:`Row` per cycle."""
    from amaranth.sim import Simulator

    dut = build(scenario)
    core = dut.core
    stages = _stages(core)
    requests = []
    for op, n in scenario.requests:
        requests += [None] * n if op == "idle" else [(op, n)]
    rows = []

    def stage(ctx):
        for name, valid in stages:
            if ctx.get(valid):
                return name
        if ctx.get(core.admission.busy):
            return "hash"
        return "FIFO" if ctx.get(core.fifo.level) else None

    async def bench(ctx):
        pending = list(requests)
        for cycle in range(scenario.cycles):
            ctx.set(dut.rsp.ready, cycle not in range(*scenario.rsp_stall))
            req = pending[0] if pending else None
            ctx.set(dut.req.valid, req is not None)
            if req is not None:
                ctx.set(dut.req.payload.op, regmap.OPS[req[0]])
                ctx.set(dut.req.payload.addr, req[1] << PARAMS.LINE_SHIFT)
            await ctx.delay(1e-9)          # ready depends on the op presented
            ready, rsp_valid = ctx.get(dut.req.ready), ctx.get(dut.rsp.valid)
            rsp = ({name: int(ctx.get(getattr(dut.rsp.payload, name))) for name in _RSP_FIELDS}
                   if rsp_valid else None)
            rows.append(Row(req is not None, req, ready, ctx.get(core.admission.dropped),
                            rsp_valid, rsp, ctx.get(dut.rsp.ready), ctx.get(core.stat_inc),
                            stage(ctx)))
            await ctx.tick()
            if pending and (req is None or ready):
                pending.pop(0)

    sim = Simulator(dut)
    sim.add_clock(1e-8)
    sim.add_testbench(bench)
    sim.run()
    return rows


def taken(rows):
    """``(cycle, request)`` of every request the block took and did not drop, in order."""
    return [(c, r.req) for c, r in enumerate(rows)
            if r.req_valid and r.req_ready and not r.dropped]


def responses(rows):
    """``(cycle, fields)`` of every response taken (``rsp.valid & rsp.ready``), in order."""
    return [(c, r.rsp) for c, r in enumerate(rows) if r.rsp_valid and r.rsp_ready]


def _label(req, line_only=False):
    op, line = req
    if line_only:
        return str(line)
    return _OP_LABELS[op] + (str(line) if op in ("OBSERVE", "QUERY") else "")


def _bit_wave(values):
    values = [int(bool(v)) for v in values]
    return "".join("." if i and v == values[i - 1] else str(v) for i, v in enumerate(values))


def _new(valid, ready):
    """Per cycle: a new transfer is presented (the one before was taken, or none was)."""
    return [v and (i == 0 or not valid[i - 1] or ready[i - 1]) for i, v in enumerate(valid)]


def _data_wave(labels, new):
    """WaveDrom's data lane of the per-cycle ``labels`` (``None``: nothing): ``=`` where
    ``new[i]`` (a new request, response or stage), ``.`` while the same one is held, ``x``
    for none; and the labels of the ``=`` cells."""
    wave, data = [], []
    for i, v in enumerate(labels):
        if v is None:
            wave.append("." if i and labels[i - 1] is None else "x")
        elif new[i]:
            wave.append("=")
            data.append(v)
        else:
            wave.append(".")
    return "".join(wave), data


def wavedrom(scenario, rows):
    """The WaveDrom source (text) of ``rows`` for ``scenario``: one signal a line."""
    req_valid = [r.req_valid for r in rows]
    req_ready = [r.req_ready for r in rows]
    rsp_valid = [r.rsp_valid for r in rows]
    rsp_ready = [r.rsp_ready for r in rows]
    short = scenario.line_labels
    req_wave, req_data = _data_wave([r.req and _label(r.req, short) for r in rows],
                                    _new(req_valid, req_ready))
    # the k-th response answers the k-th request taken (and not dropped)
    answered = [_label(req, short) for _, req in taken(rows)]
    rsp_new = _new(rsp_valid, rsp_ready)
    rsp_labels, k = [], -1
    for valid, new in zip(rsp_valid, rsp_new):
        k += bool(new)
        rsp_labels.append((answered[k] if k < len(answered) else "?") if valid else None)
    rsp_wave, rsp_data = _data_wave(rsp_labels, rsp_new)
    stages = [r.stage for r in rows]
    stage_wave, stage_data = _data_wave(
        stages, [s is not None and (i == 0 or s != stages[i - 1]) for i, s in enumerate(stages)])
    lanes = {
        "dropped": {"name": "dropped", "wave": _bit_wave([r.dropped for r in rows])},
        "stage": {"name": "stage", "wave": stage_wave, "data": stage_data},
        "stat_inc": {"name": "stat_inc", "wave": _bit_wave([r.stat_inc for r in rows])},
    }
    signals = [
        {"name": "clk", "wave": "p" + "." * (len(rows) - 1)},
        {"name": "req.valid", "wave": _bit_wave(req_valid)},
        {"name": "req line" if short else "req", "wave": req_wave, "data": req_data},
        {"name": "req.ready", "wave": _bit_wave(req_ready)},
        *(lanes[name] for name in LANES if name in scenario.lanes),
        {"name": "rsp.valid", "wave": _bit_wave(rsp_valid)},
        {"name": "rsp line" if short else "rsp", "wave": rsp_wave, "data": rsp_data},
        {"name": "rsp.ready", "wave": _bit_wave(rsp_ready)},
    ]
    lines = ",\n".join("  " + json.dumps(s) for s in signals)
    return (f'{{ "signal": [\n{lines}\n],\n'
            f'  "head": {{ "text": {json.dumps(scenario.title)}, "tick": 0 }} }}')


def main(argv=None):
    ap = argparse.ArgumentParser(prog="python -m tools.timing_diagrams", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    what = ap.add_mutually_exclusive_group()
    what.add_argument("--write", action="store_true",
                      help="write the simulated sources to docs/timing/NAME.json")
    what.add_argument("--check", action="store_true",
                      help="exit 1 if a source in docs/timing/ is not the simulated one, "
                           "or is there without a scenario")
    args = ap.parse_args(argv)
    sources = {name: wavedrom(scenario, simulate(scenario))
               for name, scenario in SCENARIOS.items()}
    if not (args.write or args.check):
        for name, source in sources.items():
            print(f"{render_timing.source_path(name)}:\n{source}")
        return 0
    if args.write:
        for name, source in sources.items():
            render_timing.source_path(name).write_text(source + "\n")
        print(f"wrote the simulated diagrams {', '.join(sources)} to docs/timing/NAME.json")
        return 0
    in_docs = render_timing.diagrams()
    bad = [f"stale: docs/timing/{name}.json is not what the RTL does (run make docs)"
           for name, source in sources.items() if in_docs.get(name) != source]
    bad += [f"docs/timing/{name}.json has no scenario in tools/timing_diagrams.py"
            for name in in_docs if name not in sources]
    for line in bad:
        print(line, file=sys.stderr)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
