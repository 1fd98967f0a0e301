r"""Shared plumbing of the SPA reproduction scripts (Nørregaard & Derczynski 2022, Figs 4–7 and
Table 1): arguments, the simulated stand-ins of the paper's four datasets, and the vectorised
subsampling engine of Figs 6–7.

Every script takes ``--quick`` (a tiny run, used by ``tests/test_spa_repro.py``), ``--out DIR``
(default ``results/paper_repro``) and ``--seed``; writes its PNG and CSV (and a markdown table
where there is one) there, and prints where.

Stand-in datasets
-----------------
DAR, MBIC, BSMTWE and FECG are not available offline. :func:`simulate_dataset` draws datasets
of the same *shape* — items, classes, annotations per item — with
:func:`kappalab.simulate.annotations` (nominal Dirichlet–multinomial model, labels missing
completely at random); prevalence, reliability and the pmf of annotations per item are
plausible choices, not the real datasets' (see ``DATASETS``). Items are easy or hard
(``heterogeneity``), so that items differ in their true agreement as real items do: this
between-item spread is what makes flatter weights than edges competitive.

Subsampling engine
------------------
Annotations are held as an items × M matrix of class codes (−1 = none), M the largest number of
annotations per item. A round of "annotations added one at a time at random" is a random
permutation of all A annotations (``rng.permuted`` on a rounds × A block: every annotation's
rank). One sort per item row of rank·C + class orders each item's annotations by arrival and
carries the classes along; with s_j the number of the item's earlier arrivals in the class of
its (j + 1)-th, its ordered agreeing pairs after that arrival are 2·Σ_{l≤j} s_l, hence its
agreement P_j. The annotations on pairable items after every prefix (+2 when an item gets its
second annotation, +1 after) are scattered to the arrivals' ranks and cumulated, which gives,
per round, the first prefix reaching each target N. Every arrival then falls in a bin (the
number of targets whose prefix ends before it) and ``np.bincount`` on (round, bin, slot) keys
sums, per slot j, the arrivals and their P just after and just before: any weighting k(n) is
then Σ_i k_i P_i = Σ_j k(j+1)·ΣP_after − k(j)·ΣP_before and Σ_i k_i = Σ_j (k(j+1) − k(j))·count,
cumulated over bins — exact SPA for every scheme at every target in every round, with no Python
loop over rounds, items or annotations (only over blocks of rounds and the ≤ M slots).
"Constant j annotations per item" reuses the arrivals: an item's first j arrivals are a
uniformly random j-subset of its annotations; the items come in a random order per round
(``rng.permuted``) and SPA over the first n items with ≥ j annotations is a cumulative mean.
"""

from __future__ import annotations

import argparse
import time
import zlib
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Callable, Iterable, Sequence

import matplotlib

matplotlib.use("Agg")  # files only, no display

import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

import kappalab as kl  # noqa: E402
from kappalab import simulate  # noqa: E402

from paper_repro.reporting import fmt, parse_args as _shared_parse_args  # noqa: E402, F401

DEFAULT_OUT = Path(__file__).resolve().parents[1] / "results" / "paper_repro"

PAPER = ("Nørregaard, J. & Derczynski, L. (2022). Sparse Probability of Agreement. "
         "arXiv:2208.06161")

STAND_IN_NOTE = (
    "SIMULATED STAND-INS: DAR, MBIC, BSMTWE and FECG are not available offline; these are "
    "datasets of the same shape (items, classes, annotations per item) simulated with "
    "kappalab.simulate.annotations (nominal, MCAR) with assumed prevalence and reliability. "
    "Numbers are comparable to the paper's in kind, not dataset for dataset."
)
SHORT_NOTE = "simulated stand-ins of DAR, MBIC, BSMTWE, FECG (real data not available offline)"

NO_DATA_NOTE = ("This figure uses no data: the weights are analytic (kappalab.spa_weights). "
                "The datasets' simulated stand-ins appear in Figs 6–7 and Table 1 only.")

#: the weighting schemes, in the paper's order
SCHEMES = ("flat", "annotations", "annotations_m1", "edges", "inv_var", "inv_var_class")

