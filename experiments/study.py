"""Shared plumbing of the experiment scripts: arguments, output paths, progress, figures.

Every script takes ``--quick`` (a small grid, used by the tests), ``--out DIR`` (default
``results/experiments``) and ``--seed``; writes ``<name>.csv`` and ``<name>.png`` there, and
prints where.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Iterable, Iterator, TypeVar

import matplotlib

matplotlib.use("Agg")  # files only, no display

T = TypeVar("T")

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "results" / "experiments"


def parse_args(description: str, argv: list[str] | None = None,
               extra: Iterable[tuple[str, dict]] = ()) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true",
                        help="a small grid that runs in seconds (used by the tests)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--seed", type=int, default=20261129)
    for flag, options in extra:
        parser.add_argument(flag, **options)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    return args


def progress(iterable: Iterable[T], total: int, description: str) -> Iterator[T]:
    """A tqdm progress bar on stderr when tqdm is installed, else the plain iterable."""
    try:
        from tqdm import tqdm
    except ImportError:  # pragma: no cover - tqdm comes with the experiments extra
        return iter(iterable)
    return iter(tqdm(iterable, total=total, desc=description, file=sys.stderr,
                     disable=not sys.stderr.isatty() and total < 50))
