"""paper_repro.spa_mbic: SPA Figs 6–7 and Table 1 on the real MBIC bias labels.

The MBIC file is read from ``KAPPALAB_DATA`` or the cache; where it is absent every test that
needs it skips and says so (``-ra`` lists the reason). The oracles are outside the subsampling
engine: ``kl.spa`` on the full data (where every round has used every label), brute-force
enumeration of every j-subset of a few real items' labels (the exact W_j, B_j and constant-j
variance the script's "data_variance" column rests on), and the measured variance over rounds
against that exact value within its Monte-Carlo error.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab.datasets import data_folder
from kappalab.datasets.real import SOURCE_FILES
from kappalab.errors import InvalidParameterError
from paper_repro import spa_engine, spa_fig6, spa_mbic
from test_repro_status import assert_status_in


def require_mbic():
    """Skip, naming the missing file, when the MBIC original is not local."""
    path = data_folder() / SOURCE_FILES["mbic"].relative_path
    if not path.is_file():
        pytest.skip(f"real data absent: {path} (set KAPPALAB_DATA to a folder holding "
                    f"{SOURCE_FILES['mbic'].relative_path}, or fetch it once with network)")


@pytest.fixture(scope="module")
def mbic():
    require_mbic()
    ann, notes = spa_mbic.load("separate")
    return ann


@pytest.fixture(scope="module")
def quick(mbic, tmp_path_factory):
    """The --quick run (in this process, so it reuses the file already read)."""
    out = tmp_path_factory.mktemp("spa_mbic")
    assert spa_mbic.main(["--quick", "--out", str(out)]) == 0
    return out


# ------------------------------------------------------------------------- the script
@pytest.mark.slow
def test_quick_run_writes_its_outputs(quick):
    for name in ("spa_mbic_fig6.csv", "spa_mbic_fig6_components.csv", "spa_mbic_fig7.csv",
                 "spa_mbic_table1.csv", "spa_mbic_table1.md", "spa_mbic.md"):
        assert (quick / name).stat().st_size > 300, name
    for name in ("spa_mbic_fig6.png", "spa_mbic_fig6_components.png", "spa_mbic_fig7.png",
                 "spa_mbic_fig7_relative.png"):
        assert (quick / name).stat().st_size > 20_000, name
    summary = (quick / "spa_mbic.md").read_text()
    assert "REAL DATA" in summary and "duplicates='separate'" in summary
    for fragment in ("## Fig. 6", "## Fig. 7 / Table 1", "Does annotations_m1 work well",
                     "Verdict:", "beside the stand-in", "## Runtime", "s CPU"):
        assert fragment in summary, fragment
    assert_status_in(summary, "spa_mbic")
    table = pd.read_csv(quick / "spa_mbic_table1.csv")
    assert set(table.data) == {"real data"} and set(table.dataset) == {spa_mbic.REAL}
    assert list(table.scheme) == list(spa_engine.SCHEMES)  # no oracle row on real data
    assert sorted(table["rank"]) == list(range(1, 7))
    assert "REAL DATA" in (quick / "spa_mbic_table1.md").read_text()


@pytest.mark.slow
def test_fig6_has_both_panels_and_every_j(quick):
    frame = pd.read_csv(quick / "spa_mbic_fig6.csv")
    assert set(frame.dataset) == {spa_mbic.REAL, spa_mbic.STAND_IN}
    real = frame[frame.dataset == spa_mbic.REAL]
    # every sentence has 9–12 labels: constant j = 2..12 (the quick run needs ≥ 10 items)
    assert sorted(real.j.dropna().unique().astype(int)) == list(range(2, 13))
    assert real.data_variance.notna().any() and real.theory_variance.isna().all()
    const = real[real.j.notna()]
    assert (const.annotations_used == const["items"] * const.j).all()


@pytest.mark.slow
def test_stand_in_panel_is_the_stand_in_of_spa_fig6(quick):
    # same simulated dataset and subsampling stream as spa_fig6's MBIC at the same settings
    frame = pd.read_csv(quick / "spa_mbic_fig6.csv")
    mine = frame[frame.dataset == spa_mbic.STAND_IN].reset_index(drop=True)
    theirs = pd.DataFrame(spa_fig6.run_dataset(
        "MBIC", quick=False, seed=20220812, rounds=spa_mbic.QUICK_ROUNDS, points=15,
        min_items=10)["rows"])
    assert len(mine) == len(theirs)
    np.testing.assert_allclose(mine.variance, theirs.variance, rtol=1e-9)
    np.testing.assert_allclose(mine.annotations_used, theirs.annotations_used)


@pytest.mark.slow
def test_full_data_spa_of_every_scheme_is_kl_spa(quick, mbic):
    # at N = every label on items with ≥ 2, every round has used all of them: the value is
    # the full-data SPA in every round (variance 0), which kl.spa computes independently
    curves = pd.read_csv(quick / "spa_mbic_fig7.csv")
    last = curves[curves.annotations_used == curves.annotations_used.max()]
    assert int(last.annotations_used.iloc[0]) == mbic.to_long().shape[0] == 17_775
    for row in last.itertuples():
        assert row.mean_spa == pytest.approx(kl.spa(mbic, scheme=row.scheme).value, abs=1e-12)
        assert row.variance < 1e-25
    fig6 = pd.read_csv(quick / "spa_mbic_fig6.csv")
    sparse = fig6[(fig6.dataset == spa_mbic.REAL) & fig6.curve.str.startswith("sparse")]
    end = sparse[sparse.annotations_used == sparse.annotations_used.max()].iloc[0]
    assert end.mean_spa == pytest.approx(kl.spa(mbic, scheme="flat").value, abs=1e-12)


def test_duplicates_policies_differ_by_the_twenty_repeated_submissions(mbic):
    first, _ = spa_mbic.load("first")
    assert mbic.to_long().shape[0] - first.to_long().shape[0] == 20
    assert first.n_items == mbic.n_items == 1700


# ------------------------------------------------------------------------- exact variance
def item_labels(ann: kl.Annotations, items) -> list[np.ndarray]:
    long = ann.to_long()
    return [long.loc[long.item == i, "value"].to_numpy() for i in items]


def agreement(labels) -> float:
    """Share of agreeing pairs among all pairs of the labels (by counting them)."""
    pairs = list(itertools.combinations(labels, 2))
    return sum(a == b for a, b in pairs) / len(pairs)


@pytest.mark.parametrize("j", [2, 3, 9])
def test_subset_components_against_enumeration_on_real_items(mbic, j):
    items = list(mbic.items[:6])
    labels = item_labels(mbic, items)
    within, full = [], []
    for lab in labels:
        values = [agreement(sub) for sub in itertools.combinations(lab, j)]
        within.append(np.var(values))  # over every j-subset, equally likely
        full.append(agreement(lab))
        assert np.mean(values) == pytest.approx(full[-1], abs=1e-12)  # P̂_j is unbiased
    ds = spa_engine.Dataset.from_annotations(mbic.subset_items(items), "six")
    comp = spa_engine.subset_agreement_components(ds, j)
    assert comp["eligible"] == 6
    assert comp["within"] == pytest.approx(np.mean(within), abs=1e-12)
    assert comp["between"] == pytest.approx(np.var(full), abs=1e-12)


def test_constant_j_variance_against_enumeration_on_real_items(mbic):
    # SPA of n = 2 of E = 4 real sentences drawn without replacement, 2 random labels each:
    # every (pair of items, subset, subset) is equally likely
    items = list(mbic.items[10:14])
    per_item = [np.array([agreement(s) for s in itertools.combinations(lab, 2)])
                for lab in item_labels(mbic, items)]
    values = []
    for a, b in itertools.combinations(range(4), 2):
        values.append(((per_item[a][:, None] + per_item[b][None, :]) / 2).ravel())
    # each pair of items is equally likely, then each pair of subsets
    weights = np.concatenate([np.full(v.size, 1 / v.size) for v in values]) / len(values)
    values = np.concatenate(values)
    mean = weights @ values
    exact = weights @ (values - mean) ** 2
    ds = spa_engine.Dataset.from_annotations(mbic.subset_items(items), "four")
    comp = spa_engine.subset_agreement_components(ds, 2)
    assert spa_engine.constant_j_variance(comp, np.array([2]))[0] == pytest.approx(exact,
                                                                                   rel=1e-10)


@pytest.mark.slow
def test_measured_constant_j_variance_matches_the_exact_value(mbic):
    # 400 rounds: a variance over rounds has relative SE ≈ √(2/399) ≈ 7 %
    ds = spa_engine.Dataset.from_annotations(mbic, spa_mbic.REAL)
    result = spa_fig6.analyse(ds, rounds=400, points=8, min_items=100,
                              rng=np.random.default_rng(7))
    rows = pd.DataFrame(result["rows"])
    const = rows[rows.j.notna() & (rows.annotations_used >= 100)
                 & (rows.data_variance > 1e-12)]
    assert sorted(const.j.unique().astype(int)) == list(range(2, 13))
    ratio = const.variance / const.data_variance
    se = np.sqrt(2 / 399)
    assert np.all(np.abs(ratio - 1) < 5 * se), ratio.describe()
    # pooled over ~60 points (correlated within a j), the mean ratio is close to 1
    assert abs(ratio.mean() - 1) < 2 * se


# ------------------------------------------------------------------------- no data
def test_absent_file_stops_with_a_message_naming_the_folder(monkeypatch, tmp_path, capsys):
    def absent(*args, **kwargs):
        raise InvalidParameterError("mbic/raw_labels_MBIC.xlsx is absent")

    monkeypatch.setattr(spa_mbic, "fetch", absent)
    assert spa_mbic.main(["--quick", "--out", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "KAPPALAB_DATA" in err and str(data_folder()) in err
    assert not list(tmp_path.iterdir())
