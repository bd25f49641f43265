"""The Data page's helpers: representation specs from widgets, uploads, loading a dataset."""
from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from core import paths
from dashboard import current
from dashboard.session import Source, session

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


def save_upload(name: str, data: bytes) -> Path:
    """An uploaded file saved under the cache (named by its content hash), so core.sources can read it."""
    digest = hashlib.sha256(data).hexdigest()[:16]
    suffixes = "".join(Path(name).suffixes[-2:]) or ".csv"
    folder = paths.cache_dir() / "uploads"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{digest}{suffixes}"
    if not path.exists():
        fd, tmp = tempfile.mkstemp(dir=folder)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, path)
    return path


def load_pending(source: Source):
    """Load a dataset (raises InputError) and make it the Data page's pending choice."""
    key, ds = current.load(source)
    sess = session()
    sess.pending_key, sess.pending_source = key, source
    return ds
