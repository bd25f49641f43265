"""The whole evaluation of a run: its options, its result (`Evaluation`), its key and its disk store
(see `core.evaluation`)."""
from __future__ import annotations

import json
import os
import socket
import time
import uuid
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Dict, Optional

import numpy as np
import pandas as pd

from ..base.result_store import KEY, ResultStore
from ..base.devices import where
from ..base.errors import InputError
from ..base.keys import digest_of, jsonable, result_key
from ..base.progress import check_cancel, report, span
from .checks import check_tolerance, coarse_action, difficulty_check, phase_table, synthetic_report
from .measures import evaluation_sets, family_table, heldout_split, knn_distances, training_sets
from .models import notes_of
from ..models import check_families, table_names


#: this process's token in "started" records: a restarted server can have its predecessor's pid
#: (pid 1 in a container), never its token
_INSTANCE = uuid.uuid4().hex
#: what an evaluation key looks like (`evaluation_key`: 16 hex digits; tests name their own)
#: the format of a stored evaluation (`EvaluationStore`); bump when `Evaluation.to_dict` changes shape
STORE_FORMAT = 1

# ---------------------------------------------------------------------- the whole evaluation of a run
def _reads_the_same(dataset, spec: str, other: str) -> bool:
    """Whether two representation specs are the same kind over the same fields (options such as
    the dimension aside); False when either cannot be read."""
    from ..representations.spec import parse_spec, resolve_spec

    try:
        (kind, a), (kind_b, b) = (parse_spec(resolve_spec(dataset, s)) for s in (spec, other))
    except InputError:
        return False
    return kind == kind_b and "fields" in a and a.get("fields") == b.get("fields")


def default_partial_spec(dataset) -> Optional[str]:
    """The partial-input representation for a dataset with two or more text fields: TF-IDF/SVD
    over the last one (the hypothesis of a premise/hypothesis pair); for preference pairs their
    style alone (``pair-style``); None otherwise."""
    if getattr(dataset, "pairs", None) is not None:
        from ..representations.spec import PAIR_INPUTS

        return PAIR_INPUTS["style_only"]
    text = list(getattr(dataset, "text", []) or [])
    return f"tfidf-svd:fields={text[-1]}" if len(text) >= 2 else None


#: the families of an evaluation stored before its options named them (paper 000 Table 3)
_FIRST_TABLE = ("logistic", "svm", "rbf-svm", "knn", "mlp")


@dataclass
class EvaluationOptions:
    """What an evaluation computes (its store key is a hash of these and the run's key and τ/n).

    ``families``: model families of the tables; ``eval_share``: the i.i.d. held-out
    share; ``stratified``: stratify the random baseline by label; ``bootstrap``:
    "auto" / True / False; ``partial_spec``: the partial-input representation
    ("" for none, None for `default_partial_spec`); ``knn_ks``: K of the KNN
    distances; ``coarse_step``, ``coarse_tolerance`` (None: one standard error of the
    held-out accuracy), ``coarse_family``: the coarse action; ``difficulty``: a numeric column for the external difficulty check;
    ``synthetic``: add the circles report; ``seed``: every random choice.
    """

    families: tuple = field(default_factory=table_names)
    eval_share: float = 0.2
    stratified: bool = False
    bootstrap: object = "auto"
    partial_spec: Optional[str] = None
    knn_ks: tuple = (1, 5, 10, 50)
    coarse_step: float = 0.1
    coarse_tolerance: Optional[float] = None
    coarse_family: str = "logistic"
    difficulty: Optional[str] = None
    synthetic: bool = False
    seed: int = 0
    family_params: dict = field(default_factory=dict)

    def to_dict(self) -> dict:
        out = asdict(self)
        out["families"], out["knn_ks"] = list(self.families), [int(k) for k in self.knn_ks]
        return out

    @classmethod
    def from_dict(cls, data: dict) -> "EvaluationOptions":
        data = dict(data)
        data["families"] = tuple(data.get("families", _FIRST_TABLE))
        data["knn_ks"] = tuple(int(k) for k in data.get("knn_ks", (1, 5, 10, 50)))
        return cls(**{k: v for k, v in data.items() if k in cls.__dataclass_fields__})

    def check(self) -> "EvaluationOptions":
        check_families(self.families)
        check_families([self.coarse_family])
        if not 0 < float(self.eval_share) < 1:
            raise InputError(f"eval_share={self.eval_share!r} must be a fraction in (0, 1), e.g. 0.2.")
        if not self.knn_ks or min(int(k) for k in self.knn_ks) < 1:
            raise InputError(f"knn_ks={self.knn_ks!r} must be positive neighbourhood sizes, e.g. 1,5,10,50.")
        if not 0 < float(self.coarse_step) <= 0.5:
            raise InputError(f"coarse step b={self.coarse_step!r} must be a fraction in (0, 0.5], e.g. 0.1.")
        check_tolerance(self.coarse_tolerance)
        return self


