"""What the session is looking at, fetched through the server's bounded cache.

Each function names one object (the dataset, Φ, the run, the example table, the
live result, z-statistics, the projection) and how to recompute it on a miss, so an
eviction costs time, never state: datasets reload from their `Source`, Φ and
projections come back from the disk cache, runs from the run store.
"""
from __future__ import annotations

from typing import Optional

import numpy as np
import pandas as pd

from artifact_lens.base.errors import InputError
from artifact_lens.base.keys import ResultKey, data_key, read_key, result_key
from artifact_lens.base.settings import settings
from artifact_lens.dashboard.services.team import scope
from artifact_lens.dashboard.state.session import Source

def map_point_limit() -> int:
    """The most points the Map draws (``$ARTIFACT_LENS_MAP_POINTS``, `core.base.settings`)."""
    return settings().map_points


def map_text_limit() -> int:
    """Above this many drawn points the hover shows id and label only (``$ARTIFACT_LENS_MAP_TEXT_POINTS``)."""
    return settings().map_text_points


#: the most selected examples the Map lists as rows (the counts above the list cover them all)
MAP_LIST_ROWS = 1_000


def map_sample(n: int, keep=()) -> Optional[np.ndarray]:
    """Rows the Map draws of ``n`` points: None (all) up to `map_point_limit`; above it a sample
    of that many, seeded so every redraw shows the same points, plus the rows in ``keep`` (the
    selection), in increasing order."""
    limit = map_point_limit()
    if n <= limit:
        return None
    sample = np.random.default_rng(0).choice(n, limit, replace=False)
    return np.union1d(sample, np.asarray(keep, dtype=np.int64))


def map_method() -> str:
    """The map the dashboard computes in the background: ``$ARTIFACT_LENS_MAP`` ("umap" by
    default, "umap-parallel" is UMAP too; tests and previews use "pca", which needs no background job)."""
    return "umap" if settings().map.startswith("umap") else settings().map


def map_parallel() -> bool:
    """Whether UMAP runs on every core (``ARTIFACT_LENS_MAP=umap-parallel``): faster, but umap-learn
    runs one thread whenever it is seeded, so such a map is not reproducible (cached apart)."""
    return settings().map == "umap-parallel"


# ---------------------------------------------------------------------- datasets
def _roles(source: Source) -> dict:
    return {k: v for k, v in source.roles.items() if v not in (None, "", [])}


def load(tab, source: Source):
    """(key, Dataset) for a source. The key is the content read (`core.data.dataset.Dataset.content_key`),
    never the path: the source is read again whenever it may have changed since the server last read
    it (`core.data.source_files.source_stamp`), so a file edited in place is a new dataset with results of
    its own, and the old content's stay reachable under their own key. Raises InputError."""
    from artifact_lens.data.source_files import source_stamp
    from artifact_lens.data.sources import load_dataset

    cache = tab.server.cache
    stamp = source_stamp(source.source)
    # what the file held when last read, by its state (path, size, times): a pointer to content, not a result
    read_as = None if stamp is None else result_key(stamp, _roles(source))
    key = cache.peek("read", read_as) if read_as else None
    ds = cache.peek("dataset", key) if key else None
    if ds is None:
        fresh = load_dataset(source.source, **_roles(source))
        key = fresh.content_key
        ds = cache.get_or_compute("dataset", key, lambda: fresh)   # one object per content, however often read
        if read_as:
            cache.put("read", read_as, key)
    cache.put("source", key, source)   # tiny; lets a shared link reload an evicted dataset
    return key, ds


class SourceChanged(InputError):
    """A dataset's source no longer holds the content a page, a link or a result was computed from."""


def dataset_by_key(tab, key: str, source: Optional[Source] = None):
    """The dataset whose content has this key, reloaded from ``source`` (or the remembered one) on a
    miss; None when the server does not know how to load it. Raises `SourceChanged` when the source
    now holds other content (an edited file): no result of the old content is ever shown for it."""
    from artifact_lens.data.sources import load_dataset

    cache, key = tab.server.cache, read_key(key)

    def reload():
        src = source or cache.peek("source", key)
        if src is None:
            return None
        found = load_dataset(src.source, **_roles(src))
        if found.content_key != key:
            raise SourceChanged(f"{src.label or src.source} has changed since it was loaded: what is shown was "
                                "computed from its earlier content. Load it again on the Data page to work on "
                                "what it holds now.")
        return found

    return cache.get_or_compute("dataset", key, reload)


def dataset(tab):
    sess = tab.session
    return dataset_by_key(tab, sess.ds_key, sess.source)


def representation(tab):
    """Φ of the current dataset (the disk cache makes a reload after eviction cheap)."""
    from artifact_lens.representations import represent

    sess = tab.session
    ds = dataset(tab)
    return tab.server.cache.get_or_compute("representation", named(tab, sess.spec),
                                           lambda: represent(ds, sess.spec))


