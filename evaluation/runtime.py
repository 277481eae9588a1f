# SPDX-License-Identifier: Apache-2.0
"""Retrieval-runtime model: turns KV accesses into KV-ASU requests and serves them.

This is the software layer of the article (section 2.2 / 3.2) around the KV-ASU golden
model. Semantics, per access of the workload (:class:`evaluation.workload.Accesses`), in
order:

* **Read.** The runtime first sends ``QUERY(line, min_tlevel)``. The read is a **hit**
  (served from the fast bank, ``bank_cycles``) when

  - the line is *resident* in the fast bank, and
  - with ``gate=True`` (the article's rule, "serve from L2 only if the T-level is high
    enough"), the QUERY's T-level (plus one with the frame-aware boost, below) is at
    least ``min_tlevel``; with ``gate=False`` residency alone decides.

  Otherwise, if the line is in the **prefetch bank** (filled by the predictor at frame
  boundaries), it is a *prefetch hit* (same latency as the bank; the line is then installed
  in the fast bank, as a missed one is). Otherwise it is a **miss**: the line is fetched
  from DRAM (``LatencyModel.miss_cycles``, 256 bytes of traffic) and installed in the fast
  bank. A resident line that the gate refuses is fetched again all the same (counted as
  ``gated_refetches``, also when the prefetch bank serves it): that is the price of
  trusting the T-level. Then the runtime sends ``OBSERVE(line)``: the controller saw the
  read.
* **Write** (a new token's KV block): ``OBSERVE(line)`` and install in the fast bank
  (write-allocate). Writes are neither hits nor misses.
* **Install.** If the bank is full, the bank's own least-recently-used line is dropped
  (``forced_evictions``): the KV-ASU does not track every line (its table can drop lines),
  so the bank needs a fallback that always finds a victim.
* **Watermark GC** (``watermark``, default 0.85, the article's ``--kv-cache-gc-threshold``):
  after an install that leaves the bank more than ``watermark * bank_lines`` full, the
  runtime sends ``EVICT`` requests, removing every returned victim from the bank if it is
  resident, until the bank is at most ``gc_low * bank_lines`` full, an EVICT finds nothing
  (no T0 line at the LRU tail), or ``gc_max`` EVICTs were sent. A GC that stopped on an
  empty EVICT is not retried for ``gc_retry_cycles``. ``watermark=None`` disables GC.
* **Frame-aware boost** (``frame_boost``, article 3.2): a read of a visual token tagged
  ``(frame f, row r)`` counts one T-level hotter (at most T3) when row ``r`` of frame
  ``f-1`` or ``f+1`` was read within the last ``W1`` window. It changes only the gate.
* **Prefetch** (``prefetch``, article 3.3): at every frame start a predictor scores every
  patch row ``r``; the rows it picks (probability >= 0.5, best first) have the KV lines of
  their tokens in the previous ``prefetch_frames`` frames loaded into a separate prefetch
  bank of ``prefetch_lines`` lines (replacing its contents; the lines not already in it
  count as DRAM bytes). ``"lstm"`` is :class:`TinyLSTM` (124 parameters, trained online on
  what each frame actually read); ``"last"`` predicts the usefulness each row had in the
  previous frame (a no-learning reference). Prefetch needs a video workload (patch grid
  and frame motion) and starts once two frames of the stream were seen.

The schedule is open loop: access cycles come from the workload and do not depend on
hits, so latency is reported as a mean per read, not fed back into time.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from dataclasses import dataclass, field, asdict

import numpy as np

from regmap.arguments import check_int

from .metrics import LatencyModel
from .workload import Accesses, LINE_SHIFT, LINE_BYTES

OBSERVE, QUERY, EVICT, EVICT_ANY = 0, 1, 2, 3


@dataclass(frozen=True)
class KvAsuConfig:
    """Elaboration parameters and runtime configuration of the modelled KV-ASU."""

    entries: int = 2048
    probe: int = 4
    count_width: int = 16
    ts_width: int = 8
    tick_shift: int = 2
    c3: int = 5
    c2: int = 3
    w3: int = 25  #: ticks (100 cycles with tick_shift 2)
    w2: int = 50
    w1: int = 125
    hash_seed: int = 0

    def make_model(self):
        """A configured :class:`golden_model.KvAsuModel`."""
        from golden_model import KvAsuModel

        m = KvAsuModel(entries=self.entries, probe=self.probe, addr_width=64, line_shift=LINE_SHIFT,
                       count_width=self.count_width, ts_width=self.ts_width, tick_shift=self.tick_shift)
        m.commit(0, c3=self.c3, c2=self.c2, w3=self.w3, w2=self.w2, w1=self.w1, hash_seed=self.hash_seed)
        return m

    @property
    def w1_cycles(self) -> int:
        return self.w1 << self.tick_shift

    def replace(self, **kw) -> "KvAsuConfig":
        from dataclasses import replace
        return replace(self, **kw)


@dataclass(frozen=True)
class RuntimeConfig:
    """Switches of the retrieval runtime (see the module docstring)."""

    bank_lines: int = 2048
    min_tlevel: int = 2
    gate: bool = True
    watermark: float | None = 0.85
    gc_low: float = 0.75
    gc_max: int = 64
    gc_retry_cycles: int = 100
    frame_boost: bool = False
    prefetch: str | None = None  #: None, "lstm" or "last"
    prefetch_lines: int = 512
    prefetch_frames: int = 2
    predictor_seed: int = 0
    latency: LatencyModel = field(default_factory=LatencyModel)
    kvasu: KvAsuConfig = field(default_factory=KvAsuConfig)

    def replace(self, **kw) -> "RuntimeConfig":
        from dataclasses import replace
        return replace(self, **kw)


@dataclass
class RuntimeResult:
    """What one runtime run measured."""

    served: np.ndarray  #: per access: 0 DRAM, 1 fast bank, 2 prefetch bank, 255 write
    read_tlevel: np.ndarray  #: per access: T-level the gate used (after boost); 255 for writes
    resident: np.ndarray  #: per access: bool, a read whose line was resident in the fast bank
    reads: int
    hits: int  #: bank hits + prefetch hits
    bank_hits: int
    prefetch_hits: int
    misses: int
    resident_reads: int  #: reads whose line was resident in the fast bank (hit or gated)
    gated_refetches: int  #: resident, refused by the gate, fetched again (DRAM or prefetch bank)
    dram_bytes: int  #: demand fetches + prefetch traffic
    prefetch_bytes: int
    forced_evictions: int
    gc_evictions: int
    max_occupancy: int
    requests: dict  #: requests sent, by op name
    kvasu_stats: dict
    mean_latency: float
    seconds: float
    predictor_loss: list = field(default_factory=list)
    request_log: tuple | None = None  #: (cycle, op, addr, min_tlevel) if recorded

    @property
    def hit_rate(self) -> float:
        return self.hits / self.reads if self.reads else 0.0

    @property
    def resident_rate(self) -> float:
        return self.resident_reads / self.reads if self.reads else 0.0

    def summary(self) -> dict:
        d = {k: v for k, v in asdict(self).items() if k not in ("served", "read_tlevel", "resident", "request_log")}
        d["hit_rate"] = self.hit_rate
        d["resident_rate"] = self.resident_rate
        return d


def stats_dict(model) -> dict:
    """The model's statistics as a plain ``{name: int}`` dict, named as ``regmap.STAT_NAMES``."""
    return model.stats.as_dict()


