r"""Simulation studies: a design grid × replications, run as Dask tasks.

A simulation study evaluates an estimator on many simulated datasets for every cell of a
design grid (numbers of items, reliabilities, methods, ...). :func:`run_study` runs the
replications as tasks on a Dask cluster (a local one using every core by default, or an
existing one by address) and returns one table whose content does not depend on the number of
workers or the order in which they finish: replication r of cell c draws its random numbers
from ``numpy.random.SeedSequence(seed, spawn_key=(c, r))``, an independent stream (O'Neill
2015, the PCG paper; numpy's ``SeedSequence`` documentation).

A checkpoint file keeps every finished replication, so that an interrupted study resumes where
it stopped.

Examples
--------
>>> from kappalab import simulate
>>> import kappalab as kl
>>> def replicate(cell, rng):
...     ann, truth = simulate.annotations(cell["n_items"], reliability=0.6, seed=rng)
...     return {"alpha": kl.krippendorff_alpha(ann).value, "truth": truth.alpha}
>>> table = simulate.run_study([{"n_items": 50}, {"n_items": 200}], replicate, 3,
...                            client="serial", seed=1)
>>> table.columns.tolist()
['n_items', 'replication', 'alpha', 'truth']
>>> table.groupby("n_items")["replication"].count().tolist()
[3, 3]
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import pickle
import sys
import warnings
from pathlib import Path
from typing import Any, Callable, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import InvalidParameterError, ReplicationError
from ..progress import track

__all__ = ["run_study", "replication_rng"]

REPLICATION = "replication"
_FORMAT = "kappalab-study-checkpoint/1"


def replication_rng(seed: int, cell: int, replication: int) -> np.random.Generator:
    """The random generator of one replication of a study: independent of every other one.

    Parameters
    ----------
    seed : int
        The study's seed (a non-negative integer).
    cell, replication : int
        The cell's position in the grid and the replication's number (from 0).

    Returns
    -------
    numpy.random.Generator
        ``default_rng(SeedSequence(seed, spawn_key=(cell, replication)))``: the stream that
        ``SeedSequence(seed).spawn(...)`` would give the replication's child, so streams of
        different (cell, replication) pairs are independent.

    Examples
    --------
    >>> a = replication_rng(7, 0, 1).random()
    >>> a == replication_rng(7, 0, 1).random(), a == replication_rng(7, 1, 0).random()
    (True, False)
    """
    return np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(cell, replication)))


def run_study(cells: Sequence[Any], replicate: Callable[[dict, np.random.Generator], Any],
              n_replications: int, *, client: Any = None, n_workers: int | None = None,
              seed: int = 0, checkpoint: str | os.PathLike | None = None,
              progress: bool | None = None, batch_size: int = 1,
              description: str = "replications") -> pd.DataFrame:
    """Run ``replicate`` ``n_replications`` times on every cell of a design grid.

    Replication r of cell c (both counted from 0) calls ``replicate(cells[c], rng)`` with
    ``rng = default_rng(SeedSequence(seed, spawn_key=(c, r)))`` (:func:`replication_rng`), so
    the table is identical, bit for bit, whatever runs it: this process, one worker or many,
    finishing in any order, in one run or resumed from a checkpoint.

    Parameters
    ----------
    cells : sequence of dict
        The design grid: one dict of parameters per cell, e.g.
        ``[{"n_items": 50, "method": "analytic"}, ...]`` (any other value becomes
        ``{"cell": value}``). Its keys become the table's first columns.
    replicate : callable
        ``replicate(cell, rng)`` simulates and analyses one dataset and returns its results:
        a dict (one row), a list of dicts or a :class:`pandas.DataFrame` (several rows).
        It and what it returns must pickle (a module-level function, or a
        :func:`functools.partial` of one), because they travel between processes.
    n_replications : int
        Replications per cell (≥ 1).
    client : None, "serial", str or distributed.Client
        Where the tasks run. ``None`` (default): a local Dask cluster of ``n_workers``
        single-threaded worker processes, started and closed by this call; ``"serial"``: in
        this process, one replication after the other, without Dask; an address such as
        ``"tcp://host:8786"``: the Dask scheduler there (its workers must be able to import
        ``replicate``'s module); a :class:`distributed.Client`: that client's cluster.
    n_workers : int, optional
        Workers of the local cluster (default: every core, ``os.cpu_count()``).
    seed : int
        The study's seed, a non-negative integer.
    checkpoint : path, optional
        A file that receives every finished replication as it arrives (pickled). Running the
        same study with the same file again takes the replications it holds (same replicate
        function by name and arguments, cell, seed and position) and runs only the rest, so an
        interrupted study resumes. A replication cut short by the interruption is run again.
        Delete the file when ``replicate``'s code changes; read only files you wrote
        (unpickling runs code).
    progress : bool, optional
        A progress bar on stderr: ``None`` (default) on a terminal only, ``True`` always,
        ``False`` never.
    batch_size : int
        Replications per Dask task (default 1). Raise it when one replication takes less than
        a few milliseconds, so that the scheduler's overhead per task does not dominate; the
        results do not depend on it.
    description : str
        The progress bar's label.

    Returns
    -------
    pandas.DataFrame
        One row per returned row: the cell's keys, ``replication``, then the returned keys,
        in the order of the cells, the replications and the rows.

    Raises
    ------
    kappalab.errors.InvalidParameterError
        For an empty grid, a count or seed that is not a non-negative whole number, a result
        whose keys collide with the cell's or ``replication``.
    kappalab.errors.ReplicationError
        When ``replicate`` raises; the message names the cell and replication, and
        :func:`replication_rng` reproduces its generator. Finished replications stay in the
        checkpoint.
    ImportError
        When a Dask client is asked for and ``distributed`` is not installed
        (``pip install kappalab[dask]``; ``client="serial"`` needs nothing).

    Notes
    -----
    The local cluster's workers are new processes that import the calling script: call
    run_study from a script under ``if __name__ == "__main__":``, as for
    :mod:`multiprocessing`.

    With ``SeedSequence`` spawn keys the streams of different replications are independent
    and none depends on how many there are, so adding replications or cells at the end of the
    grid leaves the earlier ones unchanged (a cell's streams follow its position in the grid).

    References
    ----------
    O'Neill, M. E. (2015). PCG: A family of simple fast space-efficient statistically good
    algorithms for random number generation. Harvey Mudd College, HMC-CS-2014-0905.

    Examples
    --------
    >>> import functools
    >>> import kappalab as kl
    >>> from kappalab import simulate
    >>> def replicate(cell, rng):
    ...     ann, truth = simulate.annotations(cell["n_items"], reliability=cell["kappa"],
    ...                                       seed=rng)
    ...     return {"fleiss": kl.fleiss_kappa(ann).value - truth.fleiss_kappa}
    >>> cells = [{"n_items": n, "kappa": k} for n in (30, 300) for k in (0.2, 0.8)]
    >>> table = simulate.run_study(cells, replicate, 5, client="serial", seed=3)
    >>> table.shape
    (20, 4)
    >>> bias = table.groupby(["n_items", "kappa"])["fleiss"].mean()
    >>> bool(bias.abs().max() < 0.1)
    True
    """
    grid = [dict(cell) if isinstance(cell, Mapping) else {"cell": cell} for cell in cells]
    if not grid:
        raise InvalidParameterError("run_study: cells is empty; give at least one cell")
    n = _whole(n_replications, "n_replications", minimum=1)
    seed = _whole(seed, "seed", minimum=0)
    batch_size = _whole(batch_size, "batch_size", minimum=1)
    if not callable(replicate):
        raise InvalidParameterError(f"run_study: replicate must be callable, got "
                                    f"{type(replicate).__name__}")
    name = _name(replicate)
    keys = {(c, r): _key(name, grid[c], seed, c, r) for c in range(len(grid)) for r in range(n)}

    store = _Checkpoint(Path(checkpoint)) if checkpoint is not None else None
    saved = store.load() if store is not None else {}
    results = {pos: saved[key] for pos, key in keys.items() if key in saved}
    todo = [pos for pos in keys if pos not in results]
    if results:
        print(f"{description}: {len(results)} of {len(keys)} replications taken from "
              f"{checkpoint}", file=sys.stderr)
    if todo:
        batches = [[(c, r, grid[c]) for c, r in todo[i:i + batch_size]]
                   for i in range(0, len(todo), batch_size)]
        run = _serial if isinstance(client, str) and client == "serial" else _on_dask
        finished = run(batches, replicate, seed, client, n_workers)
        for c, r, rows in track(_each(finished), description, total=len(todo),
                                quiet=progress is False, force=progress is True):
            results[(c, r)] = rows
            if store is not None:
                store.append(keys[(c, r)], rows)
    return _table(grid, n, results)


# ------------------------------------------------------------------------------ the tasks
def run_batch(batch: list[tuple[int, int, dict]], replicate: Callable,
              seed: int) -> list[tuple[int, int, list[dict]]]:
    """Run one task's replications: [(cell, replication, rows)], each row a plain dict."""
    done = []
    for c, r, cell in batch:
        try:
            out = replicate(dict(cell), replication_rng(seed, c, r))
        except Exception as exc:
            raise ReplicationError(
                f"replicate failed on cell {c} {cell!r}, replication {r} "
                f"(its generator: kappalab.simulate.replication_rng({seed}, {c}, {r})): "
                f"{type(exc).__name__}: {exc}") from exc
        done.append((c, r, _rows(out, cell, c, r)))
    return done


def _rows(out: Any, cell: dict, c: int, r: int) -> list[dict]:
    if isinstance(out, pd.DataFrame):
        rows = out.to_dict("records")
    elif isinstance(out, Mapping):
        rows = [dict(out)]
    elif isinstance(out, (list, tuple)) and all(isinstance(row, Mapping) for row in out):
        rows = [dict(row) for row in out]
    else:
        raise InvalidParameterError(
            f"replicate returned {type(out).__name__} on cell {c}, replication {r}; it must "
            "return a dict, a list of dicts or a pandas DataFrame")
    for row in rows:
        clash = (set(cell) | {REPLICATION}) & set(row)
        if clash:
            raise InvalidParameterError(
                f"replicate's result on cell {c}, replication {r} has the keys "
                f"{sorted(clash)}, which the table takes from the cell and the replication "
                "number; rename them")
    return rows


def _each(finished: Iterator[list]) -> Iterator[tuple[int, int, list[dict]]]:
    for batch in finished:
        yield from batch


def _serial(batches, replicate, seed, client, n_workers) -> Iterator[list]:
    for batch in batches:
        # the same round trip as between Dask processes, so that both paths accept the same
        # results and a result that cannot travel fails here too
        yield pickle.loads(pickle.dumps(run_batch(batch, replicate, seed)))


def _on_dask(batches, replicate, seed, client, n_workers) -> Iterator[list]:
    try:
        import distributed
    except ImportError as exc:
        raise ImportError("run_study needs Dask's distributed scheduler for client=None or an "
                          "address: pip install 'kappalab[dask]' (or pass client='serial' to "
                          "run in this process)") from exc
    owned = []
    try:
        if client is None:
            workers = _whole(n_workers if n_workers is not None else os.cpu_count() or 1,
                             "n_workers", minimum=1)
            cluster = distributed.LocalCluster(
                n_workers=workers, threads_per_worker=1, processes=True,
                dashboard_address=None, silence_logs=logging.ERROR)
            owned.append(cluster)
            client = distributed.Client(cluster)
            owned.append(client)
        elif isinstance(client, (str, os.PathLike)):
            client = distributed.Client(os.fspath(client))
            owned.append(client)
        elif not isinstance(client, distributed.Client):
            raise InvalidParameterError(
                f"run_study: client must be None, 'serial', a scheduler address or a "
                f"distributed.Client, got {type(client).__name__}")
        futures = client.map(run_batch, batches, replicate=replicate, seed=seed, pure=False)
        try:
            for future in distributed.as_completed(futures):
                yield future.result()
        finally:
            client.cancel(futures)
    finally:
        for resource in reversed(owned):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                resource.close()


# ------------------------------------------------------------------------------ the table
def _table(grid: list[dict], n: int, results: dict) -> pd.DataFrame:
    records = [{**grid[c], REPLICATION: r, **row}
               for c in range(len(grid)) for r in range(n) for row in results[(c, r)]]
    columns = list(dict.fromkeys(key for record in records for key in record))
    return pd.DataFrame.from_records(records, columns=columns)


# ------------------------------------------------------------------------------ checkpoint
class _Checkpoint:
    """A file of pickled (key, rows) records after a header; a cut-off tail is dropped."""

    def __init__(self, path: Path):
        self.path = path

    def load(self) -> dict[str, list[dict]]:
        if not self.path.exists() or self.path.stat().st_size == 0:
            return {}
        saved, good = {}, 0
        with open(self.path, "rb") as stream:
            try:
                header = pickle.load(stream)
            except Exception:
                header = None
            if header != _FORMAT:
                raise InvalidParameterError(
                    f"{self.path} is not a run_study checkpoint (or not one this version "
                    "reads); give another file or delete it")
            good = stream.tell()
            while True:
                try:
                    key, rows = pickle.load(stream)
                except EOFError:
                    break
                except Exception:  # a record cut short by the interruption
                    break
                saved[key] = rows
                good = stream.tell()
        if good < self.path.stat().st_size:
            with open(self.path, "r+b") as stream:
                stream.truncate(good)
        return saved

    def append(self, key: str, rows: list[dict]) -> None:
        fresh = not self.path.exists() or self.path.stat().st_size == 0
        with open(self.path, "ab") as stream:
            if fresh:
                pickle.dump(_FORMAT, stream)
            pickle.dump((key, rows), stream)
            stream.flush()


def _name(replicate: Callable) -> str:
    """The replicate function by module, name and bound arguments (for the checkpoint)."""
    if isinstance(replicate, functools.partial):
        return (f"{_name(replicate.func)}(*{replicate.args!r}, "
                f"**{sorted(replicate.keywords.items())!r})")
    module = getattr(replicate, "__module__", None) or type(replicate).__module__
    qualname = getattr(replicate, "__qualname__", None) or type(replicate).__qualname__
    return f"{module}.{qualname}"


def _key(name: str, cell: dict, seed: int, c: int, r: int) -> str:
    text = repr((name, sorted(cell.items(), key=lambda kv: str(kv[0])), seed, c, r))
    return hashlib.sha256(text.encode()).hexdigest()


def _whole(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < minimum:
        raise InvalidParameterError(f"run_study: {what} must be a whole number ≥ {minimum}, "
                                    f"got {value!r}")
    return int(value)
