r"""Sample-size planning: how many items an annotation study needs.

A coefficient on the item-sum spine is θ̂ = f(T), T = Σ_i s_i (``docs/architecture.md``,
"The item-sum spine"), and its analytic standard error is the linearisation: with items drawn
independently from a population, √N (θ̂ − θ) → N(0, σ₁²) with the per-item variance

.. math::  σ_1^2 = ∇f_1(μ)^\top\, Σ\, ∇f_1(μ), \qquad μ = E[s_i], \quad Σ = \operatorname{Cov}[s_i],

where f₁ is f on the item means (f₁(μ) = lim f(Nμ)). :func:`plan` obtains μ and Σ exactly from
the population model of :mod:`kappalab.simulate` for one item with m annotations:

* nominal data (the Dirichlet–multinomial model, κ = 1/(1 + τ)): every count vector n of m
  annotations over K categories, with its probability

  .. math::  P(n) = \frac{m!}{\prod_c n_c!}\,
             \frac{Γ(τ)}{Γ(τ + m)} \prod_c \frac{Γ(τπ_c + n_c)}{Γ(τπ_c)}

  (the multinomial with θ = π at κ = 0); for Cohen's κ (two raters) every ordered pair of
  labels (c, k), with probability J_ck = (1 − κ)π_cπ_k + κ 1(c = k) π_c;
* interval data (one-way random effects, x = μ_i 1 + ε, Var x = σ_b² 11ᵀ + σ_w² I with
  σ_b² = ICC, σ_w² = 1 − ICC): Gauss–Hermite quadrature with three nodes per dimension on
  the whitened vector. The item statistics of interval α are polynomials of degree ≤ 2 in x, so
  their means and covariances are polynomials of degree ≤ 4, which the three-node rule
  integrates exactly (it is exact up to degree 5 in each coordinate).

The item statistics s, the gradient and the population value come from the coefficient's own
core (:mod:`kappalab.coefficients.multirater`) evaluated on these outcomes, so the plan uses the
very formulas of the estimator and of its analytic standard error. When the outcomes are too
many to enumerate (more than ``MAX_OUTCOMES``), μ and Σ are the sample moments of
``FALLBACK_ITEMS`` items simulated by :func:`kappalab.simulate.annotations` with a fixed seed
(relative error of σ₁ about (κ₄ − 1)^{1/2}/(2√n), a few tenths of a percent), which the result
reports as ``moments="simulated"``.

The number of items (Donner & Eliasziw 1987; Walter, Eliasziw & Donner 1998, for κ and the
ICC; here for any coefficient of the spine) is the least N that meets the goal with the
interval and the test the library computes, ``ci="analytic"``: θ̂ ± t_{N−1} SE
(:mod:`kappalab.uncertainty`) and the Wald statistic (θ̂ − ρ₀)/SE against Student's t with
N − 1 degrees of freedom (:meth:`kappalab.Estimate.z_test`; the one-sided test at level a
rejects H₀: θ ≤ ρ₀ when (θ̂ − ρ₀)/SE > t_{N−1, 1−a}, i.e. when ρ₀ is below the
(1 − 2a) interval).

(a) For a half-width h of the (1 − γ) interval, t_{N−1, 1−γ/2}·σ₁/√N ≤ h, i.e.
N ≈ σ₁²(z_{1−γ/2}/h)² plus a few items for the t quantile.

(b) For power β at ρ, the first-order formula N = σ₁²((z_{1−a} + z_β)/(ρ − ρ₀))² falls short
(by 0–9 points for β = 0.8 over the designs of ``experiments/planning.py``): a power plan is
small, the margin ρ − ρ₀ being about 2.5 SEs, and the test divides by the *estimated* SE,
which moves with θ̂. The test rejects when W = θ̂ − t·σ̂/√N > ρ₀, t = t_{N−1, 1−a} and
σ̂/√N the analytic SE, so the plan linearises W rather than θ̂ (the delta method on the
studentised statistic; Hall 1992, ch. 2):

.. math::  \text{power}(N) ≈ Φ\Big(\frac{\sqrt N\,(ρ + b_N - ρ_0) - t_{N-1,1-a}\,σ_1}{σ_W}
           \Big), \qquad σ_W^2 = E\Big[\Big(ψ - \frac{t_{N-1,1-a}}{\sqrt N}\,ψ_σ\Big)^2\Big],

with ψ(s) = ∇f₁ᵀ(s − μ) the influence of an item on θ̂ (σ₁² = E ψ²), ψ_σ(s) =
([∇f₁ᵀ(s − μ)]² − σ₁² + 2∇f₁ᵀΣH(s − μ))/(2σ₁) its influence on σ̂ (H = ∇²f₁(μ), by central
differences of the exact gradient), and b_N = f(Nμ) − f₁(μ) + ½ tr(HΣ)/N the estimator's
bias to O(1/N). All three come from the same enumerated outcomes as σ₁; N is the least N
with power(N) ≥ β. Where a high estimate comes with a smaller SE (ψ_σ and ψ negatively
correlated, as for κ = 0.6 with two categories), the test's cut-off moves against the
power, and the bias (−0.0006 to −0.0074 in those designs) lowers it too. Over those 17
designs the simulated power of the planned studies is 0.788–0.819 for 0.80 (4 000
studies each).
Null-variance formulas, which put σ₁(ρ₀) in the critical value (Donner & Eliasziw 1992),
describe a test that divides by the SE at the null, not the Wald test with the estimated SE:
where σ₁(ρ₀) and σ₁(ρ) differ they plan too few or too many items for it.

What the approximation leaves out: the skewness of θ̂ (an Edgeworth term of order N^{-1/2}),
the O(1/N) terms of the variance and of E[σ̂], and the lattice of the estimate's values with
few categories and few annotations. ``experiments/planning.py`` measures what is left.

References
----------
Bloch, D. A. & Kraemer, H. C. (1989). 2 × 2 kappa coefficients: measures of agreement or
association. *Biometrics* 45(1), 269–287. doi:10.2307/2531052

Donner, A. & Eliasziw, M. (1987). Sample size requirements for reliability studies.
*Statistics in Medicine* 6(4), 441–448. doi:10.1002/sim.4780060404

Donner, A. & Eliasziw, M. (1992). A goodness-of-fit approach to inference procedures for the
kappa statistic: confidence interval construction, significance-testing and sample size
estimation. *Statistics in Medicine* 11(11), 1511–1519. doi:10.1002/sim.4780111109

Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa and
weighted kappa. *Psychological Bulletin* 72(5), 323–327. doi:10.1037/h0028106

Hall, P. (1992). *The Bootstrap and Edgeworth Expansion*. Springer, New York.
doi:10.1007/978-1-4612-4384-7

Walter, S. D., Eliasziw, M. & Donner, A. (1998). Sample size and optimal designs for
reliability studies. *Statistics in Medicine* 17(1), 101–110.
doi:10.1002/(SICI)1097-0258(19980115)17:1<101::AID-SIM727>3.0.CO;2-E
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import gammaln

from .annotations import Annotations
from .coefficients import registry
from .coefficients.base import ItemSumCoefficient
from .errors import InvalidParameterError
from .simulate import annotations as simulate_annotations
from .simulate.parameters import categories_and_prevalence, check_reliability
from .validation import check_confidence, check_count, check_real

from .kernels import issparse

__all__ = ["SampleSizePlan", "plan", "bloch_kraemer_variance", "krippendorff_table_size"]

#: the registry's capability of the coefficients :func:`plan` plans for
_CAPABILITY = "planning"


def _entry(coefficient: Any) -> registry.Coefficient:
    """The registry's entry of a coefficient :func:`plan` plans for."""
    return registry.lookup(coefficient, _CAPABILITY, purpose="kappalab.plan")


