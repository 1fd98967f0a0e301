"""Published conventions a user compares against: R irr's per-category Fleiss κ and its test
of κ = 0 under the null variance, SAS PROC FREQ's (and statsmodels') asymptotic standard
error of Cohen's κ, and Gwet's (irrCAC's) standard error on data with singly-rated items.

Every expected number comes from outside kappalab:

* Fleiss, J. L. (1971), Psychological Bulletin 76(5), 378–382, doi:10.1037/h0031619: Table 1
  (bundled), κ = .430 and the category κ_j = .245, .245, .520, .471, .566, written out below
  by exact rational arithmetic from the table's counts, with his null variance of κ_j,
  2/(N n(n − 1));
* Fleiss, J. L., Nee, J. C. M. & Landis, J. R. (1979), Psychological Bulletin 86(5),
  974–977, doi:10.1037/0033-2909.86.5.974: the null variance of κ, written out by hand; and
  R irr's ``kappam.fleiss(diagnoses)`` z = 17.65183, as recorded in statsmodels' test suite
  (``statsmodels/stats/tests/test_inter_rater.py``, ``test_fleiss_kappa_irr``);
* a SAS PROC FREQ printout of the 3 × 3 table [[0, 4, 1], [0, 8, 0], [0, 1, 5]] (simple κ
  0.4842, ASE 0.1380, 95% limits 0.2137 and 0.7547; weighted κ with scores 0, 1, 2: 0.4701,
  ASE 0.1457, limits 0.1845 and 0.7558), as recorded in statsmodels' test suite
  (``TestUnweightedCohens``, ``TestWeightedCohens``), and statsmodels' ``cohens_kappa``;
* irrCAC (Gwet 2014): its ``raw_4raters`` example data and its standard errors;
* simulation: the spread of Fleiss' κ over many datasets simulated under κ = 0.
"""

from __future__ import annotations

import math
import warnings
from fractions import Fraction
from importlib import resources

import numpy as np
import pandas as pd
import pytest
from irrCAC.datasets import raw_4raters
from irrCAC.raw import CAC
from scipy.stats import norm
from scipy.stats import t as student_t
from statsmodels.stats.inter_rater import cohens_kappa

import kappalab as kl
from kappalab.errors import InvalidParameterError, UndefinedCoefficientWarning

from tests.test_analytic_se import ratings  # the same simulated panels as the SE tests

FLEISS_ORDER = ["Depression", "Personality disorder", "Schizophrenia", "Neurosis", "Other"]


def fleiss_1971_counts() -> pd.DataFrame:
    """Fleiss (1971) Table 1 as 30 patients × 5 diagnoses counts, read without kappalab."""
    path = resources.files("kappalab") / "datasets" / "fleiss_1971.csv"
    with resources.as_file(path) as p:
        long = pd.read_csv(p, comment="#")
    return pd.crosstab(long["item"], long["value"])[FLEISS_ORDER]


# ============================================================================ Fleiss (1971)
def test_fleiss_1971_category_kappas_and_their_null_standard_errors():
    counts = fleiss_1971_counts()
    N, n = 30, 6
    est = kl.fleiss_kappa(kl.datasets.load("fleiss_1971"), by_category=True)
    table = est.details["by_category"]
    assert list(table.columns) == ["kappa", "se_null", "z_null", "p_null"]
    assert table.index.name == "category"
    table = table.loc[FLEISS_ORDER]
    # Fleiss (1971): κ_j = .245, .245, .520, .471, .566
    assert table["kappa"].round(3).tolist() == [0.245, 0.245, 0.520, 0.471, 0.566]
    # exactly: κ_j = 1 − Σ_i n_ij(n − n_ij) / (N n(n − 1) p_j q_j), p_j = (Σ_i n_ij)/(N n)
    for category in FLEISS_ORDER:
        column = [int(x) for x in counts[category]]
        p = Fraction(sum(column), N * n)
        exact = 1 - sum(Fraction(x * (n - x)) for x in column) / (N * n * (n - 1) * p * (1 - p))
        assert table.loc[category, "kappa"] == pytest.approx(float(exact), abs=1e-14)
    # Fleiss (1971): under κ_j = 0, Var(κ̂_j) = 2/(N n(n − 1)) = 2/900, whatever p_j
    assert table["se_null"].to_numpy() == pytest.approx(math.sqrt(2 / 900), rel=1e-12)
    z = table["kappa"] / math.sqrt(2 / 900)
    assert table["z_null"].to_numpy() == pytest.approx(z.to_numpy(), rel=1e-12)
    assert table["p_null"].to_numpy() == pytest.approx(2 * norm.sf(z.abs().to_numpy()),
                                                       rel=1e-9)


