"""agreement_report on data where a coefficient cannot be computed, and on crowd data."""

from fractions import Fraction
import re

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
    from dataclasses import replace

    from kappalab.coefficients import registry

    calls = []
    original = kl.fleiss_kappa

    def counted(*args, **kwargs):
        calls.append(kwargs.get("ci"))
        return original(*args, **kwargs)

    # the report calls the registry's function: Fleiss' entry, its function counted
    monkeypatch.setattr(registry, "REGISTRY", tuple(
        replace(entry, function=counted) if entry.name == "fleiss_kappa" else entry
        for entry in registry.REGISTRY))
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


# ---------------------------------------------------------------- first hour: the printed table
def printed_cells(text):
    """The cells of a printed report, read back by the header's columns: every column but the
    first is right-aligned and ends where its header ends; the first (left-aligned, names of
    single spaces) is what precedes the second's cell, two spaces or more before it. Returns
    the header names, the rows (dicts of stripped cells) and the lines below the table."""
    lines = text.splitlines()
    header = lines[0]
    names = header.split()
    ends, position = [], 0
    for name in names:
        position = header.index(name, position) + len(name)
        ends.append(position)
    rows, k = [], 1
    while k < len(lines) and lines[k].strip():
        line = lines[k]
        first, second = re.fullmatch(r"(.*?)\s{2,}(\S+)", line[:ends[1]]).groups()
        row = {names[0]: first.strip(), names[1]: second}
        row.update({name: line[start:end].strip() for name, start, end
                    in zip(names[2:], ends[1:], ends[2:])})
        assert not line[ends[-1]:].strip(), line  # nothing beyond the last column
        rows.append(row)
        k += 1
    return names, rows, lines[k:]


def test_printing_a_report_shows_every_row_with_notes_as_footnotes():
    """`print(agreement_report(...))` collapsed to `...` because the note column was padded
    to its longest note: the printed table has one line per row, numbers as the frame has
    them (4 decimals, counts as integers), the notes numbered under it, nothing cut."""
    x = [[1, 1], [1, 1], [1, 1]]  # 2 raters, 3 items, one category: P_e = 1, κ undefined
    report = kl.agreement_report(x, ci="jackknife")
    text = str(report)
    assert text == repr(report) and "..." not in text
    names, rows, below = printed_cells(text)
    assert names[:3] == ["coefficient", "value", "se"] and "note" not in names
    assert len(rows) == len(report) == 11
    notes = [n for n in dict.fromkeys(report["note"]) if n]
    assert notes and max(map(len, notes)) > 120  # why each chance-corrected value is NaN
    footnotes = " ".join(" ".join(below).split())
    for (_, row), cells in zip(report.iterrows(), rows):
        assert cells["coefficient"].startswith(row.coefficient)
        assert cells["value"] == ("NaN" if np.isnan(row.value) else f"{row.value:.4f}")
        for column in ["n_items", "n_annotations", "n_raters"]:
            assert cells[column] == str(int(row[column])), column  # 3, 6, 2: no 3.0000
        if row.note:
            marker = f"[{notes.index(row.note) + 1}]"
            assert cells["coefficient"] == f"{row.coefficient} {marker}"
            assert f"{marker} {' '.join(row.note.split())}" in footnotes
    assert max(map(len, text.splitlines()[:len(rows) + 1])) <= 120


def test_the_printed_report_leaves_inapplicable_cells_and_empty_columns_out():
    """Percent agreement has no expected agreement (it was printed as 0.0000), the ICC neither
    observed nor expected agreement; without ci= the se and interval columns are empty and
    not printed (they were full of NaN)."""
    x = np.array([[1, 2, 3], [2, 2, 3], [3, 3, 3], [1, 1, 2], [4, 4, 4], [2, 3, 3]])
    report = kl.agreement_report(x, level="interval")
    frame = report.set_index("coefficient")
    assert np.isnan(frame.loc["percent agreement (weighted)", "expected"])
    assert np.isnan(frame.loc["ICC(2,1)", ["observed", "expected"]].astype(float)).all()
    # P_o by hand, the mean over items of the pairs' weights 1 − (a − b)²/3² (categories 1–4):
    # (1, 2, 3): (8/9 + 5/9 + 8/9)/3 = 7/9; (2, 2, 3), (1, 1, 2), (2, 3, 3): (1 + 16/9)/3 =
    # 25/27; (3, 3, 3), (4, 4, 4): 1. Mean (21 + 3·25 + 2·27)/(27·6) = 25/27
    assert frame.loc["percent agreement (weighted)", "observed"] == pytest.approx(
        float(Fraction(25, 27)), abs=1e-12)
    text = str(report)
    assert not re.search(r"\bnan\b", text, flags=re.IGNORECASE)
    names, rows, below = printed_cells(text)
    assert names == ["coefficient", "value", "observed", "expected", "level", "n_items",
                     "n_annotations", "n_raters"]
    cells = {row["coefficient"]: row for row in rows}
    assert cells["percent agreement (weighted)"]["expected"] == ""
    assert cells["ICC(2,1)"]["observed"] == cells["ICC(2,1)"]["expected"] == ""
    alpha_expected = frame.loc["Krippendorff's alpha", "expected"]
    assert cells["Krippendorff's alpha"]["expected"] == f"{alpha_expected:.4f}"
    assert not any(line.strip() for line in below)  # no note, no footnote
