/* TunaMH (docs/algorithms.md §7, src/tunamh.rs) against AMAGOLD on a Bayesian logistic regression with many data
 * points, through the C API: what an exact minibatch Metropolis–Hastings step costs in data-point
 * evaluations, and what it buys in effective samples.
 *
 * Data (generated here from a fixed seed): N points x_i = (1, z_i) with z_i standard normal
 * (d − 1 features and an intercept), true weights w*, labels y_i ~ Bernoulli(σ(x_i·w*)).
 * Model: U(θ) = |θ|²/(2·10²) + Σ_i U_i(θ), U_i(θ) = log(1 + e^{x_i·θ}) − y_i x_i·θ.
 *
 * TunaMH takes the Gaussian prior as its exact part (evaluated in full every step) and the N
 * terms through its differences callback. |∂U_i/∂θ| = |σ(x_i·θ) − y_i|·‖x_i‖ ≤ ‖x_i‖, so
 * c = max_i ‖x_i‖ is a valid per-term bound: |U_i(θ′) − U_i(θ)| ≤ c·‖θ′ − θ‖₂.
 * AMAGOLD takes minibatch gradients (B points chosen by sgs_minibatch from the seed it passes,
 * scaled by N/B) and the full-data energy for its acceptance test.
 *
 * Costs are counted in data-point evaluations, in the callbacks themselves: a TunaMH difference
 * is one point (it reads x_i twice, at θ and θ′), an AMAGOLD gradient is B points, an energy N.
 * Every sampler gets the same budget (`--passes` full passes over the data), starts at the
 * posterior mode (Newton's method, not counted) and is compared with a reference: 2-d
 * quadrature when d = 2 (--quick), the Laplace approximation (mode and inverse Hessian)
 * otherwise. ESS is the library's bulk-ESS of the stored draws (sgs_draws_summary, ArviZ's
 * estimator).
 *
 *   tunamh_logistic                 # N = 10^6, d = 5: the benchmark of docs/benchmarks.md
 *   tunamh_logistic --n 100000      # another N (d = 5)
 *   tunamh_logistic --quick         # N = 1000, d = 2, checked against quadrature
 *   tunamh_logistic --tunamh 0.1,0.01 --tunamh 0.05,1   # other TunaMH settings: σ/σ_opt, χ
 *
 * Exit status 1 when a claim fails (see the CHECKs at the end). */
#include "example_util.h"
#include "parse_size.h"

#define DMAX 5
#define MB_MAX 1000  /* AMAGOLD's minibatch (N/10 when N is smaller than 10⁴) */
#define PRIOR_SD 10.0
#define MAX_CONFIGS 8

typedef struct {
    size_t n, d;
    double *x; /* n × d, row by row */
    double *y;
    double bound; /* max ‖x_i‖ */
    size_t mb;    /* AMAGOLD's minibatch */
    /* AMAGOLD's control variate (Baker et al. 2019): the mode θ̂, the data term's gradient there
     * and σ(x_i·θ̂) for every point (one full pass, made once before any sampler runs) */
    double theta_hat[DMAX], g_hat[DMAX];
    double *s_hat;
    /* data-point evaluations made by the callbacks (the honest cost) */
    uint64_t points;
} data_set;

static void make_data(data_set *ds, size_t n, size_t d) {
    static const double w_true[DMAX] = {0.5, -1.0, 0.5, 0.25, -0.5};
    ex_rng rng = ex_rng_new(2020, 7);
    ds->n = n;
    ds->d = d;
    ds->points = 0;
    ds->mb = n / 10 < MB_MAX ? n / 10 : MB_MAX;
    ds->x = malloc(n * d * sizeof *ds->x);
    ds->y = malloc(n * sizeof *ds->y);
    if (!ds->x || !ds->y) exit(2);
    double c2 = 0.0;
    for (size_t i = 0; i < n; i++) {
        double *xi = ds->x + i * d, z = 0.0, r2 = 0.0;
        xi[0] = 1.0;
        for (size_t j = 1; j < d; j++) xi[j] = ex_normal(&rng);
        for (size_t j = 0; j < d; j++) {
            z += xi[j] * w_true[j];
            r2 += xi[j] * xi[j];
        }
        ds->y[i] = ex_uniform(&rng) < 1.0 / (1.0 + exp(-z)) ? 1.0 : 0.0;
        if (r2 > c2) c2 = r2;
    }
    ds->bound = sqrt(c2);
}

