/* An SVGD iteration in phases on several threads through the C API, under ThreadSanitizer:
 * T threads take batches round-robin (gradients of the batch's slots, then its forces), the
 * main thread finishes; the particles and the info are bit-identical to sgs_svgd_step on a twin,
 * for T = 1, 2, 3, 4, in double and float. Then two threads race for the same gradient range:
 * exactly one gets it, the other SGS_ERR_RANGE_OVERLAP, and the iteration still finishes with
 * the serial result. Prints one line per check and exits non-zero on a failure. */
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgsample.h"

enum { N = 601, D = 2, P = 8, ITERS = 4 };

static int failed;
static void check(const char *name, int ok) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", name);
    if (!ok) failed = 1;
}

/* grad V(x) = x - 1 + 0.3 sin(x) + small seed-dependent shift: per point, thread-safe. */
static int32_t grad(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    (void)ud;
    for (size_t l = 0; l < d; l++) g[l] = x[l] - 1.0 + 0.3 * sin(x[l]) + 1e-3 * (double)(seed % 11);
    return SGS_CB_OK;
}
static int32_t grad_f32(void *ud, const float *x, size_t d, uint64_t seed, float *g) {
    (void)ud;
    for (size_t l = 0; l < d; l++) g[l] = x[l] - 1.0f + 0.3f * sinf(x[l]) + 1e-3f * (float)(seed % 11);
    return SGS_CB_OK;
}

typedef struct {
    const void *state;
    int f32, t, threads;
    size_t batches;
    int32_t status;
} job;

static void *worker(void *arg) {
    job *j = (job *)arg;
    j->status = SGS_OK;
    for (size_t b = (size_t)j->t; b < j->batches && j->status == SGS_OK; b += (size_t)j->threads) {
        size_t a = 0, e = 0;
        if (j->f32) {
            const sgs_svgd_f32 *s = (const sgs_svgd_f32 *)j->state;
            j->status = sgs_svgd_batch_rows_f32(s, b, &a, &e);
            if (j->status == SGS_OK) j->status = sgs_svgd_gradients_range_f32(s, a, e);
            if (j->status == SGS_OK) j->status = sgs_svgd_batches_range_f32(s, b, b + 1);
        } else {
            const sgs_svgd *s = (const sgs_svgd *)j->state;
            j->status = sgs_svgd_batch_rows(s, b, &a, &e);
            if (j->status == SGS_OK) j->status = sgs_svgd_gradients_range(s, a, e);
            if (j->status == SGS_OK) j->status = sgs_svgd_batches_range(s, b, b + 1);
        }
    }
    return NULL;
}

static int run_threads(const void *state, int f32, int threads, size_t batches) {
    pthread_t tid[8];
    job jobs[8];
    for (int t = 0; t < threads; t++) {
        jobs[t] = (job){state, f32, t, threads, batches, SGS_OK};
        if (pthread_create(&tid[t], NULL, worker, &jobs[t]) != 0) return 0;
    }
    int ok = 1;
    for (int t = 0; t < threads; t++) {
        pthread_join(tid[t], NULL);
        ok &= jobs[t].status == SGS_OK;
    }
    return ok;
}

/* `ITERS` iterations on `threads` threads against a twin stepped with sgs_svgd_step: the same
 * info and particles. One definition for both float types (SFX is empty or _f32); SCALE is the
 * config's scale option (docs/algorithms.md §2.7). */
#define THREADS_CASE(NAME, T, S, SFX, GRAD, SIN, IS_F32, LABEL, SCALE, PERM)                                \
    static void NAME(int threads) {                                                                       \
        sgs_svgd_config c = sgs_svgd_config_default(P, 0.05);                                             \
        c.bandwidth = 0.5;                                                                                \
        c.scale = SCALE;                                                                                  \
        c.permutation = PERM;                                                                             \
        size_t len = sgs_svgd_workspace_len##SFX(N, D, &c), nb = 0;                                       \
        T *x = malloc(N * D * sizeof *x), *y = malloc(N * D * sizeof *y);                                 \
        T *ws = malloc(len * sizeof *ws), *wt = malloc(len * sizeof *wt);                                 \
        uint32_t *ix = malloc(N * sizeof *ix), *iy = malloc(N * sizeof *iy);                              \
        for (size_t k = 0; k < N * D; k++) x[k] = y[k] = (T)2 * SIN((T)0.37 * (T)k);                      \
        S s, twin;                                                                                        \
        memset(&s, 0, sizeof s);                                                                          \
        memset(&twin, 0, sizeof twin);                                                                    \
        int ok = sgs_svgd_init##SFX(&s, &c, x, N, D, ws, len, ix, N, GRAD, NULL, NULL) == SGS_OK &&       \
                 sgs_svgd_init##SFX(&twin, &c, y, N, D, wt, len, iy, N, GRAD, NULL, NULL) == SGS_OK;      \
        ok &= sgs_svgd_num_batches##SFX(&s, &nb) == SGS_OK && nb == N / P;                                \
        for (int it = 0; it < ITERS && ok; it++) {                                                        \
            sgs_svgd_info a, b;                                                                           \
            ok &= sgs_svgd_begin##SFX(&s) == SGS_OK && run_threads(&s, IS_F32, threads, nb) &&            \
                  sgs_svgd_finish##SFX(&s, &a) == SGS_OK && sgs_svgd_step##SFX(&twin, &b) == SGS_OK &&    \
                  memcmp(&a, &b, sizeof a) == 0;                                                          \
        }                                                                                                 \
        ok &= memcmp(x, y, N * D * sizeof *x) == 0;                                                       \
        char name[96];                                                                                    \
        snprintf(name, sizeof name, LABEL ": %d thread(s), %d iterations == step, bit for bit", threads,  \
                 ITERS);                                                                                  \
        check(name, ok);                                                                                  \
        free(x), free(y), free(ws), free(wt), free(ix), free(iy);                                         \
    }

