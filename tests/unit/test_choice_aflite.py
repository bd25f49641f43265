"""AFLite on multiple-choice items (issue 55, item 4): the choice-diff representation, the choice
family (a conditional logit over each item's options) and the filtered split written back."""
import json

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from artifact_lens.base.errors import InputError
from artifact_lens.data.demos import make_choices
from artifact_lens.data.sources import load_dataset
from artifact_lens.representations import represent


def _items(rows):
    return load_dataset(pd.DataFrame({"id": [f"q{i}" for i in range(len(rows))], "question": [q for q, _, _ in rows],
                                      "choices": [o for _, o, _ in rows], "answer": [g for _, _, g in rows]}))


@settings(max_examples=15, deadline=None)
@given(data=st.data())
def test_choice_diff_moves_an_items_blocks_with_its_options_and_nothing_else(data, tmp_path_factory):
    """Permuting an item's options permutes its blocks; every block sums to zero over the item."""
    rng = np.random.default_rng(data.draw(st.integers(0, 100)))
    words = ["red", "blue", "cat", "dog", "big", "small", "runs", "sleeps", "the", "a"]
    rows = [(f"q{i}", [" ".join(rng.choice(words, 3)) + f" x{i}{j}" for j in range(int(rng.integers(2, 5)))],
             0) for i in range(12)]
    order = [data.draw(st.permutations(range(len(o)))) for _, o, _ in rows]
    moved = [(q, [o[j] for j in p], 0) for (q, o, _), p in zip(rows, order)]
    cache = tmp_path_factory.mktemp("phi")
    before = represent(_items(rows), "choice-diff:dim=4,min_df=1", cache_dir=cache).X
    after = represent(_items(moved), "choice-diff:dim=4,min_df=1", cache_dir=cache).X
    K, d = int(before[0, 0]), (before.shape[1] - 1 - int(before[0, 0])) // int(before[0, 0])
    for i, p in enumerate(order):
        blocks_b = before[i, 1 + K:].reshape(K, d)
        blocks_a = after[i, 1 + K:].reshape(K, d)
        k = len(p)
        np.testing.assert_allclose(blocks_a[:k], blocks_b[list(p)], atol=1e-5)
        np.testing.assert_allclose(blocks_b[:k].sum(axis=0), 0, atol=1e-4)
        assert before[i, 1:1 + K].tolist() == [1.0] * k + [0.0] * (K - k)


def test_aflite_on_items_removes_the_planted_items_first(tmp_path):
    from artifact_lens.results.runs import fit_run
    from artifact_lens.usecases.scoring import family_for

    ds = make_choices(n=800, position_share=0.2, length_share=0.3, seed=2)
    rep = represent(ds, "choice-diff", cache_dir=tmp_path)
    params = family_for(ds, dict(n_partitions=16, train_size=0.2, slice_size=0.05, tau=0.75, target_size=0.5))
    run = fit_run(ds, rep, params)
    removed = ~run.retained
    cue = ds.table["cue"].reindex(np.asarray(run.ids)).to_numpy()
    assert removed.sum() > 100
    # the length cue is what an options-only model reads (the position it cannot): those go first
    assert (cue[removed] == "length").mean() > 0.8
    assert (cue[run.retained] == "length").mean() < 0.1


def test_the_choice_family_is_for_items_and_items_for_it(tmp_path):
    from artifact_lens.usecases.scoring import family_for

    items = make_choices(n=100)
    assert family_for(items, {})["model"] == "choice" and family_for(items, {"model": "ridge"})["model"] == "choice"
    with pytest.raises(InputError, match="scored by the choice family"):
        family_for(items, {"model": "logistic"})
    labelled = load_dataset("demo:nli:n=200")
    with pytest.raises(InputError, match="scores multiple-choice items"):
        family_for(labelled, {"model": "choice"})
    from artifact_lens.aflite import AFLite

    X = represent(labelled, "tfidf-svd:dim=8", cache_dir=tmp_path).X
    with pytest.raises(InputError, match="choice-diff"):
        AFLite(model="choice", n_partitions=4, target_size=0.9).fit(X, labelled.y)


def test_bbq_filtered_by_aflite_keeps_its_shape_loses_its_cue_and_passes_the_gate(bbq_path, tmp_path, capsys):
    """AFLite on BBQ religion's items: what it removes are ambiguous items (the 'unknown' option is
    their gold), the kept items are written back as the file's rows, the option cue is gone, and
    `check` passes the split the tool cleaned."""
    from artifact_lens.cli import main

    kept, scores = tmp_path / "kept.jsonl", tmp_path / "scores.csv"
    assert main(["-q", "aflite", str(bbq_path), "--out", str(scores), "--m", "16", "--export", str(kept)]) == 0
    source = {str(r["example_id"]): r for r in map(json.loads, open(bbq_path))}
    table = pd.read_csv(scores, dtype={"id": str})
    removed = table.loc[~table["retained"], "id"]
    assert len(removed) > 100 and all(source[i]["context_condition"] == "ambig" for i in removed)
    rows = [json.loads(line) for line in open(kept)]
    assert len(rows) == int(table["retained"].sum())
    assert all({k: v for k, v in r.items() if k != "id"} == source[str(r["example_id"])] for r in rows)
    whole, split = tmp_path / "whole.json", tmp_path / "split.json"
    assert main(["-q", "certify", str(bbq_path), "--out", str(whole)]) == 0
    assert main(["-q", "certify", str(kept), "--out", str(split)]) == 0
    assert main(["-q", "check", str(whole), str(split)]) == 0
    cert = json.loads(split.read_text())
    assert cert["measures"]["mc.options_only.accuracy"]["value"] < 0.4
