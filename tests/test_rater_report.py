"""kl.rater_report against recomputation from scratch: each rater literally dropped and the
coefficient recomputed with the public estimator (and with the ``krippendorff`` package), κx
of each rater against the rest from two replications built by hand and passed to
``kl.cross_kappa`` (and, for two raters, scikit-learn's Cohen's κ), the label columns by
pandas group-bys and the correlation by numpy, on random data with missing cells."""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import cohen_kappa_score

import kappalab as kl
from kappalab.errors import (InvalidParameterError, RaterCountError, UnknownRatersError)

#: public estimator of each named coefficient, and the weights= that match level=
ESTIMATORS = {
    "alpha": lambda ann, level: kl.krippendorff_alpha(ann, level=level),
    "fleiss": lambda ann, level: kl.fleiss_kappa(ann, weights=WEIGHTS[level]),
    "conger": lambda ann, level: kl.conger_kappa(ann, weights=WEIGHTS[level]),
    "gwet": lambda ann, level: kl.gwet_ac(ann, weights=WEIGHTS[level]),
    "brennan_prediger": lambda ann, level: kl.brennan_prediger(ann, weights=WEIGHTS[level]),
    "percent_agreement": lambda ann, level: kl.percent_agreement(ann, weights=WEIGHTS[level]),
}
#: Krippendorff's interval metric is quadratic weighting for the κ family (δ ∝ (c − k)²)
WEIGHTS = {"nominal": None, "interval": "quadratic"}


