// sgsample.hpp: a header-only C++17 face of the C API in sgsample.h.
//
// What it adds to the C API, and nothing else (the samplers, their draws and their bits are the C
// library's; a chain run through this header gives the same bits as the same chain run through
// the C functions):
//
// * Owners. `sgs::amagold`, `sgs::sghmc`, `sgs::sgld` (double) and their `_f32` twins own their C
//   state, workspace and callbacks; `sgs::svgd` / `sgs::svgd_f32` own the particles, workspace and
//   index. The C state records its own address, so each owner keeps it on the heap behind a
//   `std::unique_ptr`: owners are movable (a move never moves the C state) and not copyable;
//   `clone()` makes an independent chain that continues exactly as the original would.
// * Callbacks. Lambdas and function objects are called through one trampoline per slot,
//   instantiated for their exact type: no `std::function`, no virtual call on the hot path.
//   Accepted shapes (`Real` is double or float; `d` is the dimension):
//     energy:    double(const Real *theta, std::size_t d)
//                std::optional<double>(const Real *theta, std::size_t d)  (nullopt: out of domain)
//                sgs::cb(const Real *theta, std::size_t d, double &u)
//     gradient:  R(const Real *x, std::size_t d, std::uint64_t minibatch_seed, Real *grad)
//                with R = void, bool (false: out of domain) or sgs::cb
//     SVGD also: R(const Real *xs, std::size_t n, std::size_t d, std::uint64_t seed, Real *grads)
//                (one call for all particles; R as for gradient)
//   With exceptions on, a callback may throw `sgs::out_of_domain{}` (the point is rejected, as
//   SGS_CB_REJECT) or anything else: the library then restores the chain to its state before the
//   call (SGS_CB_ABORT) and the exception is rethrown from the call that ran the callback. No
//   exception ever crosses the C library's frames.
// * Errors. Every call exists twice: `try_…` returns `sgs::result<T>` (a value or an
//   `sgs_status`, `noexcept` where nothing is allocated) and is all a code built with
//   `-fno-exceptions` uses; the plain name returns T and throws `sgs::error` (carrying the status)
//   when built with exceptions. Allocation failure is `std::bad_alloc`, as for any container.
// * Version. Owners refuse to start (status `sgs::version_mismatch`, see `sgs::check_version`)
//   when the library linked at run time is not the version of the header compiled against.
//
// Thread safety: as the C API's: one owner per thread at a time; distinct owners are independent.
#ifndef SGSAMPLE_HPP
#define SGSAMPLE_HPP

#include "sgsample.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#if defined(__cpp_exceptions) || defined(__EXCEPTIONS) || defined(_CPPUNWIND)
#define SGSAMPLE_HPP_EXCEPTIONS 1
#include <exception>
#include <stdexcept>
#include <string>
#else
#define SGSAMPLE_HPP_EXCEPTIONS 0
#endif

namespace sgs {

/// What a callback returns instead of a value (the C `SGS_CB_…` codes).
enum class cb : std::int32_t {
    ok = SGS_CB_OK,         ///< the value was written
    reject = SGS_CB_REJECT, ///< the point is outside the target's domain: the proposal is rejected
    abort = SGS_CB_ABORT,   ///< stop now: the call fails and the sampler keeps its state
};

/// Thrown by a callback (with exceptions on) when the point is outside the target's domain.
struct out_of_domain {};

/// The status an owner reports when the library it runs on is not the version of this header
/// (outside the C library's range of `sgs_status` codes, so it is never mistaken for one).
constexpr sgs_status version_mismatch = static_cast<sgs_status>(-1);

/// The library's description of a status, or of `version_mismatch`.
inline const char *message(sgs_status status) noexcept {
    return status == version_mismatch
               ? "the sgsample library linked is not the version of sgsample.hpp"
               : sgs_status_str(status);
}

/// `SGS_OK` when the library linked at run time is the version of the header compiled against
/// (`SGS_VERSION_STRING`), else `version_mismatch`. Owners call it before they start.
inline sgs_status check_version() noexcept {
    return std::strcmp(sgs_version(), SGS_VERSION_STRING) == 0 ? SGS_OK : version_mismatch;
}

#if SGSAMPLE_HPP_EXCEPTIONS
/// A status other than `SGS_OK`, as an exception.
class error : public std::runtime_error {
public:
    /// `where` names the call that failed.
    error(sgs_status status, const char *where)
        : std::runtime_error(std::string(where) + ": " + message(status)), status_(status) {}
    /// The `sgs_status` code.
    sgs_status status() const noexcept { return status_; }

private:
    sgs_status status_;
};
#endif

namespace detail {
[[noreturn]] inline void fail(sgs_status status, const char *where) {
#if SGSAMPLE_HPP_EXCEPTIONS
    throw error(status, where);
#else
    (void)status;
    (void)where;
    std::abort();
#endif
}
} // namespace detail

/// A value or the status that prevented it (an `expected`-style result for the `try_…` calls).
template <class T>
class [[nodiscard]] result {
public:
    /// A success.
    result(T value) : value_(std::move(value)), status_(SGS_OK) {}
    /// A failure with `status` (not `SGS_OK`).
    static result failure(sgs_status status) { return result(status, 0); }

    /// Whether it holds a value.
    bool has_value() const noexcept { return value_.has_value(); }
    /// Whether it holds a value.
    explicit operator bool() const noexcept { return has_value(); }
    /// `SGS_OK` or the failure's status.
    sgs_status status() const noexcept { return status_; }
    /// The status's description.
    const char *message() const noexcept { return sgs::message(status_); }

