# SPDX-License-Identifier: Apache-2.0
"""The checker's own pieces: payload packing and the register mirror (D8)."""

import os
import random

import pytest

from golden_model import KvAsuModel
from regmap import REG, Params, config_legal, mode_violations, request_fields
from verif.codec import Codec
from verif.regmirror import LIVE, RegisterMirror, Resp

#: Added to each test's seed of its random cases (``KV_ASU_TEST_SEED``, else 0: the cases
#: each test has always drawn); printed by a failing test (conftest.py).
SEED = int(os.environ.get("KV_ASU_TEST_SEED", "0"))

CTRL = REG["CTRL"]


def test_request_packing_follows_the_regmap_layout():
    p = Params()
    c = Codec(p)
    assert [n for n, _ in request_fields(p)] == ["op", "min_tlevel", "addr"]
    word = c.pack_req(op=2, addr=0xDEAD_BEEF_0000_0100, min_tlevel=3)
    assert word & 0b11 == 2 and word >> 2 & 0b11 == 3 and word >> 4 == 0xDEAD_BEEF_0000_0100
    with pytest.raises(ValueError, match="op"):
        c.pack_req(op=4, addr=0)


def test_response_packing_roundtrip():
    p = Params(ENTRIES=16, ADDR_WIDTH=32)
    c = Codec(p)
    rng = random.Random(SEED + 5)
    for _ in range(100):
        fields = {name: rng.getrandbits(width) for name, _off, width in c.rsp_fields}
        word = sum(fields[name] << off for name, off, _w in c.rsp_fields)
        assert c.unpack_rsp(word) == fields
        assert c.pack_rsp(fields) == word
    name, _off, width = c.rsp_fields[0]
    with pytest.raises(ValueError, match=name):
        c.pack_rsp({**fields, name: 1 << width})


def _mirror():
    p = Params(ENTRIES=16)
    return RegisterMirror(p, KvAsuModel(p))


def test_illegal_commit_is_refused_and_changes_nothing():
    m = _mirror()
    before = m.active()
    assert m.write(10, REG["C2"].offset, 9) == Resp.OKAY          # C2 > C3: illegal
    assert m.write(11, CTRL.offset, CTRL.mask("COMMIT")) == Resp.SLVERR
    assert m.active() == before and m.enable == 1 and m.error == 1


def test_errors_strobes_and_latch():
    m = _mirror()
    assert m.write(0, REG["ID"].offset, 1) == Resp.SLVERR
    assert m.write(0, 0xFFC, 1) == Resp.DECERR and m.read(0xFFC) == (Resp.DECERR, 0)
    m.write(0, REG["HASH_SEED"].offset, 0xAABBCCDD, strb=0b0100)
    assert m.read(REG["HASH_SEED"].offset) == (Resp.OKAY, 0x00BB0000)
    assert m.read(REG["CYCLE"].offset) == (Resp.OKAY, LIVE)
    assert m.read(REG["CYCLE"].offset + 4) == (Resp.OKAY, LIVE)
    assert m.read(REG["STAT_OBSERVES"].offset) == (Resp.OKAY, 0)
    assert m.read(REG["STAT_OBSERVES"].offset + 4) == (Resp.OKAY, 0)


@pytest.mark.parametrize("predictor", [False, True])
def test_mirror_and_model_share_the_legality_rule(predictor):
    # a set the rule refuses is refused by the mirror and by the model, and vice versa; a
    # build without the predictor also refuses POLICY.MODE = 1 (spec-predictor.md P2)
    p = Params(ENTRIES=16)
    m = RegisterMirror(p, KvAsuModel(p), predictor=predictor)
    rng = random.Random(SEED + 11)
    for _ in range(300):
        shadow = {"C3": rng.randint(0, p.COUNT_MAX + 1), "C2": rng.randint(0, 4),
                  "W3": rng.randint(0, 40), "W2": rng.randint(0, 80),
                  "W1": rng.randint(0, p.WMAX + 1), "HASH_SEED": rng.getrandbits(32),
                  "MODE": rng.choice((0, 0, 1, 1, 2, 1 << 31)),    # D13: bits 31:1 reserved
                  "POLICY": rng.choice((0, 0, 1, 1, 2, 1 << 31))}  # P2: bits 31:1 reserved
        m.shadow = dict(shadow)
        before = m.active()
        resp = m.write(0, CTRL.offset, CTRL.mask("COMMIT") | CTRL.mask("ENABLE"))
        config = {k: v for k, v in shadow.items() if k not in ("MODE", "POLICY")}
        if config_legal(p, config) and not mode_violations(shadow, predictor=predictor):
            assert resp == Resp.OKAY and m.active() == shadow
        else:
            assert resp == Resp.SLVERR and m.active() == before and m.error == 1
            if (config_legal(p, config) and
                    not mode_violations(shadow, predictor=True)):
                # refused by the build alone (POLICY.MODE = 1 without the predictor): the
                # model (both policies) takes it
                assert not predictor
                m.error = 0
                continue
            with pytest.raises(ValueError, match="illegal"):
                m.model.commit(0, mode=shadow["MODE"], policy=shadow["POLICY"], **config)
        m.error = 0


