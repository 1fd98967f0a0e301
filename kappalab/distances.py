r"""Squared distances δ²(c, k) between categories, and agreement weights.

Every coefficient that takes ``level=``, ``distance=`` or ``weights=`` resolves it here into one
:class:`Disagreement`: a K × K matrix ``δ`` (zero diagonal) and a ``scale`` that turns it into
agreement weights ``w = 1 − δ / scale``. Chance-corrected agreement written with weights,
:math:`(P_o − P_e)/(1 − P_e)`, and written with disagreements, :math:`1 − D_o/D_e`, are then the
same number, because :math:`P = 1 − D/\text{scale}`.

Krippendorff's metrics (Krippendorff 2011, *Computing Krippendorff's Alpha-Reliability*,
§ "difference functions"), for category values c, k and pairable marginal counts n_g:

* nominal:  δ² = 1[c ≠ k]
* ordinal:  δ² = (Σ_{g=c..k} n_g − (n_c + n_k)/2)²   (over the ordered categories)
* interval: δ² = (c − k)²
* ratio:    δ² = ((c − k)/(c + k))²
* circular: δ² = sin²(π (c − k)/U),  U = max − min + 1 unless given (the circle's period)
* bipolar:  δ² = (c − k)² / ((c + k − 2 c_min)(2 c_max − c − k))

Cohen's (1968) weights are agreement weights on the category values:
linear ``w = 1 − |c − k|/(max − min)``, quadratic ``w = 1 − (c − k)²/(max − min)²``.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Callable, Union

import numpy as np

from .errors import InvalidParameterError, NonNumericError

__all__ = [
    "LEVELS",
    "COHEN_WEIGHTS",
    "Disagreement",
    "nominal",
    "ordinal",
    "interval",
    "ratio",
    "circular",
    "bipolar",
    "linear_weights",
    "quadratic_weights",
    "resolve_distance",
    "resolve_weights",
]

LEVELS = ("nominal", "ordinal", "interval", "ratio", "circular", "bipolar")
COHEN_WEIGHTS = ("identity", "linear", "quadratic")

DistanceSpec = Union[str, np.ndarray, Callable[[np.ndarray, np.ndarray], np.ndarray]]


# a K × K matrix beyond this many categories is refused (≈ 3 GiB); interval data never need one
MAX_MATRIX_CATEGORIES = 20_000


class Disagreement:
    """A resolved distance: the K × K matrix δ (built when first needed), its scale, its name.

    ``interval_factor`` is set when δ is exactly ``(f·(c − k))²`` on the numeric category
    values c, k: estimators then use O(N) per-item moments and never build the K × K matrix,
    so continuous data with every value distinct cost one pass.
    """

    def __init__(self, name: str, scale: float, matrix: np.ndarray | None = None, *,
                 build: Callable[[], np.ndarray] | None = None, n_categories: int | None = None,
                 interval_factor: float | None = None):
        self.name = name
        self.scale = float(scale)
        self.interval_factor = interval_factor
        self._build = build
        self._n_categories = n_categories
        if matrix is not None:
            self.__dict__["matrix"] = matrix

    @cached_property
    def matrix(self) -> np.ndarray:
        if self._n_categories is not None and self._n_categories > MAX_MATRIX_CATEGORIES:
            raise InvalidParameterError(
                f"the {self.name} distance over {self._n_categories} distinct values would need "
                f"a {self._n_categories} × {self._n_categories} matrix; this coefficient has no "
                "O(N) form for it: bin the values, or use a coefficient with an interval moment "
                "form (Krippendorff's alpha, Fleiss, Conger/iota, percent agreement)"
            )
        return self._build()

    @property
    def weights(self) -> np.ndarray:
        """Agreement weights w = 1 − δ/scale."""
        return 1.0 - self.matrix / self.scale

    def __repr__(self) -> str:
        return f"Disagreement({self.name!r}, scale={self.scale:g})"


# ---------------------------------------------------------------------- Krippendorff's metrics
def nominal(n_categories: int) -> np.ndarray:
    """δ² = 1 for different categories, 0 for the same."""
    return 1.0 - np.eye(n_categories)


def ordinal(marginals: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal δ² from the pairable counts n_g of the ordered categories."""
    n = np.asarray(marginals, dtype=float)
    cumulative = np.concatenate([[0.0], np.cumsum(n)])
    # Σ_{g=c..k} n_g − (n_c + n_k)/2 for c ≤ k; symmetric
    c, k = np.meshgrid(np.arange(n.size), np.arange(n.size), indexing="ij")
    lo, hi = np.minimum(c, k), np.maximum(c, k)
    span = cumulative[hi + 1] - cumulative[lo] - (n[lo] + n[hi]) / 2.0
    return np.where(lo == hi, 0.0, span**2)