#: the stand-ins: shape from the paper (§datasets); prevalence, reliability, heterogeneity and
#: the pmf of annotations per item are assumptions
DATASETS: dict[str, dict[str, Any]] = {
    "DAR": {
        "title": "Discourse Acts on Reddit (Zhang et al. 2017)",
        "n_items": 115_000, "n_categories": 10,
        # answer, elaboration, question, appreciation, agreement, disagreement, humor,
        # negative reaction, announcement, other
        "prevalence": (0.38, 0.20, 0.17, 0.08, 0.05, 0.04, 0.03, 0.02, 0.02, 0.01),
        "reliability": 0.55, "heterogeneity": 0.6,
        "annotations_per_item": {1: 0.10, 2: 0.25, 3: 0.65},
    },
    "MBIC": {
        "title": "Media Bias Annotation Dataset (Spinde et al. 2021)",
        "n_items": 1_700, "n_categories": 2,
        "prevalence": (0.55, 0.45),  # biased, non-biased
        "reliability": 0.20, "heterogeneity": 0.6,
        "annotations_per_item": (9, 12),
    },
    "BSMTWE": {
        "title": "Brazilian Stock Market Tweets with Emotions (Vieira da Silva et al. 2020)",
        "n_items": 4_553, "n_categories": 4,
        "prevalence": (0.45, 0.20, 0.20, 0.15),  # neutral, trust, distrust, don't know
        "reliability": 0.40, "heterogeneity": 0.6,
        "annotations_per_item": {1: 0.25, 2: 0.30, 3: 0.20, 4: 0.12, 5: 0.08, 6: 0.05},
    },
    "FECG": {
        "title": "Facial Expression Comparison (Vemulapalli & Agarwala 2019)",
        "n_items": 51_042, "n_categories": 3,
        "prevalence": (0.36, 0.33, 0.31),  # which face of the triplet is the odd one
        "reliability": 0.50, "heterogeneity": 0.6,
        "annotations_per_item": {5: 0.05, 6: 0.55, 7: 0.10, 8: 0.08, 9: 0.07, 10: 0.06,
                                 11: 0.05, 12: 0.04},
    },
}

#: --quick: items divided by this (at least QUICK_MIN_ITEMS)
QUICK_DIVISOR = 100
QUICK_MIN_ITEMS = 200


# ============================================================================== arguments, io
def parse_args(description: str, argv: list[str] | None = None,
               extra: Iterable[tuple[str, dict]] = ()) -> argparse.Namespace:
    """The shared paper_repro arguments, with the SPA scripts' seed."""
    return _shared_parse_args(description, argv, extra, default_seed=20220812)


def markdown_table(frame: pd.DataFrame, digits: int = 4) -> str:
    """A GitHub-flavoured markdown table (no tabulate dependency)."""
    header = [str(c) for c in frame.columns]
    rows = [[fmt(v, digits) for v in row] for row in frame.itertuples(index=False, name=None)]
    widths = [max([len(h)] + [len(r[k]) for r in rows]) for k, h in enumerate(header)]

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths)) + " |"

    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
                     + [line(r) for r in rows])


class Timer:
    def __init__(self):
        self.start = time.perf_counter()

    def __str__(self) -> str:
        return f"{time.perf_counter() - self.start:.1f} s"


