"""The shared-memory switch's kernel (issue 37): output queues as linked lists of cells in one memory.

As a shared-memory switch is built: the memory is ``buffer_cells`` cells on a free list, each queue a doubly
linked list through them (``cell[NEXT]``, ``cell[PREV]``, and the arrival slot ``cell[STAMP]``), so state grows
with the memory asked about, not with N times it. Each slot: the cells arrive (inputs in an order rotated every
slot), each admitted to its output's queue by the policy (:func:`room`); then each output sends its head cell;
then the queues are sampled (slot end, after departures).

Admission, read from the model's text alone (``models/shared_buffer.py``), not from the solver: a queue below
its reserve r admits; above it the shared part (B_s = B - N r cells, ``used`` of them held beyond reserves)
decides: ``dt`` while q - r < alpha (B_s - used), ``st`` while q - r < T, ``cs`` while used < B_s, ``cp``
while q < floor(B / N); ``pushout`` admits while the memory has room, and when full drops the last cell of
the longest queue in the arrival's place (or the arrival, when its own queue is as long as any).

Workloads: ``Traffic`` (any unicast pattern), ``Overload`` (queues 0..S-1 fed a cell a slot by each of their
feeders) and ``Incast`` (inputs 0..N-1 send a burst each to the last output every period; the others
Bernoulli background to the other outputs). An incast event records the cells per sender admitted before its
first drop (the burst absorbed) and, when its queue empties, its completion time.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit

from .. import kernel as K

LAYOUT = K.Layout(("m_occupancy_sum",     # cells in the watched queues at each measured slot's end, summed
                   "m_free_sum",          # cells free in the memory at each measured slot's end, summed
                   "occupancy_max",       # the longest watched queue at a measured slot's end
                   "m_events",            # incast events begun while measuring whose burst was fully offered
                   "m_absorbed_sum",      # cells per sender each admitted before its first drop, summed
                   "m_dropping_events",   # events that dropped a cell
                   "m_completion_sum",    # slots from an event's start until its queue emptied, summed
                   "m_completed",         # events whose queue emptied before the next began
                   "m_background_offered",
                   "m_background_delivered",
                   "pushed_out"))         # cells a pushout dropped from a queue (in dropped too)
(M_OCC, M_FREE, OCC_MAX, M_EVENTS, M_ABSORBED, M_DROPPING, M_COMPLETION, M_COMPLETED, M_BG_OFFERED,
 M_BG_DELIVERED, PUSHED_OUT) = (LAYOUT.index(n) for n in LAYOUT.names[K.N_CORE:])

DT, ST, CS, CP, PUSHOUT = 0, 1, 2, 3, 4
POLICY_CODES = {"dt": DT, "st": ST, "cs": CS, "cp": CP, "pushout": PUSHOUT}
TRAFFIC, OVERLOAD, INCAST = 0, 1, 2
NEXT, PREV, STAMP = 0, 1, 2          # rows of the cell memory
HEAD, TAIL, LEN = 0, 1, 2            # rows of the queue table
NIL = -1

# The switch and its workload as the kernel sees them: built by keyword, read by name.
SharedArgs = namedtuple("SharedArgs", "n_ports cells shared reserved policy alpha threshold partition")
LoadArgs = namedtuple("LoadArgs", "kind congested feeders degree burst period background watch_lo watch_hi")


@njit(cache=True, inline="always")
def room(sw, q, used, total):
    """Whether a queue of ``q`` cells admits one more, with ``used`` cells of the shared part held beyond
    reserves and ``total`` cells in the memory (pushout's full memory is its caller's)."""
    if total >= sw.cells:
        return False
    if sw.policy == CP:
        return q < sw.partition
    if q < sw.reserved:
        return True
    if used >= sw.shared:
        return False
    if sw.policy == DT:
        return q - sw.reserved < sw.alpha * (sw.shared - used)
    if sw.policy == ST:
        return q - sw.reserved < sw.threshold
    return True                      # cs, and pushout while the memory has room


@njit(cache=True)
def _push(cell, qs, free, d, stamp):
    """Take the free list's first cell for the tail of queue ``d``; return the new free-list head."""
    c = free
    free = cell[NEXT, c]
    cell[STAMP, c] = stamp
    cell[NEXT, c] = NIL
    cell[PREV, c] = qs[TAIL, d]
    if qs[TAIL, d] == NIL:
        qs[HEAD, d] = c
    else:
        cell[NEXT, qs[TAIL, d]] = c
    qs[TAIL, d] = c
    qs[LEN, d] += 1
    return free


@njit(cache=True)
def _unlink(cell, qs, free, j, c):
    """Return cell ``c`` of queue ``j`` to the free list; the new free-list head."""
    nxt, prv = cell[NEXT, c], cell[PREV, c]
    if prv == NIL:
        qs[HEAD, j] = nxt
    else:
        cell[NEXT, prv] = nxt
    if nxt == NIL:
        qs[TAIL, j] = prv
    else:
        cell[PREV, nxt] = prv
    qs[LEN, j] -= 1
    cell[NEXT, c] = free
    return c


@njit(cache=True)
def _longest(qs, n):
    best = 0
    for j in range(1, n):
        if qs[LEN, j] > qs[LEN, best]:
            best = j
    return best


