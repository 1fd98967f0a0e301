"""The experiment scripts run in --quick mode and write what they promise."""

import subprocess
import sys
from pathlib import Path

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
                                       "percent_agreement"}
    assert set(table["missingness"]) == {"mcar", "mnar"}
    # the population truths the script compares against: κ = 0.5 and, for π = (.6, .3, .1),
    # P_o = Σπ² + (1 − Σπ²)κ = 0.46 + 0.54·0.5 = 0.73 (DESIGN.md §5)
    kappas = table[table["estimator"] != "percent_agreement"]["truth"]
    assert kappas.to_numpy() == pytest.approx(0.5)
    p_o = table[table["estimator"] == "percent_agreement"]["truth"]
    assert p_o.to_numpy() == pytest.approx(0.73)
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
