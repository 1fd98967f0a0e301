r"""Models compiled once per shape: a bounded cache of PyMC models fed through ``pm.Data``.

Building a PyMC model and compiling its log-density, its gradient and the function that
records the draws costs about a second per fit even when nothing but the data changes, and
many seconds when new constants need new C code. The models of :mod:`kappalab.bayes` are
therefore built with their per-item statistics as shared inputs (``pm.Data``), once per
*signature* — (model kind, options that enter the graph such as the priors, shape bucket) —
and kept in a module-level least-recently-used cache of :data:`CACHE_SIZE` entries. A new
dataset with the same signature is swapped in with ``pm.set_data`` and sampled with the
already compiled functions: the NUTS log-density and gradient (``Model.logp_dlogp_function``
is memoised per model) and the trace's point function (a trace template handed to
``pm.sample(trace=...)``). Everything else runs through ``pm.sample`` exactly as before, so a
cached fit draws exactly what a fresh one draws with the same seed and data.

nutpie
------
With ``sampler="nutpie"`` the same model is compiled by nutpie (numba backend) once per
*family* — the signature without its shape, since the compiled functions take data of any
length — and each dataset is handed over with nutpie's ``with_data``. That compilation took
14–53 s for kappalab's models on a 2-core machine (less when numba's cache on disk holds
them), after which a fit took 3–6 times less than PyMC's (no Python between leapfrog steps),
so nutpie pays only when a process fits one model many times: simulation studies. The nutpie
models are kept in a second least-recently-used cache of :data:`CACHE_SIZE` entries.

Shape buckets
-------------
The statistics' leading dimension (distinct rows of item statistics, groups of items) is
padded to :func:`bucket` ``(n)``, the next power of two (at least :data:`MIN_BUCKET`), with
rows of weight zero that add exactly zero to the log-likelihood and to its gradient, so
datasets of similar size share one compiled model.

Thread safety
-------------
The cache itself is guarded by a lock, and each entry has its own lock held from
``pm.set_data`` to the end of sampling (:meth:`CompiledModel.fit`): two threads fitting the
same signature take turns, different signatures run concurrently. Worker processes each
have their own cache.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any, Callable, Hashable, Mapping, Sequence

import numpy as np

from ..errors import InvalidParameterError
from ..validation import check_count, is_integer

__all__ = ["CACHE_SIZE", "MIN_BUCKET", "CompiledModel", "bucket", "cache_info",
           "clear_cache", "compiled_model", "data_inputs", "fit_model", "nutpie_model", "pad"]

#: the number of compiled models kept (least recently used ones are dropped first)
CACHE_SIZE = 16
#: the smallest shape bucket
MIN_BUCKET = 4

_CACHE: "OrderedDict[Hashable, CompiledModel]" = OrderedDict()
_NUTPIE: "OrderedDict[Hashable, Any]" = OrderedDict()
_CACHE_LOCK = threading.Lock()
_STATS = {"hits": 0, "misses": 0}


def bucket(n: int) -> int:
    """The shape bucket of ``n`` rows: the next power of two ≥ n, at least :data:`MIN_BUCKET`.

    Parameters
    ----------
    n : int
        The number of rows of statistics (≥ 0).

    Returns
    -------
    int
        The padded number of rows.

    Raises
    ------
    InvalidParameterError
        ``n`` negative.

    Examples
    --------
    >>> bucket(0), bucket(5), bucket(8), bucket(9)
    (4, 8, 8, 16)
    """
    if is_integer(n) and n < 0:
        raise InvalidParameterError(f"a number of rows must be >= 0, got {n}")
    n = check_count(n, "a number of rows")
    return max(MIN_BUCKET, 1 << max(0, n - 1).bit_length())


def pad(values: Any, size: int, fill: float = 0.0) -> np.ndarray:
    """``values`` as float64, its first axis padded with ``fill`` up to ``size`` rows.

    Parameters
    ----------
    values : array_like
        The rows of statistics (first axis: rows).
    size : int
        The number of rows wanted (≥ the number of rows of ``values``).
    fill : float
        The value of the padding rows.

    Returns
    -------
    numpy.ndarray
        Shape ``(size,) + values.shape[1:]``.

    Raises
    ------
    InvalidParameterError
        ``size`` smaller than the number of rows.

    Examples
    --------
    >>> pad([1, 2, 3], 4).tolist(), pad([[1, 2]], 2, fill=1.0).tolist()
    ([1.0, 2.0, 3.0, 0.0], [[1.0, 2.0], [1.0, 1.0]])
    """
    values = np.asarray(values, dtype=np.float64)
    if size < values.shape[0]:
        raise InvalidParameterError(
            f"cannot pad {values.shape[0]} rows to {size}: the bucket is too small")
    out = np.full((size,) + values.shape[1:], fill, dtype=np.float64)
    out[:values.shape[0]] = values
    return out


class CompiledModel:
    """A PyMC model built once with ``pm.Data`` inputs, with its compiled functions.

    Parameters
    ----------
    model : pymc.Model
        A model whose data are ``pm.Data`` (shared) variables, built by :func:`compiled_model`
        with logp-and-gradient memoisation.
    data_names : sequence of str
        The names of its ``pm.Data`` variables, each of which :meth:`fit` must be given.
    family : hashable
        The signature without the shape: the key of its nutpie compilation.

    Examples
    --------
    >>> import numpy as np
    >>> from kappalab.bayes.sampling import SamplingOptions
    >>> def build(pm, pt, Model):
    ...     with Model() as model:
    ...         y = pm.Data("y", np.zeros(4))
    ...         mu = pm.Normal("mu", 0.0, 10.0)
    ...         pm.Potential("loglik", -0.5 * ((y - mu) ** 2).sum())
    ...     return model
    >>> entry = compiled_model("example", build, ["y"], shape=(4,))
    >>> options = SamplingOptions(50, 50, 1, 0, "pymc")
    >>> posterior, stats = entry.fit({"y": np.ones(4)}, options, ["mu"])  # doctest: +SKIP
    >>> entry.data_names
    ('y',)
    """

    def __init__(self, model, data_names: Sequence[str], family: Hashable = None):
        self.model = model
        self.data_names = tuple(data_names)
        self.family = family
        self.lock = threading.Lock()
        self._trace = None

    def trace_template(self):
        """The NDArray trace whose compiled point function every chain copies (built once).

        ``pm.sample`` gives each chain ``copy(template)``; a plain shallow copy would share the
        template's dict of sample arrays, so that every chain (and every later fit) wrote into
        the same arrays. The template's copies start with their own empty dict.
        """
        if self._trace is None:
            from pymc.backends.ndarray import NDArray

            class TraceTemplate(NDArray):
                def __copy__(self):
                    twin = object.__new__(type(self))
                    twin.__dict__.update(self.__dict__)
                    twin.samples, twin.draw_idx, twin.draws, twin._stats = {}, 0, None, None
                    return twin

            self._trace = TraceTemplate(model=self.model,
                                        test_point=self.model.initial_point(0))
        return self._trace

    def fit(self, data: Mapping[str, Any], options, keep: Sequence[str]):
        """Set the data and sample; returns what ``kappalab.bayes.sampling.sample`` does.

        Parameters
        ----------
        data : mapping
            A value for each of ``data_names`` (shapes as the model was built with).
        options : kappalab.bayes.sampling.SamplingOptions
            The validated draws, tune, chains, seed and sampler.
        keep : sequence of str
            The posterior variables to return.

        Returns
        -------
        tuple
            (posterior Dataset restricted to ``keep``, sample_stats).

        Raises
        ------
        InvalidParameterError
            ``data`` does not name exactly the model's data variables.

        Examples
        --------
        See :class:`CompiledModel`.
        """
        from .sampling import sample

        if set(data) != set(self.data_names):
            raise InvalidParameterError(
                f"the compiled model takes the data {sorted(self.data_names)}, got "
                f"{sorted(data)}")
        if options.sampler == "nutpie":
            return _sample_nutpie(nutpie_model(self), data, options, keep)
        import pymc as pm

        with self.lock:
            pm.set_data(dict(data), model=self.model)
            return sample(self.model, options, keep, trace=self.trace_template())


def nutpie_model(entry: CompiledModel):
    """nutpie's compilation of ``entry.model`` (numba backend), cached per ``entry.family``.

    Parameters
    ----------
    entry : CompiledModel
        The PyMC model to compile; any entry of the family serves, since nutpie's compiled
        functions take data of any shape.

    Returns
    -------
    object
        nutpie's compiled model; ``with_data(**data)`` gives it another dataset.

    Raises
    ------
    ImportError
        nutpie (or numba) is not installed.

    Examples
    --------
    Entries of one family (here ``"example"``) in two shape buckets share one compilation:

    >>> import numpy as np
    >>> def build(pm, pt, Model):
    ...     with Model() as model:
    ...         y = pm.Data("y", np.zeros(4))
    ...         mu = pm.Normal("mu", 0.0, 10.0)
    ...         pm.Potential("loglik", -0.5 * ((y - mu) ** 2).sum())
    ...     return model
    >>> small = compiled_model("example", build, ["y"], shape=(4,))
    >>> large = compiled_model("example", build, ["y"], shape=(8,))
    >>> small is large, small.family == large.family == "example"
    (False, True)
    >>> nutpie_model(small) is nutpie_model(large)  # doctest: +SKIP
    True
    """
    with _CACHE_LOCK:
        compiled = _NUTPIE.get(entry.family)
        if compiled is not None:
            _NUTPIE.move_to_end(entry.family)
            return compiled
    import nutpie
    import pytensor

    from .sampling import quiet

    # without fastmath: numba's cached machine code and a fresh compilation then compute the
    # same bits, so a seed gives the same draws in every process
    with quiet(), pytensor.config.change_flags(numba__fastmath=False):
        compiled = nutpie.compile_pymc_model(entry.model, backend="numba")
    with _CACHE_LOCK:
        compiled = _NUTPIE.setdefault(entry.family, compiled)
        _NUTPIE.move_to_end(entry.family)
        while len(_NUTPIE) > CACHE_SIZE:
            _NUTPIE.popitem(last=False)
    return compiled


def _sample_nutpie(compiled, data: Mapping[str, Any], options, keep: Sequence[str]):
    """nutpie's NUTS on ``compiled`` with ``data``: chains one after the other in this
    process (``cores=1``, as the PyMC path), tuning draws not kept."""
    import nutpie

    from .sampling import quiet

    with quiet():
        idata = nutpie.sample(compiled.with_data(**data), draws=options.draws,
                              tune=options.tune, chains=options.chains, cores=1,
                              seed=options.sampler_seed, progress_bar=False,
                              save_warmup=False)
    return idata.posterior[list(keep)], idata.sample_stats


def _memoising_model_class(pm):
    """A ``pm.Model`` subclass whose ``logp_dlogp_function`` compiles once per argument set:
    the compiled function reads the shared data at every call, so it serves every dataset."""

    class MemoisingModel(pm.Model):
        def logp_dlogp_function(self, *args, **kwargs):
            key = repr((args, sorted(kwargs.items())))
            memo = self.__dict__.setdefault("_kappalab_logp_dlogp", {})
            if key not in memo:
                memo[key] = super().logp_dlogp_function(*args, **kwargs)
            return memo[key]

    return MemoisingModel


def compiled_model(key: Hashable, build: Callable, data_names: Sequence[str], *,
                   shape: Hashable = ()) -> CompiledModel:
    """The cached :class:`CompiledModel` of signature (``key``, ``shape``), built by
    ``build`` on a miss.

    Parameters
    ----------
    key : hashable
        The model family: (model kind, options that enter the graph such as the priors).
    build : callable
        ``build(pm, pt, Model)`` returns the model, built inside ``with Model(...)``
        (``Model`` is the memoising subclass of ``pm.Model``) with ``pm.Data`` inputs.
    data_names : sequence of str
        The names of the model's ``pm.Data`` variables.
    shape : hashable
        The shape signature of the data (their shape buckets): PyMC compiles one model per
        family and shape, nutpie one per family.

    Returns
    -------
    CompiledModel
        The entry, now the most recently used one.

    Raises
    ------
    ImportError
        PyMC is not installed.

    Examples
    --------
    >>> import numpy as np
    >>> def build(pm, pt, Model):
    ...     with Model() as model:
    ...         y = pm.Data("y", np.zeros(4))
    ...         mu = pm.Normal("mu", 0.0, 10.0)
    ...         pm.Potential("loglik", -0.5 * ((y - mu) ** 2).sum())
    ...     return model
    >>> entry = compiled_model("example", build, ["y"], shape=(4,))
    >>> entry is compiled_model("example", build, ["y"], shape=(4,))
    True
    >>> clear_cache(); cache_info()["size"]
    0
    """
    from .sampling import require_pymc

    pm = require_pymc()
    signature = (key, shape)
    with _CACHE_LOCK:
        entry = _CACHE.get(signature)
        if entry is not None:
            _CACHE.move_to_end(signature)
            _STATS["hits"] += 1
            return entry
        _STATS["misses"] += 1
    import pytensor.tensor as pt

    entry = CompiledModel(build(pm, pt, _memoising_model_class(pm)), data_names, key)
    with _CACHE_LOCK:
        entry = _CACHE.setdefault(signature, entry)  # another thread may have built it
        _CACHE.move_to_end(signature)
        while len(_CACHE) > CACHE_SIZE:
            _CACHE.popitem(last=False)
    return entry


def data_inputs(pm, data: Mapping[str, Any]) -> dict[str, Any]:
    """Every statistic of ``data`` as a ``pm.Data`` input of the model being built, by name.

    Called inside ``build``'s ``with Model(...)`` block, so that :meth:`CompiledModel.fit`
    can swap in the statistics of the next data set with ``pm.set_data``.

    Parameters
    ----------
    pm : module
        ``pymc``, as ``build`` receives it.
    data : mapping
        The statistics by name (arrays already padded to their shape bucket).

    Returns
    -------
    dict
        ``{name: pm.Data(name, value)}``, in the order of ``data``.

    Examples
    --------
    >>> import numpy as np
    >>> def build(pm, pt, Model):
    ...     with Model() as model:
    ...         shared = data_inputs(pm, {"y": np.zeros(4)})
    ...         mu = pm.Normal("mu", 0.0, 10.0)
    ...         pm.Potential("loglik", -0.5 * ((shared["y"] - mu) ** 2).sum())
    ...     return model
    >>> compiled_model("data_inputs example", build, ["y"], shape=(4,)).data_names
    ('y',)
    >>> clear_cache()
    """
    return {name: pm.Data(name, value) for name, value in data.items()}


def fit_model(kind: str, prior: Mapping[str, Any], build: Callable,
              data: Mapping[str, Any], options, keep: Sequence[str], *,
              graph: tuple = (), shape: Hashable = ()):
    """Sample a model of :mod:`kappalab.bayes`: its compiled model, found or built once per
    signature, fed ``data``.

    The signature is (``kind``, the validated priors, ``graph``) with the shape ``shape``:
    every option that enters the graph is part of it, the priors always, so that a data set
    is never sampled by a model compiled with other priors.

    Parameters
    ----------
    kind : str
        The model's name (also ``Posterior.model``).
    prior : mapping
        The validated priors (``kappalab.bayes.sampling.validate_prior``): numbers or pairs.
    build : callable
        ``build(pm, pt, Model)``, as :func:`compiled_model` takes it; its ``pm.Data`` inputs
        are the names of ``data`` (:func:`data_inputs`).
    data : mapping
        The statistics by name, padded to their shape buckets.
    options : kappalab.bayes.sampling.SamplingOptions
        The validated draws, tune, chains, seed and sampler.
    keep : sequence of str
        The posterior variables to return.
    graph : tuple
        The other options that enter the graph (the number of categories, say).
    shape : hashable
        The shape signature of ``data`` (its buckets).

    Returns
    -------
    tuple
        (posterior Dataset restricted to ``keep``, sample_stats), as
        :meth:`CompiledModel.fit`.

    Examples
    --------
    >>> import numpy as np
    >>> from kappalab.bayes.sampling import SamplingOptions
    >>> def build(pm, pt, Model):
    ...     with Model() as model:
    ...         shared = data_inputs(pm, {"y": np.zeros(4)})
    ...         mu = pm.Normal("mu", 0.0, prior["sd"])
    ...         pm.Potential("loglik", -0.5 * ((shared["y"] - mu) ** 2).sum())
    ...     return model
    >>> prior = {"sd": 10.0}
    >>> options = SamplingOptions(50, 50, 1, 0, "pymc")
    >>> posterior, stats = fit_model("example", prior, build, {"y": np.ones(4)}, options,
    ...                              ["mu"], shape=(4,))  # doctest: +SKIP
    """
    key = (kind, tuple(sorted(prior.items())), *graph)
    return compiled_model(key, build, list(data), shape=shape).fit(data, options, keep)


def clear_cache() -> None:
    """Drop every compiled model, PyMC's and nutpie's (and reset the hit and miss counts).

    Examples
    --------
    >>> clear_cache(); cache_info()
    {'size': 0, 'max_size': 16, 'hits': 0, 'misses': 0, 'nutpie_models': 0}
    """
    with _CACHE_LOCK:
        _CACHE.clear()
        _NUTPIE.clear()
        _STATS.update(hits=0, misses=0)


def cache_info() -> dict[str, int]:
    """The number of compiled PyMC models kept, the bound, the hits and misses so far, and
    the number of nutpie compilations kept.

    Returns
    -------
    dict
        ``{"size", "max_size", "hits", "misses", "nutpie_models"}``.

    Examples
    --------
    >>> sorted(cache_info())
    ['hits', 'max_size', 'misses', 'nutpie_models', 'size']
    """
    with _CACHE_LOCK:
        return {"size": len(_CACHE), "max_size": CACHE_SIZE, **_STATS,
                "nutpie_models": len(_NUTPIE)}
