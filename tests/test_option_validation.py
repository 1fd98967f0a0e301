"""Options converted ad hoc (``int(n_classes)``) silently truncated a fractional value: each is
now checked by kappalab.validation, with one line naming the option."""

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