    /// The value (undefined behaviour without one, as `std::optional`'s `*`).
    T &operator*() & noexcept { return *value_; }
    /// The value.
    const T &operator*() const & noexcept { return *value_; }
    /// The value, moved out.
    T &&operator*() && noexcept { return std::move(*value_); }
    /// Member access to the value.
    T *operator->() noexcept { return &*value_; }
    /// Member access to the value.
    const T *operator->() const noexcept { return &*value_; }
    /// The value; without one, throws `sgs::error` (or aborts when built without exceptions).
    T &value() & {
        if (!value_) detail::fail(status_, "sgs::result::value");
        return *value_;
    }
    /// The value, moved out; as above without one.
    T &&value() && {
        if (!value_) detail::fail(status_, "sgs::result::value");
        return std::move(*value_);
    }

private:
    result(sgs_status status, int) : status_(status) {}
    std::optional<T> value_;
    sgs_status status_;
};

/// A success or the status of the failure.
template <>
class [[nodiscard]] result<void> {
public:
    /// `SGS_OK` or a failure.
    result(sgs_status status = SGS_OK) noexcept : status_(status) {}
    /// Whether it succeeded.
    bool has_value() const noexcept { return status_ == SGS_OK; }
    /// Whether it succeeded.
    explicit operator bool() const noexcept { return has_value(); }
    /// `SGS_OK` or the failure's status.
    sgs_status status() const noexcept { return status_; }
    /// The status's description.
    const char *message() const noexcept { return sgs::message(status_); }
    /// Throws `sgs::error` (aborts without exceptions) on failure.
    void value() const {
        if (status_ != SGS_OK) detail::fail(status_, "sgs::result::value");
    }

private:
    sgs_status status_;
};

namespace detail {

template <class>
inline constexpr bool always_false = false;

/// What every owner's callbacks share: an exception thrown by a callback, kept until the C call
/// that ran it has returned.
struct callbacks_base {
#if SGSAMPLE_HPP_EXCEPTIONS
    std::exception_ptr pending;
#endif
    /// Rethrows a callback's exception (with exceptions on), then reports `status`.
    result<void> finish(sgs_status status) {
#if SGSAMPLE_HPP_EXCEPTIONS
        if (pending) std::rethrow_exception(std::exchange(pending, nullptr));
#endif
        return result<void>(status);
    }
};

/// Runs `f` (which returns an SGS_CB code) turning exceptions into codes: `out_of_domain` is a
/// rejection, anything else is kept in `base.pending` and aborts.
template <class F>
std::int32_t guarded(callbacks_base &base, F &&f) noexcept {
#if SGSAMPLE_HPP_EXCEPTIONS
    try {
        return f();
    } catch (const out_of_domain &) {
        return SGS_CB_REJECT;
    } catch (...) {
        base.pending = std::current_exception();
        return SGS_CB_ABORT;
    }
#else
    (void)base;
    return f();
#endif
}

/// A gradient-like call's return value as an SGS_CB code.
template <class F, class... A>
std::int32_t code_of(F &f, A... a) {
    using R = std::invoke_result_t<F &, A...>;
    if constexpr (std::is_void_v<R>) {
        f(a...);
        return SGS_CB_OK;
    } else if constexpr (std::is_same_v<R, bool>) {
        return f(a...) ? SGS_CB_OK : SGS_CB_REJECT;
    } else if constexpr (std::is_same_v<R, cb>) {
        return static_cast<std::int32_t>(f(a...));
    } else {
        static_assert(always_false<R>, "sgsample.hpp: a gradient callback returns void, bool or sgs::cb");
        return SGS_CB_ABORT;
    }
}

/// An energy call's value or code.
template <class Real, class E>
std::int32_t energy_of(E &e, const Real *theta, std::size_t d, double *u) {
    if constexpr (std::is_invocable_r_v<cb, E &, const Real *, std::size_t, double &>) {
        return static_cast<std::int32_t>(e(theta, d, *u));
    } else {
        using R = std::invoke_result_t<E &, const Real *, std::size_t>;
        if constexpr (std::is_same_v<R, std::optional<double>>) {
            std::optional<double> v = e(theta, d);
            if (!v) return SGS_CB_REJECT;
            *u = *v;
            return SGS_CB_OK;
        } else if constexpr (std::is_convertible_v<R, double>) {
            *u = static_cast<double>(e(theta, d));
            return SGS_CB_OK;
        } else {
            static_assert(always_false<R>,
                          "sgsample.hpp: an energy callback returns double, std::optional<double>, "
                          "or takes (theta, d, double &u) and returns sgs::cb");
            return SGS_CB_ABORT;
        }
    }
}

/// No energy (SGHMC, SGLD).
struct no_energy {};

/// The callables of one owner. The C state's `user_data` points here; clones share it.
template <class Real, class E, class G>
struct callbacks : callbacks_base {
    callbacks(E e, G g) : energy(std::move(e)), gradient(std::move(g)) {}
    E energy;
    G gradient;

