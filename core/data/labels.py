"""Label encoding: label names of any hashable type -> integer codes (the one helper)."""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np
import pandas as pd

from ..base.errors import InputError

__all__ = ["encode_labels"]


def encode_labels(values, classes: Optional[Sequence] = None, *, what: str = "y"):
    """Codes 0..C-1 for ``values`` and the classes they index.

    Parameters
    ----------
    values : (N,) labels of any hashable type.
    classes : sequence, optional
        The class order to use (e.g. `core.data.dataset.Dataset.classes`); every value must
        be one of them. Default: the sorted distinct values (first-seen order when the
        values cannot be ordered, e.g. mixed types).
    what : str
        How messages name the labels (``"y"``, a column name).

    Returns
    -------
    codes : (N,) int64
    classes : ndarray of the classes
    """
    arr = values if isinstance(values, np.ndarray) else np.asarray(values, dtype=object)
    if arr.ndim != 1:
        raise InputError(f"{what} has shape {np.shape(values)}: give one label per example (a 1-D array).")
    if classes is not None:
        codes = pd.Categorical(arr, categories=list(classes)).codes.astype(np.int64)
        uniques = np.asarray(list(classes), dtype=object)
    else:
        try:
            codes, uniques = pd.factorize(arr, sort=True)
        except TypeError:  # mixed, unorderable types: keep first-seen order
            codes, uniques = pd.factorize(arr, sort=False)
        codes = codes.astype(np.int64)
    if (codes < 0).any():
        raise InputError(f"{what} contains missing or unknown labels (None/NaN or a value outside the classes): "
                         "drop those rows or give every row a label.")
    return codes, np.asarray(uniques)
