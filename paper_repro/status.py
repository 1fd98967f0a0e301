"""How far each reproduction gets: one row per claim of a paper that a script of this package
sets out to reproduce, with the data it uses, what its full run gives and a status.

This table is the one place the statuses are written. Each script prints its rows
(:func:`status_text`) and adds them to its markdown output (:func:`status_markdown`); the
tables of ``paper_repro/README.md`` (:func:`markdown_table`) and of the repository's README
(``markdown_table(compact=True)``) are its output pasted verbatim, and each gallery page
(``docs/examples/``) states the status of each of its script's rows in a ``**Status.**``
paragraph; ``tests/test_repro_status.py`` checks all of them against this table.

The statuses:

* **reproduced**: the paper's numbers are matched within the paper's rounding (for a figure
  computed without data, the figure itself is);
* **qualitatively reproduced**: what the paper states holds (the direction, the ranking, the
  shape), but its numbers are not matched or not compared;
* **not reproduced**: the paper's number or statement is not reached; the row says by how
  much and why.

A status is that of the full run with the default seed (``python -m paper_repro.<script>``);
``--quick`` runs are smaller and noisier and do not change it. A row marked reproduced names
the test that compares the number with the paper's.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

REPRODUCED = "reproduced"
QUALITATIVELY_REPRODUCED = "qualitatively reproduced"
NOT_REPRODUCED = "not reproduced"
STATUSES = (REPRODUCED, QUALITATIVELY_REPRODUCED, NOT_REPRODUCED)

WONG = "Wong, Paritosh & Aroyo (2021)"
SPA = "Nørregaard & Derczynski (2022)"
SNOW = "Snow et al. (2008)"
HOVY = "Hovy et al. (2013)"

SIMULATED = "simulated stand-in"
REAL = "real data"
NO_DATA = "no data"
DATA_KINDS = (SIMULATED, REAL, NO_DATA)


@dataclass(frozen=True)
class Reproduction:
    """One claim of a paper and how far a script's full run gets with it.

    Attributes
    ----------
    script : str
        The module of ``paper_repro`` that makes it (``python -m paper_repro.<script>``).
    paper : str
        Its authors and year.
    target : str
        The figure, table or section of the paper.
    claim : str
        What the paper states there, with its number where it gives one.
    data : str
        ``"simulated stand-in"``, ``"real data"`` (the paper's own or a public file) or
        ``"no data"``.
    status : str
        One of :data:`STATUSES`.
    outcome : str
        What the full run gives; short of reproduced, the gap and the reason.
    test : str
        For a reproduced row, the tests that compare the numbers with the paper's
        (``tests/<file>.py::<name>``, separated by ``", "``).
    """

    script: str
    paper: str
    target: str
    claim: str
    data: str
    status: str
    outcome: str
    test: str = ""


REPRODUCTIONS: tuple[Reproduction, ...] = (
    Reproduction(
        "xrr_fig7", WONG, "Fig. 7 (§4.5)",
        "Pearson r = 0.99 between normalized κx and Spearman's corrected ρ_xy over 93 IRep "
        "replication pairs",
        SIMULATED, NOT_REPRODUCED,
        "r = 0.951 (median 0.954 over 20 studies, never 0.99). The stand-in's pairs are "
        "noisier than the paper's may be (1–5 annotations per item, IRRs down to 0.05): its "
        "designs with 3–5 annotations reach 0.997–0.999. IRep is not available to check."),
    Reproduction(
        "xrr_cases", WONG, "§4.3–4.4 (Figs 4–6, Table 2)",
        "sadness, contentment and awe: the IRRs and κx of IRep's city pairs (e.g. sadness "
        "0.5147 / 0.5175, κx 0.4709)",
        SIMULATED, NOT_REPRODUCED,
        "Not comparable: IRep is not available, so the simulation's truths are the paper's "
        "values by construction; what the run tests is the estimators at those values (α "
        "and κx unbiased within 0.0035, analytic 95 % intervals covering 92.0–97.5 %)."),
    Reproduction(
        "xrr_cases", WONG, "§4.3, footnote 5",
        "contentment's κx of −0.0344 is estimation error around no agreement",
        SIMULATED, QUALITATIVELY_REPRODUCED,
        "With a true κx of 0, 12.0 % of the κx estimates at 1 000 items (28.0 % at 300) lie "
        "at or below −0.0344: an ordinary draw, as the paper reads it. IRep's item count for "
        "contentment is not known here, so the share at the paper's own size is not."),
    Reproduction(
        "xrr_cases", WONG, "eq. 14 (§3.5)",
        "κx is capped by the larger of the two IRRs, and equals them for a perfect "
        "replication",
        NO_DATA, REPRODUCED,
        "Holds in every population value of a grid of latent correlations, IRRs, "
        "prevalences and marginal shifts (to 1e-12); κx = IRR at latent correlation 1 with "
        "equal IRRs and marginals.",
        "tests/test_paper_repro.py::test_eq14_kx_capped_by_the_larger_irr_in_the_truths"),
    Reproduction(
        "xrr_real", WONG, "Fig. 7 (§4.5) on real rater pools",
        "Pearson r = 0.99 between normalized κx and ρ_xy",
        REAL, NOT_REPRODUCED,
        "r = 0.800 [0.649, 0.904] over 26 pairs of MBIC worker pools. Pools drawn from one "
        "crowd are near-faithful replications (normalized κx 0.84–1.21), so their scatter is "
        "mostly sampling noise; the paper's pairs span values from about 0 to 1."),
    Reproduction(
        "spa_fig4", SPA, "Fig. 4",
        "the normalised inv_var weights do not depend on the number of classes C = 2–7, "
        "and inv_var is almost identical to edges",
        NO_DATA, REPRODUCED,
        "Exactly: the curves coincide to 1.7e-16 and equal the normalised edges weights "
        "n(n − 1)/Σ m(m − 1), with a proof (the paper had none).",
        "tests/test_spa_repro.py::test_fig4_inv_var_curves_coincide_and_equal_edges"),
    Reproduction(
        "spa_fig5", SPA, "Fig. 5",
        "inv_var_class weight curves range from annotations to edges with the class "
        "distribution; their sum relates to its entropy only loosely",
        NO_DATA, QUALITATIVELY_REPRODUCED,
        "On fresh random class distributions (the paper's draws are not published): the "
        "curves span edges to annotations, the sums relate loosely to entropy (Spearman "
        "−0.65) and exactly to one parameter s. The paper's figure is not matched point for "
        "point."),
    Reproduction(
        "spa_fig6", SPA, "Fig. 6, annotations per item",
        "at a fixed number N of annotations, more annotations per item lower the variance of "
        "SPA (DAR, MBIC, BSMTWE, FECG)",
        SIMULATED, NOT_REPRODUCED,
        "The variance falls throughout only on DAR (j = 2, 3); on the other stand-ins it is "
        "lowest at j = 3 (BSMTWE, FECG) or j = 6 (MBIC) and rises after: N·Var ≈ j·W_j + "
        "j·B (exact to Monte Carlo error), and their items differ in agreement (B) more than "
        "the pair noise an extra label saves. The paper's datasets are not available to "
        "check."),
    Reproduction(
        "spa_fig6", SPA, "Fig. 6, sparse curve",
        "annotations added at random give about the variance of the constant-2 curve",
        SIMULATED, QUALITATIVELY_REPRODUCED,
        "Median ratio of the sparse to the constant-2 variance over N: 1.015 (DAR), 1.016 "
        "(MBIC), 0.974 (BSMTWE), 1.026 (FECG); the paper's curves are drawn, not "
        "tabulated, so they are not compared number for number."),
    Reproduction(
        "spa_fig7_table1", SPA, "Fig. 7 and Table 1",
        "annotations_m1 works well for all four datasets; the weighting has relatively little "
        "effect on the variance",
        SIMULATED, QUALITATIVELY_REPRODUCED,
        "annotations_m1's area is below flat's on all four stand-ins (−0.76 % DAR, −11.80 % "
        "MBIC, −4.83 % BSMTWE, −3.25 % FECG), the lowest on MBIC and BSMTWE, second to "
        "annotations on DAR and FECG; no scheme moves the area by more than 12 %. Table 1's "
        "numbers are not compared: the stand-ins are not the paper's datasets."),
    Reproduction(
        "spa_mbic", SPA, "Fig. 6, annotations per item (MBIC)",
        "at a fixed number N of labels, more labels per sentence lower the variance of SPA",
        REAL, NOT_REPRODUCED,
        "Only up to 6 labels per sentence: N·Var (exact for the data) is 0.472 at j = 2 and "
        "0.267 at j = 6, then rises to 0.287 at j = 10, because the sentences' own agreement "
        "spreads (B ≈ 0.028 per sentence) more than the pair noise an extra label saves; on "
        "the figure's log scale the curves overlap and the rise shows only in N·Var."),
    Reproduction(
        "spa_mbic", SPA, "Fig. 6, sparse curve (MBIC)",
        "labels added at random give about the variance of the constant-2 curve",
        REAL, QUALITATIVELY_REPRODUCED,
        "Ratio 0.986 to the constant-2 variance over N = 50–1 777; the paper's curve is "
        "drawn, not tabulated, so it is not compared number for number."),
    Reproduction(
        "spa_mbic", SPA, "Fig. 7 and Table 1, MBIC row",
        "annotations_m1 works well; the weighting has relatively little effect",
        REAL, QUALITATIVELY_REPRODUCED,
        "annotations_m1 has the lowest variance, area −10.38 % ± 0.31 of flat's, lowest in "
        "10 of 10 batches of rounds; the schemes differ from flat by 5.6–10.4 %. Table 1's "
        "numbers are not compared (only its ranking statement is quoted)."),
    Reproduction(
        "snow2008", SNOW, "accuracy and correlation with the experts",
        "the 10-label majority vote is 89.7 % accurate on RTE and 99.4 % on WSD; the workers' "
        "mean correlates 0.952 with the word-similarity gold",
        REAL, REPRODUCED,
        "0.897, 0.994 and 0.952 on the paper's own labels (ties of the vote scored ½). The "
        "paper's values are as the script recalls them, not re-read from the paper; its "
        "expert-vs-worker ITA table is not compared (the experts' individual ratings are "
        "not in the data).",
        "tests/test_snow2008.py::test_majority_vote_accuracy_matches_the_paper, "
        "tests/test_snow2008.py::test_wordsim_mean_correlation_matches_the_paper"),
    Reproduction(
        "annotation_models", HOVY, "abstract: accuracy against the baselines",
        "MACE shows considerable improvements over standard baselines (the majority vote) "
        "in predicted label accuracy",
        REAL, QUALITATIVELY_REPRODUCED,
        "On Snow et al.'s tasks with gold, MACE (EM, smoothing 0.01/K) is right on 0.929 of "
        "RTE against the vote's 0.919 (ties to the first class) or 0.897 (ties split), on "
        "0.942 of TEMP against 0.939 or 0.936, and on 0.994 of WSD as the vote (one item "
        "wrong either way): an improvement on RTE, a small one on TEMP, none on WSD. The "
        "paper's own accuracy table is not compared (not re-read)."),
)


def rows(script: str) -> tuple[Reproduction, ...]:
    """The rows of ``script`` (a module name of ``paper_repro``)."""
    found = tuple(row for row in REPRODUCTIONS if row.script == script)
    if not found:
        raise KeyError(f"paper_repro.status has no row for {script!r}: add one to "
                       f"REPRODUCTIONS")
    return found


def status_text(script: str) -> str:
    """The status lines a script prints at the end of its output."""
    lines = ["Status of this reproduction (full run, default seed; paper_repro/status.py):"]
    for row in rows(script):
        lines.append(f"- {row.paper}, {row.target} — {row.status.upper()} ({row.data})")
        for label, text in (("claim", row.claim), ("full run", row.outcome)):
            lines.append(textwrap.fill(f"{label}: {text}", width=100, initial_indent="    ",
                                       subsequent_indent="      "))
    return "\n".join(lines)


def status_markdown(script: str) -> str:
    """The ``## Status`` section a script adds to its markdown output."""
    table = "\n".join(f"| {row.paper}, {row.target} | **{row.status}** | {row.claim} | "
                      f"{row.data} | {row.outcome} |" for row in rows(script))
    return ("## Status\n\n"
            "Of the full run with the default seed (`paper_repro/status.py`; a `--quick` run "
            "is smaller and noisier):\n\n"
            "| paper, figure or table | status | claim | data | full run |\n"
            "|---|---|---|---|---|\n" + table + "\n")


def markdown_table(compact: bool = False) -> str:
    """The table of every reproduction, as the READMEs hold it: in full
    (``paper_repro/README.md``) or ``compact`` (the repository's README)."""
    if compact:
        head = ["| paper, figure or table | script | data | status |", "|---|---|---|---|"]
        body = [f"| {row.paper}, {row.target} | `{row.script}` | {row.data} | {row.status} |"
                for row in REPRODUCTIONS]
    else:
        head = ["| script | paper, figure or table | claim | data | status | full run |",
                "|---|---|---|---|---|---|"]
        body = [f"| `{row.script}` | {row.paper}, {row.target} | {row.claim} | {row.data} | "
                f"**{row.status}** | {row.outcome} |" for row in REPRODUCTIONS]
    return "\n".join(head + body)
