"""The Features page's "cues across splits" (issue 23) through AppTest: another split from a folder
the server may read is measured in a background job; a path outside those folders is refused."""
from apptest_helpers import app, metrics, no_exceptions, page, wait_for_jobs


def test_the_demos_cues_carry_over_to_another_split(fresh_server, tmp_path, monkeypatch):
    from artifact_lens.data.sources import load_dataset

    monkeypatch.setenv("ARTIFACT_LENS_DATA_DIRS", str(tmp_path))
    other = tmp_path / "other.csv"
    load_dataset("demo:nli:n=600").table.reset_index().to_csv(other, index=False)
    at = app().run()
    at.switch_page(page("5_features")).run()
    at.text_input(key="tr_path").input("/etc/passwd")
    at.button(key="run_transfer").click().run()
    assert any("outside the folders this server may read" in e.value for e in at.error)
    at.text_input(key="tr_path").input(str(other))
    at.button(key="run_transfer").click().run()
    wait_for_jobs(at)
    no_exceptions(at)
    carried, of = metrics(at)["Cues that carry over"].split(" of ")
    assert int(of) == 10 and int(carried) >= 8                       # the planted cues are the demo's in both
    cues = [d.value for d in at.dataframe if "z_eval" in d.value.columns][0]
    assert len(cues) == 10 and (cues["n_eval"] > 0).all()
    # a new tab, and a restarted server, show the split last measured (issue 45, walk item 5)
    from artifact_lens.dashboard.process.shared import server

    shown = metrics(at)["Cues that carry over"]
    for restart in (False, True):
        if restart:
            server.clear()
        fresh = app().run()
        fresh.switch_page(page("5_features")).run()
        no_exceptions(fresh)
        assert metrics(fresh)["Cues that carry over"] == shown
        assert any(c.value.startswith("Measured on ") and "other.csv" in c.value for c in fresh.caption)
