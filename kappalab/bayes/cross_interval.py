r"""The interval cross-replication model of :func:`kappalab.bayes.cross_replication`
(``level="interval"``): bivariate one-way random effects with the item effects integrated out,
written on per-item moments grouped by the numbers of annotations (R_i, S_i) of each side.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from ..alignment import AlignedReplications
from ..annotations import Annotations
from ..errors import EmptyDataError
from ..kernels import distinct_rows, row_pearson
from .assembly import assemble, blocks, flat
from .compiled import bucket, fit_model, pad
from .cross_common import item_counts, require_pairable
from .models import (OneWayStatistics, as_float, item_statistics, location_scale,
                     normal_means_loglik, within_loglik)
from .posterior import Posterior
from .sampling import SamplingOptions, prior_attrs

__all__ = ["CrossIntervalStatistics", "bivariate_means_loglik", "cross_interval_loglik",
           "interval_posterior"]

_LOG_2PI = float(np.log(2 * np.pi))

#: the group arrays of CrossIntervalStatistics (the fields padded and passed to the model)
_COMMON = ("R", "S", "n", "sum_x", "sum_y", "sum_xx", "sum_yy", "sum_xy")


class CrossIntervalStatistics(NamedTuple):
    """Sufficient statistics of the bivariate model (standardised values): the common items
    grouped by (R, S) with n, Σx̄, Σȳ, Σx̄², Σȳ², Σx̄ȳ per group; per side the one-sided items'
    means grouped by m and the within-item SS pooled over all the side's items.

    Usually built with :meth:`CrossIntervalStatistics.from_items` ``(x_items, y_items,
    n_common, n_only_x)``: per aligned item (m, mean, SS) of each side, common items first,
    then X-only, then Y-only.

    Parameters
    ----------
    R, S : numpy.ndarray
        The distinct (R, S) pairs of numbers of annotations of the common items.
    n : numpy.ndarray
        The number of common items per (R, S) group.
    sum_x, sum_y : numpy.ndarray
        Σ x̄_i and Σ ȳ_i of the group's item means.
    sum_xx, sum_yy, sum_xy : numpy.ndarray
        Σ x̄_i², Σ ȳ_i² and Σ x̄_i ȳ_i of the group's item means.
    x, y : OneWayStatistics
        Per side, the one-sided items' means grouped by m, and the within-item SS (with its
        degrees of freedom) pooled over all the side's items.

    Examples
    --------
    >>> import numpy as np
    >>> x_items = (np.array([2., 3.]), np.array([0.5, -0.2]), np.array([0.1, 0.3]))
    >>> y_items = (np.array([2., 2.]), np.array([0.4, 0.1]), np.array([0.2, 0.05]))
    >>> st = CrossIntervalStatistics.from_items(x_items, y_items, n_common=2, n_only_x=0)
    >>> st.R.tolist(), st.S.tolist(), st.n.tolist(), st.sum_xy.tolist()
    ([2.0, 3.0], [2.0, 2.0], [1.0, 1.0], [0.2, -0.020000000000000004])
    >>> st.x.df_within, round(st.x.ss_within, 6)
    (3.0, 0.4)
    """

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

    def padded(self) -> "CrossIntervalStatistics":
        """Every group array padded to its shape bucket with empty groups (R = S = m = 1,
        n = 0, sums 0), which add exactly zero to the log-likelihood and its gradient."""
        size = bucket(self.R.size)
        common = {name: pad(getattr(self, name), size, 1.0 if name in ("R", "S") else 0.0)
                  for name in _COMMON}
        return self._replace(**common, x=self.x.padded(bucket(self.x.m.size)),
                             y=self.y.padded(bucket(self.y.m.size)))

    def data_values(self) -> dict[str, Any]:
        """``{name: value}`` of every statistic, what ``pm.set_data`` takes for
        :meth:`as_data`."""
        return {**{name: getattr(self, name) for name in _COMMON},
                **self.x.data_values("x_"), **self.y.data_values("y_")}

    def as_data(self, pm) -> "CrossIntervalStatistics":
        """The same statistics as ``pm.Data`` variables (names as :meth:`data_values`)."""
        return self._replace(**{name: pm.Data(name, getattr(self, name))
                                for name in _COMMON},
                             x=self.x.as_data(pm, "x_"), y=self.y.as_data(pm, "y_"))

    def shape_key(self) -> tuple[int, int, int]:
        """The sizes of the three group arrays (the shape signature of a compiled model)."""
        return (self.R.size, self.x.m.size, self.y.m.size)


def bivariate_means_loglik(pt, st: CrossIntervalStatistics, mu_x, mu_y, vb_x, vw_x, vb_y,
                           vw_y, rho):
    r"""Σ over common items of log N₂((x̄_i, ȳ_i); (μ_X, μ_Y), Σ_i), Σ_i = [[σ_bX² + σ_wX²/R_i,
    ρσ_bXσ_bY], [ρσ_bXσ_bY, σ_bY² + σ_wY²/S_i]], from the grouped sums.

    Parameters
    ----------
    pt : module
        ``pytensor.tensor`` (the graph is built with it, so PyMC can differentiate it).
    st : CrossIntervalStatistics
        The grouped sufficient statistics.
    mu_x, mu_y : float or tensor
        The sides' means μ_X, μ_Y (standardised scale).
    vb_x, vw_x, vb_y, vw_y : float or tensor
        The between-item and within-item variances σ_b², σ_w² of each side.
    rho : float or tensor
        The correlation of the item effects, in [−1, 1].

    Returns
    -------
    pytensor.tensor.TensorVariable
        The scalar log-likelihood (``.eval()`` gives its value).

    References
    ----------
    .. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. &
       Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press.
    .. [2] Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication reliability — an
       empirical approach to interpreting inter-rater reliability. *Proceedings of ACL-IJCNLP
       2021*, 7053–7065, doi:10.18653/v1/2021.acl-long.548.

    Examples
    --------
    The same as SciPy's bivariate normal log-density summed over the items:

    >>> import numpy as np
    >>> import pytensor.tensor as pt
    >>> from scipy.stats import multivariate_normal
    >>> x_items = (np.array([2., 3.]), np.array([0.5, -0.2]), np.array([0.1, 0.3]))
    >>> y_items = (np.array([2., 2.]), np.array([0.4, 0.1]), np.array([0.2, 0.05]))
    >>> st = CrossIntervalStatistics.from_items(x_items, y_items, n_common=2, n_only_x=0)
    >>> ll = bivariate_means_loglik(pt, st, 0.0, 0.0, 0.6, 0.4, 0.6, 0.4, 0.8).eval()
    >>> def cov(R, S):
    ...     return [[0.6 + 0.4 / R, 0.8 * 0.6], [0.8 * 0.6, 0.6 + 0.4 / S]]
    >>> reference = (multivariate_normal([0, 0], cov(2, 2)).logpdf([0.5, 0.4])
    ...              + multivariate_normal([0, 0], cov(3, 2)).logpdf([-0.2, 0.1]))
    >>> bool(np.isclose(ll, reference))
    True
    """
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
    items' means, and each side's within-item SS.

    Parameters
    ----------
    pt : module
        ``pytensor.tensor``.
    st : CrossIntervalStatistics
        The grouped sufficient statistics.
    mu_x, mu_y : float or tensor
        The sides' means μ_X, μ_Y (standardised scale).
    vb_x, vw_x, vb_y, vw_y : float or tensor
        The between-item and within-item variances σ_b², σ_w² of each side.
    rho : float or tensor
        The correlation of the item effects, in [−1, 1].

    Returns
    -------
    pytensor.tensor.TensorVariable
        The scalar log-likelihood, up to a constant.

    See Also
    --------
    bivariate_means_loglik : the common items' part.

    References
    ----------
    .. [1] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. &
       Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press.
    .. [2] Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication reliability — an
       empirical approach to interpreting inter-rater reliability. *Proceedings of ACL-IJCNLP
       2021*, 7053–7065, doi:10.18653/v1/2021.acl-long.548.

    Examples
    --------
    >>> import numpy as np
    >>> import pytensor.tensor as pt
    >>> x_items = (np.array([2., 3.]), np.array([0.5, -0.2]), np.array([0.1, 0.3]))
    >>> y_items = (np.array([2., 2.]), np.array([0.4, 0.1]), np.array([0.2, 0.05]))
    >>> st = CrossIntervalStatistics.from_items(x_items, y_items, n_common=2, n_only_x=0)
    >>> ll = cross_interval_loglik(pt, st, 0.0, 0.0, 0.6, 0.4, 0.6, 0.4, 0.8)
    >>> bool(np.isfinite(ll.eval()))
    True
    """
    return (bivariate_means_loglik(pt, st, mu_x, mu_y, vb_x, vw_x, vb_y, vw_y, rho)
            + normal_means_loglik(pt, st.x, mu_x, vb_x, vw_x) + within_loglik(pt, st.x, vw_x)
            + normal_means_loglik(pt, st.y, mu_y, vb_y, vw_y) + within_loglik(pt, st.y, vw_y))


