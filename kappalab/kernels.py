r"""Numeric kernels shared by the estimators, the simulator and the Bayesian models.

Each formula is written once, here, on plain arrays: no :class:`~kappalab.Annotations`, no
options to validate. Every kernel works along the last axis (or the last two, for tables) and
broadcasts over leading axes, such as posterior draws or items.

========================================  =====================================================
kernel                                    formula
========================================  =====================================================
:func:`column_totals`                     Σ_i w_i s_i by blocks and pairwise (accurate totals)
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
:func:`distinct_rows`                     identical rows grouped, with multiplicities
:func:`single_blas_thread`                skinny matrix products on one BLAS thread
========================================  =====================================================

The population formulas of the simulation model and the Bayesian models (α from a pair
distribution, the latent ICC, the thresholded-latent pair tables) are in
:mod:`kappalab.population`; their names here (``kappalab.kernels.latent_icc`` and the
others) still work for one release, with a :class:`DeprecationWarning`.
"""

from __future__ import annotations

import importlib
import sys
import threading
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple, overload

import numpy as np

from .protocols import ItemStats


class _ImportedOnFirstUse:
    """A module imported when one of its names is first read: ``import kappalab`` does not
    load scipy.sparse (a tenth of a second), which only many categories and large designs
    use; the modules of the package read it as ``sp`` (the module itself for the type
    checker)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __getattr__(self, attribute: str) -> Any:
        return getattr(importlib.import_module(self._name), attribute)


if TYPE_CHECKING:
    import scipy.sparse as sp
    from typing_extensions import TypeIs
else:
    sp = _ImportedOnFirstUse("scipy.sparse")


def issparse(x: Any) -> TypeIs[sp.sparray | sp.spmatrix]:
    """Whether ``x`` is a scipy sparse matrix or array (``scipy.sparse.issparse``), without
    importing scipy.sparse: before it is imported, nothing can be one.

    Parameters
    ----------
    x : object
        Anything.

    Returns
    -------
    bool
        True for a scipy sparse matrix or array.

    Examples
    --------
    >>> issparse(np.eye(2))
    False
    """
    module = sys.modules.get("scipy.sparse")
    return module is not None and bool(module.issparse(x))

__all__ = ["DistinctRows", "SMALL_BLAS_CELLS", "SUM_BLOCK_ROWS",
           "chance_corrected", "column_totals", "conger_chance_agreement", "count_square_sums",
           "distinct_rows",
           "fleiss_chance_agreement",
           "numeric_array",
           "pair_agreement", "pearson_from_sums", "pearson_sums", "rater_marginal_entries",
           "issparse", "row_pearson", "single_blas_thread",
           "spearman_brown"]

#: names moved to :mod:`kappalab.population`, still importable from here for one release
_MOVED_TO_POPULATION = frozenset({"CrossTables", "alpha_from_joint", "joint_disagreements",
                                  "latent_cross_tables", "latent_icc",
                                  "true_score_correlation"})


def __getattr__(name: str) -> Any:
    """``kappalab.kernels.latent_icc`` and the other population formulas, with a
    :class:`DeprecationWarning`: they live in :mod:`kappalab.population`."""
    if name in _MOVED_TO_POPULATION:
        import warnings

        from . import population
        warnings.warn(f"kappalab.kernels.{name} is deprecated and will be removed in the "
                      f"next release; use kappalab.population.{name}",
                      DeprecationWarning, stacklevel=2)
        return getattr(population, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def numeric_array(x: Any) -> np.ndarray:
    """``x`` as a float array, complex and object arrays kept as they are.

    Complex and object (e.g. mpmath) arrays pass unchanged, so that a complex-step derivative
    (and a high-precision check of it) goes through the same closed form.

    Parameters
    ----------
    x : array_like
        Numbers: a scalar, a sequence or an array (real, complex or object).

    Returns
    -------
    numpy.ndarray
        ``x`` as float64 (``x`` itself when it is a float64 array: no copy), or as it is
        when complex or object.

    Examples
    --------
    >>> numeric_array([1, 2]).dtype, numeric_array([1j]).dtype
    (dtype('float64'), dtype('complex128'))
    """
    t = np.asarray(x)
    return t if t.dtype == _FLOAT64 or t.dtype.kind in "cO" else t.astype(float)


_FLOAT64 = np.dtype(np.float64)


# ====================================================================== totals over items
#: rows added by one matrix product in :func:`column_totals` before the blocks' partial sums
#: are added pairwise
SUM_BLOCK_ROWS = 128


def column_totals(stats: ItemStats, weights: np.ndarray | None = None
                  ) -> np.ndarray:
    r"""The totals :math:`T = \sum_i w_i s_i` of the rows of an items × s matrix, with a rounding
    error that does not grow with the number of items.

    A single pass (a matrix-vector product, or ``stats.sum(axis=0)`` on a C-ordered array)
    adds one row at a time to a running total, whose error bound grows as n·u
    (u = 2**-53) and whose typical error as √n·u, some 3e-13 relative at ten million items.
    Here the rows are added in blocks of b = :data:`SUM_BLOCK_ROWS` by one batched matrix
    product, and the ⌈n/b⌉ partial sums of each column by pairwise summation (numpy's, along
    a contiguous row), so that

    .. math::  |\hat T_j - T_j| \le \big(b + \lceil\log_2 \lceil n/b\rceil\rceil + 1\big)\,
               u \sum_i |w_i s_{ij}| + O(u^2)

    whatever n (Higham 2002, ch. 4). The blocks are views of a C-ordered matrix (an F-ordered
    one is copied once). A sparse matrix is summed by the same blocks: its products are
    collected into a ⌈n/b⌉ × s sparse matrix of partial sums (scipy adds the at most b
    entries of each cell), which is summed the same way until at most b rows are left.

    Parameters
    ----------
    stats : numpy.ndarray or scipy.sparse matrix
        Items × s statistics (real).
    weights : numpy.ndarray, optional
        w_i, one per row (default: every row once).

    Returns
    -------
    numpy.ndarray
        The s totals (float).

    References
    ----------
    Higham, N. J. (2002). *Accuracy and Stability of Numerical Algorithms*, 2nd ed. SIAM,
    ch. 4 (summation). doi:10.1137/1.9780898718027

    Examples
    --------
    A million copies of 0.1: added one at a time (``cumsum``) they drift by 1.3e-6 from the
    correctly rounded sum (``math.fsum``); by blocks and pairwise, by two units in the last
    place.

    >>> import math
    >>> x = np.full((10**6, 1), 0.1)
    >>> math.fsum(x[:, 0]), float(np.cumsum(x[:, 0])[-1]), float(column_totals(x)[0])
    (100000.0, 100000.00000133288, 100000.00000000003)
    >>> column_totals(np.array([[1.0, 2.0], [3.0, 4.0]]), np.array([2.0, 0.5])).tolist()
    [3.5, 6.0]
    >>> column_totals(sp.csr_matrix([[1.0, 0.0], [3.0, 4.0]])).tolist()
    [4.0, 4.0]
    """
    b = SUM_BLOCK_ROWS
    if issparse(stats):
        stats = sp.csr_matrix(stats)
        while stats.shape[0] > b:
            n, s = stats.shape
            row = np.repeat(np.arange(n), np.diff(stats.indptr))
            data = stats.data if weights is None else stats.data * weights[row]
            stats = sp.csr_matrix((data, (row // b, stats.indices)), shape=(-(-n // b), s))
            weights = None
        if weights is not None:
            return np.asarray(stats.T @ np.asarray(weights, dtype=float), dtype=float).ravel()
        return np.asarray(stats.sum(axis=0), dtype=float).ravel()
    stats = np.asarray(stats, dtype=float)
    n, s = stats.shape
    g = n // b
    if g == 0:  # one partial block: its sum as it is (what the pairwise sum of one gives)
        return stats.sum(axis=0) if weights is None else \
            stats.T @ np.asarray(weights, dtype=float)
    head = stats[:g * b].reshape(g, b, s)  # a view: blocks of b consecutive rows
    if weights is None:
        partial = head.sum(axis=1)
        tail = stats[g * b:].sum(axis=0)
    else:
        w = np.asarray(weights, dtype=float)
        partial = np.matmul(w[:g * b].reshape(g, 1, b), head).reshape(g, s)
        tail = stats[g * b:].T @ w[g * b:]
    partials = np.empty((s, g + 1))  # one contiguous row per column: numpy sums it pairwise
    partials[:, :g] = partial.T
    partials[:, g] = tail
    return partials.sum(axis=1)


# ====================================================================== per-item agreement
def count_square_sums(counts: ItemStats) -> np.ndarray:
    """Σ_k n_ik² of each row of an items × categories count table.

    The table may be dense or scipy sparse (O(annotations) for the sparse one); a dense table
    may have leading axes (posterior draws, say).

    Parameters
    ----------
    counts : numpy.ndarray or scipy.sparse matrix
        Items × categories counts n_ik (dense: ``(..., items, categories)``).

    Returns
    -------
    numpy.ndarray
        Σ_k n_ik² per item, float (dense: shape ``counts.shape[:-1]``).

    Examples
    --------
    >>> count_square_sums(sp.csr_matrix([[2.0, 1.0, 0.0], [0.0, 0.0, 3.0]]))  # 4 + 1, 9
    array([5., 9.])
    """
    if issparse(counts):
        return np.asarray(counts.multiply(counts).sum(axis=1), dtype=float).ravel()
    counts = np.asarray(counts, dtype=float)
    # one pass, no squared temporary: twice as fast as (counts * counts) @ 1 on items × K
    return np.einsum("...k,...k->...", counts, counts)


def pair_agreement(counts: ItemStats, m: np.ndarray) -> np.ndarray:
    r"""The share of agreeing pairs among each item's annotations.

    .. math::  P_i = \frac{\sum_k n_{ik}(n_{ik} - 1)}{m_i (m_i - 1)}
               = \frac{\sum_k n_{ik}^2 - m_i}{m_i (m_i - 1)}, \qquad m_i = \sum_k n_{ik},

    along the last axis of ``counts`` (leading axes, such as posterior draws, broadcast
    against ``m``); 0 for items with fewer than two annotations.

    Parameters
    ----------
    counts : numpy.ndarray or scipy.sparse matrix
        Items × categories counts n_ik (dense: leading axes allowed).
    m : numpy.ndarray
        Annotations per item, m_i = Σ_k n_ik.

    Returns
    -------
    numpy.ndarray
        P_i per item, float, 0 where m_i < 2.

    References
    ----------
    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin, 76(5), 378–382. doi:10.1037/h0031619

    Examples
    --------
    >>> pair_agreement(np.array([[2, 1], [3, 0], [1, 0]]), np.array([3, 3, 1])).tolist()
    [0.3333333333333333, 1.0, 0.0]

    The first item: (2² + 1² − 3)/(3·2) = 2/6.
    """
    m = np.asarray(m, dtype=float)
    agree = count_square_sums(counts) - m  # Σ n² − Σ n
    pairable = m >= 2
    return np.where(pairable, agree / np.where(pairable, m * (m - 1), 1.0), 0.0)


def rater_marginal_entries(items: np.ndarray, raters: np.ndarray, categories: np.ndarray,
                           n_raters: int, n_categories: int, values: np.ndarray | None = None
                           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The ``(row, column, value)`` entries of the items × rater-marginal statistics.

    From per-annotation item, rater and category codes, for a scipy sparse matrix (duplicates
    add up). Without ``values``: each annotation's one-hot (rater g, category c) indicator —
    column g·K + c, value 1 — so that row i holds the item's rater × category counts n_igc
    (items × R·K). With ``values`` x (one per annotation): the rater moments [1, x, x²] at
    columns g, R + g, 2R + g (items × 3R).

    Parameters
    ----------
    items : numpy.ndarray
        Item code (row) of each annotation.
    raters : numpy.ndarray
        Rater code g (0 … R − 1) of each annotation.
    categories : numpy.ndarray
        Category code c (0 … K − 1) of each annotation (unused with ``values``).
    n_raters : int
        Number of raters R.
    n_categories : int
        Number of categories K.
    values : numpy.ndarray, optional
        A numeric value x per annotation: moments instead of one-hot counts.

    Returns
    -------
    rows, columns, values : numpy.ndarray
        The sparse entries: one per annotation (three per annotation with ``values``).

    Examples
    --------
    >>> rows, cols, vals = rater_marginal_entries(np.array([0, 0, 1]), np.array([0, 1, 1]),
    ...                                           np.array([1, 0, 1]), 2, 2)
    >>> rows.tolist(), cols.tolist(), vals.tolist()   # columns g·2 + c: 0·2+1, 1·2+0, 1·2+1
    ([0, 0, 1], [1, 2, 3], [1.0, 1.0, 1.0])
    """
    if values is None:
        return items, raters * n_categories + categories, np.ones(items.size)
    x, R = values, n_raters
    return (np.tile(items, 3), np.concatenate([raters, R + raters, 2 * R + raters]),
            np.concatenate([np.ones_like(x), x, x * x]))


