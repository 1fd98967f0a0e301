"""The console command: ``kappalab report FILE ...``, ``kappalab demo`` and ``kappalab plan``
(the items a study needs, :func:`kappalab.plan`).

``kappalab report`` reads a long file (one row per annotation) or, with ``--wide``, an items ×
raters file: delimited text (separator sniffed among comma, tab and semicolon, or ``--sep``;
``-`` is stdin), ``.xlsx`` and ``.parquet`` (with openpyxl or pyarrow: the ``readers`` extra).
Nothing is dropped silently: only an empty cell (or a token of ``--na-values``) is missing,
and the rows dropped for a missing value are counted on stderr. Errors are one line on stderr
starting ``kappalab: error:``, exit code 2 (130 after Ctrl-C; a closed pipe downstream,
as in ``kappalab report FILE | head``, ends quietly with 141). A progress line appears on
stderr for steps longer than 2 s when stderr is a terminal (see :mod:`kappalab.progress`).
"""

from __future__ import annotations

import argparse
import errno
import io
import json
import numbers
import os
import signal
import sys
import warnings
from importlib import metadata
from typing import Any, Sequence

import numpy as np
import pandas as pd

from .annotations import DUPLICATE_POLICIES
from .distances import LEVELS, category_distance
from .errors import DroppedAnnotationsWarning, KappalabError
from .interpretation import SCALES
from .coefficients import registry
# the readers live in kappalab.io; their names here are kept for the callers of kappalab.cli
from .io import ReadError, read_annotations, read_table, sniff_separator  # noqa: F401
from .planning import plan
from .progress import elapsed, track
from .reports.raters import rater_report
from .reports.agreement import NOT_COMPUTED, ReportTable, agreement_report
from .startup import EXIT_INTERRUPTED, INTERRUPTED
from .uncertainty import CI_METHODS, CORE_METHODS, IntervalOptions, ci_choices

FORMATS = ("table", "json", "csv")
#: the names ``kappalab plan --coefficient`` takes: the registry's coefficients with a plan,
#: by their short aliases and their functions' names
_PLANNED = [name for entry in registry.coefficients("planning")
            for name in (*entry.aliases, entry.name)]


class CliError(ReadError):
    """A fault of the command line's input (unreadable file, bad option): the console command
    prints it as one line on stderr and exits with code 2. The file readers'
    :class:`~kappalab.io.ReadError` is its base, and is printed alike."""


def _render(report: pd.DataFrame, fmt: str) -> str:
    if fmt == "json":
        records = json.loads(report.to_json(orient="records", double_precision=15))
        return json.dumps(records, indent=2)
    if fmt == "csv":
        return report.to_csv(index=False).rstrip("\n")
    return ReportTable(report).to_text()  # the notes as footnotes, no empty column


def _first_line(exc: BaseException, default: str) -> str:
    text = str(exc).strip()
    return text.splitlines()[0] if text else default


