"""Deprecated alias of :mod:`kappalab.reports.agreement`, kept for the 0.2 releases.

The reports moved into one package, :mod:`kappalab.reports`, in 0.2.0; ``import
kappalab.report`` (or ``kl.report``) warns once with a :class:`DeprecationWarning` and gives
the names of :mod:`kappalab.reports.agreement` (``agreement_report``, ``xrr_report``,
``ReportTable``, ...). It will be removed in 0.3.0.
"""

from __future__ import annotations

from typing import Any

from .errors import warn_deprecated_module
from .reports import agreement

warn_deprecated_module("kappalab.report is deprecated and will be removed in 0.3.0; it moved to "
                       "kappalab.reports.agreement (kl.agreement_report and kl.xrr_report are "
                       "unchanged)")


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # the alias has no names of its own (no __all__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(agreement, name)


def __dir__() -> list[str]:
    return dir(agreement)
