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
    lambda: [plots.xrr(_report())],
    lambda: plots.raters(kl.rater_report(_worked_example())),
    lambda: [plots.items(kl.item_report(_worked_example()))],
])
def test_the_figures_take_the_house_style_and_leave_rcparams_alone(draw):
    before = dict(matplotlib.rcParams)
    axes = draw()
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
