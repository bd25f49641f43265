"""The dashboard's state layer on its own (no server, no pages): what the URL keeps and gives back
(`dashboard.state.url`), and how a moved τ/n reaches the sliders (`dashboard.widgets.knobs`). Scripts run in
streamlit's AppTest, so st.query_params and st.session_state are the real ones."""
import json
import math

import pytest
from hypothesis import given, settings as hyp_settings, strategies as st_
from streamlit.testing.v1 import AppTest

from artifact_lens.dashboard.state import url


def _ids_round_trip():
    import json as _json

    import streamlit as st

    from artifact_lens.dashboard.state import url as _url

    ids = _json.loads(st.session_state["given"])
    _url.keep_ids("sel", ids)
    st.session_state["back"] = list(_url.ids_named("sel"))


ids_lists = st_.lists(st_.text(st_.characters(blacklist_categories=("Cs",)), max_size=12), max_size=30)


@hyp_settings(max_examples=25, deadline=None)
@given(ids=ids_lists)
def test_a_short_selection_comes_back_from_the_url_exactly(ids):
    """Property: any list of ids short enough for a URL comes back the same (order, duplicates,
    odd characters); a longer one is not written and comes back empty."""
    at = AppTest.from_function(_ids_round_trip)
    at.session_state["given"] = json.dumps(ids)
    at.run()
    assert not at.exception
    short = ids and len(json.dumps(ids)) <= url._MAX_LIST
    assert at.session_state["back"] == (ids if short else [])
    assert ("sel" in at.query_params) == bool(short)


def test_a_selection_too_long_for_a_url_is_kept_out_of_it():
    ids = [f"example-{i:06d}" for i in range(2000)]
    at = AppTest.from_function(_ids_round_trip)
    at.session_state["given"] = json.dumps(ids)
    at.run()
    assert at.session_state["back"] == [] and "sel" not in at.query_params


def _restore_colouring():
    import streamlit as st

    from artifact_lens.dashboard.state import url as _url

    _url.restore("colour", ["label", "retained"])
    st.selectbox("Colour by", ["label", "retained"], key="colour")
    _url.keep("colour", st.session_state["colour"])


@pytest.mark.parametrize("in_url, shown", [("retained", "retained"), ("deleted-column", "label"), (None, "label")])
def test_a_new_session_starts_a_widget_from_the_url_when_it_is_still_an_option(in_url, shown):
    at = AppTest.from_function(_restore_colouring)
    if in_url:
        at.query_params["colour"] = in_url
    at.run()
    assert at.selectbox(key="colour").value == shown
    assert at.query_params["colour"] == [shown] or at.query_params["colour"] == shown


def test_the_widget_wins_over_the_url_once_the_session_has_it():
    at = AppTest.from_function(_restore_colouring)
    at.query_params["colour"] = "retained"
    at.run()
    at.selectbox(key="colour").set_value("label").run()
    assert at.selectbox(key="colour").value == "label"    # the URL's old value does not pull it back
    assert "label" in str(at.query_params["colour"])


@hyp_settings(max_examples=200, deadline=None)
@given(target=st_.one_of(st_.floats(0.0001, 0.9999), st_.integers(1, 10**9)))
def test_n_in_the_url_is_short_and_means_the_same(target):
    """Property: a count is written as that count; a share with 4 significant digits, so a
    reload gives back the same n (issue 21: n lost one example per reload)."""
    text = url._short(target)
    if target >= 1:
        assert text == str(int(target))
    else:
        assert len(text) <= 10 and math.isclose(float(text), target, rel_tol=5e-4)
        assert url._short(float(text)) == text        # reading it back and writing again changes nothing


def _two_sliders():
    import streamlit as st

    from artifact_lens.dashboard.state.browser import session

    sess = session()
    sess.tau = st.slider("τ", 0.0, 1.0, float(sess.tau), 0.01, key=sess.knob_key("w_tau"))
    st.button("open view", key="open", on_click=sess.set_live, args=(0.75, 1234))
    st.session_state["seen"] = (float(sess.tau), sess.target, sess.knob_key("w_tau"))


def test_moving_tau_from_code_redraws_the_slider_at_the_new_value():
    at = AppTest.from_function(_two_sliders).run()
    first_key = at.session_state["seen"][2]
    at.slider(key=first_key).set_value(0.3).run()
    assert at.session_state["seen"][0] == pytest.approx(0.3)
    at.button(key="open").click().run()
    tau, n, key = at.session_state["seen"]
    assert (tau, n) == (pytest.approx(0.75), 1234)
    assert key != first_key and at.slider(key=key).value == pytest.approx(0.75)   # a new slider, at the view's τ
