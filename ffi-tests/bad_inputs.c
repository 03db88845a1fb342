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
    c = c0; c.warmup = 10; c.target_accept = 1.0;
    bad_config("init: target acceptance 1", c, SGS_ERR_INVALID_TARGET_ACCEPTANCE);
    c = c0; c.warmup = 10; c.target_accept = NAN;
    bad_config("init: target acceptance NaN", c, SGS_ERR_INVALID_TARGET_ACCEPTANCE);
    c = c0; c.warmup = 10; c.target_accept = 0.0;
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
    for (int32_t a = 0; a <= SGS_ERR_BUSY; a++) {
        const char *sa = sgs_status_str(a);
        ok &= sa != NULL && strcmp(sa, "unknown status") != 0;
        for (int32_t b = 0; b < a; b++) ok &= strcmp(sa, sgs_status_str(b)) != 0;
    }
    expect("status strings: one distinct static string per code", ok, NULL);
    expect("status strings: unknown codes",
           strcmp(sgs_status_str(-1), "unknown status") == 0 &&
               strcmp(sgs_status_str(SGS_ERR_BUSY + 1), "unknown status") == 0 &&
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
               sgs_svgd_state_align_f32() == ALIGNOF(sgs_svgd_f32),
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
    memset(&h, 0, sizeof h);
    for (size_t k = 0; k < SN * SD; k++) h.x[k] = 1e3 * ((double)k - 7.5);
    h.ws_len = sgs_svgd_workspace_len(SN, SD, &c);
    CASE("svgd init: huge constant step (valid)",
         sgs_svgd_init(&h.s, &c, h.x, SN, SD, h.ws, h.ws_len, h.idx, SN, prog_gradient, NULL, &h.p), SGS_OK, 1);
    ssnap(&h);
    CASE("svgd step: update overflows -> non-finite, nothing moved", sgs_svgd_step(&h.s, NULL),
         SGS_ERR_NON_FINITE, ssame_system(&h, &c));

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
    printf("bad-input matrix: %d passed, %d failed\n", passed, failed);
    return failed == 0 ? 0 : 1;
}
