"""What a ``--run`` argument names: a run ``.npz`` of the run store or the manifest JSON of
``artifact-lens aflite --manifest``, checked against the dataset it is used with (same
fingerprint, same ids), and the one schema for reading a manifest (`export` and `evaluate`)."""
from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from ..base.errors import InputError
from .runs import MANIFEST_FORMAT, STORE_FORMAT, CorruptRun, Run

__all__ = ["read_run_argument", "run_input", "check_manifest"]


def read_run_argument(path, dataset, *, manifest_keys=("dataset", "aflite", "retained_ids")):
    """What a CLI ``--run`` names, checked to belong to ``dataset`` (same fingerprint):
    ``("run", Run)`` for a run ``.npz`` (the dashboard's run store; its trajectory answers
    any τ/n above the fitted ones) or ``("manifest", dict)`` for the JSON written by
    ``artifact-lens aflite --manifest`` (the run as fitted). InputError names what is wrong."""
    path = Path(path)
    if not path.is_file():
        raise InputError(f"--run {path}: no such file; give a run .npz (the dashboard's run store) or the manifest "
                         "JSON written by 'artifact-lens aflite ... --manifest run.json'.")
    if path.suffix.lower() == ".npz":
        try:
            version = _stored_format(path)
            if not isinstance(version, int) or version > STORE_FORMAT:
                raise InputError(f"--run {path.name} was made by a newer Artifact Lens (run format {version}; this "
                                 f"one reads up to {STORE_FORMAT}); upgrade artifact-lens to read it.")
            run = Run.load(path)
        except CorruptRun as exc:
            raise InputError(f"--run {path.name}: {exc}") from None
        _check_same_data(run.dataset_fingerprint, dataset, path)
        known, scored = set(dataset.table.index.astype(str)), {str(i) for i in (*run.ids, *run.excluded_ids)}
        if scored != known:
            raise InputError(f"--run {path.name} covers {len(scored):,} ids but {dataset.name} has {len(known):,}, and "
                             f"they differ (e.g. {sorted(scored ^ known)[0]!r}); the run file was changed or is of "
                             "other data: give the dataset and --id column the run was made with.")
        return "run", run
    if path.suffix.lower() != ".json":
        raise InputError(f"--run {path.name}: give a run .npz or the manifest .json of 'artifact-lens aflite --manifest'.")
    try:
        man = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise InputError(f"--run {path}: not readable JSON ({exc}).") from None
    missing = [k for k in manifest_keys if not isinstance(man, dict) or k not in man]
    if missing:
        raise InputError(f"--run {path.name} is not an AFLite run manifest (no {', '.join(missing)}); give the file "
                         "written by 'artifact-lens aflite ... --manifest run.json', or a run .npz.")
    check_manifest(man, path.name)
    _check_same_data(man["dataset"]["fingerprint"], dataset, path)
    unknown = set(man["retained_ids"]) - set(dataset.table.index.astype(str))
    if unknown:
        raise InputError(f"--run {path.name} keeps {len(unknown)} ids that {dataset.name} does not have (e.g. "
                         f"{sorted(unknown)[0]!r}); give the dataset and --id column the run was made with.")
    return "manifest", man


def _stored_format(path: Path):
    """The ``format`` a run file declares (CorruptRun when it cannot be read)."""
    try:
        with np.load(path, allow_pickle=False) as npz:
            return json.loads(str(npz["meta"])).get("format")
    except (OSError, ValueError, KeyError, TypeError, AttributeError, EOFError, zipfile.BadZipFile) as exc:
        raise CorruptRun(f"cannot read the run in {path}: the file is damaged ({exc})") from exc


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v == v and abs(v) != float("inf")


# the fields a reader of a run manifest uses, and what each must be
_MANIFEST_SCHEMA = {
    ("dataset",): dict, ("dataset", "fingerprint"): str,
    ("aflite",): dict, ("aflite", "resolved"): dict, ("aflite", "phases"): list,
    ("representation",): dict, ("representation", "spec"): str,
    ("run_key",): str, ("retained_ids",): list,
}


