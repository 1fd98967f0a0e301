"""kappalab.simulate: exact population truths, checked against Monte Carlo and estimators.

Three kinds of check, all with fixed seeds:

1. *Truth formulas against independent computations*: bivariate-normal probabilities against
   ``scipy.stats.multivariate_normal`` and 1-D quadrature; P_o of the Dirichlet model from the
   formula Σπ_c(τπ_c+1)/(τ+1) (docs/architecture.md); the interval κx by hand; Krippendorff's
   ordinal metric written out; the MNAR tilt written out from its definition. And the adaptive
   quadrature behind the MNAR limits against the bivariate-normal truths, where the two must
   coincide (a tilt that cannot act: every item gets the same number of annotations).
2. *Truths against large Monte Carlo estimates of the same population quantity*, from the raw
   simulated values with numpy only (no kappalab estimator): pair distributions, marginals,
   per-rater marginals, probabilities of agreement, variance components, the distribution of
   the number of annotations under MNAR, cross-replication disagreements and true-score
   covariances — each within 4 standard errors (items are iid, so an SE is the item-level
   standard deviation over √n, or a delete-a-group jackknife over 20 groups of items for ratios).
3. *Estimators at 100 000 items against their truths*: Krippendorff's α (nominal, ordinal,
   interval), Fleiss' κ, Conger's κ (rater bias on) and percent agreement, for every level and
   both missingness modes, within 4 jackknife standard errors (20 groups of items, computed on
   the item-sum spine: ``combine`` of leave-one-group-out totals).
"""

from __future__ import annotations

import copy
import functools
import math
import pickle
import time
from concurrent.futures import ProcessPoolExecutor
from types import MappingProxyType

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from scipy import stats
from scipy.integrate import quad
from scipy.special import ndtr, ndtri

import kappalab as kl
from kappalab import simulate
from kappalab.bivariate_normal import bvn_cdf, rectangle_probabilities
from kappalab.coefficients.multirater import ChanceCorrectedAgreement, distance_for, weights_for
from kappalab.errors import InvalidParameterError

Z = 4.0  # standard errors allowed between a Monte Carlo estimate and its truth


# ============================================================================== helpers
def values_table(ann) -> np.ndarray:
    """items × raters float values (NaN = missing), from the public wide view."""
    return ann.wide.to_numpy(dtype=float)


def two_values(ann) -> np.ndarray:
    """The two annotations of each item (every item must have exactly two), in rater order."""
    table = values_table(ann)
    present = ~np.isnan(table)
    assert (present.sum(axis=1) == 2).all()
    return table[present].reshape(-1, 2)


