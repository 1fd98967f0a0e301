"""The experiment scripts run in --quick mode and write what they promise.

Each is a module of the ``experiments`` package, run the way ``make experiments`` runs it:
``python -m experiments.<name>`` from the repository root.
"""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from experiments import interval_coverage

ROOT = Path(__file__).resolve().parents[1]


def run_quick(module: str, out: Path, *options: str) -> None:
    result = subprocess.run([sys.executable, "-m", f"experiments.{module}", "--quick", "--out",
                             str(out), *options], cwd=ROOT, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]


@pytest.fixture(scope="module")
def estimator_bias_run(tmp_path_factory):
    """The quick estimator-bias study, run once for the module's two tests of it."""
    out = tmp_path_factory.mktemp("estimator_bias")
    run_quick("estimator_bias", out)
    return out


@pytest.mark.slow
def test_estimator_bias_quick(estimator_bias_run):
    table = pd.read_csv(estimator_bias_run / "estimator_bias.csv")
    assert (estimator_bias_run / "estimator_bias.png").stat().st_size > 10_000
    assert set(table["estimator"]) == {"krippendorff_alpha", "fleiss_kappa", "conger_kappa",
                                       "percent_agreement", "spa_flat"}
    assert set(table["missingness"]) == {"mcar", "mnar"}
    # the population truths the script compares against: κ = 0.5 and, for π = (.6, .3, .1),
    # P_o = Σπ² + (1 − Σπ²)κ = 0.46 + 0.54·0.5 = 0.73 (docs/architecture.md)
    agreements = table["estimator"].isin(["percent_agreement", "spa_flat"])
    kappas = table[~agreements]["truth"]
    assert kappas.to_numpy() == pytest.approx(0.5)
    p_o = table[agreements]["truth"]
    assert p_o.to_numpy() == pytest.approx(0.73)
    # SPA with flat weights is percent agreement (mean P_i over pairable items), on the same data
    by_cell = table.set_index(["missingness", "annotations_per_item", "n_items", "estimator"])
    spa_flat = by_cell.xs("spa_flat", level="estimator")["mean"]
    percent = by_cell.xs("percent_agreement", level="estimator")["mean"]
    assert spa_flat.to_numpy() == pytest.approx(percent.to_numpy(), abs=1e-12)
    # bias = mean − truth, RMSE ≥ |bias|
    assert (table["bias"] - (table["mean"] - table["truth"])).abs().max() < 1e-12
    assert (table["rmse"] >= table["bias"].abs() - 1e-12).all()


@pytest.mark.slow
def test_estimator_bias_mnar_columns_differ_from_mcar(estimator_bias_run):
    """Every MNAR column is a different design from its MCAR counterpart, not a copy.

    With a fixed number of annotations per item the MNAR tilt p(m | i) ∝ p₀(m) exp{s m (h_i − h̄)}
    has nothing to tilt: the counts, and so every estimator's limit, are those of MCAR. Each
    design must let m vary, and one must include single-annotation items, where the items that
    Fleiss' κ and percent agreement keep (the pairable ones) are no longer a random sample.
    """
    table = pd.read_csv(estimator_bias_run / "estimator_bias.csv")
    cells = table.drop_duplicates(["missingness", "annotations_per_item", "estimator"])
    limits = cells.set_index(["annotations_per_item", "estimator", "missingness"])["limit"]
    shares = table.drop_duplicates(["missingness", "annotations_per_item"]).set_index(
        ["annotations_per_item", "missingness"])
    kappa_scale = {"krippendorff_alpha", "fleiss_kappa", "conger_kappa"}
    single_item_designs = 0
    for design in table["annotations_per_item"].unique():
        # MCAR: every limit is the item-population truth
        for name in set(table["estimator"]):
            row = cells[(cells["missingness"] == "mcar") & (cells["annotations_per_item"] == design)
                        & (cells["estimator"] == name)].iloc[0]
            assert row["limit"] == pytest.approx(row["truth"], abs=1e-12)
        # MNAR: the tilt moves α's limit (α weighs an item by m_i) and the annotations per item
        assert limits[(design, "krippendorff_alpha", "mnar")] < 0.5 - 0.01, design
        if shares.loc[(design, "mcar"), "single_share"] > 0:
            single_item_designs += 1
            # the pairable items are the harder ones: Fleiss, Conger and percent agreement too
            for name in ("fleiss_kappa", "conger_kappa"):
                assert limits[(design, name, "mnar")] < 0.5 - 0.01, (design, name)
            assert limits[(design, "percent_agreement", "mnar")] < 0.73 - 0.005, design
        else:  # every item pairable: only α (annotation-weighted) is off
            for name in kappa_scale - {"krippendorff_alpha"}:
                assert limits[(design, name, "mnar")] == pytest.approx(0.5, abs=1e-12)
    assert single_item_designs >= 1
    # and the data show it: hard items get more annotations than easy ones under MNAR only
    # (exact gaps 0.13 for 1–2, 1.04 for 2–6 and 1–5; 0 under MCAR)
    gap = table.groupby("missingness")["m_gap"].mean()
    assert gap["mnar"] - gap["mcar"] > 0.2
    assert len(table["annotations_per_item"].unique()) > single_item_designs  # and one without


