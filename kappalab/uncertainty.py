r"""Standard errors and intervals on the item-sum spine: analytic (linearisation), bootstrap,
Bayesian bootstrap, jackknife; and Krippendorff's bootstrap of α's pairable values.

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
* **asymptotic** (``ci="asymptotic"``): the same influences with divisor n and a normal
  interval, the large-sample convention of Fleiss, Cohen & Everitt (1969) that SAS PROC FREQ
  ("ASE") and statsmodels' ``cohens_kappa`` report:

  .. math::  \widehat{\operatorname{Var}}_{\text{asy}}(θ̂) = \frac{1}{n^2} \sum_i IF_i^2 ,
             \qquad θ̂ \pm z_{1-a/2}\, \mathrm{SE}_{\text{asy}},

  i.e. the analytic SE times √((n − 1)/n). For Cohen's κ (weighted or not) it is SAS's ASE
  to the last digit; the estimate's z and p-value then use the normal distribution too.
* **Gwet's formula** (``ci="gwet"``, the coefficients that average an agreement over the
  items with two or more annotations: Fleiss', Conger's, Cohen's κ, Scott's π, Gwet's AC,
  Brennan–Prediger, Bennett's S, percent agreement). Gwet (2014) treats the number n₂ of
  pairable items as fixed and divides each item's agreement by n₂/n, which adds to every
  influence a term in the value θ̂:

  .. math::  IF_i^{\text{Gwet}} = IF_i + θ̂ \Big(\frac{n\, u_i}{T_u} - 1\Big),

  u_i the item's weight in the observed agreement (1 for a pairable item, 0 for a singly
  rated one; its sample weight with ``sample_weight=``) and T_u = Σ u_i (n₂ unweighted); the
  variance is Σ (IF_i^Gwet)²/(n(n − 1)) and the interval θ̂ ± t_{n−1} SE, as irrCAC computes
  them. The term sums to zero and vanishes when every annotated item is pairable, so there
  the two are equal; with singly-rated items Gwet's SE is larger. The coverage study of the
  conventions (``experiments/se_conventions.py``; docs/guide/uncertainty.md,
  "Standard-error conventions") found Gwet's 95% intervals covering 95.2–99.9% on designs
  with singly-rated items, at every number of items, and the linearisation's 94.0–96.3% from
  200 items on, which is why ``"analytic"`` stays the linearisation.
* **item bootstrap** (Efron 1979): totals ``W @ S`` with W the B × n multinomial counts of n
  draws with replacement; intervals ``percentile`` (the α/2 and 1 − α/2 quantiles of the
  replicates), ``basic`` (2θ̂ − those quantiles) or ``bca`` (bias-corrected and accelerated,
  Efron 1987, with the jackknife acceleration).
* **Bayesian bootstrap** (Rubin 1981): W = n · Dirichlet(1, …, 1) weights; percentile interval.
* **jackknife**: leave-one-item-out totals ``T − s_i``; SE = √((n−1)/n · Σ (θ_(i) − θ̄)²),
  interval θ̂ ± t_{n−1} SE (capped as the analytic one).

* **Krippendorff's bootstrap** (``ci="krippendorff"``, Krippendorff's α only; Hayes &
  Krippendorff 2007): not a resampling of items but of the *pairable values*, described next.

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

Krippendorff's bootstrap
------------------------
Hayes & Krippendorff (2007) bootstrap α from the coincidence matrix of the pairable values
(their KALPHA macro). As reconstructed here (:func:`krippendorff_replicates`): the coincidence
matrix o_ck = Σ_u n_uc (n_uk − [c = k])/(m_u − 1) over the units with m_u ≥ 2 values gives
each unordered pair type {c, k} the probability p = (2 − [c = k]) o_ck / n.., n.. = Σ_u m_u
(:class:`PairableValues`). A replicate draws, for each unit size m_g, the M_g = (units of
that size)·m_g(m_g − 1)/2 pairs those units hold, independently from p, each weighted as a
pair of such a unit weighs in the coincidence matrix, w_g = 2/((m_g − 1) n..); then
D_o* = Σ_g w_g Σ_j δ_j and α* = 1 − D_o*/D_e with D_e held at its value on the data. So
E[D_o*] = D_o and Var(α*) = Var_p(δ) Σ_g M_g w_g² / D_e², before two conventions of the macro
that change only extreme replicates: a replicate below −1 is set
to −1 and one whose pairs are all of a single same-value type (no variation: α
indeterminate) to 0. The interval is the percentile interval of the
replicates, SE their standard deviation, and q(α_min), the probability of failing to reach a
smallest acceptable α, the share of replicates below α_min.

How this reconstruction relates to the published algorithm. Hayes & Krippendorff (2007)
describe resampling pairs of values from the coincidence matrix with D_e fixed and report q;
the port of the macro's algorithm in the R package kripp.boot draws M = min(25·(non-zero
cells of the coincidence matrix), (m − 1)·n../2) pairs, m the number of coders, all of one
weight 1/M, and resets to 0 an expected number, round(B Σ_c (o_cc/n..)^M), of the replicates
equal to 1. Here M_g counts the pairs the units actually hold (with missing values
(m − 1)·n../2 over-counts them), each pair keeps the weight of its unit size, nothing is
capped at 25 per cell (the cap widens the distribution on large data), and the replicates
without variation are found and reset exactly. With every unit holding m values and M below
the cap the two coincide. No comparison with KALPHA's own output has been made.

How it differs from the item bootstrap: it treats the pairable values as independent draws
from the coincidence distribution. The values of a unit are not resampled together, so
whatever makes the pairs of one unit agree or disagree together (units that differ in
difficulty) is not in its spread, and D_e does not vary. Where units differ, it can therefore
understate the uncertainty the item resampling above accounts for; with two values per unit
every pair is its own unit and the two nearly agree.

With sample weights (``sample_weight=``) the rows are w_i s_i
(:class:`~kappalab.coefficients.base.ItemSumCoefficient`) and everything above applies to them
unchanged: the items stay the resampling units (an item of weight 0 is an all-zero row and
takes no part), so n is the number of items with a positive weight, not Σ w_i.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable, Collection, Mapping

import numpy as np

from .errors import InvalidParameterError
from .estimate import Estimate
from .kernels import column_totals, distinct_rows, issparse, single_blas_thread
from .progress import track
from .protocols import ItemStats, ItemSumCore
from .validation import SeedLike, check_confidence, check_count, check_real, make_rng

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from .kernels import sp

__all__ = ["ALPHA_MIN", "ANALYTIC", "BLOCK_CELLS", "CORE_METHODS", "F_INTERVAL", "Interval",
           "IntervalOptions", "CI_METHODS", "KRIPPENDORFF", "PairableValues",
           "analytic_interval", "bootstrap", "check_alpha_min",
           "gwet_design", "krippendorff_interval", "krippendorff_replicates",
           "influence_values", "rows_with_statistics",
           "interval", "parse_ci", "replicate_values", "resampling_interval",
           "unsupported_method"]

#: rows × columns of one stacked block of totals (bounds the memory of resampling and of the
#: complex-step gradient)
BLOCK_CELLS = 4_000_000
RESAMPLING = ("bootstrap", "bayesian-bootstrap", "jackknife")
INTERVALS = ("percentile", "basic", "bca")
#: the names ``ci=`` takes on every estimator: (method, interval)
CI_METHODS = {
    "analytic": ("analytic", "t"),
    "asymptotic": ("asymptotic", "normal"),
    "gwet": ("gwet", "t"),
    "bootstrap": ("bootstrap", "percentile"),
    "bootstrap-basic": ("bootstrap", "basic"),
    "bootstrap-bca": ("bootstrap", "bca"),
    "bayesian-bootstrap": ("bayesian-bootstrap", "percentile"),
    "jackknife": ("jackknife", "t"),
}
#: the ``ci=`` names computed from the influences, without resampling
#: (:func:`analytic_interval`): the linearisation, its asymptotic (divisor n, normal)
#: convention and Gwet's formula
ANALYTIC = ("analytic", "asymptotic", "gwet")
#: ``ci=`` of :func:`~kappalab.krippendorff_alpha` alone: Krippendorff's bootstrap of the
#: pairable values (:func:`krippendorff_interval`), not a resampling of items
KRIPPENDORFF = "krippendorff"
#: Krippendorff's (2004, ch. 11.4) smallest acceptable α for tentative conclusions and for
#: reliable data: the default ``alpha_min`` of ``ci="krippendorff"``
ALPHA_MIN = (0.667, 0.800)
#: ``ci=`` of :func:`~kappalab.icc` alone: the F interval of the two-way ANOVA
F_INTERVAL = "F"
#: the ``ci=`` names a core supplies itself rather than the spine
#: (``ItemSumCoefficient.interval_methods``): name → (what it is, the coefficients that have
#: it, the call that gives it), for the one message that refuses it elsewhere
CORE_METHODS = {
    KRIPPENDORFF: ("Krippendorff's bootstrap of pairable values", "Krippendorff's alpha",
                   "kl.krippendorff_alpha(..., ci='krippendorff')"),
    F_INTERVAL: ("the F interval of the two-way ANOVA", "the ICC", "kl.icc(..., ci='F')"),
}


@dataclass(frozen=True)
class Interval:
    """A standard error and confidence interval, with how they were obtained.

    Parameters
    ----------
    se : float or None
        The standard error (NaN when fewer than two replicates are finite; None for a method
        that gives none, the F interval).
    low, high : float
        The ends of the confidence interval.
    method : str
        ``"analytic"``, ``"asymptotic"``, ``"gwet"``, ``"bootstrap"``,
        ``"bayesian-bootstrap"``, ``"jackknife"`` or ``"krippendorff"``.
    interval : str
        ``"t"`` (θ̂ ± t_{n−1} SE), ``"normal"`` (θ̂ ± z SE), ``"percentile"``, ``"basic"`` or
        ``"bca"``.
    n_resamples : int
        The number of bootstrap replicates; for the analytic methods and ``"jackknife"`` the
        number of items n.
    confidence : float
        The confidence level, in (0, 1).
    details : mapping, default {}
        What the method adds to the estimate's ``details`` (Krippendorff's bootstrap: its
        ``ci_method``, ``n_resamples`` and ``q``).

    Examples
    --------
    >>> result = Interval(0.1, 0.3, 0.7, "analytic", "t", 50, 0.95)
    >>> result.high - result.low  # doctest: +ELLIPSIS
    0.39999...
    """

    se: float | None
    low: float
    high: float
    method: str
    interval: str
    n_resamples: int
    confidence: float
    details: Mapping[str, Any] = field(default_factory=dict)


def parse_ci(ci: str) -> tuple[str, str]:
    """(method, interval) of an estimator's ``ci=`` name; a clear error for anything else.

    Parameters
    ----------
    ci : str
        A name of :data:`CI_METHODS`: ``"analytic"``, ``"asymptotic"``, ``"gwet"``,
        ``"bootstrap"``, ``"bootstrap-basic"``, ``"bootstrap-bca"``, ``"bayesian-bootstrap"``
        or ``"jackknife"``.

    Returns
    -------
    method, interval : str
        The resampling method (or one of :data:`ANALYTIC`) and the kind of interval.

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
    >>> parse_ci("asymptotic")  # SAS PROC FREQ's ASE: divisor n, normal interval
    ('asymptotic', 'normal')
    """
    if isinstance(ci, str) and ci in CI_METHODS:
        return CI_METHODS[ci]
    if isinstance(ci, str) and ci in CORE_METHODS:
        raise InvalidParameterError(unsupported_method(ci))
    raise InvalidParameterError(f"unknown ci {ci!r}; choose one of {ci_choices()}")


def unsupported_method(ci: str) -> str:
    """The one line that refuses a name of :data:`CORE_METHODS` where the coefficient does
    not supply it.

    Parameters
    ----------
    ci : str
        A name of :data:`CORE_METHODS`.

    Returns
    -------
    str

    Examples
    --------
    >>> unsupported_method("F")  # doctest: +ELLIPSIS
    "ci='F' (the F interval of the two-way ANOVA) is defined for the ICC only: use kl.icc(..."
    """
    what, who, call = CORE_METHODS[ci]
    return (f"ci={ci!r} ({what}) is defined for {who} only: use {call}, or an item-resampling "
            "interval here, e.g. ci='bootstrap'")


def ci_choices() -> str:
    """The names ``ci=`` takes, in words: :data:`CI_METHODS` and those of
    :data:`CORE_METHODS` with the coefficients that have them (the one list, for messages
    and the command line's help).

    Examples
    --------
    >>> ci_choices()  # doctest: +ELLIPSIS
    "'analytic', ..., 'krippendorff' (Krippendorff's alpha only), or 'F' (the ICC only)"
    """
    own = [f"{name!r} ({who} only)" for name, (_, who, _) in CORE_METHODS.items()]
    return f"{', '.join([*map(repr, CI_METHODS), *own[:-1]])}, or {own[-1]}"


@dataclass(frozen=True)
class IntervalOptions:
    """The interval options of an estimator, checked once: what ``ci=``, ``n_resamples=``,
    ``confidence=``, ``seed=``, ``progress=`` (and Krippendorff's ``alpha_min=``) of every
    estimator and report build at the door (:meth:`IntervalOptions.of`) and pass down to the
    uncertainty code.

    Build it with :meth:`of`, which validates; the constructor does not.

    Parameters
    ----------
    ci : str or None, default None
        The interval method: a name of :data:`CI_METHODS` or of :data:`CORE_METHODS`; None:
        no interval (the other options are then not used, and not checked).
    n_resamples : int, default 2000
        The number of replicates of the resampling methods (≥ 2).
    confidence : float, default 0.95
        The confidence level, in (0, 1).
    seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        The random seed (:func:`kappalab.validation.make_rng`), kept as given: each method
        makes its generator from it, as it would from the estimator's ``seed=``.
    progress : bool or None, default None
        Show the progress of resampling that outlasts 2 s on stderr (None: when stderr is a
        terminal or a notebook; :mod:`kappalab.progress`).
    alpha_min : tuple of float, default (0.667, 0.800)
        With ``ci="krippendorff"``: the smallest acceptable α values whose probability of not
        being reached Krippendorff's bootstrap reports (:func:`krippendorff_interval`).

    Examples
    --------
    >>> options = IntervalOptions.of("bootstrap", n_resamples=500.0, seed=1)
    >>> options.ci, options.n_resamples, options.confidence, options.method
    ('bootstrap', 500, 0.95, ('bootstrap', 'percentile'))
    >>> IntervalOptions.of("bootstrap", confidence=95)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: confidence must be in (0.0, 1.0), got 95.0
    """

    ci: str | None = None
    n_resamples: int = 2000
    confidence: float = 0.95
    seed: SeedLike = None
    progress: bool | None = None
    alpha_min: tuple[float, ...] = ALPHA_MIN

    @classmethod
    def of(cls, ci: str | None = None, *, n_resamples: Any = 2000, confidence: Any = 0.95,
           seed: SeedLike = None, progress: bool | None = None, alpha_min: Any = None,
           methods: Collection[str] | None = None) -> "IntervalOptions":
        """The options, each checked once (with ``ci`` None only ``alpha_min``).

        Parameters
        ----------
        ci : str or None
            A name of :data:`CI_METHODS`, or of :data:`CORE_METHODS` that ``methods``
            allows; None: no interval.
        n_resamples : int, default 2000
            ≥ 2 (a float with an integer value is accepted).
        confidence : float, default 0.95
            In (0, 1).
        seed : None, int, sequence of int, SeedSequence or Generator
            Checked by :func:`kappalab.validation.make_rng`, kept as given.
        progress : bool or None, default None
            Passed on.
        alpha_min : float or sequence of float, optional
            Krippendorff's smallest acceptable α values (:func:`check_alpha_min`), only with
            ``ci="krippendorff"``; None: (0.667, 0.800).
        methods : collection of str, optional
            The names of :data:`CORE_METHODS` the coefficient behind the options supplies
            (its ``interval_methods``); a name of :data:`CORE_METHODS` not among them is
            refused with :func:`unsupported_method`'s line. None (a report, whose rows
            differ): every name of :data:`CORE_METHODS`.

        Returns
        -------
        IntervalOptions

        Raises
        ------
        InvalidParameterError
            An unknown ``ci`` or one the coefficient does not supply, ``n_resamples`` < 2,
            ``confidence`` outside (0, 1), an invalid ``seed``, or ``alpha_min`` without
            ``ci="krippendorff"`` or not numbers in [−1, 1].

        Examples
        --------
        >>> IntervalOptions.of("F", confidence=0.9).confidence
        0.9
        >>> IntervalOptions.of("F", methods=())  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        kappalab.errors.InvalidParameterError: ci='F' (...) is defined for the ICC only: ...
        """
        if alpha_min is not None and ci != KRIPPENDORFF:
            raise InvalidParameterError(
                "alpha_min= gives the probability of failing to reach alpha_min under "
                "Krippendorff's bootstrap; it needs ci='krippendorff'")
        if ci is None:
            return cls(None, n_resamples, confidence, seed, progress)
        supplied = isinstance(ci, str) and (ci in CORE_METHODS if methods is None
                                            else ci in methods)
        if not supplied:
            parse_ci(ci)  # a name of CI_METHODS, or one line that says why not
        n_resamples = check_count(n_resamples, "n_resamples", minimum=2)
        confidence = check_confidence(confidence)
        thresholds = check_alpha_min(ALPHA_MIN if alpha_min is None else alpha_min)
        if seed is not None:  # None is always valid (fresh entropy): no generator made
            make_rng(seed)
        return cls(ci, n_resamples, confidence, seed, progress, thresholds)

    @property
    def method(self) -> tuple[str, str] | None:
        """(method, interval) of a name of :data:`CI_METHODS` (:func:`parse_ci`); None
        without ``ci`` or for a name the coefficient supplies itself."""
        return CI_METHODS.get(self.ci) if self.ci is not None else None

    @property
    def resampling(self) -> dict[str, Any]:
        """``n_resamples``, ``confidence``, ``seed`` and ``progress`` as keywords, for the
        functions that take them one by one."""
        return {"n_resamples": self.n_resamples, "confidence": self.confidence,
                "seed": self.seed, "progress": self.progress}


def _t_quantile(p: float, df: float) -> float:
    """The p-quantile of Student's t with ``df`` degrees of freedom.

    ``scipy.stats.t.ppf(p, df)`` computes it with ``scipy.special.stdtrit(df, p)`` after
    checking and broadcasting its arguments, which costs more than the quantile itself;
    this calls the special function for p in (0, 1) and df > 0 (the same number), and
    ``scipy.stats`` otherwise (its NaN or infinite edges).

    Parameters
    ----------
    p : float
        The probability.
    df : float
        The degrees of freedom.

    Returns
    -------
    float
        The quantile.

    Examples
    --------
    >>> round(_t_quantile(0.975, 9), 4)   # the 95 % interval of 10 items: θ̂ ± 2.2622·SE
    2.2622
    """
    if 0.0 < p < 1.0 and df > 0:
        from scipy.special import stdtrit  # imported on first use (start-up)
        return float(stdtrit(df, p))
    from scipy.stats import t as student_t  # imported where used: scipy.stats is slow
    return float(student_t.ppf(p, df))


def _value(core: ItemSumCore, totals: np.ndarray) -> np.ndarray:
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
        if issparse(self.rows):
            return np.asarray((self.rows.T @ weights.T).T)
        totals: np.ndarray = weights @ self.rows
        return totals


def rows_with_statistics(stats: ItemStats) -> np.ndarray:
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
    if issparse(stats):  # a stored explicit zero is not an entry
        stats = sp.csr_matrix(stats)
        row = np.repeat(np.arange(stats.shape[0]), np.diff(stats.indptr))
        return np.bincount(row[stats.data != 0], minlength=stats.shape[0]) > 0
    with_entry: np.ndarray = (np.asarray(stats, dtype=float) != 0).any(axis=1)
    return with_entry


def _groups(core: ItemSumCore, merge: bool = True) -> _Groups:
    """The item-statistic rows of the items with annotations; with ``merge``, identical rows
    merged into groups (worth it for resampling; the linearisation needs one matrix-vector
    product and no grouping)."""
    with single_blas_thread():  # the cores' products are skinny (kernels.single_blas_thread)
        stats = core.item_stats()
    if issparse(stats):  # sparse blocks (rater × category indicators) are not merged
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
def _group_influence(core: ItemSumCore, groups: _Groups) -> np.ndarray:
    """IF = n ∇f(T)·(s − T/n) of each distinct item-statistics row."""
    with single_blas_thread():  # G × s rows: skinny products
        totals = np.asarray(groups.counts @ groups.rows, dtype=float).ravel()
        contributions = np.asarray(groups.rows @ core.value_gradient(totals),
                                   dtype=float).ravel()
    n = groups.n_items
    influence: np.ndarray = n * (contributions - (groups.counts @ contributions) / n)
    return influence


def influence_values(core: ItemSumCore) -> np.ndarray:
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
    influence: np.ndarray = _group_influence(core, groups)[groups.of_item]
    return influence


def gwet_design(core: ItemSumCore) -> tuple[int, np.ndarray]:
    """What Gwet's (2014) variance needs of ``core``: the column of its item statistics that
    his formula holds fixed, and which rows are his units.

    The column holds u_i, the item's weight in the observed agreement (1 for an item with two
    or more annotations, 0 for a singly-rated one, times its sample weight), whose total
    Gwet's formula treats as a constant (``ci="gwet"``, :func:`analytic_interval`); his units
    are the items with an annotation (and a positive sample weight), singly-rated ones
    included even where their row of statistics is zero (Brennan–Prediger, percent
    agreement). A core declares both by its ``gwet_design()``; the cores without one
    (Krippendorff's α, κx, SPA, Light's κ, …) have no such formula.

    Parameters
    ----------
    core : ItemSumCoefficient
        The coefficient bound to its data (:mod:`kappalab.coefficients.base`).

    Returns
    -------
    column : int
        The position of the column of u_i.
    units : numpy.ndarray
        A boolean mask over the rows of the item statistics: Gwet's units.

    Raises
    ------
    InvalidParameterError
        The coefficient is not one Gwet's formula covers.

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core, fleiss_kappa_core
    >>> core = fleiss_kappa_core([[1, 1, 2], [2, 2, None], [1, None, None]])
    >>> column, units = gwet_design(core)  # the observed block: [u_i d_i, u_i, …]
    >>> column, units.tolist()
    (1, [True, True, True])
    >>> gwet_design(alpha_core(kl.datasets.load("worked_example")))
    ... # doctest: +ELLIPSIS, +NORMALIZE_WHITESPACE
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: ci='gwet' is Gwet's (2014) variance of the
    coefficients ... Krippendorff's alpha is not one of them: use ci='analytic' (the
    linearisation) or a resampling interval
    """
    finder = getattr(core, "gwet_design", None)
    design = finder() if callable(finder) else None
    if design is None:
        raise InvalidParameterError(
            "ci='gwet' is Gwet's (2014) variance of the coefficients that average agreement "
            "over the items with two or more annotations (Fleiss', Conger's and Cohen's kappa, "
            "Scott's pi, Gwet's AC1/AC2, Brennan-Prediger, Bennett's S, percent agreement); "
            f"{getattr(core, 'name', 'this coefficient')} is not one of them: use "
            "ci='analytic' (the linearisation) or a resampling interval")
    column, units = design
    return int(column), np.asarray(units, dtype=bool)


def _estimated_totals(core: ItemSumCore) -> np.ndarray:
    """T = Σ_i w_i s_i: those the core's estimate summed already (``estimated_totals``, kept
    by ``estimate_with``), else summed now."""
    totals = getattr(core, "estimated_totals", None)
    return core.totals() if totals is None else np.asarray(totals, dtype=float)


def _gwet_influence(core: ItemSumCore) -> np.ndarray:
    """Gwet's per-unit terms IF_i + θ̂(n u_i/T_u − 1) over his n units (:func:`gwet_design`).

    When every row is a unit (no item without annotations, no sample weight of 0), the rows
    are used as they are, with the totals of the estimate: no copy of the rows and no second
    sum over them."""
    column, units = gwet_design(core)
    with single_blas_thread():
        stats = core.item_stats()
        stats = sp.csr_matrix(stats) if issparse(stats) else np.asarray(stats, dtype=float)
        every = bool(units.all()) and units.size == stats.shape[0]
        if not every:
            stats = stats[units]
        n = stats.shape[0]
        if n < 2:
            raise InvalidParameterError(
                f"an interval needs at least two items with annotations, got {n}")
        # the rows that are not units are all-zero (no annotation, or weight 0): the totals
        # over the units are the estimate's
        totals = _estimated_totals(core) if every else column_totals(stats)
        gradient = core.value_gradient(totals)
        contributions = np.asarray(stats @ gradient, dtype=float).ravel()
    value = float(_value(core, totals).reshape(-1)[0])
    u = _column(stats, column)
    terms: np.ndarray = (n * contributions - float(gradient @ totals)
                         + value * (u * (n / totals[column]) - 1.0))
    return terms


def _column(rows: np.ndarray | sp.csr_matrix, column: int) -> np.ndarray:
    if issparse(rows):
        return np.asarray(rows[:, [column]].toarray(), dtype=float).ravel()
    return np.asarray(rows[:, column], dtype=float)


def analytic_interval(core: ItemSumCore, confidence: float = 0.95,
                      method: str = "analytic") -> Interval:
    r"""The standard error and interval from the items' influences, without resampling.

    With IF_i the linearised influences of the n items with annotations
    (:func:`influence_values`):

    * ``"analytic"``: SE² = Σ IF_i² / (n(n − 1)), interval θ̂ ± t_{n−1} SE;
    * ``"asymptotic"``: SE² = Σ IF_i² / n², interval θ̂ ± z_{1−a/2} SE (Fleiss, Cohen &
      Everitt 1969; SAS PROC FREQ's ASE, statsmodels' ``std_kappa``);
    * ``"gwet"``: Gwet's (2014) formula, which holds the total T_u of the items' weights
      u_i in the observed agreement fixed (:func:`gwet_design`),

      .. math::  \mathrm{SE}^2 = \frac{1}{n(n-1)} \sum_i
                 \Big(IF_i + θ̂ \big(\tfrac{n u_i}{T_u} - 1\big)\Big)^2 ,

      over his n units, every item with an annotation (the influences IF_i taken with that
      n), interval θ̂ ± t_{n−1} SE (irrCAC's).

    The interval is not capped here (:func:`interval` caps it at the coefficient's upper
    bound).

    Parameters
    ----------
    core : ItemSumCoefficient
        The coefficient bound to its data (:mod:`kappalab.coefficients.base`).
    confidence : float, default 0.95
        The confidence level, in (0, 1).
    method : {"analytic", "asymptotic", "gwet"}, default "analytic"
        The convention (:data:`ANALYTIC`).

    Returns
    -------
    Interval
        ``method`` as given, ``interval`` ``"t"`` (``"normal"`` for ``"asymptotic"``),
        ``n_resamples`` the number of items n.

    Raises
    ------
    InvalidParameterError
        An unknown ``method``, ``confidence`` outside (0, 1), fewer than two items with
        annotations, or ``"gwet"`` for a coefficient his formula does not cover.

    References
    ----------
    Gwet, K. L. (2014). *Handbook of Inter-Rater Reliability* (4th ed.). Advanced Analytics,
    ch. 5.

    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa
    and weighted kappa. *Psychological Bulletin* 72(5), 323–327. doi:10.1037/h0028106

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> core = alpha_core(kl.datasets.load("worked_example"))  # α = 0.5782, 10 items
    >>> result = analytic_interval(core)
    >>> round(result.se, 4), round(result.low, 4), round(result.high, 4)  # 0.5782 ± 2.262·SE
    (0.1789, 0.1735, 0.9829)
    >>> asymptotic = analytic_interval(core, method="asymptotic")  # SE·√(9/10), ± 1.96·SE
    >>> round(asymptotic.se, 4), round(asymptotic.low, 4), asymptotic.interval
    (0.1697, 0.2455, 'normal')
    """
    if method not in ANALYTIC:
        raise InvalidParameterError(f"unknown analytic method {method!r}; choose one of "
                                    f"{', '.join(ANALYTIC)}")
    confidence = check_confidence(confidence)
    estimate = float(_value(core, _estimated_totals(core)).reshape(-1)[0])
    if method == "gwet":  # Gwet: over his units, the total of u_i held fixed
        influence = _gwet_influence(core)
        n, squares = influence.size, float(influence @ influence)
    else:
        groups = _groups(core, merge=False)
        _require_items(groups)
        influence, n = _group_influence(core, groups), groups.n_items
        squares = float(groups.counts @ influence ** 2)
    return influence_interval(estimate, squares, n, method, confidence)


def influence_interval(estimate: float, squares: float, n: int, method: str,
                       confidence: float) -> Interval:
    r"""The linearised interval from the sum of squared influences Σ IF_i² over n units:
    SE² = Σ IF²/(n(n − 1)) and θ̂ ± t_{n−1, (1+c)/2}·SE, or for ``method="asymptotic"``
    SE² = Σ IF²/n² and θ̂ ± z_{(1+c)/2}·SE (:func:`analytic_interval`, which every analytic
    interval computed from other sums shares, e.g. Cohen's κ summed by cell of its table).

    Examples
    --------
    >>> result = influence_interval(0.5, 9.0, 10, "analytic", 0.95)  # SE = √(9/90)
    >>> round(result.se, 4), round(result.low, 4), result.interval
    (0.3162, -0.2154, 't')
    """
    if method == "asymptotic":
        se = float(np.sqrt(squares)) / n
        from scipy.special import ndtri  # imported on first use (start-up)

        quantile, kind = float(ndtri(0.5 + confidence / 2)), "normal"
    else:
        se = float(np.sqrt(squares / (n * (n - 1))))
        quantile, kind = _t_quantile(0.5 + confidence / 2, n - 1), "t"
    half = quantile * se
    return Interval(se, estimate - half, estimate + half, method, kind, n, confidence)


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
    scaled: np.ndarray = weights * (n / weights.sum(axis=1, keepdims=True))
    return scaled


def _jackknife(core: ItemSumCore, groups: _Groups, progress: bool | None = None) -> np.ndarray:
    """Leave-one-item-out values, one per group."""
    rows = groups.rows
    totals = np.asarray(groups.counts @ rows, dtype=float).ravel()
    values = np.empty(rows.shape[0])
    block = max(1, BLOCK_CELLS // max(1, rows.shape[1]))
    starts = range(0, rows.shape[0], block)
    for start in track(starts, f"kappalab: jackknife of {core.name}", quiet=progress is False,
                       force=progress is True):
        part = rows[start:start + block]
        part = part.toarray() if issparse(part) else part  # one block dense at a time
        values[start:start + block] = _value(core, totals[None, :] - part)
    return values


def replicate_values(core: ItemSumCore, method: str = "bootstrap", n_resamples: int = 2000,
                     seed: SeedLike = None) -> np.ndarray:
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
        per_item: np.ndarray = _jackknife(core, groups)[groups.of_item]
        return per_item
    return _replicates(core, groups, method, n_resamples, seed)


def _replicates(core: ItemSumCore, groups: _Groups, method: str, n_resamples: int, seed: SeedLike,
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
        with single_blas_thread():  # B × G times G × s: s a handful of columns
            totals = groups.totals(weights)
        values.append(_value(core, totals))
    return np.concatenate(values)


def resampling_interval(core: ItemSumCore, method: str = "bootstrap", *,
                        interval: str = "percentile", n_resamples: int = 2000,
                        confidence: float = 0.95, seed: SeedLike = None,
                        progress: bool | None = None) -> Interval:
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
    from scipy.stats import t as student_t
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


def _bca(core: ItemSumCore, groups: _Groups, estimate: float, replicates: np.ndarray,
         tail: float, progress: bool | None = None) -> tuple[float, float]:
    """Efron's (1987) bias-corrected and accelerated percentile interval."""
    from scipy.special import ndtr, ndtri  # imported on first use (start-up)

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


# ------------------------------------------------------------------------ Krippendorff's bootstrap


@dataclass(frozen=True)
class PairableValues:
    r"""Krippendorff's coincidence distribution of a data set's pairable values: what
    ``ci="krippendorff"`` resamples (:func:`krippendorff_replicates`).

    The coincidence matrix o_ck = Σ_u n_uc (n_uk − [c = k]) / (m_u − 1), summed over the units
    u with m_u ≥ 2 values, totals n.. = Σ_u m_u; its distinct unordered pair types t = {c, k}
    (c ≤ k, o_ck > 0) are drawn with probability p_t = (2 − [c = k]) o_ck / n.., so that
    D_o = Σ_t p_t δ_t.

    Parameters
    ----------
    delta : numpy.ndarray
        δ_t, the distance of each pair type (T values).
    probability : numpy.ndarray
        p_t, summing to 1 (T values).
    same_value : numpy.ndarray
        Whether pair type t pairs a value with itself (c = k; T booleans).
    unit_sizes : numpy.ndarray
        The distinct numbers of values m of the pairable units (G values, each ≥ 2).
    units : numpy.ndarray
        How many units have each size (G counts).
    expected : float
        D_e, the expected disagreement, in the units of δ (held fixed).

    Examples
    --------
    >>> values = PairableValues(np.array([0.0, 1.0]), np.array([0.5, 0.5]),
    ...                         np.array([True, False]), np.array([2]), np.array([4]), 0.5)
    >>> values.n_values, values.pairs.tolist(), values.pair_weights.tolist()  # 4 units of 2
    (8.0, [4.0], [0.25])
    >>> values.observed  # D_o = Σ p_t δ_t
    0.5
    """

    delta: np.ndarray
    probability: np.ndarray
    same_value: np.ndarray
    unit_sizes: np.ndarray
    units: np.ndarray
    expected: float

    @property
    def n_values(self) -> float:
        """n.. = Σ_u m_u, the pairable values."""
        return float(self.unit_sizes @ self.units)

    @property
    def pairs(self) -> np.ndarray:
        """M_g = (units of size m_g) · m_g(m_g − 1)/2, the unordered value pairs of each size."""
        m = np.asarray(self.unit_sizes, dtype=float)
        pairs: np.ndarray = self.units * m * (m - 1) / 2
        return pairs

    @property
    def pair_weights(self) -> np.ndarray:
        """w_g = 2 / ((m_g − 1) n..): a pair's share of D_o in a unit of m_g values."""
        return 2.0 / ((np.asarray(self.unit_sizes, dtype=float) - 1) * self.n_values)

    @property
    def observed(self) -> float:
        """D_o = Σ_t p_t δ_t."""
        return float(self.probability @ self.delta)


def _pair_draws(rng: np.random.Generator, values: PairableValues,
                b: int) -> tuple[np.ndarray, np.ndarray]:
    """Σ_g w_g Σ_{j ≤ M_g} δ_{t_j} for b replicates, and which replicates drew one pair type
    only and that a same-value one (a resample without any variation)."""
    p, delta = values.probability, values.delta
    T = p.size
    disagreement = np.zeros(b)
    only = np.full(b, -1)  # the single pair type drawn so far; -2 once two differ
    for pairs, weight in zip(values.pairs.astype(np.int64), values.pair_weights):
        if pairs < T:  # fewer draws than pair types: draw the types of the M_g pairs
            drawn = rng.choice(T, size=(b, int(pairs)), p=p)
            disagreement += weight * delta[drawn].sum(axis=1)
            first = drawn[:, 0]
            single = (drawn == first[:, None]).all(axis=1)
        else:  # how many of the M_g pairs fall in each type
            counts = rng.multinomial(int(pairs), p, size=b)
            disagreement += weight * (counts @ delta)
            first = counts.argmax(axis=1)
            single = counts[np.arange(b), first] == pairs
        kind = np.where(single, first, -2)
        only = np.where(only == -1, kind, np.where(only == kind, only, -2))
    uniform = (only >= 0) & values.same_value[np.maximum(only, 0)]
    return disagreement, uniform


def krippendorff_replicates(values: PairableValues, n_resamples: int = 2000, seed: SeedLike = None,
                            progress: bool | None = None) -> np.ndarray:
    r"""Krippendorff's bootstrap of α: replicates drawn from the coincidence distribution of the
    pairable values, not by resampling units.

    Each replicate draws, for every unit size m_g, the M_g value pairs that the units of
    that size hold, independently from the coincidence distribution p_t of
    :class:`PairableValues`, and weighs each drawn pair as the coincidence matrix weighs a
    pair in a unit of m_g values:

    .. math::  α^* = 1 - \frac{D_o^*}{D_e}, \qquad
               D_o^* = \sum_g \frac{2}{(m_g - 1)\, n_{··}} \sum_{j=1}^{M_g} δ_{t_{gj}},
               \qquad t_{gj} \sim p ,

    with D_e held at its value on the data. E[D_o*] = D_o, so the replicates are centred on
    α̂; their variance is Var_p(δ) Σ_g M_g w_g² / D_e². All replicates are drawn at once:
    for each unit size the counts of the M_g pairs over the T pair types are one multinomial
    draw (or, when M_g < T, the M_g types themselves), in blocks of replicates, never pair by
    pair. Two conventions of Hayes & Krippendorff's (2007) KALPHA macro are kept: a replicate
    below −1 is set to −1, and a replicate whose pairs are all of one same-value type (no
    variation, where α would be indeterminate) is set to 0.

    Parameters
    ----------
    values : PairableValues
        The coincidence distribution (``ChanceCorrectedAgreement.pairable_values()``).
    n_resamples : int, default 2000
        The number of replicates B (≥ 2).
    seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        The random seed (:func:`kappalab.validation.make_rng`).
    progress : bool or None, default None
        Show the progress of resampling that outlasts 2 s on stderr (None: when stderr is a
        terminal or a notebook; :mod:`kappalab.progress`).

    Returns
    -------
    numpy.ndarray
        B replicate values of α, each in [−1, 1].

    Raises
    ------
    InvalidParameterError
        ``n_resamples`` < 2, an invalid ``seed``, or no pairable values.

    References
    ----------
    Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability
    measure for coding data. *Communication Methods and Measures* 1(1), 77–89.
    doi:10.1080/19312450709336664

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> values = alpha_core(kl.datasets.load("worked_example")).pairable_values()
    >>> draws = krippendorff_replicates(values, 20_000, seed=0)
    >>> round(1 - values.observed / values.expected, 4), round(float(draws.mean()), 2)
    (0.5782, 0.58)
    >>> exact = np.sqrt(values.probability @ (values.delta - values.observed) ** 2
    ...                 * (values.pairs @ values.pair_weights ** 2)) / values.expected
    >>> round(float(exact), 3), round(float(draws.std()), 2)  # the scheme's exact SD
    (0.128, 0.13)
    """
    n_resamples = check_count(n_resamples, "n_resamples", minimum=2)
    rng = make_rng(seed)
    if values.probability.size == 0 or not values.pairs.sum() > 0:
        raise InvalidParameterError("Krippendorff's bootstrap needs pairable values (units "
                                    "with two or more values); there are none")
    width = max(1, int(np.minimum(values.pairs, values.probability.size).max()))
    block = max(1, BLOCK_CELLS // width)
    replicates = []
    for start in track(range(0, n_resamples, block), "kappalab: Krippendorff's bootstrap",
                       quiet=progress is False, force=progress is True):
        b = min(block, n_resamples - start)
        disagreement, uniform = _pair_draws(rng, values, b)
        alpha = 1.0 - disagreement / values.expected
        alpha[uniform] = 0.0  # KALPHA: no variation in the resample, α indeterminate
        replicates.append(np.maximum(alpha, -1.0))  # KALPHA: α* below −1 counts as −1
    return np.concatenate(replicates)


def krippendorff_interval(values: PairableValues, *, n_resamples: int = 2000,
                          confidence: float = 0.95, alpha_min: Any = ALPHA_MIN,
                          seed: SeedLike = None, progress: bool | None = None
                          ) -> tuple[Interval, dict[float, float]]:
    """Krippendorff's bootstrap interval of α and the probability q of failing to reach each
    smallest acceptable α.

    SE = the standard deviation of the replicates of :func:`krippendorff_replicates`; the
    interval is their α/2 and 1 − α/2 quantiles (percentile); q(α_min) = the share of
    replicates below α_min (Hayes & Krippendorff 2007), one per ``alpha_min``.

    Parameters
    ----------
    values : PairableValues
        The coincidence distribution (``ChanceCorrectedAgreement.pairable_values()``).
    n_resamples : int, default 2000
        The number of replicates B (≥ 2).
    confidence : float, default 0.95
        The confidence level, in (0, 1).
    alpha_min : float or sequence of float, default (0.667, 0.800)
        The smallest acceptable α values, each in [−1, 1].
    seed : None, int, sequence of int, numpy.random.SeedSequence or numpy.random.Generator
        The random seed (:func:`kappalab.validation.make_rng`).
    progress : bool or None, default None
        Show the progress of resampling that outlasts 2 s on stderr.

    Returns
    -------
    interval : Interval
        ``method="krippendorff"``, ``interval="percentile"``.
    q : dict of float to float
        α_min → the share of replicates below it.

    Raises
    ------
    InvalidParameterError
        ``confidence`` outside (0, 1), ``alpha_min`` not numbers in [−1, 1], ``n_resamples``
        < 2, an invalid ``seed``, or no pairable values.

    References
    ----------
    Hayes, A. F., & Krippendorff, K. (2007). Answering the call for a standard reliability
    measure for coding data. *Communication Methods and Measures* 1(1), 77–89.
    doi:10.1080/19312450709336664

    Examples
    --------
    >>> import kappalab as kl
    >>> from kappalab.coefficients.multirater import alpha_core
    >>> values = alpha_core(kl.datasets.load("worked_example")).pairable_values()
    >>> result, q = krippendorff_interval(values, alpha_min=0.8, seed=0)
    >>> result.method, result.low < 0.5782 < result.high, 0.9 < q[0.8] < 1
    ('krippendorff', True, True)
    """
    confidence = check_confidence(confidence)
    thresholds = check_alpha_min(alpha_min)
    replicates = krippendorff_replicates(values, n_resamples, seed, progress)
    tail = (1 - confidence) / 2
    low, high = np.quantile(replicates, [tail, 1 - tail])
    q = {threshold: float((replicates < threshold).mean()) for threshold in thresholds}
    return (Interval(float(replicates.std(ddof=1)), float(low), float(high), "krippendorff",
                     "percentile", int(n_resamples), confidence), q)


def check_alpha_min(alpha_min: Any) -> tuple[float, ...]:
    """``alpha_min=`` as a tuple of distinct numbers in [−1, 1], in the order given.

    Parameters
    ----------
    alpha_min : float or sequence of float
        One smallest acceptable α or several.

    Returns
    -------
    tuple of float

    Raises
    ------
    InvalidParameterError
        An empty sequence, or a value that is not a finite number in [−1, 1].

    Examples
    --------
    >>> check_alpha_min(0.8), check_alpha_min([0.667, 0.8])
    ((0.8,), (0.667, 0.8))
    """
    if isinstance(alpha_min, (str, bytes)):
        raise InvalidParameterError(f"alpha_min must be a number in [-1, 1] or a sequence of "
                                    f"them, got {alpha_min!r}")
    many = np.ndim(alpha_min) > 0
    thresholds = list(alpha_min) if many else [alpha_min]
    if not thresholds:
        raise InvalidParameterError("alpha_min is empty; give one smallest acceptable alpha "
                                    "or several, e.g. alpha_min=(0.667, 0.8)")
    checked = [check_real(t, "alpha_min", low=-1.0, high=1.0) for t in thresholds]
    return tuple(dict.fromkeys(checked))


def interval(core: ItemSumCore, ci: "str | IntervalOptions", *, n_resamples: int = 2000,
             confidence: float = 0.95, seed: SeedLike = None,
             progress: bool | None = None) -> Interval:
    """The interval an estimator's ``ci=`` names (see :data:`CI_METHODS`).

    :func:`analytic_interval` or :func:`resampling_interval`; a symmetric interval
    (``"t"``: analytic, Gwet's, jackknife; ``"normal"``: asymptotic) has its upper end capped
    at the coefficient's ``upper_bound``. A name the core supplies itself (its
    ``interval_methods``, e.g. ``"krippendorff"`` for α, ``"F"`` for the ICC) is its own
    function of (core, options).

    Parameters
    ----------
    core : ItemSumCoefficient
        The coefficient bound to its data (:mod:`kappalab.coefficients.base`).
    ci : str or IntervalOptions
        A name of :data:`CI_METHODS`: ``"analytic"``, ``"asymptotic"``, ``"gwet"``,
        ``"bootstrap"``, ``"bootstrap-basic"``, ``"bootstrap-bca"``, ``"bayesian-bootstrap"``
        or ``"jackknife"``, or one of the core's ``interval_methods``; or the
        :class:`IntervalOptions` built at the estimator's door (the keywords below are then
        ignored).
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
        ``seed``, fewer than two items with annotations, or ``"gwet"`` for a coefficient
        Gwet's formula does not cover (:func:`gwet_design`).

    References
    ----------
    Efron, B. (1979). Bootstrap methods: another look at the jackknife. *The Annals of
    Statistics* 7(1), 1–26. doi:10.1214/aos/1176344552

    Efron, B. (1987). Better bootstrap confidence intervals. *Journal of the American
    Statistical Association* 82(397), 171–185. doi:10.1080/01621459.1987.10478410

    Rubin, D. B. (1981). The Bayesian bootstrap. *The Annals of Statistics* 9(1), 130–134.
    doi:10.1214/aos/1176345338

    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa
    and weighted kappa. *Psychological Bulletin* 72(5), 323–327. doi:10.1037/h0028106

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
    options = ci if isinstance(ci, IntervalOptions) else IntervalOptions(
        ci, n_resamples, confidence, seed, progress)  # checked where they are used
    if options.ci is None:
        raise InvalidParameterError("interval needs a ci= method; ci=None gives no interval")
    own = getattr(core, "interval_methods", {}).get(options.ci)
    if own is not None:
        supplied: Interval = own(core, options)
        return supplied
    method, kind = parse_ci(options.ci)
    if method in ANALYTIC:
        result = analytic_interval(core, options.confidence, method)
    else:
        result = resampling_interval(core, method,
                                     interval=kind if kind != "t" else "percentile",
                                     **options.resampling)
    bound = getattr(core, "upper_bound", None)
    if kind in ("t", "normal") and bound is not None and result.high > bound:
        # a symmetric θ̂ ± t·SE can pass the coefficient's largest possible value (1 for
        # every agreement coefficient); the interval stops there, as irrCAC's does
        result = replace(result, high=float(bound))
    return result


# ------------------------------------------------------------------------ front end
def bootstrap(estimator: Callable[..., Estimate], *data: Any, n_resamples: int = 2000,
              method: str = "percentile", confidence: float = 0.95, seed: SeedLike = None,
              **options: Any) -> Estimate:
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

