"""One house style for every figure: kappalab.plots draws in kappalab.plots.STYLE without
changing the caller's matplotlib settings, and the experiment and reproduction scripts
switch to it when they parse their arguments."""

from __future__ import annotations

import matplotlib
import pandas as pd
import pytest

import kappalab as kl
from kappalab import plots
from kappalab.plots import STYLE


def _report():
    return pd.DataFrame({"quantity": ["IRR_X", "IRR_Y", "kappa_x", "normalized_kappa_x",
                                      "rho_xy", "items_common", "items_dropped_x",
                                      "items_dropped_y"],
                         "value": [0.8, 0.7, 0.6, 0.8, 0.8, 100, 0, 0]})


def _worked_example():
    from kappalab import datasets

    return datasets.load("worked_example")


@pytest.mark.parametrize("draw", [
    lambda: plots.xrr(_report()),
    lambda: plots.raters(kl.rater_report(_worked_example())),
    lambda: plots.items(kl.item_report(_worked_example())),
])
def test_the_figures_take_the_house_style_and_leave_rcparams_alone(draw):
    before = dict(matplotlib.rcParams)
    axes = draw().axes
    assert matplotlib.rcParams == before
    colours = {entry["color"] for entry in STYLE["axes.prop_cycle"]}
    for ax in axes:
        assert not ax.spines["top"].get_visible() and not ax.spines["right"].get_visible()
        assert ax.xaxis.label.get_fontsize() == STYLE["axes.labelsize"]
        assert ax.title.get_fontsize() == STYLE["axes.titlesize"] or not ax.get_title()
        assert ax.plot([], [])[0].get_color() in colours  # the axes' own colour cycle


@pytest.mark.parametrize("module", ["experiments.study", "paper_repro.reporting"])
def test_the_scripts_draw_in_the_house_style(module, tmp_path):
    import importlib

    parse_args = importlib.import_module(module).parse_args
    with matplotlib.rc_context():
        parse_args("a script", ["--out", str(tmp_path)])
        for key, value in STYLE.items():
            assert matplotlib.rcParams[key] == value, key


# ----------------------------------------------------------- one convention: a Figure
def _replications():
    x = [[1, 1], [2, 2], [1, 2], [2, 2]]
    y = [[1, 1], [2, 2], [2, 2], [1, 2]]
    return x, y


