"""paper_repro.xrr_real: cross-replication reliability on the real MBIC and BABE files.

The files are read from ``KAPPALAB_DATA`` or the cache (``make test`` points KAPPALAB_DATA at a
shared data folder beside the clone when there is one); where they are absent every test here
skips and says so (``-ra`` lists the reason). The oracles are outside kappalab: κx is
recomputed by brute force with pandas and numpy from its definition (Wong, Paritosh & Aroyo
2021, eqs 6–11: κx = 1 − d_o/d_e, d_o the mean disagreement of the cross pairs within an item,
weighted by R_i + S_i, d_e that of all cross pairs of annotations regardless of item), and the
pools are checked against MBIC's own rater table.
"""

import warnings

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab.datasets import data_folder
from kappalab.datasets.real import SOURCE_FILES
from kappalab.errors import SharedRatersWarning
from paper_repro import xrr_real
from test_repro_status import assert_status_in

SOURCES = ("mbic", "babe-sg1", "babe-sg2")


def require_files():
    """Skip, naming the missing file, when the MBIC and BABE originals are not local."""
    for source in SOURCES:
        path = data_folder() / SOURCE_FILES[source].relative_path
        if not path.is_file():
            pytest.skip(f"real data absent: {path} (set KAPPALAB_DATA to a folder holding "
                        f"{SOURCE_FILES[source].relative_path}, or fetch it once with network)")


@pytest.fixture(scope="module")
def data():
    """label -> (pools, MBIC raters, level), the three pools with numeric codes."""
    require_files()
    return {label: xrr_real.load(label) for label in xrr_real.LABELS}


@pytest.fixture(scope="module")
def quick(data, tmp_path_factory):
    """The --quick run (in this process, so it reuses the files already read)."""
    out = tmp_path_factory.mktemp("xrr_real")
    assert xrr_real.main(["--quick", "--out", str(out)]) == 0
    return out


# ------------------------------------------------------------------------- the script
@pytest.mark.slow
def test_quick_run_writes_its_outputs(quick):
    for name in ("xrr_real_crowd_experts.csv", "xrr_real_pool_irr.csv", "xrr_real_shared.csv",
                 "xrr_real_sg1_annotators.csv", "xrr_real_pools.csv", "xrr_real_fig7.csv",
                 "xrr_real_fig7_summary.csv", "xrr_real.md"):
        assert (quick / name).stat().st_size > 200, name
    assert (quick / "xrr_real.png").stat().st_size > 20_000
    text = (quick / "xrr_real.md").read_text()
    assert "REAL" in text and "SIMULATED" not in text
    for fragment in ("(b1) Crowd vs experts", "(b2) Fig. 7 on real pools", "Runtimes",
                     "SG1–SG2", "Dropped pools"):
        assert fragment in text, fragment
    assert_status_in(text, "xrr_real")

    crowd = pd.read_csv(quick / "xrr_real_crowd_experts.csv")
    assert set(crowd["label"]) == {"bias", "opinion"}
    assert {"crowd–SG1", "crowd–SG2", "SG1–SG2", "SG1 without shared–SG2"} <= set(crowd["pair"])
    estimates = crowd[crowd["quantity"].isin(["IRR_X", "IRR_Y", "kappa_x",
                                              "normalized_kappa_x", "rho_xy"])]
    assert np.isfinite(estimates[["value", "ci_low", "ci_high"]].to_numpy()).all()
    assert (estimates["ci_low"] <= estimates["value"]).all()
    assert (estimates["value"] <= estimates["ci_high"]).all()
    # the shared annotators are reported where they are, and only there
    noted = crowd[crowd["quantity"] == "kappa_x"].set_index(["label", "pair"])["note"]
    assert noted.loc[("bias", "SG1–SG2")].startswith("5 rater id(s)")
    assert pd.isna(noted.loc[("bias", "crowd–SG1")])  # no note: no shared rater

    pairs = pd.read_csv(quick / "xrr_real_fig7.csv")
    assert len(pairs) >= 20
    assert np.isfinite(pairs[["normalized_kx", "rho_xy"]].to_numpy()).all()
    summary = pd.read_csv(quick / "xrr_real_fig7_summary.csv")
    assert summary.loc[0, "pairs"] == "all pairs"
    assert summary.loc[0, "n_pairs"] == len(pairs)
    assert summary.loc[0, "r_low"] <= summary.loc[0, "pearson_r"] <= summary.loc[0, "r_high"]
    assert np.isclose(summary.loc[0, "pearson_r"],
                      np.corrcoef(pairs["normalized_kx"], pairs["rho_xy"])[0, 1])


