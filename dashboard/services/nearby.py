"""What is near one example: its nearest neighbours in Φ ("more like this") and its features' z
for a label."""
from __future__ import annotations

import numpy as np
import pandas as pd

from artifact_lens.dashboard.services import current


#: how many neighbours "more like this" lists
LIKE_THIS = 50


def feature_z(tab, example_id: str, label: str) -> pd.DataFrame:
    """The example's features with their z for ``label`` (highest first)."""
    fm = current.feature_matrix(tab)
    at = pd.Index(np.asarray(fm.ids).astype(str)).get_indexer([example_id])[0]
    if at < 0:
        return pd.DataFrame(columns=["feature", "z", "significant"])
    names = fm.features_of(int(at))
    z = current.zstats(tab).table
    mine = z[(z["feature"].isin(names)) & (z["label"].astype(str) == label)]
    return mine[["feature", "z", "significant"]].sort_values("z", ascending=False).reset_index(drop=True)


def neighbours(tab, example_id: str, k: int) -> pd.DataFrame:
    """The example's ``k`` nearest neighbours in Φ (cosine), with their label, text and similarity."""
    from artifact_lens.representations.neighbours import nearest

    ds, rep = current.dataset(tab), current.representation(tab)
    at = pd.Index(np.asarray(rep.ids).astype(str)).get_indexer([example_id])[0]
    if at < 0:
        return pd.DataFrame()
    rows, sims = nearest(rep.X, int(at), k)
    ids = np.asarray(rep.ids).astype(str)[rows]
    out = ds.table.loc[ids, [ds.label, *ds.text]].reset_index()
    out.insert(1, "similarity", np.round(sims, 3))
    return out


def neighbour_ids(tab, example_id: str) -> np.ndarray:
    """Ids of the example's `LIKE_THIS` nearest neighbours in Φ, and its own."""
    found = neighbours(tab, example_id, LIKE_THIS)
    return np.append(found[found.columns[0]].astype(str).to_numpy(), example_id) if len(found) else np.array([example_id])
