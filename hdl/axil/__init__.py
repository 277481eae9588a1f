# SPDX-License-Identifier: Apache-2.0
"""AXI4-Lite: the interface signature, the response codes and a subordinate.

``AxiLiteSignature`` describes the bus from the **manager's** side (the side that drives the
addresses), as AMBA does; a subordinate declares its port with ``In(AxiLiteSignature(...))``.
Member names are the AMBA signal names in lower case, so a component port named ``axil``
becomes Verilog ports ``axil__awaddr``, ``axil__awvalid``, ... that ``cocotbext-axi`` binds
with the prefix ``axil_`` (its bus separator is ``_``, the names then start ``_awaddr``:
pass ``AxiLiteBus.from_prefix(dut, "axil_")``).

``signatures.py`` holds the signatures and the response codes, ``subordinate.py`` the
subordinate.
"""

from .signatures import (AxiLiteObservationSignature, AxiLiteSignature, AxiResp,
                         RegisterAccessSignature)
from .subordinate import AxiLiteSubordinate

__all__ = ["AxiResp", "AxiLiteSignature", "RegisterAccessSignature",
           "AxiLiteObservationSignature", "AxiLiteSubordinate"]
