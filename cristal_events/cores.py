"""How many cores a second process of the engine would find idle: the one place the parallel parts
ask (the rebuild's second process, an import's validators; ``verify`` and the site export only ask
how many cores there are, their measured rule: benchmarks/README.md).

The load average of the last minute counts the asking process itself (a benchmark or a rebuild
that has run for a minute adds 1.0), so on an otherwise idle machine of two cores it read 1.0-1.4
and the rule "load <= cores - 1" kept the second process off exactly where it was meant to run. The
count of tasks runnable *now* (the fourth field of ``/proc/loadavg``, which counts the reader) does
not lag: it is read a few times and the smallest taken, so a task that ran for a millisecond does
not hide an idle core; off Linux the load average stands in, less this process's own share."""

from __future__ import annotations

import os
import time

_SAMPLES = 3  # reads of the runnable count, a millisecond apart


def usable() -> int:
    """The cores this process may run on (its affinity where the system has one)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def _runnable_now() -> int | None:
    """The tasks runnable now, this one included (``/proc/loadavg``'s "R/T"), or None off Linux."""
    try:
        with open("/proc/loadavg", "rb") as f:
            return int(f.read().split()[3].split(b"/")[0])
    except (OSError, ValueError, IndexError):
        return None


def busy() -> float:
    """What keeps this machine's cores busy besides this process: the fewest tasks runnable in a few
    reads, less this one; or the load average of the last minute less one (this process's share)."""
    seen = []
    for i in range(_SAMPLES):
        n = _runnable_now()
        if n is None:
            break
        seen.append(n)
        if i + 1 < _SAMPLES:
            time.sleep(0.001)
    if seen:
        return max(0, min(seen) - 1)
    try:
        return max(0.0, os.getloadavg()[0] - 1)
    except (AttributeError, OSError):
        return float(usable())  # nothing to tell by: count every core busy


def idle() -> int:
    """The cores left idle beside this process: ``usable() - 1 - busy()`` to the nearest whole core
    (the load average is a fraction), never below 0."""
    return max(0, round(usable() - 1 - busy()))
