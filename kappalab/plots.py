"""Figures. matplotlib is imported inside each function, and figures are made without pyplot
(``matplotlib.figure.Figure``) unless an ``ax`` is given, so nothing here needs a display or
changes the backend.

One convention for every function: it returns the ``matplotlib.figure.Figure`` it drew on —
a new one, or the figure of the ``ax`` given — whose ``axes`` hold what was drawn; save it with
``figure.savefig(path)``. Each takes a report table or the data themselves (the report is then
computed, with the report function's options).

Every figure is drawn in one house style, :data:`STYLE` (also used by the experiment and
reproduction scripts and the documentation's gallery); :func:`style` applies it to a figure
of your own.
"""

from __future__ import annotations

import contextlib
import functools
from typing import Any, Callable, Iterator, Sequence

import numpy as np
import pandas as pd
from cycler import cycler

from .distances import DistanceSpec
from .errors import InvalidParameterError
from .validation import SeedLike

__all__ = ["STYLE", "items", "raters", "report", "sample_size", "style", "xrr"]

#: The house style of kappalab's figures, as matplotlib ``rcParams``: light grid, no top and
#: right spines, frameless legends, one font scale, and the colour-blind-safe palette of
#: Okabe & Ito (2008) as the colour cycle.
STYLE: dict[str, Any] = {
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.6,
    "axes.titlesize": 10,
    "axes.labelsize": 9,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "legend.fontsize": 8,
    "legend.frameon": False,
    "figure.titlesize": 11,
    "savefig.dpi": 120,
    "savefig.bbox": "tight",
    "axes.prop_cycle": cycler(color=["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7",
                                     "#56B4E9", "#F0E442", "#000000"]),
}


@contextlib.contextmanager
def style() -> Iterator[None]:
    """Draw in kappalab's house style (:data:`STYLE`) inside the ``with`` block.

    Yields
    ------
    None
        Figures and axes made inside the block take the style.

    References
    ----------
    Okabe, M. & Ito, K. (2008). Color Universal Design (CUD): how to make figures and
    presentations that are friendly to colorblind people. J*Fly Data Depository for
    Drosophila Researchers.

    Examples
    --------
    >>> from matplotlib.figure import Figure
    >>> with style():
    ...     ax = Figure().add_subplot()
    >>> ax.spines["top"].get_visible(), ax.xaxis.label.get_fontsize()
    (False, 9.0)
    """
    import matplotlib

    # STYLE's keys are rc names, which matplotlib's annotations spell out as literals
    with matplotlib.rc_context(STYLE):  # type: ignore[arg-type]
        yield


def _styled(draw: Callable) -> Callable:
    """Run a plotting function in the house style."""
    @functools.wraps(draw)
    def styled(*args: Any, **kwargs: Any) -> Any:
        with style():
            return draw(*args, **kwargs)
    return styled

#: the bars of :func:`xrr`: (report quantity, label, colour)
_XRR_BARS = (
    ("IRR_X", "IRR$_X$", "#7f9fbf"),
    ("IRR_Y", "IRR$_Y$", "#4f6f9f"),
    ("kappa_x", r"$\kappa_x$", "#d9822b"),
    ("normalized_kappa_x", r"normalized $\kappa_x$", "#3a9b5c"),
    ("rho_xy", r"$\rho_{xy}$ (eq 12)", "#7a5195"),
)


