"""What a kernel may allocate: the memory this machine has free, checked before the kernel allocates (issue 38).

A run whose state would not fit is refused with the figure it needs beside the figure available, in one line,
instead of being stopped by the operating system (or swapping) minutes later. A kernel whose memory grows as it
runs is given the rest as its limit, and stops with the same kind of message if it would pass it.

Examples
--------
>>> readable_bytes(3_407_872_000), readable_bytes(12_500_000), readable_bytes(81_920)
('3.41 GB', '12.5 MB', '81.9 kB')
>>> check_fits("n_ports", 1024, {"flows": 2e9, "crosspoints": 1e9}, "the switch's state at the start",
...            available=1.5e9)
Traceback (most recent call last):
...
switchq.errors.InputError: n_ports: got 1024; allowed: a size whose state fits in memory: the switch's state at the start needs 3.00 GB (flows 2.00 GB, crosspoints 1.00 GB), and 1.50 GB is available (MemAvailable)
"""

from __future__ import annotations

from switchq.errors import InputError

__all__ = ["available_bytes", "readable_bytes", "check_fits"]

MEMINFO = "/proc/meminfo"


def available_bytes() -> float:
    """Bytes that can be allocated without swapping: ``MemAvailable`` of /proc/meminfo (Linux), else the free
    physical pages, else infinity (unknown: nothing is refused)."""
    try:
        with open(MEMINFO) as f:
            for line in f:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024     # the file's unit is kB (KiB)
    except OSError:
        pass
    try:
        import os

        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return float("inf")


def readable_bytes(nbytes: float) -> str:
    """``nbytes`` in decimal units: GB with two decimals from 1 GB, else MB or kB with three figures."""
    if nbytes >= 1e9:
        return f"{nbytes / 1e9:.2f} GB"
    unit, scale = ("MB", 1e6) if nbytes >= 1e6 else ("kB", 1e3)
    return f"{nbytes / scale:.3g} {unit}"


def check_fits(parameter: str, value, parts: dict, what: str, available: float | None = None) -> float:
    """Raise InputError on ``parameter`` (given ``value``) if the bytes of ``parts`` (name: bytes) exceed
    ``available`` (default :func:`available_bytes`); the message names the total, its largest parts and the
    memory available. Returns what is left."""
    available = available_bytes() if available is None else available
    need = float(sum(parts.values()))
    if need > available:
        largest = sorted(parts.items(), key=lambda kv: -kv[1])[:4]
        shown = ", ".join(f"{k.replace('_', ' ')} {readable_bytes(v)}" for k, v in largest)
        raise InputError(parameter, value, f"a size whose state fits in memory: {what} needs {readable_bytes(need)} "
                                           f"({shown}), and {readable_bytes(available)} is available (MemAvailable)")
    return available - need
