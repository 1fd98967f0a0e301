"""The first hour of a newcomer, end to end: a small messy CSV read by the command line and by
the Python API, each in a fresh process in an empty folder, following only what the messages
say. The two must agree, and every message must be one line.

The file has what real exports have: labels with quoted commas and UTF-8 letters, a blank
cell, "NA" as a cell, a row repeated exactly and an annotator with one item.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import numpy as np
import pytest

krippendorff = pytest.importorskip("krippendorff")

MESSY = '''\
item,annotator,label
s1,ann1,"positive, mostly"
s1,ann2,"positive, mostly"
s1,ann3,négatif
s2,ann1,négatif
s2,ann2,négatif
s2,ann3,NA
s3,ann1,"positive, mostly"
s3,ann2,
s3,ann3,"positive, mostly"
s3,ann3,"positive, mostly"
s4,ann1,très neutre
s4,ann2,très neutre
s4,ann4,très neutre
s5,ann1,négatif
s5,ann2,"positive, mostly"
s5,ann3,négatif
s6,ann1,très neutre
s6,ann2,NA
s6,ann3,très neutre
'''

#: the annotators' labels as a reader sees them, the exact repeat of (s3, ann3) kept once,
#: the blank cell missing; "NA" is left as it is (a label, or missing: both readings below)
TABLE = {  # item: [ann1, ann2, ann3, ann4]
    "s1": ["positive, mostly", "positive, mostly", "négatif", None],
    "s2": ["négatif", "négatif", "NA", None],
    "s3": ["positive, mostly", None, "positive, mostly", None],
    "s4": ["très neutre", "très neutre", None, "très neutre"],
    "s5": ["négatif", "positive, mostly", "négatif", None],
    "s6": ["très neutre", "NA", "très neutre", None],
}


def krippendorff_alpha_of_the_table(na_is_a_label: bool) -> float:
    """The oracle: the krippendorff package on the raters × items table written out above."""
    labels = sorted({v for row in TABLE.values() for v in row if v is not None
                     and (na_is_a_label or v != "NA")})
    code = {label: float(k) for k, label in enumerate(labels)}
    data = np.array([[code.get(row[r], np.nan) if row[r] is not None else np.nan
                      for row in TABLE.values()] for r in range(4)])
    return krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")


def run(args, cwd, stdin=None):
    return subprocess.run([sys.executable, *args], cwd=cwd, capture_output=True, text=True,
                          input=stdin, timeout=120)


def one_line_each(stderr: str) -> list[str]:
    """The messages of a run: each must be a single line (no traceback, no wrapped text)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert not any(line.startswith(("Traceback", "  File ")) for line in lines), stderr
    assert all(line.startswith("kappalab: ") for line in lines), stderr
    return lines


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "labels.csv").write_text(MESSY, encoding="utf-8")
    return tmp_path


@pytest.mark.slow
def test_the_command_line_leads_the_newcomer_to_the_value(folder):
    report = ["-m", "kappalab", "report", "labels.csv"]
    # 1. the defaults do not name the file's rater column: the message says which option does
    #    (its labels are in "label", a name the command line knows)
    first = run(report, folder)
    assert first.returncode == 2
    (message,) = one_line_each(first.stderr)
    assert "--rater" in message and "'annotator'" in message
    # 2. with the column named, the repeated row is refused: the message names the way out
    named = report + ["--rater", "annotator"]
    second = run(named, folder)
    assert second.returncode == 2
    (message,) = one_line_each(second.stderr)
    assert "--duplicates" in message and "ann3" in message and "duplicates=" not in message
    # 3. with the repeat kept once, the report; its notes say that "NA" was kept as a label
    third = run(named + ["--duplicates", "first", "--format", "json"], folder)
    assert third.returncode == 0, third.stderr
    notes = one_line_each(third.stderr)
    assert any("NA" in note and "--na-values" in note for note in notes)
    rows = {row["coefficient"]: row for row in json.loads(third.stdout)}
    alpha = rows["Krippendorff's alpha"]["value"]
    assert alpha == pytest.approx(krippendorff_alpha_of_the_table(na_is_a_label=True),
                                  abs=1e-12)
    # 4. following the note, "NA" is missing
    fourth = run(named + ["--duplicates", "first", "--na-values", "NA", "--format", "json"],
                 folder)
    assert fourth.returncode == 0, fourth.stderr
    rows = {row["coefficient"]: row for row in json.loads(fourth.stdout)}
    assert rows["Krippendorff's alpha"]["value"] == pytest.approx(
        krippendorff_alpha_of_the_table(na_is_a_label=False), abs=1e-12)


NEWCOMER_SCRIPT = textwrap.dedent('''\
    import json, sys, warnings
    import pandas as pd
    import kappalab as kl

    def say(message):
        print(f"kappalab: {message}", file=sys.stderr)

    frame = pd.read_csv("labels.csv", **json.loads(sys.argv[1]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            kl.krippendorff_alpha(frame)  # the first call: the front door reads it long
        except kl.errors.AnnotationError as error:  # the repeated row
            say(error)
        ann = kl.Annotations.from_long(frame, item="item", rater="annotator", value="label",
                                       duplicates="first")
        alpha = kl.krippendorff_alpha(ann).value
    for warning in caught:
        say(f"{warning.category.__name__}: {warning.message}")
    print(json.dumps(alpha))
''')


@pytest.mark.slow
@pytest.mark.parametrize("na_is_a_label", [False, True])
def test_the_api_agrees_with_the_command_line(folder, na_is_a_label):
    """pandas reads "NA" as missing by default, the command line as a label (its note says
    how to change it): read alike, the two give the same α, the oracle's."""
    (folder / "newcomer.py").write_text(NEWCOMER_SCRIPT, encoding="utf-8")
    options = {"keep_default_na": False, "na_values": [""]} if na_is_a_label else {}
    api = run(["newcomer.py", json.dumps(options)], folder)
    assert api.returncode == 0, api.stderr
    messages = one_line_each(api.stderr)
    assert "duplicates=" in messages[0] and "ann3" in messages[0]
    assert any("repeated" in message for message in messages[1:])
    api_alpha = json.loads(api.stdout)
    cli_options = [] if na_is_a_label else ["--na-values", "NA"]
    cli = run(["-m", "kappalab", "report", "labels.csv", "--rater", "annotator",
               "--duplicates", "first", "--format", "json", *cli_options], folder)
    assert cli.returncode == 0, cli.stderr
    one_line_each(cli.stderr)
    rows = {row["coefficient"]: row for row in json.loads(cli.stdout)}
    assert api_alpha == pytest.approx(rows["Krippendorff's alpha"]["value"], abs=1e-12)
    assert api_alpha == pytest.approx(krippendorff_alpha_of_the_table(na_is_a_label),
                                      abs=1e-12)
