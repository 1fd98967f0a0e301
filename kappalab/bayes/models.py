r"""Bayesian models of one pool of annotations: nominal reliability (Dirichlet–multinomial),
Cohen's κ (two raters) and interval reliability (one-way random effects).

Every model is written on per-item sufficient statistics (docs/architecture.md) with the item-level
latent quantities integrated out analytically, so there are no per-item parameters and no
Python loop over items: identical rows of statistics are grouped and their log-likelihood
weighted by their multiplicity. Derived quantities (κ, P_o, P_e, …) are deterministic
functions of the parameters, one value per posterior draw.
"""

from __future__ import annotations

from typing import Any, Mapping, NamedTuple, Sequence

import numpy as np

from ..annotations import as_annotations
from ..coefficients.multirater import weights_for
from ..coefficients.pairwise import two_raters
from ..distances import DistanceSpec
from ..errors import DroppedAnnotationsWarning, EmptyDataError, warn
from ..kernels import column_totals, distinct_rows, pair_agreement
from .assembly import assemble, blocks, dirichlet, flat
from .compiled import bucket, data_inputs, fit_model, pad
from .sampling import SamplingOptions, prior_attrs, validate_prior
from .posterior import Posterior
from ..validation import SeedLike

__all__ = ["nominal_reliability", "cohen_kappa", "interval_reliability"]

_LOG_2PI = float(np.log(2 * np.pi))


def as_float(pt, *values):
    """Parameters as float64 tensors (a Python float would become a float32 constant when
    float32 holds it exactly, and Γ of it would be computed in single precision)."""
    from pytensor.graph.basic import Variable

    return tuple(v if isinstance(v, Variable) else pt.constant(np.asarray(v, dtype=np.float64))
                 for v in values)


def _sd(x: np.ndarray) -> np.ndarray:
    """Sample standard deviation (ddof = 1) along the last axis."""
    return np.std(x, axis=-1, ddof=1)


def _category_coords(categories) -> list:
    return [c.item() if hasattr(c, "item") else c for c in categories]


# ====================================================================== nominal
def dirichlet_multinomial_loglik(pt, rows: np.ndarray, weight: np.ndarray, pi, tau):
    r"""Σ_g w_g log DM(n_g | m_g, τπ), without the multinomial coefficients (constants).

    ``rows`` are the distinct count rows n_g (G × K), ``weight`` their multiplicities;
    ``pi`` and ``tau`` are tensors (or numbers). Γ(τ)/Γ(m + τ) ∏ Γ(n_c + τπ_c)/Γ(τπ_c).
    ``rows`` and ``weight`` may be shared tensors; a row of zeros adds exactly 0.
    """
    pi, tau = as_float(pt, pi, tau)
    a = tau * pi
    m_rows = rows.sum(axis=1) * 1.0
    per_row = (pt.gammaln(tau) - pt.gammaln(m_rows + tau)
               + (pt.gammaln(rows + a[None, :]) - pt.gammaln(a)[None, :]).sum(axis=1))
    return (weight * per_row).sum()


