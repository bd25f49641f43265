"""Data sources: turn what a curator has into a `Dataset`.

Supported sources (`load_dataset`):

* a local file: ``.csv``, ``.tsv``, ``.jsonl`` / ``.json``, ``.parquet`` (also ``.gz``-compressed);
* a folder written by ``datasets.Dataset.save_to_disk`` (or a ``DatasetDict``);
* a folder shaped like a Hugging Face Hub dataset repo (README.md ``configs`` + data files);
* a Hugging Face Hub name (``"snli"``, ``"nyu-mll/glue"`` with ``config="mnli"``);
* a pandas DataFrame or a ``datasets.Dataset`` from Python;
* a built-in demo: ``"demo:nli"``, ``"demo:circles"``, ``"demo:digits"``, ``"demo:pairs"``, ``"demo:choices"`` (options as
  ``"demo:nli:n=5000,artifact_share=0.5"``).

Column roles are auto-detected from common layouts (premise/hypothesis/label as in
SNLI/MNLI, sentence1/sentence2, text/label, image/label) and can be overridden.
Rows without a usable label (SNLI's ``-1`` / ``-``, empty, missing) are dropped and
counted in `Dataset.messages`. Every example gets a stable string id: the id
column when there is one, otherwise its row number in the source.
"""
from __future__ import annotations

import difflib
import os
import re
from pathlib import Path
from typing import Iterable, Optional, Sequence, Union

import numpy as np
import pandas as pd

from .dataset import Dataset
from ..base.errors import InputError, RolesNeeded
from ..base.words import counted
from .file_tables import INPUT_FORMATS, read_file
from .shaped import shape_of
from .source_files import local_path


# Layouts tried in order when the user names no text columns.
TEXT_LAYOUTS = [
    ("premise", "hypothesis"),
    ("sentence1", "sentence2"),
    ("question1", "question2"),
    ("question", "sentence"),
    ("question", "passage"),
    ("text",),
    ("sentence",),
    ("content",),
    ("review",),
]
LABEL_NAMES = ["label", "labels", "gold_label", "class", "target", "y"]
ID_NAMES = ["id", "idx", "uid", "guid", "pairID", "pair_id", "example_id"]
IMAGE_NAMES = ["image", "img", "pixels"]
EMBEDDING_NAMES = ["embedding", "embeddings", "vector", "emb"]
# Label values that mean "no gold label" (SNLI uses -1 in the Hub copy and "-" in the raw files);
# a missing cell (empty in a CSV, null in JSON) is dropped too. Words such as "none" are kept:
# they are real classes in many tasks ("none of the above", "no emotion").
UNUSABLE_LABELS = {"-1", "-", ""}
_MISSING_WORDS = {"nan", "none", "null", "n/a", "na"}



