r"""Two-rater coefficients, and Light's κ (the mean of every pair's Cohen κ).

The two-rater coefficients are the multi-rater core restricted to two raters — Cohen's κ is
Conger's κ, Scott's π is Fleiss' κ, Bennett's S is Brennan–Prediger — so there is one
implementation of each formula. With two raters and complete data these are the textbook
forms on the K × K table T of the pair (Cohen 1960, 1968):

.. math::  P_o = \sum_{kl} w_{kl} T_{kl}/n, \qquad P_e = \sum_{kl} w_{kl}\, p_{1k}\, p_{2l}.

With missing annotations P_o uses the items both raters annotated and each rater's marginal
p_g uses every annotation of that rater (Gwet 2014, ch. 2), which reduces to the table form on
complete data.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import scipy.sparse as sp

from ..annotations import Annotations, as_annotations
from ..errors import InvalidParameterError, RaterCountError
from ..estimate import Estimate
from .base import Components, ItemSumCoefficient, safe_divide
from .multirater import ChanceCorrectedAgreement, weights_for

__all__ = ["cohen_kappa", "scott_pi", "bennett_s", "light_kappa", "two_raters"]


def two_raters(x: Any, y: Any = None, *, categories: Sequence[Any] | None = None,
               coefficient: str) -> Annotations:
    """Annotations of exactly two raters: ``x`` alone (items × 2, a long DataFrame or an
    Annotations, read as :func:`~kappalab.annotations.as_annotations` reads any data), or the
    two raters' label sequences ``x`` and ``y`` (same length, NaN/None = missing; two ordered
    pandas Categoricals with the same categories fix the category order)."""
    if y is not None:
        import pandas as pd

        dtypes = [getattr(v, "dtype", None) for v in (x, y)]
        if categories is None and all(
                isinstance(d, pd.CategoricalDtype) and d.ordered for d in dtypes) and (
                dtypes[0].categories.equals(dtypes[1].categories)):
            categories = list(dtypes[0].categories)
        a, b = np.asarray(x), np.asarray(y)
        if a.ndim != 1 or b.ndim != 1 or a.size != b.size:
            raise InvalidParameterError(
                f"{coefficient}: the two raters' labels must be 1-D sequences of equal length, "
                f"got shapes {a.shape} and {b.shape}"
            )
        # numbers stay numbers (no object copy: the fast counting path); labels of different
        # kinds (say numbers and strings) are kept apart as objects, never cast to one kind
        numeric = a.dtype.kind in "biuf" and b.dtype.kind in "biuf"
        if not numeric and not (a.dtype.kind == b.dtype.kind and a.dtype.kind in "US"):
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


def _two_rater_estimate(x, y, categories, weights, chance, name, weighted_name, *,
                        ci: str | None, **resampling: Any) -> Estimate:
    ann = two_raters(x, y, categories=categories, coefficient=name)
    dis = weights_for(ann, weights)
    core = ChanceCorrectedAgreement(
        ann, dis, chance=chance, item_weighting="item",
        name=weighted_name if dis.name != "nominal" else name,
    )
    return core.estimate(ci, **resampling)


def cohen_kappa(x: Any, y: Any = None, *, weights: Any = None,
                categories: Sequence[Any] | None = None, ci: str | None = None,
                n_resamples: int = 2000, confidence: float = 0.95,
                seed: Any = None) -> Estimate:
    r"""Cohen's κ (1960) and weighted κ (1968) for two raters.

    .. math::  κ = \frac{P_o - P_e}{1 - P_e}, \quad P_o = \sum_{kl} w_{kl} T_{kl}/n, \quad
               P_e = \sum_{kl} w_{kl}\, p_{1k}\, p_{2l}

    ``weights``: ``None`` (unweighted), ``"linear"``, ``"quadratic"`` (on the category
    values), a Krippendorff level, a K × K agreement-weight matrix or a callable. Give either
    one items × 2 table (or Annotations) or the two raters' labels as ``x`` and ``y``.
    References: Cohen, J. (1960), Educational and Psychological Measurement 20(1), 37–46;
    Cohen, J. (1968), Psychological Bulletin 70(4), 213–220.

    >>> import kappalab as kl
    >>> round(float(kl.cohen_kappa(["a", "a", "b", "b"], ["a", "b", "b", "b"])), 4)
    0.5
    """
    return _two_rater_estimate(x, y, categories, weights, "rater_marginal", "Cohen's kappa",
                               "Cohen's weighted kappa",
                               ci=ci, n_resamples=n_resamples, confidence=confidence,
                               seed=seed)


def scott_pi(x: Any, y: Any = None, *, weights: Any = None,
             categories: Sequence[Any] | None = None, ci: str | None = None,
             n_resamples: int = 2000, confidence: float = 0.95,
             seed: Any = None) -> Estimate:
    r"""Scott's π (1955): two raters sharing one marginal, P_e = Σ w_kl π_k π_l.

    π_k is the mean of the two raters' proportions (Fleiss' κ for two raters).
    Reference: Scott, W. A. (1955), Public Opinion Quarterly 19(3), 321–325.
    """
    return _two_rater_estimate(x, y, categories, weights, "item_marginal", "Scott's pi",
                               "Scott's pi (weighted)",
                               ci=ci, n_resamples=n_resamples, confidence=confidence,
                               seed=seed)


def bennett_s(x: Any, y: Any = None, *, weights: Any = None,
              categories: Sequence[Any] | None = None, ci: str | None = None,
              n_resamples: int = 2000, confidence: float = 0.95,
              seed: Any = None) -> Estimate:
    r"""Bennett, Alpert & Goldstein's S (1954) = Brennan–Prediger for two raters: P_e = T_w/K².

    Reference: Bennett, E. M., Alpert, R. & Goldstein, A. C. (1954), Public Opinion Quarterly
    18(3), 303–308.
    """
    return _two_rater_estimate(x, y, categories, weights, "uniform", "Bennett's S",
                               "Bennett's S (weighted)",
                               ci=ci, n_resamples=n_resamples, confidence=confidence,
                               seed=seed)


class PairwiseMeanKappa(ItemSumCoefficient):
    r"""Light's κ: the mean over rater pairs (g, h) of Cohen's κ_gh.

    Sufficient statistic: the co-occurrence table T = Zᵀ Z of the one-hot (rater, category)
    matrix Z (items × R·K); T's (g, h) block is the pair's K × K table and its diagonal blocks
    hold each rater's marginal counts. Per item, vec(z_i z_iᵀ) (sparse, m_i² entries).
    """

    name = "Light's kappa"

    def __init__(self, ann: Annotations, weights: Any = None):
        ann.require_raters(self.name)
        self.ann = ann
        self.dis = weights_for(ann, weights)
        self.level = self.dis.name
        self.R, self.K = ann.n_raters, ann.n_categories

    def _onehot(self) -> sp.csr_matrix:
        items, raters, cats = self.ann.codes()
        RK = self.R * self.K
        return sp.csr_matrix((np.ones(items.size), (items, raters * self.K + cats)),
                             shape=(self.ann.n_items, RK))

    def totals(self) -> np.ndarray:
        z = self._onehot()
        return np.asarray((z.T @ z).todense(), dtype=float).ravel()

    def item_stats(self) -> sp.csr_matrix:
        items, raters, cats = self.ann.codes()
        order = np.argsort(items, kind="stable")
        items, code = items[order], (raters * self.K + cats)[order]
        m = np.bincount(items, minlength=self.ann.n_items)
        first = np.concatenate([[0], np.cumsum(m)[:-1]])
        rep = m[items]  # each annotation pairs with every annotation of its item
        left = np.repeat(np.arange(items.size), rep)
        block_start = np.repeat(np.cumsum(rep) - rep, rep)
        right = np.repeat(first[items], rep) + (np.arange(left.size) - block_start)
        RK = self.R * self.K
        cols = code[left] * RK + code[right]
        return sp.csr_matrix((np.ones(left.size), (items[left], cols)),
                             shape=(self.ann.n_items, RK * RK))

    def combine(self, totals: np.ndarray) -> Components:
        R, K = self.R, self.K
        t = np.asarray(totals, dtype=float)
        lead = t.shape[:-1]
        T = t.reshape(lead + (R, K, R, K))
        delta, scale = self.dis.matrix, self.dis.scale
        pair_n = T.sum(axis=(-3, -1))  # (…, R, R): items both raters annotated
        pair_dis = np.einsum("...gkhl,kl->...gh", T, delta)
        marg = np.einsum("...gkgl->...gk", T)  # diagonal blocks' diagonals: N_gk
        n_g = marg.sum(axis=-1, keepdims=True)
        p = safe_divide(marg, n_g)
        p_o = 1.0 - safe_divide(pair_dis, pair_n) / scale
        p_e = 1.0 - np.einsum("...gk,kl,...hl->...gh", p, delta, p) / scale
        kappa = safe_divide(p_o - p_e, 1.0 - p_e)
        upper = np.triu(np.ones((R, R), dtype=bool), k=1)
        valid = upper & np.isfinite(kappa) & (pair_n > 0)
        n_pairs = valid.sum(axis=(-2, -1))
        mean = lambda a: safe_divide(np.where(valid, a, 0.0).sum(axis=(-2, -1)), n_pairs)
        return {"value": mean(kappa), "observed": mean(p_o), "expected": mean(p_e),
                "n_pairs": n_pairs}

    def undefined_reason(self, parts: Components) -> str | None:
        if int(np.asarray(parts["n_pairs"]).reshape(-1)[0]) == 0:
            return ("no pair of raters has items in common with a defined Cohen's kappa "
                    "(need shared items and more than one category)")
        return None

    def counts_used(self) -> dict[str, Any]:
        m = self.ann.annotations_per_item_array
        return {"n_items": int((m >= 2).sum()), "n_annotations": int(m[m >= 2].sum()),
                "n_raters": self.ann.n_active_raters}

    def details(self) -> dict[str, Any]:
        parts = self.combine(self.totals())
        return {"n_pairs": int(np.asarray(parts["n_pairs"]).reshape(-1)[0])}


def light_kappa(data: Any, *, weights: Any = None,
                categories: Sequence[Any] | None = None, ci: str | None = None,
                n_resamples: int = 2000, confidence: float = 0.95,
                seed: Any = None) -> Estimate:
    r"""Light's κ (1971): the mean of Cohen's κ over all pairs of raters.

    .. math::  κ_L = \binom{R}{2}^{-1} \sum_{g<h} κ_{gh}

    Each pair's κ is :func:`cohen_kappa` of the two raters (their shared items for P_o, each
    rater's annotations for the marginals). Pairs with no shared item or an undefined κ are
    left out of the mean; ``details["n_pairs"]`` says how many entered.
    Reference: Light, R. J. (1971), Psychological Bulletin 76(5), 365–377.
    """
    ann = as_annotations(data, categories=categories)
    core = PairwiseMeanKappa(ann, weights)
    if core.level != "nominal":
        core.name = "Light's kappa (weighted)"
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed)
