# SPDX-License-Identifier: Apache-2.0
"""Independent check of the NumPy SmolLM2 (``evaluation.smollm2``) against Hugging Face
``transformers`` (CPU torch) loading the same GGUF file.

    python -m evaluation.decoder_check [--positions 128] [--ppl-tokens 4096] [--out build/decoder_check.json]

``transformers`` dequantises the GGUF itself, undoes llama.cpp's q/k row permutation and
runs its own Llama code (``rotate_half`` RoPE, its own attention, float32), and builds its
own tokenizer from the GGUF metadata: the two implementations share only the file. The
check compares the token ids of the shipped texts, the logits at the first ``--positions``
positions of each text (largest absolute difference, and top-1 agreement) and prints the
NumPy model's perplexity over the first ``--ppl-tokens`` tokens of each text (dense).
Needs torch and transformers (``make decoder-check`` installs them); not part of ``make test``.
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


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=128)
    ap.add_argument("--ppl-tokens", type=int, default=4096)
    ap.add_argument("--out", type=Path, default=Path("build/decoder_check.json"))
    args = ap.parse_args(argv)
    import torch
    import transformers
    from transformers import AutoModelForCausalLM, AutoTokenizer

    torch.set_num_threads(2)
    path = sm.gguf_path()
    t0 = time.perf_counter()
    hf_tok = AutoTokenizer.from_pretrained(str(path.parent), gguf_file=path.name)
    hf = AutoModelForCausalLM.from_pretrained(str(path.parent), gguf_file=path.name, dtype=torch.float32)
    hf.eval()
    w = sm.load_weights(path)
    tok = sm.load_tokenizer(path)
    print(f"loaded both models ({time.perf_counter() - t0:.0f} s); transformers {transformers.__version__}, "
          f"torch {torch.__version__}", flush=True)
    res = {"model": sm.MODEL_NAME, "transformers": transformers.__version__, "torch": torch.__version__,
           "positions": args.positions, "ppl_tokens": args.ppl_tokens, "texts": {}}
    for split, tp in (("train", dec.TRAIN_TEXT), ("heldout", dec.HELDOUT_TEXT)):
        text = dec.read_text(tp)
        ids = np.array(tok.encode(text).ids)
        hf_ids = np.array(hf_tok(text, add_special_tokens=False)["input_ids"])
        same_ids = len(ids) == len(hf_ids) and bool((ids == hf_ids).all())
        n = args.positions
        r = sm.forward(w, ids[:n], keep_logits=range(n))
        with torch.no_grad():
            ref = hf(torch.tensor(ids[:n][None], dtype=torch.long)).logits[0].numpy()
        diff = np.abs(r.logits - ref)
        rec = {"file": tp.name, "tokens_numpy": int(len(ids)), "tokens_transformers": int(len(hf_ids)),
               "token_ids_equal": same_ids, "max_abs_logit_diff": float(diff.max()),
               "mean_abs_logit_diff": float(diff.mean()), "logit_std": float(ref.std()),
               "top1_agreement": float(np.mean(r.logits.argmax(-1) == ref.argmax(-1)))}
        m = min(args.ppl_tokens, len(ids))
        t1 = time.perf_counter()
        full = sm.forward(w, ids[:m])
        rec.update(ppl_tokens=int(m), perplexity=sm.perplexity(full.nll), ppl_seconds=time.perf_counter() - t1)
        res["texts"][split] = rec
        print(f"{split} ({tp.name}): token ids equal: {same_ids} ({len(ids)} / {len(hf_ids)} tokens); "
              f"over {n} positions max |logit diff| {rec['max_abs_logit_diff']:.4g} (mean {rec['mean_abs_logit_diff']:.3g}, "
              f"logit std {rec['logit_std']:.3g}), top-1 agreement {rec['top1_agreement']:.4f}; "
              f"perplexity over {m} tokens {rec['perplexity']:.3f}", flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(res, indent=1))
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
