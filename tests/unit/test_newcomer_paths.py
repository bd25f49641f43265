"""The architecture doc's recipes, followed to the letter in a throwaway copy of the project: a new
quality component (every step of "How to add a quality component") reaches the dataset's
components, one new example's feedback and the combined score; a new page (every step of "How to
add a page") opens in the app and passes the layer rules. A recipe that misses a step fails here."""
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


def _copy(tmp_path) -> Path:
    dest = tmp_path / "project"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    for part in ("core", "dashboard", "pages", "assets", ".streamlit", "tests", "docs"):
        if (ROOT / part).exists():
            shutil.copytree(ROOT / part, dest / part, ignore=ignore)
    for name in ("app.py", "pyproject.toml"):
        shutil.copy2(ROOT / name, dest / name)
    return dest


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"the recipe's anchor {old!r} is no longer in {path.name}: update the recipe and this test"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _run(dest: Path, code: str) -> str:
    env = dict(os.environ, PYTHONPATH=str(dest), ARTIFACT_LENS_CACHE=str(dest / "cache"), HF_HUB_OFFLINE="1")
    out = subprocess.run([sys.executable, "-c", code], cwd=dest, env=env, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_a_new_quality_component_added_by_the_recipe_reaches_every_use(tmp_path):
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    recipe = doc[doc.index("## How to add a quality component"):doc.index("## How to add a command")]
    assert all(name in recipe for name in ("QualityComponent", "REGISTRY", "QUANTITIES", "component_scores",
                                           "QualityContext.quantities", "QualityContext.feedback"))
    dest = _copy(tmp_path)
    scoring = dest / "core" / "quality" / "scoring.py"
    before = {p: p.read_bytes() for p in dest.rglob("*.py")}
    # one entry: its name in DQI order, the DQI component it follows, weight, thresholds, words, and a
    # rule on a quantity the context already measures (here: half the copied-words score)
    _edit(scoring, '        "other_split_cosine", lambda q, ctx: dissimilarity(q)),\n)',
          '        "other_split_cosine", lambda q, ctx: dissimilarity(q)),\n'
          '    QualityComponent("probe", "C8 a probe", 1.0, (0.2, 0.5), ("Probe", "a probe of the recipe", "nothing"),\n'
          '        "copied_share", lambda q, ctx: word_overlap_score(q) / 2),\n)')
    assert [p for p in dest.rglob("*.py") if p.read_bytes() != before.get(p)] == [scoring]   # no other file
    out = _run(dest, """
from core.data.demos import make_nli
from core.quality import QualityContext, quality_scores
from core.quality.pruning import quality_descriptor
from core.quality.scoring import IN_WORDS
ds = make_nli(n=240, random_state=0)
spec = "tfidf-svd:fields=hypothesis,dim=8"
table = quality_scores(ds, spec)
assert (table["probe"] == table["word_overlap"] / 2).all() and table["probe"].notna().all(), table.columns
assert set(table["light_probe"]) <= {"red", "yellow", "green"}
ctx = QualityContext.fit(ds, spec)
example = {f: str(ds.table[f].iloc[0]) for f in ds.text}
example[ds.label] = ds.table[ds.label].iloc[0]
fb = ctx.feedback(example)
assert abs(fb.components["probe"]["score"] - fb.components["word_overlap"]["score"] / 2) <= 1e-4, fb.components
assert quality_descriptor("probe")["name"] == "probe" and IN_WORDS["probe"][0] == "Probe"
print("ok")
""")
    assert out.strip().endswith("ok")


def test_a_new_page_added_by_the_recipe_opens_and_passes_the_layer_rules(tmp_path):
    dest = _copy(tmp_path)
    # 1: the page, laid out from services and widgets; 2: one line in the navigation
    (dest / "pages" / "14_probe.py").write_text('''"""Probe: a page made by the recipe."""
import streamlit as st

from dashboard.services import current
from dashboard.widgets.page import start_page

tab = start_page("Probe", caption="A page made by following docs/architecture.md.")
st.metric("Examples", f"{len(current.dataset(tab)):,}")
''', encoding="utf-8")
    nav = dest / "dashboard" / "services" / "navigation.py"
    _edit(nav, '    ("pages/13_dynamics.py", "Dynamics", ":material/insights:"),\n',
          '    ("pages/13_dynamics.py", "Dynamics", ":material/insights:"),\n'
          '    ("pages/14_probe.py", "Probe", ":material/science:"),\n')
    out = _run(dest, """
from streamlit.testing.v1 import AppTest
at = AppTest.from_file("app.py", default_timeout=300).run()
at.switch_page("pages/14_probe.py").run()
assert not at.exception, [e.value for e in at.exception]
assert [t.value for t in at.title] == ["Probe"] and at.metric[0].value != ""
print("ok")
""")
    assert out.strip().endswith("ok")
    layers = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/unit/test_layers.py"],
                            cwd=dest, env=dict(os.environ, PYTHONPATH=str(dest)), capture_output=True, text=True,
                            timeout=600)
    assert layers.returncode == 0, layers.stdout[-3000:]
    assert re.search(r"\d+ passed", layers.stdout)


