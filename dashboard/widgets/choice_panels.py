"""Multiple-choice items on the pages (issue 55): what they are, an item read with its gold marked
and the cues its gold carries (Data, Examples, Review), where the gold sits and the option cue table
(Data, Features)."""
from __future__ import annotations

import streamlit as st

from artifact_lens.base.errors import InputError
from artifact_lens.base.escaping import direction_shown
from artifact_lens.plots.zstats import option_cue_plot
from artifact_lens.dashboard.services import choices
from artifact_lens.dashboard.widgets.formatting import metric_row, plain
from artifact_lens.dashboard.widgets.knobs import cue_settings


def items_panel(tab, ds) -> None:
    """The summary, a preview of the items with the gold marked, and the option cues."""
    lines = choices.summary_lines(tab, ds)
    st.info(plain("Multiple-choice items. " + " ".join(f"{line}." for line in lines)))
    shown = choices.items_read(ds, ds.ids[:500])
    st.dataframe(shown, height=320, key="items_preview")   # text is shown as text, never rendered
    st.caption(f"First {len(shown):,} of {len(ds):,} items; ✔ marks the gold option.")
    st.subheader("Where the gold sits, and what gives it away")
    option_cues_panel(tab, ds)


def option_cues_panel(tab, ds) -> None:
    """The gold position table and the option cue table, with their settings (the Data and the
    Features pages)."""
    min_count, alpha = cue_settings("oc", "items whose options", choices.CUE_MIN_COUNT)
    try:
        with st.spinner("Counting the options' features (once per dataset and settings)…"):
            found, position = choices.cues(tab, ds, min_count, alpha)
    except InputError as exc:
        st.error(plain(exc))
        return
    metric_row({"Items": f"{found.items:,}", "Cohen's w (position)": f"{position.w:.3f}",
                "Features tested": f"{found.tested:,}", "Over the line": f"{int(found.table['over_line'].sum()):,}"})
    st.dataframe(position.table, hide_index=True, key="gold_position")
    st.caption(f"Share of items whose gold is at each position, against a gold placed at random. Cohen's w "
               f"{position.w:.3f} (95 % interval {position.w_low:.3f}–{position.w_high:.3f}); with no position bias "
               f"it is about {position.w_chance:.3f}.")
    st.plotly_chart(option_cue_plot(found), key="option_cue_plot", use_container_width=True)
    st.dataframe(found.table, hide_index=True, key="option_cues", height=360)
    st.caption(f"For each feature of the options, over the items whose options differ on it: how often the gold "
               f"has the most of it (share) against a gold placed at random (chance, ties counted), and z; |z| > "
               f"{found.line:.2f} is over the Bonferroni line over every feature tested.")


def item_read(tab, ds, item_id: str, key: str) -> None:
    """One item as a person reads it (Examples, Review): its stem, its options with the gold marked
    (as text: never rendered), and the option cues its gold carries."""
    row = choices.items_read(ds, [item_id]).iloc[0]
    st.text(direction_shown("\n".join([f"item {item_id}"] + [f"{field}: {row[field]}" for field in ds.choices.stem])))
    options = [f"{letter}. {text}" for letter, text in row.drop(labels=ds.choices.stem).items() if text]
    st.text(direction_shown("\n".join(options)))
    standing = choices.standing_out(tab, ds, item_id)
    st.caption("✔ marks the gold option. " + ("Its gold stands out on: " + "; ".join(standing) + "."
                                              if standing else "Its gold carries none of the option cues over the line."))