def mean_and_se(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column means of iid rows and their standard errors."""
    x = np.asarray(x, dtype=float)
    return x.mean(axis=0), x.std(axis=0, ddof=1) / math.sqrt(x.shape[0])


def assert_within(estimate, se, truth, what: str, z: float = Z):
    estimate, se, truth = (np.broadcast_to(np.asarray(a, dtype=float), np.shape(estimate))
                           for a in (estimate, se, truth))
    gap = np.abs(estimate - truth)
    bad = gap > z * se + 1e-12
    assert not bad.any(), (
        f"{what}: estimate {estimate[bad]} vs truth {truth[bad]}, gap {gap[bad]} > {z} × SE "
        f"{se[bad]}")


def jackknife(item_values: np.ndarray, ratio, groups: int = 20, seed: int = 0):
    """Delete-a-group jackknife of ratio(column sums) over items: (estimate, SE)."""
    n = item_values.shape[0]
    group = np.random.default_rng(seed).permutation(n) % groups
    G = np.stack([item_values[group == g].sum(axis=0) for g in range(groups)])
    total = G.sum(axis=0)
    loo = np.array([ratio(total - G[g]) for g in range(groups)])
    se = math.sqrt((groups - 1) / groups * ((loo - loo.mean(axis=0)) ** 2).sum(axis=0))
    return ratio(total), se


def pair_indicators(pairs: np.ndarray, K: int) -> np.ndarray:
    """Per item, the symmetrised indicator of its unordered pair of categories: (n, K·K)."""
    a, b = pairs[:, 0].astype(int), pairs[:, 1].astype(int)
    out = np.zeros((pairs.shape[0], K, K))
    rows = np.arange(pairs.shape[0])
    np.add.at(out, (rows, a, b), 0.5)
    np.add.at(out, (rows, b, a), 0.5)
    return out.reshape(-1, K * K)


# the estimators, on the item-sum spine (docs/architecture.md): (public function, core factory)
ESTIMATORS = {
    "alpha_nominal": (lambda a: kl.krippendorff_alpha(a, level="nominal"), lambda a: (
        distance_for(a, "nominal"), "pooled", "annotation")),
    "alpha_ordinal": (lambda a: kl.krippendorff_alpha(a, level="ordinal"), lambda a: (
        distance_for(a, "ordinal"), "pooled", "annotation")),
    "alpha_interval": (lambda a: kl.krippendorff_alpha(a, level="interval"), lambda a: (
        distance_for(a, "interval"), "pooled", "annotation")),
    "fleiss_kappa": (kl.fleiss_kappa, lambda a: (weights_for(a, None), "item_marginal", "item")),
    "conger_kappa": (kl.conger_kappa, lambda a: (weights_for(a, None), "rater_marginal",
                                                  "item")),
    "percent_agreement": (kl.percent_agreement, lambda a: (weights_for(a, None), "none",
                                                            "item")),
}


def estimator_jackknife(ann, name: str, groups: int = 20, seed: int = 0):
    """(estimate, jackknife SE) of a kappalab estimator: combine() of leave-one-group-out
    totals of its item statistics; the estimate is checked against the public function."""
    public, factory = ESTIMATORS[name]
    dis, chance, weighting = factory(ann)
    core = ChanceCorrectedAgreement(ann, dis, chance=chance, item_weighting=weighting, name=name)
    S = core.item_stats()
    n = S.shape[0]
    group = np.random.default_rng(seed).permutation(n) % groups
    indicator = sp.csr_matrix((np.ones(n), (group, np.arange(n))), shape=(groups, n))
    G = np.asarray((indicator @ S).todense() if sp.issparse(S) else indicator @ S)
    total = G.sum(axis=0)
    value = float(np.asarray(core.combine(total)["value"]))
    assert value == pytest.approx(float(public(ann)), abs=1e-12)
    loo = np.asarray(core.combine(total[None, :] - G)["value"], dtype=float)
    se = math.sqrt((groups - 1) / groups * ((loo - loo.mean()) ** 2).sum())
    return value, se


# ============================================================================== bivariate normal
@pytest.mark.slow
def test_bvn_cdf_matches_scipy_and_quadrature():
    grid = [-3.1, -1.2, -0.3, 0.0, 0.4, 1.7, 4.5]
    worst = 0.0
    for rho in (-0.999, -0.7, -0.2, 0.0, 0.3, 0.8, 0.99999):
        s = math.sqrt(1 - rho * rho)
        for h in grid:
            for k in grid:
                got = float(bvn_cdf(h, k, rho))
                ref = stats.multivariate_normal.cdf([h, k], mean=[0, 0],
                                                    cov=[[1, rho], [rho, 1]],
                                                    abseps=1e-14, releps=1e-14)
                # Φ2(h, k; ρ) = ∫_{-∞}^h φ(x) Φ((k − ρx)/√(1−ρ²)) dx
                if abs(rho) < 0.999 and h in (-1.2, 0.0, 1.7):
                    ref2 = quad(lambda x: stats.norm.pdf(x) * ndtr((k - rho * x) / s), -np.inf,
                                h, epsabs=1e-14, epsrel=1e-13, limit=400)[0]
                else:
                    ref2 = ref
                worst = max(worst, abs(got - ref), abs(got - ref2))
    assert worst < 1e-12


def test_bvn_cdf_special_cases():
    # Φ2(0, 0; ρ) = 1/4 + arcsin(ρ)/(2π) (Sheppard)
    for rho in (-0.5, 0.0, 0.5, 0.9):
        assert bvn_cdf(0.0, 0.0, rho) == pytest.approx(0.25 + math.asin(rho) / (2 * math.pi),
                                                       abs=1e-15)
    assert bvn_cdf(np.inf, 0.3, 0.4) == pytest.approx(ndtr(0.3), abs=1e-15)
    assert bvn_cdf(0.3, np.inf, 0.4) == pytest.approx(ndtr(0.3), abs=1e-15)
    assert bvn_cdf(-np.inf, 0.3, 0.4) == 0.0 and bvn_cdf(np.inf, np.inf, 0.2) == 1.0
    assert bvn_cdf(0.2, 0.5, 1.0) == pytest.approx(ndtr(0.2), abs=1e-15)  # min(h, k)
    assert bvn_cdf(0.2, 0.5, -1.0) == pytest.approx(ndtr(0.2) + ndtr(0.5) - 1, abs=1e-15)
    assert bvn_cdf(-0.2, -0.5, -1.0) == 0.0
    # a rectangle table sums to 1 and has the margins Φ(b_{c+1}) − Φ(b_c)
    b = np.array([-np.inf, -0.5, 0.2, 1.3, np.inf])
    J = rectangle_probabilities(b, b, 0.6)
    assert J.sum() == pytest.approx(1.0, abs=1e-14)
    assert J.sum(axis=1) == pytest.approx(np.diff(ndtr(b)), abs=1e-14)


# ======================================================================== annotations per item
def test_annotation_count_pmf_specs():
    assert simulate.annotation_count_pmf(3).tolist() == [0, 0, 0, 1]
    assert simulate.annotation_count_pmf((2, 4)) == pytest.approx([0, 0, 1 / 3, 1 / 3, 1 / 3])
    assert simulate.annotation_count_pmf({1: 0.25, 3: 0.75}).tolist() == [0, 0.25, 0, 0.75]
    assert simulate.annotation_count_pmf([0.0, 0.5, 0.5, 0.0]).tolist() == [0, 0.5, 0.5]
    # Poisson(2.5) truncated where the tail P(m > M) < 1e-12, renormalised (scipy oracle)
    pmf = simulate.annotation_count_pmf({"poisson": 2.5})
    M = pmf.size - 1
    assert stats.poisson.sf(M, 2.5) < 1e-12 <= stats.poisson.sf(M - 1, 2.5)
    ref = stats.poisson.pmf(np.arange(M + 1), 2.5)
    assert pmf == pytest.approx(ref / ref.sum(), rel=1e-12, abs=0)
    # geometric(0.4) on 1, 2, ...: P(m) = 0.6^(m−1)·0.4 (scipy's geom has the same support)
    pmf = simulate.annotation_count_pmf({"geometric": 0.4})
    M = pmf.size - 1
    assert pmf[0] == 0 and 0.6 ** M < 1e-12 <= 0.6 ** (M - 1)
    ref = stats.geom.pmf(np.arange(M + 1), 0.4)
    assert pmf == pytest.approx(ref / ref.sum(), rel=1e-12, abs=0)


@pytest.mark.parametrize("spec, fragment", [
    (0, "must be ≥ 1"), ((3, 2), "0 ≤ lo ≤ hi"), ({"poisson": -1}, "must be > 0"),
    ({"geometric": 1.5}, "(0, 1]"), ([0.5, 0.6], "sum to 1"), ([0.5, -0.5, 1.0],
                                                               "non-negative"),
    ({"a": 1}, "integer keys"), ("three", "annotations_per_item must be"), ([1.0], "all mass"),
    ({-1: 1.0}, "cannot be negative"),
])
def test_annotation_count_pmf_errors(spec, fragment):
    with pytest.raises(InvalidParameterError, match=fragment.replace("(", r"\(").replace(
            ")", r"\)")):
        simulate.annotation_count_pmf(spec)


@pytest.mark.slow
def test_fixed_and_range_counts_are_not_capped():
    """MAX_ANNOTATIONS_PER_ITEM bounds the pmf forms (dict, list, Poisson, geometric), whose
    support is a table; a fixed count or a (lo, hi) range is not capped."""
    cap = simulate.MAX_ANNOTATIONS_PER_ITEM
    assert cap == 10_000
    ann, truth = simulate.annotations(3, annotations_per_item=20_000, seed=0)
    assert (ann.annotations_per_item_array == 20_000).all() and ann.n_raters == 20_000
    assert truth.details["mean_annotations"] == 20_000
    ann, truth = simulate.annotations(2, level="ordinal", annotations_per_item=(19_998, 20_000),
                                      seed=1)
    assert ((ann.annotations_per_item_array >= 19_998)
            & (ann.annotations_per_item_array <= 20_000)).all()
    assert truth.details["mean_annotations"] == pytest.approx(19_999, abs=1e-9)
    ann_x, ann_y, _ = simulate.replications(2, annotations_per_item=(20_000, 3), seed=2)
    assert (ann_x.annotations_per_item_array == 20_000).all()
    assert (ann_y.annotations_per_item_array == 3).all()
    assert simulate.annotation_count_pmf((0, 20_000)).size == 20_001
    for pmf_form in ({20_000: 1.0}, [0.0] * 20_000 + [1.0], {"poisson": 15_000}):
        with pytest.raises(InvalidParameterError, match=f"at most {cap}"):
            simulate.annotation_count_pmf(pmf_form)


# ============================================================================== truth formulas
def test_nominal_truth_formulas():
    pi = np.array([0.5, 0.3, 0.15, 0.05])
    ann, truth = simulate.annotations(50, prevalence=pi, reliability=0.35, seed=1)
    tau = 1 / 0.35 - 1
    # docs/architecture.md: P_o = Σ π_c (τπ_c + 1)/(τ + 1), P_e = Σ π_c², κ = 1/(1 + τ)
    assert truth.p_o == pytest.approx((pi * (tau * pi + 1)).sum() / (tau + 1), abs=1e-14)
    assert truth.p_e == pytest.approx((pi ** 2).sum(), abs=1e-15)
    assert truth.details["tau"] == pytest.approx(tau, rel=1e-14)
    for name in ("alpha", "alpha_nominal", "fleiss_kappa", "cohen_kappa",
                 "alpha_annotation_weighted", "alpha_nominal_annotation_weighted"):
        assert getattr(truth, name) == pytest.approx(0.35, abs=1e-14)
    # a Dirichlet pair distribution has α = κ for every distance
    assert truth.details["alpha_ordinal"] == truth.details["alpha_interval"] == 0.35
    assert ann.n_categories == 4 and truth.n_categories == 4
    # reliability 0 (τ = ∞) and a single minority share
    _, truth0 = simulate.annotations(10, prevalence=0.1, reliability=0.0, seed=1)
    assert truth0.prevalence == pytest.approx((0.9, 0.1))
    assert truth0.p_o == pytest.approx(0.82) and truth0.alpha == 0.0


def test_binary_truth_matches_scipy_bivariate_normal():
    # binary, prevalence (0.8, 0.2): threshold t = Φ⁻¹(0.8); two annotations of an item are
    # bivariate normal with correlation ρ_L, so P_o = Φ2(t, t; ρ_L) + P(z > t, z' > t)
    _, truth = simulate.annotations(10, level="binary", prevalence=[0.8, 0.2],
                                    reliability=0.45, seed=0)
    rho = truth.details["latent_icc"]
    t = ndtri(0.8)
    both_low = stats.multivariate_normal.cdf([t, t], mean=[0, 0], cov=[[1, rho], [rho, 1]],
                                             abseps=1e-14, releps=1e-14)
    both_high = 1 - 2 * 0.8 + both_low
    p_o = both_low + both_high
    assert truth.p_o == pytest.approx(p_o, abs=1e-10)
    assert truth.p_e == pytest.approx(0.8 ** 2 + 0.2 ** 2, abs=1e-15)
    assert (p_o - 0.68) / (1 - 0.68) == pytest.approx(0.45, abs=1e-10)  # ρ_L solves α = 0.45
    assert truth.alpha == pytest.approx(0.45, abs=1e-12)


def test_ordinal_alphas_from_pair_distribution():
    """details alpha_ordinal / alpha_interval against Krippendorff's definitions written out."""
    pi = [0.1, 0.2, 0.4, 0.2, 0.1]
    _, truth = simulate.annotations(10, level="ordinal", prevalence=pi, reliability=0.4,
                                    rater_bias=0.3, n_raters=4, seed=2)
    J, p = truth.details["pair_joint"], truth.details["marginals"]
    K = len(p)
    assert J == pytest.approx(J.T, abs=1e-15) and J.sum() == pytest.approx(1, abs=1e-13)
    assert J.sum(axis=0) == pytest.approx(p, abs=1e-13)
    delta_ord = np.zeros((K, K))
    for c in range(K):
        for k in range(K):
            lo, hi = min(c, k), max(c, k)
            delta_ord[c, k] = 0 if c == k else (sum(p[lo:hi + 1]) - (p[lo] + p[hi]) / 2) ** 2
    delta_int = np.subtract.outer(np.arange(K), np.arange(K)) ** 2.0
    for delta, name in ((delta_ord, "alpha_ordinal"), (delta_int, "alpha_interval")):
        expected = 1 - (J * delta).sum() / (p @ delta @ p)
        assert truth.details[name] == pytest.approx(expected, abs=1e-13)
    # ordinal data: the truth's α is at the ordinal level
    assert truth.alpha == pytest.approx(1 - (J * delta_ord).sum() / (p @ delta_ord @ p),
                                        abs=1e-13)
    # Fleiss (pooled marginals) and Conger (mean over pairs of raters g ≠ h of p_gᵀ p_h)
    P = truth.details["rater_marginals"]
    p_e_conger = np.mean([P[g] @ P[h] for g in range(4) for h in range(4) if g != h])
    p_o = np.trace(J)
    assert truth.cohen_kappa == pytest.approx((p_o - p_e_conger) / (1 - p_e_conger), abs=1e-13)
    assert truth.alpha_nominal == pytest.approx((p_o - p @ p) / (1 - p @ p), abs=1e-13)
    assert truth.fleiss_kappa == truth.alpha_nominal != truth.cohen_kappa


@pytest.mark.slow
@pytest.mark.parametrize("level, kwargs", [
    ("binary", dict(prevalence=0.05)),
    ("ordinal", dict(rater_bias=0.5, n_raters=5)),
    ("ordinal", dict(n_categories=9, prevalence=[.02, .05, .1, .2, .26, .2, .1, .05, .02])),
])
@pytest.mark.parametrize("reliability", [0.0, 0.3, 0.9, 0.999])
def test_mnar_quadrature_equals_bivariate_normal_when_the_tilt_cannot_act(level, kwargs,
                                                                         reliability):
    """With 3 annotations on every item the MNAR tilt has nothing to move, so the quadrature
    limits must reproduce the bivariate-normal truths (steep integrands at 0.999)."""
    _, truth = simulate.annotations(10, level=level, reliability=reliability, missingness="mnar",
                                    mnar_strength=3.0, annotations_per_item=3, seed=4, **kwargs)
    d, lim = truth.details, truth.details["estimator_limits"]
    pairs = [(truth.alpha_annotation_weighted, truth.alpha), (truth.p_o_pairable, truth.p_o),
             (truth.alpha_nominal_annotation_weighted, truth.alpha_nominal),
             (truth.p_o_annotation_weighted, truth.p_o),
             (lim["fleiss_kappa"], truth.alpha_nominal),
             (lim["conger_kappa"], truth.cohen_kappa),
             (lim["alpha_ordinal"], d["alpha_ordinal"]),
             (lim["alpha_interval"], d["alpha_interval"]), (d["mean_annotations"], 3.0)]
    for got, expected in pairs:
        assert got == pytest.approx(expected, abs=1e-10)


def test_mcar_limits_equal_population_truths():
    for level, kw in (("nominal", {}), ("binary", dict(rater_bias=0.4, n_raters=5)),
                      ("ordinal", {}), ("interval", {})):
        _, truth = simulate.annotations(10, level=level, annotations_per_item=(1, 4), seed=3,
                                        **kw)
        lim = truth.details["estimator_limits"]
        at_level = {"ordinal": "alpha_ordinal", "interval": "alpha_interval"}.get(
            level, "alpha_nominal")
        assert lim[at_level] == pytest.approx(truth.alpha, abs=1e-14)
        if level != "interval":
            assert lim["alpha_nominal"] == pytest.approx(truth.alpha_nominal, abs=1e-14)
            assert truth.alpha_nominal_annotation_weighted == pytest.approx(
                truth.alpha_nominal, abs=1e-14)
            assert lim["fleiss_kappa"] == pytest.approx(truth.fleiss_kappa, abs=1e-14)
            assert lim["conger_kappa"] == pytest.approx(truth.cohen_kappa, abs=1e-14)
            assert truth.p_o_pairable == pytest.approx(truth.p_o, abs=1e-14)
        assert truth.alpha_annotation_weighted == pytest.approx(truth.alpha, abs=1e-14)


def test_single_annotations_leave_pairable_limits_undefined():
    _, truth = simulate.annotations(10, annotations_per_item=1, seed=0)
    assert truth.alpha == 0.6  # the population value exists
    assert math.isnan(truth.p_o_pairable) and math.isnan(truth.alpha_annotation_weighted)


def test_interval_replication_truth_by_hand():
    # σ_bX² = 0.7, σ_bY² = 0.5, σ_w² = 0.3, 0.5, ρ = 0.6, shift 0.4:
    # κx = 2·0.6·√0.35 / (0.16 + 0.7 + 0.5 + 0.3 + 0.5) = 0.709930.../2.16
    _, _, truth = simulate.replications(10, rho=0.6, reliability=(0.7, 0.5), shift=0.4,
                                        seed=0)
    kx = 2 * 0.6 * math.sqrt(0.35) / 2.16
    assert truth.kx == pytest.approx(kx, abs=1e-15)
    assert truth.irr_x == 0.7 and truth.irr_y == 0.5 and truth.rho == 0.6
    assert truth.normalized_kx == pytest.approx(kx / math.sqrt(0.35), abs=1e-15)
    assert truth.details["kx_annotation_weighted"] == pytest.approx(kx, abs=1e-15)  # MCAR
    for name in ("irr_x_nominal", "irr_y_nominal", "kx_nominal", "normalized_kx_nominal"):
        assert math.isnan(getattr(truth, name))  # no nominal distance on interval data
    _, _, truth = simulate.replications(10, reliability=(0.0, 0.5), seed=0)
    assert truth.kx == 0 and math.isnan(truth.normalized_kx)


# ============================================================================== Monte Carlo
@pytest.mark.parametrize("level, kwargs", [
    ("nominal", dict(prevalence=[0.6, 0.25, 0.1, 0.05], reliability=0.5, heterogeneity=0.6)),
    ("binary", dict(prevalence=[0.85, 0.15], reliability=0.55)),
    ("ordinal", dict(prevalence=[0.1, 0.2, 0.4, 0.2, 0.1], reliability=0.45)),
])
def test_pair_distribution_and_marginals_monte_carlo(level, kwargs):
    """Two annotations per item: the unordered pair's distribution J and the marginals."""
    ann, truth = simulate.annotations(300_000, level=level, annotations_per_item=2, seed=11,
                                      **kwargs)
    K = truth.n_categories
    pairs = two_values(ann)
    est, se = mean_and_se(pair_indicators(pairs, K))
    J = truth.details["pair_joint"].ravel()
    # an SE floor √(J(1 − J)/n) for cells too rare to be observed (J ~ 1e-8)
    se = np.maximum(se, np.sqrt(J * (1 - J) / pairs.shape[0]))
    assert_within(est, se, J, f"{level} pair distribution")
    est, se = mean_and_se(pairs[:, :1] == np.arange(K)[None, :])  # one annotation per item
    assert_within(est, se, truth.details["marginals"], f"{level} marginals")
    est, se = mean_and_se(pairs[:, 0] == pairs[:, 1])
    assert_within(est, se, truth.p_o, f"{level} P_o")
    if level == "nominal":  # per difficulty class: P_k = Σπ² + (1 − Σπ²)κ_k
        s2 = truth.p_e
        for kappa in np.unique(truth.item_latent):
            cls = truth.item_latent == kappa
            est, se = mean_and_se(pairs[cls, 0] == pairs[cls, 1])
            assert_within(est, se, s2 + (1 - s2) * kappa, f"class κ = {kappa} P_o")
        assert sorted(np.unique(truth.item_latent)) == pytest.approx([0.5 - 0.3, 0.5 + 0.3])


def test_rater_bias_monte_carlo():
    """Three biased raters, two annotations per item: per-rater marginals and the pool's
    pair distribution (mean over ordered pairs) against simulated frequencies."""
    ann, truth = simulate.annotations(300_000, level="ordinal", n_categories=4,
                                      reliability=0.5, rater_bias=0.6, n_raters=3,
                                      annotations_per_item=2, seed=12)
    table = values_table(ann)
    K = 4
    shifts = truth.details["rater_shifts"]
    assert np.ptp(shifts) > 0.3  # the pool really is biased
    for g in range(3):
        col = table[:, g]
        x = col[~np.isnan(col)]
        est, se = mean_and_se(x[:, None] == np.arange(K)[None, :])  # one per item: iid
        assert_within(est, se, truth.details["rater_marginals"][g], f"rater {g} marginals")
    est, se = mean_and_se(pair_indicators(two_values(ann), K))
    assert_within(est, se, truth.details["pair_joint"].ravel(), "pooled pair distribution")
    # the shifted thresholds: rater g's P(category 0) = Φ(t_1 + β_g)
    t1 = ndtri(0.25)
    assert truth.details["rater_marginals"][:, 0] == pytest.approx(ndtr(t1 + shifts),
                                                                   abs=1e-14)


def test_interval_variance_components_monte_carlo():
    ann, truth = simulate.annotations(300_000, level="interval", reliability=0.3,
                                      heterogeneity=0.7, annotations_per_item=2, seed=13)
    x = two_values(ann)
    # E[(x_r − x_s)²]/2 = σ_wi² within each class; E[x_r x_s] = σ_b²; E[x²] = 1
    half_sq = 0.5 * (x[:, 0] - x[:, 1]) ** 2
    for s2 in truth.details["class_sigma_w2"]:
        cls = np.isclose(truth.item_difficulty, s2)  # h_i = σ_wi² (total variance 1)
        est, se = mean_and_se(half_sq[cls])
        assert_within(est, se, s2, "within-item variance of a class")
    est, se = mean_and_se(np.column_stack([half_sq, x[:, 0] * x[:, 1], x[:, 0] ** 2]))
    assert_within(est, se, [0.7, 0.3, 1.0], "σ_w², σ_b², total variance")
    assert truth.item_latent.std() == pytest.approx(math.sqrt(0.3), rel=0.01)


def _tilted_pmf(p0, h, h_bar, s):
    """p(m | h) ∝ p0(m) exp(s m (h − h̄)), written out."""
    m = np.arange(p0.size)
    w = p0[None, :] * np.exp(s * np.outer(h - h_bar, m))
    return w / w.sum(axis=1, keepdims=True)


@pytest.mark.slow
@pytest.mark.parametrize("level", ["nominal", "binary", "ordinal", "interval"])
def test_mnar_counts_monte_carlo(level):
    """The number of annotations follows the tilt of its definition, item by item, and its
    marginal pmf and mean (exact: class sums or quadrature) match the simulated ones."""
    p0 = simulate.annotation_count_pmf((0, 6))
    ann, truth = simulate.annotations(200_000, level=level, annotations_per_item=(0, 6),
                                      missingness="mnar", mnar_strength=2.0, n_raters=8,
                                      seed=14)
    m = ann.annotations_per_item_array
    h = truth.item_difficulty
    d = truth.details
    if level in ("binary", "ordinal"):  # h(μ) = 1 − Σ_c q_c(μ)², q from the thresholds
        rho = d["latent_icc"]
        b = np.concatenate([[-np.inf], d["thresholds"], [np.inf]])
        q = np.diff(ndtr((b[None, :] - truth.item_latent[:, None]) / math.sqrt(1 - rho)),
                    axis=1)
        assert h == pytest.approx(1 - (q ** 2).sum(axis=1), abs=1e-14)
    elif level == "nominal":  # h = 1 − P_i = (1 − Σπ²)(1 − κ_i)
        assert h == pytest.approx((1 - truth.p_e) * (1 - truth.item_latent), abs=1e-15)
    else:  # h = σ_wi² = σ_w²(1 ∓ 0.5), total variance 1
        assert set(np.round(h, 12)) == {0.2, 0.6}
    assert d["difficulty_mean"] == pytest.approx(1 - truth.p_o if level != "interval"
                                                 else 0.4, abs=1e-14)
    pm = _tilted_pmf(p0, h, d["difficulty_mean"], 2.0)
    mean = pm @ np.arange(7)
    var = pm @ np.arange(7) ** 2 - mean ** 2
    # Σ (m_i − E[m | h_i]) and Σ (m_i − E[m | h_i])(h_i − h̄), standardised
    for weight in (np.ones_like(h), h - h.mean()):
        z = (weight * (m - mean)).sum() / math.sqrt((weight ** 2 * var).sum())
        assert abs(z) < Z, f"m does not follow the tilt (z = {z:.2f})"
    assert np.corrcoef(m, h)[0, 1] > 0.05  # harder items do get more annotations
    est, se = mean_and_se(m[:, None] == np.arange(7)[None, :])
    assert_within(est, se, d["annotation_count_pmf_marginal"], "marginal pmf of m")
    est, se = mean_and_se(m)
    assert_within(est, se, d["mean_annotations"], "E[m]")


@pytest.mark.parametrize("level", ["nominal", "binary", "ordinal"])
def test_mnar_agreement_limits_monte_carlo(level):
    """p_o_pairable = E[P_i | m ≥ 2] and p_o_annotation_weighted = E[m P_i 1(m≥2)]/E[m 1(m≥2)]
    against the items' observed pair agreement, computed here with numpy."""
    ann, truth = simulate.annotations(200_000, level=level, annotations_per_item={"poisson": 2},
                                      missingness="mnar", mnar_strength=3.0, seed=15)
    table = values_table(ann)
    K = truth.n_categories
    counts = np.stack([(table == c).sum(axis=1) for c in range(K)], axis=1).astype(float)
    m = counts.sum(axis=1)
    keep = m >= 2
    P = (counts[keep] * (counts[keep] - 1)).sum(axis=1) / (m[keep] * (m[keep] - 1))
    est, se = mean_and_se(P)
    assert_within(est, se, truth.p_o_pairable, "E[P_i | m_i ≥ 2]")
    assert abs(truth.p_o_pairable - truth.p_o) > 5 * se  # MNAR really moves it
    est, se = jackknife(np.column_stack([m[keep] * P, m[keep]]), lambda t: t[0] / t[1])
    assert_within(est, se, truth.p_o_annotation_weighted, "m-weighted P_o")


@pytest.mark.parametrize("level, kwargs", [
    ("interval", dict(rho=0.7, reliability=(0.6, 0.4), shift=0.5)),
    ("binary", dict(rho=0.8, reliability=(0.5, 0.7), shift=0.4, prevalence=[0.7, 0.3])),
    ("ordinal", dict(rho=-0.5, reliability=(0.6, 0.3), shift=-0.3, n_categories=4)),
])
def test_replication_truths_monte_carlo(level, kwargs):
    """κx's disagreements from pairs across sides (same item / next item) and ρ from the
    covariances of raw annotations: Cov(x, y) across sides and Cov(x_r, x_s) within a side are
    the covariances of the item true scores (the annotation noise is independent)."""
    n = 200_000
    ann_x, ann_y, truth = simulate.replications(n, level=level, annotations_per_item=(2, 2),
                                                seed=16, **kwargs)
    x, y = two_values(ann_x), two_values(ann_y)
    if level == "interval":
        d_o, d_e = (x[:, 0] - y[:, 0]) ** 2, (x[:, 0] - np.roll(y[:, 0], 1)) ** 2
    else:
        d_o, d_e = x[:, 0] != y[:, 0], x[:, 0] != np.roll(y[:, 0], 1)
    est, se = mean_and_se(np.column_stack([d_o, d_e]))
    d = truth.details
    prefix = "kx" if level == "interval" else "kx_nominal"  # x ≠ y: the nominal distance
    assert_within(est, se, [d[f"{prefix}_observed_disagreement"],
                            d[f"{prefix}_expected_disagreement"]], "κx disagreements")
    est, se = jackknife(np.column_stack([d_o, d_e]), lambda t: 1 - t[0] / t[1])
    assert_within(est, se, truth.kx if level == "interval" else truth.kx_nominal, "κx")
    if level == "binary":  # two categories: one distance
        assert truth.kx == truth.kx_nominal
    if level == "ordinal":  # Krippendorff's ordinal metric on the pooled marginals
        pooled = (d["x"].details["marginals"] + d["y"].details["marginals"]) / 2
        mid = np.cumsum(pooled) - pooled / 2  # mid-ranks: δ_ck = (M_c − M_k)²
        xi, yi, yn = (v.astype(int) for v in (x[:, 0], y[:, 0], np.roll(y[:, 0], 1)))
        d_oo, d_eo = (mid[xi] - mid[yi]) ** 2, (mid[xi] - mid[yn]) ** 2
        est, se = mean_and_se(np.column_stack([d_oo, d_eo]))
        assert_within(est, se, [d["kx_observed_disagreement"], d["kx_expected_disagreement"]],
                      "ordinal κx disagreements")
        est, se = jackknife(np.column_stack([d_oo, d_eo]), lambda t: 1 - t[0] / t[1])
        assert_within(est, se, truth.kx, "ordinal κx")
    if level != "interval":  # the interval-on-index κx too
        d_oi, d_ei = (x[:, 0] - y[:, 0]) ** 2, (x[:, 0] - np.roll(y[:, 0], 1)) ** 2
        est, se = jackknife(np.column_stack([d_oi, d_ei]), lambda t: 1 - t[0] / t[1])
        assert_within(est, se, d["kx_interval"], "κx interval")
    # covariances of true scores: E[xy] − E[x]E[y] as sums over items (jackknife for ρ)
    cols = np.column_stack([x[:, 0] * y[:, 1], x[:, 0] * x[:, 1], y[:, 0] * y[:, 1],
                            x[:, 0], x[:, 1], y[:, 0], y[:, 1], np.ones(n)])

    def rho_hat(t):
        e = t / t[-1]
        cxy, cxx, cyy = e[0] - e[3] * e[6], e[1] - e[3] * e[4], e[2] - e[5] * e[6]
        return cxy / math.sqrt(cxx * cyy)

    est, se = jackknife(cols, rho_hat)
    assert_within(est, se, truth.rho, "ρ of the item true scores")
    if level != "interval":
        est, se = jackknife(cols, lambda t: t[0] / t[-1] - t[3] * t[6] / t[-1] ** 2)
        assert_within(est, se, d["true_score_covariance"], "Cov of the true scores")
        # the side truths: each side's nominal α at its own reliability
        assert truth.irr_x_nominal == pytest.approx(kwargs["reliability"][0], abs=1e-12)
        assert truth.irr_y_nominal == pytest.approx(kwargs["reliability"][1], abs=1e-12)
        # 2-D Gauss–Hermite over (u_X, u_Y) as a second, independent route to ρ
        nodes, weights = np.polynomial.hermite_e.hermegauss(120)
        weights = weights / weights.sum()
        r = kwargs["rho"]
        ux, e = np.meshgrid(nodes, nodes, indexing="ij")
        uy = r * ux + math.sqrt(1 - r * r) * e
        w = np.outer(weights, weights)

        def true_score(side, u):
            rho_l = side.details["latent_icc"]
            t = side.details["thresholds"]
            return ndtr((math.sqrt(rho_l) * u[..., None] - t) / math.sqrt(1 - rho_l)).sum(-1)

        gx, gy = true_score(d["x"], ux), true_score(d["y"], uy)
        mx, my = (w * gx).sum(), (w * gy).sum()
        cov = (w * (gx - mx) * (gy - my)).sum()
        rho_gh = cov / math.sqrt((w * (gx - mx) ** 2).sum() * (w * (gy - my) ** 2).sum())
        assert truth.rho == pytest.approx(rho_gh, abs=1e-6)  # GH converges slowly on Φ steps


def test_interval_kx_limit_under_mnar_monte_carlo():
    """details['kx_annotation_weighted'] against the κx estimator of Wong et al. (2021,
    eqs 6–11) written out here: items in both replications, d_o = Σ_i (R_i + S_i) d_i /
    Σ_i (R_i + S_i) with d_i the item's mean cross-pair distance, d_e the mean distance over all
    pairs of pooled X and Y annotations."""
    ann_x, ann_y, truth = simulate.replications(
        150_000, rho=0.8, reliability=(0.6, 0.4), shift=0.3,
        annotations_per_item=((1, 5), (1, 5)),  # a tuple of two specs: one per side
        missingness=("mnar", "mnar"), mnar_strength=1.5, heterogeneity=0.8, seed=17)
    x, y = values_table(ann_x), values_table(ann_y)
    R, S = (~np.isnan(x)).sum(axis=1), (~np.isnan(y)).sum(axis=1)
    both = (R > 0) & (S > 0)
    x, y, R, S = np.nan_to_num(x[both]), np.nan_to_num(y[both]), R[both], S[both]
    sx, sy, qx, qy = x.sum(1), y.sum(1), (x * x).sum(1), (y * y).sum(1)
    d_i = (S * qx + R * qy - 2 * sx * sy) / (R * S)  # Σ_rs (x_r − y_s)² / (R S)
    cols = np.column_stack([(R + S) * d_i, R + S, R, S, sx, sy, qx, qy])

    def kx(t):
        d_o = t[0] / t[1]
        d_e = t[6] / t[2] + t[7] / t[3] - 2 * (t[4] / t[2]) * (t[5] / t[3])
        return 1 - d_o / d_e

    est, se = jackknife(cols, kx)
    limit = truth.details["kx_annotation_weighted"]
    assert_within(est, se, limit, "κx estimator under MNAR")
    assert abs(limit - truth.kx) > Z * se  # MNAR moves the estimator away from κx


def test_replication_sides_carry_their_own_mnar_limits():
    ann_x, ann_y, truth = simulate.replications(100_000, level="ordinal", rho=0.7,
                                                annotations_per_item=((1, 5), 3),
                                                missingness=("mnar", "mcar"),
                                                mnar_strength=2.0, seed=18)
    tx, ty = truth.details["x"], truth.details["y"]
    assert tx.alpha == truth.irr_x and ty.alpha == truth.irr_y  # ordinal α
    assert tx.alpha_nominal == truth.irr_x_nominal and ty.alpha_nominal == truth.irr_y_nominal
    value, se = estimator_jackknife(ann_x, "alpha_ordinal")
    assert_within(value, se, tx.alpha_annotation_weighted, "side X ordinal α (MNAR)")
    assert abs(tx.alpha_annotation_weighted - tx.alpha) > Z * se
    value, se = estimator_jackknife(ann_x, "alpha_nominal")
    assert_within(value, se, tx.alpha_nominal_annotation_weighted, "side X α (MNAR)")
    assert abs(tx.alpha_nominal_annotation_weighted - tx.alpha_nominal) > Z * se
    value, se = estimator_jackknife(ann_y, "alpha_ordinal")
    assert_within(value, se, ty.alpha, "side Y ordinal α (MCAR)")
    value, se = estimator_jackknife(ann_y, "alpha_nominal")
    assert_within(value, se, ty.alpha_nominal, "side Y α (MCAR)")


# ============================================================================== estimators
ESTIMATOR_CASES = [
    ("nominal", "mcar", dict(prevalence=[0.5, 0.3, 0.2], annotations_per_item=(1, 5))),
    ("nominal", "mnar", dict(prevalence=[0.5, 0.3, 0.2], annotations_per_item=(1, 5))),
    ("binary", "mcar", dict(prevalence=0.2, rater_bias=0.5, n_raters=22,
                            annotations_per_item={"poisson": 3})),
    ("binary", "mnar", dict(prevalence=0.2, rater_bias=0.5, n_raters=25,
                            annotations_per_item={"poisson": 3})),
    ("ordinal", "mcar", dict(rater_bias=0.4, n_raters=8, annotations_per_item=(1, 6))),
    ("ordinal", "mnar", dict(rater_bias=0.4, n_raters=8, annotations_per_item=(1, 6))),
    ("interval", "mcar", dict(annotations_per_item=(1, 5))),
    ("interval", "mnar", dict(annotations_per_item=(1, 5))),
]


@pytest.mark.slow
@pytest.mark.parametrize("level, missingness, kwargs", ESTIMATOR_CASES)
def test_estimators_at_100k_items_land_on_their_truths(level, missingness, kwargs):
    ann, truth = simulate.annotations(100_000, level=level, missingness=missingness,
                                      mnar_strength=2.0, reliability=0.55, seed=21, **kwargs)
    lim = truth.details["estimator_limits"]
    names = ["alpha_interval"] if level == "interval" else [
        "alpha_nominal", "fleiss_kappa", "conger_kappa", "percent_agreement"] + (
        ["alpha_ordinal", "alpha_interval"] if level == "ordinal" else [])
    for name in names:
        value, se = estimator_jackknife(ann, name)
        assert_within(value, se, lim[name], f"{name} ({level}, {missingness})")
    # which truth each limit is: the item-population α under MCAR, its m-weighted limit else;
    # truth.alpha at the level, truth.alpha_nominal with the nominal distance
    at_level = {"ordinal": "alpha_ordinal", "interval": "alpha_interval"}.get(
        level, "alpha_nominal")
    pairs = [(lim[at_level], truth.alpha, truth.alpha_annotation_weighted)]
    if level != "interval":
        pairs.append((lim["alpha_nominal"], truth.alpha_nominal,
                      truth.alpha_nominal_annotation_weighted))
    for limit, population, weighted in pairs:
        if missingness == "mcar":
            assert limit == pytest.approx(population, abs=1e-13)
        else:
            assert limit == pytest.approx(weighted, abs=1e-15)
            assert abs(limit - population) > 0.01  # MNAR moves α away from the truth
    if level != "interval":
        assert lim["percent_agreement"] == pytest.approx(truth.p_o_pairable, abs=1e-15)
        if "rater_bias" in kwargs and missingness == "mcar":
            assert lim["conger_kappa"] == pytest.approx(truth.cohen_kappa, abs=1e-13)
            assert abs(truth.cohen_kappa - truth.fleiss_kappa) > 1e-4


@pytest.mark.parametrize("level", ["nominal", "binary", "ordinal"])
def test_fleiss_on_fully_pairable_mnar_data_converges_to_alpha(level):
    """Every item has ≥ 2 annotations: Fleiss' κ (equal item weights) converges to the
    item-population α even under MNAR, while Krippendorff's α (weights m_i) does not."""
    ann, truth = simulate.annotations(100_000, level=level, annotations_per_item=(2, 6),
                                      missingness="mnar", mnar_strength=2.0, seed=22)
    lim = truth.details["estimator_limits"]
    assert lim["fleiss_kappa"] == pytest.approx(truth.fleiss_kappa, abs=1e-12)
    value, se = estimator_jackknife(ann, "fleiss_kappa")
    assert_within(value, se, truth.fleiss_kappa, "Fleiss vs α")
    value, se = estimator_jackknife(ann, "alpha_nominal")
    assert_within(value, se, truth.alpha_nominal_annotation_weighted,
                  "α vs its m-weighted limit")
    assert abs(value - truth.alpha_nominal) > Z * se


def test_two_raters_cohen_kappa_against_its_truth():
    ann, truth = simulate.annotations(100_000, level="binary", prevalence=0.3, reliability=0.5,
                                      rater_bias=0.8, n_raters=2, annotations_per_item=2,
                                      seed=23)
    assert abs(truth.cohen_kappa - truth.alpha) > 1e-3
    value = float(kl.cohen_kappa(ann))
    _, se = estimator_jackknife(ann, "conger_kappa")  # Cohen's κ = Conger's κ, two raters
    assert_within(value, se, truth.cohen_kappa, "Cohen's κ")
    value = float(kl.scott_pi(ann))
    _, se = estimator_jackknife(ann, "fleiss_kappa")
    assert_within(value, se, truth.fleiss_kappa, "Scott's π")


# ============================================================================== levels
def test_ordinal_truths_are_at_the_ordinal_level():
    """``truth.alpha`` of ordinal data is Krippendorff's ordinal α: the ordinal estimator lands
    on it at 200 000 items, the nominal one on ``truth.alpha_nominal`` (= reliability)."""
    ann, truth = simulate.annotations(200_000, level="ordinal", prevalence=[.1, .2, .4, .2, .1],
                                      reliability=0.5, annotations_per_item=(2, 4), seed=40)
    assert truth.level == "ordinal" and truth.alpha_nominal == pytest.approx(0.5, abs=1e-12)
    ordinal, se_ordinal = estimator_jackknife(ann, "alpha_ordinal")
    assert_within(ordinal, se_ordinal, truth.alpha, "ordinal α vs truth.alpha")
    nominal, se_nominal = estimator_jackknife(ann, "alpha_nominal")
    assert_within(nominal, se_nominal, truth.alpha_nominal, "nominal α vs truth.alpha_nominal")
    assert truth.alpha - truth.alpha_nominal > 0.2  # far apart: they cannot be mixed up
    assert truth.alpha_annotation_weighted == pytest.approx(truth.alpha, abs=1e-14)  # MCAR
    assert truth.alpha_nominal_annotation_weighted == pytest.approx(truth.alpha_nominal,
                                                                    abs=1e-14)
    # the κ's are exact-match coefficients: nominal at every level
    fleiss, se = estimator_jackknife(ann, "fleiss_kappa")
    assert_within(fleiss, se, truth.fleiss_kappa, "Fleiss κ")
    assert truth.fleiss_kappa == truth.alpha_nominal


@pytest.mark.parametrize("level, kwargs", [
    ("nominal", {}), ("binary", dict(prevalence=0.2)), ("interval", {})])
def test_alpha_is_the_levels_alpha_for_the_other_levels(level, kwargs):
    _, truth = simulate.annotations(10, level=level, reliability=0.55, seed=1, **kwargs)
    assert truth.alpha == pytest.approx(0.55, abs=1e-12)
    if level == "interval":
        assert math.isnan(truth.alpha_nominal) and math.isnan(truth.fleiss_kappa)
    else:  # binary: every distance is the nominal one
        assert truth.alpha_nominal == truth.alpha
        assert truth.details["alpha_ordinal"] == pytest.approx(truth.alpha, abs=1e-12)


@pytest.mark.slow
def test_ordinal_replication_truths_are_at_the_ordinal_level():
    """xrr_report(level="ordinal") against the ordinal truths (IRRs, κx, normalized κx) and the
    nominal report against the ``_nominal`` twins; the pooled marginals of κx's ordinal metric
    against the data (unequal annotations per side, so the pooling weights matter)."""
    n = 200_000
    ann_x, ann_y, truth = simulate.replications(
        n, level="ordinal", rho=0.7, reliability=(0.6, 0.4), shift=0.5,
        annotations_per_item=((1, 5), 2), seed=41)
    for level, suffix in (("ordinal", ""), ("nominal", "_nominal")):
        report = kl.xrr_report(ann_x, ann_y, level=level, n_splits=2, seed=0).set_index("quantity")
        ses = {"IRR_X": kl.krippendorff_alpha(ann_x, level=level, ci="jackknife").se,
               "IRR_Y": kl.krippendorff_alpha(ann_y, level=level, ci="jackknife").se,
               "kappa_x": kl.cross_kappa(ann_x, ann_y, level=level, ci="jackknife").se,
               "normalized_kappa_x": kl.normalized_cross_kappa(ann_x, ann_y, level=level,
                                                               ci="jackknife").se}
        truths = {"IRR_X": f"irr_x{suffix}", "IRR_Y": f"irr_y{suffix}", "kappa_x": f"kx{suffix}",
                  "normalized_kappa_x": f"normalized_kx{suffix}"}
        for quantity, field in truths.items():
            assert_within(report.loc[quantity, "value"], ses[quantity], getattr(truth, field),
                          f"{quantity} ({level}) vs truth.{field}")
    assert truth.irr_x_nominal == pytest.approx(0.6, abs=1e-12)
    assert truth.irr_x - truth.irr_x_nominal > 0.2 and truth.kx - truth.kx_nominal > 0.2
    assert truth.irr_x == truth.details["x"].alpha  # the side truths are at the level too
    # the pooled marginals: X's and Y's annotations on the shared items (all items here)
    K = truth.n_categories
    x, y = values_table(ann_x), values_table(ann_y)
    counts = np.column_stack([(x == c).sum(axis=1) for c in range(K)]
                             + [(y == c).sum(axis=1) for c in range(K)]
                             + [(~np.isnan(x)).sum(axis=1) + (~np.isnan(y)).sum(axis=1)])
    pooled = truth.details["ordinal_marginals"]
    for c in range(K):
        est, se = jackknife(counts, lambda t: (t[c] + t[K + c]) / t[-1])
        assert_within(est, se, pooled[c], f"pooled marginal {c}")
    # E[m_X] = 3, E[m_Y] = 2 annotations per item: p̄ = (3 p_X + 2 p_Y)/5
    px, py = truth.details["x"].details["marginals"], truth.details["y"].details["marginals"]
    assert pooled == pytest.approx((3 * px + 2 * py) / 5, abs=1e-15)


# ============================================================================== pickling
def _truths():
    yield simulate.annotations(60, missingness="mnar", annotations_per_item=(0, 4), seed=1)[1]
    yield simulate.annotations(60, level="ordinal", rater_bias=0.3, n_raters=4, seed=2)[1]
    yield simulate.annotations(60, level="interval", annotations_per_item={"poisson": 2},
                               seed=3)[1]
    yield simulate.replications(60, level="ordinal", only_x=3, seed=4)[2]
    yield simulate.replications(60, level="interval", missingness=("mnar", "mcar"),
                                annotations_per_item=((1, 4), 2), seed=5)[2]


def assert_same_truth(a, b):
    """Field-wise equality, written out (NaN equal to NaN, arrays element-wise)."""
    assert a.level == b.level and a.n_categories == b.n_categories
    assert a.prevalence == b.prevalence
    assert np.array_equal(list(a.values().values()), list(b.values().values()), equal_nan=True)
    assert list(a.values()) == list(b.values())
    for name in ("item_labels", "item_latent", "item_difficulty"):
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True)
    assert a.details.keys() == b.details.keys()
    for key in ("x", "y"):
        if key in a.details:
            assert_same_truth(a.details[key], b.details[key])


