"""Training dynamics on Φ (`core.dynamics.cartography`, issue 23) on synthetic data with known truth: labels
flipped on 10 % are found by low confidence and by cleanlab, examples placed between two classes
by variability; reproducible; bad input is one clear error; a device trains the same models."""
import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from sklearn.metrics import roc_auc_score

from artifact_lens.dynamics.cartography import REGIONS, training_dynamics
from artifact_lens.base.errors import InputError


def blobs(n=3000, d=24, k=3, flip_share=0.10, between_share=0.10, seed=0):
    """Gaussian classes that overlap a little; ``flip_share`` of the labels changed to another
    class; ``between_share`` of the examples placed midway between their class and another."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    centers = rng.normal(size=(k, d)) * 1.5
    X = centers[y] + rng.normal(size=(n, d))
    between = rng.random(n) < between_share
    other = (y + rng.integers(1, k, n)) % k
    X[between] = (0.5 * (centers[y] + centers[other]) + rng.normal(size=(n, d)))[between]
    flipped = (rng.random(n) < flip_share) & ~between
    noisy = y.copy()
    noisy[flipped] = other[flipped]
    return X.astype(np.float32), noisy, flipped, between


@pytest.fixture(scope="module")
def mapped():
    X, y, flipped, between = blobs()
    return training_dynamics(X, y, epochs=8, random_state=0), flipped, between


def test_flipped_labels_have_low_confidence_and_cleanlab_flags_them(mapped):
    carto, flipped, _ = mapped
    t = carto.table
    assert roc_auc_score(flipped, -t["confidence"]) > 0.9
    flagged = t["label_issue"].to_numpy()
    precision = (flagged & flipped).sum() / flagged.sum()
    recall = (flagged & flipped).sum() / flipped.sum()
    assert precision > 0.6 and recall > 0.6, (precision, recall)
    assert roc_auc_score(flipped, -t["label_quality"]) > 0.9
    # a flipped example is mostly hard-to-learn; a clean one mostly not
    assert (t["region"][flipped] == "hard-to-learn").mean() > 0.5 > (t["region"][~flipped] == "hard-to-learn").mean()


def test_examples_between_classes_vary_more(mapped):
    carto, flipped, between = mapped
    t = carto.table
    clean = ~flipped & ~between
    assert t["variability"][between].mean() > t["variability"][clean].mean()
    assert (t["region"][between] == "ambiguous").mean() > (t["region"][clean] == "ambiguous").mean()


def test_the_columns_and_regions_are_what_the_docs_say(mapped):
    carto, _, _ = mapped
    t = carto.table
    assert list(t.columns) == ["id", "label", "confidence", "variability", "correctness", "region", "label_quality",
                               "label_issue"]
    assert set(t["region"]) <= set(REGIONS)
    assert t["confidence"].between(0, 1).all() and t["correctness"].between(0, 1).all()
    assert np.allclose(t["confidence"], carto.gold_probs.mean(axis=1), atol=1e-6)
    ambiguous = t["region"] == "ambiguous"
    assert abs(ambiguous.mean() - 1 / 3) < 0.01                      # the top third by variability
    assert (t.loc[~ambiguous & (t["confidence"] >= 0.5), "region"] == "easy-to-learn").all()
    assert carto.params["variant"] == "cross-fitted" and carto.summary()["examples"] == len(t)


def test_reproducible_and_the_mlp_and_in_sample_variants():
    X, y, flipped, _ = blobs(n=900, seed=1)
    a = training_dynamics(X, y, epochs=4, random_state=3)
    b = training_dynamics(X, y, epochs=4, random_state=3)
    assert a.table.equals(b.table)
    mlp = training_dynamics(X, y, epochs=4, model="mlp", hidden=32, random_state=3)
    assert roc_auc_score(flipped, -mlp.table["confidence"]) > 0.8
    inside = training_dynamics(X, y, epochs=4, folds=1)
    assert "label_issue" not in inside.table and inside.params["variant"] == "in-sample"
    assert "give folds ≥ 2" in inside.params["notes"][0]


@pytest.mark.parametrize("kwargs, message", [
    ({"epochs": 1}, "epochs must be a whole number from 2"),
    ({"folds": 0}, "folds must be a whole number from 1"),
    ({"model": "tree"}, "model 'tree' is unknown"),
    ({"ambiguous_share": 1.0}, "ambiguous_share must be a number strictly between 0 and 1"),
    ({"epochs": True}, "epochs must be a whole number"),
    ({"lr": 0}, "lr must be a number in"),
])
def test_bad_settings_are_one_clear_error(kwargs, message):
    X, y, _, _ = blobs(n=60)
    with pytest.raises(InputError, match=message):
        training_dynamics(X, y, **kwargs)


def test_bad_data_is_one_clear_error():
    X, y, _, _ = blobs(n=60)
    bad = X.copy()
    bad[3, 2] = np.nan
    with pytest.raises(InputError, match="NaN or infinite"):
        training_dynamics(bad, y)
    with pytest.raises(InputError, match="at least two labels"):
        training_dynamics(X, np.zeros(len(X), int))
    with pytest.raises(InputError, match="one label per row"):
        training_dynamics(X, y[:-1])


_DEVICES = ("array-api-strict",) + (("torch",) if importlib.util.find_spec("torch") is not None else ())


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), n=st.integers(40, 400), d=st.integers(1, 20), k=st.integers(2, 4),
       model=st.sampled_from(["linear", "mlp"]), folds=st.integers(1, 4), batch_size=st.integers(1, 500))
def test_a_device_trains_the_same_models_as_numpy(seed, n, d, k, model, folds, batch_size):
    """`device=` (issue 32) trains from the same initial weights on the same batches: the map agrees
    with NumPy's up to float32 rounding, whatever the shapes (a batch larger than the data, one
    feature, in-sample), and records where it ran. `array-api-strict` fails on any call outside the
    array API, so this also checks the training is written against the standard alone (what
    PyTorch and CuPy run)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    X = (rng.normal(size=(n, d)) + y[:, None] * 0.4).astype(np.float32)
    kw = dict(epochs=3, model=model, folds=folds, batch_size=batch_size, hidden=8, random_state=seed % 89,
              label_issues=False)
    cpu = training_dynamics(X, y, **kw)
    assert cpu.params["device"] == "cpu"
    for device in _DEVICES:
        other = training_dynamics(X, y, device=device, **kw)
        assert other.params["device"] == device
        assert np.allclose(other.gold_probs, cpu.gold_probs, atol=1e-4), device
        assert (other.table["region"] == cpu.table["region"]).mean() > 0.95
        assert other.table["id"].equals(cpu.table["id"])


