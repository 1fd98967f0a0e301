"""Deprecated alias of :mod:`kappalab.out_of_core`, kept for the 0.2 releases.

The module was renamed in 0.2.0 because its name clashed with Dask's ``distributed``
package; ``import kappalab.distributed`` (or ``kl.distributed``) warns once with a
:class:`DeprecationWarning` and gives the names of :mod:`kappalab.out_of_core`. It will be
removed in 0.3.0.
"""

from __future__ import annotations

from typing import Any

from . import out_of_core
from .errors import warn_deprecated_module

warn_deprecated_module("kappalab.distributed is deprecated and will be removed in 0.3.0; it was "
                       "renamed kappalab.out_of_core (kl.dask_estimate and kl.dask_cross_kappa "
                       "are unchanged)")


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # the alias has no names of its own (no __all__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(out_of_core, name)


def __dir__() -> list[str]:
    return dir(out_of_core)
