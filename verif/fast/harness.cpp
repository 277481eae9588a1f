// SPDX-License-Identifier: Apache-2.0
// Fast trace harness around the Verilated kv_asu: requests and AXI4-Lite operations in,
// responses and register results out, at millions of cycles per second.
//
// Used where a cocotb scoreboard (Python per transaction) is too slow: the soak (ten
// million requests), the throughput benchmark and trace replay. It only drives and records;
// every check against the golden model is done afterwards in Python (verif/fast/__init__.py).
//
// Usage: kvasu_fast IN.bin OUT_RSP.bin OUT_AXI.bin READY_PERMILLE SEED [WAVES.fst]
//
// IN.bin (little endian): header u32 magic 'KVT1', u32 req_words, u32 rsp_words; then
// records, each u32 kind followed by
//   kind 0, request:   u64 not_before, u32 payload[req_words]
//   kind 1, AXI write: u64 not_before, u32 addr, u32 data, u32 strb
//   kind 2, AXI read:  u64 not_before, u32 addr
//   kind 3, barrier:   u64 not_before, u32 k: stop offering requests once k have been
//                      accepted, and wait until all of them are answered
//   kind 4, release:   u64 not_before: offer requests again
//   kind 5, fault:     u64 cycle, u32 word, u32 bit, u32 n, char name[n]: before the
//                      rising edge that ends cycle `cycle`, flip bit `bit` of word `word`
//                      of the memory array with hierarchical name `name` (a harness built
//                      with KVASU_FAULTS, Verilator --vpi, the arrays public; faults are
//                      applied in cycle order, on their own, not in the AXI queue)
//   kind 6, run:       u64 index, u32 n, then n faults, each u64 cycle, u32 word, u32 bit,
//                      u32 len, char name[len]: one more run of the same stimulus with
//                      these faults (see "Runs" below; KVASU_FAULTS builds only)
//   kind 7, master:    u64 0, u32 ready_permille, u32 reads, u32 skew: how the AXI master
//                      behaves (without this record: 1000, 1, 0): BREADY and RREADY high
//                      in a cycle with this probability (per mille, drawn from a stream
//                      of their own); up to `reads` reads outstanding at once (a read
//                      is issued while earlier reads wait for their R, never beside a
//                      write); AWVALID and WVALID each raised 0..skew cycles (drawn) after
//                      a write starts
// Requests are offered in file order, each from cycle max(not_before, previous acceptance
// + 1); AXI operations run in file order on their own, concurrently with the requests,
// each from its not_before cycle: one at a time, except reads as kind 7 allows (a write
// waits until every earlier operation is answered, and so does any operation after it).
// OUT_RSP.bin: per response: u64 accept_cycle, u64 response_cycle, u32 payload[rsp_words].
// Every 2^24 cycles the harness prints "progress CYCLE ACCEPTED LEFT" on stdout (the
// requests accepted so far and those left), for a caller that shows a long run's progress.
// OUT_AXI.bin: per operation: u32 kind, u32 addr, u32 rdata, u32 resp, u64 start_cycle
// (AW/AR handshake), u64 done_cycle (B/R handshake).
// Cycle 0 is the first rising edge at which rst is low (spec section 4). The run ends when
// every request has been answered and every AXI operation has finished (the records' last
// cycle); the harness then watches 64 more cycles, nothing offered and every ready high, and
// fails if the block raises rsp.valid, BVALID or RVALID in them (an answer too many). It
// fails if the block makes no progress for 100 000 cycles while it owes a handshake (a
// request offered, a response to a request accepted, an AXI operation under way; a hang is
// a bug, never a timeout to raise): exit status 3; 2 for any other failure of the block (a
// response with no request in flight, a B or R with no operation of its kind outstanding,
// an answer after the end). Exit status 4 is the harness's own error, never the block's:
// bad arguments or input, an input whose word counts are not the Verilated ports', an
// output it cannot write, a VPI flip that fails, a fork that fails. Cycles in which
// the harness only waits for the next record's not_before are idle, not a hang: a trace's
// gaps (the frames of a video trace at its frame rate) may be longer than the bound.
//
// Runs (kind 6 records): the harness simulates the stimulus once, without faults (an input
// with both kind 5 and kind 6 records is refused: a child would carry the parent's earlier
// flips, which no fresh run of its own faults has), and at the first fault cycle of each run
// fork()s; the child applies that run's faults and goes on to the end exactly as a fresh
// harness given the same stimulus and those faults as kind 5 records would (the same state,
// the same back-pressure draws), and writes OUT_RSP.bin.<index> and OUT_AXI.bin.<index>
// (its messages to OUT_RSP.bin.<index>.err).
// The parent waits for each child before it goes on (one core), and at its end writes
// OUT_RSP.bin.runs: per run, in input order, u64 index and i32 exit status (-1: killed by a
// signal; 4: the harness's own error). A run whose first fault cycle comes after the
// parent's end is the parent's run (no flip happens within it): its files are copies of the
// parent's.

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <sys/wait.h>
#include <unistd.h>

