"""Deprecated alias of :mod:`kappalab.reports.raters`, kept for the 0.2 releases.

Its names are those of :mod:`kappalab.reports.raters`; the :class:`DeprecationWarning` is
that of :mod:`kappalab.diagnostics`, which every import of this module runs first. It will be
removed in 0.3.0.
"""

from __future__ import annotations

from ..errors import forwarding_to
from ..reports import raters

__getattr__, __dir__ = forwarding_to(raters, __name__)
