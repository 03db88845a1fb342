/* One coordinate type's half of repro.c: included twice, with REAL = double / float and
 * SFX(name) appending nothing / _f32 to the library's names. */

static int32_t SFX(cb_energy)(void *ud, const REAL *x, size_t d, double *u) {
    double xs[3] = {0.0, 0.0, 0.0};
    if (d > 3) return SGS_CB_ABORT;
    for (size_t i = 0; i < d; i++) xs[i] = (double)x[i];
    return model_energy64((const model *)ud, xs, d, u);
}

static int32_t SFX(cb_gradient)(void *ud, const REAL *x, size_t d, uint64_t seed, REAL *g) {
    double xs[3] = {0.0, 0.0, 0.0}, gs[3] = {0.0, 0.0, 0.0};
    if (d > 3) return SGS_CB_ABORT;
    for (size_t i = 0; i < d; i++) xs[i] = (double)x[i];
    int32_t s = model_gradient64((const model *)ud, xs, d, seed, gs);
    if (s == 0)
        for (size_t i = 0; i < d; i++) g[i] = (REAL)gs[i];
    return s;
}

static int32_t SFX(cb_gradients)(void *ud, const REAL *xs, size_t n, size_t d, uint64_t seed,
                                 REAL *gs) {
    for (size_t i = 0; i < n; i++) {
        int32_t s = SFX(cb_gradient)(ud, xs + i * d, d, seed, gs + i * d);
        if (s != 0) return s;
    }
    return 0;
}

static void SFX(print_x)(const REAL *x, size_t d) {
    for (size_t i = 0; i < d; i++) printf(" %s", hex_of(x[i]));
    printf("\n");
}

static void SFX(run_amagold)(const char *name, const model *m, const REAL *theta0, size_t d,
                             sgs_amagold_config cfg, size_t steps, size_t runs) {
    SFX(sgs_amagold) s = {{0}};
    REAL ws[10 * 3], out[3 * 200];
    CHECK(SFX(sgs_amagold_workspace_len)(d) == 6 * d);
    CHECK(SFX(sgs_amagold_workspace_len_mass)(d) == 10 * d);
    size_t ws_len = cfg.adapt_mass ? SFX(sgs_amagold_workspace_len_mass)(d) : SFX(sgs_amagold_workspace_len)(d);
    CHECK(SFX(sgs_amagold_init)(&s, &cfg, theta0, d, ws, ws_len, SFX(cb_energy), SFX(cb_gradient),
                                (void *)m) == SGS_OK);
    for (size_t k = 0; k < steps; k++) {
        sgs_amagold_info info;
        REAL x[3];
        CHECK(SFX(sgs_amagold_step)(&s, &info) == SGS_OK);
        CHECK(SFX(sgs_amagold_position)(&s, x, 3) == SGS_OK);
        printf("%s%s s %zu acc=%u la=%s u=%s x=", name, SUFFIX, k, (unsigned)info.accepted,
               hex64_or_nan(info.log_accept), hex64_or_nan(info.energy));
        SFX(print_x)(x, d);
    }
    size_t done = 0;
    sgs_amagold_run_summary sum;
    CHECK(SFX(sgs_amagold_run)(&s, runs, out, sizeof out / sizeof out[0], &done, &sum) == SGS_OK);
    CHECK(done == runs && sum.iterations == runs);
    for (size_t k = 0; k < runs; k++) {
        printf("%s%s r %zu x=", name, SUFFIX, k);
        SFX(print_x)(out + k * d, d);
    }
    uint64_t it;
    double u;
    CHECK(SFX(sgs_amagold_iterations)(&s, &it) == SGS_OK);
    CHECK(SFX(sgs_amagold_energy)(&s, &u) == SGS_OK);
    printf("%s%s end it=%llu u=%s\n", name, SUFFIX, (unsigned long long)it, hex64_or_nan(u));
    if (cfg.adapt_mass) {
        REAL k[3];
        double eps;
        CHECK(SFX(sgs_amagold_inverse_mass)(&s, k, 3) == SGS_OK);
        CHECK(SFX(sgs_amagold_step_size)(&s, &eps) == SGS_OK);
        printf("%s%s mass k=", name, SUFFIX);
        for (size_t i = 0; i < d; i++) printf(" %s", hex_of(k[i]));
        printf(" eps=%s\n", hex64(eps));
    }
}

