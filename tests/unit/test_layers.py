"""The layers, read from the source (every import, function-local ones included): data flows one
way, core → dashboard → pages, with no circle anywhere, and pages lay out what services give them
instead of running the engine's algorithms."""
from __future__ import annotations

import ast
import re
from pathlib import Path

from imports import imported_module, repository_name

ROOT = Path(__file__).resolve().parents[2]
#: what widgets and pages may call in core: figures and what they show, errors, lights, escaping,
#: counts in words, and stable keys (a figure named by its inputs, so an unchanged one is not sent again)
PRESENTATION = ("core.plots", "core.aflite.summaries", "core.results.tables", "core.evaluation.plots",
                "core.evaluation.verdict", "core.exports.report", "core.base.errors", "core.base.lights",
                "core.base.escaping", "core.base.words", "core.base.keys")
#: third-party libraries each dashboard layer may import (the standard library is always allowed)
LIBRARIES = {"state": {"streamlit", "numpy", "pandas", "plotly"}, "services": {"numpy", "pandas", "plotly"},
             "widgets": {"streamlit", "numpy", "pandas", "plotly", "PIL"}, "pages": {"streamlit", "numpy", "pandas",
                                                                                  "plotly"}}
#: dashboard layers each layer may import ("tab state": the state a widget may read, not the process's)
DASHBOARD = {"state": {"tab state", "process state"}, "services": {"tab state", "process state", "services"},
             "widgets": {"tab state", "services", "widgets"}, "pages": {"tab state", "services", "widgets"}}


