/* Small helpers shared by the C examples (header-only, C99; also valid C++):
 *   - deterministic random numbers from an integer seed (SplitMix64 hash, Box–Muller), so that a
 *     gradient callback can draw its noise from the minibatch seed the sampler gives it;
 *   - a wall clock (clock_gettime, CLOCK_MONOTONIC) and a median;
 *   - a Cholesky factorisation and solve (the Newton steps of the logistic-regression examples);
 *   - Monte Carlo standard errors and effective sample sizes (the library's sgs_stats_…);
 *   - quick mode (`--quick` or SGS_QUICK=1 in the environment: smaller runs for the smoke test);
 *   - CHECK: a claim the example makes about its own numbers; any failed claim makes the program
 *     exit with status 1, so a run that prints numbers off the truth cannot pass silently.
 * The examples use the library only through include/sgsample.h. */
#ifndef SGS_EXAMPLE_UTIL_H
#define SGS_EXAMPLE_UTIL_H

#if !defined(_POSIX_C_SOURCE) && !defined(__cplusplus)
#define _POSIX_C_SOURCE 199309L
#endif

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sgsample.h"

#ifndef M_PI
#define M_PI 3.14159265358979323846
#endif

/* ---- deterministic random numbers -------------------------------------------------------- */

/* SplitMix64's output function: a bijective 64-bit hash. */
static inline uint64_t ex_mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* A SplitMix64 stream: state advanced by the golden-ratio increment, output hashed. */
typedef struct {
    uint64_t s;
} ex_rng;

static inline ex_rng ex_rng_new(uint64_t seed, uint64_t stream) {
    ex_rng r;
    r.s = ex_mix64(seed) ^ ex_mix64(stream + 0x632be59bd9b4e019ULL);
    return r;
}

static inline uint64_t ex_next(ex_rng *r) {
    r->s += 0x9e3779b97f4a7c15ULL;
    uint64_t z = r->s;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* Uniform on (0, 1): 53 bits, never 0 (safe under log). */
static inline double ex_uniform(ex_rng *r) {
    return ((double)(ex_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Standard normal by Box–Muller (one of the pair; simple rather than fast). */
static inline double ex_normal(ex_rng *r) {
    double u1 = ex_uniform(r), u2 = ex_uniform(r);
    return sqrt(-2.0 * log(u1)) * cos(2.0 * M_PI * u2);
}

/* The k-th standard normal determined by a minibatch seed: a pure function of (seed, k). */
static inline double ex_seed_normal(uint64_t seed, uint64_t k) {
    ex_rng r = ex_rng_new(seed, k);
    return ex_normal(&r);
}

/* ---- time ---------------------------------------------------------------------------------- */

static inline double ex_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static int ex_cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median of v[0..n) (sorts v). */
static inline double ex_median(double *v, size_t n) {
    qsort(v, n, sizeof v[0], ex_cmp_double);
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

/* ---- small dense linear algebra ----------------------------------------------------------- */

/* In place: the lower triangle of the symmetric positive definite d × d matrix a (row by row)
 * becomes L with a = L·Lᵀ; the upper triangle is neither read nor written. */
static inline void ex_cholesky(double *a, size_t d) {
    for (size_t j = 0; j < d; j++) {
        for (size_t k = 0; k < j; k++) a[j * d + j] -= a[j * d + k] * a[j * d + k];
        a[j * d + j] = sqrt(a[j * d + j]);
        for (size_t i = j + 1; i < d; i++) {
            for (size_t k = 0; k < j; k++) a[i * d + j] -= a[i * d + k] * a[j * d + k];
            a[i * d + j] /= a[j * d + j];
        }
    }
}

/* Solves L·Lᵀ·x = b with L from ex_cholesky (x may be b). */
static inline void ex_cholesky_solve(const double *l, size_t d, const double *b, double *x) {
    for (size_t j = 0; j < d; j++) {
        double v = b[j];
        for (size_t k = 0; k < j; k++) v -= l[j * d + k] * x[k];
        x[j] = v / l[j * d + j];
    }
    for (size_t j = d; j-- > 0;) {
        double v = x[j];
        for (size_t k = j + 1; k < d; k++) v -= l[k * d + j] * x[k];
        x[j] = v / l[j * d + j];
    }
}

/* ---- quick mode and checks ----------------------------------------------------------------- */

static inline int ex_quick(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--quick") == 0) return 1;
    const char *e = getenv("SGS_QUICK");
    return e != NULL && e[0] != '\0' && strcmp(e, "0") != 0;
}

static int ex_failures = 0;

/* Records a claim: prints it only when it fails (the tables show the numbers). */
#define CHECK(cond, ...)                                    \
    do {                                                    \
        if (!(cond)) {                                      \
            ex_failures++;                                  \
            fprintf(stderr, "CHECK FAILED (%s:%d): ", __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                   \
            fprintf(stderr, "\n");                          \
        }                                                   \
    } while (0)

/* Dies with the library's description of a status that is not SGS_OK. */
#define SGS_TRY(call)                                                              \
    do {                                                                           \
        int32_t st_ = (call);                                                      \
        if (st_ != SGS_OK) {                                                       \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call,          \
                    sgs_status_str(st_));                                          \
            exit(2);                                                               \
        }                                                                          \
    } while (0)

/* ---- statistics ---------------------------------------------------------------------------- */

/* Mean of f(x[i]) (i < n, every `stride`-th value), its Monte Carlo standard error and its
 * effective sample size, from the library's streaming accumulator (sgs_stats_…: Geyer's initial
 * monotone sequence over a 128-lag window, batch means when the chain mixes slower than that).
 * f = NULL is the identity; `ess` may be NULL. The accumulator needs no stored history: a program
 * that does not keep its draws pushes each one as it comes. */
typedef double (*ex_fn)(double, const void *);

static inline void ex_stats(const double *x, size_t n, size_t stride, ex_fn f, const void *arg,
                            double *mean, double *se, double *ess) {
    size_t bytes = 0;
    SGS_TRY(sgs_stats_state_size(1, &bytes));
    /* Zeroed (use before init is then detected); malloc aligns for any scalar type, which is
     * what sgs_stats_state_align() asks for (checked, not assumed). */
    sgs_stats *st = (sgs_stats *)calloc(1, bytes);
    if (!st || (uintptr_t)st % sgs_stats_state_align() != 0) exit(2);
    SGS_TRY(sgs_stats_init(st, bytes, 1));
    for (size_t i = 0; i < n; i++) {
        double v = f ? f(x[i * stride], arg) : x[i * stride];
        SGS_TRY(sgs_stats_push(st, &v, 1));
    }
    double e;
    SGS_TRY(sgs_stats_mean(st, mean, 1));
    SGS_TRY(sgs_stats_mcse(st, se, 1));
    SGS_TRY(sgs_stats_ess(st, &e, 1));
    if (ess) *ess = e;
    free(st);
}

/* The exit status of main: 0 when every CHECK held. */
static inline int ex_finish(const char *name) {
    if (ex_failures) {
        fprintf(stderr, "%s: %d check(s) FAILED\n", name, ex_failures);
        return 1;
    }
    printf("%s: all checks passed\n", name);
    return 0;
}

#endif
