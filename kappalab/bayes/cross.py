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
"""

from __future__ import annotations

import math
from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np
from scipy.special import ndtr, ndtri

from .. import distances
from ..alignment import AlignedReplications
from ..annotations import Annotations, as_annotations
from ..errors import EmptyDataError, InvalidParameterError, warn
from ..kernels import (alpha_from_joint, chance_corrected, distinct_rows,
                       fleiss_chance_agreement, latent_cross_tables, latent_icc,
                       pair_agreement, row_pearson, true_score_correlation)
from ..validation import check_real
from .assembly import assemble, blocks, flat
from .sampling import SamplingOptions, require_pymc, sample, validate_prior
from .models import (OneWayStatistics, as_float, item_statistics, location_scale,
                     normal_means_loglik, within_loglik)
from .posterior import Posterior, SamplingWarning

__all__ = ["cross_replication", "LEVELS"]

LEVELS = ("interval", "binary")
_LOG_2PI = float(np.log(2 * np.pi))
#: half-width of the quadrature grid on each standardised latent axis (P(|u| > 7.5) ≈ 6e-14)
QUADRATURE_HALF_WIDTH = 7.5
#: the grid step is at most this fraction of the narrowest item-curve width √(1−ρ_L)/√ρ_L
_STEP_PER_WIDTH = 0.6
#: ... and small enough for the ridge of the latent density up to |ρ_u| = 0.99: the trapezoid
#: error of a bivariate normal is ~exp(−(2π/h)²(1 − ρ_u)), ≤ 1e-6 for h ≤ 1.68 √(1 − ρ_u)
_RIDGE_FACTOR = 1.68
_RIDGE_RHO = 0.99
_MAX_STEP = 0.2
_MAX_NODES = 401


def cross_replication(x: Any, y: Any, *, level: str = "interval", draws: int = 1000,
                      tune: int = 1000, chains: int = 2, seed: Any = None,
                      sampler: str = "auto", prior: Mapping[str, Any] | None = None,
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
    1.68·√(1 − 0.99) = 0.168 so that the density's ridge is resolved up to |ρ_u| = 0.99:
    relative error of an item's likelihood ~1e-6 or less (a :class:`SamplingWarning` says
    when the posterior reaches values the grid resolves worse than ~1e-3). Derived, per draw,
    with exact bivariate-normal probabilities (Owen's T, :mod:`kappalab.bivariate_normal`), as
    ``simulate.replications`` defines its truths: ``irr_x``/``irr_y`` = nominal α = Fleiss κ
    of each side, ``kx`` = nominal κx, ``normalized_kx``, and ``rho`` = the correlation of
    the item true scores E[x | item] = P(x = 1 | u) across the two sides (what Spearman's
    correction targets; not ρ_u). Priors: π ~ Beta(``prior["prevalence"]``) (1, 1), ρ_L ~
    Beta(``prior["latent_icc"]``) (1, 1), (ρ_u + 1)/2 ~ Beta(``prior["rho"]``) (1, 1).
    Annotators of a pool are exchangeable (no rater bias). Each side needs items with 2 or
    more annotations: with one annotation per item, ρ_L is not identified apart from ρ_u.

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
    Bulletin 86(2), 420–428 (the one-way model of each side).
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
        return _interval(ax, ay, options, prior)
    if quadrature_step is not None:
        quadrature_step = check_real(quadrature_step, "quadrature_step")
        if not 0 < quadrature_step <= 1:
            raise InvalidParameterError(
                f"quadrature_step must be a number in (0, 1], got {quadrature_step!r}")
    prior = validate_prior(prior, {"prevalence": (1.0, 1.0), "latent_icc": (1.0, 1.0),
                                   "rho": (1.0, 1.0)}, "cross_replication (binary)")
    return _binary(ax, ay, options, prior, quadrature_step)


def _item_counts(al: AlignedReplications) -> dict[str, int]:
    """The numbers of common and one-sided items, for ``idata.posterior.attrs``."""
    return {"n_common_items": al.n_common, "n_items_only_x": al.n_only_x,
            "n_items_only_y": al.n_only_y}


def _require_pairable(m: np.ndarray, side: str, what: str) -> None:
    if not (m >= 2).any():
        raise EmptyDataError(
            f"replication {side} has no item with 2 or more annotations: its {what} is not "
            "identified (with one annotation per item, within-pool agreement is unobserved); "
            "use kappalab.cross_kappa for κx alone")


# ====================================================================== interval
class CrossIntervalStatistics(NamedTuple):
    """Sufficient statistics of the bivariate model (standardised values): the common items
    grouped by (R, S) with n, Σx̄, Σȳ, Σx̄², Σȳ², Σx̄ȳ per group; per side the one-sided items'
    means grouped by m and the within-item SS pooled over all the side's items."""

    R: np.ndarray
    S: np.ndarray
    n: np.ndarray
    sum_x: np.ndarray
    sum_y: np.ndarray
    sum_xx: np.ndarray
    sum_yy: np.ndarray
    sum_xy: np.ndarray
    x: OneWayStatistics
    y: OneWayStatistics

    @classmethod
    def from_items(cls, x_items, y_items, n_common: int, n_only_x: int):
        """``x_items``, ``y_items``: per aligned item (m, mean, SS) of each side (common items
        first, then X-only, then Y-only; m = 0 where absent)."""
        (R, xbar, ss_x), (S, ybar, ss_y) = x_items, y_items
        c = n_common
        sizes = np.column_stack([R[:c], S[:c]])
        groups = distinct_rows(sizes, lexicographic=True)
        pairs, inverse = sizes[groups.first], groups.inverse

        def total(v):
            return np.bincount(inverse, weights=v, minlength=pairs.shape[0])

        xc, yc = xbar[:c], ybar[:c]
        sides = []
        for m, mean, ss, rows in ((R, xbar, ss_x, slice(c, c + n_only_x)),
                                  (S, ybar, ss_y, slice(c + n_only_x, None))):
            one_sided = OneWayStatistics.from_items(m[rows], mean[rows], ss[rows])
            present = m > 0
            sides.append(one_sided._replace(df_within=float((m[present] - 1).sum()),
                                            ss_within=float(ss[present].sum())))
        return cls(pairs[:, 0].astype(float), pairs[:, 1].astype(float),
                   np.bincount(inverse).astype(float), total(xc), total(yc), total(xc * xc),
                   total(yc * yc), total(xc * yc), sides[0], sides[1])


