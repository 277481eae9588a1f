# SPDX-License-Identifier: Apache-2.0
"""The predictor mode's components (``docs/spec-predictor.md``; how they fit the core's
pipeline: ``docs/rtl-predictor.md``). Each is a ``wiring.Component`` of its own, checked
against the golden model's rules in ``tests/hdl/test_predictor_*.py``; the core's
``PredictorCommit`` (``hdl/core/predictor.py``) instantiates them in a build with the mode."""

from .keys import ReuseKey, ReuseLevel
from .reuse_table import ReuseTable
from .bimodal import BimodalCounter
from .shadow import ShadowDirectory, ShadowObservationSignature
from .loop import LoopDetector
from .guard import Guard
from .lists import LiveGhostLists
from .moves import ListFrom, ListTo

__all__ = ["ReuseKey", "ReuseLevel", "ReuseTable", "BimodalCounter", "ShadowDirectory",
           "ShadowObservationSignature", "LoopDetector", "Guard", "ListFrom", "ListTo",
           "LiveGhostLists"]
