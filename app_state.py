"""Shared state of the dashboard: what is loaded, what runs in the background, cached look-ups.

Kept out of ``pages/`` so Streamlit does not list it as a page. Pages call these
helpers and draw; the work itself happens in ``core/``.

Two levels of state:

- `Registry` (one per server process, ``st.cache_resource``): the big read-only
  objects (datasets, representations Φ, projections, example tables, z-statistics),
  the `core.runs.RunStore` of finished runs and the `core.runs.JobRunner` of
  background jobs. They are shared by reference between sessions and pages, so
  switching pages never recomputes a representation, a run or a projection.
- ``st.session_state`` (one per browser tab): the keys of the current dataset,
  representation and run, the live τ and n, the running job, the last error.
"""
from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import re
import tempfile
import threading
from pathlib import Path
from typing import Optional

import numpy as np
import pandas as pd
import streamlit as st

from core.errors import InputError
from core.progress import report

DEFAULT_SOURCE = "demo:nli"
DEFAULT_SPEC = "tfidf-svd:fields=hypothesis,dim=64"
# The fit uses τ = 0 and a small n; the live knobs answer any larger τ and n from the trajectory.
DEFAULT_PARAMS = dict(n_partitions=16, train_size=0.1, slice_size=0.02, tau=0.0, target_size=0.3,
                      model="ridge", strategy="greedy-slice", random_state=0)
DEFAULT_TAU = 0.75
DEFAULT_TARGET = 0.5
MAP_METHOD = os.environ.get("ARTIFACT_LENS_MAP", "umap")  # tests and previews may use "pca"


def cache_dir() -> Path:
    from core.representations import default_cache_dir

    return Path(default_cache_dir())


class Registry:
    """Process-wide shared objects (see the module docstring)."""

    def __init__(self):
        from core.runs import JobRunner, RunStore

        self.lock = threading.RLock()
        self.datasets: dict = {}
        self.representations: dict = {}
        self.projections: dict = {}
        self.tables: dict = {}
        self.zstats: dict = {}
        self.features: dict = {}
        self.store = RunStore(cache_dir() / "runs")
        self.jobs = JobRunner()

    # -- datasets ---------------------------------------------------------
    def dataset(self, key: str):
        with self.lock:
            return self.datasets.get(key)

    def load(self, key: str, source, roles: dict):
        from core.sources import load_dataset

        with self.lock:
            if key in self.datasets:
                return self.datasets[key]
        ds = load_dataset(source, **{k: v for k, v in roles.items() if v not in (None, "", [])})
        with self.lock:
            self.datasets[key] = ds
        return ds

    # -- representations --------------------------------------------------
    def representation(self, ds_key: str, spec: str, *, progress=None, cancel=None):
        from core.representations import represent

        with self.lock:
            if (ds_key, spec) in self.representations:
                return self.representations[(ds_key, spec)]
        rep = represent(self.datasets[ds_key], spec, progress=progress, cancel=cancel)
        with self.lock:
            # Stored under the asked spec and the canonical one, so both find it.
            self.representations[(ds_key, spec)] = rep
            self.representations[(ds_key, rep.spec)] = rep
        return rep


@st.cache_resource(show_spinner=False)
def registry() -> Registry:
    return Registry()


# ---------------------------------------------------------------------- session
def _ss():
    return st.session_state


def dataset_key(source, roles: dict, extra: str = "") -> str:
    blob = json.dumps([str(source), roles, extra], sort_keys=True, default=str)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def init() -> None:
    """Make sure the session has a dataset, a representation and a run (the scored demo at first)."""
    ss = _ss()
    if "ds_key" in ss:
        return
    if _restore_from_url():
        return
    reg = registry()
    key = dataset_key(DEFAULT_SOURCE, {})
    with st.spinner("Loading the synthetic NLI demo and scoring it with a small AFLite run…"):
        reg.load(key, DEFAULT_SOURCE, {})
        result = pipeline(None, key, DEFAULT_SPEC, DEFAULT_PARAMS)
    ss.ds_key = key
    ss.source_label = DEFAULT_SOURCE
    ss.spec = result["spec"]
    ss.params = dict(DEFAULT_PARAMS)
    ss.run_key = result["run_key"]
    ss.tau = DEFAULT_TAU
    ss.target = DEFAULT_TARGET
    _remember_in_url()


