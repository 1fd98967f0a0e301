r"""The difference of one coefficient between two data sets, with its standard error and test.

Two rater pools on the same items, two versions of a guideline, an automatic judge's agreement
with the humans before and after a change: :func:`compare` computes one estimator on each data
set and tests θ_a = θ_b.

Every estimator is a closed form of item sums, θ̂ = f(T), T = Σ_i s_i
(docs/architecture.md, "The item-sum spine"), so each data set gives every item its
linearised influence IF_i = n ∇f(T)·(s_i − T/n) (:func:`kappalab.uncertainty.influence_values`)
with θ̂ − θ ≈ mean IF. For the difference D̂ = θ̂_a − θ̂_b:

* **independent** data sets (no item in common): Var(D̂) = SE_a² + SE_b², each side's own
  analytic variance Σ IF_i²/(n(n − 1));
* **paired** data sets (items matched by label): the two estimates covary through the n_c
  common items,

  .. math::  \widehat{\operatorname{Var}}(D̂) = \mathrm{SE}_a^2 + \mathrm{SE}_b^2
             - \frac{2\,c}{n_a n_b} \sum_{i \in a \cap b} IF^a_i\, IF^b_i, \qquad
             c = \Big(1 - \frac{1}{n_a} - \frac{1}{n_b} + \frac{n_c}{n_a n_b}\Big)^{-1},

  where c undoes the centring of the influences at each side's mean (it makes the sum
  unbiased for n_c·Cov(IF^a, IF^b)); items of one side only enter that side's variance alone.
  When both sides have the same items this is Σ_i (IF^a_i − IF^b_i)²/(n(n − 1)), the
  analytic variance of the difference written as one coefficient on the joint item sums, and
  Gwet's (2016) paired t test: Gwet's per-subject linear terms κ*_i − κ̂ are these
  influences, so the test reproduces his R package pairedCAC for Fleiss', Conger's,
  Krippendorff's, Gwet's and Brennan–Prediger's coefficients and percent agreement.

The interval is D̂ ± t_ν·SE with ν = n_∪ − 1 (paired: the items of either side are the
sampling units) or Welch–Satterthwaite's ν = (v_a + v_b)²/(v_a²/(n_a − 1) + v_b²/(n_b − 1))
(independent), and the test is the Wald test z = D̂/SE, p = 2·P(T_ν ≥ \|z|). The bootstrap
(``ci="bootstrap"``, ``"bootstrap-basic"``) resamples the items of the union jointly when
paired, so that an item drawn moves both sides, and each side's items on their own when
independent; the jackknife leaves out one item of the union (both sides at once) at a time.
"""

from __future__ import annotations

import html
import inspect
import math
import warnings
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping

import numpy as np
import pandas as pd

from .coefficients import registry
from .errors import InvalidParameterError, UndefinedCoefficientWarning, warn
from .estimate import Estimate
from .protocols import ItemStats
from .uncertainty import (BLOCK_CELLS, CORE_METHODS, influence_values, replicate_values,
                          rows_with_statistics)
from .validation import SeedLike, check_confidence, check_count, check_flag, make_rng

if TYPE_CHECKING:
    import scipy.sparse as sp
else:  # scipy.sparse, imported on first use (start-up)
    from .kernels import sp
from .kernels import issparse

__all__ = ["COMPARISON_CI", "Comparison", "compare"]

#: the interval methods of :func:`compare`
COMPARISON_CI = ("analytic", "bootstrap", "bootstrap-basic", "jackknife")

#: the columns of :meth:`Comparison.to_frame`, in order
FRAME_COLUMNS = ("coefficient", "value_a", "value_b", "difference", "se", "ci_low", "ci_high",
                 "z", "p_value", "df", "paired", "method", "n_common", "n_only_a", "n_only_b")
FRAME_DOC = """A ``pandas.DataFrame`` of comparisons, one row each, in order.

Columns: coefficient, value_a, value_b, difference, se, ci_low, ci_high, z, p_value, df,
paired, method, n_common, n_only_a, n_only_b. Called on one comparison without an argument:
the table of that comparison."""


