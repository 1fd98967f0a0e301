r"""Two-rater coefficients, and Light's κ (the mean of every pair's Cohen κ).

The two-rater coefficients are the multi-rater core restricted to two raters — Cohen's κ is
Conger's κ, Scott's π is Fleiss' κ, Bennett's S is Brennan–Prediger — so there is one
implementation of each formula. With two raters and complete data these are the textbook
forms on the K × K table T of the pair (Cohen 1960, 1968):

.. math::  P_o = \sum_{kl} w_{kl} T_{kl}/n, \qquad P_e = \sum_{kl} w_{kl}\, p_{1k}\, p_{2l}.

T_kl counts the items rater 1 put in k and rater 2 in l, so an asymmetric W (w_kl ≠ w_lk) is
applied in rater order (the multi-rater core's ``rater_order=True``); the multi-rater
coefficients, Light's κ included, refuse one.

With missing annotations P_o uses the items both raters annotated and each rater's marginal
p_g uses every annotation of that rater (Gwet 2014, ch. 2), which reduces to the table form on
complete data.

Given as two label sequences, the three coefficients are computed from that table itself: one
bincount of the two raters' codes into a (K + 1) × (K + 1) table whose last row and column
count the items one rater left out, which hold every marginal, count and (summed by cell)
influence the per-item sums would give; the options the table does not serve take the
general path.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np
import pandas as pd

from ..docstrings import shared_parameters
from ..annotations import Annotations, AnnotationsLike, as_annotations
from ..distances import DistanceSpec, category_distance
from ..encoding import factorize_texts, numeric_positions
from ..errors import InvalidParameterError, PairwiseMeanWarning, RaterCountError, warn
from ..estimate import Estimate
from ..kernels import rater_marginal_entries
from ..uncertainty import BLOCK_CELLS, IntervalOptions, influence_interval
from .base import (Components, ItemSumCoefficient, complex_step_gradient, distance_product,
                   interval_scores, numeric_array, safe_divide, within_group_pairs)
from .multirater import ChanceCorrectedAgreement, active_raters, weights_for
from ..validation import SampleWeightLike, SeedLike, check_sample_weight

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from ..kernels import sp

__all__ = ["cohen_kappa", "scott_pi", "bennett_s", "light_kappa", "two_raters"]


def two_raters(x: AnnotationsLike, y: Any = None, *, categories: Sequence[Any] | None = None,
               coefficient: str) -> Annotations:
    """Annotations of exactly two raters: ``x`` alone (items × 2, a long DataFrame or an
    Annotations, read as :func:`~kappalab.annotations.as_annotations` reads any data), or the
    two raters' label sequences ``x`` and ``y`` (same length, NaN/None = missing; two ordered
    pandas Categoricals with the same categories fix the category order).

    Parameters
    ----------
    x : AnnotationsLike
        The data (items × 2, a long DataFrame or an Annotations), or with ``y`` the first
        rater's labels.
    y : array-like or None, default None
        The second rater's labels, the same length as ``x``; None: ``x`` holds both raters.
    categories : sequence or None, default None
        The categories in their order; None: those found in the data.
    coefficient : str
        The coefficient's name, for the error messages.

    Returns
    -------
    Annotations
        The data, with exactly two raters with annotations.

    Raises
    ------
    InvalidParameterError
        ``x`` and ``y`` not 1-D sequences of equal length.
    UnknownRatersError
        Data without rater identities.
    RaterCountError
        Not exactly two raters with annotations.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`).

    Examples
    --------
    >>> ann = two_raters(["a", "b", "a"], ["a", "b", "b"], coefficient="Cohen's kappa")
    >>> ann.n_items, ann.n_raters, list(ann.categories)
    (3, 2, ['a', 'b'])
    """
    if y is not None:
        first, second = (getattr(v, "dtype", None) for v in (x, y))
        if categories is None and isinstance(first, pd.CategoricalDtype) and first.ordered \
                and isinstance(second, pd.CategoricalDtype) and second.ordered \
                and first.categories.equals(second.categories):
            categories = list(first.categories)
        a, b = np.asarray(x), np.asarray(y)
        if a.ndim != 1 or b.ndim != 1 or a.size != b.size:
            raise InvalidParameterError(
                f"{coefficient}: the two raters' labels must be 1-D sequences of equal length, "
                f"got shapes {a.shape} and {b.shape}"
            )
        # numbers stay numbers (no object copy: the fast counting path); labels of different
        # types (numbers and strings, booleans and numbers) are kept apart as objects, never
        # cast to one type (docs/guide/data_layouts.md, "Label identity")
        numeric = a.dtype.kind in "iuf" and b.dtype.kind in "iuf"
        if not numeric and not (a.dtype.kind == b.dtype.kind and a.dtype.kind in "USb"):
            a, b = a.astype(object, copy=False), b.astype(object, copy=False)
        ann = Annotations.from_wide(np.column_stack([a, b]), categories=categories,
                                    raters_as_rows=False)
    else:
        ann = as_annotations(x, categories=categories)
    ann.require_raters(coefficient)
    active = ann.n_active_raters
    if active != 2:
        raise RaterCountError(
            f"{coefficient} compares exactly two raters; these data have {active} raters with "
            "annotations (use the multi-rater coefficients, or select two raters)"
        )
    return ann


def _two_rater_core(x, y, categories, weights, chance, name, weighted_name, *,
                    sample_weight: SampleWeightLike) -> ChanceCorrectedAgreement:
    ann = two_raters(x, y, categories=categories, coefficient=name)
    dis = weights_for(ann, weights)
    return ChanceCorrectedAgreement(
        ann, dis, chance=chance, item_weighting="item",
        name=weighted_name if dis.name != "nominal" else name, rater_order=True,
        sample_weight=sample_weight,
    )


# ---------------------------------------------------------------------- core factories
# Each takes the public function's arguments less its interval options and returns the core
# whose estimate() is its value (kappalab.coefficients.registry, Coefficient.core).
def cohen_kappa_core(x: AnnotationsLike, y: Any = None, *, weights: Any = None,
                     categories: Sequence[Any] | None = None,
                     sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`cohen_kappa` (rater-marginal chance, raters in order)."""
    return _two_rater_core(x, y, categories, weights, "rater_marginal", "Cohen's kappa",
                           "Cohen's weighted kappa", sample_weight=sample_weight)


def scott_pi_core(x: AnnotationsLike, y: Any = None, *, weights: Any = None,
                  categories: Sequence[Any] | None = None,
                  sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`scott_pi` (item-marginal chance, raters in order)."""
    return _two_rater_core(x, y, categories, weights, "item_marginal", "Scott's pi",
                           "Scott's pi (weighted)", sample_weight=sample_weight)


def bennett_s_core(x: AnnotationsLike, y: Any = None, *, weights: Any = None,
                   categories: Sequence[Any] | None = None,
                   sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`bennett_s` (uniform chance, raters in order)."""
    return _two_rater_core(x, y, categories, weights, "uniform", "Bennett's S",
                           "Bennett's S (weighted)", sample_weight=sample_weight)


def light_kappa_core(data: AnnotationsLike, *, weights: Any = None,
                     categories: Sequence[Any] | None = None,
                     sample_weight: SampleWeightLike = None) -> "PairwiseMeanKappa":
    """The core of :func:`light_kappa` (the mean of every pair's Cohen κ)."""
    core = PairwiseMeanKappa(as_annotations(data, categories=categories), weights,
                             sample_weight)
    if core.level != "nominal":
        core.name = "Light's kappa (weighted)"
    return core


@shared_parameters
def cohen_kappa(x: AnnotationsLike, y: Any = None, *, weights: DistanceSpec = None,
                categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
                ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
                seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Cohen's κ (1960) and weighted κ (1968) for two raters.

    .. math::  κ = \frac{P_o - P_e}{1 - P_e}, \quad P_o = \sum_{kl} w_{kl} T_{kl}/n, \quad
               P_e = \sum_{kl} w_{kl}\, p_{1k}\, p_{2l}

    Give either one items × 2 table (or Annotations) or the two raters' labels as ``x`` and
    ``y``. Two label sequences are counted into their contingency table T in one pass (one
    row and one column more for the items one rater left out), and κ, P_o, P_e and the
    analytic or asymptotic standard error (Fleiss, Cohen & Everitt 1969) come from T alone
    (with ``sample_weight=``, T of the weights), in memory O(K²) beside the labels;
    ``categories=`` and the other intervals go through the per-item sums, with the same
    numbers.

    Missing annotations: T and P_o count the items both raters annotated; each rater's
    marginal p_{rk} is the share of category k among *all* that rater's annotations, items
    the other rater left out included. The Bayesian
    :func:`kappalab.bayes.cohen_kappa` differs there: its table model drops the one-rater
    items, so its p_e uses the marginals of the complete items only, and on data with
    one-rater items it estimates ``cohen_kappa`` of the complete items, not this value (the
    two agree when every item has both annotations).

    Parameters
    ----------
    x : Annotations, DataFrame or array-like
        An :class:`~kappalab.Annotations`, or what :func:`~kappalab.annotations.as_annotations`
        reads — a DataFrame with ``item``/``rater``/``value`` (or ``task``/``worker``/``label``)
        columns is long, any other table items × raters — with exactly two raters with
        annotations; or, with ``y``, the first rater's labels (a 1-D sequence).
    y : sequence, optional
        The second rater's labels, the same length as ``x`` (NaN/None: missing). Two ordered
        pandas Categoricals with the same categories fix the category order.
    weights : str, array-like or callable, optional
        Agreement weights (Gwet 2014, ch. 3; :mod:`kappalab.distances`): None (default,
        unweighted), ``"identity"``, ``"ordinal"`` (rank based), ``"linear"``, ``"quadratic"``,
        ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"``, a K × K agreement-weight
        matrix W (diagonal 1, entries in [0, 1]) or a callable ``w(a, b)``. ``weights=`` takes
        agreement weights and ``level=`` distances: ``"ordinal"`` is Gwet's rank-based weights
        here, Krippendorff's data-dependent metric there.
        An asymmetric matrix is applied in rater order: T_kl counts the items rater 1 put in k
        and rater 2 in l, rater 1 being ``x`` (or the first rater of ``ann.raters``: a table's
        first column, the first rater to appear in long data), so swapping the raters is
        transposing W.
        Sets of labels (set-valued, multi-label annotations) also take ``"masi"`` and
        ``"jaccard"`` (agreement weights 1 − d: :func:`~kappalab.distances.masi`).
    {{shared: categories}}
    {{shared: sample_weight}}
        The values are scikit-learn's ``cohen_kappa_score`` with the same ``sample_weight``.
    {{shared: resampling}}

    Returns
    -------
    Estimate
        The value (``float(est)``), observed and expected agreement (P_o, P_e on the 0–1
        scale), the items, annotations and raters used, and ``se`` and ``ci`` when ``ci=`` is
        given. NaN, with an :class:`~kappalab.errors.UndefinedCoefficientWarning`, when the
        coefficient is undefined on the data (e.g. a single category).

    Raises
    ------
    InvalidParameterError
        An unknown ``level`` or ``weights``, a malformed weight or distance matrix, a
        ``sample_weight`` that is not one finite w_i ≥ 0 per item (not all 0), an unknown ``ci``,
        ``n_resamples`` < 2, ``confidence`` outside (0, 1) or an invalid ``seed``.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    RaterCountError
        Data with other than two raters with annotations.
    UnknownRatersError
        Data without rater identities (built from counts): the coefficient needs them.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. *Educational and
    Psychological Measurement* 20(1), 37–46. doi:10.1177/001316446002000104

    Cohen, J. (1968). Weighted kappa: nominal scale agreement with provision for scaled
    disagreement or partial credit. *Psychological Bulletin* 70(4), 213–220.
    doi:10.1037/h0026256

    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa
    and weighted kappa. *Psychological Bulletin* 72(5), 323–327. doi:10.1037/h0028106

    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.), ch. 3. Advanced
    Analytics.

    Examples
    --------
    >>> import kappalab as kl
    >>> # by hand: P_o = 3/4, P_e = (2·1 + 2·3)/16 = 1/2, κ = (3/4 − 1/2)/(1/2)
    >>> round(float(kl.cohen_kappa(["a", "a", "b", "b"], ["a", "b", "b", "b"])), 4)
    0.5
    >>> x, y = [1, 2, 3, 1, 2], [1, 3, 3, 2, 2]
    >>> round(float(kl.cohen_kappa(x, y, weights="quadratic")), 4)  # sklearn quadratic: 0.6875
    0.6875
    """
    return _table_or_core(x, y, cohen_kappa_core, "Cohen's kappa", "Cohen's weighted kappa",
                          "rater_marginal", weights, categories, sample_weight, ci,
                          n_resamples, confidence, seed, progress)


@shared_parameters
def scott_pi(x: AnnotationsLike, y: Any = None, *, weights: DistanceSpec = None,
             categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
             ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
             seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Scott's π (1955): two raters sharing one marginal, P_e = Σ w_kl π_k π_l.

    π_k is the mean of the two raters' proportions (Fleiss' κ for two raters).

    Parameters
    ----------
    x : Annotations, DataFrame or array-like
        An :class:`~kappalab.Annotations`, or what :func:`~kappalab.annotations.as_annotations`
        reads — a DataFrame with ``item``/``rater``/``value`` (or ``task``/``worker``/``label``)
        columns is long, any other table items × raters — with exactly two raters with
        annotations; or, with ``y``, the first rater's labels (a 1-D sequence).
    y : sequence, optional
        The second rater's labels, the same length as ``x`` (NaN/None: missing). Two ordered
        pandas Categoricals with the same categories fix the category order.
    weights : str, array-like or callable, optional
        Agreement weights (Gwet 2014, ch. 3; :mod:`kappalab.distances`): None (default,
        unweighted), ``"identity"``, ``"ordinal"`` (rank based), ``"linear"``, ``"quadratic"``,
        ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"``, a K × K agreement-weight
        matrix W (diagonal 1, entries in [0, 1]) or a callable ``w(a, b)``. ``weights=`` takes
        agreement weights and ``level=`` distances: ``"ordinal"`` is Gwet's rank-based weights
        here, Krippendorff's data-dependent metric there.
        An asymmetric matrix is applied in rater order: T_kl counts the items rater 1 put in k
        and rater 2 in l, rater 1 being ``x`` (or the first rater of ``ann.raters``: a table's
        first column, the first rater to appear in long data), so swapping the raters is
        transposing W.
        Sets of labels (set-valued, multi-label annotations) also take ``"masi"`` and
        ``"jaccard"`` (agreement weights 1 − d: :func:`~kappalab.distances.masi`).
    {{shared: categories}}
    {{shared: sample_weight}}
    {{shared: resampling}}

    Returns
    -------
    Estimate
        The value (``float(est)``), observed and expected agreement (P_o, P_e on the 0–1
        scale), the items, annotations and raters used, and ``se`` and ``ci`` when ``ci=`` is
        given. NaN, with an :class:`~kappalab.errors.UndefinedCoefficientWarning`, when the
        coefficient is undefined on the data (e.g. a single category).

    Raises
    ------
    InvalidParameterError
        An unknown ``level`` or ``weights``, a malformed weight or distance matrix, a
        ``sample_weight`` that is not one finite w_i ≥ 0 per item (not all 0), an unknown ``ci``,
        ``n_resamples`` < 2, ``confidence`` outside (0, 1) or an invalid ``seed``.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    RaterCountError
        Data with other than two raters with annotations.
    UnknownRatersError
        Data without rater identities (built from counts): the coefficient needs them.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: the case of nominal scale coding.
    *Public Opinion Quarterly* 19(3), 321–325. doi:10.1086/266577

    Examples
    --------
    >>> import kappalab as kl
    >>> # P_o = 3/4; π = (3/8, 5/8), P_e = 9/64 + 25/64 = 17/32; π = (3/4 − 17/32)/(15/32) = 7/15
    >>> round(float(kl.scott_pi(["a", "a", "b", "b"], ["a", "b", "b", "b"])), 4)
    0.4667
    """
    return _table_or_core(x, y, scott_pi_core, "Scott's pi", "Scott's pi (weighted)",
                          "item_marginal", weights, categories, sample_weight, ci,
                          n_resamples, confidence, seed, progress)


@shared_parameters
def bennett_s(x: AnnotationsLike, y: Any = None, *, weights: DistanceSpec = None,
              categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
              ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
              seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Bennett, Alpert & Goldstein's S (1954) = Brennan–Prediger for two raters: P_e = T_w/K².

    Parameters
    ----------
    x : Annotations, DataFrame or array-like
        An :class:`~kappalab.Annotations`, or what :func:`~kappalab.annotations.as_annotations`
        reads — a DataFrame with ``item``/``rater``/``value`` (or ``task``/``worker``/``label``)
        columns is long, any other table items × raters — with exactly two raters with
        annotations; or, with ``y``, the first rater's labels (a 1-D sequence).
    y : sequence, optional
        The second rater's labels, the same length as ``x`` (NaN/None: missing). Two ordered
        pandas Categoricals with the same categories fix the category order.
    weights : str, array-like or callable, optional
        Agreement weights (Gwet 2014, ch. 3; :mod:`kappalab.distances`): None (default,
        unweighted), ``"identity"``, ``"ordinal"`` (rank based), ``"linear"``, ``"quadratic"``,
        ``"radical"``, ``"ratio"``, ``"circular"``, ``"bipolar"``, a K × K agreement-weight
        matrix W (diagonal 1, entries in [0, 1]) or a callable ``w(a, b)``. ``weights=`` takes
        agreement weights and ``level=`` distances: ``"ordinal"`` is Gwet's rank-based weights
        here, Krippendorff's data-dependent metric there.
        An asymmetric matrix is applied in rater order: T_kl counts the items rater 1 put in k
        and rater 2 in l, rater 1 being ``x`` (or the first rater of ``ann.raters``: a table's
        first column, the first rater to appear in long data), so swapping the raters is
        transposing W.
        Sets of labels (set-valued, multi-label annotations) also take ``"masi"`` and
        ``"jaccard"`` (agreement weights 1 − d: :func:`~kappalab.distances.masi`).
    {{shared: categories}}
    {{shared: sample_weight}}
    {{shared: resampling}}

    Returns
    -------
    Estimate
        The value (``float(est)``), observed and expected agreement (P_o, P_e on the 0–1
        scale), the items, annotations and raters used, and ``se`` and ``ci`` when ``ci=`` is
        given. NaN, with an :class:`~kappalab.errors.UndefinedCoefficientWarning`, when the
        coefficient is undefined on the data (e.g. a single category).

    Raises
    ------
    InvalidParameterError
        An unknown ``level`` or ``weights``, a malformed weight or distance matrix, a
        ``sample_weight`` that is not one finite w_i ≥ 0 per item (not all 0), an unknown ``ci``,
        ``n_resamples`` < 2, ``confidence`` outside (0, 1) or an invalid ``seed``.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    RaterCountError
        Data with other than two raters with annotations.
    UnknownRatersError
        Data without rater identities (built from counts): the coefficient needs them.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Bennett, E. M., Alpert, R. & Goldstein, A. C. (1954). Communications through limited-response
    questioning. *Public Opinion Quarterly* 18(3), 303–308. doi:10.1086/266520

    Examples
    --------
    >>> import kappalab as kl
    >>> # P_o = 3/4, K = 2: P_e = 1/2 and S = (3/4 − 1/2)/(1/2); nltk's AnnotationTask.S(): 0.5
    >>> round(float(kl.bennett_s(["a", "a", "b", "b"], ["a", "b", "b", "b"])), 4)
    0.5
    """
    return _table_or_core(x, y, bennett_s_core, "Bennett's S", "Bennett's S (weighted)", "uniform",
                          weights, categories, sample_weight, ci, n_resamples, confidence,
                          seed, progress)


class PairwiseMeanKappa(ItemSumCoefficient):
    r"""Light's κ: the mean over rater pairs (g, h) sharing items of Cohen's κ_gh.

    Only the P pairs of raters that annotated a common item enter. Item statistics (sparse,
    items × (2P + M)): for each pair, the item's indicator that both raters annotated it
    (n_gh) and the distance of their two labels (Σ δ = D_gh); then each annotation's rater
    marginal: the (rater, category) indicator (M = R·K), or on the interval moment path the
    rater's [1, x, x²] of the normalised score (M = 3R). Then

    .. math::  P_{o,gh} = 1 - \frac{D_{gh}}{n_{gh}\,\text{scale}}, \quad
               P_{e,gh} = 1 - \frac{p_g^\top δ\, p_h}{\text{scale}}, \quad
               κ_L = \frac{1}{|V|}\sum_{(g,h) ∈ V} \frac{P_{o,gh} - P_{e,gh}}{1 - P_{e,gh}},

    V the pairs with a defined κ. Building the statistics costs O(Σ_i m_i²) (every pair of
    annotations of an item), the coefficient O(P·K) (O(P) on the moment path), never
    (R·K)².
    """

    name = "Light's kappa"

    def __init__(self, ann: Annotations, weights: DistanceSpec = None,
                 sample_weight: SampleWeightLike = None):
        n_raters = len(ann.require_raters(self.name))
        self.set_sample_weight(sample_weight, ann.n_items)
        self.ann = ann
        self.item_labels = ann.items
        self.dis = weights_for(ann, weights)
        self.dis.require_symmetric(self.name)  # the mean is over unordered pairs g < h
        self.level = self.dis.name
        self.R, self.K = n_raters, ann.n_categories
        self.use_moments = self.dis.interval_factor is not None
        if self.use_moments:
            scores, values = interval_scores(self.dis), self.dis.scores
            assert values is not None, "a distance of interval form has scores"
            self.scale = scores.scale
            self.x = (values - scores.shift) * scores.factor
        else:
            self.scale = self.dis.scale
        self._pairs = self._annotation_pairs()

    def _annotation_pairs(self) -> dict[str, np.ndarray]:
        """Every pair of annotations of one item by raters g < h: its item, its rater pair
        (an index into the P sharing pairs ``first``, ``second``) and the distance of the
        two labels."""
        items, raters, cats = self.ann.codes()
        order = np.argsort(items, kind="stable")
        items, raters, cats = items[order], raters[order], cats[order]
        left, right = within_group_pairs(np.bincount(items, minlength=self.ann.n_items))
        keep = raters[left] < raters[right]
        left, right = left[keep], right[keep]
        key = raters[left].astype(np.int64) * self.R + raters[right]
        pair_keys, pair_of = np.unique(key, return_inverse=True)
        a, b = cats[left], cats[right]
        if self.use_moments:
            distance = (self.x[a] - self.x[b]) ** 2
        elif self.dis.name == "nominal":
            distance = (a != b).astype(float)
        else:
            distance = self.dis.matrix[a, b]
        return {"item": items[left], "pair": pair_of.ravel(), "distance": distance,
                "first": pair_keys // self.R, "second": pair_keys % self.R}

    @property
    def n_pairs(self) -> int:
        return self._pairs["first"].size

    def _marginal_entries(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(item, column, value) of each annotation's rater-marginal statistics."""
        items, raters, cats = self.ann.codes()
        return rater_marginal_entries(items, raters, cats, self.R, self.K,
                                      self.x[cats] if self.use_moments else None)

    def _width(self) -> int:
        return 2 * self.n_pairs + (3 * self.R if self.use_moments else self.R * self.K)

    def unweighted_item_stats(self) -> sp.csr_matrix:
        pairs, P = self._pairs, self.n_pairs
        items, columns, values = self._marginal_entries()
        rows = np.concatenate([pairs["item"], pairs["item"], items])
        cols = np.concatenate([pairs["pair"], P + pairs["pair"], 2 * P + columns])
        data = np.concatenate([np.ones(pairs["item"].size), pairs["distance"], values])
        return sp.csr_matrix((data, (rows, cols)), shape=(self.ann.n_items, self._width()))

    def unweighted_totals(self) -> np.ndarray:
        pairs, P = self._pairs, self.n_pairs
        _, columns, values = self._marginal_entries()
        return np.concatenate([
            np.bincount(pairs["pair"], minlength=P).astype(float),
            np.bincount(pairs["pair"], weights=pairs["distance"], minlength=P),
            np.bincount(columns, weights=values, minlength=self._width() - 2 * P)])

    # ------------------------------------------------------------------ closed form
    def _rater_distributions(self, marginals: np.ndarray) -> tuple[np.ndarray, ...]:
        """Each rater's label distribution: p (…, R, K), or the score moments (μ, μ₂)."""
        R = self.R
        if self.use_moments:
            n, s1, s2 = marginals[..., :R], marginals[..., R:2 * R], marginals[..., 2 * R:]
            return safe_divide(s1, n), safe_divide(s2, n)
        counts = marginals.reshape(marginals.shape[:-1] + (R, self.K))
        return (safe_divide(counts, counts.sum(axis=-1, keepdims=True)),)

    def _expected_pairs(self, distributions: tuple[np.ndarray, ...]) -> np.ndarray:
        """p_gᵀ δ p_h of every sharing pair (…, P), in blocks of pairs."""
        g, h = self._pairs["first"], self._pairs["second"]
        if self.use_moments:  # E (x_g − x_h)² = μ₂_g + μ₂_h − 2 μ_g μ_h
            mu, mu2 = distributions
            return mu2[..., g] + mu2[..., h] - 2 * mu[..., g] * mu[..., h]
        (p,) = distributions
        row_sums = np.einsum("...k->...", p)  # Σ_k p_gk: 1, or NaN for a rater left empty
        lead = p.shape[:-2]
        out = np.empty(lead + (g.size,), dtype=p.dtype)
        block = max(1, BLOCK_CELLS // max(1, self.K * int(np.prod(lead, dtype=np.int64))))
        for begin in range(0, g.size, block):
            pick = slice(begin, begin + block)
            first, second = p[..., g[pick], :], p[..., h[pick], :]
            if self.dis.name == "nominal":  # p_gᵀ(11ᵀ − I)p_h = Σp_g Σp_h − p_g·p_h
                out[..., pick] = (row_sums[..., g[pick]] * row_sums[..., h[pick]]
                                  - np.einsum("...k,...k->...", first, second))
            else:
                out[..., pick] = np.einsum("...k,...k->...", first, second @ self.dis.matrix)
        return out

    def _pair_parts(self, t: np.ndarray) -> dict[str, Any]:
        P, scale = self.n_pairs, self.scale
        pair_n, pair_distance = t[..., :P], t[..., P:2 * P]
        distributions = self._rater_distributions(t[..., 2 * P:])
        expected = self._expected_pairs(distributions)
        p_o = 1.0 - safe_divide(pair_distance, pair_n) / scale
        p_e = 1.0 - expected / scale
        kappa = safe_divide(p_o - p_e, 1.0 - p_e)
        valid = (np.real(pair_n) > 0) & (np.real(1.0 - p_e) > 0)
        return {"p_o": p_o, "p_e": p_e, "kappa": kappa, "valid": valid, "expected": expected,
                "distributions": distributions, "pair_n": pair_n,
                "pair_distance": pair_distance}

    def combine(self, totals: np.ndarray) -> Components:
        parts = self._pair_parts(numeric_array(totals))
        valid = parts["valid"]
        n_valid = valid.sum(axis=-1)
        mean = lambda a: safe_divide(np.where(valid, a, 0.0).sum(axis=-1), n_valid)
        return {"value": mean(parts["kappa"]), "observed": mean(parts["p_o"]),
                "expected": mean(parts["p_e"]), "n_pairs": n_valid}

    def value_gradient(self, totals: np.ndarray) -> np.ndarray:
        r"""∇ κ_L(T) in closed form, O(P·K): with c = ∂κ_L/∂(p_gᵀδp_h) =
        (1 − P_o)/(|V| scale (1 − P_e)²) per valid pair, the rater marginals' gradient is
        Σ_h c_gh (δp_h − p_gᵀδp_h)/n_g (counts) or through μ_g, μ₂_g (moments)."""
        t = np.asarray(totals, dtype=float)
        parts = self._pair_parts(t)
        valid, P, scale = parts["valid"], self.n_pairs, self.scale
        n_valid = valid.sum()
        if n_valid == 0:
            return np.full(t.size, np.nan)
        pair_n = np.where(valid, parts["pair_n"], 1.0)
        slack = np.where(valid, 1.0 - parts["p_e"], 1.0)
        d_p_o = np.where(valid, 1.0 / (n_valid * slack), 0.0)  # ∂κ_L/∂P_o,gh
        d_expected = np.where(valid, (1.0 - parts["p_o"]) / (n_valid * scale * slack**2), 0.0)
        gradient = np.empty(t.size)
        gradient[:P] = d_p_o * parts["pair_distance"] / (pair_n**2 * scale)
        gradient[P:2 * P] = -d_p_o / (pair_n * scale)
        g, h, R = self._pairs["first"], self._pairs["second"], self.R
        # c_gh in both orders, as a sparse R × R matrix
        C = sp.csr_matrix((np.concatenate([d_expected, d_expected]),
                           (np.concatenate([g, h]), np.concatenate([h, g]))), shape=(R, R))
        if self.use_moments:
            mu, mu2 = (np.nan_to_num(d) for d in parts["distributions"])
            n = t[2 * P:2 * P + R]
            safe_n = np.where(n > 0, n, 1.0)
            d_mu, d_mu2 = -2.0 * (C @ mu), np.asarray(C.sum(axis=1)).ravel()
            gradient[2 * P:] = np.concatenate([-(d_mu * mu + d_mu2 * mu2) / safe_n,
                                               d_mu / safe_n, d_mu2 / safe_n])
            return gradient
        (p,) = parts["distributions"]
        p = np.nan_to_num(p)
        n_g = t[2 * P:].reshape(R, self.K).sum(axis=1)
        E = sp.csr_matrix((np.concatenate([parts["expected"]] * 2),
                           (np.concatenate([g, h]), np.concatenate([h, g]))), shape=(R, R))
        weighted = np.asarray(C.multiply(E).sum(axis=1)).ravel()
        marginal = (distance_product(self.dis, np.asarray(C @ p)) - weighted[:, None])
        gradient[2 * P:] = (marginal / np.where(n_g > 0, n_g, 1.0)[:, None]).ravel()
        return gradient

    def undefined_reason(self, parts: Components) -> str | None:
        if int(np.asarray(parts["n_pairs"]).reshape(-1)[0]) == 0:
            return ("no pair of raters has items in common with a defined Cohen's kappa "
                    "(need shared items and more than one category)")
        return None

    def counts_used(self) -> dict[str, Any]:
        m = np.where(self.item_weights(self.ann.n_items) > 0,
                     self.ann.annotations_per_item_array, 0)
        return {"n_items": int((m >= 2).sum()), "n_annotations": int(m[m >= 2].sum()),
                "n_raters": active_raters(self.ann, self.sample_weight)}

    def shared_items(self) -> np.ndarray:
        """The number of items (of positive sample weight) each rater pair entering the mean
        shares."""
        parts = self._pair_parts(self.totals())
        pairs = self._pairs
        used = (self.item_weights(self.ann.n_items) > 0)[pairs["item"]]
        shared = np.bincount(pairs["pair"], weights=used, minlength=self.n_pairs)
        return shared[parts["valid"]]

    def details(self) -> dict[str, Any]:
        shared = self.shared_items()
        return {"n_pairs": int(shared.size),
                "median_shared_items": float(np.median(shared)) if shared.size else np.nan}


@shared_parameters
def light_kappa(data: AnnotationsLike, *, weights: DistanceSpec = None,
                categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
                ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
                seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Light's κ (1971): the mean of Cohen's κ over all pairs of raters.

    .. math::  κ_L = \binom{R}{2}^{-1} \sum_{g<h} κ_{gh}

    Each pair's κ is :func:`cohen_kappa` of the two raters (their shared items for P_o, each
    rater's annotations for the marginals). Pairs with no shared item or an undefined κ are
    left out of the mean; ``details["n_pairs"]`` says how many entered and
    ``details["median_shared_items"]`` how many items such a pair typically shares. The mean
    is unweighted: on sparse crowd data, where most pairs share a handful of items, a pair
    with 2 items counts as much as one with 200, and a
    :class:`~kappalab.errors.PairwiseMeanWarning` says so when half the pairs share fewer
    than 10 items (Krippendorff's α and Fleiss' κ weigh items, not pairs).
    Cost: O(Σ_i m_i²) to pair the annotations of each item, O(P·K) for the P rater pairs
    that share an item (O(P) for interval-type weights) — never (R·K)².

    Parameters
    ----------
    {{shared: data}}
    {{shared: weights}}
    {{shared: categories}}
    {{shared: sample_weight}}
    {{shared: resampling}}

    Returns
    -------
    Estimate
        The value (``float(est)``), observed and expected agreement (P_o, P_e on the 0–1
        scale), the items, annotations and raters used, and ``se`` and ``ci`` when ``ci=`` is
        given. NaN, with an :class:`~kappalab.errors.UndefinedCoefficientWarning`, when the
        coefficient is undefined on the data (e.g. a single category).

    Raises
    ------
    InvalidParameterError
        An unknown ``level`` or ``weights``, a malformed weight or distance matrix, a
        ``sample_weight`` that is not one finite w_i ≥ 0 per item (not all 0), an unknown ``ci``,
        ``n_resamples`` < 2, ``confidence`` outside (0, 1) or an invalid ``seed``.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    UnknownRatersError
        Data without rater identities (built from counts): the coefficient needs them.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    Warns
    -----
    PairwiseMeanWarning
        When half the rater pairs share fewer than 10 items (and fewer than half the items).

    References
    ----------
    Light, R. J. (1971). Measures of response agreement for qualitative data: some
    generalizations and alternatives. *Psychological Bulletin* 76(5), 365–377.
    doi:10.1037/h0031643

    Examples
    --------
    >>> import kappalab as kl
    >>> est = kl.light_kappa([[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2]])  # sklearn: 0.51515
    >>> round(float(est), 4), est.details["n_pairs"]
    (0.5152, 3)
    >>> data = kl.datasets.load("worked_example")   # sklearn's Cohen κ of A-B, A-C, B-C:
    >>> round(float(kl.light_kappa(data)), 4)       # 0.491525, 0.84375, 0.354839; mean 0.563371
    0.5634
    """
    core = light_kappa_core(data, weights=weights, categories=categories,
                            sample_weight=sample_weight)
    shared = core.shared_items()
    n_items = core.counts_used()["n_items"]
    if shared.size > 1 and np.median(shared) < min(SPARSE_PAIR_ITEMS, n_items / 2):
        warn(f"Light's kappa is an unweighted mean of {shared.size} pairwise Cohen's kappas, "
             f"and half of these rater pairs share fewer than {SPARSE_PAIR_ITEMS} items "
             f"(median {np.median(shared):g}): pairs with few items weigh as much as pairs "
             "with many, and its analytic standard error, which holds the set of pairs "
             "fixed, understates the uncertainty (prefer ci='bootstrap'); Krippendorff's "
             "alpha or Fleiss' kappa weigh items instead",
             PairwiseMeanWarning)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


#: Light's κ warns when half the rater pairs share fewer items than this (and than half
#: the items)
SPARSE_PAIR_ITEMS = 10


# ---------------------------------------------------------------------- the contingency table
#: the largest K × K table (cells) the two-rater table path builds besides the data; with more
#: categories (continuous labels) the general path's per-item sums are smaller
_TABLE_CELLS = 1 << 20


class _Fallback(Exception):
    """The table path cannot serve these data or options: the general path will."""


#: the ``ci=`` the table path serves (None: no interval): the linearisation's
_TABLE_CI = (None, "analytic", "asymptotic")


def _table_or_core(x: Any, y: Any, core_factory: Callable[..., Any], name: str,
                   weighted_name: str, chance: str, weights: Any,
                   categories: Sequence[Any] | None, sample_weight: SampleWeightLike,
                   ci: str | None, n_resamples: Any, confidence: Any, seed: SeedLike,
                   progress: bool | None) -> Estimate:
    """A two-rater coefficient of two label sequences from their contingency table
    (:func:`_table_estimate`) where the table serves the call, else from its core."""
    if y is not None and ci in _TABLE_CI and categories is None:
        try:
            return _table_estimate(x, y, weights, name, weighted_name, chance,
                                   _table_options(ci, n_resamples, confidence, seed, progress),
                                   sample_weight)
        except _Fallback:
            pass
    core = core_factory(x, y, weights=weights, categories=categories,
                        sample_weight=sample_weight)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


def _table_options(ci: str | None, n_resamples: Any, confidence: Any, seed: SeedLike,
                   progress: bool | None) -> IntervalOptions | None:
    """The interval options checked as the general path checks them (a refusal: the general
    path, which checks the data first, says it)."""
    if ci is None:
        return None
    try:
        return IntervalOptions.of(ci, n_resamples=n_resamples, confidence=confidence,
                                  seed=seed, progress=progress, methods=())
    except Exception:
        raise _Fallback from None


def _factorized(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """pd.factorize of one rater's labels (codes −1 for NaN/None) and its uniques as a numpy
    array."""
    if labels.dtype.kind == "U":  # fixed-width texts: hashed, without a string per label
        found = factorize_texts(labels, sort=False)
        if found is not None:
            return found
    codes, uniques = pd.factorize(labels, use_na_sentinel=True)
    return codes, np.asarray(uniques)


def _digits(text: str) -> bool:
    return any(ch.isdigit() for ch in text)


def _read_alike(texts: np.ndarray) -> bool:
    """Whether two distinct texts read as one number (as pandas reads them), which the
    general path warns about."""
    distinct = pd.unique(pd.Series(texts, dtype=object))
    read = pd.to_numeric(pd.Series(distinct, dtype=object), errors="coerce").to_numpy(
        dtype=float, na_value=np.nan)
    read = read[~np.isnan(read)]
    return bool(np.unique(read).size < read.size)


def _joint_table(x: Any, y: Any, item_weights: np.ndarray | None = None
                 ) -> tuple[np.ndarray, np.ndarray, list[np.ndarray]]:
    r"""The (K + 1) × (K + 1) contingency table of two raters' labels and their K categories
    (sorted, as :class:`~kappalab.Annotations` sorts them): T_kl counts the items rater 1 put
    in k and rater 2 in l, row and column K the items one of them left out (NaN/None).

    Small whole numbers are their own codes (one bincount, no hashing); other numbers and
    strings are factorized once per rater and the two sets of uniques merged. Raises
    :class:`_Fallback` for what the general path reads differently or refuses: booleans,
    bytes, mixed types, pandas extension types, texts that may read as numbers, infinite
    values, too many categories, empty or misshapen input.

    With ``item_weights`` (one w_i ≥ 0 per item) also the tables of Σ w_i, of the items of
    positive weight and of Σ w_i², in the same cells (the categories are those of every item,
    weight 0 or not, as the general path's).
    """
    for labels in (x, y):  # numpy arrays, pandas texts, unordered Categoricals: read as
        dtype = getattr(labels, "dtype", None)  # numpy arrays, as the general path does
        if not (dtype is None or isinstance(dtype, (np.dtype, pd.StringDtype)) or (
                isinstance(dtype, pd.CategoricalDtype) and not dtype.ordered)):
            raise _Fallback  # ordered Categoricals fix the categories; nullable numbers
    a, b = np.asarray(x), np.asarray(y)
    if a.ndim != 1 or b.ndim != 1 or a.size != b.size or a.size == 0:
        raise _Fallback

    def weighted(key: np.ndarray, size: int) -> list[np.ndarray]:
        if item_weights is None:
            return []
        return [np.bincount(key, weights=item_weights, minlength=size),
                np.bincount(key, weights=item_weights > 0, minlength=size),
                np.bincount(key, weights=item_weights * item_weights, minlength=size)]

    kinds = set(a.dtype.kind + b.dtype.kind)
    if kinds <= set("iu"):
        lo, hi = min(int(a.min()), int(b.min())), max(int(a.max()), int(b.max()))
        width = hi - lo + 1
        if width * width <= max(_TABLE_CELLS, 4 * a.size) and -2**62 < lo <= hi < 2**62:
            key = a.astype(np.intp, copy=False) * width
            key += b.astype(np.intp, copy=False)
            if lo:
                key -= lo * (width + 1)
            full = np.bincount(key, minlength=width * width).reshape(width, width)
            seen = np.flatnonzero(full.any(axis=1) | full.any(axis=0))

            def place_direct(cells: np.ndarray) -> np.ndarray:
                cells = cells.reshape(width, width)
                table = np.zeros((seen.size + 1, seen.size + 1), dtype=cells.dtype)
                table[:-1, :-1] = cells if seen.size == width else cells[np.ix_(seen, seen)]
                return table

            return place_direct(full), (seen + lo).astype(np.int64), [
                place_direct(cells) for cells in weighted(key, width * width)]
    elif kinds <= set("iuf"):  # numbers as floats (as the items × 2 table holds them)
        for v in (a, b):
            if v.dtype.kind in "iu" and max(abs(int(v.min())), abs(int(v.max()))) > 2**53:
                raise _Fallback  # integers beyond 2**53 are not their float
        a, b = a.astype(float, copy=False), b.astype(float, copy=False)
    elif not kinds <= set("UO"):
        raise _Fallback
    most = max(_TABLE_CELLS, 4 * a.size)
    codes_a, uniques_a = _factorized(a)
    if len(uniques_a) ** 2 > most:  # continuous labels: the per-item sums are smaller
        raise _Fallback
    codes_b, uniques_b = _factorized(b)
    uniques = np.concatenate([uniques_a, uniques_b])
    if uniques.size == 0:
        raise _Fallback
    if uniques.dtype.kind in "iu":
        pass
    elif uniques.dtype.kind == "f":
        if not np.isfinite(uniques).all():
            raise _Fallback  # the general path refuses infinite values
    else:  # texts only (a number, a boolean or a set among them: the general path)
        if not all(type(u) is str for u in uniques.tolist()):
            raise _Fallback
        if sum(map(_digits, set(uniques.tolist()))) > 1 and _read_alike(uniques):
            raise _Fallback  # "1" and "1.0": the general path warns that they read alike
        uniques = uniques.astype(object)
    categories = np.unique(uniques)
    K = categories.size
    if (K + 1) * (K + 1) > most:
        raise _Fallback
    # one bincount of the two raters' own codes (−1 missing: shifted to 0), then each
    # rater's uniques put in their place among the K categories (K: missing)
    width = len(uniques_b) + 1
    key = codes_a.astype(np.intp, copy=False)  # the factorized codes are ours to change
    del codes_a
    key += 1
    key *= width
    key += codes_b
    key += 1
    del codes_b
    size = (len(uniques_a) + 1) * width
    rank_a = np.concatenate([[K], np.searchsorted(categories, uniques_a)]).astype(np.intp)
    rank_b = np.concatenate([[K], np.searchsorted(categories, uniques_b)]).astype(np.intp)

    def place(cells: np.ndarray) -> np.ndarray:
        table = np.zeros((K + 1, K + 1), dtype=cells.dtype)
        table[np.ix_(rank_a, rank_b)] = cells.reshape(-1, width)  # one cell per pair of uniques
        return table

    return place(np.bincount(key, minlength=size)), categories, [
        place(cells) for cells in weighted(key, size)]


def _disagreements(weights: Any, found: np.ndarray) -> tuple[Any, np.ndarray | None]:
    """The resolved ``weights=`` on the K categories found, and the K × K disagreements
    d_kl = δ_kl/scale = 1 − w_kl (None for the unweighted κ, whose d is 1 − I)."""
    if weights is None:
        return None, None
    categories = pd.Index(found, name="category")
    positions = numeric_positions(categories) if found.dtype.kind in "iuf" else None

    def values(purpose: str) -> np.ndarray:
        if positions is None:
            raise _Fallback  # the general path says the labels are not numbers
        return positions.require(purpose)

    try:
        dis = category_distance(weights, categories, kind="weights", values=values,
                                origin=0 if positions is None else positions.origin)
        if dis.name == "nominal":
            return dis, None
        if dis.scores is not None:  # (x_k − x_l)² on the normalised scores: no overflow
            scores = interval_scores(dis)
            z = (dis.scores - scores.shift) * scores.factor
            return dis, (z[:, None] - z[None, :]) ** 2 / scores.scale
        return dis, dis.matrix / dis.scale
    except _Fallback:
        raise
    except Exception:  # the general path raises its own error
        raise _Fallback from None


def _table_estimate(x: Any, y: Any, weights: Any, name: str, weighted_name: str,
                    chance: str = "rater_marginal",
                    options: IntervalOptions | None = None,
                    sample_weight: SampleWeightLike = None) -> Estimate:
    r"""A two-rater coefficient from the raters' contingency table (Cohen 1960, 1968).

    With n_kl the items rater 1 put in k and rater 2 in l (n of them with both labels) and
    the disagreement weights d_kl = δ_kl/scale = 1 − w_kl,

    .. math::  κ = 1 - \frac{D_o}{D_e}, \qquad D_o = \frac{1}{n}\sum_{kl} d_{kl}\, n_{kl},

    and D_e by the chance model: Cohen's κ ``"rater_marginal"``, Σ_kl d_kl p_1k p_2l with
    p_1k, p_2l each rater's share of category k among all its labels (items the other rater
    left out included); Scott's π ``"item_marginal"``, Σ_kl d_kl π_k π_l with π the mean over
    the items with a label of each item's shares; Bennett's S ``"uniform"``, Σ_kl d_kl/K².
    Row and column K of the table, the items one rater left out, give the marginals and the
    counts. The general path's value, observed and expected agreement and counts, from the
    table alone. Raises :class:`_Fallback` where the general path decides (one category, no
    item with both labels, a rater without labels, a zero expected disagreement: its
    warnings and errors), or for weights the table path cannot resolve.

    With ``options`` of ``ci="analytic"`` or ``"asymptotic"`` also the linearised standard
    error and interval (Fleiss, Cohen & Everitt 1969; :mod:`kappalab.uncertainty`): an
    item's statistics depend only on its cell of the table, so the sum over items of the
    squared influences is a sum over the (K + 1)² − 1 cells (:func:`_table_interval`).
    """
    item_weights = None
    if sample_weight is not None:
        try:
            item_weights = check_sample_weight(sample_weight, np.asarray(x).shape[0])
        except Exception:
            raise _Fallback from None  # the general path says it, after the data's checks
        if item_weights is not None and np.all(item_weights == 1.0):
            item_weights = None  # all ones: no weighting at all
    table, found, tables = _joint_table(x, y, item_weights)
    K = found.size
    counted, squared = table, None
    if tables:  # Σ w_i per cell for the values, the items of positive weight for the counts
        table, counted, squared = tables
    both = table[:K, :K]
    n = int(counted[:K, :K].sum())
    first, second = table[:K].sum(axis=1), table[:, :K].sum(axis=0)
    n_first, n_second = int(counted[:K].sum()), int(counted[:, :K].sum())
    if K < 2 or n == 0 or n_first == 0 or n_second == 0:
        raise _Fallback
    n_both = float(both.sum())  # n, or Σ w_i over the items with both labels
    dis, d = _disagreements(weights, found)
    level = "nominal" if dis is None else dis.name
    scale = 1.0 if dis is None else dis.scale
    only_first, only_second = table[:K, K], table[K, :K]  # items one rater left out
    n_single = int(counted[:K, K].sum()) + int(counted[K, :K].sum())
    if chance == "rater_marginal":
        p, q = first / first.sum(), second / second.sum()
    else:  # item_marginal: each item's shares (1/2 per label of an item with two)
        p = q = (0.5 * (both.sum(axis=1) + both.sum(axis=0)) + only_first + only_second) / (
            n_both + float(only_first.sum()) + float(only_second.sum()))
    if d is None:
        d_o = 1.0 - np.trace(both) / n_both
        d_e = 1.0 - 1.0 / K if chance == "uniform" else 1.0 - float(p @ q)
    else:
        d_o = float((d * both).sum()) / n_both
        d_e = float(d.sum()) / K**2 if chance == "uniform" else float(p @ d @ q)
    if not (np.isfinite(d_e) and d_e > 0 and np.isfinite(d_o)):
        raise _Fallback
    moments = dis is not None and dis.interval_factor is not None and chance != "uniform"
    details: dict[str, Any] = {
        "chance_model": chance, "item_weighting": "item", "n_categories": K,
        "n_items_unpairable": n_single, "moment_path": moments}
    d_o, d_e = float(d_o), float(d_e)
    value, se, bounds = 1.0 - d_o / d_e, None, None
    if options is not None and options.ci is not None:
        se, bounds, units, normal = _table_interval(
            table, np.ones((K, K)) - np.eye(K) if d is None else d, chance, value, options,
            counted, squared)
        if normal:
            details["reference"] = "normal"
        elif units != n:  # a t interval over more units than the items with both labels
            details["df"] = units - 1
    return Estimate(
        coefficient=weighted_name if level != "nominal" else name,
        value=value, observed=1.0 - d_o, expected=1.0 - d_e,
        observed_disagreement=d_o * scale, expected_disagreement=d_e * scale,
        level=level, se=se, ci=bounds, details=details,
        n_items=n, n_annotations=n_first + n_second, n_raters=2)


class _TableTotals:
    """The closed form of a two-rater coefficient in the totals of its per-cell statistics
    [Σ d, n, chance block] (rows of :func:`_cell_statistics`), for the complex-step
    gradient (:func:`~kappalab.coefficients.base.complex_step_gradient`)."""

    def __init__(self, d: np.ndarray, chance: str):
        self.d, self.chance, self.K = d, chance, d.shape[0]

    def combine(self, totals: np.ndarray) -> dict[str, np.ndarray]:
        t, K, d = np.asarray(totals), self.K, self.d
        d_o = t[..., 0] / t[..., 1]
        if self.chance == "uniform":
            d_e = np.full(t.shape[:-1], d.sum() / K**2)
        else:
            if self.chance == "rater_marginal":
                p, q = t[..., 2:2 + K], t[..., 2 + K:]
            else:
                p = q = t[..., 2:2 + K]
            p = p / p.sum(axis=-1, keepdims=True)
            q = q / q.sum(axis=-1, keepdims=True)
            d_e = np.einsum("...k,kl,...l->...", p, d, q)
        return {"value": 1.0 - d_o / d_e}


def _cell_statistics(K: int, d: np.ndarray, chance: str) -> np.ndarray:
    """The item statistics of each cell (k, l) of the (K + 1) × (K + 1) table, K missing, in
    the table's flat order: [d_kl, 1] for both labels (0 otherwise), then the chance model's
    rater-1 and rater-2 indicators (Cohen), the item's shares (Scott) or nothing
    (Bennett)."""
    k, l = np.divmod(np.arange((K + 1) ** 2), K + 1)
    both = (k < K) & (l < K)
    first, second = np.eye(K + 1)[k][:, :K], np.eye(K + 1)[l][:, :K]
    observed = np.column_stack([np.where(both, d[np.minimum(k, K - 1), np.minimum(l, K - 1)],
                                         0.0), both.astype(float)])
    if chance == "rater_marginal":
        return np.column_stack([observed, first, second])
    if chance == "item_marginal":
        shares = (first + second) / np.maximum(first.sum(axis=1) + second.sum(axis=1), 1)[:, None]
        return np.column_stack([observed, shares])
    return observed


def _table_interval(table: np.ndarray, d: np.ndarray, chance: str, value: float,
                    options: IntervalOptions, counted: np.ndarray | None = None,
                    squared: np.ndarray | None = None
                    ) -> tuple[float, tuple[float, float], int, bool]:
    r"""The analytic (or asymptotic) standard error and interval from the table: with s_c
    the statistics of cell c (:func:`_cell_statistics`), W_c = Σ w_i, Q_c = Σ w_i² and N_c
    the items of cell c (of positive weight; all three N_c without sample weights),
    T = Σ_c W_c s_c, n = Σ N_c the items with statistics (the spine's units), a_c = ∇f(T)·s_c
    and G = ∇f(T)·T, an item's influence is IF_i = n w_i a_c − G and

    .. math::  \sum_i IF_i^2 = \sum_c \Big(N_c (n a_c \bar w_c - G)^2
               + n^2 a_c^2 \big(Q_c - W_c^2/N_c\big)\Big), \qquad \bar w_c = W_c/N_c,

    SE² = Σ IF²/(n(n − 1)) (divisor n² and a normal interval for ``"asymptotic"``),
    θ̂ ± t_{n−1} SE capped at 1 — the spine's :func:`~kappalab.uncertainty.analytic_interval`
    over items, summed by cell. Returns (se, (low, high), n, normal); raises
    :class:`_Fallback` for another ``ci``."""
    method = options.method[0] if options.method is not None else None
    if method not in ("analytic", "asymptotic"):
        raise _Fallback
    K = d.shape[0]
    rows = _cell_statistics(K, d, chance)
    sums = table.ravel().astype(float)
    counts = sums if counted is None else counted.ravel().astype(float)
    square_sums = sums if squared is None else squared.ravel().astype(float)
    used = rows.any(axis=1) & (counts > 0)  # items without statistics are no units
    rows, sums, counts, square_sums = rows[used], sums[used], counts[used], square_sums[used]
    n = int(round(float(counts.sum())))
    if n < 2:
        raise _Fallback  # the general path refuses in its words
    totals = sums @ rows
    gradient = complex_step_gradient(_TableTotals(d, chance), totals)  # type: ignore[arg-type]
    a = rows @ gradient
    G = float(sums @ a)
    # per cell: N_c (n a_c w̄_c − G)² + (n a_c)² Σ(w_i − w̄_c)², w̄_c = W_c/N_c (no cancellation
    # without sample weights, where w̄_c = 1 and the spread is 0)
    mean_weight = sums / counts
    spread = np.maximum(square_sums - sums * mean_weight, 0.0)
    squares = float(counts @ (n * a * mean_weight - G) ** 2 + (n * a) ** 2 @ spread)
    interval = influence_interval(value, squares, n, method, options.confidence)
    se = interval.se
    if se is None or not np.isfinite(se):
        raise _Fallback
    return se, (float(interval.low), float(min(interval.high, 1.0))), n, method == "asymptotic"