def bivariate_means_loglik(pt, st: CrossIntervalStatistics, mu_x, mu_y, vb_x, vw_x, vb_y,
                           vw_y, rho):
    r"""Σ over common items of log N₂((x̄_i, ȳ_i); (μ_X, μ_Y), Σ_i), Σ_i = [[σ_bX² + σ_wX²/R_i,
    ρσ_bXσ_bY], [ρσ_bXσ_bY, σ_bY² + σ_wY²/S_i]], from the grouped sums."""
    mu_x, mu_y, vb_x, vw_x, vb_y, vw_y, rho = as_float(pt, mu_x, mu_y, vb_x, vw_x, vb_y, vw_y,
                                                       rho)
    cov = rho * pt.sqrt(vb_x * vb_y)
    a = vb_x + vw_x / st.R
    d = vb_y + vw_y / st.S
    det = a * d - cov**2
    sxx = st.sum_xx - 2.0 * mu_x * st.sum_x + st.n * mu_x**2
    syy = st.sum_yy - 2.0 * mu_y * st.sum_y + st.n * mu_y**2
    sxy = st.sum_xy - mu_y * st.sum_x - mu_x * st.sum_y + st.n * mu_x * mu_y
    return (-st.n * (_LOG_2PI + 0.5 * pt.log(det))
            - (d * sxx - 2.0 * cov * sxy + a * syy) / (2.0 * det)).sum()


