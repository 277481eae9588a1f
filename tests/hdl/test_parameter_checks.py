# amaranth: UnusedElaboratable=no
# SPDX-License-Identifier: Apache-2.0
"""Every component's constructor refuses a wrong parameter up front, as
``amaranth.lib.fifo`` does: ``TypeError`` for a wrong type (a ``bool`` or a ``float``
where an integer is wanted), ``ValueError`` for a wrong value, each message naming the
parameter; and the valid defaults, and the stand-ins the formal harness gives (another
memory callable, another hash), still construct."""

import functools
import re

import pytest
from amaranth.lib import data, wiring
from amaranth.lib.memory import Memory
from amaranth.lib.wiring import In, Out

from hdl.axil import AxiLiteSubordinate
from hdl.core import CoreOptions, KvAsuCore
from hdl.core.admission import Admission
from hdl.core.predictor_carry import PredictorCarry
from hdl.core.recovery import Recovery
from hdl.ecc import Code, secded_check_bits
from hdl.hash import Murmur3Hash64
from hdl.lru import LruList
from hdl.match import Match
from hdl.predictor.lists import LiveGhostLists
from hdl.predictor.loop import LoopDetector
from hdl.predictor.reuse_table import ReuseTable
from hdl.predictor.shadow import ShadowDirectory
from hdl.protect import ProtectedMemory
from hdl.ram import RegisteredReadRam
from hdl.regs import KvAsuRegisters
from hdl.scrubber import Scrubber
from hdl.stats import StatisticsCounters
from hdl.table import BucketTable
from regmap import Params
from tests.hdl.harness import small_params

P = small_params()
O = CoreOptions()


def _refused(make, error, name):
    """``make()`` raises exactly ``error`` with a message that names ``name``."""
    with pytest.raises(error) as info:
        make()
    assert type(info.value) is error
    assert re.search(rf"(?<![\w.]){re.escape(name)}\b", str(info.value)), str(info.value)


class _StandInHash(wiring.Component):
    """A hash with the ports and the latency the core needs (as the formal harness's). The
    tests only construct cores around it, so it is never elaborated."""
    key: In(64)
    seed: In(32)
    hash: Out(32)

    def __init__(self, latency):
        self.latency = latency
        super().__init__()

    def elaborate(self, platform):
        raise NotImplementedError


class _NoPorts(wiring.Component):
    """A component without the hash's ports, which the core must refuse; never elaborated."""

    def __init__(self):
        self.latency = 1
        super().__init__({"x": In(1)})

    def elaborate(self, platform):
        raise NotImplementedError


def _admission(params=P, options=O, **kw):
    return Admission(params, options, **{"fifo_depth": 4, "evict_gap": 6, **kw})


@pytest.mark.parametrize("kw, error, name", [
    ({"params": {"ENTRIES": 16}}, TypeError, "params"),
    ({"options": None}, TypeError, "options"),
    ({"fifo_depth": -1}, ValueError, "fifo_depth"),
    ({"fifo_depth": 0}, ValueError, "fifo_depth"),
    ({"fifo_depth": "4"}, TypeError, "fifo_depth"),
    ({"fifo_depth": True}, TypeError, "fifo_depth"),
    ({"evict_gap": "6"}, TypeError, "evict_gap"),
    ({"evict_gap": 6.5}, TypeError, "evict_gap"),
    ({"evict_gap": 0}, ValueError, "evict_gap"),
    ({"evict_evict_gap": "3"}, TypeError, "evict_evict_gap"),
    ({"evict_evict_gap": 7}, ValueError, "evict_evict_gap"),
    ({"predictor_gap": 7.0}, TypeError, "predictor_gap"),
    ({"predictor_gap": 5}, ValueError, "predictor_gap"),
    ({"gen_width": 0}, ValueError, "gen_width"),
    ({"gen_width": "4"}, TypeError, "gen_width"),
    ({"gen_width": 17}, ValueError, "gen_width"),
])
def test_admission(kw, error, name):
    _refused(lambda: _admission(**kw), error, name)


