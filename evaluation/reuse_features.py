# SPDX-License-Identifier: Apache-2.0
"""What the predictor mode's reuse table could learn with one more feature: a study.

``python -m evaluation.reuse_features [--split S] [--filter-bits B ...] [--workload NAME] [--json F]``

The predictor mode (docs/spec-predictor.md P4) answers "observed again within ``W3``
ticks?" from a table of 4-bit counters indexed by a 6-bit *key*: the line's burst count
and the class of its age. This script replays P4's table (its counters, reset value,
training rule and threshold, from :mod:`golden_model.predictor`) on every workload of the
predictor's evaluation, outside the block, with every line seen before counted as tracked
(the block's table forgets lines, so its keys are never better informed than these), and
scores its answers with compare's MCC (the same line accessed again within
``REUSE_WINDOW`` cycles). Then it widens the key by a feature the block does not have: the
age classes (P4's classes; 4 for a line not seen) of the two neighbouring lines, ``line -
1`` and ``line + 1``, the KV blocks of the adjacent tokens of the same layer and head:

* ``keys``: P4's keys;
* ``+ neighbours, exact``: with the neighbours' classes from an exact record of every
  line's last access;
* ``+ neighbours, filter``: from what a hardware structure could hold instead, a
  direct-mapped table of ``2**FILTER_BITS`` last-access stamps indexed by the line's low
  bits, with ``FILTER_TAG_BITS`` bits of the line above them to tell a neighbour from a line
  that shares its entry (written by every access, read at ``line - 1`` and ``line + 1``).

Prints a table and writes JSON. Neither the block nor its model uses any of this; the
feature is not specified (docs/spec-predictor.md, "What the keys can learn").
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from golden_model.predictor import ABSENT_KEY, PT_INIT, key_of, pt_train

from .compare import REUSE_WINDOW
from .metrics import classify, reuse_within
from .runtime import KvAsuConfig
from .workload import LINE_SHIFT

__all__ = ["FILTER_BITS", "FILTER_TAG_BITS", "keys", "neighbour_classes", "online_answers",
           "study", "main"]

FILTER_BITS = 11        #: the filter's entries: 2 048, as many as the table's slots
FILTER_TAG_BITS = 8     #: the line's bits above the index kept per entry
_ABSENT_CLASS = ABSENT_KEY & 7      #: P4's class of a line not seen


class _Classes:
    """P4's age class of a line at a tick, from its last-access tick."""

    def __init__(self, config: KvAsuConfig):
        self.w3, self.wmax = config.w3, (1 << (config.ts_width - 1)) - 1

    def of(self, last_tick: int | None, tick: int) -> int:
        if last_tick is None:
            return _ABSENT_CLASS
        return key_of(0, min(tick - last_tick, self.wmax + 1), self.w3, self.wmax)[0] & 7


def keys(lines: np.ndarray, cycles: np.ndarray, config: KvAsuConfig = KvAsuConfig()) -> dict:
    """Per access: P4's ``key`` (every line seen before counted as tracked), whether it
    trains its line's previous key (the line was seen) and the outcome it trains with."""
    w3, wmax, shift = config.w3, (1 << (config.ts_width - 1)) - 1, config.tick_shift
    n = len(lines)
    key = np.empty(n, np.int64)
    trains = np.zeros(n, bool)
    near = np.zeros(n, bool)
    last: dict[int, int] = {}
    burst: dict[int, int] = {}
    for i, (line, cycle) in enumerate(zip(lines.tolist(), cycles.tolist())):
        tick = cycle >> shift
        if line in last:
            key[i], burst[line], near[i] = key_of(burst[line], min(tick - last[line], wmax + 1),
                                                  w3, wmax)
            trains[i] = True
        else:
            key[i], burst[line] = ABSENT_KEY, 0
        last[line] = tick
    return {"key": key, "trains": trains, "near": near}


def neighbour_classes(lines: np.ndarray, cycles: np.ndarray, *, filter_bits: int | None = None,
                      tag_bits: int = FILTER_TAG_BITS,
                      config: KvAsuConfig = KvAsuConfig()) -> np.ndarray:
    """``(n, 2)``: the age classes of ``line - 1`` and ``line + 1`` at each access, from an
    exact record (``filter_bits`` None) or from the direct-mapped filter (module docstring)."""
    classes, shift = _Classes(config), config.tick_shift
    out = np.empty((len(lines), 2), np.int64)
    if filter_bits is None:
        last: dict[int, int] = {}
        for i, (line, cycle) in enumerate(zip(lines.tolist(), cycles.tolist())):
            tick = cycle >> shift
            out[i] = (classes.of(last.get(line - 1), tick), classes.of(last.get(line + 1), tick))
            last[line] = tick
        return out
    mask, tag_mask = (1 << filter_bits) - 1, (1 << tag_bits) - 1
    tags = [-1] * (1 << filter_bits)
    stamps = [0] * (1 << filter_bits)
    for i, (line, cycle) in enumerate(zip(lines.tolist(), cycles.tolist())):
        tick = cycle >> shift
        for j, other in enumerate((line - 1, line + 1)):
            entry = other & mask
            seen = tags[entry] == (other >> filter_bits) & tag_mask
            out[i, j] = classes.of(stamps[entry] if seen else None, tick)
        tags[line & mask], stamps[line & mask] = (line >> filter_bits) & tag_mask, tick
    return out


