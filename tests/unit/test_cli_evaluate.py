"""``artifact-lens evaluate``: reads what ``aflite --manifest`` writes, writes tables, figures and
a self-contained report; bad input is one ``error:`` line, exit 2, no output folder."""
import json
import re

import numpy as np
import pandas as pd
import pytest

from artifact_lens.exports import report as evaluation_report
from artifact_lens.cli import main


@pytest.fixture(scope="module")
def scored(tmp_path_factory):
    """A small NLI CSV whose labels carry HTML, and an AFLite manifest of it."""
    tmp = tmp_path_factory.mktemp("ev")
    rng = np.random.default_rng(0)
    words = ["man", "dog", "cat", "girl", "park", "street", "ball", "car", "red", "blue"]
    rows = []
    for i in range(300):
        label = ["<i>yes</i>", "no", "maybe"][i % 3]
        cue = {"<i>yes</i>": "outdoors", "no": "sleeping", "maybe": "tall"}[label]
        rows.append({"premise": " ".join(rng.choice(words, 6)),
                     "hypothesis": " ".join(rng.choice(words, 3)) + (f" {cue}" if i % 2 else ""),
                     "label": label, "votes": int(rng.integers(0, 5))})
    data = tmp / "nli.csv"
    pd.DataFrame(rows).to_csv(data, index=False)
    manifest = tmp / "run.json"
    assert main(["-q", "--cache-dir", str(tmp / "cache"), "aflite", str(data), "-r", "tfidf-svd:fields=premise+hypothesis,dim=16",
                 "--m", "8", "--k", "0.05", "--tau", "0", "--target-size", "0.5", "--out", str(tmp / "scored.csv"),
                 "--manifest", str(manifest)]) == 0
    return tmp, data, manifest


def _evaluate(tmp, data, manifest, out, *extra):
    return main(["--cache-dir", str(tmp / "cache"), "evaluate", str(data), "--run", str(manifest), "--out", str(out),
                 "--families", "logistic,knn", "--ks", "1,5", "--step", "0.25", "--figures", "html", *extra])


def test_evaluate_writes_tables_figures_and_an_escaped_offline_report(scored, tmp_path, capsys):
    tmp, data, manifest = scored
    out = tmp_path / "ev"
    assert _evaluate(tmp, data, manifest, out, "--difficulty", "votes") == 0
    printed = capsys.readouterr().out
    assert "Coarse action: logistic stops improving at" in printed and "Partial input (tfidf-svd:fields=hypothesis" in printed
    for name in ("evaluation.json", "families.csv", "families_table.csv", "partial_input.csv", "knn_distances.csv",
                 "phases.csv", "coarse_action.csv", "difficulty.csv", "families.html", "coarse.html", "plotly.min.js",
                 "report.html"):
        assert (out / name).exists(), name
    ev = json.loads((out / "evaluation.json").read_text())
    kept = set(json.loads(manifest.read_text())["retained_ids"])
    assert ev["context"]["retained"] == len(kept) and ev["context"]["run_key"] == json.loads(manifest.read_text())["run_key"]
    families = pd.read_csv(out / "families.csv")
    assert set(families["train_set"]) == {"full", "aflite", "random", "single-model"}
    assert set(families["eval_set"]) == {"i.i.d.", "AFLite-filtered"}
    report = (out / "report.html").read_text()
    assert "&lt;i&gt;yes&lt;/i&gt;" in report and "<i>yes</i>" not in report       # data is escaped
    assert not re.search(r'<(script|link|img)[^>]+(src|href)="(https?:)?//', report)   # no network
    assert "suggested target size n" in report and "External difficulty: votes" in report


def test_without_a_static_renderer_figures_are_html_and_a_note_says_so(scored, tmp_path, capsys, monkeypatch):
    tmp, data, manifest = scored
    monkeypatch.setattr(evaluation_report, "render_png", lambda figs, **kw: (None, "static PNG figures could not "
                                                                             "be rendered here (test)"))
    out = tmp_path / "ev"
    assert _evaluate(tmp, data, manifest, out, "--figures", "png", "--partial", "none") == 0
    assert "note: static PNG figures could not be rendered here (test)" in capsys.readouterr().err
    assert (out / "families.html").exists() and not list(out.glob("*.png"))
    assert not (out / "partial_input.csv").exists()


@pytest.mark.parametrize("case, message", [
    ("other data", "was made on another dataset"),
    ("missing run", "no such file"),
    ("not a manifest", "is not an AFLite run manifest"),
    ("tau with a manifest", "need the run's trajectory"),
    ("busy folder", "did not write"),
    ("bad family", "unknown model family 'forest'"),
])
def test_bad_input_is_one_error_line_and_no_output(scored, tmp_path, capsys, case, message):
    tmp, data, manifest = scored
    out = tmp_path / "ev"
    extra = []
    if case == "other data":
        other = tmp_path / "other.csv"
        pd.read_csv(data).iloc[:200].to_csv(other, index=False)
        data = other
    elif case == "missing run":
        manifest = tmp_path / "nope.json"
    elif case == "not a manifest":
        manifest = tmp_path / "x.json"
        manifest.write_text(json.dumps({"rows": 3}))
    elif case == "tau with a manifest":
        extra = ["--tau", "0.9"]
    elif case == "busy folder":
        out.mkdir()
        (out / "keep.txt").write_text("mine")
    elif case == "bad family":
        extra = ["--families", "logistic,forest"]
    assert _evaluate(tmp, data, manifest, out, *extra) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("error: ") and message in err[-1], err
    if case == "busy folder":
        assert (out / "keep.txt").read_text() == "mine" and len(list(out.iterdir())) == 1
    else:
        assert not out.exists()
