"""The peer options that the other oracle tests leave out, each against the peer on random data.

The README's parity table ("Coming from another library") lists every coefficient and option
of irrCAC, ``krippendorff``, statsmodels, scikit-learn and nltk with its kappalab equivalent
and the test that compares the two. Most rows are covered by ``tests/test_oracles.py``,
``tests/test_analytic_se.py``, ``tests/test_weights.py``, ``tests/test_benchmark.py``,
``tests/test_estimate.py`` and ``tests/test_sample_weight.py``; this file covers the rest:

* irrCAC's ``table.CAC`` (a two-rater contingency table): Cohen, Scott, Gwet, Brennan–Prediger,
  Krippendorff and percent agreement (``pa2``) with all eight weights, values and standard
  errors;
* irrCAC's ``raw.CAC`` with ``confidence_level`` other than 0.95, ``bp()``'s p-value, and
  ``krippendorff()`` with the kappa-family weights (linear, radical, ordinal, a custom
  matrix) that are no Krippendorff metric;
* irrCAC's ``Benchmark.regier()``, ``.cicchetti_sparrow()`` and ``.interpret(custom)``;
* ``krippendorff.alpha`` with a callable ``level_of_measurement``;
* statsmodels' ``cohens_kappa(wt="toeplitz")``, ``to_table``, ``aggregate_raters(n_cat=)``
  and ``fleiss_kappa(method="uniform")``;
* nltk's pairwise methods (``kappa_pairwise``, ``Ao``, ``Ae_kappa``,
  ``weighted_kappa_pairwise``, ``Do_Kw_pairwise``, ``Do_Kw``) and ``alpha`` with a custom
  ``distance``.

Tolerances: 1e-9 for values and standard errors everywhere (irrCAC is asked for
``digits=15``; its default rounds to 5 decimals, which one check compares at 5e-6). Each check
runs on many random tables (fixed seeds) and asserts how many comparisons it made, so that a
check cannot pass by comparing nothing.
"""

from __future__ import annotations

import warnings
from itertools import combinations

import numpy as np
import pandas as pd
import pytest
from scipy.linalg import toeplitz
from scipy.stats import t as student_t

import kappalab as kl
from kappalab.interpretation import InterpretationScale, interpretation_scale

# hard imports: a missing oracle fails the suite instead of skipping it
import irrCAC.benchmark as irrcac_benchmark
import irrCAC.raw as irrcac_raw
import irrCAC.table as irrcac_table
from irrCAC.weights import Weights
import krippendorff
from nltk.metrics.agreement import AnnotationTask
from nltk.metrics.distance import interval_distance
import statsmodels.stats.inter_rater as sm_inter_rater

TOL = 1e-9
WEIGHT_NAMES = ("identity", "linear", "quadratic", "ordinal", "radical", "ratio", "circular",
                "bipolar")
SEEDS = range(12)


