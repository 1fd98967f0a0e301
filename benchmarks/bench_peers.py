"""kappalab against every peer library, at 1 000 to 10 000 000 annotations, in one table.

Every cell of the table is a time ratio **kappalab / peer** measured in this process, the
two calls interleaved (kappalab, peer, kappalab, peer, …, up to ``--repeat`` pairs within
``--budget`` seconds) after one untimed warm-up pair; calls under 20 ms are timed in batches
of about 20 ms (a batch of kappalab calls, then a batch of peer calls), each sample a
batch's time per call; a pair over half the budget (at the largest sizes) is timed once
after its warm-up, and one over twice the budget not again (its warm-up pair is the sample).
A cell is the ratio of the two medians, with the spread (smallest and largest ratio of one
kappalab sample to the peer sample after it). Below 1.0 kappalab is faster. The inputs are
built before the timers start (a check fails the run when one would be built inside). Both
sides get the same data, each in the input its user passes (an array, a long DataFrame, a
counts table, Python lists, nltk's triples), built beforehand; what a library then does with
it — kappalab building its ``Annotations``, irrCAC its ``CAC`` object, statsmodels'
``aggregate_raters`` — is inside the timer.

Data (fixed seeds): 5 raters, 7 ordered levels (1..7 as floats), each rater reports the item's
true level with probability 0.6 and otherwise a uniform level; 10 % of the cells missing for
Krippendorff's α, complete for the coefficients whose peers require complete data. The size
of a row is the number of annotations (Cohen's κ: half as many label pairs).

Rows (work, kappalab's input, peer):

* Krippendorff's α, nominal / ordinal / interval / ratio, against ``krippendorff.alpha`` on
  the raters × items array; kappalab from the same data as an items × raters array and from a
  long DataFrame (item, string rater, value);
* nominal α from the long DataFrame against ``krippendorff.alpha`` after the pandas pivot to
  its raters × items array, which its user makes first (it reads no long table);
* the same against evalica's ``alpha`` (a raters × units DataFrame, its Rust solver);
* Cohen's κ plain / linear / quadratic against scikit-learn's ``cohen_kappa_score`` with
  int64 labels, and plain with string labels (object arrays): kappalab refuses linear and
  quadratic weights on labels that are not numbers (scikit-learn weights their sorted ranks),
  so those have no string row;
* Fleiss' κ against statsmodels' ``fleiss_kappa`` from a ready items × categories table
  (kappalab: ``Annotations.from_counts``) and from raw items × raters codes
  (statsmodels: ``aggregate_raters`` + ``fleiss_kappa``);
* irrCAC's ``irrCAC.raw.CAC``: Fleiss, Gwet's AC1, Conger, Krippendorff, each with its
  standard error (kappalab with ``ci="analytic"``), from the same items × raters DataFrame;
* pingouin's ``intraclass_corr`` against ``kl.icc_table`` (six forms, F-test intervals), from
  the same long DataFrame;
* nltk's ``AnnotationTask(...).alpha()`` with ``masi_distance`` against
  ``kl.krippendorff_alpha(..., level="masi")`` on set-valued annotations (3 raters, subsets of
  four labels); nltk from its (coder, item, label) triples, kappalab from the long DataFrame;
* crowd-kit's ``alpha_krippendorff`` (nominal) on a task/worker/label DataFrame, kappalab on
  the same DataFrame (``Annotations.from_long(df, "task", "worker", "label")``);
* rater-agreement (``raters``): ``krippendorff_alpha`` (nominal, interval) on raters × units
  lists with ``None`` for missing, ``cohen_kappa`` (plain, linear, quadratic) on label lists,
  ``fleiss_kappa`` on a counts table; kappalab from the numpy array the lists were made of;
* raterkit (``raterkit.stats``): ``krippendorff_alpha`` (nominal, ordinal, interval) and
  ``fleiss_kappa`` from an items × categories counts table; kappalab from the same table
  (``Annotations.from_counts``). raterkit's ``cohen_kappa`` takes a ready contingency table,
  an input kappalab does not take, so it has no row.

Before the table, every row runs once untimed at 1 000 annotations, so that the first call
of a code path in the process (lazy imports, caches) is not inside a cell; that cost is
measured on its own (first call against a later one, below).

A peer call that would need more than ``--memory-limit`` GiB (estimated from the size before
running it) is recorded as "not run: needs N GiB"; one whose time, extrapolated from the
previous size, would exceed ``--time-limit`` seconds (60) is recorded as "> 60 s,
extrapolated N s"; one that raises is recorded with its error. Values must agree — peer
against kappalab to 1e-9 — or the run exits non-zero.

For every cell above 1.0, kappalab's **fixed cost** is measured too: its call on the row's
smallest input (:data:`FIXED_COST_SIZE` annotations) paired with the peer's call at the cell's
size (:func:`fixed_costs`); above 1.0, what kappalab spends on any call already exceeds the
peer's whole call.

Also measured: the fixed per-call overhead (µs per call at 1 000 annotations), the first
estimator call in a fresh process against a later one (subprocesses), ``import kappalab``
against ``import numpy, pandas`` (subprocesses, interleaved), the peak memory
(``tracemalloc``, in subprocesses) of Cohen's κ on 1 M pairs and α on 1 M annotations against
the peers, and the **floors**: at 1 M and 10 M annotations, kappalab end to end against the
least work any implementation must do — ``pd.factorize`` of the key columns (+ the value
column when categorical) and one ``np.bincount`` (details in :func:`floor_rows`); the
bounds are the project's targets (2× for α, 3× for the others).

Run: ``python -m benchmarks.bench_peers [--max-annotations N] [--quick] [--repeat R]
[--json PATH] [--only TEXT]``; ``--quick`` stops at 100 000 annotations with fewer repeats;
``--only Fleiss`` times just the rows and floors whose work names Fleiss (no overheads or
memory: a partial run, which :mod:`benchmarks.performance_table` will not put on the page).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd

from benchmarks import timing

ROOT = Path(__file__).resolve().parents[1]
SIZES = (1_000, 10_000, 100_000, 1_000_000, 10_000_000)
RATERS = 5
LEVELS = 7
MISSING = 0.10
TOLERANCE = 1e-9
GIB = 2**30
FLOOR_BOUND = {"alpha": 2.0, "other": 3.0}
MASI_LABELS = "abcd"


# --------------------------------------------------------------------------- data
class Data:
    """All inputs of one size, built lazily (outside every timer) and shared by the rows."""

    def __init__(self, size: int, seed: int = 20261204):
        self.size = size
        self.seed = seed
        self.frozen = False  # set while timing: an input built then would be timed
        self._cache: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        if name not in self._cache:
            if self.frozen:
                raise RuntimeError(f"input {name!r} would be built inside a timer")
            self._cache[name] = getattr(self, "_" + name)()
        return self._cache[name]

    def prepare(self, *calls: Callable[..., Any]) -> None:
        """Build every input the call factories name (string constants of their code)."""
        for call in calls:
            for name in names_in(call):
                if hasattr(self, "_" + name):
                    self.get(name)

    def _levels(self, items: int, rng: np.random.Generator) -> np.ndarray:
        truth = rng.integers(1, LEVELS + 1, size=(items, 1))
        noise = rng.integers(1, LEVELS + 1, size=(items, RATERS))
        return np.where(rng.random((items, RATERS)) < 0.6, truth, noise).astype(float)

    # α data: items × raters with 10 % missing, about `size` annotations
    def _wide(self) -> np.ndarray:
        rng = np.random.default_rng(self.seed)
        items = max(2, round(self.size / (RATERS * (1 - MISSING))))
        x = self._levels(items, rng)
        x[rng.random(x.shape) < MISSING] = np.nan
        return x

    def _rt(self) -> np.ndarray:  # the raters × items array of krippendorff (C order)
        return np.ascontiguousarray(self.get("wide").T)

    def _long(self) -> pd.DataFrame:
        return to_long(self.get("wide"))

    def _evalica_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.get("rt"))

    def _raters_lists(self) -> list[list[float | None]]:
        return [[None if np.isnan(v) else v for v in row] for row in self.get("rt").tolist()]

    # complete data: items × raters, `size` annotations
    def _complete(self) -> np.ndarray:
        rng = np.random.default_rng(self.seed + 1)
        return self._levels(max(2, self.size // RATERS), rng)

    def _complete_frame(self) -> pd.DataFrame:
        return pd.DataFrame(self.get("complete"), columns=[f"r{j}" for j in range(RATERS)])

    def _complete_codes(self) -> np.ndarray:
        return self.get("complete").astype(np.int64)

    def _complete_long(self) -> pd.DataFrame:
        return to_long(self.get("complete"))

    def _crowd_frame(self) -> pd.DataFrame:
        frame = self.get("complete_long")
        return pd.DataFrame({"task": frame["item"].to_numpy(), "worker": frame["rater"].to_numpy(),
                             "label": frame["value"].to_numpy().astype(np.int64)})

    def _table(self) -> np.ndarray:  # items × categories counts of the complete data
        codes = self.get("complete_codes") - 1
        items = codes.shape[0]
        flat = np.repeat(np.arange(items), RATERS) * LEVELS + codes.ravel()
        return np.bincount(flat, minlength=items * LEVELS).reshape(items, LEVELS)

    # Cohen: size // 2 label pairs
    def _pairs(self) -> tuple[np.ndarray, np.ndarray]:
        rng = np.random.default_rng(self.seed + 2)
        n = max(2, self.size // 2)
        a = rng.integers(0, 5, n)
        b = np.where(rng.random(n) < 0.6, a, rng.integers(0, 5, n))
        return a.astype(np.int64), b.astype(np.int64)

    def _string_pairs(self) -> tuple[np.ndarray, np.ndarray]:
        names = np.array([f"label {k}" for k in range(5)], dtype=object)
        a, b = self.get("pairs")
        return names[a], names[b]

    def _pair_lists(self) -> tuple[list[int], list[int]]:
        a, b = self.get("pairs")
        return a.tolist(), b.tolist()

    # MASI: 3 raters, set values
    def _masi_triples(self) -> list[tuple[str, int, frozenset]]:
        frame = self.get("masi")
        return list(zip(frame["rater"].tolist(), frame["item"].tolist(),
                        frame["value"].tolist()))

    def _masi(self) -> pd.DataFrame:
        rng = np.random.default_rng(self.seed + 3)
        pool = [frozenset(MASI_LABELS[j] for j in range(4) if mask >> j & 1)
                for mask in range(1, 16)]
        items = max(2, self.size // 3)
        truth = rng.integers(0, 15, (items, 1))
        codes = np.where(rng.random((items, 3)) < 0.6, truth, rng.integers(0, 15, (items, 3)))
        objects = np.empty(15, dtype=object)
        objects[:] = pool
        values = objects[codes.ravel()]
        raters = np.array(["c0", "c1", "c2"], dtype=object)
        frame = pd.DataFrame({"item": np.repeat(np.arange(items), 3),
                              "rater": np.tile(raters, items), "value": values})
        return frame

    # floors: continuous values for interval α (every value distinct)
    def _long_continuous(self) -> pd.DataFrame:
        rng = np.random.default_rng(self.seed + 4)
        frame = self.get("long").copy()
        frame["value"] = frame["value"] + rng.normal(0.0, 0.5, len(frame))
        return frame


def names_in(fn: Callable[..., Any]) -> set[str]:
    """The string constants of a function, its nested functions and its default values."""
    found = {v for v in (fn.__defaults__ or ()) if isinstance(v, str)}
    stack = [fn.__code__]
    while stack:
        code = stack.pop()
        for const in code.co_consts:
            if isinstance(const, str):
                found.add(const)
            elif hasattr(const, "co_consts"):
                stack.append(const)
    return found


def to_long(x: np.ndarray) -> pd.DataFrame:
    """The long DataFrame (item, string rater id, value) of an items × raters array."""
    items, raters = x.shape
    mask = ~np.isnan(x)
    item, rater = np.nonzero(mask)
    names = np.array([f"rater {j}" for j in range(raters)], dtype=object)
    return pd.DataFrame({"item": item, "rater": names[rater], "value": x[mask]})


# --------------------------------------------------------------------------- rows
@dataclass
class Row:
    """One line of the table: a work, kappalab's input, a peer, and the two calls."""

    work: str
    kl_input: str
    peer: str
    kl_call: Callable[[Data], Callable[[], Any]]
    peer_call: Callable[[Data], Callable[[], Any]]
    compare: Callable[[Any, Any], float] | None = None  # |Δ| of the two results; None: values
    memory: Callable[[int], float] = lambda n: 0.0  # peer's estimated peak bytes at size n
    exponent: float = 1.0  # how the peer's time grows with the size, for the extrapolation
    max_size: int | None = None  # the largest size the data of this row is built for


