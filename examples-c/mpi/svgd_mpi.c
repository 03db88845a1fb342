/* RBM-SVGD with the batches split across MPI ranks, bit-identical to the serial run.
 *
 * Every rank holds all N positions and the same system (same seed). Per iteration every rank
 * begins the iteration (the same permutation everywhere: it comes from the shared generator),
 * computes the gradients, forces and moves of its own batches (a contiguous run of permutation
 * slots), and one MPI_Allgatherv shares the moved rows of every rank's slots (new positions, new
 * AdaGrad histories, forces: sgs_svgd_moves_get) together with each rank's status; then every
 * rank puts the others' moved rows in (sgs_svgd_moves_put: a copy, no arithmetic) and finishes,
 * moving all particles the same way. With --share forces the ranks send only the forces
 * (a third of the values with AdaGrad) and every rank computes every move itself
 * (sgs_svgd_forces_get/put): the choice for a slow network, or with the KSD on (whose value
 * every rank then reports as NaN: it needs every slot's gradient on one process). The batches
 * are split as evenly as they go: rank r takes batches
 * [r*B/R, (r+1)*B/R) of the B = floor(N/p), so any rank count works (ranks beyond B get none).
 * If any rank's callback fails, every rank cancels the iteration and returns the same status
 * (the first failing rank's), with the particles, history and generator as before it.
 *
 *   mpiexec -n 4 ./svgd_mpi --check               # compare with the serial run on rank 0
 *   mpiexec -n 2 ./svgd_mpi --abort-rank 1 --abort-iter 3 --check
 *   mpiexec -n 2 ./svgd_mpi --model logistic --n 4096 --p 8 --iters 20 --bench
 *   mpiexec -n 2 ./svgd_mpi --allgather 1000000     # the exchange alone, 1e6 doubles
 *
 * Options: --model mixture|logistic, --n N, --d d (mixture only; logistic has d = 55), --p p,
 * --iters K, --share moves|forces, --check, --bench, --abort-rank r --abort-iter k. Exit status 0 when every check
 * passed. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <mpi.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "../parallel_models.h"

/* The model with a fault switch: the gradient aborts while `abort_now` is set. */
typedef struct {
    sgs_gradient_fn inner;
    void *inner_ud;
    int abort_now;
} faulty;

static int32_t faulty_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    faulty *f = (faulty *)ud;
    if (f->abort_now) return SGS_CB_ABORT;
    return f->inner(f->inner_ud, x, d, seed, g);
}

/* The split of the batches over the ranks, in permutation slots. */
typedef struct {
    size_t b0, b1;   /* this rank's batches */
    size_t *first;   /* first slot of every rank */
    size_t *end;     /* end slot of every rank */
    int *counts;     /* doubles every rank sends: its slots' moved rows or forces, then its status */
    int *displs;
} split;

static size_t slot_of(const sgs_svgd *s, size_t batch, size_t nb, size_t n) {
    size_t a = n, e = n;
    if (batch < nb) sgs_svgd_batch_rows(s, batch, &a, &e);
    return a;
}

/* `w`: values per slot sent (the move width, or d when sharing forces). */
static int make_split(const sgs_svgd *s, int rank, int size, size_t n, size_t w, split *sp) {
    size_t nb = 0;
    if (sgs_svgd_num_batches(s, &nb) != SGS_OK) return 0;
    sp->first = malloc((size_t)size * sizeof(size_t));
    sp->end = malloc((size_t)size * sizeof(size_t));
    sp->counts = malloc((size_t)size * sizeof(int));
    sp->displs = malloc((size_t)size * sizeof(int));
    if (!sp->first || !sp->end || !sp->counts || !sp->displs) return 0;
    int off = 0;
    for (int r = 0; r < size; r++) {
        size_t b0 = (size_t)r * nb / (size_t)size, b1 = (size_t)(r + 1) * nb / (size_t)size;
        sp->first[r] = slot_of(s, b0, nb, n);
        sp->end[r] = slot_of(s, b1, nb, n);
        sp->counts[r] = (int)((sp->end[r] - sp->first[r]) * w + 1);
        sp->displs[r] = off;
        off += sp->counts[r];
        if (r == rank) sp->b0 = b0, sp->b1 = b1;
    }
    return 1;
}