#: the tables of an `Evaluation`, in report order
TABLES = ("families", "partial_input", "knn", "phases", "coarse", "difficulty", "difficulty_hist", "synthetic",
          "synthetic_points", "training_sets")


@dataclass
class Evaluation:
    """One run's evaluation as plain data: ``options``, ``context`` (dataset, run key,
    representation, τ, n, sizes), ``tables`` (name -> DataFrame, see `TABLES`),
    ``notes`` (bad input met on the way, each naming its cause) and ``summary``
    (coarse-action fraction and suggested n, difficulty p-value, seconds)."""

    options: dict
    context: dict
    tables: Dict[str, pd.DataFrame]
    notes: list = field(default_factory=list)
    summary: dict = field(default_factory=dict)
    created: float = field(default_factory=time.time)

    @property
    def key(self) -> str:
        # a run's split at τ/n; an evaluation given its split directly is named by that split's ids
        return evaluation_key(self.context.get("run_key") or self.context["split"], self.context.get("tau"),
                              self.context.get("n"),
                              self.options)

    def to_dict(self) -> dict:
        return jsonable({"format": 1, "options": self.options, "context": self.context, "notes": self.notes,
                          "summary": self.summary, "created": self.created,
                          "tables": {k: json.loads(v.to_json(orient="split", index=False, default_handler=str))
                                     for k, v in self.tables.items()}})

    @classmethod
    def from_dict(cls, data: dict) -> "Evaluation":
        tables = {k: pd.DataFrame(v["data"], columns=v["columns"]) for k, v in data.get("tables", {}).items()}
        return cls(options=data["options"], context=data["context"], tables=tables, notes=list(data.get("notes", [])),
                   summary=dict(data.get("summary", {})), created=float(data.get("created", time.time())))

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), indent=1, default=str)


def evaluation_key(run_key: str, tau, n, options: dict) -> str:
    """The key of the evaluation of a run's split at τ and n with ``options`` (a result of the run's)."""
    return result_key(run_key, tau, n, options)


