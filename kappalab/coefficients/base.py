"""The item-sum spine (DESIGN.md §1): a coefficient is ``combine(Σ_i item_stats_i)``.

Every estimator in kappalab is an :class:`ItemSumCoefficient` bound to its data:

* :meth:`~ItemSumCoefficient.item_stats` returns an items × s matrix (dense or scipy sparse) of
  per-item sufficient statistics;
* :meth:`~ItemSumCoefficient.totals` returns their sum over items (a faster direct reduction may
  override it, but must equal ``item_stats().sum(axis=0)``);
* :meth:`~ItemSumCoefficient.combine` maps totals to the coefficient's components. It accepts one
  vector of length s or a B × s stack (B resamples at once) and works row-wise, so resampling
  items is ``combine(W @ item_stats())`` for a B × items weight matrix ``W``.

Uncertainty, resampling and chunked reductions need only this protocol, never a particular
coefficient.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np
import scipy.sparse as sp

from ..errors import UndefinedCoefficientWarning, warn
from ..estimate import Estimate

__all__ = ["ItemSumCoefficient", "Components"]

Components = dict[str, np.ndarray]


class ItemSumCoefficient(ABC):
    """A coefficient written as a closed form of per-item sums."""

    #: display name of the coefficient, e.g. "Fleiss' kappa"
    name: str = "coefficient"
    #: what ``level`` to report (distance or weights name)
    level: str = "nominal"
    #: the largest value the coefficient can take (caps symmetric intervals), None if none
    upper_bound: float | None = 1.0

    @abstractmethod
    def item_stats(self) -> np.ndarray | sp.spmatrix:
        """Items × s matrix of per-item sufficient statistics."""

    def totals(self) -> np.ndarray:
        """Σ_i item_stats_i (length s)."""
        return np.asarray(self.item_stats().sum(axis=0), dtype=float).ravel()

    @abstractmethod
    def combine(self, totals: np.ndarray) -> Components:
        """Components from totals (shape (s,) or (B, s)), at least value/observed/expected."""

    def undefined_reason(self, parts: Components) -> str | None:
        """Why the coefficient is undefined on these data, or None."""
        return None

    def counts_used(self) -> dict[str, Any]:
        """n_items, n_annotations (and optionally n_raters) entering the estimate."""
        return {}

    def details(self) -> dict[str, Any]:
        return {}

    def estimate(self, ci: str | None = None, *, n_resamples: int = 2000,
                 confidence: float = 0.95, seed: Any = None) -> Estimate:
        """The coefficient on the data; with ``ci`` (a name of
        :data:`kappalab.uncertainty.CI_METHODS`: ``"analytic"``, ``"bootstrap"``,
        ``"bootstrap-bca"``, ``"bootstrap-basic"``, ``"bayesian-bootstrap"``,
        ``"jackknife"``) also its standard error and interval (:mod:`kappalab.uncertainty`)."""
        from ..uncertainty import interval, parse_ci

        if ci is not None:
            parse_ci(ci)  # reject an unknown name before any work
        parts = self.combine(self.totals())
        reason = self.undefined_reason(parts)
        if reason is not None:
            warn(f"{self.name} is undefined: {reason}; returning NaN",
                 UndefinedCoefficientWarning)
            parts = dict(parts, value=np.nan)
        se, bounds = None, None
        if ci is not None and reason is None:
            result = interval(self, ci, n_resamples=n_resamples, confidence=confidence,
                              seed=seed)
            se, bounds = result.se, (result.low, result.high)
        used = self.counts_used()
        return Estimate(
            coefficient=self.name,
            value=_scalar(parts["value"]),
            observed=_scalar(parts["observed"]),
            expected=_scalar(parts["expected"]),
            observed_disagreement=_optional(parts.get("observed_disagreement")),
            expected_disagreement=_optional(parts.get("expected_disagreement")),
            level=self.level,
            se=se,
            ci=bounds,
            details=self.details(),
            **used,
        )


def _scalar(x: Any) -> float:
    return float(np.asarray(x).reshape(-1)[0]) if np.size(x) else float("nan")


def _optional(x: Any) -> float | None:
    return None if x is None else _scalar(x)


def disagreement_components(d_o: np.ndarray, d_e: np.ndarray, scale: float) -> Components:
    """The components of a coefficient 1 − D_o/D_e (NaN where D_e ≤ 0), with the agreements
    P = 1 − D/scale beside the disagreements (see :mod:`kappalab.distances`)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        value = np.where(d_e > 0, 1.0 - d_o / np.where(d_e > 0, d_e, 1.0), np.nan)
    return {"value": value, "observed": 1.0 - d_o / scale, "expected": 1.0 - d_e / scale,
            "observed_disagreement": d_o, "expected_disagreement": d_e}


def interval_score_map(interval_factor: float, values: np.ndarray) -> tuple[float, float]:
    """(factor, shift) turning category values into the scores of an interval distance
    δ = (factor·(c − k))²; shifting by the midrange (δ is shift-invariant) keeps the moment
    differences m Σx² − (Σx)² free of cancellation."""
    return interval_factor, 0.5 * (values.min() + values.max())


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is 0 (no RuntimeWarning)."""
    numerator = np.asarray(numerator, dtype=float)
    denominator = np.asarray(denominator, dtype=float)
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out