/* This thread's CPU seconds (what other processes take does not count). */
static double thread_cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* This rank's CPU seconds, summed over iterations: begin; its own ranges; the others' rows put
 * in and finish (the part every rank does for all N); and the wall time of the exchange. */
static double cpu_begin, cpu_ranges, cpu_put_finish, wall_exchange;

/* Share moved rows (1) or forces (0). */
static int share_moves = 1;

/* One iteration across the ranks; every rank returns the same status. `w`: values per slot sent. */
static int32_t mpi_iteration(sgs_svgd *s, int rank, int size, const split *sp, size_t w, double *send,
                             double *recv, sgs_svgd_info *info) {
    double c0 = thread_cpu();
    int32_t st = sgs_svgd_begin(s);
    if (st != SGS_OK) return st; /* deterministic: the same on every rank */
    double c1 = thread_cpu();
    size_t a = sp->first[rank], e = sp->end[rank], len = (e - a) * w;
    int32_t local = sgs_svgd_gradients_range(s, a, e);
    if (local == SGS_OK) local = sgs_svgd_batches_range(s, sp->b0, sp->b1);
    if (local == SGS_OK && len > 0)
        local = share_moves ? sgs_svgd_moves_get(s, a, e, send, len) : sgs_svgd_forces_get(s, a, e, send, len);
    send[len] = (double)local;
    double c2 = thread_cpu(), w2 = MPI_Wtime();
    MPI_Allgatherv(send, sp->counts[rank], MPI_DOUBLE, recv, sp->counts, sp->displs, MPI_DOUBLE, MPI_COMM_WORLD);
    double w3 = MPI_Wtime(), c3 = thread_cpu();
    cpu_begin += c1 - c0, cpu_ranges += c2 - c1, wall_exchange += w3 - w2;
    int32_t global = SGS_OK;
    for (int r = 0; r < size && global == SGS_OK; r++)
        global = (int32_t)recv[sp->displs[r] + sp->counts[r] - 1];
    if (global != SGS_OK) {
        sgs_svgd_cancel(s);
        return global;
    }
    for (int r = 0; r < size; r++) {
        size_t rl = (size_t)sp->counts[r] - 1;
        if (r == rank || rl == 0) continue;
        const double *rows = recv + sp->displs[r];
        st = share_moves ? sgs_svgd_moves_put(s, sp->first[r], sp->end[r], rows, rl)
                         : sgs_svgd_forces_put(s, sp->first[r], sp->end[r], rows, rl);
        if (st != SGS_OK) {
            sgs_svgd_cancel(s);
            return st;
        }
    }
    st = sgs_svgd_finish(s, info);
    cpu_put_finish += thread_cpu() - c3;
    return st;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* The exchange alone: median time of an MPI_Allgatherv of `count` doubles split evenly over the
 * ranks (what an iteration sends: N*d forces), for the cluster model of docs/scaling.md. */
static void allgather_bench(size_t count, int rank, int size) {
    int *counts = malloc((size_t)size * sizeof *counts), *displs = malloc((size_t)size * sizeof *displs);
    int off = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (int)((size_t)(r + 1) * count / (size_t)size - (size_t)r * count / (size_t)size);
        displs[r] = off;
        off += counts[r];
    }
    double *buf = calloc(count, sizeof *buf), t[21];
    for (int k = 0; k < 21; k++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_DATATYPE_NULL, buf, counts, displs, MPI_DOUBLE, MPI_COMM_WORLD);
        t[k] = MPI_Wtime() - t0;
    }
    qsort(t, 21, sizeof *t, cmp_double);
    if (rank == 0)
        printf("allgather %d ranks, %zu doubles (%.1f MB): median %.6f s\n", size, count,
               (double)count * 8.0 / 1e6, t[10]);
    free(buf), free(counts), free(displs);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc == 3 && !strcmp(argv[1], "--allgather")) {
        allgather_bench(strtoul(argv[2], NULL, 10), rank, size);
        MPI_Finalize();
        return 0;
    }
    size_t n = 1000, d = 1, p = 8, iters = 10;
    int check = 0, bench = 0, abort_rank = -1;
    long abort_iter = -1;
    const char *model = "mixture";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check")) check = 1;
        else if (!strcmp(argv[i], "--bench")) bench = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--model")) model = argv[++i];
        else if (i + 1 < argc && !strcmp(argv[i], "--n")) n = strtoul(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--d")) d = strtoul(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--p")) p = strtoul(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--iters")) iters = strtoul(argv[++i], NULL, 10);
        else if (i + 1 < argc && !strcmp(argv[i], "--share")) {
            const char *v = argv[++i];
            if (strcmp(v, "moves") && strcmp(v, "forces")) {
                if (rank == 0) fprintf(stderr, "--share takes moves or forces\n");
                MPI_Abort(MPI_COMM_WORLD, 2);
            }
            share_moves = !strcmp(v, "moves");
        }
        else if (i + 1 < argc && !strcmp(argv[i], "--abort-rank")) abort_rank = atoi(argv[++i]);
        else if (i + 1 < argc && !strcmp(argv[i], "--abort-iter")) abort_iter = atol(argv[++i]);
        else {
            if (rank == 0) fprintf(stderr, "unknown option %s\n", argv[i]);
            MPI_Abort(MPI_COMM_WORLD, 2);
        }
    }
    lr_data data = {0};
    faulty f = {mixture_gradient, NULL, 0};
    if (!strcmp(model, "logistic")) {
        d = LR_D;
        if (!lr_make(&data)) MPI_Abort(MPI_COMM_WORLD, 1);
        f.inner = lr_gradient;
        f.inner_ud = &data;
    }
    sgs_svgd_config cfg = sgs_svgd_config_default(p, 0.05);
    cfg.bandwidth = 2.0;
    cfg.seed = 42;
    size_t len = sgs_svgd_workspace_len(n, d, &cfg);
    double *x = malloc(n * d * sizeof *x), *ws = malloc(len * sizeof *ws);
    uint32_t *idx = malloc(n * sizeof *idx);
    if (!x || !ws || !idx) MPI_Abort(MPI_COMM_WORLD, 1);
    start_particles(x, n, d);
    sgs_svgd s;
    memset(&s, 0, sizeof s);
    int32_t st = sgs_svgd_init(&s, &cfg, x, n, d, ws, len, idx, n, faulty_gradient, NULL, &f);
    if (st != SGS_OK) {
        fprintf(stderr, "rank %d: init: %s\n", rank, sgs_status_str(st));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    size_t w = d;
    if (share_moves && sgs_svgd_move_width(&s, &w) != SGS_OK) MPI_Abort(MPI_COMM_WORLD, 1);
    double *send = malloc((n * w + 1) * sizeof *send), *recv = malloc((n * w + (size_t)size) * sizeof *recv);
    if (!send || !recv) MPI_Abort(MPI_COMM_WORLD, 1);
    split sp;
    if (!make_split(&s, rank, size, n, w, &sp)) MPI_Abort(MPI_COMM_WORLD, 1);

    /* The serial twin on rank 0 (check mode): same system, stepped with sgs_svgd_step. */
    double *tx = NULL, *tws = NULL;
    uint32_t *tidx = NULL;
    sgs_svgd twin;
    faulty tf = f;
    if (check && rank == 0) {
        tx = malloc(n * d * sizeof *tx), tws = malloc(len * sizeof *tws), tidx = malloc(n * sizeof *tidx);
        start_particles(tx, n, d);
        memset(&twin, 0, sizeof twin);
        if (sgs_svgd_init(&twin, &cfg, tx, n, d, tws, len, tidx, n, faulty_gradient, NULL, &tf) != SGS_OK)
            MPI_Abort(MPI_COMM_WORLD, 1);
    }

    int bad = 0, aborted_ok = abort_rank < 0;
    double *times = malloc((iters + 1) * sizeof *times);
    for (size_t k = 1; k <= iters; k++) {
        sgs_svgd_info info;
        if ((long)k == abort_iter) {
            /* The fault: rank abort_rank's callback aborts; every rank must see the same status
             * and keep its pre-iteration particles (compared with the twin, which has not yet
             * stepped this iteration). */
            f.abort_now = rank == abort_rank;
            st = mpi_iteration(&s, rank, size, &sp, w, send, recv, &info);
            f.abort_now = 0;
            int32_t all[64] = {0};
            MPI_Gather(&st, 1, MPI_INT32_T, all, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                int same = size <= 64;
                for (int r = 0; r < size && r < 64; r++) same &= all[r] == SGS_ERR_CALLBACK_ABORTED;
                int kept = !check || memcmp(x, tx, n * d * sizeof *x) == 0;
                aborted_ok = same && kept;
                printf("svgd_mpi: iteration %zu, rank %d aborts: every rank returned %s, particles %s\n", k,
                       abort_rank, same ? "SGS_ERR_CALLBACK_ABORTED" : "DIFFERENT statuses",
                       kept ? "kept (= serial run before the iteration)" : "CHANGED");
            }
        }
        double t0 = MPI_Wtime();
        st = mpi_iteration(&s, rank, size, &sp, w, send, recv, &info);
        times[k] = MPI_Wtime() - t0;
        if (st != SGS_OK) {
            fprintf(stderr, "rank %d: iteration %zu: %s\n", rank, k, sgs_status_str(st));
            bad = 1;
            break;
        }
        if (check && rank == 0) {
            sgs_svgd_info ti;
            bad |= sgs_svgd_step(&twin, &ti) != SGS_OK || memcmp(&ti, &info, sizeof ti) != 0 ||
                   memcmp(x, tx, n * d * sizeof *x) != 0;
        }
    }
    /* Every rank holds the same particles as rank 0. */
    double *x0 = malloc(n * d * sizeof *x0);
    if (rank == 0) memcpy(x0, x, n * d * sizeof *x);
    MPI_Bcast(x0, (int)(n * d), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int differs = memcmp(x0, x, n * d * sizeof *x) != 0 || bad, any = 0;
    MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        double mean = 0.0;
        for (size_t k = 0; k < n * d; k++) mean += x[k];
        mean /= (double)(n * d);
        printf("svgd_mpi: %d rank(s), model %s, N %zu, d %zu, p %zu, %zu iterations, sharing %s, mean coordinate %.6f\n",
               size, model, n, d, p, iters, share_moves ? "moves" : "forces", mean);
        printf("svgd_mpi: every rank holds rank 0's particles: %s\n", any ? "NO" : "yes");
        if (check) printf("svgd_mpi: bit-identical to the serial run: %s\n", any ? "NO" : "yes");
        if (bench && iters >= 1) {
            qsort(times + 1, iters, sizeof *times, cmp_double);
            double it = (double)iters;
            printf("svgd_mpi: median time per iteration %.6f s; rank 0 per iteration: CPU begin %.6f s, own ranges "
                   "%.6f s, put + finish %.6f s, exchange (wall) %.6f s\n",
                   times[1 + (iters - 1) / 2], cpu_begin / it, cpu_ranges / it, cpu_put_finish / it,
                   wall_exchange / it);
        }
    }
    int ok = !any && aborted_ok;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    lr_free(&data);
    MPI_Finalize();
    return ok ? 0 : 1;
}