# --------------------------------------------------------------------------------------
# The prefetch predictor
# --------------------------------------------------------------------------------------
class TinyLSTM:
    """A 124-parameter LSTM (6 inputs, 3 hidden units, sigmoid read-out) in NumPy.

    Input per patch row and frame (the last ``steps`` frames): the row's T-level histogram
    (4 shares, T0..T3, of the row's reads in that frame), the frame's mean motion magnitude
    in patches, and the row's share of the frame's reads times the number of rows. Output:
    the probability-like usefulness of prefetching the row for the next frame (the share
    of its previous-frame lines that the next frame reads). Trained online with Adam on a
    replay buffer; the gradient is a central finite difference evaluated in one batched
    forward pass (cheap at 124 parameters), which keeps the code short and obviously right.
    """

    N_IN, N_H = 6, 3

    def __init__(self, seed: int = 0, steps: int = 5, lr: float = 0.05):
        self.steps = steps
        self.lr = lr
        rng = np.random.default_rng(seed)
        self.theta = rng.normal(0.0, 0.3, self.n_params)
        self._m = np.zeros(self.n_params)
        self._v = np.zeros(self.n_params)
        self._t = 0
        self.buffer: list[tuple[np.ndarray, np.ndarray]] = []

    @property
    def n_params(self) -> int:
        return 4 * self.N_H * (self.N_IN + self.N_H) + 4 * self.N_H + self.N_H + 1

    def _unpack(self, th: np.ndarray):
        """th: (K, n_params) -> W (K, 4H, I+H), b (K, 4H), wo (K, H), bo (K,)."""
        H, I = self.N_H, self.N_IN
        k = th.shape[0]
        a = 4 * H * (I + H)
        W = th[:, :a].reshape(k, 4 * H, I + H)
        b = th[:, a:a + 4 * H]
        wo = th[:, a + 4 * H:a + 5 * H]
        bo = th[:, a + 5 * H]
        return W, b, wo, bo

    def forward(self, X: np.ndarray, th: np.ndarray | None = None) -> np.ndarray:
        """X: (T, B, N_IN) -> (K, B) outputs for K parameter vectors (K=1 by default)."""
        th = self.theta[None, :] if th is None else th
        W, b, wo, bo = self._unpack(th)
        K, H = th.shape[0], self.N_H
        B = X.shape[1]
        h = np.zeros((K, B, H))
        c = np.zeros((K, B, H))
        sig = lambda z: 1.0 / (1.0 + np.exp(-z))
        for t in range(X.shape[0]):
            xt = np.broadcast_to(X[t][None], (K, B, self.N_IN))
            z = np.einsum("kgi,kbi->kbg", W, np.concatenate([xt, h], axis=2)) + b[:, None, :]
            i, f, g, o = z[..., :H], z[..., H:2 * H], z[..., 2 * H:3 * H], z[..., 3 * H:]
            c = sig(f) * c + sig(i) * np.tanh(g)
            h = sig(o) * np.tanh(c)
        return sig(np.einsum("kbh,kh->kb", h, wo) + bo[:, None])

    def predict(self, X: np.ndarray) -> np.ndarray:
        return self.forward(X)[0]

    def add(self, X: np.ndarray, y: np.ndarray, keep: int = 12) -> None:
        self.buffer.append((X, y))
        self.buffer = self.buffer[-keep:]

    def train(self, iters: int = 20, eps: float = 1e-3) -> float:
        """A few Adam steps on the buffer (binary cross-entropy with soft targets)."""
        if not self.buffer:
            return float("nan")
        X = np.concatenate([b[0] for b in self.buffer], axis=1)
        y = np.concatenate([b[1] for b in self.buffer])
        n = self.n_params
        E = np.eye(n) * eps
        loss = float("nan")
        for _ in range(iters):
            th = np.concatenate([self.theta[None], self.theta[None] + E, self.theta[None] - E])
            p = np.clip(self.forward(X, th), 1e-6, 1 - 1e-6)
            L = -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p), axis=1)
            loss = float(L[0])
            g = (L[1:n + 1] - L[n + 1:]) / (2 * eps)
            self._t += 1
            self._m = 0.9 * self._m + 0.1 * g
            self._v = 0.999 * self._v + 0.001 * g * g
            mh = self._m / (1 - 0.9 ** self._t)
            vh = self._v / (1 - 0.999 ** self._t)
            self.theta = self.theta - self.lr * mh / (np.sqrt(vh) + 1e-8)
        return loss


