"""Real-data posteriors for judging samplers' warm-up (benchmark material, not tests).

Import with ``benches/`` on ``sys.path``::

    import sys; sys.path.insert(0, "benches")
    from posteriors.models import MODELS
    m = MODELS["linreg_grunfeld"]
    m.dim, m.names
    m.energy(theta)          # float, = -log density (up to a constant), float64 numpy in
    m.grad(theta)            # ndarray, gradient of the energy; m.grad(theta, seed) ignores seed
    m.logdensity(theta)      # jax function, for BlackJAX
    m.init_uniform(rng)      # uniform(-2, 2) per coordinate, as Stan initialises
    m.init_far(rng)          # reference mean +- 20 reference sds (random signs)

Every model lives on the unconstrained space: positive parameters through log, proportions
through logit, each with its log-Jacobian in the density.  All data are full-data (no
minibatches), so ``grad(theta, seed)`` ignores ``seed``: it has the signature sgsample's Python
binding calls (``sgsample.AMAGOLD(m.energy, m.grad, theta0, ...)``).

Data: ``data/*.csv`` (see ``data/SOURCES.md``); star98 is read from the installed statsmodels.
"""

import json
import os

os.environ.setdefault(
    "XLA_FLAGS", "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads=1"
)

import jax  # noqa: E402

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from jax.scipy.special import gammaln  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")
REFERENCE_JSON = os.path.join(HERE, "reference.json")


def _csv(name):
    """A CSV of data/ as a dict column -> numpy array (floats where they parse)."""
    with open(os.path.join(DATA, name)) as f:
        header = f.readline().strip().split(",")
        rows = [line.rstrip("\n").split(",") for line in f if line.strip()]
    out = {}
    for j, h in enumerate(header):
        col = [r[j] for r in rows]
        try:
            out[h] = np.array([float(x) for x in col])
        except ValueError:
            out[h] = np.array(col)
    return out


_REF_CACHE = {}


def load_reference(path=REFERENCE_JSON):
    """reference.json as a dict (cached); {} when it does not exist yet."""
    if path not in _REF_CACHE:
        if not os.path.exists(path):
            return {}
        with open(path) as f:
            _REF_CACHE[path] = json.load(f)
    return _REF_CACHE[path]


class Model:
    """One posterior: ``logdensity`` in JAX plus jitted numpy ``energy`` / ``grad``."""

    def __init__(self, name, names, logdensity, description, data, prior, truth=None,
                 notes="", reference_reparam=None):
        self.name = name
        self.names = list(names)
        self.dim = len(self.names)
        self.logdensity = logdensity
        self.description = description
        self.data = data
        self.prior = prior
        self.truth = truth  # unconstrained true values (generated data only), else None
        self.notes = notes
        # Optional (to_model, from_model, log_abs_det_jacobian, note): an exact change of
        # variables u -> theta = to_model(u) that reference.py samples in instead (the draws are
        # mapped back), for models whose own coordinates NUTS cannot sample reliably.
        self.reference_reparam = reference_reparam
        self._energy = jax.jit(lambda t: -logdensity(t))
        self._grad = jax.jit(jax.grad(lambda t: -logdensity(t)))
        self._vg = jax.jit(jax.value_and_grad(lambda t: -logdensity(t)))

    def __repr__(self):
        return f"<Model {self.name} dim={self.dim}>"

    # plain-numpy callables for the library -------------------------------------------------
    def energy(self, theta):
        """-log density (unnormalised) as a Python float."""
        return float(self._energy(np.asarray(theta, dtype=np.float64)))

    def grad(self, theta, seed=None):
        """Gradient of the energy as a float64 ndarray; ``seed`` (a minibatch) is ignored."""
        return np.asarray(self._grad(np.asarray(theta, dtype=np.float64)), dtype=np.float64)

    def energy_and_grad(self, theta):
        e, g = self._vg(np.asarray(theta, dtype=np.float64))
        return float(e), np.asarray(g, dtype=np.float64)

    # initial points ------------------------------------------------------------------------
    def init_uniform(self, rng):
        """Uniform(-2, 2) on the unconstrained space (Stan's default)."""
        return rng.uniform(-2.0, 2.0, self.dim)

    def reference(self):
        """This model's entry of reference.json (KeyError if there is none yet)."""
        return load_reference()["models"][self.name]

    def init_far(self, rng, ref=None):
        """Every coordinate at reference mean +- 20 reference sds, with random signs.

        ``ref``: a dict with ``mean`` and ``sd`` lists (e.g. ``self.reference()``), or None
        to read reference.json.
        """
        ref = self.reference() if ref is None else ref
        mean = np.asarray(ref["mean"], dtype=np.float64)
        sd = np.asarray(ref["sd"], dtype=np.float64)
        signs = rng.choice([-1.0, 1.0], self.dim)
        return mean + 20.0 * sd * signs


