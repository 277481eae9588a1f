# SPDX-License-Identifier: Apache-2.0
"""Metrics: reuse labels, classification scores, latency.

Reuse prediction (the article's "T-level predicts reuse within the next 100 cycles"): for
every OBSERVE ``i`` of line ``x`` at cycle ``t_i`` the label is 1 when ``x`` is observed
again at some cycle ``t_j`` with ``j > i`` and ``t_j - t_i <= N``; the prediction is
``T-level >= threshold``. Accuracy alone is meaningless without the base rate (the share
of positive labels): a constant predictor scores ``max(base, 1 - base)``, so every score
here comes with both.
"""

from __future__ import annotations

from dataclasses import dataclass, asdict

import numpy as np


def next_use_index(keys: np.ndarray) -> np.ndarray:
    """For each position ``i``, the next position ``j > i`` with ``keys[j] == keys[i]``.

    ``keys``: one key (a line number, say) per access, in stream order.
    Returns an int64 array of the same length: that next position, or ``len(keys)`` where
    the key is not used again."""
    keys = np.asarray(keys)
    n = len(keys)
    order = np.lexsort((np.arange(n), keys))  # by key, then by position
    nxt = np.full(n, n, dtype=np.int64)
    same = keys[order[1:]] == keys[order[:-1]]
    nxt[order[:-1][same]] = order[1:][same]
    return nxt


def reuse_within(keys: np.ndarray, cycles: np.ndarray, window: int = 100) -> np.ndarray:
    """Label of every access: the same key is accessed again within ``window`` cycles
    (strictly later in the stream, cycle difference ``<= window``).

    ``keys``: one key per access, in stream order; ``cycles``: the access cycles, values
    of the 64-bit cycle counter (0 .. 2**64 - 1; an int64 array is read as those 64 bits);
    ``window``: cycles, >= 0. Returns a bool array, one label per access.
    """
    keys = np.asarray(keys)
    # Unsigned: an int64 difference wraps for gaps of 2**63 cycles or more, and a gap
    # that wraps negative would pass as a reuse.
    cycles = np.asarray(cycles).astype(np.uint64)
    if window < 0:
        raise ValueError(f"window must be >= 0 cycles, not {window}")
    if len(cycles) != len(keys):
        raise ValueError("keys and cycles differ in length")
    nxt = next_use_index(keys)
    has = nxt < len(keys)
    out = np.zeros(len(keys), dtype=bool)
    now, later = cycles[has], cycles[nxt[has]]
    # A later access at an earlier cycle (a stream out of order) counts as within the
    # window, as its negative difference would.
    out[has] = (later < now) | ((later - now) <= np.uint64(window))
    return out


@dataclass
class Classification:
    """Binary classification scores with the base rate beside them."""

    n: int
    base_rate: float  #: share of positive labels
    positive_rate: float  #: share of positive predictions
    accuracy: float
    precision: float
    recall: float
    f1: float
    trivial_accuracy: float  #: accuracy of the best constant predictor, max(base, 1-base)
    mcc: float = 0.0  #: Matthews correlation coefficient (0 for any constant predictor)

    def as_dict(self) -> dict:
        return asdict(self)


def classify(pred: np.ndarray, label: np.ndarray) -> Classification:
    """Accuracy, precision, recall, F1 and base rate of boolean predictions.

    ``pred``, ``label``: boolean arrays of the same shape (prediction and truth per item).
    Returns a :class:`Classification`.

    Conventions for empty denominators: precision = 0 when nothing is predicted positive,
    recall = 0 when no label is positive, F1 = 0 when precision + recall = 0, MCC = 0 when
    either the predictions or the labels are constant (a caller that must tell "undefined"
    from "no correlation" checks ``base_rate`` for 0 or 1). No item at all gives ``n = 0``
    and every score 0.
    """
    pred = np.asarray(pred, dtype=bool)
    label = np.asarray(label, dtype=bool)
    if pred.shape != label.shape:
        raise ValueError("pred and label differ in shape")
    n = int(pred.size)
    if n == 0:
        return Classification(0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
    tp = int(np.sum(pred & label))
    fp = int(np.sum(pred & ~label))
    fn = int(np.sum(~pred & label))
    tn = n - tp - fp - fn
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    base = (tp + fn) / n
    den = float(tp + fp) * float(tp + fn) * float(tn + fp) * float(tn + fn)
    mcc = (tp * tn - fp * fn) / den ** 0.5 if den > 0 else 0.0
    return Classification(
        n=n, base_rate=base, positive_rate=(tp + fp) / n, accuracy=(tp + tn) / n,
        precision=precision, recall=recall, f1=f1, trivial_accuracy=max(base, 1 - base), mcc=mcc,
    )


@dataclass(frozen=True)
class LatencyModel:
    """Access latency of the fast bank and of DRAM, in controller cycles.

    A fast-bank hit costs ``bank_cycles``. A DRAM fetch of one line costs
    ``dram_cycles + line_bytes / dram_bytes_per_cycle`` (latency plus transfer, no
    queueing: the traffic itself is reported separately as DRAM bytes).
    Defaults: 1 GHz clock, an L2-class bank of 30 cycles, LPDDR5 with ~200 ns latency and
    102 GB/s (the article's Orin NX figure), i.e. 102 bytes per cycle.
    """

    bank_cycles: float = 30.0
    dram_cycles: float = 200.0
    dram_bytes_per_cycle: float = 102.0
    line_bytes: int = 256

    @property
    def miss_cycles(self) -> float:
        """Cycles of one DRAM fetch: latency plus the line's transfer."""
        return self.dram_cycles + self.line_bytes / self.dram_bytes_per_cycle

    def mean(self, hits: int, misses: int) -> float:
        """Mean access latency in cycles of ``hits`` fast-bank hits and ``misses`` DRAM
        fetches; 0.0 when both are 0."""
        total = hits + misses
        if total == 0:
            return 0.0
        return (hits * self.bank_cycles + misses * self.miss_cycles) / total


def hit_rate(hits: np.ndarray) -> float:
    """Share of True in ``hits`` (one bool per read); 0.0 for no read."""
    hits = np.asarray(hits, dtype=bool)
    return float(hits.mean()) if hits.size else 0.0
