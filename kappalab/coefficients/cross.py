r"""Cross-replication reliability (Wong, Paritosh & Aroyo 2021): κx and normalized κx.

Two replications X and Y of an annotation experiment label the same items. κx measures how
well annotations of one replication agree with annotations of the other, against chance
(eqs 6–11 of the paper):

.. math::  κ_x = 1 - \frac{d_o}{d_e}, \quad
    d_o = \sum_i \frac{R_i + S_i}{\mathbf R + \mathbf S}
          \frac{\sum_{r,s} D(x_{ri}, y_{si})}{R_i S_i}, \quad
    d_e = \frac{1}{\mathbf R \mathbf S} \sum_{i,j} \sum_{r,s} D(x_{ri}, y_{sj}),

over the n items present in both replications, R_i, S_i their annotations in X and Y,
**R** = Σ R_i, **S** = Σ S_i. With category counts n_Xi, n_Yi and the distance matrix δ the
double sums are item sums (docs/architecture.md, "The item-sum spine"):

.. math::  \sum_{r,s} D(x_{ri}, y_{si}) = n_{Xi}^\top δ\, n_{Yi}, \qquad
           \sum_{i,j}\sum_{r,s} D(x_{ri}, y_{sj}) = N_X^\top δ\, N_Y,

N_X = Σ_i n_Xi, so κx costs one pass over the annotations — never a loop over pairs of items
(the published implementations are O(n²) and overflow 32-bit integers at ~50 000 annotations
per side). For the interval distance D = (x − y)², per-item moments suffice:
Σ_{r,s}(x_r − y_s)² = S_i Σx² + R_i Σy² − 2 Σx Σy, and likewise for d_e with the totals, so
continuous values with every value distinct cost O(N).
"""

from __future__ import annotations

from copy import copy
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from ..docstrings import shared_parameters
from ..alignment import AlignedReplications, shared_raters as shared_raters_of
from ..annotations import Annotations, AnnotationsLike, as_annotations
from ..distances import CategoryDistance, DistanceSpec, category_distance
from ..errors import InvalidParameterError
from ..estimate import Estimate
from ..kernels import column_totals, issparse
from ..validation import SampleWeightLike, SeedLike, check_sample_weight
from .base import (Components, IntervalScores, ItemSumCoefficient, numeric_array,
                   disagreement_components, distance_product, distance_to_own_item,
                   interval_scores, safe_divide)
from .multirater import alpha_core, distance_for

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from ..kernels import sp

__all__ = ["CrossKappa", "MAX_COUNT_CELLS", "RaterVersusRest", "cross_kappa",
           "normalized_cross_kappa", "reference_agreement"]


