/* Test models computed identically here and in tests/models.py (same operations in the same
 * order, libm's log/cos/exp on both sides: Python's math module calls the same libm), so that the
 * C program bitcheck.c and the Python binding must produce the same bits. Compiled with
 * -ffp-contract=off (no fused multiply-add: Python never fuses). Also loaded by the tests as a
 * shared library for the raw-function-pointer path. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>

static uint64_t splitmix64(uint64_t *s) {
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* A standard normal determined by the seed (Box-Muller on two splitmix64 uniforms). */
double sgt_normal(uint64_t seed) {
    uint64_t s = seed;
    double u1 = (double)((splitmix64(&s) >> 11) + 1) * 0x1p-53;
    double u2 = (double)(splitmix64(&s) >> 11) * 0x1p-53;
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Double well U = (x+4)(x+1)(x-1)(x-3)/14 + 1/2 (docs/algorithms.md), one coordinate. */
int32_t dw_energy(void *ud, const double *t, size_t d, double *u) {
    (void)ud;
    (void)d;
    double x = t[0];
    *u = (x + 4.0) * (x + 1.0) * (x - 1.0) * (x - 3.0) / 14.0 + 0.5;
    return 0;
}

/* Its gradient plus noise_sd * N(0, 1) from the seed; user_data points to noise_sd (or NULL: 1). */
int32_t dw_grad(void *ud, const double *t, size_t d, uint64_t seed, double *g) {
    (void)d;
    double sd = ud ? *(const double *)ud : 1.0;
    double x = t[0];
    g[0] = (4.0 * x * x * x + 3.0 * x * x - 26.0 * x - 1.0) / 14.0 + sd * sgt_normal(seed);
    return 0;
}

/* float version: the same formula in float arithmetic, the noise rounded to float. */
int32_t dw_grad_f32(void *ud, const float *t, size_t d, uint64_t seed, float *g) {
    (void)ud;
    (void)d;
    float x = t[0];
    g[0] = (4.0f * x * x * x + 3.0f * x * x - 26.0f * x - 1.0f) / 14.0f + (float)sgt_normal(seed);
    return 0;
}

int32_t dw_energy_f32(void *ud, const float *t, size_t d, double *u) {
    (void)ud;
    (void)d;
    double x = t[0];
    *u = (x + 4.0) * (x + 1.0) * (x - 1.0) * (x - 3.0) / 14.0 + 0.5;
    return 0;
}

/* 1-D mixture 1/3 N(-2,1) + 2/3 N(2,1): grad U for all n particles (row-major n x d, d = 1). */
int32_t mix_grads(void *ud, const double *xs, size_t n, size_t d, uint64_t seed, double *g) {
    (void)ud;
    (void)seed;
    for (size_t i = 0; i < n * d; i++) {
        double x = xs[i];
        double a = exp(-0.5 * (x + 2.0) * (x + 2.0)) / 3.0;
        double b = 2.0 * exp(-0.5 * (x - 2.0) * (x - 2.0)) / 3.0;
        g[i] = (a * (x + 2.0) + b * (x - 2.0)) / (a + b);
    }
    return 0;
}

/* Counts its calls in *(uint64_t *)ud and returns theta: the per-call cost benchmark. */
int32_t count_grad(void *ud, const double *t, size_t d, uint64_t seed, double *g) {
    (void)seed;
    *(uint64_t *)ud += 1;
    for (size_t i = 0; i < d; i++) g[i] = t[i];
    return 0;
}

/* Centred Gaussian with per-coordinate scales: U = sum_i t_i^2 / (2 s_i^2). user_data points to
 * d + 1 doubles: the scales s_0..s_{d-1}, then the gradient noise sd (0: exact gradient, with
 * which SGLD is an exact AR(1) chain, docs/algorithms.md §4.5). */
int32_t gauss_energy(void *ud, const double *t, size_t d, double *u) {
    const double *s = (const double *)ud;
    double acc = 0.0;
    for (size_t i = 0; i < d; i++) acc += t[i] * t[i] / (2.0 * s[i] * s[i]);
    *u = acc;
    return 0;
}

int32_t gauss_grad(void *ud, const double *t, size_t d, uint64_t seed, double *g) {
    const double *s = (const double *)ud;
    for (size_t i = 0; i < d; i++) {
        g[i] = t[i] / (s[i] * s[i]);
        if (s[d] != 0.0) g[i] += s[d] * sgt_normal(seed + i);
    }
    return 0;
}

/* TunaMH's Laplace location model (tests/tunamh.rs): terms |y_i - theta| (bound 1), the data
   y behind user_data, and the N(0, 1) prior as the exact part. */
int32_t laplace_diffs(void *ud, const double *t, const double *p, size_t d, const uint64_t *idx,
                      size_t count, double *out) {
    (void)d;
    const double *y = (const double *)ud;
    for (size_t j = 0; j < count; j++) {
        out[j] = fabs(y[idx[j]] - p[0]) - fabs(y[idx[j]] - t[0]);
    }
    return 0;
}

int32_t laplace_exact(void *ud, const double *t, const double *p, size_t d, double *out) {
    (void)ud;
    (void)d;
    *out = (p[0] * p[0] - t[0] * t[0]) / 2.0;
    return 0;
}

/* The same for a float chain: the coordinates widened to double, the differences in double. */
int32_t laplace_diffs_f32(void *ud, const float *t, const float *p, size_t d,
                          const uint64_t *idx, size_t count, double *out) {
    (void)d;
    const double *y = (const double *)ud;
    for (size_t j = 0; j < count; j++) {
        out[j] = fabs(y[idx[j]] - (double)p[0]) - fabs(y[idx[j]] - (double)t[0]);
    }
    return 0;
}

/* Batched callbacks that cost (almost) nothing: every gradient 0, every energy 1/2. With the
 * same constants written by Python callbacks, the Python and the C batch runs give the same
 * draws; the difference in time is the binding's (benchmarks/batch.py). */
int32_t zero_batch_energy(void *ud, const double *x, size_t k, size_t d, const size_t *chains,
                          double *u, int32_t *row_status) {
    (void)ud;
    (void)x;
    (void)d;
    (void)chains;
    (void)row_status;
    for (size_t r = 0; r < k; r++) u[r] = 0.5;
    return 0;
}

int32_t zero_batch_grad(void *ud, const double *x, size_t k, size_t d, const uint64_t *seeds,
                        const size_t *chains, double *g, int32_t *row_status) {
    (void)ud;
    (void)x;
    (void)seeds;
    (void)chains;
    (void)row_status;
    for (size_t i = 0; i < k * d; i++) g[i] = 0.0;
    return 0;
}
