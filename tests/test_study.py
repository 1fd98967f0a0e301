"""kappalab.simulate.run_study: seeds from numpy's SeedSequence spawning, tables identical for
this process, one worker and three workers, checkpoint and resume, results that travel between
processes, and clear errors."""

from __future__ import annotations

import functools
import pickle

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab import simulate
from kappalab.errors import InvalidParameterError, ReplicationError
from kappalab.simulate import replication_rng, run_study

distributed = pytest.importorskip("distributed")  # in the test extra: a skip here is a fault

CELLS = [{"n_items": 40, "reliability": 0.3}, {"n_items": 40, "reliability": 0.8},
         {"n_items": 120, "reliability": 0.5}]


def alpha_and_kappa(cell, rng):
    """Two rows per replication: α and Fleiss' κ with their analytic SE, and a draw of the
    generator after the simulation (so that the stream itself is compared, not only the
    estimates)."""
    ann, truth = simulate.annotations(cell["n_items"], reliability=cell["reliability"],
                                      annotations_per_item=(2, 4), seed=rng)
    alpha = kl.krippendorff_alpha(ann, ci="analytic")
    kappa = kl.fleiss_kappa(ann, ci="analytic")
    tail = rng.random()
    return [{"coefficient": "alpha", "value": alpha.value, "se": alpha.se, "truth": truth.alpha,
             "tail": tail},
            {"coefficient": "fleiss", "value": kappa.value, "se": kappa.se,
             "truth": truth.fleiss_kappa, "tail": tail}]


def objects(cell, rng):
    """What studies return besides numbers: annotations, truths, estimates."""
    ann, truth = simulate.annotations(cell["n_items"], reliability=cell["reliability"],
                                      seed=rng)
    return {"annotations": ann, "truth": truth, "estimate": kl.krippendorff_alpha(ann)}


@pytest.fixture(scope="module")
def serial_table():
    return run_study(CELLS, alpha_and_kappa, 6, client="serial", seed=2026)


def test_table_layout_and_order(serial_table):
    assert serial_table.columns.tolist() == ["n_items", "reliability", "replication",
                                             "coefficient", "value", "se", "truth", "tail"]
    assert len(serial_table) == len(CELLS) * 6 * 2
    expected = [(cell["reliability"], r, name) for cell in CELLS for r in range(6)
                for name in ("alpha", "fleiss")]
    assert list(zip(serial_table["reliability"], serial_table["replication"],
                    serial_table["coefficient"])) == expected


def test_each_replication_draws_from_its_spawned_seed_sequence(serial_table):
    """Replication r of cell c uses the stream SeedSequence(seed).spawn(cells)[c].spawn(n)[r]:
    recomputed here by numpy's own spawning, outside run_study."""
    children = np.random.SeedSequence(2026).spawn(len(CELLS))
    for c, cell in enumerate(CELLS):
        grandchildren = children[c].spawn(6)
        for r in (0, 5):
            rows = alpha_and_kappa(cell, np.random.default_rng(grandchildren[r]))
            got = serial_table[(serial_table["reliability"] == cell["reliability"])
                               & (serial_table["replication"] == r)]
            assert got["value"].tolist() == [row["value"] for row in rows]
            assert got["tail"].tolist() == [row["tail"] for row in rows]
    # (spawn() continues where the last call stopped: a fresh SeedSequence for each check)
    fresh = np.random.SeedSequence(2026).spawn(2)[1].spawn(5)[4]
    assert replication_rng(2026, 1, 4).random() == np.random.default_rng(fresh).random()


def test_replications_are_independent_streams(serial_table):
    tails = serial_table.drop_duplicates(["reliability", "replication"])["tail"]
    assert tails.nunique() == len(tails)