def _restore_from_url() -> bool:
    """Reopen the dataset, representation and run named in the URL (a reload or a
    shared link), when this server still holds them; otherwise start on the demo."""
    qp = st.query_params
    ds_key, spec, run_key_ = qp.get("ds"), qp.get("spec"), qp.get("run")
    reg = registry()
    ds = reg.dataset(ds_key) if ds_key else None
    run = reg.store.get(run_key_) if run_key_ else None
    if ds is None or run is None or (ds_key, spec) not in reg.representations or run.dataset_fingerprint != ds.fingerprint:
        return False
    ss = _ss()
    ss.ds_key, ss.spec, ss.run_key = ds_key, spec, run_key_
    ss.source_label = qp.get("source") or ds.name
    ss.params = {k: v for k, v in run.params.items() if k in DEFAULT_PARAMS}
    ss.tau = float(qp.get("tau", DEFAULT_TAU))
    target = float(qp.get("n", DEFAULT_TARGET))
    ss.target = int(target) if target >= 1 else target
    return True


def _remember_in_url() -> None:
    """Keep the session's dataset, representation, run and live τ/n in the URL, so a
    reload or a copied link opens the same view."""
    ss = _ss()
    st.query_params.update({"ds": ss.ds_key, "spec": ss.spec, "run": ss.run_key or "",
                            "source": str(ss.get("source_label") or ""), "tau": f"{float(ss.tau):.2f}",
                            "n": str(ss.target)})


def current_dataset():
    return registry().dataset(_ss().ds_key)


def current_representation():
    ss = _ss()
    return registry().representations.get((ss.ds_key, ss.spec))


def current_run():
    ss = _ss()
    if not ss.get("run_key"):
        return None
    run = registry().store.get(ss.run_key)
    if run is None or run.dataset_fingerprint != current_dataset().fingerprint:
        return None
    return run


_MARKDOWN_SPECIALS = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")


def plain(message) -> str:
    """A message for st.error/st.info/st.warning with Markdown escaped.

    Those elements render Markdown, and messages from core can quote values from
    the data (labels, column names, file names): escaping keeps them plain text.
    """
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(message))


def set_error(message: Optional[str]) -> None:
    _ss().last_error = message


# ---------------------------------------------------------------------- live τ and n
def live_bounds(run) -> dict:
    """The range the live knobs may take: τ ≥ fitted τ, n ≥ fitted n (as a fraction of N)."""
    res = run.resolved
    N = int(res.get("N", len(run.ids)))
    return {"tau_min": float(res.get("tau", run.params.get("tau", 0.0))), "n_min": int(res.get("n", 1)), "N": N}


def live_values(run) -> tuple:
    """The session's τ and n, clamped to what the run can answer without a refit."""
    ss = _ss()
    b = live_bounds(run)
    tau = max(float(ss.get("tau", DEFAULT_TAU)), b["tau_min"])
    target = ss.get("target", DEFAULT_TARGET)
    n_count = int(np.floor(target * b["N"] + 1e-9)) if isinstance(target, float) and target < 1 else int(target)
    n_count = min(max(n_count, b["n_min"]), b["N"] - 1)
    return tau, n_count


def live_result(run) -> dict:
    """What a fresh fit at the session's τ and n gives (``retained``, ``removed_at``,
    ``predictability``, ``n_phases``), from the trajectory, cached per run/τ/n."""
    tau, n = live_values(run)
    return _live(run.key, tau, n)


def live_mask(run) -> np.ndarray:
    return live_result(run)["retained"]


@st.cache_data(max_entries=64, show_spinner=False)
def _live(run_key: str, tau: float, n: int) -> dict:
    run = registry().store.get(run_key)
    return run.result_for(tau=tau, target_size=int(n))


