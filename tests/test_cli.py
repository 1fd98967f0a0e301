"""The command line: report on a CSV, the demo, and one-line errors with exit code 2."""

import json
import re
import subprocess
import sys

import krippendorff
import numpy as np
import pandas as pd
import pytest
import statsmodels.stats.inter_rater as smir

from kappalab.cli import main
from kappalab.io import read_annotations
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


@pytest.mark.slow
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


@pytest.mark.slow
def test_missing_file_exit_2():
    result = run("report", "/nonexistent/file.csv")
    assert result.returncode == 2 and "no such file" in result.stderr


@pytest.mark.slow
def test_demo_runs_and_shows_the_worked_example_values():
    result = run("demo")
    assert result.returncode == 0, result.stderr
    assert "0.5782" in result.stdout  # α of the worked example (krippendorff package)
    assert "0.5636" in result.stdout  # Fleiss' κ of the worked example (statsmodels)


# ---------------------------------------------------------------- never drop data silently

def peer_alpha(long: pd.DataFrame, level: str = "nominal", order=None, domain=None) -> float:
    """Krippendorff's α of a long frame (item, rater, value; NaN = missing) by the
    ``krippendorff`` package: raters × items, categories coded by their position in ``order``
    (sorted labels by default) or, for numbers, the values themselves."""
    present = long.dropna(subset=["value"])
    matrix = long.pivot(index="rater", columns="item", values="value")
    if pd.api.types.is_numeric_dtype(present["value"]) and order is None:
        data = matrix.to_numpy(dtype=float)
    else:
        order = sorted(present["value"].unique()) if order is None else list(order)
        data = matrix.map(lambda v: np.nan if pd.isna(v) else order.index(v)).to_numpy(float)
    return krippendorff.alpha(reliability_data=data, level_of_measurement=level,
                              value_domain=domain)


def alpha_of(out: str) -> float:
    table = pd.read_csv(pd.io.common.StringIO(out))
    return float(table.set_index("coefficient").loc["Krippendorff's alpha", "value"])


SHARP = pd.DataFrame(
    [("s1", "a", "C"), ("s1", "b", "C#"), ("s1", "c", "C"),
     ("s2", "a", "F#"), ("s2", "b", "F#"), ("s2", "c", "F"),
     ("s3", "a", "C#"), ("s3", "b", "C#"), ("s3", "c", "C#"),
     ("s4", "a", "F"), ("s4", "b", "F#"), ("s4", "c", "F"),
     ("s5", "a", "C"), ("s5", "b", "C"), ("s5", "c", "F#")],
    columns=["item", "rater", "value"])


def test_hash_in_labels_is_data_not_a_comment(tmp_path, capsys):
    path = tmp_path / "keys.csv"
    SHARP.to_csv(path, index=False)
    assert main(["report", str(path), "--format", "csv"]) == 0
    expected = peer_alpha(SHARP)  # 1/3: C# and F# are categories of their own
    assert expected == pytest.approx(1 / 3)
    assert alpha_of(capsys.readouterr().out) == pytest.approx(expected, abs=1e-12)


NA_LABELS = pd.DataFrame(
    [(1, "a", "None"), (1, "b", "None"), (1, "c", "NA"),
     (2, "a", "N/A"), (2, "b", "N/A"), (2, "c", "N/A"),
     (3, "a", "null"), (3, "b", "null"), (3, "c", None),
     (4, "a", "x"), (4, "b", "NA"), (4, "c", "x"),
     (5, "a", "NA"), (5, "b", "NA"), (5, "c", None)],
    columns=["item", "rater", "value"])


def test_na_tokens_are_labels_and_only_empty_cells_are_missing(tmp_path, capsys):
    path = tmp_path / "na.csv"
    NA_LABELS.to_csv(path, index=False)  # None is written as an empty cell
    assert main(["report", str(path), "--format", "csv"]) == 0
    captured = capsys.readouterr()
    assert alpha_of(captured.out) == pytest.approx(peer_alpha(NA_LABELS), abs=1e-12)
    assert "dropped 2 of 15 rows" in captured.err
    assert "empty" in captured.err  # and why


def test_na_values_option_adds_missing_tokens(tmp_path, capsys):
    path = tmp_path / "na.csv"
    NA_LABELS.to_csv(path, index=False)
    assert main(["report", str(path), "--format", "csv", "--na-values", "NA,null"]) == 0
    captured = capsys.readouterr()
    expected = peer_alpha(NA_LABELS.replace({"NA": None, "null": None}))
    assert alpha_of(captured.out) == pytest.approx(expected, abs=1e-12)
    assert "dropped 8 of 15 rows" in captured.err
    assert "NA" in captured.err.split("dropped", 1)[1]  # the note names the tokens


# ---------------------------------------------------------------- separators, encodings, stdin
K2011 = datasets.load_frame("krippendorff_2011")


