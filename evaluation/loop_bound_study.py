# SPDX-License-Identifier: Apache-2.0
"""The loop detector's shadow bound: two alternatives to P11's, a measured design study (not
specified, not built).

    python -m evaluation.loop_bound_study [--sets N] [--passes P [P ...]] [--seed S]
        [--scales K [K ...]] [--no-splits] [--out F]

spec-predictor.md P11 bounds each shadow directory by ``max(1, occupancy >> 4)``, the number
of sampled lines the bank holds *on average*. The number a given loop holds is a draw: each
line is sampled when its window start is a multiple of 16, so a loop of ``L`` lines has
about ``L / 16`` sampled lines, give or take ``sqrt(L) / 4``. When a loop a little longer
than the bank has no more sampled lines than the bound, the LRU shadow holds the whole
sampled loop and hits on every sample, while the bank under LRU misses every access: the
duels are all ties, ``PSEL`` never moves, loop mode never comes, and the bank keeps what the
ghost rule gives (about 45 %, where Belady hits about ``(B - 1) / L`` of a pass over a loop of
``L`` lines through a bank of ``B``). Whether a loop gets loop mode is then a matter of its
addresses.

The alternative studied here bounds the shadows by what the bank holds of the sample: the
number of live lines whose window is sampled, ``max(1, min(that, ENTRIES >> 4))``. The
sampled LRU shadow then misses as the bank's LRU does whenever the loop has a sampled line
the bank does not hold, which leaves a loop ``d`` lines longer than the bank undetected
with probability about ``(15/16)^d`` instead of about a half. What it would cost in the
block: one bit per table entry (whether the line's window is sampled; an EVICT pops a slot,
whose line's window the slot alone does not give) and a counter of ``log2(ENTRIES) + 1``
bits beside the occupancy.

The alternative is not better on every loop. It loses much of the loops far longer than a
small bank that P11's step was chosen for (:data:`SPEC_LOOPS`, also run here): its bound
moves as sampled lines come and go, where P11's is constant once the bank is full, and a
smaller bound drops entries from the BIP shadow's LRU end. Nor on every line set: the bank's sampled lines are the loop's
when none of the lines it lacks is sampled (about ``(15/16)^d``), and then the duels tie as
before; it escapes later, as the lines the bank lacks change from pass to pass, so how many
passes a loop runs matters too.

The second alternative keeps P11's bound from the occupancy, scaled below the mean:
``max(1, (occupancy * k) >> 12)`` for each ``k`` of ``--scales`` (P11's is ``k = 256``), so
that a loop a little longer than the bank has more sampled lines than the LRU shadow holds
more often. A smaller shadow also keeps fewer of a long loop's sampled lines, and it stands
for a smaller LRU bank than the real one; the study runs the training and validation
splits of docs/evaluation.md section 8 under it too (:func:`run_splits`), with the banks
and tables of that section, to show where that moves the block's hit rate.

For each case (a loop's length and a bank) and each number of passes, it draws ``--sets``
line sets (seeded; the same sets for every number of passes), runs each loop through the
bank of :func:`evaluation.compare.run_predictor_bank` under every bound, and prints, per
case and bound, the hit rates' range and how many sets fall below 60 % (the loops' Belady
rate is about ``(B - 1) / L`` after the first pass), and how many sets each alternative
leaves below 60 % where P11's bound does not (P11's: where the sampled one does not).
Writes JSON (``--out``, default ``build/loop_bound_study.json``); spec-predictor.md P11
quotes ``docs/eval/loop_bound_study.json``. Nothing here changes the golden model: the
alternative replaces the duel of each predictor-mode model that ``evaluation.compare``
builds while :func:`sampled_bound` is active.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

from golden_model import predictor
from regmap.arguments import check_writable, int_range

from . import compare

#: (loop lines, bank lines): loops 2 % to 12 % longer than the bank, and two other scales.
CASES = ((1045, 1024), (1075, 1024), (1100, 1024), (1150, 1024), (550, 512), (2200, 2048))
#: spec-predictor.md P11's loops far longer than a small bank ("The step `s`"): (loop lines,
#: bank lines), lines 0 .. L - 1, 30 passes; where P11's bound does reach loop mode.
SPEC_LOOPS = ((1500, 187), (3000, 375), (600, 150))
SPEC_PASSES = 30
#: The scaled bounds' ``K`` (P11's bound times ``K / 256``): 7/8 and 3/4.
SCALES = (224, 192)
#: A set's hit rate below this counts as "loop mode missed" (the ghost rule alone gives about
#: 45 % on these loops, and loop mode far more).
LOW = 0.6


def sampled_live_lines(model, homes: dict) -> int:
    """The number of live lines of a predictor-mode ``model`` (neither free nor ghost) whose
    window is sampled (P11); ``homes`` caches each tag's window start."""
    ghost = model._predictor.ghost
    count = 0
    for slot, tag in enumerate(model._tag):
        if tag < 0 or ghost[slot]:
            continue
        home = homes.get(tag)
        if home is None:
            home = homes[tag] = model.home_of_tag(tag)
        count += predictor.is_sampled(home)
    return count


