"""The joint filter from the Filter page (issue 23), through streamlit's AppTest on the demo: its own
run key, what it protected said on the page, τ/n still live, the possibly mislabelled examples
served first on the Review page and marked in the export."""
import io
import json

import pandas as pd

from apptest_helpers import app, metrics, no_exceptions, page, wait_for_jobs


def test_a_joint_run_protects_and_queues_what_it_kept(fresh_server, downloads):
    from artifact_lens.dashboard.process.shared import server

    at = app().run()
    at.switch_page(page("2_filter")).run()
    no_exceptions(at)
    plain_key = at.session_state["artifact_lens"].run_key
    at.checkbox(key="w_joint").check()
    at.number_input(key="w_joint_epochs").set_value(4)
    at.button(key="run_aflite").click().run()
    wait_for_jobs(at)
    no_exceptions(at)
    key = at.session_state["artifact_lens"].run_key
    assert key != plain_key
    run = server().store.get(key)
    assert run.joint["epochs"] == 4 and len(run.review_first)
    assert not (run.trajectory.protected & ~run.retained).any()
    assert any(f"{len(run.review_first):,} possibly mislabelled" in i.value for i in at.info)
    # issue 35, item 6: the note's three groups do not overlap, so they add up to the examples it names
    import re

    note = next(i.value for i in at.info if "possibly mislabelled" in i.value).replace("\\", "")
    examples, removable, protected, mislabelled = (int(x.replace(",", "")) for x in re.findall(
        r"of ([\d,]+) examples, only the ([\d,]+) .* ([\d,]+) ambiguous ones .* and ([\d,]+) possibly", note)[0])
    assert removable + protected + mislabelled == examples == len(run.ids)
    assert f"joint filter: {len(run.review_first):,} possibly mislabelled kept" in " ".join(t.value for t in at.sidebar.text)
    at.slider(key="w_target").set_value(0.8).run()          # n stays live on a joint run
    assert metrics(at)["Retained"] == f"{int(run.retained_for(target_size=0.8).sum()):,}"

    at.switch_page(page("8_review")).run()
    no_exceptions(at)
    assert any("possibly mislabelled examples" in c.value and "served first" in c.value for c in at.caption)
    assert any(w.value.startswith("Possibly mislabelled") for w in at.warning)   # the first one served

    at.switch_page(page("7_export")).run()
    no_exceptions(at)
    at.radio(key="exp_which").set_value("all").run()
    at.radio(key="exp_fmt").set_value("csv").run()
    at.button(key="exp_prepare").click().run()
    no_exceptions(at)
    data, manifest = (downloads(b) for b in at.get("download_button")[:2])
    frame = pd.read_csv(io.BytesIO(data), dtype={"id": str})
    assert set(frame.loc[frame["possibly_mislabelled"], "id"]) == set(run.review_first)
    assert json.loads(manifest)["joint"]["possibly_mislabelled_ids"] == list(run.review_first)