def nominal_reliability(data: Any, *, draws: int = 1000, tune: int = 1000, chains: int = 2,
                        seed: SeedLike = None, sampler: str = "pymc",
                        prior: Mapping[str, Any] | None = None,
                        categories: Sequence[Any] | None = None) -> Posterior:
    r"""Posterior of nominal reliability under the hierarchical Dirichlet–multinomial model.

    Each item i has a category distribution θ_i drawn around the prevalence π; its m_i
    annotations are draws from θ_i (any m_i: items with one annotation inform π only, items
    with none are ignored). θ_i is integrated out, so each item's count row n_i is
    Dirichlet–multinomial (Mosimann 1962):

    .. math::  θ_i \sim \operatorname{Dirichlet}(τπ), \qquad
               n_i \mid θ_i \sim \operatorname{Multinomial}(m_i, θ_i),

    .. math::  p(n_i \mid π, τ) = \frac{m_i!}{\prod_c n_{ic}!}
               \frac{Γ(τ)}{Γ(m_i + τ)} \prod_c \frac{Γ(n_{ic} + τπ_c)}{Γ(τπ_c)},

    with priors π ~ Dirichlet(c·1) (c = ``prior["pi"]``, default 1) and κ ~ Beta(a, b)
    (``prior["kappa"]``, default (1, 1), uniform), τ = 1/κ − 1. The count rows are grouped
    (identical rows once, weighted by their number), so the cost does not grow with the
    number of items.

    **The prior.** κ ~ Beta(1, 1) is uniform on the reported scale itself, so it pulls the
    posterior towards no particular agreement beyond the middle of (0, 1); π enters κ only
    through the grouping of the counts. In ``experiments/bayes_priors.py`` (prevalence
    (0.6, 0.3, 0.1), 2–5 annotations per item, κ = 0.6, 50 datasets of 50 items) the
    posterior mean of κ is 0.004 ± 0.010 below the truth and 94% of 95% HDIs cover it;
    the lighter Dirichlet priors of π, c = 1/2 (Jeffreys) and c = 1/K (Perks), move it
    0.002 and 0.003 further down (paired over the same datasets), so the defaults stay.

    Parameters
    ----------
    data : Annotations, or anything :meth:`Annotations.from_wide` takes (counts too: raters
        are not needed). All categories of the Annotations enter π, also unused ones.
    draws, tune, chains : posterior draws and tuning steps per chain, number of chains.
    seed : int, None or ``numpy.random.Generator``; an int reproduces the draws exactly.
    sampler : ``"pymc"`` (PyMC's NUTS, the quicker choice for one fit) or ``"nutpie"``
        (``pip install 'kappalab[nutpie]'``: a numba compilation of 14–53 s per model and
        process, then each fit several times quicker; for studies that fit a model many times).
    prior : ``{"kappa": (a, b), "pi": c}``, any subset.
    categories : passed to :meth:`Annotations.from_wide` when ``data`` is not Annotations.

    Returns
    -------
    Posterior
        Variables:

        * ``kappa`` — κ = 1/(1 + τ), the population Fleiss κ = Krippendorff's nominal α of
          the model (docs/architecture.md): two annotations of an item agree with probability
          P_o = P_e + (1 − P_e)κ. Krippendorff's α and Fleiss' κ are estimators of it.
        * ``pi`` — π, dim ``category`` (labelled with the categories): the prevalence.
        * ``p_o`` — P_o = Σ_c π_c(τπ_c + 1)/(τ + 1), the probability that two annotations
          of an item agree.
        * ``p_e`` — P_e = Σ_c π_c², chance agreement; κ = (P_o − P_e)/(1 − P_e).
        * ``tau`` — τ, the Dirichlet precision (large τ: items look alike, κ near 0).

        Posterior predictive check: for every draw, count tables are replicated with the
        observed m_i and the mean and standard deviation over items (m_i ≥ 2) of the item
        agreement P_i = Σ_c n_ic(n_ic − 1)/(m_i(m_i − 1)) are computed:
        ``item_agreement`` (whose observed value is Fleiss' P_o) and ``item_agreement_sd``
        in ``idata.posterior_predictive`` and ``idata.observed_data``
        (:meth:`Posterior.ppc_pvalue`). A small p-value of ``item_agreement_sd`` flags items
        more heterogeneous than one κ allows (e.g. easy and hard items).

    Raises
    ------
    EmptyDataError
        No item with two annotations (κ is not identified), or fewer than two categories used.

    References
    ----------
    Mosimann, J. E. (1962). On the compound multinomial distribution, the multivariate
    β-distribution, and correlations among proportions. Biometrika 49(1/2), 65–82,
    doi:10.2307/2333468. Fleiss, J. L. (1971). Measuring nominal scale agreement among many
    raters. Psychological Bulletin 76(5), 378–382, doi:10.1037/h0031619.

    Examples
    --------
    >>> from kappalab import bayes, simulate
    >>> ann, truth = simulate.annotations(1000, reliability=0.6, seed=0)
    >>> post = bayes.nominal_reliability(ann, seed=1)   # doctest: +SKIP
    >>> post.interval("kappa")                           # doctest: +SKIP
    """
    options = SamplingOptions(draws, tune, chains, seed, sampler)
    prior = validate_prior(prior, {"kappa": (1.0, 1.0), "pi": 1.0}, "nominal_reliability")
    ann = as_annotations(data, categories=categories)
    counts = ann.count_matrix
    m = counts.sum(axis=1)
    used = np.flatnonzero(counts.sum(axis=0) > 0)
    if used.size < 2:
        raise EmptyDataError(
            "the nominal model needs annotations in at least 2 categories; all "
            f"{int(m.sum())} annotations are in category "
            f"{_category_coords(ann.categories[used])[0]!r}, so κ is undefined")
    pairable = m >= 2
    if not pairable.any():
        raise EmptyDataError(
            "the nominal model needs at least one item with 2 or more annotations: with one "
            "annotation per item, agreement (κ) is not identified")
    present = counts[m > 0]
    groups = distinct_rows(present, lexicographic=True)  # identical items share a term
    rows, weight = present[groups.first], groups.counts
    K = ann.n_categories
    cats = _category_coords(ann.categories)

    size = bucket(rows.shape[0])  # zero rows of weight 0 pad the distinct rows
    data = {"rows": pad(rows, size), "weight": pad(weight, size)}

    def build(pm, pt, Model):
        with Model(coords={"category": list(range(K))}) as model:
            shared = data_inputs(pm, data)
            pi = pm.Dirichlet("pi", a=np.full(K, prior["pi"]), dims="category")
            kappa = pm.Beta("kappa", *prior["kappa"])
            tau = pm.Deterministic("tau", 1.0 / kappa - 1.0)
            pm.Potential("loglik", dirichlet_multinomial_loglik(
                pt, shared["rows"], shared["weight"], pi, tau))
            pm.Deterministic("p_e", (pi * pi).sum())
            pm.Deterministic("p_o", (pi * (tau * pi + 1.0)).sum() / (tau + 1.0))
        return model

    posterior, stats = fit_model("nominal_reliability", prior, build, data, options,
                                 ["kappa", "pi", "p_o", "p_e", "tau"], graph=(K,),
                                 shape=(size,))
    posterior = posterior.assign_coords(category=cats)

    # posterior predictive: replicated item agreements with the observed m_i
    mp = m[pairable].astype(float)
    observed_p = pair_agreement(counts[pairable], mp)
    pi_draws, tau_draws = flat(posterior, "pi"), flat(posterior, "tau")
    S = tau_draws.size
    rep_mean, rep_sd = np.empty(S), np.full(S, np.nan)
    for block in blocks(S, mp.size * K):
        alpha = tau_draws[block, None, None] * pi_draws[block, None, :]
        theta = dirichlet(options.rng, np.broadcast_to(alpha, alpha.shape[:1] + (
            mp.size, K)))
        replicate = options.rng.multinomial(m[pairable], theta)
        p_i = pair_agreement(replicate, mp)
        rep_mean[block] = p_i.mean(axis=-1)
        if mp.size >= 2:
            rep_sd[block] = _sd(p_i)
    replicated = {"item_agreement": rep_mean}
    observed = {"item_agreement": observed_p.mean()}
    if mp.size >= 2:
        replicated["item_agreement_sd"] = rep_sd
        observed["item_agreement_sd"] = _sd(observed_p)
    return assemble(
        posterior, stats, options, model="nominal_reliability", replicated=replicated,
        observed=observed, headline=("kappa", "p_o", "p_e"),
        attrs={**prior_attrs(prior), "n_items": int((m > 0).sum()),
               "n_pairable_items": int(pairable.sum()), "n_annotations": int(m.sum()),
               "n_categories": K,
               "distinct_count_rows": int(rows.shape[0])})