@pytest.mark.slow
def test_bayes_priors_quick(tmp_path):
    run_quick("bayes_priors", tmp_path)
    table = pd.read_csv(tmp_path / "bayes_priors.csv")
    assert (tmp_path / "bayes_priors.png").stat().st_size > 10_000
    from experiments.bayes_priors import PRIORS, SHIPPED
    # --quick: nominal and Cohen, every candidate prior, 2 datasets of 50 items each
    assert {(m, p) for m, p in zip(table["model"], table["prior"])} == {
        (m, p) for m in ("nominal", "cohen") for p in PRIORS[m]}
    assert (table["datasets"] == 2).all() and (table["n_items"] == 50).all()
    assert table["bias_mean"].abs().max() < 0.5  # a sanity bound: 2 datasets decide nothing
    # the truths are exact population values: the same for every prior of a model, and for
    # the nominal design the α the simulation was asked for
    assert table.groupby("model")["truth"].nunique().eq(1).all()
    nominal = table[table["model"] == "nominal"]
    assert (nominal["truth"] - nominal["reliability"]).abs().max() < 1e-12
    # 2 datasets per cell: a coverage is 0, ½ or 1
    assert table["coverage"].isin([0.0, 0.5, 1.0]).all()
    # the shipped Cohen prior is the model's default for two categories, c = 1/K²
    assert PRIORS["cohen"][SHIPPED["cohen"]] == {"p": 1 / 4}


@pytest.mark.slow
def test_kappa_paradox_quick(tmp_path):
    # in this process (that a study gives the same table, bit for bit, on Dask workers is
    # tests/test_study.py's)
    run_quick("kappa_paradox", tmp_path, "--scheduler", "serial")
    table = pd.read_csv(tmp_path / "kappa_paradox.csv")
    assert len(table) == 5  # --quick: 5 majority shares
    assert (tmp_path / "kappa_paradox.png").stat().st_size > 10_000
    # the paradox itself, in the exact population values: κ falls, P_o and AC1 rise
    assert table["truth_kappa"].is_monotonic_decreasing
    assert table["truth_percent_agreement"].is_monotonic_increasing
    last = table.iloc[-1]
    assert last["truth_kappa"] < 0.6 * table.iloc[0]["truth_kappa"]
    assert last["truth_percent_agreement"] > 0.95 and last["truth_ac1"] > 0.95
    # balanced prevalence: AC1 = κ (P_e = Σπ(1−π)/(K−1) = Σπ² when π = (½, ½))
    assert table.iloc[0]["truth_ac1"] == pytest.approx(table.iloc[0]["truth_kappa"], abs=1e-12)


