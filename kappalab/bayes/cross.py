r"""Bayesian cross-replication reliability: two rater pools annotating the same items.

Each item i has a pair of latent true scores, one per replication, drawn from a bivariate
normal with correlation ρ; each pool's annotations of the item scatter around its own true
score. The latent scores are integrated out (analytically for interval data, by quadrature
for binary data), so the models have no per-item parameters; items annotated in one
replication only contribute their one-sided likelihood. The posterior quantities are those of
Wong, Paritosh & Aroyo (2021) as population values: the reliability of each replication
(IRR_X, IRR_Y), the cross-replication reliability κx, normalized κx = κx/√(IRR_X·IRR_Y), and
the correlation ρ of the items' true scores that normalized κx approximates; their values for
:func:`kappalab.simulate.replications` data are that function's exact ``Truth``.

This module is the front end, :func:`cross_replication`; the models live in
:mod:`kappalab.bayes.cross_interval` and :mod:`kappalab.bayes.cross_binary` (their building
blocks are re-exported here), what they share in ``kappalab.bayes.cross_common``.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ..annotations import as_annotations
from ..errors import InvalidParameterError
from ..validation import SeedLike, check_real
from .cross_binary import QUADRATURE_HALF_WIDTH, BinaryPatterns, binary_loglik, binary_posterior
from .cross_interval import (CrossIntervalStatistics, bivariate_means_loglik,
                             cross_interval_loglik, interval_posterior)
from .posterior import Posterior
from .sampling import SamplingOptions, validate_prior

__all__ = ["cross_replication", "LEVELS",
           # the models' building blocks, re-exported from cross_interval and cross_binary
           "BinaryPatterns", "CrossIntervalStatistics", "QUADRATURE_HALF_WIDTH", "binary_loglik",
           "bivariate_means_loglik", "cross_interval_loglik"]

LEVELS = ("interval", "binary")


def cross_replication(x: Any, y: Any, *, level: str = "interval", draws: int = 1000,
                      tune: int = 1000, chains: int = 2, seed: SeedLike = None,
                      sampler: str = "pymc", prior: Mapping[str, Any] | None = None,
                      categories: Sequence[Any] | None = None,
                      quadrature_step: float | None = None) -> Posterior:
    r"""Posterior of cross-replication reliability: IRR_X, IRR_Y, κx, normalized κx and ρ.

    ``x`` and ``y`` are two replications (two rater pools) of an annotation task; items are
    matched by label. Items annotated on both sides carry the cross information, items on one
    side only that side's.

    **level="interval"** — bivariate one-way random effects, with x_rj = μ_X + b_iX + e_rj,
    y_sj = μ_Y + b_iY + e'_sj, e ~ N(0, σ_wX²), e' ~ N(0, σ_wY²) and

    .. math::  \begin{pmatrix} b_{iX} \\ b_{iY} \end{pmatrix} \sim N\!\left(0,
               \begin{pmatrix} σ_{bX}^2 & ρσ_{bX}σ_{bY} \\ ρσ_{bX}σ_{bY} & σ_{bY}^2
               \end{pmatrix}\right).

    With the b's integrated out, the item means of an item with R_i and S_i annotations are
    bivariate normal and independent of each side's within-item sums of squares:

    .. math::  \begin{pmatrix} \bar x_i \\ \bar y_i \end{pmatrix} \sim N\!\left(
               \begin{pmatrix} μ_X \\ μ_Y \end{pmatrix},
               \begin{pmatrix} σ_{bX}^2 + σ_{wX}^2/R_i & ρσ_{bX}σ_{bY} \\
               ρσ_{bX}σ_{bY} & σ_{bY}^2 + σ_{wY}^2/S_i \end{pmatrix}\right), \qquad
               SS_{iX}/σ_{wX}^2 \sim χ^2_{R_i-1}, \quad SS_{iY}/σ_{wY}^2 \sim χ^2_{S_i-1}.

    Items are grouped by (R_i, S_i); the likelihood needs only per-item moments. Derived:

    .. math::  \mathrm{IRR}_X = \frac{σ_{bX}^2}{σ_{bX}^2 + σ_{wX}^2}, \qquad
               κ_x = \frac{2ρσ_{bX}σ_{bY}}{(μ_X - μ_Y)^2 + σ_{bX}^2 + σ_{bY}^2 + σ_{wX}^2
               + σ_{wY}^2}

    (κx = 1 − d_o/d_e with the squared distance, eqs 6–11 of Wong et al. 2021, as a
    population value), normalized κx = κx/√(IRR_X·IRR_Y) and ``rho`` = ρ, the correlation of
    the item true scores. Priors (data standardised by the pooled mean and sd s of both
    sides): IRR ~ Beta(``prior["irr"]``, default (1, 1)) per side, total sd ~
    HalfNormal(``prior["sd"]``·s) (2), μ ~ N(mean, ``prior["mu"]``·s) (10), (ρ + 1)/2 ~
    Beta(``prior["rho"]``) (default (1, 1): ρ uniform on (−1, 1)). Other variables:
    ``mu_x``, ``mu_y``, ``sigma_between_x``/``_y``, ``sigma_within_x``/``_y`` (data scale).
    With 50 items (``simulate.replications(50, rho=0.8)``, κx = 0.48, 48 datasets of
    ``experiments/bayes_priors.py``) the posterior mean of κx is 0.037 ± 0.011 below the
    truth (the frequentist κx 0.009): the uniform priors of ρ and of the IRRs make the
    prior of κx ≈ ρ√(IRR_X·IRR_Y) concentrated near 0 (80% within ±0.38). (ρ + 1)/2 ~
    Beta(½, ½) takes 0.013 of that bias away (paired over the same datasets), but its
    coverage at 200 and 1 000 items was measured on 15 datasets only, so the default is kept.

    **level="binary"** — the latent-threshold model of
    ``kappalab.simulate.replications(level="binary")``: item latents (u_X, u_Y) standard
    bivariate normal with correlation ρ_u (``latent_rho``); an annotation of side X is the
    second category ("1") with probability

    .. math::  P(x = 1 \mid u_X) = Φ\!\left(\frac{\sqrt{ρ_{LX}}\,u_X - t_X}
               {\sqrt{1 - ρ_{LX}}}\right), \qquad t_X = Φ^{-1}(1 - π_X),

    (π_X = ``prevalence_x``, the share of "1"; ρ_LX = ``latent_icc_x``, the latent ICC), and
    likewise for Y; given the latents, the k_i "1"s among an item's R_i annotations are
    binomial. The likelihood of an item is the double integral over (u_X, u_Y) of the two
    binomial likelihoods, by the trapezoid rule on a square grid of step h over [−7.5, 7.5]²
    (exponentially accurate for smooth integrands) with the bivariate-normal density as
    weights, normalised to sum to 1:

    .. math::  P(k_X, k_Y \mid R, S) ≈ \sum_{a,b} W_{ab}(ρ_u)\, f_{k_X R}(z_a)\,
               f_{k_Y S}(z_b), \qquad W_{ab} ∝ φ_2(z_a, z_b; ρ_u),

    a matrix product over the distinct X patterns (k_X, R) and Y patterns (k_Y, S), each f
    scaled by its largest value on the grid (the log-sum-exp device). h =
    ``quadrature_step``, by default 0.6 × the width √(1 − ρ_L)/√ρ_L of the steepest item
    curve the data suggest (at a latent ICC above theirs), at most 0.2 and at most
    1.68·√(1 − 0.99) = 0.168 so that the density's ridge is resolved up to \|ρ_u| = 0.99:
    relative error of an item's likelihood ~1e-6 or less (a :class:`SamplingWarning` says
    when the posterior reaches values the grid resolves worse than ~1e-3). Derived, per draw,
    with exact bivariate-normal probabilities (Owen's T, :mod:`kappalab.bivariate_normal`), as
    ``simulate.replications`` defines its truths: ``irr_x``/``irr_y`` = nominal α = Fleiss κ
    of each side, ``kx`` = nominal κx, ``normalized_kx``, and ``rho`` = the correlation of
    the item true scores E[x | item] = P(x = 1 | u) across the two sides (what Spearman's
    correction targets; not ρ_u). Priors: π ~ Beta(``prior["prevalence"]``) (1, 1), ρ_L ~
    Beta(``prior["latent_icc"]``) (1, ½), (ρ_u + 1)/2 ~ Beta(``prior["rho"]``) (½, ½).
    Annotators of a pool are exchangeable (no rater bias). Each side needs items with 2 or
    more annotations: with one annotation per item, ρ_L is not identified apart from ρ_u.

    *Why these priors.* The reported reliabilities are chance-corrected agreements of the
    thresholded categories, far below the latent correlations: by Sheppard's (1899) formula a
    median split of a bivariate normal of correlation r has κ = (2/π) arcsin r (ρ_L = 0.81
    gives IRR = 0.6). Uniform priors on ρ_L and ρ_u put 80% of the prior of each side's IRR
    below 0.69 (median 0.29) and 80% of the prior of κx, a product of the cross correlation
    and the two sides' reliabilities, within ±0.13, so with few items they pull κx towards
    0. The priors under which the median split's κ is uniform are r ∝ (1 − r²)^(−1/2):
    exactly Beta(½, ½) for (ρ_u + 1)/2, and ≈ Beta(1, ½) for ρ_L (density ∝ (1 − ρ_L)^(−1/2)
    near 1). Under them the prior of IRR is close to uniform (mean 0.50, 80% in 0.09–0.90 at
    uniform π) and that of κx twice as wide (80% within ±0.23). With 50 items the posterior
    of ρ_u then more often reaches \|ρ_u| > 0.99, which the default grid resolves less well
    (23 :class:`SamplingWarning` in 20 fits of the study below, against 8), and the warning
    gives the step to refit with. In
    ``experiments/bayes_priors.py`` (``simulate.replications(50, level="binary", rho=0.8,
    prevalence=(0.7, 0.3))``, κx = 0.441, the same 20 datasets under both priors) the
    posterior mean of κx is 0.027 ± 0.019 below the truth (0.060 under uniform ρ_L and ρ_u;
    paired difference 0.033 ± 0.002), while the frequentist κx is 0.010 above it.
    At 200 items the priors differ by 0.010 (bias 0.021 ± 0.009 against 0.031; 8 datasets,
    every 95% HDI covering); with 50 items and κx = 0.539 (reliabilities 0.8) the bias is
    0.067 ± 0.032 against 0.105 (8 datasets), the frequentist κx 0.018 below the truth.

    Parameters
    ----------
    x, y : the two replications: Annotations, or anything :meth:`Annotations.from_wide`
        takes. Interval: numeric values. Binary: two categories over both sides (the second in
        sorted order is "1").
    level : ``"interval"`` or ``"binary"``.
    draws, tune, chains, seed, sampler : as in :func:`~kappalab.bayes.nominal_reliability`.
    prior : interval ``{"irr", "sd", "mu", "rho"}``; binary
        ``{"prevalence", "latent_icc", "rho"}`` (see above).
    categories : passed to :meth:`Annotations.from_wide`.
    quadrature_step : binary only: the grid step h (smaller is more accurate and slower).

    Returns
    -------
    Posterior
        Variables ``irr_x``, ``irr_y``, ``kx``, ``normalized_kx``, ``rho`` (both levels),
        with ``mu_x``, ``mu_y``, ``sigma_between_x``, ``sigma_between_y``,
        ``sigma_within_x``, ``sigma_within_y`` (interval) or ``prevalence_x``,
        ``prevalence_y``, ``latent_icc_x``, ``latent_icc_y``, ``latent_rho``,
        ``threshold_x``, ``threshold_y`` (binary). Posterior predictive:
        ``item_mean_correlation`` (interval: the correlation of x̄_i and ȳ_i over the common
        items) or ``item_agreement_x``, ``item_agreement_y`` (mean item agreement per side)
        and ``cross_agreement`` (mean over common items of the share of agreeing cross
        pairs) for binary data. ``idata.posterior.attrs`` records the numbers of common and
        one-sided items (and, binary, the quadrature step and the category taken as "1").

    Raises
    ------
    EmptyDataError
        No annotated item in common, or a side without an item with 2 or more annotations.
    InvalidParameterError
        Unknown level; binary data with other than 2 categories.
    NonNumericError
        Interval level on non-numeric values.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication reliability — an empirical
    approach to interpreting inter-rater reliability. ACL 2021, 7053–7065,
    doi:10.18653/v1/2021.acl-long.548. Shrout, P. E. & Fleiss, J. L. (1979), Psychological
    Bulletin 86(2), 420–428 (the one-way model of each side). Sheppard, W. F. (1899). On the
    application of the theory of error to cases of normal distribution and normal
    correlation. Philosophical Transactions of the Royal Society A 192, 101–167,
    doi:10.1098/rsta.1899.0003.

    Examples
    --------
    >>> from kappalab import bayes, simulate
    >>> ann_x, ann_y, truth = simulate.replications(30, rho=0.9, seed=0)
    >>> round(truth.kx, 4)
    0.54
    >>> post = bayes.cross_replication(ann_x, ann_y, draws=50, tune=50, chains=1,
    ...                                seed=0)       # doctest: +SKIP
    >>> -1 < post.mean("kx") < 1                     # doctest: +SKIP
    True
    >>> post = bayes.cross_replication(ann_x, ann_y, level="binary")  # doctest: +SKIP
    """
    if level not in LEVELS:
        raise InvalidParameterError(
            f"unknown level {level!r} for cross_replication; choose one of "
            f"{', '.join(map(repr, LEVELS))}")
    options = SamplingOptions(draws, tune, chains, seed, sampler)
    ax = as_annotations(x, categories=categories)
    ay = as_annotations(y, categories=categories)
    if level == "interval":
        prior = validate_prior(prior, {"irr": (1.0, 1.0), "sd": 2.0, "mu": 10.0,
                                       "rho": (1.0, 1.0)}, "cross_replication (interval)")
        return interval_posterior(ax, ay, options, prior)
    if quadrature_step is not None:
        quadrature_step = check_real(quadrature_step, "quadrature_step")
        if not 0 < quadrature_step <= 1:
            raise InvalidParameterError(
                f"quadrature_step must be a number in (0, 1], got {quadrature_step!r}")
    prior = validate_prior(prior, {"prevalence": (1.0, 1.0), "latent_icc": (1.0, 0.5),
                                   "rho": (0.5, 0.5)}, "cross_replication (binary)")
    return binary_posterior(ax, ay, options, prior, quadrature_step)

