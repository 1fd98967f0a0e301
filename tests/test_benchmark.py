"""interpret(): the bands of the published interpretation scales, Gwet's (2014) probabilistic
benchmarking against scipy's normal distribution written out and against irrCAC's
``Benchmark``, the report's band columns, and the errors."""

import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy.stats import norm

import irrCAC.benchmark as irrcac_benchmark

import kappalab as kl
from kappalab.errors import InvalidParameterError, MissingValueError
from kappalab.interpretation import SCALES, interpretation_scale

EPS = 1e-9  # a step across a boundary, far above the boundary tolerance (1e-12)

# ------------------------------------------------------------------ bands by hand
# (scale, value, band): each boundary, a step below and a step above, and the ends, as the
# publications state them (module docstring of kappalab.interpretation)
BANDS = [
    # Landis & Koch (1977): <0.00 Poor, 0.00–0.20 Slight, 0.21–0.40 Fair, 0.41–0.60 Moderate,
    # 0.61–0.80 Substantial, 0.81–1.00 Almost Perfect
    ("landis-koch", -1.0, "Poor"), ("landis-koch", -EPS, "Poor"),
    ("landis-koch", 0.0, "Slight"), ("landis-koch", 0.2, "Slight"),
    ("landis-koch", 0.2 + EPS, "Fair"), ("landis-koch", 0.4, "Fair"),
    ("landis-koch", 0.4 + EPS, "Moderate"), ("landis-koch", 0.6, "Moderate"),
    ("landis-koch", 0.6 + EPS, "Substantial"), ("landis-koch", 0.8, "Substantial"),
    ("landis-koch", 0.8 + EPS, "Almost Perfect"), ("landis-koch", 1.0, "Almost Perfect"),
    # Fleiss (1981): below 0.40 poor, 0.40 to 0.75 intermediate to good, above 0.75 excellent
    ("fleiss", -0.5, "Poor"), ("fleiss", 0.4 - EPS, "Poor"),
    ("fleiss", 0.4, "Intermediate to Good"), ("fleiss", 0.75, "Intermediate to Good"),
    ("fleiss", 0.75 + EPS, "Excellent"), ("fleiss", 1.0, "Excellent"),
    # Altman (1991): <0.20 Poor, 0.21–0.40 Fair, …, 0.81–1.00 Very Good (upper ends held)
    ("altman", -0.3, "Poor"), ("altman", 0.2, "Poor"), ("altman", 0.2 + EPS, "Fair"),
    ("altman", 0.4, "Fair"), ("altman", 0.4 + EPS, "Moderate"), ("altman", 0.6, "Moderate"),
    ("altman", 0.6 + EPS, "Good"), ("altman", 0.8, "Good"), ("altman", 0.8 + EPS, "Very Good"),
    # Krippendorff (2004): α < .667 discard, .667 ≤ α < .800 tentative, α ≥ .800 reliable
    ("krippendorff", 0.667 - EPS, "Discard"), ("krippendorff", 0.667, "Tentative conclusions"),
    ("krippendorff", 0.8 - EPS, "Tentative conclusions"), ("krippendorff", 0.8, "Reliable"),
    ("krippendorff", 1.0, "Reliable"),
]


@pytest.mark.parametrize("scale,value,band", BANDS)
def test_the_value_falls_in_the_published_band(scale, value, band):
    result = kl.interpret(value, scale)
    assert result.band == band
    assert result.certain_band is None and result.probabilities is None


def test_every_boundary_of_every_scale_is_tested():
    tested = {(scale, value) for scale, value, _ in BANDS}
    for name, scale in SCALES.items():
        for cut in scale.cuts:
            assert (name, cut) in tested, f"{name}: boundary {cut} untested"


