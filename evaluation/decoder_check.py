# SPDX-License-Identifier: Apache-2.0
"""Check of the NumPy SmolLM2 (``evaluation.smollm2``) against Hugging Face ``transformers``
(CPU torch) loading the same GGUF file.

    python -m evaluation.decoder_check [--positions 256] [--ppl-tokens 4096] [--out build/decoder_check.json]

What the two implementations share: the file, and the dequantisation: ``transformers``
(``load_gguf_checkpoint``) dequantises the tensors with the same ``gguf`` package function,
``gguf.dequantize``, that :mod:`evaluation.smollm2` calls, so this check does not test the
dequantisation (``tests/evaluation/test_smollm2.py`` decodes Q4_1 and Q8_0 blocks of the
real file by hand for that). What differs: ``transformers`` undoes llama.cpp's q/k row
permutation itself, runs its own Llama code (``rotate_half`` RoPE, its own attention, K and V
in float32) and builds its own tokenizer from the GGUF metadata.

The check compares, on the first ``--positions`` tokens of each shipped text (the NumPy
tokenizer's ids, fed to both models), the logits: largest absolute difference and top-1
agreement. The NumPy forward pass of this comparison runs with query chunks of
:data:`QUERY_CHUNK` and logits chunks of :data:`LOGITS_CHUNK` positions (instead of 256 and
512), so that the positions compared (256 by default) span several attention chunks
(queries of a chunk after the first read keys of the earlier chunks, the path of every
longer run) and several logits chunks. It **fails** (exit status 1, one line per failure)
if on a text the largest absolute logit difference exceeds :data:`MAX_LOGIT_DIFF` or the
top-1 agreement is below :data:`MIN_TOP1`. It also records whether the two tokenizers give the same ids (they do
not: ``transformers`` ignores ``tokenizer.ggml.pre`` and does not split digits, so this is
reported, not checked) and the NumPy model's perplexity over the first ``--ppl-tokens``
tokens (dense, default chunks). Without torch or transformers (``make decoder-check``
installs them) or the model package it stops in one line (exit status 2). Not part of
``make test``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from . import decoder as dec
from . import smollm2 as sm

#: Fail above this largest absolute logit difference on a text (the measured figures are in
#: docs/eval/decoder_check.json; logits have a standard deviation of about 7.5).
MAX_LOGIT_DIFF = 0.2
#: Fail below this top-1 agreement on a text.
MIN_TOP1 = 0.98
#: Query rows per attention chunk and positions per logits chunk of the compared NumPy run.
QUERY_CHUNK = 64
LOGITS_CHUNK = 96
HINT = "run make decoder-check"


def failures(texts: dict) -> list[str]:
    """One line per failed criterion of the per-text records of a check."""
    out = []
    for split, r in texts.items():
        if not r["max_abs_logit_diff"] <= MAX_LOGIT_DIFF:
            out.append(f"{split} ({r['file']}): max |logit diff| {r['max_abs_logit_diff']:.4g} > {MAX_LOGIT_DIFF} "
                       f"over {r['positions']} positions")
        if not r["top1_agreement"] >= MIN_TOP1:
            out.append(f"{split} ({r['file']}): top-1 agreement {r['top1_agreement']:.4f} < {MIN_TOP1} "
                       f"over {r['positions']} positions")
    return out


def missing_dependency(error: ImportError) -> str:
    """What a failed import of torch or transformers (or of a package either imports, such
    as ``huggingface_hub``) lacks, naming that package rather than claiming torch and
    transformers are missing."""
    name = (error.name or "").split(".")[0]
    if name in ("torch", "transformers"):
        return f"the check needs torch and transformers: {name} is not installed ({error})"
    if name:
        return (f"the check needs torch and transformers with their dependencies: {name} "
                f"cannot be imported ({error})")
    return f"the check needs torch and transformers, whose import failed ({error})"


@dec.one_line_errors(HINT)
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evaluation.decoder_check", description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=256, help="positions whose logits are compared (2..1024)")
    ap.add_argument("--ppl-tokens", type=int, default=4096, help="tokens of the perplexity run (at most the text's)")
    ap.add_argument("--out", type=Path, default=Path("build/decoder_check.json"))
    args = ap.parse_args(argv)
    if not 2 <= args.positions <= 1024:
        raise ValueError(f"--positions must be 2..1024, got {args.positions}")
    if args.ppl_tokens < 2:
        raise ValueError(f"--ppl-tokens must be at least 2 (a text's length caps it), got {args.ppl_tokens}")
    dec.check_output(args.out, "--out")         # (its folder is made after the imports)
    try:
        import torch
        import transformers
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as e:
        raise ImportError(missing_dependency(e)) from None
    path = sm.gguf_path()
    dec.prepare_output(args.out, "--out")      # (the folder made once the check can run)

    torch.set_num_threads(2)
    t0 = time.perf_counter()
    hf_tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    hf = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32)
    hf.eval()
    w = sm.load_weights(path)
    tok = sm.load_tokenizer(path)
    print(f"loaded both models ({time.perf_counter() - t0:.0f} s); transformers {transformers.__version__}, "
          f"torch {torch.__version__}", flush=True)
    res = {"model": sm.MODEL_NAME, "model_package": sm.model_info(path), "transformers": transformers.__version__,
           "torch": torch.__version__, "positions": args.positions, "ppl_tokens": args.ppl_tokens,
           "query_chunk": QUERY_CHUNK, "logits_chunk": LOGITS_CHUNK,
           "max_abs_logit_diff_limit": MAX_LOGIT_DIFF, "top1_agreement_limit": MIN_TOP1, "texts": {}}
    for split, tp in (("train", dec.TRAIN_TEXT), ("heldout", dec.HELDOUT_TEXT)):
        text = dec.read_text(tp)
        ids = np.array(tok.encode(text).ids)
        hf_ids = np.array(hf_tok(text, add_special_tokens=False)["input_ids"])
        same_ids = len(ids) == len(hf_ids) and bool((ids == hf_ids).all())
        n = args.positions
        r = sm.forward(w, ids[:n], keep_logits=range(n), query_chunk=QUERY_CHUNK, logits_chunk=LOGITS_CHUNK)
        with torch.no_grad():
            ref = hf(torch.tensor(ids[:n][None], dtype=torch.long)).logits[0].numpy()
        diff = np.abs(r.logits - ref)
        rec = {"file": tp.name, "positions": n, "tokens_numpy": int(len(ids)), "tokens_transformers": int(len(hf_ids)),
               "token_ids_equal": same_ids, "max_abs_logit_diff": float(diff.max()),
               "mean_abs_logit_diff": float(diff.mean()), "logit_std": float(ref.std()),
               "top1_agreement": float(np.mean(r.logits.argmax(-1) == ref.argmax(-1))),
               "attention_chunks": -(-n // QUERY_CHUNK), "logits_chunks": -(-n // LOGITS_CHUNK)}
        m = min(args.ppl_tokens, len(ids))
        t1 = time.perf_counter()
        full = sm.forward(w, ids[:m])
        rec.update(ppl_tokens=int(m), perplexity=sm.perplexity(full.nll), ppl_seconds=time.perf_counter() - t1)
        res["texts"][split] = rec
        print(f"{split} ({tp.name}): token ids equal: {same_ids} ({len(ids)} / {len(hf_ids)} tokens); "
              f"over {n} positions max |logit diff| {rec['max_abs_logit_diff']:.4g} (mean {rec['mean_abs_logit_diff']:.3g}, "
              f"logit std {rec['logit_std']:.3g}), top-1 agreement {rec['top1_agreement']:.4f}; "
              f"perplexity over {m} tokens {rec['perplexity']:.3f}", flush=True)
    bad = failures(res["texts"])
    res["passed"], res["failures"] = not bad, bad
    dec.write_replacing(args.out, json.dumps(res, indent=1))
    print(f"wrote {args.out}")
    for line in bad:
        print(f"decoder_check: FAILED: {line}", file=sys.stderr)
    if not bad:
        print(f"passed: max |logit diff| <= {MAX_LOGIT_DIFF} and top-1 agreement >= {MIN_TOP1} on both texts")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