# ====================================================================== correlations
def pearson_sums(u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """Items × 5·S sums ``[u, v, u², v², uv]`` of S paired columns.

    Each column is centred (Pearson's r does not depend on the centre), so that r is a function
    of the column totals of these sums (:func:`pearson_from_sums`), which can be resampled or
    weighted item by item.

    Parameters
    ----------
    u, v : numpy.ndarray
        Items × S paired columns.

    Returns
    -------
    numpy.ndarray
        Items × 5·S: the centred u, v, u², v² and uv, each block S columns wide.

    Examples
    --------
    >>> pearson_sums(np.array([[1.0], [3.0]]), np.array([[2.0], [4.0]]))  # centred: ∓1
    array([[-1., -1.,  1.,  1.,  1.],
           [ 1.,  1.,  1.,  1.,  1.]])
    """
    u = u - u.mean(axis=0)
    v = v - v.mean(axis=0)
    return np.column_stack([u, v, u * u, v * v, u * v])


def pearson_from_sums(n: np.ndarray, sums: np.ndarray) -> np.ndarray:
    r"""Pearson's r of each of S pairs from n and the totals laid out as :func:`pearson_sums`.

    .. math::  r = \frac{Σuv - ΣuΣv/n}{\sqrt{(Σu^2 - (Σu)^2/n)(Σv^2 - (Σv)^2/n)}},

    NaN without variance, bounded to [−1, 1] on the real part only (so that a complex-step
    derivative passes; it is 0 at the bound).

    Parameters
    ----------
    n : int or numpy.ndarray
        Number of items (leading axes broadcast with those of ``sums``).
    sums : numpy.ndarray
        ``(..., 5·S)`` totals of ``[u, v, u², v², uv]`` (:func:`pearson_sums` summed over
        items).

    Returns
    -------
    numpy.ndarray
        ``(..., S)`` correlations.

    References
    ----------
    Pearson, K. (1895). Notes on regression and inheritance in the case of two parents.
    Proceedings of the Royal Society of London, 58, 240–242.

    Examples
    --------
    >>> u, v = np.array([[1.0], [2.0], [4.0]]), np.array([[1.0], [3.0], [2.0]])
    >>> float(pearson_from_sums(3, pearson_sums(u, v).sum(axis=0))[0])  # doctest: +ELLIPSIS
    0.3273268353539...

    By hand: Σdu·dv = 1, Σdu² = 14/3, Σdv² = 2, so r = 1/√(28/3) = √(3/28) ≈ 0.32733.
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

    Parameters
    ----------
    u, v : numpy.ndarray
        Arrays of one shape; the correlation is taken along the last axis.

    Returns
    -------
    numpy.ndarray
        One correlation per row (shape ``u.shape[:-1]``), clipped to [−1, 1].

    References
    ----------
    Pearson, K. (1895). Notes on regression and inheritance in the case of two parents.
    Proceedings of the Royal Society of London, 58, 240–242.

    Examples
    --------
    >>> round(float(row_pearson(np.array([1.0, 2.0, 4.0]), np.array([1.0, 3.0, 2.0]))), 12)
    0.327326835354

    As in :func:`pearson_from_sums`: √(3/28) ≈ 0.327327.
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
    r"""The Spearman–Brown prophecy: the reliability of ``factor`` times as many annotations.

    The reliability of a mean of k = ``factor`` times as many annotations (or items),

    .. math::  ρ_k = \frac{kρ}{1 + (k - 1)ρ} .

    Works on arrays.

    Parameters
    ----------
    reliability : float or array_like
        The reliability ρ of one unit (one annotation, or one half of a split).
    factor : float or array_like
        The lengthening factor k (2 for a split-half, say); broadcasts with ``reliability``.

    Returns
    -------
    float or numpy.ndarray
        ρ_k (a float for scalar input).

    References
    ----------
    Spearman, C. (1910). Correlation calculated from faulty data. British Journal of
    Psychology, 3(3), 271–295. doi:10.1111/j.2044-8295.1910.tb00206.x

    Brown, W. (1910). Some experimental results in the correlation of mental abilities.
    British Journal of Psychology, 3(3), 296–322. doi:10.1111/j.2044-8295.1910.tb00207.x

    Examples
    --------
    >>> spearman_brown(0.5, 2)   # 2·0.5/(1 + 0.5) = 2/3
    0.6666666666666666
    """
    rel, k = numeric_array(reliability), numeric_array(factor)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = k * rel / (1.0 + (k - 1.0) * rel)
    return out.item() if out.ndim == 0 else out


# ====================================================================== chance correction
def chance_corrected(p_o: Any, p_e: Any) -> Any:
    """κ = (P_o − P_e)/(1 − P_e), NaN where P_e ≥ 1 (chance agreement is certain).

    Parameters
    ----------
    p_o : float or array_like
        Observed agreement P_o.
    p_e : float or array_like
        Chance agreement P_e (broadcasts with ``p_o``).

    Returns
    -------
    float or numpy.ndarray
        The chance-corrected agreement (a float for scalar input).

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement, 20(1), 37–46. doi:10.1177/001316446002000104

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> chance_corrected(0.8, 0.5)   # 0.3/0.5
    0.6000000000000001
    """
    p_o, p_e = np.asarray(p_o, dtype=float), np.asarray(p_e, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(p_e < 1, (p_o - p_e) / (1.0 - p_e), np.nan)
    return out.item() if out.ndim == 0 else out


def fleiss_chance_agreement(marginals: Any) -> Any:
    """Fleiss' (Scott's) chance agreement P_e = Σ_k p_k² of the pooled marginals p.

    Parameters
    ----------
    marginals : array_like
        Category proportions p_k on the last axis (leading axes broadcast).

    Returns
    -------
    float or numpy.ndarray
        P_e (a float for one vector of marginals).

    References
    ----------
    Scott, W. A. (1955). Reliability of content analysis: the case of nominal scale coding.
    Public Opinion Quarterly, 19(3), 321–325. doi:10.1086/266577

    Fleiss, J. L. (1971). Measuring nominal scale agreement among many raters. Psychological
    Bulletin, 76(5), 378–382. doi:10.1037/h0031619

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> round(fleiss_chance_agreement([0.5, 0.3, 0.2]), 12)   # 0.25 + 0.09 + 0.04
    0.38
    """
    p = np.asarray(marginals, dtype=float)
    out = p @ p if p.ndim == 1 else np.einsum("...k,...k->...", p, p)
    return out.item() if np.ndim(out) == 0 else out


def conger_chance_agreement(rater_marginals: Any) -> Any:
    r"""Conger's (Cohen's, for two raters) chance agreement from the rater marginals.

    The mean over ordered pairs of distinct raters g ≠ h of p_gᵀ p_h, from the R × K rater
    marginals (leading axes broadcast):

    .. math::  P_e = \frac{s^\top s - \sum_g p_g^\top p_g}{R(R - 1)}, \qquad s = \sum_g p_g .

    A single row (R = 1) stands for a pool of exchangeable raters sharing it: P_e = pᵀp.

    Parameters
    ----------
    rater_marginals : array_like
        ``(..., R, K)`` category proportions p_g of each rater.

    Returns
    -------
    float or numpy.ndarray
        P_e (a float for one R × K table).

    References
    ----------
    Cohen, J. (1960). A coefficient of agreement for nominal scales. Educational and
    Psychological Measurement, 20(1), 37–46. doi:10.1177/001316446002000104

    Conger, A. J. (1980). Integration and generalization of kappas for multiple raters.
    Psychological Bulletin, 88(2), 322–328. doi:10.1037/0033-2909.88.2.322

    Gwet, K. L. (2014). Handbook of Inter-Rater Reliability (4th ed.). Advanced Analytics.

    Examples
    --------
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


