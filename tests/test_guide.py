"""The documentation runs as written: every ```python block of the README and of every page
under ``docs/`` (``docs/**/*.md``).

Each file is one session: its blocks run in order in one namespace, so a page's later blocks
use what its earlier ones built, and no page depends on another. Each block is compiled under
its own name (``docs/guide/uncertainty.md block 3, line 42``), so a failure names the file,
the block and the line. A block whose first line is ``# needs the real data`` reads the
fetched files of :func:`kappalab.datasets.fetch`: it runs where they are, and is left out
(with the blocks after it in the same file) where they are not.
"""

from __future__ import annotations

import re
import traceback
import warnings
from pathlib import Path

import pytest

from kappalab.errors import LayoutWarning

ROOT = Path(__file__).resolve().parents[1]

#: the first line of a block that reads the fetched real data
REAL_DATA_MARK = "# needs the real data"

#: the files the real-data blocks read, below the data folder
REAL_DATA_FILES = ("snow2008/all_collected_data.tgz", "mbic/raw_labels_MBIC.xlsx",
                   "mbic/raw_labels_SG1.xlsx")


def documents() -> list[Path]:
    """The README and every Markdown page of the documentation (not the built site)."""
    pages = sorted(path for path in (ROOT / "docs").rglob("*.md")
                   if "_build" not in path.relative_to(ROOT).parts)
    return [ROOT / "README.md", *pages]


def python_blocks(path: Path) -> list[tuple[int, str]]:
    """(first line number, source) of every ```python block of a Markdown file."""
    text = path.read_text(encoding="utf-8")
    return [(text.count("\n", 0, match.start(1)) + 1, match.group(1))
            for match in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]


def needs_real_data(source: str) -> bool:
    return source.startswith(REAL_DATA_MARK)


def real_data_present() -> bool:
    from kappalab.datasets import data_folder

    return all((data_folder() / path).is_file() for path in REAL_DATA_FILES)


def run_blocks(path: Path, *, real_data: bool | None = None, root: Path = ROOT) -> dict:
    """Run the blocks of ``path`` in order in one namespace and return it. A block that
    fails raises an AssertionError naming the file, the block and its first line."""
    if real_data is None:
        real_data = real_data_present()
    name = path.relative_to(root).as_posix()
    namespace: dict = {"__name__": f"doc_{path.stem}"}
    with warnings.catch_warnings():
        # the examples are small: PyMC's sampling diagnostics may warn; an error still fails
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", LayoutWarning)  # the examples use the right doors
        for n, (line, source) in enumerate(python_blocks(path), start=1):
            if needs_real_data(source) and not real_data:
                break  # the blocks after it may use what it reads
            where = f"{name} block {n}, line {line}"
            try:
                exec(compile(source, where, "exec"), namespace)
            except Exception as error:  # noqa: BLE001  re-raised with where it happened
                raise AssertionError(f"{where}: {type(error).__name__}: {error}\n"
                                     + traceback.format_exc()) from error
    return namespace


def test_the_documents_are_found():
    names = {path.relative_to(ROOT).as_posix() for path in documents()}
    assert {"README.md", "docs/getting_started.md", "docs/guide/index.md",
            "docs/guide/data_layouts.md"} <= names
    assert sum(len(python_blocks(path)) for path in documents()) >= 30


@pytest.mark.slow
@pytest.mark.parametrize("path", [path for path in documents() if python_blocks(path)],
                         ids=lambda p: p.relative_to(ROOT).as_posix())
def test_every_python_block_runs(path):
    run_blocks(path)


@pytest.mark.slow
def test_real_data_blocks_are_marked_and_run_where_the_files_are():
    page = ROOT / "docs" / "guide" / "datasets.md"
    assert any(needs_real_data(source) for _, source in python_blocks(page)), \
        "the real-data page has a python block that reads the fetched files"
    if not real_data_present():
        pytest.skip("real data absent (set KAPPALAB_DATA): its blocks are left out")
    run_blocks(page, real_data=True)


def test_a_failing_block_names_its_file_block_and_line(tmp_path):
    page = tmp_path / "docs" / "page.md"
    page.parent.mkdir()
    page.write_text("# A page\n\n```python\nx = 1\n```\n\ntext\n\n```python\ny = x / 0\n```\n")
    with pytest.raises(AssertionError,
                       match=r"docs/page\.md block 2, line 10: ZeroDivisionError"):
        run_blocks(page, root=tmp_path)