@njit(cache=True)
def _run_shared(sw, ld, run, tr, stats, parts):
    K.seed_rng(run.seed)
    n, warmup = sw.n_ports, run.warmup
    cell = np.empty((3, sw.cells), dtype=np.int64)
    cell[NEXT, :] = np.arange(1, sw.cells + 1)
    cell[NEXT, sw.cells - 1] = NIL
    free = 0
    qs = np.full((3, n), NIL, dtype=np.int64)
    qs[LEN, :] = 0
    total = 0
    used = 0                         # shared cells held beyond reserves
    burst, arrivals = K.sources(n)
    target = n - 1
    ev_start, ev_drop, ev_open = -1, -1, False
    first = 0
    for t in range(warmup + run.slots):
        K.mark_batch(stats, t, run)
        if ld.kind == TRAFFIC:
            K.draw_arrivals(arrivals, burst, tr, n)
        elif ld.kind == INCAST:
            if t % ld.period == 0:
                ev_start, ev_drop, ev_open = t, -1, True
            sending = t - ev_start < ld.burst
            for i in range(n):
                if i < ld.degree:
                    arrivals[i] = target if sending else -1
                elif ld.background > 0.0 and np.random.random() < ld.background:
                    arrivals[i] = np.random.randint(0, n - 1)
                else:
                    arrivals[i] = -1
        first = K.rr_next(first, n)
        for m in range(n):
            i = first + m if first + m < n else first + m - n
            if ld.kind == OVERLOAD:
                d = i // ld.feeders if i < ld.congested * ld.feeders else -1
            else:
                d = arrivals[i]
            if d < 0:
                continue
            if ld.kind == INCAST and d != target and t >= warmup:
                stats[M_BG_OFFERED] += 1
            q = qs[LEN, d]
            ok = room(sw, q, used, total)
            victim = -1
            if not ok and sw.policy == PUSHOUT:
                victim = _longest(qs, n)
                if qs[LEN, victim] <= q:
                    victim = -1
            # A pushout is counted as the arrival's loss (offered, dropped) while the cell lost is the
            # longest queue's last: conservation (arrived = delivered + queued) holds as for a refusal.
            admitted = K.admit(stats, t, warmup, ok, False)
            K.part_offered(parts, d, t, warmup, admitted or victim >= 0)
            if victim >= 0:
                free = _unlink(cell, qs, free, victim, qs[TAIL, victim])
                K.part_left(parts, victim, t, warmup)
                stats[PUSHED_OUT] += 1
                if qs[LEN, victim] >= sw.reserved:
                    used -= 1
                total -= 1
            if admitted or victim >= 0:
                if q >= sw.reserved:
                    used += 1
                total += 1
                free = _push(cell, qs, free, d, t)
            elif ld.kind == INCAST and d == target and ev_drop < 0:
                ev_drop = t - ev_start
        if ld.kind == INCAST and ev_open and t - ev_start == ld.burst - 1 and ev_start >= warmup:
            stats[M_EVENTS] += 1
            stats[M_ABSORBED] += ld.burst if ev_drop < 0 else ev_drop
            if ev_drop >= 0:
                stats[M_DROPPING] += 1
        for j in range(n):
            c = qs[HEAD, j]
            if c == NIL:
                continue
            if qs[LEN, j] > sw.reserved:
                used -= 1
            total -= 1
            K.depart(stats, parts, j, t, cell[STAMP, c], warmup)
            free = _unlink(cell, qs, free, j, c)
            if ld.kind == INCAST and j != target and t >= warmup:
                stats[M_BG_DELIVERED] += 1
            if ld.kind == INCAST and j == target and ev_open and qs[LEN, j] == 0 and t - ev_start >= ld.burst - 1:
                ev_open = False
                if ev_start >= warmup:
                    stats[M_COMPLETION] += t - ev_start + 1
                    stats[M_COMPLETED] += 1
        if t >= warmup:
            occ = 0
            for j in range(ld.watch_lo, ld.watch_hi):
                occ += qs[LEN, j]
                if qs[LEN, j] > stats[OCC_MAX]:
                    stats[OCC_MAX] = qs[LEN, j]
            stats[M_OCC] += occ
            stats[M_FREE] += sw.cells - total
    K.finish(stats, parts, total, tr)


def args_for(switch):
    """The kernel's record of a :class:`~switchq.models.shared_buffer.SharedBufferSwitch`."""
    return SharedArgs(n_ports=switch.n_ports, cells=switch.buffer_cells, shared=switch.shared_cells,
                      reserved=switch.reserved_cells, policy=POLICY_CODES[switch.policy], alpha=float(switch.alpha),
                      threshold=switch.threshold_cells or 0, partition=switch.buffer_cells // switch.n_ports)


def load_for(workload, n_ports):
    """The kernel's record of a workload: ``Overload``, ``Incast`` or a unicast ``Traffic``."""
    from switchq.models.shared_buffer import Incast, Overload

    if isinstance(workload, Overload):
        return LoadArgs(kind=OVERLOAD, congested=workload.congested, feeders=workload.feeders, degree=0, burst=0,
                        period=1, background=0.0, watch_lo=0, watch_hi=workload.congested)
    if isinstance(workload, Incast):
        return LoadArgs(kind=INCAST, congested=0, feeders=1, degree=workload.degree, burst=workload.burst_cells,
                        period=workload.period, background=workload.background_load, watch_lo=n_ports - 1,
                        watch_hi=n_ports)
    return LoadArgs(kind=TRAFFIC, congested=0, feeders=1, degree=0, burst=0, period=1, background=0.0, watch_lo=0,
                    watch_hi=n_ports)


def _idle_traffic(n_ports):
    from switchq.models.traffic import Traffic

    return K.traffic_arrays(Traffic(load=0.0), n_ports)


def replicate(switch, workload, run):
    """Run one replication (``run``: a :class:`~switchq.validate.kernel.Run`); return its counters (``LAYOUT``)."""
    from switchq.models.traffic import Traffic

    n = switch.n_ports
    tr = K.traffic_arrays(workload, n) if isinstance(workload, Traffic) else _idle_traffic(n)
    stats = LAYOUT.zeros(run)
    _run_shared(args_for(switch), load_for(workload, n), run, tr, stats, K.parts(n))
    return stats