class CrossKappa(ItemSumCoefficient):
    r"""κx on the item-sum spine.

    Item statistics (common items): ``[(R_i+S_i)/(R_i S_i)·n_Xiᵀδn_Yi, R_i+S_i, n_Xi, n_Yi]``,
    or on the interval moment path ``[…, …, R_i, Σx, Σx², S_i, Σy, Σy²]``;
    d_o = Σ s₀ / Σ s₁ and d_e = N_Xᵀ δ N_Y /(R S) (moments: S ΣX² + R ΣY² − 2 ΣX ΣY).
    All sums are float64: no integer overflow at any size.

    ``sample_weight`` gives one weight per item of X (in ``x.items`` order, so the weights
    travel with X's items however Y orders its own); the common items take their X weight.

    Parameters
    ----------
    x, y : Annotations
        The two replications; only the items of both enter.
    distance : str, CategoryDistance or array-like, default "nominal"
        The disagreement δ between a category of X and one of Y (a level name, a distance or
        a K × K matrix), resolved on both replications' categories; a
        :class:`~kappalab.distances.CategoryDistance` is taken as resolved (on categories in
        the order of both replications' union).
    use_moments : bool or None, default None
        Whether to use the O(N) interval moments (None: whenever δ is interval).
    sample_weight : array-like or None, default None
        Item weights w_i ≥ 0, one per item of ``x`` (in ``x.items`` order).

    Raises
    ------
    InvalidParameterError
        ``sample_weight`` invalid or 0 on every common item, ``use_moments=True`` without the
        interval distance, or an invalid ``distance``.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    Three items, two annotations per side: D_o = (0 + 2 + 2)/12 = 1/3 (each cross pair
    weighted by R + S = 4 and divided by R·S = 4), D_e = 18/36 = 1/2, κx = 1 − (1/3)/(1/2).

    >>> from kappalab.annotations import as_annotations
    >>> x = as_annotations([[1, 1], [2, 2], [1, 2]])
    >>> y = as_annotations([[1, 1], [2, 1], [2, 2]])
    >>> round(CrossKappa(x, y).estimate().value, 4)
    0.3333
    """

    name = "cross-kappa"

    def __init__(self, x: Annotations, y: Annotations, distance: DistanceSpec = "nominal", *,
                 use_moments: bool | None = None, sample_weight: SampleWeightLike = None):
        self.aligned = a = AlignedReplications(x, y)
        self.item_labels = a.items  # the rows are the common items
        weights = check_sample_weight(sample_weight, x.n_items)
        if weights is not None and not (weights[a.x_rows] > 0).any():
            raise InvalidParameterError(
                "sample_weight is 0 on every item common to both replications: no item "
                "would count")
        self.set_sample_weight(None if weights is None else weights[a.x_rows], a.x_rows.size)
        self.dis = (distance if isinstance(distance, CategoryDistance)
                    else _cross_distance(a, distance, self.sample_weight))
        self.level = self.dis.name
        self.K = len(a.categories)
        can_use_moments = self.dis.interval_factor is not None
        self.use_moments = can_use_moments if use_moments is None else use_moments
        if self.use_moments and not can_use_moments:
            raise InvalidParameterError("the moment path needs the interval distance")

    def _scores(self) -> IntervalScores:
        return interval_scores(self.dis)

    def _units(self) -> tuple[float, float]:
        """(scale, units) of the disagreements as computed (see :class:`IntervalScores`)."""
        if self.use_moments:
            scores = self._scores()
            return scores.scale, scores.units
        return self.dis.scale, 1.0

    def _blocks(self) -> list[tuple[np.ndarray, list[np.ndarray]]]:
        """(row weights, per-item columns C as a list of column blocks) pairs:
        item_stats = [w·C …], totals = [w @ C …] (each column block totalled on its own)."""
        if self.use_moments:
            scores, values = self._scores(), self.dis.scores
            assert values is not None, "a distance of interval form has scores"
            mx, my = self.aligned.moments(scores.factor, scores.shift, values)
            R, S = mx[:, 0], my[:, 0]
            cross = self._moment_cross(mx, my)
            sides = [mx, my]
        else:
            nx, ny = self.aligned.counts()
            ones = np.ones(nx.shape[1])
            R, S = nx @ ones, ny @ ones  # row sums (faster than an axis-1 reduction)
            if self.dis.name == "nominal":  # n_Xiᵀ(11ᵀ − I)n_Yi = R_i S_i − n_Xiᵀ n_Yi, exact
                cross = R * S - (nx * ny) @ ones
            else:
                cross = np.einsum("ik,ik->i", distance_product(self.dis, nx), ny)  # n_Xiᵀ δ n_Yi
            sides = [nx, ny]
        both = (R > 0) & (S > 0)  # present in both replications
        self._remember_per_side(R, S)
        weight, mean_cross = self._observed_columns(R, S, cross)
        return [(weight, [mean_cross, np.ones_like(weight)]), (both.astype(float), sides)]

    @staticmethod
    def _moment_cross(mx: np.ndarray, my: np.ndarray) -> np.ndarray:
        """Σ_{r,s}(x_r − y_s)² = S Σx² + R Σy² − 2 Σx Σy from rows [R, Σx, Σx²], [S, Σy, Σy²]."""
        return my[:, 0] * mx[:, 2] + mx[:, 0] * my[:, 2] - 2.0 * mx[:, 1] * my[:, 1]

    @staticmethod
    def _observed_columns(R: np.ndarray, S: np.ndarray,
                          cross: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(R_i + S_i, Σ_{r,s} D/(R_i S_i)) of items on both sides, (0, 0) elsewhere: d_o is
        Σ (R_i + S_i)·mean_i / Σ (R_i + S_i)."""
        both = (R > 0) & (S > 0)
        weight = np.where(both, R + S, 0.0)
        return weight, np.divide(cross, R * S, out=np.zeros(cross.shape), where=both)

    def unweighted_item_stats(self) -> np.ndarray:
        return np.column_stack([w[:, None] * np.column_stack(C) for w, C in self._blocks()])

    def unweighted_totals(self) -> np.ndarray:
        totals = []
        for w, columns in self._blocks():
            if columns[0].ndim == 1:  # per-item columns: stacked and totalled together
                totals.append(column_totals(np.column_stack(columns), w))
            else:  # items × K counts (or moments) of each side: each totalled as it is
                totals.extend(column_totals(block, w) for block in columns)
        return np.concatenate(totals)

    def combine(self, totals: np.ndarray) -> Components:
        t = numeric_array(totals)
        return disagreement_components(safe_divide(t[..., 0], t[..., 1]), self._expected(t),
                                       *self._units())

    def _expected(self, t: np.ndarray) -> np.ndarray:
        """d_e = N_Xᵀ δ N_Y/(R S), in the units the disagreements are computed in."""
        if self.use_moments:
            R, sx, sxx, S, sy, syy = (t[..., k] for k in range(2, 8))
            between = S * sxx + R * syy - 2.0 * sx * sy
        else:
            K = self.K
            nx, ny = t[..., 2:2 + K], t[..., 2 + K:2 + 2 * K]
            R, S = nx.sum(axis=-1), ny.sum(axis=-1)
            between = (nx * distance_product(self.dis, ny)).sum(axis=-1)
        return safe_divide(between, R * S)

    def value_gradient(self, totals: np.ndarray) -> np.ndarray:
        r"""∇ value(T) in closed form: κx = 1 − d_o/d_e with d_o = T_0/T_1 and
        d_e = N_Xᵀ δ N_Y/(R S) (moments: (S ΣX² + R ΣY² − 2 ΣX ΣY)/(R S)), so
        ∂d_e/∂N_X = δN_Y/(RS) − d_e/R and ∂d_e/∂N_Y = δN_X/(RS) − d_e/S."""
        t = np.asarray(totals, dtype=float)
        gradient = np.full(t.size, np.nan)
        d_e = float(self._expected(t))
        if not (t[1] > 0 and d_e > 0):
            return gradient
        if self.use_moments:
            R, sx, sxx, S, sy, syy = t[2:8]
            RS = R * S
            d_between = np.array([syy / RS - d_e / R, -2 * sy / RS, 1 / R,
                                  sxx / RS - d_e / S, -2 * sx / RS, 1 / S])
        else:
            K = self.K
            nx, ny = t[2:2 + K], t[2 + K:2 + 2 * K]
            R, S = nx.sum(), ny.sum()
            d_between = np.concatenate([distance_product(self.dis, ny) / (R * S) - d_e / R,
                                        distance_product(self.dis, nx) / (R * S) - d_e / S])
        d_o = t[0] / t[1]
        gradient[0] = -1.0 / (t[1] * d_e)
        gradient[1] = t[0] / (t[1] ** 2 * d_e)
        gradient[2:] = d_o / d_e**2 * d_between
        return gradient

    def undefined_reason(self, parts: Components) -> str | None:
        # judged in the units D_e is computed in (the reported D_e may underflow to 0)
        p_e = float(np.real(np.asarray(parts["expected"]).reshape(-1)[0]))
        value = float(np.real(np.asarray(parts["value"]).reshape(-1)[0]))
        if not np.isfinite(p_e):
            return "no item has annotations on both sides"
        if np.isnan(value):
            return ("the expected disagreement is 0: every annotation of both replications "
                    "falls in one category")
        return None

    def _annotations_per_side(self) -> tuple[np.ndarray, np.ndarray]:
        """Annotations of each common item of positive sample weight in X and in Y (all
        common items have both)."""
        memo = self.__dict__.get("_per_side")
        if memo is None or memo[0] is not self.sample_weight:  # not remembered by _blocks
            a = self.aligned
            self._remember_per_side(np.take(a.x.annotations_per_item_array, a.x_rows),
                                    np.take(a.y.annotations_per_item_array, a.y_rows))
            memo = self.__dict__["_per_side"]
        return memo[1], memo[2]

    def _remember_per_side(self, R: np.ndarray, S: np.ndarray) -> None:
        """Keep R_i and S_i of the common items of positive sample weight, for
        :meth:`_annotations_per_side`."""
        if self.sample_weight is not None:
            used = self.sample_weight > 0
            R, S = R[used], S[used]
        self.__dict__["_per_side"] = (self.sample_weight, R, S)

    def counts_used(self) -> dict[str, Any]:
        mx, my = self._annotations_per_side()
        return {"n_items": int(mx.size), "n_annotations": int(mx.sum() + my.sum())}

    def details(self) -> dict[str, Any]:
        a = self.aligned
        mx, my = self._annotations_per_side()
        return {
            "n_items_x": a.x.n_items, "n_items_y": a.y.n_items,
            "n_items_dropped_x": int(a.x.n_items - mx.size),
            "n_items_dropped_y": int(a.y.n_items - my.size),
            "n_annotations_x": int(mx.sum()), "n_annotations_y": int(my.sum()),
            "moment_path": self.use_moments,
        }


#: the most cells of per-rater category counts :class:`RaterVersusRest` builds (8 bytes each)
MAX_COUNT_CELLS = 40_000_000


class RaterVersusRest(CrossKappa):
    r"""κx of each rater against the rest of the panel: replication X is the rater's
    annotations, Y the other raters' annotations of the same items (what
    :func:`cross_kappa` gives for ``ann.subset_raters([g])`` against the others).

    On an item the rater annotated with m_i annotations in all, R_i = 1, S_i = m_i − 1,
    n_Xi = e_c and n_Yi = n_i − e_c, so the cross sum is
    n_Xiᵀ δ n_Yi = (δ n_i)_c (:func:`~kappalab.coefficients.base.distance_to_own_item`) and
    each annotation on an item with m_i ≥ 2 is one row of κx's item statistics
    (:class:`CrossKappa`). :meth:`rater_totals` gives every rater's totals at once by
    scatter-adds over the annotations and one sparse product for Σ n_Yi, O(annotations ×
    min(m_i, K)); :meth:`for_rater` binds the core to one rater, whose rows (its shared
    items, in item order) then serve ``estimate(ci=...)`` like any core.

    Parameters
    ----------
    ann : Annotations
        The panel, with rater identities.
    distance : str, CategoryDistance or array-like, default "nominal"
        The distance δ, resolved on the panel's categories
        (``kappalab.coefficients.multirater.distance_for``), or already resolved there (a
        :class:`~kappalab.distances.CategoryDistance`). A data-dependent distance
        (:attr:`~kappalab.distances.CategoryDistance.data_dependent`: Krippendorff's ordinal
        metric) depends on the marginals of the items compared, which differ from rater to
        rater: it is refused here (:func:`cross_kappa` of each rater computes it).

    Raises
    ------
    UnknownRatersError
        Data without rater identities.
    InvalidParameterError
        A data-dependent distance (``distance="ordinal"``), an asymmetric δ, or reading rows
        before :meth:`for_rater`.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    Rater A of the worked example against B and C: A agrees with both on 6 items, with one
    of the two on 4 (mean cross distance ½), d_o = 4·3·½/30 = 0.2; A's 2 G, 3 N, 5 P
    against the others' 3 G, 7 N, 10 P: d_e = 1 − (6 + 21 + 50)/200 = 0.615.

    >>> import kappalab as kl
    >>> core = RaterVersusRest(kl.datasets.load("worked_example"))
    >>> values = core.combine(core.rater_totals())["value"]
    >>> round(float(values[0]), 4)                          # 1 − 0.2/0.615
    0.6748
    >>> round(core.for_rater(0).estimate().value, 4)
    0.6748
    """

    def __init__(self, ann: Annotations, distance: DistanceSpec | CategoryDistance = "nominal"):
        n_raters = len(ann.require_raters("κx of a rater against the rest of the panel"))
        dis = distance if isinstance(distance, CategoryDistance) else distance_for(ann, distance)
        if dis.data_dependent:
            raise InvalidParameterError(
                f"the {dis.name} metric of κx rests on the marginals of the items compared, "
                "which differ from rater to rater: compute cross_kappa for each rater")
        self.ann = ann
        self.sample_weight = None
        self.dis = dis
        self.dis.require_symmetric(self.name)
        self.level = self.dis.name
        self.K = ann.n_categories
        self.use_moments = self.dis.interval_factor is not None
        self.rater: int | None = None
        self._n_raters = n_raters
        items, raters, cats = ann.codes()
        m = ann.annotations_per_item_array.astype(float)
        order = np.lexsort((items, raters))  # rater by rater, each in item order
        order = order[m[items[order]] >= 2]  # annotations on items shared with others
        self._items, self._raters, self._cats = items[order], raters[order], cats[order]
        self._starts = np.concatenate([[0], np.cumsum(np.bincount(self._raters,
                                                                  minlength=n_raters))])
        rest = m[self._items] - 1.0
        if self.use_moments:
            scores, values = self._scores(), self.dis.scores
            assert values is not None, "a distance of interval form has scores"
            _, s1, s2 = ann.item_moments(scores.factor, scores.shift, values)
            x = (values[self._cats] - scores.shift) * scores.factor
            self._sides = (np.column_stack([np.ones_like(x), x, x * x]),
                           np.column_stack([rest, s1[self._items] - x,
                                            s2[self._items] - x * x]))
            cross = self._moment_cross(*self._sides)
        else:
            cross = distance_to_own_item(self.dis, ann)[order]
        self._weight, self._mean_cross = self._observed_columns(np.ones_like(rest), rest,
                                                                cross)

    def for_rater(self, rater: int | np.integer) -> "RaterVersusRest":
        """The core bound to rater position ``rater``: its rows are that rater's items."""
        bound = copy(self)
        bound.rater = int(rater)
        bound.estimated_totals = None  # the totals of another rater's estimate, if any
        return bound

    def _bound_rater(self) -> int:
        if self.rater is None:
            raise InvalidParameterError("bind the core to a rater first: core.for_rater(g)")
        return self.rater

    def _rows(self) -> slice:
        rater = self._bound_rater()
        return slice(self._starts[rater], self._starts[rater + 1])

    def unweighted_item_stats(self) -> np.ndarray:
        rows = self._rows()
        observed = [self._weight[rows] * self._mean_cross[rows], self._weight[rows]]
        if self.use_moments:
            sides = np.column_stack([side[rows] for side in self._sides])
        else:
            self._refuse_wide(rows.stop - rows.start, f"items of rater {self.rater}")
            own = np.zeros((rows.stop - rows.start, self.K))
            own[np.arange(own.shape[0]), self._cats[rows]] = 1.0
            counts = self.ann.category_counts()[self._items[rows]]
            counts = counts if isinstance(counts, np.ndarray) else counts.toarray()
            sides = np.column_stack([own, counts - own])
        return np.column_stack(observed + [sides])

    def unweighted_totals(self) -> np.ndarray:
        return column_totals(self.unweighted_item_stats())

    def rater_totals(self) -> np.ndarray:
        """R × s: κx's totals of every rater against the rest, by scatter-adds (rows in the
        order of ``ann.raters``; a rater sharing no item has a zero row)."""
        R, raters = self._n_raters, self._raters

        def per_rater(weights: np.ndarray) -> np.ndarray:
            return np.bincount(raters, weights=weights, minlength=R)

        columns = [per_rater(self._weight * self._mean_cross), per_rater(self._weight)]
        if self.use_moments:
            columns += [per_rater(side[:, k]) for side in self._sides for k in range(3)]
            return np.column_stack(columns)
        self._refuse_wide(R, "raters")
        own = np.bincount(raters * self.K + self._cats,
                          minlength=R * self.K).reshape(R, self.K).astype(float)
        seen = sp.csr_matrix((np.ones(raters.size), (raters, self._items)),
                             shape=(R, self.ann.n_items))  # Σ_a n_i of each rater's items
        panel = seen @ self.ann.category_counts()
        panel = panel.toarray() if issparse(panel) else np.asarray(panel)
        return np.column_stack(columns + [own, panel - own])

    def _refuse_wide(self, n_rows: int, what: str) -> None:
        """Refuse a table of n_rows × 2K category counts above :data:`MAX_COUNT_CELLS`."""
        cells = 2 * n_rows * self.K
        if cells > MAX_COUNT_CELLS:
            raise InvalidParameterError(
                f"κx of each rater against the rest needs {n_rows} {what} × 2·{self.K} "
                f"categories = {cells:.3g} cells of category counts, refused above "
                f"{MAX_COUNT_CELLS:.3g}; for numeric data use level='interval' (moments, no "
                "per-category counts), or merge categories")

    def counts_used(self) -> dict[str, Any]:
        rows = self._rows()
        m = self.ann.annotations_per_item_array[self._items[rows]]
        return {"n_items": int(m.size), "n_annotations": int(m.sum())}

    def details(self) -> dict[str, Any]:
        rater_ids = self.ann.require_raters("κx of a rater against the rest of the panel")
        return {"rater": rater_ids[self._bound_rater()], "moment_path": self.use_moments}


