# SPDX-License-Identifier: Apache-2.0
"""Throughput and latency of the predictor build in both policies.

``python -m tools.bench_predictor [--config medium] [--requests 2000] [--out build/bench_predictor.json]``

The build is ``CoreOptions(predictor=True, protection="none")`` with the default hash
(latency as the default build's). For every access pattern of ``tools.bench`` the Verilated
RTL (the fast C++ harness, response consumer always ready) runs the pattern twice: with
``POLICY.MODE = 0`` and with ``POLICY.MODE = 1``, each committed through the registers
before the warm-up; every response and register access is checked against the golden model
(``verif.fast.check``), and every response's cycle against the build's latency (the
consumer always ready: each response exactly when the latency and the response ahead
allow), so the latency printed is the build's. Requests per cycle is the rate between the
first and the last acceptance of the measured requests (``tools.bench.acceptance_rate``;
None for a single request), cycles per request its inverse; nothing depends on wall-clock
time. Prints a table and writes JSON.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

from golden_model import KvAsuModel
from hdl.core import CoreOptions
from regmap import REG
from regmap.arguments import check_writable, int_range
from verif import fast
from verif.predictor_soak import CONFIGS

from .bench import acceptance_rate, patterns, rounded, shown

__all__ = ["OPTIONS", "measure", "main"]

OPTIONS = CoreOptions(predictor=True, protection="none")
CTRL = REG["CTRL"]


def _commit(policy: int) -> list:
    return [fast.AxiOp("barrier", 0),
            fast.AxiOp("write", REG["POLICY"].offset, policy),
            fast.AxiOp("write", CTRL.offset, CTRL.mask("ENABLE") | CTRL.mask("COMMIT")),
            fast.AxiOp("read", REG["ACT_POLICY"].offset),
            fast.AxiOp("release")]


def measure(params, exe: Path, n: int, seed: int = 1, options=OPTIONS) -> dict:
    """``{pattern: {policy: figures}}`` of :func:`tools.bench.patterns` (``n`` requests,
    lines drawn from ``seed``) on the harness ``exe`` of the predictor build for ``params``
    and ``options`` (a ``CoreOptions`` with ``predictor=True``; the bench's own by default),
    for both policies, every response and its cycle checked."""
    results = {}
    latency = fast.build_latency(params, options)
    for name, (warm, measured) in patterns(params, n, seed).items():
        if not measured:
            continue
        results[name] = {}
        for policy in (0, 1):
            requests = warm + measured
            axi = _commit(policy)
            if warm:
                axi += [fast.AxiOp("barrier", len(warm)), fast.AxiOp("release")]
            result = fast.run(exe, params, requests, axi)
            model = KvAsuModel(params)
            fast.check(params, model, requests, axi, result, predictor=True,
                       latency=latency, always_ready=True)
            assert model.policy == ("predictor" if policy else "article")
            acc = result.accept_cycle[len(warm):].astype(np.int64)
            lat = (result.response_cycle - result.accept_cycle)[len(warm):].astype(np.int64)
            rate = acceptance_rate(acc)
            results[name][f"policy{policy}"] = {
                "requests": len(measured), "cycles": int(acc[-1] - acc[0]),
                "requests_per_cycle": rounded(rate, 4),
                "cycles_per_request": None if rate is None else round(1 / rate, 2),
                "latency_cycles_min": int(lat.min()), "latency_cycles_max": int(lat.max()),
                "evicts": int(model.stats.evicts), "inserts": int(model.stats.inserts),
            }
        a, b = results[name]["policy0"], results[name]["policy1"]
        print(f"  {name:30s} POLICY 0: {shown(a['requests_per_cycle'])} req/cycle   "
              f"POLICY 1: {shown(b['requests_per_cycle'])} req/cycle "
              f"({b['cycles_per_request']} cycles/request), latency {b['latency_cycles_min']}"
              f"..{b['latency_cycles_max']}", flush=True)
    return results


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--config", choices=sorted(CONFIGS), default="medium")
    ap.add_argument("--requests", type=int_range(1), default=2000, help="per pattern")
    ap.add_argument("--build", type=Path, default=Path("build/bench_predictor"))
    ap.add_argument("--out", type=Path, default=Path("build/bench_predictor.json"))
    args = ap.parse_args(argv)
    check_writable(args.out, "--out")         # (both before the build and the run)
    check_writable(args.build, "--build", folder=True)
    params = CONFIGS[args.config]
    print(f"bench_predictor: {args.config} {params.as_dict()}, {OPTIONS.as_dict()}", flush=True)
    exe = fast.build(params, args.build / args.config, options=OPTIONS)
    results = measure(params, exe, args.requests)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"config": args.config, "params": params.as_dict(),
                                    "options": OPTIONS.as_dict(), "patterns": results},
                                   indent=1) + "\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