def evaluate(dataset, representation, retained, *, history=None, n_phases_chosen: Optional[int] = None,
             options: Optional[EvaluationOptions] = None, context: Optional[dict] = None, n_jobs: Optional[int] = None,
             device: Optional[str] = None, progress=None, cancel=None) -> Evaluation:
    """Everything issue 12 asks of one filtered split.

    Parameters
    ----------
    dataset : core.data.dataset.Dataset
    representation : core.representations.Representation
        Φ of the run (rows aligned with ``retained``; warm-up examples excluded).
    retained : (N,) bool
        The run's retained mask at the chosen τ/n.
    history : list of dict
        The run's per-phase records (R, held-out accuracy).
    n_phases_chosen : int
        Phases that run at the chosen τ/n (marked in the phase figure).
    options : EvaluationOptions
    context : dict
        Recorded as is (run key, τ, n, dataset name ...).
    n_jobs : int, `core.base.cores.SHARE` or None
        Model fits at once (threads); None: every core of this machine; SHARE: the job's share of
        them, read again before each fit (a job in the dashboard). The result does not
        depend on it. Fits another evaluation of the same data made already are reused
        (`core.evaluation.models.FITS`).
    device : str or None
        Where the linear families (logistic, svm) train (`core.models.on_device`: scikit-learn's
        models, their arithmetic on the device; the same predictions bar examples at the boundary);
        None: the CPU. The other families train on the CPU. The key does not depend on it; the
        evaluation's context records it (``device``).

    Returns
    -------
    Evaluation
    """
    from ..base.cores import SHARE, usable_cores

    t0 = time.perf_counter()
    opts = (options or EvaluationOptions()).check()
    n_jobs = usable_cores() if n_jobs is None else n_jobs if n_jobs is SHARE else max(int(n_jobs), 1)
    seed = int(opts.seed)
    X = np.asarray(representation.X, dtype=np.float32)
    ids = np.asarray(representation.ids).astype(str)
    retained = np.asarray(retained, bool)
    if len(retained) != len(ids):
        raise InputError(f"the retained mask has {len(retained)} entries but Φ has {len(ids)} rows.")
    y = dataset.table[dataset.label].reindex(ids).to_numpy()
    notes, tables = [], {}
    partial_spec = default_partial_spec(dataset) if opts.partial_spec is None else (opts.partial_spec or None)
    stage = _Stages(progress, {"families": 0.4, "partial": 0.25 if partial_spec else 0.0, "knn": 0.05, "coarse": 0.15,
                               "difficulty": 0.02, "synthetic": 0.13 if opts.synthetic else 0.0})
    fits = dict(families=opts.families, bootstrap=opts.bootstrap, family_params=opts.family_params, random_state=seed,
                n_jobs=n_jobs, device=device, cancel=cancel)

    # paper 000 Table 3: the families on the training sets, on the i.i.d. and filtered evaluation sets
    split = heldout_split(y, opts.eval_share, seed)
    notes.append(split.note)
    train_sets, set_notes = training_sets(X, y, retained, split, stratified=opts.stratified, random_state=seed)
    notes.extend(set_notes)
    eval_sets = evaluation_sets(retained, split)
    tables["training_sets"] = _set_sizes(y, train_sets, eval_sets)
    fam = family_table(X, y, train_sets, eval_sets, progress=stage("families"), **fits)
    fam.insert(0, "representation", representation.spec)
    tables["families"] = fam
    notes.extend(notes_of(fam))
    part, part_notes = _partial_input_table(dataset, representation, partial_spec, opts, fam, ids, y, train_sets,
                                            eval_sets, fits, stage)
    if part is not None:
        tables["partial_input"] = part
    notes.extend(part_notes)
    check_cancel(cancel)

    # paper 003 Table 3, the run's phases, paper 002's coarse action
    report(stage("knn"), 0.0, "KNN distances")
    knn = knn_distances(X, y, retained, ks=opts.knn_ks, random_state=seed)
    tables["knn"] = knn
    notes.extend(notes_of(knn))
    tables["phases"] = phase_table(history, n_phases_chosen)
    coarse = coarse_action(X, y, step=float(opts.coarse_step), tolerance=opts.coarse_tolerance,
                           family=opts.coarse_family, eval_share=opts.eval_share, random_state=seed,
                           family_params=opts.family_params, n_jobs=n_jobs, device=device, progress=stage("coarse"),
                           cancel=cancel)
    tables["coarse"] = coarse
    notes.extend(f"coarse action: {n}" for n in notes_of(coarse))
    summary = _coarse_summary(coarse, y, split)

    # an external difficulty column, and the synthetic circles
    stage("difficulty")
    if opts.difficulty:
        found, diff_notes, diff_summary = _difficulty(dataset, opts.difficulty, ids, retained, seed)
        tables.update(found)
        notes.extend(diff_notes)
        summary.update(diff_summary)
    if opts.synthetic:
        syn, pts = synthetic_report(random_state=seed, progress=stage("synthetic"), cancel=cancel)
        tables["synthetic"], tables["synthetic_points"] = syn, pts
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    report(progress, 1.0, "evaluation done")
    ctx = {"dataset": dataset.name, "fingerprint": dataset.fingerprint, "representation": representation.spec,
           "partial_representation": partial_spec, "N": int(len(ids)), "retained": int(retained.sum()),
           "eval_filter": "the held-out examples the run retained at the chosen τ/n", "device": where(device),
           "split": digest_of(np.asarray(ids).astype(str), retained),
           **(context or {})}
    return Evaluation(options=opts.to_dict(), context=ctx, tables=tables, notes=list(dict.fromkeys(n for n in notes if n)),
                      summary=summary)


