"""A team-store server stand-in for the durability tests, meant to be killed at any moment.

    python tests/durability/store_worker.py URL FILES WORKSPACE DATASET_ID GENERATION

It imports what it needs, waits for a line on stdin (the parent starts the next worker
while the current one works, and says "go" once that one is dead: one server per
database), opens the store, marks runs of earlier (killed) processes interrupted (``recover``, what a
server does at start), prints ``recovered N`` and ``ready``, then loops forever: begins a run,
fits a tiny distinct run (seed from GENERATION and a counter), saves it, then writes three
reviews on finished runs; now and then a run fails instead. Each line is printed (and
flushed) only after the call it acknowledges has returned, i.e. committed:

    begin <key>
    ack run <key> <run_id>
    ack failed <key>
    ack review <id> <run_id> <example_id> <reviewer> <decision>
"""
from __future__ import annotations

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))   # tests/: the shared toy data

from artifact_lens.results.runs import fit_run, run_key
from artifact_lens.team.store import DECISIONS, TeamStore

OWNER = "owner@x.org"
REVIEWERS = ("ann@x.org", "bob@x.org", "cur@x.org")
N_EXAMPLES = 60


def toy_data():
    """A 60-example dataset and a 4-d representation: a fit takes milliseconds."""
    from toy import toy_data as make

    return make(N_EXAMPLES, 4, name="durable")


def params_for(seed: int) -> dict:
    return dict(n_partitions=4, train_size=0.2, slice_size=0.1, tau=0.0, target_size=0.5, random_state=seed)


def say(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main(url: str, files: str, workspace: int, dataset_id: int, generation: int) -> None:
    if sys.stdin.readline().strip() != "go":
        raise SystemExit("stopped before opening the store")
    store = TeamStore(url, files=files)
    say(f"recovered {store.recover()}")
    ds, rep = toy_data()
    listed = store.runs(workspace, by=OWNER)
    done = [store.run_id(workspace, key, by=OWNER) for key in listed.loc[listed["status"] == "done", "key"]]
    rng = random.Random(generation)
    say("ready")
    for counter in range(10 ** 9):
        seed = generation * 100_000 + counter
        params = params_for(seed)
        key = run_key(ds.fingerprint, rep.spec, params)
        store.begin_run(workspace, dataset_id, key, representation=rep.spec, params=params, seed=seed, versions={},
                        by=OWNER)
        say(f"begin {key}")
        if counter % 7 == 3:                       # now and then a fit fails
            store.end_run(workspace, key, "failed", by=OWNER)
            say(f"ack failed {key}")
            continue
        run = fit_run(ds, rep, params)
        time.sleep(0.02)                           # a fit takes a while: a window for "running" rows
        if run.key != key:
            raise SystemExit(f"run key {run.key} differs from the begun key {key}")
        run_id = store.save_run(workspace, dataset_id, run, by=OWNER)
        say(f"ack run {key} {run_id}")
        done.append(run_id)
        for _ in range(3):
            on = rng.choice(done)
            example, reviewer, decision = f"e{rng.randrange(N_EXAMPLES)}", rng.choice(REVIEWERS), rng.choice(DECISIONS)
            review_id = store.review(workspace, on, example, decision, "durability", by=reviewer)
            say(f"ack review {review_id} {on} {example} {reviewer} {decision}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]))