def test_a_new_export_format_is_one_entry_and_reaches_the_cli_the_page_the_docs_and_the_file(tmp_path):
    """Issue 43: adding a format ("arrow") touched seven files, four of them hand-copied lists, and one
    missing from a list showed "None" on the Export page. Now it is one registration beside its writer."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    recipe = doc[doc.index("## How to add an export format"):doc.index("## How to add a command")]
    assert "register(ExportFormat(" in recipe and "core/exports/writers.py" in recipe
    dest = _copy(tmp_path)
    _edit(dest / "core" / "exports" / "writers.py", "\n\ndef _save_datasets_folder(", '''


def _write_arrow(frame, fh, chunk_rows, progress, cancel) -> None:
    import pyarrow as pa

    conv = _ArrowChunks(frame)
    with pa.ipc.new_file(fh, conv.table(frame.iloc[:0]).schema) as writer:
        for chunk in _chunks(frame, chunk_rows, progress, cancel, "writing Arrow"):
            writer.write_table(conv.table(chunk))


register(ExportFormat("arrow", "Arrow IPC", ".arrow", "application/vnd.apache.arrow.file", _write_arrow))


def _save_datasets_folder(''')
    out = _run(dest, """
import contextlib, io, pathlib
import pyarrow as pa
from streamlit.testing.v1 import AppTest
from core.cli import main
from core.cli.reference import reference_markdown
from core.data.demos import make_nli
from core.exports.writers import export_frame, write

help_text = io.StringIO()
with contextlib.redirect_stdout(help_text), contextlib.suppress(SystemExit):
    main(["export", "--help"])
assert "arrow" in help_text.getvalue() and ".arrow" in help_text.getvalue(), help_text.getvalue()
assert "Arrow IPC" in reference_markdown()
ds = make_nli(n=120, random_state=0)
path = write(export_frame(ds, None, which="all"), pathlib.Path("split.arrow"))
table = pa.ipc.open_file(pa.memory_map(str(path))).read_all()
assert table.num_rows == 120, table.num_rows
at = AppTest.from_file("app.py", default_timeout=300).run()
at.switch_page("pages/7_export.py").run()
assert not at.exception, [e.value for e in at.exception]
radio = at.radio(key="exp_fmt")
assert "arrow" in radio.options or "Arrow IPC" in radio.options, radio.options
radio.set_value("arrow").run()
assert not at.exception, [e.value for e in at.exception]
print("ok")
""")
    assert out.strip().endswith("ok")


def test_a_new_model_family_is_one_entry_and_reaches_the_cli_the_page_the_docs_and_the_tables(tmp_path):
    """Issue 43: a model family was five parallel lists (the evaluation's names, the table's, their
    words, PVI's, the device's) plus hand-written CLI choices and help. Now it is one registration."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    recipe = doc[doc.index("## How to add a model family"):doc.index("## How to add a command")]
    assert "register(ModelFamily(" in recipe and "core/models/families.py" in recipe
    dest = _copy(tmp_path)
    families = dest / "core" / "models" / "families.py"
    anchor = 'register(ModelFamily("mlp",'
    _edit(families, anchor, '''def _centroid(random_state, params, **_):
    from sklearn.neighbors import NearestCentroid

    return NearestCentroid(**params)


register(ModelFamily("centroid", "nearest centroid", _centroid))
''' + anchor)
    out = _run(dest, """
import contextlib, io
import numpy as np
from streamlit.testing.v1 import AppTest
from core.cli import main
from core.cli.reference import reference_markdown
from core.data.demos import make_nli
from core.evaluation.measures import family_table, subset_accuracy
from core.evaluation.suite import EvaluationOptions
from core.representations import represent

help_text = io.StringIO()
with contextlib.redirect_stdout(help_text), contextlib.suppress(SystemExit):
    main(["evaluate", "--help"])
assert "centroid (nearest centroid)" in " ".join(help_text.getvalue().split()), help_text.getvalue()
assert "nearest centroid" in reference_markdown()
assert "centroid" in EvaluationOptions().families   # in the families table by default
ds = make_nli(n=240, random_state=0)
X, y = represent(ds, "tfidf-svd:dim=16").X, np.asarray(ds.table[ds.label])
table = subset_accuracy(X, y, {"full": np.ones(len(y), bool)}, families=("logistic", "centroid"))
assert set(table["family"]) == {"logistic", "centroid"} and table["accuracy"].notna().all(), table
train = np.arange(len(y)) < 180
wide = family_table(X, y, {"full": train}, {"i.i.d.": ~train}, families=("centroid",))
assert list(wide["family"].unique()) == ["centroid"] and wide["accuracy"].notna().all(), wide
at = AppTest.from_file("app.py", default_timeout=300).run()
at.switch_page("pages/10_evaluate.py").run()
assert not at.exception, [e.value for e in at.exception]
pick = at.multiselect(key="eval_families")
assert "nearest centroid" in pick.options, pick.options
pick.set_value(["centroid"]).run()
assert not at.exception, [e.value for e in at.exception]
print("ok")
""")
    assert out.strip().endswith("ok")


