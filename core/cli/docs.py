"""``artifact-lens docs``: the documentation that ships with the package. A pip user has no checkout,
so the README's and the app's "docs/hosting.md" would name a file they do not have; the pages are
installed beside the library (``artifact_lens/docs``) and this command finds them."""
from __future__ import annotations

import re
import sys
from pathlib import Path

from ..base.errors import InputError
from .commands import command

__all__ = ["docs_folder", "doc_pages"]


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


def cmd_docs(args) -> int:
    pages = doc_pages()
    if not args.page:
        width = max(map(len, pages))
        for name, (title, path) in pages.items():
            print(f"{name:{width}s}  {title}  ({path})")
        return 0
    found = pages.get(args.page.removesuffix(".md"))
    if found is None:
        raise InputError(f"no page {args.page!r} in the documentation; the pages are: {', '.join(pages)}.")
    title, path = found
    if args.path:
        print(path)
    else:
        sys.stdout.write(path.read_text(encoding="utf-8"))
    return 0


@command("docs", run=cmd_docs, help="the documentation installed with the package: list its pages, or print one",
         description="Without PAGE, list the pages of the documentation that ships with the package (what the "
                     "README and the app link to) and where each is installed; with PAGE (hosting, cli, "
                     "certificate…), print that page, or its path with --path.")
def _docs_options(p) -> None:
    p.add_argument("page", nargs="?", metavar="PAGE", help="a page's name, e.g. hosting (default: list them)")
    p.add_argument("--path", action="store_true", help="print the page's installed path, not its text")
