// Calibrating an ODE model from noisy observations with AMAGOLD, from C++17 through the library's
// header-only C++ wrapper, include/sgsample.hpp (the "simulation code" use case).
//
// Model: logistic growth dN/dt = r·N·(1 − N/K), N(0) = 5, integrated with classical RK4
// (step 0.05). Observations y_j = N(t_j) + σ·ξ_j at t_j = 0.5·j, j = 1…40, simulated here with
// r = 0.8, K = 100, σ = 4 and a fixed seed. Unknowns θ = (log r, log K, log σ), priors
// log r ~ N(0, 1), log K ~ N(log 50, 1), log σ ~ N(0, 2²).
//
// Gradient: the forward sensitivities ∂N/∂log r, ∂N/∂log K are integrated by the same RK4 steps
// alongside N (an explicit Runge–Kutta step applied to the variational system is the exact
// derivative of the step, so the gradient is that of the discretised energy). Each gradient uses
// a minibatch of 10 of the 40 observations chosen by sgs_minibatch from the sampler's seed
// (scaled by 40/10); the acceptance test uses all 40.
//
// Exit status 1 when a posterior mean is further than 4 posterior sd from the true value or the
// chain's own Monte Carlo error is too large to say (see the checks at the end).
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <stdexcept>
#include <vector>

// The C++ face of the library: owners for the chain and its workspace, lambdas as callbacks,
// statuses as exceptions (include/sgsample.hpp).
#include "sgsample.hpp"

namespace {

// Deterministic normals for the simulated observations (SplitMix64 → Box–Muller).
struct SplitMix {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9e3779b97f4a7c15ULL);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
        return z ^ (z >> 31);
    }
    double uniform() { return (static_cast<double>(next() >> 11) + 0.5) / 9007199254740992.0; }
    double normal() {
        const double pi = 3.14159265358979323846;
        double u1 = uniform(), u2 = uniform();
        return std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * pi * u2);
    }
};

// The simulator: N(t_j) and its sensitivities to log r and log K at the observation times.
class LogisticGrowth {
public:
    static constexpr int kObs = 40;
    static constexpr int kSub = 10; // RK4 steps per observation interval (h = 0.05)
    static constexpr double kDt = 0.5, kN0 = 5.0;

    struct Path {
        double n[kObs], dr[kObs], dk[kObs];
    };

    static Path simulate(double r, double k) {
        Path p{};
        double y[3] = {kN0, 0.0, 0.0}; // N, ∂N/∂log r, ∂N/∂log K
        const double h = kDt / kSub;
        for (int j = 0; j < kObs; j++) {
            for (int s = 0; s < kSub; s++) {
                double k1[3], k2[3], k3[3], k4[3], t[3];
                rhs(y, r, k, k1);
                for (int i = 0; i < 3; i++) t[i] = y[i] + 0.5 * h * k1[i];
                rhs(t, r, k, k2);
                for (int i = 0; i < 3; i++) t[i] = y[i] + 0.5 * h * k2[i];
                rhs(t, r, k, k3);
                for (int i = 0; i < 3; i++) t[i] = y[i] + h * k3[i];
                rhs(t, r, k, k4);
                for (int i = 0; i < 3; i++)
                    y[i] += h / 6.0 * (k1[i] + 2.0 * k2[i] + 2.0 * k3[i] + k4[i]);
            }
            p.n[j] = y[0];
            p.dr[j] = y[1];
            p.dk[j] = y[2];
        }
        return p;
    }

private:
    static void rhs(const double *y, double r, double k, double *f) {
        double n = y[0], fn = r * (1.0 - 2.0 * n / k);
        f[0] = r * n * (1.0 - n / k);
        f[1] = fn * y[1] + r * n * (1.0 - n / k); // r·∂f/∂r
        f[2] = fn * y[2] + r * n * n / k;         // K·∂f/∂K
    }
};

struct Posterior {
    std::vector<double> y; // observations
    static constexpr int kBatch = 10;
    static constexpr double kMuLogK = 3.912023005428146; // log 50

    static double prior(const double *th) {
        return 0.5 * th[0] * th[0] + 0.5 * (th[1] - kMuLogK) * (th[1] - kMuLogK) +
               0.125 * th[2] * th[2];
    }

