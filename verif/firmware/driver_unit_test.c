/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Unit test of the C driver (sw/kv_asu.c) on a scripted register bus, no RTL: what the
 * Verilated firmware test cannot reach in a clean run. The bus is an array of register
 * words with the block's single HI latch (a LO read of a 64-bit pair latches its HI word)
 * and a CTRL write that commits the POLICY / MODE / configuration shadows, refusing a
 * POLICY the "build" lacks with STATUS.ERROR, as docs/registers.md says (and, on request,
 * any commit: the driver's backstop for a refusal it did not foresee); STATUS.BUSY can be
 * held for a given number of reads, or for ever. Every access is logged, so the test
 * checks which registers the driver reads and writes, and in what order, besides the
 * values it returns: ENABLE carried by every CTRL action write (set or clear), the polls
 * of kvasu_wait_idle and kvasu_flush and their timeout, the VERSION check, the NULL
 * arguments (refused with no access), 64-bit statistics with a non-zero HI word. Last,
 * kvasu_init_mmio's own hooks run on an array standing in for the mapped block.
 *
 * Prints "check NAME ok|FAIL" per check and "N passed, N failed"; exits 1 on a failure.
 */
#include <stdio.h>
#include <string.h>

#include "kv_asu.h"

#define WORDS 1024u
#define LOG 256u
#define BUSY_FOREVER 0xFFFFFFFFu

typedef struct bus {
    uint32_t reg[WORDS];        /* by byte offset / 4 */
    uint32_t latch;             /* the HI latch */
    uint32_t policies;          /* P_POLICIES of the pretend build */
    int refuse_commits;         /* refuse every commit, legal or not */
    uint32_t busy;              /* STATUS reads that still show BUSY (BUSY_FOREVER: all) */
    unsigned nlog;
    struct { char kind; uint32_t offset, value; } log[LOG];
} bus;

static unsigned passed, failed;

static void check(const char *name, int ok)
{
    printf("check %s %s\n", name, ok ? "ok" : "FAIL");
    if (ok)
        passed++;
    else
        failed++;
}

static void note(bus *b, char kind, uint32_t offset, uint32_t value)
{
    if (b->nlog < LOG) {
        b->log[b->nlog].kind = kind;
        b->log[b->nlog].offset = offset;
        b->log[b->nlog].value = value;
        b->nlog++;
    }
}

/* The 64-bit pairs' LO offsets: the statistics, CYCLE and ERR_FIRST_CYCLE. */
static int is_lo(uint32_t offset)
{
    return (offset >= KVASU_REG_STAT_OBSERVES_LO && offset <= KVASU_REG_STAT_REQ_DROPPED_LO
            && (offset & 7u) == 0) || offset == KVASU_REG_CYCLE_LO
           || offset == KVASU_REG_ERR_FIRST_CYCLE_LO;
}

static int is_hi(uint32_t offset)
{
    return is_lo(offset - 4u) && offset >= 4u;
}

static uint32_t bus_read(void *ctx, uintptr_t addr)
{
    bus *b = ctx;
    uint32_t offset = (uint32_t)addr, value;
    if (is_hi(offset))
        value = b->latch;
    else
        value = b->reg[offset / 4u];
    if (offset == KVASU_REG_STATUS && b->busy) {
        value |= KVASU_STATUS_BUSY_MASK;
        if (b->busy != BUSY_FOREVER)
            b->busy--;
    }
    if (is_lo(offset))
        b->latch = b->reg[offset / 4u + 1u];
    note(b, 'r', offset, value);
    return value;
}

static void bus_write(void *ctx, uintptr_t addr, uint32_t value)
{
    bus *b = ctx;
    uint32_t offset = (uint32_t)addr;
    note(b, 'w', offset, value);
    if (offset != KVASU_REG_CTRL) {
        b->reg[offset / 4u] = value;
        return;
    }
    b->reg[KVASU_REG_CTRL / 4u] = value & KVASU_CTRL_ENABLE_MASK;
    if (value & KVASU_CTRL_CLEAR_ERROR_MASK)
        b->reg[KVASU_REG_STATUS / 4u] &= ~KVASU_STATUS_ERROR_MASK;
    if (value & KVASU_CTRL_CLEAR_SOFT_ERROR_MASK) {
        b->reg[KVASU_REG_STATUS / 4u] &= ~KVASU_STATUS_SOFT_ERROR_MASK;
        b->reg[KVASU_REG_ERR_FIRST_MEM / 4u] = 0;
    }
    if (value & KVASU_CTRL_COMMIT_MASK) {
        uint32_t policy_reserved = b->policies & KVASU_P_POLICIES_PREDICTOR_MASK
                                   ? ~KVASU_POLICY_MODE_MASK : ~0u;
        if (b->refuse_commits || (b->reg[KVASU_REG_POLICY / 4u] & policy_reserved)
            || (b->reg[KVASU_REG_MODE / 4u] & ~KVASU_MODE_NONBLOCKING_MASK)) {
            b->reg[KVASU_REG_STATUS / 4u] |= KVASU_STATUS_ERROR_MASK;
        } else {
            static const uint32_t pairs[][2] = {
                {KVASU_REG_C3, KVASU_REG_ACT_C3}, {KVASU_REG_C2, KVASU_REG_ACT_C2},
                {KVASU_REG_W3, KVASU_REG_ACT_W3}, {KVASU_REG_W2, KVASU_REG_ACT_W2},
                {KVASU_REG_W1, KVASU_REG_ACT_W1},
                {KVASU_REG_HASH_SEED, KVASU_REG_ACT_HASH_SEED},
                {KVASU_REG_POLICY, KVASU_REG_ACT_POLICY}, {KVASU_REG_MODE, KVASU_REG_ACT_MODE}};
            unsigned i;
            for (i = 0; i < sizeof pairs / sizeof pairs[0]; i++)
                b->reg[pairs[i][1] / 4u] = b->reg[pairs[i][0] / 4u];
        }
    }
}

/* The index in the log of the first access of `kind` to `offset` from `from` on, or -1. */
static int find(const bus *b, unsigned from, char kind, uint32_t offset)
{
    unsigned i;
    for (i = from; i < b->nlog; i++)
        if (b->log[i].kind == kind && b->log[i].offset == offset)
            return (int)i;
    return -1;
}

static unsigned writes(const bus *b)
{
    unsigned i, n = 0;
    for (i = 0; i < b->nlog; i++)
        n += b->log[i].kind == 'w';
    return n;
}

/* How many accesses of `kind` to `offset` the log holds. */
static unsigned count(const bus *b, char kind, uint32_t offset)
{
    unsigned i, n = 0;
    for (i = 0; i < b->nlog; i++)
        n += b->log[i].kind == kind && b->log[i].offset == offset;
    return n;
}

/* The value of the n-th CTRL write (from 0) in the log, or 0xFFFFFFFF if there is none. */
static uint32_t ctrl_write(const bus *b, unsigned n)
{
    unsigned i;
    for (i = 0; i < b->nlog; i++)
        if (b->log[i].kind == 'w' && b->log[i].offset == KVASU_REG_CTRL && n-- == 0u)
            return b->log[i].value;
    return 0xFFFFFFFFu;
}

/* Whether the log is exactly one CTRL write of `value` and nothing else written. */
static int one_ctrl_write(const bus *b, uint32_t value)
{
    int at = find(b, 0, 'w', KVASU_REG_CTRL);
    return writes(b) == 1 && at >= 0 && b->log[at].value == value;
}

static void setup(bus *b, kvasu_dev *dev, uint32_t policies)
{
    memset(b, 0, sizeof *b);
    b->policies = policies;
    b->reg[KVASU_REG_ID / 4u] = KVASU_ID_VALUE;
    b->reg[KVASU_REG_VERSION / 4u] = KVASU_VERSION_VALUE;
    b->reg[KVASU_REG_P_POLICIES / 4u] = policies;
    b->reg[KVASU_REG_P_COUNT_WIDTH / 4u] = 16u;
    b->reg[KVASU_REG_P_WMAX / 4u] = 127u;
    b->reg[KVASU_REG_CTRL / 4u] = KVASU_CTRL_ENABLE_MASK;
    kvasu_init(dev, 0, bus_read, bus_write, b);
}

static void test_soft_errors(void)
{
    bus b;
    kvasu_dev dev;
    kvasu_soft_errors e;
    setup(&b, &dev, 1u);
    b.reg[KVASU_REG_STATUS / 4u] = KVASU_STATUS_SOFT_ERROR_MASK | KVASU_STATUS_BUSY_MASK;
    b.reg[KVASU_REG_ERR_UNCORRECTED / 4u] = 7u;
    b.reg[KVASU_REG_ERR_CORRECTED / 4u] = 0xFFFFFFFFu;
    b.reg[KVASU_REG_ERR_FIRST_MEM / 4u] = 9u | KVASU_ERR_FIRST_MEM_UNCORRECTABLE_MASK;
    b.reg[KVASU_REG_ERR_FIRST_ADDR / 4u] = 5u;
    b.reg[KVASU_REG_ERR_FIRST_CYCLE_LO / 4u] = 0x89ABCDEFu;
    b.reg[KVASU_REG_ERR_FIRST_CYCLE_HI / 4u] = 0x01234567u;
    b.reg[KVASU_REG_ERR_LAST_RECOVERY / 4u] = 600u;
    b.reg[KVASU_REG_CYCLE_HI / 4u] = 0xDEADu;       /* a stale latch must not leak in */
    b.latch = 0xDEADu;
    check("soft_errors_read", kvasu_read_soft_errors(&dev, &e) == KVASU_OK);
    check("soft_errors_sticky", e.sticky == 1);
    check("soft_errors_counters", e.uncorrected == 7u && e.corrected == 0xFFFFFFFFu);
    check("soft_errors_first_mem_fields", e.first_mem_id == 9u && e.first_uncorrectable == 1);
    check("soft_errors_first_addr", e.first_addr == 5u);
    check("soft_errors_first_cycle_64", e.first_cycle == 0x0123456789ABCDEFull);
    check("soft_errors_last_recovery", e.last_recovery == 600u);
    check("soft_errors_cycle_lo_before_hi",
          find(&b, 0, 'r', KVASU_REG_ERR_FIRST_CYCLE_LO) >= 0
          && find(&b, 0, 'r', KVASU_REG_ERR_FIRST_CYCLE_LO)
             < find(&b, 0, 'r', KVASU_REG_ERR_FIRST_CYCLE_HI));
    check("soft_errors_read_writes_nothing", writes(&b) == 0);

    b.reg[KVASU_REG_STATUS / 4u] = 0;
    b.reg[KVASU_REG_ERR_FIRST_MEM / 4u] = 3u;         /* a corrected error in mark */
    kvasu_read_soft_errors(&dev, &e);
    check("soft_errors_corrected_first", e.sticky == 0 && e.first_mem_id == 3u
                                         && e.first_uncorrectable == 0);
    check("soft_errors_null", kvasu_read_soft_errors(&dev, NULL) == KVASU_ERR_ARG
                              && kvasu_read_soft_errors(NULL, &e) == KVASU_ERR_ARG);

    b.nlog = 0;
    kvasu_clear_soft_errors(&dev);
    check("clear_soft_errors_one_ctrl_write_keeping_enable",
          writes(&b) == 1 && find(&b, 0, 'w', KVASU_REG_CTRL) >= 0
          && b.log[find(&b, 0, 'w', KVASU_REG_CTRL)].value
             == (KVASU_CTRL_CLEAR_SOFT_ERROR_MASK | KVASU_CTRL_ENABLE_MASK));
    kvasu_set_enabled(&dev, 0);
    b.nlog = 0;
    kvasu_clear_soft_errors(&dev);
    check("clear_soft_errors_keeps_disabled",
          b.log[find(&b, 0, 'w', KVASU_REG_CTRL)].value == KVASU_CTRL_CLEAR_SOFT_ERROR_MASK);
}

static void test_modes(void)
{
    bus b;
    kvasu_dev dev;
    kvasu_info info;
    kvasu_config cfg = {4, 2, 20, 40, 100, 0x5EEDu, KVASU_POLICY_MODE_MASK,
                        KVASU_MODE_NONBLOCKING_MASK};
    kvasu_config active;
    int commit;

    /* a build with the predictor: both modes taken, written before the commit */
    setup(&b, &dev, KVASU_P_POLICIES_ARTICLE_MASK | KVASU_P_POLICIES_PREDICTOR_MASK);
    check("identify_reads_policies", kvasu_identify(&dev, &info) == KVASU_OK
          && info.policies == (KVASU_P_POLICIES_ARTICLE_MASK | KVASU_P_POLICIES_PREDICTOR_MASK));
    b.nlog = 0;
    check("configure_modes_taken", kvasu_configure(&dev, &cfg) == KVASU_OK);
    commit = find(&b, 0, 'w', KVASU_REG_CTRL);
    check("configure_writes_policy_and_mode_before_commit",
          commit >= 0 && (b.log[commit].value & KVASU_CTRL_COMMIT_MASK)
          && find(&b, 0, 'w', KVASU_REG_POLICY) >= 0
          && find(&b, 0, 'w', KVASU_REG_POLICY) < commit
          && find(&b, 0, 'w', KVASU_REG_MODE) >= 0 && find(&b, 0, 'w', KVASU_REG_MODE) < commit);
    check("get_config_reads_active_modes", kvasu_get_config(&dev, &active) == KVASU_OK
          && active.policy == KVASU_POLICY_MODE_MASK
          && active.mode == KVASU_MODE_NONBLOCKING_MASK && active.c3 == 4u);

    /* a build without it: refused by the driver, nothing written (no SLVERR drawn) */
    setup(&b, &dev, KVASU_P_POLICIES_ARTICLE_MASK);
    b.reg[KVASU_REG_ACT_C3 / 4u] = 5u;
    check("configure_predictor_refused", kvasu_configure(&dev, &cfg) == KVASU_ERR_REFUSED);
    check("configure_predictor_refused_writes_nothing", writes(&b) == 0);

    /* a commit the block refuses all the same: the shadows restored to the active words */
    setup(&b, &dev, KVASU_P_POLICIES_ARTICLE_MASK);
    b.refuse_commits = 1;
    b.reg[KVASU_REG_ACT_C3 / 4u] = 5u;
    b.reg[KVASU_REG_ACT_MODE / 4u] = KVASU_MODE_NONBLOCKING_MASK;
    cfg.policy = 0u;
    cfg.mode = 0u;
    check("configure_refused_by_the_block", kvasu_configure(&dev, &cfg) == KVASU_ERR_REFUSED);
    check("refused_restores_policy_and_mode_shadows",
          b.reg[KVASU_REG_POLICY / 4u] == 0u
          && b.reg[KVASU_REG_MODE / 4u] == KVASU_MODE_NONBLOCKING_MASK
          && b.reg[KVASU_REG_C3 / 4u] == 5u);
    check("refused_clears_status_error",
          (b.reg[KVASU_REG_STATUS / 4u] & KVASU_STATUS_ERROR_MASK) == 0u);
    check("refused_keeps_active", b.reg[KVASU_REG_ACT_POLICY / 4u] == 0u
                                  && b.reg[KVASU_REG_ACT_C3 / 4u] == 5u);

    /* modes of 0 are written too: a shadow left at 1 is not committed */
    {
        kvasu_config plain = {4, 2, 20, 40, 100, 0x5EEDu, 0, 0};
        setup(&b, &dev, KVASU_P_POLICIES_ARTICLE_MASK);
        b.reg[KVASU_REG_MODE / 4u] = KVASU_MODE_NONBLOCKING_MASK;
        check("zero_modes_committed_over_stale_shadows",
              kvasu_configure(&dev, &plain) == KVASU_OK
              && b.reg[KVASU_REG_ACT_MODE / 4u] == 0u && b.reg[KVASU_REG_ACT_POLICY / 4u] == 0u);
    }
}

/* kvasu_configure writes nothing for a set kvasu_config_legal refuses, at each edge of the
   chains and the mode registers' fields (COUNT_WIDTH 16, WMAX 127), and commits the legal
   sets at the same edges. */
static void test_legality(void)
{
    static const struct { const char *name; kvasu_config cfg; int legal; } cases[] = {
        {"c2_equal_c3_at_count_max", {65535u, 65535u, 127u, 127u, 127u, 0xFFFFFFFFu, 0u, 1u}, 1},
        {"c2_one_windows_zero", {1u, 1u, 0u, 0u, 0u, 0u, 0u, 0u}, 1},
        {"c2_zero", {3u, 0u, 1u, 2u, 3u, 0u, 0u, 0u}, 0},
        {"c2_above_c3", {2u, 3u, 1u, 2u, 3u, 0u, 0u, 0u}, 0},
        {"c3_above_count_max", {65536u, 3u, 1u, 2u, 3u, 0u, 0u, 0u}, 0},
        {"w3_above_w2", {5u, 3u, 3u, 2u, 3u, 0u, 0u, 0u}, 0},
        {"w2_above_w1", {5u, 3u, 1u, 4u, 3u, 0u, 0u, 0u}, 0},
        {"w1_above_wmax", {5u, 3u, 1u, 2u, 128u, 0u, 0u, 0u}, 0},
        {"policy_reserved_bit", {5u, 3u, 1u, 2u, 3u, 0u, 2u, 0u}, 0},
        {"mode_reserved_bit", {5u, 3u, 1u, 2u, 3u, 0u, 0u, 0x80000000u}, 0},
    };
    bus b;
    kvasu_dev dev;
    kvasu_info info;
    unsigned i;
    char name[96];
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setup(&b, &dev, KVASU_P_POLICIES_ARTICLE_MASK | KVASU_P_POLICIES_PREDICTOR_MASK);
        kvasu_identify(&dev, &info);
        snprintf(name, sizeof name, "legal_%s", cases[i].name);
        check(name, kvasu_config_legal(&info, &cases[i].cfg) == cases[i].legal);
        b.nlog = 0;
        snprintf(name, sizeof name, "configure_%s", cases[i].name);
        check(name, cases[i].legal
                    ? kvasu_configure(&dev, &cases[i].cfg) == KVASU_OK
                      && b.reg[KVASU_REG_ACT_C3 / 4u] == cases[i].cfg.c3
                    : kvasu_configure(&dev, &cases[i].cfg) == KVASU_ERR_REFUSED
                      && writes(&b) == 0);
    }
    check("legal_null", kvasu_config_legal(NULL, &cases[0].cfg) == 0
                        && kvasu_config_legal(&info, NULL) == 0);
    /* a block that is not there: identified first, nothing written */
    setup(&b, &dev, 1u);
    b.reg[KVASU_REG_ID / 4u] = 0u;
    check("configure_wrong_block", kvasu_configure(&dev, &cases[0].cfg) == KVASU_ERR_ID
                                   && writes(&b) == 0);
}

