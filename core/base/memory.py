"""How much memory is left and how big things are, for the checks that refuse work before it
would end in the kernel killing the process (callers look `available_memory` up on this module
at call time, so a test can lower it)."""
from __future__ import annotations

from pathlib import Path


def available_memory():
    """Bytes of memory this process can still take: /proc/meminfo's MemAvailable, capped by
    a cgroup (v2) limit when there is one; None when neither can be read (not Linux)."""
    avail = None
    try:
        with open("/proc/meminfo") as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    avail = int(line.split()[1]) * 1024
                    break
    except OSError:
        pass
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text().strip()
        if limit != "max":
            used = int(Path("/sys/fs/cgroup/memory.current").read_text())
            room = max(0, int(limit) - used)
            avail = room if avail is None else min(avail, room)
    except (OSError, ValueError):
        pass
    return avail


def size_text(n: int) -> str:
    """Bytes for a message: '3.07 GB', '12.5 MB' or '960 bytes'."""
    return f"{n / 1e9:.2f} GB" if n >= 1e8 else (f"{n / 1e6:.1f} MB" if n >= 1e5 else f"{int(n)} bytes")