def _cross_distance(a: AlignedReplications, distance: DistanceSpec,
                    sample_weight: np.ndarray | None = None) -> CategoryDistance:
    """The distance on the union categories; the ordinal metric uses the pooled marginals of
    both replications' annotations on the common items (weighted by the sample weights)."""
    def marginals():
        nx, ny = a.counts()
        if sample_weight is not None:
            return sample_weight @ (nx + ny)
        return nx.sum(axis=0) + ny.sum(axis=0)

    return category_distance(distance, a.categories, kind="level", values=a.category_values,
                             marginals=marginals, origin=a.value_origin)


@shared_parameters
def cross_kappa(x: AnnotationsLike, y: AnnotationsLike, *, level: DistanceSpec = "nominal",
                categories: Sequence[Any] | None = None, sample_weight: SampleWeightLike = None,
                ci: str | None = None,
                n_resamples: int = 2000, confidence: float = 0.95,
                seed: SeedLike = None, progress: bool | None = None,
                shared_raters: str = "warn") -> Estimate:
    r"""κx, the cross-replication reliability of Wong, Paritosh & Aroyo (2021), eqs 6–11.

    ``x`` and ``y`` are the two replications (Annotations, or anything
    :meth:`Annotations.from_wide` takes); items are matched by label and only items annotated
    on both sides count (``details`` says how many were dropped from each side). ``level`` is
    ``"nominal"``, ``"ordinal"`` (Krippendorff's metric on the pooled marginals of both
    sides), ``"interval"`` (O(N) per-item moments), ``"ratio"``, ``"circular"``,
    ``"bipolar"``, a K × K distance matrix over the union of both category sets, or a
    callable δ²(a, b).

    With one annotation per item on each side, nominal κx is Cohen's κ; interval κx on equally
    spaced categories is Cohen's quadratic-weighted κ. κx is symmetric in X and Y.
    ``ci="bootstrap" | "bayesian-bootstrap" | "jackknife"`` adds a standard error and an
    interval from resampling the common items, paired across the two sides.

    Parameters
    ----------
    {{shared: replications}}
    {{shared: cross_level}}
    {{shared: categories}}
    {{shared: sample_weight}}
        Here one weight per item of ``x``.
    {{shared: resampling}}
    shared_raters : {"warn", "ignore"}, default "warn"
        Replications that share rater ids are not independent (the shared raters carry their
        habits into both sides, and normalized κx may exceed 1): "warn" gives a
        :class:`~kappalab.errors.SharedRatersWarning` with their count
        (:func:`kappalab.alignment.shared_raters`); "ignore" when equal ids are unrelated
        labels. Raters labelled by position are never compared.

    Returns
    -------
    Estimate
        The value (``float(est)``), observed and expected agreement (P_o, P_e on the 0–1
        scale), the items, annotations and raters used, and ``se`` and ``ci`` when ``ci=`` is
        given. NaN, with an :class:`~kappalab.errors.UndefinedCoefficientWarning`, when the
        coefficient is undefined on the data (e.g. a single category).
        ``details`` counts the items of each side and those dropped (not annotated on the
        other side).

    Raises
    ------
    InvalidParameterError
        An unknown ``level`` or ``weights``, a malformed weight or distance matrix, a
        ``sample_weight`` that is not one finite w_i ≥ 0 per item (not all 0), an unknown ``ci``,
        ``n_resamples`` < 2, ``confidence`` outside (0, 1) or an invalid ``seed``.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    EmptyDataError
        No item is annotated in both replications.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> import kappalab as kl
    >>> x = [[1, 1], [2, 2], [1, 2]]      # replication X: 3 items × 2 raters
    >>> y = [[1], [2], [2]]                # replication Y: one annotation per item
    >>> round(float(kl.cross_kappa(x, y)), 4)  # d_o = (3·0 + 3·0 + 3·½)/9, d_e = 9/18
    0.6667
    """
    core = cross_kappa_core(x, y, level=level, categories=categories,
                            sample_weight=sample_weight)
    shared_raters_of(core.aligned.x, core.aligned.y, shared_raters)
    # resampling draws common items: both replications keep their pairing
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