/* kvasu_wait_idle reads STATUS at most max_polls times; kvasu_flush writes FLUSH first, and
   returns KVASU_ERR_TIMEOUT with the flush issued when the polls run out. */
static void test_polls(void)
{
    bus b;
    kvasu_dev dev;
    setup(&b, &dev, 1u);
    b.busy = 2;
    check("wait_idle_ok_on_the_last_poll", kvasu_wait_idle(&dev, 3) == KVASU_OK
                                           && count(&b, 'r', KVASU_REG_STATUS) == 3);
    b.nlog = 0;
    b.busy = 3;
    check("wait_idle_times_out_after_max_polls",
          kvasu_wait_idle(&dev, 3) == KVASU_ERR_TIMEOUT && b.nlog == 3
          && count(&b, 'r', KVASU_REG_STATUS) == 3);
    b.nlog = 0;
    b.busy = 0;
    check("wait_idle_zero_polls_times_out_reading_nothing",
          kvasu_wait_idle(&dev, 0) == KVASU_ERR_TIMEOUT && b.nlog == 0);
    b.nlog = 0;
    b.busy = BUSY_FOREVER;
    check("flush_times_out_with_the_flush_issued",
          kvasu_flush(&dev, 4) == KVASU_ERR_TIMEOUT
          && one_ctrl_write(&b, KVASU_CTRL_FLUSH_MASK | KVASU_CTRL_ENABLE_MASK)
          && count(&b, 'r', KVASU_REG_STATUS) == 4
          && find(&b, 0, 'r', KVASU_REG_STATUS) > find(&b, 0, 'w', KVASU_REG_CTRL));
    b.nlog = 0;
    b.busy = 1;
    check("flush_waits_for_busy", kvasu_flush(&dev, 10) == KVASU_OK
                                  && count(&b, 'r', KVASU_REG_STATUS) == 2);
    b.nlog = 0;
    b.busy = 1;
    check("flush_zero_polls_does_not_wait",
          kvasu_flush(&dev, 0) == KVASU_OK && count(&b, 'r', KVASU_REG_STATUS) == 0
          && one_ctrl_write(&b, KVASU_CTRL_FLUSH_MASK | KVASU_CTRL_ENABLE_MASK));
}

