"""Data shown as data: Markdown escaped in messages, images as small PNG thumbnails; metric rows."""
from __future__ import annotations

import base64
import io
import re
from typing import Optional

import numpy as np
import streamlit as st

from artifact_lens.base.escaping import cut_middle, direction_shown, md_text



#: what the CLI's flags are called on the Data page (core's messages name the flags)
_CONTROLS = {"label": "the Label column choice", "text": "the Text columns choice", "id": "the Id column choice",
             "embedding": "the Embedding column choice", "image": "the Image column choice",
             "config": "the Config box", "split": "the Split box", "number-rows": "the Id column choice (none)"}
_FLAG = re.compile(r"--(" + "|".join(_CONTROLS) + r")\b(?:\s*/\s*\1=)?")
_PYTHON_NOTE = re.compile(r"\s*\((?:or )?[a-z_]+= in Python\)|\s*/\s*(?:" + "|".join(_CONTROLS) + r")=(?=[\s.,;)]|$)")


def app_words(message) -> str:
    """A message from artifact_lens in the app's words: CLI flags become the names of the app's
    controls ("--label" -> "the Label column choice"), Python keyword notes are dropped."""
    text = _PYTHON_NOTE.sub("", str(message))
    return _FLAG.sub(lambda m: _CONTROLS[m.group(1)], text)


def plain(message) -> str:
    """A message for st.error/st.info/st.warning in the app's words, with Markdown escaped.

    Those elements render Markdown, and messages from artifact_lens can quote values from
    the data (labels, column names, file names): escaping keeps them plain text.
    """
    return md_text(app_words(cut_middle(message)))


def shown_cells(frame):
    """A copy of ``frame`` whose text cells show their direction controls (U+202E…) by code point
    instead of obeying them (`core.base.escaping.direction_shown`); other cells as they are."""
    out = frame.copy()
    for col in out.columns:
        if out[col].dtype == object or str(out[col].dtype) in ("string", "str"):
            out[col] = out[col].map(lambda v: direction_shown(v) if isinstance(v, str) else v)
    return out


def thumbnail_uri(image, size: int = 48) -> Optional[str]:
    """A PNG data URI of an image array (greyscale or RGB), for st.dataframe's ImageColumn."""
    from PIL import Image

    arr = np.asarray(image, dtype=np.float32)
    if arr.ndim == 1:
        side = int(round(np.sqrt(arr.size)))
        if side * side != arr.size:
            return None
        arr = arr.reshape(side, side)
    lo, hi = float(arr.min()), float(arr.max())
    arr = ((arr - lo) / (hi - lo if hi > lo else 1.0) * 255).astype(np.uint8)
    img = Image.fromarray(arr).resize((size, size), Image.NEAREST)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode()


def metric_row(metrics: dict) -> None:
    """One row of ``st.metric``s: label -> value."""
    for column, (label, value) in zip(st.columns(len(metrics)), metrics.items()):
        column.metric(label, value)


def made(info: dict, now: Optional[float] = None) -> str:
    """When and how fast a cached result was computed, in words ("computed 3 min ago in
    93 s, kept on disk"): said the same whether this load computed it or read it back, so
    "from cache" never appears right after computing."""
    import time

    seconds = f" in {info['seconds']:.1f} s" if "seconds" in info else ""
    at = info.get("computed_at")
    if at is None:
        return ("read from the disk cache" if info.get("cache_hit") else "computed") + seconds
    age = max(0.0, (now or time.time()) - float(at))
    when = ("just now" if age < 60 else f"{age / 60:.0f} min ago" if age < 3600 else
            time.strftime("on %Y-%m-%d %H:%M", time.localtime(float(at))))
    return f"computed {when}{seconds}, kept on disk for this Φ"
