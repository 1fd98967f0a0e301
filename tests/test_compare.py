"""kl.compare: the difference of one coefficient between two data sets.

Oracles: the jackknife of the difference recomputed by brute force (the estimator called
again on the data without each item), the paired bootstrap recomputed by brute force (the
estimator called with integer sample weights, which equal repeated items), each estimator's
own standard errors for independent data sets, the difference written as one coefficient on
the joint item sums (its analytic SE by the spine's complex-step gradient), peer libraries
for the two values, and the rejection rate under a simulated null.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

import kappalab as kl
from kappalab.coefficients import registry
from kappalab.coefficients.base import ItemSumCoefficient
from kappalab.errors import InvalidParameterError, UndefinedCoefficientWarning
from kappalab.uncertainty import analytic_interval


def pools(n_items=150, *, reliability=(0.6, 0.6), rho=1.0, level="binary", seed=0, **kw):
    """Two rater pools on the same items (simulate.replications), as Annotations."""
    x, y, _ = kl.simulate.replications(n_items, level=level, rho=rho, reliability=reliability,
                                       seed=seed, **kw)
    return x, y


def core_of(estimator, *data, **options):
    return registry.lookup(estimator).core(*data, **options)


def brute_force_jackknife(estimator, a, b, **options):
    """√((n−1)/n Σ (D_(i) − D̄)²) over the union of items, each D_(i) recomputed from the
    data without item i (a side without the item keeps its full estimate)."""
    union = a.items.append(b.items.difference(a.items, sort=False))
    full_a, full_b = float(estimator(a, **options)), float(estimator(b, **options))
    leave = []
    for item in union:  # brute force: one estimator call per item and side
        on_a = float(estimator(a.subset_items(a.items.drop(item)), **options)) \
            if item in a.items else full_a
        on_b = float(estimator(b.subset_items(b.items.drop(item)), **options)) \
            if item in b.items else full_b
        leave.append(on_a - on_b)
    leave = np.array(leave)
    n = leave.size
    return math.sqrt((n - 1) / n * ((leave - leave.mean()) ** 2).sum())


# ---------------------------------------------------------------------- published values
#: the example data of Gwet's R package pairedCAC (the implementation of Gwet 2016, EPM 76(4),
#: 609–637, doi:10.1177/0013164415596420): 15 subjects rated by two groups of 4 raters
RATINGS_1 = np.array([[1, 1, 1, 1], [1, 1, 2, 3], [1, 1, 2, 3], [2, 2, 2, 3], [1, 2, 1, 1],
                      [2, 1, 1, 1], [2, 2, 2, 2], [2, 3, 2, 2], [3, 3, 3, 3], [1, 1, 1, 1],
                      [1, 1, 2, 3], [3, 3, 3, 3], [3, 2, 3, 3], [1, 2, 1, 1], [2, 1, 1, 1]])
RATINGS_2 = np.array([[1, 1, 1, 1], [3, 3, 3, 2], [3, 3, 3, 3], [1, 1, 2, 1], [1, 1, 1, 1],
                      [1, 1, 1, 1], [2, 2, 2, 2], [2, 2, 1, 1], [3, 3, 3, 3], [1, 1, 1, 3],
                      [2, 2, 2, 2], [3, 3, 3, 3], [3, 3, 3, 3], [1, 2, 1, 1], [3, 3, 3, 3]])


@pytest.mark.parametrize("estimator, second, published", [
    # pairedCAC's printed output: coeff1, coeff2, coeff.diff, std.err, t.stat, p.value
    (kl.fleiss_kappa, RATINGS_2,
     (0.3856655, 0.7248495, 0.339184, 0.1574322, 2.154477, 0.04910569)),
    (kl.fleiss_kappa, RATINGS_2[:, :3],
     (0.3856655, 0.7942073, 0.4085418, 0.1612858, 2.53303, 0.02389035)),
    (kl.gwet_ac, RATINGS_2,
     (0.4069193, 0.737382, 0.3304628, 0.1452689, 2.274835, 0.03917311)),
    (kl.conger_kappa, RATINGS_2,
     (0.3932584, 0.7250859, 0.3318275, 0.1527202, 2.172781, 0.04745695)),
    (kl.krippendorff_alpha, RATINGS_2,
     (0.3959044, 0.7294354, 0.3335309, 0.1548083, 2.154477, 0.04910569)),
    (kl.brennan_prediger, RATINGS_2,
     (0.4, 0.7333333, 0.3333333, 0.1477342, 2.256304, 0.04056859)),
    (kl.percent_agreement, RATINGS_2,
     (0.6, 0.8222222, 0.2222222, 0.09848947, 2.256304, 0.04056859)),
], ids=["fleiss", "fleiss-3-raters", "ac1", "conger", "alpha", "bp", "pa"])
def test_paired_test_reproduces_gwets_paired_t_test(estimator, second, published):
    # pairedCAC tests coefficient 2 − coefficient 1 with t_{n−1}: compare(b=ratings1)
    result = kl.compare(estimator, second, RATINGS_1)
    got = (result.value_b, result.value_a, result.difference, result.se, result.z,
           result.p_value)
    assert got == pytest.approx(published, abs=6e-7, rel=5e-7)
    assert result.paired and result.df == 14


# ---------------------------------------------------------------------- paired standard errors
@pytest.mark.parametrize("estimator", [kl.krippendorff_alpha, kl.fleiss_kappa, kl.conger_kappa])
def test_paired_jackknife_equals_the_brute_force_jackknife(estimator):
    x, y = pools(40, seed=3)
    result = kl.compare(estimator, x, y, ci="jackknife")
    assert result.paired and result.n_common == 40
    assert result.se == pytest.approx(brute_force_jackknife(estimator, x, y), rel=1e-10)


def test_partially_overlapping_jackknife_equals_the_brute_force_jackknife():
    # 30 common items, 6 in a only, 4 in b only; b's rows in another order
    x, y = pools(30, only_x=6, only_y=4, seed=4)
    y = y.subset_items(y.items[::-1])
    result = kl.compare(kl.krippendorff_alpha, x, y, ci="jackknife")
    assert (result.n_common, result.n_only_a, result.n_only_b) == (30, 6, 4)
    expected = brute_force_jackknife(kl.krippendorff_alpha, x, y)
    assert result.se == pytest.approx(expected, rel=1e-10)


@pytest.mark.parametrize("estimator", [kl.krippendorff_alpha, kl.fleiss_kappa, kl.gwet_ac])
def test_paired_analytic_se_agrees_with_the_brute_force_jackknife(estimator):
    x, y = pools(200, reliability=(0.6, 0.7), seed=5)
    analytic = kl.compare(estimator, x, y).se
    jackknife = brute_force_jackknife(estimator, x, y)
    assert analytic == pytest.approx(jackknife, rel=0.05)


def test_paired_analytic_se_agrees_with_the_brute_force_bootstrap():
    x, y = pools(150, seed=6)
    n, draws = 150, 400
    rng = np.random.default_rng(0)
    differences = []
    for _ in range(draws):  # brute force: integer sample weights = items drawn k times
        counts = np.bincount(rng.integers(0, n, n), minlength=n)
        differences.append(float(kl.krippendorff_alpha(x, sample_weight=counts))
                           - float(kl.krippendorff_alpha(y, sample_weight=counts)))
    brute = float(np.std(differences, ddof=1))
    analytic = kl.compare(kl.krippendorff_alpha, x, y)
    boot = kl.compare(kl.krippendorff_alpha, x, y, ci="bootstrap", n_resamples=2000, seed=1)
    # 400 brute-force replicates estimate an SD to ±3.5 % (one SE): bounds of 15 %
    assert analytic.se == pytest.approx(brute, rel=0.15)
    assert boot.se == pytest.approx(brute, rel=0.15)
    assert boot.ci[0] < boot.difference < boot.ci[1]
    # the pools share the items' latents: the two estimates are positively correlated and
    # the paired SE is below the independent one
    independent = kl.compare(kl.krippendorff_alpha, x, y, paired=False)
    assert analytic.correlation > 0.1 and analytic.se < independent.se


@pytest.mark.parametrize("estimator", [kl.conger_kappa, kl.light_kappa])
def test_paired_bootstrap_on_sparse_item_statistics(estimator):
    # rater × category indicator columns: sparse item statistics, partially overlapping items
    x, y = pools(200, only_x=20, only_y=30, seed=14)
    analytic = kl.compare(estimator, x, y)
    boot = kl.compare(estimator, x, y, ci="bootstrap", n_resamples=1000, seed=2)
    jack = kl.compare(estimator, x, y, ci="jackknife")
    assert boot.details["n_finite_replicates"] == 1000
    # 1000 replicates estimate an SD to ±2.2 %
    assert boot.se == pytest.approx(analytic.se, rel=0.12)
    assert jack.se == pytest.approx(analytic.se, rel=0.12)


def test_same_items_equal_the_difference_as_one_coefficient_on_the_joint_item_sums():
    x, y = pools(80, seed=7)
    core_x, core_y = core_of(kl.fleiss_kappa, x), core_of(kl.fleiss_kappa, y)
    width = core_x.totals().size

    class Difference(ItemSumCoefficient):  # θ_a(T_a) − θ_b(T_b) on the rows [s_a, s_b]
        def unweighted_item_stats(self):
            return np.hstack([core_x.item_stats(), core_y.item_stats()])

        def combine(self, totals):
            t = np.asarray(totals)
            value = (core_x.combine(t[..., :width])["value"]
                     - core_y.combine(t[..., width:])["value"])
            return {"value": value, "observed": value, "expected": 0 * value}

    joint = analytic_interval(Difference()).se  # complex-step gradient of the joint closed form
    assert kl.compare(kl.fleiss_kappa, x, y).se == pytest.approx(joint, rel=1e-10)


def test_partial_overlap_is_close_to_the_union_linearisation():
    # the union of the items as the sampling units (one-sided items are all-zero rows on the
    # other side): the same first-order variance up to the n/(n − 1) factors
    x, y = pools(300, only_x=60, only_y=40, seed=8)
    core_x, core_y = core_of(kl.krippendorff_alpha, x), core_of(kl.krippendorff_alpha, y)
    union = x.items.append(y.items.difference(x.items, sort=False))
    sx, sy = core_x.item_stats(), core_y.item_stats()
    on_x = np.zeros((len(union), sx.shape[1]))
    on_x[union.get_indexer(x.items)] = sx
    on_y = np.zeros((len(union), sy.shape[1]))
    on_y[union.get_indexer(y.items)] = sy
    width = sx.shape[1]

    class UnionDifference(ItemSumCoefficient):
        def unweighted_item_stats(self):
            return np.hstack([on_x, on_y])

        def combine(self, totals):
            t = np.asarray(totals)
            value = (core_x.combine(t[..., :width])["value"]
                     - core_y.combine(t[..., width:])["value"])
            return {"value": value, "observed": value, "expected": 0 * value}

    result = kl.compare(kl.krippendorff_alpha, x, y)
    assert (result.n_common, result.n_only_a, result.n_only_b) == (300, 60, 40)
    assert result.df == 399
    assert result.se == pytest.approx(analytic_interval(UnionDifference()).se, rel=0.02)


# ---------------------------------------------------------------------- independent data sets
@pytest.mark.parametrize("ci", ["analytic", "jackknife"])
def test_independent_se_is_the_root_sum_of_the_estimators_own_variances(ci):
    a, _ = kl.simulate.annotations(120, reliability=0.5, seed=1)
    b, _ = kl.simulate.annotations(90, reliability=0.7, annotations_per_item=(2, 4), seed=2)
    result = kl.compare(kl.krippendorff_alpha, a, b, paired=False, ci=ci)
    own_a = kl.krippendorff_alpha(a, ci=ci)
    own_b = kl.krippendorff_alpha(b, ci=ci)
    assert not result.paired and result.correlation == 0
    assert result.difference == pytest.approx(own_a.value - own_b.value, abs=1e-15)
    assert result.se == pytest.approx(math.hypot(own_a.se, own_b.se), rel=1e-12)
    # Welch–Satterthwaite degrees of freedom, written out
    va, vb = own_a.se ** 2, own_b.se ** 2
    welch = (va + vb) ** 2 / (va ** 2 / 119 + vb ** 2 / 89)
    assert result.df == pytest.approx(welch, rel=1e-12)
    assert result.z == pytest.approx(result.difference / result.se, rel=1e-12)
    from scipy.stats import t

    assert result.p_value == pytest.approx(2 * t.sf(abs(result.z), welch), rel=1e-10)


def test_independent_bootstrap_agrees_with_the_analytic_se():
    a, _ = kl.simulate.annotations(200, reliability=0.6, seed=3)
    b, _ = kl.simulate.annotations(200, reliability=0.6, seed=4)
    analytic = kl.compare(kl.fleiss_kappa, a, b, paired=False)
    boot = kl.compare(kl.fleiss_kappa, a, b, paired=False, ci="bootstrap", seed=0)
    basic = kl.compare(kl.fleiss_kappa, a, b, paired=False, ci="bootstrap-basic", seed=0)
    assert boot.se == pytest.approx(analytic.se, rel=0.1)
    assert basic.se == boot.se  # the same replicates, another interval
    low, high = boot.ci
    assert basic.ci == pytest.approx((2 * boot.difference - high, 2 * boot.difference - low))
    assert boot.details["n_resamples"] == 2000


def test_auto_detection_of_pairing():
    a, _ = kl.simulate.annotations(50, reliability=0.6, seed=1)       # items 0..49
    b, _ = kl.simulate.annotations(50, reliability=0.6, seed=2)
    moved = kl.Annotations.from_long(b.to_long().assign(item=lambda d: d["item"] + 1000))
    assert kl.compare(kl.fleiss_kappa, a, b).paired                   # shared labels
    separate = kl.compare(kl.fleiss_kappa, a, moved)
    assert not separate.paired and (separate.n_common, separate.n_only_b) == (0, 50)
    assert "independent" in repr(separate)


# ---------------------------------------------------------------------- identical, undefined
def test_identical_data_sets_give_zero_with_zero_se_and_say_so():
    ann, _ = kl.simulate.annotations(60, reliability=0.6, seed=1)
    for ci in ("analytic", "jackknife", "bootstrap"):
        with pytest.warns(UndefinedCoefficientWarning, match="no sampling variation"):
            result = kl.compare(kl.krippendorff_alpha, ann, ann, ci=ci, seed=0)
        assert result.paired and result.difference == 0 and result.se == 0
        assert math.isnan(result.z) and math.isnan(result.p_value)


def test_an_undefined_side_gives_nan_with_the_estimators_warning():
    one_category = [[1, 1], [1, 1], [1, 1]]
    with pytest.warns(UndefinedCoefficientWarning, match="undefined"):
        result = kl.compare(kl.krippendorff_alpha, one_category, [[1, 2], [2, 2], [1, 1]])
    assert math.isnan(result.difference) and math.isnan(result.se)
    assert math.isnan(result.p_value)


# ---------------------------------------------------------------------- two-argument estimators
def test_an_automatic_judge_before_and_after_a_change():
    rng = np.random.default_rng(2)
    truth = rng.integers(0, 3, 300)
    humans = pd.DataFrame({f"h{r}": np.where(rng.random(300) < 0.8, truth,
                                             rng.integers(0, 3, 300)) for r in range(3)})
    judge_v1 = pd.Series(np.where(rng.random(300) < 0.6, truth, rng.integers(0, 3, 300)))
    judge_v2 = pd.Series(np.where(rng.random(300) < 0.8, truth, rng.integers(0, 3, 300)))
    result = kl.compare(kl.reference_agreement, (humans, judge_v1), (humans, judge_v2))
    assert result.paired and result.n_common == 300
    assert result.value_a == float(kl.reference_agreement(humans, judge_v1))
    assert result.value_b == float(kl.reference_agreement(humans, judge_v2))
    assert result.difference < 0 and result.p_value < 0.01
    # the same humans on both sides: the agreements covary, pairing narrows the SE
    assert result.correlation > 0
    assert result.se < kl.compare(kl.reference_agreement, (humans, judge_v1),
                                  (humans, judge_v2), paired=False).se
    # with one coder, reference agreement is Cohen's κ (scikit-learn as the oracle)
    one = kl.compare("reference_agreement", (humans[["h0"]], judge_v1),
                     (humans[["h0"]], judge_v2))
    assert one.value_a == pytest.approx(cohen_kappa_score(humans["h0"], judge_v1), abs=1e-12)
    assert one.value_b == pytest.approx(cohen_kappa_score(humans["h0"], judge_v2), abs=1e-12)


def test_two_rater_and_cross_replication_estimators_take_tuples():
    x1, y1 = [1, 2, 2, 1, 3, 3, 1, 2, 2, 1], [1, 2, 1, 1, 3, 2, 1, 2, 2, 2]
    x2, y2 = [1, 2, 2, 1, 3, 3, 1, 2, 2, 1], [1, 2, 2, 1, 3, 3, 2, 2, 2, 1]
    result = kl.compare(kl.cohen_kappa, (x1, y1), (x2, y2), weights="quadratic")
    assert result.value_a == pytest.approx(cohen_kappa_score(x1, y1, weights="quadratic"))
    assert result.value_b == pytest.approx(cohen_kappa_score(x2, y2, weights="quadratic"))
    x, y = pools(60, level="interval", seed=9)
    z, w = pools(60, level="interval", seed=10, reliability=(0.8, 0.8))
    cross = kl.compare(kl.cross_kappa, (x, y), (z, w), level="interval", ci="jackknife")
    assert cross.value_a == float(kl.cross_kappa(x, y, level="interval"))
    assert cross.paired and cross.n_common == 60


def test_values_agree_with_statsmodels():
    rng = np.random.default_rng(0)
    a = rng.integers(1, 4, size=(40, 4))
    b = np.where(rng.random((40, 4)) < 0.5, a, rng.integers(1, 4, size=(40, 4)))
    result = kl.compare(kl.fleiss_kappa, a, b)
    assert result.value_a == pytest.approx(fleiss_kappa(aggregate_raters(a)[0]), abs=1e-12)
    assert result.value_b == pytest.approx(fleiss_kappa(aggregate_raters(b)[0]), abs=1e-12)


# ---------------------------------------------------------------------- properties
@st.composite
def two_tables(draw):
    n = draw(st.integers(8, 25))
    cells = st.lists(st.lists(st.sampled_from([1.0, 2.0, 3.0, np.nan]), min_size=3,
                              max_size=3), min_size=n, max_size=n)
    return np.array(draw(cells)), np.array(draw(cells))


def defined(table):
    complete = np.sum(~np.isnan(table), axis=1) >= 2
    values = table[complete]
    return complete.sum() >= 3 and np.unique(values[~np.isnan(values)]).size >= 2


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_tables())
def test_swapping_the_data_sets_negates_the_difference_and_keeps_the_test(tables):
    a, b = tables
    assume(defined(a) and defined(b))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        forward = kl.compare(kl.krippendorff_alpha, a, b)
        backward = kl.compare(kl.krippendorff_alpha, b, a)
    assume(np.isfinite(forward.difference) and forward.se > 1e-9)
    assert backward.difference == pytest.approx(-forward.difference, abs=1e-12)
    assert backward.se == pytest.approx(forward.se, rel=1e-9, abs=1e-12)
    assert backward.p_value == pytest.approx(forward.p_value, rel=1e-7, abs=1e-12)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(two_tables(), st.randoms(use_true_random=False))
def test_pairing_is_by_label_not_by_row_order(tables, random):
    a, b = tables
    assume(defined(a) and defined(b))
    order = list(range(len(b)))
    random.shuffle(order)
    shuffled = pd.DataFrame(b[order], index=order)  # the same items, rows in another order
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = kl.compare(kl.fleiss_kappa, a, b)
        reordered = kl.compare(kl.fleiss_kappa, a, shuffled)
    assume(np.isfinite(plain.difference))
    assert reordered.difference == pytest.approx(plain.difference, abs=1e-12)
    assert reordered.se == pytest.approx(plain.se, rel=1e-9, abs=1e-12)


# ---------------------------------------------------------------------- the simulated null
@pytest.mark.slow
def test_quick_null_rejection_rate_and_power(tmp_path):
    from experiments import compare_power

    # in this process (that the study gives the same numbers, bit for bit, on Dask workers
    # is tests/test_study.py's)
    table = compare_power.main(["--quick", "--out", str(tmp_path), "--scheduler", "serial"])
    assert (tmp_path / "compare_power.png").stat().st_size > 10_000
    assert len(pd.read_csv(tmp_path / "compare_power.csv")) == len(table) == 8
    null = table[table["hypothesis"] == "null"]
    # 200 studies: a 5 % test rejects 10 ± 3 of them; the bound fails a test that rejects
    # under 1 % or over 11 % (e.g. SEs off by a factor of 1.3)
    assert null["rejection_rate"].between(0.01, 0.11).all(), null
    assert (null["truth_difference"].abs() < 1e-12).all()
    paired = table["design"] == "paired"
    assert (table.loc[paired, "share_paired"] == 1).all()
    assert (table.loc[~paired, "share_paired"] == 0).all()
    # the estimated SE tracks the spread of the differences over the studies
    assert ((table["mean_se"] / table["sd_difference"]).between(0.85, 1.15)).all()
    alternative = table[table["hypothesis"] == "alternative"].set_index(
        ["design", "coefficient"])["rejection_rate"]
    assert (alternative.values > null.set_index(["design", "coefficient"])[
        "rejection_rate"].reindex(alternative.index).values).all()
    # pairing the same items gains power
    assert alternative["paired"].min() > alternative["independent"].max()


# ---------------------------------------------------------------------- display
def test_repr_and_tables():
    x, y = pools(50, seed=11)
    result = kl.compare(kl.krippendorff_alpha, x, y)
    text = repr(result)
    assert text.startswith("Comparison(Krippendorff's alpha: a = ")
    assert "paired on 50 common items" in text and "95% ci=" in text
    assert "<table" in result._repr_html_()
    assert float(result) == result.difference
    frame = kl.Comparison.to_frame([result, kl.compare(kl.fleiss_kappa, x, y)])
    assert list(frame["coefficient"]) == ["Krippendorff's alpha", "Fleiss' kappa"]
    assert frame.loc[0, "difference"] == result.difference
    assert frame.loc[0, "p_value"] == result.p_value
    assert result.to_frame().equals(frame.iloc[[0]])
    with pytest.raises(InvalidParameterError, match="item 0 is Estimate"):
        kl.Comparison.to_frame([result.estimate_a])


def test_the_icc_is_compared_through_its_core_factory():
    """The ICC's registry entry has a core, so compare takes kl.icc. Shrout & Fleiss (1979),
    Table 2 (6 targets × 4 judges; their Table 4: ICC(2,1) = 0.29): the table against itself
    with the targets in reverse order is 0.29 on both sides, a difference of 0 — paired by
    position, so different targets meet and the difference has a positive standard error."""
    table = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6],
                      [10, 5, 6, 9], [6, 2, 4, 7]], dtype=float)
    result = kl.compare(kl.icc, table, table[::-1], ci="analytic")
    assert result.paired
    assert round(result.value_a, 2) == round(result.value_b, 2) == 0.29
    assert result.difference == pytest.approx(0.0, abs=1e-12)
    assert result.se > 0


# ---------------------------------------------------------------------- bad input
def test_errors_name_the_fault():
    x, y = pools(20, seed=12)
    with pytest.raises(InvalidParameterError, match="unknown estimator 'alfa'"):
        kl.compare("alfa", x, y)
    with pytest.raises(InvalidParameterError, match="not an estimator compare can use: it is "
                       "not in the registry of coefficients .* registry.register"):
        kl.compare(kl.item_agreement, x, y)
    with pytest.raises(InvalidParameterError, match="estimator must be"):
        kl.compare(kl.Annotations, x, y)
    with pytest.raises(InvalidParameterError, match="a gives 2 positional"):
        kl.compare(kl.cross_kappa, (x, y), x)
    with pytest.raises(InvalidParameterError, match="cannot take data set a"):
        kl.compare(kl.fleiss_kappa, x, y, level="ordinal")
    with pytest.raises(InvalidParameterError, match="unknown ci 'bootstrap-bca'"):
        kl.compare(kl.fleiss_kappa, x, y, ci="bootstrap-bca")
    with pytest.raises(InvalidParameterError, match="paired must be"):
        kl.compare(kl.fleiss_kappa, x, y, paired="yes")
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        kl.compare(kl.fleiss_kappa, x, y, n_resamples=1)
    with pytest.raises(InvalidParameterError, match="confidence"):
        kl.compare(kl.fleiss_kappa, x, y, confidence=95)
    moved = kl.Annotations.from_long(y.to_long().assign(item=lambda d: d["item"] + 1000))
    with pytest.raises(InvalidParameterError, match="share no item label"):
        kl.compare(kl.fleiss_kappa, x, moved, paired=True)


def test_different_coefficients_or_levels_are_refused():
    x, y = pools(30, level="ordinal", seed=13)

    def level_of(data):
        return "interval" if data.n_raters > 2 else "nominal"

    def level_by_size(data):  # a callable that changes the coefficient with the data
        return kl.krippendorff_alpha(data, level=level_of(data))

    def level_by_size_core(data):
        return registry.lookup("alpha").core(data, level=level_of(data))

    small = x.subset_items(x.items)
    two_raters = kl.Annotations.from_long(small.to_long().query("rater != rater.max()"))
    entry = registry.Coefficient(name="level_by_size", function=level_by_size,
                                 display="alpha by size", core=level_by_size_core)
    with registry.registered(entry), pytest.raises(
            InvalidParameterError, match="level 'interval' on a, 'nominal' on b"):
        kl.compare(level_by_size, x, two_raters)

    def chosen(data):
        return "fleiss" if data.n_raters > 2 else "alpha"

    def coefficient_by_size(data):
        return registry.lookup(chosen(data)).function(data)

    def coefficient_by_size_core(data):
        return registry.lookup(chosen(data)).core(data)

    entry = registry.Coefficient(name="coefficient_by_size", function=coefficient_by_size,
                                 display="by size", core=coefficient_by_size_core)
    with registry.registered(entry), pytest.raises(
            InvalidParameterError, match="coefficient \"Fleiss' kappa\" on a"):
        kl.compare(coefficient_by_size, x, two_raters)
    assert "coefficient_by_size" not in [e.name for e in registry.coefficients()]


def test_a_core_factory_that_disagrees_with_its_function_is_refused():
    x, y = pools(30, seed=13)

    def alpha_with_fleiss_core(data):
        return kl.krippendorff_alpha(data)

    entry = registry.Coefficient(name="alpha_with_fleiss_core", function=alpha_with_fleiss_core,
                                 display="mismatch", core=registry.lookup("fleiss").core)
    with registry.registered(entry), pytest.raises(
            InvalidParameterError, match="not the value of its core factory's coefficient"):
        kl.compare(alpha_with_fleiss_core, x, y)