/* Every CTRL action write carries ENABLE as it was, 0 included. */
static void test_enable_kept(void)
{
    static const uint32_t states[2] = {0u, KVASU_CTRL_ENABLE_MASK};
    const kvasu_config cfg = {4, 2, 20, 40, 100, 0x5EEDu, 0, 0};
    bus b;
    kvasu_dev dev;
    unsigned i;
    char name[96];
    for (i = 0; i < 2; i++) {
        const uint32_t enable = states[i];
        const char *state = enable ? "enabled" : "disabled";
        setup(&b, &dev, 1u);
        kvasu_set_enabled(&dev, enable != 0u);
        snprintf(name, sizeof name, "set_enabled_writes_enable_alone_%s", state);
        check(name, one_ctrl_write(&b, enable) && kvasu_is_enabled(&dev) == (enable != 0u));

        b.nlog = 0;
        b.reg[KVASU_REG_STATUS / 4u] = KVASU_STATUS_ERROR_MASK;     /* a stale error */
        snprintf(name, sizeof name, "configure_keeps_%s", state);
        check(name, kvasu_configure(&dev, &cfg) == KVASU_OK
                    && count(&b, 'w', KVASU_REG_CTRL) == 2
                    && ctrl_write(&b, 0) == (KVASU_CTRL_CLEAR_ERROR_MASK | enable)
                    && ctrl_write(&b, 1) == (KVASU_CTRL_COMMIT_MASK | enable)
                    && kvasu_is_enabled(&dev) == (enable != 0u));

        b.nlog = 0;
        b.refuse_commits = 1;
        snprintf(name, sizeof name, "configure_refused_keeps_%s", state);
        check(name, kvasu_configure(&dev, &cfg) == KVASU_ERR_REFUSED
                    && count(&b, 'w', KVASU_REG_CTRL) == 2
                    && ctrl_write(&b, 0) == (KVASU_CTRL_COMMIT_MASK | enable)
                    && ctrl_write(&b, 1) == (KVASU_CTRL_CLEAR_ERROR_MASK | enable)
                    && kvasu_is_enabled(&dev) == (enable != 0u));
        b.refuse_commits = 0;

        b.nlog = 0;
        snprintf(name, sizeof name, "flush_keeps_%s", state);
        check(name, kvasu_flush(&dev, 1) == KVASU_OK
                    && one_ctrl_write(&b, KVASU_CTRL_FLUSH_MASK | enable));

        b.nlog = 0;
        kvasu_clear_stats(&dev);
        snprintf(name, sizeof name, "clear_stats_keeps_%s", state);
        check(name, one_ctrl_write(&b, KVASU_CTRL_CLEAR_STATS_MASK | enable));
    }
}

