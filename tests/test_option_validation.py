"""Options converted ad hoc (``int(n_classes)``) silently truncated a fractional value: each is
now checked by kappalab.validation, with one line naming the option."""

import numpy as np
import pytest

import kappalab as kl
from kappalab.errors import InvalidParameterError


@pytest.mark.parametrize("n_classes", [2.7, "3", True, 1, 0, -2, float("nan"), None])
def test_spa_weights_refuses_an_n_classes_that_is_not_a_count_of_two_or_more(n_classes):
    with pytest.raises(InvalidParameterError, match="n_classes") as caught:
        kl.spa_weights([2, 3], scheme="inv_var", n_classes=n_classes)
    assert "\n" not in str(caught.value)


def test_spa_weights_takes_a_whole_float_n_classes():
    # two classes, two annotations: Var[P] = 1/4 (P is 0 or 1 with probability ½ each), so
    # the weight is 4; three annotations: P ∈ {1/3, 1} with probabilities ¾, ¼, mean ½,
    # Var = ¾(1/3 − ½)² + ¼(½)² = 1/48 + 1/16 = 1/12, so the weight is 12
    assert kl.spa_weights([2, 3], scheme="inv_var", n_classes=2.0).tolist() == \
        pytest.approx([4.0, 12.0], rel=1e-12)


# ------------------------------------------------------------------ the other ad hoc conversions
def test_ordinal_weights_refuses_a_fractional_number_of_categories():
    from kappalab.distances import nominal, ordinal_weights

    for function in (ordinal_weights, nominal):
        with pytest.raises(InvalidParameterError, match="n_categories"):
            function(2.7)
    # a whole float is the count: ordinal weights of 3 categories, 1 − d(d + 1)/2 / 3
    np.testing.assert_allclose(ordinal_weights(3.0), [[1.0, 2 / 3, 0.0], [2 / 3, 1.0, 2 / 3],
                                                      [0.0, 2 / 3, 1.0]], rtol=0, atol=1e-15)


@pytest.mark.parametrize("period", ["4", float("inf"), [4]])
def test_circular_refuses_a_period_that_is_not_a_finite_number(period):
    from kappalab.distances import circular

    with pytest.raises(InvalidParameterError, match="period"):
        circular([1, 2, 3, 4], period=period)


def test_circular_keeps_its_message_for_a_non_positive_period():
    from kappalab.distances import circular

    with pytest.raises(InvalidParameterError, match="the circular period must be positive"):
        circular([1, 2, 3, 4], period=-4)


@pytest.mark.parametrize("origin", ["1", float("nan"), [1.0]])
def test_ratio_refuses_an_origin_that_is_not_a_finite_number(origin):
    from kappalab.distances import ratio

    with pytest.raises(InvalidParameterError, match="origin"):
        ratio([1, 2, 4], origin=origin)


@pytest.mark.parametrize("options", [{"delay": "2"}, {"delay": -1.0}, {"interval": float("nan")},
                                     {"interval": -0.5}])
def test_progress_refuses_a_delay_or_interval_that_is_not_a_time(options):
    from kappalab import progress

    name = next(iter(options))
    with pytest.raises(InvalidParameterError, match=name):
        with progress.elapsed("working", **options):
            pass


@pytest.mark.parametrize("delay", ["2", -1.0, float("inf")])
def test_track_refuses_a_delay_that_is_not_a_time(delay):
    from kappalab import progress

    with pytest.raises(InvalidParameterError, match="delay"):
        list(progress.track(range(2), "counting", delay=delay))


def test_bucket_refuses_a_fractional_number_of_rows():
    from kappalab.bayes.compiled import bucket

    with pytest.raises(InvalidParameterError, match="number of rows"):
        bucket(8.5)
    assert bucket(8.0) == 8  # a whole float is the count (the power of two ≥ 8)
