# SPDX-License-Identifier: Apache-2.0
"""Checking a run: the recorded acceptance cycles replayed through the golden model and
the register mirror, every response and register access compared (``check``)."""

from __future__ import annotations

import collections

import numpy as np

from regmap import REG, Params

from ..codec import Codec
from ..regmirror import LIVE, RegisterMirror, Resp, TableGenerations
from .records import FastResult, Mismatch

__all__ = ["check", "build_latency"]

_CYCLE = REG["CYCLE"]


def _cycle_sample(low: int, first: int, last: int) -> int | None:
    """The cycle from ``first`` to ``last`` whose low 32 bits are ``low`` (a ``CYCLE`` LO
    read whose AR handshake was at ``first`` and R handshake at ``last``), or ``None``."""
    base = first - (first & 0xFFFF_FFFF) + low
    for value in (base, base + (1 << 32)):
        if first <= value <= last:
            return value
    return None


def build_latency(params: Params, options=None) -> int:
    """The request-to-response latency, in cycles, of the core built with ``params`` and
    ``options`` (a ``CoreOptions``; ``None``: the defaults), for ``check``'s ``latency``:
    ``verif.runner.build_timing``'s, as the cocotb testbench reads it."""
    from ..runner import build_timing
    return build_timing(params, options)["latency"]


def _timing_problems(result: FastResult, latency: int | None, always_ready: bool) -> list:
    """What the recorded cycles break of the stream rules (spec section 4, D13 rule 3): one
    request accepted per edge, one response handed over per edge, each response at least
    ``latency`` edges after its request's acceptance (at least one without ``latency``);
    with a consumer always ready and ``latency`` known, each exactly at ``max(accept +
    latency, the response before + 1)``."""
    acc = result.accept_cycle.astype(np.int64)
    rsp = result.response_cycle.astype(np.int64)
    problems = []
    for name, cycles in (("accepted", acc), ("answered", rsp)):
        same = np.nonzero(np.diff(cycles) <= 0)[0]
        if len(same):
            i = int(same[0]) + 1
            problems.append(f"requests {i - 1} and {i} {name} at cycles {int(cycles[i - 1])} "
                            f"and {int(cycles[i])}: one per edge, in order")
    low = 1 if latency is None else latency
    early = np.nonzero(rsp - acc < low)[0]
    if len(early):
        i = int(early[0])
        problems.append(f"response {i} at cycle {int(rsp[i])}, {int(rsp[i] - acc[i])} cycles "
                        f"after its request's acceptance, sooner than {low}")
    if always_ready and latency is not None and len(acc):
        index = np.arange(len(acc), dtype=np.int64)
        due = np.maximum.accumulate(acc + latency - index) + index
        late = np.nonzero(rsp != due)[0]
        if len(late):
            i = int(late[0])
            problems.append(f"response {i} at cycle {int(rsp[i])}, due at {int(due[i])} (the "
                            f"consumer always ready, latency {latency})")
    return problems