/* VERSION: any patch of the header's major.minor is taken; another minor or major is
   KVASU_ERR_VERSION, and kvasu_configure then writes nothing. */
static void test_version(void)
{
    static const struct { const char *name; uint32_t version; kvasu_status want; } cases[] = {
        {"identify_takes_another_patch", KVASU_VERSION_VALUE + 1u, KVASU_OK},
        {"identify_takes_patch_255", KVASU_VERSION_VALUE | 0xFFu, KVASU_OK},
        {"identify_refuses_another_minor", KVASU_VERSION_VALUE ^ 0x100u, KVASU_ERR_VERSION},
        {"identify_refuses_another_major", KVASU_VERSION_VALUE ^ 0x10000u, KVASU_ERR_VERSION},
    };
    const kvasu_config cfg = {4, 2, 20, 40, 100, 0x5EEDu, 0, 0};
    bus b;
    kvasu_dev dev;
    kvasu_info info;
    unsigned i;
    char name[96];
    for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setup(&b, &dev, 1u);
        b.reg[KVASU_REG_VERSION / 4u] = cases[i].version;
        info.version = 0u;
        check(cases[i].name, kvasu_identify(&dev, &info) == cases[i].want
                             && (cases[i].want != KVASU_OK || info.version == cases[i].version));
        b.nlog = 0;
        snprintf(name, sizeof name, "configure_after_%s", cases[i].name);
        check(name, cases[i].want == KVASU_OK
                    ? kvasu_configure(&dev, &cfg) == KVASU_OK
                    : kvasu_configure(&dev, &cfg) == KVASU_ERR_VERSION && writes(&b) == 0);
    }
    setup(&b, &dev, 1u);
    check("identify_null_info_reads_id_and_version_only",
          kvasu_identify(&dev, NULL) == KVASU_OK && b.nlog == 2
          && count(&b, 'r', KVASU_REG_ID) == 1 && count(&b, 'r', KVASU_REG_VERSION) == 1);
}