@pytest.mark.parametrize("index", range(5))
def test_truth_pickles_and_deep_copies_to_an_equal_read_only_truth(index):
    truth = list(_truths())[index]
    for copied in (pickle.loads(pickle.dumps(truth)), copy.deepcopy(truth), copy.copy(truth)):
        assert copied == truth and not copied != truth and hash(copied) == hash(truth)
        assert_same_truth(copied, truth)
        assert isinstance(copied.details, MappingProxyType)  # still read-only
        with pytest.raises(TypeError):
            copied.details["parameters"] = {}
        assert not copied.item_latent.flags.writeable
        if "pair_joint" in copied.details:
            assert not copied.details["pair_joint"].flags.writeable
    others = list(_truths())
    assert others[index] == truth  # same seed, same truth
    assert all(other != truth for i, other in enumerate(others) if i != index)


def test_truth_comes_back_equal_from_a_worker_process():
    jobs = [functools.partial(simulate.annotations, 200, level="ordinal", rater_bias=0.3,
                              n_raters=4, missingness="mnar", seed=7),
            functools.partial(simulate.replications, 200, level="ordinal", seed=8)]
    with ProcessPoolExecutor(max_workers=1) as pool:
        remote = [pool.submit(job).result() for job in jobs]
    for job, result in zip(jobs, remote):
        local = job()
        assert result[-1] == local[-1]
        assert_same_truth(result[-1], local[-1])
        assert np.array_equal(values_table(result[0]), values_table(local[0]), equal_nan=True)


