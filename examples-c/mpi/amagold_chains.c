/* Multi-chain AMAGOLD under MPI: one chain per rank (stream = rank, the same seed), the samples
 * gathered on rank 0, which prints the pooled moments and the split R-hat of every coordinate
 * and (with --check) reruns every stream serially to show that rank r's chain is bit for bit
 * the serial chain with stream r, that the pooled mean is within 5 Monte Carlo standard errors
 * of the exact one, and that the split R-hat is below 1.05. The standard error is each chain's
 * own (the library's sgs_stats_mcse: sqrt(variance / ESS), the ESS from the chain's
 * autocorrelations), pooled over the independent chains: sqrt(sum of squares) / chains. So it
 * holds on one rank as on many, at any chain length long enough for the ESS (--check needs at
 * least 1000 iterations per chain).
 *
 *   mpiexec -n 4 ./amagold_chains --check
 *
 * Options: --iters K (at least 4: the split R-hat needs half-chains of 2 draws; default 20000),
 * --warmup W (0, the default: none; W >= 20: each chain first runs the library's warm-up of W
 * iterations, which learns the step size and a diagonal mass matrix and reports a verdict, and
 * rank 0 prints every rank's verdict; the K samples follow it), --check. Exit status 0 when
 * every check passed, 1 when one failed (or a chain did), 2 for bad options. The samples are gathered with MPI_Gather, whose count is an int: K * 2 must not
 * exceed INT_MAX (checked).
 *
 * Target: N(mu, diag(1, 4)) in d = 2, mu = (1, -2), with a noisy gradient (a stand-in for a data
 * minibatch: a seed-dependent shift of the gradient that averages to zero). AMAGOLD's amortised
 * Metropolis-Hastings step makes the samples exact despite the noise. */
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgsample.h"
#include "../parse_size.h"

enum { D = 2 };
/* The shortest chains --check accepts: below, a chain's ESS (and so the standard error) and the
 * split R-hat are too noisy for a fixed bound. */
enum { CHECK_MIN_ITERS = 1000 };
static const double MU[D] = {1.0, -2.0}, VAR[D] = {1.0, 4.0};

static int32_t energy(void *ud, const double *t, size_t d, double *u) {
    (void)ud;
    double s = 0.0;
    for (size_t l = 0; l < d; l++) s += 0.5 * (t[l] - MU[l]) * (t[l] - MU[l]) / VAR[l];
    *u = s;
    return SGS_CB_OK;
}

static int32_t gradient(void *ud, const double *t, size_t d, uint64_t seed, double *g) {
    (void)ud;
    double noise = (double)(seed % 1024) / 1024.0 - 0.5;
    for (size_t l = 0; l < d; l++) g[l] = (t[l] - MU[l]) / VAR[l] + 0.2 * noise;
    return SGS_CB_OK;
}

/* Runs the chain of `stream` (after its warm-up of `warmup` iterations, if any) for `iters`
 * iterations into `out` (iters x D); its warm-up report into `*report`. */
static int32_t chain(uint64_t stream, size_t warmup, size_t iters, double *out, double *acceptance,
                     sgs_warmup_report *report) {
    sgs_amagold_config c = sgs_amagold_config_default(0.3);
    c.seed = 2026;
    c.stream = stream;
    if (warmup > 0) {
        c.warmup = warmup;
        c.mass = SGS_MASS_DIAGONAL;
    }
    double theta0[D] = {0.0, 0.0};
    size_t len = sgs_amagold_workspace_len_for(&c, D);
    double *ws = malloc(len * sizeof *ws + 1);
    if (!ws) return SGS_ERR_WORKSPACE_TOO_SMALL; /* the caller says "out of memory" */
    sgs_amagold s;
    memset(&s, 0, sizeof s);
    int32_t st = sgs_amagold_init(&s, &c, theta0, D, ws, len, energy, gradient, NULL);
    for (size_t i = 0; i < warmup && st == SGS_OK; i++) st = sgs_amagold_step(&s, NULL);
    if (st == SGS_OK) st = sgs_amagold_warmup_report(&s, report);
    sgs_amagold_run_summary sum;
    size_t done = 0;
    if (st == SGS_OK) st = sgs_amagold_run(&s, iters, out, iters * D, &done, &sum);
    if (st == SGS_OK) *acceptance = (double)sum.accepted / (double)sum.iterations;
    free(ws);
    return st;
}

static const char *verdict_name(uint32_t v) {
    switch (v) {
    case SGS_WARMUP_NONE: return "none";
    case SGS_WARMUP_RUNNING: return "running";
    case SGS_WARMUP_OK: return "OK";
    case SGS_WARMUP_SUSPECT: return "SUSPECT";
    default: return "?";
    }
}

/* The mean and Monte Carlo standard error (sgs_stats: sqrt(variance / ESS)) of each coordinate of
 * one chain, into out[0..D) and out[D..2D); SGS_OK or the failing call's status. */
