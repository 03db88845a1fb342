// include/sgsample.hpp against the C API it wraps: the same chains and SVGD systems run through
// both must give the same bits; callback exceptions and rejections, clones, moves and bad input
// behave as the header says. Built by scripts/test-ffi.sh in C++17 and C++20 with -Werror, with
// and without exceptions (SGS_NO_EXCEPTIONS_TEST: the `try_` API only). Exit status 0 when every
// check passes.
#include "sgsample.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>
#if SGSAMPLE_HPP_EXCEPTIONS
#include <stdexcept>
#endif

namespace {

int failures = 0;

void expect(bool ok, const char *what) {
    if (!ok) {
        std::printf("FAILED: %s\n", what);
        failures++;
    }
}

template <class T>
bool same_bits(const std::vector<T> &a, const std::vector<T> &b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0;
}

// A correlated 2-d Gaussian, U = ½ xᵀ A x with A = [[2, 0.9], [0.9, 1]], plus a seed-driven
// perturbation of the gradient (so that the minibatch seed reaches the model), and a domain
// x₀ > −4 (outside: rejected).
template <class R>
double energy_of(const R *x) {
    double a = x[0], b = x[1];
    return 0.5 * (2.0 * a * a + 1.8 * a * b + b * b);
}
template <class R>
void gradient_of(const R *x, std::uint64_t seed, R *g) {
    double a = x[0], b = x[1];
    double noise = (static_cast<double>(seed >> 11) / 9007199254740992.0 - 0.5) * 0.1;
    g[0] = static_cast<R>(2.0 * a + 0.9 * b + noise);
    g[1] = static_cast<R>(0.9 * a + b - noise);
}
int outside_calls = 0;       // how often a C callback saw a point outside the domain
double domain_edge = -4.0;   // x₀ must exceed it (moved into the bulk by one test)

template <class R>
bool inside(const R *x) {
    return x[0] > domain_edge;
}

// The same model as C callbacks.
template <class R>
std::int32_t c_energy(void *, const R *x, std::size_t, double *u) {
    if (!inside(x)) return outside_calls++, SGS_CB_REJECT;
    *u = energy_of(x);
    return SGS_CB_OK;
}
template <class R>
std::int32_t c_gradient(void *, const R *x, std::size_t, std::uint64_t seed, R *g) {
    if (!inside(x)) return outside_calls++, SGS_CB_REJECT;
    gradient_of(x, seed, g);
    return SGS_CB_OK;
}
template <class R>
std::int32_t c_gradients(void *, const R *xs, std::size_t n, std::size_t d, std::uint64_t seed,
                         R *gs) {
    for (std::size_t i = 0; i < n; i++) gradient_of(xs + i * d, seed, gs + i * d);
    return SGS_CB_OK;
}

// The model as C++ callables (the no-exception shapes: optional energy, bool gradient).
template <class R>
struct model {
    std::optional<double> operator()(const R *x, std::size_t) const {
        if (!inside(x)) return std::nullopt;
        return energy_of(x);
    }
};
template <class R>
struct grad {
    bool operator()(const R *x, std::size_t, std::uint64_t seed, R *g) const {
        if (!inside(x)) return false;
        gradient_of(x, seed, g);
        return true;
    }
};

constexpr std::size_t kD = 2;
constexpr std::size_t kN = 400;

// The C API's draws for a chain (AMAGOLD or not, by whether `energy` is given).
template <class R, class State, class Config, class Init, class Run>
std::vector<R> c_draws(const Config &cfg, std::size_t ws_len, Init init, Run run,
                       const R (&theta0)[kD] = {R(1.5), R(-1.0)}) {
    State s{};
    std::vector<R> ws(ws_len), out(kN * kD);
    if (init(&s, &cfg, theta0, ws.data(), ws.size()) != SGS_OK) return {};
    std::size_t done = 0;
    if (run(&s, kN, out.data(), out.size(), &done) != SGS_OK || done != kN) return {};
    return out;
}

template <class Chain>
std::vector<typename Chain::real_type> cxx_draws(Chain &c) {
    std::vector<typename Chain::real_type> out(kN * kD);
    std::size_t done = 0;
    if (!c.try_run(kN, out.data(), out.size(), &done) || done != kN) return {};
    return out;
}

void amagold_bits() {
    sgs_amagold_config cfg = sgs_amagold_config_adaptive();
    cfg.warmup = 150;
    cfg.seed = 7;
    auto c = c_draws<double, sgs_amagold>(
        cfg, sgs_amagold_workspace_len_for(&cfg, kD),
        [](sgs_amagold *s, const sgs_amagold_config *k, const double *t, double *w, std::size_t l) {
            return sgs_amagold_init(s, k, t, kD, w, l, c_energy<double>, c_gradient<double>, nullptr);
        },
        [](sgs_amagold *s, std::size_t n, double *o, std::size_t l, std::size_t *d) {
            return sgs_amagold_run(s, n, o, l, d, nullptr);
        });
    const double theta0[kD] = {1.5, -1.0};
    auto r = sgs::amagold::try_create(cfg, theta0, kD, model<double>{}, grad<double>{});
    expect(r.has_value(), "amagold try_create");
    if (!r) return;
    sgs::amagold chain = std::move(*r);
    expect(!c.empty() && same_bits(c, cxx_draws(chain)), "amagold (adaptive) == C API bit for bit");
    expect(chain.iterations() == kN && chain.dim() == kD, "amagold counters");

    // From the domain's edge, where energies and gradients are rejected: the rejections (a
    // std::nullopt energy, a false gradient) must mean what SGS_CB_REJECT means in C.
    sgs_amagold_config edge = sgs_amagold_config_default(0.4);
    edge.seed = 8;
    const double theta_edge[kD] = {-0.3, 0.3};
    outside_calls = 0;
    domain_edge = -0.5; // a third of the mass is outside
    auto ce = c_draws<double, sgs_amagold>(
        edge, sgs_amagold_workspace_len_for(&edge, kD),
        [](sgs_amagold *s, const sgs_amagold_config *k, const double *t, double *w, std::size_t l) {
            return sgs_amagold_init(s, k, t, kD, w, l, c_energy<double>, c_gradient<double>, nullptr);
        },
        [](sgs_amagold *s, std::size_t n, double *o, std::size_t l, std::size_t *d) {
            return sgs_amagold_run(s, n, o, l, d, nullptr);
        },
        theta_edge);
    expect(outside_calls > 0, "the edge run leaves the domain (else it tests nothing)");
    auto re = sgs::amagold::try_create(edge, theta_edge, kD, model<double>{}, grad<double>{});
    expect(re && !ce.empty() && same_bits(ce, cxx_draws(*re)), "rejections == SGS_CB_REJECT bit for bit");
    domain_edge = -4.0;
}

void amagold_f32_bits() {
    sgs_amagold_config cfg = sgs_amagold_config_default(0.2);
    cfg.seed = 3;
    auto c = c_draws<float, sgs_amagold_f32>(
        cfg, sgs_amagold_workspace_len_for_f32(&cfg, kD),
        [](sgs_amagold_f32 *s, const sgs_amagold_config *k, const float *t, float *w, std::size_t l) {
            return sgs_amagold_init_f32(s, k, t, kD, w, l, c_energy<float>, c_gradient<float>, nullptr);
        },
        [](sgs_amagold_f32 *s, std::size_t n, float *o, std::size_t l, std::size_t *d) {
            return sgs_amagold_run_f32(s, n, o, l, d, nullptr);
        });
    const float theta0[kD] = {1.5f, -1.0f};
    auto r = sgs::amagold_f32::try_create(cfg, theta0, kD, model<float>{}, grad<float>{});
    expect(r && !c.empty() && same_bits(c, cxx_draws(*r)), "amagold_f32 == C API bit for bit");
}

void sghmc_sgld_bits() {
    sgs_sghmc_config hc = sgs_sghmc_config_default(0.05);
    hc.seed = 11;
    auto c = c_draws<double, sgs_sghmc>(
        hc, sgs_sghmc_workspace_len_for(&hc, kD),
        [](sgs_sghmc *s, const sgs_sghmc_config *k, const double *t, double *w, std::size_t l) {
            return sgs_sghmc_init(s, k, t, kD, w, l, c_gradient<double>, nullptr);
        },
        [](sgs_sghmc *s, std::size_t n, double *o, std::size_t l, std::size_t *d) {
            return sgs_sghmc_run(s, n, o, l, d, nullptr);
        });
    const double theta0[kD] = {1.5, -1.0};
    auto h = sgs::sghmc::try_create(hc, theta0, kD, grad<double>{});
    expect(h && !c.empty() && same_bits(c, cxx_draws(*h)), "sghmc == C API bit for bit");
    // The same chain over a caller's workspace.
    std::vector<double> pool(sgs_sghmc_workspace_len_for(&hc, kD));
    auto hs = sgs::sghmc::try_create(hc, theta0, kD, grad<double>{}, sgs::span<double>{pool.data(), pool.size()});
    expect(hs && same_bits(c, cxx_draws(*hs)), "sghmc over a caller workspace == C API bit for bit");
    auto small = sgs::sghmc::try_create(hc, theta0, kD, grad<double>{}, sgs::span<double>{pool.data(), 1});
    expect(!small && small.status() == SGS_ERR_WORKSPACE_TOO_SMALL, "a short caller workspace is refused");

    sgs_sgld_config lc = sgs_sgld_config_default(0.01);
    lc.seed = 12;
    auto cl = c_draws<float, sgs_sgld_f32>(
        lc, sgs_sgld_workspace_len_for_f32(&lc, kD),
        [](sgs_sgld_f32 *s, const sgs_sgld_config *k, const float *t, float *w, std::size_t l) {
            return sgs_sgld_init_f32(s, k, t, kD, w, l, c_gradient<float>, nullptr);
        },
        [](sgs_sgld_f32 *s, std::size_t n, float *o, std::size_t l, std::size_t *d) {
            return sgs_sgld_run_f32(s, n, o, l, d, nullptr);
        });
    const float t32[kD] = {1.5f, -1.0f};
    // A lambda returning sgs::cb, the third gradient shape.
    auto l = sgs::sgld_f32::try_create(lc, t32, kD,
                                       [](const float *x, std::size_t, std::uint64_t s, float *g) {
                                           if (!inside(x)) return sgs::cb::reject;
                                           gradient_of(x, s, g);
                                           return sgs::cb::ok;
                                       });
    expect(l && !cl.empty() && same_bits(cl, cxx_draws(*l)), "sgld_f32 == C API bit for bit");
}

void svgd_bits() {
    const std::size_t n = 40;
    sgs_svgd_config cfg = sgs_svgd_config_default(8, 0.05);
    cfg.seed = 5;
    std::vector<double> x0(n * kD);
    for (std::size_t i = 0; i < x0.size(); i++) x0[i] = std::sin(double(i) * 1.7) * 2.0;
    for (int ensemble = 0; ensemble < 2; ensemble++) {
        std::vector<double> x = x0, ws(sgs_svgd_workspace_len(n, kD, &cfg));
        std::vector<std::uint32_t> ix(sgs_svgd_index_len(n));
        sgs_svgd s{};
        bool ok = sgs_svgd_init(&s, &cfg, x.data(), n, kD, ws.data(), ws.size(), ix.data(),
                                ix.size(), ensemble ? nullptr : c_gradient<double>,
                                ensemble ? c_gradients<double> : nullptr, nullptr) == SGS_OK &&
                  sgs_svgd_run(&s, 50, nullptr) == SGS_OK;
        if (ensemble) {
            auto sys = sgs::svgd::try_create(
                cfg, x0, n, kD,
                [](const double *xs, std::size_t m, std::size_t d, std::uint64_t seed, double *gs) {
                    for (std::size_t i = 0; i < m; i++) gradient_of(xs + i * d, seed, gs + i * d);
                });
            ok = ok && sys && sys->try_run(50);
            expect(ok && std::memcmp(sys->particles(), x.data(), x.size() * sizeof(double)) == 0,
                   "svgd (ensemble callback) == C API bit for bit");
        } else {
            auto sys = sgs::svgd::try_create(cfg, x0, n, kD, grad<double>{});
            ok = ok && sys && sys->try_run(50);
            expect(ok && std::memcmp(sys->particles(), x.data(), x.size() * sizeof(double)) == 0,
                   "svgd (per-particle callback) == C API bit for bit");
        }
        (void)sgs_svgd_clear(&s);
    }
    auto bad = sgs::svgd::try_create(cfg, std::vector<double>(7), n, kD, grad<double>{});
    expect(!bad && bad.status() == SGS_ERR_LENGTH_MISMATCH, "svgd: particles of the wrong length");
}

void clone_move_and_bad_input() {
    sgs_amagold_config cfg = sgs_amagold_config_default(0.3);
    cfg.seed = 21;
    const double theta0[kD] = {0.5, 0.5};
    auto r = sgs::amagold::try_create(cfg, theta0, kD, model<double>{}, grad<double>{});
    expect(r.has_value(), "create");
    if (!r) return;
    std::vector<sgs::amagold> chains;
    chains.push_back(std::move(*r)); // a move never moves the C state
    for (int i = 0; i < 10; i++) expect(chains[0].try_step().has_value(), "step after a move");
    auto copy = chains[0].try_clone();
    expect(copy.has_value(), "clone");
    if (!copy) return;
    expect(same_bits(cxx_draws(chains[0]), cxx_draws(*copy)), "a clone continues as the original");

    sgs_amagold_config bad = cfg;
    bad.step_size = -1.0;
    auto b = sgs::amagold::try_create(bad, theta0, kD, model<double>{}, grad<double>{});
    expect(!b && b.status() == SGS_ERR_INVALID_STEP_SIZE, "a negative step size is refused");
    auto z = sgs::amagold::try_create(cfg, theta0, 0, model<double>{}, grad<double>{});
    expect(!z && z.status() == SGS_ERR_ZERO_DIMENSION, "d = 0 is refused");
    expect(sgs::check_version() == SGS_OK, "library version == header version");
}

// K chains in lockstep through vectorised callables == K separate chains, bit for bit, also with
// rows rejected at the domain's edge.
void lockstep_bits() {
    const std::vector<std::uint64_t> seeds = {4, 5, 6, 7};
    const std::size_t k = seeds.size();
    auto vgrad = [](const double *x, std::size_t rows, std::size_t d, const std::uint64_t *s,
                    const std::size_t *, double *g, std::int32_t *status) {
        for (std::size_t r = 0; r < rows; r++) {
            if (!inside(x + r * d))
                status[r] = SGS_CB_REJECT;
            else
                gradient_of(x + r * d, s[r], g + r * d);
        }
    };
    auto venergy = [](const double *x, std::size_t rows, std::size_t d, const std::size_t *,
                      double *u, std::int32_t *status) {
        for (std::size_t r = 0; r < rows; r++) {
            if (!inside(x + r * d))
                status[r] = SGS_CB_REJECT;
            else
                u[r] = energy_of(x + r * d);
        }
    };
    for (int edge = 0; edge < 2; edge++) {
        domain_edge = edge ? -0.5 : -4.0;
        sgs_amagold_config cfg = edge ? sgs_amagold_config_default(0.4) : sgs_amagold_config_adaptive();
        cfg.warmup = edge ? 0 : 150;
        std::vector<double> theta0(k * kD);
        for (std::size_t i = 0; i < theta0.size(); i++) theta0[i] = edge ? -0.3 : std::cos(double(i));
        auto batch = sgs::amagold_batch::try_create(cfg, seeds, theta0.data(), kD, venergy, vgrad, 8);
        expect(batch.has_value(), "lockstep try_create");
        if (!batch) return;
        auto all = batch->try_run(kN);
        expect(all.has_value(), "lockstep run");
        if (!all) return;
        bool same = true;
        for (std::size_t c = 0; c < k; c++) {
            sgs_amagold_config one = cfg;
            one.seed = seeds[c];
            auto ch = sgs::amagold::try_create(one, theta0.data() + c * kD, kD, model<double>{}, grad<double>{});
            std::vector<double> rows(all->values.begin() + std::ptrdiff_t(c * kN * kD),
                                     all->values.begin() + std::ptrdiff_t((c + 1) * kN * kD));
            same = same && ch && all->rows[c] == kN && same_bits(rows, cxx_draws(*ch));
        }
        expect(same, edge ? "lockstep AMAGOLD with rejected rows == separate chains bit for bit"
                          : "lockstep AMAGOLD (adaptive warm-up, cache 8) == separate chains bit for bit");
    }
    domain_edge = -4.0;

    sgs_sghmc_config hc = sgs_sghmc_config_default(0.05);
    std::vector<double> theta0(k * kD, 0.25);
    auto hb = sgs::sghmc_batch::try_create(hc, seeds, theta0.data(), kD, vgrad);
    auto hr = hb ? hb->try_run(kN) : sgs::result<sgs::batch_draws<double, sgs_sghmc_run_summary>>::failure(SGS_ERR_NULL_POINTER);
    bool same = hr.has_value();
    for (std::size_t c = 0; same && c < k; c++) {
        sgs_sghmc_config one = hc;
        one.seed = seeds[c];
        auto ch = sgs::sghmc::try_create(one, theta0.data() + c * kD, kD, grad<double>{});
        std::vector<double> rows(hr->values.begin() + std::ptrdiff_t(c * kN * kD),
                                 hr->values.begin() + std::ptrdiff_t((c + 1) * kN * kD));
        same = ch && same_bits(rows, cxx_draws(*ch));
    }
    expect(same, "lockstep SGHMC == separate chains bit for bit");
    auto none = sgs::sghmc_batch::try_create(hc, {}, theta0.data(), kD, vgrad);
    expect(!none && none.status() == SGS_ERR_INVALID_ARGUMENT, "lockstep of no chains is refused");
    auto flat = sgs::sghmc_batch::try_create(hc, seeds, theta0.data(), 0, vgrad);
    expect(!flat && flat.status() == SGS_ERR_ZERO_DIMENSION, "lockstep with d = 0: init's status");
}

#if SGSAMPLE_HPP_EXCEPTIONS
struct boom : std::runtime_error {
    boom() : std::runtime_error("boom") {}
};

// A callback's exception is rethrown from the call, the chain is as before it, and the chain then
// continues exactly as one that never saw the exception; out_of_domain is a rejection.
void exceptions() {
    sgs_amagold_config cfg = sgs_amagold_config_default(0.3);
    cfg.seed = 33;
    const std::vector<double> theta0 = {-3.9, 0.0}; // near the domain's edge: some rejections
    int calls = 0, throw_at = 25;
    auto throwing_grad = [&calls, &throw_at](const double *x, std::size_t, std::uint64_t s, double *g) {
        if (++calls == throw_at) throw boom();
        if (!inside(x)) throw sgs::out_of_domain{};
        gradient_of(x, s, g);
    };
    auto energy = [](const double *x, std::size_t) {
        if (!inside(x)) throw sgs::out_of_domain{};
        return energy_of(x);
    };
    sgs::amagold a(cfg, theta0, energy, throwing_grad);
    sgs::amagold ref(cfg, theta0, model<double>{}, grad<double>{});
    bool thrown = false;
    for (int i = 0; i < 5; i++) {
        try {
            a.step();
        } catch (const boom &) {
            thrown = true;
            expect(a.position() == ref.position(), "after a throw the chain is as before the call");
            a.step(); // the retry repeats the same draws
        }
        ref.step();
    }
    expect(thrown, "the callback's own exception type is rethrown");
    auto ra = a.run(kN), rr = ref.run(kN);
    expect(same_bits(ra.values, rr.values) && ra.rows == kN, "after the throw: same draws as never thrown");
    expect(a.divergences() == ref.divergences(), "same counters");
    bool got = false;
    try {
        sgs_amagold_config bad = cfg;
        bad.step_size = 0.0;
        sgs::amagold broken(bad, theta0, energy, grad<double>{});
    } catch (const sgs::error &e) {
        got = e.status() == SGS_ERR_INVALID_STEP_SIZE;
    }
    expect(got, "the throwing constructor throws sgs::error with the status");
}
#endif

} // namespace

int main() {
    amagold_bits();
    amagold_f32_bits();
    sghmc_sgld_bits();
    svgd_bits();
    clone_move_and_bad_input();
    lockstep_bits();
#if SGSAMPLE_HPP_EXCEPTIONS
    exceptions();
#endif
    std::printf("sgsample.hpp (C++%ld, exceptions %s): %s\n", long(__cplusplus / 100 % 100),
                SGSAMPLE_HPP_EXCEPTIONS ? "on" : "off", failures ? "FAILED" : "all checks passed");
    return failures ? 1 : 0;
}