def cross_interval_loglik(pt, st: CrossIntervalStatistics, mu_x, mu_y, vb_x, vw_x, vb_y, vw_y,
                          rho):
    """The bivariate model's log-likelihood up to a constant: common items' means, one-sided
    items' means, and each side's within-item SS."""
    return (bivariate_means_loglik(pt, st, mu_x, mu_y, vb_x, vw_x, vb_y, vw_y, rho)
            + normal_means_loglik(pt, st.x, mu_x, vb_x, vw_x) + within_loglik(pt, st.x, vw_x)
            + normal_means_loglik(pt, st.y, mu_y, vb_y, vw_y) + within_loglik(pt, st.y, vw_y))


def _interval(ax: Annotations, ay: Annotations, options: SamplingOptions,
              prior: dict[str, Any]) -> Posterior:
    ax.category_values("the interval cross-replication model")
    ay.category_values("the interval cross-replication model")
    al = AlignedReplications(ax, ay)
    center, scale = location_scale(ax, ay)
    if not scale > 0:
        raise EmptyDataError(f"every annotation has the same value ({center:g}): reliability "
                             "is undefined")
    items = []
    for ann, side in ((ax, "x"), (ay, "y")):
        m, mean, ss = (al.spread(v, side) for v in item_statistics(ann, center, scale))
        _require_pairable(m, side.upper(), "reliability")
        items.append((m, mean, ss))
    stats = CrossIntervalStatistics.from_items(items[0], items[1], al.n_common, al.n_only_x)

    pm = require_pymc()
    import pytensor.tensor as pt

    with pm.Model() as model:
        irr_x = pm.Beta("irr_x", *prior["irr"])
        irr_y = pm.Beta("irr_y", *prior["irr"])
        sd_x = pm.HalfNormal("sigma_total_x", prior["sd"])
        sd_y = pm.HalfNormal("sigma_total_y", prior["sd"])
        mu_x = pm.Normal("mu_x_z", 0.0, prior["mu"])
        mu_y = pm.Normal("mu_y_z", 0.0, prior["mu"])
        rho_unit = pm.Beta("rho_unit", *prior["rho"])
        rho = pm.Deterministic("rho", 2.0 * rho_unit - 1.0)
        vb_x, vw_x = irr_x * sd_x**2, (1.0 - irr_x) * sd_x**2
        vb_y, vw_y = irr_y * sd_y**2, (1.0 - irr_y) * sd_y**2
        pm.Potential("loglik", cross_interval_loglik(pt, stats, mu_x, mu_y, vb_x, vw_x, vb_y,
                                                     vw_y, rho))
        kx = pm.Deterministic("kx", 2.0 * rho * pt.sqrt(vb_x * vb_y)
                              / ((mu_x - mu_y)**2 + sd_x**2 + sd_y**2))
        pm.Deterministic("normalized_kx", kx / pt.sqrt(irr_x * irr_y))
        pm.Deterministic("mu_x", center + scale * mu_x)
        pm.Deterministic("mu_y", center + scale * mu_y)
        pm.Deterministic("sigma_between_x", scale * pt.sqrt(vb_x))
        pm.Deterministic("sigma_between_y", scale * pt.sqrt(vb_y))
        pm.Deterministic("sigma_within_x", scale * pt.sqrt(vw_x))
        pm.Deterministic("sigma_within_y", scale * pt.sqrt(vw_y))
    keep = ["irr_x", "irr_y", "kx", "normalized_kx", "rho", "mu_x", "mu_y",
            "sigma_between_x", "sigma_between_y", "sigma_within_x", "sigma_within_y"]
    posterior, sample_stats = sample(model, options, keep)

    replicated, observed = {}, {}
    c = al.n_common
    if c >= 3:
        draws = {k: flat(posterior, k) for k in keep}
        R, S = items[0][0][:c], items[1][0][:c]
        replicated["item_mean_correlation"] = _replicate_mean_correlation(
            options.rng, draws, R, S)
        observed["item_mean_correlation"] = float(
            row_pearson(items[0][1][:c], items[1][1][:c]))
    return assemble(
        posterior, sample_stats, options, model="cross_replication (interval)",
        replicated=replicated, observed=observed,
        headline=("irr_x", "irr_y", "kx", "normalized_kx", "rho"),
        attrs={**_item_counts(al), "level": "interval", "data_mean": center, "data_sd": scale})