MODELS = {}


def _register(model):
    MODELS[model.name] = model
    return model


# ------------------------------------------------------------------------------------------
# helpers


def _normal_lpdf(x, mu, sigma):
    return -0.5 * ((x - mu) / sigma) ** 2 - jnp.log(sigma) - 0.5 * jnp.log(2 * jnp.pi)


def _linreg(name, y, X, xnames, description, data):
    """y ~ N(b0 + X b, sigma); flat prior on (b, log sigma), i.e. p(sigma) ~ 1/sigma."""
    y = jnp.asarray(y)
    X1 = jnp.asarray(np.column_stack([np.ones(len(y)), X]))
    p = X1.shape[1]

    def logdensity(t):
        b, log_s = t[:p], t[p]
        r = y - X1 @ b
        return -y.shape[0] * log_s - 0.5 * jnp.sum(r * r) * jnp.exp(-2.0 * log_s)

    return _register(Model(
        name, ["b0"] + [f"b_{n}" for n in xnames] + ["log_sigma"], logdensity, description,
        data, "flat on the coefficients and on log sigma (p(sigma) proportional to 1/sigma)"))


# ------------------------------------------------------------------------------------------
# 1. linear regressions on raw scales

_g = _csv("grunfeld.csv")
_linreg(
    "linreg_grunfeld", _g["invest"], np.column_stack([_g["value"], _g["capital"]]),
    ["value", "capital"],
    "Grunfeld investment data (220 firm-years): invest ~ value + capital, raw scales",
    "statsmodels grunfeld (public domain)")

_m = _csv("macrodata.csv")
_linreg(
    "linreg_macro_infl", _m["infl"],
    np.column_stack([_m["unemp"], _m["tbilrate"], _m["m1"], _m["realgovt"]]),
    ["unemp", "tbilrate", "m1", "realgovt"],
    "US macro data 1959Q1-2009Q3 (203 quarters): infl ~ unemp + tbilrate + m1 + realgovt, "
    "raw scales (m1 and realgovt in billions)",
    "statsmodels macrodata (public domain)")


# ------------------------------------------------------------------------------------------
# 2. eight schools, non-centred

_es = _csv("eight_schools.csv")
_es_y = jnp.asarray(_es["y"])
_es_s = jnp.asarray(_es["sigma"])


def _eight_schools_nc(t):
    mu, log_tau, z = t[0], t[1], t[2:]
    tau = jnp.exp(log_tau)
    theta = mu + tau * z
    lp = _normal_lpdf(mu, 0.0, 5.0)
    lp += jnp.log(2.0 / (jnp.pi * 5.0)) - jnp.log1p((tau / 5.0) ** 2) + log_tau  # half-Cauchy + Jacobian
    lp += jnp.sum(-0.5 * z * z)
    lp += jnp.sum(-0.5 * ((_es_y - theta) / _es_s) ** 2)
    return lp


_register(Model(
    "eight_schools_nc", ["mu", "log_tau"] + [f"z_{s}" for s in "ABCDEFGH"], _eight_schools_nc,
    "Eight schools (Rubin 1981), non-centred: theta_j = mu + tau z_j, y_j ~ N(theta_j, sigma_j)",
    "published summary table (BDA3 Table 5.2)",
    "mu ~ N(0, 5), tau ~ half-Cauchy(0, 5), z_j ~ N(0, 1)"))


