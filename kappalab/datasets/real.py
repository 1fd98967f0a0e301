"""Public annotation datasets with individual labels, fetched from their original source.

The files are not shipped with kappalab: :func:`fetch` downloads each from its public URL
once, checks its SHA-256 and reads it from the cache afterwards, with no network.

- **Snow et al. (2008)**, "Cheap and Fast — But is it Good? Evaluating Non-Expert
  Annotations for Natural Language Tasks" (EMNLP): Amazon Mechanical Turk labels, 10 per
  item, with the expert (gold) label of every item, for recognising textual entailment
  (``snow2008-rte``), temporal ordering (``snow2008-temp``), word-sense disambiguation
  (``snow2008-wsd``), six emotions and valence of news headlines (``snow2008-anger`` …
  ``snow2008-valence``) and word similarity (``snow2008-wordsim``).
- **MBIC** (Spinde et al. 2021): 1 700 news sentences labelled by 9–12 crowd workers each,
  with the workers' characteristics; **BABE** (Spinde et al. 2021): sentences labelled by
  trained experts, 8 in subgroup 1 (``babe-sg1``: MBIC's sentences) and 5 per sentence in
  subgroup 2 (``babe-sg2``: 3 693 sentences, 1 698 of them the ones MBIC and SG1 share).
  Sentences are linked across the three files by their text: the item id is a hash of the
  text with white space and Unicode forms normalised, so
  ``cross_kappa(fetch("mbic", label="bias").annotations,
  fetch("babe-sg1", label="bias").annotations)`` compares the crowd with the experts on
  their common sentences.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import tarfile
import unicodedata
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
import pandas as pd

from ..annotations import DUPLICATE_POLICIES, Annotations
from ..errors import InvalidParameterError
from ..validation import require_extra
from .download import DATA_ENVIRONMENT_VARIABLE, SourceFile, TableReader, verified_tables

__all__ = ["DATASETS", "DatasetRecord", "RealDataset", "fetch", "fetchable",
           "DATA_ENVIRONMENT_VARIABLE"]

@dataclass(frozen=True)
class RealDataset:
    """A real annotation dataset, as :func:`fetch` returns it.

    Parameters
    ----------
    name : str
        The name :func:`fetch` took (with the label for the media-bias files).
    annotations : Annotations
        The labels by item and rater, categories in their natural order.
    gold : pandas.Series or None
        The reference (expert) label of each item where the source has one, indexed by item.
    raters : pandas.DataFrame
        One row per rater (indexed by rater id): the rater's attributes where the source
        records them (MBIC's demographics), else no columns.
    items : pandas.DataFrame
        One row per item (indexed by item id): text, outlet, topic and the like.
    level : str
        The level of measurement the labels call for (``"nominal"``, ``"ordinal"`` or
        ``"interval"``).
    description : str
        What the data are.
    citation : str
        The publication to cite.
    notes : tuple of str
        What reading the original file changed: labels mapped to their canonical spelling,
        rows dropped, repeated submissions resolved; each with its count.

    Examples
    --------
    >>> import pandas as pd, kappalab as kl
    >>> frame = pd.DataFrame({"item": [1, 1, 2, 2], "rater": ["a", "b", "a", "b"],
    ...                       "value": [0, 0, 1, 0]})
    >>> data = RealDataset("toy", kl.Annotations.from_long(frame), None, pd.DataFrame(),
    ...                    pd.DataFrame(), "nominal", "a toy", "nobody")
    >>> data.annotations.n_items
    2
    """

    name: str
    annotations: Annotations
    gold: pd.Series | None
    raters: pd.DataFrame
    items: pd.DataFrame
    level: str
    description: str
    citation: str
    notes: tuple[str, ...] = field(default=())

    def __repr__(self) -> str:
        data = self.annotations
        lines = [f"RealDataset({self.name!r}: {data.n_items} items, {data.n_raters} raters, "
                 f"{data.n_annotations} annotations, level={self.level!r})",
                 f"  {self.description}"]
        lines += [f"  note: {note}" for note in self.notes]
        return "\n".join(lines)


#: a dataset's parser: ``parse(record, tables, label, duplicates)``, ``tables`` holding
#: the tables of each of ``record.files`` in order (read by ``record.read``)
Parser = Callable[["DatasetRecord", tuple[dict[str, pd.DataFrame], ...], "str | None", str],
                  RealDataset]


@dataclass(frozen=True)
class DatasetRecord:
    """One dataset :func:`fetch` takes: its name, its original files, how they are read and
    parsed, and what the data are. Adding a dataset is adding one record to
    :data:`DATASETS` (CONTRIBUTING.md, "Adding a dataset").

    Parameters
    ----------
    name : str
        The name :func:`fetch` takes (and :func:`fetchable` lists).
    files : tuple of SourceFile
        The original files the dataset is read from, each with its URL and SHA-256
        (:class:`~kappalab.datasets.download.SourceFile`); downloaded once, then cached.
    read : callable
        ``read(path)``: the tables of one verified file by name (``""`` for a file of one
        table), as the source has them; read once per process.
    parse : callable
        ``parse(record, tables, label, duplicates)``: the :class:`RealDataset`, from the
        tables of each file (in the order of ``files``), the ``label=`` chosen (``None``
        when the dataset has one) and the ``duplicates=`` policy.
    description : str
        What the data are (the dataset's ``description``, to which a parser may add the
        label chosen).
    citation : str
        The publication to cite.
    level : str, optional
        The level of measurement of a dataset with one label.
    labels : tuple of str
        The labels ``label=`` chooses among; empty for a dataset with one label.
    options : mapping
        The parser's parameters specific to the dataset (a task name, a rater column).

    Examples
    --------
    >>> record = DATASETS["snow2008-rte"]
    >>> record.files[0].relative_path, record.level, record.labels
    ('snow2008/all_collected_data.tgz', 'nominal', ())
    >>> DATASETS["mbic"].labels
    ('bias', 'opinion')
    """

    name: str
    files: tuple[SourceFile, ...]
    read: TableReader
    parse: Parser
    description: str
    citation: str
    level: str | None = None
    labels: tuple[str, ...] = ()
    options: Mapping[str, Any] = field(default_factory=dict)


# ---------------------------------------------------------------------- the original files
_SNOW_URL = ("https://github.com/edwinrobots/bayesian_combination_tutorial2/raw/"
             "f98448e2e9a941463aa92f418eefd1f43bd5a637/"
             "snow2008_mturk_data_with_orig_files_assembled_201904/all_collected_data.tgz")
_BABE_URL = ("https://github.com/Media-Bias-Group/"
             "Neural-Media-Bias-Detection-Using-Distant-Supervision-With-BABE/raw/"
             "fb79f646dcabf1746f5ebedc06ed8dd61ba78188/data/{}")

SNOW_FILE = SourceFile("snow2008/all_collected_data.tgz", _SNOW_URL,
                       "158786ca0caa0b668439d3381d1bacbffd5f7cbc29bfd0eb33f575ff14d64c73")
MBIC_FILE = SourceFile("mbic/raw_labels_MBIC.xlsx", _BABE_URL.format("raw_labels_MBIC.xlsx"),
                       "3d0386dbdf8c982f9d3a2e6cfd2e2eb82c6b1295cf5749bf5ff4f670da6ab959")
SG1_FILE = SourceFile("mbic/raw_labels_SG1.xlsx", _BABE_URL.format("raw_labels_SG1.xlsx"),
                      "caae4cd2417241ba1ccf85a418814275997f10d927d01de421153fdad62ebeb6")
SG2_FILE = SourceFile("mbic/raw_labels_SG2.xlsx", _BABE_URL.format("raw_labels_SG2.xlsx"),
                      "21de6b109be6cfe7c7ee4647befa84d7cdf7799d0f265fd6140a0f117edf64a8")


def read_snow_archive(path: Path) -> dict[str, pd.DataFrame]:
    """Snow et al.'s archive: one table per task, from its ``<task>.standardized.tsv``."""
    tables = {}
    with tarfile.open(path, "r:gz") as archive:
        for member in archive.getmembers():
            if member.isfile() and member.name.endswith(".standardized.tsv"):
                task = Path(member.name).name.split(".")[0]
                handle = archive.extractfile(member)
                if handle is None:  # not a regular file's contents
                    continue
                raw = handle.read()
                tables[task] = pd.read_csv(io.BytesIO(raw), sep="\t",
                                           dtype={"orig_id": str})
    return tables


def read_spreadsheet(path: Path) -> dict[str, pd.DataFrame]:
    """An ``.xlsx`` file of one sheet, as the table ``""`` (openpyxl asked for first)."""
    require_extra("openpyxl", "data", f"reading {path.name}")
    return {"": pd.read_excel(path, engine="openpyxl")}


# ---------------------------------------------------------------------- the parsers
def annotations_with_notes(frame: pd.DataFrame, notes: list[str], **options: Any) -> Annotations:
    """``Annotations.from_long`` with its warnings about dropped rows kept as notes."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        annotations = Annotations.from_long(frame, **options)
    notes.extend(str(warning.message) for warning in caught)
    return annotations


def snow_dataset(record: DatasetRecord, tables: tuple[dict[str, pd.DataFrame], ...],
                 label: str | None, duplicates: str) -> RealDataset:
    """One task of Snow et al. (2008): the table of ``record.options["task"]``."""
    table = tables[0][record.options["task"]]
    frame = pd.DataFrame({"item": table["orig_id"], "rater": table["!amt_worker_ids"],
                          "response": table["response"]})
    notes: list[str] = []
    annotations = annotations_with_notes(frame, notes, value="response",
                                         duplicates=duplicates)
    gold = table.groupby("orig_id", sort=False)["gold"].first()
    gold = gold.reindex(annotations.items).rename("gold")
    items = pd.DataFrame(index=annotations.items)
    raters = pd.DataFrame(index=annotations.raters)
    return RealDataset(record.name, annotations, gold, raters, items, str(record.level),
                       record.description, record.citation, tuple(notes))


def media_bias_dataset(record: DatasetRecord, tables: tuple[dict[str, pd.DataFrame], ...],
                       label: str | None, duplicates: str) -> RealDataset:
    """MBIC (crowd) or a BABE expert subgroup, one label. ``record.options``: the
    ``rater_column``, and ``crowd`` for MBIC (submissions in the order they were made, and
    the workers' characteristics)."""
    name = record.name
    table = tables[0][""]
    categories, level = MEDIA_BIAS_LABELS[str(label)]
    column = f"label_{label}"
    notes: list[str] = []
    values = table[column]
    misspelt = values.isin(list(LABEL_SPELLINGS))
    for spelling, count in values[misspelt].value_counts().items():
        notes.append(f"mapped {count} label(s) {spelling!r} to {LABEL_SPELLINGS[str(spelling)]!r}")
    values = values.replace(LABEL_SPELLINGS)
    unknown = values.notna() & ~values.isin(categories)
    if unknown.any():  # a label the mapping does not know: refuse rather than guess
        raise InvalidParameterError(
            f"{name}: unknown {column} values {sorted(values[unknown].unique())}")
    is_crowd = bool(record.options.get("crowd", False))
    rater_column = record.options["rater_column"]
    table = table.assign(item=table["text"].map(sentence_key), value=values)
    if is_crowd:  # earliest submission first, so that "first" keeps it
        table = table.sort_values("created_at", kind="stable")
    spellings = table.groupby("item")["text"].nunique()
    if (spellings > 1).any():
        notes.append(f"{int((spellings > 1).sum())} sentence(s) appear under more than one "
                     "spelling that differ only in white space or Unicode form: each is one "
                     "item")
    frame = pd.DataFrame({"item": table["item"], "rater": table[rater_column],
                          column: pd.Categorical(table["value"], categories, ordered=True)})
    annotations = annotations_with_notes(frame, notes, value=column, duplicates=duplicates)
    rater_ids = annotations.require_raters(name)  # the frame has a rater column
    if duplicates == "separate" and len(rater_ids) > table[rater_column].nunique():
        notes.append(f"counted each repeated submission as its own rater "
                     f"({len(rater_ids) - table[rater_column].nunique()} extra "
                     "rater ids)")
    item_columns = [c for c in ("text", "outlet", "topic", "type", "news_link",
                                "sentence_id") if c in table.columns]
    items = (table.drop_duplicates("item").set_index("item")[item_columns]
             .reindex(annotations.items))
    if is_crowd:
        raters = mbic_raters(table, notes).reindex(
            rater_ids.map(lambda r: str(r).split(" (submission ")[0]))
        raters.index = rater_ids
    else:
        raters = pd.DataFrame(index=rater_ids)
    description = (f"{record.description}; label: {column} "
                   f"({' < '.join(categories) if level == 'ordinal' else ', '.join(categories)})")
    return RealDataset(f"{name}:{label}", annotations, None, raters, items, level,
                       description, record.citation, tuple(notes))


def mbic_raters(table: pd.DataFrame, notes: list[str]) -> pd.DataFrame:
    """MBIC's workers and their characteristics (from each worker's earliest survey)."""
    per_survey = table.drop_duplicates("survey_record_id")
    answers = per_survey.groupby("mturk_id")[MBIC_RATER_COLUMNS].nunique()
    inconsistent = int((answers > 1).any(axis=1).sum())
    if inconsistent:
        notes.append(f"{inconsistent} worker(s) took the survey more than once and answered "
                     "the questions about themselves differently; raters keeps each "
                     "worker's earliest answers")
    raters = per_survey.groupby("mturk_id")[MBIC_RATER_COLUMNS].first()
    bands = list(AGE_BANDS)
    edges = [low for low, _ in AGE_BANDS.values()] + [np.inf]
    raters["age_band"] = pd.Categorical(
        pd.cut(raters["age"], edges, right=False, labels=bands), bands, ordered=True)
    raters.index.name = "rater"
    return raters


# ---------------------------------------------------------------------- the table
#: Snow et al.'s tasks: (description, level)
SNOW_TASKS = {
    "rte": ("recognising textual entailment: does the text entail the hypothesis "
            "(1) or not (0)? 800 pairs from the PASCAL RTE-1 test set", "nominal"),
    "temp": ("temporal ordering: does the first event happen before (1) or after (2) "
             "the second? 462 event pairs from TimeBank", "nominal"),
    "wsd": ("word-sense disambiguation: which of the 3 senses of 'president' does "
            "the sentence use? 177 SemEval-2007 examples", "nominal"),
    **{emotion: (f"affect recognition: how much {emotion} does the news headline convey, "
                 "0 (none) to 100? 100 SemEval-2007 Affective Text headlines", "interval")
       for emotion in ("anger", "disgust", "fear", "joy", "sadness", "surprise")},
    "valence": ("affect recognition: the valence of the news headline, -100 (negative) "
                "to 100 (positive); 100 SemEval-2007 Affective Text headlines", "interval"),
    "wordsim": ("word similarity: how similar are the two words, 0 to 10? 30 word pairs "
                "from Miller and Charles (1991)", "interval"),
}

SNOW_CITATION = (
    "Snow, R., O'Connor, B., Jurafsky, D. & Ng, A. Y. (2008). Cheap and Fast — But is it "
    "Good? Evaluating Non-Expert Annotations for Natural Language Tasks. Proceedings of "
    "EMNLP 2008, 254–263. https://aclanthology.org/D08-1027")
MBIC_CITATION = (
    "Spinde, T., Rudnitckaia, L., Sinha, K., Hamborg, F., Gipp, B. & Donnay, K. (2021). "
    "MBIC — A Media Bias Annotation Dataset Including Annotator Characteristics. "
    "Proceedings of iConference 2021. https://doi.org/10.48550/arXiv.2105.11910")
BABE_CITATION = (
    "Spinde, T., Plank, M., Krieger, J.-D., Ruas, T., Gipp, B. & Aizawa, A. (2021). Neural "
    "Media Bias Detection Using Distant Supervision With BABE — Bias Annotations By Experts. "
    "Findings of EMNLP 2021, 1166–1177. https://aclanthology.org/2021.findings-emnlp.101")

#: the canonical labels of the media-bias files, in their natural order, and the level
MEDIA_BIAS_LABELS = {
    "bias": (("Non-biased", "Biased"), "nominal"),
    "opinion": (("Entirely factual", "Somewhat factual but also opinionated",
                 "Expresses writer’s opinion"), "ordinal"),
}

#: spellings in the source files that mean a canonical label
LABEL_SPELLINGS = {
    "Expresses wleter´s opinion": "Expresses writer’s opinion",
    "Somewhat factional but also opinionated": "Somewhat factual but also opinionated",
    "Biased, unfair": "Biased",
}

#: the worker characteristics MBIC records with every label
MBIC_RATER_COLUMNS = ["age", "gender", "education", "native_english_speaker",
                      "political_ideology", "followed_news_outlets", "news_check_frequency"]

AGE_BANDS = {"18–29": (0, 30), "30–39": (30, 40), "40–49": (40, 50), "50+": (50, np.inf)}

#: every dataset :func:`fetch` takes, by name, in the order :func:`fetchable` lists them
DATASETS: dict[str, DatasetRecord] = {record.name: record for record in [
    *(DatasetRecord(f"snow2008-{task}", (SNOW_FILE,), read_snow_archive, snow_dataset,
                    f"Snow et al. (2008), {description}; 10 Mechanical Turk labels per item "
                    "and the experts' label (gold)", SNOW_CITATION, level=level,
                    options={"task": task})
      for task, (description, level) in SNOW_TASKS.items()),
    DatasetRecord(
        "mbic", (MBIC_FILE,), read_spreadsheet, media_bias_dataset,
        "MBIC: 1 700 news sentences, each labelled by 9–12 Amazon Mechanical Turk workers "
        "(809 in all), with the workers' age, gender, education, native language, political "
        "ideology (-10 left … 10 right) and news habits",
        MBIC_CITATION, labels=tuple(MEDIA_BIAS_LABELS),
        options={"rater_column": "mturk_id", "crowd": True}),
    DatasetRecord(
        "babe-sg1", (SG1_FILE,), read_spreadsheet, media_bias_dataset,
        "BABE expert subgroup 1: the MBIC sentences (1 698 of its 1 703 are in the MBIC "
        "file) labelled by 8 trained annotators",
        BABE_CITATION, labels=tuple(MEDIA_BIAS_LABELS),
        options={"rater_column": "annotator_id"}),
    DatasetRecord(
        "babe-sg2", (SG2_FILE,), read_spreadsheet, media_bias_dataset,
        "BABE expert subgroup 2: 3 693 sentences, 1 698 of them the ones MBIC and SG1 share, "
        "labelled by 5 trained annotators each; several of them also belong to subgroup 1 "
        "(same annotator ids)",
        BABE_CITATION, labels=tuple(MEDIA_BIAS_LABELS),
        options={"rater_column": "annotator_id"}),
]}

#: the original files by source name (each dataset's files are in its record)
SOURCE_FILES = {"snow2008": SNOW_FILE, "mbic": MBIC_FILE, "babe-sg1": SG1_FILE,
                "babe-sg2": SG2_FILE}


# ---------------------------------------------------------------------- fetching
def fetchable() -> list[str]:
    """The names :func:`fetch` takes.

    Returns
    -------
    list of str
        ``snow2008-<task>`` for each of Snow et al.'s tasks, then ``mbic``, ``babe-sg1`` and
        ``babe-sg2`` (these three take ``label="bias"`` or ``"opinion"``).

    Examples
    --------
    >>> fetchable()[:3]
    ['snow2008-rte', 'snow2008-temp', 'snow2008-wsd']
    >>> len(fetchable())
    14
    """
    return list(DATASETS)


def sentence_key(text: str) -> str:
    """The item id of a news sentence: a hash of its text with Unicode forms and white
    space normalised, the same in MBIC, SG1 and SG2.

    Parameters
    ----------
    text : str
        The sentence.

    Returns
    -------
    str
        ``"s"`` and 12 hexadecimal digits.

    Examples
    --------
    >>> sentence_key("A  sentence.") == sentence_key(" A sentence. ")
    True
    """
    normal = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", str(text))).strip()
    return "s" + hashlib.sha1(normal.encode("utf-8")).hexdigest()[:12]


_COUNTS = {2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
           9: "nine"}


def _listed(names: list[str]) -> str:
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def fetch(name: str, *, label: str | None = None,
          data_home: str | os.PathLike | None = None,
          duplicates: str = "first") -> RealDataset:
    """A public annotation dataset with individual labels, from its original file.

    The file is downloaded once from its public URL (with pooch), its SHA-256 checked, and
    cached in ``data_home``, else the folder named by the ``KAPPALAB_DATA`` environment
    variable, else the platform's cache directory (``data_folder()``); when the file is
    there, nothing touches the network. The folder holds ``snow2008/all_collected_data.tgz``
    and ``mbic/raw_labels_{MBIC,SG1,SG2}.xlsx``, as downloaded.

    Parameters
    ----------
    name : str
        One of :func:`fetchable`: ``snow2008-rte``, ``snow2008-temp``, ``snow2008-wsd``,
        ``snow2008-anger``, ``-disgust``, ``-fear``, ``-joy``, ``-sadness``, ``-surprise``,
        ``-valence``, ``snow2008-wordsim``; ``mbic``, ``babe-sg1``, ``babe-sg2``.
    label : {"bias", "opinion"}, optional
        For ``mbic`` and ``babe-*`` (required there): the biased / non-biased label
        (nominal) or the three ordered opinion levels (ordinal).
    data_home : path, optional
        The data folder.
    duplicates : {"first", "last", "separate", "raise"}, default "first"
        What to do where a rater labelled an item twice (20 (sentence, worker) pairs of
        MBIC, from workers who took the survey twice): keep the earlier or later submission,
        count each submission as its own rater (how the sources' published α counts them), or
        raise. See :meth:`Annotations.from_long`. The dataset's ``notes`` say what was done.
        The published α of MBIC's opinion labels, 0.26, needs ``"separate"`` (and the levels
        scored 0, 1, 2 with squared differences: 0.26499); ``"first"`` gives 0.2653 (0.27).
        The bias labels' published values come out either way.

    Returns
    -------
    RealDataset
        ``.annotations``, ``.gold``, ``.raters``, ``.items``, ``.level``, ``.description``,
        ``.citation`` and ``.notes``.

    Raises
    ------
    InvalidParameterError
        For an unknown name or label, or when the file is absent and cannot be downloaded
        (the message names its URL and where to put it).
    ImportError
        The file is absent and pooch is not installed, or an ``.xlsx`` file and openpyxl is
        not: the message names the extra, ``pip install "kappalab[data]"``.

    Notes
    -----
    What reading changes, always reported in ``notes`` with counts:

    - SG1 spells two opinion labels differently ("Expresses wleter´s opinion", "Somewhat
      factional but also opinionated") and SG2 has one "Biased, unfair": each is mapped to
      its canonical label.
    - Rows without a label (SG1: 27 bias, 151 opinion) are dropped.
    - MBIC records a worker's characteristics with every label; workers who took the survey
      twice sometimes answered differently. ``raters`` keeps the answers of each worker's
      earliest survey and adds ``age_band`` (18–29, 30–39, 40–49, 50+).
    - Items are sentences, linked across the three media-bias files by ``sentence_key``;
      ``items`` holds the text, outlet, topic, outlet type and link (and MBIC's own sentence
      id).

    References
    ----------
    Snow et al. (2008), EMNLP, 254–263. Spinde et al. (2021), MBIC, iConference. Spinde et
    al. (2021), BABE, Findings of EMNLP, 1166–1177.

    Examples
    --------
    >>> import kappalab as kl
    >>> rte = fetch("snow2008-rte")  # doctest: +SKIP
    >>> rte.annotations.n_items, rte.annotations.n_raters, rte.level  # doctest: +SKIP
    (800, 164, 'nominal')
    >>> crowd = fetch("mbic", label="bias")  # doctest: +SKIP
    >>> experts = fetch("babe-sg1", label="bias")  # doctest: +SKIP
    >>> kl.cross_kappa(crowd.annotations, experts.annotations)  # doctest: +SKIP
    >>> fetch("mbic")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: 'mbic' has two labels: choose label='bias' or ...
    """
    if duplicates not in DUPLICATE_POLICIES:
        raise InvalidParameterError(
            f"unknown duplicates policy {duplicates!r}; choose one of "
            f"{', '.join(map(repr, DUPLICATE_POLICIES))}")
    record = DATASETS.get(name)
    if record is None:
        raise InvalidParameterError(f"unknown dataset {name!r}; fetchable: "
                                    f"{', '.join(fetchable())}")
    if not record.labels and label is not None:
        with_labels = [other.name for other in DATASETS.values() if other.labels]
        raise InvalidParameterError(
            f"{name!r} has one label; label= is for {_listed(with_labels)}")
    if record.labels and label not in record.labels:
        count = _COUNTS.get(len(record.labels), str(len(record.labels)))
        raise InvalidParameterError(
            f"{name!r} has {count} labels: choose "
            + " or ".join(f"label={choice!r}" for choice in record.labels)
            + ("" if label is None else f" (got {label!r})"))
    tables = tuple(verified_tables(spec, record.read, data_home) for spec in record.files)
    return record.parse(record, tables, label, duplicates)