@pytest.mark.slow
def test_spa_bias_quick(tmp_path):
    run_quick("spa_bias", tmp_path)
    table = pd.read_csv(tmp_path / "spa_bias.csv")
    assert (tmp_path / "spa_bias.png").stat().st_size > 10_000
    assert set(table["missingness"]) == {"mcar", "mnar"}
    spa = table[table["estimator"] == "spa"]
    kappa = table[table["estimator"] == "spa_kappa"]
    assert set(spa["weights"]) == {"flat", "annotations", "annotations_m1", "edges", "inv_var",
                                   "inv_var_class"}
    assert set(kappa["weights"]) >= {"flat"}
    # truths: P = Σπ² + (1 − Σπ²)κ = 0.46 + 0.54·0.5 = 0.73 for SPA, κ = 0.5 for spa_kappa
    assert spa["truth"].to_numpy() == pytest.approx(0.73)
    assert kappa["truth"].to_numpy() == pytest.approx(0.5)
    # MCAR: every limit is the truth; quick grid: m uniform on 2..6, so every item is
    # pairable and flat weights stay unbiased under MNAR too
    mcar = table[table["missingness"] == "mcar"]
    assert (mcar["limit"] - mcar["truth"]).abs().max() < 1e-12
    mnar = spa[spa["missingness"] == "mnar"].drop_duplicates("weights").set_index("weights")
    assert mnar.loc["flat", "limit"] == pytest.approx(0.73, abs=1e-12)
    # MNAR annotation weights, by hand (tilt s = 2, classes κ_c = .75/.25, P_c = .865/.595,
    # h_c = .135/.405, h̄ = .27, baseline uniform on m = 2..6):
    # p(m | c) ∝ exp(2m(h_c − h̄)) = exp(±0.27m); limit = Σ_c Σ_m p(m|c) m P_c / Σ_c Σ_m p(m|c) m
    m = np.arange(2, 7)
    num = den = 0.0
    for sign, P in ((-1, 0.865), (1, 0.595)):
        p = np.exp(sign * 0.27 * m)
        p /= p.sum()
        num += (p * m).sum() * P
        den += (p * m).sum()
    assert mnar.loc["annotations", "limit"] == pytest.approx(num / den, abs=1e-12)
    assert mnar.loc["annotations", "limit"] < 0.73 - 0.01  # harder items weigh more
    # spa_kappa's limit is (SPA limit − Σπ²)/(1 − Σπ²), Σπ² = 0.46
    k_mnar = kappa[kappa["missingness"] == "mnar"].drop_duplicates("weights").set_index("weights")
    assert k_mnar.loc["annotations", "limit"] == pytest.approx((num / den - 0.46) / 0.54,
                                                               abs=1e-12)
    assert (table["bias"] - (table["mean"] - table["truth"])).abs().max() < 1e-12
    assert (table["finite_sample_bias"] - (table["mean"] - table["limit"])).abs().max() < 1e-12