@_styled
def xrr(report_or_x: Any, y: Any = None, level: DistanceSpec = "nominal", *, ax: Any = None,
        n_splits: int = 100, seed: SeedLike = None, categories: Sequence[Any] | None = None,
        title: str | None = None):
    r"""Draw the cross-replication triangulation of Wong, Paritosh & Aroyo (2021).

    ``report_or_x`` is a table from :func:`kappalab.xrr_report`, or replication X (then
    ``y`` is replication Y and the report is computed with ``level``, ``n_splits``, ``seed``,
    ``categories``). Bars show IRR_X, IRR_Y, κx, normalized κx and Spearman's ρ_xy with their
    values (``n/a`` where undefined), with the paper's reading drawn on them (the legend sits
    to the right of the axes, clear of the bars):

    * a dashed line at max(IRR_X, IRR_Y), the ceiling of κx (eq 14, §3.4);
    * a diamond on the κx bar at ρ_xy·√(IRR_X·IRR_Y), what eq 14 predicts κx to be;
    * a dotted line at ρ_xy across the normalized κx bar: normalized κx ≈ ρ_xy (§4.5, Fig. 7).

    Parameters
    ----------
    report_or_x : DataFrame, Annotations or array-like
        A table from :func:`kappalab.xrr_report` (columns ``quantity`` and ``value``),
        or replication X (anything :func:`~kappalab.xrr_report` takes as ``x``).
    y : Annotations or array-like, optional
        Replication Y, when ``report_or_x`` is replication X; None with a report.
    level : str, array-like or callable, default "nominal"
        Krippendorff's distance metric for the report (:mod:`kappalab.distances`); used only
        when the report is computed here.
    ax : matplotlib Axes, optional
        Where to draw (default: a new ``matplotlib.figure.Figure``'s, without pyplot).
    n_splits : int, default 100
        The number of random split-half divisions of the report, when it is computed here.
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the report's random splits (:func:`kappalab.validation.make_rng`), when it is
        computed here.
    categories : sequence, optional
        The category set and order for the report (default: the values in the data), when it
        is computed here.
    title : str, optional
        The title (default: "Cross-replication reliability (Wong, Paritosh & Aroyo 2021)").

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (a new one when ``ax`` is None, else ``ax.figure``).

    Raises
    ------
    InvalidParameterError
        If both a report and ``y`` are given, replication X without ``y``, or a table
        without one of the rows IRR_X, IRR_Y, kappa_x, normalized_kappa_x, rho_xy.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> x = [[1, 1], [2, 2], [1, 2]]  # IRR_X: α = 1 − (2/6)/(2·3·3/(6·5)) = 4/9
    >>> y = [[1, 1], [2, 2], [2, 2]]  # IRR_Y: α = 1 (no disagreement)
    >>> ax = xrr(x, y, seed=0).axes[0]
    >>> [round(float(bar.get_height()), 4) for bar in ax.patches[:4]]  # κx/√(4/9 · 1) = 1
    [0.4444, 1.0, 0.6667, 1.0]
    >>> ax.get_xlabel()
    '3 items in common (0 dropped from X, 0 from Y)'
    """
    from .reports.agreement import xrr_report

    if isinstance(report_or_x, pd.DataFrame) and {"quantity", "value"} <= set(
            report_or_x.columns):
        if y is not None:
            raise InvalidParameterError("give a report, or the two replications x and y")
        report = report_or_x
    else:
        if y is None:
            raise InvalidParameterError(
                "xrr needs a table from xrr_report, or the two replications x and y")
        report = xrr_report(report_or_x, y, level=level, n_splits=n_splits, seed=seed,
                            categories=categories)
    values = report.set_index("quantity")["value"]
    missing = [q for q, _, _ in _XRR_BARS if q not in values.index]
    if missing:
        raise InvalidParameterError(f"the report has no row {missing[0]!r}: pass a table from "
                                    "kappalab.xrr_report")
    heights = np.array([float(values[q]) for q, _, _ in _XRR_BARS])

    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(8.6, 4.2), layout="constrained").add_subplot()
    positions = np.arange(len(_XRR_BARS))
    finite = np.isfinite(heights)
    ax.bar(positions, np.where(finite, heights, 0.0), width=0.62,
           color=[c for _, _, c in _XRR_BARS], edgecolor="black", linewidth=0.6)
    irr_x, irr_y, kx, nkx, rho = heights
    predicted = rho * np.sqrt(irr_x * irr_y) if irr_x > 0 and irr_y > 0 else np.nan
    for k, (pos, h) in enumerate(zip(positions, heights)):
        text = f"{h:.3f}" if np.isfinite(h) else "n/a"
        top = h if np.isfinite(h) else 0.0
        if k == 2 and np.isfinite(predicted):  # keep the label clear of the eq 14 marker
            top = max(top, predicted)
        ax.annotate(text, (pos, top), xytext=(0, 5 if top >= 0 else -14),
                    textcoords="offset points", ha="center", fontsize=9, zorder=5,
                    bbox=dict(facecolor="white", edgecolor="none", pad=0.6, alpha=0.85))
    ax.axhline(0.0, color="black", linewidth=0.8)
    if np.isfinite(irr_x) or np.isfinite(irr_y):
        cap = np.nanmax([irr_x, irr_y])
        ax.axhline(cap, color="#555555", linestyle="--", linewidth=1.0,
                   label=r"max IRR: ceiling of $\kappa_x$ (eq 14)")
    if np.isfinite(predicted):
        ax.plot([positions[2]], [predicted], marker="D", color="black",
                linestyle="none", markersize=6,
                label=r"$\rho_{xy}\sqrt{\mathrm{IRR}_X\mathrm{IRR}_Y}$ (eq 14)")
    if np.isfinite(rho):
        ax.hlines(rho, positions[3] - 0.45, positions[4] + 0.45, colors="#7a5195",
                  linestyles=":", linewidth=1.5, label=r"normalized $\kappa_x \approx \rho_{xy}$")

    ax.set_xticks(positions, [label for _, label, _ in _XRR_BARS])
    shown = heights[finite]
    low = min(0.0, float(shown.min()) - 0.1) if shown.size else 0.0
    high = max(1.05, float(shown.max()) + 0.1) if shown.size else 1.05
    ax.set_ylim(low, high)
    ax.set_ylabel("coefficient")
    counts = {q: values.get(q, np.nan) for q in ("items_common", "items_dropped_x",
                                                   "items_dropped_y")}
    if all(np.isfinite(v) for v in counts.values()):
        ax.set_xlabel(f"{int(counts['items_common'])} items in common "
                      f"({int(counts['items_dropped_x'])} dropped from X, "
                      f"{int(counts['items_dropped_y'])} from Y)")
    ax.set_title(title if title is not None else
                 "Cross-replication reliability (Wong, Paritosh & Aroyo 2021)")
    if ax.get_legend_handles_labels()[0]:  # beside the axes, clear of bars and labels
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0))
    return ax.figure


