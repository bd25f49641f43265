"""Preference pairs on the pages (issue 42): one pair read side by side (prompt, chosen, rejected)
with its differing style features marked, and the Features page's pair cue table and plot."""
from __future__ import annotations

import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.base.escaping import direction_shown
from artifact_lens.plots.zstats import pair_cue_plot
from artifact_lens.dashboard.services import pairs
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.widgets.knobs import cue_settings


def pair_side_by_side(tab, pair_id: str, key: str) -> None:
    """The pair's prompt, then its chosen and rejected responses in two columns (as text: never
    rendered), and its style features with the ones that differ first and marked."""
    row = pairs.side_by_side(tab, [pair_id]).iloc[0]
    st.markdown("**Prompt**")
    st.text(direction_shown(row["prompt"] or "(no prompt)"))
    left, right = st.columns(2)
    with left:
        st.markdown("**Chosen**")
        st.text(direction_shown(row["chosen"] or "(empty)"))
    with right:
        st.markdown("**Rejected**")
        st.text(direction_shown(row["rejected"] or "(empty)"))
    style = pairs.style_of(tab, pair_id)
    style["differs"] = style["differs"].map({True: "◆ differs", False: ""})
    st.dataframe(style, hide_index=True, key=f"{key}_style", height=min(40 + 35 * len(style), 460))


def pair_cues_panel(tab) -> None:
    """The pair cue table: for each style feature, word and bigram, the share of the pairs that
    differ on it where the chosen side has more of it, against the 0.5 line."""
    min_count, alpha = cue_settings("pz", "pairs", pairs.CUE_MIN_COUNT)
    try:
        with st.spinner("Counting the pairs' features (once per dataset and settings)…"):
            found = pairs.cues(tab, min_count, alpha)
    except InputError as exc:
        st.error(plain(exc))
        return
    st.info(plain(pairs.summary(tab)))
    metric_row({"Pairs": f"{found.pairs:,}", "Features tested": f"{found.tested:,}", "|z| line": f"{found.line:.2f}",
                "Over the line": f"{int(found.table['over_line'].sum()):,}"})
    st.plotly_chart(pair_cue_plot(found), key="pair_cue_plot", use_container_width=True)
    st.caption("A feature over the line gives the preferred side away: the side with more of it is the chosen "
               "one more (or less) often than half the time, beyond chance over every feature tested.")
    st.dataframe(found.table.head(500), hide_index=True, key="pair_cue_table",
                 column_config={"share": st.column_config.NumberColumn("chosen has more", format="%.3f"),
                                "z": st.column_config.NumberColumn("z", format="%.2f")})