# ============================================================================== pool and layout
def test_rater_assignment_is_uniform_and_large_pools_work():
    # small pool (a permutation per item) and a large sparse pool (sequential draws, long store)
    for R, n, spec in ((5, 60_000, {0: 0.1, 1: 0.2, 2: 0.3, 3: 0.4}),
                       (400, 40_000, {"poisson": 3})):
        ann, truth = simulate.annotations(n, annotations_per_item=spec, n_raters=R, seed=31)
        assert ann.n_items == n and ann.n_raters == R  # items with no annotation are kept
        assert (ann.annotations_per_item_array == 0).any()
        per_rater = ann.rater_count_matrix.sum(axis=1)
        expected = ann.n_annotations / R
        # multinomial counts over R raters: SD √(N p (1 − p)) each
        sd = math.sqrt(ann.n_annotations * (1 / R) * (1 - 1 / R))
        assert np.abs(per_rater - expected).max() < 4.5 * sd
        assert list(ann.items[:3]) == [0, 1, 2] and list(ann.categories) == [0, 1, 2]


def test_one_million_annotations_generate_in_seconds():
    start = time.perf_counter()
    ann, truth = simulate.annotations(333_334, annotations_per_item=3, seed=0)
    elapsed = time.perf_counter() - start
    assert ann.n_annotations == 1_000_002
    print(f"1M nominal annotations in {elapsed:.2f} s")
    start = time.perf_counter()
    ann, _ = simulate.annotations(250_000, level="ordinal", missingness="mnar",
                                  annotations_per_item=(2, 6), seed=0)
    print(f"{ann.n_annotations} ordinal MNAR annotations in {time.perf_counter() - start:.2f} s")


