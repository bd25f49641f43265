"""One example in full (Examples page): its fields, label, p̃ phase by phase, its features
with their z for its label, and its nearest neighbours in Φ ("more like this")."""
from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from artifact_lens.base.escaping import direction_shown, md_text
from artifact_lens.dashboard.services import current, run_view, nearby
from artifact_lens.dashboard.widgets.choice_panels import item_read
from artifact_lens.dashboard.widgets.pair_panels import pair_side_by_side



def example_detail(tab, run, example_id: str, key: str) -> None:
    ds = current.dataset(tab)
    table = run_view.table(tab, run)
    row = table.rows_of([example_id])[0]
    if row < 0:
        return
    rec = table.browse(run_view.live_result(tab, run)).iloc[row]
    arrays = {ds.embedding, ds.image}
    values = ds.table.iloc[row]
    if ds.pairs is not None:
        st.text(f"pair {example_id}")
        pair_side_by_side(tab, example_id, key)
    elif ds.choices is not None:
        item_read(tab, ds, example_id, key)
    else:
        st.text("\n".join([f"id: {direction_shown(example_id)}"] + [f"{c}: {direction_shown(values[c])}"
                                                                    for c in ds.table.columns if c not in arrays]))
    p = rec["predictability"]
    st.text(("not scored (warm-up)" if np.isnan(p) else f"p̃ = {p:.2f} at the live τ and n, ")
            + ("retained" if rec["retained"] else f"removed in phase {int(rec['removed_at']) + 1}"))
    run_pos = pd.Index(np.asarray(run.ids).astype(str)).get_indexer([example_id])[0]
    left, right = st.columns(2)
    with left:
        st.markdown("**p̃ phase by phase**")
        if run_pos < 0:
            st.caption("A warm-up example: it trained Φ, so AFLite never scored it.")
        else:
            history = run.trajectory.history_of(int(run_pos))
            st.bar_chart(history.set_index("phase")["p̃"], height=180)
            gone = history.loc[history["removed"], "phase"]
            st.caption(f"Removed in phase {int(gone.iloc[0])} of the fitted run." if len(gone)
                       else f"Kept through all {run.n_phases} phases of the fitted run.")
    with right:
        if ds.pairs is None and ds.choices is None:   # (a pair's or an item's cues are shown with it above)
            st.markdown(f"**Its features, z for its label ({md_text(rec[ds.label])})**")
            st.dataframe(nearby.feature_z(tab, example_id, str(rec[ds.label])), hide_index=True,
                         key=f"{key}_features", height=200)
    st.markdown("**Nearest neighbours in Φ** (cosine similarity; near 1 = possible duplicates)")
    like = nearby.neighbours(tab, example_id, 10)
    st.dataframe(like, hide_index=True, key=f"{key}_neighbours")
    st.button("More like this: list its 50 nearest neighbours above", key=f"{key}_more",
              on_click=_more_like, args=(tab, example_id))


def _more_like(tab, example_id: str) -> None:
    tab.session.ex_like = example_id
