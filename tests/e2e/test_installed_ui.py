"""Issue 56, item 1: the dashboard from ``pip install``. A wheel built from this checkout is installed
into a fresh virtual environment outside it; from a folder that holds no checkout, that
environment's ``artifact-lens`` certifies and checks the demo, and ``artifact-lens ui`` serves every
page of the dashboard to a real browser.

The environment sees the system's packages (the wheel's dependencies: the tests run offline) but
installs the wheel itself, which comes first on its path: what it imports is the installed copy,
checked by file location. ``--ignore-installed``, because the system may hold this project already
(an editable install of the checkout, as CI has): pip would call that satisfied and install nothing."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, AppServer, _require_browser
from scale import patience
from steps import go, wait_idle

from artifact_lens.dashboard.services.navigation import PAGES

#: what pyproject.toml installs: the build reads these and nothing else (its package folders, read from it)
SOURCES = ("pyproject.toml", "README.md",
           *__import__("tomllib").loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].values())


@pytest.fixture(scope="module")
def venv(tmp_path_factory) -> Path:
    """A fresh virtual environment with the wheel of this checkout installed (no checkout on its path)."""
    src = tmp_path_factory.mktemp("src")
    for name in SOURCES:
        copy = shutil.copytree if (ROOT / name).is_dir() else shutil.copy
        copy(ROOT / name, src / name, **({"ignore": shutil.ignore_patterns("__pycache__")} if copy is shutil.copytree
                                         else {}))
    dist = tmp_path_factory.mktemp("dist")
    built = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w",
                            str(dist), str(src)], capture_output=True, text=True, timeout=patience(600))
    assert built.returncode == 0, built.stderr[-3000:]
    (wheel,) = dist.glob("artifact_lens-*.whl")
    env = tmp_path_factory.mktemp("venv") / "env"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(env)], check=True,
                   timeout=patience(300))
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"), "install", "-q",
                           "--no-deps", "--no-index", "--ignore-installed", str(wheel)], capture_output=True, text=True,
                          timeout=patience(600))
    assert done.returncode == 0, done.stderr[-3000:]
    return env


def _env(folder: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return dict(env, ARTIFACT_LENS_CACHE=str(folder / "cache"), HF_HUB_OFFLINE="1")


def test_the_installed_package_holds_the_dashboard_and_its_commands_run(venv, tmp_path):
    where = subprocess.run(
        [str(venv / "bin" / "python"), "-c",
         "import json, artifact_lens, artifact_lens.dashboard.app as app, streamlit;"
         "print(json.dumps([artifact_lens.__file__, app.__file__]))"],
        cwd=tmp_path, env=_env(tmp_path), capture_output=True, text=True, timeout=patience(300))
    assert where.returncode == 0, where.stderr[-3000:]
    for file in json.loads(where.stdout):
        assert Path(file).resolve().is_relative_to(venv.resolve()), file
    tool = str(venv / "bin" / "artifact-lens")
    shown = subprocess.run([tool, "ui", "--print-command"], cwd=tmp_path, env=_env(tmp_path), capture_output=True,
                           text=True, timeout=patience(300))
    assert shown.returncode == 0, shown.stderr
    script = next(a for a in shown.stdout.split() if a.endswith("app.py"))
    assert Path(script).resolve().is_relative_to(venv.resolve()) and "streamlit run" in shown.stdout
    certified = subprocess.run([tool, "-q", "certify", "demo:nli:n=400", "--out", "c.json"], cwd=tmp_path,
                               env=_env(tmp_path), capture_output=True, text=True, timeout=patience(600))
    assert certified.returncode == 0, certified.stderr[-3000:]
    checked = subprocess.run([tool, "-q", "check", "c.json", "c.json"], cwd=tmp_path,
                             env=_env(tmp_path), capture_output=True, text=True, timeout=patience(300))
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_artifact_lens_ui_serves_every_page_from_the_installed_package(venv, tmp_path, browser):
    _require_browser()
    from playwright.sync_api import expect

    home = tmp_path / "anywhere"   # not the checkout: the pages and assets must come from the package
    home.mkdir()
    app = AppServer(tmp_path, cwd=home, env={"PYTHONPATH": ""},
                    command=lambda port: [str(venv / "bin" / "artifact-lens"), "ui", "--headless", "--port",
                                          str(port), "--address", "127.0.0.1"]).start(timeout=patience(180))
    try:
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        page = context.new_page()
        bound = patience(180) * 1000
        page.set_default_timeout(bound)
        expect.set_options(timeout=bound)
        page.goto(app.url)
        page.wait_for_selector("h1:has-text('Data')")
        wait_idle(page)
        for _, title, _ in PAGES:
            go(page, title)
            assert page.locator('[data-testid="stException"]').count() == 0, (title, app.log_tail())
        context.close()
    finally:
        app.stop()
    assert "Traceback" not in app.log_tail(20_000), app.log_tail()