class _FrameMethod:
    """``to_frame`` callable on the class (a list of comparisons) and on one comparison."""

    def __get__(self, instance: Any, owner: type) -> Callable:
        def to_frame(comparisons: Iterable[Comparison] | None = None) -> pd.DataFrame:
            if comparisons is None:
                if instance is None:
                    raise InvalidParameterError(
                        "Comparison.to_frame takes a list of Comparisons")
                comparisons = [instance]
            elif isinstance(comparisons, Comparison):
                comparisons = [comparisons]
            rows = []
            for position, item in enumerate(comparisons):
                if not isinstance(item, Comparison):
                    raise InvalidParameterError(
                        f"to_frame takes Comparisons; item {position} is "
                        f"{type(item).__name__}")
                rows.append(item.row())
            return pd.DataFrame.from_records(rows, columns=list(FRAME_COLUMNS))

        to_frame.__doc__ = FRAME_DOC
        return to_frame


@dataclass(frozen=True)
class Comparison:
    r"""One coefficient on two data sets: both estimates, their difference and its test.

    ``difference`` is θ̂_a − θ̂_b; ``se`` its standard error and ``ci`` its interval by
    ``method`` (see :mod:`kappalab.comparison` for the formulas); ``z`` = D̂/SE and
    ``p_value`` = 2·P(T_ν ≥ \|z|) test θ_a = θ_b with ν = ``df``. ``paired`` says whether the
    items were matched by label (then ``n_common`` items are in both data sets, ``n_only_a``
    and ``n_only_b`` in one only) and ``correlation`` is the estimated correlation of the two
    estimates (0 when independent). ``float(comparison)`` is the difference.

    ``Comparison.to_frame([c1, c2, …])`` (or ``comparison.to_frame()``) makes a table, one row
    per comparison; ``_repr_html_`` shows one in a notebook.

    Parameters
    ----------
    coefficient : str
        The coefficient's name, e.g. ``"Krippendorff's alpha"``.
    estimate_a, estimate_b : Estimate
        The coefficient on each data set (without an interval).
    difference : float
        θ̂_a − θ̂_b (NaN when either is undefined).
    se : float
        The standard error of the difference.
    ci : tuple of float
        Its confidence interval ``(low, high)``.
    paired : bool
        Whether the items of the two data sets were matched by label.
    method : str
        How the standard error was obtained: a name of :data:`COMPARISON_CI`.
    confidence : float
        The confidence level of ``ci``.
    df : float
        The degrees of freedom ν of the t reference.
    n_common, n_only_a, n_only_b : int
        Items in both data sets, in ``a`` only, in ``b`` only (for independent data sets
        n_common is 0 and the others are each side's items).
    correlation : float
        The estimated correlation of θ̂_a and θ̂_b (0 for independent data sets).
    details : mapping, default {}
        Further numbers: ``se_a`` and ``se_b`` (each side's own standard error by the same
        method), ``n_resamples`` of a bootstrap.

    Examples
    --------
    >>> import kappalab as kl
    >>> x = [[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2], [1, 2, 1], [2, 2, 2]]
    >>> y = [[1, 1, 1], [2, 2, 2], [1, 1, 2], [3, 3, 3], [1, 1, 1], [2, 3, 2]]
    >>> result = kl.compare(kl.fleiss_kappa, x, y)
    >>> result.paired, round(result.difference, 4)  # statsmodels: 0.431579 − 0.653846
    (True, -0.2223)
    >>> result.to_frame()[["value_a", "value_b", "paired", "n_common"]].round(4)
       value_a  value_b  paired  n_common
    0   0.4316   0.6538    True         6
    """

    coefficient: str
    estimate_a: Estimate
    estimate_b: Estimate
    difference: float
    se: float
    ci: tuple[float, float]
    paired: bool
    method: str
    confidence: float
    df: float
    n_common: int
    n_only_a: int
    n_only_b: int
    correlation: float
    details: Mapping[str, Any] = field(default_factory=dict)

    to_frame = _FrameMethod()

    # ------------------------------------------------------------------ as a number
    def __float__(self) -> float:
        return float(self.difference)

    @property
    def value_a(self) -> float:
        """θ̂_a."""
        return float(self.estimate_a.value)

    @property
    def value_b(self) -> float:
        """θ̂_b."""
        return float(self.estimate_b.value)

    @property
    def z(self) -> float:
        """D̂/SE, the Wald statistic of θ_a = θ_b (±∞ for SE 0, NaN when D̂ = SE = 0)."""
        difference, se = float(self.difference), float(self.se)
        if math.isnan(difference) or math.isnan(se) or (se == 0 and difference == 0):
            return math.nan
        if se == 0:
            return math.copysign(math.inf, difference)
        return difference / se

    @property
    def p_value(self) -> float:
        r"""Two-sided p-value of θ_a = θ_b: 2·P(T_ν ≥ \|z|), ν = ``df``."""
        from scipy.stats import t as student_t  # imported where used: scipy.stats is slow
        z = self.z
        if math.isnan(z) or not self.df >= 1:
            return math.nan
        return float(2.0 * student_t.sf(abs(z), self.df))

    # ------------------------------------------------------------------ tables
    def row(self) -> dict[str, Any]:
        """The comparison as one row of :meth:`to_frame` (a dict by column)."""
        return {"coefficient": self.coefficient, "value_a": self.value_a,
                "value_b": self.value_b, "difference": float(self.difference),
                "se": float(self.se), "ci_low": float(self.ci[0]), "ci_high": float(self.ci[1]),
                "z": self.z, "p_value": self.p_value, "df": float(self.df),
                "paired": self.paired, "method": self.method, "n_common": self.n_common,
                "n_only_a": self.n_only_a, "n_only_b": self.n_only_b}

    # ------------------------------------------------------------------ display
    def design(self) -> str:
        """How the items were treated, in words: paired on how many, or independent."""
        if not self.paired:
            return (f"independent ({self.n_only_a} items in a, {self.n_only_b} in b)")
        text = f"paired on {self.n_common} common items"
        if self.n_only_a or self.n_only_b:
            text += f" (+{self.n_only_a} in a only, +{self.n_only_b} in b only)"
        return text

    def __repr__(self) -> str:
        level = round(100 * self.confidence, 6)
        return (f"Comparison({self.coefficient}: a = {self.value_a:.4f}, b = {self.value_b:.4f}, "
                f"a - b = {self.difference:.4f}, se={self.se:.4f}, "
                f"{level:g}% ci=({self.ci[0]:.4f}, {self.ci[1]:.4f}), z={self.z:.3f}, "
                f"p={self.p_value:.3g}, {self.design()}, {self.method})")

    def _repr_html_(self) -> str:
        """A small HTML table (notebooks): both values, the difference, its SE, CI and test."""
        cells = [("a", f"{self.value_a:.4f}"), ("b", f"{self.value_b:.4f}"),
                 ("a − b", f"{self.difference:.4f}"), ("se", f"{self.se:.4f}"),
                 ("ci", f"[{self.ci[0]:.4f}, {self.ci[1]:.4f}]"), ("z", f"{self.z:.3f}"),
                 ("p-value", f"{self.p_value:.3g}"), ("items", self.design()),
                 ("method", self.method)]
        body = "".join(f"<tr><th>{html.escape(name)}</th><td>{html.escape(text)}</td></tr>"
                       for name, text in cells)
        return (f"<table class=\"kappalab-comparison\"><caption>"
                f"{html.escape(str(self.coefficient))}: a − b</caption>{body}</table>")