# ---------------------------------------------------------------------- core factories
# Each takes the public function's arguments less its interval options and shared_raters=
# (a warning beside the value) and returns the core whose estimate() is its value
# (kappalab.coefficients.registry, Coefficient.core).
def cross_kappa_core(x: AnnotationsLike, y: AnnotationsLike, *, level: Any = "nominal",
                     categories: Sequence[Any] | None = None,
                     sample_weight: SampleWeightLike = None) -> CrossKappa:
    """The core of :func:`cross_kappa` on the items common to both replications."""
    ax, ay = as_annotations(x, categories=categories), as_annotations(y, categories=categories)
    return CrossKappa(ax, ay, level, sample_weight=sample_weight)


class NormalizedCrossKappa(ItemSumCoefficient):
    r"""Normalized κx = κx / √(IRR_X·IRR_Y) on the item-sum spine.

    With ``irr="alpha"`` the statistics of each common item are κx's beside those of each
    side's Krippendorff α on the common items, so resampling an item moves all three
    together; given IRRs are constants.
    """

    name = "normalized cross-kappa"
    upper_bound = None  # κx/√(IRR_X IRR_Y) may exceed 1

    def __init__(self, kx: CrossKappa, irr_x: Any, irr_y: Any):
        self.kx = kx
        self.level = kx.level
        self.item_labels = kx.item_labels
        # each IRR: a core on the common items (its coefficient moves with the items) or a
        # fixed number
        self.irrs = (irr_x, irr_y)
        self.cores = [kx] + [irr for irr in self.irrs if isinstance(irr, ItemSumCoefficient)]
        # the parts' totals, reduced once (the cores are bound to fixed data), and where each
        # part's columns end: combine then costs O(s), not a pass over the annotations
        self._totals: np.ndarray | None = None
        self._ends: np.ndarray | None = None

    def unweighted_item_stats(self) -> np.ndarray:
        # the parts carry the sample weights (the same weight of each common item), each
        # written into its columns of one array
        parts = [core.item_stats() for core in self.cores]
        stats = np.empty((parts[0].shape[0], sum(part.shape[1] for part in parts)))
        start = 0
        for part in parts:
            stats[:, start:start + part.shape[1]] = part
            start += part.shape[1]
        return stats

    def unweighted_totals(self) -> np.ndarray:
        if self._totals is None:
            parts = [core.totals() for core in self.cores]
            self._ends = np.cumsum([part.size for part in parts])[:-1]
            self._totals = np.concatenate(parts)
        return self._totals.copy()

    def _split(self, t: np.ndarray) -> list[np.ndarray]:
        if self._ends is None:
            self.unweighted_totals()
        assert self._ends is not None, "unweighted_totals() sets the split points"
        return np.split(t, self._ends, axis=-1)

    def combine(self, totals: np.ndarray) -> Components:
        t = numeric_array(totals)
        parts = self._split(t)
        kx = self.kx.combine(parts[0])
        irr = [np.full(t.shape[:-1], value) if totals_part is None
               else np.asarray(value.combine(totals_part)["value"])
               for value, totals_part in zip(self.irrs, self._irr_parts(parts))]
        irr_x, irr_y = irr
        positive = (np.real(irr_x) > 0) & (np.real(irr_y) > 0)
        with np.errstate(invalid="ignore"):
            value = np.where(positive, kx["value"] / np.where(positive, irr_x * irr_y, 1.0)
                             ** 0.5, np.nan)
        return dict(kx, value=value, cross_kappa=kx["value"], irr_x=irr_x, irr_y=irr_y)

    def value_gradient(self, totals: np.ndarray) -> np.ndarray:
        r"""∇ of κx/√(IRR_X IRR_Y) from the parts' exact gradients (chain rule):
        ∇ = (∇κx/√(IRR_X IRR_Y), −½ value ∇IRR_X/IRR_X, −½ value ∇IRR_Y/IRR_Y)."""
        t = np.asarray(totals, dtype=float)
        parts = self.combine(t)
        value = float(np.real(parts["value"]))
        irr_x, irr_y = float(np.real(parts["irr_x"])), float(np.real(parts["irr_y"]))
        split = self._split(t)
        pieces = [self.kx.value_gradient(split[0]) / np.sqrt(irr_x * irr_y)]
        for irr, level, totals_part in zip(self.irrs, (irr_x, irr_y), self._irr_parts(split)):
            if totals_part is not None:
                pieces.append(-0.5 * value / level * irr.value_gradient(totals_part))
        return np.concatenate(pieces)

    def _irr_parts(self, parts: list[np.ndarray]) -> list[np.ndarray | None]:
        """The totals slice of each IRR core (None for a fixed IRR)."""
        rest = iter(parts[1:])
        return [next(rest) if isinstance(irr, ItemSumCoefficient) else None
                for irr in self.irrs]

    def undefined_reason(self, parts: Components) -> str | None:
        reason = self.kx.undefined_reason(dict(parts, value=parts["cross_kappa"]))
        irr_x, irr_y = (float(np.asarray(parts[k]).reshape(-1)[0]) for k in ("irr_x", "irr_y"))
        if reason is None and not (irr_x > 0 and irr_y > 0):
            reason = (f"it needs both IRRs > 0, got IRR_X = {irr_x:.4g} and IRR_Y = "
                      f"{irr_y:.4g}")
        return reason

    def counts_used(self) -> dict[str, Any]:
        return self.kx.counts_used()

    def details(self) -> dict[str, Any]:
        parts = self.combine(self.totals())
        return dict(self.kx.details(), **{k: float(np.asarray(parts[k]).reshape(-1)[0])
                                          for k in ("cross_kappa", "irr_x", "irr_y")})


