"""One use case, one function (issue 43): the CLI and the dashboard call the application layer
(`core.usecases`), never assemble a use case themselves. Read by reflection over the source, so a
new command, service or kernel is held to it the day it is written:

- no front-end module (the CLI, the dashboard, the pages) imports a kernel a use case owns;
- each command and service `core.usecases.registry.USE_CASES` names reaches its use case's
  function (through the front end's own helpers);
- every CLI command and every dashboard action (a service that checks a role or writes to the team
  store) is named there: a use case of one kernel names that kernel (issue 54: no exemption table)."""
import ast
from pathlib import Path

import pytest
from imports import imported_module, repository_name

from artifact_lens.cli.parser import build_parser
from artifact_lens.usecases.registry import USE_CASES

ROOT = Path(__file__).resolve().parents[2]


def _front_ends() -> dict:
    found = {}
    for path in [*ROOT.glob("core/cli/*.py"), *ROOT.glob("dashboard/**/*.py"), *ROOT.glob("pages/*.py"), ROOT / "app.py"]:
        found[".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")] = path
    return found


class _Module:
    """A module's functions and what each name it uses stands for (dotted)."""

    def __init__(self, name: str, path: Path):
        self.name, self.path, self.tree = name, path, ast.parse(path.read_text(encoding="utf-8"))
        self.aliases, self.functions = {}, {}
        for node in ast.walk(self.tree):
            if isinstance(node, ast.Import):
                for a in node.names:
                    name_ = repository_name(a.name)
                    self.aliases[a.asname or a.name.split(".")[0]] = name_ if a.asname else a.name.split(".")[0]
            elif isinstance(node, ast.ImportFrom):
                for a in node.names:
                    self.aliases[a.asname or a.name] = f"{imported_module(node, path)}.{a.name}"
        for node in self.tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self.functions[node.name] = node
                self.aliases.setdefault(node.name, f"{name}.{node.name}")

    def dotted(self, node) -> str:
        """What a Name or an attribute chain stands for (``manifests.manifest_for`` ->
        ``core.exports.manifest.manifest_for``); "" when it is not a name."""
        if isinstance(node, ast.Name):
            return self.aliases.get(node.id, "")
        if isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            return f"{base}.{node.attr}" if base else f"?.{node.attr}"   # ?.x: an attribute of a value (scope().x)
        return ""

    def calls(self, node) -> set:
        """The dotted names ``node`` calls, or hands to a call to be called (``act(ws.discard_run, key)``)."""
        found = set()
        for n in ast.walk(node):
            if isinstance(n, ast.Call):
                found |= {d for f in [n.func, *(a for a in n.args if isinstance(a, ast.Attribute))] if (d := self.dotted(f))}
        return found

    def uses(self, node) -> set:
        """The dotted names ``node`` uses, its imports included."""
        found = {d for n in ast.walk(node) if (d := self.dotted(n))}
        return found | {f"{imported_module(n, self.path)}.{a.name}" for n in ast.walk(node)
                        if isinstance(n, ast.ImportFrom) for a in n.names}


MODULES = {name: _Module(name, path) for name, path in _front_ends().items()}


def _reaches(qualified: str) -> set:
    """Every dotted name a front-end function uses, itself or through front-end functions it calls."""
    seen, todo, used = set(), [qualified], set()
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        module, _, fn = name.rpartition(".")
        node = MODULES[module].functions.get(fn) if module in MODULES else None
        if node is None:
            continue
        found = MODULES[module].uses(node)
        used |= found
        todo += [d for d in found if d.rpartition(".")[0] in MODULES]
    return used


def _calls(used: set, function: str) -> bool:
    """Whether ``used`` holds ``function`` (a store method: any ``.method`` on a member's handle)."""
    if function.startswith("core.team.store.TeamStore."):
        return any(u.endswith("." + function.rsplit(".", 1)[1]) for u in used)
    return function in used or any(u.endswith("." + function.rsplit(".", 1)[1]) and u.startswith(
        function.rsplit(".", 2)[0]) for u in used)


def _commands() -> dict:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    return {name: repository_name(f"{p.get_default('func').__module__}.{p.get_default('func').__name__}")
            for name, p in sub.choices.items()}


def _trespasses(modules: dict) -> list:
    owned = {k: u.name for u in USE_CASES for k in u.owns}
    return sorted((name, d) for name, m in modules.items() for d in m.uses(m.tree) if d in owned)


def test_no_front_end_imports_a_kernel_a_use_case_owns():
    assert not (found := _trespasses(MODULES)), f"front ends assembling a use case themselves: {found}"


