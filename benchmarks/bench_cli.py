"""The console command end to end: ``kappalab report FILE`` on 1 000 000 annotations.

Target: the whole command in under 10 s.

Data: ``--items`` items (default 200 000) × ``--per-item`` raters each (default 5), drawn
from a pool of ``--pool`` raters (default 50), 4 string categories (each annotation is the
item's true category with probability 0.7, else uniform), ``--missing`` of the values empty
(default 2 %), fixed seed; written as a long CSV (item, rater, value) to a temporary
directory.

Timed:

* end to end: ``python -m kappalab report FILE`` with the default options (analytic
  intervals, table output) in a subprocess, stdout discarded — the figure of the target,
  < 10 s;
* the breakdown, in this process: the import of ``kappalab.cli`` (in a fresh subprocess),
  reading the file into an ``Annotations`` (:func:`kappalab.io.read_annotations`) and
  computing the report (:func:`kappalab.agreement_report` with ``ci="analytic"``).

Correctness check: the subprocess's Krippendorff's α equals the in-process one; with
``--peer``, also the ``krippendorff`` package's α on the same data (slow, off by default).

Run: ``python -m benchmarks.bench_cli [--items N] [--repeat R] [--peer]``.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd

from benchmarks import timing

TARGET_SECONDS = 10.0
CATEGORIES = np.array(["agree", "disagree", "neutral", "unsure"])


def make_long(items: int, per_item: int, pool: int, missing: float, seed: int) -> pd.DataFrame:
    """The long table: every item annotated by ``per_item`` distinct raters of ``pool``."""
    rng = np.random.default_rng(seed)
    raters = np.argpartition(rng.random((items, pool)), per_item, axis=1)[:, :per_item]
    truth = rng.integers(0, len(CATEGORIES), items)
    values = np.where(rng.random((items, per_item)) < 0.7, truth[:, None],
                      rng.integers(0, len(CATEGORIES), (items, per_item)))
    labels = CATEGORIES[values].astype(object).ravel()
    labels[rng.random(labels.size) < missing] = None
    return pd.DataFrame({
        "item": np.repeat([f"item{i:07d}" for i in range(items)], per_item),
        "rater": [f"r{r:02d}" for r in raters.ravel()],
        "value": labels,
    })


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--items", type=int, default=200_000)
    parser.add_argument("--per-item", type=int, default=5)
    parser.add_argument("--pool", type=int, default=50)
    parser.add_argument("--missing", type=float, default=0.02)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--seed", type=int, default=20261201)
    parser.add_argument("--peer", action="store_true",
                        help="also check α against the krippendorff package (slow)")
    args = parser.parse_args(argv)

    import kappalab as kl
    from kappalab.io import read_annotations

    load = timing.header("kappalab report FILE: the console command on 1 000 000 annotations")
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "annotations.csv"
        start = time.perf_counter()
        frame = make_long(args.items, args.per_item, args.pool, args.missing, args.seed)
        frame.to_csv(path, index=False)
        print(f"data: {args.items} items × {args.per_item} of {args.pool} raters, "
              f"{len(CATEGORIES)} categories, {args.missing:.0%} missing -> {len(frame)} rows, "
              f"{timing.fmt_bytes(path.stat().st_size)} CSV (written in "
              f"{time.perf_counter() - start:.1f} s); best of {args.repeat}")

        command = [sys.executable, "-m", "kappalab", "report", str(path)]
        outputs = []

        def end_to_end():
            done = subprocess.run(command, capture_output=True, text=True, check=True)
            outputs.append(done)

        e2e_best, e2e_median, _ = timing.best_of(end_to_end, args.repeat)
        stderr = outputs[-1].stderr.strip()
        print(f"$ {' '.join(command[2:])}  (stderr: {stderr or 'empty'})")

        startup_best, _, _ = timing.best_of(lambda: subprocess.run(
            [sys.executable, "-c", "import kappalab.cli"], check=True), args.repeat)

        def read():
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return read_annotations(str(path))

        read_best, _, ann = timing.best_of(read, args.repeat)
        report_best, _, report = timing.best_of(
            lambda: kl.agreement_report(ann, ci="analytic", seed=0), args.repeat)

    alpha = float(report.set_index("coefficient").loc["Krippendorff's alpha", "value"])
    table = outputs[-1].stdout
    shown = next(line for line in table.splitlines() if "Krippendorff's alpha" in line)
    cli_alpha = float(shown.split("Krippendorff's alpha", 1)[1].split()[0])
    ok = bool(abs(cli_alpha - alpha) < 5e-5)  # the table shows 4 decimals
    if args.peer:
        import krippendorff

        present = frame.dropna(subset=["value"])
        codes = pd.Categorical(present["value"], categories=CATEGORIES).codes
        matrix = np.full((args.pool, args.items), np.nan)
        matrix[present["rater"].str[1:].astype(int).to_numpy(),
               present["item"].str[4:].astype(int).to_numpy()] = codes
        peer = krippendorff.alpha(reliability_data=matrix, level_of_measurement="nominal")
        print(f"krippendorff package: α = {peer:.12f}; kappalab: α = {alpha:.12f}")
        ok = ok and bool(abs(peer - alpha) < 1e-9)

    print(f"end to end (subprocess):       best {e2e_best:.2f} s, median {e2e_median:.2f} s "
          f"(target < {TARGET_SECONDS:.0f} s: {'met' if e2e_best < TARGET_SECONDS else 'MISSED'})")
    print(f"  interpreter + import kappalab.cli: {startup_best:.2f} s")
    print(f"  read_annotations (CSV -> Annotations): {read_best:.2f} s")
    print(f"  agreement_report (analytic SEs): {report_best:.2f} s")
    rest = max(0.0, e2e_best - startup_best - read_best - report_best)
    print(f"  rest (render, output, noise): {rest:.2f} s")
    print(f"Krippendorff's α = {alpha:.6f} (table: {cli_alpha:.4f}); "
          f"check {'ok' if ok else 'FAILED'}")
    load.report()
    timing.emit_result({"benchmark": "cli", "end_to_end_s": e2e_best, "startup_s": startup_best,
                        "read_s": read_best, "report_s": report_best,
                        "target_s": TARGET_SECONDS, "met": e2e_best < TARGET_SECONDS,
                        "ok": ok})
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
