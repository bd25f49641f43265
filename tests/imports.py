"""The modules a source file imports, as absolute dotted names: core/ imports itself relatively
(``from ..base import keys``), so the layer and reflection tests resolve each relative import
against the file's own package before they judge it."""
from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def module_name(path: Path) -> str:
    """``core/base/keys.py`` -> ``core.base.keys``; a package's ``__init__.py`` -> the package."""
    return ".".join(path.resolve().relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def imported_module(node: ast.ImportFrom, path: Path) -> str:
    """The absolute module ``from … import`` names in the file at ``path``."""
    if not node.level:
        return node.module or ""
    package = module_name(path).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    base = package[: len(package) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))