def _short_name(entry: registry.Coefficient) -> str:
    """The name a plan reports: the coefficient's short alias (``"alpha"``)."""
    return entry.aliases[0] if entry.aliases else entry.name


def __getattr__(name: str) -> Any:
    if name == "COEFFICIENTS":  # deprecated in 0.2.0: the registry is the one table
        warnings.warn("kappalab.planning.COEFFICIENTS is deprecated and will be removed in "
                      "0.3.0; use kappalab.coefficients.registry.coefficients("
                      f"{_CAPABILITY!r})", DeprecationWarning, stacklevel=2)
        return {_short_name(entry): entry.display
                for entry in registry.coefficients(_CAPABILITY)}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

#: the largest number of per-item outcomes enumerated exactly (beyond: simulated moments)
MAX_OUTCOMES = 200_000
#: the items simulated for the moments when the outcomes are too many to enumerate
FALLBACK_ITEMS = 400_000
#: the seed of that simulation (the plan is then still the same on every call)
FALLBACK_SEED = 20261201
#: the number of items the limit f₁(μ) = lim f(Nμ) is taken at (α's n/(n − 1) factor is
#: then 1 to 1e-12)
LIMIT_ITEMS = 1e12


@dataclass(frozen=True)
class SampleSizePlan:
    r"""The number of items a study needs, and what it achieves (:func:`plan`).

    Parameters
    ----------
    coefficient : str
        ``"alpha"``, ``"fleiss"`` or ``"cohen"``.
    level : str
        ``"nominal"`` or ``"interval"`` (Krippendorff's α only).
    n_categories : int or None
        K (None for interval data).
    prevalence : tuple of float
        The category probabilities π (empty for interval data).
    annotations_per_item : int
        m, the annotations of every item (2 for Cohen's κ).
    reliability : float
        The expected value ρ of the coefficient (the population κ = α, or the ICC).
    population_value : float
        The coefficient's large-sample limit f₁(μ) on the enumerated population; equal to
        ``reliability`` up to rounding (a check of the enumeration).
    item_sd : float
        σ₁, the asymptotic standard deviation per item: SE(θ̂) ≈ σ₁/√N.
    goal : str
        ``"half-width"`` or ``"power"``.
    n_items : int
        N, the number of items the goal needs.
    n_annotations : int
        N·m, the annotations to collect.
    half_width : float
        t_{N−1, 1−γ/2}·σ₁/√N, the expected half-width of the analytic interval with N items.
    power : float or None
        Φ((√N (ρ + b − ρ₀) − t_{N−1, 1−a} σ₁)/σ_W), the power of the one-sided Wald test
        with N items (None without a threshold).
    bias : float
        b, the estimator's expected bias E[θ̂] − ρ with N items (second-order delta method).
    statistic_sd : float or None
        σ_W, the per-item SD of θ̂ − t_{N−1, 1−a}·SE, the statistic the test compares with
        ρ₀ (None without a threshold).
    target_half_width : float or None
        The half-width asked for.
    target_power : float or None
        The power asked for.
    threshold : float or None
        ρ₀ of the one-sided test of H₀: θ ≤ ρ₀.
    confidence : float
        1 − γ, the confidence level of the interval.
    significance : float
        a, the level of the one-sided test.
    moments : str
        How μ and Σ were obtained: ``"exact"`` (enumeration), ``"quadrature"`` (exact
        Gauss–Hermite, interval data) or ``"simulated"`` (``FALLBACK_ITEMS`` items).

    Examples
    --------
    >>> import kappalab as kl
    >>> result = kl.plan("alpha", prevalence=[0.5, 0.5], annotations_per_item=2,
    ...                  reliability=0.6, half_width=0.1)
    >>> result.n_items, round(result.item_sd, 4)  # 0.64·(t_{248}/0.1)² = 248.27
    (249, 0.8)
    >>> list(result.to_frame().columns[:4])
    ['coefficient', 'level', 'n_categories', 'prevalence']
    """

    coefficient: str
    level: str
    n_categories: int | None
    prevalence: tuple[float, ...]
    annotations_per_item: int
    reliability: float
    population_value: float
    item_sd: float
    goal: str
    n_items: int
    n_annotations: int
    half_width: float
    power: float | None
    bias: float
    statistic_sd: float | None
    target_half_width: float | None
    target_power: float | None
    threshold: float | None
    confidence: float
    significance: float
    moments: str

    def standard_error(self, n_items: int) -> float:
        """σ₁/√N, the asymptotic standard error of the coefficient with ``n_items`` items.

        Parameters
        ----------
        n_items : int
            N ≥ 1.

        Returns
        -------
        float
            σ₁/√N.

        Examples
        --------
        >>> import kappalab as kl
        >>> result = kl.plan("fleiss", n_categories=2, reliability=0.6, half_width=0.1)
        >>> round(result.standard_error(100) * 10, 12) == round(result.item_sd, 12)
        True
        """
        return self.item_sd / math.sqrt(check_count(n_items, "n_items", 1))

    def to_frame(self) -> pd.DataFrame:
        """The plan as a one-row DataFrame (the prevalence as text), e.g. to stack plans
        with ``pandas.concat``.

        Returns
        -------
        pandas.DataFrame
            One column per field.

        Examples
        --------
        >>> import kappalab as kl
        >>> frame = kl.plan("cohen", n_categories=2, reliability=0.6, half_width=0.1).to_frame()
        >>> frame.loc[0, "prevalence"], int(frame.loc[0, "n_items"])
        ('0.5,0.5', 249)
        """
        row = asdict(self)
        row["prevalence"] = ",".join(f"{p:g}" for p in self.prevalence)
        return pd.DataFrame([row])

    def design(self) -> str:
        """The coefficient, the categories and the expected value, in words (the number of
        annotations per item left out).

        Returns
        -------
        str
            e.g. ``"Fleiss' kappa (nominal): 2 categories (prevalence 0.5, 0.5), expected
            value 0.6"``.

        Examples
        --------
        >>> import kappalab as kl
        >>> kl.plan("alpha", level="interval", reliability=0.7, half_width=0.1).design()
        "Krippendorff's alpha (interval): interval values, expected value 0.7"
        """
        if self.level == "interval":
            values = "interval values"
        else:
            shares = ", ".join(f"{p:.3g}" for p in self.prevalence)
            values = f"{self.n_categories} categories (prevalence {shares})"
        return (f"{_entry(self.coefficient).display} ({self.level}): {values}, expected value "
                f"{self.reliability:g}")

    def __str__(self) -> str:
        lines = [f"Sample size for {self.design()}; {self.annotations_per_item} annotations "
                 "per item",
                 f"  per-item SD σ₁ = {self.item_sd:.4f}  (SE ≈ σ₁/√N; moments: "
                 f"{self.moments})"]
        if self.goal == "half-width":
            lines.append(f"  goal: {self.confidence:.0%} interval half-width ≤ "
                         f"{self.target_half_width:g}")
        else:
            lines.append(f"  goal: power {self.target_power:.0%} to show the coefficient > "
                         f"{self.threshold:g} (one-sided, level {self.significance:g})")
        lines.append(f"  items N = {self.n_items}  ({self.n_annotations} annotations)")
        lines.append(f"  at N: half-width {self.half_width:.4f}"
                     + ("" if self.power is None else f", power {self.power:.3f}"))
        return "\n".join(lines)


