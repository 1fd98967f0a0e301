r"""Numeric kernels shared by the estimators, the simulator and the Bayesian models.

Each formula is written once, here, on plain arrays: no :class:`~kappalab.Annotations`, no
options to validate. Every kernel works along the last axis (or the last two, for tables) and
broadcasts over leading axes, such as posterior draws or items.

========================================  =====================================================
kernel                                    formula
========================================  =====================================================
:func:`count_square_sums`                 Σ_k n_ik²
:func:`pair_agreement`                    P_i = Σ_k n_ik(n_ik − 1)/(m_i(m_i − 1))
:func:`rater_marginal_entries`            (rater, category) one-hot or rater-moment entries
:func:`pearson_sums`,                     Pearson's r from Σu, Σv, Σu², Σv², Σuv
:func:`pearson_from_sums`,
:func:`row_pearson`
:func:`spearman_brown`                    kρ/(1 + (k − 1)ρ)
:func:`chance_corrected`                  (P_o − P_e)/(1 − P_e)
:func:`fleiss_chance_agreement`           P_e = Σ_k p_k²
:func:`conger_chance_agreement`           P_e = mean_{g≠h} p_gᵀ p_h
:func:`alpha_from_joint`,                 1 − Σ J∘δ / p_xᵀ δ p_y
:func:`joint_disagreements`
:func:`latent_icc`                        ρ_L of thresholded normal latents with a given α
:func:`latent_cross_tables`,              pair tables and true-score correlation of two
:func:`true_score_correlation`            thresholded bivariate-normal replications
:func:`distinct_rows`                     identical rows grouped, with multiplicities
========================================  =====================================================
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import scipy.sparse as sp
from scipy.optimize import brentq
from scipy.special import ndtr

from .bivariate_normal import rectangle_probabilities

__all__ = ["CrossTables", "DistinctRows", "alpha_from_joint", "chance_corrected",
           "conger_chance_agreement", "count_square_sums", "distinct_rows",
           "fleiss_chance_agreement", "joint_disagreements", "latent_cross_tables", "latent_icc",
           "numeric_array",
           "pair_agreement", "pearson_from_sums", "pearson_sums", "rater_marginal_entries",
           "row_pearson",
           "spearman_brown", "true_score_correlation"]


def numeric_array(x: Any) -> np.ndarray:
    """``x`` as a float array, with complex and object (e.g. mpmath) arrays kept as they are,
    so that a complex-step derivative (and a high-precision check of it) passes through the
    same closed form.

    >>> numeric_array([1, 2]).dtype, numeric_array([1j]).dtype
    (dtype('float64'), dtype('complex128'))
    """
    t = np.asarray(x)
    return t if t.dtype.kind in "cO" else t.astype(float)


# ====================================================================== per-item agreement
def count_square_sums(counts: np.ndarray | sp.spmatrix) -> np.ndarray:
    r"""Σ_k n_ik² of each row of an items × categories count table, dense or scipy sparse
    (O(annotations) for the sparse one); a dense table may have leading axes.

    >>> count_square_sums(sp.csr_matrix([[2.0, 1.0, 0.0], [0.0, 0.0, 3.0]]))
    array([5., 9.])
    """
    if sp.issparse(counts):
        return np.asarray(counts.multiply(counts).sum(axis=1), dtype=float).ravel()
    counts = np.asarray(counts, dtype=float)
    return (counts * counts) @ np.ones(counts.shape[-1])  # a matvec: faster than einsum


def pair_agreement(counts: np.ndarray | sp.spmatrix, m: np.ndarray) -> np.ndarray:
    r"""The share of agreeing pairs among each item's annotations.

    .. math::  P_i = \frac{\sum_k n_{ik}(n_{ik} - 1)}{m_i (m_i - 1)}
               = \frac{\sum_k n_{ik}^2 - m_i}{m_i (m_i - 1)}, \qquad m_i = \sum_k n_{ik},

    along the last axis of ``counts`` (leading axes, such as posterior draws, broadcast
    against ``m``); 0 for items with fewer than two annotations.

    >>> pair_agreement(np.array([[2, 1], [3, 0], [1, 0]]), np.array([3, 3, 1])).tolist()
    [0.3333333333333333, 1.0, 0.0]
    """
    m = np.asarray(m, dtype=float)
    agree = count_square_sums(counts) - m  # Σ n² − Σ n
    pairable = m >= 2
    return np.where(pairable, agree / np.where(pairable, m * (m - 1), 1.0), 0.0)


def rater_marginal_entries(items: np.ndarray, raters: np.ndarray, categories: np.ndarray,
                           n_raters: int, n_categories: int, values: np.ndarray | None = None
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The entries ``(row, column, value)`` of the items × rater-marginal statistics, from
    per-annotation item, rater and category codes, for a scipy sparse matrix (duplicates
    add up).

    Without ``values``: each annotation's one-hot (rater g, category c) indicator — column
    g·K + c, value 1 — so that row i holds the item's rater × category counts n_igc
    (items × R·K). With ``values`` x (one per annotation): the rater moments [1, x, x²] at
    columns g, R + g, 2R + g (items × 3R).

    >>> rows, cols, vals = rater_marginal_entries(np.array([0, 0, 1]), np.array([0, 1, 1]),
    ...                                           np.array([1, 0, 1]), 2, 2)
    >>> rows.tolist(), cols.tolist(), vals.tolist()
    ([0, 0, 1], [1, 2, 3], [1.0, 1.0, 1.0])
    """
    if values is None:
        return items, raters * n_categories + categories, np.ones(items.size)
    x, R = values, n_raters
    return (np.tile(items, 3), np.concatenate([raters, R + raters, 2 * R + raters]),
            np.concatenate([np.ones_like(x), x, x * x]))