# ============================================================================== weights
def entropy(p: np.ndarray) -> np.ndarray:
    """Shannon entropy in nats along the last axis (0 log 0 = 0)."""
    p = np.asarray(p, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        return -np.where(p > 0, p * np.log(p), 0.0).sum(axis=-1)


def weight_table(scheme: str, max_n: int, n_classes: int,
                 class_distribution: Any = None) -> np.ndarray:
    """k(n) for n = 0..max_n (0 for n < 2), from :func:`kappalab.spa_weights`."""
    return kl.spa_weights(np.arange(max_n + 1), scheme=scheme, n_classes=n_classes,
                          class_distribution=class_distribution)


# ============================================================================== model theory
def dirichlet_agreement_moments(alpha: np.ndarray) -> tuple[float, float, float]:
    """E[a], E[b], E[a²] for θ ~ Dirichlet(α), a = Σθ_c², b = Σθ_c³ (Dirichlet moments:
    E[θ_c^k] = α_c^(k)/α₀^(k), E[θ_c²θ_d²] = α_c^(2)α_d^(2)/α₀^(4), rising factorials)."""
    a0 = alpha.sum()
    r2, r3 = alpha * (alpha + 1), alpha * (alpha + 1) * (alpha + 2)
    r4 = r3 * (alpha + 3)
    e_a = r2.sum() / (a0 * (a0 + 1))
    e_b = r3.sum() / (a0 * (a0 + 1) * (a0 + 2))
    e_a2 = (r4.sum() + r2.sum() ** 2 - (r2 ** 2).sum()) / (a0 * (a0 + 1) * (a0 + 2) * (a0 + 3))
    return float(e_a), float(e_b), float(e_a2)


def item_agreement_spread(truth: simulate.Truth, j: int) -> tuple[float, float]:
    """(mean, variance) over the simulated population of items of an item's agreement from j
    of its annotations: items easy or hard (½ each) with θ_i ~ Dirichlet(τ_i π), and given θ the
    j annotations iid, P̂ a U-statistic of order 2 with Var = (4(j−2)ζ₁ + 2ζ₂)/(j(j−1)),
    ζ₁ = b − a², ζ₂ = a(1 − a). Variance = E[within] + Var(a) (between items)."""
    mean, within, between = item_agreement_components(truth, j)
    return mean, within + between


def item_agreement_components(truth: simulate.Truth, j: int) -> tuple[float, float, float]:
    """(mean, within, between) of :func:`item_agreement_spread`: ``within`` = E over items of
    the pair noise of j annotations given θ_i, ``between`` = Var(Σθ_c²), the spread of the
    items' true agreement (the same for every j)."""
    pi = np.asarray(truth.prevalence, dtype=float)
    moments = [dirichlet_agreement_moments(tau * pi) for tau in truth.details["class_tau"]]
    e_a = np.mean([m[0] for m in moments])
    within = np.mean([(4 * (j - 2) * (b - a2) + 2 * (a - a2)) / (j * (j - 1))
                      for a, b, a2 in moments])
    between = np.mean([m[2] for m in moments]) - e_a ** 2
    return float(e_a), float(within), float(between)



def model_optimal_table(truth: simulate.Truth, max_n: int) -> np.ndarray:
    """Oracle weights k(n) = 1/Var[P̂_n] of the simulation model (0 for n < 2): inverse-variance
    weights that know the between-item spread of agreement, which inv_var(_class) ignore."""
    k = np.zeros(max_n + 1)
    for n in range(2, max_n + 1):
        k[n] = 1.0 / item_agreement_spread(truth, n)[1]
    return k


# ============================================================================== datasets
@dataclass
class Dataset:
    """A stand-in: ``labels`` items × M class codes (−1 = none, annotations left-aligned),
    ``m`` annotations per item, ``truth`` the simulation's exact population truths."""

    name: str
    labels: np.ndarray
    m: np.ndarray
    n_classes: int
    truth: simulate.Truth | None
    spec: dict[str, Any]

    @classmethod
    def from_annotations(cls, ann: kl.Annotations, name: str) -> "Dataset":
        """Any (real) dataset: ``ann``'s items × categories, raters ignored; no population
        truth (``truth`` None: no model theory, no oracle weights)."""
        labels, m = padded_labels(ann)
        return cls(name, labels, m, n_classes=len(ann.categories), truth=None,
                   spec={"title": name, "n_items": ann.n_items, "n_categories":
                         len(ann.categories), "n_items_simulated": None})

    @property
    def n_items(self) -> int:
        return int(self.labels.shape[0])

    @property
    def max_m(self) -> int:
        return int(self.labels.shape[1])

    @property
    def n_annotations(self) -> int:
        return int(self.m.sum())

    @property
    def pairable_annotations(self) -> int:
        """Annotations on items with two or more: the largest 'annotations used'."""
        return int(self.m[self.m >= 2].sum())

    @cached_property
    def flat_positions(self) -> np.ndarray:
        """Position of every annotation in ``labels.ravel()``, annotations in item order."""
        return np.flatnonzero(self.labels.ravel() >= 0)

    def class_distribution(self) -> np.ndarray:
        """Pooled class shares of the annotations on pairable items (full data)."""
        lab = self.labels[self.m >= 2]
        counts = np.bincount(lab[lab >= 0], minlength=self.n_classes).astype(float)
        return counts / counts.sum()

    def annotations(self) -> kl.Annotations:
        item, pos = np.nonzero(self.labels >= 0)
        return kl.Annotations.from_long(pd.DataFrame(
            {"item": item, "rater": pos, "value": self.labels[item, pos]}),
            categories=list(range(self.n_classes)))

    def describe(self) -> str:
        counts = np.bincount(self.m)
        share = ", ".join(f"{k}: {c / self.n_items:.0%}" for k, c in enumerate(counts) if c)
        text = (f"{self.name}: {self.n_items} items, {self.n_classes} classes, "
                f"{self.n_annotations} annotations ({share} of items by annotations)")
        if self.truth is None:
            return text
        return f"{text}, true P = {self.truth.p_o:.4f}, reliability {self.spec['reliability']}"

    def shape(self) -> str:
        """One line: items, classes, annotations and their range per item."""
        m = self.m[self.m > 0]
        return (f"{self.n_items} items, {self.n_classes} classes, {self.n_annotations} "
                f"annotations, {m.min()}–{m.max()} per item")


def dataset_names() -> list[str]:
    return list(DATASETS)


def dataset_seed(name: str, seed: int) -> list[int]:
    """The simulation seed of a stand-in (the same in every script, so Figs 6 and 7 and
    Table 1 use the same simulated datasets)."""
    return [seed, list(DATASETS).index(name)]


def subsampling_rng(name: str, seed: int) -> np.random.Generator:
    """The subsampling generator of dataset ``name`` (a stand-in's index, or a CRC of any other
    name, so that every dataset gets its own stream from one ``seed``)."""
    key = list(DATASETS).index(name) if name in DATASETS else zlib.crc32(name.encode())
    return np.random.default_rng([seed, key, 1])


def run_per_dataset(task: Callable[[str], Any], names: Sequence[str], jobs: int) -> dict[str, Any]:
    """``task(name)`` for every dataset, in ``jobs`` processes (largest datasets first)."""
    names = sorted(names, key=lambda n: -DATASETS[n]["n_items"] * _mean_m(n))
    if jobs <= 1:
        return {name: task(name) for name in names}
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = {name: pool.submit(task, name) for name in names}
        return {name: futures[name].result() for name in names}


def _mean_m(name: str) -> float:
    pmf = simulate.annotation_count_pmf(DATASETS[name]["annotations_per_item"])
    return float(np.arange(pmf.size) @ pmf)


def simulate_dataset(name: str, *, quick: bool = False, seed: int = 0) -> Dataset:
    """Simulate the stand-in ``name`` (``quick``: items ÷ 100, at least 200) from the base
    ``seed`` (see :func:`dataset_seed`)."""
    spec = dict(DATASETS[name])
    n_items = spec["n_items"]
    if quick:
        n_items = max(QUICK_MIN_ITEMS, n_items // QUICK_DIVISOR)
    spec["n_items_simulated"] = n_items
    ann, truth = simulate.annotations(
        n_items, level="nominal", n_categories=spec["n_categories"],
        prevalence=spec["prevalence"], reliability=spec["reliability"],
        heterogeneity=spec["heterogeneity"],
        annotations_per_item=spec["annotations_per_item"], seed=dataset_seed(name, seed))
    return Dataset(name, *padded_labels(ann), n_classes=spec["n_categories"], truth=truth,
                   spec=spec)


def padded_labels(ann: kl.Annotations) -> tuple[np.ndarray, np.ndarray]:
    """(items × M class codes, −1 = none; annotations per item) from an Annotations."""
    long = ann.to_long()
    item = pd.Index(ann.items).get_indexer(long["item"])
    code = pd.Index(ann.categories).get_indexer(long["value"])
    order = np.argsort(item, kind="stable")
    item, code = item[order], code[order]
    m = np.bincount(item, minlength=ann.n_items)
    start = np.cumsum(m) - m
    slot = np.arange(item.size) - start[item]
    labels = np.full((ann.n_items, max(int(m.max()), 1)), -1, dtype=np.int64)
    labels[item, slot] = code
    return labels, m


# ============================================================================== components
def falling(n: np.ndarray, r: int) -> np.ndarray:
    """The falling factorial n(n − 1)…(n − r + 1), elementwise (0 when n < r)."""
    n = np.asarray(n, dtype=float)
    out = np.ones_like(n)
    for k in range(r):
        out = out * np.maximum(n - k, 0.0)
    return out


def subset_agreement_components(ds: Dataset, j: int) -> dict[str, float]:
    """Exact variance components of "j annotations per item" on the data themselves.

    Over the items with ≥ j annotations (``eligible`` of them), an item's agreement from a
    uniformly random j of its m annotations, P̂_j, has mean P_i (the item's agreement from all
    m) and, given the item, a variance w_i from the multivariate hypergeometric factorial
    moments E[k_c^(r)] = j^(r) n_c^(r)/m^(r) and E[k_c^(2) k_d^(2)] = j^(4) n_c^(2) n_d^(2)/m^(4)
    (c ≠ d), with (k^(2))² = k^(4) + 4k^(3) + 2k^(2). Returns ``within`` = mean w_i (pair noise:
    which j annotations) and ``between`` = the population variance of P_i over the eligible
    items (the items' agreement differs). SPA of n eligible items drawn without replacement,
    each with its own random j-subset, then has variance exactly
    (within + between·(eligible − n)/(eligible − 1))/n: see :func:`constant_j_variance`."""
    keep = ds.m >= j
    lab = ds.labels[keep]
    m = ds.m[keep].astype(float)
    rows = np.repeat(np.arange(lab.shape[0]), lab.shape[1])
    flat = lab.ravel()
    ok = flat >= 0
    counts = np.bincount(rows[ok] * ds.n_classes + flat[ok],
                         minlength=lab.shape[0] * ds.n_classes).reshape(-1, ds.n_classes)

    def ratio(r):  # j^(r)/m^(r) (0 when j < r)
        top = falling(np.array(float(j)), r)
        return np.where(top > 0, top / np.where(top > 0, falling(m, r), 1.0), 0.0)

    n2, n3, n4 = falling(counts, 2), falling(counts, 3), falling(counts, 4)
    full = n2.sum(axis=1) / falling(m, 2)  # P_i
    pairs = n2.sum(axis=1)
    cross = pairs ** 2 - (n2 ** 2).sum(axis=1)  # Σ_{c≠d} n_c^(2) n_d^(2)
    second = (ratio(4) * (n4.sum(axis=1) + cross) + 4 * ratio(3) * n3.sum(axis=1)
              + 2 * ratio(2) * pairs) / falling(np.array(float(j)), 2) ** 2
    within = np.maximum(second - full ** 2, 0.0)
    return {"j": j, "eligible": int(keep.sum()), "mean": float(full.mean()),
            "within": float(within.mean()), "between": float(full.var())}


def constant_j_variance(components: dict[str, float], n_items: np.ndarray) -> np.ndarray:
    """Exact variance of SPA over ``n_items`` random eligible items with j random annotations
    each (``components`` from :func:`subset_agreement_components`): the within part has no
    finite-population factor (each item's j-subset is drawn independently), the between part
    has (E − n)/(E − 1)."""
    n = np.asarray(n_items, dtype=float)
    e = components["eligible"]
    fpc = (e - n) / max(e - 1, 1)
    return (components["within"] + components["between"] * fpc) / n


# ============================================================================== engine
def same_class_before(labels: np.ndarray, axis: int) -> np.ndarray:
    """s_j = #{l < j : label_l == label_j} along ``axis`` (a loop over its ≤ M slots)."""
    lab = np.moveaxis(labels, axis, 0)
    s = np.zeros(lab.shape, dtype=np.int64)
    for j in range(1, lab.shape[0]):
        s[j] = (lab[:j] == lab[j]).sum(axis=0)
    return np.moveaxis(s, 0, axis)


def arrival_agreements(ds: Dataset, ranks: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Every item's annotations in arrival order, for a block of R rounds.

    ``ranks`` (R × A): the position at which each annotation (in
    :attr:`Dataset.flat_positions` order) is added. Returns ``rank`` and ``agreement``, both
    (R, M, I) — slot j holds the item's (j + 1)-th arrival (rank A where the item has fewer
    annotations) and the item's agreement P just after it (0 at slot 0)."""
    R, A = ranks.shape
    I, M = ds.labels.shape
    C = ds.n_classes
    # one sort of rank·C + label per item row orders ranks and carries the labels along
    combined = np.full((R, I * M), A * C, dtype=np.int64)
    positions = ds.flat_positions
    combined[:, positions] = ranks * C + ds.labels.ravel()[positions]
    combined = np.sort(combined.reshape(R, I, M), axis=-1)
    rank, labels = np.divmod(np.ascontiguousarray(combined.transpose(0, 2, 1)), C)
    agree_pairs = 2 * np.cumsum(same_class_before(labels, axis=1), axis=1)  # ordered pairs
    n = np.arange(1, M + 1)
    possible = np.maximum(n * (n - 1), 1)[None, :, None]
    return rank, agree_pairs / possible


def used_increments(max_m: int) -> np.ndarray:
    """Change of the annotations on pairable items when an item gets its (j + 1)-th
    annotation: 0, then 2 (the item becomes pairable), then 1."""
    inc = np.ones(max_m)
    inc[0] = 0.0
    if max_m > 1:
        inc[1] = 2.0
    return inc


def first_reaching(path: np.ndarray, targets: np.ndarray) -> np.ndarray:
    """Per round (row), the first index at which the non-decreasing ``path`` is ≥ each target:
    (R, T), one searchsorted for all rounds."""
    R, A = path.shape
    span = float(path[:, -1].max()) + 1.0
    offset = span * np.arange(R)[:, None]
    flat = np.searchsorted((path + offset).ravel(), targets[None, :] + offset, "left")
    return flat - A * np.arange(R)[:, None]


def random_addition_block(ds: Dataset, ranks: np.ndarray, targets: np.ndarray,
                          tables: dict[str, np.ndarray], item_order: np.ndarray | None = None,
                          constant: dict[int, np.ndarray] | None = None
                          ) -> dict[str, np.ndarray]:
    """SPA per scheme (R × T) for the rounds of ``ranks`` (R × A, each row a permutation of
    0..A−1), read at the first prefix whose annotations on pairable items reach each target.

    Also returns ``"_used"`` (the annotations on pairable items there: the target or one more)
    and ``"_prefix"`` (N, the number of annotations added). Every scheme is linear in two
    binned sums per slot j (Σ P just after the (j+1)-th arrivals and Σ P just before them), so
    a scheme costs O(R·T·M) once the arrivals are binned.

    ``constant`` = {j: item counts} adds ``"constant_j"`` (R × len(counts)): SPA over the first
    ``counts`` items, in ``item_order`` (R × I, a permutation of all items per round), of the
    items with ≥ j annotations, each with its first j arrivals — a uniformly random j-subset.
    """
    R, A = ranks.shape
    M, T, I = ds.max_m, targets.size, ds.n_items
    rank, agreement = arrival_agreements(ds, ranks)
    rows = np.arange(R)[:, None, None]
    at = (rows * (A + 1) + rank).ravel()  # rank A (no annotation) -> a spare column
    # annotations on pairable items after every prefix (exact, per round)
    step = np.zeros((R, A + 1))
    step.ravel()[at] = np.broadcast_to(used_increments(M)[None, :, None], rank.shape).ravel()
    used = np.cumsum(step[:, :A], axis=1)
    last = first_reaching(used, targets.astype(float))  # 0-based index of the prefix's end
    # bin of every arrival: the number of targets whose prefix ends before it (T: none)
    marks = np.bincount((np.arange(R)[:, None] * (A + 1) + last + 1).ravel(),
                        minlength=R * (A + 1))
    bins = np.cumsum(marks.reshape(R, A + 1), axis=1).ravel()[at]
    key = (np.repeat(np.arange(R), M * I) * (T + 1) + bins) * M \
        + np.tile(np.repeat(np.arange(M), I), R)
    size = R * (T + 1) * M

    def binned(weights=None):
        total = np.bincount(key, weights=weights, minlength=size).reshape(R, T + 1, M)
        return np.cumsum(total[:, :T], axis=1)  # sums over the arrivals of each prefix

    count = binned()
    after = binned(agreement.ravel())
    before = np.zeros_like(agreement)
    before[:, 1:] = agreement[:, :-1]
    before = binned(before.ravel())
    out = {"_used": used[np.arange(R)[:, None], last], "_prefix": last + 1.0}
    for name, table in tables.items():
        k_now, k_before = table[1:M + 1], table[:M]
        out[name] = (after @ k_now - before @ k_before) / (count @ (k_now - k_before))
    for j, counts in (constant or {}).items():
        out[f"constant_{j}"] = constant_from_arrivals(agreement, ds.m, j, item_order, counts)
    return out


def constant_from_arrivals(agreement: np.ndarray, m: np.ndarray, j: int, item_order: np.ndarray,
                           item_counts: np.ndarray) -> np.ndarray:
    """SPA (R × len(item_counts)) of the first ``item_counts`` items with ≥ j annotations in
    ``item_order``, each item's agreement over its first j arrivals (``agreement[:, j − 1]``,
    from :func:`arrival_agreements`). All items have j annotations: every scheme is the mean."""
    R = agreement.shape[0]
    eligible = m[item_order] >= j
    p = np.take_along_axis(agreement[:, j - 1, :], item_order, axis=1)
    running = np.cumsum(np.where(eligible, p, 0.0), axis=1)
    reached = first_reaching(np.cumsum(eligible, axis=1).astype(float),
                             np.asarray(item_counts, dtype=float))
    return running[np.arange(R)[:, None], reached] / item_counts


def chunk_size(ds: Dataset, budget: int = 2_000_000) -> int:
    return max(1, budget // max(1, ds.n_items * ds.max_m))


def random_addition(ds: Dataset, targets: np.ndarray, tables: dict[str, np.ndarray],
                    rounds: int, rng: np.random.Generator,
                    constant: dict[int, np.ndarray] | None = None) -> dict[str, np.ndarray]:
    """:func:`random_addition_block` over ``rounds`` rounds, in blocks of rounds (a random
    permutation of the annotations per round, and of the items when ``constant`` is given)."""
    A, I = ds.n_annotations, ds.n_items
    parts = []
    step = chunk_size(ds)
    for lo in range(0, rounds, step):
        R = min(step, rounds - lo)
        ranks = rng.permuted(np.tile(np.arange(A), (R, 1)), axis=1)
        order = rng.permuted(np.tile(np.arange(I), (R, 1)), axis=1) if constant else None
        parts.append(random_addition_block(ds, ranks, targets, tables, order, constant))
    return {name: np.concatenate([p[name] for p in parts]) for name in parts[0]}


def usage_grid(ds: Dataset, n_points: int, start: int = 10) -> np.ndarray:
    """Log-spaced targets of annotations used (on items with ≥ 2), from ``start`` to all."""
    top = ds.pairable_annotations
    return np.unique(np.round(np.geomspace(min(start, top), top, n_points)).astype(np.int64))


def batch_variances(values: np.ndarray, n_batches: int) -> np.ndarray:
    """Variance over rounds within each of ``n_batches`` consecutive batches of rounds: (B, T)."""
    return np.stack([b.var(axis=0, ddof=1) for b in np.array_split(values, n_batches, axis=0)])


def trapezoid(y: np.ndarray, x: np.ndarray) -> np.ndarray:
    """∫ y dx along the last axis (trapezoid rule)."""
    y = np.asarray(y, dtype=float)
    x = np.asarray(x, dtype=float)
    return ((y[..., 1:] + y[..., :-1]) * np.diff(x) / 2).sum(axis=-1)
