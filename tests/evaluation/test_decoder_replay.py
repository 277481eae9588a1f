# SPDX-License-Identifier: Apache-2.0
"""A real-decoder trace through the Verilated RTL (``verif.replay``): every response and
statistic equal to the golden model's.

The trace is a short piece of the cached SmolLM2 sparse run of the held-out text: its
last 2500 line accesses (decode steps with Quest-selected pages), about 5000 requests,
written with the decoder's own trace writer. It replays on the fast harness's small
configuration (16 entries, 32-bit addresses: the decoder's address map fits), which keeps
the Verilator build small and shares it with verif/test_fast.py; a full-size trace is
replayed by hand with ``python -m verif.replay`` (docs/decoder.md).
"""

from __future__ import annotations

from evaluation import decoder as dec
from golden_model.trace import load_trace, save_trace
from verif.replay import replay
from verif.soak import CONFIGS


def test_real_decoder_trace_replays_clean_on_the_rtl(tmp_path, fast_build_root):
    acc = dec.tail(dec.cached_accesses("heldout", sparse=True), 2500)
    cycle, op, addr, mt = dec.trace_requests(acc)
    path = tmp_path / "decoder.npz"
    save_trace(path, cycle, op, addr, mt, meta={"description": "SmolLM2 sparse decode, cached selection, tail"})
    assert 4000 < len(load_trace(path)) < 6000
    params = CONFIGS["small"]
    assert int(addr.max()) < 2 ** params.ADDR_WIDTH
    s = replay(path, params, fast_build_root / "small")   # raises fast.Mismatch on any difference
    assert s["requests"] == len(cycle)
    assert s["rtl_stats"] == s["model_stats"] and s["rtl_occupancy"] == s["model_occupancy"]
    assert s["model_stats"]["queries"] == int(acc.reads.sum())
    assert s["model_stats"]["observes"] == len(acc)
