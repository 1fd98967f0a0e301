r"""Simulation studies: a design grid × replications, run as Dask tasks.

A simulation study evaluates an estimator on many simulated datasets for every cell of a
design grid (numbers of items, reliabilities, methods, ...). :func:`run_study` runs the
replications as tasks on a Dask cluster (a local one using every core by default, or an
existing one by address) and returns one table whose content does not depend on the number of
workers or the order in which they finish: replication r of cell c draws its random numbers
from ``numpy.random.SeedSequence(seed, spawn_key=(c, r))``, an independent stream (O'Neill
2015, the PCG paper; numpy's ``SeedSequence`` documentation).

A checkpoint file keeps every finished replication, so that an interrupted study resumes where
it stopped; it holds data only, each record with its checksum
(:mod:`kappalab.simulate.checkpoint`).

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

import logging
import os
import pickle
import sys
import time
import warnings
from pathlib import Path
from typing import Any, Callable, Generator, Iterator, Mapping, Sequence

import numpy as np
import pandas as pd

from ..errors import CheckpointWarning, InvalidParameterError, ReplicationError
from ..progress import track
from ..validation import require_extra
from .checkpoint import Checkpoint, Damage, record_key, replicate_identity

__all__ = ["run_study", "replication_rng"]

REPLICATION = "replication"
_GATHER_SECONDS = 2.0  # first wait for a finished task's result before looking elsewhere
_DRAIN_SECONDS = 5.0  # for the results that finished before a failure
_ALLOWED_FAILURES = 1  # on the local cluster: a task whose worker dies runs once more


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
        A file that receives every finished replication as it arrives. Running the same
        study with the same file again takes the replications it holds and runs only the
        rest, so an interrupted study resumes. A record is used only by the same replicate
        function (by its code, the values it closes over and its bound arguments, not by its
        name alone), on the same cell, seed and position; a record that fails its checksum is
        reported (a :class:`~kappalab.errors.CheckpointWarning` naming the replication),
        removed, and its replication run again, without touching the others. The file holds
        data only (JSON lines; see Notes): what ``replicate`` returns must then be None,
        booleans, numbers, strings, bytes, numpy scalars and arrays of numbers, dates or
        fixed-width strings, or lists, tuples and dicts of them.
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
        whose keys collide with the cell's or ``replication``, a checkpoint file that is not
        one (or one of format 1, pickled, which is not read), a result that a checkpoint
        cannot store.
    kappalab.errors.ReplicationError
        When ``replicate`` raises, or ends the worker process running it (``os._exit``, a
        crash in compiled code, memory exhausted: Dask gives up on the task after its
        workers died, ``distributed.scheduler.allowed-failures`` + 1 times); the message
        names the cell and replication, and :func:`replication_rng` reproduces its
        generator. Every replication received before stays in the checkpoint.
    ImportError
        When a Dask client is asked for and ``distributed`` is not installed
        (``pip install -e ".[dask]"`` from a clone; ``client="serial"`` needs nothing).

    Notes
    -----
    The local cluster's workers are new processes that import the calling script: call
    run_study from a script under ``if __name__ == "__main__":``, as for
    :mod:`multiprocessing`.

    With ``SeedSequence`` spawn keys the streams of different replications are independent
    and none depends on how many there are, so adding replications or cells at the end of the
    grid leaves the earlier ones unchanged (a cell's streams follow its position in the grid).

    **The checkpoint** is a text file of JSON lines. The first is the format,
    ``{"format":"kappalab-study-checkpoint/2"}``; each other line is one finished
    replication, ``{"sha256":"…","record":{"key":"…","cell":c,"replication":r,"rows":[…]}}``:
    ``rows`` are the rows ``replicate`` returned, each a list of ``[name, value]`` pairs,
    ``key`` the SHA-256 digest of the replication's identity (replicate's module, qualified
    name, a digest of its code object, defaults, closure values and the constants and
    functions of its module it uses; every bound argument by its bytes; the cell, seed, c
    and r), and ``sha256`` the digest of the record's text as it stands in the line. Numbers
    are stored exactly: floats by their shortest repr (NaN and ±inf by their bits), numpy
    arrays and scalars by dtype, shape and raw bytes, so a record reads back equal to the one
    written, type for type and bit for bit (:mod:`kappalab.simulate.checkpoint` lists the
    encoding). On reading, a first line that is not the format refuses the file, untouched
    (so does a format-1 file, whose records were pickled: it is never unpickled); a line
    that is cut short, fails its checksum or is not such a record is reported, removed (the
    file is written anew beside it and moved over it, every valid record kept) and its
    replication runs again. Reading parses JSON and copies bytes into arrays of a checked
    dtype: whatever the file holds, opening it runs no code. Records of other studies
    (another seed, replicate or grid) may share the file; they are kept and left unused.

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
    store: Checkpoint | None = None
    keys: dict[tuple[int, int], str] = {}
    results: dict[tuple[int, int], list[dict]] = {}
    if checkpoint is not None:
        identity = replicate_identity(replicate)
        keys = {(c, r): record_key(identity, grid[c], seed, c, r)
                for c in range(len(grid)) for r in range(n)}
        store = Checkpoint(Path(checkpoint))
        saved, damaged = store.load()
        if damaged:
            warnings.warn(_damage_report(store.path, damaged, keys), CheckpointWarning,
                          stacklevel=2)
        results = {pos: saved[key] for pos, key in keys.items() if key in saved}
        if results:
            print(f"{description}: {len(results)} of {len(keys)} replications taken from "
                  f"{checkpoint}", file=sys.stderr)
    todo = [(c, r) for c in range(len(grid)) for r in range(n) if (c, r) not in results]
    if todo:
        batches = [[(c, r, grid[c]) for c, r in todo[i:i + batch_size]]
                   for i in range(0, len(todo), batch_size)]
        run = _serial if isinstance(client, str) and client == "serial" else _on_dask
        finished = run(batches, replicate, seed, client, n_workers)
        try:
            for c, r, rows in track(_each(finished), description, total=len(todo),
                                    quiet=progress is False, force=progress is True):
                results[(c, r)] = rows
                if store is not None:
                    store.append(keys[(c, r)], c, r, rows)
        finally:
            finished.close()  # cancels the tasks left and closes a cluster of this call
    return _table(grid, n, results)


def _damage_report(path: Path, damaged: list[Damage], keys: dict) -> str:
    position = {key: pos for pos, key in keys.items()}
    parts = []
    for damage in damaged:
        known = [position[key] for key in damage.keys if key in position]
        # numbers read from the damaged text itself, for a record whose key is damaged too
        unverified = [pos for pos in damage.claimed if pos not in known]
        who = [f"cell {c}, replication {r}" for c, r in known] + [
            f"cell {c}, replication {r} (by its own, unverified fields)" for c, r in unverified]
        parts.append(f"line {damage.line} ({'; '.join(who) or 'an unreadable record'}): "
                     f"{damage.reason}")
    count, held = ((f"{len(damaged)} damaged lines", "they held")
                   if len(damaged) > 1 else ("1 damaged line", "it held"))
    return (f"{path}: {count} removed from the checkpoint, every valid record kept; the "
            f"replications {held} run again: " + "; ".join(parts))


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


def _serial(batches, replicate, seed, client, n_workers) -> Generator[list, None, None]:
    for batch in batches:
        # the same round trip as between Dask processes, so that both paths accept the same
        # results and a result that cannot travel fails here too
        yield pickle.loads(pickle.dumps(run_batch(batch, replicate, seed)))


def _on_dask(batches, replicate, seed, client, n_workers) -> Generator[list, None, None]:
    distributed = require_extra("distributed", "dask",
                                "run_study with client=None or an address (Dask's scheduler)",
                                "pass client='serial' to run in this process")
    owned = []
    try:
        if client is None:
            workers = _whole(n_workers if n_workers is not None else os.cpu_count() or 1,
                             "n_workers", minimum=1)
            cluster = local_cluster(workers)
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
        # a cluster of local_cluster's runs one task per worker at a time
        own = bool(getattr(getattr(client, "cluster", None), ONE_TASK_PER_WORKER, False))
        futures = client.map(run_batch, batches, replicate=replicate, seed=seed, pure=False)
        try:
            yield from _collect(futures, batches, seed, distributed, own=own)
        finally:
            client.cancel(futures)
    finally:
        for resource in reversed(owned):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                resource.close()


ONE_TASK_PER_WORKER = "kappalab_one_task_per_worker"  # the mark of a local_cluster


def local_cluster(n_workers: int) -> Any:
    """The local Dask cluster :func:`run_study` starts when it is given no ``client``.

    One process per worker, one thread each, one task at a time on each worker, so that a
    worker's death is blamed on the task it was running only (Dask counts every task a dying
    worker holds), and one retry: a replication is deterministic, a second death is its own.
    Scripts that run several studies on one cluster start it here, so that their failures
    are reported as precisely (``experiments/study.py``).

    Parameters
    ----------
    n_workers : int
        How many worker processes.

    Returns
    -------
    distributed.LocalCluster
        The cluster (a context manager); ``distributed.Client(cluster)`` connects to it.
    """
    import dask
    import distributed

    with dask.config.set({"distributed.scheduler.worker-saturation": 1.0}):
        cluster = distributed.LocalCluster(
            n_workers=n_workers, threads_per_worker=1, processes=True,
            dashboard_address=None, silence_logs=logging.ERROR,
            scheduler_kwargs={"allowed_failures": _ALLOWED_FAILURES})
    setattr(cluster, ONE_TASK_PER_WORKER, True)
    return cluster


def _collect(futures: list, batches: list, seed: int, distributed: Any,
             own: bool) -> Iterator[list]:
    """The tasks' results as they finish; on the first failure, the results that have
    finished meanwhile, then the failure raised.

    A worker that dies takes the finished results it holds with it (Dask computes them
    again), so a result is fetched only while its future is finished, and with a time limit,
    after which the others come first: waiting without a limit for a result lost with a
    worker hid, for minutes, a task that Dask had given up on meanwhile.
    """
    batch_of = {future.key: batch for future, batch in zip(futures, batches)}
    waiting = distributed.as_completed(futures)
    received: set = set()
    limit: dict = {}
    failed = None
    for future in waiting:
        if future.key in received:
            continue
        if future.status in ("error", "cancelled"):
            failed = future
            break
        if future.status != "finished":  # lost with a worker: it comes back when recomputed
            waiting.add(future)
            continue
        try:
            value = future.result(timeout=limit.get(future.key, _GATHER_SECONDS))
        except TimeoutError:
            # still finished: a large result on its way, given twice as long next time;
            # otherwise lost meanwhile, and being recomputed
            if future.status == "finished":
                limit[future.key] = 2 * limit.get(future.key, _GATHER_SECONDS)
            waiting.add(future)
            continue
        except Exception:
            if future.status not in ("error", "cancelled"):
                raise
            failed = future
            break
        received.add(future.key)
        yield value
    if failed is None:
        return
    deadline = time.monotonic() + _DRAIN_SECONDS
    for future in futures:  # what has finished meanwhile goes to the checkpoint first
        left = deadline - time.monotonic()
        if left <= 0:
            break
        if future.key not in received and future.status == "finished":
            try:
                value = future.result(timeout=left)
            except Exception:
                continue
            received.add(future.key)
            yield value
    raise _failure(failed, batch_of[failed.key], seed, distributed, own)


def _failure(future: Any, batch: list, seed: int, distributed: Any,
             own: bool) -> BaseException:
    """The exception to raise for a failed task: replicate's own (a ReplicationError from
    run_batch), or a ReplicationError naming the work of a task that Dask gave up on or
    cancelled."""
    try:
        exc = future.exception(timeout=_GATHER_SECONDS)
    except Exception as lost:  # cancelled, or no longer known to the scheduler
        exc = lost
    killed = isinstance(exc, distributed.KilledWorker)
    if not killed and future.status == "error" and isinstance(exc, Exception):
        return exc.with_traceback(future.traceback(timeout=_GATHER_SECONDS))
    if len(batch) == 1:
        (c, r, cell), = batch
        work = (f"cell {c} {cell!r}, replication {r} (its generator: "
                f"kappalab.simulate.replication_rng({seed}, {c}, {r}))")
        advice = "run it in one process with that generator to see why"
    else:
        cells = {c: cell for c, _, cell in batch}
        work = "one of the replications of a task: " + "; ".join(
            f"cell {c} {cells[c]!r}, replications "
            f"{', '.join(str(r) for b, r, _ in batch if b == c)}" for c in cells) + (
            f" (their generators: kappalab.simulate.replication_rng({seed}, cell, "
            "replication))")
        advice = "rerun with batch_size=1 to name the one, or run them in one process"
    if killed:
        blame = "" if own else (
            " (on a cluster whose workers hold more tasks than threads, with "
            "distributed.scheduler.worker-saturation above 1, Dask counts every task a "
            "dying worker held: the one at fault may have run beside it)")
        what = (f"replicate ended the worker process running it on {work}: Dask gave up on "
                f"the task after the workers running it died (KilledWorker){blame}. A "
                "replicate that calls os._exit, crashes in compiled code or exhausts the "
                f"memory ends its process without an exception; {advice}.")
    else:
        what = (f"the task running {work} was cancelled on the cluster, or lost by its "
                f"scheduler ({type(exc).__name__}: {exc}).")
    error = ReplicationError(what + " The replications received before are kept (in the "
                             "checkpoint, if there is one).")
    error.__cause__ = exc
    return error


# ------------------------------------------------------------------------------ the table
def _table(grid: list[dict], n: int, results: dict) -> pd.DataFrame:
    records = [{**grid[c], REPLICATION: r, **row}
               for c in range(len(grid)) for r in range(n) for row in results[(c, r)]]
    columns = list(dict.fromkeys(key for record in records for key in record))
    return pd.DataFrame.from_records(records, columns=columns)


def _whole(value: Any, what: str, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)) \
            or value < minimum:
        raise InvalidParameterError(f"run_study: {what} must be a whole number ≥ {minimum}, "
                                    f"got {value!r}")
    return int(value)