def test_the_guard_sees_a_front_end_assembling_a_use_case(tmp_path):
    """A guard on the guard: each form of import of an owned kernel is found."""
    (tmp_path / "bad.py").write_text("from artifact_lens.exports import manifest as m\nimport core.certificate.measures\n"
                                     "def f(run):\n    m.manifest_for(run)\n    core.certificate.measures.certify(1)\n"
                                     "    from artifact_lens.team.run_agreement import team_agreement\n")
    (tmp_path / "good.py").write_text("from artifact_lens.usecases.exports import export_split\n")
    found = _trespasses({"x.bad": _Module("x.bad", tmp_path / "bad.py"), "x.good": _Module("x.good", tmp_path / "good.py")})
    assert {d for _, d in found} == {"core.exports.manifest.manifest_for", "core.certificate.measures.certify",
                                     "core.team.run_agreement.team_agreement"}


@pytest.mark.parametrize("case", USE_CASES, ids=lambda u: u.name)
def test_each_front_end_named_for_a_use_case_calls_it(case):
    commands = _commands()
    callers = [commands[c] for c in case.cli] + list(case.dashboard)
    assert callers, f"{case.name}: no front end calls it"
    for caller in callers:
        used = _reaches(caller)
        assert used, f"{caller} is not a function of a front end"
        assert any(_calls(used, f) for f in case.functions), f"{caller} does not call {case.name}: {case.functions}"


def test_every_command_is_a_use_case():
    """A new command is named in `USE_CASES` the day it is written (issue 54: no table of exemptions),
    and `test_each_front_end_named_for_a_use_case_calls_it` checks that it calls it."""
    commands = _commands()
    in_cases = {c for u in USE_CASES for c in u.cli}
    missing = set(commands) - in_cases
    assert not missing, f"add these commands to a use case (core/usecases/registry.py): {missing}"


def _store_call(used: str, writers: set) -> bool:
    """Whether a dotted use is a call of a store writer: on a member's handle (``scope().x``,
    ``ws.x``) or on the server's store (``server().team.x``)."""
    parts = used.split(".")
    return parts[-1] in writers and (parts[:-1] == ["?"] or parts[:-1] == ["?", "team"])


def _actions() -> set:
    """Dashboard services that act: check a role, or call a writer of the team store."""
    from test_store_scope import _public_methods, _writes

    writers = {name for name, fn in _public_methods().items() if _writes(fn)}
    found = set()
    for name, m in MODULES.items():
        if not name.startswith("dashboard."):
            continue
        for fn, node in m.functions.items():
            if not fn.startswith("_") and any(u.endswith(".require") or _store_call(u, writers) for u in m.calls(node)):
                found.add(f"{name}.{fn}")
    return found


def test_every_dashboard_action_is_a_use_case():
    acting = _actions()
    assert {"dashboard.services.creation.submit", "dashboard.services.reviews.review", "dashboard.services.certificates.start"} <= acting
    named = {s for u in USE_CASES for s in u.dashboard}
    assert not (missing := acting - named), \
        f"add these dashboard actions to a use case (core/usecases/registry.py): {sorted(missing)}"


def _writes_from_layout(modules: dict, writers: set) -> list:
    """(module, call) for every store write a widget, a page or app.py makes itself."""
    from test_layers import _layer_of

    laying_out = [n for n in modules if n.startswith("pages.") or n == "app" or _layer_of(n) == "widgets"]
    return sorted((n, u) for n in laying_out for u in modules[n].calls(modules[n].tree) if _store_call(u, writers))


def test_no_widget_or_page_writes_to_the_team_store(tmp_path):
    """Every store write from the dashboard goes through a service (issue 43, item 3): a widget or a
    page lays out and calls services; a guard on the guard sees a widget that writes."""
    from test_store_scope import _public_methods, _writes

    writers = {name for name, fn in _public_methods().items() if _writes(fn)}
    assert not (found := _writes_from_layout(MODULES, writers)), found
    (tmp_path / "w.py").write_text("def f(ws):\n    ws.set_role('a@x.org', 'owner')\n    scope().save_view(1, 'v', 0.5, 3)\n"
                                   "    act(ws.discard_run, 'k')\n")
    bad = {"dashboard.widgets.job_panel": _Module("dashboard.widgets.job_panel", tmp_path / "w.py")}
    assert [u for _, u in _writes_from_layout(bad, writers)] == ["?.discard_run", "?.save_view", "?.set_role"]