def quiet(fn, *args, **kwargs):
    """Call a peer with its own warnings (pandas, numpy) silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return fn(*args, **kwargs)


def ratings(seed: int, *, n_raters: int | None = None, missing: float = 0.0,
            pairable: bool = True) -> tuple[np.ndarray, list[int]]:
    """items × raters with some agreement, categories 1..K (some possibly unused), NaN missing.

    With ``pairable`` every item keeps two annotations (the first two raters' cells are filled
    from the item's latent category where missing), so that Gwet's standard error and
    kappalab's coincide (``tests/test_analytic_se.py``)."""
    rng = np.random.default_rng(seed)
    n_items = int(rng.integers(20, 70))
    R = int(rng.integers(2, 6)) if n_raters is None else n_raters
    K = int(rng.integers(2, 7))
    truth = rng.integers(1, K + 1, size=n_items)
    x = np.where(rng.random((n_items, R)) < rng.uniform(0.4, 0.9), truth[:, None],
                 rng.integers(1, K + 1, size=(n_items, R))).astype(float)
    if missing:
        x[rng.random(x.shape) < missing] = np.nan
        if pairable:
            x[:, :2] = np.where(np.isnan(x[:, :2]), truth[:, None], x[:, :2])
    return x, list(range(1, K + 1))


def num(value) -> float:
    """A number irrCAC reports, as a float (its Gwet methods return 1-element arrays)."""
    return float(np.ravel(value)[0])


def degenerate(x: np.ndarray) -> bool:
    """One category only among the annotations: every chance-corrected coefficient is 0/0."""
    return np.unique(x[~np.isnan(x)]).size < 2


def contingency(x: np.ndarray, categories: list[int]) -> pd.DataFrame:
    """The K × K table of two raters (rows: rater 1), as irrCAC's ``table.CAC`` reads it."""
    K = len(categories)
    table = np.zeros((K, K))
    np.add.at(table, (x[:, 0].astype(int) - 1, x[:, 1].astype(int) - 1), 1)
    return pd.DataFrame(table, index=categories, columns=categories)


# ============================================================================ irrCAC.table
#: irrCAC.table method → kappalab two-rater estimator (given the n × 2 pairs)
TABLE_METHODS = {
    "cohen": lambda x, **kw: kl.cohen_kappa(x[:, 0], x[:, 1], **kw),
    "scott": lambda x, **kw: kl.scott_pi(x[:, 0], x[:, 1], **kw),
    "bp": lambda x, **kw: kl.bennett_s(x[:, 0], x[:, 1], **kw),
    "gwet": lambda x, **kw: kl.gwet_ac(x, **kw),
    "pa2": lambda x, **kw: kl.percent_agreement(x, **kw),
}
#: irrCAC weights ↔ the Krippendorff metric that is the same α (``level=``)
ALPHA_LEVELS = {"identity": "nominal", "quadratic": "interval", "ratio": "ratio",
                "circular": "circular", "bipolar": "bipolar"}


def alpha_level(weights: str, categories: list[int]):
    """α's level for irrCAC's weights: its metric where there is one, else δ² = 1 − w."""
    if weights in ALPHA_LEVELS:
        return ALPHA_LEVELS[weights]
    return 1 - Weights(categories)[weights]


@pytest.mark.parametrize("weights", WEIGHT_NAMES)
def test_irrcac_table_equals_the_two_rater_coefficients(weights):
    """irrCAC's ``table.CAC(table, weights=)`` on a K × K table of two raters (categories 1..K,
    weights on those positions) against kappalab on the same pairs, table expanded.

    value, pa, pe: equal (irrCAC reports pe = 0 for Scott's π and for pa2, so pe is compared
    for the others). Standard errors: irrCAC's table formulas divide by n where its raw-data
    formulas and kappalab divide by n − 1, so kappalab's SE × √((n − 1)/n) is irrCAC's; for
    α, kappalab's SE is also (1 − 1/N) times Gwet's (N = 2n annotations, as for raw data).
    irrCAC's interval is value ± t_{n−1}·SE (upper end capped at 1) with its SE."""
    compared = 0
    for seed in SEEDS:
        x, categories = ratings(seed, n_raters=2)
        if degenerate(x):
            continue
        n = x.shape[0]
        shrink = np.sqrt((n - 1) / n)
        cac = irrcac_table.CAC(contingency(x, categories), weights=weights, digits=15)
        w = None if weights == "identity" else weights
        for method, estimator in TABLE_METHODS.items():
            theirs = quiet(getattr(cac, method))["est"]
            ours = estimator(x, weights=w, categories=categories, ci="analytic")
            what = f"seed {seed} {method} {weights}"
            assert ours.value == pytest.approx(num(theirs["coefficient_value"]), abs=TOL), what
            assert ours.observed == pytest.approx(num(theirs["pa"]), abs=TOL), what
            if method not in ("scott", "pa2"):
                assert ours.expected == pytest.approx(num(theirs["pe"]), abs=TOL), what
            assert ours.se * shrink == pytest.approx(num(theirs["se"]), rel=TOL), what
            half = student_t.ppf(0.975, n - 1) * ours.se * shrink
            low, high = (float(v) for v in np.ravel(theirs["confidence_interval"]))
            assert low == pytest.approx(ours.value - half, abs=TOL), what
            assert high == pytest.approx(min(ours.value + half, 1.0), abs=TOL), what
            compared += 1
        theirs = quiet(cac.krippendorff)["est"]
        ours = kl.krippendorff_alpha(x, level=alpha_level(weights, categories),
                                     categories=categories, ci="analytic")
        assert ours.value == pytest.approx(num(theirs["coefficient_value"]), abs=TOL), seed
        assert ours.se == pytest.approx((1 - 1 / (2 * n)) / shrink * num(theirs["se"]),
                                        rel=TOL), seed
        compared += 1
    assert compared >= 10 * (len(TABLE_METHODS) + 1)


def test_irrcac_table_default_rounding():
    """irrCAC's default ``digits=5``: kappalab's value rounds to irrCAC's printed one."""
    compared = 0
    for seed in SEEDS:
        x, categories = ratings(seed, n_raters=2)
        if degenerate(x):
            continue
        cac = irrcac_table.CAC(contingency(x, categories))
        assert kl.cohen_kappa(x, categories=categories).value == pytest.approx(
            quiet(cac.cohen)["est"]["coefficient_value"], abs=5e-6)
        assert kl.gwet_ac(x, categories=categories).value == pytest.approx(
            quiet(cac.gwet)["est"]["coefficient_value"], abs=5e-6)
        compared += 1
    assert compared >= 10


# ============================================================================ irrCAC.raw
@pytest.mark.slow
@pytest.mark.parametrize("confidence", [0.90, 0.99])
def test_irrcac_raw_confidence_level(confidence):
    """``CAC(confidence_level=)`` ↔ ``confidence=`` with ``ci="analytic"``: the same interval
    value ± t_{n−1}·SE (upper end capped at 1), missing cells included (every item keeps two
    annotations, where the two standard errors coincide)."""
    methods = {"fleiss": kl.fleiss_kappa, "conger": kl.conger_kappa, "gwet": kl.gwet_ac,
               "bp": kl.brennan_prediger}
    compared = 0
    for seed in SEEDS:
        x, categories = ratings(100 + seed, missing=0.25)
        if degenerate(x):
            continue
        cac = irrcac_raw.CAC(pd.DataFrame(x), categories=categories,
                             confidence_level=confidence, digits=15)
        for method, estimator in methods.items():
            theirs = quiet(getattr(cac, method))["est"]
            ours = estimator(x, categories=categories, ci="analytic", confidence=confidence)
            low, high = (float(v) for v in np.ravel(theirs["confidence_interval"]))
            assert ours.ci[0] == pytest.approx(low, abs=TOL), (seed, method)
            assert min(ours.ci[1], 1.0) == pytest.approx(high, abs=TOL), (seed, method)
            compared += 1
    assert compared >= 40


def test_irrcac_raw_brennan_prediger_p_value_is_one_sided():
    """irrCAC's ``bp()`` reports 1 − F_t(|z|) without the factor 2 its other methods have;
    kappalab's two-sided p-value of the same t statistic is twice it (z and SE equal)."""
    compared = 0
    for seed in SEEDS:
        x, categories = ratings(150 + seed, missing=0.25)
        if degenerate(x):
            continue
        theirs = quiet(irrcac_raw.CAC(pd.DataFrame(x), categories=categories, digits=15).bp)
        ours = kl.brennan_prediger(x, categories=categories, ci="analytic")
        assert ours.z == pytest.approx(num(theirs["est"]["z"]), rel=TOL), seed
        assert ours.p_value == pytest.approx(2 * num(theirs["est"]["p_value"]), abs=TOL), seed
        compared += 1
    assert compared >= 10


@pytest.mark.parametrize("weights", ["linear", "radical", "ordinal", "radical matrix"])
def test_irrcac_raw_alpha_with_kappa_weights(weights):
    """irrCAC's ``krippendorff()`` with weights that are no Krippendorff metric is α with the
    disagreement δ² = 1 − w (α is invariant to the scale of δ²): ``level=1 - W``; with
    missing cells, single-annotation items included."""
    compared = 0
    for seed in SEEDS:
        x, categories = ratings(200 + seed, missing=0.3, pairable=False)
        m = (~np.isnan(x)).sum(axis=1)
        if degenerate(x[m >= 2]):
            continue
        W = Weights(categories)[weights.replace(" matrix", "")]
        spec = W if weights.endswith("matrix") else weights.replace(" matrix", "")
        theirs = quiet(irrcac_raw.CAC(pd.DataFrame(x), weights=spec, categories=categories,
                                      digits=15).krippendorff)["est"]
        ours = kl.krippendorff_alpha(x, level=1 - W, categories=categories)
        assert ours.value == pytest.approx(num(theirs["coefficient_value"]), abs=TOL), seed
        compared += 1
    assert compared >= 10


# ============================================================================ irrCAC.benchmark
#: irrCAC's further scales, as kappalab InterpretationScales (bands from the lowest up)
OTHER_SCALES = {
    "regier": InterpretationScale(
        "regier", "Regier et al. (2013)",
        ("Unacceptable", "Questionable", "Good", "Very Good", "Excellent"),
        (0.2, 0.4, 0.6, 0.8), (True, True, True, True), "Regier et al. (2013)"),
    "cicchetti_sparrow": InterpretationScale(
        "cicchetti-sparrow", "Cicchetti & Sparrow (1981)", ("Poor", "Fair", "Good", "Excellent"),
        (0.4, 0.6, 0.75), (True, True, True), "Cicchetti & Sparrow (1981)"),
}
POINTS = [(0.67, 0.15), (0.3, 0.2), (0.85, 0.05), (0.1, 0.3), (0.55, 0.08), (-0.1, 0.1)]


def _unrounded(method, value, se, monkeypatch, *args):
    """irrCAC's cumulative probabilities without its ``round(p, 5)``."""
    with monkeypatch.context() as patch:
        patch.setattr(irrcac_benchmark, "round", lambda p, digits: p, raising=False)
        out = getattr(irrcac_benchmark.Benchmark(value, se), method)(*args)
    return np.array([float(p) for p in out["CumProb"]])


@pytest.mark.parametrize("method", list(OTHER_SCALES))
def test_irrcac_regier_and_cicchetti_sparrow_as_custom_scales(method, monkeypatch):
    """``Benchmark(κ, se).regier()`` / ``.cicchetti_sparrow()`` ↔ ``kl.interpret((κ, se),
    InterpretationScale(...))``: the same truncated-normal band probabilities, cumulated from
    the top band down. irrCAC's lowest band of these two scales starts at 0, kappalab's at −1,
    so the last cumulative probability differs (irrCAC's is P(κ ≥ 0), kappalab's 1) and
    every other one is equal."""
    below_one = 0
    for value, se in POINTS:
        theirs = _unrounded(method, value, se, monkeypatch)
        ours = np.array(kl.interpret((value, se), OTHER_SCALES[method]).cumulative_probabilities)
        np.testing.assert_allclose(ours[:-1], theirs[:-1], rtol=0, atol=1e-10)
        assert ours[-1] == 1.0 and theirs[-1] <= 1.0
        below_one += theirs[-1] < 0.99
        rounded = getattr(irrcac_benchmark.Benchmark(value, se), method)()["CumProb"]
        np.testing.assert_allclose(ours[:-1], rounded[:-1], rtol=0, atol=5e-6)
    assert below_one >= 3  # points where P(κ < 0) is not negligible, so the ends differ


def test_irrcac_interpret_custom_dict(monkeypatch):
    """``Benchmark.interpret(dict(lb=, ub=, interp=, scale_name=))`` on kappalab's
    Krippendorff (2004) scale: every cumulative probability equal."""
    scale = interpretation_scale("krippendorff")
    limits = scale.limits()[::-1]  # irrCAC lists bands from the top down
    bench = dict(lb=[low for low, _ in limits], ub=[high for _, high in limits],
                 interp=list(scale.labels[::-1]), scale_name="Krippendorff")
    for value, se in POINTS:
        theirs = _unrounded("interpret", value, se, monkeypatch, bench)
        ours = kl.interpret((value, se), "krippendorff").cumulative_probabilities
        np.testing.assert_allclose(ours, theirs, rtol=0, atol=1e-10)


# ============================================================================ krippendorff
def _root_metric(v1, v2, i1, i2, n_v, dtype=np.float64):
    """A user metric in krippendorff's signature: δ² = √|a − b|."""
    return np.abs(v1 - v2).astype(dtype) ** 0.5


def _rank_metric(v1, v2, i1, i2, n_v, dtype=np.float64):
    """A metric on the positions in value_domain: δ² = |i − j|³."""
    return np.abs(i1 - i2).astype(dtype) ** 3


def test_krippendorff_callable_level_of_measurement():
    """``alpha(level_of_measurement=callable)`` ↔ ``level=`` a callable δ²(a, b) of the category
    values, or a K × K matrix of δ²; raters × items with missing cells."""
    compared = 0
    for seed in SEEDS:
        x, categories = ratings(300 + seed, missing=0.3, pairable=False)
        m = (~np.isnan(x)).sum(axis=1)
        if degenerate(x[m >= 2]):
            continue
        theirs = krippendorff.alpha(reliability_data=x.T, value_domain=categories,
                                    level_of_measurement=_root_metric)
        ours = kl.krippendorff_alpha(x, level=lambda a, b: abs(a - b) ** 0.5,
                                     categories=categories)
        assert ours.value == pytest.approx(theirs, abs=TOL), seed
        ranks = np.arange(len(categories))
        theirs = krippendorff.alpha(reliability_data=x.T, value_domain=categories,
                                    level_of_measurement=_rank_metric)
        ours = kl.krippendorff_alpha(x, level=np.abs(ranks[:, None] - ranks) ** 3.0,
                                     categories=categories)
        assert ours.value == pytest.approx(theirs, abs=TOL), seed
        compared += 1
    assert compared >= 10


# ============================================================================ statsmodels
def test_statsmodels_toeplitz_weights():
    """``cohens_kappa(table, weights=v, wt="toeplitz")`` uses the disagreement matrix
    D = toeplitz(v); kappalab takes agreement weights, W = 1 − D/max D (weighted κ does not
    change with the scale of D). Values equal; standard errors as for every weighting:
    kappalab's × √((n − 1)/n) is statsmodels' ``std_kappa``."""
    compared = 0
    for seed in SEEDS:
        x, categories = ratings(400 + seed, n_raters=2)
        if degenerate(x):
            continue
        K, n = len(categories), x.shape[0]
        v = np.concatenate([[0.0], np.sort(np.random.default_rng(seed).uniform(0, 5, K - 1))])
        D = toeplitz(v)
        theirs = sm_inter_rater.cohens_kappa(contingency(x, categories).to_numpy(), weights=v,
                                             wt="toeplitz")
        ours = kl.cohen_kappa(x, weights=1 - D / D.max(), categories=categories, ci="analytic")
        assert ours.value == pytest.approx(theirs["kappa"], abs=TOL), seed
        assert ours.se * np.sqrt((n - 1) / n) == pytest.approx(theirs["std_kappa"], rel=TOL)
        compared += 1
    assert compared >= 10


def test_statsmodels_to_table_aggregate_raters_and_uniform():
    """``to_table(data)`` → ``cohens_kappa``: kappalab reads the two columns directly;
    ``aggregate_raters(data, n_cat=)`` is ``Annotations.counts`` with ``categories=`` 0..n_cat−1
    (columns nobody used included); ``fleiss_kappa(method="uniform")`` (= "randolph") is
    Brennan–Prediger over those n_cat categories."""
    compared = 0
    for seed in SEEDS:
        x, categories = ratings(500 + seed)
        if degenerate(x):
            continue
        codes = x.astype(int) - 1  # statsmodels' n_cat= reads the categories as 0..n_cat−1
        n_cat = len(categories) + 1  # one more category than the data can use
        table, _ = sm_inter_rater.to_table(codes[:, :2])
        if np.unique(codes[:, :2]).size >= 2:
            theirs = sm_inter_rater.cohens_kappa(table, return_results=False)
            assert kl.cohen_kappa(codes[:, :2]).value == pytest.approx(theirs, abs=TOL), seed
        counts, _ = sm_inter_rater.aggregate_raters(codes, n_cat=n_cat)
        ann = kl.Annotations.from_wide(codes, categories=list(range(n_cat)))
        np.testing.assert_array_equal(ann.counts.to_numpy(), counts)
        assert kl.brennan_prediger(ann).value == pytest.approx(
            sm_inter_rater.fleiss_kappa(counts, method="uniform"), abs=TOL)
        compared += 1
    assert compared >= 10


# ============================================================================ nltk
def _task(x: np.ndarray, distance=None) -> AnnotationTask:
    rows, cols = np.nonzero(~np.isnan(x))
    data = [(f"c{c}", f"i{i}", int(x[i, c])) for i, c in zip(rows, cols)]
    return AnnotationTask(data=data) if distance is None else AnnotationTask(data, distance)


def test_nltk_pairwise_methods():
    """On complete data (nltk divides by the number of items for every pair):
    ``kappa_pairwise(a, b)``, ``Ao(a, b)``, ``Ae_kappa(a, b)`` are Cohen's κ of the pair and its
    ``observed`` and ``expected``; ``weighted_kappa_pairwise`` with ``interval_distance`` is
    Cohen's κ with quadratic weights; ``Do_Kw_pairwise`` / ``Do_Kw`` with ``max_distance`` =
    (x_max − x_min)² are 1 − the quadratic-weighted observed agreement of the pair / of
    ``percent_agreement``."""
    compared = 0
    for seed in SEEDS:
        x, _ = ratings(600 + seed)
        pairs = list(combinations(range(x.shape[1]), 2))
        if any(np.unique(x[:, list(p)]).size < 2 for p in pairs):
            continue  # nltk's κ of a pair with one category is 0/0
        task, itask = _task(x), _task(x, interval_distance)
        values = np.unique(x)
        scale = (values.max() - values.min()) ** 2
        for g, h in pairs:
            a, b = f"c{g}", f"c{h}"
            cohen = kl.cohen_kappa(x[:, [g, h]])
            assert cohen.value == pytest.approx(task.kappa_pairwise(a, b), abs=TOL)
            assert cohen.observed == pytest.approx(task.Ao(a, b), abs=TOL)
            assert cohen.expected == pytest.approx(task.Ae_kappa(a, b), abs=TOL)
            weighted = kl.cohen_kappa(x[:, [g, h]], categories=list(values), weights="quadratic")
            assert weighted.value == pytest.approx(itask.weighted_kappa_pairwise(a, b), abs=TOL)
            assert 1 - weighted.observed == pytest.approx(
                itask.Do_Kw_pairwise(a, b, max_distance=scale), abs=TOL)
        assert 1 - kl.percent_agreement(x, weights="quadratic").value == pytest.approx(
            itask.Do_Kw(max_distance=scale), abs=TOL)
        compared += 1
    assert compared >= 10


def test_nltk_alpha_with_a_custom_distance():
    """``AnnotationTask(data, distance=f).alpha()`` uses f as δ²: ``level=f`` (vectorised);
    missing cells and single-annotation items included."""
    compared = 0
    for seed in SEEDS:
        x, _ = ratings(700 + seed, missing=0.3, pairable=False)
        m = (~np.isnan(x)).sum(axis=1)
        if degenerate(x[m >= 2]):
            continue
        for distance in (lambda a, b: abs(a - b) ** 0.5, lambda a, b: float(abs(a - b) > 1)):
            values = np.unique(x[m >= 2][~np.isnan(x[m >= 2])])
            if not any(distance(a, b) for a, b in combinations(values, 2)):
                continue  # every pair of pairable values at distance 0: D_e = 0
            # kappalab evaluates the callable once on arrays of categories: a scalar-only
            # function (as nltk's may be) goes through np.vectorize
            ours = kl.krippendorff_alpha(x, level=np.vectorize(distance))
            assert ours.value == pytest.approx(_task(x, distance).alpha(), abs=TOL), seed
            compared += 1
    assert compared >= 20
