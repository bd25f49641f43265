"""The Examples page's browser: the search and sort controls, the retained and removed tables (stacked
or side by side, a page at a time) and the example picked from them, read in full and reviewed."""
from __future__ import annotations

import numpy as np
import streamlit as st

from artifact_lens.results.tables import filter_examples, mark_hits, page
from artifact_lens.dashboard.services import current, run_view, nearby, information, pairs, reviews
from artifact_lens.dashboard.services import quality as dq
from artifact_lens.dashboard.state import url
from artifact_lens.dashboard.widgets.example_detail import example_detail
from artifact_lens.dashboard.widgets.formatting import plain, shown_cells, thumbnail_uri
from artifact_lens.dashboard.widgets.knobs import live_knobs
from artifact_lens.dashboard.widgets.review_panel import review_panel, with_lights

__all__ = ["browser"]


def browser(tab, run, ds, quality) -> None:
    """The retained and removed examples at the live τ/n, searched, sorted and paged, and one read
    in full with its review (``quality``: the page's quality table, or None)."""
    sess = tab.session
    result = live_knobs(tab, run)
    frame = run_view.table(tab, run).browse(result)
    frame = frame[~frame["warmup"]]
    changed = reviews.overridden(tab, run, result)
    if changed:
        st.caption(changed)
    bits = information.columns(tab)   # PVI (Predictability page), when computed
    frame = frame if bits is None else frame.join(bits, on="id")
    asked = _controls(ds, bits)
    ids = current.ids_with_feature(tab, asked["feature"]) if asked["feature"] else None
    if ids is not None and not len(ids):
        st.warning(plain(f"No example carries the feature {asked['feature']!r}; check its name on the Features page."))
    if sess.ex_like:
        like = nearby.neighbour_ids(tab, sess.ex_like)
        ids = like if ids is None else np.intersect1d(ids, like)
        c1, c2 = st.columns([4, 1])
        c1.info(plain(f"Listing the {len(like) - 1} examples nearest to {sess.ex_like} in Φ, and it."))
        c2.button("Show all again", key="ex_like_clear", on_click=lambda: setattr(sess, "ex_like", None))
    chosen = filter_examples(frame, query=asked["query"], fields=ds.text, labels=asked["labels"],
                             score_range=asked["range"], ids=ids, label_column=ds.label)
    if asked["query"]:
        chosen = chosen.assign(match=mark_hits(chosen, asked["query"], ds.text))
    picked, on_pages = _tables(tab, run, ds, frame, chosen, bits, quality, asked)
    _read_and_review(tab, run, quality, picked, on_pages)


def _controls(ds, bits) -> dict:
    """The search, filter, sort and paging controls: what the reader asked for."""
    with st.container(border=True):
        c1, c2, c3 = st.columns([2, 2, 2])
        url.restore("ex_query")   # a reload keeps the search
        query = c1.text_input("Search the text fields", key="ex_query")
        url.keep("ex_query", query)
        labels = c2.multiselect("Labels", ds.classes, key="ex_labels")
        lo, hi = c3.slider("p̃ range", 0.0, 1.0, (0.0, 1.0), 0.01, key="ex_range")
        c4, c5, c6, c7 = st.columns([2, 2, 1, 1])
        feature = c4.text_input(f"Has feature (e.g. sleeping@{ds.text[-1] if ds.text else 'text'})", key="ex_feature",
                                help="A z-statistics feature name, as on the Features page.")
        sortable = ["predictability", *([] if bits is None else list(bits.columns)), "removed_at", "id", ds.label,
                    *ds.text]
        sort_by = c5.selectbox("Sort by", sortable, key="ex_sort")
        ascending = c6.toggle("Ascending", value=False, key="ex_asc")
        size = c7.selectbox("Per page", [10, 25, 50, 100], index=1, key="ex_size")
        stacked = st.toggle("Stacked (full width: the text fields are readable)", value=True, key="ex_stacked",
                            help="Off: retained and removed side by side.")
    return {"query": query, "labels": labels, "range": (lo, hi), "feature": feature.strip(), "sort_by": sort_by,
            "ascending": ascending, "size": size, "stacked": stacked}


