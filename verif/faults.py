# SPDX-License-Identifier: Apache-2.0
"""Fault-injection campaign: single-bit upsets in the block RAMs of the Verilated RTL.

Each run is seeded mixed traffic (the soak's: hot, colliding, random and aliasing lines;
OBSERVE / QUERY / EVICT / EVICT_ANY 11:6:2:1; idle gaps; response back-pressure) through the
fast harness (``verif.fast``, built with fault injection), with one bit of one memory word
flipped at one cycle, and a quiescent read of every statistic and OCCUPANCY at the end. The
bit is drawn uniformly over every bit of every block-RAM array (the table's ``ent``,
``meta``, ``mark`` and ``scrub`` memories, the LRU pointer banks, the statistics words), so
each memory is hit in proportion to its size, as by a particle (with ``--per-memory``, the
D11 memory is drawn first, each as often as any other, then the bit within it: a small
memory's check is then exercised as often as a large one's). The run is then classified
against the golden model (decision D11 of ``docs/spec-decisions.md``):

* ``masked``: every response and register read equals the model's, nothing flagged;
* ``detected_recovered``: the block flagged the error and every response equals the model
  told of it (``KvAsuModel.on_error``);
* ``detected_unrecovered``: flagged, but a response differs even so;
* ``silent``: a response or register read differs and nothing was flagged (silent data
  corruption);
* ``hang``: the block stopped answering (no handshake for 100 000 cycles).

A failure of the harness itself (``fast.HarnessError``: a fault it cannot inject, an output
it cannot write, a signal) is no class: it stops the campaign.

"Flagged" is what the block's own registers say, read at the end of the run (well after
any recovery has ended): ``ERR_FIRST_MEM`` names a memory, ``ERR_UNCORRECTED`` or
``ERR_CORRECTED`` is not 0. The scoreboard tells the model the reported first error
(``ERR_FIRST_MEM``, ``ERR_FIRST_ADDR``, ``ERR_FIRST_CYCLE``: ``verif.fast.SoftError``, placed
with the build's own ``decision_lag`` and ``stat_lag``) and checks every response,
statistic, ``OCCUPANCY`` and ``STATUS`` against it; each recovery's length
(``ERR_LAST_RECOVERY``) is compared with D11's bound, and a run whose report names an
uncorrectable table or LRU error must report a recovery at least as long as its sweep
(``recoveries_too_short`` counts those that do not). With ``--double`` each run flips two
bits of one word in one cycle instead; the target for those is that the block reports them
(``ERR_FIRST_MEM`` bit 8, uncorrectable). Since the model takes the report as given, the
report is checked against the upset itself (``verif.fault_checks.report_problem``): a run
counts as ``misreported`` (the summary's count, by what was wrong, and the run among the
examples) when its ``ERR_FIRST_MEM`` / ``ERR_FIRST_ADDR`` names a place no flipped bit is in,
or one whose flips no check can see, when the report's kind (``UNCORRECTABLE``) is not the
one the memory's code and port give (computed from the flipped bits, never taken from the
RTL: one bit of a SECDED memory whose reads correct is corrected; a window array's failed
check, two bits of a SECDED word and one of a parity word are uncorrectable), when the
first error's kind is not counted, or when ``ERR_FIRST_CYCLE`` is earlier than the flip.
``--unprotected`` runs the same campaign on the core built with
``CoreOptions(protection="none")`` (nothing is ever flagged: the baseline).

Speed: the runs of one group of ``--per-traffic`` (10) share a traffic stream and one
harness process (:func:`run_shared`): the harness simulates the fault-free run once, which
is checked too, and forks at each run's flip cycle, so the cycles before a flip are
simulated once for the group; each forked run is exactly the fresh run of the same traffic
and upset (:func:`run_one`), checked in full. ``--jobs N`` runs N groups at once. Run ``k``
is a function of the campaign seed, ``k`` and ``--per-traffic`` alone (its group's traffic
seed and its upset are drawn from them, not from the runs before it), so
``--replay k --seed S`` runs it again alone and prints it, and the summary does not depend
on ``--jobs``.

``python -m verif.faults [--faults N] [--seed S] [--config small] [--requests 300]
[--ready 0.8] [--double] [--unprotected] [--per-memory] [--per-traffic G] [--jobs N]
[--replay K] [--out build/faults]`` prints progress and the seed, and writes
``campaign.json`` and ``campaign.png`` (``campaign_double.*``, ``campaign_unprotected.*``;
with ``--config``, the traffic and campaign options and the seed: what ``--replay``
needs). ``--ready P``: the response consumer is ready in a share ``P`` of the cycles (a
fresh draw per cycle). Exit status 1 (``verif.fault_checks.failures``) if a fault-free run
failed or a report was not the upset's (``misreported``, a recovery over D11's bound or not
reported), and on the protected core if D11's targets were missed: a hang or a run
detected but not recovered; a silent run of a single-bit campaign; a silent run in a
SECDED memory of a double-bit one (parity misses two flips of one word). The unprotected
core's classes are its baseline, measured, never a failure.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import random
import re
import struct
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
from amaranth.hdl import UnusedElaboratable

from golden_model import KvAsuModel
from golden_model.soft_errors import MEM_IDS, recovery_bound as soft_recovery_bound
from hdl.core import CoreOptions
from hdl.top import KvAsu
from regmap import REG, Params
from regmap.arguments import check_int, check_writable, int_range

from . import fast
from .codec import Codec
from .fault_checks import (MEM_NAMES, Target, codes, expected_reports, failures,
                           first_error, location, misreported, recovery_too_short,
                           report_problem, targets)
from .soak import CONFIGS, Traffic, _stat_reads

__all__ = ["CLASSES", "PER_TRAFFIC", "READY_PERMILLE", "Target", "targets", "location",
           "codes", "expected_reports", "report_problem", "misreported", "failures",
           "classify", "judge", "run_one", "run_shared", "traffic_seed", "campaign", "replay",
           "main"]

CLASSES = ("masked", "detected_recovered", "detected_unrecovered", "silent", "hang")

#: The response consumer's ``ready``, per mille of cycles, by default (``--ready``).
READY_PERMILLE = 800

def classify(*, hang: bool, mismatch: bool, flagged: bool) -> str:
    """One run's class from what was observed."""
    if hang:
        return "hang"
    if flagged:
        return "detected_unrecovered" if mismatch else "detected_recovered"
    return "silent" if mismatch else "masked"


