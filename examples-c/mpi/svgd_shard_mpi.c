/* RBM-SVGD over MPI ranks that each hold only their block of the particles (sgs_svgd_shard_…),
 * bit-identical to the serial run of the whole system.
 *
 * Rank r of R holds particles floor(r*N/R) .. floor((r+1)*N/R) and computes the batches of a
 * block of the permutation slots (sgs_svgd_shard_ranges); its buffers grow with its share, not
 * with N. With the Feistel permutation every rank evaluates, for its own particles, the slots
 * they take, and for its own slots, the particles they hold, from the shared seed. An iteration
 * is two MPI_Alltoallv exchanges and one MPI_Allgather of 48 bytes per rank:
 *
 *   begin:  the rank's gradients, and a record (slot, particle, position, gradient) per own particle,
 *           grouped by the rank that holds the slot   -> MPI_Alltoallv
 *   forces: the forces of the rank's batches, and a record (particle, force) per own slot,
 *           grouped by the particle's rank            -> MPI_Alltoallv
 *   finish: the moves checked, a 40-byte summary and the status -> MPI_Allgather
 *   commit: the particles move if every rank's moves were finite.
 *
 * begin's and forces' statuses are agreed on (MPI_Allreduce, MPI_MAX) before the next exchange
 * (the exchanges agree on their sizes themselves), finish's travels with the summaries, and every
 * rank cancels the iteration if one failed, so the particles stay as before it everywhere.
 * commit's needs no agreement: it depends only on the summaries, the same on every rank
 * (sgs_svgd_shard_commit).
 *
 * With --shared (every rank on one node) the records are not sent: each rank writes them into
 * its part of an MPI-3 shared-memory window (MPI_Win_allocate_shared), and after the status
 * agreement every rank reads its records where their senders wrote them, one piece per rank
 * (sgs_svgd_shard_forces_parts, _finish_parts). begin and forces write separate parts of the
 * window, so a rank's forces never overwrites what another rank may still be reading; the
 * status agreement after each step (an MPI_Allreduce, which no rank leaves before every rank
 * has entered it) orders every rank's writes before the reads, with MPI_Win_sync on both sides.
 * An iteration is then two status agreements and the MPI_Allgather, and no record is copied.
 *
 *   mpiexec -n 2 ./svgd_shard_mpi --check              # compare with the serial run on rank 0
 *   mpiexec -n 2 ./svgd_shard_mpi --n 10000000 --iters 5 --bench --memory
 *   mpiexec -n 3 ./svgd_shard_mpi --check --abort-rank 1 --abort-iter 2
 *   mpiexec -n 2 ./svgd_shard_mpi --check --shared
 *
 * Options: --n N, --d d, --p p, --iters K, --check (rank 0 also runs the whole system with
 * sgs_svgd_step and compares every iteration's particles, bit for bit, and record: it then
 * holds all N), --bench (median time per iteration and rank 0's time in each step), --memory
 * (each rank's buffers and peak resident memory), --abort-rank r --abort-iter k (rank r's
 * gradient aborts in iteration k: every rank must report SGS_ERR_CALLBACK_ABORTED and keep its
 * particles), --shared (above). The model is the 1-D Gaussian mixture of parallel_models.h on every coordinate,
 * AdaGrad, Gaussian kernel h = 2, seed 42: svgd_mpi's. MPI counts are int: a rank's records
 * times 2d must fit (checked). Exit status 0 when every check passed, 1 when one failed (or the
 * run did), 2 for bad options. */
#define _POSIX_C_SOURCE 199309L /* clock_gettime */
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../parallel_models.h"
#include "../parse_size.h"

typedef struct {
    int abort_now;
} fault;

static int32_t gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    if (((fault *)ud)->abort_now) return SGS_CB_ABORT;
    return mixture_gradient(NULL, x, d, seed, g);
}

