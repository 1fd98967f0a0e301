r"""Inter-annotator correlation: each annotator's Pearson correlation with the mean of the
others, averaged over annotators (Snow, O'Connor, Jurafsky & Ng 2008).

For numeric ratings (affect scores, similarity judgements, 1–5 scales) Snow et al. (2008)
report, and many emotion and similarity datasets after them, for each annotator r the Pearson
correlation between r's ratings x_ri and the mean of the *other* annotators' ratings of the
same items,

.. math::  \bar x_{-r,i} = \frac{1}{m_i - 1} \sum_{s \ne r} x_{si},

over I_r, the items r rated that at least one other annotator rated too (m_i ≥ 2), and then
the average of these r_r over the annotators.

On the item-sum spine (docs/architecture.md, "The item-sum spine") each r_r is a function of
six per-rater totals over items, [n_r, Σx, Σx̄, Σx², Σx̄², Σx·x̄] (x = x_ri, x̄ = x̄_{−r,i}),

.. math::  r_r = \frac{n_r Σx\bar x - Σx\,Σ\bar x}
                 {\sqrt{(n_r Σx^2 - (Σx)^2)(n_r Σ\bar x^2 - (Σ\bar x)^2)}},

so an item's statistics are these six numbers for each of its annotators: an items × 6R
matrix (R raters) with six entries per annotation, stored sparse (CSR), so that memory grows
with the annotations and never with items × raters. Sample weights, the analytic standard
error (with the gradient in closed form, O(R)), the bootstrap and the jackknife then come from
the spine. The leave-one-item-out jackknife (``ci="jackknife"``, and the acceleration of
``ci="bootstrap-bca"``) evaluates the closed form on one row of 6R totals per item, items × 6R
cells of work; it is refused above :data:`LEAVE_ONE_OUT_CELLS` cells, before any of it is
done, in favour of the analytic interval or the plain bootstrap.

Scores are first mapped to [−1, 1] (midrange and half-range of the values used) and centred
per rater — each rater's x and x̄ on the rater's own mean over I_r — which changes no
correlation (r_r is invariant to an affine map of x_r and, separately, of x̄_{−r}) but keeps
the moment sums free of cancellation, so that a constant rater is recognised as such.

References
----------
Snow, R., O'Connor, B., Jurafsky, D. & Ng, A. Y. (2008). Cheap and Fast — But is it Good?
Evaluating Non-Expert Annotations for Natural Language Tasks. *Proceedings of EMNLP 2008*,
254–263. https://aclanthology.org/D08-1027

Fisher, R. A. (1921). On the "probable error" of a coefficient of correlation deduced from a
small sample. *Metron* 1, 3–32.
"""

from __future__ import annotations

from dataclasses import fields
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from ..docstrings import shared_parameters
from ..annotations import Annotations, AnnotationsLike, as_annotations
from ..errors import ExcludedRatersWarning, InvalidParameterError, RaterCountError, warn
from ..estimate import Estimate
from ..uncertainty import IntervalOptions, parse_ci
from ..validation import SampleWeightLike, SeedLike, check_count
from .base import Components, ItemSumCoefficient, numeric_array, safe_divide

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from ..kernels import sp

__all__ = ["AVERAGES", "InterAnnotatorCorrelation", "InterAnnotatorCorrelationCore",
           "LEAVE_ONE_OUT_CELLS", "inter_annotator_correlation"]

#: the averages of the per-rater correlations ``average=`` takes
AVERAGES = ("mean", "fisher")
#: the six per-rater totals, in the order of the blocks of the item statistics
MOMENTS = ("n", "x", "others", "x2", "others2", "x_others")
#: items × 6R cells above which the leave-one-item-out jackknife (``ci="jackknife"``,
#: ``"bootstrap-bca"``) is refused: each item's leave-one-out totals are a row of 6R numbers
LEAVE_ONE_OUT_CELLS = 1 << 32
#: a rater's variance of the normalised scores (in [−1, 1]) at or below this counts as none:
#: (n Σx² − (Σx)²)/n² ≤ 1e-20, a standard deviation of 1e-10 of the half-range
VARIANCE_FLOOR = 1e-20