def interval(values: np.ndarray) -> np.ndarray:
    """δ² = (c − k)²."""
    v = np.asarray(values, dtype=float)
    return (v[:, None] - v[None, :]) ** 2


def ratio(values: np.ndarray) -> np.ndarray:
    """δ² = ((c − k)/(c + k))², 0 on the diagonal (also where c = k = 0)."""
    v = np.asarray(values, dtype=float)
    if (v < 0).any():
        raise InvalidParameterError(
            f"the ratio metric needs non-negative values; the smallest is {v.min():g}"
        )
    total = v[:, None] + v[None, :]
    diff = v[:, None] - v[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total > 0, (diff / np.where(total > 0, total, 1.0)) ** 2, 0.0)
    return out


def circular(values: np.ndarray, period: float | None = None) -> np.ndarray:
    """δ² = sin²(π (c − k)/U); U = max − min + 1 (e.g. 7 for the days 1..7) unless given."""
    v = np.asarray(values, dtype=float)
    U = (v.max() - v.min() + 1.0) if period is None else float(period)
    if not U > 0:
        raise InvalidParameterError(f"the circular period must be positive, got {U}")
    return np.sin(np.pi * (v[:, None] - v[None, :]) / U) ** 2


def bipolar(values: np.ndarray) -> np.ndarray:
    """δ² = (c − k)² / ((c + k − 2 c_min)(2 c_max − c − k)), 0 on the diagonal."""
    v = np.asarray(values, dtype=float)
    lo, hi = v.min(), v.max()
    c, k = v[:, None], v[None, :]
    denominator = (c + k - 2 * lo) * (2 * hi - c - k)
    # the denominator vanishes only on the diagonal (c = k = min or c = k = max)
    safe = np.where(denominator > 0, denominator, 1.0)
    return np.where(c != k, (c - k) ** 2 / safe, 0.0)


# ---------------------------------------------------------------------- Cohen's weights
def linear_weights(values: np.ndarray) -> np.ndarray:
    """Cohen's linear agreement weights, 1 − |c − k|/(max − min)."""
    v = np.asarray(values, dtype=float)
    span = v.max() - v.min()
    return 1.0 - np.abs(v[:, None] - v[None, :]) / (span if span > 0 else 1.0)


def quadratic_weights(values: np.ndarray) -> np.ndarray:
    """Cohen's quadratic agreement weights, 1 − (c − k)²/(max − min)²."""
    v = np.asarray(values, dtype=float)
    span = v.max() - v.min()
    return 1.0 - (v[:, None] - v[None, :]) ** 2 / (span**2 if span > 0 else 1.0)


# ---------------------------------------------------------------------- resolution
def resolve_distance(
    spec: DistanceSpec,
    categories: Any,
    *,
    values: Callable[[str], np.ndarray],
    marginals: Callable[[], np.ndarray] | None = None,
) -> Disagreement:
    """Turn ``level=`` / ``distance=`` into a :class:`Disagreement`.

    ``spec`` is a level name (:data:`LEVELS`), a K × K matrix of squared distances (zero
    diagonal, non-negative), or a callable ``f(a, b)`` returning δ² element-wise for arrays of
    category values. ``values(purpose)`` returns the numeric category values (raising
    :class:`~kappalab.errors.NonNumericError` when they are not numbers) and ``marginals()``
    the pairable counts per category (for the ordinal metric).
    """
    K = len(categories)
    if spec is None:
        raise InvalidParameterError(
            f"no level given; choose one of {', '.join(LEVELS)}, or pass a K × K distance "
            "matrix or a callable"
        )
    if isinstance(spec, str):
        level = spec.lower()
        if level == "nominal":
            return Disagreement(level, 1.0, build=lambda: nominal(K))
        if level == "ordinal":
            if marginals is None:
                raise InvalidParameterError("the ordinal metric needs the pairable marginals")
            _refuse_large(level, K)
            return _finish(ordinal(marginals()), level)
        if level == "interval":
            v = values("the interval metric")
            span = v.max() - v.min()
            return Disagreement(level, span**2 if span > 0 else 1.0, build=lambda: interval(v),
                                n_categories=K, interval_factor=1.0)
        if level in ("ratio", "circular", "bipolar"):
            v = values(f"the {level} metric")
            _refuse_large(level, K)
            builder = {"ratio": ratio, "circular": circular, "bipolar": bipolar}[level]
            return _finish(builder(v), level)
        raise InvalidParameterError(
            f"unknown level {spec!r}; choose one of {', '.join(LEVELS)}, or pass a K × K "
            "distance matrix or a callable"
        )
    _refuse_large("custom", K)
    if callable(spec):
        matrix = _evaluate(spec, categories, "distance")
        return _finish(_check_distance_matrix(matrix, K),
                       f"custom ({getattr(spec, '__name__', 'callable')})")
    matrix = _as_square(spec, K, "distance")
    return _finish(_check_distance_matrix(matrix, K), "custom")