/* A status every rank agrees on: the largest of the ranks' (0 when all succeeded). */
static int32_t agree(int32_t st) {
    int32_t all = 0;
    MPI_Allreduce(&st, &all, 1, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

/* What a rank sends every rank after finish: its summary (zero when finish failed) and status. */
typedef struct {
    sgs_svgd_shard_partial part;
    int64_t status;
} summary;

/* One rank's part: the state, its buffers, and the records' buffers. */
typedef struct {
    sgs_svgd_shard s;
    int rank, size;
    size_t d, c, m;                /* own particles, own slots */
    double *x, *ws;
    uint32_t *idx;
    uint32_t *out_i, *in_i;        /* record indices: 2 max(c, m) each */
    double *out_r, *in_r;          /* rows: 2 max(c, m) d each */
    size_t *counts;                /* records per destination */
    int *sc, *sd, *rc, *rd;        /* MPI counts and displacements */
    sgs_svgd_shard_partial *parts; /* every rank's summary */
    summary *sums;                 /* every rank's summary and status, as gathered */
    double cpu_steps[4], wall_exchange;
    /* --shared: the window, and where every rank's part of it holds its records (begin's, b, and
     * forces', f), their counts per destination and where each destination's start. */
    int shared;
    MPI_Win win;
    uint32_t **ib, **if_;
    double **rb, **rf;
    size_t **cb, **ob, **cf, **of;
    sgs_svgd_shard_records *pieces; /* this rank's, one per sender */
} shard;

/* A rank's part of the window, for c particles and m slots on R ranks: begin's rows (2c d) and
 * forces' (m d), the counts and offsets (4R), begin's indices (2c) and forces' (m); each array
 * aligned for its type by the order. Sets the pointers when `base` is not NULL; the bytes. */
static size_t window_part(char *base, size_t c, size_t m, size_t d, size_t R, double **rb, double **rf,
                          size_t **cnt, uint32_t **ib, uint32_t **if_) {
    size_t at = 0;
    if (base) *rb = (double *)(base + at);
    at += 2 * c * d * sizeof(double);
    if (base) *rf = (double *)(base + at);
    at += m * d * sizeof(double);
    if (base) *cnt = (size_t *)(base + at);
    at += 4 * R * sizeof(size_t);
    if (base) *ib = (uint32_t *)(base + at);
    at += 2 * c * sizeof(uint32_t);
    if (base) *if_ = (uint32_t *)(base + at);
    at += m * sizeof(uint32_t);
    return at;
}

/* Allocates the window on the node's ranks and finds every rank's part; 1, or 0 when the ranks
 * are not all on one node or MPI refused (every rank returns the same). */
static int window_init(shard *h, size_t n, size_t p) {
    size_t R = (size_t)h->size;
    MPI_Comm node;
    int nsize = 0;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, h->rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &nsize);
    int ok = nsize == h->size;
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    h->ib = calloc(R, sizeof *h->ib), h->if_ = calloc(R, sizeof *h->if_);
    h->rb = calloc(R, sizeof *h->rb), h->rf = calloc(R, sizeof *h->rf);
    h->cb = calloc(R, sizeof *h->cb), h->ob = calloc(R, sizeof *h->ob);
    h->cf = calloc(R, sizeof *h->cf), h->of = calloc(R, sizeof *h->of);
    h->pieces = calloc(R, sizeof *h->pieces);
    int mem = h->ib && h->if_ && h->rb && h->rf && h->cb && h->ob && h->cf && h->of && h->pieces;
    MPI_Allreduce(MPI_IN_PLACE, &mem, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!ok || !mem) {
        MPI_Comm_free(&node);
        return 0;
    }
    char *mine = NULL;
    size_t bytes = window_part(NULL, h->c, h->m, h->d, R, NULL, NULL, NULL, NULL, NULL);
    ok = MPI_Win_allocate_shared((MPI_Aint)bytes, 1, MPI_INFO_NULL, node, &mine, &h->win) == MPI_SUCCESS;
    MPI_Comm_free(&node);
    MPI_Allreduce(MPI_IN_PLACE, &ok, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    if (!ok) return 0;
    for (size_t q = 0; q < R; q++) {
        MPI_Aint sz = 0;
        int du = 0;
        char *base = NULL;
        size_t c = 0, m = 0;
        MPI_Win_shared_query(h->win, (int)q, &sz, &du, &base);
        sgs_svgd_shard_ranges(n, p, R, q, &(size_t){0}, &c, &(size_t){0}, &m);
        size_t *cnt = NULL;
        window_part(base, c, m, h->d, R, &h->rb[q], &h->rf[q], &cnt, &h->ib[q], &h->if_[q]);
        h->cb[q] = cnt, h->ob[q] = cnt + R, h->cf[q] = cnt + 2 * R, h->of[q] = cnt + 3 * R;
    }
    MPI_Win_lock_all(MPI_MODE_NOCHECK, h->win);
    h->shared = 1;
    return 1;
}

/* Where each destination's records start, from their counts. */
static void offsets(const size_t *counts, size_t *offs, size_t R) {
    size_t o = 0;
    for (size_t q = 0; q < R; q++) offs[q] = o, o += counts[q];
}

/* This rank's pieces: where every rank's begin (`forces` 0) or forces (1) wrote the records for
 * it, iw indices and w values each. */
static void find_pieces(shard *h, int forces, size_t iw, size_t w) {
    size_t me = (size_t)h->rank;
    for (int q = 0; q < h->size; q++) {
        size_t k = (forces ? h->cf : h->cb)[q][me], o = (forces ? h->of : h->ob)[q][me];
        const uint32_t *i = (forces ? h->if_ : h->ib)[q];
        const double *r = (forces ? h->rf : h->rb)[q];
        h->pieces[q] = (sgs_svgd_shard_records){i + o * iw, k * iw, r + o * w, k * w};
    }
}

/* agree() with the window made consistent around it: every rank's writes before it are seen by
 * every rank's reads after it. The wall time goes to the exchanges. */
static int32_t agree_shared(shard *h, int32_t st) {
    double w0 = MPI_Wtime();
    MPI_Win_sync(h->win);
    st = agree(st);
    MPI_Win_sync(h->win);
    h->wall_exchange += MPI_Wtime() - w0;
    return st;
}

/* Sends `counts[q]` records (`iw` indices and `w` values each) to every rank q; receives
 * `expect` records. 0 on every rank when every rank receives what it expects, 1 on every rank
 * otherwise (then nothing more was sent: the receive buffers hold `expect` records). */
static int exchange(shard *h, size_t iw, size_t w, size_t expect) {
    for (int q = 0; q < h->size; q++) h->sc[q] = (int)h->counts[q];
    MPI_Alltoall(h->sc, 1, MPI_INT, h->rc, 1, MPI_INT, MPI_COMM_WORLD);
    size_t so = 0, ro = 0;
    for (int q = 0; q < h->size; q++) {
        h->sd[q] = (int)so, h->rd[q] = (int)ro;
        so += (size_t)h->sc[q], ro += (size_t)h->rc[q];
    }
    int bad = ro != expect, any = 0;
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (any) return 1;
    /* Indices then rows: iw and w per record (they fit an int: checked at set-up). */
    int *c[4] = {h->sc, h->sd, h->rc, h->rd};
    for (int q = 0; q < h->size; q++)
        for (int a = 0; a < 4; a++) c[a][q] *= (int)iw;
    MPI_Alltoallv(h->out_i, h->sc, h->sd, MPI_UINT32_T, h->in_i, h->rc, h->rd, MPI_UINT32_T, MPI_COMM_WORLD);
    for (int q = 0; q < h->size; q++)
        for (int a = 0; a < 4; a++) c[a][q] = c[a][q] / (int)iw * (int)w;
    MPI_Alltoallv(h->out_r, h->sc, h->sd, MPI_DOUBLE, h->in_r, h->rc, h->rd, MPI_DOUBLE, MPI_COMM_WORLD);
    return 0;
}

/* The end of an iteration, given this rank's status after finish (and its summary when that is
 * SGS_OK): every rank's summary and status to every rank; every rank cancels if one failed, else
 * commits. The status every rank has. */
static int32_t gather_commit(shard *h, int32_t st, const sgs_svgd_shard_partial *part, sgs_svgd_info *info) {
    summary mine = {{0}, st};
    if (st == SGS_OK) mine.part = *part;
    double w0 = MPI_Wtime();
    MPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, h->sums, (int)sizeof mine, MPI_BYTE, MPI_COMM_WORLD);
    h->wall_exchange += MPI_Wtime() - w0;
    for (int q = 0; q < h->size; q++) {
        if (h->sums[q].status > st) st = (int32_t)h->sums[q].status; /* agree()'s MPI_MAX */
        h->parts[q] = h->sums[q].part;
    }
    if (st != SGS_OK) {
        sgs_svgd_shard_cancel(&h->s); /* the ranks whose steps succeeded */
        return st;
    }
    double t = thread_cpu();
    /* The same summaries everywhere: the same status everywhere. */
    st = sgs_svgd_shard_commit(&h->s, h->parts, (size_t)h->size, info);
    h->cpu_steps[3] += thread_cpu() - t;
    return st;
}

/* One iteration through the window (--shared); the status every rank agreed on. */
static int32_t iteration_shared(shard *h, sgs_svgd_info *info) {
    size_t c = h->c, m = h->m, d = h->d, r = (size_t)h->size, me = (size_t)h->rank;
    double t = thread_cpu();
    int32_t st = sgs_svgd_shard_begin(&h->s, h->ib[me], 2 * c, h->rb[me], 2 * c * d, h->cb[me], r);
    if (st == SGS_OK) offsets(h->cb[me], h->ob[me], r);
    h->cpu_steps[0] += thread_cpu() - t;
    if ((st = agree_shared(h, st)) == SGS_OK) {
        t = thread_cpu();
        find_pieces(h, 0, 2, 2 * d);
        st = sgs_svgd_shard_forces_parts(&h->s, h->pieces, r, h->if_[me], m, h->rf[me], m * d, h->cf[me], r);
        if (st == SGS_OK) offsets(h->cf[me], h->of[me], r);
        h->cpu_steps[1] += thread_cpu() - t;
        st = agree_shared(h, st);
    }
    sgs_svgd_shard_partial part;
    if (st == SGS_OK) {
        t = thread_cpu();
        find_pieces(h, 1, 1, d);
        st = sgs_svgd_shard_finish_parts(&h->s, h->pieces, r, &part);
        h->cpu_steps[2] += thread_cpu() - t;
    }
    return gather_commit(h, st, &part, info);
}

/* One iteration; the status every rank agreed on. */
static int32_t iteration(shard *h, sgs_svgd_info *info) {
    if (h->shared) return iteration_shared(h, info);
    size_t c = h->c, m = h->m, d = h->d, r = (size_t)h->size;
    double t = thread_cpu();
    int32_t st = agree(sgs_svgd_shard_begin(&h->s, h->out_i, 2 * c, h->out_r, 2 * c * d, h->counts, r));
    h->cpu_steps[0] += thread_cpu() - t;
    if (st != SGS_OK) {
        sgs_svgd_shard_cancel(&h->s); /* the ranks whose begin succeeded */
        return st;
    }
    double w0 = MPI_Wtime();
    st = exchange(h, 2, 2 * d, m) ? SGS_ERR_LENGTH_MISMATCH : SGS_OK; /* the same on every rank */
    h->wall_exchange += MPI_Wtime() - w0;
    t = thread_cpu();
    if (st == SGS_OK)
        st = agree(sgs_svgd_shard_forces(&h->s, h->in_i, 2 * m, h->in_r, 2 * m * d, h->out_i, m, h->out_r, m * d,
                                         h->counts, r));
    h->cpu_steps[1] += thread_cpu() - t;
    if (st == SGS_OK) {
        w0 = MPI_Wtime();
        st = exchange(h, 1, d, c) ? SGS_ERR_LENGTH_MISMATCH : SGS_OK;
        h->wall_exchange += MPI_Wtime() - w0;
    }
    sgs_svgd_shard_partial part;
    t = thread_cpu();
    if (st == SGS_OK) st = sgs_svgd_shard_finish(&h->s, h->in_i, c, h->in_r, c * d, &part);
    h->cpu_steps[2] += thread_cpu() - t;
    return gather_commit(h, st, &part, info);
}

/* Peak resident memory of this process in kB (Linux VmHWM), or 0. */
static long peak_kb(void) {
    FILE *f = fopen("/proc/self/status", "r");
    if (!f) return 0;
    char line[256];
    long kb = 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "VmHWM: %ld kB", &kb) == 1) break;
    fclose(f);
    return kb;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t n = 100000, d = 1, p = 8, iters = 10, abort_rank = 0, abort_iter = 0;
    int check = 0, bench = 0, memory = 0, have_ar = 0, have_ai = 0, shared = 0;
    const char *bad = NULL;
    for (int a = 1; a < argc && !bad; a++) {
        const char *o = argv[a];
        size_t *dst = NULL;
        if (!strcmp(o, "--check")) check = 1;
        else if (!strcmp(o, "--bench")) bench = 1;
        else if (!strcmp(o, "--memory")) memory = 1;
        else if (!strcmp(o, "--shared")) shared = 1;
        else if (!strcmp(o, "--n")) dst = &n;
        else if (!strcmp(o, "--d")) dst = &d;
        else if (!strcmp(o, "--p")) dst = &p;
        else if (!strcmp(o, "--iters")) dst = &iters;
        else if (!strcmp(o, "--abort-rank")) dst = &abort_rank, have_ar = 1;
        else if (!strcmp(o, "--abort-iter")) dst = &abort_iter, have_ai = 1;
        else bad = o;
        if (dst && (a + 1 >= argc || !parse_size(argv[++a], dst))) bad = o;
    }
    if (!bad && (have_ar != have_ai || (have_ai && (abort_iter < 1 || abort_iter > iters)) ||
                 (have_ar && abort_rank >= (size_t)size)))
        bad = "--abort-rank r and --abort-iter k go together, 0 <= r < ranks, 1 <= k <= K";
    if (bad) {
        if (rank == 0) fprintf(stderr, "svgd_shard_mpi: bad option or value: %s\n", bad);
        MPI_Finalize();
        return 2;
    }

    int rc = 1;
    shard h;
    memset(&h, 0, sizeof h);
    h.rank = rank, h.size = size, h.d = d;
    fault f = {0}, tf = {0};
    sgs_svgd_config cfg = sgs_svgd_config_default(p, 0.05);
    cfg.bandwidth = 2.0;
    cfg.seed = 42;
    cfg.permutation = SGS_PERMUTATION_FEISTEL;
    size_t pf = 0, ws_len = 0, ix_len = 0;
    int32_t st = sgs_svgd_shard_ranges(n, p, (size_t)size, (size_t)rank, &pf, &h.c, &(size_t){0}, &h.m);
    size_t most = h.c > h.m ? h.c : h.m;
    /* MPI counts are int: a rank's rows (2d values per record) must fit, and the sizes below must
     * not overflow (the same test on every rank for the shared sizes). */
    int fits = st == SGS_OK && d >= 1 && d <= 1024 && most <= (size_t)INT_MAX / (2 * d);
    if (fits) {
        ws_len = sgs_svgd_shard_workspace_len(n, d, (size_t)size, (size_t)rank, &cfg);
        ix_len = sgs_svgd_shard_index_len(n, (size_t)size, (size_t)rank, &cfg);
        h.x = malloc(h.c * d * sizeof *h.x + 1), h.ws = malloc(ws_len * sizeof *h.ws + 1);
        h.idx = malloc(ix_len * sizeof *h.idx + 1);
        /* The record buffers of the exchanges (with --shared the window holds the records). */
        size_t rec = shared ? 0 : most;
        h.out_i = malloc(2 * rec * sizeof *h.out_i + 1), h.in_i = malloc(2 * rec * sizeof *h.in_i + 1);
        h.out_r = malloc(2 * rec * d * sizeof *h.out_r + 1), h.in_r = malloc(2 * rec * d * sizeof *h.in_r + 1);
        h.counts = malloc((size_t)size * sizeof *h.counts);
        h.sc = malloc((size_t)size * sizeof(int)), h.sd = malloc((size_t)size * sizeof(int));
        h.rc = malloc((size_t)size * sizeof(int)), h.rd = malloc((size_t)size * sizeof(int));
        h.parts = malloc((size_t)size * sizeof *h.parts), h.sums = malloc((size_t)size * sizeof *h.sums);
        fits = h.x && h.ws && h.idx && h.out_i && h.in_i && h.out_r && h.in_r && h.counts && h.sc && h.sd &&
               h.rc && h.rd && h.parts && h.sums;
    }
    if (agree(fits ? SGS_OK : 1) != SGS_OK) {
        if (rank == 0)
            fprintf(stderr, "svgd_shard_mpi: N %zu, d %zu, p %zu on %d ranks: %s\n", n, d, p, size,
                    st != SGS_OK ? sgs_status_str(st) : "too large for int MPI counts, or out of memory");
        goto out;
    }
    if (shared && !window_init(&h, n, p)) {
        if (rank == 0) fprintf(stderr, "svgd_shard_mpi: --shared needs every rank on one node (and the window)\n");
        goto out;
    }
    for (size_t k = 0; k < h.c * d; k++) h.x[k] = start_value(pf * d + k);
    st = agree(sgs_svgd_shard_init(&h.s, &cfg, n, d, (size_t)size, (size_t)rank, h.x, h.c * d, h.ws, ws_len,
                                   h.idx, ix_len, gradient, NULL, &f));
    if (st != SGS_OK) {
        if (rank == 0) fprintf(stderr, "svgd_shard_mpi: init: %s\n", sgs_status_str(st));
        goto out;
    }

    /* The serial twin on rank 0 (check mode): the whole system, stepped with sgs_svgd_step, and
     * room to gather every rank's particles. */
    sgs_svgd twin;
    double *tx = NULL, *tws = NULL, *all = NULL, *times = NULL;
    uint32_t *tidx = NULL;
    int *gc = NULL, *gd = NULL;
    int twin_ok = 1;
    if (check && rank == 0) {
        size_t tl = sgs_svgd_workspace_len(n, d, &cfg);
        tx = malloc(n * d * sizeof *tx), tws = malloc(tl * sizeof *tws), tidx = malloc(n * sizeof *tidx);
        all = malloc(n * d * sizeof *all);
        gc = malloc((size_t)size * sizeof *gc), gd = malloc((size_t)size * sizeof *gd);
        twin_ok = tx && tws && tidx && all && gc && gd && n * d <= (size_t)INT_MAX;
        if (twin_ok) {
            start_particles(tx, n, d);
            memset(&twin, 0, sizeof twin);
            twin_ok = sgs_svgd_init(&twin, &cfg, tx, n, d, tws, tl, tidx, n, gradient, NULL, &tf) == SGS_OK;
            for (int q = 0; q < size && twin_ok; q++) {
                size_t a = 0, b = 0, e = 0;
                twin_ok = sgs_svgd_shard_ranges(n, p, (size_t)size, (size_t)q, &a, &b, &e, &(size_t){0}) == SGS_OK;
                gd[q] = (int)(a * d), gc[q] = (int)(b * d);
            }
        }
    }
    times = malloc((iters + 1) * sizeof *times);
    if (agree(twin_ok && times ? SGS_OK : 1) != SGS_OK) {
        if (rank == 0) fprintf(stderr, "svgd_shard_mpi: out of memory for the serial twin (or N*d > INT_MAX)\n");
        goto done;
    }

    int same = 1, aborted_ok = !have_ar;
    size_t failed_at = 0;
    int32_t failed_st = SGS_OK;
    for (size_t k = 1; k <= iters; k++) {
        sgs_svgd_info info;
        if (have_ai && k == abort_iter) {
            f.abort_now = (size_t)rank == abort_rank;
            st = iteration(&h, &info);
            f.abort_now = 0;
            /* Every rank got the agreed status; its particles must be the twin's before the step. */
            int kept = 1;
            if (check) {
                MPI_Gatherv(h.x, (int)(h.c * d), MPI_DOUBLE, all, gc, gd, MPI_DOUBLE, 0, MPI_COMM_WORLD);
                if (rank == 0) kept = memcmp(all, tx, n * d * sizeof *all) == 0;
            }
            aborted_ok = st == SGS_ERR_CALLBACK_ABORTED && kept;
            if (rank == 0)
                printf("svgd_shard_mpi: iteration %zu, rank %zu's callback aborts: every rank returned %s%s\n", k,
                       abort_rank, sgs_status_str(st), check ? (kept ? "; particles as before it" : "; particles CHANGED")
                                                             : "");
        }
        double t0 = MPI_Wtime();
        st = iteration(&h, &info);
        times[k] = MPI_Wtime() - t0;
        if (st != SGS_OK) {
            failed_at = k, failed_st = st;
            break;
        }
        if (check) {
            MPI_Gatherv(h.x, (int)(h.c * d), MPI_DOUBLE, all, gc, gd, MPI_DOUBLE, 0, MPI_COMM_WORLD);
            if (rank == 0 && same) {
                sgs_svgd_info ti;
                same = sgs_svgd_step(&twin, &ti) == SGS_OK && memcmp(all, tx, n * d * sizeof *all) == 0 &&
                       ti.iteration == info.iteration && ti.interactions == info.interactions &&
                       ti.max_force == info.max_force && fabs(ti.mean_force - info.mean_force) <= 1e-12 * ti.mean_force;
            }
        }
    }
    if (rank == 0) {
        printf("svgd_shard_mpi: %d rank(s), N %zu, d %zu, p %zu, %zu iterations, rank 0 holds %zu particles and %zu "
               "slots%s\n",
               size, n, d, p, iters, h.c, h.m, shared ? ", records read in place (--shared)" : "");
        if (failed_at)
            printf("svgd_shard_mpi: iteration %zu FAILED on every rank: %s\n", failed_at, sgs_status_str(failed_st));
        if (check)
            printf("svgd_shard_mpi: particles and records bit-identical to the serial run (mean force to 1e-12): %s\n",
                   same ? "yes" : "NO");
        if (bench && iters >= 1 && !failed_at) {
            qsort(times + 1, iters, sizeof *times, cmp_double);
            double it = (double)iters;
            printf("svgd_shard_mpi: median time per iteration %.6f s; rank 0 per iteration: CPU begin %.6f s, forces "
                   "%.6f s, finish %.6f s, commit %.6f s, exchanges (wall) %.6f s\n",
                   times[1 + (iters - 1) / 2], h.cpu_steps[0] / it, h.cpu_steps[1] / it, h.cpu_steps[2] / it,
                   h.cpu_steps[3] / it, h.wall_exchange / it);
        }
    }
    if (memory) {
        /* This program's buffers on each rank, exactly, and the process's peak resident set. */
        size_t records = shared ? window_part(NULL, h.c, h.m, d, (size_t)size, NULL, NULL, NULL, NULL, NULL)
                                : 2 * most * (2 * sizeof *h.out_i + 2 * d * sizeof *h.out_r);
        double mine[2] = {(double)(h.c * d * sizeof *h.x + ws_len * sizeof *h.ws + ix_len * sizeof *h.idx + records),
                          (double)peak_kb() * 1024.0};
        double *every = rank == 0 ? malloc(2 * (size_t)size * sizeof *every) : NULL;
        MPI_Gather(mine, 2, MPI_DOUBLE, every, 2, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        if (rank == 0 && every) {
            for (int q = 0; q < size; q++) {
                size_t a = 0, b = 0;
                sgs_svgd_shard_ranges(n, p, (size_t)size, (size_t)q, &(size_t){0}, &a, &(size_t){0}, &b);
                printf("svgd_shard_mpi: rank %d: %zu particles, %zu slots; buffers %.1f MB (%.1f bytes per particle "
                       "held), peak resident %.1f MB%s\n",
                       q, a, b, every[2 * q] / 1e6, every[2 * q] / (double)(a ? a : 1), every[2 * q + 1] / 1e6,
                       check && q == 0 ? " (with the serial twin of all N)" : "");
            }
        }
        free(every);
    }
    int ok = same && aborted_ok && !failed_at;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    rc = ok ? 0 : 1;
done:
    free(tx), free(tws), free(tidx), free(all), free(gc), free(gd), free(times);
out:
    if (h.shared) {
        MPI_Win_unlock_all(h.win);
        MPI_Win_free(&h.win);
    }
    free(h.ib), free(h.if_), free(h.rb), free(h.rf), free(h.cb), free(h.ob), free(h.cf), free(h.of), free(h.pieces);
    free(h.x), free(h.ws), free(h.idx), free(h.out_i), free(h.in_i), free(h.out_r), free(h.in_r);
    free(h.counts), free(h.sc), free(h.sd), free(h.rc), free(h.rd), free(h.parts), free(h.sums);
    MPI_Finalize();
    return rc;
}