def test_fleiss_1971_test_of_kappa_zero_under_the_null_variance():
    counts = fleiss_1971_counts()
    N, n = 30, 6
    est = kl.fleiss_kappa(kl.datasets.load("fleiss_1971"))
    assert round(est.value, 3) == 0.430
    # Fleiss, Nee & Landis (1979): Var₀(κ̂) = 2/(N n(n − 1)) · [(Σ p q)² − Σ p q (q − p)] / (Σ p q)²
    p = [Fraction(int(counts[c].sum()), N * n) for c in FLEISS_ORDER]  # 26 26 30 55 43 of 180
    spq = sum(pj * (1 - pj) for pj in p)
    bracket = spq ** 2 - sum(pj * (1 - pj) * ((1 - pj) - pj) for pj in p)
    variance = Fraction(2, N * n * (n - 1)) * bracket / spq ** 2
    assert est.details["se_null"] == pytest.approx(math.sqrt(variance), rel=1e-12)
    z, p_value = est.z_test(variance="null")
    assert z == pytest.approx(17.65183, abs=5e-6)  # R irr's kappam.fleiss(diagnoses)
    assert p_value == pytest.approx(2 * norm.sf(17.65183), rel=1e-4)  # irr prints 0
    # the default test is still the t test with the estimated standard error
    with_ci = kl.fleiss_kappa(kl.datasets.load("fleiss_1971"), ci="analytic")
    z_est, p_est = with_ci.z_test()
    assert z_est == pytest.approx(with_ci.value / with_ci.se, rel=1e-12)
    assert p_est == pytest.approx(2 * student_t.sf(abs(z_est), with_ci.n_items - 1), rel=1e-9)
    assert with_ci.z_test(variance="null") == (z, p_value)


def test_category_kappas_with_an_interval():
    ann = kl.datasets.load("fleiss_1971")
    est = kl.fleiss_kappa(ann, by_category=True, ci="analytic")
    table = est.details["by_category"]
    assert list(table.columns) == ["kappa", "se_null", "z_null", "p_null", "se", "ci_low",
                                   "ci_high"]
    counts = fleiss_1971_counts()
    N, n = 30, 6
    # each κ_j is Fleiss' κ of "j or not j": its analytic SE is Gwet's (irrCAC's) on that
    # two-category table (every patient has 6 ratings, so the two agree exactly)
    for category in FLEISS_ORDER:
        ratings = np.zeros((N, n))
        for i, x in enumerate(counts[category]):
            ratings[i, :x] = 1
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reference = CAC(pd.DataFrame(ratings), categories=[0, 1], digits=15).fleiss()["est"]
        assert table.loc[category, "kappa"] == pytest.approx(reference["coefficient_value"],
                                                             abs=1e-13)
        assert table.loc[category, "se"] == pytest.approx(reference["se"], rel=1e-10)
        low, high = reference["confidence_interval"]
        assert table.loc[category, "ci_low"] == pytest.approx(low, rel=1e-10)
        assert table.loc[category, "ci_high"] == pytest.approx(high, rel=1e-10)


