"""Analytic (linearisation) standard errors against irrCAC, statsmodels and hand formulas.

Gwet's (2014) variance of the chance-corrected coefficients, as irrCAC computes it, is
1/(n(n−1)) Σ_i (κ*_i − κ)² with per-item terms κ*_i; ``ci="analytic"`` linearises the estimator
through the item-sum spine instead. The two coincide whenever every annotated item has two or
more annotations, missing data or not; with single-annotation items Gwet's terms carry an
extra κ((n/n₂)·1[m_i ≥ 2] − 1) (he treats the number n₂ of pairable items as fixed), which the
tests add back to reproduce irrCAC exactly. For Krippendorff's α Gwet linearises α without
its small-sample factor (N − 1)/N, so on complete data the SE is exactly (1 − 1/N)·irrCAC's.
"""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st
from irrCAC.raw import CAC
from scipy.stats import t as student_t
from statsmodels.stats.inter_rater import cohens_kappa

import kappalab as kl
from kappalab.coefficients.multirater import ChanceCorrectedAgreement, weights_for
from kappalab.errors import InvalidParameterError
from kappalab.uncertainty import influence_values

CATEGORIES = [0, 1, 2, 3]
IRRCAC = {  # kappalab function, irrCAC method, chance model
    "fleiss": (kl.fleiss_kappa, "item_marginal"),
    "conger": (kl.conger_kappa, "rater_marginal"),
    "gwet": (kl.gwet_ac, "gwet"),
    "bp": (kl.brennan_prediger, "uniform"),
}
WEIGHTS = [(None, "identity"), ("linear", "linear"), ("quadratic", "quadratic")]


def ratings(seed, n_items=70, n_raters=5, missing=0.3, single=0):
    """Correlated raters, MCAR cells; every item keeps ≥ 2 annotations except ``single``
    items, which keep exactly one."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, size=n_items)
    x = np.where(rng.random((n_items, n_raters)) < 0.6, truth[:, None],
                 rng.integers(0, 4, size=(n_items, n_raters))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.where(np.isnan(x[:, :2]), truth[:, None], x[:, :2])
    x[:single, 1:] = np.nan
    return x


def irrcac(x, method, weights):
    return getattr(CAC(pd.DataFrame(x), weights=weights, categories=CATEGORIES, digits=15),
                   method)()["est"]


@pytest.mark.parametrize("missing", [0.0, 0.3])
@pytest.mark.parametrize("weights, irr_weights", WEIGHTS)
@pytest.mark.parametrize("method", list(IRRCAC))
def test_equals_irrcac_when_every_item_is_pairable(method, weights, irr_weights, missing):
    estimator, _ = IRRCAC[method]
    for seed in range(3):
        x = ratings(seed, missing=missing)
        est = estimator(x, weights=weights, categories=CATEGORIES, ci="analytic")
        reference = irrcac(x, method, irr_weights)
        assert est.value == pytest.approx(reference["coefficient_value"], abs=1e-13)
        assert est.se == pytest.approx(reference["se"], rel=1e-10)
        # irrCAC's interval is κ ± t_{n−1}·SE too (it clips the upper bound at 1)
        low, high = reference["confidence_interval"]
        assert est.ci[0] == pytest.approx(low, rel=1e-10)
        assert min(est.ci[1], 1.0) == pytest.approx(high, rel=1e-10)


@pytest.mark.parametrize("weights, irr_weights", WEIGHTS[:2])
@pytest.mark.parametrize("method", ["fleiss", "conger", "gwet"])
def test_single_annotation_items_differ_from_irrcac_by_gwets_fixed_n2_term(
        method, weights, irr_weights):
    estimator, chance = IRRCAC[method]
    x = ratings(7, single=12)
    m = (~np.isnan(x)).sum(axis=1)
    ann = kl.Annotations.from_wide(x, categories=CATEGORIES)
    core = ChanceCorrectedAgreement(ann, weights_for(ann, weights), chance=chance,
                                    item_weighting="item", name=method)
    influence = influence_values(core)
    kappa = float(core.estimate())
    n, n2 = influence.size, int((m >= 2).sum())
    gwet_terms = influence + kappa * ((n / n2) * (m >= 2) - 1)
    reference = irrcac(x, method, irr_weights)
    assert np.sqrt((gwet_terms ** 2).sum() / (n * (n - 1))) == pytest.approx(
        reference["se"], rel=1e-10)
    # and the two standard errors are genuinely different here
    ours = estimator(x, weights=weights, categories=CATEGORIES, ci="analytic").se
    assert abs(ours / reference["se"] - 1) > 0.01


@pytest.mark.parametrize("level, irr_weights", [("nominal", "identity"),
                                                ("interval", "quadratic"),
                                                ("ratio", "ratio")])
def test_alpha_is_irrcac_times_small_sample_factor_on_complete_data(level, irr_weights):
    x = ratings(3, missing=0.0) + 1  # values 1..4 (ratio needs positive values)
    N = x.size
    reference = (CAC(pd.DataFrame(x), weights=irr_weights, categories=[1, 2, 3, 4],
                            digits=15)).krippendorff()["est"]
    est = kl.krippendorff_alpha(x, level=level, ci="analytic")
    assert est.value == pytest.approx(reference["coefficient_value"], abs=1e-12)
    assert est.se == pytest.approx((1 - 1 / N) * reference["se"], rel=1e-10)


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_cohen_equals_fleiss_cohen_everitt_variance_of_statsmodels(weights):
    """statsmodels' std_kappa is FCE (1969) with divisor n; ours has n − 1."""
    rng = np.random.default_rng(11)
    a = rng.integers(0, 4, size=150)
    b = np.where(rng.random(150) < 0.65, a, rng.integers(0, 4, size=150))
    table = np.zeros((4, 4))
    np.add.at(table, (a, b), 1)
    reference = cohens_kappa(table, wt=weights) if weights else cohens_kappa(table)
    est = kl.cohen_kappa(a, b, weights=weights, ci="analytic")
    n = a.size
    assert est.value == pytest.approx(reference["kappa"], abs=1e-13)
    assert est.se * np.sqrt((n - 1) / n) == pytest.approx(reference["std_kappa"], rel=1e-10)


