r"""Reliability of item mean scores and Spearman's correction for attenuation.

Two replications X and Y score the same items; compare them through their *item mean scores*
x̄_i, ȳ_i. The observed Pearson correlation r_xy of the means is attenuated by the noise of
each side's annotations; Spearman's (1904) correction divides it by the square root of the two
reliabilities of the means (Wong, Paritosh & Aroyo 2021, eq 12):

.. math::  ρ_{xy} = \frac{r_{xy}}{\sqrt{\mathrm{rel}_x}\,\sqrt{\mathrm{rel}_y}} .

The reliability of a side's mean scores is estimated either

* by **split-half** (the method of Cowen & Keltner 2017 that the paper cites): each item's
  annotations are divided at random into two halves of sizes ⌊m_i/2⌋ and ⌈m_i/2⌉, the
  Pearson correlation r_h of the two half-means across items is stepped up to the full
  number of annotations by the Spearman–Brown formula 2r_h/(1 + r_h), and the result is
  averaged over random splits; or
* by **Spearman–Brown from α**: Krippendorff's interval α of the side is the reliability of a
  single annotation (the ICC), stepped up to the mean number of annotations per item m̄:
  rel = m̄α/(1 + (m̄ − 1)α).

For the random-effects model x_ri = μ_i + ε_ri with m annotations on every item, both target
the same population value, σ_b²/(σ_b² + σ_w²/m) = m·ICC/(1 + (m − 1)·ICC) (exactly for the
split-half when m is even, since then both halves hold m/2 annotations).

Everything is vectorised: the split-half draws one random key per annotation and split, ranks
annotations within their item by one row-wise sort, and sums the halves by segment
(``np.add.reduceat``) — no Python loop over items or annotations; splits are processed in
blocks of a few million keys.

There is one path to each value, the item-sum spine (:mod:`kappalab.coefficients.base`):
``SplitHalfCoefficient`` and ``DisattenuationCoefficient`` give the value as
``combine(totals())`` and, with ``ci=``, the interval from the same core. The results are
:class:`~kappalab.Estimate` subclasses, :class:`SplitHalfReliability` and
:class:`DisattenuatedCorrelation`, which keep the splits and the parts of the correction.

References
----------
Spearman, C. (1904). The proof and measurement of association between two things. *American
Journal of Psychology* 15(1), 72–101.
Spearman, C. (1910). Correlation calculated from faulty data. *British Journal of Psychology*
3(3), 271–295.
Brown, W. (1910). Some experimental results in the correlation of mental abilities. *British
Journal of Psychology* 3(3), 296–322.
Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065 (eq 12, §4.5, Fig. 7).
"""

from __future__ import annotations

import copy
from dataclasses import fields
from typing import Any, Mapping, Sequence, TypeVar

import numpy as np

from ..docstrings import shared_parameters
from ..alignment import AlignedReplications
from ..annotations import Annotations, AnnotationsLike, as_annotations
from ..errors import EmptyDataError, InvalidParameterError, UndefinedCoefficientWarning, warn
from ..estimate import Estimate
from ..kernels import (column_totals, numeric_array, pearson_from_sums, pearson_sums,
                       spearman_brown)
from ..uncertainty import IntervalOptions
from ..validation import SeedLike, make_rng
from ..protocols import ItemStats
from .base import Components, ItemSumCoefficient
from .multirater import alpha_core

__all__ = [
    "DisattenuatedCorrelation",
    "SplitHalfReliability",
    "disattenuated_correlation",
    "spearman_brown",
    "split_half_reliability",
]

#: random keys per block of splits (int64 keys + their order: ~64 MB per block)
_BLOCK = 1 << 22


# ====================================================================== results
E = TypeVar("E", bound=Estimate)


def _dense(stats: ItemStats) -> np.ndarray:
    """Item statistics of an interval-level core here (moments: never sparse)."""
    assert isinstance(stats, np.ndarray), "interval-level item statistics are dense"
    return stats


def _estimate_as(cls: type[E], est: Estimate, **changes: Any) -> E:
    """``est`` as an instance of the Estimate subclass ``cls``, with ``changes``."""
    values = {f.name: getattr(est, f.name) for f in fields(Estimate)}
    values.update(changes)
    return cls(**values)


