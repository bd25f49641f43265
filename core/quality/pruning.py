"""DQI-guided pruning (paper 002, Algorithm 1): the quality column a quality-ordered AFLite run
removes by, how that choice is recorded in the run's key, the plain-vs-quality comparison, and
the record of the quality columns an export adds. The CLI and the dashboard both call these, so a
run scored by one has the same key and kept examples as the same run scored by the other."""
from __future__ import annotations

from typing import Mapping, Optional

import numpy as np
import pandas as pd

from ..aflite import random_subset
from ..base.errors import InputError
from ..base.progress import check_cancel, report
from ..data.dataset import Dataset
from ..evaluation import default_partial_spec, subset_accuracy
from . import (COMPONENTS, DEFAULT_THRESHOLDS, DEFAULT_WEIGHTS, DQI_COMPONENTS, check_quality, combine,
                          quality_for_aflite, quality_scores)
from .scoring import quality_columns
from ..representations import represent
from ..results.runs import fit_run
from ..zstats import compute_z

__all__ = ["quality_descriptor", "quality_components", "quality_column", "compare_pruning", "quality_columns",
           "quality_columns_note", "QUALITY_MIN_COUNT", "QUALITY_NN_DIM"]


#: the quality context's defaults (`core.quality.QualityContext.fit`), shared by the CLI and the dashboard
QUALITY_MIN_COUNT = 5
QUALITY_NN_DIM: Optional[int] = 64


def quality_descriptor(name: str, *, min_count: int = QUALITY_MIN_COUNT, nn_dim: Optional[int] = QUALITY_NN_DIM,
                       weights: Optional[Mapping] = None) -> dict:
    """What a quality-ordered run (paper 002) records as `core.results.runs.Run.quality`, part of its
    key: ``dqi`` or one component, and the knobs its values depend on. The representation is
    not in it: it is in the key already."""
    if name not in ("dqi", *COMPONENTS):
        raise InputError(f"quality {name!r} is not dqi or a component ({', '.join(COMPONENTS)}).")
    out = {"source": "core.quality", "name": name, "dqi_component": DQI_COMPONENTS.get(name, "combined"),
           "min_count": int(min_count), "nn_dim": None if nn_dim is None else int(nn_dim)}
    if name == "dqi":
        chosen = dict(DEFAULT_WEIGHTS) if weights is None else dict(weights)
        out["weights"] = {c: float(chosen.get(c, 0.0)) for c in COMPONENTS}
    return out


def quality_components(ds, rep, *, min_count: int = QUALITY_MIN_COUNT, nn_dim: Optional[int] = QUALITY_NN_DIM,
                       cache_dir=None, progress=None, cancel=None):
    """The per-example quality components of ``ds`` on Φ ``rep`` (float64, by id): what a
    quality-ordered run and the Quality page read."""
    out = quality_scores(ds, representation=rep, min_count=int(min_count), nn_dim=nn_dim, cache_dir=cache_dir,
                         progress=progress, cancel=cancel)[list(COMPONENTS)]
    return out.astype(np.float64)


def quality_column(components, info: Mapping, ids) -> np.ndarray:
    """The values ``info`` (a `quality_descriptor`) names, aligned with ``ids``, from a table of
    the components (`core.quality.quality_scores` with ``info``'s knobs)."""
    frame = components.assign(dqi=combine(components, info.get("weights"))) if info["name"] == "dqi" else components
    return quality_for_aflite(frame, info["name"], ids)


def _label_balance(y, classes) -> dict:
    counts = pd.Series(y).value_counts().reindex(classes, fill_value=0)
    shares = counts / max(int(counts.sum()), 1)
    return {**{f"share {c}": float(s) for c, s in shares.items()},
            "balance": float(shares.min() / shares.max()) if shares.max() > 0 else float("nan")}


