/* An out-of-tree program using an installed sgsample (scripts/test-install.sh builds it with
 * pkg-config, with find_package and with plain -I/-L/-l, against the static and the shared
 * library). It checks that the library it runs with is the version of the header it was compiled
 * against, and that a chain samples a standard normal. Exit status 0 when both hold. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include <sgsample.h>

static int32_t gradient(void *user, const double *x, size_t d, uint64_t seed, double *g) {
    (void)user;
    (void)seed;
    for (size_t i = 0; i < d; i++) g[i] = x[i];
    return SGS_CB_OK;
}

static int32_t energy(void *user, const double *x, size_t d, double *u) {
    (void)user;
    double s = 0.0;
    for (size_t i = 0; i < d; i++) s += 0.5 * x[i] * x[i];
    *u = s;
    return SGS_CB_OK;
}

int main(void) {
    if (strcmp(sgs_version(), SGS_VERSION_STRING) != 0) {
        printf("consumer: library %s, header %s\n", sgs_version(), SGS_VERSION_STRING);
        return 1;
    }
    enum { N = 4000 };
    static double draws[N], ws[64];
    sgs_amagold chain = {{0}};
    sgs_amagold_config cfg = sgs_amagold_config_default(0.5);
    cfg.seed = 1;
    const double theta0[1] = {0.0};
    size_t done = 0;
    if (sgs_amagold_workspace_len(1) > 64 ||
        sgs_amagold_init(&chain, &cfg, theta0, 1, ws, 64, energy, gradient, NULL) != SGS_OK ||
        sgs_amagold_run(&chain, N, draws, N, &done, NULL) != SGS_OK || done != N) {
        printf("consumer: the chain did not run\n");
        return 1;
    }
    double m = 0.0, v = 0.0;
    for (int i = 0; i < N; i++) m += draws[i];
    m /= N;
    for (int i = 0; i < N; i++) v += (draws[i] - m) * (draws[i] - m);
    v /= N - 1;
    /* Loose on purpose (a link check, not a statistics test): N(0, 1) within 0.25 in mean
     * (≈ 6 Monte Carlo standard errors at this chain's efficiency) and 30 % in variance. */
    int ok = fabs(m) < 0.25 && fabs(v - 1.0) < 0.3;
    printf("consumer: sgsample %s, mean %.3f, variance %.3f: %s\n", sgs_version(), m, v,
           ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