def plan(coefficient: str = "alpha", *, level: str = "nominal",
         n_categories: int | None = None, prevalence: Any = None,
         annotations_per_item: int | None = None, reliability: float,
         half_width: float | None = None, confidence: float = 0.95,
         power: float | None = None, threshold: float | None = None,
         significance: float = 0.05) -> SampleSizePlan:
    r"""The number of items for a target interval half-width, or for a power.

    .. math::  N_{width} = \min\Big\{N : t_{N-1,1-γ/2}\,\frac{σ_1}{\sqrt N} \le h\Big\},
               \qquad
               N_{power} = \min\Big\{N : Φ\Big(\frac{\sqrt N\,(ρ + b_N - ρ_0)
               - t_{N-1,1-a}\,σ_1}{σ_W}\Big) \ge β\Big\},

    σ₁² = ∇f₁(μ)ᵀ Cov[s] ∇f₁(μ) the per-item variance of the coefficient's linearisation at
    the population of :mod:`kappalab.simulate` (its Dirichlet–multinomial nominal model or
    its random-effects interval model) with expected value ρ, the moments of the item
    statistics enumerated exactly (see :mod:`kappalab.planning`). The interval and the test
    are those of ``ci="analytic"``: θ̂ ± t_{N−1} SE, and (θ̂ − ρ₀)/SE > t_{N−1, 1−a}
    (:meth:`kappalab.Estimate.z_test`). The power is that of the test with the estimated SE:
    b_N is the estimator's O(1/N) bias and σ_W the per-item SD of θ̂ − t·SE, which includes
    how the SE moves with θ̂ (the module docstring gives both).

    Parameters
    ----------
    coefficient : str or callable, default "alpha"
        Krippendorff's α (``"alpha"``, ``"krippendorff_alpha"`` or
        :func:`~kappalab.krippendorff_alpha`), Fleiss' κ (``"fleiss"``, ``"fleiss_kappa"``)
        or Cohen's κ (``"cohen"``, ``"cohen_kappa"``; two raters who each label every item):
        the registry's coefficients with a plan (:mod:`kappalab.coefficients.registry`). The
        plan names it by its short alias.
    level : {"nominal", "interval"}, default "nominal"
        Nominal categories, or interval values from one-way random effects (α only; the
        reliability is then the ICC).
    n_categories : int, optional
        K ≥ 2 (default ``len(prevalence)``, or 3).
    prevalence : array-like or float, optional
        The category probabilities π (positive, summing to 1), or one number: the last
        category's share, the others sharing the rest (default uniform); as in
        :func:`kappalab.simulate.annotations`.
    annotations_per_item : int, optional
        m ≥ 2 annotations of every item (default 2 for Cohen's κ, which needs 2; else 3).
    reliability : float
        ρ in [0, 1): the expected population value of the coefficient (the population α,
        Fleiss' and Cohen's κ coincide in this model).
    half_width : float, optional
        Goal (a): the half-width h of the ``confidence`` interval.
    confidence : float, default 0.95
        The confidence level 1 − γ of that interval.
    power : float, optional
        Goal (b): the power β, in (0, 1), to show the coefficient above ``threshold``.
    threshold : float, optional
        ρ₀ < ρ of the one-sided test of H₀: θ ≤ ρ₀ (e.g. 0.667); required with ``power``.
    significance : float, default 0.05
        The level a of that test.

    Returns
    -------
    SampleSizePlan
        σ₁, N, the annotations N·m, and the half-width (and power) achieved with N items.

    Raises
    ------
    InvalidParameterError
        An unknown coefficient or level, not exactly one of ``half_width`` and ``power``,
        ``power`` without ``threshold`` or a threshold not below ``reliability``, Cohen's κ
        with m ≠ 2, Fleiss' or Cohen's κ on interval data, or a parameter out of its range.

    References
    ----------
    Donner, A. & Eliasziw, M. (1987). Sample size requirements for reliability studies.
    *Statistics in Medicine* 6(4), 441–448. doi:10.1002/sim.4780060404

    Fleiss, J. L., Cohen, J. & Everitt, B. S. (1969). Large sample standard errors of kappa
    and weighted kappa. *Psychological Bulletin* 72(5), 323–327. doi:10.1037/h0028106

    Hall, P. (1992). *The Bootstrap and Edgeworth Expansion*. Springer, New York.
    doi:10.1007/978-1-4612-4384-7

    Examples
    --------
    Two categories of prevalence 0.2 and 0.8, two annotations per item, κ = 0.6: Bloch &
    Kraemer's (1989) variance (1 − κ)[(1 − κ)(1 − 2κ) + κ(2 − κ)/(2π(1 − π))]
    = 0.4·(−0.08 + 0.84/0.32) = 1.018 per item, so a 95 % half-width of 0.1 needs
    1.018·(t/0.1)² items: 391.06 with the normal quantile 1.959964, and with t_{N−1} the
    least N is 394 (t_{393} = 1.966019: 1.018·19.66019² = 393.48 ≤ 394; 393 items give
    t_{392} = 1.966034 and 393.49 > 393).

    >>> import kappalab as kl
    >>> result = kl.plan("fleiss", prevalence=0.2, annotations_per_item=2, reliability=0.6,
    ...                  half_width=0.1)
    >>> round(result.item_sd ** 2, 12), result.n_items
    (1.018, 394)

    Power 80 % to show α > 0.667 at the 5 % level when α = 0.8, three annotations per item:

    >>> result = kl.plan("alpha", prevalence=[0.2, 0.3, 0.5], annotations_per_item=3,
    ...                  reliability=0.8, power=0.8, threshold=0.667)
    >>> result.n_items, round(result.power, 3)  # the first-order formula: 63 items
    (73, 0.803)
    """
    from scipy.stats import t as student_t  # imported where used: scipy.stats is slow
    entry = _entry(coefficient)
    coefficient = _short_name(entry)
    if level not in ("nominal", "interval"):
        raise InvalidParameterError(f"unknown level {level!r}; choose 'nominal' or 'interval'")
    if level == "interval" and entry.option != "level":
        with_level = next(_short_name(e) for e in registry.coefficients(_CAPABILITY)
                          if e.option == "level")
        raise InvalidParameterError(f"{entry.display} is for categories; plan "
                                    f"interval data with coefficient={with_level!r}")
    if annotations_per_item is None:
        annotations_per_item = 2 if entry.panel == "two" else 3
    m = check_count(annotations_per_item, "annotations_per_item", 2)
    if entry.panel == "two" and m != 2:
        raise InvalidParameterError(f"Cohen's kappa compares two raters: annotations_per_item "
                                    f"must be 2, got {m} (plan 'fleiss' or 'alpha' instead)")
    rho = check_reliability(reliability)
    K, pi = categories_and_prevalence(level, n_categories, prevalence)
    confidence = check_confidence(confidence)
    significance = check_real(significance, "significance", low=0.0, high=0.5,
                              open_interval=True)
    if (half_width is None) == (power is None):
        raise InvalidParameterError("give one goal: half_width= (the interval's half-width) or "
                                    "power= with threshold= (the test against a threshold)")
    if half_width is not None:
        half_width = check_real(half_width, "half_width", low=0.0, high=1.0,
                                open_interval=True)
        if threshold is not None:
            raise InvalidParameterError("threshold= goes with power=, not with half_width=")
    else:
        power = check_real(power, "power", low=0.0, high=1.0, open_interval=True)
        if threshold is None:
            raise InvalidParameterError("power= needs threshold=, the value ρ₀ of the null "
                                        "hypothesis θ ≤ ρ₀ (e.g. threshold=0.667)")
        threshold = check_real(threshold, "threshold", low=-1.0, high=1.0)
        if threshold >= rho:
            raise InvalidParameterError(f"threshold {threshold:g} must be below the expected "
                                        f"reliability {rho:g}: the test shows the coefficient "
                                        "above the threshold")

    lin = linearise(coefficient, level, pi, m, rho)
    sd = lin.sd
    if half_width is not None:
        n_items = width_items(sd, half_width, confidence)
        achieved_power = statistic_sd = None
    else:
        assert power is not None and threshold is not None, "checked above: the power goal"
        n_items = power_items(lin, power, threshold, significance)
        achieved_power, _, statistic_sd = lin.wald_power(n_items, threshold, significance)
    t_interval = float(student_t.ppf(0.5 + confidence / 2, n_items - 1))
    return SampleSizePlan(
        coefficient=coefficient, level=level, n_categories=K or None,
        prevalence=tuple(float(p) for p in pi), annotations_per_item=m, reliability=rho,
        population_value=lin.value, item_sd=sd,
        goal="half-width" if power is None else "power",
        n_items=n_items, n_annotations=n_items * m,
        half_width=t_interval * sd / math.sqrt(n_items), power=achieved_power,
        bias=lin.bias(n_items), statistic_sd=statistic_sd,
        target_half_width=half_width, target_power=power, threshold=threshold,
        confidence=confidence, significance=significance, moments=lin.moments)


