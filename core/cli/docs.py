"""``artifact-lens docs``: list the documentation installed with the package, or print one page
(`core.usecases.documentation`)."""
from __future__ import annotations

import sys

from .commands import command


def cmd_docs(args) -> int:
    from ..usecases.documentation import doc_page, doc_pages

    if not args.page:
        pages = doc_pages()
        width = max(map(len, pages))
        for name, (title, path) in pages.items():
            print(f"{name:{width}s}  {title}  ({path})")
        return 0
    path = doc_page(args.page)
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