THREADS_CASE(f64_threads, double, sgs_svgd, , grad, sin, 0, "double", SGS_SCALE_NONE, SGS_PERMUTATION_SHUFFLE)
THREADS_CASE(f32_threads, float, sgs_svgd_f32, _f32, grad_f32, sinf, 1, "float", SGS_SCALE_NONE,
             SGS_PERMUTATION_SHUFFLE)
THREADS_CASE(f64_threads_scale, double, sgs_svgd, , grad, sin, 0, "double, scale particles", SGS_SCALE_PARTICLES,
             SGS_PERMUTATION_SHUFFLE)
THREADS_CASE(f32_threads_scale, float, sgs_svgd_f32, _f32, grad_f32, sinf, 1, "float, scale particles",
             SGS_SCALE_PARTICLES, SGS_PERMUTATION_SHUFFLE)
/* The Feistel permutation: each range evaluates its slots and moves its particles in place,
 * while the other threads' ranges read and write theirs. */
THREADS_CASE(f64_threads_feistel, double, sgs_svgd, , grad, sin, 0, "double, Feistel, moves in place",
             SGS_SCALE_NONE, SGS_PERMUTATION_FEISTEL)
THREADS_CASE(f32_threads_feistel, float, sgs_svgd_f32, _f32, grad_f32, sinf, 1, "float, Feistel, moves in place",
             SGS_SCALE_NONE, SGS_PERMUTATION_FEISTEL)

typedef struct {
    const sgs_svgd *s;
    int32_t status;
} racer;

static void *race(void *arg) {
    racer *r = (racer *)arg;
    r->status = sgs_svgd_gradients_range(r->s, 0, N);
    return NULL;
}

static void overlap_race(void) {
    sgs_svgd_config c = sgs_svgd_config_default(P, 0.05);
    size_t len = sgs_svgd_workspace_len(N, D, &c);
    double *x = malloc(N * D * sizeof *x), *y = malloc(N * D * sizeof *y);
    double *ws = malloc(len * sizeof *ws), *wt = malloc(len * sizeof *wt);
    uint32_t *ix = malloc(N * sizeof *ix), *iy = malloc(N * sizeof *iy);
    for (size_t k = 0; k < N * D; k++) x[k] = y[k] = cos(0.11 * (double)k);
    sgs_svgd s, twin;
    memset(&s, 0, sizeof s);
    memset(&twin, 0, sizeof twin);
    int ok = sgs_svgd_init(&s, &c, x, N, D, ws, len, ix, N, grad, NULL, NULL) == SGS_OK &&
             sgs_svgd_init(&twin, &c, y, N, D, wt, len, iy, N, grad, NULL, NULL) == SGS_OK &&
             sgs_svgd_begin(&s) == SGS_OK;
    pthread_t t1, t2;
    racer r1 = {&s, -1}, r2 = {&s, -1};
    pthread_create(&t1, NULL, race, &r1);
    pthread_create(&t2, NULL, race, &r2);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    int one_won = (r1.status == SGS_OK && r2.status == SGS_ERR_RANGE_OVERLAP) ||
                  (r2.status == SGS_OK && r1.status == SGS_ERR_RANGE_OVERLAP);
    ok &= one_won && sgs_svgd_batches_range(&s, 0, N / P) == SGS_OK && sgs_svgd_finish(&s, NULL) == SGS_OK &&
          sgs_svgd_step(&twin, NULL) == SGS_OK && memcmp(x, y, N * D * sizeof *x) == 0;
    check("two threads race for the same gradient range: one wins, one RANGE_OVERLAP, serial result", ok);
    free(x), free(y), free(ws), free(wt), free(ix), free(iy);
}

int main(void) {
    for (int t = 1; t <= 4; t++) f64_threads(t);
    f32_threads(3);
    for (int t = 1; t <= 4; t += 3) f64_threads_scale(t);
    f32_threads_scale(3);
    for (int t = 1; t <= 4; t++) f64_threads_feistel(t);
    f32_threads_feistel(3);
    overlap_race();
    return failed;
}