def panel(seed: int, n_items: int = 60, n_raters: int = 7, n_categories: int = 4,
          missing: float = 0.45) -> pd.DataFrame:
    """Items × raters ratings 1..K, a noisy copy of a per-item truth, with missing cells."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, n_categories + 1, n_items)
    noise = rng.integers(1, n_categories + 1, (n_items, n_raters))
    table = np.where(rng.random((n_items, n_raters)) < 0.6, truth[:, None], noise).astype(float)
    table[rng.random(table.shape) < missing] = np.nan
    return pd.DataFrame(table, columns=[f"r{j}" for j in range(n_raters)])


def without(ann: kl.Annotations, g: int) -> kl.Annotations:
    return ann.subset_raters([r for r in range(ann.n_raters) if r != g])


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


@pytest.mark.parametrize("level", ["nominal", "interval"])
@pytest.mark.parametrize("coefficient", list(ESTIMATORS))
def test_without_each_rater_is_the_estimator_on_the_others(level, coefficient):
    ann = kl.Annotations.from_wide(panel(seed=len(coefficient) + len(level)))
    report = kl.rater_report(ann, level=level, coefficient=coefficient)
    full = float(quiet(ESTIMATORS[coefficient], ann, level))
    assert report.attrs["full"] == pytest.approx(full, abs=1e-12)
    for g in range(ann.n_raters):
        expected = float(quiet(ESTIMATORS[coefficient], without(ann, g), level))
        assert report["without"][g] == pytest.approx(expected, abs=1e-12)
        assert report["change"][g] == pytest.approx(expected - full, abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "interval", "ordinal"])
def test_alpha_without_each_rater_matches_the_krippendorff_package(level):
    table = panel(seed=11)
    report = kl.rater_report(table, level=level)
    assert report.attrs["full"] == pytest.approx(
        krippendorff.alpha(reliability_data=table.to_numpy().T, level_of_measurement=level),
        abs=1e-10)
    for g, column in enumerate(table.columns):
        theirs = krippendorff.alpha(reliability_data=table.drop(columns=column).to_numpy().T,
                                    level_of_measurement=level)
        assert report["without"][g] == pytest.approx(theirs, abs=1e-10)


@pytest.mark.parametrize("level", ["nominal", "interval", "ratio", "ordinal"])
def test_kappa_x_is_cross_kappa_of_the_rater_against_the_others(level):
    ann = kl.Annotations.from_wide(panel(seed=5))
    report = kl.rater_report(ann, level=level)
    for g in range(ann.n_raters):
        rest = without(ann, g)
        theirs = kl.cross_kappa(ann.subset_raters([g]), rest, level=level)
        assert report["kappa_x"][g] == pytest.approx(float(theirs), abs=1e-12)
        assert report["shared_items"][g] == theirs.n_items


def test_kappa_x_by_hand_replications_from_long_data():
    """The two replications built from the long table (not through subset_raters)."""
    long = kl.Annotations.from_wide(panel(seed=8)).to_long()
    report = kl.rater_report(long)
    for g, rater in enumerate(report["rater"]):
        mine = long[long["rater"] == rater]
        rest = long[long["rater"] != rater]
        assert report["kappa_x"][g] == pytest.approx(float(kl.cross_kappa(mine, rest)),
                                                     abs=1e-12)


@pytest.mark.parametrize("ci", ["analytic", "jackknife", "bootstrap", "bootstrap-bca"])
@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_kappa_x_interval_is_cross_kappa_interval(ci, level):
    ann = kl.Annotations.from_wide(panel(seed=3, n_raters=5))
    report = kl.rater_report(ann, level=level, ci=ci, n_resamples=300, seed=7)
    for g in range(ann.n_raters):
        theirs = kl.cross_kappa(ann.subset_raters([g]), without(ann, g), level=level, ci=ci,
                                n_resamples=300, seed=7)
        assert report["kappa_x_se"][g] == pytest.approx(theirs.se, rel=1e-9)
        assert report["kappa_x_low"][g] == pytest.approx(theirs.ci[0], abs=1e-12)
        assert report["kappa_x_high"][g] == pytest.approx(theirs.ci[1], abs=1e-12)


def test_two_raters_kappa_x_is_cohen_kappa_and_removal_leaves_one_rater():
    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, 50)
    b = np.where(rng.random(50) < 0.7, a, rng.integers(0, 3, 50))
    report = kl.rater_report(np.column_stack([a, b]))
    assert report["kappa_x"].to_numpy() == pytest.approx([cohen_kappa_score(a, b)] * 2,
                                                         abs=1e-12)
    assert report["without"].isna().all() and report["change"].isna().all()
    assert all("1 rater left" in note for note in report["note"])


def test_a_rater_who_shares_no_item():
    table = panel(seed=9, n_raters=4)
    table["loner"] = np.nan
    extra = pd.DataFrame({c: np.nan for c in table.columns}, index=[100, 101, 102])
    extra["loner"] = [1.0, 2.0, 3.0]
    table = pd.concat([table, extra])
    ann = kl.Annotations.from_wide(table)
    report = kl.rater_report(ann, ci="analytic")
    loner = report.set_index("rater").loc["loner"]
    assert loner["annotations"] == 3 and loner["shared_items"] == 0
    assert np.isnan(loner["kappa_x"]) and np.isnan(loner["kappa_x_low"])
    assert "shares no item" in loner["note"]
    # removing the loner leaves the pairable items as they were: α unchanged
    assert loner["without"] == pytest.approx(float(kl.krippendorff_alpha(without(ann, 4))),
                                             abs=1e-12)
    assert loner["change"] == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("level", ["nominal", "interval"])
def test_label_columns_by_group_by(level):
    ann = kl.Annotations.from_wide(panel(seed=21))
    report = kl.rater_report(ann, level=level).set_index("rater")
    long = ann.to_long()
    long["m"] = long.groupby("item")["value"].transform("size")
    shared = long[long["m"] >= 2]
    for rater in ann.raters:
        mine = shared[shared["rater"] == rater]
        others = shared[shared["item"].isin(mine["item"]) & (shared["rater"] != rater)]
        p_mine = mine["value"].value_counts(normalize=True)
        p_others = others["value"].value_counts(normalize=True)
        tvd = 0.0
        for category in ann.categories:
            shift = p_mine.get(category, 0.0) - p_others.get(category, 0.0)
            tvd += abs(shift) / 2
            assert report.loc[rater, f"prevalence[{category}]"] == pytest.approx(
                p_mine.get(category, 0.0), abs=1e-12)
            assert report.loc[rater, f"shift[{category}]"] == pytest.approx(shift, abs=1e-12)
        assert report.loc[rater, "label_shift"] == pytest.approx(tvd, abs=1e-12)
        assert report.loc[rater, "mean_shift"] == pytest.approx(
            mine["value"].mean() - others["value"].mean(), abs=1e-12)


def test_correlation_with_the_mean_of_the_others_by_numpy():
    rng = np.random.default_rng(2)
    table = rng.normal(size=(80, 1)) + rng.normal(scale=0.7, size=(80, 5))
    table[rng.random(table.shape) < 0.3] = np.nan
    report = kl.rater_report(table, level="interval")
    for g in range(5):
        x = table[:, g]
        others = np.delete(table, g, axis=1)
        count = (~np.isnan(others)).sum(axis=1)
        keep = ~np.isnan(x) & (count >= 1)
        mean_others = np.nansum(others[keep], axis=1) / count[keep]
        assert report["correlation"][g] == pytest.approx(
            np.corrcoef(x[keep], mean_others)[0, 1], abs=1e-12)


def test_callable_coefficient_is_called_on_the_panel_without_each_rater():
    ann = kl.Annotations.from_wide(panel(seed=13, n_raters=5))
    report = kl.rater_report(ann, coefficient=kl.light_kappa)
    assert report.attrs["coefficient"] == "light_kappa"
    assert report.attrs["full"] == pytest.approx(float(quiet(kl.light_kappa, ann)), abs=1e-12)
    for g in range(ann.n_raters):
        assert report["without"][g] == pytest.approx(
            float(quiet(kl.light_kappa, without(ann, g))), abs=1e-12)


def test_conger_without_each_rater_in_chunks(monkeypatch):
    """Conger's rows have R·K columns, so the stack is built a chunk of raters at a time
    (here forced down to chunks of 11 raters): still the estimator on the panel without
    each rater."""
    import kappalab.reports.raters as raters_module

    monkeypatch.setattr(raters_module, "BLOCK_CELLS", 10_000)
    rng = np.random.default_rng(0)
    items = np.repeat(np.arange(300), 3)
    raters = np.concatenate([rng.choice(300, 3, replace=False) for _ in range(300)])
    long = pd.DataFrame({"item": items, "rater": raters,
                         "value": rng.integers(0, 3, items.size)})
    ann = kl.Annotations.from_long(long)
    assert (2 + ann.n_raters * 3) * 11 <= 10_000 < (2 + ann.n_raters * 3) * 12
    report = kl.rater_report(ann, coefficient="conger")
    for g in (0, 10, 11, ann.n_raters - 1):
        assert report["without"][g] == pytest.approx(
            float(quiet(kl.conger_kappa, without(ann, g))), abs=1e-12)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True, database=None)
@given(seed=st.integers(0, 10_000), order=st.permutations(range(5)))
def test_relabelling_raters_permutes_rows(seed, order):
    table = panel(seed=seed, n_items=25, n_raters=5, missing=0.3)
    report = quiet(kl.rater_report, table, level="interval")
    permuted = table.iloc[:, list(order)]
    permuted.columns = [f"s{j}" for j in range(5)]  # new labels, in a new order
    again = quiet(kl.rater_report, permuted, level="interval")
    rename = dict(zip(permuted.columns, table.columns[list(order)]))
    again["rater"] = again["rater"].map(rename)
    again = again.set_index("rater").loc[report["rater"]].reset_index()
    pd.testing.assert_frame_equal(report.drop(columns="note"), again.drop(columns="note"),
                                  check_exact=False, atol=1e-12, rtol=0)


def test_bad_input_is_refused_clearly():
    table = panel(seed=1)
    with pytest.raises(InvalidParameterError, match="unknown coefficient 'kripp'"):
        kl.rater_report(table, coefficient="kripp")
    with pytest.raises(InvalidParameterError, match="unknown ci"):
        kl.rater_report(table, ci="wild")
    with pytest.raises(InvalidParameterError, match="n_resamples"):
        kl.rater_report(table, ci="bootstrap", n_resamples=1)
    with pytest.raises(UnknownRatersError, match="rater_report"):
        kl.rater_report(kl.Annotations.from_counts([[2, 1], [0, 3]]))
    with pytest.raises(RaterCountError, match="two raters"):
        kl.rater_report(table[["r0"]])


def test_forest_plot_shows_each_rater_with_its_interval_and_change():
    report = kl.rater_report(kl.Annotations.from_wide(panel(seed=31, n_raters=6)),
                             ci="analytic")
    left, right = kl.plots.raters(report).axes
    order = report.sort_values("kappa_x")  # the lowest κx at the top
    ticks = sorted(zip(left.get_yticks(), left.get_yticklabels()), key=lambda t: -t[0])
    assert [label.get_text() for _, label in ticks] == [str(r) for r in order["rater"]]
    assert left.get_xlabel() and right.get_xlabel() and left.get_ylabel() == "rater"
    points = next(line for line in left.lines if line.get_marker() == "o").get_xdata()
    assert np.allclose(points, order["kappa_x"])
    bars = [patch.get_width() for patch in right.patches]
    assert np.allclose(bars, order["change"])
    caps = left.collections[0].get_segments()  # the interval of each rater
    assert np.allclose([s[:, 0].min() for s in caps], order["kappa_x_low"])
    assert np.allclose([s[:, 0].max() for s in caps], order["kappa_x_high"])
    # the legend is the figure's, below the axes: it overlaps neither panel
    figure = left.figure
    figure.canvas.draw()
    legend = figure.legends[0].get_window_extent()
    for axis in (left, right):
        assert not legend.overlaps(axis.get_window_extent())


def test_forest_plot_keeps_the_lowest_raters_and_refuses_other_tables():
    report = kl.rater_report(kl.Annotations.from_wide(panel(seed=32, n_raters=8)))
    ax = kl.plots.raters(report, "kappa_x", max_raters=3).axes[0]
    assert len(ax.get_yticklabels()) == 3
    assert "3 raters of 8" in ax.get_title()
    with pytest.raises(InvalidParameterError, match="rater_report"):
        kl.plots.raters(pd.DataFrame({"rater": ["a"], "change": [0.1]}))  # no kappa_x
    with pytest.raises(InvalidParameterError, match="ax= draws one quantity"):
        kl.plots.raters(report, ax=ax)


def test_per_category_counts_too_large_are_refused_before_allocation(monkeypatch):
    import kappalab.coefficients.cross as cross_module

    monkeypatch.setattr(cross_module, "MAX_COUNT_CELLS", 100)
    table = panel(seed=40, n_raters=20)  # 20 raters × 2·4 categories = 160 cells
    with pytest.raises(InvalidParameterError, match="160 cells .* level='interval'"):
        kl.rater_report(table)
    assert np.isfinite(kl.rater_report(table, level="interval")["kappa_x"]).all()


def test_general_distance_on_a_sparse_count_table(monkeypatch):
    """A sparse items × K count table (forced here by lowering the dense limit): the ratio
    metric's (δ n_i)_c by blocks of the table, and blocks of one item's width."""
    import kappalab.annotations as annotations_module
    import kappalab.coefficients.base as base_module

    monkeypatch.setattr(annotations_module, "DENSE_COUNT_CELLS", 1000)
    monkeypatch.setattr(base_module, "BLOCK_CELLS", 200)  # blocks of 200 // K items
    rng = np.random.default_rng(6)
    table = rng.integers(1, 61, size=(300, 4)).astype(float)
    table[:, 1] = np.clip(table[:, 0] + rng.integers(-3, 4, 300), 1, 60)
    table[rng.random(table.shape) < 0.3] = np.nan
    ann = kl.Annotations.from_long(kl.Annotations.from_wide(table).to_long())
    assert ann.counts_are_large
    report = kl.rater_report(ann, level="ratio")
    for g in range(4):
        assert report["without"][g] == pytest.approx(
            float(kl.krippendorff_alpha(without(ann, g), level="ratio")), abs=1e-12)
        assert report["kappa_x"][g] == pytest.approx(
            float(kl.cross_kappa(ann.subset_raters([g]), without(ann, g), level="ratio")),
            abs=1e-12)
