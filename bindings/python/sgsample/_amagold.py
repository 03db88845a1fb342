"""AMAGOLD: mass matrices, the warm-up and its report."""

from dataclasses import dataclass

import numpy as np

from ._chain import _acceptance_rate, _Chain
from ._lib import _STATUS, _c_dtype, Error, InvalidInput, _check, _invalid, _no_complex, ffi, header, lib
from ._runner import _config, _ptr


# ---------------------------------------------------------------------------------------------
# AMAGOLD: mass matrices, the warm-up and its report (sgs_amagold_config.mass / approach /
# jitter_steps, sgs_amagold_set_…, sgs_amagold_warmup_report, sgs_amagold_warmup_compare)


def _names(prefix, exclude=None):
    """``{value: name}`` of the header's ``#define <prefix>NAME value`` constants (those not
    starting with ``exclude``), names lowered (``SGS_PHASE_SLOW`` → ``"slow"``): nothing here
    copies a value from the header."""
    return {v: k[len(prefix):].lower() for k, v in header.defines.items()
            if k.startswith(prefix) and isinstance(v, int)
            and not (exclude and k.startswith(exclude))}


_MASS_NAMES = _names("SGS_MASS_")                      # 0 "unit", 1 "diagonal", 2 "dense"
_PHASE_NAMES = _names("SGS_PHASE_")                    # "sampling", "approach", "fast", …
_VERDICT_NAMES = _names("SGS_WARMUP_", "SGS_WARMUP_REASON_")  # "none", "running", "ok", …
_REASON_NAMES = _names("SGS_WARMUP_REASON_")           # bit → "energy_trend", "acceptance", …


def _reason_names(flags):
    """The names of the ``SGS_WARMUP_REASON_…`` bits set in ``flags``, in bit order (a bit the
    header does not name, from a newer library, as ``"0x…"``)."""
    names = []
    bit = 1
    while bit <= flags:
        if flags & bit:
            names.append(_REASON_NAMES.get(bit, f"{bit:#x}"))
        bit <<= 1
    return tuple(names)


@dataclass(frozen=True)
class WarmupReport:
    """What an AMAGOLD chain's warm-up did, and whether its end looks like the typical set: the C
    ``sgs_warmup_report`` (docs/algorithms.md §1.8), read-only.

    ``verdict`` is ``"none"`` (no warm-up), ``"running"`` (the statistics so far), ``"ok"`` or
    ``"suspect"``; ``reasons`` names the ``SGS_WARMUP_REASON_…`` flags behind a suspect verdict
    (``"energy_trend"``, ``"acceptance"``, ``"divergences"``, ``"low_bfmi"``,
    ``"chains_disagree"`` (only from :func:`warmup_compare`), ``"metric"``), and
    ``reason_flags`` is the bitwise value; ``approach_unfinished`` (informational, not a reason)
    says the approach stopped at its cap still far from the mode. The other fields are the C struct's,
    under its names: the final ε and the target δ; over the final window the mean acceptance
    probability, the energy's mean, sd, trend z and pair counts, its BFMI, the divergences; over
    the whole warm-up the iterations (of which the approach's), the divergences, the approach's
    start and end energies, metric updates and restarts; the inverse mass matrix's condition
    number."""

    verdict: str
    reasons: tuple
    step_size: float
    target_accept: float
    accept_rate: float
    energy_trend_z: float
    energy_mean: float
    energy_sd: float
    bfmi: float
    condition_number: float
    approach_energy_start: float
    approach_energy_end: float
    iterations: int
    approach_iterations: int
    divergences: int
    window_iterations: int
    window_divergences: int
    metric_updates: int
    restarts: int
    energy_trend_falling: int
    energy_trend_rising: int
    approach_unfinished: int
    reason_flags: int

    @property
    def ok(self):
        """True when the verdict is ``"ok"``."""
        return self.verdict == "ok"


def _report_of(r):
    """A :class:`WarmupReport` from a ``sgs_warmup_report`` cdata."""
    values = {name: getattr(r, name) for _, name, _ in header.structs["sgs_warmup_report"]
              if name not in ("verdict", "reasons", "reserved")}
    return WarmupReport(verdict=_VERDICT_NAMES.get(r.verdict, str(r.verdict)),
                        reasons=_reason_names(r.reasons), reason_flags=int(r.reasons), **values)


