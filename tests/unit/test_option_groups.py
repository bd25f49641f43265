"""Group features of multiple-choice options (issue 64, item 5): each option measured against the other
options of its item, in the option cue table and in the options-only model."""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings, strategies as st

from artifact_lens.data.sources import load_dataset
from artifact_lens.text.option_groups import GROUP_FEATURES, group_amounts
from artifact_lens.text.tokens import tokenize

WORDS = ["red", "Blue", "not", "the", "cat", "may", "7", "Paris", "never", "all", "of", "above", "both", "and"]
option_text = st.lists(st.sampled_from(WORDS), min_size=0, max_size=6).map(" ".join)
groups_of_options = st.lists(st.lists(option_text, min_size=1, max_size=5), min_size=1, max_size=8)


def _jaccard_by_hand(texts: list) -> list:
    sets = [set(tokenize(t)) for t in texts]
    out = []
    for i, a in enumerate(sets):
        others = [len(a & b) / len(a | b) if a | b else 1.0 for j, b in enumerate(sets) if j != i]
        out.append(1 - sum(others) / len(others) if others else 0.0)
    return out


@settings(max_examples=60, deadline=None)
@given(items=groups_of_options, data=st.data())
def test_group_amounts_follow_their_options_and_are_counted_as_said(items, data):
    """An option's amounts are its own whatever its position (permuting an item's options permutes its
    rows), and the odd one out and the shared words are recounted here by hand."""
    texts = [t for options in items for t in options]
    k = [len(options) for options in items]
    found = group_amounts(texts, k)
    assert list(found.columns) == list(GROUP_FEATURES) and len(found) == len(texts)
    expected = [u for options in items for u in _jaccard_by_hand(options)]
    assert np.allclose(found["unlike_others"], expected)
    shared = []
    for options in items:
        for i, t in enumerate(options):
            mine, rest = set(tokenize(t)), set().union(*[set(tokenize(o)) for j, o in enumerate(options) if j != i])
            shared.append(len(mine & rest) / len(mine) if mine else 0.0)
    assert np.allclose(found["shared_words"], shared)
    orders = [data.draw(st.permutations(range(len(options)))) for options in items]
    moved = group_amounts([options[j] for options, order in zip(items, orders) for j in order], k)
    starts = np.cumsum(k) - np.asarray(k)
    back = np.concatenate([s + np.asarray(order) for s, order in zip(starts, orders)])
    assert np.allclose(moved.to_numpy(), found.to_numpy()[back], atol=1e-9)


def test_phrases_negation_and_names_are_counted():
    found = group_amounts(["All of the above", "none of these", "both Paris and Rome", "it is not known, never",
                           "maybe in 1999 or 2001", "plain"], [6])
    assert found["all_above"].tolist() == [1, 0, 0, 0, 0, 0] and found["none_above"].tolist() == [0, 1, 0, 0, 0, 0]
    assert found["both_and"].tolist() == [0, 0, 1, 0, 0, 0] and found["negation"].tolist()[3] == 2
    assert found["numbers"].tolist()[4] == 2 and found["names"].tolist()[2] == 2   # Paris, Rome (past "both")


def odd_one_out_items(n: int = 600, odd_share: float = 0.7, seed: int = 0) -> pd.DataFrame:
    """Items whose three distractors share a theme of words and whose gold, in ``odd_share`` of them,
    is the odd one out (elsewhere it is a themed option): the words are new in every item, so only
    how the options relate tells the gold."""
    rng = np.random.default_rng(seed)
    vocabulary = [f"w{i}" for i in range(2000)]
    rows = []
    for i in range(n):
        theme = list(rng.choice(vocabulary, 6, replace=False))
        options = [" ".join(rng.choice(theme, 4, replace=False)) + " " + rng.choice(vocabulary) for _ in range(3)]
        options.append(" ".join(rng.choice(vocabulary, 5, replace=False)))
        order = rng.permutation(4)
        gold = int(np.flatnonzero(order == (3 if rng.random() < odd_share else 0))[0])
        rows.append({"id": f"q{i}", "question": "which one", "choices": [options[j] for j in order],
                     "answer": "ABCD"[gold]})
    return pd.DataFrame(rows)