    static std::int32_t energy_trampoline(void *self, const Real *theta, std::size_t d,
                                          double *u) noexcept {
        auto *c = static_cast<callbacks *>(self);
        return guarded(*c, [&] { return energy_of<Real>(c->energy, theta, d, u); });
    }
    static std::int32_t gradient_trampoline(void *self, const Real *x, std::size_t d,
                                            std::uint64_t seed, Real *grad) noexcept {
        auto *c = static_cast<callbacks *>(self);
        return guarded(*c, [&] { return code_of(c->gradient, x, d, seed, grad); });
    }
    static std::int32_t gradients_trampoline(void *self, const Real *xs, std::size_t n,
                                             std::size_t d, std::uint64_t seed,
                                             Real *grads) noexcept {
        auto *c = static_cast<callbacks *>(self);
        return guarded(*c, [&] { return code_of(c->gradient, xs, n, d, seed, grads); });
    }
};

} // namespace detail

/// A caller's buffer (C++17 has no `std::span`): `size` elements at `data`.
template <class T>
struct span {
    T *data = nullptr;     ///< first element (null: none)
    std::size_t size = 0;  ///< number of elements
};

/// Sampler tags for `sgs::chain`.
struct amagold_tag {};
/// SGHMC.
struct sghmc_tag {};
/// SGLD.
struct sgld_tag {};

/// The C functions of one chain sampler on one coordinate type.
template <class Tag, class Real>
struct chain_traits;

#define SGSAMPLE_HPP_CHAIN_TRAITS(TAG, REAL, NAME, SFX, STATE, INFO, SUMMARY, ENERGY)            \
    template <>                                                                                 \
    struct chain_traits<TAG, REAL> {                                                            \
        using state = STATE;                                                                    \
        using config = sgs_##NAME##_config;                                                     \
        using info = INFO;                                                                      \
        using summary = SUMMARY;                                                                \
        static constexpr bool needs_energy = ENERGY;                                            \
        static config default_config(double step_size) noexcept {                              \
            return sgs_##NAME##_config_default(step_size);                                      \
        }                                                                                       \
        static std::size_t workspace_len(const config *c, std::size_t d) noexcept {             \
            return sgs_##NAME##_workspace_len_for##SFX(c, d);                                   \
        }                                                                                       \
        static sgs_status step(state *s, info *i) noexcept { return sgs_##NAME##_step##SFX(s, i); } \
        static sgs_status run(state *s, std::size_t n, REAL *out, std::size_t len, std::size_t *done, \
                              summary *sum) noexcept {                                          \
            return sgs_##NAME##_run##SFX(s, n, out, len, done, sum);                            \
        }                                                                                       \
        static sgs_status position(const state *s, REAL *out, std::size_t len) noexcept {        \
            return sgs_##NAME##_position##SFX(s, out, len);                                     \
        }                                                                                       \
        static sgs_status iterations(const state *s, std::uint64_t *n) noexcept {               \
            return sgs_##NAME##_iterations##SFX(s, n);                                          \
        }                                                                                       \
        static sgs_status divergences(const state *s, std::uint64_t *n) noexcept {              \
            return sgs_##NAME##_divergences##SFX(s, n);                                         \
        }                                                                                       \
        static sgs_status copy(state *dst, REAL *ws, std::size_t len, const state *src) noexcept { \
            return sgs_##NAME##_copy##SFX(dst, ws, len, src);                                   \
        }                                                                                       \
        static sgs_status clear(state *s) noexcept { return sgs_##NAME##_clear##SFX(s); }          \
        static std::size_t batch_scratch_len(std::size_t k, std::size_t d, std::size_t m) noexcept { \
            return sgs_##NAME##_batch_scratch_len(k, d, m);                                     \
        }                                                                                       \
        static sgs_status run_batch(state *s, std::size_t k, std::size_t n, sgs_batch_energy_fn##SFX e, \
                                    sgs_batch_gradient_fn##SFX g, void *u, double *scratch,     \
                                    std::size_t scratch_len, std::size_t max_calls, REAL *out,  \
                                    std::size_t out_len, std::size_t *done, summary *sums) noexcept { \
            return sgs_##NAME##_run_batch##SFX(s, k, n, e, g, u, scratch, scratch_len, max_calls, out, \
                                               out_len, done, sums);                            \
        }                                                                                       \
    };

SGSAMPLE_HPP_CHAIN_TRAITS(amagold_tag, double, amagold, , sgs_amagold, sgs_amagold_info,
                          sgs_amagold_run_summary, true)
SGSAMPLE_HPP_CHAIN_TRAITS(amagold_tag, float, amagold, _f32, sgs_amagold_f32, sgs_amagold_info,
                          sgs_amagold_run_summary, true)
SGSAMPLE_HPP_CHAIN_TRAITS(sghmc_tag, double, sghmc, , sgs_sghmc, sgs_sghmc_info,
                          sgs_sghmc_run_summary, false)
SGSAMPLE_HPP_CHAIN_TRAITS(sghmc_tag, float, sghmc, _f32, sgs_sghmc_f32, sgs_sghmc_info,
                          sgs_sghmc_run_summary, false)
SGSAMPLE_HPP_CHAIN_TRAITS(sgld_tag, double, sgld, , sgs_sgld, sgs_sgld_info,
                          sgs_sgld_run_summary, false)
SGSAMPLE_HPP_CHAIN_TRAITS(sgld_tag, float, sgld, _f32, sgs_sgld_f32, sgs_sgld_info,
                          sgs_sgld_run_summary, false)
#undef SGSAMPLE_HPP_CHAIN_TRAITS

namespace detail {
// init differs between samplers (AMAGOLD takes an energy), so it is not in the traits macro.
inline sgs_status init(sgs_amagold *s, const sgs_amagold_config *c, const double *t, std::size_t d,
                       double *ws, std::size_t len, sgs_energy_fn e, sgs_gradient_fn g,
                       void *u) noexcept {
    return sgs_amagold_init(s, c, t, d, ws, len, e, g, u);
}
inline sgs_status init(sgs_amagold_f32 *s, const sgs_amagold_config *c, const float *t,
                       std::size_t d, float *ws, std::size_t len, sgs_energy_fn_f32 e,
                       sgs_gradient_fn_f32 g, void *u) noexcept {
    return sgs_amagold_init_f32(s, c, t, d, ws, len, e, g, u);
}
inline sgs_status init(sgs_sghmc *s, const sgs_sghmc_config *c, const double *t, std::size_t d,
                       double *ws, std::size_t len, sgs_energy_fn, sgs_gradient_fn g,
                       void *u) noexcept {
    return sgs_sghmc_init(s, c, t, d, ws, len, g, u);
}
inline sgs_status init(sgs_sghmc_f32 *s, const sgs_sghmc_config *c, const float *t, std::size_t d,
                       float *ws, std::size_t len, sgs_energy_fn_f32, sgs_gradient_fn_f32 g,
                       void *u) noexcept {
    return sgs_sghmc_init_f32(s, c, t, d, ws, len, g, u);
}
inline sgs_status init(sgs_sgld *s, const sgs_sgld_config *c, const double *t, std::size_t d,
                       double *ws, std::size_t len, sgs_energy_fn, sgs_gradient_fn g,
                       void *u) noexcept {
    return sgs_sgld_init(s, c, t, d, ws, len, g, u);
}
inline sgs_status step_size(const sgs_amagold *s, double *e) noexcept {
    return sgs_amagold_step_size(s, e);
}
inline sgs_status step_size(const sgs_amagold_f32 *s, double *e) noexcept {
    return sgs_amagold_step_size_f32(s, e);
}
inline sgs_status warmup_report(const sgs_amagold *s, sgs_warmup_report *r) noexcept {
    return sgs_amagold_warmup_report(s, r);
}
inline sgs_status warmup_report(const sgs_amagold_f32 *s, sgs_warmup_report *r) noexcept {
    return sgs_amagold_warmup_report_f32(s, r);
}
inline sgs_status init(sgs_sgld_f32 *s, const sgs_sgld_config *c, const float *t, std::size_t d,
                       float *ws, std::size_t len, sgs_energy_fn_f32, sgs_gradient_fn_f32 g,
                       void *u) noexcept {
    return sgs_sgld_init_f32(s, c, t, d, ws, len, g, u);
}
} // namespace detail

/// Draws and totals of a `run`.
template <class Real, class Summary>
struct draws {
    /// `rows` rows of d coordinates, row by row.
    std::vector<Real> values;
    /// Rows written.
    std::size_t rows = 0;
    /// The run's totals.
    Summary summary{};
};

/// A chain sampler (AMAGOLD, SGHMC or SGLD by `Tag`) on `Real` coordinates that owns its C state,
/// workspace and callbacks. See the file comment for the callback shapes.
template <class Tag, class Real>
class chain {
    using traits = chain_traits<Tag, Real>;
    using state_type = typename traits::state;
    using energy_ptr = std::conditional_t<std::is_same_v<Real, double>, sgs_energy_fn, sgs_energy_fn_f32>;
    using gradient_ptr =
        std::conditional_t<std::is_same_v<Real, double>, sgs_gradient_fn, sgs_gradient_fn_f32>;

public:
    /// The C configuration struct.
    using config_type = typename traits::config;
    /// What one outer iteration reports.
    using info_type = typename traits::info;
    /// A run's totals.
    using summary_type = typename traits::summary;
    /// The coordinate type.
    using real_type = Real;