def warmup_compare(chains):
    """The warm-up reports of the :class:`AMAGOLD` chains of one model, compared
    (``sgs_amagold_warmup_compare``): a list of :class:`WarmupReport`, one per chain in order,
    each with its own verdict plus ``"chains_disagree"`` (verdict ``"suspect"``) where a chain's
    final-window mean energy is more than 2 median energy sds from the chains' median, or, with a
    mass matrix, the final windows' positions give an R-hat above 1.1 in some coordinate (then in
    every chain). The chains must have one dtype (else :class:`InvalidInput`
    ``SGS_ERR_INVALID_ARGUMENT``) and one dimension (``SGS_ERR_LENGTH_MISMATCH``); none at all is
    ``SGS_ERR_ZERO_DIMENSION``. Each chain's lock is held during the call (``SGS_ERR_BUSY`` if
    one is running)."""
    chains = list(chains)
    where = "sgs_amagold_warmup_compare"
    if not chains:
        raise _invalid(where, "at least one AMAGOLD chain is needed", "SGS_ERR_ZERO_DIMENSION")
    for c in chains:
        if not isinstance(c, AMAGOLD):
            raise _invalid(where, f"chains must be sgsample.AMAGOLD samplers, got "
                           f"{type(c).__name__}")
    sfx = chains[0]._sfx
    if any(c._sfx != sfx for c in chains):
        raise _invalid(where, "the chains must all have one dtype (float64 or float32)")
    where += sfx
    taken = []
    try:
        for c in {id(c): c for c in chains}.values():  # a chain given twice is locked once
            c._acquire(where)
            taken.append(c)
        states = ffi.new(f"sgs_amagold{sfx} *[]", [c._state for c in chains])
        out = ffi.new("sgs_warmup_report[]", len(chains))
        st = getattr(lib, "sgs_amagold_warmup_compare" + sfx)(
            ffi.cast(f"const sgs_amagold{sfx} *const *", states), len(chains), out, len(chains))
    finally:
        for c in taken:
            c._lock.release()
    _check(st, where)
    return [_report_of(out[i]) for i in range(len(chains))]





