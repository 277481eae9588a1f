# SPDX-License-Identifier: Apache-2.0
"""Teacher-forced throughput and sparse-retrieval cost of the NumPy SmolLM2 decoder.

    python -m evaluation.decoder_bench [--trace-tokens 4096] [--sweep-tokens 2048]
                                       [--budgets 2,4,8,16,32] [--out build/decoder_bench.json]

Prints and writes as JSON:

* the time to write a ``--trace-tokens``-token sparse trace (budget 4) of the training text
  (model time, trace time, requests) and the teacher-forced throughput in tokens per second
  it implies (a teacher-forced pass computes all positions of a layer at once, as a prefill
  does: not an autoregressive decode rate, one position per pass);
* per budget, on the first ``--sweep-tokens`` tokens of the held-out text and of the
  training text: perplexity, and top-1 agreement with the dense run (share of positions
  whose argmax equals dense attention's), and the share of KV lines read relative to dense.

Wall-clock figures depend on the machine and its load; the process CPU time is printed
beside them. The arguments, the output paths and the texts' lengths are checked before the
model runs; bad values and a missing model package are one line ``error: ...`` (exit
status 2), a malformed option argparse's usage message (exit status 2).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from . import decoder as dec
from . import smollm2 as sm


def lines_read(n_tokens: int, budget: int) -> int:
    return sum(dec.reads_per_head(t, budget) for t in range(n_tokens)) * sm.LAYERS * sm.KV_HEADS


TEXTS = {"heldout": dec.HELDOUT_TEXT, "train": dec.TRAIN_TEXT}


def _comma_list(option: str, kind: str, parse, text: str) -> list:
    items = [x.strip() for x in text.split(",")]
    if not all(items):
        raise ValueError(f"{option}: expected a comma-separated list of {kind}, got {text!r}")
    return [parse(x) for x in items]


def budget_list(text: str) -> list[int]:
    """``--budgets``: sparse budgets 1..MAX_BUDGET (the dense run is always the first row);
    ``ValueError`` with a one-line reason."""
    def one(x):
        try:
            b = int(x)
        except ValueError:
            raise ValueError(f"--budgets: {x!r} is not a page budget (an integer)") from None
        if not 1 <= b <= dec.MAX_BUDGET:
            raise ValueError(f"--budgets: budget {b}: the sweep's budgets are 1..{dec.MAX_BUDGET} pages "
                             f"(the dense run, budget 0, is always its first row)")
        return b
    return _comma_list("--budgets", "budgets", one, text)


def text_list(text: str) -> list[str]:
    """``--sweep-texts``: names among :data:`TEXTS`; ``ValueError`` with a one-line reason."""
    def one(x):
        if x not in TEXTS:
            raise ValueError(f"--sweep-texts: unknown text {x!r}: choose from {', '.join(TEXTS)}")
        return x
    return _comma_list("--sweep-texts", "texts", one, text)


@dec.one_line_errors()
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.decoder_bench", description=__doc__.splitlines()[0])
    ap.add_argument("--trace-tokens", type=int, default=4096)
    ap.add_argument("--trace-budget", type=int, default=4, help=f"1..{dec.MAX_BUDGET} pages")
    ap.add_argument("--sweep-tokens", type=int, default=2048)
    ap.add_argument("--budgets", default="2,4,8,16,32", help="sparse budgets of the sweep")
    ap.add_argument("--sweep-texts", default="heldout,train",
                    help=f"texts of the budget sweep ({', '.join(TEXTS)})")
    ap.add_argument("--skip-trace", action="store_true", help="only the budget sweep")
    ap.add_argument("--keep-trace", type=Path, help="keep the benchmark's trace at this path")
    ap.add_argument("--out", type=Path, default=Path("build/decoder_bench.json"))
    args = ap.parse_args(argv)
    # everything that can be checked before the model runs; a bad value is a ValueError,
    # one line (dec.one_line_errors)
    budgets = budget_list(args.budgets)
    args.sweep_texts = text_list(args.sweep_texts)
    for name in ("trace_tokens", "sweep_tokens"):
        if getattr(args, name) < 2:
            raise ValueError(f"--{name.replace('_', '-')} must be at least 2, got {getattr(args, name)}")
    if not 1 <= args.trace_budget <= dec.MAX_BUDGET:
        raise ValueError(f"--trace-budget must be 1..{dec.MAX_BUDGET} pages, got {args.trace_budget}")
    if not args.skip_trace:
        dec.check_request_count(args.trace_tokens, args.trace_budget)
        if args.keep_trace:
            dec.check_distinct({"--keep-trace": args.keep_trace, "--out": args.out})
            dec.check_writable(args.keep_trace, "--keep-trace")
    dec.prepare_output(args.out, "--out")
    sm.gguf_path()                         # a missing model package: one line
    tok = sm.load_tokenizer()
    ids = {}
    if not args.skip_trace:
        ids["trace"] = dec.tokenize(dec.read_text(dec.TRAIN_TEXT), args.trace_tokens, tok, dec.TRAIN_TEXT.name)
    for split in args.sweep_texts:
        ids[split] = dec.tokenize(dec.read_text(TEXTS[split]), args.sweep_tokens, tok, TEXTS[split].name)
    c0, t0 = time.process_time(), time.perf_counter()
    out = {"cpus": os.cpu_count(), "nice": os.nice(0), "load_average_at_start": os.getloadavg(),
           "page_tokens": dec.PAGE_TOKENS}
    w = sm.load_weights()

    def save():
        # the whole run so far (model loading included): wall and CPU time, peak memory
        out.update(wall_seconds=time.perf_counter() - t0, cpu_seconds=time.process_time() - c0,
                   peak_rss_bytes=peak_rss(), load_average_at_end=os.getloadavg())
        args.out.parent.mkdir(parents=True, exist_ok=True)
        dec.write_replacing(args.out, json.dumps(out, indent=1))   # (a failed write keeps the last)

    # ---- trace-writing time ----
    if not args.skip_trace:
        trace_time(args, ids["trace"], w, out)
        save()
    # ---- budget sweep ----
    out["sweep"] = {}
    for split in args.sweep_texts:
        out["sweep"][split] = budget_sweep(TEXTS[split], ids[split], budgets, w)
        save()
    print(f"wrote {args.out}")
    return 0


def peak_rss() -> int:
    """Peak resident memory of this process so far, in bytes (Linux reports KiB)."""
    kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return kib * (1 if sys.platform == "darwin" else 1024)


def trace_time(args, ids, w, out) -> None:
    c0, t0 = time.process_time(), time.perf_counter()
    run = dec.run_model(ids, args.trace_budget, w, progress=lambda li: print(
        f"  layer {li + 1}/{sm.LAYERS} ({time.perf_counter() - t0:.0f} s)", file=sys.stderr, flush=True))
    t1 = time.perf_counter()
    with tempfile.TemporaryDirectory() as td:
        path = args.keep_trace or Path(td) / "bench.npz"
        meta = dec.write_decoder_trace(path, run, dec.text_meta(dec.TRAIN_TEXT, dec.read_text(dec.TRAIN_TEXT)))
        size = path.stat().st_size
    t2, c2 = time.perf_counter(), time.process_time()
    out["trace"] = {"tokens": args.trace_tokens, "budget": args.trace_budget, "model_seconds": t1 - t0,
                    "trace_seconds": t2 - t1, "total_seconds": t2 - t0, "cpu_seconds": c2 - c0,
                    "tokens_per_second": args.trace_tokens / (t1 - t0), "requests": meta["requests"],
                    "file_bytes": size, "perplexity": run.perplexity, "peak_rss_bytes": peak_rss()}
    print(f"{args.trace_tokens}-token sparse trace (budget {args.trace_budget}): model {t1 - t0:.1f} s "
          f"({args.trace_tokens / (t1 - t0):.1f} tokens/s), trace {t2 - t1:.1f} s, total {t2 - t0:.1f} s "
          f"wall / {c2 - c0:.1f} s CPU; {meta['requests']} requests, {size / 2**20:.0f} MiB", flush=True)


def budget_sweep(tp: Path, ids, budgets, w) -> dict:
    """Perplexity and top-1 agreement with dense attention per budget, on the token ids
    ``ids`` of the text ``tp``."""
    dense = dec.run_model(ids, 0, w)
    rows = [{"budget": 0, "perplexity": dense.perplexity, "top1_agreement": 1.0, "read_share": 1.0,
             "seconds": dense.seconds, "tokens_per_second": len(ids) / dense.seconds}]
    print(f"{tp.name} ({len(ids)} tokens): dense perplexity {dense.perplexity:.3f} "
          f"({len(ids) / dense.seconds:.1f} tokens/s)", flush=True)
    full = lines_read(len(ids), 0)
    for b in budgets:
        r = dec.run_model(ids, b, w)
        row = {"budget": b, "budget_tokens": b * dec.PAGE_TOKENS, "perplexity": r.perplexity,
               "top1_agreement": float(np.mean(r.top1 == dense.top1)),
               "read_share": lines_read(len(ids), b) / full, "seconds": r.seconds,
               "tokens_per_second": len(ids) / r.seconds}
        rows.append(row)
        print(f"  budget {b:3d} pages ({b * dec.PAGE_TOKENS} tokens): perplexity {r.perplexity:.3f}, "
              f"top-1 agreement with dense {row['top1_agreement']:.4f}, lines read {row['read_share']:.3f} of dense "
              f"({row['tokens_per_second']:.1f} tokens/s)", flush=True)
    return {"file": tp.name, "tokens": len(ids), "rows": rows}


if __name__ == "__main__":
    sys.exit(main())
