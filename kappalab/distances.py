r"""Squared distances δ²(c, k) between categories, and agreement weights.

Every coefficient that takes ``level=``, ``distance=`` or ``weights=`` resolves it through one
function, :func:`category_distance`, into one :class:`CategoryDistance`: a K × K matrix ``δ``
(zero diagonal) and a ``scale`` that turns it into agreement weights ``w = 1 − δ / scale``.
Chance-corrected agreement written with weights, :math:`(P_o − P_e)/(1 − P_e)`, and written with
disagreements, :math:`1 − D_o/D_e`, are then the same number, because
:math:`P = 1 − D/\text{scale}`.

Two vocabularies (``kind="level"`` and ``kind="weights"`` of :func:`category_distance`, read in
one table), one meaning per word in each:

``level=`` (Krippendorff's α, Janson–Olsson's ι, κx) takes Krippendorff's metrics
(Krippendorff 2011, *Computing Krippendorff's Alpha-Reliability*, § "difference functions"),
for category values c, k and pairable marginal counts n_g:

* nominal:  δ² = 1[c ≠ k]
* ordinal:  δ² = (Σ_{g=c..k} n_g − (n_c + n_k)/2)²   (over the ordered categories)
* interval: δ² = (c − k)²
* ratio:    δ² = ((c − k)/(c + k))²
* circular: δ² = sin²(π (c − k)/U),  U = max − min + 1 unless given (the circle's period)
* bipolar:  δ² = (c − k)² / ((c + k − 2 c_min)(2 c_max − c − k))

and, for set-valued (multi-label) annotations, whose categories are sets of labels A, B:

* masi:     δ² = 1 − J·M, J = \|A ∩ B|/\|A ∪ B| (Jaccard), M = 1 if A = B, 2/3 if one is a
  subset of the other, 1/3 if they intersect otherwise, 0 if they are disjoint
  (Passonneau 2006)
* jaccard:  δ² = 1 − J = \|A Δ B|/\|A ∪ B|

The set distances are used as they are for δ² — the disagreement of a pair — as nltk's
``AnnotationTask(distance=masi_distance).alpha()`` uses them and as Passonneau (2006) computes
α with MASI; they are not squared. Both are in [0, 1] with scale 1, so under ``weights=``
(``"masi"``, ``"jaccard"``) the agreement weight of two sets is w = 1 − δ² (= J·M, = J). Two
empty sets are the same set (δ² = 0); the empty set and a non-empty one have J = 0 (δ² = 1).

``weights=`` (the kappa family: Fleiss, Conger, Gwet, Brennan–Prediger, percent agreement,
Cohen, Scott, Bennett, Light) takes Gwet's agreement weights (Gwet 2014, *Handbook of
Inter-Rater Reliability*, 4th ed., ch. 3; the definitions of AgreeStat and of irrCAC), on
the K categories in their order, with values x_1 < … < x_K, x_min = x_1, x_max = x_K:

* identity:  w_kl = 1[k = l]                                    (unweighted)
* ordinal:   w_kl = 1 − C(\|k − l| + 1, 2) / C(K, 2)                  (ranks k, l only)
* linear:    w_kl = 1 − \|x_k − x_l| / (x_max − x_min)
* quadratic: w_kl = 1 − (x_k − x_l)² / (x_max − x_min)²
* radical:   w_kl = 1 − √\|x_k − x_l| / √(x_max − x_min)
* ratio:     w_kl = 1 − ((x_k − x_l)/(x_k + x_l))² / ((x_max − x_min)/(x_max + x_min))²
* circular:  w_kl = 1 − sin²(π (x_k − x_l)/U) / max_{k,l} sin²(π (x_k − x_l)/U),
  U = x_max − x_min + 1
* bipolar:   w_kl = 1 − b_kl / max b,  b_kk = 0,
  b_kl = (x_k − x_l)² / ((x_k + x_l − 2 x_min)(2 x_max − x_k − x_l))

C(n, 2) = n(n − 1)/2. ``"ordinal"`` thus means Krippendorff's data-dependent metric under
``level=`` and Gwet's rank-based weights under ``weights=``; ratio, circular and bipolar weights
are Krippendorff's metrics scaled by their largest value, quadratic weights are the interval
metric scaled by (x_max − x_min)², and the identity weights are the nominal metric, so
``weights="nominal"`` and ``weights="interval"`` are accepted as the same weights as
``"identity"`` and ``"quadratic"``. Cohen's (1968) linear and quadratic weights are Gwet's.

Category values: the value-based weights (linear, quadratic, radical, ratio, circular, bipolar)
use the numeric category values (an unused category listed in ``categories=`` counts, e.g. for
x_max), and refuse non-numeric categories (:class:`~kappalab.errors.NonNumericError`: map them to
numbers first). irrCAC instead silently uses the ranks 1..K when any category is not a Python
``int``/``float`` (labels, but also NumPy integers). The ordinal weights use only the position
of each category in the ordered categories, so they work on labels too. irrCAC refuses a
category 0 for ratio weights; here the diagonal cell of 0 (0/0) is w = 1, and the formula
gives w = 0 between 0 and any other value. The default everywhere is ``weights=None``
(identity).

Custom weights: a K × K matrix W (diagonal 1, entries in [0, 1]) or a callable ``w(a, b)``.
An asymmetric W (w_kl ≠ w_lk) has a meaning only for two raters in a given order: the
two-rater coefficients (Cohen, Scott, Bennett) apply Σ_kl w_kl T_kl with T_kl the items rater 1
put in k and rater 2 in l; every other coefficient refuses it
(:meth:`CategoryDistance.require_symmetric`) rather than silently use (W + Wᵀ)/2.

References: Passonneau, R. J. (2006). Measuring Agreement on Set-valued Items (MASI) for
Semantic and Pragmatic Annotation. *Proceedings of LREC 2006*, 831–836.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, NamedTuple, Sequence, TypeAlias

import numpy as np
import pandas as pd

from .encoding import exact_as_float
from .errors import InvalidParameterError, label
from .validation import check_count, check_real

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from .kernels import sp

__all__ = [
    "LEVELS",
    "WEIGHTS",
    "SET_DISTANCES",
    "COHEN_WEIGHTS",
    "KINDS",
    "CategoryDistance",
    "DistanceSpec",
    "category_distance",
    "nominal",
    "ordinal",
    "mid_ranks",
    "interval",
    "ratio",
    "circular",
    "bipolar",
    "masi",
    "jaccard",
    "ordinal_weights",
    "linear_weights",
    "quadratic_weights",
    "radical_weights",
]

#: what ``kind=`` of :func:`category_distance` takes: the vocabulary ``spec`` is read in
KINDS = ("level", "weights")

#: what ``level=``, ``weights=`` and ``distance=`` take (:func:`category_distance`): a name
#: (``"interval"``, ``"quadratic"``, …), a K × K matrix (an array or nested sequences of
#: numbers: squared distances as a level, agreement weights as weights), a callable ``f(a, b)``
#: evaluated element-wise on arrays of category values, or ``None`` (unweighted, as weights;
#: refused as a level)
DistanceSpec: TypeAlias = (str | np.ndarray | Sequence[Sequence[float]]
                           | Callable[[np.ndarray, np.ndarray], np.ndarray] | None)


#: a K × K matrix beyond this many categories is refused before it is built (0.5 GiB of
#: float64, a few times that at its peak while built); interval-form distances never need one
MAX_MATRIX_CATEGORIES = 8_192

# |w_kl − w_lk| up to this is rounding: the matrix counts as symmetric
SYMMETRY_TOLERANCE = 1e-12


class CategoryDistance:
    r"""The distance between categories a coefficient uses, as :func:`category_distance`
    resolves it: the K × K matrix δ (zero diagonal, built when first needed), its ``scale``,
    and the agreement weights ``w = 1 − δ/scale`` (:attr:`~CategoryDistance.weights`).

    Parameters
    ----------
    name : str
        The level or weights name, reported as the estimate's ``level``.
    scale : float
        δ / scale is the disagreement on the 0–1 scale of the weights.
    matrix : ndarray, optional
        The K × K matrix δ, when it is already built; otherwise ``build`` makes it when first
        needed.
    kind : {"level", "weights"}, default "level"
        The vocabulary it was resolved from (:data:`KINDS`).
    description : str, optional
        What it is, in words (default: ``f"{kind} {name!r}"``).
    build : callable, optional
        ``build()`` returns δ, called once, the first time :attr:`matrix` is read (when no
        ``matrix`` is given).
    n_categories : int or callable, optional
        K (or a function that counts them, called only when the matrix is built), given with
        ``build`` so that a matrix above ``MAX_MATRIX_CATEGORIES`` categories is refused
        before it is built.
    interval_factor : float, optional
        f, when δ = ``(f·(s_c − s_k))²``; given together with ``scores``.
    scores : array-like or callable, optional
        The per-category positions s of the interval form (or a function that makes them,
        called when they are first read); given together with ``interval_factor``.
    score_range : tuple of float, optional
        (min s, max s), when known without the scores (default: read from them).
    scores_are_values : bool, default False
        Whether the scores are the numeric category values themselves (the interval metric,
        quadratic weights), so that moments can be read from the annotations' values
        (:attr:`moment_scores` is then None).
    asymmetry : float, default 0.0
        max_kl \|δ_kl − δ_lk| / scale (0 for a symmetric δ).
    data_dependent : bool, default False
        Whether δ was built from the marginals of the data it was resolved on
        (Krippendorff's ordinal metric), so that it changes with the data compared.

    Raises
    ------
    InvalidParameterError
        If only one of ``interval_factor`` and ``scores`` is given, or ``kind`` is not one of
        :data:`KINDS`; reading :attr:`matrix` raises it when δ would have more than
        ``MAX_MATRIX_CATEGORIES`` categories.

    Attributes
    ----------
    name : str
        What the coefficient's estimate reports as its ``level``: the level or weights name
        (``"nominal"`` for the identity weights, ``"custom"`` for a matrix).
    kind : {"level", "weights"}
        The vocabulary it was resolved from (Krippendorff's metrics or Gwet's weights).
    description : str
        What it is, in words (e.g. "Krippendorff's ordinal metric, …").
    scale : float
        δ / scale is the disagreement on the 0–1 scale of the weights.
    interval_factor, scores : float and array, or None
        Set when δ is exactly ``(f·(s_c − s_k))²`` for per-category positions s: the numeric
        category values for the interval metric and quadratic weights, the mid-ranks of the
        pairable marginals for Krippendorff's ordinal metric. Estimators then use O(N)
        per-item moments and products δv in O(K), and never build the K × K matrix, so
        continuous data with every value distinct cost one pass. (The scores of the interval
        metric and quadratic weights are made only when read: the moments need only
        :attr:`score_range` and the annotations' values.)
    score_range : tuple of float or None
        (min s, max s) of an interval form, None otherwise.
    moment_scores : array or None
        The positions to read per-item moments on: None when they are the category values
        themselves (the annotations' own values then serve), else :attr:`scores`.
    asymmetry : float
        max_kl \|δ_kl − δ_lk| / scale = max_kl \|w_kl − w_lk| (0 for every named metric and
        weight; only a custom matrix or callable can be asymmetric).
    data_dependent : bool
        Whether δ depends on the marginals of the data it was resolved on (True for
        Krippendorff's ordinal metric, whose positions are the mid-ranks of the pairable
        counts): on other data, e.g. a panel less one rater, it must be resolved again.

    Examples
    --------
    >>> nominal_weights = CategoryDistance("nominal", 1.0, 1.0 - np.eye(2), kind="weights")
    >>> nominal_weights
    CategoryDistance('nominal', kind='weights', scale=1)
    >>> nominal_weights.weights.tolist()  # w = 1 − δ/1
    [[1.0, 0.0], [0.0, 1.0]]
    >>> quadratic = CategoryDistance("interval", 4.0, np.array([[0.0, 4.0], [4.0, 0.0]]))
    >>> quadratic.weights[0].tolist(), quadratic.symmetric  # w = 1 − 4/4 = 0 off the diagonal
    ([1.0, 0.0], True)
    """

    def __init__(self, name: str, scale: float, matrix: np.ndarray | None = None, *,
                 kind: str = "level", description: str | None = None,
                 build: Callable[[], np.ndarray] | None = None,
                 n_categories: int | Callable[[], int] | None = None,
                 interval_factor: float | None = None,
                 scores: np.ndarray | Callable[[], np.ndarray] | None = None,
                 score_range: tuple[float, float] | None = None, scores_are_values: bool = False,
                 asymmetry: float = 0.0, data_dependent: bool = False):
        if (interval_factor is None) != (scores is None):
            raise InvalidParameterError("an interval-form distance needs both its factor and "
                                        "its per-category scores")
        if kind not in KINDS:
            raise InvalidParameterError(f"unknown kind {kind!r}; choose one of "
                                        f"{', '.join(KINDS)}")
        self.name = name
        self.kind = kind
        self.description = description if description is not None else f"{kind} {name!r}"
        self.scale = float(scale)
        self.interval_factor = interval_factor
        if scores is None or not callable(scores):
            self.__dict__["scores"] = None if scores is None else np.asarray(scores, dtype=float)
        self._make_scores = scores if callable(scores) else None
        self._score_range = score_range
        self._scores_are_values = bool(scores_are_values) and scores is not None
        self.asymmetry = float(asymmetry)
        self._data_dependent = bool(data_dependent)
        self._build = build
        self._n_categories = n_categories
        if matrix is not None:
            self.__dict__["matrix"] = matrix

    @cached_property
    def scores(self) -> np.ndarray | None:
        """The per-category positions s of an interval form (None otherwise), made when first
        read."""
        assert self._make_scores is not None, "scores are given or made"
        return np.asarray(self._make_scores(), dtype=float)

    @property
    def score_range(self) -> tuple[float, float] | None:
        """(min s, max s) of the scores of an interval form, without making the scores when
        they were resolved with their extremes; None for other distances."""
        if self.interval_factor is None:
            return None
        if self._score_range is None:
            scores = self.scores
            assert scores is not None, "an interval form has scores"
            self._score_range = (float(scores.min()), float(scores.max()))
        return self._score_range

    @property
    def moment_scores(self) -> np.ndarray | None:
        """The positions to give ``Annotations.item_moments``: None when they are the category
        values themselves (moments of a store of float values are then read from the values,
        without categories), else :attr:`scores`."""
        return None if self._scores_are_values else self.scores

    @cached_property
    def matrix(self) -> np.ndarray:
        if self._n_categories is not None:
            _refuse_large(self.name, self._n_categories() if callable(self._n_categories)
                          else self._n_categories)
        assert self._build is not None, "a CategoryDistance is built with a matrix or a build"
        return self._build()

    @property
    def weights(self) -> np.ndarray:
        """Agreement weights w = 1 − δ/scale."""
        return 1.0 - self.matrix / self.scale

    @property
    def data_dependent(self) -> bool:
        """Whether δ rests on the marginals of the data it was resolved on (Krippendorff's
        ordinal metric): data with other marginals need it resolved again."""
        return self._data_dependent

    @property
    def symmetric(self) -> bool:
        """Whether δ_kl = δ_lk (up to rounding, ``SYMMETRY_TOLERANCE``)."""
        return self.asymmetry <= SYMMETRY_TOLERANCE

    def require_symmetric(self, coefficient: str) -> None:
        """Refuse an asymmetric matrix for a coefficient without a rater order.

        Such a coefficient sums δ over the unordered pairs of an item's annotations (and over
        rater pairs in both orders), which is the symmetrised (δ + δᵀ)/2: an asymmetric matrix
        would be silently replaced by it.

        Raises
        ------
        InvalidParameterError
            When ``δ`` is not symmetric.
        """
        if self.symmetric:
            return
        raise InvalidParameterError(
            f"{coefficient} needs a symmetric weight or distance matrix (w_kl = w_lk): it pairs "
            "the annotations of an item without a rater order, so an asymmetric matrix would be "
            f"silently replaced by (W + Wᵀ)/2; here max |w_kl − w_lk| = {self.asymmetry:.3g}. "
            "Pass (W + Wᵀ)/2 if that is what you mean; cohen_kappa, scott_pi and bennett_s apply "
            "an asymmetric W in rater order (rater 1's category first)"
        )

    def __repr__(self) -> str:
        return f"CategoryDistance({self.name!r}, kind={self.kind!r}, scale={self.scale:g})"

    def __str__(self) -> str:
        return self.description


# ---------------------------------------------------------------------- Krippendorff's metrics
def nominal(n_categories: int) -> np.ndarray:
    """Krippendorff's nominal metric: δ² = 1 for different categories, 0 for the same.

    Parameters
    ----------
    n_categories : int
        K, the number of categories.

    Returns
    -------
    ndarray
        The K × K matrix δ²(c, k) = 1[c ≠ k].

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental
    Papers (ASC) 43, Annenberg School for Communication, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    >>> nominal(3).tolist()  # 1 off the diagonal, 0 on it
    [[0.0, 1.0, 1.0], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    """
    return 1.0 - np.eye(check_count(n_categories, "n_categories"))


def mid_ranks(marginals: np.ndarray) -> np.ndarray:
    r"""The mid-rank of each ordered category, b_c = Σ_{g<c} n_g + n_c/2, from the pairable
    counts n_g: Krippendorff's ordinal metric is the interval metric on them, since for c ≤ k

    .. math::  Σ_{g=c}^{k} n_g - \frac{n_c + n_k}{2} = b_k - b_c .

    Parameters
    ----------
    marginals : array-like
        The pairable counts n_g of the K ordered categories.

    Returns
    -------
    ndarray
        The K mid-ranks b_c, as floats.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental
    Papers (ASC) 43, Annenberg School for Communication, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    >>> mid_ranks([2, 4, 2]).tolist()  # b = (0 + 2/2, 2 + 4/2, 6 + 2/2)
    [1.0, 4.0, 7.0]
    """
    n = np.asarray(marginals, dtype=float)
    return np.cumsum(n) - n / 2.0


def ordinal(marginals: np.ndarray) -> np.ndarray:
    """Krippendorff's ordinal δ² = (Σ_{g=c..k} n_g − (n_c + n_k)/2)² from the pairable
    counts n_g of the ordered categories: the interval δ² on their :func:`mid_ranks`.

    Parameters
    ----------
    marginals : array-like
        The pairable counts n_g of the K ordered categories.

    Returns
    -------
    ndarray
        The K × K matrix of squared distances.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental
    Papers (ASC) 43, Annenberg School for Communication, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    >>> ordinal([2, 4, 2])[0].tolist()  # δ²(1, 3) = (2 + 4 + 2 − (2 + 2)/2)² = 6² = 36
    [0.0, 9.0, 36.0]
    """
    return interval(mid_ranks(marginals))


def interval(values: np.ndarray) -> np.ndarray:
    """Krippendorff's interval metric, δ² = (c − k)².

    Parameters
    ----------
    values : array-like
        The K numeric category values.

    Returns
    -------
    ndarray
        The K × K matrix of squared distances.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental
    Papers (ASC) 43, Annenberg School for Communication, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    >>> interval([1, 2, 4])[0].tolist()  # (1 − 1)², (1 − 2)², (1 − 4)²
    [0.0, 1.0, 9.0]
    """
    v = np.asarray(values, dtype=float)
    return (v[:, None] - v[None, :]) ** 2


def ratio(values: np.ndarray, origin: float = 0.0) -> np.ndarray:
    """Krippendorff's ratio metric, δ² = ((c − k)/(c + k))², 0 on the diagonal (also where
    c = k = 0).

    Parameters
    ----------
    values : array-like
        The K numeric category values, non-negative, measured from ``origin``.
    origin : int or float, default 0
        The values are ``origin + values``: integers beyond 2**53 are given as their exact
        differences from the smallest (``Annotations.value_origin``), so that c − k is
        exact and only c + k = 2·origin + … is rounded (to 2**-53 relative).

    Returns
    -------
    ndarray
        The K × K matrix of squared distances.

    Raises
    ------
    InvalidParameterError
        If a value is negative.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental
    Papers (ASC) 43, Annenberg School for Communication, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    >>> ratio([1, 2, 4])[0].tolist()  # (1/3)² = 0.111…, (3/5)² = 0.36
    [0.0, 0.1111111111111111, 0.36]
    >>> bool(ratio([0, 1], origin=2**62)[0, 1] == (1 / (2**63 + 1))**2)  # 2**62, 2**62 + 1
    True
    """
    v = np.asarray(values, dtype=float)
    origin = check_real(origin, "origin")
    if v.size and v.min() + origin < 0:
        raise InvalidParameterError(
            f"the ratio metric needs non-negative values; the smallest is "
            f"{v.min() + origin:g}"
        )
    total = (v[:, None] + v[None, :]) + 2.0 * origin
    diff = v[:, None] - v[None, :]
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total > 0, (diff / np.where(total > 0, total, 1.0)) ** 2, 0.0)
    return out


def circular(values: np.ndarray, period: float | None = None) -> np.ndarray:
    """Krippendorff's circular metric, δ² = sin²(π (c − k)/U); U = max − min + 1 (e.g. 7 for
    the days 1..7) unless given.

    Parameters
    ----------
    values : array-like
        The K numeric category values.
    period : float, optional
        U, the circle's period (default: max − min + 1).

    Returns
    -------
    ndarray
        The K × K matrix of squared distances.

    Raises
    ------
    InvalidParameterError
        If the period is not positive.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental
    Papers (ASC) 43, Annenberg School for Communication, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    >>> circular([1, 2, 3, 4])[0].round(12).tolist()  # U = 4: sin²(π/4), sin²(π/2), sin²(3π/4)
    [0.0, 0.5, 1.0, 0.5]
    """
    v = np.asarray(values, dtype=float)
    U = (v.max() - v.min() + 1.0) if period is None else check_real(period, "period")
    if not U > 0:
        raise InvalidParameterError(f"the circular period must be positive, got {U}")
    return np.sin(np.pi * (v[:, None] - v[None, :]) / U) ** 2


def bipolar(values: np.ndarray) -> np.ndarray:
    """Krippendorff's bipolar metric, δ² = (c − k)² / ((c + k − 2 c_min)(2 c_max − c − k)),
    0 on the diagonal.

    Parameters
    ----------
    values : array-like
        The K numeric category values.

    Returns
    -------
    ndarray
        The K × K matrix of squared distances.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental
    Papers (ASC) 43, Annenberg School for Communication, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Examples
    --------
    >>> bipolar([1, 2, 3])[0].tolist()  # 1²/((3 − 2)(6 − 3)) = 1/3, 2²/((4 − 2)(6 − 4)) = 1
    [0.0, 0.3333333333333333, 1.0]
    """
    v = np.asarray(values, dtype=float)
    lo, hi = v.min(), v.max()
    # the metric is unchanged by x → a·x + b (a > 0): on the values mapped to [0, 1] nothing
    # overflows or underflows, whatever their magnitude (1e±300)
    half = hi / 2 - lo / 2
    u = (v / 2 - lo / 2) / half if half > 0 else v - lo
    c, k = u[:, None], u[None, :]
    denominator = (c + k) * (2 - c - k)
    # the denominator vanishes only on the diagonal (c = k = min or c = k = max)
    safe = np.where(denominator > 0, denominator, 1.0)
    return np.where(c != k, (c - k) ** 2 / safe, 0.0)


# ---------------------------------------------------------------------- set distances
def masi(sets: Any) -> np.ndarray:
    r"""Passonneau's MASI distance between sets of labels (set-valued annotations).

    .. math::  d(A, B) = 1 - J \cdot M, \qquad J = \frac{|A \cap B|}{|A \cup B|},

    with the monotonicity weight M = 1 when A = B, 2/3 when one is a proper subset of the
    other, 1/3 when they intersect otherwise and 0 when they are disjoint. Two empty sets
    are the same set (d = 0). Computed from \|A ∩ B| (a population count of the AND of
    the sets' bit masks of labels, or one sparse product of the sets × labels incidence
    matrix when there are many labels) and the sizes, d being read from its table over
    (\|A|, \|B|, \|A ∩ B|).

    Parameters
    ----------
    sets : sequence of sets
        The K sets of labels (sets, frozensets, lists or tuples), in order.

    Returns
    -------
    ndarray
        The K × K matrix d(A, B), used as δ² by Krippendorff's α.

    Raises
    ------
    InvalidParameterError
        A category that is not a set of labels, or more than ``MAX_MATRIX_CATEGORIES``
        sets (refused before the matrix is built).

    References
    ----------
    Passonneau, R. J. (2006). Measuring Agreement on Set-valued Items (MASI) for Semantic
    and Pragmatic Annotation. *Proceedings of LREC 2006*, 831–836.

    Examples
    --------
    >>> sets = [{"a"}, {"a", "b"}, {"a", "c"}, {"d"}]
    >>> masi(sets)[0].tolist()  # 1 − (1/2)(2/3) = 2/3, 1 − (1/2)(2/3), disjoint: 1
    [0.0, 0.6666666666666667, 0.6666666666666667, 1.0]
    >>> float(masi(sets)[1, 2])  # {a, b} vs {a, c}: intersect, J = 1/3, M = 1/3: 1 − 1/9
    0.8888888888888888
    """
    return _set_matrix(sets, "masi", _masi_of)


def jaccard(sets: Any) -> np.ndarray:
    r"""The Jaccard distance between sets of labels (set-valued annotations).

    .. math::  d(A, B) = 1 - \frac{|A \cap B|}{|A \cup B|} = \frac{|A \cup B| - |A \cap B|}
               {|A \cup B|},

    0 between two empty sets. Computed as :func:`masi` is, from \|A ∩ B| and the sizes of the
    sets.

    Parameters
    ----------
    sets : sequence of sets
        The K sets of labels (sets, frozensets, lists or tuples), in order.

    Returns
    -------
    ndarray
        The K × K matrix d(A, B), used as δ² by Krippendorff's α.

    Raises
    ------
    InvalidParameterError
        A category that is not a set of labels, or more than ``MAX_MATRIX_CATEGORIES``
        sets (refused before the matrix is built).

    References
    ----------
    Jaccard, P. (1912). The distribution of the flora in the alpine zone. *New Phytologist*
    11(2), 37–50. doi:10.1111/j.1469-8137.1912.tb05611.x.

    Examples
    --------
    >>> jaccard([{"a"}, {"a", "b"}, {"c"}, set()])[1].tolist()  # (2 − 1)/2, 0, 1, 1
    [0.5, 0.0, 1.0, 1.0]
    """
    return _set_matrix(sets, "jaccard", _jaccard_of)


def _masi_of(intersection: np.ndarray, size_a: np.ndarray, size_b: np.ndarray
             ) -> np.ndarray:
    """1 − J·M from |A ∩ B|, |A| and |B| (float arrays that broadcast)."""
    union = size_a + size_b - intersection
    shape = np.broadcast_shapes(intersection.shape, size_a.shape, size_b.shape)
    jaccard_index = np.divide(intersection, union, out=np.ones(shape), where=union > 0)
    equal = (intersection == size_a) & (intersection == size_b)
    nested = intersection == np.minimum(size_a, size_b)
    monotonicity = np.where(equal, 1.0, np.where(nested, 2.0 / 3.0,
                                                 np.where(intersection > 0, 1.0 / 3.0, 0.0)))
    return 1.0 - jaccard_index * monotonicity


def _jaccard_of(intersection: np.ndarray, size_a: np.ndarray, size_b: np.ndarray
                ) -> np.ndarray:
    """(|A ∪ B| − |A ∩ B|)/|A ∪ B|, 0 when both are empty (float arrays that
    broadcast)."""
    union = size_a + size_b - intersection
    shape = np.broadcast_shapes(intersection.shape, size_a.shape, size_b.shape)
    return np.divide(union - intersection, union, out=np.zeros(shape), where=union > 0)


#: the sets' intersections are counted on bit masks of the labels (a population count of
#: the AND of two masks) up to this many 64-bit words per set, beyond by a sparse product of
#: the sets × labels incidence matrix
MASK_WORDS = 8
#: a set distance is read from its table over (|A|, |B|, |A ∩ B|) when the table has at
#: most this many entries, else computed pair by pair from the same formula
TABLE_ENTRIES = 1 << 20
#: rows of the K × K matrix built at a time (bounds the temporaries)
BLOCK_ROWS = 256


def _set_matrix(sets: Any, name: str,
                formula: Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
                ) -> np.ndarray:
    """The K × K matrix of a distance between sets that depends on |A ∩ B|, |A| and |B|
    only: ``formula`` on those counts, applied once to a table of every (|A|, |B|,
    |A ∩ B|) when it is small and read from it, the intersections counted on bit masks
    (or by a sparse product when there are many labels); in blocks of rows."""
    members, label_codes, n_labels = _set_members(sets, name)
    K = len(members)
    size = np.array([len(one) for one in members], dtype=np.intp)
    rows = np.repeat(np.arange(K), size)
    words = -(-n_labels // 64)
    if words <= MASK_WORDS:
        masks = np.zeros((K, max(words, 1)), dtype=np.uint64)
        np.bitwise_or.at(masks, (rows, label_codes >> 6),
                         np.left_shift(np.uint64(1), (label_codes & 63).astype(np.uint64)))

        def intersections(start: int, stop: int) -> np.ndarray:
            count = np.bitwise_count(masks[start:stop, None, 0] & masks[None, :, 0])
            if masks.shape[1] > 1:
                count = count.astype(np.intp)
                for w in range(1, masks.shape[1]):  # over the ≤ MASK_WORDS words
                    count += np.bitwise_count(masks[start:stop, None, w] & masks[None, :, w])
            return count
    else:
        incidence = sp.csr_matrix((np.ones(rows.size), (rows, label_codes)),
                                  shape=(K, n_labels))
        product = (incidence @ incidence.T).toarray().astype(np.intp)

        def intersections(start: int, stop: int) -> np.ndarray:
            return product[start:stop]
    out = np.empty((K, K))
    side = int(size.max(initial=0)) + 1
    if side ** 3 <= TABLE_ENTRIES:
        counts = np.arange(side, dtype=float)
        table = formula(counts[None, None, :], counts[:, None, None],
                        counts[None, :, None]).ravel()  # [|A|, |B|, |A ∩ B|]
        row_part, column_part = size * (side * side), size * side
        for start in range(0, K, BLOCK_ROWS):  # over blocks of the K sets
            stop = min(start + BLOCK_ROWS, K)
            where = row_part[start:stop, None] + column_part[None, :]
            where += intersections(start, stop)
            np.take(table, where, out=out[start:stop], mode="clip")  # unbuffered
    else:
        sizes = size.astype(float)
        for start in range(0, K, BLOCK_ROWS):  # over blocks of the K sets
            stop = min(start + BLOCK_ROWS, K)
            out[start:stop] = formula(intersections(start, stop).astype(float),
                                      sizes[start:stop, None], sizes[None, :])
    return out


def _set_members(sets: Any, name: str) -> tuple[list[list[Any]], np.ndarray, int]:
    """The distinct labels of each of the K sets, the code of each of those labels (set by
    set) and the number of labels; more than ``MAX_MATRIX_CATEGORIES`` sets are refused
    first."""
    sets = list(sets)
    K = len(sets)
    not_sets = [k for k, one in enumerate(sets) if not isinstance(one, (set, frozenset, list,
                                                                        tuple))]
    if not_sets:
        raise InvalidParameterError(
            f"the {name} distance compares sets of labels, but category "
            f"{label(sets[not_sets[0]])} is not one ({len(not_sets)} of {K} categories are "
            "not); read multi-label annotations as sets, lists or tuples of labels, or as "
            "strings of labels with sep= (Annotations.from_long(df, sep=';'))"
        )
    if K > MAX_MATRIX_CATEGORIES:
        gib = K * K * 8 / 2**30
        raise InvalidParameterError(
            f"the {name} distance over {K} distinct label sets would need a {K} × {K} matrix "
            f"({gib:.1f} GiB, refused above {MAX_MATRIX_CATEGORIES} distinct sets); merge "
            "rare label sets, drop rare labels, or use level='nominal' (a set agrees only "
            "with the same set), which needs no such matrix"
        )
    members = [list(one) if isinstance(one, (set, frozenset)) else list(dict.fromkeys(one))
               for one in sets]  # over the K sets
    flat = np.empty(sum(map(len, members)), dtype=object)
    flat[:] = [one for labels in members for one in labels]
    label_codes, labels = pd.factorize(flat, sort=False)
    return members, label_codes.astype(np.intp, copy=False), len(labels)


# ---------------------------------------------------------------------- Gwet's weights
def ordinal_weights(n_categories: int) -> np.ndarray:
    r"""Gwet's ordinal agreement weights on the ranks 1..K of the ordered categories.

    .. math::  w_{kl} = 1 - \binom{|k - l| + 1}{2} \Big/ \binom{K}{2}
                      = 1 - \frac{|k - l|\,(|k - l| + 1)}{K (K - 1)},

    where :math:`\binom{|k-l|+1}{2}` counts the pairs among the categories from k to l: the
    weight depends only on the order of the categories, not on their values (Gwet 2014,
    *Handbook of Inter-Rater Reliability*, 4th ed., ch. 3, Table 3.6.1). One category: [[1]].

    Parameters
    ----------
    n_categories : int
        K, the number of ordered categories.

    Returns
    -------
    ndarray
        The K × K matrix of agreement weights w_kl.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced
    Analytics. Chapter 3.

    Examples
    --------
    >>> ordinal_weights(4)[0].tolist()  # 1 − (1, 3, 6)/6
    [1.0, 0.8333333333333334, 0.5, 0.0]
    """
    K = check_count(n_categories, "n_categories")
    d = np.abs(np.subtract.outer(np.arange(K), np.arange(K))).astype(float)
    pairs = K * (K - 1) / 2.0
    return 1.0 - d * (d + 1.0) / 2.0 / (pairs if pairs > 0 else 1.0)


def linear_weights(values: np.ndarray) -> np.ndarray:
    r"""Cohen's (1968) and Gwet's linear agreement weights, 1 − \|c − k|/(max − min).

    Parameters
    ----------
    values : array-like
        The K numeric category values (a single distinct value gives weights 1).

    Returns
    -------
    ndarray
        The K × K matrix of agreement weights.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced
    Analytics. Chapter 3.

    Cohen, J. (1968). Weighted kappa: nominal scale agreement with provision for scaled
    disagreement or partial credit. *Psychological Bulletin*, 70(4), 213–220.

    Examples
    --------
    >>> linear_weights([1, 2, 4])[0].tolist()  # 1 − (0, 1, 3)/3
    [1.0, 0.6666666666666667, 0.0]
    """
    v = np.asarray(values, dtype=float)
    span = v.max() - v.min()
    return 1.0 - np.abs(v[:, None] - v[None, :]) / (span if span > 0 else 1.0)


def quadratic_weights(values: np.ndarray) -> np.ndarray:
    """Cohen's (1968) and Gwet's quadratic agreement weights, 1 − (c − k)²/(max − min)².

    Parameters
    ----------
    values : array-like
        The K numeric category values (a single distinct value gives weights 1).

    Returns
    -------
    ndarray
        The K × K matrix of agreement weights.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced
    Analytics. Chapter 3.

    Cohen, J. (1968). Weighted kappa: nominal scale agreement with provision for scaled
    disagreement or partial credit. *Psychological Bulletin*, 70(4), 213–220.

    Examples
    --------
    >>> quadratic_weights([1, 2, 4])[0].tolist()  # 1 − (0, 1, 9)/3²
    [1.0, 0.8888888888888888, 0.0]
    """
    v = np.asarray(values, dtype=float)
    span = v.max() - v.min()
    return 1.0 - ((v[:, None] - v[None, :]) / (span if span > 0 else 1.0)) ** 2  # no overflow


def radical_weights(values: np.ndarray) -> np.ndarray:
    r"""Gwet's radical agreement weights on the category values,
    :math:`w_{kl} = 1 - \sqrt{|x_k - x_l|} / \sqrt{x_\max - x_\min}`
    (Gwet 2014, *Handbook of Inter-Rater Reliability*, 4th ed., ch. 3).

    Parameters
    ----------
    values : array-like
        The K numeric category values (a single distinct value gives weights 1).

    Returns
    -------
    ndarray
        The K × K matrix of agreement weights.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced
    Analytics. Chapter 3.

    Examples
    --------
    >>> radical_weights([1, 2, 5])[0].tolist()  # 1 − (√0, √1, √4)/√4
    [1.0, 0.5, 0.0]
    """
    v = np.asarray(values, dtype=float)
    span = v.max() - v.min()
    return 1.0 - np.sqrt(np.abs(v[:, None] - v[None, :])) / (np.sqrt(span) if span > 0 else 1.0)


# ---------------------------------------------------------------------- resolution

class _Request(NamedTuple):
    """One name to resolve: the builders of :data:`_VOCABULARY` read it."""

    kind: str
    name: str  # what the resolved distance reports (``CategoryDistance.name``)
    description: str
    category_list: Callable[[], Any]  # the K categories (sets of labels for set distances)
    category_values: Callable[[str], np.ndarray]
    marginals: Callable[[], np.ndarray] | None
    origin: int | float | Callable[[], int | float] = 0  # what the values are measured
    # from, or a callable giving it (the ratio metric adds it; no other name reads it)
    category_range: Callable[[str], tuple[float, float]] | None = None

    @property
    def categories(self) -> Any:
        return self.category_list()

    @property
    def n_categories(self) -> int:
        return len(self.category_list())

    @property
    def purpose(self) -> str:
        return f"the {self.name} metric" if self.kind == "level" else f"{self.name} weights"

    def values(self) -> np.ndarray:
        """The numeric category values, for the purpose this name says."""
        return self.category_values(self.purpose)

    def value_range(self) -> tuple[float, float]:
        """(min, max) of the numeric category values, without them when the data know them
        otherwise (a store of float values)."""
        if self.category_range is not None:
            return self.category_range(self.purpose)
        v = self.values()
        return (float(v.min()), float(v.max())) if v.size else (0.0, 0.0)

    def lazy_values(self) -> Callable[[], np.ndarray]:
        return lambda: self.values()

    def counter(self) -> Callable[[], int]:
        return lambda: self.n_categories

    def make(self, scale: float, matrix: np.ndarray | None = None, **options: Any
             ) -> CategoryDistance:
        return CategoryDistance(self.name, scale, matrix, kind=self.kind,
                                description=self.description, **options)

    def scaled(self, matrix: np.ndarray) -> CategoryDistance:
        """``matrix`` with its largest entry as the scale (w = 1 − δ/max δ)."""
        return self.make(_largest(matrix), matrix)


def _nominal(r: _Request) -> CategoryDistance:
    return r.make(1.0, build=lambda: nominal(r.n_categories))


def _interval_form(r: _Request, v: np.ndarray | None, data_dependent: bool = False
                   ) -> CategoryDistance:
    """δ = (s_c − s_k)² on the scores v (None: the category values, made only when read; their
    extremes are all the estimators need), scaled by the squared span (Krippendorff's form);
    the span² of values beyond 1e154 is infinite (the estimators work on normalised scores,
    ``kappalab.coefficients.base.interval_scores``, and never need it)."""
    if v is None:
        low, high = r.value_range()
    else:
        low, high = (float(v.min()), float(v.max())) if v.size else (0.0, 0.0)
    span = np.float64(high) - np.float64(low)
    with np.errstate(over="ignore"):
        scale = float(span * span) if span > 0 else 1.0
    scores = r.lazy_values() if v is None else v
    return r.make(scale, build=lambda: interval(_made(scores)), n_categories=r.counter(),
                  interval_factor=1.0, scores=scores,
                  score_range=(low, high) if v is None or v.size else None,
                  scores_are_values=v is None, data_dependent=data_dependent)


def _made(scores: np.ndarray | Callable[[], np.ndarray]) -> np.ndarray:
    return scores() if callable(scores) else scores


def _ordinal_metric(r: _Request) -> CategoryDistance:
    if r.marginals is None:
        raise InvalidParameterError("the ordinal metric needs the pairable marginals")
    return _interval_form(r, mid_ranks(r.marginals()), data_dependent=True)


def _interval_metric(r: _Request) -> CategoryDistance:
    return _interval_form(r, None)


def _scaled_metric(metric: Callable[[np.ndarray], np.ndarray]
                   ) -> Callable[[_Request], CategoryDistance]:
    """Krippendorff's ``metric`` scaled by its largest value: the same under both kinds."""
    def build(r: _Request) -> CategoryDistance:
        v = r.values()
        _refuse_large(r.name, r.n_categories)
        if metric is ratio:  # not shift-invariant: the values themselves
            origin = r.origin() if callable(r.origin) else r.origin
            return r.scaled(ratio(v, origin))
        return r.scaled(metric(v))
    return build


def _quadratic_weights(r: _Request) -> CategoryDistance:
    low, high = r.value_range()  # 1 − w = ((c − k)/span)²: an interval distance
    span = np.float64(high) - np.float64(low)
    values = r.lazy_values()
    return r.make(1.0, build=lambda: 1.0 - quadratic_weights(values()), n_categories=r.counter(),
                  interval_factor=1.0 / span if span > 0 else 1.0, scores=values,
                  score_range=(low, high), scores_are_values=True)


def _ordinal_weights(r: _Request) -> CategoryDistance:
    _refuse_large(r.name, r.n_categories)  # ranks only: no values needed
    return r.make(1.0, 1.0 - ordinal_weights(r.n_categories))


def _set_distance(distance: Callable[[Any], np.ndarray]) -> Callable[[_Request], CategoryDistance]:
    """A distance between sets of labels, in [0, 1]: scale 1 under both kinds (w = 1 − d)."""
    def build(r: _Request) -> CategoryDistance:
        return r.make(1.0, distance(r.categories))
    return build


def _value_weights(weights: Callable[[np.ndarray], np.ndarray]
                   ) -> Callable[[_Request], CategoryDistance]:
    def build(r: _Request) -> CategoryDistance:
        v = r.values()
        _refuse_large(r.name, r.n_categories)
        return r.make(1.0, 1.0 - weights(v))
    return build


#: The one table of names: (kind, name) → (the name the resolved distance reports, what it
#: is, its builder). ``kind="level"`` reads Krippendorff's metrics, ``kind="weights"`` Gwet's
#: weights; :data:`LEVELS`, :data:`WEIGHTS` and the aliases come from here.
_VOCABULARY: dict[tuple[str, str], tuple[str, str, Callable[[_Request], CategoryDistance]]] = {
    ("level", "nominal"): ("nominal", "Krippendorff's nominal metric, δ² = 1[c ≠ k]",
                           _nominal),
    ("level", "ordinal"): ("ordinal", "Krippendorff's ordinal metric, the interval metric on "
                           "the mid-ranks of the pairable marginals", _ordinal_metric),
    ("level", "interval"): ("interval", "Krippendorff's interval metric, δ² = (c − k)²",
                            _interval_metric),
    ("level", "ratio"): ("ratio", "Krippendorff's ratio metric, δ² = ((c − k)/(c + k))²",
                         _scaled_metric(ratio)),
    ("level", "circular"): ("circular", "Krippendorff's circular metric, "
                            "δ² = sin²(π (c − k)/U)", _scaled_metric(circular)),
    ("level", "bipolar"): ("bipolar", "Krippendorff's bipolar metric, δ² = (c − k)² / "
                           "((c + k − 2 c_min)(2 c_max − c − k))", _scaled_metric(bipolar)),
    ("level", "masi"): ("masi", "Passonneau's MASI distance between sets of labels, "
                        "δ² = 1 − J·M", _set_distance(masi)),
    ("level", "jaccard"): ("jaccard", "the Jaccard distance between sets of labels, "
                           "δ² = 1 − |A ∩ B|/|A ∪ B|", _set_distance(jaccard)),
    ("weights", "identity"): ("nominal", "Gwet's identity weights (unweighted), w = 1[k = l]",
                              _nominal),
    ("weights", "ordinal"): ("ordinal", "Gwet's ordinal weights on the ranks, "
                             "w = 1 − C(|k − l| + 1, 2)/C(K, 2)", _ordinal_weights),
    ("weights", "linear"): ("linear", "Gwet's (Cohen's) linear weights, "
                            "w = 1 − |x_k − x_l|/(x_max − x_min)", _value_weights(linear_weights)),
    ("weights", "quadratic"): ("quadratic", "Gwet's (Cohen's) quadratic weights, "
                               "w = 1 − (x_k − x_l)²/(x_max − x_min)²", _quadratic_weights),
    ("weights", "radical"): ("radical", "Gwet's radical weights, "
                             "w = 1 − √|x_k − x_l| / √(x_max − x_min)",
                             _value_weights(radical_weights)),
    ("weights", "ratio"): ("ratio", "Gwet's ratio weights, Krippendorff's ratio metric over "
                           "its largest value", _scaled_metric(ratio)),
    ("weights", "circular"): ("circular", "Gwet's circular weights, Krippendorff's circular "
                              "metric over its largest value", _scaled_metric(circular)),
    ("weights", "bipolar"): ("bipolar", "Gwet's bipolar weights, Krippendorff's bipolar "
                             "metric over its largest value", _scaled_metric(bipolar)),
    ("weights", "masi"): ("masi", "MASI agreement weights between sets of labels, "
                          "w = J·M (Passonneau 2006)", _set_distance(masi)),
    ("weights", "jaccard"): ("jaccard", "Jaccard agreement weights between sets of labels, "
                             "w = |A ∩ B|/|A ∪ B|", _set_distance(jaccard)),
}
#: further names that mean a name of the table: (kind, alias) → name
_ALIASES = {("weights", "unweighted"): "identity", ("weights", "nominal"): "identity",
            ("weights", "interval"): "quadratic"}

#: the distances between sets of labels (set-valued annotations), names both ``level=`` and
#: ``weights=`` take besides :data:`LEVELS` and :data:`WEIGHTS`
SET_DISTANCES = ("masi", "jaccard")
#: Krippendorff's metrics, the names ``level=`` takes (and :data:`SET_DISTANCES`)
LEVELS = tuple(name for kind, name in _VOCABULARY
               if kind == "level" and name not in SET_DISTANCES)
#: Gwet's (2014) agreement weights, the names ``weights=`` takes (and :data:`SET_DISTANCES`)
WEIGHTS = tuple(name for kind, name in _VOCABULARY
                if kind == "weights" and name not in SET_DISTANCES)
#: further names ``weights=`` accepts for the same weights
WEIGHT_ALIASES = {alias: name for (kind, alias), name in _ALIASES.items() if kind == "weights"}
#: the weights of Cohen's (1968) weighted kappa
COHEN_WEIGHTS = ("identity", "linear", "quadratic")


def category_distance(
    spec: DistanceSpec,
    categories: Any,
    *,
    kind: str,
    values: Callable[[str], np.ndarray],
    marginals: Callable[[], np.ndarray] | None = None,
    origin: int | float | Callable[[], int | float] = 0,
    value_range: Callable[[str], tuple[float, float]] | None = None,
) -> CategoryDistance:
    r"""Resolve ``level=``, ``distance=`` or ``weights=`` into a :class:`CategoryDistance`.

    The one entry point for every coefficient: Krippendorff's α, Janson–Olsson's ι and κx
    (cross-replication, whose ``distance`` is a level) resolve with ``kind="level"``, the
    kappa family (Fleiss, Conger, Gwet, Brennan–Prediger, percent agreement, Cohen, Scott,
    Bennett, Light) with ``kind="weights"``; both read their names in one table.

    Parameters
    ----------
    spec : str, array, callable or None
        With ``kind="level"``: a level name (:data:`LEVELS`, Krippendorff's metrics, and
        ``"masi"``/``"jaccard"`` between sets of labels), a K × K matrix of squared
        distances (zero diagonal, non-negative), or a callable ``f(a, b)`` returning δ²
        element-wise for arrays of category values; ``None`` is refused.
        With ``kind="weights"``: ``None`` (unweighted) or one of Gwet's weights
        :data:`WEIGHTS` — ``"identity"``, ``"ordinal"``, ``"linear"``, ``"quadratic"``,
        ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"`` (definitions in the module
        docstring; Gwet 2014, ch. 3; they equal irrCAC's and AgreeStat's) — or
        ``"unweighted"``/``"nominal"`` (= identity), ``"interval"`` (= quadratic), or
        ``"masi"``/``"jaccard"`` between sets of labels (w = 1 − d: :func:`masi`,
        :func:`jaccard`); a K × K
        matrix of agreement weights (diagonal 1, entries in [0, 1]; it may be asymmetric, see
        :meth:`CategoryDistance.require_symmetric`); or a callable ``w(a, b)`` evaluated
        element-wise on arrays of category values. Names are case-insensitive.
    categories : sequence or callable
        The K categories, in order (sets of labels for ``"masi"`` and ``"jaccard"``), or a
        function that returns them, called only by the names that need them (not the
        interval metric and quadratic weights when ``value_range`` is given).
    kind : {"level", "weights"}
        The vocabulary ``spec`` is read in (:data:`KINDS`): ``"ordinal"`` is Krippendorff's
        data-dependent metric as a level and Gwet's rank-based weights as weights.
    values : callable
        ``values(purpose)`` returns the numeric category values (raising
        :class:`~kappalab.errors.NonNumericError` for labels); the nominal, identity and
        ordinal forms never call it.
    marginals : callable, optional
        ``marginals()`` returns the pairable counts per category, for Krippendorff's ordinal
        metric (``level="ordinal"`` refuses to resolve without it).
    origin : int, float or callable, default 0
        The number ``values`` are measured from (``Annotations.value_origin``: integers
        beyond 2**53 are given as their exact differences from the smallest), or a callable
        returning it. Every distance but the ratio metric depends on differences only; the
        ratio metric adds it back, and is the only one that calls ``origin()``.
    value_range : callable, optional
        ``value_range(purpose)`` returns (min, max) of the numeric category values (raising
        as ``values`` does); given when the data know them without the categories (a store
        of float values, ``Annotations.value_range``). The interval metric and quadratic
        weights then resolve from them alone, and make their per-category scores and matrix
        only if these are read.

    Returns
    -------
    CategoryDistance
        δ between the categories, its scale (w = 1 − δ/scale) and what it is
        (``name``, ``kind``, ``description``).

    Raises
    ------
    InvalidParameterError
        An unknown kind or name; no level; a distance matrix of the wrong shape, with a
        negative, NaN or infinite entry or a non-zero diagonal; a weight matrix with NaN or
        infinite entries, a diagonal other than 1 or entries outside [0, 1]; a callable that
        fails or returns NaN or infinite values.
    NonNumericError
        A value-based metric or weights for non-numeric categories.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Departmental
    Papers (ASC) 43, Annenberg School for Communication, University of Pennsylvania.
    https://repository.upenn.edu/asc_papers/43

    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced
    Analytics. Chapter 3.

    Examples
    --------
    >>> values = lambda purpose: np.array([1.0, 2.0, 4.0])
    >>> level = category_distance("interval", [1, 2, 4], kind="level", values=values)
    >>> level
    CategoryDistance('interval', kind='level', scale=9)
    >>> level.matrix[0].tolist(), level.weights[0].tolist()  # δ = (c − k)², w = 1 − δ/3²
    ([0.0, 1.0, 9.0], [1.0, 0.8888888888888888, 0.0])
    >>> weights = category_distance("ordinal", [1, 2, 4], kind="weights", values=values)
    >>> weights.description
    "Gwet's ordinal weights on the ranks, w = 1 − C(|k − l| + 1, 2)/C(K, 2)"
    >>> weights.weights[0].tolist()
    [1.0, 0.6666666666666667, 0.0]
    """
    if kind not in KINDS:
        raise InvalidParameterError(f"unknown kind {kind!r}; choose one of {', '.join(KINDS)}")
    category_list = categories if callable(categories) else lambda: categories
    if spec is None:
        if kind == "level":
            raise InvalidParameterError(
                f"no level given; choose one of {', '.join(LEVELS)}, or pass a K × K distance "
                "matrix or a callable"
            )
        spec = "identity"
    if isinstance(spec, str):
        key = spec.lower()
        key = _ALIASES.get((kind, key), key)
        if (kind, key) not in _VOCABULARY:
            if kind == "level":
                raise InvalidParameterError(
                    f"unknown level {spec!r}; choose one of {', '.join(LEVELS)} (or "
                    f"{', '.join(SET_DISTANCES)} for sets of labels), or pass a K × K distance "
                    "matrix or a callable"
                )
            raise InvalidParameterError(
                f"unknown weights {spec!r}; choose one of {', '.join(WEIGHTS)} (Gwet's "
                f"weights; {', '.join(SET_DISTANCES)} for sets of labels), or pass a K × K "
                "weight matrix or a callable"
            )
        name, description, build = _VOCABULARY[kind, key]
        return build(_Request(kind, name, description, category_list, values, marginals,
                              origin, value_range))
    categories = category_list()
    K = len(categories)
    _refuse_large("custom", K)
    if kind == "level":
        return _custom_distance(spec, categories, K)
    return _custom_weights(spec, categories, K)


def _custom_distance(spec: DistanceSpec, categories: Any, K: int) -> CategoryDistance:
    """A K × K matrix of squared distances, or a callable δ²(a, b), as a level."""
    if callable(spec):
        matrix = _evaluate(spec, categories, "distance")
        name = f"custom ({getattr(spec, '__name__', 'callable')})"
        description = f"a custom distance, δ² = {getattr(spec, '__name__', 'callable')}(c, k)"
    else:
        matrix, name, description = _as_square(spec, K, "distance"), "custom", \
            "a custom matrix of squared distances"
    matrix = _check_distance_matrix(matrix, K)
    scale = _largest(matrix)
    return CategoryDistance(name, scale, matrix, kind="level", description=description,
                            asymmetry=_asymmetry(matrix) / scale)


def _custom_weights(spec: DistanceSpec, categories: Any, K: int) -> CategoryDistance:
    """A K × K matrix of agreement weights, or a callable w(a, b), as weights."""
    if callable(spec):
        w = _evaluate(spec, categories, "weights")
        description = f"custom agreement weights, w = {getattr(spec, '__name__', 'callable')}(k, l)"
    else:
        w = _as_square(spec, K, "weight")
        description = "a custom matrix of agreement weights"
    if not np.allclose(np.diag(w), 1.0) or (w < 0).any() or (w > 1).any():
        raise InvalidParameterError(
            "agreement weights need 1 on the diagonal and entries in [0, 1]; "
            f"got diagonal {np.round(np.diag(w), 3).tolist()} and range "
            f"[{w.min():g}, {w.max():g}]"
        )
    return CategoryDistance("custom", 1.0, 1.0 - w, kind="weights", description=description,
                            asymmetry=_asymmetry(w))


def _largest(matrix: np.ndarray) -> float:
    """The largest entry of a distance matrix, as its scale (1 when there is none > 0)."""
    largest = float(matrix.max()) if matrix.size else 0.0
    return largest if largest > 0 else 1.0


def _asymmetry(matrix: np.ndarray) -> float:
    return float(np.abs(matrix - matrix.T).max()) if matrix.size else 0.0


def _refuse_large(name: str, K: int) -> None:
    """Refuse, before allocating it, a K × K matrix above ``MAX_MATRIX_CATEGORIES``."""
    if K > MAX_MATRIX_CATEGORIES:
        gib = K * K * 8 / 2**30
        raise InvalidParameterError(
            f"the {name} weights or distance over {K} distinct values would need a {K} × {K} "
            "matrix "
            f"({gib:.1f} GiB, refused above {MAX_MATRIX_CATEGORIES} categories); this "
            "coefficient has no O(N) form for it: bin the values, or use a distance with an "
            "interval form (level='interval' or 'ordinal', weights='quadratic'), which "
            "Krippendorff's alpha, Fleiss, Conger/iota, percent agreement and kappa-x compute "
            "from O(N) moments")


def _evaluate(function: Callable, categories: Any, what: str) -> np.ndarray:
    """A user's element-wise callable on every pair of categories, as a K × K float matrix.
    Numbers are given as floats, except integers beyond 2**53, which a float64 would round
    (2**62 + 1 to 2**62): those are given as exact Python integers (an object array)."""
    v = np.asarray(list(categories))
    if v.dtype.kind in "iu" and not exact_as_float(v):
        v = np.array([int(c) for c in categories], dtype=object)
    elif v.dtype.kind in "biuf":
        v = v.astype(float)
    K = v.size
    try:
        matrix = np.broadcast_to(np.asarray(function(v[:, None], v[None, :]), dtype=float),
                                 (K, K)).copy()
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(
            f"the {what} callable failed on the categories: {exc}") from exc
    bad = np.argwhere(~np.isfinite(matrix))
    if bad.size:
        k, l = bad[0]
        labels = list(categories)
        raise InvalidParameterError(
            f"the {what} callable returned {matrix[k, l]} for the categories "
            f"({label(labels[k])}, {label(labels[l])}) ({len(bad)} non-finite cell(s) in all); "
            "it must return a finite number for every pair of categories"
        )
    return matrix


def _as_square(spec: Any, K: int, what: str) -> np.ndarray:
    try:
        matrix = np.asarray(spec, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(f"the {what} matrix must be numeric") from None
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
