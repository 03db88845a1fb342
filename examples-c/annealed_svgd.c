/* Annealed SVGD (docs/algorithms.md §2.8) against plain SVGD on a mixture of 4 well-separated
 * Gaussians in 2-d with unequal weights: which modes the particles reach and how they share
 * themselves out between them.
 *
 *   make -C examples-c && examples-c/build/annealed_svgd [--quick]
 *
 * π = Σ_k w_k·N(μ_k, I), w = (0.1, 0.2, 0.3, 0.4), μ_k = (±4, ±4); N = 100 particles start from
 * N((−8, −8), 0.5²I), next to one mode. 3000 iterations of AdaGrad η = 0.5 with the median
 * bandwidth, full SVGD (p = N) and RBM-SVGD (p = 10), plain and annealed: γ(t) rises from 0 to 1
 * over the first 1500 iterations, hyperbolically or in one linear ramp (the cyclical schedule with
 * one cycle). A particle belongs to the mode it is nearest to. The quick mode runs full SVGD only.
 *
 * What to expect (bindings/python/benchmarks/annealed_svgd.py measures it over 50 starts,
 * docs/benchmarks.md "Annealed SVGD"): plain SVGD never leaves the mode next to the start;
 * annealed full SVGD reaches all four, but shares the particles out about equally instead of in
 * the proportions w: it finds the modes, it does not weigh them. The importance weights of the
 * finished particles (sgs_particle_weights with the median bandwidth, docs/algorithms.md §2.9)
 * do: their shares per mode are w to about 0.01. */
#include "example_util.h"

enum { N = 100, D = 2, K = 4, ITERS = 3000, RAMP = 1500, M = 4096 };
static const double MU[K][D] = {{-4.0, -4.0}, {-4.0, 4.0}, {4.0, -4.0}, {4.0, 4.0}};
static const double W[K] = {0.1, 0.2, 0.3, 0.4};

/* ∇V = Σ_k r_k(x)·(x − μ_k), r the responsibilities (computed from the log-weights shifted by
 * their maximum, so that exp does not underflow to 0/0 far from every mode). */
static int32_t mixture_gradients(void *user, const double *xs, size_t n, size_t d, uint64_t seed,
                                 double *g) {
    (void)user;
    (void)d;
    (void)seed;
    for (size_t i = 0; i < n; i++) {
        const double *x = &xs[i * D];
        double lp[K], top = -INFINITY, z = 0.0;
        for (int k = 0; k < K; k++) {
            double a = x[0] - MU[k][0], b = x[1] - MU[k][1];
            lp[k] = -0.5 * (a * a + b * b) + log(W[k]);
            if (lp[k] > top) top = lp[k];
        }
        g[i * D] = g[i * D + 1] = 0.0;
        for (int k = 0; k < K; k++) {
            lp[k] = exp(lp[k] - top);
            z += lp[k];
        }
        for (int k = 0; k < K; k++) {
            g[i * D] += lp[k] / z * (x[0] - MU[k][0]);
            g[i * D + 1] += lp[k] / z * (x[1] - MU[k][1]);
        }
    }
    return SGS_CB_OK;
}

/* V = −log π (up to its constant), by the same shifted log-sum-exp. */
static double mixture_energy(const double *x) {
    double lp[K], top = -INFINITY, z = 0.0;
    for (int k = 0; k < K; k++) {
        double a = x[0] - MU[k][0], b = x[1] - MU[k][1];
        lp[k] = -0.5 * (a * a + b * b) + log(W[k]);
        if (lp[k] > top) top = lp[k];
    }
    for (int k = 0; k < K; k++) z += exp(lp[k] - top);
    return -(top + log(z));
}

typedef struct {
    int count[K];        /* particles nearest to each mode */
    double weight[K];    /* their importance weights' sum */
    double ess;          /* the weights' effective sample size */
    double kde[K];       /* the weights of M draws from the particles' density, nearest mode */
    double kde_ess;      /* their effective sample size */
    double centre[K][D]; /* their mean over the last two iterations (where count > 0) */
    double var[K][D];    /* their variance about it, per coordinate (where count > 1) */
} modes;

