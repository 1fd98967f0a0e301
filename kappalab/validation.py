"""One validation path for the options every part of kappalab takes: seeds, counts (of
resamples, draws, items…), confidence levels and real numbers.

Each check returns the validated value in its canonical type or raises
:class:`~kappalab.errors.InvalidParameterError` (a ``ValueError``) naming the option and the
value it got — never a ``TypeError`` from deep inside numpy.

>>> from kappalab.validation import check_count, make_rng
>>> check_count(2000, "n_resamples", minimum=2)
2000
>>> make_rng(0).integers(10)
np.int64(8)
>>> check_count(None, "n_resamples", minimum=2)
Traceback (most recent call last):
...
kappalab.errors.InvalidParameterError: n_resamples must be an integer ≥ 2, got None
"""

from __future__ import annotations

import importlib
import math
from typing import Any, Literal, Sequence, TypeAlias, overload

import numpy as np
from numpy.typing import ArrayLike

from .errors import InvalidParameterError

__all__ = ["SampleWeightLike", "SeedLike", "check_confidence", "check_count", "check_flag",
           "check_real", "check_sample_weight", "is_integer", "make_rng", "missing_extra",
           "require_extra"]


def missing_extra(modules: str | Sequence[str], extra: str, purpose: str,
                  alternative: str | None = None) -> ImportError:
    """The error for an optional part that is not installed: one line naming the packages, the
    extra of kappalab that installs them and, when there is one, another way.

    Installing the extra (rather than the packages by name) installs the versions kappalab
    supports.

    Parameters
    ----------
    modules : str or sequence of str
        The packages needed.
    extra : str
        The extra of kappalab that installs them (``bayes``, ``nutpie``, ``dask``, ``data``,
        ``readers``).
    purpose : str
        What needs them, the subject of the sentence ("kappalab.bayes").
    alternative : str, optional
        Another way, appended after "or".

    Returns
    -------
    ImportError
        The error, to raise.

    Examples
    --------
    >>> print(missing_extra(["pymc", "arviz"], "bayes", "kappalab.bayes"))
    kappalab.bayes needs the optional packages pymc and arviz: pip install "kappalab[bayes]" \
(or pip install -e ".[bayes]" in a clone of kappalab)
    """
    names = [modules] if isinstance(modules, str) else list(modules)
    listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
    plural = "s" if len(names) > 1 else ""
    text = (f"{purpose} needs the optional package{plural} {listed}: "
            f'pip install "kappalab[{extra}]" (or pip install -e ".[{extra}]" in a clone of '
            "kappalab)")
    if alternative:
        text += f"; or {alternative}"
    return ImportError(text, name=names[0])


def require_extra(modules: str | Sequence[str], extra: str, purpose: str,
                  alternative: str | None = None) -> Any:
    """Import optional packages, or raise the one-line :func:`missing_extra` error.

    Parameters
    ----------
    modules : str or sequence of str
        The packages to import, in order.
    extra, purpose, alternative : str
        As for :func:`missing_extra`.

    Returns
    -------
    module
        The last of ``modules``, imported.

    Raises
    ------
    ImportError
        One of ``modules`` cannot be imported; the message names the extra.

    Examples
    --------
    >>> require_extra("math", "none", "this example").__name__
    'math'
    >>> require_extra("no_such_package", "dask", "out-of-core estimation")
    Traceback (most recent call last):
    ...
    ImportError: out-of-core estimation needs the optional package no_such_package: pip \
install "kappalab[dask]" (or pip install -e ".[dask]" in a clone of kappalab)
    """
    names = [modules] if isinstance(modules, str) else list(modules)
    module = None
    for name in names:
        try:
            module = importlib.import_module(name)
        except ImportError:
            raise missing_extra(names, extra, purpose, alternative) from None
    return module


def is_integer(value: Any) -> bool:
    """Whether ``value`` is an int or numpy integer, not a bool.

    Parameters
    ----------
    value : object
        Anything.

    Returns
    -------
    bool
        True for an ``int`` or ``numpy.integer`` that is not a (numpy) bool.

    Examples
    --------
    >>> is_integer(3), is_integer(np.int64(3)), is_integer(True), is_integer(3.0)
    (True, True, False, False)
    """
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


