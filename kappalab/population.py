r"""Population formulas of the simulation model and the Bayesian models.

The exact population values that :mod:`kappalab.simulate` returns as truths and that the
Bayesian cross-replication models (:mod:`kappalab.bayes.cross_binary`) compute per posterior
draw, written once on plain arrays: chance-corrected agreement from a pair distribution, and
the pair tables of thresholded (bivariate-)normal latents. No estimator uses them, so the
estimators can be tested against them. Leading axes broadcast (one table per posterior draw).

========================================  =====================================================
formula                                   what it gives
========================================  =====================================================
:func:`alpha_from_joint`,                 1 − Σ J∘δ / p_xᵀ δ p_y
:func:`joint_disagreements`
:func:`latent_icc`                        ρ_L of thresholded normal latents with a given α
:func:`latent_cross_tables`,              pair tables and true-score correlation of two
:func:`true_score_correlation`            thresholded bivariate-normal replications
========================================  =====================================================
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numpy.typing import ArrayLike
from scipy.special import ndtr

from .bivariate_normal import rectangle_probabilities
from .kernels import fleiss_chance_agreement

__all__ = ["CrossTables", "alpha_from_joint", "joint_disagreements", "latent_cross_tables",
           "latent_icc", "true_score_correlation"]

#: a float for a single table, an array of one value per leading index otherwise
FloatOrArray = float | np.ndarray


def _scalar(value: np.ndarray) -> FloatOrArray:
    """A 0-d result as a Python float, any other as the array."""
    return value.item() if np.ndim(value) == 0 else value


# ====================================================================== chance correction
def joint_disagreements(joint: ArrayLike, marginals_x: ArrayLike, marginals_y: ArrayLike,
                        delta: ArrayLike) -> tuple[FloatOrArray, FloatOrArray]:
    """The observed and expected disagreements of a pair distribution.

    D_o = Σ_ck J_ck δ_ck and D_e = p_xᵀ δ p_y (see :func:`alpha_from_joint`).

    Parameters
    ----------
    joint : array_like
        ``(..., K, K)`` distribution J of an (x, y) pair of annotations of one item.
    marginals_x, marginals_y : array_like
        ``(..., K)`` marginals p_x and p_y.
    delta : array_like
        K × K distance matrix δ (:mod:`kappalab.distances`).

    Returns
    -------
    d_o, d_e : float or numpy.ndarray
        Observed and expected disagreement (floats for single tables).

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Departmental Papers
    (ASC), University of Pennsylvania.

    Examples
    --------
    >>> joint_disagreements(np.eye(2) / 2, [0.5, 0.5], [0.5, 0.5], 1 - np.eye(2))
    (0.0, 0.5)

    No mass off the diagonal gives D_o = 0; D_e = 2 · ½ · ½ = ½.
    """
    joint = np.asarray(joint, dtype=float)
    p, q = np.asarray(marginals_x, dtype=float), np.asarray(marginals_y, dtype=float)
    delta = np.asarray(delta, dtype=float)
    d_o = (joint * delta).sum(axis=(-2, -1))
    if p.ndim == q.ndim == 1:
        d_e = p @ delta @ q
    else:
        d_e = np.einsum("...c,...c->...", p @ delta, q)
    return _scalar(d_o), _scalar(d_e)


def alpha_from_joint(joint: ArrayLike, marginals_x: ArrayLike, marginals_y: ArrayLike,
                     delta: ArrayLike) -> FloatOrArray:
    r"""Chance-corrected agreement from a pair distribution and a distance matrix.

    .. math::  α = 1 - \frac{D_o}{D_e}, \qquad D_o = \sum_{ck} J_{ck} δ_{ck}, \qquad
               D_e = p_x^\top δ\, p_y,

    J the K × K distribution of an (x, y) pair of annotations (the same item), p_x, p_y the
    marginals and δ the distance (:mod:`kappalab.distances`). With the nominal δ it is κ =
    (P_o − P_e)/(1 − P_e), P_o = tr J, P_e = p_xᵀp_y. NaN where D_e ≤ 0. Leading axes of
    ``joint`` and the marginals broadcast (one table per posterior draw, say).

    Parameters
    ----------
    joint : array_like
        ``(..., K, K)`` pair distribution J.
    marginals_x, marginals_y : array_like
        ``(..., K)`` marginals p_x and p_y.
    delta : array_like
        K × K distance matrix δ.

    Returns
    -------
    float or numpy.ndarray
        α (a float for a single table).

    References
    ----------
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Departmental Papers
    (ASC), University of Pennsylvania.

    Examples
    --------
    >>> from kappalab import distances
    >>> J = np.array([[0.4, 0.1], [0.1, 0.4]])          # P_o = 0.8, p = (½, ½): P_e = ½
    >>> alpha_from_joint(J, [0.5, 0.5], [0.5, 0.5], distances.nominal(2))   # 1 − 0.2/0.5
    0.6
    """
    d_o, d_e = joint_disagreements(joint, marginals_x, marginals_y, delta)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(d_e > 0, 1.0 - d_o / np.where(d_e > 0, d_e, 1.0), np.nan)
    return out.item() if out.ndim == 0 else out


# ====================================================================== thresholded latents
def _bounds(thresholds: ArrayLike) -> np.ndarray:
    """(−∞, t_1, …, t_{K−1}, ∞) along the last axis."""
    t = np.asarray(thresholds, dtype=float)
    inf = np.full(t.shape[:-1] + (1,), np.inf)
    return np.concatenate([-inf, t, inf], axis=-1)


def latent_icc(thresholds: ArrayLike, alpha: float, *, xtol: float = 1e-14) -> float:
    r"""The latent ICC ρ_L at which thresholded normal latents have nominal α equal to ``alpha``.

    Two annotations of an item are z, z' standard bivariate normal with correlation ρ_L; an
    annotation's category is the number of ``thresholds`` t_1 < … < t_{K−1} below it. With
    p_c = Φ(t_{c+1}) − Φ(t_c) and J_cc(ρ) = P(z, z' ∈ (t_c, t_{c+1}]) (bivariate-normal
    rectangles, :mod:`kappalab.bivariate_normal`), ρ_L solves (Brent's method on [0, 1], to
    ``xtol``)

    .. math::  \frac{\sum_c J_{cc}(ρ_L) - \sum_c p_c^2}{1 - \sum_c p_c^2} = α ;

    the left side is nominal α (= Fleiss' κ) of the thresholded annotations. ρ_L = 0 for
    α ≤ 0.

    Parameters
    ----------
    thresholds : array_like
        The K − 1 increasing finite cut points t_1 < … < t_{K−1}.
    alpha : float
        The target α, at most 1.
    xtol : float, default 1e-14
        Absolute tolerance of the root on ρ_L.

    Returns
    -------
    float
        ρ_L in [0, 1].

    Raises
    ------
    ValueError
        ``alpha`` above 1: no ρ_L in [0, 1] attains it (raised by :func:`scipy.optimize.brentq`).

    References
    ----------
    Owen, D. B. (1956). Tables for computing bivariate normal probabilities. Annals of
    Mathematical Statistics, 27(4), 1075–1090. doi:10.1214/aoms/1177728074

    Brent, R. P. (1973). Algorithms for Minimization without Derivatives. Prentice-Hall.

    Examples
    --------
    >>> round(latent_icc([0.0], 0.5), 12)   # binary, prevalence ½: α = (2/π) arcsin ρ_L
    0.707106781187

    By hand: arcsin ρ_L = π/4, so ρ_L = sin(π/4) = √2/2 ≈ 0.7071068.
    """
    from scipy.optimize import brentq  # imported where used: scipy.optimize is slow
    bounds = _bounds(thresholds)
    p_e = fleiss_chance_agreement(np.diff(ndtr(bounds)))

    def excess(rho: float) -> float:
        p_o = np.trace(rectangle_probabilities(bounds, bounds, rho))
        return (p_o - p_e) / (1.0 - p_e) - alpha

    if alpha <= 0:
        return 0.0
    return float(brentq(excess, 0.0, 1.0, xtol=xtol, rtol=4 * np.finfo(float).eps,
                        maxiter=500))


class CrossTables(NamedTuple):
    """Pair distributions of two thresholded latent replications.

    Returned by :func:`latent_cross_tables`; leading axes as the inputs'.

    Parameters
    ----------
    joint : numpy.ndarray
        ``(..., K_X, K_Y)`` cross-side table J^XY (one annotation of each side).
    joint_x : numpy.ndarray
        ``(..., K_X, K_X)`` within-side table J^XX (two annotations of X).
    joint_y : numpy.ndarray
        ``(..., K_Y, K_Y)`` within-side table J^YY.
    marginals_x : numpy.ndarray
        ``(..., K_X)`` category probabilities p_X.
    marginals_y : numpy.ndarray
        ``(..., K_Y)`` category probabilities p_Y.
    correlation : numpy.ndarray
        The cross-side latent correlation r = ρ_u √(ρ_LX ρ_LY).

    Examples
    --------
    >>> t = latent_cross_tables([0.0], [0.0], 0.5, 0.5, 0.0)   # r = 0: independent sides
    >>> t.joint.tolist()                                        # ½ · ½ in every cell
    [[0.25, 0.25], [0.25, 0.25]]
    """

    joint: np.ndarray
    joint_x: np.ndarray
    joint_y: np.ndarray
    marginals_x: np.ndarray
    marginals_y: np.ndarray
    correlation: np.ndarray


def latent_cross_tables(thresholds_x: ArrayLike, thresholds_y: ArrayLike,
                        latent_icc_x: ArrayLike, latent_icc_y: ArrayLike,
                        latent_rho: ArrayLike) -> CrossTables:
    """The pair distributions of two replications of the latent-threshold model.

    Item latents (u_X, u_Y) are standard bivariate normal with correlation ρ_u
    (``latent_rho``); an annotation of side X is z = √ρ_LX u_X + √(1 − ρ_LX) ε, categorised
    by ``thresholds_x``, and likewise for Y. Two annotations of one side are bivariate normal
    with correlation ρ_LX, one of each side with r = ρ_u √(ρ_LX ρ_LY), so every table is a set
    of bivariate-normal rectangles:

    .. math::  J^{XY}_{ck} = P(z_X ∈ (t^X_c, t^X_{c+1}], z_Y ∈ (t^Y_k, t^Y_{k+1}]; r),

    J^{XX}, J^{YY} the within-side tables and p_X, p_Y the marginals Φ(t_{c+1}) − Φ(t_c).

    Parameters
    ----------
    thresholds_x, thresholds_y : array_like
        Each side's K − 1 increasing finite cut points on the last axis; leading axes
        (posterior draws) broadcast with the correlations.
    latent_icc_x, latent_icc_y : float or array_like
        Each side's latent ICC ρ_LX, ρ_LY (the correlation of two annotations of an item).
    latent_rho : float or array_like
        The correlation ρ_u of the item latents across the sides.

    Returns
    -------
    CrossTables
        The tables J^XY, J^XX, J^YY, the marginals and r.

    References
    ----------
    Owen, D. B. (1956). Tables for computing bivariate normal probabilities. Annals of
    Mathematical Statistics, 27(4), 1075–1090. doi:10.1214/aoms/1177728074

    Examples
    --------
    >>> t = latent_cross_tables([0.0], [0.0], 0.5, 0.5, 1.0)
    >>> round(float(t.correlation), 12), t.marginals_x.tolist()   # r = 1 · √(0.5 · 0.5)
    (0.5, [0.5, 0.5])
    """
    bx, by = _bounds(thresholds_x), _bounds(thresholds_y)
    licc_x, licc_y = np.asarray(latent_icc_x, dtype=float), np.asarray(latent_icc_y,
                                                                       dtype=float)
    r = np.asarray(latent_rho, dtype=float) * np.sqrt(licc_x * licc_y)
    return CrossTables(rectangle_probabilities(bx, by, r),
                       rectangle_probabilities(bx, bx, licc_x),
                       rectangle_probabilities(by, by, licc_y),
                       np.diff(ndtr(bx), axis=-1), np.diff(ndtr(by), axis=-1), r)


def true_score_correlation(tables: CrossTables) -> tuple[FloatOrArray, FloatOrArray,
                                                         FloatOrArray, FloatOrArray]:
    r"""The correlation of the items' true scores E[x | item] across two replications.

    With the category indices i = (0, …, K − 1) as scores:

    .. math::  \mathrm{Cov} = i^\top J^{XY} i - (i^\top p_X)(i^\top p_Y), \qquad
               \mathrm{Var}_X = i^\top J^{XX} i - (i^\top p_X)^2,

    (two annotations of an item are independent given the item, so the within-side pair
    table gives the true-score variance). ρ is NaN unless both variances are positive.

    Parameters
    ----------
    tables : CrossTables
        The pair distributions (:func:`latent_cross_tables`).

    Returns
    -------
    rho, cov, var_x, var_y : float or numpy.ndarray
        The true-score correlation, covariance and the two variances (floats for single
        tables).

    References
    ----------
    Spearman, C. (1904). The proof and measurement of association between two things.
    American Journal of Psychology, 15(1), 72–101. doi:10.2307/1412159

    Examples
    --------
    >>> rho, cov, var_x, var_y = true_score_correlation(
    ...     latent_cross_tables([0.0], [0.0], 0.5, 0.5, 1.0))
    >>> round(rho, 12)   # identical sides: the two true scores coincide
    1.0

    By hand: with ρ_u = 1 the cross table J^XY equals J^XX = J^YY, so Cov = Var_X = Var_Y.
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
    return _scalar(rho), _scalar(cov), _scalar(var_x), _scalar(var_y)