# ------------------------------------------------------------------------------------------
# 3. AR(1)-GARCH(1,1) on US quarterly inflation

_infl = jnp.asarray(_m["infl"])
# h at the first modelled quarter: the sample variance of the OLS AR(1) residuals (a fixed
# data constant, so that the recursion does not start from a parameter-dependent guess).
_Xa = np.column_stack([np.ones(len(_m["infl"]) - 1), _m["infl"][:-1]])
_res = _m["infl"][1:] - _Xa @ np.linalg.lstsq(_Xa, _m["infl"][1:], rcond=None)[0]
_H0 = float(np.var(_res))


def _garch(t):
    c, phi, log_omega, lp_, lr_ = t[0], t[1], t[2], t[3], t[4]
    omega = jnp.exp(log_omega)
    p = jax.nn.sigmoid(lp_)          # persistence alpha + beta in (0, 1)
    r = jax.nn.sigmoid(lr_)          # share alpha / (alpha + beta)
    alpha, beta = p * r, p * (1.0 - r)
    e = _infl[1:] - c - phi * _infl[:-1]

    def step(h, e_prev):
        h_new = omega + alpha * e_prev ** 2 + beta * h
        return h_new, h_new

    _, hs = jax.lax.scan(step, _H0, e[:-1])
    h = jnp.concatenate([jnp.array([_H0]), hs])
    ll = jnp.sum(-0.5 * jnp.log(2 * jnp.pi * h) - 0.5 * e * e / h)
    lprior = _normal_lpdf(c, 0.0, 10.0) + _normal_lpdf(phi, 0.0, 1.0)
    lprior += _normal_lpdf(log_omega, 0.0, 2.0)  # omega ~ lognormal(0, 2), log scale
    # (alpha, beta, 1 - alpha - beta) ~ Dirichlet(1, 1, 1): density 2 on the triangle; to
    # (p, r): Jacobian p; to the logits: p (1 - p) r (1 - r).
    lprior += 2.0 * jnp.log(p) + jnp.log1p(-p) + jnp.log(r) + jnp.log1p(-r)
    return ll + lprior


_register(Model(
    "garch11_infl", ["c", "phi", "log_omega", "logit_persistence", "logit_alpha_share"], _garch,
    "AR(1)-GARCH(1,1) on US quarterly CPI inflation 1959Q2-2009Q3 (202 terms): "
    "y_t = c + phi y_{t-1} + e_t, e_t ~ N(0, h_t), h_t = omega + alpha e_{t-1}^2 + beta h_{t-1}, "
    "h at the first term fixed to the OLS AR(1) residual variance; alpha = p r, beta = p (1 - r)",
    "statsmodels macrodata (public domain)",
    "c ~ N(0, 10), phi ~ N(0, 1), omega ~ lognormal(0, 2), (alpha, beta, 1-alpha-beta) ~ "
    "Dirichlet(1, 1, 1)"))


# ------------------------------------------------------------------------------------------
# 4. AR(9) on yearly sunspots

_AR_K = 9
_ss = jnp.asarray(_csv("sunspots.csv")["sunactivity"])
_ss_lags = jnp.stack([_ss[_AR_K - k:len(_ss) - k] for k in range(1, _AR_K + 1)], axis=1)
_ss_y = _ss[_AR_K:]


def _ar(t):
    c, phi, log_s = t[0], t[1:_AR_K + 1], t[_AR_K + 1]
    r = _ss_y - c - _ss_lags @ phi
    return -_ss_y.shape[0] * log_s - 0.5 * jnp.sum(r * r) * jnp.exp(-2.0 * log_s)


_register(Model(
    "ar9_sunspots", ["c"] + [f"phi_{k}" for k in range(1, _AR_K + 1)] + ["log_sigma"], _ar,
    "AR(9) on the yearly sunspot activity 1700-2008 (raw values), conditional on the first 9 "
    "years: y_t = c + sum_k phi_k y_{t-k} + e_t, e_t ~ N(0, sigma)",
    "statsmodels sunspots (public domain)",
    "flat on c, phi and log sigma"))


