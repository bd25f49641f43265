"""Team review rules: the team's word, traffic lights, overrides in the export, the queue."""
import numpy as np
import pandas as pd
import pytest

from core.errors import InputError
from core.review import apply_overrides, lights, queue, standing


def _latest(rows):
    return pd.DataFrame(rows, columns=["example_id", "reviewer", "decision", "note", "created_at"])


REVIEWS = _latest([
    ("e1", "a", "agree", "", 1),           # reviewed, agreed
    ("e2", "a", "keep", "real neutral", 2),  # overridden: keep anyway
    ("e3", "a", "agree", "", 3),           # disputed: a agrees, b removes anyway
    ("e3", "b", "remove", "artifact", 4),
    ("e5", "b", "agree", "", 5),
])
IDS = np.array(["e1", "e2", "e3", "e4", "e5", "e6"])
RETAINED = np.array([False, False, True, False, True, True])


def test_standing_is_the_latest_word_and_flags_disputes():
    s = standing(REVIEWS)
    assert s.loc["e3", "decision"] == "remove" and s.loc["e3", "reviewer"] == "b"
    assert s.loc["e3", "reviewers"] == 2 and bool(s.loc["e3", "disputed"])
    assert not bool(s.loc["e1", "disputed"]) and s.loc["e2", "decision"] == "keep"
    assert standing(_latest([])).empty


def test_lights_follow_paper_002s_colours():
    got = lights(IDS, RETAINED, standing(REVIEWS))
    # e1 agreed: green; e2 overridden: yellow; e3 disputed: yellow; e4 removed, unreviewed: red;
    # e5 kept and agreed: green; e6 kept, unreviewed: no light
    assert got.tolist() == ["green", "yellow", "yellow", "red", "green", ""]
    assert lights(IDS, RETAINED, standing(_latest([]))).tolist() == ["red", "red", "", "red", "", ""]


def test_overrides_change_the_split_and_are_listed():
    mask, table = apply_overrides(IDS, RETAINED, standing(REVIEWS))
    assert mask.tolist() == [False, True, False, False, True, True]   # e2 kept anyway, e3 removed anyway
    assert RETAINED.tolist() == [False, False, True, False, True, True]   # the input is not modified
    assert table["example_id"].tolist() == ["e2", "e3"]
    assert table["filter"].tolist() == ["removed", "retained"] and table["changed"].all()
    assert table.loc[table["example_id"] == "e3", "reviewer"].item() == "b"
    # a "keep" on a retained example is listed, but changes nothing
    _, same = apply_overrides(["e1"], [True], standing(_latest([("e1", "a", "keep", "sure", 1)])))
    assert same["changed"].tolist() == [False]


def test_queue_serves_unreviewed_highest_score_first_or_a_fixed_shuffle():
    scores = np.array([0.2, np.nan, 0.9, 0.5, 0.7, 0.1])
    assert queue(IDS, scores, {"e3"}).tolist() == ["e5", "e4", "e1", "e6", "e2"]
    assert queue(IDS, scores, set(), limit=2).tolist() == ["e3", "e5"]
    shuffled = queue(IDS, scores, {"e1"}, order="random", seed=7)
    assert sorted(shuffled) == ["e2", "e3", "e4", "e5", "e6"]
    assert shuffled.tolist() == queue(IDS, scores, {"e1"}, order="random", seed=7).tolist()
    assert any(queue(IDS, scores, set(), order="random", seed=s).tolist() != queue(IDS, scores, set()).tolist()
               for s in range(3))
    with pytest.raises(InputError, match="choose one of predictability, random"):
        queue(IDS, scores, set(), order="newest")