def test_a_new_certificate_measure_is_one_step_and_reaches_the_certificate_and_the_gate(tmp_path):
    """Issue 43: a certificate measure was a registration in one file and its computation inline in a
    129-line `certify`. Now it is one `step` that declares its `Measure` and computes it."""
    doc = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    recipe = doc[doc.index("## How to add a certificate measure"):doc.index("## How to add a command")]
    assert "@step(" in recipe and "core/certificate/measures.py" in recipe
    dest = _copy(tmp_path)
    anchor = "\n\n# ------------------------------------------------------------------------------------------ certify"
    _edit(dest / "core" / "certificate" / "measures.py", anchor, '''


@step("hypothesis length", 0.9, [Measure("lengths.short_share", "share", "higher", True,
                                         "share of examples whose last text field has three words or fewer")],
      applies=lambda i: bool(i.dataset.text))
def _short(i: Inputs) -> dict:
    words = i.dataset.table[i.dataset.text[-1]].astype(str).str.split().str.len()
    return {"lengths.short_share": _share("lengths.short_share", int((words <= 3).sum()), i.n)}''' + anchor)
    out = _run(dest, """
import json, pathlib, subprocess, sys
from core.certificate.measures import certify
from core.certificate.registry import spec_of
from core.data.demos import make_nli

ds = make_nli(n=300, random_state=0)
base = certify(ds, representation="tfidf-svd:dim=16", folds=3, m=4, epochs=2)
entry = base["measures"]["lengths.short_share"]
assert entry["unit"] == "share" and entry["artifact"] and 0 <= entry["value"] <= 1 and entry["stderr"] is not None, entry
assert spec_of("lengths.short_share").worse == "higher"
from core.data.sources import load_dataset
table = ds.table.copy()
field = ds.text[-1]
table[field] = [" ".join(str(t).split()[:2]) if i % 2 else t for i, t in enumerate(table[field])]
shorter = load_dataset(table, text=list(ds.text), label=ds.label)
cand = certify(shorter, representation="tfidf-svd:dim=16", folds=3, m=4, epochs=2)
assert cand["measures"]["lengths.short_share"]["value"] > entry["value"] + 0.3
pathlib.Path("base.json").write_text(json.dumps(base))
pathlib.Path("cand.json").write_text(json.dumps(cand))
out = subprocess.run([sys.executable, "-m", "core", "check", "base.json", "cand.json"], capture_output=True, text=True)
assert "lengths.short_share" in out.stdout, out.stdout + out.stderr
assert out.returncode == 1, out.stdout   # an artifact measure that rose beyond its error fails the gate
print("ok")
""")
    assert out.strip().endswith("ok")