@pytest.mark.slow
def test_null_variance_is_the_spread_of_kappa_under_independent_ratings():
    """Simulation truth: with every rating drawn independently from one distribution (κ = 0),
    the standard deviation of κ̂ over datasets is the null SE — with 1 to 5 ratings per item
    (so singly-rated items), and with sample weights."""
    rng = np.random.default_rng(20261129)
    p, n_items, n_datasets = np.array([0.5, 0.3, 0.2]), 150, 2000
    for weighted in (False, True):
        values, null_variances = [], []
        for _ in range(n_datasets):
            m = rng.integers(1, 6, size=n_items)
            x = np.full((n_items, 5), np.nan)
            draws = rng.choice(3, p=p, size=(n_items, 5)).astype(float)
            keep = np.arange(5)[None, :] < m[:, None]
            x[keep] = draws[keep]
            w = rng.integers(1, 4, size=n_items) if weighted else None
            est = kl.fleiss_kappa(x, categories=[0, 1, 2], sample_weight=w)
            values.append(est.value)
            null_variances.append(est.details["se_null"] ** 2)
        # Monte Carlo relative error 1/√(2·2000) = 1.6%; leaving out the singly-rated items'
        # linear term (Fleiss, Nee & Landis's formula on the pairable items) is 7% too small
        spread = np.std(values, ddof=1)
        assert math.sqrt(np.mean(null_variances)) == pytest.approx(spread, rel=0.04)
        assert abs(np.mean(values)) < 4 * spread / math.sqrt(n_datasets) + 0.005


def test_category_kappas_name_each_category_and_keep_unused_ones():
    data = [["a", "a", "b"], ["b", "b", "b"], ["a", "a", "a"], ["b", "a", "a"]]
    with pytest.warns(UndefinedCoefficientWarning, match="'c'"):
        est = kl.fleiss_kappa(data, categories=["a", "b", "c"], by_category=True)
    table = est.details["by_category"]
    assert table.index.tolist() == ["a", "b", "c"]
    assert np.isnan(table.loc["c", "kappa"])
    # with two categories, κ_a = κ_b = κ (the two collapsed tables are the table itself)
    two = kl.fleiss_kappa(data, by_category=True)
    assert two.details["by_category"]["kappa"].to_numpy() == pytest.approx(
        [two.value, two.value], abs=1e-14)


@pytest.mark.parametrize("bad, match", [
    ({"by_category": "yes"}, "by_category must be True or False"),
    ({"by_category": True, "weights": "linear"}, "unweighted"),
])
def test_fleiss_by_category_bad_options(bad, match):
    with pytest.raises(InvalidParameterError, match=match):
        kl.fleiss_kappa([[1, 1, 2], [2, 2, 2], [1, 2, 1]], **bad)


def test_null_variance_test_refuses_what_it_cannot_do():
    data = [[1, 1, 2], [2, 2, 2], [1, 2, 1], [1, 1, 1]]
    est = kl.fleiss_kappa(data)
    with pytest.raises(InvalidParameterError, match="null variance is that of κ = 0"):
        est.z_test(0.3, variance="null")
    with pytest.raises(InvalidParameterError, match="variance must be"):
        est.z_test(variance="bogus")
    with pytest.raises(InvalidParameterError, match="no standard error under the null"):
        kl.conger_kappa(data).z_test(variance="null")
    # weighted Fleiss' κ has no null variance in Fleiss, Nee & Landis (1979)
    assert "se_null" not in kl.fleiss_kappa(data, weights="linear").details
    with pytest.raises(InvalidParameterError, match="ci='analytic'"):
        est.z_test()  # no estimated SE either


# ============================================================================ SAS / statsmodels
SAS_TABLE = np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]])


def sas_labels():
    rows, cols = np.nonzero(SAS_TABLE)
    counts = SAS_TABLE[rows, cols]
    return np.repeat(rows, counts), np.repeat(cols, counts)


