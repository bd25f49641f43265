"""The table layer: a dataset's rows joined to a run's arrays by example id, once.

`ExampleTable` is the one place where run arrays (aligned with ``run.ids``) meet
dataset rows (aligned with ``dataset.table``). The example browsers, the map and
every export read it:

- `ExampleTable.browse(live)`: one row per example for reading (id, label, text
  fields, other plain columns, p̃, removal phase, warm-up flag, retained);
- `ExampleTable.export(live, which)`: the rows and columns an export writes;
- `ExampleTable.rows_of(ids)`: table rows of given ids (e.g. a projection's rows).

``live`` is ``run.result_for(tau, n)`` (what a fresh fit at the live τ and n
reports); without it the fitted run's arrays are used. Warm-up examples (they
trained Φ) have no run position: never scored, never retained or removed.

`filter_examples` and `page` narrow and page a `browse` frame.
"""
from __future__ import annotations

from functools import cached_property
from typing import Optional

import numpy as np
import pandas as pd

from ..base.errors import InputError

__all__ = ["ExampleTable", "SELECTIONS", "filter_examples", "mark_hits", "page"]

#: how a search hit is marked in text shown as text (never HTML from the data)
HIT = ("⟦", "⟧")

SELECTIONS = ("retained", "removed", "all")


class ExampleTable:
    """Dataset rows joined to a run's arrays by id.

    Parameters
    ----------
    dataset : core.data.dataset.Dataset
    run : core.results.runs.Run, optional
        Without a run every example counts as unscored.

    Raises
    ------
    InputError
        The run scored ids that are not in the dataset (a run of other data).
    """

    def __init__(self, dataset, run=None):
        self.dataset, self.run = dataset, run
        self.ids = dataset.table.index.astype(str)
        # _pos[row] = the row's position in run.ids, -1 when it was not scored (warm-up)
        self._pos = np.full(len(self.ids), -1, dtype=np.int64)
        if run is not None:
            run_ids = np.asarray(run.ids).astype(str)
            loc = self.ids.get_indexer(run_ids)
            if (loc < 0).any():
                missing = run_ids[loc < 0][:3].tolist()
                raise InputError(f"the run does not belong to this dataset: ids {missing} are not in it; "
                                 "re-run the filter on the current dataset")
            self._pos[loc] = np.arange(len(loc))
        self.scored = self._pos >= 0

    def __len__(self) -> int:
        return len(self.ids)

    @property
    def nbytes(self) -> int:
        """Memory held beyond the dataset itself (for the dashboard's cache budget)."""
        extra = self.__dict__.get("_browse_base")
        return int(self._pos.nbytes + self.scored.nbytes
                   + (extra.memory_usage(index=True, deep=True).sum() if extra is not None else 0))

    # ------------------------------------------------------------------ the join
    def columns(self, live: Optional[dict] = None) -> dict:
        """Row-aligned ``retained`` (bool), ``removed_at`` (int, -1 = kept or unscored) and
        ``predictability`` (float32, NaN = unscored) for the live result (default: the fit)."""
        n = len(self.ids)
        out = {"retained": np.zeros(n, dtype=bool), "removed_at": np.full(n, -1, dtype=np.int64),
               "predictability": np.full(n, np.nan, dtype=np.float32)}
        if self.run is None:
            return out
        if live is None:
            live = {"retained": self.run.retained, "removed_at": self.run.removed_at,
                    "predictability": self.run.predictability}
        kept = np.asarray(live["retained"], dtype=bool)
        if kept.shape != (len(self.run.ids),):
            raise InputError(f"live['retained'] has {kept.shape[0]} entries but the run scored "
                             f"{len(self.run.ids)} examples; pass the result of run.result_for(tau, n)")
        at = self._pos[self.scored]
        out["retained"][self.scored] = kept[at]
        out["removed_at"][self.scored] = np.where(kept, -1, np.asarray(live["removed_at"]))[at]
        out["predictability"][self.scored] = np.asarray(live["predictability"])[at]
        return out

    @property
    def other_columns(self) -> list:
        """Dataset columns that are not the label, a text field, an embedding or an image."""
        ds = self.dataset
        roles = {ds.label, *ds.text, ds.embedding, ds.image}
        return [c for c in ds.table.columns if c not in roles]

    @cached_property
    def _mislabelled(self) -> Optional[np.ndarray]:
        if self.run is None or not self.run.joint:
            return None
        return np.isin(np.asarray(self.ids), np.asarray(self.run.review_first).astype(str))

    def mislabelled(self) -> Optional[np.ndarray]:
        """Row-aligned bool: the examples a joint run (`core.dynamics.joint`) kept as possibly mislabelled
        and sent to review; None for other runs. Computed once per table (pages redraw often)."""
        return self._mislabelled

    def rows_of(self, ids) -> np.ndarray:
        """Table rows of ``ids`` (-1 for ids not in the dataset)."""
        return self.ids.get_indexer(np.asarray(ids).astype(str))

    # ------------------------------------------------------------------ reading
    def prepare_browsing(self) -> "ExampleTable":
        """Build the reading table now (a cache that measures this object's size counts it)."""
        self._browse_base  # noqa: B018  (a cached property: computed once)
        return self

    @cached_property
    def _browse_base(self) -> pd.DataFrame:
        ds = self.dataset
        table = ds.table
        arrays = (ds.embedding, ds.image)
        cols = [ds.label, *ds.text, *table.columns]
        cols = list(dict.fromkeys(c for c in cols if c in table.columns and c not in arrays))
        out = table[cols].reset_index(drop=True)
        out.insert(0, "id", np.asarray(self.ids))
        return out

    def browse(self, live: Optional[dict] = None) -> pd.DataFrame:
        """One row per example: ``id``, label, text fields, other plain columns, then
        ``predictability``, ``removed_at``, ``warmup`` and ``retained`` at the live τ/n (and
        ``possibly_mislabelled`` for a joint run)."""
        cols = self.columns(live)
        out = self._browse_base.copy()
        out["predictability"] = cols["predictability"]
        out["removed_at"] = cols["removed_at"]
        out["warmup"] = ~self.scored
        out["retained"] = cols["retained"]
        flags = self.mislabelled()
        if flags is not None:
            out["possibly_mislabelled"] = flags
        return out

    # ------------------------------------------------------------------ exports
    def export(self, live: Optional[dict] = None, which: str = "retained", include_arrays: bool = True) -> pd.DataFrame:
        """The table an export writes, with the id as the first column.

        ``which``: ``"retained"`` (kept at the live τ/n), ``"removed"``, or ``"all"``
        (every example plus ``predictability``, ``removed_at`` (the removal phase, -1 if
        retained, empty for warm-up), ``retained``, ``warmup`` and, for a joint run,
        ``possibly_mislabelled``). Warm-up examples are
        in neither ``retained`` nor ``removed``. ``include_arrays=False`` drops the
        embedding and image columns.
        """
        if which not in SELECTIONS:
            raise InputError(f"which={which!r} is not supported; use one of {', '.join(map(repr, SELECTIONS))}")
        ds = self.dataset
        table = ds.written_rows()   # preference pairs in the shape they came in (a filtered DPO file is a DPO file)
        if not include_arrays:
            table = table.drop(columns=[c for c in (ds.embedding, ds.image) if c and c in table.columns])
        if self.run is None and which != "all":
            raise InputError(f"which={which!r} needs an AFLite run; run the filter first or export which='all'")
        cols = self.columns(live)
        if which == "all":
            out = table.reset_index(drop=True)
            out.insert(0, "id", np.asarray(self.ids))
            if self.run is None:
                return out
            out["predictability"] = cols["predictability"].astype(np.float64)
            out["removed_at"] = pd.array(np.where(self.scored, cols["removed_at"], 0), dtype="Int64")
            out.loc[~self.scored, "removed_at"] = pd.NA
            out["retained"] = cols["retained"]
            out["warmup"] = ~self.scored
            flags = self.mislabelled()
            if flags is not None:
                out["possibly_mislabelled"] = flags
            return out
        chosen = cols["retained"] if which == "retained" else self.scored & ~cols["retained"]
        out = table.iloc[np.flatnonzero(chosen)].reset_index(drop=True)
        out.insert(0, "id", np.asarray(self.ids)[chosen])
        return out