def online_answers(lines: np.ndarray, key: np.ndarray, trains: np.ndarray,
                   near: np.ndarray) -> np.ndarray:
    """P4's table learning online on ``key``: a counter per key from ``PT_INIT``, trained
    with ``near`` by the line's next access on the key its previous access used; the
    answer is ``counter >= PT_INIT``."""
    table: dict[int, int] = {}
    previous: dict[int, int] = {}
    answers = np.zeros(len(lines), bool)
    for i, (line, k) in enumerate(zip(lines.tolist(), key.tolist())):
        if trains[i]:
            trained = previous[line]
            table[trained] = pt_train(table.get(trained, PT_INIT), bool(near[i]))
        answers[i] = table.get(k, PT_INIT) >= PT_INIT
        previous[line] = k
    return answers


def study(lines: np.ndarray, cycles: np.ndarray, filter_bits=(FILTER_BITS,)) -> dict:
    """The MCC of each key of the module docstring on one access stream, with a filter of
    ``2**b`` entries for each ``b`` in ``filter_bits``."""
    labels = reuse_within(lines, cycles, REUSE_WINDOW)
    k = keys(lines, cycles)
    row = {"accesses": int(len(lines)), "base_rate": round(float(labels.mean()), 4)}
    variants = {"keys": k["key"]}
    for name, bits in (("neighbours_exact", None),
                       *((f"neighbours_filter{b}", b) for b in filter_bits)):
        nb = neighbour_classes(lines, cycles, filter_bits=bits)
        variants[name] = (k["key"] * 8 + nb[:, 0]) * 8 + nb[:, 1]
    for name, key in variants.items():
        answers = online_answers(lines, key, k["trains"], k["near"])
        row[f"mcc_{name}"] = round(classify(answers, labels).mcc, 3)
    return row


def main(argv=None) -> int:
    from .predictor_prototype import TRAINING_NAMES, heldout_workloads, training_workloads

    ap = argparse.ArgumentParser(prog="python -m evaluation.reuse_features", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("training", "held-out", "both"), default="both")
    ap.add_argument("--filter-bits", type=int, nargs="+", default=[FILTER_BITS], metavar="B",
                    help=f"filters of 2**B entries (default {FILTER_BITS})")
    ap.add_argument("--workload", metavar="NAME", help="only the workloads whose name holds NAME")
    ap.add_argument("--json", type=Path, metavar="F", help="also write the figures as JSON to F")
    args = ap.parse_args(argv)
    workloads = {}
    if args.split in ("training", "both"):
        workloads.update(training_workloads())
    if args.split in ("held-out", "both"):
        workloads.update(heldout_workloads())
    if args.workload:
        workloads = {k: v for k, v in workloads.items() if args.workload in k}
    filters = "".join(f" {f'+ nb, filter 2**{b}':>18}" for b in args.filter_bits)
    print(f"{'workload':52} {'split':9} {'base':>6} {'keys':>6} {'+ nb, exact':>12}{filters}")
    rows = {}
    for name, acc in workloads.items():
        started = time.monotonic()
        lines = (acc.addr >> np.uint64(LINE_SHIFT)).astype(np.int64)
        row = {"split": "training" if name in TRAINING_NAMES else "held-out",
               **study(lines, acc.cycle.astype(np.int64), args.filter_bits)}
        rows[name] = row
        filters = "".join(f" {row[f'mcc_neighbours_filter{b}']:>18.3f}" for b in args.filter_bits)
        print(f"{name[:52]:52} {row['split']:9} {row['base_rate']:>6.3f} "
              f"{row['mcc_keys']:>6.3f} {row['mcc_neighbours_exact']:>12.3f}{filters}"
              f"   ({time.monotonic() - started:.0f} s)", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"window_cycles": REUSE_WINDOW,
                                         "filter_bits": args.filter_bits,
                                         "filter_tag_bits": FILTER_TAG_BITS,
                                         "workloads": rows}, indent=1) + "\n")
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
