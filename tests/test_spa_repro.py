"""The SPA paper-reproduction scripts (``paper_repro.spa_fig4`` … ``spa_fig7_table1``): each
runs with --quick into a temporary folder, writes its outputs, and the outputs hold the key
facts.

Every expected number is computed here by hand (closed forms written out below, exact
multinomial enumeration, or plain-Python counting of item agreements), not by kappalab.
"""

from __future__ import annotations

import itertools
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from paper_repro import spa_engine, spa_fig4, spa_fig5, spa_fig6, spa_fig7_table1
from test_repro_status import assert_status_in

ROOT = Path(__file__).resolve().parents[1]
SCHEMES = ["flat", "annotations", "annotations_m1", "edges", "inv_var", "inv_var_class"]
DATASETS = ["DAR", "MBIC", "BSMTWE", "FECG"]
SEED = 20220812


def run(script, out: Path, *extra: str) -> None:
    """A paper_repro script's main() in this process, with --quick into ``out``."""
    assert script.main(["--quick", "--out", str(out), "--seed", str(SEED), *extra]) == 0


# ---------------------------------------------------------------- hand formulas
def u_statistic_variance(n: int, p: np.ndarray) -> float:
    """Var of P = Σ_{r≠s} 1[x_r = x_s]/(n(n−1)), x iid p: a U-statistic of order 2, so
    Var = (4(n−2)ζ₁ + 2ζ₂)/(n(n−1)) with ζ₁ = Var(p_X) = Σp³ − (Σp²)², ζ₂ = a(1 − a)."""
    a, b = float((p ** 2).sum()), float((p ** 3).sum())
    return (4 * (n - 2) * (b - a * a) + 2 * a * (1 - a)) / (n * (n - 1))


def enumerated_variance(n: int, p: np.ndarray) -> float:
    """Var of P by exact enumeration of all multinomial outcomes (n annotations, C classes)."""
    C = p.size
    mean = second = 0.0
    for counts in itertools.product(range(n + 1), repeat=C):
        if sum(counts) != n:
            continue
        prob = math.factorial(n) * math.prod(p[c] ** k / math.factorial(k)
                                             for c, k in enumerate(counts))
        agreement = sum(k * (k - 1) for k in counts) / (n * (n - 1))
        mean += prob * agreement
        second += prob * agreement ** 2
    return second - mean ** 2


def hand_weight(scheme: str, n: int, n_classes: int, p: np.ndarray) -> float:
    if n < 2:
        return 0.0
    return {"flat": 1.0, "annotations": float(n), "annotations_m1": n - 1.0,
            "edges": n * (n - 1) / 2,
            "inv_var": 1 / u_statistic_variance(n, np.full(n_classes, 1 / n_classes)),
            "inv_var_class": 1 / u_statistic_variance(n, p)}[scheme]


def hand_spa(item_labels: dict[int, list[int]], scheme: str, n_classes: int,
             p: np.ndarray) -> float:
    """SPA by plain counting: Σ k_i P_i / Σ k_i over items with ≥ 2 annotations."""
    num = den = 0.0
    for labels in item_labels.values():
        n = len(labels)
        if n < 2:
            continue
        agreement = sum(k * (k - 1) for k in Counter(labels).values()) / (n * (n - 1))
        k = hand_weight(scheme, n, n_classes, p)
        num += k * agreement
        den += k
    return num / den


# ---------------------------------------------------------------- fig 4
@pytest.fixture(scope="module")
def fig4(tmp_path_factory):
    out = tmp_path_factory.mktemp("spa_fig4")
    run(spa_fig4, out)
    return out


def test_fig4_inv_var_curves_coincide_and_equal_edges(fig4, capsys):
    assert (fig4 / "spa_fig4.png").stat().st_size > 10_000
    frame = pd.read_csv(fig4 / "spa_fig4.csv")
    top = frame[frame.panel == "top"]
    assert sorted(top.n_classes.unique()) == list(range(2, 8))
    assert sorted(top.n_annotations.unique()) == list(range(2, 11))
    # the mean-subtracted curves coincide for every C
    spread = top.groupby("n_annotations").minus_mean.agg(lambda v: v.max() - v.min())
    assert spread.max() < 1e-12
    # and equal n(n−1)/Σ m(m−1), Σ_{m=2}^{10} m(m−1) = 330 (hand sum: 2+6+12+20+30+42+56+72+90)
    n = top.n_annotations.to_numpy()
    np.testing.assert_allclose(top.weight_normalised, n * (n - 1) / 330, rtol=0, atol=1e-14)
    bottom = frame[frame.panel == "bottom"].pivot(index="n_annotations", columns="scheme",
                                                  values="weight_normalised")
    m = bottom.index.to_numpy()
    # Σ n = 54, Σ (n − 1) = 45, Σ n(n−1)/2 = 165 over n = 2..10
    np.testing.assert_allclose(bottom["annotations"], m / 54, atol=1e-15)
    np.testing.assert_allclose(bottom["annotations_m1"], (m - 1) / 45, atol=1e-15)
    np.testing.assert_allclose(bottom["edges"], m * (m - 1) / 330, atol=1e-15)
    np.testing.assert_allclose(bottom["inv_var"], m * (m - 1) / 330, atol=1e-15)