def test_percent_agreement_se_is_the_standard_error_of_a_mean():
    x = ratings(5)
    m = (~np.isnan(x)).sum(axis=1)
    counts = np.stack([(x == c).sum(axis=1) for c in CATEGORIES], axis=1)
    p_i = (counts * (counts - 1)).sum(axis=1) / (m * (m - 1))  # every item has m ≥ 2
    est = kl.percent_agreement(x, ci="analytic")
    assert est.value == pytest.approx(p_i.mean(), abs=1e-14)
    assert est.se == pytest.approx(p_i.std(ddof=1) / np.sqrt(p_i.size), rel=1e-10)
    half = student_t.ppf(0.975, p_i.size - 1) * est.se
    assert est.ci == pytest.approx((est.value - half, est.value + half), rel=1e-12)


def test_spa_standard_error_is_the_weighted_spread_formula():
    x = ratings(6, single=5)
    m = (~np.isnan(x)).sum(axis=1)
    counts = np.stack([(x == c).sum(axis=1) for c in CATEGORIES], axis=1)
    used = m >= 2
    p_i = ((counts * (counts - 1)).sum(axis=1) / np.maximum(m * (m - 1), 1))[used]
    k = (m * (m - 1) / 2)[used]  # "edges" weights
    spa = (k * p_i).sum() / k.sum()
    n = used.sum()
    expected = np.sqrt(n / (n - 1) * (k ** 2 * (p_i - spa) ** 2).sum()) / k.sum()
    assert kl.spa(x, scheme="edges").se == pytest.approx(expected, rel=1e-10)
    assert kl.spa(x, scheme="edges", ci="analytic").se == pytest.approx(expected, rel=1e-10)