static void SFX(run_sghmc)(const char *name, const model *m, const REAL *theta0, size_t d,
                           sgs_sghmc_config cfg, size_t steps, size_t runs) {
    SFX(sgs_sghmc) s = {{0}};
    REAL ws[5 * 3], out[3 * 200];
    CHECK(SFX(sgs_sghmc_workspace_len)(d) == 5 * d);
    CHECK(SFX(sgs_sghmc_init)(&s, &cfg, theta0, d, ws, sizeof ws / sizeof ws[0], SFX(cb_gradient),
                              (void *)m) == SGS_OK);
    for (size_t k = 0; k < steps; k++) {
        sgs_sghmc_info info;
        REAL x[3];
        CHECK(SFX(sgs_sghmc_step)(&s, &info) == SGS_OK);
        CHECK(SFX(sgs_sghmc_position)(&s, x, 3) == SGS_OK);
        printf("%s%s s %zu rej=%u x=", name, SUFFIX, k,
               (unsigned)(info.outcome != SGS_OUTCOME_ACCEPTED));
        SFX(print_x)(x, d);
    }
    size_t done = 0;
    sgs_sghmc_run_summary sum;
    CHECK(SFX(sgs_sghmc_run)(&s, runs, out, sizeof out / sizeof out[0], &done, &sum) == SGS_OK);
    CHECK(done == runs && sum.iterations == runs && sum.has_last == 1);
    for (size_t k = 0; k < runs; k++) {
        printf("%s%s r %zu x=", name, SUFFIX, k);
        SFX(print_x)(out + k * d, d);
    }
    uint64_t it;
    CHECK(SFX(sgs_sghmc_iterations)(&s, &it) == SGS_OK);
    printf("%s%s end it=%llu\n", name, SUFFIX, (unsigned long long)it);
}

/* SGLD prints only when it is not the f64 reference's "run" rows: step by step. */
static void SFX(run_sgld)(const char *name, const model *m, const REAL *theta0, size_t d,
                          sgs_sgld_config cfg, size_t steps) {
    SFX(sgs_sgld) s = {{0}};
    REAL ws[3 * 3];
    CHECK(SFX(sgs_sgld_workspace_len)(d) == 3 * d);
    CHECK(SFX(sgs_sgld_init)(&s, &cfg, theta0, d, ws, sizeof ws / sizeof ws[0], SFX(cb_gradient),
                             (void *)m) == SGS_OK);
    for (size_t k = 0; k < steps; k++) {
        sgs_sgld_info info;
        REAL x[3];
        CHECK(SFX(sgs_sgld_step)(&s, &info) == SGS_OK);
        CHECK(SFX(sgs_sgld_position)(&s, x, 3) == SGS_OK);
        printf("%s%s s %zu rej=%u x=", name, SUFFIX, k,
               (unsigned)(info.outcome != SGS_OUTCOME_ACCEPTED));
        SFX(print_x)(x, d);
    }
}

/* SGHMC and SGLD with a fixed diagonal preconditioner `k`, set right after init through the
 * C setter; the k read back through the getter is printed last. */
static void SFX(run_sghmc_pre)(const char *name, const model *m, const REAL *theta0, size_t d,
                               sgs_sghmc_config cfg, const REAL *k, size_t steps, size_t runs) {
    SFX(sgs_sghmc) s = {{0}};
    REAL ws[7 * 3], out[3 * 200], kr[3];
    CHECK(d <= 3 && SFX(sgs_sghmc_workspace_len_for)(&cfg, d) == 7 * d);
    CHECK(SFX(sgs_sghmc_init)(&s, &cfg, theta0, d, ws, 7 * d, SFX(cb_gradient), (void *)m) == SGS_OK);
    CHECK(SFX(sgs_sghmc_set_inverse_mass)(&s, k, d) == SGS_OK);
    for (size_t i = 0; i < steps; i++) {
        sgs_sghmc_info info;
        REAL x[3];
        CHECK(SFX(sgs_sghmc_step)(&s, &info) == SGS_OK);
        CHECK(SFX(sgs_sghmc_position)(&s, x, 3) == SGS_OK);
        printf("%s%s s %zu rej=%u x=", name, SUFFIX, i, (unsigned)(info.outcome != SGS_OUTCOME_ACCEPTED));
        SFX(print_x)(x, d);
    }
    size_t done = 0;
    sgs_sghmc_run_summary sum;
    CHECK(SFX(sgs_sghmc_run)(&s, runs, out, sizeof out / sizeof out[0], &done, &sum) == SGS_OK);
    CHECK(done == runs && sum.iterations == runs && sum.has_last == 1);
    for (size_t i = 0; i < runs; i++) {
        printf("%s%s r %zu x=", name, SUFFIX, i);
        SFX(print_x)(out + i * d, d);
    }
    uint64_t it;
    CHECK(SFX(sgs_sghmc_iterations)(&s, &it) == SGS_OK);
    CHECK(SFX(sgs_sghmc_inverse_mass)(&s, kr, 3) == SGS_OK);
    printf("%s%s end it=%llu k=", name, SUFFIX, (unsigned long long)it);
    SFX(print_x)(kr, d);
}

