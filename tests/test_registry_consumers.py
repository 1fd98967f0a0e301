"""Every by-name consumer reads the one registry of coefficients
(kappalab.coefficients.registry): it takes the public function's name, its short alias and
the function object alike, refuses anything else in one line naming what works there, and
the tables it replaced still answer, with a DeprecationWarning, for one release."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab.distances import category_distance
from kappalab.errors import InvalidParameterError


def worked():
    return kl.datasets.load("worked_example")


def quiet(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def one_line(excinfo) -> str:
    message = str(excinfo.value)
    assert "\n" not in message
    return message


# ---------------------------------------------------------------------- rater_report
@pytest.mark.parametrize("names", [
    ("krippendorff_alpha", "alpha", kl.krippendorff_alpha),
    ("fleiss_kappa", "fleiss", kl.fleiss_kappa),
    ("gwet_ac", "gwet", kl.gwet_ac),
    ("conger_kappa", "conger", kl.conger_kappa),
])
def test_rater_report_takes_the_name_the_alias_and_the_function(names):
    reports = [quiet(kl.rater_report, worked(), coefficient=name) for name in names]
    for report in reports[1:]:
        pd.testing.assert_frame_equal(report, reports[0])
        assert report.attrs == reports[0].attrs


def test_rater_report_runs_a_registered_function_on_the_named_path():
    # the worked example without rater A: B and C disagree on 4 of 10 items,
    # α = 1 − (8/20)/(242/380) = 0.3719 (the docstring's hand calculation)
    report = kl.rater_report(worked(), coefficient=kl.krippendorff_alpha)
    assert report.attrs["coefficient"] == "Krippendorff's alpha"
    assert report["without"][0] == pytest.approx(1 - (8 / 20) / (242 / 380), abs=1e-12)


def test_rater_report_refuses_an_unknown_name_in_one_line():
    with pytest.raises(InvalidParameterError) as excinfo:
        kl.rater_report(worked(), coefficient="kripp")
    message = one_line(excinfo)
    assert "unknown coefficient 'kripp'" in message
    assert "krippendorff_alpha (alpha)" in message and "callable" in message
    with pytest.raises(InvalidParameterError) as excinfo:
        kl.rater_report(worked(), coefficient="cohen_kappa")
    assert "cohen_kappa is not available" in one_line(excinfo)


# ---------------------------------------------------------------------- item_report
@pytest.mark.parametrize("names", [
    ("krippendorff_alpha", "alpha", kl.krippendorff_alpha),
    ("fleiss_kappa", "fleiss", kl.fleiss_kappa),
    ("gwet_ac", "gwet", kl.gwet_ac),
    ("janson_olsson_iota", kl.janson_olsson_iota),
])
def test_item_report_takes_the_name_the_alias_and_the_function(names):
    reports = [quiet(kl.item_report, worked(), coefficient=name) for name in names]
    for report in reports[1:]:
        pd.testing.assert_frame_equal(report, reports[0])
        assert report.attrs == reports[0].attrs


def test_item_report_refuses_an_unknown_or_unsupported_name_in_one_line():
    with pytest.raises(InvalidParameterError) as excinfo:
        kl.item_report(worked(), coefficient="kripp")
    message = one_line(excinfo)
    assert "unknown coefficient 'kripp'" in message and "janson_olsson_iota" in message
    with pytest.raises(InvalidParameterError) as excinfo:
        kl.item_report(worked(), coefficient=kl.cohen_kappa)
    assert "cohen_kappa is not available" in one_line(excinfo)
    with pytest.raises(InvalidParameterError, match="only at level='nominal'"):
        kl.item_report(worked(), coefficient="fleiss", level="ordinal")


# ---------------------------------------------------------------------- plan
PLAN = dict(prevalence=0.2, annotations_per_item=2, reliability=0.6, half_width=0.1)


@pytest.mark.parametrize("names", [
    ("alpha", "krippendorff_alpha", kl.krippendorff_alpha),
    ("fleiss", "fleiss_kappa", kl.fleiss_kappa),
    ("cohen", "cohen_kappa", kl.cohen_kappa),
])
def test_plan_takes_the_name_the_alias_and_the_function(names):
    plans = [kl.plan(name, **PLAN) for name in names]
    for result in plans[1:]:
        assert result == plans[0]
        assert str(result) == str(plans[0])
    assert plans[0].coefficient == names[0]  # the short name, as before


def test_plan_of_fleiss_is_bloch_and_kraemer_by_every_name():
    # Bloch & Kraemer (1989): (1 − κ)[(1 − κ)(1 − 2κ) + κ(2 − κ)/(2π(1 − π))] = 1.018 per
    # item at κ = 0.6, π = 0.2 (plan's docstring), 394 items for a half-width of 0.1
    for name in ("fleiss", "fleiss_kappa", kl.fleiss_kappa):
        result = kl.plan(name, **PLAN)
        assert result.item_sd ** 2 == pytest.approx(1.018, abs=1e-12)
        assert result.n_items == 394
        assert str(result).startswith("Sample size for Fleiss' kappa (nominal)")


def test_plan_refuses_an_unsupported_name_in_one_line():
    with pytest.raises(InvalidParameterError) as excinfo:
        kl.plan("gwet", **PLAN)
    message = one_line(excinfo)
    assert "gwet_ac is not available" in message
    assert "krippendorff_alpha (alpha), fleiss_kappa (fleiss), cohen_kappa (cohen)" in message


def test_cli_plan_takes_every_planning_name(capsys):
    from kappalab.cli import main
    outputs = []
    for name in ("fleiss", "fleiss_kappa"):
        main(["plan", "--coefficient", name, "--prevalence", "0.2", "--annotations", "2",
              "--reliability", "0.6", "--half-width", "0.1"])
        outputs.append(capsys.readouterr().out)
    assert outputs[0] == outputs[1] and "394" in outputs[0]


# ---------------------------------------------------------------------- dask_estimate
@pytest.mark.parametrize("names", [
    ("krippendorff_alpha", "alpha", kl.krippendorff_alpha),
    ("fleiss_kappa", "fleiss", kl.fleiss_kappa),
    ("spa_kappa", kl.spa_kappa),
])
def test_dask_estimate_takes_the_name_the_alias_and_the_function(names):
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(worked().to_long(), npartitions=3)
    values = [kl.dask_estimate(name, ddf, scheduler="synchronous").value for name in names]
    memory = quiet(names[-1], worked()).value
    assert values == pytest.approx([memory] * len(names), abs=1e-12)


def test_dask_estimate_refuses_an_unsupported_name_in_one_line():
    dd = pytest.importorskip("dask.dataframe")
    ddf = dd.from_pandas(worked().to_long(), npartitions=2)
    with pytest.raises(InvalidParameterError) as excinfo:
        kl.dask_estimate("conger", ddf)
    message = one_line(excinfo)
    assert "conger_kappa is not available" in message and "spa_kappa" in message
    with pytest.raises(InvalidParameterError, match="unknown coefficient 'kripp'"):
        kl.dask_estimate("kripp", ddf)


# ---------------------------------------------------------------------- the old tables
def deprecated(module, name):
    with pytest.warns(DeprecationWarning, match=name):
        return getattr(module, name)


def test_the_old_tables_warn_and_still_answer():
    from kappalab import planning
    from kappalab.reports import items, raters
    assert deprecated(raters, "COEFFICIENTS") == {
        "alpha": ("pooled", "annotation", "Krippendorff's alpha"),
        "fleiss": ("item_marginal", "item", "Fleiss' kappa"),
        "conger": ("rater_marginal", "item", "Conger's kappa"),
        "gwet": ("gwet", "item", "Gwet's AC1"),
        "brennan_prediger": ("uniform", "item", "Brennan-Prediger"),
        "percent_agreement": ("none", "item", "percent agreement"),
    }
    assert deprecated(items, "ITEM_REPORT_COEFFICIENTS") == {
        "krippendorff_alpha": ("pooled", "annotation", "Krippendorff's alpha", True),
        "janson_olsson_iota": ("rater_marginal", "item", "Janson-Olsson iota", True),
        "fleiss_kappa": ("item_marginal", "item", "Fleiss' kappa", False),
        "conger_kappa": ("rater_marginal", "item", "Conger's kappa", False),
        "gwet_ac": ("gwet", "item", "Gwet's AC1", False),
        "brennan_prediger": ("uniform", "item", "Brennan-Prediger", False),
        "percent_agreement": ("none", "item", "percent agreement", False),
    }
    assert deprecated(planning, "COEFFICIENTS") == {
        "alpha": "Krippendorff's alpha", "fleiss": "Fleiss' kappa", "cohen": "Cohen's kappa"}


def test_the_old_estimators_table_warns_and_still_answers():
    import importlib
    module = importlib.import_module(kl.dask_estimate.__module__)
    table = deprecated(module, "ESTIMATORS")
    assert list(table) == ["percent_agreement", "krippendorff_alpha", "fleiss_kappa", "gwet_ac",
                           "brennan_prediger", "spa", "spa_kappa"]
    alpha, fleiss, spa = table["krippendorff_alpha"], table["fleiss_kappa"], table["spa_kappa"]
    assert (alpha.family, alpha.option, alpha.default, alpha.kind, alpha.chance,
            alpha.item_weighting, alpha.name, alpha.weighted_name) == (
        "multirater", "level", "nominal", "level", "pooled", "annotation",
        "Krippendorff's alpha", None)
    assert (fleiss.option, fleiss.default, fleiss.kind, fleiss.chance, fleiss.weighted_name) \
        == ("weights", None, "weights", "item_marginal", "Fleiss' kappa (weighted)")
    assert (spa.family, spa.option, spa.default, spa.chance) == (
        "spa", "scheme", "flat", "chance_corrected")


# ---------------------------------------------------------------------- data-dependent distances
def test_only_krippendorffs_ordinal_metric_depends_on_the_data():
    categories = [1, 2, 3]

    def values(purpose):
        return np.array(categories, dtype=float)

    def marginals():
        return np.array([2.0, 3.0, 5.0])

    def resolve(spec, kind="level"):
        return category_distance(spec, categories, kind=kind, values=values,
                                 marginals=marginals)

    assert resolve("ordinal").data_dependent
    for spec in ("nominal", "interval", "ratio", "circular", "bipolar", 1 - np.eye(3)):
        assert not resolve(spec).data_dependent
    for spec in ("identity", "ordinal", "linear", "quadratic"):
        assert not resolve(spec, "weights").data_dependent


def test_rater_report_resolves_the_level_once(monkeypatch):
    from kappalab import distances
    from kappalab.coefficients import cross, multirater
    calls = []
    original = distances.category_distance

    def counted(*args, **kwargs):
        calls.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(multirater, "category_distance", counted)
    monkeypatch.setattr(cross, "category_distance", counted)
    for coefficient in ("alpha", "conger"):
        calls.clear()
        kl.rater_report(worked(), coefficient=coefficient)
        assert calls == ["nominal"]


def test_rater_versus_rest_takes_a_resolved_distance_and_refuses_a_data_dependent_one():
    from kappalab.coefficients.cross import RaterVersusRest
    from kappalab.coefficients.multirater import distance_for
    ann = worked()
    core = RaterVersusRest(ann, distance_for(ann, "nominal"))
    # rater A of the worked example: d_o = 0.2, d_e = 0.615 (RaterVersusRest's docstring)
    assert core.for_rater(0).estimate().value == pytest.approx(1 - 0.2 / 0.615, abs=1e-12)
    with pytest.raises(InvalidParameterError, match="ordinal metric of κx"):
        RaterVersusRest(ann, distance_for(ann, "ordinal"))


def test_a_core_bound_from_an_estimated_core_does_not_carry_its_totals():
    """A core rebound to another rater must sum its own totals: the analytic interval reuses
    ``estimated_totals`` when set, so a stale copy would give rater A's value for rater B."""
    from kappalab.coefficients.cross import RaterVersusRest
    from kappalab.coefficients.multirater import distance_for
    from kappalab.uncertainty import IntervalOptions
    ann = worked()
    panel = RaterVersusRest(ann, distance_for(ann, "nominal"))
    first = panel.for_rater(0)
    first.estimate()
    rebound = first.for_rater(1)
    fresh = panel.for_rater(1)
    options = IntervalOptions.of("jackknife")
    assert rebound.estimated_totals is None
    assert rebound.estimate_with(options).value == fresh.estimate_with(options).value
