/* The C-side cost of sgs_amagold_run_batch per chain-iteration against K separate
 * sgs_amagold_run calls, on the double well of the AMAGOLD paper (examples-c/double_well.c:
 * U(θ) = (θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5, ∇Ũ = ∇U + N(0, 1) from the seed; T = 10, β = 0.25,
 * ε = 0.15) with trivial C callbacks, so that the difference is the batch engine's replay and
 * bookkeeping (docs/benchmarks.md, "K chains per call").
 *
 *   cc -O2 -ffp-contract=off -Iinclude benches/batch_overhead.c target/release/libsgsample.a -lm
 *   ./a.out [iterations per chain]
 *
 * Prints, for K = 1, 4, 16: CPU ns per chain-iteration of K separate runs, of one batch run
 * (cache of 16 calls), their ratio, and the batched calls per chain-iteration. Each time is the
 * median of 5 repetitions. */
#define _POSIX_C_SOURCE 199309L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sgsample.h"

static double dw_energy(double t) { return (t + 4.0) * (t + 1.0) * (t - 1.0) * (t - 3.0) / 14.0 + 0.5; }
static double dw_grad(double t) { return (4.0 * t * t * t + 3.0 * t * t - 26.0 * t - 1.0) / 14.0; }

/* A cheap N(0,1)-like noise from the seed (sum of uniforms: the cost is not the point here). */
static double seed_noise(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    z ^= z >> 31;
    return ((double)(z >> 11) * 0x1.0p-53 - 0.5) * 3.4641016151377544;
}

static int32_t e1(void *u, const double *x, size_t d, double *e) {
    (void)u, (void)d;
    *e = dw_energy(x[0]);
    return SGS_CB_OK;
}
static int32_t g1(void *u, const double *x, size_t d, uint64_t s, double *g) {
    (void)u, (void)d;
    g[0] = dw_grad(x[0]) + seed_noise(s);
    return SGS_CB_OK;
}
static int32_t ek(void *u, const double *x, size_t k, size_t d, const size_t *c, double *e, int32_t *st) {
    (void)c, (void)st, (void)d;
    ++*(size_t *)u;
    for (size_t r = 0; r < k; r++) e[r] = dw_energy(x[r]);
    return SGS_CB_OK;
}
static int32_t gk(void *u, const double *x, size_t k, size_t d, const uint64_t *s, const size_t *c,
                  double *g, int32_t *st) {
    (void)c, (void)st, (void)d;
    ++*(size_t *)u;
    for (size_t r = 0; r < k; r++) g[r] = dw_grad(x[r]) + seed_noise(s[r]);
    return SGS_CB_OK;
}

static double cpu(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int cmp(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define KMAX 16
#define REPS 5
#define MAXCALLS 16

int main(int argc, char **argv) {
    size_t n = argc > 1 ? (size_t)strtoull(argv[1], NULL, 10) : 20000;
    static sgs_amagold st[KMAX];
    static double ws[KMAX][16];
    double *out = malloc(KMAX * n * sizeof(double));
    size_t sl = sgs_amagold_batch_scratch_len(KMAX, 1, MAXCALLS);
    double *scratch = malloc(sl * sizeof(double));
    const size_t ks[] = {1, 4, 16};
    printf("%4s %14s %14s %8s %16s\n", "K", "separate ns", "batch ns", "ratio", "calls/chain-it");
    for (size_t ki = 0; ki < 3; ki++) {
        size_t k = ks[ki], calls = 0;
        double tsep[REPS], tbat[REPS];
        for (int rep = 0; rep < REPS; rep++) {
            for (int batch = 0; batch < 2; batch++) {
                memset(st, 0, sizeof st);
                for (size_t c = 0; c < k; c++) {
                    sgs_amagold_config cfg = sgs_amagold_config_default(0.15);
                    cfg.seed = 1 + c;
                    double th = 0.0;
                    if (sgs_amagold_init(&st[c], &cfg, &th, 1, ws[c], 16, e1, g1, NULL) != SGS_OK) return 1;
                }
                double t0 = cpu();
                if (batch) {
                    calls = 0;
                    if (sgs_amagold_run_batch(st, k, n, ek, gk, &calls, scratch, sl, MAXCALLS, out, k * n,
                                              NULL, NULL) != SGS_OK)
                        return 1;
                } else {
                    for (size_t c = 0; c < k; c++)
                        if (sgs_amagold_run(&st[c], n, out + c * n, n, NULL, NULL) != SGS_OK) return 1;
                }
                double t = (cpu() - t0) * 1e9 / (double)(k * n);
                if (batch)
                    tbat[rep] = t;
                else
                    tsep[rep] = t;
            }
        }
        qsort(tsep, REPS, sizeof(double), cmp);
        qsort(tbat, REPS, sizeof(double), cmp);
        printf("%4zu %14.1f %14.1f %8.2f %16.3f\n", k, tsep[REPS / 2], tbat[REPS / 2],
               tbat[REPS / 2] / tsep[REPS / 2], (double)calls / (double)(k * n));
    }
    free(out);
    free(scratch);
    return 0;
}
