"""The ICC's short paths against the general ones they replace and against pingouin: the
complete items found by counting (against np.unique written out), the totals summed without
the items × (3 + k) statistics (against the spine's ``column_totals`` of them, and math.fsum),
the F probabilities and quantiles from scipy.special (against scipy.stats, exactly), and
one ANOVA shared by the six forms (against pingouin and against one form at a time)."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import f as f_dist

import kappalab as kl
from kappalab.coefficients.icc import (FORMS, IntraclassCorrelationCore, _complete_ratings,
                                       _f_ppf, _f_sf, icc_core)
from kappalab.errors import IncompleteItemsWarning
from kappalab.kernels import column_totals

pg = pytest.importorskip("pingouin")


@pytest.fixture
def unrounded_pingouin(monkeypatch):
    monkeypatch.delitem(pg.options, "round.column.CI95", raising=False)
    return pg


def ratings(seed, n, k, missing=0.0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1)) * 1.5 + rng.normal(size=(1, k)) + rng.normal(size=(n, k))
    x = np.round(x, 1)  # ties, as real ratings have
    x[rng.random(x.shape) < missing] = np.nan
    return x


def complete_by_unique(ann):
    """The complete ratings as np.unique finds them (the general path)."""
    values = ann.category_values("the ICC")
    items, raters, cats = ann.codes()
    rater_set, rater_position = np.unique(raters, return_inverse=True)
    k = rater_set.size
    m = np.bincount(items, minlength=ann.n_items)
    complete = m[items] == k
    kept, item_position = np.unique(items[complete], return_inverse=True)
    x = np.full((kept.size, k), np.nan)
    x[item_position, rater_position[complete]] = values[cats[complete]]
    return x, kept, int((m > 0).sum()) - kept.size


@pytest.mark.parametrize("case", ["complete", "missing", "empty rater", "empty items",
                                  "long, shuffled"])
def test_complete_items_are_np_uniques(case):
    x = ratings(1, 40, 5, missing=0.0 if case == "complete" else 0.08)
    if case == "empty rater":
        x[:, 2] = np.nan  # a rater without annotations is no rater
    if case == "empty items":
        x[[3, 9]] = np.nan
    if case == "long, shuffled":
        frame = pd.DataFrame(x).rename_axis("item").reset_index().melt(
            id_vars="item", var_name="rater", value_name="value").dropna()
        frame["rater"] = frame["rater"].map(lambda j: f"r{'edcba'[j]}")
        ann = kl.Annotations.from_long(frame.sample(frac=1.0, random_state=2))
    else:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ann = kl.Annotations.from_wide(x)
    ours, kept, dropped = _complete_ratings(ann)
    theirs, kept_theirs, dropped_theirs = complete_by_unique(ann)
    np.testing.assert_array_equal(ours, theirs)
    np.testing.assert_array_equal(kept, kept_theirs)
    assert dropped == dropped_theirs
    assert not np.isnan(ours).any()


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("shape", [(2, 2), (7, 3), (300, 4), (1000, 9)])
def test_totals_are_the_spines_and_exact_sums(shape, weighted):
    x = ratings(shape[0], *shape) * 1e3 + 5e4  # scaled and centred by the core
    w = np.random.default_rng(3).uniform(0, 4, size=shape[0]) if weighted else None
    if weighted:
        w[0] = 0.0
    core = IntraclassCorrelationCore(x, sample_weight=w)
    stats = core.unweighted_item_stats()
    general = column_totals(stats, w)
    exact = np.array([math.fsum((stats[:, j] if w is None else stats[:, j] * w))
                      for j in range(stats.shape[1])])
    ours = core.totals()
    np.testing.assert_allclose(ours, general, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(ours, exact, rtol=1e-13, atol=1e-13)
    # and the value from them is the value from the general totals
    for form in FORMS:
        one = core.with_form(form)
        assert float(one.combine(ours)["value"]) == pytest.approx(
            float(one.combine(general)["value"]), abs=1e-12, nan_ok=True)


def test_totals_follow_new_sample_weights():
    x = ratings(4, 30, 3)
    core = IntraclassCorrelationCore(x)
    before = core.totals()
    assert not before.flags.writeable
    w = np.arange(30, dtype=float) % 4  # Σ w = 42, not 30
    core.set_sample_weight(w, 30)
    after = core.totals()
    np.testing.assert_allclose(after, column_totals(core.unweighted_item_stats(), w),
                               rtol=1e-13)
    assert after[0] == w.sum() != before[0]


def test_f_probabilities_and_quantiles_are_scipys():
    for df1, df2 in [(1, 1), (1, 30), (5, 12), (29, 58), (3.7, 11.2), (999, 2997), (2, 1e6)]:
        for x in (1e-300, 1e-8, 0.3, 1.0, 2.5, 40.0, 1e6, 1e300):
            assert _f_sf(x, df1, df2) == float(f_dist.sf(x, df1, df2))
        for q in (1e-12, 0.025, 0.5, 0.95, 0.975, 0.995, 1 - 1e-12):
            assert _f_ppf(q, df1, df2) == f_dist.ppf(q, df1, df2)
    # the edges go through scipy.stats
    assert _f_sf(math.inf, 3, 4) == 0.0 and _f_sf(0.0, 3, 4) == 1.0
    assert math.isnan(_f_sf(math.nan, 3, 4)) and math.isnan(_f_sf(2.0, 0.0, 4))
    assert _f_ppf(1.0, 3, 4) == math.inf and _f_ppf(0.0, 3, 4) == 0.0
    assert math.isnan(_f_ppf(0.5, 3, -1))


@pytest.mark.parametrize("n, k, missing", [(5, 2, 0.0), (40, 3, 0.0), (120, 6, 0.05),
                                           (2000, 4, 0.01)])
def test_icc_table_is_pingouins_and_each_forms(unrounded_pingouin, n, k, missing):
    x = ratings(n + k, n, k, missing)
    frame = pd.DataFrame(x).rename_axis("target").reset_index().melt(
        id_vars="target", var_name="rater", value_name="rating")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", IncompleteItemsWarning)
        warnings.simplefilter("ignore", kl.errors.DroppedAnnotationsWarning)
        ours = kl.icc_table(x)
        theirs = pg.intraclass_corr(frame, targets="target", raters="rater",
                                    ratings="rating", nan_policy="omit")
        bounds = np.vstack(theirs["CI95"].to_numpy())
        np.testing.assert_allclose(ours["value"], theirs["ICC"], rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(ours["ci_low"], bounds[:, 0], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ours["ci_high"], bounds[:, 1], rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(ours["F"], theirs["F"], rtol=1e-12)
        np.testing.assert_allclose(ours["p_value"], theirs["pval"], rtol=1e-9, atol=1e-300)
        for row in ours.itertuples():
            est = kl.icc(x, form=row.form, ci="F")
            assert est.value == row.value and est.ci == (row.ci_low, row.ci_high)
            assert est.details["F"] == row.F and est.details["F_p_value"] == row.p_value
            # a core built afresh for the form, its totals summed the general way
            core = icc_core(x, form=row.form)
            general = column_totals(core.unweighted_item_stats())
            assert float(core.combine(general)["value"]) == pytest.approx(row.value,
                                                                          abs=1e-12)


def test_the_f_test_follows_the_confidence_and_the_form():
    x = ratings(9, 25, 3)
    core = icc_core(x, form="ICC(1,1)")
    narrow, wide = core.f_test(0.8)["ci"], core.f_test(0.99)["ci"]
    assert wide[0] < narrow[0] < narrow[1] < wide[1]
    other = core.with_form("ICC(3,k)")
    assert other.f_test(0.8)["ci"] != narrow
    assert core.f_test(0.8)["ci"] == narrow  # unchanged by its copy's
    # a test's dictionary is the caller's to change
    core.f_test(0.8)["F"] = -1.0
    assert core.f_test(0.8)["F"] > 0
