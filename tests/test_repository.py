"""The repository stands on its own: no file points outside it (a design document that is not
in it, a development machine's absolute paths, a folder beside the clone, sections of issues),
the documents it cites exist, and its LICENSE is the license pyproject.toml declares.

The files scanned are those git tracks or would track (``git ls-files --cached --others
--exclude-standard``; every file under the repository when git is not available), except
the Makefile, whose ``KAPPALAB_DATA`` may name a data
folder beside the clone.
"""

from __future__ import annotations

import re
import subprocess
import tomllib
from pathlib import Path

import numpy as np
import pytest

import kappalab as kl

ROOT = Path(__file__).resolve().parents[1]
SCANNED_SUFFIXES = {".py", ".md", ".csv", ".toml", ".txt", ".cfg", ".ini", ".yml", ".yaml"}
SKIPPED_PARTS = {".git", ".venv", "__pycache__", "results", "build", ".hypothesis"}

#: a development machine's absolute path, a path out of the clone (``../``), or a section of an
#: issue kept outside the repository. A Markdown link of the docs to a page one folder up,
#: ``](../architecture.md)``, is no such path (tests/test_docs_pages.py checks that the links
#: of the guide lead to files of the repository)
OUTSIDE = re.compile(r"(?<![\w.~-])/(?:work|home|Users)/|(?<![\w.])(?<!\]\()\.\./[A-Za-z_]"
                     r"|\b[Ii]ssue #?\d+,? \u00a7")
#: a project document named in a file, in capitals like ``CONTRIBUTING.md`` (generated tables
#: are lower case): it must be in the repository
MARKDOWN_NAME = re.compile(r"(?<![\w/.-])([A-Z][A-Z_-]*\.md)\b")

def repository_files() -> list[Path]:
    try:
        listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others",
                                 "--exclude-standard"], cwd=ROOT, capture_output=True,
                                check=True, timeout=60).stdout.decode().split("\0")
        files = [ROOT / name for name in listed if name]
    except (OSError, subprocess.SubprocessError):
        files = [path for path in ROOT.rglob("*")
                 if not any(part in SKIPPED_PARTS or part.endswith(".egg-info")
                            for part in path.relative_to(ROOT).parts)]
    return sorted(path for path in files
                  if path.is_file() and path.name != "Makefile"
                  and (path.suffix in SCANNED_SUFFIXES or path.parent.name == ".ci"))


def test_the_scan_covers_the_package_tests_and_documents():
    names = {path.relative_to(ROOT).as_posix() for path in repository_files()}
    for expected in ("README.md", "kappalab/coefficients/base.py", "tests/test_repository.py",
                     "docs/architecture.md", "kappalab/datasets/worked_example.csv"):
        assert expected in names


def test_no_file_points_outside_the_repository():
    found = []
    for path in repository_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            match = OUTSIDE.search(line)
            if match:
                found.append(f"{path.relative_to(ROOT)}:{number}: {match.group(0)!r}")
    assert not found, "references outside the repository:\n" + "\n".join(found)


def test_every_markdown_document_a_file_names_is_in_the_repository():
    present = {path.name for path in repository_files() if path.suffix == ".md"}
    missing = []
    for path in repository_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for number, line in enumerate(text.splitlines(), 1):
            missing += [f"{path.relative_to(ROOT)}:{number}: {name}"
                        for name in MARKDOWN_NAME.findall(line) if name not in present]
    assert not missing, "documents named but not in the repository:\n" + "\n".join(missing)


def test_the_patterns_catch_what_they_are_for():
    outside = ["/" + "work/data/papers/x.txt", "KAPPALAB_DATA=.." + "/data",
               "open('/" + "home/me/data.csv')", "(iss" + "ue #11 \u00a72.7)",
               "Iss" + "ue 4 \u00a74."]
    for line in outside:
        assert OUTSIDE.search(line), line
    for line in ("crowd-kit's task/worker/label columns", "docs/architecture.md",
                 "https://repository.upenn.edu/asc_papers/43", "a known issue with \u00a74",
                 "x = a/b", "1..3"):
        assert not OUTSIDE.search(line), line
    named = "NOTES" + chr(46) + "md"  # a document that is not in the repository
    assert MARKDOWN_NAME.findall(f"see {named}, xrr_fig7.md and docs/a.md") == [named]


# ---------------------------------------------------------------------- cited documents
def sections(markdown: str) -> set[str]:
    return {m.group(1).strip() for m in re.finditer(r"^#{1,6} (.+)$", markdown, re.M)}


