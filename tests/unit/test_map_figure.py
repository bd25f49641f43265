"""The map's figure at scale (issue 13): the short hover carries no text snippets, p̃ or status,
numbers go as compact typed arrays, and hostile ids and labels stay escaped."""
import json

import numpy as np
import pandas as pd

from artifact_lens.plots.aflite import map_points, projection_map

HOSTILE = ['<b>contra</b>', '<a href="http://x.example/">entail</a>', '$x$ <img src=x onerror=alert(1)>']


def frame(n=300, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"id": [f"<i>id{i}</i>" for i in range(n)], "label": [HOSTILE[i % 3] for i in range(n)],
                         "premise": [f"A <b>person</b> {i} walks" for i in range(n)],
                         "predictability": rng.random(n), "retained": rng.random(n) < 0.5})


def spec(fig) -> dict:
    return json.loads(fig.to_json())


def test_the_short_hover_has_id_and_label_only_and_stays_escaped():
    f = frame()
    xy = np.random.default_rng(1).normal(size=(len(f), 2))
    full = spec(projection_map(xy, f, colour="label", label="label", text_fields=["premise"]))
    short = spec(projection_map(xy, f, colour="label", label="label", text_fields=["premise"], hover_text=False))
    points = short["data"][0]
    assert "hovertext" not in points and "hovertext" not in points["hovertemplate"]
    assert "hovertext" in full["data"][0] and "walks" in json.dumps(full)
    text = json.dumps(short, ensure_ascii=False)
    assert "walks" not in text and "p̃ =" not in text          # no snippet, no p̃, no status per point
    for raw in ("<b>", "<i>", "<a ", "<img", "$x$"):
        assert raw not in text, raw
    drawn = map_points(points)
    assert set(drawn["label"]) == {"&lt;b&gt;contra&lt;/b&gt;", "&lt;a href=\"http://x.example/\"&gt;entail&lt;/a&gt;",
                                   "&#36;x&#36; &lt;img src=x onerror=alert(1)&gt;"}
    assert drawn["id"].str.startswith("&lt;i&gt;id").all() and (drawn["hover"] == "").all()
    # the same points, rows and colours as the full figure: only the hover differs
    assert drawn[["row", "id", "label", "colour"]].equals(map_points(full["data"][0])[["row", "id", "label", "colour"]])
    # typed arrays: x, y in float32, rows in int32, label codes in uint8
    assert [points[k]["dtype"] for k in ("x", "y", "customdata")] == ["f4", "f4", "i4"]
    assert points["marker"]["color"]["dtype"] == "u1"
    # the figure does not carry τ/n: other p̃ and statuses, the same figure
    moved = f.assign(predictability=f["predictability"][::-1].to_numpy(), retained=~f["retained"])
    again = spec(projection_map(xy, moved, colour="label", label="label", text_fields=["premise"], hover_text=False))
    assert again == short


def test_a_short_hover_on_a_colour_scale_shows_the_value():
    f = frame()
    points = spec(projection_map(np.zeros((len(f), 2)), f, colour="predictability", label="label",
                                 hover_text=False))["data"][0]
    assert "%{marker.color:.2f}" in points["hovertemplate"] and points["marker"]["color"]["dtype"] == "f4"
    assert np.allclose(map_points(points)["colour"].to_numpy(dtype=float),
                       f["predictability"].to_numpy()[points_order(points)], atol=1e-6)


def points_order(points) -> np.ndarray:
    return map_points(points)["row"].to_numpy()


def test_without_the_status_the_hover_keeps_the_texts_and_does_not_change_with_tau_and_n():
    f = frame()
    xy = np.random.default_rng(2).normal(size=(len(f), 2))
    kw = dict(colour="label", label="label", text_fields=["premise"])
    with_status = spec(projection_map(xy, f, **kw))["data"][0]["hovertext"]
    assert all(h.startswith("p̃ = ") and ("retained" in h or "removed" in h) for h in with_status)
    static = spec(projection_map(xy, f, hover_status=False, **kw))["data"][0]["hovertext"]
    assert all(h.startswith("premise: ") and "walks" in h and "p̃" not in h and "retained" not in h for h in static)
    moved = f.assign(retained=~f["retained"], predictability=1 - f["predictability"])   # another τ/n
    assert spec(projection_map(xy, moved, hover_status=False, **kw))["data"][0]["hovertext"] == static
