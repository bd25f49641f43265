"""Preference pairs (issue 42): a prompt, a chosen response and a rejected one, in the four shapes
people keep them in, read into one internal shape and written back in the shape they came in.

The shapes (`SHAPES`), detected from the columns or named:

* ``standard``: ``prompt``, ``chosen``, ``rejected`` as strings (TRL's standard preference format);
* ``conversational``: the same columns as lists of ``{role, content}`` messages (TRL's
  conversational format); the compared turn is the last assistant message of each side, and
  without a ``prompt`` column the messages the two sides share are the prompt;
* ``implicit``: ``chosen`` and ``rejected`` as whole transcripts that share the conversation and
  differ in the last assistant turn (Anthropic HH-RLHF, ``\\n\\nHuman: … \\n\\nAssistant: …``); the
  shared part up to its last ``Assistant:`` is the prompt;
* ``judged``: ``response_a``, ``response_b`` and a ``winner`` in {a, b, tie} (``prompt`` optional);
  ties are kept apart, counted in `Dataset.dropped` and said in its messages.

The internal shape is a `Dataset` with text fields ``prompt``, ``response_a``, ``response_b`` and
the label ``preferred`` ("a" or "b"): which side was preferred, with the sides put in a random
order drawn from (``order_seed``, the pair's id). So labels are balanced, nothing downstream depends
on which file column held the chosen response, and a pair keeps its order in any subset. A prompt
is written one way whatever its shape (`prompt_text`: "Human: …\\n\\nAssistant: …" turns), so the
same pairs in any shape give the same dataset, fingerprint and certificate. `Dataset.pairs`
(`PairSource`) keeps the source rows, so `Dataset.written_rows` writes a filtered split back in its
shape.
"""
from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from ..base.errors import InputError
from ..base.keys import digest

__all__ = ["SHAPES", "PAIR_FIELDS", "PREFERRED", "PairSource", "detect_shape", "read_pairs", "prompt_text", "winner_of",
           "cell_text", "chosen_rejected", "side_by_side"]

SHAPES = ("standard", "conversational", "implicit", "judged")

#: the internal text fields: the prompt, then the two responses in their drawn order
PAIR_FIELDS = ("prompt", "response_a", "response_b")

#: the label column: which side ("a" or "b") was preferred
PREFERRED = "preferred"

#: the seed of the sides' order when none is given
ORDER_SEED = 0

_WINNERS = {"a": "a", "b": "b", "response_a": "a", "response_b": "b", "model_a": "a", "model_b": "b",
            "1": "a", "2": "b", "tie": "tie", "tie (bothbad)": "tie", "both_bad": "tie", "draw": "tie"}

_TURN = re.compile(r"\n\n(Human|Assistant|System):", re.IGNORECASE)
_ROLE_NAMES = {"user": "Human", "human": "Human", "assistant": "Assistant", "system": "System"}
_MARKER = "\n\nAssistant:"


@dataclass
class PairSource:
    """Where a pair dataset came from: its ``shape``, the source ``columns`` by role (``prompt``,
    ``chosen``, ``rejected``, ``response_a``, ``response_b``, ``winner``), the ``order_seed`` of
    its sides and the source ``rows`` (indexed by pair id), which an export writes back."""

    shape: str
    columns: dict
    order_seed: int
    rows: pd.DataFrame

    def rows_for(self, ids) -> pd.DataFrame:
        """The source rows of these pair ids, in that order (what an export writes)."""
        return self.rows.loc[ids]


def winner_of(value):
    """A judged pair's winner cell as "a", "b" or "tie" (`_WINNERS`), or None for anything else."""
    return None if value is None else _WINNERS.get(str(value).strip().lower())


def _lower(frame: pd.DataFrame) -> dict:
    return {str(c).lower(): str(c) for c in frame.columns}


def _is_messages(values: pd.Series) -> bool:
    sample = [v for v in values.head(50) if v is not None and not (isinstance(v, float) and np.isnan(v))]
    return bool(sample) and all(isinstance(v, (list, tuple, np.ndarray)) for v in sample)


