/* The double banana of the RBM-SVGD paper (docs/algorithms.md §2.4; the paper's Table 2) through the
 * C API: RBM-SVGD and SVGD against random-walk Metropolis–Hastings.
 *
 *   prior N(0, I₂), F(x) = log((1 − x₁)² + 100(x₂ − x₁²)²), y = 3.57857342, σ = 0.3
 *   V(x) = |x|²/2 + (y − F(x))²/(2σ²)
 *
 * RBM-SVGD/SVGD: N = 512 particles from N(0, 0.4²I), Gaussian kernel h = 0.1, 800 iterations,
 * AdaGrad η = 0.01, α = 0.9 (the paper does not state its step rule; with η = 0.1 the normalised
 * AdaGrad steps are as wide as the banana and even SVGD keeps |φ| ≈ 2, see tests/svgd_banana.rs).
 * RWMH: N·200 = 102 400 iterations from one N(0, 0.4²I) draw, Gaussian proposal of variance
 * τ = 5·10⁻³ (the paper's choice), the second half kept and thinned to every 100th: N samples.
 *
 * Reference moments: midpoint rule on [−5, 5]² (2000² cells; 1000² in quick mode), computed here.
 * Every method is repeated over R initialisations (run r: initial points from this file's
 * SplitMix64 stream (r, 98), sampler seed r); the tables give the mean ± sd over the runs of each
 * estimate, the MSE against the quadrature value and the median time of one run.
 *
 * Exit status 1 when a claim fails (see the CHECKs at the end). */
#include "example_util.h"

#define NP 512
#define ITERS 800
#define NMOM 4

static const double Y = 3.57857342, SIG = 0.3;

static double forward(double x1, double x2, double *d1, double *d2) {
    double a = 1.0 - x1, b = x2 - x1 * x1, q = a * a + 100.0 * b * b;
    *d1 = (-2.0 * a - 400.0 * b * x1) / q;
    *d2 = 200.0 * b / q;
    return log(q);
}

static double potential(double x1, double x2) {
    double d1, d2, r = Y - forward(x1, x2, &d1, &d2);
    return 0.5 * (x1 * x1 + x2 * x2) + r * r / (2.0 * SIG * SIG);
}

static int32_t banana_gradients(void *user, const double *xs, size_t n, size_t d, uint64_t seed,
                                double *g) {
    (void)user;
    (void)d;
    (void)seed;
    for (size_t i = 0; i < n; i++) {
        double x1 = xs[2 * i], x2 = xs[2 * i + 1], d1, d2;
        double r = (Y - forward(x1, x2, &d1, &d2)) / (SIG * SIG);
        g[2 * i] = x1 - r * d1;
        g[2 * i + 1] = x2 - r * d2;
    }
    return SGS_CB_OK;
}

/* E x₁, E x₂, Var x₁, Var x₂ of the points xs[0..n) (row by row). */
static void moments(const double *xs, size_t n, double *m) {
    double s[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < n; i++) {
        s[0] += xs[2 * i];
        s[1] += xs[2 * i + 1];
        s[2] += xs[2 * i] * xs[2 * i];
        s[3] += xs[2 * i + 1] * xs[2 * i + 1];
    }
    m[0] = s[0] / n;
    m[1] = s[1] / n;
    m[2] = s[2] / n - m[0] * m[0];
    m[3] = s[3] / n - m[1] * m[1];
}

static double square(double x, const void *unused) {
    (void)unused;
    return x * x;
}

static void quadrature(int cells, double *m) {
    const double lo = -5.0, h = 10.0 / cells;
    double z = 0.0, s[4] = {0, 0, 0, 0};
    for (int i = 0; i < cells; i++) {
        double x1 = lo + (i + 0.5) * h;
        for (int j = 0; j < cells; j++) {
            double x2 = lo + (j + 0.5) * h, w = exp(-potential(x1, x2));
            z += w;
            s[0] += w * x1;
            s[1] += w * x2;
            s[2] += w * x1 * x1;
            s[3] += w * x2 * x2;
        }
    }
    m[0] = s[0] / z;
    m[1] = s[1] / z;
    m[2] = s[2] / z - m[0] * m[0];
    m[3] = s[3] / z - m[1] * m[1];
}

typedef struct {
    const char *name;
    double mean[NMOM], sd[NMOM], mse[NMOM], time, extra;
    int reps;
} result;

static void finish(result *res, double s1[NMOM], double s2[NMOM], const double *truth,
                   double *times) {
    int R = res->reps;
    for (int f = 0; f < NMOM; f++) {
        res->mean[f] = s1[f] / R;
        double v = R > 1 ? (s2[f] - R * res->mean[f] * res->mean[f]) / (R - 1) : 0.0;
        res->sd[f] = sqrt(v > 0 ? v : 0);
        /* MSE = sd² (population) + bias² */
        res->mse[f] = (s2[f] / R - res->mean[f] * res->mean[f]) +
                      (res->mean[f] - truth[f]) * (res->mean[f] - truth[f]);
    }
    res->time = ex_median(times, (size_t)R);
}

