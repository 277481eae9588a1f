# SPDX-License-Identifier: Apache-2.0
"""The pieces of the cocotb testbench of the KV-ASU, composed by ``verif.kvasu_tb.KvAsuTB``.

``driver``       the clock-cycle driver and monitor of the request/response streams, reset
                 included (``StreamDriver``, ``ReqItem``)
``registers``    AXI4-Lite accesses, each checked against the register mirror
                 (``RegisterAgent``; the expected behaviour is ``verif.regmirror``)
``scoreboard``   every response against the golden model, in order (``Scoreboard``)
``coverage``     functional coverage bins and goals (``Coverage``)
``addresses``    lines, tags and hash windows for steering tests (``AddrSpace``)
``front``        the non-blocking mode's front door: which presented request the block takes
                 or drops, by the golden model's admission rule (``FrontDoor``)
``statistics_memory``  values no simulation reaches put into the statistics memory by
                 VPI deposits held long enough to stay (``deposit_statistics``)
"""