@pytest.mark.parametrize(("name", "draw"), [
    ("xrr", lambda: plots.xrr(*_replications(), seed=0)),
    ("xrr of a report", lambda: plots.xrr(_report())),
    ("raters", lambda: plots.raters(kl.rater_report(_worked_example()))),
    ("raters, one quantity", lambda: plots.raters(kl.rater_report(_worked_example()),
                                                  "kappa_x")),
    ("raters of the data", lambda: plots.raters(_worked_example())),
    ("items", lambda: plots.items(kl.item_report(_worked_example()))),
    ("items of the data", lambda: plots.items(_worked_example())),
])
def test_every_plot_function_returns_a_figure(name, draw, tmp_path):
    """The newcomer's `out = kl.plots.raters(...); out.savefig(...)` works for every function
    (plots.raters once returned a list of Axes, with no .figure nor .savefig)."""
    from matplotlib.figure import Figure

    figure = draw()
    assert isinstance(figure, Figure), name
    assert figure.axes
    path = tmp_path / "figure.png"
    figure.savefig(path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


@pytest.mark.parametrize("draw", [plots.xrr, plots.raters, plots.items])
def test_a_given_ax_gives_back_its_figure(draw):
    from matplotlib.figure import Figure

    figure = Figure()
    ax = figure.add_subplot()
    if draw is plots.xrr:
        out = draw(*_replications(), seed=0, ax=ax)
    elif draw is plots.raters:
        out = draw(_worked_example(), "change", ax=ax)
    else:
        out = draw(_worked_example(), ax=ax)
    assert out is figure and ax.has_data()


@pytest.mark.slow
def test_raters_and_items_draw_the_annotations_themselves():
    """kl.plots.raters(ann) and kl.plots.items(ann) compute the report themselves: the figure
    of the annotations draws the same bars and labels as the figure of their report. In the
    worked example (Krippendorff 2011) rater B agrees least with the others, then C, then A,
    which is the order from the top down."""
    ann = _worked_example()
    from_data, from_report = plots.raters(ann), plots.raters(kl.rater_report(ann))
    for left, right in zip(from_data.axes[:2], from_report.axes[:2]):
        assert ([t.get_text() for t in left.get_yticklabels()]
                == [t.get_text() for t in right.get_yticklabels()])
        assert ([p.get_width() for p in left.patches] == [p.get_width() for p in right.patches])
    assert [t.get_text() for t in from_data.axes[0].get_yticklabels()] == ["B", "C", "A"]
    # options of the report pass through: the nominal and ordinal item figures differ
    nominal, ordinal = plots.items(ann), plots.items(ann, level="ordinal")
    assert nominal.axes[0].get_xlabel().startswith("item agreement")
    assert ordinal.axes[0].get_xlabel().startswith("chance-corrected item agreement")
    heights = [p.get_height() for p in plots.items(kl.item_report(ann)).axes[0].patches]
    assert [p.get_height() for p in nominal.axes[0].patches] == heights


def test_report_options_with_a_report_are_refused():
    report = kl.rater_report(_worked_example())
    with pytest.raises(kl.errors.InvalidParameterError, match="level= .*annotations"):
        plots.raters(report, level="interval")
    with pytest.raises(kl.errors.InvalidParameterError, match="rater_report"):
        plots.raters(pd.DataFrame({"rater": ["a"], "kappa_x": [0.5]}))  # part of a report


def test_report_draws_each_coefficient_with_its_interval():
    """plots.report: one row per coefficient of kl.agreement_report, its value and interval.
    The worked example's α (Krippendorff 2011, nominal) by the krippendorff package."""
    import krippendorff
    import numpy as np

    ann = _worked_example()
    table = kl.agreement_report(ann, ci="analytic")
    figure = plots.report(table)
    ax = figure.axes[0]
    labels = [t.get_text() for t in ax.get_yticklabels()]
    points = next(line for line in ax.lines if line.get_marker() == "o")
    drawn = dict(zip(labels, points.get_xdata()[np.argsort(-points.get_ydata())]))
    assert set(labels) == set(table["coefficient"])
    frame = kl.datasets.load_frame("worked_example")
    codes = {v: i for i, v in enumerate(sorted(frame["value"].unique()))}
    data = (frame.assign(value=frame["value"].map(codes))
            .pivot(index="rater", columns="item", values="value").to_numpy(dtype=float))
    alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert drawn["Krippendorff's alpha"] == pytest.approx(alpha, abs=1e-12)
    caps = ax.collections[0].get_segments()
    low = {s[:, 0].min() for s in caps}
    assert all(any(abs(v - x) < 1e-12 for x in low) for v in table["ci_low"].dropna())
    assert plots.report(ann).axes[0].get_yticklabels()  # from the annotations too


def test_sample_size_draws_the_items_and_annotations_of_each_plan():
    """plots.sample_size: one bar per plan, its length the items the plan needs, labelled
    with the items and the annotations (items × annotations per item)."""
    plans = [kl.plan("alpha", reliability=0.7, half_width=0.1, annotations_per_item=m)
             for m in (2, 3, 5)]
    figure = plots.sample_size(plans)
    ax = figure.axes[0]
    widths = sorted(p.get_width() for p in ax.patches)
    assert widths == sorted(float(p.n_items) for p in plans)
    texts = " ".join(t.get_text() for t in ax.texts)
    for p in plans:
        assert f"{p.n_items:,} items" in texts
        assert f"{p.n_items * p.annotations_per_item:,} annotations" in texts
    assert plots.sample_size(plans[0]).axes[0].patches  # one plan too