#: The soft-error registers read (unchecked) at the end of a run, in this order.
_ERR_READS = ("ERR_UNCORRECTED", "ERR_CORRECTED", "ERR_FIRST_MEM", "ERR_FIRST_ADDR",
              "ERR_FIRST_CYCLE", "ERR_FIRST_CYCLE_HI", "ERR_LAST_RECOVERY")


def _core_figures(params: Params, options) -> tuple[int, int, int]:
    """``(latency, decision_lag, stat_lag)`` of the build (the top level made for its
    attributes only: the core's ``latency`` and ``decision_lag``, the register block's
    ``stat_lag``), the timing :func:`fast.check` needs to place a reported error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UnusedElaboratable)
        top = KvAsu(params, options)
        figures = top.core.latency, top.core.decision_lag, top.regs.stat_lag
        # Its elaboratables are never elaborated: they warn when they are collected (in
        # reference cycles, so at a later collection), here, where the warning is ignored.
        del top
        gc.collect()
    return figures


def recovery_bound(params: Params, options=None) -> int:
    """D11's recovery bound ``R`` of the build (``golden_model.soft_errors.recovery_bound``
    at the build's latency)."""
    return soft_recovery_bound(params, _core_figures(params, options)[0])


def _axi(params: Params, requests) -> list:
    """After the traffic: wait for every response, then, well after any recovery has
    ended, read the ERR_* registers (unchecked: the scoreboard uses them) and every
    statistic, OCCUPANCY and STATUS (checked)."""
    last = _last_cycle(requests)
    later = last + 4 * (params.ENTRIES + 64) + 2000
    errs = []
    for name in _ERR_READS:
        reg = REG[name.removesuffix("_HI")]
        errs.append(fast.AxiOp("read", reg.offset + 4 * name.endswith("_HI"),
                               not_before=later, check=False))
    return [fast.AxiOp("barrier", len(requests))] + errs + _stat_reads(later) + \
        [fast.AxiOp("release")]


def _stimulus(params: Params, seed: int, n_requests: int):
    rng = random.Random(seed)
    requests = Traffic(params, rng).requests(n_requests, 0)
    return requests, _axi(params, requests), rng.getrandbits(32)


