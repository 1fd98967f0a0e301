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
from functools import lru_cache
from pathlib import Path

import numpy as np
import pandas as pd

from ..annotations import DUPLICATE_POLICIES, Annotations
from ..errors import InvalidParameterError
from ..validation import require_extra

__all__ = ["RealDataset", "fetch", "fetchable", "DATA_ENVIRONMENT_VARIABLE"]

#: the environment variable naming a folder that holds (or caches) the original files
DATA_ENVIRONMENT_VARIABLE = "KAPPALAB_DATA"


@dataclass(frozen=True)
class SourceFile:
    """One original file: where it lives below the data folder, its URL and SHA-256."""

    relative_path: str
    url: str
    sha256: str


_SNOW_URL = ("https://github.com/edwinrobots/bayesian_combination_tutorial2/raw/"
             "f98448e2e9a941463aa92f418eefd1f43bd5a637/"
             "snow2008_mturk_data_with_orig_files_assembled_201904/all_collected_data.tgz")
_BABE_URL = ("https://github.com/Media-Bias-Group/"
             "Neural-Media-Bias-Detection-Using-Distant-Supervision-With-BABE/raw/"
             "fb79f646dcabf1746f5ebedc06ed8dd61ba78188/data/{}")

SOURCE_FILES = {
    "snow2008": SourceFile(
        "snow2008/all_collected_data.tgz", _SNOW_URL,
        "158786ca0caa0b668439d3381d1bacbffd5f7cbc29bfd0eb33f575ff14d64c73"),
    "mbic": SourceFile(
        "mbic/raw_labels_MBIC.xlsx", _BABE_URL.format("raw_labels_MBIC.xlsx"),
        "3d0386dbdf8c982f9d3a2e6cfd2e2eb82c6b1295cf5749bf5ff4f670da6ab959"),
    "babe-sg1": SourceFile(
        "mbic/raw_labels_SG1.xlsx", _BABE_URL.format("raw_labels_SG1.xlsx"),
        "caae4cd2417241ba1ccf85a418814275997f10d927d01de421153fdad62ebeb6"),
    "babe-sg2": SourceFile(
        "mbic/raw_labels_SG2.xlsx", _BABE_URL.format("raw_labels_SG2.xlsx"),
        "21de6b109be6cfe7c7ee4647befa84d7cdf7799d0f265fd6140a0f117edf64a8"),
}

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

_MEDIA_BIAS_DESCRIPTIONS = {
    "mbic": ("MBIC: 1 700 news sentences, each labelled by 9–12 Amazon Mechanical Turk "
             "workers (809 in all), with the workers' age, gender, education, native "
             "language, political ideology (-10 left … 10 right) and news habits"),
    "babe-sg1": ("BABE expert subgroup 1: the MBIC sentences (1 698 of its 1 703 are in "
                 "the MBIC file) labelled by 8 trained annotators"),
    "babe-sg2": ("BABE expert subgroup 2: 3 693 sentences, 1 698 of them the ones MBIC and "
                 "SG1 share, labelled by 5 trained annotators each; several of them also "
                 "belong to subgroup 1 (same annotator ids)"),
}

#: the worker characteristics MBIC records with every label
MBIC_RATER_COLUMNS = ["age", "gender", "education", "native_english_speaker",
                      "political_ideology", "followed_news_outlets", "news_check_frequency"]

AGE_BANDS = {"18–29": (0, 30), "30–39": (30, 40), "40–49": (40, 50), "50+": (50, np.inf)}


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
    return [f"snow2008-{task}" for task in SNOW_TASKS] + list(_MEDIA_BIAS_DESCRIPTIONS)


def data_folder(data_home: str | os.PathLike | None = None) -> Path:
    """The folder holding the original files: ``data_home``, else ``$KAPPALAB_DATA``, else
    the platform's cache directory for kappalab.

    Parameters
    ----------
    data_home : path, optional
        A folder chosen by the caller.

    Returns
    -------
    pathlib.Path
        The folder (it need not exist yet).

    Examples
    --------
    >>> str(data_folder("/tmp/kappalab-data"))
    '/tmp/kappalab-data'
    """
    if data_home is not None:
        return Path(data_home).expanduser()
    if os.environ.get(DATA_ENVIRONMENT_VARIABLE):
        return Path(os.environ[DATA_ENVIRONMENT_VARIABLE]).expanduser()
    try:
        import pooch
    except ImportError:  # the platform's usual place, as pooch would choose it
        return Path.home() / ".cache" / "kappalab"
    return Path(pooch.os_cache("kappalab"))


