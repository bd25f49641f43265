"""The docs name only what exists (issue 54, item 8): every file path under the product's folders and
every dotted name of a module, class or function that a doc puts in backticks. docs/architecture.md
still gave the old flat dashboard paths after the dashboard became four folders."""
import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = [*sorted((ROOT / "docs").glob("*.md")), ROOT / "README.md"]
PATH = re.compile(r"`((?:core|dashboard|pages|tests|benchmarks|assets)/[A-Za-z0-9_./-]*)`")
DOTTED = re.compile(r"`((?:core|dashboard)\.[A-Za-z0-9_.]+)`")


def _resolves(dotted: str) -> bool:
    parts = dotted.rstrip(".").split(".")
    for i in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for name in parts[i:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def _named(pattern):
    for doc in DOCS:
        text = doc.read_text(encoding="utf-8")
        for m in pattern.finditer(text):
            yield f"{doc.relative_to(ROOT)}:{text[:m.start()].count(chr(10)) + 1}", m.group(1)


def test_every_path_a_doc_names_exists():
    missing = [f"{where} {path}" for where, path in _named(PATH) if not (ROOT / path.rstrip("/")).exists()]
    assert not missing, missing


def test_every_module_class_and_function_a_doc_names_exists():
    missing = [f"{where} {name}" for where, name in _named(DOTTED) if not _resolves(name)]
    assert not missing, missing
