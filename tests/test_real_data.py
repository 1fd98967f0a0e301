"""kappalab.datasets.fetch: the original files of Snow et al. (2008), MBIC and BABE.

Tests that read a file take it from ``KAPPALAB_DATA`` (``make test`` sets it to a shared data
folder beside the clone when there is one) or the cache; where neither holds it they skip and
say so (``-ra`` lists the reason), never pass silently. Nothing here touches the network:
downloads are exercised with pooch's ``retrieve`` replaced.
"""

import functools
import io
import shutil
import tarfile
import warnings

import numpy as np
import pandas as pd
import pooch
import pytest

import kappalab as kl
from kappalab.datasets import data_folder, fetch, fetchable
from kappalab.datasets.real import SOURCE_FILES, sentence_key
from kappalab.errors import InvalidParameterError


def original(source):
    """The local original file of ``source``, or a visible skip naming where it was sought."""
    path = data_folder() / SOURCE_FILES[source].relative_path
    if not path.is_file():
        pytest.skip(f"real data absent: {path} (set KAPPALAB_DATA to a folder holding "
                    f"{SOURCE_FILES[source].relative_path}, or fetch it once with network)")
    return path


@functools.cache
def _spreadsheet(path):
    return pd.read_excel(path)


def spreadsheet(source):
    """The original ``.xlsx`` file of ``source`` as pandas reads it (read once per process:
    each read of MBIC's takes seconds), a fresh copy each call."""
    return _spreadsheet(original(source)).copy()


def snow_table(task):
    with tarfile.open(original("snow2008"), "r:gz") as archive:
        member = archive.getmember(f"{task}.standardized.tsv")
        return pd.read_csv(io.BytesIO(archive.extractfile(member).read()), sep="\t",
                           dtype={"orig_id": str})


# --- names, errors, downloads: no data needed ---------------------------------------------

def test_fetchable_names():
    assert fetchable() == [
        "snow2008-rte", "snow2008-temp", "snow2008-wsd", "snow2008-anger", "snow2008-disgust",
        "snow2008-fear", "snow2008-joy", "snow2008-sadness", "snow2008-surprise",
        "snow2008-valence", "snow2008-wordsim", "mbic", "babe-sg1", "babe-sg2"]


@pytest.mark.parametrize("call, message", [
    (lambda: fetch("snow2008-parsing"), "unknown dataset 'snow2008-parsing'"),
    (lambda: fetch("mbic"), "choose label='bias' or label='opinion'"),
    (lambda: fetch("babe-sg1", label="stance"), "(got 'stance')"),
    (lambda: fetch("snow2008-rte", label="bias"), "has one label"),
    (lambda: fetch("mbic", label="bias", duplicates="mean"), "unknown duplicates policy"),
])
def test_bad_requests_are_refused_before_any_file_is_read(call, message, tmp_path):
    with pytest.raises(InvalidParameterError, match=message.replace("(", r"\(")
                       .replace(")", r"\)")):
        call()


def test_data_folder_order(tmp_path, monkeypatch):
    monkeypatch.setenv("KAPPALAB_DATA", str(tmp_path / "env"))
    assert data_folder() == tmp_path / "env"
    assert data_folder(tmp_path / "mine") == tmp_path / "mine"
    monkeypatch.delenv("KAPPALAB_DATA")
    assert data_folder() == pooch.os_cache("kappalab")


def test_a_failed_download_names_the_url_and_where_to_put_the_file(tmp_path, monkeypatch):
    def offline(*args, **kwargs):
        raise ConnectionError("no network")
    monkeypatch.setattr(pooch, "retrieve", offline)
    with pytest.raises(InvalidParameterError) as error:
        fetch("snow2008-rte", data_home=tmp_path)
    text = str(error.value)
    assert SOURCE_FILES["snow2008"].url in text
    assert str(tmp_path / "snow2008" / "all_collected_data.tgz") in text


def test_a_file_with_another_hash_is_refused(tmp_path):
    bad = tmp_path / "mbic" / "raw_labels_SG1.xlsx"
    bad.parent.mkdir()
    bad.write_bytes(b"not the spreadsheet")
    with pytest.raises(InvalidParameterError, match="not the published file's"):
        fetch("babe-sg1", label="bias", data_home=tmp_path)


