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
//                      with KVASU_FAULTS, Verilator --vpi --public-flat-rw; faults are
//                      applied in cycle order, on their own, not in the AXI queue)
// Requests are offered in file order, each from cycle max(not_before, previous acceptance
// + 1); AXI operations run in file order on their own, concurrently with the requests, one
// at a time, each from its not_before cycle.
// OUT_RSP.bin: per response: u64 accept_cycle, u64 response_cycle, u32 payload[rsp_words].
// OUT_AXI.bin: per operation: u32 kind, u32 addr, u32 rdata, u32 resp, u64 start_cycle
// (AW/AR handshake), u64 done_cycle (B/R handshake).
// Cycle 0 is the first rising edge at which rst is low (spec section 4). The run ends when
// every request has been answered and every AXI operation has finished; it fails if the
// block makes no progress for 100 000 cycles (a hang is a bug, never a timeout to raise).

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "Vkv_asu.h"

// Verilator escapes the "__" of Amaranth's port names ("req__valid") as "___05F".
#define PORT(iface, member) iface##___05F##member
#include "verilated.h"
#if KVASU_FAULTS
#include "verilated_vpi.h"
#endif
#if VM_TRACE
#include "verilated_fst_c.h"
#endif

namespace {

// Copy between 32-bit words and a Verilated port of any width.
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

struct Request { uint64_t not_before; std::vector<uint32_t> payload; };
struct Fault { uint64_t cycle; uint32_t word, bit; std::string name; };
struct AxiOp { uint32_t kind, addr, data, strb; uint64_t not_before; };

struct Reader {
  FILE* f;
  template <typename T> bool read(T& v) { return fread(&v, sizeof v, 1, f) == 1; }
};

uint64_t xorshift(uint64_t& s) { s ^= s << 13; s ^= s >> 7; s ^= s << 17; return s; }

[[noreturn]] void die(const char* msg) { fprintf(stderr, "kvasu_fast: %s\n", msg); exit(2); }

#if KVASU_FAULTS
// Flip one bit of one word of a memory array through VPI (the Verilated model is built with
// --public-flat-rw, so every array is reachable by its hierarchical name).
void flip(const Fault& f) {
  vpiHandle mem = vpi_handle_by_name(const_cast<char*>(f.name.c_str()), nullptr);
  if (!mem) { fprintf(stderr, "kvasu_fast: no memory %s\n", f.name.c_str()); exit(2); }
  vpiHandle word = vpi_handle_by_index(mem, (PLI_INT32)f.word);
  if (!word) { fprintf(stderr, "kvasu_fast: no word %u of %s\n", f.word, f.name.c_str()); exit(2); }
  if (f.bit >= (uint32_t)vpi_get(vpiSize, word)) die("fault bit beyond the word's width");
  s_vpi_value v;
  v.format = vpiVectorVal;
  vpi_get_value(word, &v);
  const unsigned n = ((unsigned)vpi_get(vpiSize, word) + 31) / 32;
  std::vector<s_vpi_vecval> vec(v.value.vector, v.value.vector + n);
  vec[f.bit / 32].aval ^= 1u << (f.bit % 32);
  v.value.vector = vec.data();
  vpi_put_value(word, &v, nullptr, vpiNoDelay);
}
#endif

}  // namespace

