# SPDX-License-Identifier: Apache-2.0
"""Trace-driven evaluation of the KV-ASU.

Modules: :mod:`.workload` (streaming video-LLM KV accesses; the ``make sim`` request
stream), :mod:`.real_attention` (accesses from a real transformer's attention),
:mod:`.runtime` (the retrieval runtime around the golden model), :mod:`.baselines`
(LRU, FIFO, Belady), :mod:`.metrics`, :mod:`.sweep` (experiments) and :mod:`.report`
(``python -m evaluation.report`` regenerates ``docs/evaluation.md`` and ``docs/eval/``).
"""