def test_rounding_error_does_not_move_a_value_across_a_boundary():
    """(0.8 − 0.5)/(1 − 0.5) is 0.6 in exact arithmetic, 0.6000000000000001 in doubles."""
    value = (0.8 - 0.5) / (1 - 0.5)
    assert value > 0.6
    assert kl.interpret(value, "landis-koch").band == "Moderate"
    assert kl.interpret((0.4 - 0.1) / (1 - 0.25), "fleiss").band == "Intermediate to Good"


def test_values_beyond_minus_one_and_one_fall_in_the_end_bands():
    # a disattenuated correlation can exceed 1, Krippendorff's alpha fall below -1
    assert kl.interpret(1.05, "altman").band == "Very Good"
    assert kl.interpret(-1.2, "landis-koch").band == "Poor"


def test_the_scales_limits_are_irrcacs():
    """irrCAC's Benchmark methods define lb/ub per band, from the highest band down."""
    irrcac = {"landis-koch": "landis_koch", "fleiss": "fleiss", "altman": "altman"}
    for name, method in irrcac.items():
        out = getattr(irrcac_benchmark.Benchmark(0.5, 0.1), method)()
        frame = kl.interpret((0.5, 0.1), name).to_frame()
        assert list(zip(frame.lower, frame.upper)) == out["scale"]
        labels = next(v for k, v in out.items() if k not in ("scale", "CumProb"))
        assert frame.band.tolist() == labels


# ------------------------------------------------------------------ probabilities by hand
def test_probabilities_are_truncated_normal_masses_written_out():
    """P(a ≤ κ ≤ b) = [Φ((κ̂ − a)/SE) − Φ((κ̂ − b)/SE)] / [Φ((κ̂ + 1)/SE) − Φ((κ̂ − 1)/SE)]
    for Landis & Koch's bands [0.8, 1], [0.6, 0.8], …, [−1, 0], from the top down."""
    value, se = 0.55, 0.12
    limits = [(0.8, 1.0), (0.6, 0.8), (0.4, 0.6), (0.2, 0.4), (0.0, 0.2), (-1.0, 0.0)]
    on_scale = norm.cdf((value + 1) / se) - norm.cdf((value - 1) / se)
    expected = [(norm.cdf((value - a) / se) - norm.cdf((value - b) / se)) / on_scale
                for a, b in limits]
    result = kl.interpret((value, se), "landis-koch")
    np.testing.assert_allclose(result.probabilities, expected, rtol=0, atol=1e-15)
    np.testing.assert_allclose(result.cumulative_probabilities, np.cumsum(expected),
                               rtol=0, atol=1e-14)
    assert result.cumulative_probabilities[-1] == 1.0
    # from a normal table: z = (0.55 − 0.4)/0.12 = 1.25, Φ(1.25) = 0.89435; (0.55 − 0.2)/0.12
    # = 2.9167, Φ = 0.99823; the truncation: Φ(−3.75) = 0.0000884 below −1, nothing above 1.
    # P(κ ≥ 0.4) = (0.89435 − 0.0000884)/(1 − 0.0000884) = 0.89434 < 0.95 and
    # P(κ ≥ 0.2) = (0.99823 − 0.0000884)/(1 − 0.0000884) = 0.99823 ≥ 0.95: Fair
    assert result.cumulative_probabilities[2] == pytest.approx(0.89434, abs=2e-5)
    assert result.cumulative_probabilities[3] == pytest.approx(0.99823, abs=2e-5)
    assert result.band == "Moderate" and result.certain_band == "Fair"


def test_a_coefficient_of_zero_is_below_zero_with_probability_one_half():
    """The normal centred at 0 truncated to [−1, 1] is symmetric: P(κ < 0) = 1/2 exactly."""
    for se in (0.05, 0.3, 2.0):
        result = kl.interpret((0.0, se), "landis-koch")
        assert result.probabilities[-1] == pytest.approx(0.5, abs=1e-15)
        assert result.cumulative_probabilities[-2] == pytest.approx(0.5, abs=1e-15)


