"""Out-of-core Krippendorff's α on Parquet with Dask against the in-memory path: time and peak
memory.

For each size N (annotations) the data are written once to Parquet under ``--dir`` (files of
``--chunk`` annotations, each holding whole items; 5 annotations per item from a pool of 20
raters, five categories, the values the item's true category or a neighbour). Then, each in a
fresh process so that its peak resident memory (``ru_maxrss``) is its own:

* ``memory``: ``pandas.read_parquet`` and ``kl.krippendorff_alpha(frame, ci="analytic")``;
* ``dask-shuffle``: ``kl.dask_estimate("krippendorff_alpha", dd.read_parquet(dir),
  ci="analytic", partitioned_by_item=False)``, shuffled on the item column (what any frame
  whose items may span files costs);
* ``dask``: the same with the default ``partitioned_by_item=None``: the files' item ranges
  are disjoint, which the first pass finds, so there is no shuffle;
* ``dask-by-item``: the same with ``partitioned_by_item=True`` (each file holds whole items,
  one partition per file), verified by the same item ranges: no shuffle.

The Dask runs use the synchronous scheduler (one core, the least memory) unless
``--scheduler`` says otherwise. The values and standard errors must agree to 1e-9.

Run: ``python -m benchmarks.bench_dask [--annotations 2000000,20000000] [--skip-memory-above N]``.
"""

from __future__ import annotations

import argparse
import json
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks.timing import emit_result, fmt_bytes, fmt_time, header

PER_ITEM, RATERS = 5, 20


def write_parquet(directory: Path, n_annotations: int, chunk: int) -> None:
    """N annotations as Parquet files of ``chunk`` annotations (whole items per file)."""
    done = directory.with_name(directory.name + ".done")  # beside the data set, not in it
    if done.exists():
        return
    shutil.rmtree(directory, ignore_errors=True)
    directory.mkdir(parents=True)
    n_items = n_annotations // PER_ITEM
    per_file = max(1, chunk // PER_ITEM)
    rng = np.random.default_rng(0)
    for number, first in enumerate(range(0, n_items, per_file)):
        items = np.arange(first, min(n_items, first + per_file))
        truth = rng.integers(0, 5, items.size)
        item = np.repeat(items, PER_ITEM)
        offset = rng.integers(0, RATERS, items.size)
        rater = (np.repeat(offset, PER_ITEM) + 3 * np.tile(np.arange(PER_ITEM), items.size)) \
            % RATERS  # five distinct raters per item
        noise = rng.integers(-1, 2, item.size) * (rng.random(item.size) < 0.3)
        value = np.clip(np.repeat(truth, PER_ITEM) + noise, 0, 4)
        frame = pd.DataFrame({"item": item, "rater": rater, "value": value})
        frame.to_parquet(directory / f"part-{number:05d}.parquet", index=False)
    done.touch()


def child(mode: str, directory: str, scheduler: str) -> dict:
    """One measurement, in this process."""
    import kappalab as kl

    start = time.perf_counter()
    if mode == "memory":
        frame = pd.read_parquet(directory)
        read = time.perf_counter() - start
        est = kl.krippendorff_alpha(frame, ci="analytic")
    else:
        import dask.dataframe as dd

        ddf = dd.read_parquet(directory, split_row_groups=False)
        read = 0.0
        claim = {"dask-shuffle": False, "dask": None, "dask-by-item": True}[mode]
        est = kl.dask_estimate("krippendorff_alpha", ddf, ci="analytic",
                               partitioned_by_item=claim, scheduler=scheduler)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return {"mode": mode, "seconds": seconds, "read_s": read, "peak_rss": peak,
            "value": est.value, "se": est.se, "n_items": est.n_items,
            "n_annotations": est.n_annotations}


def measure(mode: str, directory: Path, scheduler: str) -> dict:
    cmd = [sys.executable, "-m", "benchmarks.bench_dask", "--child", mode, "--dir",
           str(directory), "--scheduler", scheduler]
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode:
        raise RuntimeError(f"{mode} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--annotations", default="2000000,20000000",
                        help="comma-separated sizes N")
    parser.add_argument("--dir", default="/tmp/kappalab_bench_dask")
    parser.add_argument("--chunk", type=int, default=1_000_000,
                        help="annotations per Parquet file")
    parser.add_argument("--scheduler", default="synchronous")
    parser.add_argument("--skip-memory-above", type=int, default=10**12,
                        help="do not run the in-memory path above this N")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        print(json.dumps(child(args.child, args.dir, args.scheduler)))
        return 0

    load = header("Krippendorff's alpha out of core (Dask, Parquet) vs in memory")
    rows, agree = [], True
    for n in [int(s) for s in args.annotations.split(",")]:
        directory = Path(args.dir) / f"n{n}"
        start = time.perf_counter()
        write_parquet(directory, n, args.chunk)
        print(f"\nN = {n:,} annotations ({n // PER_ITEM:,} items) in {directory} "
              f"(written in {fmt_time(time.perf_counter() - start)})")
        results = {}
        modes = ["dask-shuffle", "dask", "dask-by-item"] + (
            ["memory"] if n <= args.skip_memory_above else [])
        for mode in modes:
            results[mode] = r = measure(mode, directory, args.scheduler)
            print(f"  {mode:13s} {fmt_time(r['seconds']):>10s}  peak RSS "
                  f"{fmt_bytes(r['peak_rss']):>10s}  alpha = {r['value']:.12f} "
                  f"SE = {r['se']:.3e}")
            rows.append({"annotations": n, **r})
        reference = results.get("memory", results["dask-shuffle"])
        for r in results.values():
            agree &= (abs(r["value"] - reference["value"]) < 1e-9
                      and abs(r["se"] - reference["se"]) < 1e-9 * max(1, reference["se"])
                      and r["n_annotations"] == n)
    print(f"\nvalues and SEs agree across paths: {agree}")
    largest = max(r["annotations"] for r in rows)
    at_largest = {r["mode"]: r for r in rows if r["annotations"] == largest}
    met = ("memory" not in at_largest
           or at_largest["dask-by-item"]["peak_rss"] < at_largest["memory"]["peak_rss"])
    load.report()
    emit_result({"benchmark": "dask", "rows": rows, "agree": agree,
                 "target": "out-of-core peak RSS below in-memory at the largest N",
                 "target_met": met})
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
