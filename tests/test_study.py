"""kappalab.simulate.run_study: seeds from numpy's SeedSequence spawning, tables identical for
this process, one worker and three workers, checkpoint and resume, results that travel between
processes, and clear errors; checkpoints keyed by the replicate's content, of data only, with
every record checked, and workers that die."""

from __future__ import annotations

import functools
import pickle
import re
import warnings

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


@pytest.mark.slow
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


@pytest.mark.slow
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
    with pytest.warns(kl.errors.CheckpointWarning,
                      match=r"line 10 \(cell 2, replication 2\): it was cut short"):
        resumed = run_study(CELLS, counted, 3, client="serial", seed=1, checkpoint=path)
    assert CALLS == [(0.5, 120)]  # only the last replication of the last cell ran again
    pd.testing.assert_frame_equal(resumed, fresh, check_exact=True)
    assert path.stat().st_size == size


@pytest.mark.slow
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


# ------------------------------------------------------------------ checkpoints: identity
# Two lambdas share a module and a qualified name (test_study.<lambda>): only their code
# (a constant, a global name) tells them apart.
ONE = lambda cell, rng: {"x": 1.0}  # noqa: E731
TWO = lambda cell, rng: {"x": 2.0}  # noqa: E731
SINE = lambda cell, rng: {"x": float(np.sin(0.5))}  # noqa: E731
COSINE = lambda cell, rng: {"x": float(np.cos(0.5))}  # noqa: E731


def test_two_lambdas_do_not_share_records(tmp_path):
    path = tmp_path / "study.ckpt"
    assert ONE.__qualname__ == TWO.__qualname__ == SINE.__qualname__ == "<lambda>"
    for replicate, expected in [(ONE, 1.0), (TWO, 2.0), (SINE, np.sin(0.5)),
                                (COSINE, np.cos(0.5)), (ONE, 1.0)]:
        table = run_study(CELLS, replicate, 2, client="serial", checkpoint=path)
        assert table["x"].tolist() == [expected] * 6


def weight_sum(cell, rng, weights):
    return {"total": float(weights.sum())}


def test_partials_with_arrays_differing_in_one_element_do_not_share_records(tmp_path):
    """numpy elides arrays of more than 1 000 elements in their repr: np.zeros(2000) and the
    same array with a 1 at position 1000 print alike, so a key built from repr collides."""
    path = tmp_path / "study.ckpt"
    zeros, one_set = np.zeros(2000), np.zeros(2000)
    one_set[1000] = 1.0
    assert repr(zeros) == repr(one_set)
    for weights, expected in [(zeros, 0.0), (one_set, 1.0), (zeros, 0.0)]:
        table = run_study(CELLS, functools.partial(weight_sum, weights=weights), 2,
                          client="serial", checkpoint=path)
        assert table["total"].tolist() == [expected] * 6


def scaled_by(factor):
    def replicate(cell, rng):
        return {"x": factor * 1.0}
    return replicate


def test_closures_over_different_values_do_not_share_records(tmp_path):
    path = tmp_path / "study.ckpt"
    for factor in (2.0, 3.0, 2.0):
        table = run_study(CELLS, scaled_by(factor), 2, client="serial", checkpoint=path)
        assert table["x"].tolist() == [factor] * 6


# ------------------------------------------------------------------ checkpoints: damage
DRAWS: list[float] = []


def drawn(cell, rng):
    """One row; the first draw of the generator is noted (in this process), so that the test
    knows which replications ran: replication_rng(seed, c, r).random() identifies (c, r)."""
    x = rng.random()
    DRAWS.append(x)
    return {"x": x, "y": rng.normal()}


def ran(seed, n_cells, n):
    """The (cell, replication) pairs whose first draw is in DRAWS, by numpy's own streams."""
    first = {np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(c, r))).random():
             (c, r) for c in range(n_cells) for r in range(n)}
    return sorted(first[x] for x in DRAWS)