class _Stages:
    """The evaluation's progress in stages, each a share of the bar by its weight and each message
    named by its stage: the partial input's "1 of 20 fits" after the families' "20 of 20 fits" is
    the next stage, not the bar going back."""

    TITLES = {"families": "the families on Φ", "partial": "the partial input", "knn": "", "coarse": "coarse action",
              "difficulty": "", "synthetic": "synthetic circles"}

    def __init__(self, progress, weights: dict):
        self.progress, self.weights, self.start = progress, weights, 0.0
        self.scale = 1.0 / sum(weights.values())

    def __call__(self, name: str):
        lo = self.start
        self.start = lo + self.weights[name] * self.scale
        return span(self.progress, lo, self.start, self.TITLES[name])


def _set_sizes(y, train_sets: dict, eval_sets: dict) -> pd.DataFrame:
    """Each training and evaluation set's size and examples per label."""
    labels = np.unique(y)
    return pd.DataFrame([{"set": k, "role": role, "size": int(m.sum()),
                          **{f"label {lab}": int((y[m] == lab).sum()) for lab in labels}}
                         for role, sets in (("training", train_sets), ("evaluation", eval_sets)) for k, m in sets.items()])


def _partial_input_table(dataset, representation, partial_spec, opts, fam, ids, y, train_sets, eval_sets, fits: dict,
                         stage) -> tuple:
    """(the families table on the partial input, or None; notes): the same families and sets on a
    representation of the partial input only (the hypothesis, say), where the gap to the full
    input's table is the artifact's share."""
    from ..representations import represent

    if partial_spec and _reads_the_same(dataset, partial_spec, representation.spec):
        # the same kind over the same fields (another dim, say): training the families again would
        # repeat the families table up to noise, at the cost of half the evaluation
        return fam.copy(), [f"partial-input table: Φ ({representation.spec}) already reads only what {partial_spec} "
                            "reads, so the families table is the partial-input table (not trained twice); evaluate "
                            "with a full-input representation to compare the two"]
    if not partial_spec:
        return None, ([] if opts.partial_spec is not None else [
            "no partial-input table: the dataset has fewer than two text fields (set partial_spec to choose a "
            "representation, e.g. tfidf-svd:fields=hypothesis)"])
    prog, notes = stage("partial"), []
    try:   # its representation in the first tenth of its stage (built, or read from the cache), then its fits
        prep = represent(dataset, partial_spec, progress=span(prog, 0.0, 0.1), cancel=fits["cancel"])
    except InputError as exc:
        return None, [f"partial-input table: the representation {partial_spec!r} cannot be built ({exc})"]
    if prep.spec == representation.spec:
        notes.append(f"partial-input table: {prep.spec} is Φ itself (the run is already partial-input), so it "
                     "repeats the families table; evaluate with a full-input representation to compare the two")
    pos = pd.Index(np.asarray(prep.ids).astype(str)).get_indexer(ids)
    if (pos < 0).any():
        notes.append(f"partial-input table: {int((pos < 0).sum())} examples of Φ are not in {prep.spec} "
                     "(a warm-up representation?); they are left out of that table")
    keep = pos >= 0
    Xp = np.zeros((len(ids), prep.X.shape[1]), np.float32)
    Xp[keep] = prep.X[pos[keep]]
    part = family_table(Xp, y, {k: m & keep for k, m in train_sets.items()}, {k: m & keep for k, m in eval_sets.items()},
                        progress=span(prog, 0.1, 1.0), **fits)
    part.insert(0, "representation", prep.spec)
    return part, notes + [f"partial input: {n}" for n in notes_of(part)]


def _coarse_summary(coarse, y, split) -> dict:
    return {"coarse_fraction": coarse.attrs["fraction"], "coarse_n": coarse.attrs["size"],
            "coarse_step": coarse.attrs["step"], "coarse_tolerance": coarse.attrs["tolerance"],
            "coarse_family": coarse.attrs["family"],
            # the majority class's share of the i.i.d. held-out split: what always guessing it scores
            "majority": float(pd.Series(y[split.test]).value_counts(normalize=True).max()) if split.test.any()
            else None}


