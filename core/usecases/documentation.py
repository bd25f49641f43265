"""The documentation that ships with the package (issue 63, item 14): a pip user has no checkout, so
the README's and the app's "docs/hosting.md" would name a file they do not have. The pages install
beside the library (``artifact_lens/docs``); this finds them, for ``artifact-lens docs``."""
from __future__ import annotations

import re
from pathlib import Path

from ..base.errors import InputError

__all__ = ["docs_folder", "doc_pages", "doc_page"]


def docs_folder() -> Path:
    """The documentation's folder: ``artifact_lens/docs`` installed, ``docs/`` beside ``core/`` in a checkout."""
    here = Path(__file__).resolve().parents[1]
    for candidate in (here / "docs", here.parent / "docs"):
        if (candidate / "cli.md").is_file():
            return candidate
    raise InputError(f"the documentation is not installed beside the library ({here}); reinstall artifact-lens.")


def doc_pages() -> dict:
    """Page name (``hosting``) → (its title, its file), in name order."""
    pages = {}
    for path in sorted(docs_folder().glob("*.md")):
        first = path.read_text(encoding="utf-8").split("\n", 1)[0]
        pages[path.stem] = (re.sub(r"^#+\s*", "", first).strip(), path)
    return pages


def doc_page(name: str) -> Path:
    """The file of page ``name`` (``hosting`` or ``hosting.md``); InputError naming the pages there are."""
    pages = doc_pages()
    found = pages.get(str(name).removesuffix(".md"))
    if found is None:
        raise InputError(f"no page {name!r} in the documentation; the pages are: {', '.join(pages)}.")
    return found[1]
