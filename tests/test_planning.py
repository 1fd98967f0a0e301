"""Sample-size planning (kappalab.planning): the per-item SD σ₁ against closed forms (Bloch &
Kraemer 1989; Fleiss, Cohen & Everitt 1969 through statsmodels) and against the spread of the
estimators over simulated studies; N by the written-out formulas; the command line."""

import json
import math

import numpy as np
import pytest
from scipy.stats import norm
from scipy.stats import t as student_t
from statsmodels.stats.inter_rater import cohens_kappa as statsmodels_cohens_kappa

import kappalab as kl
from kappalab import planning, simulate
from kappalab.cli import main
from kappalab.errors import InvalidParameterError


def bloch_kraemer(kappa, share):
    """Bloch & Kraemer (1989): N·Var(κ̂) = (1 − κ)[(1 − κ)(1 − 2κ) + κ(2 − κ)/(2P(1 − P))]."""
    return (1 - kappa) * ((1 - kappa) * (1 - 2 * kappa)
                          + kappa * (2 - kappa) / (2 * share * (1 - share)))


@pytest.mark.parametrize("coefficient", ["alpha", "fleiss", "cohen"])
@pytest.mark.parametrize("share", [0.5, 0.2, 0.05])
@pytest.mark.parametrize("kappa", [0.0, 0.3, 0.6, 0.9])
def test_binary_two_annotations_is_bloch_kraemer(coefficient, share, kappa):
    result = kl.plan(coefficient, prevalence=[1 - share, share], annotations_per_item=2,
                     reliability=kappa, half_width=0.1)
    assert result.item_sd ** 2 == pytest.approx(bloch_kraemer(kappa, share), rel=1e-9)
    assert result.population_value == pytest.approx(kappa, abs=1e-9)
    assert planning.bloch_kraemer_variance(kappa, share) == pytest.approx(
        bloch_kraemer(kappa, share), rel=1e-15)


def test_hand_calculation_binary():
    # κ = 0.6, P = 0.5: 0.4·(0.4·(−0.2) + 0.6·1.4/0.5) = 0.4·1.6 = 0.64, σ₁ = 0.8;
    # the normal quantile would give ⌈0.64·(1.959964/0.1)²⌉ = ⌈245.85⌉ = 246; the analytic
    # interval uses t_{N−1}: 0.64·(t_{248}/0.1)² = 0.64·(1.969576/0.1)² = 248.27 ≤ 249, while
    # 248 items give 0.64·(t_{247}/0.1)² = 248.28 > 248
    result = kl.plan("cohen", n_categories=2, reliability=0.6, half_width=0.1)
    assert result.item_sd == pytest.approx(0.8, rel=1e-12)
    assert student_t.ppf(0.975, 248) == pytest.approx(1.969576, abs=1e-6)
    assert result.n_items == 249 and result.n_annotations == 498
    assert result.half_width == pytest.approx(1.969576 * 0.8 / math.sqrt(249), rel=1e-6)
    assert 1.969576 * 0.8 / math.sqrt(249) <= 0.1 < student_t.ppf(0.975, 247) * 0.8 / math.sqrt(
        248)


def test_power_formula_by_hand():
    """power(N) = Φ((√N(ρ + b − ρ₀) − t_{N−1,0.95}·σ₁)/σ_W), written out from the plan's
    fields; N the least N that reaches 0.8; the first-order N = ⌈0.64·((1.644854 +
    0.841621)/0.15)²⌉ = ⌈175.8⌉ = 176 is too few for the test with the estimated SE."""
    result = kl.plan("cohen", n_categories=2, reliability=0.6, power=0.8, threshold=0.45)
    n = result.n_items
    t = student_t.ppf(0.95, n - 1)
    by_hand = norm.cdf((math.sqrt(n) * (0.6 + result.bias - 0.45) - t * 0.8)
                       / result.statistic_sd)
    assert result.power == pytest.approx(by_hand, abs=1e-12) and result.power >= 0.8
    lin = planning.linearise("cohen", "nominal", np.array([0.5, 0.5]), 2, 0.6)
    assert lin.wald_power(n - 1, 0.45, 0.05)[0] < 0.8
    assert math.ceil(0.64 * ((1.644854 + 0.841621) / 0.15) ** 2) == 176 < n
    # the estimated SE falls as κ̂ rises (ψ_σ against ψ), so σ_W > σ₁; the bias is negative
    assert result.statistic_sd > result.item_sd and result.bias < 0


