"""A dataset version made by the team: the dataset's rows plus the examples validators accepted
(paper 002's creation loop), with stable ids and where each row came from."""
from __future__ import annotations

import pandas as pd

from ..base.errors import InputError

__all__ = ["with_accepted"]


def with_accepted(dataset, accepted: pd.DataFrame) -> pd.DataFrame:
    """The rows of ``dataset`` (a `core.data.dataset.Dataset`: its text, label and feature columns,
    ``id`` from its index) followed by the ``accepted`` examples (`TeamStore.accepted_examples`:
    ``id`` = ``sub-<n>``, the fields, ``label``, ``creator``). An ``origin`` column says
    ``original`` or ``accepted``, ``creator`` who wrote an accepted one. InputError when there is
    nothing accepted, or when an accepted id is already an id of the dataset."""
    if not len(accepted):
        raise InputError("no accepted examples yet; validators accept submissions on this page first.")
    keep = [c for c in (*dataset.text, dataset.label, *dataset.features) if c in dataset.table.columns]
    original = dataset.table[keep].reset_index().assign(origin="original", creator=None)
    clash = set(original["id"].astype(str)) & set(accepted["id"])
    if clash:
        raise InputError(f"the dataset already has ids such as {sorted(clash)[0]!r}, which accepted examples use; "
                         "rename them in the dataset first.")
    added = accepted.rename(columns={"label": dataset.label}).assign(origin="accepted")
    return pd.concat([original, added[[c for c in added.columns if c in {*original.columns}]]], ignore_index=True)