# ====================================================================== correlations
def pearson_sums(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Items × 5·S sums ``[u, v, u², v², uv]`` of S paired columns (u, v: items × S),
    centred per column (Pearson's r does not depend on the centre), so that r is a function
    of their column totals (:func:`pearson_from_sums`)."""
    u = u - u.mean(axis=0)
    v = v - v.mean(axis=0)
    return np.column_stack([u, v, u * u, v * v, u * v])


def pearson_from_sums(n: np.ndarray, sums: np.ndarray) -> np.ndarray:
    r"""Pearson's r of each of S pairs from n and the (…, 5·S) totals laid out as
    :func:`pearson_sums`:

    .. math::  r = \frac{Σuv - ΣuΣv/n}{\sqrt{(Σu^2 - (Σu)^2/n)(Σv^2 - (Σv)^2/n)}},

    NaN without variance, bounded to [−1, 1] on the real part only (so that a complex-step
    derivative passes; it is 0 at the bound).

    >>> u, v = np.array([[1.0], [2.0], [4.0]]), np.array([[1.0], [3.0], [2.0]])
    >>> float(pearson_from_sums(3, pearson_sums(u, v).sum(axis=0))[0])  # doctest: +ELLIPSIS
    0.3273268353539...
    """
    su, sv, suu, svv, suv = np.split(sums, 5, axis=-1)
    n = np.asarray(n)[..., None]
    with np.errstate(invalid="ignore", divide="ignore"):
        cov = suv - su * sv / n
        var = (suu - su * su / n) * (svv - sv * sv / n)
        positive = np.real(var) > 0
        r = np.where(positive, cov / np.where(positive, var, 1.0) ** 0.5, np.nan)
    return np.where(np.real(r) > 1, 1.0, np.where(np.real(r) < -1, -1.0, r))


def row_pearson(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Pearson correlation of each row of u with the same row of v (NaN without variance).

    >>> round(float(row_pearson(np.array([1.0, 2.0, 4.0]), np.array([1.0, 3.0, 2.0]))), 12)
    0.327326835354
    """
    du = u - u.mean(axis=-1, keepdims=True)
    dv = v - v.mean(axis=-1, keepdims=True)
    suu = np.einsum("...i,...i->...", du, du)
    svv = np.einsum("...i,...i->...", dv, dv)
    suv = np.einsum("...i,...i->...", du, dv)
    den = np.sqrt(suu * svv)
    out = np.full(np.shape(den), np.nan)
    np.divide(suv, den, out=out, where=den > 0)
    return np.clip(out, -1.0, 1.0)


def spearman_brown(reliability: Any, factor: Any) -> Any:
    r"""The Spearman–Brown prophecy: the reliability of a mean of ``factor`` times as many
    annotations,

    .. math::  ρ_k = \frac{kρ}{1 + (k - 1)ρ}

    (Spearman 1910; Brown 1910). Works on arrays.

    >>> spearman_brown(0.5, 2)   # 2·0.5/(1 + 0.5)
    0.6666666666666666
    """
    rel, k = numeric_array(reliability), numeric_array(factor)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = k * rel / (1.0 + (k - 1.0) * rel)
    return out.item() if out.ndim == 0 else out


# ====================================================================== chance correction
def chance_corrected(p_o: Any, p_e: Any) -> Any:
    r"""κ = (P_o − P_e)/(1 − P_e), NaN where P_e ≥ 1 (chance agreement is certain).

    >>> chance_corrected(0.8, 0.5)
    0.6000000000000001
    """
    p_o, p_e = np.asarray(p_o, dtype=float), np.asarray(p_e, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(p_e < 1, (p_o - p_e) / (1.0 - p_e), np.nan)
    return out.item() if out.ndim == 0 else out


def fleiss_chance_agreement(marginals: Any) -> Any:
    r"""Fleiss' (Scott's) chance agreement P_e = Σ_k p_k² of the pooled marginals p (last
    axis).

    >>> round(fleiss_chance_agreement([0.5, 0.3, 0.2]), 12)
    0.38
    """
    p = np.asarray(marginals, dtype=float)
    out = p @ p if p.ndim == 1 else np.einsum("...k,...k->...", p, p)
    return out.item() if np.ndim(out) == 0 else out


def conger_chance_agreement(rater_marginals: Any) -> Any:
    r"""Conger's (Cohen's, for two raters) chance agreement: the mean over ordered pairs of
    distinct raters g ≠ h of p_gᵀ p_h, from the R × K rater marginals (leading axes broadcast):

    .. math::  P_e = \frac{s^\top s - \sum_g p_g^\top p_g}{R(R - 1)}, \qquad s = \sum_g p_g .

    A single row (R = 1) stands for a pool of exchangeable raters sharing it: P_e = pᵀp.

    >>> round(conger_chance_agreement([[0.5, 0.5], [0.9, 0.1]]), 12)   # 0.5·0.9 + 0.5·0.1
    0.5
    """
    P = np.asarray(rater_marginals, dtype=float)
    R = P.shape[-2]
    if R == 1:
        return fleiss_chance_agreement(P[..., 0, :])
    s = P.sum(axis=-2)
    if P.ndim == 2:
        return float((s @ s - (P ** 2).sum()) / (R * (R - 1)))
    pairs = np.einsum("...k,...k->...", s, s) - np.einsum("...gk,...gk->...", P, P)
    return pairs / (R * (R - 1))


def joint_disagreements(joint: Any, marginals_x: Any, marginals_y: Any, delta: Any
                        ) -> tuple[Any, Any]:
    r"""The observed and expected disagreements of a pair distribution (see
    :func:`alpha_from_joint`): D_o = Σ_ck J_ck δ_ck and D_e = p_xᵀ δ p_y.

    >>> joint_disagreements(np.eye(2) / 2, [0.5, 0.5], [0.5, 0.5], 1 - np.eye(2))
    (0.0, 0.5)
    """
    joint = np.asarray(joint, dtype=float)
    p, q = np.asarray(marginals_x, dtype=float), np.asarray(marginals_y, dtype=float)
    delta = np.asarray(delta, dtype=float)
    d_o = (joint * delta).sum(axis=(-2, -1))
    if p.ndim == q.ndim == 1:
        d_e = p @ delta @ q
    else:
        d_e = np.einsum("...c,...c->...", p @ delta, q)
    return tuple(v.item() if np.ndim(v) == 0 else v for v in (d_o, d_e))


def alpha_from_joint(joint: Any, marginals_x: Any, marginals_y: Any, delta: Any) -> Any:
    r"""Chance-corrected agreement from a pair distribution and a distance matrix:

    .. math::  α = 1 - \frac{D_o}{D_e}, \qquad D_o = \sum_{ck} J_{ck} δ_{ck}, \qquad
               D_e = p_x^\top δ\, p_y,

    J the K × K distribution of an (x, y) pair of annotations (the same item), p_x, p_y the
    marginals and δ the distance (:mod:`kappalab.distances`). With the nominal δ it is κ =
    (P_o − P_e)/(1 − P_e), P_o = tr J, P_e = p_xᵀp_y. NaN where D_e ≤ 0. Leading axes of
    ``joint`` and the marginals broadcast (one table per posterior draw, say).

    >>> from kappalab import distances
    >>> J = np.array([[0.4, 0.1], [0.1, 0.4]])          # P_o = 0.8, p = (½, ½): P_e = ½
    >>> alpha_from_joint(J, [0.5, 0.5], [0.5, 0.5], distances.nominal(2))
    0.6
    """
    d_o, d_e = joint_disagreements(joint, marginals_x, marginals_y, delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(d_e > 0, 1.0 - d_o / np.where(d_e > 0, d_e, 1.0), np.nan)
    return out.item() if out.ndim == 0 else out


# ====================================================================== thresholded latents
def _bounds(thresholds: np.ndarray) -> np.ndarray:
    """(−∞, t_1, …, t_{K−1}, ∞) along the last axis."""
    t = np.asarray(thresholds, dtype=float)
    inf = np.full(t.shape[:-1] + (1,), np.inf)
    return np.concatenate([-inf, t, inf], axis=-1)


def latent_icc(thresholds: Any, alpha: float, *, xtol: float = 1e-14) -> float:
    r"""The latent ICC ρ_L at which thresholded standard-normal latents have nominal α
    (= Fleiss' κ) equal to ``alpha``.

    Two annotations of an item are z, z' standard bivariate normal with correlation ρ_L; an
    annotation's category is the number of ``thresholds`` t_1 < … < t_{K−1} below it. With
    p_c = Φ(t_{c+1}) − Φ(t_c) and J_cc(ρ) = P(z, z' ∈ (t_c, t_{c+1}]) (bivariate-normal
    rectangles, :mod:`kappalab.bivariate_normal`), ρ_L solves (Brent's method on [0, 1], to
    ``xtol``)

    .. math::  \frac{\sum_c J_{cc}(ρ_L) - \sum_c p_c^2}{1 - \sum_c p_c^2} = α ;

    ρ_L = 0 for α ≤ 0. ``alpha`` must be below 1.

    >>> round(latent_icc([0.0], 0.5), 12)   # binary, prevalence ½: α = (2/π) arcsin ρ_L
    0.707106781187
    """
    bounds = _bounds(thresholds)
    p_e = fleiss_chance_agreement(np.diff(ndtr(bounds)))

    def excess(rho):
        p_o = np.trace(rectangle_probabilities(bounds, bounds, rho))
        return (p_o - p_e) / (1.0 - p_e) - alpha

    if alpha <= 0:
        return 0.0
    return float(brentq(excess, 0.0, 1.0, xtol=xtol, rtol=4 * np.finfo(float).eps,
                        maxiter=500))


class CrossTables(NamedTuple):
    """Pair distributions of two thresholded latent replications (see
    :func:`latent_cross_tables`); leading axes as the inputs'."""

    joint: np.ndarray
    joint_x: np.ndarray
    joint_y: np.ndarray
    marginals_x: np.ndarray
    marginals_y: np.ndarray
    correlation: np.ndarray


def latent_cross_tables(thresholds_x: Any, thresholds_y: Any, latent_icc_x: Any,
                        latent_icc_y: Any, latent_rho: Any) -> CrossTables:
    r"""The pair distributions of two replications of the latent-threshold model.

    Item latents (u_X, u_Y) are standard bivariate normal with correlation ρ_u
    (``latent_rho``); an annotation of side X is z = √ρ_LX u_X + √(1 − ρ_LX) ε, categorised
    by ``thresholds_x``, and likewise for Y. Two annotations of one side are bivariate normal
    with correlation ρ_LX, one of each side with r = ρ_u √(ρ_LX ρ_LY), so every table is a set
    of bivariate-normal rectangles:

    .. math::  J^{XY}_{ck} = P(z_X ∈ (t^X_c, t^X_{c+1}], z_Y ∈ (t^Y_k, t^Y_{k+1}]; r),

    J^{XX}, J^{YY} the within-side tables and p_X, p_Y the marginals Φ(t_{c+1}) − Φ(t_c).
    Thresholds have the K − 1 finite cut points on the last axis; leading axes (posterior
    draws) broadcast with the correlations.

    >>> t = latent_cross_tables([0.0], [0.0], 0.5, 0.5, 1.0)
    >>> round(float(t.correlation), 12), t.marginals_x.tolist()
    (0.5, [0.5, 0.5])
    """
    bx, by = _bounds(thresholds_x), _bounds(thresholds_y)
    licc_x, licc_y = np.asarray(latent_icc_x, dtype=float), np.asarray(latent_icc_y,
                                                                       dtype=float)
    r = latent_rho * np.sqrt(licc_x * licc_y)
    return CrossTables(rectangle_probabilities(bx, by, r),
                       rectangle_probabilities(bx, bx, licc_x),
                       rectangle_probabilities(by, by, licc_y),
                       np.diff(ndtr(bx), axis=-1), np.diff(ndtr(by), axis=-1), r)


def true_score_correlation(tables: CrossTables) -> tuple[Any, Any, Any, Any]:
    r"""The correlation of the items' true scores E[x | item] across two replications, with
    the category indices i = (0, …, K − 1) as scores:

    .. math::  \mathrm{Cov} = i^\top J^{XY} i - (i^\top p_X)(i^\top p_Y), \qquad
               \mathrm{Var}_X = i^\top J^{XX} i - (i^\top p_X)^2,

    (two annotations of an item are independent given the item, so the within-side pair
    table gives the true-score variance). Returns ``(ρ, Cov, Var_X, Var_Y)``, ρ NaN unless
    both variances are positive.

    >>> rho, cov, var_x, var_y = true_score_correlation(
    ...     latent_cross_tables([0.0], [0.0], 0.5, 0.5, 1.0))
    >>> round(rho, 12)   # identical sides: the two true scores coincide
    1.0
    """
    K = tables.marginals_x.shape[-1]
    index = np.arange(K, dtype=float)
    mean_x, mean_y = tables.marginals_x @ index, tables.marginals_y @ index
    cov = index @ tables.joint @ index - mean_x * mean_y
    var_x = index @ tables.joint_x @ index - mean_x ** 2
    var_y = index @ tables.joint_y @ index - mean_y ** 2
    positive = (var_x > 0) & (var_y > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rho = np.where(positive, cov / np.sqrt(np.where(positive, var_x * var_y, 1.0)), np.nan)
    return tuple(v.item() if np.ndim(v) == 0 else v for v in (rho, cov, var_x, var_y))


# ====================================================================== grouping
class DistinctRows(NamedTuple):
    """The distinct rows of a matrix: ``first`` (row index of each distinct row's first
    occurrence), ``inverse`` (the distinct row of each row) and ``counts`` (multiplicities)."""

    first: np.ndarray
    inverse: np.ndarray
    counts: np.ndarray


def distinct_rows(rows: np.ndarray, *, lexicographic: bool = False,
                  most: float | None = None) -> DistinctRows | None:
    """Group identical rows of a 2-D array: ``rows[first][inverse]`` equals ``rows``.

    With ``lexicographic=True`` the distinct rows are in lexicographic order (as
    ``np.unique(rows, axis=0)``). Otherwise rows are keyed by one fixed random projection, so
    the sort is of n numbers rather than a lexicographic sort of n rows (~40× faster), in the
    order of that key; the grouping is then verified exactly, with the lexicographic sort as
    the fallback should two distinct rows ever share a key. With ``most``: None, before any
    verification, when more than ``most`` rows are distinct (a shared key can only merge
    distinct rows, so more distinct keys than ``most`` settles it).

    >>> g = distinct_rows(np.array([[1, 0], [0, 2], [1, 0]]), lexicographic=True)
    >>> g.first.tolist(), g.inverse.tolist(), g.counts.tolist()
    ([1, 0], [1, 0, 1], [1, 2])
    """
    if not lexicographic:
        direction = np.random.default_rng(0x5EED).uniform(1.0, 2.0, size=rows.shape[1])
        _, first, inverse, counts = np.unique(rows @ direction, return_index=True,
                                              return_inverse=True, return_counts=True)
        if most is not None and first.size > most:
            return None
        if np.array_equal(rows[first[inverse.ravel()]], rows):
            return DistinctRows(first, inverse.ravel(), counts)
    _, first, inverse, counts = np.unique(rows, axis=0, return_index=True,
                                          return_inverse=True, return_counts=True)
    if most is not None and first.size > most:
        return None
    return DistinctRows(first, inverse.ravel(), counts)
