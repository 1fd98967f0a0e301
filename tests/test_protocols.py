"""The protocol of an item-sum core (``kappalab.protocols.ItemSumCore``), which the uncertainty
code is typed with: every core the estimators build satisfies it (checked at run time here,
as ``runtime_checkable`` allows: the members are present; the type checker checks their
signatures, ``make typecheck``), and an object without one of its members does not."""

from __future__ import annotations

import numpy as np

import kappalab as kl
from kappalab.coefficients import registry
from kappalab.protocols import ItemSumCore


def test_the_cores_of_the_estimators_satisfy_the_protocol():
    """The core factory of every registered coefficient of categories and one data set
    (the worked example: 10 items, 4 raters), and κx's, build a core of the protocol."""
    data = kl.datasets.load("worked_example")
    entries = [entry for entry in registry.coefficients()
               if entry.values == "categories" and entry.replications == 1
               and entry.panel != "two" and entry.name != "reference_agreement"]
    assert len(entries) >= 7
    cores = [entry.core(data) for entry in entries]
    cores.append(registry.lookup("cross_kappa").core(data, data))
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