def _modules() -> dict:
    found = {}
    for path in [*ROOT.glob("core/**/*.py"), *ROOT.glob("dashboard/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]:
        if "migrations" in path.parts:
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name[: -len(".__init__")] if name.endswith(".__init__") else name] = path
    return found


MODULES = _modules()
#: the scripts Streamlit runs (app.py in a checkout, dashboard/app.py installed): a page's layer
ENTRY = {"app", "dashboard.app"}


def _imports(path: Path) -> list:
    """(module, names) of every import in the file, at any depth."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            out += [(repository_name(a.name), ()) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((imported_module(node, path), tuple(a.name for a in node.names)))
    return out


def _edges() -> dict:
    edges = {name: set() for name in MODULES}
    for name, path in MODULES.items():
        for module, names in _imports(path):
            # ``from . import sibling`` imports the module sibling, not what its package defines
            submodules = {f"{module}.{n}" for n in names} & MODULES.keys()
            targets = submodules | ({module} if len(submodules) < len(names) or not names else set())
            edges[name] |= {t for t in targets if t in MODULES and t != name}
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


#: the dashboard's packages and the layer each one is
PACKAGE_LAYERS = {"state": "tab state", "process": "process state", "services": "services", "widgets": "widgets"}


def _layer_of(module: str):
    """The layer of a dashboard module or package (``dashboard.services.current`` → services),
    read from its package; None outside the four."""
    parts = module.split(".")
    return PACKAGE_LAYERS.get(parts[1]) if parts[0] == "dashboard" and len(parts) > 1 else None


def _documented_layers() -> dict:
    """dashboard module (its file's stem) → its layer, as the layer table of docs/architecture.md says."""
    found = {}
    for line in (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8").splitlines():
        row = re.match(r"\| `dashboard/([a-z]+)/` \| (.*?) \|[^|]*\|$", line)
        if row and row.group(1) in PACKAGE_LAYERS:
            found.update({m: PACKAGE_LAYERS[row.group(1)] for m in re.findall(r"`([a-z_]+)\.py`", row.group(2))})
    return found


def _plain(value, depth: int = 0) -> bool:
    """Data a person reads, nothing that runs: numbers, text, and tuples, lists, sets, mappings and
    frozen dataclasses of them (issue 54: a registry of callables passed as "vocabulary")."""
    import dataclasses

    if depth > 6:
        return False
    if value is None or isinstance(value, (bool, int, float, str, bytes)):
        return True
    if isinstance(value, (tuple, list, set, frozenset)):
        return all(_plain(v, depth + 1) for v in value)
    if isinstance(value, dict):
        return all(_plain(k, depth + 1) and _plain(v, depth + 1) for k, v in value.items())
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return all(_plain(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    return False


def _vocabulary(module: str, names) -> bool:
    """Whether ``from module import names`` takes only what a widget or page may: a presentation
    module, or a package's vocabulary (UPPER_CASE names holding plain data, and exception classes)."""
    import importlib

    if any(module == p or module.startswith(p + ".") for p in PRESENTATION):
        return True
    if not names:
        return False
    found = importlib.import_module(module)
    for n in names:
        value = getattr(found, n, None)
        sub = f"{module}.{n}"
        if not ((n.isupper() and _plain(value)) or (isinstance(value, type) and issubclass(value, BaseException))
                or any(sub == p or sub.startswith(p + ".") for p in PRESENTATION)):
            return False
    return True


def _dashboard_trespasses(modules: dict) -> list:
    import sys

    broken = []
    for name, path in modules.items():
        if name.startswith("pages.") or name in ENTRY:
            layer = "pages"
        elif name.startswith("dashboard."):
            layer = _layer_of(name)
            layer = {"tab state": "state", "process state": "state"}.get(layer, layer)
        else:
            continue
        for module, names in _imports(path):
            top = module.split(".")[0]
            if name in ENTRY and module in ENTRY:   # app.py runs the installed script, dashboard/app.py
                continue
            if top == "dashboard":
                target = _layer_of(module)
                if target not in DASHBOARD[layer]:
                    broken.append((name, module))
            elif top == "core":
                if layer in ("widgets", "pages") and not _vocabulary(module, names):
                    broken.append((name, module, names))
                elif module == "core.cli" or module.startswith("core.cli."):   # a front end, never a layer's
                    broken.append((name, module))
            elif top not in sys.stdlib_module_names and top not in LIBRARIES[layer]:
                broken.append((name, module))
    return broken


def test_every_dashboard_module_is_in_a_layers_package_and_the_doc():
    """The dashboard's layers are its folders: no module outside the four packages, and the layer
    table of docs/architecture.md names each one in its package's row."""
    loose = sorted(str(p.relative_to(ROOT)) for p in ROOT.glob("dashboard/**/*.py")
                   if p.parent.name not in PACKAGE_LAYERS
                   and p not in (ROOT / "dashboard" / "__init__.py", ROOT / "dashboard" / "app.py"))
    assert not loose, f"put these in dashboard/state, process, services or widgets: {loose}"
    documented = _documented_layers()
    actual = {p.stem: PACKAGE_LAYERS[p.parent.name] for p in ROOT.glob("dashboard/*/*.py") if p.stem != "__init__"}
    assert documented == actual, {m: (documented.get(m), actual.get(m)) for m in set(documented) | set(actual)
                                  if documented.get(m) != actual.get(m)}


def test_each_dashboard_layer_imports_only_what_it_may():
    """Deny by default: state → services (no streamlit; the only code that reaches the store, core's
    computations, jobs) → widgets (streamlit; services, the tab's state) → pages (layout only);
    widgets and pages take from artifact_lens only figures, errors and vocabulary."""
    assert not (broken := _dashboard_trespasses(MODULES)), broken


def test_the_dashboard_rule_sees_a_trespass(tmp_path):
    """A guard on the guard: a service drawing, a widget computing or reaching the server, and a
    page calling an algorithm are each found; a widget catching a core error is not."""
    cases = {"dashboard.services.current": "import streamlit as st\n",
             "dashboard.widgets.sidebar": "from artifact_lens.dashboard.process.server import server\n",
             "dashboard.widgets.knobs": "from artifact_lens.results.runs import fit_run\n",
             "pages.x": "def f():\n    from artifact_lens.zstats import compute_z\n",
             "dashboard.widgets.map_view": "from artifact_lens.base.errors import InputError\nfrom core.quality import COMPONENTS\n"
                                   "from artifact_lens.team.store import NotAllowed\nfrom core.aflite.knobs import KNOBS\n",
             # an UPPER_CASE registry of callables is not vocabulary (issue 54's loophole)
             "dashboard.widgets.formatting": "from artifact_lens.models import FAMILIES\n",
             # the CLI is a front end: a service never calls it (issue 54's loophole)
             "dashboard.services.pairs": "from artifact_lens.cli.common import load_from_args\n"}
    files = {}
    for i, (name, text) in enumerate(cases.items()):
        (tmp_path / f"m{i}.py").write_text(text)
        files[name] = tmp_path / f"m{i}.py"
    found = {b[0] for b in _dashboard_trespasses(files)}
    assert found == {"dashboard.services.current", "dashboard.widgets.sidebar", "dashboard.widgets.knobs", "pages.x",
                     "dashboard.widgets.formatting", "dashboard.services.pairs"}, found


def test_pages_and_widgets_reach_the_server_only_through_services():
    """No page or widget reads the tab's ``.server`` (the team store, the caches, the jobs): they hand
    the tab to services, and the team store is reached through `dashboard.services.team.scope(tab)`,
    which binds the workspace and the member."""
    for name, path in MODULES.items():
        if name.startswith(("pages", "dashboard.widgets")) or name in ENTRY:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Attribute) and node.attr in ("server", "team") and not (
                        isinstance(node.value, ast.Name) and node.value.id == "team"):   # the `team` service module
                    raise AssertionError(f"{name} line {node.lineno}: .{node.attr}; ask a service (team.scope(tab))")


def test_pages_and_widgets_hold_a_handle_that_only_reads():
    """Issue 54: `dashboard.services.team.scope` gave pages and widgets the read-write handle of the
    team store. They call `dashboard.services.team.view` (it refuses writes); every write goes
    through a service."""
    for name, path in MODULES.items():
        if name.startswith(("pages", "dashboard.widgets")) or name in ENTRY:
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.Call):
                    f = node.func
                    called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                    assert called != "scope", f"{name} line {node.lineno}: scope(); give the page team.view(tab)"


def test_no_product_module_imports_by_a_name_it_computes():
    """``importlib.import_module`` and ``__import__`` hide an import from every rule above (issue 54:
    `core/results/files.py` loaded zstats classes its package may not import): the product imports
    by ``import`` statements only (a package's version through ``importlib.metadata`` is no import)."""
    found = []
    for name, path in MODULES.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call):
                f = node.func
                called = f.attr if isinstance(f, ast.Attribute) else f.id if isinstance(f, ast.Name) else ""
                if called in ("import_module", "__import__"):
                    found.append(f"{name}:{node.lineno}")
    assert not found, found


def test_the_lights_are_defined_once():
    """Every light's emoji and colour come from `core/base/lights.py` (they were defined five times)."""
    for name, path in MODULES.items():
        text = path.read_text(encoding="utf-8")
        if name != "core.base.lights":
            assert "🟢" not in text and "#2e9e44" not in text, name


def _packages() -> dict:
    """core's packages (``core.aflite`` …) → the packages their docstring's "May import:" line allows."""
    rules = {}
    for init in sorted(ROOT.glob("core/*/__init__.py")):
        doc = ast.get_docstring(ast.parse(init.read_text(encoding="utf-8"))) or ""
        line = re.search(r"^May import: (.*?)(?:\n\n|\Z)", doc, flags=re.M | re.S)
        assert line, f"{init.relative_to(ROOT)}: the docstring says what the package holds and ends with 'May import: …'"
        allowed = set(re.findall(r"\bcore\.[a-z_]+", line.group(1)))
        rules["core." + init.parent.name] = "every" if line.group(1).startswith("every package") else allowed
    return rules


def _package_of(module: str):
    parts = module.split(".")
    return ".".join(parts[:2]) if parts[0] == "core" and len(parts) > 1 else None


def _trespasses(modules: dict, rules: dict) -> list:
    """(module, package) for every import of another core package that ``rules`` do not allow."""
    broken = []
    for name, path in modules.items():
        own = _package_of(name)
        if own not in rules or rules[own] == "every":
            continue
        for module, names in _imports(path):
            targets = {_package_of(module)} if module != "core" else {f"core.{n}" for n in names}
            broken += [(name, t) for t in targets if t and t != own and t in rules and t not in rules[own]]
    return broken


def test_each_core_package_imports_only_what_its_docstring_allows():
    """Deny by default: a package's modules import other core packages only where the package's
    docstring allows it, so the doc and the code cannot drift apart; no module of core sits outside
    a package (each idea has one home)."""
    rules = _packages()
    loose = [n for n, path in MODULES.items() if n.startswith("core.") and _package_of(n) not in rules
             and path.name != "__main__.py"]
    assert not loose, f"modules outside a domain package: {loose}"
    assert not (broken := _trespasses(MODULES, rules)), broken


def test_the_packages_stack_without_a_circle():
    """The "May import" lines themselves form no circle: the packages stack bottom-up."""
    rules = {p: (set(r) if r != "every" else set()) for p, r in _packages().items()}
    assert _circles({p: {t for t in r if t in rules} for p, r in rules.items()}) == []


def test_the_package_rule_sees_a_trespass(tmp_path):
    """A guard on the guard: an import the docstring does not allow is found (at any depth, in
    any form), and an allowed one is not."""
    rules = _packages()
    (tmp_path / "bad.py").write_text("def f():\n    from artifact_lens import dynamics\n    import artifact_lens.results.runs\n")
    (tmp_path / "good.py").write_text("from artifact_lens.base.errors import InputError\nfrom core.data import labels\n")
    assert _trespasses({"core.base.bad": tmp_path / "bad.py"}, rules) == [("core.base.bad", "core.dynamics"),
                                                                           ("core.base.bad", "core.results")]
    assert _trespasses({"core.text.good": tmp_path / "good.py"}, rules) == []


def test_the_check_sees_a_circle():
    """The circle finder finds one when there is one (a guard on the guard)."""
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_every_package_is_installed():
    """A new package under core/ is listed in pyproject.toml under the installed name (a non-editable
    install would leave it out otherwise), and nothing installs as a generic top-level name."""
    import tomllib

    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert setup["package-dir"] == {"artifact_lens": "core", "artifact_lens.dashboard": "dashboard",
                                    "artifact_lens.pages": "pages", "artifact_lens.assets": "assets",
                                    "artifact_lens.docs": "docs"}
    listed = set(setup["packages"])
    found = {".".join(("artifact_lens",) + p.parent.relative_to(ROOT / "core").parts)
             for p in ROOT.glob("core/**/__init__.py")}
    found |= {".".join(("artifact_lens",) + p.parent.relative_to(ROOT).parts) for p in ROOT.glob("dashboard/**/__init__.py")}
    found |= {"artifact_lens.pages", "artifact_lens.assets", "artifact_lens.docs"}
    assert found == listed, (found - listed, listed - found)


def test_core_imports_itself_relatively():
    """No module under core/ names ``core`` in an import (installed, the package is artifact_lens, and
    ``import core`` would fail there or find someone else's package)."""
    found = []
    for path in ROOT.glob("core/**/*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module] if isinstance(node, ast.ImportFrom) and not node.level else [])
            if any(n and n.split(".")[0] in ("core", "dashboard") for n in names):
                found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert not found, f"import relatively (from ..base import keys): {found}"


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


def _job_submissions(path: Path) -> list:
    """Lines of ``path`` that start background work themselves (``<x>.jobs.submit(...)``)."""
    return [node.lineno for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "submit"
            and ((isinstance(node.func.value, ast.Attribute) and node.func.value.attr == "jobs")
                 or (isinstance(node.func.value, ast.Name) and node.func.value.id == "jobs"))]


def test_every_background_job_is_started_by_the_one_helper():
    """Issue 33: services start work through `dashboard.services.cached_jobs.start` (issue 54: the one
    way, for every kind), which names the job by a typed `JobKey`; no other module of the front end
    reaches the runner's submit."""
    helper = MODULES["dashboard.services.cached_jobs"]
    elsewhere = {name: lines for name, path in MODULES.items() if not name.startswith("core.") and path != helper
                 for lines in [_job_submissions(path)] if lines}
    assert not elsewhere, f"start jobs through dashboard.services.cached_jobs.start instead: {elsewhere}"
    assert _job_submissions(helper), "the helper itself submits (else this test reads nothing)"


def test_a_job_named_by_a_bare_string_is_refused():
    import pytest

    from artifact_lens.dashboard.services.cached_jobs import _submit   # what `start` names every job through

    with pytest.raises(TypeError, match="JobKey"):
        _submit(None, "run:abc", lambda ctx: None, name="x")


def test_no_page_has_a_bare_value_streamlit_would_write_out():
    """Streamlit's magic writes out every bare expression of a script that is not a call (issue 64:
    ``a() if x else b()`` printed "None" under the option cue table); a page says what it means."""
    import ast

    for path in [*ROOT.glob("pages/*.py"), ROOT / "app.py", ROOT / "dashboard" / "app.py"]:
        if not path.exists():
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            blocks = [getattr(node, f, None) for f in ("body", "orelse", "finalbody")]
            for i, statement in (pair for block in blocks if isinstance(block, list) for pair in enumerate(block)):
                if not isinstance(statement, ast.Expr) or isinstance(statement.value, (ast.Call, ast.Await)):
                    continue
                docstring = i == 0 and isinstance(statement.value, ast.Constant) and isinstance(statement.value.value, str)
                assert docstring, f"{path.name}:{statement.lineno}: {ast.unparse(statement)[:80]}"