def detect_shape(frame: pd.DataFrame, columns: Optional[dict] = None) -> Optional[str]:
    """The shape of a table of pairs from its columns (``columns``: role → column, named by the
    user), or None when it does not look like pairs."""
    named = _columns(frame, columns or {}, None, strict=False)
    if named.get("winner") and named.get("response_a") and named.get("response_b"):
        return "judged"
    if named.get("chosen") and named.get("rejected"):
        if _is_messages(frame[named["chosen"]]):
            return "conversational"
        return "standard" if named.get("prompt") else "implicit"
    return None


#: the roles each shape reads
_ROLES = {"standard": ("prompt", "chosen", "rejected"), "conversational": ("prompt", "chosen", "rejected"),
          "implicit": ("chosen", "rejected"), "judged": ("prompt", "response_a", "response_b", "winner")}


def _columns(frame: pd.DataFrame, given: dict, shape: Optional[str], strict: bool = True) -> dict:
    """The source column of each role: the user's, else the role's own name in any case (two columns
    that differ only in case, one column for two roles, or a named column the shape does not read:
    InputError, never a silent choice)."""
    lower = _lower(frame)
    out = {}
    for role in ("prompt", "chosen", "rejected", "response_a", "response_b", "winner"):
        if given.get(role):
            if given[role] not in frame.columns:
                raise InputError(f"no column {given[role]!r} for the {role.replace('_', ' ')} of the pairs; the "
                                 f"columns are: {', '.join(map(str, frame.columns))}.")
            out[role] = given[role]
        elif role in lower:
            same = [str(c) for c in frame.columns if str(c).lower() == role]
            if len(same) > 1 and strict:
                raise InputError(f"the columns {' and '.join(map(repr, same))} both name the pairs' "
                                 f"{role.replace('_', ' ')}; rename one, or choose one with "
                                 f"--{role.replace('_', '-')}-column.")
            out[role] = lower[role]
    if strict:
        roles_of = {}
        for role, column in out.items():
            roles_of.setdefault(column, []).append(role)
        shared = {c: r for c, r in roles_of.items() if len(r) > 1}
        if shared:
            column, roles = next(iter(shared.items()))
            raise InputError(f"the column {column!r} is given as the pairs' {' and '.join(roles)}; each role reads its "
                             "own column.")
    if strict and shape is not None:
        unread = [r for r in given if given.get(r) and r not in _ROLES[shape]]
        if unread:
            raise InputError(f"the {shape} shape has no {unread[0].replace('_', ' ')}: drop --"
                             f"{unread[0].replace('_', '-')}-column, or give the shape that reads it (--pairs "
                             f"{'judged' if unread[0] in ('winner', 'response_a', 'response_b') else 'standard'}).")
        if shape == "implicit" and "prompt" in out:
            raise InputError(f"the implicit shape reads the prompt from the transcripts, but this file has a prompt "
                             f"column ({out['prompt']!r}): give --pairs standard (or conversational) to read it.")
        needed = {"judged": ("response_a", "response_b", "winner"), "standard": ("prompt", "chosen", "rejected")}.get(
            shape, ("chosen", "rejected"))
        missing = [r for r in needed if r not in out]
        if missing:
            raise InputError(f"pairs of the {shape} shape need the column(s) {', '.join(missing)}; the columns are: "
                             f"{', '.join(map(str, frame.columns))}. Name them with --chosen-column, "
                             "--rejected-column, --prompt-column, --response-a-column, --response-b-column, "
                             "--winner-column (docs/data.md, 'Preference pairs').")
    return out


# ---------------------------------------------------------------- one text per side


def _turns(text: str) -> list:
    """(role, content) turns of an HH-style transcript; text without markers is one turn of no role."""
    text = "" if text is None else str(text)
    parts = _TURN.split("\n\n" + text.lstrip("\n"))   # a transcript may start with its first marker
    if len(parts) == 1:
        return [(None, text.strip())] if text.strip() else []
    turns = [(None, parts[0].strip())] if parts[0].strip() else []
    for i in range(1, len(parts) - 1, 2):
        turns.append((_ROLE_NAMES[parts[i].lower()], parts[i + 1].strip()))
    return turns


