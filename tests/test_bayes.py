"""kappalab.bayes: Bayesian reliability models against outside truths.

Every asserted number comes from outside the model code: the exact population values of
``kappalab.simulate`` (``Truth``), the conjugate Dirichlet posterior of the Cohen table
(numpy Monte Carlo), the frequentist estimators of kappalab, exact likelihoods from scipy
(Dirichlet–multinomial pmf, multivariate normal densities and orthant probabilities) and
tables counted here with pandas.

Fits use 300 draws and 300 tuning steps on 2 chains (fixed seeds); at 2000 items the
posterior standard deviations are 0.01–0.02, so "near the truth" is checked as the 95% HDI
containing the truth, that HDI being narrow (width < 0.1), and |mean − truth| < 4 sd.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.integrate import dblquad
from scipy.special import ndtr
from scipy.stats import dirichlet_multinomial, multivariate_normal

import kappalab as kl
from kappalab import simulate
from kappalab.errors import (DroppedAnnotationsWarning, EmptyDataError, InvalidParameterError,
                             NonNumericError, RaterCountError)

# PyMC, ArviZ and PyTensor are in the test extra: a missing one fails the run, as any oracle
import arviz as az
import pymc  # noqa: F401
import pytensor.tensor as pt

from kappalab import bayes
from kappalab.bayes.cross import (BinaryPatterns, CrossIntervalStatistics,
                                  binary_loglik, cross_interval_loglik)
from kappalab.bayes.models import (OneWayStatistics, dirichlet_multinomial_loglik,
                                   item_statistics, one_way_loglik)
from kappalab.bayes.posterior import diagnose

FIT = dict(draws=300, tune=300, chains=2)


def fit(function, *args, **kwargs):
    """Fit with the test settings; warnings (R-hat a little above 1.01 is common with 300
    draws) are recorded, not raised, and returned with the posterior."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        post = function(*args, **{**FIT, **kwargs})
    return post, caught


def messages(caught, category):
    return [str(w.message) for w in caught if issubclass(w.category, category)]


def assert_near_truth(post, name, truth, max_width=0.1):
    low, high = post.interval(name, 0.95)
    sd = post[name].std()
    assert low <= truth <= high, (f"{name}: truth {truth:.4f} outside the 95% HDI "
                                  f"({low:.4f}, {high:.4f})")
    assert high - low < max_width, f"{name}: HDI ({low:.4f}, {high:.4f}) is not informative"
    assert abs(post.mean(name) - truth) < 4 * sd


# ---------------------------------------------------------------------------------- nominal
@pytest.fixture(scope="module")
def nominal():
    ann, truth = simulate.annotations(2000, level="nominal", prevalence=[0.5, 0.3, 0.2],
                                      reliability=0.6, annotations_per_item=(1, 5), seed=11)
    post, _ = fit(bayes.nominal_reliability, ann, seed=1)
    return ann, truth, post


@pytest.mark.slow
def test_nominal_kappa_p_o_p_e_and_prevalence_match_the_simulation_truth(nominal):
    ann, truth, post = nominal
    assert_near_truth(post, "kappa", truth.alpha)       # population Fleiss κ = α = 0.6
    assert_near_truth(post, "p_o", truth.p_o)           # Σπ² + (1 − Σπ²)κ = 0.752
    assert_near_truth(post, "p_e", truth.p_e)           # Σπ² = 0.38
    np.testing.assert_allclose(post.mean("pi"), [0.5, 0.3, 0.2], atol=0.02)
    # τ = 1/κ − 1 (docs/architecture.md): the model's derived variable agrees draw by draw
    np.testing.assert_allclose(post["tau"], 1 / post["kappa"] - 1, rtol=1e-10)
    # Krippendorff's α estimates the same population value: the posterior agrees with it
    assert abs(post.mean("kappa") - float(kl.krippendorff_alpha(ann))) < 0.02


@pytest.mark.slow
def test_nominal_posterior_predictive_check(nominal):
    ann, truth, post = nominal
    # the observed statistic is Fleiss' P_o = percent agreement (Gwet 2014: mean over items
    # with ≥ 2 annotations of Σ n(n−1)/(m(m−1))), computed by kappalab's frequentist code
    observed = float(post.idata.observed_data["item_agreement"])
    assert observed == pytest.approx(float(kl.percent_agreement(ann)), abs=1e-12)
    replicated = post.idata.posterior_predictive["item_agreement"]
    assert replicated.dims == ("chain", "draw") and replicated.shape == (2, 300)
    # data from the model itself: the p-values are not extreme
    assert 0.05 < post.ppc_pvalue("item_agreement") < 0.95
    assert 0.05 < post.ppc_pvalue("item_agreement_sd") < 0.95


