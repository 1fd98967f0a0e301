"""The reports, in one package: the table of every applicable coefficient (:mod:`.agreement`:
:func:`~kappalab.agreement_report`, :func:`~kappalab.xrr_report`), and who and what drive
agreement, computed on the item-sum spine: one row per rater (:mod:`.raters`), one row per item
(:mod:`.items`), and an automatic judge against a human panel (:mod:`.judge`).

``kappalab.report`` and ``kappalab.diagnostics`` (with ``.raters``, ``.items`` and ``.judge``),
their homes before 0.2.0, stay one release as deprecated aliases of these modules.
"""

from .agreement import NOT_COMPUTED, ReportTable, agreement_report, xrr_report
from .raters import MAX_CATEGORY_COLUMNS, rater_report
from .items import item_report, label_summary
from .judge import JudgeReport, judge_report

__all__ = [
    "JudgeReport",
    "MAX_CATEGORY_COLUMNS",
    "NOT_COMPUTED",
    "ReportTable",
    "agreement_report",
    "item_report",
    "judge_report",
    "label_summary",
    "rater_report",
    "xrr_report",
]
