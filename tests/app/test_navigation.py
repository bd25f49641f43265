"""Every page file is registered, and every page starts the way the dashboard expects."""
import ast
from pathlib import Path

from artifact_lens.dashboard.services.navigation import PAGES

ROOT = Path(__file__).resolve().parents[2]


def test_every_page_file_is_registered():
    files = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))
    assert files == sorted(path for path, _, _ in PAGES), \
        "add the page to dashboard/services/navigation.py (and an AppTest), or remove the file"


def test_every_page_starts_with_start_page():
    for path, title, _ in PAGES:
        tree = ast.parse((ROOT / path).read_text())
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and getattr(n.func, "id", "") == "start_page"]
        assert len(calls) == 1, f"{path} must call start_page once"
        assert calls[0].args and calls[0].args[0].value == title, f"{path}: start_page({title!r})"
        docstring = (lambda s: isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))
        first_statement = next(s for s in tree.body if not (docstring(s) or isinstance(s, (ast.Import, ast.ImportFrom))))
        assert calls[0] in list(ast.walk(first_statement)), f"{path}: start_page must come before anything else"