@dataclass(frozen=True)
class _Side:
    """One data set's estimate, its core and the items that are its resampling units."""

    estimate: Estimate
    core: Any
    used: np.ndarray  # rows of the item statistics with statistics (the sampling units)
    labels: pd.Index | None  # the label of each used row; None where the core has none

    @property
    def n(self) -> int:
        return int(self.used.sum())

    @property
    def value(self) -> float:
        return float(self.estimate.value)

    @property
    def paired_labels(self) -> pd.Index:
        """:attr:`labels` of a side that is paired, never None (:func:`_pairing`)."""
        assert self.labels is not None, "only sides with item labels are paired"
        return self.labels


def compare(estimator: Callable | str, a: Any, b: Any, *, paired: bool | None = None,
            ci: str = "analytic", n_resamples: int = 2000, confidence: float = 0.95,
            seed: SeedLike = None, **options: Any) -> Comparison:
    r"""The difference of one coefficient between two data sets, θ̂_a − θ̂_b, with its standard
    error, interval and the test of θ_a = θ_b.

    .. math::  \widehat{\operatorname{Var}}(θ̂_a - θ̂_b) = \mathrm{SE}_a^2 + \mathrm{SE}_b^2
               - \frac{2\,c}{n_a n_b} \sum_{i \in a \cap b} IF^a_i\, IF^b_i ,

    with IF_i = n ∇f(T)·(s_i − T/n) each item's linearised influence on its side's estimate
    and c = (1 − 1/n_a − 1/n_b + n_c/(n_a n_b))⁻¹ (the common-item sum is absent for
    independent data sets); with the same items on both sides it is
    Σ_i (IF^a_i − IF^b_i)²/(n(n − 1)). The interval is D̂ ± t_ν·SE, ν = n_∪ − 1 when paired
    (Welch–Satterthwaite's ν when independent), and z = D̂/SE, p = 2·P(T_ν ≥ \|z|)
    (:mod:`kappalab.comparison`).

    Parameters
    ----------
    estimator : callable or str
        A kappalab estimator, e.g. ``kl.krippendorff_alpha``, ``kl.cohen_kappa``,
        ``kl.reference_agreement``, or its name or alias (``"krippendorff_alpha"``,
        ``"alpha"``): a coefficient of :mod:`kappalab.coefficients.registry` with a core
        factory, which gives the core behind the estimate (another function takes an entry,
        :func:`~kappalab.coefficients.registry.register`).
    a, b : data, or tuple of data
        The two data sets, each what the estimator reads as its data; a **tuple** is the
        estimator's positional data arguments (``(x, y)`` for ``cohen_kappa``,
        ``cross_kappa``; ``(coders, reference)`` for ``reference_agreement``), so pass a table
        as a list, an array or a DataFrame, never as a tuple.
    paired : bool or None, default None
        Whether the items of ``a`` and ``b`` are the same items, matched by their labels
        (``Annotations.items``; for two-replication estimators the items common to both
        replications). None: paired exactly when the two data sets share an item label; the
        result's ``paired`` says which was used. Unrelated data sets whose items are numbered
        alike (arrays give items 0, 1, …) are then paired by position: that costs precision,
        not validity (their influences are uncorrelated, so the covariance estimate is near
        0), but pass ``paired=False`` to treat them as independent.
    ci : {"analytic", "bootstrap", "bootstrap-basic", "jackknife"}, default "analytic"
        The standard error and interval: the linearisation above, the item bootstrap
        (percentile or basic interval; paired: the items of the union drawn jointly, each
        draw moving both sides), or the jackknife (paired: one item of the union left out of
        both sides at a time).
    n_resamples : int, default 2000
        Bootstrap replicates.
    confidence : float, default 0.95
        The confidence level of the interval, in (0, 1).
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the bootstrap (:func:`kappalab.validation.make_rng`).
    **options : Any
        The estimator's own keywords (``level=``, ``weights=``, ``categories=``, …), the same
        for both data sets.

    Returns
    -------
    Comparison
        Both estimates, the difference, its SE, interval, z, p-value and whether paired.
        NaN throughout, with the estimator's ``UndefinedCoefficientWarning``, when the
        coefficient is undefined on either data set.

    Raises
    ------
    InvalidParameterError
        An estimator that is not registered (or whose entry has no core factory) or an
        unknown name; ``a`` and ``b`` with different numbers of
        positional arguments, or arguments the estimator does not take; the two data sets
        giving different coefficients or levels; ``paired=True`` on data sets without a
        common item label (or for an estimator whose items carry no labels); an unknown
        ``ci``, ``n_resamples`` < 2, ``confidence`` outside (0, 1) or an invalid ``seed``.
    AnnotationError
        Whatever the estimator raises on either data set.

    References
    ----------
    Gwet, K. L. (2016). Testing the difference of correlated agreement coefficients for
    statistical significance. *Educational and Psychological Measurement* 76(4), 609–637.
    doi:10.1177/0013164415596420 (the linearised covariance of two agreement coefficients
    on common subjects).

    Welch, B. L. (1947). The generalization of "Student's" problem when several different
    population variances are involved. *Biometrika* 34(1–2), 28–35. doi:10.2307/2332510

    Examples
    --------
    Two rater pools on the same 300 items, simulated with the same reliability:

    >>> import kappalab as kl
    >>> pool_1, truth = kl.simulate.annotations(300, reliability=0.6, seed=1)
    >>> pool_2, _ = kl.simulate.annotations(300, reliability=0.6, seed=2)
    >>> result = kl.compare(kl.krippendorff_alpha, pool_1, pool_2, paired=False)
    >>> result.paired, abs(result.z) < 1.96          # no difference detected
    (False, True)

    An automatic judge against the humans' labels, before and after a change (the humans are
    the same, so the two agreements are paired on their items):

    >>> import pandas as pd
    >>> humans = pd.DataFrame({"h1": [1, 2, 2, 1, 3, 3, 1, 2], "h2": [1, 2, 2, 1, 3, 2, 1, 2]})
    >>> judge_v1 = pd.Series([1, 2, 1, 1, 3, 1, 2, 2])
    >>> judge_v2 = pd.Series([1, 2, 2, 1, 3, 3, 1, 2])
    >>> result = kl.compare(kl.reference_agreement, (humans, judge_v1), (humans, judge_v2))
    >>> result.paired, round(result.value_a, 4), round(result.value_b, 4)
    (True, 0.4, 0.9036)
    >>> round(result.difference, 4), round(result.se, 4), round(result.p_value, 3)
    (-0.5036, 0.2785, 0.113)
    """
    from scipy.stats import t as student_t
    if ci in CORE_METHODS:  # an interval of one coefficient's value, not of a difference
        raise InvalidParameterError(
            f"ci={ci!r} is an interval of one coefficient's value, not of the difference of "
            f"two; compare takes {', '.join(COMPARISON_CI)}")
    if ci not in COMPARISON_CI:
        raise InvalidParameterError(f"unknown ci {ci!r} for compare; choose one of "
                                    f"{', '.join(COMPARISON_CI)}")
    n_resamples = check_count(n_resamples, "n_resamples", minimum=2)
    confidence = check_confidence(confidence)
    rng = make_rng(seed)
    paired = check_flag(paired, "paired", allow_none=True)
    entry = _resolve(estimator)
    if entry.core is None:
        raise InvalidParameterError(
            f"{entry.name} is not an estimator compare can use: its registry entry has no core "
            "factory (registry.Coefficient.core) to give its per-item influences")
    args_a, args_b = _arguments(a), _arguments(b)
    if len(args_a) != len(args_b):
        raise InvalidParameterError(
            f"a gives {len(args_a)} positional data argument(s) and b gives {len(args_b)}; "
            "give both data sets in the same form (a tuple is the estimator's positional "
            "data arguments)")
    side_a = _evaluate(entry, args_a, options, "a")
    side_b = _evaluate(entry, args_b, options, "b")
    for what in ("coefficient", "level"):
        got_a, got_b = getattr(side_a.estimate, what), getattr(side_b.estimate, what)
        if got_a != got_b:
            raise InvalidParameterError(
                f"the two data sets give different coefficients: {what} {got_a!r} on a, "
                f"{got_b!r} on b; compare one coefficient at one level on both (the same "
                "estimator and options)")
    is_paired = _pairing(side_a, side_b, paired)
    if is_paired:
        common = side_a.paired_labels.intersection(side_b.paired_labels, sort=False)
        n_common = len(common)
        counts = (n_common, side_a.n - n_common, side_b.n - n_common)
    else:
        common, counts = None, (0, side_a.n, side_b.n)
    difference = side_a.value - side_b.value
    nan = math.nan
    if math.isnan(difference):
        return Comparison(side_a.estimate.coefficient, side_a.estimate, side_b.estimate, nan,
                          nan, (nan, nan), bool(is_paired), ci, confidence, nan, *counts, nan)
    if ci == "analytic":
        se, df, correlation_ab, details = _analytic(side_a, side_b, common)
    elif ci == "jackknife":
        se, df, correlation_ab, details = _jackknife(side_a, side_b, common)
    else:
        replicates, details = _bootstrap(side_a, side_b, common, n_resamples, rng)
        finite = np.isfinite(replicates)
        details["n_finite_replicates"] = int(finite.sum())
        df = _paired_df(side_a, side_b, common) if common is not None \
            else _welch_df(side_a, side_b, details["se_a"] ** 2, details["se_b"] ** 2)
        correlation_ab = details.pop("correlation")
    tail = (1 - confidence) / 2
    if ci in ("analytic", "jackknife"):
        half = float(student_t.ppf(1 - tail, df)) * se if df >= 1 else nan
        bounds = (difference - half, difference + half)
    else:
        replicates = replicates[finite]
        if replicates.size < 2:
            se, bounds = nan, (nan, nan)
        else:
            se = float(replicates.std(ddof=1))
            low, high = np.quantile(replicates, [tail, 1 - tail])
            bounds = (float(low), float(high)) if ci == "bootstrap" else (
                float(2 * difference - high), float(2 * difference - low))
    if se == 0 and difference == 0:
        warn("the two data sets give the same coefficient with no sampling variation in the "
             "difference (every common item has the same influence on both): the difference "
             "is 0 with standard error 0, and z and p are undefined",
             UndefinedCoefficientWarning)
    return Comparison(side_a.estimate.coefficient, side_a.estimate, side_b.estimate,
                      float(difference), float(se), (float(bounds[0]), float(bounds[1])),
                      bool(is_paired), ci, confidence, float(df), *counts,
                      float(correlation_ab), details)