@pytest.mark.slow
def test_nominal_posterior_predictive_check_flags_heterogeneous_items():
    """Easy and hard items (κ_i = 0.5 ± 0.45): one κ cannot reproduce how much the item
    agreements vary, and the check says so."""
    ann, _ = simulate.annotations(1500, level="nominal", reliability=0.5, heterogeneity=0.9,
                                  annotations_per_item=6, seed=21)
    post, _ = fit(bayes.nominal_reliability, ann, seed=2, draws=200, tune=200)
    assert post.ppc_pvalue("item_agreement_sd") < 0.01


@pytest.mark.slow
def test_posterior_accessors(nominal):
    ann, truth, post = nominal
    assert post["kappa"].shape == (600,)
    assert post["pi"].shape == (600, 3)
    assert list(post.idata.posterior["pi"].coords["category"].values) == [0, 1, 2]
    np.testing.assert_allclose(post["pi"].sum(axis=1), 1.0, atol=1e-12)
    assert post.mean("pi").shape == (3,)
    assert isinstance(post.mean("kappa"), float)
    assert {"posterior", "sample_stats", "posterior_predictive", "observed_data"} <= set(
        post.idata.groups())
    # the HDI: holds 95% of the draws and is no wider than the equal-tailed interval
    draws = post["kappa"]
    low, high = post.interval("kappa", 0.95)
    inside = np.mean((draws >= low) & (draws <= high))
    assert 0.94 <= inside <= 0.96
    q_low, q_high = np.quantile(draws, [0.025, 0.975])
    assert high - low <= q_high - q_low + 1e-12
    table = post.summary(["kappa", "pi"])
    assert list(table.index) == ["kappa", "pi[0]", "pi[1]", "pi[2]"]
    for column in ("mean", "sd", "hdi_2.5%", "hdi_97.5%", "r_hat", "ess_bulk", "ess_tail"):
        assert column in table.columns
    assert table.loc["kappa", "mean"] == pytest.approx(draws.mean(), abs=1e-3)
    assert post.idata.posterior.attrs["draws"] == 300
    assert post.idata.posterior.attrs["seed"] == 1
    assert "kappa=" in repr(post)


def test_dirichlet_multinomial_likelihood_is_exact():
    """Against scipy's Dirichlet–multinomial pmf (which includes the multinomial
    coefficient, a constant: compare differences between two parameter points)."""
    rows = np.array([[2, 1, 0], [0, 0, 3], [1, 1, 1], [0, 1, 0], [4, 0, 1]])
    weight = np.array([3.0, 1.0, 2.0, 5.0, 1.0])

    def exact(pi, tau):
        return sum(w * dirichlet_multinomial.logpmf(r, tau * np.asarray(pi), r.sum())
                   for r, w in zip(rows, weight))

    def model(pi, tau):
        return float(dirichlet_multinomial_loglik(pt, rows, weight, np.asarray(pi),
                                                  tau).eval(mode="FAST_COMPILE"))

    a, b = ([0.5, 0.3, 0.2], 1.5), ([0.2, 0.2, 0.6], 0.25)
    assert model(*a) - model(*b) == pytest.approx(exact(*a) - exact(*b), abs=1e-10)


# ---------------------------------------------------------------------------------- Cohen
def two_rater_table(seed, n_items, missing=0):
    """Two raters with their own marginals (rater bias) on 3 ordered categories."""
    ann, truth = simulate.annotations(n_items, level="ordinal", n_categories=3,
                                      reliability=0.6, annotations_per_item=2, n_raters=2,
                                      rater_bias=0.5, seed=seed)
    wide = ann.wide.to_numpy().copy()
    if missing:
        rng = np.random.default_rng(seed)
        wide[rng.choice(n_items, missing, replace=False), rng.integers(0, 2)] = np.nan
    return wide, truth


def conjugate_kappa(table, weights, c, n_draws=400_000, seed=0):
    """Exact posterior of κ_w: p ~ Dirichlet(c + T), numpy Monte Carlo."""
    K = table.shape[0]
    p = np.random.default_rng(seed).dirichlet(c + table.ravel(), size=n_draws)
    p = p.reshape(-1, K, K)
    row, col = p.sum(axis=2), p.sum(axis=1)
    p_o = (weights * p).sum(axis=(1, 2))
    p_e = np.einsum("kl,nk,nl->n", weights, row, col)
    return (p_o - p_e) / (1 - p_e)