@pytest.mark.slow
def test_coverage_quick(tmp_path):
    import math

    from scipy.integrate import quad
    from scipy.optimize import brentq
    from scipy.stats import norm

    raw_csv = tmp_path / "intervals.csv"

    def run(out):
        result = subprocess.run([sys.executable, "-m", "experiments.interval_coverage",
                                 "--quick", "--save-datasets", str(raw_csv), "--out", str(out),
                                 "--checkpoint", str(tmp_path / "checkpoint")], cwd=ROOT,
                                capture_output=True, text=True, timeout=300)
        assert result.returncode == 0, result.stderr[-2000:]
        return result

    stdout = run(tmp_path).stdout
    table = pd.read_csv(tmp_path / "coverage.csv")
    raw = pd.read_csv(raw_csv)
    # a rerun with the same checkpoint (5 designs × 2 sizes × 20 datasets) computes nothing
    # and writes the same table
    rerun = run(tmp_path / "rerun")
    assert "frequentist: 200 of 200 replications taken from" in rerun.stderr
    pd.testing.assert_frame_equal(pd.read_csv(tmp_path / "rerun" / "coverage.csv")
                                  .drop(columns="seconds"), table.drop(columns="seconds"))
    assert (tmp_path / "coverage.png").stat().st_size > 10_000
    assert {"coefficient", "method", "n_items", "datasets", "coverage", "coverage_se",
            "mean_width", "bias", "truth"} <= set(table.columns)
    coefficients = {"krippendorff_alpha", "fleiss_kappa", "cohen_kappa", "kx_interval",
                    "kx_binary", "spa_flat"}
    methods = {"analytic", "bootstrap", "bootstrap-bca", "bayesian-bootstrap", "jackknife"}
    assert set(table["coefficient"]) == coefficients
    # --quick: no MCMC unless --mcmc; Krippendorff's bootstrap of pairable values for α only
    assert set(table["method"]) == methods | {"krippendorff"}
    assert set(table[table["method"] == "krippendorff"]["coefficient"]) == {"krippendorff_alpha"}
    assert set(table["n_items"]) == {50, 200}
    assert len(table) == (len(coefficients) * len(methods) + 1) * 2
    # --quick promises 20 datasets per cell, every one with a finite interval
    assert (table["datasets"] == 20).all()
    assert (table["n_invalid"] == 0).all()
    assert table["coverage"].between(0, 1).all()
    c = table["coverage"]
    assert np.allclose(table["coverage_se"], np.sqrt(c * (1 - c) / 20), atol=1e-12)
    assert (table["mean_width"] > 0).all()

    # the aggregates are what the per-dataset intervals say
    raw["covered"] = (raw["low"] <= raw["truth"]) & (raw["truth"] <= raw["high"])
    raw["error_"] = raw["estimate"] - raw["truth"]
    raw["width"] = raw["high"] - raw["low"]
    cells = raw.groupby(["coefficient", "method", "n_items"]).agg(
        datasets=("replication", "nunique"), coverage=("covered", "mean"), bias=("error_", "mean"),
        width=("width", "mean")).add_suffix("_raw").reset_index()
    merged = table.merge(cells, on=["coefficient", "method", "n_items"], validate="1:1")
    assert len(merged) == len(table)
    assert (merged["datasets_raw"] == 20).all()
    assert np.allclose(merged["coverage"], merged["coverage_raw"], atol=1e-12)
    assert np.allclose(merged["bias"], merged["bias_raw"], atol=1e-12)
    assert np.allclose(merged["mean_width"], merged["width_raw"], atol=1e-12)
    by = table.set_index(["coefficient", "method", "n_items"])

    # truths, by hand (docs/architecture.md and the simulate docstrings), to 1e-12:
    # nominal Dirichlet–multinomial: α = Fleiss κ = 1/(1 + τ) = the reliability, 0.6
    for name in ("krippendorff_alpha", "fleiss_kappa"):
        assert by.xs(name)["truth"].to_numpy() == pytest.approx(0.6, abs=1e-12)
    # SPA (flat): P_o = Σπ² + (1 − Σπ²)κ = 0.46 + 0.54·0.6 = 0.784 for π = (.6, .3, .1)
    assert by.xs("spa_flat")["truth"].to_numpy() == pytest.approx(0.784, abs=1e-12)
    # κx interval: 2ρσ_b² / (2σ_b² + 2σ_w²) = 2·0.8·0.6 / (0.6 + 0.6 + 0.4 + 0.4) = 0.48
    assert by.xs("kx_interval")["truth"].to_numpy() == pytest.approx(0.48, abs=1e-12)

    # binary latent-threshold truths from scratch (1-D quadrature, not kappalab.bivariate_normal):
    # Φ₂(a, b; r) = ∫_{−∞}^{a} φ(x) Φ((b − r x)/√(1 − r²)) dx
    def phi2(a, b, r):
        return quad(lambda x: norm.pdf(x) * norm.cdf((b - r * x) / math.sqrt(1 - r * r)),
                    -np.inf, a, epsabs=1e-14, epsrel=1e-13)[0]

    t = norm.ppf(0.7)  # prevalence (0.7, 0.3): category 0 below t

    def kappa_two(a, b, r):
        """Cohen's κ of two annotations with thresholds a, b and latent correlation r."""
        pa, pb = norm.cdf(a), norm.cdf(b)
        both0 = phi2(a, b, r)
        p_o = both0 + (1 - pa - pb + both0)
        p_e = pa * pb + (1 - pa) * (1 - pb)
        return (p_o - p_e) / (1 - p_e)

    # the latent ICC ρ_L that makes the bias-free nominal κ = 0.6
    rho_l = brentq(lambda r: kappa_two(t, t, r) - 0.6, 1e-6, 1 - 1e-9, xtol=1e-14)
    # κx binary: one annotation per side, latent correlation r = ρ·ρ_L = 0.8 ρ_L; with equal
    # marginals (0.7, 0.3) on both sides κx (nominal δ) is that two-annotation κ
    assert by.xs("kx_binary")["truth"].to_numpy() == pytest.approx(
        kappa_two(t, t, 0.8 * rho_l), abs=1e-9)
    # Cohen's κ: each dataset draws its two raters' threshold shifts β_g; its truth is the
    # two-rater κ with thresholds t + β_1, t + β_2. Recompute every dataset's truth from its
    # shifts (the script's own dataset() gives the very data it used)
    module = interval_coverage
    cohen = raw[(raw["coefficient"] == "cohen_kappa") & (raw["method"] == "analytic")]
    for _, row in cohen.iterrows():
        (ann,), truth = module.dataset("cohen", int(row["n_items"]), int(row["replication"]),
                                       20261129, sizes=[50, 200])
        beta = np.asarray(truth.details["rater_shifts"])
        assert beta.shape == (2,) and ann.n_raters == 2
        assert row["truth"] == pytest.approx(kappa_two(t + beta[0], t + beta[1], rho_l),
                                             abs=1e-9)
    assert cohen["truth"].std() > 0.01  # a new rater pair per dataset

    # the verdicts: a cell with ≥ 200 items is called under (over)-covering exactly when its
    # coverage is > 2 SE below 93% (above 97%), the SE at that edge, √(b(1 − b)/R)
    for _, row in table[table["n_items"] >= 200].iterrows():
        under = (0.93 - row["coverage"]) / math.sqrt(0.93 * 0.07 / 20) > 2
        over = (row["coverage"] - 0.97) / math.sqrt(0.97 * 0.03 / 20) > 2
        cell = f"{row['coefficient']} / {row['method']} at {row['n_items']} items"
        assert (f"{cell} under-covers" in stdout) == under
        assert (f"{cell} over-covers" in stdout) == over
    assert "krippendorff_alpha" in stdout and "n=200" in stdout  # the printed table


