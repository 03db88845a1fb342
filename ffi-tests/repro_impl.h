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

/* A chain the plain reference build also runs (warmup = 0: the reference has no warm-up of the
 * current kind yet): accepted flag, log a, energy and position per step, then run rows. */
static void SFX(run_amagold)(const char *name, const model *m, const REAL *theta0, size_t d,
                             sgs_amagold_config cfg, size_t steps, size_t runs) {
    SFX(sgs_amagold) s = {{0}};
    REAL ws[6 * 3], out[3 * 200];
    CHECK(cfg.warmup == 0 && cfg.mass == SGS_MASS_UNIT && cfg.jitter_steps == 0);
    CHECK(SFX(sgs_amagold_workspace_len)(d) == 6 * d);
    CHECK(SFX(sgs_amagold_workspace_len_for)(&cfg, d) == 6 * d);
    CHECK(SFX(sgs_amagold_init)(&s, &cfg, theta0, d, ws, 6 * d, SFX(cb_energy), SFX(cb_gradient),
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
}

/* The workspace the header's rule gives, computed here independently of the library. */
static size_t SFX(ws_rule)(const sgs_amagold_config *c, size_t d) {
    size_t n = 6 * d;
    if (c->mass == SGS_MASS_DIAGONAL) n += 4 * d;
    if (c->mass == SGS_MASS_DENSE) n += 2 * d + d * (d + 1);
    if (c->warmup > 0 && c->approach) n += 12 * d;
    return n;
}

static void SFX(print_report)(const char *name, const char *what, const sgs_warmup_report *r) {
    printf("%s%s %s v=%u rs=%u it=%llu ai=%llu mu=%u rst=%u tf=%u tr=%u wi=%llu wd=%llu dv=%llu "
           "eps=%s ta=%s ar=%s z=%s em=%s esd=%s bfmi=%s cond=%s a0=%s a1=%s\n",
           name, SUFFIX, what, (unsigned)r->verdict, (unsigned)r->reasons,
           (unsigned long long)r->iterations, (unsigned long long)r->approach_iterations,
           (unsigned)r->metric_updates, (unsigned)r->restarts, (unsigned)r->energy_trend_falling,
           (unsigned)r->energy_trend_rising, (unsigned long long)r->window_iterations,
           (unsigned long long)r->window_divergences, (unsigned long long)r->divergences,
           hex64_or_nan(r->step_size), hex64_or_nan(r->target_accept), hex64_or_nan(r->accept_rate),
           hex64_or_nan(r->energy_trend_z), hex64_or_nan(r->energy_mean), hex64_or_nan(r->energy_sd),
           hex64_or_nan(r->bfmi), hex64_or_nan(r->condition_number),
           hex64_or_nan(r->approach_energy_start), hex64_or_nan(r->approach_energy_end));
}

static void SFX(print_info)(const char *name, const char *what, size_t k, const sgs_amagold_info *i) {
    printf("%s%s %s %zu o=%u acc=%u la=%s rho=%s u=%s ar=%s eps=%s it=%llu dv=%llu w=%u ph=%u st=%u",
           name, SUFFIX, what, k, (unsigned)i->outcome, (unsigned)i->accepted,
           hex64_or_nan(i->log_accept), hex64_or_nan(i->rho), hex64_or_nan(i->energy),
           hex64_or_nan(i->accept_rate), hex64_or_nan(i->step_size),
           (unsigned long long)i->iteration, (unsigned long long)i->divergences,
           (unsigned)i->warmup, (unsigned)i->phase, (unsigned)i->steps);
}

/* Applies the setters due before step `k` (`k = 0`: right after init). */
static void SFX(apply_setters)(SFX(sgs_amagold) *s, size_t d, size_t k, const setter *sets,
                               size_t nsets) {
    for (size_t i = 0; i < nsets; i++) {
        const setter *e = &sets[i];
        if (e->at != k) continue;
        if (e->step_size > 0.0) CHECK(SFX(sgs_amagold_set_step_size)(s, e->step_size) == SGS_OK);
        REAL km[9];
        size_t n = e->kind == SET_DENSE ? d * d : d;
        for (size_t j = 0; j < n; j++) km[j] = (REAL)e->k[j];
        if (e->kind == SET_DIAGONAL) CHECK(SFX(sgs_amagold_set_inverse_mass)(s, km, n) == SGS_OK);
        if (e->kind == SET_DENSE) CHECK(SFX(sgs_amagold_set_inverse_mass_dense)(s, km, n) == SGS_OK);
    }
}

/* A chain compared with the Rust core (every configuration: mass matrices, setters, jittered T,
 * warm-ups with the approach): every field of every step's info, the warm-up report after init,
 * half-way and at the end, run rows and the run's summary, and the inverse mass (diagonal and
 * d x d) with the step size at the end. */
static void SFX(run_amagold_core)(const char *name, const model *m, const REAL *theta0, size_t d,
                                  sgs_amagold_config cfg, size_t steps, size_t runs,
                                  const setter *sets, size_t nsets) {
    SFX(sgs_amagold) s = {{0}};
    REAL ws[160], out[3 * 200];
    size_t ws_len = SFX(sgs_amagold_workspace_len_for)(&cfg, d);
    CHECK(ws_len == SFX(ws_rule)(&cfg, d) && ws_len <= sizeof ws / sizeof ws[0]);
    CHECK(runs * d <= sizeof out / sizeof out[0]);
    CHECK(SFX(sgs_amagold_init)(&s, &cfg, theta0, d, ws, ws_len, SFX(cb_energy), SFX(cb_gradient),
                                (void *)m) == SGS_OK);
    sgs_warmup_report rep;
    CHECK(SFX(sgs_amagold_warmup_report)(&s, &rep) == SGS_OK);
    SFX(print_report)(name, "report0", &rep);
    for (size_t k = 0; k < steps; k++) {
        sgs_amagold_info info;
        REAL x[3];
        SFX(apply_setters)(&s, d, k, sets, nsets);
        CHECK(SFX(sgs_amagold_step)(&s, &info) == SGS_OK);
        CHECK(SFX(sgs_amagold_position)(&s, x, 3) == SGS_OK);
        SFX(print_info)(name, "s", k, &info);
        printf(" x=");
        SFX(print_x)(x, d);
        if (k == steps / 2) {
            CHECK(SFX(sgs_amagold_warmup_report)(&s, &rep) == SGS_OK);
            SFX(print_report)(name, "report1", &rep);
        }
    }
    size_t done = 0;
    sgs_amagold_run_summary sum;
    CHECK(SFX(sgs_amagold_run)(&s, runs, out, sizeof out / sizeof out[0], &done, &sum) == SGS_OK);
    CHECK(done == runs && sum.iterations == runs);
    for (size_t k = 0; k < runs; k++) {
        printf("%s%s r %zu x=", name, SUFFIX, k);
        SFX(print_x)(out + k * d, d);
    }
    printf("%s%s sum acc=%llu dv=%llu has=%u ", name, SUFFIX, (unsigned long long)sum.accepted,
           (unsigned long long)sum.divergences, (unsigned)sum.has_last);
    SFX(print_info)(name, "last", runs, &sum.last);
    printf("\n");
    uint64_t it;
    double u, eps;
    CHECK(SFX(sgs_amagold_iterations)(&s, &it) == SGS_OK);
    CHECK(SFX(sgs_amagold_energy)(&s, &u) == SGS_OK);
    CHECK(SFX(sgs_amagold_step_size)(&s, &eps) == SGS_OK);
    printf("%s%s end it=%llu u=%s\n", name, SUFFIX, (unsigned long long)it, hex64_or_nan(u));
    REAL k[3], kd[9];
    CHECK(SFX(sgs_amagold_inverse_mass)(&s, k, 3) == SGS_OK);
    CHECK(SFX(sgs_amagold_inverse_mass_dense)(&s, kd, 9) == SGS_OK);
    printf("%s%s mass k=", name, SUFFIX);
    for (size_t i = 0; i < d; i++) printf(" %s", hex_of(k[i]));
    printf(" eps=%s\n", hex64(eps));
    printf("%s%s dense K=", name, SUFFIX);
    SFX(print_x)(kd, d * d);
    CHECK(SFX(sgs_amagold_warmup_report)(&s, &rep) == SGS_OK);
    SFX(print_report)(name, "report", &rep);
}

/* k chains of one configuration on streams 0..k-1 through the whole warm-up, then
 * sgs_amagold_warmup_compare: each chain's own report and the compared ones. */
static void SFX(compare_amagold)(const char *name, const model *m, const REAL *theta0, size_t d,
                                 sgs_amagold_config cfg, size_t iters) {
    enum { K = 3 };
    SFX(sgs_amagold) s[K];
    const SFX(sgs_amagold) *ptrs[K];
    REAL ws[K][160];
    sgs_warmup_report rep[K];
    size_t ws_len = SFX(sgs_amagold_workspace_len_for)(&cfg, d);
    CHECK(ws_len <= sizeof ws[0] / sizeof ws[0][0]);
    memset(s, 0, sizeof s);
    for (size_t c = 0; c < K; c++) {
        sgs_amagold_config cc = cfg;
        cc.stream = c;
        CHECK(SFX(sgs_amagold_init)(&s[c], &cc, theta0, d, ws[c], ws_len, SFX(cb_energy),
                                    SFX(cb_gradient), (void *)m) == SGS_OK);
        for (size_t k = 0; k < iters; k++) CHECK(SFX(sgs_amagold_step)(&s[c], NULL) == SGS_OK);
        ptrs[c] = &s[c];
        CHECK(SFX(sgs_amagold_warmup_report)(&s[c], &rep[c]) == SGS_OK);
        char what[32];
        snprintf(what, sizeof what, "chain%zu own", c);
        SFX(print_report)(name, what, &rep[c]);
    }
    CHECK(SFX(sgs_amagold_warmup_compare)(ptrs, K, rep, K) == SGS_OK);
    for (size_t c = 0; c < K; c++) {
        char what[32];
        snprintf(what, sizeof what, "chain%zu compared", c);
        SFX(print_report)(name, what, &rep[c]);
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

/* The runs of the new AMAGOLD API, all compared with the Rust core (ffi-tests/reference.rs,
 * `amagold_new_runs`, the same list in the same order). */
static void SFX(amagold_new_runs)(void) {
    model c3 = {MODEL_C3, 0.5}, g3 = {MODEL_G3, 0.5};
    const REAL c30[3] = {(REAL)0.5, (REAL)-1.5, (REAL)1.0};
    const REAL far[3] = {(REAL)8.0, (REAL)-6.0, (REAL)10.0};
    const REAL g30[3] = {(REAL)0.5, (REAL)-0.5, (REAL)1.0};
    sgs_amagold_config a;

    /* Dense, no warm-up: epsilon and K (near the posterior covariance) set before the first step,
     * another K and epsilon mid-run, then a diagonal K through the diagonal setter. */
    a = sgs_amagold_config_default(0.2);
    a.mass = SGS_MASS_DENSE;
    a.variant = SGS_VARIANT_NON_REVERSIBLE;
    a.seed = 31;
    const setter dense_sets[3] = {
        {0, 0.45, SET_DENSE, {0.58, -0.33, -0.17, -0.33, 1.33, 0.67, -0.17, 0.67, 2.33}},
        {25, 0.3, SET_DENSE, {2.0, 0.3, 0.1, 0.3, 1.5, -0.2, 0.1, -0.2, 3.0}},
        {45, 0.0, SET_DIAGONAL, {0.7, 1.3, 2.4}},
    };
    SFX(run_amagold_core)("amagold_dense_set_c3", &c3, c30, 3, a, 60, 40, dense_sets, 3);

    /* Diagonal, no warm-up: the posterior variances set at once, others mid-run (the persistent
     * momentum is rescaled). */
    a = sgs_amagold_config_default(0.3);
    a.mass = SGS_MASS_DIAGONAL;
    a.variant = SGS_VARIANT_NON_REVERSIBLE;
    a.seed = 37;
    a.stream = 1;
    const setter diag_sets[2] = {
        {0, 0.5, SET_DIAGONAL, {1.0, 0.25, 4.0}},
        {30, 0.0, SET_DIAGONAL, {0.8, 0.3, 3.0}},
    };
    SFX(run_amagold_core)("amagold_diag_set_g3", &g3, g30, 3, a, 60, 40, diag_sets, 2);

    /* Jittered T: every iteration's number of inner steps drawn from 4..10. */
    a = sgs_amagold_config_default(0.25);
    a.steps = 7;
    a.jitter_steps = 1;
    a.seed = 5;
    SFX(run_amagold_core)("amagold_jitter_g3", &g3, g30, 3, a, 50, 50, NULL, 0);

    /* Warm-ups with the approach from a far start: unit, diagonal, dense; reversible and not. */
    a = sgs_amagold_config_default(0.1);
    a.warmup = 100;
    a.seed = 41;
    SFX(run_amagold_core)("amagold_warm_unit_c3", &c3, far, 3, a, 110, 20, NULL, 0);

    a = sgs_amagold_config_default(0.1);
    a.warmup = 300;
    a.mass = SGS_MASS_DIAGONAL;
    a.variant = SGS_VARIANT_NON_REVERSIBLE;
    a.seed = 43;
    SFX(run_amagold_core)("amagold_warm_diag_c3", &c3, far, 3, a, 300, 30, NULL, 0);

    a = sgs_amagold_config_default(0.1);
    a.warmup = 200;
    a.mass = SGS_MASS_DENSE;
    a.jitter_steps = 1;
    a.seed = 47;
    SFX(run_amagold_core)("amagold_warm_dense_c3", &c3, far, 3, a, 200, 30, NULL, 0);

    a = sgs_amagold_config_default(0.1);
    a.warmup = 120;
    a.mass = SGS_MASS_DENSE;
    a.variant = SGS_VARIANT_NON_REVERSIBLE;
    a.seed = 53;
    SFX(run_amagold_core)("amagold_warm_dense_nonrev_c3", &c3, far, 3, a, 130, 20, NULL, 0);

    /* Without the approach: the windows begin with the first iteration. */
    a = sgs_amagold_config_default(0.2);
    a.warmup = 60;
    a.mass = SGS_MASS_DIAGONAL;
    a.approach = 0;
    a.seed = 59;
    SFX(run_amagold_core)("amagold_warm_noapproach_g3", &g3, g30, 3, a, 70, 20, NULL, 0);

    /* A metric and step size given before the warm-up (kept instead of the curvature), and a step
     * size set during the approach (the dual averaging restarts from it). */
    a = sgs_amagold_config_default(0.1);
    a.warmup = 100;
    a.mass = SGS_MASS_DIAGONAL;
    a.seed = 61;
    const setter given_diag[2] = {
        {0, 0.4, SET_DIAGONAL, {0.6, 1.3, 2.3}},
        {3, 0.2, SET_NONE, {0.0}},
    };
    SFX(run_amagold_core)("amagold_warm_given_diag_c3", &c3, far, 3, a, 110, 20, given_diag, 2);
    a.mass = SGS_MASS_DENSE;
    a.seed = 67;
    const setter given_dense[1] = {
        {0, 0.4, SET_DENSE, {0.58, -0.33, -0.17, -0.33, 1.33, 0.67, -0.17, 0.67, 2.33}},
    };
    SFX(run_amagold_core)("amagold_warm_given_dense_c3", &c3, far, 3, a, 110, 20, given_dense, 1);

    /* Three chains' warm-ups compared (diagonal from a far start, dense near the mode). */
    a = sgs_amagold_config_default(0.1);
    a.warmup = 100;
    a.mass = SGS_MASS_DIAGONAL;
    a.seed = 71;
    SFX(compare_amagold)("amagold_compare_diag_c3", &c3, far, 3, a, 100);
    a.mass = SGS_MASS_DENSE;
    a.seed = 73;
    SFX(compare_amagold)("amagold_compare_dense_c3", &c3, c30, 3, a, 100);
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
    /* A warm-up (with the approach, the default): the Rust core, not the reference build (see
     * ffi-tests/reference.rs). */
    SFX(run_amagold_core)("amagold_nonrev_g3", &g3, g30, 3, a, 75, 75, NULL, 0);

    a = sgs_amagold_config_default(0.6);
    a.friction = 0.0;
    a.steps = 3;
    a.seed = 99;
    SFX(run_amagold)("amagold_hmc_g3", &g3, g30, 3, a, 40, 40);

    a = sgs_amagold_config_default(0.2);
    a.warmup = 60;
    a.mass = SGS_MASS_DIAGONAL;
    a.seed = 17;
    SFX(run_amagold_core)("amagold_mass_rev_g3", &g3, g30, 3, a, 75, 75, NULL, 0);

    a = sgs_amagold_config_default(0.25);
    a.variant = SGS_VARIANT_NON_REVERSIBLE;
    a.warmup = 30;
    a.mass = SGS_MASS_DIAGONAL;
    a.momentum_sd = 0.9;
    a.seed = 23;
    a.stream = 2;
    SFX(run_amagold_core)("amagold_mass_nonrev_g3", &g3, g30, 3, a, 50, 50, NULL, 0);

    SFX(amagold_new_runs)();

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

/* The scale option (docs/algorithms.md §2.7): as run_svgd, the fixed scales set after init when
 * the config asks for them. A function of its own (compared with ffi-tests/reference.rs's
 * scale_runs). */
static void SFX(run_svgd_scale)(const char *name, const model *m, size_t n, size_t d,
                                sgs_svgd_config cfg, const REAL *fixed, int batched,
                                size_t iterations) {
    REAL x[40 * 3], ws[4000];
    uint32_t idx[40];
    SFX(sgs_svgd) s = {{0}};
    CHECK(n <= 40 && d <= 3);
    for (size_t i = 0; i < n; i++)
        for (size_t l = 0; l < d; l++) x[i * d + l] = (REAL)(3.0 * (double)l + 1.0) * (REAL)svgd_start(i, l);
    size_t need = SFX(sgs_svgd_workspace_len)(n, d, &cfg);
    CHECK(need > 0 && need <= sizeof ws / sizeof ws[0]);
    CHECK(SFX(sgs_svgd_init)(&s, &cfg, x, n, d, ws, need, idx, n,
                             batched ? NULL : SFX(cb_gradient),
                             batched ? SFX(cb_gradients) : NULL, (void *)m) == SGS_OK);
    if (cfg.scale == SGS_SCALE_FIXED) CHECK(SFX(sgs_svgd_set_scale)(&s, fixed, d) == SGS_OK);
    for (size_t k = 0; k < iterations; k++) {
        sgs_svgd_info info;
        CHECK(SFX(sgs_svgd_step)(&s, &info) == SGS_OK);
        CHECK(info.iteration == k + 1);
        printf("%s%s it %zu h=%s x=", name, SUFFIX, k, hex64_or_nan(info.bandwidth));
        SFX(print_x)(x, n * d);
    }
    printf("%s%s end\n", name, SUFFIX);
}

static void SFX(scale_runs)(void) {
    model gf = {MODEL_G3FREE, 0.5}, dw = {MODEL_DW, 1.0};
    const REAL fixed[3] = {(REAL)0.5, (REAL)2.0, (REAL)1.5};
    sgs_svgd_config v = sgs_svgd_config_default(4, 0.1);
    v.bandwidth = 0.7;
    v.seed = 31;
    v.scale = SGS_SCALE_PARTICLES;
    SFX(run_svgd_scale)("svgd_scale_particles", &gf, 20, 3, v, fixed, 0, 30);

    v = sgs_svgd_config_default(5, 0.05);
    v.batching = SGS_BATCHING_WITH_REPLACEMENT;
    v.step_rule = SGS_STEP_RULE_CONSTANT;
    v.seed = 32;
    v.scale = SGS_SCALE_FIXED;
    SFX(run_svgd_scale)("svgd_scale_fixed_wr", &gf, 17, 3, v, fixed, 1, 20);

    v = sgs_svgd_config_default(12, 0.3);
    v.kernel = SGS_KERNEL_GAUSSIAN_MEDIAN;
    v.step_rule = SGS_STEP_RULE_DECAYING;
    v.seed = 33;
    v.scale = SGS_SCALE_PARTICLES;
    SFX(run_svgd_scale)("svgd_scale_full_median", &gf, 12, 3, v, fixed, 1, 20);

    v = sgs_svgd_config_default(3, 0.2);
    v.seed = 34;
    v.scale = SGS_SCALE_PARTICLES;
    v.ksd = SGS_KSD_BATCH;
    SFX(run_svgd_scale)("svgd_scale_dw_ksd", &dw, 30, 1, v, fixed, 0, 25);
}

/* TunaMH (0.6) over models.h's terms, compared with the library's Rust core in both types:
 * outcome, accepted flag, batch size, kept draws, full pass and log ratio per step, then run
 * rows and the counters. */
static int32_t SFX(cb_differences)(void *ud, const REAL *t, const REAL *p, size_t d,
                                   const uint64_t *idx, size_t count, double *out) {
    double tt[3] = {0.0, 0.0, 0.0}, pp[3] = {0.0, 0.0, 0.0};
    (void)ud;
    if (d > 3) return SGS_CB_ABORT;
    for (size_t i = 0; i < d; i++) {
        tt[i] = (double)t[i];
        pp[i] = (double)p[i];
    }
    terms_differences64(tt, pp, d, idx, count, out);
    return SGS_CB_OK;
}

static int32_t SFX(cb_exact)(void *ud, const REAL *t, const REAL *p, size_t d, double *out) {
    double tt[3] = {0.0, 0.0, 0.0}, pp[3] = {0.0, 0.0, 0.0};
    (void)ud;
    if (d > 3) return SGS_CB_ABORT;
    for (size_t i = 0; i < d; i++) {
        tt[i] = (double)t[i];
        pp[i] = (double)p[i];
    }
    *out = terms_exact64(tt, pp, d);
    return SGS_CB_OK;
}

static void SFX(run_tunamh)(const char *name, double chi, size_t steps, size_t runs) {
    SFX(sgs_tunamh) s = {{0}};
    REAL ws[6], out[3 * 100], theta0[3] = {(REAL)0.5, (REAL)-0.25, (REAL)1.0};
    sgs_tunamh_config cfg = sgs_tunamh_config_default(0.25, TERMS_N, TERMS_BOUND);
    cfg.chi = chi;
    cfg.seed = 5;
    CHECK(runs <= 100);
    CHECK(SFX(sgs_tunamh_init)(&s, &cfg, theta0, 3, ws, 6, SFX(cb_exact), SFX(cb_differences), NULL) ==
          SGS_OK);
    for (size_t k = 0; k < steps; k++) {
        sgs_tunamh_info info;
        REAL x[3];
        CHECK(SFX(sgs_tunamh_step)(&s, &info) == SGS_OK);
        CHECK(SFX(sgs_tunamh_position)(&s, x, 3) == SGS_OK);
        printf("%s%s s %zu o=%u acc=%u ev=%llu kept=%llu full=%u lr=%s x=", name, SUFFIX,
               k, (unsigned)info.outcome, (unsigned)info.accepted,
               (unsigned long long)info.evaluations, (unsigned long long)info.kept,
               (unsigned)info.full_pass, hex64_or_nan(info.log_ratio));
        SFX(print_x)(x, 3);
    }
    size_t done = 0;
    CHECK(SFX(sgs_tunamh_run)(&s, runs, out, sizeof out / sizeof out[0], &done, NULL) == SGS_OK);
    CHECK(done == runs);
    for (size_t k = 0; k < runs; k++) {
        printf("%s%s r %zu x=", name, SUFFIX, k);
        SFX(print_x)(out + k * 3, 3);
    }
    uint64_t it = 0, acc = 0, ev = 0;
    CHECK(SFX(sgs_tunamh_iterations)(&s, &it) == SGS_OK);
    CHECK(SFX(sgs_tunamh_accepted)(&s, &acc) == SGS_OK);
    CHECK(SFX(sgs_tunamh_evaluations)(&s, &ev) == SGS_OK);
    printf("%s%s end it=%llu acc=%llu ev=%llu\n", name, SUFFIX, (unsigned long long)it,
           (unsigned long long)acc, (unsigned long long)ev);
}

static void SFX(tunamh_runs)(void) {
    SFX(run_tunamh)("tunamh_minibatch", 0.02, 80, 80);
    SFX(run_tunamh)("tunamh_full", 1.0, 40, 40);
}