def _replicate_mean_correlation(rng, draws, R, S) -> np.ndarray:
    """Correlation of replicated item means (x̄_i, ȳ_i) over the common items, per draw."""
    n_draws = draws["rho"].size
    out = np.empty(n_draws)
    for block in blocks(n_draws, R.size):
        def col(name):
            return draws[name][block, None]
        shape = (block.stop - block.start, R.size)
        z1, z2 = rng.standard_normal(shape), rng.standard_normal(shape)
        rho = col("rho")
        b_x = col("sigma_between_x") * z1
        b_y = col("sigma_between_y") * (rho * z1 + np.sqrt(np.maximum(1 - rho**2, 0)) * z2)
        x = col("mu_x") + b_x + col("sigma_within_x") / np.sqrt(R) * rng.standard_normal(shape)
        y = col("mu_y") + b_y + col("sigma_within_y") / np.sqrt(S) * rng.standard_normal(shape)
        out[block] = row_pearson(x, y)
    return out


# ====================================================================== binary
def _binary_counts(ax: Annotations, ay: Annotations, al: AlignedReplications):
    """Per item of ``al.union_rows``: (R, k_X, S, k_Y), k = annotations in the second
    category."""
    union, x_pos, y_pos = al.categories, al.x_map, al.y_map
    if len(union) != 2:
        raise InvalidParameterError(
            f"level='binary' needs exactly 2 categories over both replications, got "
            f"{len(union)}: {list(union)[:6]}")
    out = []
    for ann, pos, side in ((ax, x_pos, "x"), (ay, y_pos, "y")):
        counts = ann.count_matrix
        m = counts.sum(axis=1).astype(float)
        high = counts[:, pos == 1].sum(axis=1).astype(float)
        out += [al.spread(m, side), al.spread(high, side)]
    return union, out


def _fleiss_binary(m: np.ndarray, k: np.ndarray) -> tuple[float, float]:
    """(prevalence of "1", Fleiss κ) from binary counts: a starting guess for the grid."""
    p_o = np.mean(_binary_pair_agreement(k, m)[m >= 2])
    p1 = k.sum() / m.sum()
    kappa = chance_corrected(p_o, fleiss_chance_agreement([1 - p1, p1]))
    return float(p1), float(kappa) if np.isfinite(kappa) else 0.0


def _latent_icc(prevalence: float, alpha: float) -> float:
    """ρ_L whose thresholded binary categories have nominal α = ``alpha`` (0 ≤ α < 1), to
    1e-10 (a starting point for the quadrature step, not a truth)."""
    return latent_icc([ndtri(1.0 - prevalence)], alpha, xtol=1e-10)


def _width(latent_icc: float) -> float:
    """Width √(1 − ρ_L)/√ρ_L of an item's category curve on the standardised latent."""
    return math.sqrt(1.0 - latent_icc) / math.sqrt(latent_icc) if latent_icc > 0 else math.inf


def _auto_step(m_x, k_x, m_y, k_y) -> float:
    """A grid step that resolves the item curves at a latent ICC well above the data's and
    the latent density's ridge up to |ρ_u| = 0.99."""
    widths = []
    for m, k in ((m_x, k_x), (m_y, k_y)):
        present = m > 0
        p1, kappa = _fleiss_binary(m[present], k[present])
        p1 = min(max(p1, 1e-3), 1 - 1e-3)
        kappa = min(max(kappa, 0.0), 0.99)
        high = kappa + (1.0 - kappa) / 3.0  # a margin for the posterior's upper tail
        widths.append(_width(_latent_icc(p1, high)))
    return min(_MAX_STEP, _STEP_PER_WIDTH * min(widths),
               _RIDGE_FACTOR * math.sqrt(1.0 - _RIDGE_RHO))


