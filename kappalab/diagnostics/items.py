"""Deprecated alias of :mod:`kappalab.reports.items`, kept for the 0.2 releases.

Its names are those of :mod:`kappalab.reports.items`; the :class:`DeprecationWarning` is
that of :mod:`kappalab.diagnostics`, which every import of this module runs first. It will be
removed in 0.3.0.
"""

from __future__ import annotations

from typing import Any

from ..reports import items


def __getattr__(name: str) -> Any:
    if name.startswith("__"):  # the alias has no names of its own (no __all__)
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(items, name)


def __dir__() -> list[str]:
    return dir(items)