#include "Vkv_asu.h"

// Verilator escapes the "__" of Amaranth's port names ("req__valid") as "___05F".
#define PORT(iface, member) iface##___05F##member
#include "verilated.h"
#if KVASU_FAULTS
#include "vpi_flip.h"
#endif
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

namespace {

// Copy between 32-bit words and a Verilated port of any width; port_words: the 32-bit words
// a port holds (the input's req_words and rsp_words must equal them, checked at startup).
template <std::size_t N>
void put(VlWide<N>& dst, const uint32_t* w, unsigned) { for (std::size_t i = 0; i < N; i++) dst[i] = w[i]; }
void put(QData& dst, const uint32_t* w, unsigned n) { dst = w[0] | (n > 1 ? (uint64_t)w[1] << 32 : 0); }
void put(IData& dst, const uint32_t* w, unsigned) { dst = w[0]; }
void put(SData& dst, const uint32_t* w, unsigned) { dst = (SData)w[0]; }
void put(CData& dst, const uint32_t* w, unsigned) { dst = (CData)w[0]; }
template <std::size_t N>
void get(const VlWide<N>& src, uint32_t* w, unsigned) { for (std::size_t i = 0; i < N; i++) w[i] = src[i]; }
void get(QData src, uint32_t* w, unsigned n) { w[0] = (uint32_t)src; if (n > 1) w[1] = (uint32_t)(src >> 32); }
void get(IData src, uint32_t* w, unsigned) { w[0] = src; }
void get(SData src, uint32_t* w, unsigned) { w[0] = src; }
void get(CData src, uint32_t* w, unsigned) { w[0] = src; }
template <typename T> struct Words;
template <std::size_t N> struct Words<VlWide<N>> { static constexpr unsigned n = N; };
template <> struct Words<QData> { static constexpr unsigned n = 2; };
template <> struct Words<IData> { static constexpr unsigned n = 1; };
template <> struct Words<SData> { static constexpr unsigned n = 1; };
template <> struct Words<CData> { static constexpr unsigned n = 1; };
template <typename Port>
constexpr unsigned port_words = Words<std::remove_cv_t<std::remove_reference_t<Port>>>::n;

struct Request { uint64_t not_before; std::vector<uint32_t> payload; };
struct Fault { uint64_t cycle; uint32_t word, bit; std::string name; };
struct Run { uint64_t index; std::vector<Fault> faults; uint64_t first; int status; };
struct AxiOp { uint32_t kind, addr, data, strb; uint64_t not_before; };
struct Outstanding { AxiOp op; uint64_t start; };   // issued (AW and W, or AR, handshaken)

struct Reader {
  FILE* f;
  template <typename T> bool read(T& v) { return fread(&v, sizeof v, 1, f) == 1; }
  bool fault(Fault& out) {       // u32 word, u32 bit, u32 n, char name[n] (cycle read before)
    uint32_t n;
    if (!(read(out.word) && read(out.bit) && read(n))) return false;
    out.name.resize(n);
    return fread(&out.name[0], 1, n, f) == n;
  }
};

// The output records, kept in memory until the end of the run (a forked run writes its own
// copy of everything, the records before the fork included).
struct Output {
  std::string rsp, axi;
  void add(std::string& buf, const void* p, std::size_t n) {
    buf.append(static_cast<const char*>(p), n);
  }
};

[[noreturn]] void die(const char* msg);

void write_file(const std::string& path, const std::string& data) {
  FILE* f = fopen(path.c_str(), "wb");
  if (!f || fwrite(data.data(), 1, data.size(), f) != data.size() || fclose(f)) die("cannot write output");
}

uint64_t xorshift(uint64_t& s) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }

