"""The slotted simulation kernel shared by every architecture.

One slot is one cell time on every link. Each architecture module
(``switchq.validate.arch.*``) writes its own ``@njit`` slot loop out of the
pieces here, so the pieces are written once and every architecture measures
in the same way:

- traffic sources (Bernoulli or on-off bursts; uniform, permutation or any
  destination matrix) that draw from NumPy's generator inside Numba, seeded
  once per replication, so a seed fixes the whole run;
- ring-buffer queues held in preallocated 2-D arrays (one row a queue), with
  removal from inside the window for look-ahead scheduling;
- one counter vector per replication with a fixed layout (``STAT_*``), which
  the harness turns into throughput, wait, loss and the conservation check
  arrived = delivered + queued + dropped.

Conventions (the solvers use the same ones):

- arrivals happen at the start of a slot and may leave in the same slot;
- a cell's *wait* is the number of whole slots before the slot it is sent in,
  its *latency* is wait + 1 (the slot on the link);
- slots ``[0, warmup)`` are discarded; throughput counts cells leaving in the
  measured slots, waits count cells that arrived and left in them.

Nothing here allocates inside a slot loop.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Counter layout of the int64 vector every kernel returns.
STAT_ARRIVED = 0        # cells accepted into the switch, all slots
STAT_DELIVERED = 1      # cells sent to an output link, all slots
STAT_DROPPED = 2        # cells lost at a full buffer, all slots
STAT_QUEUED = 3         # cells still inside at the end
STAT_M_OFFERED = 4      # cells offered (accepted or dropped) in measured slots
STAT_M_DELIVERED = 5    # cells sent in measured slots
STAT_M_DROPPED = 6      # cells dropped in measured slots
STAT_M_WAIT_SUM = 7     # sum of waits of cells that arrived and left in measured slots
STAT_M_WAIT_COUNT = 8   # number of such cells
STAT_OVERFLOW = 9       # arrivals refused because an "unbounded" queue hit its storage
STAT_M_LATENCY_SUM = 10    # sum of latencies (per cell, or per burst where the architecture says so)
STAT_M_LATENCY_COUNT = 11
STAT_M_LATENCY_SUM_P = 12  # ... the same per priority, 4 slots each (priority 0 first)
STAT_M_LATENCY_COUNT_P = 16
# Flow-control protocol counters (buffered crossbar), all slots.
STAT_SPECULATIVE = 20      # speculative transmissions
STAT_RETRANSMISSIONS = 21  # credited retransmissions (after a NAK, or of a speculative cell)
STAT_NAKS = 22             # cells dropped at a crosspoint with a NAK (full, out of order, replaced)
STAT_DUPLICATES = 23       # duplicate copies dropped silently
STAT_REPLACEMENTS = 24     # cells replaced by higher-priority arrivals
STAT_ORDER_ERRORS = 25     # cells delivered out of order or twice (must stay 0)
STAT_CREDIT_MIN = 26       # smallest and largest credit count seen
STAT_CREDIT_MAX = 27
STAT_RTX_MAX = 28          # largest retransmission-buffer occupancy seen
STAT_CREDITED_DROPS = 29   # credited cells dropped for lack of room (must stay 0)
STAT_CREDITS_OUT = 30      # credits not back at the end (0 once a run has drained)
STAT_M_COPIES = 31         # multicast copies sent to outputs in measured slots
STAT_COPIES = 32           # multicast copies sent, all slots
STAT_COPIES_OWED = 33      # destinations of every accepted multicast packet, all slots
STAT_BACKLOG_START = 34    # packets waiting at the sources when measuring starts (networks)
STAT_BACKLOG_END = 35      # ... and when it ends: growth means the load exceeds what is carried
N_STATS = 36

# Destination pattern kinds understood by draw_destination.
DEST_UNIFORM = 0
DEST_PERMUTATION = 1
DEST_MATRIX = 2

# Storage of an "unbounded" queue. Reaching it means the offered load exceeds
# what the architecture can carry (the queue would grow without limit); the
# harness then reports the run as unstable instead of quietly truncating.
UNBOUNDED_CELLS = 1 << 12


@njit(cache=True)
def seed_rng(seed):
    """Seed Numba's generator (separate from NumPy's outside the kernel)."""
    np.random.seed(seed)


@njit(cache=True, inline="always")
def draw_destination(i, kind, perm, cdf, n_ports):
    """Output port of a new cell (or burst) from input ``i``."""
    if kind == DEST_UNIFORM:
        # Scaling a uniform float is several times cheaper than randint in Numba.
        return int(np.random.random() * n_ports)
    if kind == DEST_PERMUTATION:
        return perm[i]
    # Inverse-CDF by bisection on row i; written out because slicing a row
    # in the hot loop costs more than the search.
    u = np.random.random()
    lo = 0
    hi = n_ports - 1
    while lo < hi:
        mid = (lo + hi) >> 1
        if cdf[i, mid] > u:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True)
def draw_arrivals(arrivals, burst_dest, p_start, p_end, kind, perm, cdf, n_ports):
    """Fill ``arrivals[i]`` with the destination of the cell arriving at input i this slot (-1: none).

    ``burst_dest[i]`` is the destination of the burst in progress (-1: idle).
    An idle source starts a burst with probability ``p_start``; after each cell
    the burst ends with probability ``p_end`` = 1 / mean_burst. Bernoulli
    traffic is the case p_end = 1, p_start = load. One call per slot fills all
    inputs, so the per-input work is a tight loop with no call overhead.
    """
    if p_end >= 1.0 and kind == DEST_UNIFORM:
        # The common case, Bernoulli and uniform, kept branch-light.
        for i in range(n_ports):
            if p_start < 1.0 and np.random.random() >= p_start:
                arrivals[i] = -1
            else:
                arrivals[i] = int(np.random.random() * n_ports)
        return
    for i in range(n_ports):
        d = burst_dest[i]
        if d < 0:
            if p_start < 1.0 and np.random.random() >= p_start:
                arrivals[i] = -1
                continue
            d = draw_destination(i, kind, perm, cdf, n_ports)
        if p_end < 1.0 and np.random.random() >= p_end:
            burst_dest[i] = d
        else:
            burst_dest[i] = -1
        arrivals[i] = d


@njit(cache=True)
def popcount(x):
    """Number of set bits of a non-negative int64 (a port or destination mask)."""
    c = 0
    while x:
        x &= x - 1
        c += 1
    return c


def queue_limit(buffer_cells):
    """``(unbounded, limit, storage)`` of a queue configured with ``buffer_cells`` (None: unbounded)."""
    unbounded = buffer_cells is None
    limit = UNBOUNDED_CELLS if unbounded else buffer_cells
    return unbounded, limit, ring_storage(limit)


def ring_storage(limit):
    """Ring size for a queue of at most ``limit`` cells: a power of two, so
    positions wrap with a mask (``& (size - 1)``) instead of a division."""
    return 1 << max(0, int(limit) - 1).bit_length()


@njit(cache=True)
def ring_push(q_val, q_head, q_len, row, value):
    """Append ``value`` to queue ``row``; the caller has checked there is room."""
    mask = q_val.shape[1] - 1
    q_val[row, (q_head[row] + q_len[row]) & mask] = value
    q_len[row] += 1


@njit(cache=True)
def ring_pop(q_val, q_head, q_len, row):
    """Remove and return the head of queue ``row``; the caller has checked it is not empty."""
    mask = q_val.shape[1] - 1
    v = q_val[row, q_head[row]]
    q_head[row] = (q_head[row] + 1) & mask
    q_len[row] -= 1
    return v


@njit(cache=True)
def ring_remove_at(q_vals, n_arrays, q_head, q_len, row, pos):
    """Remove position ``pos`` of queue ``row`` from each of the parallel rings in ``q_vals``.

    Cells ahead of ``pos`` move back by one, so order is kept; costs O(pos),
    at most the scheduling window.
    """
    mask = q_vals.shape[2] - 1
    h = q_head[row]
    for k in range(pos, 0, -1):
        dst = (h + k) & mask
        src = (h + k - 1) & mask
        for a in range(n_arrays):
            q_vals[a, row, dst] = q_vals[a, row, src]
    q_head[row] = (h + 1) & mask
    q_len[row] -= 1


@njit(cache=True)
def admit(stats, t, warmup, room, unbounded):
    """Count a cell offered in slot ``t``; return True if it is accepted (``room``), else count the drop.

    A drop at an "unbounded" queue is an overflow of its storage, flagged separately.
    """
    if t >= warmup:
        stats[STAT_M_OFFERED] += 1
    if room:
        stats[STAT_ARRIVED] += 1
        return True
    stats[STAT_DROPPED] += 1
    if t >= warmup:
        stats[STAT_M_DROPPED] += 1
    if unbounded:
        stats[STAT_OVERFLOW] += 1
    return False


@njit(cache=True)
def count_departure(stats, t, arrival, warmup):
    """A cell leaves in slot ``t``: throughput, and its wait and latency if it arrived measured."""
    stats[STAT_DELIVERED] += 1
    if t >= warmup:
        stats[STAT_M_DELIVERED] += 1
        if arrival >= warmup:
            stats[STAT_M_WAIT_SUM] += t - arrival
            stats[STAT_M_WAIT_COUNT] += 1
            stats[STAT_M_LATENCY_SUM] += t - arrival + 1
            stats[STAT_M_LATENCY_COUNT] += 1
            stats[STAT_M_LATENCY_SUM_P] += t - arrival + 1
            stats[STAT_M_LATENCY_COUNT_P] += 1


def traffic_arrays(traffic, n_ports):
    """Plain arrays and scalars describing ``traffic`` for the kernels.

    Returns ``(p_start, p_end, kind, perm, cdf)``; see :func:`next_arrival`.
    """
    from switchq.models.traffic import PERMUTATIONS

    p_end = 1.0 / traffic.mean_burst
    load = traffic.load
    if load >= 1.0:
        p_start = 1.0
    else:
        # Idle periods of mean B (1 - load) / load slots keep the long-run rate at load.
        p_start = load / (load + traffic.mean_burst * (1.0 - load))
    perm = np.zeros(n_ports, dtype=np.int64)
    cdf = np.ones((1, 1))
    if traffic.pattern == "uniform":
        kind = DEST_UNIFORM
    elif traffic.pattern in PERMUTATIONS:
        kind = DEST_PERMUTATION
        perm = traffic.permutation(n_ports).astype(np.int64)
    else:
        kind = DEST_MATRIX
        cdf = np.cumsum(traffic.destination_matrix(n_ports), axis=1)
        cdf[:, -1] = 1.0  # guard against rounding leaving the last bin short
    return p_start, p_end, kind, perm, cdf