static double dot(const double *a, const double *b, size_t d) {
    double s = 0.0;
    for (size_t j = 0; j < d; j++) s += a[j] * b[j];
    return s;
}

/* log(1 + e^z), without overflow. */
static double softplus(double z) { return z > 0 ? z + log1p(exp(-z)) : log1p(exp(z)); }
static double sigmoid(double z) { return 1.0 / (1.0 + exp(-z)); }

static double term(const data_set *ds, size_t i, const double *th) {
    double z = dot(ds->x + i * ds->d, th, ds->d);
    return softplus(z) - ds->y[i] * z;
}

static double prior_energy(const double *th, size_t d) {
    return 0.5 * dot(th, th, d) / (PRIOR_SD * PRIOR_SD);
}

/* The full-data energy, not counted (the reference's own computations). */
static double full_energy(const data_set *ds, const double *th) {
    double s = 0.0;
    for (size_t i = 0; i < ds->n; i++) s += term(ds, i, th);
    return s + prior_energy(th, ds->d);
}

/* ---- TunaMH's callbacks ---------------------------------------------------------------------- */

static int32_t prior_difference_cb(void *user, const double *th, const double *prop, size_t d,
                                   double *diff) {
    (void)user;
    *diff = prior_energy(prop, d) - prior_energy(th, d);
    return SGS_CB_OK;
}

static int32_t differences_cb(void *user, const double *th, const double *prop, size_t d,
                              const uint64_t *idx, size_t count, double *diff) {
    data_set *ds = user;
    (void)d;
    for (size_t j = 0; j < count; j++) diff[j] = term(ds, idx[j], prop) - term(ds, idx[j], th);
    ds->points += count;
    return SGS_CB_OK;
}

/* ---- AMAGOLD's callbacks --------------------------------------------------------------------- */

static int32_t energy_cb(void *user, const double *th, size_t d, double *u) {
    data_set *ds = user;
    (void)d;
    *u = full_energy(ds, th);
    ds->points += ds->n;
    return SGS_CB_OK;
}

/* ∇U on the minibatch of `seed`: the prior's gradient plus (N/B)·Σ_b r_b·x_b, with r_b the
 * point's residual σ(x_b·θ) − y_b, or with the control variate ĝ + (N/B)·Σ_b (σ(x_b·θ) −
 * σ(x_b·θ̂))·x_b: unbiased either way, but the second's noise shrinks near θ̂. */
static int32_t minibatch_gradient(data_set *ds, const double *th, size_t d, uint64_t seed,
                                  double *g, int cv) {
    uint64_t idx[MB_MAX];
    const size_t mb = ds->mb;
    if (sgs_minibatch(seed, ds->n, idx, mb) != SGS_OK) return SGS_CB_ABORT;
    const double scale = (double)ds->n / (double)mb;
    for (size_t j = 0; j < d; j++) g[j] = th[j] / (PRIOR_SD * PRIOR_SD) + (cv ? ds->g_hat[j] : 0.0);
    for (size_t b = 0; b < mb; b++) {
        const double *xi = ds->x + idx[b] * d;
        double base = cv ? ds->s_hat[idx[b]] : ds->y[idx[b]];
        double r = scale * (sigmoid(dot(xi, th, d)) - base);
        for (size_t j = 0; j < d; j++) g[j] += r * xi[j];
    }
    ds->points += mb;
    return SGS_CB_OK;
}

