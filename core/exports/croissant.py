"""The ``croissant.json`` a datasets folder carries (issue 44): MLCommons Croissant 1.0 metadata
with its Responsible-AI vocabulary, filled from measurements rather than left to prose.

- ``rai:dataBiases``: the split's artifact measures from its certificate (each with its standard
  error) and its strongest label cues (a simple feature whose examples have one label far more
  often than the data does, with its support);
- ``rai:dataLimitations``: what the certificate could not measure or cannot vouch for (measures
  left out, measures that only warn), and what the filter removed;
- ``rai:dataAnnotationAnalysis`` and ``rai:annotationsPerItem``: the reviewers' Krippendorff's α
  when the certificate holds it, else that each example carries the dataset's own single label;
- ``rai:dataPreprocessingProtocol``: how the split was made (AFLite's m, t, k, τ, n; the rows kept).

`croissant_metadata` builds everything but the files; `croissant_bytes` completes it with the
folder's data files (their SHA-256) once they are written. ``mlcroissant`` validates the result
(`tests/unit/test_croissant.py`).
"""
from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd

from ..base.keys import digest

__all__ = ["croissant_metadata", "croissant_bytes", "CONTEXT", "FILE_NAME"]

FILE_NAME = "croissant.json"
#: the media type of the ``save_to_disk`` shards (Arrow's streaming format)
ARROW_STREAM = "application/vnd.apache.arrow.stream"
#: the strongest cues named in ``rai:dataBiases``
CUES_NAMED = 5

#: Croissant 1.0's JSON-LD context, as the specification gives it
CONTEXT = {
    "@language": "en", "@vocab": "https://schema.org/", "citeAs": "cr:citeAs", "column": "cr:column",
    "conformsTo": "dct:conformsTo", "cr": "http://mlcommons.org/croissant/", "rai": "http://mlcommons.org/croissant/RAI/",
    "data": {"@id": "cr:data", "@type": "@json"}, "dataType": {"@id": "cr:dataType", "@type": "@vocab"},
    "dct": "http://purl.org/dc/terms/", "equivalentProperty": "cr:equivalentProperty",
    "examples": {"@id": "cr:examples", "@type": "@json"}, "extract": "cr:extract", "field": "cr:field",
    "fileProperty": "cr:fileProperty", "fileObject": "cr:fileObject", "fileSet": "cr:fileSet", "format": "cr:format",
    "includes": "cr:includes", "isLiveDataset": "cr:isLiveDataset", "jsonPath": "cr:jsonPath", "key": "cr:key",
    "md5": "cr:md5", "parentField": "cr:parentField", "path": "cr:path", "recordSet": "cr:recordSet",
    "references": "cr:references", "regex": "cr:regex", "repeated": "cr:repeated", "replace": "cr:replace",
    "samplingRate": "cr:samplingRate", "sc": "https://schema.org/", "separator": "cr:separator", "source": "cr:source",
    "subField": "cr:subField", "transform": "cr:transform",
}


def _scalar_type(values) -> Optional[str]:
    """The Croissant data type of scalar cells (missing ones left out), or None when they are not
    one kind of scalar."""
    present = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    if present and all(isinstance(v, (bool, np.bool_)) for v in present):
        return "sc:Boolean"   # a boolean column with nulls is an object column, still booleans
    if present and all(isinstance(v, (int, np.integer)) and not isinstance(v, (bool, np.bool_)) for v in present):
        return "sc:Integer"
    if present and all(isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)) for v in present):
        return "sc:Float"
    if all(isinstance(v, str) for v in present):
        return "sc:Text"
    return None