def resolve_weights(
    spec: Any,
    categories: Any,
    *,
    values: Callable[[str], np.ndarray],
    marginals: Callable[[], np.ndarray] | None = None,
) -> Disagreement:
    """Turn ``weights=`` of the kappa family into a :class:`Disagreement` (δ = scale·(1 − w)).

    ``None`` or ``"identity"``: unweighted; ``"linear"``, ``"quadratic"``: Cohen (1968) on
    the category values; any Krippendorff level name: ``w = 1 − δ/max δ``; a K × K matrix of
    agreement weights (diagonal 1, entries in [0, 1]); or a callable ``w(a, b)``.
    """
    K = len(categories)
    if spec is None or (isinstance(spec, str) and spec.lower() in ("identity", "unweighted")):
        return Disagreement("nominal", 1.0, build=lambda: nominal(K))
    if isinstance(spec, str):
        kind = spec.lower()
        if kind == "quadratic":  # 1 − w = ((c − k)/span)²: an interval distance
            v = values("quadratic weights")
            span = v.max() - v.min()
            return Disagreement(kind, 1.0, build=lambda: 1.0 - quadratic_weights(v),
                                n_categories=K, interval_factor=1.0 / span if span > 0 else 1.0)
        if kind == "linear":
            v = values("linear weights")
            _refuse_large(kind, K)
            return Disagreement(kind, 1.0, 1.0 - linear_weights(v))
        if kind in LEVELS:
            return resolve_distance(kind, categories, values=values, marginals=marginals)
        raise InvalidParameterError(
            f"unknown weights {spec!r}; choose one of {', '.join(COHEN_WEIGHTS + LEVELS)}, "
            "or pass a K × K weight matrix or a callable"
        )
    _refuse_large("custom", K)
    w = _evaluate(spec, categories, "weights") if callable(spec) else _as_square(spec, K, "weight")
    if not np.allclose(np.diag(w), 1.0) or (w < 0).any() or (w > 1).any():
        raise InvalidParameterError(
            "agreement weights need 1 on the diagonal and entries in [0, 1]; "
            f"got diagonal {np.round(np.diag(w), 3).tolist()} and range "
            f"[{w.min():g}, {w.max():g}]"
        )
    return Disagreement("custom", 1.0, 1.0 - w)


def _finish(matrix: np.ndarray, name: str) -> Disagreement:
    largest = float(matrix.max()) if matrix.size else 0.0
    return Disagreement(name, largest if largest > 0 else 1.0, matrix)


def _refuse_large(name: str, K: int) -> None:
    if K > MAX_MATRIX_CATEGORIES:
        Disagreement(name, 1.0, n_categories=K).matrix  # raises the explanatory error


def _evaluate(function: Callable, categories: Any, what: str) -> np.ndarray:
    """A user's element-wise callable on every pair of categories, as a K × K float matrix."""
    v = np.asarray(list(categories))
    v = v.astype(float) if v.dtype.kind in "biuf" else v
    K = v.size
    try:
        matrix = np.asarray(function(v[:, None], v[None, :]), dtype=float)
        return np.broadcast_to(matrix, (K, K)).copy()
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"the {what} callable failed on the categories: {exc}")


def _as_square(spec: Any, K: int, what: str) -> np.ndarray:
    try:
        matrix = np.asarray(spec, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"the {what} matrix must be numeric")
    if matrix.shape != (K, K):
        raise InvalidParameterError(
            f"the {what} matrix must be {K} × {K} (one row and column per category), "
            f"got shape {matrix.shape}"
        )
    if not np.isfinite(matrix).all():
        raise InvalidParameterError(f"the {what} matrix has NaN or infinite entries")
    return matrix


def _check_distance_matrix(matrix: np.ndarray, K: int) -> np.ndarray:
    if not np.isfinite(matrix).all():
        raise InvalidParameterError("the distance matrix has NaN or infinite entries")
    if (matrix < 0).any() or not np.allclose(np.diag(matrix), 0.0):
        raise InvalidParameterError(
            "squared distances must be non-negative with a zero diagonal"
        )
    return matrix