    /// The sampler's default configuration at `step_size` (`sgs_…_config_default`).
    static config_type default_config(double step_size) noexcept {
        return traits::default_config(step_size);
    }

    /// Starts a chain at `theta0` (length `d`); AMAGOLD needs an energy, the other two take only
    /// a gradient (`try_create(config, theta0, d, gradient)`). Every status of `sgs_…_init`, or
    /// `version_mismatch`, is reported; a callback's exception (AMAGOLD evaluates the energy at
    /// init) is rethrown.
    ///
    /// The workspace is allocated by the owner, unless `workspace` gives caller memory (at least
    /// `sgs_…_workspace_len_for(&config, d)` elements, outliving the owner and used by nothing
    /// else) for codes that pool their memory.
    template <class E, class G>
    static result<chain> try_create(const config_type &config, const Real *theta0, std::size_t d,
                                    E energy, G gradient, span<Real> workspace = {}) {
        static_assert(traits::needs_energy, "this sampler takes no energy: try_create(config, theta0, d, gradient)");
        return start(config, theta0, d, std::move(energy), std::move(gradient), workspace);
    }
    /// As above, for SGHMC and SGLD.
    template <class G>
    static result<chain> try_create(const config_type &config, const Real *theta0, std::size_t d,
                                    G gradient, span<Real> workspace = {}) {
        static_assert(!traits::needs_energy, "AMAGOLD needs an energy: try_create(config, theta0, d, energy, gradient)");
        return start(config, theta0, d, detail::no_energy{}, std::move(gradient), workspace);
    }

#if SGSAMPLE_HPP_EXCEPTIONS
    /// Throwing constructors: as `try_create`, `sgs::error` on a failure.
    template <class E, class G>
    chain(const config_type &config, const std::vector<Real> &theta0, E energy, G gradient)
        : chain(try_create(config, theta0.data(), theta0.size(), std::move(energy),
                           std::move(gradient))
                    .value()) {}
    /// For SGHMC and SGLD.
    template <class G>
    chain(const config_type &config, const std::vector<Real> &theta0, G gradient)
        : chain(try_create(config, theta0.data(), theta0.size(), std::move(gradient)).value()) {}
#endif

    chain(chain &&) noexcept = default;
    chain &operator=(chain &&) noexcept = default;
    chain(const chain &) = delete;
    chain &operator=(const chain &) = delete;
    ~chain() = default;

    /// One outer iteration (`sgs_…_step`).
    result<info_type> try_step() {
        info_type info{};
        result<void> r = p_->cbs->finish(traits::step(&p_->st, &info));
        if (!r) return result<info_type>::failure(r.status());
        return info;
    }

    /// `n` iterations into `out` (capacity `out_len` ≥ n·d): `sgs_…_run`. `*done` and `*summary`
    /// (unless null) get the rows written and the totals, also on a failure, so an interrupted run
    /// keeps its rows.
    result<void> try_run(std::size_t n, Real *out, std::size_t out_len, std::size_t *done = nullptr,
                         summary_type *summary = nullptr) {
        return p_->cbs->finish(traits::run(&p_->st, n, out, out_len, done, summary));
    }

    /// The current position (d values).
    result<std::vector<Real>> try_position() const {
        std::vector<Real> out(p_->d);
        sgs_status s = traits::position(&p_->st, out.data(), out.size());
        if (s != SGS_OK) return result<std::vector<Real>>::failure(s);
        return out;
    }

    /// An independent chain that continues exactly as this one would (`sgs_…_copy`); it shares
    /// the callables (as the C copy shares `user_data`).
    result<chain> try_clone() const {
        // The clone always owns its workspace, whoever owns the original's.
        std::unique_ptr<impl> q(new impl(p_->d, p_->ws_len, span<Real>{}, p_->cbs));
        sgs_status s = traits::copy(&q->st, q->ws, q->ws_len, &p_->st);
        if (s != SGS_OK) return result<chain>::failure(s);
        return chain(std::move(q));
    }

#if SGSAMPLE_HPP_EXCEPTIONS
    /// One outer iteration; throws on a failure.
    info_type step() { return try_step().value(); }
    /// `n` iterations, returned with the totals; throws on a failure (use `try_run` to keep the
    /// rows of an interrupted run).
    draws<Real, summary_type> run(std::size_t n) {
        draws<Real, summary_type> r;
        r.values.resize(n * p_->d);
        try_run(n, r.values.data(), r.values.size(), &r.rows, &r.summary).value();
        return r;
    }
    /// The current position.
    std::vector<Real> position() const { return try_position().value(); }
    /// An independent copy.
    chain clone() const { return try_clone().value(); }
#endif

