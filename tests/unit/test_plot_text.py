"""Data is never plotly markup (core.plots.text), one colour per label (core.plots.palette), the map's
draw order and kept selection, and Gardner-plot labels that never overlap (issue 14)."""
import json

import numpy as np
import pandas as pd
import pytest

from artifact_lens.plots import aflite as aflite_plots, zstats as zplots
from artifact_lens.plots.palette import LABEL_PALETTE, OKABE_ITO, label_colours
from artifact_lens.plots.text import escape, escape_all, snippet
from artifact_lens.aflite.summaries import label_summary

LABELS = ['<b>contra</b>', '<a href="http://x.example/">entail</a>', '<img src=x onerror=alert(1)>']
RAW = ("<a ", "<b>", "<img", "<i>", "</b>", "onerror=alert(1)>")


def strings(fig) -> str:
    """Every string of the figure, decoded (to_json writes < as \\u003c)."""
    return json.dumps(json.loads(fig.to_json()), ensure_ascii=False)


def assert_inert(fig):
    text = strings(fig)
    for raw in RAW:
        assert raw not in text, (raw, text[max(text.find(raw) - 80, 0): text.find(raw) + 80])
    assert "&lt;b&gt;contra&lt;/b&gt;" in text     # ... and the label is there, to be read literally
    return text


@pytest.fixture(scope="module")
def hostile():
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.zstats import compute_z

    rows = []
    for i in range(300):
        cue = ["<b>nobody</b>", "<a href='http://x.example/'>outdoors</a>", "$x$ <img src=x onerror=alert(1)>"][i % 3]
        rows.append({"premise": f"A person {i % 7} walks <i>home</i>", "<i>hyp</i>": f"Someone {cue} w{i % 5}",
                     "label": LABELS[i % 3]})
    ds = load_dataset(pd.DataFrame(rows), text=["premise", "<i>hyp</i>"], label="label")
    return ds, compute_z(ds, min_count=3)


def scored_frame(ds, seed=0):
    rng = np.random.default_rng(seed)
    frame = ds.table.reset_index().rename(columns={ds.table.index.name or "index": "id"})
    frame["id"] = [f"<b>id{i}</b>" for i in range(len(frame))]
    frame["predictability"] = rng.random(len(frame))
    frame["retained"] = frame["predictability"] < 0.6
    frame["status"] = np.where(frame["retained"], "retained", "removed")
    return frame


# ---------------------------------------------------------------- the helper
def test_escape_writes_plotlys_markup_characters_as_entities():
    assert escape("<b>x</b> & $y$") == "&lt;b&gt;x&lt;/b&gt; &amp; &#36;y&#36;"
    assert escape("&lt;") == "&amp;lt;"          # an entity in the data stays literal too
    assert escape(3) == "3" and escape("plain words") == "plain words"
    assert list(escape_all(["<i>", "a"])) == ["&lt;i&gt;", "a"]


def test_snippet_cuts_before_escaping():
    text = "<b>" + "x" * 100
    out = snippet(text, 20)
    assert out.startswith("&lt;b&gt;") and out.endswith("…") and "&" not in out[9:]
    assert snippet("a\n\n  b") == "a b" and snippet(None) == "" and snippet(float("nan")) == ""
    cut = snippet("xx&&&&&&&&", 5)                  # never half an entity
    assert cut == "xx&amp;&amp;…"


