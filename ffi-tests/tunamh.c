/* TunaMH through the C API, double and float: a second identical run, a run against steps and a
 * copy give the same bits; the chain asks for chunks of at most 32 valid indices and counts
 * exactly what it asked for; both passes (minibatch and full) are taken; a NULL exact-part
 * callback is a flat one; a REJECT or a NaN difference ends the iteration as documented; the
 * float chain takes the double chain's decisions while their positions agree to float rounding.
 * (Bad inputs, bound violations and aborts: ffi-tests/bad_inputs.c; checkpoints:
 * ffi-tests/checkpoint.c.) Exit status 1 on any failure. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"
#include "sgsample.h"

#define D 3
#define STEPS 400

static int failures;

static void expect(int ok, const char *what) {
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    failures += !ok;
}

/* What the callbacks saw, and how they misbehave on demand. */
typedef struct {
    uint64_t points, calls;
    size_t max_count;
    int bad_index;  /* an index ≥ TERMS_N or a chunk of 0 or > 32 */
    int zero_exact; /* the exact part returns 0 (a flat prior written out) */
    uint64_t reject_at, nan_at; /* the differences call that REJECTs / writes a NaN */
} seen;

static int32_t record(seen *s, const uint64_t *idx, size_t count) {
    s->calls++;
    s->points += count;
    if (count > s->max_count) s->max_count = count;
    if (count == 0 || count > 32) s->bad_index = 1;
    for (size_t k = 0; k < count; k++)
        if (idx[k] >= TERMS_N) s->bad_index = 1;
    return s->calls == s->reject_at ? SGS_CB_REJECT : SGS_CB_OK;
}

static int32_t diff64(void *ud, const double *t, const double *p, size_t d, const uint64_t *idx,
                      size_t count, double *out) {
    seen *s = ud;
    int32_t st = record(s, idx, count);
    terms_differences64(t, p, d, idx, count, out);
    if (s->calls == s->nan_at) out[count - 1] = NAN;
    return st;
}

static int32_t exact64(void *ud, const double *t, const double *p, size_t d, double *out) {
    *out = ((seen *)ud)->zero_exact ? 0.0 : terms_exact64(t, p, d);
    return SGS_CB_OK;
}

static void widen(const float *x, double *y, size_t d) {
    for (size_t j = 0; j < d; j++) y[j] = (double)x[j];
}

static int32_t diff32(void *ud, const float *t, const float *p, size_t d, const uint64_t *idx,
                      size_t count, double *out) {
    double tt[D], pp[D];
    widen(t, tt, d);
    widen(p, pp, d);
    return diff64(ud, tt, pp, d, idx, count, out);
}

static int32_t exact32(void *ud, const float *t, const float *p, size_t d, double *out) {
    double tt[D], pp[D];
    widen(t, tt, d);
    widen(p, pp, d);
    return exact64(ud, tt, pp, d, out);
}

static const double START[D] = {0.5, -0.25, 1.0};

/* Small steps and χ: most iterations on a minibatch, the long proposals on a full pass. */
static sgs_tunamh_config config(void) {
    sgs_tunamh_config c = sgs_tunamh_config_default(0.25, TERMS_N, TERMS_BOUND);
    c.chi = 0.02;
    c.seed = 5;
    return c;
}

static void init64(sgs_tunamh *s, double *ws, seen *u, int exact) {
    sgs_tunamh_config c = config();
    memset(u, 0, sizeof *u);
    if (sgs_tunamh_init(s, &c, START, D, ws, 2 * D, exact ? exact64 : NULL, diff64, u) != SGS_OK) {
        printf("FAIL init\n");
        exit(1);
    }
}