@overload
def check_flag(value: Any, name: str, *, allow_none: Literal[False] = False) -> bool: ...


@overload
def check_flag(value: Any, name: str, *, allow_none: bool) -> bool | None: ...


def check_flag(value: Any, name: str, *, allow_none: bool = False) -> bool | None:
    """``value`` as True or False (numpy bools too; None as well when ``allow_none``); 1, 0,
    strings and anything else are refused.

    Parameters
    ----------
    value : object
        The flag to check.
    name : str
        The option's name, for the error message.
    allow_none : bool, default False
        Whether None is a value of its own (e.g. "find out").

    Returns
    -------
    bool or None
        ``value`` as a Python bool (or None).

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a bool (nor None where it is allowed).

    Examples
    --------
    >>> check_flag(np.bool_(True), "by_category")
    True
    >>> check_flag(1, "by_category")
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: by_category must be True or False, got 1
    """
    if value is None and allow_none:
        return None
    if not isinstance(value, (bool, np.bool_)):
        allowed = "True, False or None" if allow_none else "True or False"
        raise InvalidParameterError(f"{name} must be {allowed}, got {value!r}")
    return bool(value)


def check_count(value: Any, name: str, minimum: int = 0) -> int:
    """``value`` as an int ≥ ``minimum``; a float with an integer value (``2000.0``) is
    accepted, ``None``, ``nan``, ``inf``, bools and strings are refused.

    Parameters
    ----------
    value : object
        The count to check.
    name : str
        The option's name, for the error message.
    minimum : int, default 0
        The smallest count accepted.

    Returns
    -------
    int
        ``value`` as an ``int``.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not an integer (or a float with an integer value) ≥ ``minimum``.

    Examples
    --------
    >>> check_count(2000.0, "n_resamples", minimum=2)  # 2000.0 == int(2000.0)
    2000
    >>> check_count(1, "n_resamples", minimum=2)
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: n_resamples must be an integer ≥ 2, got 1
    """
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and value == int(value):
        value = int(value)
    if not is_integer(value) or value < minimum:
        raise InvalidParameterError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)