@pytest.mark.slow
def test_se_conventions_quick(tmp_path):
    run_quick("se_conventions", tmp_path, "--scheduler", "serial")
    table = pd.read_csv(tmp_path / "se_conventions.csv")
    assert (tmp_path / "se_conventions.png").stat().st_size > 10_000
    assert set(table["design"]) == {"single_1to5", "single_1to2", "cohen"}
    assert set(table["n_items"]) == {50, 200} and (table["datasets"] == 20).all()
    single = table[table["design"] != "cohen"]
    assert set(single["coefficient"]) == {"fleiss_kappa", "conger_kappa", "gwet_ac1",
                                          "brennan_prediger", "percent_agreement"}
    assert set(single["method"]) == {"analytic", "gwet", "asymptotic"}
    cohen = table[table["design"] == "cohen"]
    assert set(cohen["coefficient"]) == {"cohen_kappa"}
    assert set(cohen["method"]) == {"analytic", "asymptotic"}
    # the truths, by hand: κ = 0.6; P_o = Σπ² + (1 − Σπ²)κ = 0.46 + 0.54·0.6 = 0.784 for
    # π = (.6, .3, .1); AC1's P_e = Σπ(1 − π)/(K − 1) = 0.54/2 = 0.27: (0.784 − 0.27)/0.73;
    # Brennan–Prediger's P_e = 1/3: (0.784 − 1/3)/(2/3) = 0.676
    by = single.set_index(["coefficient", "method", "n_items", "design"])["truth"]
    assert by.xs("fleiss_kappa").to_numpy() == pytest.approx(0.6, abs=1e-12)
    assert by.xs("conger_kappa").to_numpy() == pytest.approx(0.6, abs=1e-12)
    assert by.xs("percent_agreement").to_numpy() == pytest.approx(0.784, abs=1e-12)
    assert by.xs("gwet_ac1").to_numpy() == pytest.approx((0.784 - 0.27) / 0.73, abs=1e-12)
    assert by.xs("brennan_prediger").to_numpy() == pytest.approx(0.676, abs=1e-12)
    # the same datasets for every convention: the estimates agree, only the SEs differ, and
    # Gwet's SE is never below the linearisation's on data with singly-rated items
    key = ["design", "coefficient", "n_items"]
    wide = single.pivot_table(index=key, columns="method", values=["bias", "mean_se"])
    assert np.allclose(wide["bias"]["analytic"], wide["bias"]["gwet"], atol=1e-12)
    assert (wide["mean_se"]["gwet"] > wide["mean_se"]["analytic"]).all()
    # asymptotic = analytic × √((n − 1)/n) per dataset, so on average a little smaller
    assert (wide["mean_se"]["asymptotic"] < wide["mean_se"]["analytic"]).all()
    c = table["coverage"]
    valid = table["datasets"] - table["n_invalid"]
    assert np.allclose(table["coverage_se"], np.sqrt(c * (1 - c) / valid), atol=1e-12)