// True in a forked run: it ends with _exit, never running the destructors of the Verilated
// context (its thread pool's worker thread was not forked; joining it would wait forever).
bool forked_child = false;

[[noreturn]] void finish(int status) {
  fflush(nullptr);
  if (forked_child) _exit(status);
  exit(status);
}

// The exit statuses: the block failed (a protocol failure), the block hung, the harness
// itself failed (never the block's fault).
constexpr int kBlockFailed = 2, kHang = 3, kHarnessError = 4;

// The harness's own error: exit status 4.
[[noreturn]] void die(const char* msg) { fprintf(stderr, "kvasu_fast: %s\n", msg); finish(kHarnessError); }

// The block broke the protocol: exit status 2.
[[noreturn]] void fail(const char* msg) { fprintf(stderr, "kvasu_fast: %s\n", msg); finish(kBlockFailed); }

// Cycles the harness watches after the run's end (below). A response still in the block's
// pipeline then would leave it within the block's latency (19 cycles in the default and
// small builds, 23 at most, with three hash multiply stages), and a register access's B or
// R comes at most 5 cycles after its AW / W or AR: 64 covers both with room to spare, at a
// cost of 64 cycles a run. Nothing is recorded in them: the run's cycles are the records'
// (verif/fast/drive.py, read_result).
constexpr uint64_t kTrailingCycles = 64;

// The main loop ends at the cycle of the last handshake (or the one after it, where a last
// release record is taken): every request answered, every AXI operation finished, so the
// block owes nothing. A response, B or R after it is one too many (a duplicate of the
// last, an answer to nothing), which a run that stopped there would never see. With
// nothing offered and every ready high, any of them is a failure of the block (exit status
// 2, as for one during the run). Faults (kind 5 and 6) are not applied here: a flip is
// within the run or not at all. A forked run watches these cycles as a fresh one does, and
// verif.faults counts a failure here as one during the run (a protocol failure: silent,
// whatever the block flagged).
template <typename Top, typename Tick>
void drain_trailing_cycles(Top& top, Tick& tick, uint64_t last) {
  top.PORT(req, valid) = 0; top.PORT(rsp, ready) = 1;
  top.PORT(axil, awvalid) = 0; top.PORT(axil, wvalid) = 0; top.PORT(axil, arvalid) = 0;
  top.PORT(axil, bready) = 1; top.PORT(axil, rready) = 1;
  for (uint64_t cycle = last + 1; cycle <= last + kTrailingCycles; cycle++) {
    top.clk = 0; top.eval();
    const char* what = top.PORT(rsp, valid) ? "a response (rsp.valid)"
                       : top.PORT(axil, bvalid) ? "a write response (BVALID)"
                       : top.PORT(axil, rvalid) ? "a read response (RVALID)" : nullptr;
    if (what) {
      char msg[200];
      snprintf(msg, sizeof msg, "%s at cycle %llu, %llu cycles after the run's end "
               "(cycle %llu), with nothing owed", what, (unsigned long long)cycle,
               (unsigned long long)(cycle - last), (unsigned long long)last);
      fail(msg);
    }
    tick();
  }
}