    /// AMAGOLD: the step size ε in use (adapted during a warm-up).
    template <class T = Tag>
    result<double> try_step_size() const noexcept {
        static_assert(std::is_same_v<T, amagold_tag>, "step_size: AMAGOLD only");
        double e = 0.0;
        sgs_status s = detail::step_size(&p_->st, &e);
        if (s != SGS_OK) return result<double>::failure(s);
        return e;
    }
    /// AMAGOLD: the warm-up's report and verdict (`sgs_amagold_warmup_report`).
    template <class T = Tag>
    result<sgs_warmup_report> try_warmup_report() const noexcept {
        static_assert(std::is_same_v<T, amagold_tag>, "warmup_report: AMAGOLD only");
        sgs_warmup_report r{};
        sgs_status s = detail::warmup_report(&p_->st, &r);
        if (s != SGS_OK) return result<sgs_warmup_report>::failure(s);
        return r;
    }
#if SGSAMPLE_HPP_EXCEPTIONS
    /// AMAGOLD: the step size in use; throws on a failure.
    template <class T = Tag>
    double step_size() const { return try_step_size<T>().value(); }
    /// AMAGOLD: the warm-up's report; throws on a failure.
    template <class T = Tag>
    sgs_warmup_report warmup_report() const { return try_warmup_report<T>().value(); }
#endif

    /// Outer iterations done since init.
    std::uint64_t iterations() const noexcept {
        std::uint64_t n = 0;
        (void)traits::iterations(&p_->st, &n);
        return n;
    }
    /// Divergent iterations since init.
    std::uint64_t divergences() const noexcept {
        std::uint64_t n = 0;
        (void)traits::divergences(&p_->st, &n);
        return n;
    }
    /// The dimension.
    std::size_t dim() const noexcept { return p_->d; }

    /// The C state, for the C functions this header does not wrap (`sgs_amagold_step_size`,
    /// `sgs_amagold_warmup_report`, …). It stays at this address while the owner lives.
    state_type *handle() noexcept { return &p_->st; }
    /// The C state, read-only.
    const state_type *handle() const noexcept { return &p_->st; }

private:
    struct impl {
        // `len` elements of its own, or the caller's `given`.
        impl(std::size_t d_, std::size_t len, span<Real> given, std::shared_ptr<detail::callbacks_base> c)
            : d(d_), own(given.data ? 0 : len), ws(given.data ? given.data : own.data()),
              ws_len(given.data ? given.size : len), cbs(std::move(c)) {}
        impl(const impl &) = delete;
        impl &operator=(const impl &) = delete;
        ~impl() { (void)traits::clear(&st); }
        state_type st{};
        std::size_t d;
        std::vector<Real> own;
        Real *ws;
        std::size_t ws_len;
        std::shared_ptr<detail::callbacks_base> cbs;
    };

    explicit chain(std::unique_ptr<impl> p) noexcept : p_(std::move(p)) {}

    template <class E, class G>
    static result<chain> start(const config_type &config, const Real *theta0, std::size_t d,
                               E energy, G gradient, span<Real> workspace) {
        if (sgs_status v = check_version(); v != SGS_OK) return result<chain>::failure(v);
        using cbs_t = detail::callbacks<Real, E, G>;
        auto cbs = std::make_shared<cbs_t>(std::move(energy), std::move(gradient));
        energy_ptr e = nullptr;
        if constexpr (!std::is_same_v<E, detail::no_energy>) e = &cbs_t::energy_trampoline;
        gradient_ptr g = &cbs_t::gradient_trampoline;
        // Sized for this configuration: a mass matrix or a warm-up's approach needs more. At least
        // one element, so that init reports what is wrong (d = 0, a config the size query cannot
        // size) rather than a null workspace.
        std::size_t len = std::max<std::size_t>(traits::workspace_len(&config, d), 1);
        void *user = cbs.get();
        std::unique_ptr<impl> p(new impl(d, len, workspace, std::move(cbs)));
        result<void> r = p->cbs->finish(
            detail::init(&p->st, &config, theta0, d, p->ws, p->ws_len, e, g, user));
        if (!r) return result<chain>::failure(r.status());
        return chain(std::move(p));
    }

    std::unique_ptr<impl> p_;
};

namespace detail {
/// A vectorised callable's return value as an SGS_CB code (void: OK).
template <class F, class... A>
std::int32_t batch_code(F &f, A... a) {
    using R = std::invoke_result_t<F &, A...>;
    if constexpr (std::is_void_v<R>) {
        f(a...);
        return SGS_CB_OK;
    } else if constexpr (std::is_same_v<R, cb>) {
        return static_cast<std::int32_t>(f(a...));
    } else {
        static_assert(always_false<R>, "sgsample.hpp: a vectorised callback returns void or sgs::cb");
        return SGS_CB_ABORT;
    }
}

/// The vectorised callables of a `sgs::lockstep`, and the one-row views of them that each chain's
/// init (and a single chain's step) calls.
template <class Real, class E, class G>
struct batch_callbacks : callbacks_base {
    batch_callbacks(E e, G g) : energy(std::move(e)), gradient(std::move(g)) {}
    E energy;
    G gradient;

    /// `user_data` of chain `chain`'s own callbacks.
    struct row {
        batch_callbacks *cbs;
        std::size_t chain;
    };