/* The mode whose centre is nearest to the point p (the first of equals). */
static int nearest_mode(const double *p) {
    int best = 0;
    double bd = INFINITY;
    for (int k = 0; k < K; k++) {
        double a = p[0] - MU[k][0], b = p[1] - MU[k][1];
        if (a * a + b * b < bd) bd = a * a + b * b, best = k;
    }
    return best;
}

/* The particles `x` by nearest mode; `prev` (the iteration before) enters the centres only.
 * Why two iterations: at η = 0.5 the normalised AdaGrad steps end in a 2-cycle in which every
 * particle moves by ±η per coordinate and back (the AdaGrad history of a force that flips sign
 * with the same size is that size squared, so the step stays η), shifting each mode's particles
 * by ±η/2 as a whole; their mean over both iterations is the centre of the cycle. */
static modes assign(const double *x, const double *prev, const double *w) {
    modes m;
    memset(&m, 0, sizeof m);
    int of[N];
    for (size_t i = 0; i < N; i++) {
        int best = nearest_mode(&x[i * D]);
        of[i] = best;
        m.count[best]++;
        m.weight[best] += w[i];
        for (int l = 0; l < D; l++) m.centre[best][l] += 0.5 * (x[i * D + l] + prev[i * D + l]);
    }
    for (int k = 0; k < K; k++)
        for (int l = 0; l < D; l++)
            if (m.count[k] > 0) m.centre[k][l] /= m.count[k];
    double mean[K][D] = {{0}};
    for (size_t i = 0; i < N; i++)
        for (int l = 0; l < D; l++) mean[of[i]][l] += x[i * D + l] / m.count[of[i]];
    for (size_t i = 0; i < N; i++)
        for (int l = 0; l < D; l++) {
            double e = x[i * D + l] - mean[of[i]][l];
            m.var[of[i]][l] += e * e;
        }
    for (int k = 0; k < K; k++)
        for (int l = 0; l < D; l++)
            if (m.count[k] > 1) m.var[k][l] /= m.count[k] - 1;
    return m;
}