@pytest.mark.parametrize("kw, error, name", [
    ({"gen_width": True}, TypeError, "gen_width"),
    ({"gen_width": 63}, ValueError, "gen_width"),
    ({"gen_width": 0}, ValueError, "gen_width"),
    ({"hash": object()}, TypeError, "hash"),
    ({"hash": _NoPorts()}, TypeError, "hash"),
    ({"hash": _StandInHash(1.0)}, TypeError, "hash.latency"),
    ({"hash": _StandInHash(-1)}, ValueError, "hash.latency"),
    # a Murmur3Hash64 other than the options' (latency 8, the options' 11)
    ({"hash": Murmur3Hash64(mul_stages=0)}, ValueError, "hash"),
    ({"hash": Murmur3Hash64(lut_cross_products=True)}, ValueError, "hash"),
    ({"memory": None}, TypeError, "memory"),
])
def test_core(kw, error, name):
    _refused(lambda: KvAsuCore(P, O, **kw), error, name)


@pytest.mark.parametrize("lag, error", [
    (-1, ValueError), ("2", TypeError), (1.5, TypeError), (None, TypeError), (True, TypeError),
])
def test_scrubber(lag, error):
    _refused(lambda: Scrubber(P, lag=lag), error, "lag")


@pytest.mark.parametrize("kw, error, name", [
    ({"shape": "x"}, TypeError, "shape"),
    ({"shape": 0}, ValueError, "shape"),
    ({"depth": 2.0}, TypeError, "depth"),
    ({"depth": 0}, ValueError, "depth"),
    ({"memory": int}, TypeError, "memory"),
    ({"memory": None}, TypeError, "memory"),
    # a bool is not a shape (as check_int refuses it for a count)
    ({"shape": True}, TypeError, "shape"),
    ({"depth": 20000, "implementation": "dp16kd"}, ValueError, "depth"),
])
def test_registered_read_ram(kw, error, name):
    _refused(lambda: RegisteredReadRam(**{"shape": 4, "depth": 4, **kw}), error, name)


@pytest.mark.parametrize("kw, error, name", [
    ({"depth": True}, TypeError, "depth"),
    ({"depth": 2.0}, TypeError, "depth"),
    ({"depth": 0}, ValueError, "depth"),
    ({"shape": "x"}, TypeError, "shape"),
    ({"shape": 0}, ValueError, "shape"),
    ({"attrs": 5}, TypeError, "attrs"),
    ({"attrs": ["no_rw_check"]}, TypeError, "attrs"),
    ({"init": 5}, TypeError, "init"),
    ({"init": "12"}, TypeError, "init"),
    ({"init": [0] * 5}, ValueError, "init"),
    ({"init": [1.5]}, TypeError, "init"),
    ({"init": [1, None]}, TypeError, "init"),
    ({"shape": data.StructLayout({"a": 8}), "init": [{"b": 1}]}, ValueError, "init"),
    ({"shape": True}, TypeError, "shape"),
    ({"memory": int}, TypeError, "memory"),
])
def test_protected_memory(kw, error, name):
    _refused(lambda: ProtectedMemory(**{"shape": 8, "depth": 4, **kw}), error, name)


@pytest.mark.parametrize("make, error, name", [
    (lambda: Code("secded", "8"), TypeError, "k"),
    (lambda: Code("parity", 8.0), TypeError, "k"),
    (lambda: Code("none", 0), ValueError, "k"),
    (lambda: Code(5, 8), TypeError, "kind"),
    (lambda: Code("hamming", 8), ValueError, "kind"),
    (lambda: secded_check_bits(True), TypeError, "k"),
    (lambda: secded_check_bits(0), ValueError, "k"),
])
def test_code(make, error, name):
    _refused(make, error, name)


@pytest.mark.parametrize("mul_stages, error", [(2.0, TypeError), (True, TypeError),
                                               ("2", TypeError), (4, ValueError),
                                               (-1, ValueError)])