class InterAnnotatorCorrelation(Estimate):
    r"""The inter-annotator correlation: an :class:`~kappalab.Estimate` that also keeps each
    annotator's correlation with the mean of the others.

    ``value`` is the average over the annotators with a defined correlation of r_r, the
    Pearson correlation of annotator r's ratings with the mean of the other annotators' on the
    same items (``average="mean"``, as Snow et al. 2008 report, or the back-transformed mean
    of Fisher's z); ``observed`` is the plain mean of r_r (the value itself for
    ``average="mean"``), ``expected`` is 0. ``n_items`` and ``n_annotations`` count the items
    with two or more annotations and their annotations, ``n_raters`` the annotators on them.
    ``details`` holds ``per_rater`` (a pandas Series of r_r indexed by rater, NaN for an
    annotator left out), ``shared_items`` (a Series of \|I_r|, the items each annotator shares
    with another), ``n_raters_used``, ``n_raters_excluded``, ``average`` and ``min_items``;
    ``per_rater``, ``shared_items`` and ``average`` are also attributes.
    :func:`inter_annotator_correlation` builds it; its fields are those of
    :class:`~kappalab.Estimate`.

    Parameters
    ----------
    coefficient : str
        The coefficient's display name.
    value : float
        The average of the defined per-annotator correlations.
    observed : float
        Their plain mean.
    expected : float
        0.
    n_items : int
        The number of items with two or more annotations.
    n_annotations : int
        The number of their annotations.
    level : str, default "nominal"
        The level of measurement the ratings were read at ("interval").
    n_raters : int or None, default None
        The number of annotators with an annotation on those items.
    observed_disagreement, expected_disagreement : float or None, default None
        Not used (None).
    se : float or None, default None
        The standard error, when an interval was asked for.
    ci : tuple of float or None, default None
        The confidence interval (low, high), when one was asked for.
    details : Mapping, default {}
        ``per_rater``, ``shared_items``, ``n_raters_used``, ``n_raters_excluded``,
        ``average`` and ``min_items``.

    References
    ----------
    Snow, R., O'Connor, B., Jurafsky, D. & Ng, A. Y. (2008). Cheap and Fast — But is it Good?
    Evaluating Non-Expert Annotations for Natural Language Tasks. *Proceedings of EMNLP
    2008*, 254–263. https://aclanthology.org/D08-1027

    Examples
    --------
    >>> from kappalab.coefficients.correlation import inter_annotator_correlation
    >>> res = inter_annotator_correlation([[1, 1, 2], [2, 3, 2], [3, 2, 3], [4, 4, 5]])
    >>> isinstance(res, InterAnnotatorCorrelation), res.average
    (True, 'mean')
    >>> res.per_rater.round(4).tolist()
    [0.9234, 0.7807, 0.866]
    """

    __slots__ = ()

    @property
    def per_rater(self):
        """r_r of every annotator (a pandas Series indexed by rater; NaN for an annotator
        left out of the average), ``details["per_rater"]``."""
        return self.details["per_rater"]

    @property
    def shared_items(self):
        r"""\|I_r|, the items each annotator shares with another annotator (a pandas Series
        indexed by rater), ``details["shared_items"]``."""
        return self.details["shared_items"]

    @property
    def average(self) -> str:
        """How the per-annotator correlations were averaged (``details["average"]``)."""
        return str(self.details["average"])


