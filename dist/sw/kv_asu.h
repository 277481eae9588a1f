/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KV-ASU driver: C99, no allocation, no libc beyond <stdint.h>/<stddef.h>. Portable to
 * CPUs whose int is 16 bits (AVR, MSP430): all its arithmetic is on uint32_t. On a core
 * without 64-bit shifts, kvasu_read64's (uint64_t)hi << 32 may be a call into the
 * compiler's runtime (libgcc's __ashldi3 on AVR), which any C program links; not libc.
 *
 * Every register access goes through two hooks the integrator supplies, read32 and
 * write32, called with the byte address base + offset (a 32-bit AXI4-Lite access each).
 * kvasu_init_mmio() installs hooks for a memory-mapped block (volatile loads/stores).
 *
 * Ordering: the driver writes CTRL and then reads STATUS for the answer, so a write32 must
 * have reached the block (its AXI write response received) before the next read32 is
 * issued: the block's read and write channels are independent, and a read can overtake a
 * posted write. kvasu_init_mmio's hooks are plain volatile loads and stores; map the block
 * so that a store completes before a later load is issued (on Arm, Device-nGnRnE and a DSB
 * after each store: supply your own write32 with the barrier), or give hooks that wait for
 * the write response.
 *
 * Byte order: every register is a 32-bit word, little-endian on the AXI4-Lite bus (byte
 * lane 0 is bits 7:0), and the driver only makes whole-word accesses (64-bit values are
 * assembled from two words arithmetically). kvasu_init_mmio's hooks assume the CPU sees
 * each bus word in its native order: true on a little-endian CPU, and on a big-endian one
 * behind a word-invariant bridge. Behind a byte-invariant bridge (as on Arm BE8) a native
 * 32-bit load returns the bus word byte-swapped: supply hooks that swap the four bytes of
 * each word read and written.
 *
 * The driver writes nothing the block would refuse with SLVERR, which many CPUs take as an
 * imprecise bus fault: kvasu_configure checks a configuration with kvasu_config_legal
 * before writing it (the block's STATUS.ERROR stays its backstop).
 *
 * A device handle is not locked: one caller at a time, interrupt handlers included. In
 * particular a 64-bit read is a LO then a HI read through the block's single HI latch
 * (docs/registers.md), so no other master or handler may read a LO word in between (a torn
 * pair cannot be detected), and every CTRL action write carries ENABLE as read just before.
 * The functions that take a handle and return no kvasu_status take a valid one (and valid
 * arrays) as a precondition; kvasu_init and kvasu_init_mmio, a valid pointer to the handle
 * they fill in.
 *
 * Every function that can fail returns a kvasu_status (0 = KVASU_OK, negative = error).
 */
#ifndef KV_ASU_H
#define KV_ASU_H

#include <stddef.h>
#include <stdint.h>

#include "kv_asu_regs.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef uint32_t (*kvasu_read32_fn)(void *ctx, uintptr_t addr);
typedef void (*kvasu_write32_fn)(void *ctx, uintptr_t addr, uint32_t value);

typedef struct kvasu_dev {
    uintptr_t base;             /* byte address of register offset 0 */
    kvasu_read32_fn read32;
    kvasu_write32_fn write32;
    void *ctx;                  /* passed to the hooks unchanged */
} kvasu_dev;

typedef enum kvasu_status {
    KVASU_OK = 0,
    KVASU_ERR_ID = -1,          /* the ID register does not read KVASU_ID_VALUE */
    KVASU_ERR_VERSION = -2,     /* VERSION's major.minor differs from this driver's */
    KVASU_ERR_REFUSED = -3,     /* the block refused the configuration; nothing changed */
    KVASU_ERR_TIMEOUT = -4,     /* STATUS.BUSY still set after the allowed polls */
    KVASU_ERR_ARG = -5          /* a NULL pointer or an index out of range */
} kvasu_status;

/* The configuration a commit applies (units: counts, and ticks of 2**TICK_SHIFT cycles),
   the two mode registers included: a commit always writes all eight shadows. */
typedef struct kvasu_config {
    uint32_t c3, c2;            /* 1 <= c2 <= c3 <= 2**COUNT_WIDTH - 1 */
    uint32_t w3, w2, w1;        /* 0 <= w3 <= w2 <= w1 <= WMAX (register P_WMAX) */
    uint32_t hash_seed;         /* any value; a new seed flushes the table on commit */
    uint32_t policy;            /* POLICY: 0 the article's behaviour, KVASU_POLICY_MODE_MASK
                                   the predictor mode (a build whose info.policies has
                                   KVASU_P_POLICIES_PREDICTOR_MASK; refused elsewhere); a
                                   change of mode flushes the table on commit */
    uint32_t mode;              /* MODE: 0 blocking, KVASU_MODE_NONBLOCKING_MASK: req_ready
                                   stays 1 and requests the block cannot take are dropped
                                   and counted in KVASU_STAT_REQ_DROPPED (spec D13) */
} kvasu_config;

/* What kvasu_identify() reads: the version and the build's elaboration parameters. */
typedef struct kvasu_info {
    uint32_t version;
    uint32_t entries, probe, addr_width, line_shift, tag_width;
    uint32_t count_width, ts_width, tick_shift, wmax;
    uint32_t policies;          /* P_POLICIES: KVASU_P_POLICIES_*_MASK of the policies built */
} kvasu_info;

/* What kvasu_read_soft_errors() reads (spec decision D11; all 0 in a build without
   protection). The ERR_FIRST_* fields describe the first error since the last clear. */
typedef struct kvasu_soft_errors {
    int sticky;                 /* STATUS.SOFT_ERROR: an uncorrectable error was detected */
    uint32_t uncorrected;       /* ERR_UNCORRECTED: recoveries started + statistics lost */
    uint32_t corrected;         /* ERR_CORRECTED: cycles with a corrected read */
    uint32_t first_mem_id;      /* ERR_FIRST_MEM.MEM_ID: 0 none yet, else the memory */
    int first_uncorrectable;    /* ERR_FIRST_MEM.UNCORRECTABLE */
    uint32_t first_addr;        /* ERR_FIRST_ADDR: the slot, or the statistic's index */
    uint64_t first_cycle;       /* ERR_FIRST_CYCLE: the CYCLE counter at its detection */
    uint32_t last_recovery;     /* ERR_LAST_RECOVERY: cycles of the last recovery (0: none) */
} kvasu_soft_errors;

/* Set up a handle (no register access). */
void kvasu_init(kvasu_dev *dev, uintptr_t base, kvasu_read32_fn read32,
                kvasu_write32_fn write32, void *ctx);
/* Set up a handle for a block mapped at `base` in the CPU's address space. */
void kvasu_init_mmio(kvasu_dev *dev, uintptr_t base);

/* Check ID and VERSION (same major.minor as KVASU_VERSION_VALUE; any patch); fill `info`
   when it is not NULL. */
kvasu_status kvasu_identify(const kvasu_dev *dev, kvasu_info *info);

/* Whether the block built as `info` (kvasu_identify) takes a commit of `cfg`: the chains
   of KVASU_CONFIG_LEGAL with the build's COUNT_MAX and WMAX, and no bit of POLICY or MODE
   outside its fields (POLICY.MODE only in a build with the predictor). 0 for a NULL
   argument. Reads nothing. */
int kvasu_config_legal(const kvasu_info *info, const kvasu_config *cfg);

/* Write the shadow configuration (C3..HASH_SEED, POLICY, MODE) and commit it. The block is
   identified first (KVASU_ERR_ID / KVASU_ERR_VERSION as kvasu_identify); a set it would
   refuse (kvasu_config_legal: an illegal set, a reserved bit of POLICY or MODE, or the
   predictor mode on a build without it) returns KVASU_ERR_REFUSED with nothing written.
   Should the block refuse the commit all the same (STATUS.ERROR after it), the result is
   KVASU_ERR_REFUSED too and the block is left as it was: active configuration and modes,
   ENABLE, table and statistics untouched, STATUS.ERROR clear again, and the shadows
   restored to the active values. A STATUS.ERROR set before the call (an earlier refused
   write) is cleared first, so that it is not taken for this commit's answer. Waits for
   nothing: the flush of a seed or policy change runs on (see kvasu_wait_idle). To change
   one field, kvasu_get_config() first. */
kvasu_status kvasu_configure(const kvasu_dev *dev, const kvasu_config *cfg);
/* Read the active (committed) configuration, POLICY and MODE included. */
kvasu_status kvasu_get_config(const kvasu_dev *dev, kvasu_config *cfg);

/* Untrack every line, then poll STATUS.BUSY until the flush is over (at most max_polls
   reads; 0 = do not wait). ENABLE is kept. KVASU_OK: the flush is over (or max_polls = 0:
   issued, not waited for); KVASU_ERR_TIMEOUT: the flush was issued and runs on (a clear
   sweep, one flush in 16), only the wait ran out: do not issue it again, kvasu_wait_idle
   for it; KVASU_ERR_ARG: dev is NULL, nothing written. */
kvasu_status kvasu_flush(const kvasu_dev *dev, uint32_t max_polls);
/* Poll STATUS.BUSY until it reads 0 (at most max_polls reads): KVASU_OK once it does,
   KVASU_ERR_TIMEOUT if it never did (also with max_polls = 0, which reads nothing). */
kvasu_status kvasu_wait_idle(const kvasu_dev *dev, uint32_t max_polls);

/* Zero every statistic, between two requests (none lost or split). ENABLE is kept. */
void kvasu_clear_stats(const kvasu_dev *dev);
/* One statistic (index KVASU_STAT_*), read atomically as a 64-bit sample. */
kvasu_status kvasu_read_stat(const kvasu_dev *dev, unsigned index, uint64_t *value);
/* Every statistic, in index order (each an atomic 64-bit sample). */
void kvasu_read_stats(const kvasu_dev *dev, uint64_t values[KVASU_STAT_COUNT]);
/* Any 64-bit counter by the offset of its LO word (KVASU_REG_CYCLE_LO, ...). */
uint64_t kvasu_read64(const kvasu_dev *dev, uint32_t lo_offset);

/* Accept requests (1) or not (0); requests already accepted are still answered. With 0,
   req_ready is low, except in MODE.NONBLOCKING: there req_ready stays 1 and every request
   presented is dropped and counted in STAT_REQ_DROPPED. */
void kvasu_set_enabled(const kvasu_dev *dev, int enabled);
int kvasu_is_enabled(const kvasu_dev *dev);
/* Number of tracked lines. */
uint32_t kvasu_occupancy(const kvasu_dev *dev);

/* The soft-error registers, ERR_FIRST_MEM decoded into its fields. */
kvasu_status kvasu_read_soft_errors(const kvasu_dev *dev, kvasu_soft_errors *errors);
/* Clear STATUS.SOFT_ERROR, the ERR_* counters and the first error. ENABLE is kept. */
void kvasu_clear_soft_errors(const kvasu_dev *dev);

#ifdef __cplusplus
}
#endif

#endif /* KV_ASU_H */
