/* RBM-SVGD with OpenMP threads as the workers of the sharded API (sgs_svgd_shard_…), in one
 * process, bit-identical to the serial sgs_svgd_step of the whole system.
 *
 * This is mpi/svgd_shard_mpi.c with threads for ranks and shared memory for the exchanges.
 * Thread t of T holds what rank t holds there: its shard state, its block of the particles, its
 * workspace, index and record buffers, all allocated (and first touched) by the thread itself.
 * Nothing is copied between threads: each reads the records addressed to it where their senders
 * wrote them, one piece per sender (sgs_svgd_shard_forces_parts, _finish_parts). begin and
 * forces write separate buffers, counts and offsets, so that a thread's forces never overwrites
 * what another thread's forces may still be reading. An iteration, where "| X" is a barrier and
 * what it publishes or protects:
 *
 *   begin    records (slot, particle; position, gradient) grouped by destination into the begin
 *            buffers; status
 *            | A: begin's records, counts, offsets, status. All agree on the largest status.
 *   forces   reading its pieces of every thread's begin records; records (particle; force)
 *            grouped by destination into the forces buffers; status
 *            | C: as A, for forces
 *   finish   reading its pieces of every thread's forces records; the 40-byte partial into a
 *            shared array, by rank; status
 *            | D: partials, status; nobody reads a record buffer any more until the next A and
 *              C, so the next begin and forces may overwrite them
 *   commit   with the whole array; status
 *            | E: status; the particles have moved (the checks read them after E)
 *
 * The status arrays (one per step, one for the set-up) and the partials are rewritten only
 * after the next A, B or C, so nobody overwrites a value another thread may still read. When the
 * agreed status is a failure every thread cancels its iteration (nothing moves anywhere) and
 * meets the others at one more barrier before anyone writes a status again. Checked with clang's
 * -fsanitize=thread and libomp's Archer (OMP_TOOL_LIBRARIES=.../libarcher.so): no race. (gcc's
 * -fsanitize=thread cannot check this: libgomp is not instrumented, so its barriers order
 * nothing for ThreadSanitizer, which then reports every access across them.)
 *
 *   ./openmp_shard            # N 1001 d 2 p 8 on 1..4 threads, and edge cases, each checked
 *   ./openmp_shard --quick    # the same, fewer iterations (scripts/test-examples.sh)
 *   ./openmp_shard --bench N p ITERS   # d 1: serial step vs sharded on 1 and all threads
 *                                      # (and each thread's CPU in each of the four calls)
 *
 * (2 <= p <= N, ITERS >= 1.) The model is the 1-D Gaussian mixture of parallel_models.h on every
 * coordinate, AdaGrad, Gaussian kernel h = 2, seed 42, the Feistel permutation: svgd_shard_mpi's.
 * For timings on idle cores: OMP_PROC_BIND=true OMP_WAIT_POLICY=active (the threads meet at four
 * barriers per iteration: sleeping threads would be woken at each). Exit status 0 when every
 * check passed, 1 when one failed or a run could not be made (the reason on stderr), 2 for bad
 * arguments.
 *
 * Build: cc -std=c99 -O2 -fopenmp -Iinclude -Iexamples-c examples-c/openmp_shard.c \
 *          target/release/libsgsample.a -lm */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <math.h>
#include <omp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "parallel_models.h"
#include "parse_size.h"

enum { NO_MEMORY = 1000 }; /* a set-up status of ours, above the library's */

static const char *status_str(int32_t st) {
    return st == NO_MEMORY ? "out of memory" : sgs_status_str(st);
}

/* Per-thread CPU clock: insensitive to other processes taking the cores, and it leaves out the
 * barriers (where active waiting spins). A reading costs ~0.16 us here: 8 per iteration. */
static sgs_svgd_config config(size_t p) {
    sgs_svgd_config cfg = sgs_svgd_config_default(p, 0.05);
    cfg.bandwidth = 2.0;
    cfg.seed = 42;
    cfg.permutation = SGS_PERMUTATION_FEISTEL; /* the sharded API's requirement */
    return cfg;
}