def _report_of(data: Any, columns: Sequence[str], own: set[str], maker: str,
               options: dict[str, Any]) -> pd.DataFrame:
    """``data`` itself when it is a table of ``kappalab.<maker>`` (it has ``columns``), else
    the report of the annotations ``data``, computed with ``options``. A table with some of
    the report's own columns (``own``) but not all is refused, never read as annotations."""
    from .reports.items import item_report
    from .reports.raters import rater_report
    from .reports.agreement import agreement_report

    makers: dict[str, Callable[..., pd.DataFrame]] = {
        "rater_report": rater_report, "item_report": item_report,
        "agreement_report": agreement_report}
    make = makers[maker]
    if isinstance(data, pd.DataFrame):
        present = set(data.columns)
        if set(columns) <= present:
            if options:
                named = ", ".join(f"{name}=" for name in options)
                raise InvalidParameterError(
                    f"{named} computes the report from the annotations, but this is already a "
                    f"table from kappalab.{maker}: pass the annotations, or give {named} to "
                    f"kappalab.{maker}")
            return data
        if own & present:
            missing = ", ".join(c for c in columns if c not in present)
            raise InvalidParameterError(
                f"this table looks like one from kappalab.{maker} but has no column {missing}: "
                f"pass a table from kappalab.{maker}, or the annotations themselves")
    return make(data, **options)