static modes run(const char *name, size_t p, uint32_t anneal) {
    sgs_svgd_config cfg = sgs_svgd_config_default(p, 0.5);
    cfg.kernel = SGS_KERNEL_GAUSSIAN_MEDIAN;
    cfg.seed = 2026;
    cfg.anneal = anneal;
    cfg.anneal_iterations = RAMP;
    cfg.anneal_cycles = 1;
    cfg.anneal_power = 1.0;
    double x[N * D], prev[N * D];
    ex_rng rng = ex_rng_new(2026, 7);
    for (size_t i = 0; i < N * D; i++) x[i] = -8.0 + 0.5 * ex_normal(&rng);

    size_t wlen = sgs_svgd_workspace_len(N, D, &cfg);
    double *ws = malloc(wlen * sizeof *ws);
    uint32_t idx[N];
    if (!ws || sgs_svgd_index_len(N) > N) exit(2);
    sgs_svgd s;
    memset(&s, 0, sizeof s);
    sgs_svgd_run_summary sum;
    SGS_TRY(sgs_svgd_init(&s, &cfg, x, N, D, ws, wlen, idx, N, NULL, mixture_gradients, NULL));
    SGS_TRY(sgs_svgd_run(&s, ITERS - 1, &sum));
    memcpy(prev, x, sizeof x);
    SGS_TRY(sgs_svgd_run(&s, 1, &sum));
    free(ws);

    /* Importance weights of the final particles: π over their own kernel density estimate,
     * with the median-heuristic bandwidth (its N(N−1)/2 scratch from the heap). */
    double v[N], w[N], h, ess;
    double *scratch = malloc((size_t)N * (N - 1) / 2 * sizeof *scratch);
    if (!scratch) exit(2);
    for (size_t i = 0; i < N; i++) v[i] = mixture_energy(&x[i * D]);
    SGS_TRY(sgs_median_bandwidth(x, N, D, scratch, (size_t)N * (N - 1) / 2, &h));
    SGS_TRY(sgs_particle_weights(x, N, D, v, h, w, &ess));
    free(scratch);

    modes m = assign(x, prev, w);
    m.ess = ess;

    /* Importance sampling with the particles' density as the proposal: M draws from it (same
     * bandwidth), weighted by π over it exactly. */
    double *y = malloc((size_t)M * D * sizeof *y), *vy = malloc((size_t)M * sizeof *vy),
           *wy = malloc((size_t)M * sizeof *wy);
    if (!y || !vy || !wy) exit(2);
    SGS_TRY(sgs_kde_draws(x, N, D, h, 7, y, M));
    for (size_t k = 0; k < (size_t)M; k++) vy[k] = mixture_energy(&y[k * D]);
    SGS_TRY(sgs_kde_weights(x, N, D, h, y, M, vy, wy, &m.kde_ess));
    for (size_t k = 0; k < (size_t)M; k++) m.kde[nearest_mode(&y[k * D])] += wy[k];
    free(y);
    free(vy);
    free(wy);
    int found = 0;
    for (int k = 0; k < K; k++) found += m.count[k] > 0;
    printf("%-24s %4zu %6d  ", name, p, found);
    for (int k = 0; k < K; k++) printf("  %5.2f", m.count[k] / (double)N);
    printf("   ");
    for (int k = 0; k < K; k++) printf(" %5.3f", m.weight[k]);
    printf("  %5.1f   ", m.ess);
    for (int k = 0; k < K; k++) printf(" %5.3f", m.kde[k]);
    printf("  %6.0f  ", m.kde_ess);
    for (int k = 0; k < K; k++) {
        if (m.count[k] > 1)
            printf(" (%+5.2f,%+5.2f) %4.2f", m.centre[k][0], m.centre[k][1],
                   0.5 * (m.var[k][0] + m.var[k][1]));
        else if (m.count[k] > 0)
            printf(" (%+5.2f,%+5.2f)     ", m.centre[k][0], m.centre[k][1]);
        else
            printf(" %20s", "-");
    }
    printf("\n");
    return m;
}