/* Thread t's part. Allocated by the thread (its pages near its core) and never moved: the state
 * records its own address. Only its thread writes it; others read its out buffers, counts and
 * offsets between the barriers that publish them. */
typedef struct {
    sgs_svgd_shard s;          /* first, so calloc's alignment; zeroed, as init requires */
    size_t c, m;               /* own particles, own slots */
    double *x, *ws;
    uint32_t *idx;
    uint32_t *b_i, *f_i;       /* record indices: begin's 2c, forces' m */
    double *b_r, *f_r;         /* rows: begin's 2c d, forces' m d */
    size_t *counts, *offs;     /* records per destination and where each one's start: begin's T, then forces' T */
    sgs_svgd_shard_records *pieces; /* T: where the records for this thread are, by sender */
    int abort_now;             /* the gradient aborts (set by the thread itself) */
    sgs_svgd_info info;        /* the last commit's record */
    double cpu_lib[4];         /* CPU seconds in the library's four calls: begin, forces, finish, commit */
} worker;

/* What the threads share. */
typedef struct {
    size_t T, d;
    worker **w;                    /* T: each thread's own */
    int32_t *st;                   /* 5T: each thread's status of begin, forces, finish, commit, set-up */
    sgs_svgd_shard_partial *parts; /* T: the partials, by rank */
} team;

static int32_t gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    if (((const worker *)ud)->abort_now) return SGS_CB_ABORT;
    return mixture_gradient(NULL, x, d, seed, g);
}

/* The status every thread agrees on: the largest (0 when all succeeded). Read after the barrier
 * that follows the writes. */
static int32_t agree(const int32_t *st, size_t T) {
    int32_t all = SGS_OK;
    for (size_t q = 0; q < T; q++) all = st[q] > all ? st[q] : all;
    return all;
}

/* Allocates thread t's part and starts its shard; the status (NO_MEMORY beyond the library's). */
static int32_t worker_init(team *tm, size_t t, size_t n, const sgs_svgd_config *cfg) {
    size_t T = tm->T, d = tm->d, pf = 0, sf = 0;
    worker *me = calloc(1, sizeof *me);
    tm->w[t] = me;
    if (!me) return NO_MEMORY;
    int32_t st = sgs_svgd_shard_ranges(n, (size_t)cfg->batch_size, T, t, &pf, &me->c, &sf, &me->m);
    if (st != SGS_OK) return st;
    size_t most = me->c > me->m ? me->c : me->m, c = me->c;
    size_t wl = sgs_svgd_shard_workspace_len(n, d, T, t, cfg), il = sgs_svgd_shard_index_len(n, T, t, cfg);
    /* Byte counts that would wrap are refused before malloc (+1: a thread may hold no slot). */
    if (most > SIZE_MAX / 4 / d / sizeof(double) || wl >= SIZE_MAX / sizeof(double)) return NO_MEMORY;
    size_t m = me->m;
    me->x = malloc(c * d * sizeof *me->x + 1), me->ws = malloc(wl * sizeof *me->ws + 1);
    me->idx = malloc(il * sizeof *me->idx + 1);
    me->b_i = malloc(2 * c * sizeof *me->b_i + 1), me->f_i = malloc(m * sizeof *me->f_i + 1);
    me->b_r = malloc(2 * c * d * sizeof *me->b_r + 1), me->f_r = malloc(m * d * sizeof *me->f_r + 1);
    me->counts = malloc(2 * T * sizeof *me->counts), me->offs = malloc(2 * T * sizeof *me->offs);
    me->pieces = malloc(T * sizeof *me->pieces);
    if (!me->x || !me->ws || !me->idx || !me->b_i || !me->f_i || !me->b_r || !me->f_r || !me->counts || !me->offs ||
        !me->pieces)
        return NO_MEMORY;
    for (size_t k = 0; k < c * d; k++) me->x[k] = start_value(pf * d + k);
    return sgs_svgd_shard_init(&me->s, cfg, n, d, T, t, me->x, c * d, me->ws, wl, me->idx, il, gradient, NULL, me);
}

