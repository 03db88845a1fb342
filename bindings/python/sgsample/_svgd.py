"""SVGD / RBM-SVGD and the kernelized Stein discrepancy; the library's minibatch."""

import threading
import time

import numpy as np

from . import _progress
from ._callbacks import _Callbacks
from ._lib import InvalidInput, _check, _count, _invalid, _no_complex, ffi, header, lib
from ._results import RunInfo
from ._runner import _config, _dtype, _new_state, _ptr, _Runner


_SVGD_ENUMS = {
    "batching": {"without_replacement": header.defines["SGS_BATCHING_WITHOUT_REPLACEMENT"],
                 "with_replacement": header.defines["SGS_BATCHING_WITH_REPLACEMENT"]},
    "kernel": {"gaussian": header.defines["SGS_KERNEL_GAUSSIAN"],
               "gaussian_median": header.defines["SGS_KERNEL_GAUSSIAN_MEDIAN"],
               "imq": header.defines["SGS_KERNEL_IMQ"]},
    "step_rule": {"constant": header.defines["SGS_STEP_RULE_CONSTANT"],
                  "decaying": header.defines["SGS_STEP_RULE_DECAYING"],
                  "adagrad": header.defines["SGS_STEP_RULE_ADAGRAD"]},
    "ksd": {"off": header.defines["SGS_KSD_OFF"], "batch": header.defines["SGS_KSD_BATCH"],
            "full": header.defines["SGS_KSD_FULL"]},
    "scale": {"none": header.defines["SGS_SCALE_NONE"],
              "particles": header.defines["SGS_SCALE_PARTICLES"],
              "fixed": header.defines["SGS_SCALE_FIXED"]},
    "anneal": {"off": header.defines["SGS_ANNEAL_OFF"],
               "cyclical": header.defines["SGS_ANNEAL_CYCLICAL"],
               "hyperbolic": header.defines["SGS_ANNEAL_HYPERBOLIC"]},
    "permutation": {"shuffle": header.defines["SGS_PERMUTATION_SHUFFLE"],
                    "feistel": header.defines["SGS_PERMUTATION_FEISTEL"]},
}