def load_dataset(
    source,
    *,
    text: Union[None, str, Sequence[str]] = None,
    label: Optional[str] = None,
    id: Optional[str] = None,
    embedding: Optional[str] = None,
    image: Optional[str] = None,
    features: Union[None, str, Sequence[str]] = None,
    config: Optional[str] = None,
    split: Optional[str] = None,
    pairs: Union[None, bool, str] = None,
    pair_columns: Optional[dict] = None,
    choices: Union[None, bool, str] = None,
    choice_columns: Optional[dict] = None,
) -> Dataset:
    """Load a labelled dataset from any supported source.

    Parameters
    ----------
    source : str, os.PathLike, pandas.DataFrame or datasets.Dataset
        A path, a Hub name, ``"demo:<name>[:k=v,...]"``, or an in-memory table.
    text : str or list of str, optional
        Text column(s), e.g. ``["premise", "hypothesis"]`` or ``"premise,hypothesis"``.
        Auto-detected when omitted.
    label, id, embedding, image : str, optional
        Columns playing those roles; auto-detected when omitted (``id`` falls back
        to the row number in the source; ``id=False`` numbers the rows even where a
        column named like an id exists).
    features : str or list of str, optional
        Boolean or categorical columns to treat as features for z-statistics.
    config, split : str, optional
        Hub / ``datasets`` config and split (e.g. ``config="mnli", split="validation_matched"``).
    pairs : str or bool, optional
        Preference pairs (`core.data.pairs`): a shape (``"standard"``, ``"conversational"``,
        ``"implicit"``, ``"judged"``), ``False`` never to read rows as pairs, or None to read them
        as pairs when the table has chosen/rejected (or response_a/response_b/winner) columns and
        no label column is named.
    pair_columns : dict, optional
        Role → column of the pairs (``prompt``, ``chosen``, ``rejected``, ``response_a``,
        ``response_b``, ``winner``), where the columns have other names.
    choices : str or bool, optional
        Multiple-choice items (`core.data.choices`): a shape (``"columns"``, ``"list"``, ``"arc"``,
        ``"endings"``), ``False`` never to read rows as items, or None to read them as items when
        the table has option columns (``ans0``…, ``A``…``D``) or a list of choices, with an answer.
    choice_columns : dict, optional
        ``stem`` (a list of columns), ``options`` (a list of columns, or one column of lists) and
        ``answer``, where the columns have other names.

    Raises
    ------
    core.base.errors.InputError
        With a message naming the problem and the fix.
    """
    if isinstance(source, str) and source.startswith("demo:"):
        _check_split_given_for(source, split)
        ds = _load_demo(source)
        if any(v is not None for v in (text, label, id, embedding, image, features)):
            return assign_roles(ds.table.reset_index(), name=ds.name, text=text or ds.text, label=label or ds.label,
                                id="id", embedding=embedding or ds.embedding, image=image or ds.image,
                                features=features, truth=ds.truth)
        return ds
    frame, name, class_names = _read(source, config=config, split=split)
    columns = frame.set_axis([str(c) for c in frame.columns], axis=1)
    shaped = shape_of(columns, detected_label=detect_roles(columns)["label"], label_given=label is not None,
                      pairs=pairs, pair_columns=pair_columns, choices=choices, choice_columns=choice_columns)
    if shaped is not None:
        given = [f"--{k}" for k, v in dict(text=text, label=label, embedding=embedding, image=image,
                                           features=features).items() if v]
        if given:
            raise InputError(f"{', '.join(given)} name(s) columns of labelled examples, but these rows are read as "
                             f"{shaped.what}; name their columns with {shaped.flags} (docs/data.md), or give "
                             "--no-pairs / --no-choices to read the rows as labelled examples.")
        detected = detect_roles(columns)
        id_col = None if id is False else _check_column(columns, id, "id column") if id else detected["id"]
        indexed = _with_ids(columns, id_col, dict(role="id", columns=columns.columns, detected=detected,
                                                  preview=columns.head(20)))
        return shaped.read(indexed.reset_index(drop=True), indexed.index, name)
    return assign_roles(frame, name=name, text=text, label=label, id=id, embedding=embedding,
                        image=image, features=features, class_names=class_names)


# ---------------------------------------------------------------- reading


def _read(source, *, config, split):
    """Return (DataFrame, display name, {column: ClassLabel names})."""
    if isinstance(source, pd.DataFrame):
        return source.copy(), "DataFrame", {}
    try:
        import datasets as hf
    except ImportError:  # pragma: no cover - datasets is a core dependency
        hf = None
    if hf is not None and isinstance(source, (hf.Dataset, hf.DatasetDict)):
        return _from_hf(source, "datasets object", split)
    if not isinstance(source, (str, os.PathLike)):
        raise InputError(
            f"cannot load a dataset from a {type(source).__name__}; pass a file path, a folder, "
            "a Hugging Face Hub name, a pandas DataFrame or 'demo:nli'."
        )
    text_source = os.fspath(source).strip()
    if not text_source:
        raise InputError("the dataset source is empty; give a file path, a folder or a Hub name.")
    path = local_path(text_source, "the dataset source")
    if path.is_dir():
        return _read_folder(path, config=config, split=split)
    if path.is_file():
        _check_split_given_for(str(path), split)
        if config is not None:
            raise InputError(f"--config/config= ({config!r}) applies to Hub datasets and dataset folders; {path} is one "
                             "file with no configs: drop --config.")
        return read_file(path), str(path), {}
    if _looks_like_path(text_source):
        raise InputError(
            f"no file or folder at '{text_source}'. Check the path (relative paths start at "
            f"{os.getcwd()}), or give a Hugging Face Hub name such as 'snli'."
        )
    return _read_hub(text_source, config=config, split=split)


