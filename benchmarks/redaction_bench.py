"""Redaction of secrets in error lines (issue 45, sweep item 4): `core.base.settings.printable`
against the regular expressions it replaced (`tests/unit/redaction_reference.py`), side by side,
on the hostile sweep's inputs: a run of letters and digits (a long ``--label``), many ``://``,
many ``@`` after a password, and a URL with many query parameters. Prints one JSON line: seconds
per input and size, and the ratio of the largest size's time to the smallest's (linear: about
the ratio of the sizes). The reference is skipped past ``--reference-max`` characters (it is
quadratic: 120k characters took 86 s in the sweep).

    python benchmarks/redaction_bench.py            # about a minute on 2 cores
    python benchmarks/redaction_bench.py --quick
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "unit")]

from artifact_lens.base.settings import printable  # noqa: E402
from redaction_reference import reference_printable  # noqa: E402

INPUTS = {
    "letters": lambda n: "a1" * (n // 2),
    "schemes": lambda n: "x://" * (n // 4),
    "at_signs": lambda n: "postgresql://u:" + "p@" * (n // 2) + "h/db",
    "query": lambda n: "https://h/x?" + "&token=1&a=2" * (n // 12),
}


def timed(fn, text) -> float:
    start = time.perf_counter()
    fn(text)
    return round(time.perf_counter() - start, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="sizes up to 120k characters")
    parser.add_argument("--reference-max", type=int, default=40_000, help="largest size the reference is timed on")
    args = parser.parse_args()
    sizes = [20_000, 40_000, 120_000] + ([] if args.quick else [1_000_000, 5_000_000])
    out = {"sizes": sizes, "printable_s": {}, "reference_s": {}, "printable_growth": {}}
    for name, make in INPUTS.items():
        texts = {n: make(n) for n in sizes}
        out["printable_s"][name] = {n: timed(printable, t) for n, t in texts.items()}
        out["reference_s"][name] = {n: timed(reference_printable, t) for n, t in texts.items() if n <= args.reference_max}
        first, last = out["printable_s"][name][sizes[0]], out["printable_s"][name][sizes[-1]]
        out["printable_growth"][name] = round(last / max(first, 1e-4), 1)
    out["size_ratio"] = sizes[-1] / sizes[0]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
