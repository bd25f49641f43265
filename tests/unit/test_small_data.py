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


def test_a_file_of_identical_pairs_is_certified_with_a_note_that_says_so(tmp_path, capsys):
    import json

    from core.cli import main

    rows = [{"prompt": f"q{i}", "chosen": f"same answer {i % 7}", "rejected": f"same answer {i % 7}"} for i in range(40)]
    (tmp_path / "same.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["certify", str(tmp_path / "same.jsonl"), "--folds", "3", "--out", str(tmp_path / "c.json")]) == 0
    err = capsys.readouterr().err
    assert "40 pairs of 40 are degenerate" in err and "no pair can teach a preference" in err
