"""What the command line and the dashboard both do, written once.

The CLI parses arguments and prints; the dashboard submits jobs and shows them. Whatever
decides a result (which quality column a run removes by, and how that is recorded in the
run's key) lives here, so a run scored by one is found by the other.
"""
from __future__ import annotations

from typing import Mapping, Optional

import numpy as np
import pandas as pd

from core.aflite import random_subset
from core.agreement import agreement, side, supported_tau_n
from core.dataset import Dataset
from core.duplicates import THRESHOLD, DuplicateIndex, drop_one_of_each
from core.errors import InputError
from core.evaluation import default_partial_spec, subset_accuracy
from core.export import quality_columns
from core.features import build_features
from core.labels import encode_labels
from core.progress import check_cancel, report
from core.quality import (COMPONENTS, DEFAULT_THRESHOLDS, DEFAULT_WEIGHTS, DQI_COMPONENTS, check_quality, combine,
                          quality_for_aflite, quality_scores)
from core.representations import represent
from core.runs import fit_run
from core.zstats import compute_z

__all__ = ["quality_descriptor", "quality_components", "quality_column", "compare_pruning", "QUALITY_MIN_COUNT",
           "QUALITY_NN_DIM", "near_duplicate_pairs", "drop_near_duplicates", "quality_columns_note",
           "feature_matrix", "artifact_carriers", "team_agreement", "ARTIFACT_FEATURES", "cartography",
           "joint_for"]

#: the quality context's defaults (`core.quality.QualityContext.fit`), shared by both front ends
QUALITY_MIN_COUNT = 5
QUALITY_NN_DIM: Optional[int] = 64


def quality_descriptor(name: str, *, min_count: int = QUALITY_MIN_COUNT, nn_dim: Optional[int] = QUALITY_NN_DIM,
                       weights: Optional[Mapping] = None) -> dict:
    """What a quality-ordered run (paper 002) records as `core.runs.Run.quality`, part of its
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


def near_duplicate_pairs(dataset: Dataset, *, progress=None, cancel=None) -> pd.DataFrame:
    """The dataset's near-duplicate pairs (`core.duplicates`: shared wording in every text
    field at `THRESHOLD` or more): ``a, b, overlap``."""
    if not dataset.text:
        raise InputError("near-duplicates compare the wording of text fields, and this dataset has none; choose "
                         "its text columns (--text / the Data page's column roles).")
    return DuplicateIndex(dataset.table, list(dataset.text)).pairs(progress=progress, cancel=cancel)


def drop_near_duplicates(frame: pd.DataFrame, pairs: pd.DataFrame) -> tuple:
    """(``frame`` with one example of each group of near-duplicates among its rows kept — the
    first in its order —, the manifest record of what was dropped). Pairs with a member outside
    the frame drop nothing: the filter or the selection already took that one out."""
    ids = frame["id"].astype(str)
    inside = pairs[pairs["a"].isin(ids) & pairs["b"].isin(ids)]
    dropped = drop_one_of_each(ids, inside)
    record = {"measure": "core.duplicates: the Jaccard index of character 4-gram sets, the smallest over the text "
                         "fields", "threshold": THRESHOLD, "pairs_in_selection": int(len(inside)),
              "dropped": [{"id": d, "kept": k} for d, k in dropped.items()]}
    return frame[~ids.isin(list(dropped))].reset_index(drop=True), record


def quality_columns_note(representation: str, *, weights: Optional[Mapping] = None, thresholds: Optional[Mapping] = None,
                         min_count: int = QUALITY_MIN_COUNT, nn_dim: Optional[int] = QUALITY_NN_DIM) -> dict:
    """The manifest's record of the quality columns an export adds: the same keys from the CLI
    (the defaults) and the Export page (the knobs the curator set)."""
    return {"columns": quality_columns(), "representation": representation,
            "weights": dict(DEFAULT_WEIGHTS if weights is None else weights),
            "thresholds": {k: list(v) for k, v in (DEFAULT_THRESHOLDS if thresholds is None else thresholds).items()},
            "min_count": int(min_count), "nn_dim": nn_dim, "source": "core.quality (DQI, paper 002)"}


# ---------------------------------------------------------------------- team agreement (issue 22)
#: how many of the most label-giving n-grams the filter-as-rater table looks at per feature
ARTIFACT_FEATURES = 8


def feature_matrix(dataset: Dataset):
    """The binary example × feature matrix (`core.features`) of the dataset's simple features."""
    y, classes = encode_labels(dataset.y, dataset.classes, what=dataset.label)
    pair = tuple(dataset.text) if len(dataset.text) == 2 else None
    return build_features(dataset.table, text=dataset.text, y_codes=y, classes=list(classes), pair=pair,
                          columns=dataset.features or ())


