/* The 1-D Gaussian mixture of the RBM-SVGD paper (docs/algorithms.md §2.4; the paper's Table 1 and
 * Figure 2) through the C API:
 *
 *   π = ⅓N(−2, 1) + ⅔N(2, 1),  ∇V(x) = x − 2 + 4/(2e^{4x} + 1)
 *   N = 256 particles from N(−10, 1), Gaussian kernel h = 2, AdaGrad η = 0.2 (α = 0.9),
 *   500 iterations, batch sizes p = 2, 4, …, 256 (p = N is SVGD)
 *
 * For each p the program runs R independent initialisations (run r: initial particles from this
 * file's SplitMix64 stream (r, 99), sampler seed r) and prints the mean error and the MSE of the
 * particle averages of x, x², cos 2x against 2/3, 5, e^{−2}cos 4, and the median time of one run.
 * The paper also runs SVGD with the median-heuristic bandwidth; that is the last row. The KSD
 * column is the kernelized Stein discrepancy of the final particles (sgs_ksd_full, IMQ base
 * kernel, docs/algorithms.md §2.5; computed after the timed run), as the root of its mean square
 * over the runs; exact samples of π of the same size have sqrt(1.74/N) = 0.082.
 *
 * Exit status 1 when a claim fails (see the CHECKs at the end). */
#include "example_util.h"

#define NP 256
#define ITERS 500

static int32_t mixture_gradients(void *user, const double *xs, size_t n, size_t d, uint64_t seed,
                                 double *g) {
    (void)user;
    (void)d;
    (void)seed;
    for (size_t i = 0; i < n; i++) g[i] = xs[i] - 2.0 + 4.0 / (2.0 * exp(4.0 * xs[i]) + 1.0);
    return SGS_CB_OK;
}

typedef struct {
    double bias[3], sd[3], mse[3], time, ksd;
} result;

/* R runs at batch size p (kernel: SGS_KERNEL_GAUSSIAN with h = 2, or the median heuristic). */
static result run_batch_size(size_t p, uint32_t kernel, int reps) {
    const double exact[3] = {2.0 / 3.0, 5.0, exp(-2.0) * cos(4.0)};
    sgs_svgd_config cfg = sgs_svgd_config_default(p, 0.2);
    cfg.kernel = kernel;
    cfg.bandwidth = 2.0;
    cfg.step_rule = SGS_STEP_RULE_ADAGRAD;
    size_t wlen = sgs_svgd_workspace_len(NP, 1, &cfg);
    double *ws = malloc(wlen * sizeof *ws), *times = malloc((size_t)reps * sizeof *times);
    uint32_t idx[NP];
    double x[NP], g[NP], ksd2 = 0.0;
    if (!ws || !times) exit(2);
    double s1[3] = {0, 0, 0}, s2[3] = {0, 0, 0};
    for (int r = 0; r < reps; r++) {
        ex_rng rng = ex_rng_new((uint64_t)r, 99);
        for (size_t i = 0; i < NP; i++) x[i] = -10.0 + ex_normal(&rng);
        cfg.seed = (uint64_t)r;
        sgs_svgd s = {{0}};
        double t0 = ex_now();
        SGS_TRY(sgs_svgd_init(&s, &cfg, x, NP, 1, ws, wlen, idx, NP, NULL, mixture_gradients,
                              NULL));
        SGS_TRY(sgs_svgd_run(&s, ITERS, NULL));
        times[r] = ex_now() - t0;
        double k2;
        mixture_gradients(NULL, x, NP, 1, 0, g);
        SGS_TRY(sgs_ksd_full(x, NP, 1, g, 1.0, -0.5, &k2));
        ksd2 += k2 / reps;
        double avg[3] = {0, 0, 0};
        for (size_t i = 0; i < NP; i++) {
            avg[0] += x[i];
            avg[1] += x[i] * x[i];
            avg[2] += cos(2.0 * x[i]);
        }
        for (int f = 0; f < 3; f++) {
            double e = avg[f] / NP - exact[f];
            s1[f] += e;
            s2[f] += e * e;
        }
    }
    result out;
    for (int f = 0; f < 3; f++) {
        out.bias[f] = s1[f] / reps;
        out.mse[f] = s2[f] / reps;
        double v = (s2[f] - reps * out.bias[f] * out.bias[f]) / (reps - 1);
        out.sd[f] = sqrt(v > 0 ? v : 0);
    }
    out.time = ex_median(times, (size_t)reps);
    out.ksd = sqrt(ksd2);
    free(ws);
    free(times);
    return out;
}