class BinaryPatterns(NamedTuple):
    """The binary model's data and quadrature grid: distinct X patterns (k, R) and Y patterns
    (l, S) (R or S = 0 for items absent on a side), the observed (X, Y) pattern pairs with
    their multiplicities, and the grid nodes z (step h over [−7.5, 7.5])."""

    x: np.ndarray
    y: np.ndarray
    pairs: np.ndarray
    multiplicity: np.ndarray
    z: np.ndarray

    @classmethod
    def from_counts(cls, R, k_x, S, k_y, step: float) -> "BinaryPatterns":
        x_all, y_all = np.column_stack([k_x, R]), np.column_stack([k_y, S])
        x_groups = distinct_rows(x_all, lexicographic=True)
        y_groups = distinct_rows(y_all, lexicographic=True)
        x_pat, y_pat = x_all[x_groups.first], y_all[y_groups.first]
        pair_all = np.column_stack([x_groups.inverse, y_groups.inverse])
        pair_groups = distinct_rows(pair_all, lexicographic=True)
        pairs, multiplicity = pair_all[pair_groups.first], pair_groups.counts
        n_half = int(math.ceil(QUADRATURE_HALF_WIDTH / step))
        if 2 * n_half + 1 > _MAX_NODES:
            n_half = (_MAX_NODES - 1) // 2
        z = (QUADRATURE_HALF_WIDTH / n_half) * np.arange(-n_half, n_half + 1)
        return cls(x_pat.astype(float), y_pat.astype(float), pairs,
                   multiplicity.astype(float), z)

    @property
    def step(self) -> float:
        return float(self.z[1] - self.z[0])


def binary_loglik(pt, bp: BinaryPatterns, t_x, t_y, licc_x, licc_y, rho_u):
    r"""Σ over items of log P(k_X, k_Y | R, S), each item's probability of its own sequence of
    annotations (the binomial coefficients, constants, are left out), by the trapezoid rule on
    the grid: Σ_ab W_ab(ρ_u) f_X(z_a) f_Y(z_b), W ∝ φ₂(z_a, z_b; ρ_u) normalised to 1, as a
    matrix product over the distinct X and Y patterns."""
    from pytensor.gradient import zero_grad

    z = bp.z
    t_x, t_y, licc_x, licc_y, rho_u = as_float(pt, t_x, t_y, licc_x, licc_y, rho_u)

    def scaled_likelihood(patterns, licc, threshold):
        # exp(ℓ − max ℓ) per pattern and node, ℓ = k log p + (m − k) log(1 − p); log Φ(±η) as
        # log(erfc(∓η/√2)/2), η clipped to ±25 (Φ(−25) ≈ 3e-138: nodes that far out carry a
        # negligible share of every pattern's integral)
        eta = pt.clip((pt.sqrt(licc) * z - threshold) / pt.sqrt(1.0 - licc), -25.0, 25.0)
        log_p1 = pt.log(0.5 * pt.erfc(-eta / np.sqrt(2.0)))
        log_p0 = pt.log(0.5 * pt.erfc(eta / np.sqrt(2.0)))
        ell = (patterns[:, :1] * log_p1[None, :]
               + (patterns[:, 1:] - patterns[:, :1]) * log_p0[None, :])
        top = zero_grad(ell.max(axis=1))  # any constant per row: it cancels exactly
        return pt.exp(ell - top[:, None]), top

    f_x, top_x = scaled_likelihood(bp.x, licc_x, t_x)  # (X patterns, nodes)
    f_y, top_y = scaled_likelihood(bp.y, licc_y, t_y)  # (Y patterns, nodes)
    log_w = -(z[:, None] ** 2 + z[None, :] ** 2 - 2.0 * rho_u * z[:, None] * z[None, :]) / (
        2.0 * (1.0 - rho_u**2))
    w = pt.exp(log_w - zero_grad(log_w.max()))
    w = w / w.sum()
    integral = pt.dot(pt.dot(f_x, w), f_y.T)  # (X patterns, Y patterns)
    i, j = bp.pairs[:, 0], bp.pairs[:, 1]
    log_p = pt.log(integral[i, j]) + top_x[i] + top_y[j]
    return (bp.multiplicity * log_p).sum()