class SplitHalfReliability(Estimate):
    """Split-half reliability of item mean scores, averaged over random splits: an
    :class:`~kappalab.Estimate` that also keeps the splits.

    ``value`` is the mean over splits of the Spearman–Brown stepped-up correlation
    2r/(1 + r); ``observed`` is the mean over splits of r itself, the half correlation
    (splits where r is undefined are left out of both means), ``expected`` is 0.
    ``n_items`` and ``n_annotations`` count the items with two or more annotations and their
    annotations. ``details`` holds ``half_correlation`` (the mean r), ``n_splits``,
    ``split_values`` and ``split_correlations`` (every split's stepped-up value and r, NaN
    where undefined; read-only arrays), each also readable as an attribute of the same name.
    ``float(result)`` is ``value``; ``se`` and ``ci`` are set when an interval was asked for
    (``ci=``). :func:`split_half_reliability` builds it; its fields are those of
    :class:`~kappalab.Estimate`.

    Parameters
    ----------
    coefficient : str
        The coefficient's display name.
    value : float
        The mean over splits of the stepped-up correlation 2r/(1 + r).
    observed : float
        The mean over splits of the half correlation r.
    expected : float
        0.
    n_items : int
        The number of items with two or more annotations.
    n_annotations : int
        The number of their annotations.
    level : str, default "nominal"
        The level of measurement the scores were read at.
    n_raters : int or None, default None
        The number of raters, None without rater identities.
    observed_disagreement, expected_disagreement : float or None, default None
        Not used (None).
    se : float or None, default None
        The standard error, when an interval was asked for.
    ci : tuple of float or None, default None
        The confidence interval (low, high), when one was asked for.
    details : Mapping, default {}
        ``half_correlation``, ``n_splits``, ``split_values`` and ``split_correlations``.

    References
    ----------
    Spearman, C. (1910). Correlation calculated from faulty data. *British Journal of
    Psychology* 3(3), 271–295. doi:10.1111/j.2044-8295.1910.tb00206.x

    Brown, W. (1910). Some experimental results in the correlation of mental abilities. *British
    Journal of Psychology* 3(3), 296–322. doi:10.1111/j.2044-8295.1910.tb00207.x

    Examples
    --------
    >>> from kappalab.coefficients.disattenuation import split_half_reliability
    >>> res = split_half_reliability([[1, 1], [2, 2], [3, 3], [4, 4]], n_splits=5, seed=0)
    >>> isinstance(res, SplitHalfReliability), res.n_splits
    (True, 5)
    >>> res.half_correlation, res.value  # halves always equal: r = 1, 2·1/(1 + 1) = 1
    (1.0, 1.0)
    """

    __slots__ = ()

    @property
    def half_correlation(self) -> float:
        """The mean over splits of the half correlation r (``details["half_correlation"]``)."""
        return float(self.details["half_correlation"])

    @property
    def n_splits(self) -> int:
        """The number of random splits (``details["n_splits"]``)."""
        return int(self.details["n_splits"])

    @property
    def split_values(self) -> np.ndarray:
        """Every split's 2r/(1 + r), NaN where undefined (``details["split_values"]``)."""
        return self.details["split_values"]

    @property
    def split_correlations(self) -> np.ndarray:
        """Every split's half correlation r, NaN where undefined
        (``details["split_correlations"]``)."""
        return self.details["split_correlations"]


class DisattenuatedCorrelation(Estimate):
    """Spearman's disattenuated correlation of two replications' item mean scores: an
    :class:`~kappalab.Estimate` with the parts of the correction.

    ``value`` is ρ = r/√(reliability_x·reliability_y) (eq 12 of Wong et al. 2021);
    ``observed`` is r, the observed Pearson correlation of the mean scores over the
    ``n_items`` items annotated on both sides, ``expected`` is 0. ``details`` holds ``r``,
    ``reliability_x`` and ``reliability_y`` (the reliabilities of the two sides' mean scores),
    ``method`` (how the reliabilities were obtained: "split_half", "spearman_brown" or
    "given"), the item and annotation counts of each side and what each reliability was
    computed from; ``rho`` (= ``value``), ``r``, ``reliability_x``, ``reliability_y`` and
    ``method`` are also attributes. ``float(result)`` is ρ; ``se`` and ``ci`` are set when an
    interval was asked for (``ci=``). :func:`disattenuated_correlation` builds it; its fields
    are those of :class:`~kappalab.Estimate`.

    Parameters
    ----------
    coefficient : str
        The coefficient's display name.
    value : float
        ρ = r/√(reliability_x·reliability_y).
    observed : float
        r, the Pearson correlation of the two sides' item mean scores.
    expected : float
        0.
    n_items : int
        The number of items annotated on both sides.
    n_annotations : int
        The number of their annotations, both sides together.
    level : str, default "nominal"
        The level of measurement the scores were read at.
    n_raters : int or None, default None
        The number of raters, None without rater identities.
    observed_disagreement, expected_disagreement : float or None, default None
        Not used (None).
    se : float or None, default None
        The standard error, when an interval was asked for.
    ci : tuple of float or None, default None
        The confidence interval (low, high), when one was asked for.
    details : Mapping, default {}
        ``r``, ``reliability_x``, ``reliability_y``, ``method``, the counts of each side
        and what each reliability was computed from.

    References
    ----------
    Spearman, C. (1904). The proof and measurement of association between two things. *The
    American Journal of Psychology* 15(1), 72–101. doi:10.2307/1412159

    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> from kappalab.coefficients.disattenuation import disattenuated_correlation
    >>> x = [[1, 2], [2, 3], [4, 4]]          # item means 1.5, 2.5, 4
    >>> y = [[1, 1], [3, 3], [4, 5]]          # item means 1, 3, 4.5
    >>> res = disattenuated_correlation(x, y, reliability=(0.81, 0.64))
    >>> isinstance(res, DisattenuatedCorrelation), res.method
    (True, 'given')
    >>> round(res.r, 6), round(res.rho, 6)    # r = 156/√(114·222); ρ = r/√(0.81·0.64)
    (0.980609, 1.361956)
    """

    __slots__ = ()

    @property
    def rho(self) -> float:
        """ρ, the same number as ``value``."""
        return float(self.value)

    @property
    def r(self) -> float:
        """The observed Pearson correlation of the item mean scores (``details["r"]``)."""
        return float(self.details["r"])

    @property
    def reliability_x(self) -> float:
        """The reliability of X's mean scores (``details["reliability_x"]``)."""
        return float(self.details["reliability_x"])

    @property
    def reliability_y(self) -> float:
        """The reliability of Y's mean scores (``details["reliability_y"]``)."""
        return float(self.details["reliability_y"])

    @property
    def method(self) -> str:
        """How the reliabilities were obtained (``details["method"]``)."""
        return str(self.details["method"])