# ---------------------------------------------------------------- every figure
def test_aflite_figures_show_data_as_text(hostile):
    ds, _ = hostile
    frame = scored_frame(ds)
    summary = label_summary(frame["label"], frame["retained"])
    assert_inert(aflite_plots.label_balance(summary))
    assert_inert(aflite_plots.score_histogram(frame, "label", 0.7, title="p̃"))
    hist = strings(aflite_plots.score_histogram(frame.rename(columns={"label": "<b>lab</b>"}), "<b>lab</b>", 0.7,
                                                title="p̃"))
    assert "&lt;b&gt;lab&lt;/b&gt;" in hist        # the column's name, as the legend title
    assert_inert(aflite_plots.score_violins(frame, "label", 0.7))
    long = pd.DataFrame({"phase": np.repeat([0, 1], 150), "score": np.linspace(0, 1, 300),
                         "label": np.tile(LABELS, 100)})
    assert_inert(aflite_plots.phase_boxes(long, 0.7))
    xy = np.random.default_rng(1).normal(size=(len(frame), 2))
    for colour in ("label", "retained", "premise"):
        text = assert_inert(aflite_plots.projection_map(xy, frame, colour=colour, label="label",
                                                        text_fields=["premise", "<i>hyp</i>"]))
        assert "&lt;i&gt;hyp&lt;/i&gt;: Someone" in text and "&lt;b&gt;id0&lt;/b&gt;" in text
    text = assert_inert(aflite_plots.projection_map(xy, frame.assign(**{"<b>p</b>": frame["predictability"]}),
                                                    colour="<b>p</b>", label="label"))
    assert "&lt;b&gt;p&lt;/b&gt;" in text           # the colour bar's title


def test_z_figures_show_data_as_text(hostile):
    ds, zs = hostile
    for fig in (zplots.gardner_plot(zs), zplots.gardner_plot(zs, webgl=True), zplots.gardner_plot(zs.table),
                zplots.top_features_bar(zs, k=5), zplots.gardner_plot(zs, kind="pred")):
        text = assert_inert(fig)
        assert "@&lt;i&gt;hyp&lt;/i&gt;" in text or "&lt;i&gt;hyp&lt;/i&gt;-only-pred" in text
    fig = zplots.gardner_plot(zs, annotate=3)
    assert fig.layout.annotations and all("<" not in a.text for a in fig.layout.annotations)


def test_a_gardner_point_still_names_its_feature_by_row(hostile):
    _, zs = hostile
    fig = zplots.gardner_plot(zs)
    sig = [t for t in fig.data if t.name.endswith("(z > z*)") and len(t.customdata)][0]
    row, shown = int(sig.customdata[0][0]), sig.customdata[0][1]
    assert shown == escape(zs.table.loc[row, "feature"])   # pages look features up by row, not by the text


# ---------------------------------------------------------------- one colour per label
def test_palette_is_okabe_ito_by_sorted_position():
    assert label_colours(["b", "a", "c"]) == {"a": OKABE_ITO[0], "b": OKABE_ITO[1], "c": OKABE_ITO[2]}
    # a figure that shows only some labels colours them as the whole dataset does
    assert label_colours(["c"], classes=["a", "b", "c"])["c"] == OKABE_ITO[2]
    many = label_colours([f"l{i:02d}" for i in range(17)])
    assert len(set(many.values())) == 17 == len(LABEL_PALETTE)
    assert label_colours([2, 1])[1] == label_colours(["1", "2"])["1"]


def test_the_same_label_has_the_same_colour_in_every_figure(hostile):
    ds, zs = hostile
    frame = scored_frame(ds)
    classes = ds.classes
    want = {escape(l): c for l, c in label_colours(classes).items()}
    seen = {}

    def note(name, colour):
        name = name.removeprefix("label=").removesuffix(" (z > z*)")
        if name in want:
            seen.setdefault(name, set()).add(colour)

    bal = aflite_plots.label_balance(label_summary(frame["label"], frame["retained"]), classes=classes)
    for t in bal.data:
        for x, c in zip(t.x, t.marker.color):
            note(x, c)
    # a histogram of two labels only: the third label's colour is not handed to another
    two = frame[frame["label"] != LABELS[0]]
    for fig in (aflite_plots.score_histogram(frame, "label", 0.5, title="", classes=classes),
                aflite_plots.score_histogram(two, "label", 0.5, title="", classes=classes),
                aflite_plots.phase_boxes(two.assign(phase=0, score=two["predictability"]), 0.5, classes=classes),
                zplots.gardner_plot(zs, classes=classes)):
        for t in fig.data:
            if isinstance(t.marker.color, str):
                note(t.name, t.marker.color)
    for t in zplots.top_features_bar(zs, classes=classes).data:
        note(t.name, t.marker.color)
    xy = np.zeros((len(frame), 2))
    for t in aflite_plots.projection_map(xy, frame, colour="label", label="label", classes=classes).data[1:]:
        note(t.name, t.marker.color)
    assert set(seen) == set(want)
    assert {k: next(iter(v)) for k, v in seen.items()} == want and all(len(v) == 1 for v in seen.values())