    double energy(const double *th) const {
        if (!std::isfinite(th[0]) || std::fabs(th[0]) > 5.0 || std::fabs(th[1]) > 10.0)
            throw sgs::out_of_domain{}; // outside the range the simulator is meant for
        auto p = LogisticGrowth::simulate(std::exp(th[0]), std::exp(th[1]));
        double s2 = std::exp(2.0 * th[2]), ss = 0.0;
        for (int j = 0; j < LogisticGrowth::kObs; j++) ss += (y[j] - p.n[j]) * (y[j] - p.n[j]);
        return ss / (2.0 * s2) + LogisticGrowth::kObs * th[2] + prior(th);
    }

    void gradient(const double *th, uint64_t seed, double *g) const {
        if (!std::isfinite(th[0]) || std::fabs(th[0]) > 5.0 || std::fabs(th[1]) > 10.0)
            throw sgs::out_of_domain{};
        uint64_t idx[kBatch];
        if (sgs_status st = sgs_minibatch(seed, LogisticGrowth::kObs, idx, kBatch); st != SGS_OK)
            throw sgs::error(st, "sgs_minibatch");
        auto p = LogisticGrowth::simulate(std::exp(th[0]), std::exp(th[1]));
        const double s2 = std::exp(2.0 * th[2]), scale = double(LogisticGrowth::kObs) / kBatch;
        double gr = 0.0, gk = 0.0, gs = 0.0;
        for (uint64_t j : idx) {
            double e = y[j] - p.n[j];
            gr -= e * p.dr[j] / s2;
            gk -= e * p.dk[j] / s2;
            gs += 1.0 - e * e / s2;
        }
        g[0] = scale * gr + th[0];
        g[1] = scale * gk + (th[1] - kMuLogK);
        g[2] = scale * gs + 0.25 * th[2];
    }
};

bool quick_mode(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (std::strcmp(argv[i], "--quick") == 0) return true;
    const char *e = std::getenv("SGS_QUICK");
    return e != nullptr && e[0] != '\0' && std::strcmp(e, "0") != 0;
}

} // namespace

