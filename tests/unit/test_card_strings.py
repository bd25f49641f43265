"""Hostile strings in every field that reaches the dataset card (issue 31, class 9), generated:
rendered by a real Markdown parser with raw HTML on (as the Hub renders a card), a user string
is never markup (no tag, link or image), never breaks a table row, and reads back as written;
the YAML front matter parses. The same for the HTML report's escaping function."""
from __future__ import annotations

import html
import re

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from artifact_lens.exports.card import dataset_card
from artifact_lens.base.escaping import html_text, md_code, md_text, visible_text

NASTY = ['<img src="http://tracker.example/p.gif">', "a|b", "back`tick", "line\nbreak", "bare\rreturn", "**bold**",
         "[link](http://x.example)", "![](http://x.example/i.png)", "# heading", "`` two ``", "<script>alert(1)</script>",
         "&lt;b&gt;", "$x^2$", "~~gone~~", "\\|", "x\u2028y", "\t", "- item", "1. one", "> quote", "---", "<!-- c -->"]
TEXT = st.one_of(st.sampled_from(NASTY), st.text(min_size=1, max_size=30),
                 st.lists(st.sampled_from(NASTY), min_size=2, max_size=3).map("".join))
QUICK = settings(max_examples=60, deadline=None, derandomize=True, database=None,
                 suppress_health_check=list(HealthCheck))
PARSER = MarkdownIt("commonmark", {"html": True}).enable("table")


def _flat(value: str) -> str:
    """What a value reads as in one cell: breaks and control characters as spaces (`core.base.escaping`'s
    rule), outer spaces trimmed, runs of spaces one."""
    return re.sub(r"\s+", " ", re.sub(r"[\x00-\x1f\x7f\x85\u2028\u2029]", " ", str(value))).strip()


def _manifest(s: dict) -> tuple:
    manifest = {
        "dataset": {"name": s["name"], "fingerprint": s["fingerprint"], "scored_examples": 90},
        "export": {"rows": 60, "selection": s["selection"], "tau": 0.5, "target_size": 60},
        "aflite": {"resolved": {"k": 3, "m": 4, "t": 10, "families": [s["family"]], "strategy": s["strategy"]},
                   "n_phases": 2, "seed": 0, "removal_order": s["order"]},
        "representation": {"spec": s["spec"]},
        "versions": {s["version_key"]: s["version"]},
        "joint": {"model": s["model"], "epochs": 2, "found": {"removable": 1, "regions": {"ambiguous": 2},
                                                              "possibly_mislabelled": 3}},
    }
    inputs = {"labels": {s["label"]: {"examples": 30, "retained": 20, "removed": 10},
                         "plain": {"examples": 60, "retained": 40, "removed": 20}},
              "cues": {"before": [{"feature": s["feature"], "label": s["label"], "n": 5, "z": 3.2}],
                       "after": [{"feature": s["feature"], "label": "plain", "n": 4, "z": 1.1}]}}
    return manifest, inputs


FIELDS = ["name", "fingerprint", "selection", "family", "strategy", "order", "spec", "version_key", "version", "model",
          "label", "feature", "verdict"]


@QUICK
@given(values=st.fixed_dictionaries({f: TEXT for f in FIELDS}))
def test_no_user_string_is_markup_in_the_card(values):
    manifest, inputs = _manifest(values)
    text = str(dataset_card(manifest, inputs, verdict=values["verdict"]))
    front, body = text.split("\n---\n", 1)
    meta = yaml.safe_load(front.lstrip("-\n"))
    shown = visible_text(values["name"])   # controls shown, never obeyed (issue 63, item 12)
    assert shown.strip() in meta["source_datasets"][0] or not shown.strip()
    tokens = PARSER.parse(body)
    assert not [t for t in tokens if t.type in ("html_block",)], "a user string became an HTML block"
    inline = [c for t in tokens if t.children for c in t.children]
    assert not [c for c in inline if c.type in ("html_inline", "image", "link_open", "strong_open", "em_open", "s_open")], \
        [c.type for c in inline if c.type in ("html_inline", "image", "link_open", "strong_open", "em_open")]
    rendered = PARSER.render(body)
    for table in re.findall(r"<table>.*?</table>", rendered, re.S):
        rows = re.findall(r"<tr>(.*?)</tr>", table, re.S)
        widths = {len(re.findall(r"<t[hd][ >]", row)) for row in rows}
        assert len(widths) == 1, ("a table row broke", table)
    shown = html.unescape(re.sub(r"<[^>]+>", "", rendered))
    for field in ("label", "feature", "version", "selection", "spec"):
        assert _flat(values[field]) in _flat(shown), (field, values[field])


@QUICK
@given(value=TEXT)
def test_each_format_keeps_a_value_as_text(value):
    cell = PARSER.render(f"| a |\n|---|\n| {md_text(value)} |\n")
    assert "<img" not in cell and "<script" not in cell and "<a " not in cell
    assert _flat(value) in _flat(html.unescape(re.sub(r"<[^>]+>", "", cell)))
    code = PARSER.render(f"| a |\n|---|\n| {md_code(value)} |\n")
    assert "<code>" in code and _flat(value) == _flat(html.unescape(re.search(r"<code>(.*?)</code>", code, re.S)
                                                                    .group(1)))
    assert "<" not in html_text(value) and ">" not in html_text(value) and '"' not in html_text(value)
    assert html.unescape(html_text(value)) == str(value)
