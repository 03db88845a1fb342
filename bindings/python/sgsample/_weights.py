"""Importance weights for SVGD particles (``sgs_particle_weights``, docs/algorithms.md §2.9):
how much of π each particle stands for when the particles are not spread in proportion to π,
e.g. the modes' shares that SVGD and annealed SVGD leave wrong."""

import numpy as np

from ._lib import _check, _count, _invalid, _real_array, ffi, lib
from ._runner import _ptr


def _particles(particles, where):
    """``particles`` as a C-contiguous (n, d) float64 or float32 array, checked finite."""
    x = _real_array(particles, "particles", where)
    if x.dtype != np.float32:
        x = x.astype(np.float64)
    if x.ndim not in (1, 2):
        raise _invalid(where, f"particles must have shape (n, d) or (n,), got {x.shape}",
                       "SGS_ERR_LENGTH_MISMATCH")
    x = np.ascontiguousarray(x[:, None] if x.ndim == 1 else x)
    if x.shape[0] == 0:
        raise _invalid(where, "no particles", "SGS_ERR_ZERO_PARTICLES")
    if x.shape[1] == 0:
        raise _invalid(where, "particles have dimension 0", "SGS_ERR_ZERO_DIMENSION")
    bad = np.argwhere(~np.isfinite(x))
    if bad.size:
        i, j = bad[0]
        raise _invalid(where, f"particles[{i}, {j}] is {x[i, j]}: every value must be finite",
                       "SGS_ERR_NON_FINITE")
    return x