# ---------------------------------------------------------------------- commands
def _report_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of :func:`~kappalab.agreement_report` given on the command line."""
    return {"ci": None if args.ci == "none" else args.ci, "n_resamples": args.n_resamples,
            "confidence": args.confidence, "seed": args.seed, "benchmark": args.benchmark,
            "progress": False}  # the command line shows its own progress line


def _report_command(args: argparse.Namespace) -> str:
    _check_plot_path(args.plot)
    if args.raters and args.format == "csv":
        raise CliError("--raters with --format csv: a CSV holds one table; use --format json "
                       "(the report and the raters' table) or table")
    rater = None if args.rater in ("", "none", "None") else args.rater
    na_values = _tokens(args.na_values)
    categories = None if args.categories is None else _tokens(args.categories)
    name = "stdin" if args.file == "-" else os.path.basename(args.file)
    with warnings.catch_warnings(record=True) as caught, \
            elapsed(f"kappalab: reading {name}", quiet=args.quiet):
        warnings.simplefilter("always", DroppedAnnotationsWarning)
        ann = read_annotations(args.file, wide=args.wide, item=args.item, rater=rater,
                               value=args.value, sep=args.sep, encoding=args.encoding,
                               na_values=na_values, categories=categories,
                               duplicates=args.duplicates)
    why = "an empty cell"
    if na_values:
        why += f" or one of --na-values {','.join(na_values)}"
    _print_notes(caught, why, f"--duplicates {args.duplicates}")
    if args.level == "ordinal" and categories is None and not ann.is_numeric:
        print(f"kappalab: note: {_order_note(ann.categories)}", file=sys.stderr)
    if not ann.is_numeric and _level_uses_values(args.level, ann.categories):
        name = "stdin" if args.file == "-" else args.file
        raise CliError(_with_missing_hint(_not_numbers(args.level, ann.categories, name),
                                          ann.categories))
    with warnings.catch_warnings(record=True) as caught, \
            elapsed(f"kappalab: computing the report ({_ci_description(args)}, "
                    f"{ann.n_annotations} annotations)", quiet=args.quiet):
        try:
            report = agreement_report(
                ann, level=args.level,
                categories=None if categories is None else list(ann.categories),
                **_report_options(args))
        except KappalabError as exc:
            raise CliError(_with_missing_hint(str(exc), ann.categories)) from None
    failed = report["note"].str.startswith(NOT_COMPUTED)
    if failed.all():  # nothing could be computed: one line, as for any other fault
        reason = report["note"].iloc[0][len(NOT_COMPUTED):]
        raise CliError(_with_missing_hint(reason, ann.categories))
    kept = _missing_looking(ann.categories)  # after any error, which has its own hint
    if kept:
        one = len(kept) == 1
        print(f"kappalab: note: the value{'' if one else 's'} {', '.join(map(repr, kept))} "
              f"{'is kept as a label' if one else 'are kept as labels'} (only an empty cell "
              f"is missing); if {'it means' if one else 'they mean'} missing, pass "
              f"--na-values {','.join(kept)}", file=sys.stderr)
    _print_notes(caught, why)
    if not args.raters:
        _save_plot(args, lambda plots: plots.report(report))
        return _render(report, args.format)
    with elapsed(f"kappalab: computing each rater's agreement with the rest "
                 f"({ann.n_raters} raters)", quiet=args.quiet):
        try:
            raters = rater_report(ann, level=args.level,
                                  categories=None if categories is None else list(ann.categories),
                                  **_rater_options(args))
        except KappalabError as exc:
            raise CliError(f"--raters: {exc}") from None
    _save_plot(args, lambda plots: plots.raters(raters))
    return _render_with_raters(report, raters, args.format)


def _rater_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options of :func:`~kappalab.rater_report` given on the command line (its
    interval by the report's method, where κx has it)."""
    ci = None if args.ci == "none" else args.ci
    return {"ci": None if ci in ("gwet", *CORE_METHODS) else ci, "n_resamples": args.n_resamples,
            "confidence": args.confidence, "seed": args.seed, "progress": False}


def _render_with_raters(report: pd.DataFrame, raters: pd.DataFrame, fmt: str) -> str:
    """The report and, after it, the raters' table (``--raters``): in JSON one object of the
    two lists; CSV holds one table, so the raters' is refused there before any work."""
    if fmt == "json":
        return json.dumps({"report": json.loads(_render(report, "json")),
                           "raters": json.loads(raters.to_json(orient="records",
                                                               double_precision=15))},
                          indent=2)
    with pd.option_context("display.width", 200, "display.max_columns", 30,
                           "display.float_format", "{:.4f}".format):
        table = raters.to_string(index=False)
    return (f"{_render(report, fmt)}\n\nEach rater against the rest of the panel "
            f"(kappalab.rater_report):\n{table}")


def _order_note(categories: Sequence[Any] | pd.Index, shown: int = 10) -> str:
    """The order ``--level ordinal`` gave text labels (sorted), and how to give another.

    Examples
    --------
    >>> _order_note(["hi", "lo", "mid"])
    "--level ordinal ordered the labels as sorted text: 'hi' < 'lo' < 'mid'; give their \
order with --categories, e.g. --categories hi,lo,mid"
    """
    labels = [repr(c) for c in categories[:shown]]
    more = f" < ... ({len(categories)} labels)" if len(categories) > shown else ""
    return (f"--level ordinal ordered the labels as sorted text: {' < '.join(labels)}{more}; "
            "give their order with --categories, e.g. --categories "
            f"{','.join(str(c) for c in categories[:3])}{',...' * (len(categories) > 3)}")


