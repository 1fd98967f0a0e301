r"""Resampling intervals on the item-sum spine: bootstrap, Bayesian bootstrap, jackknife.

Every coefficient is ``combine(Σ_i s_i)`` (:mod:`kappalab.coefficients.base`), so resampling
items is reweighting the rows of the items × s statistics matrix S:

* item bootstrap (Efron 1979): totals ``W @ S`` with W the B × n multinomial counts of
  n draws with replacement;
* Bayesian bootstrap (Rubin 1981): W = n · Dirichlet(1, …, 1) weights;
* jackknife: leave-one-item-out totals ``T − s_i`` for every item at once.

Replicates are computed in blocks of matrix products — no Python loop over replicates or
items — and the coefficient's own ``combine`` maps the B × s stack to B values. For κx the
rows are the items common to both replications, so items are drawn in pairs across the two
sides.

Intervals: ``percentile`` (the α/2 and 1 − α/2 quantiles of the replicates), ``basic``
(2θ̂ − those quantiles) and ``bca`` (bias-corrected and accelerated, Efron 1987; the
acceleration from the jackknife). The standard error is the replicates' standard deviation
(jackknife: √((n−1)/n · Σ (θ_(i) − θ̄)²)).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtr, ndtri

from .errors import InvalidParameterError

__all__ = ["Interval", "replicate_values", "resampling_interval", "resampling_method", "METHODS"]

METHODS = ("bootstrap", "bayesian-bootstrap", "jackknife")
INTERVALS = ("percentile", "basic", "bca")
_BLOCK_CELLS = 4_000_000  # replicate rows per block × items: bounds the weight matrix memory


@dataclass(frozen=True)
class Interval:
    """A resampling standard error and confidence interval."""

    se: float
    low: float
    high: float
    method: str
    interval: str
    n_resamples: int
    confidence: float


def resampling_method(ci: str) -> str:
    """The resampling method named by an estimator's ``ci=``; a clear error otherwise."""
    if ci in METHODS:
        return ci
    if ci == "analytic":
        raise InvalidParameterError(
            "analytic standard errors are not available yet; use ci='bootstrap', "
            "'bayesian-bootstrap' or 'jackknife'")
    raise InvalidParameterError(
        f"unknown ci {ci!r}; choose one of {', '.join(METHODS)}")


def _rng(seed: Any) -> np.random.Generator:
    return seed if isinstance(seed, np.random.Generator) else np.random.default_rng(seed)


def _value(core, totals: np.ndarray) -> np.ndarray:
    return np.asarray(core.combine(totals)["value"], dtype=float)


def replicate_values(core, method: str = "bootstrap", n_resamples: int = 2000,
                     seed: Any = None) -> np.ndarray:
    """Coefficient values of resampled item sets: B values (jackknife: one per item)."""
    if method not in METHODS:
        raise InvalidParameterError(f"unknown resampling method {method!r}; choose one of "
                                    f"{', '.join(METHODS)}")
    stats = core.item_stats()
    stats = stats.tocsr() if sp.issparse(stats) else np.asarray(stats, dtype=float)
    n_items = stats.shape[0]
    if n_items < 2:
        raise InvalidParameterError("resampling needs at least two items")
    if method == "jackknife":
        total = np.asarray(stats.sum(axis=0), dtype=float).ravel()
        dense = stats.toarray() if sp.issparse(stats) else stats
        return _value(core, total[None, :] - dense)
    if int(n_resamples) < 2:
        raise InvalidParameterError(f"n_resamples must be at least 2, got {n_resamples}")
    rng = _rng(seed)
    block = max(1, _BLOCK_CELLS // n_items)
    values = []
    for start in range(0, int(n_resamples), block):
        b = min(block, int(n_resamples) - start)
        if method == "bootstrap":
            draws = rng.integers(0, n_items, size=(b, n_items))
            keys = (np.arange(b)[:, None] * n_items + draws).ravel()
            weights = np.bincount(keys, minlength=b * n_items).reshape(b, n_items)
            weights = weights.astype(float)
        else:  # Bayesian bootstrap: Dirichlet(1, …, 1) weights scaled to sum to n
            weights = rng.standard_exponential((b, n_items))
            weights *= n_items / weights.sum(axis=1, keepdims=True)
        totals = (stats.T @ weights.T).T if sp.issparse(stats) else weights @ stats
        values.append(_value(core, np.asarray(totals)))
    return np.concatenate(values)


def resampling_interval(core, method: str = "bootstrap", *, interval: str = "percentile",
                        n_resamples: int = 2000, confidence: float = 0.95,
                        seed: Any = None) -> Interval:
    """Standard error and confidence interval of ``core``'s coefficient by resampling items."""
    if not 0 < confidence < 1:
        raise InvalidParameterError(f"confidence must be in (0, 1), got {confidence}")
    if interval not in INTERVALS:
        raise InvalidParameterError(f"unknown interval {interval!r}; choose one of "
                                    f"{', '.join(INTERVALS)}")
    estimate = float(_value(core, core.totals()).reshape(-1)[0])
    replicates = replicate_values(core, method, n_resamples, seed)
    replicates = replicates[np.isfinite(replicates)]
    tail = (1 - confidence) / 2
    if replicates.size < 2:
        return Interval(np.nan, np.nan, np.nan, method, interval, int(n_resamples), confidence)
    if method == "jackknife":
        n = replicates.size
        se = float(np.sqrt((n - 1) / n * ((replicates - replicates.mean()) ** 2).sum()))
        z = float(ndtri(1 - tail))
        return Interval(se, estimate - z * se, estimate + z * se, method, "normal", n,
                        confidence)
    se = float(replicates.std(ddof=1))
    if interval == "percentile":
        low, high = np.quantile(replicates, [tail, 1 - tail])
    elif interval == "basic":
        q_low, q_high = np.quantile(replicates, [tail, 1 - tail])
        low, high = 2 * estimate - q_high, 2 * estimate - q_low
    else:
        low, high = _bca(core, estimate, replicates, tail)
    return Interval(se, float(low), float(high), method, interval, int(n_resamples), confidence)


def _bca(core, estimate: float, replicates: np.ndarray, tail: float) -> tuple[float, float]:
    """Efron's (1987) bias-corrected and accelerated percentile interval."""
    below = (replicates < estimate).mean() + 0.5 * (replicates == estimate).mean()
    z0 = float(ndtri(np.clip(below, 1e-12, 1 - 1e-12)))
    jack = replicate_values(core, "jackknife")
    jack = jack[np.isfinite(jack)]
    centred = jack.mean() - jack
    denominator = 6.0 * (centred ** 2).sum() ** 1.5
    acceleration = float((centred ** 3).sum() / denominator) if denominator > 0 else 0.0
    quantiles = []
    for z_alpha in (ndtri(tail), ndtri(1 - tail)):
        adjusted = z0 + (z0 + z_alpha) / (1 - acceleration * (z0 + z_alpha))
        quantiles.append(float(ndtr(adjusted)))
    low, high = np.quantile(replicates, quantiles)
    return float(low), float(high)
