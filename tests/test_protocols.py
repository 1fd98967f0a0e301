"""The protocol of an item-sum core (``kappalab.protocols.ItemSumCore``), which the uncertainty
code is typed with: every core the estimators build satisfies it (checked at run time here,
as ``runtime_checkable`` allows: the members are present; the type checker checks their
signatures, ``make typecheck``), and an object without one of its members does not."""

from __future__ import annotations

import numpy as np

import kappalab as kl
from kappalab.coefficients.base import recording_estimates
from kappalab.protocols import ItemSumCore


def test_the_cores_of_the_estimators_satisfy_the_protocol():
    data = kl.datasets.load("worked_example")
    estimators = [kl.krippendorff_alpha, kl.fleiss_kappa, kl.conger_kappa, kl.gwet_ac,
                  kl.brennan_prediger, kl.percent_agreement, kl.light_kappa]
    with recording_estimates() as recorded:
        for estimator in estimators:
            estimator(data)
        kl.cross_kappa(data, data, shared_raters="ignore")
    cores = [core for core, _ in recorded]
    assert len(cores) >= len(estimators) + 1
    assert all(isinstance(core, ItemSumCore) for core in cores)


class _Partial:
    """Everything of a core but ``combine``."""

    name = "partial"
    upper_bound = 1.0

    def item_stats(self) -> np.ndarray:
        return np.ones((2, 1))

    def totals(self) -> np.ndarray:
        return np.full(1, 2.0)

    def value_gradient(self, totals: np.ndarray) -> np.ndarray:
        return np.zeros_like(totals)


def test_an_object_without_combine_is_not_a_core():
    assert not isinstance(_Partial(), ItemSumCore)
    assert not isinstance(object(), ItemSumCore)