def test_replication_items_and_labels():
    ann_x, ann_y, truth = simulate.replications(1000, level="binary", only_x=30, only_y=20,
                                                annotations_per_item=((1, 3), 2), seed=5)
    assert list(ann_x.items) == list(range(1030))
    assert list(ann_y.items) == list(range(1000)) + list(range(1030, 1050))
    assert truth.item_latent.shape == (1050, 2)
    assert ann_x.annotations_per_item_array.max() == 3
    assert (ann_y.annotations_per_item_array == 2).all()
    assert truth.details["x"].item_latent.shape == (1030,)
    # ρ = 1: identical item latents on both sides
    _, _, t1 = simulate.replications(50, rho=1.0, seed=1)
    assert t1.item_latent[:, 0] / math.sqrt(0.6) == pytest.approx(t1.item_latent[:, 1]
                                                                  / math.sqrt(0.6))


# ============================================================================== reproducibility
@pytest.mark.slow
def test_same_seed_same_data_different_seed_different_data():
    kw = dict(level="ordinal", rater_bias=0.3, n_raters=6, missingness="mnar",
              annotations_per_item=(0, 4))
    a1, t1 = simulate.annotations(2000, seed=7, **kw)
    a2, t2 = simulate.annotations(2000, seed=7, **kw)
    a3, t3 = simulate.annotations(2000, seed=8, **kw)
    w1, w2, w3 = values_table(a1), values_table(a2), values_table(a3)
    assert np.array_equal(w1, w2, equal_nan=True) and t1.values() == t2.values()
    assert np.array_equal(t1.item_latent, t2.item_latent)
    assert not np.array_equal(w1, w3, equal_nan=True)
    assert t1.alpha != t3.alpha  # a different pool of rater shifts
    g1, g2 = np.random.default_rng(3), np.random.default_rng(3)
    b1 = simulate.replications(500, seed=g1)
    b2 = simulate.replications(500, seed=g2)
    assert np.array_equal(values_table(b1[0]), values_table(b2[0]), equal_nan=True)
    assert np.array_equal(values_table(b1[1]), values_table(b2[1]), equal_nan=True)
    assert not np.array_equal(values_table(b1[0]), values_table(
        simulate.replications(500, seed=4)[0]), equal_nan=True)


