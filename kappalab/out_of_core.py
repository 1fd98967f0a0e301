r"""Agreement out of core: item-sum estimators on a Dask DataFrame of long annotations.

Every coefficient of kappalab is ``combine(Σ_i s_i)``
(docs/architecture.md, "The item-sum spine"), and a sum over items is a sum over any
partition of the items into groups; the design is in docs/architecture.md, "Out of core". So an
estimator runs on data that do not fit in memory — a Parquet data set read by
``dask.dataframe.read_parquet``, on one machine or a cluster — by forming each partition's
item statistics with the *same core* the in-memory estimator uses and adding the totals:

1. **The global scale.** The categories (the distinct values, sorted as
   :meth:`~kappalab.Annotations.from_long` sorts them, unless ``categories=`` gives them), the
   number of raters and of missing values come from one pass. Every partition is then read
   with these categories, so the item statistics of all partitions are on one scale and can
   be added. Krippendorff's ordinal metric depends on the pairable marginals of the whole
   data set: they are one more pass (the pairable items' category counts,
   ``kappalab.coefficients.multirater.pairable_marginals``, summed over partitions),
   and the distance is resolved once from them (as are SPA's inverse-variance weights from
   the class distribution).
2. **Items whole in one partition.** An item's statistics need all of its annotations, so
   an item whose rows are in two partitions would count as two items. Whether the
   partitions hold whole items is never taken on trust — not from an index with known
   divisions either, which ``read_parquet(..., calculate_divisions=True)`` takes from the
   files' statistics even when one item's rows end one file and begin the next. The pass of
   step 1 also returns each partition's smallest and largest item label; when these ranges
   are disjoint, no item can be in two partitions and the frame is read as it is (files
   sorted by item and cut between items, whether or not the frame is indexed by the item).
   Otherwise the rows are shuffled on the item column (``DataFrame.shuffle(on=item)``; hash
   partitioning, so an item's rows land together). ``partitioned_by_item=True`` claims that
   the partitions hold whole items in any order (e.g. Parquet files of one hash group of
   items each): without the ranges' proof, one pass over each partition's distinct labels
   counts the partitions of every label, far less work than the shuffle it saves, and an
   item found in two partitions is refused by name
   (:class:`~kappalab.errors.InvalidParameterError`);
   ``partitioned_by_item=False`` shuffles without looking.
3. **Totals.** Each partition builds an in-memory :class:`~kappalab.Annotations` of its items
   and the estimator's core on it, and returns its totals; a tree reduction adds them, and
   the core's ``combine`` gives the coefficient. The driver's ``combine`` runs on a core
   built from the global configuration alone (categories, distance, chance model), which is
   all a closed form of the totals depends on.
4. **Analytic standard error** (``ci="analytic"``). The linearisation needs the gradient at
   the global totals, g = ∇f(T), so a second pass forms Σ_i (g·s_i − g·T/n)² over the n items
   with statistics, and SE² = n Σ_i (g·s_i − g·T/n)² / (n − 1), as
   :func:`kappalab.uncertainty.analytic_interval` computes it in memory.
5. **Poisson bootstrap** (``ci="poisson-bootstrap"``). Each item gets, in each replicate, an
   independent Poisson(1) weight computed from its label and the seed alone
   (:func:`poisson_weights`), so a replicate is the same whatever the partitioning and
   whichever process computes it; each partition adds W·S of its items, and the replicates
   are ``combine`` of the summed B × s totals. It needs no pass beyond the totals'. Its
   percentile interval approximates the multinomial item bootstrap, whose counts are
   asymptotically independent Poisson(1) (Hanley & MacGibbon 2006; Chamandy et al. 2012).

Each pass reads the data again (and shuffles again): persist the frame (``ddf.persist()``)
when it fits in the cluster's memory. The estimators are the registry's coefficients that
run out of core (:mod:`kappalab.coefficients.registry`, capability ``"out_of_core"``) and
κx (:func:`cross_kappa`); sample weights and rater-marginal chance models (Conger's κ,
Janson–Olsson's ι, whose statistics are per rater) are not offered here.

References
----------
Hanley, J. A. & MacGibbon, B. (2006). Creating non-parametric bootstrap samples using
Poisson frequencies. *Computer Methods and Programs in Biomedicine* 83(1), 57–62.
doi:10.1016/j.cmpb.2006.04.006

Chamandy, N., Muralidharan, O., Najmi, A. & Naidu, S. (2012). Estimating uncertainty for
massive data streams. Technical report, Google.
"""

from __future__ import annotations

import functools
import inspect
import logging
import warnings
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np
import pandas as pd

from .docstrings import shared_parameters
from .alignment import AlignedReplications
from .annotations import Annotations
from .coefficients import registry
from .coefficients.cross import CrossKappa
from .coefficients.multirater import FamilyMember, pairable_marginals
from .coefficients.sparse import SparseAgreement
from .distances import CategoryDistance, category_distance
from .errors import DroppedAnnotationsWarning, InvalidParameterError, \
    UndefinedCoefficientWarning, label, warn
from .estimate import Estimate
from .uncertainty import ANALYTIC, BLOCK_CELLS, rows_with_statistics
from .validation import SeedLike, check_confidence, check_count, check_flag, make_rng, require_extra

__all__ = ["CI_METHODS", "estimate", "cross_kappa", "poisson_weights", "annotation_model"]

#: ``ci=`` of the out-of-core estimators: the in-memory linearisation
#: (:data:`kappalab.uncertainty.ANALYTIC`'s first) and the Poisson bootstrap
CI_METHODS = (ANALYTIC[0], "poisson-bootstrap")
#: the registry's capability of the coefficients :func:`estimate` runs
_CAPABILITY = "out_of_core"