def live_knobs(run, *, n_too: bool = True) -> dict:
    """The live τ (and n) sliders; their values go to the session so every page shares them.
    Returns `live_result` for the new values."""
    ss = _ss()
    b = live_bounds(run)
    N = b["N"]
    tau0, n0 = live_values(run)
    cols = st.columns(2 if n_too else 1)
    ss.tau = cols[0].slider("τ: early-stopping threshold on p̃ (live)", b["tau_min"], 1.0, float(tau0), 0.01,
                            key="w_tau", help="Only examples with predictability ≥ τ are removed; filtering stops "
                                              "when fewer than k pass τ.")
    if n_too:
        lo = min(int(np.ceil(b["n_min"] / N * 100)) / 100, 0.99)
        ss.target = cols[1].slider("n: target size, share of the scored examples (live)", lo, 0.99,
                                   float(min(max(n0 / N, lo), 0.99)), 0.01, key="w_target",
                                   help="Filtering stops when |S| ≤ n. Below the fitted n a refit is needed.")
    _remember_in_url()
    return live_result(run)


def example_table(run) -> pd.DataFrame:
    """Per-example table of the current dataset and run (shared, read-only; see core.runs.examples_frame)."""
    from core.runs import examples_frame

    ss = _ss()
    key = (ss.ds_key, run.key if run is not None else None)
    reg = registry()
    with reg.lock:
        if key not in reg.tables:
            reg.tables[key] = examples_frame(current_dataset(), run)
        return reg.tables[key]


# ---------------------------------------------------------------------- background work
def pipeline(ctx, ds_key: str, spec: str, params: dict) -> dict:
    """Representation (cached) then AFLite run (cached by its parameters); ``ctx`` may be None."""
    from core.runs import fit_run, run_key

    reg = registry()
    progress = ctx.progress if ctx is not None else None
    cancel = ctx.cancel if ctx is not None else None

    def sub(lo, hi):
        return None if progress is None else (lambda f, m="": report(progress, lo + (hi - lo) * f, m))

    rep = reg.representation(ds_key, spec, progress=sub(0.0, 0.4), cancel=cancel)
    ds = reg.datasets[ds_key]
    key = run_key(ds.fingerprint, rep.spec, params)
    run = reg.store.get(key)
    if run is None:
        def on_phase(rec):
            if ctx is not None:
                ctx.emit({k: v for k, v in rec.items() if not isinstance(v, np.ndarray)})

        run = fit_run(ds, rep, params, progress=sub(0.4, 1.0), cancel=cancel, on_phase=on_phase)
        reg.store.put(run)
    if MAP_METHOD == "umap":
        from core.projection import project

        if project(rep.X, rep.ids, key=_projection_key(ds, rep), method="umap", only_cached=True) is None:
            start_umap(ds, rep)
    report(progress, 1.0, f"run ready: {run.n_phases} phases")
    return {"ds_key": ds_key, "spec": rep.spec, "run_key": key}


def start_pipeline(ds_key: str, spec: str, params: dict, label: str = "", source_label: Optional[str] = None) -> None:
    """Start (or join) the background job for this dataset, representation and parameters."""
    from core.runs import run_key

    reg = registry()
    job_key = "run:" + dataset_key(ds_key, {"spec": spec}, json.dumps(params, sort_keys=True))
    ds = reg.datasets[ds_key]
    rep = reg.representations.get((ds_key, spec))
    if rep is not None and reg.store.get(run_key(ds.fingerprint, rep.spec, params)) is not None:
        # A run with these parameters exists: returning to earlier settings is instant.
        _apply_result({"ds_key": ds_key, "spec": rep.spec, "run_key": run_key(ds.fingerprint, rep.spec, params)},
                      params, source_label)
        return
    reg.jobs.submit(job_key, lambda ctx: pipeline(ctx, ds_key, spec, params), name=label or "AFLite run")
    ss = _ss()
    ss.job_key = job_key
    ss.job_params = dict(params)
    ss.job_source_label = source_label
    ss.last_error = None


def _apply_result(result: dict, params: dict, source_label: Optional[str] = None) -> None:
    ss = _ss()
    if source_label is not None and result["ds_key"] != ss.ds_key:
        ss.source_label = source_label
    ss.ds_key = result["ds_key"]
    ss.spec = result["spec"]
    ss.run_key = result["run_key"]
    ss.params = dict(params)
    _remember_in_url()


def current_job():
    ss = _ss()
    key = ss.get("job_key")
    return registry().jobs.get(key) if key else None