# ---------------------------------------------------------------------- runs
def run_by_key(tab, key: Optional[str]):
    """A finished run from the cache, the run store, or the workspace's saved runs (checksum
    verified); None when there is none. Raises `core.results.runs.CorruptRun` for a damaged run."""
    if not key:
        return None
    srv, key = tab.server, read_key(key)   # a key from a link or the team's records

    def load():
        found = srv.store.get(key)
        if found is None:
            ws = scope(tab)
            rec = ws.run_record(key)
            if rec is not None and rec["status"] == "done":
                found = ws.open_run(key)
        return found

    return srv.cache.get_or_compute("run", key, load)


def live_label(tab, key: str) -> str:
    """The τ and n this tab shows run ``key`` at, or last left it at ("τ 0.75, n 50%" for the
    defaults of a run it has not shown): a run in a list is named with the view it opens at."""
    from artifact_lens.dashboard.state.session import DEFAULT_TARGET, DEFAULT_TAU

    sess = tab.session
    tau, n = (sess.tau, sess.target) if key == sess.run_key else sess.live_of.get(key, (DEFAULT_TAU, DEFAULT_TARGET))
    return f"τ {float(tau):.2f}, n " + (f"{float(n):.0%}" if isinstance(n, float) and n < 1 else f"{int(n):,}")


def stored_run_count(tab) -> int:
    """How many finished runs the server's run store holds (every dataset)."""
    return len(tab.server.store.keys())


def workspace_runs(tab):
    """The runs the member's workspace holds (who made them, when, status), newest first."""
    return scope(tab).runs()


def team_run_id(tab, run_) -> Optional[int]:
    """The id of this run in the member's workspace, or None when it is not saved there."""
    return workspace_run_id(tab, run_.key)


def workspace_run_id(tab, key: str) -> Optional[int]:
    """The id of the finished run ``key`` in the member's workspace, or None."""
    rec = scope(tab).run_record(key)
    return rec["id"] if rec is not None and rec["status"] == "done" else None


def review_standing(tab, run_id: int, *, unblinded: bool = False):
    """`core.team.review.standing` of the run's reviews under the workspace's dispute rule: current
    (teammates review meanwhile), yet read from the database only when a review, the rule or (for
    the ``senior`` rule) a role changed since. In a blind workspace it is the member's own view
    (others' decisions only on examples they decided on), unless ``unblinded`` (adjudicators:
    the export, the adjudication queue, the team's agreement)."""
    from artifact_lens.team.review import standing
    from artifact_lens.team.run_agreement import dispute_roles

    ws = scope(tab)
    settings_ = ws.review_settings()
    stamp, rule = ws.review_stamp(run_id), settings_["dispute_rule"]
    roles = dispute_roles(ws, rule)
    view = "all" if unblinded or not settings_["blind"] else ws.by   # a blind view is its member's own
    return tab.server.cache.get_or_compute(
        "reviews", reviews_key(run_id, stamp, rule, sorted(roles.items()), view),
        lambda: standing(ws.reviews(run_id, unblinded=unblinded), rule=rule, roles=roles))


def reviews_key(run_id: int, stamp, *settings) -> ResultKey:
    """The key of a result of a run's reviews as they stand at ``stamp`` (the team store's own mark
    of their last change), with these settings."""
    return result_key(data_key(f"run {int(run_id)} reviews {stamp}"), *settings)


def run(tab):
    """The current dataset's run, or None (no run yet, a run of other data, or a damaged
    stored run, which every page names (`damaged_run`) and which is left on disk for the user
    to inspect)."""
    from artifact_lens.results.runs import CorruptRun

    try:
        found = run_by_key(tab, tab.session.run_key)
    except CorruptRun:
        return None
    if found is None or found.dataset_fingerprint != dataset(tab).fingerprint:
        return None
    return found


def damaged_run(tab) -> Optional[str]:
    """What is wrong with the current run's stored file, when it cannot be read (None otherwise)."""
    from artifact_lens.results.runs import CorruptRun

    try:
        run_by_key(tab, tab.session.run_key)
    except CorruptRun as exc:
        return str(exc)
    return None


def table(tab, run_):
    """The `core.results.tables.ExampleTable` of the current dataset and this run (shared, read-only)."""
    from artifact_lens.results.tables import ExampleTable

    sess = tab.session
    return tab.server.cache.get_or_compute("table", named(tab, run_.key),
                                           lambda: ExampleTable(dataset(tab), run_).prepare_browsing())


def run_labels(tab, run_):
    """The labels of the run's scored examples (aligned with ``run.ids``) as a `pandas.Categorical`,
    once per run: every τ/n redraw counts them (a reindex by 100k string ids costs ~30 ms)."""
    import pandas as pd

    ds = dataset(tab)
    return tab.server.cache.get_or_compute("labels", named(tab, run_.key), lambda: pd.Categorical(
        ds.table[ds.label].reindex(np.asarray(run_.ids)).to_numpy()))


