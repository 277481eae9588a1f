# SPDX-License-Identifier: Apache-2.0
"""Pack requests and unpack responses of the ``kv_asu`` ports, from ``regmap``'s layouts.

The payload ports are packed structs, fields least significant first in the order
``regmap.request_fields`` / ``regmap.response_fields`` give (the RTL builds its
``StructLayout`` from the same data). Pure Python: used by the cocotb benches and by the
fast C++ harness driver alike.
"""

from __future__ import annotations

import regmap
from regmap import Params

__all__ = ["Codec"]


class Codec:
    """Bit packing of one configuration's request and response payloads.

    ``pack_req(op, addr, min_tlevel) -> int``, ``unpack_rsp(int) -> dict`` of every
    response field and its inverse ``pack_rsp(dict) -> int``; ``req_width`` /
    ``rsp_width`` in bits; ``req_words`` / ``rsp_words`` in 32-bit words.
    """

    def __init__(self, params: Params):
        if not isinstance(params, Params):
            raise TypeError(f"params must be a regmap.Params, not {params!r}")
        self.params = params
        self.req_fields = self._offsets(regmap.request_fields(params))
        self.rsp_fields = self._offsets(regmap.response_fields(params))
        self.req_width = sum(w for _, _, w in self.req_fields)
        self.rsp_width = sum(w for _, _, w in self.rsp_fields)
        self.req_words = (self.req_width + 31) // 32
        self.rsp_words = (self.rsp_width + 31) // 32
        self.rsp_names = tuple(name for name, _, _ in self.rsp_fields)

    @staticmethod
    def _offsets(fields):
        out, offset = [], 0
        for name, width in fields:
            out.append((name, offset, width))
            offset += width
        return out

    @staticmethod
    def _pack(layout, values, kind: str) -> int:
        """The word of ``values`` (by field name) in ``layout`` (``(name, offset, width)``);
        ``ValueError`` naming the ``kind`` field that does not fit its width."""
        word = 0
        for name, offset, width in layout:
            value = values[name]
            if not 0 <= value < 1 << width:
                raise ValueError(f"{kind} field {name}={value:#x} does not fit {width} bits")
            word |= value << offset
        return word

    def pack_req(self, op: int, addr: int, min_tlevel: int = 0) -> int:
        return self._pack(self.req_fields, {"op": op, "addr": addr, "min_tlevel": min_tlevel},
                          "request")

    def pack_rsp(self, fields) -> int:
        """The response word of ``fields`` (every response field by name, as the golden
        model's response dict has them): the payload the block sends for them."""
        return self._pack(self.rsp_fields, fields, "response")

    def unpack_rsp(self, word: int) -> dict[str, int]:
        return {name: (word >> offset) & ((1 << width) - 1)
                for name, offset, width in self.rsp_fields}