# ------------------------------------------------------------------------------------------
# 5. Poisson GP on RAND HIE outpatient visits by number of chronic diseases

_rh = _csv("randhie_disea_bins.csv")
_rh_x = jnp.asarray(_rh["disea_mean"])
_rh_n = jnp.asarray(_rh["n"])
_rh_y = jnp.asarray(_rh["mdvis_sum"])
_rh_const = float(np.sum(gammaln(_rh["mdvis_sum"] + 1.0)))
_rh_d2 = (_rh_x[:, None] - _rh_x[None, :]) ** 2
_RH_M = len(_rh["n"])


def _poisson_gp(t):
    mu, log_amp, log_ls, z = t[0], t[1], t[2], t[3:]
    amp, ls = jnp.exp(log_amp), jnp.exp(log_ls)
    K = jnp.exp(-0.5 * _rh_d2 / ls ** 2) + 1e-6 * jnp.eye(_RH_M)
    f = mu + amp * (jnp.linalg.cholesky(K) @ z)
    log_rate = jnp.log(_rh_n) + f
    ll = jnp.sum(_rh_y * log_rate - jnp.exp(log_rate)) - _rh_const
    lp = _normal_lpdf(mu, 0.0, 2.0) + jnp.sum(-0.5 * z * z)
    lp += -0.5 * amp ** 2 + log_amp                       # amp ~ half-N(0, 1) + Jacobian
    lp += _normal_lpdf(log_ls, jnp.log(10.0), 1.0)       # ls ~ lognormal(log 10, 1)
    return ll + lp


def _gp_chol(log_ls):
    return jnp.linalg.cholesky(jnp.exp(-0.5 * _rh_d2 / jnp.exp(log_ls) ** 2)
                               + 1e-6 * jnp.eye(_RH_M))


def _gp_centred_to_nc(u):
    """(mu, log_amp, log_ls, f) -> (mu, log_amp, log_ls, z), z = L^-1 (f - mu) / amp."""
    L = _gp_chol(u[2])
    z = jax.scipy.linalg.solve_triangular(L, u[3:] - u[0], lower=True) / jnp.exp(u[1])
    return jnp.concatenate([u[:3], z])


def _gp_nc_to_centred(t):
    f = t[0] + jnp.exp(t[1]) * (_gp_chol(t[2]) @ t[3:])
    return jnp.concatenate([t[:3], f])


def _gp_centred_logdet(u):
    # |d theta / d u| = |d z / d f| = amp^-M / det L
    return -_RH_M * u[1] - jnp.sum(jnp.log(jnp.diag(_gp_chol(u[2]))))


_register(Model(
    "poisson_gp_randhie", ["mu", "log_amp", "log_lengthscale"] + [f"z_{k}" for k in range(_RH_M)],
    _poisson_gp,
    "RAND Health Insurance Experiment: outpatient MD visits summed over the 20 190 person-years "
    f"in {_RH_M} bins of the number of chronic diseases; visits_k ~ Poisson(n_k exp(f(x_k))), "
    "f = mu + amp L(ls) z, squared-exponential kernel on the bin's mean disease count, "
    "non-centred (jitter 1e-6 on the unit-amplitude kernel)",
    "statsmodels randhie (public domain), aggregated",
    "mu ~ N(0, 2), amp ~ half-N(0, 1), lengthscale ~ lognormal(log 10, 1), z ~ N(0, I)",
    notes="the data pin f down (thousands of visits per bin), so the non-centred coordinates "
          "form a thin curved ridge: NUTS diverges there; the reference samples the centred "
          "coordinates (mu, log_amp, log_ls, f) and maps the draws back",
    reference_reparam=(_gp_centred_to_nc, _gp_nc_to_centred, _gp_centred_logdet,
                       "centred: u = (mu, log_amp, log_lengthscale, f), z = L^-1 (f - mu) / amp")))


# ------------------------------------------------------------------------------------------
# 6. Lotka-Volterra on synthetic data (RK4, fixed substeps)