def _missing(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _number(value) -> bool:
    return isinstance(value, (int, float, np.integer, np.floating, np.bool_)) and not _missing(value)


class _Cells:
    """How one pair file's cells become text, and what was read in a way worth saying (``notes``:
    what → how many). A cell that is neither text nor what its shape defines is refused by row."""

    def __init__(self):
        self.notes = {}
        self.where = ""

    def note(self, what: str) -> None:
        self.notes[what] = self.notes.get(what, 0) + 1

    def refuse(self, held, expected: str):
        shown = repr(held) if not isinstance(held, str) else repr(held[:60])
        raise InputError(f"{self.where} holds {shown[:80]} where {expected} was expected; fix that row, or give the "
                         "pairs' shape that reads it (--pairs; docs/data.md, 'Preference pairs').")

    def text(self, value) -> str:
        """A text cell: a string as it is, a missing one as "" (a degenerate side), a number as its
        text (noted); a list or a mapping is refused."""
        if _missing(value):
            return ""
        if isinstance(value, str):
            return value.strip()
        if _number(value):
            self.note("number cells read as their text")
            return str(value.item() if isinstance(value, np.generic) else value)
        self.refuse(value, "text (a list of messages is the conversational shape)")

    def content(self, value) -> str:
        """A message's content: text, or a list of content parts ({"type": "text", "text": …})."""
        if isinstance(value, (list, tuple, np.ndarray)):
            parts = list(value)
            if all(isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str) for p in parts):
                self.note("message contents given as text parts, joined")
                return "\n".join(p["text"].strip() for p in parts).strip()
            self.refuse(parts, "a message content of text or text parts")
        return self.text(value)

    def messages(self, value) -> list:
        """(role, content) of a list of messages; a missing side has none, and text alone is one
        assistant message."""
        if _missing(value):
            return []
        if isinstance(value, str) or _number(value):
            return [("Assistant", self.text(value))]
        if not isinstance(value, (list, tuple, np.ndarray)):
            self.refuse(value, "a list of messages [{'role': …, 'content': …}]")
        out = []
        for m in list(value):
            if not isinstance(m, dict) or "content" not in m:
                self.refuse(m, "a message {'role': …, 'content': …}")
            role = _ROLE_NAMES.get(str(m.get("role", "")).lower(), str(m.get("role", "")).title() or None)
            out.append((role, self.content(m["content"])))
        return out

    def last_assistant(self, turns: list) -> str:
        """The compared turn of a side's ``turns``: its last assistant message ("" and noted when
        it has none, as a side with no response)."""
        at = _last_assistant_at(turns)
        if at is None:
            if turns:
                self.note("sides with no assistant message, read as an empty response")
            return ""
        return turns[at][1]


def cell_text(value) -> str:
    """A text cell as the pair reader reads it (`_Cells.text`): "" when missing, a number as its text."""
    return _Cells().text(value)


def _last_assistant_at(turns: list):
    return next((i for i in range(len(turns) - 1, -1, -1) if turns[i][0] == "Assistant"), None)


def _render(turns) -> str:
    return "\n\n".join(content if role is None else f"{role}: {content}" for role, content in turns
                       if content or role is None)


def prompt_text(prompt, cells: Optional[_Cells] = None) -> str:
    """A prompt written one way, whatever its shape: a list of messages and an HH transcript both as
    "Human: …\\n\\nAssistant: …" turns (an empty last ``Assistant:``, the cue for the response, left
    out); plain text as it is, stripped."""
    cells = cells or _Cells()
    if _missing(prompt):
        return ""
    if isinstance(prompt, (list, tuple, np.ndarray)):
        return _render(cells.messages(prompt))
    turns = _turns(cells.text(prompt))
    while turns and turns[-1][0] == "Assistant" and not turns[-1][1]:
        turns.pop()
    return _render(turns)


_EARLIER = "pairs whose two sides differ before their last assistant turn (the prompt is what they share)"


def _implicit(cells: _Cells, chosen, rejected) -> tuple:
    """(prompt, chosen response, rejected response) of two transcripts: the shared part up to its
    last ``Assistant:`` is the prompt; sides that share no ``Assistant:`` turn are refused."""
    chosen, rejected = ("\n\n" + cells.text(v).lstrip("\n") for v in (chosen, rejected))
    shared = os.path.commonprefix([chosen, rejected])
    cut = shared.rfind(_MARKER)
    if cut < 0:
        cells.refuse(shared.strip()[:60], "two HH transcripts sharing their conversation up to an "
                     "'Assistant:' turn ('Human: … Assistant: …'; a prompt in its own column is --pairs standard)")
    end = cut + len(_MARKER)
    if chosen.rfind(_MARKER) != cut or rejected.rfind(_MARKER) != cut:
        cells.note(_EARLIER)
    return prompt_text(chosen[:end], cells), chosen[end:].strip(), rejected[end:].strip()


