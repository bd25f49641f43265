"""The rows behind a cue (issue 44, item 2): which of the candidate's examples carry each new or
stronger cue `check` names, so a maintainer can fix or review exactly those (``check --rows``); for
preference pairs, the pairs whose favoured side has more of the cue's feature; for multiple-choice
items, the items whose gold carries it."""
from __future__ import annotations

import pandas as pd

__all__ = ["cue_rows", "ROW_COLUMNS"]

#: the columns of ``check --rows``: the example, its label, and the cue it carries (the cue's label,
#: its share of the feature's examples after the change, its z)
ROW_COLUMNS = ["id", "label", "feature", "cue_label", "share_after", "z"]


def cue_rows(dataset, cues: pd.DataFrame) -> pd.DataFrame:
    """One row per (example of ``dataset``, cue of ``cues``) the example carries: ``cues`` as
    `core.certificate.cues.cue_changes` lists them, ``dataset`` the candidate's data."""
    from ..text.features import feature_matrix, ids_with_feature

    if cues is None or not len(cues):
        return pd.DataFrame(columns=ROW_COLUMNS)
    if getattr(dataset, "pairs", None) is not None:
        return _pair_rows(dataset, cues)
    if getattr(dataset, "choices", None) is not None:
        return _item_rows(dataset, cues)
    fm = feature_matrix(dataset)
    labels = dataset.table[dataset.label].astype(str)
    labels.index = labels.index.astype(str)
    parts = []
    for cue in cues.itertuples(index=False):
        ids = ids_with_feature(fm, cue.feature)
        parts.append(pd.DataFrame({"id": ids, "label": labels.reindex(ids).to_numpy(), "feature": cue.feature,
                                   "cue_label": cue.label, "share_after": cue.share_after, "z": cue.z}))
    return pd.concat(parts, ignore_index=True)[ROW_COLUMNS]


def _pair_rows(dataset, cues: pd.DataFrame) -> pd.DataFrame:
    """For preference pairs: the pairs whose favoured side (the cue's "label", chosen or rejected)
    has more of the cue's feature; ``label`` is that side."""
    from ..zstats.pairs import pairs_with_feature

    carriers = pairs_with_feature(dataset, zip(cues["feature"], cues["label"]))
    parts = [pd.DataFrame({"id": ids, "label": cue.label, "feature": cue.feature, "cue_label": cue.label,
                           "share_after": cue.share_after, "z": cue.z})
             for cue, ids in zip(cues.itertuples(index=False), carriers)]
    return pd.concat(parts, ignore_index=True)[ROW_COLUMNS]


def _item_rows(dataset, cues: pd.DataFrame) -> pd.DataFrame:
    """For multiple-choice items: the items whose gold carries the cue's feature (has the most of it
    among options that differ on it, or sits at its position); ``label`` is the gold's letter."""
    from ..zstats.choices import items_with_cue

    gold = dataset.table[dataset.label].astype(str)
    gold.index = gold.index.astype(str)
    carriers = items_with_cue(dataset, cues["feature"])
    parts = [pd.DataFrame({"id": ids, "label": gold.reindex(ids).to_numpy(), "feature": cue.feature,
                           "cue_label": cue.label, "share_after": cue.share_after, "z": cue.z})
             for cue, ids in zip(cues.itertuples(index=False), carriers)]
    return pd.concat(parts, ignore_index=True)[ROW_COLUMNS]