class _RowTracker:
    """Per-frame statistics of patch rows, for the prefetch predictor."""

    def __init__(self, acc: Accesses, cfg: RuntimeConfig):
        p = acc.params
        self.p = p
        self.rows, self.cols = p.grid
        self.K = cfg.prefetch_frames
        self.steps = 5
        # By frame number (a stream may start at any frame): closed frames only.
        self.hist: dict[int, np.ndarray] = {}  # (rows, 4) T-level counts
        self.useful: dict[int, np.ndarray] = {}  # (rows,) share of candidate lines read
        self.cur_hist = np.zeros((self.rows, 4))
        self.cur_read: set = set()
        self.motion = (acc.frame_motion if acc.frame_motion is not None else np.zeros(p.frames)) / p.patch_px

    def candidate_lines(self, frame: int, row: int) -> list[int]:
        """Lines holding row ``row`` of frames ``frame-K .. frame-1`` (all layers, heads)."""
        p = self.p
        out = []
        for g in range(frame - 1, max(-1, frame - 1 - self.K), -1):
            tok = np.array([p.token_id(g, row, c) for c in range(self.cols)])
            for layer in range(p.layers):
                for head in range(p.heads):
                    a = p.block_addr(layer, head, tok)
                    for k in range(p.lines_per_block):
                        out.extend(((a >> LINE_SHIFT) + k).tolist())
        return list(dict.fromkeys(out))

    def end_frame(self, frame: int) -> None:
        """Close frame ``frame``: store its histogram and each row's usefulness."""
        self.hist[frame] = self.cur_hist
        u = np.zeros(self.rows)
        if frame >= 1:
            for r in range(self.rows):
                cand = self.candidate_lines(frame, r)
                u[r] = sum(1 for x in cand if x in self.cur_read) / max(1, len(cand))
        self.useful[frame] = u
        self.cur_hist = np.zeros((self.rows, 4))
        self.cur_read = set()

    def features(self, upto: int) -> np.ndarray:
        """(steps, rows, 6) features of frames ``upto-steps .. upto-1`` (zeros for a frame
        not closed)."""
        X = np.zeros((self.steps, self.rows, TinyLSTM.N_IN))
        for s in range(self.steps):
            fr = upto - self.steps + s
            if fr in self.hist:
                h = self.hist[fr]
                tot = h.sum(axis=1, keepdims=True)
                X[s, :, :4] = h / np.maximum(tot, 1)
                X[s, :, 4] = self.motion[fr]
                X[s, :, 5] = tot[:, 0] / max(1.0, h.sum()) * self.rows
        return X