def filter_examples(frame: pd.DataFrame, *, query: str = "", fields=(), labels=None, score_range=None,
                    ids=None, label_column: str = "label") -> pd.DataFrame:
    """Rows of ``frame`` matching a plain-text search (case-insensitive substring in ``fields``),
    a set of labels, a predictability range and/or a set of ids (e.g. those carrying a feature)."""
    keep = np.ones(len(frame), dtype=bool)
    if query:
        hit = np.zeros(len(frame), dtype=bool)
        for f in fields:
            hit |= frame[f].astype(str).str.contains(query, case=False, regex=False, na=False).to_numpy()
        keep &= hit
    if labels:
        keep &= frame[label_column].isin(list(labels)).to_numpy()
    if score_range is not None:
        lo, hi = score_range
        s = frame["predictability"].to_numpy()
        keep &= (s >= lo) & (s <= hi)
    if ids is not None:
        keep &= frame["id"].isin(pd.Index(np.asarray(ids).astype(str))).to_numpy()
    return frame[keep]


def mark_hits(frame: pd.DataFrame, query: str, fields, width: int = 60) -> pd.Series:
    """Per row, where ``query`` occurs (case-insensitive) in the first of ``fields`` that holds
    it: a snippet of about ``width`` characters around it with the hit between ⟦ ⟧ (marked
    as text, so it is shown literally). Empty where nothing matches or without a query."""
    out = pd.Series([""] * len(frame), index=frame.index, dtype=object)
    if not query:
        return out
    needle = query.lower()
    for i, (idx, row) in enumerate(frame[list(fields)].astype(str).iterrows()):
        for value in row:
            at = value.lower().find(needle)
            if at < 0:
                continue
            lo, hi = max(0, at - width // 2), min(len(value), at + len(query) + width // 2)
            out.iloc[i] = ("…" if lo else "") + value[lo:at] + HIT[0] + value[at:at + len(query)] + HIT[1] \
                + value[at + len(query):hi] + ("…" if hi < len(value) else "")
            break
    return out


def page(frame: pd.DataFrame, number: int, size: int, sort_by: Optional[str] = None, ascending: bool = True):
    """One page (1-based) of ``frame`` after sorting, and the number of pages."""
    if sort_by:
        frame = frame.sort_values(sort_by, ascending=ascending, kind="stable")
    pages = max(1, -(-len(frame) // max(int(size), 1)))
    number = min(max(int(number), 1), pages)
    return frame.iloc[(number - 1) * size: number * size], pages
