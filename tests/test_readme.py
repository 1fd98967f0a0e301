"""The README's quick start runs as written."""

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_opens_with_the_two_commands():
    head = README.read_text().splitlines()[:6]
    assert any(line.startswith("make demo") for line in head)
    assert any(line.startswith("make test") for line in head)


def test_quick_start_runs():
    blocks = re.findall(r"```python\n(.*?)```", README.read_text(), re.S)
    assert blocks
    namespace: dict = {}
    exec(compile(blocks[0], "README.md", "exec"), namespace)
    kl = namespace["kl"]
    # the quick start's two-rater example by hand: P_o = 2/3; marginals x: 1/3, 2/3 and
    # 2/3, 1/3, so P_e = 1/3·2/3 + 2/3·1/3 = 4/9; κ = (2/3 − 4/9)/(1 − 4/9) = 0.4
    assert float(kl.cohen_kappa(["x", "y", "y"], ["x", "y", "x"])) == pytest.approx(0.4)
