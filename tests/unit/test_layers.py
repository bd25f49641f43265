"""The layers, read from the source (every import, function-local ones included): data flows one
way, core → dashboard → pages, with no circle anywhere, and pages lay out what services give them
instead of running the engine's algorithms."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
#: modules that compute (a page may take their vocabulary, UPPER_CASE names, but call none of them)
ALGORITHMS = ("core.aflite", "core.zstats", "core.evaluation", "core.quality", "core.representations",
              "core.projection", "core.runs", "core.features")
#: figure, report and verdict builders inside those packages: what pages draw and say
PRESENTATION = ("core.evaluation.plots", "core.evaluation.report", "core.evaluation.verdict")


def _modules() -> dict:
    found = {}
    for path in [*ROOT.glob("core/**/*.py"), *ROOT.glob("dashboard/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]:
        if "migrations" in path.parts:
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name[: -len(".__init__")] if name.endswith(".__init__") else name] = path
    return found


MODULES = _modules()


def _imports(path: Path) -> list:
    """(module, names) of every import in the file, at any depth."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(a.name, ()) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.module, tuple(a.name for a in node.names)))
    return out


def _edges() -> dict:
    edges = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for module, names in _imports(path):
            for target in (module, *(f"{module}.{n}" for n in names)):
                if target in MODULES and target != name:
                    edges[name].add(target)
    return edges


def _circles(edges: dict) -> list:
    """Strongly connected groups of more than one module (Tarjan)."""
    index, low, stack, on, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v), on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(edges):
        if v not in index:
            visit(v)
    return found


def test_no_import_circle_in_core_dashboard_or_pages():
    assert _circles(_edges()) == []


def test_imports_run_one_way():
    """core never imports streamlit, the dashboard or a page; the dashboard never imports a page."""
    for name, path in MODULES.items():
        for module, _ in _imports(path):
            top = module.split(".")[0]
            if name.startswith("core"):
                assert top not in ("streamlit", "dashboard", "pages"), (name, module)
            if name.startswith("dashboard"):
                assert top != "pages", (name, module)


def test_pages_call_no_algorithm():
    """A page may name an algorithm's vocabulary (FAMILIES, COMPONENTS…) but not call one: the
    work goes through dashboard services and jobs."""
    for name, path in MODULES.items():
        if not name.startswith("pages"):
            continue
        for module, names in _imports(path):
            if module not in PRESENTATION and any(module == a or module.startswith(a + ".") for a in ALGORITHMS):
                assert names and all(n.isupper() for n in names), (name, module, names)


def test_pages_reach_the_team_store_only_through_the_members_handle():
    """No page calls ``server().team`` (or names a workspace id and ``by=`` itself): pages use
    `dashboard.team.scope()`, which binds both."""
    for name, path in MODULES.items():
        if name.startswith("pages"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute) and node.attr == "team" and isinstance(node.value, ast.Call):
                    raise AssertionError(f"{name} line {node.lineno}: server().team; use dashboard.team.scope()")


def test_the_lights_are_defined_once():
    """Every light's emoji and colour come from `core/lights.py` (they were defined five times)."""
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if name != "core.lights":
            assert "🟢" not in text and "#2e9e44" not in text, name


def test_the_check_sees_a_circle():
    """The circle finder finds one when there is one (a guard on the guard)."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_every_package_is_installed():
    """A new package under core/ or dashboard/ is listed in pyproject.toml (a non-editable
    install would leave it out otherwise)."""
    import tomllib

    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = {".".join(p.parent.relative_to(ROOT).parts) for p in [*ROOT.glob("core/**/__init__.py"),
                                                                   *ROOT.glob("dashboard/__init__.py")]}
    assert found <= listed, found - listed


def test_no_module_of_the_engine_outgrows_one_concern():
    """A module past ~600 lines holds several concerns (issue 24): split it into a package."""
    long = {name: n for name, path in MODULES.items() if name.startswith("core")
            and (n := len(path.read_text(encoding="utf-8").splitlines())) > 600}
    assert not long, long


def test_pages_only_lay_out():
    """A page lays out widgets and figures (~120 lines at most, issue 24): logic and long forms live
    in dashboard modules, where they can be tested and shared."""
    long = {path.name: n for path in ROOT.glob("pages/*.py")
            if (n := len(path.read_text(encoding="utf-8").splitlines())) > 120}
    assert not long, f"pages over 120 lines: {long}"