def width_items(sd: float, half_width: float, confidence: float) -> int:
    """The least N ≥ 2 with t_{N−1, (1+confidence)/2}·σ₁/√N ≤ h (checked parameters).

    Starts at the normal-quantile N, ⌈σ₁²(z/h)²⌉, a lower bound as t_{N−1} > z, and steps
    up (a few items: t_{N−1} − z ≈ z(z² + 1)/(4N)).
    """
    from scipy.stats import norm, t as student_t
    n = max(2, math.ceil(sd * sd * (norm.ppf(0.5 + confidence / 2) / half_width) ** 2
                         * (1 - 1e-12)))  # no extra item for a rounding error
    while student_t.ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n) > half_width * (
            1 + 1e-12):
        n += 1
    return n


def power_items(lin: Linearisation, power: float, threshold: float,
                significance: float) -> int:
    """The least N ≥ 2 whose :meth:`Linearisation.wald_power` reaches ``power`` (checked
    parameters): doubling, then bisection (the power increases with N)."""
    def enough(n: int) -> bool:
        return lin.wald_power(n, threshold, significance)[0] >= power * (1 - 1e-12)

    low, high = 1, 2  # enough(low) is false by convention (N ≥ 2)
    while not enough(high):
        low, high = high, 2 * high
        if high > 10 ** 9:
            raise InvalidParameterError(f"power {power:g} needs more than 10^9 items: move "
                                        "the threshold further below the reliability")
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (low, middle) if enough(middle) else (middle, high)
    return high


