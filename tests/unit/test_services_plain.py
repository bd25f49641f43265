"""The dashboard's services are plain Python (issue 43): each takes the browser tab
(`dashboard.state.tab.Tab`: its `Session` and the process's `Server`) as its first argument, so
they run under plain pytest, with Streamlit not even importable, and serve any front end."""
import ast
import inspect
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SERVICES = sorted(p for p in (ROOT / "dashboard" / "services").glob("*.py") if p.stem != "__init__")

#: a use-case walk through the services, run where ``import streamlit`` fails
_WITHOUT_STREAMLIT = textwrap.dedent("""
    import importlib, json, sys
    sys.modules["streamlit"] = None          # any import of streamlit now raises ImportError
    from pathlib import Path
    for path in sorted(Path("dashboard/services").glob("*.py")):
        importlib.import_module(f"artifact_lens.dashboard.services.{path.stem}")
    from artifact_lens.dashboard.process.server import Server
    from artifact_lens.dashboard.services import current, reviews, run_view, team
    from artifact_lens.dashboard.state.session import Session
    from artifact_lens.dashboard.state.tab import Identity, Tab
    sys.path.insert(0, "tests")
    from service_tabs import score_demo

    tab = Tab(Session(), Server())
    me = team.resolve(tab, Identity())
    run = score_demo(tab, 240)
    tab.session.set_live(0.6, 100)
    live = run_view.live_result(tab, run)
    z = current.zstats(tab)
    team.set_guidelines(tab, "Remove what a hypothesis alone gives away.")
    run_id, first = run_view.team_run_id(tab, run), str(run.ids[0])
    reviews.review(tab, run_id, first, reviews.stamp(tab, run_id, first), "remove", "a hypothesis-only giveaway")
    lights = reviews.lights(tab, run_id, [str(i) for i in run.ids], live["retained"])
    print(json.dumps({"member": me.email, "role": me.role, "run": run.key == tab.session.run_key,
                      "retained": int(live["retained"].sum()), "n": len(run.ids), "features": len(z.table),
                      "guidelines": team.scope(tab).guidelines()["text"],
                      "lights": len(lights), "reviewed": str(lights[0]),
                      "streamlit": "streamlit" in sys.modules and sys.modules["streamlit"] is not None}))
    tab.server.finish_stop()
""")


def test_services_run_where_streamlit_cannot_be_imported(tmp_path):
    """Load, score, move τ/n, z-statistics, a team write and a review: every service module imports
    and this walk runs in a process where ``import streamlit`` raises."""
    import json
    import os

    env = dict(os.environ, ARTIFACT_LENS_CACHE=str(tmp_path / "cache"), ARTIFACT_LENS_MAP="pca",
               ARTIFACT_LENS_DB_URL=f"sqlite:///{tmp_path}/team.sqlite")
    done = subprocess.run([sys.executable, "-c", _WITHOUT_STREAMLIT], cwd=ROOT, env=env, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["member"] and found["role"] == "owner" and found["run"] and not found["streamlit"]
    assert 0 < found["retained"] <= found["n"] == 240 and found["features"] > 0
    assert found["guidelines"] == "Remove what a hypothesis alone gives away."
    assert found["lights"] == found["n"] and found["reviewed"] in ("green", "yellow")   # the review counts


def test_two_tabs_on_one_server_each_keep_their_own_view(service_tab):
    """The services hold no state of their own: a second tab on the same server sees nothing until it
    opens the run the first saved, and its live τ/n stay its own."""
    from artifact_lens.dashboard.services import current, pipelines, run_view, team
    from artifact_lens.dashboard.state.session import Session
    from artifact_lens.dashboard.state.tab import Identity, Tab
    from service_tabs import score_demo

    first = score_demo(service_tab, 200)
    assert first.key == service_tab.session.run_key

    other = Tab(Session(), service_tab.server)
    team.resolve(other, Identity())
    assert not other.session.ready and run_view.run(other) is None
    pipelines.open_team_run(other, first.key)
    assert run_view.run(other).key == first.key
    other.session.set_live(0.9, 50)
    assert (service_tab.session.tau, other.session.tau) == (pytest.approx(0.75), 0.9)
    assert run_view.live_values(other, first)[1] != run_view.live_values(service_tab, first)[1]


def _tab_less(path: Path) -> list:
    """Top-level functions of a service module that reach Streamlit's state without a tab."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("session", "server"):
            found.append(f"{path.name}:{node.lineno}: {node.func.id}()")
        if isinstance(node, ast.ImportFrom) and node.module in (
                "artifact_lens.dashboard.state.browser", "artifact_lens.dashboard.process.shared",
                "artifact_lens.dashboard.state.identity", "artifact_lens.dashboard.state.url"):
            found.append(f"{path.name}:{node.lineno}: imports {node.module}")
    return found


def test_no_service_finds_the_tab_by_itself():
    """A service is handed its tab; none calls ``session()``/``server()`` or imports where Streamlit keeps them."""
    assert not [hit for path in SERVICES for hit in _tab_less(path)]


@pytest.mark.parametrize("path", SERVICES, ids=lambda p: p.stem)
def test_every_service_that_reads_the_tab_takes_it_first(path):
    """Reflection over every public service function: one that reads ``tab`` names it as its first parameter."""
    import importlib

    module = importlib.import_module(f"artifact_lens.dashboard.services.{path.stem}")
    for name, fn in inspect.getmembers(module, inspect.isfunction):
        if fn.__module__ != module.__name__:
            continue
        params = list(inspect.signature(fn).parameters)
        if "tab" in params:
            assert params[0] == "tab", f"{path.stem}.{name}: tab must come first"
        else:
            assert "tab" not in fn.__code__.co_names, f"{path.stem}.{name} reads a global tab"
