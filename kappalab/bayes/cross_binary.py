r"""The binary cross-replication model of :func:`kappalab.bayes.cross_replication`
(``level="binary"``): bivariate latent thresholds, each item's likelihood integrated over the
two latents by the trapezoid rule on a square grid, as a matrix product over the distinct
annotation patterns of each side; the derived reliabilities are exact bivariate-normal
probabilities (Owen's T), as ``kappalab.simulate.replications`` defines its truths.
"""

from __future__ import annotations

import math
from typing import Any, Mapping, NamedTuple

import numpy as np
from scipy.special import ndtr, ndtri

from .. import distances
from ..alignment import AlignedReplications
from ..annotations import Annotations
from ..errors import InvalidParameterError, warn
from ..kernels import chance_corrected, distinct_rows, fleiss_chance_agreement, pair_agreement
from ..population import alpha_from_joint, latent_cross_tables, latent_icc, true_score_correlation
from .assembly import assemble, blocks, flat
from .compiled import bucket, data_inputs, fit_model, pad
from .cross_common import item_counts, require_pairable
from .models import as_float
from .posterior import Posterior, SamplingWarning
from .sampling import SamplingOptions, prior_attrs

__all__ = ["BinaryPatterns", "QUADRATURE_HALF_WIDTH", "binary_loglik", "binary_posterior"]