def bloch_kraemer_variance(reliability: float, minority_share: float) -> float:
    r"""Bloch & Kraemer's (1989) per-item variance of the intraclass κ of two raters and two
    categories.

    .. math::  N \operatorname{Var}(κ̂) \to (1 - κ)\Big[(1 - κ)(1 - 2κ)
               + \frac{κ (2 - κ)}{2 P (1 - P)}\Big],

    P the prevalence of one category. It is the asymptotic variance of Scott's π (Fleiss' κ
    with two raters) and, in this model (both raters with the same marginals), of Cohen's κ
    (Fleiss, Cohen & Everitt 1969) and of Krippendorff's α with two annotations per item. It
    is the basis of Krippendorff's (2004; 2013, *Content Analysis*) table of sample sizes for
    α, read with P the probability of the rarest category (:func:`krippendorff_table_size`
    gives the table's N): :func:`plan` with K categories
    instead uses the variance of the K-category design (the comparison is in the experiment
    ``experiments.planning``).

    Parameters
    ----------
    reliability : float
        κ in [0, 1).
    minority_share : float
        P in (0, 1) (the variance is symmetric in P and 1 − P).

    Returns
    -------
    float
        The variance per item, σ₁² (SE² ≈ σ₁²/N).

    Raises
    ------
    InvalidParameterError
        A parameter out of its range.

    References
    ----------
    Bloch, D. A. & Kraemer, H. C. (1989). 2 × 2 kappa coefficients: measures of agreement or
    association. *Biometrics* 45(1), 269–287. doi:10.2307/2531052

    Examples
    --------
    κ = 0.6, P = 0.2: 0.4·(0.4·(−0.2) + 0.6·1.4/(2·0.2·0.8)) = 0.4·(−0.08 + 2.625) = 1.018.

    >>> round(bloch_kraemer_variance(0.6, 0.2), 12)
    1.018
    """
    kappa = check_reliability(reliability)
    share = check_real(minority_share, "minority_share", low=0.0, high=1.0, open_interval=True)
    return (1 - kappa) * ((1 - kappa) * (1 - 2 * kappa)
                          + kappa * (2 - kappa) / (2 * share * (1 - share)))