def test_the_certain_band_follows_the_confidence():
    """0.67 ± 0.15 on Altman's scale: P(κ ≥ 0.6) = 0.67511, P(κ ≥ 0.4) = 0.96356, P(κ ≥ 0.2)
    = 0.99912 (irrCAC's documented example)."""
    assert kl.interpret((0.67, 0.15), "altman", confidence=0.6).certain_band == "Good"
    assert kl.interpret((0.67, 0.15), "altman").certain_band == "Moderate"
    assert kl.interpret((0.67, 0.15), "altman", confidence=0.99).certain_band == "Fair"
    assert kl.interpret((0.67, 0.15), "altman", confidence=0.9995).certain_band == "Poor"


def test_a_standard_error_of_zero_is_a_point():
    result = kl.interpret((0.75, 0.0), "fleiss")
    assert result.probabilities == (0.0, 1.0, 0.0)
    assert result.cumulative_probabilities == (0.0, 1.0, 1.0)
    assert result.certain_band == result.band == "Intermediate to Good"


def test_a_small_standard_error_approaches_the_point():
    result = kl.interpret((0.7, 1e-4), "landis-koch")
    assert result.probabilities[1] == pytest.approx(1.0, abs=1e-12)
    assert result.certain_band == "Substantial"


# ------------------------------------------------------------------ irrCAC
def _irrcac_cumulative(value, se, method, monkeypatch):
    """irrCAC's cumulative probabilities, unrounded: its ``interpret`` rounds with the
    builtin ``round(prob, 5)``, shadowed here in its module by the identity."""
    with monkeypatch.context() as patch:
        patch.setattr(irrcac_benchmark, "round", lambda x, digits: x, raising=False)
        out = getattr(irrcac_benchmark.Benchmark(value, se), method)()
    return [float(p) for p in out["CumProb"]]


def _data():
    rng = np.random.default_rng(11)
    truth = rng.integers(0, 3, 40)
    noisy = np.where(rng.random((40, 4)) < 0.3, rng.integers(0, 3, (40, 4)), truth[:, None])
    return [
        [[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2], [1, 2, 1], [3, 3, 3], [2, 2, 2]],
        noisy,
        kl.datasets.load("worked_example"),
    ]


@pytest.mark.parametrize("scale,method", [("landis-koch", "landis_koch"), ("fleiss", "fleiss"),
                                          ("altman", "altman")])
def test_equal_to_irrcac_benchmark(scale, method, monkeypatch):
    compared = 0
    for data in _data():
        for estimator in (kl.fleiss_kappa, kl.gwet_ac, kl.krippendorff_alpha):
            est = estimator(data, ci="analytic")
            expected = _irrcac_cumulative(est.value, est.se, method, monkeypatch)
            result = kl.interpret(est, scale)
            np.testing.assert_allclose(result.cumulative_probabilities, expected, rtol=0,
                                       atol=1e-10)
            # irrCAC's own (rounded) output, and the rule "the first CumProb ≥ 0.95"
            rounded = getattr(irrcac_benchmark.Benchmark(est.value, est.se), method)()
            np.testing.assert_allclose(result.cumulative_probabilities, rounded["CumProb"],
                                       rtol=0, atol=5e-6)
            first = next(i for i, p in enumerate(expected) if p >= 0.95)
            assert result.certain_band == result.to_frame().band[first]
            compared += 1
    assert compared == 9


def test_equal_to_irrcac_on_plain_numbers(monkeypatch):
    for value, se in [(0.67, 0.15), (0.05, 0.3), (-0.2, 0.1), (0.93, 0.02), (0.41, 0.9)]:
        expected = _irrcac_cumulative(value, se, "landis_koch", monkeypatch)
        np.testing.assert_allclose(kl.interpret((value, se)).cumulative_probabilities,
                                   expected, rtol=0, atol=1e-10)