#: half-width of the quadrature grid on each standardised latent axis (P(\|u| > 7.5) ≈ 6e-14)
QUADRATURE_HALF_WIDTH = 7.5
#: the grid step is at most this fraction of the narrowest item-curve width √(1−ρ_L)/√ρ_L
_STEP_PER_WIDTH = 0.6
#: ... and small enough for the ridge of the latent density up to |ρ_u| = 0.99: the trapezoid
#: error of a bivariate normal is ~exp(−(2π/h)²(1 − ρ_u)), ≤ 1e-6 for h ≤ 1.68 √(1 − ρ_u)
_RIDGE_FACTOR = 1.68
_RIDGE_RHO = 0.99
_MAX_STEP = 0.2
_MAX_NODES = 401


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
    their multiplicities, and the grid nodes z (step h over [−7.5, 7.5]).

    Usually built with :meth:`BinaryPatterns.from_counts` ``(R, k_x, S, k_y, step)`` from
    the per-item numbers of annotations R, S and of "1"s k_x, k_y of the two sides (the grid
    is capped at 401 nodes per axis).

    Parameters
    ----------
    x : numpy.ndarray
        The distinct X patterns, one row (k, R) each: "1"s and annotations on side X.
    y : numpy.ndarray
        The distinct Y patterns, one row (l, S) each.
    pairs : numpy.ndarray
        The observed (X pattern, Y pattern) index pairs, shape (n_pairs, 2).
    multiplicity : numpy.ndarray
        The number of items with each pair.
    z : numpy.ndarray
        The quadrature nodes on each standardised latent axis (equally spaced, symmetric).

    Examples
    --------
    >>> import numpy as np
    >>> bp = BinaryPatterns.from_counts(R=np.array([2., 2., 3.]), k_x=np.array([1., 1., 0.]),
    ...                                 S=np.array([1., 1., 0.]), k_y=np.array([1., 1., 0.]),
    ...                                 step=0.5)
    >>> bp.x.tolist(), bp.y.tolist(), bp.pairs.tolist(), bp.multiplicity.tolist()
    ([[0.0, 3.0], [1.0, 2.0]], [[0.0, 0.0], [1.0, 1.0]], [[0, 0], [1, 1]], [1.0, 2.0])
    >>> bp.z.size, round(bp.step, 6)
    (31, 0.5)
    """

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

    def padded(self) -> "BinaryPatterns":
        """Patterns and pairs padded to their shape buckets: empty patterns (0, 0) and pairs
        (0, 0) of multiplicity 0, which add exactly zero to :func:`binary_loglik`; the grid
        is kept."""
        size = bucket(self.pairs.shape[0])
        pairs = np.zeros((size, 2), dtype=np.int64)
        pairs[:self.pairs.shape[0]] = self.pairs
        return self._replace(x=pad(self.x, bucket(self.x.shape[0])),
                             y=pad(self.y, bucket(self.y.shape[0])), pairs=pairs,
                             multiplicity=pad(self.multiplicity, size))

    def shape_key(self) -> tuple[int, ...]:
        """The sizes of the arrays (the shape signature of a compiled model)."""
        return (self.x.shape[0], self.y.shape[0], self.pairs.shape[0], self.z.size)


def binary_loglik(pt, bp: BinaryPatterns, t_x, t_y, licc_x, licc_y, rho_u):
    r"""Σ over items of log P(k_X, k_Y | R, S), each item's probability of its own sequence of
    annotations (the binomial coefficients, constants, are left out), by the trapezoid rule on
    the grid: Σ_ab W_ab(ρ_u) f_X(z_a) f_Y(z_b), W ∝ φ₂(z_a, z_b; ρ_u) normalised to 1, as a
    matrix product over the distinct X and Y patterns.

    Each side's annotation of item i is "1" when √ρ_L·u_i + √(1 − ρ_L)·ε > t (u_i the item's
    standardised latent, ε ~ N(0, 1) per annotation), and (u_iX, u_iY) is standard bivariate
    normal with correlation ρ_u.

    Parameters
    ----------
    pt : module
        ``pytensor.tensor`` (the graph is built with it, so PyMC can differentiate it).
    bp : BinaryPatterns
        The data's patterns and the quadrature grid.
    t_x, t_y : float or tensor
        The thresholds Φ⁻¹(1 − π) of the sides' latents.
    licc_x, licc_y : float or tensor
        The sides' latent ICCs ρ_L, in (0, 1).
    rho_u : float or tensor
        The correlation of the items' latents, in (−1, 1).

    Returns
    -------
    pytensor.tensor.TensorVariable
        The scalar log-likelihood (``.eval()`` gives its value).

    References
    ----------
    .. [1] Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication reliability — an
       empirical approach to interpreting inter-rater reliability. *Proceedings of ACL-IJCNLP
       2021*, 7053–7065, doi:10.18653/v1/2021.acl-long.548.
    .. [2] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. &
       Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press.

    Examples
    --------
    One item with one "1" on each side, median thresholds, independent latents: P = ½ · ½.

    >>> import numpy as np
    >>> import pytensor.tensor as pt
    >>> one = np.array([1.0])
    >>> bp = BinaryPatterns.from_counts(one, one, one, one, step=0.1)
    >>> ll = binary_loglik(pt, bp, 0.0, 0.0, 0.5, 0.5, 0.0)
    >>> bool(np.isclose(ll.eval(), np.log(0.25)))
    True
    """
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
        k, m = patterns[:, 0][:, None], patterns[:, 1][:, None]  # broadcastable columns
        ell = k * log_p1[None, :] + (m - k) * log_p0[None, :]
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


def binary_posterior(ax: Annotations, ay: Annotations, options: SamplingOptions,
                     prior: dict[str, Any], step: float | None) -> Posterior:
    """Fit the binary model to two replications (``prior`` validated by
    :func:`~kappalab.bayes.cross_replication`; ``step``: the quadrature step, None for the
    automatic one).

    The model behind ``cross_replication(x, y, level="binary")``; see there for the model,
    priors and variables.

    Parameters
    ----------
    ax, ay : Annotations
        The two replications (two categories over both; the second in sorted order is "1").
    options : kappalab.bayes.sampling.SamplingOptions
        The validated draws, tune, chains, seed and sampler.
    prior : dict
        Beta parameters ``{"prevalence": (a, b), "latent_icc": (a, b), "rho": (a, b)}``.
    step : float or None
        The quadrature step h; None picks one from the data.

    Returns
    -------
    Posterior
        ``irr_x``, ``irr_y``, ``kx``, ``normalized_kx``, ``rho`` and the model's parameters,
        with posterior predictive checks.

    Raises
    ------
    kappalab.errors.InvalidParameterError
        Other than 2 categories over both replications.
    kappalab.errors.EmptyDataError
        A side without an item with 2 or more annotations.

    References
    ----------
    .. [1] Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication reliability — an
       empirical approach to interpreting inter-rater reliability. *Proceedings of ACL-IJCNLP
       2021*, 7053–7065, doi:10.18653/v1/2021.acl-long.548.

    Examples
    --------
    >>> from kappalab import simulate
    >>> from kappalab.bayes.sampling import SamplingOptions
    >>> ax, ay, truth = simulate.replications(60, level="binary", rho=0.9, seed=0)
    >>> options = SamplingOptions(draws=50, tune=50, chains=1, seed=0, sampler="pymc")
    >>> prior = {"prevalence": (1, 1), "latent_icc": (1, 1), "rho": (1, 1)}
    >>> post = binary_posterior(ax, ay, options, prior, None)  # doctest: +SKIP
    >>> 0 < post.mean("irr_x") < 1                               # doctest: +SKIP
    True
    """
    al = AlignedReplications(ax, ay)
    union, (R, k_x, S, k_y) = _binary_counts(ax, ay, al)
    require_pairable(R, "X", "latent ICC (and so IRR_X)")
    require_pairable(S, "Y", "latent ICC (and so IRR_Y)")
    patterns = BinaryPatterns.from_counts(R, k_x, S, k_y,
                                          _auto_step(R, k_x, S, k_y) if step is None else step)

    padded = patterns.padded()
    data = padded._asdict()

    def build(pm, pt, Model):
        with Model() as model:
            bp = BinaryPatterns(**data_inputs(pm, data))
            prev_x = pm.Beta("prevalence_x", *prior["prevalence"])
            prev_y = pm.Beta("prevalence_y", *prior["prevalence"])
            licc_x = pm.Beta("latent_icc_x", *prior["latent_icc"])
            licc_y = pm.Beta("latent_icc_y", *prior["latent_icc"])
            rho_unit = pm.Beta("rho_unit", *prior["rho"])
            rho_u = pm.Deterministic("latent_rho", 2.0 * rho_unit - 1.0)
            # t = Φ⁻¹(1 − π) = −√2 erfinv(2π − 1)
            t_x = pm.Deterministic("threshold_x", -np.sqrt(2.0) * pt.erfinv(2.0 * prev_x - 1.0))
            t_y = pm.Deterministic("threshold_y", -np.sqrt(2.0) * pt.erfinv(2.0 * prev_y - 1.0))
            pm.Potential("loglik", binary_loglik(pt, bp, t_x, t_y, licc_x, licc_y, rho_u))
        return model

    keep = ["prevalence_x", "prevalence_y", "latent_icc_x", "latent_icc_y", "latent_rho",
            "threshold_x", "threshold_y"]
    posterior, sample_stats = fit_model("cross_replication (binary)", prior, build, data,
                                        options, keep, shape=padded.shape_key())

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
        attrs={**prior_attrs(prior), **item_counts(al), "level": "binary",
               "high_category": str(union[1]),
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
    # per draw, so arrays (the formulas also take scalars, hence their wider types)
    irr_x, irr_y, kx = np.asarray(irr_x), np.asarray(irr_y), np.asarray(kx)
    return {"irr_x": irr_x, "irr_y": irr_y, "kx": kx,
            "normalized_kx": kx / np.sqrt(irr_x * irr_y),
            "rho": np.asarray(true_score_correlation(t)[0])}


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

