"""How big the load and kill tests are: `make test-stress` (tests/stress.py) runs them at full
size beside CPU burners; `make test` runs the same assertions on a lighter load (fewer kills,
fewer reviews), so the whole suite stays short."""
import os

STRESS = os.environ.get("ARTIFACT_LENS_STRESS") == "1"


def scaled(full: int, light: int) -> int:
    """``full`` under `make test-stress`, ``light`` otherwise."""
    return full if STRESS else light