_lv = _csv("lotka_volterra_synthetic.csv")
_lv0 = _csv("lotka_volterra_initial.csv")
_lv_logy = jnp.log(jnp.stack([_lv["prey"], _lv["predator"]], axis=1))  # (20, 2), t = 1..20
_lv_logy0 = jnp.log(jnp.array([_lv0["prey"][0], _lv0["predator"][0]]))
_LV_SUB = 10  # RK4 steps per year (dt = 0.1)


def _lv_solve(params, z0):
    a, b, g, d = params
    dt = 1.0 / _LV_SUB

    def f(z):
        u, v = z[0], z[1]
        return jnp.stack([(a - b * v) * u, (-g + d * u) * v])

    def rk4(z, _):
        k1 = f(z)
        k2 = f(z + 0.5 * dt * k1)
        k3 = f(z + 0.5 * dt * k2)
        k4 = f(z + dt * k3)
        return z + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4), None

    def year(z, _):
        z, _ = jax.lax.scan(rk4, z, None, length=_LV_SUB)
        return z, z

    _, zs = jax.lax.scan(year, z0, None, length=_lv_logy.shape[0])
    return zs


def _lotka_volterra(t):
    lparams, lz0, lsig = t[0:4], t[4:6], t[6:8]
    params, z0, sig = jnp.exp(lparams), jnp.exp(lz0), jnp.exp(lsig)
    zs = _lv_solve(params, z0)
    ll = jnp.sum(_normal_lpdf(_lv_logy, jnp.log(zs), sig[None, :]))
    ll += jnp.sum(_normal_lpdf(_lv_logy0, lz0, sig))
    # priors (Carpenter's lynx-hare case study), each on the natural scale + log-Jacobian
    lp = _normal_lpdf(params[0], 1.0, 0.5) + _normal_lpdf(params[2], 1.0, 0.5)
    lp += _normal_lpdf(params[1], 0.05, 0.05) + _normal_lpdf(params[3], 0.05, 0.05)
    lp += jnp.sum(lparams)                                   # Jacobians of exp
    lp += jnp.sum(_normal_lpdf(lz0, jnp.log(10.0), 1.0))     # z0 ~ lognormal(log 10, 1)
    lp += jnp.sum(_normal_lpdf(lsig, -1.0, 1.0))             # sigma ~ lognormal(-1, 1)
    return ll + lp


def _lv_truth():
    import importlib.util

    spec = importlib.util.spec_from_file_location("_mkdata", os.path.join(HERE, "make_data.py"))
    mk = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mk)
    tr = mk.LV_TRUE
    return {k: float(np.log(tr[v])) for k, v in [
        ("log_alpha", "alpha"), ("log_beta", "beta"), ("log_gamma", "gamma"),
        ("log_delta", "delta"), ("log_prey0", "u0"), ("log_predator0", "v0"),
        ("log_sigma_prey", "sigma_u"), ("log_sigma_predator", "sigma_v")]}


_register(Model(
    "lotka_volterra",
    ["log_alpha", "log_beta", "log_gamma", "log_delta", "log_prey0", "log_predator0",
     "log_sigma_prey", "log_sigma_predator"],
    _lotka_volterra,
    "Lotka-Volterra predator-prey ODE, RK4 with 10 fixed steps per year, lognormal "
    "observations of both species at t = 0..20; SYNTHETIC data generated (make_data.py, "
    "seed 20240611) from alpha 0.55, beta 0.028, gamma 0.80, delta 0.024, z0 (33, 6.2), "
    "sigma 0.25 (values close to the lynx-hare posterior)",
    "synthetic (make_data.py)",
    "alpha, gamma ~ N(1, 0.5), beta, delta ~ N(0.05, 0.05) (all > 0), z0 ~ lognormal(log 10, 1), "
    "sigma ~ lognormal(-1, 1)",
    truth=_lv_truth()))


# ------------------------------------------------------------------------------------------
# 7. star98: binomial GLM, 20 correlated raw predictors with interactions (21 parameters)