def assert_damage_reported(caught, path, where):
    """One CheckpointWarning names the file, the damaged record and says it runs again."""
    messages = [str(w.message) for w in caught
                if issubclass(w.category, kl.errors.CheckpointWarning)]
    assert any(str(path) in m and where in m and "damaged" in m
               and re.search("runs? again", m) for m in messages), messages


@pytest.mark.slow
def test_every_single_byte_flip_is_detected_and_rerun_or_refused(tmp_path, monkeypatch):
    """Brute force over every byte of a three-record checkpoint: with one bit flipped there
    (bit 0 of byte 0, bit 1 of byte 1, ...), the resumed table is bit-identical to a fresh
    one, or the file is refused as a whole (its first line, the format), never a silently
    different number."""
    import os

    monkeypatch.setattr(os, "fsync", lambda fd: None)  # the disk's latency, 730 times
    path = tmp_path / "study.ckpt"
    cells = [{"k": 0}]
    fresh = run_study(cells, drawn, 3, client="serial", seed=4, checkpoint=path)
    original = path.read_bytes()
    header = original.index(b"\n") + 1
    for position in range(len(original)):
        damaged = bytearray(original)
        damaged[position] ^= 1 << position % 8
        path.write_bytes(bytes(damaged))
        DRAWS.clear()
        if position < header:
            with pytest.raises(InvalidParameterError, match="not a run_study checkpoint"):
                run_study(cells, drawn, 3, client="serial", seed=4, checkpoint=path)
            assert path.read_bytes() == bytes(damaged)  # refused, left as it was
            continue
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            resumed = run_study(cells, drawn, 3, client="serial", seed=4,
                                checkpoint=path)
        pd.testing.assert_frame_equal(resumed, fresh, check_exact=True)
        # one record was hit, and only it runs again; a line's end, once changed, joins
        # it to the next line: both records run again (but the last has no next)
        joined = original[position] == ord("\n") and position < len(original) - 1
        assert len(DRAWS) == (2 if joined else 1), position
        for c, r in ran(4, 1, 3):
            assert_damage_reported(caught, path, f"cell {c}, replication {r}")
        # the file holds the original records again (the ones run again at its end)
        assert sorted(path.read_bytes().split(b"\n")) == sorted(original.split(b"\n"))