# ------------------------------------------------------------------------- (b1)
def on_common(pools):
    items = xrr_real.common_items(pools)
    return {name: ann.subset_items(items) for name, ann in pools.items()}


@pytest.mark.slow
@pytest.mark.parametrize("label", ["bias", "opinion"])
def test_sg1_sg2_normalized_kx_exceeds_1_and_warns_of_shared_raters(data, label):
    pools, _, level = data[label]
    sides = on_common(pools)
    with pytest.warns(SharedRatersWarning, match="5 rater id"):
        nkx = kl.normalized_cross_kappa(sides["SG1"], sides["SG2"], level=level)
    assert nkx.value > 1.05
    # the shared annotators gave (nearly) the same labels in both files
    shared = sides["SG1"].raters.intersection(sides["SG2"].raters)
    assert sorted(shared) == [1, 2, 3, 7, 9]
    both = sides["SG1"].to_long().merge(sides["SG2"].to_long(), on=["item", "rater"])
    assert (both["value_x"] == both["value_y"]).mean() > 0.99
    # crowd and experts share nobody: no warning, and normalized κx below 1
    with warnings.catch_warnings():
        warnings.simplefilter("error", SharedRatersWarning)
        crowd = kl.normalized_cross_kappa(sides["crowd"], sides["SG1"], level=level)
    assert 0 < crowd.value < 1


def delta_squared(level, pooled_counts):
    """δ² between category codes: nominal (0/1) or Krippendorff's ordinal metric on the pooled
    counts n_g, (Σ_{g=c..k} n_g − (n_c + n_k)/2)², written out here."""
    k = len(pooled_counts)
    table = np.zeros((k, k))
    for c in range(k):
        for d in range(k):
            if level == "nominal":
                table[c, d] = float(c != d)
            else:
                low, high = min(c, d), max(c, d)
                table[c, d] = (pooled_counts[low:high + 1].sum()
                               - (pooled_counts[c] + pooled_counts[d]) / 2) ** 2
    return table


def brute_force_kx(x_long, y_long, level, k):
    """κx from its definition, with every cross pair of annotations formed explicitly."""
    xv, yv = x_long["value"].to_numpy(), y_long["value"].to_numpy()
    pooled = np.bincount(np.r_[xv, yv], minlength=k).astype(float)
    delta = delta_squared(level, pooled)
    within = x_long.merge(y_long, on="item", suffixes=("_x", "_y"))  # pairs within an item
    within["d"] = delta[within["value_x"], within["value_y"]]
    per_item = within.groupby("item")["d"].mean()
    r_i = x_long.groupby("item").size().reindex(per_item.index)
    s_i = y_long.groupby("item").size().reindex(per_item.index)
    d_o = ((r_i + s_i) * per_item).sum() / (r_i + s_i).sum()
    d_e = delta[xv[:, None], yv[None, :]].mean()  # every X annotation with every Y annotation
    return 1 - d_o / d_e


@pytest.mark.slow
@pytest.mark.parametrize("label", ["bias", "opinion"])
@pytest.mark.parametrize("expert", ["SG1", "SG2"])
def test_cross_kappa_crowd_vs_experts_equals_brute_force(data, label, expert):
    pools, _, level = data[label]
    sides = on_common(pools)
    rng = np.random.default_rng(7)
    subset = rng.choice(sides["crowd"].items, size=160, replace=False)
    x, y = sides["crowd"].subset_items(subset), sides[expert].subset_items(subset)
    k = len(x.categories)
    expected = brute_force_kx(x.to_long(), y.to_long(), level, k)
    assert kl.cross_kappa(x, y, level=level).value == pytest.approx(expected, abs=1e-10)
    # and on every common sentence, d_e from the counts (the same double sum, grouped)
    lx, ly = sides["crowd"].to_long(), sides[expert].to_long()
    nx = np.bincount(lx["value"], minlength=k).astype(float)
    ny = np.bincount(ly["value"], minlength=k).astype(float)
    delta = delta_squared(level, nx + ny)
    within = lx.merge(ly, on="item", suffixes=("_x", "_y"))
    within["d"] = delta[within["value_x"], within["value_y"]]
    per_item = within.groupby("item")["d"].mean()
    weight = (lx.groupby("item").size() + ly.groupby("item").size()).reindex(per_item.index)
    d_o = (weight * per_item).sum() / weight.sum()
    d_e = nx @ delta @ ny / (nx.sum() * ny.sum())
    full = kl.cross_kappa(sides["crowd"], sides[expert], level=level).value
    assert full == pytest.approx(1 - d_o / d_e, abs=1e-10)