# ============================================================================== validation
@pytest.mark.parametrize("kwargs, fragment", [
    (dict(n_items=0), "n_items must be an integer ≥ 1, got 0"),
    (dict(n_items=2.5), "n_items must be an integer ≥ 1, got 2.5"),
    (dict(reliability=1.0), r"reliability must be in \[0, 1\)"),
    (dict(reliability=-0.1), r"reliability must be in \[0, 1\)"),
    (dict(prevalence=[0.5, 0.4]), "must sum to 1"),
    (dict(prevalence=[1.2, -0.2]), "must be positive"),
    (dict(prevalence=[0.5, 0.5], n_categories=3), "has 2 entries but n_categories is 3"),
    (dict(level="binary", prevalence=[0.2, 0.3, 0.5]), "2 categories"),
    (dict(level="binary", n_categories=3), "2 categories"),
    (dict(prevalence=1.5), r"minority share\) must be in \(0, 1\)"),
    (dict(level="counts"), "unknown level 'counts'"),
    (dict(rater_bias=0.5), "rater_bias applies to the latent-threshold levels"),
    (dict(level="interval", rater_bias=0.5), "rater_bias applies"),
    (dict(level="binary", rater_bias=-1.0), "rater_bias must be ≥ 0"),
    (dict(n_raters=2, annotations_per_item=3), "smaller than the largest number"),
    (dict(annotations_per_item="many"), "annotations_per_item must be"),
    (dict(mnar_strength=-1.0), "mnar_strength must be ≥ 0"),
    (dict(missingness="mar"), "missingness must be 'mcar' or 'mnar'"),
    (dict(heterogeneity=1.0), r"heterogeneity must be in \[0, 1\)"),
    (dict(level="ordinal", heterogeneity=0.5), "heterogeneity applies"),
    (dict(level="interval", n_categories=3), "do not apply to level 'interval'"),
    (dict(seed="abc"), "seed must be"),
])
def test_invalid_annotation_parameters_raise_clear_errors(kwargs, fragment):
    kwargs = {"n_items": 10, **kwargs}
    with pytest.raises(InvalidParameterError, match=fragment):
        simulate.annotations(kwargs.pop("n_items"), **kwargs)


