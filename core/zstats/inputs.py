"""What z-statistics and the filters take: column roles from a Dataset or a DataFrame, checked
once with a clear message, and the feature matrix built from them."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np
import pandas as pd

from ..data.dataset import Dataset
from ..base.errors import InputError
from ..text.features import FeatureMatrix, build_features, check_text_columns


@dataclass
class ZInput:
    table: pd.DataFrame
    label: str
    text: list
    pair: Optional[tuple]
    features: list


def resolve_input(data, label=None, text=None, pair="auto", features=None, what="data") -> ZInput:
    """Column roles from a Dataset (its roles are the defaults) or a DataFrame."""
    if Dataset is not None and isinstance(data, Dataset):
        table = data.table
        label = label or data.label
        text = list(data.text) if text is None else text
        features = list(data.features) if features is None else features
    elif isinstance(data, pd.DataFrame):
        table = data
        if label is None:
            if "label" not in table.columns:
                raise InputError(
                    f"{what}: no label column given and none is named 'label'; pass label=... "
                    f"(columns: {list(map(str, table.columns))})."
                )
            label = "label"
        features = list(features or [])
        if text is None:
            text = [c for c in table.columns if c != label and c not in features and holds_strings(table[c])]
    else:
        raise InputError(
            f"{what} must be a pandas DataFrame or a core.data.dataset.Dataset, not {type(data).__name__}; "
            f"load files with core.data.sources.load_dataset(...)."
        )
    if label not in table.columns:
        raise InputError(f"{what}: label column {label!r} is not in the data; columns are {list(map(str, table.columns))}.")
    if len(table) == 0:
        raise InputError(f"{what} has no examples; z-statistics need labelled examples.")
    text = check_text_columns(table, [text] if isinstance(text, str) else list(text))
    if not text and not features:
        raise InputError(
            f"{what}: no text columns and no feature columns; pass text=['premise', 'hypothesis'] "
            f"(columns of strings) and/or features=[boolean or categorical columns]."
        )
    if label in text:
        raise InputError(f"the label column {label!r} cannot also be a text column; remove it from text.")
    missing = table[label].isna()
    if missing.any():
        raise InputError(
            f"{what}: label column {label!r} is missing in {int(missing.sum())} rows; drop them or choose another label."
        )
    if isinstance(pair, str) and pair == "auto":
        pair = tuple(text) if len(text) == 2 else None
    elif pair is not None:
        pair = tuple(pair)
        if len(pair) != 2 or any(p not in text for p in pair):
            raise InputError(f"pair={pair!r} must name two of the text columns {text} (e.g. ('premise', 'hypothesis')).")
    return ZInput(table, label, text, pair, list(features))


def holds_strings(s: pd.Series) -> bool:
    if pd.api.types.is_bool_dtype(s) or pd.api.types.is_numeric_dtype(s):
        return False
    if pd.api.types.is_object_dtype(s):
        sample = s.dropna().iloc[:2000]
        return len(sample) > 0 and all(isinstance(v, str) for v in sample)
    return pd.api.types.is_string_dtype(s)


#: the least support of a feature a cue table tests by default (the option and pair cue tables, the
#: `zstats` command, the pages): one figure, so a page and the docs count the same features
CUE_MIN_COUNT = 20

#: the most labels z-statistics take: their counts and cue table grow as features × labels (a 20,000-row
#: file with 10,000 labels took 22 GB before it was refused); the certificate shares the bound
LABELS_MAX = 256


def classes_of(values: pd.Series, what="data") -> list:
    """The labels' classes, sorted; InputError, before anything is counted, for one class or more than
    `LABELS_MAX`."""
    classes = sorted(pd.unique(values).tolist(), key=str)
    if len(classes) > LABELS_MAX:
        raise InputError(
            f"{what}: {len(classes):,} labels. z-statistics measure each simple feature against each label, for at "
            f"most {LABELS_MAX} labels (their table grows as features × labels, beyond what memory holds); choose "
            f"a label column with fewer classes, or group the rare ones.")
    if len(classes) < 2:
        raise InputError(
            f"{what}: the label has only one class ({classes[0]!r} for all {len(values)} examples); z-statistics compare "
            f"labels, so they need at least two. Choose another label column or add examples of other labels."
        )
    return classes


def check_min_count(min_count) -> int:
    if not isinstance(min_count, (int, np.integer)) or min_count < 1:
        raise InputError(f"min_count={min_count!r} must be a whole number ≥ 1 (e.g. 20).")
    return int(min_count)


def features_for(inp: ZInput, table, y, classes, *, min_count, options, fit_rows=None, random_state=0,
                  progress=None, cancel=None) -> FeatureMatrix:
    fm = build_features(
        table, text=inp.text, y_codes=y, classes=classes, pair=inp.pair, columns=inp.features, options=options,
        min_count=min_count, fit_rows=fit_rows, random_state=random_state, progress=progress, cancel=cancel,
    )
    if fm.X.shape[1] == 0 or (min_count > 1 and (fm.n >= min_count).sum() == 0):
        largest = int(fm.n.max()) if fm.X.shape[1] else 0
        raise InputError(
            f"min_count={min_count} is above every feature's count (the most frequent feature is in {largest} "
            f"examples); lower min_count."
        )
    return fm


def resolve_seed(seed_data, inp: ZInput) -> pd.DataFrame:
    if Dataset is not None and isinstance(seed_data, Dataset):
        table = seed_data.table
    elif isinstance(seed_data, pd.DataFrame):
        table = seed_data
    else:
        raise InputError(
            f"seed_data must be a DataFrame or a core.data.dataset.Dataset, not {type(seed_data).__name__}."
        )
    need = [inp.label, *inp.text, *inp.features]
    missing = [c for c in need if c not in table.columns]
    if missing:
        raise InputError(
            f"the seed dataset lacks the columns {missing} of the data (label {inp.label!r}, text {inp.text}, "
            f"features {inp.features}); the seed needs the same label and text fields. Its columns are "
            f"{list(map(str, table.columns))}: rename them to match."
        )
    if len(table) == 0:
        raise InputError("the seed dataset has no examples.")
    check_text_columns(table, inp.text)
    if table[inp.label].isna().any():
        raise InputError(f"the seed dataset's label column {inp.label!r} has missing values; drop those rows.")
    return table
