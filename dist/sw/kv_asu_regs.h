/* SPDX-License-Identifier: Apache-2.0 */
/* KV-ASU register map. Generated from regmap/kv_asu.toml by `make docs`
   (python -m regmap.c_header); do not edit by hand. */
#ifndef KV_ASU_REGS_H
#define KV_ASU_REGS_H

/* Identification: the ID register's constant and this release's VERSION (bits 23:16 major, 15:8 minor, 7:0 patch). */
#define KVASU_ID_VALUE                           0x4B564153u
#define KVASU_VERSION_VALUE                      0x00000200u
#define KVASU_VERSION_MAJOR                      0u
#define KVASU_VERSION_MINOR                      2u
#define KVASU_VERSION_PATCH                      0u
#define KVASU_AXIL_ADDR_WIDTH                    12u

/* Request op codes. */
#define KVASU_OP_OBSERVE                         0u
#define KVASU_OP_QUERY                           1u
#define KVASU_OP_EVICT                           2u
#define KVASU_OP_EVICT_ANY                       3u

/* Soft-error memories: the MEM_ID that ERR_FIRST_MEM.MEM_ID reports (0: none yet; spec decision D11). */
#define KVASU_MEM_ID_ENT                         1u
#define KVASU_MEM_ID_META                        2u
#define KVASU_MEM_ID_MARK                        3u
#define KVASU_MEM_ID_SCRUB                       4u
#define KVASU_MEM_ID_PREV0                       5u
#define KVASU_MEM_ID_PREV1                       6u
#define KVASU_MEM_ID_NEXT0                       7u
#define KVASU_MEM_ID_NEXT1                       8u
#define KVASU_MEM_ID_STATS                       9u

