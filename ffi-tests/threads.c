/* Two threads, each running its own samplers of every kind (AMAGOLD, SGHMC, SGLD, SVGD; double
 * and float) on its own states and buffers, at the same time. Built with -fsanitize=thread by
 * scripts/test-ffi.sh: the library has no global state, so ThreadSanitizer must see no race, and
 * every thread's results must be bit-identical to those of a one-thread run. */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sgsample.h"

enum { D = 3, N = 16, ITERS = 200, JOBS = 8 };

static uint64_t mix(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double noise(uint64_t seed, size_t i) { return (double)(mix(seed ^ mix(i)) >> 11) * 0x1p-53 - 0.5; }

/* U = |x|^2 / 2, gradient x + 0.1 * noise(seed). */
static int32_t e64(void *ud, const double *x, size_t d, double *u) {
    double s = 0.0;
    (void)ud;
    for (size_t i = 0; i < d; i++) s += x[i] * x[i];
    *u = 0.5 * s;
    return SGS_CB_OK;
}
static int32_t g64(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    (void)ud;
    for (size_t i = 0; i < d; i++) g[i] = x[i] + 0.1 * noise(seed, i);
    return SGS_CB_OK;
}
static int32_t e32(void *ud, const float *x, size_t d, double *u) {
    double s = 0.0;
    (void)ud;
    for (size_t i = 0; i < d; i++) s += (double)x[i] * (double)x[i];
    *u = 0.5 * s;
    return SGS_CB_OK;
}
static int32_t g32(void *ud, const float *x, size_t d, uint64_t seed, float *g) {
    (void)ud;
    for (size_t i = 0; i < d; i++) g[i] = (float)((double)x[i] + 0.1 * noise(seed, i));
    return SGS_CB_OK;
}

static _Thread_local int32_t last_status;

static uint64_t fnv(const void *p, size_t n, uint64_t h) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

/* One job: a sampler kind and float type run for ITERS iterations; returns a hash of every
 * sample (or of the final particles) and the status. */
static uint64_t job(int k) {
    const double x0[D] = {0.5, -0.25, 1.0};
    const float x0f[D] = {0.5f, -0.25f, 1.0f};
    static _Thread_local double out[ITERS * D], ws[4096], xs[N * D];
    static _Thread_local float outf[ITERS * D], wsf[4096], xsf[N * D];
    static _Thread_local uint32_t idx[N];
    uint64_t h = 0xcbf29ce484222325ULL + (uint64_t)k;
    int32_t st = -1;
    size_t done = 0;
    switch (k) {
    case 0: {
        sgs_amagold s = {{0}};
        sgs_amagold_config c = sgs_amagold_config_default(0.2);
        c.seed = 7;
        st = sgs_amagold_init(&s, &c, x0, D, ws, sgs_amagold_workspace_len(D), e64, g64, NULL);
        if (st == SGS_OK) st = sgs_amagold_run(&s, ITERS, out, ITERS * D, &done, NULL);
        return last_status = st, fnv(out, sizeof out, h) ^ (uint64_t)st;
    }
    case 1: {
        sgs_amagold_f32 s = {{0}};
        sgs_amagold_config c = sgs_amagold_config_default(0.2);
        st = sgs_amagold_init_f32(&s, &c, x0f, D, wsf, sgs_amagold_workspace_len_f32(D), e32, g32, NULL);
        if (st == SGS_OK) st = sgs_amagold_run_f32(&s, ITERS, outf, ITERS * D, &done, NULL);
        return last_status = st, fnv(outf, sizeof outf, h) ^ (uint64_t)st;
    }
    case 2: {
        sgs_sghmc s = {{0}};
        sgs_sghmc_config c = sgs_sghmc_config_default(0.1);
        st = sgs_sghmc_init(&s, &c, x0, D, ws, sgs_sghmc_workspace_len(D), g64, NULL);
        if (st == SGS_OK) st = sgs_sghmc_run(&s, ITERS, out, ITERS * D, &done, NULL);
        return last_status = st, fnv(out, sizeof out, h) ^ (uint64_t)st;
    }
    case 3: {
        sgs_sghmc_f32 s = {{0}};
        sgs_sghmc_config c = sgs_sghmc_config_default(0.1);
        st = sgs_sghmc_init_f32(&s, &c, x0f, D, wsf, sgs_sghmc_workspace_len_f32(D), g32, NULL);
        if (st == SGS_OK) st = sgs_sghmc_run_f32(&s, ITERS, outf, ITERS * D, &done, NULL);
        return last_status = st, fnv(outf, sizeof outf, h) ^ (uint64_t)st;
    }
    case 4: {
        sgs_sgld s = {{0}};
        sgs_sgld_config c = sgs_sgld_config_default(0.1);
        st = sgs_sgld_init(&s, &c, x0, D, ws, sgs_sgld_workspace_len(D), g64, NULL);
        if (st == SGS_OK) st = sgs_sgld_run(&s, ITERS, out, ITERS * D, &done, NULL);
        return last_status = st, fnv(out, sizeof out, h) ^ (uint64_t)st;
    }
    case 5: {
        sgs_sgld_f32 s = {{0}};
        sgs_sgld_config c = sgs_sgld_config_default(0.1);
        st = sgs_sgld_init_f32(&s, &c, x0f, D, wsf, sgs_sgld_workspace_len_f32(D), g32, NULL);
        if (st == SGS_OK) st = sgs_sgld_run_f32(&s, ITERS, outf, ITERS * D, &done, NULL);
        return last_status = st, fnv(outf, sizeof outf, h) ^ (uint64_t)st;
    }
    case 6: {
        sgs_svgd s = {{0}};
        sgs_svgd_config c = sgs_svgd_config_default(4, 0.05);
        for (size_t i = 0; i < N * D; i++) xs[i] = (double)i / 10.0 - 2.0;
        size_t wl = sgs_svgd_workspace_len(N, D, &c);
        st = wl <= 4096 ? sgs_svgd_init(&s, &c, xs, N, D, ws, wl, idx, N, g64, NULL, NULL) : -1;
        if (st == SGS_OK) st = sgs_svgd_run(&s, ITERS / 4, NULL);
        return last_status = st, fnv(xs, sizeof xs, h) ^ (uint64_t)st;
    }
    default: {
        sgs_svgd_f32 s = {{0}};
        sgs_svgd_config c = sgs_svgd_config_default(4, 0.05);
        for (size_t i = 0; i < N * D; i++) xsf[i] = (float)i / 10.0f - 2.0f;
        size_t wl = sgs_svgd_workspace_len_f32(N, D, &c);
        st = wl <= 4096 ? sgs_svgd_init_f32(&s, &c, xsf, N, D, wsf, wl, idx, N, g32, NULL, NULL) : -1;
        if (st == SGS_OK) st = sgs_svgd_run_f32(&s, ITERS / 4, NULL);
        return last_status = st, fnv(xsf, sizeof xsf, h) ^ (uint64_t)st;
    }
    }
}

static uint64_t alone[JOBS];

/* A thread runs every job, in an order that depends on its id, twice. */
static void *worker(void *arg) {
    int id = (int)(intptr_t)arg;
    uintptr_t bad = 0;
    for (int rep = 0; rep < 2; rep++)
        for (int j = 0; j < JOBS; j++) {
            int k = (j + id * 3) % JOBS;
            if (job(k) != alone[k]) bad++;
        }
    return (void *)bad;
}

int main(void) {
    for (int k = 0; k < JOBS; k++) {
        alone[k] = job(k);
        if (last_status != SGS_OK) {
            printf("threads: job %d failed with status %d\n", k, (int)last_status);
            return 1;
        }
    }
    pthread_t t[2];
    for (int i = 0; i < 2; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) != 0) return 2;
    uintptr_t bad = 0;
    for (int i = 0; i < 2; i++) {
        void *r;
        pthread_join(t[i], &r);
        bad += (uintptr_t)r;
    }
    printf("threads: 2 threads x %d samplers (AMAGOLD, SGHMC, SGLD, SVGD; f64 and f32) x 2: %lu mismatches "
           "against the one-thread run\n",
           JOBS, (unsigned long)bad);
    return bad == 0 ? 0 : 1;
}
