"""The front door (``as_annotations``): a long table is never read as a wide one.

A long table with the common column names of annotation exports (``item, annotator, label``;
``sentence_id, coder, tag``; ``doc, judge, score``, …) is read long; a table that is neither
recognisably long nor plainly wide (columns that hold different kinds of things, or text
columns that share no label) is refused with one line naming both constructors; wide tables
stay wide. The expected values come from the ``krippendorff`` package, on the
raters × items ``reliability_data`` built here by pivoting the long table.
"""

from __future__ import annotations

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kappalab as kl
from kappalab.annotations import as_annotations
from kappalab.errors import AnnotationError, LayoutWarning

A = kl.Annotations


def crowd_long(n_items=40, raters=("ann", "bob", "cy"), labels=("neg", "neu", "pos"),
               seed=0, item_ids=None):
    """A long table item, rater, value: every rater labels every item, right with
    probability 0.7 (else a uniform label)."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(labels), n_items)
    rows = []
    for i in range(n_items):
        for r in raters:
            k = truth[i] if rng.random() < 0.7 else rng.integers(0, len(labels))
            rows.append((f"s{i}" if item_ids is None else item_ids[i], r, labels[k]))
    return pd.DataFrame(rows, columns=["item", "rater", "value"])


def peer_alpha(long: pd.DataFrame, item: str, rater: str, value: str) -> float:
    """Nominal α of a long table by the krippendorff package (labels coded by position)."""
    order = sorted(long[value].unique())
    matrix = long.pivot(index=rater, columns=item, values=value)
    data = matrix.map(lambda v: np.nan if pd.isna(v) else order.index(v)).to_numpy(float)
    return krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")


VOCABULARIES = [
    ("item", "annotator", "label"),
    ("sentence_id", "coder", "tag"),
    ("doc", "judge", "score"),
    ("unit", "rater_id", "rating"),
    ("Text", "Worker ID", "Answer"),
    ("task", "user", "category"),
]


@pytest.mark.parametrize("names", VOCABULARIES, ids=["-".join(n) for n in VOCABULARIES])
def test_common_long_vocabularies_are_read_long(names):
    item, rater, value = names
    df = crowd_long().rename(columns={"item": item, "rater": rater, "value": value})
    expected = peer_alpha(df, item, rater, value)
    # read wide, every row an item and every column a rater, the value would be far off
    cells = df.to_numpy()
    order = sorted(set(cells.ravel()))
    coded = np.vectorize(order.index)(cells).astype(float)
    wide_reading = krippendorff.alpha(reliability_data=coded.T, level_of_measurement="nominal")
    assert abs(expected - wide_reading) > 0.3
    assert float(kl.krippendorff_alpha(df)) == pytest.approx(expected, abs=1e-12)
    ann = as_annotations(df)
    assert (ann.n_items, ann.n_raters, ann.n_annotations) == (40, 3, 120)


def test_issue_example_item_annotator_label_with_numeric_scores():
    # item, annotator, label with integer item ids and integer labels: every column a number
    df = crowd_long(labels=(1, 2, 3), item_ids=list(range(101, 141))).rename(
        columns={"rater": "annotator", "value": "label"})
    expected = peer_alpha(df, "item", "annotator", "label")
    assert float(kl.krippendorff_alpha(df)) == pytest.approx(expected, abs=1e-12)


def test_integer_ids_and_string_labels_with_extra_columns():
    df = crowd_long(item_ids=list(range(40))).rename(
        columns={"item": "doc_id", "rater": "coder", "value": "code"})
    df["timestamp"] = np.arange(len(df))
    expected = peer_alpha(df, "doc_id", "coder", "code")
    assert float(kl.krippendorff_alpha(df)) == pytest.approx(expected, abs=1e-12)


def test_exact_schema_wins_over_the_vocabulary():
    # item/rater/value are present: the extra 'label' and 'user' columns are not consulted
    df = crowd_long().assign(label="x", user="u")
    ann = as_annotations(df)
    assert (ann.n_items, ann.n_raters) == (40, 3)
    assert list(ann.categories) == ["neg", "neu", "pos"]


@pytest.mark.parametrize("columns, fragment", [
    (["doc", "coder", "label", "score"], "'label', 'score'"),   # two value columns
    (["doc", "coder"], "value"),                                 # item and rater, no value
    (["sentence", "tag"], "rater"),                              # item and value, no rater
])
def test_half_recognised_long_tables_are_refused(columns, fragment):
    df = crowd_long()
    df = pd.DataFrame({c: df.iloc[:, k % 3] for k, c in enumerate(columns)})
    with pytest.raises(AnnotationError) as info:
        kl.krippendorff_alpha(df)
    message = str(info.value)
    assert "\n" not in message and fragment in message
    assert "from_long(df, item=" in message and "from_wide(df)" in message


@pytest.mark.parametrize("columns", [("i", "r", "v"), ("a", "b", "c"), ("col0", "c1", "c2")])
def test_unnamed_long_tables_are_refused_not_guessed(columns):
    df = crowd_long()
    df.columns = list(columns)
    with pytest.raises(AnnotationError) as info:
        kl.krippendorff_alpha(df)
    message = str(info.value)
    assert "\n" not in message
    assert "from_long(df, item=" in message and "from_wide(df)" in message


def test_ids_as_numbers_and_labels_as_text_are_refused():
    # one column of numbers repeating like ids, one of strings: not a table of raters
    df = crowd_long(item_ids=list(range(40)))
    df.columns = ["k", "who", "what"]
    with pytest.raises(AnnotationError, match=r"from_long\(df, item="):
        as_annotations(df)
    # stated explicitly, either reading is still available
    assert A.from_long(df, item="k", rater="who", value="what").n_items == 40


# ---------------------------------------------------------------------- wide stays wide
def coder_table(n_items=30, n_coders=5, seed=1, as_text=False):
    rng = np.random.default_rng(seed)
    truth = rng.integers(1, 5, (n_items, 1))
    codes = np.where(rng.random((n_items, n_coders)) < 0.7, truth,
                     rng.integers(1, 5, (n_items, n_coders)))
    table = pd.DataFrame(codes, columns=[f"coder{j + 1}" for j in range(n_coders)])
    return table.map(lambda v: f"code{v}") if as_text else table


def test_numbered_coders_with_numeric_codes_stay_wide():
    table = coder_table()
    expected = krippendorff.alpha(reliability_data=table.to_numpy(float).T,
                                  level_of_measurement="nominal")
    with warnings.catch_warnings():
        warnings.simplefilter("error", LayoutWarning)
        assert float(kl.krippendorff_alpha(table)) == pytest.approx(expected, abs=1e-12)
    ann = as_annotations(table)
    assert (ann.n_items, ann.n_raters) == (30, 5)


def test_three_coders_with_text_labels_stay_wide():
    table = coder_table(n_coders=3, as_text=True)
    order = sorted(set(table.to_numpy().ravel()))
    data = table.map(order.index).to_numpy(float).T
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal")
    assert float(kl.krippendorff_alpha(table)) == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("names", [["annotator", "coder", "judge"], ["label", "x", "y"],
                                   ["id", "a", "b"]])
def test_one_role_word_among_rater_names_stays_wide(names):
    # a single vocabulary word (or several of one role) is not a long schema
    table = coder_table(n_coders=3)
    table.columns = names
    assert as_annotations(table).n_raters == 3


def test_wide_table_with_missing_codes_stays_wide():
    table = coder_table(n_coders=4).astype(float)
    table.iloc[::3, 1] = np.nan  # one rater's column is float because of its gaps
    expected = krippendorff.alpha(reliability_data=table.to_numpy(float).T,
                                  level_of_measurement="nominal")
    assert float(kl.krippendorff_alpha(table)) == pytest.approx(expected, abs=1e-12)


@settings(max_examples=40, deadline=None, derandomize=True, database=None)
@given(n_coders=st.integers(3, 8), n_items=st.integers(3, 40), seed=st.integers(0, 10**6),
       as_text=st.booleans())
def test_property_wide_coder_tables_are_read_wide(n_coders, n_items, seed, as_text):
    table = coder_table(n_items, n_coders, seed, as_text)
    ann = as_annotations(table)
    assert (ann.n_items, ann.n_raters) == (n_items, n_coders)


def test_canonical_names_come_before_other_words():
    # 'id' numbers the rows, 'item' names the item: the canonical name is the item column
    df = crowd_long().rename(columns={"rater": "annotator", "value": "label"})
    df.insert(0, "id", np.arange(len(df)))
    ann = as_annotations(df)
    assert (ann.n_items, ann.n_raters, ann.n_annotations) == (40, 3, 120)


def test_set_valued_wide_strings_stay_wide_with_sep():
    # three raters' tag strings: the same sets written in different orders, so no string is
    # shared between two columns, but the sets are; with sep= the table is plainly wide
    a = ["x;y", "y;z", "x;z", "x", "y", "z"]
    table = pd.DataFrame({"r1": a, "r2": [";".join(reversed(s.split(";"))) + ";" for s in a],
                          "r3": [" ; ".join(s.split(";")) + " " for s in a]})
    with pytest.raises(AnnotationError, match="share no label"):
        as_annotations(table)
    ann = as_annotations(table, sep=";")
    assert (ann.n_items, ann.n_raters) == (6, 3)
    # every rater gives every item the same set: α = 1 by hand (D_o = 0)
    assert float(kl.krippendorff_alpha(ann, level="masi")) == 1.0


@pytest.mark.parametrize("path", ["labels.csv", "data/mbic.xlsx"])
@pytest.mark.parametrize("as_path", [False, True])
def test_a_file_path_is_refused_naming_the_reader(path, as_path, tmp_path):
    """A newcomer's first step, kl.krippendorff_alpha("labels.csv"): one line that says the
    path is not read and names the readers, never "got shape ()"."""
    source = tmp_path / path if as_path else path
    with pytest.raises(kl.errors.InvalidParameterError) as caught:
        kl.krippendorff_alpha(source)
    message = str(caught.value)
    assert "\n" not in message and "shape" not in message
    assert str(source) in message and "not read" in message
    assert "kappalab.io.read_annotations" in message and "from_long" in message