def job_panel(where=None) -> None:
    """Progress, phases so far and a cancel button for the session's background job.

    Polls every half second while the job runs; when it ends, the result becomes the
    current run (or the error is shown and the previous run stays).
    """

    @st.fragment(run_every=0.5 if (current_job() is not None and not current_job().done) else None)
    def _panel():
        job = current_job()
        if job is None:
            return
        snap = job.snapshot()
        if job.done:
            ss = _ss()
            ss.job_key = None
            if job.status == "done":
                _apply_result(job.result, ss.get("job_params", ss.params), ss.get("job_source_label"))
                ss.last_error = None
                st.rerun(scope="app")
            elif job.status == "cancelled":
                st.warning("Cancelled; the previous dataset and run are still in use.")
            else:
                msg = str(job.error) if isinstance(job.error, InputError) else f"{type(job.error).__name__}: {job.error}"
                ss.last_error = msg
                st.rerun(scope="app")
            return
        st.progress(snap["fraction"], text=f"{snap['name']}: {snap['message'] or 'starting'} ({snap['elapsed']:.0f} s)")
        if snap["records"]:
            last = snap["records"][-1]
            st.caption(f"phase {last.get('phase', 0) + 1}: |S| = {last.get('size')}, "
                       f"removed {last.get('removed')}, R = {last.get('R', float('nan')):.3f}")
        if st.button("Cancel", key="cancel_job"):
            job.cancel()

    _panel()


# ---------------------------------------------------------------------- projections
def projection(method: str, *, start: bool = True):
    """The cached 2-D projection of the current representation, or None while UMAP is computed.

    PCA is instant and computed inline; UMAP runs once per representation in a
    background job (disk-cached), never on a knob change.
    """
    from core.projection import project

    ss = _ss()
    rep = current_representation()
    ds = current_dataset()
    reg = registry()
    key = (ss.ds_key, rep.spec, method)
    with reg.lock:
        if key in reg.projections:
            return reg.projections[key]
    if method == "pca":
        proj = project(rep.X, rep.ids, key=_projection_key(ds, rep), method="pca")
    else:
        proj = project(rep.X, rep.ids, key=_projection_key(ds, rep), method="umap", only_cached=True)
        if proj is None:
            if start:
                ss.proj_job = start_umap(ds, rep).key
            return None
    with reg.lock:
        reg.projections[key] = proj
    return proj


def _projection_key(ds, rep) -> str:
    return f"{ds.fingerprint}:{rep.spec}"


def start_umap(ds, rep):
    """Start (or join) the background UMAP of this representation; it is cached on disk.

    Started as soon as a representation is scored, so the map is usually ready by
    the time the Map page is opened; it runs in a child process so the server stays
    responsive (see `core.projection.project_in_subprocess`).
    """
    from core.projection import project_in_subprocess

    key = _projection_key(ds, rep)
    X, ids = rep.X, rep.ids
    return registry().jobs.submit(
        "proj:" + key,
        lambda ctx: project_in_subprocess(X, ids, key=key, method="umap", progress=ctx.progress, cancel=ctx.cancel),
        name="UMAP")


def projection_job():
    key = _ss().get("proj_job")
    return registry().jobs.get(key) if key else None


# ---------------------------------------------------------------------- z-statistics
def zstats(min_count: int = 5, alpha: float = 0.01):
    """z-statistics and the example × feature matrix of the current dataset (cached)."""
    from core.zstats import compute_z

    ss = _ss()
    reg = registry()
    key = (ss.ds_key, int(min_count), float(alpha))
    with reg.lock:
        if key in reg.zstats:
            return reg.zstats[key]
    zs = compute_z(current_dataset(), min_count=int(min_count), alpha=float(alpha))
    with reg.lock:
        reg.zstats[key] = zs
    return zs


def feature_matrix():
    """The binary example × feature matrix (core.features) of the current dataset, cached."""
    from core.features import build_features

    ss = _ss()
    reg = registry()
    with reg.lock:
        if ss.ds_key in reg.features:
            return reg.features[ss.ds_key]
    ds = current_dataset()
    classes = ds.classes
    y = pd.Categorical(ds.table[ds.label], categories=classes).codes.astype(np.int64)
    pair = tuple(ds.text) if len(ds.text) == 2 else None
    fm = build_features(ds.table, text=ds.text, y_codes=y, classes=classes, pair=pair,
                        columns=ds.features or ())
    with reg.lock:
        reg.features[ss.ds_key] = fm
    return fm