class SVGD(_Runner):
    """SVGD / RBM-SVGD on ``particles`` (shape ``(N, d)``, copied; row i is particle i).

    Give ``grad(x, seed)`` (one particle) or ``grads(X, seed)`` (all N at once, ``X`` of shape
    ``(N, d)``, returns ``(N, d)``), or :class:`Raw` for either. ``batch_size`` p (default N:
    full SVGD), ``step_size`` η; options are the fields of ``sgs_svgd_config``: ``bandwidth``,
    ``kernel`` (``"gaussian"``, ``"gaussian_median"``, ``"imq"``), ``step_rule`` (``"adagrad"``,
    ``"constant"``, ``"decaying"``), ``adagrad_alpha``, ``batching``, ``imq_c``, ``imq_beta``,
    ``seed``, ``stream``, ``ksd`` (``"off"``, ``"batch"``, ``"full"``: the kernelized Stein
    discrepancy of the last iteration's particles in ``info.ksd_squared``), ``ksd_c``,
    ``ksd_beta``, ``scale`` (``"none"``; ``"particles"``: SVGD in coordinates standardised by
    the particles' mean and sd, recomputed every iteration, so that the bandwidth and the step
    are relative to the particles' spread, for problems whose coordinates are on different
    scales; ``"fixed"``: scales given by :meth:`set_scale`; docs/algorithms.md §2.7),
    ``anneal`` (``"off"``; ``"cyclical"``, ``"hyperbolic"``: annealed SVGD, the driving term
    scaled by γ(t) rising to 1 over ``anneal_iterations``, then 1, with ``anneal_cycles`` ramps
    and exponent ``anneal_power``; docs/algorithms.md §2.8), ``permutation`` (``"shuffle"``:
    Fisher–Yates; ``"feistel"``: a keyed bijection any range can evaluate for its own slots,
    without replacement only; docs/algorithms.md §2).

    A gradient callback that raises :class:`OutOfDomain` stops the run with :class:`Error`
    ``SGS_ERR_GRADIENT_REJECTED`` (particles of the last completed iteration).
    """

    def __init__(self, particles, grad=None, *, grads=None, batch_size=None, step_size,
                 dtype=np.float64, **options):
        if grad is not None and grads is not None:
            # The library would use grads and ignore grad: refuse instead of choosing.
            raise _invalid("sgs_svgd_init", "give grad (one particle per call) or grads (all N "
                           "at once), not both")
        self._dtype, sfx = _dtype(dtype)
        self._sfx = sfx
        self._lock = threading.Lock()
        self._ct = "float *" if sfx else "double *"
        _no_complex(particles, "particles", "sgs_svgd_init")
        x = np.array(particles, dtype=self._dtype, order="C", copy=True)
        if x.ndim == 1:
            x = x[:, None]
        if x.ndim != 2:
            raise _invalid(f"sgs_svgd_init{sfx}", f"particles must have shape (N, d), got {x.shape}",
                           "SGS_ERR_LENGTH_MISMATCH")
        self._x = x
        n, d = x.shape
        self._n, self._dim = n, d
        self._raw, self._state = _new_state("svgd", sfx)
        self._cfg = _config("svgd", (n if batch_size is None else batch_size, step_size), options,
                            _SVGD_ENUMS)
        wl = getattr(lib, f"sgs_svgd_workspace_len{sfx}")(n, d, self._cfg)
        il = getattr(lib, f"sgs_svgd_index_len{sfx}")(n)
        if wl == ffi.cast("size_t", -1):
            raise InvalidInput(dict(header.enums["sgs_status"])["SGS_ERR_INVALID_ARGUMENT"],
                               "sgs_svgd_workspace_len (size overflows)")
        self._ws = np.zeros(max(1, wl), self._dtype)
        self._idx = np.zeros(max(1, il), np.uint32)
        self._cb = _Callbacks(self._dtype, sfx, gradient=grad, gradients=grads)
        st = getattr(lib, f"sgs_svgd_init{sfx}")(
            self._state, self._cfg, _ptr(self._ct, x), n, d, _ptr(self._ct, self._ws), wl,
            _ptr("uint32_t *", self._idx), il, self._cb.fns["gradient"],
            self._cb.fns["gradients"], self._cb.user_data)
        self._cb.reraise()
        _check(st, f"sgs_svgd_init{sfx}")
        self.info = RunInfo(sampler="svgd", seed=self.seed)

    n = property(lambda self: self._n, doc="The number of particles N (read-only).")

    def set_scale(self, scale):
        """Sets the fixed scales (``d`` finite positive values, e.g. a pilot run's posterior sds)
        of a system made with ``scale="fixed"`` (else :class:`InvalidInput`,
        ``SGS_ERR_INVALID_OPTION``)."""
        where = f"sgs_svgd_set_scale{self._sfx}"
        _no_complex(scale, "scale", where)
        s = np.array(scale, dtype=self._dtype, order="C", copy=True).reshape(-1)
        self._acquire(where)
        try:
            _check(getattr(lib, where)(self._state, _ptr(self._ct, s), s.size), where)
        finally:
            self._lock.release()

    @property
    def particles(self):
        """A copy of the particles, shape ``(N, d)``."""
        self._acquire("particles")  # the library writes them in place during a run
        try:
            return self._x.copy()
        finally:
            self._lock.release()

    def run(self, iterations, *, progress=None):
        """Runs ``iterations`` iterations; returns the particles (a copy).

        ``iterations``: a non-negative integer (else :class:`InvalidInput`). ``progress``: a
        tqdm bar (``None``: only in an interactive session with tqdm installed). Stopped early
        (a callback's exception, Ctrl-C), the particles are those after the last completed
        iteration and ``.info`` counts exactly the iterations done."""
        where = f"sgs_svgd_run{self._sfx}"
        iterations = _count(iterations, "iterations", where)
        self._acquire(where)
        try:
            self._run(iterations, where, _progress.bar(progress, iterations, "svgd"))
            return self._x.copy()
        finally:
            self._lock.release()

    def _run(self, iterations, where, bar=None):
        t0 = time.perf_counter()
        last = []

        def call(start, k):
            # A fresh zeroed summary per call: a call the library refuses before running
            # (SGS_ERR_BUSY) leaves it untouched, and then adds nothing to .info.
            summary = ffi.new("sgs_svgd_run_summary *")
            st = getattr(lib, f"sgs_svgd_run{self._sfx}")(self._state, k, summary)
            self.info.iterations += summary.iterations
            if summary.iterations:
                last[:] = [summary.last.step_size, summary.last.ksd_squared]
            if st != 0:
                self._cb.reraise()
                _check(st, where)
            return summary.iterations

        try:
            # Stopped early: the particles are those after the last completed iteration.
            self._chunks(iterations, call, lambda n: None, bar)
        finally:
            self.info.seconds += time.perf_counter() - t0
            self._set_last(last)

    def _set_last(self, last):
        if last:
            self.info.step_size, self.info.ksd_squared = last

    def _copy_state_into(self, new):
        sfx = self._sfx
        where = f"sgs_svgd_copy{sfx}"
        new._raw, new._state = _new_state("svgd", sfx)
        new._x = np.empty_like(self._x)
        new._ws = np.zeros_like(self._ws)
        new._idx = np.zeros_like(self._idx)
        wl = getattr(lib, f"sgs_svgd_workspace_len{sfx}")(self.n, self.dim, self._cfg)
        il = getattr(lib, f"sgs_svgd_index_len{sfx}")(self.n)
        _check(getattr(lib, where)(new._state, _ptr(self._ct, new._x), new._x.size,
                                   _ptr(self._ct, new._ws), wl, _ptr("uint32_t *", new._idx), il,
                                   self._state), where)