    static std::int32_t energy_batch(void *self, const Real *theta, std::size_t k, std::size_t d,
                                     const std::size_t *chains, double *u,
                                     std::int32_t *rs) noexcept {
        auto *c = static_cast<batch_callbacks *>(self);
        return guarded(*c, [&] { return batch_code(c->energy, theta, k, d, chains, u, rs); });
    }
    static std::int32_t gradient_batch(void *self, const Real *x, std::size_t k, std::size_t d,
                                       const std::uint64_t *seeds, const std::size_t *chains,
                                       Real *grad, std::int32_t *rs) noexcept {
        auto *c = static_cast<batch_callbacks *>(self);
        return guarded(*c, [&] { return batch_code(c->gradient, x, k, d, seeds, chains, grad, rs); });
    }
    static std::int32_t energy_row(void *r, const Real *theta, std::size_t d, double *u) noexcept {
        auto *w = static_cast<row *>(r);
        std::int32_t status = SGS_CB_OK;
        std::int32_t code = energy_batch(w->cbs, theta, 1, d, &w->chain, u, &status);
        return code != SGS_CB_OK ? code : status;
    }
    static std::int32_t gradient_row(void *r, const Real *x, std::size_t d, std::uint64_t seed,
                                     Real *grad) noexcept {
        auto *w = static_cast<row *>(r);
        std::int32_t status = SGS_CB_OK;
        std::int32_t code = gradient_batch(w->cbs, x, 1, d, &seed, &w->chain, grad, &status);
        return code != SGS_CB_OK ? code : status;
    }
};
} // namespace detail

/// Draws and totals of a `lockstep::run`: chain c's rows are `values[(c·n + i)·d …]`.
template <class Real, class Summary>
struct batch_draws {
    /// k·n·d values, chain-major.
    std::vector<Real> values;
    /// Rows written per chain (they can differ by one after an interrupted run).
    std::vector<std::size_t> rows;
    /// Totals per chain.
    std::vector<Summary> summaries;
};

/// K chains of one sampler advanced in lockstep (`sgs_…_run_batch`), evaluated through vectorised
/// callables, one call per round for all chains that need a value:
///
///     gradient: R(const Real *x, std::size_t k, std::size_t d, const std::uint64_t *seeds,
///                 const std::size_t *chains, Real *grad, std::int32_t *row_status)
///     energy:   R(const Real *theta, std::size_t k, std::size_t d, const std::size_t *chains,
///                 double *u, std::int32_t *row_status)            (AMAGOLD only)
///
/// with R = void or sgs::cb; a row outside the domain is rejected by setting its `row_status` to
/// SGS_CB_REJECT (an exception aborts the run, as for a chain). Row r is chain `chains[r]`'s point
/// and its value must depend on that row alone: the draws are then bit for bit those of K
/// separate chains with the same seeds.
template <class Tag, class Real>
class lockstep {
    using traits = chain_traits<Tag, Real>;
    using state_type = typename traits::state;

public:
    /// The C configuration struct.
    using config_type = typename traits::config;
    /// A chain's run totals.
    using summary_type = typename traits::summary;

    /// `seeds.size()` chains with `config` but for their seeds, chain c starting at row c of
    /// `theta0` (k·d values); `max_calls` callback answers cached per chain and step (memory
    /// k·max_calls·(d + 2) doubles; a step with more calls gets the rest one row at a time).
    template <class E, class G>
    static result<lockstep> try_create(const config_type &config, const std::vector<std::uint64_t> &seeds,
                                       const Real *theta0, std::size_t d, E energy, G gradient,
                                       std::size_t max_calls = 64) {
        static_assert(traits::needs_energy, "this sampler takes no energy: try_create(config, seeds, theta0, d, gradient)");
        return start(config, seeds, theta0, d, std::move(energy), std::move(gradient), max_calls);
    }
    /// As above, for SGHMC and SGLD.
    template <class G>
    static result<lockstep> try_create(const config_type &config, const std::vector<std::uint64_t> &seeds,
                                       const Real *theta0, std::size_t d, G gradient,
                                       std::size_t max_calls = 64) {
        static_assert(!traits::needs_energy, "AMAGOLD needs an energy");
        auto no = [](const Real *, std::size_t, std::size_t, const std::size_t *, double *,
                     std::int32_t *) { return cb::abort; };
        return start(config, seeds, theta0, d, no, std::move(gradient), max_calls);
    }

    lockstep(lockstep &&) noexcept = default;
    lockstep &operator=(lockstep &&) noexcept = default;
    lockstep(const lockstep &) = delete;
    lockstep &operator=(const lockstep &) = delete;
    ~lockstep() = default;

    /// `n` iterations of every chain into `out` (k·n·d, chain-major); `done` and `summaries`
    /// (k entries each, unless null) also on a failure.
    result<void> try_run(std::size_t n, Real *out, std::size_t out_len, std::size_t *done = nullptr,
                         summary_type *summaries = nullptr) {
        impl &p = *p_;
        return p.cbs->finish(traits::run_batch(
            p.st.get(), p.k, n, p.energy, p.gradient, p.cbs.get(), p.scratch.data(),
            p.scratch.size(), p.max_calls, out, out_len, done, summaries));
    }
    /// `n` iterations of every chain, with the rows and totals, also on a failure.
    result<batch_draws<Real, summary_type>> try_run(std::size_t n) {
        batch_draws<Real, summary_type> r;
        r.values.resize(p_->k * n * p_->d);
        r.rows.resize(p_->k);
        r.summaries.resize(p_->k);
        result<void> s = try_run(n, r.values.data(), r.values.size(), r.rows.data(), r.summaries.data());
        if (!s) return result<batch_draws<Real, summary_type>>::failure(s.status());
        return r;
    }
#if SGSAMPLE_HPP_EXCEPTIONS
    /// As `try_run(n)`; throws on a failure (use `try_run` with buffers to keep the rows of an
    /// interrupted run).
    batch_draws<Real, summary_type> run(std::size_t n) { return try_run(n).value(); }
#endif
    /// Number of chains.
    std::size_t size() const noexcept { return p_->k; }
    /// The dimension.
    std::size_t dim() const noexcept { return p_->d; }
    /// Chain c's C state (for `sgs_…_position` and the like; c < size()).
    state_type *handle(std::size_t c) noexcept { return &p_->st[c]; }

private:
    using energy_batch_ptr = std::conditional_t<std::is_same_v<Real, double>, sgs_batch_energy_fn, sgs_batch_energy_fn_f32>;
    using gradient_batch_ptr = std::conditional_t<std::is_same_v<Real, double>, sgs_batch_gradient_fn, sgs_batch_gradient_fn_f32>;
    using energy_ptr = std::conditional_t<std::is_same_v<Real, double>, sgs_energy_fn, sgs_energy_fn_f32>;
    using gradient_ptr = std::conditional_t<std::is_same_v<Real, double>, sgs_gradient_fn, sgs_gradient_fn_f32>;

