# SPDX-License-Identifier: Apache-2.0
"""What the predictor mode's reuse table could learn with one more feature: a study.

``python -m evaluation.reuse_features [--split S] [--filter-bits B ...] [--group-index-bits B ...]
[--workload NAME] [--json F] [--plot F]``

The predictor mode (docs/spec-predictor.md P4) answers "observed again within ``W3``
ticks?" from a table of 4-bit counters, ``PA``, indexed by the line's *key* (its burst
count and the class of its age, 6 bits) and ``seen``, a 3-bit count of its earlier
accesses; the key alone indexes ``PT``, which decides only the ghost rule. This script
replays P4's counters (reset value, training rule and threshold, from
:mod:`golden_model.predictor`) on every workload of the predictor's evaluation, outside the
block, with every line seen before counted as tracked (the block's table forgets lines, so
its keys are never better informed than these), and scores their answers with compare's
MCC (the same line accessed again within ``REUSE_WINDOW`` cycles), for these keys:

* ``keys``: the key alone (``PT``'s: an answer without ``seen``);
* ``+ seen``: the key and ``seen`` (``PA``'s: the block's answer);
* ``+ neighbours, exact``: with the age classes (P4's classes; 4 for a line not seen) of the
  two neighbouring lines, ``line - 1`` and ``line + 1``, the KV blocks of the adjacent
  tokens of the same layer and head, from an exact record of every line's last access;
* ``+ neighbours, filter``: from what a hardware structure could hold instead, a
  direct-mapped table of ``2**FILTER_BITS`` last-access stamps indexed by the line's low
  bits, with ``FILTER_TAG_BITS`` bits of the line above them to tell a neighbour from a line
  that shares its entry (written by every access, read at ``line - 1`` and ``line + 1``);
* ``+ neighbours, groups``: from a table of *groups* of ``2**GROUP_BITS`` adjacent lines,
  one entry per group, read and written once per access (:func:`group_classes`): the
  entry of ``line >> GROUP_BITS``, its index that group XOR-folded to ``INDEX_BITS`` bits,
  holds ``GROUP_TAG_BITS`` bits of the group above the index and, per line of the group, a
  valid bit and a stamp of ``ts_width`` bits that wraps as the block's stamps do. A
  neighbour in another group (``line`` at either end of its group) has a class of its own,
  5, so the key tells "not seen" from "not known".

Prints a table (and, with ``--json``, writes its figures as JSON). The neighbours' features
are not specified (docs/spec-predictor.md, "What the keys can learn").
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from golden_model.predictor import (ABSENT_KEY, PT_INIT, SEEN_MAX, answer_key, key_of, pt_train,
                                    seen_step)
from regmap.arguments import check_int, check_writable, int_range

from .compare import REUSE_WINDOW
from .metrics import classify, reuse_within
from .runtime import KvAsuConfig
from .workload import LINE_SHIFT

__all__ = ["FILTER_BITS", "FILTER_TAG_BITS", "GROUP_BITS", "GROUP_TAG_BITS", "INDEX_BITS",
           "OUTSIDE_CLASS", "SEEN_MAX", "GroupTable", "group_classes", "keys",
           "neighbour_classes", "online_answers", "plot", "study", "main"]

FILTER_BITS = 11        #: the filter's entries: 2 048, as many as the table's slots
FILTER_TAG_BITS = 8     #: the line's bits above the index kept per entry
GROUP_BITS = 3          #: a group is 8 adjacent lines
INDEX_BITS = (11, 12)   #: the group tables studied: 2 048 and 4 096 groups
GROUP_TAG_BITS = 6      #: the group's bits above the index kept per entry
_ABSENT_CLASS = ABSENT_KEY & 7      #: P4's class of a line not seen
OUTSIDE_CLASS = _ABSENT_CLASS + 1   #: a neighbour in another group: not known
MAX_TABLE_BITS = 24     #: the largest filter or group table studied: 2**24 entries


def _check_stream(lines: np.ndarray, cycles: np.ndarray) -> None:
    """``lines`` and ``cycles``: one per access, of the same length, else ``ValueError``."""
    if np.ndim(lines) != 1 or np.shape(lines) != np.shape(cycles):
        raise ValueError(f"lines and cycles must be 1-D and of the same length, not of shapes "
                         f"{np.shape(lines)} and {np.shape(cycles)}")


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
    trains its line's previous key (the line was seen), the outcome it trains with, and
    ``seen``: the line's earlier accesses, saturating at ``SEEN_MAX``."""
    _check_stream(lines, cycles)
    w3, wmax, shift = config.w3, (1 << (config.ts_width - 1)) - 1, config.tick_shift
    n = len(lines)
    key = np.empty(n, np.int64)
    trains = np.zeros(n, bool)
    near = np.zeros(n, bool)
    seen = np.zeros(n, np.int64)
    last: dict[int, int] = {}
    burst: dict[int, int] = {}
    earlier: dict[int, int] = {}
    for i, (line, cycle) in enumerate(zip(lines.tolist(), cycles.tolist())):
        tick = cycle >> shift
        seen[i] = earlier.get(line, 0)
        earlier[line] = seen_step(seen[i])
        if line in last:
            key[i], burst[line], near[i] = key_of(burst[line], min(tick - last[line], wmax + 1),
                                                  w3, wmax)
            trains[i] = True
        else:
            key[i], burst[line] = ABSENT_KEY, 0
        last[line] = tick
    return {"key": key, "trains": trains, "near": near, "seen": seen}


