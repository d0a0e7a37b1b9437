"""What the two flit kernels share: their packed state and the run's bookkeeping (paper 000 §5.1, paper 004 §IV-A).

Both kernels keep packets in a packed record, and the cut-through kernel queues of *entries* (a packet's
presence in one buffer; the virtual-channel kernel links its NIC queues through the packets) in another, one
row an entry or packet
(fields ``E_*``, ``P_*`` of :mod:`.records`), taken from and returned to free stacks. Both count flits
offered and received the same way, so the backlog (flits offered and not yet received) is read at the start
and end of the measured window, and a backlog that does not move for ``STALL_CYCLES`` cycles is a deadlock:
the run stops and is flagged. The stability rule's parts and counters are closed here too.

All of it is ``inline="always"`` and entered once per replication, per packet, or on the cycles that change
the window: a helper passed arrays every cycle costs reference counting that a light cycle notices, so the
kernels test the cheap conditions (is this a window's edge, has nothing moved) inline and call only then.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import kernel as K
from .records import (BACKLOG_END, BACKLOG_START, DEADLOCK, E_ARR, E_CLAIM, E_DOWN, E_GI, E_LEN, E_LT, E_NEXT, E_OI,
                      E_PKT, E_Q, E_READY, E_SENT, EW, MAX_HELD, PW)


@njit(cache=True, inline="always")
def entries(pool):
    """The entry record (``pool`` rows, fields ``E_*``; links and owners -1) and its free stack, top ``pool``."""
    ent = np.zeros((pool, EW), dtype=np.int64)
    clear_entries(ent, 0, pool)
    return ent, np.arange(pool - 1, -1, -1, dtype=np.int64)


@njit(cache=True, inline="always")
def clear_entries(ent, lo, hi):
    """Rows ``lo..hi - 1`` of the entry record as never used: links and owners -1 (the rest 0, as made)."""
    for e in range(lo, hi):
        ent[e, E_NEXT] = -1
        ent[e, E_GI] = -1
        ent[e, E_OI] = -1
        ent[e, E_LT] = -1
        ent[e, E_CLAIM] = -1
        ent[e, E_DOWN] = -1


@njit(cache=True, inline="always")
def packets(pool):
    """The packet record (``pool`` rows, fields ``P_*``) and its free stack, top ``pool``."""
    return np.zeros((pool, PW), dtype=np.int64), np.arange(pool - 1, -1, -1, dtype=np.int64)


@njit(cache=True, inline="always")
def new_entry(ent, e, pkt, q, flits, gi, oi, arrived, ready):
    """Entry ``e`` made for packet ``pkt`` (of ``flits`` flits) in queue ``q`` of buffer ``gi``, queued for
    switch output ``oi``, with ``arrived`` flits there and its header ready at cycle ``ready``: nothing sent on,
    no output sending it, no entry downstream yet."""
    ent[e, E_PKT] = pkt
    ent[e, E_Q] = q
    ent[e, E_LEN] = flits
    ent[e, E_GI] = gi
    ent[e, E_OI] = oi
    ent[e, E_ARR] = arrived
    ent[e, E_SENT] = 0
    ent[e, E_READY] = ready
    ent[e, E_CLAIM] = -1
    ent[e, E_DOWN] = -1


@njit(cache=True, inline="always")
def window(stats, run, t, backlog):
    """At the cycles that call it (the start and end of the measured window; every cycle with batch means):
    the batch marks and the backlog."""
    if run.batches > 1:
        K.mark_batch(stats, t, run)
    if t == run.warmup:
        stats[BACKLOG_START] = backlog
    if t == run.warmup + run.slots:
        stats[BACKLOG_END] = backlog


@njit(cache=True, inline="always")
def deadlock(stats, backlog):
    """``STALL_CYCLES`` cycles in a row with a backlog and nothing moved: the run is flagged (its caller
    stops)."""
    stats[DEADLOCK] = 1
    stats[K.STAT_OVERFLOW] += 1
    stats[BACKLOG_END] = backlog


@njit(cache=True, inline="always")
def close_run(stats, run, parts, backlog, max_held, granule):
    """The counters at the end of the loop: the backlog if the run ended with its measured window, the most
    flits a buffer held, what is still queued, and the stability rule's worst part."""
    if run.drain == 0 and stats[DEADLOCK] == 0:
        stats[BACKLOG_END] = backlog
    stats[MAX_HELD] = max_held
    stats[K.STAT_QUEUED] = stats[K.STAT_ARRIVED] - stats[K.STAT_DELIVERED]
    K.keep_worst_part(stats, parts, granule)