def krippendorff_table_size(alpha_min: float, smallest_share: float,
                            significance: float = 0.05) -> int:
    r"""The number of units in Krippendorff's table of required sample sizes for α (two
    coders).

    .. math::  N = \Big\lceil 2 z_{1-p}^2 \Big[\frac{(1 + α_{min})(3 - α_{min})}
               {4 (1 - α_{min})\, p_c (1 - p_c)} - α_{min}\Big] \Big\rceil,

    α_min the smallest acceptable α, p_c the probability of the least frequent value, p the
    significance level and z_{1−p} the one-sided normal quantile (1.644854 for p = 0.05).
    Krippendorff (2004, 2013, 2019) tabulates it for α_min = .667, .800, .900, p = .100,
    .050, .010, .005 and two coders, from Bloch & Kraemer's (1989) variance of the
    intraclass κ of two raters and two categories,
    V(κ) = (1 − κ)[(1 − κ)(1 − 2κ) + κ(2 − κ)/(2P(1 − P))] per item
    (:func:`bloch_kraemer_variance`), with P = p_c. The bracket is that variance at the
    midpoint κ* = (1 + α_min)/2 between α_min and 1, over the squared distance
    Δ = κ* − α_min = (1 − α_min)/2: with 1 − κ* = Δ, 1 − 2κ* = −α_min and
    κ*(2 − κ*) = (1 + α_min)(3 − α_min)/4,

    .. math::  \frac{V(κ^*)}{Δ^2} = \frac{1}{Δ}\Big[-Δ α_{min}
               + \frac{(1 + α_{min})(3 - α_{min})}{8 P (1 - P)}\Big]
               = \frac{(1 + α_{min})(3 - α_{min})}{4 (1 - α_{min}) P (1 - P)} - α_{min},

    so N = 2 z²_{1−p} V(κ*)/Δ². The question it answers: with two coders and the binary split
    "least frequent value or not", how many units make an α observed at κ*, halfway between
    α_min and perfect agreement, significantly above α_min at the one-sided level p, with
    twice the units that alone takes (z_{1−p}·SE = Δ/√2 at κ*, not Δ). The factor 2 is the
    number of coders in the ATLAS.ti manual that quotes the table ("multiply Z² by the
    number of coders"). The two entries that manual quotes (139 and 81 units, below) fix z²
    to (5.391, 5.430]: 2z²_{0.95} = 5.4111 is inside, and so is z²_{0.99} = 5.4119 without
    the 2, but two-sided quantiles are not (2z²_{0.975} = 7.68, z²_{0.975} = 3.84).

    In the terms of :func:`plan` (α, two annotations per item, prevalence (p_c, 1 − p_c),
    reliability κ*, where σ₁² = V(κ*) exactly) the table has two first-order readings
    (normal quantiles, no t, no bias): the half-width goal h = Δ with confidence
    1 − 2Φ(−√2 z_{1−p}) (0.98 for p = 0.05, as √2 z_{0.95} = 2.32617 ≈ z_{0.99} = 2.32635),
    and the power goal for threshold α_min at level p with power Φ((√2 − 1) z_{1−p}) (0.752
    for p = 0.05). Unlike :func:`plan`, the table fixes the expected α at κ* rather than
    asking for it, and its power follows from p. :func:`plan` with those goals gives a few
    more items for the t quantile, and more for the power goal, which models the test's
    estimated SE; with the K-category design instead of the binary split at the rarest
    value, it gives fewer (the comparison is in the experiment ``experiments.planning``).

    Parameters
    ----------
    alpha_min : float
        α_min in [0, 1), the smallest acceptable α (the table has .667, .800 and .900).
    smallest_share : float
        p_c in (0, 0.5], the probability of the least frequent value (1/K for K equally
        frequent values).
    significance : float, default 0.05
        p in (0, 0.5), the one-sided level (the table has .100, .050, .010 and .005).

    Returns
    -------
    int
        N, the number of units, each coded by two coders (rounded up).

    Raises
    ------
    InvalidParameterError
        A parameter out of its range.

    References
    ----------
    Bloch, D. A. & Kraemer, H. C. (1989). 2 × 2 kappa coefficients: measures of agreement or
    association. *Biometrics* 45(1), 269–287. doi:10.2307/2531052

    Krippendorff, K. (2004; 3rd ed. 2013; 4th ed. 2019). *Content Analysis: An Introduction to
    Its Methodology*. Sage, Thousand Oaks, CA (the table of required sample sizes for α).

    ATLAS.ti Scientific Software Development GmbH. *ATLAS.ti Windows User Manual*,
    inter-coder agreement, "Sample Size and Decision Rules" (quotes two entries of the table,
    citing Krippendorff 2019).

    Examples
    --------
    Four equally frequent values (p_c = 0.25), p = 0.05: the table's 139 units for
    α_min = 0.800 (2·1.644854²·25.6 = 138.52) and 81 for α_min = 0.667
    (2·1.644854²·14.905 = 80.65).

    >>> krippendorff_table_size(0.8, 0.25, 0.05), krippendorff_table_size(0.667, 0.25, 0.05)
    (139, 81)
    """
    from scipy.stats import norm
    alpha_min = check_reliability(alpha_min, "alpha_min")
    share = check_real(smallest_share, "smallest_share", low=0.0, high=1.0, open_interval=True)
    if share > 0.5:
        raise InvalidParameterError(f"smallest_share is the probability of the least frequent "
                                    f"value, at most 0.5; got {share:g} (pass the smaller share, "
                                    f"{1 - share:g})")
    significance = check_real(significance, "significance", low=0.0, high=0.5,
                              open_interval=True)
    z = float(norm.ppf(1 - significance))
    bracket = ((1 + alpha_min) * (3 - alpha_min) / (4 * (1 - alpha_min) * share * (1 - share))
               - alpha_min)
    return math.ceil(2 * z * z * bracket * (1 - 1e-12))  # no extra unit for a rounding error


