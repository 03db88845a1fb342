/* The smallest complete use of the C API: AMAGOLD on a 2-D standard normal with a noisy gradient.
 *
 *   cargo build --release -p sgsample-capi
 *   cc -std=c99 -Iinclude examples-c/minimal.c target/release/libsgsample.a -lm -o minimal
 *   ./minimal
 */
#include <stdio.h>
#include <stdint.h>

#include "sgsample.h"

/* U(x) = |x|^2 / 2: the full-data energy. */
static int32_t energy(void *user_data, const double *x, size_t d, double *u) {
    (void)user_data;
    double s = 0.0;
    for (size_t i = 0; i < d; i++) s += x[i] * x[i];
    *u = 0.5 * s;
    return SGS_CB_OK;
}

/* A stochastic gradient: the exact one plus noise that depends only on the minibatch seed. */
static int32_t gradient(void *user_data, const double *x, size_t d, uint64_t seed, double *g) {
    const double *noise_sd = (const double *)user_data;
    double noise = ((double)(seed >> 11) / 9007199254740992.0 - 0.5) * *noise_sd;
    for (size_t i = 0; i < d; i++) g[i] = x[i] + noise;
    return SGS_CB_OK;
}

int main(void) {
    enum { D = 2, N = 5000 };
    double noise_sd = 0.5;
    double theta0[D] = {1.0, -1.0};
    double workspace[6 * D]; /* sgs_amagold_workspace_len(D) elements */
    static double samples[N * D];

    sgs_amagold chain = {{0}};
    sgs_amagold_config config = sgs_amagold_config_default(0.3); /* step size 0.3 */
    config.seed = 2024;

    if (sgs_amagold_workspace_len(D) > sizeof workspace / sizeof workspace[0]) return 1;
    int32_t st = sgs_amagold_init(&chain, &config, theta0, D, workspace,
                                  sizeof workspace / sizeof workspace[0], energy, gradient,
                                  &noise_sd);
    if (st != SGS_OK) {
        fprintf(stderr, "init: %s\n", sgs_status_str(st));
        return 1;
    }

    size_t done = 0;
    sgs_amagold_run_summary summary;
    st = sgs_amagold_run(&chain, N, samples, N * D, &done, &summary);
    if (st != SGS_OK) {
        fprintf(stderr, "run: %s after %zu samples\n", sgs_status_str(st), done);
        return 1;
    }

    double mean[D] = {0.0, 0.0}, var[D] = {0.0, 0.0};
    for (size_t k = 0; k < done; k++)
        for (size_t i = 0; i < D; i++) mean[i] += samples[k * D + i] / (double)done;
    for (size_t k = 0; k < done; k++)
        for (size_t i = 0; i < D; i++) {
            double e = samples[k * D + i] - mean[i];
            var[i] += e * e / (double)done;
        }
    printf("sgsample %s: %zu samples, acceptance %.3f\n", sgs_version(), done,
           (double)summary.accepted / (double)summary.iterations);
    for (size_t i = 0; i < D; i++)
        printf("  x[%zu]: mean %+.3f (truth 0), variance %.3f (truth 1)\n", i, mean[i], var[i]);
    return 0;
}