# ------------------------------------------------------------------ inputs and display
def test_an_estimate_without_a_standard_error_gives_the_band_alone():
    x = [[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2], [1, 2, 1], [3, 3, 3], [2, 2, 2]]
    # Fleiss' κ by hand: p = (7, 9, 5)/21, P_e = 155/441; P_o = (1/3 + 1 + 1 + 1/3 + 1/3 + 1
    # + 1)/7 = 5/7 = 315/441; κ = (315 − 155)/(441 − 155) = 160/286 = 0.5594, Moderate
    result = kl.interpret(kl.fleiss_kappa(x))
    assert result.value == pytest.approx(160 / 286, abs=1e-12)
    assert result.band == "Moderate" and result.coefficient == "Fleiss' kappa"
    assert result.se is None and result.to_frame().probability.isna().all()
    with_se = kl.interpret(kl.fleiss_kappa(x, ci="jackknife"))
    assert with_se.se > 0 and with_se.certain_band is not None


def test_to_frame_and_print():
    result = kl.interpret((0.67, 0.15), "altman")
    frame = result.to_frame()
    assert list(frame.columns) == ["band", "interval", "lower", "upper", "probability",
                                   "cumulative_probability", "contains_value", "certain_band"]
    assert frame.loc[frame.contains_value, "band"].tolist() == ["Good"]
    assert frame.loc[frame.certain_band, "band"].tolist() == ["Moderate"]
    assert frame.interval.tolist() == ["(0.8, 1]", "(0.6, 0.8]", "(0.4, 0.6]", "(0.2, 0.4]",
                                       "[-1, 0.2]"]
    text = str(result)
    assert "value = 0.6700 (SE 0.1500) on the Altman (1991) scale" in text
    assert "reached with 95% certainty: Moderate" in text
    assert "0.9636 95% certain" in text
    assert "Very Good" in result._repr_html_()
    plain = str(kl.interpret(0.7, "krippendorff"))
    assert "probability" not in plain and "Tentative conclusions" in plain


def test_scale_names_are_read_loosely():
    assert interpretation_scale("Landis Koch") is SCALES["landis-koch"]
    assert interpretation_scale("LANDIS_KOCH") is SCALES["landis-koch"]
    assert kl.interpret(0.5, SCALES["altman"]).band == "Moderate"


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("estimate,scale,options,error,fragment", [
    (0.5, "cohen", {}, InvalidParameterError, "unknown interpretation scale 'cohen'"),
    (0.5, 3, {}, InvalidParameterError, "scale must be the name of an interpretation scale"),
    (math.nan, "fleiss", {}, MissingValueError, "undefined on its data has no band"),
    ((math.nan, 0.1), "fleiss", {}, MissingValueError, "value is nan"),
    (math.inf, "fleiss", {}, MissingValueError, "value is inf"),
    ((0.5, math.nan), "fleiss", {}, MissingValueError, "standard error is nan"),
    ((0.5, -0.1), "fleiss", {}, InvalidParameterError, "cannot be negative"),
    ((0.5, 0.1), "fleiss", {"confidence": 95}, InvalidParameterError, "confidence"),
    ("0.5", "fleiss", {}, InvalidParameterError, "an Estimate, a number or a (value, se)"),
    ((0.5, 0.1, 0.2), "fleiss", {}, InvalidParameterError, "(value, se) pair"),
    (True, "fleiss", {}, InvalidParameterError, "(value, se) pair"),
    ((8.0, 0.01), "fleiss", {}, InvalidParameterError, "no probability on [-1, 1]"),
])
def test_bad_input_is_refused_clearly(estimate, scale, options, error, fragment):
    with pytest.raises(error, match=re.escape(fragment)):
        kl.interpret(estimate, scale, **options)


