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

LAYOUT = K.Layout()


@njit(cache=True)
def _run_oq(n, limit, unbounded, storage, run, tr, stats, parts):
    K.seed_rng(run.seed)
    warmup = run.warmup
    q = np.zeros((n, storage), dtype=np.int64)   # arrival slot of each queued cell
    q_head = np.zeros(n, dtype=np.int64)
    q_len = np.zeros(n, dtype=np.int64)
    burst, arrivals = K.sources(n)
    first = 0
    for t in range(warmup + run.slots):
        K.mark_batch(stats, t, run)
        K.draw_arrivals(arrivals, burst, tr, n)
        first = K.rr_next(first, n)
        for m in range(n):
            i = first + m
            if i >= n:
                i -= n
            d = arrivals[i]
            if d < 0:
                continue
            # admit and part_offered apart: one helper for both cost this loop 1.7x (kernel.part_offered)
            admitted = K.admit(stats, t, warmup, q_len[d] < limit, unbounded)
            K.part_offered(parts, d, t, warmup, admitted)
            if admitted:
                K.ring_push(q, q_head, q_len, d, t)
        for j in range(n):
            if q_len[j] > 0:
                K.depart(stats, parts, j, t, K.ring_pop(q, q_head, q_len, j), warmup)
    K.finish(stats, parts, q_len.sum(), tr)


def replicate(switch, traffic, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    n = switch.n_ports
    unbounded, limit, storage = K.queue_limit(switch.output_buffer_cells)
    stats = LAYOUT.zeros(run)
    _run_oq(n, limit, unbounded, storage, run, K.traffic_arrays(traffic, n), stats, K.parts(n))
    return stats