int main(int argc, char **argv) try {
    const bool quick = quick_mode(argc, argv);
    const double r_true = 0.8, k_true = 100.0, sigma_true = 4.0;
    Posterior post;
    {
        auto truth = LogisticGrowth::simulate(r_true, k_true);
        SplitMix rng{20240601};
        for (double n : truth.n) post.y.push_back(n + sigma_true * rng.normal());
    }

    // The adaptive defaults: a warm-up of 1000 with the approach and a diagonal mass matrix
    // (log r, log K and log σ have posterior sds 0.02 to 0.1 and are correlated).
    sgs_amagold_config cfg = sgs_amagold_config_adaptive();
    cfg.target_accept = 0.7;
    cfg.seed = 42;
    cfg.variant = SGS_VARIANT_NON_REVERSIBLE;
    // Start from a rough look at the data, as a modeller would: K = the largest observation,
    // r = 0.5, σ = 10 (wide, so that the first trajectories see a gentle energy surface).
    double y_max = 0.0;
    for (double v : post.y) y_max = std::fmax(y_max, v);
    // The chain owns its state and workspace; the lambdas are called through one trampoline each
    // (no std::function), and an exception they throw comes back out of step()/run() with the
    // chain as it was before the call.
    sgs::amagold chain(
        cfg, std::vector<double>{std::log(0.5), std::log(y_max), std::log(10.0)},
        [&post](const double *th, std::size_t) { return post.energy(th); },
        [&post](const double *th, std::size_t, uint64_t seed, double *g) {
            post.gradient(th, seed, g);
        });

    // The wrapper turns an error status into an exception: show it once on purpose.
    try {
        sgs_amagold_config bad = cfg;
        bad.step_size = -1.0;
        sgs::amagold broken(bad, std::vector<double>{0.0},
                            [](const double *, std::size_t) { return 0.0; },
                            [](const double *, std::size_t, uint64_t, double *g) { g[0] = 0.0; });
    } catch (const sgs::error &e) {
        std::printf("(wrapper check: a negative step size throws \"%s\")\n", e.what());
    }

    for (std::size_t i = 0; i < cfg.warmup; i++) chain.step();
    const std::size_t n = quick ? 2000 : 20000;
    const auto t_run = std::chrono::steady_clock::now();
    auto draws = chain.run(n);
    const std::vector<double> &s = draws.values;
    const sgs_amagold_run_summary &summary = draws.summary;
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t_run).count();

    // Posterior means and sds of r, K, σ (from the samples of log r, log K, log σ), with the
    // Monte Carlo standard errors and effective sample sizes of the library's streaming
    // accumulator (sgs_stats_…), fed the draws of (r, K, σ) one by one as a streaming user would.
    std::size_t st_bytes = 0;
    if (sgs_stats_state_size(3, &st_bytes) != SGS_OK) throw std::runtime_error("stats size");
    // Doubles: aligned for sgs_stats_state_align() (8), zeroed (use before init is detected).
    std::vector<double> st_mem((st_bytes + sizeof(double) - 1) / sizeof(double), 0.0);
    sgs_stats *st = reinterpret_cast<sgs_stats *>(st_mem.data());
    if (sgs_stats_state_align() > alignof(double) || sgs_stats_init(st, st_bytes, 3) != SGS_OK)
        throw std::runtime_error("stats init");
    for (std::size_t k = 0; k < n; k++) {
        double draw[3] = {std::exp(s[k * 3]), std::exp(s[k * 3 + 1]), std::exp(s[k * 3 + 2])};
        if (sgs_stats_push(st, draw, 3) != SGS_OK) throw std::runtime_error("stats push");
    }
    double means[3], mcse[3], ess[3];
    if (sgs_stats_mean(st, means, 3) != SGS_OK || sgs_stats_mcse(st, mcse, 3) != SGS_OK ||
        sgs_stats_ess(st, ess, 3) != SGS_OK)
        throw std::runtime_error("stats query");
    const char *names[3] = {"r", "K", "sigma"};
    const double truth[3] = {r_true, k_true, sigma_true};
    std::printf("Logistic growth dN/dt = r N (1 - N/K), N(0) = 5, RK4; 40 noisy observations; "
                "sgsample %s%s\n",
                sgs_version(), quick ? " (quick mode)" : "");
    std::printf("AMAGOLD (non-reversible, T = 10, beta = 0.25), minibatches of 10 observations, "
                "%zu warm-up + %zu samples\nstep size after warm-up %.4f, acceptance %.3f, "
                "divergences %llu\n\n",
                static_cast<std::size_t>(cfg.warmup), n, chain.step_size(),
                double(summary.accepted) / double(summary.iterations),
                static_cast<unsigned long long>(summary.divergences));
    std::printf("%-8s %10s %21s %9s %14s %8s %8s\n", "param", "true", "posterior mean", "sd",
                "(mean-true)/sd", "ESS", "ESS/s");
    int failures = 0;
    for (int c = 0; c < 3; c++) {
        std::vector<double> v(n);
        for (std::size_t k = 0; k < n; k++) v[k] = std::exp(s[k * 3 + c]);
        double m = means[c], q = 0.0;
        for (double x : v) q += (x - m) * (x - m);
        double sd = std::sqrt(q / double(n - 1));
        double se = mcse[c];
        double z = (m - truth[c]) / sd;
        std::printf("%-8s %10.3f %11.4f ± %-7.2g %9.4f %+14.2f %8.0f %8.0f\n", names[c], truth[c], m,
                    se, sd, z, ess[c], ess[c] / secs);
        // The data were simulated from the true values, so they lie in the posterior's bulk:
        // |mean − true| ≤ 4 sd (a sign error in a sensitivity or a wrong likelihood scale moves
        // the posterior by many sds); and the chain must have mixed: Monte Carlo error of the
        // mean below a third of the posterior sd.
        if (std::fabs(z) > 4.0) {
            std::fprintf(stderr, "CHECK FAILED: %s posterior mean %.4f, true %.4f, sd %.4f\n",
                         names[c], m, truth[c], sd);
            failures++;
        }
        if (!(se < sd / 3.0)) {
            std::fprintf(stderr, "CHECK FAILED: %s Monte Carlo error %.4f vs sd %.4f\n",
                         names[c], se, sd);
            failures++;
        }
    }
    std::printf("(± = Monte Carlo standard error of the posterior mean, sgs_stats_mcse; ESS/s over "
                "the %.2f s of sampling)\n", secs);
    if (failures) {
        std::fprintf(stderr, "ode_calibration: %d check(s) FAILED\n", failures);
        return 1;
    }
    std::printf("ode_calibration: all checks passed\n");
    return 0;
} catch (const std::exception &e) {
    std::fprintf(stderr, "ode_calibration: %s\n", e.what());
    return 2;
}
