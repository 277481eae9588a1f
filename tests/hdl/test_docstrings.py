# SPDX-License-Identifier: Apache-2.0
"""Every component of ``hdl`` names each of its ports and each parameter of its constructor
in its docstring (or, for the ports, in the docstring of the signature class it uses), as
Amaranth's own library does. The components are those that the protected default build,
the predictor build and the compact iCE40 build elaborate, with the ports they have there."""

import inspect
import re

import pytest
from amaranth.hdl import Fragment
from amaranth.lib import wiring

import regmap
from hdl.core import CoreOptions
from hdl.top import KvAsu

BUILDS = {
    "default": (None, CoreOptions()),
    "predictor": (None, CoreOptions(protection="none", predictor=True)),
    "ice40": (regmap.Params(ENTRIES=128, ADDR_WIDTH=32, COUNT_WIDTH=8, TS_WIDTH=6),
              CoreOptions(compact=True)),
}


@pytest.fixture(scope="module")
def components():
    """``{class: (port names, signature classes)}`` over the builds."""
    made = []
    init = wiring.Component.__init__

    def recording(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(wiring.Component, "__init__", recording)
        for params, options in BUILDS.values():
            Fragment.get(KvAsu(params, options), None)
    found = {}
    for component in made:
        cls = type(component)
        if cls.__module__.split(".")[0] != "hdl":
            continue
        names, signatures = found.setdefault(cls, (set(), set()))
        names.update(component.signature.members)
        signatures.add(type(component.signature))
    return found


def _mentions(doc, name):
    return re.search(rf"\b{re.escape(name)}\b", doc) is not None


def test_the_builds_elaborate_many_components(components):
    assert len(components) >= 30
    assert {c.__name__ for c in components} >= {"KvAsuCore", "BucketTable", "LruList",
                                                "KvAsuRegisters", "ShadowDirectory"}


def test_every_port_is_documented(components):
    undocumented = {}
    for cls, (names, signatures) in components.items():
        doc = "".join(inspect.getdoc(c) or "" for c in (cls, *signatures)
                      if c is not wiring.Signature)
        missing = sorted(n for n in names if not _mentions(doc, n))
        if missing:
            undocumented[f"{cls.__module__}.{cls.__name__}"] = missing
    assert not undocumented, f"ports missing from the docstrings: {undocumented}"


def test_every_parameter_is_documented(components):
    undocumented = {}
    for cls in components:
        if "__init__" not in vars(cls):      # wiring.Component's own (ports as annotations)
            continue
        doc = inspect.getdoc(cls) or ""
        params = [p.name for p in inspect.signature(cls.__init__).parameters.values()
                  if p.name not in ("self", "src_loc_at")
                  and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
        missing = [p for p in params if not _mentions(doc, p)]
        if missing:
            undocumented[f"{cls.__module__}.{cls.__name__}"] = missing
    assert not undocumented, f"parameters missing from the docstrings: {undocumented}"
