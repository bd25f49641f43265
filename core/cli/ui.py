"""``artifact-lens ui``: the dashboard, from wherever the package is installed (``pip install
"artifact-lens[ui]"``), as ``label-studio start`` or ``lilac start`` serve theirs. The command line
comes from `core.usecases.serving.serve_dashboard`; this process becomes the server."""
from __future__ import annotations

import os
import shlex
import sys

from .commands import command


def cmd_ui(args) -> int:
    from ..usecases.serving import check_port_free, serve_dashboard

    served = serve_dashboard(port=args.port, address=args.address, headless=args.headless,
                             data_dirs=tuple(args.data_dir or ()), secrets=args.secrets, owner=args.owner,
                             cache_dir=args.cache_dir)
    if args.print_command:   # for a process manager or a container: what would run, and nothing started
        changed = {k: v for k, v in served.env.items() if os.environ.get(k) != v}
        print(" ".join([*(f"{k}={shlex.quote(v)}" for k, v in sorted(changed.items())), shlex.join(served.argv)]))
        return 0
    check_port_free(args.port, args.address)
    if not args.quiet:
        where = args.address or "localhost"
        print(f"Artifact Lens: serving the dashboard at http://{where}:{args.port} (Ctrl-C stops it)", file=sys.stderr)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(served.argv[0], served.argv, served.env)   # Streamlit takes over: its signals, its exit status


@command("ui", run=cmd_ui, help="open the dashboard (needs the ui extra: pip install \"artifact-lens[ui]\")",
         description="Serve the dashboard on --port and open it in the browser: the demo data first, every page. "
                     "The same settings as a hosted instance: ARTIFACT_LENS_* variables, --secrets for sign-in "
                     "and the team database (docs/hosting.md).")
def _ui_options(p) -> None:
    from .arguments import Whole

    p.add_argument("--port", type=Whole(1, 65535), default=8501, help="the port (default 8501)")
    p.add_argument("--address", help="the address to listen on (default 127.0.0.1: this machine only; 0.0.0.0 serves every interface)")
    p.add_argument("--data-dir", action="append", metavar="DIR", help="a folder the Data page may read files from "
                   "by path (repeat for more; default: the working folder and the cache)")
    p.add_argument("--secrets", metavar="FILE", help="a secrets TOML file: sign-in ([auth]) and the team database, "
                   "as a hosted instance reads them")
    p.add_argument("--owner", metavar="EMAIL", help="the address of the workspace's owner, for a hosted instance")
    p.add_argument("--headless", action="store_true", help="open no browser (a server, a container)")
    p.add_argument("--print-command", action="store_true", help="print the command and settings that would serve "
                   "the dashboard, and start nothing")
