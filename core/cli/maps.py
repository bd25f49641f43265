"""The project command: the 2-D map of a representation computed into the cache the Map page reads."""
from __future__ import annotations

import json
import sys

from ..base.errors import InputError
from ..representations.spec import default_spec
from .common import load_from_args, print_messages, representation_for
from ..base.bounds import DIM
from .arguments import Real, SEED_MAX, Whole
from .commands import REPRESENTATION_HELP, command
from .common import add_dataset_args

__all__ = ["cmd_project"]


_PROJECT_FLAGS = {"n_neighbors=": "--n-neighbors ", "min_dist=": "--min-dist ", "spread=": "--spread ",
                  "metric=": "--metric ", "fit_size=": "--fit-size ", "pca_dims=": "--pca-dims ", "method=": "--method "}


class _StagePrinter:
    """Progress for `project`: one line per stage (on stderr), with the seconds since the start."""

    def __init__(self, quiet: bool):
        import time

        self.quiet, self.t0, self.last = quiet, time.perf_counter(), None

    def __call__(self, fraction: float, message: str = "") -> None:
        import time

        if self.quiet or not message or message == self.last:
            return
        self.last = message
        print(f"[{time.perf_counter() - self.t0:7.1f} s] {message}", file=sys.stderr, flush=True)


def cmd_project(args) -> int:
    """Issue 13: precompute the 2-D map of a representation into the cache the dashboard's Map page reads."""
    from ..representations import projection as proj

    params = dict(n_neighbors=args.n_neighbors, min_dist=args.min_dist, spread=args.spread, metric=args.metric,
                  random_state=args.seed, fit_size=args.fit_size or None, pca_dims=args.pca_dims or None)
    try:   # bad values fail before the dataset is loaded, named by their flags
        if args.fit_size < 0 or args.pca_dims < 0:
            raise InputError(f"{'--fit-size' if args.fit_size < 0 else '--pca-dims'} must be >= 0 (0 = every row / "
                             "no PCA step)")
        proj._check_params(args.method, params["n_neighbors"], params["min_dist"], params["fit_size"],
                           params["pca_dims"], params["spread"], params["metric"])
    except InputError as exc:
        text = str(exc)
        for name, flag in _PROJECT_FLAGS.items():
            text = text.replace(name, flag)
        raise InputError(text) from None
    numba_dir = proj.ensure_numba_cache()   # before anything imports numba
    stage = _StagePrinter(args.quiet)
    stage(0.0, f"loading {args.dataset}")
    ds = load_from_args(args)
    print_messages(ds, args.quiet)
    stage(0.0, f"representation {args.representation or default_spec(ds)}")
    rep = representation_for(ds, args.representation, args)
    key = proj.representation_key(ds, rep)
    kwargs = dict(params, parallel=args.parallel) if args.method == "umap" else {"random_state": args.seed}
    out = proj.project(rep.X, rep.ids, key=key, method=args.method, progress=stage, **kwargs)
    info = out.info
    if args.json:
        print(json.dumps({"dataset": ds.name, "representation": rep.spec, "key": key, "method": args.method,
                          "params": out.params, "info": info}, indent=1, default=str))
        return 0
    if args.quiet:
        return 0
    n, d = rep.X.shape
    print(f"{args.method.upper()} map of {n:,} × {d} ({rep.spec})"
          + (" — already cached, nothing computed" if info.get("cache_hit") else ""))
    stages = info.get("stages", {})
    if args.method == "umap":
        p = info.get("pca")
        print("  PCA        " + (f"{p['from_dims']} → {p['dims']} dims, explained variance {p['explained_variance']:.3f}, "
                                  f"fitted on {p['fit_rows']:,} rows" if p else "none (Φ is not wider than --pca-dims)")
              + (f"  {stages['pca']:.1f} s" if "pca" in stages else ""))
        print(f"  numba      kernels cached in {info.get('numba_cache_dir', numba_dir)}  {stages.get('import', 0):.1f} s")
        k = info.get("knn", {})
        print(f"  kNN graph  {k.get('n_neighbors')} neighbours ({k.get('metric')}) of {k.get('rows', 0):,} rows, "
              f"{'reused from the cache (no neighbour search)' if k.get('cached') else 'searched and cached'}"
              f"  {stages.get('knn', 0):.1f} s")
        print(f"  layout     UMAP min_dist {out.params['min_dist']}, spread {out.params['spread']}, "
              f"on {info.get('fitted_rows', 0):,} rows  {stages.get('layout', 0):.1f} s")
        if info.get("transformed_rows"):
            print(f"  transform  {info['transformed_rows']:,} more rows placed  {stages.get('transform', 0):.1f} s")
    print(f"total {info.get('seconds', 0):.1f} s; cached in {info.get('cache_file')}")
    defaults = proj.DEFAULTS
    if args.method == "umap" and any(out.params[k] != defaults.get(k) for k in out.params):
        print("note: the dashboard's Map page shows the map with the default parameters "
              f"({', '.join(f'{k}={v}' for k, v in defaults.items())}); this one is cached for the Python API.",
              file=sys.stderr)
    elif args.method == "umap":
        print(f"the dashboard's Map page opens this map at once for {ds.name} with Φ = {rep.spec}")
    return 0


@command("project", run=cmd_project, help="precompute the 2-D map (UMAP) of a representation for the dashboard's Map page",
         description="Compute the UMAP (or PCA) map of a representation into the cache the dashboard's "
                     "Map page reads, in recorded stages: PCA to --pca-dims, the kNN graph (cached: a "
                     "rerun that changes only --min-dist/--spread skips the neighbour search), the layout. "
                     "numba's compiled kernels are cached in $NUMBA_CACHE_DIR (default: <cache>/numba).")
def _project_options(p) -> None:
    add_dataset_args(p)
    p.add_argument("--representation", "-r", default=None, help=REPRESENTATION_HELP)
    p.add_argument("--method", default="umap", choices=["umap", "pca"], help="umap (default) or pca (instant preview)")
    p.add_argument("--n-neighbors", type=Whole(2, 10_000), default=15, help="UMAP neighbours (default 15; a change searches a new kNN graph)")
    p.add_argument("--metric", default="euclidean", help="distance of the kNN graph: euclidean (default), cosine, manhattan, correlation, chebyshev")
    p.add_argument("--min-dist", type=Real(0, 1), default=0.1, help="UMAP min_dist in [0, 1] (default 0.1; display only: reuses the kNN graph)")
    p.add_argument("--spread", type=Real(0, 10, lo_open=True), default=1.0, help="UMAP spread (default 1.0; display only: reuses the kNN graph)")
    p.add_argument("--pca-dims", type=Whole(2, DIM.high, allowed=(0,), meaning="0: no PCA step"), default=50, help="PCA step before UMAP to this many dims (default 50; 0 = none)")
    p.add_argument("--fit-size", type=Whole(0, 10 ** 9), default=200_000, help="fit UMAP on at most this many rows, place the rest with "
                                                               "transform (default 200000; 0 = every row)")
    p.add_argument("--seed", type=Whole(0, SEED_MAX), default=0, help="random seed (default 0, as the dashboard)")
    p.add_argument("--parallel", action="store_true",
                   help="UMAP's neighbour search and layout on every core: faster on many cores, but the layout is not "
                        "reproducible (a seeded UMAP runs on one thread); cached apart from the seeded map, which the "
                        "dashboard shows")
    p.add_argument("--json", action="store_true", help="print the projection's record (stages, PCA, kNN graph) as JSON")
