# SPDX-License-Identifier: Apache-2.0
"""What an EVICT without the OBSERVE gap would give: a measured design study (not built).

``python -m tools.evict_speculation [--requests N] [--random-configs K] [--seed S] [--out F]``

Today an EVICT / EVICT_ANY waits until no OBSERVE was accepted in the ``evict_gap`` edges
before it (6 in the default build, docs/rtl.md "Hazards and forwarding"): the LRU list
applies an OBSERVE's move in C3, and the EVICT reads its tail's window in R. The design
studied here takes the EVICT at once and reads the window at a *guess*: the tail of the
list as R sees it, i.e. with every POP applied but without the moves of the OBSERVEs taken
in the ``evict_gap`` edges before it (those still in flight). The EVICT is *refused* (it
pops nothing, and its response would say so) when the guess is a slot that one of those
OBSERVEs moved, or when the guessed list is empty and the real one is not.

Why the guess is otherwise the real tail: the OBSERVEs in flight only move slots to the
head, so every slot they did not move keeps its order and stays behind every slot they
did; a guess that none of them moved is therefore still the last slot of the list. The
script checks this argument on every stream it runs: each EVICT it does not refuse is
given to the golden model, which pops the list's tail in request order, and the guess must
be that tail (an ``AssertionError`` otherwise); ``--random-configs`` adds random streams.

For each access pattern of ``tools.bench`` (the same streams, back to back, the response
consumer always ready) it counts the edges both rules take: the built one (which reproduces
``make bench``'s request rates, from the build's own ``evict_gap`` and
``evict_evict_gap``) and the speculative one, which keeps ``evict_evict_gap`` (the LRU
list's tail chain, docs/rtl.md) and drops the OBSERVE gap; and how many EVICTs it refuses.
Prints a table and writes JSON (``params``, ``timing``, ``patterns``: per pattern the
:func:`count_edges` figures of both rules and their rates, ``random_streams``: the seed and
the totals of :func:`random_streams`). The RTL does not have this rule (docs/rtl.md, "A
speculative EVICT").

The run docs/rtl.md's table quotes is kept in ``docs/bench/evict_speculation.json``
(``python -m tools.evict_speculation --seed 1 --out docs/bench/evict_speculation.json``;
``tests/verif/test_bench_studies.py`` holds the page to it); ``make bench`` writes
``build/evict_speculation.json`` (random streams of a random seed).
"""

from __future__ import annotations

import argparse
import collections
import json
import random
from pathlib import Path

from golden_model import KvAsuModel
from regmap import OPS, Params
from regmap.arguments import check_writable, int_range

__all__ = ["count_edges", "main"]

_OBSERVE, _EVICTS = OPS["OBSERVE"], (OPS["EVICT"], OPS["EVICT_ANY"])


def count_edges(params: Params, requests, *, evict_gap: int, evict_evict_gap: int,
                speculative: bool, start: int = 0, model: KvAsuModel | None = None) -> dict:
    """Accept ``requests`` ((cycle, op, addr, min_tlevel); the cycle is ignored: each is
    presented at once) under the built rule or the speculative one, from edge ``start``.

    Returns the edges used, the EVICTs, the pops and the refused EVICTs. ``model`` (new if
    None) answers every request the rule does not refuse; its state carries over.
    """
    model = model or KvAsuModel(params)
    delayed: collections.OrderedDict = collections.OrderedDict()  # slots, LRU end first
    _sync(delayed, model)
    pending = collections.deque()      # (edge, slot): OBSERVE moves not yet in `delayed`
    last_observe = last_evict = start - max(evict_gap, evict_evict_gap) - 1
    edge = start - 1
    evicts = pops = refused = 0
    for _cycle, op, addr, min_tlevel in requests:
        edge += 1
        if op in _EVICTS:
            edge = max(edge, last_evict + evict_evict_gap + 1)
            if not speculative:
                edge = max(edge, last_observe + evict_gap + 1)
        while pending and pending[0][0] < edge - evict_gap:
            _, slot = pending.popleft()
            delayed.pop(slot, None)
            delayed[slot] = None
        if op in _EVICTS:
            evicts += 1
            last_evict = edge
            guess = next(iter(delayed), None)
            in_flight = {slot for _, slot in pending}
            if speculative and (guess in in_flight or (guess is None and model.tail is not None)):
                refused += 1
                continue
            assert guess == model.tail, (f"edge {edge}: the guess {guess} is not the "
                                         f"list's tail {model.tail}")
            r = model.request(edge, op, addr, min_tlevel)
            if r.victim_valid:
                pops += 1
                delayed.pop(r.slot, None)
            continue
        r = model.request(edge, op, addr, min_tlevel)
        if op == _OBSERVE:
            last_observe = edge
            if r.tracked:
                pending.append((edge, r.slot))
    return {"requests": len(requests), "edges": edge + 1 - start, "evicts": evicts,
            "pops": pops, "refused": refused}