def _check_label_values(values: pd.Series, label: str) -> None:
    """Labels are text or numbers, one kind per column: 1 and "1" would be two classes."""
    present = values.dropna()
    nested = present.map(lambda v: isinstance(v, (list, tuple, dict, set, np.ndarray)))
    if nested.any():
        raise InputError(f"the label column '{label}' holds lists or dicts (e.g. {present[nested].iloc[0]!r}); "
                         "give one label per example (text or a number), or choose another column with --label.")
    is_text = present.map(lambda v: isinstance(v, str))
    if is_text.any() and not is_text.all():
        number, text = present[~is_text].iloc[0], present[is_text].iloc[0]
        raise InputError(f"the label column '{label}' mixes numbers and text (e.g. {number!r} and {text!r}), "
                         "which would count as different labels; write every label the same way "
                         "(all text or all numbers).")


def _check_split_given_for(source: str, split) -> None:
    if split is not None:
        raise InputError(f"--split/split= ({split!r}) applies to save_to_disk folders and Hub datasets; "
                         f"{source} has a single split: drop --split, or point at the dataset's folder.")



def _looks_like_path(s: str) -> bool:
    suffixes = "".join(Path(s).suffixes).lower()
    return (
        s.startswith((".", "/", "~"))
        or os.sep in s and s.count("/") > 1
        or any(suffixes.endswith(ext) or suffixes.endswith(ext + ".gz") for ext in INPUT_FORMATS)
        or "\\" in s
    )


def _read_folder(path: Path, *, config, split):
    import datasets as hf

    if (path / "dataset_info.json").exists() or (path / "dataset_dict.json").exists() or (path / "state.json").exists():
        try:
            obj = hf.load_from_disk(str(path))
        except Exception as exc:
            raise InputError(
                f"could not read the saved dataset folder {path}: {exc}. "
                "It should be a folder written by datasets' save_to_disk."
            ) from None
        return _from_hf(obj, str(path), split)
    # A folder shaped like a Hub dataset repo: README.md with `configs`, or plain data files.
    return _read_hub(str(path), config=config, split=split, local=True)


def _read_hub(name: str, *, config, split, local: bool = False):
    import datasets as hf

    offline = hub_offline()
    if offline and not local and not _in_local_hub_cache(name):
        # datasets would still resolve the name through its retry loop (seconds to tens of
        # seconds) before giving up; with nothing cached there is nothing it could load
        raise InputError(_hub_unreachable(name, offline, "the dataset is not in the local Hugging Face cache"))
    try:
        obj = hf.load_dataset(name, config, split=split)
    except (ValueError, FileNotFoundError, KeyError) as exc:
        text = str(exc)
        if "config" in text.lower() and config is None:
            try:
                names = hf.get_dataset_config_names(name)
            except Exception:
                names = []
            if names:
                raise InputError(
                    f"{name} has several configs ({', '.join(names)}); choose one with --config / config=."
                ) from None
        if local:
            raise InputError(
                f"could not load the folder {name} as a dataset: {text.splitlines()[0] if text else exc!r}. "
                "Point at a data file (CSV/TSV/JSONL/Parquet), a save_to_disk folder, or a folder with "
                "data files and a README.md `configs` section; check --config/--split."
            ) from None
        if "split" in text.lower() or "config" in text.lower():
            raise InputError(f"Hub dataset '{name}': {text.splitlines()[0]} Choose a valid --config/--split.") from None
        raise InputError(_hub_unreachable(name, offline, text)) from None
    except Exception as exc:  # connection errors, DatasetNotFoundError, offline mode
        if local:
            raise InputError(f"could not load the folder {name} as a dataset: {type(exc).__name__}: {exc}") from None
        raise InputError(_hub_unreachable(name, offline, f"{type(exc).__name__}: {exc}")) from None
    return _from_hf(obj, name + (f" ({config})" if config else ""), split)