@shared_parameters
def normalized_cross_kappa(x: AnnotationsLike, y: AnnotationsLike, *,
                           level: DistanceSpec = "nominal",
                           irr: str | Callable | tuple[float, float] = "alpha",
                           categories: Sequence[Any] | None = None,
                           sample_weight: SampleWeightLike = None,
                           ci: str | None = None,
                           n_resamples: int = 2000, confidence: float = 0.95,
                           seed: SeedLike = None, progress: bool | None = None,
                           shared_raters: str = "warn") -> Estimate:
    r"""Normalized κx (eq 13): κx / √(IRR_X · IRR_Y), an experimental-similarity measure.

    ``irr="alpha"`` (default) uses Krippendorff's α of each replication with the same distance,
    over the items both replications annotated; a callable ``irr(ann) -> float | Estimate``
    replaces α; a pair of numbers gives the two IRRs directly. Undefined (NaN with a warning)
    when an IRR is ≤ 0 or undefined. It behaves like Spearman's disattenuated correlation: ≈ 1
    for a faithful replication, whatever the IRR (Wong et al. 2021, §3.4).

    ``ci=`` resamples the common items, paired across the sides, with κx and both α moving
    together (given numbers stay fixed); a callable ``irr`` cannot be resampled this way.

    Parameters
    ----------
    {{shared: replications}}
    {{shared: cross_level}}
    irr : "alpha", callable or pair of float, default "alpha"
        Each side's inter-rater reliability: Krippendorff's α with the distance ``level`` on
        the common items, a callable ``irr(ann) -> float | Estimate`` applied to each side's
        common items, or the pair (IRR_X, IRR_Y).
    {{shared: categories}}
    {{shared: sample_weight}}
        Here one weight per item of ``x``; it weighs the items of both α too.
    {{shared: resampling}}
    shared_raters : {"warn", "ignore"}, default "warn"
        Replications that share rater ids are not independent (the shared raters carry their
        habits into both sides, and normalized κx may exceed 1): "warn" gives a
        :class:`~kappalab.errors.SharedRatersWarning` with their count
        (:func:`kappalab.alignment.shared_raters`); "ignore" when equal ids are unrelated
        labels. Raters labelled by position are never compared.

    Returns
    -------
    Estimate
        The value (``float(est)``), observed and expected agreement (P_o, P_e on the 0–1
        scale), the items, annotations and raters used, and ``se`` and ``ci`` when ``ci=`` is
        given. NaN, with an :class:`~kappalab.errors.UndefinedCoefficientWarning`, when the
        coefficient is undefined on the data (e.g. a single category).
        ``details`` adds ``cross_kappa``, ``irr_x`` and ``irr_y``.

    Raises
    ------
    InvalidParameterError
        An unknown ``level`` or ``weights``, a malformed weight or distance matrix, a
        ``sample_weight`` that is not one finite w_i ≥ 0 per item (not all 0), an unknown ``ci``,
        ``n_resamples`` < 2, ``confidence`` outside (0, 1) or an invalid ``seed``.
        Also: an ``irr`` that is not ``"alpha"``, a callable or a pair, or a callable ``irr``
        with ``ci=`` or ``sample_weight=``.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    EmptyDataError
        No item is annotated in both replications.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> import kappalab as kl
    >>> x, y = [[1, 1], [2, 2], [1, 2]], [[1], [2], [2]]   # κx = 2/3 (see cross_kappa)
    >>> est = kl.normalized_cross_kappa(x, y, irr=(0.81, 0.64))
    >>> round(float(est), 4)                               # (2/3)/√(0.81·0.64) = (2/3)/0.72
    0.9259
    """
    if callable(irr) and ci is not None:
        raise InvalidParameterError(
            "ci= resamples the IRRs with the items, which needs irr='alpha' or a pair of "
            "numbers; a callable irr is computed once")
    core = normalized_cross_kappa_core(x, y, level=level, irr=irr, categories=categories,
                                       sample_weight=sample_weight)
    shared_raters_of(core.kx.aligned.x, core.kx.aligned.y, shared_raters)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