def run_input(*args, data: str):
    return subprocess.run([sys.executable, "-m", "kappalab", *args], input=data,
                          capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("sep", [",", "\t", ";"])
def test_separator_is_sniffed(tmp_path, capsys, sep):
    path = tmp_path / "k.txt"
    K2011.to_csv(path, index=False, sep=sep)
    assert main(["report", str(path), "--level", "interval", "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(
        peer_alpha(K2011, "interval"), abs=1e-12)


def test_sep_option_overrides_the_sniffer(tmp_path, capsys):
    path = tmp_path / "k.csv"
    K2011.to_csv(path, index=False, sep=";")
    assert main(["report", str(path), "--sep", ";", "--level", "interval",
                 "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(0.849, abs=5e-4)
    assert main(["report", str(path), "--sep", ","]) == 2  # one column 'item;rater;value'
    assert "column 'item'" in capsys.readouterr().err


def test_tab_separator_by_name(tmp_path, capsys):
    path = tmp_path / "k.tsv"
    K2011.to_csv(path, index=False, sep="\t")
    assert main(["report", str(path), "--sep", "tab", "--level", "interval",
                 "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(0.849, abs=5e-4)


ACCENTS = pd.DataFrame(
    [(1, "a", "é"), (1, "b", "é"), (2, "a", "ü"), (2, "b", "e"), (3, "a", "e"), (3, "b", "e"),
     (4, "a", "ü"), (4, "b", "ü")], columns=["item", "rater", "value"])


def test_encoding_option(tmp_path, capsys):
    path = tmp_path / "latin.csv"
    ACCENTS.to_csv(path, index=False, encoding="latin-1")
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kappalab: error:") and "--encoding" in err
    assert len(err.strip().splitlines()) == 1
    assert main(["report", str(path), "--encoding", "latin-1", "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(peer_alpha(ACCENTS), abs=1e-12)


def test_utf8_byte_order_mark_is_not_part_of_the_first_column(tmp_path, capsys):
    path = tmp_path / "bom.csv"
    ACCENTS.to_csv(path, index=False, encoding="utf-8-sig")
    assert main(["report", str(path), "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(peer_alpha(ACCENTS), abs=1e-12)


@pytest.mark.slow
def test_dash_reads_stdin():
    result = run_input("report", "-", "--level", "interval", "--format", "csv",
                       data=K2011.to_csv(index=False, sep="\t"))
    assert result.returncode == 0, result.stderr
    assert alpha_of(result.stdout) == pytest.approx(peer_alpha(K2011, "interval"), abs=1e-12)


def test_item_ids_are_text_007_is_not_7(tmp_path, capsys):
    path = tmp_path / "ids.csv"
    path.write_text("item,rater,value\n007,a,x\n007,b,x\n7,a,y\n7,b,x\n")
    assert main(["report", str(path), "--format", "json"]) == 0
    rows = {r["coefficient"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["Krippendorff's alpha"]["n_items"] == 2


# ---------------------------------------------------------------- wide files

WIDE_TEXT = ("item,ann1,ann2,ann3\n"
             "007,C#,C#,\n"
             "a12,NA,NA,F\n"
             "7,F,F#,F\n"
             "x9,,C,C\n"
             "b2,C,C,C#\n")


def wide_as_long() -> pd.DataFrame:
    rows = [line.split(",") for line in WIDE_TEXT.strip().splitlines()[1:]]
    return pd.DataFrame([(r[0], f"ann{j}", r[j] or None) for r in rows for j in (1, 2, 3)],
                        columns=["item", "rater", "value"])


def test_wide_file_keeps_item_ids_and_labels(tmp_path, capsys):
    path = tmp_path / "wide.csv"
    path.write_text(WIDE_TEXT)
    ann = read_annotations(str(path), wide=True)
    assert list(ann.items) == ["007", "a12", "7", "x9", "b2"]
    assert list(ann.raters) == ["ann1", "ann2", "ann3"]
    assert main(["report", str(path), "--wide", "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(peer_alpha(wide_as_long()),
                                                              abs=1e-12)


def test_wide_numeric_matches_long(tmp_path, capsys):
    wide = K2011.pivot(index="item", columns="rater", values="value")
    path = tmp_path / "wide.tsv"
    wide.to_csv(path, sep="\t")
    assert main(["report", str(path), "--wide", "--level", "interval", "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(
        peer_alpha(K2011, "interval"), abs=1e-12)


# ---------------------------------------------------------------- Excel and Parquet
# openpyxl and pyarrow are in the test extra: these tests fail, not skip, without them
def test_xlsx_long_and_wide(tmp_path, capsys):
    path = tmp_path / "k.xlsx"
    K2011.to_excel(path, index=False)
    assert main(["report", str(path), "--level", "interval", "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(0.849, abs=5e-4)
    wide_path = tmp_path / "w.xlsx"
    pd.read_csv(pd.io.common.StringIO(WIDE_TEXT), dtype=str, keep_default_na=False,
                na_values=[""]).to_excel(wide_path, index=False)
    ann = read_annotations(str(wide_path), wide=True)
    assert list(ann.items) == ["007", "a12", "7", "x9", "b2"]
    assert main(["report", str(wide_path), "--wide", "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(peer_alpha(wide_as_long()),
                                                              abs=1e-12)


def test_parquet_long(tmp_path, capsys):
    path = tmp_path / "k.parquet"
    K2011.to_parquet(path, index=False)
    assert main(["report", str(path), "--level", "interval", "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(0.849, abs=5e-4)


def test_parquet_wide_with_its_index_saved(tmp_path, capsys):
    wide = wide_as_long().pivot(index="item", columns="rater", values="value")
    path = tmp_path / "w.parquet"
    wide.to_parquet(path)  # the item ids are the saved index
    ann = read_annotations(str(path), wide=True)
    assert sorted(ann.items) == sorted(["007", "a12", "7", "x9", "b2"])
    assert main(["report", str(path), "--wide", "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(peer_alpha(wide_as_long()),
                                                              abs=1e-12)


@pytest.mark.parametrize("suffix, module", [(".xlsx", "openpyxl"), (".parquet", "pyarrow")])
def test_missing_reader_names_the_extra(tmp_path, capsys, monkeypatch, suffix, module):
    path = tmp_path / f"data{suffix}"
    path.write_bytes(b"not read")
    monkeypatch.setitem(sys.modules, module, None)  # `import module` now raises ImportError
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kappalab: error:") and len(err.strip().splitlines()) == 1
    assert module in err and 'pip install "kappalab[readers]"' in err


# ---------------------------------------------------------------- options
import kappalab  # noqa: E402

GRADES = pd.DataFrame(
    [(1, "a", "low"), (1, "b", "mid"), (1, "c", "low"),
     (2, "a", "high"), (2, "b", "high"), (2, "c", "mid"),
     (3, "a", "mid"), (3, "b", "mid"), (3, "c", "mid"),
     (4, "a", "low"), (4, "b", "high"), (4, "c", "low"),
     (5, "a", "high"), (5, "b", "mid"), (5, "c", "high")],
    columns=["item", "rater", "value"])


def test_categories_fix_the_ordinal_order(tmp_path, capsys):
    path = tmp_path / "grades.csv"
    GRADES.to_csv(path, index=False)
    assert main(["report", str(path), "--level", "ordinal", "--format", "csv"]) == 0
    alphabetical = alpha_of(capsys.readouterr().out)  # high < low < mid
    assert alphabetical == pytest.approx(peer_alpha(GRADES, "ordinal"), abs=1e-12)
    assert main(["report", str(path), "--level", "ordinal", "--format", "csv",
                 "--categories", "low,mid,high"]) == 0
    ordered = alpha_of(capsys.readouterr().out)
    assert ordered == pytest.approx(
        peer_alpha(GRADES, "ordinal", order=["low", "mid", "high"]), abs=1e-12)
    assert abs(ordered - alphabetical) > 0.1


def coefficient_of(out: str, name: str) -> float:
    table = pd.read_csv(pd.io.common.StringIO(out)).set_index("coefficient")
    return float(table.loc[name, "value"])


def test_numeric_categories_include_unused_values(tmp_path, capsys):
    frame = GRADES.replace({"low": 1, "mid": 2, "high": 5}).astype({"value": int})
    path = tmp_path / "scores.csv"
    frame.to_csv(path, index=False)
    # items (1,2,1) (5,5,2) (2,2,2) (1,5,1) (5,2,5): P_o = (4·1/3 + 1)/5 = 7/15, and
    # Brennan-Prediger = (P_o − 1/q)/(1 − 1/q): 1/5 with the q = 3 values seen, 1/3 with q = 5
    assert main(["report", str(path), "--format", "csv"]) == 0
    assert coefficient_of(capsys.readouterr().out, "Brennan-Prediger") == pytest.approx(1 / 5)
    assert main(["report", str(path), "--format", "csv", "--categories", "1,2,3,4,5"]) == 0
    assert coefficient_of(capsys.readouterr().out, "Brennan-Prediger") == pytest.approx(1 / 3)
    assert main(["report", str(path), "--level", "ordinal", "--format", "csv",
                 "--categories", "1,2,3,4,5"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(
        peer_alpha(frame, "ordinal", domain=[1, 2, 3, 4, 5]), abs=1e-12)
    assert main(["report", str(path), "--categories", "1,2,x"]) == 2
    assert "'x' is not a number" in capsys.readouterr().err
    assert main(["report", str(path), "--categories", "1,2"]) == 2  # 5 is not a category
    err = capsys.readouterr().err
    assert err.startswith("kappalab: error:") and len(err.strip().splitlines()) == 1


@pytest.mark.slow
def test_version():
    result = run("--version")
    assert result.returncode == 0 and result.stdout.strip() == f"kappalab {kappalab.__version__}"


@pytest.mark.slow
def test_help_shows_defaults():
    text = " ".join(run("report", "--help").stdout.split())  # wrapped lines joined
    for default in ("(default: item)", "(default: nominal)", "(default: analytic)",
                    "(default: 0)", "(default: 2000)", "(default: 0.95)"):
        assert default in text, default


@pytest.mark.slow
def test_seed_makes_resampling_reproducible():
    first, second = run("demo", "--ci", "bootstrap"), run("demo", "--ci", "bootstrap")
    assert first.returncode == 0 and first.stdout == second.stdout
    other = run("demo", "--ci", "bootstrap", "--seed", "1")
    assert other.returncode == 0 and other.stdout != first.stdout


def test_resampling_options_reach_the_report(tmp_path, capsys):
    path = tmp_path / "k.csv"
    K2011.to_csv(path, index=False)
    assert main(["report", str(path), "--level", "interval", "--format", "json",
                 "--ci", "bootstrap", "--seed", "7", "--n-resamples", "300",
                 "--confidence", "0.9"]) == 0
    rows = {r["coefficient"]: r for r in json.loads(capsys.readouterr().out)}
    ann = kappalab.Annotations.from_long(K2011)
    est = kappalab.krippendorff_alpha(ann, level="interval", ci="bootstrap", n_resamples=300,
                                      confidence=0.9, seed=7)
    alpha = rows["Krippendorff's alpha"]
    assert (alpha["ci_low"], alpha["ci_high"]) == pytest.approx(est.ci, abs=1e-12)
    assert alpha["se"] == pytest.approx(est.se, abs=1e-12)


@pytest.mark.slow
@pytest.mark.parametrize("option", [["--confidence", "1.5"], ["--confidence", "x"],
                                    ["--n-resamples", "0"], ["--seed", "-1"]])
def test_bad_resampling_options_exit_2(option):
    result = run("demo", *option)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert option[0] in result.stderr


# ---------------------------------------------------------------- no traceback, ever
import kappalab.cli as cli  # noqa: E402


@pytest.mark.slow
def test_directory_as_file_exit_2(tmp_path):
    result = run("report", str(tmp_path))
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.startswith("kappalab: error:") and "directory" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


@pytest.fixture
def long_file(tmp_path):
    path = tmp_path / "k.csv"
    K2011.to_csv(path, index=False)
    return path


@pytest.mark.slow
def test_broken_pipe_in_a_shell_pipeline(long_file):
    # `| head -1` reads the first line and exits; whether or not the rest of the output
    # meets a closed pipe, there is no traceback and the first line is the table's header
    result = subprocess.run(
        f"{sys.executable} -m kappalab report {long_file} --format csv | head -1",
        shell=True, capture_output=True, text=True, timeout=120)
    assert result.stdout.startswith("coefficient,value")
    assert "Traceback" not in result.stderr and "Exception" not in result.stderr


@pytest.mark.parametrize("fault, code, fragment", [
    (MemoryError(), 2, "out of memory"),
    (KeyboardInterrupt(), 130, "interrupted"),
    (RuntimeError("something unforeseen"), 2, "RuntimeError: something unforeseen"),
])
def test_faults_give_one_line_and_an_exit_code(long_file, capsys, monkeypatch, fault, code,
                                               fragment):
    def fail(*args, **kwargs):
        raise fault

    monkeypatch.setattr(cli, "agreement_report", fail)
    assert main(["report", str(long_file)]) == code
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith("kappalab: error:") and fragment in captured.err
    assert len(captured.err.strip().splitlines()) == 1


# ---------------------------------------------------------------- progress on stderr
import io  # noqa: E402
import time  # noqa: E402

from kappalab import progress  # noqa: E402


class FakeTerminal(io.StringIO):
    def isatty(self):
        return True


def test_elapsed_shows_after_the_delay_and_erases_itself():
    tty = FakeTerminal()
    with progress.elapsed("working", delay=0.05, interval=0.05, stream=tty):
        time.sleep(0.4)
    text = tty.getvalue()
    assert "working" in text and " s" in text
    assert text.endswith("\r") and text.rstrip("\r").endswith(" ")  # the line is blanked


@pytest.mark.parametrize("stream, quiet", [(FakeTerminal(), True), (io.StringIO(), False)])
def test_elapsed_silent_when_quiet_or_not_a_terminal(stream, quiet):
    with progress.elapsed("working", delay=0, interval=0.01, stream=stream, quiet=quiet):
        time.sleep(0.1)
    assert stream.getvalue() == ""


def test_elapsed_silent_for_quick_steps():
    tty = FakeTerminal()
    with progress.elapsed("working", stream=tty):  # the default delay: 2 s
        time.sleep(0.05)
    assert progress.DELAY == 2.0 and tty.getvalue() == ""


@pytest.mark.parametrize("with_tqdm", [True, False])
def test_track_yields_everything_and_shows_a_count(monkeypatch, with_tqdm):
    if not with_tqdm:
        monkeypatch.setitem(sys.modules, "tqdm", None)
    tty = FakeTerminal()
    items = []
    for x in progress.track(range(3), "datasets", delay=0, stream=tty):
        items.append(x)
        time.sleep(0.01)
    assert items == [0, 1, 2]
    assert "datasets" in tty.getvalue() and "/3" in tty.getvalue()  # tqdm may show 0/3 only
    assert with_tqdm or "3/3" in tty.getvalue()
    silent = io.StringIO()
    assert list(progress.track(range(3), "datasets", delay=0, stream=silent)) == [0, 1, 2]
    assert list(progress.track(range(3), "d", delay=0, stream=tty, quiet=True)) == [0, 1, 2]
    assert silent.getvalue() == "" and tty.getvalue().count("datasets") >= 1


@pytest.mark.slow
def test_no_progress_when_stderr_is_not_a_terminal(long_file):
    result = run("report", str(long_file), "--ci", "jackknife")
    assert result.returncode == 0 and result.stderr == ""
    result = run("demo", "--ci", "bootstrap", "--n-resamples", "200")
    assert result.returncode == 0 and result.stderr == ""


@pytest.mark.slow
def test_quiet_leaves_only_the_notes(tmp_path, capsys, monkeypatch):
    path = tmp_path / "na.csv"
    NA_LABELS.to_csv(path, index=False)
    real_report = cli.agreement_report

    def slow_report(*args, **kwargs):
        time.sleep(0.3)
        return real_report(*args, **kwargs)

    monkeypatch.setattr(cli, "agreement_report", slow_report)
    monkeypatch.setattr(progress, "DELAY", 0.05)
    tty = FakeTerminal()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["report", str(path), "--quiet"]) == 0
    assert tty.getvalue().splitlines() == [
        "kappalab: note: dropped 2 of 15 rows whose 'value' value is missing (an empty cell)",
        "kappalab: note: the values 'N/A', 'NA', 'None', 'null' are kept as labels (only an "
        "empty cell is missing); if they mean missing, pass --na-values N/A,NA,None,null"]
    tty.seek(0), tty.truncate()
    assert main(["report", str(path)]) == 0  # on a terminal, without --quiet: shown
    assert "computing the report" in tty.getvalue()
    assert main(["demo", "--quiet"]) == 0


def test_na_label_in_numeric_values_gets_a_hint(tmp_path, capsys):
    frame = K2011.astype({"value": object})
    frame.loc[[0, 5], "value"] = "NA"
    path = tmp_path / "k.csv"
    frame.to_csv(path, index=False)
    assert main(["report", str(path), "--level", "interval"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--na-values NA" in err
    assert main(["report", str(path), "--level", "interval", "--na-values", "NA",
                 "--format", "csv"]) == 0
    expected = peer_alpha(frame.replace({"NA": np.nan}).astype({"value": float}), "interval")
    assert alpha_of(capsys.readouterr().out) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("text, flags", [
    ("item,rater,value,value\n1,a,x,y\n1,b,x,x\n", []),      # which value? pandas: value.1
    ("item,r1,r2,r1\n1,x,x,y\n2,y,y,y\n", ["--wide"]),       # one rater, or two?
])
def test_repeated_column_names_are_an_error(tmp_path, capsys, text, flags):
    path = tmp_path / "dup.csv"
    path.write_text(text)
    assert main(["report", str(path), *flags]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "more than once" in err


def test_repeated_column_names_in_excel(tmp_path, capsys):
    path = tmp_path / "dup.xlsx"
    pd.DataFrame([[1, "x", "x", "y"], [2, "y", "y", "y"]],
                 columns=["item", "r1", "r2", "r1"]).to_excel(path, index=False)
    assert main(["report", str(path), "--wide"]) == 2
    assert "'r1' appears more than once" in capsys.readouterr().err
    empty = tmp_path / "empty.xlsx"
    pd.DataFrame().to_excel(empty, index=False)
    assert main(["report", str(empty)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kappalab: error:") and "unexpected" not in err


# ---------------------------------------------------------------- expected faults, not bugs
import errno  # noqa: E402
import os  # noqa: E402
import random  # noqa: E402
import signal  # noqa: E402
from contextlib import redirect_stderr, redirect_stdout  # noqa: E402
from pathlib import Path  # noqa: E402

from hypothesis import HealthCheck, given, settings, strategies as st  # noqa: E402

ROOT = Path(kappalab.__file__).resolve().parents[1]
#: what pip writes for the console script ``kappalab`` (the entry point kappalab.cli:main)
CONSOLE_SCRIPT = ("import sys\nfrom kappalab.cli import main\nif __name__ == '__main__':\n"
                  "    sys.argv[0] = sys.argv[0].removesuffix('.exe')\n    sys.exit(main())\n")
ON_LINUX = pytest.mark.skipif(not Path("/proc/self/fdinfo").is_dir(),
                              reason="watches the command's open files in /proc (Linux)")


def start(command, **kwargs):
    """The command in a subprocess of this checkout (its directory on the path)."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen(command, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, **kwargs)


def own_lines(stderr: str) -> list[str]:
    """stderr without the lines of ``python -X importtime``."""
    return [line for line in stderr.splitlines() if not line.startswith("import time:")]


@pytest.fixture(scope="module")
def large_csv(tmp_path_factory):
    """3 million annotations, 31 MB: reading them takes a good second."""
    n = 3_000_000
    path = tmp_path_factory.mktemp("large") / "large.csv"
    values = np.random.default_rng(0).integers(0, 5, n)
    pd.DataFrame({"item": np.arange(n) // 3, "rater": np.tile(["a", "b", "c"], n // 3),
                  "value": values}).to_csv(path, index=False)
    return path


@pytest.mark.slow
@pytest.mark.parametrize("launcher", ["-m", "console script"])
def test_ctrl_c_during_start_up_exits_130_with_one_line(launcher, tmp_path, long_file):
    # -X importtime writes a line as each module is imported: the first line naming numpy
    # says the command is in the middle of its start-up (importing numpy, pandas, scipy)
    if launcher == "-m":
        command = [sys.executable, "-X", "importtime", "-m", "kappalab", "report",
                   str(long_file)]
    else:
        script = tmp_path / "kappalab"
        script.write_text(CONSOLE_SCRIPT)
        command = [sys.executable, "-X", "importtime", str(script), "report", str(long_file)]
    process = start(command)
    seen = []
    for line in process.stderr:
        seen.append(line)
        if "numpy" in line:
            break
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=120)
    started = any(line.rstrip().endswith("| kappalab") for line in seen)  # kappalab imported
    assert any("numpy" in line for line in seen) and not started
    assert process.returncode == 130, err[-2000:]
    assert own_lines(err) == ["kappalab: error: interrupted"] and out == ""


def reading_position(pid: int, path: Path) -> int:
    """How far the process has read ``path`` (0 while it has no such file open)."""
    farthest = 0
    for fd in os.listdir(f"/proc/{pid}/fd"):
        try:
            if os.readlink(f"/proc/{pid}/fd/{fd}") == str(path):
                with open(f"/proc/{pid}/fdinfo/{fd}") as info:
                    farthest = max(farthest, int(info.readline().split()[1]))
        except (OSError, ValueError, IndexError):  # closed meanwhile
            pass
    return farthest


@pytest.mark.slow
@ON_LINUX
def test_ctrl_c_while_reading_a_large_csv_exits_130_with_one_line(large_csv):
    # the separator is sniffed on the first 64 KiB; past them the table itself is being read
    # (pandas' C parser, whose read callback used to turn the interrupt into a read error)
    path = large_csv.resolve()
    for _ in range(3):
        process = start([sys.executable, "-m", "kappalab", "report", str(path), "--ci", "none"])
        deadline = time.monotonic() + 120
        while reading_position(process.pid, path) <= 1 << 16:
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.001)
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=120)
        assert process.returncode == 130, err
        assert err.splitlines() == ["kappalab: error: interrupted"] and out == ""


def test_random_bytes_in_a_csv_are_an_unreadable_file(tmp_path, capsys):
    path = tmp_path / "noise.csv"
    generator = random.Random(1)  # its first line holds a carriage return
    path.write_bytes(bytes(generator.randrange(256) for _ in range(3000)))
    assert b"\r" in path.read_bytes().split(b"\n")[0]
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and str(path) in err
    assert "a bug?" not in err


@pytest.mark.slow
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(content=st.binary(max_size=400)
       | st.lists(st.sampled_from([b"item,rater,value", b"\r", b"\n", b",", b"\x00", b'"',
                                   b"1", b"a", b"x", b"\xff", b";", b"\t", b"\r\n"]),
                  max_size=40).map(b"".join))
def test_any_bytes_in_a_csv_give_a_report_or_one_line(content):
    import tempfile
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "any.csv"
        path.write_bytes(content)
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            code = main(["report", str(path), "--ci", "none"])
    lines = err.getvalue().strip().splitlines()
    assert code in (0, 2)
    if code == 2:
        assert len(lines) == 1 and lines[0].startswith("kappalab: error:")
        assert "a bug?" not in lines[0] and out.getvalue() == ""


def test_carriage_returns_alone_end_lines(tmp_path, capsys, long_file):
    # old Mac line ends: the header was split on "\n" only, a fault "new-line character seen
    # in unquoted field" reported as a bug; pandas reads "\r" as a line end
    path = tmp_path / "mac.csv"
    path.write_bytes(long_file.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r"))
    assert main(["report", str(path), "--level", "interval", "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(0.849, abs=5e-4)  # K. (2011)


@pytest.mark.slow
@pytest.mark.skipif(not Path("/dev/full").exists(), reason="needs the device /dev/full")
def test_a_full_disk_is_one_line_exit_2(long_file):
    with open("/dev/full", "w") as full:  # every write fails: no space left on device
        completed = subprocess.run(
            [sys.executable, "-m", "kappalab", "report", str(long_file)], cwd=ROOT,
            env=dict(os.environ, PYTHONPATH=str(ROOT)), stdout=full, stderr=subprocess.PIPE,
            text=True, timeout=120)
    err = completed.stderr
    assert completed.returncode == 2, err
    assert len(err.strip().splitlines()) == 1 and err.startswith("kappalab: error:")
    assert "no space left" in err.lower() and "stdout" in err
    assert "a bug?" not in err


class FullDisk(io.StringIO):
    def write(self, text):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


def test_a_failing_write_names_the_output(long_file, capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdout", FullDisk())
    assert main(["report", str(long_file)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "stdout" in err and "disk" in err
    assert "a bug?" not in err


def test_a_numeric_level_on_text_names_the_level_and_the_values(tmp_path, capsys):
    path = tmp_path / "text.csv"
    path.write_text("item,rater,value\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n3,a,y\n3,b,y\n")
    for level in ("interval", "ratio"):
        assert main(["report", str(path), "--level", level]) == 2
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1
        assert f"--level {level}" in err and "'x'" in err and str(path) in err
        assert "weights" not in err and "--level nominal" in err


def test_integers_beyond_64_bits_without_exact_differences_are_named_as_such(tmp_path, capsys):
    path = tmp_path / "big.csv"
    path.write_text("item,rater,value\n1,a,99999999999999999999\n1,b,1\n2,a,2\n2,b,2\n"
                    "3,a,1\n3,b,1\n")
    assert main(["report", str(path), "--level", "interval"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "99999999999999999999" in err
    # numbers, but 99999999999999999999 − 1 is no float64 number: the differences are named
    assert "differences" in err and "2**53" in err and "needs numeric values" not in err


@pytest.mark.parametrize("column, cells, kind", [
    ("value", [["x", "y"], ["x"], ["y"], ["y"], ["x"], ["x", "y"]], "lists"),
    ("value", [{"a": 1}, {"a": 2}, {"a": 1}, {"a": 1}, {"a": 2}, {"a": 2}], "records"),
    ("item", [[1], [1], [2], [2], [3], [3]], "lists"),
])
def test_nested_parquet_cells_are_named(tmp_path, capsys, column, cells, kind):
    frame = pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"),
                          "value": list("xyxxyy")})
    frame[column] = cells
    path = tmp_path / "nested.parquet"
    frame.to_parquet(path)
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert f"column {column!r}" in err and kind in err and str(path) in err
    assert "cannot be ordered" not in err and "a bug?" not in err


@pytest.mark.slow
def test_an_output_encoding_without_the_characters_is_one_line_exit_2():
    # the plan's text holds σ₁ and ≈: an ASCII stdout cannot show them
    env = dict(os.environ, PYTHONPATH=str(ROOT), PYTHONIOENCODING="ascii")
    result = subprocess.run([sys.executable, "-m", "kappalab", "plan", "--reliability", "0.7",
                             "--half-width", "0.1"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode == 2 and result.stdout == ""
    assert len(result.stderr.strip().splitlines()) == 1
    assert "stdout" in result.stderr and "PYTHONIOENCODING=utf-8" in result.stderr
    assert "a bug?" not in result.stderr


# ---------------------------------------------------------------- label identity
# A file's cells have no type: each is a number when written as one, whatever else its
# column holds, so 1 and 1.0 are one label with or without an "x" elsewhere in the column
# (docs/guide/data_layouts.md, "Label identity"). Counts below are written out by hand.
ONE_TWO = ("item,rater,value\n"
           "1,a,1\n1,b,1.0\n"     # one label: the number 1
           "2,a,2\n2,b,2\n"
           "3,a,1.0\n3,b,2\n")


def test_one_and_one_point_zero_are_one_label_with_or_without_text(tmp_path, capsys):
    plain, with_x = tmp_path / "plain.csv", tmp_path / "with_x.csv"
    plain.write_text(ONE_TWO)
    with_x.write_text(ONE_TWO + "4,a,x\n4,b,x\n")
    a, b = read_annotations(str(plain)), read_annotations(str(with_x))
    assert list(a.categories) == [1, 2] and list(b.categories) == [1, 2, "x"]
    assert a.count_matrix.tolist() == [[2, 0], [0, 2], [1, 1]]
    assert b.count_matrix.tolist() == [[2, 0, 0], [0, 2, 0], [1, 1, 0], [0, 0, 2]]
    # α by the krippendorff package, 1 and 1.0 coded alike: items (1,1) (2,2) (1,2) (x,x)
    coded = np.array([[0, 1, 0, 2], [0, 1, 1, 2]], dtype=float)
    expected = krippendorff.alpha(reliability_data=coded, level_of_measurement="nominal")
    assert main(["report", str(with_x), "--format", "csv"]) == 0
    assert alpha_of(capsys.readouterr().out) == pytest.approx(expected, abs=1e-12)


def test_the_command_line_reads_labels_as_the_api_does(tmp_path):
    path = tmp_path / "mixed.csv"
    path.write_text("item,rater,value\n1,a,1\n1,b,1.0\n2,a,x\n2,b,true\n3,a,2.5\n3,b,x\n")
    with pytest.warns(kappalab.errors.LabelWarning, match="1 and True"):  # apart, both ways
        from_file = read_annotations(str(path))
    typed = pd.DataFrame({"item": ["1", "1", "2", "2", "3", "3"],
                          "rater": ["a", "b"] * 3,
                          "value": pd.Series([1, 1.0, "x", True, 2.5, "x"], dtype=object)})
    with pytest.warns(kappalab.errors.LabelWarning, match="1 and True"):
        from_api = kappalab.Annotations.from_long(typed)
    assert list(from_file.categories) == list(from_api.categories) == [1, 2.5, True, "x"]
    assert from_file.count_matrix.tolist() == from_api.count_matrix.tolist() == [
        [2, 0, 0, 0], [0, 0, 1, 1], [0, 1, 0, 1]]


def test_wide_file_cells_are_typed_one_by_one(tmp_path):
    path = tmp_path / "wide.csv"
    path.write_text("item,a,b\ni1,1,1.0\ni2,2,2\ni3,x,2\n")  # column a holds an x, b does not
    ann = read_annotations(str(path), wide=True)
    assert list(ann.categories) == [1, 2, "x"]
    assert ann.count_matrix.tolist() == [[2, 0, 0], [0, 2, 0], [0, 1, 1]]


def test_categories_option_is_typed_as_the_cells_are(tmp_path, capsys):
    path = tmp_path / "codes.csv"
    path.write_text(ONE_TWO + "4,a,x\n4,b,x\n")
    assert main(["report", str(path), "--format", "csv", "--categories", "1,2,x,3"]) == 0
    # Brennan-Prediger with q = 4 categories: P_o = 3/4 (items 1, 2, 4 agree), (3/4 − 1/4)/(3/4)
    assert coefficient_of(capsys.readouterr().out, "Brennan-Prediger") == pytest.approx(2 / 3)


def test_labels_kept_apart_are_a_note(tmp_path, capsys):
    path = tmp_path / "bool.csv"
    path.write_text("item,rater,value\n1,a,1\n1,b,True\n2,a,0\n2,b,False\n")
    assert main(["report", str(path), "--format", "csv"]) == 0
    err = capsys.readouterr().err
    assert re.search(r"kappalab: note: the values (0 and False|1 and True) are equal as "
                     "numbers", err), err


def test_integers_beyond_2_53_are_reported_exactly(tmp_path, capsys):
    """2**62 and 2**62 + 1 are one float64: the report worked on their exact difference.
    Percent agreement: two items agree, the third differs by the span (quadratic weight 0),
    (1 + 1 + 0)/3. Interval α: three 0s and three 1s (offsets), D_o = (2/1)/6,
    D_e = 2·3·3/30, α = 1 − (1/3)/(3/5) = 4/9."""
    rows = [(item, rater, value) for item, row in enumerate(
        [[2**62, 2**62], [2**62 + 1, 2**62 + 1], [2**62, 2**62 + 1]])
        for rater, value in zip("ab", row)]
    path = tmp_path / "big.csv"
    pd.DataFrame(rows, columns=["item", "rater", "value"]).to_csv(path, index=False)
    assert main(["report", str(path), "--level", "interval", "--format", "json"]) == 0
    values = {r["coefficient"]: r["value"] for r in json.loads(capsys.readouterr().out)}
    assert values["percent agreement (weighted)"] == pytest.approx(2 / 3, abs=1e-15)
    assert values["Krippendorff's alpha"] == pytest.approx(4 / 9, abs=1e-15)


# ---------------------------------------------------------------- first hour: the report table
def test_the_benchmark_bands_no_percent_agreement(tmp_path, capsys):
    """`--benchmark krippendorff` labelled percent agreement "Reliable" beside α "Discard"."""
    path = tmp_path / "wide.csv"
    # percent agreement by hand: items agree in pairs 1 of 3 (i0, i1, i3, i5) or 3 of 3
    # (i2, i4): P_o = (4·1/3 + 2·1)/6 = 5/9 — no band for it, one for α
    pd.DataFrame([[1, 2, 2], [2, 2, 3], [3, 3, 3], [1, 1, 2], [4, 4, 4], [2, 3, 3]],
                 index=[f"i{k}" for k in range(6)]).to_csv(path)
    assert main(["report", str(path), "--wide", "--format", "json",
                 "--benchmark", "krippendorff"]) == 0
    rows = {r["coefficient"]: r for r in json.loads(capsys.readouterr().out)}
    assert rows["percent agreement"]["value"] == pytest.approx(5 / 9, abs=1e-12)
    assert rows["percent agreement"]["band"] is None
    assert rows["percent agreement"]["certain_band"] is None
    assert rows["Krippendorff's alpha"]["band"] in SCALES_KRIPPENDORFF
    assert main(["report", str(path), "--wide", "--benchmark", "krippendorff"]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines()
                if row.strip().startswith("percent agreement"))
    assert not any(label in line for label in SCALES_KRIPPENDORFF)


SCALES_KRIPPENDORFF = ("Discard", "Tentative conclusions", "Reliable")


def test_the_report_table_fits_a_terminal_with_footnotes_and_integers(tmp_path, capsys):
    """`kappalab report` printed the note column padded to its longest note, counts as
    100.0000, percent agreement's expected agreement as 0.0000 and, with --ci none, se and
    interval columns full of NaN. The table now: numbers as the csv output has them, to 4
    decimals; counts as integers; notes as numbered footnotes; no inapplicable cell."""
    path = tmp_path / "long.csv"
    # 4 items × 2 raters, one category: every chance-corrected coefficient is undefined
    pd.DataFrame({"item": [1, 1, 2, 2, 3, 3, 4, 4], "rater": ["a", "b"] * 4,
                  "value": ["x"] * 8}).to_csv(path, index=False)
    assert main(["report", str(path), "--format", "csv", "--ci", "none"]) == 0
    frame = pd.read_csv(pd.io.common.StringIO(capsys.readouterr().out), keep_default_na=False)
    assert main(["report", str(path), "--ci", "none"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    header = lines[0].split()
    assert header == ["coefficient", "value", "observed", "expected", "level", "n_items",
                      "n_annotations", "n_raters"]  # no se, ci_low, ci_high, note
    notes = list(dict.fromkeys(n for n in frame["note"] if n))
    assert len(notes) >= 2 and max(map(len, notes)) > 100
    assert max(len(line) for line in lines[:len(frame) + 1]) < 100
    for k, (_, row) in enumerate(frame.iterrows(), start=1):
        line = lines[k]
        assert line.startswith(row.coefficient)
        if row.note:
            assert line.startswith(f"{row.coefficient} [{notes.index(row.note) + 1}]")
        assert line.split()[-3:] == ["4", "8", "2"]  # items, annotations, raters: integers
        after_value = line.split()[len(row.coefficient.split()) + 1 + bool(row.note) + 1:]
        assert "NaN" not in after_value  # NaN is an undefined value, nothing else
        if row.coefficient == "percent agreement":
            # P_o = 1 (every pair agrees), observed 1, no expected agreement, level next
            assert float(row.value) == 1 and row.expected == ""
            assert line.split()[-6:-3] == ["1.0000", "1.0000", "nominal"]
        else:
            assert line.split()[len(row.coefficient.split()) + bool(row.note)] == "NaN"
    footnotes = " ".join(" ".join(lines[len(frame) + 2:]).split())
    for k, note in enumerate(notes, start=1):
        assert f"[{k}] {' '.join(note.split())}" in footnotes


# ------------------------------------------------------------ first hour: the command line

def test_duplicates_option_names_the_way_out_and_applies_the_policy(tmp_path, capsys):
    """Rater a annotates item 1 twice ("x", then "y"). Items: 1 = (x|y by a, x by b), 2 = (y, y),
    3 = (x, y). Percent agreement by hand: first keeps x for a on item 1, so items agree
    1, 1, 0: 2/3; last keeps y: 0, 1, 0: 1/3; separate makes a second rater "a" whose one
    annotation (item 1) pairs with the others: item 1 holds x, x, y, 1 agreeing pair of 3."""
    path = tmp_path / "dup.csv"
    path.write_text("item,rater,value\n1,a,x\n1,b,x\n2,a,y\n2,b,y\n3,a,x\n3,b,y\n1,a,y\n")
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "more than once" in err and "--duplicates first" in err, err
    assert len(err.strip().splitlines()) == 1
    expected = {"first": 2 / 3, "last": 1 / 3, "separate": (1 / 3 + 1 + 0) / 3}
    for policy, value in expected.items():
        assert main(["report", str(path), "--duplicates", policy, "--format", "csv"]) == 0
        out = capsys.readouterr()
        assert coefficient_of(out.out, "percent agreement") == pytest.approx(value), policy
    assert main(["report", str(path), "--duplicates", "raise"]) == 2


def test_row_numbers_in_errors_are_the_lines_and_rows_the_user_sees(tmp_path, capsys):
    """A blank item id on line 18 of a CSV (line 1 is the header, so it is the 17th data
    row) is reported at line 18; in a spreadsheet, at the row number Excel shows (row 1
    holds the header)."""
    rows = [f"{i // 2 + 1},{'ab'[i % 2]},x" for i in range(20)]
    rows[16] = ",a,x"  # line 18: the header is line 1, rows[0] is line 2
    path = tmp_path / "blank.csv"
    path.write_text("item,rater,value\n" + "\n".join(rows) + "\n")
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert "line 18" in err and "row 16" not in err, err
    frame = pd.read_csv(path, dtype=str, keep_default_na=False).replace("", None)
    sheet = tmp_path / "blank.xlsx"
    frame.to_excel(sheet, index=False)  # row 1: header; the data row rows[16] is row 18
    assert main(["report", str(sheet)]) == 2
    err = capsys.readouterr().err
    assert "row 18" in err and "row 16" not in err, err


def test_a_missing_column_names_the_options_and_wide_when_columns_look_like_raters(
        tmp_path, capsys):
    long = tmp_path / "long.csv"
    long.write_text("sentence_id,mturk_id,label_bias\n1,a,x\n1,b,y\n2,a,x\n2,b,x\n")
    assert main(["report", str(long), "--item", "sentence_id"]) == 2
    err = capsys.readouterr().err
    assert "'rater'" in err and "'value'" in err and "sentence_id" in err, err
    assert "--rater" in err and "--value" in err and "--wide" not in err, err
    assert len(err.strip().splitlines()) == 1
    wide = tmp_path / "wide.csv"  # items × raters: three raters' labels from one set
    wide.write_text("id,ann1,ann2,ann3\n1,x,y,x\n2,y,y,\n3,x,x,x\n")
    assert main(["report", str(wide)]) == 2
    err = capsys.readouterr().err
    assert "--item" in err and "--wide" in err, err
    assert main(["report", str(wide), "--wide", "--format", "csv"]) == 0


def test_ordinal_text_labels_note_the_order_used_and_how_to_give_one(tmp_path, capsys):
    path = tmp_path / "ord.csv"
    pd.DataFrame({"item": [1, 1, 2, 2, 3, 3], "rater": list("ababab"),
                  "value": ["très", "positive", "négatif", "négatif",
                            "neutral, leaning positive", "positive"]}).to_csv(path, index=False)
    assert main(["report", str(path), "--level", "ordinal"]) == 0
    err = capsys.readouterr().err
    # Python's sort of the texts (code points: "n" < "p" < "t", "e" < "é")
    assert ("'neutral, leaning positive' < 'négatif' < 'positive' < 'très'" in err
            and "--categories" in err), err
    grades = tmp_path / "grades.csv"
    grades.write_text("item,rater,value\n1,a,lo\n1,b,mid\n2,a,hi\n2,b,hi\n3,a,lo\n3,b,lo\n")
    assert main(["report", str(grades), "--level", "ordinal"]) == 0
    assert "'hi' < 'lo' < 'mid'" in capsys.readouterr().err
    assert main(["report", str(grades), "--level", "ordinal", "--categories", "lo,mid,hi"]) == 0
    assert "order" not in capsys.readouterr().err  # the order given: nothing to note
    assert main(["report", str(grades), "--level", "nominal"]) == 0
    assert "order" not in capsys.readouterr().err  # no order used


def test_na_like_labels_kept_are_a_note_that_names_na_values(tmp_path, capsys):
    frame = pd.DataFrame({"item": [1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4],
                          "rater": list("abc") * 4,
                          "value": ["x", "x", "NA", "y", "y", "y", "x", "y", "NA",
                                    "y", "NA", "y"]})
    path = tmp_path / "na.csv"
    frame.to_csv(path, index=False)
    assert main(["report", str(path), "--format", "csv"]) == 0
    out = capsys.readouterr()
    assert alpha_of(out.out) == pytest.approx(peer_alpha(frame), abs=1e-12)  # "NA": a label
    assert "the value 'NA' is kept as a label" in out.err, out.err
    assert "--na-values NA" in out.err, out.err
    assert main(["report", str(path), "--format", "csv", "--na-values", "NA"]) == 0
    out = capsys.readouterr()
    dropped = frame.assign(value=frame["value"].replace("NA", np.nan))
    assert alpha_of(out.out) == pytest.approx(peer_alpha(dropped), abs=1e-12)
    assert "kept as a label" not in out.err
    assert peer_alpha(frame) != pytest.approx(peer_alpha(dropped), abs=1e-3)  # they differ


@pytest.mark.slow
def test_the_ci_names_are_one_list_krippendorff_included(tmp_path, capsys):
    """The documented names of ``ci=`` (docs: uncertainty), written out here."""
    import kappalab as kl
    from kappalab.errors import InvalidParameterError

    names = ["analytic", "asymptotic", "gwet", "bootstrap", "bootstrap-basic", "bootstrap-bca",
             "bayesian-bootstrap", "jackknife"]
    data = datasets.load("worked_example")
    for estimator in (kl.krippendorff_alpha, kl.fleiss_kappa):
        with pytest.raises(InvalidParameterError, match="unknown ci 'bogus'") as caught:
            estimator(data, ci="bogus")
        message = str(caught.value)
        assert all(f"'{name}'" in message for name in [*names, "krippendorff"]), message
        assert "Krippendorff's alpha only" in message
    path = tmp_path / "k.csv"
    datasets.load_frame("worked_example").to_csv(path, index=False)
    result = run("report", str(path), "--ci", "bogus")
    assert result.returncode == 2
    assert all(f"'{name}'" in result.stderr for name in [*names, "krippendorff"]), result.stderr
    assert "krippendorff" in run("report", "--help").stdout


@pytest.mark.slow
def test_report_ci_krippendorff_reaches_the_alpha_row(tmp_path):
    """``--ci krippendorff`` is the report's ``ci="krippendorff"``: α's row has Krippendorff's
    bootstrap interval (the same as ``krippendorff_alpha(ci="krippendorff")`` with the same
    seed), every other row its value and a note that it has no such interval."""
    from io import StringIO

    import kappalab as kl

    path = tmp_path / "k.csv"
    datasets.load_frame("worked_example").to_csv(path, index=False)
    result = run("report", str(path), "--ci", "krippendorff", "--seed", "3",
                 "--n-resamples", "400", "--format", "csv")
    assert result.returncode == 0, result.stderr
    table = pd.read_csv(StringIO(result.stdout)).set_index("coefficient")
    expected = kl.krippendorff_alpha(datasets.load("worked_example"), ci="krippendorff",
                                     n_resamples=400, seed=3)
    alpha = table.loc["Krippendorff's alpha"]
    assert (alpha.ci_low, alpha.ci_high) == pytest.approx(expected.ci, abs=5e-7)
    fleiss = table.loc["Fleiss' kappa"]
    assert np.isnan(fleiss.ci_low) and "no interval" in fleiss.note


@pytest.mark.slow
def test_a_closed_pipe_downstream_exits_quietly(long_file):
    """The read end closes before the command writes (a certain EPIPE, as after
    ``kappalab report ... | head``): no message, and the status of a process ended by
    SIGPIPE, 128 + 13, as a shell reports for other Unix tools."""
    process = subprocess.Popen([sys.executable, "-m", "kappalab", "report", str(long_file)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    process.stdout.close()
    err = process.stderr.read().decode()
    code = process.wait(timeout=120)
    assert err == "" and code == 128 + 13, (code, err)
    result = subprocess.run(
        f"{sys.executable} -m kappalab report {long_file} --format csv | head -1",
        shell=True, capture_output=True, text=True, timeout=120)
    assert result.stdout.startswith("coefficient,value") and result.stderr == "", result.stderr


def test_the_note_of_repeats_dropped_names_the_duplicates_option(tmp_path, capsys):
    path = tmp_path / "dup.csv"
    path.write_text("item,rater,value\n1,a,x\n1,b,x\n2,a,y\n2,b,y\n1,a,y\n")
    assert main(["report", str(path), "--duplicates", "last"]) == 0
    notes = [line for line in capsys.readouterr().err.splitlines() if "repeated" in line]
    assert notes == ["kappalab: note: dropped 1 repeated submission(s) of an (item, rater) "
                     "pair, keeping the last of each (--duplicates last)"], notes


# ---------------------------------------------------------------- --plot
def test_report_plot_draws_the_coefficients_beside_the_table(tmp_path, capsys):
    """``kappalab report labels.csv --plot out.png``: the table as without --plot, and a PNG
    of the report's coefficients with their intervals."""
    path = tmp_path / "labels.csv"
    SHARP.to_csv(path, index=False)
    assert main(["report", str(path), "--format", "csv"]) == 0
    table = capsys.readouterr().out
    png = tmp_path / "out.png"
    assert main(["report", str(path), "--format", "csv", "--plot", str(png)]) == 0
    captured = capsys.readouterr()
    assert captured.out == table and str(png) in captured.err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert alpha_of(table) == pytest.approx(peer_alpha(SHARP), abs=1e-12)


def test_report_plot_refuses_an_unknown_image_format_in_one_line(tmp_path, capsys):
    path = tmp_path / "labels.csv"
    SHARP.to_csv(path, index=False)
    assert main(["report", str(path), "--plot", str(tmp_path / "out.docx")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kappalab: error: --plot") and len(err.strip().splitlines()) == 1
    assert ".png" in err and not (tmp_path / "out.docx").exists()


def test_plan_plot_draws_the_items_each_design_needs(tmp_path, capsys):
    options = ["plan", "--reliability", "0.7", "--half-width", "0.1", "--annotations", "2,3,5"]
    assert main(options) == 0
    table = capsys.readouterr().out
    png = tmp_path / "plan.png"
    assert main([*options, "--plot", str(png)]) == 0
    captured = capsys.readouterr()
    assert captured.out == table and str(png) in captured.err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 5000
    assert main([*options, "--plot", str(tmp_path / "plan.txt")]) == 2
    assert capsys.readouterr().err.startswith("kappalab: error: --plot")


RATERS_CSV = ("item,rater,value\n" + "".join(
    f"{i},{rater},{label}\n" for i, (a, b) in enumerate(
        ["xx", "xy", "yy", "yy", "xx", "yx", "xx", "yy", "xy", "xx"])
    for rater, label in (("a", a), ("b", b))))


def test_raters_adds_each_raters_agreement_with_the_rest(tmp_path, capsys):
    """With two raters, a rater's κx against the rest is Cohen's κ of the pair (Wong et al.
    2021: one annotation per item on each side); the oracle is scikit-learn's."""
    from sklearn.metrics import cohen_kappa_score

    path = tmp_path / "two.csv"
    path.write_text(RATERS_CSV)
    pairs = ["xx", "xy", "yy", "yy", "xx", "yx", "xx", "yy", "xy", "xx"]
    kappa = cohen_kappa_score([p[0] for p in pairs], [p[1] for p in pairs])
    assert main(["report", str(path), "--raters", "--format", "json", "--quiet"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {row["rater"] for row in out["raters"]} == {"a", "b"}
    assert all(row["kappa_x"] == pytest.approx(kappa, abs=1e-12) for row in out["raters"])
    assert any(row["coefficient"] == "Cohen's kappa" for row in out["report"])
    assert main(["report", str(path), "--raters", "--quiet"]) == 0
    table = capsys.readouterr().out
    raters = table.split("Each rater against the rest of the panel")[1].splitlines()[1:]
    header, *rows = [line.split() for line in raters]
    assert header[:4] == ["rater", "annotations", "shared_items", "kappa_x"]
    assert [row[0] for row in rows] == ["a", "b"]
    assert all(float(row[3]) == pytest.approx(kappa, abs=5e-5) for row in rows)


def test_raters_with_plot_draws_the_raters_and_csv_is_refused(tmp_path, capsys):
    path, image = tmp_path / "two.csv", tmp_path / "raters.png"
    path.write_text(RATERS_CSV)
    assert main(["report", str(path), "--raters", "--plot", str(image)]) == 0
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "wrote the figure" in capsys.readouterr().err
    assert main(["report", str(path), "--raters", "--format", "csv"]) == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and "--format json" in err