def _conversational(cells: _Cells, prompt, chosen, rejected) -> tuple:
    c, r = cells.messages(chosen), cells.messages(rejected)
    if not _missing(prompt):
        return prompt_text(prompt, cells), cells.last_assistant(c), cells.last_assistant(r)
    # without a prompt column the prompt is the turns both sides share, up to the compared turns
    k = 0
    while k < min(len(c), len(r)) and c[k] == r[k]:
        k += 1
    compared = [i for i in (_last_assistant_at(c), _last_assistant_at(r)) if i is not None]
    k = min([k, *compared])
    if any(i > k for i in compared):
        cells.note(_EARLIER)
    return _render(c[:k]), cells.last_assistant(c), cells.last_assistant(r)


def _json_messages(frame: pd.DataFrame, cols: dict, cells: _Cells) -> pd.DataFrame:
    """``frame`` with each prompt, chosen or rejected column whose cells are JSON lists of messages
    (a CSV's way to hold them) read as those lists (noted); a column mixing them with text is refused."""
    import json

    def parsed(value):
        if not isinstance(value, str) or not value.lstrip().startswith("["):
            return None
        try:
            found = json.loads(value)
        except ValueError:
            return None
        return found if isinstance(found, list) and all(isinstance(m, dict) for m in found) else None

    out = frame
    for role in ("prompt", "chosen", "rejected"):
        if role not in cols:
            continue
        values = frame[cols[role]]
        lists = values.map(parsed)
        present = ~values.map(_missing)
        found = lists.notna() & present
        if not found.any():
            continue
        if not found[present].all():
            first = values.index[(present & ~found).to_numpy()][0]
            raise InputError(f"the {role} column {cols[role]!r} holds JSON lists of messages in some rows and text in "
                             f"others (row {first}); one column holds one kind: write each side as messages, or as "
                             "text.")
        out = out.copy() if out is frame else out
        out[cols[role]] = lists.where(found, None)
        cells.notes[f"JSON message lists in the {role} column, read as messages"] = int(found.sum())
    return out


# ---------------------------------------------------------------- the internal shape


def _order(ids, seed: int) -> np.ndarray:
    """True where the chosen response is side "a": a coin per pair drawn from (seed, its id)."""
    return np.array([int(digest(f"{int(seed)}\x00{i}", 2), 16) % 2 == 0 for i in ids], dtype=bool)