# ---------------------------------------------------------------- the map
def test_map_draws_labels_in_a_mixed_order_and_keeps_a_selection(hostile):
    ds, _ = hostile
    frame = scored_frame(ds)
    xy = np.random.default_rng(2).normal(size=(len(frame), 2))
    fig = aflite_plots.projection_map(xy, frame, colour="label", label="label", selected=[3, 10, 299],
                                      text_fields=["<i>hyp</i>"])
    points = fig.data[0]
    rows = aflite_plots.map_points(points)["row"].tolist()
    assert sorted(rows) == list(range(len(frame)))
    # labels interleave along the draw order: none is drawn last as a block
    drawn = frame["label"].to_numpy()[rows]
    changes = int((drawn[1:] != drawn[:-1]).sum())
    assert changes > len(frame) / 3
    tail = drawn[-30:]
    assert len(set(tail)) == 3
    # colours follow the rows through the shuffle; the legend names each label once
    colours = label_colours(ds.classes)
    assert [colours[l] for l in drawn] == aflite_plots.map_points(points)["colour"].tolist()
    assert [t.name for t in fig.data[1:]] == [f"label={escape(l)}" for l in ds.classes]
    assert all(t.x == (None,) for t in fig.data[1:]) and fig.layout.legend.itemclick is False
    # selectedpoints are positions in the drawn order of the selected rows
    assert sorted(rows[i] for i in points.selectedpoints) == [3, 10, 299]
    # same seed, same order (a redraw after τ/n keeps the picture still)
    again = aflite_plots.projection_map(xy, frame, colour="label", label="label")
    assert aflite_plots.map_points(again.data[0])["row"].tolist() == rows
    assert again.data[0].selectedpoints is None
    hover = points.hovertext[rows.index(0)].split("<br>", 1)[1]
    assert hover.startswith("&lt;i&gt;hyp&lt;/i&gt;: ") and len(hover) < 140


def test_map_keeps_the_review_palette():
    frame = pd.DataFrame({"id": ["a", "b", "c"], "label": ["x", "y", "x"], "predictability": [0.1, 0.9, 0.5],
                          "retained": [True, False, True], "review": ["🟢 agreed", "🔴 removed, not reviewed", "–"]})
    palette = {"🟢 agreed": "#2e9e44", "🔴 removed, not reviewed": "#d1352b", "–": "#b8b8b8"}
    fig = aflite_plots.projection_map(np.zeros((3, 2)), frame, colour="review", label="label", palette=palette)
    legend = {t.name: t.marker.color for t in fig.data[1:]}
    assert legend["review=🔴 removed, not reviewed"] == "#d1352b"
    drawn = aflite_plots.map_points(fig.data[0])
    by_row = dict(zip(drawn["row"], drawn["colour"]))
    assert by_row == {0: "#2e9e44", 1: "#d1352b", 2: "#b8b8b8"}


