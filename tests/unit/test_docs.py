"""The docs name files that exist: every `core/…`, `dashboard/…`, `pages/…`, `tests/…` path in
README.md and docs/*.md is in the repository (a moved module breaks the docs' links at once)."""
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PATH = re.compile(r"`((?:core|dashboard|pages|tests|benchmarks|docs)/[\w./-]+?\.(?:py|md))")


def test_every_path_the_docs_name_exists():
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for path in PATH.findall(doc.read_text(encoding="utf-8")):
            if "N_name" not in path and not (ROOT / path).exists():   # N_name: the recipe's placeholder
                missing.append(f"{doc.name}: {path}")
    assert not missing, missing


def test_the_newcomer_paths_are_answered_in_the_architecture_doc():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for question in ("Where is τ applied?", "How to add a page", "How to add a quality component", "How to add a command"):
        assert f"## {question}" in text, question