def normalized_cross_kappa_core(x: AnnotationsLike, y: AnnotationsLike, *,
                                level: Any = "nominal",
                                irr: str | Callable | tuple[float, float] = "alpha",
                                categories: Sequence[Any] | None = None,
                                sample_weight: SampleWeightLike = None) -> NormalizedCrossKappa:
    """The core of :func:`normalized_cross_kappa`: κx's core and each side's IRR (an α core
    on the common items, or a number)."""
    ax, ay = as_annotations(x, categories=categories), as_annotations(y, categories=categories)
    kx = CrossKappa(ax, ay, level, sample_weight=sample_weight)
    if callable(irr) and sample_weight is not None:
        raise InvalidParameterError(
            "sample_weight= weighs the IRRs' items too, which needs irr='alpha' or a pair of "
            "numbers; a callable irr sees unweighted annotations")
    irr_x, irr_y = _irrs(ax, ay, kx.aligned.items, level, irr, kx.sample_weight)
    return NormalizedCrossKappa(kx, irr_x, irr_y)


def _irrs(x: Annotations, y: Annotations, common: pd.Index, level: DistanceSpec,
          irr: Any, sample_weight: np.ndarray | None = None) -> tuple[Any, ...]:
    """Each side's IRR: an α core on the common items (irr="alpha"), with the common items'
    sample weights, or a number."""
    if isinstance(irr, tuple) or (isinstance(irr, Sequence) and not isinstance(irr, str)):
        if len(irr) != 2:
            raise InvalidParameterError(f"irr as numbers must be a pair (IRR_X, IRR_Y), got {irr}")
        return float(irr[0]), float(irr[1])
    if isinstance(irr, str):
        if irr != "alpha":
            raise InvalidParameterError(
                f"unknown irr {irr!r}: use 'alpha', a callable, or a pair of numbers")
        # a side whose items are the common items, in order, is used as it is (its cached
        # count tables with it)
        return tuple(alpha_core(ann if ann.items.equals(common) else ann.subset_items(common),
                                level, sample_weight)
                     for ann in (x, y))
    if not callable(irr):
        raise InvalidParameterError(
            f"irr must be 'alpha', a callable or a pair of numbers, got {type(irr).__name__}")
    return tuple(float(irr(ann.subset_items(common))) for ann in (x, y))