static void init_points(double *x, int r) {
    ex_rng rng = ex_rng_new((uint64_t)r, 98);
    for (size_t i = 0; i < 2 * NP; i++) x[i] = 0.4 * ex_normal(&rng);
}

static result run_svgd(const char *name, size_t p, int reps, const double *truth) {
    result res = {name, {0}, {0}, {0}, 0, 0, reps};
    sgs_svgd_config cfg = sgs_svgd_config_default(p, 0.01);
    cfg.kernel = SGS_KERNEL_GAUSSIAN;
    cfg.bandwidth = 0.1;
    size_t wlen = sgs_svgd_workspace_len(NP, 2, &cfg);
    double *ws = malloc(wlen * sizeof *ws), x[2 * NP], s1[NMOM] = {0}, s2[NMOM] = {0}, m[NMOM];
    double times[64], force = 0.0;
    uint32_t idx[NP];
    if (!ws || reps > 64) exit(2);
    for (int r = 0; r < reps; r++) {
        init_points(x, r);
        cfg.seed = (uint64_t)r;
        sgs_svgd s = {{0}};
        sgs_svgd_run_summary sum;
        double t0 = ex_now();
        SGS_TRY(sgs_svgd_init(&s, &cfg, x, NP, 2, ws, wlen, idx, NP, NULL, banana_gradients,
                              NULL));
        SGS_TRY(sgs_svgd_run(&s, ITERS, &sum));
        times[r] = ex_now() - t0;
        force += sum.last.mean_force / reps;
        moments(x, NP, m);
        for (int f = 0; f < NMOM; f++) {
            s1[f] += m[f];
            s2[f] += m[f] * m[f];
        }
    }
    res.extra = force;
    finish(&res, s1, s2, truth, times);
    free(ws);
    return res;
}

/* Random-walk Metropolis–Hastings, N·200 iterations, second half thinned by 100. */
static result run_rwmh(int reps, const double *truth) {
    result res = {"RWMH (tau = 5e-3)", {0}, {0}, {0}, 0, 0, reps};
    const long iters = (long)NP * 200, burn = iters / 2, thin = 100;
    const double step = sqrt(5e-3);
    double kept[2 * NP], s1[NMOM] = {0}, s2[NMOM] = {0}, m[NMOM], acc = 0.0;
    double *times = malloc((size_t)reps * sizeof *times);
    if (!times) exit(2);
    for (int r = 0; r < reps; r++) {
        double start[2 * NP];
        init_points(start, r);
        ex_rng rng = ex_rng_new((uint64_t)r, 1000);
        double t0 = ex_now();
        double x1 = start[0], x2 = start[1], v = potential(x1, x2);
        long accepted = 0;
        size_t k = 0;
        for (long it = 1; it <= iters; it++) {
            double y1 = x1 + step * ex_normal(&rng), y2 = x2 + step * ex_normal(&rng);
            double vy = potential(y1, y2);
            if (log(ex_uniform(&rng)) < v - vy) {
                x1 = y1;
                x2 = y2;
                v = vy;
                accepted++;
            }
            if (it > burn && (it - burn) % thin == 0 && k < NP) {
                kept[2 * k] = x1;
                kept[2 * k + 1] = x2;
                k++;
            }
        }
        times[r] = ex_now() - t0;
        acc += (double)accepted / (double)iters / reps;
        moments(kept, k, m);
        for (int f = 0; f < NMOM; f++) {
            s1[f] += m[f];
            s2[f] += m[f] * m[f];
        }
    }
    res.extra = acc;
    finish(&res, s1, s2, truth, times);
    free(times);
    return res;
}

/* One long random-walk chain with a wider proposal (sd 0.3, which crosses between the two
 * bananas thousands of times): the moments of its second half with Monte Carlo standard errors,
 * an independent check of the quadrature. */
