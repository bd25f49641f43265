"""Multiple-choice items on the dashboard (issue 55): what the Data page says of them (the shape,
the options per item, where the gold sits, how often it is the longest), an item read with its gold
marked, and the option cue table, each cached by the dataset's fingerprint in the bounded cache."""
from __future__ import annotations

import pandas as pd

from artifact_lens.dashboard.services import current
from artifact_lens.zstats.inputs import CUE_MIN_COUNT   # the cue tables' default, the command line's


def summary(tab, ds) -> dict:
    """`core.zstats.choices.choice_summary` of the items ``ds``."""
    from artifact_lens.zstats.choices import choice_summary

    return current.cached(tab, "choice_summary", ds.fingerprint, lambda: choice_summary(ds))


def summary_lines(tab, ds) -> list:
    """The summary as the CLI's ``info`` says it, one "Heading: text" line each (one vocabulary for both)."""
    from artifact_lens.zstats.choices import choice_lines

    return [f"{heading[:1].upper()}{heading[1:]}: {text}" for heading, text in choice_lines(summary(tab, ds))]


def items_read(ds, ids) -> pd.DataFrame:
    """The items ``ids`` as a person reads them: the stem's fields, then each option with the gold
    one marked "✔", indexed by id."""
    from artifact_lens.data.choices import LETTERS, options_of

    table = ds.table.loc[[str(i) for i in ids]]
    texts, k, gold = options_of(ds, table)
    out = table[ds.choices.stem].copy()
    for j in range(texts.shape[1]):
        out[LETTERS[j]] = [("✔ " if g == j else "") + t if j < kk else "" for t, kk, g in zip(texts[:, j], k, gold)]
    return out


def cues(tab, ds, min_count: int, alpha: float):
    """The option cue table (`core.zstats.choices.option_cues`) and the gold position."""
    from artifact_lens.zstats.choices import gold_position, option_cues

    return current.cached(tab, "option_cues", (ds.fingerprint, int(min_count), float(alpha)),
                          lambda: (option_cues(ds, min_count=int(min_count), alpha=float(alpha)), gold_position(ds)))


def standing_out(tab, ds, item_id: str) -> list:
    """The option cues over the line (at the Data page's defaults: n ≥ 10, α = 0.01) that this item's
    gold carries: the features on which its gold stands out, strongest first."""
    from artifact_lens.zstats.choices import cue_phrase, items_with_cue

    def carriers():
        found, _ = cues(tab, ds, 10, 0.01)
        over = found.table[found.table["over_line"] & (found.table["z"] > 0)]
        ids = items_with_cue(ds, over["feature"])
        return [(cue_phrase(f, kind), z, set(map(str, got))) for f, kind, z, got in
                zip(over["feature"], over["kind"], over["z"], ids)]

    listed = current.cached(tab, "gold_carriers", ds.fingerprint, carriers)
    return [f"{phrase} (z {z:+.1f})" for phrase, z, got in listed if str(item_id) in got]