static int32_t chain_stats(const double *x, size_t iters, double *out) {
    size_t bytes = 0, align = sgs_stats_state_align();
    int32_t st = sgs_stats_state_size(D, &bytes);
    if (st != SGS_OK) return st;
    unsigned char *raw = calloc(bytes + align, 1);
    if (!raw) return SGS_ERR_WORKSPACE_TOO_SMALL;
    sgs_stats *s = (sgs_stats *)(void *)(raw + (align - (uintptr_t)raw % align) % align);
    st = sgs_stats_init(s, bytes, D);
    for (size_t r = 0; r < iters && st == SGS_OK; r++) st = sgs_stats_push(s, x + r * D, D);
    if (st == SGS_OK) st = sgs_stats_mean(s, out, D);
    if (st == SGS_OK) st = sgs_stats_mcse(s, out + D, D);
    free(raw);
    return st;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, check = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t iters = 20000, warmup = 0;
    /* Every rank reads the same options, so every rank finds the same error (rank 0 says it). */
    const char *bad = NULL;
    for (int i = 1; i < argc && !bad; i++) {
        if (!strcmp(argv[i], "--check")) check = 1;
        else if (!strcmp(argv[i], "--iters")) {
            if (i + 1 >= argc || !parse_size(argv[++i], &iters)) bad = "--iters takes a number";
        } else if (!strcmp(argv[i], "--warmup")) {
            if (i + 1 >= argc || !parse_size(argv[++i], &warmup)) bad = "--warmup takes a number";
        } else {
            if (rank == 0) fprintf(stderr, "amagold_chains: unknown option %s\n", argv[i]);
            bad = "usage: amagold_chains [--iters K] [--warmup W] [--check]";
        }
    }
    if (!bad && warmup > 0 && warmup < 20)
        bad = "--warmup must be 0 or at least 20 (the mass matrix's first window needs 15 draws)";
    if (!bad && iters < 4) bad = "--iters must be at least 4: the split R-hat needs two half-chains of 2 draws";
    if (!bad && check && iters < CHECK_MIN_ITERS)
        bad = "--check needs --iters of at least 1000: on shorter chains the ESS, the standard error and the R-hat "
              "are too noisy for the check's fixed bounds";
    /* MPI_Gather's count is an int, and rank 0 holds every chain. */
    if (!bad && (iters > (size_t)INT_MAX / D || (size_t)size > SIZE_MAX / sizeof(double) / D / iters))
        bad = "--iters too large: MPI_Gather's count, K * 2 values, must not exceed INT_MAX";
    if (bad) {
        if (rank == 0) fprintf(stderr, "amagold_chains: %s\n", bad);
        MPI_Finalize();
        return 2;
    }
    /* Rank 0's buffers are allocated before any chain runs, so that every rank learns of a failure
     * (one Allreduce) before the gathers, which every rank must then enter. */
    double *mine = malloc(iters * D * sizeof *mine), acc = 0.0, mstat[2 * D] = {0};
    double *all = rank == 0 ? malloc((size_t)size * iters * D * sizeof *all) : NULL;
    double *accs = rank == 0 ? malloc((size_t)size * sizeof *accs) : NULL;
    double *stats = rank == 0 ? malloc((size_t)size * 2 * D * sizeof *stats) : NULL;
    sgs_warmup_report report;
    memset(&report, 0, sizeof report);
    sgs_warmup_report *reports = rank == 0 ? malloc((size_t)size * sizeof *reports) : NULL;
    int32_t st = !mine || (rank == 0 && (!all || !accs || !stats || !reports)) ? SGS_ERR_WORKSPACE_TOO_SMALL
                                                                               : SGS_OK;
    if (st == SGS_OK) st = chain((uint64_t)rank, warmup, iters, mine, &acc, &report);
    if (st == SGS_OK) st = chain_stats(mine, iters, mstat);
    if (st != SGS_OK)
        fprintf(stderr, "amagold_chains: rank %d: %s\n", rank,
                st == SGS_ERR_WORKSPACE_TOO_SMALL ? "out of memory" : sgs_status_str(st));
    int failed = st != SGS_OK, any_failed = 0;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD);
    if (any_failed) {
        free(mine), free(all), free(accs), free(stats), free(reports);
        MPI_Finalize();
        return 1;
    }
    MPI_Gather(mine, (int)(iters * D), MPI_DOUBLE, all, (int)(iters * D), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(&acc, 1, MPI_DOUBLE, accs, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(mstat, 2 * D, MPI_DOUBLE, stats, 2 * D, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    /* The report is plain data (doubles and integers): gathered as bytes. */
    MPI_Gather(&report, (int)sizeof report, MPI_BYTE, reports, (int)sizeof report, MPI_BYTE, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 0) {
        size_t m = (size_t)size, half = iters / 2;
        printf("amagold_chains: %d chain(s) (one per rank, stream = rank), %zu iterations each", size, iters);
        if (warmup > 0) printf(" after a warm-up of %zu (diagonal mass matrix)", warmup);
        printf("\n");
        for (int r = 0; r < size && warmup > 0; r++) {
            const sgs_warmup_report *w = &reports[r];
            printf("  rank %d: warm-up verdict %s (reasons 0x%x), step size %.4f, final window: acceptance %.3f "
                   "(target %.2f), energy trend z %.2f, E-BFMI %.2f; metric condition number %.2f\n",
                   r, verdict_name(w->verdict), (unsigned)w->reasons, w->step_size, w->accept_rate, w->target_accept,
                   w->energy_trend_z, w->bfmi, w->condition_number);
            /* A SUSPECT verdict asks for a look, it is not an error; a warm-up that did not end
             * (or a report of no warm-up) would be one. */
            if (check) ok &= w->verdict == SGS_WARMUP_OK || w->verdict == SGS_WARMUP_SUSPECT;
        }
        for (size_t l = 0; l < D; l++) {
            /* Pooled mean and variance; split R-hat over the 2m half-chains; the Monte Carlo
             * standard error of the pooled mean from the chains' own (independent chains: the
             * variances add). */
            double sum = 0.0, ss = 0.0, *hm = malloc(2 * m * sizeof *hm), w = 0.0, se2 = 0.0;
            if (!hm) {
                fprintf(stderr, "amagold_chains: out of memory\n");
                ok = 0;
                break;
            }
            for (size_t c = 0; c < m; c++)
                for (size_t r = 0; r < iters; r++) sum += all[(c * iters + r) * D + l];
            double mean = sum / (double)(m * iters);
            for (size_t c = 0; c < m; c++)
                for (size_t r = 0; r < iters; r++) {
                    double e = all[(c * iters + r) * D + l] - mean;
                    ss += e * e;
                }
            for (size_t c = 0; c < m; c++) {
                double mcse = stats[c * 2 * D + D + l];
                se2 += mcse * mcse;
                for (size_t h = 0; h < 2; h++) {
                    size_t start = h == 0 ? 0 : iters - half;
                    double a = 0.0, v = 0.0;
                    for (size_t r = start; r < start + half; r++) a += all[(c * iters + r) * D + l];
                    a /= (double)half;
                    for (size_t r = start; r < start + half; r++) {
                        double e = all[(c * iters + r) * D + l] - a;
                        v += e * e;
                    }
                    hm[2 * c + h] = a;
                    w += v / (double)(half - 1);
                }
            }
            w /= (double)(2 * m);
            double mm = 0.0, b = 0.0;
            for (size_t k = 0; k < 2 * m; k++) mm += hm[k];
            mm /= (double)(2 * m);
            for (size_t k = 0; k < 2 * m; k++) b += (hm[k] - mm) * (hm[k] - mm);
            b /= (double)(2 * m - 1);
            double rhat = sqrt((((double)half - 1.0) / (double)half * w + b) / w);
            printf("  coordinate %zu: pooled mean %.4f (exact %.1f), variance %.4f (exact %.1f), split R-hat %.4f\n",
                   l, mean, MU[l], ss / (double)(m * iters - 1), VAR[l], rhat);
            double se = sqrt(se2) / (double)m;
            printf("  coordinate %zu: Monte Carlo standard error of the pooled mean %.4f (from each chain's ESS)\n", l, se);
            if (check) {
                int within = fabs(mean - MU[l]) < 5.0 * se, converged = rhat < 1.05;
                printf("  coordinate %zu: |mean - exact| = %.4f, 5 standard errors = %.4f: %s; split R-hat < 1.05: %s\n",
                       l, fabs(mean - MU[l]), 5.0 * se, within ? "ok" : "FAIL", converged ? "ok" : "FAIL");
                ok &= within && converged;
            }
            free(hm);
        }
        double amean = 0.0;
        for (int r = 0; r < size; r++) amean += accs[r] / (double)size;
        printf("  acceptance rate (mean over chains) %.3f\n", amean);
        if (check) {
            double *serial = malloc(iters * D * sizeof *serial), a2;
            int same = serial != NULL;
            if (!serial) fprintf(stderr, "amagold_chains: out of memory for the serial rerun\n");
            for (int r = 0; r < size && same; r++) {
                sgs_warmup_report w2;
                same &= chain((uint64_t)r, warmup, iters, serial, &a2, &w2) == SGS_OK &&
                        memcmp(&w2, &reports[r], sizeof w2) == 0 &&
                        memcmp(serial, all + (size_t)r * iters * D, iters * D * sizeof *serial) == 0;
            }
            printf("amagold_chains: every rank's chain (and warm-up report) == the serial chain of its stream, bit for "
                   "bit: %s\n",
                   same ? "yes" : "NO");
            ok &= same;
            free(serial);
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    free(mine), free(all), free(accs), free(stats), free(reports);
    MPI_Finalize();
    return ok ? 0 : 1;
}
