"""One options object for the intervals (``IntervalOptions``), checked once at the door, and
the interval methods a core supplies itself (``ci="krippendorff"`` of α, ``ci="F"`` of the
ICC) reaching the reports like any other method; ``icc`` returns one type, ``icc_table`` the
six forms.

Oracles: the error messages are written out; the F intervals are Shrout & Fleiss' (1979)
Table 2 data with pingouin's published CI95% (0.02, 0.76) for ICC(A,1); a report row with an
interval method is the coefficient's own function called with the same options (the same
seed gives the same replicates); the toy core's interval is written out by hand."""

import dataclasses
import warnings

import numpy as np
import pytest

import kappalab as kl
from kappalab.coefficients import registry
from kappalab.coefficients.base import ItemSumCoefficient
from kappalab.coefficients.icc import IntraclassCorrelationCore, icc_core
from kappalab.errors import InvalidParameterError
from kappalab.uncertainty import CORE_METHODS, Interval, IntervalOptions, interval

SHROUT_FLEISS = [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
                 [6, 2, 4, 7]]

#: each bad option and the one line that refuses it (the messages of before)
BAD = [
    ({"ci": "bogus"}, "unknown ci 'bogus'; choose one of 'analytic'"),
    ({"ci": "bootstrap", "n_resamples": 1}, "n_resamples must be an integer ≥ 2, got 1"),
    ({"ci": "bootstrap", "n_resamples": 2.5}, "n_resamples must be an integer ≥ 2, got 2.5"),
    ({"ci": "bootstrap", "confidence": 1.0}, r"confidence must be in \(0.0, 1.0\), got 1.0"),
    ({"ci": "bootstrap", "confidence": 95}, r"confidence must be in \(0.0, 1.0\), got 95.0"),
    ({"ci": "bootstrap", "seed": 1.5}, "seed must be None, a non-negative integer"),
    ({"ci": "bootstrap", "seed": "x"}, "seed must be None, a non-negative integer"),
]


# ---------------------------------------------------------------------- the options object
@pytest.mark.parametrize("options, message", BAD)
def test_options_refuse_each_bad_value_with_its_one_line(options, message):
    with pytest.raises(InvalidParameterError, match=message) as caught:
        IntervalOptions.of(**options)
    assert "\n" not in str(caught.value)


@pytest.mark.parametrize("options, message", BAD)
def test_every_door_refuses_each_bad_value_before_any_work(options, message):
    data = kl.datasets.load("worked_example")
    doors = [lambda **o: kl.fleiss_kappa(data, **o),
             lambda **o: kl.krippendorff_alpha(data, **o),
             lambda **o: kl.agreement_report(data, **o),
             lambda **o: kl.rater_report(data, **o),
             lambda **o: kl.judge_report(data, judge="C", **o),
             lambda **o: kl.icc(SHROUT_FLEISS, **o),
             lambda **o: kl.icc_table(SHROUT_FLEISS, **o)]
    for door in doors:
        with pytest.raises(InvalidParameterError, match=message):
            door(**options)


def test_options_are_frozen_and_keep_the_seed_as_given():
    rng = np.random.default_rng(3)
    options = IntervalOptions.of("bootstrap", n_resamples=300.0, confidence=0.9, seed=rng)
    assert (options.ci, options.n_resamples, options.confidence) == ("bootstrap", 300, 0.9)
    assert options.seed is rng and options.method == ("bootstrap", "percentile")
    assert options.resampling == {"n_resamples": 300, "confidence": 0.9, "seed": rng,
                                  "progress": None}
    with pytest.raises(dataclasses.FrozenInstanceError):
        options.ci = "jackknife"


def test_without_ci_the_other_options_are_not_checked_as_before():
    options = IntervalOptions.of(None, n_resamples=0, confidence=5, seed="x")
    assert options.ci is None and options.method is None
    est = kl.fleiss_kappa(kl.datasets.load("worked_example"), confidence=5, n_resamples=0)
    assert round(est.value, 4) == 0.5636 and est.ci is None  # statsmodels: 0.563636


