"""CPU time of running processes, read from Linux's ``/proc``.

Shared by the benchmarks that divide the servers' own CPU time by the
requests they served (``reads.py --http``, ``respond_path.py``): on a busy
machine this is steadier than wall-clock latency.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def cpu_seconds(pids: list[int]) -> float:
    """User plus system CPU time the processes have used (those still alive)."""
    total = 0
    for pid in pids:
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])  # utime, stime (ticks)
    return total / os.sysconf("SC_CLK_TCK")