    struct impl {
        impl(std::size_t k_, std::size_t d_, std::size_t m, std::size_t ws_len_, std::size_t scratch_len)
            : k(k_), d(d_), max_calls(m), ws_len(ws_len_), st(new state_type[k_]()), ws(k_ * ws_len_),
              scratch(scratch_len) {}
        impl(const impl &) = delete;
        impl &operator=(const impl &) = delete;
        ~impl() {
            for (std::size_t c = 0; c < k; c++) (void)traits::clear(&st[c]);
        }
        std::size_t k, d, max_calls, ws_len;
        std::unique_ptr<state_type[]> st;
        std::vector<Real> ws;
        std::vector<double> scratch;
        std::shared_ptr<detail::callbacks_base> cbs;
        std::shared_ptr<void> rows;
        energy_batch_ptr energy = nullptr;
        gradient_batch_ptr gradient = nullptr;
    };

    template <class E, class G>
    static result<lockstep> start(const config_type &config, const std::vector<std::uint64_t> &seeds,
                                  const Real *theta0, std::size_t d, E energy, G gradient,
                                  std::size_t max_calls) {
        if (sgs_status v = check_version(); v != SGS_OK) return result<lockstep>::failure(v);
        const std::size_t k = seeds.size();
        // No chains: nothing would call init, so the wrapper says it (run_batch's status for
        // k = 0). d = 0 and a null theta0 are chain 0's init's to report.
        if (k == 0) return result<lockstep>::failure(SGS_ERR_INVALID_ARGUMENT);
        using cbs_t = detail::batch_callbacks<Real, E, G>;
        auto cbs = std::make_shared<cbs_t>(std::move(energy), std::move(gradient));
        auto rows = std::make_shared<std::vector<typename cbs_t::row>>(k);
        std::size_t ws_len = std::max<std::size_t>(traits::workspace_len(&config, d), 1);
        std::size_t scratch = std::max<std::size_t>(traits::batch_scratch_len(k, d, max_calls), 1);
        std::unique_ptr<impl> p(new impl(k, d, max_calls, ws_len, scratch));
        for (std::size_t c = 0; c < k; c++) {
            (*rows)[c] = typename cbs_t::row{cbs.get(), c};
            config_type cc = config;
            cc.seed = seeds[c];
            energy_ptr e = nullptr;
            if constexpr (traits::needs_energy) e = &cbs_t::energy_row;
            gradient_ptr g = &cbs_t::gradient_row;
            result<void> r = cbs->finish(detail::init(&p->st[c], &cc, theta0 + c * d, d,
                                                      p->ws.data() + c * ws_len, ws_len, e, g,
                                                      &(*rows)[c]));
            if (!r) return result<lockstep>::failure(r.status());
        }
        if constexpr (traits::needs_energy) p->energy = &cbs_t::energy_batch;
        p->gradient = &cbs_t::gradient_batch;
        p->cbs = std::move(cbs);
        p->rows = std::move(rows);
        return lockstep(std::move(p));
    }