@pytest.mark.parametrize("kwargs, fragment", [
    (dict(rho=1.5), r"rho must be in \[-1, 1\]"),
    (dict(rho=-1.01), r"rho must be in \[-1, 1\]"),
    (dict(n_items=0), "n_items must be an integer ≥ 1, got 0"),
    (dict(level="nominal"), "unknown level 'nominal' for replications"),
    (dict(reliability=(0.5, 1.0)), r"reliability \(Y\) must be in \[0, 1\)"),
    (dict(reliability=(0.5, 0.5, 0.5)), "must be one value or a pair"),
    (dict(only_x=-1), "only_x must be an integer ≥ 0, got -1"),
    (dict(n_raters=(2, None)), r"n_raters \(X\)=2 is smaller"),
    (dict(missingness=("mcar", "x")), r"missingness \(Y\) must be"),
    (dict(level="binary", heterogeneity=0.3), "heterogeneity applies"),
])
def test_invalid_replication_parameters_raise_clear_errors(kwargs, fragment):
    kwargs = {"n_items": 10, **kwargs}
    with pytest.raises(InvalidParameterError, match=fragment):
        simulate.replications(kwargs.pop("n_items"), **kwargs)


def test_invalid_parameters_are_value_errors():
    with pytest.raises(ValueError):
        simulate.annotations(0)


