"""The README runs as written: every ```python block, in order, in one namespace.

The blocks build on each other (the quick start's ``ann`` is used later), so they run as one
session; each is compiled under its own name (``README.md block N, line L``) so a failure
says which block broke. The migration block asserts, by itself, that each peer library's call
and its kappalab counterpart agree on the same data.
"""

import re
import warnings
from pathlib import Path

import pytest

from kappalab.errors import LayoutWarning

README = Path(__file__).resolve().parents[1] / "README.md"


def python_blocks() -> list[tuple[int, str]]:
    """(first line number, source) of every ```python block of the README."""
    text = README.read_text()
    return [(text.count("\n", 0, match.start(1)) + 1, match.group(1))
            for match in re.finditer(r"```python\n(.*?)```", text, re.S)]


def test_readme_opens_with_the_two_commands():
    head = README.read_text().splitlines()[:6]
    assert any(line.startswith("make demo") for line in head)
    assert any(line.startswith("make test") for line in head)


def test_readme_install_commands_work_from_a_clone():
    # kappalab is not on PyPI: an extra is installed from the clone, never by name
    text = README.read_text()
    assert 'pip install "kappalab[' not in text and "pip install kappalab" not in text
    assert 'pip install -e ".[bayes]"' in text


@pytest.fixture(scope="module")
def readme_session() -> dict:
    import pymc  # noqa: F401  the Bayesian block needs the `bayes` extra (in the test extra)
    namespace: dict = {}
    with warnings.catch_warnings():
        # the examples are tiny: PyMC's sampling diagnostics may warn; an error still fails
        warnings.simplefilter("ignore")
        warnings.simplefilter("error", LayoutWarning)  # the examples use the right doors
        for n, (line, source) in enumerate(python_blocks(), start=1):
            if not needs_real_data(source):
                exec(compile(source, f"README.md block {n}, line {line}", "exec"), namespace)
    return namespace


#: the first line of a README block that reads the fetched real data
REAL_DATA_MARK = "# needs the real data"


def needs_real_data(source: str) -> bool:
    return source.startswith(REAL_DATA_MARK)


def test_real_data_blocks_run(readme_session):
    """The blocks that read the fetched files run where the files are (else a visible skip)."""
    from kappalab.datasets import data_folder

    blocks = [(n, line, source) for n, (line, source) in enumerate(python_blocks(), start=1)
              if needs_real_data(source)]
    assert blocks, "the README's real-data section has a python block"
    for path in ("snow2008/all_collected_data.tgz", "mbic/raw_labels_MBIC.xlsx",
                 "mbic/raw_labels_SG1.xlsx"):
        if not (data_folder() / path).is_file():
            pytest.skip(f"real data absent: {data_folder() / path} (set KAPPALAB_DATA)")
    namespace = dict(readme_session)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for n, line, source in blocks:
            exec(compile(source, f"README.md block {n}, line {line}", "exec"), namespace)


def test_every_python_block_runs(readme_session):
    assert len(python_blocks()) >= 5
    assert "post" in readme_session and "truth" in readme_session  # the later blocks ran


def test_quick_start_values(readme_session):
    kl = readme_session["kl"]
    # the quick start's two-rater example by hand: P_o = 2/3; marginals x: 1/3, 2/3 and
    # 2/3, 1/3, so P_e = 1/3·2/3 + 2/3·1/3 = 4/9; κ = (2/3 − 4/9)/(1 − 4/9) = 0.4
    assert float(kl.cohen_kappa(["x", "y", "y"], ["x", "y", "x"])) == pytest.approx(0.4)


def test_quick_start_frame_is_read_as_long():
    import krippendorff
    import numpy as np

    quick_start: dict = {}
    exec(compile(python_blocks()[0][1], "README.md quick start", "exec"), quick_start)
    kl, df = quick_start["kl"], quick_start["df"]
    reliability = df.pivot(index="rater", columns="item", values="value").to_numpy(float)
    for level in ("nominal", "ordinal"):
        expected = krippendorff.alpha(reliability_data=reliability, level_of_measurement=level)
        assert float(kl.krippendorff_alpha(df, level=level)) == pytest.approx(expected, abs=1e-12)
    assert np.isclose(float(kl.krippendorff_alpha(df, level="ordinal")), 0.25)
