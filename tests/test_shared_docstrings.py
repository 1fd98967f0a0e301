"""Shared parameter descriptions (kappalab.docstrings) are filled into every docstring."""

import inspect

import kappalab as kl
from kappalab.docstrings import SHARED_PARAMETERS


def test_no_public_docstring_keeps_a_marker():
    unfilled = [name for name in kl.__all__
                if "{{shared:" in (inspect.getdoc(getattr(kl, name)) or "")]
    assert not unfilled


def test_filled_text_is_the_shared_text():
    doc = inspect.getdoc(kl.fleiss_kappa)
    for name in ("categories", "sample_weight", "resampling"):
        assert SHARED_PARAMETERS[name] in doc
    assert doc.count("n_resamples : int") == 1