def reported(result: fast.FastResult) -> dict:
    """The ERR_* registers as the run's end read them."""
    reads = [r for r in result.axi if r[0] != 1][:len(_ERR_READS)]   # reads, in order
    values = dict(zip(_ERR_READS, (r[2] for r in reads)))
    values["ERR_FIRST_CYCLE"] |= values.pop("ERR_FIRST_CYCLE_HI") << 32
    return values


def judge(params: Params, requests, axi, outcome, *, decision_lag: int | None = None,
          stat_lag: int | None = None, latency: int | None = None) -> dict:
    """Classify one run from its ``outcome``: the harness's :class:`fast.FastResult`, or
    the :class:`fast.Hang` / :class:`fast.Mismatch` it failed with. The model is told the
    error the block reported and checks everything (see the module docstring). Returns
    ``{"class", "detail", "errors"}`` (``errors``: the ERR_* registers read at the end,
    None after a hang or a protocol failure). ``latency``: the build's, each response at
    least that many cycles after its request (``fast.check``; ``None``: one)."""
    if isinstance(outcome, fast.Hang):
        return {"class": classify(hang=True, mismatch=False, flagged=False),
                "detail": str(outcome), "errors": None}
    if isinstance(outcome, fast.Mismatch):   # the harness saw a response it did not expect
        return {"class": classify(hang=False, mismatch=True, flagged=False),
                "detail": str(outcome), "errors": None}
    result = outcome
    errs = reported(result)
    first_id, uncorrectable = first_error(errs)
    flagged = bool(first_id or errs["ERR_UNCORRECTED"] or errs["ERR_CORRECTED"])
    told = []
    if first_id:
        told.append(fast.SoftError(errs["ERR_FIRST_CYCLE"], MEM_NAMES[first_id],
                                   errs["ERR_FIRST_ADDR"], corrected=not uncorrectable))
    try:
        fast.check(params, KvAsuModel(params), requests, axi, result, max_report=1,
                   soft_errors=told, decision_lag=decision_lag, stat_lag=stat_lag,
                   latency=latency)
        mismatch, detail = False, ""
    except (fast.Mismatch, ValueError) as err:
        mismatch, detail = True, str(err)
    return {"class": classify(hang=False, mismatch=mismatch, flagged=flagged),
            "detail": detail, "errors": errs}


def run_one(exe: Path, params: Params, seed: int, faults, *, n_requests: int = 300,
            ready_permille: int = READY_PERMILLE, requests=None, decision_lag: int | None = None,
            stat_lag: int | None = None, latency: int | None = None) -> dict:
    """One run in a harness process of its own: the traffic of ``seed`` (or the given
    ``requests``), ``faults`` (a ``fast.Fault``, a list of them or None) injected,
    classified (:func:`judge`). A failure of the harness itself (``fast.HarnessError``)
    is raised, never classified."""
    gen_requests, axi, harness_seed = _stimulus(params, seed, n_requests)
    if requests is None:
        requests = gen_requests
    else:
        axi = _axi(params, requests)
    if faults is None:
        faults = []
    elif isinstance(faults, fast.Fault):
        faults = [faults]
    try:
        outcome = fast.run(exe, params, requests, axi, ready_permille=ready_permille,
                           seed=harness_seed, faults=faults)
    except fast.Mismatch as err:          # Hang included
        outcome = err
    return judge(params, requests, axi, outcome, decision_lag=decision_lag,
                 stat_lag=stat_lag, latency=latency)


def _run_record(index: int, faults) -> bytes:
    """A harness ``run`` record (kind 6, ``verif/fast/harness.cpp``)."""
    if not faults:
        raise ValueError(f"fault set {index} is empty: a run needs at least one fault")
    return struct.pack("<IQI", 6, index, len(faults)) + b"".join(
        fast.encode_fault(fault) for fault in faults)


