# SPDX-License-Identifier: Apache-2.0
"""The cocotb testbench's scoreboard over a fresh golden model, for the tests of the
testbench's parts that run without a simulator (not a test module)."""

import logging
import random

from golden_model import KvAsuModel
from regmap import Params
from verif.codec import Codec
from verif.tb.addresses import AddrSpace
from verif.tb.coverage import Coverage
from verif.tb.scoreboard import Scoreboard

#: The small configuration these tests run the scoreboard in.
P_SMALL = Params(ENTRIES=16, PROBE=4, ADDR_WIDTH=32, TAG_WIDTH=24, COUNT_WIDTH=4, TS_WIDTH=4,
                 TICK_SHIFT=1)
#: The run a mismatch report names.
RUN_INFO = {"seed": 1, "config": "c", "sim": "s", "test": "t"}


def scoreboard(build_latency: int | None, log_name: str) -> Scoreboard:
    """A scoreboard of ``P_SMALL`` over a fresh golden model, held to ``build_latency``,
    logging to ``log_name``."""
    board = Scoreboard(P_SMALL, Codec(P_SMALL), AddrSpace(P_SMALL, random.Random(1)),
                       Coverage(P_SMALL), logging.getLogger(log_name), RUN_INFO,
                       lambda: {"HASH_SEED": 0}, build_latency=build_latency)
    board.reset(KvAsuModel(P_SMALL))
    return board
