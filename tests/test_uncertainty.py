"""Resampling on the item-sum spine: every replicate equals the coefficient recomputed on the
resampled data, computed independently through the public functions."""

import numpy as np
import pytest

import kappalab as kl
from kappalab.coefficients.multirater import ChanceCorrectedAgreement, distance_for
from kappalab.coefficients.cross import CrossKappa
from kappalab.errors import InvalidParameterError
from kappalab.uncertainty import replicate_values, resampling_interval


def table(seed, n_items=25, n_raters=4, missing=0.25):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 4, size=(n_items, 1))
    x = np.where(rng.random((n_items, n_raters)) < 0.7, truth,
                 rng.integers(1, 4, size=(n_items, n_raters))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, 0] = np.where(np.isnan(x[:, 0]), truth[:, 0], x[:, 0])  # keep every item annotated
    return x


def alpha_core(x, level="nominal"):
    ann = kl.Annotations.from_wide(x)
    return ChanceCorrectedAgreement(ann, distance_for(ann, level), chance="pooled",
                                    item_weighting="annotation", name="alpha")


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_jackknife_replicates_are_leave_one_item_out(level):
    x = table(1)
    replicates = replicate_values(alpha_core(x, level), "jackknife")
    direct = [float(kl.krippendorff_alpha(np.delete(x, i, axis=0), level))
              for i in range(x.shape[0])]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_bootstrap_replicates_are_the_coefficient_of_resampled_items():
    """Same generator, same draws: rebuild each bootstrap sample explicitly."""
    x = table(2)
    n = x.shape[0]
    replicates = replicate_values(alpha_core(x), "bootstrap", n_resamples=30, seed=7)
    draws = np.random.default_rng(7).integers(0, n, size=(30, n))
    direct = [float(kl.krippendorff_alpha(x[d])) for d in draws]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_conger_replicates_with_sparse_rater_block():
    x = table(3)
    ann = kl.Annotations.from_wide(x)
    core = ChanceCorrectedAgreement(ann, distance_for(ann, "nominal"), chance="rater_marginal",
                                    item_weighting="item", name="conger")
    replicates = replicate_values(core, "jackknife")
    direct = [float(kl.conger_kappa(np.delete(x, i, axis=0))) for i in range(x.shape[0])]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_cross_kappa_resamples_items_in_pairs():
    rng = np.random.default_rng(4)
    x, y = table(5), table(6)
    core = CrossKappa(kl.Annotations.from_wide(x), kl.Annotations.from_wide(y), "nominal")
    replicates = replicate_values(core, "bootstrap", n_resamples=20, seed=11)
    draws = np.random.default_rng(11).integers(0, x.shape[0], size=(20, x.shape[0]))
    # a bootstrap sample repeats items: relabel them so both sides keep the pairing
    direct = [float(kl.cross_kappa(x[d], y[d])) for d in draws]
    np.testing.assert_allclose(replicates, direct, atol=1e-12)


def test_bayesian_bootstrap_weights_average_to_the_estimate():
    x = table(7, n_items=200)
    core = alpha_core(x)
    values = replicate_values(core, "bayesian-bootstrap", n_resamples=400, seed=1)
    estimate = float(kl.krippendorff_alpha(x))
    assert abs(values.mean() - estimate) < 4 * values.std() / np.sqrt(values.size) + 0.01


def test_interval_contains_estimate_and_shrinks_with_more_items():
    small, large = table(8, n_items=50), table(8, n_items=800)
    widths = []
    for x in (small, large):
        result = resampling_interval(alpha_core(x), "bootstrap", n_resamples=400, seed=3,
                                     interval="bca")
        estimate = float(kl.krippendorff_alpha(x))
        assert result.low <= estimate <= result.high
        widths.append(result.high - result.low)
    # width ∝ 1/√n: 16× the items, about a quarter of the width
    assert 0.15 < widths[1] / widths[0] < 0.4


def test_bad_options():
    core = alpha_core(table(9))
    with pytest.raises(InvalidParameterError, match="resampling method"):
        replicate_values(core, "bootstrapp")
    with pytest.raises(InvalidParameterError, match="confidence"):
        resampling_interval(core, confidence=1.5)


ESTIMATORS = [kl.krippendorff_alpha, kl.fleiss_kappa, kl.conger_kappa, kl.janson_olsson_iota,
              kl.gwet_ac, kl.brennan_prediger, kl.percent_agreement, kl.light_kappa, kl.spa,
              kl.spa_kappa]


@pytest.mark.parametrize("estimator", ESTIMATORS, ids=lambda f: f.__name__)
def test_ci_keyword_gives_se_and_interval(estimator):
    x = table(10, n_items=120)
    plain = estimator(x)
    est = estimator(x, ci="bootstrap", n_resamples=200, seed=5)
    assert est.value == plain.value and plain.ci is None
    assert est.se > 0 and est.ci[0] <= est.value <= est.ci[1]
    again = estimator(x, ci="bootstrap", n_resamples=200, seed=5)
    assert again.ci == est.ci  # same seed, same interval


def test_jackknife_se_is_the_jackknife_formula_on_recomputed_values():
    x = table(11, n_items=30)
    n = x.shape[0]
    leave_one_out = np.array([float(kl.fleiss_kappa(np.delete(x, i, axis=0))) for i in range(n)])
    expected = np.sqrt((n - 1) / n * ((leave_one_out - leave_one_out.mean()) ** 2).sum())
    assert kl.fleiss_kappa(x, ci="jackknife").se == pytest.approx(expected, rel=1e-10)


def test_two_rater_and_cross_estimators_take_ci():
    x = table(12, n_items=80, n_raters=2, missing=0.0)
    assert kl.cohen_kappa(x, ci="jackknife").se > 0
    y = table(13, n_items=80, n_raters=3)
    est = kl.cross_kappa(x, y, ci="bayesian-bootstrap", n_resamples=100, seed=1)
    assert est.ci[0] <= est.value <= est.ci[1]


@pytest.mark.parametrize("ci, fragment", [("analytic", "not available yet"),
                                          ("bootstrapp", "unknown ci")])
def test_unknown_or_unavailable_ci(ci, fragment):
    with pytest.raises(InvalidParameterError, match=fragment):
        kl.fleiss_kappa(table(14), ci=ci)