# ====================================================================== split-half
def _annotation_scores(ann: Annotations, purpose: str) -> tuple[np.ndarray, np.ndarray]:
    """(item code, numeric value) of every annotation, mapped to [−1, 1] and centred on the
    grand mean (Pearson correlations depend on neither the centre nor the unit; the map keeps
    the half sums free of cancellation, overflow and underflow at any magnitude, 1e±300).
    Works with or without rater identities (counts are expanded)."""
    values = ann.category_values(purpose)  # NonNumericError for labels that are not numbers
    items, categories = ann.item_category_codes()  # counts data: the counts expanded
    scores = _unit_scores(values)[categories]
    if scores.size:
        scores = scores - scores.mean()
    return np.asarray(items, dtype=np.int64), scores


def _unit_scores(values: np.ndarray) -> np.ndarray:
    """The category values mapped affinely onto [−1, 1] (midrange 0, half-span 1; unchanged
    but for the shift when they are all equal)."""
    low, high = float(values.min()), float(values.max())
    half = high / 2 - low / 2  # no overflow at ±1.7e308
    shift = low / 2 + high / 2
    return (values - shift) / half if half > 0 else values - shift


def _check_splits(n_splits: Any) -> int:
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 1:
        raise InvalidParameterError(f"n_splits must be a whole number ≥ 1, got {n_splits!r}")
    return int(n_splits)