@dataclass(frozen=True)
class Recipe:
    """How :func:`estimate` builds one named estimator's core.

    Parameters
    ----------
    family : str
        ``"multirater"`` (:class:`~kappalab.coefficients.multirater.ChanceCorrectedAgreement`)
        or ``"spa"`` (:class:`~kappalab.coefficients.sparse.SparseAgreement`).
    option : str
        The keyword of the estimator's distance, weights or scheme.
    default : Any
        Its default.
    kind : str
        ``"level"`` or ``"weights"`` (:func:`~kappalab.distances.category_distance`).
    chance : str
        The chance model (multirater) or ``"chance_corrected"``/``""`` (SPA).
    item_weighting : str
        ``"item"`` or ``"annotation"``.
    name : str
        The coefficient's name.
    weighted_name : str or None
        Its name with non-nominal weights.

    Examples
    --------
    >>> from kappalab.coefficients.registry import lookup
    >>> recipe = Recipe.of(lookup("alpha"))
    >>> recipe.option, recipe.default, recipe.chance
    ('level', 'nominal', 'pooled')
    """

    family: str
    option: str
    default: Any
    kind: str
    chance: str
    item_weighting: str
    name: str
    weighted_name: str | None = None

    @classmethod
    def of(cls, entry: registry.Coefficient) -> Recipe:
        """The recipe of a registry entry that runs out of core: its option, the option's
        default in the public function's signature, and its chance model and names.

        Parameters
        ----------
        entry : Coefficient
            An entry with the capability ``"out_of_core"``.

        Returns
        -------
        Recipe
        """
        if entry.option is None:
            raise InvalidParameterError(f"{entry.name} names no option keyword; an out-of-core "
                                        "entry needs its level=, weights= or scheme=")
        default = inspect.signature(entry.function).parameters[entry.option].default
        if entry.option == "scheme":  # SPA (kappalab.coefficients.sparse)
            return cls("spa", entry.option, default, "", "chance_corrected"
                       if entry.chance_corrected else "", "item", entry.display,
                       entry.weighted_display)
        if entry.chance is None or entry.item_weighting is None:
            raise InvalidParameterError(f"{entry.name} is not a coefficient of the multi-rater "
                                        "family; an out-of-core entry needs its chance model")
        return cls("multirater", entry.option, default,
                   "level" if entry.option == "level" else "weights", entry.chance,
                   entry.item_weighting, entry.display, entry.weighted_display)


def __getattr__(name: str) -> Any:
    if name == "ESTIMATORS":  # deprecated in 0.2.0: the registry is the one table
        warnings.warn(f"{__name__}.ESTIMATORS is deprecated and will be removed in 0.3.0; "
                      "use kappalab.coefficients.registry.coefficients('out_of_core')",
                      DeprecationWarning, stacklevel=2)
        return {entry.name: Recipe.of(entry) for entry in registry.coefficients(_CAPABILITY)}
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


@dataclass(frozen=True)
class _Plan:
    """What every partition needs to build its core: the columns, the global categories and
    the resolved distance (or SPA's scheme and class distribution)."""

    recipe: Recipe
    columns: tuple[str, str | None, str]
    categories: tuple
    dis: CategoryDistance | None = None
    spec: Any = None
    class_distribution: np.ndarray | None = None
    seed_key: int = 0
    n_resamples: int = 0

    @property
    def distance(self) -> CategoryDistance:
        """:attr:`dis`, resolved before any partition builds a core of a family with one."""
        assert self.dis is not None, "the distance is resolved before the partitions' pass"
        return self.dis


# ---------------------------------------------------------------------- Poisson weights
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)


@functools.cache
def _poisson_cdf() -> np.ndarray:
    """The Poisson(1) distribution function at 0 … 39, for weights by inversion of a uniform
    (computed on first use: scipy.stats is slow to import)."""
    from scipy.stats import poisson
    cdf: np.ndarray = poisson.cdf(np.arange(40), 1.0)
    return cdf


def _mix(z: np.ndarray) -> np.ndarray:
    """Steele, Lea & Flood's (2014) SplitMix64 finaliser: a bijection of 64-bit words whose
    outputs for consecutive inputs pass BigCrush, applied element-wise."""
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def _item_keys(labels: Any, seed_key: int) -> np.ndarray:
    """A 64-bit key per item from the text of its label and the seed (pandas' SipHash of the
    strings: the same in every process, unlike Python's salted ``hash``)."""
    text = pd.Index(labels).astype(str).to_numpy(dtype=object)
    hashed = pd.util.hash_array(text, categorize=False)
    return _mix(hashed ^ np.uint64(seed_key))


def _weights_of(keys: np.ndarray, first: int, count: int) -> np.ndarray:
    """Replicates first … first + count − 1 of the items with these keys (count × items)."""
    with np.errstate(over="ignore"):
        b = np.arange(first + 1, first + count + 1, dtype=np.uint64)[:, None]
        z = _mix(keys[None, :] + b * _GOLDEN)
    u = (z >> np.uint64(11)).astype(float) * 2.0**-53  # 53 random bits: uniform on [0, 1)
    return np.searchsorted(_poisson_cdf(), u, side="right").astype(float)


def poisson_weights(labels: Any, n_resamples: int, seed: SeedLike) -> np.ndarray:
    r"""The Poisson(1) bootstrap weight of each item in each replicate.

    Weight w_bi depends only on the label of item i (its text, ``str(label)``), the replicate
    b and the seed: key_i = mix(SipHash(label_i) ⊕ seed), u_bi = mix(key_i + (b + 1)·φ)/2⁶⁴
    (mix the SplitMix64 finaliser, φ = 0x9E3779B97F4A7C15) and w_bi = F⁻¹(u_bi) for the
    Poisson(1) distribution function F. So the weights of an item are the same in whichever
    partition, process or machine it is read, and a bootstrap on a partitioned data set is
    identical for every partitioning.

    Parameters
    ----------
    labels : array-like
        The item labels.
    n_resamples : int
        The number of replicates B.
    seed : None, int, sequence of int, SeedSequence or Generator
        The seed (:func:`kappalab.validation.make_rng`); one 64-bit key is drawn from it.

    Returns
    -------
    numpy.ndarray
        B × items weights, non-negative integers (as floats).

    Raises
    ------
    InvalidParameterError
        ``n_resamples`` < 1 or an invalid ``seed``.

    References
    ----------
    Hanley, J. A. & MacGibbon, B. (2006). Creating non-parametric bootstrap samples using
    Poisson frequencies. *Computer Methods and Programs in Biomedicine* 83(1), 57–62.
    doi:10.1016/j.cmpb.2006.04.006

    Steele, G. L., Lea, D. & Flood, C. H. (2014). Fast splittable pseudorandom number
    generators. *OOPSLA 2014*, 453–472. doi:10.1145/2660193.2660195

    Examples
    --------
    >>> w = poisson_weights(["a", "b", "c"], 4, seed=1)
    >>> w.shape
    (4, 3)
    >>> bool((poisson_weights(["c", "a"], 4, seed=1) == w[:, [2, 0]]).all())  # by label
    True
    >>> big = poisson_weights(range(20000), 50, seed=0)
    >>> abs(float(big.mean()) - 1) < 0.01 and abs(float(big.var()) - 1) < 0.01
    True
    """
    check_count(n_resamples, "n_resamples", minimum=1)
    keys = _item_keys(labels, _seed_key(seed))
    return _weights_of(keys, 0, n_resamples)


def _seed_key(seed: SeedLike) -> int:
    return int(make_rng(seed).integers(0, 2**63, dtype=np.int64))


# ---------------------------------------------------------------------- per partition
def _read(frame: pd.DataFrame, plan: _Plan) -> Annotations | None:
    """The partition's annotations on the global categories; None when it holds none."""
    item, rater, value = plan.columns
    frame = frame[frame[value].notna()]  # missing values are counted (and warned) globally
    if len(frame) == 0:
        return None
    return Annotations.from_long(frame, item, rater, value, categories=list(plan.categories))


