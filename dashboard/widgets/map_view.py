"""The Map page's figure and selection: what the figure is made of at a live τ/n, a digest of it
(the figure is rebuilt and sent only when it changes), the built figure kept for the session,
and the box/lasso selection kept while τ and n move (the chart itself forgets it whenever its
figure changes)."""
from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Optional

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import plotly.io
import streamlit as st

from artifact_lens.base.keys import digest_of
from artifact_lens.plots.aflite import projection_map, selected_rows
from artifact_lens.team.review import LIGHT_COLOURS
from artifact_lens.dashboard.services import current, map_settings
from artifact_lens.dashboard.state import url
from artifact_lens.dashboard.services import quality as dq
from artifact_lens.dashboard.widgets.review_panel import BADGES, with_lights

__all__ = ["MapView", "COLOURINGS_HELP"]

DQ_COLUMNS = ("quality", "quality light")
LIVE_COLUMNS = ("retained", "predictability", "removed_at", "review")   # they change with τ and n
COLOURINGS_HELP = ("review: the traffic lights of team review (green agreed, yellow disputed or overridden, red "
                   "removed and not reviewed); needs the run saved in the workspace. quality: the combined DQI "
                   "score; quality light: its red / yellow / green light (Filter page, “Quality (DQI)”).")


class PreparedFigure(go.Figure):
    """A built figure that hands `st.plotly_chart` its JSON-ready dict: plotly_chart calls
    ``to_dict()``, a deep copy of every array (0.1–0.2 s a rerun at 100k points), then encodes
    the numpy arrays as base64 again; this one is encoded once and answers the same dict."""

    def __init__(self, figure: go.Figure):
        super().__init__()
        self._prepared = json.loads(plotly.io.to_json(figure, validate=False))

    def to_dict(self):
        return self._prepared