def _star98_data():
    from statsmodels.datasets import star98

    d = star98.load_pandas()
    return d.endog["NABOVE"].values, d.endog["NBELOW"].values, d.exog


_s_above, _s_below, _s_exog = _star98_data()
_s_X = jnp.asarray(np.column_stack([np.ones(len(_s_above)), _s_exog.values]))
_s_k = jnp.asarray(_s_above.astype(float))
_s_n = jnp.asarray((_s_above + _s_below).astype(float))


def _star98(t):
    eta = _s_X @ t
    # k log sigmoid(eta) + (n - k) log sigmoid(-eta)
    return jnp.sum(_s_k * jax.nn.log_sigmoid(eta) + (_s_n - _s_k) * jax.nn.log_sigmoid(-eta))


_register(Model(
    "star98_binomial", ["b0"] + [f"b_{c}" for c in _s_exog.columns], _star98,
    "California STAR 1998 math scores, 303 districts: students above the national median ~ "
    "Binomial(n, logistic(X b)), 12 raw predictors + 8 interactions (statsmodels' example GLM)",
    "statsmodels star98 (not copied: 'used with express permission from the original author, "
    "who retains all rights'; read from the installed statsmodels)",
    "flat"))


# ------------------------------------------------------------------------------------------
# 8. logistic regression on raw scales: ANES 1996 vote

_an = _csv("anes96.csv")
_AN_COLS = ["popul", "TVnews", "age", "educ", "income", "PID"]
_an_X = jnp.asarray(np.column_stack([np.ones(len(_an["vote"]))] + [_an[c] for c in _AN_COLS]))
_an_y = jnp.asarray(_an["vote"])


def _logistic(t):
    eta = _an_X @ t
    return jnp.sum(_an_y * jax.nn.log_sigmoid(eta) + (1.0 - _an_y) * jax.nn.log_sigmoid(-eta))


_register(Model(
    "logistic_anes96", ["b0"] + [f"b_{c}" for c in _AN_COLS], _logistic,
    "ANES 1996 (944 respondents): vote for Dole ~ popul (1000s, 0..7300) + TVnews + age + "
    "educ + income + PID, logistic, raw scales",
    "statsmodels anes96 (public domain)",
    "flat"))


# ------------------------------------------------------------------------------------------
# 9. two-component normal mixture on iris petal lengths (5-d)

_ir = jnp.asarray(_csv("iris_petal_length.csv")["petal_length_cm"])


def _mixture(t):
    lw, mu1, lgap, ls1, ls2 = t[0], t[1], t[2], t[3], t[4]
    w = jax.nn.sigmoid(lw)
    mu2 = mu1 + jnp.exp(lgap)
    s1, s2 = jnp.exp(ls1), jnp.exp(ls2)
    l1 = jnp.log(w) + _normal_lpdf(_ir, mu1, s1)
    l2 = jnp.log1p(-w) + _normal_lpdf(_ir, mu2, s2)
    ll = jnp.sum(jnp.logaddexp(l1, l2))
    lp = jnp.log(w) + jnp.log1p(-w)                          # w ~ Beta(2, 2)
    lp += jnp.log(w) + jnp.log1p(-w)                         # Jacobian of the logit
    lp += _normal_lpdf(mu1, 3.8, 3.0) + _normal_lpdf(mu2, 3.8, 3.0) + lgap  # ordered, Jacobian
    lp += _normal_lpdf(ls1, 0.0, 1.0) + _normal_lpdf(ls2, 0.0, 1.0)         # lognormal(0, 1)
    return ll + lp


_register(Model(
    "mixture_iris", ["logit_w", "mu1", "log_gap", "log_sigma1", "log_sigma2"], _mixture,
    "Two-component normal mixture on the 150 iris petal lengths (cm), ordered means "
    "mu2 = mu1 + exp(log_gap)",
    "scikit-learn iris (Fisher 1936; UCI, CC BY 4.0)",
    "w ~ Beta(2, 2), mu1, mu2 ~ N(3.8, 3) restricted to mu1 < mu2, sigma_k ~ lognormal(0, 1)"))


__all__ = ["MODELS", "Model", "load_reference"]
