"""Degenerate preference pairs (issue 42): pairs that cannot teach a preference, listed by id.

* ``identical``: the chosen and rejected responses are the same text (after trimming spaces);
* ``empty chosen`` / ``empty rejected``: a side has no word (no text, or only punctuation such as
  "..." or "?");
* ``cut off chosen`` / ``cut off rejected``: a side seems to stop mid-sentence: its last character
  is a letter, a digit or a comma after at least `CUT_OFF_WORDS` words (a short answer such as "One
  sec" is complete; a long one that ends on "that have" was truncated). A heuristic: a list whose
  last item has no full stop or a closing URL reads as cut off too, so these are listed for review
  and counted apart (`STRICT` are the reasons that leave nothing to compare).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

__all__ = ["degenerate_pairs", "CUT_OFF_WORDS", "REASONS", "STRICT"]

#: the least words of a side that ends mid-sentence for it to count as cut off
CUT_OFF_WORDS = 10

REASONS = ("identical", "empty chosen", "empty rejected", "cut off chosen", "cut off rejected")

#: the reasons that leave nothing to compare (the certificate's ``pairs.degenerate``)
STRICT = REASONS[:3]


def _cut_off(texts, words) -> np.ndarray:
    last = np.array([t[-1:] for t in texts], dtype=object)
    return np.array([bool(c) and (c.isalnum() or c == ",") for c in last]) & (words >= CUT_OFF_WORDS)


def degenerate_pairs(ds) -> pd.DataFrame:
    """One row per (degenerate pair, reason): ``id``, ``reason`` (one of `REASONS`), in the dataset's
    order; a pair may have several reasons."""
    from ..data.pairs import chosen_rejected
    from .style import word_counts

    chosen, rejected = (np.array([str(t).strip() for t in side], dtype=object) for side in chosen_rejected(ds))
    wc, wr = word_counts(chosen), word_counts(rejected)
    flags = {"identical": chosen == rejected, "empty chosen": wc == 0, "empty rejected": wr == 0,
             "cut off chosen": _cut_off(chosen, wc), "cut off rejected": _cut_off(rejected, wr)}
    ids = np.asarray(ds.table.index.astype(str))
    parts = [pd.DataFrame({"id": ids[mask], "reason": reason, "_row": np.flatnonzero(mask)})
             for reason, mask in flags.items() if mask.any()]
    if not parts:
        return pd.DataFrame({"id": pd.Series(dtype=str), "reason": pd.Series(dtype=str)})
    out = pd.concat(parts, ignore_index=True).sort_values(["_row", "reason"], kind="stable")
    return out.drop(columns="_row").reset_index(drop=True)
