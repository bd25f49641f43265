"""AFLite's ridge family on other array libraries (`core.aflite.backends`, issue 32). CI has no GPU:
the backend code runs on NumPy through the array API and on `array-api-strict`, the standard's
reference namespace, which fails on any call outside the standard; both must give the CPU
engine's retained set, and a run's key and record must not depend on where it ran."""
import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from artifact_lens.aflite import AFLite
from artifact_lens.base.devices import namespace
from artifact_lens.base.errors import InputError
from artifact_lens.results.runs import full_params


_HAS_TORCH = importlib.util.find_spec("torch") is not None   # PyTorch on the CPU where it is installed


def _data(seed, N=900, d=12, classes=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, N)
    X = rng.normal(size=(N, d)).astype(np.float32)
    X[:, :3] += y[:, None] * 0.5
    return X, y


@settings(max_examples=6, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), m=st.integers(2, 12), classes=st.integers(2, 4),
       strategy=st.sampled_from(["greedy-slice", "slice-sample"]))
def test_the_array_api_backends_retain_what_the_engine_retains(seed, m, classes, strategy):
    X, y = _data(seed, classes=classes)
    kw = dict(n_partitions=m, train_size=0.15, slice_size=0.05, tau=0.0, target_size=0.5, random_state=seed % 97,
              strategy=strategy)
    engine = AFLite(**kw).fit(X, y)
    for device in ("array-api", "array-api-strict") + (("torch",) if _HAS_TORCH else ()):
        other = AFLite(device=device, **kw).fit(X, y)
        # the same filter: predictions that tie within rounding may differ, nothing else
        assert np.isclose(other.phase_scores_, engine.phase_scores_, atol=1e-6, equal_nan=True).mean() > 0.99
        jaccard = (other.retained_ & engine.retained_).sum() / (other.retained_ | engine.retained_).sum()
        assert jaccard > 0.97, (device, jaccard)


def test_where_a_run_ran_is_not_a_parameter_of_it():
    X, y = _data(1)
    kw = dict(n_partitions=6, slice_size=0.05, tau=0.0, target_size=0.5)
    cpu, strict = AFLite(**kw).fit(X, y), AFLite(device="array-api-strict", n_jobs=2, **kw).fit(X, y)
    assert cpu.trajectory_.record["params"] == strict.trajectory_.record["params"]
    assert "device" not in strict.trajectory_.record["params"]
    assert full_params({**kw, "device": "cuda"}) == full_params(kw)


@pytest.mark.parametrize("device, says", [
    ("tpu", "is not known"), ("cuda:x", "is not known"),
    ("cuda", "PyTorch"), ("torch", "PyTorch"), ("cupy", "CuPy"),
])
def test_a_device_this_machine_cannot_use_is_one_clear_error(device, says):
    """CI has neither PyTorch nor CuPy: each is named with what to install. Where the library is
    installed, the device works, or the GPU's absence is what is said."""
    import importlib.util

    library = {"cuda": "torch", "torch": "torch", "cupy": "cupy"}.get(device)
    if library and importlib.util.find_spec(library) is not None:
        try:
            assert namespace(device) is not None
        except InputError as exc:
            assert "no CUDA GPU" in str(exc) or "GPU" in str(exc)
        return
    with pytest.raises(InputError, match=says):
        namespace(device)


def test_the_cli_refuses_an_unusable_device_before_any_work(tmp_path, capsys):
    from artifact_lens.cli import main

    out = tmp_path / "scores.csv"
    assert main(["aflite", "demo:nli:n=300", "--out", str(out), "--device", "tpu"]) == 2
    assert "argument --device: 'tpu' is not a device" in capsys.readouterr().err and not out.exists()
    if importlib.util.find_spec("cupy") is None:   # a known device, its library absent: said before the data is read
        assert main(["aflite", "demo:nli:n=300", "--out", str(out), "--device", "cupy"]) == 2
        assert "needs CuPy" in capsys.readouterr().err and not out.exists()