static void worker_free(worker *w) {
    if (!w) return;
    free(w->x), free(w->ws), free(w->idx), free(w->b_i), free(w->f_i), free(w->b_r), free(w->f_r);
    free(w->counts), free(w->offs), free(w->pieces), free(w);
}

/* Where each destination's records start (counts[0..T) just written, from `step`: 0 begin's,
 * T forces'). */
static void publish_offsets(worker *me, size_t T, size_t step) {
    size_t o = 0;
    for (size_t q = 0; q < T; q++) me->offs[step + q] = o, o += me->counts[step + q];
}

/* Thread t's pieces: where every thread's begin (step 0) or forces (step T) wrote the records for
 * t, iw indices and rw values each, in rank order. Read after the barrier that publishes them;
 * the library checks that they add up to the records t must receive. */
static void find_pieces(const team *tm, size_t t, size_t step, size_t iw, size_t rw) {
    worker *me = tm->w[t];
    for (size_t q = 0; q < tm->T; q++) {
        const worker *src = tm->w[q];
        size_t k = src->counts[step + t], o = src->offs[step + t];
        const uint32_t *i = step ? src->f_i : src->b_i;
        const double *r = step ? src->f_r : src->b_r;
        me->pieces[q] = (sgs_svgd_shard_records){i + o * iw, k * iw, r + o * rw, k * rw};
    }
}

/* After an agreed failure: every thread cancels (a no-op where no iteration is under way), then
 * waits until every thread has read the statuses before anyone writes one again. */
static int32_t cancel_all(worker *me, int32_t st) {
    sgs_svgd_shard_cancel(&me->s);
#pragma omp barrier
    return st;
}

/* One iteration, called by every thread of the team; the status they agreed on. */
static int32_t iteration(team *tm, size_t t) {
    worker *me = tm->w[t];
    size_t T = tm->T, c = me->c, m = me->m, d = tm->d;
    int32_t *st = tm->st, r;
    double t0 = thread_cpu();
    r = sgs_svgd_shard_begin(&me->s, me->b_i, 2 * c, me->b_r, 2 * c * d, me->counts, T);
    if (r == SGS_OK) publish_offsets(me, T, 0);
    double t1 = thread_cpu();
    st[t] = r;
#pragma omp barrier /* A */
    if ((r = agree(st, T)) != SGS_OK) return cancel_all(me, r);
    double t2 = thread_cpu();
    find_pieces(tm, t, 0, 2, 2 * d);
    r = sgs_svgd_shard_forces_parts(&me->s, me->pieces, T, me->f_i, m, me->f_r, m * d, me->counts + T, T);
    if (r == SGS_OK) publish_offsets(me, T, T);
    double t3 = thread_cpu();
    st[T + t] = r;
#pragma omp barrier /* C */
    if ((r = agree(st + T, T)) != SGS_OK) return cancel_all(me, r);
    double t4 = thread_cpu();
    find_pieces(tm, t, T, 1, d);
    r = sgs_svgd_shard_finish_parts(&me->s, me->pieces, T, &tm->parts[t]);
    double t5 = thread_cpu();
    st[2 * T + t] = r;
#pragma omp barrier /* D */
    if ((r = agree(st + 2 * T, T)) != SGS_OK) return cancel_all(me, r);
    double t6 = thread_cpu();
    /* The same partials everywhere: the same decision everywhere. */
    r = sgs_svgd_shard_commit(&me->s, tm->parts, T, &me->info);
    double t7 = thread_cpu();
    st[3 * T + t] = r;
#pragma omp barrier /* E */
    me->cpu_lib[0] += t1 - t0, me->cpu_lib[1] += t3 - t2, me->cpu_lib[2] += t5 - t4, me->cpu_lib[3] += t7 - t6;
    if ((r = agree(st + 3 * T, T)) != SGS_OK) return cancel_all(me, r);
    return SGS_OK;
}

