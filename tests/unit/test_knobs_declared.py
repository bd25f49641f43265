"""AFLite's knobs are declared once (issue 54, item 2: `core.aflite.knobs.KNOBS`): the estimator's
checks, its defaults, the CLI's options and the dashboard's sliders read them, so the CLI never
accepts what the estimator refuses, or the other way round (m was capped at 10,000 by the CLI only)."""
import argparse
import inspect

import pytest
from hypothesis import given, settings, strategies as st

from core.aflite import AFLite
from core.aflite.knobs import KNOBS
from core.cli.arguments import knob_type
from core.cli.parser import build_parser


def test_the_estimator_and_the_cli_take_the_declared_defaults():
    signature = inspect.signature(AFLite.__init__).parameters
    aflite = {a.dest: a for a in build_parser()._subparsers._group_actions[0].choices["aflite"]._actions}
    for name, knob in KNOBS.items():
        assert signature[name].default == knob.default, name
        action = next(a for a in aflite.values() if knob.flag in a.option_strings)
        assert action.default == knob.default and knob.symbol in action.help, name


def _estimator_takes(name, value) -> bool:
    from sklearn.utils._param_validation import validate_parameter_constraints

    try:
        validate_parameter_constraints({name: AFLite._parameter_constraints[name]}, {name: value}, "AFLite")
        return True
    except Exception:  # noqa: BLE001  (scikit-learn's InvalidParameterError)
        return False


def _cli_takes(name, text) -> bool:
    try:
        knob_type(name)(text)
        return True
    except argparse.ArgumentTypeError:
        return False


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(KNOBS)), st.one_of(st.integers(-5, 20_000), st.floats(-2, 2, allow_nan=False)))
def test_the_cli_accepts_a_value_exactly_when_the_estimator_does(name, value):
    """For m and τ exactly; a size (t, k, n) the CLI reads as a count or a fraction and leaves its
    range to the estimator, which knows N and names the symbol (`core.cli.arguments.Size`)."""
    text = repr(value) if isinstance(value, float) else str(value)
    if KNOBS[name].kind == "size":
        assert _cli_takes(name, text) or not _estimator_takes(name, value), (name, value)
    else:
        assert _cli_takes(name, text) == _estimator_takes(name, value), (name, value)


def test_a_slider_offers_only_what_the_estimator_takes():
    for name, knob in KNOBS.items():
        lo, hi, step = knob.offered
        assert _estimator_takes(name, lo) and _estimator_takes(name, hi) and 0 < step <= hi - lo, name


def test_a_knob_declared_beyond_its_bounds_is_refused():
    from core.aflite.knobs import Knob

    with pytest.raises(ValueError, match="beyond its bounds"):
        Knob("tau", "τ", "--tau", 0.5, "threshold", "unit", 0.0, 1.0, offered=(0.0, 2.0, 0.1))
