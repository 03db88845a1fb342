/* The C side of the bit-for-bit test (tests/test_sgsample.m): fixed-seed runs with deterministic
 * callbacks (the gradient is θ + a function of the minibatch seed, computed the same way in
 * Octave), each sample printed as the hex bits of its doubles, one line per sample, coordinates
 * in order. Built and run by scripts/test-matlab.sh:
 *   cc -std=c99 -O2 -ffp-contract=off -Iinclude bindings/matlab/tests/bitexact.c \
 *      target/release/libsgsample.a -lm -o bitexact && ./bitexact > bitexact_c.txt */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sgsample.h"

#define D 2
#define N 200

static double seed_noise(uint64_t seed) { return ((double)(seed >> 11) / 9007199254740992.0 - 0.5) * 0.5; }

static int32_t energy(void *u, const double *x, size_t d, double *e) {
    (void)u;
    (void)d;
    *e = 0.5 * (x[0] * x[0] + x[1] * x[1]);
    return SGS_CB_OK;
}

static int32_t gradient(void *u, const double *x, size_t d, uint64_t seed, double *g) {
    (void)u;
    double nz = seed_noise(seed);
    for (size_t i = 0; i < d; i++) g[i] = x[i] + nz;
    return SGS_CB_OK;
}

static int32_t gradients(void *u, const double *xs, size_t n, size_t d, uint64_t seed, double *g) {
    (void)u;
    double nz = seed_noise(seed);
    for (size_t i = 0; i < n * d; i++) g[i] = xs[i] + nz;
    return SGS_CB_OK;
}

/* TunaMH: N = 40 terms |y_i − θ₁| + |z_i − θ₂|/2 (data exact in binary, every operation written
 * out in the order tests/test_sgsample.m repeats it), bound 1.2 ≥ √1.25, and the exact part
 * ‖θ‖²/2. */
#define TERMS 40
static double term_y(uint64_t i) { return (double)(i % 7) * 0.25 - 0.75; }
static double term_z(uint64_t i) { return (double)(i % 5) * 0.5 - 1.0; }

static int32_t tunamh_diffs(void *u, const double *t, const double *p, size_t d, const uint64_t *idx,
                            size_t count, double *out) {
    (void)u;
    (void)d;
    for (size_t j = 0; j < count; j++) {
        double y = term_y(idx[j]), z = term_z(idx[j]);
        out[j] = (fabs(y - p[0]) + 0.5 * fabs(z - p[1])) - (fabs(y - t[0]) + 0.5 * fabs(z - t[1]));
    }
    return SGS_CB_OK;
}

static int32_t tunamh_exact(void *u, const double *t, const double *p, size_t d, double *out) {
    (void)u;
    (void)d;
    *out = 0.5 * (p[0] * p[0] + p[1] * p[1]) - 0.5 * (t[0] * t[0] + t[1] * t[1]);
    return SGS_CB_OK;
}

static void print_rows(const char *tag, const double *x, size_t rows, size_t d) {
    for (size_t k = 0; k < rows; k++) {
        printf("%s", tag);
        for (size_t j = 0; j < d; j++) {
            uint64_t bits;
            memcpy(&bits, &x[k * d + j], 8);
            printf(" %016" PRIx64, bits);
        }
        printf("\n");
    }
}

static int check(int32_t st, const char *what) {
    if (st != SGS_OK) fprintf(stderr, "%s: %s\n", what, sgs_status_str(st));
    return st != SGS_OK;
}

static void print_stat(const char *tag, sgs_status (*f)(const sgs_stats *, double *, size_t),
                       const sgs_stats *s) {
    double v[D];
    if (f(s, v, D) != SGS_OK) v[0] = v[1] = -1.0;
    print_rows(tag, v, 1, D);
}

