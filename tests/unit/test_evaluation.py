"""Accuracy on full / filtered / random subsets, and KNN-distance bias."""
import numpy as np
import pytest

from artifact_lens.aflite import AFLite, random_subset
from artifact_lens.data.demos import make_circles
from artifact_lens.base.errors import InputError
from artifact_lens.evaluation import knn_distances, subset_accuracy


def test_filtered_subset_is_harder_than_a_random_one_of_equal_size():
    ds = make_circles(n=1200, random_state=1)
    X = np.stack(ds.table[ds.embedding].to_numpy()).astype(np.float32)
    y = ds.y
    kept = AFLite(n_partitions=32, slice_size=0.05, tau=0.0, target_size=0.3, random_state=0).fit(X, y).retained_
    subsets = {"full": np.ones(len(y), bool), "filtered": kept, "random": random_subset(len(y), int(kept.sum()))}
    acc = subset_accuracy(X, y, subsets).set_index("subset")["accuracy"]
    assert acc["full"] > 0.75 and acc["random"] > 0.75  # the planted bias makes it linearly solvable
    assert acc["filtered"] < acc["random"] - 0.15


def test_knn_distances_grow_when_near_duplicates_are_filtered_out():
    rng = np.random.default_rng(0)
    base = rng.normal(size=(400, 8)).astype(np.float32)
    X = np.vstack([base, base + 1e-3 * rng.normal(size=base.shape)]).astype(np.float32)
    y = np.tile(np.arange(4), 100)
    y = np.concatenate([y, y])
    retained = np.r_[np.ones(400, bool), np.zeros(400, bool)]  # drop every near-duplicate copy
    table = knn_distances(X, y, retained, ks=(1, 5), held_out=0.2, random_state=0)
    same = table[(table.against == "same class") & (table.K == 1)]
    assert len(same) == 4
    assert (same["after"] > same["before"]).all()
    assert (table["change"] == table["after"] - table["before"]).all()


@pytest.mark.parametrize(
    "kwargs, message",
    [({"ks": (0,)}, "positive neighbourhood sizes"), ({"held_out": 1.5}, "fraction in")],
)
def test_knn_bad_input(kwargs, message):
    X = np.ones((20, 3), np.float32)
    y = np.tile([0, 1], 10)
    with pytest.raises(InputError, match=message):
        knn_distances(X, y, np.ones(20, bool), **kwargs)


def test_subset_accuracy_bad_input():
    X = np.random.default_rng(0).normal(size=(30, 2))
    y = np.tile([0, 1, 2], 10)
    with pytest.raises(InputError, match="too few examples per label"):
        subset_accuracy(X, y, {"tiny": np.r_[np.ones(6, bool), np.zeros(24, bool)]})
    with pytest.raises(InputError, match="one per example"):
        subset_accuracy(X, y, {"wrong": np.ones(5, bool)})
    with pytest.raises(InputError, match="unknown model family"):
        subset_accuracy(X, y, {"all": np.ones(30, bool)}, families=("forest",))
