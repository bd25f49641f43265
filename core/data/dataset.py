"""The `Dataset`: a table of labelled examples with stable ids and column roles.

Every source (files, the Hub, a saved `datasets` folder, a DataFrame, the built-in
demos) ends up as one of these; everything downstream (representations, AFLite,
z-statistics, exports) reads it and never the raw source.
"""
from __future__ import annotations

from ..base.keys import data_key
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Optional, Sequence

import numpy as np
import pandas as pd


@dataclass
class Dataset:
    """A labelled table.

    Attributes
    ----------
    table : pandas.DataFrame
        One row per example. Its index holds the stable example ids (strings,
        unique, index name ``"id"``); they survive filtering and export.
    label : str
        The label column. Values are label *names* (``ClassLabel`` integers are
        already mapped to their names); rows without a usable label were dropped.
    text : list of str
        Text columns (e.g. ``["premise", "hypothesis"]``); may be empty.
    embedding : str or None
        Column holding precomputed vectors (lists or arrays), if any.
    image : str or None
        Column holding images (2-D/3-D arrays), if any.
    features : list of str
        Boolean or categorical columns the user marked as features (z-statistics).
    name : str
        Where it came from, for people (a path, a Hub name, ``demo:nli``).
    dropped : dict
        Reason -> number of rows dropped while loading (e.g. unusable label).
    messages : list of str
        Notes for the user produced while loading (dropped rows, empty texts).
    truth : list of str
        Ground-truth columns of the demos (e.g. ``biased``, ``artifact``); never
        fed to a representation.
    pairs : core.data.pairs.PairSource or None
        For preference pairs: their source shape and rows (the table then holds
        ``prompt``, ``response_a``, ``response_b`` and the label ``preferred``).
    choices : core.data.choices.ChoiceSource or None
        For multiple-choice items: their source shape and rows, and each item's number of options
        (the table then holds the stem's fields, ``option_A``… and the label ``gold``).
    """

    table: pd.DataFrame
    label: str
    text: list = field(default_factory=list)
    embedding: Optional[str] = None
    image: Optional[str] = None
    features: list = field(default_factory=list)
    name: str = ""
    dropped: dict = field(default_factory=dict)
    messages: list = field(default_factory=list)
    truth: list = field(default_factory=list)
    pairs: Optional[object] = field(default=None, repr=False, compare=False)
    choices: Optional[object] = field(default=None, repr=False, compare=False)

    def __len__(self) -> int:
        return len(self.table)

    @property
    def unit(self) -> str:
        """What one row is, as every front end names it: "item", "pair" or "example"."""
        return "item" if self.choices is not None else "pair" if self.pairs is not None else "example"

    @property
    def ids(self) -> np.ndarray:
        return self.table.index.to_numpy(dtype=object)

    @property
    def y(self) -> np.ndarray:
        """Label names, aligned with `ids`."""
        return self.table[self.label].to_numpy()

    @property
    def classes(self) -> list:
        return sorted(pd.unique(self.table[self.label]).tolist(), key=str)

    def label_counts(self, *, as_text: bool = False) -> pd.Series:
        """Examples per label, by label; ``as_text``: the labels read as text (and ordered so), as
        the certificate reports them."""
        labels = self.table[self.label]
        return (labels.astype(str) if as_text else labels).value_counts().sort_index()

    @cached_property
    def fingerprint(self) -> str:
        """A content hash of ids, labels and the role columns, feature columns included (16 hex digits).

        Used to key caches of representations, projections and runs: the same data
        in the same roles gives the same fingerprint, whatever file it came from.
        Computed once per object (tens of ms at 20k rows, and the app asks on every
        rerun): the table is treated as read-only; `subset` and
        `dataclasses.replace` make new objects with their own fingerprint.
        """
        return data_key(self._content_parts())

    def _content_parts(self):
        """What the fingerprint hashes, in order: the roles, then ids, labels and texts, then the feature
        columns' cells (with their types: True and 1 differ), then vectors."""
        yield repr((self.label, list(self.text), self.embedding, self.image))
        frame = self.table[[self.label, *self.text]].astype(str)
        yield pd.util.hash_pandas_object(frame, index=True).to_numpy().tobytes()
        if self.features:   # (only then: a dataset without feature columns keeps the fingerprint it had)
            yield repr(("features", list(self.features)))
            cells = self.table[list(self.features)].map(lambda v: f"{type(v).__name__}:{v}")
            yield pd.util.hash_pandas_object(cells, index=False).to_numpy().tobytes()
        for col in filter(None, (self.embedding, self.image)):
            for v in self.table[col]:
                try:
                    yield np.asarray(v, dtype=np.float32).tobytes()
                except (TypeError, ValueError):  # ragged or not numbers: the representation reports it
                    yield repr(v)

    @cached_property
    def content_key(self) -> str:
        """The name of everything this object holds (16 hex digits): the `fingerprint` (the roles and
        their cells) and every other cell read, the source rows of pairs or items and what loading
        dropped. Two loads of a file give the same key exactly when they read the same content, so a
        file edited in place is a new dataset and its old results are never shown for it; the path it
        was read from is not part of it (the same content elsewhere is the same dataset)."""
        return data_key(self._all_parts())

    def _all_parts(self):
        yield "dataset-v1:" + self.fingerprint
        roled = {self.label, *self.text, *self.features, self.embedding, self.image}
        rest = [c for c in self.table.columns if c not in roled]
        yield repr((self.choices is not None, self.pairs is not None, sorted(self.dropped.items()),
                    [str(c) for c in self.table.columns], list(self.truth)))
        for frame in (self.table[rest], *(src.rows for src in (self.pairs, self.choices) if src is not None)):
            yield repr([(str(c), str(t)) for c, t in frame.dtypes.items()])
            if len(frame.columns):
                yield pd.util.hash_pandas_object(frame.astype(str), index=True).to_numpy().tobytes()
        if self.choices is not None:
            yield repr((self.choices.shape, self.choices.columns, self.choices.stem, self.choices.options))
            yield pd.util.hash_pandas_object(self.choices.n_options.astype(str), index=True).to_numpy().tobytes()
        if self.pairs is not None:
            yield repr((self.pairs.shape, self.pairs.columns, self.pairs.order_seed))

    def written_rows(self) -> pd.DataFrame:
        """The rows an export writes, indexed by id: the table, or for preference pairs and
        multiple-choice items their source rows in the shape they came in
        (`core.data.pairs.PairSource.rows_for`, `core.data.choices.ChoiceSource.rows_for`)."""
        source = self.pairs if self.pairs is not None else self.choices
        return self.table if source is None else source.rows_for(self.table.index)

    def subset(self, ids: Sequence) -> "Dataset":
        """The examples with these ids, in the dataset's order, roles kept."""
        keep = self.table.index.isin(list(ids))
        return replace(self, table=self.table[keep], dropped=dict(self.dropped), messages=list(self.messages))

    def feature_candidates(self, max_values: int = 50) -> list:
        """Columns with no role that could be features (`core.text.features`, one value per example):
        booleans, numbers, and categories with at most ``max_values`` values that repeat (a column of
        unique strings is an id or a text, not a category). What the Data page offers to pick."""
        out = []
        for column in self.table.columns:
            if self.role_of(column) != "other":
                continue
            values = self.table[column].dropna()
            if not len(values) or any(isinstance(v, (list, tuple, dict, set, np.ndarray)) for v in values.head(200)):
                continue
            kind = values.dtype.kind
            distinct = values.astype(str).nunique()
            if kind in "biuf" or (distinct <= max_values and distinct < len(values)):
                out.append(column)
        return out

    def role_of(self, column: str) -> str:
        if column == self.label:
            return "label"
        if column in self.text:
            return "text"
        if column == self.embedding:
            return "embedding"
        if column == self.image:
            return "image"
        if column in self.features:
            return "feature"
        if column in self.truth:
            return "ground truth"
        return "other"


def text_values(values) -> list:
    """A text column's values as strings, a missing value (None or NaN) as "" (the one rule)."""
    return ["" if (v is None or (isinstance(v, float) and np.isnan(v))) else str(v) for v in values]
