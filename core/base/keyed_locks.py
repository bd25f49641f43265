"""One holder at a time per key, in this process: two jobs that need the same Φ while neither is
cached (an evaluation's partial input and a certificate's) build it once; the second waits and reads
the first one's from the cache. An entry lives while someone holds or waits for it, so the table
stays as small as the work in progress. Waiting checks the caller's cancel token."""
from __future__ import annotations

import contextlib
import threading
from typing import Hashable

from .progress import check_cancel

__all__ = ["KeyedLocks"]


class KeyedLocks:
    def __init__(self):
        self._lock = threading.Lock()
        self._held: dict = {}   # key -> [its lock, how many hold or wait for it]

    @contextlib.contextmanager
    def hold(self, key: Hashable, cancel=None):
        """The block runs while no other block of ``key`` does; `Cancelled` if ``cancel`` is set
        while it waits."""
        with self._lock:
            entry = self._held.setdefault(key, [threading.Lock(), 0])
            entry[1] += 1
        try:
            while not entry[0].acquire(timeout=0.25):
                check_cancel(cancel)
            try:
                yield
            finally:
                entry[0].release()
        finally:
            with self._lock:
                entry[1] -= 1
                if entry[1] == 0:
                    del self._held[key]

    def __len__(self) -> int:
        with self._lock:
            return len(self._held)