class AMAGOLD(_Chain):
    """An AMAGOLD chain: ``energy(theta) -> float`` (full data), ``grad(theta, seed)``.

    ``AMAGOLD(energy, grad, theta0)`` is the recommended adaptive chain
    (``sgs_amagold_config_adaptive()``: a warm-up of 1000 iterations that first brings a far start
    in, then learns ε and a diagonal mass matrix; target acceptance 0.65). With ``step_size`` it
    starts from the paper's defaults at that ε instead (``sgs_amagold_config_default``: no
    warm-up, unit mass). Either way the options replace fields of ``sgs_amagold_config``:
    ``friction``, ``momentum_sd``, ``steps``, ``warmup``, ``target_accept``, ``seed``,
    ``stream``, ``variant`` (``"reversible"`` or ``"non_reversible"``), ``mass`` (``"unit"``,
    ``"diagonal"``, ``"dense"``; a warm-up of 1…19 iterations with a mass matrix is
    ``SGS_ERR_INVALID_WARMUP``), ``approach`` (``True``: the warm-up starts with the optimiser
    that brings far starts in), ``jitter_steps`` (``True``: T drawn from ⌈T/2⌉…⌊3T/2⌋ each
    iteration). ``adapt_mass=True`` is a deprecated alias of ``mass="diagonal"``.

    :meth:`run` returns every iteration's position, the warm-up's included (label them with
    ``warmup``; ``info.phase`` is the last one's phase). :attr:`step_size`,
    :attr:`inverse_mass` and :attr:`inverse_mass_dense` read and set what the warm-up learns
    (give a pilot's to a fresh chain with ``warmup=0``: its first draw is already exact);
    :meth:`warmup_report` says whether the warm-up ended in the typical set, and
    :func:`warmup_compare` compares several chains'.
    """

    _kind = "amagold"
    _has_energy = True
    _info_ctype = "sgs_amagold_info"
    INFO_DTYPE = _c_dtype("sgs_amagold_info")

    def __init__(self, energy, grad, theta0, step_size=None, **kw):
        _adapt_mass_alias(kw, "AMAGOLD", stacklevel=2)
        super().__init__(theta0, grad, energy, step_size=step_size, **kw)

    def _enums(self):
        return {"variant": {"reversible": header.defines["SGS_VARIANT_REVERSIBLE"],
                            "non_reversible": header.defines["SGS_VARIANT_NON_REVERSIBLE"]},
                "mass": {name: value for value, name in _MASS_NAMES.items()}}

    def _make_config(self, step_size, options):
        if step_size is None:  # the adaptive configuration
            return _config(self._kind, (), options, self._enums(),
                           default=lib.sgs_amagold_config_adaptive)
        return super()._make_config(step_size, options)

    def _workspace_len(self, d):
        # Sized for this configuration (mass matrix, approach): sgs_amagold_workspace_len_for.
        n = self._fn("workspace_len_for")(self._cfg, d)
        if n == ffi.cast("size_t", -1):
            raise _invalid(f"sgs_amagold_workspace_len_for{self._sfx}",
                           f"the workspace of a {_MASS_NAMES.get(self._cfg.mass)} mass matrix in "
                           f"{d} dimensions does not fit in memory")
        return n

    @property
    def mass(self):
        """The chain's mass matrix kind: ``"unit"``, ``"diagonal"`` or ``"dense"``."""
        return _MASS_NAMES.get(self._cfg.mass, str(self._cfg.mass))

    # -- getters and setters: each holds the sampler's lock around its one library call ------

    def _call(self, name, *args):
        where = f"sgs_amagold_{name}{self._sfx}"
        self._acquire(where)
        try:
            st = self._fn(name)(self._state, *args)
        finally:
            self._lock.release()
        if name == "set_inverse_mass_dense" and st == _STATUS["SGS_ERR_INVALID_MASS"]:
            # The library's text names only the matrix; it also refuses during a window.
            text = ffi.string(lib.sgs_status_str(st)).decode()
            raise InvalidInput(st, where, f"{text} (or a slow or final warm-up window is "
                               "collecting draws)")
        _check(st, where)

    def _matrix(self, value, shape, what, where):
        """``value`` as a C-contiguous array of this chain's dtype and exactly ``shape``."""
        where += self._sfx
        _no_complex(value, what, where)
        try:
            a = np.array(value, dtype=np.float64)
        except (TypeError, ValueError) as e:
            raise _invalid(where, f"{what} must be real numbers: {e}") from None
        if a.shape != shape:
            raise _invalid(where, f"{what} must have shape {shape}, got {a.shape}",
                           "SGS_ERR_LENGTH_MISMATCH")
        with np.errstate(over="ignore"):  # beyond float32's range: inf, which the library refuses
            return np.ascontiguousarray(a, dtype=self.dtype)

    @property
    def step_size(self):
        """The step size the next iteration uses (``sgs_amagold_step_size``; during the warm-up
        the one being adapted). Setting it (``sgs_amagold_set_step_size``) fixes ε for the next
        iterations, e.g. a pilot chain's on a fresh chain with ``warmup=0``; during a warm-up the
        dual averaging restarts from it. Not finite and positive: :class:`InvalidInput`
        ``SGS_ERR_INVALID_STEP_SIZE``."""
        out = ffi.new("double *")
        self._call("step_size", out)
        return out[0]

    @step_size.setter
    def step_size(self, value):
        where = f"sgs_amagold_set_step_size{self._sfx}"
        _no_complex(value, "step_size", where)
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                         np.floating)):
            raise _invalid(where, f"step_size must be a real number, got {value!r}")
        self._call("set_step_size", float(value))

    @property
    def inverse_mass(self):
        """The diagonal of the inverse mass matrix relative to σ⁻², shape ``(dim,)``
        (``sgs_amagold_inverse_mass``): with σ = 1 the posterior variances the warm-up
        estimates; ones for a unit-mass chain, the diagonal of the matrix for a dense one.

        Setting it (``sgs_amagold_set_inverse_mass``; ``mass="diagonal"`` or ``"dense"``, whose
        matrix becomes diagonal) takes ``dim`` positive finite values: another shape is
        :class:`InvalidInput` ``SGS_ERR_LENGTH_MISMATCH``, a value not positive and finite
        ``SGS_ERR_INVALID_MASS``, a unit-mass chain ``SGS_ERR_MASS_MISMATCH``."""
        out = np.empty(self.dim, self.dtype)
        self._call("inverse_mass", _ptr(self._ct, out), self.dim)
        return out

    @inverse_mass.setter
    def inverse_mass(self, value):
        k = self._matrix(value, (self.dim,), "inverse_mass", "sgs_amagold_set_inverse_mass")
        self._call("set_inverse_mass", _ptr(self._ct, k), k.size)

    @property
    def inverse_mass_dense(self):
        """The whole inverse mass matrix relative to σ⁻², shape ``(dim, dim)``
        (``sgs_amagold_inverse_mass_dense``): the identity, a diagonal matrix, or the dense
        one (the posterior covariance the warm-up estimates, with σ = 1).

        Setting it (``sgs_amagold_set_inverse_mass_dense``, ``mass="dense"`` only, else
        ``SGS_ERR_MASS_MISMATCH``) takes a symmetric positive definite ``(dim, dim)`` matrix:
        another shape is :class:`InvalidInput` ``SGS_ERR_LENGTH_MISMATCH``; NaN, asymmetry
        (beyond 1e-12 relative) or a matrix that is not positive definite
        ``SGS_ERR_INVALID_MASS``, as is setting it while a slow or final warm-up window collects
        draws."""
        out = np.empty((self.dim, self.dim), self.dtype)
        self._call("inverse_mass_dense", _ptr(self._ct, out), out.size)
        return out

    @inverse_mass_dense.setter
    def inverse_mass_dense(self, value):
        k = self._matrix(value, (self.dim, self.dim), "inverse_mass_dense",
                         "sgs_amagold_set_inverse_mass_dense")
        self._call("set_inverse_mass_dense", _ptr(self._ct, k), k.size)

    def warmup_report(self):
        """The warm-up's :class:`WarmupReport` (``sgs_amagold_warmup_report``): verdict
        ``"ok"`` or ``"suspect"`` (with its ``reasons``) once the warm-up is over, ``"running"``
        with the statistics so far while it runs, ``"none"`` without one. One chain cannot see
        that it disagrees with others: :func:`warmup_compare` compares several."""
        out = ffi.new("sgs_warmup_report *")
        self._call("warmup_report", out)
        return _report_of(out[0])

    # -- runs -------------------------------------------------------------------------------

    def _account(self, s):
        super()._account(s)
        if s.has_last:
            self.info.step_size = s.last.step_size
            self.info.phase = _PHASE_NAMES.get(s.last.phase, str(s.last.phase))

    @classmethod
    def _from_config(cls, callbacks, theta0, dtype, cfg):
        if len(callbacks) != 2:
            raise TypeError(f"AMAGOLD.restore needs two callbacks (energy, grad), got "
                            f"{len(callbacks)}")
        return cls(callbacks[0], callbacks[1], theta0, dtype=dtype, _config=cfg)

    def _warmup_iterations(self):
        return max(0, int(self._cfg.warmup) - self.info.iterations)

    @staticmethod
    def _sample_stats(infos):
        return {
            "diverging": infos["outcome"] == header.defines["SGS_OUTCOME_DIVERGENT"],
            "accepted": infos["accepted"].astype(bool),
            "acceptance_rate": _acceptance_rate(infos["log_accept"]),
            "step_size": infos["step_size"].copy(),
            "energy": infos["energy"].copy(),
            "lp": -infos["energy"],
            "n_steps": infos["steps"].astype(np.int64),
        }

    @staticmethod
    def _annotate(samplers, result):
        # sgsample.amagold(): each chain's learnt metric and warm-up report in its info, and the
        # chains' reports compared in result.warmup (when the run has a warm-up).
        for s in samplers:
            if s._cfg.mass != header.defines["SGS_MASS_UNIT"]:
                s.info.inverse_mass = s.inverse_mass
            if s._cfg.mass == header.defines["SGS_MASS_DENSE"]:
                s.info.inverse_mass_dense = s.inverse_mass_dense
            if s._cfg.warmup > 0:
                s.info.warmup_report = s.warmup_report()
        if any(s._cfg.warmup > 0 for s in samplers):
            try:
                result.warmup = warmup_compare(samplers)
            except Error as e:
                # The draws are not lost for want of a comparison (the library refuses more
                # chains per call than it can compare at once): each info keeps its own report.
                import warnings

                warnings.warn(f"the {len(samplers)} chains' warm-ups were not compared "
                              f"(result.warmup is None): {e}", RuntimeWarning, stacklevel=4)


