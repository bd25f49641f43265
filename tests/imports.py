"""The modules a source file imports, as absolute dotted names: core/ imports itself relatively
(``from ..base import keys``), so the layer and reflection tests resolve each relative import
against the file's own package before they judge it.

Names here are the repository's (``core.base.keys``, ``dashboard.services.team``: a module named by
its folder, as the docs and registries name it); the code imports the installed names
(``artifact_lens.base.keys``, ``artifact_lens.dashboard.services.team``), which `repository_name`
and `installed_name` translate."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path) -> str:
    """``core/base/keys.py`` -> ``core.base.keys``; a package's ``__init__.py`` -> the package."""
    return ".".join(path.resolve().relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def repository_name(module: str) -> str:
    """``artifact_lens.dashboard.x`` -> ``dashboard.x``; ``artifact_lens.x`` -> ``core.x``; others as they are."""
    for installed, folder in (("artifact_lens.dashboard", "dashboard"), ("artifact_lens", "core")):
        if module == installed or module.startswith(installed + "."):
            return folder + module[len(installed):]
    return module


def installed_name(module: str) -> str:
    """``core.x`` -> ``artifact_lens.x``; ``dashboard.x`` -> ``artifact_lens.dashboard.x``: what imports it."""
    for folder, installed in (("dashboard", "artifact_lens.dashboard"), ("core", "artifact_lens")):
        if module == folder or module.startswith(folder + "."):
            return installed + module[len(folder):]
    return module


def imported_module(node: ast.ImportFrom, path: Path) -> str:
    """The absolute module ``from … import`` names in the file at ``path``, by its repository name."""
    if not node.level:
        return repository_name(node.module or "")
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))