static int32_t gradient_cb(void *user, const double *th, size_t d, uint64_t seed, double *g) {
    return minibatch_gradient(user, th, d, seed, g, 0);
}

static int32_t cv_gradient_cb(void *user, const double *th, size_t d, uint64_t seed, double *g) {
    return minibatch_gradient(user, th, d, seed, g, 1);
}

static void fit_control_variate(data_set *ds, const double *mode) {
    const size_t d = ds->d;
    ds->s_hat = malloc(ds->n * sizeof *ds->s_hat);
    if (!ds->s_hat) exit(2);
    memcpy(ds->theta_hat, mode, d * sizeof *mode);
    for (size_t j = 0; j < d; j++) ds->g_hat[j] = 0.0;
    for (size_t i = 0; i < ds->n; i++) {
        const double *xi = ds->x + i * d;
        ds->s_hat[i] = sigmoid(dot(xi, mode, d));
        for (size_t j = 0; j < d; j++) ds->g_hat[j] += (ds->s_hat[i] - ds->y[i]) * xi[j];
    }
}

/* ---- the reference ----------------------------------------------------------------------------- */

/* The inverse of the symmetric positive definite d × d matrix a (destroyed) into inv. */
static void spd_inverse(double *a, double *inv, size_t d) {
    ex_cholesky(a, d);
    for (size_t c = 0; c < d; c++) {
        double e[DMAX] = {0}, v[DMAX];
        e[c] = 1.0;
        ex_cholesky_solve(a, d, e, v);
        for (size_t i = 0; i < d; i++) inv[i * d + c] = v[i];
    }
}

/* The posterior mode (Newton's method from 0) and the inverse Hessian there. */
static void laplace(const data_set *ds, double *mode, double *cov) {
    const size_t d = ds->d;
    double h[DMAX * DMAX];
    for (size_t j = 0; j < d; j++) mode[j] = 0.0;
    for (int it = 0; it < 25; it++) {
        double g[DMAX], step[DMAX];
        for (size_t j = 0; j < d; j++) g[j] = mode[j] / (PRIOR_SD * PRIOR_SD);
        for (size_t j = 0; j < d * d; j++)
            h[j] = j % (d + 1) == 0 ? 1.0 / (PRIOR_SD * PRIOR_SD) : 0.0;
        for (size_t i = 0; i < ds->n; i++) {
            const double *xi = ds->x + i * d;
            double p = sigmoid(dot(xi, mode, d)), q = p * (1.0 - p);
            for (size_t j = 0; j < d; j++) {
                g[j] += (p - ds->y[i]) * xi[j];
                for (size_t k = 0; k < d; k++) h[j * d + k] += q * xi[j] * xi[k];
            }
        }
        spd_inverse(h, cov, d);
        double change = 0.0;
        for (size_t j = 0; j < d; j++) {
            step[j] = dot(cov + j * d, g, d);
            change += step[j] * step[j];
        }
        for (size_t j = 0; j < d; j++) mode[j] -= step[j];
        if (change < 1e-28) break;
    }
}

/* d = 2: posterior mean and variances by quadrature on a grid of ±8 Laplace sds per axis (the
 * integrand is smooth and decays like a Gaussian: the rectangle rule converges geometrically). */