@pytest.mark.parametrize("weights, sm_weights, published", [
    (None, None, (0.4842, 0.1380, 0.2137, 0.7547)),
    ("linear", [0, 1, 2], (0.4701, 0.1457, 0.1845, 0.7558)),
])
def test_cohen_asymptotic_standard_error_is_sas_proc_freqs(weights, sm_weights, published):
    a, b = sas_labels()
    est = kl.cohen_kappa(a, b, weights=weights, categories=[0, 1, 2], ci="asymptotic")
    kappa, ase, low, high = published
    assert est.value == pytest.approx(kappa, abs=5e-5)
    assert est.se == pytest.approx(ase, abs=5e-5)
    assert est.ci == (pytest.approx(low, abs=5e-5), pytest.approx(high, abs=5e-5))
    reference = (cohens_kappa(SAS_TABLE) if sm_weights is None
                 else cohens_kappa(SAS_TABLE, weights=sm_weights))
    assert est.value == pytest.approx(reference.kappa, abs=1e-13)
    assert est.se == pytest.approx(reference.std_kappa, rel=1e-10)
    assert est.ci == (pytest.approx(reference.kappa_low, rel=1e-10),
                      pytest.approx(reference.kappa_upp, rel=1e-10))
    # the test dual to a normal interval is the normal one: p = 2 Φ(−|κ̂/ASE|)
    assert est.p_value == pytest.approx(2 * norm.sf(est.value / est.se), rel=1e-9)
    z, p = est.z_test(0.2)
    assert p == pytest.approx(2 * norm.sf(abs(est.value - 0.2) / est.se), rel=1e-9)