/* Each function that returns a status refuses a NULL pointer (or an index out of range)
   with KVASU_ERR_ARG and no register access. */
static void test_null_arguments(void)
{
    bus b;
    kvasu_dev dev;
    kvasu_info info;
    kvasu_config cfg = {4, 2, 20, 40, 100, 0x5EEDu, 0, 0};
    uint64_t value = 7u;
    setup(&b, &dev, 1u);
    b.nlog = 0;
    check("null_identify", kvasu_identify(NULL, &info) == KVASU_ERR_ARG);
    check("null_get_config", kvasu_get_config(NULL, &cfg) == KVASU_ERR_ARG
                             && kvasu_get_config(&dev, NULL) == KVASU_ERR_ARG);
    check("null_configure", kvasu_configure(NULL, &cfg) == KVASU_ERR_ARG
                            && kvasu_configure(&dev, NULL) == KVASU_ERR_ARG);
    check("null_wait_idle", kvasu_wait_idle(NULL, 1) == KVASU_ERR_ARG);
    check("null_flush", kvasu_flush(NULL, 1) == KVASU_ERR_ARG
                        && kvasu_flush(NULL, 0) == KVASU_ERR_ARG);
    check("null_read_stat", kvasu_read_stat(NULL, 0, &value) == KVASU_ERR_ARG
                            && kvasu_read_stat(&dev, 0, NULL) == KVASU_ERR_ARG
                            && kvasu_read_stat(&dev, KVASU_STAT_COUNT, &value) == KVASU_ERR_ARG
                            && value == 7u);
    check("null_arguments_access_nothing", b.nlog == 0);
}

