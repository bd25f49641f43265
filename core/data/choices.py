"""Multiple-choice items (issue 55): a stem (a context, a question), k options and the gold one, in
the shapes evaluation sets are kept in, read into one internal shape and written back in the
shape they came in.

The shapes (`SHAPES`), detected from the columns or named (``--choices``):

* ``columns``: one column per option and a gold index or letter: BBQ's ``ans0``–``ans2`` with
  ``label``; MMLU's CSV ``A``–``D`` with ``answer``; ``option_1``… or ``opa``… likewise;
* ``list``: a ``choices`` (or ``options``) column holding the list of options and an ``answer`` (or
  ``label``) index or letter (the Hub's MMLU);
* ``arc``: ``choices: {text: [...], label: [...]}`` and an ``answerKey`` naming one of the labels
  (ARC, OpenBookQA, CommonsenseQA);
* ``endings``: a context (``ctx``, or ``ctx_a`` + ``ctx_b``) with a list of ``endings`` and a
  ``label`` (HellaSwag);
* ``nested``: a ``question`` object holding the ``stem`` and its ``choices: [{text, label}, ...]``,
  with an ``answerKey`` naming one of the labels (OpenBookQA's own release);
* ``targets``: ``mc1_targets``, an object from each option's text to 1 (the right one) or 0, in the
  order they are shown (TruthfulQA's ``mc_task.json``; its ``mc2_targets``, with several right
  answers, is a set to score, not one gold, and is refused as one);
* ``headerless``: MMLU's CSV as released, with no header row: the question, the options, then the
  gold letter (the row read as a header is the first item; ids are row numbers from 0).

The internal shape is a `Dataset` whose text fields are the stem's fields, kept apart under their own
names, then the options ``option_A``, ``option_B``… (an item with fewer options than the widest has
"" in the others), and whose label ``gold`` is the gold option's letter. `ChoiceSource` keeps each
item's number of options and the source rows, so `Dataset.written_rows` writes a filtered split back
in its shape. Items may have different numbers of options (ARC has 3 to 5). A gold index out of
range, a letter that names no option, or an item with fewer than two options is refused by id; an
empty or repeated option is kept and listed by id as degenerate (`degenerate_items`).
"""
from __future__ import annotations

import json
import re
import string
from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from ..base.errors import InputError

__all__ = ["SHAPES", "GOLD", "LETTERS", "ChoiceSource", "detect_choices", "read_choices", "option_fields",
           "options_of", "degenerate_items"]

SHAPES = ("columns", "list", "arc", "endings", "nested", "targets", "headerless")

#: the label column of the internal shape: the gold option's letter
GOLD = "gold"
#: option positions, as letters (the internal option fields are ``option_<letter>``)
LETTERS = string.ascii_uppercase

_STEM_NAMES = ("context", "ctx", "passage", "article", "paragraph", "support", "fact1", "question", "question_stem",
               "stem", "goal", "sentence", "query", "prompt")
_ANSWER_NAMES = ("answer", "label", "answerkey", "answer_idx", "answer_index", "gold", "correct", "target")
_LIST_NAMES = ("choices", "options", "endings", "candidates", "answers")
#: columns that hold one option each: a stem, then an index or a letter (ans0 ans1 …, A B C D, option_1 …)
#: (bare letters only in capitals: a table with columns ``a``, ``b`` and a label is labelled examples)
_OPTION_COLUMN = re.compile(r"^(?i:(ans|answer|option|opt|choice|ending|op)[_ ]?([0-9]+|[a-z]))$|^([A-Z])$")


def option_fields(k: int) -> list:
    """The internal option fields of ``k`` options: ``option_A``…"""
    return [f"option_{LETTERS[j]}" for j in range(k)]


@dataclass
class ChoiceSource:
    """Where a multiple-choice dataset came from: its ``shape``, the source ``columns`` by role
    (``stem``: a list; ``options``: a list of columns or one list column; ``answer``), the internal
    ``stem`` and ``options`` fields, each item's ``n_options`` (indexed by id) and the source
    ``rows``, which an export writes back."""

    shape: str
    columns: dict
    stem: list
    options: list
    n_options: pd.Series
    rows: pd.DataFrame

    def rows_for(self, ids) -> pd.DataFrame:
        """The source rows of these item ids, in that order (what an export writes)."""
        return self.rows.loc[ids]


