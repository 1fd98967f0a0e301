"""One validation path for seed, n_resamples and confidence: clear errors, never a TypeError."""

import math

import numpy as np
import pytest

import kappalab as kl
from kappalab.errors import InvalidParameterError
from kappalab.validation import check_count, check_real, make_rng

X = [[1, 1, 2], [2, 2, 2], [1, 1, 1], [3, 3, 2], [1, 2, 1]]
BAD_SEEDS = ["x", True, False, 1.5, -1, [1, "2"], [], [1, -2]]


@pytest.mark.parametrize("seed", BAD_SEEDS)
@pytest.mark.parametrize("ci", ["bootstrap", "jackknife", "analytic"])
def test_bad_seeds_are_refused_by_every_estimator(seed, ci):
    with pytest.raises(InvalidParameterError, match="seed must be"):
        kl.krippendorff_alpha(X, ci=ci, seed=seed)


@pytest.mark.parametrize("seed", BAD_SEEDS)
def test_bad_seeds_are_refused_by_the_other_entry_points(seed):
    with pytest.raises(InvalidParameterError, match="seed"):
        kl.bootstrap(kl.fleiss_kappa, X, seed=seed, n_resamples=10)
    with pytest.raises(InvalidParameterError, match="seed"):
        kl.split_half_reliability(X, seed=seed)
    with pytest.raises(InvalidParameterError, match="seed"):
        kl.simulate.annotations(20, reliability=0.5, seed=seed)


@pytest.mark.parametrize("n_resamples", [None, math.inf, math.nan, 1, -5, 2.5, "100", True])
def test_bad_n_resamples(n_resamples):
    with pytest.raises(InvalidParameterError, match="n_resamples must be an integer ≥ 2"):
        kl.fleiss_kappa(X, ci="bootstrap", n_resamples=n_resamples)


@pytest.mark.parametrize("confidence", [None, 0, 1, 1.5, math.nan, "0.95", True])
def test_bad_confidence(confidence):
    with pytest.raises(InvalidParameterError, match="confidence must be"):
        kl.fleiss_kappa(X, ci="analytic", confidence=confidence)


def test_good_values_pass_in_their_canonical_type():
    assert check_count(2000.0, "n") == 2000 and isinstance(check_count(np.int8(3), "n"), int)
    assert check_real(np.float32(0.5), "x") == 0.5
    rng = np.random.default_rng(0)
    assert make_rng(rng) is rng
    assert make_rng(np.random.SeedSequence(1)).integers(100) == \
        np.random.default_rng(np.random.SeedSequence(1)).integers(100)
    a = kl.fleiss_kappa(X, ci="bootstrap", n_resamples=200.0, seed=np.int64(3))
    b = kl.fleiss_kappa(X, ci="bootstrap", n_resamples=200, seed=3)
    assert a.ci == b.ci


def test_a_sequence_of_integers_seeds_as_numpy_does():
    assert make_rng([20220812, 2]).integers(10**9) == \
        np.random.default_rng([20220812, 2]).integers(10**9)


def test_progress_of_resampling_goes_to_stderr_only_when_asked(monkeypatch, capsys):
    import kappalab.progress

    monkeypatch.setattr(kappalab.progress, "DELAY", 0.0)
    x = np.random.default_rng(0).integers(0, 3, (200, 4))
    quiet = kl.fleiss_kappa(x, ci="bootstrap", seed=1, progress=False)
    assert capsys.readouterr().err == ""
    kl.fleiss_kappa(x, ci="bootstrap", seed=1)  # None: stderr is not a terminal here
    assert capsys.readouterr().err == ""
    shown = kl.fleiss_kappa(x, ci="bootstrap-bca", seed=1, progress=True)
    err = capsys.readouterr().err
    assert "bootstrap of Fleiss' kappa" in err and "jackknife of Fleiss' kappa" in err
    assert shown.value == quiet.value
    assert kl.fleiss_kappa(x, ci="bootstrap", seed=1, progress=True).ci == quiet.ci