# ---------------------------------------------------------------------- reading the inputs
def _resolve(estimator: Any) -> registry.Coefficient:
    """The registry's entry of the estimator (its public name, an alias or the function)."""
    if isinstance(estimator, str):
        try:
            return registry.lookup(estimator, purpose="compare")
        except InvalidParameterError:
            names = ", ".join(entry.name for entry in registry.coefficients()
                              if entry.core is not None)
            raise InvalidParameterError(
                f"unknown estimator {estimator!r}; name one of {names}, or pass the "
                "function") from None
    if not callable(estimator) or isinstance(estimator, type):
        raise InvalidParameterError(
            "estimator must be a kappalab estimator function (e.g. kl.krippendorff_alpha) or "
            f"its name, got {type(estimator).__name__}")
    try:
        return registry.lookup(estimator, purpose="compare")
    except InvalidParameterError:
        raise InvalidParameterError(
            f"{_name(estimator)} is not an estimator compare can use: it is not in the registry "
            "of coefficients (kappalab.coefficients.registry); register it, with the core "
            "factory that gives its coefficient on the item-sum spine, by "
            "registry.register(registry.Coefficient(...))") from None


def _arguments(data: Any) -> tuple:
    return data if isinstance(data, tuple) else (data,)


def _name(estimator: Callable) -> str:
    return getattr(estimator, "__name__", type(estimator).__name__)


