"""Ideal output queuing (speedup N), with optional finite output buffers.

Karol, Hluchyj & Morgan 1987 §IV; paper 000 §2.2. Every cell crosses the
fabric in its arrival slot and joins its output's FIFO; each output sends one
cell per slot. An output buffer of b cells counts the cell being sent (Karol's
b): arrivals that find b cells are lost. Simultaneous arrivals join in an
order rotated every slot, so no input is favoured.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K


@njit(cache=True)
def _run_oq(n_ports, limit, unbounded, storage, slots, warmup, seed,
            p_start, p_end, kind, perm, cdf, stats):
    K.seed_rng(seed)
    n = n_ports
    q = np.zeros((n, storage), dtype=np.int64)   # arrival slot of each queued cell
    q_head = np.zeros(n, dtype=np.int64)
    q_len = np.zeros(n, dtype=np.int64)
    burst = np.full(n, -1, dtype=np.int64)
    arrivals = np.empty(n, dtype=np.int64)
    first = 0
    for t in range(warmup + slots):
        K.draw_arrivals(arrivals, burst, p_start, p_end, kind, perm, cdf, n)
        first = first + 1 if first + 1 < n else 0
        for m in range(n):
            i = first + m
            if i >= n:
                i -= n
            d = arrivals[i]
            if d < 0:
                continue
            if K.admit(stats, t, warmup, q_len[d] < limit, unbounded):
                K.ring_push(q, q_head, q_len, d, t)
        for j in range(n):
            if q_len[j] > 0:
                K.count_departure(stats, t, K.ring_pop(q, q_head, q_len, j), warmup)
    stats[K.STAT_QUEUED] = q_len.sum()


def replicate(switch, traffic, slots, warmup_slots, seed):
    """Run one replication; return the int64 counter vector (``kernel.STAT_*``)."""
    n = switch.n_ports
    unbounded, limit, storage = K.queue_limit(switch.output_buffer_cells)
    p_start, p_end, kind, perm, cdf = K.traffic_arrays(traffic, n)
    stats = np.zeros(K.N_STATS, dtype=np.int64)
    _run_oq(n, limit, unbounded, storage, slots, warmup_slots, seed,
            p_start, p_end, kind, perm, cdf, stats)
    return stats