static void SFX(run_sgld_pre)(const char *name, const model *m, const REAL *theta0, size_t d,
                              sgs_sgld_config cfg, const REAL *k, size_t steps) {
    SFX(sgs_sgld) s = {{0}};
    REAL ws[5 * 3], kr[3];
    CHECK(d <= 3 && SFX(sgs_sgld_workspace_len_for)(&cfg, d) == 5 * d);
    CHECK(SFX(sgs_sgld_init)(&s, &cfg, theta0, d, ws, 5 * d, SFX(cb_gradient), (void *)m) == SGS_OK);
    CHECK(SFX(sgs_sgld_set_inverse_mass)(&s, k, d) == SGS_OK);
    for (size_t i = 0; i < steps; i++) {
        sgs_sgld_info info;
        REAL x[3];
        CHECK(SFX(sgs_sgld_step)(&s, &info) == SGS_OK);
        CHECK(SFX(sgs_sgld_position)(&s, x, 3) == SGS_OK);
        printf("%s%s s %zu rej=%u x=", name, SUFFIX, i, (unsigned)(info.outcome != SGS_OUTCOME_ACCEPTED));
        SFX(print_x)(x, d);
    }
    CHECK(SFX(sgs_sgld_inverse_mass)(&s, kr, 3) == SGS_OK);
    printf("%s%s k=", name, SUFFIX);
    SFX(print_x)(kr, d);
}

static void SFX(run_svgd)(const char *name, const model *m, size_t n, size_t d,
                          sgs_svgd_config cfg, int batched, size_t iterations) {
    REAL x[40 * 3], ws[4000];
    uint32_t idx[40];
    SFX(sgs_svgd) s = {{0}};
    CHECK(n <= 40 && d <= 3);
    for (size_t i = 0; i < n; i++)
        for (size_t l = 0; l < d; l++) x[i * d + l] = (REAL)svgd_start(i, l);
    size_t need = SFX(sgs_svgd_workspace_len)(n, d, &cfg);
    CHECK(need > 0 && need <= sizeof ws / sizeof ws[0]);
    CHECK(SFX(sgs_svgd_index_len)(n) == n);
    CHECK(SFX(sgs_svgd_init)(&s, &cfg, x, n, d, ws, need, idx, n,
                             batched ? NULL : SFX(cb_gradient),
                             batched ? SFX(cb_gradients) : NULL, (void *)m) == SGS_OK);
    for (size_t k = 0; k < iterations; k++) {
        sgs_svgd_info info;
        CHECK(SFX(sgs_svgd_step)(&s, &info) == SGS_OK);
        CHECK(info.iteration == k + 1);
        printf("%s%s it %zu h=%s x=", name, SUFFIX, k, hex64_or_nan(info.bandwidth));
        SFX(print_x)(x, n * d);
    }
    uint64_t it;
    CHECK(SFX(sgs_svgd_iterations)(&s, &it) == SGS_OK);
    printf("%s%s end it=%llu\n", name, SUFFIX, (unsigned long long)it);
}

