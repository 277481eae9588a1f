# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU golden model: the bit-exact Python reference the RTL is checked against.

It implements ``../shared/spec/KV-ASU.md`` (spec version 1.1) with the project's choices of
``docs/spec-decisions.md``, independently of the RTL: it reads shared interface *data* from
:mod:`regmap` and imports nothing from ``hdl`` or ``verif``. See ``docs/golden-model.md``.

Main entry points:

:class:`KvAsuModel`
    The model: ``request()`` one request at a time, ``run()``/``replay()`` a whole stream
    fast, ``commit()``, ``flush()``, ``clear_stats()``, ``stats``, ``config``, and debug
    views of the table and the LRU list.
:class:`Op`, :class:`Response`, :class:`Config`, :class:`Stats`, :class:`SlotState`
    Op codes and the value types the model returns.
:func:`save_trace`, :func:`load_trace`, :class:`Trace`
    Request traces as ``.npz`` files.
:func:`murmur3_x86_32_u64`, :func:`murmur3_steps`
    A from-scratch MurmurHash3 of an 8-byte key, the bit-level reference of the RTL's hash.
"""

from .model import KvAsuModel
from .records import Config, Op, Response, SlotState, Stats
from .murmur3 import Murmur3Steps, murmur3_steps, murmur3_x86_32_u64, tag_hash, tag_key
from .trace import Trace, load_trace, save_trace

__all__ = [
    "KvAsuModel", "Op", "Response", "Config", "Stats", "SlotState", "tag_key", "tag_hash",
    "murmur3_x86_32_u64", "murmur3_steps", "Murmur3Steps",
    "Trace", "save_trace", "load_trace",
]