@_styled
def report(table: Any, *, ax: Any = None, title: str | None = None, **options: Any):
    r"""The coefficients of an agreement report, one row each, with their intervals.

    A point per coefficient at its value, with its interval when the report has one
    (``ci_low``, ``ci_high``), in the report's order from the top down; a coefficient that
    could not be computed is written "n/a". A dotted line marks 0 (chance).

    Parameters
    ----------
    table : pandas.DataFrame, Annotations or annotations data
        A table from :func:`kappalab.agreement_report` (columns ``coefficient``, ``value``,
        ``ci_low``, ``ci_high``), or the annotations, whose report is then computed with
        ``options``.
    ax : matplotlib Axes, optional
        Where to draw (default: a new ``matplotlib.figure.Figure``'s, without pyplot).
    title : str, optional
        The title (default: the level, the items and the annotations).
    **options
        Passed to :func:`kappalab.agreement_report` when ``table`` holds the annotations
        (``level=``, ``ci=``, ``confidence=``, ...).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (a new one when ``ax`` is None, else ``ax.figure``).

    Raises
    ------
    InvalidParameterError
        A table with some of the columns of an agreement report but not all, or ``options``
        with a report.
    AnnotationError
        As :func:`kappalab.agreement_report` raises it, for annotations.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Annenberg School for
    Communication, University of Pennsylvania (the worked example below).

    Examples
    --------
    >>> import kappalab as kl
    >>> ann = kl.datasets.load("worked_example")
    >>> ax = report(kl.agreement_report(ann)).axes[0]
    >>> [label.get_text() for label in ax.get_yticklabels()][:2]   # from the top down
    ['percent agreement', "Krippendorff's alpha"]
    >>> round(float(ax.lines[0].get_xdata()[1]), 4)   # α of the worked example
    0.5782
    """
    table = _report_of(table, ("coefficient", "value"), {"ci_low", "ci_high", "se"},
                       "agreement_report", options)
    values = table["value"].to_numpy(dtype=float)
    finite = np.isfinite(values)
    positions = np.arange(len(table))[::-1]  # the first row at the top
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(6.4, 1.6 + 0.3 * len(table)), layout="constrained").add_subplot()
    ax.plot(values[finite], positions[finite], marker="o", linestyle="none", color="#0072B2",
            markersize=5, label="value")
    if {"ci_low", "ci_high"} <= set(table.columns):
        low = table["ci_low"].to_numpy(dtype=float)
        high = table["ci_high"].to_numpy(dtype=float)
        shown = finite & np.isfinite(low) & np.isfinite(high)
        if shown.any():
            ax.errorbar(values[shown], positions[shown],
                        xerr=[values[shown] - low[shown], high[shown] - values[shown]],
                        fmt="none", ecolor="#555555", elinewidth=1.0, capsize=2,
                        label="interval")
    for y in positions[~finite]:
        ax.annotate("n/a", (0.0, y), xycoords=("axes fraction", "data"), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=8)
    ax.axvline(0.0, color="black", linestyle=":", linewidth=1.0)
    ax.set_yticks(positions, [str(name) for name in table["coefficient"]])
    ax.set_ylim(-0.7, len(table) - 0.3)
    ax.set_xlabel("value")
    if title is None:
        parts = [f"level {table['level'].iloc[0]}" if "level" in table.columns else None,
                 f"{int(table['n_items'].iloc[0])} items" if "n_items" in table.columns
                 else None,
                 f"{int(table['n_annotations'].iloc[0])} annotations"
                 if "n_annotations" in table.columns else None]
        shown_parts = [part for part in parts if part]
        title = "Agreement" + (f" ({', '.join(shown_parts)})" if shown_parts else "")
    ax.set_title(title)
    return ax.figure


