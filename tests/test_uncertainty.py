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