@pytest.mark.slow
def test_fig4_states_the_proof_and_the_measured_spread(tmp_path):
    # as a program, the way `make repro` runs it: python -m from the repository root
    result = subprocess.run([sys.executable, "-m", "paper_repro.spa_fig4", "--quick", "--out",
                             str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 0, result.stderr
    assert "2(C-1)/(C^2 n(n-1))" in result.stdout
    assert "n(n-1)/sum_m m(m-1)" in result.stdout
    spread = float(result.stdout.split("(C = 2..7, n = 2..10): ")[1].split()[0])
    assert spread < 1e-12
    assert "uses no data" in result.stdout


# ---------------------------------------------------------------- fig 5
@pytest.fixture(scope="module")
def fig5(tmp_path_factory):
    out = tmp_path_factory.mktemp("spa_fig5")
    run(spa_fig5, out)
    return out


@pytest.mark.slow
def test_fig5_sums_are_a_function_of_s_alone(fig5):
    assert (fig5 / "spa_fig5.png").stat().st_size > 10_000
    frame = pd.read_csv(fig5 / "spa_fig5.csv")
    counts = frame.groupby(["panel", "n_classes"]).size()
    assert (counts["curves"] == 10).all() and list(counts["curves"].index) == list(range(2, 11))
    assert (counts["sums"] >= 25).all()
    for _, row in frame.iterrows():
        p = row[[f"p_{c}" for c in range(1, int(row.n_classes) + 1)]].to_numpy(float)
        a, b = (p ** 2).sum(), (p ** 3).sum()
        s = 2 * (b - a * a) / (a * (1 - a))
        assert abs(row.s - s) < 1e-12
        assert -1e-12 <= s <= 1 + 1e-12  # Hoeffding: ζ₁ ≤ ζ₂/2
        assert abs(row.entropy + (p * np.log(p)).sum()) < 1e-12
        # w(n)/w(10) = n(n−1)(1 + 8s)/(90(1 + (n−2)s)), summed over n = 2..10
        closed = sum(n * (n - 1) * (1 + 8 * s) / (90 * (1 + (n - 2) * s)) for n in range(2, 11))
        assert abs(row.sum_under_curve - closed) < 1e-10
        # between edges (330/90) and annotations (54/10)
        assert 330 / 90 - 1e-12 <= row.sum_under_curve <= 5.4 + 1e-12
        assert row.w_1 == 0 and abs(row.w_10 - 1) < 1e-15


@pytest.mark.slow
def test_fig5_curves_are_inverse_enumerated_variances(fig5):
    frame = pd.read_csv(fig5 / "spa_fig5.csv")
    row = frame[(frame.panel == "curves") & (frame.n_classes == 3)].iloc[0]
    p = row[["p_1", "p_2", "p_3"]].to_numpy(float)
    inverse = np.array([1 / enumerated_variance(n, p) for n in range(2, 11)])
    np.testing.assert_allclose(row[[f"w_{n}" for n in range(2, 11)]].to_numpy(float),
                               inverse / inverse[-1], rtol=1e-10)


# ---------------------------------------------------------------- the subsampling engine
def test_random_addition_engine_matches_plain_counting():
    ds = spa_engine.simulate_dataset("BSMTWE", quick=True, seed=11)
    rng = np.random.default_rng(5)
    R, A = 3, ds.n_annotations
    ranks = np.stack([rng.permutation(A) for _ in range(R)])
    order = np.stack([rng.permutation(ds.n_items) for _ in range(R)])
    targets = np.array([2, 3, 7, 20, 61, 150, ds.pairable_annotations])
    p = ds.class_distribution()
    tables = {s: spa_engine.weight_table(s, ds.max_m, ds.n_classes, p) for s in SCHEMES}
    constant = {j: np.array([1, 2, 5, int((ds.m >= j).sum())]) for j in (2, 3, 4)}
    out = spa_engine.random_addition_block(ds, ranks, targets, tables, order, constant)
    item, slot = np.nonzero(ds.labels >= 0)  # annotations in Dataset.flat_positions order
    label = ds.labels[item, slot]
    for r in range(R):
        for t, target in enumerate(targets):
            prefix = int(out["_prefix"][r, t])

            def state(n_added):
                items: dict[int, list[int]] = {}
                for a in np.flatnonzero(ranks[r] < n_added):
                    items.setdefault(int(item[a]), []).append(int(label[a]))
                used = sum(len(v) for v in items.values() if len(v) >= 2)
                return items, used

            items, used = state(prefix)
            assert out["_used"][r, t] == used and target <= used <= target + 1
            assert state(prefix - 1)[1] < target  # the first prefix that reaches the target
            for s in SCHEMES:
                assert abs(out[s][r, t] - hand_spa(items, s, ds.n_classes, p)) < 1e-12
        # constant j per item: the j earliest arrivals of each eligible item, items in `order`
        for j, counts in constant.items():
            values = []
            for i in order[r]:
                if ds.m[i] < j:
                    continue
                mine = np.flatnonzero(item == i)
                first = mine[np.argsort(ranks[r][mine])[:j]]
                values.append(sum(k * (k - 1) for k in Counter(label[first]).values())
                              / (j * (j - 1)))
            expected = np.cumsum(values)[counts - 1] / counts
            np.testing.assert_allclose(out[f"constant_{j}"][r], expected, rtol=0, atol=1e-13)


# ---------------------------------------------------------------- fig 6
def dirichlet_multinomial_agreement(j: int, alpha: np.ndarray) -> tuple[float, float]:
    """E and E[·²] of P̂ = Σ n_c(n_c−1)/(j(j−1)) for counts ~ Dirichlet-multinomial(j, α), by
    enumerating every count vector: pmf = j!/Π n_c! · Γ(α₀)/Γ(j+α₀) · Π Γ(n_c+α_c)/Γ(α_c)."""
    from scipy.special import gammaln

    a0 = alpha.sum()
    first = second = 0.0
    for counts in itertools.product(range(j + 1), repeat=alpha.size):
        if sum(counts) != j:
            continue
        n = np.array(counts, dtype=float)
        log_pmf = (gammaln(j + 1) - gammaln(n + 1).sum() + gammaln(a0) - gammaln(j + a0)
                   + (gammaln(n + alpha) - gammaln(alpha)).sum())
        agreement = float((n * (n - 1)).sum() / (j * (j - 1)))
        first += math.exp(log_pmf) * agreement
        second += math.exp(log_pmf) * agreement ** 2
    return first, second


@pytest.mark.parametrize("name", ["MBIC", "BSMTWE"])
def test_fig6_model_variance_matches_enumeration(name):
    truth = spa_engine.simulate_dataset(name, quick=True, seed=SEED).truth
    pi = np.array(truth.prevalence)
    for j in range(2, 7):
        moments = [dirichlet_multinomial_agreement(j, tau * pi)
                   for tau in truth.details["class_tau"]]  # easy and hard items, ½ each
        mean = np.mean([m[0] for m in moments])
        variance = np.mean([m[1] for m in moments]) - mean ** 2
        got_mean, got_variance = spa_engine.item_agreement_spread(truth, j)
        assert abs(got_mean - mean) < 1e-12 and abs(got_mean - truth.p_o) < 1e-12
        assert abs(got_variance - variance) < 1e-12


@pytest.fixture(scope="module")
def fig6(tmp_path_factory):
    out = tmp_path_factory.mktemp("spa_fig6")
    run(spa_fig6, out, "--jobs", "1")
    return out


def full_data_spa(name: str, scheme: str = "flat") -> float:
    ds = spa_engine.simulate_dataset(name, quick=True, seed=SEED)  # the script's stand-in
    items = {i: [int(v) for v in row[row >= 0]] for i, row in enumerate(ds.labels)}
    return hand_spa(items, scheme, ds.n_classes, ds.class_distribution())


def test_subset_components_match_enumeration_of_every_subset():
    # W_j: the mean over items of the variance of P̂_j over all j-subsets of the item's
    # annotations; B_j: the variance over the items with ≥ j annotations of their full P_i
    ds = spa_engine.simulate_dataset("BSMTWE", quick=True, seed=3)
    for j in (2, 3, 4, 5):
        got = spa_engine.subset_agreement_components(ds, j)
        within, full = [], []
        for row in ds.labels[ds.m >= j]:
            labels = row[row >= 0]
            values = [sum(k * (k - 1) for k in Counter(labels[list(s)]).values()) / (j * (j - 1))
                      for s in itertools.combinations(range(labels.size), j)]
            within.append(np.var(values))
            full.append(np.mean(values))
        assert got["eligible"] == len(full)
        assert abs(got["within"] - np.mean(within)) < 1e-12
        assert abs(got["between"] - np.var(full)) < 1e-12
        assert abs(got["mean"] - np.mean(full)) < 1e-12


@pytest.mark.slow
def test_fig6_outputs(fig6):
    for name in ("spa_fig6.png", "spa_fig6_components.png"):
        assert (fig6 / name).stat().st_size > 10_000
    frame = pd.read_csv(fig6 / "spa_fig6.csv")
    assert sorted(frame.dataset.unique()) == sorted(DATASETS)
    assert (frame.rounds == 20).all() and (frame.variance >= 0).all()
    for name, g in frame.groupby("dataset"):
        sparse = g[g.curve == "sparse (random addition)"].sort_values("annotations_used")
        assert 2 in set(g.j.dropna())
        # all annotations used: every round is the full dataset (variance 0, its SPA)
        assert sparse.variance.iloc[-1] < 1e-20
        assert abs(sparse.mean_spa.iloc[-1] - full_data_spa(name)) < 1e-12
        # far fewer annotations: far more variance
        assert sparse.variance.iloc[0] > 10 * sparse.variance.iloc[-2]
    # the exact variance of the constant-j experiment on these data predicts the measured one
    # (20 rounds: each variance is ±32 % (1 SE), so only the median over points is tight)
    const = frame[frame.j.notna()]
    assert const.data_variance.notna().all() and (const.data_variance >= 0).all()
    # 0 exactly where every eligible item is used with all its annotations: so is the measured
    zero = const.data_variance < 1e-20
    assert zero.any() and (const.variance[zero] < 1e-20).all()
    ratio = const.variance[~zero] / const.data_variance[~zero]
    assert 0.8 < ratio.median() < 1.2
    assert_status_in((fig6 / "spa_fig6.md").read_text(), "spa_fig6")


@pytest.mark.slow
def test_fig6_explains_the_rise_with_annotations_per_item(fig6):
    comp = pd.read_csv(fig6 / "spa_fig6_components.csv")
    assert sorted(comp.dataset.unique()) == sorted(DATASETS)
    np.testing.assert_allclose(comp.j_within, comp.j * comp.within_W, rtol=1e-12)
    np.testing.assert_allclose(comp.j_between, comp.j * comp.between_B, rtol=1e-12)
    np.testing.assert_allclose(comp.predicted_N_var,
                               comp.j_within + comp.j_between * comp.fpc_between, rtol=1e-12)
    # the FECG stand-in: every item has ≥ 5 annotations, so B_j is one number for j ≤ 5, and
    # the between-item term j·B_j outgrows the pair noise saved: N·Var rises from j = 3 on
    fecg = comp[comp.dataset == "FECG"].set_index("j")
    assert fecg.loc[2:5, "between_B"].nunique() == 1
    assert fecg.j_total.idxmin() == 3
    assert (np.diff(fecg.loc[3:, "j_total"]) > 0).all()
    assert (np.diff(fecg.j_within.loc[2:6]) < 0).all()
    # and so do the measured variances, on the whole (20 rounds: noisy point by point)
    assert fecg.measured_N_var.loc[10:].mean() > 1.3 * fecg.measured_N_var.loc[2:4].mean()
    # the model: the same decomposition in the population (items easy or hard)
    truth = spa_engine.simulate_dataset("FECG", quick=True, seed=SEED).truth
    model = [spa_engine.item_agreement_components(truth, j) for j in range(2, 13)]
    total = [j * (w + b) for j, (_, w, b) in zip(range(2, 13), model)]
    assert int(np.argmin(total)) + 2 == 3
    # the explanation is written where a reader of the figure looks
    markdown = (fig6 / "spa_fig6.md").read_text()
    assert "N·Var ≈ j·W_j + j·B_j" in markdown and "## FECG" in markdown
    assert "opposite of the paper" in markdown
    text = spa_fig6.caption("FECG", comp[comp.dataset == "FECG"], {"item_kinds": [0.87, 0.47]})
    assert "rises" in text and "opposite of the paper's FECG" in text


# ---------------------------------------------------------------- fig 7 / table 1
@pytest.fixture(scope="module")
def fig7(tmp_path_factory):
    out = tmp_path_factory.mktemp("spa_fig7")
    run(spa_fig7_table1, out, "--jobs", "1")
    return out


@pytest.mark.slow
def test_table1_one_row_per_dataset_and_scheme(fig7):
    for name in ("spa_fig7.csv", "spa_table1.csv", "spa_table1.md"):
        assert (fig7 / name).stat().st_size > 500
    for name in ("spa_fig7.png", "spa_fig7_relative.png"):
        assert (fig7 / name).stat().st_size > 10_000
    assert_status_in((fig7 / "spa_table1.md").read_text(), "spa_fig7_table1")
    everything = pd.read_csv(fig7 / "spa_table1.csv")
    assert (everything.data == "simulated stand-in").all()
    oracle = everything[everything.oracle]  # the model-optimal reference row, one per dataset
    assert sorted(oracle.dataset) == sorted(DATASETS) and oracle["rank"].isna().all()
    table = everything[~everything.oracle]
    assert len(table) == 24
    assert set(zip(table.dataset, table.scheme)) == set(itertools.product(DATASETS, SCHEMES))
    for _, t in table.groupby("dataset"):
        t = t.set_index("scheme")
        assert t.loc["flat", "area_minus_flat"] == 0
        # inv_var weights are n(n−1) times a constant: SPA equals edges' in every round
        assert abs(t.loc["inv_var", "area_variance"] - t.loc["edges", "area_variance"]) \
            <= 1e-9 * t.loc["edges", "area_variance"]
        assert sorted(t["rank"]) == list(range(1, 7))
    markdown = (fig7 / "spa_table1.md").read_text()
    assert "simulated stand-in" in markdown.lower() and "annotations_m1 works well" in markdown
    assert all(f"| {s} " in markdown for s in SCHEMES)


@pytest.mark.slow
def test_fig7_curves_end_at_the_full_data_spa(fig7):
    curves = pd.read_csv(fig7 / "spa_fig7.csv")
    assert len(curves.groupby(["dataset", "scheme"])) == 28  # 6 schemes and the oracle
    curves = curves[curves.scheme != "model_optimal"]
    for (name, scheme), g in curves.groupby(["dataset", "scheme"]):
        last = g.sort_values("annotations_used").iloc[-1]
        assert last.variance < 1e-20
        assert abs(last.mean_spa - full_data_spa(name, scheme)) < 1e-12
    flat = curves[curves.scheme == "flat"]
    assert (flat.variance_minus_flat == 0).all()


def test_fig7_functions_take_any_annotations(tmp_path):
    # the figure and table functions for another dataset (e.g. real MBIC): an Annotations
    # and a label in, the same numbers as the engine's Dataset, no oracle (no model truth)
    ds = spa_engine.simulate_dataset("MBIC", quick=True, seed=SEED)
    copy = spa_engine.Dataset.from_annotations(ds.annotations(), "MBIC copy")
    np.testing.assert_array_equal(copy.labels, ds.labels)
    assert copy.truth is None and copy.n_classes == ds.n_classes
    options = {"rounds": 12, "points": 8, "batches": 3}
    simulated = spa_fig7_table1.analyse(ds, rng=np.random.default_rng(7), **options)
    real = spa_fig7_table1.analyse(copy, rng=np.random.default_rng(7), **options)
    assert real["schemes"] == SCHEMES and simulated["schemes"] == [*SCHEMES, "model_optimal"]
    for s in SCHEMES:
        np.testing.assert_array_equal(real["variance"][s], simulated["variance"][s])
    results = {"MBIC copy": spa_fig7_table1.analyse_annotations(ds.annotations(), "MBIC copy",
                                                                **options)}
    paths = spa_fig7_table1.write_outputs(results, tmp_path, stem="spa_copy", data="real data",
                                          note="Not simulated.", title_note="a copy")
    assert sorted(p.name for p in paths.values()) == sorted(
        ["spa_copy_fig7.png", "spa_copy_fig7_relative.png", "spa_copy_fig7.csv",
         "spa_copy_table1.csv", "spa_copy_table1.md"])
    table = pd.read_csv(paths["table"])
    assert list(table.scheme) == SCHEMES and not table.oracle.any()
    assert (table.data == "real data").all() and sorted(table["rank"]) == list(range(1, 7))
    assert "Not simulated." in paths["markdown"].read_text()
    assert paths["png"].stat().st_size > 10_000
