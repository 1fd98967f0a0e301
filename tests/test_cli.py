"""The command line: report on a CSV, the demo, and one-line errors with exit code 2."""

import json
import subprocess
import sys

import pandas as pd
import pytest
import statsmodels.stats.inter_rater as smir

from kappalab.cli import main
from kappalab import datasets


def run(*args):
    return subprocess.run([sys.executable, "-m", "kappalab", *args],
                          capture_output=True, text=True, timeout=120)


def test_report_json_matches_statsmodels_fleiss(tmp_path, capsys):
    path = tmp_path / "fleiss.csv"
    datasets.load_frame("fleiss_1971").to_csv(path, index=False)
    assert main(["report", str(path), "--rater", "none", "--format", "json"]) == 0
    rows = {r["coefficient"]: r for r in json.loads(capsys.readouterr().out)}
    counts = pd.crosstab(datasets.load_frame("fleiss_1971")["item"],
                         datasets.load_frame("fleiss_1971")["value"]).to_numpy()
    assert rows["Fleiss' kappa"]["value"] == pytest.approx(smir.fleiss_kappa(counts), abs=1e-12)
    assert "Cohen's kappa" not in rows  # raters unknown: no rater-specific coefficients


def test_report_custom_columns_csv(tmp_path, capsys):
    frame = datasets.load_frame("krippendorff_2011").rename(
        columns={"item": "unit", "rater": "coder", "value": "score"})
    path = tmp_path / "k.csv"
    frame.to_csv(path, index=False)
    code = main(["report", str(path), "--item", "unit", "--rater", "coder", "--value", "score",
                 "--level", "interval", "--format", "csv"])
    assert code == 0
    table = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out))
    alpha = table.set_index("coefficient").loc["Krippendorff's alpha", "value"]
    assert alpha == pytest.approx(0.849, abs=5e-4)  # Krippendorff (2011): interval α = 0.849


@pytest.mark.parametrize("content, fragment", [
    ("a,b\n1,2\n", "column 'item'"),
    ("", "cannot read"),
    ('item,rater,value\n1,a,"unclosed\n', "cannot read"),
])
def test_bad_csv_one_line_exit_2(tmp_path, content, fragment):
    path = tmp_path / "bad.csv"
    path.write_text(content)
    result = run("report", str(path))
    assert result.returncode == 2
    assert fragment in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    assert "Traceback" not in result.stderr


def test_missing_file_exit_2():
    result = run("report", "/nonexistent/file.csv")
    assert result.returncode == 2 and "no such file" in result.stderr


def test_demo_runs_and_shows_the_worked_example_values():
    result = run("demo")
    assert result.returncode == 0, result.stderr
    assert "0.5782" in result.stdout  # α of the worked example (krippendorff package)
    assert "0.5636" in result.stdout  # Fleiss' κ of the worked example (statsmodels)
