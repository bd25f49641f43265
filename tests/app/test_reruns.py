"""After an action the app draws itself again through `dashboard.widgets.reruns.redraw`, and a request the
user made while the action ran (a page clicked in the sidebar, a widget changed) wins over it.

Streamlit's own ``st.rerun()`` replaces such a waiting request with a rerun of the page the action
ran on (a CI run lost a click on "Filter" that way while the Review page saved a run)."""
from __future__ import annotations

import ast
from pathlib import Path

from streamlit.testing.v1 import AppTest

ROOT = Path(__file__).resolve().parents[2]


def _script(use_redraw: bool) -> None:
    import streamlit as st
    from streamlit.runtime.scriptrunner import get_script_run_ctx
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData

    from artifact_lens.dashboard.widgets.reruns import redraw

    ctx = get_script_run_ctx()
    seen = st.session_state.setdefault("seen", [])
    seen.append(ctx.query_string)
    if len(seen) == 1:
        # the user asks for something else while this run is busy with an action ...
        ctx.script_requests.request_rerun(RerunData(query_string="asked=elsewhere",
                                                    page_script_hash=ctx.page_script_hash))
        # ... and the action ends by asking to draw the page again
        redraw() if use_redraw else st.rerun()


def test_a_request_made_during_an_action_wins_over_its_redraw():
    at = AppTest.from_function(_script, args=(True,)).run()
    assert not at.exception
    assert at.session_state["seen"] == ["", "asked=elsewhere"]


def test_streamlits_own_rerun_would_drop_that_request():
    """The guard's premise: were this to change, `redraw` could go back to ``st.rerun``."""
    at = AppTest.from_function(_script, args=(False,)).run()
    assert at.session_state["seen"] == ["", ""]


def test_nothing_in_the_app_calls_st_rerun_but_redraw():
    callers = []
    for path in [ROOT / "app.py", *ROOT.glob("dashboard/**/*.py"), *ROOT.glob("pages/*.py")]:
        if path.name == "reruns.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and node.attr == "rerun" and isinstance(node.value, ast.Name) \
                    and node.value.id == "st":
                callers.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not callers, f"call dashboard.widgets.reruns.redraw() instead of st.rerun(): {callers}"