def run_shared(exe: Path, params: Params, seed: int, fault_sets, *, n_requests: int = 300,
               ready_permille: int = READY_PERMILLE, decision_lag: int | None = None,
               stat_lag: int | None = None, latency: int | None = None,
               workdir: Path | None = None, requests=None, axi=None):
    """Several runs of one stimulus (the traffic of ``seed``, or the given ``requests``
    and AXI4-Lite operations ``axi``, by default the end-of-run reads of
    :func:`run_one`; the back-pressure draws are ``seed``'s) in one harness process: it
    simulates the fault-free run once and forks at the first fault cycle of each run
    (``fault_sets``, a list of lists of ``fast.Fault``), so the cycles before a run's flip
    are simulated once for all. Each run is exactly what :func:`run_one` with the same
    seed and faults gives (a fresh process, the same back-pressure draws), and is checked
    in full. Returns ``(fault_free, runs)``: the fault-free run's :func:`judge` and one per
    fault set, in order. ``ValueError`` (before the run) for an ``exe`` built for other
    ``params`` or a fault it could not inject (``fast.check_build``, ``fast.check_faults``);
    :class:`fast.HarnessError` if the harness itself fails, in the fault-free run or in
    any run (exit status 4 or a signal: the campaign stops, nothing is classified);
    :class:`fast.Hang` / :class:`fast.Mismatch` if the fault-free run fails."""
    fast.check_build(exe, params)
    fault_sets = [list(faults) for faults in fault_sets]
    fast.check_faults(exe, [f for faults in fault_sets for f in faults])
    gen_requests, gen_axi, harness_seed = _stimulus(params, seed, n_requests)
    if requests is None:
        requests, axi = gen_requests, gen_axi if axi is None else axi
    elif axi is None:
        axi = _axi(params, requests)
    codec = Codec(params)
    data = fast.encode(codec, requests, axi) + b"".join(
        _run_record(i, list(faults)) for i, faults in enumerate(fault_sets))
    with tempfile.TemporaryDirectory(dir=workdir) as tmp:
        tmp = Path(tmp)
        (tmp / "in.bin").write_bytes(data)
        rsp, axi_out = tmp / "rsp.bin", tmp / "axi.bin"
        start = time.monotonic()
        proc = subprocess.run([str(exe), str(tmp / "in.bin"), str(rsp), str(axi_out),
                               str(ready_permille), str(harness_seed)],
                              capture_output=True, text=True)
        seconds = time.monotonic() - start
        if proc.returncode:
            err = fast.failure(proc.returncode, proc.stderr.strip())
            raise type(err)(f"the fault-free run of traffic seed {seed}: {err}")
        table = np.frombuffer((tmp / "rsp.bin.runs").read_bytes(),
                              dtype=[("index", "<u8"), ("status", "<i4")])
        outcomes = {}
        for index, status in zip(table["index"].tolist(), table["status"].tolist()):
            tail = f".{index}"
            if status == 0:
                outcomes[index] = fast.read_result(
                    codec, rsp.with_name(rsp.name + tail).read_bytes(),
                    axi_out.with_name(axi_out.name + tail).read_bytes(), 0.0)
                continue
            err = rsp.with_name(rsp.name + tail + ".err").read_text().strip()
            outcome = (fast.HarnessError(f"killed by a signal: {err}") if status < 0
                       else fast.failure(status, err))
            if isinstance(outcome, fast.HarnessError):
                raise fast.HarnessError(f"run {index} of traffic seed {seed}: {outcome}")
            outcomes[index] = outcome
        fault_free = fast.read_result(codec, rsp.read_bytes(), axi_out.read_bytes(), seconds)
    lags = dict(decision_lag=decision_lag, stat_lag=stat_lag, latency=latency)
    return (judge(params, requests, axi, fault_free, **lags),
            [judge(params, requests, axi, outcomes[i], **lags)
             for i in range(len(fault_sets))])


def summary_order(per_memory) -> list[str]:
    return sorted(per_memory, key=MEM_IDS.get)


def _first_difference(detail: str) -> str:
    """What a silent run got wrong first: a ``response`` (with the field names that
    differed), a ``register`` read, or the ``protocol`` (the harness saw an answer it
    did not expect)."""
    if detail.startswith("harness failed"):
        return "protocol"
    first = detail.split("first:", 1)[-1].strip()
    if first.startswith("read") or first.startswith("write"):
        return "register"
    if first.startswith("response"):
        fields = sorted(set(re.findall(r"(\w+) expected", first.split("; expected")[0])))
        return "response: " + " ".join(fields)
    return "other"


def _last_cycle(requests) -> int:
    return int(requests[-1][0]) if requests else 0


#: Runs that share one traffic stream by default (``--per-traffic``).
PER_TRAFFIC = 10


def traffic_seed(seed: int, group: int) -> int:
    """The traffic seed of the ``group``-th group of runs of campaign ``seed``."""
    return random.Random(f"kvasu-faults:{seed}:traffic:{group}").getrandbits(32)


