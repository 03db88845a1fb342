/* The two gradients of the parallel examples (OpenMP, MPI) and their benchmark: a cheap one and
 * an expensive one, both per point and thread-safe (they read only shared, immutable data).
 *
 * - mixture: V of the 1-D Gaussian mixture 1/3 N(-2, 1) + 2/3 N(2, 1), applied to every
 *   coordinate: dV/dx = x - 2 + 4 / (2 exp(4x) + 1) (docs/algorithms.md §2.4).
 * - logistic: the posterior of a Bayesian logistic regression with d = 55 weights, a N(0, 1)
 *   prior and M = 20000 synthetic data points, with the data minibatch of 100 chosen by the
 *   iteration's seed (sgs_minibatch): grad V(w) = w + (M/100) sum_i (sigmoid(w.x_i) - y_i) x_i.
 *   The same seed is passed to every call of an iteration, so every thread and rank uses the
 *   same minibatch.
 *
 * Also the starting particles and the timing helpers every parallel example shares. The includer
 * defines _POSIX_C_SOURCE (for clock_gettime) before its first include. */
#ifndef SGS_PARALLEL_MODELS_H
#define SGS_PARALLEL_MODELS_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sgsample.h"

static int32_t mixture_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    (void)ud;
    (void)seed;
    for (size_t l = 0; l < d; l++) g[l] = x[l] - 2.0 + 4.0 / (2.0 * exp(4.0 * x[l]) + 1.0);
    return SGS_CB_OK;
}

enum { LR_D = 55, LR_M = 20000, LR_BATCH = 100 };

typedef struct {
    double *x; /* LR_M rows of LR_D features (the first is 1: the intercept) */
    double *y; /* LR_M labels in {0, 1} */
} lr_data;

/* Deterministic synthetic data: features from a fixed linear congruential sequence, labels from
 * a fixed true weight vector (so every rank builds the same data without communication). */
static inline int lr_make(lr_data *m) {
    m->x = malloc((size_t)LR_M * LR_D * sizeof *m->x);
    m->y = malloc((size_t)LR_M * sizeof *m->y);
    if (!m->x || !m->y) return 0;
    uint64_t s = 88172645463325252ull;
    for (size_t i = 0; i < LR_M; i++) {
        double z = 0.0;
        for (size_t l = 0; l < LR_D; l++) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            double u = (double)(s >> 11) * 0x1.0p-53 - 0.5;
            double f = l == 0 ? 1.0 : 2.0 * u;
            m->x[i * LR_D + l] = f;
            z += f * (l % 5 == 0 ? 0.5 : -0.1);
        }
        s = s * 6364136223846793005ull + 1442695040888963407ull;
        m->y[i] = (double)(s >> 11) * 0x1.0p-53 < 1.0 / (1.0 + exp(-z)) ? 1.0 : 0.0;
    }
    return 1;
}

static inline void lr_free(lr_data *m) {
    free(m->x);
    free(m->y);
}

static inline int32_t lr_gradient(void *ud, const double *w, size_t d, uint64_t seed, double *g) {
    const lr_data *m = (const lr_data *)ud;
    uint64_t rows[LR_BATCH];
    if (d != LR_D || sgs_minibatch(seed, LR_M, rows, LR_BATCH) != SGS_OK) return SGS_CB_ABORT;
    for (size_t l = 0; l < d; l++) g[l] = w[l];
    for (size_t k = 0; k < LR_BATCH; k++) {
        const double *xi = m->x + rows[k] * LR_D;
        double z = 0.0;
        for (size_t l = 0; l < d; l++) z += w[l] * xi[l];
        double r = ((double)LR_M / LR_BATCH) * (1.0 / (1.0 + exp(-z)) - m->y[rows[k]]);
        for (size_t l = 0; l < d; l++) g[l] += r * xi[l];
    }
    return SGS_CB_OK;
}

/* Starting particles: a fixed deterministic spread; coordinate k of the whole system (a shard
 * starts from the values of its own block). */
static inline double start_value(size_t k) {
    return 0.5 * sin(0.7 * (double)k + 0.3) - 1.0 + 0.01 * (double)(k % 17);
}

static inline void start_particles(double *x, size_t n, size_t d) {
    for (size_t k = 0; k < n * d; k++) x[k] = start_value(k);
}

/* This thread's CPU seconds (what other processes take does not count); 0 if the clock fails. */
static inline double thread_cpu(void) {
    struct timespec ts;
    if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0) return 0.0;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* qsort's order of doubles (for medians of timings). */
static inline int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#endif
