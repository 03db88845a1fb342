/* The test models of the C-vs-Rust reproducibility check, written so that ffi-tests/reference.rs
 * can repeat them operation for operation: f64 arithmetic in the order written, one rounding to
 * the coordinate type at the end, and gradient noise that is an integer hash of the minibatch
 * seed (SplitMix64), so no random-number library is involved on either side.
 * Compile with -ffp-contract=off: a fused multiply-add would round once where Rust rounds twice. */
#ifndef SGS_FFI_TESTS_MODELS_H
#define SGS_FFI_TESTS_MODELS_H

#include <stdint.h>
#include <stddef.h>

static uint64_t mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Noise number k of a minibatch seed: uniform on [-0.5, 0.5), 53 bits. */
static double seed_noise(uint64_t seed, uint64_t k) {
    uint64_t h = mix64(seed ^ mix64(k));
    return (double)(h >> 11) * (1.0 / 9007199254740992.0) - 0.5;
}

/* MODEL_DW: the double well U = (x+4)(x+1)(x-1)(x-3)/14 + 0.5 (d = 1).
 * MODEL_G3: U = 0.5 * sum a_i x_i^2 with a = {1, 4, 0.25} (d = 3); the energy REJECTs x_0 > 1.5
 *           and the gradient REJECTs x_0 > 2.5 (the domain edge exercises out-of-domain paths). */
/* MODEL_G3FREE: MODEL_G3 without the domain edge (for SVGD, where a REJECT is an error). */
/* MODEL_C3: a correlated Gaussian U = 0.5 (x - mu)^T P (x - mu) (d = 3, P below, symmetric
 *           positive definite), for the dense mass matrix and the warm-up's approach from a far
 *           start; no domain edge. */
enum { MODEL_DW = 0, MODEL_G3 = 1, MODEL_G3FREE = 2, MODEL_C3 = 3 };

typedef struct {
    int kind;
    double noise; /* scale of the gradient noise */
} model;

static const double G3_A[3] = {1.0, 4.0, 0.25};
static const double C3_P[9] = {2.0, 0.5, 0.0, 0.5, 1.0, -0.25, 0.0, -0.25, 0.5};
static const double C3_MU[3] = {1.0, -2.0, 0.5};

/* Row i of P times (x - mu), summed in j order. */
static double c3_row(const double *x, size_t i) {
    double s = 0.0;
    for (size_t j = 0; j < 3; j++) s += C3_P[i * 3 + j] * (x[j] - C3_MU[j]);
    return s;
}

static int32_t model_energy64(const model *m, const double *x, size_t d, double *u) {
    if (m->kind == MODEL_DW) {
        double t = x[0];
        *u = (t + 4.0) * (t + 1.0) * (t - 1.0) * (t - 3.0) / 14.0 + 0.5;
        return 0;
    }
    if (m->kind == MODEL_C3) {
        double s = 0.0;
        for (size_t i = 0; i < d && i < 3; i++) s += (x[i] - C3_MU[i]) * c3_row(x, i);
        *u = 0.5 * s;
        return 0;
    }
    if (m->kind == MODEL_G3 && x[0] > 1.5) return 1;
    double s = 0.0;
    for (size_t i = 0; i < d; i++) s += G3_A[i] * x[i] * x[i];
    *u = 0.5 * s;
    return 0;
}

static int32_t model_gradient64(const model *m, const double *x, size_t d, uint64_t seed,
                                double *g) {
    if (m->kind == MODEL_DW) {
        double t = x[0];
        g[0] = (4.0 * t * t * t + 3.0 * t * t - 26.0 * t - 1.0) / 14.0 + m->noise * seed_noise(seed, 0);
        return 0;
    }
    if (m->kind == MODEL_C3) {
        for (size_t i = 0; i < d && i < 3; i++) g[i] = c3_row(x, i) + m->noise * seed_noise(seed, i);
        return 0;
    }
    if (m->kind == MODEL_G3 && x[0] > 2.5) return 1;
    for (size_t i = 0; i < d; i++) g[i] = G3_A[i] * x[i] + m->noise * seed_noise(seed, i);
    return 0;
}

/* TunaMH's terms (d ≤ 3): TERMS_N terms U_i(θ) = |y_i − x_i·θ| with |x_ij| ≤ 0.5, so each one is
 * Lipschitz with constant ‖x_i‖ ≤ √3/2 < TERMS_BOUND, and the exact part U₀(θ) = 0.05·|θ|².
 * x_ij and y_i come from integers by one division each. */
enum { TERMS_N = 40 };
#define TERMS_BOUND 1.0

static inline double terms_x(uint64_t i, size_t j) {
    return (double)((i * 7 + j * 3) % 11) / 11.0 - 0.5;
}
static inline double terms_y(uint64_t i) { return (double)((i * 5) % 13) / 4.0 - 1.5; }

static inline double terms_u(uint64_t i, const double *x, size_t d) {
    double r = terms_y(i);
    for (size_t j = 0; j < d; j++) r -= terms_x(i, j) * x[j];
    return r < 0.0 ? -r : r;
}

/* out[k] = U_{idx[k]}(proposal) − U_{idx[k]}(theta). */
static inline void terms_differences64(const double *theta, const double *proposal, size_t d,
                                       const uint64_t *idx, size_t count, double *out) {
    for (size_t k = 0; k < count; k++)
        out[k] = terms_u(idx[k], proposal, d) - terms_u(idx[k], theta, d);
}

static inline double terms_exact64(const double *theta, const double *proposal, size_t d) {
    double a = 0.0, b = 0.0;
    for (size_t j = 0; j < d; j++) {
        a += proposal[j] * proposal[j];
        b += theta[j] * theta[j];
    }
    return 0.05 * (a - b);
}

/* Particle i, coordinate l of the SVGD runs' start: a fixed, exactly computed pattern. */
static double svgd_start(size_t i, size_t l) { return (double)((i * 7 + l * 3) % 11) / 5.0 - 1.0; }

#endif