@_styled
def sample_size(plans: Any, *, ax: Any = None, title: str | None = None):
    r"""The items (and annotations) that each sample-size plan needs, one bar per plan.

    One horizontal bar per plan of :func:`kappalab.plan` — typically the same goal with
    several numbers of annotations per item — its length the items N, labelled with N and
    the annotations N·m, so that designs can be compared at a glance.

    Parameters
    ----------
    plans : SampleSizePlan or sequence of SampleSizePlan
        Results of :func:`kappalab.plan`.
    ax : matplotlib Axes, optional
        Where to draw (default: a new ``matplotlib.figure.Figure``'s, without pyplot).
    title : str, optional
        The title (default: the design of the first plan).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (a new one when ``ax`` is None, else ``ax.figure``).

    Raises
    ------
    InvalidParameterError
        No plan, or something that is not a result of :func:`kappalab.plan`.

    References
    ----------
    Donner, A. & Eliasziw, M. (1987). Sample size requirements for reliability studies.
    *Statistics in Medicine* 6(4), 441–448. doi:10.1002/sim.4780060404 (the plans drawn: see
    :func:`kappalab.plan`).

    Examples
    --------
    >>> import kappalab as kl
    >>> plans = [kl.plan("alpha", reliability=0.7, half_width=0.1, annotations_per_item=m)
    ...          for m in (2, 5)]
    >>> ax = sample_size(plans).axes[0]
    >>> [int(bar.get_width()) for bar in ax.patches] == [p.n_items for p in plans]
    True
    """
    from .planning import SampleSizePlan

    plans = [plans] if isinstance(plans, SampleSizePlan) else list(plans)
    if not plans or not all(isinstance(p, SampleSizePlan) for p in plans):
        raise InvalidParameterError("sample_size() draws results of kappalab.plan: pass one "
                                    "or a list of them")
    n_items = np.array([p.n_items for p in plans], dtype=float)
    positions = np.arange(len(plans))[::-1]  # the first plan at the top
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(6.4, 1.8 + 0.4 * len(plans)), layout="constrained").add_subplot()
    ax.barh(positions, n_items, height=0.6, color="#0072B2", edgecolor="black",
            linewidth=0.4)
    for y, p in zip(positions, plans):
        goal = (f"half-width {p.half_width:.3f}" if p.goal == "half-width"
                else f"power {p.power:.3f}")
        ax.annotate(f"{p.n_items:,} items, {p.n_annotations:,} annotations ({goal})",
                    (p.n_items, y), xytext=(4, 0), textcoords="offset points", va="center",
                    fontsize=8)
    ax.set_yticks(positions, [f"{p.annotations_per_item} per item" for p in plans])
    ax.set_ylim(-0.7, len(plans) - 0.3)
    ax.set_xlim(0, float(n_items.max()) * 2.0)  # room for the labels
    ax.set_xlabel("items needed")
    ax.set_ylabel("annotations per item")
    import textwrap

    ax.set_title(title if title is not None else
                 textwrap.fill(f"Sample size for {plans[0].design()}", 80))
    return ax.figure


#: what :func:`raters` can draw: the columns of a rater report and their axis labels
_RATER_QUANTITIES = {
    "kappa_x": r"$\kappa_x$ of the rater against the others",
    "change": "change in {coefficient} without the rater",
}