# ====================================================================== Cohen
def cohen_kappa(x: Any, y: Any = None, *, weights: DistanceSpec = None, draws: int = 1000,
                tune: int = 1000, chains: int = 2, seed: SeedLike = None, sampler: str = "pymc",
                prior: Mapping[str, Any] | None = None,
                categories: Sequence[Any] | None = None) -> Posterior:
    r"""Posterior of Cohen's κ (or weighted κ) for two raters: Dirichlet–multinomial table.

    The K × K table T of the items both raters annotated (T_kl: rater 1 said k, rater 2 said
    l) is multinomial with cell probabilities p, which get a flat Dirichlet prior:

    .. math::  T \sim \operatorname{Multinomial}(N, p), \qquad
               p \sim \operatorname{Dirichlet}(c\,\mathbf 1_{K^2}),

    so the posterior is Dirichlet(c + T) (conjugate; c = ``prior["p"]``, default 1/K²). κ is the
    population (weighted) Cohen κ of p, with rater marginals p_{k·} = Σ_l p_kl and
    p_{·l} = Σ_k p_kl and agreement weights w (1 on the diagonal):

    .. math::  κ_w = \frac{\sum_{kl} w_{kl} p_{kl} - \sum_{kl} w_{kl} p_{k·} p_{·l}}
                          {1 - \sum_{kl} w_{kl} p_{k·} p_{·l}}

    (the Bayesian κ of Basu, Banerjee & Sen 2000). Unweighted (w = I) it is the population
    value that :func:`kappalab.cohen_kappa` estimates on complete data. The posterior is
    sampled through the equivalent Poisson form: p = g/Σg with g_kl ~ Gamma(c, 1) and
    T_kl ~ Poisson(g_kl) has the same prior and posterior of p, and independent
    Gamma(c + T_kl, 2) posteriors of g. Each g is sampled as g = h·exp(−E/c) with
    h ~ Gamma(c + 1, 1) and E ~ Exponential(1), which is Gamma(c, 1) (Marsaglia & Tsang
    2000): on the log scale a Gamma of small shape (an empty cell and c < 1) has a long left
    tail and a steep right wall on which NUTS diverges; h and E have neither.

    **The prior.** The posterior mean of p is (c + T)/(K²c + N): the prior adds K²c
    observations spread evenly over the cells, a table of independent raters (κ = 0), and so
    pulls κ towards 0 by about K²c/(N + K²c) of its value. The default c = 1/K² (Perks
    1947; the concentration Berger, Bernardo & Sun 2015 recommend for a multinomial of many
    cells) adds one observation in all, for any K; the uniform c = 1 adds K². In
    ``experiments/bayes_priors.py`` (two biased raters, prevalence (0.7, 0.3), 50 items,
    Cohen κ ≈ 0.47) the posterior mean is 0.024 ± 0.010 below the truth under c = 1/4
    (150 datasets; 0.048 under c = 1, 0.032 under Jeffreys' c = 1/2), 0.029 ± 0.014 below at
    κ ≈ 0.58 (0.060 under c = 1) and 0.020 ± 0.017 at κ ≈ 0.24 (0.025), with 92–93% of 95%
    HDIs covering under either prior; at 200 and 1 000 items the two priors differ by less
    than 0.006 (coverage 96.7% and 91.7% of 60 datasets). What remains at 50 items is the
    sample κ's own small-sample bias (0.010 on the same datasets), the one prior observation
    and the posterior mean of a ratio.

    Parameters
    ----------
    x, y : one items × 2 table (or Annotations with two raters), or the two raters' label
        sequences. Items that only one of the two annotated are left out of the table with a
        :class:`~kappalab.errors.DroppedAnnotationsWarning`: the posterior depends on the
        table of the items both raters annotated only, the same with or without the other
        items, and its marginals p_{k·}, p_{·l} are those of that table.
    weights : ``None``, ``"linear"``, ``"quadratic"`` (on the category values), a level name,
        a K × K agreement-weight matrix or a callable, as in :func:`kappalab.cohen_kappa`.
    draws, tune, chains, seed, sampler : as in :func:`nominal_reliability`.
    prior : ``{"p": c}``, the Dirichlet concentration of every cell (default 1/K²).
    categories : passed to :meth:`Annotations.from_wide`.

    Returns
    -------
    Posterior
        Variables ``kappa``; ``p_o`` = Σ w∘p (observed agreement); ``p_e`` =
        Σ_kl w_kl p_{k·}p_{·l} (chance agreement); ``p`` (dims ``category_1``,
        ``category_2``: the cell probabilities, rater 1 by rater 2); ``marginals`` (dims
        ``rater``, ``category``). Posterior predictive: replicated tables ``table`` and their
        weighted observed agreement ``agreement``.

    Raises
    ------
    RaterCountError
        Not exactly two raters with annotations.
    EmptyDataError
        No item annotated by both raters, or all of them in one category.

    Notes
    -----
    Not the estimand of :func:`kappalab.cohen_kappa` when some items have one annotation.
    Both take the observed agreement from the items both raters annotated, but
    :func:`kappalab.cohen_kappa` takes each rater's chance marginal from *all* of that
    rater's annotations, one-rater items included, so its P_e (and κ) moves with those
    items, while this model's p_e uses the complete items only. Its posterior is therefore
    centred near ``kl.cohen_kappa`` of the complete items (``wide[both rated]``), not near
    ``kl.cohen_kappa`` of all the data; the two coincide when every item has both
    annotations. (Modelling the one-rater labels as draws from the marginals of p would not
    give ``kl.cohen_kappa``'s estimand either: under that missing-at-random likelihood the
    extra labels move the cells of p, the observed agreement with them.)

    References
    ----------
    Cohen, J. (1960), Educational and Psychological Measurement 20(1), 37–46,
    doi:10.1177/001316446002000104. Cohen, J. (1968), Psychological Bulletin 70(4), 213–220,
    doi:10.1037/h0026256. Basu, S., Banerjee, M. & Sen, A. (2000). Bayesian inference for
    kappa from single and multiple studies. Biometrics 56(2), 577–582,
    doi:10.1111/j.0006-341X.2000.00577.x. Perks, W. (1947). Some observations on inverse
    probability including a new indifference rule. Journal of the Institute of Actuaries
    73(2), 285–334, doi:10.1017/S0020268100012270. Berger, J. O., Bernardo, J. M. & Sun, D.
    (2015). Overall objective priors. Bayesian Analysis 10(1), 189–221,
    doi:10.1214/14-BA915. Marsaglia, G. & Tsang, W. W. (2000). A simple method for
    generating gamma variables. ACM Transactions on Mathematical Software 26(3), 363–372,
    doi:10.1145/358407.358414.

    Examples
    --------
    >>> import warnings
    >>> from kappalab import bayes
    >>> rater_1 = [0, 1, 1, 0, 1, 0, 1, 1]
    >>> rater_2 = [0, 1, 1, 0, 0, 0, 1, 1]
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # 50 draws: a SamplingWarning (low ESS) is likely
    ...     post = bayes.cohen_kappa(rater_1, rater_2, draws=50, tune=50, chains=1, seed=0)
    >>> post["kappa"].shape, bool(-1 < post.mean("kappa") < 1)
    ((50,), True)
    """
    options = SamplingOptions(draws, tune, chains, seed, sampler)
    prior = validate_prior(prior, {"p": None}, "cohen_kappa")  # None: 1/K², set below
    ann = two_raters(x, y, categories=categories, coefficient="the Bayesian Cohen's kappa")
    agreement = weights_for(ann, weights).weights
    items, raters, cats = ann.codes()
    pair = np.unique(raters)  # the two raters with annotations
    table_codes = np.full((ann.n_items, 2), -1, dtype=np.intp)
    table_codes[items, np.searchsorted(pair, raters)] = cats
    n_rated = (table_codes >= 0).sum(axis=1)
    both = n_rated == 2
    dropped = int((n_rated == 1).sum())
    if not both.any():
        raise EmptyDataError("the two raters have no item in common: Cohen's κ needs items "
                             "that both raters annotated")
    if dropped:
        warn(f"{dropped} item(s) annotated by only one of the two raters were left out of the "
             f"table ({int(both.sum())} items remain)", DroppedAnnotationsWarning)
    K = ann.n_categories
    if prior["p"] is None:
        prior["p"] = 1.0 / K**2  # Perks: one prior observation spread over the K² cells
    table = np.bincount(table_codes[both, 0] * K + table_codes[both, 1],
                        minlength=K * K).reshape(K, K)
    used = (table.sum(axis=0) + table.sum(axis=1)) > 0
    if used.sum() < 2:
        raise EmptyDataError("Cohen's κ needs ratings in at least 2 categories; every rating "
                             "of the common items is in one category")
    labels = _category_coords(ann.categories)
    assert ann.raters is not None, "two_raters gives annotations with raters"
    rater_labels = _category_coords(ann.raters[pair])

    data = {"table": table.astype(np.float64), "agreement": np.asarray(agreement, np.float64)}

    def build(pm, pt, Model):
        codes = list(range(K))
        coords = {"category_1": codes, "category_2": codes, "rater": [0, 1],
                  "category": codes}
        with Model(coords=coords) as model:
            shared = data_inputs(pm, data)
            # the Poisson device: g_kl ~ Gamma(c, 1), T_kl ~ Poisson(g_kl) make p = g/Σg
            # Dirichlet(c) a priori and Dirichlet(c + T) a posteriori, exactly as the
            # multinomial model does, with independent Gamma(c + T_kl, 2) posteriors that NUTS
            # samples easily
            # g = h·exp(−E/c) with h ~ Gamma(c + 1, 1), E ~ Exponential(1) is Gamma(c, 1)
            # (the boosting identity of Marsaglia & Tsang 2000); sampled as log g, a cell of
            # small c + T_kl has a long left tail and a steep right wall on which NUTS
            # diverges, (log h, log E) have neither
            boost = pm.Gamma("cell_boost", alpha=prior["p"] + 1.0, beta=1.0, shape=K * K)
            shrink = pm.Exponential("cell_shrink", 1.0, shape=K * K)
            rate = pm.Deterministic("cell_rate", boost * pt.exp(-shrink / prior["p"]))
            pm.Potential("loglik", (shared["table"].ravel() * pt.log(rate) - rate).sum())
            p = pm.Deterministic("p", (rate / rate.sum()).reshape((K, K)),
                                 dims=("category_1", "category_2"))
            row, col = p.sum(axis=1), p.sum(axis=0)
            pm.Deterministic("marginals", pt.stack([row, col]), dims=("rater", "category"))
            w = shared["agreement"]
            p_o = pm.Deterministic("p_o", (w * p).sum())
            p_e = pm.Deterministic("p_e", (w * row[:, None] * col[None, :]).sum())
            pm.Deterministic("kappa", (p_o - p_e) / (1.0 - p_e))
        return model

    posterior, stats = fit_model("cohen_kappa", prior, build, data, options,
                                 ["kappa", "p_o", "p_e", "p", "marginals"], graph=(K,))
    posterior = posterior.assign_coords(category_1=labels, category_2=labels,
                                        rater=rater_labels, category=labels)

    N = int(table.sum())
    p_draws = flat(posterior, "p").reshape(-1, K * K)
    replicate = options.rng.multinomial(N, p_draws / p_draws.sum(axis=1, keepdims=True))
    replicate = replicate.reshape(-1, K, K)
    return assemble(
        posterior, stats, options, model="cohen_kappa",
        replicated={"table": replicate,
                    "agreement": (replicate * agreement).sum(axis=(1, 2)) / N},
        observed={"table": table, "agreement": float((table * agreement).sum() / N)},
        observed_dims={"table": ("category_1", "category_2")},
        coords={"category_1": labels, "category_2": labels},
        headline=("kappa", "p_o", "p_e"),
        attrs={**prior_attrs(prior), "n_items": N, "n_dropped_items": dropped,
               "raters": [str(r) for r in rater_labels],
               "weights": weights if isinstance(weights, str) else
               "identity" if weights is None else "custom"})


