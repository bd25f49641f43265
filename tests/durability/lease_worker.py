"""An app process for the run-lease test: a real `dashboard.process.server.Server` (its heartbeat thread
renews the leases of the runs it computes) that begins one run and then works on it forever,
until it is killed.

    python tests/durability/lease_worker.py WORKSPACE DATASET_ID KEY

The database and the lease come from the environment (ARTIFACT_LENS_DB_URL,
ARTIFACT_LENS_RUN_LEASE), as for the app. Prints ``ready`` once the run is begun.
"""
from __future__ import annotations

import sys
import threading

from artifact_lens.dashboard.process.server import Server

OWNER = "owner@x.org"


def main(workspace: int, dataset_id: int, key: str) -> None:
    server = Server()
    server.team.begin_run(workspace, dataset_id, key, representation="toy", params={}, seed=0, versions={}, by=OWNER)
    sys.stdout.write("ready\n")
    sys.stdout.flush()
    threading.Event().wait()   # "computing" until killed


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3])