def test_an_undefined_estimate_is_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", kl.errors.UndefinedCoefficientWarning)
        est = kl.fleiss_kappa([[1, 1], [1, 1], [1, 1]])  # one category: P_e = 1
    assert math.isnan(est.value)
    with pytest.raises(MissingValueError, match="Fleiss' kappa's value is nan"):
        kl.interpret(est)


# ------------------------------------------------------------------ the report
def test_the_default_report_has_no_band_column():
    report = kl.agreement_report(kl.datasets.load("worked_example"))
    assert "band" not in report.columns and "certain_band" not in report.columns


def test_the_report_bands_each_value(monkeypatch):
    data = kl.datasets.load("worked_example")
    report = kl.agreement_report(data, benchmark="landis-koch").set_index("coefficient")
    assert "certain_band" not in report.columns
    assert list(report.columns[-2:]) == ["band", "note"]
    # published values of the worked example: α = 0.5782 (krippendorff), κ = 0.5636
    # (statsmodels) are Moderate (0.4, 0.6]; AC1 = 0.616 is Substantial (0.6, 0.8]
    assert report.loc["Krippendorff's alpha", "band"] == "Moderate"
    assert report.loc["Fleiss' kappa", "band"] == "Moderate"
    assert report.loc["Gwet's AC1", "band"] == "Substantial"
    # Brennan–Prediger on 3 categories: (0.7333 − 1/3)/(2/3) = 0.6 exactly: Moderate
    assert report.loc["Brennan-Prediger", "band"] == "Moderate"

    with_ci = kl.agreement_report(data, benchmark="landis-koch",
                                  ci="analytic").set_index("coefficient")
    assert list(with_ci.columns[-3:]) == ["band", "certain_band", "note"]
    assert with_ci.loc["percent agreement", ["band", "certain_band"]].isna().all()
    for name, row in with_ci.drop(index="percent agreement").iterrows():
        cumulative = _irrcac_cumulative(row.value, row.se, "landis_koch", monkeypatch)
        labels = ["Almost Perfect", "Substantial", "Moderate", "Fair", "Slight", "Poor"]
        first = next(i for i, p in enumerate(cumulative) if p >= 0.95)
        assert row.certain_band == labels[first], name
    assert with_ci.loc["Fleiss' kappa", "certain_band"] == "Fair"


def test_the_report_leaves_undefined_values_without_a_band():
    x = [[1, 1], [1, 1], [1, 1], [1, 1]]  # one category: the chance-corrected rows are NaN
    report = kl.agreement_report(x, benchmark="fleiss", ci="jackknife").set_index(
        "coefficient")
    # percent agreement (1) is not chance-corrected: no band although "Excellent" by value
    assert report.loc["percent agreement", "value"] == 1.0
    assert pd.isna(report.loc["percent agreement", "band"])
    undefined = report[report.value.isna()]
    assert len(undefined) > 0
    assert undefined.band.isna().all() and undefined.certain_band.isna().all()


def test_the_report_refuses_an_unknown_scale_before_any_row():
    with pytest.raises(InvalidParameterError, match="unknown interpretation scale"):
        kl.agreement_report([[1, 2], [2, 2]], benchmark="kappa")


def test_report_band_uses_the_report_confidence():
    data = kl.datasets.load("worked_example")
    low = kl.agreement_report(data, benchmark="landis-koch", ci="analytic", confidence=0.5)
    row = low.set_index("coefficient").loc["Fleiss' kappa"]
    expected = kl.interpret((row.value, row.se), confidence=0.5).certain_band
    assert row.certain_band == expected == "Moderate"  # P(κ ≥ 0.4) = 0.81 ≥ 0.5 > P(κ ≥ 0.6)
    assert isinstance(low, pd.DataFrame)


