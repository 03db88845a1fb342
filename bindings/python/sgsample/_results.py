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


@dataclass
class Result:
    """Samples ``(chains, draws, dim)`` and one :class:`RunInfo` per chain.

    ``warmup``: for AMAGOLD runs with a warm-up, the chains' :class:`WarmupReport` compared
    (:func:`warmup_compare`), one per chain; else None."""

    samples: np.ndarray
    info: list = field(default_factory=list)
    warmup: Optional[list] = None

    def to_dict(self, var_name="theta"):
        """An ``arviz.from_dict``-compatible dict: posterior and sample_stats per chain."""
        stats = {k: np.array([[getattr(i, k)] for i in self.info], dtype=float)
                 for k in ("accept_rate", "divergences")}
        return {"posterior": {var_name: self.samples}, "sample_stats": stats}

    def to_arviz(self, var_name="theta"):
        """An ``arviz.InferenceData`` (needs ArviZ: ``pip install arviz``)."""
        import arviz as az

        return az.from_dict(posterior={var_name: self.samples})