@_styled
def raters(report: Any, quantity: str = "both", *, ax: Any = None,
           max_raters: int = 40, title: str | None = None, **options: Any):
    r"""Forest plot of a rater report: per rater, κx against the rest of the panel (with its
    interval when the report has one) and the change of the panel's coefficient when the
    rater is removed.

    Raters are listed from the lowest κx at the top; a panel of more than ``max_raters``
    shows the ``max_raters`` with the lowest κx (the title says how many of how many). The
    κx panel marks the median rater; the change panel marks 0, bars to the right (the panel
    agrees more without the rater) in red, to the left in blue. Undefined values are written
    "n/a". The legend sits below the axes, clear of the data.

    Parameters
    ----------
    report : pandas.DataFrame, Annotations or annotations data
        A table from :func:`kappalab.rater_report` (columns ``rater``, ``kappa_x``,
        ``change``, and ``kappa_x_low``/``kappa_x_high`` when it was computed with ``ci=``),
        or the annotations, whose report is then computed with ``options``.
    quantity : {"both", "kappa_x", "change"}, default "both"
        What to draw: both panels side by side (a new figure), or one of them.
    ax : matplotlib Axes, optional
        Where to draw one quantity (default: a new ``matplotlib.figure.Figure``'s, without
        pyplot); not with ``quantity="both"``.
    max_raters : int, default 40
        The most raters shown.
    title : str, optional
        The title (default: "Raters: agreement with the rest and influence on <coefficient>").
    **options
        Passed to :func:`kappalab.rater_report` when ``report`` holds the annotations
        (``level=``, ``coefficient=``, ``ci=``, ...).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (a new one when ``ax`` is None, else ``ax.figure``); its
        ``axes`` are [κx axes, change axes] for ``quantity="both"``.

    Raises
    ------
    InvalidParameterError
        A table with some of the columns of a rater report but not all, ``options`` with a
        report, an unknown ``quantity``, ``ax`` with ``quantity="both"``, or ``max_raters``
        not a whole number ≥ 1.
    AnnotationError
        As :func:`kappalab.rater_report` raises it, for annotations.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    The worked example: B agrees least with the others (κx = 0.4215) and α rises by 0.2722
    without B (see :func:`kappalab.rater_report`).

    >>> import kappalab as kl
    >>> report = kl.rater_report(kl.datasets.load("worked_example"))
    >>> left, right = raters(report).axes   # or raters(kl.datasets.load("worked_example"))
    >>> [label.get_text() for label in left.get_yticklabels()]   # from the top down
    ['B', 'C', 'A']
    >>> round(float(right.patches[0].get_width()), 4)             # B's bar, at the top
    0.2722
    """
    from .validation import check_count

    report = _report_of(report, ("rater", "kappa_x", "change"), {"kappa_x", "change"},
                        "rater_report", options)
    if quantity not in ("both", *_RATER_QUANTITIES):
        raise InvalidParameterError(f"unknown quantity {quantity!r}; choose 'both', "
                                    "'kappa_x' or 'change'")
    if quantity == "both" and ax is not None:
        raise InvalidParameterError("ax= draws one quantity: pass quantity='kappa_x' or "
                                    "'change', or no ax for both")
    check_count(max_raters, "max_raters", minimum=1)
    shown = report.sort_values("kappa_x", na_position="last", kind="stable")
    n_total = len(shown)
    shown = shown.iloc[:max_raters]
    coefficient = report.attrs.get("coefficient", "the coefficient")
    quantities = list(_RATER_QUANTITIES) if quantity == "both" else [quantity]
    if ax is None:
        from matplotlib.figure import Figure

        height = 2.0 + 0.26 * len(shown)
        figure = Figure(figsize=(4.4 * len(quantities) + 1.2, height), layout="constrained")
        axes = list(figure.subplots(1, len(quantities), sharey=True, squeeze=False)[0])
    else:
        axes = [ax]
    positions = np.arange(len(shown))[::-1]  # the first row at the top
    for axis, name in zip(axes, quantities):
        values = shown[name].to_numpy(dtype=float)
        finite = np.isfinite(values)
        if name == "kappa_x":
            _draw_kappa_x(axis, shown, positions, values, finite, report)
        else:
            colours = np.where(values > 0, "#c0504d", "#4f81bd")
            axis.barh(positions, np.where(finite, values, 0.0), height=0.6, color=colours,
                      edgecolor="black", linewidth=0.4)
            axis.axvline(0.0, color="black", linewidth=0.8)
            axis.plot([], [], marker="s", linestyle="none", color="#c0504d",
                      label="panel agrees more without the rater")
            axis.plot([], [], marker="s", linestyle="none", color="#4f81bd",
                      label="panel agrees less without the rater")
        for y in positions[~finite]:
            axis.annotate("n/a", (0.0, y), xycoords=("axes fraction", "data"),
                          xytext=(3, 0), textcoords="offset points", va="center", fontsize=8)
        axis.set_xlabel(_RATER_QUANTITIES[name].format(coefficient=coefficient))
        axis.set_yticks(positions, [str(r) for r in shown["rater"]])
        axis.set_ylim(-0.7, len(shown) - 0.3)
        axis.grid(axis="x", color="#dddddd", linewidth=0.6)
        axis.set_axisbelow(True)
        if ax is not None:  # the caller's figure: the legend to the right of the axes
            axis.legend(loc="upper left", bbox_to_anchor=(1.01, 1))
    if ax is None:  # below the axes, outside them
        handles = [h for axis in axes for h in axis.get_legend_handles_labels()[0]]
        axes[0].figure.legend(handles=handles, loc="outside lower center",
                              ncol=min(len(handles), 5))
    axes[0].set_ylabel("rater")
    default = {"both": f"Raters: agreement with the rest and influence on {coefficient}",
               "kappa_x": "Raters: agreement with the rest of the panel",
               "change": f"Raters: influence on {coefficient}"}
    heading = title if title is not None else default[quantity]
    if len(shown) < n_total:
        heading += f"\n({len(shown)} raters of {n_total} with the lowest $\\kappa_x$)"
    if len(axes) > 1:
        axes[0].figure.suptitle(heading)
    else:
        axes[0].set_title(heading)
    return axes[0].figure


