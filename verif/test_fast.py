# SPDX-License-Identifier: Apache-2.0
"""The Verilated RTL in the fast C++ harness, every response checked by the golden model.

CI-sized runs of the soak (mixed traffic, back-pressure, register fuzzing, commits and
flushes), the throughput patterns of the benchmark, and the hostile-address study. The
long versions are `make soak` and `make bench`. Seeds are printed; set KVASU_SEED to
reproduce a failure.
"""

import json
import random

import numpy as np
import pytest

from golden_model.trace import save_trace
from regmap import AXIL_ADDR_WIDTH, OPS, Params
from verif import fast
from verif.codec import Codec
from verif.hostile import attack_rtl, colliding_lines
from verif.predictor_soak import CONFIGS as PREDICTOR_CONFIGS
from verif.replay import replay
from verif.seeds import announced_seed
from verif.soak import CONFIGS, soak


@pytest.fixture(scope="module")
def seed():
    return announced_seed()


@pytest.fixture(scope="module")
def build_root(fast_build_root):
    return fast_build_root


# The default configuration is covered by the cocotb regression (verif/test_kv_asu.py); its
# fast-harness build needs tens of GB of g++ memory, so CI soaks the small one here.
@pytest.mark.parametrize("config, requests", [("small", 200_000)])
def test_soak_short(config, requests, seed, build_root, capsys):
    summary = soak(CONFIGS[config], requests, seed, build_root / config, chunk=requests // 2)
    # every request sent was checked against the model
    assert summary["requests"] == requests and summary["checked"] == requests, summary
    codes = summary["axi_responses"]
    # the register fuzzing really hit every kind of answer
    for code in ("read_OKAY", "read_DECERR", "write_OKAY", "write_SLVERR", "write_DECERR"):
        assert codes.get(code, 0) > 0, codes
    # every chunk's sixteen flushes in a row ran the clear sweep at least once (D12)
    assert summary["sweeps"] >= summary["chunks"], summary
    # B and R back-pressured in both of its shares, whatever the seed (verif.soak.axi_master)
    ready = [m["ready_permille"] for m in summary["axi_masters"]]
    assert len(ready) == summary["chunks"] and {700, 300} <= set(ready), ready


def test_count_saturation_back_to_back(seed, build_root):
    """Count saturation, which the soak's mixed traffic does not reach on the small
    configuration (COUNT_MAX 15): rounds of ``COUNT_MAX + 2`` back-to-back OBSERVEs of one
    line, a QUERY of it, then EVICT_ANYs that empty the table, with the response consumer
    always ready (exact timing checked) and ready in 30 % of cycles; every response
    against the golden model (``fast.check``), and a saturated count (``count ==
    COUNT_MAX``) answered by at least two OBSERVEs in both: a count that saturates
    one short or wraps, in the RTL or in the model, fails here."""
    from golden_model import KvAsuModel
    params = CONFIGS["small"]
    exe = fast.build(params, build_root / "small")
    rng = random.Random(seed)
    O, Q, E = OPS["OBSERVE"], OPS["QUERY"], OPS["EVICT_ANY"]
    requests = []
    for _ in range(4):
        line = rng.getrandbits(params.ADDR_WIDTH)
        requests += [(0, O, line, 0)] * (params.COUNT_MAX + 2) + [(0, Q, line, 3)]
        requests += [(0, E, 0, 0)] * params.ENTRIES
    codec = Codec(params)
    for ready in (1000, 300):
        result = fast.run(exe, params, requests, ready_permille=ready, seed=seed)
        checked = fast.check(params, KvAsuModel(params), requests, [], result,
                             latency=fast.build_latency(params), always_ready=ready == 1000)
        assert checked["requests"] == len(requests), checked
        counts = [codec.unpack_rsp(sum(int(w) << (32 * i) for i, w in enumerate(row)))["count"]
                  for row, request in zip(result.responses, requests) if request[1] == O]
        assert counts.count(params.COUNT_MAX) >= 2 and max(counts) == params.COUNT_MAX, (
            ready, counts)


@pytest.mark.parametrize("kw, match", [({"ready_permille": 1001}, "ready_permille"),
                                       ({"reads": 0}, "reads"), ({"skew": -1}, "skew"),
                                       ({"skew": 2**32}, "skew"), ({"reads": 2**32}, "reads")])
def test_an_axi_master_out_of_range_is_refused(kw, match):
    with pytest.raises(ValueError, match=match):
        fast.AxiMaster(**kw)
    fast.AxiMaster(skew=2**32 - 1)        # the largest the harness's field holds


_REQ = [(0, OPS["OBSERVE"], 0, 0)]


@pytest.mark.parametrize("requests, axi, faults, match", [
    (_REQ, [fast.AxiOp("read", 1 << AXIL_ADDR_WIDTH)], (), r"AXI operation 0 \(read\)'s addr"),
    (_REQ, [fast.AxiOp("write", 1 << AXIL_ADDR_WIDTH)], (), r"\(write\)'s addr"),
    (_REQ, [fast.AxiOp("write", 0x40, strb=0x10)], (), "strb must be 0..15"),
    (_REQ, [fast.AxiOp("write", 0x40, data=2**32)], (), "data must be"),
    (_REQ, [fast.AxiOp("read", 0x40, not_before=-1)], (), "not_before must be"),
    ([(-1, OPS["OBSERVE"], 0, 0)], [], (), "request 0's not_before"),
    (_REQ, [], [fast.Fault(-1, "TOP.x", 0, 0)], "fault's cycle"),
    (_REQ, [], [fast.Fault(0, "TOP.x", -1, 0)], "fault's word"),
    (_REQ, [], [fast.Fault(0, "TOP.x", 0, -2)], "fault's bit"),
])
def test_an_operand_out_of_its_field_is_refused_by_name(requests, axi, faults, match):
    """Not truncated into the port (an AXI address of AXIL_ADDR_WIDTH bits or more would
    reach the block with its upper bits dirty) nor a ``struct.error``."""
    with pytest.raises(ValueError, match=match):
        fast.encode(Codec(CONFIGS["small"]), requests, axi, faults)


@pytest.mark.parametrize("ready", [-5, 1001, 2000])
def test_run_refuses_a_ready_share_out_of_range(ready, tmp_path):
    with pytest.raises(ValueError, match="ready_permille must be 0..1000"):
        fast.run(tmp_path / "no_harness", CONFIGS["small"], _REQ, ready_permille=ready)


def test_run_refuses_a_harness_built_for_other_params(tmp_path):
    exe = tmp_path / "kvasu_fast"
    (tmp_path / fast.drive.BUILD_PARAMS).write_text(json.dumps(CONFIGS["default"].as_dict()))
    with pytest.raises(ValueError, match="built for other parameters"):
        fast.run(exe, CONFIGS["small"], _REQ)
    fast.check_build(exe, CONFIGS["default"])


@pytest.mark.parametrize("script, says", [("echo oops >&2; exit 4", "exit status 4"),
                                          ("kill -SEGV $$", "killed by signal 11"),
                                          ("exit 5", "exit status 5")])
def test_a_failure_of_the_harness_is_a_harness_error_not_a_mismatch(tmp_path, script, says):
    exe = tmp_path / "kvasu_fast"
    exe.write_text("#!/bin/sh\n" + script + "\n")
    exe.chmod(0o755)
    with pytest.raises(fast.HarnessError, match=says) as info:
        fast.run(exe, CONFIGS["small"], _REQ)
    assert not isinstance(info.value, fast.Mismatch)
    assert isinstance(fast.failure(2, ""), fast.Mismatch)
    assert isinstance(fast.failure(3, ""), fast.Hang)


def test_check_handles_addresses_wider_than_64_bits():
    from golden_model import KvAsuModel
    params = Params(ADDR_WIDTH=128, LINE_SHIFT=64, TAG_WIDTH=64)
    codec = Codec(params)
    requests = [(0, OPS["OBSERVE"], (5 << 100) | 1 << 64, 0), (1, OPS["QUERY"], 5 << 100, 0),
                (2, OPS["QUERY"], 2**128 - 1, 0)]
    acc = np.array([0, 1, 2], np.uint64)
    expected = KvAsuModel(params).run(acc, [r[1] for r in requests], [r[2] for r in requests],
                                      [0, 0, 0], responses=True)
    packed = [sum(e.as_dict()[name] << offset for name, offset, _ in codec.rsp_fields)
              for e in expected]
    words = np.array([[(w >> (32 * i)) & 0xFFFF_FFFF for i in range(codec.rsp_words)]
                      for w in packed], np.uint32)
    result = fast.FastResult(acc, acc + 30, words, [], 0.0, 40)
    assert fast.check(params, KvAsuModel(params), requests, [], result)["requests"] == 3
    words[1, 0] ^= 1
    with pytest.raises(fast.Mismatch, match="response 1"):
        fast.check(params, KvAsuModel(params), requests, [], result)


def test_register_problems_are_capped_and_counted():
    """Every difference counts; only the first ``max_report`` are listed, registers'
    as responses'."""
    from golden_model import KvAsuModel
    from regmap import REG
    params = CONFIGS["small"]
    reads = [fast.AxiOp("read", REG["ID"].offset) for _ in range(8)]
    result = fast.FastResult(np.zeros(0, np.uint64), np.zeros(0, np.uint64),
                             np.zeros((0, Codec(params).rsp_words), np.uint32),
                             [(2, op.addr, 0xBAD, 0, 2 * k, 2 * k + 1)
                              for k, op in enumerate(reads)], 0.0, 20)
    with pytest.raises(fast.Mismatch) as info:
        fast.check(params, KvAsuModel(params), [], reads, result, max_report=3)
    lines = str(info.value).splitlines()
    assert lines[0] == "8 mismatches; first:" and len(lines) == 4, lines


def test_a_request_at_an_action_writes_response_counts_as_a_mismatch():
    from golden_model import KvAsuModel
    from regmap import REG
    params = CONFIGS["small"]
    ctrl = REG["CTRL"]
    write = fast.AxiOp("write", ctrl.offset, ctrl.mask("ENABLE") | ctrl.mask("CLEAR_STATS"))
    requests = [(0, OPS["QUERY"], 0, 0)]
    model = KvAsuModel(params)
    exp = model.run([5], [OPS["QUERY"]], [0], [0], responses=True)[0]
    codec = Codec(params)
    packed = sum(exp.as_dict()[name] << offset for name, offset, _ in codec.rsp_fields)
    words = np.array([[(packed >> (32 * i)) & 0xFFFF_FFFF for i in range(codec.rsp_words)]],
                     np.uint32)
    result = fast.FastResult(np.array([5], np.uint64), np.array([30], np.uint64), words,
                             [(1, write.addr, 0, 0, 4, 5)], 0.0, 31)
    with pytest.raises(fast.Mismatch, match=r"^1 mismatches; first:\n.*D8 forbids"):
        fast.check(params, KvAsuModel(params), requests, [write], result)


@pytest.mark.parametrize("axi, match", [
    ([fast.AxiOp("barrier", 4), fast.AxiOp("release")], "the stream has 3"),
    ([fast.AxiOp("barrier", 1)], "no release"),
    ([fast.AxiOp("barrier", 1), fast.AxiOp("barrier", 2), fast.AxiOp("release")], "inside"),
])
def test_a_barrier_the_harness_could_not_pass_or_leave_is_refused(axi, match):
    """The harness would idle for ever behind it (idle is not a hang), so it never runs."""
    requests = [(0, OPS["OBSERVE"], 0, 0)] * 3
    with pytest.raises(ValueError, match=match):
        fast.encode(Codec(CONFIGS["small"]), requests, axi)
    fast.encode(Codec(CONFIGS["small"]), requests, [fast.AxiOp("barrier", 3)])  # the last: fine


def test_drain_refill_evicts_a_tail_within_w1():
    """The soak's drain and refill (``Traffic.drain_refill``): the list emptied, a few new
    lines, and EVICTs whose tail is within W1, which an EVICT refuses and an EVICT_ANY
    takes (elsewhere in a soak the tail is older than W1)."""
    from golden_model import KvAsuModel
    from verif.soak import Traffic

    params = CONFIGS["small"]
    traffic = Traffic(params, random.Random(4))
    model = KvAsuModel(params)
    for cycle, op, addr, min_tlevel in traffic.requests(300, 0):
        model.request(cycle, op, addr, min_tlevel)
    refused = taken = 0
    for _ in range(20):
        cycle += 1
        segment = traffic.drain_refill(cycle)
        drain = params.ENTRIES + 1
        for _, op, addr, min_tlevel in segment[:drain]:
            model.request(cycle, op, addr, min_tlevel)
        assert model.occupancy == 0
        for _, op, addr, min_tlevel in segment[drain:]:
            tracked = model.occupancy
            response = model.request(cycle, op, addr, min_tlevel)
            if op == OPS["EVICT"]:
                assert not response.victim_valid
                refused += tracked > 0
            elif op == OPS["EVICT_ANY"]:
                assert response.victim_valid == (tracked > 0)
                taken += tracked > 0
    assert refused and taken


def test_one_request_per_cycle_for_observe_and_query(build_root):
    from tools.bench import measure_patterns
    params = CONFIGS["small"]
    exe = fast.build(params, build_root / "small")
    results = measure_patterns(params, exe, 3000)
    for name, figures in results.items():
        if name.startswith(("observe", "query")):
            assert figures["requests_per_cycle"] == 1.0, (name, figures)
        assert figures["latency_cycles_min"] == figures["latency_cycles_max"], (name, figures)


def test_bench_predictor_checks_the_latency_it_prints(build_root, monkeypatch):
    """``tools.bench_predictor`` prints each pattern's latency: the cycle of every response
    is checked against the build's latency (consumer always ready), so a response one cycle
    late is a mismatch, not a figure."""
    from tools.bench_predictor import measure
    from verif.predictor_soak import OPTIONS     # the replay's build below: built once
    params = PREDICTOR_CONFIGS["small"]
    exe = fast.build(params, build_root / "predictor_small", options=OPTIONS)
    latency = fast.build_latency(params, OPTIONS)
    for figures in measure(params, exe, 40, options=OPTIONS).values():
        for policy in figures.values():
            assert policy["latency_cycles_min"] == policy["latency_cycles_max"] == latency
    run = fast.run

    def one_late(*args, **kwargs):
        result = run(*args, **kwargs)
        result.response_cycle[-1] += 1          # the last response a cycle late
        return result
    monkeypatch.setattr(fast, "run", one_late)
    with pytest.raises(fast.Mismatch, match="due at"):
        measure(params, exe, 40, options=OPTIONS)


def test_secret_seed_spreads_hostile_lines_on_the_rtl(seed, build_root):
    params = CONFIGS["small"]
    tags = colliding_lines(params, 8, random.Random(seed))
    report = attack_rtl(params, tags, 4, random.Random(seed).getrandbits(32) | 1,
                        build_root / "small")    # every response checked against the model
    after = report["secret_seed_on_rtl"]
    assert after["tracked_at_end"] > params.PROBE, after   # no longer confined to one window


def test_a_gap_longer_than_the_hang_bound_replays_clean(build_root, tmp_path):
    """A trace may be idle for longer than the harness's 100 000-cycle hang bound (a video
    trace waits a frame period between frames): waiting for a request's cycle is not a hang.
    The requests after the gap find the lines before it (their ages saturated). The gap
    passes cycle 2**24, where the harness reports its progress."""
    gap = (1 << 24) + 1000
    lines = [0x40 * k for k in range(6)]
    cycle = list(range(6)) + [gap + k for k in range(12)]
    op = [OPS["OBSERVE"]] * 6 + [OPS["QUERY"], OPS["OBSERVE"]] * 6
    addr = lines + [a for line in lines for a in (line, line)]
    path = tmp_path / "gap.npz"
    save_trace(path, np.array(cycle, np.uint64), np.array(op, np.uint8),
               np.array(addr, np.uint64), np.zeros(len(cycle), np.uint8))
    reports = []
    s = replay(path, CONFIGS["small"], build_root / "small",
               progress=lambda *report: reports.append(report))   # raises fast.Mismatch
    assert s["requests"] == len(cycle)
    assert s["model_stats"]["queries"] == 6 and s["model_stats"]["observes"] == 12
    assert s["rtl_stats"] == s["model_stats"]
    assert reports == [(1 << 24, 6, 12)]


def test_replay_in_the_predictor_mode(build_root, tmp_path):
    """``verif.replay --predictor``: the predictor build, POLICY.MODE = 1 committed before the
    first request, every response and statistic equal to the model in that mode. The trace
    loops over 1.5 times the table with EVICTs between, so ghosts and their frees occur."""
    params = PREDICTOR_CONFIGS["small"]
    rng = random.Random(3)
    loop = [rng.getrandbits(params.TAG_WIDTH) << params.LINE_SHIFT
            for _ in range(params.ENTRIES * 3 // 2)]
    cycle, op, addr = [], [], []
    for k in range(3000):
        line = loop[k % len(loop)]
        cycle.append(k)
        op.append(OPS["EVICT"] if k % 3 == 2 else OPS["QUERY"] if k % 7 == 0 else OPS["OBSERVE"])
        addr.append(0 if op[-1] == OPS["EVICT"] else line)
    path = tmp_path / "loop.npz"
    save_trace(path, np.array(cycle, np.uint64), np.array(op, np.uint8),
               np.array(addr, np.uint64), np.full(len(cycle), 3, np.uint8))
    s = replay(path, params, build_root / "predictor_small", predictor=True)
    assert s["policy"] == "predictor" and s["rtl_stats"] == s["model_stats"]
    assert s["model_stats"]["evicts"] > 0 and s["model_stats"]["inserts"] > 0


def test_a_block_that_stops_answering_is_reported_as_a_hang(build_root):
    """The hang bound still holds while the block owes a handshake: with the response
    consumer never ready, the block stops taking requests and the harness gives up."""
    params = CONFIGS["small"]
    exe = fast.build(params, build_root / "small")
    requests = [(k, OPS["QUERY"], 0x40 * k, 0) for k in range(200)]
    with pytest.raises(fast.Hang, match="no progress"):
        fast.run(exe, params, requests, ready_permille=0)


# A stand-in for kv_asu, with its ports, for checks of the harness itself: it takes one
# request at a time and answers it the cycle after (its payload as the response); a request
# with min_tlevel 3 it answers twice, the second time addr[7:0] + 1 cycles after the first
# is taken. A write it answers with B, a read with R (the address as data), the cycle after
# the AW / W or AR handshake; one to an address with the top bit set it answers twice
# likewise, the second time wdata[7:0] + 1 (a write) or araddr[9:2] + 1 (a read) cycles
# after the first. Its build is a few seconds, against minutes for the block's.
_STAND_IN = """
module kv_asu(
  input clk, input rst,
  input req__valid, output req__ready, input [{rw}:0] req__payload,
  output rsp__valid, input rsp__ready, output [{sw}:0] rsp__payload,
  input [{aw}:0] axil__awaddr, input [2:0] axil__awprot, input axil__awvalid,
  output axil__awready, input [31:0] axil__wdata, input [3:0] axil__wstrb,
  input axil__wvalid, output axil__wready,
  output axil__bvalid, input axil__bready, output [1:0] axil__bresp,
  input [{aw}:0] axil__araddr, input [2:0] axil__arprot, input axil__arvalid,
  output axil__arready,
  output axil__rvalid, input axil__rready, output [31:0] axil__rdata, output [1:0] axil__rresp);
  // each channel: the first answer owed, a second one to come, the cycles until it
  reg busy = 0, first = 0, again = 0; reg [7:0] due = 0; reg [{sw}:0] data = 0;
  assign req__ready = !busy;
  assign rsp__valid = busy && (first || (again && due == 0));
  assign rsp__payload = data;
  always @(posedge clk)
    if (rst) begin busy <= 0; first <= 0; again <= 0; end
    else if (!busy) begin
      if (req__valid) begin
        busy <= 1; first <= 1; data <= req__payload;
        again <= req__payload[{tlevel} +: 2] == 3; due <= req__payload[{addr} +: 8];
      end
    end else if (rsp__valid && rsp__ready) begin
      busy <= first && again; again <= first && again; first <= 0;
    end else if (!first && due != 0) due <= due - 1;

  reg bfirst = 0, bagain = 0; reg [7:0] bdue = 0;
  assign axil__awready = axil__awvalid && axil__wvalid && !bfirst && !bagain;
  assign axil__wready = axil__awready;
  assign axil__bvalid = bfirst || (bagain && bdue == 0);
  assign axil__bresp = 0;
  always @(posedge clk)
    if (rst) begin bfirst <= 0; bagain <= 0; end
    else if (axil__awready) begin
      bfirst <= 1; bagain <= axil__awaddr[{aw}]; bdue <= axil__wdata[7:0];
    end else if (axil__bvalid && axil__bready) begin bagain <= bfirst && bagain; bfirst <= 0; end
    else if (!bfirst && bdue != 0) bdue <= bdue - 1;

  reg rfirst = 0, ragain = 0; reg [7:0] rdue = 0; reg [{aw}:0] raddr = 0;
  assign axil__arready = axil__arvalid && !rfirst && !ragain;
  assign axil__rvalid = rfirst || (ragain && rdue == 0);
  assign axil__rdata = raddr;
  assign axil__rresp = 0;
  always @(posedge clk)
    if (rst) begin rfirst <= 0; ragain <= 0; end
    else if (axil__arready) begin
      rfirst <= 1; ragain <= axil__araddr[{aw}]; rdue <= axil__araddr[9:2]; raddr <= axil__araddr;
    end else if (axil__rvalid && axil__rready) begin ragain <= rfirst && ragain; rfirst <= 0; end
    else if (!rfirst && rdue != 0) rdue <= rdue - 1;
endmodule
"""


@pytest.fixture(scope="module")
def stand_in(build_root):
    params = CONFIGS["small"]
    codec = Codec(params)
    offset = {name: off for name, off, _ in codec.req_fields}
    text = _STAND_IN.format(rw=codec.req_width - 1, sw=codec.rsp_width - 1,
                            aw=AXIL_ADDR_WIDTH - 1, tlevel=offset["min_tlevel"],
                            addr=offset["addr"])
    return params, fast.build(params, build_root / "stand_in", verilog=text)


_TOP = 1 << (AXIL_ADDR_WIDTH - 1)    # the stand-in answers an access with this bit twice


def test_a_block_that_answers_once_passes_and_its_cycles_end_at_the_last_answer(stand_in):
    """The stand-in's plain answers pass the harness, and the run's cycles are those of its
    last handshake (as the benchmark reads them), not of the cycles watched after it."""
    params, exe = stand_in
    requests = [(k, OPS["QUERY"], 0x100 * k, 0) for k in range(5)]
    result = fast.run(exe, params, requests, [fast.AxiOp("write", 0x40, 7),
                                              fast.AxiOp("read", 0x44)])
    assert result.accept_cycle.tolist() == [0, 2, 4, 6, 8]
    assert result.response_cycle.tolist() == [1, 3, 5, 7, 9]
    assert [(r[0], r[4], r[5]) for r in result.axi] == [(1, 0, 1), (2, 2, 3)]
    assert result.cycles == 10


def test_a_harness_built_for_other_port_widths_refuses_the_input(stand_in, build_root):
    """The input's words per request and response are checked against the Verilated ports
    (a stand-in two words wider each way, built from its own Verilog, so only the harness
    can tell): the harness's own error, not the block's."""
    params, _ = stand_in
    codec = Codec(params)
    offset = {name: off for name, off, _ in codec.req_fields}
    text = _STAND_IN.format(rw=codec.req_width + 63, sw=codec.rsp_width + 63,
                            aw=AXIL_ADDR_WIDTH - 1, tlevel=offset["min_tlevel"],
                            addr=offset["addr"])
    exe = fast.build(params, build_root / "stand_in_wide", verilog=text)
    with pytest.raises(fast.HarnessError, match=rf"exit status 4\).*\({codec.req_words}, "
                       rf"{codec.rsp_words}\) are not this build's ports' "
                       rf"\({codec.req_words + 2}, {codec.rsp_words + 2}\)"):
        fast.run(exe, params, [(k, OPS["QUERY"], 0x100 * k, 0) for k in range(3)])


def test_a_read_beyond_the_register_space_never_reaches_the_port(stand_in):
    """The stand-in echoes the AXI read address: an in-range one comes back whole."""
    params, exe = stand_in
    top = (1 << AXIL_ADDR_WIDTH) - 4
    result = fast.run(exe, params, [], [fast.AxiOp("read", top & ~_TOP)])
    assert result.axi[0][2] == top & ~_TOP
    with pytest.raises(ValueError, match=f"addr must be 0..{(1 << AXIL_ADDR_WIDTH) - 1}"):
        fast.run(exe, params, [], [fast.AxiOp("read", 0x1044)])


@pytest.mark.parametrize("what, gap", [("response", 0), ("response", 63),
                                       ("write", 0), ("write", 63), ("read", 0), ("read", 63)])
def test_an_answer_after_the_last_one_is_caught(stand_in, what, gap):
    """A block that answers the run's last request or register access twice, the second
    time 1 to 64 cycles after the run's end (its last handshake), fails the run: the
    harness watches that long after it. The message names what came and when."""
    params, exe = stand_in
    requests = [(k, OPS["QUERY"], 0x100 * k, 0) for k in range(4)]
    axi = [fast.AxiOp("write", 0x40, 7), fast.AxiOp("read", 0x44)]
    if what == "response":       # the last request, after every AXI operation
        requests.append((20, OPS["QUERY"], gap, 3))
    elif what == "write":        # the last access, after every request
        axi.append(fast.AxiOp("write", _TOP, gap, not_before=20))
    else:
        axi.append(fast.AxiOp("read", _TOP | gap << 2, not_before=20))
    name = {"response": "a response", "write": "a write response", "read": "a read response"}
    with pytest.raises(fast.Mismatch, match=rf"harness failed \(2\): kvasu_fast: "
                       rf"{name[what]} \([\w.]+\) at cycle \d+, {gap + 1} cycles "
                       rf"after the run's end"):
        fast.run(exe, params, requests, axi)