def neighbour_classes(lines: np.ndarray, cycles: np.ndarray, *, filter_bits: int | None = None,
                      tag_bits: int = FILTER_TAG_BITS,
                      config: KvAsuConfig = KvAsuConfig()) -> np.ndarray:
    """``(n, 2)``: the age classes of ``line - 1`` and ``line + 1`` at each access, from an
    exact record (``filter_bits`` None) or from the direct-mapped filter (module docstring)."""
    _check_stream(lines, cycles)
    classes, shift = _Classes(config), config.tick_shift
    out = np.empty((len(lines), 2), np.int64)
    if filter_bits is None:
        last: dict[int, int] = {}
        for i, (line, cycle) in enumerate(zip(lines.tolist(), cycles.tolist())):
            tick = cycle >> shift
            out[i] = (classes.of(last.get(line - 1), tick), classes.of(last.get(line + 1), tick))
            last[line] = tick
        return out
    filter_bits = check_int("filter_bits", filter_bits, 0, MAX_TABLE_BITS)
    mask, tag_mask = (1 << filter_bits) - 1, (1 << check_int("tag_bits", tag_bits, 0)) - 1
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


def _fold(value: int, bits: int) -> int:
    """``value`` (>= 0) XOR-folded to ``bits`` bits (its ``bits``-bit chunks XORed
    together; 0 for ``bits`` 0)."""
    if value < 0:
        raise ValueError(f"a line must be >= 0, not {value}")
    if bits == 0:
        return 0
    folded, mask = 0, (1 << bits) - 1
    while value:
        folded ^= value & mask
        value >>= bits
    return folded


class GroupTable:
    """The table of groups of the module docstring: ``2**index_bits`` entries, one per
    group of ``2**group_bits`` adjacent lines, at the group number XOR-folded to
    ``index_bits`` bits, each holding ``tag_bits`` bits of the group above the index and, per
    line of the group, a valid bit and a stamp of ``ts_width`` bits."""

    def __init__(self, index_bits: int, group_bits: int = GROUP_BITS,
                 tag_bits: int = GROUP_TAG_BITS, config: KvAsuConfig = KvAsuConfig()):
        index_bits = check_int("index_bits", index_bits, 0, MAX_TABLE_BITS)
        group_bits = check_int("group_bits", group_bits, 0, MAX_TABLE_BITS)
        tag_bits = check_int("tag_bits", tag_bits, 0)
        self.index_bits, self.group_bits, self.tag_mask = index_bits, group_bits, (1 << tag_bits) - 1
        self.classes, self.wrap = _Classes(config), 1 << config.ts_width
        self.tags = [-1] * (1 << index_bits)
        self.stamps: list[list[int | None]] = [[None] * (1 << group_bits) for _ in self.tags]

    def access(self, line: int, tick: int) -> tuple[int, int]:
        """The classes of ``line - 1`` and ``line + 1`` at ``tick``: ``OUTSIDE_CLASS`` for a
        neighbour in another group; the class of its stamp's age (modulo ``2**ts_width``) if
        the entry holds the group (its tag) and the neighbour's valid bit; else
        ``_ABSENT_CLASS``. Then the access writes the entry: a group other than the one
        held takes it with every valid bit clear, and the line's stamp and valid bit are
        set."""
        group, in_group = line >> self.group_bits, (1 << self.group_bits) - 1
        entry = _fold(group, self.index_bits)
        tag = (group >> self.index_bits) & self.tag_mask
        held = self.stamps[entry] if self.tags[entry] == tag else [None] * (in_group + 1)
        out = []
        for other in (line - 1, line + 1):
            if other >> self.group_bits != group:
                out.append(OUTSIDE_CLASS)
            elif held[other & in_group] is None:
                out.append(_ABSENT_CLASS)
            else:
                stamp = held[other & in_group]
                out.append(self.classes.of(tick - (tick - stamp) % self.wrap, tick))
        self.tags[entry], self.stamps[entry] = tag, held
        held[line & in_group] = tick
        return out[0], out[1]


