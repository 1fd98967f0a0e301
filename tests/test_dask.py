"""Out-of-core estimation on Dask DataFrames (kappalab.out_of_core) against the in-memory
estimators on the same annotations: values, analytic standard errors and intervals to 1e-12,
the Poisson bootstrap's replicates against the in-memory estimator with those item weights,
and its invariance to the partitioning."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

import kappalab as kl
from kappalab.out_of_core import cross_kappa, estimate, poisson_weights
from kappalab.errors import DroppedAnnotationsWarning, InvalidParameterError, \
    DuplicateAnnotationError

dd = pytest.importorskip("dask.dataframe")

SYNC = "synchronous"


def long_frame(n_items=240, n_raters=6, seed=0, missing=0.35, prefix="i"):
    """Long annotations on five ordered categories, items of 0 to 6 annotations, the rows in
    random order (so that every item spans several partitions)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 6, n_items)
    items = np.repeat(np.arange(n_items), n_raters)
    raters = np.tile(np.arange(n_raters), n_items)
    noise = rng.integers(-1, 2, items.size) * (rng.random(items.size) < 0.4)
    values = np.clip(truth[items] + noise, 1, 5)
    keep = rng.random(items.size) > missing
    frame = pd.DataFrame({"item": [f"{prefix}{i}" for i in items[keep]],
                          "rater": [f"r{r}" for r in raters[keep]], "value": values[keep]})
    return frame.sample(frac=1.0, random_state=seed).reset_index(drop=True)


def spans_partitions(ddf):
    parts = [set(p) for p in [d.compute(scheduler=SYNC)["item"] for d in ddf.to_delayed()]]
    return sum(len(p) for p in parts) > len(set().union(*parts))


FRAME = long_frame()

CASES = [
    ("krippendorff_alpha", {"level": "nominal"}, kl.krippendorff_alpha),
    ("krippendorff_alpha", {"level": "ordinal"}, kl.krippendorff_alpha),
    ("krippendorff_alpha", {"level": "interval"}, kl.krippendorff_alpha),
    ("fleiss_kappa", {}, kl.fleiss_kappa),
    ("fleiss_kappa", {"weights": "quadratic"}, kl.fleiss_kappa),
    ("gwet_ac", {}, kl.gwet_ac),
    ("gwet_ac", {"weights": "ordinal"}, kl.gwet_ac),
    ("brennan_prediger", {}, kl.brennan_prediger),
    ("percent_agreement", {}, kl.percent_agreement),
    ("spa", {}, kl.spa),
    ("spa", {"scheme": "inv_var_class"}, kl.spa),
    ("spa_kappa", {}, kl.spa_kappa),
]


def close(a, b, tol=1e-12):
    return abs(a - b) <= tol * max(1.0, abs(b))


@pytest.mark.slow
@pytest.mark.parametrize("name,options,function", CASES,
                         ids=[f"{n}-{'-'.join(map(str, o.values())) or 'default'}"
                              for n, o, _ in CASES])
def test_equals_the_in_memory_estimate_and_its_analytic_se(name, options, function):
    ddf = dd.from_pandas(FRAME, npartitions=7, sort=False)
    assert spans_partitions(ddf)  # items are split across partitions before the shuffle
    got = estimate(name, ddf, ci="analytic", scheduler=SYNC, **options)
    want = function(FRAME, ci="analytic", **options)
    assert got.coefficient == want.coefficient and got.level == want.level
    assert close(got.value, want.value) and close(got.se, want.se)
    assert close(got.ci[0], want.ci[0]) and close(got.ci[1], want.ci[1])
    assert close(got.observed, want.observed) and close(got.expected, want.expected)
    assert (got.n_items, got.n_annotations, got.n_raters) == (
        want.n_items, want.n_annotations, want.n_raters)
    assert got.details["n_partitions"] == 7
    counts = [k for k in want.details if k.startswith(("n_items", "n_annotations"))]
    assert counts and all(got.details[k] == want.details[k] for k in counts)


def test_the_function_itself_names_the_estimator_and_spa_always_has_its_se():
    ddf = dd.from_pandas(FRAME, npartitions=3, sort=False)
    got = estimate(kl.spa, ddf, scheduler=SYNC)
    want = kl.spa(FRAME)
    assert close(got.value, want.value) and close(got.se, want.se) and got.ci is None