def _check_plot_path(path: str | None) -> None:
    """``--plot PATH``: an image format matplotlib writes, said before any work is done."""
    if path is None:
        return
    from matplotlib.figure import Figure

    formats = Figure().canvas.get_supported_filetypes()
    suffix = os.path.splitext(path)[1].lstrip(".").lower()
    if suffix not in formats:
        raise CliError(f"--plot {path}: the file name must end with an image format, one of "
                       f"{', '.join('.' + name for name in sorted(formats))} (e.g. out.png)")


def _save_plot(args: argparse.Namespace, draw: Any) -> None:
    """Draw the figure of ``--plot`` (``draw(kappalab.plots)`` gives it) and save it there."""
    if args.plot is None:
        return
    from . import plots  # matplotlib only when a figure is asked for

    try:
        draw(plots).savefig(args.plot)
    except OSError as exc:
        raise CliError(f"--plot {args.plot}: cannot write the figure "
                       f"({exc.strerror or exc})") from None
    if not getattr(args, "quiet", False):
        print(f"kappalab: wrote the figure to {args.plot}", file=sys.stderr)


def _level_uses_values(level: str, categories: Sequence[Any] | pd.Index) -> bool:
    """Whether ``--level`` computes with the values as numbers: resolving it asks for them
    (the distances' one table says which levels do; nominal and ordinal never ask)."""
    asked = []

    def values(purpose: str) -> np.ndarray:
        asked.append(purpose)
        return np.arange(1.0, len(categories) + 1)

    try:
        category_distance(level, categories, kind="level", values=values,
                          marginals=lambda: np.ones(len(categories)))
    except KappalabError:  # the report says what is wrong with the level
        return False
    return bool(asked)


INT64_MAX = np.iinfo(np.int64).max


def _is_number(value: Any) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def _not_numbers(level: str, categories: Sequence[Any] | pd.Index, name: str) -> str:
    """Why ``--level`` cannot compute on these values, and what to do."""
    huge = [c for c in categories if isinstance(c, int) and not isinstance(c, bool)
            and not -INT64_MAX - 1 <= c <= INT64_MAX]
    if huge and all(_is_number(c) for c in categories):
        return (f"{name} holds whole numbers beyond the 64-bit integer range (e.g. {huge[0]}), "
                f"which --level {level} cannot compute with; subtract a common offset or "
                f"rescale the values into ±{INT64_MAX}, or choose --level nominal or ordinal")
    others = [c for c in categories if not _is_number(c)]
    wordy = [c for c in others if not _looks_numeric(c)] or others
    shown = ", ".join(repr(c) for c in wordy[:3]) + (", ..." if len(wordy) > 3 else "")
    return (f"--level {level} needs numbers, but the values in {name} include {shown}, "
            "which are not numbers; choose --level nominal (or ordinal, for ordered labels), "
            "or code the values as numbers")


def _looks_numeric(value: Any) -> bool:
    try:
        float(str(value))
    except ValueError:
        return False
    return True


# the tokens that pandas reads as missing by default: here they are labels, so a fault they
# may cause (a numeric level on values that hold "NA") says how to make them missing
MISSING_LOOKING = frozenset({"#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan",
                             "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA", "NULL", "NaN", "None",
                             "n/a", "nan", "null"})


def _missing_looking(categories: Sequence[Any] | pd.Index) -> list[str]:
    """The labels that pandas would read as missing (:data:`MISSING_LOOKING`)."""
    return [c for c in categories if isinstance(c, str) and c.strip() in MISSING_LOOKING]


def _with_missing_hint(message: str, categories: Sequence[Any] | pd.Index) -> str:
    tokens = _missing_looking(categories)
    if not tokens:
        return message
    return (f"{message} (the values include {', '.join(tokens)}: if that means missing, "
            f"pass --na-values {','.join(tokens)})")


