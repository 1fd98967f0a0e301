"""kappalab.io: the file readers, moved out of the console command; kappalab.cli keeps the
names, and a reader's fault is still the command line's one line."""

import pytest

import kappalab.cli as cli
from kappalab import io


@pytest.mark.parametrize("name", ["read_table", "read_annotations", "sniff_separator"])
def test_the_cli_names_are_the_readers(name):
    assert getattr(cli, name) is getattr(io, name)


def test_a_missing_file_is_a_read_error_of_one_line(tmp_path):
    missing = tmp_path / "nothing.csv"
    with pytest.raises(io.ReadError, match="^no such file: ") as caught:
        io.read_annotations(str(missing))
    assert "\n" not in str(caught.value)


def test_the_command_line_errors_are_read_errors():
    assert issubclass(cli.CliError, io.ReadError)


def test_a_reader_fault_is_the_command_line_one_line_exit(tmp_path, capsys):
    path = tmp_path / "labels.csv"
    path.write_text("item,rater,value\n1,a,x\n")
    assert cli.main(["report", str(path), "--sep", "ab"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["kappalab: error: --sep must be one character (or tab, comma, semicolon), "
                   "got 'ab'"]