def sha256_of(path: Path) -> str:
    """The SHA-256 of a file, as 64 hexadecimal digits.

    Parameters
    ----------
    path : pathlib.Path
        The file.

    Returns
    -------
    str
        Its SHA-256 digest.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = pathlib.Path(folder) / "empty"
    ...     _ = path.write_bytes(b"")
    ...     sha256_of(path)[:16]
    'e3b0c44298fc1c14'
    """
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def source_path(source: str, data_home: str | os.PathLike | None = None) -> Path:
    """The verified local copy of an original file, downloaded first if it is absent.

    Parameters
    ----------
    source : str
        ``"snow2008"``, ``"mbic"``, ``"babe-sg1"`` or ``"babe-sg2"``.
    data_home : path, optional
        The data folder (see :func:`data_folder`).

    Returns
    -------
    pathlib.Path
        The file, its SHA-256 checked.

    Raises
    ------
    InvalidParameterError
        If the file present has another SHA-256, a directory takes its place, or it is absent
        and cannot be downloaded (the message names the URL and where to put the file).

    Examples
    --------
    >>> source_path("atlantis")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: unknown source file 'atlantis'; known: snow2008, ...
    """
    if source not in SOURCE_FILES:
        raise InvalidParameterError(
            f"unknown source file {source!r}; known: {', '.join(SOURCE_FILES)}")
    spec = SOURCE_FILES[source]
    folder = data_folder(data_home)
    path = folder / spec.relative_path
    if path.is_dir():
        raise InvalidParameterError(
            f"{path} is a directory, where the original file {spec.relative_path} belongs; "
            f"move the directory away, then put the file there (from {spec.url}) or let "
            "kappalab download it")
    if not path.is_file():
        download(spec, path)
    found = sha256_of(path)
    if found != spec.sha256:
        raise InvalidParameterError(
            f"{path} has SHA-256 {found}, not the published file's {spec.sha256}: it is not "
            f"the original file (or it is damaged); delete it to download it again from "
            f"{spec.url}")
    return path


def download(spec: SourceFile, path: Path) -> None:
    """Download an original file to ``path`` with pooch, checking its SHA-256."""
    where = (f"download it from {spec.url} and put it at {path} (or point "
             f"{DATA_ENVIRONMENT_VARIABLE} or data_home= at a folder holding "
             f"{spec.relative_path})")
    pooch = require_extra("pooch", "data", f"{path} is absent, and downloading it", where)
    try:
        pooch.retrieve(spec.url, known_hash=f"sha256:{spec.sha256}", fname=path.name,
                       path=path.parent, progressbar=False)
    except Exception as error:  # network, permissions, a changed file: say what to do
        raise InvalidParameterError(
            f"could not download {spec.url} ({type(error).__name__}: {error}); {where}"
        ) from error


@lru_cache(maxsize=8)
def _read_source(path: Path, sha256: str) -> dict[str, pd.DataFrame]:
    """The tables of a verified file, read once per process (``sha256`` keys the cache)."""
    if path.suffix == ".xlsx":
        require_extra("openpyxl", "data", f"reading {path.name}")
        return {"": pd.read_excel(path, engine="openpyxl")}
    tables = {}
    with tarfile.open(path, "r:gz") as archive:
        for member in archive.getmembers():
            if member.isfile() and member.name.endswith(".standardized.tsv"):
                task = Path(member.name).name.split(".")[0]
                raw = archive.extractfile(member).read()
                tables[task] = pd.read_csv(io.BytesIO(raw), sep="\t",
                                           dtype={"orig_id": str})
    return tables


def read_source(source: str, data_home: str | os.PathLike | None = None
                ) -> dict[str, pd.DataFrame]:
    """The tables of an original file: one per task for Snow et al., one (key ``""``) for
    each spreadsheet; each a fresh copy.

    Parameters
    ----------
    source : str
        ``"snow2008"``, ``"mbic"``, ``"babe-sg1"`` or ``"babe-sg2"``.
    data_home : path, optional
        The data folder (see :func:`data_folder`).

    Returns
    -------
    dict of str to pandas.DataFrame
        The file's rows as the source has them.

    Examples
    --------
    >>> tables = read_source("snow2008")  # doctest: +SKIP
    >>> tables["rte"].shape  # doctest: +SKIP
    (8000, 5)
    >>> read_source("atlantis")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    kappalab.errors.InvalidParameterError: unknown source file 'atlantis'; known: snow2008, ...
    """
    path = source_path(source, data_home)
    return {key: table.copy() for key, table in
            _read_source(path, SOURCE_FILES[source].sha256).items()}


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
    if name.startswith("snow2008-") and name[len("snow2008-"):] in SNOW_TASKS:
        if label is not None:
            raise InvalidParameterError(
                f"{name!r} has one label; label= is for mbic, babe-sg1 and babe-sg2")
        return snow_dataset(name[len("snow2008-"):], data_home, duplicates)
    if name in _MEDIA_BIAS_DESCRIPTIONS:
        if label not in MEDIA_BIAS_LABELS:
            raise InvalidParameterError(
                f"{name!r} has two labels: choose label='bias' or label='opinion'"
                + ("" if label is None else f" (got {label!r})"))
        return media_bias_dataset(name, label, data_home, duplicates)
    raise InvalidParameterError(f"unknown dataset {name!r}; fetchable: "
                                f"{', '.join(fetchable())}")