def test_murmur3_hash(mul_stages, error):
    _refused(lambda: Murmur3Hash64(mul_stages=mul_stages), error, "mul_stages")


@pytest.mark.parametrize("value, error", [("c1", TypeError), (None, TypeError), (1, TypeError),
                                          ([["c1"]], TypeError), (["c1", 2], TypeError),
                                          ({"c9"}, ValueError)])
def test_lut_cross_products(value, error):
    """Each names the parameter given: ``Murmur3Hash64``'s, or the ``CoreOptions`` field."""
    _refused(lambda: Murmur3Hash64(lut_cross_products=value), error, "lut_cross_products")
    _refused(lambda: CoreOptions(hash_lut_cross_products=value), error,
             "CoreOptions.hash_lut_cross_products")


@pytest.mark.parametrize("make, error, name", [
    (lambda: BucketTable(P, memory=None), TypeError, "memory"),
    (lambda: BucketTable(P, memory=int), TypeError, "memory"),
    (lambda: BucketTable(P, gen_width=True), TypeError, "gen_width"),
    (lambda: BucketTable(P, gen_width="4"), TypeError, "gen_width"),
    (lambda: BucketTable(P, gen_width=0), ValueError, "gen_width"),
    (lambda: BucketTable(P, pmeta_width="3"), TypeError, "pmeta_width"),
    (lambda: BucketTable(P, pmeta_width=-1), ValueError, "pmeta_width"),
])
def test_bucket_table(make, error, name):
    _refused(make, error, name)


@pytest.mark.parametrize("memory", [None, int, 4])
def test_lru_list(memory):
    _refused(lambda: LruList(P, memory=memory), TypeError, "memory")


@pytest.mark.parametrize("memory", [None, int, 4])
def test_live_ghost_lists(memory):
    _refused(lambda: LiveGhostLists(P, memory=memory), TypeError, "memory")


@pytest.mark.parametrize("kw, error, name", [
    ({"stages": 2.0}, TypeError, "stages"),
    ({"stages": True}, TypeError, "stages"),
    ({"stages": 4}, ValueError, "stages"),
    ({"width": True}, TypeError, "width"),
    ({"width": 8.0}, TypeError, "width"),
    ({"width": 0}, ValueError, "width"),
    ({"count": 1}, ValueError, "count"),
])
def test_statistics_counters(kw, error, name):
    _refused(lambda: StatisticsCounters(**kw), error, name)


@pytest.mark.parametrize("stages, error", [(2.0, TypeError), (True, TypeError),
                                           (3, ValueError)])
def test_loop_detector(stages, error):
    _refused(lambda: LoopDetector(P, stages=stages), error, "stages")


@pytest.mark.parametrize("stages, error", [(1.0, TypeError), (False, TypeError),
                                           ("2", TypeError), (0, ValueError)])
def test_shadow_directory(stages, error):
    _refused(lambda: ShadowDirectory(4, bimodal=False, stages=stages), error, "stages")


@pytest.mark.parametrize("make, error, name", [
    (lambda: ShadowDirectory(True, bimodal=False), TypeError, "depth"),
    (lambda: ShadowDirectory(0, bimodal=False), ValueError, "depth"),
    (lambda: ShadowDirectory(4, bimodal=False, sig_width=16.0), TypeError, "sig_width"),
    (lambda: ShadowDirectory(4, bimodal=False, sig_width=33), ValueError, "sig_width"),
    (lambda: ReuseTable(key_width="6"), TypeError, "key_width"),
    (lambda: ReuseTable(key_width=0), ValueError, "key_width"),
    (lambda: ReuseTable(64.0), TypeError, "entries"),
    (lambda: ReuseTable(128), ValueError, "entries"),
    (lambda: ReuseTable(48), ValueError, "entries"),
    # the default entries (64) is too many for 3-bit keys: the message names both
    (lambda: ReuseTable(key_width=3), ValueError, "key_width"),
    (lambda: ReuseTable(key_width=3), ValueError, "entries"),
    (lambda: ReuseTable(what_ifs=None), TypeError, "what_ifs"),
    (lambda: ReuseTable(what_ifs=-1), ValueError, "what_ifs"),
])
def test_predictor_components(make, error, name):
    _refused(make, error, name)


