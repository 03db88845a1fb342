/* Models for benches/compare.py: the C callbacks sgsample calls when driven through its C
 * library from Python (ctypes), so that the timing is the library's and not Python's.
 *
 *   dw_energy / dw_gradient   the double well of docs/algorithms.md §1.3,
 *                             U(θ) = (θ+4)(θ+1)(θ−1)(θ−3)/14 + 0.5, ∇Ũ = ∇U + N(0, 1);
 *                             the noise is a pure function of the minibatch seed
 *                             (splitmix64 → two uniforms → Box–Muller), like a minibatch.
 *   mix_gradients             ∇V of the 1-D mixture ⅓N(−2, 1) + ⅔N(2, 1) (§2.4) for n points
 *                             (every coordinate; mix_gradients_f32 in single precision).
 *   logreg_gradients          Bayesian logistic regression (compare_svgd.py), data minibatches.
 *   std_gradient(_f32)        ∇U = θ of the standard Gaussian (the per-coordinate inner step).
 *
 *   cmp_sizeof / cmp_last_offset   the layout of the C API's structs that compare.py mirrors
 *                             in ctypes, from the header, so that the mirrors are checked.
 *
 * Built by compare.py with `cc -O2 -shared -fPIC -I include benches/compare_models.c -lm`. */
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "sgsample.h"

/* sizeof and the offset of the last field of each struct compare.py mirrors (-1: unknown). */
#define LAYOUT(S, LAST) \
    if (strcmp(name, #S) == 0) return want_size ? (long)sizeof(S) : (long)offsetof(S, LAST);
static long layout(const char *name, int want_size) {
    LAYOUT(sgs_amagold_config, reserved)
    LAYOUT(sgs_amagold_info, reserved)
    LAYOUT(sgs_amagold_run_summary, last)
    LAYOUT(sgs_chain_info, reserved)
    LAYOUT(sgs_chain_run_summary, last)
    LAYOUT(sgs_sghmc_config, reserved)
    LAYOUT(sgs_svgd_config, anneal_power)
    LAYOUT(sgs_svgd_info, ksd_squared)
    LAYOUT(sgs_svgd_run_summary, last)
    return -1;
}
long cmp_sizeof(const char *name) { return layout(name, 1); }
long cmp_last_offset(const char *name) { return layout(name, 0); }

static uint64_t splitmix64(uint64_t x) {
    x += 0x9e3779b97f4a7c15ULL;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
}

/* One N(0, 1) draw from the seed alone. */
static double seed_normal(uint64_t seed) {
    uint64_t a = splitmix64(seed);
    uint64_t b = splitmix64(a);
    double u1 = ((a >> 11) + 1) * (1.0 / 9007199254740992.0); /* (0, 1] */
    double u2 = (b >> 11) * (1.0 / 9007199254740992.0);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

int32_t dw_energy(void *user_data, const double *theta, size_t d, double *u) {
    (void)user_data;
    (void)d;
    double x = theta[0];
    *u = (x + 4.0) * (x + 1.0) * (x - 1.0) * (x - 3.0) / 14.0 + 0.5;
    return 0;
}

/* user_data: NULL (noise sd 1) or a pointer to the noise standard deviation. */
int32_t dw_gradient(void *user_data, const double *x, size_t d, uint64_t seed, double *g) {
    (void)d;
    double sd = user_data ? *(const double *)user_data : 1.0;
    double t = x[0];
    g[0] = (4.0 * t * t * t + 3.0 * t * t - 26.0 * t - 1.0) / 14.0 + sd * seed_normal(seed);
    return 0;
}

int32_t mix_gradients(void *user_data, const double *xs, size_t n, size_t d, uint64_t seed,
                      double *grads) {
    (void)user_data;
    (void)seed;
    for (size_t i = 0; i < n * d; i++) {
        double x = xs[i];
        grads[i] = x - 2.0 + 4.0 / (2.0 * exp(4.0 * x) + 1.0);
    }
    return 0;
}

/* The trivial gradient of U(θ) = |θ|²/2: ∇U = θ (no noise), for the per-coordinate inner-step
 * measure: what remains is the sampler's own work per coordinate. */
int32_t std_gradient(void *user_data, const double *x, size_t d, uint64_t seed, double *g) {
    (void)user_data;
    (void)seed;
    for (size_t i = 0; i < d; i++) g[i] = x[i];
    return 0;
}

int32_t std_gradient_f32(void *user_data, const float *x, size_t d, uint64_t seed, float *g) {
    (void)user_data;
    (void)seed;
    for (size_t i = 0; i < d; i++) g[i] = x[i];
    return 0;
}

/* The same in f32 (the `_f32` SVGD functions), in single precision throughout. */
int32_t mix_gradients_f32(void *user_data, const float *xs, size_t n, size_t d, uint64_t seed,
                          float *grads) {
    (void)user_data;
    (void)seed;
    for (size_t i = 0; i < n * d; i++) {
        float x = xs[i];
        grads[i] = x - 2.0f + 4.0f / (2.0f * expf(4.0f * x) + 1.0f);
    }
    return 0;
}

/* Bayesian logistic regression as in the SVGD paper (compare_svgd.py builds the data):
 * θ = (w, log α), w | α ~ N(0, α⁻¹ I), α ~ Gamma(1, rate 0.01); ∇U on a minibatch of `mb`
 * training rows drawn with replacement from the seed (splitmix64), scaled by n_train/mb; all
 * particles of an iteration share the minibatch. */
typedef struct {
    size_t n_train, dw, mb;
    const double *x; /* n_train × dw, row by row */
    const double *y;
} logreg_data;

int32_t logreg_gradients(void *user_data, const double *xs, size_t n, size_t d, uint64_t seed,
                         double *g) {
    const logreg_data *ds = user_data;
    size_t dw = ds->dw;
    double scale = (double)ds->n_train / (double)ds->mb;
    uint64_t s = seed;
    for (size_t i = 0; i < n * d; i++) g[i] = 0.0;
    for (size_t b = 0; b < ds->mb; b++) {
        s = splitmix64(s);
        size_t r = (size_t)(s % ds->n_train);
        const double *xr = ds->x + r * dw;
        for (size_t i = 0; i < n; i++) {
            const double *th = xs + i * d;
            double z = 0.0;
            for (size_t j = 0; j < dw; j++) z += xr[j] * th[j];
            double c = scale * (1.0 / (1.0 + exp(-z)) - ds->y[r]);
            for (size_t j = 0; j < dw; j++) g[i * d + j] += c * xr[j];
        }
    }
    for (size_t i = 0; i < n; i++) {
        const double *th = xs + i * d;
        double a = exp(th[dw]), ww = 0.0;
        for (size_t j = 0; j < dw; j++) {
            g[i * d + j] += a * th[j];
            ww += th[j] * th[j];
        }
        g[i * d + dw] = 0.5 * a * ww - 0.5 * (double)dw + 0.01 * a - 1.0;
    }
    return 0;
}
