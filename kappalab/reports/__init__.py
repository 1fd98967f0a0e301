"""Who and what drive agreement: one row per rater (:mod:`.raters`) and per item
(:mod:`.items`), computed on the item-sum spine."""