@pytest.mark.slow
@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval"])
def test_cross_kappa_equals_the_in_memory_estimate(level):
    x = long_frame(seed=1, n_items=200)
    y = long_frame(seed=2, n_items=260).assign(rater=lambda f: "y" + f["rater"])
    # items i200 … i259 are on Y only
    y = y[y["item"] != "i7"]  # an item on X only
    got = cross_kappa(dd.from_pandas(x, npartitions=5, sort=False),
                      dd.from_pandas(y, npartitions=3, sort=False), level=level,
                      ci="analytic", scheduler=SYNC)
    want = kl.cross_kappa(x, y, level=level, ci="analytic")
    assert close(got.value, want.value) and close(got.se, want.se)
    assert close(got.ci[0], want.ci[0]) and close(got.ci[1], want.ci[1])
    assert (got.n_items, got.n_annotations) == (want.n_items, want.n_annotations)
    assert {k: got.details[k] for k in want.details if k.startswith("n_")} == {
        k: v for k, v in want.details.items() if k.startswith("n_")}


def test_a_frame_indexed_by_item_is_read_without_a_shuffle_and_parquet_round_trips(tmp_path):
    FRAME.to_parquet(tmp_path / "ann.parquet")
    read = dd.read_parquet(tmp_path / "ann.parquet")
    indexed = dd.from_pandas(FRAME.set_index("item").sort_index(), npartitions=4)
    want = kl.krippendorff_alpha(FRAME, level="interval", ci="analytic")
    for ddf in (read, indexed):
        got = estimate("krippendorff_alpha", ddf, level="interval", ci="analytic",
                       scheduler=SYNC)
        assert close(got.value, want.value) and close(got.se, want.se)


def test_poisson_weights_depend_on_the_label_and_seed_only():
    labels = [f"i{k}" for k in range(1000)]
    w = poisson_weights(labels, 300, seed=4)
    assert (poisson_weights(labels[::-1], 300, seed=4) == w[:, ::-1]).all()
    assert not (poisson_weights(labels, 300, seed=5) == w).all()
    # Poisson(1): P(0) = P(1) = 1/e, mean and variance 1 (3e5 draws: ±0.01 is > 5 SE)
    assert abs((w == 0).mean() - np.exp(-1)) < 0.01 and abs((w == 1).mean() - np.exp(-1)) < 0.01
    assert abs(w.mean() - 1) < 0.01 and abs(w.var() - 1) < 0.02
    # items and replicates independent: correlations near 0
    assert abs(np.corrcoef(w[:, 0], w[:, 1])[0, 1]) < 0.2
    assert abs(np.corrcoef(w[0], w[1])[0, 1]) < 0.1


@pytest.mark.parametrize("name,function", [("krippendorff_alpha", kl.krippendorff_alpha),
                                           ("fleiss_kappa", kl.fleiss_kappa),
                                           ("spa", kl.spa)])
def test_a_poisson_replicate_is_the_estimate_with_those_item_weights(name, function):
    # two replicates: SE = |v1 − v2|/√2 and the interval interpolates between them
    ddf = dd.from_pandas(FRAME, npartitions=4, sort=False)
    got = estimate(name, ddf, ci="poisson-bootstrap", n_resamples=2, seed=11, scheduler=SYNC)
    items = kl.Annotations.from_long(FRAME).items
    w = poisson_weights(items, 2, seed=11)
    v = np.array([function(FRAME, sample_weight=w[b]).value for b in range(2)])
    assert close(got.se, abs(v[0] - v[1]) / np.sqrt(2))
    low, high = np.quantile(v, [0.025, 0.975])
    assert close(got.ci[0], low) and close(got.ci[1], high)


@pytest.mark.slow
@pytest.mark.parametrize("name,options", [("krippendorff_alpha", {"level": "ordinal"}),
                                          ("gwet_ac", {})])
def test_the_poisson_bootstrap_is_the_same_for_any_partitioning(name, options):
    results = [estimate(name, dd.from_pandas(FRAME, npartitions=p, sort=False),
                        ci="poisson-bootstrap", n_resamples=300, seed=3, scheduler=SYNC,
                        **options) for p in (1, 4, 16)]
    for other in results[1:]:
        assert close(other.se, results[0].se)
        assert close(other.ci[0], results[0].ci[0]) and close(other.ci[1], results[0].ci[1])
    # and it estimates the item bootstrap's spread (300 replicates: within 20%)
    memory = getattr(kl, name)(FRAME, ci="bootstrap", n_resamples=2000, seed=0, **options)
    assert abs(results[0].se / memory.se - 1) < 0.2