# ====================================================================== grouping
class DistinctRows(NamedTuple):
    """The distinct rows of a matrix, as found by :func:`distinct_rows`.

    ``rows[first][inverse]`` equals the rows.

    Parameters
    ----------
    first : numpy.ndarray
        Row index of each distinct row's first occurrence.
    inverse : numpy.ndarray
        The distinct row (a position in ``first``) of each row.
    counts : numpy.ndarray
        Multiplicity of each distinct row.

    Examples
    --------
    >>> g = distinct_rows(np.array([[1, 0], [1, 0]]), lexicographic=True)
    >>> g.first.tolist(), g.inverse.tolist(), g.counts.tolist()   # one row, twice
    ([0], [0, 0], [2])
    """

    first: np.ndarray
    inverse: np.ndarray
    counts: np.ndarray


def _groups_of_keys(key: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(codes, first, uniques) of a 1-D key by a hash table (``pandas.factorize``, O(n), no
    sort): ``codes`` numbers the distinct keys in order of first appearance, ``first`` is
    the position of each one's first appearance."""
    import pandas as pd

    codes, uniques = pd.factorize(key, use_na_sentinel=False)
    seen = np.maximum.accumulate(codes)  # a new code is one above every code before it
    first = np.flatnonzero(np.concatenate([[True], codes[1:] > seen[:-1]]))
    return codes, first, np.asarray(uniques)


def _ordered(codes: np.ndarray, first: np.ndarray, order: np.ndarray) -> DistinctRows:
    """The groups of :func:`_groups_of_keys` renumbered in ``order``."""
    rank = np.empty(order.size, dtype=np.intp)
    rank[order] = np.arange(order.size)
    counts = np.bincount(codes, minlength=order.size)[order]
    return DistinctRows(first[order], rank[codes], counts)


def _bit_key(rows: np.ndarray) -> np.ndarray | None:
    """One 64-bit key per row from its values' bit patterns (−0.0 read as 0.0): the 32-bit
    halves times fixed odd 64-bit numbers, summed with wrap-around; equal rows share a key
    and distinct rows almost never do. None for a dtype without bit patterns (complex,
    object)."""
    if rows.dtype.kind == "f":
        bits = (rows.astype(np.float64, copy=False) + 0.0).view(np.uint64)  # −0.0 + 0.0 = 0.0
    elif rows.dtype.kind in "iub":
        bits = rows.astype(np.int64, copy=False).view(np.uint64)
    else:
        return None
    halves = np.ascontiguousarray(bits).view(np.uint32)
    multipliers = np.random.default_rng(0xB175).integers(
        1, 2**62, size=halves.shape[1], dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    return halves @ multipliers  # uint64: the products and the sum wrap


@overload
def distinct_rows(rows: np.ndarray, *, lexicographic: bool = False,
                  most: None = None) -> DistinctRows: ...
@overload
def distinct_rows(rows: np.ndarray, *, lexicographic: bool = False,
                  most: float | None = None) -> DistinctRows | None: ...
def distinct_rows(rows: np.ndarray, *, lexicographic: bool = False,
                  most: float | None = None) -> DistinctRows | None:
    """Group identical rows of a 2-D array: ``rows[first][inverse]`` equals ``rows``.

    With ``lexicographic=True`` the distinct rows are in lexicographic order (as
    ``np.unique(rows, axis=0)``). Otherwise rows are keyed by one fixed random projection and
    the keys grouped by a hash table (``pandas.factorize``: O(n), no sort), the groups in the
    order of that key (as sorting the keys would give); the grouping is then verified
    exactly. Should two distinct rows share a key (rows a rounding apart), the rows are
    grouped by a key of their bit patterns instead, in lexicographic order, and verified
    again, with the lexicographic sort of the rows as the last resort.

    Parameters
    ----------
    rows : numpy.ndarray
        A 2-D array, n rows.
    lexicographic : bool, default False
        Order the distinct rows lexicographically (else in the order of the projection key).
    most : float, optional
        Give up (return None), before any verification, when more than ``most`` rows are
        distinct (a shared key can only merge distinct rows, so more distinct keys than
        ``most`` settles it).

    Returns
    -------
    DistinctRows or None
        ``first``, ``inverse`` and ``counts``; None when there are more than ``most`` distinct
        rows.

    Examples
    --------
    >>> g = distinct_rows(np.array([[1, 0], [0, 2], [1, 0]]), lexicographic=True)
    >>> g.first.tolist(), g.inverse.tolist(), g.counts.tolist()   # [0, 2] < [1, 0]
    ([1, 0], [1, 0, 1], [1, 2])
    >>> distinct_rows(np.array([[1, 0], [0, 2], [1, 0]]), most=1) is None   # 2 distinct > 1
    True
    """
    if not lexicographic and rows.ndim == 2 and rows.shape[0] > 0:
        # keys grouped by a hash table, not sorted; the groups are put in the order of the
        # key, so the result is that of sorting the keys (np.unique)
        direction = np.random.default_rng(0x5EED).uniform(1.0, 2.0, size=rows.shape[1])
        codes, first, keys = _groups_of_keys(rows @ direction + 0.0)  # −0.0 read as 0.0
        if most is not None and first.size > most:
            return None
        if np.array_equal(rows[first[codes]], rows):
            return _ordered(codes, first, np.argsort(keys, kind="stable"))
        # two distinct rows share the projection (e.g. rows a rounding apart): group by the
        # rows' bit patterns, in lexicographic order (as np.unique(rows, axis=0))
        key = _bit_key(rows)
        if key is not None:
            codes, first, _ = _groups_of_keys(key)
            if np.array_equal(rows[first[codes]], rows):
                return _ordered(codes, first, np.lexsort(rows[first].T[::-1]))
    _, first, inverse, counts = np.unique(rows, axis=0, return_index=True,
                                          return_inverse=True, return_counts=True)
    if most is not None and first.size > most:
        return None
    return DistinctRows(first, inverse.ravel(), counts)


# ====================================================================== BLAS threads
class _BlasLimit:
    """The state of :func:`single_blas_thread` in the main thread: how deep in nested blocks
    it is, threadpoolctl's controller and the limit to undo on leaving. The controller is
    found again when modules were imported since it was found (one may have brought a BLAS
    library of its own, e.g. scipy's), else reused."""

    depth = 0
    controller: Any = None
    modules_seen = 0
    limiter: Any = None


#: below this many cells (rows × columns of the block's largest dense operand) a block needs
#: no limit: OpenBLAS runs a matrix-vector product of fewer than 2304 × 4 = 9216 cells on
#: the calling thread (``interface/gemv.c``), and the spine's smaller products are
#: s-vectors; so a small estimate neither looks for the BLAS libraries (threadpoolctl's scan
#: of the loaded libraries, milliseconds on the first call) nor sets and restores a limit
SMALL_BLAS_CELLS = 8192


@contextmanager
def single_blas_thread(cells: int | None = None) -> Iterator[None]:
    """Run the block with the BLAS libraries limited to one thread.

    The spine's matrix products are skinny: an items × s matrix times an s-vector or an
    s × s matrix (s a handful of columns), or a vector of item weights times the items × s
    matrix. They are memory-bound, so a second BLAS thread gains little, and on a machine
    whose cores are busy a multi-threaded BLAS waiting for its threads can take many times
    the single-threaded time. The limit is set through threadpoolctl's controller (found again
    only when modules were imported since) when the outermost block enters and restored when
    it leaves.

    Only the main thread sets the limit: OpenBLAS takes a new thread count from the thread
    that started it, and the count is process-wide, so a block in another thread runs
    unchanged (and while the main thread is inside a block, every BLAS call of the process
    is single-threaded). Without threadpoolctl the block also runs unchanged.

    Parameters
    ----------
    cells : int, optional
        The size of the block's largest dense operand, when the caller knows it: below
        :data:`SMALL_BLAS_CELLS` the block runs unchanged (BLAS is single-threaded there
        already). None: always limit.

    Yields
    ------
    None

    Examples
    --------
    >>> a = np.arange(12.0).reshape(6, 2)
    >>> with single_blas_thread():
    ...     (a @ np.ones(2)).tolist()
    [1.0, 5.0, 9.0, 13.0, 17.0, 21.0]
    >>> with single_blas_thread(cells=a.size):  # 12 cells: no limit to set
    ...     (a @ np.ones(2)).tolist()
    [1.0, 5.0, 9.0, 13.0, 17.0, 21.0]
    """
    if (cells is not None and cells < SMALL_BLAS_CELLS) or \
            threading.current_thread() is not threading.main_thread():
        yield
        return
    if _BlasLimit.depth == 0:
        if _BlasLimit.controller is None or (
                _BlasLimit.controller and len(sys.modules) != _BlasLimit.modules_seen):
            try:
                from threadpoolctl import ThreadpoolController
            except ImportError:  # pragma: no cover - threadpoolctl is a dependency
                _BlasLimit.controller = False
            else:
                _BlasLimit.controller = ThreadpoolController()
                _BlasLimit.modules_seen = len(sys.modules)
        if _BlasLimit.controller:
            _BlasLimit.limiter = _BlasLimit.controller.limit(limits=1, user_api="blas")
    _BlasLimit.depth += 1
    try:
        yield
    finally:
        _BlasLimit.depth -= 1
        if _BlasLimit.depth == 0 and _BlasLimit.limiter is not None:
            _BlasLimit.limiter.restore_original_limits()
            _BlasLimit.limiter = None