# ------------------------------------------------------------------ the command line
def test_the_command_line_bands_the_report(tmp_path, capsys):
    import json

    from kappalab.cli import main

    path = tmp_path / "wide.csv"
    # items × 3 raters; Fleiss' κ by hand: p = (7, 9, 5)/21, P_o = 5/7, κ = 160/286 = 0.5594
    pd.DataFrame([[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2], [1, 2, 1], [3, 3, 3], [2, 2, 2]],
                 index=[f"i{k}" for k in range(7)]).to_csv(path)
    assert main(["report", str(path), "--wide", "--format", "json",
                 "--benchmark", "fleiss"]) == 0
    rows = {r["coefficient"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["Fleiss' kappa"]["value"] == pytest.approx(160 / 286, abs=1e-12)
    assert rows["Fleiss' kappa"]["band"] == "Intermediate to Good"  # 0.4 ≤ 0.5594 ≤ 0.75
    assert rows["percent agreement"]["band"] is None  # P_o = 5/7: not chance-corrected
    # the command line's default interval is analytic: the certain band is irrCAC's first
    # cumulative probability ≥ 0.95
    fleiss = rows["Fleiss' kappa"]
    cumulative = irrcac_benchmark.Benchmark(fleiss["value"], fleiss["se"]).fleiss()["CumProb"]
    first = next(i for i, p in enumerate(cumulative) if p >= 0.95)
    assert fleiss["certain_band"] == ["Excellent", "Intermediate to Good", "Poor"][first]


def test_the_command_line_refuses_an_unknown_scale(capsys):
    from kappalab.cli import main

    with pytest.raises(SystemExit) as exit_info:
        main(["demo", "--benchmark", "cohen"])
    assert exit_info.value.code == 2
    assert "--benchmark" in capsys.readouterr().err


# ------------------------------------------------------------------ first hour: bands
def test_the_report_bands_only_chance_corrected_coefficients():
    """A newcomer's report: percent agreement 0.93 read "Reliable" beside α 0.66 "Discard".
    The scales are for chance-corrected coefficients; percent agreement and the ICC get no
    band. By hand (6 items × 3 raters, interval): P_o = 0.9259 would be "Reliable"."""
    x = np.array([[1, 2, 3], [2, 2, 3], [3, 3, 3], [1, 1, 2], [4, 4, 4], [2, 3, 3]])
    report = kl.agreement_report(x, level="interval", benchmark="krippendorff",
                                 ci="analytic").set_index("coefficient")
    for name in ["percent agreement (weighted)", "ICC(2,1)"]:
        assert pd.isna(report.loc[name, "band"]), name
        assert pd.isna(report.loc[name, "certain_band"]), name
    # α = 1 − D_o/D_e = 1 − (1 − P_o)/(1 − P_e) on the weighted scale, below 0.667: Discard
    alpha = report.loc["Krippendorff's alpha"]
    assert alpha.value == pytest.approx(1 - (1 - alpha.observed) / (1 - alpha.expected))
    assert alpha.value < 0.667 and alpha.band == "Discard"
    chance_corrected = report.drop(index=["percent agreement (weighted)", "ICC(2,1)"])
    assert chance_corrected.band.notna().all() and chance_corrected.certain_band.notna().all()


# ------------------------------------------------------------------ the old names
@pytest.mark.parametrize("old, new", [("benchmark", "interpret"),
                                      ("Benchmark", "Interpretation")])
def test_the_old_names_warn_and_are_the_new_ones(old, new):
    """``benchmark``/``Benchmark`` (a word the speed benchmarks use) work for one release."""
    import kappalab.interpretation as interpretation

    for module in (kl, interpretation):
        with pytest.warns(DeprecationWarning, match=f"use .*{new}"):
            assert getattr(module, old) is getattr(module, new)
        assert old not in module.__all__ and new in module.__all__


def test_the_old_function_still_reads_the_band():
    with pytest.warns(DeprecationWarning):
        old = kl.benchmark
    # Landis & Koch: 0.4 < 0.5 ≤ 0.6 is Moderate
    assert old(0.5, "landis-koch").band == "Moderate"
    assert isinstance(old(0.5), kl.Interpretation)
