/* The C firmware: sgsample's C API (include/sgsample.h, libsgsample.a built for
 * thumbv7em-none-eabihf) from a C main() on QEMU's mps2-an386 (Cortex-M4F), all buffers static.
 *
 * It repeats the AMAGOLD runs (a dense mass matrix and a step size given through the setters, and
 * a warm-up with the approach that learns a diagonal one, included) and the Student-t RBM-SVGD
 * run of ../src/runs.rs (same models, same operations in the same order, same configurations)
 * and prints the same lines, so scripts/test-firmware.sh compares its output
 * with the host's bit for bit. Compile with -ffp-contract=off: a fused multiply-add would round
 * once where the Rust side rounds twice. The models use no libm function (newlib's would not give
 * the bits of the Rust libm the host uses); the gradient noise is an integer hash of the
 * minibatch seed. Output: newlib's printf over semihosting (librdimon); exit status 0 on
 * success, 1 if the library returned an error. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "sgsample.h"

/* ---- the models of runs.rs ------------------------------------------------------------------ */

static uint64_t splitmix64(uint64_t x)
{
    uint64_t z = x + 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* Noise number k of a minibatch seed: uniform on [-sqrt(3), sqrt(3)), variance 1. */
static double seed_noise(uint64_t seed, uint64_t k)
{
    uint64_t h = splitmix64(seed ^ (k * 0xD1B54A32D192ED03ull));
    double u = (double)(h >> 11) * (1.0 / 9007199254740992.0);
    return (u - 0.5) * 3.4641016151377544;
}

enum model_kind { DOUBLE_WELL, GAUSS3 };

struct model {
    enum model_kind kind;
    double noise;
};

static const double G3_P[9] = {2.0, 0.5, 0.0, 0.5, 1.0, -0.25, 0.0, -0.25, 0.5};

/* Double precision. */
static int32_t energy64(void *ud, const double *x, size_t d, double *u)
{
    const struct model *m = ud;
    if (m->kind == DOUBLE_WELL) {
        double t = x[0];
        *u = (t + 4.0) * (t + 1.0) * (t - 1.0) * (t - 3.0) / 14.0 + 0.5;
        return SGS_CB_OK;
    }
    double s = 0.0;
    for (size_t i = 0; i < d; i++) {
        double p = 0.0;
        for (size_t j = 0; j < 3; j++)
            p += G3_P[i * 3 + j] * x[j];
        s += x[i] * p;
    }
    *u = 0.5 * s;
    return SGS_CB_OK;
}

static int32_t gradient64(void *ud, const double *x, size_t d, uint64_t seed, double *g)
{
    const struct model *m = ud;
    if (m->kind == DOUBLE_WELL) {
        double t = x[0], t2 = t * t;
        double du = (((4.0 * t2) * t + 3.0 * t2) - 26.0 * t - 1.0) / 14.0;
        g[0] = du + m->noise * seed_noise(seed, 0);
        return SGS_CB_OK;
    }
    for (size_t i = 0; i < d; i++) {
        double p = 0.0;
        for (size_t j = 0; j < 3; j++)
            p += G3_P[i * 3 + j] * x[j];
        g[i] = p + m->noise * seed_noise(seed, i);
    }
    return SGS_CB_OK;
}

/* Single precision: every operation in float (FLT_EVAL_METHOD 0 on this target), constants
 * rounded once from double, as T::from_f64 does. */
static int32_t energy32(void *ud, const float *x, size_t d, double *u)
{
    const struct model *m = ud;
    if (m->kind == DOUBLE_WELL) {
        float t = x[0];
        float v = (t + 4.0f) * (t + 1.0f) * (t - 1.0f) * (t - 3.0f) / 14.0f + 0.5f;
        *u = (double)v;
        return SGS_CB_OK;
    }
    float s = 0.0f;
    for (size_t i = 0; i < d; i++) {
        float p = 0.0f;
        for (size_t j = 0; j < 3; j++)
            p += (float)G3_P[i * 3 + j] * x[j];
        s += x[i] * p;
    }
    *u = (double)(0.5f * s);
    return SGS_CB_OK;
}

static int32_t gradient32(void *ud, const float *x, size_t d, uint64_t seed, float *g)
{
    const struct model *m = ud;
    if (m->kind == DOUBLE_WELL) {
        float t = x[0], t2 = t * t;
        float du = (((4.0f * t2) * t + 3.0f * t2) - 26.0f * t - 1.0f) / 14.0f;
        g[0] = du + (float)(m->noise * seed_noise(seed, 0));
        return SGS_CB_OK;
    }
    for (size_t i = 0; i < d; i++) {
        float p = 0.0f;
        for (size_t j = 0; j < 3; j++)
            p += (float)G3_P[i * 3 + j] * x[j];
        g[i] = p + (float)(m->noise * seed_noise(seed, i));
    }
    return SGS_CB_OK;
}

/* The Student-t target of runs.rs (StudentT): grad V(x) = 4(x-2)/(3 + (x-2)^2), batched. */
static int32_t student_t64(void *ud, const double *xs, size_t n, size_t d, uint64_t seed,
                           double *grads)
{
    (void)ud;
    (void)seed;
    for (size_t i = 0; i < n * d; i++) {
        double z = xs[i] - 2.0;
        grads[i] = (4.0 * z) / (3.0 + z * z);
    }
    return SGS_CB_OK;
}

static int32_t student_t32(void *ud, const float *xs, size_t n, size_t d, uint64_t seed,
                           float *grads)
{
    (void)ud;
    (void)seed;
    for (size_t i = 0; i < n * d; i++) {
        float z = xs[i] - 2.0f;
        grads[i] = (4.0f * z) / (3.0f + z * z);
    }
    return SGS_CB_OK;
}

/* ---- the runs of runs.rs -------------------------------------------------------------------- */

struct run {
    const char *name;
    enum model_kind model;
    double step_size;
    uint32_t steps;
    uint32_t variant;
    uint64_t warmup;
    uint64_t seed;
    uint64_t stream;
    uint32_t mass;
    size_t d;
    double theta0[3];
    uint32_t iterations;
    double set_step_size;          /* set after init when positive */
    const double *set_inverse_mass_dense; /* d x d, set after init when not NULL */
};

/* runs.rs's G3_COV: near the covariance of the 3-D Gaussian. */
static const double G3_COV[9] = {0.58, -0.33, -0.17, -0.33, 1.33, 0.67, -0.17, 0.67, 2.33};

static const struct run RUNS[5] = {
    {"amagold-dw-rev", DOUBLE_WELL, 0.25, 10, SGS_VARIANT_REVERSIBLE, 40, 2020, 0, SGS_MASS_UNIT, 1,
     {0.0}, 160, 0.0, NULL},
    {"amagold-dw-nonrev", DOUBLE_WELL, 0.25, 10, SGS_VARIANT_NON_REVERSIBLE, 0, 2020, 1,
     SGS_MASS_UNIT, 1, {0.0}, 80, 0.0, NULL},
    {"amagold-g3-rev", GAUSS3, 0.3, 5, SGS_VARIANT_REVERSIBLE, 0, 7, 3, SGS_MASS_UNIT, 3,
     {1.0, -1.0, 2.0}, 60, 0.0, NULL},
    {"amagold-g3-dense-set", GAUSS3, 0.2, 5, SGS_VARIANT_NON_REVERSIBLE, 0, 11, 0, SGS_MASS_DENSE, 3,
     {1.0, -1.0, 2.0}, 60, 0.5, G3_COV},
    {"amagold-g3-warm-diag", GAUSS3, 0.1, 5, SGS_VARIANT_REVERSIBLE, 60, 13, 0, SGS_MASS_DIAGONAL, 3,
     {6.0, -4.0, 8.0}, 90, 0.0, NULL},
};

#define MAX_D 3
/* The largest workspace of the runs: d = 3 with a diagonal mass matrix and the warm-up's
 * approach, 6·d + 4·d + 12·d (checked against sgs_amagold_workspace_len_for at run time). */
#define AMAGOLD_WS (22 * MAX_D)

/* All buffers static: the sampler states (zero-initialised, as the header asks) and workspaces. */
static sgs_amagold state64;
static sgs_amagold_f32 state32;
static double ws64[AMAGOLD_WS];
static float ws32[AMAGOLD_WS];

static uint64_t bits64(double x)
{
    uint64_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static uint32_t bits32(float x)
{
    uint32_t b;
    memcpy(&b, &x, sizeof b);
    return b;
}

static int fail(const char *what, const char *run, int32_t status)
{
    printf("FAILED: %s (%s): %d %s\n", what, run, (int)status, sgs_status_str(status));
    return 1;
}

static struct sgs_amagold_config config(const struct run *r)
{
    struct sgs_amagold_config c = sgs_amagold_config_default(r->step_size);
    c.steps = r->steps;
    c.variant = r->variant;
    c.warmup = r->warmup;
    c.seed = r->seed;
    c.stream = r->stream;
    c.mass = r->mass;
    return c;
}

/* runs.rs's extra lines of a run with a mass matrix or a warm-up: the inverse mass's diagonal
 * and the step size, then the warm-up report's verdict, reasons, metric updates, iterations. */
static void report_lines(const struct run *r, const char *type, const sgs_warmup_report *w)
{
    printf("%s-%s report %lu %lu %lu %llu\n", r->name, type, (unsigned long)w->verdict,
           (unsigned long)w->reasons, (unsigned long)w->metric_updates,
           (unsigned long long)w->iterations);
}

static struct model model_of(const struct run *r)
{
    struct model m = {r->model, r->model == DOUBLE_WELL ? 1.0 : 0.5};
    return m;
}

static int run64(const struct run *r)
{
    struct sgs_amagold_config c = config(r);
    struct model m = model_of(r);
    memset(&state64, 0, sizeof state64);
    if (sgs_amagold_workspace_len_for(&c, r->d) > sizeof ws64 / sizeof ws64[0])
        return fail("workspace", r->name, SGS_ERR_WORKSPACE_TOO_SMALL);
    int32_t s = sgs_amagold_init(&state64, &c, r->theta0, r->d, ws64, sizeof ws64 / sizeof ws64[0],
                                 energy64, gradient64, &m);
    if (s != SGS_OK)
        return fail("init", r->name, s);
    if (r->set_step_size > 0.0 && (s = sgs_amagold_set_step_size(&state64, r->set_step_size)) != SGS_OK)
        return fail("set_step_size", r->name, s);
    if (r->set_inverse_mass_dense &&
        (s = sgs_amagold_set_inverse_mass_dense(&state64, r->set_inverse_mass_dense, r->d * r->d)) != SGS_OK)
        return fail("set_inverse_mass_dense", r->name, s);
    unsigned accepted = 0;
    for (uint32_t k = 0; k < r->iterations; k++) {
        struct sgs_amagold_info info;
        double x[MAX_D];
        if ((s = sgs_amagold_step(&state64, &info)) != SGS_OK)
            return fail("step", r->name, s);
        if ((s = sgs_amagold_position(&state64, x, MAX_D)) != SGS_OK)
            return fail("position", r->name, s);
        accepted += info.accepted;
        printf("%s-f64 %lu %c", r->name, (unsigned long)k, info.accepted ? 'a' : 'r');
        for (size_t i = 0; i < r->d; i++)
            printf(" %016llx", (unsigned long long)bits64(x[i]));
        printf("\n");
    }
    double u;
    if ((s = sgs_amagold_energy(&state64, &u)) != SGS_OK)
        return fail("energy", r->name, s);
    printf("%s-f64 end %u %016llx\n", r->name, accepted, (unsigned long long)bits64(u));
    if (r->mass != SGS_MASS_UNIT || r->warmup > 0) {
        double k[MAX_D], eps;
        sgs_warmup_report w;
        if ((s = sgs_amagold_inverse_mass(&state64, k, MAX_D)) != SGS_OK)
            return fail("inverse_mass", r->name, s);
        if ((s = sgs_amagold_step_size(&state64, &eps)) != SGS_OK)
            return fail("step_size", r->name, s);
        if ((s = sgs_amagold_warmup_report(&state64, &w)) != SGS_OK)
            return fail("warmup_report", r->name, s);
        printf("%s-f64 mass", r->name);
        for (size_t i = 0; i < r->d; i++)
            printf(" %016llx", (unsigned long long)bits64(k[i]));
        printf(" %016llx\n", (unsigned long long)bits64(eps));
        report_lines(r, "f64", &w);
    }
    return 0;
}

static int run32(const struct run *r)
{
    struct sgs_amagold_config c = config(r);
    struct model m = model_of(r);
    float theta0[MAX_D];
    for (size_t i = 0; i < r->d; i++)
        theta0[i] = (float)r->theta0[i];
    memset(&state32, 0, sizeof state32);
    if (sgs_amagold_workspace_len_for_f32(&c, r->d) > sizeof ws32 / sizeof ws32[0])
        return fail("workspace", r->name, SGS_ERR_WORKSPACE_TOO_SMALL);
    int32_t s = sgs_amagold_init_f32(&state32, &c, theta0, r->d, ws32,
                                     sizeof ws32 / sizeof ws32[0], energy32, gradient32, &m);
    if (s != SGS_OK)
        return fail("init", r->name, s);
    if (r->set_step_size > 0.0 &&
        (s = sgs_amagold_set_step_size_f32(&state32, r->set_step_size)) != SGS_OK)
        return fail("set_step_size", r->name, s);
    if (r->set_inverse_mass_dense) {
        float k[MAX_D * MAX_D];
        for (size_t i = 0; i < r->d * r->d; i++)
            k[i] = (float)r->set_inverse_mass_dense[i];
        if ((s = sgs_amagold_set_inverse_mass_dense_f32(&state32, k, r->d * r->d)) != SGS_OK)
            return fail("set_inverse_mass_dense", r->name, s);
    }
    unsigned accepted = 0;
    for (uint32_t k = 0; k < r->iterations; k++) {
        struct sgs_amagold_info info;
        float x[MAX_D];
        if ((s = sgs_amagold_step_f32(&state32, &info)) != SGS_OK)
            return fail("step", r->name, s);
        if ((s = sgs_amagold_position_f32(&state32, x, MAX_D)) != SGS_OK)
            return fail("position", r->name, s);
        accepted += info.accepted;
        printf("%s-f32 %lu %c", r->name, (unsigned long)k, info.accepted ? 'a' : 'r');
        for (size_t i = 0; i < r->d; i++)
            printf(" %08lx", (unsigned long)bits32(x[i]));
        printf("\n");
    }
    double u;
    if ((s = sgs_amagold_energy_f32(&state32, &u)) != SGS_OK)
        return fail("energy", r->name, s);
    printf("%s-f32 end %u %016llx\n", r->name, accepted, (unsigned long long)bits64(u));
    if (r->mass != SGS_MASS_UNIT || r->warmup > 0) {
        float k[MAX_D];
        double eps;
        sgs_warmup_report w;
        if ((s = sgs_amagold_inverse_mass_f32(&state32, k, MAX_D)) != SGS_OK)
            return fail("inverse_mass", r->name, s);
        if ((s = sgs_amagold_step_size_f32(&state32, &eps)) != SGS_OK)
            return fail("step_size", r->name, s);
        if ((s = sgs_amagold_warmup_report_f32(&state32, &w)) != SGS_OK)
            return fail("warmup_report", r->name, s);
        printf("%s-f32 mass", r->name);
        for (size_t i = 0; i < r->d; i++)
            printf(" %08lx", (unsigned long)bits32(k[i]));
        printf(" %016llx\n", (unsigned long long)bits64(eps));
        report_lines(r, "f32", &w);
    }
    return 0;
}

/* RBM-SVGD: runs.rs's "rbm-svgd-t3-p8" (64 particles, p = 8, fixed h = 2, AdaGrad 0.2, seed 13,
 * particles printed after iterations 1 and 100). */
#define SVGD_N 64
/* gradients, forces, AdaGrad history, positions by slot (d = 1), and the C API's 4-byte progress
 * word per particle (N/2 doubles or N floats) */
#define SVGD_WS (5 * SVGD_N)
static const char SVGD_NAME[] = "rbm-svgd-t3-p8";
static sgs_svgd svgd64;
static sgs_svgd_f32 svgd32;
static double particles64[SVGD_N];
static float particles32[SVGD_N];
static double svgd_ws64[SVGD_WS];
static float svgd_ws32[SVGD_WS];
static uint32_t svgd_index[SVGD_N];

static struct sgs_svgd_config svgd_config(void)
{
    struct sgs_svgd_config c = sgs_svgd_config_default(8, 0.2);
    c.kernel = SGS_KERNEL_GAUSSIAN;
    c.bandwidth = 2.0;
    c.step_rule = SGS_STEP_RULE_ADAGRAD;
    c.adagrad_alpha = 0.9;
    c.batching = SGS_BATCHING_WITHOUT_REPLACEMENT;
    c.seed = 13;
    c.stream = 0;
    return c;
}

static int svgd_run64(void)
{
    struct sgs_svgd_config c = svgd_config();
    if (sgs_svgd_workspace_len(SVGD_N, 1, &c) > SVGD_WS)
        return fail("workspace", SVGD_NAME, SGS_ERR_WORKSPACE_TOO_SMALL);
    for (size_t i = 0; i < SVGD_N; i++)
        particles64[i] = -10.0 + seed_noise(300, i);
    int32_t s = sgs_svgd_init(&svgd64, &c, particles64, SVGD_N, 1, svgd_ws64, SVGD_WS, svgd_index,
                              SVGD_N, NULL, student_t64, NULL);
    if (s != SGS_OK)
        return fail("svgd init", SVGD_NAME, s);
    for (uint32_t k = 1; k <= 100; k++) {
        if ((s = sgs_svgd_step(&svgd64, NULL)) != SGS_OK)
            return fail("svgd step", SVGD_NAME, s);
        if (k == 1 || k == 100) {
            printf("%s-f64 %lu", SVGD_NAME, (unsigned long)k);
            for (size_t i = 0; i < SVGD_N; i++)
                printf(" %016llx", (unsigned long long)bits64(particles64[i]));
            printf("\n");
        }
    }
    return 0;
}

static int svgd_run32(void)
{
    struct sgs_svgd_config c = svgd_config();
    if (sgs_svgd_workspace_len_f32(SVGD_N, 1, &c) > SVGD_WS)
        return fail("workspace", SVGD_NAME, SGS_ERR_WORKSPACE_TOO_SMALL);
    for (size_t i = 0; i < SVGD_N; i++)
        particles32[i] = (float)(-10.0 + seed_noise(300, i));
    int32_t s = sgs_svgd_init_f32(&svgd32, &c, particles32, SVGD_N, 1, svgd_ws32, SVGD_WS,
                                  svgd_index, SVGD_N, NULL, student_t32, NULL);
    if (s != SGS_OK)
        return fail("svgd init", SVGD_NAME, s);
    for (uint32_t k = 1; k <= 100; k++) {
        if ((s = sgs_svgd_step_f32(&svgd32, NULL)) != SGS_OK)
            return fail("svgd step", SVGD_NAME, s);
        if (k == 1 || k == 100) {
            printf("%s-f32 %lu", SVGD_NAME, (unsigned long)k);
            for (size_t i = 0; i < SVGD_N; i++)
                printf(" %08lx", (unsigned long)bits32(particles32[i]));
            printf("\n");
        }
    }
    return 0;
}

/* ---- checkpoints: the same bytes on every platform ------------------------------------------- */
/* The warm-diag run exported inside its warm-up (the approach over, the windows under way), each
 * byte printed, then imported into a state started with another configuration and run on. The
 * lines start with "checkpoint-": scripts/test-firmware.sh compares them with this program built
 * for the host (x86-64), so a checkpoint written on either loads on the other (the bytes are
 * the same, and import reads nothing but the bytes). */
#define CKPT_MAX 2048
static unsigned char ckpt[CKPT_MAX];

static void print_bytes(const char *what, const unsigned char *b, size_t n)
{
    printf("%s %lu ", what, (unsigned long)n);
    for (size_t i = 0; i < n; i++)
        printf("%02x", b[i]);
    printf("\n");
}

static int checkpoint64(const struct run *r)
{
    struct sgs_amagold_config c = config(r), other = sgs_amagold_config_default(0.2);
    struct model m = model_of(r);
    size_t n = 0;
    memset(&state64, 0, sizeof state64);
    int32_t s = sgs_amagold_init(&state64, &c, r->theta0, r->d, ws64, AMAGOLD_WS, energy64, gradient64, &m);
    for (uint32_t k = 0; s == SGS_OK && k < 40; k++)
        s = sgs_amagold_step(&state64, NULL);
    if (s != SGS_OK || (s = sgs_amagold_export_len(&state64, &n)) != SGS_OK || n > CKPT_MAX ||
        (s = sgs_amagold_export(&state64, ckpt, CKPT_MAX)) != SGS_OK)
        return fail("checkpoint export", r->name, s);
    print_bytes("checkpoint-f64", ckpt, n);
    memset(&state64, 0, sizeof state64);
    double x[MAX_D] = {0.5, 0.5, 0.5};
    if ((s = sgs_amagold_init(&state64, &other, x, r->d, ws64, AMAGOLD_WS, energy64, gradient64, &m)) != SGS_OK ||
        (s = sgs_amagold_import(&state64, ckpt, n)) != SGS_OK)
        return fail("checkpoint import", r->name, s);
    for (uint32_t k = 0; s == SGS_OK && k < 40; k++)
        s = sgs_amagold_step(&state64, NULL);
    if (s != SGS_OK || (s = sgs_amagold_export_len(&state64, &n)) != SGS_OK || n > CKPT_MAX ||
        (s = sgs_amagold_export(&state64, ckpt, CKPT_MAX)) != SGS_OK)
        return fail("checkpoint resumed", r->name, s);
    print_bytes("checkpoint-f64-resumed", ckpt, n);
    return 0;
}

static int checkpoint32(const struct run *r)
{
    struct sgs_amagold_config c = config(r), other = sgs_amagold_config_default(0.2);
    struct model m = model_of(r);
    float theta0[MAX_D], x[MAX_D] = {0.5f, 0.5f, 0.5f};
    size_t n = 0;
    for (size_t i = 0; i < r->d; i++)
        theta0[i] = (float)r->theta0[i];
    memset(&state32, 0, sizeof state32);
    int32_t s = sgs_amagold_init_f32(&state32, &c, theta0, r->d, ws32, AMAGOLD_WS, energy32, gradient32, &m);
    for (uint32_t k = 0; s == SGS_OK && k < 40; k++)
        s = sgs_amagold_step_f32(&state32, NULL);
    if (s != SGS_OK || (s = sgs_amagold_export_len_f32(&state32, &n)) != SGS_OK || n > CKPT_MAX ||
        (s = sgs_amagold_export_f32(&state32, ckpt, CKPT_MAX)) != SGS_OK)
        return fail("checkpoint export f32", r->name, s);
    print_bytes("checkpoint-f32", ckpt, n);
    memset(&state32, 0, sizeof state32);
    if ((s = sgs_amagold_init_f32(&state32, &other, x, r->d, ws32, AMAGOLD_WS, energy32, gradient32, &m)) != SGS_OK ||
        (s = sgs_amagold_import_f32(&state32, ckpt, n)) != SGS_OK)
        return fail("checkpoint import f32", r->name, s);
    for (uint32_t k = 0; s == SGS_OK && k < 40; k++)
        s = sgs_amagold_step_f32(&state32, NULL);
    if (s != SGS_OK || (s = sgs_amagold_export_len_f32(&state32, &n)) != SGS_OK || n > CKPT_MAX ||
        (s = sgs_amagold_export_f32(&state32, ckpt, CKPT_MAX)) != SGS_OK)
        return fail("checkpoint resumed f32", r->name, s);
    print_bytes("checkpoint-f32-resumed", ckpt, n);
    return 0;
}

int main(void)
{
    for (size_t i = 0; i < sizeof RUNS / sizeof RUNS[0]; i++) {
        if (run64(&RUNS[i]) || run32(&RUNS[i]))
            return 1;
    }
    if (svgd_run64() || svgd_run32())
        return 1;
    if (checkpoint64(&RUNS[4]) || checkpoint32(&RUNS[4]))
        return 1;
    return 0;
}