# ------------------------------------------------------------------ identities
def test_identities_carry_over_to_the_standard_errors():
    """Equal coefficients computed by different cores have equal linearisations."""
    rng = np.random.default_rng(2)
    a = rng.integers(0, 3, size=90)
    b = np.where(rng.random(90) < 0.7, a, rng.integers(0, 3, size=90))
    pair = np.column_stack([a, b])
    cohen = kl.cohen_kappa(pair, ci="analytic").se
    # κx with one annotation per item per side is Cohen's κ
    assert kl.cross_kappa(a[:, None], b[:, None], ci="analytic").se == pytest.approx(
        cohen, rel=1e-10)
    x = ratings(9)
    assert kl.janson_olsson_iota(x, ci="analytic").se == pytest.approx(
        kl.conger_kappa(x, ci="analytic").se, rel=1e-10)


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), level=st.sampled_from(["nominal", "interval"]))
def test_invariant_to_item_order_and_category_relabelling(seed, level):
    x = ratings(seed, n_items=30)
    rng = np.random.default_rng(seed)
    se = kl.krippendorff_alpha(x, level=level, ci="analytic").se
    shuffled = x[rng.permutation(x.shape[0])][:, rng.permutation(x.shape[1])]
    shuffled_se = kl.krippendorff_alpha(shuffled, level=level, ci="analytic").se
    assert shuffled_se == pytest.approx(se, rel=1e-10)
    if level == "nominal":  # any relabelling of nominal categories
        relabelled = np.where(np.isnan(x), np.nan, rng.permutation(4)[np.nan_to_num(x).astype(int)])
        assert kl.krippendorff_alpha(relabelled, ci="analytic").se == pytest.approx(se, rel=1e-10)
    else:  # interval: any affine map of the values
        assert kl.krippendorff_alpha(3 * x - 7, level=level, ci="analytic").se == pytest.approx(
            se, rel=1e-6)


def test_analytic_and_resampling_standard_errors_agree_at_scale():
    ann, _ = kl.simulate.annotations(3000, reliability=0.6, annotations_per_item=(2, 5),
                                     seed=4)
    analytic = kl.krippendorff_alpha(ann, ci="analytic").se
    jackknife = kl.krippendorff_alpha(ann, ci="jackknife").se
    boot = kl.krippendorff_alpha(ann, ci="bootstrap", n_resamples=1000, seed=1).se
    assert jackknife == pytest.approx(analytic, rel=0.01)
    assert boot == pytest.approx(analytic, rel=0.1)  # Monte Carlo error of 1000 replicates


def test_too_few_items():
    with pytest.raises(InvalidParameterError, match="at least two items"):
        kl.fleiss_kappa([[1, 1, 2]], ci="analytic")


def test_worked_example_report_standard_errors_are_irrcacs():
    """The bundled 10 × 3 worked example is complete: every SE is irrCAC's (α: × (1 − 1/N))."""
    ann = kl.datasets.load("worked_example")
    report = kl.agreement_report(ann, ci="analytic").set_index("coefficient")
    wide = ann.wide
    cac = CAC(wide, digits=15)
    assert report.loc["Fleiss' kappa", "se"] == pytest.approx(cac.fleiss()["est"]["se"], rel=1e-10)
    assert report.loc["Conger's kappa", "se"] == pytest.approx(cac.conger()["est"]["se"],
                                                               rel=1e-10)
    assert report.loc["Gwet's AC1", "se"] == pytest.approx(cac.gwet()["est"]["se"], rel=1e-10)
    assert report.loc["Krippendorff's alpha", "se"] == pytest.approx(
        (1 - 1 / 30) * cac.krippendorff()["est"]["se"], rel=1e-10)
    assert report["ci_low"].lt(report["value"]).all()
    plain = kl.agreement_report(ann)
    assert plain["se"].isna().all() and list(plain.columns) == list(report.reset_index().columns)


def test_symmetric_intervals_stop_at_one():
    """Krippendorff (2011)'s data: α = 0.849 on 11 pairable items, SE ≈ 0.13, so θ̂ + t·SE > 1."""
    ann = kl.datasets.load("krippendorff_2011")
    for ci in ("analytic", "jackknife"):
        est = kl.krippendorff_alpha(ann, level="interval", ci=ci)
        half = student_t.ppf(0.975, est.n_items - 1) * est.se
        assert est.value + half > 1 and est.ci == (pytest.approx(est.value - half), 1.0)
    # normalized κx may exceed 1: no cap
    x, y = ratings(1, n_items=20), ratings(1, n_items=20)
    est = kl.normalized_cross_kappa(x, y, ci="analytic")
    half = student_t.ppf(0.975, est.n_items - 1) * est.se
    assert est.ci[1] == pytest.approx(est.value + half)