/* The blocks of every thread, in rank order: the whole system's particles. */
static void gather(const team *tm, double *all) {
    for (size_t q = 0, at = 0; q < tm->T; at += tm->w[q]->c * tm->d, q++)
        memcpy(all + at, tm->w[q]->x, tm->w[q]->c * tm->d * sizeof *all);
}

typedef struct {
    double *x, *ws;
    uint32_t *idx;
    sgs_svgd s;
} sys;

/* The whole system, serial; 1, or 0 after saying why. */
static int sys_init(sys *y, const sgs_svgd_config *cfg, size_t n, size_t d) {
    memset(y, 0, sizeof *y);
    size_t len = sgs_svgd_workspace_len(n, d, cfg);
    if (len >= SIZE_MAX / sizeof(double) || n > SIZE_MAX / sizeof(double) / d) return 0;
    y->x = malloc(n * d * sizeof *y->x), y->ws = malloc(len * sizeof *y->ws + 1), y->idx = malloc(n * sizeof *y->idx);
    if (!y->x || !y->ws || !y->idx) {
        fprintf(stderr, "openmp_shard: out of memory for the serial system (N %zu, d %zu)\n", n, d);
        return 0;
    }
    start_particles(y->x, n, d);
    int32_t st = sgs_svgd_init(&y->s, cfg, y->x, n, d, y->ws, len, y->idx, n, mixture_gradient, NULL, NULL);
    if (st != SGS_OK) fprintf(stderr, "openmp_shard: serial init: %s\n", sgs_status_str(st));
    return st == SGS_OK;
}

static void sys_free(sys *y) {
    free(y->x), free(y->ws), free(y->idx);
    memset(y, 0, sizeof *y);
}

typedef struct {
    size_t T, n, d, p, iters;
    size_t abort_rank, abort_iter; /* rank abort_rank's gradient aborts once in iteration abort_iter (0: never) */
    sys *twin;                     /* check mode: stepped and compared after every iteration */
    double *all;                   /* n d: the blocks gathered (after every iteration with a twin, and at the end) */
    double *times;                 /* bench mode: each iteration's wall time, barrier to barrier */
} run_spec;

/* The particles and thread 0's record against the twin stepped once more. */
static int matches_twin(const team *tm, const run_spec *r) {
    sgs_svgd_info ti;
    const sgs_svgd_info *i = &tm->w[0]->info;
    gather(tm, r->all);
    return sgs_svgd_step(&r->twin->s, &ti) == SGS_OK && memcmp(r->all, r->twin->x, r->n * r->d * sizeof *r->all) == 0 &&
           ti.iteration == i->iteration && ti.interactions == i->interactions && ti.max_force == i->max_force &&
           fabs(ti.mean_force - i->mean_force) <= 1e-12 * ti.mean_force;
}

/* Runs r->iters iterations of the sharded system on r->T threads, leaving the final particles in
 * r->all. 1 when every iteration succeeded (and, with a twin, matched it; with an abort, every
 * thread reported it and nothing moved), else 0. */