# ====================================================================== interval
class OneWayStatistics(NamedTuple):
    """Sufficient statistics of the one-way model on standardised values: items grouped by
    their number of annotations m_g (n_g items, Σ x̄, Σ x̄² of their means), and the pooled
    within-item sum of squares with its degrees of freedom Σ(m_i − 1)."""

    m: np.ndarray
    n: np.ndarray
    sum_mean: np.ndarray
    sum_mean2: np.ndarray
    df_within: float
    ss_within: float

    @classmethod
    def from_items(cls, m: np.ndarray, mean: np.ndarray, ss: np.ndarray) -> "OneWayStatistics":
        present = m > 0
        m, mean, ss = m[present], mean[present], ss[present]
        values, inverse = np.unique(m, return_inverse=True)
        inverse = inverse.ravel()
        return cls(values.astype(float), np.bincount(inverse).astype(float),
                   np.bincount(inverse, weights=mean), np.bincount(inverse, weights=mean * mean),
                   float((m - 1).sum()), float(ss.sum()))

    def padded(self, size: int) -> "OneWayStatistics":
        """The groups padded to ``size`` with empty groups (m = 1, n = 0, sums 0), which add
        exactly zero to :func:`normal_means_loglik` and to its gradient."""
        return self._replace(m=pad(self.m, size, 1.0), n=pad(self.n, size),
                             sum_mean=pad(self.sum_mean, size),
                             sum_mean2=pad(self.sum_mean2, size))

    def as_data(self, pm, prefix: str = "") -> "OneWayStatistics":
        """The same statistics as ``pm.Data`` variables named ``prefix + field``."""
        return type(self)(*(pm.Data(prefix + name, value)
                            for name, value in self._asdict().items()))

    def data_values(self, prefix: str = "") -> dict[str, Any]:
        """``{prefix + field: value}``, what ``pm.set_data`` takes for :meth:`as_data`."""
        return {prefix + name: value for name, value in self._asdict().items()}


