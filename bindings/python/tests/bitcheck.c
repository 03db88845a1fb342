/* The C side of the bit-identity test (test_bitwise.py): runs each sampler with the callbacks of
 * models.c and writes the raw samples (native doubles/floats) to stdout, in this order:
 * AMAGOLD f64, SGHMC f64, SGLD f64, AMAGOLD f32, SVGD f64 (final particles), AMAGOLD f64 with the
 * mass-matrix warm-up on a 2-d Gaussian (DRAWS rows of 2, then the learnt inverse mass).
 * Settings must equal those in test_bitwise.py. */
#include <stdio.h>
#include <stdlib.h>

#include "sgsample.h"

int32_t dw_energy(void *, const double *, size_t, double *);
int32_t dw_grad(void *, const double *, size_t, uint64_t, double *);
int32_t dw_energy_f32(void *, const float *, size_t, double *);
int32_t dw_grad_f32(void *, const float *, size_t, uint64_t, float *);
int32_t mix_grads(void *, const double *, size_t, size_t, uint64_t, double *);
int32_t gauss_energy(void *, const double *, size_t, double *);
int32_t gauss_grad(void *, const double *, size_t, uint64_t, double *);

enum { DRAWS = 500, NP = 32, ITERS = 100 };

static void *state(size_t size, size_t align) {
    void *p = aligned_alloc(align, (size + align - 1) / align * align);
    if (!p) exit(3);
    for (size_t i = 0; i < size; i++) ((unsigned char *)p)[i] = 0;
    return p;
}

#define CHECK(x)                                                                    \
    do {                                                                            \
        sgs_status st_ = (x);                                                       \
        if (st_ != SGS_OK) {                                                        \
            fprintf(stderr, "%s: %s\n", #x, sgs_status_str(st_));                  \
            exit(2);                                                                \
        }                                                                           \
    } while (0)

int main(void) {
    static double out[DRAWS], ws[64];
    static float out32[DRAWS], ws32[64];
    double theta0 = 0.5, noise_sd = 1.0;
    float theta32 = 0.5f;
    size_t done;

    sgs_amagold *a = state(sgs_amagold_state_size(), sgs_amagold_state_align());
    sgs_amagold_config ac = sgs_amagold_config_default(0.25);
    ac.friction = 0.25;
    ac.steps = 10;
    ac.seed = 7;
    ac.stream = 3;
    CHECK(sgs_amagold_init(a, &ac, &theta0, 1, ws, sgs_amagold_workspace_len(1), dw_energy,
                           dw_grad, &noise_sd));
    CHECK(sgs_amagold_run(a, DRAWS, out, DRAWS, &done, NULL));
    fwrite(out, sizeof(double), DRAWS, stdout);

    sgs_sghmc *h = state(sgs_sghmc_state_size(), sgs_sghmc_state_align());
    sgs_sghmc_config hc = sgs_sghmc_config_default(0.1);
    hc.friction = 1.0;
    hc.steps = 5;
    hc.seed = 11;
    CHECK(sgs_sghmc_init(h, &hc, &theta0, 1, ws, sgs_sghmc_workspace_len(1), dw_grad, &noise_sd));
    CHECK(sgs_sghmc_run(h, DRAWS, out, DRAWS, &done, NULL));
    fwrite(out, sizeof(double), DRAWS, stdout);

    sgs_sgld *l = state(sgs_sgld_state_size(), sgs_sgld_state_align());
    sgs_sgld_config lc = sgs_sgld_config_default(0.05);
    lc.seed = 13;
    CHECK(sgs_sgld_init(l, &lc, &theta0, 1, ws, sgs_sgld_workspace_len(1), dw_grad, &noise_sd));
    CHECK(sgs_sgld_run(l, DRAWS, out, DRAWS, &done, NULL));
    fwrite(out, sizeof(double), DRAWS, stdout);

    sgs_amagold_f32 *a32 = state(sgs_amagold_state_size_f32(), sgs_amagold_state_align_f32());
    CHECK(sgs_amagold_init_f32(a32, &ac, &theta32, 1, ws32, sgs_amagold_workspace_len_f32(1),
                               dw_energy_f32, dw_grad_f32, NULL));
    CHECK(sgs_amagold_run_f32(a32, DRAWS, out32, DRAWS, &done, NULL));
    fwrite(out32, sizeof(float), DRAWS, stdout);

    static double x[NP];
    for (int i = 0; i < NP; i++) x[i] = -10.0 + 0.125 * i;
    sgs_svgd *s = state(sgs_svgd_state_size(), sgs_svgd_state_align());
    sgs_svgd_config sc = sgs_svgd_config_default(8, 0.2);
    sc.bandwidth = 2.0;
    sc.seed = 5;
    size_t wl = sgs_svgd_workspace_len(NP, 1, &sc), il = sgs_svgd_index_len(NP);
    double *sw = calloc(wl, sizeof(double));
    uint32_t *idx = calloc(il, sizeof(uint32_t));
    CHECK(sgs_svgd_init(s, &sc, x, NP, 1, sw, wl, idx, il, NULL, mix_grads, NULL));
    CHECK(sgs_svgd_run(s, ITERS, NULL));
    fwrite(x, sizeof(double), NP, stdout);

    /* Scales 1 and 0.01 (variances 10^4 apart), gradient noise sd 0.5. */
    static double gout[2 * DRAWS], gws[44], k[2]; /* 22·d: diagonal mass and the approach */
    double gud[3] = {1.0, 0.01, 0.5}, g0[2] = {0.5, 0.005};
    sgs_amagold *m = state(sgs_amagold_state_size(), sgs_amagold_state_align());
    sgs_amagold_config mc = sgs_amagold_config_default(0.001);
    mc.warmup = 200;
    mc.mass = SGS_MASS_DIAGONAL;
    mc.seed = 9;
    mc.stream = 1;
    if (sgs_amagold_workspace_len_for(&mc, 2) > sizeof gws / sizeof gws[0]) return 1;
    CHECK(sgs_amagold_init(m, &mc, g0, 2, gws, sgs_amagold_workspace_len_for(&mc, 2), gauss_energy,
                           gauss_grad, gud));
    CHECK(sgs_amagold_run(m, DRAWS, gout, 2 * DRAWS, &done, NULL));
    CHECK(sgs_amagold_inverse_mass(m, k, 2));
    fwrite(gout, sizeof(double), 2 * DRAWS, stdout);
    fwrite(k, sizeof(double), 2, stdout);
    return 0;
}