def _print_notes(caught: list[warnings.WarningMessage], why: str,
                 duplicates: str = "") -> None:
    """Each distinct warning as one line on stderr; dropped rows say why they were dropped
    (``why``, or for repeated submissions the option ``duplicates``)."""
    seen = set()
    for w in caught:
        line = f"kappalab: note: {w.message}"
        if issubclass(w.category, DroppedAnnotationsWarning):
            repeats = "repeated submission" in str(w.message)  # from_long's duplicates=
            line += f" ({duplicates})" if repeats and duplicates else f" ({why})"
        if line not in seen:
            seen.add(line)
            print(line, file=sys.stderr)


def _demo_command(args: argparse.Namespace) -> str:
    from . import datasets

    blocks = []
    for name, level in track((("worked_example", "nominal"), ("krippendorff_2011", "interval")),
                             "kappalab demo: datasets", quiet=args.quiet):
        ann = datasets.load(name)
        blocks.append(f"== {name} (level={level}): {ann}\n   source: "
                      f"{datasets.provenance(name)[:160]}...")
        blocks.append(_render(agreement_report(ann, level=level, **_report_options(args)),
                              args.format))
    return "\n\n".join(blocks)


def _plan_command(args: argparse.Namespace) -> str:
    _check_plot_path(args.plot)
    if (args.half_width is None) == (args.power is None):
        raise CliError("give one goal: --half-width, or --power with --threshold")
    if (args.power is None) != (args.threshold is None):
        raise CliError("--power and --threshold go together: the power to show the "
                       "coefficient above the threshold")
    prevalence: float | list[float] | None = None
    if args.prevalence is not None:
        try:
            probabilities = [float(token) for token in _tokens(args.prevalence)]
        except ValueError:
            raise CliError(f"--prevalence: give probabilities separated by commas, e.g. "
                           f"0.2,0.3,0.5; got {args.prevalence!r}") from None
        prevalence = probabilities[0] if len(probabilities) == 1 else probabilities
    try:
        counts: list[int | None] = [int(token) for token in _tokens(args.annotations)]
    except ValueError:
        raise CliError(f"--annotations: give whole numbers separated by commas, e.g. 2,3,5; "
                       f"got {args.annotations!r}") from None
    plans = [plan(args.coefficient, level=args.level, n_categories=args.categories,
                  prevalence=prevalence, annotations_per_item=m, reliability=args.reliability,
                  half_width=args.half_width, confidence=args.confidence, power=args.power,
                  threshold=args.threshold, significance=args.significance)
             for m in (counts or [None])]
    _save_plot(args, lambda plots: plots.sample_size(plans))
    if args.format == "table" and len(plans) == 1:
        return str(plans[0])
    frame = pd.concat([p.to_frame() for p in plans], ignore_index=True)
    if args.format == "json":
        return json.dumps(json.loads(frame.to_json(orient="records", double_precision=15)),
                          indent=2)
    if args.format == "csv":
        return frame.to_csv(index=False).rstrip("\n")
    shown = ["annotations_per_item", "item_sd", "n_items", "n_annotations", "half_width"]
    shown += [] if plans[0].power is None else ["power"]
    with pd.option_context("display.width", 200, "display.float_format", "{:.4f}".format):
        return f"Sample size for {plans[0].design()}\n" + frame[shown].to_string(index=False)


def _ci_description(args: argparse.Namespace) -> str:
    if args.ci == "none":
        return "no intervals"
    if args.ci in ("analytic", "asymptotic", "gwet", "jackknife"):
        return f"{args.ci} intervals"
    return f"{args.ci} intervals, {args.n_resamples} resamples"


def _tokens(text: str | None) -> list[str]:
    """The comma-separated tokens of an option (none for an empty or absent option)."""
    return [] if not text else text.split(",")


def _ci_option(text: str) -> str:
    """``--ci``: ``none`` or a name of ``ci=``, with the estimators' own message for any
    other name (:class:`kappalab.uncertainty.IntervalOptions`). A name only some
    coefficients supply (``krippendorff``, ``F``) gives their rows the interval and the
    other rows a note, as ``agreement_report(ci=...)`` does."""
    if text == "none":
        return text
    try:
        IntervalOptions.of(text)
    except KappalabError as exc:
        raise argparse.ArgumentTypeError(f"{exc}; or none (no intervals)") from None
    return text


def _confidence(text: str) -> float:
    try:
        level = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0 < level < 1:
        raise argparse.ArgumentTypeError(f"must be strictly between 0 and 1, got {text}")
    return level