def _adapt_mass_alias(kw, where, stacklevel):
    """Replaces the deprecated ``adapt_mass`` option in ``kw`` by ``mass`` (``True`` →
    ``"diagonal"``, ``False`` → ``"unit"``) with a :class:`DeprecationWarning`; another value, or
    a ``mass`` that says otherwise, is :class:`InvalidInput` ``SGS_ERR_INVALID_OPTION``."""
    if "adapt_mass" not in kw:
        return
    import warnings

    value = kw.pop("adapt_mass")
    warnings.warn("adapt_mass is deprecated: use mass='diagonal' (or mass='unit' for "
                  "adapt_mass=False)", DeprecationWarning, stacklevel=stacklevel + 1)
    if isinstance(value, (bool, np.bool_)) or (isinstance(value, (int, np.integer))
                                               and value in (0, 1)):
        mass = "diagonal" if value else "unit"
    else:
        raise _invalid(f"sgs_amagold_config ({where})", f"adapt_mass must be True or False, got "
                       f"{value!r}", "SGS_ERR_INVALID_OPTION")
    given = kw.get("mass", mass)
    if _MASS_NAMES.get(given, given) != mass:
        raise _invalid(f"sgs_amagold_config ({where})", f"adapt_mass={value!r} contradicts "
                       f"mass={given!r} (adapt_mass is a deprecated alias of mass='diagonal')",
                       "SGS_ERR_INVALID_OPTION")
    kw["mass"] = mass