/* Register byte offsets. */
/* ID (ro): Constant identification word 0x4B564153 ('KVAS'). */
#define KVASU_REG_ID                             0x000u
/* VERSION (ro): Release version (the package version): bits 23:16 major, 15:8 minor, 7:0 patch; bits 31:24 read 0. */
#define KVASU_REG_VERSION                        0x004u
/* P_ENTRIES (ro): Elaboration parameter ENTRIES. */
#define KVASU_REG_P_ENTRIES                      0x008u
/* P_PROBE (ro): Elaboration parameter PROBE. */
#define KVASU_REG_P_PROBE                        0x00Cu
/* P_ADDR_WIDTH (ro): Elaboration parameter ADDR_WIDTH. */
#define KVASU_REG_P_ADDR_WIDTH                   0x010u
/* P_LINE_SHIFT (ro): Elaboration parameter LINE_SHIFT. */
#define KVASU_REG_P_LINE_SHIFT                   0x014u
/* P_TAG_WIDTH (ro): Elaboration parameter TAG_WIDTH. */
#define KVASU_REG_P_TAG_WIDTH                    0x018u
/* P_COUNT_WIDTH (ro): Elaboration parameter COUNT_WIDTH. */
#define KVASU_REG_P_COUNT_WIDTH                  0x01Cu
/* P_TS_WIDTH (ro): Elaboration parameter TS_WIDTH. */
#define KVASU_REG_P_TS_WIDTH                     0x020u
/* P_TICK_SHIFT (ro): Elaboration parameter TICK_SHIFT. */
#define KVASU_REG_P_TICK_SHIFT                   0x024u
/* P_WMAX (ro): Largest legal window, 2**(TS_WIDTH-1) - 1 ticks. */
#define KVASU_REG_P_WMAX                         0x028u
/* P_POLICIES (ro): Policies the build implements, one bit per POLICY.MODE value. */
#define KVASU_REG_P_POLICIES                     0x02Cu
/* CTRL (ctrl): Control. ENABLE is a plain bit; the others are actions: write 1 to act, they read as 0. Bits 31:6 are reserved: a write to them is ignored (OKAY) and they read 0. */
#define KVASU_REG_CTRL                           0x040u
/* STATUS (ro): Status. */
#define KVASU_REG_STATUS                         0x044u
/* OCCUPANCY (ro): Number of tracked lines. */
#define KVASU_REG_OCCUPANCY                      0x048u
/* CYCLE (ro): Cycle counter (spec section 4), 64 bits. */
#define KVASU_REG_CYCLE_LO                       0x050u
#define KVASU_REG_CYCLE_HI                       0x054u
/* C3 (rw): Shadow C3: count threshold of T3. */
#define KVASU_REG_C3                             0x060u
/* C2 (rw): Shadow C2: count threshold of T2. */
#define KVASU_REG_C2                             0x064u
/* W3 (rw): Shadow W3: age window of T3, ticks. */
#define KVASU_REG_W3                             0x068u
/* W2 (rw): Shadow W2: age window of T2, ticks. */
#define KVASU_REG_W2                             0x06Cu
/* W1 (rw): Shadow W1: age window of T1, ticks. */
#define KVASU_REG_W1                             0x070u
/* HASH_SEED (rw): Shadow HASH_SEED: MurmurHash3 seed. A commit that changes it also flushes. */
#define KVASU_REG_HASH_SEED                      0x074u
/* POLICY (rw): Shadow policy, applied by CTRL.COMMIT; a commit that changes POLICY.MODE also flushes. Reserved bits (and MODE on a build without the predictor, P_POLICIES bit 1 clear) must be 0 or the commit is refused. */
#define KVASU_REG_POLICY                         0x078u
/* MODE (rw): Shadow behaviour mode, applied by CTRL.COMMIT; reserved bits must be 0 or the commit is refused. */
#define KVASU_REG_MODE                           0x07Cu
/* ACT_C3 (ro): Active (committed) C3. */
#define KVASU_REG_ACT_C3                         0x080u
/* ACT_C2 (ro): Active C2. */
#define KVASU_REG_ACT_C2                         0x084u
/* ACT_W3 (ro): Active W3. */
#define KVASU_REG_ACT_W3                         0x088u
/* ACT_W2 (ro): Active W2. */
#define KVASU_REG_ACT_W2                         0x08Cu
/* ACT_W1 (ro): Active W1. */
#define KVASU_REG_ACT_W1                         0x090u
/* ACT_HASH_SEED (ro): Active HASH_SEED. */
#define KVASU_REG_ACT_HASH_SEED                  0x094u
/* ACT_POLICY (ro): Active (committed) POLICY. */
#define KVASU_REG_ACT_POLICY                     0x098u
/* ACT_MODE (ro): Active (committed) MODE. */
#define KVASU_REG_ACT_MODE                       0x09Cu
/* ERR_UNCORRECTED (ro): Uncorrectable soft errors: recoveries started plus statistics words invalidated (32 bits, saturating). */
#define KVASU_REG_ERR_UNCORRECTED                0x0A0u
/* ERR_CORRECTED (ro): Cycles with a block-RAM read corrected (SECDED, one bit; 32 bits, saturating). A health figure: the golden model does not predict it. */
#define KVASU_REG_ERR_CORRECTED                  0x0A4u
/* ERR_FIRST_MEM (ro): The first soft error since the last clear (an uncorrectable one replaces a corrected first). */
#define KVASU_REG_ERR_FIRST_MEM                  0x0A8u
/* ERR_FIRST_ADDR (ro): The first soft error's word: the slot for a table or LRU memory (row r of bank b, or lane b of scrub row r: r * PROBE + b), the counter index for the statistics. */
#define KVASU_REG_ERR_FIRST_ADDR                 0x0ACu
/* ERR_FIRST_CYCLE (ro): The cycle counter at the first soft error's detection, 64 bits. */
#define KVASU_REG_ERR_FIRST_CYCLE_LO             0x0B0u
#define KVASU_REG_ERR_FIRST_CYCLE_HI             0x0B4u
/* ERR_LAST_RECOVERY (ro): Cycles of the last recovery, from the detection of its error to the first cycle requests can be accepted again (0: none since the last clear); at most LATENCY + ENTRIES + 3, + 4 with PROBE 1 (D11). */
#define KVASU_REG_ERR_LAST_RECOVERY              0x0B8u
/* STAT_OBSERVES (ro): OBSERVE requests. */
#define KVASU_REG_STAT_OBSERVES_LO               0x100u
#define KVASU_REG_STAT_OBSERVES_HI               0x104u
/* STAT_OBSERVE_HITS (ro): OBSERVEs whose line was tracked (present). */
#define KVASU_REG_STAT_OBSERVE_HITS_LO           0x108u
#define KVASU_REG_STAT_OBSERVE_HITS_HI           0x10Cu
/* STAT_INSERTS (ro): OBSERVEs that inserted the line into a free slot (in the predictor mode also a ghost revived or a ghost's slot reused, spec-predictor.md P6). */
#define KVASU_REG_STAT_INSERTS_LO                0x110u
#define KVASU_REG_STAT_INSERTS_HI                0x114u
/* STAT_REPLACEMENTS (ro): OBSERVEs that replaced a T0 line. */
#define KVASU_REG_STAT_REPLACEMENTS_LO           0x118u
#define KVASU_REG_STAT_REPLACEMENTS_HI           0x11Cu
/* STAT_DROPS (ro): OBSERVEs dropped because the window held no free or T0 slot, or answered as untracked lines during a soft-error recovery (D11). */
#define KVASU_REG_STAT_DROPS_LO                  0x120u
#define KVASU_REG_STAT_DROPS_HI                  0x124u
/* STAT_QUERIES (ro): QUERY requests. */
#define KVASU_REG_STAT_QUERIES_LO                0x128u
#define KVASU_REG_STAT_QUERIES_HI                0x12Cu
/* STAT_QUERY_HITS (ro): QUERYs answered with hit = 1 (tlevel_before >= min_tlevel). */
#define KVASU_REG_STAT_QUERY_HITS_LO             0x130u
#define KVASU_REG_STAT_QUERY_HITS_HI             0x134u
/* STAT_EVICTS (ro): EVICT and EVICT_ANY requests that removed a line. */
#define KVASU_REG_STAT_EVICTS_LO                 0x138u
#define KVASU_REG_STAT_EVICTS_HI                 0x13Cu
/* STAT_EVICTS_EMPTY (ro): EVICT and EVICT_ANY requests that removed nothing. */
#define KVASU_REG_STAT_EVICTS_EMPTY_LO           0x140u
#define KVASU_REG_STAT_EVICTS_EMPTY_HI           0x144u
/* STAT_OBS_T0 (ro): OBSERVEs with tlevel_before = T0. */
#define KVASU_REG_STAT_OBS_T0_LO                 0x148u
#define KVASU_REG_STAT_OBS_T0_HI                 0x14Cu
/* STAT_OBS_T1 (ro): OBSERVEs with tlevel_before = T1. */
#define KVASU_REG_STAT_OBS_T1_LO                 0x150u
#define KVASU_REG_STAT_OBS_T1_HI                 0x154u
/* STAT_OBS_T2 (ro): OBSERVEs with tlevel_before = T2. */
#define KVASU_REG_STAT_OBS_T2_LO                 0x158u
#define KVASU_REG_STAT_OBS_T2_HI                 0x15Cu
/* STAT_OBS_T3 (ro): OBSERVEs with tlevel_before = T3. */
#define KVASU_REG_STAT_OBS_T3_LO                 0x160u
#define KVASU_REG_STAT_OBS_T3_HI                 0x164u
/* STAT_REQ_DROPPED (ro): Requests dropped in MODE.NONBLOCKING because the block could not take them (no response, no other effect; D13). */
#define KVASU_REG_STAT_REQ_DROPPED_LO            0x168u
#define KVASU_REG_STAT_REQ_DROPPED_HI            0x16Cu

