"""Run every kappalab speed benchmark in turn and print a summary table (``make bench``).

Run from the repository root: ``python -m benchmarks.run_all [--quick]``. Each benchmark runs
as ``python -m benchmarks.<name>`` in its own process, from the repository root (so one's
memory and thread state do not leak into the next); its output is shown as it runs and its
final ``RESULT {...}`` JSON line is collected for the summary. ``--quick`` runs a smaller smoke
test (sizes ÷ 10, fewer repeats); for other sizes run a benchmark module directly (each takes
``--items``, ``--repeat``). ``--only bench_peers …`` runs only the benchmarks named.

The RESULT of every benchmark of the run is written to ``results/bench/run_all-<time>.json``
and ``results/bench/latest.json`` (untracked); ``python -m benchmarks.performance_table
results/bench/latest.json`` rewrites the peer table of docs/performance.md from it (``make
bench`` runs both).

Exit status: non-zero when a benchmark fails its correctness checks (values disagreeing
with the peer library or the reference formula) or crashes. Missing a speed target is
reported in the table, not turned into a failure.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the repository root: benchmarks/ is a package

BENCHMARKS = [
    ("bench_alpha_nominal", [], ["--items", "20000", "--repeat", "3"]),
    ("bench_alpha_interval", [], ["--items", "20000", "--repeat", "3"]),
    ("bench_alpha_accuracy", [], ["--annotations", "1000000", "--repeat", "2"]),
    ("bench_cross_kappa", [], ["--sizes", "200,500", "--annotations", "100000",
                               "--repeat", "3"]),
    ("bench_normalized", [], ["--items", "20000", "--repeat", "10"]),
    ("bench_bootstrap", [], ["--items", "10000", "--repeat", "2", "--peer-replicates", "2"]),
    ("bench_report", [], ["--annotations", "20000", "--raters", "600", "--repeat", "1",
                          "--light-raters", "20"]),
    ("bench_memory", [], ["--items", "100000"]),
    ("bench_ingest", [], ["--pairs", "100000", "--rows", "1000000", "--repeat", "2"]),
    ("bench_cli", [], ["--items", "20000"]),
    ("bench_dask", ["--annotations", "2000000"],
     ["--annotations", "200000", "--chunk", "50000"]),
    ("bench_bayes_compile", [], ["--items", "100", "--repeat", "2", "--draws", "200",
                                 "--models", "interval,nominal"]),
    ("bench_large_items", [], ["--items", "100000", "--repeat", "3"]),
    ("bench_annotators", [], ["--annotations", "100000,1000000", "--repeat", "1"]),
    ("bench_peers", [], ["--quick"]),
]
RESULTS = ROOT / "results" / "bench"  # the JSON of each run (untracked)


def run(module: str, extra: list[str]) -> tuple[int, dict | None, float]:
    """Run ``python -m benchmarks.<module> extra...`` from the repository root."""
    cmd = [sys.executable, "-m", f"benchmarks.{module}", *extra]
    print(f"\n$ {' '.join(cmd)}", flush=True)
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            cwd=ROOT)
    result = None
    assert proc.stdout is not None
    for line in proc.stdout:
        sys.stdout.write(line)
        sys.stdout.flush()
        if line.startswith("RESULT "):
            result = json.loads(line[len("RESULT "):])
    code = proc.wait()
    return code, result, time.perf_counter() - start


def ms(seconds) -> str:
    return "n/a" if seconds is None else f"{seconds * 1e3:.1f} ms"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small sizes, for a smoke run")
    parser.add_argument("--only", nargs="+", metavar="BENCHMARK",
                        help="run only these benchmarks (e.g. bench_peers)")
    args = parser.parse_args(argv)

    outcomes = []
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    for module, full, quick in BENCHMARKS:
        if args.only and module not in args.only:
            continue
        outcomes.append((module, *run(module, quick if args.quick else full)))
    saved = save(outcomes, started, args.quick)

    rows = []
    failed = False
    for module, code, result, wall in outcomes:
        if result is None:
            rows.append((module, "CRASHED", f"exit {code}", "", "", f"{wall:.0f} s", "?"))
            failed = True
            continue
        correct = result.get("agree", result.get("checks_ok", result.get("ok")))
        failed |= code != 0 or not correct
        if result["benchmark"] == "alpha_nominal":
            measured = (f"kappalab {ms(result['kappalab_s'])} vs krippendorff "
                        f"{ms(result['krippendorff_s'])}: {result['speedup']:.2f}x faster")
        elif result["benchmark"] == "alpha_accuracy":
            measured = (f"{result['annotations']} annotations: |α − exact| = "
                        f"{result['abs_error']:.2g}, estimator {ms(result['estimator_s'])}")
        elif result["benchmark"] == "bootstrap_alpha":
            measured = (f"2000 replicates {ms(result['bootstrap_s'])} / one estimate "
                        f"{ms(result['one_estimate_s'])} = {result['ratio']:.1f}x; "
                        f"peer route {result['peer_extrapolated_s']:.0f} s")
        elif result["benchmark"] == "report_crowd":
            measured = (f"agreement_report {ms(result['report_s'])}, with analytic SEs "
                        f"{ms(result['report_analytic_s'])}; Light's kappa + SE "
                        + ", ".join(f"{r['raters']} raters {ms(r['kappalab_s'])}"
                                    for r in result["light"]))
        elif result["benchmark"] == "many_labels":
            measured = (f"{result['categories']} labels: " + ", ".join(
                f"{r['coefficient']} {ms(r['seconds'])} / {r['peak_bytes'] / 2**20:.0f} MiB"
                for r in result["rows"]))
        elif result["benchmark"] == "ingest":
            measured = (f"cohen_kappa/sklearn {result['cohen_int64_ratio']:.2f}x (int), "
                        f"{result['cohen_string_ratio']:.2f}x (str); from_long/floor "
                        f"{result['from_long_ratio']:.2f}x at {result['rows']} rows")
            result.setdefault("target", "cohen <= 1x, from_long <= 2x")
            result.setdefault("target_met", max(result["cohen_int64_ratio"],
                                                result["cohen_string_ratio"]) <= 1
                              and result["from_long_ratio"] <= 2)
        elif result["benchmark"] == "dask":
            measured = "; ".join(
                f"{r['annotations']} ann. {r['mode']} {r['seconds']:.1f} s / "
                f"{r['peak_rss'] / 2**20:.0f} MiB" for r in result["rows"])
        elif result["benchmark"] == "large_items":
            measured = ", ".join(f"{r['case']} {ms(r['median_s'])} ({ms(r['min_s'])}–"
                                 f"{ms(r['max_s'])})" for r in result["rows"])
            measured = f"{result['items']} items: medians {measured}"
        elif result["benchmark"] == "cli":
            measured = (f"kappalab report end to end {result['end_to_end_s']:.2f} s (read "
                        f"{result['read_s']:.2f} s, report {result['report_s']:.2f} s)")
            result.setdefault("target", f"< {result['target_s']:g} s")
            result.setdefault("target_met", result["met"])
        elif result["benchmark"] == "normalized_cross_kappa":
            measured = "normalized / cross_kappa " + ", ".join(
                f"{r['level']} ci={r['ci']} {r['ratio']:.2f}x" for r in result["rows"])
        elif result["benchmark"] == "peers":
            cells = [c for r in result["table"] for c in r["cells"] if c["status"] == "ok"]
            floors = result["floors"]
            overheads = result["overheads"]
            measured = (f"{result['slower']} of {len(cells)} cells > 1.0 (worst "
                        f"{max(c['ratio'] for c in cells):.2f}); floors met "
                        f"{sum(f['met'] for f in floors)}/{len(floors)}; per call "
                        f"{overheads['per_call_wide_s'] * 1e6:.0f} µs; import "
                        f"{overheads['import_ratio']:.2f}× numpy+pandas")
        elif result["benchmark"] == "bayes_compile":
            measured = ", ".join(
                f"{r['model']}: first {r['first_s']:.1f} s, later {r['cached_s']:.2f} s "
                f"= {r['ratio']:.2f}x sampling (uncached {r['uncached_s']:.1f} s)"
                for r in result["rows"])
            result.setdefault("target", f"later fits <= {result['target_ratio']:g}x sampling")
            result.setdefault("target_met", result["met"])
        else:
            ratio = result["ratio"]
            error = result.get("estimator_error")
            estimator = ms(result["estimator_s"]) if not error else error.split(":")[0]
            measured = (f"estimator {estimator} / bincount {ms(result['bincount_s'])} = "
                        + ("n/a" if ratio is None else f"{ratio:.2f}x")
                        + (f" CPU (spread {result['ratio_min']:.2f}–{result['ratio_max']:.2f}x; "
                           f"wall {result['wall_ratio']:.2f}x)"
                           if result.get("ratio_min") is not None else "")
                        + f"; ingest {ms(result['ingest_s'])}")
        rows.append((
            f"{result['benchmark']}"
            + (f" ({result['annotations']} ann.)" if "annotations" in result else ""),
            measured,
            result["target"],
            "met" if result["target_met"] else "MISSED",
            "agree" if correct else "DISAGREE",
            f"{wall:.0f} s",
            "?" if result.get("others_cpu_share") is None
            else f"{result['others_cpu_share']:.0%}",
        ))

    print("\n" + "=" * 78)
    print("SUMMARY")
    print("=" * 78)
    header = ("benchmark", "measured", "target", "speed", "values", "wall", "other load")
    widths = [max(len(str(r[i])) for r in rows + [header]) for i in range(len(header))]
    for row in [header, tuple("-" * w for w in widths), *rows]:
        print("  ".join(str(cell).ljust(w) for cell, w in zip(row, widths)).rstrip())
    print("('other load' = share of all CPUs used by other processes during the run; above a "
          "few % the times are inflated — rerun on a quiet machine.)")
    print(f"results of this run: {saved} (docs/performance.md's peer table: "
          f"python -m benchmarks.performance_table {saved.relative_to(ROOT)})")
    return 1 if failed else 0


def save(outcomes: list, started: str, quick: bool) -> Path:
    """Write every benchmark's RESULT of this run to results/bench/ (and latest.json)."""
    RESULTS.mkdir(parents=True, exist_ok=True)
    payload = {"started": started, "quick": quick,
               "finished": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
               "results": {module: result for module, _, result, _ in outcomes},
               "exit_codes": {module: code for module, code, _, _ in outcomes},
               "wall_s": {module: wall for module, _, _, wall in outcomes}}
    text = json.dumps(payload, indent=1, default=float)
    path = RESULTS / f"run_all-{time.strftime('%Y%m%d-%H%M%S', time.gmtime())}.json"
    path.write_text(text)
    (RESULTS / "latest.json").write_text(text)
    return path


if __name__ == "__main__":
    sys.exit(main())
