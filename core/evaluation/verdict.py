"""What an evaluation says, in words: one sentence on whether the filtered split is harder and one
on whether it gives less away to partial-input cues, each with the numbers behind it (paper 000
Table 3: models trained on the full training set, on the i.i.d. and the AFLite-filtered split)."""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

__all__ = ["verdict", "tolerance_text"]


def tolerance_text(tolerance) -> str:
    """The coarse action's stopping tolerance for people."""
    if tolerance is None:
        return "a step counts when it gains more than one standard error of the held-out accuracy"
    return f"a step counts when it gains more than {float(tolerance):.3f}"


def _full_trained(table: Optional[pd.DataFrame]):
    """(i.i.d. accuracy, filtered accuracy, noise, families) of models trained on the full set,
    averaged over families; None when the table lacks either split."""
    if table is None or not len(table):
        return None
    full = table[table["train_set"] == "full"]
    iid, filtered = (full[full["eval_set"] == name] for name in ("i.i.d.", "AFLite-filtered"))
    if not len(iid) or not len(filtered):
        return None
    a, b = float(iid["accuracy"].mean()), float(filtered["accuracy"].mean())
    if not (np.isfinite(a) and np.isfinite(b)):
        return None
    # the noise of the difference: one standard error of each mean accuracy on its split
    m = max(float(filtered["eval_size"].mean()), 1.0)
    n = max(float(iid["eval_size"].mean()), 1.0)
    noise = float(np.sqrt(a * (1 - a) / n + b * (1 - b) / m))
    return a, b, noise, len(iid)


def verdict(ev) -> str:
    """One or two sentences: is the AFLite-filtered split harder, and does it give less away to
    the partial-input cues? Each says the numbers it rests on; "" when the tables cannot tell."""
    s = ev.summary or {}
    chance = s.get("majority")
    chance_text = f"; always guessing the majority label scores {chance:.2f}" if chance is not None else ""
    parts = []
    found = _full_trained(ev.tables.get("families"))
    if found is not None:
        a, b, noise, k = found
        models = f"models trained on the full training set ({k} famil{'y' if k == 1 else 'ies'}, mean)"
        if b < a - 2 * noise:
            parts.append(f"The filtered split is harder: {models} score {a:.2f} on the i.i.d. split and {b:.2f} on "
                         f"the AFLite-filtered split{chance_text}.")
        elif b > a + 2 * noise:
            parts.append(f"The filtered split is not harder: {models} score {b:.2f} on it against {a:.2f} on the "
                         f"i.i.d. split{chance_text}; the filter removed hard examples, not easy ones.")
        else:
            parts.append(f"The filtered split is not measurably harder: {models} score {a:.2f} on the i.i.d. split "
                         f"and {b:.2f} on the filtered split, within the noise (±{2 * noise:.2f}){chance_text}.")
    partial = _full_trained(ev.tables.get("partial_input"))
    if partial is not None:
        a, b, noise, _ = partial
        cue = (ev.context or {}).get("partial_representation") or "the partial input"
        if b < a - 2 * noise:
            parts.append(f"It gives less away: a model reading only {cue} drops from {a:.2f} to {b:.2f}.")
        else:
            parts.append(f"It does not give less away to {cue}: a model reading only that scores {a:.2f} on the "
                         f"i.i.d. split and {b:.2f} on the filtered split.")
    return " ".join(parts)
