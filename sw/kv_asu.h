/* SPDX-License-Identifier: Apache-2.0 */
/*
 * KV-ASU driver: C99, no allocation, no libc beyond <stdint.h>/<stddef.h>.
 *
 * Every register access goes through two hooks the integrator supplies, read32 and
 * write32, called with the byte address base + offset (a 32-bit AXI4-Lite access each).
 * kvasu_init_mmio() installs hooks for a memory-mapped block (volatile loads/stores).
 *
 * A device handle is not locked: one caller at a time. In particular a 64-bit read is a
 * LO then a HI read through the block's single HI latch (docs/registers.md), so no other
 * master may read a LO word in between.
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

/* The configuration a commit applies (units: counts, and ticks of 2**TICK_SHIFT cycles). */
typedef struct kvasu_config {
    uint32_t c3, c2;            /* 1 <= c2 <= c3 <= 2**COUNT_WIDTH - 1 */
    uint32_t w3, w2, w1;        /* 0 <= w3 <= w2 <= w1 <= WMAX (register P_WMAX) */
    uint32_t hash_seed;         /* any value; a new seed flushes the table on commit */
} kvasu_config;

/* What kvasu_identify() reads: the version and the build's elaboration parameters. */
typedef struct kvasu_info {
    uint32_t version;
    uint32_t entries, probe, addr_width, line_shift, tag_width;
    uint32_t count_width, ts_width, tick_shift, wmax;
} kvasu_info;

/* Set up a handle (no register access). */
void kvasu_init(kvasu_dev *dev, uintptr_t base, kvasu_read32_fn read32,
                kvasu_write32_fn write32, void *ctx);
/* Set up a handle for a block mapped at `base` in the CPU's address space. */
void kvasu_init_mmio(kvasu_dev *dev, uintptr_t base);

/* Check ID and VERSION (same major.minor as KVASU_VERSION_VALUE; any patch); fill `info`
   when it is not NULL. */
kvasu_status kvasu_identify(const kvasu_dev *dev, kvasu_info *info);

/* Write the shadow configuration and commit it. A refused commit (an illegal set) returns
   KVASU_ERR_REFUSED and leaves the block as it was: active configuration, ENABLE, table
   and statistics untouched, STATUS.ERROR clear again, and the shadows restored to the
   active values. Waits for nothing: a seed change's flush runs on (see kvasu_wait_idle). */
kvasu_status kvasu_configure(const kvasu_dev *dev, const kvasu_config *cfg);
/* Read the active (committed) configuration. */
kvasu_status kvasu_get_config(const kvasu_dev *dev, kvasu_config *cfg);

/* Untrack every line, then poll STATUS.BUSY until the flush is over (at most max_polls
   reads; 0 = do not wait). ENABLE is kept. */
kvasu_status kvasu_flush(const kvasu_dev *dev, uint32_t max_polls);
/* Poll STATUS.BUSY until it reads 0 (at most max_polls reads). */
kvasu_status kvasu_wait_idle(const kvasu_dev *dev, uint32_t max_polls);

/* Zero every statistic, between two requests (none lost or split). ENABLE is kept. */
void kvasu_clear_stats(const kvasu_dev *dev);
/* One statistic (index KVASU_STAT_*), read atomically as a 64-bit sample. */
kvasu_status kvasu_read_stat(const kvasu_dev *dev, unsigned index, uint64_t *value);
/* Every statistic, in index order (each an atomic 64-bit sample). */
void kvasu_read_stats(const kvasu_dev *dev, uint64_t values[KVASU_STAT_COUNT]);
/* Any 64-bit counter by the offset of its LO word (KVASU_REG_CYCLE_LO, ...). */
uint64_t kvasu_read64(const kvasu_dev *dev, uint32_t lo_offset);

/* Accept requests (1) or not (0); requests already accepted are still answered. */
void kvasu_set_enabled(const kvasu_dev *dev, int enabled);
int kvasu_is_enabled(const kvasu_dev *dev);
/* Number of tracked lines. */
uint32_t kvasu_occupancy(const kvasu_dev *dev);

#ifdef __cplusplus
}
#endif

#endif /* KV_ASU_H */