@pytest.mark.slow
def test_cross_kappa_poisson_bootstrap_is_the_same_for_any_partitioning():
    x, y = long_frame(seed=1), long_frame(seed=2)
    se = [cross_kappa(dd.from_pandas(x, npartitions=p, sort=False),
                      dd.from_pandas(y, npartitions=q, sort=False), ci="poisson-bootstrap",
                      n_resamples=200, seed=9, scheduler=SYNC).se
          for p, q in ((1, 1), (4, 2), (16, 16))]
    assert close(se[1], se[0]) and close(se[2], se[0])


@pytest.mark.slow
def test_on_a_local_cluster():
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster):
        ddf = dd.from_pandas(FRAME, npartitions=6, sort=False)
        got = estimate("krippendorff_alpha", ddf, level="ordinal", ci="analytic")
    want = kl.krippendorff_alpha(FRAME, level="ordinal", ci="analytic")
    assert close(got.value, want.value) and close(got.se, want.se)


@pytest.mark.slow
def test_missing_values_are_dropped_with_one_warning_and_categories_can_be_given():
    frame = FRAME.astype({"value": float})
    frame.loc[::10, "value"] = np.nan
    ddf = dd.from_pandas(frame, npartitions=5, sort=False)
    message = f"dropped {frame['value'].isna().sum()} of {len(frame)} rows"
    with pytest.warns(DroppedAnnotationsWarning, match=message) as record:
        got = estimate("fleiss_kappa", ddf, categories=[1, 2, 3, 4, 5, 6], scheduler=SYNC)
    assert sum(issubclass(r.category, DroppedAnnotationsWarning) for r in record) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedAnnotationsWarning)
        want = kl.fleiss_kappa(frame, categories=[1, 2, 3, 4, 5, 6])
    assert close(got.value, want.value)
    # an unused category counts in K, which Gwet's chance agreement uses
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DroppedAnnotationsWarning)
        got = estimate("gwet_ac", ddf, categories=[1, 2, 3, 4, 5, 6], scheduler=SYNC)
        want = kl.gwet_ac(frame, categories=[1, 2, 3, 4, 5, 6])
    assert close(got.value, want.value) and got.details["n_categories"] == 6


def test_bad_input_is_refused_clearly():
    ddf = dd.from_pandas(FRAME, npartitions=2)
    with pytest.raises(InvalidParameterError, match="column 'label' \\(the value column\\)"):
        estimate("krippendorff_alpha", ddf, value="label", scheduler=SYNC)
    with pytest.raises(InvalidParameterError, match="column 'coder' \\(the rater column\\)"):
        cross_kappa(ddf, ddf, rater="coder", scheduler=SYNC)
    with pytest.raises(InvalidParameterError, match="must be a dask DataFrame"):
        estimate("krippendorff_alpha", FRAME)
    with pytest.raises(InvalidParameterError, match="no out-of-core form of 'icc'"):
        estimate("icc", ddf)
    with pytest.raises(InvalidParameterError, match="unknown ci 'bootstrap'"):
        estimate("fleiss_kappa", ddf, ci="bootstrap")
    with pytest.raises(InvalidParameterError, match="takes weights=, not level"):
        estimate("fleiss_kappa", ddf, level="ordinal")
    with pytest.raises(InvalidParameterError, match="differ in dtype"):
        other = FRAME.assign(item=np.arange(len(FRAME)))
        cross_kappa(ddf, dd.from_pandas(other, npartitions=2), scheduler=SYNC)
    twice = pd.concat([FRAME, FRAME.iloc[:1]])
    with pytest.raises(DuplicateAnnotationError):
        estimate("fleiss_kappa", dd.from_pandas(twice, npartitions=3, sort=False),
                 scheduler=SYNC)


def test_an_in_memory_estimator_refuses_a_dask_frame_with_a_pointer():
    ddf = dd.from_pandas(FRAME, npartitions=2)
    with pytest.raises(InvalidParameterError, match="kl.dask_estimate"):
        kl.krippendorff_alpha(ddf)
    with pytest.raises(InvalidParameterError, match="out of core"):
        kl.cross_kappa(FRAME, ddf)


