"""Every reproduction of ``paper_repro/`` says how far it gets, and says it the same way in its
output, in the README tables and on its gallery page.

The statuses are one table, ``paper_repro.status.REPRODUCTIONS``: one row per claim of a paper
(the figure, table or section, the data used, what the full run gives and one of reproduced,
qualitatively reproduced, not reproduced). Here: every script of the Makefile's REPRO list has
rows; a row marked reproduced names the test that compares the number with the paper's, and
that test exists; the two README tables are the table's own output; each gallery page states
the status of each of its script's rows; the documents that introduce the scripts no longer
call all of them reproduced. That each script prints and writes its rows is checked on the
quick runs of its own tests (``assert_status_in``) and, for the two SPA scripts that write no
markdown, here.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from paper_repro import spa_fig4, spa_fig5, status
from test_gallery import examples, makefile_lists

ROOT = Path(__file__).resolve().parents[1]
STATUS_WORDS = r"(qualitatively reproduced|not reproduced|reproduced)"


def assert_status_in(text: str, script: str) -> None:
    """``text`` (a script's printed output or markdown) holds every status row of ``script``:
    each row's paper and target followed by its status."""
    for row in status.rows(script):
        found = re.findall(re.escape(f"{row.paper}, {row.target}") + r"\W+" + STATUS_WORDS,
                           text, flags=re.I)
        assert found, f"{script}: no status for {row.target} in its output"
        assert {f.lower() for f in found} == {row.status}, (script, row.target, found)


def test_every_reproduction_script_has_its_rows():
    scripts = makefile_lists()["REPRO"]
    assert not [s for s in scripts if not any(r.script == s for r in status.REPRODUCTIONS)]
    assert {row.script for row in status.REPRODUCTIONS} <= set(scripts)
    for row in status.REPRODUCTIONS:
        assert row.status in status.STATUSES, row
        assert row.data in status.DATA_KINDS, row
        assert row.claim and row.outcome and row.target, row
        assert "|" not in row.claim + row.outcome + row.target, row  # a table cell each
    # one row per claim: no script states the same target twice
    keys = [(row.script, row.target) for row in status.REPRODUCTIONS]
    assert len(keys) == len(set(keys))
    # the statuses are not all the same word: the table distinguishes
    assert {row.status for row in status.REPRODUCTIONS} == set(status.STATUSES)


def test_a_row_marked_reproduced_names_the_test_that_compares_it():
    for row in status.REPRODUCTIONS:
        if row.status != status.REPRODUCED:
            assert not row.test, f"{row.script} {row.target}: a test for a gap?"
            continue
        assert row.test, f"{row.script} {row.target} is marked reproduced without a test"
        for test in row.test.split(", "):
            path, name = test.split("::")
            tree = ast.parse((ROOT / path).read_text(encoding="utf-8"))
            defined = {node.name for node in tree.body if isinstance(node, ast.FunctionDef)}
            assert name in defined, test


def test_an_unknown_script_has_no_status():
    with pytest.raises(KeyError, match="no row for 'spa_fig9'"):
        status.rows("spa_fig9")


@pytest.mark.parametrize("readme, compact", [("paper_repro/README.md", False),
                                             ("README.md", True)])
def test_the_readme_tables_are_the_status_table(readme, compact):
    text = (ROOT / readme).read_text(encoding="utf-8")
    table = status.markdown_table(compact=compact)
    assert table in text, (
        f"{readme}'s status table differs from paper_repro.status: paste the output of "
        f"paper_repro.status.markdown_table(compact={compact}) into it")


def test_every_gallery_page_states_the_status_of_each_row():
    pages = examples()
    for script in makefile_lists()["REPRO"]:
        docstring = ast.get_docstring(ast.parse(pages[script].read_text(encoding="utf-8")))
        paragraph = re.search(r"\*\*Status\.\*\*(.*?)(?:\n\n|$)", docstring, re.S)
        assert paragraph, f"{pages[script]}: no **Status.** paragraph"
        said = " ".join(paragraph.group(1).split())
        for row in status.rows(script):
            found = re.findall(re.escape(row.target) + r": " + STATUS_WORDS, said)
            assert found == [row.status], (script, row.target, found)


# the blanket wording these documents used for every script of paper_repro/
BLANKET = ["figures and tables, reproduced", "Two papers are reproduced",
           "Two papers reproduced", "reproduced on simulated stand-ins",
           "One script per reproduced figure"]
INTRODUCTIONS = ["README.md", "paper_repro/README.md", "paper_repro/__init__.py",
                 "docs/examples/repro/GALLERY_HEADER.rst", "docs/guide/datasets.md", "Makefile"]


@pytest.mark.parametrize("document", INTRODUCTIONS)
def test_no_introduction_calls_every_script_reproduced(document):
    text = " ".join((ROOT / document).read_text(encoding="utf-8").split())
    assert not [phrase for phrase in BLANKET if phrase in text]
    if document != "Makefile":
        assert "status" in text, f"{document} does not point to the statuses"


@pytest.mark.slow
@pytest.mark.parametrize("script", [spa_fig4, spa_fig5], ids=["spa_fig4", "spa_fig5"])
def test_the_scripts_without_markdown_print_their_status(script, tmp_path, capsys):
    assert script.main(["--quick", "--out", str(tmp_path)]) == 0
    assert_status_in(capsys.readouterr().out, script.__name__.rsplit(".", 1)[1])