/* Register fields. */
/* P_POLICIES.ARTICLE (ro): POLICY.MODE = 0, the article's behaviour: always 1. */
#define KVASU_P_POLICIES_ARTICLE_SHIFT           0u
#define KVASU_P_POLICIES_ARTICLE_MASK            0x00000001u
/* P_POLICIES.PREDICTOR (ro): POLICY.MODE = 1, the predictor mode: 1 in a build with CoreOptions.predictor (hdl.generate --predictor). */
#define KVASU_P_POLICIES_PREDICTOR_SHIFT         1u
#define KVASU_P_POLICIES_PREDICTOR_MASK          0x00000002u
/* CTRL.ENABLE (ctrl): Requests are accepted only while set; while it is 0, req.ready is low, except in MODE.NONBLOCKING, where req.ready stays 1 and the requests are dropped and counted in STAT_REQ_DROPPED. */
#define KVASU_CTRL_ENABLE_SHIFT                  0u
#define KVASU_CTRL_ENABLE_MASK                   0x00000001u
/* CTRL.FLUSH (action, reads 0): Untrack every line. */
#define KVASU_CTRL_FLUSH_SHIFT                   1u
#define KVASU_CTRL_FLUSH_MASK                    0x00000002u
/* CTRL.CLEAR_STATS (action, reads 0): Zero every statistics counter. */
#define KVASU_CTRL_CLEAR_STATS_SHIFT             2u
#define KVASU_CTRL_CLEAR_STATS_MASK              0x00000004u
/* CTRL.COMMIT (action, reads 0): Apply the shadow configuration; refused with SLVERR if illegal. */
#define KVASU_CTRL_COMMIT_SHIFT                  3u
#define KVASU_CTRL_COMMIT_MASK                   0x00000008u
/* CTRL.CLEAR_ERROR (action, reads 0): Clear STATUS.ERROR. */
#define KVASU_CTRL_CLEAR_ERROR_SHIFT             4u
#define KVASU_CTRL_CLEAR_ERROR_MASK              0x00000010u
/* CTRL.CLEAR_SOFT_ERROR (action, reads 0): Clear STATUS.SOFT_ERROR, ERR_UNCORRECTED, ERR_CORRECTED, ERR_FIRST_* and ERR_LAST_RECOVERY (D11); applied after CLEAR_ERROR. */
#define KVASU_CTRL_CLEAR_SOFT_ERROR_SHIFT        5u
#define KVASU_CTRL_CLEAR_SOFT_ERROR_MASK         0x00000020u
/* STATUS.BUSY (ro): A flush is being applied (its cycle, D8), its clear sweep or the one after reset (one in 16, D12) is running, or a soft-error recovery (D11) is; requests are not accepted. */
#define KVASU_STATUS_BUSY_SHIFT                  0u
#define KVASU_STATUS_BUSY_MASK                   0x00000001u
/* STATUS.ERROR (ro): Sticky: a commit was refused since the last CLEAR_ERROR. */
#define KVASU_STATUS_ERROR_SHIFT                 1u
#define KVASU_STATUS_ERROR_MASK                  0x00000002u
/* STATUS.SOFT_ERROR (ro): Sticky: an uncorrectable soft error was detected since the last CLEAR_SOFT_ERROR (D11). */
#define KVASU_STATUS_SOFT_ERROR_SHIFT            2u
#define KVASU_STATUS_SOFT_ERROR_MASK             0x00000004u
/* STATUS.RECOVERING (ro): A soft-error recovery is running (D11); BUSY is 1 too and requests are not accepted. */
#define KVASU_STATUS_RECOVERING_SHIFT            3u
#define KVASU_STATUS_RECOVERING_MASK             0x00000008u
/* POLICY.MODE (rw): 0: the article's behaviour; 1: the predictor mode (docs/spec-predictor.md). */
#define KVASU_POLICY_MODE_SHIFT                  0u
#define KVASU_POLICY_MODE_MASK                   0x00000001u
/* MODE.NONBLOCKING (rw): Non-blocking admission (D13): req.ready stays 1 and a request the block cannot take is dropped without a response and counted in STAT_REQ_DROPPED. */
#define KVASU_MODE_NONBLOCKING_SHIFT             0u
#define KVASU_MODE_NONBLOCKING_MASK              0x00000001u
/* ERR_FIRST_MEM.MEM_ID (ro): Its memory's MEM_ID (0: none yet; 1 ent, 2 meta, 3 mark, 4 scrub, 5 prev0, 6 prev1, 7 next0, 8 next1, 9 statistics). */
#define KVASU_ERR_FIRST_MEM_MEM_ID_SHIFT         0u
#define KVASU_ERR_FIRST_MEM_MEM_ID_MASK          0x0000000Fu
/* ERR_FIRST_MEM.UNCORRECTABLE (ro): Set if it is uncorrectable. */
#define KVASU_ERR_FIRST_MEM_UNCORRECTABLE_SHIFT  8u
#define KVASU_ERR_FIRST_MEM_UNCORRECTABLE_MASK   0x00000100u

