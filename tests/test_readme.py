"""The README: the two commands first, installs from a clone, a quick start that runs and
computes what it says, and a link to every page of the user guide.

Every ```python block of the README runs in ``tests/test_guide.py``, as those of the
documentation's pages do. The examples that left the README for the guide are checked where
they now are.
"""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDE = ROOT / "docs" / "guide"


def python_blocks() -> list[tuple[int, str]]:
    """(first line number, source) of every ```python block of the README."""
    text = README.read_text(encoding="utf-8")
    return [(text.count("\n", 0, match.start(1)) + 1, match.group(1))
            for match in re.finditer(r"^```python\n(.*?)^```", text, re.S | re.M)]


def quick_start() -> dict:
    namespace: dict = {}
    exec(compile(python_blocks()[0][1], "README.md quick start", "exec"), namespace)
    return namespace


def test_readme_opens_with_the_two_commands():
    head = README.read_text(encoding="utf-8").splitlines()[:6]
    assert any(line.startswith("make demo") for line in head)
    assert any(line.startswith("make test") for line in head)


@pytest.mark.parametrize("path", [README, ROOT / "docs" / "getting_started.md",
                                  *sorted(GUIDE.glob("*.md"))], ids=lambda p: p.name)
def test_install_commands_work_from_a_clone(path):
    # kappalab is not on PyPI: an extra is installed from the clone, never by name
    text = path.read_text(encoding="utf-8")
    assert 'pip install "kappalab[' not in text and "pip install kappalab" not in text


def test_readme_and_getting_started_name_the_extras():
    for path in (README, ROOT / "docs" / "getting_started.md"):
        text = path.read_text(encoding="utf-8")
        for extra in ("bayes", "dask", "data", "readers", "docs"):
            assert f'pip install -e ".[{extra}]"' in text, (path.name, extra)


def test_readme_says_how_to_build_the_docs():
    text = README.read_text(encoding="utf-8")
    assert "make docs" in text and "docs/_build/html/index.html" in text


def test_readme_links_every_page_of_the_guide():
    text = README.read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\((docs/[\w/]+\.md)\)", text))
    assert all((ROOT / link).is_file() for link in linked), linked
    pages = {f"docs/guide/{path.name}" for path in GUIDE.glob("*.md")}
    assert pages - {"docs/guide/index.md"} <= linked, sorted(pages - linked)
    assert "docs/getting_started.md" in linked and "docs/guide/index.md" in linked


def test_readme_keeps_its_short_sections_and_points_to_the_migration_page():
    text = README.read_text(encoding="utf-8")
    headings = re.findall(r"^#{2,3} (.+)$", text, re.M)
    for heading in ("Quick start", "What is in it", "Coming from another library",
                    "Tests and benchmarks", "Reproducing the papers"):
        assert heading in headings
    assert "(docs/migration.md)" in text and "(docs/correctness.md)" in text
    assert python_blocks()  # the quick start


def test_the_moved_examples_are_in_the_guide():
    where = {"bayes.md": "bayes.nominal_reliability(", "simulation.md": "simulate.run_study(",
             "datasets.md": 'fetch("snow2008-rte")', "dask.md": "kl.dask_estimate(",
             "uncertainty.md": 'ci="krippendorff"', "diagnostics.md": "kl.judge_report(",
             "comparing.md": "kl.compare(", "planning.md": "kl.plan(",
             "data_layouts.md": 'level="masi"', "levels_and_weights.md": "kl.icc(",
             "choosing.md": "kl.interpret("}
    for page, call in where.items():
        assert call in (GUIDE / page).read_text(encoding="utf-8"), (page, call)


def test_quick_start_values():
    kl = quick_start()["kl"]
    # the quick start's two-rater example by hand: P_o = 2/3; marginals x: 1/3, 2/3 and
    # 2/3, 1/3, so P_e = 1/3·2/3 + 2/3·1/3 = 4/9; κ = (2/3 − 4/9)/(1 − 4/9) = 0.4
    assert float(kl.cohen_kappa(["x", "y", "y"], ["x", "y", "x"])) == pytest.approx(0.4)


def test_quick_start_frame_is_read_as_long():
    import krippendorff
    import numpy as np

    namespace = quick_start()
    kl, df = namespace["kl"], namespace["df"]
    reliability = df.pivot(index="rater", columns="item", values="value").to_numpy(float)
    for level in ("nominal", "ordinal"):
        expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement=level)
        assert float(kl.krippendorff_alpha(df, level=level)) == pytest.approx(expected, abs=1e-12)
    assert np.isclose(float(kl.krippendorff_alpha(df, level="ordinal")), 0.25)


def section(title: str) -> str:
    """The text of the README's ``## title`` section."""
    text = README.read_text(encoding="utf-8")
    match = re.search(rf"^## {re.escape(title)}\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    assert match, f"the README has no section {title!r}"
    return match.group(1)


def test_readme_says_how_to_get_the_real_data_for_the_tests():
    """A plain clone has no data folder beside it: the section on the tests says where the
    real-data tests look (``KAPPALAB_DATA``), how to fill that folder
    (``kappalab.datasets.fetch``), and that they skip otherwise, counted on the last line."""
    tests = section("Tests and benchmarks")
    assert "KAPPALAB_DATA" in tests
    assert "kappalab.datasets.fetch" in tests or "datasets.fetch" in tests
    assert "skip" in tests
    assert "real-data tests included" not in tests, "a claim only true beside the data"


def test_readme_data_commands_name_real_sources():
    """The fetch names the README gives are ones ``fetch`` takes."""
    from kappalab.datasets import fetchable

    tests = section("Tests and benchmarks")
    names = re.findall(r'fetch\("([\w-]+)"', tests)
    assert names, "no fetch(...) call in the README's section on the tests"
    assert set(names) <= set(fetchable()), sorted(set(names) - set(fetchable()))
