"""Split-half reliability, Spearman's disattenuated correlation (Wong et al. 2021, eq 12),
xrr_report and plots.xrr.

Every asserted number comes from outside kappalab: brute-force enumeration of every possible
split with scipy.stats.pearsonr, pandas/scipy computations of item means and correlations, the
`krippendorff` package, hand arithmetic written in comments, or the exact population truths of
kappalab.simulate (with a standard error from Fisher's large-sample variance of r or from
replicate datasets).
"""

from __future__ import annotations

import itertools
import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from scipy import stats

import kappalab as kl
from kappalab import simulate
from kappalab.coefficients.disattenuation import (
    DisattenuatedCorrelation,
    SplitHalfReliability,
    disattenuated_correlation,
    spearman_brown,
    split_half_reliability,
)
from kappalab.errors import (
    EmptyDataError,
    InvalidParameterError,
    NonNumericError,
    UndefinedCoefficientWarning,
)
from kappalab.plots import xrr as plot_xrr
from kappalab.reports.agreement import xrr_report


# ---------------------------------------------------------------------- brute force
def enumerate_splits(item_values: list[np.ndarray]) -> np.ndarray:
    """Pearson r (scipy) of the half means for EVERY way of choosing half A (⌊m/2⌋
    annotations) in every item: the population a random split draws from, uniformly."""
    choices = [list(itertools.combinations(range(len(v)), len(v) // 2)) for v in item_values]
    rs = []
    for combo in itertools.product(*choices):
        mean_a, mean_b = [], []
        for values, chosen in zip(item_values, combo):
            in_a = np.zeros(len(values), dtype=bool)
            in_a[list(chosen)] = True
            mean_a.append(values[in_a].mean())
            mean_b.append(values[~in_a].mean())
        rs.append(stats.pearsonr(mean_a, mean_b).statistic)
    return np.array(rs)


def check_against_enumeration(result: SplitHalfReliability, r_all: np.ndarray) -> None:
    # every split's r is one of the enumerated r (to rounding) ...
    gap = np.abs(result.split_correlations[:, None] - r_all[None, :]).min(axis=1)
    assert gap.max() < 1e-12
    # ... and the averages match the exact expectation over uniform splits within 4 SE
    # (SE = exact SD over the enumeration / √n_splits)
    sb_all = 2 * r_all / (1 + r_all)
    S = result.n_splits
    assert abs(result.half_correlation - r_all.mean()) < 4 * r_all.std() / np.sqrt(S)
    assert abs(result.value - sb_all.mean()) < 4 * sb_all.std() / np.sqrt(S)
    # each split's value is the Spearman–Brown step-up of its own r
    np.testing.assert_allclose(result.split_values,
                               2 * result.split_correlations / (1 + result.split_correlations),
                               rtol=0, atol=1e-15)


# ====================================================================== split-half
def test_two_annotations_per_item_every_split_is_a_column_swap_pattern():
    # Complete data, 2 annotations per item: a split decides, per item, which of the two
    # annotations is in half A. NB: swapping *some* items changes r, so r is not simply
    # corr(column 1, column 2) — it is one of the 2^n swap patterns, enumerated here.
    rng = np.random.default_rng(11)
    wide = rng.integers(1, 8, size=(9, 2)).astype(float)
    r_all = enumerate_splits(list(wide))
    # the no-swap pattern is the correlation of the two columns (one of the values)
    r_columns = stats.pearsonr(wide[:, 0], wide[:, 1]).statistic
    assert np.abs(r_all - r_columns).min() < 1e-14
    result = split_half_reliability(wide, n_splits=3000, seed=5)
    assert result.n_items == 9 and result.n_annotations == 18 and result.n_splits == 3000
    check_against_enumeration(result, r_all)


def test_two_annotations_where_the_split_cannot_matter():
    # each item's two annotations are equal: both half means are the item's value in every
    # split, r = 1 and the step-up 2·1/(1 + 1) = 1
    same = np.array([[1.0, 1.0], [2.0, 2.0], [5.0, 5.0]])
    result = split_half_reliability(same, n_splits=7, seed=0)
    assert result.value == 1.0 and result.half_correlation == 1.0
    # two items (1, 3) and (4, 8): each half holds one value of each item and every value of
    # the first item is below every value of the second (1, 3 < 4, 8), so both halves
    # increase from item 1 to item 2: r = +1 in every split, step-up 2/(1 + 1) = 1
    two = np.array([[1.0, 3.0], [4.0, 8.0]])
    assert split_half_reliability(two, n_splits=5, seed=1).value == pytest.approx(1.0,
                                                                                 abs=1e-15)


def test_mixed_numbers_of_annotations_against_every_split():
    # items with m = 2, 3, 4, 2, 3, 4 annotations and one item with a single annotation
    # (left out): 2·3·6·2·3·6 = 1296 equally likely splits, halves of ⌊m/2⌋ and ⌈m/2⌉
    rng = np.random.default_rng(3)
    sizes = [2, 3, 4, 2, 3, 4, 1]
    rows = []
    for i, m in enumerate(sizes):
        for j, v in enumerate(rng.normal(size=m) + 0.8 * i):
            rows.append({"item": f"i{i}", "rater": f"r{j}", "value": v})
    ann = kl.Annotations.from_long(pd.DataFrame(rows))
    by_item = [np.array([r["value"] for r in rows if r["item"] == f"i{i}"])
               for i, m in enumerate(sizes) if m >= 2]
    r_all = enumerate_splits(by_item)
    assert r_all.size == 1296
    result = split_half_reliability(ann, n_splits=3000, seed=2)
    assert result.n_items == 6 and result.n_annotations == 18
    check_against_enumeration(result, r_all)


def test_counts_data_without_raters():
    # counts of the values 0, 1, 2 (raters unknown): item 0 has annotations {0, 1, 1},
    # item 1 {2, 2}, item 2 {0, 0, 2, 2}, item 3 {1, 2}
    counts = np.array([[1, 2, 0], [0, 0, 2], [2, 0, 2], [0, 1, 1]])
    ann = kl.Annotations.from_counts(counts, categories=[0, 1, 2])
    by_item = [np.array([0., 1, 1]), np.array([2., 2]), np.array([0., 0, 2, 2]),
               np.array([1., 2])]
    r_all = enumerate_splits(by_item)
    result = split_half_reliability(ann, n_splits=2000, seed=4)
    assert result.n_items == 4
    check_against_enumeration(result, r_all)


def test_seeds_reproduce():
    ann, _ = simulate.annotations(300, level="interval", annotations_per_item=(2, 6), seed=8)
    a = split_half_reliability(ann, n_splits=20, seed=123)
    b = split_half_reliability(ann, n_splits=20, seed=123)
    c = split_half_reliability(ann, n_splits=20, seed=124)
    np.testing.assert_array_equal(a.split_values, b.split_values)
    assert a.value == b.value and a == b
    assert not np.array_equal(a.split_values, c.split_values)
    g1 = split_half_reliability(ann, n_splits=20, seed=np.random.default_rng(9))
    g2 = split_half_reliability(ann, n_splits=20, seed=np.random.default_rng(9))
    assert g1.value == g2.value
    assert float(a) == a.value


def test_split_half_matches_the_spearman_brown_truth_at_large_n():
    # x_ri = μ_i + ε_ri, ICC = σ_b²/(σ_b²+σ_w²) = truth.alpha, m = 4 annotations per item.
    # Halves of 2: r_h = 2·ICC/(1 + ICC) (reliability of a mean of 2), and the step-up
    # 2r_h/(1 + r_h) = 4·ICC/(1 + 3·ICC) exactly (Spearman–Brown); ICC = 0.5 → 2/3 and 0.8.
    n, m = 100_000, 4
    ann, truth = simulate.annotations(n, level="interval", reliability=0.5,
                                      annotations_per_item=m, seed=21)
    icc = truth.alpha
    r_true = 2 * icc / (1 + icc)
    sb_true = m * icc / (1 + (m - 1) * icc)
    assert sb_true == pytest.approx(0.8, abs=1e-15)
    result = split_half_reliability(ann, n_splits=10, seed=1)
    # half means are bivariate normal: Var(r) ≈ (1 − r²)²/n (Fisher 1915) for ONE split;
    # the average over splits varies less. Delta method for 2r/(1+r): × 2/(1 + r)².
    se_r = (1 - r_true ** 2) / np.sqrt(n)
    se_sb = se_r * 2 / (1 + r_true) ** 2
    assert abs(result.half_correlation - r_true) < 4 * se_r
    assert abs(result.value - sb_true) < 4 * se_sb
    assert result.n_items == n and result.n_annotations == n * m


# ====================================================================== disattenuation
def _two_sides():
    """X: items a–f plus x_only; Y: items in another order plus y_only; varying m."""
    x = pd.DataFrame({
        "item": ["a", "a", "a", "b", "b", "c", "c", "c", "c", "d", "d", "e", "e", "e",
                 "f", "f", "x_only", "x_only"],
        "rater": ["p", "q", "r", "p", "q", "p", "q", "r", "s", "q", "r", "p", "r", "s",
                  "p", "s", "p", "q"],
        "value": [1, 2, 2, 4, 5, 3, 3, 4, 2, 5, 5, 1, 1, 2, 3, 4, 5, 1],
    })
    y = pd.DataFrame({
        "item": ["f", "f", "e", "e", "d", "d", "d", "c", "c", "b", "b", "b", "a", "a",
                 "y_only"],
        "rater": ["u", "v", "u", "w", "u", "v", "w", "v", "w", "u", "v", "w", "u", "w",
                  "u"],
        "value": [3, 3, 2, 1, 4, 5, 4, 3, 2, 5, 4, 4, 2, 1, 3],
    })
    return x, y


def test_given_reliabilities_against_pandas_and_scipy():
    x, y = _two_sides()
    common = ["a", "b", "c", "d", "e", "f"]
    mx = x.groupby("item")["value"].mean()[common]
    my = y.groupby("item")["value"].mean()[common]
    r = stats.pearsonr(mx, my).statistic
    ax = kl.Annotations.from_long(x)
    ay = kl.Annotations.from_long(y)
    res = disattenuated_correlation(ax, ay, reliability=(0.5, 0.8))
    assert isinstance(res, DisattenuatedCorrelation)
    assert res.method == "given" and res.n_items == 6
    assert res.r == pytest.approx(r, abs=1e-12)
    assert res.rho == pytest.approx(r / np.sqrt(0.5 * 0.8), abs=1e-12)  # eq 12
    assert float(res) == res.rho
    assert res.details["n_items_dropped_x"] == 1 and res.details["n_items_dropped_y"] == 1
    assert res.details["n_annotations_x"] == 16 and res.details["n_annotations_y"] == 14
    # symmetric in X and Y when the reliabilities swap too
    rev = disattenuated_correlation(ay, ax, reliability=(0.8, 0.5))
    assert rev.rho == pytest.approx(res.rho, abs=1e-14)


def test_spearman_brown_reliabilities_against_krippendorff_package():
    x, y = _two_sides()
    common = ["a", "b", "c", "d", "e", "f"]
    res = disattenuated_correlation(kl.Annotations.from_long(x), kl.Annotations.from_long(y),
                                    reliability="spearman_brown")
    rels = []
    for side in (x, y):
        wide = side[side["item"].isin(common)].pivot(index="rater", columns="item",
                                                     values="value")[common]
        alpha = krippendorff.alpha(reliability_data=wide.to_numpy(dtype=float),
                                   level_of_measurement="interval")
        m_bar = wide.notna().sum(axis=0).mean()  # X: (3+2+4+2+3+2)/6 = 16/6
        rels.append(m_bar * alpha / (1 + (m_bar - 1) * alpha))
    assert res.reliability_x == pytest.approx(rels[0], abs=1e-12)
    assert res.reliability_y == pytest.approx(rels[1], abs=1e-12)
    assert res.details["spearman_brown_x"]["mean_annotations_per_item"] == pytest.approx(16 / 6)
    mx = x.groupby("item")["value"].mean()[common]
    my = y.groupby("item")["value"].mean()[common]
    r = stats.pearsonr(mx, my).statistic
    assert res.rho == pytest.approx(r / np.sqrt(rels[0] * rels[1]), abs=1e-12)


def test_spearman_brown_formula():
    # 3·0.4/(1 + 2·0.4) = 1.2/1.8 = 2/3 ; with k = 1 it is the reliability itself
    assert spearman_brown(0.4, 3) == pytest.approx(2 / 3, abs=1e-15)
    assert spearman_brown(0.37, 1) == pytest.approx(0.37, abs=1e-15)


@pytest.mark.slow
@pytest.mark.parametrize("method", ["split_half", "spearman_brown"])
def test_disattenuated_correlation_recovers_the_true_correlation(method):
    # replications of interval data: corr(μ_X, μ_Y) = truth.rho = 0.7, ICCs 0.4 and 0.6,
    # 4 annotations per item per side; the reliabilities of the means are
    # 4·ICC/(1 + 3·ICC) (Spearman–Brown): 1.6/2.2 and 2.4/2.8. SE from 10 replicate datasets.
    rhos, rel_x, rel_y = [], [], []
    for rep in range(10):
        ax, ay, truth = simulate.replications(
            20_000, level="interval", rho=0.7, reliability=(0.4, 0.6),
            annotations_per_item=(4, 4), only_x=3, only_y=2, seed=100 + rep)
        res = disattenuated_correlation(ax, ay, reliability=method, n_splits=8, seed=rep)
        assert res.n_items == 20_000
        assert res.details["n_items_dropped_x"] == 3 and res.details["n_items_dropped_y"] == 2
        rhos.append(res.rho)
        rel_x.append(res.reliability_x)
        rel_y.append(res.reliability_y)
    for estimates, target in ((rhos, truth.rho),
                              (rel_x, 4 * truth.irr_x / (1 + 3 * truth.irr_x)),
                              (rel_y, 4 * truth.irr_y / (1 + 3 * truth.irr_y))):
        estimates = np.array(estimates)
        se = estimates.std(ddof=1) / np.sqrt(estimates.size)
        assert abs(estimates.mean() - target) < 4 * se, (estimates.mean(), target, se)
    assert truth.rho == 0.7


def test_split_half_reliabilities_are_those_of_the_common_items():
    x, y = _two_sides()
    ax, ay = kl.Annotations.from_long(x), kl.Annotations.from_long(y)
    res = disattenuated_correlation(ax, ay, n_splits=50, seed=3)
    assert res.method == "split_half"
    # x_only (2 annotations) is not among the items of X's split-half: 6 items, 16 annotations
    assert res.details["split_half_x"].n_items == 6
    assert res.details["split_half_x"].n_annotations == 16
    assert res.details["split_half_y"].n_annotations == 14
    again = disattenuated_correlation(ax, ay, n_splits=50, seed=3)
    assert again.rho == res.rho


def test_undefined_values_warn_and_return_nan():
    x, y = _two_sides()
    ax, ay = kl.Annotations.from_long(x), kl.Annotations.from_long(y)
    with pytest.warns(UndefinedCoefficientWarning, match="reliabilities > 0"):
        res = disattenuated_correlation(ax, ay, reliability=(0.5, -0.1))
    assert np.isnan(res.rho) and np.isfinite(res.r)
    # Y's item means all equal (every annotation 3): r undefined
    flat = y.assign(value=3)
    with pytest.warns(UndefinedCoefficientWarning, match="undefined"):
        res = disattenuated_correlation(ax, kl.Annotations.from_long(flat), reliability=(1, 1))
    assert np.isnan(res.rho) and np.isnan(res.r)


# ====================================================================== bad inputs
def test_bad_inputs_raise_clear_errors():
    labels = [["a", "b"], ["b", "b"], ["a", "a"]]
    with pytest.raises(NonNumericError, match="numeric"):
        split_half_reliability(labels)
    with pytest.raises(NonNumericError, match="numeric"):
        disattenuated_correlation(labels, [[1, 2], [2, 2], [1, 1]])
    x = pd.DataFrame({"item": ["a", "a", "b", "b"], "rater": [1, 2, 1, 2],
                      "value": [1, 2, 3, 4]})
    y = x.assign(item=x["item"].map({"a": "c", "b": "d"}))
    with pytest.raises(EmptyDataError, match="in common"):
        disattenuated_correlation(kl.Annotations.from_long(x), kl.Annotations.from_long(y))
    with pytest.raises(EmptyDataError, match="2 or more annotations"):
        split_half_reliability([[1.0], [2.0], [3.0]])
    with pytest.raises(InvalidParameterError, match="n_splits"):
        split_half_reliability([[1, 2], [2, 3]], n_splits=0)
    with pytest.raises(InvalidParameterError, match="unknown reliability"):
        disattenuated_correlation([[1, 2], [2, 3]], [[1, 2], [2, 3]], reliability="alpha")
    with pytest.raises(InvalidParameterError, match="pair of numbers"):
        disattenuated_correlation([[1, 2], [2, 3]], [[1, 2], [2, 3]], reliability=(0.5,))
    with pytest.raises(ValueError):  # every kappalab input error is a ValueError
        disattenuated_correlation([[1, 2], [2, 3]], [[1, 2], [2, 3]], reliability=0.5)


# ====================================================================== report and plot
@pytest.fixture(scope="module")
def binary_replications():
    return simulate.replications(2000, level="binary", rho=0.9, reliability=(0.3, 0.4),
                                 annotations_per_item=(4, 5), only_x=3, only_y=4, seed=31)


def test_xrr_report_values(binary_replications):
    ax, ay, truth = binary_replications
    report = xrr_report(ax, ay, level="nominal", n_splits=30, seed=7)
    assert list(report.columns) == ["quantity", "value", "level", "n_items", "n_annotations",
                                    "description", "note"]
    v = report.set_index("quantity")["value"]
    assert list(v.index) == ["IRR_X", "IRR_Y", "kappa_x", "normalized_kappa_x", "rho_xy",
                             "r_xy", "reliability_x", "reliability_y", "items_x", "items_y",
                             "items_common", "items_dropped_x", "items_dropped_y"]
    # item counts by construction: 2000 shared items, 3 in X only, 4 in Y only
    assert (v["items_x"], v["items_y"], v["items_common"]) == (2003, 2004, 2000)
    assert (v["items_dropped_x"], v["items_dropped_y"]) == (3, 4)
    # IRRs: the krippendorff package's nominal α on the 2000 common items
    common = np.arange(2000)
    for side, ann in (("X", ax), ("Y", ay)):
        data = ann.wide.loc[common].to_numpy(dtype=float).T  # raters × items
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
        assert v[f"IRR_{side}"] == pytest.approx(expected, abs=1e-12)
    # eq 13 by hand from the table's own rows, and the individual functions
    assert v["normalized_kappa_x"] == pytest.approx(
        v["kappa_x"] / np.sqrt(v["IRR_X"] * v["IRR_Y"]), abs=1e-14)
    assert v["kappa_x"] == pytest.approx(float(kl.cross_kappa(ax, ay)), abs=1e-15)
    assert v["normalized_kappa_x"] == pytest.approx(float(kl.normalized_cross_kappa(ax, ay)),
                                                    abs=1e-14)
    dc = disattenuated_correlation(ax, ay, n_splits=30, seed=7)
    assert (v["rho_xy"], v["r_xy"], v["reliability_x"], v["reliability_y"]) == (
        dc.rho, dc.r, dc.reliability_x, dc.reliability_y)
    assert v["rho_xy"] == pytest.approx(v["r_xy"] / np.sqrt(v["reliability_x"]
                                                            * v["reliability_y"]), abs=1e-14)
    assert (report["note"] == "").all()
    # the paper's reading at this size: κx below the larger IRR; normalized κx ≈ ρ ≈ truth
    assert v["kappa_x"] < max(v["IRR_X"], v["IRR_Y"])
    assert abs(v["normalized_kappa_x"] - truth.normalized_kx) < 0.1
    assert abs(v["rho_xy"] - truth.rho) < 0.1


def test_xrr_report_notes():
    # labels that are not numbers: κx and the IRRs exist, ρ cannot (a note says why)
    x = [["pos", "neg"], ["neg", "neg"], ["pos", "pos"], ["neg", "pos"]]
    y = [["pos", "pos"], ["neg", "neg"], ["pos", "neg"], ["neg", "neg"]]
    report = xrr_report(x, y)
    row = report.set_index("quantity").loc["rho_xy"]
    assert np.isnan(row["value"]) and "numeric" in row["note"]
    assert np.isfinite(report.set_index("quantity").loc["kappa_x", "value"])
    # X's raters systematically disagree: nominal α of X = 1 − D_o/D_e with
    # D_o = 1 (every pair differs), D_e = n·n/(n(n−1)) over 4 zeros and 4 ones
    # = 2·4·4/(8·7) = 32/56 → α = 1 − 56/32 = −0.75 < 0: normalized κx undefined, noted
    x = [[0, 1], [1, 0], [0, 1], [1, 0]]
    y = [[0, 0], [1, 1], [0, 0], [1, 0]]
    report = xrr_report(x, y).set_index("quantity")
    assert report.loc["IRR_X", "value"] == pytest.approx(-0.75, abs=1e-15)
    assert np.isnan(report.loc["normalized_kappa_x", "value"])
    assert "IRRs > 0" in report.loc["normalized_kappa_x", "note"]
    # with no IRR_X > 0 the split-half of X is ≤ 0 too: ρ is NaN with its own note
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # nothing escapes the report
        xrr_report(x, y)


def test_xrr_report_with_one_annotation_per_item_on_one_side():
    # Y (a reference) has one annotation per item: no split-half for Y, so ρ is undefined,
    # but r of the mean scores is: X means 1.5, 2, 1, 1.5, 1 against Y 1, 2, 1, 2, 1
    x = [[1, 2], [2, 2], [1, 1], [2, 1], [1, 1]]
    y = [[1], [2], [1], [2], [1]]
    report = xrr_report(x, y, n_splits=20, seed=0).set_index("quantity")
    r = stats.pearsonr([1.5, 2, 1, 1.5, 1], [1, 2, 1, 2, 1]).statistic
    assert report.loc["r_xy", "value"] == pytest.approx(r, abs=1e-12)
    assert np.isnan(report.loc["rho_xy", "value"])
    assert "2 or more annotations" in report.loc["rho_xy", "note"]
    assert np.isnan(report.loc["reliability_y", "value"])
    assert np.isfinite(report.loc["reliability_x", "value"])
    assert np.isnan(report.loc["IRR_Y", "value"]) and report.loc["IRR_Y", "note"]


def test_xrr_report_no_common_item():
    with pytest.raises(EmptyDataError):
        xrr_report(pd.DataFrame([[1, 2]], index=["a"]), pd.DataFrame([[1, 2]], index=["b"]))


def test_plot_xrr(binary_replications, tmp_path):
    from matplotlib.figure import Figure

    ax_data, ay_data, _ = binary_replications
    report = xrr_report(ax_data, ay_data, n_splits=10, seed=1)
    figure = plot_xrr(report)
    assert isinstance(figure, Figure)
    ax = figure.axes[0]
    heights = [p.get_height() for p in ax.patches]
    v = report.set_index("quantity")["value"]
    np.testing.assert_allclose(heights, [v["IRR_X"], v["IRR_Y"], v["kappa_x"],
                                         v["normalized_kappa_x"], v["rho_xy"]], rtol=0,
                               atol=0)
    path = tmp_path / "xrr.png"
    figure.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and path.stat().st_size > 5000
    # straight from the two replications, onto a given Axes
    target = Figure().add_subplot()
    out = plot_xrr(ax_data, ay_data, n_splits=10, seed=1, ax=target, title="awe")
    assert out is target.figure and target.get_title() == "awe"
    with pytest.raises(InvalidParameterError):
        plot_xrr(ax_data)
    with pytest.raises(InvalidParameterError):
        plot_xrr(pd.DataFrame({"quantity": ["IRR_X"], "value": [0.5]}))


# ====================================================================== intervals (ci=)
def _replication_pair(seed, n_items=40):
    ann_x, ann_y, _ = simulate.replications(n_items, level="interval", rho=0.7,
                                            annotations_per_item=(3, 4), seed=seed)
    return ann_x.wide.to_numpy(dtype=float), ann_y.wide.to_numpy(dtype=float)


@pytest.mark.parametrize("reliability", [(0.7, 0.8), "spearman_brown"])
def test_disattenuated_jackknife_replicates_are_leave_one_item_out(reliability):

    x, y = _replication_pair(1)
    n = x.shape[0]
    est = disattenuated_correlation(x, y, reliability=reliability, ci="jackknife")
    loo = np.array([disattenuated_correlation(np.delete(x, i, 0), np.delete(y, i, 0),
                                              reliability=reliability).rho for i in range(n)])
    # the jackknife standard error of those recomputed values
    expected = np.sqrt((n - 1) / n * ((loo - loo.mean()) ** 2).sum())
    assert est.se == pytest.approx(expected, rel=1e-9)
    assert est.ci[0] < est.rho < est.ci[1]


def test_split_half_interval_reuses_the_splits_of_the_estimate():
    """Leave-one-item-out values recomputed with numpy from the same splits' half means."""
    from kappalab.coefficients.disattenuation import SplitHalfCoefficient
    from kappalab.uncertainty import replicate_values

    x, _ = _replication_pair(2, n_items=25)
    ann = kl.Annotations.from_wide(x)
    result = split_half_reliability(ann, n_splits=7, seed=5)
    core = SplitHalfCoefficient(ann, 7, np.random.default_rng(5))
    assert float(core.combine(core.totals())["value"]) == result.value
    means = core.half_means()  # the splits drawn again from the generator's state
    np.testing.assert_allclose(core.item_stats().sum(axis=0), core.totals(), rtol=1e-12,
                               atol=1e-12)
    # the half means are those of the splits whose correlations the estimate reports
    r = np.array([np.corrcoef(means[s, :, 0], means[s, :, 1])[0, 1] for s in range(7)])
    np.testing.assert_allclose(result.split_correlations, r, rtol=0, atol=1e-13)
    loo = []
    for i in range(x.shape[0]):
        a, b = np.delete(means[..., 0], i, axis=1), np.delete(means[..., 1], i, axis=1)
        r = np.array([np.corrcoef(a[s], b[s])[0, 1] for s in range(a.shape[0])])
        loo.append((2 * r / (1 + r)).mean())
    np.testing.assert_allclose(replicate_values(core, "jackknife"), loo, rtol=1e-10)
    est = split_half_reliability(ann, n_splits=7, seed=5, ci="bootstrap", n_resamples=300)
    assert est.value == result.value and est.ci[0] < est.value < est.ci[1]
    both = disattenuated_correlation(*_replication_pair(3), ci="bootstrap-bca", n_resamples=300,
                                     n_splits=20, seed=1)
    assert both.ci[0] < both.rho < both.ci[1]
    with pytest.raises(InvalidParameterError, match="unknown ci"):
        split_half_reliability(ann, ci="bootstrapp")


def test_results_are_estimates_with_their_parts():
    """Both results are Estimates (one path: the value is the core's), with the parts of the
    correction in ``details`` and as attributes; they table, pickle and compare as Estimates."""
    import pickle

    x, y = _two_sides()
    ax, ay = kl.Annotations.from_long(x), kl.Annotations.from_long(y)
    half = split_half_reliability(ax, n_splits=20, seed=3)
    assert isinstance(half, kl.Estimate) and isinstance(half, SplitHalfReliability)
    assert half.coefficient == "split-half reliability" and half.level == "interval"
    assert half.observed == half.half_correlation == half.details["half_correlation"]
    assert half.n_splits == 20 and half.split_values.shape == (20,)
    assert float(half) == half.value == pytest.approx(np.nanmean(half.split_values), abs=1e-15)
    assert pickle.loads(pickle.dumps(half)) == half
    res = disattenuated_correlation(ax, ay, reliability=(0.5, 0.8), ci="jackknife")
    assert isinstance(res, kl.Estimate) and isinstance(res, DisattenuatedCorrelation)
    assert (res.value, res.observed) == (res.rho, res.r)
    assert res.details["reliability_x"] == 0.5 and res.method == "given"
    assert res.n_annotations == 16 + 14 and res.se is not None
    frame = kl.Estimate.to_frame([res, half])
    assert list(frame["coefficient"]) == ["disattenuated correlation", "split-half reliability"]
    assert frame["value"].tolist() == [res.rho, half.value]
    # an undefined ρ has no interval
    with pytest.warns(UndefinedCoefficientWarning, match="reliabilities > 0"):
        bad = disattenuated_correlation(ax, ay, reliability=(0.5, -0.1), ci="jackknife")
    assert np.isnan(bad.rho) and bad.se is None and bad.ci is None


@pytest.mark.parametrize("irr", [(0.894, 0.912), (0.2, 0.95), (0.97, 0.3)])
def test_plot_xrr_legend_covers_no_bar_and_no_label(irr):
    """The legend sits where it hides nothing: not over a bar, a value label or a marker
    (it once overprinted the labels 0.894 and 0.912 of two high IRR bars)."""
    report = pd.DataFrame({"quantity": ["IRR_X", "IRR_Y", "kappa_x", "normalized_kappa_x",
                                        "rho_xy", "items_common", "items_dropped_x",
                                        "items_dropped_y"],
                           "value": [irr[0], irr[1], 0.75, 0.83, 0.85, 500, 0, 0]})
    figure = plot_xrr(report)
    ax = figure.axes[0]
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    renderer = FigureCanvasAgg(figure).get_renderer()
    legend = ax.get_legend().get_window_extent(renderer)
    drawn = [p.get_window_extent(renderer) for p in ax.patches]
    drawn += [t.get_window_extent(renderer) for t in ax.texts]
    drawn += [line.get_window_extent(renderer) for line in ax.lines if line.get_marker() == "D"]
    assert drawn and not any(legend.overlaps(box) for box in drawn)
    assert not legend.overlaps(ax.get_window_extent(renderer))