@contextmanager
def shadow_bound(capacity_of):
    """While active, each predictor-mode model that ``evaluation.compare`` builds bounds its
    shadows by ``capacity_of(model, entries, occupancy)`` instead of P11's ``max(1,
    occupancy >> 4)``; the rest of the duel is P11's."""
    built = compare._model

    def model_with_bound(entries: int, policy: str):
        model = built(entries, policy)
        if policy != "predictor":
            return model
        state = model._predictor

        def duel(signature: int, occupancy: int) -> None:
            capacity = capacity_of(model, entries, occupancy)
            lru_hit = state.shadow_lru.access(signature, capacity)
            bip_hit = state.shadow_bip.access(signature, capacity)
            state.psel = predictor.psel_update(state.psel, lru_hit, bip_hit, occupancy)

        state._duel = duel
        return model

    compare._model = model_with_bound
    try:
        yield
    finally:
        compare._model = built


def sampled_bound():
    """:func:`shadow_bound` by ``max(1, min(sampled live lines, ENTRIES >> 4))``."""
    homes: dict = {}        # model -> its tags' window starts (a tag's depends on the table)

    def capacity(model, entries: int, occupancy: int) -> int:
        live = sampled_live_lines(model, homes.setdefault(id(model), {}))
        return max(1, min(live, entries >> predictor.SAMPLE_SHIFT))

    return shadow_bound(capacity)


def scaled_bound(k: int):
    """:func:`shadow_bound` by ``max(1, (occupancy * k) >> 12)``: P11's bound times
    ``k / 256`` (``k = 256`` is P11's)."""
    return shadow_bound(lambda model, entries, occupancy:
                        max(1, (occupancy * k) >> (8 + predictor.SAMPLE_SHIFT)))


def loop_stream(lines: np.ndarray, passes: int) -> tuple[np.ndarray, np.ndarray]:
    """``(lines, cycles)``: ``lines`` in order, ``passes`` times, one access per cycle."""
    stream = np.tile(lines.astype(np.int64), passes)
    return stream, np.arange(len(stream), dtype=np.int64)


def bound_names(scales) -> tuple[str, ...]:
    """The bounds a run compares: P11's ("occupancy"), the sampled one ("sampled") and one
    ``scaled_K`` per scale ``K``."""
    return ("occupancy", "sampled", *(f"scaled_{k}" for k in scales))


def run_bank(stream: np.ndarray, cycles: np.ndarray, bank: int, bound: str,
             entries: int | None = None) -> dict:
    """:func:`evaluation.compare.run_predictor_bank` with the shadows bounded by P11's
    ``occupancy >> 4`` (``bound`` "occupancy"), by the sampled live lines ("sampled") or by
    P11's scaled by ``K / 256`` ("scaled_K")."""
    if bound == "occupancy":
        return compare.run_predictor_bank(stream, cycles, bank, entries)
    if bound == "sampled":
        context = sampled_bound()
    elif bound.startswith("scaled_"):
        context = scaled_bound(int(bound.removeprefix("scaled_")))
    else:
        raise ValueError(f"unknown bound {bound!r}")
    with context:
        return compare.run_predictor_bank(stream, cycles, bank, entries)


def run_case(loop_lines: int, bank: int, passes: int, draws: list, scales=()) -> dict:
    """Every bound on the line sets ``draws`` of one case: per bound the hit rates, the share
    of OBSERVEs in loop mode, and the sets below :data:`LOW`; and per bound the sets below
    :data:`LOW` under it but not under P11's (``only_below``; for P11's, not under the
    sampled one)."""
    out = {"loop_lines": loop_lines, "bank_lines": bank, "passes": passes}
    names = bound_names(scales)
    for name in names:
        hits, loop_mode = [], []
        for lines in draws:
            result = run_bank(*loop_stream(lines, passes), bank, name)
            hits.append(float(result["hits"].mean()))
            loop_mode.append(float(result["loop_mode_share"]))
        out[name] = {"hit_rates": hits, "loop_mode_shares": loop_mode,
                     "below_low": sum(h < LOW for h in hits), "min": min(hits),
                     "median": float(np.median(hits)), "max": max(hits)}
    for name in names:
        other = "sampled" if name == "occupancy" else "occupancy"
        out[name]["only_below"] = sum(a < LOW <= b for a, b in zip(out[name]["hit_rates"],
                                                                  out[other]["hit_rates"]))
    return out