int main(int argc, char **argv) {
    const int quick = ex_quick(argc, argv);
    const size_t ps[2] = {N, 10};
    const int np = quick ? 1 : 2;
    printf("Annealed SVGD (docs/algorithms.md §2.8) on a 4-mode mixture, sgsample %s%s\n",
           sgs_version(), quick ? " (quick mode)" : "");
    printf("N = %d particles from N((-8, -8), 0.5^2 I), %d iterations, AdaGrad eta = 0.5, median\n"
           "bandwidth; annealed: gamma rises to 1 over the first %d iterations.\n\n",
           N, ITERS, RAMP);
    printf("%-24s %4s %6s   %-27s    %-23s   %-5s    %-23s   %-6s   %s\n", "schedule", "p",
           "modes", "particles (nearest mode)", "importance weights", "ESS", "KDE draws, weighted",
           "ESS", "centre of each mode's particles, their variance");
    printf("%-24s %4s %6s  ", "truth", "", "4");
    for (int k = 0; k < K; k++) printf("  %5.2f", W[k]);
    printf("   ");
    for (int k = 0; k < K; k++) printf(" %5.3f", W[k]);
    printf("  %5s   ", "");
    for (int k = 0; k < K; k++) printf(" %5.3f", W[k]);
    printf("  %6s  ", "");
    for (int k = 0; k < K; k++) printf(" (%+5.2f,%+5.2f) %4.2f", MU[k][0], MU[k][1], 1.0);
    printf("\n");

    modes plain[2], hyper[2], ramp[2];
    for (int j = 0; j < np; j++) plain[j] = run("plain", ps[j], SGS_ANNEAL_OFF);
    for (int j = 0; j < np; j++) hyper[j] = run("annealed, hyperbolic", ps[j], SGS_ANNEAL_HYPERBOLIC);
    for (int j = 0; j < np; j++) ramp[j] = run("annealed, linear ramp", ps[j], SGS_ANNEAL_CYCLICAL);
    printf("(Centres: the mean over the last two iterations, which at eta = 0.5 end in a 2-cycle\n"
           "of +-eta per coordinate.)\n");
    printf("\nPlain SVGD keeps the mode it reaches first. Annealed, the particles first spread out\n"
           "(gamma ~ 0: repulsion only) and reach every mode, but full SVGD then holds them about\n"
           "equally in each: the modes are found, their weights are not recovered by the particles.\n"
           "The importance weights (pi over the particles' own density) recover them where every\n"
           "mode holds particles; they cannot where a mode holds none (plain SVGD). So do %d draws\n"
           "from the particles' density weighted by pi over it (sgs_kde_draws, sgs_kde_weights),\n"
           "which, unlike the weights, carry no kernel bias on thin curved modes (§2.9).\n\n", M);

    /* Claims, for full SVGD (over 50 starts in the benchmark: plain 0/50 leave the first mode,
     * annealed 50/50 reach all four with 0.24–0.26 of the particles in each on average). Plain:
     * every particle at the mode next to the start. Annealed, both schedules: every mode holds
     * at least 10 particles, centred on it within 0.25 and with the component's unit variance
     * per coordinate within ±0.3 (measured 0.97–1.00 over three starts of the Python benchmark:
     * full SVGD's particles settle on the target, not at random, so the usual Monte Carlo error
     * of 25 draws does not apply). A schedule that never lowers γ is plain SVGD and fails the
     * first check; one that stopped at γ = 1/2 would leave the particles on π^{1/2}, whose
     * components have variance 2; a scaling of the repulsion instead of the drive would change
     * the variances too. RBM-SVGD (p = 10) is printed only: annealed, it misses a mode in a few
     * of 50 starts. */
    CHECK(plain[0].count[0] == N, "plain SVGD: %d of %d particles at the first mode",
          plain[0].count[0], N);
    const modes *ann[2] = {&hyper[0], &ramp[0]};
    const char *ann_name[2] = {"hyperbolic", "linear ramp"};
    for (int a = 0; a < 2; a++)
        for (int k = 0; k < K; k++) {
            const modes *m = ann[a];
            CHECK(m->count[k] >= 10, "annealed (%s): %d particles at mode %d", ann_name[a],
                  m->count[k], k + 1);
            double dx = m->centre[k][0] - MU[k][0], dy = m->centre[k][1] - MU[k][1];
            CHECK(m->count[k] > 0 && sqrt(dx * dx + dy * dy) < 0.25,
                  "annealed (%s): mode %d's particles centred at (%.3f, %.3f)", ann_name[a], k + 1,
                  m->centre[k][0], m->centre[k][1]);
            for (int l = 0; l < D; l++)
                CHECK(m->count[k] > 1 && fabs(m->var[k][l] - 1.0) < 0.3,
                      "annealed (%s): mode %d's particles have variance %.3f in x%d", ann_name[a],
                      k + 1, m->var[k][l], l + 1);
            /* The weights' share of each mode: within 0.03 of w (over 50 starts of the
             * benchmark, full SVGD annealed: mean within 0.001, spread below 0.01). Equal
             * weights, the particles' own shares (about 1/4 each), fail it at modes 1 and 4;
             * the Python tests check unequal counts against exact shares. */
            CHECK(fabs(m->weight[k] - W[k]) < 0.03,
                  "annealed (%s): mode %d's importance weight %.4f (truth %.2f)", ann_name[a],
                  k + 1, m->weight[k], W[k]);
            /* The weighted KDE draws' share: within 0.05 of w (their error over 50 starts of
             * the benchmark: rms 0.01–0.02 per mode with 4096 draws). */
            CHECK(fabs(m->kde[k] - W[k]) < 0.05,
                  "annealed (%s): mode %d's share of the weighted KDE draws %.4f (truth %.2f)",
                  ann_name[a], k + 1, m->kde[k], W[k]);
        }
    return ex_finish("annealed_svgd");
}
