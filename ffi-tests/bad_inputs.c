/* The bad-input matrix: every documented misuse of the C API, each through the C ABI, checked for
 * its documented status, for no crash, and for leaving the sampler state (the bytes of the state
 * struct) and the caller's buffers unchanged -- or, for callbacks that abort mid-run, for leaving
 * the chain at its last accepted sample. Prints one line per case and "N passed, M failed". */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgsample.h"

static int passed, failed;

static void expect(const char *name, int ok, const char *detail) {
    if (ok) {
        passed++;
        printf("ok   %s\n", name);
    } else {
        failed++;
        printf("FAIL %s %s\n", name, detail ? detail : "");
    }
}

static void expect_status(const char *name, int32_t got, int32_t want, int unchanged) {
    char buf[160];
    snprintf(buf, sizeof buf, "(status %d \"%s\", want %d \"%s\"; state/buffers unchanged: %s)",
             (int)got, sgs_status_str(got), (int)want, sgs_status_str(want),
             unchanged ? "yes" : "NO");
    expect(name, got == want && unchanged, buf);
}

/* The call is evaluated before the condition (function arguments have no evaluation order). */
#define CASE(name, call, want, cond)              \
    do {                                          \
        int32_t st_ = (call);                     \
        expect_status((name), st_, (want), (cond)); \
    } while (0)

/* A model whose callbacks misbehave on demand. Call counters are 1-based and count every call,
 * the init's energy evaluation included. U = |x|^2 / 2, grad = x. */
typedef struct {
    long e_calls, g_calls;
    long e_abort, e_reject, e_nan, e_inf, e_other; /* energy call number that misbehaves */
    long g_abort, g_reject, g_nan;                 /* gradient call number that misbehaves */
} prog;

static int32_t prog_energy(void *ud, const double *x, size_t d, double *u) {
    prog *p = (prog *)ud;
    long k = ++p->e_calls;
    if (k == p->e_abort) return SGS_CB_ABORT;
    if (k == p->e_reject) return SGS_CB_REJECT;
    if (k == p->e_other) return -7;
    if (k == p->e_nan) { *u = NAN; return SGS_CB_OK; }
    if (k == p->e_inf) { *u = INFINITY; return SGS_CB_OK; }
    double s = 0.0;
    for (size_t i = 0; i < d; i++) s += x[i] * x[i];
    *u = 0.5 * s;
    return SGS_CB_OK;
}

static int32_t prog_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    prog *p = (prog *)ud;
    (void)seed;
    long k = ++p->g_calls;
    if (k == p->g_abort) return SGS_CB_ABORT;
    if (k == p->g_reject) return SGS_CB_REJECT;
    for (size_t i = 0; i < d; i++) g[i] = k == p->g_nan ? NAN : x[i];
    return SGS_CB_OK;
}

static int32_t prog_energy_f32(void *ud, const float *x, size_t d, double *u) {
    double xs[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < d && i < 4; i++) xs[i] = x[i];
    return prog_energy(ud, xs, d, u);
}

static int32_t prog_gradient_f32(void *ud, const float *x, size_t d, uint64_t seed, float *g) {
    double xs[4] = {0, 0, 0, 0}, gs[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < d && i < 4; i++) xs[i] = x[i];
    int32_t s = prog_gradient(ud, xs, d, seed, gs);
    for (size_t i = 0; i < d && i < 4; i++) g[i] = (float)gs[i];
    return s;
}

enum { D = 2, WS = 6 * D, WSH = 5 * D };
static const double THETA0[D] = {0.5, -0.25};

/* A valid chain to aim bad calls at, and its buffers' pristine copies. */
typedef struct {
    sgs_amagold s;
    double ws[WS];
    prog p;
    sgs_amagold saved;
    double ws_saved[WS];
} fixture;

static void fixture_init(fixture *f, sgs_amagold_config cfg) {
    memset(f, 0, sizeof *f);
    if (sgs_amagold_init(&f->s, &cfg, THETA0, D, f->ws, WS, prog_energy, prog_gradient, &f->p) != SGS_OK) {
        printf("FAIL fixture init\n");
        exit(1);
    }
    /* Two iterations so that the state is not the initial one. */
    sgs_amagold_step(&f->s, NULL);
    sgs_amagold_step(&f->s, NULL);
}

static void snap(fixture *f) {
    memcpy(&f->saved, &f->s, sizeof f->s);
    memcpy(f->ws_saved, f->ws, sizeof f->ws);
}

/* The state struct and the whole workspace are byte-for-byte as at the last snap(). */
static int same(const fixture *f) {
    return memcmp(&f->saved, &f->s, sizeof f->s) == 0 &&
           memcmp(f->ws_saved, f->ws, sizeof f->ws) == 0;
}

/* The chain's persistent part (state struct, position, momentum) is as at the last snap(); the
 * workspace's scratch vectors may differ after a step that started. */
static int same_chain(const fixture *f) {
    return memcmp(&f->saved, &f->s, sizeof f->s) == 0 &&
           memcmp(f->ws_saved, f->ws, D * sizeof(double)) == 0 &&
           memcmp(f->ws_saved + 2 * D, f->ws + 2 * D, D * sizeof(double)) == 0;
}

/* init with one field of the config changed must fail with `want` and leave a live chain and a
 * fresh workspace untouched. */
static void bad_config(const char *name, sgs_amagold_config cfg, int32_t want) {
    fixture f;
    fixture_init(&f, sgs_amagold_config_default(0.2));
    snap(&f);
    double ws2[WS];
    memset(ws2, 0xa5, sizeof ws2);
    double ws2_saved[WS];
    memcpy(ws2_saved, ws2, sizeof ws2);
    prog p2;
    memset(&p2, 0, sizeof p2);
    int32_t st = sgs_amagold_init(&f.s, &cfg, THETA0, D, ws2, WS, prog_energy, prog_gradient, &p2);
    CASE(name, st, want, same(&f) && memcmp(ws2, ws2_saved, sizeof ws2) == 0);
}

static void amagold_init_cases(void) {
    sgs_amagold_config c0 = sgs_amagold_config_default(0.2), c;
    fixture f;
    fixture_init(&f, c0);
    snap(&f);
    double ws2[WS];
    prog p2;
    memset(&p2, 0, sizeof p2);
    int32_t st;

    st = sgs_amagold_init(NULL, &c0, THETA0, D, ws2, WS, prog_energy, prog_gradient, &p2);
    CASE("init: state NULL", st, SGS_ERR_NULL_POINTER, same(&f));
    st = sgs_amagold_init(&f.s, NULL, THETA0, D, ws2, WS, prog_energy, prog_gradient, &p2);
    CASE("init: config NULL", st, SGS_ERR_NULL_POINTER, same(&f));
    st = sgs_amagold_init(&f.s, &c0, NULL, D, ws2, WS, prog_energy, prog_gradient, &p2);
    CASE("init: theta0 NULL", st, SGS_ERR_NULL_POINTER, same(&f));
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, NULL, WS, prog_energy, prog_gradient, &p2);
    CASE("init: workspace NULL", st, SGS_ERR_NULL_POINTER, same(&f));
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, ws2, WS, NULL, prog_gradient, &p2);
    CASE("init: energy callback NULL", st, SGS_ERR_NULL_POINTER, same(&f));
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, ws2, WS, prog_energy, NULL, &p2);
    CASE("init: gradient callback NULL", st, SGS_ERR_NULL_POINTER, same(&f));
    st = sgs_amagold_init(&f.s, &c0, THETA0, 0, ws2, WS, prog_energy, prog_gradient, &p2);
    CASE("init: d = 0", st, SGS_ERR_ZERO_DIMENSION, same(&f));
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, ws2, WS - 1, prog_energy, prog_gradient, &p2);
    CASE("init: workspace one short", st, SGS_ERR_WORKSPACE_TOO_SMALL, same(&f));
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, ws2, 0, prog_energy, prog_gradient, &p2);
    CASE("init: workspace length 0", st, SGS_ERR_WORKSPACE_TOO_SMALL, same(&f));
    st = sgs_amagold_init(&f.s, &c0, THETA0, (size_t)-1 / 4, ws2, WS, prog_energy, prog_gradient, &p2);
    CASE("init: d so large its bytes overflow", st, SGS_ERR_INVALID_ARGUMENT, same(&f));

    /* Misaligned and overlapping buffers. */
    static union { double d[WS + 2]; unsigned char b[(WS + 2) * 8]; } raw;
    st = sgs_amagold_init(&f.s, &c0, (const double *)(const void *)(raw.b + 1), D, ws2, WS,
                          prog_energy, prog_gradient, &p2);
    CASE("init: theta0 misaligned", st, SGS_ERR_INVALID_ARGUMENT, same(&f));
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, (double *)(void *)(raw.b + 4), WS, prog_energy,
                          prog_gradient, &p2);
    CASE("init: workspace misaligned", st, SGS_ERR_INVALID_ARGUMENT, same(&f));
    double ov[WS + D];
    memcpy(ov + WS - 1, THETA0, sizeof THETA0);
    st = sgs_amagold_init(&f.s, &c0, ov + WS - 1, D, ov, WS, prog_energy, prog_gradient, &p2);
    CASE("init: workspace overlaps theta0", st, SGS_ERR_INVALID_ARGUMENT, same(&f));
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, (double *)(void *)&f.s, WS, prog_energy,
                          prog_gradient, &p2);
    CASE("init: workspace overlaps the state", st, SGS_ERR_INVALID_ARGUMENT, same(&f));

    /* Hyperparameters. */
    c = c0; c.step_size = NAN; bad_config("init: step size NaN", c, SGS_ERR_INVALID_STEP_SIZE);
    c = c0; c.step_size = INFINITY; bad_config("init: step size +inf", c, SGS_ERR_INVALID_STEP_SIZE);
    c = c0; c.step_size = -0.1; bad_config("init: step size negative", c, SGS_ERR_INVALID_STEP_SIZE);
    c = c0; c.step_size = 0.0; bad_config("init: step size 0", c, SGS_ERR_INVALID_STEP_SIZE);
    c = c0; c.friction = -1.0; bad_config("init: friction negative", c, SGS_ERR_INVALID_FRICTION);
    c = c0; c.friction = INFINITY; bad_config("init: friction +inf", c, SGS_ERR_INVALID_FRICTION);
    c = c0; c.friction = NAN; bad_config("init: friction NaN", c, SGS_ERR_INVALID_FRICTION);
    c = c0; c.momentum_sd = 0.0; bad_config("init: momentum sd 0", c, SGS_ERR_INVALID_MOMENTUM_SCALE);
    c = c0; c.momentum_sd = NAN; bad_config("init: momentum sd NaN", c, SGS_ERR_INVALID_MOMENTUM_SCALE);
    c = c0; c.momentum_sd = -INFINITY; bad_config("init: momentum sd -inf", c, SGS_ERR_INVALID_MOMENTUM_SCALE);
    c = c0; c.steps = 0; bad_config("init: T = 0", c, SGS_ERR_INVALID_STEPS);
    c = c0; c.variant = 2; bad_config("init: variant 2", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.variant = 0xffffffffu; bad_config("init: variant 0xffffffff", c, SGS_ERR_INVALID_OPTION);
    /* Without the approach, so that the 6·d workspace fits (the workspace is checked first). */
    c = c0; c.warmup = 10; c.approach = 0; c.target_accept = 1.0;
    bad_config("init: target acceptance 1", c, SGS_ERR_INVALID_TARGET_ACCEPTANCE);
    c = c0; c.warmup = 10; c.approach = 0; c.target_accept = NAN;
    bad_config("init: target acceptance NaN", c, SGS_ERR_INVALID_TARGET_ACCEPTANCE);
    c = c0; c.warmup = 10; c.approach = 0; c.target_accept = 0.0;
    bad_config("init: target acceptance 0", c, SGS_ERR_INVALID_TARGET_ACCEPTANCE);

    /* Initial position and initial energy. */
    const double nan0[D] = {NAN, 0.0}, inf0[D] = {0.0, -INFINITY};
    st = sgs_amagold_init(&f.s, &c0, nan0, D, ws2, WS, prog_energy, prog_gradient, &p2);
    CASE("init: theta0 has NaN", st, SGS_ERR_INVALID_POSITION, same(&f));
    st = sgs_amagold_init(&f.s, &c0, inf0, D, ws2, WS, prog_energy, prog_gradient, &p2);
    CASE("init: theta0 has -inf", st, SGS_ERR_INVALID_POSITION, same(&f));
    prog pe;
    memset(&pe, 0, sizeof pe); pe.e_reject = 1;
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, ws2, WS, prog_energy, prog_gradient, &pe);
    CASE("init: energy REJECTs theta0", st, SGS_ERR_INITIAL_ENERGY_REJECTED, same(&f));
    memset(&pe, 0, sizeof pe); pe.e_nan = 1;
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, ws2, WS, prog_energy, prog_gradient, &pe);
    CASE("init: energy NaN at theta0", st, SGS_ERR_INITIAL_ENERGY_REJECTED, same(&f));
    memset(&pe, 0, sizeof pe); pe.e_inf = 1;
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, ws2, WS, prog_energy, prog_gradient, &pe);
    CASE("init: energy +inf at theta0", st, SGS_ERR_INITIAL_ENERGY_REJECTED, same(&f));
    memset(&pe, 0, sizeof pe); pe.e_abort = 1;
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, ws2, WS, prog_energy, prog_gradient, &pe);
    CASE("init: energy ABORTs", st, SGS_ERR_CALLBACK_ABORTED, same(&f));
    memset(&pe, 0, sizeof pe); pe.e_other = 1;
    st = sgs_amagold_init(&f.s, &c0, THETA0, D, ws2, WS, prog_energy, prog_gradient, &pe);
    CASE("init: energy returns -7 (= abort)", st, SGS_ERR_CALLBACK_ABORTED, same(&f));

    /* The chain that all these calls aimed at still works. */
    sgs_amagold_info info;
    expect("init failures left a usable chain",
           sgs_amagold_step(&f.s, &info) == SGS_OK && info.iteration == 3, NULL);
}

static void use_before_init_cases(void) {
    sgs_amagold z, zs;
    memset(&z, 0, sizeof z);
    memcpy(&zs, &z, sizeof z);
    double x[D], out[4 * D];
    size_t done = 99;
    uint64_t it;
    CASE("step before init", sgs_amagold_step(&z, NULL), SGS_ERR_NOT_INITIALISED,
                  memcmp(&z, &zs, sizeof z) == 0);
    CASE("run before init: nothing written", sgs_amagold_run(&z, 4, out, 4 * D, &done, NULL),
                  SGS_ERR_NOT_INITIALISED, memcmp(&z, &zs, sizeof z) == 0 && done == 99);
    CASE("position before init", sgs_amagold_position(&z, x, D), SGS_ERR_NOT_INITIALISED, 1);
    CASE("iterations before init", sgs_amagold_iterations(&z, &it), SGS_ERR_NOT_INITIALISED, 1);
    /* A state of another type (a cast in C) is caught by its tag. */
    fixture f;
    fixture_init(&f, sgs_amagold_config_default(0.2));
    snap(&f);
    CASE("f64 AMAGOLD state passed to an f32 function",
                  sgs_amagold_step_f32((sgs_amagold_f32 *)(void *)&f.s, NULL),
                  SGS_ERR_NOT_INITIALISED, same(&f));
    CASE("AMAGOLD state passed to an SGHMC function",
                  sgs_sghmc_step((sgs_sghmc *)(void *)&f.s, NULL), SGS_ERR_NOT_INITIALISED, same(&f));
}

static void amagold_call_cases(void) {
    fixture f;
    fixture_init(&f, sgs_amagold_config_default(0.2));
    snap(&f);
    double out[8 * D], x[D];
    size_t done = 99;
    double u;
    uint64_t it;
    static union { double d[4]; unsigned char b[32]; } raw;

    CASE("step: state NULL", sgs_amagold_step(NULL, NULL), SGS_ERR_NULL_POINTER, same(&f));
    CASE("step: info misaligned",
                  sgs_amagold_step(&f.s, (sgs_amagold_info *)(void *)(raw.b + 2)),
                  SGS_ERR_INVALID_ARGUMENT, same(&f));
    done = 99;
    CASE("run: out NULL with n > 0, nothing written", sgs_amagold_run(&f.s, 3, NULL, 3 * D, &done, NULL),
                  SGS_ERR_NULL_POINTER, same(&f) && done == 99);
    CASE("run: out one element short", sgs_amagold_run(&f.s, 4, out, 4 * D - 1, &done, NULL),
                  SGS_ERR_OUTPUT_TOO_SMALL, same(&f) && done == 0);
    CASE("run: n * d overflows", sgs_amagold_run(&f.s, (size_t)-1, out, 8 * D, &done, NULL),
                  SGS_ERR_INVALID_ARGUMENT, same(&f) && done == 0);
    CASE("run: out overlaps the workspace", sgs_amagold_run(&f.s, 1, f.ws + 1, D, &done, NULL),
                  SGS_ERR_INVALID_ARGUMENT, same(&f));
    CASE("run: n = 0 with out NULL is fine", sgs_amagold_run(&f.s, 0, NULL, 0, &done, NULL),
                  SGS_OK, same(&f) && done == 0);
    CASE("position: out NULL", sgs_amagold_position(&f.s, NULL, D), SGS_ERR_NULL_POINTER, same(&f));
    CASE("position: out_len < d", sgs_amagold_position(&f.s, x, D - 1), SGS_ERR_OUTPUT_TOO_SMALL,
                  same(&f));
    CASE("momentum: out misaligned",
                  sgs_amagold_momentum(&f.s, (double *)(void *)(raw.b + 1), D), SGS_ERR_INVALID_ARGUMENT,
                  same(&f));
    CASE("energy: out NULL", sgs_amagold_energy(&f.s, NULL), SGS_ERR_NULL_POINTER, same(&f));
    CASE("energy: state NULL", sgs_amagold_energy(NULL, &u), SGS_ERR_NULL_POINTER, same(&f));
    CASE("iterations: fine", sgs_amagold_iterations(&f.s, &it), SGS_OK, same(&f) && it == 2);
}

/* A chain with a faulty callback at a given call, and a fault-free twin with the same seed: the
 * faulty step must either fail and leave the chain as it was (then stepping on, with the fault
 * spent, must reproduce the twin exactly), or succeed with the documented outcome. */
static void callback_cases(void) {
    sgs_amagold_config c = sgs_amagold_config_default(0.2);
    c.steps = 4;
    struct {
        const char *name;
        int which; /* 0 grad abort, 1 energy abort, 2 grad other */
        long at;   /* counted from the first call of the faulty step */
    } aborts[] = {
        {"step: gradient ABORTs at inner step 1", 0, 1},
        {"step: gradient ABORTs at inner step 3", 0, 3},
        {"step: gradient ABORTs at the last inner step", 0, 4},
        {"step: energy ABORTs at the end of the trajectory", 1, 1},
    };
    for (size_t k = 0; k < sizeof aborts / sizeof aborts[0]; k++) {
        for (uint32_t variant = 0; variant < 2; variant++) {
            c.variant = variant;
            fixture f, twin;
            fixture_init(&f, c);
            fixture_init(&twin, c);
            snap(&f);
            if (aborts[k].which == 0) f.p.g_abort = f.p.g_calls + aborts[k].at;
            else f.p.e_abort = f.p.e_calls + aborts[k].at;
            int32_t st = sgs_amagold_step(&f.s, NULL);
            int unchanged = same_chain(&f);
            /* Retry: the fault is spent; the retried step and 5 more must equal the twin's. */
            int ok = 1;
            for (int i = 0; i < 6; i++) {
                sgs_amagold_info a, b;
                ok &= sgs_amagold_step(&f.s, &a) == SGS_OK && sgs_amagold_step(&twin.s, &b) == SGS_OK;
                ok &= memcmp(&a, &b, sizeof a) == 0;
            }
            double x1[D], x2[D];
            sgs_amagold_position(&f.s, x1, D);
            sgs_amagold_position(&twin.s, x2, D);
            ok &= memcmp(x1, x2, sizeof x1) == 0;
            char name[160];
            snprintf(name, sizeof name, "%s (%s)", aborts[k].name, variant ? "non-reversible" : "reversible");
            CASE(name, st, SGS_ERR_CALLBACK_ABORTED, unchanged && ok);
        }
    }

    /* Rejections and divergences are outcomes, not errors: the chain stays put. */
    struct {
        const char *name;
        int which; /* 0 grad reject, 1 energy reject, 2 energy NaN, 3 energy inf, 4 grad NaN */
        uint32_t outcome;
    } rej[] = {
        {"step: gradient REJECTs -> out of domain", 0, SGS_OUTCOME_OUT_OF_DOMAIN},
        {"step: energy REJECTs -> out of domain", 1, SGS_OUTCOME_OUT_OF_DOMAIN},
        {"step: energy NaN -> divergent", 2, SGS_OUTCOME_DIVERGENT},
        {"step: energy +inf -> divergent", 3, SGS_OUTCOME_DIVERGENT},
        {"step: gradient NaN -> divergent", 4, SGS_OUTCOME_DIVERGENT},
    };
    c.variant = SGS_VARIANT_REVERSIBLE;
    for (size_t k = 0; k < sizeof rej / sizeof rej[0]; k++) {
        fixture f;
        fixture_init(&f, c);
        snap(&f);
        long g = f.p.g_calls + 2, e = f.p.e_calls + 1;
        switch (rej[k].which) {
        case 0: f.p.g_reject = g; break;
        case 1: f.p.e_reject = e; break;
        case 2: f.p.e_nan = e; break;
        case 3: f.p.e_inf = e; break;
        default: f.p.g_nan = g; break;
        }
        uint64_t div0 = 0, div1 = 0;
        double x[D], u0 = 0.0, u1 = 1.0;
        sgs_amagold_divergences(&f.s, &div0);
        sgs_amagold_energy(&f.s, &u0);
        sgs_amagold_info info;
        int32_t st = sgs_amagold_step(&f.s, &info);
        sgs_amagold_divergences(&f.s, &div1);
        sgs_amagold_position(&f.s, x, D);
        sgs_amagold_energy(&f.s, &u1);
        int stayed = memcmp(x, f.ws_saved, sizeof x) == 0 && info.accepted == 0 &&
                     info.outcome == rej[k].outcome && info.iteration == 3 &&
                     div1 == div0 + (rej[k].outcome == SGS_OUTCOME_DIVERGENT) && u1 == u0;
        CASE(rej[k].name, st, SGS_OK, stayed);
    }

    /* run: an abort at iteration 5 leaves 4 rows written and the chain at row 4's state. */
    fixture f;
    fixture_init(&f, c);
    f.p.e_abort = f.p.e_calls + 5;
    double out[10 * D], x[D];
    size_t done = 0;
    sgs_amagold_run_summary sum;
    uint64_t it;
    int32_t st = sgs_amagold_run(&f.s, 10, out, 10 * D, &done, &sum);
    sgs_amagold_position(&f.s, x, D);
    sgs_amagold_iterations(&f.s, &it);
    CASE("run: energy ABORTs at iteration 5 -> 4 rows, chain at row 4", st,
                  SGS_ERR_CALLBACK_ABORTED,
                  done == 4 && sum.iterations == 4 && sum.has_last == 1 && it == 6 && memcmp(x, out + 3 * D, sizeof x) == 0);
}

static int32_t sg_grad(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    return prog_gradient(ud, x, d, seed, g);
}

static void sghmc_cases(void) {
    sgs_sghmc_config c0 = sgs_sghmc_config_default(0.1), c;
    sgs_sghmc s, saved;
    double ws[WSH], ws_saved[WSH], ws2[WSH];
    prog p;
    memset(&s, 0, sizeof s);
    memset(&p, 0, sizeof p);
    c0.steps = 4;
    if (sgs_sghmc_init(&s, &c0, THETA0, D, ws, WSH, sg_grad, &p) != SGS_OK) {
        printf("FAIL sghmc fixture\n");
        exit(1);
    }
    sgs_sghmc_step(&s, NULL);
    memcpy(&saved, &s, sizeof s);
    memcpy(ws_saved, ws, sizeof ws);
#define SAME (memcmp(&saved, &s, sizeof s) == 0 && memcmp(ws_saved, ws, sizeof ws) == 0)
    int32_t st;
    c = c0; c.friction = 10.0; /* eps * friction = 1 */
    st = sgs_sghmc_init(&s, &c, THETA0, D, ws2, WSH, sg_grad, &p);
    CASE("sghmc init: step size x friction >= 1", st, SGS_ERR_INVALID_FRICTION, SAME);
    c = c0; c.resample_momentum = 2;
    st = sgs_sghmc_init(&s, &c, THETA0, D, ws2, WSH, sg_grad, &p);
    CASE("sghmc init: resample_momentum 2", st, SGS_ERR_INVALID_OPTION, SAME);
    c = c0; c.step_size = -INFINITY;
    st = sgs_sghmc_init(&s, &c, THETA0, D, ws2, WSH, sg_grad, &p);
    CASE("sghmc init: step size -inf", st, SGS_ERR_INVALID_STEP_SIZE, SAME);
    c = c0; c.steps = 0;
    st = sgs_sghmc_init(&s, &c, THETA0, D, ws2, WSH, sg_grad, &p);
    CASE("sghmc init: T = 0", st, SGS_ERR_INVALID_STEPS, SAME);
    st = sgs_sghmc_init(&s, &c0, THETA0, D, ws2, WSH, NULL, &p);
    CASE("sghmc init: gradient NULL", st, SGS_ERR_NULL_POINTER, SAME);
    st = sgs_sghmc_init(&s, &c0, THETA0, D, ws2, 4 * D, sg_grad, &p);
    CASE("sghmc init: workspace 4d < 5d", st, SGS_ERR_WORKSPACE_TOO_SMALL, SAME);

    p.g_abort = p.g_calls + 3;
    st = sgs_sghmc_step(&s, NULL);
    int kept = memcmp(&saved, &s, sizeof s) == 0 && memcmp(ws_saved, ws, D * sizeof(double)) == 0 &&
               memcmp(ws_saved + 2 * D, ws + 2 * D, D * sizeof(double)) == 0;
    CASE("sghmc step: gradient ABORTs at inner step 3", st, SGS_ERR_CALLBACK_ABORTED, kept);

    p.g_reject = p.g_calls + 2;
    sgs_sghmc_info info;
    double x[D];
    st = sgs_sghmc_step(&s, &info);
    sgs_sghmc_position(&s, x, D);
    CASE("sghmc step: gradient REJECTs -> iteration discarded", st, SGS_OK,
                  info.outcome == SGS_OUTCOME_OUT_OF_DOMAIN && info.iteration == 2 && memcmp(x, ws_saved, sizeof x) == 0);

    double out[3 * D];
    size_t done = 7;
    sgs_sghmc_run_summary sum;
    memset(&sum, 7, sizeof sum);
    memcpy(&saved, &s, sizeof s);
    memcpy(ws_saved, ws, sizeof ws);
    st = sgs_sghmc_run(&s, 3, out, 3 * D - 1, &done, &sum);
    CASE("sghmc run: out too small", st, SGS_ERR_OUTPUT_TOO_SMALL,
         SAME && done == 0 && sum.iterations == 0 && sum.has_last == 0);
#undef SAME
}

static void minibatch_cases(void) {
    uint64_t out[4] = {11, 22, 33, 44};
    static union { uint64_t u[3]; unsigned char b[24]; } raw;
    CASE("minibatch: out NULL", sgs_minibatch(1, 10, NULL, 4), SGS_ERR_NULL_POINTER, 1);
    CASE("minibatch: len > n", sgs_minibatch(1, 3, out, 4), SGS_ERR_INVALID_MINIBATCH,
                  out[0] == 11 && out[3] == 44);
    CASE("minibatch: n = 0", sgs_minibatch(1, 0, out, 0), SGS_ERR_INVALID_MINIBATCH, out[0] == 11);
    CASE("minibatch: out misaligned", sgs_minibatch(1, 10, (uint64_t *)(void *)(raw.b + 4), 2),
                  SGS_ERR_INVALID_ARGUMENT, 1);
    int distinct = sgs_minibatch(9, 4, out, 4) == SGS_OK;
    for (int i = 0; i < 4; i++)
        for (int j = 0; j < i; j++) distinct &= out[i] != out[j] && out[i] < 4;
    expect("minibatch: len = n gives a permutation", distinct, NULL);
}

static void f32_cases(void) {
    sgs_amagold_f32 s, saved;
    float ws[WS], ws_saved[WS];
    const float th[D] = {0.5f, -0.25f}, thn[D] = {0.5f, NAN};
    prog p;
    memset(&s, 0, sizeof s);
    memset(&p, 0, sizeof p);
    sgs_amagold_config c0 = sgs_amagold_config_default(0.2), c;
    if (sgs_amagold_init_f32(&s, &c0, th, D, ws, WS, prog_energy_f32, prog_gradient_f32, &p) != SGS_OK) {
        printf("FAIL f32 fixture\n");
        exit(1);
    }
    memcpy(&saved, &s, sizeof s);
    memcpy(ws_saved, ws, sizeof ws);
    float ws2[WS];
#define SAME (memcmp(&saved, &s, sizeof s) == 0 && memcmp(ws_saved, ws, sizeof ws) == 0)
    c = c0; c.step_size = NAN;
    CASE("f32 init: step size NaN",
                  sgs_amagold_init_f32(&s, &c, th, D, ws2, WS, prog_energy_f32, prog_gradient_f32, &p),
                  SGS_ERR_INVALID_STEP_SIZE, SAME);
    CASE("f32 init: theta0 has NaN",
                  sgs_amagold_init_f32(&s, &c0, thn, D, ws2, WS, prog_energy_f32, prog_gradient_f32, &p),
                  SGS_ERR_INVALID_POSITION, SAME);
    CASE("f32 init: workspace short",
                  sgs_amagold_init_f32(&s, &c0, th, D, ws2, WS - 1, prog_energy_f32, prog_gradient_f32, &p),
                  SGS_ERR_WORKSPACE_TOO_SMALL, SAME);
    p.e_abort = p.e_calls + 1;
    int32_t st = sgs_amagold_step_f32(&s, NULL);
    int kept = memcmp(&saved, &s, sizeof s) == 0 && memcmp(ws_saved, ws, D * sizeof(float)) == 0;
    CASE("f32 step: energy ABORTs", st, SGS_ERR_CALLBACK_ABORTED, kept);
#undef SAME
}

static void status_and_version_cases(void) {
    int ok = 1;
    /* SGS_ERR_INVALID_BOUND: the last code (0.6) */
    for (int32_t a = 0; a <= SGS_ERR_INVALID_BOUND; a++) {
        const char *sa = sgs_status_str(a);
        ok &= sa != NULL && strcmp(sa, "unknown status") != 0;
        for (int32_t b = 0; b < a; b++) ok &= strcmp(sa, sgs_status_str(b)) != 0;
    }
    expect("status strings: one distinct static string per code", ok, NULL);
    expect("status strings: unknown codes",
           strcmp(sgs_status_str(-1), "unknown status") == 0 &&
               strcmp(sgs_status_str(SGS_ERR_INVALID_BOUND + 1), "unknown status") == 0 &&
               strcmp(sgs_status_str(INT32_MIN), "unknown status") == 0,
           NULL);
#define ALIGNOF(T) offsetof(struct { char c; T t; }, t)
    expect("state size and alignment queries == sizeof/alignof of the header's structs",
           sgs_amagold_state_size() == sizeof(sgs_amagold) && sgs_amagold_state_align() == ALIGNOF(sgs_amagold) &&
               sgs_amagold_state_size_f32() == sizeof(sgs_amagold_f32) &&
               sgs_amagold_state_align_f32() == ALIGNOF(sgs_amagold_f32) &&
               sgs_sghmc_state_size() == sizeof(sgs_sghmc) && sgs_sghmc_state_align() == ALIGNOF(sgs_sghmc) &&
               sgs_sghmc_state_size_f32() == sizeof(sgs_sghmc_f32) &&
               sgs_sghmc_state_align_f32() == ALIGNOF(sgs_sghmc_f32) &&
               sgs_sgld_state_size() == sizeof(sgs_sgld) && sgs_sgld_state_align() == ALIGNOF(sgs_sgld) &&
               sgs_sgld_state_size_f32() == sizeof(sgs_sgld_f32) &&
               sgs_sgld_state_align_f32() == ALIGNOF(sgs_sgld_f32) &&
               sgs_svgd_state_size() == sizeof(sgs_svgd) && sgs_svgd_state_align() == ALIGNOF(sgs_svgd) &&
               sgs_svgd_state_size_f32() == sizeof(sgs_svgd_f32) &&
               sgs_svgd_state_align_f32() == ALIGNOF(sgs_svgd_f32) &&
               sgs_tunamh_state_size() == sizeof(sgs_tunamh) && sgs_tunamh_state_align() == ALIGNOF(sgs_tunamh) &&
               sgs_tunamh_state_size_f32() == sizeof(sgs_tunamh_f32) &&
               sgs_tunamh_state_align_f32() == ALIGNOF(sgs_tunamh_f32),
           NULL);
#undef ALIGNOF
    char v[64];
    snprintf(v, sizeof v, "%d.%d.%d", SGS_VERSION_MAJOR, SGS_VERSION_MINOR, SGS_VERSION_PATCH);
    expect("version: sgs_version() == SGS_VERSION_STRING == MAJOR.MINOR.PATCH",
           strcmp(sgs_version(), SGS_VERSION_STRING) == 0 && strcmp(v, SGS_VERSION_STRING) == 0, NULL);
    expect("workspace queries", sgs_amagold_workspace_len(3) == 18 && sgs_sghmc_workspace_len_f32(3) == 15 &&
                                    sgs_amagold_workspace_len(0) == 0 &&
                                    sgs_amagold_workspace_len((size_t)-1) == (size_t)-1,
           NULL);
}

/* SVGD: U = |x|^2/2 per particle through the same misbehaving model (gradient calls counted per
 * particle with the per-point callback). */
enum { SN = 8, SD = 2 };

typedef struct {
    sgs_svgd s, saved;
    double x[SN * SD], x_saved[SN * SD];
    double ws[512], ws_saved[512];
    uint32_t idx[SN], idx_saved[SN];
    size_t ws_len;
    prog p;
} sfix;

static void sfix_init(sfix *f, sgs_svgd_config cfg) {
    memset(f, 0, sizeof *f);
    for (size_t k = 0; k < SN * SD; k++) f->x[k] = (double)k / 7.0 - 0.5;
    f->ws_len = sgs_svgd_workspace_len(SN, SD, &cfg);
    if (f->ws_len == 0 || f->ws_len > 512 ||
        sgs_svgd_init(&f->s, &cfg, f->x, SN, SD, f->ws, f->ws_len, f->idx, SN, prog_gradient, NULL,
                      &f->p) != SGS_OK) {
        printf("FAIL svgd fixture\n");
        exit(1);
    }
    sgs_svgd_step(&f->s, NULL);
}

static void ssnap(sfix *f) {
    memcpy(&f->saved, &f->s, sizeof f->s);
    memcpy(f->x_saved, f->x, sizeof f->x);
    memcpy(f->ws_saved, f->ws, sizeof f->ws);
    memcpy(f->idx_saved, f->idx, sizeof f->idx);
}

/* State struct, particles, workspace and index all byte-identical to the last ssnap(). */
static int ssame(const sfix *f) {
    return memcmp(&f->saved, &f->s, sizeof f->s) == 0 && memcmp(f->x_saved, f->x, sizeof f->x) == 0 &&
           memcmp(f->ws_saved, f->ws, sizeof f->ws) == 0 &&
           memcmp(f->idx_saved, f->idx, sizeof f->idx) == 0;
}

/* The system's persistent part (state struct, particles, and the AdaGrad history, which follows
 * the gradients and forces in the workspace: N*d each without replacement, p*d with) is as at
 * the last ssnap(). */
/* A fresh system under `*c` with the particles spread evenly, coordinate k at scale·(k − 7.5);
 * returns init's status. */
static int32_t sfix_init_spread(sfix *f, const sgs_svgd_config *c, double scale) {
    memset(f, 0, sizeof *f);
    for (size_t k = 0; k < SN * SD; k++) f->x[k] = scale * ((double)k - 7.5);
    f->ws_len = sgs_svgd_workspace_len(SN, SD, c);
    return sgs_svgd_init(&f->s, c, f->x, SN, SD, f->ws, f->ws_len, f->idx, SN, prog_gradient, NULL, &f->p);
}

static int ssame_system(const sfix *f, const sgs_svgd_config *c) {
    size_t rows = c->batching == SGS_BATCHING_WITH_REPLACEMENT ? (size_t)c->batch_size : SN;
    size_t hist = c->step_rule == SGS_STEP_RULE_ADAGRAD ? SN * SD : 0;
    return memcmp(&f->saved, &f->s, sizeof f->s) == 0 && memcmp(f->x_saved, f->x, sizeof f->x) == 0 &&
           memcmp(f->ws_saved + 2 * rows * SD, f->ws + 2 * rows * SD, hist * sizeof(double)) == 0;
}

static void svgd_bad_config(const char *name, sgs_svgd_config c, int32_t want) {
    sfix f;
    sfix_init(&f, sgs_svgd_config_default(4, 0.1));
    ssnap(&f);
    double x2[SN * SD], ws2[512];
    uint32_t idx2[SN];
    for (size_t k = 0; k < SN * SD; k++) x2[k] = 0.25 * (double)k;
    memset(ws2, 0x5a, sizeof ws2);
    memset(idx2, 0x5a, sizeof idx2);
    double x2s[SN * SD], ws2s[512];
    uint32_t idx2s[SN];
    memcpy(x2s, x2, sizeof x2);
    memcpy(ws2s, ws2, sizeof ws2);
    memcpy(idx2s, idx2, sizeof idx2);
    CASE(name, sgs_svgd_init(&f.s, &c, x2, SN, SD, ws2, 512, idx2, SN, prog_gradient, NULL, &f.p), want,
         ssame(&f) && memcmp(x2, x2s, sizeof x2) == 0 && memcmp(ws2, ws2s, sizeof ws2) == 0 &&
             memcmp(idx2, idx2s, sizeof idx2) == 0);
}