def test_linearisation_against_brute_force_differentiation():
    """ψ_σ is the influence of σ̂ = SE·√N: adding ε of an outcome's probability changes σ̂ by
    ε·ψ_σ(outcome) (finite differences of σ on re-weighted outcomes); ½tr(HΣ) from the
    curvature of f₁ along the items' spread."""
    prevalence = np.array([0.2, 0.3, 0.5])
    lin = planning.linearise("fleiss", "nominal", prevalence, 3, 0.5)
    core, probability = lin.core, lin.probability
    stats = lin.stats()

    def sd_at(weights):
        mean = weights @ stats
        gradient = planning.LIMIT_ITEMS * core.value_gradient(planning.LIMIT_ITEMS * mean)
        centred = (stats - mean) @ gradient
        return math.sqrt(weights @ centred ** 2)

    eps = 1e-6
    for outcome in (0, 4, 9):
        point = np.zeros_like(probability)
        point[outcome] = 1.0
        up = sd_at((1 - eps) * probability + eps * point)
        down = sd_at((1 + eps) * probability - eps * point)
        assert (up - down) / (2 * eps) == pytest.approx(lin.sd_influence[outcome], rel=1e-5)
    assert probability @ lin.sd_influence == pytest.approx(0.0, abs=1e-12)
    assert math.sqrt(probability @ lin.influence ** 2) == pytest.approx(lin.sd, rel=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("design", [("alpha", "nominal", (0.2,) * 5, 5, 0.4),
                                    ("cohen", "nominal", (0.2,) * 5, 2, 0.8)])
def test_power_plan_by_simulation(design):
    """2 000 simulated studies of the planned size, each tested as a user would with
    ``z_test``'s statistic against t_{N−1, 0.95}: the mean estimate is ρ + b (Monte Carlo SE
    σ₁/√(2000N)), the SD of θ̂ − t·SE is σ_W/√N (relative MC SE 1.6 %), and the share of
    rejections is the planned power (MC SE 0.9 points; tolerance 3 points plus 2 MC SE)."""
    coefficient, level, prevalence, m, rho = design
    threshold = round(rho - 0.15, 4)
    result = kl.plan(coefficient, prevalence=prevalence, annotations_per_item=m,
                     reliability=rho, power=0.8, threshold=threshold)
    n, studies = result.n_items, 2000
    ann, _ = simulate.annotations(n * studies, prevalence=prevalence, reliability=rho,
                                  annotations_per_item=m, n_raters=m, seed=11)
    wide = ann.to_xarray().sortby("item").values.astype(float).reshape(studies, n, m)
    estimator = {"alpha": kl.krippendorff_alpha, "cohen": kl.cohen_kappa}[coefficient]
    estimates = [estimator(study, ci="analytic") for study in wide]
    values = np.array([float(e) for e in estimates])
    ses = np.array([e.se for e in estimates])
    t = student_t.ppf(0.95, n - 1)
    assert values.mean() - rho == pytest.approx(
        result.bias, abs=4 * result.item_sd / math.sqrt(studies * n))
    assert (values - t * ses).std(ddof=1) == pytest.approx(
        result.statistic_sd / math.sqrt(n), rel=0.07)
    rejected = np.mean([e.z_test(threshold)[0] > t for e in estimates])
    assert rejected == pytest.approx(0.8, abs=0.03 + 2 * math.sqrt(0.16 / studies))


@pytest.mark.parametrize("prevalence,kappa", [((0.2, 0.3, 0.5), 0.5), ((0.1, 0.2, 0.3, 0.4), 0.7),
                                              ((0.6, 0.4), 0.2)])
def test_cohen_is_fleiss_cohen_everitt(prevalence, kappa):
    """statsmodels' var_kappa is the FCE (1969) large-sample variance of the observed table;
    on the population table J·n it is σ₁²/n."""
    pi = np.array(prevalence)
    joint = (1 - kappa) * np.outer(pi, pi) + kappa * np.diag(pi)
    n = 1e6
    oracle = statsmodels_cohens_kappa(joint * n, return_results=True).var_kappa * n
    result = kl.plan("cohen", prevalence=prevalence, reliability=kappa, half_width=0.1)
    assert result.item_sd ** 2 == pytest.approx(oracle, rel=1e-9)


def simulated_spread(coefficient, level, prevalence, m, rho, n_items, n_studies, seed):
    """The SD of the estimator over n_studies simulated studies of n_items items each, and
    the mean of the studies' analytic SEs (one simulation, split into studies)."""
    ann, truth = simulate.annotations(n_items * n_studies, level=level, prevalence=prevalence,
                                      reliability=rho, annotations_per_item=m, n_raters=m,
                                      seed=seed)
    wide = ann.to_xarray().sortby("item").values.astype(float).reshape(n_studies, n_items, m)
    estimator = {"alpha": kl.krippendorff_alpha, "fleiss": kl.fleiss_kappa,
                 "cohen": kl.cohen_kappa}[coefficient]
    options = {"level": level} if coefficient == "alpha" else {}
    estimates = [estimator(study, ci="analytic", **options) for study in wide]
    values = np.array([float(e) for e in estimates])
    return values.std(ddof=1), np.mean([e.se for e in estimates]), truth


@pytest.mark.slow
@pytest.mark.parametrize("coefficient,level,prevalence,m,rho", [
    ("alpha", "nominal", (0.2, 0.3, 0.5), 3, 0.7),
    ("alpha", "interval", None, 4, 0.5),
    ("fleiss", "nominal", (0.1, 0.2, 0.7), 5, 0.4),
    ("cohen", "nominal", (0.25,) * 4, 2, 0.6),
])
def test_item_sd_matches_the_spread_of_simulated_estimates(coefficient, level, prevalence, m,
                                                           rho):
    """600 studies of 400 items: the sample SD of 600 near-normal estimates has a relative
    Monte Carlo SE of 1/√(2·599) = 2.9 %, so 12 % is four of them, with room for the O(1/N)
    terms the linearisation leaves out."""
    result = kl.plan(coefficient, level=level, prevalence=prevalence, annotations_per_item=m,
                     reliability=rho, half_width=0.1)
    assert result.population_value == pytest.approx(rho, abs=1e-9)
    sd, mean_se, truth = simulated_spread(coefficient, level, prevalence, m, rho, 400, 600,
                                          seed=2026)
    assert truth.alpha == pytest.approx(result.population_value, abs=1e-9)
    planned = result.standard_error(400)
    assert sd == pytest.approx(planned, rel=0.12)
    assert mean_se == pytest.approx(planned, rel=0.05)  # the SE estimate's mean: tighter


@pytest.mark.slow
def test_simulated_moments_agree_with_the_enumeration(monkeypatch):
    exact = kl.plan("alpha", prevalence=(0.2, 0.3, 0.5), annotations_per_item=4,
                    reliability=0.6, half_width=0.05)
    monkeypatch.setattr(planning, "MAX_OUTCOMES", 0)
    simulated = kl.plan("alpha", prevalence=(0.2, 0.3, 0.5), annotations_per_item=4,
                        reliability=0.6, half_width=0.05)
    assert (exact.moments, simulated.moments) == ("exact", "simulated")
    # 400 000 items: the relative error of the SD is about 1/√(2·400 000)·(kurtosis factor),
    # well under 1 %
    assert simulated.item_sd == pytest.approx(exact.item_sd, rel=0.01)
    assert simulated.population_value == pytest.approx(0.6, abs=0.005)


def test_interval_quadrature_is_exact_for_the_item_statistics():
    """Three-node Gauss–Hermite reproduces E[x_j x_k] = Σ_jk and the fourth moments
    E[x_1² x_2²] = Σ_11Σ_22 + 2Σ_12² of the random-effects model (Isserlis)."""
    ann, weight = planning.interval_quadrature(3, 0.7)
    x = ann.to_xarray().sortby("item").values.astype(float)
    assert weight.sum() == pytest.approx(1.0, abs=1e-14)
    assert weight @ (x[:, 0] * x[:, 1]) == pytest.approx(0.7, abs=1e-13)
    assert weight @ (x[:, 0] ** 2) == pytest.approx(1.0, abs=1e-13)
    assert weight @ (x[:, 0] ** 2 * x[:, 1] ** 2) == pytest.approx(1 + 2 * 0.49, abs=1e-12)


@pytest.mark.parametrize("coefficient", ["alpha", "fleiss", "cohen"])
def test_core_is_the_estimators(coefficient):
    """The core the plan differentiates gives the public estimator's value on the same data."""
    ann, truth = simulate.annotations(200, prevalence=(0.2, 0.3, 0.5), reliability=0.6,
                                      annotations_per_item=2, n_raters=2, seed=5)
    core = planning.coefficient_core(coefficient, ann, "nominal")
    estimator = {"alpha": kl.krippendorff_alpha, "fleiss": kl.fleiss_kappa,
                 "cohen": kl.cohen_kappa}[coefficient]
    est = estimator(ann, ci="analytic")
    assert core.estimate("analytic").se == pytest.approx(est.se, rel=1e-12)
    assert core.estimate().value == pytest.approx(float(est), rel=1e-12)


def test_n_is_monotone():
    base = dict(prevalence=(0.2, 0.3, 0.5), annotations_per_item=3, reliability=0.7)
    widths = [kl.plan(**base, half_width=h).n_items for h in (0.02, 0.05, 0.1, 0.2)]
    assert widths == sorted(widths, reverse=True) and len(set(widths)) == 4
    powers = [kl.plan(**base, power=p, threshold=0.6).n_items for p in (0.5, 0.8, 0.9, 0.99)]
    assert powers == sorted(powers) and len(set(powers)) == 4
    gaps = [kl.plan(**base, power=0.8, threshold=t).n_items for t in (0.4, 0.5, 0.6, 0.65)]
    assert gaps == sorted(gaps) and len(set(gaps)) == 4
    # a wider confidence needs more items; more annotations per item fewer
    assert kl.plan(**base, half_width=0.05, confidence=0.99).n_items > widths[1]
    assert kl.plan(**{**base, "annotations_per_item": 5}, half_width=0.05).n_items < widths[1]


def test_achieved_values_meet_the_goal_with_n_and_not_with_n_minus_one():
    for goal in ({"half_width": 0.05}, {"power": 0.9, "threshold": 0.6}):
        result = kl.plan("fleiss", prevalence=0.1, annotations_per_item=4, reliability=0.7,
                         **goal)
        n, sd = result.n_items, result.item_sd
        if "half_width" in goal:
            assert result.half_width <= 0.05 < student_t.ppf(0.975, n - 2) * sd / math.sqrt(
                n - 1)
        else:
            lin = planning.linearise("fleiss", "nominal", np.array([0.9, 0.1]), 4, 0.7)
            assert result.power >= 0.9 > lin.wald_power(n - 1, 0.6, 0.05)[0]


def test_result_frame_and_text():
    result = kl.plan("alpha", level="interval", annotations_per_item=2, reliability=0.5,
                     half_width=0.1)
    frame = result.to_frame()
    assert frame.shape[0] == 1 and frame.loc[0, "n_items"] == result.n_items
    assert frame.loc[0, "moments"] == "quadrature" and result.n_categories is None
    text = str(result)
    assert f"items N = {result.n_items}" in text and "interval values" in text


@pytest.mark.parametrize("kwargs,fragment", [
    ({"coefficient": "kappa", "reliability": 0.5, "half_width": 0.1}, "unknown coefficient"),
    ({"level": "ordinal", "reliability": 0.5, "half_width": 0.1}, "unknown level"),
    ({"coefficient": "fleiss", "level": "interval", "reliability": 0.5, "half_width": 0.1},
     "plan interval data with coefficient='alpha'"),
    ({"coefficient": "cohen", "annotations_per_item": 3, "reliability": 0.5,
      "half_width": 0.1}, "must be 2"),
    ({"annotations_per_item": 1, "reliability": 0.5, "half_width": 0.1},
     "annotations_per_item"),
    ({"reliability": 1.0, "half_width": 0.1}, "reliability must be in [0, 1)"),
    ({"reliability": 0.5}, "give one goal"),
    ({"reliability": 0.5, "half_width": 0.1, "power": 0.8}, "give one goal"),
    ({"reliability": 0.5, "half_width": 0.0}, "half_width must be in (0.0, 1.0)"),
    ({"reliability": 0.5, "half_width": 0.1, "threshold": 0.3}, "goes with power"),
    ({"reliability": 0.5, "power": 0.8}, "needs threshold"),
    ({"reliability": 0.5, "power": 0.8, "threshold": 0.5}, "must be below"),
    ({"reliability": 0.5, "power": 1.0, "threshold": 0.3}, "power must be in"),
    ({"reliability": 0.5, "power": 0.8, "threshold": 0.3, "significance": 0.7},
     "significance must be in"),
    ({"reliability": 0.5, "half_width": 0.1, "prevalence": [0.5, 0.6]}, "must sum to 1"),
    ({"reliability": 0.5, "half_width": 0.1, "prevalence": [0.5, 0.5], "n_categories": 3},
     "prevalence has 2 entries"),
    ({"reliability": "high", "half_width": 0.1}, "finite number"),
])
def test_bad_input(kwargs, fragment):
    with pytest.raises(InvalidParameterError) as info:
        kl.plan(**kwargs)
    assert fragment in str(info.value)


def test_cli_plan_half_width(capsys):
    code = main(["plan", "--coefficient", "alpha", "--categories", "3", "--prevalence",
                 "0.2,0.3,0.5", "--annotations", "3", "--reliability", "0.7", "--half-width",
                 "0.05"])
    out = capsys.readouterr().out
    expected = kl.plan("alpha", n_categories=3, prevalence=[0.2, 0.3, 0.5],
                       annotations_per_item=3, reliability=0.7, half_width=0.05)
    assert code == 0
    assert f"items N = {expected.n_items}" in out
    assert f"σ₁ = {expected.item_sd:.4f}" in out


def test_cli_plan_power_json_several_annotation_counts(capsys):
    code = main(["plan", "--prevalence", "0.2,0.3,0.5", "--annotations", "2,3,5",
                 "--reliability", "0.8", "--power", "0.8", "--threshold", "0.667", "--format",
                 "json"])
    records = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["annotations_per_item"] for r in records] == [2, 3, 5]
    for record in records:
        expected = kl.plan("alpha", prevalence=[0.2, 0.3, 0.5],
                           annotations_per_item=record["annotations_per_item"],
                           reliability=0.8, power=0.8, threshold=0.667)
        assert record["n_items"] == expected.n_items
        assert record["power"] == pytest.approx(expected.power, rel=1e-12)