def test_asymptotic_standard_error_is_the_analytic_one_with_divisor_n_on_every_core():
    """irrCAC's SEs (divisor n − 1) times √((n − 1)/n), with a normal interval."""
    x = ratings(4, missing=0.0)
    n = x.shape[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = CAC(pd.DataFrame(x), categories=CATEGORIES, digits=15).fleiss()["est"]
    est = kl.fleiss_kappa(x, categories=CATEGORIES, ci="asymptotic", confidence=0.9)
    assert est.se == pytest.approx(reference["se"] * math.sqrt((n - 1) / n), rel=1e-10)
    half = norm.ppf(0.95) * est.se
    assert est.ci == (pytest.approx(est.value - half, rel=1e-12),
                      pytest.approx(min(1.0, est.value + half), rel=1e-12))
    # a resampling-free convention for the estimators outside the κ family too
    alpha = kl.krippendorff_alpha(x, ci="asymptotic")
    analytic = kl.krippendorff_alpha(x, ci="analytic")
    assert alpha.se == pytest.approx(analytic.se * math.sqrt((n - 1) / n), rel=1e-12)


# ============================================================================ Gwet (irrCAC)
CATEGORIES = [0, 1, 2, 3]
GWET = {  # kappalab function, irrCAC method
    "fleiss": kl.fleiss_kappa,
    "conger": kl.conger_kappa,
    "gwet": kl.gwet_ac,
    "bp": kl.brennan_prediger,
}


def irrcac(x, method, weights="identity", categories=CATEGORIES):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # irrCAC's own pandas warnings
        return getattr(CAC(pd.DataFrame(x), weights=weights, categories=categories,
                           digits=15), method)()["est"]


@pytest.mark.parametrize("method", list(GWET))
def test_gwet_standard_error_on_gwets_raw_4raters(method):
    """Gwet's 12 units × 4 raters, units 11 and 12 rated once or twice: irrCAC's SEs."""
    data = raw_4raters()
    est = GWET[method](data, categories=[1, 2, 3, 4, 5], ci="gwet")
    reference = irrcac(data, method, categories=[1, 2, 3, 4, 5])
    assert est.value == pytest.approx(reference["coefficient_value"], abs=1e-13)
    assert est.se == pytest.approx(reference["se"], rel=1e-10)
    low, high = reference["confidence_interval"]
    assert est.ci == (pytest.approx(low, rel=1e-10), pytest.approx(high, rel=1e-10))
    # irrCAC's p-value with t_{n−1}, n = 12 units (its bp() reports the one-sided half)
    two_sided = 2 * reference["p_value"] if method == "bp" else reference["p_value"]
    assert est.p_value == pytest.approx(two_sided, rel=1e-8)
    # kappalab's default linearises the estimator instead: 10–13 % smaller here
    analytic = GWET[method](data, categories=[1, 2, 3, 4, 5], ci="analytic")
    assert 0.85 < analytic.se / est.se < 0.92


@pytest.mark.parametrize("weights, irr_weights", [(None, "identity"), ("linear", "linear"),
                                                  ("quadratic", "quadratic")])
@pytest.mark.parametrize("method", list(GWET))
def test_gwet_standard_error_with_singly_rated_items_and_weights(method, weights, irr_weights):
    for seed in range(2):
        x = ratings(seed, single=12)
        est = GWET[method](x, weights=weights, categories=CATEGORIES, ci="gwet")
        reference = irrcac(x, method, irr_weights)
        assert est.se == pytest.approx(reference["se"], rel=1e-10)
        low, high = reference["confidence_interval"]
        assert est.ci == (pytest.approx(low, rel=1e-10), pytest.approx(high, rel=1e-10))


def test_gwet_standard_error_of_two_raters_with_single_ratings():
    x = ratings(3, n_raters=2, missing=0.0)
    x[:9, 1] = np.nan  # nine items rated by the first rater only
    x[9:14, 0] = np.nan  # five by the second only
    for estimator, method in ((kl.cohen_kappa, "conger"), (kl.scott_pi, "fleiss"),
                              (kl.bennett_s, "bp")):
        est = estimator(x, categories=CATEGORIES, ci="gwet")
        assert est.se == pytest.approx(irrcac(x, method)["se"], rel=1e-10)


def test_gwet_standard_error_of_percent_agreement_by_hand():
    """Gwet's per-item terms for P_o: (n/n₂)·P_i·[m_i ≥ 2] − P_o over the n rated items."""
    x = ratings(5, single=9)
    m = (~np.isnan(x)).sum(axis=1)
    counts = np.stack([(x == c).sum(axis=1) for c in CATEGORIES], axis=1)
    pairable = m >= 2
    p_i = np.where(pairable, (counts * (counts - 1)).sum(axis=1) / np.maximum(m * (m - 1), 1),
                   0.0)
    n, n2 = m.size, pairable.sum()
    p_o = p_i[pairable].mean()
    terms = (n / n2) * p_i * pairable - p_o
    est = kl.percent_agreement(x, ci="gwet")
    assert est.value == pytest.approx(p_o, abs=1e-14)
    assert est.se == pytest.approx(np.sqrt((terms ** 2).sum() / (n * (n - 1))), rel=1e-10)


def test_gwet_standard_error_drops_an_item_of_weight_zero():
    x = ratings(8, single=10)
    for dropped in (3, 40):  # a singly-rated item, a pairable one
        w = np.ones(x.shape[0])
        w[dropped] = 0.0
        weighted = kl.gwet_ac(x, categories=CATEGORIES, sample_weight=w, ci="gwet")
        removed = kl.gwet_ac(np.delete(x, dropped, axis=0), categories=CATEGORIES, ci="gwet")
        assert weighted.value == pytest.approx(removed.value, abs=1e-14)
        assert weighted.se == pytest.approx(removed.se, rel=1e-12)


def test_gwet_standard_error_equals_the_analytic_one_when_every_item_is_pairable():
    x = ratings(2, missing=0.3)  # every item keeps ≥ 2 annotations
    for estimator in GWET.values():
        gwet = estimator(x, ci="gwet")
        analytic = estimator(x, ci="analytic")
        assert gwet.se == pytest.approx(analytic.se, rel=1e-12)
        assert gwet.ci == pytest.approx(analytic.ci, rel=1e-12)


@pytest.mark.parametrize("call", [
    lambda x: kl.krippendorff_alpha(x, ci="gwet"),
    lambda x: kl.spa(x, ci="gwet"),
    lambda x: kl.cross_kappa(x, x, ci="gwet"),
    lambda x: kl.light_kappa(x, ci="gwet"),
])
def test_gwet_standard_error_is_refused_where_gwet_gives_none(call):
    with pytest.raises(InvalidParameterError, match="ci='gwet'"):
        call(ratings(1, single=5))


def test_ci_names_include_the_conventions():
    from kappalab.uncertainty import CI_METHODS

    assert CI_METHODS["asymptotic"] == ("asymptotic", "normal")
    assert CI_METHODS["gwet"] == ("gwet", "t")