def _binary(ax: Annotations, ay: Annotations, options: SamplingOptions,
            prior: dict[str, Any], step: float | None) -> Posterior:
    al = AlignedReplications(ax, ay)
    union, (R, k_x, S, k_y) = _binary_counts(ax, ay, al)
    _require_pairable(R, "X", "latent ICC (and so IRR_X)")
    _require_pairable(S, "Y", "latent ICC (and so IRR_Y)")
    patterns = BinaryPatterns.from_counts(R, k_x, S, k_y,
                                          _auto_step(R, k_x, S, k_y) if step is None else step)

    pm = require_pymc()
    import pytensor.tensor as pt

    with pm.Model() as model:
        prev_x = pm.Beta("prevalence_x", *prior["prevalence"])
        prev_y = pm.Beta("prevalence_y", *prior["prevalence"])
        licc_x = pm.Beta("latent_icc_x", *prior["latent_icc"])
        licc_y = pm.Beta("latent_icc_y", *prior["latent_icc"])
        rho_unit = pm.Beta("rho_unit", *prior["rho"])
        rho_u = pm.Deterministic("latent_rho", 2.0 * rho_unit - 1.0)
        # t = Φ⁻¹(1 − π) = −√2 erfinv(2π − 1)
        t_x = pm.Deterministic("threshold_x", -np.sqrt(2.0) * pt.erfinv(2.0 * prev_x - 1.0))
        t_y = pm.Deterministic("threshold_y", -np.sqrt(2.0) * pt.erfinv(2.0 * prev_y - 1.0))
        pm.Potential("loglik", binary_loglik(pt, patterns, t_x, t_y, licc_x, licc_y, rho_u))
    keep = ["prevalence_x", "prevalence_y", "latent_icc_x", "latent_icc_y", "latent_rho",
            "threshold_x", "threshold_y"]
    posterior, sample_stats = sample(model, options, keep)

    draws = {k: flat(posterior, k) for k in keep}
    derived = _binary_truths(draws)
    _check_resolution(draws, patterns.step)
    c = al.n_common
    replicated = _replicate_binary(options.rng, draws, R, S, c)
    observed = _binary_statistics(R, k_x, S, k_y, c)
    return assemble(
        posterior, sample_stats, options, model="cross_replication (binary)",
        derived=derived, replicated=replicated, observed=observed,
        headline=("irr_x", "irr_y", "kx", "normalized_kx", "rho"),
        attrs={**_item_counts(al), "level": "binary", "high_category": str(union[1]),
               "quadrature_step": patterns.step, "quadrature_nodes_per_axis": int(
                   patterns.z.size), "n_patterns": int(patterns.pairs.shape[0])})


def _binary_truths(d: Mapping[str, np.ndarray]) -> dict[str, np.ndarray]:
    r"""Per draw: IRR_X, IRR_Y (nominal α), κx (nominal), normalized κx and the true-score
    correlation ρ, from bivariate-normal rectangles exactly as ``simulate`` defines them."""
    t = latent_cross_tables(d["threshold_x"][:, None], d["threshold_y"][:, None],
                            d["latent_icc_x"], d["latent_icc_y"], d["latent_rho"])
    nominal = distances.nominal(2)
    irr_x = alpha_from_joint(t.joint_x, t.marginals_x, t.marginals_x, nominal)
    irr_y = alpha_from_joint(t.joint_y, t.marginals_y, t.marginals_y, nominal)
    kx = alpha_from_joint(t.joint, t.marginals_x, t.marginals_y, nominal)
    return {"irr_x": irr_x, "irr_y": irr_y, "kx": kx,
            "normalized_kx": kx / np.sqrt(irr_x * irr_y),
            "rho": true_score_correlation(t)[0]}