def test_a_flipped_byte_names_the_replication_and_reruns_it(tmp_path):
    path = tmp_path / "study.ckpt"
    fresh = run_study(CELLS, drawn, 20, client="serial", seed=8, checkpoint=path)
    data = bytearray(path.read_bytes())
    data[len(data) // 2] ^= 0x01
    path.write_bytes(bytes(data))
    DRAWS.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resumed = run_study(CELLS, drawn, 20, client="serial", seed=8, checkpoint=path)
    pd.testing.assert_frame_equal(resumed, fresh, check_exact=True)
    (c, r), = ran(8, len(CELLS), 20)
    assert_damage_reported(caught, path, f"cell {c}, replication {r}")


def test_zeros_in_the_middle_cost_only_the_records_they_hit(tmp_path):
    """64 zero bytes a third of the way into a 60-record file hit one or two records: those
    run again, the 40 after them are kept, and the file ends as long as it was."""
    path = tmp_path / "study.ckpt"
    cells = [{"k": 0}, {"k": 1}, {"k": 2}]
    fresh = run_study(cells, drawn, 20, client="serial", seed=3, checkpoint=path)
    size = path.stat().st_size
    data = bytearray(path.read_bytes())
    data[size // 3:size // 3 + 64] = bytes(64)
    path.write_bytes(bytes(data))
    DRAWS.clear()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        resumed = run_study(cells, drawn, 20, client="serial", seed=3, checkpoint=path)
    assert 1 <= len(DRAWS) <= 2
    pd.testing.assert_frame_equal(resumed, fresh, check_exact=True)
    for c, r in ran(3, len(cells), 20):
        assert_damage_reported(caught, path, f"cell {c}, replication {r}")
    assert path.stat().st_size == size
    DRAWS.clear()
    run_study(cells, drawn, 20, client="serial", seed=3, checkpoint=path)
    assert DRAWS == []


# ------------------------------------------------------------------ checkpoints: no code
class Payload:
    """Unpickling this creates the directory ``marker``: a stand-in for arbitrary code."""

    def __init__(self, marker):
        self.marker = str(marker)

    def __reduce__(self):
        import os

        return (os.mkdir, (self.marker,))


def test_a_pickle_as_the_whole_file_is_refused_without_running_it(tmp_path):
    path, marker = tmp_path / "study.ckpt", tmp_path / "ran"
    path.write_bytes(pickle.dumps(Payload(marker)))
    before = path.read_bytes()
    with pytest.raises(InvalidParameterError, match="not a run_study checkpoint"):
        run_study(CELLS, counted, 2, client="serial", checkpoint=path)
    assert not marker.exists()
    assert path.read_bytes() == before


def test_a_pickled_record_after_a_version_1_header_is_refused_without_running_it(tmp_path):
    path, marker = tmp_path / "study.ckpt", tmp_path / "ran"
    path.write_bytes(pickle.dumps("kappalab-study-checkpoint/1")
                     + pickle.dumps(("key", Payload(marker))))
    before = path.read_bytes()
    with pytest.raises(InvalidParameterError, match="format 1.*pickled.*delete it"):
        run_study(CELLS, counted, 2, client="serial", checkpoint=path)
    assert not marker.exists()
    assert path.read_bytes() == before


def test_a_pickled_record_after_a_valid_header_is_dropped_without_running_it(tmp_path):
    path, marker = tmp_path / "study.ckpt", tmp_path / "ran"
    path.write_bytes(b'{"format":"kappalab-study-checkpoint/2"}\n'
                     + pickle.dumps(("key", Payload(marker))) + b"\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        table = run_study(CELLS, counted, 2, client="serial", checkpoint=path)
    assert not marker.exists()
    pd.testing.assert_frame_equal(table, run_study(CELLS, counted, 2, client="serial"),
                                  check_exact=True)
    assert_damage_reported(caught, path, "line 2")


# ------------------------------------------------------------------ checkpoints: dying workers
def dies(cell, rng):
    """Ends its worker process, as a crash in compiled code or the kernel's OOM killer would,
    on the replications whose first draw is below ``cell["p"]`` — only where
    KAPPALAB_TEST_DIE=1 (in the child process below), so that the same function resumes the
    study in this process."""
    import os
    import time

    x = rng.random()
    if x < cell["p"] and os.environ.get("KAPPALAB_TEST_DIE") == "1":
        time.sleep(cell["before"])
        os._exit(1)
    DRAWS.append(x)
    return {"x": x}


STUDY_IN_A_CHILD = """
import json, sys, time
sys.path.insert(0, "tests")
import test_study
from kappalab.simulate import run_study
cells, n, workers, seed, path = json.loads(sys.argv[1])
start = time.perf_counter()
try:
    run_study(cells, test_study.dies, n, n_workers=workers, seed=seed, checkpoint=path,
              progress=False)
    print("finished")
except Exception as exc:
    print(type(exc).__name__, str(exc).replace(chr(10), " "))
print(time.perf_counter() - start)
"""


def study_with_dying_workers(cells, n, workers, seed, path):
    """run_study in a child process with KAPPALAB_TEST_DIE=1: (its last error, seconds)."""
    import json
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "KAPPALAB_TEST_DIE": "1"}
    result = subprocess.run([sys.executable, "-c", STUDY_IN_A_CHILD,
                             json.dumps([cells, n, workers, seed, str(path)])],
                            cwd=root, env=env, capture_output=True, text=True, timeout=150)
    lines = result.stdout.strip().splitlines()
    assert result.returncode == 0 and len(lines) >= 2, result.stderr[-3000:]
    return lines[-2], float(lines[-1])


@pytest.mark.slow
def test_a_replicate_that_kills_its_worker_ends_the_study_naming_it(tmp_path):
    """Every replication of cell 1 ends its worker's process: the study stops with a
    ReplicationError naming cell 1, the replication and its generator, within a minute, and
    the checkpoint keeps cell 0's replications, which ran first on the one worker."""
    path = tmp_path / "study.ckpt"
    cells = [{"p": 0.0, "before": 0.0}, {"p": 1.0, "before": 1.0}]
    error, seconds = study_with_dying_workers(cells, 4, 1, 11, path)
    assert seconds < 60
    assert error.startswith("ReplicationError"), error
    match = re.search(r"cell 1 .*replication (\d).*replication_rng\(11, 1, (\d)\)", error)
    assert match and match.group(1) == match.group(2), error
    DRAWS.clear()
    resumed = run_study(cells, dies, 4, client="serial", seed=11, checkpoint=path)
    assert ran(11, 2, 4) == [(1, r) for r in range(4)]  # cell 0 came from the checkpoint
    pd.testing.assert_frame_equal(resumed, run_study(cells, dies, 4, client="serial", seed=11),
                                  check_exact=True)


@pytest.mark.slow
def test_workers_dying_among_quick_replications_end_the_study_naming_one(tmp_path):
    """300 quick replications on two workers, of which those with a first draw below 0.02
    end their worker: results held by a dying worker are lost and recomputed while Dask
    retries the fatal ones. The study ends with a ReplicationError naming one of the fatal
    replications within a minute (never blocked waiting for a lost result), and everything
    it received stays in the checkpoint."""
    path = tmp_path / "study.ckpt"
    cells = [{"p": 0.02, "before": 0.0}]
    fatal = [r for r in range(300) if np.random.default_rng(
        np.random.SeedSequence(3, spawn_key=(0, r))).random() < 0.02]
    assert fatal[0] > 100 and len(fatal) == 8  # the first a hundred replications in
    error, seconds = study_with_dying_workers(cells, 300, 2, 3, path)
    assert seconds < 60
    assert error.startswith("ReplicationError"), error
    match = re.search(r"cell 0 .*replication (\d+).*replication_rng\(3, 0, (\d+)\)", error)
    assert match and int(match.group(1)) == int(match.group(2)) in fatal, error
    DRAWS.clear()
    resumed = run_study(cells, dies, 300, client="serial", seed=3, checkpoint=path)
    assert set(fatal) <= {r for _, r in ran(3, 1, 300)}  # never in the checkpoint
    assert len(DRAWS) < 300  # the replications received before the error were kept
    pd.testing.assert_frame_equal(resumed, run_study(cells, dies, 300, client="serial", seed=3),
                                  check_exact=True)


# ------------------------------------------------------------------ checkpoints: data only
def same(a, b) -> bool:
    """Equal type for type and bit for bit (NaN payloads, −0.0, dtypes and byte orders)."""
    import struct

    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, complex):
        return same(a.real, b.real) and same(a.imag, b.imag)
    if isinstance(a, (np.ndarray, np.generic)):
        return a.dtype == b.dtype and a.dtype.str == b.dtype.str and a.shape == b.shape \
            and a.tobytes() == b.tobytes()
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(map(same, a, b))
    if isinstance(a, dict):
        return same(list(a), list(b)) and same(list(a.values()), list(b.values()))
    return a == b


NAN_WITH_PAYLOAD = np.frombuffer(bytes.fromhex("0100000000f8ff7f"), "<f8")[0].item()
EXTREMES = {"nan": float("nan"), "minus_nan": -float("nan"), "payload": NAN_WITH_PAYLOAD,
            "inf": float("inf"), "minus_inf": float("-inf"), "minus_zero": -0.0,
            "tiny": 5e-324, "huge": 1.7976931348623157e308, "third": 1 / 3,
            "big": 2 ** 70, "minus_big": -(2 ** 64) - 1, "edge": 2 ** 53 + 1,
            "giant": 7 ** 6000, "text": "κ de Cohen, 🎲, 中文, \u0000", "empty": "",
            "none": None, "yes": True, "bytes": b"\x00\xff", "complex": complex(-0.0, 1e-300),
            "f32": np.float32(0.1), "f16": np.float16(-0.0), "i8": np.int8(-128),
            "u64": np.uint64(2 ** 64 - 1), "bool_": np.bool_(False),
            "when": np.datetime64("2026-01-02T03:04:05.123456789"),
            "str_": np.str_("α"), "bytes_": np.bytes_(b"ab"),
            "array": np.array([[0.5, np.nan], [-0.0, np.inf]]),
            "big_endian": np.arange(5, dtype=">i4"), "fortran": np.asfortranarray(np.eye(2)),
            "strings": np.array(["a", "bcd"]), "empty_array": np.zeros((0, 3)),
            "nested": {"list": [1, 2.5, ["x"]], "tuple": (1, (2, None)), 3: "int key"}}


def extremes(cell, rng):
    return [dict(EXTREMES), {"nan": rng.random()}]


def test_extreme_values_read_back_from_the_checkpoint_exactly(tmp_path):
    path = tmp_path / "study.ckpt"
    run_study(CELLS[:1], extremes, 2, client="serial", checkpoint=path)
    from kappalab.simulate.checkpoint import Checkpoint

    saved, damaged = Checkpoint(path).load()
    assert damaged == [] and len(saved) == 2
    # what the study received: results travel pickled, as between processes (numpy reads a
    # big-endian array back in the machine's order)
    received = pickle.loads(pickle.dumps(EXTREMES))
    for rows in saved.values():
        assert same(rows[0], received), rows[0]
        assert set(rows[1]) == {"nan"}
    Checkpoint(path).append("ef" * 32, 0, 8, [EXTREMES])  # as it was, big-endian too
    assert same(Checkpoint(path).load()[0]["ef" * 32], [EXTREMES])
    # a lone surrogate (which pandas cannot put in a table) survives a record too
    Checkpoint(path).append("cd" * 32, 0, 9, [{"\udc80": "\ud800"}])
    assert same(Checkpoint(path).load()[0]["cd" * 32], [{"\udc80": "\ud800"}])
    # and the tables of a fresh run and of the resumed one agree cell for cell
    resumed = run_study(CELLS[:1], extremes, 2, client="serial", checkpoint=path)
    fresh = run_study(CELLS[:1], extremes, 2, client="serial")
    assert list(resumed.columns) == list(fresh.columns)
    for column in fresh:
        a, b = fresh[column].to_numpy(), resumed[column].to_numpy()
        assert a.dtype == b.dtype, column
        if a.dtype != object:
            assert a.tobytes() == b.tobytes(), column
        else:
            assert all(same(x, y) or (x is None and y is None) for x, y in zip(a, b)), column


@pytest.mark.slow
def test_any_record_reads_back_as_written(tmp_path_factory):
    """Hypothesis: rows of None, booleans, integers of any size, floats (NaN, ±inf, −0.0),
    strings, bytes, numpy scalars and arrays of every storable dtype and byte order, nested
    in lists, tuples and dicts, read back equal type for type and bit for bit."""
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st
    from hypothesis.extra import numpy as hnp

    from kappalab.simulate.checkpoint import Checkpoint

    dtypes = st.one_of(hnp.boolean_dtypes(), hnp.integer_dtypes(endianness="?"),
                       hnp.unsigned_integer_dtypes(endianness="?"),
                       hnp.floating_dtypes(endianness="?"),
                       hnp.complex_number_dtypes(endianness="?"),
                       hnp.datetime64_dtypes(endianness="?"),
                       hnp.timedelta64_dtypes(endianness="?"),
                       hnp.byte_string_dtypes(), hnp.unicode_string_dtypes())
    arrays = hnp.arrays(dtypes, hnp.array_shapes(min_dims=0, max_dims=3, min_side=0,
                                                 max_side=3))
    scalars = hnp.arrays(dtypes, ()).map(lambda a: a[()])
    leaves = st.one_of(st.none(), st.booleans(), st.integers(),
                       st.integers(min_value=-(2 ** 300), max_value=2 ** 300),
                       st.floats(), st.sampled_from([NAN_WITH_PAYLOAD, -0.0]),
                       st.complex_numbers(), st.text(), st.binary(max_size=8), arrays,
                       scalars)
    values = st.recursive(leaves, lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.lists(inner, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=3) | st.integers(), inner, max_size=3)),
        max_leaves=8)
    rows = st.lists(st.dictionaries(st.text(max_size=5) | st.integers(), values, max_size=4),
                    min_size=1, max_size=3)
    folder = tmp_path_factory.mktemp("records")

    @settings(max_examples=150, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(rows)
    def check(written):
        path = folder / "study.ckpt"
        path.unlink(missing_ok=True)
        Checkpoint(path).append("ab" * 32, 0, 0, written)
        saved, damaged = Checkpoint(path).load()
        assert damaged == []
        assert same(saved["ab" * 32], written)

    check()


def test_a_result_that_is_not_data_is_refused_with_a_checkpoint(tmp_path):
    path = tmp_path / "study.ckpt"
    cells = [{"n_items": 30, "reliability": 0.5}]
    with pytest.raises(InvalidParameterError,
                       match=r"cell 0, replication 0 holds a kappalab\.annotations\.Annotations "
                             r"at 'annotations', which a checkpoint cannot store.*\.value"):
        run_study(cells, objects, 2, client="serial", checkpoint=path)
    assert not path.exists()  # nothing written
    run_study(cells, objects, 2, client="serial")  # without a checkpoint, anything that pickles


IDENTITIES = """
import functools, sys
from kappalab.simulate.checkpoint import replicate_identity

SMALL_PRIMES = frozenset({2, 3, 5, 7, "two", "three"})

def with_a_set(cell, rng):
    return {"prime": cell["n"] in {2, 3, 5, 7, "two", "three", "five"},
            "listed": cell["n"] in SMALL_PRIMES}

def weight_sum(cell, rng, weights):
    return {"n": len(weights)}

print(replicate_identity(with_a_set),
      replicate_identity(functools.partial(weight_sum, weights={"a", "b", "c", "d"})))
"""


@pytest.mark.slow
def test_the_key_of_a_function_is_the_same_in_every_process():
    """Sets of strings iterate in an order that changes with PYTHONHASHSEED: the identity of
    a replicate that holds one (a constant, a global, a bound argument) is the same in every
    process."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    seen = {subprocess.run([sys.executable, "-c", IDENTITIES], cwd=root, capture_output=True,
                           text=True, env={**os.environ, "PYTHONHASHSEED": str(seed)},
                           timeout=120, check=True).stdout for seed in (1, 2)}
    assert len(seen) == 1 and len(seen.pop().split()) == 2


def test_a_checkpoint_cut_short_in_its_first_line_starts_afresh(tmp_path):
    """Interrupted while its first line was written, the file holds no record: the study
    runs from the start, without a warning (a first line with other text is refused)."""
    path = tmp_path / "study.ckpt"
    path.write_bytes(b'{"format":"kappalab-st')
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        table = run_study(CELLS, drawn, 2, client="serial", checkpoint=path)
    pd.testing.assert_frame_equal(table, run_study(CELLS, drawn, 2, client="serial"),
                                  check_exact=True)
    assert path.read_bytes().startswith(b'{"format":"kappalab-study-checkpoint/2"}\n')