def item_statistics(ann, center: float, scale: float, values: np.ndarray | None = None):
    """Per item: (m_i, mean x̄_i, within SS_i) of the standardised values (x − center)/scale
    (x̄_i = 0, SS_i = 0 for items without annotations); ``values``: the categories' positions
    (default ``ann.category_values``), as :func:`location_scale` took them."""
    m, s1, s2 = ann.item_moments(factor=1.0 / scale, shift=center, values=values)
    mean = s1 / np.where(m > 0, m, 1.0)
    return m, mean, np.maximum(s2 - s1 * mean, 0.0)


def location_scale(*anns, values: Sequence[np.ndarray] | None = None) -> tuple[float, float]:
    """Pooled mean and standard deviation of all annotation values of ``anns``, by which the
    interval models standardise their data, so that the posteriors of scale-free quantities
    (the ICC, κx, ρ) are invariant to affine maps of the values.

    The moments are taken of the values mapped onto [−1, 1] by their midrange and half-span,
    then mapped back: a sum of values of 1e300 would overflow, and a sum of squares of values
    of 1e-300 underflow to 0. The values are those of ``Annotations.category_values``, from
    its ``value_origin`` (the differences of integers beyond 2**53 are exact), or ``values``:
    each data set's category positions on one common scale (two replications' union).
    """
    if values is None:
        values = [ann.category_values("the interval model") for ann in anns]
    low = min(float(v.min()) for v in values)
    high = max(float(v.max()) for v in values)
    shift, half = low / 2 + high / 2, high / 2 - low / 2  # no overflow at ±1.7e308
    unit = half if half > 0 else 1.0
    n = total = 0.0
    for ann, v in zip(anns, values):
        m, s1, _ = ann.item_moments(factor=1.0 / unit, shift=shift, values=v)
        n, total = n + column_totals(m[:, None])[0], total + column_totals(s1[:, None])[0]
    center = total / n  # on [−1, 1]
    ss = 0.0
    for ann, v in zip(anns, values):
        _, _, s2 = ann.item_moments(factor=1.0 / unit, shift=shift + unit * center, values=v)
        ss += column_totals(s2[:, None])[0]
    return float(shift + unit * center), float(unit * np.sqrt(ss / n))