/* 64-bit statistics with a non-zero HI word, through the HI latch left stale: each LO read
   immediately before its HI. */
static void test_stats_64(void)
{
    static const uint32_t offsets[KVASU_STAT_COUNT] = KVASU_STAT_OFFSETS;
    bus b;
    kvasu_dev dev;
    uint64_t value = 0, values[KVASU_STAT_COUNT];
    unsigned i;
    int all = 1, pairs = 1;
    setup(&b, &dev, 1u);
    for (i = 0; i < KVASU_STAT_COUNT; i++) {
        b.reg[offsets[i] / 4u] = 0x80000002u + i;              /* LO */
        b.reg[offsets[i] / 4u + 1u] = 0x00000001u + (i << 8);   /* HI */
    }
    b.latch = 0xDEADu;
    check("read_stat_64", kvasu_read_stat(&dev, KVASU_STAT_OBSERVES, &value) == KVASU_OK
                          && value == 0x0000000180000002ull);
    check("read_stat_lo_then_hi", b.nlog == 2 && b.log[0].offset == KVASU_REG_STAT_OBSERVES_LO
                                  && b.log[1].offset == KVASU_REG_STAT_OBSERVES_HI);
    b.nlog = 0;
    b.latch = 0xDEADu;
    kvasu_read_stats(&dev, values);
    for (i = 0; i < KVASU_STAT_COUNT; i++) {
        all &= values[i] == ((uint64_t)(0x00000001u + (i << 8)) << 32 | (0x80000002u + i));
        pairs &= b.log[2u * i].offset == offsets[i]
                 && b.log[2u * i + 1u].offset == offsets[i] + 4u;
    }
    check("read_stats_64", all);
    check("read_stats_lo_then_hi_in_index_order", pairs && b.nlog == 2u * KVASU_STAT_COUNT);
    b.reg[KVASU_REG_CYCLE_LO / 4u] = 0xFFFFFFFFu;
    b.reg[KVASU_REG_CYCLE_HI / 4u] = 0x00000002u;
    check("read64_cycle", kvasu_read64(&dev, KVASU_REG_CYCLE_LO) == 0x00000002FFFFFFFFull);
}

