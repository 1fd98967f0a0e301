"""The documentation's gallery has one example per runnable script of experiments/ and
paper_repro/ (the Makefile's EXPERIMENTS and REPRO lists), each running the script's ``main``
in its quick setting, so that a new script without an example fails here.

The examples themselves run in ``make docs`` (sphinx-gallery, ``abort_on_example_error``), not
in the test suite.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "docs" / "examples"


def makefile_lists() -> dict[str, list[str]]:
    makefile = (ROOT / "Makefile").read_text()
    return {name: value.split() for name, value in
            re.findall(r"^(EXPERIMENTS|REPRO)\s*:=\s*(.*)$", makefile, re.M)}


def scripts() -> list[tuple[str, str]]:
    lists = makefile_lists()
    return ([("experiments", name) for name in lists["EXPERIMENTS"]]
            + [("paper_repro", name) for name in lists["REPRO"]])


def examples() -> dict[str, Path]:
    return {path.stem: path for path in EXAMPLES.rglob("*.py")}


def main_calls(path: Path) -> list[ast.Call]:
    """The calls ``<module>.main([...])`` of an example."""
    return [node for node in ast.walk(ast.parse(path.read_text()))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "main"]


def test_the_makefile_lists_are_read():
    lists = makefile_lists()
    assert len(lists["EXPERIMENTS"]) >= 6 and len(lists["REPRO"]) >= 9


@pytest.mark.parametrize(("package", "name"), scripts())
def test_every_script_has_a_gallery_example_that_runs_it_quick(package, name):
    found = examples()
    assert name in found, (
        f"{package}.{name} has no gallery example: add docs/examples/<section>/{name}.py "
        f"(see docs/examples/GALLERY_HEADER.rst)")
    path = found[name]
    tree = ast.parse(path.read_text())
    imports = {(node.module, alias.name) for node in ast.walk(tree)
               if isinstance(node, ast.ImportFrom) for alias in node.names}
    assert (package, name) in imports, f"{path} does not import {package}.{name}"
    calls = [call for call in main_calls(path)
             if isinstance(call.func.value, ast.Name) and call.func.value.id == name]
    assert len(calls) == 1, f"{path} should call {name}.main once"
    argv = ast.literal_eval(ast.unparse(calls[0].args[0]).replace("str(out)", "'OUT'"))
    assert "--quick" in argv and "--out" in argv
    if package == "experiments":  # not a local Dask cluster inside the docs build
        assert argv[argv.index("--scheduler") + 1] == "serial"
    # the page says what the full run gives and how to start it
    docstring = ast.get_docstring(tree)
    assert docstring and f"python -m {package}.{name}" in docstring
    assert "**Data.**" in docstring and "**Full run.**" in docstring


def test_every_example_belongs_to_a_script():
    names = {name for _, name in scripts()}
    assert set(examples()) <= names, set(examples()) - names


def test_the_gallery_runs_every_example_and_fails_the_build_on_an_error():
    conf = (ROOT / "docs" / "conf.py").read_text()
    assert '"abort_on_example_error": True' in conf
    assert '"filename_pattern": r".*\\.py$"' in conf
    sections = {path.parent.name for path in examples().values()}
    for section in sections:
        assert f'"examples/{section}"' in conf, f"subsection_order lacks examples/{section}"
        assert (EXAMPLES / section / "GALLERY_HEADER.rst").is_file()
