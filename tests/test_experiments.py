"""The experiment scripts run in --quick mode and write what they promise."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

EXPERIMENTS = Path(__file__).resolve().parents[1] / "experiments"


def run_quick(script: str, out: Path) -> None:
    result = subprocess.run([sys.executable, script, "--quick", "--out", str(out)],
                            cwd=EXPERIMENTS, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]


def test_estimator_bias_quick(tmp_path):
    run_quick("estimator_bias.py", tmp_path)
    table = pd.read_csv(tmp_path / "estimator_bias.csv")
    assert (tmp_path / "estimator_bias.png").stat().st_size > 10_000
    assert set(table["estimator"]) == {"krippendorff_alpha", "fleiss_kappa", "conger_kappa",
                                       "percent_agreement", "spa_flat"}
    assert set(table["missingness"]) == {"mcar", "mnar"}
    # the population truths the script compares against: κ = 0.5 and, for π = (.6, .3, .1),
    # P_o = Σπ² + (1 − Σπ²)κ = 0.46 + 0.54·0.5 = 0.73 (DESIGN.md §5)
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


def test_kappa_paradox_quick(tmp_path):
    run_quick("kappa_paradox.py", tmp_path)
    table = pd.read_csv(tmp_path / "kappa_paradox.csv")
    assert (tmp_path / "kappa_paradox.png").stat().st_size > 10_000
    # the paradox itself, in the exact population values: κ falls, P_o and AC1 rise
    assert table["truth_kappa"].is_monotonic_decreasing
    assert table["truth_percent_agreement"].is_monotonic_increasing
    last = table.iloc[-1]
    assert last["truth_kappa"] < 0.6 * table.iloc[0]["truth_kappa"]
    assert last["truth_percent_agreement"] > 0.95 and last["truth_ac1"] > 0.95
    # balanced prevalence: AC1 = κ (P_e = Σπ(1−π)/(K−1) = Σπ² when π = (½, ½))
    assert table.iloc[0]["truth_ac1"] == pytest.approx(table.iloc[0]["truth_kappa"], abs=1e-12)


def test_spa_bias_quick(tmp_path):
    run_quick("spa_bias.py", tmp_path)
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