def live_values(tab, run_) -> tuple:
    """The session's τ and n (a count), clamped to what the run answers without a refit. A
    quality-ordered run answers only its fitted τ (the quality order among p̃ ≥ τ changes with
    τ), so τ is that run's; its n stays live."""
    sess = tab.session
    tau, n = run_.trajectory.clamp(sess.tau, sess.target)
    if run_.trajectory.quality is not None:
        tau = float(run_.trajectory.tau)
    return tau, n


def live_result(tab, run_) -> dict:
    """What a fresh fit at the session's τ and n gives (``retained``, ``removed_at``,
    ``predictability``, ``n_phases``), from the trajectory."""
    tau, n = live_values(tab, run_)
    return tab.server.cache.get_or_compute("live", result_key(run_.key, tau, n), lambda: run_.result_for(tau, n))


# ---------------------------------------------------------------------- z-statistics
def named(tab, *settings) -> ResultKey:
    """The key of a result about the current dataset with these settings (`core.base.keys.result_key`
    of its content key): what every service names its cached results and jobs by."""
    return result_key(tab.session.ds_key, *settings)


def cached(tab, kind: str, key, compute):
    """A result about the current dataset (z-statistics, z-filtering, ...), cached by ``key`` (its settings)."""
    return tab.server.cache.get_or_compute(kind, named(tab, key), compute)


def zstats(tab, min_count: int = 5, alpha: float = 0.01):
    from artifact_lens.zstats import compute_z

    ds = dataset(tab)
    return cached(tab, "zstats", (int(min_count), float(alpha)),
                  lambda: compute_z(ds, min_count=int(min_count), alpha=float(alpha)))


def feature_matrix(tab):
    """The binary example × feature matrix (`core.text.features.feature_matrix`) of the current dataset."""
    from artifact_lens.text.features import feature_matrix as of_dataset

    ds = dataset(tab)
    return cached(tab, "features", None, lambda: of_dataset(ds))


def ids_with_feature(tab, name: str) -> np.ndarray:
    """Ids of the examples that carry feature ``name``."""
    from artifact_lens.text.features import ids_with_feature as carriers

    return carriers(feature_matrix(tab), name)


# ---------------------------------------------------------------------- projections
def projection_key(ds, rep) -> str:
    """The projection cache's key of Φ, the one ``artifact-lens project`` writes under."""
    from artifact_lens.representations.projection import representation_key

    return representation_key(ds, rep)


def check_spec(spec: str, ds) -> str:
    """The canonical spec of ``spec`` for ``ds`` (raises InputError naming the problem)."""
    from artifact_lens.representations import resolve_spec

    if not spec:
        raise InputError("no representation spec given; choose a kind or type a spec such as "
                         "tfidf-svd:fields=hypothesis")
    return resolve_spec(ds, spec)


# ---------------------------------------------------------------------- one example
#: how many neighbours "more like this" lists
LIKE_THIS = 50


def feature_z(tab, example_id: str, label: str) -> pd.DataFrame:
    """The example's features with their z for ``label`` (highest first)."""
    fm = feature_matrix(tab)
    at = pd.Index(np.asarray(fm.ids).astype(str)).get_indexer([example_id])[0]
    if at < 0:
        return pd.DataFrame(columns=["feature", "z", "significant"])
    names = fm.features_of(int(at))
    z = zstats(tab).table
    mine = z[(z["feature"].isin(names)) & (z["label"].astype(str) == label)]
    return mine[["feature", "z", "significant"]].sort_values("z", ascending=False).reset_index(drop=True)


def neighbours(tab, example_id: str, k: int) -> pd.DataFrame:
    """The example's ``k`` nearest neighbours in Φ (cosine), with their label, text and similarity."""
    from artifact_lens.representations.neighbours import nearest

    ds, rep = dataset(tab), representation(tab)
    at = pd.Index(np.asarray(rep.ids).astype(str)).get_indexer([example_id])[0]
    if at < 0:
        return pd.DataFrame()
    rows, sims = nearest(rep.X, int(at), k)
    ids = np.asarray(rep.ids).astype(str)[rows]
    out = ds.table.loc[ids, [ds.label, *ds.text]].reset_index()
    out.insert(1, "similarity", np.round(sims, 3))
    return out


def neighbour_ids(tab, example_id: str) -> np.ndarray:
    """Ids of the example's `LIKE_THIS` nearest neighbours in Φ, and its own."""
    found = neighbours(tab, example_id, LIKE_THIS)
    return np.append(found[found.columns[0]].astype(str).to_numpy(), example_id) if len(found) else np.array([example_id])