static void quadrature(const data_set *ds, const double *mode, const double *cov, double *mean,
                       double *var) {
    enum { G = 201 };
    const double half = 8.0;
    double s0 = sqrt(cov[0]), s1 = sqrt(cov[3]);
    static double u[G][G];
    double umin = INFINITY;
    for (int a = 0; a < G; a++)
        for (int b = 0; b < G; b++) {
            double th[2] = {mode[0] + s0 * half * (2.0 * a / (G - 1) - 1.0),
                            mode[1] + s1 * half * (2.0 * b / (G - 1) - 1.0)};
            u[a][b] = full_energy(ds, th);
            if (u[a][b] < umin) umin = u[a][b];
        }
    double z = 0.0, m[2] = {0, 0}, q[2] = {0, 0};
    for (int a = 0; a < G; a++)
        for (int b = 0; b < G; b++) {
            double th[2] = {mode[0] + s0 * half * (2.0 * a / (G - 1) - 1.0),
                            mode[1] + s1 * half * (2.0 * b / (G - 1) - 1.0)};
            double w = exp(umin - u[a][b]);
            z += w;
            for (int j = 0; j < 2; j++) {
                m[j] += w * th[j];
                q[j] += w * th[j] * th[j];
            }
        }
    for (int j = 0; j < 2; j++) {
        mean[j] = m[j] / z;
        var[j] = q[j] / z - mean[j] * mean[j];
    }
}

/* ---- the samplers ------------------------------------------------------------------------------ */

typedef struct {
    const char *name;
    double sigma_factor; /* TunaMH: σ = factor × σ_opt; 0 for AMAGOLD */
    int cv;              /* AMAGOLD: the control-variate gradient */
    double chi;
    /* results */
    double step, accept, points_per_iter, ess[DMAX], mean[DMAX], mcse[DMAX], var[DMAX],
        var_mcse[DMAX], ess_per_mpoints, time, full_passes, warmup_points;
    size_t iterations;
} sampler;

static double squared_dev(double v, const void *m) { return (v - *(const double *)m) * (v - *(const double *)m); }

/* Per coordinate of the stored draws: the bulk-ESS, the mean and its MCSE (sgs_draws_summary:
 * rank-normalised, over the whole chain, so a chain that mixes slower than the streaming
 * accumulator's 128-lag window still gets a number), and the variance with its MCSE (the
 * streaming accumulator on the squared deviations, for the quick mode's check). */
static void summarise(sampler *s, const double *draws, size_t n, size_t d) {
    sgs_draws_stats st[DMAX];
    const size_t len = sgs_draws_scratch_len(1, n);
    double *scratch = malloc(len * sizeof *scratch);
    if (!scratch) exit(2);
    SGS_TRY(sgs_draws_summary(draws, 1, n, d, scratch, len, st, DMAX));
    free(scratch);
    double min_ess = INFINITY;
    for (size_t j = 0; j < d; j++) {
        s->mean[j] = st[j].mean;
        s->mcse[j] = st[j].mcse_mean;
        s->ess[j] = st[j].ess_bulk;
        ex_stats(draws + j, n, d, squared_dev, &s->mean[j], &s->var[j], &s->var_mcse[j], NULL);
        if (s->ess[j] < min_ess) min_ess = s->ess[j];
    }
    s->ess_per_mpoints = 1e6 * min_ess / (s->points_per_iter * (double)n);
}

static void run_tunamh(data_set *ds, sampler *s, const double *start, double sigma_opt,
                       uint64_t budget, double *draws, size_t max_iters) {
    const size_t d = ds->d;
    sgs_tunamh chain = {{0}};
    sgs_tunamh_config cfg = sgs_tunamh_config_default(s->sigma_factor * sigma_opt, ds->n, ds->bound);
    cfg.chi = s->chi;
    cfg.seed = 11;
    double ws[2 * DMAX];
    SGS_TRY(sgs_tunamh_init(&chain, &cfg, start, d, ws, sgs_tunamh_workspace_len(d),
                            prior_difference_cb, differences_cb, ds));
    ds->points = 0;
    uint64_t full = 0, evaluations = 0, accepted = 0;
    size_t n = 0;
    double t0 = ex_now();
    while (ds->points < budget && n < max_iters) {
        sgs_tunamh_info info;
        SGS_TRY(sgs_tunamh_step(&chain, &info));
        full += info.full_pass;
        SGS_TRY(sgs_tunamh_position(&chain, draws + n * d, d));
        n++;
    }
    s->time = ex_now() - t0;
    SGS_TRY(sgs_tunamh_evaluations(&chain, &evaluations));
    SGS_TRY(sgs_tunamh_accepted(&chain, &accepted));
    CHECK(evaluations == ds->points, "TunaMH %s: evaluations %llu, callbacks saw %llu", s->name,
          (unsigned long long)evaluations, (unsigned long long)ds->points);
    s->step = cfg.step_size;
    s->iterations = n;
    s->accept = (double)accepted / (double)n;
    s->points_per_iter = (double)ds->points / (double)n;
    s->full_passes = (double)full / (double)n;
    s->warmup_points = 0.0;
    summarise(s, draws, n, d);
}