# ---------------------------------------------------------------------- the population
@dataclass(frozen=True)
class Linearisation:
    r"""The coefficient's estimator on one population, to second order (:func:`linearise`).

    For items drawn from the population, with μ = E[s], Σ = Cov[s], g = ∇f₁(μ) and
    H = ∇²f₁(μ):

    * ψ(s) = gᵀ(s − μ), the influence of an item on θ̂, σ₁² = E[ψ²];
    * ψ_σ(s) = ([gᵀ(s − μ)]² − σ₁² + 2 gᵀΣH(s − μ))/(2σ₁), the influence of an item on the
      estimated per-item SD σ̂ = (gᵀŜg)^{1/2} of the analytic standard error (Ŝ the items'
      sample covariance, g at their mean);
    * the bias E[θ̂] − θ = f(Nμ) − f₁(μ) + ½ tr(HΣ)/N + O(N⁻²) (the second-order delta
      method; the first term is what a coefficient's finite-N factors, such as α's
      n/(n − 1), add).

    Parameters
    ----------
    core : ItemSumCoefficient
        The estimator's core on the population's outcomes (one item each).
    probability : numpy.ndarray
        The probability of each outcome.
    moments : str
        How the outcomes were obtained (``"exact"``, ``"quadrature"`` or ``"simulated"``).

    Examples
    --------
    >>> import numpy as np
    >>> from kappalab.planning import linearise
    >>> lin = linearise("cohen", "nominal", np.array([0.5, 0.5]), 2, 0.6)
    >>> round(lin.value, 9), round(lin.sd, 9)  # Bloch & Kraemer: σ₁² = 0.64
    (0.6, 0.8)
    """

    core: ItemSumCoefficient
    probability: np.ndarray
    moments: str
    value: float
    sd: float
    influence: np.ndarray
    sd_influence: np.ndarray
    curvature: float

    def bias(self, n_items: float) -> float:
        """E[θ̂] − θ with ``n_items`` items, to O(1/N): f(Nμ) − f₁(μ) + ½ tr(HΣ)/N."""
        mean = self.probability @ self.stats()
        finite = float(np.asarray(self.core.combine(n_items * mean)["value"]).reshape(-1)[0])
        return finite - self.value + self.curvature / n_items

    def stats(self) -> np.ndarray:
        """The outcomes' item statistics as a dense array."""
        stats = self.core.unweighted_item_stats()
        return stats.toarray() if issparse(stats) else np.asarray(stats, dtype=float)

    def wald_power(self, n_items: int, threshold: float, significance: float) -> tuple[
            float, float, float]:
        r"""(power, bias, σ_W) of the one-sided Wald test with ``n_items`` items.

        .. math::  P\Big(\frac{\hat θ - ρ_0}{\widehat{SE}} > t_{N-1, 1-a}\Big) ≈
                   Φ\Big(\frac{\sqrt N\,(θ + b_N - ρ_0) - t_{N-1,1-a}\, σ_1}{σ_W}\Big),
                   \qquad σ_W^2 = E\Big[\Big(ψ - \frac{t_{N-1,1-a}}{\sqrt N} ψ_σ\Big)^2
                   \Big],

        the linearisation of W = θ̂ − t·σ̂/√N, which rejects when W > ρ₀.
        """
        from scipy.stats import norm, t as student_t
        n = float(n_items)
        c = float(student_t.ppf(1 - significance, n - 1))
        bias = self.bias(n)
        w = self.influence - (c / math.sqrt(n)) * self.sd_influence
        sd_w = float(np.sqrt(self.probability @ (w * w)))
        power = float(norm.cdf((math.sqrt(n) * (self.value + bias - threshold) - c * self.sd)
                               / sd_w))
        return power, bias, sd_w


