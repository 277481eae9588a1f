/* SPDX-License-Identifier: Apache-2.0 */
/* KV-ASU driver (see kv_asu.h; register rules: docs/registers.md). */
#include "kv_asu.h"

static uint32_t rd(const kvasu_dev *dev, uint32_t offset)
{
    return dev->read32(dev->ctx, dev->base + (uintptr_t)offset);
}

static void wr(const kvasu_dev *dev, uint32_t offset, uint32_t value)
{
    dev->write32(dev->ctx, dev->base + (uintptr_t)offset, value);
}

static uint32_t mmio_read32(void *ctx, uintptr_t addr)
{
    (void)ctx;
    return *(volatile const uint32_t *)addr;
}

static void mmio_write32(void *ctx, uintptr_t addr, uint32_t value)
{
    (void)ctx;
    *(volatile uint32_t *)addr = value;
}

void kvasu_init(kvasu_dev *dev, uintptr_t base, kvasu_read32_fn read32,
                kvasu_write32_fn write32, void *ctx)
{
    dev->base = base;
    dev->read32 = read32;
    dev->write32 = write32;
    dev->ctx = ctx;
}

void kvasu_init_mmio(kvasu_dev *dev, uintptr_t base)
{
    kvasu_init(dev, base, mmio_read32, mmio_write32, NULL);
}

/* A CTRL write carries ENABLE as bit 0 whatever else it does: keep the current one. */
static uint32_t enable_bit(const kvasu_dev *dev)
{
    return rd(dev, KVASU_REG_CTRL) & KVASU_CTRL_ENABLE_MASK;
}

kvasu_status kvasu_identify(const kvasu_dev *dev, kvasu_info *info)
{
    uint32_t version;
    if (!dev)
        return KVASU_ERR_ARG;
    if (rd(dev, KVASU_REG_ID) != KVASU_ID_VALUE)
        return KVASU_ERR_ID;
    version = rd(dev, KVASU_REG_VERSION);
    if ((version >> 8) != (KVASU_VERSION_VALUE >> 8))
        return KVASU_ERR_VERSION;
    if (info) {
        info->version = version;
        info->entries = rd(dev, KVASU_REG_P_ENTRIES);
        info->probe = rd(dev, KVASU_REG_P_PROBE);
        info->addr_width = rd(dev, KVASU_REG_P_ADDR_WIDTH);
        info->line_shift = rd(dev, KVASU_REG_P_LINE_SHIFT);
        info->tag_width = rd(dev, KVASU_REG_P_TAG_WIDTH);
        info->count_width = rd(dev, KVASU_REG_P_COUNT_WIDTH);
        info->ts_width = rd(dev, KVASU_REG_P_TS_WIDTH);
        info->tick_shift = rd(dev, KVASU_REG_P_TICK_SHIFT);
        info->wmax = rd(dev, KVASU_REG_P_WMAX);
        info->policies = rd(dev, KVASU_REG_P_POLICIES);
    }
    return KVASU_OK;
}

static void write_shadows(const kvasu_dev *dev, const kvasu_config *cfg)
{
    wr(dev, KVASU_REG_C3, cfg->c3);
    wr(dev, KVASU_REG_C2, cfg->c2);
    wr(dev, KVASU_REG_W3, cfg->w3);
    wr(dev, KVASU_REG_W2, cfg->w2);
    wr(dev, KVASU_REG_W1, cfg->w1);
    wr(dev, KVASU_REG_HASH_SEED, cfg->hash_seed);
    wr(dev, KVASU_REG_POLICY, cfg->policy);
    wr(dev, KVASU_REG_MODE, cfg->mode);
}

kvasu_status kvasu_get_config(const kvasu_dev *dev, kvasu_config *cfg)
{
    if (!dev || !cfg)
        return KVASU_ERR_ARG;
    cfg->c3 = rd(dev, KVASU_REG_ACT_C3);
    cfg->c2 = rd(dev, KVASU_REG_ACT_C2);
    cfg->w3 = rd(dev, KVASU_REG_ACT_W3);
    cfg->w2 = rd(dev, KVASU_REG_ACT_W2);
    cfg->w1 = rd(dev, KVASU_REG_ACT_W1);
    cfg->hash_seed = rd(dev, KVASU_REG_ACT_HASH_SEED);
    cfg->policy = rd(dev, KVASU_REG_ACT_POLICY);
    cfg->mode = rd(dev, KVASU_REG_ACT_MODE);
    return KVASU_OK;
}

/* Whether a mode register's `value` sets a bit outside the fields the build has. */
static int sets_unbuilt_bits(uint32_t value, uint32_t fields, uint32_t needs_predictor,
                             int predictor)
{
    return (value & ~(predictor ? fields : fields & ~needs_predictor)) != 0u;
}

int kvasu_config_legal(const kvasu_info *info, const kvasu_config *cfg)
{
    uint32_t count_max;
    int predictor;
    if (!info || !cfg)
        return 0;
    /* a uint32_t shift: 1u is 16 bits wide where int is (AVR, MSP430) */
    count_max = info->count_width >= 32u ? 0xFFFFFFFFu
                                         : ((uint32_t)1 << info->count_width) - 1u;
    predictor = (info->policies & KVASU_P_POLICIES_PREDICTOR_MASK) != 0u;
    return KVASU_CONFIG_LEGAL(cfg->c3, cfg->c2, cfg->w3, cfg->w2, cfg->w1, cfg->hash_seed,
                              count_max, info->wmax)
           && !sets_unbuilt_bits(cfg->policy, KVASU_POLICY_FIELDS_MASK,
                                 KVASU_POLICY_NEEDS_PREDICTOR_MASK, predictor)
           && !sets_unbuilt_bits(cfg->mode, KVASU_MODE_FIELDS_MASK,
                                 KVASU_MODE_NEEDS_PREDICTOR_MASK, predictor);
}