static int run(const run_spec *r) {
    size_t T = r->T, failed_at = 0;
    sgs_svgd_config cfg = config(r->p);
    team tm = {T, r->d, calloc(T, sizeof(worker *)), calloc(5 * T, sizeof(int32_t)),
               calloc(T, sizeof(sgs_svgd_shard_partial))};
    int same = 1, aborted_ok = r->abort_iter == 0, ok = 0;
    int32_t failed = SGS_OK;
    if (!tm.w || !tm.st || !tm.parts) {
        fprintf(stderr, "openmp_shard: out of memory for %zu threads\n", T);
        goto out;
    }
#pragma omp parallel num_threads((int)T)
    {
        size_t t = (size_t)omp_get_thread_num();
        int full = (size_t)omp_get_num_threads() == T; /* OMP_THREAD_LIMIT or OMP_DYNAMIC may give fewer */
        /* A row of its own: the first begin writes its status while others may still read these. */
        tm.st[4 * T + t] = full ? worker_init(&tm, t, r->n, &cfg) : SGS_ERR_INVALID_ARGUMENT;
#pragma omp barrier
        int32_t st = agree(tm.st + 4 * T, T);
        if (t == 0 && st != SGS_OK) {
            fprintf(stderr, "openmp_shard: set-up of N %zu d %zu p %zu on %zu threads: %s\n", r->n, r->d, r->p, T,
                    full ? status_str(st) : "fewer threads than asked for");
            failed = st;
        }
        worker *me = tm.w[t];
        double w0 = omp_get_wtime();
        for (size_t k = 1; k <= r->iters && st == SGS_OK; k++) {
            if (k == r->abort_iter) {
                me->abort_now = t == r->abort_rank;
                int32_t a = iteration(&tm, t);
                me->abort_now = 0;
                if (t == 0) { /* nobody commits before thread 0 reaches the next barrier A */
                    gather(&tm, r->all);
                    int kept = !r->twin || memcmp(r->all, r->twin->x, r->n * r->d * sizeof *r->all) == 0;
                    aborted_ok = a == SGS_ERR_CALLBACK_ABORTED && kept;
                    printf("openmp_shard: iteration %zu, rank %zu's gradient aborts: every thread returned %s%s\n", k,
                           r->abort_rank, sgs_status_str(a), kept ? ", particles as before it" : ", particles CHANGED");
                }
            }
            st = iteration(&tm, t);
            if (t == 0) {
                double w1 = omp_get_wtime();
                if (r->times) r->times[k - 1] = w1 - w0;
                if (st != SGS_OK) failed = st, failed_at = k;
                if (st == SGS_OK && r->twin && same) same = matches_twin(&tm, r);
                w0 = omp_get_wtime();
            }
        }
    }
    if (failed_at)
        fprintf(stderr, "openmp_shard: iteration %zu failed on every thread: %s\n", failed_at, sgs_status_str(failed));
    ok = failed == SGS_OK && same && aborted_ok;
    if (failed == SGS_OK) gather(&tm, r->all);
    if (ok && r->times)
        for (size_t q = 0; q < T; q++) {
            const double *c = tm.w[q]->cpu_lib, k = (double)r->iters;
            printf("openmp_shard:   %zu thread(s), thread %zu (%zu particles, %zu slots): CPU per iteration in the "
                   "library %.6f s (begin %.6f, forces %.6f, finish %.6f, commit %.6f)\n",
                   T, q, tm.w[q]->c, tm.w[q]->m, (c[0] + c[1] + c[2] + c[3]) / k, c[0] / k, c[1] / k, c[2] / k,
                   c[3] / k);
        }
out:
    for (size_t q = 0; tm.w && q < T; q++) worker_free(tm.w[q]);
    free(tm.w), free(tm.st), free(tm.parts);
    return ok;
}

/* `iters` iterations on T threads against the serial twin, after every iteration. */
static int check(size_t n, size_t d, size_t p, size_t iters, size_t T, size_t abort_rank, size_t abort_iter,
                 const char *why) {
    sgs_svgd_config cfg = config(p);
    sys twin;
    double *all = malloc(n * d * sizeof *all);
    int ok = sys_init(&twin, &cfg, n, d) && all;
    run_spec r = {T, n, d, p, iters, abort_rank, abort_iter, &twin, all, NULL};
    ok = ok && run(&r);
    printf("openmp_shard: N %4zu d %zu p %2zu, %zu iterations on %zu thread(s)%s: bit-identical %s\n", n, d, p, iters,
           T, why, ok ? "yes" : "NO");
    sys_free(&twin), free(all);
    return ok;
}

static double median(double *t, size_t k) {
    qsort(t, k, sizeof *t, cmp_double);
    return t[(k - 1) / 2];
}

/* d = 1: the serial step of the whole system, then the sharded iteration on 1 and on all
 * threads, each from the same start in a loop of its own; the sharded runs' final particles
 * must be the serial run's. */