def check_manifest(man: dict, name: str) -> None:
    """A run manifest's format version and the types of the fields readers use (one schema
    for `export` and `evaluate`); InputError naming the field and what it should be."""
    version = man.get("manifest_format", 0)
    if not isinstance(version, int) or isinstance(version, bool) or version < 0:
        raise InputError(f"--run {name}: manifest_format {version!r} is not a format version; give a manifest "
                         "written by 'artifact-lens aflite --manifest'.")
    if version > MANIFEST_FORMAT:
        raise InputError(f"--run {name} was made by a newer Artifact Lens (manifest format {version}; this one reads "
                         f"up to {MANIFEST_FORMAT}); upgrade artifact-lens to read it.")
    for keys, kind in _MANIFEST_SCHEMA.items():
        value = man
        for k in keys:
            value = value.get(k) if isinstance(value, dict) else None
        if not isinstance(value, kind):
            raise InputError(f"--run {name}: the field {'.'.join(keys)} should be {_KIND_WORDS[kind]}, not "
                             f"{str(value)[:40]!r}; the manifest was changed or damaged: write it again with "
                             "'artifact-lens aflite --manifest'.")
    if not all(isinstance(i, (str, int)) and not isinstance(i, bool) for i in man["retained_ids"]):
        raise InputError(f"--run {name}: retained_ids should be a list of ids (text); write the manifest again.")
    man["retained_ids"] = [str(i) for i in man["retained_ids"]]
    resolved = man["aflite"]["resolved"]
    for key in ("tau", "n"):
        if key in resolved and not _is_number(resolved[key]):
            raise InputError(f"--run {name}: aflite.resolved.{key} should be a number, not {resolved[key]!r}; "
                             "write the manifest again.")
    if not all(isinstance(p, dict) and _is_number(p.get("removed", 0)) for p in man["aflite"]["phases"]):
        raise InputError(f"--run {name}: aflite.phases should be a list of phase records; write the manifest again.")


_KIND_WORDS = {dict: "an object", str: "text", list: "a list"}


def _check_same_data(fingerprint, dataset, path) -> None:
    if fingerprint != dataset.fingerprint:
        raise InputError(f"--run {Path(path).name} was made on another dataset (fingerprint {fingerprint}) than "
                         f"{dataset.name} (fingerprint {dataset.fingerprint}); give the dataset and column options "
                         "the run was made with.")


def run_input(path, dataset, *, tau=None, target_size=None) -> dict:
    """The run to evaluate: ``retained_ids``, ``history``, ``spec``, ``run_key``, ``tau``, ``n``,
    ``n_phases`` (phases that run at that τ/n).

    ``path`` is the manifest JSON of ``artifact-lens aflite --manifest`` (the run as fitted;
    another τ/n needs the run file) or a run ``.npz`` (any τ' ≥ τ and n' ≥ n, from its
    trajectory). The run must have been made on ``dataset`` (same fingerprint)."""
    kind, found = read_run_argument(path, dataset,
                                    manifest_keys=("dataset", "representation", "aflite", "retained_ids", "run_key"))
    if kind == "run":
        run = found
        tau_, n_ = run.trajectory.clamp(run.resolved.get("tau") if tau is None else tau,
                                        run.resolved.get("n") if target_size is None else target_size)
        res = run.result_for(tau_, n_)
        return {"retained_ids": run.kept_ids(res), "history": run.history,
                "spec": run.representation, "run_key": run.key, "tau": float(tau_), "n": int(n_),
                "n_phases": int(res["n_phases"]), "params": run.params}
    man = found
    resolved = man["aflite"].get("resolved", {})
    if (tau is not None and tau != resolved.get("tau")) or (target_size is not None and target_size != resolved.get("n")):
        raise InputError("--tau/--target-size need the run's trajectory, which a manifest does not hold; evaluate the "
                         "run as fitted (drop them), or run aflite again with those values.")
    phases = man["aflite"].get("phases", [])
    return {"retained_ids": np.asarray(man["retained_ids"]).astype(str), "history": phases,
            "spec": man["representation"]["spec"], "run_key": man["run_key"], "tau": resolved.get("tau"),
            "n": resolved.get("n"), "n_phases": int(sum(1 for p in phases if p.get("removed", 0) > 0)),
            "params": man["aflite"].get("params", {})}
