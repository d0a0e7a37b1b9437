"""Paper 000's dynamically allocated multi-queue (DAMQ, §3): the input buffer of :mod:`.org_fifo`, a queue per
output in it, and one read port, so an input sends one packet at a time.

Its storage is :mod:`.org_fifo`'s; what is its own is the read port: an input being read (``RD_BUSY``) offers no
header to another output, which waits for that packet's tail (``RD_WAIT``, the switch's outputs waiting for
the input) rather than arbitrating every cycle until then.
"""

from __future__ import annotations

from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from .cut_through_state import G_SW, RD_BUSY, RD_WAIT, WAKE


@njit(cache=True, inline="always")
def read_busy(S, gi, o):
    """Whether input ``gi`` is being read; if so output ``o`` of its switch waits for it."""
    if S[RD_BUSY, gi]:
        S[RD_WAIT, gi] |= 1 << o
        return True
    return False


@njit(cache=True, inline="always")
def read_done(S, T, k, gi, t):
    """Input ``gi``'s packet has gone: read this cycle, it starts a packet from the next one on, so the outputs
    waiting for it arbitrate then."""
    S[RD_BUSY, gi] = 0
    waiters = S[RD_WAIT, gi]
    S[RD_WAIT, gi] = 0
    while waiters:
        g2 = T[G_SW, gi] * k + trailing_zeros(waiters)
        waiters &= waiters - 1
        if S[WAKE, g2] > t + 1:
            S[WAKE, g2] = t + 1