def artifact_carriers(zs, fm, k: int = ARTIFACT_FEATURES) -> dict:
    """The ``k`` n-grams of highest z (the artifacts most likely to give a label away), each with
    the ids of the examples that carry it: what `core.agreement.agreement` takes as ``features``."""
    top = zs.table[zs.table["kind"] == "ngram"].drop_duplicates("feature").head(int(k))["feature"]
    out = {}
    for name in top:
        hits = np.flatnonzero(fm.names == name)
        if len(hits):
            out[str(name)] = np.asarray(fm.ids)[fm.X[:, int(hits[0])].nonzero()[0]].astype(str)
    return out


def team_agreement(run, reviews: pd.DataFrame, stand: pd.DataFrame, *, tau=None, target_size=None,
                   labels: Optional[pd.Series] = None, features: Optional[dict] = None, bootstrap: int = 1000,
                   seed: int = 0) -> dict:
    """The team's agreement on a run at τ/n (default the run's): ``agreement`` (a
    `core.agreement.Agreement`, the filter's keep/remove at that τ/n as a rater and the team's
    word from ``stand``, `core.review.standing` under the workspace's dispute rule), ``grid`` and
    ``best`` (`core.agreement.supported_tau_n`), ``tau`` and ``n``. ``reviews`` are each
    reviewer's latest decisions (`TeamStore.reviews`). What the Review page, the manifest, the
    report and ``python -m core agreement`` show."""
    live = run.result_for(tau=tau, target_size=target_size)
    tau_, n_ = run.trajectory.clamp(run.trajectory.tau if tau is None else tau,
                                    run.trajectory.n if target_size is None else target_size)
    ids = np.asarray(run.ids).astype(str)
    removed = pd.Series(~np.asarray(live["retained"], dtype=bool), index=ids)
    reviews = reviews[reviews["example_id"].astype(str).isin(removed.index)]   # warm-up examples are not scored
    team = None
    if len(stand):
        words = stand["decision"].reindex(removed.index.intersection(stand.index.astype(str)))
        team = pd.Series([side(d, not removed[i]) for i, d in words.items()], index=words.index, dtype=object)
    found = agreement(reviews, removed, team=team, labels=labels, features=features, bootstrap=bootstrap, seed=seed)
    grid = best = None
    if team is not None and len(team):
        grid, best = supported_tau_n(run, team, bootstrap=min(int(bootstrap), 200), seed=seed)
    return {"agreement": found, "grid": grid, "best": best, "tau": float(tau_), "n": int(n_)}


# ---------------------------------------------------------------------- training dynamics (issue 23)
def _scored(dataset: Dataset, representation):
    """(ids, labels) of the examples Φ represents (warm-up examples are not in it)."""
    ids = np.asarray(representation.ids).astype(str)
    return ids, dataset.table[dataset.label].reindex(ids).to_numpy()


def cartography(dataset: Dataset, representation, *, progress=None, cancel=None, **options):
    """`core.cartography.training_dynamics` of the examples Φ represents, with the dataset's
    labels and class order; ``options`` are its knobs."""
    from core.cartography import training_dynamics

    ids, y = _scored(dataset, representation)
    return training_dynamics(np.asarray(representation.X), y, ids=ids, classes=dataset.classes, progress=progress,
                             cancel=cancel, **options)


def joint_for(dataset: Dataset, representation, info: dict, *, progress=None, cancel=None):
    """The joint filter's inputs (`core.joint.joint_inputs`) for the examples Φ represents,
    ``info`` a `core.joint.descriptor`: what `core.runs.fit_run` takes as ``joint``."""
    from core.joint import joint_inputs

    ids, y = _scored(dataset, representation)
    return joint_inputs(np.asarray(representation.X), y, ids, dataset.classes, info, progress=progress, cancel=cancel)