def _core_options(entry: registry.Coefficient, options: Mapping[str, Any]) -> dict[str, Any]:
    """The options the entry's core factory takes (the others only add details beside the
    value: by_category, alpha_min, shared_raters)."""
    if entry.core is None:  # no signature to read: pass every option
        return dict(options)
    try:
        parameters = inspect.signature(entry.core).parameters
    except (TypeError, ValueError):  # no signature to read: pass every option
        return dict(options)
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return dict(options)
    return {key: value for key, value in options.items() if key in parameters}


def _evaluate(entry: registry.Coefficient, args: tuple, options: Mapping[str, Any],
              side: str) -> _Side:
    """The estimator on one data set, with the core behind its result (the entry's core
    factory on the same arguments)."""
    estimator = entry.function
    try:
        inspect.signature(estimator).bind(*args, **options)
    except TypeError as error:
        raise InvalidParameterError(
            f"{_name(estimator)} cannot take data set {side} ({len(args)} positional "
            f"argument(s)) with options {sorted(options)}: {error}") from None
    except ValueError:  # no signature to check (a builtin): let the call say
        pass
    core_options = _core_options(entry, options)
    if _takes_seed(entry):
        # a value drawn at random (split-half's splits): the estimator and its core draw
        # from one seed, as random as the estimator's own default
        seed = int(np.random.SeedSequence().generate_state(1)[0])
        options, core_options = {**options, "seed": seed}, {**core_options, "seed": seed}
    result = estimator(*args, **options)
    if not isinstance(result, Estimate):
        raise InvalidParameterError(
            f"{_name(estimator)} is not an estimator compare can use: it returned "
            f"{type(result).__name__}, not an Estimate")
    with warnings.catch_warnings():  # the estimator has given the warnings of these data
        warnings.simplefilter("ignore")
        factory = entry.core
        if factory is None:  # refused at the door (compare); here for the type checker
            raise InvalidParameterError(f"{entry.name} has no core factory")
        core = factory(*args, **core_options)
        core_value = float(core.estimate().value)
    value = float(result.value)
    if not (value == core_value or (math.isnan(value) and math.isnan(core_value))):
        raise InvalidParameterError(
            f"{_name(estimator)} returned {value!r}, not the value of its core factory's "
            f"coefficient ({core_value!r}); compare needs the core that gives the estimate "
            "(registry.Coefficient.core)")
    stats = core.item_stats()
    used = rows_with_statistics(stats)
    labels = core.item_labels
    if labels is not None:
        labels = pd.Index(labels)
        if len(labels) != used.size or not labels.is_unique:
            labels = None
        else:
            labels = labels[used]
    return _Side(result, core, used, labels)


