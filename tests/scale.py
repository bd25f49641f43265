"""How big the load and kill tests are: `make test-stress` (tests/stress.py) runs them at full
size beside CPU burners; `make test` runs the same assertions on a lighter load (fewer kills,
fewer reviews), so the whole suite stays short."""
import os

STRESS = os.environ.get("ARTIFACT_LENS_STRESS") == "1"


def scaled(full: int, light: int) -> int:
    """``full`` under `make test-stress`, ``light`` otherwise."""
    return full if STRESS else light


def busy() -> float:
    """How many times over the machine's cores are asked for now: the one-minute load average per
    core, at least 1 (CI was seen at load 8–14 on 2 cores)."""
    try:
        load = os.getloadavg()[0]
    except (OSError, AttributeError):
        return 1.0
    return max(1.0, load / (os.cpu_count() or 1))


def patience(seconds: float) -> float:
    """A bound on waiting for a condition: ``seconds`` on a quiet machine, longer in proportion to how
    busy it is when the wait starts. A test waits on the condition, never on this time; the bound
    only ends a wait that will never be met."""
    return seconds * busy()
