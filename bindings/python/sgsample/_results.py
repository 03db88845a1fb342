"""What the chain samplers return: :class:`RunInfo` and :class:`Result`."""

from dataclasses import dataclass, field
from typing import Optional

import numpy as np


# ---------------------------------------------------------------------------------------------
# Results


@dataclass
class RunInfo:
    """What a chain's runs did (totals since the sampler was created)."""

    sampler: str
    iterations: int = 0
    accepted: int = 0
    divergences: int = 0
    accept_rate: float = float("nan")
    step_size: Optional[float] = None
    seconds: float = 0.0
    ksd_squared: Optional[float] = None
    inverse_mass: Optional[np.ndarray] = None  # AMAGOLD with a mass matrix: its diagonal
    # AMAGOLD: the last iteration's phase ("sampling", "approach", "fast", "slow", "final"), and
    # from sgsample.amagold() the dense matrix (mass="dense") and the warm-up's own report.
    phase: Optional[str] = None
    inverse_mass_dense: Optional[np.ndarray] = None
    warmup_report: Optional["WarmupReport"] = None
    # The seed the sampler was made with (given, or fresh): pass it again to repeat the run.
    seed: Optional[int] = None
    # TunaMH: the term differences asked for (what a data budget counts); None for the others.
    evaluations: Optional[int] = None


@dataclass
class Result:
    """What :func:`amagold`, :func:`sghmc`, :func:`sgld` and :func:`tunamh` return.

    ``samples``: the post-warm-up draws, ``(chains, draws, dim)``. ``info``: one
    :class:`RunInfo` per chain (totals of the whole chain, warm-up included). ``seed``: the seed
    every chain was made with (chain c on stream ``stream + c``): given, or fresh, and always
    here so that the run can be repeated. ``sample_stats``: per draw, a dict of ``(chains,
    draws)`` arrays from each iteration's C info record (:func:`amagold`: ``diverging``,
    ``accepted``, ``acceptance_rate`` = min(1, e^log a), ``step_size``, ``energy`` (U at the
    chain's state), ``lp`` (−U), ``n_steps`` (inner steps); SGHMC/SGLD: ``diverging``;
    :func:`tunamh`: ``diverging``, ``accepted``, ``acceptance_rate``, ``log_ratio``,
    ``evaluations``, ``kept``, ``full_pass``); None
    with ``sample_stats=False``. ``warmup_samples`` / ``warmup_sample_stats``: the warm-up's
    draws and their stats, only with ``keep_warmup=True`` (else None). ``warmup``: for AMAGOLD
    runs with a warm-up, the chains' :class:`WarmupReport` compared (:func:`warmup_compare`),
    one per chain; else None."""

    samples: np.ndarray
    info: list = field(default_factory=list)
    warmup: Optional[list] = None
    seed: Optional[int] = None
    stream: int = 0
    sample_stats: Optional[dict] = None
    warmup_samples: Optional[np.ndarray] = None
    warmup_sample_stats: Optional[dict] = None

    def _attrs(self):
        sampler = self.info[0].sampler if self.info else None
        attrs = {"inference_library": "sgsample", "sampler": sampler, "seed": self.seed,
                 "stream": self.stream}
        return {k: v for k, v in attrs.items() if v is not None}

    def to_dict(self, var_name="theta"):
        """An ``arviz.from_dict``-compatible dict: ``posterior`` and per-draw ``sample_stats``
        (each ``(chains, draws)``), ``warmup_posterior`` and ``warmup_sample_stats`` when the
        warm-up was kept, and ``attrs`` (the seed, the sampler). Per-chain totals are in
        ``info``, not in ``sample_stats``, whose arrays all have a draw axis."""
        out = {"posterior": {var_name: self.samples}, "sample_stats": dict(self.sample_stats or {}),
               "attrs": self._attrs()}
        if self.warmup_samples is not None:
            out["warmup_posterior"] = {var_name: self.warmup_samples}
            out["warmup_sample_stats"] = dict(self.warmup_sample_stats or {})
        return out

    def to_arviz(self, var_name="theta"):
        """An ``arviz.InferenceData`` (needs ArviZ: ``pip install arviz``): the posterior, the
        per-draw ``sample_stats``, the warm-up in ``warmup_posterior`` / ``warmup_sample_stats``
        when it was kept (``keep_warmup=True``), and the seed in the attributes."""
        import arviz as az

        d = self.to_dict(var_name)
        kw = {"posterior": d["posterior"]}
        if d["sample_stats"]:
            kw["sample_stats"] = d["sample_stats"]
        if "warmup_posterior" in d:
            kw["warmup_posterior"] = d["warmup_posterior"]
            if d["warmup_sample_stats"]:
                kw["warmup_sample_stats"] = d["warmup_sample_stats"]
            kw["save_warmup"] = True
        idata = az.from_dict(**kw)
        for group in idata.groups():  # from_dict's attrs= does not reach the groups everywhere
            idata[group].attrs.update(d["attrs"])
        return idata


@dataclass
class Partial:
    """What a multi-chain call had made when it stopped (a callback's exception, Ctrl-C): the
    exception's ``.partial``. Per chain started, in order: ``samples[c]`` its post-warm-up draws
    ``(n_c, dim)`` (``n_c = draws`` for a chain that finished), ``warmup_samples[c]`` its
    warm-up draws so far, ``info[c]`` its exact totals, ``complete[c]`` whether it finished;
    chains not started are absent. ``seed``: to repeat the call."""

    samples: list
    info: list
    warmup_samples: list
    complete: list
    seed: Optional[int] = None