def _lower(frame: pd.DataFrame) -> dict:
    return {str(c).lower(): str(c) for c in frame.columns}


def _sample(values: pd.Series) -> list:
    return [v for v in values.head(50) if v is not None and not (isinstance(v, float) and np.isnan(v))]


def _option_columns(frame: pd.DataFrame) -> list:
    """The columns that look like one option each, in their order (≥ 2 with one stem, consecutive
    from the first index or letter), or []."""
    groups = {}
    for c in frame.columns:
        m = _OPTION_COLUMN.match(str(c))
        if m:
            groups.setdefault((m.group(1) or "").lower(), []).append((str(c), (m.group(2) or m.group(3)).lower()))
    for stem, found in groups.items():
        keys = [k for _, k in found]
        digits = all(k.isdigit() for k in keys)
        if not digits and not all(k.isalpha() for k in keys):
            continue
        order = sorted(found, key=lambda t: int(t[1]) if digits else t[1])
        start = order[0][1]
        if start not in ("0", "1", "a") or len(order) < 2:
            continue
        last = int(order[-1][1]) - int(start) if digits else LETTERS.index(order[-1][1].upper())
        expected = [str(int(start) + j) if digits else LETTERS[j].lower() for j in range(last + 1)]
        if [k for _, k in order] == expected:
            return [c for c, _ in order]
        have = {k for _, k in order}
        missing = [k for k in expected if k not in have]
        if missing and len(set(keys)) == len(keys):   # a gap: ans0, ans1, ans3 has no ans2
            named = [c for c, _ in order]
            raise InputError(f"the option columns {', '.join(named)} skip {', '.join(missing)}: options are read in "
                             "order, one column each, with none missing. Rename the columns, or name them in their "
                             "order with --option-columns (or read the rows as labelled examples with --no-choices).")
    return []


def detect_choices(frame: pd.DataFrame, columns: Optional[dict] = None) -> Optional[str]:
    """The shape of a table of multiple-choice items (``columns``: what the user named), or None."""
    columns = columns or {}
    lower = _lower(frame)
    answer = columns.get("answer") or next((lower[n] for n in _ANSWER_NAMES if n in lower), None)
    options = columns.get("options")
    if isinstance(options, (list, tuple)) and len(options) > 1:
        return "columns"
    if options is None and _nested_column(frame) is not None:
        return "nested"
    if (options is None and _targets_column(frame) is not None) or \
            (isinstance(options, str) and _holds_targets(frame, options)):
        return "targets"
    if isinstance(options, str) or options is None:
        listed = options or next((lower[n] for n in _LIST_NAMES if n in lower), None)
        if listed is not None and listed in frame.columns:
            sample = [_json_cell(v) for v in _sample(frame[listed])]   # a CSV export holds them as JSON text
            if sample and all(isinstance(v, dict) and "text" in v for v in sample):
                return "arc"
            if (sample and all(isinstance(v, (list, tuple, np.ndarray)) for v in sample)) or options:
                # (a column the user named is read as lists, each item refused by id if it is not one)
                return "endings" if str(listed).lower() == "endings" else "list"
    if answer is not None and _option_columns(frame):
        return "columns"
    if not columns and _headerless(frame):
        return "headerless"
    return None


# ---------------------------------------------------------------------------------------- reading
def _json_cell(value):
    """A cell that holds a list or an object written as JSON text (a CSV export of list, ARC or
    HellaSwag items) as that list or object; any other cell as it is."""
    if isinstance(value, str) and value.lstrip()[:1] in ("[", "{"):
        try:
            return json.loads(value)
        except ValueError:
            return value
    return value


def _nested_column(frame: pd.DataFrame) -> Optional[str]:
    """The column holding each item's question as an object with its ``stem`` and ``choices`` (a list of
    ``{text, label}``), as OpenBookQA releases it, or None."""
    for column in frame.columns:
        sample = [_json_cell(v) for v in _sample(frame[column])]
        if sample and all(isinstance(v, dict) and "stem" in v and isinstance(v.get("choices"), list)
                          for v in sample):
            return str(column)
    return None