def test_a_device_that_is_unknown_or_missing_is_one_clear_error_before_any_work():
    X, y, _, _ = blobs(n=60)
    with pytest.raises(InputError, match="device='tpu' is not known"):
        training_dynamics(X, y, device="tpu")
    if importlib.util.find_spec("cupy") is None:
        with pytest.raises(InputError, match="needs CuPy"):
            training_dynamics(X, y, device="cupy")


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), n=st.integers(30, 300), model=st.sampled_from(["linear", "mlp"]),
       folds=st.integers(1, 5), n_jobs=st.integers(2, 6))
def test_folds_trained_at_once_give_the_map_of_folds_trained_one_after_another(seed, n, model, folds, n_jobs):
    """Issue 32: the folds train on every core, each replaying its own share of the seed's random
    numbers, so the map is bit for bit the one-fold-at-a-time map, whatever ``n_jobs``."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    X = (rng.normal(size=(n, 6)) + y[:, None] * 0.5).astype(np.float32)
    kw = dict(epochs=3, model=model, folds=folds, hidden=8, batch_size=32, random_state=seed % 13, label_issues=False)
    alone, together = training_dynamics(X, y, n_jobs=1, **kw), training_dynamics(X, y, n_jobs=n_jobs, **kw)
    assert np.array_equal(alone.gold_probs, together.gold_probs)
    assert alone.table.equals(together.table)


def test_progress_reaches_the_end_and_a_cancel_stops_every_fold():
    from artifact_lens.base.progress import Cancelled

    X, y, _, _ = blobs(n=600)
    seen = []
    training_dynamics(X, y, epochs=3, folds=3, n_jobs=2, progress=lambda f, msg="": seen.append((f, msg)))
    assert seen[-1][0] == 1.0 and "9 of 9 epochs" in seen[-1][1]
    assert [f for f, _ in seen] == sorted(f for f, _ in seen)

    class Cancel:   # set once the first few epochs have asked
        asked = 0

        def is_set(self):
            Cancel.asked += 1
            return Cancel.asked > 4

    with pytest.raises(Cancelled):
        training_dynamics(X, y, epochs=50, folds=3, n_jobs=2, cancel=Cancel())
    assert Cancel.asked < 3 * 50   # the folds stopped; they did not run their epochs to the end


def test_folds_at_once_are_bounded_by_the_free_memory(monkeypatch):
    """Each fold holds a standardised copy of Φ: with room for one, the folds train one at a time
    (and the map is the same)."""
    import artifact_lens.base.memory as memory

    X, y, _, _ = blobs(n=600)
    said = []
    free = training_dynamics(X, y, epochs=2, folds=3, n_jobs=3, progress=lambda f, m="": said.append(m))
    assert "3 at once" in said[-1]
    monkeypatch.setattr(memory, "available_memory", lambda: 3 * X.nbytes)
    said.clear()
    tight = training_dynamics(X, y, epochs=2, folds=3, n_jobs=3, progress=lambda f, m="": said.append(m))
    assert "1 at once" in said[-1] and np.array_equal(free.gold_probs, tight.gold_probs)