def hub_offline() -> bool:
    """``HF_HUB_OFFLINE`` (or ``HF_DATASETS_OFFLINE``) is set: no Hub request may be made."""
    return any(os.environ.get(v, "0").strip().lower() in ("1", "true", "yes", "on")
               for v in ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE"))


def _in_local_hub_cache(name: str) -> bool:
    """Whether ``name`` has a copy in the local Hugging Face caches (which offline mode may
    load): the hub cache (``datasets--org--name``) or the datasets cache (``org___name``)."""
    try:
        import datasets.config as hfc
        from huggingface_hub import constants

        hub = Path(os.environ.get("HF_HUB_CACHE") or constants.HF_HUB_CACHE).expanduser()
        ds_cache = Path(os.environ.get("HF_DATASETS_CACHE") or hfc.HF_DATASETS_CACHE).expanduser()
    except Exception:  # noqa: BLE001  (unknown layout: let datasets decide)
        return True
    return ((hub / ("datasets--" + name.replace("/", "--"))).exists()
            or (ds_cache / name.replace("/", "___")).exists())


def _hub_unreachable(name: str, offline: bool, detail: str) -> str:
    why = "offline mode is on (HF_HUB_OFFLINE=1)" if offline else "the Hub could not be reached or has no such dataset"
    first = detail.strip().splitlines()[0] if detail.strip() else ""
    return (
        f"could not load '{name}' from the Hugging Face Hub: {why} ({first[:200]}). "
        "Check the name, or download the dataset where there is network and load the local file or folder instead. "
        "If you meant a local file, check the path."
    )


def _from_hf(obj, name: str, split: Optional[str]):
    import datasets as hf

    if isinstance(obj, hf.DatasetDict):
        splits = list(obj.keys())
        if split is None:
            if len(splits) != 1:
                raise InputError(
                    f"{name} has several splits ({', '.join(splits)}); choose one with --split / split=."
                )
            split = splits[0]
        if split not in obj:
            raise InputError(f"{name} has no split '{split}'; choose one of: {', '.join(splits)}.")
        obj = obj[split]
    class_names = {}
    image_cols = []
    for col, feat in obj.features.items():
        if isinstance(feat, hf.ClassLabel):
            class_names[col] = list(feat.names)
        elif isinstance(feat, hf.Image):
            image_cols.append(col)
    if image_cols:
        obj = obj.cast(hf.Features({c: f for c, f in obj.features.items() if c not in image_cols}
                                   | {c: hf.Image(decode=True) for c in image_cols}))
    frame = obj.to_pandas()
    for col in image_cols:
        frame[col] = [_decode_image(v) for v in frame[col]]
    return frame, name, class_names


def _decode_image(value):
    """An image cell from datasets' Arrow form ({'bytes', 'path'} or PIL) to a numpy array."""
    import io

    from PIL import Image

    if isinstance(value, dict):
        data = value.get("bytes")
        img = Image.open(io.BytesIO(data)) if data is not None else Image.open(value["path"])
    else:
        img = value
    return np.asarray(img)


def _load_demo(source: str) -> Dataset:
    from . import demos

    _, _, rest = source.partition(":")
    which, _, opts = rest.partition(":")
    which = which.strip().lower()
    if which not in demos.DEMOS:
        raise InputError(f"unknown demo '{which}'; choose one of: " + ", ".join(f"demo:{d}" for d in demos.DEMOS) + ".")
    kwargs = {}
    for part in filter(None, (p.strip() for p in opts.split(","))):
        key, eq, value = part.partition("=")
        if not eq:
            raise InputError(f"demo option '{part}' should look like key=value, e.g. demo:nli:n=2000.")
        kwargs[key.strip()] = _number(value.strip())
    maker = demos.DEMOS[which]
    try:
        return maker(**kwargs)
    except TypeError as exc:
        raise InputError(f"bad option for demo:{which}: {exc}. See `help(core.data.demos.make_{which})`.") from None


def _number(value: str):
    for cast in (int, float):
        try:
            return cast(value)
        except ValueError:
            pass
    return value


# ---------------------------------------------------------------- roles


def _as_list(value) -> list:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return list(value)


def _check_column(frame: pd.DataFrame, column: str, role: str) -> str:
    if column in frame.columns:
        return column
    columns = [str(c) for c in frame.columns]
    close = difflib.get_close_matches(column, columns, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise InputError(
        f"no column '{column}' for the {role}.{hint} The columns are: {', '.join(columns)}. "
        f"Name the {role} with --{role.split()[0]} (or {role.split()[0]}= in Python)."
    )


#: a label that reads as HTML markup or a spreadsheet formula (said when loading: kept as text)
_MARKUP = re.compile(r"^[=+@]|^-[^0-9.]|<[A-Za-z/!][^>]*>")


def detect_roles(frame: pd.DataFrame) -> dict:
    """Guess column roles from common layouts; what `info` shows as 'detected'."""
    cols = list(frame.columns)
    lower = {str(c).lower(): c for c in cols}
    roles = {"text": [], "label": None, "id": None, "image": None, "embedding": None}
    for names in (LABEL_NAMES,):
        for n in names:
            if n.lower() in lower:
                roles["label"] = lower[n.lower()]
                break
    for layout in TEXT_LAYOUTS:
        if all(n in lower for n in layout):
            roles["text"] = [lower[n] for n in layout]
            break
    else:   # no whole layout: the columns named as a part of one (a hypothesis-only file)
        parts = dict.fromkeys(n for layout in TEXT_LAYOUTS for n in layout)
        roles["text"] = [lower[n] for n in parts if n in lower]
    for key, names in (("id", ID_NAMES), ("image", IMAGE_NAMES), ("embedding", EMBEDDING_NAMES)):
        for n in names:
            if n.lower() in lower:
                roles[key] = lower[n.lower()]
                break
    return roles



def _alike_labels(values: pd.Series) -> list:
    """Groups of distinct labels that are one label written differently ("yes" and "yes ", "café"
    composed and decomposed, "Yes" and "yes"): read apart, each is a class of its own."""
    import unicodedata

    groups = {}
    for v in pd.unique(values.astype(str)) if len(values) else []:
        groups.setdefault(unicodedata.normalize("NFC", v).strip().casefold(), []).append(v)
    return [sorted(g) for g in groups.values() if len(g) > 1]

def assign_roles(
    frame: pd.DataFrame,
    *,
    name: str = "",
    text=None,
    label: Optional[str] = None,
    id: Optional[str] = None,
    embedding: Optional[str] = None,
    image: Optional[str] = None,
    features=None,
    class_names: Optional[dict] = None,
    truth: Iterable[str] = (),
) -> Dataset:
    """Validate column roles on a raw table and build the `Dataset` (ids, labels, messages)."""
    frame = frame.copy()
    frame.columns = [str(c) for c in frame.columns]
    detected = detect_roles(frame)
    messages: list[str] = []
    dropped: dict[str, int] = {}

    label = _check_column(frame, label, "label column") if label else detected["label"]
    if label is None:
        raise RolesNeeded(
            "could not find a label column (looked for: " + ", ".join(LABEL_NAMES) + "). "
            f"The columns are: {', '.join(frame.columns)}. Name it with --label (label= in Python).",
            role="label", columns=frame.columns, detected=detected, preview=frame.head(20))
    text_cols = [_check_column(frame, c, "text column") for c in _as_list(text)] or list(detected["text"])
    image = _check_column(frame, image, "image column") if image else detected["image"]
    embedding = _check_column(frame, embedding, "embedding column") if embedding else detected["embedding"]
    feature_cols = [_check_column(frame, c, "feature column") for c in _as_list(features)]
    id_col = None if id is False else _check_column(frame, id, "id column") if id else detected["id"]
    if not text_cols and image is None and embedding is None:
        raise RolesNeeded(
            "found no text, image or embedding column to represent the examples. "
            f"The columns are: {', '.join(frame.columns)}. Name the text column(s) with --text "
            "(e.g. --text premise,hypothesis), or --image / --embedding.",
            role="text", columns=frame.columns, detected=dict(detected, label=label), preview=frame.head(20))
    if label in text_cols:
        raise InputError(f"column '{label}' cannot be both the label and a text column; choose another --text.")
    if label in feature_cols:
        raise InputError(f"--feature {label} is the label column itself: it predicts the label perfectly and says "
                         "nothing about artifacts; drop it from --feature.")

    frame = _with_ids(frame, id_col, dict(role="id", columns=frame.columns,
                                          detected=dict(detected, label=label, text=text_cols), preview=frame.head(20)))

    frame = _usable_labels(frame, label, (class_names or {}).get(label), messages, dropped)
    frame = _text_columns(frame, text_cols, messages)
    return Dataset(
        table=frame,
        label=label,
        text=text_cols,
        embedding=embedding,
        image=image,
        features=feature_cols,
        name=name,
        dropped=dropped,
        messages=messages,
        truth=[c for c in truth if c in frame.columns],
    )


def _usable_labels(frame: pd.DataFrame, label: str, names, messages: list, dropped: dict) -> pd.DataFrame:
    """The rows with a usable label (``names``: the names of ClassLabel ints), the others dropped and
    counted; notes on labels that look like missing values, markup or one class written two ways.
    InputError when fewer than two classes are left."""
    values = frame[label]
    if names is not None:
        codes = pd.to_numeric(values, errors="coerce")
        values = pd.Series(
            [names[int(c)] if pd.notna(c) and 0 <= int(c) < len(names) else None for c in codes],
            index=frame.index, dtype=object,
        )
    usable = values.notna() & ~values.astype(str).str.strip().str.lower().isin(UNUSABLE_LABELS)
    _check_label_values(values[usable], label)   # unusable markers such as "-" or "" are dropped, not mixed
    n_bad = int((~usable).sum())
    if n_bad:
        dropped["no usable label"] = n_bad
        bad = frame[label][~usable]
        shown = list(dict.fromkeys("an empty cell" if v is None or (isinstance(v, float) and np.isnan(v))
                                   or not str(v).strip() else repr(str(v)) for v in bad))
        messages.append(f"dropped {n_bad} of {len(frame)} rows without a usable label ({', '.join(shown[:4])}).")
    words = sorted({str(v) for v in values[usable] if isinstance(v, str) and v.strip().lower() in _MISSING_WORDS})
    if words:
        messages.append(f"the label{'s' if len(words) > 1 else ''} {', '.join(map(repr, words))} "
                        f"{'are' if len(words) > 1 else 'is'} kept as a class; if it means 'no label', remove "
                        "those rows (or leave their label cell empty) and load the file again.")
    odd = sorted({str(v) for v in values[usable] if isinstance(v, str) and _MARKUP.search(v.strip())})
    if odd:
        messages.append(f"the label{'s' if len(odd) > 1 else ''} {', '.join(repr(v[:40]) for v in odd[:3])} "
                        f"look{'' if len(odd) > 1 else 's'} like HTML markup or a spreadsheet formula; "
                        f"{'they are kept as classes' if len(odd) > 1 else 'it is kept as a class'}, as plain text (never rendered "
                        "or run). If that is not meant, clean the label column and load the file again.")
    alike = _alike_labels(values[usable])
    if alike:
        # ascii(): two forms of "café" print alike, their code points do not
        shown = "; ".join(" and ".join(ascii(v[:40]) for v in group[:3]) for group in alike[:3])
        messages.append(f"{counted(len(alike), 'group')} of labels differ only in white space, case or Unicode form "
                        f"({shown}): each is kept as its own class; if they mean one class, write them one way and "
                        "load the file again.")
    frame = frame[usable.to_numpy()]
    frame[label] = values[usable].to_numpy()
    if frame[label].dtype.kind == "f" and np.all(np.mod(frame[label].to_numpy(), 1) == 0):
        frame[label] = frame[label].astype(int)  # 0.0/1.0 from a CSV with missing labels
    if len(frame) == 0:
        raise InputError(f"no rows with a usable label in column '{label}'; check --label.")
    n_classes = frame[label].nunique()
    if n_classes < 2:
        raise InputError(
            f"the label column '{label}' has a single class ({frame[label].iloc[0]!r}) after dropping unusable rows; "
            "filtering needs at least two classes. Check --label, or load a dataset with several labels."
        )
    return frame


def _text_columns(frame: pd.DataFrame, text_cols: list, messages: list) -> pd.DataFrame:
    """The text columns as text (an empty cell as ""), noted when empty; InputError for a column that
    holds no text."""
    for col in text_cols:
        col_values = frame[col]
        non_text = col_values.dropna().map(lambda v: not isinstance(v, str))
        if len(col_values.dropna()) and non_text.mean() > 0.5:
            kind = type(col_values.dropna().iloc[0]).__name__
            raise InputError(
                f"column '{col}' is not text (it holds {kind} values); choose text columns with --text. "
                f"The columns are: {', '.join(c for c in frame.columns)}."
            )
        frame[col] = col_values.fillna("").astype(str)
        n_empty = int((frame[col].str.strip() == "").sum())
        if n_empty:
            messages.append(
                f"{n_empty} examples have an empty '{col}'; they are kept, and a representation "
                "that cannot handle empty text will say so."
            )
    return frame


def _with_ids(frame: pd.DataFrame, id_col: Optional[str], ask: dict) -> pd.DataFrame:
    """``frame`` indexed by its examples' ids: the id column, or the row number in the source
    (stable for the same file). ``ask``: what a RolesNeeded offers when the id column is unusable."""
    if id_col is not None:
        ids = frame[id_col].astype(str)
        # RolesNeeded: an interface offers the choice of another id column, or none (rows numbered)
        if frame[id_col].isna().any():
            raise RolesNeeded(f"the id column '{id_col}' has {int(frame[id_col].isna().sum())} empty values; fill them "
                              "or number the rows instead (--number-rows).", **ask)
        dup = ids[ids.duplicated(keep=False)]
        if len(dup):
            examples = ", ".join(sorted(set(dup.tolist()))[:5])
            raise RolesNeeded(
                f"the id column '{id_col}' has {dup.nunique()} duplicated ids (e.g. {examples}); ids must be unique. "
                "Fix the ids, or number the rows instead (--number-rows).", **ask)
    else:
        ids = pd.Series([str(i) for i in range(len(frame))], index=frame.index)
    frame = frame.set_axis(pd.Index(ids.to_numpy(dtype=object), name="id"))   # the cells are not copied
    if id_col is not None and id_col == "id":
        frame = frame.drop(columns=["id"])
    elif "id" in frame.columns:   # the index is "id" now: keep the column under a free name
        kept = next(n for n in ("id_original", *(f"id_original_{i}" for i in range(2, len(frame.columns) + 2)))
                    if n not in frame.columns)
        frame = frame.rename(columns={"id": kept})
    return frame