def _columns(ds, frame, bits, qcol) -> tuple:
    """(the columns the tables show, in order, and their configuration)."""
    pvi = [] if bits is None else list(bits.columns)   # beside p̃: both say how predictable an example is
    cols = ["id", "review", qcol, "match", ds.label, "predictability", *pvi, *ds.text, "removed_at",
            *[c for c in frame.columns if c not in ("id", "review", ds.label, "predictability", "removed_at", "warmup",
                                                    "retained", *pvi, *ds.text)]]
    config = {"predictability": st.column_config.ProgressColumn("p̃", min_value=0.0, max_value=1.0, format="%.2f"),
              "match": st.column_config.TextColumn("match", width="large"),
              "removed_at": st.column_config.NumberColumn("removed at phase"),
              qcol: st.column_config.TextColumn(qcol, help="Quality light and dqi score (red / yellow / green; "
                                                           "thresholds on the Filter page, “Quality (DQI)”)")}
    cols = pairs.browse_columns(ds, cols)   # a pair: prompt, chosen, rejected (never its seeded a/b sides)
    if ds.image:
        cols.insert(1, "thumbnail")
        config["thumbnail"] = st.column_config.ImageColumn("image", width="small")
    return cols, config


def _tables(tab, run, ds, frame, chosen, bits, quality, asked) -> tuple:
    """The retained and the removed table, a page each: (the ids picked in them, the ids on their pages)."""
    cols, config = _columns(ds, frame, bits, dq.light_column(frame))
    left, right = (st.container(), st.container()) if asked["stacked"] else st.columns(2)
    picked, on_pages = [], []
    for side, status, box in (("retained", True, left), ("removed", False, right)):
        part = chosen[chosen["retained"] == status]
        with box:
            st.markdown(f"**{side.capitalize()}**: {len(part):,} matching")
            number = st.number_input("Page", 1, 10**9, 1, key=f"ex_page_{side}")
            rows, pages = page(part, number, asked["size"], sort_by=asked["sort_by"], ascending=asked["ascending"])
            rows = dq.with_quality(with_lights(tab, rows, run), quality)
            on_pages.extend(rows["id"])
            if ds.image:
                images = ds.table[ds.image].reindex(rows["id"])
                rows["thumbnail"] = [thumbnail_uri(v) for v in images]
            rows = pairs.with_sides(tab, ds, rows)
            shown = [c for c in cols if c in rows.columns and not (status and c == "removed_at")]
            event = st.dataframe(shown_cells(rows[shown]), hide_index=True, column_config=config, key=f"ex_table_{side}",
                                 height=min(40 + 35 * len(rows), 900), on_select="rerun", selection_mode="single-row")
            st.caption(f"page {min(number, pages)} of {pages}")
            if event.selection.rows:
                picked.append(str(rows["id"].iloc[event.selection.rows[0]]))
    return picked, on_pages


def _read_and_review(tab, run, quality, picked: list, on_pages: list) -> None:
    """The example picked in a table (or chosen from those on the pages), in full, with its review."""
    st.subheader("Read and review")
    shown_ids = picked or [str(i) for i in on_pages]
    chosen = picked[-1] if picked else st.selectbox(
        "Example (or select a row in either table)", shown_ids, index=None, key="ex_pick",
        placeholder="choose an example shown above")
    if chosen is None:
        return
    with st.container(border=True):
        example_detail(tab, run, chosen, key="ex_detail")
        comps = dq.example_components(quality, chosen) if quality is not None else None
        if comps is not None:
            st.markdown("**Quality components** (higher = better)")
            st.dataframe(comps, hide_index=True, key="ex_quality_components",
                         column_config={"score": st.column_config.ProgressColumn("score", min_value=0.0, max_value=1.0,
                                                                                 format="%.2f")})
        review_panel(tab, run, chosen, key="ex_review", show_example=False)