/* kvasu_init_mmio's hooks: volatile loads and stores at base + offset, here into an array
   standing in for the block's 4 KiB window. */
static void test_mmio(void)
{
    static uint32_t window[WORDS];
    kvasu_dev dev;
    kvasu_info info;
    window[KVASU_REG_ID / 4u] = KVASU_ID_VALUE;
    window[KVASU_REG_VERSION / 4u] = KVASU_VERSION_VALUE;
    window[KVASU_REG_P_ENTRIES / 4u] = 2048u;
    window[KVASU_REG_P_COUNT_WIDTH / 4u] = 16u;
    window[KVASU_REG_CTRL / 4u] = KVASU_CTRL_ENABLE_MASK;
    window[KVASU_REG_OCCUPANCY / 4u] = 77u;
    window[KVASU_REG_CYCLE_LO / 4u] = 0x89ABCDEFu;
    window[KVASU_REG_CYCLE_HI / 4u] = 0x01234567u;
    kvasu_init_mmio(&dev, (uintptr_t)window);
    check("mmio_handle", dev.base == (uintptr_t)window && dev.ctx == NULL);
    check("mmio_identify", kvasu_identify(&dev, &info) == KVASU_OK && info.entries == 2048u
                           && info.count_width == 16u);
    check("mmio_reads", kvasu_occupancy(&dev) == 77u && kvasu_is_enabled(&dev) == 1
                        && kvasu_read64(&dev, KVASU_REG_CYCLE_LO) == 0x0123456789ABCDEFull);
    kvasu_set_enabled(&dev, 0);
    check("mmio_write", window[KVASU_REG_CTRL / 4u] == 0u && kvasu_is_enabled(&dev) == 0);
    kvasu_clear_stats(&dev);
    check("mmio_write_action", window[KVASU_REG_CTRL / 4u] == KVASU_CTRL_CLEAR_STATS_MASK);
}

int main(void)
{
    test_soft_errors();
    test_modes();
    test_legality();
    test_polls();
    test_enable_kept();
    test_version();
    test_null_arguments();
    test_stats_64();
    test_mmio();
    printf("%u passed, %u failed\n", passed, failed);
    return failed ? 1 : 0;
}
