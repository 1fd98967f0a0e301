"""Coefficient families, each one core on the item-sum spine (see :mod:`.base`)."""