    explicit lockstep(std::unique_ptr<impl> p) noexcept : p_(std::move(p)) {}
    std::unique_ptr<impl> p_;
};

/// K AMAGOLD chains in lockstep (double).
using amagold_batch = lockstep<amagold_tag, double>;
/// K AMAGOLD chains in lockstep (float).
using amagold_batch_f32 = lockstep<amagold_tag, float>;
/// K SGHMC chains in lockstep (double).
using sghmc_batch = lockstep<sghmc_tag, double>;
/// K SGLD chains in lockstep (double).
using sgld_batch = lockstep<sgld_tag, double>;

/// AMAGOLD on double coordinates.
using amagold = chain<amagold_tag, double>;
/// AMAGOLD on float coordinates.
using amagold_f32 = chain<amagold_tag, float>;
/// SGHMC on double coordinates.
using sghmc = chain<sghmc_tag, double>;
/// SGHMC on float coordinates.
using sghmc_f32 = chain<sghmc_tag, float>;
/// SGLD on double coordinates.
using sgld = chain<sgld_tag, double>;
/// SGLD on float coordinates.
using sgld_f32 = chain<sgld_tag, float>;

namespace detail {
template <class Real>
struct svgd_c;
template <>
struct svgd_c<double> {
    using state = sgs_svgd;
    using gradient_ptr = sgs_gradient_fn;
    using gradients_ptr = sgs_gradients_fn;
    static sgs_status init(state *s, const sgs_svgd_config *c, double *x, std::size_t n,
                           std::size_t d, double *ws, std::size_t wl, std::uint32_t *ix,
                           std::size_t il, gradient_ptr g, gradients_ptr gs, void *u) noexcept {
        return sgs_svgd_init(s, c, x, n, d, ws, wl, ix, il, g, gs, u);
    }
    static std::size_t workspace_len(std::size_t n, std::size_t d, const sgs_svgd_config *c) noexcept {
        return sgs_svgd_workspace_len(n, d, c);
    }
    static sgs_status step(state *s, sgs_svgd_info *i) noexcept { return sgs_svgd_step(s, i); }
    static sgs_status run(state *s, std::uint64_t n, sgs_svgd_run_summary *r) noexcept {
        return sgs_svgd_run(s, n, r);
    }
    static sgs_status clear(state *s) noexcept { return sgs_svgd_clear(s); }
};
template <>
struct svgd_c<float> {
    using state = sgs_svgd_f32;
    using gradient_ptr = sgs_gradient_fn_f32;
    using gradients_ptr = sgs_gradients_fn_f32;
    static sgs_status init(state *s, const sgs_svgd_config *c, float *x, std::size_t n,
                           std::size_t d, float *ws, std::size_t wl, std::uint32_t *ix,
                           std::size_t il, gradient_ptr g, gradients_ptr gs, void *u) noexcept {
        return sgs_svgd_init_f32(s, c, x, n, d, ws, wl, ix, il, g, gs, u);
    }
    static std::size_t workspace_len(std::size_t n, std::size_t d, const sgs_svgd_config *c) noexcept {
        return sgs_svgd_workspace_len_f32(n, d, c);
    }
    static sgs_status step(state *s, sgs_svgd_info *i) noexcept { return sgs_svgd_step_f32(s, i); }
    static sgs_status run(state *s, std::uint64_t n, sgs_svgd_run_summary *r) noexcept {
        return sgs_svgd_run_f32(s, n, r);
    }
    static sgs_status clear(state *s) noexcept { return sgs_svgd_clear_f32(s); }
};
} // namespace detail

/// An SVGD / RBM-SVGD system of `n` particles of dimension `d` that owns its particles, workspace,
/// index and gradient callable. The callable is either per particle, `R(const Real *x,
/// std::size_t d, std::uint64_t seed, Real *grad)`, or for all particles at once, `R(const Real
/// *xs, std::size_t n, std::size_t d, std::uint64_t seed, Real *grads)`.
template <class Real>
class svgd_system {
    using c = detail::svgd_c<Real>;

public:
    /// Starts the system from `particles` (n·d values, row by row): every status of
    /// `sgs_svgd_init`, or `version_mismatch`.
    template <class G>
    static result<svgd_system> try_create(const sgs_svgd_config &config, std::vector<Real> particles,
                                          std::size_t n, std::size_t d, G gradient) {
        if (sgs_status v = check_version(); v != SGS_OK) return result<svgd_system>::failure(v);
        using cbs_t = detail::callbacks<Real, detail::no_energy, G>;
        auto cbs = std::make_shared<cbs_t>(detail::no_energy{}, std::move(gradient));
        typename c::gradient_ptr g = nullptr;
        typename c::gradients_ptr gs = nullptr;
        if constexpr (std::is_invocable_v<G &, const Real *, std::size_t, std::size_t, std::uint64_t, Real *>)
            gs = &cbs_t::gradients_trampoline;
        else
            g = &cbs_t::gradient_trampoline;
        // n·d must not wrap; a zero n or d is left to init to report.
        if (d != 0 && n > SIZE_MAX / d) return result<svgd_system>::failure(SGS_ERR_INVALID_ARGUMENT);
        if (particles.size() != n * d) return result<svgd_system>::failure(SGS_ERR_LENGTH_MISMATCH);
        void *user = cbs.get();
        // At least one element each, so that init reports what is wrong rather than a null buffer.
        std::unique_ptr<impl> p(new impl(std::move(particles),
                                         std::max<std::size_t>(c::workspace_len(n, d, &config), 1),
                                         std::max<std::size_t>(sgs_svgd_index_len(n), 1), n, d,
                                         std::move(cbs)));
        result<void> r = p->cbs->finish(c::init(&p->st, &config, p->x.data(), n, d, p->ws.data(),
                                                p->ws.size(), p->ix.data(), p->ix.size(), g, gs,
                                                user));
        if (!r) return result<svgd_system>::failure(r.status());
        return svgd_system(std::move(p));
    }

#if SGSAMPLE_HPP_EXCEPTIONS
    /// Throwing constructor: as `try_create`.
    template <class G>
    svgd_system(const sgs_svgd_config &config, std::vector<Real> particles, std::size_t n,
                std::size_t d, G gradient)
        : svgd_system(try_create(config, std::move(particles), n, d, std::move(gradient)).value()) {}
#endif

    svgd_system(svgd_system &&) noexcept = default;
    svgd_system &operator=(svgd_system &&) noexcept = default;
    svgd_system(const svgd_system &) = delete;
    svgd_system &operator=(const svgd_system &) = delete;
    ~svgd_system() = default;

    /// One iteration.
    result<sgs_svgd_info> try_step() {
        sgs_svgd_info info{};
        result<void> r = p_->cbs->finish(c::step(&p_->st, &info));
        if (!r) return result<sgs_svgd_info>::failure(r.status());
        return info;
    }
    /// `iterations` iterations; `*summary` (unless null) gets the totals, also on a failure.
    result<void> try_run(std::uint64_t iterations, sgs_svgd_run_summary *summary = nullptr) {
        return p_->cbs->finish(c::run(&p_->st, iterations, summary));
    }
#if SGSAMPLE_HPP_EXCEPTIONS
    /// One iteration; throws on a failure.
    sgs_svgd_info step() { return try_step().value(); }
    /// `iterations` iterations; throws on a failure.
    sgs_svgd_run_summary run(std::uint64_t iterations) {
        sgs_svgd_run_summary s{};
        try_run(iterations, &s).value();
        return s;
    }
#endif
    /// The particles (n·d values, row by row), read in place: the system moves them between
    /// calls. Valid while the owner lives.
    const Real *particles() const noexcept { return p_->x.data(); }
    /// Number of particles.
    std::size_t size() const noexcept { return p_->n; }
    /// The dimension.
    std::size_t dim() const noexcept { return p_->d; }
    /// The C state, for the C functions this header does not wrap.
    typename c::state *handle() noexcept { return &p_->st; }

private:
    struct impl {
        impl(std::vector<Real> x_, std::size_t wl, std::size_t il, std::size_t n_, std::size_t d_,
             std::shared_ptr<detail::callbacks_base> cb)
            : x(std::move(x_)), ws(wl), ix(il), n(n_), d(d_), cbs(std::move(cb)) {}
        impl(const impl &) = delete;
        impl &operator=(const impl &) = delete;
        ~impl() { (void)c::clear(&st); }
        typename c::state st{};
        std::vector<Real> x, ws;
        std::vector<std::uint32_t> ix;
        std::size_t n, d;
        std::shared_ptr<detail::callbacks_base> cbs;
    };
    explicit svgd_system(std::unique_ptr<impl> p) noexcept : p_(std::move(p)) {}
    std::unique_ptr<impl> p_;
};

/// SVGD on double coordinates.
using svgd = svgd_system<double>;
/// SVGD on float coordinates.
using svgd_f32 = svgd_system<float>;

} // namespace sgs

#endif // SGSAMPLE_HPP
