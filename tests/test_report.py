"""agreement_report on data where a coefficient cannot be computed, and on crowd data."""

import numpy as np
import pytest

import kappalab as kl
from kappalab.distances import MAX_MATRIX_CATEGORIES


def test_a_coefficient_that_cannot_be_computed_does_not_take_the_report_down():
    """Gwet's ordinal weights need a K × K matrix, refused beyond MAX_MATRIX_CATEGORIES:
    those rows carry the reason; Krippendorff's ordinal metric is the interval metric on
    mid-ranks, so α and ι are computed from moments; the report returns every row."""
    n = MAX_MATRIX_CATEGORIES + 1
    values = np.arange(n, dtype=float)
    x = np.column_stack([values, values + 0.5 * (np.arange(n) % 2)])
    report = kl.agreement_report(x, level="ordinal").set_index("coefficient")
    assert len(report) == 11  # five multi-rater, three rater-specific, three two-rater rows
    computed = ["Krippendorff's alpha", "Janson-Olsson iota"]
    assert (report.loc[computed, "note"] == "").all()
    # by hand, Krippendorff's ordinal metric: category c's mid-rank b_c = Σ_{g<c} n_g + n_c/2;
    # the odd items pair adjacent categories of one annotation each (δ = 1), the even ones
    # agree; D_e = Σ_ck n_c n_k (b_c − b_k)² / (N(N − 1))
    categories, counts = np.unique(x, return_counts=True)
    b = np.cumsum(counts) - counts / 2
    N = counts.sum()
    d_o = 2 * (n // 2) / N
    d_e = (2 * N * (counts @ b**2) - 2 * (counts @ b) ** 2) / (N * (N - 1))
    assert 1 - report.loc["Krippendorff's alpha", "value"] == pytest.approx(d_o / d_e,
                                                                            rel=1e-9)
    failed = report.drop(index=computed)
    assert failed["note"].str.startswith("not computed").all() and failed["value"].isna().all()
    assert failed["note"].str.contains("matrix").all()  # the size, and the alternative


def test_report_on_sparse_crowd_data_notes_lights_unweighted_mean(crowd):
    df = crowd(9_000, 3_000)
    with pytest.warns(kl.errors.PairwiseMeanWarning):
        light = kl.light_kappa(kl.Annotations.from_long(df))
    report = kl.agreement_report(kl.Annotations.from_long(df), ci="analytic").set_index(
        "coefficient")
    assert report.loc["Light's kappa", "value"] == pytest.approx(light.value, abs=1e-14)
    assert "unweighted mean" in report.loc["Light's kappa", "note"]
    assert np.isfinite(report["se"]).all()


def test_a_distance_matrix_as_level_gives_the_kappa_family_its_weights():
    """level=<matrix> crashed (`level == "nominal"` on an array): α takes the distances, the
    kappa family the weights 1 − δ/max δ, equal to passing those weights directly."""
    x = np.array([[0, 0, 1], [1, 1, 2], [2, 2, 2], [0, 1, 1], [2, 1, 2], [0, 0, 0]])
    delta = np.array([[0.0, 1.0, 4.0], [1.0, 0.0, 1.0], [4.0, 1.0, 0.0]])
    report = kl.agreement_report(x, level=delta).set_index("coefficient")
    assert report.loc["Krippendorff's alpha", "value"] == pytest.approx(
        kl.krippendorff_alpha(x, level=delta).value, abs=1e-14)
    fleiss = kl.fleiss_kappa(x, weights=1 - delta / 4)
    assert report.loc[fleiss.coefficient, "value"] == pytest.approx(fleiss.value, abs=1e-14)
    assert (report["note"] == "").all()


def test_report_with_bca_intervals_on_many_scores_from_many_raters():
    """The shape of Snow et al.'s anger ratings (100 items, 38 workers, 0–100 scores): the
    (raters × categories)² statistics of Light's κ asked for 34 GiB and the report failed."""
    rng = np.random.default_rng(5)
    mu = rng.uniform(0, 100, 100)
    x = np.full((100, 38), np.nan)
    for worker in range(38):
        rows = rng.choice(100, 26, replace=False)
        x[rows, worker] = np.clip(np.round(mu[rows] + rng.normal(0, 15, 26)), 0, 100)
    report = kl.agreement_report(x, level="interval", ci="bootstrap-bca", n_resamples=200,
                                 seed=1).set_index("coefficient")
    # the ICC needs items rated by every worker: there are none, and its row says so
    assert report.loc["ICC(2,1)", "note"].startswith("not computed: no item is rated by all")
    report = report.drop(index="ICC(2,1)")
    assert np.isfinite(report["se"]).all() and (report["ci_low"] < report["value"]).all()
    alpha = kl.krippendorff_alpha(x, level="interval", ci="bootstrap-bca", n_resamples=200, seed=1)
    assert report.loc["Krippendorff's alpha", "ci_low"] == alpha.ci[0]


def test_report_computes_each_row_once_with_its_interval(monkeypatch):
    """With ci= each coefficient is computed once, interval included; an undefined value has
    no interval; an interval that cannot be formed is a note beside the value."""
    from kappalab.coefficients import multirater

    calls = []
    original = multirater.fleiss_kappa

    def counted(*args, **kwargs):
        calls.append(kwargs.get("ci"))
        return original(*args, **kwargs)

    monkeypatch.setattr(multirater, "fleiss_kappa", counted)
    x = [[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2], [1, 2, 1]]
    report = kl.agreement_report(x, ci="analytic").set_index("coefficient")
    assert calls == ["analytic"]
    fleiss = kl.fleiss_kappa(x, ci="analytic")
    assert report.loc["Fleiss' kappa", "se"] == fleiss.se
    assert report.loc["Fleiss' kappa", ["ci_low", "ci_high"]].tolist() == list(fleiss.ci)
    # every annotation in one category: κ undefined (note), no interval; percent agreement 1
    # with an interval of width 0
    same = kl.agreement_report([[1, 1], [1, 1], [1, 1]], ci="jackknife").set_index(
        "coefficient")
    assert np.isnan(same.loc["Fleiss' kappa", ["value", "se", "ci_low"]].astype(float)).all()
    assert "undefined" in same.loc["Fleiss' kappa", "note"]
    assert same.loc["percent agreement", "value"] == 1.0
    # one item: the values exist, an interval needs two items
    one = kl.agreement_report([[1, 1, 2]], ci="analytic").set_index("coefficient")
    assert one.loc["percent agreement", "value"] == pytest.approx(1 / 3, abs=1e-15)
    assert np.isnan(one.loc["percent agreement", "se"])
    assert one.loc["percent agreement", "note"].startswith("no interval: ")
    with pytest.raises(kl.errors.InvalidParameterError, match="n_resamples"):
        kl.agreement_report(x, ci="bootstrap", n_resamples=1)