def check(params: Params, model, requests, axi_ops, result: FastResult, *,
          max_report: int = 5, soft_errors=(), decision_lag: int | None = None,
          stat_lag: int | None = None, predictor: bool = False, latency: int | None = None,
          always_ready: bool = False) -> dict:
    """Replay the recorded run through ``model`` and the register mirror; compare all.

    ``requests`` are the same (not_before, op, addr, min_tlevel) given to :func:`run`.
    Register effects apply at their write-response cycle; requests accepted at earlier
    cycles come first (D8 rules out ties). Statistics and occupancy reads are compared
    only when the caller placed them at quiescent points (the mirror predicts them from
    the model as of their cycle). ``STATUS.BUSY`` is compared outside the cycles around
    each flush the mirror applies: from two cycles before it to three after it, and, for
    a flush that runs the clear sweep (D12), to three cycles after the sweep's
    ``ENTRIES / PROBE`` (the exact cycles of BUSY are the cocotb tests' to check, against
    the acceptance of requests). A ``CYCLE`` LO read, checked or not, must be the low word
    of a cycle from its AR handshake to its R handshake (that cycle's high half is then the
    latch a HI read returns). Returns counts; raises :class:`Mismatch` listing the first
    differences.

    ``soft_errors`` (:class:`SoftError`, from the block's ``ERR_*`` registers) are told to
    the model (``KvAsuModel.on_error``) at their place in the request order: an
    uncorrectable table or LRU error found in cycle ``d`` before the requests accepted from
    ``d - decision_lag + 1`` on (``decision_lag``: the core's ``decision_lag``), and the
    recovery it starts ends (``end_recovery``) before those accepted after ``d`` (none is
    accepted until it ends); an uncorrectable statistics error before the requests
    accepted from ``d - stat_lag`` on (``stat_lag``: ``LATENCY - 2``, the cycles from a
    request's acceptance to its statistics increment: the counter restarts with the
    increments from ``d`` on); a corrected one before the requests accepted after ``d``.

    ``predictor``: the block is a build with the predictor mode (``CoreOptions.predictor``):
    the register mirror commits ``POLICY`` to the model (``RegisterMirror(predictor=...)``).

    The recorded cycles are checked too: one request accepted and one response handed over
    per edge, in order, each response at least ``latency`` cycles after its request's
    acceptance (``latency``: the build's, :func:`build_latency`; ``None``: one), and, with
    ``always_ready`` (the run's consumer always ready, ``run(ready_permille=1000)``) and
    ``latency`` given, exactly when the rule of D13 rule 3 offers it.

    The counts returned include ``sweeps``, the clear sweeps (D12) the mirror applied (the
    harness's reset at power-up is the first of D12's flushes and resets, so the 15th flush
    of a run sweeps).
    """
    codec = Codec(params)
    events = []          # (before requests accepted at this cycle, order, action)
    for k, err in enumerate(sorted(soft_errors, key=lambda e: e.cycle)):
        tell = (lambda e: lambda: model.on_error(e.memory, e.address, corrected=e.corrected,
                                                 cycle=e.cycle))(err)
        if not err.corrected and err.memory != "stats":
            if decision_lag is None:
                raise ValueError("an uncorrectable table or LRU error needs decision_lag")
            events.append((err.cycle - decision_lag + 1, 2 * k, tell))
            events.append((err.cycle + 1, 2 * k + 1, model.end_recovery))
        elif not err.corrected:
            if stat_lag is None:
                raise ValueError("an uncorrectable statistics error needs stat_lag")
            events.append((err.cycle - stat_lag, 2 * k, tell))
        else:
            events.append((err.cycle + 1, 2 * k, tell))
    events.sort(key=lambda e: (e[0], e[1]))
    requests = list(requests)
    n = len(requests)
    if len(result.accept_cycle) != n:
        raise Mismatch(f"{n} requests sent, {len(result.accept_cycle)} responses received")
    timing = _timing_problems(result, latency, always_ready)
    if timing:
        raise Mismatch("the stream's timing: " + "; ".join(timing[:max_report]))
    # D12 counts the flushes and resets since power-up from 1: the harness's one reset, of
    # a block fresh from power-up, is the first (the cocotb driver counts it too)
    block_generations = TableGenerations()
    block_generations.untrack()
    mirror = RegisterMirror(params, model, block_generations, predictor=predictor)
    ops = np.array([r[1] for r in requests], dtype=np.uint64)
    # (wider than 64 bits: Python ints, as KvAsuModel.run takes them then)
    addrs = (np.array([r[2] for r in requests], dtype=np.uint64) if params.ADDR_WIDTH <= 64
             else [int(r[2]) for r in requests])
    mins = np.array([r[3] for r in requests], dtype=np.uint64)
    acc = result.accept_cycle
    bus_ops = [op for op in axi_ops if op.kind in ("write", "read")]
    if len(bus_ops) != len(result.axi):
        raise Mismatch(f"{len(bus_ops)} AXI operations sent, {len(result.axi)} answered")
    axi_by_done = sorted(zip(bus_ops, result.axi), key=lambda pair: pair[1][5])
    words = result.responses.astype(np.uint64)
    got_ints = [sum(int(w) << (32 * i) for i, w in enumerate(row)) for row in words]

    problems, done, mismatches = [], 0, 0

    def report(message):
        nonlocal mismatches
        mismatches += 1
        if len(problems) < max_report:
            problems.append(message)
    busy_bit = 1 << REG["STATUS"].field("BUSY").bit
    busy_unsure = []      # (first, last) cycles around each applied flush

    def busy_is_unsure(cycle):
        return any(first <= cycle <= last for first, last in busy_unsure)

    def run_requests(upto):   # requests accepted strictly before cycle `upto`
        while events and (upto is None or events[0][0] <= upto):
            key, _, action = events.pop(0)
            run_plain(key)
            action()
        run_plain(upto)

    def run_plain(upto):
        nonlocal done
        end = int(np.searchsorted(acc, upto, side="left")) if upto is not None else n
        if end <= done:
            return
        expected = model.run(acc[done:end], ops[done:end], addrs[done:end], mins[done:end],
                             responses=True)
        for i, exp in enumerate(expected, start=done):
            got = codec.unpack_rsp(got_ints[i])
            diff = {k: (v, got[k]) for k, v in exp.as_dict().items() if got[k] != v}
            if diff:
                op, addr, mt = requests[i][1:]
                report(f"response {i} (op {op}, addr {addr:#x}, min_tlevel {mt}, accepted at "
                       f"cycle {int(acc[i])}): " + ", ".join(
                           f"{k} expected {e} got {g}" for k, (e, g) in diff.items())
                       + f"; expected {exp.as_dict()}")
        done = end

    for op, (kind, addr, rdata, resp, start, done_cycle) in axi_by_done:
        if mirror.is_action(op.kind, op.addr, op.data, op.strb) and \
                int(np.searchsorted(acc, done_cycle, side="right")) != \
                int(np.searchsorted(acc, done_cycle, side="left")):
            report(f"a request was accepted at cycle {done_cycle}, the edge of a CTRL action "
                   f"write's response (D8 forbids it)")
        run_requests(done_cycle)
        if op.kind == "write":
            generations = (mirror.generations.used, mirror.sweeps)
            exp = mirror.write(done_cycle, op.addr, op.data, op.strb)
            if (mirror.generations.used, mirror.sweeps) != generations:    # a flush
                swept = mirror.sweeps != generations[1]
                busy_unsure.append((done_cycle - 2, done_cycle + 3 +
                                    (params.ENTRIES // params.PROBE if swept else 0)))
            if resp != exp:
                report(f"write {op.addr:#05x}={op.data:#x} strb {op.strb:#x} at cycle "
                       f"{done_cycle}: resp {Resp(resp).name}, expected {exp.name}")
        else:
            exp_resp, exp_data = mirror.read(op.addr)
            if (op.addr & ~3) == REG["STATUS"].offset and exp_data is not LIVE and \
                    busy_is_unsure(done_cycle):
                rdata, exp_data = rdata & ~busy_bit, exp_data & ~busy_bit
            reg, hi = mirror.decode(op.addr)
            if not op.check:
                exp_data = LIVE
                if reg is not None and reg.wide and not hi:
                    # an unchecked LO read leaves the latch unknown (a HI read or a read
                    # of any other word leaves it as it was)
                    mirror.hi_latch_live = True
            if reg is _CYCLE and not hi and resp == Resp.OKAY:
                # CYCLE (spec section 4): the count sampled between the AR handshake and
                # the R handshake, whatever ``check`` says; its high half is then the latch
                sampled = _cycle_sample(rdata, start, done_cycle)
                if sampled is None:
                    report(f"read CYCLE at cycle {done_cycle}: got {rdata:#x}, expected the "
                           f"low word of a cycle from {start} (its AR) to {done_cycle}")
                else:
                    mirror.hi_latch, mirror.hi_latch_live = sampled >> 32, False
            if resp != exp_resp or (exp_data is not LIVE and rdata != exp_data):
                report(f"read {op.addr:#05x} at cycle {done_cycle}: got {Resp(resp).name} "
                       f"{rdata:#x}, expected {exp_resp.name} "
                       f"{'live' if exp_data is LIVE else hex(exp_data)}")
    run_requests(None)
    if problems:
        raise Mismatch(f"{mismatches} mismatches; first:\n  " + "\n  ".join(problems))
    codes = collections.Counter(f"{op.kind}_{Resp(rec[3]).name}"
                                for op, rec in zip(bus_ops, result.axi))
    return {"requests": n, "axi_ops": len(bus_ops), "mismatches": 0, "cycles": result.cycles,
            "axi_responses": dict(sorted(codes.items())), "sweeps": mirror.sweeps}
