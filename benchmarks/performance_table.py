"""Rewrite the peer table of docs/performance.md from the JSON of a benchmark run.

Run from the repository root: ``python -m benchmarks.performance_table RESULT.json``, where
``RESULT.json`` is what ``python -m benchmarks.run_all`` writes to ``results/bench/`` (the
results of every benchmark of the run) or what ``python -m benchmarks.bench_peers --json``
writes (its results alone). The text between the two marker comments of the page
(``<!-- peer-table:start -->`` and ``<!-- peer-table:end -->``) is replaced by the tables of
``benchmarks.bench_peers``: the date, the machine, the other processes' load, the ratio
kappalab / peer at each size, the floors, the fixed costs, the peak memory and the list of
cells still above 1.0. The rest of the page is left as it is. ``--check`` prints the new text
instead of writing it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "performance.md"
START = "<!-- peer-table:start -->"
END = "<!-- peer-table:end -->"


def peers_result(run: dict[str, Any]) -> dict[str, Any]:
    """The bench_peers payload of a run_all JSON, or the payload itself."""
    for result in [run, *run.get("results", {}).values()]:
        if result and result.get("benchmark") == "peers":
            if result.get("only") is not None:
                raise SystemExit(f"the JSON holds a partial bench_peers run (--only "
                                 f"{result['only']!r}): the page takes a whole run")
            return result
    raise SystemExit("the JSON holds no bench_peers result")


def size_name(n: int) -> str:
    return f"{n // 1_000_000} M" if n >= 1_000_000 else f"{n:,}".replace(",", " ")


def seconds(s: float | None) -> str:
    if s is None:
        return "n/a"
    if s < 1e-3:
        return f"{s * 1e6:.0f} µs"
    if s < 1:
        return f"{s * 1e3:.2f} ms"
    return f"{s:.2f} s"


def mib(n: float | None) -> str:
    return "n/a" if n is None else f"{n / 2**20:.1f} MiB"


def cell_text(cell: dict[str, Any]) -> str:
    if cell["status"] == "ok":
        text = f"{cell['ratio']:.2f} ({cell['ratio_min']:.2f}–{cell['ratio_max']:.2f})"
        if not cell["agree"]:
            text += f" DISAGREE {cell['diff']:.1e}"
        return f"**{text}**" if cell["ratio"] > 1.0 or not cell["agree"] else text
    if not cell["agree"]:  # kappalab failed
        return f"**FAILED: {cell['note']}**"
    if cell["status"] == "not run":
        if cell.get("ratio_max") is not None:  # the peer extrapolated, kappalab timed
            return f"< {cell['ratio_max']:.2g} (peer {cell['note']})"
        alone = "" if cell.get("kl_s") is None else f" (kappalab {seconds(cell['kl_s'])})"
        return f"not run: {cell['note']}{alone}"
    return "error: " + ": ".join(cell["note"].split(": ")[:2])  # who failed, and how


def render(result: dict[str, Any]) -> str:
    sizes = result["sizes"]
    share = result.get("others_cpu_share")
    load = "unknown" if share is None else f"{share:.0%}"
    out = [
        f"Measured on {result['date']} with `python -m benchmarks.bench_peers` "
        f"(sizes up to {size_name(sizes[-1])} annotations, up to {result['repeat']} "
        f"interleaved pairs per cell, `OMP_NUM_THREADS={result['omp_num_threads']}`), "
        f"on {result['machine']}; other processes used {load} of all CPUs while it ran "
        f"(above a few percent the times are inflated; the ratios compare two timings made "
        f"in the same process under the same load). The run took "
        f"{result['wall_s'] / 60:.0f} minutes. Peers: "
        + ", ".join(f"{name} {version}" for name, version in result["peers"].items()) + ".",
        "",
        "Each cell is kappalab's time divided by the peer's, median of the interleaved pairs "
        "(in brackets the smallest and largest ratio of one pair); below 1.0 kappalab is "
        "faster, **bold** cells are above 1.0. Every value that ran agreed with the peer's "
        "to 1e-9." if result["agree"] else
        "Each cell is kappalab's time divided by the peer's (median; brackets: spread). "
        "**Some values disagreed with the peer's** (marked DISAGREE).",
        "",
        "| work | kappalab's input | peer | " + " | ".join(size_name(s) for s in sizes) + " |",
        "|---|---|---|" + "---|" * len(sizes),
    ]
    for row in result["table"]:
        cells = {c["size"]: c for c in row["cells"]}
        out.append(f"| {row['work']} | {row['kl_input']} | {row['peer']} | "
                   + " | ".join(cell_text(cells[s]) if s in cells else "" for s in sizes)
                   + " |")
    out += ["", "Cells still > 1.0 (kappalab slower than the peer):", ""]
    slower = [(row, c) for row in result["table"] for c in row["cells"]
              if c["status"] == "ok" and c["ratio"] > 1.0]
    for row, c in slower:
        fixed = "" if c.get("fixed_ratio") is None else (
            f"; kappalab's fixed cost, its call on {result.get('fixed_cost_size')} annotations, "
            f"{seconds(c['fixed_s'])}: {c['fixed_ratio']:.2f}× the peer's call")
        out.append(f"- {row['work']} from the {row['kl_input']} against {row['peer']} at "
                   f"{size_name(c['size'])}: {c['ratio']:.2f} ({seconds(c['kl_s'])} against "
                   f"{seconds(c['peer_s'])}{fixed})")
    if not slower:
        out.append("- none")
    if result.get("floors"):
        out += ["", "Against the floor (the least work: `pd.factorize` of the key columns, and "
                "of the value column when it is categorical, and one `np.bincount`; see "
                "`benchmarks/bench_peers.py`), the project's targets:", "",
                "| work | annotations | kappalab | floor | ratio (spread) | bound |",
                "|---|---|---|---|---|---|"]
        for f in result["floors"]:
            verdict = "met" if f["met"] else "**missed**"
            out.append(f"| {f['work']} | {size_name(f['size'])} | {seconds(f['kl_s'])} | "
                       f"{seconds(f['floor_s'])} | {f['ratio']:.2f} ({f['ratio_min']:.2f}–"
                       f"{f['ratio_max']:.2f}) | ≤ {f['bound']:g}×: {verdict} |")
    o = result.get("overheads") or {}
    if o:
        out += ["", "Fixed costs:", "",
                f"- per call at 1 000 annotations, nominal α: {seconds(o['per_call_wide_s'])} "
                f"from the items × raters array, {seconds(o['per_call_long_s'])} from the long "
                "DataFrame (best of 5 × 50 calls; target ≤ 0.3 ms);",
                f"- the first α call in a fresh process {seconds(o['first_call_s'])}, a later "
                f"one {seconds(o['later_call_s'])}: {o['first_call_ratio']:.1f}× (target ≤ 5×);",
                f"- `import kappalab` {seconds(o['import_kappalab_s'])} against `import numpy, "
                f"pandas` {seconds(o['import_numpy_pandas_s'])}: {o['import_ratio']:.2f}× "
                "(target ≤ 1.2×; fresh processes, interleaved, medians; with Python's bytecode "
                "cache, as an installed package is imported)."]
    if result.get("memory"):
        out += ["", "Peak memory of one call (`tracemalloc`, in a fresh process, inputs built "
                "before it starts; target: kappalab ≤ 2× the best peer):", "",
                "| work | library | peak | / best peer |", "|---|---|---|---|"]
        for m in result["memory"]:
            peers = [p["peak_bytes"] for p in result["memory"] if p["work"] == m["work"]
                     and not p["who"].startswith("kappalab") and p["peak_bytes"]]
            ratio = ""
            if m["who"].startswith("kappalab") and peers and m["peak_bytes"]:
                value = m["peak_bytes"] / min(peers)
                ratio = f"**{value:.2f}**" if value > 2 else f"{value:.2f}"
            out.append(f"| {m['work']} | {m['who']} | {mib(m['peak_bytes'])} | {ratio} |")
    return "\n".join(out)


def rewrite(page_text: str, table: str) -> str:
    if START not in page_text or END not in page_text:
        raise SystemExit(f"{PAGE.name} has no {START} … {END} markers")
    head, rest = page_text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table}\n{END}{tail}"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("result", type=Path, help="JSON of run_all or of bench_peers --json")
    parser.add_argument("--page", type=Path, default=PAGE)
    parser.add_argument("--check", action="store_true", help="print, do not write")
    args = parser.parse_args(argv)
    table = render(peers_result(json.loads(args.result.read_text())))
    new = rewrite(args.page.read_text(encoding="utf-8"), table)
    if args.check:
        print(table)
    else:
        args.page.write_text(new, encoding="utf-8")
        print(f"{args.page}: peer table rewritten from {args.result}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