@pytest.mark.slow
def test_quick_table_holds_the_estimators_values(data, quick):
    crowd = pd.read_csv(quick / "xrr_real_crowd_experts.csv")
    rows = crowd.set_index(["label", "pair", "quantity"])["value"]
    for label, (pools, _, level) in data.items():
        sides = on_common(pools)
        kx = kl.cross_kappa(sides["crowd"], sides["SG1"], level=level).value
        assert rows[(label, "crowd–SG1", "kappa_x")] == pytest.approx(kx, abs=1e-12)
        alpha = kl.krippendorff_alpha(sides["SG2"], level=level).value
        assert rows[(label, "crowd–SG2", "IRR_Y")] == pytest.approx(alpha, abs=1e-12)


# ------------------------------------------------------------------------- (b2) pools
@pytest.mark.slow
@pytest.mark.parametrize("ideology", ["sign", "terciles"])
def test_pools_are_disjoint_and_cover_the_raters_they_claim(data, ideology):
    pools, raters, _ = data["bias"]
    crowd = pools["crowd"]
    assignment = xrr_real.rater_pools(raters, ideology)
    assert set(assignment["characteristic"]) == set(xrr_real.CHARACTERISTICS)
    for characteristic, sub in assignment.groupby("characteristic"):
        # every MBIC worker in exactly one pool of the characteristic
        assert not sub["rater"].duplicated().any(), characteristic
        assert set(sub["rater"]) == set(raters.index), characteristic
        total = 0
        for _, members in sub.groupby("pool"):
            ann = xrr_real.pool_annotations(crowd, members["rater"])
            assert set(ann.to_long()["rater"]) <= set(members["rater"])
            total += ann.n_annotations
        assert total == crowd.n_annotations, characteristic
    # the pools follow the raters' own answers
    political = assignment[assignment["characteristic"] == "political_ideology"]
    ideo = raters["political_ideology"].reindex(political["rater"]).to_numpy()
    if ideology == "sign":
        left = political["pool"].to_numpy() == "left (<0)"
        assert np.array_equal(left, ideo < 0)
        assert political["pool"].nunique() == 3
    else:
        assert political["pool"].nunique() == 3
    age = assignment[assignment["characteristic"] == "age_band"]
    assert np.array_equal(age["pool"].to_numpy(),
                          raters["age_band"].astype(str).reindex(age["rater"]).to_numpy())


@pytest.mark.slow
def test_small_pools_are_dropped_and_the_pairs_use_kept_pools_only(data, quick):
    sizes = pd.read_csv(quick / "xrr_real_pools.csv")
    pools, raters, _ = data["bias"]
    assert (sizes.groupby("characteristic")["raters"].sum() == len(raters)).all()
    assert (sizes["kept"] == (sizes["items_with_two"] >= xrr_real.MIN_ITEMS_WITH_TWO)).all()
    dropped = set(sizes.loc[~sizes["kept"], "pool"])
    assert "near-native or non-native" in dropped  # 23 workers
    pairs = pd.read_csv(quick / "xrr_real_fig7.csv")
    kept = set(zip(sizes.loc[sizes["kept"], "characteristic"], sizes.loc[sizes["kept"], "pool"]))
    for row in pairs.itertuples():
        assert (row.characteristic, row.pool_x) in kept
        assert (row.characteristic, row.pool_y) in kept
    # every pair of kept pools within a characteristic, for both labels
    per_characteristic = sizes[sizes["kept"]].groupby("characteristic").size()
    expected = int(sum(n * (n - 1) // 2 for n in per_characteristic)) * 2
    assert len(pairs) == expected
