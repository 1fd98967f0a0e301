"""Shared plumbing of the paper-reproduction scripts: arguments, the simulated IRep design,
tables, and the note every output carries.

Every script takes ``--quick`` (a small run, used by the tests), ``--out DIR`` (default
``results/paper_repro``) and ``--seed``; writes its PNG, CSV and markdown table there, and
prints where.

The IRep data (Wong, Paritosh & Aroyo 2021, §4: 31 emotion labels judged present/absent on
videos by rater pools in Mexico City, Budapest and Kuala Lumpur) are not available offline.
The scripts reproduce the paper's claims on *simulated stand-ins*: binary replications from
:func:`kappalab.simulate.replications` (latent-threshold model, exact population truths) with
IRep-like settings — a few hundred to 1 000 items, 1–5 annotations per item on each side
(missing data), a minority ("present") prevalence of 5–40 %.
"""

from __future__ import annotations

import argparse
import math
import warnings
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import matplotlib

matplotlib.use("Agg")  # files only, no display

import matplotlib.pyplot  # noqa: E402  (after the backend)
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from kappalab.plots import STYLE  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "results" / "paper_repro"

PAPER = ("Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An "
         "Empirical Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065, "
         "doi:10.18653/v1/2021.acl-long.548")

STAND_IN_NOTE = (
    "The data are SIMULATED stand-ins for IRep (the IRep annotations are not available "
    "offline): binary present/absent replications from kappalab.simulate.replications "
    "(latent-threshold model with exact population truths), with IRep-like settings. "
    "Numbers are comparable to the paper's in kind, not item for item."
)

#: annotations per item on each side: uniform on 1..5 (missing data), a *pair* (X, Y) of ranges
ANNOTATIONS_PER_ITEM = ((1, 5), (1, 5))


def parse_args(description: str, argv: list[str] | None = None,
               extra: Iterable[tuple[str, dict]] = (), *,
               default_seed: int = 20210801) -> argparse.Namespace:
    """--quick, --out, --seed and the script's ``extra`` options (every paper_repro script)."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true",
                        help="a small run that finishes in seconds (used by the tests)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"output folder (default {DEFAULT_OUT})")
    parser.add_argument("--seed", type=int, default=default_seed)
    for flag, options in extra:
        parser.add_argument(flag, **options)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    matplotlib.pyplot.style.use(STYLE)  # kappalab's house style (kappalab.plots.STYLE)
    return args


def quietly(fn: Callable[..., Any], *args, **kwargs) -> Any:
    """Call ``fn`` with kappalab's undefined-coefficient warnings silenced (the NaN it returns
    is counted by the caller, not lost)."""
    from kappalab.errors import UndefinedCoefficientWarning

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedCoefficientWarning)
        return fn(*args, **kwargs)


def load_disattenuated_correlation() -> Callable | None:
    """``kappalab.coefficients.disattenuation.disattenuated_correlation``, or None when that
    module is not there (yet)."""
    try:
        from kappalab.coefficients.disattenuation import disattenuated_correlation
    except ImportError:
        return None
    return disattenuated_correlation


def fmt(value: Any, digits: int = 4) -> str:
    """A table cell: fixed point, or scientific for very small or large numbers."""
    if value is None:
        return ""
    if isinstance(value, (float, np.floating)):
        if math.isnan(value):
            return "NaN"
        if value != 0 and (abs(value) < 10 ** -(digits - 1) or abs(value) >= 1e6):
            return f"{value:.{digits - 1}e}"
        return f"{value:.{digits}f}"
    return str(value)


def markdown_table(frame: pd.DataFrame, digits: int = 4,
                   formats: dict[str, Callable[[Any], str]] | None = None) -> str:
    """A GitHub-flavoured markdown table (no tabulate dependency)."""
    formats = formats or {}
    header = [str(c) for c in frame.columns]
    rows = [[formats.get(c, lambda v: fmt(v, digits))(v) for c, v in zip(frame.columns, row)]
            for row in frame.itertuples(index=False, name=None)]
    widths = [max(len(h), *(len(r[k]) for r in rows)) if rows else len(h)
              for k, h in enumerate(header)]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"  # noqa: E731
    out = [line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    out += [line(r) for r in rows]
    return "\n".join(out)


def write_markdown(path: Path, title: str, sections: Sequence[str]) -> None:
    text = [f"# {title}", "", f"> {STAND_IN_NOTE}", "", f"Paper: {PAPER}.", ""]
    for section in sections:
        text += [section.rstrip(), ""]
    path.write_text("\n".join(text))


def write_markdown_with_note(path: Path, title: str, sections: Sequence[str], *,
                             note: str) -> None:
    """As :func:`write_markdown`, with ``note`` in place of the simulated-data note (for the
    scripts that read real data)."""
    text = [f"# {title}", "", f"> {note}", "", f"Paper: {PAPER}.", ""]
    for section in sections:
        text += [section.rstrip(), ""]
    path.write_text("\n".join(text))


def show_png(path: Path) -> None:
    """Draw a PNG file that a script wrote at its own size, on axes without ticks (so that the
    documentation gallery, which shows the figures a run draws, shows the script's output)."""
    image = matplotlib.pyplot.imread(path)
    fig = matplotlib.pyplot.figure(figsize=(image.shape[1] / 100, image.shape[0] / 100),
                                   dpi=100)
    ax = fig.add_axes((0, 0, 1, 1))
    ax.imshow(image)
    ax.set_axis_off()


def pearson(a: np.ndarray, b: np.ndarray) -> float:
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    keep = np.isfinite(a) & np.isfinite(b)
    if keep.sum() < 3:
        return float("nan")
    return float(np.corrcoef(a[keep], b[keep])[0, 1])
