# SPDX-License-Identifier: Apache-2.0
"""Every component of ``hdl`` names each of its ports and each parameter of its constructor
in its docstring (or, for the ports, in the docstring of the signature class it uses), as
Amaranth's own library does. Two ways of finding the components: those that the protected
default build, the predictor build and the compact iCE40 build elaborate, with the ports
they have there; and every ``wiring.Component`` subclass defined under ``hdl/``, found by
importing each module and constructed (not elaborated) in the variants with the most ports,
so that a component no build uses and a port only an option adds (``observe=True``, the
what-if lookups, ...) are checked too."""

import importlib
import inspect
import pkgutil
import re

import pytest
from amaranth.hdl import Fragment
from amaranth.lib import wiring
from amaranth.lib.memory import Memory

import hdl
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


# Every component class, constructed without elaboration. A class listed in VARIANTS is built
# in each of its variants (together they have every port an option can add; where two
# options exclude each other, one variant each); any other class with the first of
# DEFAULT_ARGUMENTS its constructor takes.

P = regmap.Params()
PREDICTOR = CoreOptions(protection="none", predictor=True)

VARIANTS = {
    "hdl.axil.subordinate.AxiLiteSubordinate": [
        lambda c: c(12, readable=[0, 4], writable=[4], observe=True)],
    "hdl.core.admission.Admission": [
        lambda c: c(P, PREDICTOR, fifo_depth=4, evict_gap=6)],             # policy, s0_free
    "hdl.core.commit.Commit": [
        lambda c: c(P, registered=True, protected=True)],            # poison, forward_ahead
    "hdl.core.pipeline.KvAsuCore": [                    # observe is not built with predictor
        lambda c: c(P, CoreOptions(), observe=True),
        lambda c: c(P, PREDICTOR)],
    "hdl.core.predictor.PredictorCommit": [lambda c: c(P, memory=Memory)],
    "hdl.core.predictor_carry.PredictorCarry": [lambda c: c(P, hash_latency=11)],
    "hdl.core.recovery.Recovery": [lambda c: c(16)],
    "hdl.lru.lru_list.LruList": [lambda c: c(P, observe=True, protection="secded")],
    "hdl.match.Match": [lambda c: c([8, 1])],
    "hdl.predictor.lists.LiveGhostLists": [lambda c: c(P, observe=True)],
    "hdl.predictor.reuse_table.ReuseTable": [lambda c: c(what_ifs=2)],
    "hdl.predictor.shadow.ShadowDirectory": [lambda c: c(4, bimodal=True, observe=True)],
    "hdl.ram.RegisteredReadRam": [lambda c: c(shape=8, depth=4, protection="secded")],
    "hdl.regs.block.KvAsuRegisters": [
        lambda c: c(P, protection="secded", predictor=True, observe=True)],
    "hdl.stats.counters.StatisticsCounters": [lambda c: c(protection="secded")],
    "hdl.table.table.BucketTable": [                # pmeta_width is not built with protection
        lambda c: c(P, protection="secded", output_register=True),
        lambda c: c(P, pmeta_width=8, output_register=True)],
    "hdl.top.KvAsu": [lambda c: c(P, CoreOptions()), lambda c: c(P, PREDICTOR)],
}

DEFAULT_ARGUMENTS = [(), (P,), (P, CoreOptions())]

# Classes the test does not construct, with the reason (none at present: every component
# constructs from a few small parameters).
SKIP = {}


def _name(cls):
    return f"{cls.__module__}.{cls.__qualname__}"


def _component_classes():
    for info in pkgutil.walk_packages(hdl.__path__, "hdl."):
        importlib.import_module(info.name)
    found, todo = set(), [wiring.Component]
    while todo:
        for sub in todo.pop().__subclasses__():
            todo.append(sub)
            if sub.__module__.startswith("hdl."):
                found.add(sub)
    return sorted(found, key=_name)


@pytest.fixture(scope="module")
def constructed():
    """``({class: [components]}, {class name: why it was not constructed})``."""
    built, failed = {}, {}
    for cls in _component_classes():
        name = _name(cls)
        if name in SKIP:
            continue
        if name in VARIANTS:
            try:
                built[cls] = [make(cls) for make in VARIANTS[name]]
            except Exception as error:
                failed[name] = f"a variant of VARIANTS raises {error!r}"
            continue
        errors = []
        for args in DEFAULT_ARGUMENTS:
            try:
                built[cls] = [cls(*args)]
                break
            except Exception as error:
                errors.append(repr(error))
        else:
            failed[name] = ("takes none of DEFAULT_ARGUMENTS (list it in VARIANTS or SKIP): "
                            + "; ".join(errors))
    return built, failed


def test_every_component_class_is_constructed(constructed):
    built, failed = constructed
    names = {_name(cls) for cls in _component_classes()}
    stale = sorted((set(VARIANTS) | set(SKIP)) - names)
    assert not stale, f"VARIANTS or SKIP name no component class of hdl: {stale}"
    assert not failed, "component classes not constructed:\n" + "\n".join(
        f"  {name}: {why}" for name, why in sorted(failed.items()))
    assert len(built) + len(SKIP) == len(names) >= 30


def test_every_component_class_documents_its_ports(constructed):
    """Each top-level member of each variant's signature is a word of the class docstring,
    or of the docstring of an ``hdl`` signature class the class docstring names (a
    component whose docstring says "As ``CoreSignature(...)`` lists them")."""
    built, _ = constructed
    undocumented = {}
    for cls, components in built.items():
        own = inspect.getdoc(cls) or ""
        docs = [own]
        names = set()
        for component in components:
            signature = type(component.signature)
            names.update(component.signature.members)
            if (signature is not wiring.Signature and signature.__module__.startswith("hdl.")
                    and _mentions(own, signature.__name__)):
                docs.append(inspect.getdoc(signature) or "")
        doc = "\n".join(docs)
        missing = sorted(n for n in names if not _mentions(doc, n))
        if missing:
            undocumented[_name(cls)] = missing
    assert not undocumented, "ports missing from the docstrings:\n" + "\n".join(
        f"  {name}: {', '.join(ports)}" for name, ports in sorted(undocumented.items()))
