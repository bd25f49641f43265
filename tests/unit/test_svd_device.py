"""Issue 57, item 2: ``tfidf-svd``'s truncated SVD on a device (`core.representations.svd`). CI has
no GPU: the device code runs on NumPy through the array API and on `array-api-strict`, the
standard's reference namespace (the sparse products on the host, as a namespace without sparse
matrices computes them). QR in place of LU keeps the subspace, so the components, Φ and what Φ
tells of the labels are the host's up to rounding."""
import numpy as np
import pandas as pd
import scipy.sparse as sp
from hypothesis import HealthCheck, given, settings, strategies as st

from artifact_lens.base.devices import computing_on, current
from artifact_lens.representations.svd import RandomizedSVD


def _matrix(seed: int, shape, rank: int = 6):
    """A sparse matrix with a few strong, well separated directions plus sparse noise."""
    rng = np.random.default_rng(seed)
    n, v = shape
    left, right = rng.normal(size=(n, rank)), rng.normal(size=(rank, v))
    strength = 3.0 ** -np.arange(rank)          # singular values a factor 3 apart: each component well defined
    dense = (left * strength) @ right
    dense[rng.random(shape) > 0.3] = 0.0
    return sp.csr_matrix(dense.astype(np.float32))


def _cosines(A, B) -> np.ndarray:
    A = A / np.linalg.norm(A, axis=1, keepdims=True)
    B = B / np.linalg.norm(B, axis=1, keepdims=True)
    return np.sum(A * B, axis=1)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), tall=st.booleans(), device=st.sampled_from(["array-api", "array-api-strict"]))
def test_the_device_svd_finds_the_hosts_components(seed, tall, device):
    M = _matrix(seed, (300, 120) if tall else (120, 300))
    host = RandomizedSVD(4, random_state=seed % 13, workers=1)
    Z = host.fit_transform(M)
    other = RandomizedSVD(4, random_state=seed % 13, workers=1, device=device)
    Zd = other.fit_transform(M)
    # the same components with the same signs (scikit-learn's rule), and Φ = M Vᵀ with them
    assert np.all(_cosines(other.components_, host.components_) > 0.9999)
    assert np.allclose(Zd, Z, atol=1e-3 * np.abs(Z).max())
    assert np.allclose(other.singular_values_, host.singular_values_, rtol=1e-4)
    assert np.allclose(other.explained_variance_ratio_, host.explained_variance_ratio_, rtol=1e-3, atol=1e-6)
    assert Zd.dtype == Z.dtype == np.float32 and Zd.shape == Z.shape


def test_the_enclosing_device_is_the_svds_and_leaves_with_the_block():
    M = _matrix(1, (200, 90))
    with computing_on("array-api-strict"):
        assert current() == "array-api-strict"
        inside = RandomizedSVD(3, workers=1)
        inside.fit_transform(M)
    assert current() is None
    with computing_on("numpy"):   # the CPU by its name is no device
        assert current() is None
    host = RandomizedSVD(3, workers=1)
    host.fit_transform(M)
    # QR in place of LU: rounding apart, never bit for bit (so the device path is the one that ran)
    assert not np.array_equal(inside.components_, host.components_)
    assert np.all(_cosines(inside.components_, host.components_) > 0.9999)


def test_snli_phi_on_a_device_tells_the_labels_what_the_hosts_does(snli_path):
    """On real text: SNLI dev's hypotheses (TF-IDF word 1–2-grams, 64 components). The leading
    components agree, and the V-information of the two Φs (5 cross-fitted logistic folds) differs by
    far less than its standard error."""
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.evaluation.information import dataset_pvi

    table = pd.read_json(snli_path, lines=True).head(3000)
    data = load_dataset(table, text=["premise", "hypothesis"], label="label", id=None)
    spec = "tfidf-svd:fields=hypothesis,dim=64"
    host = dataset_pvi(data, spec, cache_dir=False)
    device = dataset_pvi(data, spec, cache_dir=False, device="array-api-strict")
    assert device.summary["device"] == "array-api-strict" and host.summary["device"] == "cpu"
    gap = abs(device.summary["v_information"] - host.summary["v_information"])
    assert gap < 0.25 * host.summary["stderr"], (gap, host.summary["stderr"])
    assert np.corrcoef(device.table["pvi"], host.table["pvi"])[0, 1] > 0.99


def test_pvi_says_where_its_models_trained():
    """A family with a device version trains there; one without (knn, mlp) trains on the CPU and
    the summary says the CPU, never the device that was asked for."""
    from artifact_lens.evaluation.information import pvi

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 300)
    X = rng.normal(size=(300, 6)).astype(np.float32) + y[:, None] * 0.8
    on = pvi(X, y, family="logistic", folds=3, device="array-api-strict")
    assert on.summary["device"] == "array-api-strict"
    host = pvi(X, y, family="logistic", folds=3)
    assert host.summary["device"] == "cpu"
    assert abs(on.summary["v_information"] - host.summary["v_information"]) < 0.01
    assert pvi(X, y, family="knn", folds=3, device="array-api-strict").summary["device"] == "cpu"


def test_a_baseline_certified_on_the_cpu_passes_the_same_data_certified_on_a_device(snli_path):
    """A dataset repository's baseline is certified on a laptop and its candidates by a GPU runner:
    the same rows must pass `check`, every measure within a small share of its stated error. The
    device's certificate computes its own Φ (no cache), so its SVD and PVI models are the device's."""
    from artifact_lens.certificate.gate import compare
    from artifact_lens.certificate.measures import certify
    from artifact_lens.data.sources import load_dataset

    table = pd.read_json(snli_path, lines=True).head(2500)
    data = load_dataset(table, text=["premise", "hypothesis"], label="label", id=None)
    host = certify(data, cache_dir=False)
    device = certify(data, cache_dir=False, device="array-api-strict")
    verdict = compare(host, device)
    assert not (verdict["ok"] == False).any(), verdict[verdict["ok"] == False]   # noqa: E712
    a, b = host["measures"], device["measures"]
    assert set(a) == set(b)
    for m in a:
        if a[m]["value"] is not None and a[m]["stderr"]:
            assert abs(b[m]["value"] - a[m]["value"]) < 0.25 * a[m]["stderr"], m
    # the device path ran: its V-information is the host's up to rounding, not bit for bit
    assert a["v_information.full"]["value"] != b["v_information.full"]["value"]
