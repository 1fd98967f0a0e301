"""The migration, correctness and performance pages: what they compare and cite.

Their ```python blocks run with every other page's in ``tests/test_guide.py``. The peer
libraries the migration page compares with (evalica and rater-agreement included) are test
oracles (the ``test`` extra; irrCAC installed with ``--no-deps``, see the Makefile): a
missing one fails the test, it is not skipped.

The pages also cite tests by name (``tests/test_x.py::test_name``, or ``::test_name`` after
a cited file in the same cell or sentence): each cited file and test must exist.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from test_guide import python_blocks as guide_blocks

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["docs/migration.md", "docs/correctness.md", "docs/performance.md"]


def python_blocks(page: str) -> list[tuple[int, str]]:
    return guide_blocks(ROOT / page)


def test_the_migration_page_compares_with_every_peer():
    """Each peer library's block imports it: the page is a comparison, not a description."""
    sources = "\n".join(source for _, source in python_blocks("docs/migration.md"))
    for module in ("krippendorff", "sklearn", "statsmodels", "irrCAC", "nltk", "pingouin",
                   "evalica", "raters"):
        assert re.search(rf"^\s*(import|from) {module}\b", sources, re.M), module
    assert '"worker", "task", "label"' in sources  # crowd-kit's columns


def test_the_peers_are_installed():
    """The oracles are part of the test environment: their absence is a failure, not a skip."""
    import importlib

    missing = []
    for module in ("krippendorff", "sklearn", "statsmodels", "irrCAC.raw", "nltk", "pingouin",
                   "evalica", "raters"):
        try:
            importlib.import_module(module)
        except ImportError as error:
            missing.append(f"{module}: {error}")
    assert not missing, ("peer libraries missing (make test installs them; irrCAC with "
                         "pip install --no-deps irrCAC):\n" + "\n".join(missing))


def test_the_migration_page_warns_where_evalica_and_rater_agreement_differ():
    """Users of the two newer peers are told where their numbers differ from kappalab's and
    why: evalica's KALPHA bootstrap is not centred on α when units have different numbers of
    ratings, rater-agreement's "interval" α uses the labels' positions, not their values, and
    evalica ends the process (no exception to catch) when a continuous table is too large for
    its dense matrices. The numbers are asserted by the page's blocks and by
    ``tests/test_evalica_rater_agreement.py``, which the page cites."""
    text = " ".join((ROOT / "docs/migration.md").read_text(encoding="utf-8").split())
    headings = re.findall(r"^#{2,3} (.+)$", (ROOT / "docs/migration.md").read_text(), re.M)
    assert "evalica" in headings and "rater-agreement" in headings
    for warning in ("not centred on α̂", "positions of the labels, not their values",
                    "cannot be caught", "SIGABRT"):
        assert warning in text, warning
    cited = {path for _, path, _ in cited_tests("docs/migration.md")}
    assert "tests/test_evalica_rater_agreement.py" in cited


def cited_tests(page: str) -> list[tuple[int, str, str]]:
    """(line, file, test) of every test a page cites: ``tests/f.py::name`` and the
    ``::name`` that follow a cited file in the same table row, list item or paragraph."""
    cited = []
    current = None
    for number, line in enumerate((ROOT / page).read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or re.match(r"\||\s*[-*] ", line):  # a row, a list item
            current = None
        for match in re.finditer(r"`(tests/[\w/]+\.py)?((?:::\w+)*)`", line):
            if match.group(1):
                current = match.group(1)
            if match.group(2):
                assert current, f"{page}:{number}: {match.group(2)} follows no test file"
                cited.append((number, current, match.group(2)))
    return cited


@pytest.mark.slow
def test_cited_tests_exist():
    missing = []
    found = 0
    for page in PAGES:
        for number, path, names in cited_tests(page):
            file = ROOT / path
            if not file.is_file():
                missing.append(f"{page}:{number}: {path}")
                continue
            tree = ast.parse(file.read_text(encoding="utf-8"))
            scope = [tree]
            for name in names.strip(":").split("::"):
                children = [node for parent in scope for node in ast.iter_child_nodes(parent)
                            if isinstance(node, ast.FunctionDef | ast.ClassDef)
                            and node.name == name]
                if not children:
                    missing.append(f"{page}:{number}: {path}{names}")
                    break
                scope = children
            found += 1
    assert found > 50, "the scan finds no citation (the pattern is broken)"
    assert not missing, "cited tests that do not exist:\n" + "\n".join(missing)


def test_cited_files_exist():
    missing = []
    for page in PAGES:
        text = (ROOT / page).read_text(encoding="utf-8")
        for name in re.findall(r"`((?:kappalab|tests|docs|benchmarks|experiments|paper_repro)"
                               r"/[\w/.-]+\.(?:py|md|csv))(?:::\w+)*`", text):
            if not (ROOT / name).is_file():
                missing.append(f"{page}: {name}")
    assert not missing, "files named that do not exist:\n" + "\n".join(missing)


#: the pages the README says read well on their own, outside the built site
PLAIN_PAGES = sorted(["docs/getting_started.md",
                      *(str(path.relative_to(ROOT)) for path in ROOT.glob("docs/guide/*.md"))])


def prose(page: str) -> str:
    """The text of a page without its fenced code blocks."""
    text = (ROOT / page).read_text(encoding="utf-8")
    return re.sub(r"^```.*?^```", "", text, flags=re.S | re.M)


@pytest.mark.parametrize("page", PLAIN_PAGES)
def test_guide_pages_use_no_myst_syntax(page):
    """On GitHub, a MyST role ({doc}`...`, {func}`...`) or directive shows as raw text: the
    guide links with plain Markdown, which myst-parser resolves in the site too."""
    text = prose(page)
    roles = re.findall(r"\{[\w:-]+\}`[^`]*`", text)
    assert not roles, f"{page}: MyST roles, which GitHub shows raw: {roles[:5]}"
    # the guide index's toctree is the one directive: GitHub shows it as a code block listing
    # the pages, which the table below it links
    directives = [line for line in re.findall(r"^(?:```|:::)\{[\w:-]+\}.*$",
                                              (ROOT / page).read_text(encoding="utf-8"), re.M)
                  if line != "```{toctree}"]
    assert not directives, f"{page}: MyST directives, which GitHub shows raw: {directives}"


@pytest.mark.parametrize("page", PLAIN_PAGES)
def test_guide_links_lead_somewhere(page):
    """A relative link names a file of the repository; a ``#kappalab...`` link names an object
    of the package (the site links it to its reference page)."""
    import importlib

    for target in re.findall(r"\]\(([^)\s]+)\)", prose(page)):
        if target.startswith(("http://", "https://")):
            continue
        if target.startswith("#"):
            name = target[1:]
            if not name.startswith("kappalab"):
                continue  # an intersphinx name (functools.partial) or a heading
            module, _, attr = name.partition(".")
            obj = importlib.import_module(module)
            for part in attr.split(".") if attr else []:
                try:
                    obj = getattr(obj, part)
                except AttributeError:
                    obj = importlib.import_module(f"{obj.__name__}.{part}")
            continue
        path = ((ROOT / page).parent / target.partition("#")[0]).resolve()
        assert path.is_file(), f"{page}: the link {target} leads to no file"
        assert path.is_relative_to(ROOT), f"{page}: the link {target} leads out of the repository"
