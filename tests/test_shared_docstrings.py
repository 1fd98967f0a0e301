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


def test_the_shared_texts_are_used_through_their_markers_not_copied():
    """A shared description is written once, in kappalab.docstrings: a docstring that wants
    it says ``{{shared: <name>}}``; a verbatim copy in the source (at any indentation) is a
    second place to keep in step. A description that says something specific to its
    function (e.g. "The raters must be known.") is not a copy."""
    import textwrap
    from pathlib import Path

    import kappalab.docstrings

    package = Path(kappalab.__file__).parent
    copies = []
    for path in sorted(package.rglob("*.py")):
        if path == Path(kappalab.docstrings.__file__):
            continue
        source = path.read_text(encoding="utf-8")
        for name, text in SHARED_PARAMETERS.items():
            for indent in range(0, 17, 4):
                block = textwrap.indent(text, " " * indent)
                at = source.find(block + "\n")
                # a copy is the whole description: the next line is not more of it
                while at >= 0:
                    rest = source[at + len(block) + 1:].split("\n", 1)[0]
                    if len(rest) - len(rest.lstrip()) <= indent or not rest.strip():
                        copies.append(f"{path.relative_to(package.parent)}: {name}")
                        break
                    at = source.find(block + "\n", at + 1)
    assert not copies, f"use the {{{{shared: ...}}}} marker instead of a copy: {copies}"


def test_data_and_weights_are_shared():
    for function in (kl.krippendorff_alpha, kl.fleiss_kappa, kl.conger_kappa, kl.gwet_ac,
                     kl.brennan_prediger, kl.percent_agreement, kl.light_kappa, kl.spa,
                     kl.agreement_report, kl.item_report):
        assert SHARED_PARAMETERS["data"] in inspect.getdoc(function), function.__name__
    for function in (kl.fleiss_kappa, kl.conger_kappa, kl.gwet_ac, kl.brennan_prediger,
                     kl.percent_agreement, kl.light_kappa):
        assert SHARED_PARAMETERS["weights"] in inspect.getdoc(function), function.__name__
