"""Shared test data builders."""

import numpy as np
import pandas as pd
import pytest


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