def median_bandwidth(particles):
    """The median-heuristic bandwidth ``h = med²/(2 ln n)`` of the particles (shape ``(n, d)`` or
    ``(n,)``; med the median pairwise distance): the bits the ``"gaussian_median"`` kernel would
    use for an iteration starting from them. Needs n(n−1)/2 values of scratch."""
    where = "median_bandwidth"
    x = _particles(particles, where)
    n, d = x.shape
    f32 = x.dtype == np.float32
    scratch = np.empty(max(n * (n - 1) // 2, 1), dtype=x.dtype)
    h = ffi.new("double *")
    fn = lib.sgs_median_bandwidth_f32 if f32 else lib.sgs_median_bandwidth
    ctype = "float *" if f32 else "double *"
    _check(fn(_ptr(ctype, x), n, d, _ptr(ctype, scratch), scratch.size, h),
           "sgs_median_bandwidth")
    return float(h[0])


def particle_weights(particles, energies, bandwidth=None):
    """Self-normalised importance weights ``w_i ∝ π(x_i) / q̂(x_i)`` of the particles (shape
    ``(n, d)`` or ``(n,)``), as a float64 array summing to 1.

    ``energies[i]`` is V(x_i) = −log π(x_i) + const (any constant, the same for all: the energy
    callbacks' convention); ``q̂`` is the Gaussian kernel density estimate of the particles,
    ``exp(−r²/(2h))``, with ``h = bandwidth`` or, when None, :func:`median_bandwidth` of the
    particles. An energy of +inf gives weight 0. The weights correct how many particles each
    region holds (a mode with too many particles has them down-weighted); they cannot add mass
    where no particle is. ``1 / (w**2).sum()`` is their effective sample size. O(n²·d) in C.

    >>> import numpy as np, sgsample
    >>> x = np.array([0.0, 0.0, 0.0, 10.0])     # three particles at one mode, one at the other
    >>> w = sgsample.particle_weights(x, np.zeros(4), bandwidth=1.0)   # equal density at both
    >>> round(float(w[:3].sum()), 12), round(float(w[3]), 12)
    (0.5, 0.5)
    """
    where = "particle_weights"
    x = _particles(particles, where)
    n, d = x.shape
    v = _energies(energies, n, "particle", where)
    h = _bandwidth(bandwidth, x, where)
    out = np.empty(n)
    f32 = x.dtype == np.float32
    fn = lib.sgs_particle_weights_f32 if f32 else lib.sgs_particle_weights
    _check(fn(_ptr("float *" if f32 else "double *", x), n, d, _ptr("double *", v), h,
              _ptr("double *", out), ffi.NULL), "sgs_particle_weights")
    return out


def _energies(energies, n, of, where):
    """``energies`` as n float64 values, one per ``of`` (particle or draw); NaN, -inf or all
    +inf refused as the C library would."""
    v = np.ascontiguousarray(_real_array(energies, "energies", where), dtype=np.float64)
    if v.shape != (n,):
        raise _invalid(where, f"energies must have shape ({n},), one per {of}, got {v.shape}",
                       "SGS_ERR_LENGTH_MISMATCH")
    bad = np.flatnonzero(np.isnan(v) | (v == -np.inf))
    if bad.size:
        raise _invalid(where, f"energies[{bad[0]}] is {v[bad[0]]}: NaN and -inf are not energies",
                       "SGS_ERR_NON_FINITE")
    if not np.isfinite(v).any():
        raise _invalid(where, f"every energy is +inf: the target has no mass at the {of}s",
                       "SGS_ERR_NON_FINITE")
    return v


def _bandwidth(bandwidth, x, where):
    if bandwidth is None:
        return median_bandwidth(x)
    h = _real_array(bandwidth, "bandwidth", where)
    if h.ndim != 0:
        raise _invalid(where, f"bandwidth must be a number, got shape {h.shape}",
                       "SGS_ERR_INVALID_BANDWIDTH")
    return float(h)


def kde_draws(particles, m, seed, bandwidth=None):
    """``m`` draws from the particles' Gaussian kernel density estimate (``sgs_kde_draws``): each
    a particle chosen uniformly plus ``sqrt(h)`` times a standard normal vector, ``h =
    bandwidth`` or, when None, :func:`median_bandwidth` of the particles. A pure function of
    ``(particles, h, seed)``, the same bits as the C library; shape ``(m, d)``, the particles'
    dtype (float64 or float32). With :func:`kde_weights`, importance sampling with the particles
    as the proposal (docs/algorithms.md §2.9)."""
    where = "kde_draws"
    x = _particles(particles, where)
    n, d = x.shape
    m = _count(m, "m", where)
    if m == 0:
        raise _invalid(where, "m must be at least 1", "SGS_ERR_ZERO_PARTICLES")
    seed = _count(seed, "seed", where)
    h = _bandwidth(bandwidth, x, where)
    y = np.empty((m, d), dtype=x.dtype)
    f32 = x.dtype == np.float32
    fn = lib.sgs_kde_draws_f32 if f32 else lib.sgs_kde_draws
    ctype = "float *" if f32 else "double *"
    _check(fn(_ptr(ctype, x), n, d, h, seed, _ptr(ctype, y), m), "sgs_kde_draws")
    return y


def kde_weights(particles, draws, energies, bandwidth=None):
    """Importance weights ``w_k ∝ π(y_k) / q̂(y_k)`` of ``draws`` (shape ``(m, d)``, from
    :func:`kde_draws` with the same particles and bandwidth) as a float64 array summing to 1
    (``sgs_kde_weights``): ``q̂`` the particles' Gaussian kernel density estimate, the proposal
    the draws came from, ``energies[k] = V(y_k) = −log π(y_k) + const``. ``(w[:, None] *
    draws).sum(0)`` estimates the mean under π, whatever proportions the particles hold the modes
    in, as long as they reach every mode; ``1 / (w**2).sum()`` is the effective sample size.

    >>> import numpy as np, sgsample
    >>> x = np.r_[np.linspace(-3.5, -2.5, 30), np.linspace(2.0, 3.0, 10)]   # 3/4 of them left
    >>> y = sgsample.kde_draws(x, 4000, seed=1, bandwidth=1.0)
    >>> v = -np.log(0.3 * np.exp(-0.5 * (y[:, 0] + 3)**2) + 0.7 * np.exp(-0.5 * (y[:, 0] - 3)**2))
    >>> w = sgsample.kde_weights(x, y, v, bandwidth=1.0)
    >>> bool(abs(w[y[:, 0] > 0].sum() - 0.7) < 0.05)   # the right mode's mass (particles: 0.25)
    True
    """
    where = "kde_weights"
    x = _particles(particles, where)
    n, d = x.shape
    y = _real_array(draws, "draws", where)
    y = np.ascontiguousarray(y[:, None] if y.ndim == 1 else y, dtype=x.dtype)
    if y.ndim != 2 or y.shape[1] != d:
        raise _invalid(where, f"draws must have shape (m, {d}) like the particles, got {y.shape}",
                       "SGS_ERR_LENGTH_MISMATCH")
    m = y.shape[0]
    if m == 0:
        raise _invalid(where, "no draws", "SGS_ERR_ZERO_PARTICLES")
    if not np.isfinite(y).all():
        raise _invalid(where, "every draw must be finite", "SGS_ERR_NON_FINITE")
    v = _energies(energies, m, "draw", where)
    h = _bandwidth(bandwidth, x, where)
    out = np.empty(m)
    f32 = x.dtype == np.float32
    fn = lib.sgs_kde_weights_f32 if f32 else lib.sgs_kde_weights
    ctype = "float *" if f32 else "double *"
    _check(fn(_ptr(ctype, x), n, d, h, _ptr(ctype, y), m, _ptr("double *", v),
              _ptr("double *", out), ffi.NULL), "sgs_kde_weights")
    return out