def _draw_kappa_x(axis: Any, shown: pd.DataFrame, positions: np.ndarray, values: np.ndarray,
                  finite: np.ndarray, report: pd.DataFrame) -> None:
    """κx per rater, with its interval when the report has one, and the median rater."""
    if {"kappa_x_low", "kappa_x_high"} <= set(shown.columns):
        low = shown["kappa_x_low"].to_numpy(dtype=float)
        high = shown["kappa_x_high"].to_numpy(dtype=float)
        with_interval = finite & np.isfinite(low) & np.isfinite(high)
        confidence = report.attrs.get("confidence", 0.95)
        axis.errorbar(values[with_interval], positions[with_interval],
                      xerr=[values[with_interval] - low[with_interval],
                            high[with_interval] - values[with_interval]],
                      fmt="none", ecolor="#555555", elinewidth=1.0, capsize=2,
                      label=f"{confidence:.0%} interval ({report.attrs.get('ci')})")
    axis.plot(values[finite], positions[finite], marker="o", linestyle="none",
              color="#d9822b", markersize=5, label=r"$\kappa_x$ of the rater")
    every = report["kappa_x"].to_numpy(dtype=float)
    if np.isfinite(every).any():
        axis.axvline(float(np.nanmedian(every)), color="#555555", linestyle="--",
                     linewidth=1.0, label="median rater")