int main(int argc, char** argv) {
  if (argc < 6) die("usage: kvasu_fast IN.bin OUT_RSP.bin OUT_AXI.bin READY_PERMILLE SEED [WAVES.fst]");
  FILE* in = fopen(argv[1], "rb");
  FILE* out_rsp = fopen(argv[2], "wb");
  FILE* out_axi = fopen(argv[3], "wb");
  if (!in || !out_rsp || !out_axi) die("cannot open files");
  const unsigned ready_permille = (unsigned)atoi(argv[4]);
  uint64_t rng = strtoull(argv[5], nullptr, 0) * 0x9E3779B97F4A7C15ull + 1;

  Reader r{in};
  uint32_t magic, req_words, rsp_words;
  if (!r.read(magic) || magic != 0x3154564B || !r.read(req_words) || !r.read(rsp_words))
    die("bad input header");
  std::deque<Request> requests;
  std::deque<AxiOp> axi_ops;
  std::vector<Fault> faults;
  for (uint32_t kind; r.read(kind);) {
    uint64_t nb;
    if (!r.read(nb)) die("truncated record");
    if (kind == 5) {
      Fault f{nb, 0, 0, {}};
      uint32_t n;
      if (!(r.read(f.word) && r.read(f.bit) && r.read(n))) die("truncated fault");
      f.name.resize(n);
      if (fread(&f.name[0], 1, n, in) != n) die("truncated fault name");
#if !KVASU_FAULTS
      die("fault records need a harness built for fault injection (KVASU_FAULTS)");
#endif
      faults.push_back(std::move(f));
    } else if (kind == 0) {
      Request q{nb, std::vector<uint32_t>(req_words)};
      if (fread(q.payload.data(), 4, req_words, in) != req_words) die("truncated request");
      requests.push_back(std::move(q));
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

  auto ctx = std::make_unique<VerilatedContext>();
  auto top = std::make_unique<Vkv_asu>(ctx.get());
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
  // AXI state: 0 idle, 1 address/data phase, 2 waiting for B/R.
  int axi_state = 0;
  bool aw_done = false, w_done = false;
  uint64_t axi_start = 0;
  uint64_t last_progress = 0;
  uint64_t accepted = 0;
  bool held = false;   // between a barrier and its release

  std::stable_sort(faults.begin(), faults.end(),
                   [](const Fault& a, const Fault& b) { return a.cycle < b.cycle; });
  std::size_t next_fault = 0;

  for (uint64_t cycle = 0;; cycle++) {
#if KVASU_FAULTS
    for (; next_fault < faults.size() && faults[next_fault].cycle <= cycle; next_fault++)
      flip(faults[next_fault]);
#endif
    // Drive the request stream.
    // Barriers and releases at the head of the AXI queue act on the request stream.
    while (axi_state == 0 && !axi_ops.empty() && axi_ops.front().kind >= 3 &&
           axi_ops.front().not_before <= cycle) {
      const AxiOp& op = axi_ops.front();
      if (op.kind == 4) { held = false; axi_ops.pop_front(); continue; }
      if (accepted >= op.addr && in_flight.empty()) { held = true; axi_ops.pop_front(); continue; }
      break;
    }
    const bool barrier_waiting = axi_state == 0 && !axi_ops.empty() && axi_ops.front().kind == 3;
    const bool stopped = held || (barrier_waiting && accepted >= axi_ops.front().addr);
    bool offer = !stopped && !requests.empty() && requests.front().not_before <= cycle;
    top->PORT(req, valid) = offer;
    if (offer) put(top->PORT(req, payload), requests.front().payload.data(), req_words);
    top->PORT(rsp, ready) = ready_permille >= 1000 || (xorshift(rng) % 1000) < ready_permille;

    // Drive the AXI4-Lite master.
    if (axi_state == 0 && !axi_ops.empty() && axi_ops.front().kind <= 2 &&
        axi_ops.front().not_before <= cycle) {
      const AxiOp& op = axi_ops.front();
      axi_state = 1; aw_done = w_done = false;
      if (op.kind == 1) {
        top->PORT(axil, awaddr) = op.addr; top->PORT(axil, awprot) = 0; top->PORT(axil, awvalid) = 1;
        top->PORT(axil, wdata) = op.data; top->PORT(axil, wstrb) = op.strb; top->PORT(axil, wvalid) = 1;
      } else {
        top->PORT(axil, araddr) = op.addr; top->PORT(axil, arprot) = 0; top->PORT(axil, arvalid) = 1;
      }
    }
    top->PORT(axil, bready) = axi_state != 0;
    top->PORT(axil, rready) = axi_state != 0;

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
      if (in_flight.empty()) die("response with no request in flight");
      uint64_t acc = in_flight.front();
      in_flight.pop_front();
      fwrite(&acc, 8, 1, out_rsp); fwrite(&cycle, 8, 1, out_rsp);
      fwrite(rsp_words_buf.data(), 4, rsp_words, out_rsp);
    }
    if (axi_state == 1) {
      const AxiOp& op = axi_ops.front();
      if (op.kind == 1) {
        if (aw_fire) { aw_done = true; top->PORT(axil, awvalid) = 0; axi_start = cycle; }
        if (w_fire) { w_done = true; top->PORT(axil, wvalid) = 0; }
        if (aw_done && w_done) axi_state = 2;
      } else if (ar_fire) {
        top->PORT(axil, arvalid) = 0; axi_start = cycle; axi_state = 2;
      }
    }
    if (axi_state == 2 && (b_fire || r_fire)) {
      const AxiOp& op = axi_ops.front();
      uint32_t rec[4] = {op.kind, op.addr, op.kind == 2 ? rdata : 0, op.kind == 1 ? bresp : rresp};
      fwrite(rec, 4, 4, out_axi); fwrite(&axi_start, 8, 1, out_axi); fwrite(&cycle, 8, 1, out_axi);
      axi_ops.pop_front();
      axi_state = 0;
    }
    if (req_fire || rsp_fire || b_fire || r_fire) last_progress = cycle;
    if (requests.empty() && in_flight.empty() && axi_ops.empty() && axi_state == 0) break;
    if (cycle - last_progress > 100000) {
      fprintf(stderr, "kvasu_fast: no progress for 100000 cycles at cycle %llu "
              "(%zu requests left, %zu in flight, %zu AXI ops left)\n",
              (unsigned long long)cycle, requests.size(), in_flight.size(), axi_ops.size());
      return 3;
    }
  }
#if VM_TRACE
  if (tfp) tfp->close();
#endif
  top->final();
  fclose(out_rsp);
  fclose(out_axi);
  return 0;
}