static void run_rwmh_long(long iters, double *m, double *se, double *acc_rate) {
    const long burn = iters / 2, kept = iters - burn;
    double *xs = malloc((size_t)kept * 2 * sizeof *xs);
    if (!xs) exit(2);
    ex_rng rng = ex_rng_new(12345, 1001);
    double x1 = 0.0, x2 = 0.0, v = potential(x1, x2);
    long accepted = 0;
    for (long it = 0; it < iters; it++) {
        double y1 = x1 + 0.3 * ex_normal(&rng), y2 = x2 + 0.3 * ex_normal(&rng);
        double vy = potential(y1, y2);
        if (log(ex_uniform(&rng)) < v - vy) {
            x1 = y1;
            x2 = y2;
            v = vy;
            accepted++;
        }
        if (it >= burn) {
            xs[2 * (it - burn)] = x1;
            xs[2 * (it - burn) + 1] = x2;
        }
    }
    for (int c = 0; c < 2; c++) {
        double sq, sq_se;
        ex_stats(xs + c, (size_t)kept, 2, NULL, NULL, &m[c], &se[c], NULL);
        ex_stats(xs + c, (size_t)kept, 2, square, NULL, &sq, &sq_se, NULL);
        m[2 + c] = sq - m[c] * m[c];
        /* Var = E x² − (E x)²: error of E x² plus that of (E x)² (bounds, not a covariance fit) */
        se[2 + c] = sq_se + 2.0 * fabs(m[c]) * se[c];
    }
    *acc_rate = (double)accepted / (double)iters;
    free(xs);
}