@dataclass
class MapView:
    """One rerun's map: the tab, run, dataset, projection and the page's choices."""

    tab: Any
    run: Any
    ds: Any
    proj: Any
    table: Any
    colour: str
    size: int
    quality: Optional[pd.DataFrame]

    @property
    def sess(self):
        return self.tab.session

    def __post_init__(self):
        self.rows_of_points = self.table.rows_of(self.proj.ids)   # projection rows (= rows of Φ) -> table rows

    # ------------------------------------------------------------------ selection
    def keep_selection(self, ids, build: int) -> None:
        """on_select callback: a box or lasso (or a cleared selection) replaces the kept ids (``ids``:
        the drawn points' ids, by row of the figure ``build``). The ids are kept in the tab's session
        and drawn again as ``selectedpoints``; until then the chart shows this selection itself."""
        rows = selected_rows(st.session_state.get("map"))
        if not rows and build != st.session_state.get("map_figure", {}).get("builds"):
            # a chart holding a box drawn on it reports an empty selection as a new figure replaces it:
            # not the user's doing (clearing is the button, or a double-click on the current chart)
            return
        self.sess.map_selection = tuple(str(i) for i in ids[rows]) if rows else ()
        self.sess.map_selection_of = self.sess.ds_key
        st.session_state["map_figure_shows"] = self.sess.map_selection

    def selection_rows(self, ids) -> list:
        """Rows of ``ids`` (the points, in the table's fixed order) that are selected, found once per
        selection: a τ/n rerun keeps the same selection (looking up 14k ids in 100k took ~0.1 s)."""
        key = (self.sess.ds_key, self.run.key, len(ids), self.sess.map_selection)
        found = st.session_state.get("map_selection_rows")
        if found is None or found[0] != key:
            found = (key, np.flatnonzero(ids.astype(str).isin(self.sess.map_selection).to_numpy()).tolist())
            st.session_state["map_selection_rows"] = found
        return found[1]

    # ------------------------------------------------------------------ the figure
    def inputs(self, shown, column, drawn, hover_status, *rest) -> str:
        """A digest of everything the figure is made of: values, not knobs, so a τ/n move changes it
        only where the colours (and then the hover's p̃ and status) change."""
        # the dataset's own columns (the label, ...) are fixed by ds_key; hashing 100k strings costs ~50 ms
        fixed = column == self.ds.label or column in self.table.other_columns and column not in DQ_COLUMNS
        live = ([] if fixed else [column]) + (["predictability", "retained"] if hover_status else [])
        return digest_of(repr((self.sess.ds_key, self.run.key, self.proj.method, column, hover_status, *rest)),
                         self.proj.xy, np.empty(0) if drawn is None else np.asarray(drawn),
                         pd.util.hash_pandas_object(shown[live], index=False).to_numpy() if live else np.empty(0))

    def parts(self, live) -> dict:
        """Everything the figure is made of at the live result ``live``, and its digest."""
        ds, sess = self.ds, self.sess
        points = with_lights(self.tab, self.table.browse(live).iloc[self.rows_of_points].reset_index(drop=True), self.run)
        column = {"label": ds.label, "retained": "retained", "removal phase": "removed_at"}.get(self.colour, self.colour)
        note = None
        if column == "review" and "review" not in points:
            note = "The run is not saved in the workspace, so it has no reviews yet: coloured by label."
            column = ds.label
        palette = {BADGES[light]: LIGHT_COLOURS[light] for light in BADGES} if column == "review" else None
        if column in DQ_COLUMNS:
            if self.quality is None:
                column = ds.label   # not computed yet: the page's offer says how
            else:
                found = self.quality.reindex(points["id"].astype(str))
                points = points.assign(**{"quality": found["dqi"].to_numpy(dtype=float),
                                          "quality light": found["light"].fillna("n/a").to_numpy()})
                palette = dq.LIGHT_PALETTE if column == "quality light" else None
        if sess.map_selection_of != sess.ds_key:   # a new session (a reload) takes the URL's selection
            sess.map_selection, sess.map_selection_of = url.ids_named("map_sel"), sess.ds_key
        url.keep_ids("map_sel", sess.map_selection)
        rows = self.selection_rows(points["id"])
        # above the documented limit a seeded sample (the same on every redraw) plus the selection is drawn
        drawn = map_settings.map_sample(len(points), keep=rows)
        shown = points if drawn is None else points.iloc[drawn].reset_index(drop=True)
        hover_text = len(shown) <= map_settings.map_text_limit()
        # p̃ and the status in the hover only when the colours follow τ and n anyway: otherwise they
        # would make every τ/n move send the whole figure again (~2 s at 20k points with texts)
        hover_status = hover_text and column in LIVE_COLUMNS
        what = f"{len(points):,} points" if drawn is None else f"{len(shown):,} of {len(points):,} points"
        kw = dict(colour_name="label" if column == ds.label else self.colour, label=ds.label, size=self.size,
                  title=f"{self.proj.method.upper()} of Φ ({what})", palette=palette, classes=ds.classes,
                  text_fields=ds.text, hover_text=hover_text, hover_status=hover_status)
        return dict(points=points, column=column, note=note, rows=rows, drawn=drawn, shown=shown, kw=kw,
                    marked=rows if drawn is None else np.flatnonzero(np.isin(drawn, rows)).tolist(),
                    inputs=self.inputs(shown, column, drawn, hover_status, self.size, kw["title"], repr(palette),
                                       hover_text))

    def figure(self, parts):
        """(figure, ids by row of it): the session's last figure when its inputs and the selection
        the chart shows are unchanged, so Streamlit sends a reference to the same message (not ~4 MB
        again at 100k) and the browser redraws nothing."""
        inputs, shown, drawn, marked = parts["inputs"], parts["shown"], parts["drawn"], parts["marked"]
        selection = tuple(self.sess.map_selection)
        last = st.session_state.get("map_figure")
        # a chart on screen shows its figure's selection or one drawn on it since; a new one its figure's
        shows = st.session_state.get("map_figure_shows") if "map" in st.session_state else None
        if last is not None and last["inputs"] == inputs and (last["selection"] if shows is None else shows) == selection:
            return last["figure"], last["ids"]
        xy = self.proj.xy if drawn is None else self.proj.xy[drawn]
        fig = projection_map(xy, shown, colour=parts["column"], selected=marked if marked else None, **parts["kw"])
        # a rebuilt figure always differs from the last one, so the browser draws it afresh (a cleared
        # selection would otherwise send the same figure and the chart would keep showing the old box)
        builds = (last or {}).get("builds", 0) + 1
        fig = PreparedFigure(fig.update_layout(datarevision=f"{inputs[:12]}-{builds}"))
        st.session_state["map_figure"] = dict(inputs=inputs, selection=selection, figure=fig, builds=builds,
                                              ids=shown["id"].astype(str).to_numpy())
        st.session_state["map_figure_shows"] = selection
        return fig, st.session_state["map_figure"]["ids"]

    def draw(self, parts) -> None:
        if parts["note"]:
            st.caption(parts["note"])
        fig, ids = self.figure(parts)
        build = st.session_state["map_figure"]["builds"]
        st.plotly_chart(fig, key="map", on_select=lambda: self.keep_selection(ids, build),
                        selection_mode=("box", "lasso"))
        if not parts["kw"]["hover_text"]:
            st.caption(f"Hovering a point shows its id and label only: above {map_settings.map_text_limit():,} points "
                       "the map leaves each point's p̃, status and text out of the hover (they made the figure "
                       "five times larger and slower to draw and to select). Select points to read them in the "
                       "list below. The limit is the server's ARTIFACT_LENS_MAP_TEXT_POINTS.")
        if parts["drawn"] is not None:
            shown, points = parts["shown"], parts["points"]
            st.caption(f"Drawing {len(shown):,} of {len(points):,} points: above {map_settings.map_point_limit():,} "
                       "points the map draws a seeded random sample of that many (the same on every redraw) "
                       "plus the selected examples, so the browser stays responsive; a box or lasso selects "
                       "among the drawn points. The limit is the server's ARTIFACT_LENS_MAP_POINTS.")

    def on_screen_is_stale(self, parts) -> bool:
        """Whether the chart on screen shows other inputs or another selection than ``parts`` (then
        the page reruns once for that state: a rerun can never repeat itself)."""
        on_screen = (st.session_state.get("map_figure", {}).get("inputs"), st.session_state.get("map_figure_shows"))
        stale = (parts["inputs"], tuple(self.sess.map_selection))
        if stale != on_screen and st.session_state.get("map_rerun_for") != stale:
            st.session_state["map_rerun_for"] = stale
            return True
        return False
