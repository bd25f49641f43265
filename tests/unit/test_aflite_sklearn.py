"""AFLite is a real scikit-learn estimator: clone, get/set_params, repr, NotFittedError, checks."""
import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.utils import estimator_checks as checks

from artifact_lens.aflite import AFLite, NotFitted, ParameterError
from artifact_lens.base.errors import InputError


def _problem(n=200, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    X = rng.normal(size=(n, 4)).astype(np.float32)
    X[:, 0] += 2 * y
    return X, y


def test_clone_round_trips_parameters_and_drops_the_fit():
    est = AFLite(n_partitions=32, model=("logistic", "svm"), tau=0.5).fit(*_problem(), )
    copy = clone(est)
    assert copy.get_params() == est.get_params() and copy is not est
    assert copy.get_params()["model"] == ("logistic", "svm")
    assert not hasattr(copy, "trajectory_") and hasattr(est, "trajectory_")
    assert clone(AFLite(n_partitions=32)).n_partitions == 32


def test_get_set_params_and_repr():
    est = AFLite()
    assert set(est.get_params(deep=True)) == {"n_partitions", "train_size", "slice_size", "tau", "target_size",
                                              "model", "strategy", "max_dim", "alpha", "random_state", "n_jobs", "device"}
    assert est.set_params(n_partitions=8, tau=0.9) is est and est.n_partitions == 8 and est.tau == 0.9
    assert "n_partitions=8" in repr(est) and "tau=0.9" in repr(est)
    with pytest.raises(ValueError, match="Invalid parameter"):
        est.set_params(m=8)


def test_not_fitted_error_before_fit():
    for call in (lambda e: e.retained_for(0.9), lambda e: e.result_for(), lambda e: e.scores_at(0),
                 lambda e: e.retained_):
        with pytest.raises(NotFittedError, match="not fitted yet"):
            call(AFLite())
    with pytest.raises(InputError):  # also an InputError: the CLI and the app show its message
        AFLite().retained_for()
    assert issubclass(NotFitted, NotFittedError)


def test_parameter_errors_are_sklearn_and_input_errors_with_a_hint():
    X, y = _problem()
    with pytest.raises(ParameterError, match=r"'n_partitions' parameter of AFLite must be .* e\.g\. n_partitions=64"):
        AFLite(n_partitions=0).fit(X, y)
    with pytest.raises(InputError, match="tau"):
        AFLite(tau="high").fit(X, y)


@pytest.mark.parametrize("check", [
    checks.check_no_attributes_set_in_init,
    checks.check_parameters_default_constructible,
    checks.check_get_params_invariance,
    checks.check_set_params,
    checks.check_param_validation,
    checks.check_dont_overwrite_parameters,
    checks.check_estimators_overwrite_params,
    checks.check_fit_check_is_fitted,
])
def test_sklearn_estimator_checks(check):
    # AFLite filters rather than predicts; these are the checks that apply to any estimator.
    check("AFLite", AFLite(n_partitions=4, train_size=4, slice_size=2, tau=0.0, target_size=0.5))
