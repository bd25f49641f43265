"""Near-duplicates on the Export page (issue 21): the dataset's pairs by shared wording, "drop
one of each" applied to the exported rows, the rows dropped shown beside the one kept, and the
manifest listing them."""
import io
import json

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from apptest_helpers import AUTH, OWNER, app, no_exceptions, page


def test_export_drops_one_of_each_group_of_near_duplicates_and_says_which(fresh_server, downloads):
    from artifact_lens.dashboard.process.shared import server

    rng = np.random.default_rng(0)
    words = ["".join(rng.choice(list("abcdefghijklmnopqrstuvwxyz"), 6)) for _ in range(600)]
    rows = [(" ".join(rng.choice(words, 6)), " ".join(rng.choice(words, 4)), ["a", "b", "c"][i % 3])
            for i in range(240)]
    rows += [(p, h + " again", lab) for p, h, lab in rows[:6]]            # six near-copies
    table = pd.DataFrame(rows, columns=["premise", "hypothesis", "label"])
    script = f"""
import streamlit as st
from artifact_lens.dashboard.services import data_inputs, pipelines, team
from artifact_lens.dashboard.state.browser import tab as this_tab
from artifact_lens.dashboard.state.session import Source
from artifact_lens.dashboard.widgets.sign_in import sign_in
tab = this_tab()
sign_in(tab)
saved = data_inputs.save_upload(tab, "pairs.csv", {table.to_csv(index=False).encode()!r})
data_inputs.load_pending(tab, Source(str(saved), {{}}, "pairs.csv"))
pipelines.start(tab, tab.session.pending_key, "tfidf-svd:fields=hypothesis,dim=8", dict(n_partitions=4, train_size=0.2,
                slice_size=0.05, tau=0.0, target_size=0.9, model="ridge", strategy="greedy-slice", random_state=0),
                source=Source(str(saved), {{}}, "pairs.csv"))
st.text("started")
"""
    loader = AppTest.from_string(script, default_timeout=60)
    loader.secrets["auth"] = dict(AUTH)
    loader.user = {"is_logged_in": True, "email": OWNER}
    loader.run()
    no_exceptions(loader)
    for job in server().jobs.running():
        job.wait(120)
    at = app(OWNER).run()                                    # opens the workspace's newest run: pairs.csv
    at.switch_page(page("7_export")).run()
    at.radio(key="exp_which").set_value("all").run()
    no_exceptions(at)
    at.checkbox(key="exp_dups").check().run()
    no_exceptions(at)
    assert any("6 near-duplicate pairs in the dataset, 6 within these rows: 6 rows dropped" in c.value
               for c in at.caption)
    shown = [d.value for d in at.dataframe if "kept" in d.value.columns][0]
    assert dict(zip(shown["id"], shown["kept"])) == {str(240 + i): str(i) for i in range(6)}
    assert (shown["dropped: hypothesis"] == shown["kept: hypothesis"] + " again").all()   # the texts, side by side
    at.button(key="exp_prepare").click().run()
    frame = pd.read_csv(io.BytesIO(downloads(at.get("download_button")[0])), dtype={"id": str})
    manifest = json.loads(downloads(at.get("download_button")[1]))
    assert len(frame) == 240 and not {str(240 + i) for i in range(6)} & set(frame["id"])
    assert manifest["export"]["rows"] == 240
    assert [d["id"] for d in manifest["export"]["near_duplicates"]["dropped"]] == [str(240 + i) for i in range(6)]
    at.checkbox(key="exp_dups").uncheck().run()              # untick: every row again, and a new file to prepare
    assert not [b for b in at.get("download_button") if b.key == "dl_data"]
