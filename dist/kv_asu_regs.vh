// SPDX-License-Identifier: Apache-2.0
// KV-ASU register map for Verilog testbenches and sequencers. Generated from
// regmap/kv_asu.toml by `make docs` (python -m regmap.cli --format verilog); do
// not edit by hand. The names are the C header's (sw/kv_asu_regs.h).
`ifndef KV_ASU_REGS_VH
`define KV_ASU_REGS_VH

// Identification: the ID register's constant and this release's VERSION (bits 23:16 major, 15:8 minor, 7:0 patch).
`define KVASU_ID_VALUE                           32'h4B564153
`define KVASU_VERSION_VALUE                      32'h00000200
`define KVASU_VERSION_MAJOR                      0
`define KVASU_VERSION_MINOR                      2
`define KVASU_VERSION_PATCH                      0
`define KVASU_AXIL_ADDR_WIDTH                    12

// Request op codes.
`define KVASU_OP_OBSERVE                         0
`define KVASU_OP_QUERY                           1
`define KVASU_OP_EVICT                           2
`define KVASU_OP_EVICT_ANY                       3

// Soft-error memories: the MEM_ID that ERR_FIRST_MEM.MEM_ID reports (0: none yet; spec decision D11).
`define KVASU_MEM_ID_ENT                         1
`define KVASU_MEM_ID_META                        2
`define KVASU_MEM_ID_MARK                        3
`define KVASU_MEM_ID_SCRUB                       4
`define KVASU_MEM_ID_PREV0                       5
`define KVASU_MEM_ID_PREV1                       6
`define KVASU_MEM_ID_NEXT0                       7
`define KVASU_MEM_ID_NEXT1                       8
`define KVASU_MEM_ID_STATS                       9

// Register byte offsets.
// ID (ro): Constant identification word 0x4B564153 ('KVAS').
`define KVASU_REG_ID                             12'h000
// VERSION (ro): Release version (the package version): bits 23:16 major, 15:8 minor, 7:0 patch; bits 31:24 read 0.
`define KVASU_REG_VERSION                        12'h004
// P_ENTRIES (ro): Elaboration parameter ENTRIES.
`define KVASU_REG_P_ENTRIES                      12'h008
// P_PROBE (ro): Elaboration parameter PROBE.
`define KVASU_REG_P_PROBE                        12'h00C
// P_ADDR_WIDTH (ro): Elaboration parameter ADDR_WIDTH.
`define KVASU_REG_P_ADDR_WIDTH                   12'h010
// P_LINE_SHIFT (ro): Elaboration parameter LINE_SHIFT.
`define KVASU_REG_P_LINE_SHIFT                   12'h014
// P_TAG_WIDTH (ro): Elaboration parameter TAG_WIDTH.
`define KVASU_REG_P_TAG_WIDTH                    12'h018
// P_COUNT_WIDTH (ro): Elaboration parameter COUNT_WIDTH.
`define KVASU_REG_P_COUNT_WIDTH                  12'h01C
// P_TS_WIDTH (ro): Elaboration parameter TS_WIDTH.
`define KVASU_REG_P_TS_WIDTH                     12'h020
// P_TICK_SHIFT (ro): Elaboration parameter TICK_SHIFT.
`define KVASU_REG_P_TICK_SHIFT                   12'h024
// P_WMAX (ro): Largest legal window, 2**(TS_WIDTH-1) - 1 ticks.
`define KVASU_REG_P_WMAX                         12'h028
// P_POLICIES (ro): Policies the build implements, one bit per POLICY.MODE value.
`define KVASU_REG_P_POLICIES                     12'h02C
// CTRL (ctrl): Control. ENABLE is a plain bit; the others are actions: write 1 to act, they read as 0. Bits 31:6 are reserved: a write to them is ignored (OKAY) and they read 0.
`define KVASU_REG_CTRL                           12'h040
// STATUS (ro): Status.
`define KVASU_REG_STATUS                         12'h044
// OCCUPANCY (ro): Number of tracked lines.
`define KVASU_REG_OCCUPANCY                      12'h048
// CYCLE (ro): Cycle counter (spec section 4), 64 bits.
`define KVASU_REG_CYCLE_LO                       12'h050
`define KVASU_REG_CYCLE_HI                       12'h054
// C3 (rw): Shadow C3: count threshold of T3.
`define KVASU_REG_C3                             12'h060
// C2 (rw): Shadow C2: count threshold of T2.
`define KVASU_REG_C2                             12'h064
// W3 (rw): Shadow W3: age window of T3, ticks.
`define KVASU_REG_W3                             12'h068
// W2 (rw): Shadow W2: age window of T2, ticks.
`define KVASU_REG_W2                             12'h06C
// W1 (rw): Shadow W1: age window of T1, ticks.
`define KVASU_REG_W1                             12'h070
// HASH_SEED (rw): Shadow HASH_SEED: MurmurHash3 seed. A commit that changes it also flushes.
`define KVASU_REG_HASH_SEED                      12'h074
// POLICY (rw): Shadow policy, applied by CTRL.COMMIT; a commit that changes POLICY.MODE also flushes. Reserved bits (and MODE on a build without the predictor, P_POLICIES bit 1 clear) must be 0 or the commit is refused.
`define KVASU_REG_POLICY                         12'h078
// MODE (rw): Shadow behaviour mode, applied by CTRL.COMMIT; reserved bits must be 0 or the commit is refused.
`define KVASU_REG_MODE                           12'h07C
// ACT_C3 (ro): Active (committed) C3.
`define KVASU_REG_ACT_C3                         12'h080
// ACT_C2 (ro): Active C2.
`define KVASU_REG_ACT_C2                         12'h084
// ACT_W3 (ro): Active W3.
`define KVASU_REG_ACT_W3                         12'h088
// ACT_W2 (ro): Active W2.
`define KVASU_REG_ACT_W2                         12'h08C
// ACT_W1 (ro): Active W1.
`define KVASU_REG_ACT_W1                         12'h090
// ACT_HASH_SEED (ro): Active HASH_SEED.
`define KVASU_REG_ACT_HASH_SEED                  12'h094
// ACT_POLICY (ro): Active (committed) POLICY.
`define KVASU_REG_ACT_POLICY                     12'h098
// ACT_MODE (ro): Active (committed) MODE.
`define KVASU_REG_ACT_MODE                       12'h09C
// ERR_UNCORRECTED (ro): Uncorrectable soft errors: recoveries started plus statistics words invalidated (32 bits, saturating).
`define KVASU_REG_ERR_UNCORRECTED                12'h0A0
// ERR_CORRECTED (ro): Cycles with a block-RAM read corrected (SECDED, one bit; 32 bits, saturating). A health figure: the golden model does not predict it.
`define KVASU_REG_ERR_CORRECTED                  12'h0A4
// ERR_FIRST_MEM (ro): The first soft error since the last clear (an uncorrectable one replaces a corrected first).
`define KVASU_REG_ERR_FIRST_MEM                  12'h0A8
// ERR_FIRST_ADDR (ro): The first soft error's word: the slot for a table or LRU memory (row r of bank b, or lane b of scrub row r: r * PROBE + b), the counter index for the statistics.
`define KVASU_REG_ERR_FIRST_ADDR                 12'h0AC
// ERR_FIRST_CYCLE (ro): The cycle counter at the first soft error's detection, 64 bits.
`define KVASU_REG_ERR_FIRST_CYCLE_LO             12'h0B0
`define KVASU_REG_ERR_FIRST_CYCLE_HI             12'h0B4
// ERR_LAST_RECOVERY (ro): Cycles of the last recovery, from the detection of its error to the first cycle requests can be accepted again (0: none since the last clear); at most LATENCY + ENTRIES + 3, + 4 with PROBE 1 (D11).
`define KVASU_REG_ERR_LAST_RECOVERY              12'h0B8
// STAT_OBSERVES (ro): OBSERVE requests.
`define KVASU_REG_STAT_OBSERVES_LO               12'h100
`define KVASU_REG_STAT_OBSERVES_HI               12'h104
// STAT_OBSERVE_HITS (ro): OBSERVEs whose line was tracked (present).
`define KVASU_REG_STAT_OBSERVE_HITS_LO           12'h108
`define KVASU_REG_STAT_OBSERVE_HITS_HI           12'h10C
// STAT_INSERTS (ro): OBSERVEs that inserted the line into a free slot (in the predictor mode also a ghost revived or a ghost's slot reused, spec-predictor.md P6).
`define KVASU_REG_STAT_INSERTS_LO                12'h110
`define KVASU_REG_STAT_INSERTS_HI                12'h114
// STAT_REPLACEMENTS (ro): OBSERVEs that replaced a T0 line.
`define KVASU_REG_STAT_REPLACEMENTS_LO           12'h118
`define KVASU_REG_STAT_REPLACEMENTS_HI           12'h11C
// STAT_DROPS (ro): OBSERVEs dropped because the window held no free or T0 slot, or answered as untracked lines during a soft-error recovery (D11).
`define KVASU_REG_STAT_DROPS_LO                  12'h120
`define KVASU_REG_STAT_DROPS_HI                  12'h124
// STAT_QUERIES (ro): QUERY requests.
`define KVASU_REG_STAT_QUERIES_LO                12'h128
`define KVASU_REG_STAT_QUERIES_HI                12'h12C
// STAT_QUERY_HITS (ro): QUERYs answered with hit = 1 (tlevel_before >= min_tlevel).
`define KVASU_REG_STAT_QUERY_HITS_LO             12'h130
`define KVASU_REG_STAT_QUERY_HITS_HI             12'h134
// STAT_EVICTS (ro): EVICT and EVICT_ANY requests that removed a line.
`define KVASU_REG_STAT_EVICTS_LO                 12'h138
`define KVASU_REG_STAT_EVICTS_HI                 12'h13C
// STAT_EVICTS_EMPTY (ro): EVICT and EVICT_ANY requests that removed nothing.
`define KVASU_REG_STAT_EVICTS_EMPTY_LO           12'h140
`define KVASU_REG_STAT_EVICTS_EMPTY_HI           12'h144
// STAT_OBS_T0 (ro): OBSERVEs with tlevel_before = T0.
`define KVASU_REG_STAT_OBS_T0_LO                 12'h148
`define KVASU_REG_STAT_OBS_T0_HI                 12'h14C
// STAT_OBS_T1 (ro): OBSERVEs with tlevel_before = T1.
`define KVASU_REG_STAT_OBS_T1_LO                 12'h150
`define KVASU_REG_STAT_OBS_T1_HI                 12'h154
// STAT_OBS_T2 (ro): OBSERVEs with tlevel_before = T2.
`define KVASU_REG_STAT_OBS_T2_LO                 12'h158
`define KVASU_REG_STAT_OBS_T2_HI                 12'h15C
// STAT_OBS_T3 (ro): OBSERVEs with tlevel_before = T3.
`define KVASU_REG_STAT_OBS_T3_LO                 12'h160
`define KVASU_REG_STAT_OBS_T3_HI                 12'h164
// STAT_REQ_DROPPED (ro): Requests dropped in MODE.NONBLOCKING because the block could not take them (no response, no other effect; D13).
`define KVASU_REG_STAT_REQ_DROPPED_LO            12'h168
`define KVASU_REG_STAT_REQ_DROPPED_HI            12'h16C

// Register fields.
// P_POLICIES.ARTICLE (ro): POLICY.MODE = 0, the article's behaviour: always 1.
`define KVASU_P_POLICIES_ARTICLE_SHIFT           0
`define KVASU_P_POLICIES_ARTICLE_MASK            32'h00000001
// P_POLICIES.PREDICTOR (ro): POLICY.MODE = 1, the predictor mode: 1 in a build with CoreOptions.predictor (hdl.generate --predictor).
`define KVASU_P_POLICIES_PREDICTOR_SHIFT         1
`define KVASU_P_POLICIES_PREDICTOR_MASK          32'h00000002
// CTRL.ENABLE (ctrl): Requests are accepted only while set; while it is 0, req.ready is low, except in MODE.NONBLOCKING, where req.ready stays 1 and the requests are dropped and counted in STAT_REQ_DROPPED.
`define KVASU_CTRL_ENABLE_SHIFT                  0
`define KVASU_CTRL_ENABLE_MASK                   32'h00000001
// CTRL.FLUSH (action, reads 0): Untrack every line.
`define KVASU_CTRL_FLUSH_SHIFT                   1
`define KVASU_CTRL_FLUSH_MASK                    32'h00000002
// CTRL.CLEAR_STATS (action, reads 0): Zero every statistics counter.
`define KVASU_CTRL_CLEAR_STATS_SHIFT             2
`define KVASU_CTRL_CLEAR_STATS_MASK              32'h00000004
// CTRL.COMMIT (action, reads 0): Apply the shadow configuration; refused with SLVERR if illegal.
`define KVASU_CTRL_COMMIT_SHIFT                  3
`define KVASU_CTRL_COMMIT_MASK                   32'h00000008
// CTRL.CLEAR_ERROR (action, reads 0): Clear STATUS.ERROR.
`define KVASU_CTRL_CLEAR_ERROR_SHIFT             4
`define KVASU_CTRL_CLEAR_ERROR_MASK              32'h00000010
// CTRL.CLEAR_SOFT_ERROR (action, reads 0): Clear STATUS.SOFT_ERROR, ERR_UNCORRECTED, ERR_CORRECTED, ERR_FIRST_* and ERR_LAST_RECOVERY (D11); applied after CLEAR_ERROR.
`define KVASU_CTRL_CLEAR_SOFT_ERROR_SHIFT        5
`define KVASU_CTRL_CLEAR_SOFT_ERROR_MASK         32'h00000020
// STATUS.BUSY (ro): A flush is being applied (its cycle, D8), its clear sweep or the one after reset (one in 16, D12) is running, or a soft-error recovery (D11) is; requests are not accepted.
`define KVASU_STATUS_BUSY_SHIFT                  0
`define KVASU_STATUS_BUSY_MASK                   32'h00000001
// STATUS.ERROR (ro): Sticky: a commit was refused since the last CLEAR_ERROR.
`define KVASU_STATUS_ERROR_SHIFT                 1
`define KVASU_STATUS_ERROR_MASK                  32'h00000002
// STATUS.SOFT_ERROR (ro): Sticky: an uncorrectable soft error was detected since the last CLEAR_SOFT_ERROR (D11).
`define KVASU_STATUS_SOFT_ERROR_SHIFT            2
`define KVASU_STATUS_SOFT_ERROR_MASK             32'h00000004
// STATUS.RECOVERING (ro): A soft-error recovery is running (D11); BUSY is 1 too and requests are not accepted.
`define KVASU_STATUS_RECOVERING_SHIFT            3
`define KVASU_STATUS_RECOVERING_MASK             32'h00000008
// POLICY.MODE (rw): 0: the article's behaviour; 1: the predictor mode (docs/spec-predictor.md).
`define KVASU_POLICY_MODE_SHIFT                  0
`define KVASU_POLICY_MODE_MASK                   32'h00000001
// MODE.NONBLOCKING (rw): Non-blocking admission (D13): req.ready stays 1 and a request the block cannot take is dropped without a response and counted in STAT_REQ_DROPPED.
`define KVASU_MODE_NONBLOCKING_SHIFT             0
`define KVASU_MODE_NONBLOCKING_MASK              32'h00000001
// ERR_FIRST_MEM.MEM_ID (ro): Its memory's MEM_ID (0: none yet; 1 ent, 2 meta, 3 mark, 4 scrub, 5 prev0, 6 prev1, 7 next0, 8 next1, 9 statistics).
`define KVASU_ERR_FIRST_MEM_MEM_ID_SHIFT         0
`define KVASU_ERR_FIRST_MEM_MEM_ID_MASK          32'h0000000F
// ERR_FIRST_MEM.UNCORRECTABLE (ro): Set if it is uncorrectable.
`define KVASU_ERR_FIRST_MEM_UNCORRECTABLE_SHIFT  8
`define KVASU_ERR_FIRST_MEM_UNCORRECTABLE_MASK   32'h00000100

// Reset values of the default build (P_* and the clamped configuration defaults depend on a build's parameters).
`define KVASU_ID_RESET                           32'h4B564153
`define KVASU_VERSION_RESET                      32'h00000200
`define KVASU_P_ENTRIES_RESET                    32'h00000800
`define KVASU_P_PROBE_RESET                      32'h00000004
`define KVASU_P_ADDR_WIDTH_RESET                 32'h00000040
`define KVASU_P_LINE_SHIFT_RESET                 32'h00000008
`define KVASU_P_TAG_WIDTH_RESET                  32'h00000038
`define KVASU_P_COUNT_WIDTH_RESET                32'h00000010
`define KVASU_P_TS_WIDTH_RESET                   32'h00000008
`define KVASU_P_TICK_SHIFT_RESET                 32'h00000002
`define KVASU_P_WMAX_RESET                       32'h0000007F
`define KVASU_P_POLICIES_RESET                   32'h00000001
`define KVASU_CTRL_RESET                         32'h00000001
`define KVASU_STATUS_RESET                       32'h00000000
`define KVASU_OCCUPANCY_RESET                    32'h00000000
`define KVASU_C3_RESET                           32'h00000005
`define KVASU_C2_RESET                           32'h00000003
`define KVASU_W3_RESET                           32'h00000019
`define KVASU_W2_RESET                           32'h00000032
`define KVASU_W1_RESET                           32'h0000007D
`define KVASU_HASH_SEED_RESET                    32'h00000000
`define KVASU_POLICY_RESET                       32'h00000000
`define KVASU_MODE_RESET                         32'h00000000
`define KVASU_ACT_C3_RESET                       32'h00000005
`define KVASU_ACT_C2_RESET                       32'h00000003
`define KVASU_ACT_W3_RESET                       32'h00000019
`define KVASU_ACT_W2_RESET                       32'h00000032
`define KVASU_ACT_W1_RESET                       32'h0000007D
`define KVASU_ACT_HASH_SEED_RESET                32'h00000000
`define KVASU_ACT_POLICY_RESET                   32'h00000000
`define KVASU_ACT_MODE_RESET                     32'h00000000
`define KVASU_ERR_UNCORRECTED_RESET              32'h00000000
`define KVASU_ERR_CORRECTED_RESET                32'h00000000
`define KVASU_ERR_FIRST_MEM_RESET                32'h00000000
`define KVASU_ERR_FIRST_ADDR_RESET               32'h00000000
`define KVASU_ERR_LAST_RECOVERY_RESET            32'h00000000

// Mode registers: the bits their fields define (FIELDS_MASK) and those that only a build with the predictor (P_POLICIES.PREDICTOR) defines; a commit of a mode register with any other bit set is refused.
`define KVASU_POLICY_FIELDS_MASK                 32'h00000001
`define KVASU_POLICY_NEEDS_PREDICTOR_MASK        32'h00000001
`define KVASU_MODE_FIELDS_MASK                   32'h00000001
`define KVASU_MODE_NEEDS_PREDICTOR_MASK          32'h00000000

// Statistics: 64-bit counters, by index.
`define KVASU_STAT_OBSERVES                      0
`define KVASU_STAT_OBSERVE_HITS                  1
`define KVASU_STAT_INSERTS                       2
`define KVASU_STAT_REPLACEMENTS                  3
`define KVASU_STAT_DROPS                         4
`define KVASU_STAT_QUERIES                       5
`define KVASU_STAT_QUERY_HITS                    6
`define KVASU_STAT_EVICTS                        7
`define KVASU_STAT_EVICTS_EMPTY                  8
`define KVASU_STAT_OBS_T0                        9
`define KVASU_STAT_OBS_T1                        10
`define KVASU_STAT_OBS_T2                        11
`define KVASU_STAT_OBS_T3                        12
`define KVASU_STAT_REQ_DROPPED                   13
`define KVASU_STAT_COUNT                         14

`endif  // KV_ASU_REGS_VH