def _field(column, values: pd.Series) -> Optional[dict]:
    """The Croissant field of a column: a scalar's type; a mapping's keys as sub-fields; a list of
    mappings (a conversation's messages) as a repeated field with the keys as sub-fields; None for
    what it cannot describe (an embedding's arrays, mixed cells)."""
    col = str(column)
    base = {"@type": "cr:Field", "@id": f"split/{col}", "name": col}
    source = {"fileSet": {"@id": "data"}, "extract": {"column": col}}
    kind = values.dtype.kind
    if kind in "biuf":
        return {**base, "dataType": {"b": "sc:Boolean", "i": "sc:Integer", "u": "sc:Integer"}.get(kind, "sc:Float"),
                "source": source}
    present = [v for v in values if v is not None and not (isinstance(v, float) and math.isnan(v))]
    lists = [v for v in present if isinstance(v, (list, tuple, np.ndarray))]
    if lists and len(lists) == len(present):
        items = [m for v in lists for m in list(v)]
        if not items or not all(isinstance(m, dict) for m in items):
            return None   # vectors or lists of scalars: not described
        mappings, repeated = items, True
    elif present and all(isinstance(v, dict) for v in present):
        mappings, repeated = present, False
    else:
        scalar = _scalar_type(values)
        return None if scalar is None else {**base, "dataType": scalar, "source": source}
    keys = sorted({str(k) for m in mappings for k in m})
    subs = []
    for key in keys:
        scalar = _scalar_type([m.get(key) for m in mappings])
        if scalar is None:
            return None
        subs.append({"@type": "cr:Field", "@id": f"split/{col}/{key}", "name": key, "dataType": scalar,
                     "source": {**source, "transform": {"jsonPath": key}}})
    return {**base, **({"repeated": True} if repeated else {}), "subField": subs}


def _number(value) -> str:
    return "n/a" if value is None or (isinstance(value, float) and not math.isfinite(value)) else f"{value:.3g}"


def _measured(name: str, m: dict) -> str:
    se = "" if m.get("stderr") is None else f" ± {_number(m['stderr'])}"
    return f"{name} = {_number(m.get('value'))}{se} ({m.get('description', '')})"


def _strongest_cues(certificate: dict) -> list:
    """Up to `CUES_NAMED` sentences: the features whose examples lean most towards one label
    (z of their share against the label's share of the data, support at least the certificate's
    ``min_count``)."""
    cues = certificate.get("cues")
    if not cues or not cues.get("features"):
        return []
    labels = certificate["dataset"]["labels"]
    total = max(sum(int(v) for v in labels.values()), 1)
    least = int(certificate.get("settings", {}).get("min_count", cues.get("min_count", 2)))
    support = np.asarray(cues["support"], dtype=float)
    found = []
    for label, counts in cues["counts"].items():
        p0 = int(labels.get(label, 0)) / total
        if not 0 < p0 < 1:
            continue
        share = np.asarray(counts, dtype=float) / np.maximum(support, 1)
        z = (share - p0) / np.sqrt(p0 * (1 - p0) / np.maximum(support, 1))
        for i in np.flatnonzero((support >= least) & (z > 0)):
            found.append((float(z[i]), cues["features"][i], label, share[i], int(support[i]), p0))
    found.sort(key=lambda t: -t[0])
    return [f"'{feature}' gives '{label}' away: {share:.0%} of its {n:,} examples have that label against "
            f"{p0:.0%} of the split (z = {z:.1f})" for z, feature, label, share, n, p0 in found[:CUES_NAMED]]


def _biases(certificate: Optional[dict]) -> list:
    if certificate is None:
        return ["Not measured: the split has no artifact certificate (too small to measure, or exported without "
                "one)."]
    measures = certificate.get("measures", {})
    out = [_measured(n, m) for n, m in measures.items() if m.get("artifact") and "[" not in n and m.get("value") is not None]
    return out + _strongest_cues(certificate)


