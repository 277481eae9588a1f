// SPDX-License-Identifier: Apache-2.0
//
// kv_asu_wrapper: the KV-ASU core (module kv_asu, generated under dist/<build>/kv_asu.v)
// with conventional port names and one port per request and response field.
// Hand-written Verilog-2005: renaming, (un)packing, and the reset gate below.
//
// Clock and reset: one clock `clk`; `rst` is active high and synchronous (sampled on the
// rising edge of `clk`), as the core's own. Hold it for at least one cycle. While `rst` is
// high the wrapper takes no transfer: req_ready, s_axil_awready, s_axil_wready and
// s_axil_arready read 0 and the core sees req_valid, AWVALID, WVALID and ARVALID low (the
// bare core reads its ready outputs as 1 in reset and would lose a request or register
// access handshaken then). A request or access held across the reset is taken after it,
// once. A reset drops the requests in flight and the responses not yet taken. A reset untracks
// every line at once (a new table generation) and the block runs with the default
// configuration (CTRL.ENABLE = 1) from the next cycle; one flush or reset in 16 wraps the
// generations and clears the table instead, one row per cycle for ENTRIES/PROBE cycles (512
// in the default build, 64 in the iCE40 one) with req_ready low (docs/spec-decisions.md D12).
//
// Parameters: the field widths of the build compiled with this wrapper. They must match
// it; each generated file's header comment lists its values. Defaults: the default build.
//   ADDR_WIDTH   request address width             (default 64; iCE40 build 32)
//   COUNT_WIDTH  saturating access count width      (default 16; iCE40 build 8)
//   SLOT_WIDTH   log2(ENTRIES), table slot width     (default 11; iCE40 build 7)
//   TAG_WIDTH    tag width of a tracked line         (default 56; iCE40 build 24)
//
// Ports:
//   s_axil_*        AXI4-Lite subordinate, 12-bit byte address, 32-bit data
//                   (register map: docs/registers-table.md, C header sw/kv_asu_regs.h)
//   req_*           request stream (valid/ready): op (0 OBSERVE, 1 QUERY, 2 EVICT,
//                   3 EVICT_ANY), min_tlevel (for QUERY), addr (byte address)
//   rsp_*           response stream, one per request, in request order
//                   (fields: docs/spec-decisions.md and docs/integration.md)
`default_nettype none

module kv_asu_wrapper #(
    parameter ADDR_WIDTH  = 64,
    parameter COUNT_WIDTH = 16,
    parameter SLOT_WIDTH  = 11,
    parameter TAG_WIDTH   = 56
) (
    input  wire                   clk,
    input  wire                   rst,

    // AXI4-Lite register port
    input  wire [11:0]            s_axil_awaddr,
    input  wire [2:0]             s_axil_awprot,
    input  wire                   s_axil_awvalid,
    output wire                   s_axil_awready,
    input  wire [31:0]            s_axil_wdata,
    input  wire [3:0]             s_axil_wstrb,
    input  wire                   s_axil_wvalid,
    output wire                   s_axil_wready,
    output wire [1:0]             s_axil_bresp,
    output wire                   s_axil_bvalid,
    input  wire                   s_axil_bready,
    input  wire [11:0]            s_axil_araddr,
    input  wire [2:0]             s_axil_arprot,
    input  wire                   s_axil_arvalid,
    output wire                   s_axil_arready,
    output wire [31:0]            s_axil_rdata,
    output wire [1:0]             s_axil_rresp,
    output wire                   s_axil_rvalid,
    input  wire                   s_axil_rready,

    // request stream
    input  wire                   req_valid,
    output wire                   req_ready,
    input  wire [1:0]             req_op,
    input  wire [1:0]             req_min_tlevel,
    input  wire [ADDR_WIDTH-1:0]  req_addr,

    // response stream
    output wire                   rsp_valid,
    input  wire                   rsp_ready,
    output wire [1:0]             rsp_op,
    output wire                   rsp_present,
    output wire [1:0]             rsp_tlevel_before,
    output wire                   rsp_tracked,
    output wire [1:0]             rsp_tlevel,
    output wire                   rsp_hit,
    output wire                   rsp_victim_valid,
    output wire [COUNT_WIDTH-1:0] rsp_count,
    output wire [SLOT_WIDTH-1:0]  rsp_slot,
    output wire [TAG_WIDTH-1:0]   rsp_victim_tag
);

    // Payload layouts, least significant field first (regmap/kv_asu.toml).
    localparam REQ_WIDTH = 2 + 2 + ADDR_WIDTH;
    localparam RSP_WIDTH = 2 + 1 + 2 + 1 + 2 + 1 + 1 + COUNT_WIDTH + SLOT_WIDTH + TAG_WIDTH;

    wire [REQ_WIDTH-1:0] req_payload = {req_addr, req_min_tlevel, req_op};
    wire [RSP_WIDTH-1:0] rsp_payload;

    // The reset gate: no handshake on the request stream or the AXI4-Lite AW, W and AR
    // channels while rst is high, on either side of the wrapper.
    wire core_req_ready, core_awready, core_wready, core_arready;
    assign req_ready      = core_req_ready & ~rst;
    assign s_axil_awready = core_awready & ~rst;
    assign s_axil_wready  = core_wready & ~rst;
    assign s_axil_arready = core_arready & ~rst;

    assign {rsp_victim_tag, rsp_slot, rsp_count, rsp_victim_valid, rsp_hit, rsp_tlevel,
            rsp_tracked, rsp_tlevel_before, rsp_present, rsp_op} = rsp_payload;

    kv_asu core (
        .clk            (clk),
        .rst            (rst),
        .axil__awaddr   (s_axil_awaddr),
        .axil__awprot   (s_axil_awprot),
        .axil__awvalid  (s_axil_awvalid & ~rst),
        .axil__awready  (core_awready),
        .axil__wdata    (s_axil_wdata),
        .axil__wstrb    (s_axil_wstrb),
        .axil__wvalid   (s_axil_wvalid & ~rst),
        .axil__wready   (core_wready),
        .axil__bresp    (s_axil_bresp),
        .axil__bvalid   (s_axil_bvalid),
        .axil__bready   (s_axil_bready),
        .axil__araddr   (s_axil_araddr),
        .axil__arprot   (s_axil_arprot),
        .axil__arvalid  (s_axil_arvalid & ~rst),
        .axil__arready  (core_arready),
        .axil__rdata    (s_axil_rdata),
        .axil__rresp    (s_axil_rresp),
        .axil__rvalid   (s_axil_rvalid),
        .axil__rready   (s_axil_rready),
        .req__valid     (req_valid & ~rst),
        .req__ready     (core_req_ready),
        .req__payload   (req_payload),
        .rsp__valid     (rsp_valid),
        .rsp__ready     (rsp_ready),
        .rsp__payload   (rsp_payload)
    );

endmodule

`default_nettype wire