def run_spec_loop(loop_lines: int, bank: int, scales=()) -> dict:
    """Every bound on one of :data:`SPEC_LOOPS`: per bound the share of OBSERVEs in loop
    mode and the hit rate."""
    stream, cycles = loop_stream(np.arange(loop_lines, dtype=np.int64), SPEC_PASSES)
    out = {"loop_lines": loop_lines, "bank_lines": bank, "passes": SPEC_PASSES}
    for name in bound_names(scales):
        result = run_bank(stream, cycles, bank, name)
        out[name] = {"loop_mode_share": float(result["loop_mode_share"]),
                     "hit_rate": float(result["hits"].mean())}
    return out


def run_splits(scales) -> dict:
    """P11's bound and the scaled ones (not the sampled one, whose count of the live lines
    is too slow for these traces) on the training and validation splits of
    docs/evaluation.md section 8 (:mod:`evaluation.predictor_prototype`'s workloads; banks of
    1/8, 1/4, 1/2 of each trace's distinct lines, the tables of
    :func:`evaluation.compare.default_entries`): ``{split: {workload: {"1/K": {bound:
    {"hit_rate", "loop_mode_share"}, "bank_lines", "entries"}}}}``."""
    from .predictor_prototype import FRACTIONS, heldout_workloads, training_workloads
    names = ("occupancy", *(f"scaled_{k}" for k in scales))
    out: dict = {}
    for split, workloads in (("training", training_workloads), ("validation", heldout_workloads)):
        out[split] = {}
        for workload, accesses in workloads().items():
            lines = accesses.line.astype(np.int64)
            cycles = accesses.cycle.astype(np.int64)
            distinct = len(np.unique(lines))
            out[split][workload] = banks = {}
            for fraction in FRACTIONS:
                bank = compare.bank_of_share(distinct, fraction)
                entries = compare.default_entries(bank, distinct)
                row = banks[f"1/{fraction}"] = {"bank_lines": bank, "entries": entries}
                for name in names:
                    result = run_bank(lines, cycles, bank, name, entries)
                    row[name] = {"hit_rate": float(result["hits"].mean()),
                                 "loop_mode_share": float(result["loop_mode_share"])}
                print(f"{split}, {workload}, bank 1/{fraction} ({bank} lines): " + ", ".join(
                    f"{name} {100 * row[name]['hit_rate']:.2f} %" for name in names), flush=True)
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.loop_bound_study", description=__doc__.split("\n\n")[0])
    ap.add_argument("--sets", type=int_range(1), default=30, help="line sets per case (default 30)")
    ap.add_argument("--passes", type=int_range(2), nargs="+", default=[16, 40],
                    help="passes over each loop, one run per number (default 16 40)")
    ap.add_argument("--seed", type=int_range(0), default=11, help="the line sets' seed (default 11)")
    ap.add_argument("--scales", type=int_range(1, 255), nargs="*", default=list(SCALES),
                    help="each K a bound of P11's times K / 256 (default 224 192; none: only "
                         "P11's and the sampled one)")
    ap.add_argument("--no-splits", action="store_true",
                    help="leave out the training and validation splits (about six minutes)")
    ap.add_argument("--out", type=Path, default=Path("build/loop_bound_study.json"),
                    help="the JSON to write (default build/loop_bound_study.json)")
    args = ap.parse_args(argv)
    check_writable(args.out, "--out")         # refused now, not after the run
    print(f"seed {args.seed}, {args.sets} line sets per case, passes {args.passes}", flush=True)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    cases = []
    for loop_lines, bank in CASES:
        draws = [rng.choice(1 << 40, loop_lines, replace=False) for _ in range(args.sets)]
        for passes in args.passes:
            case = run_case(loop_lines, bank, passes, draws, args.scales)
            cases.append(case)
            for name in bound_names(args.scales):
                r = case[name]
                print(f"loop {loop_lines:5d}, bank {bank:5d}, {passes:3d} passes, bound from {name:9s}: hit rate "
                      f"{100 * r['min']:5.1f} to {100 * r['max']:5.1f} %, median {100 * r['median']:5.1f} %; "
                      f"below {LOW:.0%} in {r['below_low']} of {args.sets} ({r['only_below']} only under this "
                      f"bound)", flush=True)
    spec_loops = []
    for loop_lines, bank in SPEC_LOOPS:
        spec_loops.append(run_spec_loop(loop_lines, bank, args.scales))
        r = spec_loops[-1]
        print(f"P11's loop {loop_lines:5d}, bank {bank:4d}, {SPEC_PASSES} passes, in loop mode / hit rate: " +
              ", ".join(f"{name} {100 * r[name]['loop_mode_share']:.1f} % / {100 * r[name]['hit_rate']:.1f} %"
                        for name in bound_names(args.scales)), flush=True)
    splits = None if args.no_splits else run_splits(args.scales)
    doc = {"seed": args.seed, "sets": args.sets, "passes": args.passes, "low": LOW,
           "scales": args.scales, "cases": cases, "spec_loops": spec_loops, "splits": splits,
           "seconds": round(time.perf_counter() - start, 1)}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(doc, indent=1) + "\n")
    print(f"wrote {args.out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
