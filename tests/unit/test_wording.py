"""What the pages say matches what they show (issue 53, item 14): the PVI text names the fields Φ
reads beyond the partial input only when it does, and counts are in words."""
from artifact_lens.dashboard.services.information import extra_fields
from artifact_lens.dashboard.widgets.information_panel import _more_bits_in_part


def test_the_pvi_text_says_phi_mixes_fields_only_when_it_does():
    both, part = "tfidf-svd:fields=premise+hypothesis,dim=64", "tfidf-svd:fields=hypothesis"
    assert extra_fields(both, part) == ["premise"]
    assert "Φ also reads premise" in _more_bits_in_part({"representation": both}, {"representation": part})
    for spec in ("tfidf-svd:fields=hypothesis,dim=64", "embedding", "not a spec ::"):
        assert extra_fields(spec, part) == []
        said = _more_bits_in_part({"representation": spec}, {"representation": part})
        assert "also reads" not in said and "mixes" not in said


def test_a_double_click_on_save_says_the_decision_stands(monkeypatch):
    """Issue 53, item 14: the second click of a double-click on "Save review" finds what was shown
    changed by the first click's own save; it says that the decision is saved, not that it was not,
    while a decision refused because a teammate changed what was shown still keeps the text."""
    from types import SimpleNamespace

    from artifact_lens.base.errors import Changed
    from artifact_lens.dashboard.widgets import decision_form

    toasts = []
    fake = SimpleNamespace(session_state={"note": "typo in the label"}, toast=toasts.append)
    monkeypatch.setattr(decision_form, "st", fake)
    saved = []

    def save(example, stamp, note):
        if saved and stamp == "shown":   # the first save moved the example's stamp on
            raise Changed("example 7 changed since it was shown; your decision was not saved.")
        saved.append((example, note))
        return "Saved."

    fields = {"note": ("note", "")}
    for _ in range(2):   # the same form, clicked twice before it is drawn again
        fake.session_state["note"] = "typo in the label"
        decision_form._clicked("rv", save, ("7", "shown"), fields, "7")
    assert saved == [("7", "typo in the label")] and toasts == ["Saved.", "Already saved."]
    assert "rv_outcome" not in fake.session_state
    fake.session_state["note"] = "another text"   # a different decision on what changed: refused, text kept
    decision_form._clicked("rv", save, ("7", "shown"), fields, "7")
    assert fake.session_state["rv_outcome"]["kept"] == {"note": "another text"}


def test_every_number_of_the_cue_table_has_a_hint_on_the_evaluate_page():
    from test_gate_edges import AFTER, BEFORE

    from artifact_lens.certificate.cues import cue_changes
    from artifact_lens.dashboard.widgets.certificate_panel import CUE_HELP

    columns = set(cue_changes(BEFORE, AFTER, 0.05).columns) - {"feature", "label"}
    assert columns == set(CUE_HELP)


def test_tau_bounds_are_declared_once_and_every_reader_takes_them():
    """Issue 54 (a knob's bounds declared once), for τ: the estimator's constraint, check_tau and
    every command's --tau read `TAU_RANGE`."""
    import argparse

    import pytest

    from artifact_lens.aflite import AFLite
    from artifact_lens.aflite.selection import TAU_RANGE, check_tau
    from artifact_lens.base.errors import InputError
    from artifact_lens.cli.parser import build_parser

    lo, hi = TAU_RANGE
    (constraint,) = AFLite._parameter_constraints["tau"]
    assert (constraint.left, constraint.right) == TAU_RANGE
    assert check_tau(hi) == hi
    with pytest.raises(InputError, match=f"\\[{lo:g}, {hi:g}\\]"):
        check_tau(hi + 0.01)
    parser = build_parser()
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices
    taus = [a for p in commands.values() for a in p._actions if a.dest == "tau"]
    assert len(taus) >= 6 and all((a.type.lo, a.type.hi) == TAU_RANGE for a in taus)
