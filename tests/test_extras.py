"""Every optional part of kappalab, with its packages hidden: an ``ImportError`` (or, on the
command line, one line) that names the extra installing the supported versions —
``pip install "kappalab[bayes]"``, ``-e ".[bayes]"`` from a clone — never a bare
``pip install pymc arviz`` nor an ``InvalidParameterError``.

A package is hidden by setting ``sys.modules[name] = None``: ``import name`` then raises
``ImportError`` as if it were not installed.
"""

from __future__ import annotations

import sys

import numpy as np
import pandas as pd
import pytest

import kappalab as kl
from kappalab.errors import InvalidParameterError

WIDE = np.array([[1, 1, 2], [2, 2, 2], [1, 2, 1], [3, 3, 3]])


def hide(monkeypatch, *names):
    for name in names:
        monkeypatch.setitem(sys.modules, name, None)


def bayes_fit():
    from kappalab.bayes import nominal_reliability

    return nominal_reliability(WIDE, draws=10, tune=10, chains=1, seed=0)


def nutpie_fit():
    from kappalab.bayes import nominal_reliability

    return nominal_reliability(WIDE, draws=10, tune=10, chains=1, seed=0, sampler="nutpie")


def dask_estimate():
    frame = pd.DataFrame({"item": [0, 0, 1, 1], "rater": ["a", "b", "a", "b"],
                          "value": [1, 1, 2, 1]})
    return kl.dask_estimate("krippendorff_alpha", frame)


def study_on_dask():
    return kl.simulate.run_study([{}], lambda cell, rng: {"x": 1.0}, 1, client=None,
                                 n_workers=1, progress=False)


def fetch_absent(tmp_path):
    return kl.datasets.fetch("snow2008-rte", data_home=tmp_path)


def read_xlsx(tmp_path):
    from kappalab.datasets.real import read_spreadsheet

    path = tmp_path / "raw_labels_MBIC.xlsx"
    path.write_bytes(b"not read: openpyxl is asked for first")
    return read_spreadsheet(path)


CASES = [
    ("bayes", ("pymc",), lambda tmp: bayes_fit()),
    ("bayes", ("arviz",), lambda tmp: bayes_fit()),
    ("nutpie", ("nutpie",), lambda tmp: nutpie_fit()),
    ("nutpie", ("numba",), lambda tmp: nutpie_fit()),
    ("dask", ("dask", "dask.dataframe"), lambda tmp: dask_estimate()),
    ("dask", ("distributed",), lambda tmp: study_on_dask()),
    ("data", ("pooch",), fetch_absent),
    ("data", ("openpyxl",), read_xlsx),
]


@pytest.mark.parametrize(("extra", "hidden", "call"), CASES,
                         ids=[f"{extra}-{hidden[0]}" for extra, hidden, _ in CASES])
def test_a_missing_optional_package_names_its_extra(extra, hidden, call, monkeypatch,
                                                    tmp_path):
    hide(monkeypatch, *hidden)
    with pytest.raises(ImportError) as caught:
        call(tmp_path)
    assert not isinstance(caught.value, InvalidParameterError)
    message = str(caught.value)
    assert "\n" not in message
    assert hidden[0].split(".")[0] in message
    assert f'pip install "kappalab[{extra}]"' in message
    assert f'pip install -e ".[{extra}]"' in message
    assert "pip install pymc arviz" not in message



# the command line's readers (openpyxl, pyarrow → "readers"): tests/test_cli.py,
# test_missing_reader_names_the_extra
