"""The reports have one home, the package kappalab.reports (``agreement``, ``raters``,
``items``, ``judge``); their homes before 0.2.0, ``kappalab.report`` and
``kappalab.diagnostics`` (with ``.raters``, ``.items``, ``.judge``), stay one release as
aliases that warn once, at the user's line, and give the new modules' objects."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import kappalab as kl

ROOT = Path(__file__).resolve().parents[1]

#: each program prints, as JSON, its checks and the deprecation warnings it caught (file, line)
HEADER = """
import json, sys, warnings
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    import kappalab as kl
"""
FOOTER = """
    warned = [(w.filename, w.lineno, str(w.message)) for w in caught
              if issubclass(w.category, DeprecationWarning)]
print(json.dumps({"same": same, "warned": warned}))
"""

PROGRAMS = {
    "report": """
    import kappalab.report  # line 6
    import kappalab.report as again
    from kappalab import report
    from kappalab.report import ReportTable, agreement_report
    same = (kappalab.report.xrr_report is kl.xrr_report and again is report is kl.report
            and agreement_report is kl.agreement_report
            and ReportTable is kl.reports.agreement.ReportTable
            and report.NOT_COMPUTED == "not computed: ")
""",
    "kl.report": """
    report = kl.report  # line 6
    same = (report.agreement_report is kl.agreement_report
            and kl.report is sys.modules["kappalab.report"])
""",
    "diagnostics": """
    import kappalab.diagnostics.raters  # line 6
    from kappalab.diagnostics import items, judge
    import kappalab.diagnostics.items as again
    from kappalab.diagnostics.judge import JudgeReport
    import kappalab.diagnostics
    same = (kappalab.diagnostics.raters.rater_report is kl.rater_report
            and kappalab.diagnostics.raters.MAX_CATEGORY_COLUMNS
            == kl.reports.raters.MAX_CATEGORY_COLUMNS
            and items.item_report is kl.item_report and again is items
            and items.label_summary is kl.reports.items.label_summary
            and judge.judge_report is kl.judge_report and JudgeReport is kl.JudgeReport
            and kl.diagnostics.judge is judge)
""",
    "kl.diagnostics": """
    raters = kl.diagnostics.raters  # line 6
    same = raters.rater_report is kl.rater_report
""",
    "importlib": """
    import importlib
    judge = importlib.import_module("kappalab.diagnostics.judge")  # line 7
    same = judge.judge_report is kl.judge_report
""",
}

#: the line of each program that first imports an alias (lines 1-5 are the header)
FIRST_USE = {"report": 6, "kl.report": 6, "diagnostics": 6, "kl.diagnostics": 6,
             "importlib": 7}


def run(tmp_path, body: str) -> dict:
    program = tmp_path / "program.py"
    program.write_text(HEADER + body.lstrip("\n") + FOOTER.lstrip("\n"), encoding="utf-8")
    result = subprocess.run([sys.executable, str(program)], cwd=ROOT, capture_output=True,
                            text=True, check=True, env=os.environ | {"PYTHONPATH": str(ROOT)})
    return json.loads(result.stdout) | {"file": str(program)}


@pytest.mark.parametrize("case", PROGRAMS)
def test_the_old_module_warns_once_at_the_users_line_and_gives_the_new_objects(tmp_path, case):
    seen = run(tmp_path, PROGRAMS[case])
    assert seen["same"] is True
    assert len(seen["warned"]) == 1, seen["warned"]
    (filename, line, message), = seen["warned"]
    assert (filename, line) == (seen["file"], FIRST_USE[case])
    old = "kappalab.report" if "report" in case else "kappalab.diagnostics"
    new = "kappalab.reports.agreement" if "report" in case else "kappalab.reports.raters"
    assert message.startswith(f"{old} is deprecated") and new in message


def test_importing_kappalab_does_not_import_the_aliases(tmp_path):
    seen = run(tmp_path, """
    import sys
    same = not {"kappalab.report", "kappalab.diagnostics"} & set(sys.modules)
""")
    assert seen["same"] is True and seen["warned"] == []


def test_a_deprecated_table_read_through_the_alias_warns_at_the_users_line(tmp_path):
    seen = run(tmp_path, """
    from kappalab.diagnostics import raters  # line 6
    table = raters.COEFFICIENTS  # line 7
    same = table["alpha"] == ("pooled", "annotation", "Krippendorff's alpha")
""")
    assert seen["same"] is True
    assert [(f, line) for f, line, _ in seen["warned"]] == [(seen["file"], 6),
                                                            (seen["file"], 7)]
    assert "COEFFICIENTS is deprecated" in seen["warned"][1][2]


def test_the_reports_live_in_kappalab_reports():
    from kappalab import reports
    homes = {kl.agreement_report: "agreement", kl.xrr_report: "agreement",
             kl.rater_report: "raters", kl.item_report: "items", kl.judge_report: "judge",
             kl.JudgeReport: "judge", reports.ReportTable: "agreement",
             reports.label_summary: "items"}
    for obj, module in homes.items():
        assert obj.__module__ == f"kappalab.reports.{module}", obj
    assert {name: getattr(reports, name) for name in reports.__all__} == {
        name: getattr(getattr(reports, module), name)
        for module in ("agreement", "raters", "items", "judge")
        for name in getattr(reports, module).__all__}
    assert not {"report", "reports", "diagnostics"} & set(kl.__all__)
