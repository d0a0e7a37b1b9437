"""Paper 000's HIPIQS input buffer (§3): per (input, output) pair a FIFO unit of ``crosspoint_flits`` filled first
while the pair's queue in the shared buffer is empty; beyond it the queue takes k-flit chunks from the input's
``buffer_flits / k``, a queue's last chunk refilled by its next packet (the partially-filled-chunk rule), a
chunk freed when its last flit is read or its queue empties. Banks serve every output at once: no read-port
limit.

The storage interface of :mod:`.org_fifo` (``fits``, ``commit``, ``release``); a pair queue's state is its row
of ``QST`` (``Q_FIFO`` flits in the FIFO unit, ``Q_SH`` in the shared queue, ``Q_WP`` in its last chunk,
``Q_RP`` read from its head chunk), the input's chunks taken ``I_CHUNKS``.
"""

from __future__ import annotations

from numba import njit

from .cut_through_state import INB, QST
from .records import I_CHUNKS, IW, Q_FIFO, Q_RP, Q_SH, Q_WP, QW


@njit(cache=True, inline="always")
def fits(sw, S, q, gi):
    """The FIFO unit while the shared queue is empty, else the queue's partly filled last chunk, else a free
    chunk."""
    return ((S[QST, q * QW + Q_SH] == 0 and S[QST, q * QW + Q_FIFO] < sw.xp_cap) or S[QST, q * QW + Q_WP] != 0
            or S[INB, gi * IW + I_CHUNKS] < sw.n_chunks)


@njit(cache=True, inline="always")
def commit(sw, S, q, gi):
    """One flit stored for pair queue ``q`` of input ``gi``: in the FIFO unit first, then the queue's last chunk,
    a new chunk taken when that is full (False: no chunk free)."""
    sh = S[QST, q * QW + Q_SH]
    fc = S[QST, q * QW + Q_FIFO]
    if sh == 0 and fc < sw.xp_cap:
        S[QST, q * QW + Q_FIFO] = fc + 1
        return True
    wp = S[QST, q * QW + Q_WP]
    if wp == 0:
        if S[INB, gi * IW + I_CHUNKS] >= sw.n_chunks:
            return False
        S[INB, gi * IW + I_CHUNKS] += 1
    wp += 1
    S[QST, q * QW + Q_WP] = 0 if wp == sw.k else wp
    S[QST, q * QW + Q_SH] = sh + 1
    return True


@njit(cache=True, inline="always")
def release(sw, S, q, gi):
    """One flit read from pair queue ``q`` (from its FIFO unit): the unit is refilled from the shared queue, whose
    head chunk is freed when its last flit is read, or its last one when the queue empties."""
    sh = S[QST, q * QW + Q_SH]
    if sh > 0:
        # the FIFO unit refilled from the shared queue: its count stays
        S[QST, q * QW + Q_SH] = sh - 1
        rp = S[QST, q * QW + Q_RP] + 1
        if rp == sw.k:
            rp = 0
            S[INB, gi * IW + I_CHUNKS] -= 1
        if sh == 1:
            if rp != 0:
                S[INB, gi * IW + I_CHUNKS] -= 1
            S[QST, q * QW + Q_WP] = 0
            rp = 0
        S[QST, q * QW + Q_RP] = rp
    else:
        S[QST, q * QW + Q_FIFO] -= 1