static void steps_and_run(void) {
    static double rows_a[STEPS * D], rows_b[STEPS * D];
    sgs_tunamh a = {{0}}, b = {{0}};
    double wa[2 * D], wb[2 * D];
    seen ua, ub;
    init64(&a, wa, &ua, 1);
    init64(&b, wb, &ub, 1);
    sgs_tunamh_info info, last;
    uint64_t sum_eval = 0, sum_acc = 0, n_full = 0, n_mini = 0, n_rej = 0;
    int kept_ok = 1, info_ok = 1;
    for (size_t k = 0; k < STEPS; k++) {
        if (sgs_tunamh_step(&a, &info) != SGS_OK || sgs_tunamh_position(&a, rows_a + k * D, D) != SGS_OK)
            info_ok = 0;
        sum_eval += info.evaluations;
        sum_acc += info.accepted;
        n_full += info.full_pass;
        n_mini += !info.full_pass && info.evaluations > 0;
        n_rej += info.outcome == SGS_OUTCOME_REJECTED;
        kept_ok &= info.kept <= info.evaluations;
        if (info.full_pass) kept_ok &= info.evaluations == TERMS_N && info.kept == TERMS_N;
        info_ok &= info.iteration == k + 1 && info.reserved == 0 && info.accepted == (info.outcome == SGS_OUTCOME_ACCEPTED);
        last = info;
    }
    size_t done = 0;
    sgs_tunamh_run_summary sum;
    int32_t st = sgs_tunamh_run(&b, STEPS, rows_b, STEPS * D, &done, &sum);
    expect(info_ok, "steps: OK, iteration counts, accepted flag = outcome");
    expect(st == SGS_OK && done == STEPS && memcmp(rows_a, rows_b, sizeof rows_a) == 0,
           "run = the same number of steps, bit for bit");
    expect(sum.iterations == STEPS && sum.accepted == sum_acc && sum.has_last == 1 &&
               memcmp(&sum.last, &last, sizeof last) == 0,
           "run summary: totals and the last step's info");
    uint64_t ev = 0, acc = 0, it = 0;
    expect(sgs_tunamh_evaluations(&a, &ev) == SGS_OK && ev == sum_eval && ev == ua.points &&
               ub.points == ua.points,
           "evaluations getter = sum of the infos = differences the callback computed");
    expect(sgs_tunamh_accepted(&a, &acc) == SGS_OK && acc == sum_acc &&
               sgs_tunamh_iterations(&a, &it) == SGS_OK && it == STEPS,
           "accepted and iterations getters");
    expect(!ua.bad_index && ua.max_count == 32, "chunks of 1..32 indices, all below N; 32 reached");
    expect(kept_ok, "kept <= evaluations; a full pass asks for and keeps all N");
    printf("     %llu full passes, %llu minibatch steps, %llu rejections, %llu accepted of %d; "
           "%.1f differences per step\n",
           (unsigned long long)n_full, (unsigned long long)n_mini, (unsigned long long)n_rej,
           (unsigned long long)sum_acc, STEPS, (double)sum_eval / STEPS);
    expect(n_full > 0 && n_mini > 0 && n_rej > 0 && sum_acc > 0,
           "both passes taken, proposals both accepted and rejected");
    expect(n_full < STEPS / 4 && sum_eval < (uint64_t)STEPS * TERMS_N * 3 / 4,
           "mostly minibatches: under 3/4 of the differences full passes would ask for");
}

static void copy_continues(void) {
    static double rows_a[100 * D], rows_c[100 * D];
    sgs_tunamh a = {{0}}, c = {{0}};
    double wa[2 * D], wc[2 * D];
    seen ua;
    init64(&a, wa, &ua, 1);
    int32_t st = sgs_tunamh_run(&a, 100, rows_a, 100 * D, NULL, NULL);
    if (st == SGS_OK) st = sgs_tunamh_copy(&c, wc, 2 * D, &a);
    if (st == SGS_OK) st = sgs_tunamh_run(&a, 100, rows_a, 100 * D, NULL, NULL);
    if (st == SGS_OK) st = sgs_tunamh_run(&c, 100, rows_c, 100 * D, NULL, NULL);
    expect(st == SGS_OK && memcmp(rows_a, rows_c, sizeof rows_a) == 0,
           "a copy continues as the source, bit for bit");
}

static void null_exact_is_flat(void) {
    static double rows_n[STEPS * D], rows_z[STEPS * D], rows_p[STEPS * D];
    sgs_tunamh n = {{0}}, z = {{0}}, p = {{0}};
    double wn[2 * D], wz[2 * D], wp[2 * D];
    seen un, uz, up;
    init64(&n, wn, &un, 0);
    init64(&z, wz, &uz, 1);
    uz.zero_exact = 1;
    init64(&p, wp, &up, 1);
    int32_t st = sgs_tunamh_run(&n, STEPS, rows_n, STEPS * D, NULL, NULL);
    if (st == SGS_OK) st = sgs_tunamh_run(&z, STEPS, rows_z, STEPS * D, NULL, NULL);
    if (st == SGS_OK) st = sgs_tunamh_run(&p, STEPS, rows_p, STEPS * D, NULL, NULL);
    expect(st == SGS_OK && memcmp(rows_n, rows_z, sizeof rows_n) == 0,
           "NULL exact-part callback = one that returns 0, bit for bit");
    expect(memcmp(rows_n, rows_p, sizeof rows_n) != 0, "... and differs from the chain with the prior");
}

/* A REJECT, then a NaN, planted at the next differences call (steps are retried until one asks
 * for differences: a minibatch step may draw an empty batch). */