# --------------------------------------------------------------------------------------
# The runtime
# --------------------------------------------------------------------------------------
def _check_config(cfg: RuntimeConfig) -> tuple[int, int]:
    """``(bank_lines, min_tlevel)`` of ``cfg`` as ints, after refusing a switch that would
    otherwise run as something else (a fraction of a line cut off, a string taken as
    True, a watermark outside 0 .. 1 or a gc_low above it, a GC that evicts nothing) with
    ``TypeError`` / ``ValueError``."""
    cap = check_int("bank_lines", cfg.bank_lines, 1)
    thr = check_int("min_tlevel", cfg.min_tlevel, 0, 3)
    for name in ("gate", "frame_boost"):
        if not isinstance(getattr(cfg, name), (bool, np.bool_)):
            raise TypeError(f"{name} must be a bool, not {getattr(cfg, name)!r}")
    # Any other name would run as "last" (no LSTM is built for it).
    if cfg.prefetch not in (None, "lstm", "last"):
        raise ValueError(f'prefetch must be None, "lstm" or "last", not {cfg.prefetch!r}')
    if cfg.watermark is not None:
        _check_fraction("watermark", cfg.watermark, 1.0, "1")
        # A gc_low above the watermark would start the GC at gc_low, not at the watermark.
        _check_fraction("gc_low", cfg.gc_low, cfg.watermark, "watermark")
        check_int("gc_max", cfg.gc_max, 1)
        check_int("gc_retry_cycles", cfg.gc_retry_cycles, 0)
    check_int("prefetch_lines", cfg.prefetch_lines, 0)
    check_int("prefetch_frames", cfg.prefetch_frames, 1)
    check_int("predictor_seed", cfg.predictor_seed, 0)
    check_line_bytes(cfg.latency)
    return cap, thr