/* Reset values of the default build (P_* and the clamped configuration defaults depend on a build's parameters). */
#define KVASU_ID_RESET                           0x4B564153u
#define KVASU_VERSION_RESET                      0x00000200u
#define KVASU_P_ENTRIES_RESET                    0x00000800u
#define KVASU_P_PROBE_RESET                      0x00000004u
#define KVASU_P_ADDR_WIDTH_RESET                 0x00000040u
#define KVASU_P_LINE_SHIFT_RESET                 0x00000008u
#define KVASU_P_TAG_WIDTH_RESET                  0x00000038u
#define KVASU_P_COUNT_WIDTH_RESET                0x00000010u
#define KVASU_P_TS_WIDTH_RESET                   0x00000008u
#define KVASU_P_TICK_SHIFT_RESET                 0x00000002u
#define KVASU_P_WMAX_RESET                       0x0000007Fu
#define KVASU_P_POLICIES_RESET                   0x00000001u
#define KVASU_CTRL_RESET                         0x00000001u
#define KVASU_STATUS_RESET                       0x00000000u
#define KVASU_OCCUPANCY_RESET                    0x00000000u
#define KVASU_C3_RESET                           0x00000005u
#define KVASU_C2_RESET                           0x00000003u
#define KVASU_W3_RESET                           0x00000019u
#define KVASU_W2_RESET                           0x00000032u
#define KVASU_W1_RESET                           0x0000007Du
#define KVASU_HASH_SEED_RESET                    0x00000000u
#define KVASU_POLICY_RESET                       0x00000000u
#define KVASU_MODE_RESET                         0x00000000u
#define KVASU_ACT_C3_RESET                       0x00000005u
#define KVASU_ACT_C2_RESET                       0x00000003u
#define KVASU_ACT_W3_RESET                       0x00000019u
#define KVASU_ACT_W2_RESET                       0x00000032u
#define KVASU_ACT_W1_RESET                       0x0000007Du
#define KVASU_ACT_HASH_SEED_RESET                0x00000000u
#define KVASU_ACT_POLICY_RESET                   0x00000000u
#define KVASU_ACT_MODE_RESET                     0x00000000u
#define KVASU_ERR_UNCORRECTED_RESET              0x00000000u
#define KVASU_ERR_CORRECTED_RESET                0x00000000u
#define KVASU_ERR_FIRST_MEM_RESET                0x00000000u
#define KVASU_ERR_FIRST_ADDR_RESET               0x00000000u
#define KVASU_ERR_LAST_RECOVERY_RESET            0x00000000u