int main(int argc, char **argv) {
    const int quick = ex_quick(argc, argv);
    const int svgd_reps = quick ? 1 : 3, rwmh_reps = quick ? 20 : 100;
    double truth[NMOM];
    double t0 = ex_now();
    quadrature(quick ? 1000 : 2000, truth);
    double tq = ex_now() - t0;

    result res[6];
    int nres = 0;
    if (!quick) res[nres++] = run_svgd("SVGD (p = 512)", NP, svgd_reps, truth);
    res[nres++] = run_svgd("RBM-SVGD p = 64", 64, svgd_reps, truth);
    if (!quick) res[nres++] = run_svgd("RBM-SVGD p = 16", 16, svgd_reps, truth);
    res[nres++] = run_svgd("RBM-SVGD p = 4", 4, svgd_reps, truth);
    res[nres++] = run_svgd("RBM-SVGD p = 2", 2, svgd_reps, truth);
    res[nres++] = run_rwmh(rwmh_reps, truth);
    const long long_iters = quick ? 400000 : 2000000;
    double lm[NMOM], lse[NMOM], lacc, tl = ex_now();
    run_rwmh_long(long_iters, lm, lse, &lacc);
    tl = ex_now() - tl;
    double total = ex_now() - t0;

    printf("Double banana (docs/algorithms.md §2.4) through the C API, sgsample %s%s\n", sgs_version(),
           quick ? " (quick mode)" : "");
    printf("SVGD/RBM-SVGD: N = %d, h = 0.1, AdaGrad eta = 0.01, %d iterations, %d run(s) each;\n"
           "RWMH: %d iterations, proposal variance 5e-3, second half thinned to %d samples, %d "
           "runs.\n",
           NP, ITERS, svgd_reps, NP * 200, NP, rwmh_reps);
    printf("Entries: mean ± sd over runs of the %d-point estimate; reference by quadrature "
           "(%d^2 cells, %.2f s).\n\n",
           NP, quick ? 1000 : 2000, tq);
    const char *mname[NMOM] = {"E x1", "E x2", "Var x1", "Var x2"};
    printf("%-20s", "method");
    for (int f = 0; f < NMOM; f++) printf(" %17s", mname[f]);
    printf(" %11s\n", "time/run");
    printf("%-20s", "quadrature");
    for (int f = 0; f < NMOM; f++) printf(" %+8.4f        ", truth[f]);
    printf("\n");
    for (int k = 0; k < nres; k++) {
        printf("%-20s", res[k].name);
        for (int f = 0; f < NMOM; f++) printf(" %+8.4f ± %6.4f", res[k].mean[f], res[k].sd[f]);
        printf(" %8.1f ms\n", 1e3 * res[k].time);
    }
    printf("%-20s", "RWMH long chain");
    for (int f = 0; f < NMOM; f++) printf(" %+8.4f ± %6.4f", lm[f], lse[f]);
    printf(" %8.1f ms\n", 1e3 * tl);
    printf("(RWMH long chain: one chain of %ld iterations, proposal sd 0.3, acceptance %.3f, "
           "second half; ± = s.e. from sgs_stats_mcse)\n",
           long_iters, lacc);
    printf("\nMSE against the quadrature (over runs; the paper's Table 2 measure):\n");
    printf("%-20s", "method");
    for (int f = 0; f < NMOM; f++) printf(" %10s", mname[f]);
    printf("\n");
    for (int k = 0; k < nres; k++) {
        printf("%-20s", res[k].name);
        for (int f = 0; f < NMOM; f++) printf(" %10.5f", res[k].mse[f]);
        if (k == nres - 1)
            printf("   (acceptance %.3f)\n", res[k].extra);
        else
            printf("   (final mean |phi| %.3f)\n", res[k].extra);
    }
    printf("\nThe paper-setting RWMH (proposal sd 0.07) does not mix between the two bananas in\n"
           "102 400 iterations: each run stays in the banana it first reaches, so its E x2 and\n"
           "Var x2 scatter widely over runs and Var x2 is biased low (the paper's Table 2 finds\n"
           "its MSE worse than SVGD's). The long chain with a wider proposal reproduces the\n"
           "quadrature, which checks the reference.\n");
    printf("\ntotal %.1f s\n", total);

    /* Claims.
     * The long RWMH chain agrees with the quadrature within 4.5 Monte Carlo standard errors.
     * The paper-setting RWMH is not converged (see above), so only its E x1, symmetric in the
     * two bananas, is checked: the run average within 4 sd/√R of the quadrature; and, the
     * paper's claim, SVGD's (in quick mode RBM-SVGD p = 64's) MSE in E x2 is below RWMH's.
     * SVGD (p = 512) and RBM-SVGD (p = 64) carry a systematic error of a finite particle system
     * after 800 iterations. SVGD: tests/svgd_banana.rs measured E x1 −0.002 ± 0.002, E x2
     * −0.079 ± 0.098 over 20 runs. p = 64: this program over 12 runs with seeds 100..111 (not
     * the ones checked): E x1 −0.031 ± 0.006, E x2 −0.156 ± 0.078, Var x1 −0.114 ± 0.014,
     * Var x2 −0.076 ± 0.019 (tests/svgd_banana.rs agrees: E x1 −0.030 ± 0.010, E x2 −0.193 ±
     * 0.071). Each error must lie within 4 sd/√R of that bias. With the repulsive term removed
     * the p = 64 particles pile into the lower banana (E x2 ≈ −0.22 off) and SVGD's E x1 is
     * −0.042: both fail. */
    for (int f = 0; f < NMOM; f++)
        CHECK(fabs(lm[f] - truth[f]) <= 4.5 * lse[f], "RWMH long %s: %.4f vs %.4f ± %.4f",
              mname[f], lm[f], truth[f], lse[f]);
    /* The gradient callback is the gradient of the potential that RWMH and the quadrature use:
     * central differences at a few points, relative error below 1e-6. */
    for (int k = 0; k < 5; k++) {
        double x[2] = {-0.9 + 0.45 * k, 0.8 - 0.3 * k}, g[2], eps = 1e-6;
        banana_gradients(NULL, x, 1, 2, 0, g);
        double fd[2] = {(potential(x[0] + eps, x[1]) - potential(x[0] - eps, x[1])) / (2 * eps),
                        (potential(x[0], x[1] + eps) - potential(x[0], x[1] - eps)) / (2 * eps)};
        for (int c = 0; c < 2; c++)
            CHECK(fabs(g[c] - fd[c]) <= 1e-6 * (1.0 + fabs(fd[c])),
                  "gradient at (%.2f, %.2f)[%d]: %.8f vs finite difference %.8f", x[0], x[1], c,
                  g[c], fd[c]);
    }
    result *rw = &res[nres - 1];
    CHECK(fabs(rw->mean[0] - truth[0]) <= 4.0 * rw->sd[0] / sqrt((double)rw->reps),
          "RWMH E x1: %.4f vs %.4f (sd %.4f over %d runs)", rw->mean[0], truth[0], rw->sd[0],
          rw->reps);
    CHECK(res[0].mse[1] < rw->mse[1], "%s MSE E x2 %.4f not below RWMH's %.4f", res[0].name,
          res[0].mse[1], rw->mse[1]);
    for (int k = 0; k < nres - 1; k++) {
        double bias[NMOM], sd[NMOM];
        int nf;
        if (strcmp(res[k].name, "SVGD (p = 512)") == 0) {
            nf = 2;
            bias[0] = -0.0023, sd[0] = 0.0019, bias[1] = -0.0791, sd[1] = 0.0983;
        } else if (strcmp(res[k].name, "RBM-SVGD p = 64") == 0) {
            nf = 4;
            bias[0] = -0.0306, sd[0] = 0.0063, bias[1] = -0.1557, sd[1] = 0.0781;
            bias[2] = -0.1142, sd[2] = 0.0135, bias[3] = -0.0755, sd[3] = 0.0187;
        } else {
            continue;
        }
        for (int f = 0; f < nf; f++) {
            double err = res[k].mean[f] - truth[f];
            CHECK(fabs(err - bias[f]) <= 4.0 * sd[f] / sqrt((double)res[k].reps) + 1e-3,
                  "%s %s: error %.4f, expected %.4f ± %.4f", res[k].name, mname[f], err, bias[f],
                  sd[f]);
        }
    }
    return ex_finish("double_banana");
}