def interval_posterior(ax: Annotations, ay: Annotations, options: SamplingOptions,
                       prior: dict[str, Any]) -> Posterior:
    """Fit the interval model to two replications (``prior`` validated by
    :func:`~kappalab.bayes.cross_replication`).

    The model behind ``cross_replication(x, y, level="interval")``; see there for the model,
    priors and variables.

    Parameters
    ----------
    ax, ay : Annotations
        The two replications, with numeric values.
    options : kappalab.bayes.sampling.SamplingOptions
        The validated draws, tune, chains, seed and sampler.
    prior : dict
        ``{"irr": (a, b), "sd": s, "mu": s, "rho": (a, b)}``: Beta parameters of the IRRs
        and of (ρ + 1)/2, and the scales of the total standard deviations and of the means
        (in data standard deviations).

    Returns
    -------
    Posterior
        ``irr_x``, ``irr_y``, ``kx``, ``normalized_kx``, ``rho`` and the means and standard
        deviations on the data's scale, with a posterior predictive check.

    Raises
    ------
    kappalab.errors.NonNumericError
        Non-numeric values.
    kappalab.errors.EmptyDataError
        All values equal, or a side without an item with 2 or more annotations.

    References
    ----------
    .. [1] Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication reliability — an
       empirical approach to interpreting inter-rater reliability. *Proceedings of ACL-IJCNLP
       2021*, 7053–7065, doi:10.18653/v1/2021.acl-long.548.
    .. [2] Gelman, A., Carlin, J. B., Stern, H. S., Dunson, D. B., Vehtari, A. &
       Rubin, D. B. (2013). *Bayesian Data Analysis*, 3rd ed. CRC Press.

    Examples
    --------
    >>> from kappalab import simulate
    >>> from kappalab.bayes.sampling import SamplingOptions
    >>> ax, ay, truth = simulate.replications(30, rho=0.9, seed=0)
    >>> options = SamplingOptions(draws=50, tune=50, chains=1, seed=0, sampler="pymc")
    >>> prior = {"irr": (1, 1), "sd": 2.0, "mu": 10.0, "rho": (1, 1)}
    >>> post = interval_posterior(ax, ay, options, prior)  # doctest: +SKIP
    >>> -1 < post.mean("rho") < 1                          # doctest: +SKIP
    True
    """
    ax.category_values("the interval cross-replication model")
    ay.category_values("the interval cross-replication model")
    al = AlignedReplications(ax, ay)
    # both sides' categories on the union's one scale (one origin for integers beyond 2**53)
    union = al.category_values("the interval cross-replication model")
    positions = (union[al.x_map], union[al.y_map])
    center, scale = location_scale(ax, ay, values=positions)
    location = center + float(al.value_origin)  # the data's mean (integers beyond 2**53)
    if not scale > 0:
        raise EmptyDataError(f"every annotation has the same value ({location:g}): "
                             "reliability is undefined")
    items = []
    for ann, side, v in ((ax, "x", positions[0]), (ay, "y", positions[1])):
        m, mean, ss = (al.spread(s, side) for s in item_statistics(ann, center, scale, v))
        require_pairable(m, side.upper(), "reliability")
        items.append((m, mean, ss))
    stats = CrossIntervalStatistics.from_items(items[0], items[1], al.n_common, al.n_only_x)

    padded = stats.padded()
    data = {**padded.data_values(), "center": location, "scale": scale}

    def build(pm, pt, Model):
        with Model() as model:
            st = padded.as_data(pm)
            loc, unit = pm.Data("center", center), pm.Data("scale", scale)
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
            pm.Potential("loglik", cross_interval_loglik(pt, st, mu_x, mu_y, vb_x, vw_x, vb_y,
                                                         vw_y, rho))
            kx = pm.Deterministic("kx", 2.0 * rho * pt.sqrt(vb_x * vb_y)
                                  / ((mu_x - mu_y)**2 + sd_x**2 + sd_y**2))
            pm.Deterministic("normalized_kx", kx / pt.sqrt(irr_x * irr_y))
            pm.Deterministic("mu_x", loc + unit * mu_x)
            pm.Deterministic("mu_y", loc + unit * mu_y)
            pm.Deterministic("sigma_between_x", unit * pt.sqrt(vb_x))
            pm.Deterministic("sigma_between_y", unit * pt.sqrt(vb_y))
            pm.Deterministic("sigma_within_x", unit * pt.sqrt(vw_x))
            pm.Deterministic("sigma_within_y", unit * pt.sqrt(vw_y))
        return model

    keep = ["irr_x", "irr_y", "kx", "normalized_kx", "rho", "mu_x", "mu_y",
            "sigma_between_x", "sigma_between_y", "sigma_within_x", "sigma_within_y"]
    standardised = ["mu_x_z", "mu_y_z", "sigma_total_x", "sigma_total_y"]
    posterior, sample_stats = fit_model("cross_replication (interval)", prior, build, data,
                                        options, keep + standardised, shape=padded.shape_key())
    draws = {k: flat(posterior, k) for k in ["irr_x", "irr_y", "rho"] + standardised}
    posterior = posterior.drop_vars(standardised)

    replicated, observed = {}, {}
    c = al.n_common
    if c >= 3:
        R, S = items[0][0][:c], items[1][0][:c]
        replicated["item_mean_correlation"] = _replicate_mean_correlation(
            options.rng, draws, R, S)
        observed["item_mean_correlation"] = float(
            row_pearson(items[0][1][:c], items[1][1][:c]))
    return assemble(
        posterior, sample_stats, options, model="cross_replication (interval)",
        replicated=replicated, observed=observed,
        headline=("irr_x", "irr_y", "kx", "normalized_kx", "rho"),
        attrs={**prior_attrs(prior), **item_counts(al), "level": "interval",
               "data_mean": location, "data_sd": scale})