static void run_amagold(data_set *ds, sampler *s, const double *start, size_t warmup,
                        uint64_t budget, double *draws, size_t max_iters) {
    const size_t d = ds->d;
    sgs_amagold chain = {{0}};
    sgs_amagold_config cfg = sgs_amagold_config_default(0.1 / sqrt((double)ds->n));
    cfg.warmup = warmup;
    cfg.approach = 0; /* it starts at the mode */
    cfg.target_accept = 0.65;
    cfg.seed = 7;
    double ws[18 * DMAX];
    size_t ws_len = sgs_amagold_workspace_len_for(&cfg, d);
    if (ws_len > sizeof ws / sizeof ws[0]) SGS_TRY(SGS_ERR_WORKSPACE_TOO_SMALL);
    ds->points = 0;
    SGS_TRY(sgs_amagold_init(&chain, &cfg, start, d, ws, ws_len, energy_cb,
                             s->cv ? cv_gradient_cb : gradient_cb, ds));
    sgs_amagold_info info;
    for (size_t it = 0; it < warmup; it++) SGS_TRY(sgs_amagold_step(&chain, &info));
    s->warmup_points = (double)ds->points;
    s->step = info.step_size;
    ds->points = 0;
    size_t n = 0, accepted = 0;
    double t0 = ex_now();
    while (ds->points < budget && n < max_iters) {
        SGS_TRY(sgs_amagold_step(&chain, &info));
        accepted += info.accepted;
        SGS_TRY(sgs_amagold_position(&chain, draws + n * d, d));
        n++;
    }
    s->time = ex_now() - t0;
    s->iterations = n;
    s->accept = (double)accepted / (double)n;
    s->points_per_iter = (double)ds->points / (double)n;
    s->full_passes = 1.0;
    summarise(s, draws, n, d);
}

