"""Shared test data builders, and the closing line on the real-data tests that skipped."""

import numpy as np
import pandas as pd
import pytest

#: how a test that needs the real data begins its skip reason where the files are absent
REAL_DATA_SKIP = "real data absent"


@pytest.fixture
def crowd():
    """A builder of sparse crowd data as a long DataFrame: ``per_item`` distinct raters of a
    pool of ``n_raters`` on each item, labels right with probability 0.7 (else uniform)."""
    def build(n_annotations, n_raters, per_item=3, n_categories=3, seed=0):
        rng = np.random.default_rng(seed)
        n_items = n_annotations // per_item
        items = np.repeat(np.arange(n_items), per_item)
        raters = np.concatenate([rng.choice(n_raters, per_item, replace=False)
                                 for _ in range(n_items)])
        truth = rng.integers(0, n_categories, n_items)
        labels = np.where(rng.random(items.size) < 0.7, truth[items],
                          rng.integers(0, n_categories, items.size))
        return pd.DataFrame({"item": items, "rater": raters, "value": labels})

    return build


def skip_reason(report) -> str:
    longrepr = report.longrepr
    return longrepr[2] if isinstance(longrepr, tuple) and len(longrepr) == 3 else str(longrepr)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_terminal_summary(terminalreporter):
    """After pytest's own summary (``-ra`` included), one line: how many real-data tests
    skipped, where the files were sought, and how to get them."""
    result = yield
    skipped = [report for report in terminalreporter.stats.get("skipped", [])
               if REAL_DATA_SKIP in skip_reason(report)]
    if skipped:
        from kappalab.datasets import data_folder

        count = f"{len(skipped)} real-data test{'s' if len(skipped) > 1 else ''} skipped"
        terminalreporter.write_line(
            f"{count}: the original files are not in {data_folder()}; set KAPPALAB_DATA to a "
            "folder holding them, or download them once with kappalab.datasets.fetch "
            "(the [data] extra; see the README)", yellow=True, bold=True)
    return result
