"""``make test`` on a plain clone: the real-data tests skip, and the run ends saying so in one
line, with how to get the data (``KAPPALAB_DATA`` or ``kappalab.datasets.fetch``).

The hook is ``pytest_terminal_summary`` of ``tests/conftest.py``; here it runs on a small
suite of its own (pytest's ``pytester``), whose skips are written out in each case.
"""

from __future__ import annotations

from pathlib import Path

pytest_plugins = ["pytester"]

CONFTEST = (Path(__file__).resolve().parent / "conftest.py").read_text(encoding="utf-8")

SUITE = '''
import pytest

def test_snow():
    pytest.skip("real data absent: /nowhere/snow2008/all_collected_data.tgz (set KAPPALAB_DATA)")

def test_mbic():
    pytest.skip("real data absent: /nowhere/mbic/raw_labels_MBIC.xlsx (set KAPPALAB_DATA)")

def test_no_dask():
    pytest.skip("dask is not installed")

def test_computed():
    assert 1 + 1 == 2
'''


def summary_lines(result) -> list[str]:
    return [line for line in result.outlines if "real-data test" in line]


def test_the_run_ends_with_one_line_on_the_real_data_skips(pytester, monkeypatch):
    monkeypatch.setenv("KAPPALAB_DATA", "/nowhere")
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_suite=SUITE)
    result = pytester.runpytest("-ra", "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, skipped=3)
    lines = summary_lines(result)
    assert len(lines) == 1, result.outlines
    line = lines[0]
    # two of the three skips are real-data ones; the data folder is the one sought
    assert line.startswith("2 real-data tests skipped"), line
    assert "/nowhere" in line and "KAPPALAB_DATA" in line
    assert "kappalab.datasets.fetch" in line
    # it comes at the end: after it, only the line of pytest's totals
    at = result.outlines.index(line)
    assert [each for each in result.outlines[at + 1:] if each.strip()] == [result.outlines[-1]]
    assert "passed" in result.outlines[-1]


def test_no_line_when_no_real_data_test_skips(pytester):
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_suite="def test_computed():\n    assert 2 * 2 == 4\n")
    result = pytester.runpytest("-ra", "-p", "no:randomly", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert summary_lines(result) == []