@pytest.fixture(scope="module")
def cohen_data():
    return two_rater_table(31, 600, missing=40)


@pytest.fixture(scope="module")
def cohen_fits(cohen_data):
    wide, _ = cohen_data
    fits = {}
    for weights in (None, "quadratic"):
        fits[weights], caught = fit(bayes.cohen_kappa, wide, weights=weights, seed=3)
        dropped = messages(caught, DroppedAnnotationsWarning)
        assert len(dropped) == 1 and dropped[0].startswith("40 item(s)")
    return fits


@pytest.mark.slow
@pytest.mark.parametrize("weights", [None, "quadratic"])
def test_cohen_matches_the_conjugate_dirichlet_posterior(cohen_data, cohen_fits, weights):
    wide, truth = cohen_data
    post = cohen_fits[weights]
    complete = ~np.isnan(wide).any(axis=1)
    table = pd.crosstab(wide[complete, 0], wide[complete, 1]).reindex(
        index=[0.0, 1.0, 2.0], columns=[0.0, 1.0, 2.0], fill_value=0).to_numpy()
    np.testing.assert_array_equal(post.idata.observed_data["table"], table)
    K = 3
    c, k = np.meshgrid(np.arange(K), np.arange(K), indexing="ij")
    # Cohen (1968) agreement weights on the category values 0, 1, 2
    w = np.eye(K) if weights is None else 1.0 - ((c - k) / (K - 1.0)) ** 2
    # the default prior: Dirichlet(1/K²) on the K² cells (Perks), recorded on the posterior
    c = 1 / K**2
    assert post.idata.posterior.attrs["prior_p"] == c
    exact = conjugate_kappa(table, w, c)
    mcse = float(az.mcse(post.idata, var_names=["kappa"])["kappa"])
    assert abs(post.mean("kappa") - exact.mean()) < 4 * mcse + 1e-4
    assert post["kappa"].std() == pytest.approx(exact.std(), rel=0.15)
    # cell probabilities: the Dirichlet(c + T) mean (c + T)/(K²c + N)
    expected_p = (c + table) / (K**2 * c + table.sum())
    np.testing.assert_allclose(post.mean("p"), expected_p, atol=0.004)
    assert not post.idata.sample_stats["diverging"].any()
    if weights is None:
        # the population Cohen κ of the simulated pair of biased raters
        assert_near_truth(post, "kappa", truth.cohen_kappa, max_width=0.15)
        # the frequentist Cohen κ uses the one-rater items for the marginals: close anyway
        assert abs(post.mean("kappa") - float(kl.cohen_kappa(wide))) < 0.03


@pytest.mark.slow
def test_same_seed_same_draws_other_seed_other_draws(cohen_data, cohen_fits):
    wide, _ = cohen_data
    first = cohen_fits[None]  # seed=3
    again, _ = fit(bayes.cohen_kappa, wide, seed=3)
    other, _ = fit(bayes.cohen_kappa, wide, seed=4)
    np.testing.assert_array_equal(first["kappa"], again["kappa"])
    np.testing.assert_array_equal(first["p"], again["p"])
    np.testing.assert_array_equal(first.idata.posterior_predictive["table"],
                                  again.idata.posterior_predictive["table"])
    assert not np.array_equal(first["kappa"], other["kappa"])
    assert not np.array_equal(first.idata.posterior_predictive["table"],
                              other.idata.posterior_predictive["table"])


@pytest.mark.slow
@pytest.mark.parametrize("prior, c", [(None, 0.25), ({"p": 1.0}, 1.0), ({"p": 0.5}, 0.5)])
def test_cohen_prior_is_the_conjugate_dirichlet_with_an_empty_cell(prior, c):
    """Posterior mean of the cells (c + T)/(K²c + N) exactly as the Dirichlet(c + T) has it,
    the default c = 1/K² (Perks), and no divergence on an empty cell (g = h·exp(−E/c))."""
    table = np.array([[20, 0], [3, 27]])
    wide = np.repeat([[0, 0], [0, 1], [1, 0], [1, 1]], table.ravel(), axis=0)
    post, caught = fit(bayes.cohen_kappa, wide, prior=prior, seed=11)
    assert post.idata.posterior.attrs["prior_p"] == c
    expected = (c + table) / (4 * c + table.sum())
    mcse = az.mcse(post.idata, var_names=["p", "kappa"])
    assert (np.abs(post.mean("p") - expected) < 4 * mcse["p"].to_numpy() + 1e-4).all()
    exact = conjugate_kappa(table, np.eye(2), c)
    assert abs(post.mean("kappa") - exact.mean()) < 4 * float(mcse["kappa"]) + 1e-4
    assert not post.idata.sample_stats["diverging"].any()
    assert not [m for m in messages(caught, bayes.SamplingWarning) if "divergent" in m]


