"""TunaMH: exact minibatch Metropolis–Hastings over per-term energy differences."""

import numpy as np

from . import _export
from ._chain import _acceptance_rate, _Chain
from ._lib import _c_dtype, _count, header
from ._runner import _config


class TunaMH(_Chain):
    """A TunaMH chain (Zhang, Cooper & De Sa, NeurIPS 2020): exact Metropolis–Hastings for
    ``π(θ) ∝ exp(−U₀(θ) − Σᵢ Uᵢ(θ))``, ``i < terms``, that asks for a random minibatch of the
    terms' energy differences per step instead of all ``terms`` (docs/algorithms.md §7).

    ``differences(theta, proposal, indices)`` returns ``Uᵢ(proposal) − Uᵢ(theta)`` for each
    ``i`` of ``indices`` (a uint64 array of up to 32 term indices below ``terms``, repeats
    possible) as an array of ``len(indices)`` floats; ``exact(theta, proposal)`` (optional)
    returns ``U₀(proposal) − U₀(theta)``, the part evaluated in full at every step (a prior).
    ``bound``: the c with ``|Uᵢ(θ′) − Uᵢ(θ)| ≤ c·‖θ′ − θ‖₂`` for every term and pair of points
    (e.g. ``max ‖xᵢ‖`` for a logistic regression's terms); a difference past it stops the run
    with :class:`Error` ``SGS_ERR_BOUND_EXCEEDED`` and the chain where it was, since the
    sampler is exact only under that bound. ``step_size``: the random-walk proposal's standard
    deviation σ (``θ′ = θ + σ·z``). ``chi``: the batch constant χ (a step asks for
    Poisson(χ·L² + L) differences, L = c·terms·‖θ′ − θ‖₂, or all ``terms`` when that mean
    reaches ``terms``). Raise :class:`OutOfDomain` in either callback to reject the proposal.

    :attr:`accepted` and :attr:`evaluations` (the term differences asked for: what a data
    budget counts) are the C library's counters since the chain was created; ``.info`` has
    the same totals (``info.evaluations``). ``run(..., info=True)`` gives each iteration's
    ``log_ratio``, ``evaluations``, ``kept``, ``full_pass``, ``accepted`` and ``outcome``.
    """

    _kind = "tunamh"
    _info_ctype = "sgs_tunamh_info"
    #: The numpy dtype of one iteration's C info record (``run(..., info=True)``).
    INFO_DTYPE = _c_dtype("sgs_tunamh_info")

    def __init__(self, differences, theta0, *, terms, bound, step_size, exact=None, **kw):
        if differences is None:
            # Caught here, not by the library's generic NULL_POINTER, to name the argument.
            raise TypeError("differences callback must be callable or sgsample.Raw, got None")
        super().__init__(theta0, differences, exact, step_size=step_size, terms=terms,
                         bound=bound, **kw)
        self.info.evaluations = 0

    def _slots(self, grad, energy):
        return {"exact_difference": energy, "differences": grad}

    def _enums(self):
        return {}

    def _make_config(self, step_size, options):
        options = dict(options)
        terms = _count(options.pop("terms"), "terms", "sgs_tunamh_config")
        return _config("tunamh", (step_size, terms, options.pop("bound")), options,
                       names=("step_size", "terms", "bound"))

    @classmethod
    def _from_config(cls, callbacks, theta0, dtype, cfg):
        differences, exact = callbacks
        return cls(differences, theta0, terms=cfg.terms, bound=cfg.bound, exact=exact,
                   dtype=dtype, step_size=cfg.step_size, _config=cfg)

    @classmethod
    def restore(cls, data, differences, exact=None, *, progress=None):
        """The chain :meth:`export` wrote, created with ``differences`` (and ``exact`` when the
        exported chain had one: giving it to a chain exported without one, or leaving it out,
        is a ``TypeError``, since either would sample another target) and put into the
        exported state by the C import (``sgs_tunamh_import``) in O(1): it continues bit for
        bit as the exported one would, with its ``.info`` totals and :attr:`evaluations`.
        Errors as for :meth:`AMAGOLD.restore`."""
        del progress
        chain = _export.restore(cls, data, (differences, exact))
        chain.info.evaluations = chain._locked_u64("evaluations")
        return chain

    @property
    def accepted(self):
        """Proposals accepted since the chain was created (``sgs_tunamh_accepted``)."""
        return self._locked_u64("accepted")

    @property
    def evaluations(self):
        """Term differences asked for since the chain was created (``sgs_tunamh_evaluations``:
        what a data budget counts)."""
        return self._locked_u64("evaluations")

    def _account(self, s):
        super()._account(s)
        # The C total, not a sum of the per-iteration records (which a run without info=True
        # does not read): called with the lock held, after every chunk.
        self.info.evaluations = self._u64("evaluations")

    @staticmethod
    def _sample_stats(infos):
        return {
            "diverging": infos["outcome"] == header.defines["SGS_OUTCOME_DIVERGENT"],
            "accepted": infos["accepted"].astype(bool),
            "acceptance_rate": _acceptance_rate(infos["log_ratio"]),
            "log_ratio": infos["log_ratio"].copy(),
            "evaluations": infos["evaluations"].astype(np.int64),
            "kept": infos["kept"].astype(np.int64),
            "full_pass": infos["full_pass"].astype(bool),
        }