static void SFX(all_runs)(void) {
    model dw = {MODEL_DW, 1.0}, g3 = {MODEL_G3, 0.5};
    const REAL dw0[1] = {(REAL)-1.0};
    const REAL g30[3] = {(REAL)0.5, (REAL)-0.5, (REAL)1.0};

    sgs_amagold_config a = sgs_amagold_config_default(0.15);
    a.seed = 42;
    SFX(run_amagold)("amagold_rev_dw", &dw, dw0, 1, a, 75, 75);

    a = sgs_amagold_config_default(0.3);
    a.friction = 0.5;
    a.momentum_sd = 1.2;
    a.steps = 7;
    a.variant = SGS_VARIANT_NON_REVERSIBLE;
    a.warmup = 40;
    a.target_accept = 0.7;
    a.seed = 7;
    a.stream = 3;
    SFX(run_amagold)("amagold_nonrev_g3", &g3, g30, 3, a, 75, 75);

    a = sgs_amagold_config_default(0.6);
    a.friction = 0.0;
    a.steps = 3;
    a.seed = 99;
    SFX(run_amagold)("amagold_hmc_g3", &g3, g30, 3, a, 40, 40);

    a = sgs_amagold_config_default(0.2);
    a.warmup = 60;
    a.adapt_mass = 1;
    a.seed = 17;
    SFX(run_amagold)("amagold_mass_rev_g3", &g3, g30, 3, a, 75, 75);

    a = sgs_amagold_config_default(0.25);
    a.variant = SGS_VARIANT_NON_REVERSIBLE;
    a.warmup = 30;
    a.adapt_mass = 1;
    a.momentum_sd = 0.9;
    a.seed = 23;
    a.stream = 2;
    SFX(run_amagold)("amagold_mass_nonrev_g3", &g3, g30, 3, a, 50, 50);

    sgs_sghmc_config h = sgs_sghmc_config_default(0.1);
    h.friction = 0.3;
    h.steps = 5;
    h.seed = 11;
    h.stream = 1;
    SFX(run_sghmc)("sghmc_resample_g3", &g3, g30, 3, h, 75, 75);

    h = sgs_sghmc_config_default(0.05);
    h.friction = 0.0;
    h.momentum_sd = 0.8;
    h.steps = 4;
    h.resample_momentum = 0;
    h.seed = 5;
    h.stream = 2;
    SFX(run_sghmc)("sghmc_keep_dw", &dw, dw0, 1, h, 75, 75);

    sgs_sgld_config l = sgs_sgld_config_default(0.05);
    l.steps = 3;
    l.seed = 13;
    l.stream = 4;
    SFX(run_sgld)("sgld_g3", &g3, g30, 3, l, 60);
    l = sgs_sgld_config_default(0.2);
    l.seed = 21;
    SFX(run_sgld)("sgld_dw", &dw, dw0, 1, l, 60);

    /* The fixed diagonal preconditioner of SGHMC and SGLD, set through the C setter. */
    const REAL kp[3] = {(REAL)0.3, (REAL)4.0, (REAL)1.7};
    h = sgs_sghmc_config_default(0.08);
    h.mass = SGS_MASS_DIAGONAL;
    h.resample_momentum = 0;
    h.steps = 3;
    h.seed = 8;
    h.stream = 5;
    SFX(run_sghmc_pre)("sghmc_precond_keep_g3", &g3, g30, 3, h, kp, 60, 60);
    h.resample_momentum = 1;
    h.seed = 10;
    SFX(run_sghmc_pre)("sghmc_precond_resample_g3", &g3, g30, 3, h, kp, 40, 40);
    l = sgs_sgld_config_default(0.05);
    l.mass = SGS_MASS_DIAGONAL;
    l.steps = 2;
    l.seed = 9;
    SFX(run_sgld_pre)("sgld_precond_g3", &g3, g30, 3, l, kp, 60);

    model gf = {MODEL_G3FREE, 0.5};
    sgs_svgd_config v = sgs_svgd_config_default(4, 0.1);
    v.kernel = SGS_KERNEL_GAUSSIAN;
    v.bandwidth = 0.7;
    v.seed = 3;
    SFX(run_svgd)("rbm_svgd_wo_adagrad", &gf, 20, 3, v, 0, 30);

    v = sgs_svgd_config_default(5, 0.05);
    v.batching = SGS_BATCHING_WITH_REPLACEMENT;
    v.kernel = SGS_KERNEL_IMQ;
    v.step_rule = SGS_STEP_RULE_CONSTANT;
    v.seed = 4;
    v.stream = 1;
    SFX(run_svgd)("rbm_svgd_wr_imq", &gf, 17, 3, v, 1, 20);

    v = sgs_svgd_config_default(12, 0.3);
    v.kernel = SGS_KERNEL_GAUSSIAN_MEDIAN;
    v.step_rule = SGS_STEP_RULE_DECAYING;
    v.seed = 8;
    SFX(run_svgd)("svgd_full_median", &gf, 12, 3, v, 0, 20);

    v = sgs_svgd_config_default(3, 0.2);
    v.kernel = SGS_KERNEL_GAUSSIAN_MEDIAN;
    v.seed = 6;
    SFX(run_svgd)("rbm_svgd_dw", &dw, 30, 1, v, 1, 25);
}