def linearise(coefficient: str, level: str, prevalence: np.ndarray, m: int,
              reliability: float) -> Linearisation:
    """The :class:`Linearisation` of one design, parameters checked."""
    ann, probability, moments = item_population(coefficient, level, prevalence, m, reliability)
    core = coefficient_core(coefficient, ann, level)
    stats = core.unweighted_item_stats()
    stats = stats.toarray() if issparse(stats) else np.asarray(stats, dtype=float)
    mean = probability @ stats
    value = float(np.asarray(core.combine(LIMIT_ITEMS * mean)["value"]).reshape(-1)[0])

    def gradient(point: np.ndarray) -> np.ndarray:  # ∇f₁ at the item means `point`
        return LIMIT_ITEMS * np.asarray(core.value_gradient(LIMIT_ITEMS * point), dtype=float)

    g = gradient(mean)
    centred = stats - mean
    covariance = (centred * probability[:, None]).T @ centred
    # ∇²f₁ by central differences of the exact gradient (relative step 1e-5: truncation
    # and rounding errors both near 1e-10 of the entries)
    step = 1e-5 * np.maximum(np.abs(mean), np.abs(mean).max() * 1e-3)
    hessian = np.empty((mean.size, mean.size))
    for j in range(mean.size):  # s, a handful of columns
        e = np.zeros(mean.size)
        e[j] = step[j]
        hessian[:, j] = (gradient(mean + e) - gradient(mean - e)) / (2 * step[j])
    hessian = (hessian + hessian.T) / 2
    psi = centred @ g
    sd = float(np.sqrt(probability @ (psi * psi)))
    sd_influence = (psi * psi - sd * sd + 2 * centred @ (hessian @ (covariance @ g))) / (2 * sd)
    return Linearisation(core=core, probability=probability, moments=moments, value=value,
                         sd=sd, influence=psi, sd_influence=sd_influence,
                         curvature=0.5 * float(np.sum(hessian * covariance)))


def coefficient_core(coefficient: Any, ann: Annotations, level: str) -> ItemSumCoefficient:
    """The estimator's core on ``ann``: as :func:`kappalab.krippendorff_alpha`,
    :func:`kappalab.fleiss_kappa` and :func:`kappalab.cohen_kappa` build it (``level`` for
    the coefficient whose option is a level, unweighted for the others)."""
    entry = _entry(coefficient)
    assert entry.core is not None, "every coefficient plan plans for has a core factory"
    core: ItemSumCoefficient = entry.core(ann, **({"level": level} if entry.option == "level"
                                                  else {}))
    return core


def item_population(coefficient: str, level: str, prevalence: np.ndarray, m: int,
                    reliability: float) -> tuple[Annotations, np.ndarray, str]:
    """Every outcome of one item as an item of an Annotations, with its probability."""
    if level == "interval":
        if 3 ** m <= MAX_OUTCOMES:
            return interval_quadrature(m, reliability) + ("quadrature",)
    elif _entry(coefficient).panel == "two":
        return label_pairs(prevalence, reliability) + ("exact",)
    elif math.comb(m + prevalence.size - 1, m) <= MAX_OUTCOMES:
        return count_vectors(prevalence, m, reliability) + ("exact",)
    ann, _ = simulate_annotations(
        FALLBACK_ITEMS, level=level, n_categories=None if level == "interval" else
        prevalence.size, prevalence=None if level == "interval" else prevalence,
        reliability=reliability, annotations_per_item=m, seed=FALLBACK_SEED)
    return ann, np.full(FALLBACK_ITEMS, 1.0 / FALLBACK_ITEMS), "simulated"


def count_vectors(prevalence: np.ndarray, m: int,
                  reliability: float) -> tuple[Annotations, np.ndarray]:
    """Every count vector of m annotations over K categories, with its Dirichlet–multinomial
    probability (the multinomial at κ = 0)."""
    K = prevalence.size
    labels = np.array(list(itertools.combinations_with_replacement(range(K), m)))
    counts = np.zeros((labels.shape[0], K))
    np.add.at(counts, (np.repeat(np.arange(labels.shape[0]), m), labels.ravel()), 1.0)
    log_p = gammaln(m + 1.0) - gammaln(counts + 1.0).sum(axis=1)
    if reliability == 0:
        log_p += counts @ np.log(prevalence)
    else:
        tau = 1.0 / reliability - 1.0
        a = tau * prevalence
        log_p += (gammaln(tau) - gammaln(tau + m)
                  + (gammaln(a + counts) - gammaln(a)).sum(axis=1))
    return Annotations.from_counts(counts.astype(np.int64)), np.exp(log_p)


def label_pairs(prevalence: np.ndarray, reliability: float) -> tuple[Annotations, np.ndarray]:
    """Every ordered pair (c, k) of two raters' labels, with probability
    J_ck = (1 − κ)π_cπ_k + κ 1(c = k) π_c."""
    K = prevalence.size
    first, second = np.divmod(np.arange(K * K), K)
    joint = (1 - reliability) * np.outer(prevalence, prevalence) + reliability * np.diag(
        prevalence)
    return (Annotations.from_wide(np.column_stack([first, second]), raters_as_rows=False),
            joint.ravel())


def interval_quadrature(m: int, reliability: float) -> tuple[Annotations, np.ndarray]:
    """The 3^m nodes of the Gauss–Hermite rule for x ~ N(0, σ_b² 11ᵀ + σ_w² I), as items
    of m values, with their weights (exact for polynomials of degree ≤ 5 per coordinate)."""
    nodes = np.array([-math.sqrt(3.0), 0.0, math.sqrt(3.0)])  # probabilists' Hermite
    weights = np.array([1 / 6, 2 / 3, 1 / 6])
    grid = np.array(list(itertools.product(range(3), repeat=m)))
    cov = reliability * np.ones((m, m)) + (1 - reliability) * np.eye(m)
    values = nodes[grid] @ np.linalg.cholesky(cov).T
    return (Annotations.from_wide(values, raters_as_rows=False),
            np.prod(weights[grid], axis=1))