int main(int argc, char **argv) {
    const int quick = ex_quick(argc, argv);
    size_t n = quick ? 1000 : 1000000, passes = quick ? 20000 : 200;
    sampler ss[MAX_CONFIGS];
    size_t ns = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--n") == 0 && i + 1 < argc) {
            if (!parse_size(argv[++i], &n) || n < 10) {
                fprintf(stderr, "--n takes a whole number >= 10\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--passes") == 0 && i + 1 < argc) {
            if (!parse_size(argv[++i], &passes) || passes == 0) {
                fprintf(stderr, "--passes takes a whole number >= 1\n");
                return 2;
            }
        } else if (strcmp(argv[i], "--tunamh") == 0 && i + 1 < argc && ns + 2 < MAX_CONFIGS) {
            double f, chi;
            if (sscanf(argv[++i], "%lf,%lf", &f, &chi) != 2 || !(f > 0) || !(chi > 0)) {
                fprintf(stderr, "--tunamh takes FACTOR,CHI (both positive)\n");
                return 2;
            }
            ss[ns++] = (sampler){.name = "TunaMH", .sigma_factor = f, .chi = chi};
        } else if (strcmp(argv[i], "--quick") != 0) {
            fprintf(stderr, "usage: %s [--quick] [--n N] [--passes P] [--tunamh FACTOR,CHI]...\n",
                    argv[0]);
            return 2;
        }
    }
    const size_t d = quick ? 2 : DMAX;
    data_set ds;
    make_data(&ds, n, d);

    double mode[DMAX], cov[DMAX * DMAX], ref_mean[DMAX], ref_var[DMAX];
    double t0 = ex_now();
    laplace(&ds, mode, cov);
    for (size_t j = 0; j < d; j++) {
        ref_mean[j] = mode[j];
        ref_var[j] = cov[j * d + j];
    }
    if (d == 2) quadrature(&ds, mode, cov, ref_mean, ref_var);
    fit_control_variate(&ds, mode);
    const double t_ref = ex_now() - t0;
    /* The random-walk scale that is optimal for a Gaussian target of these sds (Roberts, Gelman
     * & Gilks 1997: 2.38/√d times the sd), from the geometric mean of the reference sds. */
    double log_sd = 0.0;
    for (size_t j = 0; j < d; j++) log_sd += 0.5 * log(ref_var[j]) / (double)d;
    const double sigma_opt = 2.38 / sqrt((double)d) * exp(log_sd);

    printf("TunaMH against AMAGOLD: Bayesian logistic regression through the C API, sgsample %s%s\n",
           sgs_version(), quick ? " (quick mode)" : "");
    printf("N = %zu points, d = %zu (intercept + %zu standard normal features), prior N(0, %g^2 I);"
           "\nper-term bound c = max |x_i| = %.4f; reference: %s (%.2f s)\n",
           n, d, d - 1, PRIOR_SD, ds.bound,
           d == 2 ? "quadrature on a 201 x 201 grid" : "Laplace approximation (mode, inverse Hessian)",
           t_ref);
    printf("reference sd:");
    for (size_t j = 0; j < d; j++) printf(" %.3g", sqrt(ref_var[j]));
    printf("; sigma_opt = 2.38/sqrt(d) x their geometric mean = %.3g\n", sigma_opt);

    /* TunaMH: the expected batch is χ·L² + L with L = c·N·‖θ′ − θ‖ ≈ c·N·σ·√d, and the step is a
     * full pass once that reaches N. The grid walks σ down from σ_opt and χ down from 1. */
    if (ns == 0 && quick) {
        ss[ns++] = (sampler){.name = "TunaMH", .sigma_factor = 0.1, .chi = 0.01};
        ss[ns++] = (sampler){.name = "TunaMH", .sigma_factor = 0.25, .chi = 0.01};
    } else if (ns == 0) {
        ss[ns++] = (sampler){.name = "TunaMH", .sigma_factor = 1.0, .chi = 1.0};
        ss[ns++] = (sampler){.name = "TunaMH", .sigma_factor = 0.3, .chi = 1e-4};
        ss[ns++] = (sampler){.name = "TunaMH", .sigma_factor = 0.1, .chi = 1e-3};
        ss[ns++] = (sampler){.name = "TunaMH", .sigma_factor = 0.03, .chi = 1e-2};
    }
    ss[ns++] = (sampler){.name = "AMAGOLD", .sigma_factor = 0.0};
    ss[ns++] = (sampler){.name = "AMAGOLD+cv", .sigma_factor = 0.0, .cv = 1};

    const uint64_t budget = (uint64_t)passes * n;
    const size_t max_iters = 4000000 / d;
    double *draws = malloc(max_iters * d * sizeof *draws);
    if (!draws) return 2;
    const size_t warmup = quick ? 200 : 100;
    printf("budget: %zu full passes = %.3g data-point evaluations per sampler (AMAGOLD's %zu "
           "warm-up iterations extra)\n\n",
           passes, (double)budget, warmup);
    for (size_t k = 0; k < ns; k++) {
        if (ss[k].sigma_factor > 0)
            run_tunamh(&ds, &ss[k], mode, sigma_opt, budget, draws, max_iters);
        else
            run_amagold(&ds, &ss[k], mode, warmup, budget, draws, max_iters);
    }
    free(draws);

    char label[MAX_CONFIGS][40];
    for (size_t k = 0; k < ns; k++) {
        if (ss[k].sigma_factor > 0)
            snprintf(label[k], sizeof label[k], "TunaMH x%g chi=%g", ss[k].sigma_factor, ss[k].chi);
        else
            snprintf(label[k], sizeof label[k], "%s", ss[k].name);
    }
    printf("%-22s %9s %6s %10s %8s %5s", "sampler", "step", "accept", "points/it", "iters", "full");
    for (size_t j = 0; j < d; j++) printf("  ESS[%zu]", j);
    printf(" %12s %8s\n", "minESS/1e6pt", "time");
    for (size_t k = 0; k < ns; k++) {
        const sampler *s = &ss[k];
        printf("%-22s %9.3g %6.3f %10.4g %8zu %5.2f", label[k], s->step, s->accept,
               s->points_per_iter, s->iterations, s->full_passes);
        for (size_t j = 0; j < d; j++) printf(" %7.1f", s->ess[j]);
        printf(" %12.3g %6.1f s\n", s->ess_per_mpoints, s->time);
    }
    printf("\nTunaMH xF chi=X: sigma = F x sigma_opt, batch constant chi = X; step: TunaMH's sigma, "
           "AMAGOLD's epsilon after\nits warm-up (T = 10, minibatch %zu, +cv: control variate at "
           "the mode); points/it: data-point evaluations\nper iteration; full: fraction of "
           "iterations with a full pass over the data; minESS/1e6pt: the smallest bulk-ESS\nper 10^6 "
           "data-point evaluations; time: wall clock of the sampling. Each AMAGOLD warm-up took "
           "%.3g points more.\n\n",
           ds.mb, ss[ns - 1].warmup_points);

    printf("against the reference: (mean - reference mean) / MCSE, then variance / reference "
           "variance, per coordinate\n");
    for (size_t k = 0; k < ns; k++) {
        const sampler *s = &ss[k];
        printf("%-22s", label[k]);
        for (size_t j = 0; j < d; j++) printf(" %6.2f", (s->mean[j] - ref_mean[j]) / s->mcse[j]);
        printf("   |");
        for (size_t j = 0; j < d; j++) printf(" %5.2f", s->var[j] / ref_var[j]);
        printf("\n");
    }

    /* Claims. Quick mode (quadrature is exact): every sampler's mean within 4 MCSE and its
     * variance within 4 MCSE (of the squared deviation) of the truth, each chain with enough
     * effective samples for its MCSE to mean something; TunaMH's quick configurations ran on
     * minibatches in most steps (a chain that always took the full pass would test nothing of the batch
     * logic). A term counted twice or a bound mishandled moves the variance by far more. */
    for (size_t k = 0; k < ns; k++) {
        const sampler *s = &ss[k];
        for (size_t j = 0; j < d; j++) {
            if (quick) {
                CHECK(s->ess[j] >= 100.0, "%s: bulk-ESS[%zu] = %.1f", label[k], j,
                      s->ess[j]);
                CHECK(fabs(s->mean[j] - ref_mean[j]) <= 4.0 * s->mcse[j],
                      "%s: mean[%zu] %.6g vs %.6g (MCSE %.3g)", label[k], j,
                      s->mean[j], ref_mean[j], s->mcse[j]);
                CHECK(fabs(s->var[j] - ref_var[j]) <= 4.0 * s->var_mcse[j],
                      "%s: var[%zu] %.6g vs %.6g (MCSE %.3g)", label[k], j,
                      s->var[j], ref_var[j], s->var_mcse[j]);
            }
        }
        if (quick && s->sigma_factor > 0)
            CHECK(s->full_passes < 0.25 && s->points_per_iter < 0.5 * (double)n,
                  "%s: %.2f full passes, %.4g points per iteration", label[k],
                  s->full_passes, s->points_per_iter);
    }
    free(ds.x);
    free(ds.y);
    free(ds.s_hat);
    return ex_finish("tunamh_logistic");
}
