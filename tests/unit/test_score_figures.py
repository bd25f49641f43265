"""The Predictability page's figures at scale (issue 13): the p̃ histograms are counted on the
server (counts, not one value per example, go to the browser) and each violin holds a bounded,
seeded sample."""
import json

import numpy as np
import pandas as pd


def spec(fig) -> dict:
    return json.loads(fig.to_json())


def test_p_histograms_are_counted_on_the_server_and_violins_hold_a_bounded_sample():
    from artifact_lens.plots.aflite import HIST_EDGES, score_histogram, score_violins

    rng = np.random.default_rng(3)
    n = 12_000
    f = pd.DataFrame({"label": np.where(rng.random(n) < 0.9, "a", "b"), "predictability": rng.random(n)})
    f.loc[:9, "predictability"] = 1.0
    f.loc[10:14, "predictability"] = np.nan                       # unscored: in no bin
    f["status"] = np.where(rng.random(n) < 0.5, "retained", "removed")
    hist = spec(score_histogram(f, "label", 0.5, title=""))["data"]
    assert [t["type"] for t in hist] == ["bar", "bar"] and len(_decoded(hist[0]["y"])) == len(HIST_EDGES) - 1
    for t, g in zip(hist, ["a", "b"]):
        values = f.loc[f["label"] == g, "predictability"].dropna()
        counts = np.asarray(_decoded(t["y"]))
        assert counts.sum() == len(values) and counts[-1] == (values >= 1.0).sum()
        np.testing.assert_array_equal(counts, np.histogram(values, bins=HIST_EDGES)[0])
    violins = spec(score_violins(f, "label", 0.5, max_points=1000))["data"]
    for t in violins:
        xs = pd.Series(_decoded(t["x"]))
        assert xs.value_counts().max() <= 1000 and set(xs) == {"a", "b"}
    small = spec(score_violins(f, "label", 0.5, max_points=n))["data"]    # below the bound: every example
    assert sum(len(_decoded(t["y"])) for t in small) == n


def _decoded(v):
    """A plotly JSON array, plain or a base64 typed array."""
    if isinstance(v, dict) and "bdata" in v:
        import base64

        return np.frombuffer(base64.b64decode(v["bdata"]), dtype=np.dtype(v["dtype"]))
    return v


def test_phase_boxes_carry_their_statistics_not_the_scores():
    from artifact_lens.plots.aflite import box_stats, phase_boxes

    values = np.array([0.0, 0.1, 0.2, 0.3, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7, 0.98])
    st = box_stats(values)
    assert (st["q1"], st["median"], st["q3"]) == tuple(np.percentile(values, [25, 50, 75]))
    iqr = st["q3"] - st["q1"]
    inside = values[(values >= st["q1"] - 1.5 * iqr) & (values <= st["q3"] + 1.5 * iqr)]
    assert (st["lowerfence"], st["upperfence"]) == (inside.min(), inside.max())
    skewed = box_stats(np.r_[np.full(20, 0.5), 0.0, 1.0])       # the two ends lie outside the fences
    assert skewed["lowerfence"] == skewed["upperfence"] == 0.5
    rng = np.random.default_rng(4)
    long = pd.DataFrame({"phase": np.repeat([0, 5, 10], 3000), "score": rng.random(9000),
                         "label": np.tile(["a", "b", "c"], 3000)})
    fig = spec(phase_boxes(long, 0.5))
    assert len(json.dumps(fig)) < 20_000                         # five numbers a box, not 9,000 scores
    for t, g in zip(fig["data"], ["a", "b", "c"]):
        assert "y" not in t and list(t["x"]) == [0, 5, 10]
        for j, phase in enumerate([0, 5, 10]):
            want = box_stats(long.loc[(long["label"] == g) & (long["phase"] == phase), "score"])
            assert np.isclose(t["median"][j], want["median"]) and np.isclose(t["upperfence"][j], want["upperfence"])


def test_no_figure_carries_an_annotation_without_text():
    """An annotation with no text is drawn by Plotly as "new text" (issue 21): the τ line is
    labelled when coloured by label, and has no annotation at all when coloured by status."""
    from artifact_lens.plots.aflite import score_histogram

    f = pd.DataFrame({"label": ["a", "b"] * 50, "predictability": np.linspace(0, 1, 100),
                      "status": ["retained", "removed"] * 50})
    for colour in ("label", "status"):
        notes = spec(score_histogram(f, colour, 0.4, title=""))["layout"].get("annotations", [])
        assert all(n.get("text") for n in notes), (colour, notes)
        assert [n["text"] for n in notes] == (["τ = 0.40"] if colour == "label" else [])