static void reject_and_nan(void) {
    for (int nan = 0; nan < 2; nan++) {
        sgs_tunamh a = {{0}};
        double wa[2 * D], before[D], after[D];
        seen ua;
        init64(&a, wa, &ua, 1);
        sgs_tunamh_run(&a, 10, NULL, 0, NULL, NULL);
        int32_t st = SGS_OK;
        sgs_tunamh_info info;
        uint64_t acc0 = 0, acc1 = 0, div = 0, it0 = 0;
        memset(&info, 0, sizeof info);
        for (int tries = 0; tries < 50 && st == SGS_OK; tries++) {
            uint64_t calls = ua.calls;
            if (nan) ua.nan_at = calls + 1;
            else ua.reject_at = calls + 1;
            sgs_tunamh_position(&a, before, D);
            sgs_tunamh_accepted(&a, &acc0);
            sgs_tunamh_iterations(&a, &it0);
            st = sgs_tunamh_step(&a, &info);
            if (ua.calls > calls) break;
        }
        sgs_tunamh_position(&a, after, D);
        sgs_tunamh_accepted(&a, &acc1);
        sgs_tunamh_divergences(&a, &div);
        int same = memcmp(before, after, sizeof before) == 0 && acc0 == acc1 && !info.accepted &&
                   isnan(info.log_ratio);
        if (nan)
            expect(st == SGS_OK && info.outcome == SGS_OUTCOME_DIVERGENT && info.divergences == 1 &&
                       div == 1 && same,
                   "a NaN difference: the step is a divergence, the chain stays");
        else
            expect(st == SGS_OK && info.outcome == SGS_OUTCOME_OUT_OF_DOMAIN && same &&
                       info.iteration == it0 + 1,
                   "a REJECT from the differences: out of domain, the chain stays, the iteration counts");
    }
}

/* The float chain makes the same draws: it takes the double chain's decisions as long as their
 * positions agree to float rounding (checked over the first 100 steps), and two float runs are
 * the same bits. */
static void float_chain(void) {
    enum { K = 100 };
    sgs_tunamh d64 = {{0}};
    sgs_tunamh_f32 f = {{0}}, g = {{0}};
    double w64[2 * D];
    float wf[2 * D], wg[2 * D], start[D] = {0.5f, -0.25f, 1.0f};
    static float rows_f[STEPS * D], rows_g[STEPS * D];
    seen u64, uf, ug;
    sgs_tunamh_config c = config();
    init64(&d64, w64, &u64, 1);
    memset(&uf, 0, sizeof uf);
    memset(&ug, 0, sizeof ug);
    int32_t st = sgs_tunamh_init_f32(&f, &c, start, D, wf, 2 * D, exact32, diff32, &uf);
    if (st == SGS_OK) st = sgs_tunamh_init_f32(&g, &c, start, D, wg, 2 * D, exact32, diff32, &ug);
    int same_decisions = st == SGS_OK;
    double worst = 0.0;
    for (size_t k = 0; k < K && same_decisions; k++) {
        sgs_tunamh_info i64, i32;
        double x[D];
        float y[D];
        if (sgs_tunamh_step(&d64, &i64) != SGS_OK || sgs_tunamh_step_f32(&f, &i32) != SGS_OK ||
            sgs_tunamh_position(&d64, x, D) != SGS_OK || sgs_tunamh_position_f32(&f, y, D) != SGS_OK) {
            same_decisions = 0;
            break;
        }
        same_decisions &= i64.accepted == i32.accepted && i64.evaluations == i32.evaluations &&
                          i64.full_pass == i32.full_pass;
        for (size_t j = 0; j < D; j++) {
            double e = fabs(x[j] - (double)y[j]) / (1.0 + fabs(x[j]));
            if (e > worst) worst = e;
        }
    }
    printf("     float vs double over %d steps: largest relative difference %.3g\n", K, worst);
    expect(same_decisions && worst < 1e-5,
           "float chain: the double chain's decisions and batch sizes, positions to float rounding");
    if (st == SGS_OK) st = sgs_tunamh_run_f32(&g, K, rows_g, STEPS * D, NULL, NULL);
    if (st == SGS_OK) st = sgs_tunamh_run_f32(&g, STEPS - K, rows_g + K * D, (STEPS - K) * D, NULL, NULL);
    sgs_tunamh_f32 h = {{0}};
    float wh[2 * D];
    seen uh;
    memset(&uh, 0, sizeof uh);
    if (st == SGS_OK) st = sgs_tunamh_init_f32(&h, &c, start, D, wh, 2 * D, exact32, diff32, &uh);
    if (st == SGS_OK) st = sgs_tunamh_run_f32(&h, STEPS, rows_f, STEPS * D, NULL, NULL);
    expect(st == SGS_OK && memcmp(rows_f, rows_g, sizeof rows_f) == 0,
           "float: a second identical run (in two calls) gives the same bits");
}

int main(void) {
    /* models.h's other models: not used here */
    (void)svgd_start;
    (void)model_energy64;
    (void)model_gradient64;
    steps_and_run();
    copy_continues();
    null_exact_is_flat();
    reject_and_nan();
    float_chain();
    if (failures) {
        printf("tunamh: %d failures\n", failures);
        return 1;
    }
    printf("tunamh: all passed\n");
    return 0;
}