def _whole(minimum: int):
    def parse(text: str) -> int:
        try:
            number = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
        if number < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {number}")
        return number
    return parse


EPILOG = ("Exit codes: 0 success; 2 error (one line on stderr starting 'kappalab: error:'); "
          "130 interrupted (Ctrl-C); 141 the output's reader closed the pipe (| head), "
          "quietly.")


class _HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Defaults in the help, except empty ones (no separator given, a flag that is off)."""

    def _get_help_string(self, action: argparse.Action) -> str | None:
        if action.default is None or action.default is False or action.default == "":
            return action.help
        return super()._get_help_string(action)


def build_parser() -> argparse.ArgumentParser:
    """The parser of the console command ``kappalab`` (subcommands ``report``, ``demo`` and
    ``plan``).

    Returns
    -------
    argparse.ArgumentParser
    """
    parser = argparse.ArgumentParser(
        prog="kappalab", formatter_class=_HelpFormatter,
        description="Agreement and reliability of annotations.",
        epilog=EPILOG)
    parser.add_argument("--version", action="version",
                        version=f"%(prog)s {metadata.version('kappalab')}")
    sub = parser.add_subparsers(dest="command", required=True)
    report = sub.add_parser(
        "report", formatter_class=_HelpFormatter,
        help="every applicable coefficient for a file of annotations",
        description="Every applicable coefficient for a file of annotations.", epilog=EPILOG)
    report.add_argument("file", help="one row per annotation (or items × raters with "
                        "--wide): a CSV, TSV or other delimited text, '-' for stdin, an "
                        ".xlsx or a .parquet file")
    report.add_argument("--wide", action="store_true",
                        help="items × raters: item ids in the first column, one column per "
                             "rater, an empty cell is missing")
    report.add_argument("--item", default="item", help="item column")
    report.add_argument("--rater", default="rater",
                        help="rater column ('none' if raters are unknown)")
    report.add_argument("--value", default="value", help="value column")
    report.add_argument("--sep", default=None,
                        help="field separator: a character, or tab, comma, semicolon; "
                             "sniffed among comma, tab and semicolon when not given")
    report.add_argument("--encoding", default="utf-8-sig",
                        help="text encoding (utf-8-sig: UTF-8 with or without a byte order "
                             "mark)")
    report.add_argument("--na-values", default="", metavar="A,B",
                        help="cell values that also mean missing (an empty cell always "
                             "does; None, NA, N/A, null are labels unless listed here)")
    report.add_argument("--level", default="nominal", choices=LEVELS,
                        help="level of measurement (the distance between categories)")
    report.add_argument("--categories", default=None, metavar="A,B,C",
                        help="the categories in their order (ordinal levels); numbers when "
                             "the values are numbers; default: the sorted values")
    report.add_argument("--duplicates", default="raise", choices=DUPLICATE_POLICIES,
                        help="a rater's repeated annotation of an item (long files): an "
                             "error (raise), keep the first or the last, or count each "
                             "repeat as a separate rater")
    report.add_argument("--raters", action="store_true",
                        help="also each rater's agreement with the rest of the panel (κx, "
                             "the coefficient without the rater: kappalab.rater_report), "
                             "after the report; with --plot, its forest plot")
    report.add_argument("--plot", default=None, metavar="FILE.png",
                        help="also draw the coefficients with their intervals into this "
                             "image (.png, .pdf, .svg, ...); with --raters, each rater's "
                             "κx and influence")
    report.set_defaults(run=_report_command)
    demo = sub.add_parser("demo", formatter_class=_HelpFormatter,
                          help="the report on bundled datasets",
                          description="The report on two bundled datasets.", epilog=EPILOG)
    demo.set_defaults(run=_demo_command)
    planning = sub.add_parser(
        "plan", formatter_class=_HelpFormatter,
        help="the number of items a study needs (kappalab.plan)",
        description="The number of items an annotation study needs for a target interval "
                    "half-width, or for a power to show the coefficient above a threshold, "
                    "from the analytic standard error at the population values.",
        epilog=EPILOG)
    planning.add_argument("--coefficient", default="alpha", choices=_PLANNED,
                          help="Krippendorff's alpha, Fleiss' or Cohen's kappa (a short name "
                               "or the function's name)")
    planning.add_argument("--level", default="nominal", choices=["nominal", "interval"],
                          help="categories, or interval values (alpha only)")
    planning.add_argument("--categories", default=None, type=_whole(2),
                          help="the number of categories (default: as many as --prevalence "
                               "lists, or 3)")
    planning.add_argument("--prevalence", default=None, metavar="P1,P2,...",
                          help="the category probabilities, or one number: the last "
                               "category's share (default: uniform)")
    planning.add_argument("--annotations", default=None, metavar="M[,M...]",
                          help="annotations per item, or several to compare (default: 2 for "
                               "cohen, else 3)")
    planning.add_argument("--reliability", required=True, type=float,
                          help="the expected value of the coefficient, in [0, 1)")
    planning.add_argument("--half-width", default=None, type=float,
                          help="goal: the half-width of the confidence interval")
    planning.add_argument("--confidence", default=0.95, type=_confidence,
                          help="confidence level of the interval")
    planning.add_argument("--power", default=None, type=float,
                          help="goal: the power to show the coefficient above --threshold")
    planning.add_argument("--threshold", default=None, type=float,
                          help="the value the coefficient is to be shown above (with --power)")
    planning.add_argument("--significance", default=0.05, type=float,
                          help="level of the one-sided test (with --power)")
    planning.add_argument("--format", default="table", choices=FORMATS, help="output format")
    planning.add_argument("--plot", default=None, metavar="FILE.png",
                          help="also draw the items each design needs into this image")
    planning.set_defaults(run=_plan_command)
    for command in (report, demo):
        command.add_argument("--format", default="table", choices=FORMATS,
                             help="output format")
        command.add_argument("--ci", default="analytic", type=_ci_option,
                             metavar="{" + ",".join(["none", *CI_METHODS, *CORE_METHODS])
                             + "}",
                             help="method of the standard errors and intervals: none, or a "
                                  f"name of ci= ({ci_choices()}; a row whose coefficient "
                                  "lacks the method has its value and a note)")
        command.add_argument("--confidence", default=0.95, type=_confidence,
                             help="confidence level of the intervals")
        command.add_argument("--n-resamples", default=2000, type=_whole(1),
                             help="replicates of the bootstrap methods")
        command.add_argument("--benchmark", default=None, choices=list(SCALES),
                             help="interpretation scale: adds the band of each chance-corrected "
                                  "coefficient (none for percent agreement and the ICC) "
                                  "and, with --ci, the band reached with --confidence "
                                  "certainty")
        command.add_argument("--seed", default=0, type=_whole(0),
                             help="seed of the resampling methods (same seed, same output)")
        command.add_argument("--quiet", "-q", action="store_true",
                             help="no progress on stderr (progress appears only on a "
                                  "terminal, for steps longer than 2 s: the elapsed time of "
                                  "reading and of computing the report, the datasets done "
                                  "by demo); notes and errors remain")
    return parser


EXIT_ERROR = 2
#: the status of a process ended by SIGPIPE as a shell reports it (128 + 13), after a closed
#: pipe downstream (``kappalab report big.csv | head``)
EXIT_CLOSED_PIPE = 128 + 13


class _ClosedPipe(Exception):
    """stdout's reader has gone: the command ends quietly, as other Unix tools do."""