/* Mode registers: the bits their fields define (FIELDS_MASK) and those that only a build with the predictor (P_POLICIES.PREDICTOR) defines; a commit of a mode register with any other bit set is refused. */
#define KVASU_POLICY_FIELDS_MASK                 0x00000001u
#define KVASU_POLICY_NEEDS_PREDICTOR_MASK        0x00000001u
#define KVASU_MODE_FIELDS_MASK                   0x00000001u
#define KVASU_MODE_NEEDS_PREDICTOR_MASK          0x00000000u

/* Statistics: 64-bit counters, by index. */
#define KVASU_STAT_OBSERVES                      0u
#define KVASU_STAT_OBSERVE_HITS                  1u
#define KVASU_STAT_INSERTS                       2u
#define KVASU_STAT_REPLACEMENTS                  3u
#define KVASU_STAT_DROPS                         4u
#define KVASU_STAT_QUERIES                       5u
#define KVASU_STAT_QUERY_HITS                    6u
#define KVASU_STAT_EVICTS                        7u
#define KVASU_STAT_EVICTS_EMPTY                  8u
#define KVASU_STAT_OBS_T0                        9u
#define KVASU_STAT_OBS_T1                        10u
#define KVASU_STAT_OBS_T2                        11u
#define KVASU_STAT_OBS_T3                        12u
#define KVASU_STAT_REQ_DROPPED                   13u
#define KVASU_STAT_COUNT                         14u
/* The statistics' LO offsets in index order, as an initialiser. */
#define KVASU_STAT_OFFSETS                       { 0x100u, 0x108u, 0x110u, 0x118u, 0x120u, 0x128u, 0x130u, 0x138u, 0x140u, 0x148u, 0x150u, 0x158u, 0x160u, 0x168u }
/* A legal configuration: 1 <= C2 <= C3 <= COUNT_MAX; 0 <= W3 <= W2 <= W1 <= WMAX; 0 <= HASH_SEED <= 0xffffffff (COUNT_MAX = 2**P_COUNT_WIDTH - 1, WMAX = P_WMAX); a commit of any other set is refused. */
#define KVASU_CONFIG_LEGAL(C3, C2, W3, W2, W1, HASH_SEED, COUNT_MAX, WMAX) \
    (1u <= (C2) && (C2) <= (C3) && (C3) <= (COUNT_MAX) && \
     (W3) <= (W2) && (W2) <= (W1) && (W1) <= (WMAX))

#endif /* KV_ASU_REGS_H */
