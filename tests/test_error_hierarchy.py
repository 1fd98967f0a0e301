"""kappalab's errors have one base, KappalabError (a ValueError): a bad option is an
InvalidParameterError, which is no longer an AnnotationError, and every place that turns an
input fault into one line (the command line, a report's failed row) still catches it."""

import subprocess
import sys
import warnings

import pytest

import kappalab as kl
from kappalab.cli import main
from kappalab.errors import AnnotationError, InvalidParameterError, KappalabError


def test_a_bad_option_is_a_kappalab_error_and_a_value_error_not_an_annotation_error():
    with pytest.raises(InvalidParameterError) as caught:
        kl.plan(reliability=1.5, half_width=0.1)
    error = caught.value
    assert isinstance(error, KappalabError) and isinstance(error, ValueError)
    assert not isinstance(error, AnnotationError)


def test_a_fault_of_the_data_is_still_an_annotation_error():
    with pytest.raises(AnnotationError) as caught:
        kl.Annotations.from_counts([[1, -1]])
    assert isinstance(caught.value, KappalabError)


def test_a_bad_option_still_gives_the_command_line_one_line_and_exit_code(capsys):
    assert main(["plan", "--reliability", "1.5", "--half-width", "0.1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kappalab: error: reliability must be in [0, 1), got 1.5"]


def test_a_bad_option_of_the_console_command_is_one_line():
    """The same, through the console command's own process (no traceback)."""
    done = subprocess.run([sys.executable, "-m", "kappalab", "plan", "--reliability", "1.5",
                           "--half-width", "0.1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert done.stderr.strip() == "kappalab: error: reliability must be in [0, 1), got 1.5"


def test_a_row_failing_on_an_option_is_a_row_of_the_report_not_an_exception():
    """level="masi" on labels that are not sets: each coefficient refuses the distance (an
    InvalidParameterError), and the report says so row by row."""
    data = kl.datasets.load("krippendorff_2011")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = kl.agreement_report(data, level="masi")
    notes = report["note"].tolist()
    assert notes and all(note.startswith("not computed: the masi distance compares sets")
                         for note in notes)