def _fail(message: str, code: int = EXIT_ERROR) -> int:
    try:
        print(f"kappalab: error: {message}", file=sys.stderr)
    except (OSError, ValueError):  # stderr closed too: nothing else to do
        pass
    return code


def _silence_stdout() -> None:
    """After a failed write (a broken pipe, a full disk), point stdout at devnull so that the
    interpreter's final flush does not fail again (the recipe of the Python documentation,
    "Note on SIGPIPE")."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):  # no real descriptor (tests)
        pass


def _output_name() -> str:
    """stdout, with the file it goes to when the system says (Linux: ``/proc/self/fd``)."""
    try:
        target = os.readlink(f"/proc/self/fd/{sys.stdout.fileno()}")
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        return "stdout"
    return f"stdout ({target})" if target.startswith("/") else "stdout"


def _write(output: str) -> None:
    """Print the output; a write that fails is a fault of the environment, in one line."""
    try:
        print(output)
        sys.stdout.flush()
    except BrokenPipeError:  # the reader is gone (`| head`): normal, nothing to say
        _silence_stdout()
        raise _ClosedPipe from None
    except UnicodeEncodeError as exc:
        raise CliError(f"cannot write the output to {_output_name()}: its encoding "
                       f"({exc.encoding}) cannot show {exc.object[exc.start:exc.end]!r}; set "
                       "PYTHONIOENCODING=utf-8 (or PYTHONUTF8=1)") from None
    except OSError as exc:
        where = _output_name()
        _silence_stdout()
        if exc.errno in (errno.ENOSPC, errno.EDQUOT):
            raise CliError(f"cannot write the output to {where}: no space left on the "
                           "device; free some space on its disk, or write the output "
                           "elsewhere") from None
        raise CliError(f"cannot write the output to {where}: "
                       f"{exc.strerror or _first_line(exc, 'write failed')}") from None


class _Interrupts:
    """Ctrl-C while the command runs, noted as well as raised.

    A reader may turn the ``KeyboardInterrupt`` raised inside its callbacks into an error of
    its own (pandas' C parser reports "Calling read(nbytes) on source failed") or swallow
    it; whatever follows an interrupt is therefore the interrupt. Outside the main thread
    (where no signal handler can be set) only the ``KeyboardInterrupt`` itself is seen.
    """

    def __init__(self) -> None:
        self.seen = False
        self._previous: Any = None
        self._installed = False

    def _handle(self, signum: int, frame: Any) -> None:
        self.seen = True
        raise KeyboardInterrupt

    def __enter__(self) -> _Interrupts:
        if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:  # e.g. a background job
            return self
        try:
            self._previous = signal.signal(signal.SIGINT, self._handle)
            self._installed = True
        except ValueError:  # not the main thread
            pass
        return self

    def __exit__(self, *exc_info: Any) -> None:
        if self._installed:
            signal.signal(signal.SIGINT, self._previous if self._previous is not None
                          else signal.default_int_handler)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the console command; return its exit code.

    Every fault ends as one line on stderr that starts with ``kappalab: error:``, never a
    traceback: exit code 2 for a fault of the input or of the options (a missing file, a
    directory, an unreadable table, bad annotations), for an output that cannot be written
    (a full disk), for a lack of memory, and for an unforeseen exception (a bug: the
    environment variable ``KAPPALAB_TRACEBACK=1`` shows it); exit code 130 after Ctrl-C,
    whenever it comes (while the command starts, reads or computes). A closed pipe on stdout
    (``kappalab report big.csv | head -3``) is normal: no message, exit code 141, as for a
    Unix tool ended by SIGPIPE. Option errors are argparse's usage message, exit code 2.

    Parameters
    ----------
    argv : sequence of str, optional
        The arguments (default: ``sys.argv[1:]``).

    Returns
    -------
    int
        0 on success, 2 after an error, 130 when interrupted, 141 after a closed pipe.
    """
    with _Interrupts() as interrupts:
        try:
            args = build_parser().parse_args(argv)
            output = args.run(args)
            if interrupts.seen:  # swallowed on the way: the user still asked to stop
                raise KeyboardInterrupt
            _write(output)
        except SystemExit:  # argparse: --help, --version, a usage error
            raise
        except BaseException as exc:
            if interrupts.seen or isinstance(exc, KeyboardInterrupt):
                return _fail(INTERRUPTED, EXIT_INTERRUPTED)
            if isinstance(exc, _ClosedPipe):
                return EXIT_CLOSED_PIPE
            if isinstance(exc, (ReadError, KappalabError)):
                return _fail(str(exc))
            if isinstance(exc, MemoryError):
                return _fail("out of memory: the data are too large for this machine")
            if not isinstance(exc, Exception) or os.environ.get("KAPPALAB_TRACEBACK"):
                raise
            # a bug: still one line, unless asked for the traceback
            return _fail(f"unexpected {type(exc).__name__}: {_first_line(exc, 'no message')} "
                         "(a bug? please report it; KAPPALAB_TRACEBACK=1 shows the traceback)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