def _takes_seed(entry: registry.Coefficient) -> bool:
    """Whether the entry's core factory draws its value from a ``seed``."""
    if entry.core is None:
        return False
    try:
        return "seed" in inspect.signature(entry.core).parameters
    except (TypeError, ValueError):
        return False


def _pairing(side_a: _Side, side_b: _Side, paired: bool | None) -> bool:
    """Whether to pair the items (auto: when they share a label)."""
    if paired is False:
        return False
    if side_a.labels is None or side_b.labels is None:
        if paired:
            raise InvalidParameterError(
                f"paired=True needs the item labels of both data sets, and "
                f"{side_a.estimate.coefficient} does not label its items; use paired=False")
        return False
    shared = side_a.labels.isin(side_b.labels).any()
    if paired and not shared:
        raise InvalidParameterError(
            f"paired=True, but the data sets share no item label (a has e.g. "
            f"{list(side_a.labels[:3])}, b {list(side_b.labels[:3])}); pair items by giving "
            "them the same labels, or use paired=False")
    return bool(shared)


# ---------------------------------------------------------------------- standard errors
def _variance(influence: np.ndarray) -> float:
    n = influence.size
    return float(influence @ influence) / (n * (n - 1))


def _welch_df(side_a: _Side, side_b: _Side, var_a: float, var_b: float) -> float:
    """Welch–Satterthwaite's degrees of freedom of a sum of two independent variances."""
    denominator = var_a ** 2 / (side_a.n - 1) + var_b ** 2 / (side_b.n - 1)
    if denominator == 0:
        return float(side_a.n + side_b.n - 2)
    return float((var_a + var_b) ** 2 / denominator)