def test_download_goes_through_pooch_with_the_published_hash(tmp_path, monkeypatch):
    source = original("snow2008")
    calls = []

    def retrieve(url, known_hash, fname, path, progressbar):
        calls.append((url, known_hash))
        path.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, path / fname)
        return str(path / fname)
    monkeypatch.setattr(pooch, "retrieve", retrieve)
    data = fetch("snow2008-wordsim", data_home=tmp_path)
    assert calls == [(SOURCE_FILES["snow2008"].url, "sha256:" + SOURCE_FILES["snow2008"].sha256)]
    assert data.annotations.n_annotations == 300
    fetch("snow2008-wordsim", data_home=tmp_path)  # now cached: no second download
    assert len(calls) == 1


def test_sentence_key_ignores_white_space_and_unicode_forms():
    assert sentence_key("Trump  said\u00a0so.") == sentence_key(" Trump said so. ")
    assert sentence_key("Trump said so.") != sentence_key("Trump said no.")


# --- Snow et al. (2008) -------------------------------------------------------------------

SNOW_COUNTS = {  # items, workers, annotations (10 per item); the paper's table 1 sizes
    "rte": (800, 164, 8000), "temp": (462, 76, 4620), "wsd": (177, 34, 1770),
    **{task: (100, 38, 1000) for task in ("anger", "disgust", "fear", "joy", "sadness",
                                          "surprise", "valence")},
    "wordsim": (30, 10, 300),
}


@pytest.mark.parametrize("task", list(SNOW_COUNTS))
def test_snow_counts_and_equality_with_a_hand_built_from_long(task):
    table = snow_table(task)
    data = fetch(f"snow2008-{task}")
    a = data.annotations
    assert (a.n_items, a.n_raters, a.n_annotations) == SNOW_COUNTS[task]
    assert (a.annotations_per_item_array == 10).all()
    by_hand = kl.Annotations.from_long(table, item="orig_id", rater="!amt_worker_ids",
                                       value="response")
    pd.testing.assert_frame_equal(a.to_long(), by_hand.to_long())
    assert data.level == ("nominal" if task in ("rte", "temp", "wsd") else "interval")
    gold = table.groupby("orig_id")["gold"].agg(["first", "nunique"])
    assert (gold["nunique"] == 1).all()  # one expert label per item
    pd.testing.assert_series_equal(data.gold, gold["first"].reindex(a.items).rename("gold"))
    assert data.notes == ()
    assert "Snow" in data.citation and "2008" in data.citation


def test_snow_categories_in_natural_order():
    original("snow2008")
    assert list(fetch("snow2008-rte").annotations.categories) == [0, 1]
    assert list(fetch("snow2008-wsd").annotations.categories) == [1, 2, 3]
    valence = fetch("snow2008-valence").annotations.categories
    assert valence[0] == -100 and list(valence) == sorted(valence)


def test_snow_majorities_of_the_fetched_data_are_the_files():
    """The majority label of every untied item, read through ``fetch`` and
    ``kl.item_report``, equals a count of the raw TSV rows, and so does its agreement with the
    experts' label on RTE and temporal ordering."""
    for task in ("rte", "temp"):
        table = snow_table(task)
        votes = table.groupby(["orig_id", "response"]).size().unstack(fill_value=0)
        untied = votes.max(axis=1).gt(votes.min(axis=1))
        by_hand = votes.idxmax(axis=1)[untied]
        data = fetch(f"snow2008-{task}")
        report = kl.item_report(data.annotations)
        fetched = report["majority"].loc[by_hand.index].astype(by_hand.dtype)
        pd.testing.assert_series_equal(fetched, by_hand, check_names=False)
        gold = table.groupby("orig_id")["gold"].first()
        assert ((fetched == data.gold.loc[by_hand.index]).mean()
                == (by_hand == gold.loc[by_hand.index]).mean())


# --- MBIC and BABE ------------------------------------------------------------------------

@pytest.mark.slow
def test_mbic_counts_duplicates_and_notes():
    original("mbic")
    crowd = fetch("mbic", label="bias")
    a = crowd.annotations
    assert (a.n_items, a.n_raters, a.n_annotations) == (1700, 809, 17775 - 20)
    assert "dropped 20 repeated submission(s) of an (item, rater) pair, keeping the first" \
        in crowd.notes[0]
    assert crowd.level == "nominal"
    assert list(a.categories) == ["Non-biased", "Biased"]
    per_item = a.annotations_per_item_array
    assert per_item.min() >= 8 and per_item.max() == 12
    table = spreadsheet("mbic")
    repeaters = table.loc[table.duplicated(["sentence_id", "mturk_id"]), "mturk_id"].nunique()
    separate = fetch("mbic", label="bias", duplicates="separate")
    assert separate.annotations.n_annotations == 17775
    assert separate.annotations.n_raters == 809 + repeaters
    assert len(separate.raters) == 809 + repeaters
    assert not separate.raters["age"].isna().any()  # a second submission keeps its worker
    with pytest.raises(kl.errors.DuplicateAnnotationError):
        fetch("mbic", label="bias", duplicates="raise")


