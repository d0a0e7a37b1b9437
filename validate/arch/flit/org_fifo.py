"""Paper 000's input buffer of ``buffer_flits`` flits shared by any queue: the storage rule of FIFO and DAMQ
switches and of the central-buffer switch's input FIFOs (§3).

One of the organisations' storage modules, each with the same interface (NetworkX's ``flow_func=`` is the
model): ``fits`` (can queue ``q`` of input ``gi`` take one more flit), ``commit`` (store it, or refuse) and
``release`` (a flit read from it). They take the state record ``S`` of :mod:`.cut_through_state`, index it
directly and are inlined where called: one flit at a time, the cost of a call would show. The input's flits held
(``I_HELD``) and the cycle it was last read (``I_LAST``) are kept by the kernel for every organisation.
"""

from __future__ import annotations

from numba import njit

from .cut_through_state import INB, QFLITS
from .records import I_USED, IW


@njit(cache=True, inline="always")
def fits(sw, S, q, gi):
    """Room in the input buffer, whatever the queue."""
    return S[INB, gi * IW + I_USED] < sw.cap


@njit(cache=True, inline="always")
def commit(sw, S, q, gi):
    """One flit stored in queue ``q`` of input ``gi`` if the buffer has room (False: it has none)."""
    if S[INB, gi * IW + I_USED] >= sw.cap:
        return False
    S[INB, gi * IW + I_USED] += 1
    S[QFLITS, q] += 1
    return True


@njit(cache=True, inline="always")
def release(sw, S, q, gi):
    """One flit read from queue ``q`` of input ``gi``: its place in the buffer is free."""
    S[QFLITS, q] -= 1
    S[INB, gi * IW + I_USED] -= 1
