# SPDX-License-Identifier: Apache-2.0
"""Hostile addresses: lines aimed at one hash window, and the secret seed that spreads them.

``python -m verif.hostile [--lines 64] [--rounds 8] [--seed S] [--rtl] [--build DIR] [--json F]``

MurmurHash3 with the public default seed 0 is a fixed function: anyone who controls the
addresses a workload touches (a co-tenant, a crafted prompt driving a KV layout) can search
offline for lines whose home slot is the same and aim every one of them at one window of
``PROBE`` slots. The block then tracks at most ``PROBE`` of them; every other observe of
the attacked lines is dropped or evicts a victim, and the hot/cold signal the retrieval
runtime relies on is lost for them. A secret ``HASH_SEED`` programmed through the
registers (and committed, which also flushes) makes the same addresses land in unrelated
windows again.

This module builds such an attack set, replays it (``rounds`` passes over the lines, one
request per cycle) first under seed 0 and then under a secret seed, and reports what the
block did: tracked lines, drops, replacements, and the T-level mix. With ``--rtl`` the same
run goes through the Verilated RTL, the seed being written over AXI4-Lite, and every
response is checked against the golden model. ``--seed`` (a fresh one if not given) seeds
the search and draws the secret; both are printed and written to ``--json`` with the
figures, so ``--seed`` reproduces the run.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path

import mmh3

from golden_model import KvAsuModel
from regmap import OPS, REG, Params
from regmap.arguments import check_writable, int_range

from .seeds import cli_seed

__all__ = ["colliding_lines", "attack", "main"]

OBSERVE = OPS["OBSERVE"]


def colliding_lines(params: Params, n: int, rng: random.Random, seed: int = 0,
                    home: int | None = None) -> list[int]:
    """``n`` distinct tags whose home slot under ``seed`` is ``home`` (random if None).

    This is the attacker's offline search: about ``ENTRIES`` hash evaluations per line.
    """
    home = rng.randrange(params.ENTRIES) if home is None else home
    tags: set[int] = set()
    while len(tags) < n:
        tag = rng.getrandbits(params.TAG_WIDTH)
        if mmh3.hash(tag.to_bytes(8, "little"), seed, signed=False) % params.ENTRIES == home:
            tags.add(tag)
    return sorted(tags)


def _requests(params: Params, tags: list[int], rounds: int, start: int) -> list[tuple]:
    """``rounds`` passes over the lines, one OBSERVE per cycle from cycle ``start``."""
    return [(start + i, OBSERVE, tag << params.LINE_SHIFT, 0)
            for i, tag in enumerate(tags * rounds)]


def _summary(model: KvAsuModel, tags: list[int], params: Params) -> dict:
    stats = model.stats.as_dict()
    tracked = sum(model.find(tag << params.LINE_SHIFT) is not None for tag in tags)
    observes = stats["observes"] or 1
    return {
        "lines": len(tags),
        "tracked_at_end": tracked,
        "observes": stats["observes"],
        "observe_hits": stats["observe_hits"],
        "inserts": stats["inserts"],
        "replacements": stats["replacements"],
        "drops": stats["drops"],
        "drop_rate": round(stats["drops"] / observes, 4),
        "tlevel_before_mix": [stats[f"obs_t{k}"] for k in range(4)],
    }


def attack(params: Params, lines: int, rounds: int, secret: int, rng: random.Random) -> dict:
    """Model-only run: ``lines`` tags aimed at one window (searched with ``rng``), replayed
    ``rounds`` times under seed 0, then under the ``secret`` seed, on ``params``."""
    tags = colliding_lines(params, lines, rng)
    out = {}
    for name, seed in (("public_seed_0", 0), ("secret_seed", secret)):
        model = KvAsuModel(params)
        model.commit(0, hash_seed=seed)
        model.run(*zip(*_requests(params, tags, rounds, 0)))
        out[name] = _summary(model, tags, params)
    return {"tags": tags, **out}


def attack_rtl(params: Params, tags: list[int], rounds: int, secret: int, build: Path) -> dict:
    """The same two phases (``rounds`` passes over ``tags``) on the Verilated RTL built
    for ``params`` in ``build``, the ``secret`` seed written over AXI4-Lite between them."""
    from . import fast
    phase = _requests(params, tags, rounds, 0)
    requests = phase + phase
    ctrl = REG["CTRL"]
    axi = [fast.AxiOp("barrier", len(phase)),
           fast.AxiOp("write", REG["HASH_SEED"].offset, secret),
           fast.AxiOp("write", ctrl.offset, ctrl.mask("ENABLE") | ctrl.mask("COMMIT") |
                      ctrl.mask("CLEAR_STATS")),
           fast.AxiOp("read", REG["ACT_HASH_SEED"].offset),
           fast.AxiOp("release")]
    exe = fast.build(params, build)
    result = fast.run(exe, params, requests, axi)        # the consumer always ready
    model = KvAsuModel(params)
    fast.check(params, model, requests, axi, result,     # every response, every register,
               latency=fast.build_latency(params), always_ready=True)   # at its cycle
    return {"secret_seed_on_rtl": _summary(model, tags, params), "cycles": result.cycles}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m verif.hostile",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--lines", type=int_range(1), default=64,
                    help="lines aimed at one window")
    ap.add_argument("--rounds", type=int_range(1), default=8, help="passes over the lines")
    ap.add_argument("--seed", type=int_range(0), default=None,
                    help="random seed of the search and the secret (default: $KVASU_SEED, "
                         "else a fresh one; printed)")
    ap.add_argument("--rtl", action="store_true", help="also run it on the Verilated RTL")
    ap.add_argument("--build", type=Path, default=Path("build/hostile"),
                    help="the Verilator build folder (with --rtl)")
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = ap.parse_args(argv)
    # (before the search and the Verilator build: the JSON is written at the end)
    if args.json is not None:
        check_writable(args.json, "--json")
    if args.rtl:
        check_writable(args.build, "--build", folder=True)
    seed = cli_seed(args.seed, ap)
    rng = random.Random(seed)
    params = Params()
    secret = rng.getrandbits(32) | 1
    print(f"hostile: {args.lines} lines aimed at one window, {args.rounds} rounds, "
          f"search seed {seed}, secret HASH_SEED {secret:#010x}", flush=True)
    report = {"search_seed": seed, "secret_hash_seed": secret, "lines": args.lines,
              "rounds": args.rounds, "params": params.as_dict(),
              **attack(params, args.lines, args.rounds, secret, rng)}
    for phase in ("public_seed_0", "secret_seed"):
        s = report[phase]
        print(f"  {phase:14s} tracked {s['tracked_at_end']:3d}/{s['lines']}  drops "
              f"{s['drops']:5d} ({100 * s['drop_rate']:.1f} %)  replacements "
              f"{s['replacements']:4d}  observe hits {s['observe_hits']:5d}  "
              f"T0..T3 before {s['tlevel_before_mix']}")
    if args.rtl:
        print(f"  RTL: building the Verilated RTL in {args.build}, then both phases",
              flush=True)
        rtl = attack_rtl(params, report["tags"], args.rounds, secret, args.build)
        report.update(rtl)
        s = rtl["secret_seed_on_rtl"]
        print(f"  RTL: both phases match the golden model response for response; after the "
              f"seed commit: tracked {s['tracked_at_end']}/{s['lines']}, drops {s['drops']}")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({k: v for k, v in report.items() if k != "tags"},
                                        indent=2) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
