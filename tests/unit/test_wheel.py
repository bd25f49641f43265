"""Issue 43, item 6: what ``pip install`` puts in site-packages is the project's own name. A wheel
built from this checkout holds ``artifact_lens`` and its metadata only (no top-level ``core`` or
``dashboard`` to shadow another package's), and, unpacked where no checkout is on the path, it
imports, runs its command, migrates a team store (alembic's env.py run by path) and reads back a
result file a checkout wrote."""
from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    """A wheel built from a copy of what the build reads (pip builds in place; the checkout is left
    as it is)."""
    src = tmp_path_factory.mktemp("src")
    shutil.copy(ROOT / "pyproject.toml", src)
    shutil.copy(ROOT / "README.md", src)
    import tomllib

    for folder in tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-dir"].values():
        shutil.copytree(ROOT / folder, src / folder, ignore=shutil.ignore_patterns("__pycache__"))
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                           "-w", str(out), str(src)], capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    (found,) = out.glob("artifact_lens-*.whl")
    return found


@pytest.fixture(scope="module")
def site(wheel, tmp_path_factory) -> Path:
    """The wheel unpacked, as pip installs a pure-Python wheel."""
    where = tmp_path_factory.mktemp("site")
    with zipfile.ZipFile(wheel) as z:
        z.extractall(where)
    return where


def _python(site: Path, cwd: Path, code: str, *args: str) -> subprocess.CompletedProcess:
    """A fresh Python with the unpacked wheel first on its path and no checkout on it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PYTHONPATH"] = str(site)
    env["ARTIFACT_LENS_CACHE"] = str(cwd / "cache")
    return subprocess.run([sys.executable, "-c", code, *args], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600)


def test_the_wheel_claims_only_the_projects_name(wheel):
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
        scripts = z.read(entry_points).decode()
    top = {n.split("/")[0] for n in names}
    assert top == {"artifact_lens", wheel.name.split("-")[0] + "-" + wheel.name.split("-")[1] + ".dist-info"}, top
    # the files the package reads at run time travel with it
    assert "artifact_lens/certificate/certificate.schema.json" in names
    assert "artifact_lens/team/store/migrations/script.py.mako" in names
    assert "artifact_lens/team/store/migrations/env.py" in names
    # the dashboard beside the library, with its pages, logo and Streamlit settings
    assert {"artifact_lens/dashboard/app.py", "artifact_lens/dashboard/services/navigation.py",
            "artifact_lens/assets/logo.svg", "artifact_lens/assets/streamlit-config.toml"} <= set(names)
    assert {f"artifact_lens/{p.relative_to(ROOT).as_posix()}" for p in ROOT.glob("pages/*.py")} <= set(names)
    assert "artifact-lens = artifact_lens.cli:main" in scripts
    # the documentation the README and the app point to (issue 63, item 14), with the README's screenshot
    assert {f"artifact_lens/{p.relative_to(ROOT).as_posix()}" for p in ROOT.glob("docs/*.md")} <= set(names)
    shot = __import__("re").search(r"\]\((docs/screenshots/[^)]+)\)", (ROOT / "README.md").read_text()).group(1)
    assert f"artifact_lens/{shot}" in names


def test_the_installed_package_works_without_a_checkout(site, tmp_path):
    code = """
import json, sys
import artifact_lens
from artifact_lens.cli import main
import importlib.util
generic = [name for name in ("core", "dashboard", "pages") if importlib.util.find_spec(name) is not None]
print(json.dumps({"file": artifact_lens.__file__, "generic": generic}))
sys.exit(main(["info", "demo:nli:n=300"]))
"""
    proc = _python(site, tmp_path, code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    first = json.loads(proc.stdout.splitlines()[0])
    assert Path(first["file"]).resolve().is_relative_to(site.resolve())
    assert first["generic"] == []
    assert "300" in proc.stdout   # the demo's rows, as `info` reports them


def test_every_page_the_readme_names_opens_from_the_installed_package(site, tmp_path):
    """Issue 63, item 14: the README's and the app's "docs/hosting.md" named files a pip user does not
    have. Each page the README links to prints from the installed package (`artifact-lens docs PAGE`)."""
    import re

    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    linked = sorted(set(re.findall(r"\]\(docs/([a-z-]+)\.md[)#]", readme)))
    commands = sorted(set(re.findall(r"`artifact-lens docs ([a-z-]+)`", readme)))
    assert linked and set(linked) <= set(commands), (linked, commands)
    for name in linked:
        proc = _python(site, tmp_path, "import sys; from artifact_lens.cli import main; sys.exit(main(sys.argv[1:]))",
                       "docs", name, "--path")
        assert proc.returncode == 0, proc.stderr[-2000:]
        path = Path(proc.stdout.strip())
        assert path.resolve().is_relative_to(site.resolve()) and path.read_text(encoding="utf-8") == \
            (ROOT / "docs" / f"{name}.md").read_text(encoding="utf-8"), name


def test_the_installed_team_store_migrates_and_a_checkouts_result_file_reads(site, tmp_path):
    """The store's schema comes from the installed package (alembic runs env.py by path), and a
    result file names its class as ``core.…`` whichever name wrote it, so both read it back."""
    from artifact_lens.data.demos import make_nli
    from artifact_lens.results.files import write_result
    from artifact_lens.zstats import compute_z

    buf = io.BytesIO()
    write_result(buf, compute_z(make_nli(n=300), min_count=3))
    (tmp_path / "z.zip").write_bytes(buf.getvalue())
    code = """
import json, sys
from artifact_lens.results.files import read_result, write_result
from artifact_lens.team.store import TeamStore
store = TeamStore("sqlite:///" + sys.argv[1] + "/team.sqlite")
z = read_result(sys.argv[1] + "/z.zip")
with open(sys.argv[1] + "/again.zip", "wb") as fh:
    write_result(fh, z)
print(json.dumps({"schema": store.migrate(), "class": type(z).__module__}))
"""
    proc = _python(site, tmp_path, code, str(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = json.loads(proc.stdout.splitlines()[-1])
    assert said["class"] == "artifact_lens.zstats.statistics" and said["schema"]
    with zipfile.ZipFile(tmp_path / "again.zip") as z:
        assert json.loads(z.read("value.json"))["$class"] == "core.zstats.statistics.ZStats"