class InterAnnotatorCorrelationCore(ItemSumCoefficient):
    r"""The inter-annotator correlation on the spine.

    Item statistics (sparse CSR, items × 6R, six entries per annotation of an item with two
    or more annotations): for annotator r of item i, in block k of R columns, the k-th of
    [1, x, x̄, x², x̄², x·x̄] with x = x_ri and x̄ = x̄_{−r,i} the mean of the item's other
    annotations (normalised and centred per rater, see :mod:`kappalab.coefficients.correlation`).
    ``combine`` forms each r_r from its rater's six totals and averages the defined ones:
    r_r is defined when n_r ≥ ``min_items`` (n_r the weighted count of r's items) and both
    variances exceed ``VARIANCE_FLOOR``·n_r².

    Components of ``combine``: ``value`` (the ``average`` of the defined r_r), ``observed``
    (their plain mean), ``expected`` (0), ``per_rater`` (…, R: r_r, NaN where undefined) and
    ``n_valid`` (the number of defined r_r). Its gradient is given in closed form
    (:meth:`value_gradient`), O(R).

    Parameters
    ----------
    ann : Annotations
        The annotations, with rater identities and numeric values.
    average : {"mean", "fisher"}, default "mean"
        How the per-annotator correlations are averaged.
    min_items : int, default 2
        The fewest items an annotator must share with the others to enter the average.
    sample_weight : array-like, optional
        One weight w_i ≥ 0 per item (:meth:`~ItemSumCoefficient.set_sample_weight`).

    Examples
    --------
    >>> import kappalab as kl
    >>> ann = kl.Annotations.from_wide([[1, 1, 2], [2, 3, 2], [3, 2, 3], [4, 4, 5]])
    >>> core = InterAnnotatorCorrelationCore(ann)
    >>> core.item_stats().shape, core.item_stats().nnz  # 4 items × 6·3, 6 per annotation
    ((4, 18), 72)
    >>> round(float(core.combine(core.totals())["value"]), 4)
    0.8567
    """

    name = "inter-annotator correlation"
    level = "interval"
    upper_bound = 1.0

    def __init__(self, ann: Annotations, average: str = "mean", min_items: int = 2,
                 sample_weight: SampleWeightLike = None):
        rater_index = ann.require_raters(self.name)
        if average not in AVERAGES:
            raise InvalidParameterError(
                f"unknown average {average!r}: use 'mean' (the plain mean of the "
                "per-annotator correlations, as Snow et al. 2008) or 'fisher' (the mean of "
                "Fisher's z, transformed back)")
        self.average = average
        self.min_items = check_count(min_items, "min_items", minimum=2)
        self.set_sample_weight(sample_weight, ann.n_items)
        self.ann = ann
        self.item_labels = ann.items
        self.R = len(rater_index)
        values = ann.category_values(f"the {self.name}")  # NonNumericError for labels
        n_active = ann.n_active_raters
        assert n_active is not None, "require_raters checked the raters"
        if n_active < 2:
            raise RaterCountError(
                f"the {self.name} correlates each annotator with the mean of the others and "
                f"needs at least two annotators, got {ann.n_active_raters} with annotations")
        items, raters, cats = ann.codes()
        m = np.bincount(items, minlength=ann.n_items)
        shared = m[items] >= 2
        items, raters = items[shared], raters[shared]
        x = values[cats[shared]]
        if x.size:  # to [−1, 1]: midrange and half-range (no overflow at ±1.7e308)
            low, high = float(x.min()), float(x.max())
            half = high / 2 - low / 2
            x = (x - (low / 2 + high / 2)) / (half if half > 0 else 1.0)
        sums = np.bincount(items, weights=x, minlength=ann.n_items)
        others = (sums[items] - x) / (m[items] - 1)
        count = np.bincount(raters, minlength=self.R)
        per = np.maximum(count, 1)
        # centred per rater: no correlation changes, the moment sums do not cancel
        x = x - (np.bincount(raters, weights=x, minlength=self.R) / per)[raters]
        others = others - (np.bincount(raters, weights=others, minlength=self.R) / per)[raters]
        self._items, self._raters = items, raters
        self._columns = [np.ones(x.size), x, others, x * x, others * others, x * others]
        self._m = m

    # ------------------------------------------------------------------ statistics
    @property
    def width(self) -> int:
        """6R, the number of columns of the item statistics."""
        return len(MOMENTS) * self.R

    def unweighted_item_stats(self) -> sp.csr_matrix:
        k = len(MOMENTS)
        rows = np.tile(self._items, k)
        cols = (np.repeat(np.arange(k) * self.R, self._raters.size)
                + np.tile(self._raters, k))
        return sp.csr_matrix((np.concatenate(self._columns), (rows, cols)),
                             shape=(self.ann.n_items, self.width))

    def unweighted_totals(self) -> np.ndarray:
        return np.concatenate([np.bincount(self._raters, weights=column, minlength=self.R)
                               for column in self._columns])

    # ------------------------------------------------------------------ closed form
    def _per_rater(self, t: np.ndarray) -> dict[str, np.ndarray]:
        """Each rater's r_r (…, R) from the totals, with the sums it is made of."""
        n, a, b, c, d, e = (t[..., k * self.R:(k + 1) * self.R] for k in range(len(MOMENTS)))
        sxx, syy, sxy = n * c - a * a, n * d - b * b, n * e - a * b
        floor = VARIANCE_FLOOR * np.real(n) ** 2
        valid = ((np.real(n) >= self.min_items - 1e-9) & (np.real(sxx) > floor)
                 & (np.real(syy) > floor))
        root = np.where(valid, sxx * syy, 1.0) ** 0.5
        r = np.where(valid, sxy / root, np.nan)
        clipped = valid & ((np.real(r) > 1) | (np.real(r) < -1))
        r = np.where(np.real(r) > 1, 1.0, np.where(np.real(r) < -1, -1.0, r))
        return {"r": r, "valid": valid, "clipped": clipped, "root": root, "n": n, "a": a,
                "b": b, "c": c, "d": d, "e": e, "sxx": sxx, "syy": syy}

    def combine(self, totals: np.ndarray) -> Components:
        parts = self._per_rater(numeric_array(totals))
        r, valid = parts["r"], parts["valid"]
        n_valid = valid.sum(axis=-1)
        mean = safe_divide(np.where(valid, r, 0.0).sum(axis=-1), n_valid)
        if self.average == "mean":
            value = mean
        else:
            value = np.tanh(safe_divide(np.where(valid, _fisher_z(r), 0.0).sum(axis=-1),
                                        n_valid))
        return {"value": value, "observed": mean, "expected": np.zeros_like(mean),
                "per_rater": r, "n_valid": n_valid}

    def value_gradient(self, totals: np.ndarray) -> np.ndarray:
        r"""∇ value(T) in closed form, O(R). With √ = √(S_xx S_x̄x̄),

        .. math::  \frac{∂r}{∂n} = \frac{Σx\bar x}{√} - \frac r2\Big(\frac{Σx^2}{S_{xx}}
                   + \frac{Σ\bar x^2}{S_{\bar x\bar x}}\Big), \quad
                   \frac{∂r}{∂Σx} = -\frac{Σ\bar x}{√} + \frac{r\,Σx}{S_{xx}}, \quad
                   \frac{∂r}{∂Σx^2} = -\frac{r\,n}{2 S_{xx}}, \quad
                   \frac{∂r}{∂Σx\bar x} = \frac{n}{√}

        (and symmetrically for x̄), times ∂value/∂r_r: 1/\|V| for the mean, (1 − v²)/(\|V|
        (1 − r_r²)) for the Fisher mean v; 0 for an undefined r_r (and for one clipped to
        ±1 by rounding, as the complex-step derivative of ``combine``)."""
        t = np.asarray(totals, dtype=float)
        p = self._per_rater(t)
        valid = p["valid"]
        n_valid = int(valid.sum())
        if n_valid == 0:
            return np.full(t.size, np.nan)
        r = np.where(valid, p["r"], 0.0)
        if self.average == "mean":
            outer = np.full(self.R, 1.0 / n_valid)
        else:
            v = float(np.asarray(self.combine(t)["value"]))
            with np.errstate(divide="ignore", invalid="ignore"):
                outer = (1.0 - v * v) / (n_valid * (1.0 - r * r))
        outer = np.where(valid & ~p["clipped"], outer, 0.0)
        sxx = np.where(valid, p["sxx"], 1.0)
        syy = np.where(valid, p["syy"], 1.0)
        root, n = p["root"], p["n"]
        a, b, c, d, e = p["a"], p["b"], p["c"], p["d"], p["e"]
        blocks = [e / root - r / 2 * (c / sxx + d / syy),
                  -b / root + r * a / sxx,
                  -a / root + r * b / syy,
                  -r * n / (2 * sxx),
                  -r * n / (2 * syy),
                  n / root]
        return np.concatenate([outer * block for block in blocks])

    # ------------------------------------------------------------------ reporting
    def undefined_reason(self, parts: Components) -> str | None:
        if int(np.asarray(parts["n_valid"]).reshape(-1)[0]) == 0:
            return (f"no annotator has a defined correlation with the mean of the others: "
                    f"each needs at least {self.min_items} items shared with other "
                    "annotators, ratings that vary and others' means that vary on them")
        return None

    def _used(self) -> np.ndarray:
        """Whether each annotation of an item with ≥ 2 annotations is on a weighted item."""
        return self.item_weights(self.ann.n_items)[self._items] > 0

    def counts_used(self) -> dict[str, Any]:
        m = np.where(self.item_weights(self.ann.n_items) > 0, self._m, 0)
        used = self._used()
        return {"n_items": int((m >= 2).sum()), "n_annotations": int(m[m >= 2].sum()),
                "n_raters": int(np.unique(self._raters[used]).size)}

    def shared_item_counts(self) -> np.ndarray:
        r"""\|I_r| of every rater: the items (of positive weight) r shares with another."""
        return np.bincount(self._raters[self._used()], minlength=self.R)

    def details(self) -> dict[str, Any]:
        import pandas as pd

        parts = self.combine(self.totals())
        r = np.asarray(parts["per_rater"], dtype=float)
        shared = self.shared_item_counts()
        used = int(np.asarray(parts["n_valid"]))
        return {"per_rater": pd.Series(r, index=self.ann.raters, name="r"),
                "shared_items": pd.Series(shared, index=self.ann.raters, name="shared_items"),
                "n_raters_used": used,
                "n_raters_excluded": int((shared > 0).sum()) - used,
                "average": self.average, "min_items": self.min_items}


