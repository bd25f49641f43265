"""Rows that come in a shape of their own rather than as labelled examples: preference pairs
(`core.data.pairs`) and multiple-choice items (`core.data.choices`). `shape_of` decides, from what
the user asked and the columns, whether a table is one of them; `load_dataset` then indexes its rows
as any dataset's and hands them to that reader."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import pandas as pd

from ..base.errors import InputError

__all__ = ["Shaped", "shape_of"]


@dataclass(frozen=True)
class Shaped:
    """A table read in a shape: ``what`` it is (for messages), the flags that name its columns (for
    the refusal of flags of labelled examples) and ``read(frame, ids=, name=)`` giving the Dataset."""
    what: str
    flags: str
    read: Callable


def shape_of(frame: pd.DataFrame, *, detected_label: Optional[str], label_given: bool, pairs=None,
             pair_columns=None, choices=None, choice_columns=None) -> Optional[Shaped]:
    """The shape the rows of ``frame`` are read in, or None for labelled examples. Asked for (a
    shape, or columns named) it is that one; else multiple-choice items when there are option
    columns or a list of choices with an answer, and pairs when there are chosen/rejected (or
    response_a/response_b/winner) columns and no label column. ``False`` turns either off."""
    from .choices import detect_choices, read_choices
    from .pairs import detect_shape, read_pairs

    if pairs and choices:
        raise InputError("give --pairs or --choices, not both: a table is read as preference pairs or as "
                         "multiple-choice items.")
    as_choices = Shaped("multiple-choice items (the label is which option is right)",
                        "--option-columns, --answer-column, --stem-columns",
                        lambda frame, ids, name: read_choices(frame, ids=ids, name=name, columns=choice_columns,
                                                              shape=choices if isinstance(choices, str) else None))
    as_pairs = Shaped("preference pairs (the label is which side was preferred)",
                      "--prompt-column, --chosen-column, --rejected-column",
                      lambda frame, ids, name: read_pairs(frame, ids=ids, name=name, columns=pair_columns,
                                                          shape=pairs if isinstance(pairs, str) else None))
    if choices is not False and (choices or choice_columns):
        return as_choices
    if pairs is not False and (pairs or pair_columns):
        return as_pairs
    if label_given:
        return None
    if choices is not False and detect_choices(frame) is not None:
        return as_choices
    if pairs is not False and detected_label is None and detect_shape(frame) is not None:
        return as_pairs
    return None