def test_alpha_min_needs_krippendorffs_bootstrap():
    with pytest.raises(InvalidParameterError, match="it needs ci='krippendorff'"):
        IntervalOptions.of("bootstrap", alpha_min=0.8)
    with pytest.raises(InvalidParameterError, match="it needs ci='krippendorff'"):
        IntervalOptions.of(None, alpha_min=0.8)
    assert IntervalOptions.of("krippendorff", alpha_min=[0.8, 0.7]).alpha_min == (0.8, 0.7)
    assert IntervalOptions.of("krippendorff").alpha_min == (0.667, 0.8)


def test_a_method_of_other_cores_is_refused_by_name():
    data = kl.datasets.load("worked_example")
    with pytest.raises(InvalidParameterError, match="defined for the ICC only: use "
                                                    r"kl.icc\(..., ci='F'\)"):
        kl.fleiss_kappa(data, ci="F")
    with pytest.raises(InvalidParameterError, match="defined for Krippendorff's alpha only"):
        kl.icc(SHROUT_FLEISS, ci="krippendorff")
    with pytest.raises(InvalidParameterError, match="defined for Krippendorff's alpha only"):
        IntervalOptions.of("krippendorff", methods=("F",))
    # a report's door takes both: some of its rows supply them
    assert IntervalOptions.of("F").ci == "F"
    assert set(CORE_METHODS) == {"krippendorff", "F"}


def test_a_core_declares_its_own_interval_method_and_estimate_dispatches_to_it():
    class Mean(ItemSumCoefficient):
        def __init__(self, x):
            self.x = np.asarray(x, dtype=float)

        def unweighted_item_stats(self):
            return np.column_stack([self.x, np.ones_like(self.x)])

        def combine(self, totals):
            t = np.asarray(totals)
            value = t[..., 0] / t[..., 1]
            return {"value": value, "observed": value, "expected": 0 * value}

        def counts_used(self):
            return {"n_items": self.x.size, "n_annotations": self.x.size}

        def range_interval(self, options):  # the data's range, by hand: [1, 6]
            return Interval(None, float(self.x.min()), float(self.x.max()), "range", "range",
                            self.x.size, options.confidence, {"ci_method": "range"})

        interval_methods = {"range": range_interval}

    core = Mean([1.0, 2.0, 6.0])
    est = core.estimate("range")
    assert est.value == 3.0 and est.ci == (1.0, 6.0) and est.se is None
    assert est.details == {"ci_method": "range"}
    assert interval(core, "range").high == 6.0
    assert core.estimate("jackknife").se is not None  # the spine's methods remain
    with pytest.raises(InvalidParameterError, match="unknown ci 'range'"):
        kl.fleiss_kappa(kl.datasets.load("worked_example"), ci="range")


# ---------------------------------------------------------------------- reaching the reports
def test_krippendorffs_bootstrap_reaches_agreement_report():
    data = kl.datasets.load("worked_example")
    report = kl.agreement_report(data, ci="krippendorff", seed=4, n_resamples=500)
    rows = report.set_index("coefficient")
    alone = kl.krippendorff_alpha(data, ci="krippendorff", seed=4, n_resamples=500)
    alpha = rows.loc["Krippendorff's alpha"]
    assert (alpha["se"], alpha["ci_low"], alpha["ci_high"]) == (alone.se, *alone.ci)
    assert alpha["note"] == ""
    fleiss = rows.loc["Fleiss' kappa"]
    assert round(fleiss["value"], 4) == 0.5636 and np.isnan(fleiss["ci_low"])
    assert fleiss["note"].startswith("no interval: ci='krippendorff'")
    assert "Krippendorff's alpha only" in fleiss["note"]


def test_f_interval_reaches_agreement_report():
    report = kl.agreement_report(SHROUT_FLEISS, level="interval", ci="F")
    row = report.set_index("coefficient").loc["ICC(2,1)"]
    assert (round(row["ci_low"], 2), round(row["ci_high"], 2)) == (0.02, 0.76)  # pingouin
    assert np.isnan(row["se"]) and row["note"] == ""
    alpha = report.set_index("coefficient").loc["Krippendorff's alpha"]
    assert np.isnan(alpha["ci_low"]) and "defined for the ICC only" in alpha["note"]


