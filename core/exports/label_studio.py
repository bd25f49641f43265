"""The rows that carry a new cue as a Label Studio project (issue 44, item 2): a labeling config
and a task file whose prediction is "remove" with the cue's strength as its score, so reviewers
outside the team store judge exactly the rows `check` named, strongest first.

What Label Studio reads, as its SDK's ``LabelInterface`` validates it (``tests/unit/test_label_studio.py``
runs that validator in its own environment): the config is XML with one ``Text`` per field and a
``Choices`` question; a task is ``{"data": {...}, "predictions": [{"model_version", "score",
"result": [{"from_name", "to_name", "type": "choices", "value": {"choices": [...]}}]}]}``, the
score between 0 and 1. Field names become the keys ``field_0``, ``field_1``… (a ``$name`` in the
config must be an identifier), each shown under its own name.
"""
from __future__ import annotations

import math
import pandas as pd

from ..base.escaping import xml_attr

__all__ = ["label_studio_config", "label_studio_tasks", "CHOICES", "MODEL_VERSION"]

#: what a reviewer decides about an example that carries a cue: keep it, or remove it from the split
CHOICES = ("keep", "remove")
#: the predictions' model_version: who suggested "remove"
MODEL_VERSION = "artifact-lens check"


def _key(i: int) -> str:
    return f"field_{i}"


def label_studio_config(dataset) -> str:
    """The labeling config: the example's id and label, each text field under its own name, the
    cues it carries, and the decision with a note."""
    texts = list(dataset.text)
    lines = ['<View>', '  <Header value="Does this example give its label away through the cue shown?"/>',
             '  <Text name="example" value="$example"/>']
    for i, field in enumerate(texts):
        lines += [f'  <Header value={xml_attr(field)} size="6"/>',
                  f'  <Text name="{_key(i)}" value="${_key(i)}"/>']
    lines += ['  <Header value="cues it carries (feature → label, strength)" size="6"/>',
              '  <Text name="cues" value="$cues"/>',
              f'  <Choices name="decision" toName="{_key(len(texts) - 1) if texts else "example"}" choice="single" '
              'required="true">',
              *[f'    <Choice value="{c}"/>' for c in CHOICES],
              '  </Choices>',
              f'  <TextArea name="note" toName="{_key(len(texts) - 1) if texts else "example"}" '
              'placeholder="why (required to keep a row that gives its label away)"/>',
              '</View>']
    return "\n".join(lines) + "\n"


def label_studio_tasks(dataset, rows: pd.DataFrame) -> list:
    """One task per example of ``rows`` (`core.certificate.rows.cue_rows`: an example carrying two
    cues is one task listing both), strongest cue first; its prediction is "remove" scored by the
    strongest cue's share (how often the feature's examples have the label: between 0 and 1)."""
    if rows is None or not len(rows):
        return []
    texts = list(dataset.text)
    table = dataset.table
    index = table.index.astype(str)
    strongest = rows.reset_index(drop=True).assign(id=rows["id"].astype(str).to_numpy())
    strongest = strongest.sort_values(["share_after", "z"], ascending=False, kind="stable")
    to_name = _key(len(texts) - 1) if texts else "example"
    tasks = []
    for example_id, cues in strongest.groupby("id", sort=False):
        at = index.get_loc(example_id)
        row = table.iloc[at]
        score = float(cues["share_after"].iloc[0])
        data = {"example": f"id {example_id}, label {row[dataset.label]}",
                **{_key(i): _text(row[f]) for i, f in enumerate(texts)},
                "cues": "; ".join(f"{c.feature} → {c.cue_label} (share {c.share_after:.2f}, z {c.z:.1f})"
                                  for c in cues.itertuples(index=False)),
                "artifact_lens_id": example_id, "artifact_lens_label": _text(row[dataset.label])}
        tasks.append({"data": data, "predictions": [{
            "model_version": MODEL_VERSION, "score": min(1.0, max(0.0, score)) if math.isfinite(score) else None,
            "result": [{"from_name": "decision", "to_name": to_name, "type": "choices",
                        "value": {"choices": ["remove"]}}]}]})
    return tasks


def _text(value) -> str:
    """A cell as the text a reviewer reads (an empty cell as empty text, never "nan")."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    return str(value)