# ---------------------------------------------------------------- Gardner-plot labels
def boxes(fig, width=zplots.LABEL_PLOT_WIDTH, scale=1.0):
    """Text boxes of the annotations (pixels) in a plot area ``width × scale`` wide."""
    lo, hi = fig.layout.xaxis.range
    y0, y1 = fig.layout.yaxis.range
    m = fig.layout.margin
    h = fig.layout.height - m.t - m.b
    out = []
    for a in fig.layout.annotations:
        if a.ax is None or not a.showarrow:
            continue
        x = (a.x - lo) / (hi - lo) * width * scale + a.ax
        y = (1 - (a.y - y0) / (y1 - y0)) * h + a.ay
        w = len(a.text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")) * zplots.LABEL_CHAR_PX + 6
        out.append((x - w / 2, y - zplots.LABEL_LINE_PX / 2, x + w / 2, y + zplots.LABEL_LINE_PX / 2))
    return out


def crowded_z():
    """Many significant features of three labels piled at nearly the same (n, p̂)."""
    rows = []
    for i in range(60):
        lab = ["contradiction", "entailment", "neutral"][i % 3]
        rows.append({"feature": f"feature_number_{i}@hypothesis", "kind": "ngram", "field": "hypothesis",
                     "label": lab, "n": 200 + (i % 5), "count": 150, "p_hat": 0.75 + 0.001 * (i % 7),
                     "z": 20.0 - i * 0.1, "significant": True})
    rows.append({"feature": "rare@hypothesis", "kind": "ngram", "field": "hypothesis", "label": "neutral", "n": 10,
                 "count": 3, "p_hat": 0.3, "z": 0.1, "significant": False})
    table = pd.DataFrame(rows)
    table.attrs.update(z_star=4.0, p0=1 / 3, n_tests=61)
    return table


@pytest.mark.parametrize("scale", [1.0, 1.7, 3.0])
def test_gardner_labels_never_overlap(scale):
    fig = zplots.gardner_plot(crowded_z(), annotate=3)
    placed = boxes(fig, scale=scale)
    assert 1 <= len(placed) <= 9               # at most the top 3 per label; the pile cannot hold them all
    for i, a in enumerate(placed):
        for b in placed[i + 1:]:
            assert a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1], (a, b)
    # inside the plot area, so never on the legend (below the plot) or the title (above it)
    m = fig.layout.margin
    assert all(b[0] >= 0 and b[1] >= 0 and b[3] <= fig.layout.height - m.t - m.b for b in placed)
    assert fig.layout.legend.y < 0


def test_gardner_labels_the_top_of_each_label_when_there_is_room(hostile):
    from artifact_lens.data.sources import load_dataset
    from artifact_lens.zstats import compute_z

    zs = compute_z(load_dataset("demo:nli:n=900"), min_count=5)
    fig = zplots.gardner_plot(zs, kind="ngram", annotate=2)
    named = {a.text for a in fig.layout.annotations if a.showarrow}
    top = zs.top(1, kind="ngram")
    assert set(top["feature"]) <= named        # the most extreme feature of every label is named
    assert len(named) <= 2 * len(zs.labels)


# ---------------------------------------------------------------- the evaluation's figures
def test_evaluation_figures_show_data_as_text_in_the_label_colours():
    from artifact_lens.evaluation import plots as ep

    knn = pd.DataFrame([{"label": l, "against": a, "K": k, "before": 0.5, "after": 0.6}
                        for l in LABELS for a in ("same class", "other classes") for k in (1, 5)])
    fig = ep.knn_figure(knn)
    assert_inert(fig)
    colours = {escape(l): c for l, c in label_colours(LABELS).items()}
    assert all(t.line.color == colours[t.name.rsplit(", ", 1)[0]] for t in fig.data)   # "label, before"
    hist = pd.DataFrame({"group": ["retained", "removed"], "left": [0, 0], "right": [1, 1], "share": [0.5, 0.5]})
    summary = pd.DataFrame({"group": ["retained", "removed"], "mean": [0.4, 0.6]})
    text = strings(ep.difficulty_figure(hist, summary, name="<b>contra</b>"))
    assert "<b>" not in text and "&lt;b&gt;contra&lt;/b&gt;" in text
    assert "<b>" not in strings(ep.difficulty_figure(hist.iloc[:0], summary, name="<b>contra</b>"))
    points = pd.DataFrame({"separation": 0.2, "x0": [0.1, 0.2, 0.3], "x1": [0.1, 0.2, 0.3],
                           "label": LABELS, "retained": [True, False, True]})
    fig = ep.synthetic_scatter(points)
    assert_inert(fig)
    assert {t.name: t.marker.color for t in fig.data if t.showlegend} == colours