def _paired_df(side_a: _Side, side_b: _Side, common: pd.Index) -> float:
    """n_∪ − 1: the items of either side are the sampling units."""
    return float(side_a.n + side_b.n - len(common) - 1)


def _correlation(covariance: float, var_a: float, var_b: float) -> float:
    scale = math.sqrt(var_a * var_b)
    return covariance / scale if scale > 0 else math.nan


def _analytic(side_a: _Side, side_b: _Side, common: pd.Index | None):
    """SE of the difference from the two linearisations, df, correlation, details."""
    influence_a, influence_b = influence_values(side_a.core), influence_values(side_b.core)
    var_a, var_b = _variance(influence_a), _variance(influence_b)
    details = {"se_a": math.sqrt(var_a), "se_b": math.sqrt(var_b)}
    if common is None:
        return (math.sqrt(var_a + var_b), _welch_df(side_a, side_b, var_a, var_b), 0.0,
                details)
    n_a, n_b, n_c = side_a.n, side_b.n, len(common)
    on_a = influence_a[side_a.paired_labels.get_indexer(common)]
    on_b = influence_b[side_b.paired_labels.get_indexer(common)]
    if n_a == n_b == n_c:  # the same items: one coefficient on the joint item sums
        gap = on_a - on_b
        variance = float(gap @ gap) / (n_c * (n_c - 1))
        covariance = (var_a + var_b - variance) / 2
    else:
        centring = 1.0 - 1.0 / n_a - 1.0 / n_b + n_c / (n_a * n_b)
        covariance = float(on_a @ on_b) / (n_a * n_b * centring)
        variance = max(var_a + var_b - 2 * covariance, 0.0)
    return (math.sqrt(variance), _paired_df(side_a, side_b, common),
            _correlation(covariance, var_a, var_b), details)


def _jackknife_se(values: np.ndarray) -> float:
    n = values.size
    return float(np.sqrt((n - 1) / n * np.sum((values - values.mean()) ** 2)))