@pytest.mark.slow
def test_partitioned_by_item_skips_the_shuffle_and_refuses_a_split_item():
    whole = dd.from_pandas(FRAME.set_index("item").sort_index(), npartitions=4).reset_index()
    want = kl.fleiss_kappa(FRAME, ci="analytic")
    got = estimate("fleiss_kappa", whole, partitioned_by_item=True, ci="analytic",
                   scheduler=SYNC)
    assert close(got.value, want.value) and close(got.se, want.se)
    # rows of one item in several partitions would be several items (fewer of them
    # pairable): the claim is checked and refused instead
    split = dd.from_pandas(FRAME, npartitions=7, sort=False)
    assert spans_partitions(split)
    with pytest.raises(InvalidParameterError,
                       match=r"partitioned_by_item=True, but item '.+' has annotations in "
                             r"partitions \d+ and \d+"):
        estimate("fleiss_kappa", split, partitioned_by_item=True, scheduler=SYNC)
    with pytest.raises(InvalidParameterError, match="partitioned_by_item must be True, False "
                                                    "or None, got 'yes'"):
        estimate("fleiss_kappa", split, partitioned_by_item="yes", scheduler=SYNC)


# ------------------------------------------------- Parquet files cut inside an item
SORTED = FRAME.sort_values(["item", "rater"], kind="stable").reset_index(drop=True)


