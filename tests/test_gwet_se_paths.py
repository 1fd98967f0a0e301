"""Gwet's (2014) standard error (``ci="gwet"``) along its short path — the rows used as they
are and the estimate's totals when every item is one of his units — against his formula
written out on the units' rows (the rows picked, summed with ``math.fsum``), and against
irrCAC, on varied data: missing cells, unequal raters per item, singly-rated items, items
without annotations, one category, unanimous raters, weights and sample weights."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp
from irrCAC.raw import CAC
from scipy.stats import t as student_t

import kappalab as kl
from kappalab.coefficients.multirater import FAMILY
from kappalab.uncertainty import _t_quantile

CATEGORIES = [0, 1, 2, 3]
GWET = {  # kappalab function, irrCAC method, FAMILY entry
    "gwet": (kl.gwet_ac, "gwet_ac"),
    "fleiss": (kl.fleiss_kappa, "fleiss_kappa"),
    "conger": (kl.conger_kappa, "conger_kappa"),
    "bp": (kl.brennan_prediger, "brennan_prediger"),
}
WEIGHTS = [(None, "identity"), ("linear", "linear"), ("quadratic", "quadratic")]


def ratings(seed, n_items=60, n_raters=5, missing=0.35, single=0, empty=0):
    """Correlated raters with missing cells (so unequal raters per item), ``single`` items
    rated once and ``empty`` items not rated at all (the last rows)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, 4, size=n_items)
    x = np.where(rng.random((n_items, n_raters)) < 0.6, truth[:, None],
                 rng.integers(0, 4, size=(n_items, n_raters))).astype(float)
    x[rng.random(x.shape) < missing] = np.nan
    x[:, :2] = np.where(np.isnan(x[:, :2]), truth[:, None], x[:, :2])
    x[:single, 1:] = np.nan
    if empty:
        x[-empty:] = np.nan
    return x


def gwet_se_by_his_formula(core):
    """SE² = Σ_units (n ∇f·s_i − ∇f·T + θ̂(n u_i/T_u − 1))² / (n(n − 1)), T and T_u summed
    over the units' rows with math.fsum."""
    column, units = core.gwet_design()
    stats = core.item_stats()
    stats = stats.toarray() if sp.issparse(stats) else np.asarray(stats, dtype=float)
    rows = stats[units]
    n = rows.shape[0]
    totals = np.array([math.fsum(rows[:, j]) for j in range(rows.shape[1])])
    gradient = core.value_gradient(totals)
    value = float(np.asarray(core.combine(totals)["value"]).reshape(-1)[0])
    u = rows[:, column]
    terms = n * (rows @ gradient) - gradient @ totals + value * (n * u / math.fsum(u) - 1.0)
    return math.sqrt(math.fsum(terms ** 2) / (n * (n - 1)))


def irrcac(x, method, weights="identity"):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # irrCAC's own pandas warnings
        return getattr(CAC(pd.DataFrame(x), weights=weights, categories=CATEGORIES,
                           digits=15), method)()["est"]


CASES = {
    "missing cells": dict(seed=0),
    "complete": dict(seed=1, missing=0.0),
    "singly-rated items": dict(seed=2, single=9),
    "items without annotations": dict(seed=3, single=4, empty=5),
    "two raters": dict(seed=4, n_raters=2, missing=0.0),
}


@pytest.mark.parametrize("weights, irr_weights", WEIGHTS)
@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("method", list(GWET))
def test_gwet_se_is_his_formula_and_irrcacs(method, case, weights, irr_weights):
    estimator, entry = GWET[method]
    x = ratings(**CASES[case])
    est = estimator(x, weights=weights, categories=CATEGORIES, ci="gwet")
    core = FAMILY[entry].core_of(x, weights, categories=CATEGORIES)
    assert est.se == pytest.approx(gwet_se_by_his_formula(core), abs=1e-12, rel=1e-12)
    reference = irrcac(x[~np.isnan(x).all(axis=1)], method, irr_weights)
    assert est.value == pytest.approx(reference["coefficient_value"], abs=1e-12)
    assert est.se == pytest.approx(reference["se"], abs=1e-12)
    low, high = reference["confidence_interval"]
    assert est.ci[0] == pytest.approx(low, abs=1e-12)
    assert est.ci[1] == pytest.approx(high, abs=1e-12)


@pytest.mark.parametrize("method", list(GWET))
def test_gwet_se_with_sample_weights_is_his_formula(method):
    estimator, entry = GWET[method]
    x = ratings(5, single=6, empty=2)
    w = np.random.default_rng(5).uniform(0.2, 3.0, size=x.shape[0])
    w[[3, 10, 20]] = 0.0  # a singly-rated item and two pairable ones left out
    for weights, _ in WEIGHTS:
        est = estimator(x, weights=weights, categories=CATEGORIES, sample_weight=w, ci="gwet")
        core = FAMILY[entry].core_of(x, weights, categories=CATEGORIES, sample_weight=w)
        assert est.se == pytest.approx(gwet_se_by_his_formula(core), abs=1e-12, rel=1e-12)


def test_gwet_se_of_unanimous_raters_and_of_one_used_category():
    x = np.repeat(np.array([[0.0], [1.0], [2.0], [1.0], [3.0]]), 4, axis=1)
    x[0, 1] = np.nan
    for method, (estimator, _) in GWET.items():
        est = estimator(x, categories=CATEGORIES, ci="gwet")
        reference = irrcac(x, method)
        assert est.value == pytest.approx(reference["coefficient_value"], abs=1e-12)
        assert est.se == pytest.approx(reference["se"], abs=1e-12)
    # one category used: Gwet's AC1 is defined (P_e = 0 … here 1·0/3): irrCAC's value and SE
    one = np.zeros((6, 3))
    one[1, 2] = np.nan
    est = kl.gwet_ac(one, categories=CATEGORIES, ci="gwet")
    reference = irrcac(one, "gwet")
    assert est.value == pytest.approx(reference["coefficient_value"], abs=1e-12)
    assert est.se == pytest.approx(reference["se"], abs=1e-12)


def test_gwet_se_needs_two_units():
    x = np.full((3, 3), np.nan)
    x[0] = [1.0, 1.0, 2.0]
    with pytest.raises(kl.errors.InvalidParameterError,
                       match="an interval needs at least two items with annotations, got 1"):
        kl.gwet_ac(x, ci="gwet")


def test_t_quantile_is_scipys():
    for df in (1, 2, 3, 9, 10, 29, 99, 1000, 10**6, 2.5):
        for p in (0.5, 0.8, 0.9, 0.95, 0.975, 0.995, 0.9995, 1e-9, 0.025):
            assert _t_quantile(p, df) == float(student_t.ppf(p, df))
    assert math.isnan(_t_quantile(0.975, 0)) and math.isnan(float(student_t.ppf(0.975, 0)))
    assert _t_quantile(1.0, 5) == math.inf