def ids_with_feature(name: str) -> np.ndarray:
    """Ids of the examples that carry feature ``name``."""
    fm = feature_matrix()
    hits = np.flatnonzero(fm.names == name)
    if not len(hits):
        return np.array([], dtype=str)
    col = fm.X[:, int(hits[0])]
    return np.asarray(fm.ids)[col.nonzero()[0]].astype(str)


# ---------------------------------------------------------------------- uploads and images
def save_upload(name: str, data: bytes) -> Path:
    """An uploaded file saved under the cache (named by its content hash), so core.sources can read it."""
    digest = hashlib.sha256(data).hexdigest()[:16]
    suffixes = "".join(Path(name).suffixes[-2:]) or ".csv"
    folder = cache_dir() / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{digest}{suffixes}"
    if not path.exists():
        fd, tmp = tempfile.mkstemp(dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    return path


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


def require_run():
    """The current dataset's AFLite run; without one, say how to make it and stop the page."""
    run = current_run()
    if run is None:
        st.warning("The current dataset has no AFLite run yet: build Φ and score it on the Data page.")
        st.stop()
    return run


def page_setup() -> None:
    """Called first by every page: state, sidebar and the last error, even when the page runs alone."""
    if not _ss().get("_in_app"):
        init()
        sidebar()
    if _ss().get("last_error"):
        st.error(plain(_ss().last_error))


def sidebar() -> None:
    """Current dataset, representation and run, plus the background job's progress."""
    ds = current_dataset()
    run = current_run()
    with st.sidebar:
        st.markdown("**Dataset**")
        st.text(f"{_ss().get('source_label') or ds.name}\n{len(ds):,} examples, {len(ds.classes)} labels")
        st.markdown("**Representation Φ**")
        st.text(_ss().spec)
        st.markdown("**Run**")
        if run is None:
            st.text("not scored yet")
        else:
            p = run.params
            tau, n = live_values(run)
            st.text(f"m={p.get('n_partitions')} t={p.get('train_size')} k={p.get('slice_size')}\n"
                    f"{p.get('model')} / {p.get('strategy')}, seed {p.get('random_state')}\n"
                    f"{run.n_phases} phases in {run.seconds:.1f} s\n"
                    f"live: τ={tau:.2f}, n={n:,}")
        job_panel()


# ---------------------------------------------------------------------- representation specs
REP_KINDS = {
    "tfidf-svd": "TF-IDF n-grams + SVD (text)",
    "warmup": "Warm-up feature extractor (paper 000; excludes the warm-up share)",
    "embedding": "Precomputed embedding column",
    "file": "Vectors from a .npy/.npz/Parquet file",
    "pixels": "Image pixels (+PCA)",
    "glove": "Averaged GloVe 50-d (extra 'glove')",
    "sbert": "sentence-transformers (extra 'sbert')",
}


def build_spec(kind: str, *, fields=(), dim: int = 64, fraction: float = 0.1, path: str = "", model: str = "") -> str:
    """A representation spec string from the Data page's widgets (see core.representations)."""
    f = "+".join(fields)
    opts = []
    if kind in ("tfidf-svd", "warmup", "glove", "sbert") and f:
        opts.append(f"fields={f}")
    if kind in ("tfidf-svd", "warmup"):
        opts.append(f"dim={int(dim)}")
    if kind == "warmup":
        opts.append(f"fraction={float(fraction):g}")
    if kind == "pixels":
        opts.append(f"pca={int(dim)}")
    if kind == "file":
        opts.append(f"path={path}")
    if kind == "sbert" and model:
        opts.append(f"model={model}")
    return kind + (":" + ",".join(opts) if opts else "")


def load_into_pending(source, roles: dict, *, label: str, extra: str = ""):
    """Load a dataset (raises InputError) and make it the Data page's pending choice."""
    key = dataset_key(source, roles, extra)
    ds = registry().load(key, source, roles)
    ss = _ss()
    ss.pending_ds_key = key
    ss.pending_source = {"source": source, "extra": extra, "label": label}
    ss.pending_roles = dict(roles)
    return ds


def cached(kind: str, key, compute):
    """A per-dataset result cache in the registry (z-filtering, consistency filtering, …)."""
    reg = registry()
    full = (kind, _ss().ds_key, key)
    with reg.lock:
        if full in reg.zstats:
            return reg.zstats[full]
    value = compute()
    with reg.lock:
        reg.zstats[full] = value
    return value