@_styled
def items(report: Any, *, ax: Any = None, contested_share: float = 0.1,
          title: str | None = None, **options: Any):
    r"""Draw the distribution of item agreement from :func:`kappalab.item_report`, with the
    most contested items marked.

    A histogram of the items' agreement — at the nominal level ``agreement``, the share of
    agreeing pairs of annotations, in 20 bins over [0, 1]; at other levels
    ``chance_corrected_agreement``, 1 − d_i/D_e (0 at chance), in 30 bins over its range —
    leaving out items with fewer than two annotations (they have none). The contested tail —
    the first ``contested_share`` of the report's rows with an agreement, i.e. the items of
    lowest agreement, as the report sorts them — is drawn in orange: every item whose
    agreement is at most that of the last of them. A dotted line
    marks chance: the coefficient's chance agreement P_e (the report's
    ``attrs["expected_agreement"]``) at the nominal level, 0 at the others.

    Parameters
    ----------
    report : pandas.DataFrame, Annotations or annotations data
        A table from :func:`kappalab.item_report` (with its column ``agreement``), or the
        annotations, whose report is then computed with ``options``.
    ax : matplotlib Axes, optional
        Where to draw (default: a new ``matplotlib.figure.Figure``'s, without pyplot).
    contested_share : float, default 0.1
        The share of items (with an agreement) marked as the contested tail, in (0, 1].
    title : str, optional
        The title (default: the coefficient and its value, from the report's ``attrs``).
    **options
        Passed to :func:`kappalab.item_report` when ``report`` holds the annotations
        (``level=``, ``coefficient=``, ``categories=``).

    Returns
    -------
    matplotlib.figure.Figure
        The figure drawn on (a new one when ``ax`` is None, else ``ax.figure``).

    Raises
    ------
    InvalidParameterError
        ``options`` with a report, a report without its ``chance_corrected_agreement``
        column at a level other than nominal, no item with two or more annotations, or
        ``contested_share`` outside (0, 1].
    AnnotationError
        As :func:`kappalab.item_report` raises it, for annotations.

    References
    ----------
    Nørregaard, J. & Derczynski, L. (2022). Sparse Probability of Agreement.
    arXiv:2208.06161 (the item agreement at the nominal level).

    Examples
    --------
    >>> import kappalab as kl
    >>> report = kl.item_report([[1, 1, 1], [1, 2, 3], [2, 2, 1], [3, 3, 3], [1, 1, 2]])
    >>> ax = items(report, contested_share=0.2).axes[0]  # 1 of 5 items: agreement 0
    >>> ax.get_xlabel()
    'item agreement (share of agreeing pairs of annotations)'
    >>> heights = [int(bar.get_height()) for bar in ax.patches]  # 20 bins, then the tail's
    >>> heights[0], heights[6], heights[19], heights[20]  # agreement 0, 1/3, 1; tail at 0
    (0, 2, 2, 1)
    """
    from .validation import check_real

    report = _report_of(report, ("agreement",), {"agreement", "chance_corrected_agreement",
                                                 "coefficient_if_removed", "change_if_removed"},
                        "item_report", options)
    share = check_real(contested_share, "contested_share", low=0.0, high=1.0)
    if share <= 0:
        raise InvalidParameterError(f"contested_share must be in (0, 1], got {share}")
    nominal = report.attrs.get("level", "nominal") == "nominal"
    column = "agreement" if nominal else "chance_corrected_agreement"
    if column not in report.columns:
        raise InvalidParameterError(f"the table has no column {column!r}: pass a table from "
                                    "kappalab.item_report")
    agreement = report[column].to_numpy(dtype=float)
    agreement = agreement[np.isfinite(agreement)]
    if agreement.size == 0:
        raise InvalidParameterError(
            "no item has two or more annotations: there is no item agreement to draw")
    n_tail = max(1, int(np.ceil(share * agreement.size)))
    cutoff = np.sort(agreement)[n_tail - 1]
    # equal bins: 20 of width 0.05 over [0, 1] for the share of agreeing pairs, 30 over the
    # range otherwise (discrete values such as 0, 1/3, 1 each fall inside one bin)
    low = 0.0 if nominal else float(min(agreement.min(), 0.0))
    high = 1.0 if nominal else float(agreement.max())
    edges = np.linspace(low, high if high > low else low + 1.0, 21 if nominal else 31)
    contested = agreement <= cutoff
    if ax is None:
        from matplotlib.figure import Figure

        ax = Figure(figsize=(6.4, 4.0), layout="constrained").add_subplot()
    ax.hist([agreement[~contested], agreement[contested]], bins=edges, stacked=True,
            color=["#4f6f9f", "#d9822b"], edgecolor="black", linewidth=0.5,
            label=["other items",
                   f"most contested: {int(contested.sum())} items, agreement ≤ {cutoff:.3g}"])
    expected = report.attrs.get("expected_agreement") if nominal else 0.0
    if expected is not None and np.isfinite(expected):
        ax.axvline(expected, color="black", linestyle=":", linewidth=1.2,
                   label=f"chance agreement = {expected:.3f}")
    ax.set_xlabel("item agreement (share of agreeing pairs of annotations)" if nominal else
                  f"chance-corrected item agreement 1 − $d_i/D_e$ ({report.attrs['level']})")
    ax.set_ylabel("items")
    if title is None and "coefficient" in report.attrs:
        title = (f"Item agreement of {agreement.size} items "
                 f"({report.attrs['coefficient']} = {report.attrs['value']:.3f})")
    if title:
        ax.set_title(title)
    ax.legend(loc="upper left")
    return ax.figure