def _fisher_z(r: np.ndarray) -> np.ndarray:
    """Fisher's z = artanh r (±∞ at r = ±1, NaN where r is NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.arctanh(r)


def _as_result(est: Estimate) -> InterAnnotatorCorrelation:
    return InterAnnotatorCorrelation(**{f.name: getattr(est, f.name) for f in fields(Estimate)})


@shared_parameters
def inter_annotator_correlation(data: AnnotationsLike, *, average: str = "mean",
                                min_items: int = 2, categories: Sequence[Any] | None = None,
                                sample_weight: SampleWeightLike = None, ci: str | None = None,
                                n_resamples: int = 2000, confidence: float = 0.95,
                                seed: SeedLike = None,
                                progress: bool | None = None) -> InterAnnotatorCorrelation:
    r"""The inter-annotator correlation of numeric ratings (Snow et al. 2008): each
    annotator's Pearson correlation with the mean of the other annotators, averaged.

    .. math::  \bar x_{-r,i} = \frac{1}{m_i - 1}\sum_{s \ne r} x_{si}, \qquad
               r_r = \operatorname{Pearson}_{i ∈ I_r}\big(x_{ri},\ \bar x_{-r,i}\big), \qquad
               \mathrm{IAC} = \frac{1}{|V|}\sum_{r ∈ V} r_r ,

    I_r the items annotator r rated that at least one other annotator rated too (m_i ≥ 2
    annotations), V the annotators whose r_r is defined. With ``average="fisher"`` the average
    is tanh of the mean of Fisher's z = artanh r_r instead.

    **Who enters the average.** An annotator with fewer than ``min_items`` items in I_r
    (default 2), with the same rating on all of them, or on whose items the others' mean does
    not vary has no correlation (NaN in ``per_rater``) and is left out of the average, with an
    :class:`~kappalab.errors.ExcludedRatersWarning` saying how many; if none is left the value
    is NaN with an :class:`~kappalab.errors.UndefinedCoefficientWarning`. Two shared items
    always give r_r = ±1: on sparse crowd data raise ``min_items``. The average is unweighted,
    an annotator with 3 items counting as much as one with 3000, as Snow et al. average it.

    **Fisher average.** tanh(mean z), the usual way of averaging correlations (Fisher 1921):
    z stretches correlations near ±1, so they weigh more than in the plain mean. An annotator
    with r_r = ±1 has z = ±∞ and makes the average ±1 (NaN when both signs occur), so use it
    with ``min_items`` well above 2.

    **On the spine.** r_r is a closed form of six per-annotator totals over items, so the
    statistics are an items × 6R sparse matrix (six entries per annotation) and ``ci=``,
    ``sample_weight=`` and the resampling work as for every estimator, the items being the
    units; ``ci="analytic"`` uses the exact gradient. The set of annotators entering the
    average is recomputed on every bootstrap replicate, and held fixed by the analytic
    standard error, which therefore understates the uncertainty where annotators share few
    items (20 000 items, 4 ratings each from 3 000 annotators, ``min_items=5``: analytic
    0.0031, bootstrap 0.0033, jackknife 0.0037); prefer ``ci="bootstrap"`` on sparse crowd
    data. The leave-one-item-out jackknife (``ci="jackknife"``, and the
    acceleration of ``"bootstrap-bca"``) costs items × 6R cells and is refused above
    :data:`LEAVE_ONE_OUT_CELLS`.

    The value does not change under any affine map a + b·x (b ≠ 0) of all ratings: x_r and
    the others' mean change together (both signs flip when b < 0).

    Parameters
    ----------
    data : Annotations, DataFrame or array-like
        An :class:`~kappalab.Annotations`, or what :func:`~kappalab.annotations.as_annotations`
        reads — a DataFrame with ``item``/``rater``/``value`` (or ``task``/``worker``/``label``)
        columns is long, any other table items × raters. The values must be numbers, and the
        annotators known.
    average : {"mean", "fisher"}, default "mean"
        The plain mean of the per-annotator correlations (Snow et al. 2008), or the mean of
        their Fisher z transformed back.
    min_items : int, default 2
        The fewest items an annotator must share with other annotators to enter the average
        (with sample weights, the weighted count of those items).
    categories : sequence, optional
        The category set and order (default: the values in the data); values outside it raise
        :class:`~kappalab.errors.UnknownCategoryError`, and a category listed but never used
        still counts (in K, and in the values of value-based weights). Here no correlation
        depends on them: they only refuse the values outside them.
    {{shared: sample_weight}}
    {{shared: resampling}}

    Returns
    -------
    InterAnnotatorCorrelation
        An :class:`~kappalab.Estimate` of the average (``observed`` is the plain mean of
        r_r, ``expected`` 0), with ``per_rater`` (a pandas Series of r_r by annotator, NaN
        for those left out) and ``shared_items`` in ``details`` and as attributes, and
        ``se`` and ``ci`` when ``ci=`` is given.

    Raises
    ------
    InvalidParameterError
        An unknown ``average``, ``min_items`` not a whole number ≥ 2, a ``sample_weight``
        that is not one finite w_i ≥ 0 per item (not all 0), an unknown ``ci``,
        ``n_resamples`` < 2, ``confidence`` outside (0, 1), an invalid ``seed``, or a
        jackknife over more than :data:`LEAVE_ONE_OUT_CELLS` items × 6R cells.
    NonNumericError
        Ratings that are not numbers (categorical labels).
    UnknownRatersError
        Data without annotator identities (built from counts).
    RaterCountError
        Fewer than two annotators with annotations.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    Warns
    -----
    ExcludedRatersWarning
        When some annotators with annotations have no defined correlation and are left out
        of the average.

    References
    ----------
    Snow, R., O'Connor, B., Jurafsky, D. & Ng, A. Y. (2008). Cheap and Fast — But is it Good?
    Evaluating Non-Expert Annotations for Natural Language Tasks. *Proceedings of EMNLP
    2008*, 254–263. https://aclanthology.org/D08-1027

    Fisher, R. A. (1921). On the "probable error" of a coefficient of correlation deduced from
    a small sample. *Metron* 1, 3–32.

    Examples
    --------
    Three annotators rate four items on a 1–5 scale. Annotator 0's ratings 1, 2, 3, 4 against
    the others' means 1.5, 2.5, 2.5, 4.5 give, centred, r_0 = 4.5/√(5·4.75) = 0.9234
    (scipy.stats.pearsonr agrees).

    >>> import kappalab as kl
    >>> ratings = [[1, 1, 2], [2, 3, 2], [3, 2, 3], [4, 4, 5]]  # items × annotators
    >>> est = kl.inter_annotator_correlation(ratings)
    >>> round(float(est), 4), est.per_rater.round(4).tolist()
    (0.8567, [0.9234, 0.7807, 0.866])
    >>> est = kl.inter_annotator_correlation(ratings, ci="jackknife")
    >>> est.n_items, est.ci is not None
    (4, True)
    """
    IntervalOptions.of(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                       progress=progress)  # every interval option checked before any work
    core = inter_annotator_correlation_core(data, average=average, min_items=min_items,
                                            categories=categories, sample_weight=sample_weight)
    if ci is not None and (parse_ci(ci)[0] == "jackknife" or ci == "bootstrap-bca"):
        n_items = core.counts_used()["n_items"]
        cells = n_items * core.width
        if cells > LEAVE_ONE_OUT_CELLS:
            raise InvalidParameterError(
                f"ci={ci!r} needs the leave-one-item-out totals of the {core.name}: "
                f"{n_items} items × {core.width} columns (6 per annotator, {core.R} "
                f"annotators) = {cells:.3g} cells of work, refused above "
                f"{LEAVE_ONE_OUT_CELLS:.3g}; use ci='analytic' (exact gradient, "
                "O(annotations)) or ci='bootstrap', which cost the annotations, not "
                "items × annotators")
    totals = core.totals()
    n_valid = int(np.asarray(core.combine(totals)["n_valid"]))
    shared = core.shared_item_counts()
    excluded = int((shared > 0).sum()) - n_valid
    if n_valid and excluded:
        n_r = totals[:core.R]  # the (weighted) count of each annotator's shared items
        few = int(((shared > 0) & (n_r < core.min_items - 1e-9)).sum())
        warn(f"{excluded} of {int((shared > 0).sum())} annotators have no defined "
             f"correlation with the mean of the others and are left out of the "
             f"{core.name}: {few} share fewer than {core.min_items} items with other "
             f"annotators, {excluded - few} have constant ratings (or constant means of the "
             "others) on their items; see per_rater", ExcludedRatersWarning)
    return _as_result(core.estimate(ci, n_resamples=n_resamples, confidence=confidence,
                                    seed=seed, progress=progress))


def inter_annotator_correlation_core(data: AnnotationsLike, *, average: str = "mean",
                                     min_items: int = 2,
                                     categories: Sequence[Any] | None = None,
                                     sample_weight: SampleWeightLike = None
                                     ) -> InterAnnotatorCorrelationCore:
    """The core of :func:`inter_annotator_correlation`: the public function's arguments less
    its interval options, the core whose estimate() is its value
    (kappalab.coefficients.registry, Coefficient.core)."""
    ann = as_annotations(data, categories=categories)
    return InterAnnotatorCorrelationCore(ann, average=average, min_items=min_items,
                                         sample_weight=sample_weight)