def group_classes(lines: np.ndarray, cycles: np.ndarray, *, index_bits: int,
                  group_bits: int = GROUP_BITS, tag_bits: int = GROUP_TAG_BITS,
                  config: KvAsuConfig = KvAsuConfig()) -> np.ndarray:
    """``(n, 2)``: the classes of ``line - 1`` and ``line + 1`` at each access from a
    :class:`GroupTable` that every access reads and writes."""
    _check_stream(lines, cycles)
    table = GroupTable(index_bits, group_bits, tag_bits, config)
    shift = config.tick_shift
    return np.array([table.access(line, cycle >> shift)
                     for line, cycle in zip(lines.tolist(), cycles.tolist())],
                    np.int64).reshape(len(lines), 2)


def online_answers(lines: np.ndarray, key: np.ndarray, trains: np.ndarray,
                   near: np.ndarray) -> np.ndarray:
    """P4's table learning online on ``key``: a counter per key from ``PT_INIT``, trained
    with ``near`` by the line's next access on the key its previous access used; the
    answer is ``counter >= PT_INIT``."""
    if not len(key) == len(trains) == len(near) == len(lines):
        raise ValueError(f"lines, key, trains and near differ in length: {len(lines)}, "
                         f"{len(key)}, {len(trains)}, {len(near)}")
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


def study(lines: np.ndarray, cycles: np.ndarray, filter_bits=(FILTER_BITS,),
          index_bits=INDEX_BITS) -> dict:
    """The MCC of each key of the module docstring on one access stream, with a filter of
    ``2**b`` entries for each ``b`` in ``filter_bits`` and a group table of ``2**b`` groups
    for each ``b`` in ``index_bits``. An empty stream is a ``ValueError`` (no MCC to give)."""
    _check_stream(lines, cycles)
    if len(lines) == 0:
        raise ValueError("the stream has no access")
    labels = reuse_within(lines, cycles, REUSE_WINDOW)
    k = keys(lines, cycles)
    row = {"accesses": int(len(lines)), "base_rate": round(float(labels.mean()), 4)}
    variants = {"keys": k["key"], "seen": answer_key(k["key"], k["seen"])}
    for name, bits in (("neighbours_exact", None),
                       *((f"neighbours_filter{b}", b) for b in filter_bits)):
        nb = neighbour_classes(lines, cycles, filter_bits=bits)
        variants[name] = (k["key"] * 8 + nb[:, 0]) * 8 + nb[:, 1]
    for b in index_bits:
        nb = group_classes(lines, cycles, index_bits=b)
        variants[f"neighbours_group{b}"] = (k["key"] * 8 + nb[:, 0]) * 8 + nb[:, 1]
    for name, key in variants.items():
        answers = online_answers(lines, key, k["trains"], k["near"])
        row[f"mcc_{name}"] = round(classify(answers, labels).mcc, 3)
    return row


