/* C side of bindings/matlab/BENCHMARKS.md: the AMAGOLD run of bench_sgsample.m (d = 2, the
 * deterministic gradient θ + f(seed) of tests/bitexact.c, ε = 0.3, T = 10, 20000 samples), timed.
 *   cc -std=c99 -O2 -ffp-contract=off -Iinclude bindings/matlab/bench/bench_c.c \
 *      target/release/libsgsample.a -lm -o bench_c && ./bench_c */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>

#include "sgsample.h"

static int32_t energy(void *u, const double *x, size_t d, double *e) {
    (void)u;
    (void)d;
    *e = 0.5 * (x[0] * x[0] + x[1] * x[1]);
    return SGS_CB_OK;
}
static int32_t gradient(void *u, const double *x, size_t d, uint64_t seed, double *g) {
    (void)u;
    double nz = ((double)(seed >> 11) / 9007199254740992.0 - 0.5) * 0.5;
    for (size_t i = 0; i < d; i++) g[i] = x[i] + nz;
    return SGS_CB_OK;
}
static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}
int main(void) {
    enum { N = 20000 };
    static double out[N * 2];
    double ws[64], th[2] = {1.0, -1.0}, best = 1e9;
    for (int rep = 0; rep < 5; rep++) {
        sgs_amagold a = {{0}};
        sgs_amagold_config c = sgs_amagold_config_default(0.3);
        c.seed = 7;
        double t0 = now();
        if (sgs_amagold_init(&a, &c, th, 2, ws, 64, energy, gradient, NULL) != SGS_OK) return 1;
        if (sgs_amagold_run(&a, N, out, 2 * N, NULL, NULL) != SGS_OK) return 1;
        double t = now() - t0;
        if (t < best) best = t;
    }
    printf("C: AMAGOLD d=2, T=10, %d samples (%d callback calls): %.2f ms (best of 5), %.1f ns per callback call\n",
           N, 1 + N * 11, best * 1e3, best * 1e9 / (1 + N * 11));
    return 0;
}