def cuts_inside_items(frame, n_files):
    """Row positions that cut ``frame`` (sorted by item) into ``n_files`` files, each cut
    between two rows of one item: the item's first row stays before the cut, the rest after."""
    labels = frame["item"].to_numpy()
    first = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])  # each item's first row
    size = np.diff(np.r_[first, len(labels)])
    cuts = []
    for k in range(1, n_files):
        start = np.searchsorted(first, k * len(labels) // n_files)
        j = start + np.flatnonzero(size[start:] >= 2)[0]  # the next item with two rows
        cuts.append(int(first[j]) + 1)
    return cuts


def write_files(directory, frame, cuts):
    """``frame`` as Parquet files (pyarrow), one per run of rows between the cuts."""
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    directory.mkdir(parents=True, exist_ok=True)
    bounds = [0, *cuts, len(frame)]
    for k in range(len(bounds) - 1):
        table = pa.Table.from_pandas(frame.iloc[bounds[k]:bounds[k + 1]], preserve_index=False)
        pq.write_table(table, directory / f"part-{k:02d}.parquet")
    return directory


def split_labels(frame, cuts):
    """The items whose rows are on both sides of a cut (brute force)."""
    labels = frame["item"].to_numpy()
    return {labels[c] for c in cuts if labels[c - 1] == labels[c]}


@pytest.mark.slow
@pytest.mark.parametrize("n_files", [1, 2, 7])
@pytest.mark.parametrize("name,options,function", CASES,
                         ids=[f"{n}-{'-'.join(map(str, o.values())) or 'default'}"
                              for n, o, _ in CASES])
def test_item_sorted_parquet_cut_inside_an_item_gives_the_in_memory_estimate(
        tmp_path, n_files, name, options, function):
    cuts = cuts_inside_items(SORTED, n_files)
    assert len(split_labels(SORTED, cuts)) == n_files - 1  # every cut splits an item
    path = write_files(tmp_path / "ann", SORTED, cuts)
    ddf = dd.read_parquet(path, index="item", calculate_divisions=True)
    # dask takes the files' statistics for divisions, though an item straddles each boundary
    assert ddf.known_divisions and ddf.npartitions == n_files
    got = estimate(name, ddf, ci="analytic", scheduler=SYNC, **options)
    want = function(SORTED, ci="analytic", **options)
    assert (got.n_items, got.n_annotations) == (want.n_items, want.n_annotations)
    assert close(got.value, want.value) and close(got.se, want.se)
    assert close(got.ci[0], want.ci[0]) and close(got.ci[1], want.ci[1])


@pytest.mark.parametrize("n_files", [2, 7])
def test_partitioned_by_item_true_on_files_cut_inside_an_item_names_the_item(
        tmp_path, n_files):
    cuts = cuts_inside_items(SORTED, n_files)
    first = SORTED["item"].iloc[cuts[0]]  # the item split by the first cut, in files 0 and 1
    path = write_files(tmp_path / "ann", SORTED, cuts)
    for ddf in (dd.read_parquet(path, index="item", calculate_divisions=True),
                dd.read_parquet(path)):
        with pytest.raises(InvalidParameterError,
                           match=f"item '{first}' has annotations in partitions 0 and 1"):
            estimate("krippendorff_alpha", ddf, partitioned_by_item=True, scheduler=SYNC)


def test_cross_kappa_on_parquet_cut_inside_an_item(tmp_path):
    y = long_frame(seed=2).assign(rater=lambda f: "y" + f["rater"])
    y = y.sort_values(["item", "rater"]).reset_index(drop=True)
    read = [dd.read_parquet(write_files(tmp_path / side, frame, cuts_inside_items(frame, 3)),
                            index="item", calculate_divisions=True)
            for side, frame in (("x", SORTED), ("y", y))]
    got = cross_kappa(*read, level="ordinal", ci="analytic", scheduler=SYNC)
    want = kl.cross_kappa(SORTED, y, level="ordinal", ci="analytic")
    assert close(got.value, want.value) and close(got.se, want.se)


def shuffles(monkeypatch, ddf):
    """A list that records each shuffle of a frame of the type of ``ddf``."""
    calls = []
    original = type(ddf).shuffle

    def spy(self, *args, **kwargs):
        calls.append(kwargs.get("on", args[:1]))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(type(ddf), "shuffle", spy)
    return calls


@pytest.mark.slow
def test_files_of_whole_items_are_read_without_a_shuffle(tmp_path, monkeypatch):
    # cut between items: the files' item ranges are disjoint, whether or not the frame is
    # indexed by the item
    labels = SORTED["item"].to_numpy()
    first = np.flatnonzero(np.r_[True, labels[1:] != labels[:-1]])  # each item's first row
    cuts = [int(first[np.searchsorted(first, k * len(labels) // 5)]) for k in range(1, 5)]
    assert not split_labels(SORTED, cuts)
    path = write_files(tmp_path / "ann", SORTED, cuts)
    want = kl.krippendorff_alpha(SORTED, level="ordinal", ci="analytic")
    for ddf in (dd.read_parquet(path), dd.read_parquet(path, index="item",
                                                       calculate_divisions=True)):
        calls = shuffles(monkeypatch, ddf)
        for claim in (None, True):
            got = estimate("krippendorff_alpha", ddf, level="ordinal", ci="analytic",
                           partitioned_by_item=claim, scheduler=SYNC)
            assert close(got.value, want.value) and close(got.se, want.se)
        assert calls == []
        got = estimate("krippendorff_alpha", ddf, level="ordinal", partitioned_by_item=False,
                       scheduler=SYNC)
        assert close(got.value, want.value) and len(calls) == 1


@pytest.mark.slow
def test_files_of_whole_items_in_no_order_are_checked_exactly(tmp_path, monkeypatch):
    # items dealt to three files by their number mod 3: the files' label ranges overlap, so
    # only a count of the distinct items per file against the whole can tell that none is split
    number = SORTED["item"].str[1:].astype(int)
    dealt = pd.concat([SORTED[number % 3 == k] for k in range(3)], ignore_index=True)
    cuts = [int((number % 3 <= k).sum()) for k in range(2)]
    path = write_files(tmp_path / "dealt", dealt, cuts)
    ddf = dd.read_parquet(path)
    calls = shuffles(monkeypatch, ddf)
    want = kl.gwet_ac(SORTED, weights="ordinal", ci="analytic")
    got = estimate("gwet_ac", ddf, weights="ordinal", ci="analytic", partitioned_by_item=True,
                   scheduler=SYNC)
    assert close(got.value, want.value) and close(got.se, want.se) and calls == []
    got = estimate("gwet_ac", ddf, weights="ordinal", scheduler=SYNC)  # default: shuffled
    assert close(got.value, want.value) and len(calls) == 1
    # one annotation of item i4 (file 1) moved to the end of file 2
    rows = dealt.index[dealt["item"] == "i4"]
    moved = pd.concat([dealt.drop(rows[-1:]), dealt.loc[rows[-1:]]], ignore_index=True)
    path = write_files(tmp_path / "moved", moved, [cuts[0], cuts[1] - 1])
    with pytest.raises(InvalidParameterError,
                       match="item 'i4' has annotations in partitions 1 and 2 .* pass "
                             "partitioned_by_item=None"):
        estimate("gwet_ac", dd.read_parquet(path), partitioned_by_item=True, scheduler=SYNC)
    got = estimate("gwet_ac", dd.read_parquet(path), weights="ordinal", scheduler=SYNC)
    assert close(got.value, want.value)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, derandomize=True)
@given(st.lists(st.integers(1, len(SORTED) - 1), max_size=6, unique=True),
       st.sampled_from([("krippendorff_alpha", {"level": "interval"}, kl.krippendorff_alpha),
                        ("fleiss_kappa", {}, kl.fleiss_kappa),
                        ("spa", {}, kl.spa)]))
def test_the_estimate_never_depends_on_where_the_files_are_cut(cuts, case):
    import tempfile
    from pathlib import Path

    name, options, function = case
    cuts = sorted(cuts)
    want = function(SORTED, **options).value
    split = split_labels(SORTED, cuts)
    with tempfile.TemporaryDirectory() as directory:
        path = write_files(Path(directory), SORTED, cuts)
        ddf = dd.read_parquet(path, index="item", calculate_divisions=True)
        assert close(estimate(name, ddf, scheduler=SYNC, **options).value, want)
        if split:
            with pytest.raises(InvalidParameterError, match="has annotations in partitions"):
                estimate(name, ddf, partitioned_by_item=True, scheduler=SYNC, **options)
        else:
            got = estimate(name, ddf, partitioned_by_item=True, scheduler=SYNC, **options)
            assert close(got.value, want)


@pytest.mark.slow
def test_labels_without_an_order_are_checked_exactly():
    # an unordered categorical item column has no min and max, so no range proves the items
    # whole: the default shuffles, partitioned_by_item=True counts each label's partitions
    from dask import delayed

    number = FRAME["item"].str[1:].astype(int)
    frame = FRAME.assign(item=pd.Categorical(FRAME["item"]))
    dealt = [frame[number % 3 == k] for k in range(3)]
    want = kl.brennan_prediger(FRAME)
    for claim in (None, True):
        ddf = dd.from_delayed([delayed(part) for part in dealt], meta=frame.iloc[:0])
        got = estimate("brennan_prediger", ddf, partitioned_by_item=claim, scheduler=SYNC)
        assert close(got.value, want.value) and got.n_items == want.n_items
    last = dealt[1].index[dealt[1]["item"] == "i7"][-1:]  # one of item i7's two or more rows
    moved = [dealt[0], dealt[1].drop(last), pd.concat([dealt[2], dealt[1].loc[last]])]
    ddf = dd.from_delayed([delayed(part) for part in moved], meta=frame.iloc[:0])
    with pytest.raises(InvalidParameterError, match="item 'i7' has annotations in partitions 1 "
                                                    "and 2"):
        estimate("brennan_prediger", ddf, partitioned_by_item=True, scheduler=SYNC)


def test_a_correct_call_on_a_local_cluster_logs_nothing(capfd):
    """The README's example, a ten-row frame on a LocalCluster: no
    ``distributed.shuffle … WARNING`` line (the routine start and end of each shuffle of the
    items were logged at WARNING), and the value of the in-memory estimator."""
    import logging

    import distributed

    records = []
    handler = logging.Handler(logging.DEBUG)
    handler.emit = records.append
    watched = logging.getLogger("distributed")
    watched.addHandler(handler)
    frame = pd.DataFrame({"item": [1, 1, 1, 2, 2, 3, 3, 3, 4, 4],
                          "rater": ["a", "b", "c", "a", "b", "a", "b", "c", "b", "c"],
                          "value": [1, 1, 2, 3, 3, 2, 2, 2, 1, 3]})
    try:
        with distributed.LocalCluster(n_workers=2, processes=False,
                                      dashboard_address=None) as cluster, \
                distributed.Client(cluster):
            got = estimate("krippendorff_alpha", dd.from_pandas(frame, npartitions=2),
                           level="ordinal", ci="analytic")
    finally:
        watched.removeHandler(handler)
    shuffle = [r.getMessage() for r in records
               if r.name.startswith("distributed.shuffle") and r.levelno >= logging.WARNING]
    assert shuffle == []
    assert "distributed.shuffle" not in capfd.readouterr().err
    assert close(got.value, kl.krippendorff_alpha(frame, level="ordinal").value)