def _workloads(split: str) -> dict:
    """``{name: (split, lines, cycles)}`` of the workloads of ``split``."""
    from .predictor_prototype import TRAINING_NAMES, heldout_workloads, training_workloads

    chosen = {}
    if split in ("training", "both"):
        chosen.update((k, ("training", v)) for k, v in training_workloads().items())
    if split in ("held-out", "both"):
        chosen.update((k, ("held-out", v)) for k, v in heldout_workloads().items())
    if split == "fresh":
        from .fresh import fresh_workloads
        chosen.update((k, ("fresh", v)) for k, v in
                      fresh_workloads(lambda text: print(text, flush=True)).items())
    out = {}
    for name, (which, acc) in chosen.items():
        assert which != "training" or name in TRAINING_NAMES
        lines = (acc.line if hasattr(acc, "line")
                 else (acc.addr >> np.uint64(LINE_SHIFT)).astype(np.int64))
        out[name] = (which, lines, acc.cycle.astype(np.int64))
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.reuse_features", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--split", choices=("training", "held-out", "both", "fresh"), default="both",
                    help="fresh: evaluation.fresh's workloads, never used for tuning or for "
                         "this study's choices")
    table_bits = int_range(0, MAX_TABLE_BITS, why="a table of 2**B entries")
    ap.add_argument("--filter-bits", type=table_bits, nargs="+", default=[FILTER_BITS], metavar="B",
                    help=f"filters of 2**B entries (default {FILTER_BITS})")
    ap.add_argument("--group-index-bits", type=table_bits, nargs="*", default=list(INDEX_BITS),
                    metavar="B", help="group tables of 2**B groups (default "
                                      f"{' '.join(map(str, INDEX_BITS))})")
    ap.add_argument("--workload", metavar="NAME", help="only the workloads whose name holds NAME")
    ap.add_argument("--json", type=Path, metavar="F", help="also write the figures as JSON to F")
    ap.add_argument("--plot", type=Path, metavar="F",
                    help="also draw each workload's MCC per key against the 0.5 target into F (PNG)")
    args = ap.parse_args(argv)
    for option, path in (("--json", args.json), ("--plot", args.plot)):
        if path is not None:
            check_writable(path, option)          # (written at the end of the run)
    workloads = _workloads(args.split)
    if args.workload:
        names = list(workloads)
        workloads = {k: v for k, v in workloads.items() if args.workload in k}
        if not workloads:
            ap.error(f"--workload {args.workload!r}: no workload of --split {args.split} holds it "
                     f"(they are: {'; '.join(names)})")
    columns = ([("keys", "keys"), ("+ seen", "seen"), ("+ nb, exact", "neighbours_exact")]
               + [(f"+ nb, filter 2**{b}", f"neighbours_filter{b}") for b in args.filter_bits]
               + [(f"+ nb, groups 2**{b}", f"neighbours_group{b}") for b in args.group_index_bits])
    print(f"{'workload':52} {'split':9} {'base':>6}"
          + "".join(f" {title:>{max(6, len(title))}}" for title, _ in columns))
    rows = {}
    for name, (split, lines, cycles) in workloads.items():
        started = time.monotonic()
        row = {"split": split, **study(lines, cycles, args.filter_bits, args.group_index_bits)}
        rows[name] = row
        print(f"{name[:52]:52} {split:9} {row['base_rate']:>6.3f}"
              + "".join(f" {row[f'mcc_{key}']:>{max(6, len(title))}.3f}" for title, key in columns)
              + f"   ({time.monotonic() - started:.0f} s)", flush=True)
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps({"window_cycles": REUSE_WINDOW,
                                         "filter_bits": args.filter_bits,
                                         "filter_tag_bits": FILTER_TAG_BITS,
                                         "group_bits": GROUP_BITS,
                                         "group_index_bits": args.group_index_bits,
                                         "group_tag_bits": GROUP_TAG_BITS,
                                         "workloads": rows}, indent=1) + "\n")
        print(f"wrote {args.json}")
    if args.plot:
        plot(rows, columns, args.plot)
        print(f"wrote {args.plot}")
    return 0


def plot(rows: dict, columns: list, path: Path) -> None:
    """Grouped bars: per workload (its split in brackets), the MCC of each key of
    ``columns`` (``(title, key)`` pairs), and the target 0.5 as a line."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    names = list(rows)
    x = np.arange(len(names))
    width = 0.8 / len(columns)
    fig, ax = plt.subplots(figsize=(max(8.0, 1.3 * len(names)), 4.2))
    for i, (title, key) in enumerate(columns):
        ax.bar(x + (i - (len(columns) - 1) / 2) * width,
               [rows[n][f"mcc_{key}"] for n in names], width, label=title)
    ax.axhline(0.5, color="black", linewidth=0.8, linestyle="--", label="target 0.5")
    ax.set_xticks(x, [f"{n} ({rows[n]['split']})" for n in names], rotation=30, ha="right",
                  fontsize=7)
    ax.set_ylabel(f"MCC (reuse within {REUSE_WINDOW} cycles)")
    ax.set_title("P4's key, with the count of earlier accesses or the neighbours' classes, "
                 "replayed with every line remembered", fontsize=10)
    ax.set_ylim(min(0.0, *(rows[n][f"mcc_{k}"] for n in names for _, k in columns)), 1.12)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))
    ax.grid(axis="y", alpha=0.3)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110, format="png")
    plt.close(fig)


if __name__ == "__main__":
    raise SystemExit(main())