def compare_pruning(dataset: Dataset, representation, quality, params: dict, *, quality_name: str = "dqi",
                    partial_spec: Optional[str] = None, folds: int = 5, min_count: int = 20, random_state: int = 0,
                    cache_dir=None, progress=None, cancel=None) -> pd.DataFrame:
    """Plain AFLite vs quality-ordered AFLite (paper 002 Algorithm 1) at the same parameters (the
    same n), with the full set and a random subset of the same size as references.

    Columns: ``set``, ``n``, ``z_max`` / ``z_max_feature`` (largest n-gram z-statistic,
    `core.zstats.compute_z` with ``min_count``), ``partial_accuracy`` (cross-validated logistic
    regression on the partial-input representation, `core.evaluation.subset_accuracy`),
    ``majority``, ``share <label>`` and ``balance`` (smallest / largest label share).
    """
    ids = np.asarray(representation.ids).astype(str)
    q = check_quality(quality, "quality", n=len(ids))
    report(progress, 0.0, "plain AFLite")
    plain = fit_run(dataset, representation, params, cancel=cancel)
    report(progress, 0.3, "quality-ordered AFLite")
    ordered = fit_run(dataset, representation, params, quality=q, cancel=cancel)
    rand = random_subset(len(ids), int(plain.retained.sum()), random_state=random_state)
    sets = {"full": np.ones(len(ids), bool), "AFLite": plain.retained, f"AFLite + {quality_name}": ordered.retained,
            "random (same n as AFLite)": rand}
    spec = partial_spec or default_partial_spec(dataset)
    acc = None
    if spec:
        report(progress, 0.5, "partial-input accuracy")
        prep = represent(dataset, spec, cache_dir=cache_dir, cancel=cancel)
        pos = pd.Index(np.asarray(prep.ids).astype(str)).get_indexer(ids)
        y = dataset.table[dataset.label].reindex(ids).to_numpy()
        Xp = np.asarray(prep.X)[np.maximum(pos, 0)]
        acc = subset_accuracy(Xp, y, sets, families=("logistic",), folds=folds, random_state=random_state,
                              errors="note").set_index("subset")
    rows = []
    y_all = dataset.table[dataset.label].reindex(ids).to_numpy()
    for i, (name, mask) in enumerate(sets.items()):
        report(progress, 0.7 + 0.3 * i / len(sets), f"z-statistics of {name}")
        check_cancel(cancel)
        sub = dataset.subset(ids[mask])
        try:
            zs = compute_z(sub, min_count=min_count, random_state=random_state)
            s = zs.summary(kind="ngram")
            z_max, z_feat = s["z_max"], s["z_max_feature"]
        except InputError:
            z_max, z_feat = float("nan"), ""
        row = {"set": name, "n": int(mask.sum()), "z_max": z_max, "z_max_feature": z_feat}
        if acc is not None:
            row["partial_accuracy"] = float(acc.loc[name, "accuracy"])
            row["majority"] = float(acc.loc[name, "majority"])
        row.update(_label_balance(y_all[mask], dataset.classes))
        rows.append(row)
    out = pd.DataFrame(rows)
    out.attrs.update({"partial_spec": spec, "params": dict(params), "quality": quality_name,
                      "stop_reasons": {"AFLite": plain.history[-1].get("stop_reason") if plain.history else None,
                                       f"AFLite + {quality_name}": ordered.history[-1].get("stop_reason")
                                       if ordered.history else None}})
    report(progress, 1.0, "comparison done")
    return out


def quality_columns_note(representation: str, *, weights: Optional[Mapping] = None, thresholds: Optional[Mapping] = None,
                         min_count: int = QUALITY_MIN_COUNT, nn_dim: Optional[int] = QUALITY_NN_DIM) -> dict:
    """The manifest's record of the quality columns an export adds: the same keys from the CLI
    (the defaults) and the Export page (the knobs the curator set)."""
    return {"columns": quality_columns(), "representation": representation,
            "weights": dict(DEFAULT_WEIGHTS if weights is None else weights),
            "thresholds": {k: list(v) for k, v in (DEFAULT_THRESHOLDS if thresholds is None else thresholds).items()},
            "min_count": int(min_count), "nn_dim": nn_dim, "source": "core.quality (DQI, paper 002)"}
