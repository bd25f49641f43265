"""Issue 65, item 7: each algorithm once. Each check looks for the algorithm, not one spelling of
it: the PCA and SVD calls of every module are read from the source, one example's n-grams are
compared with the dataset's on generated text, and the certificate's Bonferroni line with the one
the z-statistics give at the same support."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pandas as pd
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[2]

#: what a principal-axes or singular-value decomposition is called by, in numpy, scipy, scikit-learn and cupy
DECOMPOSITIONS = {"PCA", "TruncatedSVD", "IncrementalPCA", "svd", "svds", "randomized_svd", "eigh", "eig", "eigsh"}
#: where they may be called: the one PCA of dense vectors (`fit_pca`, and `covariance_axes` for AFLite's
#: out-of-core rows), and the truncated SVD of sparse TF-IDF (`RandomizedSVD`, which everyone else builds)
HOMES = {"core/base/pca.py", "core/representations/svd.py"}


def test_every_decomposition_is_made_in_its_one_module():
    found = []
    for folder in ("core", "dashboard", "pages"):
        for path in (ROOT / folder).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            for node in ast.walk(ast.parse(path.read_text())):
                if isinstance(node, ast.Call):
                    name = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
                    if name in DECOMPOSITIONS and rel not in HOMES:
                        found.append(f"{rel}:{node.lineno} {name}")
    assert found == [], found


def test_the_one_pca_gives_the_quality_contexts_axes_and_the_maps_reduction():
    """The neighbour space's axes are the exact principal axes (orthonormal, the variance's order), and
    the map's reduction spans them: the two uses share the fit."""
    from artifact_lens.quality.kernels import pca_basis
    from artifact_lens.base.pca import fit_pca, pca_transform

    rng = np.random.default_rng(0)
    X = (rng.normal(size=(400, 12)) * np.linspace(5, 0.5, 12)).astype(np.float32)
    mean, axes = pca_basis(X, 4)
    assert np.allclose(axes.T @ axes, np.eye(4), atol=1e-5)
    cov = np.cov((X - X.mean(0)).T)
    w, v = np.linalg.eigh(cov)
    top = v[:, ::-1][:, :4]
    assert np.allclose(np.abs(top.T @ axes), np.eye(4), atol=1e-3)      # the same axes, up to sign
    reduced = pca_transform(fit_pca(X, 4, 0), X)
    assert np.allclose(np.abs(reduced), np.abs((X - mean) @ axes), atol=1e-3)


words = st.lists(st.sampled_from("the a cat dog sat on mat ran".split()), max_size=12)


@settings(max_examples=150, deadline=None)
@given(words)
def test_one_examples_ngrams_are_the_datasets_for_that_example(tokens):
    """`example_ngrams` (a new example's features) names exactly what the dataset's n-gram matrix
    gives that text, and what counting by hand gives."""
    from artifact_lens.text.features import example_ngrams, token_ngrams

    mine = example_ngrams(tokens, "premise")
    by_hand = sorted({*tokens, *(f"{x} {y}" for x, y in zip(tokens[:-1], tokens[1:]))})
    assert mine == [f"{g}@premise" for g in by_hand]
    if tokens:
        M, names, kinds = token_ngrams([" ".join(tokens), "unrelated words here"])
        row = np.asarray(M[0].todense()).ravel() > 0
        assert sorted(names[row]) == by_hand
        assert all((k == "bigram") == (" " in n) for n, k in zip(names, kinds))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**16), st.integers(2, 5), st.integers(0, 6))
def test_the_certificates_line_is_the_z_statistics_line_at_the_same_support(seed, lower, more):
    """The certificate counts its Bonferroni tests from a table kept to a lower support; the count
    must be the one `compute_z` makes at the certificate's own support."""
    from artifact_lens.data.dataset import Dataset
    from artifact_lens.zstats import compute_z

    rng = np.random.default_rng(seed)
    vocab = np.array("red blue green cat dog runs sits park man woman".split())
    table = pd.DataFrame({"text": [" ".join(rng.choice(vocab, rng.integers(1, 6))) for _ in range(120)],
                          "label": rng.choice(["a", "b", "c"], 120)}, index=[f"i{i}" for i in range(120)])
    ds = Dataset(table=table, text=["text"], label="label", name="generated")
    least = lower + more
    kept_lower = compute_z(ds, min_count=lower, alpha=0.01)
    assert kept_lower.line_at(least) == compute_z(ds, min_count=least, alpha=0.01).z_star
