r"""Chance-corrected agreement among any number of raters, with missing annotations.

One core, :class:`ChanceCorrectedAgreement`, computes every coefficient of the family

.. math::  \text{value} = 1 - \frac{D_o}{D_e} = \frac{P_o - P_e}{1 - P_e},
           \qquad P = 1 - D/\text{scale},

from per-item sums. They share the observed disagreement of an item with m_i ≥ 2
annotations and category counts n_i (Gwet 2014, *Handbook of Inter-Rater Reliability*, ch. 2):

.. math::  d_i = \frac{n_i^\top δ\, n_i}{m_i (m_i - 1)},
           \qquad D_o = \frac{\sum_i u_i d_i}{\sum_i u_i},

the mean distance over the item's ordered pairs of annotations, averaged over pairable items with
weight ``u_i = 1`` (items count equally: Fleiss, Conger, Gwet, Brennan–Prediger, percent
agreement, Janson–Olsson) or ``u_i = m_i`` (annotations count equally: Krippendorff). They differ
only in the chance model that gives D_e:

========================  ==============================================================
chance model              expected disagreement D_e
========================  ==============================================================
``"pooled"``              Krippendorff: N\_·ᵀ δ N\_· / (n(n−1)), N\_· pooled pairable counts
``"item_marginal"``       Fleiss (Scott for two raters): πᵀ δ π, π_k = mean_i n_ik/m_i
``"rater_marginal"``      Conger / Janson–Olsson ι (Cohen for two raters): mean over
                          rater pairs g ≠ h of p_gᵀ δ p_h, p_g rater g's own distribution
``"gwet"``                Gwet's AC1/AC2: scale·(1 − P_e), P_e = T_w Σ π_k(1−π_k)/(K(K−1))
``"uniform"``             Brennan–Prediger / Bennett's S: Σ_kl δ_kl / K²
``"none"``                percent agreement: D_e = scale, so value = P_o
========================  ==============================================================

For the interval distance δ = (c − k)² every term has an O(N) form in per-item (or per-rater)
moments m, Σx, Σx² — e.g. n_iᵀ δ n_i = 2(m_i Σx² − (Σx)²) — so continuous values with every
value distinct cost one pass over the annotations.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Sequence, TypeAlias

import numpy as np

from ..docstrings import shared_parameters
from ..annotations import Annotations, AnnotationsLike, as_annotations
from ..distances import CategoryDistance, DistanceSpec, category_distance
from ..errors import InvalidParameterError
from ..estimate import Estimate
from ..kernels import column_totals, count_square_sums, issparse, rater_marginal_entries
from ..protocols import ItemStats
from ..uncertainty import (KRIPPENDORFF, Interval, IntervalOptions, PairableValues,
                           krippendorff_interval)
from ..validation import SampleWeightLike, SeedLike, check_flag, check_sample_weight
from .base import (Components, IntervalScores, ItemSumCoefficient, complex_step_gradient,
                   disagreement_components, distance_product, distance_to_own_item,
                   interval_scores, numeric_array, quadratic_form_per_row, safe_divide)

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from ..kernels import sp

__all__ = [
    "ChanceCorrectedAgreement",
    "FAMILY",
    "FamilyMember",
    "krippendorff_alpha",
    "fleiss_kappa",
    "conger_kappa",
    "janson_olsson_iota",
    "gwet_ac",
    "brennan_prediger",
    "percent_agreement",
]

#: beyond this many categories n_iᵀ δ n_i is summed over the pairs of each item's counts,
#: not as the dense items × K by K × K product (when those pairs are no more than the
#: items × K counts)
PAIR_FORM_CATEGORIES = 64
CHANCE_MODELS = ("pooled", "item_marginal", "rater_marginal", "gwet", "uniform", "none")


#: per item: m, n_iᵀ δ n_i, and centred (Σx, Σx²) or (category counts, None)
_ItemSums: TypeAlias = tuple[np.ndarray, np.ndarray, ItemStats, np.ndarray | None]


class ChanceCorrectedAgreement(ItemSumCoefficient):
    """The core of the multi-rater family (see the module docstring for the formulas).

    Item statistics (columns): ``[u_i d_i, u_i]`` for pairable items, then the chance model's
    block: pooled counts (or moments) of pairable items; ``[n_i/m_i, 1]`` (or moments/m_i) of
    items with an annotation; or the item's rater × category indicators (or rater moments).

    Parameters
    ----------
    ann : Annotations
        The data (:func:`kappalab.annotations.as_annotations`).
    disagreement : CategoryDistance
        The resolved distance (:func:`kappalab.distances.category_distance`).
    chance : str
        One of ``CHANCE_MODELS``: ``"pooled"``, ``"item_marginal"``, ``"rater_marginal"``,
        ``"gwet"``, ``"uniform"`` or ``"none"``.
    item_weighting : str
        ``"item"`` (u_i = 1) or ``"annotation"`` (u_i = m_i).
    name : str
        Display name of the coefficient.
    use_moments : bool or None, default None
        Whether to use the O(N) interval moments (None: whenever δ is interval and the chance
        model has a moment form).
    rater_order : bool, default False
        Whether an asymmetric δ is applied in rater order (two-rater coefficients
        only: the data must have exactly two raters with annotations, rater 1 the first in
        ``ann.raters``). Then an item's disagreement is δ[c₁, c₂] (its ``n_iᵀ δ n_i`` becomes
        2 δ[c₁, c₂]) and the rater-marginal chance model is p₁ᵀ δ p₂; without it an
        asymmetric δ is refused (:meth:`~kappalab.distances.CategoryDistance.require_symmetric`).
        A symmetric δ gives the same numbers either way.
    sample_weight : array-like or None, default None
        Item weights w_i ≥ 0, one per item of ``ann`` (in ``ann.items`` order),
        multiplying each item's statistics
        (see :class:`~kappalab.coefficients.base.ItemSumCoefficient`).

    Raises
    ------
    InvalidParameterError
        An unknown ``chance`` or ``item_weighting``, ``use_moments=True`` without an interval
        distance and a chance model with a moment form, or invalid ``sample_weight``.
    UnknownRatersError
        ``chance="rater_marginal"`` on data without rater identities.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced
    Analytics.

    Examples
    --------
    Fleiss' κ (item-marginal chance) and Krippendorff's α (pooled chance, annotation
    weighting) of the worked example:

    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import distance_for
    >>> ann = kl.datasets.load("worked_example")
    >>> fleiss = ChanceCorrectedAgreement(ann, distance_for(ann, "nominal"),
    ...                                   chance="item_marginal", item_weighting="item",
    ...                                   name="Fleiss' kappa")
    >>> round(fleiss.estimate().value, 4)
    0.5636
    >>> alpha = ChanceCorrectedAgreement(ann, distance_for(ann, "nominal"), chance="pooled",
    ...                                  item_weighting="annotation",
    ...                                  name="Krippendorff's alpha")
    >>> round(alpha.estimate().value, 4)
    0.5782
    """

    def __init__(
        self,
        ann: Annotations,
        disagreement: CategoryDistance,
        *,
        chance: str,
        item_weighting: str,
        name: str,
        use_moments: bool | None = None,
        rater_order: bool = False,
        sample_weight: SampleWeightLike = None,
    ):
        self.set_sample_weight(sample_weight, ann.n_items)
        if chance not in CHANCE_MODELS:
            raise InvalidParameterError(f"unknown chance model {chance!r}")
        if item_weighting not in ("item", "annotation"):
            raise InvalidParameterError(f"unknown item weighting {item_weighting!r}")
        if chance == "rater_marginal":
            ann.require_raters(name)
        self.ann = ann
        self.item_labels = ann.items
        self.dis = disagreement
        self.chance = chance
        self.item_weighting = item_weighting
        self.name = name
        self.level = disagreement.name
        can_use_moments = disagreement.interval_factor is not None and chance in (
            "pooled", "item_marginal", "rater_marginal", "none")
        self.use_moments = can_use_moments if use_moments is None else use_moments
        if self.use_moments and not can_use_moments:
            raise InvalidParameterError(
                "the moment path needs the interval distance and a chance model with a "
                "moment form"
            )
        self.m = ann.annotations_per_item_array.astype(float)
        self.pairable = self.m >= 2
        self.rater_pair = None if disagreement.symmetric else self._ordered_raters(rater_order)

    @cached_property
    def K(self) -> int:
        """The number of categories, counted when first needed: the moment path on a store of
        float values never needs it (nor their sort)."""
        return self.ann.n_categories

    # ------------------------------------------------------------------ per-item pieces
    def _item_sums(self) -> _ItemSums:
        """Per item: (m, n_iᵀ δ n_i) and, on the moment path, centred (Σx, Σx²) (dense),
        else the category counts (dense or sparse) and None."""
        if self.use_moments:
            scores = self._scores()
            m, s1, s2 = self.ann.item_moments(scores.factor, scores.shift,
                                              self.dis.moment_scores)
            return m, self._moment_within(m, s1, s2), s1, s2
        counts = self.ann.category_counts()  # scipy sparse when items × K is large
        if self.rater_pair is not None:
            within = self._ordered_within()
        elif self.dis.name == "nominal":  # n_iᵀ(11ᵀ − I)n_i = m_i² − Σ_k n_ik²
            within = self.m * self.m - count_square_sums(counts)
        elif self.dis.interval_factor is not None:  # interval form: 2u(m Σx² − (Σx)²) on the scores
            scores = self._scores()
            m, s1, s2 = self.ann.item_moments(scores.factor, scores.shift,
                                              self.dis.moment_scores)
            within = np.maximum(2.0 * scores.units * (m * s2 - s1 * s1), 0.0)
        elif issparse(counts) or (self.K > PAIR_FORM_CATEGORIES  # O(Σ m_i²), not items·K²
                                     and (np.minimum(self.m, self.K) ** 2).sum() <= counts.size):
            within = quadratic_form_per_row(counts, self.dis.matrix)
        else:
            within = np.einsum("ik,ik->i", counts @ self.dis.matrix, counts)  # n_iᵀ δ n_i
        return self.m, within, counts, None

    @staticmethod
    def _moment_within(m: np.ndarray, s1: np.ndarray, s2: np.ndarray) -> np.ndarray:
        """n_iᵀ δ n_i = 2(m Σx² − (Σx)²) on the normalised scores (clipped at 0 against
        rounding)."""
        return np.maximum(2.0 * (m * s2 - s1 * s1), 0.0)

    # Each dense block of the item statistics is a row weight times per-item columns,
    # w_i · C_i, so that item_stats stacks w[:, None] * C and totals are w @ C (one matvec).
    def _observed_block(self, within: np.ndarray,
                        m: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """u_i · [d_i, 1]: the item's mean pair disagreement and its weight (0 if unpairable),
        for items of m annotations (default: the data's items)."""
        u, d = self._observed_columns(within, m)
        return u, np.column_stack([d, np.ones_like(d)])

    def _observed_columns(self, within: np.ndarray,
                          m: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(u_i, d_i) of :meth:`_observed_block`, its column of ones left out."""
        pairable = self.pairable if m is None else m >= 2
        m = self.m if m is None else m
        d = within / np.where(pairable, m * (m - 1), 1.0)
        u = np.where(pairable, m if self.item_weighting == "annotation" else 1.0, 0.0)
        return u, d

    def _chance_weight(self, m: np.ndarray) -> np.ndarray:
        """w(m) of the chance block's rows w_i · C_i: 1 for pairable items (pooled), 1/m_i for
        items with an annotation (item_marginal, gwet)."""
        if self.chance == "pooled":
            return (m >= 2).astype(float)
        return np.divide(1.0, m, out=np.zeros(m.shape), where=m >= 1)

    def _chance_block(self, sums: _ItemSums
                      ) -> tuple[np.ndarray, ItemStats] | None:
        """The chance model's dense block as (w, C); None for no block or the sparse one."""
        columns = self._chance_columns(sums)
        if columns is None:
            return None
        w, groups = columns
        if len(groups) == 1:
            return w, groups[0]
        dense = [group for group in groups if isinstance(group, np.ndarray)]
        if len(dense) == len(groups):
            return w, np.column_stack(dense)
        return w, sp.hstack([sp.csr_matrix(group) for group in groups], format="csr")

    def _chance_columns(self, sums: _ItemSums
                        ) -> tuple[np.ndarray, list[ItemStats]] | None:
        """:meth:`_chance_block` as (w, the groups of its columns, side by side in C): the
        totals sum each group on its own, with no stacked copy of the counts."""
        m = self.m
        if self.use_moments:
            per_item: ItemStats = np.column_stack([m, *self._moment_sums(sums)])
        else:
            per_item = sums[2]
        if self.chance == "pooled":  # pairable items' counts (or m, Σx, Σx²)
            return self._chance_weight(m), [per_item]
        if self.chance in ("item_marginal", "gwet"):  # [n_i/m_i, 1] (or [1, Σx/m, Σx²/m])
            inv_m = self._chance_weight(m)
            return inv_m, [per_item] if self.use_moments else [per_item, m[:, None]]
        return None

    @staticmethod
    def _moment_sums(sums: _ItemSums
                     ) -> tuple[np.ndarray, np.ndarray]:
        """(Σx, Σx²) of :meth:`_item_sums` on the moment path, where they are dense."""
        s1, s2 = sums[2], sums[3]
        assert isinstance(s1, np.ndarray) and s2 is not None, "moments are dense"
        return s1, s2

    @property
    def _n_raters(self) -> int:
        """R, for the chance model and the methods that need the raters."""
        return len(self.ann.require_raters(self.name))

    @property
    def _pair(self) -> tuple[int, int]:
        """:attr:`rater_pair` of a core of an asymmetric δ, where it is never None."""
        assert self.rater_pair is not None, "read only for an asymmetric δ in rater order"
        return self.rater_pair

    def _rater_block(self) -> sp.csr_matrix:
        """rater_marginal: each annotation's (rater, category) indicator, or its rater's
        [1, x, x²] on the moment path — items × R·K (or 3R), sparse."""
        items, raters, cats = self.ann.codes()
        R, x = self._n_raters, None
        if self.use_moments:
            scores, values = self._scores(), self.dis.scores
            assert values is not None, "a distance of interval form has scores"
            x = (values - scores.shift)[cats] * scores.factor
        rows, cols, data = rater_marginal_entries(items, raters, cats, R, self.K, x)
        width = 3 * R if self.use_moments else R * self.K
        return sp.csr_matrix((data, (rows, cols)), shape=(self.ann.n_items, width))

    def _scores(self) -> IntervalScores:
        """The normalised scores of the moment path (found once per core: the extremes of
        the scores are a pass over every distinct value)."""
        if getattr(self, "_interval_scores", None) is None:
            self._interval_scores = interval_scores(self.dis)
        return self._interval_scores

    def _units(self) -> tuple[float, float]:
        """(scale, units): the distance's scale in the units D_o and D_e are computed in,
        and the factor back to the distance's own units (1 except on the moment path)."""
        if self.use_moments:
            scores = self._scores()
            return scores.scale, scores.units
        return self.dis.scale, 1.0

    def _delta_times(self, v: np.ndarray) -> np.ndarray:
        """δ v along the last axis (δ symmetric); nominal δ = 11ᵀ − I needs no K × K matrix."""
        return distance_product(self.dis, v)

    def _quadratic(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        """aᵀ δ b along the last axis."""
        return (a * self._delta_times(b)).sum(axis=-1)

    # ------------------------------------------------------------------ protocol
    def _dense_blocks(self) -> list[tuple[np.ndarray, ItemStats]]:
        sums = self._item_sums()
        blocks: list[tuple[np.ndarray, ItemStats]] = [self._observed_block(sums[1])]
        chance = self._chance_block(sums)
        return blocks if chance is None else blocks + [chance]

    def unweighted_item_stats(self) -> ItemStats:
        blocks: list[ItemStats] = [
            w[:, None] * C if isinstance(C, np.ndarray) else sp.csr_matrix(C.multiply(w[:, None]))
            for w, C in self._dense_blocks()]
        if self.chance == "rater_marginal":
            blocks.append(self._rater_block())
        dense = [block for block in blocks if isinstance(block, np.ndarray)]
        if len(dense) < len(blocks):  # a sparse block
            stats = sp.hstack([sp.csr_matrix(block) for block in blocks], format="csr")
            stats.eliminate_zeros()  # an item without statistics has an empty row
            return stats
        return np.column_stack(dense)

    def unweighted_totals(self) -> np.ndarray:
        # unweighted_item_stats().sum(axis=0): w @ C per block, nothing stacked, by blocks of
        # rows and pairwise (column_totals), so the rounding error does not grow with the
        # items; the pooled counts of pairable items (whole numbers, weights 0 or 1) add up
        # exactly in any order below 2**53, in one product
        counts_only = self.chance == "pooled" and not self.use_moments
        sums = self._item_sums()
        u, d = self._observed_columns(sums[1])
        # Σ u_i: whole numbers (m_i, 1 or 0), exact in any order
        parts = [column_totals(d[:, None], u), np.array([u.sum()])]
        chance = self._chance_columns(sums)
        if chance is not None:  # each group of columns on its own: no stacked copy
            w, groups = chance
            parts += [np.asarray(C.T @ w, dtype=float).ravel() if counts_only
                      else column_totals(C, w) for C in groups]
        if self.chance == "rater_marginal":  # straight from bincounts, not the sparse matrix
            if self.use_moments:
                scores = self._scores()
                parts += list(self.ann.rater_moments(scores.factor, scores.shift,
                                                     self.dis.moment_scores))
            else:
                parts.append(self.ann.rater_count_matrix.astype(float).ravel())
        return np.concatenate(parts)

    def combine(self, totals: np.ndarray) -> Components:
        t = numeric_array(totals)
        d_o = safe_divide(t[..., 0], t[..., 1])
        return disagreement_components(d_o, self._expected(t[..., 2:]), *self._units())

    def _expected(self, t: np.ndarray) -> np.ndarray:
        scale = self._units()[0]
        lead = t.shape[:-1]
        if self.chance == "none":
            return np.full(lead, scale)
        if self.chance == "uniform":
            K = self.K
            return np.full(lead, self._delta_times(np.ones(K)).sum() / K**2)
        if self.chance == "pooled":
            if self.use_moments:
                n, s1, s2 = t[..., 0], t[..., 1], t[..., 2]
                return safe_divide(2.0 * (n * s2 - s1 * s1), n * (n - 1))
            n = t.sum(axis=-1)
            return safe_divide(self._quadratic(t, t), n * (n - 1))
        if self.chance == "item_marginal":
            if self.use_moments:
                n_present, mean_x, mean_x2 = t[..., 0], t[..., 1], t[..., 2]
                mu, mu2 = safe_divide(mean_x, n_present), safe_divide(mean_x2, n_present)
                return 2.0 * (mu2 - mu * mu)
            K = self.K
            pi = safe_divide(t[..., :K], t[..., K:K + 1])
            return self._quadratic(pi, pi)
        if self.chance == "gwet":
            K = self.K
            pi = safe_divide(t[..., :K], t[..., K:K + 1])
            p_e = self._gwet_weight() * (pi * (1.0 - pi)).sum(axis=-1)
            return scale * (1.0 - p_e)
        return self._rater_marginal_expected(t)

    def _gwet_weight(self) -> float:
        """T_w/(K(K − 1)), T_w = Σ_kl w_kl: Gwet's chance agreement per unit of Σπ(1 − π)."""
        K = self.K
        if K < 2:
            return np.nan
        total_weight = K * K - self._delta_times(np.ones(K)).sum() / self.dis.scale
        return total_weight / (K * (K - 1))

    def _rater_marginal_expected(self, t: np.ndarray) -> np.ndarray:
        """Mean over ordered rater pairs g ≠ h of p_gᵀ δ p_h (raters with ratings only)."""
        if self.rater_pair is not None:
            return self._ordered_expected(t)
        R = self._n_raters
        if self.use_moments:
            n, s1, s2 = t[..., :R], t[..., R:2 * R], t[..., 2 * R:]
            active = np.real(n) > 0
            mu, mu2 = safe_divide(s1, n), safe_divide(s2, n)
            mu, mu2 = np.where(active, mu, 0.0), np.where(active, mu2, 0.0)
            r = active.sum(axis=-1).astype(float)
            # Σ_{g≠h} E_g x² + E_h x² − 2 μ_g μ_h
            pair_sum = 2 * (r - 1) * mu2.sum(axis=-1) - 2 * (
                mu.sum(axis=-1) ** 2 - (mu * mu).sum(axis=-1))
            return safe_divide(pair_sum, r * (r - 1))
        counts = t.reshape(t.shape[:-1] + (R, self.K))
        n_g = counts.sum(axis=-1, keepdims=True)
        p = np.where(np.real(n_g) > 0, safe_divide(counts, n_g), 0.0)
        r = (np.real(n_g[..., 0]) > 0).sum(axis=-1).astype(float)
        p_sum = p.sum(axis=-2)
        cross = self._quadratic(p_sum, p_sum)
        own = self._quadratic(p, p).sum(axis=-1)
        return safe_divide(cross - own, r * (r - 1))

    # ------------------------------------------------------------------ leaving raters out
    def rater_removal_totals(self, raters: Sequence[int] | None = None) -> np.ndarray:
        r"""The totals of the data without each rater, for every rater at once: row j is
        ``totals()`` of the annotations of all raters but ``raters[j]`` (default: every
        rater, in the order of ``ann.raters``), so ``combine`` of the stack gives the
        coefficient with each rater left out.

        Removing annotation a (item i, category c, score x) leaves its item with m_i − 1
        annotations, counts n_i − e_c (moments Σx − x, Σx² − x²) and

        .. math::  n_i'^\top δ\, n_i' = n_i^\top δ\, n_i - 2 (δ n_i)_c

        (:func:`~kappalab.coefficients.base.distance_to_own_item`). Each block of the item
        statistics is w(m_i)·C_i with C linear in the annotations, so a rater's totals change
        by Σ_a [u_i(d_i, 1) − u'_a(d'_a, 1)] in the observed block and by
        Σ_a [(w(m_i) − w(m_i − 1)) C_i + w(m_i − 1) C(a)] in the chance block — a
        scatter-add over the rater's annotations and one sparse product with the items'
        C_i. The rater-marginal block loses the rater's own columns. O(annotations ×
        min(m_i, K)) in all, never one recomputation per rater.

        Parameters
        ----------
        raters : sequence of int, optional
            Rater positions in ``ann.raters`` (default: all); a chunk of them bounds the
            memory of the rater-marginal block, whose rows have R·K columns.

        Returns
        -------
        numpy.ndarray
            len(raters) × s totals, in the columns of :meth:`unweighted_totals`.

        Raises
        ------
        InvalidParameterError
            With sample weights, or an asymmetric δ in rater order.

        Examples
        --------
        The worked example (10 items, raters A, B, C) without each rater. Without A, B and
        C disagree on 4 of 10 items: D_o = 4·2/20, D_e = (20² − 3² − 7² − 10²)/(20·19) =
        242/380, α = 1 − 0.4/(242/380) = 0.3719.

        >>> import kappalab as kl
        >>> core = alpha_core(kl.datasets.load("worked_example"))
        >>> stack = core.rater_removal_totals()
        >>> stack.shape[0], round(float(core.combine(stack)["value"][0]), 4)
        (3, 0.3719)
        """
        if self.sample_weight is not None or self.rater_pair is not None:
            raise InvalidParameterError(
                "leaving raters out needs an unweighted core with a symmetric distance")
        items, rater_codes, cats = self.ann.codes()
        R = self._n_raters
        chosen = np.arange(R) if raters is None else np.asarray(raters, dtype=np.intp)
        row_of = np.full(R, -1, dtype=np.intp)
        row_of[chosen] = np.arange(chosen.size)
        row = row_of[rater_codes]
        keep = row >= 0
        items, row, cats = items[keep], row[keep], cats[keep]
        n_rows = chosen.size

        def per_row(weights: np.ndarray) -> np.ndarray:
            return np.bincount(row, weights=weights, minlength=n_rows)

        sums = self._item_sums()
        m_less = self.m[items] - 1.0
        if self.use_moments:
            scores, values = self._scores(), self.dis.scores
            assert values is not None, "a distance of interval form has scores"
            x = (values[cats] - scores.shift) * scores.factor
            s1, s2 = self._moment_sums(sums)
            within_less = self._moment_within(m_less, s1[items] - x, s2[items] - x * x)
        else:
            own = distance_to_own_item(self.dis, self.ann)[keep]
            within_less = np.maximum(sums[1][items] - 2.0 * own, 0.0)
        u, C = self._observed_block(sums[1])
        u_less, C_less = self._observed_block(within_less, m_less)
        change = u[items, None] * C[items] - u_less[:, None] * C_less
        changes = [np.column_stack([per_row(change[:, 0]), per_row(change[:, 1])])]
        chance = self._chance_block(sums)
        if chance is not None:  # (w(m_i) − w(m_i − 1)) C_i + w(m_i − 1) C(a)
            w_item, C_item = chance
            w_less = self._chance_weight(m_less)
            shift = sp.csr_matrix((w_item[items] - w_less, (row, items)),
                                  shape=(n_rows, self.ann.n_items)) @ C_item
            shift = shift.toarray() if issparse(shift) else np.asarray(shift)
            if self.use_moments:  # C(a) = [1, x, x²]
                own_part = np.column_stack([per_row(w_less), per_row(w_less * x),
                                            per_row(w_less * x * x)])
            else:  # C(a) = e_c (and the column of m: 1)
                own_part = np.bincount(row * self.K + cats, weights=w_less,
                                       minlength=n_rows * self.K).reshape(n_rows, self.K)
                if C_item.shape[1] == self.K + 1:
                    own_part = np.column_stack([own_part, per_row(w_less)])
            changes.append(shift + own_part)
        totals = self.unweighted_totals()
        start = sum(part.shape[1] for part in changes)
        removed = np.empty((n_rows, totals.size))
        removed[:, :start] = totals[:start] - np.column_stack(changes)
        if self.chance == "rater_marginal":  # the rater's own columns go
            removed[:, start:] = totals[start:]
            width = 3 if self.use_moments else self.K
            block = removed[:, start:].reshape(n_rows, -1)
            for k in range(width):  # columns of rater g: g·K + k, or g + k·R on moments
                columns = chosen + k * R if self.use_moments else chosen * self.K + k
                block[np.arange(n_rows), columns] = 0.0
            removed[:, start:] = block
        return removed

    # ------------------------------------------------------------------ exact gradient
    def value_gradient(self, totals: np.ndarray) -> np.ndarray:
        r"""∇ value(T) in closed form: with D_o = T_0/T_1 and D_e(c) of the chance block c,

        .. math::  ∇(1 - D_o/D_e) = \Big(-\frac{1}{T_1 D_e},\ \frac{T_0}{T_1^2 D_e},\
                   \frac{D_o}{D_e^2} ∇_c D_e\Big),

        and ∇_c D_e per chance model (``_expected_gradient``). O(s) time and memory, the
        nominal distance without a K × K matrix; NaN where the coefficient is undefined."""
        t = np.asarray(totals, dtype=float)
        if self.rater_pair is not None:  # asymmetric δ in rater order: two raters, small s
            return complex_step_gradient(self, t)
        gradient = np.full(t.size, np.nan)
        d_e = float(self._expected(t[2:]))
        if not (t[1] > 0 and d_e > 0):
            return gradient
        d_o = t[0] / t[1]
        gradient[0] = -1.0 / (t[1] * d_e)
        gradient[1] = t[0] / (t[1] ** 2 * d_e)
        gradient[2:] = d_o / d_e**2 * self._expected_gradient(t[2:], d_e)
        return gradient

    def _expected_gradient(self, t: np.ndarray, d_e: float) -> np.ndarray:
        """∇ D_e in the chance block of the totals (see :meth:`_expected`)."""
        if self.chance in ("none", "uniform"):
            return np.zeros(t.size)
        if self.chance == "pooled":
            if self.use_moments:  # D_e = 2(n s₂ − s₁²)/(n(n − 1))
                n, s1, s2 = t
                pairs = n * (n - 1)
                return np.array([2 * s2 / pairs - d_e * (2 * n - 1) / pairs,
                                 -4 * s1 / pairs, 2 * n / pairs])
            n = t.sum()  # D_e = NᵀδN/(n(n − 1))
            return (2 * self._delta_times(t) - d_e * (2 * n - 1)) / (n * (n - 1))
        if self.chance == "item_marginal":
            if self.use_moments:  # D_e = 2(μ₂ − μ²), μ = a₁/c, μ₂ = a₂/c
                c, a1, a2 = t
                mu, mu2 = a1 / c, a2 / c
                return np.array([-2 * (mu2 - 2 * mu * mu) / c, -4 * mu / c, 2 / c])
            K = self.K
            c = t[K]  # D_e = πᵀδπ, π = A/c
            pi = t[:K] / c
            return np.append(2 * self._delta_times(pi) / c, -2 * d_e / c)
        if self.chance == "gwet":  # D_e = scale(1 − w Σπ(1 − π)), π = A/c
            K = self.K
            c = t[K]
            pi = t[:K] / c
            slope = -self.dis.scale * self._gwet_weight() * (1 - 2 * pi)  # ∂D_e/∂π
            return np.append(slope / c, -(slope @ pi) / c)
        return self._rater_marginal_gradient(t)

    def _rater_marginal_gradient(self, t: np.ndarray) -> np.ndarray:
        r"""∇ of D_e = (Pᵀδ P − Σ_g p_gᵀδ p_g)/(r(r − 1)), P = Σ_g p_g: ∂D_e/∂p_g =
        2δ(P − p_g)/(r(r − 1)), then through p_g = N_g/n_g (moments: μ_g = s₁/n, μ₂ = s₂/n)."""
        R = self._n_raters
        if self.use_moments:
            n, s1, s2 = t[:R], t[R:2 * R], t[2 * R:]
            active = n > 0
            safe_n = np.where(active, n, 1.0)
            mu, mu2 = np.where(active, s1 / safe_n, 0.0), np.where(active, s2 / safe_n, 0.0)
            r = active.sum()
            pairs = r * (r - 1)
            d_mu = np.where(active, 4 * (mu - mu.sum()) / pairs, 0.0)  # ∂D_e/∂μ_g
            d_mu2 = np.where(active, 2 * (r - 1) / pairs, 0.0)  # ∂D_e/∂μ₂_g
            return np.concatenate([-(d_mu * mu + d_mu2 * mu2) / safe_n, d_mu / safe_n,
                                   d_mu2 / safe_n])
        counts = t.reshape(R, self.K)
        n_g = counts.sum(axis=1, keepdims=True)
        active = n_g > 0
        safe_n = np.where(active, n_g, 1.0)
        p = np.where(active, counts / safe_n, 0.0)
        r = active.sum()
        v = 2 * self._delta_times(p.sum(axis=0) - p) / (r * (r - 1))  # ∂D_e/∂p_g
        gradient = (v - (v * p).sum(axis=1, keepdims=True)) / safe_n
        return np.where(active, gradient, 0.0).ravel()
    # ------------------------------------------------------------------ asymmetric δ, two raters
    def _ordered_raters(self, rater_order: bool) -> tuple[int, int]:
        """The codes (g, h) of rater 1 and rater 2, for an asymmetric δ in rater order."""
        if not rater_order:
            self.dis.require_symmetric(self.name)
        active = np.flatnonzero(self.ann.rater_count_matrix.sum(axis=1) > 0)
        if active.size != 2:
            raise InvalidParameterError(
                f"{self.name}: an asymmetric matrix is applied in rater order, which needs "
                f"exactly two raters with annotations; these data have {active.size}"
            )
        return int(active[0]), int(active[1])

    def _ordered_within(self) -> np.ndarray:
        """2 δ[c₁, c₂] per item both raters annotated (0 otherwise): n_iᵀ δ n_i would be
        δ[c₁, c₂] + δ[c₂, c₁], the symmetrised form; this keeps rater 1's category first."""
        items, raters, cats = self.ann.codes()
        first = np.full(self.ann.n_items, -1)
        second = np.full(self.ann.n_items, -1)
        g, h = self._pair
        first[items[raters == g]] = cats[raters == g]
        second[items[raters == h]] = cats[raters == h]
        both = (first >= 0) & (second >= 0)
        within = np.zeros(self.ann.n_items)
        within[both] = 2.0 * self.dis.matrix[first[both], second[both]]
        return within

    def _ordered_expected(self, t: np.ndarray) -> np.ndarray:
        """p₁ᵀ δ p₂ from the rater × category totals: Cohen's chance disagreement in rater
        order (the mean over both orders, (p₁ᵀ δ p₂ + p₂ᵀ δ p₁)/2, symmetrises δ)."""
        g, h = self._pair
        counts = t.reshape(t.shape[:-1] + (self._n_raters, self.K))
        p_1 = safe_divide(counts[..., g, :], counts[..., g, :].sum(axis=-1, keepdims=True))
        p_2 = safe_divide(counts[..., h, :], counts[..., h, :].sum(axis=-1, keepdims=True))
        return (p_1 * (p_2 @ self.dis.matrix.T)).sum(axis=-1)

    # ------------------------------------------------------------------ reporting
    # ------------------------------------------------------------------ Krippendorff's bootstrap
    def pairable_values(self) -> PairableValues:
        r"""The coincidence distribution of the pairable values, which Krippendorff's
        bootstrap resamples (``ci="krippendorff"``,
        :func:`~kappalab.uncertainty.krippendorff_replicates`).

        o_ck = Σ_u n_uc (n_uk − [c = k])/(m_u − 1) over the units with m_u ≥ 2 values, as a
        sparse product of the counts (no K × K matrix for interval-form distances, so
        continuous values cost O(Σ_u m_u²)); each pair type c ≤ k with o_ck > 0 has
        probability (2 − [c = k]) o_ck/n.. and distance δ_ck, and D_e = N·ᵀδN·/(n..(n.. − 1)).

        Returns
        -------
        PairableValues

        Raises
        ------
        InvalidParameterError
            A core other than Krippendorff's α (pooled chance, annotation weighting), sample
            weights (the bootstrap draws whole value pairs), or an asymmetric distance.

        Examples
        --------
        >>> import kappalab as kl
        >>> values = alpha_core(kl.datasets.load("worked_example")).pairable_values()
        >>> values.unit_sizes.tolist(), values.units.tolist(), values.n_values
        ([3], [10], 30.0)
        >>> round(1 - values.observed / values.expected, 4)  # α = 1 − D_o/D_e
        0.5782
        """
        if self.chance != "pooled" or self.item_weighting != "annotation":
            raise InvalidParameterError(
                f"Krippendorff's bootstrap (ci='krippendorff') resamples the pairable values of "
                f"Krippendorff's alpha; {self.name} is not alpha: use an item-resampling "
                "interval, e.g. ci='bootstrap'")
        if self.sample_weight is not None:
            raise InvalidParameterError(
                "Krippendorff's bootstrap (ci='krippendorff') draws whole pairs of values and "
                "takes no sample_weight; use ci='bootstrap', whose units are the weighted items")
        self.dis.require_symmetric(self.name)
        counts = sp.csr_matrix(self.ann.category_counts())[self.pairable]
        m = self.m[self.pairable]
        per_unit = sp.diags(1.0 / (m - 1))
        off = sp.triu(counts.T @ (per_unit @ counts), k=1).tocoo()  # o_ck, c < k
        same = counts.copy()
        same.data = same.data * (same.data - 1)
        diagonal = np.asarray(same.T @ (1.0 / (m - 1))).ravel()  # o_cc
        kept = np.flatnonzero(diagonal > 0)
        rows = np.concatenate([kept, off.row])
        cols = np.concatenate([kept, off.col])
        coincidence = np.concatenate([diagonal[kept], 2.0 * off.data])  # both orders of c < k
        n_values = float(m.sum())
        marginals = np.asarray(counts.sum(axis=0), dtype=float).ravel()
        pairs_of_values = n_values * (n_values - 1)
        if self.dis.scores is not None:
            # interval form, δ_ck = u (x_c − x_k)² on the normalised scores x: δ and D_e in
            # the units of the scores (α is their ratio), which neither overflow nor
            # underflow whatever the magnitude of the values (1e±300)
            scores = self._scores()
            x = (self.dis.scores - scores.shift) * scores.factor
            gap = x[rows] - x[cols]
            delta = gap * gap
            expected = float(np.real(self._expected(
                np.array([n_values, marginals @ x, marginals @ (x * x)]))))
        else:
            delta = self.dis.matrix[rows, cols]
            expected = (float(marginals @ distance_product(self.dis, marginals))
                        / pairs_of_values if pairs_of_values > 0 else np.nan)
        sizes, units = np.unique(m.astype(np.int64), return_counts=True)
        return PairableValues(np.asarray(delta, dtype=float), coincidence / n_values,
                              rows == cols, sizes, units, expected)

    # ------------------------------------------------------------------ the test of κ = 0
    def null_standard_error(self) -> float | None:
        r"""The standard error of Fleiss' κ̂ under κ = 0 (Fleiss, Nee & Landis 1979), for the
        test of no agreement that R's ``irr::kappam.fleiss`` reports; None unless the core is
        unweighted Fleiss' κ (item-marginal chance, nominal distance).

        Under κ = 0 every annotation is an independent draw from the marginal p. An item's
        disagreement d_i is a U-statistic of its m_i annotations with kernel δ(x, y) =
        [x ≠ y] and mean θ = 1 − Σ p²; in Hoeffding's (1948) decomposition its linear part
        (2/m_i) Σ g(x), g(x) = Σp² − p_x, is also the linear part of D_e = 1 − Σ π̂² per
        annotation, so κ̂ ≈ (D_e − D_o)/θ keeps, with the sample weights w_i,
        W₂ = Σ_{m_i ≥ 2} w_i and W₁ = Σ_{m_i ≥ 1} w_i,

        .. math::  \operatorname{Var}_0(κ̂) = \frac{1}{θ^2}\Big(
                   4 V_g \sum_i \frac{a_i^2}{m_i}
                   + 2 V_h \sum_{i: m_i \ge 2} \frac{b_i^2}{m_i (m_i - 1)}\Big),
                   \qquad a_i = w_i\Big(\frac{[m_i \ge 2]}{W_2} - \frac{1}{W_1}\Big),
                   \quad b_i = \frac{w_i}{W_2},

        with V_g = Var g = Σp³ − (Σp²)² and V_h = θ(1 − θ) − 2V_g = (Σpq)² − Σpq(q − p),
        the variance of the kernel's degenerate part, at p = π̂. When every item has m ≥ 2
        annotations the a_i vanish, and with m the same for all N items it is Fleiss, Nee &
        Landis's

        .. math::  \operatorname{Var}_0(κ̂) = \frac{2}{N m (m-1)}\,
                   \frac{(\sum_j p_j q_j)^2 - \sum_j p_j q_j (q_j - p_j)}{(\sum_j p_j q_j)^2},

        and for two categories Fleiss' (1971) 2/(N m(m − 1)) of each κ_j. Singly-rated items
        add the first term: the linear parts of D_o and D_e no longer cancel.

        Returns
        -------
        float or None
            SE₀ (NaN where κ is undefined), or None for another coefficient.

        References
        ----------
        Fleiss, J. L., Nee, J. C. M. & Landis, J. R. (1979). Large sample variance of kappa in
        the case of different sets of raters. *Psychological Bulletin* 86(5), 974–977.
        doi:10.1037/0033-2909.86.5.974

        Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters.
        *Psychological Bulletin* 76(5), 378–382. doi:10.1037/h0031619

        Hoeffding, W. (1948). A class of statistics with asymptotically normal distribution.
        *Annals of Mathematical Statistics* 19(3), 293–325. doi:10.1214/aoms/1177730196

        Examples
        --------
        Fleiss (1971): 30 patients, 6 ratings each, p = (26, 26, 30, 55, 43)/180.

        >>> import kappalab as kl
        >>> ann = kl.datasets.load("fleiss_1971")
        >>> core = ChanceCorrectedAgreement(ann, weights_for(ann, None), chance="item_marginal",
        ...                                 item_weighting="item", name="Fleiss' kappa")
        >>> round(core.null_standard_error(), 6)  # R irr: κ/SE₀ = 0.4302/0.02437 = 17.65
        0.024374
        """
        if not self._has_null_standard_error:
            return None
        # π̂, W₁ and W₂ from the totals (those of the last estimate when there is one): the
        # chance block Σ_i w_i [n_i/m_i, 1[m_i ≥ 1]] and the observed block's Σ_i w_i u_i
        totals = self.estimated_totals if self.estimated_totals is not None else self.totals()
        chance = totals[2:]
        w1, w2 = float(chance[self.K]), float(totals[1])
        p = chance[:self.K] / w1 if w1 > 0 else np.full(self.K, np.nan)
        # the sums over items: by the numbers of annotations when unweighted (a bincount),
        # item by item (vectorised) with sample weights
        if self.sample_weight is None:
            items_with = np.bincount(self.m.astype(np.int64))  # items with m = 0, 1, 2, …
            sizes = np.arange(items_with.size, dtype=float)
            per_pairable = float(items_with[2:] @ (1.0 / sizes[2:]))  # Σ_{m ≥ 2} 1/m
            linear = ((1 / w2 - 1 / w1) ** 2 * per_pairable + items_with[1:2].sum() / w1 ** 2
                      if w2 > 0 else np.nan)
            degenerate = float(items_with[2:] @ (1.0 / (sizes[2:] * (sizes[2:] - 1)))) / w2 ** 2 \
                if w2 > 0 else np.nan
        else:
            w, mf = self.sample_weight, self.m
            rated, pairable = (mf >= 1) & (w > 0), (mf >= 2) & (w > 0)
            if w2 > 0:
                a = w[rated] * (pairable[rated] / w2 - 1.0 / w1)
                linear = float((a * a / mf[rated]).sum())
                b = w[pairable] / w2
                degenerate = float((b * b / (mf[pairable] * (mf[pairable] - 1))).sum())
            else:
                linear = degenerate = np.nan
        s2, s3 = float(p @ p), float(p @ (p * p))
        theta = 1.0 - s2
        if not (w2 > 0 and theta > 0):
            return float("nan")
        v_g = s3 - s2 * s2
        v_h = theta * (1.0 - theta) - 2.0 * v_g
        return float(np.sqrt(max(4.0 * v_g * linear + 2.0 * v_h * degenerate, 0.0)) / theta)

    def blas_cells(self) -> int:
        """items × (K + 3): the dense blocks of the item statistics are at most the counts
        and three columns (``[d_i, 1]`` and ``m_i``, or the moments), the rater blocks are
        bincounts or sparse; items × 6 for the moment form, which reads no category count
        (a store of float values has none until one is asked for)."""
        return self.ann.n_items * (6 if self.use_moments else self.K + 3)

    def undefined_reason(self, parts: Components) -> str | None:
        n_pairable = int(np.count_nonzero(self.pairable if self.sample_weight is None
                                          else self.pairable & self._weighted()))
        if self.chance != "none" and self.ann.has_one_category:
            return f"there is only one category ({self.ann.categories[0]!r})"
        if n_pairable == 0:
            if self.pairable.any():
                return "every item with two or more annotations has sample weight 0"
            return "no item has two or more annotations, so nothing can be paired"
        if self.chance == "rater_marginal" and active_raters(self.ann, self.sample_weight) < 2:
            return "fewer than two raters have annotations"
        # judged in the units D_e is computed in (the reported D_e may underflow to 0)
        p_e = float(np.real(np.asarray(parts["expected"]).reshape(-1)[0]))
        value = float(np.real(np.asarray(parts["value"]).reshape(-1)[0]))
        if not np.isfinite(p_e):
            return "the expected disagreement cannot be computed (too few annotations)"
        if np.isnan(value):
            return ("the expected disagreement is 0 (all annotations fall in one category, "
                    "or the chance model leaves no room for disagreement)")
        return None

    def _weighted(self) -> np.ndarray:
        """The items with a positive sample weight (all without weights)."""
        return self.item_weights(self.ann.n_items) > 0

    def _annotations_of_weighted_items(self) -> np.ndarray:
        """m_i of the items with a positive sample weight, 0 for the others."""
        m = self.ann.annotations_per_item_array
        return m if self.sample_weight is None else np.where(self._weighted(), m, 0)

    def counts_used(self) -> dict[str, Any]:
        m = self._annotations_of_weighted_items()
        pairable = m >= 2
        n_annotations = int(m[pairable].sum()) if self.chance == "pooled" else int(m.sum())
        out: dict[str, Any] = {"n_items": int(pairable.sum()), "n_annotations": n_annotations}
        if self.ann.has_raters:
            out["n_raters"] = active_raters(self.ann, self.sample_weight)
        return out

    def gwet_design(self) -> tuple[int, np.ndarray] | None:
        """Column 1, u_i of the observed block ``u_i · [d_i, 1]``, and the items with an
        annotation (and a positive sample weight), for the coefficients that average over
        the pairable items (``item_weighting="item"``); None for Krippendorff's α, whose
        items weigh by their annotations and whose Gwet formula is another."""
        if self.item_weighting != "item":
            return None
        return 1, (self.m >= 1) & (self.item_weights(self.ann.n_items) > 0)

    def krippendorff_bootstrap(self, options: IntervalOptions) -> Interval:
        """Krippendorff's bootstrap of the pairable values (``ci="krippendorff"``,
        :func:`~kappalab.uncertainty.krippendorff_interval`), with its ``ci_method``,
        ``n_resamples`` and ``q`` (one per ``options.alpha_min``) for the estimate's
        ``details``."""
        result, q = krippendorff_interval(self.pairable_values(), n_resamples=options.n_resamples,
                                          confidence=options.confidence,
                                          alpha_min=options.alpha_min, seed=options.seed,
                                          progress=options.progress)
        return replace(result, details={"ci_method": KRIPPENDORFF,
                                        "n_resamples": result.n_resamples, "q": q})

    @property
    def interval_methods(self) -> dict[str, Any]:  # type: ignore[override]
        """``"krippendorff"`` for Krippendorff's α (pooled chance, annotation weighting);
        none for the other coefficients of the family."""
        if self.chance == "pooled" and self.item_weighting == "annotation":
            return {KRIPPENDORFF: ChanceCorrectedAgreement.krippendorff_bootstrap}
        return {}

    def check_interval(self, options: IntervalOptions) -> None:
        super().check_interval(options)
        if options.ci == KRIPPENDORFF and self.sample_weight is not None:
            self.pairable_values()  # refuses sample weights before any work

    def details(self) -> Mapping[str, Any]:  # type: ignore[override]  # read when asked
        m = self._annotations_of_weighted_items()
        entries: dict[str, Any] = {
            "chance_model": self.chance,
            "item_weighting": self.item_weighting,
            "n_categories": lambda: self.K,  # the distinct values of floats: sorted if read
            "n_items_unpairable": lambda: int(((m >= 1) & (m < 2)).sum()),
            "moment_path": self.use_moments,
        }
        return _CountedWhenRead(entries, deferred=("n_categories", "n_items_unpairable"))

    @property
    def _has_null_standard_error(self) -> bool:
        """Whether :meth:`null_standard_error` applies: unweighted Fleiss' κ."""
        return self.chance == "item_marginal" and self.dis.name == "nominal" and \
            not self.use_moments


class _CountedWhenRead(Mapping):
    """Details whose ``deferred`` entries are computed when first read (then kept): the
    number of categories of a store of float values is a sort of the values, which the
    moment path does not need, and Fleiss' null standard error is wanted only for its test
    (:meth:`adding`). A pickled copy is a plain dict."""

    def __init__(self, entries: dict[str, Any], deferred: tuple[str, ...]):
        self._entries, self._deferred = entries, set(deferred)

    def __getitem__(self, key: str) -> Any:
        value = self._entries[key]
        if key in self._deferred:
            value = self._entries[key] = value()
            self._deferred.discard(key)
        return value

    def adding(self, key: str, compute: Callable[[], Any]) -> "_CountedWhenRead":
        """These details and ``key``, computed by ``compute()`` when first read (the entries
        not read yet stay deferred)."""
        return _CountedWhenRead({**self._entries, key: compute},
                                deferred=(*self._deferred, key))

    def __iter__(self):
        return iter(self._entries)

    def __len__(self) -> int:
        return len(self._entries)

    def __repr__(self) -> str:
        return repr(dict(self))

    def __reduce__(self):
        return dict, (dict(self),)


# ---------------------------------------------------------------------- shared resolution
def active_raters(ann: Annotations, sample_weight: np.ndarray | None = None) -> int:
    """The number of raters with an annotation (on an item of positive sample weight)."""
    ann.require_raters("the active raters")  # every caller's annotations have raters
    if sample_weight is None:
        n_active = ann.n_active_raters
        assert n_active is not None, "require_raters checked the raters"
        return n_active
    items, raters, _ = ann.codes()
    return int(np.unique(raters[sample_weight[items] > 0]).size)


def pairable_marginals(ann: Annotations, sample_weight: np.ndarray | None = None) -> np.ndarray:
    """Σ over items with ≥ 2 annotations of their category counts (for the ordinal metric),
    each item's counts multiplied by its sample weight when given."""
    pairable = ann.annotations_per_item_array >= 2
    if sample_weight is None:  # one bincount of the codes, no items × categories table
        return ann.selected_category_totals(pairable)
    counts = ann.category_counts()[pairable]
    return np.asarray(counts.T @ sample_weight[pairable], dtype=float).ravel()


def distance_for(ann: Annotations, spec: DistanceSpec, sample_weight: np.ndarray | None = None, *,
                 kind: str = "level") -> CategoryDistance:
    """``level=``/``distance=`` (or, with ``kind="weights"``, ``weights=``) resolved on ``ann``
    by :func:`~kappalab.distances.category_distance` (Krippendorff's ordinal metric on the
    sample-weighted pairable marginals)."""
    # the categories, the marginals and the origin (which only the ratio metric reads) are
    # found only when the distance asks for them
    return category_distance(spec, lambda: ann.categories, kind=kind,
                             values=ann.category_values,
                             marginals=lambda: pairable_marginals(ann, sample_weight),
                             origin=lambda: ann.value_origin, value_range=ann.value_range)


def weights_for(ann: Annotations, weights: DistanceSpec) -> CategoryDistance:
    """``weights=`` of a kappa-family coefficient, resolved on ``ann``."""
    return distance_for(ann, weights, kind="weights")


@dataclass(frozen=True)
class FamilyMember:
    """One named coefficient of the family: what sets it apart from the others.

    :mod:`kappalab.coefficients.registry` reads its entries' chance model, item weighting,
    names and option keyword from :data:`FAMILY`, so they are written once, here.

    Parameters
    ----------
    chance : str
        The ``chance=`` of :class:`ChanceCorrectedAgreement`.
    item_weighting : str
        ``"annotation"`` (Krippendorff's α) or ``"item"``.
    name : str
        The display name.
    weighted_name : str or None
        The display name with a non-nominal distance or weights; None: ``name``.
    option : str
        The keyword of the public function's distance (``"level"``: a distance, resolved
        as ``level=``) or agreement weights (``"weights"``).

    Examples
    --------
    >>> import kappalab as kl
    >>> gwet = FAMILY["gwet_ac"]
    >>> gwet.core_of([[1, 1, 2], [2, 2, 2], [1, 1, 1]], "quadratic").name
    "Gwet's AC2"
    """

    chance: str
    item_weighting: str
    name: str
    weighted_name: str | None
    option: str

    def core(self, ann: Annotations, distance: CategoryDistance,
             sample_weight: np.ndarray | None = None) -> ChanceCorrectedAgreement:
        """The coefficient's core on ``ann`` with a resolved distance and checked weights.

        Parameters
        ----------
        ann : Annotations
            The data.
        distance : CategoryDistance
            The resolved distance or agreement weights (``distance_for``).
        sample_weight : numpy.ndarray, optional
            Checked item weights (:func:`~kappalab.validation.check_sample_weight`).

        Returns
        -------
        ChanceCorrectedAgreement
        """
        name = self.name if self.weighted_name is None or distance.name == "nominal" \
            else self.weighted_name
        return ChanceCorrectedAgreement(ann, distance, chance=self.chance,
                                        item_weighting=self.item_weighting, name=name,
                                        sample_weight=sample_weight)

    def core_of(self, data: AnnotationsLike, spec: DistanceSpec, *,
                categories: Sequence[Any] | None = None,
                sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
        """The coefficient's core on data as its public function reads them: the data read,
        the sample weights checked and ``spec`` (its ``level=`` or ``weights=``) resolved on
        them.

        Parameters
        ----------
        data : Annotations, DataFrame or array-like
            Anything :func:`~kappalab.annotations.as_annotations` reads.
        spec : str, array-like, callable or None
            The public function's ``level=`` or ``weights=`` (:attr:`option`).
        categories : sequence, optional
            The category set and order.
        sample_weight : array-like, optional
            One weight per item.

        Returns
        -------
        ChanceCorrectedAgreement
        """
        ann = as_annotations(data, categories=categories)
        weights = check_sample_weight(sample_weight, ann.n_items)
        return self.core(ann, distance_for(ann, spec, weights, kind=self.option), weights)


#: the named coefficients of the family, by the name of their public function
FAMILY = {
    "percent_agreement": FamilyMember("none", "item", "percent agreement",
                                      "percent agreement (weighted)", "weights"),
    "krippendorff_alpha": FamilyMember("pooled", "annotation", "Krippendorff's alpha", None,
                                       "level"),
    "fleiss_kappa": FamilyMember("item_marginal", "item", "Fleiss' kappa",
                                 "Fleiss' kappa (weighted)", "weights"),
    "gwet_ac": FamilyMember("gwet", "item", "Gwet's AC1", "Gwet's AC2", "weights"),
    "brennan_prediger": FamilyMember("uniform", "item", "Brennan-Prediger",
                                     "Brennan-Prediger (weighted)", "weights"),
    "conger_kappa": FamilyMember("rater_marginal", "item", "Conger's kappa",
                                 "Conger's kappa (weighted)", "weights"),
    "janson_olsson_iota": FamilyMember("rater_marginal", "item", "Janson-Olsson iota", None,
                                       "level"),
}


def alpha_core(ann: Annotations, level: DistanceSpec = "nominal",
               sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of Krippendorff's α on ``ann`` (annotation-weighted, pooled chance)."""
    sample_weight = check_sample_weight(sample_weight, ann.n_items)
    return FAMILY["krippendorff_alpha"].core(ann, distance_for(ann, level, sample_weight),
                                             sample_weight)


# ---------------------------------------------------------------------- core factories
# Each named coefficient's core factory takes the public function's arguments less its
# interval options (ci, n_resamples, confidence, seed, progress) and the options that only
# add details beside the value (fleiss_kappa's by_category, krippendorff_alpha's alpha_min),
# and returns the core whose estimate() is the public function's value
# (kappalab.coefficients.registry, Coefficient.core).
def krippendorff_alpha_core(data: AnnotationsLike, *, level: DistanceSpec = "nominal",
                            categories: Sequence[Any] | None = None,
                            sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`krippendorff_alpha`."""
    return FAMILY["krippendorff_alpha"].core_of(data, level, categories=categories,
                                                sample_weight=sample_weight)


def fleiss_kappa_core(data: AnnotationsLike, *, weights: DistanceSpec = None,
                      categories: Sequence[Any] | None = None,
                      sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`fleiss_kappa`."""
    return FAMILY["fleiss_kappa"].core_of(data, weights, categories=categories,
                                          sample_weight=sample_weight)


def conger_kappa_core(data: AnnotationsLike, *, weights: DistanceSpec = None,
                      categories: Sequence[Any] | None = None,
                      sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`conger_kappa`."""
    return FAMILY["conger_kappa"].core_of(data, weights, categories=categories,
                                          sample_weight=sample_weight)


def janson_olsson_iota_core(data: AnnotationsLike, *, level: DistanceSpec = "nominal",
                            categories: Sequence[Any] | None = None,
                            sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`janson_olsson_iota`."""
    return FAMILY["janson_olsson_iota"].core_of(data, level, categories=categories,
                                                sample_weight=sample_weight)


def gwet_ac_core(data: AnnotationsLike, *, weights: DistanceSpec = None,
                 categories: Sequence[Any] | None = None,
                 sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`gwet_ac`."""
    return FAMILY["gwet_ac"].core_of(data, weights, categories=categories,
                                     sample_weight=sample_weight)


def brennan_prediger_core(data: AnnotationsLike, *, weights: DistanceSpec = None,
                          categories: Sequence[Any] | None = None,
                          sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`brennan_prediger`."""
    return FAMILY["brennan_prediger"].core_of(data, weights, categories=categories,
                                              sample_weight=sample_weight)


def percent_agreement_core(data: AnnotationsLike, *, weights: DistanceSpec = None,
                           categories: Sequence[Any] | None = None,
                           sample_weight: SampleWeightLike = None) -> ChanceCorrectedAgreement:
    """The core of :func:`percent_agreement`."""
    return FAMILY["percent_agreement"].core_of(data, weights, categories=categories,
                                               sample_weight=sample_weight)


# ---------------------------------------------------------------------- named coefficients
@shared_parameters
def krippendorff_alpha(data: AnnotationsLike, *, level: DistanceSpec = "nominal",
                       categories: Sequence[Any] | None = None,
                       sample_weight: SampleWeightLike = None,
                       ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
                       seed: SeedLike = None, progress: bool | None = None,
                       alpha_min: Any = None) -> Estimate:
    r"""Krippendorff's α for any number of raters, missing data and any distance.

    .. math::  α = 1 - \frac{D_o}{D_e}, \quad
        D_o = \frac{1}{n}\sum_{i: m_i \ge 2} \frac{n_i^\top δ\, n_i}{m_i - 1}, \quad
        D_e = \frac{N_·^\top δ\, N_·}{n (n - 1)},

    with n_i the item's category counts, N\_· their sum over pairable items (m_i ≥ 2) and
    n = Σ N\_·. ``level`` is ``"nominal"``, ``"ordinal"``, ``"interval"``, ``"ratio"``,
    ``"circular"``, ``"bipolar"`` (Krippendorff 2011), a K × K matrix of squared distances or
    a callable ``δ²(a, b)``. Interval data take O(N) per-item moments, so continuous values
    (every value distinct) cost one pass.

    Parameters
    ----------
    {{shared: data}}
    level : str, array-like or callable, default "nominal"
        Krippendorff's distance metric (Krippendorff 2011; :mod:`kappalab.distances`):
        ``"nominal"``, ``"ordinal"`` (on the marginal counts), ``"interval"``, ``"ratio"``,
        ``"circular"``, ``"bipolar"``, a K × K matrix of squared distances δ² or a callable
        ``δ²(a, b)``. ``level=`` takes distances and ``weights=`` agreement weights:
        ``"ordinal"`` is Krippendorff's data-dependent metric here, Gwet's rank-based weights
        there.
        Sets of labels (set-valued, multi-label annotations) also take ``"masi"`` and
        ``"jaccard"`` (:func:`~kappalab.distances.masi`, used as δ², as nltk's alpha does).
    {{shared: categories}}
    {{shared: sample_weight}}
        With weights, the small-sample factor n/(n − 1) counts the weighted annotations, as
        repetition would.
    {{shared: ci}}
        Also ``"krippendorff"``: Krippendorff's bootstrap of the pairable values (Hayes &
        Krippendorff 2007; Notes), with ``alpha_min``.
    {{shared: n_resamples}}
    {{shared: confidence}}
    {{shared: seed}}
    {{shared: progress}}
    alpha_min : float or sequence of float, optional
        With ``ci="krippendorff"``: the smallest acceptable α values whose probability of not
        being reached, q = the share of bootstrap α's below α_min, goes to
        ``details["q"]`` (a dict α_min → q) and is printed with the estimate. None (default):
        Krippendorff's (2004) 0.667 and 0.800. Refused with any other ``ci``.

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
        ``n_resamples`` < 2, ``confidence`` outside (0, 1), an invalid ``seed``, ``alpha_min``
        not numbers in [−1, 1] or given without ``ci="krippendorff"``, or
        ``ci="krippendorff"`` with ``sample_weight``.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    Notes
    -----
    ``ci="krippendorff"`` is the bootstrap of Hayes & Krippendorff (2007) as reconstructed in
    :func:`kappalab.uncertainty.krippendorff_replicates`: each replicate draws as many value
    pairs as the pairable units hold, independently from the coincidence matrix, keeps D_e
    fixed, and gives α* = 1 − D_o*/D_e (below −1 set to −1); the interval is the percentile
    interval of the replicates and SE their standard deviation. It treats the pairable
    values as independent: the values of one unit are not resampled together, so the
    differences between units (some easy, some hard to code) that make their pairs agree or
    disagree together are not in its spread, and D_e does not vary. Where units differ in
    difficulty it can therefore understate the uncertainty the item bootstrap
    (``ci="bootstrap"``) and the analytic interval, which resample or linearise over units,
    account for. It is centred on α̂ and takes every ``level`` α takes.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Annenberg School for
    Communication, University of Pennsylvania.

    Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability
    measure for coding data. *Communication Methods and Measures* 1(1), 77–89.
    doi:10.1080/19312450709336664

    Krippendorff, K. (2004). *Content Analysis: An Introduction to Its Methodology* (2nd ed.).
    Sage.

    Examples
    --------
    >>> import numpy as np, kappalab as kl
    >>> round(float(kl.krippendorff_alpha([[1, 1], [2, 2], [1, 2], [2, 2]])), 4)
    0.5333
    >>> data = kl.datasets.load("worked_example")     # 10 items × 3 raters
    >>> round(float(kl.krippendorff_alpha(data)), 4)  # the krippendorff package: 0.578182
    0.5782
    >>> est = kl.krippendorff_alpha(data, ci="krippendorff", alpha_min=(0.667, 0.8), seed=0)
    >>> est.ci[0] < est.value < est.ci[1], sorted(est.details["q"])
    (True, [0.667, 0.8])
    >>> est.details["q"][0.8] > 0.9  # α̂ = 0.58: α ≥ 0.8 is most unlikely
    True
    """
    core = krippendorff_alpha_core(data, level=level, categories=categories,
                                   sample_weight=sample_weight)
    return core.estimate_with(IntervalOptions.of(
        ci, n_resamples=n_resamples, confidence=confidence, seed=seed, progress=progress,
        alpha_min=alpha_min, methods=core.interval_methods))


@shared_parameters
def fleiss_kappa(data: AnnotationsLike, *, weights: DistanceSpec = None,
                 categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
                 by_category: bool = False, ci: str | None = None, n_resamples: int = 2000,
                 confidence: float = 0.95, seed: SeedLike = None,
                 progress: bool | None = None) -> Estimate:
    r"""Fleiss' κ (1971), generalised to missing ratings and weights (Gwet 2014, §2.3).

    .. math::  P_o = \operatorname{mean}_{i: m_i\ge 2}
                    \frac{\sum_{kl} w_{kl} n_{ik} n_{il} - m_i}{m_i(m_i-1)}, \quad
               π_k = \operatorname{mean}_{i: m_i\ge 1} \frac{n_{ik}}{m_i}, \quad
               P_e = \sum_{kl} w_{kl} π_k π_l, \quad κ = \frac{P_o - P_e}{1 - P_e}.

    Raters need not be identifiable (counts data work). With two raters and no missing data it
    equals Scott's π.

    Unweighted, the estimate also carries the test of κ = 0 that R's ``irr::kappam.fleiss``
    reports: ``details["se_null"]``, the standard error under κ = 0 (Fleiss, Nee & Landis
    1979; :meth:`~kappalab.coefficients.multirater.ChanceCorrectedAgreement.null_standard_error`),
    used by ``est.z_test(variance="null")``. With ``by_category=True``, the category kappas of
    ``kappam.fleiss(detail=TRUE)``: κ_j is Fleiss' κ of the two categories "j" and "not j"
    (Fleiss 1971),

    .. math::  κ_j = 1 - \frac{\sum_i n_{ij}(m - n_{ij})}{N m (m - 1)\, p_j q_j}
               \quad \text{(complete data, m ratings per item)},

    with its null standard error, √(2/(N m(m − 1))) on complete data, and with ``ci=`` its
    standard error and interval.

    Parameters
    ----------
    {{shared: data}}
    {{shared: weights}}
    {{shared: categories}}
    {{shared: sample_weight}}
    by_category : bool, default False
        Also the category kappas κ_j: ``details["by_category"]``, a DataFrame indexed by
        category (in the order of ``Annotations.categories``) with columns ``kappa``,
        ``se_null``, ``z_null`` = κ_j/SE₀ and ``p_null`` = 2Φ(−\|z_null|) (the normal test of
        κ_j = 0), and with ``ci=`` also ``se``, ``ci_low`` and ``ci_high``. Unweighted only.
    {{shared: resampling}}

    Returns
    -------
    Estimate
        The value (``float(est)``), observed and expected agreement (P_o, P_e on the 0–1
        scale), the items, annotations and raters used, and ``se`` and ``ci`` when ``ci=`` is
        given; unweighted, ``details["se_null"]`` (and ``details["by_category"]``). NaN, with
        an :class:`~kappalab.errors.UndefinedCoefficientWarning`, when the coefficient is
        undefined on the data (e.g. a single category); a category kappa is NaN, with the
        warning naming the category, for a category nobody used.

    Raises
    ------
    InvalidParameterError
        An unknown ``level`` or ``weights``, a malformed weight or distance matrix, a
        ``sample_weight`` that is not one finite w_i ≥ 0 per item (not all 0), ``by_category``
        not a bool or given with ``weights``, an unknown ``ci``, ``n_resamples`` < 2,
        ``confidence`` outside (0, 1) or an invalid ``seed``.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. *Psychological
    Bulletin* 76(5), 378–382. doi:10.1037/h0031619

    Fleiss, J. L., Nee, J. C. M. & Landis, J. R. (1979). Large sample variance of kappa in the
    case of different sets of raters. *Psychological Bulletin* 86(5), 974–977.
    doi:10.1037/0033-2909.86.5.974

    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> import kappalab as kl
    >>> data = kl.datasets.load("worked_example")        # 10 items × 3 raters
    >>> est = kl.fleiss_kappa(data, ci="analytic")
    >>> round(float(est), 4), round(est.se, 4)  # statsmodels 0.563636; irrCAC 0.56364, se 0.18508
    (0.5636, 0.1851)

    Fleiss (1971), Table 1 (30 patients, 6 psychiatrists), as R's ``kappam.fleiss(diagnoses,
    detail=TRUE)``: κ = 0.430, z = 17.65 under the null variance, and the category kappas.

    >>> est = kl.fleiss_kappa(kl.datasets.load("fleiss_1971"), by_category=True)
    >>> round(est.value, 3), round(est.z_test(variance="null")[0], 2)
    (0.43, 17.65)
    >>> est.details["by_category"][["kappa", "z_null"]].round(3)  # doctest: +NORMALIZE_WHITESPACE
                          kappa  z_null
    category
    Depression            0.245   5.192
    Neurosis              0.471   9.994
    Other                 0.566  12.009
    Personality disorder  0.245   5.192
    Schizophrenia         0.520  11.031
    """
    by_category = check_flag(by_category, "by_category")
    IntervalOptions.of(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                       progress=progress)  # every interval option checked before any work
    core = fleiss_kappa_core(data, weights=weights, categories=categories,
                             sample_weight=sample_weight)
    if by_category and core.dis.name != "nominal":
        raise InvalidParameterError(
            f"by_category=True gives the category kappas of unweighted Fleiss' kappa (Fleiss "
            f"1971); drop weights={weights!r}, or by_category")
    resampling: dict[str, Any] = {"n_resamples": n_resamples, "confidence": confidence,
                                  "seed": seed, "progress": progress}
    # the category kappas first: a seed given as a Generator is drawn in this order
    table = (_category_kappas(core.ann, core.sample_weight, ci, resampling) if by_category
             else None)
    est = core.estimate(ci, **resampling)
    if not core._has_null_standard_error:
        return est
    # details["se_null"]: the test of κ = 0, computed when it is read
    details = est.details if isinstance(est.details, _CountedWhenRead) else \
        _CountedWhenRead(dict(est.details), deferred=())
    details = details.adding("se_null", core.null_standard_error)
    if table is not None:
        details = details.adding("by_category", lambda: table)
    return replace(est, details=details)


def _category_kappas(ann: Annotations, sample_weight: np.ndarray | None, ci: str | None,
                     resampling: dict[str, Any]):
    """κ_j, Fleiss' κ of "j" against "not j", for every category: one two-category core per
    category (a loop over the categories, never over items), with its null SE and, with
    ``ci``, its interval."""
    import pandas as pd
    from scipy.special import ndtr

    counts = ann.category_counts()
    m = ann.annotations_per_item_array
    rows = []
    for j, category in enumerate(ann.categories):
        n_j = (np.asarray(counts[:, [j]].toarray()).ravel() if issparse(counts)
               else np.asarray(counts[:, j])).astype(np.int64)
        table = pd.DataFrame({"j": n_j, "not j": m - n_j}, index=ann.items)
        binary = Annotations.from_counts(table)
        core = ChanceCorrectedAgreement(binary, weights_for(binary, None), chance="item_marginal",
                                        item_weighting="item",
                                        name=f"Fleiss' kappa of category {category!r}",
                                        sample_weight=sample_weight)
        est = core.estimate(ci, **resampling)
        se_null = core.null_standard_error()
        assert se_null is not None, "an unweighted Fleiss' kappa core has the null SE"
        z = est.value / se_null if np.isfinite(est.value) and se_null > 0 else np.nan
        row = {"kappa": est.value, "se_null": se_null, "z_null": z,
               "p_null": 2.0 * float(ndtr(-abs(z))) if np.isfinite(z) else np.nan}
        if ci is not None:
            low, high = est.ci if est.ci is not None else (np.nan, np.nan)
            row.update(se=np.nan if est.se is None else est.se, ci_low=low, ci_high=high)
        rows.append(row)
    return pd.DataFrame(rows, index=pd.Index(list(ann.categories), name="category"))


@shared_parameters
def conger_kappa(data: AnnotationsLike, *, weights: DistanceSpec = None,
                 categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
                 ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
                 seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Conger's κ (1980): Fleiss' P_o with chance from each rater's own marginals.

    .. math::  P_e = \frac{1}{r(r-1)} \sum_{g \ne h} \sum_{kl} w_{kl}\, p_{gk}\, p_{hl},
               \qquad p_{gk} = N_{gk} / N_g,

    over the r raters with annotations (Gwet 2014 for missing data: p_g uses every annotation of
    rater g). Equals Cohen's κ for two raters and Janson–Olsson's ι for nominal data.

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

    References
    ----------
    Conger, A. J. (1980). Integration and generalization of kappas for multiple raters.
    *Psychological Bulletin* 88(2), 322–328. doi:10.1037/0033-2909.88.2.322

    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> import kappalab as kl
    >>> data = kl.datasets.load("worked_example")      # 10 items × 3 raters
    >>> round(float(kl.conger_kappa(data)), 4)         # irrCAC's CAC.conger(): 0.56757
    0.5676
    """
    core = conger_kappa_core(data, weights=weights, categories=categories,
                             sample_weight=sample_weight)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


@shared_parameters
def janson_olsson_iota(data: AnnotationsLike, *, level: DistanceSpec = "nominal",
                       categories: Sequence[Any] | None = None,
                       sample_weight: SampleWeightLike = None,
                       ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
                       seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Janson & Olsson's (2001) ι: multi-rater κ for any distance, raters kept distinct.

    Wong, Paritosh & Aroyo (2021), eqs 1–5:

    .. math::  ι = 1 - \frac{d_o}{d_e},\quad
        d_o = \Big[n\binom{b}{2}\Big]^{-1} \sum_{r<s}\sum_i D(x_{ri}, x_{si}),\quad
        d_e = \Big[n^2\binom{b}{2}\Big]^{-1} \sum_{r<s}\sum_{i,j} D(x_{ri}, x_{sj}).

    With missing annotations d_o averages each item's pairs over items with m_i ≥ 2 and d_e
    uses each rater's own distribution (rater g's annotations, wherever they are), which on
    complete data is exactly eqs 2 and 5. For nominal data ι equals Conger's κ, for two raters
    Cohen's κ; interval data take O(N) per-rater moments.

    Parameters
    ----------
    {{shared: data}}
    level : str, array-like or callable, default "nominal"
        Krippendorff's distance metric (Krippendorff 2011; :mod:`kappalab.distances`):
        ``"nominal"``, ``"ordinal"`` (on the marginal counts), ``"interval"``, ``"ratio"``,
        ``"circular"``, ``"bipolar"``, a K × K matrix of squared distances δ² or a callable
        ``δ²(a, b)``. ``level=`` takes distances and ``weights=`` agreement weights:
        ``"ordinal"`` is Krippendorff's data-dependent metric here, Gwet's rank-based weights
        there.
        Sets of labels (set-valued, multi-label annotations) also take ``"masi"`` and
        ``"jaccard"`` (:func:`~kappalab.distances.masi`, used as δ², as nltk's alpha does).
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

    References
    ----------
    Janson, H. & Olsson, U. (2001). A measure of agreement for interval or nominal multivariate
    observations. *Educational and Psychological Measurement* 61(2), 277–289.
    doi:10.1177/00131640121971239

    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> import kappalab as kl
    >>> data = kl.datasets.load("worked_example")      # 10 items × 3 raters
    >>> round(float(kl.janson_olsson_iota(data)), 4)   # nominal: Conger's κ, irrCAC 0.56757
    0.5676
    """
    core = janson_olsson_iota_core(data, level=level, categories=categories,
                                   sample_weight=sample_weight)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


@shared_parameters
def gwet_ac(data: AnnotationsLike, *, weights: DistanceSpec = None,
            categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
            ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
            seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Gwet's AC1 (unweighted) and AC2 (weighted), any number of raters, missing data.

    .. math::  P_e = \frac{T_w}{K(K-1)} \sum_k π_k (1 - π_k), \qquad T_w = \sum_{kl} w_{kl},

    with Fleiss' P_o and π_k, and K the number of categories (pass ``categories=`` to count
    categories nobody used).

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
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Gwet, K. L. (2008). Computing inter-rater reliability and its variance in the presence of
    high agreement. *British Journal of Mathematical and Statistical Psychology* 61(1), 29–48.
    doi:10.1348/000711006X126600

    Examples
    --------
    >>> import kappalab as kl
    >>> data = kl.datasets.load("worked_example")   # 10 items × 3 raters, K = 3
    >>> round(float(kl.gwet_ac(data)), 4)           # irrCAC's CAC.gwet(): 0.616
    0.616
    """
    core = gwet_ac_core(data, weights=weights, categories=categories,
                        sample_weight=sample_weight)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


@shared_parameters
def brennan_prediger(data: AnnotationsLike, *, weights: DistanceSpec = None,
                     categories: Sequence[Any] | None = None,
                     sample_weight: SampleWeightLike = None,
                     ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
                     seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Brennan & Prediger's (1981) κ_n (Bennett's S): chance agreement P_e = T_w / K².

    With Fleiss' P_o; K is the number of categories (pass ``categories=`` to count unused
    ones).

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
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Brennan, R. L. & Prediger, D. J. (1981). Coefficient kappa: some uses, misuses, and
    alternatives. *Educational and Psychological Measurement* 41(3), 687–699.
    doi:10.1177/001316448104100307

    Examples
    --------
    >>> import kappalab as kl
    >>> data = kl.datasets.load("worked_example")    # P_o = 11/15, K = 3: (11/15 − 1/3)/(2/3)
    >>> round(float(kl.brennan_prediger(data)), 4)   # irrCAC's CAC.bp(): 0.6
    0.6
    """
    core = brennan_prediger_core(data, weights=weights, categories=categories,
                                 sample_weight=sample_weight)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


@shared_parameters
def percent_agreement(data: AnnotationsLike, *, weights: DistanceSpec = None,
                      categories: Sequence[Any] | None = None,
                      sample_weight: SampleWeightLike = None,
                      ci: str | None = None, n_resamples: int = 2000, confidence: float = 0.95,
                      seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Percent (observed) agreement P_o: the share of agreeing pairs within an item,
    averaged over items with two or more annotations (weighted agreement with ``weights=``).

    For two raters this is the share of items both rated on which they agree.

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
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.), ch. 2. Advanced
    Analytics.

    Examples
    --------
    >>> import kappalab as kl
    >>> data = kl.datasets.load("worked_example")   # 6 unanimous items, 4 split 2–1 (P_i = 1/3)
    >>> round(float(kl.percent_agreement(data)), 4)  # (6 + 4/3)/10
    0.7333
    """
    core = percent_agreement_core(data, weights=weights, categories=categories,
                                  sample_weight=sample_weight)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)
