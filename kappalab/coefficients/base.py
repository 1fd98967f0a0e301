"""The item-sum spine: a coefficient is ``combine(Σ_i item_stats_i)`` (docs/architecture.md).

Every estimator in kappalab is an :class:`ItemSumCoefficient` bound to its data:

* :meth:`~ItemSumCoefficient.item_stats` returns an items × s matrix (dense or scipy sparse) of
  per-item sufficient statistics;
* :meth:`~ItemSumCoefficient.totals` returns their sum over items (a faster direct reduction,
  :meth:`~ItemSumCoefficient.unweighted_totals`, may replace it without sample weights, but
  must equal ``item_stats().sum(axis=0)``);
* :meth:`~ItemSumCoefficient.combine` maps totals to the coefficient's components. It accepts one
  vector of length s or a B × s stack (B resamples at once) and works row-wise, so resampling
  items is ``combine(W @ item_stats())`` for a B × items weight matrix ``W``.

Uncertainty, resampling and chunked reductions need only this protocol, never a particular
coefficient.

Sample weights (``sample_weight=`` of every estimator, as scikit-learn's): item weights
w_i ≥ 0 multiply the rows, s_i → w_i s_i, so the coefficient is ``combine(Σ_i w_i s_i)``
(:meth:`~ItemSumCoefficient.set_sample_weight`). Cores implement the unweighted statistics
(:meth:`~ItemSumCoefficient.unweighted_item_stats`, and optionally a faster
:meth:`~ItemSumCoefficient.unweighted_totals`); the base class scales the rows, and with
weights forms the totals as ``wᵀ S`` rather than by a core's direct reduction, which therefore
never needs to know about weights.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Callable, Mapping

import numpy as np

from ..errors import UndefinedCoefficientWarning, warn
from ..estimate import Estimate
from ..kernels import column_totals, issparse, numeric_array, single_blas_thread
from ..protocols import ItemStats
from ..uncertainty import (BLOCK_CELLS, CI_METHODS, Interval, IntervalOptions, gwet_design,
                           interval, parse_ci)
from ..validation import SampleWeightLike, SeedLike, check_sample_weight

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from ..kernels import sp

__all__ = ["ItemSumCoefficient", "Components", "IntervalScores", "numeric_array",
           "complex_step_gradient", "disagreement_components",
           "distance_product", "distance_to_own_item", "quadratic_form_per_row", "interval_scores",
           "within_group_pairs",
           "safe_divide", "weigh_rows"]

#: what :meth:`ItemSumCoefficient.combine` returns: the coefficient's components by name
#: (at least ``value``, ``observed`` and ``expected``)
Components = dict[str, np.ndarray]


class ItemSumCoefficient(ABC):
    r"""A coefficient written as a closed form of per-item sums.

    An abstract base: a core implements :meth:`unweighted_item_stats` and :meth:`combine`
    (and may override :meth:`unweighted_totals`, :meth:`value_gradient`,
    :meth:`undefined_reason`, :meth:`counts_used` and :meth:`details`); its constructor takes
    the data, so the base class itself takes no parameters.

    Notes
    -----
    **Sample weights.** With item weights w_i ≥ 0 (:meth:`set_sample_weight`, the
    estimators' ``sample_weight=``) every row of the item statistics is multiplied by its
    weight:

    .. math::  θ̂ = f\Big(\sum_i w_i s_i\Big),

    so an integer weight k gives exactly the value of the data with the item repeated k times,
    and a weight 0 drops the item. Weights with a common factor give the same value for every
    coefficient whose closed form depends only on ratios of totals (all but Krippendorff's α,
    whose small-sample factor n/(n − 1) counts the weighted annotations, as repetition would).

    The resampling units remain the items (:mod:`kappalab.uncertainty`): the weighted rows
    w_i s_i are what the bootstrap draws and the jackknife leaves out, and the analytic
    standard error is the linearisation over the n items with a positive weight,

    .. math::  \widehat{\operatorname{Var}}(θ̂) = \frac{1}{n(n-1)} \sum_i
               \big(n\,∇f(T)\cdot(w_i s_i - T/n)\big)^2, \qquad T = \sum_i w_i s_i .

    The weights are therefore importance (sampling) weights — Stata's ``pweight`` — not
    frequency weights: an item weighted by k moves the value as k copies would, but it is one
    independent unit for the standard error, not k. (For frequency weights, k independent
    items with identical annotations, repeat the rows.) An all-ones vector is no weighting at
    all: the unweighted estimate and standard error, bit for bit.

    The weights are positional, one per item in the order of ``Annotations.items`` (the rows
    of a wide table; a pandas Series is taken by position, not by label). Categories and
    raters are those of the data: an item of weight 0 still counts towards K where K enters
    (Gwet's AC, Brennan–Prediger) unless ``categories=`` fixes it.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics
    (ch. 5: the linearised variance the analytic standard error reproduces).

    Examples
    --------
    A mean as a coefficient: item statistics [x_i, 1], value T_0/T_1.

    >>> class Mean(ItemSumCoefficient):
    ...     def __init__(self, x):
    ...         self.x = np.asarray(x, dtype=float)
    ...     def unweighted_item_stats(self):
    ...         return np.column_stack([self.x, np.ones_like(self.x)])
    ...     def combine(self, totals):
    ...         t = np.asarray(totals)
    ...         value = t[..., 0] / t[..., 1]
    ...         return {"value": value, "observed": value, "expected": 0 * value}
    >>> core = Mean([1.0, 2.0, 6.0])
    >>> core.totals(), float(core.combine(core.totals())["value"])  # (1 + 2 + 6)/3
    (array([9., 3.]), 3.0)
    >>> core.set_sample_weight([1, 1, 2], 3)  # the third item counts twice: 15/4
    >>> float(core.combine(core.totals())["value"])
    3.75
    """

    #: display name of the coefficient, e.g. "Fleiss' kappa"
    name: str = "coefficient"
    #: what ``level`` to report (distance or weights name)
    level: str = "nominal"
    #: the largest value the coefficient can take (caps symmetric intervals), None if none
    upper_bound: float | None = 1.0
    #: item weights w_i, one per row of the item statistics; None: every item counts once
    sample_weight: np.ndarray | None = None
    #: the item label of each row of the item statistics (a pandas Index), which pairs the
    #: items of two data sets (:func:`kappalab.comparison.compare`); None where unknown
    item_labels: Any = None
    #: the totals T of the last :meth:`estimate` (None before it), for what a wrapper adds to
    #: the estimate from the same totals without a second pass over the items
    estimated_totals: np.ndarray | None = None
    #: the ``ci=`` methods the core supplies itself beyond the spine's
    #: (:data:`kappalab.uncertainty.CORE_METHODS`): name → function of (core,
    #: :class:`~kappalab.uncertainty.IntervalOptions`) returning an
    #: :class:`~kappalab.uncertainty.Interval` (``ci="krippendorff"`` of Krippendorff's α,
    #: ``ci="F"`` of the ICC); :meth:`estimate` dispatches to them
    interval_methods: Mapping[str, Callable[[Any, IntervalOptions], Interval]] = \
        MappingProxyType({})
    #: a ``ci=`` name whose standard error the estimate carries even without ``ci=`` (no
    #: interval): SPA's ``"analytic"``; None: none
    se_without_ci: str | None = None

    def set_sample_weight(self, sample_weight: SampleWeightLike, n_items: int) -> None:
        """Validate and keep item weights, one per row of the item statistics
        (:func:`kappalab.validation.check_sample_weight`); ``None`` and all-ones weights
        leave the coefficient unweighted. Cores call it before using :meth:`item_weights`."""
        w = check_sample_weight(sample_weight, n_items)
        self.sample_weight = None if w is None or np.all(w == 1.0) else w
        self.estimated_totals = None

    def item_weights(self, n_items: int) -> np.ndarray:
        """w_i of every row (ones without sample weights)."""
        return np.ones(n_items) if self.sample_weight is None else self.sample_weight

    @abstractmethod
    def unweighted_item_stats(self) -> ItemStats:
        """Items × s matrix of per-item sufficient statistics, before sample weights."""

    def unweighted_totals(self) -> np.ndarray:
        """Σ_i s_i before sample weights, summed by :func:`~kappalab.kernels.column_totals`
        (blocks, then pairwise: the rounding error does not grow with the items). A core may
        override it with a faster direct reduction, which must equal
        ``unweighted_item_stats().sum(axis=0)``."""
        return column_totals(self.unweighted_item_stats())

    def item_stats(self) -> ItemStats:
        """Items × s matrix of per-item sufficient statistics, row i multiplied by w_i."""
        return weigh_rows(self.unweighted_item_stats(), self.sample_weight)

    def totals(self) -> np.ndarray:
        """Σ_i w_i s_i (length s)."""
        if self.sample_weight is None:
            return self.unweighted_totals()
        return column_totals(self.unweighted_item_stats(), self.sample_weight)

    @abstractmethod
    def combine(self, totals: np.ndarray) -> Components:
        """Components from totals (shape (s,) or (B, s)), at least value/observed/expected."""

    def value_gradient(self, totals: np.ndarray) -> np.ndarray:
        """∇ value(T): the exact gradient of the coefficient in the totals, which the
        analytic standard error needs (:mod:`kappalab.uncertainty`).

        By default :func:`complex_step_gradient` through ``combine`` (exact to rounding);
        cores with many columns override it with their gradient in closed form, checked
        against high-precision derivatives in the tests."""
        return complex_step_gradient(self, totals)

    def undefined_reason(self, parts: Components) -> str | None:
        """Why the coefficient is undefined on these data, or None."""
        return None

    def counts_used(self) -> dict[str, Any]:
        """n_items, n_annotations (and optionally n_raters) entering the estimate."""
        return {}

    def details(self) -> dict[str, Any]:
        return {}

    def blas_cells(self) -> int | None:
        """The size (rows × columns) of the largest dense operand of :meth:`totals` and
        :meth:`combine`, when the core knows it before computing them; below
        :data:`~kappalab.kernels.SMALL_BLAS_CELLS` :meth:`estimate` sets no BLAS thread limit
        (:func:`~kappalab.kernels.single_blas_thread`). None (the default): unknown, the
        limit is set."""
        return None

    def gwet_design(self) -> tuple[int, np.ndarray] | None:
        """(column, units) for Gwet's (2014) variance (``ci="gwet"``,
        :func:`kappalab.uncertainty.gwet_design`): the column of the item statistics holding
        u_i, the item's weight in an observed agreement averaged over the pairable items,
        whose total his formula holds fixed, and a mask of the rows that are his units; None
        (the default) for a coefficient his formula does not cover."""
        return None

    def estimate(self, ci: str | None = None, *, n_resamples: int = 2000,
                 confidence: float = 0.95, seed: SeedLike = None,
                 progress: bool | None = None) -> Estimate:
        """The coefficient on the data; with ``ci`` (a name of
        :data:`kappalab.uncertainty.CI_METHODS`: ``"analytic"``, ``"asymptotic"``,
        ``"gwet"``, ``"bootstrap"``, ``"bootstrap-bca"``, ``"bootstrap-basic"``,
        ``"bayesian-bootstrap"``, ``"jackknife"``, or one of the core's
        :attr:`interval_methods`) also its standard error and interval
        (:mod:`kappalab.uncertainty`); a normal interval (``"asymptotic"``) puts
        ``details["reference"] = "normal"``, so that the estimate's test is the normal one
        too. ``progress``: show the progress of resampling that outlasts 2 s on stderr (None:
        when stderr is a terminal or a notebook; :mod:`kappalab.progress`). The options are
        checked once, into an :class:`~kappalab.uncertainty.IntervalOptions`
        (:meth:`estimate_with`)."""
        return self.estimate_with(IntervalOptions.of(
            ci, n_resamples=n_resamples, confidence=confidence, seed=seed, progress=progress,
            methods=self.interval_methods))

    def check_interval(self, options: IntervalOptions) -> None:
        """Refuse, before any work, an interval the core cannot give on its data
        (``ci="gwet"`` for a coefficient Gwet's formula does not cover); a core adds its own
        checks of its :attr:`interval_methods`."""
        if options.ci not in self.interval_methods and options.method is not None and \
                options.method[0] == "gwet":
            gwet_design(self)

    def estimate_with(self, options: IntervalOptions) -> Estimate:
        """:meth:`estimate` with its interval options checked already
        (:meth:`IntervalOptions.of <kappalab.uncertainty.IntervalOptions.of>`)."""
        ci = options.ci
        if ci is not None and ci not in self.interval_methods and ci not in CI_METHODS:
            parse_ci(ci)  # supplied by other cores: one line that says which
        if ci is not None:  # reject bad options before any work
            self.check_interval(options)
        with single_blas_thread(self.blas_cells()):  # the spine's products are skinny
            self.estimated_totals = self.totals()
            parts = self.combine(self.estimated_totals)
        reason = self.undefined_reason(parts)
        if reason is not None:
            warn(f"{self.name} is undefined: {reason}; returning NaN",
                 UndefinedCoefficientWarning)
            parts = dict(parts, value=np.asarray(np.nan))
        se, bounds, details, used = None, None, self.details(), self.counts_used()
        if ci is not None and reason is None:
            own = self.interval_methods.get(ci)
            if own is not None:
                result = own(self, options)
            else:
                with single_blas_thread():
                    result = interval(self, options)
            se, bounds = result.se, (result.low, result.high)
            if result.interval == "normal":  # the test dual to a normal interval
                details = {**details, "reference": "normal"}
            elif result.interval == "t" and result.n_resamples != used.get("n_items"):
                # a t interval over more units than the pairable items (Fleiss', Conger's κ
                # and Gwet's units count singly-rated items): the test takes its n − 1
                details = {**details, "df": int(result.n_resamples) - 1}
            if result.details:
                details = {**details, **result.details}
        elif ci is None and self.se_without_ci is not None and reason is None and \
                np.isfinite(_scalar(parts["value"])) and used.get("n_items", 0) >= 2:
            se = interval(self, self.se_without_ci).se
        estimate = Estimate(
            coefficient=self.name,
            value=_scalar(parts["value"]),
            observed=_scalar(parts["observed"]),
            expected=_scalar(parts["expected"]),
            observed_disagreement=_optional(parts.get("observed_disagreement")),
            expected_disagreement=_optional(parts.get("expected_disagreement")),
            level=self.level,
            se=se,
            ci=bounds,
            details=details,
            **used,
        )
        return estimate


def _scalar(x: Any) -> float:
    x = np.asarray(x)
    return float(x.reshape(-1)[0]) if x.size else float("nan")


def _optional(x: Any) -> float | None:
    return None if x is None else _scalar(x)


def weigh_rows(stats: ItemStats, weights: np.ndarray | None) -> ItemStats:
    """``stats`` with row i multiplied by ``weights[i]`` (unchanged for None).

    A sparse matrix stays sparse (CSR) and stores no entry of a row of weight 0.

    Parameters
    ----------
    stats : numpy.ndarray or scipy.sparse matrix
        Items × s matrix of per-item statistics.
    weights : numpy.ndarray or None
        One weight per row (length items); None leaves ``stats`` unchanged.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_matrix
        ``stats`` with row i multiplied by ``weights[i]``: a float array for a dense
        ``stats``, a CSR matrix for a sparse one, ``stats`` itself for None.

    Examples
    --------
    >>> weigh_rows(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([2.0, 0.0]))
    array([[2., 4.],
           [0., 0.]])
    >>> weigh_rows(sp.csr_matrix([[1.0, 2.0], [3.0, 4.0]]), np.array([2.0, 0.0])).nnz
    2
    """
    if weights is None:
        return stats
    if issparse(stats):
        weighted = sp.csr_matrix(sp.diags(weights) @ stats)
        weighted.eliminate_zeros()
        return weighted
    weighted_rows: np.ndarray = np.asarray(stats, dtype=float) * weights[:, None]
    return weighted_rows


def disagreement_components(d_o: np.ndarray, d_e: np.ndarray, scale: float,
                            units: float = 1.0) -> Components:
    """The components of a coefficient 1 − D_o/D_e (NaN where D_e ≤ 0).

    The agreements P = 1 − D/scale are given beside the disagreements (see
    :mod:`kappalab.distances`).

    ``d_o``, ``d_e`` and ``scale`` share one unit; the disagreements are reported multiplied
    by ``units`` (the distance's own units when they were computed on normalised scores, see
    :func:`interval_scores`).

    Parameters
    ----------
    d_o : numpy.ndarray
        Observed disagreement D_o: a scalar or one value per stacked row of totals.
    d_e : numpy.ndarray
        Expected disagreement D_e, the same shape as ``d_o``.
    scale : float
        The distance's largest value, in the units of ``d_o`` and ``d_e``.
    units : float, default 1.0
        Factor from those units to the distance's own, applied to the reported
        disagreements only.

    Returns
    -------
    dict of str to numpy.ndarray
        ``value`` (1 − D_o/D_e, NaN where D_e ≤ 0), ``observed`` and ``expected``
        (1 − D/scale), ``observed_disagreement`` and ``expected_disagreement`` (D·units).

    Examples
    --------
    Krippendorff's α of the worked example: D_o = 8/30, D_e = 0.6322 (nominal, scale 1).

    >>> parts = disagreement_components(np.array(8 / 30), np.array(55 / 87), 1.0)
    >>> round(float(parts["value"]), 4), round(float(parts["observed"]), 4)  # 1 − (8/30)/(55/87)
    (0.5782, 0.7333)
    >>> float(disagreement_components(np.array(0.5), np.array(0.0), 1.0)["value"])
    nan
    """
    defined = np.real(d_e) > 0
    with np.errstate(invalid="ignore", divide="ignore"):
        value = 1.0 - d_o / d_e if np.all(defined) else \
            np.where(defined, 1.0 - d_o / np.where(defined, d_e, 1.0), np.nan)
    if units == 1.0:  # the usual case: the disagreements as computed
        reported_o, reported_e = d_o, d_e
    else:
        with np.errstate(over="ignore", under="ignore"):
            reported_o, reported_e = d_o * units, d_e * units
    return {"value": value, "observed": 1.0 - d_o / scale, "expected": 1.0 - d_e / scale,
            "observed_disagreement": reported_o, "expected_disagreement": reported_e}


def distance_product(dis: Any, v: np.ndarray) -> np.ndarray:
    r"""δ v along the last axis of ``v`` for a resolved (symmetric) distance ``dis``, without
    a K × K matrix where the distance has a closed form: nominal δ = 11ᵀ − I gives
    (Σ_k v_k) 1 − v; an interval form δ_ck = (f(s_c − s_k))² (interval, ordinal, quadratic)
    gives, on the normalised scores x of :func:`interval_scores`,

    .. math::  (δv)_c = u \big(x_c^2 \textstyle\sum_k v_k - 2 x_c \sum_k x_k v_k
               + \sum_k x_k^2 v_k\big), \qquad u = \text{units}.

    Anything else multiplies by the matrix.

    Parameters
    ----------
    dis : CategoryDistance
        A resolved symmetric distance (:func:`kappalab.distances.category_distance`).
    v : numpy.ndarray
        Vectors of length K (the categories) along the last axis, e.g. counts or totals.

    Returns
    -------
    numpy.ndarray
        δ v along the last axis, the shape of ``v``.

    Examples
    --------
    >>> from kappalab.distances import category_distance
    >>> values = lambda purpose: np.array([1.0, 2.0, 4.0])
    >>> interval = category_distance("interval", [1, 2, 4], kind="level", values=values)
    >>> distance_product(interval, np.array([1.0, 0.0, 2.0]))  # δ = (c − k)², by hand: 18, 9, 9
    array([18.,  9.,  9.])
    """
    product: np.ndarray
    if dis.name == "nominal":
        product = v.sum(axis=-1, keepdims=True) - v
        return product
    if dis.scores is not None:
        scores = interval_scores(dis)
        x = (dis.scores - scores.shift) * scores.factor
        total = v.sum(axis=-1, keepdims=True)
        first, second = np.asarray(v @ x)[..., None], np.asarray(v @ (x * x))[..., None]
        product = scores.units * (x * x * total - 2 * x * first + second)
        return product
    product = v @ dis.matrix
    return product


def distance_to_own_item(dis: Any, ann: Any) -> np.ndarray:
    r"""For every annotation a (item i, category c), the summed distance to the annotations
    of its own item, (δ n_i)_c = Σ_b δ(c, c_b) — the term an annotation adds to its item's
    n_iᵀ δ n_i beyond the rest, for a symmetric δ with a zero diagonal:

    .. math::  n_i^\top δ\, n_i - (n_i - e_c)^\top δ\, (n_i - e_c) = 2 (δ n_i)_c .

    Nominal δ gives m_i − n_ic; an interval form δ = u(x_c − x_k)² on the normalised scores
    x of :func:`interval_scores` gives u(x_c² m_i − 2 x_c Σx + Σx²) from the item moments
    (the form of :func:`distance_product`); any other δ multiplies blocks of the count table
    by δ, O(annotations × K). O(annotations) in the first two cases.

    Parameters
    ----------
    dis : CategoryDistance
        A resolved symmetric distance (:func:`kappalab.distances.category_distance`).
    ann : Annotations
        The data, with rater identities; the annotations in the order of ``ann.codes()``.

    Returns
    -------
    numpy.ndarray
        (δ n_i)_c of every annotation, in the distance's own units.

    Examples
    --------
    One item labelled a, a, b (nominal): each a is 1 away from the rest, b is 2 away.

    >>> from kappalab.annotations import as_annotations
    >>> from kappalab.distances import category_distance
    >>> ann = as_annotations([["a", "a", "b"]])
    >>> dis = category_distance("nominal", ann.categories, kind="level",
    ...                         values=ann.category_values)
    >>> distance_to_own_item(dis, ann)
    array([1., 1., 2.])
    """
    items, _, cats = ann.codes()
    m = ann.annotations_per_item_array.astype(float)
    if dis.name == "nominal":
        key = items.astype(np.int64) * ann.n_categories + cats
        _, where, same = np.unique(key, return_inverse=True, return_counts=True)
        own: np.ndarray = m[items] - same[where.ravel()]
        return own
    if dis.scores is not None:
        scores = interval_scores(dis)
        _, s1, s2 = ann.item_moments(scores.factor, scores.shift, dis.scores)
        x = (dis.scores[cats] - scores.shift) * scores.factor
        own = scores.units * (x * x * m[items] - 2 * x * s1[items] + s2[items])
        return own
    # any other δ: (n_i δ) for blocks of items (block × K cells at most BLOCK_CELLS), each
    # annotation reading its own category's entry
    counts, delta = ann.category_counts(), dis.matrix
    order = np.argsort(items, kind="stable")
    bounds = np.searchsorted(items[order], np.arange(0, ann.n_items + 1))
    block = max(1, BLOCK_CELLS // max(ann.n_categories, 1))
    out = np.empty(items.size)
    for start in range(0, ann.n_items, block):
        stop = min(ann.n_items, start + block)
        rows = np.asarray(counts[start:stop] @ delta)
        chosen = order[bounds[start]:bounds[stop]]
        out[chosen] = rows[items[chosen] - start, cats[chosen]]
    return out


def within_group_pairs(sizes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For entries laid out group after group (group g holds ``sizes[g]`` consecutive
    entries), the positions (left, right) of every ordered pair of entries of one group, each
    entry with itself included: Σ_g sizes_g² pairs, no loop over groups.

    Parameters
    ----------
    sizes : numpy.ndarray
        The number of consecutive entries of each group (integers ≥ 0).

    Returns
    -------
    left, right : numpy.ndarray
        Entry positions (``numpy.intp``) of the two members of every ordered pair, group by
        group; each has Σ_g sizes_g² elements.

    Examples
    --------
    Groups {0, 1} and {2}: the pairs (0, 0), (0, 1), (1, 0), (1, 1), (2, 2).

    >>> within_group_pairs(np.array([2, 1]))
    (array([0, 0, 1, 1, 2]), array([0, 1, 0, 1, 2]))
    """
    sizes = np.asarray(sizes, dtype=np.intp)
    group = np.repeat(np.arange(sizes.size), sizes)  # the group of each entry
    repeat = sizes[group]  # each entry meets every entry of its group
    left = np.repeat(np.arange(group.size), repeat)
    offset = np.arange(left.size) - np.repeat(np.cumsum(repeat) - repeat, repeat)
    right = np.repeat((np.cumsum(sizes) - sizes)[group], repeat) + offset
    return left, right


def quadratic_form_per_row(counts: ItemStats, delta: np.ndarray) -> np.ndarray:
    """n_iᵀ δ n_i of each row of a sparse count table: a sum over the pairs of the row's
    non-zero entries, O(Σ_i nnz_i²) time and memory — never items × categories.

    Parameters
    ----------
    counts : scipy.sparse matrix
        Items × K count table (converted to CSR).
    delta : numpy.ndarray
        K × K matrix δ.

    Returns
    -------
    numpy.ndarray
        n_iᵀ δ n_i, one value per row of ``counts``.

    Examples
    --------
    >>> delta = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    >>> quadratic_form_per_row(sp.csr_matrix([[2.0, 0.0, 1.0]]), delta)  # 2·(2·1·4)
    array([16.])
    """
    counts = sp.csr_matrix(counts)
    per_row = np.diff(counts.indptr)
    left, right = within_group_pairs(per_row)
    cols, data = counts.indices, counts.data
    products = data[left] * data[right] * delta[cols[left], cols[right]]
    row = np.repeat(np.arange(per_row.size), per_row)
    return np.bincount(row[left], weights=products, minlength=per_row.size)


@dataclass(frozen=True)
class IntervalScores:
    r"""Normalised scores for a distance δ(c, k) = (f·(s_c − s_k))² on per-category positions
    s (the category values, or the mid-ranks of the ordinal metric).

    The scores are x = ``factor``·(s − ``shift``) with the shift at the midrange and the
    factor 2/(max − min), so every score lies in [−1, 1] whatever the magnitude of the
    values (prices in the millions, values ×1e±150): the moments m, Σx, Σx² and the
    differences m Σx² − (Σx)² built from them neither overflow nor cancel. On the scores
    δ = ``units``·(x − y)², ``units`` = (f/factor)², and the distance's largest value (its
    ``scale``) is ``scale`` = (factor·(max − min))² = 4.

    Parameters
    ----------
    factor : float
        Multiplier of the shifted positions: 2/(max − min) (1 for a single value).
    shift : float
        The midrange (min + max)/2 subtracted from the positions.
    units : float
        (f/factor)²: δ = ``units``·(x − y)² on the scores.
    scale : float
        The distance's largest value on the scores: 4 (the distance's own scale for a single
        value).

    Examples
    --------
    Values 1, 2, 4 with f = 1: midrange 2.5, factor 2/3, units (3/2)² = 2.25.

    >>> from kappalab.distances import category_distance
    >>> dis = category_distance("interval", [1, 2, 4], kind="level",
    ...                         values=lambda purpose: np.array([1.0, 2.0, 4.0]))
    >>> interval_scores(dis)
    IntervalScores(factor=0.6666666666666666, shift=2.5, units=2.25, scale=4.0)
    """

    factor: float
    shift: float
    units: float
    scale: float


def interval_scores(dis: Any) -> IntervalScores:
    """The :class:`IntervalScores` of a resolved distance of interval form.

    The distance gives its ``interval_factor`` and per-category ``scores`` (interval and
    ordinal levels, quadratic weights).

    Parameters
    ----------
    dis : CategoryDistance
        A resolved distance of interval form (``dis.scores`` not None).

    Returns
    -------
    IntervalScores
        The shift, factor, units and scale of the normalised scores.

    Examples
    --------
    Values 1, 2, 4: midrange 2.5, factor 2/(4 − 1), units (1/factor)² = 2.25.

    >>> from kappalab.distances import category_distance
    >>> dis = category_distance("interval", [1, 2, 4], kind="level",
    ...                         values=lambda purpose: np.array([1.0, 2.0, 4.0]))
    >>> scores = interval_scores(dis)
    >>> scores.shift, scores.units, scores.scale
    (2.5, 2.25, 4.0)
    """
    low, high = dis.score_range  # without the scores where the data give the extremes
    shift, half_span = low / 2 + high / 2, high / 2 - low / 2  # no overflow at ±1.7e308
    if half_span > 0:
        factor, scale = 1.0 / half_span, 4.0
    else:  # one value: every distance is 0
        factor, scale = 1.0, dis.scale
    with np.errstate(over="ignore", under="ignore"):
        units = float((np.float64(dis.interval_factor) / factor) ** 2)
    return IntervalScores(factor, shift, units, scale)


def complex_step_gradient(core: "ItemSumCoefficient", totals: np.ndarray) -> np.ndarray:
    r"""∇ value(T) by complex-step differentiation, exact to rounding at every scale of T.

    .. math::  \frac{∂f}{∂T_j} = \frac{\operatorname{Im} f(T + i h e_j)}{h} + O(h^2)

    (Squire & Trapp 1998, SIAM Review 40(1), 110–112, doi:10.1137/S003614459631241X). No
    difference of two nearly equal numbers is formed, so h can be as small as 1e-30·\|T_j|:
    the O(h²) term is then below any rounding and no step size can be wrong. It requires a
    ``combine`` built from operations that are analytic in T (arithmetic, ``einsum``,
    ``sqrt``; comparisons only on real parts), which every core's ``combine`` is. One stacked
    ``combine`` call per block of columns: O(s) evaluations of a closed form of size O(s), so
    cores with many columns give their gradient in closed form instead
    (:meth:`ItemSumCoefficient.value_gradient`).

    Parameters
    ----------
    core : ItemSumCoefficient
        The coefficient, whose ``combine`` accepts a complex B × s stack of totals.
    totals : numpy.ndarray
        The totals T (length s) at which to differentiate.

    Returns
    -------
    numpy.ndarray
        ∂ value/∂T_j for every column j (length s).

    References
    ----------
    Squire, W. & Trapp, G. (1998). Using complex variables to estimate derivatives of real
    functions. *SIAM Review* 40(1), 110–112. doi:10.1137/S003614459631241X

    Examples
    --------
    Krippendorff's α = 1 − (T_0/T_1)/D_e on the worked example, T = [8, 30, 5, 10, 15]:
    ∂α/∂T_0 = −1/(T_1 D_e) = −87/(30·55) = −0.0527.

    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> core = alpha_core(kl.datasets.load("worked_example"))
    >>> gradient = complex_step_gradient(core, core.totals())
    >>> round(float(gradient[0]), 4)
    -0.0527
    """
    totals = np.asarray(totals, dtype=float)
    s = totals.size
    magnitude = np.abs(totals)
    step = 1e-30 * np.where(magnitude > 0, magnitude, magnitude.max() if s else 1.0)
    step = np.where(step > 0, step, 1e-30)
    gradient = np.empty(s)
    block = max(1, BLOCK_CELLS // max(s, 1))
    for start in range(0, s, block):
        columns = np.arange(start, min(s, start + block))
        probes = np.tile(totals.astype(complex), (columns.size, 1))
        probes[np.arange(columns.size), columns] += 1j * step[columns]
        values = np.asarray(core.combine(probes)["value"])
        gradient[columns] = np.imag(values) / step[columns]
    return gradient


_FLOAT = np.dtype(float)


def safe_divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, NaN where the denominator is 0 (no RuntimeWarning).

    Complex and object arrays keep their type.

    Parameters
    ----------
    numerator : numpy.ndarray
        Dividend (array-like; broadcast against ``denominator``).
    denominator : numpy.ndarray
        Divisor; where its real part is 0 the result is NaN.

    Returns
    -------
    numpy.ndarray
        The elementwise quotient, of the broadcast shape and the result type of the inputs.

    Examples
    --------
    >>> safe_divide(np.array([1.0, 2.0]), np.array([4.0, 0.0]))
    array([0.25,  nan])
    """
    numerator, denominator = numeric_array(numerator), numeric_array(denominator)
    if numerator.dtype == _FLOAT and denominator.dtype == _FLOAT and \
            denominator.all():  # the common case: floats, no zero divisor (NaN is not 0)
        return np.asarray(np.true_divide(numerator, denominator))
    out = np.full(np.broadcast(numerator, denominator).shape, np.nan,
                  dtype=np.result_type(numerator, denominator))
    np.divide(numerator, denominator, out=out, where=np.real(denominator) != 0)
    return out
