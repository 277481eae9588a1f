# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU register block: the register file behind an AXI4-Lite subordinate
(``hdl.axil.AxiLiteSubordinate``), its CTRL sequencer and the statistics counters.

Every register comes from ``regmap.REGISTERS`` (``regmap/kv_asu.toml``): this package holds
no address. What a register *is* follows from its entry (``kinds.register_kind``): ``stat``
(a 64-bit statistics counter), ``config`` (a shadow configuration word), ``active_of`` (the
committed value of a shadow), a constant ``reset`` on a read-only word (identification and
parameters), the ``CTRL`` and ``STATUS`` field sets, the live inputs ``OCCUPANCY`` and
``CYCLE``, the soft-error registers ``ERR_*`` (decision D11), and ``build`` (a constant of
the build options: ``P_POLICIES``, docs/spec-predictor.md P2). A register of any other kind
makes the constructor raise, so the map cannot grow a register that the RTL silently
ignores. The behaviour is ``docs/spec-decisions.md`` D8; the integrator's page is
``docs/registers.md``.

One concern per file, in the order ``KvAsuRegisters.elaborate`` builds them:

========================= ==============================================================
``signature.py``          ``RegisterBlockSignature``: the ports, each described
``block.py``              ``KvAsuRegisters``: parameters, the submodules, wiring
``kinds.py``              what implements each register of the map
``state.py``              the register file's own state (shadows, STATUS, ERR_*, latch)
``ctrl.py``               commit legality, the statistics' clear, writes and the CTRL
                          sequencer
``soft_errors.py``        the ERR_* registers and STATUS.SOFT_ERROR (D11)
``reads.py``              the read path: one-hot read select, the statistics' LO reads
``observe.py``            the observation port, for the proofs (``observe=True`` only)
========================= ==============================================================
"""

from .block import KvAsuRegisters
from .signature import RegisterBlockSignature

__all__ = ["KvAsuRegisters", "RegisterBlockSignature"]