def test_cited_sections_of_the_architecture_exist():
    headings = sections((ROOT / "docs" / "architecture.md").read_text(encoding="utf-8"))
    cited = set()
    for path in repository_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        cited |= set(re.findall(r'docs/architecture\.md, "([^"]+)"', text))
    assert cited, "no section citation found (the scan is broken)"
    assert cited <= headings, f"cited sections missing: {sorted(cited - headings)}"


@pytest.mark.parametrize("document", ["docs/architecture.md", "CONTRIBUTING.md",
                                      "CHANGELOG.md", "README.md", "docs/getting_started.md",
                                      *sorted(path.relative_to(ROOT).as_posix() for path
                                              in (ROOT / "docs" / "guide").glob("*.md"))])
def test_paths_named_in_the_documents_exist(document):
    text = (ROOT / document).read_text(encoding="utf-8")
    named = re.findall(r"`((?:kappalab|tests|docs|benchmarks|experiments|paper_repro)"
                       r"/[\w/.-]+\.(?:py|md|csv))`", text)
    missing = [name for name in named if not (ROOT / name).is_file()]
    assert not missing, f"{document} names files that do not exist: {missing}"


def test_the_architecture_example_core_works_on_the_spine():
    """The "Adding a coefficient" example runs as written. On the worked example 6 of the 10
    items are unanimous (the text's Fleiss P_i: six items at 1, four at 1/3), so the share is
    0.6; its analytic variance is that of a proportion over items, p(1 − p)/(n − 1) = 0.24/9;
    weight 2 on item 1 (unanimous) equals repeating it: 7/11."""
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 1
    namespace: dict = {}
    exec(compile(blocks[0], "docs/architecture.md", "exec"), namespace)
    unanimity = namespace["unanimity"]
    ann = kl.datasets.load("worked_example")
    assert unanimity(ann).value == pytest.approx(0.6, abs=1e-15)
    est = unanimity(ann, ci="analytic")
    assert est.se == pytest.approx(np.sqrt(0.24 / 9), abs=1e-12)
    weights = np.ones(ann.n_items)
    weights[0] = 2.0
    assert unanimity(ann, sample_weight=weights).value == pytest.approx(7 / 11, abs=1e-15)
    lo, hi = unanimity(ann, ci="bootstrap", n_resamples=200, seed=0).ci
    assert lo <= 0.6 <= hi


# ---------------------------------------------------------------------- license
BSD_3_CLAUSE = """
Redistribution and use in source and binary forms, with or without modification, are permitted
provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this list of
conditions and the following disclaimer.

2. Redistributions in binary form must reproduce the above copyright notice, this list of
conditions and the following disclaimer in the documentation and/or other materials provided
with the distribution.

3. Neither the name of the copyright holder nor the names of its contributors may be used to
endorse or promote products derived from this software without specific prior written
permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS" AND ANY EXPRESS OR
IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE IMPLIED WARRANTIES OF MERCHANTABILITY AND
FITNESS FOR A PARTICULAR PURPOSE ARE DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR
CONTRIBUTORS BE LIABLE FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR
CONSEQUENTIAL DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER CAUSED AND ON ANY
THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY, OR TORT (INCLUDING NEGLIGENCE OR
OTHERWISE) ARISING IN ANY WAY OUT OF THE USE OF THIS SOFTWARE, EVEN IF ADVISED OF THE
POSSIBILITY OF SUCH DAMAGE.
"""


def words(text: str) -> list[str]:
    return text.split()


def test_license_is_the_one_pyproject_declares():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert project["license"] == "BSD-3-Clause"
    assert project.get("license-files") == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    lines = text.strip().splitlines()
    assert lines[0] == "BSD 3-Clause License"
    assert re.fullmatch(r"Copyright \(c\) 20\d\d(-20\d\d)?, the kappalab developers", lines[2])
    # the body is the SPDX BSD-3-Clause text word for word (line breaks aside)
    body = words(text)
    start = body.index("Redistribution")
    assert body[start:] == words(BSD_3_CLAUSE)


def test_contributing_and_changelog_exist():
    contributing = (ROOT / "CONTRIBUTING.md").read_text(encoding="utf-8")
    for target in ("make test", "make bench", "make experiments", "make repro"):
        assert target in contributing
    assert (ROOT / "CHANGELOG.md").read_text(encoding="utf-8").count("## Unreleased") == 1