def read_pairs(frame: pd.DataFrame, *, ids: pd.Index, name: str, shape: Optional[str] = None,
               columns: Optional[dict] = None, order_seed: int = ORDER_SEED):
    """The `Dataset` of the pairs in ``frame`` (rows already indexed by ``ids``): ``shape`` one of
    `SHAPES` or None to detect it, ``columns`` role → column to name the columns."""
    from .dataset import Dataset

    columns = dict(columns or {})
    cells = _Cells()
    frame = source_rows = frame.set_axis(ids)   # what an export writes back: the file's cells as they were
    frame = _json_messages(frame, _columns(frame, columns, None, strict=False), cells)
    if shape is None:
        shape = detect_shape(frame, columns)
        if shape is None:
            raise InputError("these rows do not look like preference pairs: expected chosen and rejected columns "
                             "(with or without a prompt), or response_a, response_b and winner; the columns are: "
                             f"{', '.join(map(str, frame.columns))}. Name them with --chosen-column, "
                             "--rejected-column, --prompt-column (or --response-a-column, --response-b-column, "
                             "--winner-column) and --pairs SHAPE.")
    if shape not in SHAPES:
        raise InputError(f"--pairs {shape!r} is not a shape of pairs; choose one of {', '.join(SHAPES)}.")
    cols = _columns(frame, columns, shape)
    frame = frame.set_axis(ids)
    messages, dropped = [], {}
    n = len(frame)
    get = (lambda role: frame[cols[role]] if role in cols else pd.Series([None] * n, index=frame.index))

    def each(function, *columns_of_row):
        out = []
        for pair_id, *values in zip(frame.index, *columns_of_row):
            cells.where = f"pair {str(pair_id)[:40]!r}"
            out.append(function(*values))
        return out

    if shape == "judged":
        winners = get("winner").map(winner_of)
        unknown = sorted({str(v) for v, w in zip(get("winner"), winners) if not isinstance(w, str)})
        if unknown:
            held = ", ".join(repr(v[:20]) for v in unknown[:4])
            raise InputError(f"the winner column {cols['winner']!r} holds {held}; a winner is a, b or tie "
                             "(response_a / model_a … are read too).")
        ties = winners == "tie"
        if ties.any():
            dropped["tie"] = int(ties.sum())
            messages.append(f"{int(ties.sum())} of {n} judged pairs are ties: kept apart (no side was preferred), "
                            "not analysed and not exported.")
        frame, winners = frame[~ties.to_numpy()], winners[~ties]
        a_won = (winners == "a").to_numpy()
        ra, rb = (np.array(each(cells.text, frame[cols[r]]), dtype=object) for r in ("response_a", "response_b"))
        prompts = each(lambda q: prompt_text(q, cells), frame[cols["prompt"]] if "prompt" in cols else
                       [None] * len(frame))
        chosen = np.where(a_won, ra, rb)
        rejected = np.where(a_won, rb, ra)
    else:
        p = frame[cols["prompt"]] if "prompt" in cols else [None] * len(frame)
        split = {"standard": lambda q, c, r: (prompt_text(q, cells), cells.text(c), cells.text(r)),
                 "conversational": lambda q, c, r: _conversational(cells, q, c, r),
                 "implicit": lambda q, c, r: _implicit(cells, c, r)}[shape]
        if shape == "standard" and _is_messages(frame[cols["chosen"]]):
            raise InputError("the chosen column holds lists of messages: these pairs are conversational "
                             "(--pairs conversational).")
        parts = each(split, p, frame[cols["chosen"]], frame[cols["rejected"]])
        prompts = [t[0] for t in parts]
        chosen = np.array([t[1] for t in parts], dtype=object)
        rejected = np.array([t[2] for t in parts], dtype=object)
    if not len(frame):
        raise InputError("no pairs left to analyse (every judged pair is a tie).")
    chosen_is_a = _order(frame.index, order_seed)
    table = pd.DataFrame({"prompt": prompts,
                          "response_a": np.where(chosen_is_a, chosen, rejected),
                          "response_b": np.where(chosen_is_a, rejected, chosen),
                          PREFERRED: np.where(chosen_is_a, "a", "b")}, index=frame.index)
    table.index.name = "id"
    messages += [f"{count:,} {what}." for what, count in cells.notes.items()]
    source = PairSource(shape=shape, columns=cols, order_seed=int(order_seed), rows=source_rows.loc[frame.index])
    return Dataset(table=table, label=PREFERRED, text=list(PAIR_FIELDS), name=name, dropped=dropped,
                   messages=messages, pairs=source)


def chosen_rejected(ds, table: Optional[pd.DataFrame] = None) -> tuple:
    """(chosen, rejected) responses of a pair dataset (or of ``table``, some of its rows), as object
    arrays in row order."""
    table = ds.table if table is None else table
    a_won = (table[PREFERRED].astype(str) == "a").to_numpy()
    a, b = (table[c].to_numpy(dtype=object) for c in ("response_a", "response_b"))
    return np.where(a_won, a, b), np.where(a_won, b, a)


def side_by_side(ds, ids=None) -> pd.DataFrame:
    """``prompt``, ``chosen`` and ``rejected`` of the pairs (all, or ``ids`` in that order), indexed by id:
    how a person reads a pair."""
    table = ds.table if ids is None else ds.table.loc[[str(i) for i in ids]]   # only the rows asked for
    chosen, rejected = chosen_rejected(ds, table)
    return pd.DataFrame({"prompt": table["prompt"].to_numpy(dtype=object), "chosen": chosen, "rejected": rejected},
                        index=table.index)