def _core(anns: Sequence[Annotations | None], plan: _Plan):
    """The estimator's core on one partition's annotations (None when it has no item
    statistics); the same class, distance and chance model as in memory."""
    present = [ann for ann in anns if ann is not None]
    if len(present) < len(anns):
        return None
    recipe = plan.recipe
    if recipe.family == "cross":
        x, y = present
        if not x.items.isin(y.items).any():
            return None
        core = CrossKappa(x, y, plan.spec)
        # the global (ordinal: marginals) δ
        core.dis, core.level = plan.distance, plan.distance.name
        return core
    (ann,) = present
    if recipe.family == "spa":
        if not (ann.annotations_per_item_array >= 2).any():
            return None
        return SparseAgreement(ann, plan.spec, plan.class_distribution,
                               chance_corrected=recipe.chance == "chance_corrected")
    member = FamilyMember(recipe.chance, recipe.item_weighting, recipe.name,
                          recipe.weighted_name, recipe.kind)
    return member.core(ann, plan.distance)


def _marginals(frames: Sequence[pd.DataFrame], plan: _Plan) -> np.ndarray | None:
    """The partition's category counts that Krippendorff's ordinal metric pools: pairable
    items (one data set), or annotations of the items common to both replications (κx)."""
    anns = [_read(frame, plan) for frame in frames]
    present = [ann for ann in anns if ann is not None]
    if len(present) < len(anns):
        return None
    if plan.recipe.family == "cross":
        x, y = present
        if not x.items.isin(y.items).any():
            return None
        nx, ny = AlignedReplications(x, y).counts()
        return np.asarray(nx.sum(axis=0) + ny.sum(axis=0), dtype=float).ravel()
    return pairable_marginals(present[0])


