# SPDX-License-Identifier: Apache-2.0
"""The fast path's records: a register access or barrier (``AxiOp``), how the harness's AXI
master behaves (``AxiMaster``), a run's result
(``FastResult``), an upset to inject (``Fault``), a memory array of the generated Verilog
(``MemoryArray``), a reported soft error (``SoftError``), the block's failures (``Mismatch``, ``Hang``) and the
harness's own (``HarnessError``)."""

from __future__ import annotations

import dataclasses

import numpy as np

__all__ = ["AxiOp", "AxiMaster", "FastResult", "Fault", "MemoryArray", "SoftError", "Mismatch",
           "Hang", "HarnessError"]


@dataclasses.dataclass(frozen=True)
class AxiOp:
    """A register access for the harness: ``kind`` "write" or "read"; or a quiescent
    section of the request stream: "barrier" (``addr`` = k: hold the requests from the
    k-th on and wait until every accepted one is answered) up to the next "release"."""
    kind: str
    addr: int = 0
    data: int = 0
    strb: int = 0xF
    not_before: int = 0
    #: Compare read data. Reads of live counters (statistics, OCCUPANCY) while requests
    #: are in flight cannot be predicted to the cycle: their response code is still checked
    #: (and a CYCLE LO read's data against the read's own cycles, see ``check``).
    check: bool = True


#: The largest value of the harness's 32-bit input fields.
MAX_U32 = 0xFFFF_FFFF


@dataclasses.dataclass(frozen=True)
class AxiMaster:
    """How the harness's AXI4-Lite master behaves. ``ready_permille``: BREADY and RREADY
    high in a cycle with this probability (per mille; 1000: always). ``reads``: reads
    outstanding at most (a read is issued while earlier reads wait for their R; a write
    never overlaps another operation). ``skew``: AWVALID and WVALID each raised 0 to
    ``skew`` cycles (drawn) after a write starts (``skew`` up to 2**32 - 1, the harness's
    32-bit field). The draws are seeded by the run's seed.
    The default is the plain master: one operation at a time, both valids together,
    BREADY and RREADY always high."""
    ready_permille: int = 1000
    reads: int = 1
    skew: int = 0

    def __post_init__(self):
        if not 0 <= self.ready_permille <= 1000:
            raise ValueError(f"ready_permille must be 0..1000, not {self.ready_permille}")
        if not 1 <= self.reads <= MAX_U32:
            raise ValueError(f"reads must be 1..{MAX_U32}, not {self.reads}")
        if not 0 <= self.skew <= MAX_U32:
            raise ValueError(f"skew must be 0..{MAX_U32} (the harness's 32-bit field), "
                             f"not {self.skew}")


@dataclasses.dataclass
class FastResult:
    accept_cycle: np.ndarray      # per response, the acceptance cycle of its request
    response_cycle: np.ndarray
    responses: np.ndarray         # uint32 words, shape (n, rsp_words)
    axi: list                     # (kind, addr, rdata, resp, start_cycle, done_cycle)
    seconds: float
    cycles: int


@dataclasses.dataclass(frozen=True)
class Fault:
    """A single-event upset for a harness built with ``faults=True``: before the rising
    edge that ends ``cycle``, flip bit ``bit`` of word ``word`` of the memory array
    ``memory`` (a :class:`MemoryArray`'s ``name``, see :func:`memory_arrays`)."""
    cycle: int
    memory: str
    word: int
    bit: int


@dataclasses.dataclass(frozen=True)
class MemoryArray:
    """One memory array of the generated Verilog: hierarchical ``name`` (as VPI finds it),
    ``width`` bits per word, ``depth`` words."""
    name: str
    width: int
    depth: int


class Mismatch(AssertionError):
    """The block answered differently from the golden model, or broke the protocol."""


class HarnessError(RuntimeError):
    """The harness itself failed (bad input, an output it could not write, a fault it could
    not inject, killed by a signal): nothing is known of the block's behaviour."""


class Hang(Mismatch):
    """The harness saw no progress (no handshake) for 100 000 cycles while the block owed one
    (a request offered, a response, an AXI operation under way)."""


@dataclasses.dataclass(frozen=True)
class SoftError:
    """A soft error the block reported (docs/spec-decisions.md D11), for :func:`check` to
    tell the model: found in ``cycle`` (``d``) in ``memory`` (a ``regmap.MEM_IDS`` name) at
    ``address``; ``corrected`` or not."""
    cycle: int
    memory: str
    address: int
    corrected: bool = False
