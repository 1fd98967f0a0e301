"""Deprecated alias of :mod:`kappalab.reports`, kept for the 0.2 releases.

The reports moved into one package, :mod:`kappalab.reports`, in 0.2.0:
``kappalab.diagnostics.raters``, ``.items`` and ``.judge`` are now
:mod:`kappalab.reports.raters`, :mod:`kappalab.reports.items` and
:mod:`kappalab.reports.judge`. Importing ``kappalab.diagnostics`` or any of its modules (or
``kl.diagnostics``) warns once with a :class:`DeprecationWarning` (this package's, which every
import of its modules runs first); each module gives the names of its new home. It will be
removed in 0.3.0.
"""

from __future__ import annotations

import importlib
from typing import Any

from ..errors import warn_deprecated_module

warn_deprecated_module("kappalab.diagnostics is deprecated and will be removed in 0.3.0; its "
                       "modules moved to kappalab.reports (kappalab.reports.raters, "
                       "kappalab.reports.items, kappalab.reports.judge; kl.rater_report, "
                       "kl.item_report and kl.judge_report are unchanged)")

#: the modules of the package, each the alias of the module of that name in kappalab.reports
_MODULES = ("items", "judge", "raters")


def __getattr__(name: str) -> Any:
    if name in _MODULES:  # kl.diagnostics.raters: the module, imported on first use
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return list(_MODULES)
