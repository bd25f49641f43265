"""Start a real PostgreSQL server from Debian's package for tests and benchmarks.

As root, ``initdb`` refuses to run, so ``initdb`` and ``pg_ctl`` run as the ``postgres``
user in a temporary folder that user owns, on a free port, listening on 127.0.0.1 only.
"""
import glob
import os
import shutil
import socket
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path


class PostgresMissing(RuntimeError):
    pass


@contextmanager
def postgres_server():
    """Yield a SQLAlchemy URL of a fresh server; stop and delete it afterwards."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"))
    if not found or shutil.which("runuser") is None:
        raise PostgresMissing("PostgreSQL is not installed (apt-get install postgresql; .ci/run does it)")
    bin_dir = Path(found[-1]).parent
    folder = Path(tempfile.mkdtemp(prefix="artifact-lens-pg-"))
    os.chmod(folder, 0o755)
    shutil.chown(folder, "postgres", "postgres")
    data = folder / "data"
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    as_postgres = ["runuser", "-u", "postgres", "--"]
    try:
        subprocess.run(as_postgres + [str(bin_dir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"],
                       check=True, capture_output=True)
        subprocess.run(as_postgres + [str(bin_dir / "pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w",
                                      "-o", f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections=200", "start"],
                       check=True, capture_output=True)
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres"
    finally:
        if data.exists():
            subprocess.run(as_postgres + [str(bin_dir / "pg_ctl"), "-D", str(data), "-m", "immediate", "stop"],
                           capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