def normal_means_loglik(pt, stats: OneWayStatistics, mu, var_b, var_w):
    """Σ_g log-likelihood of the item means: n_g iid N(μ, σ_b² + σ_w²/m_g) values."""
    mu, var_b, var_w = as_float(pt, mu, var_b, var_w)
    var = var_b + var_w / stats.m
    return (-0.5 * stats.n * (_LOG_2PI + pt.log(var))
            - (stats.sum_mean2 - 2.0 * mu * stats.sum_mean + stats.n * mu * mu)
            / (2.0 * var)).sum()


def within_loglik(pt, stats: OneWayStatistics, var_w):
    """log-likelihood of the pooled within-item SS: SS/σ_w² ~ χ²_df, up to a constant
    (the Jacobian-free density of SS, dropping Γ and power-of-SS terms)."""
    (var_w,) = as_float(pt, var_w)
    return -0.5 * stats.df_within * pt.log(var_w) - stats.ss_within / (2.0 * var_w)


def one_way_loglik(pt, stats: OneWayStatistics, mu, var_b, var_w):
    r"""log-likelihood of the one-way random-effects model with the item effects integrated
    out, up to a constant: Σ_i log N(x̄_i; μ, σ_b² + σ_w²/m_i) + log p(SS | σ_w²)."""
    return normal_means_loglik(pt, stats, mu, var_b, var_w) + within_loglik(pt, stats, var_w)