#if KVASU_FAULTS
// Flip one bit of one word of a memory array (the Verilated model is built with every
// memory array public_flat_rw, so each is reachable by its hierarchical name).
void flip(const Fault& f) {
  if (const char* why = vpi_flip(f.name.c_str(), f.word, f.bit)) {
    fprintf(stderr, "kvasu_fast: %s %s (word %u, bit %u)\n", why, f.name.c_str(), f.word, f.bit);
    finish(kHarnessError);
  }
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) die("usage: kvasu_fast IN.bin OUT_RSP.bin OUT_AXI.bin READY_PERMILLE SEED [WAVES.fst]");
  FILE* in = fopen(argv[1], "rb");
  if (!in) die("cannot open the input");
  std::string rsp_path = argv[2], axi_path = argv[3];
  const std::string runs_path = rsp_path + ".runs";
  char* end = nullptr;
  const long ready_arg = strtol(argv[4], &end, 10);
  if (end == argv[4] || *end || ready_arg < 0 || ready_arg > 1000)
    die("READY_PERMILLE must be 0..1000");
  const unsigned ready_permille = (unsigned)ready_arg;
  uint64_t rng = strtoull(argv[5], nullptr, 0) * 0x9E3779B97F4A7C15ull + 1;
  uint64_t axi_rng = rng ^ 0x5851F42D4C957F2Dull;   // the AXI master's draws (kind 7)

  Reader r{in};
  uint32_t magic, req_words, rsp_words;
  if (!r.read(magic) || magic != 0x3154564B || !r.read(req_words) || !r.read(rsp_words))
    die("bad input header");
  {
    constexpr unsigned req_port = port_words<decltype(std::declval<Vkv_asu&>().PORT(req, payload))>;
    constexpr unsigned rsp_port = port_words<decltype(std::declval<Vkv_asu&>().PORT(rsp, payload))>;
    if (req_words != req_port || rsp_words != rsp_port) {
      char msg[200];
      snprintf(msg, sizeof msg, "the input's words per request and response (%u, %u) are not "
               "this build's ports' (%u, %u): a harness built for another configuration",
               req_words, rsp_words, req_port, rsp_port);
      die(msg);
    }
  }
  std::deque<Request> requests;
  std::deque<AxiOp> axi_ops;
  std::vector<Fault> faults;
  std::vector<Run> runs;
  uint32_t axi_ready_permille = 1000, max_reads = 1, skew = 0;
  for (uint32_t kind; r.read(kind);) {
    uint64_t nb;
    if (!r.read(nb)) die("truncated record");
#if !KVASU_FAULTS
    if (kind == 5 || kind == 6)
      die("fault records need a harness built for fault injection (KVASU_FAULTS)");
#endif
    if (kind == 5) {
      Fault f{nb, 0, 0, {}};
      if (!r.fault(f)) die("truncated fault");
      faults.push_back(std::move(f));
    } else if (kind == 6) {
      Run run{nb, {}, UINT64_MAX, 0};
      uint32_t n;
      if (!r.read(n) || n == 0) die("a run needs at least one fault");
      for (uint32_t i = 0; i < n; i++) {
        Fault f{0, 0, 0, {}};
        if (!r.read(f.cycle) || !r.fault(f)) die("truncated run");
        run.first = std::min(run.first, f.cycle);
        run.faults.push_back(std::move(f));
      }
      runs.push_back(std::move(run));
    } else if (kind == 0) {
      Request q{nb, std::vector<uint32_t>(req_words)};
      if (fread(q.payload.data(), 4, req_words, in) != req_words) die("truncated request");
      requests.push_back(std::move(q));
    } else if (kind == 7) {
      if (!(r.read(axi_ready_permille) && r.read(max_reads) && r.read(skew)) || max_reads == 0)
        die("bad master record");
    } else if (kind >= 1 && kind <= 4) {
      AxiOp op{kind, 0, 0, 0, nb};
      if (kind != 4 && !r.read(op.addr)) die("truncated AXI op");
      if (kind == 1 && !(r.read(op.data) && r.read(op.strb))) die("truncated AXI write");
      axi_ops.push_back(op);
    } else {
      die("unknown record kind");
    }
  }
  fclose(in);
  if (!faults.empty() && !runs.empty()) die("fault records (kind 5) and runs (kind 6) exclude each other");

  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Vkv_asu>(ctx.get());
  if (!runs.empty() && argc > 6) die("waves and runs (kind 6) exclude each other");
