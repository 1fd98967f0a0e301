"""Deprecated alias of :mod:`kappalab.reports.agreement`, kept for the 0.2 releases.

The reports moved into one package, :mod:`kappalab.reports`, in 0.2.0; ``import
kappalab.report`` (or ``kl.report``) warns once with a :class:`DeprecationWarning` and gives
the names of :mod:`kappalab.reports.agreement` (``agreement_report``, ``xrr_report``,
``ReportTable``, ...). It will be removed in 0.3.0.
"""

from __future__ import annotations

from .errors import forwarding_to, warn_deprecated_module
from .reports import agreement

warn_deprecated_module("kappalab.report is deprecated and will be removed in 0.3.0; it moved to "
                       "kappalab.reports.agreement (kl.agreement_report and kl.xrr_report are "
                       "unchanged)")

__getattr__, __dir__ = forwarding_to(agreement, __name__)
