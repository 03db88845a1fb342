/* One batch run from C against separate runs: K chains of AMAGOLD (adaptive warm-up with the
 * approach, jittered T), SGHMC and SGLD, double and float, on the double well of the AMAGOLD
 * paper with a seed-derived gradient noise (sgs_normal), advanced by sgs_*_run_batch with
 * batched callbacks, must give bit for bit the rows, totals and final positions of K
 * sgs_*_run calls with per-row callbacks. Also a cache of one call (the one-row fallback).
 * Exit status 1 on any difference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sgsample.h"

#define K 4
#define N 150
#define MAXD 2

static double dw_energy(double t) { return (t + 4.0) * (t + 1.0) * (t - 1.0) * (t - 3.0) / 14.0 + 0.5; }
static double dw_grad(double t) { return (4.0 * t * t * t + 3.0 * t * t - 26.0 * t - 1.0) / 14.0; }

/* The per-row model: U = Σ dw(θ_j), ∇Ũ = ∇U + N(0,1) noise from the seed; outside |θ| ≤ 6
 * REJECT. */
static int32_t row_energy(const double *x, size_t d, double *u) {
    double s = 0.0;
    for (size_t j = 0; j < d; j++) {
        if (x[j] > 6.0 || x[j] < -6.0) return SGS_CB_REJECT;
        s += dw_energy(x[j]);
    }
    *u = s;
    return SGS_CB_OK;
}
static int32_t row_gradient(const double *x, size_t d, uint64_t seed, double *g) {
    double z[MAXD];
    if (sgs_normal(seed, z, d) != SGS_OK) return SGS_CB_ABORT;
    for (size_t j = 0; j < d; j++) {
        if (x[j] > 6.0 || x[j] < -6.0) return SGS_CB_REJECT;
        g[j] = dw_grad(x[j]) + z[j];
    }
    return SGS_CB_OK;
}

static int32_t e1(void *u, const double *x, size_t d, double *e) { (void)u; return row_energy(x, d, e); }
static int32_t g1(void *u, const double *x, size_t d, uint64_t s, double *g) { (void)u; return row_gradient(x, d, s, g); }
static int32_t e1f(void *u, const float *x, size_t d, double *e) {
    double y[MAXD] = {0};
    (void)u;
    for (size_t j = 0; j < d; j++) y[j] = x[j];
    return row_energy(y, d, e);
}
static int32_t g1f(void *u, const float *x, size_t d, uint64_t s, float *g) {
    double y[MAXD] = {0}, h[MAXD] = {0};
    (void)u;
    for (size_t j = 0; j < d; j++) y[j] = x[j];
    int32_t r = row_gradient(y, d, s, h);
    for (size_t j = 0; j < d; j++) g[j] = (float)h[j];
    return r;
}

static int32_t ek(void *u, const double *x, size_t k, size_t d, const size_t *c, double *e, int32_t *st) {
    (void)c;
    ++*(size_t *)u;
    for (size_t r = 0; r < k; r++) st[r] = row_energy(x + r * d, d, e + r);
    return SGS_CB_OK;
}
static int32_t gk(void *u, const double *x, size_t k, size_t d, const uint64_t *s, const size_t *c,
                  double *g, int32_t *st) {
    (void)c;
    ++*(size_t *)u;
    for (size_t r = 0; r < k; r++) st[r] = row_gradient(x + r * d, d, s[r], g + r * d);
    return SGS_CB_OK;
}
static int32_t ekf(void *u, const float *x, size_t k, size_t d, const size_t *c, double *e, int32_t *st) {
    (void)c;
    ++*(size_t *)u;
    for (size_t r = 0; r < k; r++) st[r] = e1f(NULL, x + r * d, d, e + r);
    return SGS_CB_OK;
}
static int32_t gkf(void *u, const float *x, size_t k, size_t d, const uint64_t *s, const size_t *c,
                   float *g, int32_t *st) {
    (void)c;
    ++*(size_t *)u;
    for (size_t r = 0; r < k; r++) st[r] = g1f(NULL, x + r * d, d, s[r], g + r * d);
    return SGS_CB_OK;
}

static int failures = 0;
static void same(const char *what, const void *a, const void *b, size_t bytes) {
    if (memcmp(a, b, bytes) != 0) {
        printf("FAIL %s: batch differs from separate runs\n", what);
        failures++;
    }
}

/* One comparison for a sampler and type: SAMPLER (amagold, sghmc, sgld), its state type, T,
 * SUF (empty or _f32), the config of chain c, the batch callbacks, the cache size, then init's
 * callback arguments. */