def _limitations(certificate: Optional[dict], manifest: dict) -> list:
    out = []
    if manifest.get("aflite"):
        out.append("The split was filtered by AFLite: the examples a linear model on the representation predicts "
                   "most easily were removed, so the split is harder for such models than the data it came from; "
                   "measures of the filtered split are not measures of the original data.")
    if certificate is not None:
        for name, m in certificate.get("measures", {}).items():
            if m.get("value") is None and "[" not in name:
                out.append(f"{name} not measured: {m.get('description', '')}")
        warns = [n for n, m in certificate.get("measures", {}).items() if m.get("artifact") and "[" not in n]
        if warns:
            out.append("The certificate's gate fails only on new or stronger label cues; its other artifact measures "
                       f"({', '.join(warns)}) vary between samples of the same data by more than their stated error, "
                       "so they warn (docs/certificate.md).")
    rows = manifest.get("export", {}).get("rows")
    if rows is not None:
        out.append(f"{int(rows):,} rows in this split.")
    return out


def _annotation(certificate: Optional[dict]) -> tuple:
    """(``rai:dataAnnotationAnalysis``, ``rai:annotationsPerItem``): the team's review when the
    certificate holds the reviewers' α, else the dataset's own single label."""
    alpha = (certificate or {}).get("measures", {}).get("reviewers.alpha", {}).get("value")
    if alpha is not None:
        return (f"Team review in Artifact Lens: Krippendorff's α (nominal) of the reviewers = {_number(alpha)}.",
                "1 label from the dataset, plus the team's reviews")
    return ("No annotation analysis: the labels are the dataset's own and were not reviewed by a team in "
            "Artifact Lens.", "1")


def croissant_metadata(frame: pd.DataFrame, manifest: dict, *, name: str, certificate: Optional[dict] = None,
                       description: str = "") -> dict:
    """Croissant metadata of an exported split without its files (`write_croissant` adds them):
    one record set, ``split``, with a field per column the rows have."""
    aflite = manifest.get("aflite") or {}
    export = manifest.get("export", {})
    protocol = ("Filtered with AFLite (Le Bras et al. 2020) by Artifact Lens: "
                + ", ".join(f"{k} = {v}" for k, v in aflite.items() if not isinstance(v, (dict, list)))
                + f"; exported at τ = {export.get('tau')}, n = {export.get('target_size')}, "
                f"{export.get('selection', 'the retained rows')} ({export.get('rows', len(frame)):,} rows)."
                if aflite else f"Exported by Artifact Lens ({len(frame):,} rows).")
    analysis, per_item = _annotation(certificate)
    fields = []
    for col in frame.columns:
        found = _field(col, frame[col])
        if found is not None:
            fields.append(found)
    return {
        "@context": CONTEXT, "@type": "sc:Dataset", "name": name,
        "description": description or f"{name}: a split exported by Artifact Lens, with its artifact measures.",
        "conformsTo": "http://mlcommons.org/croissant/1.0",
        "rai:dataBiases": _biases(certificate), "rai:dataLimitations": _limitations(certificate, manifest),
        "rai:dataAnnotationAnalysis": analysis, "rai:annotationsPerItem": per_item,
        "rai:dataPreprocessingProtocol": protocol,
        "recordSet": [{"@type": "cr:RecordSet", "@id": "split", "name": "split", "field": fields}],
    }


def croissant_bytes(metadata: dict, folder) -> bytes:
    """``croissant.json``: ``metadata`` completed with the data shards of the datasets ``folder``
    (each a FileObject with its SHA-256, and the FileSet the fields read)."""
    folder = Path(folder)
    shards = sorted(p for p in folder.glob("data-*.arrow") if p.is_file())
    files = []
    for p in shards:
        with open(p, "rb") as fh:
            sha = digest(iter(lambda: fh.read(1 << 20), b""), 64)   # the whole SHA-256, 1 MB at a time
        files.append({"@type": "cr:FileObject", "@id": p.name, "name": p.name, "contentUrl": p.name,
                      "encodingFormat": ARROW_STREAM, "sha256": sha})
    files.append({"@type": "cr:FileSet", "@id": "data", "name": "data", "encodingFormat": ARROW_STREAM,
                  "includes": "data-*.arrow"})
    return json.dumps({**metadata, "distribution": files}, indent=1, ensure_ascii=False).encode("utf-8")
