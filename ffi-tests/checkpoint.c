/* Checkpoints from C: a chain exported after N iterations into a file, read back and imported
 * into a fresh state (another start and configuration), then run M more, gives bit for bit the
 * rows and the final state (its export) of an uninterrupted N + M run — AMAGOLD in its warm-up
 * (diagonal and dense mass) and after it, double and float; SGHMC, SGLD and TunaMH. A truncated or
 * corrupted file is refused and leaves the target as it was. Exit status 1 on any difference. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sgsample.h"
#include "models.h"

#define D 3
#define MAXN 400

static int failures = 0;
static void expect(int ok, const char *what) {
    if (!ok) {
        printf("FAIL: %s\n", what);
        failures++;
    }
}

static const model C3 = {MODEL_C3, 0.3};

static int32_t e64(void *u, const double *x, size_t d, double *e) { return model_energy64(u, x, d, e); }
static int32_t g64(void *u, const double *x, size_t d, uint64_t s, double *g) {
    return model_gradient64(u, x, d, s, g);
}
static int32_t e32(void *u, const float *x, size_t d, double *e) {
    double y[D] = {0};
    for (size_t j = 0; j < d; j++) y[j] = x[j];
    return model_energy64(u, y, d, e);
}
static int32_t g32(void *u, const float *x, size_t d, uint64_t s, float *g) {
    double y[D] = {0}, h[D] = {0};
    for (size_t j = 0; j < d; j++) y[j] = x[j];
    int32_t r = model_gradient64(u, y, d, s, h);
    for (size_t j = 0; j < d; j++) g[j] = (float)h[j];
    return r;
}

/* TunaMH's terms (models.h); the user data (the other models') is not used. */
static int32_t td64(void *u, const double *t, const double *p, size_t d, const uint64_t *idx,
                    size_t count, double *out) {
    (void)u;
    terms_differences64(t, p, d, idx, count, out);
    return SGS_CB_OK;
}
static int32_t te64(void *u, const double *t, const double *p, size_t d, double *out) {
    (void)u;
    *out = terms_exact64(t, p, d);
    return SGS_CB_OK;
}
static int32_t td32(void *u, const float *t, const float *p, size_t d, const uint64_t *idx,
                    size_t count, double *out) {
    double tt[D] = {0}, pp[D] = {0};
    for (size_t j = 0; j < d; j++) {
        tt[j] = t[j];
        pp[j] = p[j];
    }
    return td64(u, tt, pp, d, idx, count, out);
}
static int32_t te32(void *u, const float *t, const float *p, size_t d, double *out) {
    double tt[D] = {0}, pp[D] = {0};
    for (size_t j = 0; j < d; j++) {
        tt[j] = t[j];
        pp[j] = p[j];
    }
    return te64(u, tt, pp, d, out);
}
/* TunaMH's workspace does not depend on the configuration. */
static size_t tunamh_ws64(const sgs_tunamh_config *c, size_t d) {
    (void)c;
    return sgs_tunamh_workspace_len(d);
}
static size_t tunamh_ws32(const sgs_tunamh_config *c, size_t d) {
    (void)c;
    return sgs_tunamh_workspace_len_f32(d);
}

/* The bytes of a checkpoint through a real file: what a program that stops and restarts does. */
static unsigned char *through_file(const unsigned char *blob, size_t len) {
    FILE *f = tmpfile();
    unsigned char *back = malloc(len);
    if (!f || !back || fwrite(blob, 1, len, f) != len || fseek(f, 0, SEEK_SET) != 0 ||
        fread(back, 1, len, f) != len) {
        printf("FAIL: file round trip\n");
        exit(1);
    }
    fclose(f);
    return back;
}