def _check_resolution(draws: Mapping[str, np.ndarray], step: float) -> None:
    """Warn when the posterior reaches latent ICCs or latent correlations that the grid
    under-resolves (relative quadrature error of an item's likelihood above ~1e-3: step above
    0.8 × the item-curve width, or (2π/h)²(1 − |ρ_u|) below 7)."""
    licc = max(float(np.quantile(draws["latent_icc_x"], 0.99)),
               float(np.quantile(draws["latent_icc_y"], 0.99)))
    rho = float(np.quantile(np.abs(draws["latent_rho"]), 0.99))
    problems, steps = [], []
    if step > 0.8 * _width(licc):
        problems.append(f"a latent ICC of {licc:.4f}")
        steps.append(_STEP_PER_WIDTH * _width(licc))
    if (2 * math.pi / step) ** 2 * (1.0 - rho) < 7.0:
        problems.append(f"a latent correlation of {rho:.4f}")
        steps.append(_RIDGE_FACTOR * math.sqrt(max(1.0 - rho, 1e-12)))
    if problems:
        warn(f"cross_replication (binary): the posterior reaches {' and '.join(problems)}, "
             f"which the quadrature step {step:.3g} resolves poorly; refit with "
             f"quadrature_step={min(steps):.3g}", SamplingWarning)


def _binary_pair_agreement(k: np.ndarray, m: np.ndarray) -> np.ndarray:
    """P_i of an item's m binary annotations with k "1"s (0 where m < 2)."""
    return pair_agreement(np.stack(np.broadcast_arrays(m - k, k), axis=-1), m)


def _binary_statistics(R, kx, S, ky, c) -> dict[str, float]:
    """Mean item agreement per side and mean cross agreement over common items (last axis)."""
    px, py = R >= 2, S >= 2
    cross = (kx[..., :c] * ky[..., :c] + (R[:c] - kx[..., :c]) * (S[:c] - ky[..., :c])) / (
        R[:c] * S[:c])
    return {"item_agreement_x": _binary_pair_agreement(kx[..., px], R[px]).mean(axis=-1),
            "item_agreement_y": _binary_pair_agreement(ky[..., py], S[py]).mean(axis=-1),
            "cross_agreement": cross.mean(axis=-1)}


def _replicate_binary(rng, d, R, S, c) -> dict[str, np.ndarray]:
    n_draws, n_items = d["latent_rho"].size, R.size
    out = {k: np.empty(n_draws) for k in ("item_agreement_x", "item_agreement_y",
                                          "cross_agreement")}
    Ri, Si = R.astype(np.int64), S.astype(np.int64)
    for block in blocks(n_draws, n_items):
        def col(name):
            return d[name][block, None]
        shape = (block.stop - block.start, n_items)
        u_x = rng.standard_normal(shape)
        rho = col("latent_rho")
        u_y = rho * u_x + np.sqrt(np.maximum(1 - rho**2, 0)) * rng.standard_normal(shape)
        p_x = ndtr((np.sqrt(col("latent_icc_x")) * u_x - col("threshold_x"))
                   / np.sqrt(1 - col("latent_icc_x")))
        p_y = ndtr((np.sqrt(col("latent_icc_y")) * u_y - col("threshold_y"))
                   / np.sqrt(1 - col("latent_icc_y")))
        k_x = rng.binomial(Ri, p_x).astype(float)
        k_y = rng.binomial(Si, p_y).astype(float)
        for name, value in _binary_statistics(R, k_x, S, k_y, c).items():
            out[name][block] = value
    return out