@shared_parameters
def reference_agreement(ann: AnnotationsLike, reference: Any, *, level: DistanceSpec = "nominal",
                        categories: Sequence[Any] | None = None,
                        sample_weight: SampleWeightLike = None,
                        ci: str | None = None,
                        n_resamples: int = 2000, confidence: float = 0.95,
                        seed: SeedLike = None, progress: bool | None = None) -> Estimate:
    r"""Agreement of coders with a reference (an expert), as κx against a one-annotation
    replication (Carletta 1996, §4: "naive coders against an expert").

    ``reference`` is an Annotations with one annotation per item, or a mapping / Series
    item → label (items missing from it are dropped and counted, as in :func:`cross_kappa`).
    The chance correction uses the coders' pooled distribution and the reference's own one,
    as Cohen's κ does for two raters (with one coder it *is* Cohen's κ). ``ci=`` resamples
    the items, each with its coders' annotations and its reference label.

    Parameters
    ----------
    ann : Annotations, DataFrame or array-like
        The coders' annotations: an :class:`~kappalab.Annotations`, or what
        :func:`~kappalab.annotations.as_annotations` reads — a DataFrame with
        ``item``/``rater``/``value`` (or ``task``/``worker``/``label``) columns is long, any
        other table items × raters.
    reference : Annotations, mapping or pandas.Series
        The reference label of each item: an Annotations with one annotation per item, or a
        mapping / Series item → label.
    {{shared: cross_level}}
    {{shared: categories}}
    {{shared: sample_weight}}
        Here one weight per item of ``ann``.
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
        Also: a ``reference`` of another type, or with more than one label for an item.
    NonNumericError
        Value-based weights or distances (interval, linear, quadratic, …) on categories that
        are not numbers.
    EmptyDataError
        No item is annotated in both replications.
    AnnotationError
        Data that cannot be read as annotations (:func:`~kappalab.annotations.as_annotations`),
        e.g. :class:`~kappalab.errors.EmptyDataError` or
        :class:`~kappalab.errors.UnknownCategoryError`.

    References
    ----------
    Carletta, J. (1996). Assessing agreement on classification tasks: the kappa statistic.
    *Computational Linguistics* 22(2), 249–254.

    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> import pandas as pd, kappalab as kl
    >>> coders = pd.DataFrame({"A": ["a", "a", "b", "b"]})  # one coder: Cohen's κ
    >>> expert = {0: "a", 1: "b", 2: "b", 3: "b"}          # P_o = 3/4, P_e = 1/2 (cohen_kappa)
    >>> round(float(kl.reference_agreement(coders, expert)), 4)
    0.5
    """
    core = reference_agreement_core(ann, reference, level=level, categories=categories,
                                    sample_weight=sample_weight)
    return core.estimate(ci, n_resamples=n_resamples, confidence=confidence, seed=seed,
                         progress=progress)


def reference_agreement_core(ann: AnnotationsLike, reference: Any, *, level: Any = "nominal",
                             categories: Sequence[Any] | None = None,
                             sample_weight: SampleWeightLike = None) -> CrossKappa:
    """The core of :func:`reference_agreement`: κx of the coders against the reference as a
    one-annotation replication, named "reference agreement"."""
    coders = as_annotations(ann, categories=categories)
    if isinstance(reference, Annotations):
        expert = reference
    else:
        if isinstance(reference, Mapping):
            reference = pd.Series(reference)
        if not isinstance(reference, pd.Series):
            raise InvalidParameterError(
                "reference must be an Annotations, a mapping item → label, or a pandas Series "
                f"indexed by item; got {type(reference).__name__}")
        frame = pd.DataFrame({"item": reference.index, "rater": "reference",
                              "value": reference.to_numpy()})
        expert = Annotations.from_long(frame, categories=categories)
    per_item = expert.annotations_per_item_array
    if (per_item > 1).any():
        raise InvalidParameterError(
            f"the reference must give one label per item; {int((per_item > 1).sum())} items "
            "have more")
    core = CrossKappa(coders, expert, level, sample_weight=sample_weight)
    core.name = "reference agreement"
    return core
