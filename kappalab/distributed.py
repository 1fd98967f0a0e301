"""Deprecated alias of :mod:`kappalab.out_of_core`, kept for the 0.2 releases.

The module was renamed in 0.2.0 because its name clashed with Dask's ``distributed``
package; ``import kappalab.distributed`` (or ``kl.distributed``) warns once with a
:class:`DeprecationWarning` and gives the names of :mod:`kappalab.out_of_core`. It will be
removed in 0.3.0.
"""

from __future__ import annotations

from . import out_of_core
from .errors import forwarding_to, warn_deprecated_module

warn_deprecated_module("kappalab.distributed is deprecated and will be removed in 0.3.0; it was "
                       "renamed kappalab.out_of_core (kl.dask_estimate and kl.dask_cross_kappa "
                       "are unchanged)")

__getattr__, __dir__ = forwarding_to(out_of_core, __name__)