def svgd(particles, iterations, grad=None, *, grads=None, **kw):
    """Runs :class:`SVGD` for ``iterations``; returns ``(particles, RunInfo)``."""
    s = SVGD(particles, grad, grads=grads, **kw)
    return s.run(iterations), s.info


def ksd(particles, grads, *, batch_size=None, c=1.0, beta=-0.5, seed=0, stream=0):
    """KSD² of ``particles`` (shape ``(N, d)``) whose gradients ∇V are ``grads`` (same shape):
    the full V-statistic (``batch_size`` None), or the unbiased random-batch estimate with
    batches of ``batch_size`` over the permutation that ``(seed, stream)`` draws. The IMQ base
    kernel ``(c² + r²)^beta``. The KSD is the square root (the batch estimate may be < 0)."""
    _no_complex(particles, "particles", "ksd")
    _no_complex(grads, "grads", "ksd")
    x = np.array(particles, dtype=np.float64)
    g = np.array(grads, dtype=np.float64, order="C")
    if x.ndim not in (1, 2):
        raise _invalid("ksd", f"particles must have shape (N, d) or (N,), got {x.shape}",
                       "SGS_ERR_LENGTH_MISMATCH")
    if g.shape != x.shape:
        # Exactly the particles' shape: a transposed or flattened array would be read as other
        # gradients without any error.
        raise _invalid("ksd", f"grads must have the particles' shape {x.shape}, got {g.shape}",
                       "SGS_ERR_LENGTH_MISMATCH")
    x = np.ascontiguousarray(x[:, None] if x.ndim == 1 else x)
    g = g.reshape(x.shape)
    for name, a in (("particles", x), ("grads", g)):
        bad = np.argwhere(~np.isfinite(a))
        if bad.size:
            i, j = bad[0]
            raise _invalid("ksd", f"{name}[{i}, {j}] is {a[i, j]}: every value must be finite "
                           "(the KSD of non-finite particles is not a number)",
                           "SGS_ERR_NON_FINITE")
    n, d = x.shape
    seed = _count(seed, "seed", "ksd")
    stream = _count(stream, "stream", "ksd")
    if batch_size is not None:
        batch_size = _count(batch_size, "batch_size", "ksd")
    out = ffi.new("double *")
    xp, gp = _ptr("double *", x), _ptr("double *", g)
    if batch_size is None:
        _check(lib.sgs_ksd_full(xp, n, d, gp, c, beta, out), "sgs_ksd_full")
    else:
        idx = np.zeros(max(1, n), np.uint32)
        _check(lib.sgs_ksd_batch(xp, n, d, gp, batch_size, c, beta, seed, stream,
                                 _ptr("uint32_t *", idx), idx.size, out), "sgs_ksd_batch")
    return out[0]