def _difficulty(dataset, col: str, ids, retained, seed) -> tuple:
    """(tables, notes, summary) of the external difficulty check on the column ``col``."""
    if col not in dataset.table.columns:
        return {}, [f"difficulty check: there is no column {col!r}; the columns are: "
                    + ", ".join(map(str, dataset.table.columns))], {}
    diff, hist = difficulty_check(dataset.table[col].reindex(ids), retained, name=col, random_state=seed)
    return ({"difficulty": diff, "difficulty_hist": hist}, [f"difficulty check: {n}" for n in notes_of(diff)],
            {"difficulty_column": col, "difficulty_p_value": diff.attrs["p_value"],
             "difficulty_difference": diff.attrs["difference"]})


class EvaluationStore:
    """Finished evaluations on disk, one JSON file per (run key, τ, n, options), in a folder beside
    the run store (a `core.base.result_store.ResultStore`): a reload, a CLI call or a teammate on the
    same server reads them instead of recomputing."""

    def __init__(self, root):
        self.root = Path(root)
        self.files = ResultStore(self.root, suffix=".json", format=STORE_FORMAT, what="evaluation")

    def path(self, key: str) -> Path:
        return self.files.path(key)

    def get(self, key: str) -> Optional[Evaluation]:
        # a damaged file is a logged miss: evaluations are recomputed, never lost data
        return self.files.load_or_none(key, lambda p: Evaluation.from_dict(json.loads(p.read_text())))

    def put(self, ev: Evaluation) -> str:
        key = ev.key
        blob = ev.to_json().encode()
        self.files.save(key, lambda fh: fh.write(blob))
        self.ended(key)
        return key

    # an evaluation cut short by a stop leaves its "started" record: told apart from one never made
    def _started_path(self, key: str) -> Path:
        """The record of ``key`` inside ``started/``: a key is a file stem of this tool's making,
        never a path (a record read back could name ``../x``; nothing outside is ever touched)."""
        if not KEY.fullmatch(str(key)):
            raise InputError(f"evaluation key {str(key)[:40]!r} is not one this tool makes (letters, digits, - and _).")
        return self.root / "started" / f"{key}.json"

    def started(self, key: str, *, run_key: str, tau: float, n: int, options: dict) -> None:
        """Record that this process began evaluation ``key`` (`put`, or `ended` on a cancel or an
        error, removes the record)."""
        from ..base import paths

        record = {"key": key, "run_key": run_key, "tau": float(tau), "n": int(n), "options": options,
                  "pid": os.getpid(), "host": socket.gethostname(), "instance": _INSTANCE, "started": time.time()}
        paths.atomic_write(self._started_path(key), lambda fh: fh.write(json.dumps(record).encode()))

    def ended(self, key: str) -> None:
        self._started_path(key).unlink(missing_ok=True)

    def interrupted(self, run_key: str, running=()) -> list:
        """Evaluations of ``run_key`` that began and neither finished nor were cancelled, and whose
        process is gone (a stop or a crash cut them short), newest first: their "started" records
        (``key, tau, n, options, started``). ``running``: keys this process is running now."""
        folder = self.root / "started"
        found = []
        for p in folder.glob("*.json") if folder.exists() else ():
            try:
                rec = json.loads(p.read_text())
            except (OSError, ValueError):
                continue
            rec["key"] = p.stem   # the record's own file names it, whatever its content says
            if (not KEY.fullmatch(rec["key"]) or rec.get("run_key") != run_key or rec["key"] in running
                    or rec["key"] in self.files):
                continue
            if not _gone(rec):
                continue
            found.append(rec)
        return sorted(found, key=lambda r: -float(r.get("started", 0)))

    def for_run(self, run_key: str) -> list:
        """The stored evaluations of one run, newest first (each loaded)."""
        found = []
        for key in self.files.keys():
            ev = self.get(key)
            if ev is not None and ev.context.get("run_key") == run_key:
                found.append(ev)
        return sorted(found, key=lambda e: -e.created)


def _gone(record: dict) -> bool:
    """Whether the process that wrote a "started" record is no longer at work on it: this very
    process (its job is not running, or the caller would have said so), a previous process under
    the same pid, or a pid of this host that is not alive. A process on another host is trusted
    to be alive."""
    if record.get("instance") == _INSTANCE:
        return True
    if record.get("host") != socket.gethostname():
        return False
    pid = int(record.get("pid") or 0)
    if pid <= 0 or pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False
    return False