def check_real(value: Any, name: str, *, low: float = -math.inf, high: float = math.inf,
               open_interval: bool = False) -> float:
    """``value`` as a finite float in [low, high] (in (low, high) with ``open_interval``).

    Parameters
    ----------
    value : object
        The number to check; bools and non-numbers are refused.
    name : str
        The option's name, for the error message.
    low : float, default -inf
        The lower bound.
    high : float, default inf
        The upper bound.
    open_interval : bool, default False
        True excludes the bounds themselves.

    Returns
    -------
    float
        ``value`` as a ``float``.

    Raises
    ------
    InvalidParameterError
        If ``value`` is not a finite real number, or is outside the interval.

    Examples
    --------
    >>> check_real(1, "rate", low=0.0, high=1.0)  # 1 is inside [0, 1]
    1.0
    >>> check_real(1, "rate", low=0.0, high=1.0, open_interval=True)
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: rate must be in (0.0, 1.0), got 1.0
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(
            value, (int, float, np.integer, np.floating)) or not math.isfinite(value):
        raise InvalidParameterError(f"{name} must be a finite number, got {value!r}")
    value = float(value)
    inside = low < value < high if open_interval else low <= value <= high
    if not inside:
        bounds = f"({low}, {high})" if open_interval else f"[{low}, {high}]"
        raise InvalidParameterError(f"{name} must be in {bounds}, got {value}")
    return value


def check_confidence(confidence: Any) -> float:
    """A confidence level in (0, 1).

    Parameters
    ----------
    confidence : object
        The confidence level to check, e.g. 0.95.

    Returns
    -------
    float
        ``confidence`` as a ``float``.

    Raises
    ------
    InvalidParameterError
        If ``confidence`` is not a finite number strictly between 0 and 1.

    Examples
    --------
    >>> check_confidence(0.95)
    0.95
    >>> check_confidence(95)
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: confidence must be in (0.0, 1.0), got 95.0
    """
    return check_real(confidence, "confidence", low=0.0, high=1.0, open_interval=True)


#: what ``seed=`` takes (:func:`make_rng`): None, an int, a sequence of ints, a SeedSequence or
#: a Generator
SeedLike: TypeAlias = (None | int | np.integer | Sequence[int] | np.random.SeedSequence
                       | np.random.Generator)
#: what ``sample_weight=`` takes (:func:`check_sample_weight`): one weight per item, or None
SampleWeightLike: TypeAlias = ArrayLike | None


def make_rng(seed: Any, name: str = "seed") -> np.random.Generator:
    """A numpy Generator from ``None`` (fresh entropy), a non-negative int, a sequence of
    them (as numpy's ``default_rng`` takes: e.g. ``(study_seed, replication)``), a
    :class:`numpy.random.SeedSequence` or a Generator (returned as it is, so that a caller's
    stream continues). Bools, floats and strings are refused.

    Parameters
    ----------
    seed : None, int, sequence of int, SeedSequence or Generator
        The seed.
    name : str, default "seed"
        The option's name, for the error message.

    Returns
    -------
    numpy.random.Generator
        A new Generator, or ``seed`` itself when it is one.

    Raises
    ------
    InvalidParameterError
        If ``seed`` is none of the above (a bool, float, string or negative integer).

    Examples
    --------
    >>> rng = make_rng(0)
    >>> make_rng(rng) is rng  # a Generator is passed through
    True
    >>> bool(make_rng((7, 1)).integers(100) == np.random.default_rng([7, 1]).integers(100))
    True
    >>> make_rng(1.5)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: seed must be None, a non-negative integer ..., got 1.5
    """
    if isinstance(seed, np.random.Generator):
        return seed
    if seed is None or isinstance(seed, np.random.SeedSequence):
        return np.random.default_rng(seed)
    entropy = list(seed) if isinstance(seed, (list, tuple)) and seed else [seed]
    if not all(is_integer(part) and part >= 0 for part in entropy):
        raise InvalidParameterError(
            f"{name} must be None, a non-negative integer (or a sequence of them), a numpy "
            f"SeedSequence or a numpy Generator, got {seed!r}")
    return np.random.default_rng(int(seed) if is_integer(seed) else [int(p) for p in entropy])


def check_sample_weight(sample_weight: SampleWeightLike, n_items: int,
                        name: str = "sample_weight") -> np.ndarray | None:
    """``sample_weight`` as a read-only float array of ``n_items`` finite, non-negative item
    weights, not all 0 (``None`` stays ``None``: no weights). Booleans count as 0/1; 2-D
    arrays, strings, NaN, ±inf, negative weights and a wrong length are refused.

    Parameters
    ----------
    sample_weight : array-like or None
        One weight per item.
    n_items : int
        The number of items, the length ``sample_weight`` must have.
    name : str, default "sample_weight"
        The option's name, for the error message.

    Returns
    -------
    ndarray or None
        The weights as a read-only 1-D float array, or None.

    Raises
    ------
    InvalidParameterError
        If the weights are not numeric, not 1-D, of the wrong length, NaN, infinite or
        negative, or all 0.

    Examples
    --------
    >>> w = check_sample_weight([1, 2, 0], 3)
    >>> w, w.flags.writeable
    (array([1., 2., 0.]), False)
    >>> check_sample_weight([1, 2], 3)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: sample_weight needs one weight per item ..., got 2
    """
    if sample_weight is None:
        return None
    try:
        w = np.array(sample_weight, dtype=float)
    except (TypeError, ValueError):
        raise InvalidParameterError(
            f"{name} must be a 1-D array of finite non-negative numbers, one per item, got "
            f"{type(sample_weight).__name__}") from None
    if w.ndim != 1:
        raise InvalidParameterError(
            f"{name} must be 1-D (one weight per item), got an array of shape {w.shape}")
    if w.size != n_items:
        raise InvalidParameterError(
            f"{name} needs one weight per item ({n_items} items), got {w.size}")
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        first = int(np.flatnonzero(bad)[0])
        raise InvalidParameterError(
            f"{name} must be finite and non-negative; {int(bad.sum())} weight(s) are not, "
            f"e.g. {float(w[first])} at position {first}")
    if not (w > 0).any():
        raise InvalidParameterError(f"{name} is 0 for every item: no item would count")
    w.flags.writeable = False
    return w