/* One sampler and coordinate type: STATE, T, init arguments, function prefix. */
#define RESUME_TEST(NAME, STATE, T, CFG_T, WSLEN, INIT, RUN, ELEN, EXPORT, IMPORT, CALLBACKS)        \
    static void NAME(const CFG_T *cfg, const CFG_T *target_cfg, size_t n, size_t m) {               \
        static T all[MAXN * D], head[MAXN * D], tail[MAXN * D];                                       \
        T start[D] = {(T)4.0, (T)3.0, (T)2.0}, other[D] = {(T)0.5, (T)1.5, (T)2.5};                  \
        size_t len = WSLEN(cfg, D) > WSLEN(target_cfg, D) ? WSLEN(cfg, D) : WSLEN(target_cfg, D);   \
        T *w1 = calloc(len, sizeof(T)), *w2 = calloc(len, sizeof(T)), *w3 = calloc(len, sizeof(T)); \
        STATE a = {{0}}, b = {{0}}, c = {{0}};                                                        \
        size_t blen = 0, blen2 = 0;                                                                   \
        expect(INIT(&a, cfg, start, D, w1, len, CALLBACKS (void *)&C3) == SGS_OK, #NAME " init");    \
        expect(INIT(&b, cfg, start, D, w2, len, CALLBACKS (void *)&C3) == SGS_OK, #NAME " init");    \
        expect(INIT(&c, target_cfg, other, D, w3, len, CALLBACKS (void *)&C3) == SGS_OK,             \
               #NAME " init target");                                                                \
        expect(RUN(&a, n + m, all, MAXN * D, NULL, NULL) == SGS_OK, #NAME " run n + m");             \
        expect(RUN(&b, n, head, MAXN * D, NULL, NULL) == SGS_OK, #NAME " run n");                    \
        expect(ELEN(&b, &blen) == SGS_OK && blen > 0, #NAME " export_len");                          \
        unsigned char *blob = malloc(blen), *blob2;                                                   \
        expect(EXPORT(&b, blob, blen) == SGS_OK, #NAME " export");                                   \
        unsigned char *back = through_file(blob, blen);                                               \
        /* Refusals first: the target must come out of them untouched. */                            \
        back[blen / 2] ^= 0x01;                                                                       \
        expect(IMPORT(&c, back, blen) == SGS_ERR_INVALID_CHECKPOINT, #NAME " corrupted refused");    \
        back[blen / 2] ^= 0x01;                                                                       \
        expect(IMPORT(&c, back, blen - 1) == SGS_ERR_INVALID_CHECKPOINT, #NAME " truncated refused"); \
        expect(IMPORT(&c, back, blen) == SGS_OK, #NAME " import");                                   \
        expect(RUN(&c, m, tail, MAXN * D, NULL, NULL) == SGS_OK, #NAME " run m");                    \
        expect(memcmp(head, all, n * D * sizeof(T)) == 0, #NAME " first n rows");                    \
        expect(memcmp(tail, all + n * D, m * D * sizeof(T)) == 0, #NAME " resumed rows");            \
        /* The length changes as the warm-up's phases begin and end: asked for anew. */             \
        free(blob);                                                                                   \
        expect(ELEN(&a, &blen) == SGS_OK && ELEN(&c, &blen2) == SGS_OK && blen == blen2,            \
               #NAME " final lengths");                                                               \
        blob = malloc(blen);                                                                          \
        blob2 = malloc(blen);                                                                         \
        expect(EXPORT(&a, blob, blen) == SGS_OK && EXPORT(&c, blob2, blen) == SGS_OK &&              \
                   memcmp(blob, blob2, blen) == 0,                                                    \
               #NAME " final states");                                                                \
        free(blob);                                                                                   \
        free(blob2);                                                                                  \
        free(back);                                                                                   \
        free(w1);                                                                                     \
        free(w2);                                                                                     \
        free(w3);                                                                                     \
    }

#define AMG_CB e64, g64,
#define AMG_CB32 e32, g32,
#define G_CB g64,
#define G_CB32 g32,
#define T_CB te64, td64,
#define T_CB32 te32, td32,

RESUME_TEST(amagold64, sgs_amagold, double, sgs_amagold_config, sgs_amagold_workspace_len_for,
            sgs_amagold_init, sgs_amagold_run, sgs_amagold_export_len, sgs_amagold_export,
            sgs_amagold_import, AMG_CB)
RESUME_TEST(amagold32, sgs_amagold_f32, float, sgs_amagold_config, sgs_amagold_workspace_len_for_f32,
            sgs_amagold_init_f32, sgs_amagold_run_f32, sgs_amagold_export_len_f32,
            sgs_amagold_export_f32, sgs_amagold_import_f32, AMG_CB32)
RESUME_TEST(sghmc64, sgs_sghmc, double, sgs_sghmc_config, sgs_sghmc_workspace_len_for,
            sgs_sghmc_init, sgs_sghmc_run, sgs_sghmc_export_len, sgs_sghmc_export, sgs_sghmc_import,
            G_CB)
RESUME_TEST(sghmc32, sgs_sghmc_f32, float, sgs_sghmc_config, sgs_sghmc_workspace_len_for_f32,
            sgs_sghmc_init_f32, sgs_sghmc_run_f32, sgs_sghmc_export_len_f32, sgs_sghmc_export_f32,
            sgs_sghmc_import_f32, G_CB32)
RESUME_TEST(sgld64, sgs_sgld, double, sgs_sgld_config, sgs_sgld_workspace_len_for, sgs_sgld_init,
            sgs_sgld_run, sgs_sgld_export_len, sgs_sgld_export, sgs_sgld_import, G_CB)
RESUME_TEST(sgld32, sgs_sgld_f32, float, sgs_sgld_config, sgs_sgld_workspace_len_for_f32,
            sgs_sgld_init_f32, sgs_sgld_run_f32, sgs_sgld_export_len_f32, sgs_sgld_export_f32,
            sgs_sgld_import_f32, G_CB32)
RESUME_TEST(tunamh64, sgs_tunamh, double, sgs_tunamh_config, tunamh_ws64, sgs_tunamh_init,
            sgs_tunamh_run, sgs_tunamh_export_len, sgs_tunamh_export, sgs_tunamh_import, T_CB)
RESUME_TEST(tunamh32, sgs_tunamh_f32, float, sgs_tunamh_config, tunamh_ws32, sgs_tunamh_init_f32,
            sgs_tunamh_run_f32, sgs_tunamh_export_len_f32, sgs_tunamh_export_f32,
            sgs_tunamh_import_f32, T_CB32)

int main(void) {
    (void)svgd_start; /* models.h's SVGD start pattern: not used here */
    sgs_amagold_config plain = sgs_amagold_config_default(0.1);
    sgs_amagold_config diag = sgs_amagold_config_adaptive();
    diag.warmup = 150;
    diag.seed = 7;
    sgs_amagold_config dense = diag;
    dense.mass = SGS_MASS_DENSE;
    /* In the approach, in the windows, and after the warm-up. */
    const size_t at[3] = {2, 80, 170};
    for (int i = 0; i < 3; i++) {
        amagold64(&diag, &plain, at[i], 40);
        amagold32(&diag, &plain, at[i], 40);
        amagold64(&dense, &plain, at[i], 40);
        amagold32(&dense, &plain, at[i], 40);
    }
    sgs_sghmc_config h = sgs_sghmc_config_default(0.05), h0 = sgs_sghmc_config_default(0.02);
    h.resample_momentum = 0;
    h.seed = 3;
    sghmc64(&h, &h0, 25, 30);
    sghmc32(&h, &h0, 25, 30);
    sgs_sgld_config l = sgs_sgld_config_default(0.02), l0 = sgs_sgld_config_default(0.01);
    l.seed = 9;
    l.steps = 2;
    sgld64(&l, &l0, 25, 30);
    sgld32(&l, &l0, 25, 30);
    /* TunaMH on minibatches (small χ) and on full passes, into a chain of another χ and N. */
    sgs_tunamh_config t = sgs_tunamh_config_default(0.25, TERMS_N, TERMS_BOUND),
                      t0 = sgs_tunamh_config_default(0.1, 2 * TERMS_N, 2.0);
    t.chi = 0.02;
    t.seed = 4;
    tunamh64(&t, &t0, 25, 60);
    tunamh32(&t, &t0, 25, 60);
    t.chi = 1.0;
    tunamh64(&t, &t0, 25, 30);
    tunamh32(&t, &t0, 25, 30);
    if (failures) {
        printf("checkpoint: %d failures\n", failures);
        return 1;
    }
    printf("checkpoint: export, file, import, resume bit for bit (8 chain types)\n");
    return 0;
}
