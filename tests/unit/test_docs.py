"""The docs keep up with the code: every path they name exists, every page has its section and
screenshot in the user guide, every command and flag is in the CLI reference (rendered from the
parser), every setting is in the hosting table, and the Python API's snippets run."""
import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

from imports import installed_name


ROOT = Path(__file__).resolve().parents[2]
#: a path in backticks under the product's folders: a file, a folder, or a file with what follows it
#: (issue 54: `dashboard/navigation.PAGES` named a file that had moved, and no .py ending caught it)
PATH = re.compile(r"`((?:core|dashboard|pages|tests|benchmarks|docs|assets)/[\w./-]*)")


def test_every_path_the_docs_name_exists():
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for path in PATH.findall(doc.read_text(encoding="utf-8")):
            if not (ROOT / path.rstrip("/")).exists():
                missing.append(f"{doc.name}: {path}")
    assert not missing, missing


DOTTED = re.compile(r"`((?:core|dashboard)(?:\.\w+)+)(?:\(|`)")


def _resolves(name: str) -> bool:
    """Whether ``core.x.y`` / ``dashboard.x.y`` (a module named by its folder) names a module, or an
    attribute chain of one, imported by its installed name."""
    import importlib

    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(installed_name(".".join(parts[:cut])))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(found, attr):
                return False
            found = getattr(found, attr)
        return True
    return False


def test_every_module_and_function_the_docs_name_exists():
    """The doc's data flows (the slider → redraw path, the request flow, the recipes) name modules
    and functions as dotted names in backticks: each one must import, so a rename that leaves the
    doc behind fails here."""
    missing = []
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for name in DOTTED.findall(doc.read_text(encoding="utf-8")):
            if not _resolves(name):
                missing.append(f"{doc.name}: {name}")
    assert not missing, missing


def test_the_newcomer_paths_are_answered_in_the_architecture_doc():
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    for question in ("Where is τ applied?", "How a slider redraws", "How to add a page", "How to add a quality component",
                     "How to add a command"):
        assert f"## {question}" in text, question


def test_every_page_has_a_section_and_a_current_screenshot_in_the_user_guide():
    import ast

    guide = (ROOT / "docs" / "user-guide.md").read_text(encoding="utf-8")
    for page in sorted((ROOT / "pages").glob("*.py")):
        title = ast.literal_eval(re.search(r'start_page\(\s*("[^"]+")', page.read_text(encoding="utf-8")).group(1))
        assert f"## {title}\n" in guide, f"{page.name}: no '## {title}' section in docs/user-guide.md"
        shot = f"screenshots/{page.stem}.png"
        assert f"]({shot})" in guide and (ROOT / "docs" / shot).exists(), f"{page.name}: no {shot} (make screenshots)"
    linked = re.findall(r"\]\((?!https?:)([^)#]+\.md)", (ROOT / "README.md").read_text(encoding="utf-8"))
    assert {"docs/user-guide.md", "docs/cli.md", "docs/python-api.md", "docs/hosting.md", "docs/architecture.md",
            "docs/testing.md", "docs/scale.md", "docs/data.md"} <= set(linked)
    assert all((ROOT / doc).exists() for doc in linked)


def test_the_cli_reference_is_rendered_from_the_parser_and_names_every_command_and_flag():
    from artifact_lens.cli import COMMANDS, build_parser
    from artifact_lens.cli.reference import BEGIN, END, reference_markdown

    text = (ROOT / "docs" / "cli.md").read_text(encoding="utf-8")
    assert text.split(BEGIN)[1].split(END)[0].strip() == reference_markdown().strip(), \
        "docs/cli.md's reference is stale: run python -m artifact_lens.cli.reference docs/cli.md"
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction)).choices
    assert set(commands) == set(COMMANDS)
    for name, parser in commands.items():
        assert f"### {name}\n" in text, name
        for action in parser._actions:
            for flag in action.option_strings:
                assert flag in ("-h", "--help") or f"`{flag}`" in text, f"{name} {flag} is not in docs/cli.md"


def test_every_setting_is_in_the_hosting_docs_table():
    from artifact_lens.base.settings import VARIABLES

    table = (ROOT / "docs" / "hosting.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"\| `(ARTIFACT_LENS_[A-Z_]+)`", table))
    assert set(VARIABLES.values()) <= documented, set(VARIABLES.values()) - documented


def test_the_python_api_snippets_run_in_order(tmp_path):
    """Every ```python block of docs/python-api.md, run as written in one namespace by a fresh Python
    outside the checkout (a reader who installed the package and pastes them in order gets no error;
    they import it by the project's name)."""
    text = (ROOT / "docs" / "python-api.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) >= 5
    assert not any(re.search(r"^\s*(from|import) (core|dashboard)\b", b, re.M) for b in blocks)
    (tmp_path / "blocks.json").write_text(json.dumps(blocks))
    runner = ("import json\nnamespace = {}\n"
              "for i, block in enumerate(json.load(open('blocks.json'))):\n"
              "    exec(compile(block, f'docs/python-api.md block {i + 1}', 'exec'), namespace)\n")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["ARTIFACT_LENS_CACHE"] = str(tmp_path / "cache")
    proc = subprocess.run([sys.executable, "-c", runner], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=900)
    assert proc.returncode == 0, proc.stderr[-3000:]
    said = proc.stdout
    assert "The filtered split is" in said                      # the evaluation block's verdict


def test_each_dask_path_is_reached_by_the_test_the_architecture_names():
    """docs/architecture.md's "Two ways onto a Dask cluster": every test its table names exists,
    runs on a real cluster (marked dask) and goes in through the entry point the table names."""
    import ast

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    section = text[text.index("## Two ways onto a Dask cluster"):]
    section = section[:section.index("\n## ", 5)]
    named = re.findall(r"`(tests/[\w/]+\.py)::(\w+)`", section)
    assert len(named) == 2
    entry = {"tests/unit/test_aflite_distributed.py": "--scheduler", "tests/app/test_dask_jobs.py": "ARTIFACT_LENS_SCHEDULER"}
    for path, name in named:
        source = (ROOT / path).read_text(encoding="utf-8")
        tree = ast.parse(source)
        (test,) = [n for n in tree.body if isinstance(n, ast.FunctionDef) and n.name == name]
        body = ast.get_source_segment(source, test)
        assert entry[path] in body, f"{path}::{name} does not go in through {entry[path]}"
        assert "LocalCluster" in source and re.search(r"pytest\.mark\.dask", source), path
