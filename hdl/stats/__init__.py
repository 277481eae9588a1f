# SPDX-License-Identifier: Apache-2.0
"""The KV-ASU statistics counters: wide counters kept in block RAM.

``StatisticsCounters(count, width)`` replaces ``count`` flip-flop counters of ``width`` bits
(``len(regmap.STAT_NAMES)`` x 64 in the KV-ASU) by one ``count`` x ``width`` memory (``amaranth.lib.memory``: EBR on
iCE40, DP16KD on ECP5), a small flip-flop pre-counter per counter and a read-modify-write
engine that folds the pre-counters into the memory. Seen from its ports it behaves exactly
like the flip-flop counters it replaces; see the class docstring for the contract.

``counters.py`` holds the component (its ports and its state), ``engine.py`` the engine
of the class docstring and its stage A, which both engines share, ``coded.py`` the
protected three-stage engine, ``testbench.py`` the testbench access (``peek``, ``poke``,
``pre_values``).
"""

from .counters import StatisticsCounters

__all__ = ["StatisticsCounters"]