@dataclass
class Cell:
    size: int
    status: str = "ok"  # ok | not run | error
    note: str = ""
    kl_s: float | None = None
    peer_s: float | None = None
    ratio: float | None = None
    ratio_min: float | None = None
    ratio_max: float | None = None
    repeats: int = 0
    diff: float | None = None
    agree: bool = True
    fixed_s: float | None = None  # kappalab on the smallest input (cells above 1.0)
    fixed_ratio: float | None = None  # fixed_s / the peer's time at this size


@dataclass
class RowResult:
    work: str
    kl_input: str
    peer: str
    cells: list[Cell] = field(default_factory=list)


def value_of(result: Any) -> float:
    return float(getattr(result, "value", result))


def icc_diff(k: pd.DataFrame, p: pd.DataFrame) -> float:
    return float(np.max(np.abs(k["value"].to_numpy() - p["ICC"].to_numpy())))


def irr_diff(k: Any, p: dict) -> float:
    return abs(k.value - float(p["est"]["coefficient_value"]))


def build_rows() -> list[Row]:
    import crowdkit.metrics.data as crowd
    import evalica
    import irrCAC.raw
    import krippendorff
    import pingouin
    import raterkit.stats
    import raters
    from nltk.metrics.agreement import AnnotationTask
    from nltk.metrics.distance import masi_distance
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats import inter_rater

    import kappalab as kl

    # a peer's memory: its units × V × V tensor (krippendorff), else the growth of the peak
    # resident memory per annotation measured at 100 000 annotations, with 25 % margin
    rows: list[Row] = []
    units_vv = lambda n: 3 * 8.0 * LEVELS**2 * n / RATERS  # noqa: E731  units × V × V floats

    def alpha_rows(level: str) -> None:
        rows.append(Row(
            f"α {level}", "items × raters array", "krippendorff.alpha",
            lambda d: lambda: kl.krippendorff_alpha(d.get("wide"), level=level),
            lambda d: lambda: krippendorff.alpha(reliability_data=d.get("rt"),
                                                 level_of_measurement=level),
            memory=units_vv))
        rows.append(Row(
            f"α {level}", "long DataFrame", "krippendorff.alpha",
            lambda d: lambda: kl.krippendorff_alpha(d.get("long"), level=level),
            lambda d: lambda: krippendorff.alpha(reliability_data=d.get("rt"),
                                                 level_of_measurement=level),
            memory=units_vv))
        rows.append(Row(
            f"α {level}", "items × raters array", "evalica.alpha",
            lambda d: lambda: kl.krippendorff_alpha(d.get("wide"), level=level),
            lambda d: lambda: evalica.alpha(d.get("evalica_frame"), distance=level).alpha,
            memory=lambda n: 100.0 * n))

    for level in ("nominal", "ordinal", "interval", "ratio"):
        alpha_rows(level)
    # krippendorff reads no long table: its user pivots it to the raters × items array first
    rows.append(Row(
        "α nominal", "long DataFrame", "pandas pivot + krippendorff.alpha",
        lambda d: lambda: kl.krippendorff_alpha(d.get("long")),
        lambda d: lambda: krippendorff.alpha(
            reliability_data=d.get("long").pivot(index="rater", columns="item",
                                                 values="value").to_numpy(),
            level_of_measurement="nominal"),
        memory=lambda n: units_vv(n) + 8.0 * 3 * n))

    for weights in (None, "linear", "quadratic"):
        name = weights or "plain"
        kinds = [("int64", "pairs")] + ([("string", "string_pairs")] if weights is None else [])
        for kind, key in kinds:
            rows.append(Row(
                f"Cohen κ {name}", f"two {kind} label arrays", "sklearn cohen_kappa_score",
                lambda d, key=key, w=weights: lambda: kl.cohen_kappa(*d.get(key), weights=w),
                lambda d, key=key, w=weights: lambda: cohen_kappa_score(*d.get(key), weights=w),
                memory=lambda n: 8.0 * 6 * n))

    rows.append(Row(
        "Fleiss κ", "counts table (from_counts)", "statsmodels fleiss_kappa",
        lambda d: lambda: kl.fleiss_kappa(kl.Annotations.from_counts(d.get("table"))),
        lambda d: lambda: inter_rater.fleiss_kappa(d.get("table")),
        memory=lambda n: 8.0 * 4 * LEVELS * n / RATERS))
    rows.append(Row(
        "Fleiss κ", "raw items × raters codes", "statsmodels aggregate_raters + fleiss_kappa",
        lambda d: lambda: kl.fleiss_kappa(d.get("complete_codes")),
        lambda d: lambda: inter_rater.fleiss_kappa(
            inter_rater.aggregate_raters(d.get("complete_codes"))[0]),
        memory=lambda n: 8.0 * 6 * LEVELS * n / RATERS))

    cac_methods = {"fleiss": kl.fleiss_kappa, "gwet": kl.gwet_ac, "conger": kl.conger_kappa,
                   "krippendorff": kl.krippendorff_alpha}
    labels = {"fleiss": "Fleiss κ + SE", "gwet": "Gwet AC1 + SE", "conger": "Conger κ + SE",
              "krippendorff": "α nominal + SE"}
    for method, estimator in cac_methods.items():
        rows.append(Row(
            labels[method], "items × raters DataFrame", f"irrCAC CAC.{method}",
            lambda d, e=estimator: lambda: e(d.get("complete_frame"), ci="analytic"),
            lambda d, m=method: lambda: getattr(
                irrCAC.raw.CAC(d.get("complete_frame"), digits=15), m)(),
            compare=irr_diff, memory=lambda n: 220.0 * n))

    rows.append(Row(
        "ICC, six forms", "long DataFrame", "pingouin intraclass_corr",
        lambda d: lambda: kl.icc_table(d.get("complete_long")),
        lambda d: lambda: pingouin.intraclass_corr(d.get("complete_long"), targets="item",
                                                   raters="rater", ratings="value"),
        compare=icc_diff, memory=lambda n: 270.0 * n))

    rows.append(Row(
        "α MASI (set values)", "long DataFrame", "nltk AnnotationTask + masi_distance",
        lambda d: lambda: kl.krippendorff_alpha(d.get("masi"), level="masi"),
        lambda d: lambda: AnnotationTask(d.get("masi_triples"), distance=masi_distance).alpha(),
        memory=lambda n: 550.0 * n))

    rows.append(Row(
        "α nominal", "task/worker/label DataFrame", "crowd-kit alpha_krippendorff",
        lambda d: lambda: kl.krippendorff_alpha(
            kl.Annotations.from_long(d.get("crowd_frame"), "task", "worker", "label")),
        lambda d: lambda: crowd.alpha_krippendorff(d.get("crowd_frame")),
        memory=lambda n: 1370.0 * n))

    # rater-agreement: Python lists in, the user's lists built from the array
    for level in ("nominal", "interval"):
        rows.append(Row(
            f"α {level}", "items × raters array", "rater-agreement krippendorff_alpha",
            lambda d, lv=level: lambda: kl.krippendorff_alpha(d.get("wide"), level=lv),
            lambda d, lv=level: lambda: raters.krippendorff_alpha(
                d.get("raters_lists"), level=lv, categories=[float(v) for v in range(1, 8)]),
            memory=lambda n: 8.0 * 20 * n + 8.0 * LEVELS**2 * n / RATERS * 3))
    for weights in (None, "linear", "quadratic"):
        rows.append(Row(
            f"Cohen κ {weights or 'plain'}", "two int64 label arrays",
            "rater-agreement cohen_kappa",
            lambda d, w=weights: lambda: kl.cohen_kappa(*d.get("pairs"), weights=w),
            lambda d, w=weights: lambda: raters.cohen_kappa(*d.get("pair_lists"),
                                                            categories=list(range(5)),
                                                            weights=w),
            memory=lambda n: 8.0 * 10 * n))
    rows.append(Row(
        "Fleiss κ", "counts table (from_counts)", "rater-agreement fleiss_kappa",
        lambda d: lambda: kl.fleiss_kappa(kl.Annotations.from_counts(d.get("table"))),
        lambda d: lambda: raters.fleiss_kappa(d.get("table")),
        memory=lambda n: 8.0 * 4 * LEVELS * n / RATERS))

    values = [float(v) for v in range(1, LEVELS + 1)]
    for level in ("nominal", "ordinal", "interval"):
        rows.append(Row(
            f"α {level}", "counts table (from_counts)", "raterkit krippendorff_alpha",
            lambda d, lv=level: lambda: kl.krippendorff_alpha(
                kl.Annotations.from_counts(d.get("table"), categories=values), level=lv),
            lambda d, lv=level: lambda: raterkit.stats.krippendorff_alpha(
                d.get("table"), values, level=lv),
            memory=lambda n: 8.0 * 6 * LEVELS * n / RATERS))
    rows.append(Row(
        "Fleiss κ", "counts table (from_counts)", "raterkit fleiss_kappa",
        lambda d: lambda: kl.fleiss_kappa(kl.Annotations.from_counts(d.get("table"))),
        lambda d: lambda: raterkit.stats.fleiss_kappa(d.get("table")),
        memory=lambda n: 8.0 * 4 * LEVELS * n / RATERS))

    return rows