class _Plan:
    """What a campaign draws: the arrays, their weights, the bits per upset. Run ``k`` is a
    function of ``(seed, k, per_traffic)`` alone (:meth:`draw`), whatever ran before it."""

    def __init__(self, params: Params, verilog: str, seed: int, bits: int,
                 per_traffic: int, n_requests: int, per_memory: bool = False,
                 options=None):
        self.params, self.seed, self.bits = params, seed, bits
        self.per_traffic, self.n_requests = per_traffic, n_requests
        self.codes = codes(params, options)
        self.targets = targets(verilog)
        self.weights = [t.bits for t in self.targets]
        self.per_memory = per_memory
        self.memories = sorted({t.memory for t in self.targets}, key=MEM_IDS.get)

    def group(self, g: int, n_faults: int):
        """Group ``g``: its traffic seed, its requests and the indices of its runs."""
        tseed = traffic_seed(self.seed, g)
        requests, _, _ = _stimulus(self.params, tseed, self.n_requests)
        first = g * self.per_traffic
        return tseed, requests, range(first, min(n_faults, first + self.per_traffic))

    def draw(self, index: int, requests):
        """Run ``index``'s upset: ``(target, word, bits, cycle)``, the cycle uniform over
        its traffic's request cycles, the word uniform over every bit of every array (with
        ``per_memory``: over every bit of a D11 memory drawn uniformly)."""
        rng = random.Random(f"kvasu-faults:{self.seed}:fault:{index}")
        targets, weights = self.targets, self.weights
        if self.per_memory:
            memory = rng.choice(self.memories)
            targets = [t for t in self.targets if t.memory == memory]
            weights = [t.bits for t in targets]
        target = rng.choices(targets, weights)[0]
        word = rng.randrange(target.array.depth)
        flips = rng.sample(range(target.array.width), self.bits)
        cycle = rng.randrange(_last_cycle(requests) + 1)
        return target, word, flips, cycle


def _record(params: Params, index: int, tseed: int, upset, res: dict,
            memory_codes: dict) -> dict:
    """Run ``index``'s record (in the campaign's ``examples`` and from :func:`replay`): its
    upset (``(target, word, bits, cycle)``, as :meth:`_Plan.draw` gives it), the place
    that is, the checks of its report against the upset (``misreported``, and what is
    wrong, ``report_problem``, ``fault_checks.report_problem``, with the memory's code
    from ``memory_codes``; ``recovery_too_short``) and its result ``res`` (class, detail,
    errors)."""
    target, word, flips, cycle = upset
    memory, address = location(params, target, word, flips[0])
    problem = report_problem(params, target, word, flips, res["errors"],
                             memory_codes[target.memory], cycle)
    return {"index": index, "traffic_seed": tseed, "array": target.array.name, "word": word,
            "bits": flips, "cycle": cycle, "memory": memory, "address": address,
            "misreported": bool(problem), "report_problem": problem,
            "recovery_too_short": recovery_too_short(params, res["errors"]), **res}


def _run_group(job) -> list[dict]:
    """One group of runs (a worker of ``campaign``): their records, in index order."""
    g, n_faults, ctx = job
    plan, exe, lags = ctx["plan"], ctx["exe"], ctx["lags"]
    tseed, requests, indices = plan.group(g, n_faults)
    drawn = [plan.draw(k, requests) for k in indices]
    fault_sets = [[fast.Fault(cycle, "TOP." + t.array.name, word, bit) for bit in flips]
                  for t, word, flips, cycle in drawn]
    fault_free, results = run_shared(exe, plan.params, tseed, fault_sets,
                                     n_requests=plan.n_requests,
                                     ready_permille=ctx["ready_permille"], **lags)
    records = [_record(plan.params, k, tseed, upset, {**res, "detail": res["detail"][:400]},
                       plan.codes)
               for k, upset, res in zip(indices, drawn, results)]
    return [{"fault_free": fault_free["class"], "detail": fault_free["detail"][:400],
             "traffic_seed": tseed}] + records


_WORKER = {}


def _init_worker(ctx):
    _WORKER["ctx"] = ctx


def _run_group_in_worker(job):
    return _run_group((job[0], job[1], _WORKER["ctx"]))


