# SPDX-License-Identifier: Apache-2.0
"""Streaming video-LLM KV-cache workload generator.

This module produces the *accesses* a streaming video LLM makes to its KV cache: which
256-byte lines are read or written, at which cycle, and which visual token
``(frame, row, col)`` each line belongs to. It knows nothing about the KV-ASU; turning
accesses into QUERY / OBSERVE / EVICT requests is the job of the retrieval-runtime model
(:mod:`evaluation.runtime`), except for :func:`video_kv_requests`, a fixed, open-loop
request stream for the RTL simulation (``make sim``) that needs no golden model.

Model of the workload (every number is a field of :class:`VideoKVParams`):

* **Tokens.** ``sink_tokens`` attention-sink tokens come first. Every frame then adds
  ``rows * cols`` visual tokens (the patch grid, ``rows = round(height / patch_px)``,
  ``cols = round(width / patch_px)``), followed by ``decode_steps_per_frame`` text tokens
  generated for that frame. Token ids are assigned in that order.
* **Layout.** One *KV block* holds the K and V vectors of one token for one layer and one
  KV head (``bytes_per_kv_block`` bytes, default 256 = head_dim 64 x FP16 x {K, V}). The
  cache is one array ``[layer][head][token]`` of blocks starting at ``base_addr``::

      addr(layer, head, token) = base_addr
          + ((layer * heads + head) * max_tokens + token) * bytes_per_kv_block

  A block read touches every 256-byte line it overlaps (one access per line, in address
  order); if blocks are smaller than a line, neighbouring tokens share a line.
* **Per frame, in this order.** Prefill (if ``prefill``): for each layer, the KV blocks of
  the frame's visual tokens are written (all heads), then, head by head, each visual token
  of the frame in raster order is a query that reads its sparse selection:

  - the attention sinks;
  - its own frame: the ``(2*region_radius+1)**2`` neighbourhood, causally (raster index
    not after its own, itself included);
  - each of the ``nearby_frames`` previous frames: the neighbourhood around the position
    the token came from in that frame, found by undoing the motion (see below).

  Then ``decode_steps_per_frame`` decode steps: each writes its text token's blocks
  (all heads) and, layer by layer and head by head, reads the sinks, every visual token of
  the last ``recent_frames`` frames (this one included) and the text tokens of those
  frames generated so far.
* **Motion.** Every frame ``f`` has a global motion vector ``g_f`` and every visual token
  a local motion vector ``l_f[r, c]``, both normal with standard deviation
  ``motion_std_px`` pixels per axis per frame (``motion_std`` in the article's tuning rule
  is this number). The token at ``(r, c)`` of frame ``f`` came from pixel position
  ``(r, c) * patch_px - sum_{j=0}^{k-1} (g_{f-j} + l_{f-j}[r, c])`` of frame ``f-k``,
  rounded to a patch and clipped to the grid. With no motion every query reads the same
  region in every nearby frame; the more motion, the more the regions wander and the less
  neighbouring queries share.
* **Time.** Accesses of a frame are issued back to back, one every
  ``access_interval_cycles`` cycles, starting at the frame's start cycle
  ``f * cycles_per_frame`` (or right after the previous frame's last access if that is
  later). ``cycles_per_frame = clock_mhz * 1e6 / fps`` unless ``frame_period_cycles``
  overrides it (time-compressed traces for simulation). The schedule is open loop: it
  does not depend on hits or misses.

All randomness comes from ``numpy.random.default_rng(seed)``.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from regmap.arguments import check_int

#: Line size (bytes) the KV-ASU's default ``LINE_SHIFT = 8`` implies.
LINE_SHIFT = 8
LINE_BYTES = 1 << LINE_SHIFT

# Op codes of the KV-ASU request stream (spec section 6); same values as golden_model.Op.
OBSERVE, QUERY, EVICT, EVICT_ANY = 0, 1, 2, 3

# Access kinds.
KIND_PREFILL_READ = 0
KIND_DECODE_READ = 1
KIND_WRITE = 2


@dataclass(frozen=True)
class VideoKVParams:
    """Every knob of the streaming-video KV workload (see the module docstring)."""

    #: Number of video frames streamed.
    frames: int = 16
    #: Video frame rate (frames per second).
    fps: float = 30.0
    #: Clock of the memory controller the KV-ASU sits beside (MHz); sets cycles per frame.
    clock_mhz: float = 1000.0
    #: If set, the frame period in cycles, overriding ``clock_mhz * 1e6 / fps``
    #: (time-compressed traces, e.g. for RTL simulation).
    frame_period_cycles: int | None = None
    #: Frame resolution in pixels, ``(width, height)``.
    resolution: tuple[int, int] = (1920, 1080)
    #: Pixels per visual token along each axis (after the vision encoder's patching and
    #: token merging); the patch grid is ``round(height/patch_px) x round(width/patch_px)``.
    patch_px: int = 120
    #: Transformer layers whose KV cache is modelled.
    layers: int = 2
    #: KV heads per layer.
    heads: int = 2
    #: Bytes of one KV block (K and V of one token, one layer, one KV head).
    bytes_per_kv_block: int = 256
    #: Address of the first KV block.
    base_addr: int = 0x1_0000_0000
    #: Attention-sink tokens at the start of the stream, read by every query.
    sink_tokens: int = 4
    #: Whether each frame's visual tokens are prefilled (queries with sparse attention).
    prefill: bool = True
    #: Text tokens decoded per frame (each one a decode step).
    decode_steps_per_frame: int = 4
    #: Decode steps read every visual token of this many most recent frames (current one
    #: included).
    recent_frames: int = 1
    #: Prefill queries read the corresponding region in this many previous frames.
    nearby_frames: int = 4
    #: Radius (in patches) of the neighbourhood a prefill query reads in each frame.
    region_radius: int = 1
    #: Standard deviation of global and of per-token motion, pixels per axis per frame.
    motion_std_px: float = 8.0
    #: Cycles between consecutive accesses of a frame (1 = one line request per cycle).
    access_interval_cycles: int = 1
    #: Seed of all randomness.
    seed: int = 0

    # ----- derived quantities -----
    @property
    def grid(self) -> tuple[int, int]:
        """Patch grid ``(rows, cols)``."""
        w, h = self.resolution
        return max(1, round(h / self.patch_px)), max(1, round(w / self.patch_px))

    @property
    def tokens_per_frame(self) -> int:
        r, c = self.grid
        return r * c

    @property
    def cycles_per_frame(self) -> int:
        if self.frame_period_cycles is not None:
            return int(self.frame_period_cycles)
        return int(round(self.clock_mhz * 1e6 / self.fps))

    @property
    def max_tokens(self) -> int:
        return self.sink_tokens + self.frames * (self.tokens_per_frame + self.decode_steps_per_frame)

    @property
    def lines_per_block(self) -> int:
        return max(1, -(-self.bytes_per_kv_block // LINE_BYTES))

    def token_id(self, frame: int, row: int, col: int) -> int:
        """Token id of visual token ``(frame, row, col)``."""
        _, cols = self.grid
        return self.sink_tokens + frame * (self.tokens_per_frame + self.decode_steps_per_frame) + row * cols + col

    def text_token_id(self, frame: int, step: int) -> int:
        """Token id of the text token decoded at ``step`` of ``frame``."""
        return self.sink_tokens + frame * (self.tokens_per_frame + self.decode_steps_per_frame) + self.tokens_per_frame + step

    def block_addr(self, layer, head, token):
        """Byte address of a KV block (works on NumPy arrays too)."""
        return self.base_addr + ((layer * self.heads + head) * self.max_tokens + token) * self.bytes_per_kv_block

    def replace(self, **changes) -> "VideoKVParams":
        return dataclasses.replace(self, **changes)

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["resolution"] = list(self.resolution)
        return d

    def __post_init__(self):
        # Refused here, not found as a wrong trace later: a float where a count belongs, a
        # NaN or a zero frame rate, addresses or cycles beyond what the int64 arithmetic of
        # generate_accesses holds exactly.
        counts = {"frames": 1, "layers": 1, "heads": 1, "patch_px": 1, "bytes_per_kv_block": 1,
                  "access_interval_cycles": 1, "sink_tokens": 0, "decode_steps_per_frame": 0,
                  "recent_frames": 0, "nearby_frames": 0, "region_radius": 0, "seed": 0,
                  "base_addr": 0}
        if self.frame_period_cycles is not None:
            counts["frame_period_cycles"] = 0
        for name, low in counts.items():
            check_int(name, getattr(self, name), low)
        for name in ("fps", "clock_mhz"):
            if not math.isfinite(getattr(self, name)) or getattr(self, name) <= 0:
                raise ValueError(f"{name} must be a finite number > 0, not {getattr(self, name)}")
        if not math.isfinite(self.motion_std_px) or self.motion_std_px < 0:
            raise ValueError(f"motion_std_px must be a finite number >= 0, not {self.motion_std_px}")
        if (len(self.resolution) != 2
                or not all(math.isfinite(v) and v > 0 for v in self.resolution)):
            raise ValueError(f"resolution must be (width, height) > 0, not {self.resolution}")
        if not self.prefill and self.decode_steps_per_frame == 0:
            raise ValueError("no access at all: prefill is off and decode_steps_per_frame is 0")
        end = self.base_addr + self.layers * self.heads * self.max_tokens * self.bytes_per_kv_block
        if end + LINE_BYTES > 2**63:
            raise ValueError(f"the KV cache's addresses, base_addr {self.base_addr:#x} to "
                             f"{end:#x}, must stay below 2**63")
        if self.frames * self.cycles_per_frame >= 2**62:
            raise ValueError(f"{self.frames} frames of {self.cycles_per_frame} cycles do not "
                             "fit the 63-bit cycles of a trace")


#: Named parameter sets. ``small`` is the built-in trace of ``make sim``.
PRESETS: dict[str, VideoKVParams] = {
    # ~8 frames, ~30k requests from video_kv_requests(); frames compressed to 16384 cycles
    # so the simulation also crosses idle gaps longer than the timestamp range.
    "small": VideoKVParams(
        frames=8, resolution=(768, 512), patch_px=128, layers=2, heads=2, sink_tokens=2,
        decode_steps_per_frame=2, recent_frames=1, nearby_frames=2, region_radius=1,
        motion_std_px=16.0, frame_period_cycles=16384, seed=1,
    ),
    # The article's 1080p@30fps stream, 1 GHz controller clock (real time: 33.3 M cycles
    # per frame).
    "1080p30": VideoKVParams(),
    "720p30": VideoKVParams(resolution=(1280, 720)),
    "480p30": VideoKVParams(resolution=(854, 480)),
}


def preset(name: str, **overrides) -> VideoKVParams:
    """A named preset, optionally with some fields replaced."""
    return PRESETS[name].replace(**overrides)


@dataclass
class Accesses:
    """The raw workload: one row per 256-byte line access, in issue order."""

    cycle: np.ndarray  #: uint64 issue cycle (non-decreasing)
    addr: np.ndarray  #: uint64 byte address of the line (256-byte aligned)
    is_write: np.ndarray  #: bool, KV write (new token) rather than read
    kind: np.ndarray  #: uint8, KIND_PREFILL_READ / KIND_DECODE_READ / KIND_WRITE
    frame_index: np.ndarray  #: int32, frame being processed when the access is made
    layer: np.ndarray  #: int16
    head: np.ndarray  #: int16
    token: np.ndarray  #: int32 token id of the block
    tag_frame: np.ndarray  #: int32 frame of the token read (-1 for sinks)
    tag_row: np.ndarray  #: int16 patch row of the token read (-1 for sink / text tokens)
    tag_col: np.ndarray  #: int16 patch column (-1 for sink / text tokens)
    params: VideoKVParams = field(repr=False, default=None)
    #: float, per frame: mean motion-vector magnitude (pixels) of the frame's tokens, what a
    #: codec's motion vectors would tell the runtime (None for non-video workloads).
    frame_motion: np.ndarray | None = field(repr=False, default=None)

    def __len__(self) -> int:
        return len(self.cycle)

    def first(self, n: int) -> "Accesses":
        """The first ``n`` accesses."""
        kw = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        for k, v in kw.items():
            if isinstance(v, np.ndarray) and k != "frame_motion":
                kw[k] = v[:n]
        return Accesses(**kw)

    @property
    def line(self) -> np.ndarray:
        return self.addr >> np.uint64(LINE_SHIFT)

    @property
    def reads(self) -> np.ndarray:
        return ~self.is_write


def _neigh_offsets(radius: int) -> np.ndarray:
    d = np.arange(-radius, radius + 1)
    dr, dc = np.meshgrid(d, d, indexing="ij")
    return np.stack([dr.ravel(), dc.ravel()], axis=1)


def generate_accesses(params: VideoKVParams) -> Accesses:
    """Generate the raw KV-cache access stream described in the module docstring."""
    p = params
    rng = np.random.default_rng(p.seed)
    rows, cols = p.grid
    P = rows * cols
    off = _neigh_offsets(p.region_radius)
    rr, cc = np.divmod(np.arange(P), cols)  # raster position of each visual token

    sinks = np.arange(p.sink_tokens, dtype=np.int64)
    glob_hist: list[np.ndarray] = []  # global motion per frame (2,)
    loc_hist: list[np.ndarray] = []  # local motion per frame (P, 2)

    # Per-frame token layout helpers.
    def vis_ids(frame: int) -> np.ndarray:
        return p.sink_tokens + frame * (P + p.decode_steps_per_frame) + np.arange(P, dtype=np.int64)

    per_frame_chunks: list[list[tuple[np.ndarray, int, int, int]]] = []
    for f in range(p.frames):
        glob_hist.append(rng.normal(0.0, p.motion_std_px, size=2))
        loc_hist.append(rng.normal(0.0, p.motion_std_px, size=(P, 2)))
        fchunks: list[tuple[np.ndarray, int, int, int]] = []  # (tokens, layer, head, kind)

        if p.prefill:
            # Query selections are the same for every layer and head: build them once.
            own = vis_ids(f)
            sel: list[np.ndarray] = []
            disp = np.zeros((P, 2))
            centres = []  # centre (row, col) in frame f-k, k = 1..K
            for k in range(1, p.nearby_frames + 1):
                if f - k < 0:
                    break
                disp = disp + glob_hist[f - k + 1][None, :] + loc_hist[f - k + 1]
                cr = np.clip(np.rint(rr - disp[:, 0] / p.patch_px), 0, rows - 1).astype(np.int64)
                ccol = np.clip(np.rint(cc - disp[:, 1] / p.patch_px), 0, cols - 1).astype(np.int64)
                centres.append((f - k, cr, ccol))
            for q in range(P):
                parts = [sinks]
                nr, nc = rr[q] + off[:, 0], cc[q] + off[:, 1]
                ok = (nr >= 0) & (nr < rows) & (nc >= 0) & (nc < cols)
                idx = nr[ok] * cols + nc[ok]
                idx = np.sort(idx[idx <= q])
                parts.append(own[idx])
                for (fk, cr, ccol) in centres:
                    nr, nc = cr[q] + off[:, 0], ccol[q] + off[:, 1]
                    ok = (nr >= 0) & (nr < rows) & (nc >= 0) & (nc < cols)
                    parts.append(vis_ids(fk)[np.sort(nr[ok] * cols + nc[ok])])
                sel.append(np.concatenate(parts))
            prefill_reads = np.concatenate(sel)
            for layer in range(p.layers):
                for head in range(p.heads):
                    fchunks.append((own, layer, head, KIND_WRITE))
                for head in range(p.heads):
                    fchunks.append((prefill_reads, layer, head, KIND_PREFILL_READ))

        for step in range(p.decode_steps_per_frame):
            tok = p.text_token_id(f, step)
            parts = [sinks]
            for fr in range(max(0, f - p.recent_frames + 1), f + 1):
                parts.append(vis_ids(fr))
                n_text = p.decode_steps_per_frame if fr < f else step  # generated so far
                parts.append(p.sink_tokens + fr * (P + p.decode_steps_per_frame) + P + np.arange(n_text, dtype=np.int64))
            dec = np.concatenate(parts)
            for layer in range(p.layers):
                fchunks.append((np.array([tok]), layer, -1, KIND_WRITE))  # all heads
                for head in range(p.heads):
                    fchunks.append((dec, layer, head, KIND_DECODE_READ))
        per_frame_chunks.append(fchunks)

    # Flatten into arrays.
    cols_tok, cols_layer, cols_head, cols_kind, cols_frame = [], [], [], [], []
    for f, fchunks in enumerate(per_frame_chunks):
        for tokens, layer, head, kind in fchunks:
            if head == -1:  # a write to every head
                n = len(tokens)
                cols_tok.append(np.tile(tokens, p.heads))
                cols_head.append(np.repeat(np.arange(p.heads), n))
                n *= p.heads
            else:
                n = len(tokens)
                cols_tok.append(tokens)
                cols_head.append(np.full(n, head))
            cols_layer.append(np.full(n, layer))
            cols_kind.append(np.full(n, kind))
            cols_frame.append(np.full(n, f))
    token = np.concatenate(cols_tok).astype(np.int64)
    layer = np.concatenate(cols_layer).astype(np.int64)
    head = np.concatenate(cols_head).astype(np.int64)
    kind = np.concatenate(cols_kind).astype(np.uint8)
    frame = np.concatenate(cols_frame).astype(np.int64)

    # Expand blocks into lines.
    block = p.block_addr(layer, head, token)
    first = block >> LINE_SHIFT
    last = (block + p.bytes_per_kv_block - 1) >> LINE_SHIFT
    nlines = (last - first + 1).astype(np.int64)
    rep = np.repeat(np.arange(len(block)), nlines)
    within = np.arange(len(rep)) - np.repeat(np.cumsum(nlines) - nlines, nlines)
    line = first[rep] + within
    token, layer, head, kind, frame = token[rep], layer[rep], head[rep], kind[rep], frame[rep]
    if p.bytes_per_kv_block < LINE_BYTES:
        # Consecutive accesses of one query to tokens sharing a line are one line read.
        keep = np.ones(len(line), dtype=bool)
        keep[1:] = ~((line[1:] == line[:-1]) & (kind[1:] == kind[:-1]))
        line, token, layer, head, kind, frame = (a[keep] for a in (line, token, layer, head, kind, frame))

    # Timing: back to back from each frame's start.
    n = len(line)
    cycle = np.empty(n, dtype=np.int64)
    period = p.cycles_per_frame
    starts = np.searchsorted(frame, np.arange(p.frames), side="left")
    ends = np.append(starts[1:], n)
    t_free = 0
    for f in range(p.frames):
        s, e = starts[f], ends[f]
        t0 = max(f * period, t_free)
        t_free = t0 + int(e - s) * p.access_interval_cycles     # (Python ints: no overflow)
        if t_free >= 2**63:
            raise ValueError(f"frame {f}'s accesses, {p.access_interval_cycles} cycles apart, "
                             "end after cycle 2**63: the cycles do not fit a trace")
        cycle[s:e] = t0 + np.arange(e - s) * p.access_interval_cycles

    # Tags of the token read.
    rel = token - p.sink_tokens
    tag_frame = np.where(token < p.sink_tokens, -1, rel // (P + p.decode_steps_per_frame))
    pos = rel % (P + p.decode_steps_per_frame)
    visual = (token >= p.sink_tokens) & (pos < P)
    tag_row = np.where(visual, pos // cols, -1)
    tag_col = np.where(visual, pos % cols, -1)

    return Accesses(
        cycle=cycle.astype(np.uint64),
        addr=(line << LINE_SHIFT).astype(np.uint64),
        is_write=kind == KIND_WRITE,
        kind=kind,
        frame_index=frame.astype(np.int32),
        layer=layer.astype(np.int16),
        head=head.astype(np.int16),
        token=token.astype(np.int32),
        tag_frame=tag_frame.astype(np.int32),
        tag_row=tag_row.astype(np.int16),
        tag_col=tag_col.astype(np.int16),
        params=p,
        frame_motion=np.array([np.mean(np.hypot(*(g[None, :] + l).T)) for g, l in zip(glob_hist, loc_hist)]),
    )


def generate_video_kv_trace(params: VideoKVParams):
    """The passive view: every access as an OBSERVE request.

    Returns ``(cycle, op, addr, min_tlevel, frame_index)`` NumPy arrays (uint64, uint8,
    uint64, uint8, int32): what a KV-ASU that only watches the memory-request stream sees.
    """
    a = generate_accesses(params)
    n = len(a)
    return a.cycle, np.zeros(n, np.uint8), a.addr, np.zeros(n, np.uint8), a.frame_index


def video_kv_requests(params: VideoKVParams | None = None, *, min_tlevel: int = 2,
                      evict_every: int = 64, gc_burst: int = 8):
    """A ready KV-ASU request stream (for ``make sim``), open loop, no golden model needed.

    For every KV read: ``QUERY(min_tlevel)`` then ``OBSERVE`` of the line (the retrieval
    runtime asks before it reads, and the controller sees the read). For every KV write: an
    ``OBSERVE``. After every ``evict_every`` reads: one ``EVICT`` (background GC). At each
    frame start: ``gc_burst`` ``EVICT`` requests and one ``EVICT_ANY`` (the watermark GC
    burst). EVICT requests carry the line address of the access they precede (the block
    ignores it) and ``min_tlevel = 0``.

    Requests are issued one per cycle at most: a request's cycle is its access's cycle, or
    the cycle after the previous request if that is later. Default ``params`` is the
    ``small`` preset (about 30k requests over 8 frames).

    Returns ``(cycle, op, addr, min_tlevel, frame_index)`` NumPy arrays (uint64, uint8,
    uint64, uint8, int32).
    """
    if params is None:
        params = PRESETS["small"]
    for name, value, low, high in (("min_tlevel", min_tlevel, 0, 3),
                                   ("evict_every", evict_every, 1, None),
                                   ("gc_burst", gc_burst, 0, None)):
        check_int(name, value, low, high)
    a = generate_accesses(params)
    cyc = a.cycle.astype(np.int64)
    # Number of requests per access: GC burst before the frame's first access, EVICT every
    # evict_every reads (after the read), QUERY+OBSERVE per read, OBSERVE per write.
    first_of_frame = np.ones(len(a), dtype=bool)
    first_of_frame[1:] = a.frame_index[1:] != a.frame_index[:-1]
    read_no = np.cumsum(a.reads)
    periodic = a.reads & (read_no % evict_every == 0)
    # Build per-access request templates in vectorised blocks of ops.
    n_req = first_of_frame * (gc_burst + 1) + np.where(a.reads, 2, 1) + periodic
    total = int(n_req.sum())
    op = np.empty(total, np.uint8)
    mt = np.zeros(total, np.uint8)
    idx = np.repeat(np.arange(len(a)), n_req)
    starts = np.cumsum(n_req) - n_req
    pos = np.arange(total) - starts[idx]  # position within the access's requests
    gc = np.where(first_of_frame, gc_burst + 1, 0)[idx]
    k = pos - gc  # position after the GC burst
    is_read = a.reads[idx]
    op[:] = OBSERVE
    op[(pos < gc) & (pos < gc - 1)] = EVICT
    op[(pos < gc) & (pos == gc - 1)] = EVICT_ANY
    op[(pos >= gc) & is_read & (k == 0)] = QUERY
    mt[(pos >= gc) & is_read & (k == 0)] = min_tlevel
    op[(pos >= gc) & is_read & (k == 2)] = EVICT
    addr = a.addr[idx]
    # Issue times: at the access cycle, one request per cycle at most.
    want = cyc[idx]
    # cycle_i = max(want_i, cycle_{i-1} + 1)  <=>  cycle_i = i + cummax(want_j - j)
    ar = np.arange(total, dtype=np.int64)
    cycle = ar + np.maximum.accumulate(want - ar)
    return (cycle.astype(np.uint64), op, addr.astype(np.uint64), mt, a.frame_index[idx].astype(np.int32))


def write_trace(path, params: VideoKVParams | None = None, **request_options) -> int:
    """Write :func:`video_kv_requests` to ``path`` (``.npz``) with
    ``golden_model.trace.save_trace``; ``meta`` holds the parameters. Returns the number
    of requests."""
    from golden_model.trace import save_trace  # imported lazily: the generator needs no model

    if params is None:
        params = PRESETS["small"]
    cycle, op, addr, mt, frame = video_kv_requests(params, **request_options)
    meta = {
        "generator": "evaluation.workload.video_kv_requests",
        "params": params.to_dict(),
        "request_options": request_options,
        "frames": int(params.frames),
        "requests": int(len(cycle)),
    }
    save_trace(path, cycle, op, addr, mt, meta=json.loads(json.dumps(meta)))
    return len(cycle)


def describe(params: VideoKVParams) -> str:
    """One-line human description of a parameter set."""
    r, c = params.grid
    return (f"{params.resolution[0]}x{params.resolution[1]}@{params.fps:g}fps, grid {r}x{c}, "
            f"{params.frames} frames, {params.layers}L x {params.heads}H, motion_std={params.motion_std_px:g}px, "
            f"seed={params.seed}")


def main(argv=None) -> int:
    """``python -m evaluation.workload [PRESET] [--trace FILE]``: print a preset's size (its
    accesses, distinct lines, requests and the cycle of the last one); with ``--trace``
    also write its request stream as a golden-model trace (:func:`write_trace`), for
    ``python -m verif.replay`` or ``python -m evaluation.compare``."""
    import argparse
    from pathlib import Path

    from regmap.arguments import check_writable

    ap = argparse.ArgumentParser(prog="python -m evaluation.workload",
                                 description=main.__doc__.splitlines()[0])
    ap.add_argument("preset", nargs="?", default="small", choices=list(PRESETS))
    ap.add_argument("--trace", type=Path, default=None, metavar="FILE",
                    help="write the request stream to FILE (.npz)")
    args = ap.parse_args(argv)
    if args.trace is not None:    # refused now, not after the work ("" is the folder ".")
        if not args.trace.is_dir() and not args.trace.parent.is_dir():
            ap.error(f"--trace {args.trace}: no such folder to write it in")
        check_writable(args.trace, "--trace")
    prm = PRESETS[args.preset]
    acc = generate_accesses(prm)
    req = video_kv_requests(prm)
    print(describe(prm))
    print(f"accesses={len(acc)} reads={int(acc.reads.sum())} distinct lines={len(np.unique(acc.addr))}"
          f" requests={len(req[0])} last cycle={int(req[0][-1])}")
    if args.trace is not None:
        n = write_trace(args.trace, prm)
        print(f"wrote {n} requests to {args.trace}")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
