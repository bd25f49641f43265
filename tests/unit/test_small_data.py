"""Small and degenerate data says what it did (issue 53, item 10): PVI with the knn family on folds
too small for its K neighbours is refused by name instead of reading 0 for every example."""
import numpy as np
import pytest

from core.base.errors import InputError
from core.evaluation.information import pvi
from core.models.families import KNN_K


def _data(n, seed=0):
    rng = np.random.default_rng(seed)
    y = np.arange(n) % 2
    X = (rng.normal(size=(n, 4)) + y[:, None]).astype("float32")
    return X, y


@pytest.mark.parametrize("n, folds", [(12, 2), (18, 5), (KNN_K + 3, 2)])
def test_knn_pvi_on_folds_smaller_than_its_k_is_refused(n, folds):
    X, y = _data(n)
    with pytest.raises(InputError, match=f"K = {KNN_K} neighbours.*every PVI would be 0"):
        pvi(X, y, family="knn", folds=folds)


def test_knn_pvi_with_enough_rows_says_something():
    X, y = _data(200)
    out = pvi(X, y, family="knn", folds=5)
    assert np.abs(out.table["pvi"].to_numpy()).max() > 0.1