static int bench(size_t n, size_t p, size_t iters) {
    size_t d = 1, T = (size_t)omp_get_max_threads();
    sgs_svgd_config cfg = config(p);
    sys a;
    memset(&a, 0, sizeof a);
    double *ta = malloc(iters * sizeof *ta), *tb = malloc(iters * sizeof *tb), *tc = malloc(iters * sizeof *tc);
    double *all = malloc(n * d * sizeof *all), cpu_step = 0.0;
    int rc = 1;
    if (!ta || !tb || !tc || !all) {
        fprintf(stderr, "openmp_shard: out of memory\n");
        goto out;
    }
    if (!sys_init(&a, &cfg, n, d)) goto out;
    for (size_t k = 0; k < iters; k++) {
        double t0 = omp_get_wtime(), c0 = thread_cpu();
        int32_t st = sgs_svgd_step(&a.s, NULL);
        cpu_step += thread_cpu() - c0;
        ta[k] = omp_get_wtime() - t0;
        if (st != SGS_OK) {
            fprintf(stderr, "openmp_shard: serial step %zu: %s\n", k + 1, sgs_status_str(st));
            goto out;
        }
    }
    free(a.ws), free(a.idx); /* the serial run's particles stay, as the reference */
    a.ws = NULL, a.idx = NULL;
    run_spec rb = {1, n, d, p, iters, 0, 0, NULL, all, tb}, rt = rb;
    int same1 = run(&rb) && memcmp(all, a.x, n * d * sizeof *all) == 0;
    rt.T = T, rt.times = tc;
    int sameT = run(&rt) && memcmp(all, a.x, n * d * sizeof *all) == 0;
    double ma = median(ta, iters), mb = median(tb, iters), mc = median(tc, iters);
    printf("openmp_shard: bench N %zu d %zu p %zu, %zu iterations, median wall per iteration: serial step %.6f s "
           "(CPU %.6f s), sharded on 1 thread %.6f s, on %zu threads %.6f s; speed-up %zu threads vs 1 thread %.2f, "
           "vs serial %.2f; final particles bit-identical to the serial run: 1 thread %s, %zu threads %s\n",
           n, d, p, iters, ma, cpu_step / (double)iters, mb, T, mc, T, mb / mc, ma / mc, same1 ? "yes" : "NO", T,
           sameT ? "yes" : "NO");
    rc = same1 && sameT ? 0 : 1;
out:
    sys_free(&a);
    free(ta), free(tb), free(tc), free(all);
    return rc;
}

static int usage(void) {
    fprintf(stderr, "usage: openmp_shard [--quick]\n"
                    "       openmp_shard --bench N p ITERS    (2 <= p <= N, ITERS >= 1)\n");
    return 2;
}

int main(int argc, char **argv) {
    if (argc >= 2 && !strcmp(argv[1], "--bench")) {
        size_t n, p, iters;
        if (argc != 5 || !parse_size(argv[2], &n) || !parse_size(argv[3], &p) || !parse_size(argv[4], &iters) ||
            iters < 1 || p < 2 || p > n || iters > SIZE_MAX / sizeof(double) || n > SIZE_MAX / sizeof(double))
            return usage();
        return bench(n, p, iters);
    }
    if (argc > 2 || (argc == 2 && strcmp(argv[1], "--quick"))) return usage();
    size_t it = argc == 2 ? 4 : 6;
    int ok = 1;
    for (size_t t = 1; t <= 4; t++) ok &= check(1001, 2, 8, it, t, 0, 0, "");
    ok &= check(24, 2, 8, it, 4, 0, 0, " (3 batches: thread 0 holds no slot)");
    ok &= check(64, 2, 64, it, 2, 0, 0, " (p = N: one batch)");
    ok &= check(1001, 2, 8, it, 3, 1, 2, " (rank 1 aborts once)");
    printf("openmp_shard: %s\n", ok ? "every run bit-identical to the serial one" : "FAILED");
    return ok ? 0 : 1;
}