@pytest.mark.parametrize("n_shares", [5, 25])  # --quick and the full run
def test_kappa_paradox_draws_coincident_estimators_visibly(n_shares):
    """Cohen's κ, Scott's π and Krippendorff's α take (nearly) the same values with two raters
    and no missing annotation: each estimator's markers must be visible, not hidden under
    another's. With the three means made identical here, every pair of their markers at a
    share is at least a marker's width apart on the page, or drawn with another marker."""
    from experiments import kappa_paradox

    shares = np.linspace(0.5, 0.99, n_shares)
    table = pd.DataFrame({"majority_share": shares, "latent_icc": 0.7,
                          "truth_kappa": 0.7 - 0.5 * (shares - 0.5),
                          "truth_percent_agreement": 0.85 + 0.1 * (shares - 0.5),
                          "truth_ac1": 0.7 + 0.2 * (shares - 0.5), "truth_p_e": 0.5})
    for name in kappa_paradox.ESTIMATORS:
        table[f"mean_{name}"] = table["truth_kappa"]  # the three that coincide, and two more
        table[f"se_{name}"] = 0.01
    table["mean_gwet_ac1"], table["mean_percent_agreement"] = (table["truth_ac1"],
                                                               table["truth_percent_agreement"])
    figure = kappa_paradox.draw(table)
    ax = figure.axes[0]
    figure.canvas.draw()
    lines = {bars.get_label(): bars.lines[0] for bars in ax.containers  # errorbar: markers
             if bars.get_label() in ("cohen_kappa", "scott_pi", "krippendorff_alpha")}
    assert sorted(lines) == ["cohen_kappa", "krippendorff_alpha", "scott_pi"]
    width = max(line.get_markersize() for line in lines.values()) * figure.dpi / 72
    points = {name: ax.transData.transform(np.column_stack(line.get_data()))
              for name, line in lines.items()}
    names = sorted(lines)
    for i, first in enumerate(names):
        for second in names[i + 1:]:
            apart = np.hypot(*(points[first] - points[second]).T).min()
            assert apart >= width, (first, second, apart, width)


@pytest.mark.slow
def test_annotator_coverage_quick(tmp_path):
    run_quick("annotator_coverage", tmp_path)
    table = pd.read_csv(tmp_path / "annotator_coverage.csv")
    assert (tmp_path / "annotator_coverage.png").stat().st_size > 10_000
    # --quick: 60 items, 2 datasets; K = 3 prevalences, 6 annotators' 3 diagonal and 6
    # off-diagonal confusion entries
    assert list(table["group"]) == ["prevalence", "diagonal", "off-diagonal"]
    assert (table["datasets"] == 2).all() and (table["n_items"] == 60).all()
    assert list(table["parameters"]) == [3, 18, 36]
    assert table["coverage"].between(0, 1).all()
    # probabilities: no error can exceed 1, and with 240 labels neither estimate is far off
    assert (table[["rmse_posterior_mean", "rmse_em"]] < 0.3).all().all()
