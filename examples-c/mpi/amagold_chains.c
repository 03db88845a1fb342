/* Multi-chain AMAGOLD under MPI: one chain per rank (stream = rank, the same seed), the samples
 * gathered on rank 0, which prints the pooled moments and the split R-hat of every coordinate
 * and (with --check) reruns every stream serially to show that rank r's chain is bit for bit
 * the serial chain with stream r, and that the pooled mean is within 5 Monte Carlo standard
 * errors of the exact one.
 *
 *   mpiexec -n 4 ./amagold_chains --check
 *
 * Target: N(mu, diag(1, 4)) in d = 2, mu = (1, -2), with a noisy gradient (a stand-in for a data
 * minibatch: a seed-dependent shift of the gradient that averages to zero). AMAGOLD's amortised
 * Metropolis-Hastings step makes the samples exact despite the noise. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgsample.h"

enum { D = 2 };
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

/* Runs the chain of `stream` for `iters` iterations into `out` (iters x D). */
static int32_t chain(uint64_t stream, size_t iters, double *out, double *acceptance) {
    sgs_amagold_config c = sgs_amagold_config_default(0.3);
    c.seed = 2026;
    c.stream = stream;
    double theta0[D] = {0.0, 0.0};
    size_t len = sgs_amagold_workspace_len(D);
    double *ws = malloc(len * sizeof *ws);
    sgs_amagold s;
    memset(&s, 0, sizeof s);
    int32_t st = sgs_amagold_init(&s, &c, theta0, D, ws, len, energy, gradient, NULL);
    sgs_amagold_run_summary sum;
    size_t done = 0;
    if (st == SGS_OK) st = sgs_amagold_run(&s, iters, out, iters * D, &done, &sum);
    if (st == SGS_OK) *acceptance = (double)sum.accepted / (double)sum.iterations;
    free(ws);
    return st;
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank, size, check = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    size_t iters = 20000;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--check")) check = 1;
        else if (i + 1 < argc && !strcmp(argv[i], "--iters")) iters = strtoul(argv[++i], NULL, 10);
    }
    double *mine = malloc(iters * D * sizeof *mine), acc = 0.0;
    int32_t st = chain((uint64_t)rank, iters, mine, &acc);
    int32_t worst = st;
    MPI_Allreduce(&st, &worst, 1, MPI_INT32_T, MPI_MAX, MPI_COMM_WORLD);
    if (worst != SGS_OK) {
        if (rank == 0) fprintf(stderr, "a chain failed: %s\n", sgs_status_str(worst));
        MPI_Finalize();
        return 1;
    }
    double *all = rank == 0 ? malloc((size_t)size * iters * D * sizeof *all) : NULL;
    double *accs = rank == 0 ? malloc((size_t)size * sizeof *accs) : NULL;
    MPI_Gather(mine, (int)(iters * D), MPI_DOUBLE, all, (int)(iters * D), MPI_DOUBLE, 0, MPI_COMM_WORLD);
    MPI_Gather(&acc, 1, MPI_DOUBLE, accs, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    int ok = 1;
    if (rank == 0) {
        size_t m = (size_t)size, half = iters / 2;
        printf("amagold_chains: %d chain(s) (one per rank, stream = rank), %zu iterations each\n", size, iters);
        for (size_t l = 0; l < D; l++) {
            /* Pooled mean and variance; split R-hat over the 2m half-chains; the Monte Carlo
             * standard error of the pooled mean from the spread of the chain means. */
            double sum = 0.0, ss = 0.0, *hm = malloc(2 * m * sizeof *hm), w = 0.0, cm_s = 0.0, cm_ss = 0.0;
            for (size_t c = 0; c < m; c++)
                for (size_t r = 0; r < iters; r++) sum += all[(c * iters + r) * D + l];
            double mean = sum / (double)(m * iters);
            for (size_t c = 0; c < m; c++)
                for (size_t r = 0; r < iters; r++) {
                    double e = all[(c * iters + r) * D + l] - mean;
                    ss += e * e;
                }
            for (size_t c = 0; c < m; c++) {
                double cmean = 0.0;
                for (size_t r = 0; r < iters; r++) cmean += all[(c * iters + r) * D + l];
                cmean /= (double)iters;
                cm_s += cmean, cm_ss += cmean * cmean;
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
            if (check && m >= 2) {
                double cm = cm_s / (double)m, se = sqrt((cm_ss / (double)m - cm * cm) * (double)m / (double)(m - 1) / (double)m);
                int within = fabs(mean - MU[l]) < 5.0 * se + 1e-12;
                printf("  coordinate %zu: |mean - exact| = %.4f, 5 standard errors = %.4f: %s\n", l,
                       fabs(mean - MU[l]), 5.0 * se, within ? "ok" : "FAIL");
                ok &= within && rhat < 1.05;
            }
            free(hm);
        }
        double amean = 0.0;
        for (int r = 0; r < size; r++) amean += accs[r] / (double)size;
        printf("  acceptance rate (mean over chains) %.3f\n", amean);
        if (check) {
            double *serial = malloc(iters * D * sizeof *serial), a2;
            int same = 1;
            for (int r = 0; r < size; r++) {
                same &= chain((uint64_t)r, iters, serial, &a2) == SGS_OK &&
                        memcmp(serial, all + (size_t)r * iters * D, iters * D * sizeof *serial) == 0;
            }
            printf("amagold_chains: every rank's chain == the serial chain of its stream, bit for bit: %s\n",
                   same ? "yes" : "NO");
            ok &= same;
            free(serial);
        }
    }
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Finalize();
    return ok ? 0 : 1;
}