def _flattened(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """``frame`` with the nested question in ``column`` read as the arc shape's columns: its stem as
    ``question_stem`` and its choices as ``choices: {text: [...], label: [...]}``."""
    flat = frame.drop(columns=[column])
    cells = [_json_cell(v) for v in frame[column]]
    for cell, item_id in zip(cells, frame.index):
        if not isinstance(cell, dict) or not isinstance(cell.get("choices"), list) or \
                not all(isinstance(c, dict) and "text" in c for c in cell["choices"]):
            raise InputError(f"item {str(item_id)[:40]!r} holds {str(cell)[:60]!r} where a question {{stem, choices: "
                             "[{text, label}]}} was expected; fix that item.")
    flat["question_stem"] = [cell.get("stem") for cell in cells]
    flat["choices"] = [{"text": [c["text"] for c in cell["choices"]],
                        "label": [c.get("label", "") for c in cell["choices"]]} for cell in cells]
    return flat


#: TruthfulQA's columns of options to 0/1, the one with a single right answer first
_TARGETS = ("mc1_targets", "mc2_targets", "targets")


def _holds_targets(frame: pd.DataFrame, column) -> bool:
    """Whether ``column`` holds objects from each option's text to 0 or 1."""
    sample = [_json_cell(v) for v in _sample(frame[column])] if column in frame.columns else []
    return bool(sample) and all(isinstance(v, dict) and v and all(str(x) in ("0", "1") for x in v.values())
                                for v in sample)


def _targets_column(frame: pd.DataFrame) -> Optional[str]:
    """The column of objects from each option's text to 0 or 1 (TruthfulQA's ``mc1_targets``), or None."""
    lower = _lower(frame)
    return next((lower[n] for n in _TARGETS if n in lower and _holds_targets(frame, lower[n])), None)


def _from_targets(frame: pd.DataFrame, column: str) -> pd.DataFrame:
    """``frame`` with the targets in ``column`` read as the list shape's ``choices`` and ``answer``: the
    options in their order, the gold the one marked 1 (refused by item where not exactly one is)."""
    flat = frame.drop(columns=[column])
    options, golds = [], []
    for item_id, cell in zip(frame.index, (_json_cell(v) for v in frame[column])):
        right = [j for j, v in enumerate(cell.values()) if str(v) == "1"] if isinstance(cell, dict) else []
        if len(right) != 1:
            raise InputError(f"item {str(item_id)[:40]!r}: {column} marks {len(right)} options right, where one gold "
                             "is read (TruthfulQA's mc2_targets scores a set of right answers: read mc1_targets, or "
                             "name it with --option-columns).")
        options.append([str(k) for k in cell])
        golds.append(right[0])
    flat["choices"], flat["answer"] = options, golds
    return flat


def _headerless(frame: pd.DataFrame) -> bool:
    """Whether ``frame``'s header is an item's row (MMLU's CSV): a question, 2 to 26 options, and a last
    cell that is one of their letters, as is every row's last cell; no column is named like a role."""
    k = len(frame.columns) - 2
    if not 2 <= k <= len(LETTERS) or not len(frame):
        return False
    letters = set(LETTERS[:k])
    names = [str(c).strip() for c in frame.columns]
    if names[-1] not in letters or {n.lower() for n in names} & {*_ANSWER_NAMES, *_STEM_NAMES, *_LIST_NAMES, "id"}:
        return False
    last = frame.iloc[:, -1]
    return bool(last.notna().all() and last.astype(str).str.strip().isin(letters).all())


def _with_header_row(frame: pd.DataFrame) -> pd.DataFrame:
    """A headerless file's rows, its header read back as the first item: ``question``, ``A``…, ``answer``,
    ids the rows' numbers from 0."""
    k = len(frame.columns) - 2
    names = ["question", *LETTERS[:k], "answer"]
    first = pd.DataFrame([[str(c) for c in frame.columns]], columns=names)
    rows = pd.concat([first, frame.set_axis(names, axis=1).astype(object)], ignore_index=True)
    rows.index = pd.Index([str(i) for i in range(len(rows))], name="id")
    return rows


def _absent(value) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _text(value, where: str) -> str:
    if _absent(value):
        return ""
    if isinstance(value, (str, int, float, np.integer, np.floating)):
        return str(value).strip()
    raise InputError(f"{where} holds {str(value)[:60]!r} where an option's text was expected; fix that item.")


def _gold_position(value, k: int, labels: list, where: str, base: int = 0) -> int:
    """The 0-based position of the gold option among ``k``: an index counted from ``base`` (0, or 1
    where the option columns are numbered from 1 and no answer is 0: WinoGrande's ``option1``,
    ``option2`` with ``answer`` 1 or 2), a letter (A… or a…), or one of the item's own ``labels``
    (ARC's ``answerKey``)."""
    text = "" if _absent(value) else str(value).strip()
    if labels and text in labels and not (text.isdigit() and labels == [str(j) for j in range(k)]):
        return labels.index(text)
    if re.fullmatch(r"-?\d+(\.0)?", text):
        j = int(float(text)) - base
        if not 0 <= j < k:
            raise InputError(f"{where}: the gold index {j + base} is out of range for its {k} options (indices count "
                             f"from {base}: {base} to {k - 1 + base}); fix the answer of that item.")
        return j
    if len(text) == 1 and text.upper() in LETTERS:
        j = LETTERS.index(text.upper())
        if j >= k:
            raise InputError(f"{where}: the gold letter {text!r} names no option (it has {k}: "
                             f"{', '.join(LETTERS[:k])}); fix the answer of that item.")
        return j
    raise InputError(f"{where}: the answer {text[:40]!r} is neither an option's index (from 0), nor its letter, nor "
                     "one of its labels; fix it, or name the answer column with --answer-column.")


def _listed(value, where: str) -> list:
    value = _json_cell(value)   # a CSV cell holding a JSON list
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if not isinstance(value, (list, tuple)):
        raise InputError(f"{where} holds {str(value)[:60]!r} where a list of options was expected; fix that item, "
                         "or give the shape of the file (--choices).")
    return [_text(v, where) for v in value]


def _columns(frame: pd.DataFrame, shape: str, given: dict) -> dict:
    """Role → source column(s) for ``shape``: the user's, else found by name."""
    lower = _lower(frame)

    def column(name_or_none, names, role):
        if name_or_none:
            if name_or_none not in frame.columns:
                raise InputError(f"no column {name_or_none!r} for the items' {role}; the columns are: "
                                 f"{', '.join(map(str, frame.columns))}.")
            return name_or_none
        return next((lower[n] for n in names if n in lower), None)

    options = given.get("options")
    if shape == "columns":
        options = list(options) if isinstance(options, (list, tuple)) else _option_columns(frame)
        for c in options:
            column(c, (), "options")
        repeated = sorted({str(c) for c in options if list(options).count(c) > 1})
        if repeated:
            raise InputError(f"--option-columns names {', '.join(repeated)} more than once; each option is its own "
                             "column, named once, in order.")
        if len(options) < 2:
            raise InputError("no option columns found (ans0, ans1… or A, B, C, D); name them with --option-columns.")
    else:
        options = column(options if isinstance(options, str) else None,
                         ("endings",) if shape == "endings" else _LIST_NAMES, "options")
        if options is None:
            raise InputError(f"the {shape} shape needs a column holding each item's options; name it with "
                             "--option-columns.")
    answer = column(given.get("answer"), ("answerkey",) + _ANSWER_NAMES if shape == "arc" else _ANSWER_NAMES,
                    "answer")
    if answer is None:
        raise InputError("no answer column found (answer, label, answerKey…); name it with --answer-column.")
    taken = set(options if isinstance(options, list) else [options]) | {answer}
    if given.get("stem"):
        stem = [column(c, (), "stem") for c in given["stem"]]
    elif shape == "endings" and "ctx_a" in lower and "ctx" not in lower:
        stem = [lower["ctx_a"], *([lower["ctx_b"]] if "ctx_b" in lower else [])]
    else:
        stem = [lower[n] for n in _STEM_NAMES if n in lower and lower[n] not in taken]
        stem = [c for c in stem if frame[c].map(lambda v: v is None or isinstance(v, str)).all()]
    clash = set(stem) & taken
    if clash:
        raise InputError(f"the column {sorted(clash)[0]!r} is given both as the stem and as an option or the answer; "
                         "each role reads its own column.")
    return {"stem": stem, "options": options, "answer": answer}


def _index_base(frame: pd.DataFrame, shape: str, cols: dict) -> int:
    """1 when the option columns are numbered from 1 (``option1``, ``option2``…) and no answer is 0
    or a letter: the answers count from 1 as the columns do (WinoGrande); else 0."""
    if shape != "columns":
        return 0
    numbers = [int(m.group(2)) for c in cols["options"]
               if (m := _OPTION_COLUMN.match(str(c))) and m.group(2) and m.group(2).isdigit()]
    if not numbers or min(numbers) != 1:
        return 0
    answers = frame[cols["answer"]].dropna().astype(str).str.strip()
    return 1 if len(answers) and answers.str.fullmatch(r"[1-9][0-9]*(\.0)?").all() else 0


#: the layouts benchmarks are released in that read as another shape once flattened:
#: shape → (the column it reads in a file, how it flattens, the shape it flattens to, that shape's columns)
RELEASES = {
    "nested": (_nested_column, _flattened, "arc",
               lambda given: {"options": "choices", "stem": given.get("stem") or ["question_stem"]}),
    "targets": (_targets_column, _from_targets, "list",
                lambda given: {"options": "choices", "answer": "answer"}),
    "headerless": (lambda frame: None, lambda frame, _: _with_header_row(frame), "columns",
                   lambda given: {"answer": "answer", "stem": given.get("stem") or ["question"]}),
}


def _read_release(frame: pd.DataFrame, shape: str, given: dict, name: str):
    """Items in a released layout (`RELEASES`): flattened, read as the shape they flatten to, and kept
    with their rows as they came, so an export writes them back so (a headerless file with the header
    it lacked: question, A…, answer, which then reads as the columns shape)."""
    from dataclasses import replace

    find, flatten, inner, columns = RELEASES[shape]
    column = given.get("options") if isinstance(given.get("options"), str) else find(frame)
    if shape != "headerless" and (column is None or column not in frame.columns):
        raise InputError(f"the {shape} shape needs the column holding each item's options (see docs/data.md); name "
                         "it with --option-columns.")
    flat = flatten(frame, column)
    wanted = {**given, **columns(given)}
    if shape == "headerless":
        wanted["options"] = list(LETTERS[:len(flat.columns) - 2])
    found = read_choices(flat, ids=flat.index, name=name, shape=inner, columns=wanted)
    found.choices = replace(found.choices, shape=shape, rows=flat if shape == "headerless" else frame,
                            columns={**found.choices.columns, **({"options": column} if column else {})})
    return found


def read_choices(frame: pd.DataFrame, *, ids: pd.Index, name: str, shape: Optional[str] = None,
                 columns: Optional[dict] = None):
    """The `Dataset` of the multiple-choice items in ``frame`` (rows already indexed by ``ids``):
    ``shape`` one of `SHAPES` or None to detect it, ``columns`` (``stem``: a list, ``options``: a
    list of columns or one list column, ``answer``) to name the columns."""
    from .dataset import Dataset

    frame = frame.set_axis(ids)
    given = dict(columns or {})
    if shape is None:
        shape = detect_choices(frame, given)
        if shape is None:
            raise InputError("these rows do not look like multiple-choice items: expected option columns (ans0, ans1… "
                             "or A, B, C, D) with an answer column, or a choices list with an answer; the columns are: "
                             f"{', '.join(map(str, frame.columns))}. Name them with --option-columns and "
                             "--answer-column, and the shape with --choices.")
    if shape not in SHAPES:
        raise InputError(f"--choices {shape!r} is not a shape of multiple-choice items; choose one of "
                         f"{', '.join(SHAPES)}.")
    if shape in RELEASES:
        return _read_release(frame, shape, given, name)
    cols = _columns(frame, shape, given)
    base = _index_base(frame, shape, cols)
    options, golds = [], []
    for item_id, row in zip(frame.index, frame.itertuples(index=False)):
        cells = dict(zip(frame.columns, row))
        where = f"item {str(item_id)[:40]!r}"
        if shape == "columns":
            held = [cells[c] for c in cols["options"]]
            while held and _absent(held[-1]):
                held.pop()   # missing last cells: an item with fewer options than the file has columns
            texts = [_text(v, where) for v in held]
            labels = []
        elif shape == "arc":
            held = _json_cell(cells[cols["options"]])
            if not isinstance(held, dict) or "text" not in held:
                raise InputError(f"{where} holds {str(held)[:60]!r} where ARC's choices {{text: [...], label: [...]}} "
                                 "were expected; fix that item, or give the shape of the file (--choices).")
            texts = _listed(held["text"], where)
            labels = [str(v).strip() for v in (held.get("label") if held.get("label") is not None else [])]
            if labels and len(labels) != len(texts):
                raise InputError(f"{where} has {len(texts)} choices but {len(labels)} labels; fix that item.")
            if len(set(labels)) != len(labels):
                raise InputError(f"{where} labels its choices {', '.join(labels)}: a label names one choice; fix "
                                 "that item's labels.")
        else:
            texts, labels = _listed(cells[cols["options"]], where), []
        if len(texts) < 2:
            raise InputError(f"{where} has {len(texts)} option(s); a multiple-choice item needs at least two. Fix or "
                             "drop it.")
        if len(texts) > len(LETTERS):
            raise InputError(f"{where} has {len(texts)} options; at most {len(LETTERS)} are read.")
        golds.append(_gold_position(cells[cols["answer"]], len(texts), labels, where, base))
        options.append(texts)
    k_max = max(len(t) for t in options)
    fields = option_fields(k_max)
    stem_fields = [str(c) for c in cols["stem"]]
    table = pd.DataFrame({f: [_text(v, "the stem") for v in frame[c]] for f, c in zip(stem_fields, cols["stem"])},
                         index=frame.index)
    for j, f in enumerate(fields):
        table[f] = [t[j] if j < len(t) else "" for t in options]
    table[GOLD] = [LETTERS[g] for g in golds]
    table.index.name = "id"
    n_options = pd.Series([len(t) for t in options], index=frame.index, name="n_options")
    source = ChoiceSource(shape=shape, columns=cols, stem=stem_fields, options=fields, n_options=n_options,
                          rows=frame)
    messages = [] if not base else [f"the answers are read as counting from 1, as the option columns "
                                    f"({', '.join(map(str, cols['options']))}) are numbered."]
    if n_options.nunique() > 1:
        messages.append(f"items have {n_options.min()} to {n_options.max()} options.")
    degenerate = degenerate_items(table, source)
    if len(degenerate):
        messages.append(f"{len(degenerate):,} item(s) have an empty or repeated option (degenerate; listed by id).")
    return Dataset(table=table, label=GOLD, text=stem_fields + fields, name=name, messages=messages, choices=source)


def options_of(ds, table: Optional[pd.DataFrame] = None) -> tuple:
    """(options, k, gold): the items' options as an (n, k_max) object array ("" past an item's
    last), each item's number of options and the gold's 0-based position, in row order."""
    table = ds.table if table is None else table
    src = ds.choices
    texts = table[src.options].to_numpy(dtype=object)
    k = src.n_options.reindex(table.index).to_numpy(dtype=np.int64)
    gold = table[GOLD].map(LETTERS.index).to_numpy(dtype=np.int64)
    return texts, k, gold


def degenerate_items(table: pd.DataFrame, source: ChoiceSource) -> pd.DataFrame:
    """Items with an empty option or two options of the same text (spacing aside; case counts: ARC's
    genotypes ``Rr`` and ``RR``, MMLU's ``Bb Bb`` and ``BB Bb`` are different options): ``id``, ``reason``
    ("empty option" or "repeated option") and the ``options`` concerned."""
    rows = []
    k_of = source.n_options.reindex(table.index).to_numpy()
    for item_id, k, texts in zip(table.index, k_of, table[source.options].to_numpy(dtype=object)):
        texts = list(texts[:k])
        empty = [LETTERS[j] for j, t in enumerate(texts) if not str(t).strip()]
        if empty:
            rows.append((str(item_id), "empty option", ", ".join(empty)))
        seen = {}
        for j, t in enumerate(texts):
            if str(t).strip():
                seen.setdefault(" ".join(str(t).split()), []).append(LETTERS[j])
        repeated = [v for v in seen.values() if len(v) > 1]
        if repeated:
            rows.append((str(item_id), "repeated option", "; ".join(" = ".join(v) for v in repeated)))
    return pd.DataFrame(rows, columns=["id", "reason", "options"])
