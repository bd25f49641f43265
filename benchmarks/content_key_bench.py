"""What naming a dataset by its content costs on the Data page's path (issue 63, item 1).

The dashboard's Load (`dashboard.services.current.load`) now names a dataset by what it read
(`Dataset.content_key`): an unchanged file is known by its stamp (`source_stamp`: sizes and change
times, no reading), an edited one is read again. For each file, side by side in one run: the first
Load (read + content key), a second Load of the unchanged file, a Load after the file is rewritten
with the same rows, and the parts: reading, the fingerprint, the content key and the stamp.

    python benchmarks/content_key_bench.py [--data-dir ../shared/data] [--rows 200000]

Prints one JSON line: seconds per file and step."""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return out, round(time.perf_counter() - start, 3)


def measure(path: Path, folder: Path) -> dict:
    from artifact_lens.dashboard.services import current
    from artifact_lens.dashboard.state.session import Source
    from artifact_lens.data.source_files import source_stamp
    from artifact_lens.data.sources import load_dataset
    from service_tabs import new_tab

    local = folder / path.name
    shutil.copy(path, local)
    ds, read = _timed(lambda: load_dataset(str(local)))
    _, fingerprint = _timed(lambda: ds.fingerprint)
    _, content = _timed(lambda: ds.content_key)
    _, stamp = _timed(lambda: source_stamp(str(local)))
    tab = new_tab()
    try:
        (key, first), load_first = _timed(lambda: current.load(tab, Source(str(local), {}, local.name)))
        (again, _), load_unchanged = _timed(lambda: current.load(tab, Source(str(local), {}, local.name)))
        local.write_bytes(local.read_bytes())   # rewritten in place, the same bytes: read again, the same key
        (same, _), load_rewritten = _timed(lambda: current.load(tab, Source(str(local), {}, local.name)))
    finally:
        tab.server.finish_stop()
    assert key == again == same
    return {"rows": len(first), "read_s": read, "fingerprint_s": fingerprint, "content_key_s": content,
            "stamp_s": stamp, "load_first_s": load_first, "load_unchanged_s": load_unchanged,
            "load_rewritten_s": load_rewritten}


def synthetic(folder: Path, rows: int) -> Path:
    from artifact_lens.data.demos import make_nli

    path = folder / f"nli_{rows}.csv"
    make_nli(n=rows, random_state=0).table.reset_index()[["id", "premise", "hypothesis", "label"]].to_csv(path, index=False)
    return path


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--data-dir", default=str(ROOT.parent / "shared" / "data"))
    p.add_argument("--files", default="snli_dev.jsonl,mnli_dev_matched.jsonl,bbq_age.jsonl,hh_harmless_pairs.jsonl")
    p.add_argument("--rows", type=int, default=200_000, help="a synthetic NLI CSV of this many rows (0: none)")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["ARTIFACT_LENS_CACHE"] = str(Path(tmp) / "cache")
        os.environ["ARTIFACT_LENS_DB_URL"] = f"sqlite:///{tmp}/team.sqlite"
        folder = Path(tmp) / "data"
        folder.mkdir()
        files = [Path(args.data_dir) / f for f in args.files.split(",") if (Path(args.data_dir) / f).exists()]
        if args.rows:
            files.append(synthetic(Path(tmp), args.rows))
        print(json.dumps({"bench": "content_key", "files": {f.name: measure(f, folder) for f in files}}))


if __name__ == "__main__":
    main()
