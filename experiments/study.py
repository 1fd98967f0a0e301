"""Shared plumbing of the experiment scripts: arguments, output paths, where studies run.

Every script takes ``--quick`` (a small grid, used by the tests), ``--out DIR`` (default
``results/experiments``), ``--seed``, and the options of :func:`kappalab.simulate.run_study`,
through which every script runs its replications:

* ``--scheduler``: ``tcp://host:8786`` runs them on that Dask cluster, ``serial`` in the
  script's own process; by default on a local Dask cluster of ``--workers`` processes
  (default: every core);
* ``--checkpoint FILE``: keep every finished replication in FILE; the same command again
  resumes an interrupted run from there.

It writes ``<name>.csv`` and ``<name>.png`` to ``--out`` and prints where.
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path
from typing import Any, Callable, Iterable, Iterator

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot  # noqa: E402  (after the backend)

from kappalab.plots import STYLE  # noqa: E402

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "results" / "experiments"


def parse_args(description: str, argv: list[str] | None = None,
               extra: Iterable[tuple[str, dict]] = ()) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--quick", action="store_true",
                        help="a small grid that runs in seconds (used by the tests)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output folder")
    parser.add_argument("--seed", type=int, default=20261129)
    parser.add_argument("--scheduler", default=None, metavar="ADDRESS",
                        help="a Dask scheduler's address (tcp://host:8786) to run the "
                             "replications on, or 'serial' for this process; default: a local "
                             "Dask cluster of --workers processes")
    parser.add_argument("--workers", type=int, default=None,
                        help="processes of the local cluster (default: every core)")
    parser.add_argument("--checkpoint", type=Path, default=None, metavar="FILE",
                        help="keep every finished replication in FILE; rerun the same command "
                             "to resume an interrupted run")
    for flag, options in extra:
        parser.add_argument(flag, **options)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    matplotlib.pyplot.style.use(STYLE)  # kappalab's house style (kappalab.plots.STYLE)
    return args


@contextlib.contextmanager
def cluster(args: argparse.Namespace) -> Iterator[Any]:
    """The ``client`` for :func:`kappalab.simulate.run_study` that the arguments ask for: one
    local cluster (or connection) for all the studies of a script, closed at the end."""
    if args.scheduler == "serial":
        yield "serial"
        return
    import distributed

    if args.scheduler:
        with distributed.Client(args.scheduler) as client:
            yield client
        return
    import os

    from kappalab.simulate.study import local_cluster

    workers = args.workers or os.cpu_count() or 1
    with local_cluster(workers) as local, distributed.Client(local) as client:
        yield client


def run(args: argparse.Namespace, client: Any, cells: list, replicate: Callable,
        n_replications: int, description: str, **options: Any):
    """:func:`kappalab.simulate.run_study` with the script's seed and checkpoint."""
    from kappalab.simulate import run_study

    return run_study(cells, replicate, n_replications, client=client, seed=args.seed,
                     checkpoint=args.checkpoint, description=description, **options)


def finish_panels(fig: Any, axes: Any, path: Path, title: str, *, n_panels: int,
                  ylabel: str = "coverage (%)", xlabel: str = "items",
                  top: float = 0.97) -> None:
    """Close a grid of panels as every coverage figure does: the unused panels hidden, the
    outer axes labelled, one legend below the panels (where it covers no data), the title,
    then the figure written to ``path`` and closed."""
    for ax in axes.flat[n_panels:]:
        ax.set_visible(False)
    for ax in axes[:, 0]:
        ax.set_ylabel(ylabel)
    for ax in axes[-1, :]:
        ax.set_xlabel(xlabel)
    handles, labels = axes[0, 0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8,
               frameon=False)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout(rect=(0, 0.05, 1, top))
    fig.savefig(path, dpi=120)
    matplotlib.pyplot.close(fig)