static void svgd_cases(void) {
    sgs_svgd_config c0 = sgs_svgd_config_default(4, 0.1), c;
    c = c0; c.batch_size = 1; svgd_bad_config("svgd init: p = 1", c, SGS_ERR_INVALID_BATCH_SIZE);
    c = c0; c.batch_size = 0; svgd_bad_config("svgd init: p = 0", c, SGS_ERR_INVALID_BATCH_SIZE);
    c = c0; c.batch_size = SN + 1; svgd_bad_config("svgd init: p = N + 1", c, SGS_ERR_INVALID_BATCH_SIZE);
    c = c0; c.batch_size = UINT64_MAX; svgd_bad_config("svgd init: p = 2^64 - 1", c, SGS_ERR_INVALID_BATCH_SIZE);
    c = c0; c.batching = 2; svgd_bad_config("svgd init: batching 2", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.kernel = 3; svgd_bad_config("svgd init: kernel 3", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.step_rule = 7; svgd_bad_config("svgd init: step rule 7", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.reserved = 1; svgd_bad_config("svgd init: reserved != 0", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.kernel = SGS_KERNEL_GAUSSIAN; c.bandwidth = NAN;
    svgd_bad_config("svgd init: bandwidth NaN", c, SGS_ERR_INVALID_BANDWIDTH);
    c = c0; c.kernel = SGS_KERNEL_GAUSSIAN; c.bandwidth = -1.0;
    svgd_bad_config("svgd init: bandwidth negative", c, SGS_ERR_INVALID_BANDWIDTH);
    c = c0; c.kernel = SGS_KERNEL_GAUSSIAN; c.bandwidth = 0.0;
    svgd_bad_config("svgd init: bandwidth 0", c, SGS_ERR_INVALID_BANDWIDTH);
    c = c0; c.kernel = SGS_KERNEL_IMQ; c.imq_beta = 0.0;
    svgd_bad_config("svgd init: IMQ beta 0", c, SGS_ERR_INVALID_KERNEL);
    c = c0; c.kernel = SGS_KERNEL_IMQ; c.imq_c = INFINITY;
    svgd_bad_config("svgd init: IMQ c +inf", c, SGS_ERR_INVALID_KERNEL);
    c = c0; c.step_size = NAN; svgd_bad_config("svgd init: step size NaN", c, SGS_ERR_INVALID_STEP_SIZE);
    c = c0; c.step_size = -1.0; svgd_bad_config("svgd init: step size negative", c, SGS_ERR_INVALID_STEP_SIZE);
    c = c0; c.adagrad_alpha = 1.0; svgd_bad_config("svgd init: AdaGrad alpha 1", c, SGS_ERR_INVALID_STEP_RULE);
    c = c0; c.adagrad_alpha = NAN; svgd_bad_config("svgd init: AdaGrad alpha NaN", c, SGS_ERR_INVALID_STEP_RULE);

    sfix f;
    sfix_init(&f, c0);
    ssnap(&f);
    double x2[SN * SD], ws2[512];
    uint32_t idx2[SN];
    for (size_t k = 0; k < SN * SD; k++) x2[k] = (double)k;
    CASE("svgd init: both callbacks NULL",
         sgs_svgd_init(&f.s, &c0, x2, SN, SD, ws2, 512, idx2, SN, NULL, NULL, &f.p), SGS_ERR_NULL_POINTER,
         ssame(&f));
    CASE("svgd init: index NULL", sgs_svgd_init(&f.s, &c0, x2, SN, SD, ws2, 512, NULL, SN, prog_gradient, NULL, &f.p),
         SGS_ERR_NULL_POINTER, ssame(&f));
    CASE("svgd init: n = 0", sgs_svgd_init(&f.s, &c0, x2, 0, SD, ws2, 512, idx2, SN, prog_gradient, NULL, &f.p),
         SGS_ERR_ZERO_PARTICLES, ssame(&f));
    CASE("svgd init: d = 0", sgs_svgd_init(&f.s, &c0, x2, SN, 0, ws2, 512, idx2, SN, prog_gradient, NULL, &f.p),
         SGS_ERR_ZERO_DIMENSION, ssame(&f));
    CASE("svgd init: workspace one short",
         sgs_svgd_init(&f.s, &c0, x2, SN, SD, ws2, f.ws_len - 1, idx2, SN, prog_gradient, NULL, &f.p),
         SGS_ERR_WORKSPACE_TOO_SMALL, ssame(&f));
    CASE("svgd init: index one short",
         sgs_svgd_init(&f.s, &c0, x2, SN, SD, ws2, 512, idx2, SN - 1, prog_gradient, NULL, &f.p),
         SGS_ERR_WORKSPACE_TOO_SMALL, ssame(&f));
    CASE("svgd init: particles overlap the workspace",
         sgs_svgd_init(&f.s, &c0, ws2 + 100, SN, SD, ws2, 512, idx2, SN, prog_gradient, NULL, &f.p),
         SGS_ERR_INVALID_ARGUMENT, ssame(&f));
    CASE("svgd init: n * d overflows",
         sgs_svgd_init(&f.s, &c0, x2, (size_t)-1 / 2, 3, ws2, 512, idx2, SN, prog_gradient, NULL, &f.p),
         SGS_ERR_INVALID_ARGUMENT, ssame(&f));
    x2[3] = NAN;
    CASE("svgd init: a particle is NaN",
         sgs_svgd_init(&f.s, &c0, x2, SN, SD, ws2, 512, idx2, SN, prog_gradient, NULL, &f.p),
         SGS_ERR_INVALID_POSITION, ssame(&f));

    sgs_svgd z;
    memset(&z, 0, sizeof z);
    CASE("svgd step before init", sgs_svgd_step(&z, NULL), SGS_ERR_NOT_INITIALISED, 1);
    CASE("svgd f64 state passed to an f32 function", sgs_svgd_step_f32((sgs_svgd_f32 *)(void *)&f.s, NULL),
         SGS_ERR_NOT_INITIALISED, ssame(&f));
    double out[SN * SD];
    CASE("svgd particles: out one short", sgs_svgd_particles(&f.s, out, SN * SD - 1), SGS_ERR_OUTPUT_TOO_SMALL,
         ssame(&f));

    /* Callback faults at several particles of an iteration: all leave the system as it was. */
    struct {
        const char *name;
        int which; /* 0 abort, 1 reject, 2 NaN */
        long at;
        int32_t want;
    } cb[] = {
        {"svgd step: gradient ABORTs at particle 1", 0, 1, SGS_ERR_CALLBACK_ABORTED},
        {"svgd step: gradient ABORTs at the last particle", 0, SN, SGS_ERR_CALLBACK_ABORTED},
        {"svgd step: gradient REJECTs -> gradient rejected", 1, 3, SGS_ERR_GRADIENT_REJECTED},
        {"svgd step: gradient NaN at the last particle -> non-finite", 2, SN, SGS_ERR_NON_FINITE},
    };
    for (size_t k = 0; k < sizeof cb / sizeof cb[0]; k++) {
        for (uint32_t batching = 0; batching < 2; batching++) {
            sgs_svgd_config cc = c0;
            cc.batching = batching;
            sfix g, twin;
            sfix_init(&g, cc);
            sfix_init(&twin, cc);
            ssnap(&g);
            long at = g.p.g_calls + cb[k].at;
            if (batching == 1 && cb[k].at == SN) at = g.p.g_calls + 4; /* p = 4 points per sub-step */
            if (cb[k].which == 0) g.p.g_abort = at;
            else if (cb[k].which == 1) g.p.g_reject = at;
            else g.p.g_nan = at;
            int32_t st = sgs_svgd_step(&g.s, NULL);
            int unchanged = ssame_system(&g, &cc);
            int ok = 1;
            for (int i = 0; i < 4; i++) {
                sgs_svgd_info a, b;
                ok &= sgs_svgd_step(&g.s, &a) == SGS_OK && sgs_svgd_step(&twin.s, &b) == SGS_OK;
                ok &= memcmp(&a, &b, sizeof a) == 0;
            }
            ok &= memcmp(g.x, twin.x, sizeof g.x) == 0;
            char name[160];
            snprintf(name, sizeof name, "%s (%s replacement)", cb[k].name, batching ? "with" : "without");
            expect_status(name, st, cb[k].want, unchanged && ok);
        }
    }

    /* A step whose update overflows: nothing moves. */
    c = c0;
    c.step_rule = SGS_STEP_RULE_CONSTANT;
    c.step_size = 1e308;
    sfix h;
    CASE("svgd init: huge constant step (valid)", sfix_init_spread(&h, &c, 1e3), SGS_OK, 1);
    ssnap(&h);
    CASE("svgd step: update overflows -> non-finite, nothing moved", sgs_svgd_step(&h.s, NULL),
         SGS_ERR_NON_FINITE, ssame_system(&h, &c));
    /* The same in phases: the batch ranges compute the moves and only flag them; finish refuses
     * with nothing moved, and the iteration is over. */
    CASE("svgd phases: update overflows in the batch ranges -> finish non-finite, nothing moved",
         (sgs_svgd_begin(&h.s) == SGS_OK && sgs_svgd_gradients_range(&h.s, 0, SN) == SGS_OK &&
          sgs_svgd_batches_range(&h.s, 1, 2) == SGS_OK && sgs_svgd_batches_range(&h.s, 0, 1) == SGS_OK)
             ? sgs_svgd_finish(&h.s, NULL)
             : -1,
         SGS_ERR_NON_FINITE, ssame_system(&h, &c) && sgs_svgd_cancel(&h.s) == SGS_ERR_ITERATION_NOT_BEGUN);
    /* AdaGrad whose new history overflows (phi^2 = inf for |x| ~ 1e300; the far-apart pairs add
     * nothing): in phases and in a step, the history (still unset) and the particles stay. */
    {
        sgs_svgd_config ca = c0;
        sfix a;
        CASE("svgd init: AdaGrad, particles near the overflow (valid)", sfix_init_spread(&a, &ca, 1e300), SGS_OK, 1);
        ssnap(&a);
        CASE("svgd phases: AdaGrad history overflows -> finish non-finite, history and particles kept",
             (sgs_svgd_begin(&a.s) == SGS_OK && sgs_svgd_gradients_range(&a.s, 0, SN) == SGS_OK &&
              sgs_svgd_batches_range(&a.s, 0, 2) == SGS_OK)
                 ? sgs_svgd_finish(&a.s, NULL)
                 : -1,
             SGS_ERR_NON_FINITE, ssame_system(&a, &ca));
        CASE("svgd step: AdaGrad history overflows -> non-finite, history and particles kept",
             sgs_svgd_step(&a.s, NULL), SGS_ERR_NON_FINITE, ssame_system(&a, &ca));
    }

    /* The caller breaks a particle between iterations. */
    sfix_init(&f, c0);
    f.x[5] = INFINITY;
    ssnap(&f);
    CASE("svgd step: caller made a particle +inf", sgs_svgd_step(&f.s, NULL), SGS_ERR_INVALID_POSITION, ssame(&f));

    /* run: an abort in iteration 3 of 5 leaves 2 done. */
    sfix_init(&f, c0);
    f.p.g_abort = f.p.g_calls + 2 * SN + 1;
    uint64_t it = 0;
    sgs_svgd_run_summary sum;
    CASE("svgd run: ABORT in iteration 3 -> 2 done", sgs_svgd_run(&f.s, 5, &sum), SGS_ERR_CALLBACK_ABORTED,
         sum.iterations == 2 && sum.has_last == 1 && sum.last.iteration == 3 &&
             sgs_svgd_iterations(&f.s, &it) == SGS_OK && it == 3);
    CASE("svgd run: 0 iterations is OK and does nothing", sgs_svgd_run(&f.s, 0, &sum), SGS_OK,
         sum.iterations == 0 && sum.has_last == 0 && sgs_svgd_iterations(&f.s, &it) == SGS_OK && it == 3);
    CASE("svgd run: summary inside the state", sgs_svgd_run(&f.s, 1, (sgs_svgd_run_summary *)(void *)&f.s),
         SGS_ERR_INVALID_ARGUMENT, sgs_svgd_iterations(&f.s, &it) == SGS_OK && it == 3);
}

/* ---- Hardened ABI: outputs inside the state or its buffers, corrupted, moved, copied, cleared
 * and re-entered states. Each of these would have been written or accepted by the old code. */

/* The KSD option, the batch-size setter, the scheduled run and the stand-alone KSD. */
/* Stein thinning: a run on a standard normal target (the far draw is never chosen), then every
 * refusal with `selected` and `scales` left as they were. */
static void thin_cases(void) {
    double x[6] = {0.1, -0.4, 0.8, -1.1, 0.3, 7.0}, scratch[6], w[1] = {7.0};
    size_t sel[4] = {9, 9, 9, 9};
    CASE("stein_thin: 4 of 6 draws", sgs_stein_thin(x, x, 6, 1, NULL, NULL, 1.0, -0.5, sel, 4, scratch, 6),
         SGS_OK, sel[0] < 5 && sel[1] < 5 && sel[2] < 5 && sel[3] < 5);
    size_t keep[4] = {9, 9, 9, 9};
#define UNTOUCHED (memcmp(keep, (size_t[4]){9, 9, 9, 9}, sizeof keep) == 0)
    CASE("stein_thin: x NULL", sgs_stein_thin(NULL, x, 6, 1, NULL, NULL, 1.0, -0.5, keep, 4, scratch, 6),
         SGS_ERR_NULL_POINTER, UNTOUCHED);
    CASE("stein_thin: selected NULL", sgs_stein_thin(x, x, 6, 1, NULL, NULL, 1.0, -0.5, NULL, 4, scratch, 6),
         SGS_ERR_NULL_POINTER, UNTOUCHED);
    CASE("stein_thin: d = 0", sgs_stein_thin(x, x, 6, 0, NULL, NULL, 1.0, -0.5, keep, 4, scratch, 6),
         SGS_ERR_ZERO_DIMENSION, UNTOUCHED);
    CASE("stein_thin: n = 0", sgs_stein_thin(x, x, 0, 1, NULL, NULL, 1.0, -0.5, keep, 4, scratch, 6),
         SGS_ERR_ZERO_PARTICLES, UNTOUCHED);
    CASE("stein_thin: scratch of 5", sgs_stein_thin(x, x, 6, 1, NULL, NULL, 1.0, -0.5, keep, 4, scratch, 5),
         SGS_ERR_WORKSPACE_TOO_SMALL, UNTOUCHED);
    CASE("stein_thin: beta 0", sgs_stein_thin(x, x, 6, 1, NULL, NULL, 1.0, 0.0, keep, 4, scratch, 6),
         SGS_ERR_INVALID_KERNEL, UNTOUCHED);
    double zero = 0.0;
    CASE("stein_thin: preconditioner 0", sgs_stein_thin(x, x, 6, 1, NULL, &zero, 1.0, -0.5, keep, 4, scratch, 6),
         SGS_ERR_INVALID_ARGUMENT, UNTOUCHED);
    CASE("stein_thin: scratch over the draws",
         sgs_stein_thin(x, x, 6, 1, NULL, NULL, 1.0, -0.5, keep, 4, x, 6), SGS_ERR_INVALID_ARGUMENT, UNTOUCHED);
    CASE("stein_thin: selected over the scratch",
         sgs_stein_thin(x, x, 6, 1, NULL, NULL, 1.0, -0.5, (size_t *)(void *)scratch, 4, scratch, 6),
         SGS_ERR_INVALID_ARGUMENT, 1);
    double bad[6] = {0.1, -0.4, NAN, -1.1, 0.3, 7.0};
    CASE("stein_thin: a NaN draw", sgs_stein_thin(bad, x, 6, 1, NULL, NULL, 1.0, -0.5, keep, 4, scratch, 6),
         SGS_ERR_NON_FINITE, UNTOUCHED);
#undef UNTOUCHED
    double same[3] = {2.0, 2.0, 2.0};
    CASE("stein_thin_scales: a constant column", sgs_stein_thin_scales(same, 3, 1, w), SGS_ERR_INVALID_ARGUMENT,
         w[0] == 7.0);
    CASE("stein_thin_scales: scales over x", sgs_stein_thin_scales(x, 6, 1, &x[2]), SGS_ERR_INVALID_ARGUMENT,
         x[2] == 0.8);
    CASE("stein_thin_scales: 6 draws", sgs_stein_thin_scales(x, 6, 1, w), SGS_OK, w[0] > 0.0);
}

/* Importance weights and the median bandwidth: a run whose answer is known (two far groups, one
 * particle three times against one once, equal density: half the weight each), then every refusal
 * with the outputs left as they were. */
static void weights_cases(void) {
    double x[4] = {0.0, 0.0, 0.0, 10.0}, v[4] = {0.0, 0.0, 0.0, 0.0}, w[4], ess = 0.0;
    CASE("particle_weights: 3 + 1 particles", sgs_particle_weights(x, 4, 1, v, 1.0, w, &ess), SGS_OK,
         fabs(w[3] - 0.5) < 1e-12 && fabs(w[0] - 1.0 / 6.0) < 1e-12 && fabs(ess - 3.0) < 1e-9);
    CASE("particle_weights: ess NULL", sgs_particle_weights(x, 4, 1, v, 1.0, w, NULL), SGS_OK, fabs(w[3] - 0.5) < 1e-12);
    float xf[4] = {0.0f, 0.0f, 0.0f, 10.0f};
    CASE("particle_weights_f32: 3 + 1 particles", sgs_particle_weights_f32(xf, 4, 1, v, 1.0, w, NULL), SGS_OK,
         fabs(w[3] - 0.5) < 1e-12);
    double keep[4] = {9, 9, 9, 9};
    ess = 9.0;
#define UNTOUCHED (memcmp(keep, (double[4]){9, 9, 9, 9}, sizeof keep) == 0 && ess == 9.0)
    CASE("particle_weights: x NULL", sgs_particle_weights(NULL, 4, 1, v, 1.0, keep, &ess), SGS_ERR_NULL_POINTER,
         UNTOUCHED);
    CASE("particle_weights: energies NULL", sgs_particle_weights(x, 4, 1, NULL, 1.0, keep, &ess),
         SGS_ERR_NULL_POINTER, UNTOUCHED);
    CASE("particle_weights: weights NULL", sgs_particle_weights(x, 4, 1, v, 1.0, NULL, &ess), SGS_ERR_NULL_POINTER,
         ess == 9.0);
    CASE("particle_weights: d = 0", sgs_particle_weights(x, 4, 0, v, 1.0, keep, &ess), SGS_ERR_ZERO_DIMENSION,
         UNTOUCHED);
    CASE("particle_weights: n = 0", sgs_particle_weights(x, 0, 1, v, 1.0, keep, &ess), SGS_ERR_ZERO_PARTICLES,
         UNTOUCHED);
    CASE("particle_weights: h = 0", sgs_particle_weights(x, 4, 1, v, 0.0, keep, &ess), SGS_ERR_INVALID_BANDWIDTH,
         UNTOUCHED);
    CASE("particle_weights: h = inf", sgs_particle_weights(x, 4, 1, v, INFINITY, keep, &ess),
         SGS_ERR_INVALID_BANDWIDTH, UNTOUCHED);
    double vnan[4] = {0.0, NAN, 0.0, 0.0}, vinf[4] = {INFINITY, INFINITY, INFINITY, INFINITY};
    CASE("particle_weights: a NaN energy", sgs_particle_weights(x, 4, 1, vnan, 1.0, keep, &ess), SGS_ERR_NON_FINITE,
         UNTOUCHED);
    CASE("particle_weights: every energy +inf", sgs_particle_weights(x, 4, 1, vinf, 1.0, keep, &ess),
         SGS_ERR_NON_FINITE, UNTOUCHED);
    double xnan[4] = {0.0, NAN, 0.0, 10.0};
    CASE("particle_weights: a NaN particle", sgs_particle_weights(xnan, 4, 1, v, 1.0, keep, &ess),
         SGS_ERR_NON_FINITE, UNTOUCHED);
    CASE("particle_weights: weights over the energies", sgs_particle_weights(x, 4, 1, v, 1.0, v, &ess),
         SGS_ERR_INVALID_ARGUMENT, ess == 9.0 && v[0] == 0.0);
    CASE("particle_weights: ess inside the weights", sgs_particle_weights(x, 4, 1, v, 1.0, keep, &keep[2]),
         SGS_ERR_INVALID_ARGUMENT, UNTOUCHED);
    CASE("particle_weights: n·d overflows", sgs_particle_weights(x, SIZE_MAX / 2, 4, v, 1.0, keep, &ess),
         SGS_ERR_INVALID_ARGUMENT, UNTOUCHED);
#undef UNTOUCHED
    double p3[3] = {0.0, 1.0, 3.0}, scratch[3], h = 7.0;
    CASE("median_bandwidth: 3 points", sgs_median_bandwidth(p3, 3, 1, scratch, 3, &h), SGS_OK,
         fabs(h - 4.0 / (2.0 * log(3.0))) < 1e-15);
    h = 7.0;
    CASE("median_bandwidth: scratch of 2", sgs_median_bandwidth(p3, 3, 1, scratch, 2, &h),
         SGS_ERR_WORKSPACE_TOO_SMALL, h == 7.0);
    CASE("median_bandwidth: h NULL", sgs_median_bandwidth(p3, 3, 1, scratch, 3, NULL), SGS_ERR_NULL_POINTER, 1);
    CASE("median_bandwidth: scratch over x", sgs_median_bandwidth(p3, 3, 1, p3, 3, &h), SGS_ERR_INVALID_ARGUMENT,
         h == 7.0 && p3[2] == 3.0);
    double pnan[3] = {0.0, NAN, 3.0};
    CASE("median_bandwidth: a NaN", sgs_median_bandwidth(pnan, 3, 1, scratch, 3, &h), SGS_ERR_NON_FINITE, h == 7.0);
    float p3f[3] = {0.0f, 1.0f, 3.0f}, sf[3];
    CASE("median_bandwidth_f32: 3 points", sgs_median_bandwidth_f32(p3f, 3, 1, sf, 3, &h), SGS_OK,
         fabs(h - 4.0 / (2.0 * log(3.0))) < 1e-6);
}

/* Draws from the particles' kernel density estimate and their weights: a run (draws near the
 * particles, weights summing to 1, the f32 draws the f64 ones rounded), then every refusal with
 * the outputs left as they were. */
static void kde_cases(void) {
    double x[2] = {0.0, 10.0}, y[6], y2[6], v[6], w[6], ess = 0.0;
    CASE("kde_draws: 6 draws", sgs_kde_draws(x, 2, 1, 0.01, 3, y, 6), SGS_OK,
         fabs(y[0]) < 1.0 || fabs(y[0] - 10.0) < 1.0);
    CASE("kde_draws: same seed, same draws", sgs_kde_draws(x, 2, 1, 0.01, 3, y2, 6), SGS_OK,
         memcmp(y, y2, sizeof y) == 0);
    float xf[2] = {0.0f, 10.0f}, yf[6];
    CASE("kde_draws_f32: the f64 draws rounded", sgs_kde_draws_f32(xf, 2, 1, 0.01, 3, yf, 6), SGS_OK,
         yf[5] == (float)y[5]);
    for (int k = 0; k < 6; k++)
        v[k] = 0.5 * y[k] * y[k];
    CASE("kde_weights: 6 draws", sgs_kde_weights(x, 2, 1, 0.01, y, 6, v, w, &ess), SGS_OK,
         fabs(w[0] + w[1] + w[2] + w[3] + w[4] + w[5] - 1.0) < 1e-12 && ess >= 1.0 && ess <= 6.0);
    CASE("kde_weights: ess NULL", sgs_kde_weights(x, 2, 1, 0.01, y, 6, v, w, NULL), SGS_OK, 1);
    double keep[6] = {9, 9, 9, 9, 9, 9};
    ess = 9.0;
#define UNTOUCHED (memcmp(keep, (double[6]){9, 9, 9, 9, 9, 9}, sizeof keep) == 0 && ess == 9.0)
    CASE("kde_draws: x NULL", sgs_kde_draws(NULL, 2, 1, 0.01, 3, keep, 6), SGS_ERR_NULL_POINTER, UNTOUCHED);
    CASE("kde_draws: y NULL", sgs_kde_draws(x, 2, 1, 0.01, 3, NULL, 6), SGS_ERR_NULL_POINTER, 1);
    CASE("kde_draws: d = 0", sgs_kde_draws(x, 2, 0, 0.01, 3, keep, 6), SGS_ERR_ZERO_DIMENSION, UNTOUCHED);
    CASE("kde_draws: n = 0", sgs_kde_draws(x, 0, 1, 0.01, 3, keep, 6), SGS_ERR_ZERO_PARTICLES, UNTOUCHED);
    CASE("kde_draws: m = 0", sgs_kde_draws(x, 2, 1, 0.01, 3, keep, 0), SGS_ERR_ZERO_PARTICLES, UNTOUCHED);
    CASE("kde_draws: h = 0", sgs_kde_draws(x, 2, 1, 0.0, 3, keep, 6), SGS_ERR_INVALID_BANDWIDTH, UNTOUCHED);
    CASE("kde_draws: h NaN", sgs_kde_draws(x, 2, 1, NAN, 3, keep, 6), SGS_ERR_INVALID_BANDWIDTH, UNTOUCHED);
    double xnan[2] = {0.0, NAN};
    CASE("kde_draws: a NaN particle", sgs_kde_draws(xnan, 2, 1, 0.01, 3, keep, 6), SGS_ERR_NON_FINITE, UNTOUCHED);
    CASE("kde_draws: y over x", sgs_kde_draws(x, 2, 1, 0.01, 3, &x[1], 1), SGS_ERR_INVALID_ARGUMENT,
         x[1] == 10.0);
    CASE("kde_draws: m·d overflows", sgs_kde_draws(x, 2, 4, 0.01, 3, keep, SIZE_MAX / 2), SGS_ERR_INVALID_ARGUMENT,
         UNTOUCHED);
    CASE("kde_weights: x NULL", sgs_kde_weights(NULL, 2, 1, 0.01, y, 6, v, keep, &ess), SGS_ERR_NULL_POINTER,
         UNTOUCHED);
    CASE("kde_weights: y NULL", sgs_kde_weights(x, 2, 1, 0.01, NULL, 6, v, keep, &ess), SGS_ERR_NULL_POINTER,
         UNTOUCHED);
    CASE("kde_weights: energies NULL", sgs_kde_weights(x, 2, 1, 0.01, y, 6, NULL, keep, &ess), SGS_ERR_NULL_POINTER,
         UNTOUCHED);
    CASE("kde_weights: weights NULL", sgs_kde_weights(x, 2, 1, 0.01, y, 6, v, NULL, &ess), SGS_ERR_NULL_POINTER,
         ess == 9.0);
    CASE("kde_weights: m = 0", sgs_kde_weights(x, 2, 1, 0.01, y, 0, v, keep, &ess), SGS_ERR_ZERO_PARTICLES,
         UNTOUCHED);
    CASE("kde_weights: h = inf", sgs_kde_weights(x, 2, 1, INFINITY, y, 6, v, keep, &ess), SGS_ERR_INVALID_BANDWIDTH,
         UNTOUCHED);
    double vinf[6] = {INFINITY, INFINITY, INFINITY, INFINITY, INFINITY, INFINITY};
    CASE("kde_weights: every energy +inf", sgs_kde_weights(x, 2, 1, 0.01, y, 6, vinf, keep, &ess), SGS_ERR_NON_FINITE,
         UNTOUCHED);
    double ynan[6] = {0.0, 1.0, NAN, 0.0, 0.0, 0.0};
    CASE("kde_weights: a NaN draw", sgs_kde_weights(x, 2, 1, 0.01, ynan, 6, v, keep, &ess), SGS_ERR_NON_FINITE,
         UNTOUCHED);
    CASE("kde_weights: weights over the draws", sgs_kde_weights(x, 2, 1, 0.01, y, 6, v, y, &ess),
         SGS_ERR_INVALID_ARGUMENT, ess == 9.0 && memcmp(y, y2, sizeof y) == 0);
    CASE("kde_weights: weights over the energies", sgs_kde_weights(x, 2, 1, 0.01, y, 6, v, v, &ess),
         SGS_ERR_INVALID_ARGUMENT, ess == 9.0);
    CASE("kde_weights: ess inside the weights", sgs_kde_weights(x, 2, 1, 0.01, y, 6, v, keep, &keep[3]),
         SGS_ERR_INVALID_ARGUMENT, UNTOUCHED);
#undef UNTOUCHED
}

static void ksd_cases(void) {
    sgs_svgd_config c0 = sgs_svgd_config_default(4, 0.1), c;
    c = c0; c.ksd = 3; svgd_bad_config("svgd init: ksd 3", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.ksd = SGS_KSD_BATCH; c.ksd_reserved = 1;
    svgd_bad_config("svgd init: ksd_reserved != 0", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.ksd = SGS_KSD_FULL; c.ksd_beta = 0.0;
    svgd_bad_config("svgd init: KSD beta 0", c, SGS_ERR_INVALID_KERNEL);
    c = c0; c.ksd = SGS_KSD_BATCH; c.ksd_c = NAN;
    svgd_bad_config("svgd init: KSD c NaN", c, SGS_ERR_INVALID_KERNEL);
    c = c0; c.ksd = SGS_KSD_BATCH; c.batching = SGS_BATCHING_WITH_REPLACEMENT;
    svgd_bad_config("svgd init: KSD with replacement", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.anneal = 3; c.anneal_iterations = 10;
    svgd_bad_config("svgd init: anneal 3", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.permutation = 2;
    svgd_bad_config("svgd init: permutation 2", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.permutation = SGS_PERMUTATION_FEISTEL; c.batching = SGS_BATCHING_WITH_REPLACEMENT;
    svgd_bad_config("svgd init: Feistel permutation with replacement", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.anneal = SGS_ANNEAL_CYCLICAL;
    svgd_bad_config("svgd init: cyclical annealing over 0 iterations", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.anneal = SGS_ANNEAL_CYCLICAL; c.anneal_iterations = 10; c.anneal_cycles = 11;
    svgd_bad_config("svgd init: more cycles than iterations", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.anneal = SGS_ANNEAL_HYPERBOLIC; c.anneal_iterations = 10; c.anneal_power = 0.0;
    svgd_bad_config("svgd init: hyperbolic annealing, power 0", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.anneal = SGS_ANNEAL_HYPERBOLIC; c.anneal_iterations = 10; c.anneal_power = NAN;
    svgd_bad_config("svgd init: hyperbolic annealing, power NaN", c, SGS_ERR_INVALID_OPTION);

    sfix f;
    sfix_init(&f, c0);
    ssnap(&f);
    CASE("svgd set_batch_size: p = 1", sgs_svgd_set_batch_size(&f.s, 1), SGS_ERR_INVALID_BATCH_SIZE, ssame(&f));
    CASE("svgd set_batch_size: p = N + 1", sgs_svgd_set_batch_size(&f.s, SN + 1), SGS_ERR_INVALID_BATCH_SIZE,
         ssame(&f));
    CASE("svgd set_batch_size: NULL", sgs_svgd_set_batch_size(NULL, 2), SGS_ERR_NULL_POINTER, ssame(&f));
    uint64_t p = 0;
    CASE("svgd batch_size: the configured p", sgs_svgd_batch_size(&f.s, &p), SGS_OK, p == 4);
    CASE("svgd batch_size: out NULL", sgs_svgd_batch_size(&f.s, NULL), SGS_ERR_NULL_POINTER, ssame(&f));
    CASE("svgd batch_size: state NULL", sgs_svgd_batch_size(NULL, &p), SGS_ERR_NULL_POINTER, p == 4);
    CASE("svgd batch_size: out inside the state",
         sgs_svgd_batch_size(&f.s, (uint64_t *)(void *)&f.s._opaque[20]), SGS_ERR_INVALID_ARGUMENT, ssame(&f));
    sgs_svgd_schedule sch = sgs_svgd_schedule_default(2, 3), b;
    sgs_svgd_run_summary sum;
    b = sch; b.kind = SGS_SCHEDULE_KSD;
    CASE("svgd run_scheduled: KSD schedule with the KSD off", sgs_svgd_run_scheduled(&f.s, 5, &b, &sum),
         SGS_ERR_INVALID_OPTION, ssame(&f));
    b = sch; b.kind = 9;
    CASE("svgd run_scheduled: kind 9", sgs_svgd_run_scheduled(&f.s, 5, &b, &sum), SGS_ERR_INVALID_OPTION, ssame(&f));
    b = sch; b.start = SN + 1;
    CASE("svgd run_scheduled: start N + 1", sgs_svgd_run_scheduled(&f.s, 5, &b, &sum), SGS_ERR_INVALID_BATCH_SIZE,
         ssame(&f));
    b = sch; b.every = 0;
    CASE("svgd run_scheduled: every 0", sgs_svgd_run_scheduled(&f.s, 5, &b, &sum), SGS_ERR_INVALID_ARGUMENT,
         ssame(&f));
    b = sch; b.kind = SGS_SCHEDULE_KSD; b.min_decrease = 1.0;
    CASE("svgd run_scheduled: min_decrease 1", sgs_svgd_run_scheduled(&f.s, 5, &b, &sum), SGS_ERR_INVALID_ARGUMENT,
         ssame(&f));
    CASE("svgd run_scheduled: schedule NULL", sgs_svgd_run_scheduled(&f.s, 5, NULL, &sum), SGS_ERR_NULL_POINTER,
         ssame(&f));
    /* A valid doubling run ends at p = min(N, 2·2^⌊7/3⌋) = 8 and reports a NaN KSD (off). */
    CASE("svgd run_scheduled: doubling, 7 iterations", sgs_svgd_run_scheduled(&f.s, 7, &sch, &sum), SGS_OK,
         sum.iterations == 7 && isnan(sum.last.ksd_squared));
    CASE("svgd batch_size: the schedule's last choice", sgs_svgd_batch_size(&f.s, &p), SGS_OK, p == 8);
    CASE("svgd set_batch_size: 3", sgs_svgd_set_batch_size(&f.s, 3), SGS_OK,
         sgs_svgd_batch_size(&f.s, &p) == SGS_OK && p == 3);

    /* The KSD on: finite, and the stand-alone batch estimate with p = N is the full value. */
    c = c0; c.ksd = SGS_KSD_FULL;
    sfix k;
    sfix_init(&k, c);
    sgs_svgd_info info;
    CASE("svgd step with the full KSD", sgs_svgd_step(&k.s, &info), SGS_OK,
         isfinite(info.ksd_squared) && info.ksd_squared > 0.0);
    double x[SN * SD], g[SN * SD], full = -1.0, batch = -1.0, out = 7.0;
    uint32_t idx[SN];
    for (size_t i = 0; i < SN * SD; i++) x[i] = g[i] = 0.3 * (double)i - 1.0;
    CASE("ksd_full", sgs_ksd_full(x, SN, SD, g, 1.0, -0.5, &full), SGS_OK, full > 0.0);
    CASE("ksd_batch p = N", sgs_ksd_batch(x, SN, SD, g, SN, 1.0, -0.5, 1, 2, idx, SN, &batch), SGS_OK,
         fabs(batch - full) <= 1e-12 * full);
    CASE("ksd_full: x NULL", sgs_ksd_full(NULL, SN, SD, g, 1.0, -0.5, &out), SGS_ERR_NULL_POINTER, out == 7.0);
    CASE("ksd_full: n = 0", sgs_ksd_full(x, 0, SD, g, 1.0, -0.5, &out), SGS_ERR_ZERO_PARTICLES, out == 7.0);
    CASE("ksd_full: d = 0", sgs_ksd_full(x, SN, 0, g, 1.0, -0.5, &out), SGS_ERR_ZERO_DIMENSION, out == 7.0);
    CASE("ksd_full: beta -1", sgs_ksd_full(x, SN, SD, g, 1.0, -1.0, &out), SGS_ERR_INVALID_KERNEL, out == 7.0);
    CASE("ksd_full: out inside x", sgs_ksd_full(x, SN, SD, g, 1.0, -0.5, x + 1), SGS_ERR_INVALID_ARGUMENT, 1);
    CASE("ksd_batch: p = 1", sgs_ksd_batch(x, SN, SD, g, 1, 1.0, -0.5, 1, 2, idx, SN, &out),
         SGS_ERR_INVALID_BATCH_SIZE, out == 7.0);
    CASE("ksd_batch: index one short", sgs_ksd_batch(x, SN, SD, g, 2, 1.0, -0.5, 1, 2, idx, SN - 1, &out),
         SGS_ERR_WORKSPACE_TOO_SMALL, out == 7.0);
    CASE("ksd_batch: index NULL", sgs_ksd_batch(x, SN, SD, g, 2, 1.0, -0.5, 1, 2, NULL, SN, &out),
         SGS_ERR_NULL_POINTER, out == 7.0);
}

static int32_t plain_energy(void *ud, const double *x, size_t d, double *u) {
    double e = 0.0;
    (void)ud;
    for (size_t i = 0; i < d; i++) e += x[i] * x[i];
    *u = 0.5 * e;
    return SGS_CB_OK;
}

/* A gradient callback that calls back into its own chain (same state) with every function, and
 * records what each returned. */
typedef struct {
    sgs_amagold *s;
    double ws2[WS];
    sgs_amagold other;
    int32_t st_step, st_run, st_pos, st_iter, st_init, st_clear, st_copy;
    int done;
} reent;

static int32_t reent_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    reent *r = (reent *)ud;
    (void)seed;
    if (!r->done && r->s->_opaque[0] != 0) {
        double out[2 * D];
        uint64_t it;
        sgs_amagold_config c = sgs_amagold_config_default(0.2);
        r->done = 1;
        r->st_step = sgs_amagold_step(r->s, NULL);
        r->st_run = sgs_amagold_run(r->s, 1, out, 2 * D, NULL, NULL);
        r->st_pos = sgs_amagold_position(r->s, out, D);
        r->st_iter = sgs_amagold_iterations(r->s, &it);
        r->st_init = sgs_amagold_init(r->s, &c, THETA0, D, r->ws2, WS, plain_energy, reent_gradient, r);
        r->st_clear = sgs_amagold_clear(r->s);
        r->st_copy = sgs_amagold_copy(&r->other, r->ws2, WS, r->s);
    }
    for (size_t i = 0; i < d; i++) g[i] = x[i];
    return SGS_CB_OK;
}

/* An SVGD gradient callback that calls back into its own system. */
typedef struct {
    sgs_svgd *s;
    int32_t st_step, st_iter, st_clear;
    int done;
} sreent;

static int32_t sreent_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    sreent *r = (sreent *)ud;
    (void)seed;
    if (!r->done && r->s->_opaque[0] != 0) {
        uint64_t it;
        r->done = 1;
        r->st_step = sgs_svgd_step(r->s, NULL);
        r->st_iter = sgs_svgd_iterations(r->s, &it);
        r->st_clear = sgs_svgd_clear(r->s);
    }
    for (size_t i = 0; i < d; i++) g[i] = x[i];
    return SGS_CB_OK;
}

/* Re-entrant calls from a gradient callback during an iteration in phases. */
typedef struct {
    sgs_svgd *s;
    int done;
    int32_t st_cancel, st_finish, st_begin, st_step, st_range;
} preent;

static int32_t preent_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    preent *r = (preent *)ud;
    (void)seed;
    if (!r->done && r->s->_opaque[0] != 0) {
        r->done = 1;
        r->st_cancel = sgs_svgd_cancel(r->s);
        r->st_finish = sgs_svgd_finish(r->s, NULL);
        r->st_begin = sgs_svgd_begin(r->s);
        r->st_step = sgs_svgd_step(r->s, NULL);
        r->st_range = sgs_svgd_gradients_range(r->s, 0, 1);
    }
    for (size_t i = 0; i < d; i++) g[i] = x[i];
    return SGS_CB_OK;
}

/* SGHMC / AMAGOLD divergence regressions. */
static int32_t nan_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    (void)ud; (void)x; (void)seed;
    for (size_t i = 0; i < d; i++) g[i] = NAN;
    return SGS_CB_OK;
}
static int32_t silent_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    (void)ud; (void)x; (void)d; (void)seed; (void)g;
    return SGS_CB_OK;
}
static int32_t huge_gradient_f32(void *ud, const float *x, size_t d, uint64_t seed, float *g) {
    (void)ud; (void)seed;
    for (size_t i = 0; i < d; i++) g[i] = x[i] >= 0.0f ? 3e38f : -3e38f;
    return SGS_CB_OK;
}
static int32_t flat_energy_f32(void *ud, const float *x, size_t d, double *u) {
    (void)ud; (void)x; (void)d;
    *u = 0.0;
    return SGS_CB_OK;
}

static void hardening_cases(void) {
    fixture f;
    fixture_init(&f, sgs_amagold_config_default(0.2));
    snap(&f);
    double u;
    uint64_t it;
    sgs_amagold_run_summary sum;
    double out[4 * D];

    /* Outputs inside the state or its workspace. */
    CASE("energy getter: out inside the state", sgs_amagold_energy(&f.s, (double *)(void *)&f.s._opaque[10]),
         SGS_ERR_INVALID_ARGUMENT, same(&f));
    CASE("iterations getter: out inside the workspace", sgs_amagold_iterations(&f.s, (uint64_t *)(void *)&f.ws[3]),
         SGS_ERR_INVALID_ARGUMENT, same(&f));
    CASE("step: info inside the workspace", sgs_amagold_step(&f.s, (sgs_amagold_info *)(void *)f.ws),
         SGS_ERR_INVALID_ARGUMENT, same(&f));
    CASE("run: summary inside the state",
         sgs_amagold_run(&f.s, 1, out, D, NULL, (sgs_amagold_run_summary *)(void *)&f.s._opaque[2]),
         SGS_ERR_INVALID_ARGUMENT, same(&f));
    CASE("run: samples_done inside the output",
         sgs_amagold_run(&f.s, 2, out, 2 * D, (size_t *)(void *)&out[1], &sum), SGS_ERR_INVALID_ARGUMENT, same(&f));

    /* Corrupted states: the fixed words after the header (workspace pointer, length, callbacks). */
    sgs_amagold good;
    memcpy(&good, &f.s, sizeof good);
    f.s._opaque[4] += 1000; /* workspace length */
    snap(&f);
    CASE("step: workspace length overwritten -> corrupted", sgs_amagold_step(&f.s, NULL), SGS_ERR_STATE_CORRUPTED,
         same(&f));
    CASE("position: workspace length overwritten -> corrupted", sgs_amagold_position(&f.s, out, D),
         SGS_ERR_STATE_CORRUPTED, same(&f));
    memcpy(&f.s, &good, sizeof good);
    f.s._opaque[3] ^= 64; /* workspace pointer */
    snap(&f);
    CASE("step: workspace pointer overwritten -> corrupted", sgs_amagold_step(&f.s, NULL), SGS_ERR_STATE_CORRUPTED,
         same(&f));
    memcpy(&f.s, &good, sizeof good);
    f.s._opaque[6] = 0; /* gradient callback */
    snap(&f);
    CASE("energy getter: gradient callback zeroed -> corrupted", sgs_amagold_energy(&f.s, &u),
         SGS_ERR_STATE_CORRUPTED, same(&f));
    memcpy(&f.s, &good, sizeof good);
    snap(&f);
    CASE("restored state works again", sgs_amagold_step(&f.s, NULL), SGS_OK, 1);

    /* Moved (memcpy'd) states, and copies. */
    fixture g, twin;
    fixture_init(&g, sgs_amagold_config_default(0.2));
    fixture_init(&twin, sgs_amagold_config_default(0.2));
    sgs_amagold moved;
    memcpy(&moved, &g.s, sizeof moved);
    sgs_amagold moved_saved;
    memcpy(&moved_saved, &moved, sizeof moved);
    CASE("step on a memcpy'd state -> moved", sgs_amagold_step(&moved, NULL), SGS_ERR_STATE_MOVED,
         memcmp(&moved, &moved_saved, sizeof moved) == 0);
    CASE("getter on a memcpy'd state -> moved", sgs_amagold_iterations(&moved, &it), SGS_ERR_STATE_MOVED, 1);
    /* A stale copy of another init's bytes (another chain's state) is a moved state too. */
    sgs_amagold stale;
    memcpy(&stale, &twin.s, sizeof stale);
    CASE("stale bytes of another init -> moved", sgs_amagold_step(&stale, NULL), SGS_ERR_STATE_MOVED, 1);
    CASE("copy re-homes a moved state in place", sgs_amagold_copy(&moved, g.ws, WS, &moved), SGS_OK, 1);
    int ok = 1;
    for (int i = 0; i < 5; i++) {
        sgs_amagold_info a, b;
        ok &= sgs_amagold_step(&moved, &a) == SGS_OK && sgs_amagold_step(&twin.s, &b) == SGS_OK &&
              memcmp(&a, &b, sizeof a) == 0;
    }
    expect("re-homed state continues exactly like its twin", ok, NULL);
    /* The original (now stale: it shares the workspace the re-homed one moved on) is still at its
     * home and tagged; that sharing is a documented limit. Clear it. */
    CASE("clear", sgs_amagold_clear(&g.s), SGS_OK, g.s._opaque[0] == 0);
    CASE("step after clear -> not initialised", sgs_amagold_step(&g.s, NULL), SGS_ERR_NOT_INITIALISED, 1);
    CASE("clear: NULL", sgs_amagold_clear(NULL), SGS_ERR_NULL_POINTER, 1);

    fixture h;
    fixture_init(&h, sgs_amagold_config_default(0.2));
    sgs_amagold cp;
    double cws[WS], cws_saved[WS];
    memset(&cp, 0, sizeof cp);
    memset(cws, 0x5a, sizeof cws);
    memcpy(cws_saved, cws, sizeof cws);
    snap(&h);
    CASE("copy: workspace one short", sgs_amagold_copy(&cp, cws, WS - 1, &h.s), SGS_ERR_WORKSPACE_TOO_SMALL,
         same(&h) && memcmp(cws, cws_saved, sizeof cws) == 0 && cp._opaque[0] == 0);
    CASE("copy: destination workspace is the source's", sgs_amagold_copy(&cp, h.ws, WS, &h.s),
         SGS_ERR_INVALID_ARGUMENT, same(&h) && cp._opaque[0] == 0);
    CASE("copy: onto the source with another workspace", sgs_amagold_copy(&h.s, cws, WS, &h.s),
         SGS_ERR_INVALID_ARGUMENT, same(&h));
    CASE("copy: source not initialised", sgs_amagold_copy(&h.s, cws, WS, &cp), SGS_ERR_NOT_INITIALISED, same(&h));
    CASE("copy: independent copy", sgs_amagold_copy(&cp, cws, WS, &h.s), SGS_OK, same(&h));
    ok = 1;
    for (int i = 0; i < 5; i++) {
        sgs_amagold_info a, b;
        ok &= sgs_amagold_step(&cp, &a) == SGS_OK && sgs_amagold_step(&h.s, &b) == SGS_OK &&
              memcmp(&a, &b, sizeof a) == 0;
    }
    double x1[D], x2[D];
    ok &= sgs_amagold_position(&cp, x1, D) == SGS_OK && sgs_amagold_position(&h.s, x2, D) == SGS_OK &&
          memcmp(x1, x2, sizeof x1) == 0;
    expect("copy and source step identically, each on its own workspace", ok, NULL);

    /* Re-entrancy: every call on the same state from inside its callback is refused. */
    static reent r;
    static sgs_amagold rs;
    static double rws[WS];
    sgs_amagold_config c = sgs_amagold_config_default(0.2);
    memset(&r, 0, sizeof r);
    memset(&rs, 0, sizeof rs);
    r.s = &rs;
    if (sgs_amagold_init(&rs, &c, THETA0, D, rws, WS, plain_energy, reent_gradient, &r) != SGS_OK) {
        printf("FAIL reentrancy fixture\n");
        exit(1);
    }
    int32_t st = sgs_amagold_step(&rs, NULL);
    expect("re-entrant step/run/position/iterations/init/clear/copy -> SGS_ERR_BUSY, outer step OK",
           st == SGS_OK && r.done && r.st_step == SGS_ERR_BUSY && r.st_run == SGS_ERR_BUSY &&
               r.st_pos == SGS_ERR_BUSY && r.st_iter == SGS_ERR_BUSY && r.st_init == SGS_ERR_BUSY &&
               r.st_clear == SGS_ERR_BUSY && r.st_copy == SGS_ERR_BUSY && r.other._opaque[0] == 0,
           NULL);
    CASE("after the re-entrant calls the chain is usable", sgs_amagold_iterations(&rs, &it), SGS_OK, it == 1);

    /* SVGD: outputs inside the state, particles, workspace or index. */
    sfix sf;
    sfix_init(&sf, sgs_svgd_config_default(4, 0.1));
    ssnap(&sf);
    size_t nn;
    sgs_svgd_run_summary ssum;
    CASE("svgd step: info inside the workspace", sgs_svgd_step(&sf.s, (sgs_svgd_info *)(void *)sf.ws),
         SGS_ERR_INVALID_ARGUMENT, ssame(&sf));
    CASE("svgd step: info inside the particles", sgs_svgd_step(&sf.s, (sgs_svgd_info *)(void *)sf.x),
         SGS_ERR_INVALID_ARGUMENT, ssame(&sf));
    CASE("svgd run: summary inside the index", sgs_svgd_run(&sf.s, 1, (sgs_svgd_run_summary *)(void *)sf.idx),
         SGS_ERR_INVALID_ARGUMENT, ssame(&sf));
    CASE("svgd iterations getter: out inside the state",
         sgs_svgd_iterations(&sf.s, (uint64_t *)(void *)&sf.s._opaque[20]), SGS_ERR_INVALID_ARGUMENT, ssame(&sf));
    CASE("svgd num_particles getter: out inside the particles",
         sgs_svgd_num_particles(&sf.s, (size_t *)(void *)&sf.x[2]), SGS_ERR_INVALID_ARGUMENT, ssame(&sf));
    CASE("svgd dim getter: out inside the workspace", sgs_svgd_dim(&sf.s, (size_t *)(void *)&sf.ws[1]),
         SGS_ERR_INVALID_ARGUMENT, ssame(&sf));
    sgs_svgd sgood;
    memcpy(&sgood, &sf.s, sizeof sgood);
    sf.s._opaque[4] = 3; /* n·d */
    ssnap(&sf);
    CASE("svgd step: particle count overwritten -> corrupted", sgs_svgd_run(&sf.s, 1, &ssum),
         SGS_ERR_STATE_CORRUPTED, ssame(&sf));
    memcpy(&sf.s, &sgood, sizeof sgood);
    sgs_svgd smoved;
    memcpy(&smoved, &sf.s, sizeof smoved);
    CASE("svgd step on a memcpy'd state -> moved", sgs_svgd_step(&smoved, NULL), SGS_ERR_STATE_MOVED, 1);
    sfix sc;
    memset(&sc, 0, sizeof sc);
    CASE("svgd copy: particles one short",
         sgs_svgd_copy(&sc.s, sc.x, SN * SD - 1, sc.ws, 512, sc.idx, SN, &sf.s), SGS_ERR_LENGTH_MISMATCH,
         sc.s._opaque[0] == 0);
    CASE("svgd copy: workspace is the source's particles",
         sgs_svgd_copy(&sc.s, sc.x, SN * SD, sf.x, SN * SD, sc.idx, SN, &sf.s), SGS_ERR_INVALID_ARGUMENT,
         sc.s._opaque[0] == 0);
    CASE("svgd copy", sgs_svgd_copy(&sc.s, sc.x, SN * SD, sc.ws, 512, sc.idx, SN, &sf.s), SGS_OK, 1);
    ok = 1;
    for (int i = 0; i < 4; i++) {
        sgs_svgd_info a, b;
        ok &= sgs_svgd_step(&sc.s, &a) == SGS_OK && sgs_svgd_step(&sf.s, &b) == SGS_OK &&
              memcmp(&a, &b, sizeof a) == 0;
    }
    ok &= memcmp(sc.x, sf.x, sizeof sc.x) == 0;
    expect("svgd copy and source step identically", ok, NULL);
    CASE("svgd nums: fine", sgs_svgd_num_particles(&sc.s, &nn), SGS_OK, nn == SN);
    CASE("svgd clear", sgs_svgd_clear(&sc.s), SGS_OK, sgs_svgd_step(&sc.s, NULL) == SGS_ERR_NOT_INITIALISED);
    static sreent sr;
    static sgs_svgd srs;
    static double sx[SN * SD], sws[512];
    static uint32_t sidx[SN];
    sgs_svgd_config sconf = sgs_svgd_config_default(4, 0.1);
    for (size_t k = 0; k < SN * SD; k++) sx[k] = (double)k / 7.0 - 0.5;
    sr.s = &srs;
    CASE("svgd re-entrancy fixture",
         sgs_svgd_init(&srs, &sconf, sx, SN, SD, sws, sgs_svgd_workspace_len(SN, SD, &sconf), sidx, SN,
                       sreent_gradient, NULL, &sr),
         SGS_OK, 1);
    st = sgs_svgd_step(&srs, NULL);
    expect("svgd re-entrant step/getter/clear -> SGS_ERR_BUSY, outer step OK",
           st == SGS_OK && sr.done && sr.st_step == SGS_ERR_BUSY && sr.st_iter == SGS_ERR_BUSY &&
               sr.st_clear == SGS_ERR_BUSY,
           NULL);
    {
        /* From inside a gradients range: cancel is busy, finish incomplete, begin and step in
         * progress, the range's own slots taken; the outer range and the iteration complete. */
        static preent pr;
        static sgs_svgd ps;
        static double px[SN * SD], pws[512];
        static uint32_t pidx[SN];
        for (size_t k = 0; k < SN * SD; k++) px[k] = (double)k / 7.0 - 0.5;
        pr.s = &ps;
        int ok = sgs_svgd_init(&ps, &sconf, px, SN, SD, pws, sgs_svgd_workspace_len(SN, SD, &sconf), pidx, SN,
                               preent_gradient, NULL, &pr) == SGS_OK &&
                 sgs_svgd_begin(&ps) == SGS_OK;
        int32_t st_range = sgs_svgd_gradients_range(&ps, 0, SN);
        ok &= st_range == SGS_OK && pr.done && pr.st_cancel == SGS_ERR_BUSY &&
              pr.st_finish == SGS_ERR_ITERATION_INCOMPLETE && pr.st_begin == SGS_ERR_ITERATION_IN_PROGRESS &&
              pr.st_step == SGS_ERR_ITERATION_IN_PROGRESS && pr.st_range == SGS_ERR_RANGE_OVERLAP &&
              sgs_svgd_batches_range(&ps, 0, 2) == SGS_OK && sgs_svgd_finish(&ps, NULL) == SGS_OK;
        expect("svgd phases re-entrant cancel/finish/begin/step/range from a gradient callback", ok, NULL);
    }

    /* SGHMC: a NaN gradient, or a gradient callback that writes nothing, is a divergence. */
    for (int k = 0; k < 2; k++) {
        sgs_sghmc s;
        double ws[WSH], x0[D], x1s[D];
        sgs_sghmc_config sc0 = sgs_sghmc_config_default(0.1);
        memset(&s, 0, sizeof s);
        sgs_chain_info info;
        int32_t st0 = sgs_sghmc_init(&s, &sc0, THETA0, D, ws, WSH, k ? silent_gradient : nan_gradient, NULL);
        sgs_sghmc_position(&s, x0, D);
        int32_t st1 = sgs_sghmc_step(&s, &info);
        sgs_sghmc_position(&s, x1s, D);
        CASE(k ? "sghmc: gradient callback writes nothing -> divergent, position unchanged"
               : "sghmc: gradient NaN -> divergent, position unchanged",
             st1, SGS_OK,
             st0 == SGS_OK && info.outcome == SGS_OUTCOME_DIVERGENT && info.divergences == 1 &&
                 memcmp(x0, x1s, sizeof x0) == 0);
    }

    /* AMAGOLD f32: a trajectory that overflows float with a finite energy is never accepted. */
    {
        sgs_amagold_f32 s;
        float ws[WS], x0[D], x1f[D];
        const float th[D] = {0.5f, -0.25f};
        sgs_amagold_config ac = sgs_amagold_config_default(4.0); /* eps * 3e38 overflows float */
        memset(&s, 0, sizeof s);
        sgs_amagold_info info;
        int32_t st0 = sgs_amagold_init_f32(&s, &ac, th, D, ws, WS, flat_energy_f32, huge_gradient_f32, NULL);
        sgs_amagold_position_f32(&s, x0, D);
        int32_t st1 = sgs_amagold_step_f32(&s, &info);
        sgs_amagold_position_f32(&s, x1f, D);
        CASE("amagold f32: overflowing trajectory, finite energy -> not accepted, position finite", st1, SGS_OK,
             st0 == SGS_OK && info.accepted == 0 &&
                 (info.outcome == SGS_OUTCOME_DIVERGENT || info.outcome == SGS_OUTCOME_REJECTED) &&
                 isfinite(x1f[0]) && isfinite(x1f[1]) && memcmp(x0, x1f, sizeof x0) == 0);
    }
}

/* Fills the stack below the caller's frame with non-zero bytes, so that a library call made next
 * which stores an uninitialised temporary shows it. Called through a volatile pointer: not
 * inlined, its stores not elided. */
static void dirty_stack_impl(void) {
    volatile unsigned char junk[16384];
    for (size_t i = 0; i < sizeof junk; i++) junk[i] = (unsigned char)(0xA5u ^ i);
}
static void (*volatile dirty_stack)(void) = dirty_stack_impl;

/* The iteration in phases: every misuse gets its own status and changes nothing; a callback
 * fault in a range, then cancel, leaves the system as before begin; forces computed by one
 * system and put into another (the MPI pattern) give the same step. N = 8, p = 4: 2 batches. */
static void svgd_phase_cases(void) {
    sgs_svgd_config c0 = sgs_svgd_config_default(4, 0.1);
    sfix f, twin;
    sfix_init(&f, c0);
    sfix_init(&twin, c0);
    ssnap(&f);
    sgs_svgd_info info;
    double out[SN * SD];
    size_t a = 0, b = 0, nb = 0;
    CASE("svgd gradients range before begin", sgs_svgd_gradients_range(&f.s, 0, 4), SGS_ERR_ITERATION_NOT_BEGUN,
         ssame(&f));
    CASE("svgd batches range before begin", sgs_svgd_batches_range(&f.s, 0, 1), SGS_ERR_ITERATION_NOT_BEGUN,
         ssame(&f));
    CASE("svgd forces put before begin", sgs_svgd_forces_put(&f.s, 0, 4, out, 8), SGS_ERR_ITERATION_NOT_BEGUN,
         ssame(&f));
    CASE("svgd moves get before begin", sgs_svgd_moves_get(&f.s, 0, 4, out, 8), SGS_ERR_ITERATION_NOT_BEGUN,
         ssame(&f));
    CASE("svgd moves put before begin", sgs_svgd_moves_put(&f.s, 0, 1, out, 3 * SD), SGS_ERR_ITERATION_NOT_BEGUN,
         ssame(&f));
    CASE("svgd finish before begin", sgs_svgd_finish(&f.s, &info), SGS_ERR_ITERATION_NOT_BEGUN, ssame(&f));
    CASE("svgd cancel before begin", sgs_svgd_cancel(&f.s), SGS_ERR_ITERATION_NOT_BEGUN, ssame(&f));
    CASE("svgd num batches", sgs_svgd_num_batches(&f.s, &nb), SGS_OK, ssame(&f) && nb == 2);
    CASE("svgd batch rows of batch 1", sgs_svgd_batch_rows(&f.s, 1, &a, &b), SGS_OK, ssame(&f) && a == 4 && b == 8);
    CASE("svgd batch rows of batch 2 (no such batch)", sgs_svgd_batch_rows(&f.s, 2, &a, &b),
         SGS_ERR_RANGE_OUT_OF_BOUNDS, ssame(&f));
    CASE("svgd batch rows: first NULL", sgs_svgd_batch_rows(&f.s, 0, NULL, &b), SGS_ERR_NULL_POINTER, ssame(&f));
    {
        sgs_svgd_config wr = c0;
        wr.batching = SGS_BATCHING_WITH_REPLACEMENT;
        sfix w;
        sfix_init(&w, wr);
        ssnap(&w);
        CASE("svgd begin with replacement", sgs_svgd_begin(&w.s), SGS_ERR_INVALID_OPTION, ssame(&w));
    }

    {
        /* init does not clear the workspace: bookkeeping bits past slot N-1 left there by an
         * earlier use must not make cancel see a range under way (SN = 8: 24 stray bits). */
        sfix h;
        memset(&h, 0, sizeof h);
        for (size_t k = 0; k < SN * SD; k++) h.x[k] = (double)k / 7.0 - 0.5;
        /* Arbitrary bytes (a fixed LCG): e.g. a "claimed" bit without its "done" bit. */
        uint32_t lcg = 12345u;
        unsigned char *wb = (unsigned char *)h.ws;
        for (size_t k = 0; k < sizeof h.ws; k++) {
            lcg = lcg * 1664525u + 1013904223u;
            wb[k] = (unsigned char)(lcg >> 24);
        }
        h.ws_len = sgs_svgd_workspace_len(SN, SD, &c0);
        int32_t st = sgs_svgd_init(&h.s, &c0, h.x, SN, SD, h.ws, h.ws_len, h.idx, SN, prog_gradient, NULL, &h.p);
        CASE("svgd init on a workspace used before", st, SGS_OK, 1);
        CASE("svgd begin on a workspace used before", sgs_svgd_begin(&h.s), SGS_OK, 1);
        CASE("svgd cancel on a workspace used before", sgs_svgd_cancel(&h.s), SGS_OK, 1);
        CASE("svgd begin again after that cancel", sgs_svgd_begin(&h.s), SGS_OK, 1);
        CASE("svgd cancel again", sgs_svgd_cancel(&h.s), SGS_OK, 1);
    }
    CASE("svgd begin", sgs_svgd_begin(&f.s), SGS_OK, 1);
    ssnap(&f);
    CASE("svgd begin twice", sgs_svgd_begin(&f.s), SGS_ERR_ITERATION_IN_PROGRESS, ssame(&f));
    CASE("svgd step during phases", sgs_svgd_step(&f.s, &info), SGS_ERR_ITERATION_IN_PROGRESS, ssame(&f));
    CASE("svgd run during phases", sgs_svgd_run(&f.s, 3, NULL), SGS_ERR_ITERATION_IN_PROGRESS, ssame(&f));
    CASE("svgd clear during phases", sgs_svgd_clear(&f.s), SGS_ERR_ITERATION_IN_PROGRESS, ssame(&f));
    CASE("svgd force getter during phases", sgs_svgd_force(&f.s, out, SN * SD), SGS_ERR_ITERATION_IN_PROGRESS,
         ssame(&f));
    {
        /* The range calls do not mark the system busy (they may run concurrently), so every call
         * that needs the whole system refuses while its iteration is open: a new p, a scheduled
         * run, an init over it, a copy into or out of it. */
        sgs_svgd_schedule sch;
        memset(&sch, 0, sizeof sch);
        sch.kind = SGS_SCHEDULE_DOUBLING;
        sch.start = 2;
        sch.every = 1;
        sfix g;
        sfix_init(&g, c0);
        CASE("svgd set batch size during phases", sgs_svgd_set_batch_size(&f.s, 2), SGS_ERR_ITERATION_IN_PROGRESS,
             ssame(&f));
        CASE("svgd scheduled run during phases", sgs_svgd_run_scheduled(&f.s, 2, &sch, NULL),
             SGS_ERR_ITERATION_IN_PROGRESS, ssame(&f));
        CASE("svgd init over a system in phases",
             sgs_svgd_init(&f.s, &c0, f.x, SN, SD, f.ws, f.ws_len, f.idx, SN, prog_gradient, NULL, &f.p),
             SGS_ERR_ITERATION_IN_PROGRESS, ssame(&f));
        CASE("svgd copy into a system in phases",
             sgs_svgd_copy(&f.s, f.x, SN * SD, f.ws, f.ws_len, f.idx, SN, &g.s), SGS_ERR_ITERATION_IN_PROGRESS,
             ssame(&f));
        CASE("svgd copy from a system in phases",
             sgs_svgd_copy(&g.s, g.x, SN * SD, g.ws, g.ws_len, g.idx, SN, &f.s), SGS_ERR_ITERATION_IN_PROGRESS,
             ssame(&f));
    }
    CASE("svgd gradients range 5..3 (reversed)", sgs_svgd_gradients_range(&f.s, 5, 3), SGS_ERR_INVALID_RANGE,
         ssame(&f));
    CASE("svgd gradients range 0..N+1", sgs_svgd_gradients_range(&f.s, 0, SN + 1), SGS_ERR_RANGE_OUT_OF_BOUNDS,
         ssame(&f));
    CASE("svgd gradients range SIZE_MAX..SIZE_MAX", sgs_svgd_gradients_range(&f.s, (size_t)-1, (size_t)-1),
         SGS_ERR_RANGE_OUT_OF_BOUNDS, ssame(&f));
    CASE("svgd batches before their gradients", sgs_svgd_batches_range(&f.s, 0, 1), SGS_ERR_GRADIENTS_NOT_READY,
         ssame(&f));
    CASE("svgd finish with nothing computed", sgs_svgd_finish(&f.s, &info), SGS_ERR_ITERATION_INCOMPLETE,
         ssame(&f));
    CASE("svgd gradients range 0..5", sgs_svgd_gradients_range(&f.s, 0, 5), SGS_OK, 1);
    ssnap(&f);
    CASE("svgd gradients range 4..8 overlaps 0..5", sgs_svgd_gradients_range(&f.s, 4, 8), SGS_ERR_RANGE_OVERLAP,
         ssame(&f));
    CASE("svgd gradients range 0..5 twice", sgs_svgd_gradients_range(&f.s, 0, 5), SGS_ERR_RANGE_OVERLAP, ssame(&f));
    CASE("svgd batch 1 before slots 5..8 have gradients", sgs_svgd_batches_range(&f.s, 1, 2),
         SGS_ERR_GRADIENTS_NOT_READY, ssame(&f));
    CASE("svgd gradients range 5..8", sgs_svgd_gradients_range(&f.s, 5, 8), SGS_OK, 1);
    CASE("svgd empty gradients range 3..3", sgs_svgd_gradients_range(&f.s, 3, 3), SGS_OK, 1);
    ssnap(&f);
    CASE("svgd batches range 0..3 (2 batches)", sgs_svgd_batches_range(&f.s, 0, 3), SGS_ERR_RANGE_OUT_OF_BOUNDS,
         ssame(&f));
    CASE("svgd batches range 1..0 (reversed)", sgs_svgd_batches_range(&f.s, 1, 0), SGS_ERR_INVALID_RANGE,
         ssame(&f));
    CASE("svgd forces get before they are computed", sgs_svgd_forces_get(&f.s, 0, 4, out, 8),
         SGS_ERR_ITERATION_INCOMPLETE, ssame(&f));
    CASE("svgd batches range 0..1", sgs_svgd_batches_range(&f.s, 0, 1), SGS_OK, 1);
    ssnap(&f);
    CASE("svgd batches range 0..1 twice", sgs_svgd_batches_range(&f.s, 0, 1), SGS_ERR_RANGE_OVERLAP, ssame(&f));
    CASE("svgd batches range 0..2 overlaps 0..1", sgs_svgd_batches_range(&f.s, 0, 2), SGS_ERR_RANGE_OVERLAP,
         ssame(&f));
    CASE("svgd forces put into computed slots", sgs_svgd_forces_put(&f.s, 0, 4, out, 8), SGS_ERR_RANGE_OVERLAP,
         ssame(&f));
    CASE("svgd forces put: length one short", sgs_svgd_forces_put(&f.s, 4, 8, out, 7), SGS_ERR_LENGTH_MISMATCH,
         ssame(&f));
    CASE("svgd forces put: input inside the workspace", sgs_svgd_forces_put(&f.s, 4, 8, f.ws + 1, 8),
         SGS_ERR_INVALID_ARGUMENT, ssame(&f));
    CASE("svgd forces get: out one short", sgs_svgd_forces_get(&f.s, 0, 4, out, 7), SGS_ERR_OUTPUT_TOO_SMALL,
         ssame(&f));
    CASE("svgd forces get: out NULL", sgs_svgd_forces_get(&f.s, 0, 4, NULL, 8), SGS_ERR_NULL_POINTER, ssame(&f));
    {
        /* Moved rows (AdaGrad: position, history, force; 3·d values per slot). */
        size_t w = 0;
        double mv[3 * SN * SD];
        CASE("svgd move width (AdaGrad: 3d)", sgs_svgd_move_width(&f.s, &w), SGS_OK, ssame(&f) && w == 3 * SD);
        CASE("svgd moves get of slots not computed", sgs_svgd_moves_get(&f.s, 4, 8, mv, 3 * 4 * SD),
             SGS_ERR_ITERATION_INCOMPLETE, ssame(&f));
        CASE("svgd moves get: out one short", sgs_svgd_moves_get(&f.s, 0, 4, mv, 3 * 4 * SD - 1),
             SGS_ERR_OUTPUT_TOO_SMALL, ssame(&f));
        CASE("svgd moves get: out inside the workspace", sgs_svgd_moves_get(&f.s, 0, 4, f.ws + 1, 3 * 4 * SD),
             SGS_ERR_INVALID_ARGUMENT, ssame(&f));
        CASE("svgd moves get: out NULL", sgs_svgd_moves_get(&f.s, 0, 4, NULL, 3 * 4 * SD), SGS_ERR_NULL_POINTER,
             ssame(&f));
        CASE("svgd moves get: range reversed", sgs_svgd_moves_get(&f.s, 4, 0, mv, 3 * 4 * SD),
             SGS_ERR_INVALID_RANGE, ssame(&f));
        CASE("svgd moves get: range past N", sgs_svgd_moves_get(&f.s, 0, SN + 1, mv, 3 * (SN + 1) * SD),
             SGS_ERR_RANGE_OUT_OF_BOUNDS, ssame(&f));
        CASE("svgd moves put into computed slots", sgs_svgd_moves_put(&f.s, 0, 4, mv, 3 * 4 * SD),
             SGS_ERR_RANGE_OVERLAP, ssame(&f));
        CASE("svgd moves put: length one short", sgs_svgd_moves_put(&f.s, 4, 8, mv, 3 * 4 * SD - 1),
             SGS_ERR_LENGTH_MISMATCH, ssame(&f));
        CASE("svgd moves put: the forces' length", sgs_svgd_moves_put(&f.s, 4, 8, mv, 4 * SD),
             SGS_ERR_LENGTH_MISMATCH, ssame(&f));
        CASE("svgd moves put: input inside the workspace", sgs_svgd_moves_put(&f.s, 4, 8, f.ws + 1, 3 * 4 * SD),
             SGS_ERR_INVALID_ARGUMENT, ssame(&f));
        CASE("svgd moves put: input NULL", sgs_svgd_moves_put(&f.s, 4, 8, NULL, 3 * 4 * SD), SGS_ERR_NULL_POINTER,
             ssame(&f));
        CASE("svgd move width: out NULL", sgs_svgd_move_width(&f.s, NULL), SGS_ERR_NULL_POINTER, ssame(&f));
    }
    CASE("svgd finish with batch 1 missing", sgs_svgd_finish(&f.s, &info), SGS_ERR_ITERATION_INCOMPLETE,
         ssame(&f));
    CASE("svgd batches range 1..2", sgs_svgd_batches_range(&f.s, 1, 2), SGS_OK, 1);
    CASE("svgd finish", sgs_svgd_finish(&f.s, &info), SGS_OK, 1);
    {
        sgs_svgd_info want;
        int ok = sgs_svgd_step(&twin.s, &want) == SGS_OK && memcmp(&want, &info, sizeof info) == 0 &&
                 memcmp(twin.x, f.x, sizeof f.x) == 0;
        expect("svgd phases (ranges out of order) == step, bit for bit", ok, NULL);
    }
    ssnap(&f);
    CASE("svgd finish twice", sgs_svgd_finish(&f.s, &info), SGS_ERR_ITERATION_NOT_BEGUN, ssame(&f));

    /* A gradient callback ABORT inside a range, then cancel: as before begin. */
    {
        sfix g, t2;
        sfix_init(&g, c0);
        sfix_init(&t2, c0);
        ssnap(&g);
        g.p.g_abort = g.p.g_calls + 3;
        int ok = sgs_svgd_begin(&g.s) == SGS_OK;
        int32_t st = sgs_svgd_gradients_range(&g.s, 0, SN);
        ok &= sgs_svgd_cancel(&g.s) == SGS_OK && ssame_system(&g, &c0);
        sgs_svgd_info x1, x2;
        ok &= sgs_svgd_step(&g.s, &x1) == SGS_OK && sgs_svgd_step(&t2.s, &x2) == SGS_OK &&
              memcmp(&x1, &x2, sizeof x1) == 0 && memcmp(g.x, t2.x, sizeof g.x) == 0;
        expect_status("svgd gradients range: ABORT, cancel, then as if nothing happened", st,
                      SGS_ERR_CALLBACK_ABORTED, ok);
    }
    /* The MPI pattern: system B computes nothing itself, takes all forces from system A. */
    {
        sfix A, B;
        sfix_init(&A, c0);
        sfix_init(&B, c0);
        sgs_svgd_info ia, ib;
        double phi[SN * SD];
        int ok = sgs_svgd_begin(&A.s) == SGS_OK && sgs_svgd_begin(&B.s) == SGS_OK &&
                 sgs_svgd_gradients_range(&A.s, 0, SN) == SGS_OK && sgs_svgd_batches_range(&A.s, 0, 2) == SGS_OK &&
                 sgs_svgd_forces_get(&A.s, 0, SN, phi, SN * SD) == SGS_OK &&
                 sgs_svgd_forces_put(&B.s, 0, SN, phi, SN * SD) == SGS_OK &&
                 sgs_svgd_finish(&A.s, &ia) == SGS_OK && sgs_svgd_finish(&B.s, &ib) == SGS_OK &&
                 memcmp(&ia, &ib, sizeof ia) == 0 && memcmp(A.x, B.x, sizeof A.x) == 0;
        expect("svgd forces get from one system, put into another: same step", ok, NULL);
        /* A NaN force put in: finish fails with nothing moved, and the iteration is over. */
        ssnap(&B);
        phi[5] = NAN;
        ok = sgs_svgd_begin(&B.s) == SGS_OK && sgs_svgd_forces_put(&B.s, 0, SN, phi, SN * SD) == SGS_OK;
        int32_t st = sgs_svgd_finish(&B.s, &ib);
        ok &= ssame_system(&B, &c0) && sgs_svgd_begin(&B.s) == SGS_OK && sgs_svgd_cancel(&B.s) == SGS_OK;
        expect_status("svgd finish after a NaN force was put in: non-finite, nothing moved", st,
                      SGS_ERR_NON_FINITE, ok);
    }
    /* Moved rows shared between two systems: each computes one batch, takes the other's moves
     * (no arithmetic), and both equal the serial step; with AdaGrad and with a constant rule
     * (2·d values per slot); a NaN put in fails finish with nothing moved. */
    for (int rule = 0; rule < 2; rule++) {
        sgs_svgd_config cm = c0;
        if (rule) cm.step_rule = SGS_STEP_RULE_CONSTANT;
        sfix A, B, T;
        sfix_init(&A, cm);
        sfix_init(&B, cm);
        sfix_init(&T, cm);
        size_t w = 0;
        double ma[3 * SN * SD], mb[3 * SN * SD];
        sgs_svgd_info ia, ib, it;
        int ok = sgs_svgd_move_width(&A.s, &w) == SGS_OK && w == (rule ? 2 : 3) * SD;
        for (int k = 0; k < 3 && ok; k++) {
            size_t h = 4 * w; /* one batch of 4 slots */
            ok &= sgs_svgd_begin(&A.s) == SGS_OK && sgs_svgd_begin(&B.s) == SGS_OK &&
                  sgs_svgd_gradients_range(&A.s, 0, 4) == SGS_OK && sgs_svgd_batches_range(&A.s, 0, 1) == SGS_OK &&
                  sgs_svgd_gradients_range(&B.s, 4, 8) == SGS_OK && sgs_svgd_batches_range(&B.s, 1, 2) == SGS_OK &&
                  sgs_svgd_moves_get(&A.s, 0, 4, ma, h) == SGS_OK && sgs_svgd_moves_get(&B.s, 4, 8, mb, h) == SGS_OK &&
                  sgs_svgd_moves_put(&A.s, 4, 8, mb, h) == SGS_OK && sgs_svgd_moves_put(&B.s, 0, 4, ma, h) == SGS_OK &&
                  sgs_svgd_finish(&A.s, &ia) == SGS_OK && sgs_svgd_finish(&B.s, &ib) == SGS_OK &&
                  sgs_svgd_step(&T.s, &it) == SGS_OK && memcmp(&ia, &it, sizeof ia) == 0 &&
                  memcmp(&ib, &it, sizeof ib) == 0 && memcmp(A.x, T.x, sizeof A.x) == 0 &&
                  memcmp(B.x, T.x, sizeof B.x) == 0;
            /* The AdaGrad history came across too: the next iteration still agrees. */
        }
        expect(rule ? "svgd moves exchanged between two systems (constant rule, 3 iterations) == step"
                    : "svgd moves exchanged between two systems (AdaGrad, 3 iterations) == step",
               ok, NULL);
        ssnap(&B);
        ok = sgs_svgd_begin(&B.s) == SGS_OK && sgs_svgd_gradients_range(&B.s, 4, 8) == SGS_OK &&
             sgs_svgd_batches_range(&B.s, 1, 2) == SGS_OK;
        ma[2] = NAN; /* any one value: a new position, a history or a force */
        ok &= sgs_svgd_moves_put(&B.s, 0, 4, ma, 4 * w) == SGS_OK;
        int32_t st = sgs_svgd_finish(&B.s, &ib);
        ok &= ssame_system(&B, &cm);
        expect_status(rule ? "svgd finish after a NaN move was put in (constant rule): nothing moved"
                           : "svgd finish after a NaN move was put in (AdaGrad): nothing moved",
                      st, SGS_ERR_NON_FINITE, ok);
    }
    /* With the KSD on the moves are made in finish: no moves to get or put. */
    {
        sgs_svgd_config ck = c0;
        ck.ksd = SGS_KSD_FULL;
        sfix K;
        sfix_init(&K, ck);
        double mv[3 * SN * SD];
        int ok = sgs_svgd_begin(&K.s) == SGS_OK && sgs_svgd_gradients_range(&K.s, 0, SN) == SGS_OK &&
                 sgs_svgd_batches_range(&K.s, 0, 2) == SGS_OK;
        ssnap(&K);
        CASE("svgd moves get with the KSD on", sgs_svgd_moves_get(&K.s, 0, 4, mv, 3 * 4 * SD), SGS_ERR_INVALID_OPTION,
             ok && ssame(&K));
        CASE("svgd moves put with the KSD on", sgs_svgd_moves_put(&K.s, 0, 4, mv, 3 * 4 * SD),
             SGS_ERR_INVALID_OPTION, ssame(&K));
        CASE("svgd finish with the KSD on", sgs_svgd_finish(&K.s, NULL), SGS_OK, 1);
    }
    /* The float functions follow the same bookkeeping. */
    {
        sgs_svgd_f32 s;
        float x[SN * SD], ws[512];
        uint32_t idx[SN];
        prog p;
        memset(&s, 0, sizeof s);
        memset(&p, 0, sizeof p);
        for (size_t k = 0; k < SN * SD; k++) x[k] = (float)k / 7.0f - 0.5f;
        size_t len = sgs_svgd_workspace_len_f32(SN, SD, &c0);
        int ok = len <= 512 && sgs_svgd_init_f32(&s, &c0, x, SN, SD, ws, len, idx, SN, prog_gradient_f32, NULL, &p) ==
                                   SGS_OK;
        ok &= sgs_svgd_begin_f32(&s) == SGS_OK && sgs_svgd_gradients_range_f32(&s, 0, SN) == SGS_OK;
        ok &= sgs_svgd_gradients_range_f32(&s, 2, 3) == SGS_ERR_RANGE_OVERLAP;
        ok &= sgs_svgd_batches_range_f32(&s, 0, 2) == SGS_OK && sgs_svgd_finish_f32(&s, NULL) == SGS_OK;
        ok &= sgs_svgd_cancel_f32(&s) == SGS_ERR_ITERATION_NOT_BEGUN;
        expect("svgd f32 phases: begin, ranges, overlap refused, finish", ok, NULL);
    }
    /* Regressions of what the fuzz target found (fuzz/artifacts-found/). */
    /* cancel and a failing finish leave the state byte for byte as before begin even with garbage
     * on the stack below the caller: the pending iteration was an Option whose None was stored
     * from an uninitialised temporary, stack bytes (addresses included) and all. */
    {
        sfix g;
        sfix_init(&g, c0);
        ssnap(&g);
        int ok = sgs_svgd_begin(&g.s) == SGS_OK && sgs_svgd_gradients_range(&g.s, 0, SN) == SGS_OK;
        dirty_stack();
        ok &= sgs_svgd_cancel(&g.s) == SGS_OK;
        expect("svgd cancel after garbage on the stack: the state's bytes as before begin", ok && ssame_system(&g, &c0),
               NULL);
        double phi[SN * SD];
        for (size_t k = 0; k < SN * SD; k++) phi[k] = NAN;
        ok = sgs_svgd_begin(&g.s) == SGS_OK && sgs_svgd_forces_put(&g.s, 0, SN, phi, SN * SD) == SGS_OK;
        dirty_stack();
        int32_t st = sgs_svgd_finish(&g.s, NULL);
        expect_status("svgd finish (NaN forces) after garbage on the stack: the state's bytes as before begin", st,
                      SGS_ERR_NON_FINITE, ok && ssame_system(&g, &c0));
    }
    /* batch_rows wrote *first before refusing an `end` inside the workspace. */
    {
        size_t fa = 12345;
        ssnap(&f);
        CASE("svgd batch rows: end inside the workspace, first not written",
             sgs_svgd_batch_rows(&f.s, 1, &fa, (size_t *)(void *)(f.ws + 2)), SGS_ERR_INVALID_ARGUMENT,
             ssame(&f) && fa == 12345);
    }
    /* KSD on, every force put in from another system: the particles and the info are the step's
     * but the KSD, which needs every slot's position and gradient here: NaN (it was computed from
     * the previous iteration's rows). */
    {
        sgs_svgd_config ck = c0;
        ck.ksd = SGS_KSD_FULL;
        sfix A, B, T;
        sfix_init(&A, ck);
        sfix_init(&B, ck);
        sfix_init(&T, ck);
        double phi[SN * SD];
        sgs_svgd_info ia, ib, it;
        int ok = sgs_svgd_begin(&A.s) == SGS_OK && sgs_svgd_gradients_range(&A.s, 0, SN) == SGS_OK &&
                 sgs_svgd_batches_range(&A.s, 0, 2) == SGS_OK &&
                 sgs_svgd_forces_get(&A.s, 0, SN, phi, SN * SD) == SGS_OK && sgs_svgd_begin(&B.s) == SGS_OK &&
                 sgs_svgd_forces_put(&B.s, 0, SN, phi, SN * SD) == SGS_OK && sgs_svgd_finish(&A.s, &ia) == SGS_OK &&
                 sgs_svgd_finish(&B.s, &ib) == SGS_OK && sgs_svgd_step(&T.s, &it) == SGS_OK;
        ok &= memcmp(&ia, &it, sizeof ia) == 0 && memcmp(B.x, T.x, sizeof B.x) == 0 &&
              ib.iteration == it.iteration && ib.interactions == it.interactions &&
              ib.mean_force == it.mean_force && ib.max_force == it.max_force && !isnan(it.ksd_squared) &&
              isnan(ib.ksd_squared);
        expect("svgd KSD on, all forces put in: the step's particles and info, ksd_squared NaN", ok, NULL);
    }
}

/* The streaming diagnostics: every argument checked, the state (all its bytes) and the outputs
 * unchanged on error. */
static void stats_cases(void) {
    enum { D = 2 };
    size_t bytes = 0;
    CASE("stats size: null out", sgs_stats_state_size(D, NULL), SGS_ERR_NULL_POINTER, 1);
    CASE("stats size: d = 0", sgs_stats_state_size(0, &bytes), SGS_ERR_ZERO_DIMENSION, bytes == 0);
    CASE("stats size: overflow", sgs_stats_state_size(SIZE_MAX / 2, &bytes),
         SGS_ERR_INVALID_ARGUMENT, bytes == 0);
    CASE("stats size", sgs_stats_state_size(D, &bytes), SGS_OK, bytes > sizeof(sgs_stats));
    size_t align = sgs_stats_state_align();
    /* Two states plus room to misalign one. */
    unsigned char *mem = calloc(1, 3 * bytes + 2 * align);
    unsigned char *before = malloc(bytes);
    if (!mem || !before) exit(2);
    sgs_stats *a = (sgs_stats *)(mem + (align - (uintptr_t)mem % align) % align);
    sgs_stats *b = (sgs_stats *)((unsigned char *)a + bytes + (align - bytes % align) % align);
    double x[D] = {1.0, 2.0}, out[D] = {7.0, 7.0};
    uint64_t n = 99;

    CASE("stats push before init", sgs_stats_push(a, x, D), SGS_ERR_NOT_INITIALISED, 1);
    CASE("stats mean before init", sgs_stats_mean(a, out, D), SGS_ERR_NOT_INITIALISED,
         out[0] == 7.0);
    uint32_t flags[D] = {77u, 77u};
    CASE("stats ess_flags before init", sgs_stats_ess_flags(a, flags, D), SGS_ERR_NOT_INITIALISED,
         flags[0] == 77u);
    CASE("stats init: null", sgs_stats_init(NULL, bytes, D), SGS_ERR_NULL_POINTER, 1);
    CASE("stats init: misaligned", sgs_stats_init((sgs_stats *)((unsigned char *)a + 1), bytes, D),
         SGS_ERR_INVALID_ARGUMENT, 1);
    CASE("stats init: d = 0", sgs_stats_init(a, bytes, 0), SGS_ERR_ZERO_DIMENSION, 1);
    CASE("stats init: too small", sgs_stats_init(a, bytes - 1, D), SGS_ERR_WORKSPACE_TOO_SMALL, 1);
    CASE("stats init", sgs_stats_init(a, bytes, D), SGS_OK, 1);
    CASE("stats init b", sgs_stats_init(b, bytes, D), SGS_OK, 1);
    CASE("stats push", sgs_stats_push(a, x, D), SGS_OK, 1);

    memcpy(before, a, bytes);
#define SAME (memcmp(before, a, bytes) == 0)
    double bad[D] = {1.0, NAN}, inf[D] = {INFINITY, 0.0};
    float badf[D] = {1.0f, NAN};
    CASE("stats push: null state", sgs_stats_push(NULL, x, D), SGS_ERR_NULL_POINTER, SAME);
    CASE("stats push: null x", sgs_stats_push(a, NULL, D), SGS_ERR_NULL_POINTER, SAME);
    CASE("stats push: wrong d", sgs_stats_push(a, x, D + 1), SGS_ERR_LENGTH_MISMATCH, SAME);
    CASE("stats push: NaN", sgs_stats_push(a, bad, D), SGS_ERR_NON_FINITE, SAME);
    CASE("stats push: inf", sgs_stats_push(a, inf, D), SGS_ERR_NON_FINITE, SAME);
    CASE("stats push_f32: NaN", sgs_stats_push_f32(a, badf, D), SGS_ERR_NON_FINITE, SAME);
    CASE("stats count: null out", sgs_stats_count(a, NULL), SGS_ERR_NULL_POINTER, SAME);
    CASE("stats count", sgs_stats_count(a, &n), SGS_OK, SAME && n == 1);
    CASE("stats count: out inside the state", sgs_stats_count(a, (uint64_t *)(void *)((unsigned char *)a + 64)),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("stats count: out on the state's first word", sgs_stats_count(a, (uint64_t *)(void *)a),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("stats mean: null out", sgs_stats_mean(a, NULL, D), SGS_ERR_NULL_POINTER, SAME);
    CASE("stats mean: short out", sgs_stats_mean(a, out, D - 1), SGS_ERR_OUTPUT_TOO_SMALL,
         SAME && out[0] == 7.0);
    CASE("stats ess: out inside the state", sgs_stats_ess(a, (double *)(void *)((unsigned char *)a + 64), D),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("stats mean", sgs_stats_mean(a, out, D), SGS_OK, SAME && out[0] == 1.0 && out[1] == 2.0);
    /* The ESS flags: the same checks, a uint32_t output untouched on error. One draw: NaN ESS,
     * flagged short. */
    flags[0] = flags[1] = 77u;
    CASE("stats ess_flags: null state", sgs_stats_ess_flags(NULL, flags, D), SGS_ERR_NULL_POINTER,
         SAME && flags[0] == 77u);
    CASE("stats ess_flags: null out", sgs_stats_ess_flags(a, NULL, D), SGS_ERR_NULL_POINTER, SAME);
    CASE("stats ess_flags: short out", sgs_stats_ess_flags(a, flags, D - 1), SGS_ERR_OUTPUT_TOO_SMALL,
         SAME && flags[0] == 77u);
    CASE("stats ess_flags: out inside the state",
         sgs_stats_ess_flags(a, (uint32_t *)(void *)((unsigned char *)a + 64), D), SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("stats ess_flags: misaligned out",
         sgs_stats_ess_flags(a, (uint32_t *)(void *)((unsigned char *)flags + 1), D), SGS_ERR_INVALID_ARGUMENT,
         SAME && flags[0] == 77u);
    CASE("stats ess_flags", sgs_stats_ess_flags(a, flags, D), SGS_OK,
         SAME && flags[0] == SGS_STATS_ESS_SHORT_CHAIN && flags[1] == SGS_STATS_ESS_SHORT_CHAIN);

    out[0] = out[1] = 7.0;
    const sgs_stats *both[2] = {a, b}, *with_null[2] = {a, NULL};
    CASE("stats rhat: null chains", sgs_stats_rhat(NULL, 2, out, D), SGS_ERR_NULL_POINTER,
         out[0] == 7.0);
    CASE("stats rhat: k = 0", sgs_stats_rhat(both, 0, out, D), SGS_ERR_ZERO_DIMENSION,
         out[0] == 7.0);
    CASE("stats rhat: a null chain", sgs_stats_rhat(with_null, 2, out, D), SGS_ERR_NULL_POINTER,
         out[0] == 7.0);
    CASE("stats rhat: counts differ (1 vs 0)", sgs_stats_rhat(both, 2, out, D),
         SGS_ERR_LENGTH_MISMATCH, out[0] == 7.0);
    CASE("stats ess_chains: counts differ", sgs_stats_ess_chains(both, 2, out, D),
         SGS_ERR_LENGTH_MISMATCH, out[0] == 7.0);
    flags[0] = flags[1] = 77u;
    CASE("stats ess_chains_flags: counts differ", sgs_stats_ess_chains_flags(both, 2, flags, D),
         SGS_ERR_LENGTH_MISMATCH, flags[0] == 77u);
    CASE("stats ess_chains_flags: null chains", sgs_stats_ess_chains_flags(NULL, 2, flags, D),
         SGS_ERR_NULL_POINTER, flags[0] == 77u);
    CASE("stats ess_chains_flags: k = 0", sgs_stats_ess_chains_flags(both, 0, flags, D),
         SGS_ERR_ZERO_DIMENSION, flags[0] == 77u);
    CASE("stats ess_chains_flags: null out", sgs_stats_ess_chains_flags(both, 1, NULL, D),
         SGS_ERR_NULL_POINTER, 1);
    CASE("stats ess_chains_flags: short out", sgs_stats_ess_chains_flags(both, 1, flags, D - 1),
         SGS_ERR_OUTPUT_TOO_SMALL, flags[0] == 77u);
    CASE("stats ess_chains_flags: out inside a state",
         sgs_stats_ess_chains_flags(both, 1, (uint32_t *)(void *)((unsigned char *)a + 64), D),
         SGS_ERR_INVALID_ARGUMENT, 1);
    CASE("stats ess_chains_flags: out over the chains array",
         sgs_stats_ess_chains_flags(both, 1, (uint32_t *)(void *)both, D), SGS_ERR_INVALID_ARGUMENT, 1);
    CASE("stats ess_chains_flags (one chain, one draw)", sgs_stats_ess_chains_flags(both, 1, flags, D),
         SGS_OK, flags[0] == SGS_STATS_ESS_SHORT_CHAIN && flags[1] == SGS_STATS_ESS_SHORT_CHAIN);
    CASE("stats rhat: short out", sgs_stats_rhat(both, 1, out, 1), SGS_ERR_OUTPUT_TOO_SMALL,
         out[0] == 7.0);
    /* A state of another dimension. */
    CASE("stats init b (d = 1)", sgs_stats_init(b, bytes, 1), SGS_OK, 1);
    CASE("stats rhat: dimensions differ", sgs_stats_rhat(both, 2, out, D),
         SGS_ERR_LENGTH_MISMATCH, out[0] == 7.0);
    /* Corruption of the recorded dimension is detected by the checksum. */
    size_t *dword = (size_t *)(void *)((unsigned char *)b + 24);
    *dword += 1;
    memcpy(before, a, bytes);
    CASE("stats push: corrupted", sgs_stats_push(b, x, 1), SGS_ERR_STATE_CORRUPTED, 1);
    *dword -= 1;
    /* A byte-wise copy is a valid independent state (no pointers inside, not address-bound). */
    memcpy(b, a, bytes);
    CASE("stats: memcpy'd copy counts", sgs_stats_count(b, &n), SGS_OK, n == 1);
    CASE("stats push to the copy", sgs_stats_push(b, x, D), SGS_OK, SAME);
    CASE("stats clear", sgs_stats_clear(b), SGS_OK, 1);
    CASE("stats push after clear", sgs_stats_push(b, x, D), SGS_ERR_NOT_INITIALISED, SAME);
#undef SAME
    free(before);
    free(mem);
}

/* The mass-matrix warm-up's configuration, workspace, getter and copy (the windows without the
 * approach: `mass_config`; the approach's own cases are in warmup_api_cases). */
static void mass_cases(void) {
    enum { WM = 10 * D };
    sgs_amagold_config c0 = sgs_amagold_config_default(0.2), c;
    fixture f;
    fixture_init(&f, c0);
    snap(&f);
    double wsm[WM];
    prog p2;
    memset(&p2, 0, sizeof p2);
    int32_t st;

    c = c0;
    c.mass = SGS_MASS_DIAGONAL;
    c.approach = 0;
    c.warmup = 20;
    expect("mass: workspace queries 6·d and 10·d",
           sgs_amagold_workspace_len(D) == WS && sgs_amagold_workspace_len_for(&c, D) == WM &&
               sgs_amagold_workspace_len_for_f32(&c, D) == WM && sgs_amagold_workspace_len_for(&c, 0) == 0 &&
               sgs_amagold_workspace_len_for(&c, SIZE_MAX / 4) == SIZE_MAX,
           NULL);
    expect("mass: off by default",
           c0.mass == SGS_MASS_UNIT && c0.approach == 1 && c0.jitter_steps == 0 && c0.reserved == 0, NULL);
    c = c0; c.mass = 3; c.warmup = 100;
    bad_config("mass init: mass 3", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.reserved = 1;
    bad_config("mass init: reserved != 0", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.mass = SGS_MASS_DIAGONAL; c.approach = 0; c.warmup = 19;
    st = sgs_amagold_init(&f.s, &c, THETA0, D, wsm, WM, prog_energy, prog_gradient, &p2);
    CASE("mass init: warm-up 19", st, SGS_ERR_INVALID_WARMUP, same(&f));
    c.warmup = 1;
    st = sgs_amagold_init(&f.s, &c, THETA0, D, wsm, WM, prog_energy, prog_gradient, &p2);
    CASE("mass init: warm-up 1", st, SGS_ERR_INVALID_WARMUP, same(&f));
    c.warmup = 20;
    st = sgs_amagold_init(&f.s, &c, THETA0, D, wsm, WM - 1, prog_energy, prog_gradient, &p2);
    CASE("mass init: workspace 10·d - 1", st, SGS_ERR_WORKSPACE_TOO_SMALL, same(&f));
    st = sgs_amagold_init(&f.s, &c, THETA0, D, wsm, WS, prog_energy, prog_gradient, &p2);
    CASE("mass init: workspace 6·d", st, SGS_ERR_WORKSPACE_TOO_SMALL, same(&f));
    {
        /* Without a warm-up a mass matrix is the identity until set (it was refused before 0.4). */
        sgs_amagold z = {{0}};
        double wz[WM], kz[D] = {0.0, 0.0};
        c.warmup = 0;
        st = sgs_amagold_init(&z, &c, THETA0, D, wz, WM, prog_energy, prog_gradient, &p2);
        expect("mass init: no warm-up -> unit mass until set",
               st == SGS_OK && sgs_amagold_inverse_mass(&z, kz, D) == SGS_OK && kz[0] == 1.0 && kz[1] == 1.0,
               sgs_status_str(st));
        c.warmup = 20;
    }

    double k[D + 1] = {0.0, 0.0, 0.0};
    CASE("inverse mass without a mass matrix: ones", sgs_amagold_inverse_mass(&f.s, k, D), SGS_OK,
         same(&f) && k[0] == 1.0 && k[1] == 1.0);
    CASE("inverse mass: out NULL", sgs_amagold_inverse_mass(&f.s, NULL, D), SGS_ERR_NULL_POINTER, same(&f));
    CASE("inverse mass: out too short", sgs_amagold_inverse_mass(&f.s, k, D - 1), SGS_ERR_OUTPUT_TOO_SMALL,
         same(&f));
    CASE("inverse mass: out inside the workspace", sgs_amagold_inverse_mass(&f.s, f.ws + 1, D),
         SGS_ERR_INVALID_ARGUMENT, same(&f));
    sgs_amagold zero = {{0}};
    CASE("inverse mass: not initialised", sgs_amagold_inverse_mass(&zero, k, D), SGS_ERR_NOT_INITIALISED, 1);

    /* A chain with a mass matrix: unit mass until the slow window ends, then the estimate. */
    sgs_amagold m = {{0}}, cp = {{0}};
    double wcp[WM];
    memset(&p2, 0, sizeof p2);
    c.warmup = 40;
    st = sgs_amagold_init(&m, &c, THETA0, D, wsm, WM, prog_energy, prog_gradient, &p2);
    expect("mass init: warm-up 40 without the approach, workspace 10·d", st == SGS_OK, sgs_status_str(st));
    k[0] = k[1] = 0.0;
    expect("mass: unit mass at the start",
           sgs_amagold_inverse_mass(&m, k, D) == SGS_OK && k[0] == 1.0 && k[1] == 1.0, NULL);
    for (int i = 0; i < 10; i++) sgs_amagold_step(&m, NULL);
    CASE("mass copy: workspace 6·d", sgs_amagold_copy(&cp, wcp, WS, &m), SGS_ERR_WORKSPACE_TOO_SMALL, 1);
    CASE("mass copy: workspace 10·d - 1", sgs_amagold_copy(&cp, wcp, WM - 1, &m), SGS_ERR_WORKSPACE_TOO_SMALL, 1);
    /* Mid-window: the copy must carry the running sums, or its mass would differ. */
    CASE("mass copy: workspace 10·d", sgs_amagold_copy(&cp, wcp, WM, &m), SGS_OK, 1);
    int same_run = 1;
    for (int i = 0; i < 60; i++) {
        double a[D], b[D];
        same_run &= sgs_amagold_step(&m, NULL) == SGS_OK && sgs_amagold_step(&cp, NULL) == SGS_OK &&
                    sgs_amagold_position(&m, a, D) == SGS_OK && sgs_amagold_position(&cp, b, D) == SGS_OK &&
                    memcmp(a, b, sizeof a) == 0;
    }
    double kc[D];
    same_run &= sgs_amagold_inverse_mass(&m, k, D) == SGS_OK && sgs_amagold_inverse_mass(&cp, kc, D) == SGS_OK &&
                memcmp(k, kc, sizeof kc) == 0;
    expect("mass copy: continues bit for bit, mass included", same_run, NULL);
    /* U = |x|²/2: the posterior variance is 1 and so is the curvature's floor σ²/H_ii, under
     * which no window estimate goes: each coordinate is 1 (up to the finite differences'
     * rounding) or a little above, never below. */
    expect("mass: estimated after the warm-up (finite, floored at the curvature's 1, near 1)",
           isfinite(k[0]) && isfinite(k[1]) && k[0] >= 1.0 - 1e-9 && k[1] >= 1.0 - 1e-9 && k[0] < 3.0 && k[1] < 3.0,
           NULL);

    float kf[D];
    sgs_amagold_f32 mf = {{0}};
    float wsf[WM];
    const float th0f[D] = {0.5f, -0.25f};
    memset(&p2, 0, sizeof p2);
    st = sgs_amagold_init_f32(&mf, &c, th0f, D, wsf, WM, prog_energy_f32, prog_gradient_f32, &p2);
    for (int i = 0; i < 50 && st == SGS_OK; i++) st = sgs_amagold_step_f32(&mf, NULL);
    expect("mass f32: runs and reads its estimate",
           st == SGS_OK && sgs_amagold_inverse_mass_f32(&mf, kf, D) == SGS_OK && kf[0] > 0.0f && kf[0] != 1.0f,
           NULL);
}

/* A chain with a mass matrix to aim bad calls at (warm-up 40 without the approach: Stan's windows
 * put one slow window on iterations 7-36), and its buffers' pristine copies. */
enum { WMASS = 10 * D, MASS_WARMUP = 40, MASS_WINDOW_END = 36 };
typedef struct {
    sgs_amagold s;
    double ws[WMASS];
    prog p;
    sgs_amagold saved;
    double ws_saved[WMASS];
} mfix;

static sgs_amagold_config mass_config(void) {
    sgs_amagold_config c = sgs_amagold_config_default(0.2);
    c.mass = SGS_MASS_DIAGONAL;
    c.approach = 0;
    c.warmup = MASS_WARMUP;
    c.steps = 4;
    return c;
}

/* A mass chain after `iters` iterations. */
static void mfix_init(mfix *f, int iters) {
    memset(f, 0, sizeof *f);
    sgs_amagold_config c = mass_config();
    if (sgs_amagold_init(&f->s, &c, THETA0, D, f->ws, WMASS, prog_energy, prog_gradient, &f->p) != SGS_OK) {
        printf("FAIL mass fixture init\n");
        exit(1);
    }
    for (int i = 0; i < iters; i++) sgs_amagold_step(&f->s, NULL);
}

static void msnap(mfix *f) {
    memcpy(&f->saved, &f->s, sizeof f->s);
    memcpy(f->ws_saved, f->ws, sizeof f->ws);
}

/* The state struct and the whole 10·d workspace (position, momentum, mass factors, the window's
 * running sums) are byte-for-byte as at the last msnap(). */
static int msame(const mfix *f) {
    return memcmp(&f->saved, &f->s, sizeof f->s) == 0 && memcmp(f->ws_saved, f->ws, sizeof f->ws) == 0;
}

/* After a failed iteration: the state struct, θ (block 0), the persistent momentum (block 2)
 * and the four mass blocks (6..9) are as at the last msnap(); only scratch may differ. */
static int msame_chain(const mfix *f) {
    return memcmp(&f->saved, &f->s, sizeof f->s) == 0 && memcmp(f->ws_saved, f->ws, D * sizeof(double)) == 0 &&
           memcmp(f->ws_saved + 2 * D, f->ws + 2 * D, D * sizeof(double)) == 0 &&
           memcmp(f->ws_saved + 6 * D, f->ws + 6 * D, 4 * D * sizeof(double)) == 0;
}

/* Every rejection of the mass-matrix API, on a live chain with a mass matrix, mid-window and after
 * the window set its mass: the documented status, and the chain (state and whole workspace) and
 * the caller's other buffers unchanged. Then callbacks that abort or return non-finite values
 * during the warm-up. */
static void mass_status_cases(void) {
    const int stages[2] = {10, MASS_WINDOW_END + 1};
    const char *stage_name[2] = {"mid-window", "mass set"};
    for (int st_i = 0; st_i < 2; st_i++) {
        mfix f;
        mfix_init(&f, stages[st_i]);
        msnap(&f);
        char name[160];
#define MCASE(what, call, want, cond)                                         \
    do {                                                                      \
        snprintf(name, sizeof name, "mass (%s): %s", stage_name[st_i], what); \
        CASE(name, call, want, cond);                                         \
    } while (0)

        /* inverse_mass: outputs. `k` has room for D + 2 values and a sentinel pattern. */
        double k[D + 2];
        memset(k, 0x5a, sizeof k);
        double k_saved[D + 2];
        memcpy(k_saved, k, sizeof k);
#define KSAME (memcmp(k, k_saved, sizeof k) == 0)
        MCASE("inverse mass: out_len d - 1", sgs_amagold_inverse_mass(&f.s, k, D - 1), SGS_ERR_OUTPUT_TOO_SMALL,
              msame(&f) && KSAME);
        MCASE("inverse mass: out_len 0", sgs_amagold_inverse_mass(&f.s, k, 0), SGS_ERR_OUTPUT_TOO_SMALL,
              msame(&f) && KSAME);
        MCASE("inverse mass: out_len SIZE_MAX", sgs_amagold_inverse_mass(&f.s, k, SIZE_MAX),
              SGS_ERR_INVALID_ARGUMENT, msame(&f) && KSAME);
        MCASE("inverse mass: out NULL", sgs_amagold_inverse_mass(&f.s, NULL, D), SGS_ERR_NULL_POINTER, msame(&f));
        MCASE("inverse mass: state NULL", sgs_amagold_inverse_mass(NULL, k, D), SGS_ERR_NULL_POINTER, KSAME);
        MCASE("inverse mass: out misaligned",
              sgs_amagold_inverse_mass(&f.s, (double *)(void *)((char *)k + 1), D), SGS_ERR_INVALID_ARGUMENT,
              msame(&f) && KSAME);
        MCASE("inverse mass: out over the mass blocks", sgs_amagold_inverse_mass(&f.s, f.ws + 7 * D, D),
              SGS_ERR_INVALID_ARGUMENT, msame(&f));
        MCASE("inverse mass: out inside the state",
              sgs_amagold_inverse_mass(&f.s, (double *)(void *)&f.s._opaque[8], D), SGS_ERR_INVALID_ARGUMENT,
              msame(&f));
        MCASE("inverse mass: f32 getter on a double chain",
              sgs_amagold_inverse_mass_f32((const sgs_amagold_f32 *)(const void *)&f.s, (float *)(void *)k, D),
              SGS_ERR_NOT_INITIALISED, msame(&f) && KSAME);
        sgs_amagold moved;
        memcpy(&moved, &f.s, sizeof moved);
        MCASE("inverse mass: memcpy'd state -> moved", sgs_amagold_inverse_mass(&moved, k, D),
              SGS_ERR_STATE_MOVED, msame(&f) && KSAME);
        /* A longer output gets d values; the rest is the caller's. */
        int unit = st_i == 0;
        MCASE("inverse mass: out_len d + 2 writes d values", sgs_amagold_inverse_mass(&f.s, k, D + 2), SGS_OK,
              msame(&f) && memcmp(k + D, k_saved + D, 2 * sizeof(double)) == 0 &&
                  (unit ? k[0] == 1.0 && k[1] == 1.0
                        : memcmp(k, f.ws + 7 * D, D * sizeof(double)) == 0 && k[0] != 1.0 && k[0] > 0.0));
        memcpy(k_saved, k, sizeof k);

        /* copy: destination workspace lengths and pointers. */
        sgs_amagold cp;
        double wcp[WMASS + 1];
        memset(&cp, 0, sizeof cp);
        memset(wcp, 0xa5, sizeof wcp);
        sgs_amagold cp_saved;
        double wcp_saved[WMASS + 1];
        memcpy(&cp_saved, &cp, sizeof cp);
        memcpy(wcp_saved, wcp, sizeof wcp);
#define CPSAME (memcmp(&cp, &cp_saved, sizeof cp) == 0 && memcmp(wcp, wcp_saved, sizeof wcp) == 0)
        MCASE("copy: workspace 6·d", sgs_amagold_copy(&cp, wcp, WS, &f.s), SGS_ERR_WORKSPACE_TOO_SMALL,
              msame(&f) && CPSAME);
        MCASE("copy: workspace 10·d - 1", sgs_amagold_copy(&cp, wcp, WMASS - 1, &f.s), SGS_ERR_WORKSPACE_TOO_SMALL,
              msame(&f) && CPSAME);
        MCASE("copy: workspace length SIZE_MAX", sgs_amagold_copy(&cp, wcp, SIZE_MAX, &f.s),
              SGS_ERR_INVALID_ARGUMENT, msame(&f) && CPSAME);
        MCASE("copy: dst NULL", sgs_amagold_copy(NULL, wcp, WMASS, &f.s), SGS_ERR_NULL_POINTER, msame(&f) && CPSAME);
        MCASE("copy: workspace NULL", sgs_amagold_copy(&cp, NULL, WMASS, &f.s), SGS_ERR_NULL_POINTER,
              msame(&f) && CPSAME);
        MCASE("copy: src NULL", sgs_amagold_copy(&cp, wcp, WMASS, NULL), SGS_ERR_NULL_POINTER, CPSAME);
        MCASE("copy: onto the source's workspace", sgs_amagold_copy(&cp, f.ws, WMASS, &f.s),
              SGS_ERR_INVALID_ARGUMENT, msame(&f) && CPSAME);
        MCASE("copy: workspace 10·d + 1", sgs_amagold_copy(&cp, wcp, WMASS + 1, &f.s), SGS_OK,
              msame(&f) && memcmp(wcp, f.ws, sizeof f.ws) == 0);

        /* init over the live mass chain with a bad config or workspace: refused, chain intact. */
        sgs_amagold_config c = mass_config();
        double ws2[WMASS];
        memset(ws2, 0xa5, sizeof ws2);
        double ws2_saved[WMASS];
        memcpy(ws2_saved, ws2, sizeof ws2);
        prog p2;
        memset(&p2, 0, sizeof p2);
#define WS2SAME (memcmp(ws2, ws2_saved, sizeof ws2) == 0 && p2.e_calls == 0)
        c.warmup = 19;
        MCASE("init over it: warm-up 19", sgs_amagold_init(&f.s, &c, THETA0, D, ws2, WMASS, prog_energy, prog_gradient, &p2),
              SGS_ERR_INVALID_WARMUP, msame(&f) && WS2SAME);
        c.warmup = 1;
        MCASE("init over it: warm-up 1", sgs_amagold_init(&f.s, &c, THETA0, D, ws2, WMASS, prog_energy, prog_gradient, &p2),
              SGS_ERR_INVALID_WARMUP, msame(&f) && WS2SAME);
        c.warmup = MASS_WARMUP;
        c.approach = 1;
        MCASE("init over it: with the approach, workspace 10·d (22·d needed)",
              sgs_amagold_init(&f.s, &c, THETA0, D, ws2, WMASS, prog_energy, prog_gradient, &p2),
              SGS_ERR_WORKSPACE_TOO_SMALL, msame(&f) && WS2SAME);
        c.approach = 0;
        c.warmup = MASS_WARMUP;
        MCASE("init over it: workspace 10·d - 1",
              sgs_amagold_init(&f.s, &c, THETA0, D, ws2, WMASS - 1, prog_energy, prog_gradient, &p2),
              SGS_ERR_WORKSPACE_TOO_SMALL, msame(&f) && WS2SAME);
        MCASE("init over it: workspace 6·d",
              sgs_amagold_init(&f.s, &c, THETA0, D, ws2, WS, prog_energy, prog_gradient, &p2),
              SGS_ERR_WORKSPACE_TOO_SMALL, msame(&f) && WS2SAME);
        MCASE("init over it: workspace NULL",
              sgs_amagold_init(&f.s, &c, THETA0, D, NULL, WMASS, prog_energy, prog_gradient, &p2),
              SGS_ERR_NULL_POINTER, msame(&f) && WS2SAME);
        MCASE("init over it: config NULL",
              sgs_amagold_init(&f.s, NULL, THETA0, D, ws2, WMASS, prog_energy, prog_gradient, &p2),
              SGS_ERR_NULL_POINTER, msame(&f) && WS2SAME);
        MCASE("init over it: energy callback NULL",
              sgs_amagold_init(&f.s, &c, THETA0, D, ws2, WMASS, NULL, prog_gradient, &p2),
              SGS_ERR_NULL_POINTER, msame(&f) && WS2SAME);
        c.reserved = 1;
        MCASE("init over it: reserved 1", sgs_amagold_init(&f.s, &c, THETA0, D, ws2, WMASS, prog_energy, prog_gradient, &p2),
              SGS_ERR_INVALID_OPTION, msame(&f) && WS2SAME);
#undef KSAME
#undef CPSAME
#undef WS2SAME
#undef MCASE
        /* Every refusal above left it able to go on: a step still succeeds. */
        snprintf(name, sizeof name, "mass (%s): steps after the refusals", stage_name[st_i]);
        CASE(name, sgs_amagold_step(&f.s, NULL), SGS_OK, 1);
    }

    /* f32: the same statuses through the float functions. */
    {
        sgs_amagold_f32 s = {{0}}, cp = {{0}};
        float ws[WMASS], wcp[WMASS], k[D] = {0.0f, 0.0f};
        const float th0[D] = {0.5f, -0.25f};
        prog p;
        memset(&p, 0, sizeof p);
        sgs_amagold_config c = mass_config();
        c.warmup = 19;
        CASE("mass f32: init warm-up 19", sgs_amagold_init_f32(&s, &c, th0, D, ws, WMASS, prog_energy_f32, prog_gradient_f32, &p),
             SGS_ERR_INVALID_WARMUP, s._opaque[0] == 0);
        c.warmup = MASS_WARMUP;
        CASE("mass f32: init workspace 10·d - 1",
             sgs_amagold_init_f32(&s, &c, th0, D, ws, WMASS - 1, prog_energy_f32, prog_gradient_f32, &p),
             SGS_ERR_WORKSPACE_TOO_SMALL, s._opaque[0] == 0);
        int32_t st = sgs_amagold_init_f32(&s, &c, th0, D, ws, WMASS, prog_energy_f32, prog_gradient_f32, &p);
        for (int i = 0; i < 10 && st == SGS_OK; i++) st = sgs_amagold_step_f32(&s, NULL);
        expect("mass f32: init and 10 iterations", st == SGS_OK, sgs_status_str(st));
        sgs_amagold_f32 saved;
        memcpy(&saved, &s, sizeof s);
        float ws_saved[WMASS];
        memcpy(ws_saved, ws, sizeof ws);
#define FSAME (memcmp(&saved, &s, sizeof s) == 0 && memcmp(ws_saved, ws, sizeof ws) == 0)
        CASE("mass f32: inverse mass out_len d - 1", sgs_amagold_inverse_mass_f32(&s, k, D - 1), SGS_ERR_OUTPUT_TOO_SMALL,
             FSAME && k[0] == 0.0f);
        CASE("mass f32: inverse mass out NULL", sgs_amagold_inverse_mass_f32(&s, NULL, D), SGS_ERR_NULL_POINTER, FSAME);
        CASE("mass f32: inverse mass state NULL", sgs_amagold_inverse_mass_f32(NULL, k, D), SGS_ERR_NULL_POINTER,
             k[0] == 0.0f);
        CASE("mass f32: copy workspace 6·d", sgs_amagold_copy_f32(&cp, wcp, WS, &s), SGS_ERR_WORKSPACE_TOO_SMALL,
             FSAME && cp._opaque[0] == 0);
        CASE("mass f32: copy workspace 10·d - 1", sgs_amagold_copy_f32(&cp, wcp, WMASS - 1, &s),
             SGS_ERR_WORKSPACE_TOO_SMALL, FSAME && cp._opaque[0] == 0);
#undef FSAME
    }

    /* Callbacks that abort during the warm-up, at the iteration that ends the slow window: the
     * chain (position, momentum, mass factors, window sums) stays; the retried iteration then
     * sets the same mass as a twin without the fault, and both go on alike. */
    struct {
        const char *name;
        int which; /* 0 gradient abort, 1 energy abort */
        long at;
    } aborts[] = {
        {"mass: gradient ABORTs in the window's last iteration", 0, 2},
        {"mass: energy ABORTs in the window's last iteration", 1, 1},
    };
    for (size_t a = 0; a < sizeof aborts / sizeof aborts[0]; a++) {
        mfix f, twin;
        mfix_init(&f, MASS_WINDOW_END - 1);
        mfix_init(&twin, MASS_WINDOW_END - 1);
        msnap(&f);
        if (aborts[a].which == 0) f.p.g_abort = f.p.g_calls + aborts[a].at;
        else f.p.e_abort = f.p.e_calls + aborts[a].at;
        double k[D];
        int32_t st = sgs_amagold_step(&f.s, NULL);
        int unchanged = msame_chain(&f) && sgs_amagold_inverse_mass(&f.s, k, D) == SGS_OK && k[0] == 1.0 &&
                        k[1] == 1.0;
        int ok = 1;
        for (int i = 0; i < 8; i++) {
            sgs_amagold_info x, y;
            ok &= sgs_amagold_step(&f.s, &x) == SGS_OK && sgs_amagold_step(&twin.s, &y) == SGS_OK &&
                  memcmp(&x, &y, sizeof x) == 0;
        }
        double kt[D];
        ok &= sgs_amagold_inverse_mass(&f.s, k, D) == SGS_OK && sgs_amagold_inverse_mass(&twin.s, kt, D) == SGS_OK &&
              memcmp(k, kt, sizeof k) == 0 && k[0] != 1.0 && memcmp(f.ws, twin.ws, sizeof f.ws) == 0;
        CASE(aborts[a].name, st, SGS_ERR_CALLBACK_ABORTED, unchanged && ok);
    }

    /* run: an abort in the warm-up's 5th iteration of the run leaves 4 rows and the chain where
     * a twin is after 4 steps (its window sums included). */
    {
        mfix f, twin;
        mfix_init(&f, 10);
        mfix_init(&twin, 10);
        for (int i = 0; i < 4; i++) sgs_amagold_step(&twin.s, NULL);
        f.p.e_abort = f.p.e_calls + 5;
        double out[10 * D];
        size_t done = 0;
        int32_t st = sgs_amagold_run(&f.s, 10, out, 10 * D, &done, NULL);
        int ok = done == 4 && memcmp(out + 3 * D, twin.ws, D * sizeof(double)) == 0 &&
                 memcmp(f.ws, twin.ws, D * sizeof(double)) == 0 &&
                 memcmp(f.ws + 6 * D, twin.ws + 6 * D, 4 * D * sizeof(double)) == 0;
        CASE("mass: run's energy ABORTs at iteration 5 of the warm-up -> 4 rows, chain and window sums as after 4",
             st, SGS_ERR_CALLBACK_ABORTED, ok);
    }

    /* Non-finite values during the warm-up are divergences (outcomes, not errors): the iteration
     * counts, the chain stays, and the window's estimate is positive and finite. */
    struct {
        const char *name;
        int which; /* 0 gradient NaN, 1 energy NaN, 2 energy +inf */
    } nonfinite[] = {
        {"mass: gradient NaN in the window -> divergent, mass finite", 0},
        {"mass: energy NaN in the window -> divergent, mass finite", 1},
        {"mass: energy +inf in the window -> divergent, mass finite", 2},
    };
    for (size_t a = 0; a < sizeof nonfinite / sizeof nonfinite[0]; a++) {
        mfix f;
        mfix_init(&f, 20);
        msnap(&f);
        long g = f.p.g_calls + 2, e = f.p.e_calls + 1;
        if (nonfinite[a].which == 0) f.p.g_nan = g;
        else if (nonfinite[a].which == 1) f.p.e_nan = e;
        else f.p.e_inf = e;
        sgs_amagold_info info;
        int32_t st = sgs_amagold_step(&f.s, &info);
        int stayed = info.outcome == SGS_OUTCOME_DIVERGENT && info.warmup == 1 &&
                     memcmp(f.ws, f.ws_saved, D * sizeof(double)) == 0;
        int32_t st2 = SGS_OK;
        for (int i = 21; i < MASS_WARMUP + 5 && st2 == SGS_OK; i++) st2 = sgs_amagold_step(&f.s, NULL);
        double k[D];
        int finite = st2 == SGS_OK && sgs_amagold_inverse_mass(&f.s, k, D) == SGS_OK && isfinite(k[0]) &&
                     isfinite(k[1]) && k[0] > 0.0 && k[1] > 0.0;
        CASE(nonfinite[a].name, st, SGS_OK, stayed && finite);
    }
}

/* σ far outside the float type's range (σ² overflows): the window's estimate k = σ²·v̂ cannot be
 * held as a number of the coordinate type, so it is not applied (k stays 1). It used to become
 * k = ∞, m = 0: the getter read ∞ (a momentum standard deviation σ/√k of 0), every later iteration
 * was divergent (0·∞ = NaN proposals), and in the non-reversible variant the next window's
 * rescaling (m_new/m = 0/0) made the persistent momentum NaN. (With such a σ the chain barely
 * moves with or without a mass matrix: ε/σ² is 0.) Found by the fuzz target's inverse-mass oracle
 * (fuzz/artifacts-found/mass-sigma-*). */
static void mass_extreme_sigma_cases(void) {
    /* Reversible with one slow window; non-reversible with Stan's several (warm-up 200). */
    const uint64_t warmups[2] = {MASS_WARMUP, 200};
    for (uint32_t variant = 0; variant < 2; variant++) {
        sgs_amagold s = {{0}};
        double ws[WMASS], k[D] = {0.0, 0.0}, x[D], r[D];
        prog p;
        memset(&p, 0, sizeof p);
        sgs_amagold_config c = mass_config();
        c.momentum_sd = 1e300;
        c.variant = variant;
        c.warmup = warmups[variant];
        uint64_t div0 = 0, div1 = 0, n = warmups[variant] + 20;
        int32_t st = sgs_amagold_init(&s, &c, THETA0, D, ws, WMASS, prog_energy, prog_gradient, &p);
        for (uint64_t i = 0; i < n - 20; i++) st |= sgs_amagold_step(&s, NULL);
        st |= sgs_amagold_divergences(&s, &div0);
        for (int i = 0; i < 20; i++) st |= sgs_amagold_step(&s, NULL);
        st |= sgs_amagold_divergences(&s, &div1) | sgs_amagold_inverse_mass(&s, k, D) |
              sgs_amagold_position(&s, x, D) | sgs_amagold_momentum(&s, r, D);
        expect(variant ? "mass: sigma 1e300, non-reversible, several windows -> k = 1, momentum finite"
                       : "mass: sigma 1e300 -> the estimate is not applied (k = 1), not every iteration divergent",
               st == SGS_OK && k[0] == 1.0 && k[1] == 1.0 && div1 - div0 < 20 && isfinite(x[0]) && isfinite(x[1]) &&
                   isfinite(r[0]) && isfinite(r[1]),
               NULL);
    }

    sgs_amagold_f32 sf = {{0}};
    float wsf[WMASS], kf[D] = {0.0f, 0.0f}, xf[D];
    const float th0f[D] = {0.5f, -0.25f};
    prog p;
    memset(&p, 0, sizeof p);
    sgs_amagold_config c = mass_config();
    c.momentum_sd = 1e30; /* σ² = 1e60 overflows float */
    uint64_t div0 = 0, div1 = 0;
    int32_t st = sgs_amagold_init_f32(&sf, &c, th0f, D, wsf, WMASS, prog_energy_f32, prog_gradient_f32, &p);
    for (int i = 0; i < MASS_WINDOW_END; i++) st |= sgs_amagold_step_f32(&sf, NULL);
    st |= sgs_amagold_divergences_f32(&sf, &div0);
    for (int i = 0; i < 20; i++) st |= sgs_amagold_step_f32(&sf, NULL);
    st |= sgs_amagold_divergences_f32(&sf, &div1) | sgs_amagold_inverse_mass_f32(&sf, kf, D) |
          sgs_amagold_position_f32(&sf, xf, D);
    /* Since 0.4 the window's estimate shrinks towards the metric in use, and only the variance
     * is scaled by σ²: a chain that cannot move (ε/σ² underflows) has variance 0 and gets the
     * finite k = 5/(n+5). ε then grows until the momentum overflows float, so most iterations
     * after the warm-up are divergent: what is checked is that nothing becomes ∞ or NaN. */
    (void)div0;
    (void)div1;
    expect("mass f32: sigma 1e30 -> the estimate positive and finite, the position finite",
           st == SGS_OK && kf[0] > 0.0f && kf[1] > 0.0f && isfinite(kf[0]) && isfinite(kf[1]) && isfinite(xf[0]) &&
               isfinite(xf[1]),
           NULL);
}

/* Diagnostics of stored draws: every refusal with its own status, the output and the draws
 * untouched; the documented order of the checks; the verdict's refusals. */
static void draws_cases(void) {
    enum { DC = 2, DN = 12, DD = 3, DL = DC * DN * DD };
    static double x[DL], xsave[DL], scratch[512];
    static float xf[DL];
    sgs_draws_stats out[DD + 1], osave[DD + 1];
    double v[DD + 1], vsave[DD + 1];
    for (int i = 0; i < DL; i++) {
        x[i] = (double)((i * 37) % 11) * 0.25 - 1.0 + (double)(i % 3);
        xf[i] = (float)x[i];
    }
    memcpy(xsave, x, sizeof x);
    memset(out, 0xA5, sizeof out);
    memcpy(osave, out, sizeof out);
    for (int i = 0; i <= DD; i++) v[i] = 7.0;
    memcpy(vsave, v, sizeof v);
    size_t need = sgs_draws_scratch_len(DC, DN);
    expect("draws: scratch_len = 4N + 2m·h + 4M + h, 0 for no chain or no draw or overflow",
           need == 4 * 24 + 2 * 2 * 6 + 4 * 16 + 6 && need <= sizeof scratch / sizeof scratch[0] &&
               sgs_draws_scratch_len(0, DN) == 0 && sgs_draws_scratch_len(DC, 0) == 0 &&
               sgs_draws_scratch_len(SIZE_MAX / 2, 4) == 0 && sgs_draws_scratch_len(1, 4) == 4 * 4 + 4 + 16 + 2,
           NULL);
    expect("draws: struct sizes (17 doubles + flags + explicit padding; 4 doubles, 2 + 6 words)",
           sizeof(sgs_draws_stats) == 17 * 8 + 8 && offsetof(sgs_draws_stats, reserved) == 17 * 8 + 4 &&
               sizeof(sgs_draws_verdict) == 8 + 4 * 8 + 6 * 8,
           NULL);
#define SAME (memcmp(out, osave, sizeof out) == 0 && memcmp(x, xsave, sizeof x) == 0)
#define SAMEV (memcmp(v, vsave, sizeof v) == 0 && memcmp(x, xsave, sizeof x) == 0)
    CASE("draws summary: null draws", sgs_draws_summary(NULL, DC, DN, DD, scratch, need, out, DD),
         SGS_ERR_NULL_POINTER, SAME);
    CASE("draws summary: null scratch", sgs_draws_summary(x, DC, DN, DD, NULL, need, out, DD),
         SGS_ERR_NULL_POINTER, SAME);
    CASE("draws summary: null out", sgs_draws_summary(x, DC, DN, DD, scratch, need, NULL, DD),
         SGS_ERR_NULL_POINTER, SAME);
    CASE("draws summary: null before misaligned",
         sgs_draws_summary((const double *)(const void *)((const char *)x + 1), DC, DN, DD, NULL, need, out, DD),
         SGS_ERR_NULL_POINTER, SAME);
    CASE("draws summary: misaligned draws",
         sgs_draws_summary((const double *)(const void *)((const char *)x + 1), DC, DN, DD, scratch, need, out, DD),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("draws summary: misaligned scratch",
         sgs_draws_summary(x, DC, DN, DD, (double *)(void *)((char *)scratch + 4), need, out, DD),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("draws summary: no chain", sgs_draws_summary(x, 0, DN, DD, scratch, need, out, DD),
         SGS_ERR_ZERO_DIMENSION, SAME);
    CASE("draws summary: no coordinate", sgs_draws_summary(x, DC, DN, 0, scratch, need, out, DD),
         SGS_ERR_ZERO_DIMENSION, SAME);
    CASE("draws summary: chains·n·dim overflows", sgs_draws_summary(x, SIZE_MAX / 2, DN, DD, scratch, need, out, DD),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("draws summary: out inside the scratch",
         sgs_draws_summary(x, DC, DN, DD, scratch, need, (sgs_draws_stats *)(void *)(scratch + 8), DD),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("draws summary: scratch over the draws", sgs_draws_summary(x, DC, DN, DD, x + 4, need, out, DD),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("draws summary: out over the draws",
         sgs_draws_summary(x, DC, DN, DD, scratch, need, (sgs_draws_stats *)(void *)(x + 8), DD),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("draws summary: 3 draws per chain", sgs_draws_summary(x, DC, 3, DD, scratch, need, out, DD),
         SGS_ERR_TOO_FEW_DRAWS, SAME);
    CASE("draws summary: 0 draws", sgs_draws_summary(x, DC, 0, DD, scratch, need, out, DD),
         SGS_ERR_TOO_FEW_DRAWS, SAME);
    CASE("draws summary: scratch one short", sgs_draws_summary(x, DC, DN, DD, scratch, need - 1, out, DD),
         SGS_ERR_WORKSPACE_TOO_SMALL, SAME);
    CASE("draws summary: out one short", sgs_draws_summary(x, DC, DN, DD, scratch, need, out, DD - 1),
         SGS_ERR_OUTPUT_TOO_SMALL, SAME);
    const double x17 = x[17];
    x[17] = NAN;
    memcpy(xsave, x, sizeof x);
    CASE("draws summary: a NaN draw", sgs_draws_summary(x, DC, DN, DD, scratch, need, out, DD),
         SGS_ERR_NON_FINITE_DRAWS, SAME);
    CASE("draws summary: sizes before values (NaN and short out)",
         sgs_draws_summary(x, DC, DN, DD, scratch, need, out, 1), SGS_ERR_OUTPUT_TOO_SMALL, SAME);
    x[17] = -INFINITY;
    memcpy(xsave, x, sizeof x);
    CASE("draws rhat_rank: an infinite draw", sgs_draws_rhat_rank(x, DC, DN, DD, scratch, need, v, DD),
         SGS_ERR_NON_FINITE_DRAWS, SAMEV);
    x[17] = x17;
    memcpy(xsave, x, sizeof x);
    const float xlast = xf[DL - 1];
    xf[DL - 1] = INFINITY;
    CASE("draws summary_f32: an infinite float draw",
         sgs_draws_summary_f32(xf, DC, DN, DD, scratch, need, out, DD), SGS_ERR_NON_FINITE_DRAWS, SAME);
    xf[DL - 1] = xlast;
    CASE("draws summary_f32: misaligned", sgs_draws_summary_f32((const float *)(const void *)((const char *)xf + 2),
                                                                DC, DN, DD, scratch, need, out, DD),
         SGS_ERR_INVALID_ARGUMENT, SAME);
    CASE("draws ess_bulk: null out", sgs_draws_ess_bulk(x, DC, DN, DD, scratch, need, NULL, DD),
         SGS_ERR_NULL_POINTER, SAMEV);
    CASE("draws ess_tail: out one short", sgs_draws_ess_tail(x, DC, DN, DD, scratch, need, v, DD - 1),
         SGS_ERR_OUTPUT_TOO_SMALL, SAMEV);
    CASE("draws ess_tail_f32: 3 draws", sgs_draws_ess_tail_f32(xf, DC, 3, DD, scratch, need, v, DD),
         SGS_ERR_TOO_FEW_DRAWS, SAMEV);
    CASE("draws mcse_quantile: prob 0", sgs_draws_mcse_quantile(x, DC, DN, DD, 0.0, scratch, need, v, DD),
         SGS_ERR_INVALID_ARGUMENT, SAMEV);
    CASE("draws mcse_quantile: prob 1", sgs_draws_mcse_quantile(x, DC, DN, DD, 1.0, scratch, need, v, DD),
         SGS_ERR_INVALID_ARGUMENT, SAMEV);
    CASE("draws mcse_quantile: prob NaN", sgs_draws_mcse_quantile(x, DC, DN, DD, NAN, scratch, need, v, DD),
         SGS_ERR_INVALID_ARGUMENT, SAMEV);
    CASE("draws mcse_quantile: sizes before prob",
         sgs_draws_mcse_quantile(x, DC, DN, DD, -1.0, scratch, need - 1, v, DD), SGS_ERR_WORKSPACE_TOO_SMALL, SAMEV);
    CASE("draws mcse_quantile_f32: out over the scratch",
         sgs_draws_mcse_quantile_f32(xf, DC, DN, DD, 0.5, scratch, need, scratch + need - 1, DD),
         SGS_ERR_INVALID_ARGUMENT, SAMEV);
    /* Success writes out[0..dim] only, and reads the draws only. */
    CASE("draws summary: ok", sgs_draws_summary(x, DC, DN, DD, scratch, need, out, DD + 1), SGS_OK,
         memcmp(x, xsave, sizeof x) == 0 && memcmp(&out[DD], &osave[DD], sizeof out[DD]) == 0 &&
             out[0].reserved == 0 && out[0].ess_bulk > 0.0 && out[2].rhat > 0.0);
    CASE("draws rhat_rank: ok, = summary's", sgs_draws_rhat_rank(x, DC, DN, DD, scratch, need, v, DD), SGS_OK,
         v[0] == out[0].rhat && v[1] == out[1].rhat && v[2] == out[2].rhat && v[DD] == 7.0);
    double v32[DD];
    CASE("draws ess_bulk_f32 = ess_bulk of the same values", sgs_draws_ess_bulk_f32(xf, DC, DN, DD, scratch, need, v32, DD),
         SGS_OK, v32[0] == out[0].ess_bulk && v32[1] == out[1].ess_bulk && v32[2] == out[2].ess_bulk);

    sgs_draws_verdict vd, vsaved;
    memset(&vd, 0x5A, sizeof vd);
    memcpy(&vsaved, &vd, sizeof vd);
#define SAMEVD (memcmp(&vd, &vsaved, sizeof vd) == 0)
    CASE("draws diagnose: null stats", sgs_draws_diagnose(NULL, DD, DC, 0, &vd), SGS_ERR_NULL_POINTER, SAMEVD);
    CASE("draws diagnose: null verdict", sgs_draws_diagnose(out, DD, DC, 0, NULL), SGS_ERR_NULL_POINTER, SAMEVD);
    CASE("draws diagnose: misaligned stats",
         sgs_draws_diagnose((const sgs_draws_stats *)(const void *)((const char *)out + 4), DD, DC, 0, &vd),
         SGS_ERR_INVALID_ARGUMENT, SAMEVD);
    CASE("draws diagnose: verdict inside the stats",
         sgs_draws_diagnose(out, DD, DC, 0, (sgs_draws_verdict *)(void *)&out[1]), SGS_ERR_INVALID_ARGUMENT, SAMEVD);
    CASE("draws diagnose: dim 0", sgs_draws_diagnose(out, 0, DC, 0, &vd), SGS_ERR_ZERO_DIMENSION, SAMEVD);
    CASE("draws diagnose: no chain", sgs_draws_diagnose(out, DD, 0, 0, &vd), SGS_ERR_ZERO_DIMENSION, SAMEVD);
    CASE("draws diagnose: dim too large for memory", sgs_draws_diagnose(out, SIZE_MAX / 8, DC, 0, &vd),
         SGS_ERR_INVALID_ARGUMENT, SAMEVD);
    /* 2 × 12 draws: far below 100 effective draws per chain; 3 divergences. */
    CASE("draws diagnose: suspect (ESS, divergences)", sgs_draws_diagnose(out, DD, DC, 3, &vd), SGS_OK,
         vd.ok == 0 && (vd.flags & SGS_DRAWS_SUSPECT_ESS_BULK) && (vd.flags & SGS_DRAWS_SUSPECT_ESS_TAIL) &&
             (vd.flags & SGS_DRAWS_SUSPECT_DIVERGENCES) && vd.divergences == 3 &&
             vd.ess_threshold == 100.0 * DC && vd.worst_rhat >= out[0].rhat);
#undef SAME
#undef SAMEV
#undef SAMEVD
}

/* The scale option (sgs_svgd_config.scale, sgs_svgd_set_scale): unknown values and padding
 * refused at init, the workspace query's 2·d, and every refusal of the setter leaving the
 * state, particles, workspace and index byte-identical. */
static int32_t fgrad_f32(void *ud, const float *x, size_t d, uint64_t seed, float *g) {
    (void)ud;
    (void)seed;
    for (size_t l = 0; l < d; l++) g[l] = x[l];
    return SGS_CB_OK;
}

static void scale_cases(void) {
    sgs_svgd_config c0 = sgs_svgd_config_default(4, 0.1), c;
    c = c0; c.scale = 3; svgd_bad_config("svgd init: scale 3", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.scale = SGS_SCALE_PARTICLES; c.scale_reserved = 1;
    svgd_bad_config("svgd init: scale_reserved != 0", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.scale = 3;
    expect("svgd workspace_len: scale 3 -> 0", sgs_svgd_workspace_len(SN, SD, &c) == 0, NULL);
    c = c0; c.scale = SGS_SCALE_PARTICLES;
    expect("svgd workspace_len: the scale adds 2*d",
           sgs_svgd_workspace_len(SN, SD, &c) == sgs_svgd_workspace_len(SN, SD, &c0) + 2 * SD &&
               sgs_svgd_workspace_len_f32(SN, SD, &c) == sgs_svgd_workspace_len_f32(SN, SD, &c0) + 2 * SD,
           NULL);

    sfix f;
    c = c0; c.scale = SGS_SCALE_FIXED;
    sfix_init(&f, c);
    ssnap(&f);
    double good[SD] = {0.5, 2.0}, buf[SD + 1] = {0.5, 2.0, 1.0};
    CASE("svgd set_scale: NULL state", sgs_svgd_set_scale(NULL, good, SD), SGS_ERR_NULL_POINTER, ssame(&f));
    CASE("svgd set_scale: NULL scale", sgs_svgd_set_scale(&f.s, NULL, SD), SGS_ERR_NULL_POINTER, ssame(&f));
    CASE("svgd set_scale: misaligned scale",
         sgs_svgd_set_scale(&f.s, (const double *)(const void *)((const char *)buf + 1), SD),
         SGS_ERR_INVALID_ARGUMENT, ssame(&f));
    CASE("svgd set_scale: d - 1 values", sgs_svgd_set_scale(&f.s, good, SD - 1), SGS_ERR_LENGTH_MISMATCH, ssame(&f));
    CASE("svgd set_scale: d + 1 values", sgs_svgd_set_scale(&f.s, buf, SD + 1), SGS_ERR_LENGTH_MISMATCH, ssame(&f));
    double bad[4][SD] = {{0.0, 1.0}, {1.0, -2.0}, {NAN, 1.0}, {1.0, INFINITY}};
    const char *names[4] = {"svgd set_scale: a zero scale", "svgd set_scale: a negative scale",
                            "svgd set_scale: a NaN scale", "svgd set_scale: an infinite scale"};
    for (int k = 0; k < 4; k++) CASE(names[k], sgs_svgd_set_scale(&f.s, bad[k], SD), SGS_ERR_INVALID_ARGUMENT, ssame(&f));
    CASE("svgd set_scale: scale inside the workspace", sgs_svgd_set_scale(&f.s, f.ws, SD), SGS_ERR_INVALID_ARGUMENT,
         ssame(&f));
    CASE("svgd set_scale: scale inside the particles", sgs_svgd_set_scale(&f.s, f.x, SD), SGS_ERR_INVALID_ARGUMENT,
         ssame(&f));
    CASE("svgd set_scale: scale inside the state", sgs_svgd_set_scale(&f.s, (const double *)(const void *)&f.s, SD),
         SGS_ERR_INVALID_ARGUMENT, ssame(&f));
    if (sgs_svgd_begin(&f.s) == SGS_OK) {
        ssnap(&f);
        CASE("svgd set_scale: iteration in phases", sgs_svgd_set_scale(&f.s, good, SD), SGS_ERR_ITERATION_IN_PROGRESS,
             ssame(&f));
        sgs_svgd_cancel(&f.s);
    } else {
        expect("svgd set_scale: begin", 0, NULL);
    }
    ssnap(&f);
    CASE("svgd set_scale: valid", sgs_svgd_set_scale(&f.s, good, SD), SGS_OK,
         memcmp(&f.saved, &f.s, sizeof f.s) == 0 && memcmp(f.x_saved, f.x, sizeof f.x) == 0);
    CASE("svgd set_scale: a step after it", sgs_svgd_step(&f.s, NULL), SGS_OK, 1);

    sgs_svgd cleared = {{0}};
    CASE("svgd set_scale: never initialised", sgs_svgd_set_scale(&cleared, good, SD), SGS_ERR_NOT_INITIALISED, 1);
    for (uint32_t other = SGS_SCALE_NONE; other <= SGS_SCALE_PARTICLES; other++) {
        c = c0; c.scale = other;
        sfix_init(&f, c);
        ssnap(&f);
        CASE(other == SGS_SCALE_NONE ? "svgd set_scale: scale NONE" : "svgd set_scale: scale PARTICLES",
             sgs_svgd_set_scale(&f.s, good, SD), SGS_ERR_INVALID_OPTION, ssame(&f));
    }

    /* float: the same checks on the float entry point. */
    c = c0; c.scale = SGS_SCALE_FIXED;
    float fx[SN * SD], fws[512];
    uint32_t fidx[SN];
    sgs_svgd_f32 fs = {{0}};
    for (size_t k = 0; k < SN * SD; k++) fx[k] = (float)k / 7.0f - 0.5f;
    size_t flen = sgs_svgd_workspace_len_f32(SN, SD, &c);
    if (flen == 0 || flen > 512 ||
        sgs_svgd_init_f32(&fs, &c, fx, SN, SD, fws, flen, fidx, SN, fgrad_f32, NULL, NULL) != SGS_OK) {
        expect("svgd f32 fixture", 0, NULL);
        return;
    }
    sgs_svgd_f32 fsaved;
    float fws_saved[512];
    memcpy(&fsaved, &fs, sizeof fs);
    memcpy(fws_saved, fws, sizeof fws);
    const float fgood[SD] = {0.5f, 2.0f}, fnan[SD] = {NAN, 1.0f}, fzero[SD] = {1.0f, 0.0f};
#define FSAME (memcmp(&fsaved, &fs, sizeof fs) == 0 && memcmp(fws_saved, fws, sizeof fws) == 0)
    CASE("svgd set_scale_f32: NULL state", sgs_svgd_set_scale_f32(NULL, fgood, SD), SGS_ERR_NULL_POINTER, FSAME);
    CASE("svgd set_scale_f32: NULL scale", sgs_svgd_set_scale_f32(&fs, NULL, SD), SGS_ERR_NULL_POINTER, FSAME);
    CASE("svgd set_scale_f32: d - 1 values", sgs_svgd_set_scale_f32(&fs, fgood, SD - 1), SGS_ERR_LENGTH_MISMATCH,
         FSAME);
    CASE("svgd set_scale_f32: a NaN scale", sgs_svgd_set_scale_f32(&fs, fnan, SD), SGS_ERR_INVALID_ARGUMENT, FSAME);
    CASE("svgd set_scale_f32: a zero scale", sgs_svgd_set_scale_f32(&fs, fzero, SD), SGS_ERR_INVALID_ARGUMENT, FSAME);
    CASE("svgd set_scale_f32: scale inside the workspace", sgs_svgd_set_scale_f32(&fs, fws, SD),
         SGS_ERR_INVALID_ARGUMENT, FSAME);
    CASE("svgd set_scale_f32: a double state", sgs_svgd_set_scale_f32((sgs_svgd_f32 *)(void *)&f.s, fgood, SD),
         SGS_ERR_NOT_INITIALISED, 1);
    CASE("svgd set_scale_f32: valid", sgs_svgd_set_scale_f32(&fs, fgood, SD), SGS_OK, 1);
    CASE("svgd set_scale_f32: a step after it", sgs_svgd_step_f32(&fs, NULL), SGS_OK, 1);
#undef FSAME
}

/* ---- The warm-up API of 0.4: the configuration's new fields, the workspace of every kind, the
 * mass matrix's getters and setters, the step-size setter, the report and the comparison. Every
 * refusal leaves the state's bytes, the whole workspace and the caller's output unchanged. */

/* A chain of any configuration (d = 2) with a workspace exactly as long as the size query says,
 * followed by sentinel elements that must never change, and the pristine copies. */
enum { WBIG = 64, WSENT = 4 };
typedef struct {
    sgs_amagold s;
    double ws[WBIG + WSENT];
    size_t ws_len;
    prog p;
    sgs_amagold saved;
    double ws_saved[WBIG + WSENT];
} gfix;

static sgs_amagold_config kind_config(uint32_t mass, uint64_t warmup, uint32_t approach) {
    sgs_amagold_config c = sgs_amagold_config_default(0.2);
    c.mass = mass;
    c.warmup = warmup;
    c.approach = approach;
    c.steps = 4;
    return c;
}

/* `iters` iterations after init, then a snapshot; exits on a failure (the fixture is the premise
 * of the cases). */
static void gfix_init(gfix *f, sgs_amagold_config c, int iters) {
    memset(f, 0, sizeof *f);
    memset(f->ws, 0x3c, sizeof f->ws);
    f->ws_len = sgs_amagold_workspace_len_for(&c, D);
    int32_t st = f->ws_len <= WBIG ? sgs_amagold_init(&f->s, &c, THETA0, D, f->ws, f->ws_len, prog_energy,
                                                       prog_gradient, &f->p)
                                   : SGS_ERR_WORKSPACE_TOO_SMALL;
    for (int i = 0; i < iters && st == SGS_OK; i++) st = sgs_amagold_step(&f->s, NULL);
    if (st != SGS_OK) {
        printf("FAIL warm-up fixture: %s\n", sgs_status_str(st));
        exit(1);
    }
    memcpy(&f->saved, &f->s, sizeof f->s);
    memcpy(f->ws_saved, f->ws, sizeof f->ws);
}

static void gsnap(gfix *f) {
    memcpy(&f->saved, &f->s, sizeof f->s);
    memcpy(f->ws_saved, f->ws, sizeof f->ws);
}

/* State bytes, the whole workspace and the sentinels after it as at the last gsnap(). */
static int gsame(const gfix *f) {
    return memcmp(&f->saved, &f->s, sizeof f->s) == 0 && memcmp(f->ws_saved, f->ws, sizeof f->ws) == 0;
}

/* The sentinels after the workspace (a successful call may change the workspace, never these). */
static int gsentinels(const gfix *f) {
    return memcmp(f->ws_saved + f->ws_len, f->ws + f->ws_len, WSENT * sizeof(double)) == 0;
}

/* A caller buffer with a known pattern. */
#define FILLED(buf) (memset((buf), 0x5a, sizeof(buf)))
static int all_bytes(const void *p, size_t n, unsigned char v) {
    const unsigned char *b = (const unsigned char *)p;
    for (size_t i = 0; i < n; i++)
        if (b[i] != v) return 0;
    return 1;
}
#define UNTOUCHED(buf) all_bytes((buf), sizeof(buf), 0x5a)

static void warmup_config_cases(void) {
    sgs_amagold_config a = sgs_amagold_config_adaptive(), c0 = sgs_amagold_config_default(0.2), c;
    expect("adaptive config: warm-up 1000, diagonal mass, the approach, delta 0.65, epsilon 0.1",
           a.warmup == 1000 && a.mass == SGS_MASS_DIAGONAL && a.approach == 1 && a.jitter_steps == 0 &&
               a.reserved == 0 && a.target_accept == 0.65 && a.step_size == 0.1 && a.steps == 10 &&
               a.variant == SGS_VARIANT_REVERSIBLE,
           NULL);
    expect("default config: unit mass, the approach on (for a warm-up), fixed T, reserved 0",
           c0.mass == SGS_MASS_UNIT && c0.approach == 1 && c0.jitter_steps == 0 && c0.reserved == 0 &&
               c0.warmup == 0,
           NULL);

    /* Workspace lengths of every kind, f64 and f32, against the header's rule. */
    struct {
        uint32_t mass;
        uint64_t warmup;
        uint32_t approach;
        size_t want; /* for d = D */
    } rule[] = {
        {SGS_MASS_UNIT, 0, 1, 6 * D},
        {SGS_MASS_UNIT, 30, 1, 18 * D},
        {SGS_MASS_UNIT, 30, 0, 6 * D},
        {SGS_MASS_DIAGONAL, 0, 1, 10 * D},
        {SGS_MASS_DIAGONAL, 30, 1, 22 * D},
        {SGS_MASS_DIAGONAL, 30, 0, 10 * D},
        {SGS_MASS_DENSE, 0, 1, 8 * D + D * (D + 1)},
        {SGS_MASS_DENSE, 30, 1, 20 * D + D * (D + 1)},
        {SGS_MASS_DENSE, 30, 0, 8 * D + D * (D + 1)},
    };
    int ok = 1;
    for (size_t i = 0; i < sizeof rule / sizeof rule[0]; i++) {
        c = kind_config(rule[i].mass, rule[i].warmup, rule[i].approach);
        ok &= sgs_amagold_workspace_len_for(&c, D) == rule[i].want &&
              sgs_amagold_workspace_len_for_f32(&c, D) == rule[i].want &&
              sgs_amagold_workspace_len_for(&c, 0) == 0 && sgs_amagold_workspace_len_for_f32(&c, 0) == 0 &&
              sgs_amagold_workspace_len_for(&c, SIZE_MAX / 4) == SIZE_MAX &&
              sgs_amagold_workspace_len_for_f32(&c, SIZE_MAX / 4) == SIZE_MAX;
        if (!ok) printf("  workspace rule %zu: %zu, want %zu\n", i, sgs_amagold_workspace_len_for(&c, D), rule[i].want);
    }
    /* d = 100 dense: 6·d + 2·d + d(d+1) = 10900 (the quadratic term). */
    c = kind_config(SGS_MASS_DENSE, 0, 1);
    ok &= sgs_amagold_workspace_len_for(&c, 100) == 10900;
    expect("workspace_len_for: 6·d, +4·d diagonal, +2·d + d(d+1) dense, +12·d with the approach; 0 for d = 0; "
           "saturates",
           ok, NULL);
    static union { sgs_amagold_config c; unsigned char b[2 * sizeof(sgs_amagold_config)]; } raw;
    memcpy(raw.b + 4, &c0, sizeof c0);
    c = c0;
    c.mass = 3;
    sgs_amagold_config c_big = c0;
    c_big.mass = 0xffffffffu;
    expect("workspace_len_for: NULL, misaligned config, unknown mass -> 0",
           sgs_amagold_workspace_len_for(NULL, D) == 0 && sgs_amagold_workspace_len_for_f32(NULL, D) == 0 &&
               sgs_amagold_workspace_len_for((const sgs_amagold_config *)(const void *)(raw.b + 4), D) == 0 &&
               sgs_amagold_workspace_len_for_f32((const sgs_amagold_config *)(const void *)(raw.b + 4), D) == 0 &&
               sgs_amagold_workspace_len_for(&c, D) == 0 && sgs_amagold_workspace_len_for_f32(&c_big, D) == 0,
           NULL);

    /* Unknown option words: refused before anything is written (bad_config: a live chain and a
     * fresh workspace unchanged). */
    c = c0; c.mass = 3; bad_config("init: mass 3", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.mass = 0xffffffffu; bad_config("init: mass 0xffffffff", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.approach = 2; bad_config("init: approach 2", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.approach = 0xffffffffu; bad_config("init: approach 0xffffffff", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.jitter_steps = 2; bad_config("init: jitter_steps 2", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.reserved = 0x80000000u; bad_config("init: reserved 0x80000000", c, SGS_ERR_INVALID_OPTION);
    c = c0; c.approach = 2; c.warmup = 50;
    bad_config("init: approach 2 with a warm-up", c, SGS_ERR_INVALID_OPTION);

    /* A warm-up of 1…19 iterations with a mass matrix: refused (the workspace is large enough, so
     * that the warm-up is what is judged), with and without the approach, f64 and f32. */
    const uint32_t masses[2] = {SGS_MASS_DIAGONAL, SGS_MASS_DENSE};
    const uint64_t short_w[3] = {1, 2, 19};
    for (int m = 0; m < 2; m++)
        for (int w = 0; w < 3; w++)
            for (uint32_t ap = 0; ap < 2; ap++) {
                gfix f;
                gfix_init(&f, kind_config(SGS_MASS_UNIT, 0, 1), 2);
                gsnap(&f);
                double ws2[WBIG];
                float ws2f[WBIG];
                FILLED(ws2);
                FILLED(ws2f);
                sgs_amagold_f32 z = {{0}};
                prog p2;
                memset(&p2, 0, sizeof p2);
                c = kind_config(masses[m], short_w[w], ap);
                const float th0f[D] = {0.5f, -0.25f};
                int32_t st = sgs_amagold_init(&f.s, &c, THETA0, D, ws2, WBIG, prog_energy, prog_gradient, &p2);
                int32_t stf = sgs_amagold_init_f32(&z, &c, th0f, D, ws2f, WBIG, prog_energy_f32, prog_gradient_f32,
                                                   &p2);
                char name[120];
                snprintf(name, sizeof name, "init: %s mass, warm-up %llu, approach %u -> invalid warm-up (f64, f32)",
                         m ? "dense" : "diagonal", (unsigned long long)short_w[w], (unsigned)ap);
                CASE(name, st, SGS_ERR_INVALID_WARMUP,
                     stf == SGS_ERR_INVALID_WARMUP && gsame(&f) && UNTOUCHED(ws2) && UNTOUCHED(ws2f) &&
                         z._opaque[0] == 0 && p2.e_calls == 0);
            }
    {
        /* 20 is enough; a unit chain takes any warm-up. */
        gfix f;
        gfix_init(&f, kind_config(SGS_MASS_DENSE, 20, 1), 25);
        gfix g;
        gfix_init(&g, kind_config(SGS_MASS_UNIT, 19, 1), 25);
        expect("init: dense mass with warm-up 20, unit mass with warm-up 19 -> both run their warm-up", 1, NULL);
    }

    /* A workspace one element short for every configuration kind, f64 and f32: refused, nothing
     * written; the exact length works. */
    struct {
        const char *name;
        uint32_t mass;
        uint64_t warmup;
        uint32_t approach;
    } kinds[] = {
        {"unit, warm-up with the approach", SGS_MASS_UNIT, 30, 1},
        {"unit, warm-up without the approach", SGS_MASS_UNIT, 30, 0},
        {"diagonal, no warm-up", SGS_MASS_DIAGONAL, 0, 1},
        {"diagonal, warm-up with the approach", SGS_MASS_DIAGONAL, 30, 1},
        {"diagonal, warm-up without the approach", SGS_MASS_DIAGONAL, 30, 0},
        {"dense, no warm-up", SGS_MASS_DENSE, 0, 1},
        {"dense, warm-up with the approach", SGS_MASS_DENSE, 30, 1},
        {"dense, warm-up without the approach", SGS_MASS_DENSE, 30, 0},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        gfix f;
        gfix_init(&f, kind_config(SGS_MASS_UNIT, 0, 1), 2);
        gsnap(&f);
        c = kind_config(kinds[i].mass, kinds[i].warmup, kinds[i].approach);
        size_t n = sgs_amagold_workspace_len_for(&c, D);
        double ws2[WBIG];
        float ws2f[WBIG];
        FILLED(ws2);
        FILLED(ws2f);
        prog p2;
        memset(&p2, 0, sizeof p2);
        sgs_amagold_f32 z = {{0}};
        const float th0f[D] = {0.5f, -0.25f};
        int32_t st = sgs_amagold_init(&f.s, &c, THETA0, D, ws2, n - 1, prog_energy, prog_gradient, &p2);
        int32_t stf =
            sgs_amagold_init_f32(&z, &c, th0f, D, ws2f, n - 1, prog_energy_f32, prog_gradient_f32, &p2);
        char name[160];
        snprintf(name, sizeof name, "init: %s, workspace one short -> too small, nothing written (f64, f32)",
                 kinds[i].name);
        CASE(name, st, SGS_ERR_WORKSPACE_TOO_SMALL,
             stf == SGS_ERR_WORKSPACE_TOO_SMALL && gsame(&f) && UNTOUCHED(ws2) && UNTOUCHED(ws2f) &&
                 z._opaque[0] == 0 && p2.e_calls == 0);
        sgs_amagold y = {{0}};
        st = sgs_amagold_init(&y, &c, THETA0, D, ws2, n, prog_energy, prog_gradient, &p2);
        stf = sgs_amagold_init_f32(&z, &c, th0f, D, ws2f, n, prog_energy_f32, prog_gradient_f32, &p2);
        /* Exactly n elements written at most: the rest keeps the pattern. */
        snprintf(name, sizeof name, "init: %s, the exact workspace -> OK, nothing written past it", kinds[i].name);
        CASE(name, st, SGS_OK,
             stf == SGS_OK && all_bytes(ws2 + n, (WBIG - n) * sizeof(double), 0x5a) &&
                 all_bytes(ws2f + n, (WBIG - n) * sizeof(float), 0x5a));
    }
}

/* The getters of the mass matrix and the report on every kind of chain. */
static void warmup_getter_cases(void) {
    const struct {
        const char *name;
        uint32_t mass;
        uint64_t warmup;
        int iters;
    } kinds[] = {
        {"unit", SGS_MASS_UNIT, 0, 3},
        {"diagonal, no warm-up", SGS_MASS_DIAGONAL, 0, 3},
        {"dense, no warm-up", SGS_MASS_DENSE, 0, 3},
        {"diagonal, in the warm-up", SGS_MASS_DIAGONAL, 40, 15},
        {"dense, after the warm-up", SGS_MASS_DENSE, 40, 45},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        gfix f;
        gfix_init(&f, kind_config(kinds[i].mass, kinds[i].warmup, 1), kinds[i].iters);
        gsnap(&f);
        char name[200];
        double out[D * D + 3];
        static union { double d[D * D + 2]; unsigned char b[(D * D + 2) * 8]; } raw;
        sgs_amagold moved;
        memcpy(&moved, &f.s, sizeof moved);
#define GCASE(what, call, want, cond)                                         \
    do {                                                                      \
        snprintf(name, sizeof name, "%s (%s)", what, kinds[i].name);          \
        CASE(name, call, want, cond);                                         \
    } while (0)
        FILLED(out);
        GCASE("inverse_mass_dense: out NULL", sgs_amagold_inverse_mass_dense(&f.s, NULL, D * D), SGS_ERR_NULL_POINTER,
              gsame(&f));
        GCASE("inverse_mass_dense: state NULL", sgs_amagold_inverse_mass_dense(NULL, out, D * D), SGS_ERR_NULL_POINTER,
              UNTOUCHED(out));
        GCASE("inverse_mass_dense: out misaligned",
              sgs_amagold_inverse_mass_dense(&f.s, (double *)(void *)(raw.b + 3), D * D), SGS_ERR_INVALID_ARGUMENT,
              gsame(&f) && all_bytes(raw.b, sizeof raw.b, 0));
        GCASE("inverse_mass_dense: out_len d² - 1", sgs_amagold_inverse_mass_dense(&f.s, out, D * D - 1),
              SGS_ERR_OUTPUT_TOO_SMALL, gsame(&f) && UNTOUCHED(out));
        GCASE("inverse_mass_dense: out_len d (the diagonal's length)", sgs_amagold_inverse_mass_dense(&f.s, out, D),
              SGS_ERR_OUTPUT_TOO_SMALL, gsame(&f) && UNTOUCHED(out));
        GCASE("inverse_mass_dense: out_len 0", sgs_amagold_inverse_mass_dense(&f.s, out, 0), SGS_ERR_OUTPUT_TOO_SMALL,
              gsame(&f) && UNTOUCHED(out));
        GCASE("inverse_mass_dense: out_len SIZE_MAX", sgs_amagold_inverse_mass_dense(&f.s, out, SIZE_MAX),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f) && UNTOUCHED(out));
        GCASE("inverse_mass_dense: out inside the workspace",
              sgs_amagold_inverse_mass_dense(&f.s, f.ws + f.ws_len - 2, D * D), SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        GCASE("inverse_mass_dense: out overlapping the workspace's start",
              sgs_amagold_inverse_mass_dense(&f.s, f.ws, D * D), SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        GCASE("inverse_mass_dense: out inside the state",
              sgs_amagold_inverse_mass_dense(&f.s, (double *)(void *)&f.s._opaque[100], D * D),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        GCASE("inverse_mass_dense: out from the state's last word on",
              sgs_amagold_inverse_mass_dense(&f.s, (double *)(void *)&f.s._opaque[127], D * D),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        GCASE("inverse_mass_dense: f32 function on a double state",
              sgs_amagold_inverse_mass_dense_f32((const sgs_amagold_f32 *)(const void *)&f.s, (float *)(void *)out,
                                                 D * D),
              SGS_ERR_NOT_INITIALISED, gsame(&f) && UNTOUCHED(out));
        GCASE("inverse_mass_dense: memcpy'd state -> moved", sgs_amagold_inverse_mass_dense(&moved, out, D * D),
              SGS_ERR_STATE_MOVED, gsame(&f) && UNTOUCHED(out));
        sgs_amagold zero = {{0}};
        GCASE("inverse_mass_dense: not initialised", sgs_amagold_inverse_mass_dense(&zero, out, D * D),
              SGS_ERR_NOT_INITIALISED, UNTOUCHED(out));
        /* Success: d² values, the rest of the buffer the caller's; symmetric, positive diagonal,
         * equal to the diagonal getter's values. */
        double k[D];
        int st_k = sgs_amagold_inverse_mass(&f.s, k, D);
        int32_t st = sgs_amagold_inverse_mass_dense(&f.s, out, D * D + 3);
        int ok = st_k == SGS_OK && all_bytes(out + D * D, 3 * sizeof(double), 0x5a) && out[1] == out[2] &&
                 out[0] > 0.0 && out[3] > 0.0 && isfinite(out[1]) && memcmp(&out[0], &k[0], sizeof k[0]) == 0 &&
                 memcmp(&out[3], &k[1], sizeof k[1]) == 0 && out[0] * out[3] > out[1] * out[2];
        if (kinds[i].mass == SGS_MASS_UNIT) ok &= out[0] == 1.0 && out[1] == 0.0 && out[3] == 1.0;
        if (kinds[i].mass == SGS_MASS_DIAGONAL) ok &= out[1] == 0.0;
        GCASE("inverse_mass_dense: d² values, symmetric, its diagonal the diagonal getter's", st, SGS_OK,
              ok && gsame(&f));

        /* The report. */
        sgs_warmup_report rep[2];
        FILLED(rep);
        GCASE("warmup_report: out NULL", sgs_amagold_warmup_report(&f.s, NULL), SGS_ERR_NULL_POINTER, gsame(&f));
        GCASE("warmup_report: state NULL", sgs_amagold_warmup_report(NULL, rep), SGS_ERR_NULL_POINTER, UNTOUCHED(rep));
        GCASE("warmup_report: out misaligned",
              sgs_amagold_warmup_report(&f.s, (sgs_warmup_report *)(void *)((char *)rep + 4)), SGS_ERR_INVALID_ARGUMENT,
              gsame(&f) && UNTOUCHED(rep));
        GCASE("warmup_report: out inside the state",
              sgs_amagold_warmup_report(&f.s, (sgs_warmup_report *)(void *)&f.s._opaque[64]), SGS_ERR_INVALID_ARGUMENT,
              gsame(&f));
        GCASE("warmup_report: out over the workspace",
              sgs_amagold_warmup_report(&f.s, (sgs_warmup_report *)(void *)f.ws), SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        GCASE("warmup_report: memcpy'd state -> moved", sgs_amagold_warmup_report(&moved, rep), SGS_ERR_STATE_MOVED,
              gsame(&f) && UNTOUCHED(rep));
        GCASE("warmup_report: f32 function on a double state",
              sgs_amagold_warmup_report_f32((const sgs_amagold_f32 *)(const void *)&f.s, rep), SGS_ERR_NOT_INITIALISED,
              gsame(&f) && UNTOUCHED(rep));
        GCASE("warmup_report: not initialised", sgs_amagold_warmup_report(&zero, rep), SGS_ERR_NOT_INITIALISED,
              UNTOUCHED(rep));
        st = sgs_amagold_warmup_report(&f.s, rep);
        int verdict_ok;
        if (kinds[i].warmup == 0)
            verdict_ok = rep[0].verdict == SGS_WARMUP_NONE && rep[0].iterations == 0 && rep[0].reasons == 0;
        else if (kinds[i].iters < (int)kinds[i].warmup)
            verdict_ok = rep[0].verdict == SGS_WARMUP_RUNNING && rep[0].iterations == (uint64_t)kinds[i].iters;
        else
            verdict_ok = rep[0].iterations == kinds[i].warmup &&
                         ((rep[0].verdict == SGS_WARMUP_OK && rep[0].reasons == 0) ||
                          (rep[0].verdict == SGS_WARMUP_SUSPECT && rep[0].reasons != 0));
        GCASE("warmup_report: the verdict of the chain's stage, one report written", st, SGS_OK,
              verdict_ok && all_bytes(&rep[1], sizeof rep[1], 0x5a) && gsame(&f));
#undef GCASE
    }
}

/* The step-size and mass-matrix setters: every refusal changes nothing (state bytes, the whole
 * workspace, the input); what they accept is what the getters then read. */
static void warmup_setter_cases(void) {
    const struct {
        const char *name;
        uint32_t mass;
        uint64_t warmup;
        uint32_t approach;
        int iters;
    } kinds[] = {
        {"unit", SGS_MASS_UNIT, 0, 1, 3},
        {"diagonal", SGS_MASS_DIAGONAL, 0, 1, 3},
        {"dense", SGS_MASS_DENSE, 0, 1, 3},
        {"diagonal, in the approach", SGS_MASS_DIAGONAL, 40, 1, 1},
        {"dense, in a fast window", SGS_MASS_DENSE, 40, 0, 3},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        gfix f;
        gfix_init(&f, kind_config(kinds[i].mass, kinds[i].warmup, kinds[i].approach), kinds[i].iters);
        gsnap(&f);
        char name[200];
        sgs_amagold moved;
        memcpy(&moved, &f.s, sizeof moved);
        sgs_amagold zero = {{0}};
        int unit = kinds[i].mass == SGS_MASS_UNIT, dense = kinds[i].mass == SGS_MASS_DENSE;
#define SCASE(what, call, want, cond)                                         \
    do {                                                                      \
        snprintf(name, sizeof name, "%s (%s)", what, kinds[i].name);          \
        CASE(name, call, want, cond);                                         \
    } while (0)
        /* set_step_size */
        const double bad_eps[] = {NAN, INFINITY, -INFINITY, 0.0, -0.0, -0.1, -5e-324};
        int all = 1;
        for (size_t e = 0; e < sizeof bad_eps / sizeof bad_eps[0]; e++)
            all &= sgs_amagold_set_step_size(&f.s, bad_eps[e]) == SGS_ERR_INVALID_STEP_SIZE && gsame(&f);
        SCASE("set_step_size: NaN, ±inf, 0, -0, negative -> invalid step size, nothing changed", all ? SGS_OK : -1,
              SGS_OK, 1);
        SCASE("set_step_size: state NULL", sgs_amagold_set_step_size(NULL, 0.1), SGS_ERR_NULL_POINTER, gsame(&f));
        SCASE("set_step_size: state misaligned",
              sgs_amagold_set_step_size((sgs_amagold *)(void *)((char *)&zero + 4), 0.1), SGS_ERR_INVALID_ARGUMENT,
              gsame(&f));
        SCASE("set_step_size: not initialised", sgs_amagold_set_step_size(&zero, 0.1), SGS_ERR_NOT_INITIALISED,
              all_bytes(&zero, sizeof zero, 0));
        SCASE("set_step_size: memcpy'd state -> moved", sgs_amagold_set_step_size(&moved, 0.1), SGS_ERR_STATE_MOVED,
              gsame(&f) && memcmp(&moved, &f.saved, sizeof moved) == 0);
        SCASE("set_step_size: f32 function on a double state",
              sgs_amagold_set_step_size_f32((sgs_amagold_f32 *)(void *)&f.s, 0.1), SGS_ERR_NOT_INITIALISED, gsame(&f));

        /* set_inverse_mass (diagonal) */
        double k[D + 2];
        FILLED(k);
        k[0] = 0.5;
        k[1] = 2.0;
        double k_saved[D + 2];
        memcpy(k_saved, k, sizeof k);
#define KSAME (memcmp(k, k_saved, sizeof k) == 0)
        SCASE("set_inverse_mass: k NULL", sgs_amagold_set_inverse_mass(&f.s, NULL, D), SGS_ERR_NULL_POINTER, gsame(&f));
        SCASE("set_inverse_mass: state NULL", sgs_amagold_set_inverse_mass(NULL, k, D), SGS_ERR_NULL_POINTER, KSAME);
        SCASE("set_inverse_mass: k misaligned",
              sgs_amagold_set_inverse_mass(&f.s, (const double *)(const void *)((const char *)k + 2), D),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        SCASE("set_inverse_mass: k inside the workspace", sgs_amagold_set_inverse_mass(&f.s, f.ws + 1, D),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        SCASE("set_inverse_mass: k overlapping the workspace's end",
              sgs_amagold_set_inverse_mass(&f.s, f.ws + f.ws_len - 1, D), SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        SCASE("set_inverse_mass: k inside the state",
              sgs_amagold_set_inverse_mass(&f.s, (const double *)(const void *)&f.s._opaque[40], D),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        SCASE("set_inverse_mass: k_len d - 1", sgs_amagold_set_inverse_mass(&f.s, k, D - 1), SGS_ERR_LENGTH_MISMATCH,
              gsame(&f) && KSAME);
        SCASE("set_inverse_mass: k_len d + 1", sgs_amagold_set_inverse_mass(&f.s, k, D + 1), SGS_ERR_LENGTH_MISMATCH,
              gsame(&f) && KSAME);
        SCASE("set_inverse_mass: k_len d² (a dense matrix)", sgs_amagold_set_inverse_mass(&f.s, k, D * D),
              SGS_ERR_LENGTH_MISMATCH, gsame(&f) && KSAME);
        SCASE("set_inverse_mass: k_len 0", sgs_amagold_set_inverse_mass(&f.s, k, 0), SGS_ERR_LENGTH_MISMATCH,
              gsame(&f) && KSAME);
        SCASE("set_inverse_mass: k_len SIZE_MAX", sgs_amagold_set_inverse_mass(&f.s, k, SIZE_MAX),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f) && KSAME);
        SCASE("set_inverse_mass: memcpy'd state -> moved", sgs_amagold_set_inverse_mass(&moved, k, D),
              SGS_ERR_STATE_MOVED, gsame(&f) && KSAME);
        SCASE("set_inverse_mass: not initialised", sgs_amagold_set_inverse_mass(&zero, k, D), SGS_ERR_NOT_INITIALISED,
              KSAME && all_bytes(&zero, sizeof zero, 0));
        if (unit) {
            SCASE("set_inverse_mass: a valid k on a unit-mass chain -> mass mismatch",
                  sgs_amagold_set_inverse_mass(&f.s, k, D), SGS_ERR_MASS_MISMATCH, gsame(&f) && KSAME);
        } else {
            const double bad_k[][D] = {{0.0, 1.0}, {1.0, -0.0}, {-1.0, 1.0}, {1.0, NAN},
                                        {INFINITY, 1.0}, {1.0, -INFINITY}, {-5e-324, 1.0}};
            all = 1;
            for (size_t e = 0; e < sizeof bad_k / sizeof bad_k[0]; e++) {
                double kb[D];
                memcpy(kb, bad_k[e], sizeof kb);
                all &= sgs_amagold_set_inverse_mass(&f.s, kb, D) == SGS_ERR_INVALID_MASS && gsame(&f) &&
                       memcmp(kb, bad_k[e], sizeof kb) == 0;
            }
            SCASE("set_inverse_mass: an entry 0, -0, negative, NaN or ±inf -> invalid mass, nothing changed",
                  all ? SGS_OK : -1, SGS_OK, 1);
        }

        /* set_inverse_mass_dense */
        double kd[D * D + 1];
        FILLED(kd);
        kd[0] = 1.5;
        kd[1] = 0.2;
        kd[2] = 0.2;
        kd[3] = 0.8;
        double kd_saved[D * D + 1];
        memcpy(kd_saved, kd, sizeof kd);
#define KDSAME (memcmp(kd, kd_saved, sizeof kd) == 0)
        SCASE("set_inverse_mass_dense: k NULL", sgs_amagold_set_inverse_mass_dense(&f.s, NULL, D * D),
              SGS_ERR_NULL_POINTER, gsame(&f));
        SCASE("set_inverse_mass_dense: state NULL", sgs_amagold_set_inverse_mass_dense(NULL, kd, D * D),
              SGS_ERR_NULL_POINTER, KDSAME);
        SCASE("set_inverse_mass_dense: k misaligned",
              sgs_amagold_set_inverse_mass_dense(&f.s, (const double *)(const void *)((const char *)kd + 1), D * D),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        SCASE("set_inverse_mass_dense: k inside the workspace",
              sgs_amagold_set_inverse_mass_dense(&f.s, f.ws + 1, D * D), SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        SCASE("set_inverse_mass_dense: k inside the state",
              sgs_amagold_set_inverse_mass_dense(&f.s, (const double *)(const void *)&f.s._opaque[120], D * D),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f));
        SCASE("set_inverse_mass_dense: k_len d² - 1", sgs_amagold_set_inverse_mass_dense(&f.s, kd, D * D - 1),
              SGS_ERR_LENGTH_MISMATCH, gsame(&f) && KDSAME);
        SCASE("set_inverse_mass_dense: k_len d² + 1", sgs_amagold_set_inverse_mass_dense(&f.s, kd, D * D + 1),
              SGS_ERR_LENGTH_MISMATCH, gsame(&f) && KDSAME);
        SCASE("set_inverse_mass_dense: k_len d (a diagonal)", sgs_amagold_set_inverse_mass_dense(&f.s, kd, D),
              SGS_ERR_LENGTH_MISMATCH, gsame(&f) && KDSAME);
        SCASE("set_inverse_mass_dense: k_len SIZE_MAX", sgs_amagold_set_inverse_mass_dense(&f.s, kd, SIZE_MAX),
              SGS_ERR_INVALID_ARGUMENT, gsame(&f) && KDSAME);
        SCASE("set_inverse_mass_dense: memcpy'd state -> moved", sgs_amagold_set_inverse_mass_dense(&moved, kd, D * D),
              SGS_ERR_STATE_MOVED, gsame(&f) && KDSAME);
        if (!dense) {
            SCASE("set_inverse_mass_dense: a valid matrix on a unit or diagonal chain -> mass mismatch",
                  sgs_amagold_set_inverse_mass_dense(&f.s, kd, D * D), SGS_ERR_MASS_MISMATCH, gsame(&f) && KDSAME);
        } else {
            const double bad_kd[][D * D] = {
                {1.0, 0.5, 0.5 + 1e-9, 1.0},  /* not symmetric (1e-9 relative) */
                {1.0, 2.0, 2.0, 1.0},         /* symmetric, indefinite */
                {1.0, 1.0, 1.0, 1.0},         /* singular */
                {0.0, 0.0, 0.0, 0.0},         /* zero */
                {-1.0, 0.0, 0.0, -1.0},       /* negative definite */
                {NAN, 0.0, 0.0, 1.0},         /* NaN on the diagonal */
                {1.0, NAN, NAN, 1.0},         /* NaN off the diagonal (NaN ≠ NaN) */
                {INFINITY, 0.0, 0.0, 1.0},    /* ∞ on the diagonal */
                {1.0, INFINITY, INFINITY, 1.0}, /* ∞ off the diagonal */
            };
            for (size_t e = 0; e < sizeof bad_kd / sizeof bad_kd[0]; e++) {
                double kb[D * D];
                memcpy(kb, bad_kd[e], sizeof kb);
                char what[120];
                snprintf(what, sizeof what, "set_inverse_mass_dense: bad matrix %zu -> invalid mass, nothing changed", e);
                SCASE(what, sgs_amagold_set_inverse_mass_dense(&f.s, kb, D * D), SGS_ERR_INVALID_MASS,
                      gsame(&f) && memcmp(kb, bad_kd[e], sizeof kb) == 0);
            }
            /* Symmetric to 1e-13 relative counts as symmetric (the header's 1e-12). */
            double ks[D * D] = {1.0, 0.5, 0.5 * (1.0 + 1e-13), 1.0};
            SCASE("set_inverse_mass_dense: symmetric to 1e-13 relative -> accepted",
                  sgs_amagold_set_inverse_mass_dense(&f.s, ks, D * D), SGS_OK, gsentinels(&f));
            double got[D * D];
            int32_t st = sgs_amagold_inverse_mass_dense(&f.s, got, D * D);
            /* The lower triangle is what is factorised: K_10 = 0.5·(1 + 1e-13). */
            SCASE("set_inverse_mass_dense: the getter reads L·Lᵀ of the matrix set (to rounding)", st, SGS_OK,
                  fabs(got[0] - 1.0) < 1e-15 && fabs(got[1] - ks[2]) < 1e-15 && got[1] == got[2] &&
                      fabs(got[3] - 1.0) < 1e-15);
            gsnap(&f);
        }
        /* What is accepted is read back; the sentinels after the workspace stay. */
        if (!unit) {
            int32_t st = sgs_amagold_set_inverse_mass(&f.s, k, D);
            double got[D], gotd[D * D];
            int ok = sgs_amagold_inverse_mass(&f.s, got, D) == SGS_OK &&
                     sgs_amagold_inverse_mass_dense(&f.s, gotd, D * D) == SGS_OK && gotd[1] == 0.0 && gotd[2] == 0.0;
            if (dense)
                ok &= fabs(got[0] - 0.5) < 1e-15 && fabs(got[1] - 2.0) < 1e-15;
            else
                ok &= got[0] == 0.5 && got[1] == 2.0;
            SCASE("set_inverse_mass: accepted, read back by both getters (diagonal)", st, SGS_OK,
                  ok && KSAME && gsentinels(&f));
        }
        double eps = 0.0;
        int32_t st = sgs_amagold_set_step_size(&f.s, 0.0625);
        SCASE("set_step_size: 0.0625 -> the getter reads it, the next iteration uses it", st, SGS_OK,
              sgs_amagold_step_size(&f.s, &eps) == SGS_OK && eps == 0.0625);
        sgs_amagold_info info;
        st = sgs_amagold_step(&f.s, &info);
        SCASE("set_step_size: the next iteration's step size", st, SGS_OK,
              info.step_size == 0.0625 && gsentinels(&f));
#undef KSAME
#undef KDSAME
#undef SCASE
    }

    /* f32: the step size is judged in float; the same refusals. */
    {
        sgs_amagold_f32 s = {{0}};
        float ws[WBIG], k[D] = {0.5f, 2.0f}, kd[D * D] = {1.5f, 0.2f, 0.25f, 0.8f};
        const float th0[D] = {0.5f, -0.25f};
        prog p;
        memset(&p, 0, sizeof p);
        sgs_amagold_config c = kind_config(SGS_MASS_DENSE, 0, 1);
        size_t n = sgs_amagold_workspace_len_for_f32(&c, D);
        int32_t st = sgs_amagold_init_f32(&s, &c, th0, D, ws, n, prog_energy_f32, prog_gradient_f32, &p);
        for (int i = 0; i < 3 && st == SGS_OK; i++) st = sgs_amagold_step_f32(&s, NULL);
        expect("f32 warm-up API fixture", st == SGS_OK, sgs_status_str(st));
        sgs_amagold_f32 saved;
        float ws_saved[WBIG];
        memcpy(&saved, &s, sizeof s);
        memcpy(ws_saved, ws, sizeof ws);
#define FSAME (memcmp(&saved, &s, sizeof s) == 0 && memcmp(ws_saved, ws, sizeof ws) == 0)
        CASE("f32 set_step_size: 1e-50 (0 in float)", sgs_amagold_set_step_size_f32(&s, 1e-50),
             SGS_ERR_INVALID_STEP_SIZE, FSAME);
        CASE("f32 set_step_size: 1e39 (∞ in float)", sgs_amagold_set_step_size_f32(&s, 1e39),
             SGS_ERR_INVALID_STEP_SIZE, FSAME);
        CASE("f32 set_step_size: NaN", sgs_amagold_set_step_size_f32(&s, NAN), SGS_ERR_INVALID_STEP_SIZE, FSAME);
        CASE("f32 set_step_size: state NULL", sgs_amagold_set_step_size_f32(NULL, 0.1), SGS_ERR_NULL_POINTER, FSAME);
        CASE("f32 set_step_size: double function on a float state",
             sgs_amagold_set_step_size((sgs_amagold *)(void *)&s, 0.1), SGS_ERR_NOT_INITIALISED, FSAME);
        CASE("f32 set_inverse_mass: k_len d + 1", sgs_amagold_set_inverse_mass_f32(&s, k, D + 1),
             SGS_ERR_LENGTH_MISMATCH, FSAME);
        float kbad[D] = {1.0f, -1.0f};
        CASE("f32 set_inverse_mass: a negative entry", sgs_amagold_set_inverse_mass_f32(&s, kbad, D),
             SGS_ERR_INVALID_MASS, FSAME);
        CASE("f32 set_inverse_mass_dense: not symmetric", sgs_amagold_set_inverse_mass_dense_f32(&s, kd, D * D),
             SGS_ERR_INVALID_MASS, FSAME);
        CASE("f32 set_inverse_mass_dense: k NULL", sgs_amagold_set_inverse_mass_dense_f32(&s, NULL, D * D),
             SGS_ERR_NULL_POINTER, FSAME);
        CASE("f32 set_inverse_mass_dense: k inside the workspace", sgs_amagold_set_inverse_mass_dense_f32(&s, ws, D * D),
             SGS_ERR_INVALID_ARGUMENT, FSAME);
        float big[D * D] = {3e38f, 0.0f, 0.0f, 1.0f};
        CASE("f32 set_inverse_mass_dense: 3e38 on the diagonal (factor fine in float)",
             sgs_amagold_set_inverse_mass_dense_f32(&s, big, D * D), SGS_OK, 1);
        kd[2] = 0.2f;
        CASE("f32 set_inverse_mass_dense: symmetric", sgs_amagold_set_inverse_mass_dense_f32(&s, kd, D * D), SGS_OK,
             1);
        float out[D * D];
        memset(out, 0x5a, sizeof out);
        memcpy(&saved, &s, sizeof s);
        memcpy(ws_saved, ws, sizeof ws);
        CASE("f32 inverse_mass_dense: out_len d² - 1", sgs_amagold_inverse_mass_dense_f32(&s, out, D * D - 1),
             SGS_ERR_OUTPUT_TOO_SMALL, FSAME && all_bytes(out, sizeof out, 0x5a));
        CASE("f32 inverse_mass_dense: K read back (to rounding)", sgs_amagold_inverse_mass_dense_f32(&s, out, D * D),
             SGS_OK, FSAME && fabsf(out[0] - 1.5f) < 1e-6f && out[1] == out[2] && fabsf(out[3] - 0.8f) < 1e-6f);
        sgs_warmup_report r;
        memset(&r, 0x5a, sizeof r);
        CASE("f32 warmup_report: out inside the workspace",
             sgs_amagold_warmup_report_f32(&s, (sgs_warmup_report *)(void *)ws), SGS_ERR_INVALID_ARGUMENT, FSAME);
        CASE("f32 warmup_report: no warm-up -> NONE", sgs_amagold_warmup_report_f32(&s, &r), SGS_OK,
             FSAME && r.verdict == SGS_WARMUP_NONE);
#undef FSAME
    }
}

/* A dense mass matrix cannot be set while a slow window collects its co-moments (the setter's
 * scratch), and can be before the warm-up, in the fast window and, per the header, after the
 * warm-up. */
static void warmup_dense_window_cases(void) {
    const double kd[D * D] = {1.5, 0.2, 0.2, 0.8};
    /* Warm-up 40 without the approach: fast 1-6, slow 7-36, final 37-40. */
    gfix f;
    gfix_init(&f, kind_config(SGS_MASS_DENSE, 40, 0), 0);
    CASE("dense setter: before the warm-up", sgs_amagold_set_inverse_mass_dense(&f.s, kd, D * D), SGS_OK,
         gsentinels(&f));
    for (int i = 0; i < 3; i++) sgs_amagold_step(&f.s, NULL);
    CASE("dense setter: in the first fast window", sgs_amagold_set_inverse_mass_dense(&f.s, kd, D * D), SGS_OK,
         gsentinels(&f));
    for (int i = 0; i < 9; i++) sgs_amagold_step(&f.s, NULL);
    gsnap(&f);
    CASE("dense setter: mid slow window -> invalid mass, nothing changed",
         sgs_amagold_set_inverse_mass_dense(&f.s, kd, D * D), SGS_ERR_INVALID_MASS, gsame(&f));
    const double k[D] = {0.7, 1.1};
    CASE("diagonal setter on the dense chain mid slow window -> OK (the window refines it)",
         sgs_amagold_set_inverse_mass(&f.s, k, D), SGS_OK, gsentinels(&f));
    /* After the warm-up (a fresh chain: seed 0, whose final window moved). */
    gfix_init(&f, kind_config(SGS_MASS_DENSE, 40, 0), 41);
    uint32_t inw = 1;
    int32_t st = sgs_amagold_in_warmup(&f.s, &inw);
    expect("dense chain: the warm-up ends", st == SGS_OK && inw == 0, NULL);
    gsnap(&f);
    CASE("dense setter: after the warm-up", sgs_amagold_set_inverse_mass_dense(&f.s, kd, D * D), SGS_OK,
         gsentinels(&f));
}

/* A callback ABORT in the dense curvature step (the iteration after the approach that computes
 * the finite-difference Hessian column by column) must leave the chain as before, so that it
 * behaves as a twin that never saw the fault. */
static void warmup_curvature_abort_cases(void) {
    const double kd[D * D] = {1.5, 0.2, 0.2, 0.8};
    gfix probe;
    gfix_init(&probe, kind_config(SGS_MASS_DENSE, 40, 1), 0);
    int curv = -1;
    for (int k = 0; k < 20; k++) {
        sgs_amagold_info info;
        if (sgs_amagold_step(&probe.s, &info) == SGS_OK && info.phase == SGS_PHASE_APPROACH) curv = k;
    }
    gfix f, twin;
    gfix_init(&f, kind_config(SGS_MASS_DENSE, 40, 1), curv);
    gfix_init(&twin, kind_config(SGS_MASS_DENSE, 40, 1), curv);
    /* The curvature step's gradients: at θ, then one per column; abort in the second column. */
    f.p.g_abort = f.p.g_calls + 3;
    int32_t st = sgs_amagold_step(&f.s, NULL);
    expect("dense curvature step: a gradient ABORT in its second column -> callback aborted",
           curv >= 0 && st == SGS_ERR_CALLBACK_ABORTED && memcmp(&f.s, &f.saved, sizeof f.s) == 0, NULL);
    int32_t a = sgs_amagold_set_inverse_mass_dense(&f.s, kd, D * D);
    int32_t b = sgs_amagold_set_inverse_mass_dense(&twin.s, kd, D * D);
    expect("dense curvature step aborted: the dense setter then behaves as on the fault-free twin", a == SGS_OK && a == b,
           NULL);
}

/* sgs_amagold_warmup_compare: every pointer and length, states of another kind, dimension or
 * address, and nothing written on a refusal. */
static void warmup_compare_cases(void) {
    gfix a, b, c;
    gfix_init(&a, kind_config(SGS_MASS_DIAGONAL, 40, 1), 45);
    gfix_init(&b, kind_config(SGS_MASS_DIAGONAL, 40, 1), 45);
    gfix_init(&c, kind_config(SGS_MASS_UNIT, 0, 1), 3);
    gsnap(&a);
    gsnap(&b);
    gsnap(&c);
#define ABSAME (gsame(&a) && gsame(&b) && gsame(&c))
    /* The pointer array in memory a report could also occupy (for the overlap case). */
    static union {
        const sgs_amagold *p[8];
        sgs_warmup_report r[2];
    } arr;
    arr.p[0] = &a.s;
    arr.p[1] = &b.s;
    arr.p[2] = &c.s;
    const sgs_amagold *const *states = arr.p;
    sgs_warmup_report out[4];
    FILLED(out);
    CASE("compare: states NULL", sgs_amagold_warmup_compare(NULL, 2, out, 4), SGS_ERR_NULL_POINTER,
         UNTOUCHED(out));
    CASE("compare: out NULL", sgs_amagold_warmup_compare(states, 2, NULL, 4), SGS_ERR_NULL_POINTER, ABSAME);
    CASE("compare: k = 0", sgs_amagold_warmup_compare(states, 0, out, 4), SGS_ERR_ZERO_DIMENSION,
         ABSAME && UNTOUCHED(out));
    CASE("compare: out_len < k", sgs_amagold_warmup_compare(states, 3, out, 2), SGS_ERR_OUTPUT_TOO_SMALL,
         ABSAME && UNTOUCHED(out));
    CASE("compare: out_len 0", sgs_amagold_warmup_compare(states, 1, out, 0), SGS_ERR_OUTPUT_TOO_SMALL,
         ABSAME && UNTOUCHED(out));
    CASE("compare: out_len SIZE_MAX", sgs_amagold_warmup_compare(states, 2, out, SIZE_MAX),
         SGS_ERR_INVALID_ARGUMENT, ABSAME && UNTOUCHED(out));
    CASE("compare: k SIZE_MAX", sgs_amagold_warmup_compare(states, SIZE_MAX, out, 4), SGS_ERR_INVALID_ARGUMENT,
         ABSAME && UNTOUCHED(out));
    CASE("compare: states misaligned",
         sgs_amagold_warmup_compare((const sgs_amagold *const *)(const void *)((const char *)states + 4), 2, out, 4),
         SGS_ERR_INVALID_ARGUMENT, ABSAME && UNTOUCHED(out));
    CASE("compare: out misaligned",
         sgs_amagold_warmup_compare(states, 2, (sgs_warmup_report *)(void *)((char *)out + 4), 3),
         SGS_ERR_INVALID_ARGUMENT, ABSAME && UNTOUCHED(out));
    CASE("compare: out over a state",
         sgs_amagold_warmup_compare(states, 2, (sgs_warmup_report *)(void *)&b.s, 2), SGS_ERR_INVALID_ARGUMENT,
         ABSAME);
    CASE("compare: out over a workspace",
         sgs_amagold_warmup_compare(states, 2, (sgs_warmup_report *)(void *)a.ws, 2), SGS_ERR_INVALID_ARGUMENT,
         ABSAME);
    CASE("compare: out over the states array", sgs_amagold_warmup_compare(states, 2, &arr.r[0], 2),
         SGS_ERR_INVALID_ARGUMENT, ABSAME && arr.p[0] == &a.s && arr.p[1] == &b.s);
    /* Entries: NULL, misaligned, uninitialised, of the other float type, moved, of another
     * dimension. */
    sgs_amagold zero = {{0}}, moved;
    memcpy(&moved, &b.s, sizeof moved);
    const sgs_amagold *bad[2] = {&a.s, NULL};
    CASE("compare: an entry NULL", sgs_amagold_warmup_compare(bad, 2, out, 4), SGS_ERR_NULL_POINTER,
         ABSAME && UNTOUCHED(out));
    bad[1] = (const sgs_amagold *)(const void *)((const char *)&b.s + 8 + 4);
    CASE("compare: an entry misaligned", sgs_amagold_warmup_compare(bad, 2, out, 4), SGS_ERR_INVALID_ARGUMENT,
         ABSAME && UNTOUCHED(out));
    bad[1] = &zero;
    CASE("compare: an entry not initialised", sgs_amagold_warmup_compare(bad, 2, out, 4), SGS_ERR_NOT_INITIALISED,
         ABSAME && UNTOUCHED(out));
    bad[1] = &moved;
    CASE("compare: an entry memcpy'd -> moved", sgs_amagold_warmup_compare(bad, 2, out, 4), SGS_ERR_STATE_MOVED,
         ABSAME && UNTOUCHED(out));
    CASE("compare_f32 over double states", sgs_amagold_warmup_compare_f32(
                                               (const sgs_amagold_f32 *const *)(const void *)states, 2, out, 4),
         SGS_ERR_NOT_INITIALISED, ABSAME && UNTOUCHED(out));
    {
        sgs_amagold one = {{0}};
        double ws1[6];
        prog p1;
        memset(&p1, 0, sizeof p1);
        sgs_amagold_config c1 = kind_config(SGS_MASS_UNIT, 0, 1);
        int32_t st = sgs_amagold_init(&one, &c1, THETA0, 1, ws1, 6, prog_energy, prog_gradient, &p1);
        bad[1] = &one;
        CASE("compare: chains of dimensions 2 and 1 -> length mismatch",
             st == SGS_OK ? sgs_amagold_warmup_compare(bad, 2, out, 4) : st, SGS_ERR_LENGTH_MISMATCH,
             ABSAME && UNTOUCHED(out));
    }
    {
        /* Any number of chains per call (no limit since the comparison keeps no per-chain
         * storage): 65, the same chain each time, compared and written, the rest untouched. */
        static const sgs_amagold *many[65];
        static sgs_warmup_report many_out[66];
        for (int i = 0; i < 65; i++) many[i] = &a.s;
        memset(many_out, 0x5a, sizeof many_out);
        CASE("compare: 65 chains (the same one 65 times) -> OK", sgs_amagold_warmup_compare(many, 65, many_out, 66),
             SGS_OK, ABSAME && many_out[64].verdict == many_out[0].verdict &&
                         all_bytes(&many_out[65], sizeof many_out[65], 0x5a));
    }
    /* Success: k reports, the rest of out the caller's; the chains unchanged; each chain's own
     * verdict kept or made SUSPECT with CHAINS_DISAGREE; a chain without a warm-up stays NONE. */
    sgs_warmup_report own[3];
    sgs_amagold_warmup_report(&a.s, &own[0]);
    sgs_amagold_warmup_report(&b.s, &own[1]);
    sgs_amagold_warmup_report(&c.s, &own[2]);
    int32_t st = sgs_amagold_warmup_compare(states, 3, out, 4);
    int ok = all_bytes(&out[3], sizeof out[3], 0x5a) && out[2].verdict == SGS_WARMUP_NONE;
    for (int i = 0; i < 2; i++) {
        ok &= out[i].verdict == SGS_WARMUP_OK || out[i].verdict == SGS_WARMUP_SUSPECT;
        ok &= (out[i].reasons & ~(uint32_t)SGS_WARMUP_REASON_CHAINS_DISAGREE) == own[i].reasons;
        ok &= out[i].verdict == own[i].verdict || (out[i].reasons & SGS_WARMUP_REASON_CHAINS_DISAGREE);
        ok &= out[i].energy_mean == own[i].energy_mean && out[i].step_size == own[i].step_size;
    }
    CASE("compare: 3 chains (two warmed up, one without) -> 3 reports, chains unchanged", st, SGS_OK, ok && ABSAME);
    /* The same chain twice is fine (the states are only read). */
    const sgs_amagold *twice[2] = {&a.s, &a.s};
    CASE("compare: the same chain twice", sgs_amagold_warmup_compare(twice, 2, out, 2), SGS_OK, ABSAME);
#undef ABSAME
    /* f32 */
    {
        sgs_amagold_f32 s1 = {{0}}, s2 = {{0}};
        float w1[WBIG], w2[WBIG];
        const float th0[D] = {0.5f, -0.25f};
        prog p;
        memset(&p, 0, sizeof p);
        sgs_amagold_config c1 = kind_config(SGS_MASS_DENSE, 30, 1);
        size_t n = sgs_amagold_workspace_len_for_f32(&c1, D);
        st = sgs_amagold_init_f32(&s1, &c1, th0, D, w1, n, prog_energy_f32, prog_gradient_f32, &p);
        c1.stream = 1;
        if (st == SGS_OK) st = sgs_amagold_init_f32(&s2, &c1, th0, D, w2, n, prog_energy_f32, prog_gradient_f32, &p);
        for (int i = 0; i < 35 && st == SGS_OK; i++) {
            st = sgs_amagold_step_f32(&s1, NULL);
            if (st == SGS_OK) st = sgs_amagold_step_f32(&s2, NULL);
        }
        const sgs_amagold_f32 *fs[2] = {&s1, &s2};
        sgs_warmup_report r[2];
        memset(r, 0x5a, sizeof r);
        CASE("compare_f32: k = 0", sgs_amagold_warmup_compare_f32(fs, 0, r, 2), SGS_ERR_ZERO_DIMENSION,
             all_bytes(r, sizeof r, 0x5a));
        CASE("compare_f32: out over a workspace",
             sgs_amagold_warmup_compare_f32(fs, 2, (sgs_warmup_report *)(void *)w2, 1), SGS_ERR_INVALID_ARGUMENT,
             all_bytes(r, sizeof r, 0x5a));
        CASE("compare_f32: double function on float states",
             sgs_amagold_warmup_compare((const sgs_amagold *const *)(const void *)fs, 2, r, 2),
             SGS_ERR_NOT_INITIALISED, all_bytes(r, sizeof r, 0x5a));
        st = st == SGS_OK ? sgs_amagold_warmup_compare_f32(fs, 2, r, 2) : st;
        CASE("compare_f32: two dense chains after their warm-up", st, SGS_OK,
             (r[0].verdict == SGS_WARMUP_OK || r[0].verdict == SGS_WARMUP_SUSPECT) &&
                 (r[1].verdict == SGS_WARMUP_OK || r[1].verdict == SGS_WARMUP_SUSPECT));
    }
}

/* A gradient callback that calls every new function on its own (busy) chain, and the compare and
 * a getter on another chain, recording the statuses and that nothing was written. */
typedef struct {
    sgs_amagold *s, *other;
    int done;
    int32_t st[10];
    int untouched;
} wreent;

static int32_t wreent_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    wreent *r = (wreent *)ud;
    (void)seed;
    if (!r->done && r->s->_opaque[0] != 0) {
        r->done = 1;
        double k[D * D] = {1.0, 0.0, 0.0, 1.0}, out[D * D];
        sgs_warmup_report rep[2];
        memset(out, 0x5a, sizeof out);
        memset(rep, 0x5a, sizeof rep);
        const sgs_amagold *mine[1] = {r->s}, *both[2] = {r->other, r->s}, *other[1] = {r->other};
        r->st[0] = sgs_amagold_set_step_size(r->s, 0.1);
        r->st[1] = sgs_amagold_set_inverse_mass(r->s, k, D);
        r->st[2] = sgs_amagold_set_inverse_mass_dense(r->s, k, D * D);
        r->st[3] = sgs_amagold_inverse_mass(r->s, out, D);
        r->st[4] = sgs_amagold_inverse_mass_dense(r->s, out, D * D);
        r->st[5] = sgs_amagold_warmup_report(r->s, rep);
        r->st[6] = sgs_amagold_warmup_compare(mine, 1, rep, 2);
        r->st[7] = sgs_amagold_warmup_compare(both, 2, rep, 2);
        r->untouched = all_bytes(out, sizeof out, 0x5a) && all_bytes(rep, sizeof rep, 0x5a);
        /* Another chain is not busy. */
        r->st[8] = sgs_amagold_warmup_compare(other, 1, rep, 2);
        r->st[9] = sgs_amagold_inverse_mass_dense(r->other, out, D * D);
    }
    for (size_t i = 0; i < d; i++) g[i] = x[i];
    return SGS_CB_OK;
}

static int32_t id_gradient(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    (void)ud;
    (void)seed;
    for (size_t i = 0; i < d; i++) g[i] = x[i];
    return SGS_CB_OK;
}

static void warmup_busy_cases(void) {
    sgs_amagold s = {{0}}, twin = {{0}}, other = {{0}};
    double ws[WBIG], wt[WBIG], wo[WBIG];
    wreent r;
    memset(&r, 0, sizeof r);
    r.s = &s;
    r.other = &other;
    prog p;
    memset(&p, 0, sizeof p);
    sgs_amagold_config c = kind_config(SGS_MASS_DENSE, 30, 1);
    size_t n = sgs_amagold_workspace_len_for(&c, D);
    int32_t st = sgs_amagold_init(&s, &c, THETA0, D, ws, n, plain_energy, wreent_gradient, &r);
    if (st == SGS_OK) st = sgs_amagold_init(&twin, &c, THETA0, D, wt, n, plain_energy, id_gradient, NULL);
    if (st == SGS_OK) st = sgs_amagold_init(&other, &c, THETA0, D, wo, n, plain_energy, id_gradient, NULL);
    /* A few iterations first (so the re-entrant calls meet a chain in its warm-up). */
    for (int i = 0; i < 3 && st == SGS_OK; i++) {
        st = sgs_amagold_step(&twin, NULL);
        if (st == SGS_OK) st = sgs_amagold_step(&other, NULL);
    }
    r.done = 1;
    for (int i = 0; i < 3 && st == SGS_OK; i++) st = sgs_amagold_step(&s, NULL);
    r.done = 0;
    sgs_amagold_info a, b;
    int32_t st2 = st == SGS_OK ? sgs_amagold_step(&s, &a) : st;
    if (st == SGS_OK) sgs_amagold_step(&twin, &b);
    int busy = 1;
    for (int i = 0; i < 8; i++) busy &= r.st[i] == SGS_ERR_BUSY;
    CASE("busy: every new function on the chain from its own callback -> busy, nothing written, and the step "
         "goes on as a twin's",
         st2, SGS_OK,
         r.done && busy && r.untouched && memcmp(&a, &b, sizeof a) == 0 && r.st[8] == SGS_OK && r.st[9] == SGS_OK);
    if (!busy)
        printf("  statuses: %d %d %d %d %d %d %d %d\n", r.st[0], r.st[1], r.st[2], r.st[3], r.st[4], r.st[5], r.st[6],
               r.st[7]);
}

static void warmup_api_cases(void) {
    warmup_config_cases();
    warmup_getter_cases();
    warmup_setter_cases();
    warmup_dense_window_cases();
    warmup_curvature_abort_cases();
    warmup_compare_cases();
    warmup_busy_cases();
}

/* SGHMC's and SGLD's fixed diagonal preconditioner (docs/algorithms.md §1.5): the `mass` option,
 * the workspace query for a configuration, the setter and the getter of the inverse mass, copies.
 * Kept apart from AMAGOLD's mass cases. */
typedef struct {
    sgs_sghmc *h;
    sgs_sgld *l;
    int32_t st_set, st_get;
    int done;
    prog p;
} precond_reentry;

static int32_t precond_reentrant_grad(void *ud, const double *x, size_t d, uint64_t seed, double *g) {
    precond_reentry *r = (precond_reentry *)ud;
    if (!r->done) {
        const double k[D] = {2.0, 3.0};
        double out[D];
        r->done = 1;
        r->st_set = r->h ? sgs_sghmc_set_inverse_mass(r->h, k, D) : sgs_sgld_set_inverse_mass(r->l, k, D);
        r->st_get = r->h ? sgs_sghmc_inverse_mass(r->h, out, D) : sgs_sgld_inverse_mass(r->l, out, D);
    }
    return prog_gradient(&r->p, x, d, seed, g);
}

enum { WSH_DIAG = 7 * D, WSL = 3 * D, WSL_DIAG = 5 * D };

static void sg_precond_cases(void) {
    /* --- SGHMC: configuration and workspace ------------------------------------------------- */
    sgs_sghmc_config h0 = sgs_sghmc_config_default(0.1), h;
    expect("sghmc precond: default mass SGS_MASS_UNIT, reserved 0",
           h0.mass == SGS_MASS_UNIT && h0.reserved == 0, NULL);
    h = h0;
    h.mass = SGS_MASS_DIAGONAL;
    sgs_sghmc_config hd = h, hbad = h0;
    hbad.mass = SGS_MASS_DENSE;
    expect("sghmc precond: workspace_len_for 5d unit, 7d diagonal, 0 for d = 0, NULL, dense, 7, saturating",
           sgs_sghmc_workspace_len_for(&h0, D) == WSH && sgs_sghmc_workspace_len_for(&hd, D) == WSH_DIAG &&
               sgs_sghmc_workspace_len_for_f32(&h0, D) == WSH &&
               sgs_sghmc_workspace_len_for_f32(&hd, D) == WSH_DIAG && sgs_sghmc_workspace_len_for(&hd, 0) == 0 &&
               sgs_sghmc_workspace_len_for(NULL, D) == 0 && sgs_sghmc_workspace_len_for(&hbad, D) == 0 &&
               sgs_sghmc_workspace_len_for(&hd, SIZE_MAX / 4) == SIZE_MAX && sgs_sghmc_workspace_len(D) == WSH,
           NULL);
    hbad.mass = 7;
    expect("sghmc precond: workspace_len_for of mass 7 is 0", sgs_sghmc_workspace_len_for(&hbad, D) == 0, NULL);

    /* A unit chain and a diagonal chain (persistent momentum, so that its rescaling shows). */
    sgs_sghmc u = {{0}}, s = {{0}}, saved, cp = {{0}};
    double wu[WSH], ws[WSH_DIAG], ws_saved[WSH_DIAG], ws2[WSH_DIAG], wcp[WSH_DIAG];
    prog pu, ps;
    memset(&pu, 0, sizeof pu);
    memset(&ps, 0, sizeof ps);
    hd.resample_momentum = 0;
    hd.steps = 3;
    if (sgs_sghmc_init(&u, &h0, THETA0, D, wu, WSH, sg_grad, &pu) != SGS_OK ||
        sgs_sghmc_init(&s, &hd, THETA0, D, ws, WSH_DIAG, sg_grad, &ps) != SGS_OK) {
        printf("FAIL sghmc precond fixture\n");
        exit(1);
    }
    sgs_sghmc_step(&s, NULL);
    memcpy(&saved, &s, sizeof s);
    memcpy(ws_saved, ws, sizeof ws);
#define HSAME (memcmp(&saved, &s, sizeof s) == 0 && memcmp(ws_saved, ws, sizeof ws) == 0)
    prog p2;
    memset(&p2, 0, sizeof p2);
    h = hd; h.mass = SGS_MASS_DENSE;
    CASE("sghmc precond init: mass SGS_MASS_DENSE", sgs_sghmc_init(&s, &h, THETA0, D, ws2, WSH_DIAG, sg_grad, &p2),
         SGS_ERR_INVALID_OPTION, HSAME);
    h = hd; h.mass = 3;
    CASE("sghmc precond init: mass 3", sgs_sghmc_init(&s, &h, THETA0, D, ws2, WSH_DIAG, sg_grad, &p2),
         SGS_ERR_INVALID_OPTION, HSAME);
    h = hd; h.reserved = 1;
    CASE("sghmc precond init: reserved 1", sgs_sghmc_init(&s, &h, THETA0, D, ws2, WSH_DIAG, sg_grad, &p2),
         SGS_ERR_INVALID_OPTION, HSAME);
    CASE("sghmc precond init: diagonal, workspace 7d - 1",
         sgs_sghmc_init(&s, &hd, THETA0, D, ws2, WSH_DIAG - 1, sg_grad, &p2), SGS_ERR_WORKSPACE_TOO_SMALL, HSAME);
    CASE("sghmc precond init: diagonal, workspace 5d",
         sgs_sghmc_init(&s, &hd, THETA0, D, ws2, WSH, sg_grad, &p2), SGS_ERR_WORKSPACE_TOO_SMALL, HSAME);

    /* --- SGHMC: the getter ------------------------------------------------------------------ */
    double k[D + 1] = {0.0, 0.0, 7.0};
    CASE("sghmc precond: inverse_mass of a unit chain: d ones", sgs_sghmc_inverse_mass(&u, k, D + 1), SGS_OK,
         k[0] == 1.0 && k[1] == 1.0 && k[2] == 7.0);
    k[0] = k[1] = 0.0;
    CASE("sghmc precond: inverse_mass before it is set: d ones", sgs_sghmc_inverse_mass(&s, k, D), SGS_OK,
         HSAME && k[0] == 1.0 && k[1] == 1.0);
    CASE("sghmc precond: inverse_mass out NULL", sgs_sghmc_inverse_mass(&s, NULL, D), SGS_ERR_NULL_POINTER, HSAME);
    CASE("sghmc precond: inverse_mass out_len d - 1", sgs_sghmc_inverse_mass(&s, k, D - 1),
         SGS_ERR_OUTPUT_TOO_SMALL, HSAME);
    CASE("sghmc precond: inverse_mass out over the k block", sgs_sghmc_inverse_mass(&s, ws + 6 * D, D),
         SGS_ERR_INVALID_ARGUMENT, HSAME);
    CASE("sghmc precond: inverse_mass out misaligned",
         sgs_sghmc_inverse_mass(&s, (double *)(void *)((char *)k + 1), D), SGS_ERR_INVALID_ARGUMENT, HSAME);
    sgs_sghmc zero = {{0}};
    CASE("sghmc precond: inverse_mass not initialised", sgs_sghmc_inverse_mass(&zero, k, D),
         SGS_ERR_NOT_INITIALISED, 1);
    CASE("sghmc precond: f32 getter on a double chain",
         sgs_sghmc_inverse_mass_f32((const sgs_sghmc_f32 *)(const void *)&s, (float *)(void *)k, D),
         SGS_ERR_NOT_INITIALISED, HSAME);

    /* --- SGHMC: the setter's refusals write nothing ------------------------------------------ */
    double kv[D + 1] = {0.25, 16.0, 1.0};
    double kbad[D];
    CASE("sghmc precond: set k NULL", sgs_sghmc_set_inverse_mass(&s, NULL, D), SGS_ERR_NULL_POINTER, HSAME);
    CASE("sghmc precond: set state NULL", sgs_sghmc_set_inverse_mass(NULL, kv, D), SGS_ERR_NULL_POINTER, 1);
    CASE("sghmc precond: set k_len d - 1", sgs_sghmc_set_inverse_mass(&s, kv, D - 1), SGS_ERR_LENGTH_MISMATCH,
         HSAME);
    CASE("sghmc precond: set k_len d + 1", sgs_sghmc_set_inverse_mass(&s, kv, D + 1), SGS_ERR_LENGTH_MISMATCH,
         HSAME);
    const double bad_values[5] = {0.0, -1.0, NAN, INFINITY, -0.0};
    const char *bad_names[5] = {"sghmc precond: set k 0", "sghmc precond: set k -1", "sghmc precond: set k NaN",
                                "sghmc precond: set k inf", "sghmc precond: set k -0"};
    for (int i = 0; i < 5; i++) {
        kbad[0] = 2.0;
        kbad[1] = bad_values[i];
        CASE(bad_names[i], sgs_sghmc_set_inverse_mass(&s, kbad, D), SGS_ERR_INVALID_MASS, HSAME);
    }
    CASE("sghmc precond: set k misaligned",
         sgs_sghmc_set_inverse_mass(&s, (const double *)(const void *)((const char *)kv + 1), D),
         SGS_ERR_INVALID_ARGUMENT, HSAME);
    CASE("sghmc precond: set k inside the workspace", sgs_sghmc_set_inverse_mass(&s, ws + 2 * D, D),
         SGS_ERR_INVALID_ARGUMENT, HSAME);
    CASE("sghmc precond: set not initialised", sgs_sghmc_set_inverse_mass(&zero, kv, D), SGS_ERR_NOT_INITIALISED, 1);
    sgs_sghmc moved;
    memcpy(&moved, &s, sizeof moved);
    CASE("sghmc precond: set on a memcpy'd state", sgs_sghmc_set_inverse_mass(&moved, kv, D), SGS_ERR_STATE_MOVED,
         HSAME);
    CASE("sghmc precond: set on a unit chain", sgs_sghmc_set_inverse_mass(&u, kv, D), SGS_ERR_MASS_MISMATCH, 1);
    CASE("sghmc precond: set f32 on a double chain",
         sgs_sghmc_set_inverse_mass_f32((sgs_sghmc_f32 *)(void *)&s, (const float *)(const void *)kv, D),
         SGS_ERR_NOT_INITIALISED, HSAME);

    /* --- SGHMC: set, read back, the momentum rescaled by m_new / m_old = 1/√k ---------------- */
    double r0[D], r1[D];
    sgs_sghmc_momentum(&s, r0, D);
    CASE("sghmc precond: set k = (1/4, 16)", sgs_sghmc_set_inverse_mass(&s, kv, D), SGS_OK, 1);
    sgs_sghmc_momentum(&s, r1, D);
    k[0] = k[1] = 0.0;
    expect("sghmc precond: inverse_mass gives k, momentum r·(1/√k)",
           sgs_sghmc_inverse_mass(&s, k, D) == SGS_OK && k[0] == 0.25 && k[1] == 16.0 &&
               r1[0] == r0[0] * (1.0 / sqrt(0.25)) && r1[1] == r0[1] * (1.0 / sqrt(16.0)),
           NULL);
    /* A copy needs the 7·d the chain uses, and continues as the source. */
    memcpy(&saved, &s, sizeof s);
    memcpy(ws_saved, ws, sizeof ws);
    CASE("sghmc precond: copy to a 5d workspace", sgs_sghmc_copy(&cp, wcp, WSH, &s), SGS_ERR_WORKSPACE_TOO_SMALL,
         HSAME && cp._opaque[0] == 0);
    CASE("sghmc precond: copy to a 7d workspace", sgs_sghmc_copy(&cp, wcp, WSH_DIAG, &s), SGS_OK, HSAME);
    double xa[D], xb[D];
    memset(&p2, 0, sizeof p2);
    sgs_sghmc_step(&s, NULL);
    sgs_sghmc_step(&cp, NULL);
    sgs_sghmc_position(&s, xa, D);
    sgs_sghmc_position(&cp, xb, D);
    k[0] = k[1] = 0.0;
    expect("sghmc precond: the copy has k and steps as the source",
           sgs_sghmc_inverse_mass(&cp, k, D) == SGS_OK && k[0] == 0.25 && k[1] == 16.0 &&
               memcmp(xa, xb, sizeof xa) == 0,
           NULL);
    /* From inside the chain's own callback: busy, nothing changed. */
    precond_reentry re;
    memset(&re, 0, sizeof re);
    sgs_sghmc rs = {{0}};
    double wrs[WSH_DIAG];
    re.h = &rs;
    int32_t st = sgs_sghmc_init(&rs, &hd, THETA0, D, wrs, WSH_DIAG, precond_reentrant_grad, &re);
    st = st == SGS_OK ? sgs_sghmc_step(&rs, NULL) : st;
    k[0] = k[1] = 0.0;
    expect("sghmc precond: set/get from the chain's callback -> SGS_ERR_BUSY, k unchanged",
           st == SGS_OK && re.done && re.st_set == SGS_ERR_BUSY && re.st_get == SGS_ERR_BUSY &&
               sgs_sghmc_inverse_mass(&rs, k, D) == SGS_OK && k[0] == 1.0 && k[1] == 1.0,
           NULL);
#undef HSAME

    /* --- SGHMC f32 --------------------------------------------------------------------------- */
    sgs_sghmc_f32 sf = {{0}};
    float wf[WSH_DIAG], wf_saved[WSH_DIAG];
    const float thf[D] = {0.5f, -0.25f};
    prog pf;
    memset(&pf, 0, sizeof pf);
    st = sgs_sghmc_init_f32(&sf, &hd, thf, D, wf, WSH_DIAG, prog_gradient_f32, &pf);
    expect("sghmc precond f32: init diagonal over 7d", st == SGS_OK, sgs_status_str(st));
    memcpy(wf_saved, wf, sizeof wf);
    const float kf_bad[D] = {1.0f, INFINITY}, kf[D] = {1e-30f, 3e30f};
    CASE("sghmc precond f32: set k inf", sgs_sghmc_set_inverse_mass_f32(&sf, kf_bad, D), SGS_ERR_INVALID_MASS,
         memcmp(wf_saved, wf, sizeof wf) == 0);
    float kfo[D] = {0.0f, 0.0f};
    CASE("sghmc precond f32: set k 1e-30, 3e30", sgs_sghmc_set_inverse_mass_f32(&sf, kf, D), SGS_OK, 1);
    expect("sghmc precond f32: read back",
           sgs_sghmc_inverse_mass_f32(&sf, kfo, D) == SGS_OK && kfo[0] == kf[0] && kfo[1] == kf[1], NULL);

    /* --- SGLD -------------------------------------------------------------------------------- */
    sgs_sgld_config l0 = sgs_sgld_config_default(0.1), l, ld, lbad;
    expect("sgld precond: default mass SGS_MASS_UNIT", l0.mass == SGS_MASS_UNIT, NULL);
    ld = l0;
    ld.mass = SGS_MASS_DIAGONAL;
    lbad = l0;
    lbad.mass = SGS_MASS_DENSE;
    expect("sgld precond: workspace_len_for 3d unit, 5d diagonal, 0 for d = 0, NULL, dense",
           sgs_sgld_workspace_len_for(&l0, D) == WSL && sgs_sgld_workspace_len_for(&ld, D) == WSL_DIAG &&
               sgs_sgld_workspace_len_for_f32(&ld, D) == WSL_DIAG && sgs_sgld_workspace_len_for(&ld, 0) == 0 &&
               sgs_sgld_workspace_len_for(NULL, D) == 0 && sgs_sgld_workspace_len_for(&lbad, D) == 0 &&
               sgs_sgld_workspace_len_for(&ld, SIZE_MAX / 2) == SIZE_MAX && sgs_sgld_workspace_len(D) == WSL,
           NULL);
    sgs_sgld lu = {{0}}, ls = {{0}}, lsaved, lcp = {{0}};
    double wlu[WSL], wls[WSL_DIAG], wls_saved[WSL_DIAG], wl2[WSL_DIAG], wlcp[WSL_DIAG];
    memset(&pu, 0, sizeof pu);
    memset(&ps, 0, sizeof ps);
    if (sgs_sgld_init(&lu, &l0, THETA0, D, wlu, WSL, sg_grad, &pu) != SGS_OK ||
        sgs_sgld_init(&ls, &ld, THETA0, D, wls, WSL_DIAG, sg_grad, &ps) != SGS_OK) {
        printf("FAIL sgld precond fixture\n");
        exit(1);
    }
    sgs_sgld_step(&ls, NULL);
    memcpy(&lsaved, &ls, sizeof ls);
    memcpy(wls_saved, wls, sizeof wls);
#define LSAME (memcmp(&lsaved, &ls, sizeof ls) == 0 && memcmp(wls_saved, wls, sizeof wls) == 0)
    l = ld; l.mass = SGS_MASS_DENSE;
    CASE("sgld precond init: mass SGS_MASS_DENSE", sgs_sgld_init(&ls, &l, THETA0, D, wl2, WSL_DIAG, sg_grad, &p2),
         SGS_ERR_INVALID_OPTION, LSAME);
    l = ld; l.mass = 0xffffffffu;
    CASE("sgld precond init: mass 2^32 - 1", sgs_sgld_init(&ls, &l, THETA0, D, wl2, WSL_DIAG, sg_grad, &p2),
         SGS_ERR_INVALID_OPTION, LSAME);
    CASE("sgld precond init: diagonal, workspace 5d - 1",
         sgs_sgld_init(&ls, &ld, THETA0, D, wl2, WSL_DIAG - 1, sg_grad, &p2), SGS_ERR_WORKSPACE_TOO_SMALL, LSAME);
    k[0] = k[1] = 0.0;
    CASE("sgld precond: inverse_mass of a unit chain: ones", sgs_sgld_inverse_mass(&lu, k, D), SGS_OK,
         k[0] == 1.0 && k[1] == 1.0);
    CASE("sgld precond: inverse_mass out_len d - 1", sgs_sgld_inverse_mass(&ls, k, D - 1), SGS_ERR_OUTPUT_TOO_SMALL,
         LSAME);
    CASE("sgld precond: inverse_mass out over the k block", sgs_sgld_inverse_mass(&ls, wls + 3 * D, D),
         SGS_ERR_INVALID_ARGUMENT, LSAME);
    CASE("sgld precond: set on a unit chain", sgs_sgld_set_inverse_mass(&lu, kv, D), SGS_ERR_MASS_MISMATCH, 1);
    CASE("sgld precond: set k NULL", sgs_sgld_set_inverse_mass(&ls, NULL, D), SGS_ERR_NULL_POINTER, LSAME);
    CASE("sgld precond: set k_len d + 1", sgs_sgld_set_inverse_mass(&ls, kv, D + 1), SGS_ERR_LENGTH_MISMATCH, LSAME);
    for (int i = 0; i < 5; i++) {
        kbad[0] = bad_values[i];
        kbad[1] = 2.0;
        char nm[80];
        snprintf(nm, sizeof nm, "sgld precond: set k[0] = %g", bad_values[i]);
        CASE(nm, sgs_sgld_set_inverse_mass(&ls, kbad, D), SGS_ERR_INVALID_MASS, LSAME);
    }
    CASE("sgld precond: set k inside the state",
         sgs_sgld_set_inverse_mass(&ls, (const double *)(const void *)&ls._opaque[4], D), SGS_ERR_INVALID_ARGUMENT,
         LSAME);
    CASE("sgld precond: set k = (1/4, 16)", sgs_sgld_set_inverse_mass(&ls, kv, D), SGS_OK, 1);
    k[0] = k[1] = 0.0;
    expect("sgld precond: inverse_mass gives k",
           sgs_sgld_inverse_mass(&ls, k, D) == SGS_OK && k[0] == 0.25 && k[1] == 16.0, NULL);
    memcpy(&lsaved, &ls, sizeof ls);
    memcpy(wls_saved, wls, sizeof wls);
    CASE("sgld precond: copy to a 3d workspace", sgs_sgld_copy(&lcp, wlcp, WSL, &ls), SGS_ERR_WORKSPACE_TOO_SMALL,
         LSAME && lcp._opaque[0] == 0);
    CASE("sgld precond: copy to a 5d workspace", sgs_sgld_copy(&lcp, wlcp, WSL_DIAG, &ls), SGS_OK, LSAME);
    sgs_sgld_step(&ls, NULL);
    sgs_sgld_step(&lcp, NULL);
    sgs_sgld_position(&ls, xa, D);
    sgs_sgld_position(&lcp, xb, D);
    k[0] = k[1] = 0.0;
    expect("sgld precond: the copy has k and steps as the source",
           sgs_sgld_inverse_mass(&lcp, k, D) == SGS_OK && k[0] == 0.25 && k[1] == 16.0 &&
               memcmp(xa, xb, sizeof xa) == 0,
           NULL);
    memset(&re, 0, sizeof re);
    sgs_sgld rl = {{0}};
    double wrl[WSL_DIAG];
    re.l = &rl;
    st = sgs_sgld_init(&rl, &ld, THETA0, D, wrl, WSL_DIAG, precond_reentrant_grad, &re);
    st = st == SGS_OK ? sgs_sgld_step(&rl, NULL) : st;
    k[0] = k[1] = 0.0;
    expect("sgld precond: set/get from the chain's callback -> SGS_ERR_BUSY, k unchanged",
           st == SGS_OK && re.done && re.st_set == SGS_ERR_BUSY && re.st_get == SGS_ERR_BUSY &&
               sgs_sgld_inverse_mass(&rl, k, D) == SGS_OK && k[0] == 1.0 && k[1] == 1.0,
           NULL);
#undef LSAME
    sgs_sgld_f32 lf = {{0}};
    float wlf[WSL_DIAG];
    memset(&pf, 0, sizeof pf);
    st = sgs_sgld_init_f32(&lf, &ld, thf, D, wlf, WSL_DIAG, prog_gradient_f32, &pf);
    kfo[0] = kfo[1] = 0.0f;
    expect("sgld precond f32: init over 5d, set and read back k",
           st == SGS_OK && sgs_sgld_set_inverse_mass_f32(&lf, kf, D) == SGS_OK &&
               sgs_sgld_inverse_mass_f32(&lf, kfo, D) == SGS_OK && kfo[0] == kf[0] && kfo[1] == kf[1] &&
               sgs_sgld_set_inverse_mass_f32(&lf, kf_bad, D) == SGS_ERR_INVALID_MASS,
           sgs_status_str(st));
}

/* sgs_*_export_len / _export / _import: every pointer and size refused with the state, the
 * workspace and the output untouched; a damaged, foreign or truncated checkpoint refused. */
static void checkpoint_cases(void) {
    fixture f, g;
    fixture_init(&f, sgs_amagold_config_default(0.2));
    fixture_init(&g, sgs_amagold_config_default(0.3));
    snap(&f);
    static unsigned char ck[4096], ck2[4096], sg[4096];
    size_t n = 0, nh = 0;
    static union { double d[4]; unsigned char b[32]; } raw;
    sgs_amagold z;
    memset(&z, 0, sizeof z);
    CASE("export_len: len NULL", sgs_amagold_export_len(&f.s, NULL), SGS_ERR_NULL_POINTER, same(&f));
    CASE("export_len: state NULL", sgs_amagold_export_len(NULL, &n), SGS_ERR_NULL_POINTER, same(&f));
    CASE("export_len: len misaligned", sgs_amagold_export_len(&f.s, (size_t *)(void *)(raw.b + 1)),
         SGS_ERR_INVALID_ARGUMENT, same(&f));
    CASE("export_len: len inside the workspace", sgs_amagold_export_len(&f.s, (size_t *)(void *)f.ws),
         SGS_ERR_INVALID_ARGUMENT, same(&f));
    CASE("export_len: not initialised", sgs_amagold_export_len(&z, &n), SGS_ERR_NOT_INITIALISED, same(&f));
    CASE("export_len: fine", sgs_amagold_export_len(&f.s, &n), SGS_OK, same(&f) && n > 48 && n < sizeof ck);
    memset(ck, 0x5a, sizeof ck);
    CASE("export: out NULL", sgs_amagold_export(&f.s, NULL, n), SGS_ERR_NULL_POINTER, same(&f));
    CASE("export: one byte short, nothing written", sgs_amagold_export(&f.s, ck, n - 1),
         SGS_ERR_OUTPUT_TOO_SMALL, same(&f) && ck[0] == 0x5a && ck[n - 2] == 0x5a);
    CASE("export: out overlaps the workspace", sgs_amagold_export(&f.s, f.ws + 1, n),
         SGS_ERR_INVALID_ARGUMENT, same(&f));
    CASE("export: out overlaps the state", sgs_amagold_export(&f.s, (unsigned char *)&f.s + 8, n),
         SGS_ERR_INVALID_ARGUMENT, same(&f));
    CASE("export: fine, exactly export_len bytes", sgs_amagold_export(&f.s, ck, sizeof ck), SGS_OK,
         same(&f) && ck[n] == 0x5a && memcmp(ck, "SGSCHKPT", 8) == 0);

    /* The target g: another configuration and position, refusals leave it as it was. */
    snap(&g);
    sgs_sghmc h;
    double hws[5 * D];
    memset(&h, 0, sizeof h);
    prog ph;
    memset(&ph, 0, sizeof ph);
    sgs_sghmc_config hc = sgs_sghmc_config_default(0.1);
    int32_t st = sgs_sghmc_init(&h, &hc, THETA0, D, hws, 5 * D, prog_gradient, &ph);
    if (st == SGS_OK) st = sgs_sghmc_export_len(&h, &nh);
    if (st == SGS_OK) st = sgs_sghmc_export(&h, sg, sizeof sg);
    expect("import: an SGHMC checkpoint to refuse", st == SGS_OK, sgs_status_str(st));
    CASE("import: input NULL", sgs_amagold_import(&g.s, NULL, n), SGS_ERR_NULL_POINTER, same(&g));
    CASE("import: state NULL", sgs_amagold_import(NULL, ck, n), SGS_ERR_NULL_POINTER, same(&g));
    CASE("import: not initialised", sgs_amagold_import(&z, ck, n), SGS_ERR_NOT_INITIALISED, 1);
    CASE("import: input inside the target's workspace", sgs_amagold_import(&g.s, g.ws, 16),
         SGS_ERR_INVALID_ARGUMENT, same(&g));
    CASE("import: truncated", sgs_amagold_import(&g.s, ck, n - 1), SGS_ERR_INVALID_CHECKPOINT, same(&g));
    CASE("import: empty", sgs_amagold_import(&g.s, ck, 0), SGS_ERR_INVALID_CHECKPOINT, same(&g));
    CASE("import: a byte past its end", sgs_amagold_import(&g.s, ck, n + 1), SGS_ERR_INVALID_CHECKPOINT,
         same(&g));
    memcpy(ck2, ck, n);
    ck2[n - 20] ^= 0x01;
    CASE("import: a flipped bit (checksum)", sgs_amagold_import(&g.s, ck2, n), SGS_ERR_INVALID_CHECKPOINT,
         same(&g));
    memcpy(ck2, ck, n);
    ck2[3] = 'x';
    CASE("import: wrong magic", sgs_amagold_import(&g.s, ck2, n), SGS_ERR_INVALID_CHECKPOINT, same(&g));
    CASE("import: another sampler's checkpoint", sgs_amagold_import(&g.s, sg, nh),
         SGS_ERR_CHECKPOINT_MISMATCH, same(&g));
    sgs_sghmc h_saved;
    double hws_saved[5 * D];
    memcpy(&h_saved, &h, sizeof h);
    memcpy(hws_saved, hws, sizeof hws);
    CASE("import: an AMAGOLD checkpoint into SGHMC", sgs_sghmc_import(&h, ck, n),
         SGS_ERR_CHECKPOINT_MISMATCH,
         memcmp(&h_saved, &h, sizeof h) == 0 && memcmp(hws_saved, hws, sizeof hws) == 0);
    sgs_amagold moved;
    memcpy(&moved, &g.s, sizeof moved);
    CASE("import: a state moved byte-wise", sgs_amagold_import(&moved, ck, n), SGS_ERR_STATE_MOVED,
         same(&g));
    CASE("import: fine", sgs_amagold_import(&g.s, ck, n), SGS_OK, 1);
    n = 0;
    CASE("import: then exports the same bytes",
         sgs_amagold_export_len(&g.s, &n) == SGS_OK ? sgs_amagold_export(&g.s, ck2, sizeof ck2) : -1, SGS_OK,
         memcmp(ck, ck2, n) == 0);
}

/* ---- TunaMH (0.6): every argument and hyperparameter of init, a difference past the bound and
 * an ABORT from either callback (each refused with the chain as it was, and the retried step the
 * same as a twin's that never saw the fault), the getters, a run cut short. The model: terms
 * U_i(x) = |y_i − x_0 − x_1/2| over TERMS = 20 points (1.2-Lipschitz: bound 1.5), prior |x|²/2. */
enum { TERMS = 20 };
#define TBOUND 1.5

typedef struct {
    long calls, e_calls;
    long abort_at, exceed_at, e_abort_at; /* the call number that misbehaves */
} tprog;

static double tterm(uint64_t i, const double *x) {
    double r = (double)(i % 7) / 3.0 - 1.0 - x[0] - 0.5 * x[1];
    return r < 0.0 ? -r : r;
}

static int32_t tdiff(void *ud, const double *t, const double *p, size_t d, const uint64_t *idx,
                     size_t count, double *out) {
    tprog *q = (tprog *)ud;
    long k = ++q->calls;
    (void)d;
    if (k == q->abort_at) return SGS_CB_ABORT;
    for (size_t j = 0; j < count; j++) out[j] = tterm(idx[j], p) - tterm(idx[j], t);
    /* past the bound: 2c·‖p − t‖, never within the rounding slack */
    if (k == q->exceed_at) {
        double m = sqrt((p[0] - t[0]) * (p[0] - t[0]) + (p[1] - t[1]) * (p[1] - t[1]));
        out[count - 1] = 2.0 * TBOUND * m;
    }
    return SGS_CB_OK;
}

static int32_t texact(void *ud, const double *t, const double *p, size_t d, double *out) {
    tprog *q = (tprog *)ud;
    (void)d;
    if (++q->e_calls == q->e_abort_at) return SGS_CB_ABORT;
    *out = 0.5 * (p[0] * p[0] + p[1] * p[1]) - 0.5 * (t[0] * t[0] + t[1] * t[1]);
    return SGS_CB_OK;
}

static int32_t tdiff_f32(void *ud, const float *t, const float *p, size_t d, const uint64_t *idx,
                         size_t count, double *out) {
    double tt[2] = {t[0], t[1]}, pp[2] = {p[0], p[1]};
    return tdiff(ud, tt, pp, d, idx, count, out);
}

typedef struct {
    sgs_tunamh s;
    double ws[2 * D];
    tprog p;
    sgs_tunamh saved;
    double ws_saved[2 * D];
} tfix;

static sgs_tunamh_config tconfig(double chi) {
    sgs_tunamh_config c = sgs_tunamh_config_default(0.3, TERMS, TBOUND);
    c.chi = chi;
    c.seed = 21;
    return c;
}

static void tfix_init(tfix *f, sgs_tunamh_config c) {
    memset(f, 0, sizeof *f);
    if (sgs_tunamh_init(&f->s, &c, THETA0, D, f->ws, 2 * D, texact, tdiff, &f->p) != SGS_OK) {
        printf("FAIL tunamh fixture init\n");
        exit(1);
    }
    sgs_tunamh_step(&f->s, NULL);
    sgs_tunamh_step(&f->s, NULL);
}

static void tsnap(tfix *f) {
    memcpy(&f->saved, &f->s, sizeof f->s);
    memcpy(f->ws_saved, f->ws, sizeof f->ws);
}

static int tsame(const tfix *f) {
    return memcmp(&f->saved, &f->s, sizeof f->s) == 0 && memcmp(f->ws_saved, f->ws, sizeof f->ws) == 0;
}

/* The state struct and the position are as at the last tsnap(); the proposal block of the
 * workspace is scratch. */
static int tsame_chain(const tfix *f) {
    return memcmp(&f->saved, &f->s, sizeof f->s) == 0 && memcmp(f->ws_saved, f->ws, D * sizeof(double)) == 0;
}

static void tunamh_bad_config(const char *name, sgs_tunamh_config c, int32_t want) {
    tfix f;
    tfix_init(&f, tconfig(1.0));
    tsnap(&f);
    double ws2[2 * D], ws2_saved[2 * D];
    memset(ws2, 0xa5, sizeof ws2);
    memcpy(ws2_saved, ws2, sizeof ws2);
    tprog p2;
    memset(&p2, 0, sizeof p2);
    CASE(name, sgs_tunamh_init(&f.s, &c, THETA0, D, ws2, 2 * D, texact, tdiff, &p2), want,
         tsame(&f) && memcmp(ws2, ws2_saved, sizeof ws2) == 0 && p2.calls == 0 && p2.e_calls == 0);
}

/* Plants a fault at the next call of a step that makes one (probing a copy first: a minibatch
 * step may draw no term), then checks the refusal and the retry against a twin. */
static void tunamh_fault(const char *name, double chi, int which, int32_t want) {
    tfix f, twin;
    tfix_init(&f, tconfig(chi));
    tfix_init(&twin, tconfig(chi));
    for (int tries = 0; tries < 50; tries++) {
        sgs_tunamh probe;
        double pws[2 * D];
        sgs_tunamh_info pi;
        memset(&probe, 0, sizeof probe);
        long calls = f.p.calls;
        if (sgs_tunamh_copy(&probe, pws, 2 * D, &f.s) != SGS_OK || sgs_tunamh_step(&probe, &pi) != SGS_OK) break;
        f.p.calls = calls;
        if (pi.evaluations > 0 && pi.outcome != SGS_OUTCOME_DIVERGENT) break;
        sgs_tunamh_step(&f.s, NULL);
        sgs_tunamh_step(&twin.s, NULL);
    }
    f.p.calls = twin.p.calls;
    f.p.e_calls = twin.p.e_calls;
    tsnap(&f);
    if (which == 0) f.p.abort_at = f.p.calls + 1;
    if (which == 1) f.p.exceed_at = f.p.calls + 1;
    if (which == 2) f.p.e_abort_at = f.p.e_calls + 1;
    uint64_t it0 = 0, it1 = 1, ev0 = 0, ev1 = 1, acc0 = 0, acc1 = 1;
    sgs_tunamh_iterations(&f.s, &it0);
    sgs_tunamh_evaluations(&f.s, &ev0);
    sgs_tunamh_accepted(&f.s, &acc0);
    sgs_tunamh_info info;
    memset(&info, 0x5a, sizeof info);
    unsigned char info_saved[sizeof info];
    memcpy(info_saved, &info, sizeof info);
    int32_t st = sgs_tunamh_step(&f.s, &info);
    int unchanged = tsame_chain(&f) && memcmp(&info, info_saved, sizeof info) == 0;
    sgs_tunamh_iterations(&f.s, &it1);
    sgs_tunamh_evaluations(&f.s, &ev1);
    sgs_tunamh_accepted(&f.s, &acc1);
    unchanged &= it0 == it1 && ev0 == ev1 && acc0 == acc1;
    /* The fault is spent: the retried step and 5 more are the twin's. */
    int ok = 1;
    for (int i = 0; i < 6; i++) {
        sgs_tunamh_info a, b;
        ok &= sgs_tunamh_step(&f.s, &a) == SGS_OK && sgs_tunamh_step(&twin.s, &b) == SGS_OK;
        ok &= memcmp(&a, &b, sizeof a) == 0;
    }
    double x1[D], x2[D];
    sgs_tunamh_position(&f.s, x1, D);
    sgs_tunamh_position(&twin.s, x2, D);
    ok &= memcmp(x1, x2, sizeof x1) == 0;
    CASE(name, st, want, unchanged && ok);
}

static void tunamh_cases(void) {
    sgs_tunamh_config c0 = tconfig(1.0), c;
    const double bad[] = {0.0, -1.0, NAN, INFINITY};
    const char *bad_names[] = {"0", "-1", "NaN", "inf"};
    char name[96];
    for (int k = 0; k < 4; k++) {
        c = c0;
        c.step_size = bad[k];
        snprintf(name, sizeof name, "tunamh init: step size %s", bad_names[k]);
        tunamh_bad_config(name, c, SGS_ERR_INVALID_STEP_SIZE);
        c = c0;
        c.bound = bad[k];
        snprintf(name, sizeof name, "tunamh init: bound %s", bad_names[k]);
        tunamh_bad_config(name, c, SGS_ERR_INVALID_BOUND);
        c = c0;
        c.chi = bad[k];
        snprintf(name, sizeof name, "tunamh init: chi %s", bad_names[k]);
        tunamh_bad_config(name, c, SGS_ERR_INVALID_BOUND);
    }
    c = c0;
    c.terms = 0;
    tunamh_bad_config("tunamh init: terms 0", c, SGS_ERR_INVALID_BOUND);
    c.step_size = -1.0;
    tunamh_bad_config("tunamh init: step size and terms both bad -> the step size first", c,
                      SGS_ERR_INVALID_STEP_SIZE);

    tfix f;
    tfix_init(&f, c0);
    tsnap(&f);
    double ws2[2 * D], nan_theta[D] = {0.5, NAN};
    tprog p2;
    memset(&p2, 0, sizeof p2);
    CASE("tunamh init: differences NULL", sgs_tunamh_init(&f.s, &c0, THETA0, D, ws2, 2 * D, texact, NULL, &p2),
         SGS_ERR_NULL_POINTER, tsame(&f));
    CASE("tunamh init: config NULL", sgs_tunamh_init(&f.s, NULL, THETA0, D, ws2, 2 * D, texact, tdiff, &p2),
         SGS_ERR_NULL_POINTER, tsame(&f));
    CASE("tunamh init: theta0 NULL", sgs_tunamh_init(&f.s, &c0, NULL, D, ws2, 2 * D, texact, tdiff, &p2),
         SGS_ERR_NULL_POINTER, tsame(&f));
    CASE("tunamh init: workspace NULL", sgs_tunamh_init(&f.s, &c0, THETA0, D, NULL, 2 * D, texact, tdiff, &p2),
         SGS_ERR_NULL_POINTER, tsame(&f));
    CASE("tunamh init: state NULL", sgs_tunamh_init(NULL, &c0, THETA0, D, ws2, 2 * D, texact, tdiff, &p2),
         SGS_ERR_NULL_POINTER, tsame(&f));
    CASE("tunamh init: d = 0", sgs_tunamh_init(&f.s, &c0, THETA0, 0, ws2, 2 * D, texact, tdiff, &p2),
         SGS_ERR_ZERO_DIMENSION, tsame(&f));
    CASE("tunamh init: workspace 2d - 1", sgs_tunamh_init(&f.s, &c0, THETA0, D, ws2, 2 * D - 1, texact, tdiff, &p2),
         SGS_ERR_WORKSPACE_TOO_SMALL, tsame(&f));
    CASE("tunamh init: theta0 NaN", sgs_tunamh_init(&f.s, &c0, nan_theta, D, ws2, 2 * D, texact, tdiff, &p2),
         SGS_ERR_INVALID_POSITION, tsame(&f));
    CASE("tunamh workspace_len(d) = 2d", (int32_t)(sgs_tunamh_workspace_len(D) == 2 * D &&
                                                    sgs_tunamh_workspace_len_f32(D) == 2 * D && sgs_tunamh_workspace_len(0) == 0),
         1, 1);
    sgs_tunamh fresh;
    memset(&fresh, 0, sizeof fresh);
    CASE("tunamh init: exact part NULL (no prior) is fine",
         sgs_tunamh_init(&fresh, &c0, THETA0, D, ws2, 2 * D, NULL, tdiff, &p2), SGS_OK,
         sgs_tunamh_step(&fresh, NULL) == SGS_OK);

    sgs_tunamh_f32 ff;
    float wsf[2 * D], thf[D] = {0.5f, -0.25f};
    memset(&ff, 0, sizeof ff);
    c = c0;
    c.step_size = 1e-50;
    CASE("tunamh init_f32: step size 1e-50 (0 in float)",
         sgs_tunamh_init_f32(&ff, &c, thf, D, wsf, 2 * D, NULL, tdiff_f32, &p2), SGS_ERR_INVALID_STEP_SIZE, 1);
    c = c0;
    c.chi = 1e-300;
    CASE("tunamh init_f32: chi 1e-300 is a double hyperparameter: fine",
         sgs_tunamh_init_f32(&ff, &c, thf, D, wsf, 2 * D, NULL, tdiff_f32, &p2), SGS_OK,
         sgs_tunamh_step_f32(&ff, NULL) == SGS_OK);

    /* The getters. */
    uint64_t v = 7;
    sgs_tunamh z;
    memset(&z, 0, sizeof z);
    CASE("tunamh accepted: out NULL", sgs_tunamh_accepted(&f.s, NULL), SGS_ERR_NULL_POINTER, tsame(&f));
    CASE("tunamh accepted: state NULL", sgs_tunamh_accepted(NULL, &v), SGS_ERR_NULL_POINTER, v == 7);
    CASE("tunamh accepted: not initialised", sgs_tunamh_accepted(&z, &v), SGS_ERR_NOT_INITIALISED, v == 7);
    CASE("tunamh evaluations: out NULL", sgs_tunamh_evaluations(&f.s, NULL), SGS_ERR_NULL_POINTER, tsame(&f));
    CASE("tunamh evaluations: not initialised", sgs_tunamh_evaluations(&z, &v), SGS_ERR_NOT_INITIALISED,
         v == 7);
    CASE("tunamh evaluations: out inside the workspace",
         sgs_tunamh_evaluations(&f.s, (uint64_t *)(void *)f.ws), SGS_ERR_INVALID_ARGUMENT, tsame(&f));
    CASE("tunamh step: not initialised", sgs_tunamh_step(&z, NULL), SGS_ERR_NOT_INITIALISED, 1);

    /* Faults in a step: on a minibatch (χ small) and on a full pass (χ = 1, N = 20). */
    for (int full = 0; full < 2; full++) {
        double chi = full ? 1.0 : 0.01;
        const char *pass = full ? "full pass" : "minibatch";
        snprintf(name, sizeof name, "tunamh step (%s): a difference past the bound", pass);
        tunamh_fault(name, chi, 1, SGS_ERR_BOUND_EXCEEDED);
        snprintf(name, sizeof name, "tunamh step (%s): differences ABORT", pass);
        tunamh_fault(name, chi, 0, SGS_ERR_CALLBACK_ABORTED);
        snprintf(name, sizeof name, "tunamh step (%s): exact part ABORTs", pass);
        tunamh_fault(name, chi, 2, SGS_ERR_CALLBACK_ABORTED);
    }

    /* run: an ABORT in iteration 5 leaves 4 rows and the chain at row 4. */
    tfix_init(&f, c0);
    f.p.e_abort_at = f.p.e_calls + 5;
    double out[10 * D], x[D];
    size_t done = 0;
    sgs_tunamh_run_summary sum;
    uint64_t it = 0;
    int32_t st = sgs_tunamh_run(&f.s, 10, out, 10 * D, &done, &sum);
    sgs_tunamh_position(&f.s, x, D);
    sgs_tunamh_iterations(&f.s, &it);
    CASE("tunamh run: exact part ABORTs at iteration 5 -> 4 rows, chain at row 4", st,
         SGS_ERR_CALLBACK_ABORTED,
         done == 4 && sum.iterations == 4 && sum.has_last == 1 && it == 6 &&
             memcmp(x, out + 3 * D, sizeof x) == 0);
}

/* The sharded system (sgs_svgd_shard_...): two shards of a 40-particle system in the plane,
 * p = 4, the Feistel permutation. Every refusal leaves both states' bytes, the particles and the
 * caller's arrays as they were; a good iteration then still completes. */
enum { HN = 40, HD = 2, HP = 4, HR = 2 };

typedef struct {
    sgs_svgd_shard s[HR], saved[HR];
    double x[HR][HN * HD], x_saved[HR][HN * HD];
    double ws[HR][6 * HN * HD];
    uint32_t idx[HR][2 * HN];
    size_t c[HR], m[HR], ws_len[HR], ix_len[HR];
    /* Begin's records of both shards, the records for shard 0, and forces' records. */
    uint32_t oi[HR][2 * HN], ii[2 * HN], fi[HR][HN], gi[HN];
    double orow[HR][2 * HN * HD], irow[2 * HN * HD], frow[HR][HN * HD], grow[HN * HD];
    size_t oc[HR][HR], fc[HR][HR];
    prog p;
} hfix;

static void hsnap(hfix *f) {
    memcpy(f->saved, f->s, sizeof f->s);
    memcpy(f->x_saved, f->x, sizeof f->x);
}

static int hsame(const hfix *f) {
    return memcmp(f->saved, f->s, sizeof f->s) == 0 && memcmp(f->x_saved, f->x, sizeof f->x) == 0;
}

static sgs_svgd_config hcfg(void) {
    sgs_svgd_config c = sgs_svgd_config_default(HP, 0.1);
    c.permutation = SGS_PERMUTATION_FEISTEL;
    return c;
}

static void hfix_init(hfix *f) {
    memset(f, 0, sizeof *f);
    sgs_svgd_config c = hcfg();
    for (size_t r = 0; r < HR; r++) {
        size_t pf = 0, sf = 0;
        int ok = sgs_svgd_shard_ranges(HN, HP, HR, r, &pf, &f->c[r], &sf, &f->m[r]) == SGS_OK;
        for (size_t k = 0; k < f->c[r] * HD; k++) f->x[r][k] = (double)(pf * HD + k) / 7.0 - 2.5;
        f->ws_len[r] = sgs_svgd_shard_workspace_len(HN, HD, HR, r, &c);
        f->ix_len[r] = sgs_svgd_shard_index_len(HN, HR, r, &c);
        if (!ok || f->ws_len[r] > 6 * HN * HD || f->ix_len[r] > 2 * HN ||
            sgs_svgd_shard_init(&f->s[r], &c, HN, HD, HR, r, f->x[r], f->c[r] * HD, f->ws[r], f->ws_len[r],
                                f->idx[r], f->ix_len[r], prog_gradient, NULL, &f->p) != SGS_OK) {
            printf("FAIL shard fixture\n");
            exit(1);
        }
    }
}

/* Both shards begun; shard 0's incoming records gathered into ii/irow. */
static int hbegin(hfix *f) {
    int ok = 1;
    for (size_t r = 0; r < HR; r++)
        ok &= sgs_svgd_shard_begin(&f->s[r], f->oi[r], 2 * f->c[r], f->orow[r], 2 * f->c[r] * HD, f->oc[r], HR) ==
              SGS_OK;
    size_t k = 0;
    for (size_t r = 0; r < HR; r++) { /* shard 0's records come first in every output */
        memcpy(f->ii + 2 * k, f->oi[r], 2 * f->oc[r][0] * sizeof(uint32_t));
        memcpy(f->irow + 2 * HD * k, f->orow[r], 2 * HD * f->oc[r][0] * sizeof(double));
        k += f->oc[r][0];
    }
    return ok && k == f->m[0];
}

static void shard_cases(void) {
    hfix f;
    sgs_svgd_config c = hcfg();
    hfix_init(&f);
    size_t a, b, e, g;
    /* The ranges query. */
    a = b = e = g = 99;
    CASE("shard ranges: rank = ranks", sgs_svgd_shard_ranges(HN, HP, 2, 2, &a, &b, &e, &g), SGS_ERR_INVALID_ARGUMENT,
         a == 99 && g == 99);
    CASE("shard ranges: p = 1", sgs_svgd_shard_ranges(HN, 1, 2, 0, &a, &b, &e, &g), SGS_ERR_INVALID_BATCH_SIZE,
         a == 99);
    CASE("shard ranges: n = 0", sgs_svgd_shard_ranges(0, HP, 2, 0, &a, &b, &e, &g), SGS_ERR_ZERO_PARTICLES, a == 99);
    CASE("shard ranges: NULL output", sgs_svgd_shard_ranges(HN, HP, 2, 0, &a, NULL, &e, &g), SGS_ERR_NULL_POINTER,
         a == 99);
    CASE("shard ranges: outputs overlap", sgs_svgd_shard_ranges(HN, HP, 2, 0, &a, &a, &e, &g),
         SGS_ERR_INVALID_ARGUMENT, a == 99);
    CASE("shard ranges: rank 1 of 2", sgs_svgd_shard_ranges(HN, HP, 2, 1, &a, &b, &e, &g), SGS_OK,
         a == 20 && b == 20 && e == 20 && g == 20);
    CASE("shard size queries: NULL config", (int32_t)(sgs_svgd_shard_workspace_len(HN, HD, 2, 0, NULL) +
                                                      sgs_svgd_shard_index_len(HN, 2, 0, NULL)),
         SGS_OK, 1);

    /* Init refusals on the live shard 0: nothing changes. */
    hsnap(&f);
    sgs_svgd_config bad = c;
    bad.permutation = SGS_PERMUTATION_SHUFFLE;
    double x2[HN * HD], w2[6 * HN * HD];
    uint32_t i2[2 * HN];
    memcpy(x2, f.x[0], sizeof x2);
#define HINIT(cfgp, n, d, ranks, rank, xp, xl, wl) \
    sgs_svgd_shard_init(&f.s[0], (cfgp), (n), (d), (ranks), (rank), (xp), (xl), w2, (wl), i2, 2 * HN, prog_gradient, \
                        NULL, &f.p)
    CASE("shard init: the shuffle", HINIT(&bad, HN, HD, HR, 0, x2, f.c[0] * HD, f.ws_len[0]), SGS_ERR_INVALID_OPTION,
         hsame(&f));
    bad = c;
    bad.kernel = SGS_KERNEL_GAUSSIAN_MEDIAN;
    CASE("shard init: the median kernel", HINIT(&bad, HN, HD, HR, 0, x2, f.c[0] * HD, f.ws_len[0]),
         SGS_ERR_INVALID_OPTION, hsame(&f));
    bad = c;
    bad.ksd = SGS_KSD_BATCH;
    CASE("shard init: the KSD", HINIT(&bad, HN, HD, HR, 0, x2, f.c[0] * HD, f.ws_len[0]), SGS_ERR_INVALID_OPTION,
         hsame(&f));
    CASE("shard init: rank = ranks", HINIT(&c, HN, HD, HR, HR, x2, f.c[0] * HD, f.ws_len[0]),
         SGS_ERR_INVALID_ARGUMENT, hsame(&f));
    CASE("shard init: d = 0", HINIT(&c, HN, 0, HR, 0, x2, f.c[0] * HD, f.ws_len[0]), SGS_ERR_ZERO_DIMENSION,
         hsame(&f));
    CASE("shard init: particles one short", HINIT(&c, HN, HD, HR, 0, x2, f.c[0] * HD - 1, f.ws_len[0]),
         SGS_ERR_LENGTH_MISMATCH, hsame(&f));
    CASE("shard init: workspace one short", HINIT(&c, HN, HD, HR, 0, x2, f.c[0] * HD, f.ws_len[0] - 1),
         SGS_ERR_WORKSPACE_TOO_SMALL, hsame(&f));
    CASE("shard init: particles over the workspace", HINIT(&c, HN, HD, HR, 0, w2, f.c[0] * HD, f.ws_len[0]),
         SGS_ERR_INVALID_ARGUMENT, hsame(&f));
    x2[3] = NAN;
    CASE("shard init: a NaN particle", HINIT(&c, HN, HD, HR, 0, x2, f.c[0] * HD, f.ws_len[0]),
         SGS_ERR_INVALID_POSITION, hsame(&f));
#undef HINIT
    CASE("shard init: no callback",
         sgs_svgd_shard_init(&f.s[0], &c, HN, HD, HR, 0, x2, f.c[0] * HD, w2, f.ws_len[0], i2, 2 * HN, NULL, NULL,
                             NULL),
         SGS_ERR_NULL_POINTER, hsame(&f));

    /* Calls out of order, and begin's arrays. */
    sgs_svgd_shard_partial part, parts[HR];
    memset(parts, 0, sizeof parts);
    CASE("shard forces before begin",
         sgs_svgd_shard_forces(&f.s[0], f.ii, 2 * f.m[0], f.irow, 2 * f.m[0] * HD, f.gi, f.m[0], f.grow,
                               f.m[0] * HD, f.fc[0], HR),
         SGS_ERR_ITERATION_NOT_BEGUN, hsame(&f));
    CASE("shard finish before begin", sgs_svgd_shard_finish(&f.s[0], f.gi, f.c[0], f.grow, f.c[0] * HD, &part),
         SGS_ERR_ITERATION_NOT_BEGUN, hsame(&f));
    CASE("shard commit before begin", sgs_svgd_shard_commit(&f.s[0], parts, HR, NULL), SGS_ERR_ITERATION_NOT_BEGUN,
         hsame(&f));
    CASE("shard begin: records one short",
         sgs_svgd_shard_begin(&f.s[0], f.oi[0], 2 * f.c[0] - 1, f.orow[0], 2 * f.c[0] * HD, f.oc[0], HR),
         SGS_ERR_LENGTH_MISMATCH, hsame(&f));
    CASE("shard begin: counts for 3 ranks",
         sgs_svgd_shard_begin(&f.s[0], f.oi[0], 2 * f.c[0], f.orow[0], 2 * f.c[0] * HD, f.oc[0], 3),
         SGS_ERR_LENGTH_MISMATCH, hsame(&f));
    CASE("shard begin: rows over the particles",
         sgs_svgd_shard_begin(&f.s[0], f.oi[0], 2 * f.c[0], f.x[0], 2 * f.c[0] * HD, f.oc[0], HR),
         SGS_ERR_INVALID_ARGUMENT, hsame(&f));
    CASE("shard begin: rows over the state",
         sgs_svgd_shard_begin(&f.s[0], f.oi[0], 2 * f.c[0], (double *)(void *)&f.s[0], 2, f.oc[0], HR),
         SGS_ERR_INVALID_ARGUMENT, hsame(&f));
    CASE("shard begin: NULL counts",
         sgs_svgd_shard_begin(&f.s[0], f.oi[0], 2 * f.c[0], f.orow[0], 2 * f.c[0] * HD, NULL, HR),
         SGS_ERR_NULL_POINTER, hsame(&f));
    CASE("shard begin: the f32 function",
         sgs_svgd_shard_begin_f32((sgs_svgd_shard_f32 *)(void *)&f.s[0], f.oi[0], 2 * f.c[0],
                                  (float *)(void *)f.orow[0], 2 * f.c[0] * HD, f.oc[0], HR),
         SGS_ERR_NOT_INITIALISED, hsame(&f));
    f.p.g_abort = f.p.g_calls + 1;
    CASE("shard begin: the gradient aborts",
         sgs_svgd_shard_begin(&f.s[0], f.oi[0], 2 * f.c[0], f.orow[0], 2 * f.c[0] * HD, f.oc[0], HR),
         SGS_ERR_CALLBACK_ABORTED, hsame(&f));
    f.p.g_nan = f.p.g_calls + 1;
    CASE("shard begin: a NaN gradient",
         sgs_svgd_shard_begin(&f.s[0], f.oi[0], 2 * f.c[0], f.orow[0], 2 * f.c[0] * HD, f.oc[0], HR),
         SGS_ERR_NON_FINITE, hsame(&f));
    sgs_svgd_shard moved;
    memcpy(&moved, &f.s[0], sizeof moved);
    CASE("shard begin: a state moved byte-wise",
         sgs_svgd_shard_begin(&moved, f.oi[0], 2 * f.c[0], f.orow[0], 2 * f.c[0] * HD, f.oc[0], HR),
         SGS_ERR_STATE_MOVED, hsame(&f));

    /* After begin: malformed records for shard 0's forces. */
    int began = hbegin(&f);
    hsnap(&f);
    uint32_t keep = f.ii[0];
    f.ii[0] = (uint32_t)f.m[0]; /* shard 0 holds slots 0 .. m-1 */
    CASE("shard forces: a slot not its own",
         sgs_svgd_shard_forces(&f.s[0], f.ii, 2 * f.m[0], f.irow, 2 * f.m[0] * HD, f.gi, f.m[0], f.grow,
                               f.m[0] * HD, f.fc[0], HR),
         SGS_ERR_RANGE_OUT_OF_BOUNDS, began && hsame(&f));
    f.ii[0] = f.ii[2];
    CASE("shard forces: a slot twice",
         sgs_svgd_shard_forces(&f.s[0], f.ii, 2 * f.m[0], f.irow, 2 * f.m[0] * HD, f.gi, f.m[0], f.grow,
                               f.m[0] * HD, f.fc[0], HR),
         SGS_ERR_RANGE_OVERLAP, hsame(&f));
    f.ii[0] = keep;
    keep = f.ii[1];
    f.ii[1] = HN;
    CASE("shard forces: a particle past N",
         sgs_svgd_shard_forces(&f.s[0], f.ii, 2 * f.m[0], f.irow, 2 * f.m[0] * HD, f.gi, f.m[0], f.grow,
                               f.m[0] * HD, f.fc[0], HR),
         SGS_ERR_RANGE_OUT_OF_BOUNDS, hsame(&f));
    f.ii[1] = keep;
    CASE("shard forces: outputs over the inputs",
         sgs_svgd_shard_forces(&f.s[0], f.ii, 2 * f.m[0], f.irow, 2 * f.m[0] * HD, f.ii, f.m[0], f.grow,
                               f.m[0] * HD, f.fc[0], HR),
         SGS_ERR_INVALID_ARGUMENT, hsame(&f));
    /* The same records as pieces, one per sender (shard 0's records first in every output). */
    sgs_svgd_shard_records pc[HR];
    for (size_t q = 0; q < HR; q++) pc[q] = (sgs_svgd_shard_records){f.oi[q], 2 * f.oc[q][0], f.orow[q], 2 * HD * f.oc[q][0]};
#define HPARTS(pp, n) \
    sgs_svgd_shard_forces_parts(&f.s[0], (pp), (n), f.gi, f.m[0], f.grow, f.m[0] * HD, f.fc[0], HR)
    CASE("shard forces_parts: NULL pieces", HPARTS(NULL, HR), SGS_ERR_NULL_POINTER, hsame(&f));
    CASE("shard forces_parts: one piece of two", HPARTS(pc, 1), SGS_ERR_LENGTH_MISMATCH, hsame(&f));
    sgs_svgd_shard_records pbad[HR];
    memcpy(pbad, pc, sizeof pbad);
    pbad[0].idx_len -= 1; /* a piece that ends inside a record */
    CASE("shard forces_parts: a record split", HPARTS(pbad, HR), SGS_ERR_LENGTH_MISMATCH, hsame(&f));
    memcpy(pbad, pc, sizeof pbad);
    pbad[1].rows_len -= 1;
    CASE("shard forces_parts: rows one short", HPARTS(pbad, HR), SGS_ERR_LENGTH_MISMATCH, hsame(&f));
    memcpy(pbad, pc, sizeof pbad);
    pbad[1].idx = NULL;
    CASE("shard forces_parts: a NULL piece", HPARTS(pbad, HR), SGS_ERR_NULL_POINTER, hsame(&f));
    memcpy(pbad, pc, sizeof pbad);
    pbad[1].rows = f.grow; /* the output */
    CASE("shard forces_parts: a piece over an output", HPARTS(pbad, HR), SGS_ERR_INVALID_ARGUMENT, hsame(&f));
    memcpy(pbad, pc, sizeof pbad);
    pbad[0].idx = f.idx[0]; /* the state's index */
    CASE("shard forces_parts: a piece over the state's index", HPARTS(pbad, HR), SGS_ERR_INVALID_ARGUMENT,
         hsame(&f));
#undef HPARTS
    CASE("shard finish_parts after begin", sgs_svgd_shard_finish_parts(&f.s[0], pc, HR, &part),
         SGS_ERR_ITERATION_NOT_BEGUN, hsame(&f));
    CASE("shard begin again", sgs_svgd_shard_begin(&f.s[0], f.oi[0], 2 * f.c[0], f.orow[0], 2 * f.c[0] * HD,
                                                    f.oc[0], HR),
         SGS_ERR_ITERATION_IN_PROGRESS, hsame(&f));
    CASE("shard finish after begin", sgs_svgd_shard_finish(&f.s[0], f.gi, f.c[0], f.grow, f.c[0] * HD, &part),
         SGS_ERR_ITERATION_NOT_BEGUN, hsame(&f));
    /* Cancel both; then a whole iteration still completes (records exchanged by hand). */
    CASE("shard cancel", sgs_svgd_shard_cancel(&f.s[0]) | sgs_svgd_shard_cancel(&f.s[1]), SGS_OK,
         memcmp(f.x_saved, f.x, sizeof f.x) == 0);
    int ok = hbegin(&f);
    for (size_t r = 0; r < HR && ok; r++) {
        /* Shard r's incoming records, from both shards' begin output. */
        size_t k = 0;
        for (size_t q = 0; q < HR; q++) {
            size_t at = 0;
            for (size_t t = 0; t < r; t++) at += f.oc[q][t];
            memcpy(f.ii + 2 * k, f.oi[q] + 2 * at, 2 * f.oc[q][r] * sizeof(uint32_t));
            memcpy(f.irow + 2 * HD * k, f.orow[q] + 2 * HD * at, 2 * HD * f.oc[q][r] * sizeof(double));
            k += f.oc[q][r];
        }
        if (r == 0) { /* shard 0 reads its records where begin wrote them (first), one piece per sender */
            for (size_t q = 0; q < HR; q++)
                pc[q] = (sgs_svgd_shard_records){f.oi[q], 2 * f.oc[q][0], f.orow[q], 2 * HD * f.oc[q][0]};
            ok = k == f.m[0] && sgs_svgd_shard_forces_parts(&f.s[0], pc, HR, f.fi[0], f.m[0], f.frow[0],
                                                            f.m[0] * HD, f.fc[0], HR) == SGS_OK;
            continue;
        }
        ok = k == f.m[r] && sgs_svgd_shard_forces(&f.s[r], f.ii, 2 * f.m[r], f.irow, 2 * f.m[r] * HD, f.fi[r], f.m[r],
                                                  f.frow[r], f.m[r] * HD, f.fc[r], HR) == SGS_OK;
    }
    for (size_t r = 0; r < HR && ok; r++) {
        size_t k = 0;
        for (size_t q = 0; q < HR; q++) {
            size_t at = 0;
            for (size_t t = 0; t < r; t++) at += f.fc[q][t];
            memcpy(f.gi + k, f.fi[q] + at, f.fc[q][r] * sizeof(uint32_t));
            memcpy(f.grow + HD * k, f.frow[q] + HD * at, HD * f.fc[q][r] * sizeof(double));
            k += f.fc[q][r];
        }
        if (r == 0 && k > 1) {
            hsnap(&f);
            uint32_t k0 = f.gi[0];
            f.gi[0] = f.gi[1];
            CASE("shard finish: a particle twice", sgs_svgd_shard_finish(&f.s[0], f.gi, k, f.grow, k * HD, &part),
                 SGS_ERR_RANGE_OVERLAP, hsame(&f));
            f.gi[0] = (uint32_t)f.c[0];
            CASE("shard finish: a particle not its own",
                 sgs_svgd_shard_finish(&f.s[0], f.gi, k, f.grow, k * HD, &part), SGS_ERR_RANGE_OUT_OF_BOUNDS,
                 hsame(&f));
            f.gi[0] = k0;
            CASE("shard finish: NULL partial", sgs_svgd_shard_finish(&f.s[0], f.gi, k, f.grow, k * HD, NULL),
                 SGS_ERR_NULL_POINTER, hsame(&f));
            /* Its records as pieces where forces wrote them, one per sender. */
            for (size_t q = 0; q < HR; q++) pc[q] = (sgs_svgd_shard_records){f.fi[q], f.fc[q][0], f.frow[q], HD * f.fc[q][0]};
            CASE("shard finish_parts: NULL pieces", sgs_svgd_shard_finish_parts(&f.s[0], NULL, HR, &part),
                 SGS_ERR_NULL_POINTER, hsame(&f));
            sgs_svgd_shard_records two[2 * HR];
            memcpy(two, pc, sizeof pc), memcpy(two + HR, pc, sizeof pc); /* every record twice */
            CASE("shard finish_parts: every piece twice", sgs_svgd_shard_finish_parts(&f.s[0], two, 2 * HR, &part),
                 SGS_ERR_LENGTH_MISMATCH, hsame(&f));
            memcpy(two, pc, sizeof pc);
            two[0].rows_len += HD; /* rows of one record more than its indices */
            CASE("shard finish_parts: rows past the indices", sgs_svgd_shard_finish_parts(&f.s[0], two, HR, &part),
                 SGS_ERR_LENGTH_MISMATCH, hsame(&f));
            ok = k == f.c[0] && sgs_svgd_shard_finish_parts(&f.s[0], pc, HR, &parts[0]) == SGS_OK;
            continue;
        }
        ok = k == f.c[r] && sgs_svgd_shard_finish(&f.s[r], f.gi, k, f.grow, k * HD, &parts[r]) == SGS_OK;
    }
    hsnap(&f);
    CASE("shard commit: one partial", sgs_svgd_shard_commit(&f.s[0], parts, 1, NULL), SGS_ERR_LENGTH_MISMATCH,
         ok && hsame(&f));
    sgs_svgd_shard_partial odd[HR];
    memcpy(odd, parts, sizeof odd);
    odd[1].finite = 7;
    CASE("shard commit: finite = 7", sgs_svgd_shard_commit(&f.s[0], odd, HR, NULL), SGS_ERR_INVALID_ARGUMENT,
         hsame(&f));
    sgs_svgd_info info;
    CASE("shard commit", sgs_svgd_shard_commit(&f.s[0], parts, HR, &info) | sgs_svgd_shard_commit(&f.s[1], parts, HR, NULL),
         SGS_OK, memcmp(f.x_saved, f.x, sizeof f.x) != 0 && info.iteration == 1);
    uint64_t its = 0;
    CASE("shard iterations", sgs_svgd_shard_iterations(&f.s[1], &its), SGS_OK, its == 1);
    CASE("shard clear", sgs_svgd_shard_clear(&f.s[0]), SGS_OK, 1);
    CASE("shard iterations after clear", sgs_svgd_shard_iterations(&f.s[0], &its), SGS_ERR_NOT_INITIALISED, its == 1);
}

int main(void) {
    amagold_init_cases();
    use_before_init_cases();
    amagold_call_cases();
    callback_cases();
    sghmc_cases();
    minibatch_cases();
    f32_cases();
    status_and_version_cases();
    svgd_cases();
    svgd_phase_cases();
    thin_cases();
    weights_cases();
    kde_cases();
    ksd_cases();
    scale_cases();
    hardening_cases();
    stats_cases();
    mass_cases();
    mass_status_cases();
    mass_extreme_sigma_cases();
    draws_cases();
    warmup_api_cases();
    sg_precond_cases();
    checkpoint_cases();
    tunamh_cases();
    shard_cases();
    printf("bad-input matrix: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
