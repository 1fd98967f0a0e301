r"""Sparse Probability of Agreement (SPA; Nørregaard & Derczynski 2022).

The agreement of an item with n_i ≥ 2 annotations is the share of its pairs of annotations
that agree — the edges of the "agreement graph" over all possible edges:

.. math::  P_i = \frac{\sum_c n_{ic}(n_{ic} - 1)}{n_i (n_i - 1)},

and SPA is a weighted mean over items, :math:`\mathrm{SPA} = \sum_i k_i P_i / \sum_i k_i`.
Whatever the weights, SPA is unbiased for the population probability of agreement P as long
as the weights — in practice the number of annotations — are independent of the items'
agreement (n_i ⟂ P_i: labels missing at random). The weights only change the variance.

Variance of one item's agreement. For n annotations drawn independently from a class
distribution p, with a = Σ p_c² and b = Σ p_c³ (the paper gives O(n²C²) sums; this closed form
is O(C), exact — derived by expanding P = Σ_{r≠s} 1[x_r = x_s]/(n(n−1)) into pairs of pairs:
pairs sharing both, one or no annotation):

.. math::  \operatorname{Var}[P] = \frac{2a + 6a^2 - 8b + 4n(b - a^2)}{n(n-1)} .

For uniform p over C classes, b = a² = 1/C², so Var[P] = 2(C−1)/(C² n(n−1)): the
inverse-variance weights are *exactly* the edges weights n(n−1)/2 up to a constant, for every
C — the two observations the paper made numerically (its Fig. 4) and left unproven. In general
the weight is ∝ n(n−1)/(A + nB), A = 2a + 6a² − 8b, B = 4(b − a²) ≥ 0: exactly edges when
B = 0, exactly annotations_m1 when A = 0 and exactly annotations when A = −B (A can be
negative, e.g. p = (0.9, 0.1)): the family of curves of the paper's Fig. 5.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
import pandas as pd

from ..docstrings import shared_parameters
from ..annotations import Annotations, AnnotationsLike, as_annotations
from ..errors import EmptyDataError, InvalidParameterError
from ..estimate import Estimate
from ..kernels import issparse, pair_agreement
from ..protocols import ItemStats
from ..validation import SampleWeightLike, SeedLike, check_count
from .base import Components, ItemSumCoefficient, numeric_array, safe_divide

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from ..kernels import sp

__all__ = ["SCHEMES", "item_agreement", "item_agreement_variance", "spa", "spa_kappa",
           "spa_weights", "SparseAgreement"]

SCHEMES = ("flat", "annotations", "annotations_m1", "edges", "inv_var", "inv_var_class")


def item_agreement_variance(n: Any, class_distribution: Any) -> np.ndarray:
    r"""Var[P_i] for an item with n annotations drawn i.i.d. from ``class_distribution``.

    .. math::  \operatorname{Var}[P] = \frac{2a + 6a^2 - 8b + 4n(b - a^2)}{n(n-1)},
               \quad a = \sum_c p_c^2, \; b = \sum_c p_c^3;

    ``inf`` for n < 2 (no pair: the item carries no information). ``n`` may be an array.

    Parameters
    ----------
    n : int or array-like
        The number of annotations of the item (or of each item).
    class_distribution : array-like
        The class probabilities p_c (non-negative; normalised to sum to 1).

    Returns
    -------
    numpy.ndarray
        Var[P_i] for each n (``inf`` where n < 2), the shape of ``n``.

    Raises
    ------
    InvalidParameterError
        A class distribution that is not a finite non-negative vector summing to 1.

    References
    ----------
    Nørregaard, J. & Derczynski, L. (2022). SPA: an inter-annotator agreement measure for
    sparse annotations. arXiv:2208.06161

    Examples
    --------
    >>> float(item_agreement_variance(2, [0.5, 0.5]))  # one pair: Bernoulli(½)
    0.25
    """
    p = _distribution(class_distribution)
    a, b = float((p ** 2).sum()), float((p ** 3).sum())
    n = np.asarray(n, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        variance = (2 * a + 6 * a * a - 8 * b + 4 * n * (b - a * a)) / (n * (n - 1))
    return np.where(n >= 2, variance, np.inf)


def spa_weights(n_annotations: Any, *, scheme: str = "flat", n_classes: int | None = None,
                class_distribution: Any = None) -> np.ndarray:
    r"""SPA's item weights k_i for items with ``n_annotations`` annotations.

    ``flat``: 1; ``annotations``: n; ``annotations_m1``: n − 1; ``edges``: n(n−1)/2;
    ``inv_var``: 1/Var[P] for a uniform class distribution over ``n_classes`` (∝ edges);
    ``inv_var_class``: 1/Var[P] for ``class_distribution``. Items with fewer than two
    annotations get weight 0 under every scheme. The weights are not normalised.

    Parameters
    ----------
    n_annotations : int or array-like
        The number of annotations of each item.
    scheme : str, default "flat"
        One of ``SCHEMES``: ``"flat"``, ``"annotations"``, ``"annotations_m1"``,
        ``"edges"``, ``"inv_var"`` or ``"inv_var_class"``.
    n_classes : int or None, default None
        The number of classes C (≥ 2), needed by ``"inv_var"``.
    class_distribution : array-like or None, default None
        The class probabilities, needed by ``"inv_var_class"``.

    Returns
    -------
    numpy.ndarray
        k_i of every item (0 where n < 2), the shape of ``n_annotations``.

    Raises
    ------
    InvalidParameterError
        An unknown ``scheme``; ``"inv_var"`` without ``n_classes`` ≥ 2; ``"inv_var_class"``
        without a ``class_distribution``, or with one that puts all mass on one class.

    References
    ----------
    Nørregaard, J. & Derczynski, L. (2022). SPA: an inter-annotator agreement measure for
    sparse annotations. arXiv:2208.06161

    Examples
    --------
    >>> spa_weights([1, 2, 3, 4], scheme="edges")  # n(n − 1)/2, 0 below two annotations
    array([0., 1., 3., 6.])
    >>> spa_weights([2, 3], scheme="inv_var", n_classes=2)  # 1/Var[P]: Var = 1/4 and 1/12
    array([ 4., 12.])
    """
    n = np.asarray(n_annotations, dtype=float)
    pairable = n >= 2
    if scheme == "flat":
        k = np.ones_like(n)
    elif scheme == "annotations":
        k = n.copy()
    elif scheme == "annotations_m1":
        k = n - 1
    elif scheme == "edges":
        k = n * (n - 1) / 2
    elif scheme in ("inv_var", "inv_var_class"):
        if scheme == "inv_var":
            if n_classes is None:
                raise InvalidParameterError("inv_var weights need n_classes ≥ 2")
            classes = check_count(n_classes, "n_classes", minimum=2)
            p = np.full(classes, 1.0 / classes)
        else:
            if class_distribution is None:
                raise InvalidParameterError("inv_var_class weights need a class_distribution")
            p = class_distribution
        variance = item_agreement_variance(np.where(pairable, n, 2.0), p)
        with np.errstate(divide="ignore"):
            k = np.where(variance > 0, 1.0 / variance, np.inf)
        if np.isinf(k[pairable]).any():
            raise InvalidParameterError(
                "the class distribution puts all mass on one class: every item agrees surely "
                "and inverse-variance weights are infinite")
    else:
        raise InvalidParameterError(f"unknown SPA weighting {scheme!r}; choose one of "
                                    f"{', '.join(SCHEMES)}, or pass an array of weights")
    return np.where(pairable, k, 0.0)


def item_agreement(data: AnnotationsLike, *, categories: Sequence[Any] | None = None) -> pd.Series:
    r"""P_i = Σ_c n_ic(n_ic − 1)/(n_i(n_i − 1)) for every item with two or more annotations.

    The observed agreement of each item: the share of its ordered pairs of annotations that
    agree, indexed by item label.

    Parameters
    ----------
    data : AnnotationsLike
        The annotations (:func:`~kappalab.annotations.as_annotations`).
    categories : sequence or None, default None
        The categories in their order; None: those found in the data.

    Returns
    -------
    pandas.Series
        P_i of the items with two or more annotations, named ``"item_agreement"``.

    Raises
    ------
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`).

    References
    ----------
    Nørregaard, J. & Derczynski, L. (2022). SPA: an inter-annotator agreement measure for
    sparse annotations. arXiv:2208.06161

    Examples
    --------
    >>> item_agreement([[1, 1, 2], [2, 2, 2], [1, None, None]]).round(4).tolist()  # 2/6, 6/6
    [0.3333, 1.0]
    """
    ann = as_annotations(data, categories=categories)
    m = ann.annotations_per_item_array
    pairable = m >= 2
    values = pair_agreement(ann.category_counts(), m)[pairable]
    return pd.Series(values, index=ann.items[pairable], name="item_agreement")


def _keep_rows(counts: ItemStats, keep: np.ndarray) -> ItemStats:
    """The count rows of the kept items, the others zeroed (dense or sparse alike)."""
    if issparse(counts):
        kept = sp.csr_matrix(counts.multiply(keep.astype(float)[:, None]))
        kept.eliminate_zeros()
        return kept
    return np.where(keep[:, None], counts, 0.0)


class SparseAgreement(ItemSumCoefficient):
    """SPA on the item-sum spine: item statistics [k_i P_i, k_i] and the category counts n_i
    of the weighted items, pooled for the chance agreement of :func:`spa_kappa`.

    Sample weights w_i multiply SPA's own weights (SPA = Σ w_i k_i P_i / Σ w_i k_i) and the
    counts pooled into the estimated class distribution.

    Parameters
    ----------
    ann : Annotations
        The data (:func:`kappalab.annotations.as_annotations`).
    weights : str or array-like, default "flat"
        A scheme of :func:`spa_weights` (``SCHEMES``) or one weight k_i ≥ 0 per item.
    class_distribution : array-like or None, default None
        The class probabilities for the inverse-variance weights and the chance agreement;
        None: estimated from the pooled counts of the items that carry weight.
    chance_corrected : bool, default False
        Whether the value is SPA κ = (SPA − P_e)/(1 − P_e), P_e = Σ_c q_c².
    sample_weight : array-like or None, default None
        Item weights w_i ≥ 0, one per item of ``ann`` (in ``ann.items`` order).

    Raises
    ------
    EmptyDataError
        No item with two or more annotations.
    InvalidParameterError
        An unknown weighting scheme, invalid custom weights, class distribution or
        ``sample_weight``.

    References
    ----------
    Nørregaard, J. & Derczynski, L. (2022). SPA: an inter-annotator agreement measure for
    sparse annotations. arXiv:2208.06161

    Examples
    --------
    P = 1/3 and 1 on the two pairable items: SPA = 2/3; the pooled labels (2 of class 1, 4 of
    class 2) give P_e = 20/36 and SPA κ = (2/3 − 5/9)/(4/9) = 1/4.

    >>> from kappalab.annotations import as_annotations
    >>> ann = as_annotations([[1, 1, 2], [2, 2, 2], [1, None, None]])
    >>> round(SparseAgreement(ann).estimate().value, 4)
    0.6667
    >>> round(SparseAgreement(ann, chance_corrected=True).estimate().value, 4)
    0.25
    """

    name = "SPA"
    #: without ``ci`` the estimate still carries the analytic (linearisation) standard error;
    #: for SPA it is the spread of a weighted mean of independent items,
    #: √(n/(n−1) · Σ k_i²(P_i − SPA)²)/Σ k_i
    se_without_ci = "analytic"

    def __init__(self, ann: Annotations, weights: Any = "flat", class_distribution: Any = None,
                 chance_corrected: bool = False, sample_weight: SampleWeightLike = None):
        self.set_sample_weight(sample_weight, ann.n_items)
        self.ann = ann
        self.item_labels = ann.items
        m = ann.annotations_per_item_array.astype(float)
        self.pairable = m >= 2
        if not self.pairable.any():
            raise EmptyDataError(
                "SPA needs at least one item with two or more annotations; every item has "
                "fewer")
        counts = ann.category_counts()  # sparse when items × categories is large
        self.counts = _keep_rows(counts, self.pairable)
        pooled = np.asarray(self.counts.T @ self.item_weights(ann.n_items), dtype=float).ravel()
        self.class_distribution = (pooled / pooled.sum() if class_distribution is None
                                   else _distribution(class_distribution, ann.n_categories))
        self.scheme = weights if isinstance(weights, str) else "custom"
        self.fallback = None
        if isinstance(weights, str) and weights in ("inv_var", "inv_var_class") and (
                ann.n_categories < 2 or self.class_distribution.max() >= 1.0):
            # one class: every item agrees surely (P_i = 1), its variance is 0 and any weights
            # give SPA = 1; inverse-variance weights are ∝ edges for every C, so use those
            self.fallback = "edges"
            weights = "edges"
        if isinstance(weights, str):
            self.k = spa_weights(m, scheme=weights, n_classes=ann.n_categories,
                                 class_distribution=self.class_distribution)
        else:
            self.k = _custom_weights(weights, ann.n_items, self.pairable)
        # the chance agreement pools the labels of the items that carry weight
        self.counts = _keep_rows(counts, self.k > 0)
        self.p = pair_agreement(counts, m)
        self.chance_corrected = chance_corrected
        if chance_corrected:
            self.name = "SPA kappa"
        self.level = "nominal"

    def unweighted_item_stats(self) -> np.ndarray | sp.csr_matrix:
        k, p = self.k, self.p
        if issparse(self.counts):
            stats = sp.hstack([sp.csr_matrix(np.column_stack([k * p, k])), self.counts],
                              format="csr")
            stats.eliminate_zeros()
            return stats
        return np.column_stack([k * p, k, self.counts])

    def combine(self, totals: np.ndarray) -> Components:
        t = numeric_array(totals)
        value = safe_divide(t[..., 0], t[..., 1])
        pooled = t[..., 2:]
        share = safe_divide(pooled, pooled.sum(axis=-1, keepdims=True))
        p_e = (share * share).sum(axis=-1)
        if self.chance_corrected:
            kappa = safe_divide(value - p_e, 1 - p_e)
            return {"value": kappa, "observed": value, "expected": p_e}
        return {"value": value, "observed": value, "expected": p_e}

    def value_gradient(self, totals: np.ndarray) -> np.ndarray:
        r"""∇ value(T) in closed form: SPA = T_0/T_1; SPA κ = (SPA − P_e)/(1 − P_e) with
        P_e = Σ_c q_c², q = N/ΣN, so ∂P_e/∂N_c = 2(q_c − P_e)/ΣN."""
        t = np.asarray(totals, dtype=float)
        gradient = np.zeros(t.size)
        if not t[1] > 0:
            return np.full(t.size, np.nan)
        spa = t[0] / t[1]
        gradient[:2] = 1 / t[1], -spa / t[1]
        if not self.chance_corrected:
            return gradient
        pooled = t[2:]
        n = pooled.sum()
        share = pooled / n
        p_e = share @ share
        if not p_e < 1:
            return np.full(t.size, np.nan)
        gradient[:2] /= 1 - p_e
        gradient[2:] = (spa - 1) / (1 - p_e) ** 2 * 2 * (share - p_e) / n
        return gradient

    def _used(self) -> np.ndarray:
        """Pairable items with positive SPA and sample weights."""
        return self.pairable & (self.k > 0) & (self.item_weights(self.ann.n_items) > 0)

    def undefined_reason(self, parts: Components) -> str | None:
        if not self._used().any():
            return "every item with two or more annotations has weight 0"
        if self.chance_corrected and float(np.asarray(parts["expected"]).reshape(-1)[0]) >= 1:
            return "every annotation falls in one category (chance agreement is 1)"
        return None

    def counts_used(self) -> dict[str, Any]:
        used = self._used()
        m = self.ann.annotations_per_item_array
        return {"n_items": int(used.sum()), "n_annotations": int(m[used].sum())}

    def details(self) -> dict[str, Any]:
        return {"weights": self.scheme, "weights_used": self.fallback or self.scheme,
                "n_items_dropped": int(self.ann.n_items - self._used().sum()),
                "class_distribution": tuple(float(v) for v in self.class_distribution)}



@shared_parameters
def spa(data: AnnotationsLike, *, scheme: Any = "flat", class_distribution: Any = None,
        categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
        ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
        seed: SeedLike = None, progress: bool | None = None, weights: Any = None) -> Estimate:
    r"""Sparse Probability of Agreement: SPA = Σ_i k_i P_i / Σ_i k_i over items with ≥ 2
    annotations (Nørregaard & Derczynski 2022, eqs 7–8).

    ``scheme``, the item weighting k_i: ``"flat"``, ``"annotations"``, ``"annotations_m1"``,
    ``"edges"``, ``"inv_var"``, ``"inv_var_class"`` (see :func:`spa_weights`; the class
    distribution is
    estimated from the pooled labels of pairable items unless ``class_distribution`` is
    given) or an array of non-negative weights, one per item. The estimate carries the number
    of items used and dropped (fewer than two annotations) and, always, a standard error from
    the item-level spread, √(n/(n−1) · Σ k_i²(P_i − SPA)²)/Σ k_i, treating items as
    independent and the weights as fixed (the linearisation of ``ci="analytic"``).

    ``weights=`` is refused: across kappalab it means category agreement weights, which SPA
    does not take (its item weighting is ``scheme=``).

    With ``scheme="annotations"`` SPA equals 1 − D_o of Krippendorff's nominal α on the same
    data: both weigh items by their number of annotations. With the same number of annotations
    on every item all schemes coincide with the joint probability of agreement.

    Parameters
    ----------
    {{shared: data}}
    scheme : str or array-like, default "flat"
        The item weighting k_i: ``"flat"`` (1), ``"annotations"`` (n_i), ``"annotations_m1"``
        (n_i − 1), ``"edges"`` (n_i(n_i − 1)/2), ``"inv_var"``, ``"inv_var_class"`` (inverse
        variance of P_i, see :func:`spa_weights`) or an array of non-negative weights, one per
        item.
    class_distribution : array-like, optional
        The class distribution p of ``"inv_var_class"``; by default estimated from the pooled
        labels of pairable items.
    {{shared: categories}}
    {{shared: sample_weight}}
        The weights multiply k_i too.
    {{shared: resampling}}
    weights : None
        Refused (:class:`~kappalab.errors.InvalidParameterError`): across kappalab ``weights=``
        means category agreement weights, which SPA does not take (its item weighting is
        ``scheme=``).

    Returns
    -------
    Estimate
        The value (``float(est)``), the items used and dropped, and always ``se`` (the
        item-level linearisation); ``ci`` when ``ci=`` is given.

    Raises
    ------
    InvalidParameterError
        An unknown ``scheme``, item weights that are not finite and non-negative, a bad
        ``class_distribution``, ``weights=`` given, a ``sample_weight`` that is not one finite
        w_i ≥ 0 per item (not all 0), an unknown ``ci``, ``n_resamples`` < 2, ``confidence``
        outside (0, 1) or an invalid ``seed``.
    EmptyDataError
        No item has two or more annotations.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Nørregaard, J. & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv:2208.06161.

    Examples
    --------
    >>> import kappalab as kl
    >>> data = kl.datasets.load("worked_example")   # 3 annotations on every item: SPA is the
    >>> round(float(kl.spa(data)), 4)               # joint probability of agreement (6 + 4/3)/10
    0.7333
    """
    core = spa_core(data, scheme=scheme, class_distribution=class_distribution,
                    categories=categories, sample_weight=sample_weight, weights=weights)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


@shared_parameters
def spa_kappa(data: AnnotationsLike, *, scheme: Any = "flat", class_distribution: Any = None,
              categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
              ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
              seed: SeedLike = None, progress: bool | None = None, weights: Any = None) -> Estimate:
    r"""Chance-corrected SPA, (SPA − P_e)/(1 − P_e), P_e = Σ_c p_c² of the pooled labels of
    pairable items.

    A ratio of two estimates that share the data: biased in small samples (Jensen's
    inequality, and SPA and P_e are dependent), with bias of order 1/n (the paper's §chance
    correction; ``experiments/spa_bias.py`` measures it). The standard error, reported always,
    is the linearisation (delta method) of the ratio through both SPA and P_e. ``scheme``
    is SPA's item weighting, as in :func:`spa`.

    Parameters
    ----------
    {{shared: data}}
    scheme : str or array-like, default "flat"
        The item weighting k_i: ``"flat"`` (1), ``"annotations"`` (n_i), ``"annotations_m1"``
        (n_i − 1), ``"edges"`` (n_i(n_i − 1)/2), ``"inv_var"``, ``"inv_var_class"`` (inverse
        variance of P_i, see :func:`spa_weights`) or an array of non-negative weights, one per
        item.
    class_distribution : array-like, optional
        The class distribution p of ``"inv_var_class"``; by default estimated from the pooled
        labels of pairable items.
    {{shared: categories}}
    {{shared: sample_weight}}
        The weights multiply k_i too.
    {{shared: resampling}}
    weights : None
        Refused (:class:`~kappalab.errors.InvalidParameterError`): across kappalab ``weights=``
        means category agreement weights, which SPA does not take (its item weighting is
        ``scheme=``).

    Returns
    -------
    Estimate
        The value (``float(est)``), observed (SPA) and expected (P_e) agreement, the items used
        and dropped, and always ``se`` (the linearisation); ``ci`` when ``ci=`` is given.

    Raises
    ------
    InvalidParameterError
        An unknown ``scheme``, item weights that are not finite and non-negative, a bad
        ``class_distribution``, ``weights=`` given, a ``sample_weight`` that is not one finite
        w_i ≥ 0 per item (not all 0), an unknown ``ci``, ``n_resamples`` < 2, ``confidence``
        outside (0, 1) or an invalid ``seed``.
    EmptyDataError
        No item has two or more annotations.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Nørregaard, J. & Derczynski, L. (2022). Sparse Probability of Agreement. arXiv:2208.06161.

    Examples
    --------
    >>> import kappalab as kl
    >>> data = kl.datasets.load("worked_example")   # labels 15/10/5 of 30: P_e = 7/18
    >>> round(float(kl.spa_kappa(data)), 4)         # (11/15 − 7/18)/(11/18) = Fleiss' κ here
    0.5636
    """
    core = spa_kappa_core(data, scheme=scheme, class_distribution=class_distribution,
                          categories=categories, sample_weight=sample_weight, weights=weights)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


# ---------------------------------------------------------------------- core factories
# Each takes the public function's arguments less its interval options and returns the core
# whose estimate() is its value (kappalab.coefficients.registry, Coefficient.core).
def spa_core(data: AnnotationsLike, *, scheme: Any = "flat", class_distribution: Any = None,
             categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
             weights: Any = None) -> SparseAgreement:
    """The core of :func:`spa` (``weights=`` refused, as there)."""
    _refuse_weights(weights, "spa")
    ann = as_annotations(data, categories=categories)
    return SparseAgreement(ann, scheme, class_distribution, sample_weight=sample_weight)


def spa_kappa_core(data: AnnotationsLike, *, scheme: Any = "flat",
                   class_distribution: Any = None, categories: Sequence[Any] | None = None,
                   sample_weight: SampleWeightLike = None, weights: Any = None) -> SparseAgreement:
    """The core of :func:`spa_kappa` (chance-corrected SPA; ``weights=`` refused)."""
    _refuse_weights(weights, "spa_kappa")
    ann = as_annotations(data, categories=categories)
    return SparseAgreement(ann, scheme, class_distribution, chance_corrected=True,
                           sample_weight=sample_weight)


def _refuse_weights(weights: Any, function: str) -> None:
    if weights is not None:
        raise InvalidParameterError(
            f"{function}() takes its item weighting as scheme= (e.g. scheme='annotations_m1' "
            "or an array of item weights); weights= means category agreement weights "
            "elsewhere in kappalab, and SPA has none")


def _distribution(p: Any, n_categories: int | None = None) -> np.ndarray:
    p = np.asarray(p, dtype=float).ravel()
    if p.size == 0 or not np.isfinite(p).all() or (p < 0).any() or abs(p.sum() - 1) > 1e-9:
        raise InvalidParameterError(
            f"a class distribution must be non-negative and sum to 1, got {p.tolist()}")
    if n_categories is not None and p.size != n_categories:
        raise InvalidParameterError(
            f"the class distribution has {p.size} entries for {n_categories} categories")
    return p


def _custom_weights(weights: Any, n_items: int, pairable: np.ndarray) -> np.ndarray:
    k = np.asarray(weights, dtype=float).ravel()
    if k.size != n_items:
        raise InvalidParameterError(
            f"custom SPA weights need one entry per item ({n_items}), got {k.size}")
    if not np.isfinite(k).all() or (k < 0).any():
        raise InvalidParameterError("custom SPA weights must be finite and non-negative")
    return np.where(pairable, k, 0.0)