def test_a_run_says_where_it_ran(tmp_path):
    """Issue 32: the Filter page's line comes from the run's own record."""
    from artifact_lens.representations import represent
    from artifact_lens.results.runs import Run, fit_run
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.aflite.summaries import where_it_ran

    ds = load_dataset("demo:nli:n=300")
    rep = represent(ds, "tfidf-svd:fields=hypothesis,dim=8", cache_dir=tmp_path)
    base = dict(n_partitions=4, slice_size=0.1, tau=0.0, target_size=0.5)
    cpu = fit_run(ds, rep, {**base, "n_jobs": 2})
    assert where_it_ran(cpu).startswith("computed on the CPU with 2 threads in ")
    strict = fit_run(ds, rep, {**base, "device": "array-api-strict"})
    assert where_it_ran(strict).startswith("computed on array-api-strict in ")
    assert strict.key == cpu.key                                  # where it ran is not part of the run
    back = Run.load(strict.save(tmp_path / "run.npz"))
    assert where_it_ran(back) == where_it_ran(strict)


@pytest.mark.parametrize("device", [None, "torch", "cupy", "array-api", "cuda", "cuda:1"])
def test_sentence_transformers_encode_on_the_gpu_the_setting_names_or_on_the_cpu(device, monkeypatch):
    """Issue 32: ``ARTIFACT_LENS_DEVICE=cuda[:N]`` moves the sbert Φ to that GPU when PyTorch sees one;
    every other setting, and a machine without a GPU (CI), encodes on the CPU."""
    from artifact_lens.representations.text import _sbert_device

    if device is None:
        monkeypatch.delenv("ARTIFACT_LENS_DEVICE", raising=False)
    else:
        monkeypatch.setenv("ARTIFACT_LENS_DEVICE", device)
    gpu = _HAS_TORCH and __import__("torch").cuda.is_available()
    assert _sbert_device() == (device if gpu and device and device.startswith("cuda") else "cpu")


def test_a_float16_memory_map_streams_to_the_device_as_its_float32_widening(tmp_path):
    """Issue 57, item 3: 10M × 768 rows in float16 are a 15 GB memory map. A device run reads it as
    it is (no float32 copy in this process) and widens each gathered chunk where it computes, so it
    gives what the same rows widened to float32 give, bit for bit, and the CPU engine's filter."""
    from artifact_lens.aflite.inputs import check_X

    X, y = _data(5, N=1500, d=24)
    path = tmp_path / "x.f16"
    mapped = np.memmap(path, dtype=np.float16, mode="w+", shape=X.shape)
    mapped[:] = X
    mapped.flush()
    mapped = np.memmap(path, dtype=np.float16, mode="r", shape=X.shape)
    assert check_X(mapped, keep_half=True) is mapped                   # read where it lies
    assert check_X(mapped).dtype == np.float32                         # the CPU engine widens it once
    kw = dict(n_partitions=8, train_size=0.15, slice_size=0.05, tau=0.0, target_size=0.5, random_state=3)
    widened = np.asarray(mapped, dtype=np.float32)
    engine = AFLite(**kw).fit(widened, y)
    # NumPy through the array API keeps float16 on its "device"; the standard has no float16 (strict widens on upload)
    for device in ("array-api", "array-api-strict"):
        streamed = AFLite(device=device, **kw).fit(mapped, y)
        assert streamed.trajectory_.record["execution"]["memory_mapped"]
        same = AFLite(device=device, **kw).fit(widened, y)
        assert np.array_equal(streamed.phase_scores_, same.phase_scores_, equal_nan=True), device
        assert np.array_equal(streamed.retained_, same.retained_)
        jaccard = (streamed.retained_ & engine.retained_).sum() / (streamed.retained_ | engine.retained_).sum()
        assert jaccard > 0.97, (device, jaccard)
    # a family that is not ridge reads float32 rows (no float16 arithmetic anywhere)
    mixed = AFLite(device="array-api-strict", model=["ridge", "logistic"], n_partitions=4, train_size=0.2,
                   slice_size=0.1, tau=0.0, target_size=0.8, random_state=0).fit(mapped, y)
    assert mixed.retained_.sum() < len(y)
