"""Progress reporting and cancellation shared by long-running work.

A progress callback is any callable ``progress(fraction, message)`` with
``fraction`` in [0, 1]. A cancel token is any object with ``is_set()`` (for
example ``threading.Event``); long loops call `check_cancel` between steps.
"""
from __future__ import annotations

from typing import Callable, Optional, Protocol

from .errors import Cancelled

ProgressFn = Callable[[float, str], None]


class CancelToken(Protocol):
    def is_set(self) -> bool: ...


def report(progress: Optional[ProgressFn], fraction: float, message: str = "") -> None:
    if progress is not None:
        progress(min(max(float(fraction), 0.0), 1.0), message)


def span(progress: Optional[ProgressFn], lo: float, hi: float, what: str = "") -> Optional[ProgressFn]:
    """A progress callback for one stage of longer work: its 0..1 is reported as ``lo..hi``
    of ``progress`` (None stays None), each message after ``what`` (whose work it is: "the split's
    certificate: z-statistics"), so a stage's own "done" never reads as the whole job's."""
    if progress is None:
        return None
    if what:
        return lambda f, m="": report(progress, lo + (hi - lo) * f, f"{what}: {m}" if m else what)
    return lambda f, m="": report(progress, lo + (hi - lo) * f, m)


def check_cancel(cancel: Optional[CancelToken]) -> None:
    if cancel is not None and cancel.is_set():
        raise Cancelled("cancelled by the user")


class TqdmProgress:
    """Adapter: a tqdm bar driven by ``progress(fraction, message)`` calls (for the CLI)."""

    def __init__(self, desc: str = "", total: int = 1000):
        from tqdm import tqdm

        self._total = total
        self._bar = tqdm(total=total, desc=desc, leave=False, dynamic_ncols=True)

    def __call__(self, fraction: float, message: str = "") -> None:
        target = int(round(fraction * self._total))
        if target > self._bar.n:
            self._bar.update(target - self._bar.n)
        if message:
            self._bar.set_postfix_str(message, refresh=False)

    def close(self) -> None:
        self._bar.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


class Remaining:
    """The time a job has left, as a person should read it: it never rises.

    The pace so far (elapsed × (1 − f) / f) jumps when a job's stages run at different speeds
    ("about 2 min left", then "about 36 min left"). Here a new estimate replaces the shown one
    only when it is lower than what the shown one has counted down to; once the shown estimate
    has run out while the work goes on, `left` is None and `over` True ("longer than estimated"),
    never a larger number. No estimate before a tenth of the work and two seconds.

    The pace is measured over the second half of the time so far (from the reading at half the
    elapsed time): a step that took no time (a representation read from the cache: 40 % of the bar
    at once, multiple-choice items' usual start) would otherwise make the rest look fast, and the
    job said "longer than estimated" a second after its first estimate."""

    #: the most readings kept (every other one is dropped beyond it: a long job's half-time reading
    #: stays within a reading or two of half its time)
    READINGS = 512

    def __init__(self):
        self._shown: Optional[float] = None   # seconds left, as shown at elapsed ``self._at``
        self._at = 0.0
        self._readings = [(0.0, 0.0)]          # (elapsed, fraction), in time order
        self.over = False

    def left(self, elapsed: float, fraction: float) -> Optional[float]:
        """Seconds left to show at ``elapsed`` seconds with ``fraction`` done, or None (none yet, or over)."""
        if fraction >= 1 or self.over:
            return None
        counted = None if self._shown is None else self._shown - (elapsed - self._at)
        if counted is not None and counted <= 0:
            self.over = True   # the work goes on past the estimate: say so, never a larger number
            return None
        since, done = next((e, f) for e, f in reversed(self._readings) if e <= elapsed / 2)
        self._readings.append((elapsed, fraction))
        if len(self._readings) > self.READINGS:
            self._readings = self._readings[:1] + self._readings[2::2]
        if fraction >= 0.1 and elapsed >= 2 and fraction > done:
            pace = (elapsed - since) * (1 - fraction) / (fraction - done)
            if counted is None or pace < counted:
                self._shown, self._at = pace, elapsed
                return pace
        return counted
