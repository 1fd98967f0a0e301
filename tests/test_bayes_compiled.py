"""Models compiled once per shape (kappalab.bayes.compiled): zero-weight padding adds nothing
to the log-density, a cached fit draws exactly what a fresh fit draws, and the cache is
bounded and keyed by the shape bucket."""

from __future__ import annotations

import functools
import os
import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("pymc")

from kappalab import bayes, simulate  # noqa: E402
from kappalab.bayes import compiled  # noqa: E402
from kappalab.bayes.cross_binary import BinaryPatterns, binary_loglik  # noqa: E402
from kappalab.bayes.cross_interval import (CrossIntervalStatistics,  # noqa: E402
                                           cross_interval_loglik)
from kappalab.bayes.models import (OneWayStatistics, dirichlet_multinomial_loglik,  # noqa: E402
                                   one_way_loglik)
from kappalab.errors import InvalidParameterError  # noqa: E402

pt = pytest.importorskip("pytensor.tensor")

SMALL = dict(draws=60, tune=60, chains=2, sampler="pymc")


def fit(function, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return function(*args, **kwargs)


def draws(post) -> dict[str, np.ndarray]:
    return {name: np.asarray(post.idata.posterior[name]) for name in post.idata.posterior}


def assert_same_draws(a, b):
    da, db = draws(a), draws(b)
    assert da.keys() == db.keys()
    for name in da:
        np.testing.assert_array_equal(da[name], db[name], err_msg=name)


def test_bucket_is_the_next_power_of_two():
    assert [compiled.bucket(n) for n in (0, 1, 4, 5, 8, 9, 500)] == [4, 4, 4, 8, 8, 16, 512]
    with pytest.raises(InvalidParameterError, match="must be >= 0"):
        compiled.bucket(-1)
    with pytest.raises(InvalidParameterError, match="bucket is too small"):
        compiled.pad(np.ones(5), 4)


def test_padding_rows_add_nothing_to_the_dirichlet_multinomial_log_density():
    rng = np.random.default_rng(0)
    rows = rng.integers(0, 5, size=(7, 3)).astype(float)
    weight = rng.integers(1, 9, size=7).astype(float)
    pi, tau = np.array([0.2, 0.5, 0.3]), 1.7
    plain = dirichlet_multinomial_loglik(pt, rows, weight, pi, tau).eval()
    size = compiled.bucket(7)
    padded = dirichlet_multinomial_loglik(pt, compiled.pad(rows, size),
                                          compiled.pad(weight, size), pi, tau).eval()
    assert size == 8 and abs(padded - plain) <= 1e-12 * abs(plain)


@pytest.mark.slow
def test_padding_groups_add_nothing_to_the_one_way_log_density_or_its_gradient():
    rng = np.random.default_rng(1)
    m = rng.integers(1, 6, 300).astype(float)
    mean, ss = rng.normal(size=300), rng.chisquare(2, 300) * (m > 1)
    stats = OneWayStatistics.from_items(m, mean, ss)
    padded = stats.padded(compiled.bucket(stats.m.size) * 2)
    assert padded.m.size > stats.m.size
    theta = pt.dvector("theta")
    values = np.array([0.3, 0.8, 0.4])
    for st in (stats, padded):
        ll = one_way_loglik(pt, st, theta[0], theta[1], theta[2])
        value = ll.eval({theta: values})
        grad = pt.grad(ll, theta).eval({theta: values})
        if st is stats:
            reference, reference_grad = value, grad
    assert abs(value - reference) <= 1e-12 * abs(reference)
    np.testing.assert_allclose(grad, reference_grad, rtol=1e-12)


def test_padding_groups_add_nothing_to_the_cross_interval_log_density():
    rng = np.random.default_rng(2)
    items = []
    for absent in (slice(75, 90), slice(60, 75)):  # Y-only items lack X, X-only items lack Y
        m = rng.integers(1, 7, 90).astype(float)  # 36 (R, S) groups, 6 one-sided
        m[absent] = 0.0
        mean, ss = rng.normal(size=90) * (m > 0), rng.random(90) * (m > 1)
        items.append((m, mean, ss))
    st = CrossIntervalStatistics.from_items(items[0], items[1], n_common=60, n_only_x=15)
    args = (0.1, -0.2, 0.6, 0.4, 0.5, 0.3, 0.7)
    plain = cross_interval_loglik(pt, st, *args).eval()
    padded = st.padded()
    assert padded.shape_key() != st.shape_key()
    assert abs(cross_interval_loglik(pt, padded, *args).eval() - plain) <= 1e-12 * abs(plain)


@pytest.mark.slow
def test_padding_patterns_add_nothing_to_the_binary_log_density():
    rng = np.random.default_rng(3)
    R, S = rng.integers(0, 6, 200).astype(float), rng.integers(1, 4, 200).astype(float)
    R[:3] = 2.0
    k_x, k_y = rng.binomial(R.astype(int), 0.4), rng.binomial(S.astype(int), 0.6)
    bp = BinaryPatterns.from_counts(R, k_x.astype(float), S, k_y.astype(float), step=0.3)
    padded = bp.padded()
    assert padded.shape_key() != bp.shape_key() and padded.z.size == bp.z.size
    args = (0.2, -0.3, 0.6, 0.5, 0.7)
    plain = binary_loglik(pt, bp, *args).eval()
    assert abs(binary_loglik(pt, padded, *args).eval() - plain) <= 1e-12 * abs(plain)


@pytest.mark.slow
@pytest.mark.parametrize("model", ["interval", "nominal", "cohen", "cross", "binary"])
def test_a_cached_fit_draws_exactly_what_a_fresh_fit_draws(model):
    if model == "interval":
        data = [simulate.annotations(150, level="interval", reliability=0.7, seed=s)[0]
                for s in (0, 1)]
        function, args = bayes.interval_reliability, [(d,) for d in data]
    elif model == "nominal":
        data = [simulate.annotations(150, reliability=0.6, seed=s)[0] for s in (0, 1)]
        function, args = bayes.nominal_reliability, [(d,) for d in data]
    elif model == "cohen":
        rng = np.random.default_rng(0)
        data = [(rng.integers(0, 3, 80), rng.integers(0, 3, 80)) for _ in range(2)]
        function, args = bayes.cohen_kappa, data
    elif model == "cross":
        data = [simulate.replications(100, rho=0.8, seed=s)[:2] for s in (0, 1)]
        function, args = bayes.cross_replication, data
    else:
        data = [simulate.replications(100, level="binary", rho=0.8, seed=s)[:2]
                for s in (0, 1)]
        function = functools.partial(bayes.cross_replication, level="binary",
                                     quadrature_step=0.25)
        args = data
    compiled.clear_cache()
    fit(function, *args[0], seed=5, **SMALL)  # builds the model of this signature
    cached = fit(function, *args[1], seed=7, **SMALL)  # a new dataset through pm.set_data
    info = compiled.cache_info()
    compiled.clear_cache()
    fresh = fit(function, *args[1], seed=7, **SMALL)
    assert info["size"] == 1 and info["hits"] == 1, info
    assert_same_draws(cached, fresh)
    chains = np.asarray(cached.idata.posterior["rho" if model in ("cross", "binary")
                                               else "kappa" if model != "interval" else "icc"])
    assert not np.array_equal(chains[0], chains[1])  # each chain has its own trace
    np.testing.assert_array_equal(cached.idata.sample_stats["step_size"],
                                  fresh.idata.sample_stats["step_size"])
    for name in cached.idata.posterior_predictive:
        np.testing.assert_array_equal(cached.idata.posterior_predictive[name],
                                      fresh.idata.posterior_predictive[name])
    timing = ("sampling_time", "created_at")
    assert ({k: v for k, v in cached.idata.posterior.attrs.items() if k not in timing}
            == {k: v for k, v in fresh.idata.posterior.attrs.items() if k not in timing})


@pytest.mark.slow
def test_the_trace_template_records_what_pymcs_own_trace_records(monkeypatch):
    data = [simulate.annotations(120, level="interval", reliability=0.6, seed=s)[0]
            for s in (3, 4)]
    compiled.clear_cache()
    fit(bayes.interval_reliability, data[0], seed=1, **SMALL)
    cached = fit(bayes.interval_reliability, data[1], seed=2, **SMALL)
    compiled.clear_cache()
    monkeypatch.setattr(compiled.CompiledModel, "trace_template", lambda self: None)
    plain = fit(bayes.interval_reliability, data[1], seed=2, **SMALL)  # pm.sample's own trace
    compiled.clear_cache()
    assert_same_draws(cached, plain)
    icc = np.asarray(plain.idata.posterior["icc"])
    assert not np.array_equal(icc[0], icc[1])


@pytest.mark.slow
def test_category_labels_follow_the_data_not_the_first_fit():
    compiled.clear_cache()
    a = fit(bayes.nominal_reliability, [["a", "b"], ["a", "a"], ["b", "b"]], seed=0, **SMALL)
    b = fit(bayes.nominal_reliability, [["x", "y"], ["x", "x"], ["y", "y"]], seed=0, **SMALL)
    assert compiled.cache_info()["hits"] == 1
    assert list(a.idata.posterior["category"].values) == ["a", "b"]
    assert list(b.idata.posterior["category"].values) == ["x", "y"]
    np.testing.assert_array_equal(a["kappa"], b["kappa"])  # the same counts, relabelled


def test_the_cache_is_bounded_and_least_recently_used(monkeypatch):
    compiled.clear_cache()
    monkeypatch.setattr(compiled, "CACHE_SIZE", 2)
    built = []

    def builder(tag):
        def build(pm, pt, Model):
            built.append(tag)
            with Model() as model:
                y = pm.Data("y", np.zeros(4))
                mu = pm.Normal("mu")
                pm.Potential("loglik", -0.5 * ((y - mu) ** 2).sum())
            return model
        return build

    a = compiled.compiled_model("a", builder("a"), ["y"])
    compiled.compiled_model("b", builder("b"), ["y"])
    assert compiled.compiled_model("a", builder("a"), ["y"]) is a  # a is now the newest
    compiled.compiled_model("c", builder("c"), ["y"])  # evicts b
    assert compiled.cache_info()["size"] == 2
    compiled.compiled_model("b", builder("b"), ["y"])
    assert built == ["a", "b", "c", "b"]
    with pytest.raises(InvalidParameterError, match="takes the data"):
        a.fit({"z": np.zeros(4)}, None, ["mu"])
    compiled.clear_cache()


@pytest.mark.slow
def test_datasets_of_similar_size_share_one_compiled_model():
    compiled.clear_cache()
    for seed, n in ((0, 300), (1, 320), (2, 280)):
        ann, _ = simulate.annotations(n, reliability=0.6, seed=seed)
        fit(bayes.nominal_reliability, ann, seed=seed, draws=20, tune=20, chains=1,
            sampler="pymc")
    info = compiled.cache_info()
    compiled.clear_cache()
    assert info["misses"] == 1 and info["hits"] == 2, info


@pytest.mark.slow
def test_nutpie_compiles_a_model_once_for_datasets_of_every_size():
    # nutpie's numba functions take data of any length: one compilation serves two shape
    # buckets (80 and 400 items), and a fit from the cache draws exactly what a fit after a
    # fresh compilation draws with the same seed and data
    small, _ = simulate.annotations(80, reliability=0.6, seed=0)
    large, truth = simulate.annotations(400, reliability=0.6, annotations_per_item=(2, 8),
                                        seed=1)
    options = dict(draws=300, tune=300, chains=2, sampler="nutpie")
    compiled.clear_cache()
    fit(bayes.nominal_reliability, small, seed=5, **options)
    cached = fit(bayes.nominal_reliability, large, seed=7, **options)
    info = compiled.cache_info()
    assert info["nutpie_models"] == 1 and info["size"] == 2, info
    compiled.clear_cache()
    fresh = fit(bayes.nominal_reliability, large, seed=7, **options)
    compiled.clear_cache()
    assert_same_draws(cached, fresh)
    assert cached.idata.posterior.attrs["sampler"] == "nutpie"
    # the same posterior as PyMC's sampler: means within 4 Monte Carlo SEs of each other
    pymc = fit(bayes.nominal_reliability, large, seed=7, draws=300, tune=300, chains=2,
               sampler="pymc")
    a, b = cached["kappa"], pymc["kappa"]
    mcse = np.hypot(a.std(), b.std()) / np.sqrt(200)  # ≥ 200 effective draws each
    assert abs(a.mean() - b.mean()) < 4 * mcse
    low, high = cached.interval("kappa")
    assert low < truth.alpha < high


NUTPIE_FIT = """
import hashlib, warnings
warnings.simplefilter("ignore")
from kappalab import bayes, simulate
x, y, _ = simulate.replications(60, level="interval", rho=0.8, seed=2)
post = bayes.cross_replication(x, y, level="interval", draws=50, tune=50, chains=1, seed=5,
                               sampler="nutpie")
print(hashlib.sha256(post["kx"].tobytes()).hexdigest())
"""


@pytest.mark.slow
def test_nutpie_draws_do_not_depend_on_numbas_cache(tmp_path):
    # numba keeps compiled code on disk; with fastmath the interval κx model's cached code
    # and a fresh compilation drew different chains for the same seed. With an empty
    # compile directory of its own, the first process surely compiles afresh (and writes
    # the cache) and the second surely loads it: both must draw the same bits.
    env = {**os.environ, "OMP_NUM_THREADS": "1",
           "PYTENSOR_FLAGS": f"numba__cache=True,base_compiledir={tmp_path}"}

    def digest() -> str:
        result = subprocess.run([sys.executable, "-c", NUTPIE_FIT], env=env, text=True,
                                capture_output=True, timeout=600)
        assert result.returncode == 0, result.stderr[-2000:]
        return result.stdout.strip().splitlines()[-1]

    fresh = digest()
    assert any((tmp_path / "numba").rglob("*.nbi")), "the first process wrote no cache"
    assert digest() == fresh