@pytest.mark.slow
def test_mbic_equals_a_hand_built_from_long():
    table = spreadsheet("mbic").sort_values("created_at", kind="stable")
    table = table.drop_duplicates(["sentence_id", "mturk_id"], keep="first")
    by_hand = kl.Annotations.from_long(
        table.assign(label=pd.Categorical(table["label_opinion"],
                                          ["Entirely factual",
                                           "Somewhat factual but also opinionated",
                                           "Expresses writer’s opinion"], ordered=True)),
        item="sentence_id", rater="mturk_id", value="label")
    fetched = fetch("mbic", label="opinion")
    assert fetched.level == "ordinal"
    # the same labels, item for item, once MBIC's sentence ids replace the text keys
    long = fetched.annotations.to_long()
    long["item"] = long["item"].map(fetched.items["sentence_id"])
    key = ["item", "rater"]
    left = long.sort_values(key).reset_index(drop=True)
    right = by_hand.to_long().sort_values(key).reset_index(drop=True)
    pd.testing.assert_frame_equal(left, right, check_categorical=False)


@pytest.mark.slow
def test_mbic_raters_carry_the_demographics():
    original("mbic")
    raters = fetch("mbic", label="bias").raters
    assert len(raters) == 809
    assert {"age", "gender", "education", "native_english_speaker", "political_ideology",
            "age_band"} <= set(raters.columns)
    assert raters["political_ideology"].between(-10, 10).all()
    assert list(raters["age_band"].cat.categories) == ["18–29", "30–39", "40–49", "50+"]
    assert not raters["age_band"].isna().any()
    young = raters["age"] < 30
    assert (raters.loc[young, "age_band"] == "18–29").all()


@pytest.mark.slow
def test_babe_label_mapping_is_counted():
    original("babe-sg1")
    sg1 = fetch("babe-sg1", label="opinion")
    assert sg1.notes == (
        "mapped 4395 label(s) 'Somewhat factional but also opinionated' to "
        "'Somewhat factual but also opinionated'",
        "mapped 3523 label(s) 'Expresses wleter´s opinion' to 'Expresses writer’s opinion'",
        "5 sentence(s) appear under more than one spelling that differ only in white space or "
        "Unicode form: each is one item",
        "dropped 151 of 13597 rows whose 'label_opinion' value is missing",
    )
    sg1_bias = fetch("babe-sg1", label="bias")
    assert sg1_bias.notes[-1] == "dropped 27 of 13597 rows whose 'label_bias' value is missing"
    a = sg1_bias.annotations
    assert (a.n_raters, a.n_annotations) == (8, 13597 - 27)
    sg2 = fetch("babe-sg2", label="bias")
    assert sg2.notes[0] == "mapped 1 label(s) 'Biased, unfair' to 'Biased'"
    assert sg2.annotations.n_raters == 8
    assert sg2.annotations.n_annotations == 18362 - 10
    assert any("white space" in note for note in sg2.notes)


@pytest.mark.slow
def test_the_three_files_share_their_sentences():
    original("mbic"), original("babe-sg1"), original("babe-sg2")
    crowd, sg1, sg2 = (set(fetch(name, label="bias").annotations.items)
                       for name in ("mbic", "babe-sg1", "babe-sg2"))
    assert len(crowd & sg1) == 1698 and len(crowd & sg2) == 1698
    assert len(crowd & sg1 & sg2) == 1698


@pytest.mark.slow
def test_sg1_and_sg2_share_annotators_and_cross_kappa_says_so():
    original("babe-sg1"), original("babe-sg2")
    sg1, sg2 = (fetch(name, label="bias").annotations for name in ("babe-sg1", "babe-sg2"))
    assert sorted(set(sg1.raters) & set(sg2.raters)) == [1, 2, 3, 7, 9]
    with pytest.warns(kl.errors.SharedRatersWarning, match="5"):
        kl.cross_kappa(sg1, sg2)
    with warnings.catch_warnings():
        warnings.simplefilter("error", kl.errors.SharedRatersWarning)
        kl.cross_kappa(sg1, sg2, shared_raters="ignore")