# --------------------------------------------------------------------------- timing
def paired(kl_fn: Callable[[], Any], peer_fn: Callable[[], Any], repeat: int,
           budget: float, batch: float = 0.02) -> tuple[list[float], list[float], Any, Any]:
    """Per-call times of kappalab and the peer, alternately, within about ``budget`` s.

    One untimed warm-up pair first (its results are the values compared). Calls shorter than
    ``batch`` seconds are timed in batches of about ``batch`` s (a batch of kappalab calls,
    then a batch of peer calls, …), so that the clock's resolution and a single interruption
    weigh little; each sample is a batch's time per call. A pair slower than ``budget / 2``
    is timed once after its warm-up; one slower than ``2 * budget`` is not timed again, its
    warm-up pair being the sample.
    """
    start = time.perf_counter()
    kl_result = kl_fn()
    t1 = time.perf_counter()
    peer_result = peer_fn()
    t2 = time.perf_counter()
    kl_first, peer_first = t1 - start, t2 - t1
    if kl_first + peer_first > 2 * budget:  # a very slow pair: its warm-up is the sample
        return [kl_first], [peer_first], kl_result, peer_result
    if kl_first + peer_first > budget / 2:  # a slow pair: one timed pair after the warm-up
        a = time.perf_counter()
        kl_fn()
        b = time.perf_counter()
        peer_fn()
        c = time.perf_counter()
        return [b - a], [c - b], kl_result, peer_result
    kl_k = max(1, int(batch / max(kl_first, 1e-7)))
    peer_k = max(1, int(batch / max(peer_first, 1e-7)))
    pair = kl_k * kl_first + peer_k * peer_first
    n = int(max(1, min(repeat, budget // max(pair, 1e-9))))
    kl_times, peer_times = [], []
    for _ in range(n):
        a = time.perf_counter()
        for _ in range(kl_k):
            kl_fn()
        b = time.perf_counter()
        for _ in range(peer_k):
            peer_fn()
        c = time.perf_counter()
        kl_times.append((b - a) / kl_k)
        peer_times.append((c - b) / peer_k)
    return kl_times, peer_times, kl_result, peer_result


def tagged(fn: Callable[[], Any], who: str) -> Callable[[], Any]:
    """``fn`` whose exceptions carry ``raised_by = who``."""
    def call() -> Any:
        try:
            return fn()
        except Exception as error:
            error.raised_by = who  # type: ignore[attr-defined]
            raise
    return call


def measure(rows: list[Row], sizes: list[int], repeat: int, time_limit: float,
            memory_limit: float, budget: float) -> list[RowResult]:
    results = [RowResult(r.work, r.kl_input, r.peer) for r in rows]
    last: dict[int, tuple[int, float]] = {}  # row index -> (size, peer seconds)
    for size in sizes:
        kl_fn = peer_fn = kl_v = peer_v = None  # the previous size's data is freed
        data = Data(size)
        print(f"\n-- {size:,} annotations", flush=True)
        for index, (row, result) in enumerate(zip(rows, results)):
            data.frozen = False
            cell = Cell(size)
            result.cells.append(cell)
            if row.max_size is not None and size > row.max_size:
                cell.status, cell.note = "not run", "size beyond this row's data"
                continue
            need = row.memory(size)
            guess = None
            if index in last:
                prev_size, prev_s = last[index]
                guess = prev_s * (size / prev_size) ** row.exponent
            if need > memory_limit or (guess is not None and guess > time_limit):
                cell.status = "not run"
                cell.note = (f"needs {need / GIB:.1f} GiB" if need > memory_limit else
                             f"> {time_limit:g} s, extrapolated {guess:.0f} s")
                if guess is not None:
                    last[index] = (size, guess)
                try:  # kappalab alone, once: the ratio's upper bound when extrapolated
                    data.prepare(row.kl_call)
                    data.frozen = True
                    kl_fn = row.kl_call(data)
                    start = time.perf_counter()
                    kl_fn()
                    cell.kl_s = time.perf_counter() - start
                    if guess is not None and need <= memory_limit:
                        cell.peer_s, cell.ratio_max = guess, cell.kl_s / guess
                except Exception as error:  # noqa: BLE001 - reported, fails the run
                    cell.note += f"; kappalab: {type(error).__name__}: {error}"[:120]
                    cell.agree = False
                print(f"   {row.work:22s} {row.kl_input[:26]:26s} {row.peer:44s} not run: "
                      f"{cell.note} (kappalab {timing.fmt_time(cell.kl_s)})", flush=True)
                continue
            data.prepare(row.kl_call, row.peer_call)
            data.frozen = True
            try:
                kl_fn, peer_fn = tagged(row.kl_call(data), "kappalab"), row.peer_call(data)
                kl_t, peer_t, kl_v, peer_v = paired(kl_fn, peer_fn, repeat, budget)
            except Exception as error:  # a peer that aborts at this size, or kappalab failing
                if isinstance(error, RuntimeError) and "inside a timer" in str(error):
                    raise
                who = getattr(error, "raised_by", "peer")
                cell.status = "error"
                cell.note = f"{who}: {type(error).__name__}: {error}"[:120]
                cell.agree = who != "kappalab"  # kappalab failing fails the run
                print(f"   {row.work:22s} {row.kl_input[:26]:26s} {row.peer:44s} ERROR {cell.note}")
                continue
            ratios = np.array(kl_t) / np.array(peer_t)
            cell.kl_s, cell.peer_s = float(np.median(kl_t)), float(np.median(peer_t))
            cell.ratio = cell.kl_s / cell.peer_s
            cell.ratio_min, cell.ratio_max = float(ratios.min()), float(ratios.max())
            cell.repeats = len(kl_t)
            compare = row.compare or (lambda k, p: abs(value_of(k) - value_of(p)))
            cell.diff = float(compare(kl_v, peer_v))
            cell.agree = bool(cell.diff <= TOLERANCE)
            last[index] = (size, cell.peer_s)
            print(f"   {row.work:22s} {row.kl_input[:26]:26s} {row.peer:44s} "
                  f"{timing.fmt_time(cell.kl_s):>10s} / {timing.fmt_time(cell.peer_s):>10s} = "
                  f"{cell.ratio:6.2f} ({cell.ratio_min:.2f}–{cell.ratio_max:.2f}, "
                  f"n={cell.repeats}) |Δ|={cell.diff:.1e}"
                  + ("" if cell.agree else "  DISAGREE"), flush=True)
        del data
    return results


# --------------------------------------------------------------------------- fixed costs
#: the annotations of the smallest input of a row, whose time is kappalab's fixed cost per call
FIXED_COST_SIZE = 20


def fixed_costs(rows: list[Row], results: list[RowResult], repeat: int,
                budget: float) -> None:
    """For every cell above 1.0, kappalab's call on the row's smallest input (
    :data:`FIXED_COST_SIZE` annotations: 4 items × 5 raters) paired with the peer's call at
    the cell's size, into the cell's ``fixed_s`` and ``fixed_ratio``. A ``fixed_ratio`` above
    1.0 means that what kappalab spends on any call, whatever the size of its data (reading
    and checking the input, the core, the estimate), already exceeds the peer's whole call:
    no saving per annotation closes that cell."""
    slow = [(row, cell) for row, result in zip(rows, results) for cell in result.cells
            if cell.ratio is not None and cell.ratio > 1.0]
    if not slow:
        return
    print(f"\n-- fixed costs: kappalab on {FIXED_COST_SIZE} annotations against the peer at "
          "each cell above 1.0", flush=True)
    tiny = Data(FIXED_COST_SIZE)
    for size in sorted({cell.size for _, cell in slow}):
        data = Data(size)
        for row, cell in slow:
            if cell.size != size:
                continue
            tiny.frozen = data.frozen = False
            tiny.prepare(row.kl_call)
            data.prepare(row.peer_call)
            tiny.frozen = data.frozen = True
            kl_t, peer_t, _, _ = paired(row.kl_call(tiny), row.peer_call(data), repeat, budget)
            cell.fixed_s = float(np.median(kl_t))
            cell.fixed_ratio = cell.fixed_s / float(np.median(peer_t))
            print(f"   {row.work:22s} {row.kl_input[:26]:26s} {row.peer:44s} {size:>10,}: "
                  f"{timing.fmt_time(cell.fixed_s):>10s} / "
                  f"{timing.fmt_time(float(np.median(peer_t))):>10s} = "
                  f"{cell.fixed_ratio:5.2f}", flush=True)
        del data


# --------------------------------------------------------------------------- floors
def floor_rows(sizes: list[int], repeat: int, budget: float,
               only: str | None = None) -> list[dict[str, Any]]:
    """kappalab end to end against the least work of each computation, at 1 M and 10 M.

    * α nominal / ordinal from the long DataFrame: ``pd.factorize`` of the item, rater and
      value columns + ``np.bincount(item * K + code)``;
    * α interval from the long DataFrame with continuous values (every value distinct):
      ``pd.factorize`` of item and rater + ``np.bincount(item, weights=value)`` (no
      factorize, sort or unique of the values);
    * Cohen's κ from two int64 label arrays: ``pd.factorize`` of both together +
      ``np.bincount(a * K + b)``;
    * Fleiss' κ from a counts table (``Annotations.from_counts``): the table's row sums;
    * Gwet's AC1 with its analytic SE from the long DataFrame: the nominal α floor;
    * ICC (``kl.icc_table``) from the complete long DataFrame: ``pd.factorize`` of item and
      rater + ``np.bincount`` of the values by item and by rater;
    * κx (``kl.cross_kappa``) on two built ``Annotations``: one ``np.bincount(item * K +
      code)`` per side.

    ``only``: just the works that contain this text.
    """
    out = []
    for size in sizes:
        cases = floor_cases(size)

        for work, kind, kl_fn, floor_fn in cases:
            if only is not None and only not in work:
                continue
            kl_t, floor_t, _, _ = paired(kl_fn, floor_fn, repeat, budget)
            ratios = np.array(kl_t) / np.array(floor_t)
            ratio = float(np.median(kl_t) / np.median(floor_t))
            bound = FLOOR_BOUND[kind]
            row = {"work": work, "size": size, "kl_s": float(np.median(kl_t)),
                   "floor_s": float(np.median(floor_t)), "ratio": ratio,
                   "ratio_min": float(ratios.min()), "ratio_max": float(ratios.max()),
                   "bound": bound, "met": ratio <= bound, "repeats": len(kl_t)}
            out.append(row)
            print(f"   floor {work:30s} {size:>10,}: {timing.fmt_time(row['kl_s']):>10s} / "
                  f"{timing.fmt_time(row['floor_s']):>10s} = {ratio:5.2f} "
                  f"({row['ratio_min']:.2f}–{row['ratio_max']:.2f}; bound {bound:g}×: "
                  f"{'met' if row['met'] else 'MISSED'})", flush=True)
    return out


def floor_cases(size: int) -> list[tuple[str, str, Callable[[], Any], Callable[[], Any]]]:
    """The (work, bound kind, kappalab call, floor call) of :func:`floor_rows` at ``size``."""
    import kappalab as kl

    data = Data(size)

    def long_floor(frame: pd.DataFrame, categorical: bool) -> Callable[[], Any]:
        def floor() -> Any:
            item, items = pd.factorize(frame["item"])
            pd.factorize(frame["rater"])
            if categorical:
                code, cats = pd.factorize(frame["value"])
                return np.bincount(item * len(cats) + code)
            return np.bincount(item, weights=frame["value"].to_numpy())
        return floor

    def cohen_floor() -> Any:
        a, b = data.get("pairs")
        codes, cats = pd.factorize(np.concatenate([a, b]))
        k = len(cats)
        return np.bincount(codes[:a.size] * k + codes[a.size:], minlength=k * k)

    def icc_floor() -> Any:
        frame = data.get("complete_long")
        item, _ = pd.factorize(frame["item"])
        rater, _ = pd.factorize(frame["rater"])
        v = frame["value"].to_numpy()
        return np.bincount(item, weights=v), np.bincount(rater, weights=v)

    cross = make_cross(size)

    def cross_floor() -> Any:
        return [np.bincount(item * 2 + code) for item, code in cross[1]]

    for name in ("long", "long_continuous", "pairs", "table", "complete_long"):
        data.get(name)
    data.frozen = True
    return [
        ("α nominal, long", "alpha",
         lambda: kl.krippendorff_alpha(data.get("long")), long_floor(data.get("long"), True)),
        ("α ordinal, long", "alpha",
         lambda: kl.krippendorff_alpha(data.get("long"), level="ordinal"),
         long_floor(data.get("long"), True)),
        ("α interval, long, continuous", "alpha",
         lambda: kl.krippendorff_alpha(data.get("long_continuous"), level="interval"),
         long_floor(data.get("long_continuous"), False)),
        ("Cohen κ, int64 pairs", "other",
         lambda: kl.cohen_kappa(*data.get("pairs")), cohen_floor),
        ("Fleiss κ, counts table", "other",
         lambda: kl.fleiss_kappa(kl.Annotations.from_counts(data.get("table"))),
         lambda: data.get("table").sum(axis=1)),
        ("Gwet AC1 + SE, long", "other",
         lambda: kl.gwet_ac(data.get("complete_long"), ci="analytic"),
         long_floor(data.get("complete_long"), True)),
        ("ICC, long", "other", lambda: kl.icc_table(data.get("complete_long")), icc_floor),
        ("κx, built Annotations", "other",
         lambda: kl.cross_kappa(cross[0][0], cross[0][1]), cross_floor),
    ]


def make_cross(size: int) -> tuple[tuple[Any, Any], list[tuple[np.ndarray, np.ndarray]]]:
    """Two sides of binary judgements on shared items, ``size // 2`` annotations each."""
    import kappalab as kl

    rng = np.random.default_rng(size + 5)
    n = max(4, size // 2)
    items = max(2, n // 3)
    anns, codes = [], []
    for _ in range(2):
        item = np.sort(rng.integers(0, items, n))
        code = rng.integers(0, 2, n)
        frame = pd.DataFrame({"item": item, "value": code})
        anns.append(kl.Annotations.from_long(frame, rater=None))
        codes.append((item, code))
    return (anns[0], anns[1]), codes


# --------------------------------------------------------------------------- overheads
def run_python(code: str, timeout: float = 300, bytecode: bool = False) -> str:
    """The last line ``python -c code`` prints, run from the repository root; ``bytecode``:
    with Python's bytecode cache allowed (``PYTHONDONTWRITEBYTECODE`` unset), as an installed
    package is imported."""
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))
    if bytecode:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env=env)
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    return done.stdout.strip().splitlines()[-1]


def overheads(repeat: int) -> dict[str, Any]:
    import kappalab as kl

    out: dict[str, Any] = {}
    data = Data(1_000)
    x, frame = data.get("wide"), data.get("long")
    for name, fn in (("wide", lambda: kl.krippendorff_alpha(x)),
                     ("long", lambda: kl.krippendorff_alpha(frame))):
        fn()
        best = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(50):
                fn()
            best.append((time.perf_counter() - start) / 50)
        out[f"per_call_{name}_s"] = float(min(best))
        out[f"per_call_{name}_median_s"] = float(np.median(best))
    print(f"per-call overhead at {int(np.count_nonzero(~np.isnan(x)))} annotations: "
          f"α nominal from the array {out['per_call_wide_s'] * 1e6:.0f} µs, from the long "
          f"DataFrame {out['per_call_long_s'] * 1e6:.0f} µs (best of 5 × 50; target ≤ 300 µs)")

    first_code = (
        "import time, numpy as np\n"
        "from benchmarks.bench_peers import Data\n"
        "x = Data(1000).get('wide')\n"
        "import kappalab as kl\n"
        "t = time.perf_counter(); kl.krippendorff_alpha(x); first = time.perf_counter() - t\n"
        "later = []\n"
        "for _ in range(20):\n"
        "    t = time.perf_counter(); kl.krippendorff_alpha(x)"
        "; later.append(time.perf_counter() - t)\n"
        "print(first, float(np.median(later)))\n")
    pairs = [tuple(map(float, run_python(first_code).split())) for _ in range(max(3, repeat))]
    firsts, laters = zip(*pairs)
    out["first_call_s"] = float(np.median(firsts))
    out["later_call_s"] = float(np.median(laters))
    out["first_call_ratio"] = out["first_call_s"] / out["later_call_s"]
    print(f"first α call in a fresh process {out['first_call_s'] * 1e3:.2f} ms, a later one "
          f"{out['later_call_s'] * 1e3:.2f} ms: {out['first_call_ratio']:.1f}× (target ≤ 5×; "
          f"median of {len(pairs)} processes)")

    timer = ("import time; t = time.perf_counter(); import {0}; "
             "print(time.perf_counter() - t)")
    # with Python's bytecode cache (written by an untimed first import), as an installed
    # package is imported: with PYTHONDONTWRITEBYTECODE set and no cache every module of
    # kappalab would be compiled again in each process
    run_python(timer.format("kappalab"), bytecode=True)
    kl_times, np_times = [], []
    for _ in range(max(5, repeat)):
        kl_times.append(float(run_python(timer.format("kappalab"), bytecode=True)))
        np_times.append(float(run_python(timer.format("numpy, pandas"), bytecode=True)))
    out["import_kappalab_s"] = float(np.median(kl_times))
    out["import_numpy_pandas_s"] = float(np.median(np_times))
    out["import_ratio"] = out["import_kappalab_s"] / out["import_numpy_pandas_s"]
    print(f"import kappalab {out['import_kappalab_s'] * 1e3:.0f} ms, import numpy, pandas "
          f"{out['import_numpy_pandas_s'] * 1e3:.0f} ms: {out['import_ratio']:.2f}× "
          f"(with the bytecode cache; target ≤ 1.2×; medians of {len(kl_times)} interleaved "
          "processes)")
    return out


MEMORY_CODE = """
import tracemalloc, time
from benchmarks.bench_peers import Data
d = Data({size})
{setup}
args = {args}
fn = {fn}
tracemalloc.start()
fn(*args)
print(tracemalloc.get_traced_memory()[1])
"""


def memory_rows() -> list[dict[str, Any]]:
    """Peak memory (``tracemalloc``, numpy's buffers included) of one call, each in a fresh
    process, the inputs built before tracing starts. (evalica allocates in Rust, which
    ``tracemalloc`` does not see: it has no row.)"""
    cases = [
        ("Cohen κ, 1 M int64 pairs", 2_000_000, "kappalab", "import kappalab as kl",
         "d.get('pairs')", "kl.cohen_kappa"),
        ("Cohen κ, 1 M int64 pairs", 2_000_000, "sklearn cohen_kappa_score",
         "from sklearn.metrics import cohen_kappa_score", "d.get('pairs')",
         "cohen_kappa_score"),
        ("α nominal, 1 M annotations", 1_000_000, "kappalab (array)", "import kappalab as kl",
         "(d.get('wide'),)", "kl.krippendorff_alpha"),
        ("α nominal, 1 M annotations", 1_000_000, "kappalab (long DataFrame)",
         "import kappalab as kl", "(d.get('long'),)", "kl.krippendorff_alpha"),
        ("α nominal, 1 M annotations", 1_000_000, "krippendorff.alpha",
         "import krippendorff", "(d.get('rt'),)",
         "lambda x: krippendorff.alpha(reliability_data=x, level_of_measurement='nominal')"),
    ]
    out = []
    for work, size, who, setup, args, fn in cases:
        try:
            peak = int(run_python(MEMORY_CODE.format(size=size, setup=setup, args=args, fn=fn)))
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            peak = None
            print(f"memory {work} {who}: {error}")
        out.append({"work": work, "who": who, "peak_bytes": peak})
        if peak is not None:
            print(f"peak memory  {work:28s} {who:28s} {timing.fmt_bytes(peak)}")
    return out


# --------------------------------------------------------------------------- main
def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-annotations", type=int, default=SIZES[-1])
    parser.add_argument("--quick", action="store_true",
                        help="at most 100 000 annotations and 3 repeats")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds a peer call may take (extrapolated from the size before)")
    parser.add_argument("--memory-limit", type=float, default=4.0,
                        help="GiB a peer call may need (estimated before it runs)")
    parser.add_argument("--budget", type=float, default=8.0,
                        help="seconds of timed calls per cell, at most")
    parser.add_argument("--json", type=Path, default=None, help="write the results here")
    parser.add_argument("--skip-floors", action="store_true")
    parser.add_argument("--only", default=None, metavar="TEXT",
                        help="only the rows and floors whose work contains TEXT (e.g. "
                             "'Fleiss'), without the overheads and memory; a partial run, "
                             "which performance_table refuses")
    args = parser.parse_args(argv)
    limit = min(args.max_annotations, 100_000) if args.quick else args.max_annotations
    repeat = min(args.repeat, 3) if args.quick else args.repeat
    sizes = [s for s in SIZES if s <= limit]

    load = timing.header("kappalab / peer, every coefficient a peer offers, 1 000 to "
                         f"{sizes[-1]:,} annotations")
    from importlib.metadata import version

    peers = {name: version(name) for name in (
        "krippendorff", "evalica", "scikit-learn", "statsmodels", "irrCAC", "pingouin", "nltk",
        "crowd-kit", "rater-agreement", "raterkit")}
    print("peers: " + ", ".join(f"{k} {v}" for k, v in peers.items()))
    print(f"OMP_NUM_THREADS = {os.environ.get('OMP_NUM_THREADS')!r}; sizes {sizes}; up to "
          f"{repeat} interleaved pairs per cell after a warm-up, ≤ {args.budget:g} s each")
    started = time.perf_counter()
    rows = [row for row in build_rows() if args.only is None or args.only in row.work]
    if not rows and args.only is not None and args.skip_floors:
        raise SystemExit(f"no row's work contains {args.only!r}")
    # one untimed pass at the smallest size first: the first call of each code path in a
    # process (lazy imports, caches) is measured on its own below, not inside the table
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        measure(rows, [SIZES[0]], 1, args.time_limit, args.memory_limit * GIB, 0.1)
    table = measure(rows, sizes, repeat, args.time_limit, args.memory_limit * GIB, args.budget)
    fixed_costs(rows, table, repeat, args.budget)
    floor_sizes = [s for s in (1_000_000, 10_000_000) if s <= limit] or [sizes[-1]]
    floors = [] if args.skip_floors else floor_rows(floor_sizes, repeat, 3 * args.budget,
                                                    args.only)
    extra = overheads(repeat) if args.only is None else {}
    memory = memory_rows() if args.only is None else []

    disagree = [(r.work, r.peer, c.size, c.diff if c.status == "ok" else c.note)
                for r in table for c in r.cells if not c.agree]
    slower = [(r.work, r.kl_input, r.peer, c.size, c.ratio) for r in table for c in r.cells
              if c.ratio is not None and c.ratio > 1.0]
    print()
    print(f"cells with kappalab slower than the peer (ratio > 1.0): {len(slower)}")
    for work, kl_input, peer, size, ratio in slower:
        print(f"   {work} ({kl_input}) vs {peer} at {size:,}: {ratio:.2f}")
    for work, peer, size, diff in disagree:
        print(f"DISAGREE: {work} vs {peer} at {size:,}: "
              + (f"|Δ| = {diff:.3g}" if isinstance(diff, float) else diff))
    wall = time.perf_counter() - started
    others = load.report()
    payload = {
        "benchmark": "peers", "sizes": sizes, "repeat": repeat, "peers": peers,
        "omp_num_threads": os.environ.get("OMP_NUM_THREADS"),
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "machine": machine(), "wall_s": wall, "others_cpu_share": others,
        "table": [{**{k: v for k, v in asdict(r).items() if k != "cells"},
                   "cells": [asdict(c) for c in r.cells]} for r in table],
        "floors": floors, "overheads": extra, "memory": memory,
        "slower": len(slower), "agree": not disagree, "only": args.only,
        "fixed_cost_size": FIXED_COST_SIZE,
        "target": "every ratio <= 1.0", "target_met": not slower and all(
            f["met"] for f in floors),
    }
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(payload, indent=1, default=float))
        print(f"results written to {args.json}")
    print(f"bench_peers took {wall:.0f} s")
    timing.emit_result(payload)
    return 0 if not disagree else 1


def machine() -> str:
    import platform

    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        cpus = os.cpu_count() or 1
    return (f"{cpus} CPUs, {platform.system()} {platform.machine()}, Python "
            f"{platform.python_version()}, numpy {np.__version__}, pandas {pd.__version__}")


if __name__ == "__main__":
    sys.exit(main())
