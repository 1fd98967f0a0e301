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

import math
from typing import Any

import numpy as np

from .errors import InvalidParameterError

__all__ = ["check_confidence", "check_count", "check_real", "check_sample_weight", "is_integer",
           "make_rng"]


def is_integer(value: Any) -> bool:
    """An int or numpy integer, not a bool."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def check_count(value: Any, name: str, minimum: int = 0) -> int:
    """``value`` as an int ≥ ``minimum``; a float with an integer value (``2000.0``) is
    accepted, ``None``, ``nan``, ``inf``, bools and strings are refused."""
    if isinstance(value, (float, np.floating)) and math.isfinite(value) and value == int(value):
        value = int(value)
    if not is_integer(value) or value < minimum:
        raise InvalidParameterError(f"{name} must be an integer ≥ {minimum}, got {value!r}")
    return int(value)


def check_real(value: Any, name: str, *, low: float = -math.inf, high: float = math.inf,
               open_interval: bool = False) -> float:
    """``value`` as a finite float in [low, high] (in (low, high) with ``open_interval``)."""
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
    """A confidence level in (0, 1)."""
    return check_real(confidence, "confidence", low=0.0, high=1.0, open_interval=True)


def make_rng(seed: Any, name: str = "seed") -> np.random.Generator:
    """A numpy Generator from ``None`` (fresh entropy), a non-negative int, a sequence of
    them (as numpy's ``default_rng`` takes: e.g. ``(study_seed, replication)``), a
    :class:`numpy.random.SeedSequence` or a Generator (returned as it is, so that a caller's
    stream continues). Bools, floats and strings are refused."""
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


def check_sample_weight(sample_weight: Any, n_items: int,
                        name: str = "sample_weight") -> np.ndarray | None:
    """``sample_weight`` as a read-only float array of ``n_items`` finite, non-negative item
    weights, not all 0 (``None`` stays ``None``: no weights). Booleans count as 0/1; 2-D
    arrays, strings, NaN, ±inf, negative weights and a wrong length are refused."""
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
