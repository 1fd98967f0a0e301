"""Command line: ``kappalab report FILE.csv ...`` and ``kappalab demo``."""

from __future__ import annotations

import argparse
import json
import sys
import warnings
from typing import Sequence

import pandas as pd

from .annotations import Annotations
from .errors import AnnotationError, DroppedAnnotationsWarning
from .report import agreement_report
from .uncertainty import CI_METHODS

FORMATS = ("table", "json", "csv")


class _CliError(Exception):
    """A user-facing fault: one line on stderr, exit code 2."""


def _render(report: pd.DataFrame, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(json.loads(report.to_json(orient="records", double_precision=15)), indent=2)
    if fmt == "csv":
        return report.to_csv(index=False).rstrip("\n")
    shown = report.drop(columns=["note"]) if not report["note"].astype(bool).any() else report
    with pd.option_context("display.width", 200, "display.max_columns", 20,
                           "display.float_format", "{:.4f}".format):
        return shown.to_string(index=False)


def _read_csv(path: str, na_values: Sequence[str] = ()) -> pd.DataFrame:
    # no comment character (labels such as C# are data) and no default NA tokens (None, NA,
    # N/A, null are labels): only an empty cell, or a token of --na-values, is missing
    try:
        return pd.read_csv(path, keep_default_na=False, na_values=["", *na_values],
                           low_memory=False)
    except FileNotFoundError:
        raise _CliError(f"no such file: {path}")
    except (pd.errors.ParserError, pd.errors.EmptyDataError, UnicodeDecodeError) as exc:
        first_line = str(exc).strip().splitlines()[0] if str(exc).strip() else "empty file"
        raise _CliError(f"cannot read {path} as CSV: {first_line}")


def _report_command(args: argparse.Namespace) -> str:
    frame = _read_csv(args.file, _tokens(args.na_values))
    rater = None if args.rater in ("", "none", "None") else args.rater
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", DroppedAnnotationsWarning)
        ann = Annotations.from_long(frame, item=args.item, rater=rater, value=args.value)
    why = "an empty cell"
    if args.na_values:
        why += f" or one of --na-values {','.join(_tokens(args.na_values))}"
    for w in caught:
        print(f"kappalab: note: {w.message} ({why})", file=sys.stderr)
    return _render(agreement_report(ann, level=args.level, ci=_ci(args)), args.format)


def _demo_command(args: argparse.Namespace) -> str:
    from . import datasets

    blocks = []
    for name, level in (("worked_example", "nominal"), ("krippendorff_2011", "interval")):
        ann = datasets.load(name)
        blocks.append(f"== {name} (level={level}): {ann}\n   source: "
                      f"{datasets.provenance(name)[:160]}...")
        blocks.append(_render(agreement_report(ann, level=level, ci=_ci(args)), args.format))
    return "\n\n".join(blocks)


def _tokens(text: str | None) -> list[str]:
    """The comma-separated tokens of an option (none for an empty or absent option)."""
    return [] if not text else text.split(",")


def _ci(args: argparse.Namespace) -> str | None:
    return None if args.ci == "none" else args.ci


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="kappalab",
                                     description="Agreement and reliability of annotations.")
    sub = parser.add_subparsers(dest="command", required=True)
    report = sub.add_parser("report", help="every applicable coefficient for a long CSV")
    report.add_argument("file", help="CSV with one row per annotation")
    report.add_argument("--item", default="item", help="item column (default: item)")
    report.add_argument("--rater", default="rater",
                        help="rater column (default: rater; 'none' if raters are unknown)")
    report.add_argument("--value", default="value", help="value column (default: value)")
    report.add_argument("--level", default="nominal",
                        choices=["nominal", "ordinal", "interval", "ratio", "circular", "bipolar"])
    report.add_argument("--format", default="table", choices=FORMATS)
    report.add_argument("--na-values", default="", metavar="A,B",
                        help="cell values that also mean missing (an empty cell always "
                             "does; None, NA, N/A, null are labels unless listed here)")
    report.set_defaults(run=_report_command)
    demo = sub.add_parser("demo", help="the report on bundled datasets")
    demo.add_argument("--format", default="table", choices=FORMATS)
    for command in (report, demo):
        command.add_argument("--ci", default="analytic", choices=["none", *CI_METHODS],
                             help="standard errors and 95%% intervals (default: analytic; "
                                  "resampling methods use 2000 replicates, seed 0)")
    demo.set_defaults(run=_demo_command)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        output = args.run(args)
    except (_CliError, AnnotationError) as exc:
        print(f"kappalab: error: {exc}", file=sys.stderr)
        return 2
    print(output)
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