def _sync(delayed: collections.OrderedDict, model: KvAsuModel) -> None:
    """``delayed`` := the model's LRU list (nothing in flight)."""
    delayed.clear()
    for slot in model.lru_order():
        delayed[slot] = None


def _run_pattern(params, timing, warm, measured, speculative):
    model = KvAsuModel(params)
    gaps = dict(evict_gap=timing["evict_gap"], evict_evict_gap=timing["evict_evict_gap"])
    count_edges(params, warm, speculative=speculative, model=model, **gaps)
    # (an idle stretch between warm-up and measurement, as tools.bench has: nothing in flight)
    return count_edges(params, measured, speculative=speculative, model=model,
                       start=model.cycle + 100, **gaps)


def random_streams(configs: int, seed: int, requests: int = 5000) -> dict:
    """The guess checked on ``configs`` random streams (table sizes, line sets, op mixes,
    the gaps of the default and the compact pipeline, and an EVICT-EVICT gap as long as the
    OBSERVE gap), as :func:`count_edges` asserts it. Returns the EVICTs, refusals and pops."""
    rng = random.Random(seed)
    totals = {"streams": 0, "evicts": 0, "refused": 0, "pops": 0}
    for _ in range(configs):
        params = Params(ENTRIES=rng.choice([8, 16, 32]), PROBE=rng.choice([2, 4]))
        lines = [rng.randrange(1 << 10) for _ in range(rng.choice([6, 20, 60]))]
        ops = ([OPS["OBSERVE"]] * rng.randint(1, 8) + [OPS["QUERY"]] * rng.randint(0, 3)
               + list(_EVICTS) * rng.randint(1, 3))
        stream = [(0, rng.choice(ops), rng.choice(lines) << params.LINE_SHIFT, rng.randrange(4))
                  for _ in range(requests)]
        for evict_gap, evict_evict_gap in ((6, 3), (2, 2), (6, 6)):
            got = count_edges(params, stream, speculative=True, evict_gap=evict_gap,
                              evict_evict_gap=evict_evict_gap)
            totals["streams"] += 1
            for key in ("evicts", "refused", "pops"):
                totals[key] += got[key]
    return totals


def _rate(run: dict) -> float | None:
    """Requests per cycle of a :func:`count_edges` run, as ``make bench`` measures it:
    between its first and its last acceptance edge; None for a single request."""
    from .bench import rate_between, rounded
    return rounded(rate_between(run["requests"], run["edges"] - 1), 4)


def _shown(rate: float | None) -> str:
    return "n/a" if rate is None else f"{rate:.4f}"


def main(argv=None) -> int:
    from verif.runner import build_timing
    from .bench import patterns

    ap = argparse.ArgumentParser(prog="python -m tools.evict_speculation", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int_range(1), default=20000, metavar="N",
                    help="measured requests per pattern (tools.bench's default: 20000)")
    ap.add_argument("--out", type=Path, help="write the figures as JSON here")
    ap.add_argument("--random-configs", type=int_range(0), default=60, metavar="K",
                    help="also check the guess on K random configurations (default 60; 0: none)")
    ap.add_argument("--seed", type=int, default=None, help="their seed (default: random, printed)")
    args = ap.parse_args(argv)
    if args.out is not None:
        check_writable(args.out, "--out")
    params = Params()
    timing = build_timing(params)
    rows = {}
    print(f"default build: evict_gap {timing['evict_gap']}, "
          f"evict_evict_gap {timing['evict_evict_gap']}")
    print(f"{'pattern':32} {'built req/cycle':>16} {'speculative':>12} {'EVICTs':>7} "
          f"{'refused':>8} {'pops built':>11} {'pops spec.':>11}")
    for name, (warm, measured) in patterns(params, args.requests).items():
        if not measured:
            continue
        built = _run_pattern(params, timing, warm, measured, False)
        spec = _run_pattern(params, timing, warm, measured, True)
        rows[name] = {"built": built, "speculative": spec,
                      "built_requests_per_cycle": _rate(built),
                      "speculative_requests_per_cycle": _rate(spec)}
        print(f"{name:32} {_shown(rows[name]['built_requests_per_cycle']):>16} "
              f"{_shown(rows[name]['speculative_requests_per_cycle']):>12} {spec['evicts']:>7} "
              f"{spec['refused']:>8} {built['pops']:>11} {spec['pops']:>11}", flush=True)
    random_check = None
    if args.random_configs:
        seed = random.randrange(1 << 30) if args.seed is None else args.seed
        random_check = {"seed": seed, **random_streams(args.random_configs, seed)}
        print(f"random streams (seed {seed}; --seed {seed} repeats them): "
              f"{random_check['streams']} streams, {random_check['evicts']} EVICTs, "
              f"{random_check['evicts'] - random_check['refused']} taken, each at the "
              f"guessed tail")
    if args.out:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps({"params": params.as_dict(), "timing": timing,
                                        "patterns": rows, "random_streams": random_check},
                                       indent=1) + "\n")
        print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
