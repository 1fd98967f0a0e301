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

from dataclasses import dataclass, field, replace
from typing import Any, Mapping, Sequence

import numpy as np
import pandas as pd

from ..annotations import Annotations, as_annotations
from ..errors import EmptyDataError, InvalidParameterError, UndefinedCoefficientWarning, warn
from ..kernels import pearson_from_sums, pearson_sums, row_pearson, spearman_brown
from ..alignment import AlignedReplications
from ..uncertainty import interval, parse_ci
from ..validation import make_rng
from .base import Components, ItemSumCoefficient, numeric_array
from .multirater import alpha_core, krippendorff_alpha

__all__ = [
    "DisattenuatedCorrelation",
    "SplitHalfReliability",
    "disattenuated_correlation",
    "spearman_brown",
    "split_half_reliability",
]

#: random keys per block of splits (int64 keys + their order: ~64 MB per block)
_BLOCK = 1 << 22


# ====================================================================== split-half
@dataclass(frozen=True, repr=False)
class SplitHalfReliability:
    """Split-half reliability of item mean scores, averaged over random splits.

    ``value`` is the mean over splits of the Spearman–Brown stepped-up correlation
    2r/(1 + r); ``half_correlation`` the mean over splits of r itself (splits where r is
    undefined are left out of both means). ``split_values`` and ``split_correlations`` hold
    every split's values (NaN where undefined). ``float(result)`` is ``value``. ``se`` and
    ``ci`` are set when an interval was asked for (``ci=``).
    """

    value: float
    half_correlation: float
    n_items: int
    n_splits: int
    n_annotations: int
    split_values: np.ndarray = field(compare=False)
    split_correlations: np.ndarray = field(compare=False)
    se: float | None = None
    ci: tuple[float, float] | None = None

    def __float__(self) -> float:
        return float(self.value)

    def __repr__(self) -> str:
        interval = "" if self.ci is None else f"ci=({self.ci[0]:.4f}, {self.ci[1]:.4f}), "
        return (f"SplitHalfReliability(value={self.value:.4f}, {interval}"
                f"half_correlation={self.half_correlation:.4f}, items={self.n_items}, "
                f"splits={self.n_splits})")


def _annotation_scores(ann: Annotations, purpose: str) -> tuple[np.ndarray, np.ndarray]:
    """(item code, numeric value) of every annotation, centred on the grand mean (Pearson
    correlations do not depend on the centre; it keeps the half sums free of cancellation).
    Works with or without rater identities (counts are expanded)."""
    values = ann.category_values(purpose)  # NonNumericError for labels that are not numbers
    items, categories = ann.item_category_codes()  # counts data: the counts expanded
    scores = values[categories]
    if scores.size:
        scores = scores - scores.mean()
    return np.asarray(items, dtype=np.int64), scores


def _check_splits(n_splits: Any) -> int:
    if isinstance(n_splits, bool) or not isinstance(n_splits, (int, np.integer)) or n_splits < 1:
        raise InvalidParameterError(f"n_splits must be a whole number ≥ 1, got {n_splits!r}")
    return int(n_splits)