def test_one_worker_three_workers_and_this_process_give_bit_identical_tables(serial_table):
    # one worker: the local cluster run_study starts and closes itself
    one = run_study(CELLS, alpha_and_kappa, 6, n_workers=1, seed=2026, progress=False)
    # three workers: an existing cluster, by its scheduler's address
    with distributed.LocalCluster(n_workers=3, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        three = run_study(CELLS, alpha_and_kappa, 6, client=cluster.scheduler_address,
                          seed=2026, progress=False)
        with distributed.Client(cluster) as client:
            batched = run_study(CELLS, alpha_and_kappa, 6, client=client, seed=2026,
                                batch_size=4, progress=False)
    for table in (one, three, batched):
        pd.testing.assert_frame_equal(table, serial_table, check_exact=True)


def test_annotations_truths_and_estimates_travel_between_processes():
    cells = [{"n_items": 30, "reliability": 0.5}]
    served = run_study(cells, objects, 2, n_workers=1, seed=5, progress=False)
    local = run_study(cells, objects, 2, client="serial", seed=5)
    for (_, a), (_, b) in zip(served.iterrows(), local.iterrows()):
        assert a["estimate"] == b["estimate"]
        assert a["truth"] == b["truth"]
        assert a["annotations"].n_items == 30
        pd.testing.assert_frame_equal(a["annotations"].to_long(), b["annotations"].to_long())


def test_posterior_summaries_pickle():
    """A Bayesian fit's Posterior (around its InferenceData) and its summary survive pickling,
    the way a study's task returns them."""
    az = pytest.importorskip("arviz")
    from kappalab.bayes import Posterior

    rng = np.random.default_rng(0)
    post = Posterior(az.from_dict(posterior={"kappa": rng.normal(0.5, 0.1, (2, 200))}),
                     model="example")
    copied = pickle.loads(pickle.dumps(post))
    assert copied.mean("kappa") == post.mean("kappa")
    assert copied.interval("kappa") == post.interval("kappa")


CALLS: list[tuple] = []


def counted(cell, rng, fail_at=None):
    CALLS.append((cell["reliability"], cell.get("n_items")))
    if fail_at is not None and (cell["reliability"], len(CALLS)) == fail_at:
        raise RuntimeError("simulated crash")
    return {"x": rng.random()}


def test_checkpoint_resumes_an_interrupted_study(tmp_path):
    path = tmp_path / "study.ckpt"
    fresh = run_study(CELLS, counted, 4, client="serial", seed=9)
    CALLS.clear()
    # the 7th replication raises: 6 are in the checkpoint
    with pytest.raises(ReplicationError, match=r"cell 1 .*replication 2 .*replication_rng\(9, "
                                                r"1, 2\).*simulated crash"):
        run_study(CELLS, functools.partial(counted, fail_at=(0.8, 7)), 4, client="serial",
                  seed=9, checkpoint=path)
    # a different function (by its bound arguments) shares nothing with that file
    CALLS.clear()
    resumed = run_study(CELLS, counted, 4, client="serial", seed=9, checkpoint=path)
    assert len(CALLS) == 12
    pd.testing.assert_frame_equal(resumed, fresh, check_exact=True)
    # now every replication is in the file: nothing runs again
    CALLS.clear()
    again = run_study(CELLS, counted, 4, client="serial", seed=9, checkpoint=path)
    assert CALLS == []
    pd.testing.assert_frame_equal(again, fresh, check_exact=True)
    # another seed is another study
    run_study(CELLS, counted, 4, client="serial", seed=10, checkpoint=path)
    assert len(CALLS) == 12


def test_checkpoint_drops_a_record_cut_short_and_reruns_it(tmp_path):
    path = tmp_path / "study.ckpt"
    fresh = run_study(CELLS, counted, 3, client="serial", seed=1, checkpoint=path)
    size = path.stat().st_size
    with open(path, "r+b") as stream:
        stream.truncate(size - 5)  # the last record loses its end
    CALLS.clear()
    resumed = run_study(CELLS, counted, 3, client="serial", seed=1, checkpoint=path)
    assert CALLS == [(0.5, 120)]  # only the last replication of the last cell ran again
    pd.testing.assert_frame_equal(resumed, fresh, check_exact=True)
    assert path.stat().st_size == size


def test_checkpoint_resumes_on_dask_from_a_serial_start(tmp_path):
    path = tmp_path / "study.ckpt"
    run_study(CELLS[:1], alpha_and_kappa, 6, client="serial", seed=2026, checkpoint=path)
    table = run_study(CELLS, alpha_and_kappa, 6, n_workers=1, seed=2026, checkpoint=path,
                      progress=False)
    expected = run_study(CELLS, alpha_and_kappa, 6, client="serial", seed=2026)
    pd.testing.assert_frame_equal(table, expected, check_exact=True)


def test_a_file_that_is_not_a_checkpoint_is_refused(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text("my notes\n")
    with pytest.raises(InvalidParameterError, match="not a run_study checkpoint"):
        run_study(CELLS, counted, 2, client="serial", checkpoint=path)
    assert path.read_text() == "my notes\n"


def dataframe_rows(cell, rng):
    return pd.DataFrame({"k": [1, 2], "v": rng.random(2)})


def tuple_result(cell, rng):
    return (1, 2)


def clashing(cell, rng):
    return {"n_items": 3}


def test_results_as_dataframes_and_plain_cells():
    table = run_study(["a", "b"], dataframe_rows, 2, client="serial")
    assert table.columns.tolist() == ["cell", "replication", "k", "v"]
    assert table["cell"].tolist() == ["a"] * 4 + ["b"] * 4


@pytest.mark.parametrize("arguments, match", [
    (([], counted, 2), "cells is empty"),
    ((CELLS, counted, 0), "n_replications must be a whole number ≥ 1"),
    ((CELLS, counted, 2.5), "n_replications"),
    ((CELLS, "counted", 2), "replicate must be callable"),
    ((CELLS, tuple_result, 2), "returned tuple on cell 0, replication 0"),
    ((CELLS, clashing, 2), r"keys \['n_items'\]"),
])
def test_bad_arguments_get_clear_errors(arguments, match):
    with pytest.raises(InvalidParameterError, match=match):
        run_study(*arguments, client="serial")


def test_bad_seed_and_client():
    with pytest.raises(InvalidParameterError, match="seed must be a whole number ≥ 0"):
        run_study(CELLS, counted, 1, client="serial", seed=-1)
    with pytest.raises(InvalidParameterError, match="client must be None, 'serial'"):
        run_study(CELLS, counted, 1, client=3.0)