def _totals(frames: Sequence[pd.DataFrame], plan: _Plan) -> dict | None:
    """The partition's totals, counts and (with ``plan.n_resamples``) Poisson-bootstrap
    replicate totals."""
    core = _core([_read(frame, plan) for frame in frames], plan)
    if core is None:
        return None
    stats = core.item_stats()
    used = core.counts_used()
    out = {"totals": core.totals(), "n_rows": int(rows_with_statistics(stats).sum()),
           "n_items": used["n_items"], "n_annotations": used["n_annotations"],
           "details": {k: v for k, v in core.details().items()  # counts of items add up
                       if k.startswith(("n_items", "n_annotations"))}}
    if plan.n_resamples:
        keys = _item_keys(core.item_labels, plan.seed_key)
        block = max(1, BLOCK_CELLS // max(1, stats.shape[0]))
        blocks = []
        for first in range(0, plan.n_resamples, block):  # blocks of replicates, not items
            w = _weights_of(keys, first, min(block, plan.n_resamples - first))
            blocks.append(np.asarray((stats.T @ w.T).T, dtype=float))
        out["replicates"] = np.vstack(blocks)
    return out


def _spread(frames: Sequence[pd.DataFrame], plan: _Plan, gradient: np.ndarray,
            centre: float) -> float:
    """Σ_i (g·s_i − c)² over the partition's items with statistics."""
    core = _core([_read(frame, plan) for frame in frames], plan)
    if core is None:
        return 0.0
    stats = core.item_stats()
    rows = rows_with_statistics(stats)
    contributions = np.asarray(stats[rows] @ gradient, dtype=float).ravel()
    return float(((contributions - centre) ** 2).sum())


def _add(*parts: Any) -> Any:
    """The sum of partition results (None: a partition without statistics)."""
    present = [p for p in parts if p is not None]
    if not present:
        return None
    if isinstance(present[0], dict):
        keys = set().union(*present)
        return {k: _add(*[p.get(k) for p in present]) for k in keys}
    total = present[0]
    for part in present[1:]:
        total = total + part
    return total


def _tree_sum(parts: list, split_every: int = 16) -> Any:
    """A tree reduction of delayed partition results (depth log_16 of the partitions)."""
    from dask import delayed

    if not parts:
        return delayed(_add)()
    while len(parts) > 1:
        parts = [delayed(_add)(*parts[i:i + split_every])
                 for i in range(0, len(parts), split_every)]
    return parts[0]


# ---------------------------------------------------------------------- the frames
def _check_frame(data: Any, columns: tuple[str, str | None, str], what: str) -> Any:
    """``data`` as a Dask DataFrame with its item as a column; clear errors otherwise."""
    dd = require_extra(("dask", "dask.dataframe"), "dask", "out-of-core estimation")
    _quiet_routine_shuffles()  # the items' shuffle, and the groupby that checks partitions
    if not isinstance(data, dd.DataFrame):
        raise InvalidParameterError(
            f"{what} must be a dask DataFrame of long annotations (one row per annotation), "
            f"got {type(data).__name__}; for data in memory call the estimator itself, e.g. "
            "kl.krippendorff_alpha(frame)")
    item = columns[0]
    if item not in data.columns and data.index.name == item:
        data = data.reset_index()  # the partitions stay as they are
    for role, name in zip(("item", "rater", "value"), columns):
        if name is not None and name not in data.columns:
            raise InvalidParameterError(
                f"column {name!r} (the {role} column) is not in {what}; columns are "
                f"{list(data.columns)}")
    return data


def _check_claim(partitioned_by_item: Any) -> bool | None:
    """``partitioned_by_item`` as True, False or None; anything else is refused."""
    return check_flag(partitioned_by_item, "partitioned_by_item", allow_none=True)


def _label_range(frame: pd.DataFrame, item: str, value: str) -> pd.DataFrame:
    """The partition's number of annotations and its smallest and largest item label (both
    None when its labels have no order: mixed types, an unordered categorical)."""
    labels = frame.loc[frame[value].notna(), item]
    low = high = None
    if len(labels):
        if isinstance(labels.dtype, pd.CategoricalDtype):
            labels = pd.Series(np.asarray(labels))  # the labels' own order, not the codes'
        try:
            low, high = labels.min(), labels.max()
        except TypeError:
            pass
        if _is_missing(low) or _is_missing(high):
            low = high = None
    return pd.DataFrame({"n": [len(labels)], "low": pd.Series([low], dtype=object),
                         "high": pd.Series([high], dtype=object)})


def _is_missing(x: Any) -> bool:
    missing = pd.isna(x)
    return bool(missing) if isinstance(missing, (bool, np.bool_)) else False


def _label_ranges(data: Any, columns: tuple[str, str | None, str]) -> Any:
    """Each partition's :func:`_label_range`, lazily: a frame of one row per partition."""
    item, _, value = columns
    meta = pd.DataFrame({"n": pd.Series(dtype="int64"), "low": pd.Series(dtype=object),
                         "high": pd.Series(dtype=object)})
    return data.map_partitions(_label_range, item, value, meta=meta)


def _from_ranges(ranges: pd.DataFrame) -> tuple[bool, tuple | None]:
    """What the partitions' label ranges prove: whether every item is whole in one partition
    (the ranges of the partitions with annotations are disjoint), and an item in two
    partitions, ``(label, p, q)``, when one range starts where another starts or ends."""
    rows = [(low, high, p) for p, (n, low, high) in enumerate(ranges.itertuples(index=False))
            if n]
    if any(low is None for low, _, _ in rows):
        return False, None
    try:
        rows.sort(key=lambda row: row[0])  # stable: partitions in order for equal starts
        disjoint = True
        for (low, high, p), (next_low, _, q) in zip(rows, rows[1:]):
            if high < next_low:
                continue
            disjoint = False
            if next_low == high or next_low == low:  # both partitions hold that label
                return False, (next_low, min(p, q), max(p, q))
    except TypeError:  # labels of different types in different partitions
        return False, None
    return disjoint, None


def _distinct_labels(frame: pd.DataFrame, item: str, value: str,
                     partition_info: dict | None = None) -> pd.DataFrame:
    """The partition's distinct item labels (of its annotations) and its number."""
    labels = frame.loc[frame[value].notna(), item].drop_duplicates().reset_index(drop=True)
    if isinstance(labels.dtype, pd.CategoricalDtype):  # grouped by label, not by category
        labels = labels.astype(object)
    number = 0 if partition_info is None else partition_info["number"]
    return pd.DataFrame({item: labels, "partition": number})


def _item_in_two_partitions(data: Any, columns: tuple[str, str | None, str],
                            scheduler: Any) -> tuple | None:
    """An item with annotations in two or more partitions, ``(label, p, q, count)`` (its
    first and last partition and how many hold it), or None: one pass over the distinct
    labels of every partition, grouped by label into as many parts as the frame has."""
    item, _, value = columns
    dtype = data.dtypes[item]
    meta = pd.DataFrame({item: pd.Series(dtype=object if isinstance(dtype, pd.CategoricalDtype)
                                         else dtype),
                         "partition": pd.Series(dtype="int64")})
    pairs = data.map_partitions(_distinct_labels, item, value, meta=meta)
    spans = pairs.groupby(item)["partition"].agg(["count", "min", "max"],
                                                 split_out=data.npartitions)
    split = spans[spans["count"] > 1]
    found, = _compute(split.map_partitions(lambda part: part.iloc[:1]), scheduler=scheduler)
    if len(found) == 0:
        return None
    first = found.sort_values(["min", "max"], kind="stable").iloc[0]
    return first.name, int(first["min"]), int(first["max"]), int(first["count"])


def _whole_items(data: Any, columns: tuple[str, str | None, str], claim: bool | None,
                 ranges: pd.DataFrame | None, scheduler: Any) -> bool:
    """Whether every item's annotations are in one partition, so that no shuffle is needed.

    ``claim`` is ``partitioned_by_item``: False shuffles without looking; None trusts only
    the proof of the partitions' label ranges (disjoint ranges) and shuffles otherwise; True
    takes that proof, or else counts each label's partitions (one pass over the distinct
    labels, far less than a shuffle of the annotations), and refuses the claim with an item
    that is in two partitions.
    """
    if claim is False:
        return False
    assert ranges is not None, "_scale reads the label ranges unless the claim is False"
    disjoint, split = _from_ranges(ranges)
    if disjoint or claim is None:
        return disjoint
    if split is None:
        split = _item_in_two_partitions(data, columns, scheduler)
    if split is None:
        return True
    name, p, q, *count = split
    more = f" (and {count[0] - 2} more)" if count and count[0] > 2 else ""
    raise InvalidParameterError(
        f"partitioned_by_item=True, but item {label(name)} has annotations in partitions {p} "
        f"and {q}{more} (it would count as a separate item in each): pass "
        f"partitioned_by_item=None to shuffle the rows on {columns[0]!r}, or write each "
        "item's rows into one file")


def _by_item(data: Any, item: str, partitioned_by_item: bool,
             npartitions: int | None = None) -> Any:
    """The frame with each item's rows in one partition (see the module docstring)."""
    if partitioned_by_item and npartitions is None:
        return data
    return data.shuffle(on=item, npartitions=npartitions or data.npartitions)


#: the format strings of what distributed's shuffle logs at WARNING on every correct shuffle
#: (its start and end); its restarts and failures are still logged
_ROUTINE_SHUFFLE = ("Shuffle %s initialized by task", "Shuffle %s deactivated due to stimulus")


def _routine_shuffle(record: logging.LogRecord) -> bool:
    """False (drop) for the start and end of a shuffle, True for every other record."""
    return not (isinstance(record.msg, str) and record.msg.startswith(_ROUTINE_SHUFFLE))


def _quiet_routine_shuffles() -> None:
    """Drop the routine start and end of each shuffle (P2P, of the items or of a groupby)
    from the scheduler's log when the scheduler runs in this process, as a LocalCluster's: a
    correct call logs nothing. Once per process."""
    logger = logging.getLogger("distributed.shuffle._scheduler_plugin")
    if _routine_shuffle not in logger.filters:
        logger.addFilter(_routine_shuffle)


def _compute(*collections: Any, scheduler: Any) -> tuple:
    import dask

    kwargs = {} if scheduler is None else {"scheduler": scheduler}
    return dask.compute(*collections, **kwargs)


def _scale(frames: Sequence[Any], columns: tuple[str, str | None, str],
           categories: Sequence[Any] | pd.Index | None, scheduler: Any, count_raters: bool,
           ranges: bool = False) -> tuple[tuple, int | None, pd.DataFrame | None]:
    """The global categories and number of raters, with one warning for the missing values
    dropped, and with ``ranges`` the first frame's :func:`_label_ranges`: one pass."""
    item, rater, value = columns
    asked = [_label_ranges(frames[0], columns)] if ranges else []
    for frame in frames:
        asked.append(frame[value].isnull().sum())
        asked.append(frame.shape[0])
        if categories is None:
            asked.append(frame[value].dropna().unique())
    if count_raters and rater is not None:
        asked.append(frames[0][frames[0][value].notnull()][rater].nunique())
    found = list(_compute(*asked, scheduler=scheduler))
    label_ranges = found.pop(0) if ranges else None
    n_raters = int(found.pop()) if count_raters and rater is not None else None
    step = 2 if categories is not None else 3
    missing = sum(int(found[i]) for i in range(0, len(found), step))
    rows = sum(int(found[i]) for i in range(1, len(found), step))
    if missing:
        warn(f"dropped {missing} of {rows} rows whose {value!r} value is missing",
             DroppedAnnotationsWarning)
    if categories is None:
        seen = pd.concat([pd.Series(found[i]) for i in range(2, len(found), step)],
                         ignore_index=True)
        if seen.size == 0:
            raise InvalidParameterError(f"there are no annotations: every {value!r} value "
                                        "is missing or the frame has no rows")
        # the categories exactly as Annotations.from_long orders them
        values = pd.DataFrame({"item": np.arange(seen.size), "value": seen.to_numpy()})
        if isinstance(seen.dtype, pd.CategoricalDtype):
            values["value"] = pd.Categorical(seen)
        categories = Annotations.from_long(values, "item", None, "value").categories
    return tuple(categories), n_raters, label_ranges


def _template(plan: _Plan, sides: int) -> Any:
    """A core on two annotations of one item with the global configuration: what ``combine``
    and the gradient at the global totals depend on (never its data)."""
    item, rater, value = plan.columns
    first = plan.categories[0]
    frame = pd.DataFrame({item: [0, 0], value: [first, first]})
    if rater is not None:
        frame[rater] = [0, 1]
    ann = Annotations.from_long(frame, item, rater, value, categories=list(plan.categories))
    return _core([ann] * sides, plan)


def _run(frames: Sequence[Any], plan: _Plan, *, ci: str | None, confidence: float,
         scheduler: Any, n_raters: int | None, always_se: bool = False,
         marginals: np.ndarray | None = None) -> Estimate:
    """The totals pass (with the bootstrap replicates), the combine, and with an analytic
    SE the pass of the influences."""
    from dask import delayed

    parts = [list(p) for p in zip(*(frame.to_delayed() for frame in frames))]
    summary, = _compute(_tree_sum([delayed(_totals)(p, plan) for p in parts]),
                        scheduler=scheduler)
    template = _template(plan, len(frames))
    if summary is None:
        raise InvalidParameterError("no partition holds an item with statistics: nothing to "
                                    "estimate")
    totals = summary["totals"]
    comp = template.combine(totals)
    value = float(np.asarray(comp["value"]).reshape(-1)[0])
    n = int(summary["n_rows"])
    se, bounds, details = None, None, dict(template.details())
    details.update(summary.get("details") or {})
    if "class_distribution" in details:
        details["class_distribution"] = (None if marginals is None else
                                         tuple(float(v) for v in marginals / marginals.sum()))
    details["n_partitions"] = len(parts)
    if not np.isfinite(value):
        reason = ("no item has two or more annotations" if summary["n_items"] == 0 else
                  "the expected disagreement is 0 or cannot be computed (e.g. all "
                  "annotations fall in one category)")
        warn(f"{template.name} is undefined: {reason}; returning NaN",
             UndefinedCoefficientWarning)
    elif (ci == "analytic" or always_se) and n >= 2:
        gradient = np.asarray(template.value_gradient(totals), dtype=float)
        centre = float(gradient @ totals) / n
        spread, = _compute(_tree_sum([delayed(_spread)(p, plan, gradient, centre)
                                      for p in parts]), scheduler=scheduler)
        se = float(np.sqrt(n * spread / (n - 1)))
        if ci == "analytic":
            from scipy.stats import t as student_t  # imported where used: scipy.stats is slow
            half = float(student_t.ppf(0.5 + confidence / 2, n - 1)) * se
            high = value + half
            if template.upper_bound is not None:
                high = min(high, float(template.upper_bound))
            bounds = (value - half, high)
            details.update(ci_method="analytic")
    elif ci == "analytic":
        raise InvalidParameterError(
            f"an interval needs at least two items with annotations, got {n}")
    if ci == "poisson-bootstrap" and np.isfinite(value):
        replicates = np.asarray(template.combine(summary["replicates"])["value"], dtype=float)
        replicates = replicates[np.isfinite(replicates)]
        tail = (1 - confidence) / 2
        if replicates.size >= 2:
            se = float(replicates.std(ddof=1))
            low, high = np.quantile(replicates, [tail, 1 - tail])
            bounds = (float(low), float(high))
        details.update(ci_method="poisson-bootstrap", n_resamples=plan.n_resamples)
    out = Estimate(coefficient=template.name, value=value,
                   observed=float(np.asarray(comp["observed"]).reshape(-1)[0]),
                   expected=float(np.asarray(comp["expected"]).reshape(-1)[0]),
                   n_items=int(summary["n_items"]), n_annotations=int(summary["n_annotations"]),
                   level=template.level, n_raters=n_raters,
                   observed_disagreement=_optional(comp.get("observed_disagreement")),
                   expected_disagreement=_optional(comp.get("expected_disagreement")),
                   se=se, ci=bounds, details=details)
    return out


def _optional(x: Any) -> float | None:
    return None if x is None else float(np.asarray(x).reshape(-1)[0])


def _check_ci(ci: str | None, n_resamples: int, confidence: float, seed: SeedLike) -> int:
    if ci is not None and ci not in CI_METHODS:
        raise InvalidParameterError(
            f"unknown ci {ci!r} out of core; choose one of {', '.join(CI_METHODS)} (the "
            "multinomial bootstrap and the jackknife need all items at once)")
    check_confidence(confidence)
    if ci == "poisson-bootstrap":
        check_count(n_resamples, "n_resamples", minimum=2)
        return _seed_key(seed)
    return 0


def _resolve(spec: Any, kind: str, categories: tuple,
             marginals: Callable[[], np.ndarray]) -> CategoryDistance:
    """``level=``/``weights=`` resolved once, on the global categories (and marginals)."""
    values = pd.DataFrame({"item": np.arange(len(categories)), "value": list(categories)})
    ann = Annotations.from_long(values, "item", None, "value", categories=list(categories))
    return category_distance(spec, list(categories), kind=kind, values=ann.category_values,
                             marginals=marginals, origin=ann.value_origin)


# ---------------------------------------------------------------------- public functions
@shared_parameters
def estimate(estimator: str | Callable, data: Any, *, item: str = "item",
             rater: str | None = "rater", value: str = "value",
             categories: Sequence[Any] | None = None, ci: str | None = None,
             n_resamples: int = 2000, confidence: float = 0.95, seed: SeedLike = None,
             partitioned_by_item: bool | None = None, scheduler: Any = None,
             **options: Any) -> Estimate:
    r"""An item-sum estimator on a Dask DataFrame of long annotations, out of core.

    The same number as the in-memory estimator on the same annotations,

    .. math::  θ̂ = f\Big(\sum_{p}\sum_{i \in p} s_i\Big),

    the inner sums formed per partition p by the estimator's core and the outer one by a tree
    reduction (how the categories, the ordinal metric and the grouping by item are handled:
    :mod:`kappalab.out_of_core`). With ``ci="analytic"`` the linearised standard error of
    :mod:`kappalab.uncertainty` (a second pass over the data), with
    ``ci="poisson-bootstrap"`` a Poisson(1) item bootstrap whose replicates are the same for
    every partitioning (:func:`poisson_weights`).

    Parameters
    ----------
    estimator : str or callable
        A coefficient of the registry that runs out of core
        (:mod:`kappalab.coefficients.registry`), by its in-memory function's name, its alias
        or the function itself: ``"krippendorff_alpha"`` (``"alpha"``,
        ``kl.krippendorff_alpha``), ``"fleiss_kappa"`` (``"fleiss"``), ``"gwet_ac"``
        (``"gwet"``), ``"brennan_prediger"``, ``"percent_agreement"``, ``"spa"`` or
        ``"spa_kappa"``.
    data : dask.dataframe.DataFrame
        One row per annotation, e.g. ``dask.dataframe.read_parquet(path)``; the item may be
        its index. A frame whose partitions' item ranges are disjoint (files sorted by item
        and cut between items) is read without a shuffle.
    item, rater, value : str
        The column names; ``rater=None`` when raters are unknown.
    {{shared: categories}}
    ci : {None, "analytic", "poisson-bootstrap"}, default None
        The standard error and interval: the linearisation (θ̂ ± t_{n−1}·SE, capped at the
        coefficient's upper bound) or the Poisson bootstrap's percentile interval.
    n_resamples : int, default 2000
        Replicates of the Poisson bootstrap.
    {{shared: confidence}}
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the Poisson bootstrap (:func:`kappalab.validation.make_rng`).
    partitioned_by_item : bool or None, default None
        Whether every item's rows are in one partition already. None: when the partitions'
        item ranges (found in the first pass) are disjoint, otherwise the frame is shuffled
        on the item column. True: the claim, checked — by those ranges or else by one pass
        over each partition's distinct labels — and refused with the first item found in two
        partitions; the shuffle is skipped. False: always shuffle.
    scheduler : str or None, default None
        Passed to ``dask.compute`` (``"synchronous"``, ``"threads"``, ``"processes"``); None
        uses dask's default, or the active ``distributed.Client``.
    **options
        The estimator's option: ``level=`` (α), ``weights=`` (Fleiss, Gwet, Brennan–Prediger,
        percent agreement), ``scheme=`` and ``class_distribution=`` (SPA).

    Returns
    -------
    Estimate
        As the in-memory estimator returns it (``details`` adds ``n_partitions``).

    Raises
    ------
    InvalidParameterError
        An unknown estimator or option, data that are not a dask DataFrame, an absent column,
        an unknown ``ci`` or a bad ``n_resamples``, ``confidence``, ``seed`` or
        ``partitioned_by_item``; ``partitioned_by_item=True`` with an item in two partitions.
    AnnotationError
        As the in-memory reading raises it, from the partition where it occurs
        (e.g. :class:`~kappalab.errors.DuplicateAnnotationError`,
        :class:`~kappalab.errors.UnknownCategoryError`).
    ImportError
        dask is not installed: the message names the extra, ``pip install "kappalab[dask]"``.

    References
    ----------
    Krippendorff, K. (2011). *Computing Krippendorff's Alpha-Reliability*. Annenberg School for
    Communication, University of Pennsylvania.

    Hanley, J. A. & MacGibbon, B. (2006). Creating non-parametric bootstrap samples using
    Poisson frequencies. *Computer Methods and Programs in Biomedicine* 83(1), 57–62.
    doi:10.1016/j.cmpb.2006.04.006

    Examples
    --------
    >>> import dask.dataframe as dd, kappalab as kl
    >>> frame = kl.datasets.load("worked_example").to_long()
    >>> ddf = dd.from_pandas(frame, npartitions=3)
    >>> est = estimate("krippendorff_alpha", ddf, ci="analytic", scheduler="synchronous")
    >>> round(est.value, 4), round(est.se, 4)  # as kl.krippendorff_alpha(frame, ci="analytic")
    (0.5782, 0.1789)
    """
    try:
        entry = registry.lookup(estimator, _CAPABILITY, purpose="out of core")
    except InvalidParameterError as exc:
        shown = estimator if isinstance(estimator, str) else getattr(
            estimator, "__name__", type(estimator).__name__)
        raise InvalidParameterError(f"no out-of-core form of {shown!r}: {exc} (or cross_kappa "
                                    "for two replications)") from None
    name, recipe = entry.name, Recipe.of(entry)
    allowed = {recipe.option} | ({"class_distribution"} if recipe.family == "spa" else set())
    unknown = sorted(set(options) - allowed)
    if unknown:
        raise InvalidParameterError(
            f"{name} out of core takes {', '.join(sorted(allowed))}=, not {', '.join(unknown)}")
    spec = options.get(recipe.option, recipe.default)
    if recipe.family == "spa" and not isinstance(spec, str):
        raise InvalidParameterError(
            "out of core, SPA takes a named scheme= (item weights by position need the items "
            "in one table)")
    seed_key = _check_ci(ci, n_resamples, confidence, seed)
    claim = _check_claim(partitioned_by_item)
    columns = (item, rater, value)
    data = _check_frame(data, columns, "data")
    categories, n_raters, ranges = _scale([data], columns, categories, scheduler,
                                          count_raters=recipe.family == "multirater",
                                          ranges=claim is not False)
    data = _by_item(data, item, _whole_items(data, columns, claim, ranges, scheduler))
    plan = _Plan(recipe, columns, categories, spec=spec, seed_key=seed_key,
                 n_resamples=n_resamples if ci == "poisson-bootstrap" else 0)
    found: list[np.ndarray] = []

    def marginals() -> np.ndarray:  # one more pass, only when the distance needs it
        if not found:
            from dask import delayed
            parts = [delayed(_marginals)([p], plan) for p in data.to_delayed()]
            total, = _compute(_tree_sum(parts), scheduler=scheduler)
            found.append(np.zeros(len(categories)) if total is None else total)
        return found[0]

    if recipe.family == "spa":
        given = options.get("class_distribution")
        if given is None and spec in ("inv_var", "inv_var_class"):
            pooled = marginals()
            given = pooled / pooled.sum()
        plan = replace(plan, class_distribution=given)
    else:
        plan = replace(plan, dis=_resolve(spec, recipe.kind, categories, marginals))
    return _run([data], plan, ci=ci, confidence=confidence, scheduler=scheduler,
                n_raters=n_raters, always_se=recipe.family == "spa",
                marginals=found[0] if found else None)


@shared_parameters
def cross_kappa(x: Any, y: Any, *, level: Any = "nominal", item: str = "item",
                rater: str | None = "rater", value: str = "value",
                categories: Sequence[Any] | None = None, ci: str | None = None,
                n_resamples: int = 2000, confidence: float = 0.95, seed: SeedLike = None,
                scheduler: Any = None) -> Estimate:
    r"""Cross-replication κx (Wong, Paritosh & Aroyo 2021) of two Dask DataFrames, out of core.

    .. math::  κ_x = 1 - \frac{d_o}{d_e},

    as :func:`kappalab.cross_kappa` computes it: the two replications are matched by item
    label — both frames are shuffled on the item column into the same number of partitions,
    so partition p of X and partition p of Y hold the same items — and each pair of
    partitions gives the totals of :class:`~kappalab.coefficients.cross.CrossKappa` on its
    common items. The categories are the union of both sides'; the ordinal metric pools both
    sides' annotations of the common items (one more pass).

    Parameters
    ----------
    x, y : dask.dataframe.DataFrame
        The two replications, one row per annotation, with the same item, rater and value
        columns (the item columns of one dtype, so that equal labels hash alike).
    level : str, default "nominal"
        The distance (Krippendorff's levels, :mod:`kappalab.distances`).
    item, rater, value : str
        The column names; ``rater=None`` when raters are unknown.
    {{shared: categories}}
    ci : {None, "analytic", "poisson-bootstrap"}, default None
        As :func:`estimate`: the items common to both sides are the units.
    n_resamples : int, default 2000
        Replicates of the Poisson bootstrap.
    {{shared: confidence}}
    seed : None, int, sequence of int, SeedSequence or Generator, optional
        Seed of the Poisson bootstrap (:func:`kappalab.validation.make_rng`).
    scheduler : str or None, default None
        Passed to ``dask.compute``; None uses dask's default or the active client.

    Returns
    -------
    Estimate
        As :func:`kappalab.cross_kappa` returns it (``details`` adds ``n_partitions``).

    Raises
    ------
    InvalidParameterError
        Data that are not dask DataFrames, an absent column, item columns of different
        dtypes, no common item, an unknown ``ci`` or a bad option.
    AnnotationError
        As the in-memory reading raises it.

    References
    ----------
    Wong, K., Paritosh, P. & Aroyo, L. (2021). Cross-replication Reliability — An Empirical
    Approach to Interpreting Inter-rater Reliability. ACL 2021, 7053–7065.
    doi:10.18653/v1/2021.acl-long.548

    Examples
    --------
    >>> import dask.dataframe as dd, pandas as pd
    >>> x = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"),
    ...                   "value": [1, 1, 2, 2, 1, 2]})
    >>> y = pd.DataFrame({"item": [1, 2, 3], "rater": ["c"] * 3, "value": [1, 2, 2]})
    >>> est = cross_kappa(dd.from_pandas(x, npartitions=2), dd.from_pandas(y, npartitions=1),
    ...                   scheduler="synchronous")
    >>> round(est.value, 4)  # kl.cross_kappa(x, y): 1 − (1/2 · 3/9)/(1/2)
    0.6667
    """
    seed_key = _check_ci(ci, n_resamples, confidence, seed)
    columns = (item, rater, value)
    x = _check_frame(x, columns, "x")
    y = _check_frame(y, columns, "y")
    if x[item].dtype != y[item].dtype:
        raise InvalidParameterError(
            f"the item columns of x ({x[item].dtype}) and y ({y[item].dtype}) differ in dtype: "
            "cast them to one dtype so that equal labels are matched")
    categories, _, _ = _scale([x, y], columns, categories, scheduler, count_raters=False)
    npartitions = max(x.npartitions, y.npartitions)
    x = _by_item(x, item, False, npartitions)
    y = _by_item(y, item, False, npartitions)
    recipe = Recipe("cross", "level", "nominal", "level", "", "item", "cross-kappa")
    plan = _Plan(recipe, columns, categories, spec=level, seed_key=seed_key,
                 n_resamples=n_resamples if ci == "poisson-bootstrap" else 0)

    def marginals() -> np.ndarray:
        from dask import delayed
        parts = [delayed(_marginals)([p, q], plan)
                 for p, q in zip(x.to_delayed(), y.to_delayed())]
        total, = _compute(_tree_sum(parts), scheduler=scheduler)
        if total is None:
            raise InvalidParameterError("no item is annotated in both replications")
        return total

    plan = replace(plan, dis=_resolve(level, "level", categories, marginals))
    return _run([x, y], plan, ci=ci, confidence=confidence, scheduler=scheduler,
                n_raters=None)


# ---------------------------------------------------------------------- models of annotation
@dataclass(frozen=True)
class _EMSetup:
    """What every partition needs to read its items for an EM model: the columns, the
    global categories and raters (None: a pooled model), and the gold labels."""

    columns: tuple[str, str | None, str]
    categories: tuple
    raters: pd.Index | None
    gold: pd.Series | None


def _em_design(frame: pd.DataFrame, setup: _EMSetup) -> tuple | None:
    """(design, starting posteriors, kept items' labels, gold items found) of a partition's
    items, its raters coded on the global raters; None when it holds no annotations."""
    from .annotators import design, gold_codes

    item, rater, value = setup.columns
    frame = frame[frame[value].notna()]  # missing values are counted (and warned) globally
    if len(frame) == 0:
        return None
    ann = Annotations.from_long(frame, item, None if setup.raters is None else rater, value,
                                categories=list(setup.categories))
    if setup.raters is None:
        J, raters = 1, np.zeros(ann.n_annotations, dtype=np.intp)
    else:
        J = len(setup.raters)
        raters = setup.raters.get_indexer(ann.require_raters("an EM model"))[ann.codes()[1]]
    gold_items, gold_classes = gold_codes(setup.gold, ann.items, ann.categories, strict=False)
    em_design, start, kept = design(ann, raters, J, gold_items, gold_classes)
    return em_design, start, ann.items[kept], gold_items.size


def _em_start(part: tuple | None) -> Any:
    """The partition's sums at the starting posteriors, and its gold items."""
    if part is None:
        return None
    em_design, start, _, n_gold = part
    return {"sums": em_design.sums(start), "n_gold": n_gold}


def _em_step(part: tuple | None, parameters: Any) -> Any:
    """The partition's E-step at ``parameters`` and the next M-step's sums."""
    from .annotators import e_step

    if part is None:
        return None
    T, item_ll = e_step(part[0], parameters)
    return part[0].sums(T, float(item_ll.sum()))


def _em_posterior(part: tuple | None, parameters: Any) -> pd.DataFrame | None:
    """The partition's posteriors (items × classes) and each item's log-likelihood."""
    from .annotators import e_step

    if part is None:
        return None
    T, item_ll = e_step(part[0], parameters)
    out = pd.DataFrame(T, index=part[2])
    out["log_likelihood"] = item_ll
    return out


def _global_raters(frame: Any, rater: str, value: str, scheduler: Any) -> pd.Index:
    """The distinct raters with annotations, sorted when their labels sort."""
    found, = _compute(frame[frame[value].notnull()][rater].unique(), scheduler=scheduler)
    raters = pd.Index(pd.unique(np.asarray(found)), name=rater)
    try:
        return raters.sort_values()
    except TypeError:  # labels of mixed types keep the order found
        return raters


@shared_parameters
def annotation_model(model: str, data: Any, *, item: str = "item", rater: str | None = "rater",
                     value: str = "value", categories: Sequence[Any] | None = None,
                     gold: Any = None, prior: Any = None, smoothing: float = 0.0,
                     accelerate: bool = True, max_iter: int = 1000, tol: float = 1e-10,
                     progress: bool | None = None,
                     partitioned_by_item: bool | None = None, persist: bool = False,
                     scheduler: Any = None) -> Any:
    r"""A model of annotation fitted by EM on a Dask DataFrame of long annotations.

    The EM of :mod:`kappalab.annotators` reads the data through two sums over items, Σ_i T_i
    and Xᵀ T (the M-step's), and one product per item, X_i log θ (the E-step's): with every
    item whole in one partition (as :func:`estimate` arranges it), each iteration is one
    pass in which every partition runs the E-step on its items at the current parameters
    and returns its sums, a tree reduction adds them, and the driver runs the M-step,

    .. math::  (π, θ)^{(t+1)} = M\Big(\sum_p \sum_{i \in p} s_i\big(T^{(t)}\big)\Big),

    so the fit equals :func:`kappalab.annotators.dawid_skene` (or ``multinomial``,
    ``mace``) on the same annotations whatever the partitioning, up to the order of
    floating-point additions (the tests: 1e-10). A last pass forms the posteriors.

    Parameters
    ----------
    model : {"dawid_skene", "multinomial", "mace", "ordinal_dawid_skene"}
        The model (:mod:`kappalab.annotators`).
    data : dask.dataframe.DataFrame
        One row per annotation, e.g. ``dask.dataframe.read_parquet(path)``; the item may be
        its index.
    item, rater, value : str
        The column names (``rater`` is not read by the pooled ``"multinomial"`` model).
    {{shared: categories}}
    {{shared: gold}}
    prior : mapping, optional
        Pseudo-counts, as :func:`kappalab.annotators.dawid_skene` takes them (not MACE);
        the confusion pseudo-counts per annotator follow the raters in sorted order.
    {{shared: em_smoothing}}
    {{shared: em}}
    partitioned_by_item : bool or None, optional
        As :func:`estimate`: None shuffles the rows on the item unless the partitions'
        item ranges are disjoint; True claims whole items per partition (checked); False
        shuffles.
    persist : bool, default False
        Keep each partition's counts (X, about 12 bytes an annotation) in memory after the
        first pass, so that the iterations do not read the data again; False re-reads every
        partition in every iteration (memory bounded by a partition: out of core).
    scheduler : optional
        Dask's scheduler for every pass (None: the current one).

    Returns
    -------
    kappalab.annotators.AnnotationModelFit
        As the in-memory fit: the posteriors (computed: items × classes fit in memory when
        the annotations need not), in the order of the partitions; the raters sorted.

    Raises
    ------
    InvalidParameterError
        An unknown model, a frame without the columns, gold items not in the data, a prior
        for MACE, or the options :func:`kappalab.annotators.dawid_skene` refuses.

    Warns
    -----
    ConvergenceWarning
        When the fit stops at ``max_iter``.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from kappalab import out_of_core
    >>> frame = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3],
    ...                       "rater": list("abcabcabc"),
    ...                       "value": [0, 0, 1, 1, 1, 1, 0, 0, 0]})
    >>> fit = out_of_core.annotation_model("dawid_skene", dd.from_pandas(frame, npartitions=2))
    >>> fit.labels.sort_index().tolist()
    [0, 1, 0]
    """
    from dask import delayed

    from .annotators import (EM_MODELS, Sums, check_em_options, gold_series, model_fit,
                             pseudo_counts, run_em)
    from .kernels import single_blas_thread

    if model not in EM_MODELS:
        raise InvalidParameterError(
            f"model must be one of {sorted(EM_MODELS)}, got {model!r}")
    name, pooled, m_step, takes_prior = EM_MODELS[model]
    if prior is not None and not takes_prior:
        raise InvalidParameterError(f"the {name} model takes no prior")
    smoothing, max_iter, tol, progress = check_em_options(smoothing, max_iter, tol, progress)
    claim = _check_claim(partitioned_by_item)
    persist = check_flag(persist, "persist")
    accelerate = check_flag(accelerate, "accelerate")
    columns = (item, None if pooled else rater, value)
    frame = _check_frame(data, columns, "data")
    found, _, ranges = _scale([frame], columns, categories, scheduler, count_raters=False,
                              ranges=claim is not False)
    category_index = pd.Index(found)
    whole = _whole_items(frame, columns, claim, ranges, scheduler)
    frame = frame if whole else _by_item(frame, item, False)
    raters = None if pooled else _global_raters(frame, str(rater), value, scheduler)
    J = 1 if raters is None else len(raters)
    prior_counts = pseudo_counts(prior, smoothing, J, len(found))
    gold = None if gold is None else gold_series(gold, category_index)
    setup = _EMSetup(columns, found, raters, gold)
    parts = [delayed(_em_design)(p, setup) for p in frame.to_delayed()]
    if persist:
        import dask

        parts = list(dask.persist(*parts, **({} if scheduler is None else
                                             {"scheduler": scheduler})))
    start, = _compute(_tree_sum([delayed(_em_start)(p) for p in parts]), scheduler=scheduler)
    if start is None:
        raise InvalidParameterError("there are no annotations to fit the model to")
    if gold is not None and start["n_gold"] < len(gold):
        raise InvalidParameterError(
            f"gold names {len(gold) - start['n_gold']} of its {len(gold)} items that are not "
            "in the data")

    def step(parameters: Any) -> Sums:
        total, = _compute(_tree_sum([delayed(_em_step)(p, parameters) for p in parts]),
                          scheduler=scheduler)
        return total

    with single_blas_thread():  # the partitions' skinny products, when they run here
        parameters, trace, converged = run_em(step, start["sums"], m_step, prior_counts,
                                              max_iter, tol, progress, name, accelerate)
    pieces = _compute(*[delayed(_em_posterior)(p, parameters) for p in parts],
                      scheduler=scheduler)
    table = pd.concat([piece for piece in pieces if piece is not None])
    item_ll = table.pop("log_likelihood").to_numpy()
    table.columns = category_index
    table.index.name = item
    rater_index = pd.Index(["all raters"], name="rater") if raters is None else raters
    return model_fit(name, parameters, trace, converged, table, item_ll, rater_index)