def campaign(params: Params, n_faults: int, seed: int, build_dir: Path, *,
             n_requests: int = 300, out=sys.stdout, progress_every: int | None = None,
             protected: bool = True, double: bool = False,
             per_traffic: int = PER_TRAFFIC, jobs: int = 1, per_memory: bool = False,
             ready_permille: int = READY_PERMILLE) -> dict:
    """``n_faults`` runs, one upset each (one bit, or with ``double`` two bits of one word
    in one cycle); on the protected core (the default options) or, with ``protected``
    false, on ``CoreOptions(protection="none")``. ``per_memory``: each upset's D11 memory
    drawn uniformly first (see the module's text). ``ready_permille``: the response
    consumer's ``ready``, per mille of cycles (0 to 1000). Runs ``k`` of one group of
    ``per_traffic`` (``k // per_traffic``) share a traffic stream and one harness process
    (:func:`run_shared`); ``jobs`` worker processes run groups at once. Returns the
    summary (see main); it does not depend on ``jobs``."""
    check_int("n_faults", n_faults, 1)
    if not isinstance(per_traffic, int) or per_traffic < 1:
        raise ValueError(f"per_traffic must be a positive integer, not {per_traffic!r}")
    if not isinstance(jobs, int) or jobs < 1:
        raise ValueError(f"jobs must be a positive integer, not {jobs!r}")
    check_int("ready_permille", ready_permille, 0, 1000)
    start = time.monotonic()
    options = CoreOptions() if protected else CoreOptions(protection="none")
    bits = 2 if double else 1
    print(f"faults: {n_faults} {'double' if double else 'single'}-bit upsets, seed {seed}, "
          f"{n_requests} requests per run, {per_traffic} runs per traffic stream, "
          f"{jobs} job{'s' if jobs > 1 else ''}, response ready {ready_permille / 10:g} %, "
          f"{'protected' if protected else 'unprotected'} core, "
          f"{'memories drawn uniformly' if per_memory else 'bits drawn uniformly'}, "
          f"params {params.as_dict()}",
          file=out, flush=True)
    exe = fast.build(params, build_dir, faults=True, options=options)
    runs_start = time.monotonic()
    verilog = (Path(build_dir).resolve() / "kv_asu.v").read_text()
    plan = _Plan(params, verilog, seed, bits, per_traffic, n_requests, per_memory, options)
    tgts = plan.targets
    latency, lag, stat_lag = _core_figures(params, options)
    bound = recovery_bound(params, options)
    ctx = {"plan": plan, "exe": exe, "ready_permille": ready_permille,
           "lags": {"decision_lag": lag, "stat_lag": stat_lag, "latency": latency}}
    by_memory = collections.defaultdict(collections.Counter)
    silent_first = collections.defaultdict(collections.Counter)
    totals = collections.Counter()
    problems = collections.Counter()
    reported_uncorrectable = recoveries = over_bound = misreported_runs = too_short = 0
    longest = 0
    detection = []          # cycles from the flip to ERR_FIRST_CYCLE, per flagged run
    fault_free_failures = []
    examples = []
    step = progress_every or max(1, n_faults // 10)
    groups = [(g, n_faults) for g in range(-(-n_faults // per_traffic))]
    if jobs == 1:
        results = (_run_group((g, n, ctx)) for g, n in groups)
        pool = None
    else:
        import multiprocessing
        pool = multiprocessing.get_context("fork").Pool(jobs, _init_worker, (ctx,))
        results = pool.imap(_run_group_in_worker, groups)
    done = 0
    try:
        for records in results:
            head, records = records[0], records[1:]
            if head["fault_free"] != "masked":
                fault_free_failures.append(head)
            for rec in records:
                memory = rec["memory"]
                by_memory[memory][rec["class"]] += 1
                totals[rec["class"]] += 1
                errs = rec["errors"] or {}
                first_id, uncorrectable = first_error(errs)
                reported_uncorrectable += uncorrectable
                if first_id:
                    detection.append(errs["ERR_FIRST_CYCLE"] - rec["cycle"])
                if rec["misreported"]:
                    misreported_runs += 1
                    problems[rec["report_problem"]] += 1
                if errs.get("ERR_LAST_RECOVERY", 0):
                    recoveries += 1
                    longest = max(longest, errs["ERR_LAST_RECOVERY"])
                    over_bound += errs["ERR_LAST_RECOVERY"] > bound
                too_short += rec["recovery_too_short"]
                if rec["class"] == "silent":
                    silent_first[memory][_first_difference(rec["detail"])] += 1
                # the first 40 runs that were not masked, and every run that failed
                # (silent, hang, detected but not recovered: their records replay them)
                if rec["misreported"] or rec["recovery_too_short"] or (
                        rec["class"] != "masked" and (
                            len(examples) < 40 or rec["class"] != "detected_recovered")):
                    examples.append(rec)
                done += 1
                if done % step == 0 or done == n_faults:
                    rate = done / (time.monotonic() - runs_start)
                    print(f"faults: {done}/{n_faults}: " + ", ".join(
                        f"{c} {totals[c]}" for c in CLASSES) + f" ({rate:.1f} runs/s)",
                        file=out, flush=True)
    finally:
        if pool is not None:
            pool.terminate()
    detection.sort()
    summary = {
        "seed": seed, "faults": n_faults, "bits_per_fault": bits,
        "requests_per_run": n_requests, "runs_per_traffic": per_traffic,
        "traffic_streams": len(groups), "jobs": jobs, "ready_permille": ready_permille,
        "params": params.as_dict(),
        "protected": protected, "per_memory": per_memory, "options": options.as_dict(),
        "classes": {c: totals[c] for c in CLASSES},
        "rates": {c: round(totals[c] / n_faults, 4) for c in CLASSES},
        "reported_uncorrectable": reported_uncorrectable,
        "misreported": misreported_runs, "report_problems": dict(sorted(problems.items())),
        "recoveries": recoveries, "recovery_bound": bound,
        "longest_recovery": longest, "recoveries_over_bound": over_bound,
        "recoveries_too_short": too_short,
        "detection_latency": {
            "runs": len(detection),
            "median": detection[len(detection) // 2] if detection else None,
            "p99": detection[int(len(detection) * 0.99)] if detection else None,
            "max": detection[-1] if detection else None},
        "fault_free_runs": len(groups), "fault_free_failures": fault_free_failures[:10],
        "latency": latency, "decision_lag": lag, "stat_lag": stat_lag,
        "codes": codes(params, options),
        "by_memory": {mem: {c: by_memory[mem][c] for c in CLASSES}
                      for mem in summary_order(by_memory)},
        "silent_first_difference": {mem: dict(silent_first[mem])
                                    for mem in summary_order(silent_first)},
        "memory_bits": {mem: sum(t.bits for t in tgts if t.memory == mem)
                        for mem in sorted({t.memory for t in tgts}, key=MEM_IDS.get)},
        "examples": examples,
        "wall_seconds": round(time.monotonic() - start, 1),
        "run_seconds": round(time.monotonic() - runs_start, 1),
    }
    print(f"faults: done in {summary['wall_seconds']} s ({summary['run_seconds']} s of "
          f"runs), seed {seed}: " + ", ".join(
              f"{c} {summary['rates'][c]:.1%}" for c in CLASSES) +
          f"; {reported_uncorrectable} reported uncorrectable, {misreported_runs} misreported, "
          f"{recoveries} recoveries, "
          f"longest {longest} cycles (bound {bound}), {too_short} not reported; "
          f"{len(fault_free_failures)} of "
          f"{len(groups)} fault-free runs failed", file=out, flush=True)
    return summary


def replay(params: Params, seed: int, index: int, build_dir: Path, *, n_requests: int = 300,
           protected: bool = True, double: bool = False,
           per_traffic: int = PER_TRAFFIC, per_memory: bool = False,
           ready_permille: int = READY_PERMILLE) -> dict:
    """Run ``index`` of campaign ``seed`` again, alone, in a harness process of its own
    (:func:`run_one`); returns its record (as in the campaign's ``examples``)."""
    options = CoreOptions() if protected else CoreOptions(protection="none")
    exe = fast.build(params, build_dir, faults=True, options=options)
    verilog = (Path(build_dir).resolve() / "kv_asu.v").read_text()
    plan = _Plan(params, verilog, seed, 2 if double else 1, per_traffic, n_requests,
                 per_memory, options)
    tseed, requests, _ = plan.group(index // per_traffic, index + 1)
    target, word, flips, cycle = plan.draw(index, requests)
    latency, lag, stat_lag = _core_figures(params, options)
    faults = [fast.Fault(cycle, "TOP." + target.array.name, word, bit) for bit in flips]
    res = run_one(exe, params, tseed, faults, n_requests=n_requests, decision_lag=lag,
                  stat_lag=stat_lag, latency=latency, ready_permille=ready_permille)
    return _record(params, index, tseed, (target, word, flips, cycle), res, plan.codes)


def plot(summary: dict, path: Path) -> None:
    """Stacked bars: the share of each class per memory (and the run count on each)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    mems = list(summary["by_memory"])
    colours = {"masked": "#8fbf8f", "detected_recovered": "#5b8fd9",
               "detected_unrecovered": "#e0a040", "silent": "#d9534f", "hang": "#333333"}
    fig, ax = plt.subplots(figsize=(9.5, 4))
    bottom = [0.0] * len(mems)
    for c in CLASSES:
        share = [summary["by_memory"][m][c] / max(1, sum(summary["by_memory"][m].values()))
                 for m in mems]
        ax.bar(mems, share, bottom=bottom, label=c, color=colours[c])
        bottom = [b + s for b, s in zip(bottom, share)]
    for i, m in enumerate(mems):
        ax.text(i, 1.01, str(sum(summary["by_memory"][m].values())), ha="center",
                fontsize=8)
    ax.set_ylim(0, 1.1)
    ax.set_ylabel("share of runs")
    kind = "double" if summary.get("bits_per_fault") == 2 else "single"
    ax.set_title(f"{kind}-bit upsets, {summary['faults']} runs, seed {summary['seed']}, "
                 f"{'protected' if summary['protected'] else 'unprotected'} core")
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.0, 1.0))
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _probability(text: str) -> float:
    """An argparse ``type``: a probability, 0 to 1, in steps of 0.001 (the harness's per
    mille)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 <= value <= 1 or abs(value * 1000 - round(value * 1000)) > 1e-9:
        raise argparse.ArgumentTypeError(
            f"must be 0 to 1 in steps of 0.001, not {text}")
    return value


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--faults", type=int_range(1), default=2000, help="runs, one upset each")
    ap.add_argument("--seed", type=int, default=None,
                    help="the campaign's seed (default: a fresh one, printed)")
    ap.add_argument("--config", choices=sorted(CONFIGS), default="small")
    ap.add_argument("--requests", type=int_range(1), default=300, help="requests per run")
    ap.add_argument("--per-traffic", type=int_range(1), default=PER_TRAFFIC,
                    help="runs that share one traffic stream and harness process")
    ap.add_argument("--jobs", type=int_range(1), default=1, help="worker processes")
    ap.add_argument("--double", action="store_true", help="two bits of one word per run")
    ap.add_argument("--unprotected", action="store_true",
                    help="the core built with CoreOptions(protection='none')")
    ap.add_argument("--per-memory", action="store_true",
                    help="draw each upset's memory uniformly, then a bit of it")
    ap.add_argument("--ready", type=_probability, default=READY_PERMILLE / 1000,
                    metavar="P", help="the response consumer's ready probability per cycle "
                    f"(0 to 1, default {READY_PERMILLE / 1000:g})")
    ap.add_argument("--replay", type=int_range(0), default=None, metavar="INDEX",
                    help="run INDEX of the campaign --seed again, alone, and print it")
    ap.add_argument("--out", type=Path, default=Path("build/faults"))
    args = ap.parse_args(argv)
    if args.replay is not None and args.seed is None:
        ap.error("--replay needs the campaign's --seed")
    check_writable(args.out, "--out", folder=True)
    seed = args.seed if args.seed is not None else random.SystemRandom().getrandbits(32)
    args.out.mkdir(parents=True, exist_ok=True)
    stem = "campaign" + ("_double" if args.double else "") + \
        ("_unprotected" if args.unprotected else "")
    build = args.out / (args.config + ("_unprotected" if args.unprotected else ""))
    if args.replay is not None:
        record = replay(CONFIGS[args.config], seed, args.replay, build,
                        n_requests=args.requests, protected=not args.unprotected,
                        double=args.double, per_traffic=args.per_traffic,
                        per_memory=args.per_memory, ready_permille=round(args.ready * 1000))
        print(json.dumps(record, indent=1))
        return 0
    summary = campaign(CONFIGS[args.config], args.faults, seed, build,
                       n_requests=args.requests, protected=not args.unprotected,
                       double=args.double, per_traffic=args.per_traffic, jobs=args.jobs,
                       per_memory=args.per_memory, ready_permille=round(args.ready * 1000))
    summary = {"config": args.config, **summary}     # what --replay needs with --seed
    (args.out / f"{stem}.json").write_text(json.dumps(summary, indent=1) + "\n")
    plot(summary, args.out / f"{stem}.png")
    print(f"faults: wrote {args.out / stem}.json and .png")
    wrong = failures(summary)
    if wrong:
        print("faults: FAIL (seed {}): {}".format(
            seed, ", ".join(f"{what} {count}" for what, count in wrong.items())),
            file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
