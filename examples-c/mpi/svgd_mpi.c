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
 * are split as evenly as they go: of the B = floor(N/p) batches, each rank takes floor(B/R) and
 * the first B mod R ranks one more, in rank order, so any rank count works (with fewer batches
 * than ranks, ranks B .. R-1 take none).
 * If any rank fails (its begin, a callback, a range), every rank cancels the iteration and
 * returns the same status (the first failing rank's), with the particles, history and generator
 * as before it; a failing rank still takes part in the exchange, so no rank is left waiting. If
 * a rank's cancel itself fails, every rank returns that rank's cancel status instead.
 *
 *   mpiexec -n 4 ./svgd_mpi --check               # compare with the serial run on rank 0
 *   mpiexec -n 2 ./svgd_mpi --abort-rank 1 --abort-iter 3 --check
 *   mpiexec -n 2 ./svgd_mpi --model logistic --n 4096 --p 8 --iters 20 --bench
 *   mpiexec -n 2 ./svgd_mpi --allgather 1000000     # the exchange alone, 1e6 doubles
 *
 * Options: --model mixture|logistic, --n N, --d d (mixture only; logistic has d = 55), --p p,
 * --iters K, --share moves|forces, --scale none|particles (SVGD in coordinates standardised by
 * the particles' mean and sd, docs/algorithms.md §2.7), --permutation shuffle|feistel (with the
 * Feistel permutation each rank evaluates its own slots and moves its particles in place, and
 * puts the others' moved rows in place: begin draws one key, finish copies nothing), --check,
 * --bench, --abort-rank r --abort-iter k (together;
 * 1 <= k <= K, and rank r must have batches). MPI counts are `int`: the values exchanged per
 * iteration, N times the values per slot plus one status per rank, must not exceed INT_MAX
 * (checked). Exit status 0 when every check passed, 1 when one failed (or the run did), 2 for
 * bad options. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <errno.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>

#include "../parallel_models.h"
#include "../parse_size.h"

/* The largest MPI count (int); a smaller value can be compiled in to test the check. */
#ifndef SVGD_MPI_COUNT_MAX
#define SVGD_MPI_COUNT_MAX INT_MAX
#endif

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

/* The lowest rank on which `failed` is set, or -1; every rank learns it (one collective). For the
 * set-up steps, whose failures may be local (memory) or the same everywhere (sizes): the first
 * failing rank says why, and every rank leaves cleanly instead of some waiting for the others. */
static int first_failed(int failed, int rank) {
    int mine = failed ? rank : INT_MAX, first = INT_MAX;
    MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return first == INT_MAX ? -1 : first;
}

/* The split of the batches over the ranks, in permutation slots. */
typedef struct {
    size_t b0, b1;   /* this rank's batches */
    size_t *first;   /* first slot of every rank */
    size_t *end;     /* end slot of every rank */
    int *counts;     /* doubles every rank sends: its slots' moved rows or forces, then its status */
    int *displs;
} split;

static void split_free(split *sp) {
    free(sp->first), free(sp->end), free(sp->counts), free(sp->displs);
}

/* Rank r's first batch: floor(B/R) batches each, the first B mod R ranks one more. */
static size_t first_batch(size_t r, size_t nb, size_t size) {
    size_t q = nb / size, rem = nb % size;
    return r * q + (r < rem ? r : rem);
}

/* The first slot of batch `batch` (N for the end). */
static int32_t slot_of(const sgs_svgd *s, size_t batch, size_t nb, size_t n, size_t *slot) {
    size_t a = n, e = n;
    int32_t st = batch < nb ? sgs_svgd_batch_rows(s, batch, &a, &e) : SGS_OK;
    *slot = a;
    return st;
}

/* `w`: values per slot sent (the move width, or d when sharing forces). The caller has checked
 * that n*w + size fits an int: the counts sum to exactly that, so every count and displacement
 * fits too. */
static int32_t make_split(const sgs_svgd *s, int rank, int size, size_t n, size_t w, split *sp) {
    size_t nb = 0;
    int32_t st = sgs_svgd_num_batches(s, &nb);
    if (st != SGS_OK) return st;
    sp->first = malloc((size_t)size * sizeof(size_t));
    sp->end = malloc((size_t)size * sizeof(size_t));
    sp->counts = malloc((size_t)size * sizeof(int));
    sp->displs = malloc((size_t)size * sizeof(int));
    if (!sp->first || !sp->end || !sp->counts || !sp->displs) return SGS_ERR_WORKSPACE_TOO_SMALL;
    size_t off = 0;
    for (int r = 0; r < size; r++) {
        size_t b0 = first_batch((size_t)r, nb, (size_t)size), b1 = first_batch((size_t)r + 1, nb, (size_t)size);
        if ((st = slot_of(s, b0, nb, n, &sp->first[r])) != SGS_OK) return st;
        if ((st = slot_of(s, b1, nb, n, &sp->end[r])) != SGS_OK) return st;
        size_t count = (sp->end[r] - sp->first[r]) * w + 1;
        sp->counts[r] = (int)count;
        sp->displs[r] = (int)off;
        off += count;
        if (r == rank) sp->b0 = b0, sp->b1 = b1;
    }
    return SGS_OK;
}

/* This rank's CPU seconds, summed over iterations: begin; its own ranges; the others' rows put
 * in and finish (the part every rank does for all N); and the wall time of the exchange. */
static double cpu_begin, cpu_ranges, cpu_put_finish, wall_exchange;

/* Share moved rows (1) or forces (0). */
static int share_moves = 1;

/* Abandons a failed iteration on every rank (a collective: every rank calls it with the same
 * `status`): cancels it where it was begun, and returns `status`, or, if some rank's cancel
 * failed (its system would then differ from the others'), the first such rank's cancel status. */
static int32_t abandon(sgs_svgd *s, int begun, int32_t status, int rank, int size, int32_t *stat) {
    int32_t c = begun ? sgs_svgd_cancel(s) : SGS_OK;
    if (c != SGS_OK) fprintf(stderr, "rank %d: cancel: %s\n", rank, sgs_status_str(c));
    MPI_Allgather(&c, 1, MPI_INT32_T, stat, 1, MPI_INT32_T, MPI_COMM_WORLD);
    for (int r = 0; r < size; r++)
        if (stat[r] != SGS_OK) return stat[r];
    return status;
}

/* One iteration across the ranks; every rank returns the same status. `w`: values per slot sent;
 * `stat`: room for one status per rank. A rank whose begin or ranges fail still sends (its
 * status) and receives: every rank enters the same collectives. */
static int32_t mpi_iteration(sgs_svgd *s, int rank, int size, const split *sp, size_t w, double *send,
                             double *recv, int32_t *stat, sgs_svgd_info *info) {
    double c0 = thread_cpu();
    int32_t local = sgs_svgd_begin(s);
    int begun = local == SGS_OK;
    double c1 = thread_cpu();
    size_t a = sp->first[rank], e = sp->end[rank], len = (e - a) * w;
    if (local == SGS_OK) local = sgs_svgd_gradients_range(s, a, e);
    if (local == SGS_OK) local = sgs_svgd_batches_range(s, sp->b0, sp->b1);
    if (local == SGS_OK && len > 0)
        local = share_moves ? sgs_svgd_moves_get(s, a, e, send, len) : sgs_svgd_forces_get(s, a, e, send, len);
    send[len] = (double)local; /* on failure the rows are stale: the receivers ignore them */
    double c2 = thread_cpu(), w2 = MPI_Wtime();
    MPI_Allgatherv(send, sp->counts[rank], MPI_DOUBLE, recv, sp->counts, sp->displs, MPI_DOUBLE, MPI_COMM_WORLD);
    double w3 = MPI_Wtime(), c3 = thread_cpu();
    cpu_begin += c1 - c0, cpu_ranges += c2 - c1, wall_exchange += w3 - w2;
    int32_t global = SGS_OK;
    for (int r = 0; r < size && global == SGS_OK; r++)
        global = (int32_t)recv[sp->displs[r] + sp->counts[r] - 1];
    if (global != SGS_OK) return abandon(s, begun, global, rank, size, stat);
    /* From here on every rank works on the same data (its own rows and everyone else's), so a
     * put or finish fails the same way on every rank (a non-finite row makes every rank's
     * finish fail: sgs_svgd_moves_put), and the collective in abandon is entered by all. */
    int32_t st = SGS_OK;
    for (int r = 0; r < size && st == SGS_OK; r++) {
        size_t rl = (size_t)sp->counts[r] - 1;
        if (r == rank || rl == 0) continue;
        const double *rows = recv + sp->displs[r];
        st = share_moves ? sgs_svgd_moves_put(s, sp->first[r], sp->end[r], rows, rl)
                         : sgs_svgd_forces_put(s, sp->first[r], sp->end[r], rows, rl);
    }
    if (st != SGS_OK) return abandon(s, 1, st, rank, size, stat);
    st = sgs_svgd_finish(s, info);
    cpu_put_finish += thread_cpu() - c3;
    /* SGS_ERR_NON_FINITE ends the iteration itself; anything else leaves it open. */
    if (st != SGS_OK && st != SGS_ERR_NON_FINITE) return abandon(s, 1, st, rank, size, stat);
    return st;
}

/* The exchange alone: median time of an MPI_Allgatherv of `count` doubles split evenly over the
 * ranks (what an iteration sends: N*d forces), for the cluster model of docs/scaling.md. */
static int allgather_bench(size_t count, int rank, int size) {
    if (count > (size_t)SVGD_MPI_COUNT_MAX) {
        if (rank == 0)
            fprintf(stderr, "--allgather %zu: MPI counts are int, at most %d doubles\n", count, SVGD_MPI_COUNT_MAX);
        return 2;
    }
    int *counts = malloc((size_t)size * sizeof *counts), *displs = malloc((size_t)size * sizeof *displs);
    double *buf = calloc(count ? count : 1, sizeof *buf), t[21];
    int ff = first_failed(!counts || !displs || !buf, rank);
    if (ff == rank) fprintf(stderr, "rank %d: out of memory for %zu doubles\n", rank, count);
    if (ff >= 0) {
        free(buf), free(counts), free(displs);
        return 1;
    }
    int off = 0;
    for (int r = 0; r < size; r++) {
        counts[r] = (int)((size_t)(r + 1) * count / (size_t)size - (size_t)r * count / (size_t)size);
        displs[r] = off;
        off += counts[r];
    }
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
    return 0;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc >= 2 && !strcmp(argv[1], "--allgather")) {
        size_t count = 0;
        int rc = 2;
        if (argc == 3 && parse_size(argv[2], &count)) rc = allgather_bench(count, rank, size);
        else if (rank == 0) fprintf(stderr, "usage: svgd_mpi --allgather COUNT\n");
        MPI_Finalize();
        return rc;
    }
    size_t n = 1000, d = 1, p = 8, iters = 10, abort_iter = 0;
    int check = 0, bench = 0, abort_rank = -1, have_ar = 0, have_ai = 0;
    const char *model = "mixture", *bad = NULL;
    uint32_t scale = SGS_SCALE_NONE, permutation = SGS_PERMUTATION_SHUFFLE;
    /* Every rank reads the same options: an error is found on every rank, reported by rank 0. */
    for (int i = 1; i < argc && !bad; i++) {
        const char *o = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        size_t z = 0;
        if (!strcmp(o, "--check")) check = 1;
        else if (!strcmp(o, "--bench")) bench = 1;
        else if (!v && (!strcmp(o, "--model") || !strcmp(o, "--n") || !strcmp(o, "--d") || !strcmp(o, "--p") ||
                        !strcmp(o, "--iters") || !strcmp(o, "--share") || !strcmp(o, "--abort-rank") ||
                        !strcmp(o, "--abort-iter") || !strcmp(o, "--scale") || !strcmp(o, "--permutation")))
            bad = "an option is missing its value";
        else if (!strcmp(o, "--model")) {
            model = v, i++;
            if (strcmp(v, "mixture") && strcmp(v, "logistic")) bad = "--model takes mixture or logistic";
        } else if (!strcmp(o, "--share")) {
            i++;
            if (strcmp(v, "moves") && strcmp(v, "forces")) bad = "--share takes moves or forces";
            share_moves = !strcmp(v, "moves");
        } else if (!strcmp(o, "--scale")) {
            i++;
            if (strcmp(v, "none") && strcmp(v, "particles")) bad = "--scale takes none or particles";
            scale = strcmp(v, "particles") ? SGS_SCALE_NONE : SGS_SCALE_PARTICLES;
        } else if (!strcmp(o, "--permutation")) {
            i++;
            if (strcmp(v, "shuffle") && strcmp(v, "feistel")) bad = "--permutation takes shuffle or feistel";
            permutation = strcmp(v, "feistel") ? SGS_PERMUTATION_SHUFFLE : SGS_PERMUTATION_FEISTEL;
        } else if (!strcmp(o, "--n") || !strcmp(o, "--d") || !strcmp(o, "--p") || !strcmp(o, "--iters") ||
                   !strcmp(o, "--abort-rank") || !strcmp(o, "--abort-iter")) {
            i++;
            if (!parse_size(v, &z)) bad = "--n, --d, --p, --iters, --abort-rank and --abort-iter take a number >= 0";
            else if (!strcmp(o, "--n")) n = z;
            else if (!strcmp(o, "--d")) d = z;
            else if (!strcmp(o, "--p")) p = z;
            else if (!strcmp(o, "--iters")) iters = z;
            else if (!strcmp(o, "--abort-iter")) abort_iter = z, have_ai = 1;
            else if (z >= (size_t)size) bad = "--abort-rank must be a rank of this run (0 .. ranks - 1)";
            else abort_rank = (int)z, have_ar = 1;
        } else {
            if (rank == 0) fprintf(stderr, "svgd_mpi: unknown option %s\n", o);
            bad = "";
        }
    }
    if (!bad && have_ar != have_ai) bad = "--abort-rank and --abort-iter go together";
    if (!bad && have_ai && (abort_iter < 1 || abort_iter > iters))
        bad = "--abort-iter must be an iteration of the run, 1 .. --iters";
    if (bad) {
        if (rank == 0 && *bad) fprintf(stderr, "svgd_mpi: %s\n", bad);
        MPI_Finalize();
        return 2;
    }

    int rc = 1;
    lr_data data = {0};
    faulty f = {mixture_gradient, NULL, 0};
    double *x = NULL, *ws = NULL, *send = NULL, *recv = NULL, *times = NULL;
    double *tx = NULL, *tws = NULL;
    uint32_t *idx = NULL, *tidx = NULL;
    int32_t *stat = NULL;
    split sp = {0, 0, NULL, NULL, NULL, NULL};
    if (!strcmp(model, "logistic")) {
        d = LR_D;
        f.inner = lr_gradient;
        f.inner_ud = &data;
        int ff = first_failed(!lr_make(&data), rank);
        if (ff == rank) fprintf(stderr, "rank %d: out of memory for the logistic model's data\n", rank);
        if (ff >= 0) goto out;
    }
    sgs_svgd_config cfg = sgs_svgd_config_default(p, 0.05);
    cfg.bandwidth = 2.0;
    cfg.seed = 42;
    cfg.scale = scale;
    cfg.permutation = permutation;
    size_t len = sgs_svgd_workspace_len(n, d, &cfg);
    /* Sizes whose bytes overflow a size_t are refused by init; do not let the mallocs wrap first
     * (malloc of at least one byte: N = 0 or d = 0 is init's to report, not "out of memory"). */
    int sizes_ok = n <= SIZE_MAX / sizeof(double) && (d == 0 || n <= SIZE_MAX / sizeof(double) / d) &&
                   len <= SIZE_MAX / sizeof(double);
    if (sizes_ok) {
        /* The workspace zeroed: the library (before its fix of the phases' bitmaps) read bits of it
         * beyond slot N - 1 that nothing initialised, so that a cancel could fail with
         * SGS_ERR_BUSY (the iteration code below copes with that too). */
        x = malloc(n * d * sizeof *x + 1), ws = calloc(len + 1, sizeof *ws), idx = malloc(n * sizeof *idx + 1);
    }
    stat = malloc((size_t)size * sizeof *stat);
    int ff = first_failed(sizes_ok && (!x || !ws || !idx || !stat), rank);
    if (ff == rank) fprintf(stderr, "rank %d: out of memory for N %zu, d %zu\n", rank, n, d);
    if (ff >= 0) goto out;
    if (sizes_ok) start_particles(x, n, d);
    sgs_svgd s;
    memset(&s, 0, sizeof s);
    int32_t st = sizes_ok ? sgs_svgd_init(&s, &cfg, x, n, d, ws, len, idx, n, faulty_gradient, NULL, &f)
                          : SGS_ERR_INVALID_ARGUMENT;
    ff = first_failed(st != SGS_OK, rank);
    if (ff == rank) fprintf(stderr, "svgd_mpi: init (N %zu, d %zu, p %zu): %s\n", n, d, p, sgs_status_str(st));
    if (ff >= 0) goto out;
    size_t w = d;
    if (share_moves) st = sgs_svgd_move_width(&s, &w);
    /* MPI counts and displacements are int: the receive buffer, n*w values plus one status per
     * rank, must fit (the same on every rank: every rank leaves here). */
    int fits = st == SGS_OK && w > 0 && (size_t)size <= (size_t)SVGD_MPI_COUNT_MAX &&
               n <= ((size_t)SVGD_MPI_COUNT_MAX - (size_t)size) / w;
    if (!fits) {
        if (rank == 0) {
            if (st != SGS_OK) fprintf(stderr, "svgd_mpi: move width: %s\n", sgs_status_str(st));
            else
                fprintf(stderr,
                        "svgd_mpi: N %zu with %zu values per particle exchanged (%s) and %d ranks needs MPI counts "
                        "above %d (INT_MAX): too large for this example's MPI-3 exchange (use fewer particles, or "
                        "--share forces)\n",
                        n, w, share_moves ? "moved rows" : "forces", size, SVGD_MPI_COUNT_MAX);
        }
        goto out;
    }
    send = calloc(n * w + 1, sizeof *send), recv = malloc((n * w + (size_t)size) * sizeof *recv);
    st = send && recv ? make_split(&s, rank, size, n, w, &sp) : SGS_ERR_WORKSPACE_TOO_SMALL;
    ff = first_failed(st != SGS_OK, rank);
    if (ff == rank) fprintf(stderr, "rank %d: setting up the exchange: %s\n", rank,
                            st == SGS_ERR_WORKSPACE_TOO_SMALL ? "out of memory" : sgs_status_str(st));
    if (ff >= 0) goto out;
    if (have_ar && sp.first[abort_rank] == sp.end[abort_rank]) {
        /* Its callback would never be called: the "fault" would not happen. */
        if (rank == 0)
            fprintf(stderr, "svgd_mpi: --abort-rank %d has no batches (N %zu, p %zu: %zu batches over %d ranks; "
                            "ranks with batches: 0 .. %d)\n",
                    abort_rank, n, p, n / p, size, (int)((size_t)size < n / p ? (size_t)size : n / p) - 1);
        rc = 2;
        goto out;
    }

    /* The serial twin on rank 0 (check mode): same system, stepped with sgs_svgd_step. */
    sgs_svgd twin;
    faulty tf = f;
    int twin_ok = 1;
    if (check && rank == 0) {
        tx = malloc(n * d * sizeof *tx), tws = malloc(len * sizeof *tws), tidx = malloc(n * sizeof *tidx);
        twin_ok = tx && tws && tidx;
        if (twin_ok) {
            start_particles(tx, n, d);
            memset(&twin, 0, sizeof twin);
            twin_ok = sgs_svgd_init(&twin, &cfg, tx, n, d, tws, len, tidx, n, faulty_gradient, NULL, &tf) == SGS_OK;
        }
    }
    times = iters < SIZE_MAX / sizeof *times ? malloc((iters + 1) * sizeof *times) : NULL;
    ff = first_failed(!twin_ok || !times, rank);
    if (ff == rank) fprintf(stderr, "rank %d: out of memory for the serial twin or the timings\n", rank);
    if (ff >= 0) goto out;

    int twin_same = 1, aborted_ok = !have_ar;
    size_t failed_at = 0;
    int32_t failed_st = SGS_OK;
    for (size_t k = 1; k <= iters; k++) {
        sgs_svgd_info info;
        if (have_ai && k == abort_iter) {
            /* The fault: rank abort_rank's callback aborts; every rank must see the same status
             * and keep its pre-iteration particles (compared with the twin, which has not yet
             * stepped this iteration). */
            f.abort_now = rank == abort_rank;
            st = mpi_iteration(&s, rank, size, &sp, w, send, recv, stat, &info);
            f.abort_now = 0;
            MPI_Gather(&st, 1, MPI_INT32_T, stat, 1, MPI_INT32_T, 0, MPI_COMM_WORLD);
            if (rank == 0) {
                int same = 1, r_diff = 0;
                for (int r = 1; r < size && same; r++)
                    if (stat[r] != stat[0]) same = 0, r_diff = r;
                int expected = same && stat[0] == SGS_ERR_CALLBACK_ABORTED;
                int kept = !check || memcmp(x, tx, n * d * sizeof *x) == 0;
                aborted_ok = expected && kept;
                if (same)
                    printf("svgd_mpi: iteration %zu, rank %d's callback aborts: every rank returned status %d (%s)%s\n",
                           k, abort_rank, (int)stat[0], sgs_status_str(stat[0]),
                           expected ? ", SGS_ERR_CALLBACK_ABORTED as expected" : ", NOT SGS_ERR_CALLBACK_ABORTED");
                else
                    printf("svgd_mpi: iteration %zu, rank %d's callback aborts: the ranks returned DIFFERENT statuses "
                           "(rank 0: %d, rank %d: %d)\n",
                           k, abort_rank, (int)stat[0], r_diff, (int)stat[r_diff]);
                if (check)
                    printf("svgd_mpi: rank 0's particles after the failed iteration %s the serial run's before it\n",
                           kept ? "equal" : "DIFFER from");
            }
        }
        double t0 = MPI_Wtime();
        st = mpi_iteration(&s, rank, size, &sp, w, send, recv, stat, &info);
        times[k] = MPI_Wtime() - t0;
        if (st != SGS_OK) { /* the same status on every rank: all leave the loop together */
            failed_at = k, failed_st = st;
            break;
        }
        if (check && rank == 0 && twin_same) {
            sgs_svgd_info ti;
            twin_same = sgs_svgd_step(&twin, &ti) == SGS_OK && memcmp(&ti, &info, sizeof ti) == 0 &&
                        memcmp(x, tx, n * d * sizeof *x) == 0;
        }
    }
    /* Every rank holds the same particles as rank 0: rank 0's sent to all (into recv, which has
     * room: w >= d), compared on each rank. */
    if (rank == 0) memcpy(recv, x, n * d * sizeof *x);
    MPI_Bcast(recv, (int)(n * d), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int differs = memcmp(recv, x, n * d * sizeof *x) != 0, any = 0;
    MPI_Allreduce(&differs, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (rank == 0) {
        double mean = 0.0;
        for (size_t k = 0; k < n * d; k++) mean += x[k];
        mean /= (double)(n * d);
        printf("svgd_mpi: %d rank(s), model %s, N %zu, d %zu, p %zu, %zu iterations, sharing %s, mean coordinate %.6f\n",
               size, model, n, d, p, iters, share_moves ? "moves" : "forces", mean);
        if (failed_at)
            printf("svgd_mpi: iteration %zu FAILED on every rank: status %d (%s)\n", failed_at, (int)failed_st,
                   sgs_status_str(failed_st));
        printf("svgd_mpi: every rank's particles equal rank 0's, bit for bit: %s\n", any ? "NO" : "yes");
        if (check)
            printf("svgd_mpi: rank 0's particles and iteration records, bit-identical to the serial run%s: %s\n",
                   failed_at ? " (the iterations before the failure)" : "", twin_same ? "yes" : "NO");
        if (bench && iters >= 1 && !failed_at) {
            qsort(times + 1, iters, sizeof *times, cmp_double);
            double it = (double)iters;
            printf("svgd_mpi: median time per iteration %.6f s; rank 0 per iteration: CPU begin %.6f s, own ranges "
                   "%.6f s, put + finish %.6f s, exchange (wall) %.6f s\n",
                   times[1 + (iters - 1) / 2], cpu_begin / it, cpu_ranges / it, cpu_put_finish / it,
                   wall_exchange / it);
        }
    }
    int ok = !any && twin_same && aborted_ok && !failed_at;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    rc = ok ? 0 : 1;
out:
    free(x), free(ws), free(idx), free(send), free(recv), free(times), free(stat);
    free(tx), free(tws), free(tidx);
    split_free(&sp);
    lr_free(&data);
    MPI_Finalize();
    return rc;
}
