// SPDX-License-Identifier: Apache-2.0
//
// kv_asu_wrapper_tb: a self-checking Verilog-2005 smoke test of the shipped core through its
// wrapper (FuseSoC target `sim`, Icarus or Verilator; no Python). During the reset it offers
// a QUERY, an AXI4-Lite write and a read and checks that the wrapper takes none of them
// (every ready low while rst is high); the QUERY, held across the reset, is taken once
// after it and answered. It then reads ID and P_ENTRIES over AXI4-Lite, sends OBSERVE,
// OBSERVE and QUERY to one line and checks each response field that the spec defines for
// them, reads STAT_OBSERVES; then commits the predictor policy (taken by a build whose
// P_POLICIES has it, refused with SLVERR by the others), flushes, observes three lines and
// checks that EVICT_ANY returns the first, and that every request was taken once and got
// one response. It prints "kv_asu_wrapper_tb: PASS" or "kv_asu_wrapper_tb: FAIL ...". The
// register offsets and fields come from the generated dist/kv_asu_regs.vh (compile with
// -I dist).
//
// Parameters: the wrapper's width parameters, ENTRIES and LINE_SHIFT of the build under
// test.
//
// The testbench changes the block's inputs only at falling edges of clk and samples them
// at rising ones, so it runs the same under Icarus and under Verilator (--binary).
`timescale 1ns / 1ps
`default_nettype none
`include "kv_asu_regs.vh"

module kv_asu_wrapper_tb;
    parameter ADDR_WIDTH  = 64;
    parameter COUNT_WIDTH = 16;
    parameter SLOT_WIDTH  = 11;
    parameter TAG_WIDTH   = 56;
    parameter ENTRIES     = 2048;
    parameter LINE_SHIFT  = 8;

    localparam [1:0] OP_OBSERVE = `KVASU_OP_OBSERVE, OP_QUERY = `KVASU_OP_QUERY,
                     OP_EVICT_ANY = `KVASU_OP_EVICT_ANY;
    localparam [1:0] OKAY = 2'd0, SLVERR = 2'd2;
    localparam [ADDR_WIDTH-1:0] LINE_A = 64'h0002_0000, LINE_B = 64'h0003_0100,
                                LINE_C = 64'h0004_0200, LINE_R = 64'h0005_0300;

    reg clk = 1'b0;
    reg rst = 1'b1;
    always #5 clk = ~clk;

    reg  [11:0] awaddr = 0, araddr = 0;
    reg  [31:0] wdata = 0;
    reg         awvalid = 0, wvalid = 0, bready = 0, arvalid = 0, rready = 0;
    wire        awready, wready, bvalid, arready, rvalid;
    wire [1:0]  bresp, rresp;
    wire [31:0] rdata;

    reg                   req_valid = 0;
    reg  [1:0]            req_op = 0, req_min_tlevel = 0;
    reg  [ADDR_WIDTH-1:0] req_addr = 0;
    wire                  req_ready;
    wire                  rsp_valid;
    reg                   rsp_ready = 1'b1;
    wire [1:0]            rsp_op, rsp_tlevel_before, rsp_tlevel;
    wire                  rsp_present, rsp_tracked, rsp_hit, rsp_victim_valid;
    wire [COUNT_WIDTH-1:0] rsp_count;
    wire [SLOT_WIDTH-1:0]  rsp_slot;
    wire [TAG_WIDTH-1:0]   rsp_victim_tag;

    kv_asu_wrapper #(
        .ADDR_WIDTH(ADDR_WIDTH), .COUNT_WIDTH(COUNT_WIDTH),
        .SLOT_WIDTH(SLOT_WIDTH), .TAG_WIDTH(TAG_WIDTH)
    ) dut (
        .clk(clk), .rst(rst),
        .s_axil_awaddr(awaddr), .s_axil_awprot(3'd0), .s_axil_awvalid(awvalid),
        .s_axil_awready(awready), .s_axil_wdata(wdata), .s_axil_wstrb(4'hF),
        .s_axil_wvalid(wvalid), .s_axil_wready(wready), .s_axil_bresp(bresp),
        .s_axil_bvalid(bvalid), .s_axil_bready(bready), .s_axil_araddr(araddr),
        .s_axil_arprot(3'd0), .s_axil_arvalid(arvalid), .s_axil_arready(arready),
        .s_axil_rdata(rdata), .s_axil_rresp(rresp), .s_axil_rvalid(rvalid),
        .s_axil_rready(rready),
        .req_valid(req_valid), .req_ready(req_ready), .req_op(req_op),
        .req_min_tlevel(req_min_tlevel), .req_addr(req_addr),
        .rsp_valid(rsp_valid), .rsp_ready(rsp_ready), .rsp_op(rsp_op),
        .rsp_present(rsp_present), .rsp_tlevel_before(rsp_tlevel_before),
        .rsp_tracked(rsp_tracked), .rsp_tlevel(rsp_tlevel), .rsp_hit(rsp_hit),
        .rsp_victim_valid(rsp_victim_valid), .rsp_count(rsp_count), .rsp_slot(rsp_slot),
        .rsp_victim_tag(rsp_victim_tag)
    );

    integer errors = 0;
    integer waited;
    reg [31:0] data;
    reg [1:0]  resp;
    reg [SLOT_WIDTH-1:0] first_slot;
    reg        predictor;
    reg        aw_done, w_done;

    // Handshakes counted at each rising edge: requests taken, responses taken, and the
    // edges at which the wrapper would have taken a transfer while rst was high.
    integer requests_sent = 0, requests_taken = 0, responses_taken = 0, ready_in_reset = 0;
    always @(posedge clk) begin
        if (req_valid && req_ready) requests_taken <= requests_taken + 1;
        if (rsp_valid && rsp_ready) responses_taken <= responses_taken + 1;
        if (rst && (req_ready || awready || wready || arready))
            ready_in_reset <= ready_in_reset + 1;
    end

    task fail;
        input [8*64-1:0] what;
        begin
            $display("kv_asu_wrapper_tb: FAIL %0s", what);
            errors = errors + 1;
        end
    endtask

    // One AXI4-Lite read; data and resp hold the answer.
    task axil_read;
        input [11:0] addr;
        begin
            @(negedge clk);
            araddr = addr; arvalid = 1'b1; rready = 1'b1;
            @(posedge clk);
            while (!arready) @(posedge clk);
            @(negedge clk) arvalid = 1'b0;
            while (!rvalid) @(negedge clk);
            data = rdata; resp = rresp;
            @(posedge clk);
            @(negedge clk) rready = 1'b0;
        end
    endtask

    // One AXI4-Lite write of a whole word; resp holds BRESP. AW and W are each dropped at
    // the falling edge after their handshake.
    task axil_write;
        input [11:0] addr;
        input [31:0] value;
        begin
            @(negedge clk);
            awaddr = addr; awvalid = 1'b1; wdata = value; wvalid = 1'b1; bready = 1'b1;
            while (awvalid || wvalid) begin
                @(posedge clk);
                aw_done = awvalid && awready;
                w_done = wvalid && wready;
                @(negedge clk);
                if (aw_done) awvalid = 1'b0;
                if (w_done) wvalid = 1'b0;
            end
            while (!bvalid) @(posedge clk);
            resp = bresp;
            @(negedge clk) bready = 1'b0;
        end
    endtask

    // Poll STATUS until BUSY reads 0 (a flush or a clear sweep is over).
    task wait_not_busy;
        begin
            data = `KVASU_STATUS_BUSY_MASK;
            waited = 0;
            while ((data & `KVASU_STATUS_BUSY_MASK) && waited < ENTRIES) begin
                axil_read(`KVASU_REG_STATUS);
                waited = waited + 1;
            end
            if (data & `KVASU_STATUS_BUSY_MASK) fail("STATUS.BUSY never cleared");
        end
    endtask

    // One request; waits for its response (the response consumer is always ready).
    task request;
        input [1:0] op;
        input [1:0] min_tlevel;
        input [ADDR_WIDTH-1:0] addr;
        begin
            @(negedge clk);
            req_op = op; req_min_tlevel = min_tlevel; req_addr = addr; req_valid = 1'b1;
            request_taken;
        end
    endtask

    // The rest of a request, offered since a falling edge: its handshake, then its response.
    task request_taken;
        begin
            requests_sent = requests_sent + 1;
            @(posedge clk);
            while (!req_ready) @(posedge clk);
            @(negedge clk) req_valid = 1'b0;
            waited = 0;
            while (!rsp_valid && waited < 1000) begin
                @(negedge clk);
                waited = waited + 1;
            end
            if (!rsp_valid) fail("no response within 1000 cycles");
        end
    endtask

    initial begin
        // In reset, a QUERY, a write (of POLICY's reset value) and a read are offered: none
        // may be taken (ready_in_reset). The AXI4-Lite ones are withdrawn as the reset ends;
        // the QUERY is held across it and taken once (a reset that wraps the table
        // generations clears the table first, ENTRIES/PROBE cycles, D12).
        req_op = OP_QUERY; req_min_tlevel = 2'd0; req_addr = LINE_R; req_valid = 1'b1;
        awaddr = `KVASU_REG_POLICY; wdata = 0; awvalid = 1'b1; wvalid = 1'b1;
        araddr = `KVASU_REG_ID; arvalid = 1'b1;
        repeat (4) @(posedge clk);
        @(negedge clk);
        rst = 1'b0; awvalid = 1'b0; wvalid = 1'b0; arvalid = 1'b0;
        request_taken;
        if (rsp_op !== OP_QUERY || rsp_present !== 1'b0 || rsp_count !== 0)
            fail("QUERY held across the reset: want present 0, count 0");
        if (ready_in_reset != 0) fail("a ready was high while rst was high");

        axil_read(`KVASU_REG_ID);
        if (data !== `KVASU_ID_VALUE || resp !== OKAY) fail("ID");
        axil_read(`KVASU_REG_P_ENTRIES);
        if (data !== ENTRIES) fail("P_ENTRIES is not this build's ENTRIES");

        request(OP_OBSERVE, 2'd0, 64'h1234_5600);
        if (rsp_op !== OP_OBSERVE || rsp_present !== 1'b0 || rsp_tracked !== 1'b1 ||
            rsp_count !== 1 || rsp_tlevel_before !== 2'd0 || rsp_victim_valid !== 1'b0)
            fail("first OBSERVE: want present 0, tracked 1, count 1, T0 before, no victim");
        first_slot = rsp_slot;

        request(OP_OBSERVE, 2'd0, 64'h1234_56FF);   // same 256-byte line
        if (rsp_present !== 1'b1 || rsp_tracked !== 1'b1 || rsp_count !== 2 ||
            rsp_slot !== first_slot)
            fail("second OBSERVE: want present 1, tracked 1, count 2, same slot");

        request(OP_QUERY, 2'd1, 64'h1234_5680);
        if (rsp_op !== OP_QUERY || rsp_present !== 1'b1 || rsp_count !== 2 ||
            rsp_hit !== (rsp_tlevel_before >= 2'd1) || rsp_tlevel !== rsp_tlevel_before)
            fail("QUERY: want present 1, count 2, hit = tlevel_before >= 1");

        request(OP_QUERY, 2'd0, 64'h0BAD_0000);
        if (rsp_present !== 1'b0 || rsp_count !== 0 || rsp_hit !== 1'b1)
            fail("QUERY of an untracked line: want present 0, count 0, hit 1 (T0 >= T0)");

        repeat (8) @(posedge clk);
        axil_read(`KVASU_REG_STAT_OBSERVES_LO);
        if (data !== 2) fail("STAT_OBSERVES_LO is not 2");

        // The predictor policy (docs/spec-predictor.md P2): committed by a build that has
        // it (the commit flushes), refused with SLVERR and STATUS.ERROR by the others.
        axil_read(`KVASU_REG_P_POLICIES);
        predictor = (data & `KVASU_P_POLICIES_PREDICTOR_MASK) != 0;
        axil_write(`KVASU_REG_POLICY, `KVASU_POLICY_MODE_MASK);
        axil_write(`KVASU_REG_CTRL, `KVASU_CTRL_COMMIT_MASK | `KVASU_CTRL_ENABLE_MASK);
        if (resp !== (predictor ? OKAY : SLVERR))
            fail("commit of POLICY.MODE = 1: want OKAY with the predictor, else SLVERR");
        axil_read(`KVASU_REG_ACT_POLICY);
        if (data !== (predictor ? `KVASU_POLICY_MODE_MASK : 0))
            fail("ACT_POLICY: want POLICY.MODE with the predictor, else 0");
        if (!predictor) begin
            axil_write(`KVASU_REG_POLICY, 0);
            axil_write(`KVASU_REG_CTRL, `KVASU_CTRL_CLEAR_ERROR_MASK | `KVASU_CTRL_ENABLE_MASK);
        end
        axil_write(`KVASU_REG_CTRL, `KVASU_CTRL_FLUSH_MASK | `KVASU_CTRL_ENABLE_MASK);
        wait_not_busy;
        axil_read(`KVASU_REG_STATUS);
        if (data & `KVASU_STATUS_ERROR_MASK) fail("STATUS.ERROR still set");

        // In either policy a new line enters at the list's head: EVICT_ANY pops the line
        // observed first. In the predictor mode a live line's level is 1 or 3 (P5).
        request(OP_OBSERVE, 2'd0, LINE_A);
        request(OP_OBSERVE, 2'd0, LINE_B);
        request(OP_OBSERVE, 2'd0, LINE_C);
        request(OP_QUERY, 2'd0, LINE_B);
        if (rsp_present !== 1'b1 || (predictor && rsp_tlevel !== 2'd1 && rsp_tlevel !== 2'd3))
            fail("QUERY of an observed line: want present 1 (predictor mode: level 1 or 3)");
        request(OP_EVICT_ANY, 2'd0, 0);
        if (rsp_op !== OP_EVICT_ANY || rsp_victim_valid !== 1'b1 ||
            rsp_victim_tag !== LINE_A[ADDR_WIDTH-1:LINE_SHIFT])
            fail("EVICT_ANY: want the line observed first as the victim");
        axil_read(`KVASU_REG_OCCUPANCY);
        if (data !== 2) fail("OCCUPANCY after the EVICT_ANY is not 2");
        if (requests_taken != requests_sent || responses_taken != requests_sent)
            fail("want each request taken once and answered once");

        if (errors == 0) $display("kv_asu_wrapper_tb: PASS");
        else $display("kv_asu_wrapper_tb: FAIL (%0d errors)", errors);
        $finish;
    end

    initial begin
        #2000000;
        $display("kv_asu_wrapper_tb: FAIL timeout");
        $finish;
    end
endmodule

`default_nettype wire