@pytest.mark.slow
def test_cohen_estimands_differ_on_one_rater_items():
    """kl.cohen_kappa takes each rater's marginal from all that rater's annotations;
    bayes.cohen_kappa models the table of the items both rated, so one-rater items change
    the first and leave the second's posterior exactly as it is (both docstrings say so)."""
    # 8 items both rated (hand-countable), then 6 items only rater 1 rated (all category 0)
    # and 3 only rater 2 rated (all category 1)
    both = np.array([[0, 0], [0, 0], [0, 1], [1, 1], [1, 1], [1, 0], [1, 1], [0, 0]], float)
    one_rater = np.array([[0, np.nan]] * 6 + [[np.nan, 1]] * 3)
    wide = np.vstack([both, one_rater])
    # by hand: P_o = 6/8 on the 8 complete items. Complete-item marginals: rater 1 (4/8,
    # 4/8), rater 2 (4/8, 4/8): P_e = 1/2, κ = (3/4 − 1/2)/(1/2) = 1/2. All-annotation
    # marginals: rater 1 (10/14, 4/14), rater 2 (4/11, 7/11):
    # P_e = (40 + 28)/154 = 68/154, κ = (3/4 − 68/154)/(1 − 68/154) = 95/172
    assert float(kl.cohen_kappa(both)) == pytest.approx(0.5, abs=1e-15)
    assert float(kl.cohen_kappa(wide)) == pytest.approx(95 / 172, abs=1e-15)
    few = dict(draws=60, tune=60, chains=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few draws: sampling diagnostics expected
        with_one_rater = bayes.cohen_kappa(wide, seed=5, **few)
        complete_only = bayes.cohen_kappa(both, seed=5, **few)
    # the one-rater items are dropped: the same table, the same posterior, draw for draw
    np.testing.assert_array_equal(with_one_rater.idata.observed_data["table"],
                                  [[3, 1], [1, 3]])
    np.testing.assert_array_equal(with_one_rater["kappa"], complete_only["kappa"])
    assert with_one_rater.idata.posterior.attrs["n_dropped_items"] == 9


@pytest.mark.slow
def test_sampling_warnings_reach_the_callers_line():
    """10 draws per chain: the bulk ESS cannot reach 100 per chain (ArviZ caps it at
    n·log10(n) = 26 for 20 draws), so the fit must warn, attributed to this file."""
    wide, _ = two_rater_table(43, 60)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        post = bayes.cohen_kappa(wide, draws=10, tune=20, chains=2, seed=1)
    ours = [w for w in record if issubclass(w.category, bayes.SamplingWarning)]
    assert any("effective sample size below 200" in str(w.message) for w in ours)
    assert all(w.filename == __file__ for w in ours)
    assert [str(w.message) for w in ours] == [f"cohen_kappa: {m}" for m in post.diagnostics]
    # PyMC's and PyTensor's own chatter is silenced: ours are the only warnings
    assert len(ours) == len(record)


# ---------------------------------------------------------------------------------- interval
@pytest.fixture(scope="module")
def interval():
    ann, truth = simulate.annotations(2000, level="interval", reliability=0.7,
                                      annotations_per_item=(1, 4), seed=12)
    post, _ = fit(bayes.interval_reliability, ann, seed=4)
    return ann, truth, post


@pytest.mark.slow
def test_interval_icc_matches_the_simulation_truth(interval):
    ann, truth, post = interval
    assert_near_truth(post, "icc", truth.alpha)  # σ_b²/(σ_b² + σ_w²) = 0.7
    np.testing.assert_array_equal(post["alpha"], post["icc"])
    # σ_b² = reliability, σ_w² = 1 − reliability, mean 0 (simulate's interval model)
    assert_near_truth(post, "sigma_between", truth.details["sigma_b2"] ** 0.5)
    assert_near_truth(post, "sigma_within", truth.details["sigma_w2"] ** 0.5)
    assert_near_truth(post, "mu", truth.details["mean"])
    # the frequentist interval α estimates the same population value (loose: it weighs
    # items by their annotations, the model by its likelihood)
    assert abs(post.mean("icc") - float(kl.krippendorff_alpha(ann, level="interval"))) < 0.03
    assert 0.05 < post.ppc_pvalue("within_variance_sd") < 0.95
    assert 0.05 < post.ppc_pvalue("between_variance") < 0.95


def test_one_way_likelihood_is_the_exact_normal_likelihood():
    """Items as multivariate normal vectors N(μ1, σ_b²11ᵀ + σ_w²I): the marginalised
    likelihood differs from the exact one by a constant."""
    x = np.array([[1.0, 2.0, np.nan], [0.5, np.nan, np.nan], [3.0, 2.5, 4.0], [-1.0, 0.0, 0.5],
                  [2.0, np.nan, 2.2]])
    ann = kl.Annotations.from_wide(x)
    stats = OneWayStatistics.from_items(*item_statistics(ann, 0.0, 1.0))

    def exact(mu, vb, vw):
        total = 0.0
        for row in x:
            v = row[~np.isnan(row)]
            cov = vb * np.ones((v.size, v.size)) + vw * np.eye(v.size)
            total += multivariate_normal(np.full(v.size, mu), cov).logpdf(v)
        return total

    def model(mu, vb, vw):
        return float(one_way_loglik(pt, stats, mu, vb, vw).eval(mode="FAST_COMPILE"))

    a, b = (0.3, 1.2, 0.4), (1.5, 0.3, 2.0)
    assert model(*a) - model(*b) == pytest.approx(exact(*a) - exact(*b), abs=1e-10)


# ---------------------------------------------------------------------------------- cross
@pytest.mark.slow
def test_cross_interval_matches_the_simulation_truth():
    ax, ay, truth = simulate.replications(2000, level="interval", rho=0.8,
                                          reliability=(0.6, 0.5),
                                          annotations_per_item=((2, 4), 3), shift=0.5,
                                          only_x=200, only_y=200, seed=13)
    post, _ = fit(bayes.cross_replication, ax, ay, level="interval", seed=5)
    attrs = post.idata.posterior.attrs
    assert (attrs["n_common_items"], attrs["n_items_only_x"], attrs["n_items_only_y"]) == (
        2000, 200, 200)
    for name in ("irr_x", "irr_y", "kx", "normalized_kx", "rho"):
        assert_near_truth(post, name, getattr(truth, name))
    # means: X centred at 0, Y shifted by 0.5 (simulate.replications)
    assert_near_truth(post, "mu_y", 0.5)
    # κx of Wong et al. (2021), frequentist, on the same data
    assert abs(post.mean("kx") - float(kl.cross_kappa(ax, ay, level="interval"))) < 0.03
    assert 0.05 < post.ppc_pvalue("item_mean_correlation") < 0.95


def test_cross_interval_likelihood_is_the_exact_normal_likelihood():
    """Each item's annotations of both sides as one multivariate normal vector."""
    x = pd.DataFrame([[1.0, 2.0], [0.5, np.nan], [3.0, 2.5], [0.0, 1.0]], index=[0, 1, 2, 3])
    y = pd.DataFrame([[1.5, 1.0, 2.0], [0.0, np.nan, np.nan], [2.0, 3.0, np.nan],
                      [5.0, 4.0, np.nan]], index=[0, 1, 2, 9])  # item 3 X only, 9 Y only
    ax, ay = kl.Annotations.from_wide(x), kl.Annotations.from_wide(y)
    from kappalab.alignment import AlignedReplications

    al = AlignedReplications(ax, ay)
    items = [tuple(al.spread(v, side) for v in item_statistics(ann, 0.0, 1.0))
             for ann, side in ((ax, "x"), (ay, "y"))]
    stats = CrossIntervalStatistics.from_items(items[0], items[1], al.n_common, al.n_only_x)

    def exact(mu_x, mu_y, vb_x, vw_x, vb_y, vw_y, rho):
        total = 0.0
        for item in (0, 1, 2, 3, 9):
            xs = x.loc[item].dropna().to_numpy() if item in x.index else np.empty(0)
            ys = y.loc[item].dropna().to_numpy() if item in y.index else np.empty(0)
            r, s = xs.size, ys.size
            cov = np.zeros((r + s, r + s))
            cov[:r, :r] = vb_x + vw_x * np.eye(r)
            cov[r:, r:] = vb_y + vw_y * np.eye(s)
            cov[:r, r:] = cov[r:, :r] = rho * np.sqrt(vb_x * vb_y)
            mean = np.concatenate([np.full(r, mu_x), np.full(s, mu_y)])
            total += multivariate_normal(mean, cov).logpdf(np.concatenate([xs, ys]))
        return total

    def model(*theta):
        return float(cross_interval_loglik(pt, stats, *theta).eval(mode="FAST_COMPILE"))

    a = (0.3, 1.1, 1.2, 0.4, 0.8, 0.5, 0.7)
    b = (1.5, -0.2, 0.3, 2.0, 1.5, 0.2, -0.4)
    assert model(*a) - model(*b) == pytest.approx(exact(*a) - exact(*b), abs=1e-10)


@pytest.mark.slow
def test_cross_binary_matches_the_simulation_truth():
    ax, ay, truth = simulate.replications(2000, level="binary", rho=0.8,
                                          reliability=(0.6, 0.5), annotations_per_item=(3, 3),
                                          prevalence=0.3, shift=0.3, seed=14)
    post, _ = fit(bayes.cross_replication, ax, ay, level="binary", seed=6)
    # the default priors, recorded on the posterior: ρ_L ~ Beta(1, ½), (ρ_u + 1)/2 ~
    # Beta(½, ½) (a median split's κ of either near uniform), π uniform
    attrs = post.idata.posterior.attrs
    assert [list(attrs[f"prior_{k}"]) for k in ("prevalence", "latent_icc", "rho")] == [
        [1.0, 1.0], [1.0, 0.5], [0.5, 0.5]]
    for name in ("irr_x", "irr_y", "kx", "normalized_kx", "rho"):
        assert_near_truth(post, name, getattr(truth, name))
    # the latent parameters of simulate's threshold model
    assert_near_truth(post, "latent_rho", truth.details["parameters"]["rho"])  # 0.8
    assert_near_truth(post, "latent_icc_x", truth.details["x"].details["latent_icc"])
    assert_near_truth(post, "threshold_y", float(truth.details["y"].details["thresholds"][0]),
                      max_width=0.2)
    # frequentist estimates on the same data (nominal α of each side, nominal κx)
    assert abs(post.mean("irr_x") - float(kl.krippendorff_alpha(ax))) < 0.03
    assert abs(post.mean("kx") - float(kl.cross_kappa(ax, ay))) < 0.03
    for name in ("item_agreement_x", "item_agreement_y", "cross_agreement"):
        assert 0.025 < post.ppc_pvalue(name) < 0.975


def test_cross_binary_default_priors_make_a_median_split_kappa_near_uniform():
    """The rationale of the binary defaults: by Sheppard's formula a median split of latents
    of correlation r has κ = (2/π) arcsin r. (ρ_u + 1)/2 ~ Beta(½, ½) makes that κ exactly
    uniform on (−1, 1); ρ_L ~ Beta(1, ½) makes it nearly uniform on (0, 1), where the old
    uniform ρ_L put 71% of it below ½."""
    from scipy.stats import beta

    x = np.linspace(-0.95, 0.95, 39)
    np.testing.assert_allclose(beta(0.5, 0.5).cdf((np.sin(np.pi * x / 2) + 1) / 2),
                               (x + 1) / 2, atol=1e-12)
    q = np.array([0.25, 0.5, 0.75])
    assert np.abs(beta(1, 0.5).cdf(np.sin(np.pi * q / 2)) - q).max() < 0.05
    assert beta(1, 1).cdf(np.sin(np.pi / 4)) == pytest.approx(np.sqrt(0.5))


@pytest.mark.slow
def test_binary_quadrature_against_orthant_probabilities_and_adaptive_quadrature():
    """An item's likelihood is the probability of its annotation sequence. Reference for items
    with at most 3 annotations: a normal orthant probability of the annotations' latent z's
    (correlation ρ_L within a side, ρ_u√(ρ_LXρ_LY) across: simulate's model) by scipy's
    multivariate normal CDF (Genz, seeded; ~1e-8). For larger items: the double integral over
    the item latents (u_X, u_Y) of the product of the annotations' probabilities by scipy's
    adaptive Gauss–Kronrod ``dblquad`` (~1e-10)."""
    t_x, t_y, licc_x, licc_y, rho_u = 0.3, -0.2, 0.7, 0.6, 0.8
    items = [([0, 0], [1]), ([1, 0], [0]), ([1, 1], []), ([1], [1, 0]), ([0, 1], [0, 0]),
             ([1, 1, 0], [0, 1, 1])]

    def orthant(xs, ys):
        side = np.array([0] * len(xs) + [1] * len(ys))
        cov = np.where(side[:, None] == side[None, :],
                       np.where(side[:, None] == 0, licc_x, licc_y),
                       rho_u * np.sqrt(licc_x * licc_y))
        np.fill_diagonal(cov, 1.0)
        sign = np.array([-1.0 if v else 1.0 for v in xs + ys])  # "1": z > t
        upper = sign * np.array([t_x] * len(xs) + [t_y] * len(ys))
        return multivariate_normal.cdf(upper, mean=np.zeros(side.size),
                                       cov=cov * sign[:, None] * sign[None, :],
                                       abseps=1e-11, releps=1e-11, maxpts=10**6, rng=0)

    def sequence(values, u, licc, t):
        p = ndtr((np.sqrt(licc) * u - t) / np.sqrt(1 - licc))
        return np.prod([p if v else 1 - p for v in values], axis=0)

    def integral(xs, ys):
        norm = 1 / (2 * np.pi * np.sqrt(1 - rho_u**2))

        def density(uy, ux):
            return (norm * np.exp(-(ux * ux - 2 * rho_u * ux * uy + uy * uy)
                                  / (2 * (1 - rho_u**2)))
                    * sequence(xs, ux, licc_x, t_x) * sequence(ys, uy, licc_y, t_y))

        return dblquad(density, -8, 8, -8, 8, epsabs=1e-13, epsrel=1e-10)[0]

    exact = sum(np.log(orthant(xs, ys) if len(xs) + len(ys) <= 3 else integral(xs, ys))
                for xs, ys in items)
    R = np.array([len(xs) for xs, _ in items], float)
    S = np.array([len(ys) for _, ys in items], float)
    k_x = np.array([sum(xs) for xs, _ in items], float)
    k_y = np.array([sum(ys) for _, ys in items], float)
    patterns = BinaryPatterns.from_counts(R, k_x, S, k_y, step=0.168)
    model = float(binary_loglik(pt, patterns, t_x, t_y, licc_x, licc_y,
                                rho_u).eval(mode="FAST_COMPILE"))
    assert model == pytest.approx(exact, abs=1e-7)


# ---------------------------------------------------------------------------------- diagnostics
def test_diagnose_reports_divergences_rhat_and_low_ess():
    rng = np.random.default_rng(0)
    good = rng.normal(size=(2, 500))
    stuck = good + np.array([[0.0], [3.0]])  # the two chains disagree: R-hat ≫ 1.01
    walk = np.cumsum(rng.normal(size=(2, 500)), axis=1)  # strongly autocorrelated: low ESS
    diverging = np.zeros((2, 500), dtype=bool)
    diverging[0, [3, 50, 400]] = True
    idata = az.from_dict(posterior={"good": good, "stuck": stuck, "walk": walk},
                         sample_stats={"diverging": diverging})
    messages = diagnose(idata)
    assert any("3 divergent transitions" in m for m in messages)
    rhat = [m for m in messages if "R-hat" in m]
    assert len(rhat) == 1 and "stuck" in rhat[0] and "good" not in rhat[0]
    ess = [m for m in messages if "effective sample size" in m]
    assert len(ess) == 1 and "walk" in ess[0] and "good" not in ess[0]
    clean = az.from_dict(posterior={"good": good},
                         sample_stats={"diverging": np.zeros((2, 500), dtype=bool)})
    assert diagnose(clean) == []


# ---------------------------------------------------------------------------------- imports
@pytest.mark.slow
def test_import_kappalab_does_not_import_pymc():
    code = ("import sys, kappalab, kappalab.bayes; "
            "heavy = [m for m in ('pymc', 'pytensor', 'arviz') if m in sys.modules]; "
            "assert not heavy, heavy")
    subprocess.run([sys.executable, "-c", code], check=True)


def test_explicit_nutpie_without_nutpie_is_an_import_error(monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "nutpie" else real(name, *a))
    with pytest.raises(ImportError, match='pip install -e "\\.\\[nutpie\\]"'):
        bayes.cohen_kappa([[0, 1], [1, 1]], sampler="nutpie")


def test_the_default_sampler_is_pymcs_nuts():
    post, _ = fit(bayes.cohen_kappa, [0, 1, 1, 0, 1, 1], [0, 1, 1, 1, 1, 0], seed=0,
                  draws=30, tune=30, chains=1)
    assert post.idata.posterior.attrs["sampler"] == "pymc"


@pytest.mark.slow
def test_nutpie_sampler_reproduces_with_a_seed():
    ann, truth = simulate.annotations(500, level="interval", reliability=0.6, seed=2)
    a, _ = fit(bayes.interval_reliability, ann, seed=1, sampler="nutpie")
    b, _ = fit(bayes.interval_reliability, ann, seed=1, sampler="nutpie")
    assert a.idata.posterior.attrs["sampler"] == b.idata.posterior.attrs["sampler"] == "nutpie"
    np.testing.assert_array_equal(a["icc"], b["icc"])
    assert_near_truth(a, "icc", truth.alpha, max_width=0.15)


# ---------------------------------------------------------------------------------- bad input
@pytest.mark.parametrize("options, message", [
    ({"sampler": "stan"}, "unknown sampler 'stan'"),
    ({"sampler": "auto"}, "unknown sampler 'auto'; choose one of 'pymc', 'nutpie'"),
    ({"draws": 0}, "draws must be an integer ≥ 1"),
    ({"chains": 0}, "chains must be an integer ≥ 1"),
    ({"tune": -1}, "tune must be an integer ≥ 0"),
    ({"draws": 10.5}, "draws must be an integer"),
    ({"seed": "abc"}, "seed must be None, a non-negative integer"),
    ({"prior": {"lambda": 2}}, "unknown prior 'lambda'"),
    ({"prior": {"kappa": (0, 1)}}, "Beta shape parameters must be finite and > 0"),
    ({"prior": {"pi": -1}}, "prior 'pi' must be a positive number"),
])
def test_bad_options_raise_invalid_parameter(options, message):
    with pytest.raises(InvalidParameterError, match=message):
        bayes.nominal_reliability([[0, 1], [1, 1]], **options)


def test_bad_data_raise_kappalab_errors():
    with pytest.raises(EmptyDataError, match="at least 2 categories"):
        bayes.nominal_reliability([[1, 1], [1, 1], [1, np.nan]])
    with pytest.raises(EmptyDataError, match="2 or more annotations"):
        bayes.nominal_reliability([[0, np.nan], [1, np.nan]])
    with pytest.raises(RaterCountError, match="exactly two raters"):
        bayes.cohen_kappa([[0, 1, 1], [1, 1, 0]])
    with pytest.raises(EmptyDataError, match="no item in common"):
        bayes.cohen_kappa([[0, np.nan], [np.nan, 1]])
    with pytest.raises(NonNumericError, match="the interval model"):
        bayes.interval_reliability([["a", "b"], ["b", "b"]])
    with pytest.raises(EmptyDataError, match="same value"):
        bayes.interval_reliability([[2.0, 2.0], [2.0, 2.0]])
    with pytest.raises(EmptyDataError, match="no annotated item in common"):
        bayes.cross_replication(pd.DataFrame([[1.0, 2.0]], index=["a"]),
                                pd.DataFrame([[1.0, 2.0]], index=["b"]))
    with pytest.raises(InvalidParameterError, match="unknown level 'ordinal'"):
        bayes.cross_replication([[1, 2]], [[1, 2]], level="ordinal")
    with pytest.raises(InvalidParameterError, match="exactly 2 categories"):
        bayes.cross_replication([[0, 1], [2, 2]], [[0, 1], [1, 1]], level="binary")
    with pytest.raises(EmptyDataError, match="replication Y has no item with 2 or more"):
        bayes.cross_replication([[0, 1], [1, 1]], [[0], [1]], level="binary")
    with pytest.raises(InvalidParameterError, match="quadrature_step"):
        bayes.cross_replication([[0, 1], [1, 1]], [[0, 1], [1, 1]], level="binary",
                                quadrature_step=0)


@pytest.mark.slow
def test_bad_variable_names_and_probabilities(nominal):
    _, _, post = nominal
    with pytest.raises(KeyError, match="no variable 'nope'"):
        post["nope"]
    with pytest.raises(InvalidParameterError, match="no variable 'nope'"):
        post.interval("nope")
    with pytest.raises(InvalidParameterError, match="scalar variable"):
        post.interval("pi")
    with pytest.raises(InvalidParameterError, match="prob must be"):
        post.interval("kappa", prob=1.5)
    with pytest.raises(InvalidParameterError, match="no variable 'kappa' in its "
                                                    "posterior_predictive"):
        post.ppc_pvalue("kappa")
