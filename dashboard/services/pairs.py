"""Preference pairs on the dashboard (issue 42): the length bias in one line, a pair read side by
side, the pair cue table, and which style features of one pair differ between its sides, each from
the bounded cache of the current dataset. The pages call them for a dataset of pairs
(``dataset.pairs`` is not None); `summary` is None for labelled examples."""
from __future__ import annotations

from typing import Optional

import pandas as pd

from artifact_lens.dashboard.services import current
from artifact_lens.zstats.inputs import CUE_MIN_COUNT   # the cue tables' default, the command line's


def summary(tab, ds=None) -> Optional[str]:
    """The shape and the length bias of the pairs (``ds``, or the current dataset), or None."""
    from artifact_lens.zstats.pairs import length_bias, length_bias_line, position_bias, position_bias_line

    ds = ds if ds is not None else current.dataset(tab)
    if ds.pairs is None:
        return None
    line = length_bias_line(current.cached(tab, "pair_bias", ds.fingerprint, lambda: length_bias(ds)))
    order = current.cached(tab, "pair_order", ds.fingerprint, lambda: position_bias(ds))
    said = "" if order is None else f" {position_bias_line(order)[:1].upper()}{position_bias_line(order)[1:]}."
    return (f"Preference pairs ({ds.pairs.shape} shape): the label says which side, a or b (a seeded order), was "
            f"preferred. {line[:1].upper()}{line[1:]}.{said}")


def side_by_side(tab, ids=None, ds=None) -> pd.DataFrame:
    """``prompt``, ``chosen``, ``rejected`` of the pairs (or ``ids``), indexed by id."""
    from artifact_lens.data.pairs import side_by_side as of_pairs

    return of_pairs(ds if ds is not None else current.dataset(tab), ids)


def browse_columns(ds, columns: list) -> list:
    """The columns a table of examples shows: for pairs, the prompt, then the chosen and the rejected
    response, in place of the seeded a/b sides and their label (a person reads a pair that way)."""
    if ds.pairs is None:
        return list(columns)
    out = [c for c in columns if c not in (ds.label, "response_a", "response_b")]
    at = out.index("prompt") + 1 if "prompt" in out else len(out)
    return out[:at] + ["chosen", "rejected"] + out[at:]


def with_sides(tab, ds, rows: pd.DataFrame) -> pd.DataFrame:
    """``rows`` (with an ``id`` column) with each pair's ``chosen`` and ``rejected`` response (as is
    for data that are not pairs)."""
    if ds.pairs is None:
        return rows
    sides = side_by_side(tab, rows["id"].astype(str), ds)
    return rows.assign(chosen=sides["chosen"].to_numpy(), rejected=sides["rejected"].to_numpy())


def cues(tab, min_count: int = 10, alpha: float = 0.01):
    """The pair cue table (`core.zstats.pairs.PairCues`) of the current dataset."""
    from artifact_lens.zstats.pairs import pair_cues

    ds = current.dataset(tab)
    return current.cached(tab, "pair_cues", (int(min_count), float(alpha)),
                          lambda: pair_cues(ds, min_count=int(min_count), alpha=float(alpha)))


def style_of(tab, pair_id: str) -> pd.DataFrame:
    """One pair's style features (`core.text.style`): ``feature``, ``chosen``, ``rejected`` counts and
    ``differs``, the differing ones first."""
    from artifact_lens.text.style import STYLE_FEATURES, style_counts

    row = side_by_side(tab, [pair_id]).iloc[0]
    counts = style_counts([row["chosen"], row["rejected"]])
    out = pd.DataFrame({"feature": [STYLE_FEATURES[c][0] for c in counts.columns],
                        "chosen": counts.iloc[0].to_numpy(), "rejected": counts.iloc[1].to_numpy()})
    out["differs"] = out["chosen"] != out["rejected"]
    return out.sort_values("differs", ascending=False, kind="stable").reset_index(drop=True)