def _split_half_core(items: np.ndarray, scores: np.ndarray, n_items: int, n_splits: int,
                     rng: np.random.Generator, keep_means: bool = False
                     ) -> tuple[np.ndarray, int, int, np.ndarray | None]:
    """Half correlations r (one per split), items used, annotations used, and (with
    ``keep_means``) the splits × items × 2 half means, for resampling items."""
    m = np.bincount(items, minlength=n_items)
    pairable = m >= 2
    n_used = int(pairable.sum())
    if n_used < 2:
        raise EmptyDataError(
            f"split-half reliability needs at least 2 items with 2 or more annotations, got "
            f"{n_used} (of {n_items} items); with one annotation per item use "
            "reliability='spearman_brown' or give the reliabilities as numbers")
    keep = pairable[items]
    items, scores = items[keep], scores[keep]
    order = np.argsort(items, kind="stable")
    position = np.cumsum(pairable) - 1  # item code -> 0..n_used-1
    item = position[items[order]]  # sorted by item: each item's annotations are contiguous
    x = scores[order]
    N = x.size
    size = m[pairable]
    a = size // 2  # half A: ⌊m/2⌋ annotations; half B: ⌈m/2⌉
    b = size - a
    start = np.concatenate(([0], np.cumsum(size)[:-1]))
    rank = np.arange(N) - start[item]  # position within the item after sorting by random key
    in_a = rank < a[item]
    a_start = np.concatenate(([0], np.cumsum(a)[:-1]))
    total = np.bincount(item, weights=x, minlength=n_used)
    high = item << 32  # the item in the high bits, a random 32-bit key in the low bits
    r = np.empty(n_splits)
    means = np.empty((n_splits, n_used, 2)) if keep_means else None
    block = max(1, _BLOCK // N)
    for first in range(0, n_splits, block):
        rows = min(block, n_splits - first)
        keys = rng.integers(0, 1 << 32, size=(rows, N), dtype=np.int64)
        keys |= high
        shuffled = np.argsort(keys, axis=1)  # random order within each item, items in order
        half_a = x[shuffled[:, in_a]]
        sum_a = np.add.reduceat(half_a, a_start, axis=1)
        mean_a = sum_a / a
        mean_b = (total - sum_a) / b
        r[first:first + rows] = row_pearson(mean_a, mean_b)
        if keep_means:
            means[first:first + rows, :, 0], means[first:first + rows, :, 1] = mean_a, mean_b
    return r, n_used, N, means


def split_half_reliability(ann: Any, n_splits: int = 100, seed: Any = None, *,
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
    splits of N annotations, with no Python loop over items or annotations.

    With exactly two annotations per item a split decides, item by item, which annotation is
    in A; when m is even and the item scores follow x_ri = μ_i + ε_ri, the stepped-up value
    estimates m·ICC/(1 + (m − 1)·ICC), the reliability of the mean of m annotations.

    References: Spearman (1910); Brown (1910); Cowen & Keltner (2017) use it with Spearman's
    correction, as cited by Wong, Paritosh & Aroyo (2021).

    Data: an :class:`~kappalab.Annotations`, or what
    :func:`~kappalab.annotations.as_annotations` reads — a DataFrame with
    ``item``/``rater``/``value`` (or ``task``/``worker``/``label``) columns is long, any other
    table items × raters.

    >>> import kappalab as kl
    >>> from kappalab.coefficients.disattenuation import split_half_reliability
    >>> res = split_half_reliability([[1, 1], [2, 2], [3, 3], [4, 4]], n_splits=5, seed=0)
    >>> res.value, res.n_items   # halves always equal: r = 1, 2·1/(1 + 1) = 1
    (1.0, 4)
    """
    if ci is not None:
        parse_ci(ci)  # an unknown name fails before any work
    ann = as_annotations(ann, categories=categories)
    rng = make_rng(seed)
    result, means = _split_half(ann, _check_splits(n_splits), rng, keep_means=ci is not None)
    if ci is None or not np.isfinite(result.value):
        return result
    interval = _interval(SplitHalfCoefficient(means), ci, n_resamples, confidence, rng,
                         progress)
    return replace(result, se=interval.se, ci=(interval.low, interval.high))


def _split_half(ann: Annotations, n_splits: int, rng: np.random.Generator, *,
                keep_means: bool) -> tuple[SplitHalfReliability, np.ndarray | None]:
    """The split-half result and (with ``keep_means``) its splits × items × 2 half means."""
    items, scores = _annotation_scores(ann, "split-half reliability")
    r, n_used, n_annotations, means = _split_half_core(items, scores, ann.n_items, n_splits,
                                                       rng, keep_means=keep_means)
    defined = np.isfinite(r) & (r > -1.0)
    stepped = np.full_like(r, np.nan)
    stepped[defined] = 2.0 * r[defined] / (1.0 + r[defined])
    if not defined.any():
        warn(f"split-half reliability is undefined: the half means have no variance (or "
             f"r = −1) in every one of the {n_splits} splits; returning NaN",
             UndefinedCoefficientWarning)
        value = half = float("nan")
    else:
        if not defined.all():
            warn(f"split-half reliability: {int((~defined).sum())} of {n_splits} splits have "
                 "half means without variance (or r = −1) and are left out of the average",
                 UndefinedCoefficientWarning)
        value, half = float(stepped[defined].mean()), float(r[defined].mean())
    stepped.flags.writeable = False
    r.flags.writeable = False
    return SplitHalfReliability(value=value, half_correlation=half, n_items=n_used,
                                n_splits=n_splits, n_annotations=n_annotations,
                                split_values=stepped, split_correlations=r), means


def _interval(core: ItemSumCoefficient, ci: str, n_resamples: int, confidence: float,
              seed: Any, progress: bool | None):
    return interval(core, ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                    progress=progress)


# ----------------------------------------------------------------- the same on the spine
# For resampling items (``ci=``) the correlations are written as item sums (DESIGN.md §1):
# Pearson's r of (u_i, v_i) is a function of Σ1, Σu, Σv, Σu², Σv², Σuv, with each split's half
# means held fixed for its items, so a resample reuses the splits of the items it draws.
class SplitHalfCoefficient(ItemSumCoefficient):
    """The split-half reliability on the spine: item statistics [1, Pearson sums of each
    split's half means], value = mean over defined splits of 2r/(1 + r)."""

    name = "split-half reliability"
    level = "interval"

    def __init__(self, means: np.ndarray):
        self.means = means  # splits × items × 2

    def unweighted_item_stats(self) -> np.ndarray:
        a, b = self.means[..., 0].T, self.means[..., 1].T
        return np.column_stack([np.ones(a.shape[0]), pearson_sums(a, b)])

    def combine(self, totals: np.ndarray) -> Components:
        t = numeric_array(totals)
        r = pearson_from_sums(t[..., 0], t[..., 1:])
        defined = np.real(r) > -1.0  # False for NaN too
        stepped = np.where(defined, 2.0 * r / np.where(defined, 1.0 + r, 1.0), 0.0)
        count = defined.sum(axis=-1)
        value = np.where(count > 0, stepped.sum(axis=-1) / np.maximum(count, 1), np.nan)
        return {"value": value, "observed": value, "expected": np.zeros_like(value)}


class _SpearmanBrownAlpha(ItemSumCoefficient):
    """m̄α/(1 + (m̄ − 1)α) with α the interval α of the items: statistics [1, m_i, α's]."""

    def __init__(self, ann: Annotations, m: np.ndarray):
        self.alpha, self.m = alpha_core(ann, "interval"), m

    def unweighted_item_stats(self) -> np.ndarray:
        return np.column_stack([np.ones_like(self.m), self.m, self.alpha.item_stats()])

    def combine(self, totals: np.ndarray) -> Components:
        t = numeric_array(totals)
        m_bar = t[..., 1] / t[..., 0]
        alpha = np.asarray(self.alpha.combine(t[..., 2:])["value"])
        value = spearman_brown(alpha, m_bar)
        return {"value": value, "observed": value, "expected": np.zeros_like(value)}


class DisattenuationCoefficient(ItemSumCoefficient):
    """ρ = r/√(rel_x rel_y) on the spine: [1, Pearson sums of (x̄, ȳ)] beside each
    reliability's statistics (a reliability core on the same items, or a fixed number)."""

    name = "disattenuated correlation"
    level = "interval"
    upper_bound = None  # ρ may exceed 1 through sampling error

    def __init__(self, mean_x: np.ndarray, mean_y: np.ndarray, rel_x: Any, rel_y: Any):
        self.pearson = np.column_stack([np.ones_like(mean_x),
                                        pearson_sums(mean_x[:, None], mean_y[:, None])])
        self.reliabilities = (rel_x, rel_y)
        self.widths = [rel.item_stats().shape[1] if isinstance(rel, ItemSumCoefficient) else 0
                       for rel in self.reliabilities]

    def unweighted_item_stats(self) -> np.ndarray:
        return np.column_stack([self.pearson] + [rel.item_stats() for rel in self.reliabilities
                                                 if isinstance(rel, ItemSumCoefficient)])

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
        return {"value": rho, "observed": r, "expected": np.zeros_like(r)}


# ====================================================================== disattenuation
@dataclass(frozen=True, repr=False)
class DisattenuatedCorrelation:
    """Spearman's disattenuated correlation of two replications' item mean scores.

    ``r`` is the observed Pearson correlation of the mean scores over the ``n_items`` items
    annotated on both sides, ``reliability_x``/``reliability_y`` the reliabilities of the two
    sides' mean scores, ``rho`` = r/√(reliability_x·reliability_y) (eq 12 of Wong et al.
    2021), ``method`` how the reliabilities were obtained ("split_half", "spearman_brown" or
    "given"). ``details`` holds the item counts of each side and what each reliability was
    computed from. ``float(result)`` is ``rho``; ``se`` and ``ci`` are set when an interval
    was asked for (``ci=``).
    """

    r: float
    reliability_x: float
    reliability_y: float
    rho: float
    n_items: int
    method: str
    details: Mapping[str, Any] = field(default_factory=dict, compare=False)
    se: float | None = None
    ci: tuple[float, float] | None = None

    def __float__(self) -> float:
        return float(self.rho)

    @property
    def value(self) -> float:
        """``rho`` (the same name as an :class:`~kappalab.Estimate`'s value)."""
        return float(self.rho)

    def __repr__(self) -> str:
        interval = "" if self.ci is None else f"ci=({self.ci[0]:.4f}, {self.ci[1]:.4f}), "
        return (f"DisattenuatedCorrelation(rho={self.rho:.4f}, {interval}r={self.r:.4f}, "
                f"reliability_x={self.reliability_x:.4f}, "
                f"reliability_y={self.reliability_y:.4f}, items={self.n_items}, "
                f"method={self.method!r})")


def _item_means(ann: Annotations, rows: np.ndarray, purpose: str
                ) -> tuple[np.ndarray, np.ndarray]:
    """(m_i, mean score) of the given item rows, scores centred for precision."""
    values = ann.category_values(purpose)
    shift = 0.5 * (values.min() + values.max())
    m, s1, _ = ann.item_moments(1.0, shift)
    m, s1 = m[rows], s1[rows]
    mean = np.full(m.shape, np.nan)
    np.divide(s1, m, out=mean, where=m > 0)
    return m, mean


def _spearman_brown_reliability(ann: Annotations, m: np.ndarray) -> dict[str, Any]:
    with_alpha = krippendorff_alpha(ann, "interval")
    alpha = float(with_alpha.value)
    m_bar = float(m.mean())
    return {"reliability": spearman_brown(alpha, m_bar) if np.isfinite(alpha) else np.nan,
            "alpha_interval": alpha, "mean_annotations_per_item": m_bar}


def disattenuated_correlation(x: Any, y: Any, reliability: Any = "split_half", *,
                              n_splits: int = 100, seed: Any = None,
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
      less reliable than the correction assumes and bias ρ down);
    * ``"spearman_brown"``: Krippendorff's interval α of each side on those items as the
      reliability of one annotation, stepped up to the side's mean number of annotations per
      item m̄: m̄α/(1 + (m̄ − 1)α);
    * a pair of numbers ``(rel_x, rel_y)``.

    ρ is NaN, with an :class:`~kappalab.errors.UndefinedCoefficientWarning`, when a
    reliability is ≤ 0 or undefined, or when r is undefined (a side's means are constant).
    Values must be numbers (``NonNumericError`` otherwise); binary labels 0/1 give the
    proportion of positive judgements as the mean score. ρ may exceed 1 through sampling error
    (Muchinsky 1996). Normalized κx (eq 13) was designed to behave like ρ (§4.5, Fig. 7).

    References: Spearman (1904); Spearman (1910); Brown (1910); Wong, Paritosh & Aroyo
    (2021), eq 12.

    Data: an :class:`~kappalab.Annotations`, or what
    :func:`~kappalab.annotations.as_annotations` reads — a DataFrame with
    ``item``/``rater``/``value`` (or ``task``/``worker``/``label``) columns is long, any other
    table items × raters.

    >>> from kappalab.coefficients.disattenuation import disattenuated_correlation
    >>> x = [[1, 2], [2, 3], [4, 4]]          # item means 1.5, 2.5, 4
    >>> y = [[1, 1], [3, 3], [4, 5]]          # item means 1, 3, 4.5
    >>> res = disattenuated_correlation(x, y, reliability=(0.81, 0.64))
    >>> # centred means (−7/6, −1/6, 4/3), (−11/6, 1/6, 5/3): r = 156/√(114·222)
    >>> round(res.r, 6), round(res.rho, 6)    # ρ = r/√(0.81·0.64) = r/0.72
    (0.980609, 1.361956)
    """
    if ci is not None:
        parse_ci(ci)  # an unknown name fails before any work
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
    if isinstance(reliability, str):
        method = reliability
        if method == "split_half":
            n_splits = _check_splits(n_splits)
            rng = make_rng(seed)
            halves = [_split_half(ann.subset_items(labels), n_splits, rng,
                                  keep_means=ci is not None) for ann in (ax, ay)]
            rel_x, rel_y = (h.value for h, _ in halves)
            details["split_half_x"], details["split_half_y"] = (h for h, _ in halves)
            cores = [SplitHalfCoefficient(means) for _, means in halves]
        elif method == "spearman_brown":
            subsets = [ax.subset_items(labels), ay.subset_items(labels)]
            parts = [_spearman_brown_reliability(subsets[0], mx[both]),
                     _spearman_brown_reliability(subsets[1], my[both])]
            rel_x, rel_y = (p["reliability"] for p in parts)
            details["spearman_brown_x"], details["spearman_brown_y"] = parts
            cores = [_SpearmanBrownAlpha(subsets[0], mx[both].astype(float)),
                     _SpearmanBrownAlpha(subsets[1], my[both].astype(float))]
        else:
            raise InvalidParameterError(
                f"unknown reliability {reliability!r}: use 'split_half', 'spearman_brown' or "
                "a pair of numbers (rel_x, rel_y)")
    elif isinstance(reliability, (tuple, list, np.ndarray)) and len(reliability) == 2:
        method = "given"
        try:
            rel_x, rel_y = float(reliability[0]), float(reliability[1])
        except (TypeError, ValueError):
            raise InvalidParameterError(
                f"reliability as numbers must be a pair of numbers, got {reliability!r}")
        cores = [rel_x, rel_y]
    else:
        raise InvalidParameterError(
            "reliability must be 'split_half', 'spearman_brown' or a pair of numbers "
            f"(rel_x, rel_y); got {reliability!r}")
    r = float(row_pearson(mean_x[both], mean_y[both])) if n_both >= 2 else float("nan")
    rho = float("nan")
    if not np.isfinite(r):
        warn(f"disattenuated correlation is undefined: the correlation of mean scores needs "
             f"≥ 2 items with varying means on both sides ({n_both} item(s) in common); "
             "returning NaN", UndefinedCoefficientWarning)
    elif not (np.isfinite(rel_x) and np.isfinite(rel_y)) or rel_x <= 0 or rel_y <= 0:
        warn(f"disattenuated correlation is undefined: it needs both reliabilities > 0, got "
             f"reliability_x = {rel_x:.4g} and reliability_y = {rel_y:.4g}; returning NaN",
             UndefinedCoefficientWarning)
    else:
        rho = r / np.sqrt(rel_x * rel_y)
    result = DisattenuatedCorrelation(r=r, reliability_x=float(rel_x),
                                      reliability_y=float(rel_y), rho=float(rho),
                                      n_items=n_both, method=method, details=details)
    if ci is None or not np.isfinite(rho):
        return result
    core = DisattenuationCoefficient(mean_x[both], mean_y[both], *cores)
    interval = _interval(core, ci, n_resamples, confidence,
                         rng if method == "split_half" else seed, progress)
    return replace(result, se=interval.se, ci=(interval.low, interval.high))