def _check_fraction(name: str, value, high: float, high_name: str) -> None:
    """``TypeError`` unless ``value`` is a number (not a bool), ``ValueError`` unless it is
    finite and in ``0 .. high`` (``high_name`` names the bound in the message)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TypeError(f"{name} must be a number, not {value!r}")
    if not (math.isfinite(value) and 0.0 <= value <= high):
        raise ValueError(f"{name} must be 0 .. {high_name}, not {value}")


def check_line_bytes(latency: LatencyModel) -> None:
    """``ValueError`` unless ``latency.line_bytes`` is the workload's line size: the DRAM
    bytes count ``LINE_BYTES`` a fetch, the miss latency ``latency.line_bytes``."""
    if latency.line_bytes != LINE_BYTES:
        raise ValueError(f"latency.line_bytes must be the workload's line size, {LINE_BYTES}, "
                         f"not {latency.line_bytes}")


def _check_stream(acc: Accesses) -> int:
    """The number of accesses of ``acc``, after checking that every per-access array the
    runtime reads has that length (a shorter one would end in an IndexError, a longer one
    would be cut silently)."""
    n = len(acc.addr)
    for name in ("cycle", "is_write", "frame_index", "tag_frame", "tag_row"):
        if len(getattr(acc, name)) != n:
            raise ValueError(f"acc.{name} has {len(getattr(acc, name))} entries for {n} accesses")
    return n


def run_runtime(acc: Accesses, cfg: RuntimeConfig = RuntimeConfig(), *, record: bool = False,
                model=None) -> RuntimeResult:
    """Run the retrieval runtime (module docstring) over ``acc``.

    ``acc``: the access stream; ``cfg``: the runtime's switches; ``record``: also keep the
    request stream sent to the KV-ASU (``RuntimeResult.request_log``); ``model``: the
    KV-ASU golden model to drive, by default a fresh one built from ``cfg.kvasu``.
    Returns a :class:`RuntimeResult` over every access of ``acc``. A switch of ``cfg`` out
    of range or of the wrong type, arrays of ``acc`` of different lengths, or prefetch on a
    stream that is not a video workload raise ``ValueError`` / ``TypeError`` before the run.
    """
    t_start = time.perf_counter()
    cap, thr = _check_config(cfg)
    n = _check_stream(acc)
    video = acc.params is not None and hasattr(acc.params, "grid") and acc.frame_motion is not None
    if cfg.prefetch is not None and not video:
        # The predictor needs the patch grid and the frame motion: without them the run
        # would go on with no prefetch at all under a prefetch label.
        raise ValueError(f"prefetch={cfg.prefetch!r} needs a video workload (acc.params with a "
                         "patch grid and acc.frame_motion)")
    if model is None:
        model = cfg.kvasu.make_model()
    req = model.request
    wm = None if cfg.watermark is None else cfg.watermark * cap
    low = cfg.gc_low * cap
    gate = cfg.gate
    w1c = cfg.kvasu.w1_cycles

    # Python ints of the uint64 cycles: an int64 cast would turn cycles of 2**63 and above
    # negative, which the model refuses.
    cycles = np.asarray(acc.cycle).astype(np.uint64).tolist()
    lines = (acc.addr >> np.uint64(LINE_SHIFT)).astype(np.int64).tolist()
    writes = acc.is_write.tolist()
    frames = acc.frame_index.tolist()
    tf = acc.tag_frame.tolist()
    tr = acc.tag_row.tolist()

    served = np.full(n, 255, dtype=np.uint8)
    read_tl = np.full(n, 255, dtype=np.uint8)
    res_arr = np.zeros(n, dtype=bool)
    bank: OrderedDict = OrderedDict()
    pbank: set = set()
    counts = {"observe": 0, "query": 0, "evict": 0, "evict_any": 0}
    log = ([], [], [], []) if record else None
    reads = bank_hits = pf_hits = misses = resident_reads = gated = 0
    dram = pf_bytes = forced = gc_ev = 0
    max_occ = 0
    gc_block_until = -1
    row_last: dict = {}

    use_pf = cfg.prefetch is not None
    tracker = _RowTracker(acc, cfg) if use_pf else None
    lstm = TinyLSTM(seed=cfg.predictor_seed) if (use_pf and cfg.prefetch == "lstm") else None
    losses: list = []
    cur_frame = None

    def send(c, op, line, mt=0):
        if record:
            log[0].append(c); log[1].append(op); log[2].append(line << LINE_SHIFT); log[3].append(mt)
        return req(c, op, line << LINE_SHIFT, mt)

    for i in range(n):
        c = cycles[i]
        x = lines[i]
        if frames[i] != cur_frame:
            # Frame boundary: close the previous frame, train, prefetch for this one.
            if use_pf:
                if cur_frame is not None:
                    tracker.end_frame(cur_frame)
                f = frames[i]
                # The two frames before this one were seen (from frame 2 on in a stream
                # that starts at frame 0).
                seen = f - 1 in tracker.useful and f - 2 in tracker.useful
                if lstm is not None and seen:
                    Xp = tracker.features(f - 1)
                    lstm.add(Xp, tracker.useful[f - 1])
                    losses.append(lstm.train())
                prob = None
                if seen:
                    prob = lstm.predict(tracker.features(f)) if lstm is not None else tracker.useful[f - 1]
                new = []
                if prob is not None:
                    for r in np.argsort(-prob, kind="stable"):
                        if prob[r] < 0.5 or len(new) >= cfg.prefetch_lines:
                            break
                        new.extend(tracker.candidate_lines(f, int(r)))
                    new = new[:cfg.prefetch_lines]
                pf_bytes += LINE_BYTES * sum(1 for y in new if y not in pbank)
                pbank = set(new)
            cur_frame = frames[i]

        if writes[i]:
            send(c, OBSERVE, x)
            counts["observe"] += 1
            hit_bank = False
        else:
            reads += 1
            r = send(c, QUERY, x, thr)
            counts["query"] += 1
            tl = r.tlevel_before
            if tracker is not None and tr[i] >= 0:
                tracker.cur_hist[tr[i], tl] += 1
            if cfg.frame_boost and tr[i] >= 0 and tl < 3:
                key_f, key_r = tf[i], tr[i]
                a = row_last.get((key_f - 1, key_r), -10**18)
                b = row_last.get((key_f + 1, key_r), -10**18)
                if c - max(a, b) <= w1c:
                    tl += 1
            read_tl[i] = tl
            resident = x in bank
            resident_reads += resident
            res_arr[i] = resident
            if resident and (tl >= thr or not gate):
                served[i] = 1
                bank_hits += 1
                bank.move_to_end(x)
                hit_bank = True
            else:
                if resident:
                    gated += 1
                if x in pbank:
                    served[i] = 2
                    pf_hits += 1
                else:
                    served[i] = 0
                    misses += 1
                    dram += LINE_BYTES
                hit_bank = False
            send(c, OBSERVE, x)
            counts["observe"] += 1
            if tr[i] >= 0:
                row_last[(tf[i], tr[i])] = c
            if tracker is not None:
                tracker.cur_read.add(x)

        if not hit_bank:
            # Install (write-allocate, fill on miss, or refresh a gated resident line).
            if x in bank:
                bank.move_to_end(x)
            else:
                if len(bank) >= cap:
                    bank.popitem(last=False)
                    forced += 1
                bank[x] = None
            if wm is not None and len(bank) > wm and c >= gc_block_until:
                k = 0
                while len(bank) > low and k < cfg.gc_max:
                    rr = send(c, EVICT, 0)
                    counts["evict"] += 1
                    k += 1
                    if not rr.victim_valid:
                        gc_block_until = c + cfg.gc_retry_cycles
                        break
                    v = rr.victim_tag
                    if v in bank:
                        del bank[v]
                        gc_ev += 1
            if len(bank) > max_occ:
                max_occ = len(bank)

    if use_pf and cur_frame is not None:
        tracker.end_frame(cur_frame)
    hits = bank_hits + pf_hits
    res = RuntimeResult(
        served=served, read_tlevel=read_tl, resident=res_arr, reads=reads, hits=hits, bank_hits=bank_hits,
        prefetch_hits=pf_hits, misses=misses, resident_reads=resident_reads, gated_refetches=gated,
        dram_bytes=dram + pf_bytes, prefetch_bytes=pf_bytes, forced_evictions=forced,
        gc_evictions=gc_ev, max_occupancy=max_occ, requests=counts,
        kvasu_stats=stats_dict(model),
        mean_latency=cfg.latency.mean(hits, misses), seconds=time.perf_counter() - t_start,
        predictor_loss=losses,
        request_log=tuple(np.array(a, dtype=np.uint64) for a in log) if record else None,
    )
    return res


def passive_tlevels(acc: Accesses, kvasu: KvAsuConfig = KvAsuConfig()):
    """Feed every access of ``acc`` as an OBSERVE to a fresh KV-ASU built from ``kvasu``
    (the KV-ASU only watching). Returns ``(tlevel_before, tlevel_after, stats)``: two
    uint8 arrays, the T-level before and after each access, and the model's statistics
    as a dict."""
    m = kvasu.make_model()
    n = len(acc)
    if n == 0:
        return np.zeros(0, np.uint8), np.zeros(0, np.uint8), stats_dict(m)
    rs = m.run(acc.cycle, np.zeros(n, np.uint8), acc.addr, np.zeros(n, np.uint8), responses=True)
    before = np.fromiter((r.tlevel_before for r in rs), dtype=np.uint8, count=n)
    after = np.fromiter((r.tlevel for r in rs), dtype=np.uint8, count=n)
    return before, after, stats_dict(m)