#define COMPARE(NAME, SAMPLER, STATE, T, SUF, CFGEXPR, EB, GB, MAXCALLS, ...)                        \
    do {                                                                                           \
        const size_t d = MAXD;                                                                     \
        static STATE a[K], b[K];                                                                   \
        static T out_a[K * N * MAXD], out_b[K * N * MAXD], pa[MAXD], pb[MAXD];                      \
        static sgs_##SAMPLER##_run_summary sa[K], sb[K];                                           \
        size_t done[K], calls = 0;                                                                 \
        T *ws[2 * K];                                                                              \
        memset(a, 0, sizeof a);                                                                    \
        memset(b, 0, sizeof b);                                                                    \
        for (size_t c = 0; c < K; c++) {                                                           \
            sgs_##SAMPLER##_config cfg = CFGEXPR;                                                  \
            T th[MAXD] = {(T)(0.5 - 0.7 * (double)c), (T)(-1.0 + 0.3 * (double)c)};               \
            size_t wl = sgs_##SAMPLER##_workspace_len_for##SUF(&cfg, d);                           \
            ws[c] = calloc(wl, sizeof(T));                                                         \
            ws[K + c] = calloc(wl, sizeof(T));                                                     \
            if (sgs_##SAMPLER##_init##SUF(&a[c], &cfg, th, d, ws[c], wl, __VA_ARGS__, NULL) != SGS_OK ||  \
                sgs_##SAMPLER##_init##SUF(&b[c], &cfg, th, d, ws[K + c], wl, __VA_ARGS__, NULL) != SGS_OK) { \
                printf("FAIL %s: init\n", NAME);                                                   \
                failures++;                                                                        \
            }                                                                                      \
            memset(&sa[c], 0, sizeof sa[c]);                                                       \
            memset(&sb[c], 0, sizeof sb[c]);                                                       \
            if (sgs_##SAMPLER##_run##SUF(&a[c], N, out_a + c * N * d, N * d, NULL, &sa[c]) != SGS_OK) { \
                printf("FAIL %s: run\n", NAME);                                                    \
                failures++;                                                                        \
            }                                                                                      \
        }                                                                                          \
        size_t sl = sgs_##SAMPLER##_batch_scratch_len(K, d, MAXCALLS);                             \
        double *scratch = malloc(sl * sizeof(double));                                             \
        sgs_status st = sgs_##SAMPLER##_run_batch##SUF(b, K, N, EB, GB, &calls, scratch, sl, MAXCALLS, \
                                                      out_b, K * N * d, done, sb);                 \
        if (st != SGS_OK) {                                                                        \
            printf("FAIL %s: run_batch %s\n", NAME, sgs_status_str(st));                           \
            failures++;                                                                            \
        }                                                                                          \
        same(NAME, out_a, out_b, sizeof out_a);                                                    \
        same(NAME, sa, sb, sizeof sa);                                                             \
        for (size_t c = 0; c < K; c++) {                                                           \
            sgs_##SAMPLER##_position##SUF(&a[c], pa, d);                                           \
            sgs_##SAMPLER##_position##SUF(&b[c], pb, d);                                           \
            same(NAME, pa, pb, sizeof pa);                                                         \
            if (done[c] != N) failures++;                                                          \
            free(ws[c]);                                                                           \
            free(ws[K + c]);                                                                       \
        }                                                                                          \
        free(scratch);                                                                             \
        printf("%-28s K=%d N=%d max_calls=%-3d batched calls %zu: %s\n", NAME, K, N, MAXCALLS,    \
               calls, failures ? "DIFFERENT" : "identical");                                      \
    } while (0)

static sgs_amagold_config amagold_cfg(size_t c) {
    sgs_amagold_config cfg = sgs_amagold_config_adaptive();
    cfg.warmup = 60;
    cfg.jitter_steps = 1;
    cfg.seed = 100 + c;
    return cfg;
}
static sgs_sghmc_config sghmc_cfg(size_t c) {
    sgs_sghmc_config cfg = sgs_sghmc_config_default(0.1);
    cfg.seed = 200 + c;
    return cfg;
}
static sgs_sgld_config sgld_cfg(size_t c) {
    sgs_sgld_config cfg = sgs_sgld_config_default(0.1);
    cfg.seed = 300 + c;
    return cfg;
}

int main(void) {
    COMPARE("amagold adaptive", amagold, sgs_amagold, double, , amagold_cfg(c), ek, gk, 32, e1, g1);
    COMPARE("amagold adaptive, cache 1", amagold, sgs_amagold, double, , amagold_cfg(c), ek, gk, 1, e1, g1);
    COMPARE("amagold adaptive f32", amagold, sgs_amagold_f32, float, _f32, amagold_cfg(c), ekf, gkf, 32, e1f, g1f);
    COMPARE("sghmc", sghmc, sgs_sghmc, double, , sghmc_cfg(c), NULL, gk, 16, g1);
    COMPARE("sghmc f32", sghmc, sgs_sghmc_f32, float, _f32, sghmc_cfg(c), NULL, gkf, 16, g1f);
    COMPARE("sgld", sgld, sgs_sgld, double, , sgld_cfg(c), NULL, gk, 4, g1);
    return failures ? 1 : 0;
}