# ============================================================================== xarray
def test_to_dataset():
    ann, truth = simulate.annotations(300, level="ordinal", seed=2)
    ds = simulate.to_dataset(ann, truth)
    assert ds["value"].dims == ("item", "rater") and ds["value"].shape == (300, 3)
    assert np.array_equal(ds["value"].values, values_table(ann), equal_nan=True)
    assert np.array_equal(ds["latent"].values, truth.item_latent)
    assert ds.attrs["truth_alpha"] == truth.alpha and ds.attrs["level"] == "ordinal"
    assert ds.attrs["truth_alpha_nominal"] == truth.alpha_nominal != truth.alpha
    assert '"reliability": 0.6' in ds.attrs["parameters"]
    ann_x, ann_y, rep = simulate.replications(100, only_y=5, seed=3)
    ds_y = simulate.to_dataset(ann_y, rep.details["y"])
    assert ds_y["latent"].values == pytest.approx(rep.item_latent[list(ann_y.items), 1])
    with pytest.raises(InvalidParameterError, match="holds both replications"):
        simulate.to_dataset(ann_x, rep)
    assert set(simulate.to_dataset(ann).data_vars) == {"value"}


def test_a_generator_seed_is_recorded_by_its_state_which_draws_the_same_data_again():
    """The record of a call seeded with a Generator is its bit generator's state at the call
    (not the object's repr, which names a memory address): equal for equal generators in any
    process, and enough to draw the same annotations again."""
    rng = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(2, 3)))
    ann, truth = simulate.annotations(40, reliability=0.5, seed=rng)
    again = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(2, 3)))
    ann2, truth2 = simulate.annotations(40, reliability=0.5, seed=again)
    assert truth == truth2
    record = truth.details["parameters"]["seed"]
    assert record["bit_generator"] == "PCG64"
    def thawed(value):  # the truth's details are read-only mappings
        return {k: thawed(v) for k, v in value.items()} if hasattr(value, "items") else value

    replay = np.random.default_rng()
    replay.bit_generator.state = thawed(record)
    ann3, _ = simulate.annotations(40, reliability=0.5, seed=replay)
    pd.testing.assert_frame_equal(ann3.to_long(), ann.to_long())
    _, truth4 = simulate.annotations(40, reliability=0.5,
                                     seed=np.random.SeedSequence(11, spawn_key=(2,)))
    assert truth4.details["parameters"]["seed"] == {"entropy": 11, "spawn_key": [2]}