def _jackknife(side_a: _Side, side_b: _Side, common: pd.Index | None):
    """Leave-one-item-out SE of the difference (paired: the item left out of both sides)."""
    leave_a = replicate_values(side_a.core, "jackknife")
    leave_b = replicate_values(side_b.core, "jackknife")
    se_a = _jackknife_se(leave_a[np.isfinite(leave_a)])
    se_b = _jackknife_se(leave_b[np.isfinite(leave_b)])
    details = {"se_a": se_a, "se_b": se_b}
    if common is None:
        return (math.sqrt(se_a ** 2 + se_b ** 2),
                _welch_df(side_a, side_b, se_a ** 2, se_b ** 2), 0.0, details)
    labels_a, labels_b = side_a.paired_labels, side_b.paired_labels
    union = labels_a.append(labels_b.difference(labels_a, sort=False))
    # an item a side lacks leaves that side's estimate as it is
    on_a = np.full(len(union), side_a.value)
    on_a[union.get_indexer(labels_a)] = leave_a
    on_b = np.full(len(union), side_b.value)
    on_b[union.get_indexer(labels_b)] = leave_b
    leave = on_a - on_b
    se = _jackknife_se(leave[np.isfinite(leave)])
    both = np.isfinite(on_a) & np.isfinite(on_b)
    n = int(both.sum())
    covariance = float((on_a[both] - on_a[both].mean()) @ (on_b[both] - on_b[both].mean())
                       ) * (n - 1) / n
    return se, _paired_df(side_a, side_b, common), _correlation(covariance, se_a ** 2,
                                                                se_b ** 2), details


def _bootstrap(side_a: _Side, side_b: _Side, common: pd.Index | None, n_resamples: int,
               rng: np.random.Generator) -> tuple[np.ndarray, dict]:
    """Bootstrap replicates of the difference (paired: the union's items drawn jointly)."""
    if common is None:
        replicates_a = replicate_values(side_a.core, "bootstrap", n_resamples=n_resamples,
                                        seed=rng)
        replicates_b = replicate_values(side_b.core, "bootstrap", n_resamples=n_resamples,
                                        seed=rng)
    else:
        labels_a, labels_b = side_a.paired_labels, side_b.paired_labels
        union = labels_a.append(labels_b.difference(labels_a, sort=False))
        position_a = union.get_indexer(labels_a)
        position_b = union.get_indexer(labels_b)
        stats_a = _used_rows(side_a)
        stats_b = _used_rows(side_b)
        n = len(union)
        width = max(n, stats_a.shape[1], stats_b.shape[1])
        block = max(1, BLOCK_CELLS // width)
        replicates_a, replicates_b = np.empty(n_resamples), np.empty(n_resamples)
        for start in range(0, n_resamples, block):  # blocks of replicates, not items
            size = min(block, n_resamples - start)
            draws = rng.integers(0, n, size=(size, n))
            keys = (np.arange(size)[:, None] * n + draws).ravel()
            counts = np.bincount(keys, minlength=size * n).reshape(size, n).astype(float)
            replicates_a[start:start + size] = _replicate(side_a.core, stats_a,
                                                          counts[:, position_a])
            replicates_b[start:start + size] = _replicate(side_b.core, stats_b,
                                                          counts[:, position_b])
    finite_a, finite_b = np.isfinite(replicates_a), np.isfinite(replicates_b)
    details = {"se_a": float(replicates_a[finite_a].std(ddof=1)),
               "se_b": float(replicates_b[finite_b].std(ddof=1)),
               "n_resamples": n_resamples}
    both = finite_a & finite_b
    details["correlation"] = (float(np.corrcoef(replicates_a[both], replicates_b[both])[0, 1])
                              if common is not None and both.sum() > 2 else 0.0)
    return replicates_a - replicates_b, details


def _used_rows(side: _Side) -> np.ndarray | sp.csr_matrix:
    stats: ItemStats = side.core.item_stats()
    if issparse(stats):
        return sp.csr_matrix(stats)[np.flatnonzero(side.used)]
    return np.asarray(stats, dtype=float)[side.used]


def _replicate(core: Any, stats: np.ndarray | sp.csr_matrix, weights: np.ndarray) -> np.ndarray:
    """The coefficient on B reweighted data sets: combine(W @ S)."""
    if issparse(stats):
        totals = np.asarray((stats.T @ weights.T).T)
    else:
        totals = weights @ stats
    return np.asarray(core.combine(totals)["value"], dtype=float).reshape(-1)
