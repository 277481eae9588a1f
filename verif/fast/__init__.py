# SPDX-License-Identifier: Apache-2.0
"""The fast path: the Verilated ``kv_asu`` in a C++ harness, checked against the golden model.

A cocotb scoreboard pays Python per transaction; for ten-million-request soaks, exact
throughput figures and whole-trace replays this module instead

1. builds ``harness.cpp`` around the generated Verilog with Verilator (``build``),
2. runs a stream of requests and AXI4-Lite operations through it (``run``): the harness
   only drives and records, at millions of cycles per second,
3. replays the recorded acceptance cycles through the golden model and the register
   mirror, and compares every response field by field and every register access
   (``check``).

Built with ``faults=True``, the harness also flips chosen bits of chosen memory words at
chosen cycles (:class:`Fault`; the campaign is ``verif.faults``).

The golden model consumes the *recorded* acceptance cycles, so whatever the DUT's
back-pressure did to the timing, the model answers each request at the cycle the DUT took
it (spec section 4).

A difference from the golden model or a protocol failure of the block is a
:class:`Mismatch` (:class:`Hang`: the block stopped answering); a failure of the harness
itself (bad input, a signal, an output it cannot write) is a :class:`HarnessError`, never
a :class:`Mismatch`.

The files: ``records.py`` (the records above and the failures), ``verilate.py`` (step 1),
``drive.py`` (step 2), ``scoreboard.py`` (step 3), ``harness.cpp`` (the C++ harness).
"""

from .verilate import VERILATOR_MAKEFLAGS, build, memory_arrays, public_config, verilator
from .scoreboard import build_latency, check
from .records import (AxiMaster, AxiOp, FastResult, Fault, Hang, HarnessError, MemoryArray,
                      Mismatch, SoftError)
from .drive import check_build, check_faults, encode, encode_fault, failure, read_result, run

__all__ = ["AxiOp", "AxiMaster", "Fault", "FastResult", "MemoryArray", "build", "memory_arrays",
           "public_config", "run", "read_result", "encode", "verilator", "VERILATOR_MAKEFLAGS",
           "check", "build_latency", "Mismatch", "Hang", "HarnessError", "SoftError",
           "encode_fault", "failure", "check_build", "check_faults"]
