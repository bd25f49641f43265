"""Cosine neighbours are computed one way (issue 43, "algorithms once": the evaluation's KNN
distances and the quality components' nearest neighbour and inter-split similarity used three
copies): `core.representations.neighbours.cosine_neighbours` agrees with a brute-force sort for any
matrices, chunk size and K, and never gives a row itself as its neighbour when told not to."""
import numpy as np
from hypothesis import given, settings, strategies as st

from artifact_lens.representations.neighbours import cosine_neighbours, max_cosine, normalise_rows


@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 40), m=st.integers(1, 40), d=st.integers(1, 6), k=st.integers(1, 8),
       chunk=st.integers(1, 50), seed=st.integers(0, 2 ** 16), same=st.booleans(), ties=st.booleans())
def test_cosine_neighbours_agree_with_a_full_sort_whatever_the_chunks(n, m, d, k, chunk, seed, same, ties):
    rng = np.random.default_rng(seed)
    Q = rng.normal(size=(n, d))
    if ties:   # repeated rows and zero rows: equal similarities must not break the order
        Q = np.round(Q) * (rng.random((n, 1)) > 0.2)
    Q = normalise_rows(Q)
    R = Q if same else normalise_rows(rng.normal(size=(m, d)))
    sims, rows = cosine_neighbours(Q, R, k, exclude_self=same, chunk=chunk)
    full = Q @ R.T
    if same:
        np.fill_diagonal(full, -np.inf)
    want = np.sort(full, axis=1)[:, ::-1][:, :sims.shape[1]]
    assert sims.shape[1] == min(k, len(R) - (1 if same else 0))
    np.testing.assert_allclose(sims, want, rtol=0, atol=1e-5)
    np.testing.assert_allclose(np.take_along_axis(full, rows, axis=1), sims, rtol=0, atol=1e-6)
    if same:
        assert not (rows == np.arange(len(Q))[:, None]).any()
    assert (np.diff(sims, axis=1) <= 1e-6).all()   # largest first
    again, _ = cosine_neighbours(Q, R, k, exclude_self=same, chunk=10 ** 6)   # one chunk: float rounding aside
    np.testing.assert_allclose(again, sims, rtol=0, atol=1e-6)


def test_max_cosine_of_a_single_row_against_itself_has_no_neighbour():
    best, arg = max_cosine(normalise_rows(np.ones((1, 3))), normalise_rows(np.ones((1, 3))), exclude_self=True)
    assert best[0] == -np.inf and arg[0] == -1