def test_a_method_no_rater_has_is_each_raters_note_in_rater_report():
    data = kl.datasets.load("worked_example")
    report = kl.rater_report(data, ci="krippendorff")
    assert report["kappa_x_se"].isna().all() and report["kappa_x_low"].isna().all()
    assert report["kappa_x"].round(4).tolist() == [0.6748, 0.4215, 0.6032]  # docstring, by hand
    assert all("no interval for κx: ci='krippendorff'" in note for note in report["note"])
    with pytest.raises(InvalidParameterError, match="Krippendorff's alpha only"):
        kl.judge_report(data, judge="C", ci="krippendorff")


def test_compare_takes_the_icc_and_refuses_a_method_of_one_side():
    rng = np.random.default_rng(0)
    a = rng.normal(size=(20, 3)) + np.arange(20)[:, None]
    b = a + rng.normal(size=(20, 3))
    result = kl.compare(kl.icc, a, b)
    assert result.value_a == kl.icc(a).value and result.value_b == kl.icc(b).value
    for ci in ("krippendorff", "F"):  # no joint distribution of the two sides
        with pytest.raises(InvalidParameterError,
                           match=f"ci='{ci}' is an interval of one coefficient's value"):
            kl.compare(kl.krippendorff_alpha, a, b, ci=ci)


# ---------------------------------------------------------------------- icc, icc_table
def test_icc_returns_an_estimate_with_no_interval_unless_asked():
    est = kl.icc(SHROUT_FLEISS)
    assert isinstance(est, kl.Estimate) and est.ci is None and est.se is None
    assert round(est.value, 2) == 0.29  # Shrout & Fleiss (1979), Table 4
    assert est.details["ci_method"] is None and round(est.details["F"], 2) == 11.03
    with_f = kl.icc(SHROUT_FLEISS, ci="F")
    assert [round(b, 2) for b in with_f.ci] == [0.02, 0.76]  # pingouin's CI95%
    assert with_f.value == est.value and with_f.details["ci_method"] == "F"


def test_icc_table_is_the_old_form_all_table_and_form_all_warns():
    table = kl.icc_table(SHROUT_FLEISS)
    assert table["form"].tolist() == ["ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)",
                                      "ICC(2,k)", "ICC(3,k)"]
    assert table["value"].round(2).tolist() == [0.17, 0.29, 0.71, 0.44, 0.62, 0.91]
    # pingouin's CI95% of the six forms on these data
    assert table[["ci_low", "ci_high"]].round(2).values.tolist() == [
        [-0.13, 0.72], [0.02, 0.76], [0.34, 0.95], [-0.88, 0.91], [0.07, 0.93], [0.68, 0.99]]
    with pytest.warns(DeprecationWarning, match="use kl.icc_table"):
        old = kl.icc(SHROUT_FLEISS, form="all")
    assert old.equals(table)
    with pytest.warns(DeprecationWarning):
        bootstrapped = kl.icc(SHROUT_FLEISS, form="all", ci="bootstrap", seed=1,
                              n_resamples=200)
    assert bootstrapped.equals(kl.icc_table(SHROUT_FLEISS, ci="bootstrap", seed=1,
                                            n_resamples=200))
    empty = kl.icc_table(SHROUT_FLEISS, ci=None)
    assert empty[["se", "ci_low", "ci_high"]].isna().all().all()
    assert empty["value"].equals(table["value"])


def test_the_icc_core_factory_is_the_registry_entrys_core():
    entry = registry.lookup("icc")
    assert entry.core is icc_core
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        core = entry.core(SHROUT_FLEISS, form="ICC(3,k)")
    assert isinstance(core, IntraclassCorrelationCore) and core.n_items_dropped == 0
    assert round(core.estimate().value, 2) == 0.91  # Shrout & Fleiss (1979), Table 4
    assert core.estimate().value == kl.icc(SHROUT_FLEISS, form="ICC(3,k)").value
    with pytest.raises(InvalidParameterError, match="form='all' is the table"):
        icc_core(SHROUT_FLEISS, form="all")