def test_the_options_only_model_reaches_what_the_odd_one_out_allows():
    """Done-when: on a generated file where the gold is the odd one out, the options-only model reaches
    what that heuristic allows; the model that reads one option at a time stays near chance."""
    from artifact_lens.evaluation.choices import choice_baselines
    from artifact_lens.zstats.choices import option_amounts

    ds = load_dataset(odd_one_out_items())
    amounts = option_amounts(ds)["unlike_others"]
    gold = ds.table["gold"].map("ABCD".index).to_numpy()
    heuristic = float((amounts[np.arange(len(gold)), gold] == amounts.max(axis=1)).mean())
    assert heuristic == pytest.approx(0.7, abs=0.06)
    with_groups = choice_baselines(ds, which=("options_only",))["options_only"].summary["accuracy"]
    alone = choice_baselines(ds, which=("options_only",), groups=False)["options_only"].summary["accuracy"]
    assert with_groups >= heuristic - 0.03 and alone <= 0.25 + 0.08, (with_groups, alone, heuristic)


def test_the_cue_table_names_a_group_cue_and_check_lists_its_items():
    """"All of the above" given to the gold of a fifth of the items is named in the option cue table
    by its group feature, and `items_with_cue` lists exactly those items."""
    from artifact_lens.zstats.choices import items_with_cue, option_cues

    rng = np.random.default_rng(2)
    rows, planted = [], set()
    for i in range(400):
        options = [" ".join(rng.choice(WORDS[:6], 3)) + f" {i}.{j}" for j in range(4)]
        gold = int(rng.integers(0, 4))
        if i % 5 == 0:
            options[gold], planted = "all of the above", planted | {f"q{i}"}
        rows.append({"id": f"q{i}", "question": "q", "choices": options, "answer": "ABCD"[gold]})
    ds = load_dataset(pd.DataFrame(rows))
    table = option_cues(ds).table.set_index("feature")
    assert table.loc["[option saying all of the above]", "over_line"]
    assert set(items_with_cue(ds, ["[option saying all of the above]"])[0]) == planted


FRUITS = ("apple banana cherry grape lemon mango melon orange peach pear plum apricot lime kiwi papaya coconut fig "
          "guava raspberry strawberry blueberry pineapple watermelon tangerine nectarine pomegranate cranberry "
          "blackberry grapefruit avocado").split()
THINGS = ("car truck bicycle hammer wrench train boat airplane helicopter motorcycle screwdriver drill saw ladder "
          "shovel rake tractor bus van scooter chisel pliers canoe ferry subway tram wagon sled jeep taxi").split()


def test_an_embedding_of_each_option_reads_what_its_words_cannot(tmp_path, capsys):
    """Issue 64, item 6: with ``--options-representation glove`` (real GloVe vectors, the test extra),
    the options-only model also reads each option's embedding less its item's mean. The gold is always
    a fruit, each fruit too rare in a fold for its word to be learnt: the embedding finds the kind."""
    from artifact_lens.cli import main
    from artifact_lens.evaluation.choices import choice_baselines

    rng = np.random.default_rng(0)
    rows = []
    for i in range(240):
        options = list(rng.choice(THINGS, 3, replace=False)) + [rng.choice(FRUITS)]
        order = rng.permutation(4)
        rows.append({"id": f"q{i}", "question": "which", "choices": [options[j] for j in order],
                     "answer": "ABCD"[int(np.flatnonzero(order == 3)[0])]})
    frame = pd.DataFrame(rows)
    found = choice_baselines(load_dataset(frame), which=("options_only",), embedding="glove")
    assert found["options_embedded"].summary["accuracy"] >= 0.9 > found["options_only"].summary["accuracy"] + 0.2
    assert found["options_embedded"].summary["embedding"] == "glove:fields=option"
    frame.to_json(tmp_path / "fruit.jsonl", orient="records", lines=True)
    assert main(["-q", "pvi", str(tmp_path / "fruit.jsonl"), "--options-representation", "glove",
                 "--out", str(tmp_path / "pvi.csv")]) == 0
    assert {"pvi_options_embedded", "p_gold_options_embedded"} <= set(pd.read_csv(tmp_path / "pvi.csv").columns)
    for spec, why in (("tfidf-svd", "fits nothing on the dataset"), ("glove:fields=question", "drop fields=")):
        assert main(["-q", "pvi", str(tmp_path / "fruit.jsonl"), "--options-representation", spec]) == 2
        assert why in capsys.readouterr().err