def _replicate_mean_correlation(rng, draws, R, S) -> np.ndarray:
    """Correlation of replicated item means (x̄_i, ȳ_i) over the common items, per draw, on
    the model's standardised scale (its own draws ``mu_x_z``, ``sigma_total_x``, ``irr_x``,
    …: nothing on the data's scale, which may be 1e±300, is formed)."""
    n_draws = draws["rho"].size
    out = np.empty(n_draws)
    for block in blocks(n_draws, R.size):
        def col(name):
            return draws[name][block, None]
        shape = (block.stop - block.start, R.size)
        z1, z2 = rng.standard_normal(shape), rng.standard_normal(shape)
        rho = col("rho")
        sd_x, sd_y, irr_x, irr_y = (col("sigma_total_x"), col("sigma_total_y"), col("irr_x"),
                                    col("irr_y"))
        b_x = sd_x * np.sqrt(irr_x) * z1
        b_y = sd_y * np.sqrt(irr_y) * (rho * z1 + np.sqrt(np.maximum(1 - rho**2, 0)) * z2)
        within_x, within_y = sd_x * np.sqrt(1.0 - irr_x), sd_y * np.sqrt(1.0 - irr_y)
        x = col("mu_x_z") + b_x + within_x / np.sqrt(R) * rng.standard_normal(shape)
        y = col("mu_y_z") + b_y + within_y / np.sqrt(S) * rng.standard_normal(shape)
        out[block] = row_pearson(x, y)
    return out