@pytest.mark.slow
def test_mbic_alpha_equals_krippendorff_on_the_file():
    """Krippendorff's α of the crowd's bias labels: kappalab on the fetched data equals the
    krippendorff package on a raters × items table built from the file by hand."""
    import krippendorff
    table = spreadsheet("mbic").sort_values("created_at", kind="stable")
    table = table.drop_duplicates(["sentence_id", "mturk_id"], keep="first")
    wide = (table.assign(code=(table["label_bias"] == "Biased").astype(float))
            .pivot(index="mturk_id", columns="sentence_id", values="code"))
    expected = krippendorff.alpha(reliability_data=wide.to_numpy(),
                                  level_of_measurement="nominal")
    got = kl.krippendorff_alpha(fetch("mbic", label="bias").annotations, level="nominal")
    assert np.isclose(float(got), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("name, published", [("mbic", 0.21), ("babe-sg1", 0.39),
                                             ("babe-sg2", 0.40)])
def test_published_alpha_of_the_bias_labels(name, published):
    """Spinde et al. (2021, BABE, Findings of EMNLP) report Krippendorff's α of the bias
    labels to two decimals: 0.21 for MBIC's crowd, 0.39 for SG1 and 0.40 for SG2. They count
    a repeated submission as its own coder (``duplicates="separate"``); keeping the first
    submission gives the same two decimals."""
    original(name)
    for duplicates in ("separate", "first"):
        data = fetch(name, label="bias", duplicates=duplicates)
        alpha = kl.krippendorff_alpha(data.annotations, level="nominal")
        assert round(float(alpha), 2) == published


def test_a_directory_in_place_of_the_file_is_named_not_downloaded(tmp_path, monkeypatch):
    def no_download(*args, **kwargs):
        raise AssertionError("nothing to download: the place of the file is taken")
    monkeypatch.setattr(pooch, "retrieve", no_download)
    (tmp_path / "snow2008" / "all_collected_data.tgz").mkdir(parents=True)
    with pytest.raises(InvalidParameterError) as error:
        fetch("snow2008-rte", data_home=tmp_path)
    text = str(error.value)
    assert str(tmp_path / "snow2008" / "all_collected_data.tgz") in text
    assert "is a directory" in text and "download" not in text.split(";")[0]


def wide_alpha(annotations, level, items=None):
    """α by the krippendorff package on a raters × items table of ``annotations`` (categories
    coded by their position), over ``items`` when given."""
    import krippendorff
    long = annotations.to_long()
    if items is not None:
        long = long[long["item"].isin(items)]
    codes = {category: code for code, category in enumerate(annotations.categories)}
    wide = long.assign(code=long["value"].map(codes)).pivot(index="rater", columns="item",
                                                            values="code")
    return krippendorff.alpha(reliability_data=wide.to_numpy(float), level_of_measurement=level)


def datasets_guide() -> str:
    from pathlib import Path
    path = Path(__file__).resolve().parents[1] / "docs" / "guide" / "datasets.md"
    return " ".join(path.read_text(encoding="utf-8").split())


@pytest.mark.slow
def test_sg2_shares_1698_of_its_3693_sentences_and_the_guide_says_which_alpha_is_which():
    """BABE's SG2 did not label "the same sentences" as MBIC and SG1: its file holds 3 693
    sentences (3 699 texts, 6 of them the same sentence spelt twice; counted here from the raw
    file), of which 1 698 are the ones all three groups labelled. SG2's α of the bias labels on
    those 1 698 sentences (the crowd–expert comparison's) is not its α on the whole file, which
    is the one Spinde et al. (2021, BABE) publish as 0.40. The α values come from the
    krippendorff package; the datasets guide must quote both, each with its sentences."""
    sg2_file = spreadsheet("babe-sg2")
    original("mbic"), original("babe-sg1")
    assert sg2_file["text"].map(sentence_key).nunique() == 3693
    crowd, sg1, sg2 = (fetch(name, label="bias").annotations
                       for name in ("mbic", "babe-sg1", "babe-sg2"))
    common = set(crowd.items) & set(sg1.items) & set(sg2.items)
    assert (len(common), sg2.n_items) == (1698, 3693)
    on_common, whole = wide_alpha(sg2, "nominal", common), wide_alpha(sg2, "nominal")
    assert round(whole, 2) == 0.40  # published
    assert round(on_common, 2) == 0.31  # a different number, on a different set of sentences
    guide = datasets_guide()
    assert "same sentences" not in guide
    assert "1 698 of its 3 693" in guide
    assert f"SG2 {on_common:.3f} on those 1 698" in guide
    assert f"{whole:.4f} on its whole file" in guide


@pytest.mark.slow
def test_published_alpha_of_mbic_opinion_labels_needs_every_submission_and_the_interval_metric():
    """Spinde et al. (2021, BABE) publish α 0.26 for MBIC's opinion labels (three ordered
    levels). Only one reading of the file gives it: every repeated submission counted as its
    own coder (``duplicates="separate"``) and the levels scored 0, 1, 2 with squared
    differences (interval), 0.26499. Keeping the first submission (``fetch``'s default) gives
    0.2653 and the ordinal metric with every submission 0.26500: both round to 0.27. The α
    values come from the krippendorff package on the fetched labels; kappalab agrees with it
    (interval here is a δ² matrix on the positions), and the datasets guide says all this where
    it quotes the published values."""
    original("mbic")
    first = fetch("mbic", label="opinion").annotations
    separate = fetch("mbic", label="opinion", duplicates="separate").annotations
    alphas = {(duplicates, level): wide_alpha(ann, level)
              for duplicates, ann in (("first", first), ("separate", separate))
              for level in ("ordinal", "interval")}
    assert round(alphas[("separate", "interval")], 2) == 0.26  # published
    assert [round(alphas[key], 2) for key in [("first", "ordinal"), ("first", "interval"),
                                             ("separate", "ordinal")]] == [0.27, 0.27, 0.27]
    squared = np.subtract.outer(np.arange(3.0), np.arange(3.0)) ** 2
    for (duplicates, level), expected in alphas.items():
        ann = first if duplicates == "first" else separate
        got = kl.krippendorff_alpha(ann, level=level if level == "ordinal" else squared)
        assert float(got) == pytest.approx(expected, abs=1e-12)
    guide = datasets_guide()
    assert f"opinion | 0.26 | {alphas[('first', 'ordinal')]:.4f}" in guide
    assert f'{alphas[("separate", "interval")]:.5f} with `duplicates="separate"`' in guide


# --- one record per dataset: the table is all fetch and fetchable read ---------------------

def test_a_dataset_is_one_record_of_the_table(tmp_path, monkeypatch):
    """A toy dataset added as one record is listed, downloaded-or-found, checked and parsed
    with no other change (and no network: the file is already in the data folder)."""
    import hashlib

    from kappalab.datasets import real
    from kappalab.datasets.download import SourceFile

    content = b"item,rater,value\n1,a,x\n1,b,x\n2,a,y\n2,b,x\n"
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "toy.csv").write_bytes(content)
    spec = SourceFile("toy/toy.csv", "https://example.org/toy.csv",
                      hashlib.sha256(content).hexdigest())

    def parse(record, tables, label, duplicates):
        frame = tables[0][""]
        return real.RealDataset(record.name, kl.Annotations.from_long(frame), None,
                                pd.DataFrame(), pd.DataFrame(), record.level,
                                record.description, record.citation)

    record = real.DatasetRecord("toy", (spec,), lambda path: {"": pd.read_csv(path)}, parse,
                                "a toy", "nobody (2026)", level="nominal")
    monkeypatch.setitem(real.DATASETS, "toy", record)
    assert fetchable()[-1] == "toy"
    data = fetch("toy", data_home=tmp_path)
    # by hand: 2 items, 2 raters, 4 annotations; the pair (x, x) agrees, (y, x) does not
    assert (data.annotations.n_items, data.annotations.n_raters) == (2, 2)
    assert data.level == "nominal" and data.description == "a toy"
    with pytest.raises(InvalidParameterError, match="'toy' has one label; label= is for "
                                                    "mbic, babe-sg1 and babe-sg2"):
        fetch("toy", label="bias", data_home=tmp_path)
    (tmp_path / "toy" / "toy.csv").write_bytes(content + b"3,a,x\n")
    with pytest.raises(InvalidParameterError, match="not the published file"):
        fetch("toy", data_home=tmp_path)