int main(int argc, char **argv) {
    const int quick = ex_quick(argc, argv);
    const int reps = quick ? 3 : 10;
    const int rows = quick ? 8 : 9; /* quick mode skips the median-bandwidth SVGD (the slowest) */
    const size_t ps[8] = {2, 4, 8, 16, 32, 64, 128, 256};
    result res[9];
    double t0 = ex_now();
    for (int k = 0; k < 8; k++) res[k] = run_batch_size(ps[k], SGS_KERNEL_GAUSSIAN, reps);
    if (rows == 9) res[8] = run_batch_size(NP, SGS_KERNEL_GAUSSIAN_MEDIAN, reps);
    double total = ex_now() - t0;

    printf("1-D Gaussian mixture (docs/algorithms.md §2.4) through the C API, sgsample %s\n",
           sgs_version());
    printf("pi = 1/3 N(-2,1) + 2/3 N(2,1); N = %d particles from N(-10,1); h = 2; AdaGrad eta = 0.2;"
           " %d iterations;\n%d initialisations per row (the paper uses 100; %d keeps this program"
           " under ~30 s on one core)%s\n",
           NP, ITERS, reps, reps, quick ? " (quick mode)" : "");
    printf("error = particle average − exact (2/3, 5, e^-2 cos 4 = %.7f): mean ± sd over runs; "
           "MSE over runs\n\n",
           exp(-2.0) * cos(4.0));
    printf("%-14s %17s %17s %17s   %-25s %9s %9s %6s %7s\n", "p", "error x", "error x^2",
           "error cos 2x", "MSE x, x^2, cos 2x", "time/run", "tSVGD/t", "N/p", "KSD");
    for (int k = 0; k < rows; k++) {
        char name[32];
        if (k < 7)
            snprintf(name, sizeof name, "%zu", ps[k]);
        else if (k == 7)
            snprintf(name, sizeof name, "256 = SVGD");
        else
            snprintf(name, sizeof name, "SVGD median h");
        char ratio[16], np[16];
        snprintf(ratio, sizeof ratio, "%.1f", res[7].time / res[k].time);
        snprintf(np, sizeof np, "%.0f", k < 8 ? (double)NP / (double)ps[k] : 1.0);
        printf("%-14s %+8.4f ± %6.4f %+8.4f ± %6.4f %+8.4f ± %6.4f   %.4f, %.4f, %.5f  %7.2f ms %9s %6s %7.4f\n",
               name, res[k].bias[0], res[k].sd[0], res[k].bias[1], res[k].sd[1], res[k].bias[2],
               res[k].sd[2], res[k].mse[0], res[k].mse[1], res[k].mse[2], 1e3 * res[k].time,
               ratio, np, res[k].ksd);
    }
    printf("\ntime/run: median wall time of one run (init + %d iterations); tSVGD/t: SVGD's "
           "(h = 2) time over this row's (the paper: close to N/p in a compiled language).\n"
           "total %.1f s\n",
           ITERS, total);

    /* Claims. (1) For p ≥ 8 and SVGD the mean error over the R runs is within an allowance for
     * the systematic error of 256 particles after 500 iterations, B = (0.1, 0.3, 0.05), plus
     * 4 standard errors sd/√R. B comes from 100-run tables (tests/svgd_mixture.rs: the largest
     * mean errors at p ≥ 8 are 0.076, 0.24, 0.041, all at p = 8). Without the repulsive kernel
     * term the particles collapse on the mode at −2 (x error ≈ −2.65) and every row fails.
     * (2) Small batches over-disperse: p = 2 has a larger MSE in x² than p = 32 (paper Fig. 2).
     * The run-to-run sd is not taken from the R runs alone: with R = 3 (quick mode) an sd from
     * three values is often far too small (p = 64 once gave 0.021 where 100 runs give ≈ 0.09),
     * so it is at least the sd of those 100-run tables at p ≥ 8, (0.09, 0.07, 0.024), rounded up. */
    const double allow[3] = {0.1, 0.3, 0.05};
    const double sd_floor[3] = {0.1, 0.1, 0.03};
    const char *fname[3] = {"x", "x^2", "cos 2x"};
    for (int k = 2; k < rows; k++)
        for (int f = 0; f < 3; f++)
            CHECK(fabs(res[k].bias[f]) <=
                      allow[f] + 4.0 * fmax(res[k].sd[f], sd_floor[f]) / sqrt((double)reps),
                  "row %d %s: mean error %.4f (sd %.4f, %d runs)", k, fname[f], res[k].bias[f],
                  res[k].sd[f], reps);
    CHECK(res[0].mse[1] > res[4].mse[1], "MSE x^2: p = 2 %.4f not above p = 32 %.4f",
          res[0].mse[1], res[4].mse[1]);
    return ex_finish("gaussian_mixture");
}