def annotations_with_notes(frame: pd.DataFrame, notes: list[str], **options) -> Annotations:
    """``Annotations.from_long`` with its warnings about dropped rows kept as notes."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        annotations = Annotations.from_long(frame, **options)
    notes.extend(str(warning.message) for warning in caught)
    return annotations


def snow_dataset(task: str, data_home, duplicates: str) -> RealDataset:
    """One task of Snow et al. (2008)."""
    table = read_source("snow2008", data_home)[task]
    description, level = SNOW_TASKS[task]
    frame = pd.DataFrame({"item": table["orig_id"], "rater": table["!amt_worker_ids"],
                          "response": table["response"]})
    notes: list[str] = []
    annotations = annotations_with_notes(frame, notes, value="response",
                                         duplicates=duplicates)
    gold = table.groupby("orig_id", sort=False)["gold"].first()
    gold = gold.reindex(annotations.items).rename("gold")
    items = pd.DataFrame(index=annotations.items)
    raters = pd.DataFrame(index=annotations.raters)
    return RealDataset(f"snow2008-{task}", annotations, gold, raters, items, level,
                       f"Snow et al. (2008), {description}; 10 Mechanical Turk labels per "
                       "item and the experts' label (gold)", SNOW_CITATION, tuple(notes))


def media_bias_dataset(name: str, label: str, data_home, duplicates: str) -> RealDataset:
    """MBIC (crowd) or a BABE expert subgroup, one label."""
    table = read_source(name, data_home)[""]
    categories, level = MEDIA_BIAS_LABELS[label]
    column = f"label_{label}"
    notes: list[str] = []
    values = table[column]
    misspelt = values.isin(list(LABEL_SPELLINGS))
    for spelling, count in values[misspelt].value_counts().items():
        notes.append(f"mapped {count} label(s) {spelling!r} to {LABEL_SPELLINGS[spelling]!r}")
    values = values.replace(LABEL_SPELLINGS)
    unknown = values.notna() & ~values.isin(categories)
    if unknown.any():  # a label the mapping does not know: refuse rather than guess
        raise InvalidParameterError(
            f"{name}: unknown {column} values {sorted(values[unknown].unique())}")
    is_mbic = name == "mbic"
    rater_column = "mturk_id" if is_mbic else "annotator_id"
    table = table.assign(item=table["text"].map(sentence_key), value=values)
    if is_mbic:  # earliest submission first, so that "first" keeps it
        table = table.sort_values("created_at", kind="stable")
    spellings = table.groupby("item")["text"].nunique()
    if (spellings > 1).any():
        notes.append(f"{int((spellings > 1).sum())} sentence(s) appear under more than one "
                     "spelling that differ only in white space or Unicode form: each is one "
                     "item")
    frame = pd.DataFrame({"item": table["item"], "rater": table[rater_column],
                          column: pd.Categorical(table["value"], categories, ordered=True)})
    annotations = annotations_with_notes(frame, notes, value=column, duplicates=duplicates)
    if duplicates == "separate" and annotations.n_raters > table[rater_column].nunique():
        notes.append(f"counted each repeated submission as its own rater "
                     f"({annotations.n_raters - table[rater_column].nunique()} extra "
                     "rater ids)")
    item_columns = [c for c in ("text", "outlet", "topic", "type", "news_link",
                                "sentence_id") if c in table.columns]
    items = (table.drop_duplicates("item").set_index("item")[item_columns]
             .reindex(annotations.items))
    if is_mbic:
        raters = mbic_raters(table, notes).reindex(
            annotations.raters.map(lambda r: str(r).split(" (submission ")[0]))
        raters.index = annotations.raters
    else:
        raters = pd.DataFrame(index=annotations.raters)
    description = (f"{_MEDIA_BIAS_DESCRIPTIONS[name]}; label: {column} "
                   f"({' < '.join(categories) if level == 'ordinal' else ', '.join(categories)})")
    citation = MBIC_CITATION if is_mbic else BABE_CITATION
    return RealDataset(f"{name}:{label}", annotations, None, raters, items, level,
                       description, citation, tuple(notes))


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