/* One row per field of sgs_draws_summary: "<tag>_<field>" and the D values' bits. */
static void print_draws(const char *tag, const sgs_draws_stats *s) {
    static const char *names[18] = {"mean", "sd", "mcse_mean", "mcse_sd", "q5", "q50", "q95",
                                    "mcse_q5", "mcse_q50", "mcse_q95", "ess_bulk", "ess_tail",
                                    "ess_mean", "rhat", "rhat_bulk", "rhat_folded", "rhat_split",
                                    "flags"};
    for (int f = 0; f < 18; f++) {
        double v[D];
        char row[64];
        for (int j = 0; j < D; j++) {
            const sgs_draws_stats *r = &s[j];
            const double all[18] = {r->mean, r->sd, r->mcse_mean, r->mcse_sd, r->q5, r->q50, r->q95,
                                    r->mcse_q5, r->mcse_q50, r->mcse_q95, r->ess_bulk, r->ess_tail,
                                    r->ess_mean, r->rhat, r->rhat_bulk, r->rhat_folded,
                                    r->rhat_split, (double)r->flags};
            v[j] = all[f];
        }
        snprintf(row, sizeof row, "%s_%s", tag, names[f]);
        print_rows(row, v, 1, D);
    }
}

int main(void) {
    static double out[N * D], ws[64], scratch[100 * D], first[N * D], second[N * D];
    const double theta0[D] = {1.0, -1.0};
    size_t done;

    /* AMAGOLD, reversible, no warm-up: seed 7, step 0.3. */
    sgs_amagold a = {{0}};
    sgs_amagold_config ac = sgs_amagold_config_default(0.3);
    ac.seed = 7;
    if (check(sgs_amagold_init(&a, &ac, theta0, D, ws, 64, energy, gradient, NULL), "amagold init") ||
        check(sgs_amagold_run(&a, N, out, N * D, &done, NULL), "amagold run"))
        return 1;
    print_rows("amagold", out, N, D);
    memcpy(first, out, sizeof out);

    /* AMAGOLD, non-reversible, 50 warm-up iterations then 200 samples: seed 11, stream 3, T 5. */
    sgs_amagold b = {{0}};
    ac = sgs_amagold_config_default(0.2);
    ac.seed = 11;
    ac.stream = 3;
    ac.steps = 5;
    ac.warmup = 50;
    ac.variant = SGS_VARIANT_NON_REVERSIBLE;
    if (check(sgs_amagold_init(&b, &ac, theta0, D, ws, 64, energy, gradient, NULL), "amagold2 init") ||
        check(sgs_amagold_run(&b, 50, scratch, 100 * D, &done, NULL), "amagold2 warmup") ||
        check(sgs_amagold_run(&b, N, out, N * D, &done, NULL), "amagold2 run"))
        return 1;
    print_rows("amagold_nr", out, N, D);
    memcpy(second, out, sizeof out);

    /* AMAGOLD with the mass-matrix warm-up: 60 warm-up iterations, 200 samples, then the learnt
     * inverse mass as one row: seed 21, step 0.05. */
    sgs_amagold am = {{0}};
    static double wsm[64];
    ac = sgs_amagold_config_default(0.05);
    ac.seed = 21;
    ac.warmup = 60;
    ac.mass = SGS_MASS_DIAGONAL;
    if (sgs_amagold_workspace_len_for(&ac, D) > 64 ||
        check(sgs_amagold_init(&am, &ac, theta0, D, wsm, sgs_amagold_workspace_len_for(&ac, D), energy,
                               gradient, NULL), "amagold_mass init") ||
        check(sgs_amagold_run(&am, 60, scratch, 100 * D, &done, NULL), "amagold_mass warmup") ||
        check(sgs_amagold_run(&am, N, out, N * D, &done, NULL), "amagold_mass run"))
        return 1;
    print_rows("amagold_mass", out, N, D);
    double k[D];
    if (check(sgs_amagold_inverse_mass(&am, k, D), "amagold_mass inverse mass")) return 1;
    print_rows("amagold_mass_k", k, 1, D);

    /* Diagnostics of the two AMAGOLD runs above as two chains (sgs_stats in Octave): ESS and
     * split-R-hat across them, then each chain's MCSE and ESS, then the ESS flags. */
    size_t bytes;
    static uint64_t mem[2][4096];
    if (check(sgs_stats_state_size(D, &bytes), "stats size") || bytes > sizeof mem[0]) return 1;
    sgs_stats *c0 = (sgs_stats *)(void *)mem[0], *c1 = (sgs_stats *)(void *)mem[1];
    if (check(sgs_stats_init(c0, bytes, D), "stats init") || check(sgs_stats_init(c1, bytes, D), "stats init"))
        return 1;
    for (int r = 0; r < N; r++)
        if (check(sgs_stats_push(c0, first + r * D, D), "push") || check(sgs_stats_push(c1, second + r * D, D), "push"))
            return 1;
    const sgs_stats *both[2] = {c0, c1};
    double v[D];
    if (check(sgs_stats_ess_chains(both, 2, v, D), "ess")) return 1;
    print_rows("stats_ess", v, 1, D);
    if (check(sgs_stats_rhat(both, 2, v, D), "rhat")) return 1;
    print_rows("stats_rhat", v, 1, D);
    print_stat("stats_mcse", sgs_stats_mcse, c0);
    print_stat("stats_mcse", sgs_stats_mcse, c1);
    print_stat("stats_chain_ess", sgs_stats_ess, c0);
    print_stat("stats_chain_ess", sgs_stats_ess, c1);
    /* The ESS flags, as the doubles sgs_stats gives them. */
    uint32_t fl[D];
    if (check(sgs_stats_ess_chains_flags(both, 2, fl, D), "ess flags")) return 1;
    for (int j = 0; j < D; j++) v[j] = (double)fl[j];
    print_rows("stats_ess_flags", v, 1, D);
    for (int c = 0; c < 2; c++) {
        if (check(sgs_stats_ess_flags(both[c], fl, D), "chain ess flags")) return 1;
        for (int j = 0; j < D; j++) v[j] = (double)fl[j];
        print_rows("stats_chain_ess_flags", v, 1, D);
    }

    /* Diagnostics of stored draws of the same two runs as two chains (sgs_diagnose in Octave):
     * every field of sgs_draws_summary, in double and from the runs rounded to float. */
    static double xd[2 * N * D], dscratch[4 * 2 * N + 2 * N + 4 * 256 + N];
    static float xd32[2 * N * D];
    memcpy(xd, first, sizeof(double) * N * D);
    memcpy(xd + N * D, second, sizeof(double) * N * D);
    for (int i = 0; i < 2 * N * D; i++) xd32[i] = (float)xd[i];
    size_t dlen = sgs_draws_scratch_len(2, N);
    sgs_draws_stats ds[D];
    if (dlen > sizeof dscratch / sizeof dscratch[0] ||
        check(sgs_draws_summary(xd, 2, N, D, dscratch, dlen, ds, D), "draws summary"))
        return 1;
    print_draws("draws", ds);
    if (check(sgs_draws_summary_f32(xd32, 2, N, D, dscratch, dlen, ds, D), "draws summary f32")) return 1;
    print_draws("draws32", ds);

    /* SGHMC: seed 5, step 0.1. */
    sgs_sghmc h = {{0}};
    sgs_sghmc_config hc = sgs_sghmc_config_default(0.1);
    hc.seed = 5;
    if (check(sgs_sghmc_init(&h, &hc, theta0, D, ws, 64, gradient, NULL), "sghmc init") ||
        check(sgs_sghmc_run(&h, N, out, N * D, &done, NULL), "sghmc run"))
        return 1;
    print_rows("sghmc", out, N, D);

    /* SGLD: seed 9, step 0.05, 3 updates per sample. */
    sgs_sgld l = {{0}};
    sgs_sgld_config lc = sgs_sgld_config_default(0.05);
    lc.seed = 9;
    lc.steps = 3;
    if (check(sgs_sgld_init(&l, &lc, theta0, D, ws, 64, gradient, NULL), "sgld init") ||
        check(sgs_sgld_run(&l, N, out, N * D, &done, NULL), "sgld run"))
        return 1;
    print_rows("sgld", out, N, D);

    /* RBM-SVGD: 10 particles in 2-D, p = 4, h = 2, AdaGrad 0.2, 30 iterations, seed 13.
     * Particle i starts at (i/10 − 0.5, 1 − i/5); printed row by row (= X in MATLAB). */
    enum { P = 10 };
    double parts[P * D], sws[4096];
    uint32_t idx[P];
    for (int i = 0; i < P; i++) {
        parts[i * D] = i / 10.0 - 0.5;
        parts[i * D + 1] = 1.0 - i / 5.0;
    }
    sgs_svgd s = {{0}};
    sgs_svgd_config sc = sgs_svgd_config_default(4, 0.2);
    sc.bandwidth = 2.0;
    sc.seed = 13;
    size_t wl = sgs_svgd_workspace_len(P, D, &sc);
    if (wl > 4096) return 1;
    if (check(sgs_svgd_init(&s, &sc, parts, P, D, sws, wl, idx, P, NULL, gradients, NULL), "svgd init") ||
        check(sgs_svgd_run(&s, 30, NULL), "svgd run"))
        return 1;
    print_rows("svgd", parts, P, D);

    /* The warm-up API: a dense mass matrix learnt from (30, -30) with jittered T (warm-up 300,
     * the approach on), 200 samples, its d-by-d inverse mass (D rows), the report's doubles and
     * then its counts (as doubles: one row each); and a chain without a warm-up given a step
     * size and a dense matrix by the setters, 200 samples. */
    {
        sgs_amagold w = {{0}}, f = {{0}};
        static double wsw[256], wsf[256], kd[D * D], wout[300 * D];
        const double far[D] = {30.0, -30.0}, kset[D * D] = {2.0, 0.5, 0.5, 1.0};
        sgs_amagold_config wc = sgs_amagold_config_default(0.05);
        wc.seed = 23;
        wc.warmup = 300;
        wc.mass = SGS_MASS_DENSE;
        wc.jitter_steps = 1;
        sgs_warmup_report r;
        if (sgs_amagold_workspace_len_for(&wc, D) > 256 ||
            check(sgs_amagold_init(&w, &wc, far, D, wsw, sgs_amagold_workspace_len_for(&wc, D), energy,
                                   gradient, NULL), "amagold_dense init") ||
            check(sgs_amagold_run(&w, 300, wout, 300 * D, &done, NULL), "amagold_dense warmup") ||
            check(sgs_amagold_run(&w, N, out, N * D, &done, NULL), "amagold_dense run") ||
            check(sgs_amagold_inverse_mass_dense(&w, kd, D * D), "amagold_dense k") ||
            check(sgs_amagold_warmup_report(&w, &r), "amagold_dense report"))
            return 1;
        print_rows("amagold_dense", out, N, D);
        print_rows("amagold_dense_k", kd, D, D);
        const double rd[10] = {r.step_size, r.target_accept, r.accept_rate, r.energy_trend_z,
                               r.energy_mean, r.energy_sd, r.bfmi, r.condition_number,
                               r.approach_energy_start, r.approach_energy_end};
        const double rn[11] = {(double)r.iterations, (double)r.approach_iterations,
                               (double)r.divergences, (double)r.window_iterations,
                               (double)r.window_divergences, (double)r.verdict, (double)r.reasons,
                               (double)r.metric_updates, (double)r.restarts,
                               (double)r.energy_trend_falling, (double)r.energy_trend_rising};
        print_rows("amagold_dense_report", rd, 1, 10);
        print_rows("amagold_dense_counts", rn, 1, 11);
        sgs_amagold_config fc = sgs_amagold_config_default(0.1);
        fc.seed = 29;
        fc.mass = SGS_MASS_DENSE;
        if (sgs_amagold_workspace_len_for(&fc, D) > 256 ||
            check(sgs_amagold_init(&f, &fc, theta0, D, wsf, sgs_amagold_workspace_len_for(&fc, D), energy,
                                   gradient, NULL), "amagold_handoff init") ||
            check(sgs_amagold_set_step_size(&f, 0.37), "amagold_handoff step size") ||
            check(sgs_amagold_set_inverse_mass_dense(&f, kset, D * D), "amagold_handoff k") ||
            check(sgs_amagold_run(&f, N, out, N * D, &done, NULL), "amagold_handoff run"))
            return 1;
        print_rows("amagold_handoff", out, N, D);
    }

    /* The sgs.Svgd object: the system above started afresh, 10 plain iterations, then 40 with a
     * batch size doubling from 2 every 10 (sgs_svgd_run_scheduled); its particles, then the
     * full and the batch KSD² (p = 4, stream 0) of them with the gradients of seed 5. */
    {
        sgs_svgd o = {{0}};
        double g[P * D], k2[2];
        for (int i = 0; i < P; i++) {
            parts[i * D] = i / 10.0 - 0.5;
            parts[i * D + 1] = 1.0 - i / 5.0;
        }
        sgs_svgd_schedule sch = sgs_svgd_schedule_default(2, 10);
        sch.kind = SGS_SCHEDULE_DOUBLING;
        if (check(sgs_svgd_init(&o, &sc, parts, P, D, sws, wl, idx, P, NULL, gradients, NULL), "svgd_obj init") ||
            check(sgs_svgd_run(&o, 10, NULL), "svgd_obj run") ||
            check(sgs_svgd_run_scheduled(&o, 40, &sch, NULL), "svgd_obj scheduled"))
            return 1;
        print_rows("svgd_obj", parts, P, D);
        gradients(NULL, parts, P, D, 5, g);
        if (check(sgs_ksd_full(parts, P, D, g, 1.0, -0.5, &k2[0]), "ksd full") ||
            check(sgs_ksd_batch(parts, P, D, g, 4, 1.0, -0.5, 5, 0, idx, P, &k2[1]), "ksd batch"))
            return 1;
        print_rows("svgd_obj_ksd", k2, 1, 2);
    }

    /* Seed-derived noise: 5 normals and 5 uniforms for each of four seeds. */
    {
        const uint64_t seeds[4] = {1, 2, 123456789, UINT64_MAX};
        double z[5];
        for (int i = 0; i < 4; i++) {
            if (check(sgs_normal(seeds[i], z, 5), "normal")) return 1;
            print_rows("normal", z, 1, 5);
        }
        for (int i = 0; i < 4; i++) {
            if (check(sgs_uniform(seeds[i], z, 5), "uniform")) return 1;
            print_rows("uniform", z, 1, 5);
        }
    }

    /* TunaMH: seed 17, stream 2, step 0.15, 200 iterations from (1, −1); each iteration's
     * position ("tunamh") and log ratio, evaluations, kept, full pass, accepted ("tunamh_info").
     * Then without the exact part, χ = 3, seed 4, step 0.1, 100 iterations ("tunamh_chi…"). */
    for (int run = 0; run < 2; run++) {
        sgs_tunamh t = {{0}};
        sgs_tunamh_config tc = sgs_tunamh_config_default(run ? 0.1 : 0.15, TERMS, 1.2);
        tc.seed = run ? 4 : 17;
        tc.stream = run ? 0 : 2;
        tc.chi = run ? 3.0 : tc.chi;
        static double tws[4];
        if (check(sgs_tunamh_init(&t, &tc, theta0, D, tws, 4, run ? NULL : tunamh_exact, tunamh_diffs, NULL),
                  "tunamh init"))
            return 1;
        for (int k = 0; k < (run ? 100 : N); k++) {
            sgs_tunamh_info ti;
            double pos[D];
            if (check(sgs_tunamh_step(&t, &ti), "tunamh step") || check(sgs_tunamh_position(&t, pos, D), "tunamh position"))
                return 1;
            const double row[5] = {ti.log_ratio, (double)ti.evaluations, (double)ti.kept, (double)ti.full_pass,
                                   (double)ti.accepted};
            print_rows(run ? "tunamh_chi" : "tunamh", pos, 1, D);
            print_rows(run ? "tunamh_chi_info" : "tunamh_info", row, 1, 5);
        }
    }

    /* Minibatch: seed 123456789, n 1000, B 20 (0-based here). */
    uint64_t mb[20];
    if (check(sgs_minibatch(123456789u, 1000, mb, 20), "minibatch")) return 1;
    printf("minibatch");
    for (int i = 0; i < 20; i++) printf(" %" PRIu64, mb[i]);
    printf("\n");
    return 0;
}