@pytest.mark.parametrize("make, error, name", [
    (lambda: Recovery(True), TypeError, "entries"),
    (lambda: Recovery("16"), TypeError, "entries"),
    (lambda: Recovery(0), ValueError, "entries"),
    (lambda: Recovery(16, settle=True), TypeError, "settle"),
    (lambda: Recovery(16, settle=2.0), TypeError, "settle"),
    (lambda: Recovery(16, settle=0), ValueError, "settle"),
])
def test_recovery(make, error, name):
    _refused(make, error, name)


@pytest.mark.parametrize("hash_latency, error", [("3", TypeError), (True, TypeError),
                                                 (-1, ValueError)])
def test_predictor_carry(hash_latency, error):
    _refused(lambda: PredictorCarry(P, hash_latency=hash_latency), error, "hash_latency")


@pytest.mark.parametrize("kw, error, name", [
    ({"stat_lag": True}, TypeError, "stat_lag"),
    ({"stat_lag": "2"}, TypeError, "stat_lag"),
    ({"stat_lag": 0}, ValueError, "stat_lag"),
    ({"stats_stages": 4}, ValueError, "stats_stages"),
    ({"stats_stages": 3.0}, TypeError, "stats_stages"),
])
def test_registers(kw, error, name):
    _refused(lambda: KvAsuRegisters(P, **kw), error, name)


@pytest.mark.parametrize("kw, error, name", [
    ({"readable": ["0"]}, TypeError, "readable"),
    ({"readable": [True]}, TypeError, "readable"),
    ({"readable": None}, TypeError, "readable"),
    ({"writable": None}, TypeError, "writable"),
    ({"readable": [2]}, ValueError, "readable"),
])
def test_axil_subordinate(kw, error, name):
    _refused(lambda: AxiLiteSubordinate(12, **{"readable": [0], "writable": [], **kw}),
             error, name)


@pytest.mark.parametrize("widths, error", [(5, TypeError), ("88", TypeError),
                                           ((), ValueError), ([0], ValueError),
                                           ([8, -1], ValueError), ([True], TypeError),
                                           (["8"], TypeError), ([8.0], TypeError)])
def test_match(widths, error):
    _refused(lambda: Match(widths), error, "widths")


def test_valid_parameters_still_construct():
    p = Params()
    _admission(None)
    _admission(predictor_gap=7, gen_width=16)
    core = KvAsuCore()
    assert core.hash_latency == 11 and core.fifo_depth == 21
    # the options' own hash, a stand-in with a latency of its own, another memory callable
    options = CoreOptions(hash_mul_stages=0)
    assert KvAsuCore(P, options, hash=Murmur3Hash64(mul_stages=0)).hash_latency == 8
    assert KvAsuCore(P, O, hash=_StandInHash(1), gen_width=2).hash_latency == 1
    KvAsuCore(P, O, memory=lambda **kw: Memory(**kw))
    KvAsuCore(P, O, memory=functools.partial(Memory))
    Scrubber(p, lag=14)
    Scrubber()
    RegisteredReadRam(shape=4, depth=4)
    ProtectedMemory(shape=8, depth=4, init=[1, 2], attrs={"no_rw_check": 1})
    ProtectedMemory(shape=8, depth=4, init=None)
    Code("none", 1)
    ReuseTable(2, key_width=1, what_ifs=4)
    BucketTable(p)
    LruList(p)
    LiveGhostLists(p)
    StatisticsCounters()
    StatisticsCounters(stages=2)
    LoopDetector(p)
    ShadowDirectory(4, bimodal=True, stages=1)
    Recovery(16)
    PredictorCarry(p, hash_latency=11)
    KvAsuRegisters(p, stats_stages=2, stat_lag=17)
    KvAsuRegisters()
    AxiLiteSubordinate(12, readable=range(0, 16, 4), writable=(4,))
    Match([8, 1])