kvasu_status kvasu_configure(const kvasu_dev *dev, const kvasu_config *cfg)
{
    uint32_t enable;
    kvasu_config active;
    kvasu_info info;
    kvasu_status status;
    if (!dev || !cfg)
        return KVASU_ERR_ARG;
    /* A set the block would refuse is never written: its SLVERR could fault the CPU. */
    status = kvasu_identify(dev, &info);
    if (status != KVASU_OK)
        return status;
    if (!kvasu_config_legal(&info, cfg))
        return KVASU_ERR_REFUSED;
    enable = enable_bit(dev);
    /* An error left by someone else must not be taken for this commit's answer. */
    if (rd(dev, KVASU_REG_STATUS) & KVASU_STATUS_ERROR_MASK)
        wr(dev, KVASU_REG_CTRL, KVASU_CTRL_CLEAR_ERROR_MASK | enable);
    write_shadows(dev, cfg);
    /* The block's own check (SLVERR and STATUS.ERROR) stays the backstop; STATUS answers
       even where the bus hook cannot report BRESP. */
    wr(dev, KVASU_REG_CTRL, KVASU_CTRL_COMMIT_MASK | enable);
    if (!(rd(dev, KVASU_REG_STATUS) & KVASU_STATUS_ERROR_MASK))
        return KVASU_OK;
    wr(dev, KVASU_REG_CTRL, KVASU_CTRL_CLEAR_ERROR_MASK | enable);
    kvasu_get_config(dev, &active);
    write_shadows(dev, &active);
    return KVASU_ERR_REFUSED;
}

kvasu_status kvasu_wait_idle(const kvasu_dev *dev, uint32_t max_polls)
{
    uint32_t i;
    if (!dev)
        return KVASU_ERR_ARG;
    for (i = 0; i < max_polls; i++)
        if (!(rd(dev, KVASU_REG_STATUS) & KVASU_STATUS_BUSY_MASK))
            return KVASU_OK;
    return KVASU_ERR_TIMEOUT;
}

kvasu_status kvasu_flush(const kvasu_dev *dev, uint32_t max_polls)
{
    if (!dev)
        return KVASU_ERR_ARG;
    wr(dev, KVASU_REG_CTRL, KVASU_CTRL_FLUSH_MASK | enable_bit(dev));
    return max_polls ? kvasu_wait_idle(dev, max_polls) : KVASU_OK;
}

void kvasu_clear_stats(const kvasu_dev *dev)
{
    wr(dev, KVASU_REG_CTRL, KVASU_CTRL_CLEAR_STATS_MASK | enable_bit(dev));
}

uint64_t kvasu_read64(const kvasu_dev *dev, uint32_t lo_offset)
{
    uint32_t lo = rd(dev, lo_offset);       /* latches the high half of the same sample */
    uint32_t hi = rd(dev, lo_offset + 4u);
    return (uint64_t)hi << 32 | lo;
}

static const uint32_t stat_offsets[KVASU_STAT_COUNT] = KVASU_STAT_OFFSETS;

kvasu_status kvasu_read_stat(const kvasu_dev *dev, unsigned index, uint64_t *value)
{
    if (!dev || !value || index >= KVASU_STAT_COUNT)
        return KVASU_ERR_ARG;
    *value = kvasu_read64(dev, stat_offsets[index]);
    return KVASU_OK;
}

void kvasu_read_stats(const kvasu_dev *dev, uint64_t values[KVASU_STAT_COUNT])
{
    unsigned i;
    for (i = 0; i < KVASU_STAT_COUNT; i++)
        values[i] = kvasu_read64(dev, stat_offsets[i]);
}

void kvasu_set_enabled(const kvasu_dev *dev, int enabled)
{
    wr(dev, KVASU_REG_CTRL, enabled ? KVASU_CTRL_ENABLE_MASK : 0u);
}

int kvasu_is_enabled(const kvasu_dev *dev)
{
    return enable_bit(dev) != 0;
}

uint32_t kvasu_occupancy(const kvasu_dev *dev)
{
    return rd(dev, KVASU_REG_OCCUPANCY);
}

kvasu_status kvasu_read_soft_errors(const kvasu_dev *dev, kvasu_soft_errors *errors)
{
    uint32_t first_mem;
    if (!dev || !errors)
        return KVASU_ERR_ARG;
    errors->sticky = (rd(dev, KVASU_REG_STATUS) & KVASU_STATUS_SOFT_ERROR_MASK) != 0;
    errors->uncorrected = rd(dev, KVASU_REG_ERR_UNCORRECTED);
    errors->corrected = rd(dev, KVASU_REG_ERR_CORRECTED);
    first_mem = rd(dev, KVASU_REG_ERR_FIRST_MEM);
    errors->first_mem_id = (first_mem & KVASU_ERR_FIRST_MEM_MEM_ID_MASK)
                           >> KVASU_ERR_FIRST_MEM_MEM_ID_SHIFT;
    errors->first_uncorrectable = (first_mem & KVASU_ERR_FIRST_MEM_UNCORRECTABLE_MASK) != 0;
    errors->first_addr = rd(dev, KVASU_REG_ERR_FIRST_ADDR);
    errors->first_cycle = kvasu_read64(dev, KVASU_REG_ERR_FIRST_CYCLE_LO);
    errors->last_recovery = rd(dev, KVASU_REG_ERR_LAST_RECOVERY);
    return KVASU_OK;
}

void kvasu_clear_soft_errors(const kvasu_dev *dev)
{
    wr(dev, KVASU_REG_CTRL, KVASU_CTRL_CLEAR_SOFT_ERROR_MASK | enable_bit(dev));
}