def test_policy_commit_flushes_and_p_policies_reads_the_build():
    """P2: on a predictor build a commit that changes POLICY.MODE flushes (one table
    generation) and switches the model; P_POLICIES reads the build's policies."""
    p = Params(ENTRIES=16)
    for predictor in (False, True):
        m = RegisterMirror(p, KvAsuModel(p), predictor=predictor)
        assert m.read(REG["P_POLICIES"].offset) == (Resp.OKAY, 3 if predictor else 1)
        m.model.request(0, 0, 0x100)
        assert m.model.occupancy == 1
        assert m.write(1, REG["POLICY"].offset, 1) == Resp.OKAY
        assert m.read(REG["POLICY"].offset) == (Resp.OKAY, 1)
        resp = m.write(2, CTRL.offset, CTRL.mask("COMMIT") | CTRL.mask("ENABLE"))
        if predictor:
            assert resp == Resp.OKAY and m.model.policy == "predictor"
            assert m.read(REG["ACT_POLICY"].offset) == (Resp.OKAY, 1)
            assert m.model.occupancy == 0 and m.generations.used == 1
        else:
            assert resp == Resp.SLVERR and m.error == 1 and m.model.policy == "article"
            assert m.read(REG["ACT_POLICY"].offset) == (Resp.OKAY, 0)
            assert m.model.occupancy == 1 and m.generations.used == 0


def test_policy_with_nonblocking_commits_on_the_predictor_build():
    """P2 / D13: the mirror commits POLICY.MODE = 1 with MODE.NONBLOCKING (one flush, one
    table generation, the model switched and non-blocking); the flush rule it and the
    front door share (``flushes``) counts the change of POLICY."""
    p = Params(ENTRIES=16)
    m = RegisterMirror(p, KvAsuModel(p), predictor=True)
    commit = CTRL.mask("COMMIT") | CTRL.mask("ENABLE")
    m.model.request(0, 0, 0x100)
    assert m.write(1, REG["POLICY"].offset, 1) == Resp.OKAY
    assert m.write(1, REG["MODE"].offset, 1) == Resp.OKAY
    assert m.flushes(m.ctrl_effect(commit, 0xF))
    assert m.write(2, CTRL.offset, commit) == Resp.OKAY and m.error == 0
    assert (m.model.policy, m.model.mode, m.model.occupancy) == ("predictor", 1, 0)
    assert m.generations.used == 1
    assert m.write(3, REG["MODE"].offset, 0) == Resp.OKAY
    assert not m.flushes(m.ctrl_effect(commit, 0xF))        # MODE alone: no flush
    assert m.write(4, CTRL.offset, commit) == Resp.OKAY
    assert (m.model.policy, m.model.mode, m.generations.used) == ("predictor", 0, 1)


def test_table_generations_follow_d12():
    """The checker's count of generations is the RTL's (2**GEN_WIDTH), and every
    GENERATIONS-th flush or reset since power-up sweeps; flushes through CTRL and commits
    that change HASH_SEED count, commits that keep it do not."""
    from hdl.table import GEN_WIDTH
    from verif.regmirror import TableGenerations

    assert TableGenerations.GENERATIONS == 2 ** GEN_WIDTH
    gens = TableGenerations()
    assert [gens.untrack() for _ in range(40)] == [(n + 1) % 16 == 0 for n in range(40)]

    p = Params()
    gens = TableGenerations()
    mirror = RegisterMirror(p, KvAsuModel(params=p), gens)
    ctrl = REG["CTRL"]
    enable, flush, commit = (ctrl.mask(f) for f in ("ENABLE", "FLUSH", "COMMIT"))
    assert mirror.write(0, ctrl.offset, flush | enable) == Resp.OKAY
    assert mirror.write(1, ctrl.offset, commit | enable) == Resp.OKAY   # same seed
    assert gens.used == 1
    assert mirror.write(2, REG["HASH_SEED"].offset, 5) == Resp.OKAY
    assert mirror.write(3, ctrl.offset, commit | enable) == Resp.OKAY   # seed changes
    assert gens.used == 2 and mirror.sweeps == 0
    for n in range(14):
        mirror.write(4 + n, ctrl.offset, flush | enable)
    assert gens.used == 0 and mirror.sweeps == 1


def test_a_model_built_in_the_predictor_policy_is_refused():
    """The block starts in the article's policy (spec-predictor.md P2); a mirror over a
    model that does not would read ACT_POLICY 1 after reset and count flushes the model
    never makes."""
    p = Params()
    with pytest.raises(ValueError, match="article's policy"):
        RegisterMirror(p, KvAsuModel(policy="predictor"), predictor=True)
    RegisterMirror(p, KvAsuModel(), predictor=True)          # the block's reset state
