r"""Standard errors and intervals on the item-sum spine: analytic (linearisation), bootstrap,
Bayesian bootstrap, jackknife.

Every coefficient is θ̂ = f(T), T = Σ_i s_i (:mod:`kappalab.coefficients.base`), so all four
methods only need the items × s statistics matrix S and ``combine``:

* **analytic** (``ci="analytic"``): the first-order linearisation (delta method) of f. Item i's
  influence is ``IF_i = n ∇f(T)·(s_i − T/n)`` and

  .. math::  \widehat{\operatorname{Var}}(θ̂) = \frac{1}{n(n-1)} \sum_i IF_i^2 ,

  the form of Gwet (2014, *Handbook of Inter-Rater Reliability*, 4th ed., ch. 5), whose
  per-item "κ*_i − κ" terms are exactly these influences: the linearisation reproduces his
  (and irrCAC's) standard errors of Fleiss', Conger's and Gwet's coefficients,
  Brennan–Prediger and percent agreement, with or without missing data, and Fleiss, Cohen &
  Everitt's (1969) large-sample variance of Cohen's κ up to its divisor n instead of n − 1.
  Krippendorff's α is linearised as estimated, with its small-sample expected disagreement;
  Gwet's formula linearises α without that factor, so on complete data (N annotations) this
  standard error is exactly (1 − 1/N) times irrCAC's. The gradient ∇f is exact: each core's
  ``value_gradient``, its closed-form derivative or the complex-step derivative of
  ``combine`` (exact to rounding at any scale of the totals), never a finite difference.
  The interval is θ̂ ± t_{n−1} SE (Student's t with n − 1 degrees of freedom, as Gwet), its
  upper end capped at the coefficient's largest possible value (1 for agreement
  coefficients; no cap for normalized κx and disattenuated correlations, which may exceed 1).
* **item bootstrap** (Efron 1979): totals ``W @ S`` with W the B × n multinomial counts of n
  draws with replacement; intervals ``percentile`` (the α/2 and 1 − α/2 quantiles of the
  replicates), ``basic`` (2θ̂ − those quantiles) or ``bca`` (bias-corrected and accelerated,
  Efron 1987, with the jackknife acceleration).
* **Bayesian bootstrap** (Rubin 1981): W = n · Dirichlet(1, …, 1) weights; percentile interval.
* **jackknife**: leave-one-item-out totals ``T − s_i``; SE = √((n−1)/n · Σ (θ_(i) − θ̄)²),
  interval θ̂ ± t_{n−1} SE (capped as the analytic one).

Every estimator takes the same keywords: ``ci=`` (a name of :data:`CI_METHODS`),
``n_resamples=`` (replicates of the bootstrap methods, 2000), ``confidence=`` (0.95),
``seed=`` (None, an int, a sequence of ints, a SeedSequence or a Generator:
:func:`kappalab.validation.make_rng`) and ``progress=`` (a progress bar on stderr for
resampling that outlasts two seconds: True, False, or None for "when stderr is a terminal or
a notebook's", :mod:`kappalab.progress`).

Identical rows of S (items with the same counts — most items of categorical data) are merged
first: G distinct rows with multiplicities c_g. A bootstrap replicate is then a multinomial
draw over the G groups (counts ~ Multinomial(n, c/n)), a Bayesian-bootstrap replicate a
Gamma(c_g) weight per group (the sum of c_g unit exponentials), and the jackknife has one
leave-one-out value per group. Replicates are formed in blocks of matrix products — no Python
loop over replicates or items — so B replicates cost O(B·G·s), not O(B·n·s). Items without
any annotation (an all-zero row) take no part. For κx the rows are the items common to both
replications, so items are drawn in pairs across the two sides.

With sample weights (``sample_weight=``) the rows are w_i s_i
(:class:`~kappalab.coefficients.base.ItemSumCoefficient`) and everything above applies to them
unchanged: the items stay the resampling units (an item of weight 0 is an all-zero row and
takes no part), so n is the number of items with a positive weight, not Σ w_i.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable

import numpy as np
import scipy.sparse as sp
from scipy.special import ndtr, ndtri
from scipy.stats import t as student_t

from .errors import InvalidParameterError
from .kernels import distinct_rows
from .progress import track
from .validation import check_confidence, check_count, make_rng

__all__ = ["BLOCK_CELLS", "Interval", "CI_METHODS", "analytic_interval", "bootstrap",
           "influence_values", "rows_with_statistics",
           "interval", "parse_ci", "replicate_values", "resampling_interval"]

#: rows × columns of one stacked block of totals (bounds the memory of resampling and of the
#: complex-step gradient)
BLOCK_CELLS = 4_000_000
RESAMPLING = ("bootstrap", "bayesian-bootstrap", "jackknife")
INTERVALS = ("percentile", "basic", "bca")
#: the names ``ci=`` takes on every estimator: (method, interval)
CI_METHODS = {
    "analytic": ("analytic", "t"),
    "bootstrap": ("bootstrap", "percentile"),
    "bootstrap-basic": ("bootstrap", "basic"),
    "bootstrap-bca": ("bootstrap", "bca"),
    "bayesian-bootstrap": ("bayesian-bootstrap", "percentile"),
    "jackknife": ("jackknife", "t"),
}


@dataclass(frozen=True)
class Interval:
    """A standard error and confidence interval, with how they were obtained.

    Parameters
    ----------
    se : float
        The standard error (NaN when fewer than two replicates are finite).
    low, high : float
        The ends of the confidence interval.
    method : str
        ``"analytic"``, ``"bootstrap"``, ``"bayesian-bootstrap"`` or ``"jackknife"``.
    interval : str
        ``"t"`` (θ̂ ± t_{n−1} SE), ``"percentile"``, ``"basic"`` or ``"bca"``.
    n_resamples : int
        The number of bootstrap replicates; for ``"analytic"`` and ``"jackknife"`` the
        number of items n.
    confidence : float
        The confidence level, in (0, 1).

    Examples
    --------
    >>> result = Interval(0.1, 0.3, 0.7, "analytic", "t", 50, 0.95)
    >>> result.high - result.low  # doctest: +ELLIPSIS
    0.39999...
    """

    se: float
    low: float
    high: float
    method: str
    interval: str
    n_resamples: int
    confidence: float


def parse_ci(ci: str) -> tuple[str, str]:
    """(method, interval) of an estimator's ``ci=`` name; a clear error for anything else.

    Parameters
    ----------
    ci : str
        A name of :data:`CI_METHODS`: ``"analytic"``, ``"bootstrap"``, ``"bootstrap-basic"``,
        ``"bootstrap-bca"``, ``"bayesian-bootstrap"`` or ``"jackknife"``.

    Returns
    -------
    method, interval : str
        The resampling method (or ``"analytic"``) and the kind of interval.

    Raises
    ------
    InvalidParameterError
        ``ci`` not a name of :data:`CI_METHODS`.

    Examples
    --------
    >>> parse_ci("bootstrap-bca")
    ('bootstrap', 'bca')
    >>> parse_ci("jackknife")
    ('jackknife', 't')
    """
    if isinstance(ci, str) and ci in CI_METHODS:
        return CI_METHODS[ci]
    raise InvalidParameterError(f"unknown ci {ci!r}; choose one of {', '.join(CI_METHODS)}")


def _value(core, totals: np.ndarray) -> np.ndarray:
    return np.asarray(core.combine(totals)["value"], dtype=float)


# ------------------------------------------------------------------------ item statistics
@dataclass(frozen=True)
class _Groups:
    """The distinct non-zero rows of the item statistics and how many items share each."""

    rows: np.ndarray | sp.csr_matrix  # G × s
    counts: np.ndarray  # G multiplicities (float)
    of_item: np.ndarray  # the group of each item with annotations, in item order
    first: np.ndarray  # a representative item of each group (position among those items)

    @property
    def n_items(self) -> int:
        return int(self.counts.sum())

    def totals(self, weights: np.ndarray) -> np.ndarray:
        """Totals for a B × G block of group weights."""
        if sp.issparse(self.rows):
            return np.asarray((self.rows.T @ weights.T).T)
        return weights @ self.rows


def rows_with_statistics(stats: np.ndarray | sp.spmatrix) -> np.ndarray:
    """Which rows of an items × s matrix of item statistics are resampling units: those with
    a non-zero entry (an item without annotations, or of sample weight 0, is an all-zero row
    and takes no part in any interval).

    Parameters
    ----------
    stats : numpy.ndarray or scipy.sparse matrix
        The item statistics (``core.item_stats()``).

    Returns
    -------
    numpy.ndarray
        A boolean mask, one entry per row; :func:`influence_values` gives one value per
        ``True`` row, in order.

    Examples
    --------
    >>> rows_with_statistics(np.array([[1.0, 2.0], [0.0, 0.0], [0.0, 3.0]]))
    array([ True, False,  True])
    """
    if sp.issparse(stats):  # a stored explicit zero is not an entry
        stats = sp.csr_matrix(stats)
        row = np.repeat(np.arange(stats.shape[0]), np.diff(stats.indptr))
        return np.bincount(row[stats.data != 0], minlength=stats.shape[0]) > 0
    return (np.asarray(stats, dtype=float) != 0).any(axis=1)


def _groups(core, merge: bool = True) -> _Groups:
    """The item-statistic rows of the items with annotations; with ``merge``, identical rows
    merged into groups (worth it for resampling; the linearisation needs one matrix-vector
    product and no grouping)."""
    stats = core.item_stats()
    if sp.issparse(stats):  # sparse blocks (rater × category indicators) are not merged
        stats = stats.tocsr()
        nonzero = np.flatnonzero(rows_with_statistics(stats))
        every = np.arange(nonzero.size)
        return _Groups(stats[nonzero], np.ones(nonzero.size), every, every)
    stats = np.asarray(stats, dtype=float)
    with_statistics = rows_with_statistics(stats)
    if not with_statistics.all():  # no copy when every item has statistics
        stats = stats[with_statistics]
    n = stats.shape[0]
    if n == 0:
        none = np.zeros(0, dtype=np.intp)
        return _Groups(stats, np.zeros(0), none, none)
    found = distinct_rows(stats, most=0.9 * n) if merge else None
    if found is None:  # hardly any repeats: keep the items as they are
        return _Groups(stats, np.ones(n), np.arange(n), np.arange(n))
    first, of_item, counts = found
    return _Groups(stats[first], counts.astype(float), of_item, first)


def _require_items(groups: _Groups) -> None:
    if groups.n_items < 2:
        raise InvalidParameterError(
            f"an interval needs at least two items with annotations, got {groups.n_items}")


# ------------------------------------------------------------------------ analytic
def _group_influence(core, groups: _Groups) -> np.ndarray:
    """IF = n ∇f(T)·(s − T/n) of each distinct item-statistics row."""
    totals = np.asarray(groups.counts @ groups.rows, dtype=float).ravel()
    contributions = np.asarray(groups.rows @ core.value_gradient(totals), dtype=float).ravel()
    n = groups.n_items
    return n * (contributions - (groups.counts @ contributions) / n)


def influence_values(core) -> np.ndarray:
    """The linearised influence IF_i = n ∇f(T)·(s_i − T/n) of every item with annotations.

    In item order: θ̂ − θ ≈ mean IF and Var(θ̂) ≈ Σ IF_i² / (n(n − 1)).

    Parameters
    ----------
    core : ItemSumCoefficient
        The coefficient bound to its data (:mod:`kappalab.coefficients.base`).

    Returns
    -------
    numpy.ndarray
        IF_i of the n items with annotations (all-zero rows of the item statistics left
        out), in item order; they sum to 0.

    Raises
    ------
    InvalidParameterError
        Fewer than two items with annotations.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics,
    ch. 5 (its per-item terms κ*_i − κ are these influences).

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> core = alpha_core(kl.datasets.load("worked_example"))  # α = 0.5782, 10 items
    >>> values = influence_values(core)
    >>> values.size, abs(float(values.sum())) < 1e-12
    (10, True)
    >>> round(float(np.sqrt((values ** 2).sum() / (10 * 9))), 4)  # the analytic SE
    0.1789
    """
    groups = _groups(core, merge=False)
    _require_items(groups)
    return _group_influence(core, groups)[groups.of_item]


def analytic_interval(core, confidence: float = 0.95) -> Interval:
    """θ̂ ± t_{n−1} SE with the linearisation (delta-method) standard error.

    SE² = Σ IF_i² / (n(n − 1)) over the n items with annotations (:func:`influence_values`);
    the interval is not capped here (:func:`interval` caps it at the coefficient's upper
    bound).

    Parameters
    ----------
    core : ItemSumCoefficient
        The coefficient bound to its data (:mod:`kappalab.coefficients.base`).
    confidence : float, default 0.95
        The confidence level, in (0, 1).

    Returns
    -------
    Interval
        ``method="analytic"``, ``interval="t"``, ``n_resamples`` the number of items n.

    Raises
    ------
    InvalidParameterError
        ``confidence`` outside (0, 1), or fewer than two items with annotations.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics,
    ch. 5.

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> core = alpha_core(kl.datasets.load("worked_example"))  # α = 0.5782, 10 items
    >>> result = analytic_interval(core)
    >>> round(result.se, 4), round(result.low, 4), round(result.high, 4)  # 0.5782 ± 2.262·SE
    (0.1789, 0.1735, 0.9829)
    """
    confidence = check_confidence(confidence)
    estimate = float(_value(core, core.totals()).reshape(-1)[0])
    groups = _groups(core, merge=False)
    _require_items(groups)
    influence, n = _group_influence(core, groups), groups.n_items
    se = float(np.sqrt((groups.counts @ influence ** 2) / (n * (n - 1))))
    half = float(student_t.ppf(0.5 + confidence / 2, n - 1)) * se
    return Interval(se, estimate - half, estimate + half, "analytic", "t", n, confidence)


# ------------------------------------------------------------------------ resampling
def _resample_weights(rng: np.random.Generator, method: str, counts: np.ndarray,
                      b: int) -> np.ndarray:
    """B × G group weights of one block of replicates."""
    n = counts.sum()
    if method == "bootstrap":
        if np.all(counts == 1):  # n draws with replacement, counted per item
            G = counts.size
            draws = rng.integers(0, G, size=(b, G))
            keys = (np.arange(b)[:, None] * G + draws).ravel()
            return np.bincount(keys, minlength=b * G).reshape(b, G).astype(float)
        return rng.multinomial(int(n), counts / n, size=b).astype(float)
    # Bayesian bootstrap: Dirichlet(1, …, 1) over items, scaled to sum to n; a group of c
    # items carries the sum of c unit exponentials, a Gamma(c) variate
    weights = rng.standard_gamma(counts, size=(b, counts.size))
    return weights * (n / weights.sum(axis=1, keepdims=True))


def _jackknife(core, groups: _Groups, progress: bool | None = None) -> np.ndarray:
    """Leave-one-item-out values, one per group."""
    rows = groups.rows
    totals = np.asarray(groups.counts @ rows, dtype=float).ravel()
    values = np.empty(rows.shape[0])
    block = max(1, BLOCK_CELLS // max(1, rows.shape[1]))
    starts = range(0, rows.shape[0], block)
    for start in track(starts, f"kappalab: jackknife of {core.name}", quiet=progress is False,
                       force=progress is True):
        part = rows[start:start + block]
        part = part.toarray() if sp.issparse(part) else part  # one block dense at a time
        values[start:start + block] = _value(core, totals[None, :] - part)
    return values


def replicate_values(core, method: str = "bootstrap", n_resamples: int = 2000,
                     seed: Any = None) -> np.ndarray:
    """Coefficient values of resampled item sets: B values (jackknife: one per item).

    Parameters
    ----------
    core : ItemSumCoefficient
        The coefficient bound to its data (:mod:`kappalab.coefficients.base`).
    method : {"bootstrap", "bayesian-bootstrap", "jackknife"}, default "bootstrap"
        Item bootstrap (multinomial counts), Bayesian bootstrap (Dirichlet weights) or
        leave-one-item-out.
    n_resamples : int, default 2000
        The number of replicates B (≥ 2; ignored by the jackknife).
    seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        The random seed (:func:`kappalab.validation.make_rng`); ignored by the jackknife.

    Returns
    -------
    numpy.ndarray
        B replicate values, or for the jackknife one leave-one-out value per item with
        annotations, in item order (NaN where a replicate is undefined).

    Raises
    ------
    InvalidParameterError
        An unknown ``method``, ``n_resamples`` < 2, an invalid ``seed``, or fewer than two
        items with annotations.

    References
    ----------
    Efron, B. (1979). Bootstrap methods: another look at the jackknife. *The Annals of
    Statistics* 7(1), 1–26. doi:10.1214/aos/1176344552

    Rubin, D. B. (1981). The Bayesian bootstrap. *The Annals of Statistics* 9(1), 130–134.
    doi:10.1214/aos/1176345338

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> core = alpha_core(kl.datasets.load("worked_example"))  # α = 0.5782, 10 items
    >>> jack = replicate_values(core, "jackknife")
    >>> jack.size, round(float(jack.min()), 4)  # leaving out the sixth item: α = 0.48
    (10, 0.48)
    >>> replicate_values(core, n_resamples=100, seed=0).shape
    (100,)
    """
    if method not in RESAMPLING:
        raise InvalidParameterError(f"unknown resampling method {method!r}; choose one of "
                                    f"{', '.join(RESAMPLING)}")
    groups = _groups(core)
    _require_items(groups)
    if method == "jackknife":
        return _jackknife(core, groups)[groups.of_item]
    return _replicates(core, groups, method, n_resamples, seed)


def _replicates(core, groups: _Groups, method: str, n_resamples: int, seed: Any,
                progress: bool | None = None) -> np.ndarray:
    n_resamples = check_count(n_resamples, "n_resamples", minimum=2)
    rng = make_rng(seed)
    G = groups.counts.size
    block = max(1, BLOCK_CELLS // max(G, groups.rows.shape[1]))
    values = []
    starts = range(0, int(n_resamples), block)
    for start in track(starts, f"kappalab: {method} of {core.name}", quiet=progress is False,
                       force=progress is True):
        b = min(block, int(n_resamples) - start)
        weights = _resample_weights(rng, method, groups.counts, b)
        values.append(_value(core, groups.totals(weights)))
    return np.concatenate(values)


def resampling_interval(core, method: str = "bootstrap", *, interval: str = "percentile",
                        n_resamples: int = 2000, confidence: float = 0.95,
                        seed: Any = None, progress: bool | None = None) -> Interval:
    """Standard error and confidence interval of ``core``'s coefficient by resampling items.

    The bootstrap methods give SE = the standard deviation of the finite replicates and a
    ``percentile``, ``basic`` or ``bca`` interval; the jackknife gives
    SE = √((n−1)/n · Σ (θ_(i) − θ̄)²) and θ̂ ± t_{n−1} SE (``interval`` is then ignored). The
    interval is not capped here (:func:`interval` caps the jackknife's).

    Parameters
    ----------
    core : ItemSumCoefficient
        The coefficient bound to its data (:mod:`kappalab.coefficients.base`).
    method : {"bootstrap", "bayesian-bootstrap", "jackknife"}, default "bootstrap"
        How the items are resampled.
    interval : {"percentile", "basic", "bca"}, default "percentile"
        The bootstrap interval: the replicates' quantiles, 2θ̂ minus them, or Efron's
        bias-corrected and accelerated interval.
    n_resamples : int, default 2000
        The number of replicates B (≥ 2; ignored by the jackknife).
    confidence : float, default 0.95
        The confidence level, in (0, 1).
    seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        The random seed (:func:`kappalab.validation.make_rng`).
    progress : bool or None, default None
        Show the progress of resampling that outlasts 2 s on stderr (None: when stderr is a
        terminal or a notebook; :mod:`kappalab.progress`).

    Returns
    -------
    Interval
        SE and interval (all NaN when fewer than two replicates are finite).

    Raises
    ------
    InvalidParameterError
        An unknown ``method`` or ``interval``, ``confidence`` outside (0, 1),
        ``n_resamples`` < 2, an invalid ``seed``, or fewer than two items with annotations.

    References
    ----------
    Efron, B. (1979). Bootstrap methods: another look at the jackknife. *The Annals of
    Statistics* 7(1), 1–26. doi:10.1214/aos/1176344552

    Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the American
    Statistical Association* 82(397), 171–185. doi:10.1080/01621459.1987.10478410

    Rubin, D. B. (1981). The Bayesian bootstrap. *The Annals of Statistics* 9(1), 130–134.
    doi:10.1214/aos/1176345338

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> core = alpha_core(kl.datasets.load("worked_example"))  # α = 0.5782, 10 items
    >>> jack = resampling_interval(core, "jackknife")
    >>> round(jack.se, 4), jack.interval, jack.n_resamples
    (0.1899, 't', 10)
    >>> boot = resampling_interval(core, interval="bca", n_resamples=500, seed=1)
    >>> boot.method, boot.interval, boot.low < 0.5782 < boot.high
    ('bootstrap', 'bca', True)
    """
    confidence = check_confidence(confidence)
    if interval not in INTERVALS:
        raise InvalidParameterError(f"unknown interval {interval!r}; choose one of "
                                    f"{', '.join(INTERVALS)}")
    if method not in RESAMPLING:
        raise InvalidParameterError(f"unknown resampling method {method!r}; choose one of "
                                    f"{', '.join(RESAMPLING)}")
    estimate = float(_value(core, core.totals()).reshape(-1)[0])
    groups = _groups(core)
    _require_items(groups)
    tail = (1 - confidence) / 2
    if method == "jackknife":
        values, counts = _jackknife(core, groups, progress), groups.counts
        finite = np.isfinite(values)
        values, counts = values[finite], counts[finite]
        n = counts.sum()
        if n < 2:
            return Interval(np.nan, np.nan, np.nan, method, "t", int(n), confidence)
        mean = (counts @ values) / n
        se = float(np.sqrt((n - 1) / n * (counts @ (values - mean) ** 2)))
        half = float(student_t.ppf(1 - tail, n - 1)) * se
        return Interval(se, estimate - half, estimate + half, method, "t", int(n), confidence)
    replicates = _replicates(core, groups, method, n_resamples, seed, progress)
    replicates = replicates[np.isfinite(replicates)]
    if replicates.size < 2:
        return Interval(np.nan, np.nan, np.nan, method, interval, int(n_resamples), confidence)
    se = float(replicates.std(ddof=1))
    if interval == "percentile":
        low, high = np.quantile(replicates, [tail, 1 - tail])
    elif interval == "basic":
        q_low, q_high = np.quantile(replicates, [tail, 1 - tail])
        low, high = 2 * estimate - q_high, 2 * estimate - q_low
    else:
        low, high = _bca(core, groups, estimate, replicates, tail, progress)
    return Interval(se, float(low), float(high), method, interval, int(n_resamples), confidence)


def _bca(core, groups: _Groups, estimate: float, replicates: np.ndarray,
         tail: float, progress: bool | None = None) -> tuple[float, float]:
    """Efron's (1987) bias-corrected and accelerated percentile interval."""
    below = (replicates < estimate).mean() + 0.5 * (replicates == estimate).mean()
    z0 = float(ndtri(np.clip(below, 1e-12, 1 - 1e-12)))
    jack, counts = _jackknife(core, groups, progress), groups.counts
    finite = np.isfinite(jack)
    jack, counts = jack[finite], counts[finite]
    centred = (counts @ jack) / counts.sum() - jack
    denominator = 6.0 * (counts @ centred ** 2) ** 1.5
    acceleration = float((counts @ centred ** 3) / denominator) if denominator > 0 else 0.0
    quantiles = []
    for z_alpha in (ndtri(tail), ndtri(1 - tail)):
        adjusted = z0 + (z0 + z_alpha) / (1 - acceleration * (z0 + z_alpha))
        quantiles.append(float(ndtr(adjusted)))
    low, high = np.quantile(replicates, quantiles)
    return float(low), float(high)


def interval(core, ci: str, *, n_resamples: int = 2000, confidence: float = 0.95,
             seed: Any = None, progress: bool | None = None) -> Interval:
    """The interval an estimator's ``ci=`` names (see :data:`CI_METHODS`).

    :func:`analytic_interval` or :func:`resampling_interval`; a symmetric ``"t"`` interval
    (analytic, jackknife) has its upper end capped at the coefficient's ``upper_bound``.

    Parameters
    ----------
    core : ItemSumCoefficient
        The coefficient bound to its data (:mod:`kappalab.coefficients.base`).
    ci : str
        A name of :data:`CI_METHODS`: ``"analytic"``, ``"bootstrap"``, ``"bootstrap-basic"``,
        ``"bootstrap-bca"``, ``"bayesian-bootstrap"`` or ``"jackknife"``.
    n_resamples : int, default 2000
        The number of bootstrap replicates (≥ 2).
    confidence : float, default 0.95
        The confidence level, in (0, 1).
    seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        The random seed (:func:`kappalab.validation.make_rng`).
    progress : bool or None, default None
        Show the progress of resampling that outlasts 2 s on stderr (None: when stderr is a
        terminal or a notebook; :mod:`kappalab.progress`).

    Returns
    -------
    Interval
        The standard error and interval.

    Raises
    ------
    InvalidParameterError
        An unknown ``ci``, ``confidence`` outside (0, 1), ``n_resamples`` < 2, an invalid
        ``seed``, or fewer than two items with annotations.

    References
    ----------
    Efron, B. (1979). Bootstrap methods: another look at the jackknife. *The Annals of
    Statistics* 7(1), 1–26. doi:10.1214/aos/1176344552

    Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the American
    Statistical Association* 82(397), 171–185. doi:10.1080/01621459.1987.10478410

    Rubin, D. B. (1981). The Bayesian bootstrap. *The Annals of Statistics* 9(1), 130–134.
    doi:10.1214/aos/1176345338

    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics.

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> core = alpha_core(kl.datasets.load("worked_example"))  # α = 0.5782, 10 items
    >>> round(interval(core, "analytic").high, 4)
    0.9829
    >>> interval(core, "jackknife").high  # 0.5782 + 2.262·0.1899 = 1.0078, capped at 1
    1.0
    """
    method, kind = parse_ci(ci)
    if method == "analytic":
        result = analytic_interval(core, confidence)
    else:
        result = resampling_interval(core, method,
                                     interval=kind if kind != "t" else "percentile",
                                     n_resamples=n_resamples, confidence=confidence, seed=seed,
                                     progress=progress)
    bound = getattr(core, "upper_bound", None)
    if kind == "t" and bound is not None and result.high > bound:
        # a symmetric θ̂ ± t·SE can pass the coefficient's largest possible value (1 for
        # every agreement coefficient); the interval stops there, as irrCAC's does
        result = replace(result, high=float(bound))
    return result


# ------------------------------------------------------------------------ front end
def bootstrap(estimator: Callable, *data: Any, n_resamples: int = 2000,
              method: str = "percentile", confidence: float = 0.95, seed: Any = None,
              **options: Any):
    """Bootstrap any kappalab estimator: its value with the item-bootstrap SE and interval.

    ``estimator`` is a kappalab function (``kl.krippendorff_alpha``, ``kl.cross_kappa``, …),
    ``data`` its positional data arguments and ``options`` its other keywords; ``method`` is
    ``"percentile"``, ``"basic"`` or ``"bca"``. Equivalent to
    ``estimator(*data, ci="bootstrap" | "bootstrap-basic" | "bootstrap-bca", …)``.

    Parameters
    ----------
    estimator : callable
        A kappalab estimator taking ``ci=``, ``n_resamples=``, ``confidence=`` and ``seed=``.
    *data : Any
        The estimator's positional data arguments.
    n_resamples : int, default 2000
        The number of bootstrap replicates (≥ 2).
    method : {"percentile", "basic", "bca"}, default "percentile"
        The bootstrap interval.
    confidence : float, default 0.95
        The confidence level, in (0, 1).
    seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        The random seed (:func:`kappalab.validation.make_rng`).
    **options : Any
        The estimator's other keywords (not ``ci``).

    Returns
    -------
    Estimate
        What ``estimator`` returns, with ``se`` and ``ci`` set.

    Raises
    ------
    InvalidParameterError
        An unknown ``method``, or ``ci`` among ``options``; and whatever ``estimator``
        raises for its arguments.

    References
    ----------
    Efron, B. (1979). Bootstrap methods: another look at the jackknife. *The Annals of
    Statistics* 7(1), 1–26. doi:10.1214/aos/1176344552

    Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the American
    Statistical Association* 82(397), 171–185. doi:10.1080/01621459.1987.10478410

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.uncertainty import bootstrap
    >>> ann, _ = kl.simulate.annotations(300, reliability=0.7, seed=0)
    >>> est = bootstrap(kl.fleiss_kappa, ann, n_resamples=500, method="bca", seed=1)
    >>> est.ci[0] < est.value < est.ci[1]
    True
    >>> round(bootstrap(kl.fleiss_kappa, kl.datasets.load("worked_example"), seed=0).value, 4)
    0.5636
    """
    names = {"percentile": "bootstrap", "basic": "bootstrap-basic", "bca": "bootstrap-bca"}
    if method not in names:
        raise InvalidParameterError(
            f"unknown bootstrap method {method!r}; choose one of {', '.join(names)}")
    if "ci" in options:
        raise InvalidParameterError("bootstrap() sets ci= itself; pass method= instead")
    return estimator(*data, ci=names[method], n_resamples=n_resamples, confidence=confidence,
                     seed=seed, **options)