def interval_reliability(data: Any, *, draws: int = 1000, tune: int = 1000, chains: int = 2,
                         seed: SeedLike = None, sampler: str = "pymc",
                         prior: Mapping[str, Any] | None = None,
                         categories: Sequence[Any] | None = None) -> Posterior:
    r"""Posterior of interval reliability (ICC) under the one-way random-effects model.

    .. math::  x_{ij} = μ + b_i + e_{ij}, \qquad b_i \sim N(0, σ_b^2), \qquad
               e_{ij} \sim N(0, σ_w^2),

    with the item effects b_i integrated out: per item, the mean x̄_i and the within-item sum
    of squares SS_i = Σ_j (x_ij − x̄_i)² are independent, with

    .. math::  \bar x_i \sim N\!\left(μ,\; σ_b^2 + σ_w^2/m_i\right), \qquad
               SS_i/σ_w^2 \sim χ^2_{m_i - 1},

    so the likelihood needs only (m_i, Σ_j x_ij, Σ_j x_ij²) (``Annotations.item_moments``):
    items are grouped by m_i and the within part is the pooled SS on Σ(m_i − 1) degrees of
    freedom. Items with one annotation inform μ and σ_b² + σ_w² only. Priors, on the data
    standardised by the mean and standard deviation s of all annotations:
    icc ~ Beta(a, b) (``prior["icc"]``, default (1, 1)); total standard deviation
    σ = √(σ_b² + σ_w²) ~ HalfNormal(``prior["sd"]``·s) (default 2); μ ~
    N(mean, ``prior["mu"]``·s) (default 10); σ_b² = icc·σ², σ_w² = (1 − icc)·σ².

    Parameters
    ----------
    data : Annotations with numeric values, or anything :meth:`Annotations.from_wide` takes.
    draws, tune, chains, seed, sampler : as in :func:`nominal_reliability`.
    prior : ``{"icc": (a, b), "sd": s, "mu": s}``, any subset.
    categories : passed to :meth:`Annotations.from_wide`.

    Returns
    -------
    Posterior
        Variables:

        * ``icc`` — σ_b²/(σ_b² + σ_w²), the intraclass correlation ICC(1) of Shrout & Fleiss
          (1979).
        * ``alpha`` — the same quantity: the population Krippendorff α with the interval
          distance of this model (D_o = 2σ_w², D_e = 2(σ_b² + σ_w²)), which
          ``kappalab.krippendorff_alpha(level="interval")`` estimates.
        * ``mu``, ``sigma_between``, ``sigma_within`` — μ, σ_b, σ_w on the data's scale.

        Posterior predictive: ``between_variance`` (variance of the item means over items)
        and ``within_variance_sd`` (standard deviation over items with m_i ≥ 2 of the item
        variances SS_i/(m_i − 1); a small p-value flags items of unequal difficulty), both of
        the standardised values (x − mean)/s, so that they and their p-values are defined at
        any scale of the data (× s² for the data's units).

    The model sees only the standardised data, so the posteriors of ``icc`` and ``alpha``
    are the same for x and a·x + b (a > 0, from 1e-300 to 1e300), and those of ``mu`` and
    the standard deviations follow the map.

    Raises
    ------
    NonNumericError
        Non-numeric categories.
    EmptyDataError
        Fewer than 2 annotated items, no item with 2 annotations, or all values equal.

    References
    ----------
    Shrout, P. E. & Fleiss, J. L. (1979). Intraclass correlations: uses in assessing rater
    reliability. Psychological Bulletin 86(2), 420–428, doi:10.1037/0033-2909.86.2.420.
    Krippendorff, K. (2011). Computing Krippendorff's alpha-reliability. Annenberg School for
    Communication, University of Pennsylvania.

    Examples
    --------
    >>> import warnings
    >>> from kappalab import bayes, simulate
    >>> ann, truth = simulate.annotations(30, level="interval", reliability=0.7, seed=0)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")  # 50 draws: a SamplingWarning (low ESS) is likely
    ...     post = bayes.interval_reliability(ann, draws=50, tune=50, chains=1, seed=0)
    >>> bool(0 < post.mean("icc") < 1), post["sigma_within"].shape
    (True, (50,))
    """
    options = SamplingOptions(draws, tune, chains, seed, sampler)
    prior = validate_prior(prior, {"icc": (1.0, 1.0), "sd": 2.0, "mu": 10.0},
                           "interval_reliability")
    ann = as_annotations(data, categories=categories)
    ann.category_values("the interval model")
    m_all = ann.annotations_per_item_array
    if (m_all > 0).sum() < 2 or not (m_all >= 2).any():
        raise EmptyDataError(
            "the interval model needs at least 2 annotated items and one item with 2 or more "
            f"annotations; got {int((m_all > 0).sum())} annotated items, "
            f"{int((m_all >= 2).sum())} with 2 or more")
    center, scale = location_scale(ann)
    location = center + float(ann.value_origin)  # the data's mean (integers beyond 2**53)
    if not scale > 0:
        raise EmptyDataError(f"every annotation has the same value ({location:g}): the ICC "
                             "is undefined")
    m_all, mean_all, ss_all = item_statistics(ann, center, scale)
    stats = OneWayStatistics.from_items(m_all, mean_all, ss_all)

    padded = stats.padded(bucket(stats.m.size))
    data = {**padded.data_values(), "center": location, "scale": scale}

    def build(pm, pt, Model):
        with Model() as model:
            st = padded.as_data(pm)
            loc, unit = pm.Data("center", center), pm.Data("scale", scale)
            icc = pm.Beta("icc", *prior["icc"])
            sigma = pm.HalfNormal("sigma_total", prior["sd"])
            mu = pm.Normal("mu_z", 0.0, prior["mu"])
            var_b, var_w = icc * sigma**2, (1.0 - icc) * sigma**2
            pm.Potential("loglik", one_way_loglik(pt, st, mu, var_b, var_w))
            pm.Deterministic("alpha", icc)
            pm.Deterministic("mu", loc + unit * mu)
            pm.Deterministic("sigma_between", unit * pt.sqrt(var_b))
            pm.Deterministic("sigma_within", unit * pt.sqrt(var_w))
        return model

    posterior, sample_stats = fit_model(
        "interval_reliability", prior, build, data, options,
        ["icc", "alpha", "mu", "sigma_between", "sigma_within", "mu_z", "sigma_total"],
        shape=(padded.m.size,))

    # posterior predictive, on the standardised scale (the model's own draws: no data-scale
    # number is formed, so nothing overflows at 1e300 or loses the digits of a large mean)
    mu_d = flat(posterior, "mu_z")
    icc_draws, sd_draws = flat(posterior, "icc"), flat(posterior, "sigma_total")
    sb, sw = sd_draws * np.sqrt(icc_draws), sd_draws * np.sqrt(1.0 - icc_draws)
    posterior = posterior.drop_vars(["mu_z", "sigma_total"])
    S = mu_d.size
    present = m_all > 0
    m, mean, ss = m_all[present], mean_all[present], ss_all[present]
    pairable = m >= 2
    rep_between, rep_within = np.empty(S), np.full(S, np.nan)
    for block in blocks(S, m.size):
        rng = options.rng
        sd_mean = np.sqrt(sb[block, None] ** 2 + sw[block, None] ** 2 / m[None, :])
        means = mu_d[block, None] + sd_mean * rng.standard_normal((sd_mean.shape[0], m.size))
        rep_between[block] = _sd(means) ** 2
        if pairable.sum() >= 2:
            df = m[pairable] - 1
            chi2 = rng.chisquare(np.broadcast_to(df, (sd_mean.shape[0], df.size)))
            rep_within[block] = _sd(sw[block, None] ** 2 * chi2 / df)
    replicated = {"between_variance": rep_between}
    observed = {"between_variance": float(_sd(mean) ** 2)}
    if pairable.sum() >= 2:
        replicated["within_variance_sd"] = rep_within
        observed["within_variance_sd"] = float(_sd(ss[pairable] / (m[pairable] - 1)))
    return assemble(
        posterior, sample_stats, options, model="interval_reliability", replicated=replicated,
        observed=observed, headline=("icc", "mu", "sigma_between", "sigma_within"),
        attrs={**prior_attrs(prior), "n_items": int(m.size),
               "n_pairable_items": int(pairable.sum()), "n_annotations": int(m.sum()),
               "data_mean": location, "data_sd": scale})