def test_cli_plan_table_of_several(capsys):
    assert main(["plan", "--coefficient", "fleiss", "--prevalence", "0.1", "--annotations",
                 "2,3", "--reliability", "0.6", "--half-width", "0.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("Sample size for Fleiss' kappa (nominal): 2 categories")
    assert "n_items" in lines[1] and len(lines) == 4


@pytest.mark.parametrize("argv,fragment", [
    (["plan", "--reliability", "0.6"], "give one goal"),
    (["plan", "--reliability", "0.6", "--power", "0.8"], "go together"),
    (["plan", "--reliability", "0.6", "--half-width", "0.1", "--prevalence", "a,b"],
     "--prevalence"),
    (["plan", "--reliability", "0.6", "--half-width", "0.1", "--annotations", "two"],
     "--annotations"),
    (["plan", "--coefficient", "cohen", "--annotations", "3", "--reliability", "0.6",
      "--half-width", "0.1"], "must be 2"),
])
def test_cli_plan_errors(argv, fragment, capsys):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("kappalab: error:") and fragment in err and "Traceback" not in err


@pytest.mark.slow
def test_experiment_quick_writes_its_table(tmp_path):
    """``python -m experiments.planning --quick``: the table and figure it promises, the plans'
    N those of kl.plan, and the Bloch–Kraemer N equal to kl.plan's for two categories."""
    import subprocess
    import sys
    from pathlib import Path

    import pandas as pd

    root = Path(__file__).resolve().parents[1]
    result = subprocess.run([sys.executable, "-m", "experiments.planning", "--quick", "--out",
                             str(tmp_path)], cwd=root, capture_output=True, text=True,
                            timeout=300)
    assert result.returncode == 0, result.stderr[-2000:]
    assert (tmp_path / "planning.png").stat().st_size > 10_000
    table = pd.read_csv(tmp_path / "planning.csv")
    assert set(table["goal"]) == {"half-width", "power"}
    first = table[(table["design"] == "alpha 0.5/0.5 m=2 ρ=0.6")
                  & (table["goal"] == "half-width")].iloc[0]
    assert first["n_items"] == 249  # 0.64·(t_{248}/0.1)² = 248.27
    assert first["n_bloch_kraemer"] == first["n_plan_two_annotations"] == 249
    # 100 studies: the mean half-width has a Monte Carlo SE under 1 %; the plan is first order
    widths = table[table["goal"] == "half-width"]
    assert ((widths["achieved"] / widths["target"] - 1).abs() < 0.10).all()
    kripp = pd.read_csv(tmp_path / "planning_krippendorff_table.csv").set_index("alpha_min")
    assert kripp.loc[0.8, "published"] == kripp.loc[0.8, "n_table"] == 139
    assert kripp.loc[0.667, "published"] == kripp.loc[0.667, "n_table"] == 81
    # the binary split is Bloch & Kraemer's variance at κ* = 0.9: 0.1·(0.1·(−0.8) +
    # 0.9·1.1/(2·0.1875)) = 0.1·(−0.08 + 2.64) = 0.256
    assert kripp.loc[0.8, "item_var_binary"] == pytest.approx(0.256, rel=1e-9)
    # the t quantile and the test's estimated SE add items; four categories need fewer
    assert (kripp["n_plan_width_binary"] >= kripp["n_table"]).all()
    assert (kripp["n_plan_power_binary"] >= kripp["n_table"]).all()
    assert (kripp["n_plan_width_k"] < kripp["n_table"]).all()


# ---------------------------------------------------------------- Krippendorff's table
#: the two entries of Krippendorff's (2019) table quoted in the ATLAS.ti manual (two coders,
#: four equally frequent values, p = 0.05): (α_min, p_c, p) → units
KRIPPENDORFF_PUBLISHED = {(0.8, 0.25, 0.05): 139, (0.667, 0.25, 0.05): 81}


@pytest.mark.parametrize("cell,units", list(KRIPPENDORFF_PUBLISHED.items()))
def test_krippendorff_table_published_entries(cell, units):
    assert planning.krippendorff_table_size(*cell) == units


def test_krippendorff_table_by_hand():
    # α_min = 0.8, p_c = 0.25: 1.8·2.2/(4·0.2·0.1875) − 0.8 = 3.96/0.15 − 0.8 = 25.6;
    # 2·1.644854² = 5.411087, 5.411087·25.6 = 138.52 → 139
    assert 1.8 * 2.2 / (4 * 0.2 * 0.1875) - 0.8 == pytest.approx(25.6, rel=1e-14)
    assert norm.ppf(0.95) == pytest.approx(1.644854, abs=1e-6)
    assert 2 * 1.644854 ** 2 * 25.6 == pytest.approx(138.52, abs=0.005)
    # α_min = 2/3 gives the same 81 as 0.667: 2·1.644854²·(5/3·7/3/(4/3·0.1875) − 2/3)
    # = 5.411087·14.8889 = 80.57
    assert planning.krippendorff_table_size(2 / 3, 0.25, 0.05) == 81


def test_krippendorff_table_z_convention():
    """The two published entries fix z² to (138/25.6, 139/25.6] ∩ (80/B, 81/B], B the bracket
    at α_min = 0.667: 2·z²_{0.95} is inside (one-sided p, the factor 2 of two coders); so is
    z²_{0.99}; two-sided quantiles, with or without the 2, and the one-sided one without the 2
    are not."""
    bracket = {a: (1 + a) * (3 - a) / (4 * (1 - a) * 0.25 * 0.75) - a for a in (0.8, 0.667)}
    low = max(138 / bracket[0.8], 80 / bracket[0.667])
    high = min(139 / bracket[0.8], 81 / bracket[0.667])
    assert (round(low, 3), round(high, 3)) == (5.391, 5.430)
    inside = [2 * norm.ppf(0.95) ** 2, norm.ppf(0.99) ** 2]
    outside = [norm.ppf(0.95) ** 2, norm.ppf(0.975) ** 2, 2 * norm.ppf(0.975) ** 2]
    assert all(low < z2 <= high for z2 in inside)
    assert not any(low < z2 <= high for z2 in outside)


@pytest.mark.parametrize("alpha_min", [0.0, 0.5, 0.667, 0.8, 0.9, 0.99])
@pytest.mark.parametrize("share", [0.5, 0.25, 0.1, 0.01])
def test_krippendorff_bracket_is_bloch_kraemer_at_the_midpoint(alpha_min, share):
    """The bracket is V_BK(κ*)/Δ², κ* = (1 + α_min)/2, Δ = (1 − α_min)/2, with Bloch &
    Kraemer's variance written out in this file; N = ⌈2 z²_{1−p} V_BK(κ*)/Δ²⌉."""
    kappa, margin = (1 + alpha_min) / 2, (1 - alpha_min) / 2
    bracket = ((1 + alpha_min) * (3 - alpha_min) / (4 * (1 - alpha_min) * share * (1 - share))
               - alpha_min)
    assert bloch_kraemer(kappa, share) / margin ** 2 == pytest.approx(bracket, rel=1e-12)
    for p in (0.1, 0.05, 0.01, 0.005):
        z = norm.ppf(1 - p)
        expected = math.ceil(2 * z * z * bloch_kraemer(kappa, share) / margin ** 2 - 1e-9)
        assert planning.krippendorff_table_size(alpha_min, share, p) == expected


@pytest.mark.parametrize("alpha_min,share,p", [(0.8, 0.25, 0.05), (0.667, 0.25, 0.05),
                                               (0.9, 0.1, 0.01), (0.667, 0.5, 0.1)])
def test_krippendorff_table_is_plan_to_first_order(alpha_min, share, p):
    """kl.plan for α with two annotations, prevalence (p_c, 1 − p_c) and reliability κ* has
    σ₁² = V_BK(κ*); the table's N is then the least N with √2·z_{1−p}·σ₁/√N ≤ Δ (the
    half-width goal with the normal quantile of confidence 1 − 2Φ(−√2 z_{1−p})), and the
    least N whose first-order power Φ(√N·Δ/σ₁ − z_{1−p}) reaches Φ((√2 − 1) z_{1−p});
    kl.plan, with t_{N−1} and the test's estimated SE, gives at least as many."""
    z = norm.ppf(1 - p)
    kappa, margin = (1 + alpha_min) / 2, (1 - alpha_min) / 2
    confidence = 1 - 2 * norm.sf(math.sqrt(2) * z)
    target = norm.cdf((math.sqrt(2) - 1) * z)
    common = dict(prevalence=[share, 1 - share], annotations_per_item=2, reliability=kappa)
    width = kl.plan("alpha", half_width=margin, confidence=confidence, **common)
    assert width.item_sd ** 2 == pytest.approx(bloch_kraemer(kappa, share), rel=1e-9)
    n = planning.krippendorff_table_size(alpha_min, share, p)
    z_width = norm.ppf(0.5 + confidence / 2)
    assert z_width == pytest.approx(math.sqrt(2) * z, rel=1e-12)
    assert z_width * width.item_sd / math.sqrt(n) <= margin < (
        z_width * width.item_sd / math.sqrt(n - 1))
    assert norm.cdf(math.sqrt(n) * margin / width.item_sd - z) >= target > norm.cdf(
        math.sqrt(n - 1) * margin / width.item_sd - z)
    test = kl.plan("alpha", power=target, threshold=alpha_min, significance=p, **common)
    assert width.n_items >= n and test.n_items >= n


@pytest.mark.parametrize("args,fragment", [
    ((1.0, 0.25), "alpha_min must be in [0, 1)"),
    ((0.8, 0.0), "smallest_share must be in (0.0, 1.0)"),
    ((0.8, 0.75), "at most 0.5"),
    ((0.8, 0.25, 0.5), "significance must be in"),
    (("high", 0.25), "finite number"),
])
def test_krippendorff_table_bad_input(args, fragment):
    with pytest.raises(InvalidParameterError) as info:
        planning.krippendorff_table_size(*args)
    assert fragment in str(info.value)
