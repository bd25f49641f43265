"""Run pytest beside CPU burners: ``python tests/stress.py [pytest args]``.

One busy-looping process per core (at normal priority, as other work on a shared CI machine
would be) keeps every CPU saturated while the tests run; the tests must pass
anyway, because they wait on conditions, never on fixed sleeps. The burners stop when
pytest does, whatever its outcome; the exit code is pytest's.
"""
import multiprocessing
import os
import subprocess
import sys


def _burn() -> None:
    while True:
        pass


def main(argv) -> int:
    burners = [multiprocessing.Process(target=_burn, daemon=True) for _ in range(os.cpu_count() or 2)]
    for b in burners:
        b.start()
    try:
        print(f"stress: {len(burners)} CPU burners running beside: pytest {' '.join(argv)}", flush=True)
        # the load and kill tests at full size (tests/conftest.py, `scaled`)
        return subprocess.call([sys.executable, "-m", "pytest", *argv], env=dict(os.environ, ARTIFACT_LENS_STRESS="1"))
    finally:
        for b in burners:
            b.terminate()
        for b in burners:
            b.join()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
