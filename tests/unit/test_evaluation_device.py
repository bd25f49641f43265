"""The evaluation's linear families on a device (`core.models.on_device`, issue 32). CI has no
GPU: the device code runs on `array-api-strict` (the standard's reference namespace, which fails
on any call outside the standard; PyTorch and CuPy run the same code) and, where installed,
PyTorch's CPU, against scikit-learn's `LogisticRegression` and `LinearSVC` on the CPU."""
import importlib.util

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import artifact_lens.evaluation.models as models
from artifact_lens.evaluation import EvaluationOptions, evaluate
from artifact_lens.evaluation.models import Fit, FitMemo, fit_many, fit_predict

DEVICES = ("array-api-strict",) + (("torch",) if importlib.util.find_spec("torch") is not None else ())


def _data(seed, n, d, k, signal=0.6):
    rng = np.random.default_rng(seed)
    y = np.array(["contradiction", "entailment", "neutral", "other"])[rng.integers(0, k, n)]
    codes = np.searchsorted(np.unique(y), y)
    X = rng.normal(size=(n, d)).astype(np.float32)
    X[:, : max(1, d // 3)] += signal * codes[:, None]
    return X, y


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10 ** 6), n=st.integers(30, 600), d=st.integers(1, 40), k=st.integers(2, 4),
       C=st.sampled_from([None, 0.1, 1.0, 10.0]), family=st.sampled_from(["logistic", "svm"]))
def test_the_device_fits_scikit_learns_model(seed, n, d, k, C, family):
    """Property: on any shape (one feature; two labels: one model; more: softmax, or one against
    the rest) and penalty, the device's predictions are scikit-learn's, bar the few examples at the
    decision boundary, in scikit-learn's own labels."""
    X, y = _data(seed, n, d, k)
    if len(np.unique(y)) < 2:
        return
    test = np.arange(n) % 4 == 0
    params = None if C is None else {"C": C}
    cpu, cpu_note = fit_predict(family, X[~test], y[~test], X[test], 0, params)
    for device in DEVICES:
        pred, note = fit_predict(family, X[~test], y[~test], X[test], 0, params, device=device)
        assert pred.dtype == cpu.dtype and set(pred) <= set(y[~test])
        assert (pred == cpu).mean() >= 0.97, (device, (pred == cpu).mean())
        assert note == ""


def test_other_families_and_other_settings_stay_on_the_cpu_and_fits_are_remembered_apart():
    X, y = _data(1, 300, 8, 3)
    test = np.arange(300)[::5]
    train = np.setdiff1d(np.arange(300), test)
    fits = [Fit("logistic", train, test), Fit("knn", train, test),
            Fit("logistic", train, test, 0, {"solver": "newton-cg"})]
    assert [models.trains_on_device(f.family, f.params, "cuda") for f in fits] == [True, False, False]
    assert models.trains_on_device("svm", {"C": 0.5}, "cuda") and not models.trains_on_device("svm", {"loss": "hinge"}, "cuda")
    assert not models.trains_on_device("logistic", None, None)
    assert not models.trains_on_device("logistic", None, "numpy")
    memo = FitMemo()
    cpu = fit_many(X, y, fits, n_jobs=2, memo=memo)
    assert len(memo) == 3
    device = fit_many(X, y, fits, n_jobs=2, device="array-api-strict", memo=memo)
    assert len(memo) == 4          # the device's logistic fit is its own; the CPU's two are reused
    assert (device[1][0] == cpu[1][0]).all() and (device[2][0] == cpu[2][0]).all()
    assert (device[0][0] == cpu[0][0]).mean() >= 0.97


def test_an_evaluation_on_a_device_records_it_and_agrees_with_the_cpus(tmp_path, monkeypatch):
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.representations import represent

    monkeypatch.setattr(models, "FITS", None)
    ds = load_dataset("demo:nli:n=400")
    rep = represent(ds, "tfidf-svd:fields=premise+hypothesis,dim=16", cache_dir=tmp_path)
    retained = np.arange(len(rep.ids)) % 3 != 0
    opts = EvaluationOptions(families=("logistic", "svm", "knn"), knn_ks=(1, 5), coarse_step=0.25, partial_spec="")
    cpu = evaluate(ds, rep, retained, options=opts, n_jobs=1)
    dev = evaluate(ds, rep, retained, options=opts, n_jobs=1, device="array-api-strict")
    assert cpu.context["device"] == "cpu" and dev.context["device"] == "array-api-strict"
    assert dev.key == cpu.key
    a, b = cpu.tables["families"], dev.tables["families"]
    assert (a["family"] == b["family"]).all()
    knn = a["family"] == "knn"
    assert (a.loc[knn, "accuracy"] == b.loc[knn, "accuracy"]).all()
    assert np.allclose(a.loc[~knn, "accuracy"], b.loc[~knn, "accuracy"], atol=0.02)
    assert np.allclose(cpu.tables["coarse"]["accuracy"], dev.tables["coarse"]["accuracy"], atol=0.02)
    from artifact_lens.dashboard.services.evaluation import where_trained   # the Evaluate page's line

    assert where_trained(cpu) is None and "trained on array-api-strict" in where_trained(dev)


def test_every_device_flag_of_the_cli_is_the_one_device_type():
    """Reflection: each command's ``--device`` is parsed by `core.cli.arguments.Device`, so a new
    command's flag refuses an unknown device the same way the day it is written."""
    import argparse

    from artifact_lens.cli.arguments import Device
    from artifact_lens.cli.parser import build_parser

    found = []
    parser = build_parser()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                for a in sub._actions:
                    if "--device" in a.option_strings:
                        found.append(name)
                        assert isinstance(a.type, Device), name
    assert {"aflite", "cartography", "evaluate"} <= set(found)
    with pytest.raises(SystemExit):
        parser.parse_args(["evaluate", "demo:nli", "--run", "x.json", "--out", "o", "--device", "gpu"])