#if VM_TRACE
  std::unique_ptr<VerilatedFstC> tfp;
  if (argc > 6) {
    ctx->traceEverOn(true);
    tfp = std::make_unique<VerilatedFstC>();
    top->trace(tfp.get(), 99);
    tfp->open(argv[6]);
  }
#endif
  uint64_t time_ps = 0;
  auto tick = [&](void) {
    top->clk = 0; top->eval();
#if VM_TRACE
    if (tfp) tfp->dump(time_ps);
#endif
    time_ps += 5000;
    top->clk = 1; top->eval();
#if VM_TRACE
    if (tfp) tfp->dump(time_ps);
#endif
    time_ps += 5000;
  };

  top->rst = 1;
  top->PORT(req, valid) = 0; top->PORT(rsp, ready) = 0;
  top->PORT(axil, awvalid) = 0; top->PORT(axil, wvalid) = 0; top->PORT(axil, bready) = 0;
  top->PORT(axil, arvalid) = 0; top->PORT(axil, rready) = 0;
  for (int i = 0; i < 4; i++) tick();
  top->rst = 0;

  std::deque<uint64_t> in_flight;  // acceptance cycles of requests not yet answered
  std::vector<uint32_t> rsp_words_buf(rsp_words);
  // AXI master: the operation being issued (AW and W, or AR, not yet all handshaken), and
  // those issued and waiting for their B or R, oldest first.
  bool issuing = false, aw_done = false, w_done = false;
  AxiOp cur{};
  uint64_t aw_at = 0, w_at = 0;    // the cycles AWVALID and WVALID rise (skew)
  uint64_t aw_cycle = 0;           // a write's AW handshake: its start
  std::deque<Outstanding> outstanding;
  uint64_t last_progress = 0;
  uint64_t accepted = 0;
  bool held = false;   // between a barrier and its release

  auto by_cycle = [](const Fault& a, const Fault& b) { return a.cycle < b.cycle; };
  std::stable_sort(faults.begin(), faults.end(), by_cycle);
  std::size_t next_fault = 0;
  // The runs in fork order (stable: input order among runs of one cycle).
  std::vector<std::size_t> fork_order(runs.size());
  for (std::size_t i = 0; i < runs.size(); i++) fork_order[i] = i;
  std::stable_sort(fork_order.begin(), fork_order.end(),
                   [&](std::size_t a, std::size_t b) { return runs[a].first < runs[b].first; });
  std::size_t next_run = 0;
  std::vector<bool> forked(runs.size(), false);
  Output out;

  uint64_t cycle = 0;   // after the loop: the run's last cycle
  for (;; cycle++) {
#if KVASU_FAULTS
    // Fork the runs whose first fault is in this cycle; a child becomes that run.
    while (next_run < fork_order.size() && runs[fork_order[next_run]].first <= cycle) {
      Run& run = runs[fork_order[next_run++]];
      fflush(nullptr);
      const pid_t pid = fork();
      if (pid < 0) die("fork failed");
      if (pid == 0) {
        const std::string tail = "." + std::to_string(run.index);
        forked_child = true;
        if (!freopen((rsp_path + tail + ".err").c_str(), "w", stderr)) finish(kHarnessError);
        rsp_path += tail; axi_path += tail;
        faults = run.faults;   // the parent has none (kind 5 and 6 exclude each other)
        std::stable_sort(faults.begin(), faults.end(), by_cycle);
        next_fault = 0;
        runs.clear(); fork_order.clear(); next_run = 0;
        break;
      }
      int wstatus = 0;
      if (waitpid(pid, &wstatus, 0) != pid) die("waitpid failed");
      run.status = WIFEXITED(wstatus) ? WEXITSTATUS(wstatus) : -1;
      forked[&run - runs.data()] = true;
    }
    for (; next_fault < faults.size() && faults[next_fault].cycle <= cycle; next_fault++)
      flip(faults[next_fault]);
#endif
    if (cycle && (cycle & 0xFFFFFF) == 0) {
      printf("progress %llu %llu %zu\n", (unsigned long long)cycle,
             (unsigned long long)accepted, requests.size());
      fflush(stdout);
    }
    // Drive the request stream.
    // Barriers and releases at the head of the AXI queue act on the request stream.
    const bool axi_idle = !issuing && outstanding.empty();
    while (axi_idle && !axi_ops.empty() && axi_ops.front().kind >= 3 &&
           axi_ops.front().not_before <= cycle) {
      const AxiOp& op = axi_ops.front();
      if (op.kind == 4) { held = false; axi_ops.pop_front(); continue; }
      if (accepted >= op.addr && in_flight.empty()) { held = true; axi_ops.pop_front(); continue; }
      break;
    }
    const bool barrier_waiting = axi_idle && !axi_ops.empty() && axi_ops.front().kind == 3;
    const bool stopped = held || (barrier_waiting && accepted >= axi_ops.front().addr);
    bool offer = !stopped && !requests.empty() && requests.front().not_before <= cycle;
    top->PORT(req, valid) = offer;
    if (offer) put(top->PORT(req, payload), requests.front().payload.data(), req_words);
    top->PORT(rsp, ready) = ready_permille >= 1000 || (xorshift(rng) % 1000) < ready_permille;

    // Drive the AXI4-Lite master. The next operation starts when nothing is being issued
    // and every earlier one is answered, or, a read behind reads only, when fewer than
    // max_reads are outstanding.
    if (!issuing && !axi_ops.empty() && axi_ops.front().kind <= 2 &&
        axi_ops.front().not_before <= cycle &&
        (outstanding.empty() || (axi_ops.front().kind == 2 && outstanding.back().op.kind == 2 &&
                                 outstanding.size() < max_reads))) {
      cur = axi_ops.front();
      axi_ops.pop_front();
      issuing = true; aw_done = w_done = false;
      if (cur.kind == 1) {
        aw_at = cycle + (skew ? xorshift(axi_rng) % (skew + uint64_t{1}) : 0);
        w_at = cycle + (skew ? xorshift(axi_rng) % (skew + uint64_t{1}) : 0);
        top->PORT(axil, awaddr) = cur.addr; top->PORT(axil, awprot) = 0;
        top->PORT(axil, wdata) = cur.data; top->PORT(axil, wstrb) = cur.strb;
      } else {
        top->PORT(axil, araddr) = cur.addr; top->PORT(axil, arprot) = 0; top->PORT(axil, arvalid) = 1;
      }
    }
    if (issuing && cur.kind == 1) {
      top->PORT(axil, awvalid) = !aw_done && cycle >= aw_at;
      top->PORT(axil, wvalid) = !w_done && cycle >= w_at;
    }
    const bool axi_ready = axi_ready_permille >= 1000 || xorshift(axi_rng) % 1000 < axi_ready_permille;
    top->PORT(axil, bready) = (issuing || !outstanding.empty()) && axi_ready;
    top->PORT(axil, rready) = (issuing || !outstanding.empty()) && axi_ready;

    top->clk = 0; top->eval();   // settle the combinational outputs for this cycle
    const bool req_fire = top->PORT(req, valid) && top->PORT(req, ready);
    const bool rsp_fire = top->PORT(rsp, valid) && top->PORT(rsp, ready);
    if (rsp_fire) get(top->PORT(rsp, payload), rsp_words_buf.data(), rsp_words);
    const bool aw_fire = top->PORT(axil, awvalid) && top->PORT(axil, awready);
    const bool w_fire = top->PORT(axil, wvalid) && top->PORT(axil, wready);
    const bool ar_fire = top->PORT(axil, arvalid) && top->PORT(axil, arready);
    const bool b_fire = top->PORT(axil, bvalid) && top->PORT(axil, bready);
    const bool r_fire = top->PORT(axil, rvalid) && top->PORT(axil, rready);
    const uint32_t bresp = top->PORT(axil, bresp), rresp = top->PORT(axil, rresp), rdata = top->PORT(axil, rdata);
    tick();

    if (req_fire) {
      in_flight.push_back(cycle);
      accepted++;
      requests.pop_front();
    }
    if (rsp_fire) {
      if (in_flight.empty()) fail("response with no request in flight");
      uint64_t acc = in_flight.front();
      in_flight.pop_front();
      out.add(out.rsp, &acc, 8); out.add(out.rsp, &cycle, 8);
      out.add(out.rsp, rsp_words_buf.data(), 4 * rsp_words);
    }
    // A B or R answers the oldest outstanding operation, which must be of its kind (the
    // handshakes of this edge: an operation issued in it is not yet outstanding).
    if (b_fire || r_fire) {
      if (b_fire && r_fire) fail("B and R in one cycle with one kind of operation outstanding");
      if (outstanding.empty() || outstanding.front().op.kind != (b_fire ? 1u : 2u))
        fail(b_fire ? "a write response with no write outstanding"
                   : "a read response with no read outstanding");
      const Outstanding& o = outstanding.front();
      uint32_t rec[4] = {o.op.kind, o.op.addr, r_fire ? rdata : 0, b_fire ? bresp : rresp};
      out.add(out.axi, rec, 16); out.add(out.axi, &o.start, 8); out.add(out.axi, &cycle, 8);
      outstanding.pop_front();
    }
    if (issuing) {
      if (cur.kind == 1) {
        if (aw_fire) { aw_done = true; top->PORT(axil, awvalid) = 0; aw_cycle = cycle; }
        if (w_fire) { w_done = true; top->PORT(axil, wvalid) = 0; }
        if (aw_done && w_done) { outstanding.push_back({cur, aw_cycle}); issuing = false; }
      } else if (ar_fire) {
        top->PORT(axil, arvalid) = 0;
        outstanding.push_back({cur, cycle});
        issuing = false;
      }
    }
    // Idle cycles (nothing offered, nothing owed) count as progress: only the block's
    // handshakes can be late.
    const bool owed = offer || !in_flight.empty() || issuing || !outstanding.empty();
    if (req_fire || rsp_fire || b_fire || r_fire || !owed) last_progress = cycle;
    if (requests.empty() && in_flight.empty() && axi_ops.empty() && !issuing &&
        outstanding.empty()) break;
    if (cycle - last_progress > 100000) {
      fprintf(stderr, "kvasu_fast: no progress for 100000 cycles at cycle %llu "
              "(%zu requests left, %zu in flight, %zu AXI ops left)\n",
              (unsigned long long)cycle, requests.size(), in_flight.size(), axi_ops.size());
      finish(kHang);
    }
  }
  drain_trailing_cycles(*top, tick, cycle);
#if VM_TRACE
  if (tfp) tfp->close();
#endif
  top->final();
  write_file(rsp_path, out.rsp);
  write_file(axi_path, out.axi);
  if (forked_child) finish(0);
  if (!runs.empty()) {
    std::string table;
    for (std::size_t i = 0; i < runs.size(); i++) {
      if (!forked[i]) {           // its first fault comes after the end: the parent's run
        const std::string tail = "." + std::to_string(runs[i].index);
        write_file(rsp_path + tail, out.rsp);
        write_file(axi_path + tail, out.axi);
        write_file(rsp_path + tail + ".err", "");
      }
      const int32_t status = runs[i].status;
      out.add(table, &runs[i].index, 8); out.add(table, &status, 4);
    }
    write_file(runs_path, table);
  }
  return 0;
}
