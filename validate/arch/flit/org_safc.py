"""Paper 000's statically allocated fully connected buffer (SAFC, §3): ``buffer_flits / k`` flits per (input,
output) partition, each output reading its own partitions, so an input has no read-port limit.

The storage interface of :mod:`.org_fifo` (``fits``, ``commit``, ``release``).
"""

from __future__ import annotations

from numba import njit

from .cut_through_state import QFLITS


@njit(cache=True, inline="always")
def fits(sw, S, q, gi):
    """Room in the queue's partition."""
    return S[QFLITS, q] < sw.part_cap


@njit(cache=True, inline="always")
def commit(sw, S, q, gi):
    """One flit stored in partition ``q`` if it has room (False: it has none)."""
    if S[QFLITS, q] >= sw.part_cap:
        return False
    S[QFLITS, q] += 1
    return True


@njit(cache=True, inline="always")
def release(sw, S, q, gi):
    """One flit read from partition ``q``."""
    S[QFLITS, q] -= 1