class SplitHalfCoefficient(ItemSumCoefficient):
    r"""The split-half reliability on the spine: item statistics [1, Pearson sums of each
    split's half means] (items with two or more annotations), value = mean over defined
    splits of 2r/(1 + r).

    Building the core draws the ``n_splits`` random splits from ``seed`` (advancing a
    Generator passed in) and reduces them, block by block, to the 1 + 5·S totals: the value
    needs O(block) memory, never splits × items. The splits are kept as the state of the
    random generator they were drawn from, and drawn again, identically, when the item
    statistics are asked for (intervals: items × (1 + 5·S) floats).

    Components of ``combine``: ``value``; ``observed``, the mean r over the defined splits;
    ``expected`` (0); ``split_correlations`` and ``split_values``, each split's r and
    2r/(1 + r) (NaN where undefined: no variance, or r = −1); ``n_defined``, the number of
    defined splits.
    """

    name = "split-half reliability"
    level = "interval"
    #: the seed of the interval (set by the core factory): the generator the random splits
    #: were drawn from, which the interval continues, or the seed as given
    interval_seed: SeedLike = None

    def __init__(self, ann: Annotations, n_splits: int = 100, seed: SeedLike = None):
        self.n_splits = _check_splits(n_splits)
        rng = make_rng(seed)
        items, scores = _annotation_scores(ann, self.name)
        m = np.bincount(items, minlength=ann.n_items)
        pairable = m >= 2
        n_used = int(pairable.sum())
        if n_used < 2:
            raise EmptyDataError(
                f"split-half reliability needs at least 2 items with 2 or more annotations, "
                f"got {n_used} (of {ann.n_items} items); with one annotation per item use "
                "reliability='spearman_brown' or give the reliabilities as numbers")
        keep = pairable[items]
        items, scores = items[keep], scores[keep]
        order = np.argsort(items, kind="stable")
        position = np.cumsum(pairable) - 1  # item code -> 0..n_used-1
        item = position[items[order]]  # sorted by item: each item's annotations are contiguous
        self._x = scores[order]
        size = m[pairable]
        self._a = size // 2  # half A: ⌊m/2⌋ annotations; half B: ⌈m/2⌉
        self._b = size - self._a
        start = np.concatenate(([0], np.cumsum(size)[:-1]))
        rank = np.arange(self._x.size) - start[item]  # position within the item
        self._in_a = rank < self._a[item]
        self._a_start = np.concatenate(([0], np.cumsum(self._a)[:-1]))
        self._total = np.bincount(item, weights=self._x, minlength=n_used)
        self._high = item << 32  # the item in the high bits, a random 32-bit key in the low
        self.n_used, self.n_annotations = n_used, int(self._x.size)
        self.item_labels = ann.items[pairable]  # the rows are the items with ≥ 2 annotations
        self._generator = (type(rng.bit_generator), copy.deepcopy(rng.bit_generator.state))
        self._totals = self._reduce(rng)

    def _half_mean_blocks(self, rng: np.random.Generator):
        """(first split, half means A, half means B) of each block of splits, each
        rows × items; one random key per annotation and split, one row-wise sort."""
        N = self._x.size
        block = max(1, _BLOCK // N)
        for first in range(0, self.n_splits, block):
            rows = min(block, self.n_splits - first)
            keys = rng.integers(0, 1 << 32, size=(rows, N), dtype=np.int64)
            keys |= self._high
            shuffled = np.argsort(keys, axis=1)  # random order within each item, items in order
            sum_a = np.add.reduceat(self._x[shuffled[:, self._in_a]], self._a_start, axis=1)
            yield first, sum_a / self._a, (self._total - sum_a) / self._b

    def _drawn_again(self) -> np.random.Generator:
        """A generator in the state the splits were drawn from."""
        kind, state = self._generator
        rng = np.random.Generator(kind())
        rng.bit_generator.state = copy.deepcopy(state)
        return rng

    def _reduce(self, rng: np.random.Generator) -> np.ndarray:
        """The totals [n, Σu, Σv, Σu², Σv², Σuv] (S columns each) of the splits drawn."""
        sums = np.empty((5, self.n_splits))
        for first, mean_a, mean_b in self._half_mean_blocks(rng):
            du = mean_a - mean_a.mean(axis=1, keepdims=True)
            dv = mean_b - mean_b.mean(axis=1, keepdims=True)
            sums[:, first:first + du.shape[0]] = (
                du.sum(axis=1), dv.sum(axis=1), np.einsum("si,si->s", du, du),
                np.einsum("si,si->s", dv, dv), np.einsum("si,si->s", du, dv))
        return np.concatenate(([float(self.n_used)], sums.ravel()))

    def half_means(self) -> np.ndarray:
        """The splits × items × 2 half means (A, B) of the items used, drawn again."""
        means = np.empty((self.n_splits, self.n_used, 2))
        for first, mean_a, mean_b in self._half_mean_blocks(self._drawn_again()):
            means[first:first + mean_a.shape[0], :, 0] = mean_a
            means[first:first + mean_a.shape[0], :, 1] = mean_b
        return means

    def unweighted_item_stats(self) -> np.ndarray:
        means = self.half_means()
        return np.column_stack([np.ones(self.n_used),
                                pearson_sums(means[..., 0].T, means[..., 1].T)])

    def unweighted_totals(self) -> np.ndarray:
        return self._totals.copy()

    def combine(self, totals: np.ndarray) -> Components:
        t = numeric_array(totals)
        r = pearson_from_sums(t[..., 0], t[..., 1:])
        defined = np.real(r) > -1.0  # False for NaN too
        stepped = np.where(defined, 2.0 * r / np.where(defined, 1.0 + r, 1.0), 0.0)
        count = defined.sum(axis=-1)
        some = count > 0
        value = np.where(some, stepped.sum(axis=-1) / np.maximum(count, 1), np.nan)
        half = np.where(some, np.where(defined, r, 0.0).sum(axis=-1) / np.maximum(count, 1),
                        np.nan)
        return {"value": value, "observed": half, "expected": np.zeros_like(value),
                "split_correlations": r, "split_values": np.where(defined, stepped, np.nan),
                "n_defined": count}

    def undefined_reason(self, parts: Components) -> str | None:
        if int(np.asarray(parts["n_defined"]).reshape(-1)[0]) == 0:
            return (f"the half means have no variance (or r = −1) in every one of the "
                    f"{self.n_splits} splits")
        return None

    def warn_left_out(self) -> None:
        """Warn (:class:`~kappalab.errors.UndefinedCoefficientWarning`) when some, but not
        all, splits are undefined and left out of the average."""
        defined = int(self.combine(self.totals())["n_defined"])
        if 0 < defined < self.n_splits:
            warn(f"split-half reliability: {self.n_splits - defined} of {self.n_splits} splits "
                 "have half means without variance (or r = −1) and are left out of the "
                 "average", UndefinedCoefficientWarning)

    def counts_used(self) -> dict[str, Any]:
        return {"n_items": self.n_used, "n_annotations": self.n_annotations}

    def details(self) -> dict[str, Any]:
        parts = self.combine(self.totals())
        split_values = np.array(parts["split_values"], dtype=float)
        split_correlations = np.array(parts["split_correlations"], dtype=float)
        split_values.flags.writeable = False
        split_correlations.flags.writeable = False
        return {"half_correlation": float(parts["observed"]), "n_splits": self.n_splits,
                "split_values": split_values, "split_correlations": split_correlations}


@shared_parameters
def split_half_reliability(ann: AnnotationsLike, *, n_splits: int = 100, seed: SeedLike = None,
                           categories: Sequence[Any] | None = None, ci: str | None = None,
                           n_resamples: int = 2000, confidence: float = 0.95,
                           progress: bool | None = None) -> SplitHalfReliability:
    r"""Split-half reliability of the item mean scores, stepped up by Spearman–Brown.

    For each of ``n_splits`` random splits, every item with m_i ≥ 2 annotations has its
    annotations divided at random into halves A and B of sizes ⌊m_i/2⌋ and ⌈m_i/2⌉; with
    ā_i, b̄_i the half means, r = Pearson(ā, b̄) across items and the split's reliability is
    the Spearman–Brown step-up to the full length,

    .. math::  \mathrm{rel} = \frac{2r}{1 + r}.

    ``value`` is the mean of the splits' reliabilities, ``half_correlation`` the mean r. Items
    with fewer than 2 annotations are left out (``n_items`` counts those used). Values must be
    numbers (``NonNumericError`` otherwise). ``seed``: int, None or ``numpy.random.Generator``.

    Vectorised: one random 32-bit key per annotation and split beside the item code in one
    int64, a row-wise ``argsort`` of a block of splits, and segment sums — O(S·N log N) for S
    splits of N annotations, with no Python loop over items or annotations. The value is
    that of ``SplitHalfCoefficient`` (each split's r from item sums), and ``ci=``
    resamples the items of the same core, every item keeping its halves of every split.

    With exactly two annotations per item a split decides, item by item, which annotation is
    in A; when m is even and the item scores follow x_ri = μ_i + ε_ri, the stepped-up value
    estimates m·ICC/(1 + (m − 1)·ICC), the reliability of the mean of m annotations.

    Parameters
    ----------
    ann : Annotations, DataFrame or array-like
        An :class:`~kappalab.Annotations`, or what :func:`~kappalab.annotations.as_annotations`
        reads — a DataFrame with ``item``/``rater``/``value`` (or ``task``/``worker``/``label``)
        columns is long, any other table items × raters. The values must be numbers.
    n_splits : int, default 100
        The number of random split-half divisions averaged.
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the resampling (:func:`kappalab.validation.make_rng`); None (default) draws fresh
        entropy. The same stream draws the random splits first.
    {{shared: categories}}
    {{shared: ci}}
    {{shared: n_resamples}}
    {{shared: confidence}}
    {{shared: progress}}

    Returns
    -------
    SplitHalfReliability
        An :class:`~kappalab.Estimate` (``observed`` is the mean half correlation) with the
        splits in ``details`` (``half_correlation``, ``n_splits``, ``split_values``,
        ``split_correlations``, also attributes).

    Raises
    ------
    InvalidParameterError
        ``n_splits`` not a whole number ≥ 1, an unknown ``ci``, ``n_resamples`` < 2,
        ``confidence`` outside (0, 1) or an invalid ``seed``.
    NonNumericError
        Values that are not numbers.
    EmptyDataError
        Fewer than two items with two or more annotations.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Spearman, C. (1910). Correlation calculated from faulty data. *British Journal of
    Psychology* 3(3), 271–295. doi:10.1111/j.2044-8295.1910.tb00206.x

    Brown, W. (1910). Some experimental results in the correlation of mental abilities. *British
    Journal of Psychology* 3(3), 296–322. doi:10.1111/j.2044-8295.1910.tb00207.x

    Cowen & Keltner (2017) use it with Spearman's correction, as cited by Wong, K., Paritosh, P.
    & Aroyo, L. (2021). Cross-replication Reliability — An Empirical Approach to Interpreting
    Inter-rater Reliability. ACL 2021, 7053–7065. doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.disattenuation import split_half_reliability
    >>> res = split_half_reliability([[1, 1], [2, 2], [3, 3], [4, 4]], n_splits=5, seed=0)
    >>> res.value, res.n_items   # halves always equal: r = 1, 2·1/(1 + 1) = 1
    (1.0, 4)
    """
    IntervalOptions.of(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                       progress=progress)  # every interval option checked before any work
    core = split_half_reliability_core(ann, n_splits=n_splits, seed=seed,
                                       categories=categories)
    core.warn_left_out()
    return _estimate_as(SplitHalfReliability, core.estimate(
        ci, n_resamples=n_resamples, confidence=confidence, seed=core.interval_seed,
        progress=progress))


# ---------------------------------------------------------------------- core factories
# Each takes the public function's arguments less its interval options and returns the core
# whose estimate() is its value (kappalab.coefficients.registry, Coefficient.core). ``seed``
# stays: it draws the random splits, so it is part of the value; the core keeps the
# generator as ``interval_seed``, which the public function's interval continues.
def split_half_reliability_core(ann: AnnotationsLike, *, n_splits: int = 100, seed: SeedLike = None,
                                categories: Sequence[Any] | None = None
                                ) -> "SplitHalfCoefficient":
    """The core of :func:`split_half_reliability`: ``n_splits`` random splits drawn from
    ``seed``."""
    ann = as_annotations(ann, categories=categories)
    rng = make_rng(seed)
    core = SplitHalfCoefficient(ann, n_splits, rng)
    core.interval_seed = rng
    return core


class _SpearmanBrownAlpha(ItemSumCoefficient):
    """m̄α/(1 + (m̄ − 1)α) with α the interval α of the items: statistics [1, m_i, α's].
    Components: ``value``, ``alpha`` and ``mean_annotations_per_item`` (m̄)."""

    name = "Spearman-Brown reliability"
    level = "interval"

    def __init__(self, ann: Annotations, m: np.ndarray):
        self.alpha, self.m = alpha_core(ann, "interval"), m

    def unweighted_item_stats(self) -> np.ndarray:
        return np.column_stack([np.ones_like(self.m), self.m, _dense(self.alpha.item_stats())])

    def unweighted_totals(self) -> np.ndarray:
        return np.concatenate(([float(self.m.size), float(self.m.sum())],
                               self.alpha.totals()))

    def combine(self, totals: np.ndarray) -> Components:
        t = numeric_array(totals)
        m_bar = t[..., 1] / t[..., 0]
        alpha = np.asarray(self.alpha.combine(t[..., 2:])["value"])
        value = spearman_brown(alpha, m_bar)
        return {"value": value, "observed": value, "expected": np.zeros_like(value),
                "alpha": alpha, "mean_annotations_per_item": m_bar}


class DisattenuationCoefficient(ItemSumCoefficient):
    """ρ = r/√(rel_x rel_y) on the spine: [1, Pearson sums of (x̄, ȳ)] beside each
    reliability's statistics (a reliability core on the same items, or a fixed number).

    Components of ``combine``: ``value`` (ρ), ``observed`` (r), ``expected`` (0),
    ``reliability_x`` and ``reliability_y``. ``n_annotations`` and ``details`` are what
    :meth:`estimate` reports beside them.
    """

    name = "disattenuated correlation"
    level = "interval"
    #: the seed of the interval (set by the core factory): the generator the random splits
    #: were drawn from, which the interval continues, or the seed as given
    interval_seed: SeedLike = None
    upper_bound = None  # ρ may exceed 1 through sampling error

    def __init__(self, mean_x: np.ndarray, mean_y: np.ndarray, rel_x: Any, rel_y: Any, *,
                 n_annotations: int = 0, details: Mapping[str, Any] | None = None):
        self.pearson = np.column_stack([np.ones_like(mean_x),
                                        pearson_sums(mean_x[:, None], mean_y[:, None])])
        self.reliabilities = (rel_x, rel_y)
        self.widths = [rel.totals().size if isinstance(rel, ItemSumCoefficient) else 0
                       for rel in self.reliabilities]
        self.n_annotations = n_annotations
        self._details = dict(details or {})

    def unweighted_item_stats(self) -> np.ndarray:
        return np.column_stack([self.pearson] + [_dense(rel.item_stats())
                                                 for rel in self.reliabilities
                                                 if isinstance(rel, ItemSumCoefficient)])

    def unweighted_totals(self) -> np.ndarray:
        return np.concatenate([column_totals(self.pearson)] + [
            rel.totals() for rel in self.reliabilities if isinstance(rel, ItemSumCoefficient)])

    def combine(self, totals: np.ndarray) -> Components:
        t = numeric_array(totals)
        r = pearson_from_sums(t[..., 0], t[..., 1:6])[..., 0]
        start, rel = 6, []
        for reliability, width in zip(self.reliabilities, self.widths):
            if width:
                part = t[..., start:start + width]
                rel.append(np.asarray(reliability.combine(part)["value"]))
                start += width
            else:
                rel.append(np.full(r.shape, float(reliability)))
        positive = (np.real(rel[0]) > 0) & (np.real(rel[1]) > 0)
        with np.errstate(invalid="ignore"):
            rho = np.where(positive, r / np.where(positive, rel[0] * rel[1], 1.0) ** 0.5,
                           np.nan)
        return {"value": rho, "observed": r, "expected": np.zeros_like(r),
                "reliability_x": rel[0], "reliability_y": rel[1]}

    def undefined_reason(self, parts: Components) -> str | None:
        r, rel_x, rel_y = (float(np.real(np.asarray(parts[k]).reshape(-1)[0]))
                           for k in ("observed", "reliability_x", "reliability_y"))
        if not np.isfinite(r):
            return ("the correlation of mean scores needs ≥ 2 items with varying means on "
                    f"both sides ({self.pearson.shape[0]} item(s) in common)")
        if not (rel_x > 0 and rel_y > 0):
            return (f"it needs both reliabilities > 0, got reliability_x = {rel_x:.4g} and "
                    f"reliability_y = {rel_y:.4g}")
        return None

    def counts_used(self) -> dict[str, Any]:
        return {"n_items": int(self.pearson.shape[0]), "n_annotations": self.n_annotations}

    def details(self) -> dict[str, Any]:
        parts = self.combine(self.totals())
        return dict(self._details, r=float(parts["observed"]),
                    reliability_x=float(parts["reliability_x"]),
                    reliability_y=float(parts["reliability_y"]))


# ====================================================================== disattenuation
def _item_means(ann: Annotations, rows: np.ndarray, purpose: str
                ) -> tuple[np.ndarray, np.ndarray]:
    """(m_i, mean score) of the given item rows, the scores mapped onto [−1, 1] for precision
    at any magnitude (the correlations of the means do not depend on the map)."""
    values = ann.category_values(purpose)
    low, high = float(values.min()), float(values.max())
    half = high / 2 - low / 2
    m, s1, _ = ann.item_moments(1.0 / half if half > 0 else 1.0, low / 2 + high / 2)
    m, s1 = m[rows], s1[rows]
    mean = np.full(m.shape, np.nan)
    np.divide(s1, m, out=mean, where=m > 0)
    return m, mean


def _spearman_brown_parts(core: _SpearmanBrownAlpha) -> dict[str, Any]:
    """What a Spearman–Brown reliability was computed from (its core's components)."""
    parts = core.combine(core.totals())
    return {"reliability": float(parts["value"]), "alpha_interval": float(parts["alpha"]),
            "mean_annotations_per_item": float(parts["mean_annotations_per_item"])}


@shared_parameters
def disattenuated_correlation(x: AnnotationsLike, y: AnnotationsLike,
                              *, reliability: Any = "split_half",
                              n_splits: int = 100, seed: SeedLike = None,
                              categories: Sequence[Any] | None = None, ci: str | None = None,
                              n_resamples: int = 2000, confidence: float = 0.95,
                              progress: bool | None = None) -> DisattenuatedCorrelation:
    r"""Spearman's correction for attenuation of the correlation of item mean scores (eq 12).

    .. math::  ρ_{xy} = \frac{r_{xy}}{\sqrt{\mathrm{rel}_x\,\mathrm{rel}_y}}, \qquad
               r_{xy} = \operatorname{Pearson}_i(\bar x_i, \bar y_i),

    over the items annotated on both sides (items are matched by label, as in
    :func:`~kappalab.cross_kappa`; ``details`` counts the items dropped from each side).
    ``reliability`` gives rel_x and rel_y, the reliabilities of each side's *mean* scores:

    * ``"split_half"`` (default): :func:`split_half_reliability` of each side (``n_splits``
      random splits, ``seed``), Spearman–Brown stepped up, 2r_h/(1 + r_h); r and both
      reliabilities then use the items with two or more annotations on both sides, the means
      whose reliability a split can measure (mixing in single-annotation means would make r
      less reliable than the correction assumes and bias ρ down); ``details["split_half_x"]``
      and ``details["split_half_y"]`` are the two :class:`SplitHalfReliability` results;
    * ``"spearman_brown"``: Krippendorff's interval α of each side on those items as the
      reliability of one annotation, stepped up to the side's mean number of annotations per
      item m̄: m̄α/(1 + (m̄ − 1)α) (``details["spearman_brown_x"]``, ``…_y``: the
      reliability, α and m̄);
    * a pair of numbers ``(rel_x, rel_y)``.

    The value is that of ``DisattenuationCoefficient`` (r from item sums, each
    reliability from its own core on the same items), and ``ci=`` resamples the items of the
    same core: r and both estimated reliabilities move together (given numbers stay fixed).

    ρ is NaN, with an :class:`~kappalab.errors.UndefinedCoefficientWarning`, when a
    reliability is ≤ 0 or undefined, or when r is undefined (a side's means are constant).
    Values must be numbers (``NonNumericError`` otherwise); binary labels 0/1 give the
    proportion of positive judgements as the mean score. ρ may exceed 1 through sampling error
    (Muchinsky 1996). Normalized κx (eq 13) was designed to behave like ρ (§4.5, Fig. 7).

    Parameters
    ----------
    {{shared: replications}}
        The values must be numbers.
    reliability : "split_half", "spearman_brown" or pair of float, default "split_half"
        How rel_x and rel_y are obtained (see above).
    n_splits : int, default 100
        The number of random split-half divisions averaged.
        Used with ``reliability="split_half"``.
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the resampling (:func:`kappalab.validation.make_rng`); None (default) draws fresh
        entropy. The same stream draws the random splits first.
    {{shared: categories}}
    {{shared: ci}}
    {{shared: n_resamples}}
    {{shared: confidence}}
    {{shared: progress}}

    Returns
    -------
    DisattenuatedCorrelation
        An :class:`~kappalab.Estimate` of ρ (``observed`` is r) with ``r``,
        ``reliability_x``, ``reliability_y`` and ``method`` in ``details`` (also attributes).

    Raises
    ------
    InvalidParameterError
        An unknown ``reliability`` or one that is not a pair of numbers, ``n_splits`` not a
        whole number ≥ 1, an unknown ``ci``, ``n_resamples`` < 2, ``confidence`` outside
        (0, 1) or an invalid ``seed``.
    NonNumericError
        Values that are not numbers.
    EmptyDataError
        No item annotated on both sides (with two or more annotations on each side for
        ``"split_half"``), or too few such items for a split-half reliability.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Spearman, C. (1904). The proof and measurement of association between two things.
    *American Journal of Psychology* 15(1), 72–101. doi:10.2307/1412159

    Spearman, C. (1910). Correlation calculated from faulty data. *British Journal of
    Psychology* 3(3), 271–295. doi:10.1111/j.2044-8295.1910.tb00206.x

    Brown, W. (1910). Some experimental results in the correlation of mental abilities. *British
    Journal of Psychology* 3(3), 296–322. doi:10.1111/j.2044-8295.1910.tb00207.x

    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065, eq 12.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> from kappalab.coefficients.disattenuation import disattenuated_correlation
    >>> x = [[1, 2], [2, 3], [4, 4]]          # item means 1.5, 2.5, 4
    >>> y = [[1, 1], [3, 3], [4, 5]]          # item means 1, 3, 4.5
    >>> res = disattenuated_correlation(x, y, reliability=(0.81, 0.64))
    >>> # centred means (−7/6, −1/6, 4/3), (−11/6, 1/6, 5/3): r = 156/√(114·222)
    >>> round(res.r, 6), round(res.rho, 6)    # ρ = r/√(0.81·0.64) = r/0.72
    (0.980609, 1.361956)
    """
    IntervalOptions.of(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                       progress=progress)  # every interval option checked before any work
    core = disattenuated_correlation_core(x, y, reliability=reliability, n_splits=n_splits,
                                          seed=seed, categories=categories)
    return _estimate_as(DisattenuatedCorrelation, core.estimate(
        ci, n_resamples=n_resamples, confidence=confidence, seed=core.interval_seed,
        progress=progress))


def disattenuated_correlation_core(x: AnnotationsLike, y: AnnotationsLike,
                                   *, reliability: Any = "split_half",
                                   n_splits: int = 100, seed: SeedLike = None,
                                   categories: Sequence[Any] | None = None
                                   ) -> "DisattenuationCoefficient":
    """The core of :func:`disattenuated_correlation`: r of the item means over the common
    items and each side's reliability (a split-half or Spearman–Brown core, or a number)."""
    ax = as_annotations(x, categories=categories)
    ay = as_annotations(y, categories=categories)
    purpose = "disattenuated correlation of mean scores"
    ax.category_values(purpose), ay.category_values(purpose)  # both numeric, before anything
    aligned = AlignedReplications(ax, ay)  # EmptyDataError when no item label is shared
    mx, mean_x = _item_means(ax, aligned.x_rows, purpose)
    my, mean_y = _item_means(ay, aligned.y_rows, purpose)
    # a split-half reliability describes means of ≥ 2 annotations: r uses the same items, so
    # that the correction divides by the reliability of the means it correlates
    minimum = 2 if isinstance(reliability, str) and reliability == "split_half" else 1
    both = (mx >= minimum) & (my >= minimum)
    n_both = int(both.sum())
    if n_both == 0:
        raise EmptyDataError(f"no item has {minimum} or more annotations in both replications: "
                             "the correlation of mean scores needs items annotated on both "
                             "sides")
    labels = aligned.items[both]
    details: dict[str, Any] = {
        "n_items_x": ax.n_items, "n_items_y": ay.n_items,
        "n_items_dropped_x": ax.n_items - n_both, "n_items_dropped_y": ay.n_items - n_both,
        "n_annotations_x": int(mx[both].sum()), "n_annotations_y": int(my[both].sum()),
    }
    interval_seed = seed
    cores: Sequence[ItemSumCoefficient | float]  # the two reliabilities: cores or numbers
    if isinstance(reliability, str):
        method = reliability
        if method == "split_half":
            n_splits = _check_splits(n_splits)
            interval_seed = rng = make_rng(seed)
            splits = [SplitHalfCoefficient(ann.subset_items(labels), n_splits, rng)
                      for ann in (ax, ay)]
            halves = []
            for split in splits:
                split.warn_left_out()
                halves.append(_estimate_as(SplitHalfReliability, split.estimate()))
            details["split_half_x"], details["split_half_y"] = halves
            cores = splits
        elif method == "spearman_brown":
            alphas = [_SpearmanBrownAlpha(ax.subset_items(labels), mx[both].astype(float)),
                      _SpearmanBrownAlpha(ay.subset_items(labels), my[both].astype(float))]
            details["spearman_brown_x"], details["spearman_brown_y"] = (
                _spearman_brown_parts(alpha) for alpha in alphas)
            cores = alphas
        else:
            raise InvalidParameterError(
                f"unknown reliability {reliability!r}: use 'split_half', 'spearman_brown' or "
                "a pair of numbers (rel_x, rel_y)")
    elif isinstance(reliability, (tuple, list, np.ndarray)) and len(reliability) == 2:
        method = "given"
        try:
            cores = [float(reliability[0]), float(reliability[1])]
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"reliability as numbers must be a pair of numbers, got {reliability!r}"
            ) from None
    else:
        raise InvalidParameterError(
            "reliability must be 'split_half', 'spearman_brown' or a pair of numbers "
            f"(rel_x, rel_y); got {reliability!r}")
    details["method"] = method
    core = DisattenuationCoefficient(
        mean_x[both], mean_y[both], *cores,
        n_annotations=details["n_annotations_x"] + details["n_annotations_y"],
        details=details)
    core.item_labels = labels
    core.interval_seed = interval_seed
    return core
