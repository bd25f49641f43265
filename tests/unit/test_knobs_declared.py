"""AFLite's knobs are declared once (issue 54, item 2: `core.aflite.knobs.KNOBS`): the estimator's
checks, its defaults, the CLI's options and the dashboard's sliders read them, so the CLI never
accepts what the estimator refuses, or the other way round (m was capped at 10,000 by the CLI only)."""
import argparse
import inspect

import pytest
from hypothesis import given, settings, strategies as st

from artifact_lens.aflite import AFLite
from artifact_lens.aflite.knobs import KNOBS
from artifact_lens.cli.arguments import knob_type
from artifact_lens.cli.parser import build_parser


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


def _cli_parses(name, text):
    """The value the CLI passes on for ``text``, or None when it refuses it."""
    try:
        return knob_type(name)(text)
    except argparse.ArgumentTypeError:
        return None


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(KNOBS)), st.one_of(st.integers(-5, 20_000), st.floats(-2, 2, allow_nan=False)),
       st.booleans())
def test_the_cli_passes_on_what_the_estimator_takes(name, value, as_float):
    """What the CLI passes on, the estimator takes; what it refuses of m and τ, the estimator refuses
    too (m given as 1.0 is passed on as 1). A size (t, k, n) the CLI reads as a count or a fraction
    and leaves its range to the estimator, which knows N and names the symbol (`core.cli.arguments.Size`)."""
    text = repr(float(value)) if as_float else repr(value) if isinstance(value, float) else str(value)
    parsed = _cli_parses(name, text)
    if KNOBS[name].kind == "size":
        assert parsed is not None or not _estimator_takes(name, value), (name, text)
    elif parsed is None:
        assert not _estimator_takes(name, value if as_float or isinstance(value, float) else int(value)), (name, text)
    else:
        assert _estimator_takes(name, parsed), (name, text, parsed)


def test_a_slider_offers_only_what_the_estimator_takes():
    for name, knob in KNOBS.items():
        lo, hi, step = knob.offered
        assert _estimator_takes(name, lo) and _estimator_takes(name, hi) and 0 < step <= hi - lo, name


def test_a_knob_declared_beyond_its_bounds_is_refused():
    from artifact_lens.aflite.knobs import Knob

    with pytest.raises(ValueError, match="beyond its bounds"):
        Knob("tau", "τ", "--tau", 0.5, "threshold", "unit", 0.0, 1.0, offered=(0.0, 2.0, 0.1))
