"""The steps of a shared-memory switch's slot (issue 37), each over the packed state of
:mod:`switchq.validate.arch.shared_buffer_state` and inlined into :func:`switchq.validate.arch.shared_buffer._run`.

A slot: :func:`offer` (what each input sends, a paused sender holding its cells), :func:`admit_all` (each cell
admitted by the policy, inputs in an order rotated every slot; a lossless cell by its input group's PFC
accounting), :func:`depart_all` (each output sends its head cell; a group that drained to XON resumes its
sender) and :func:`sample` (the queues at slot end, after departures).

Queues are (output, priority) pairs, output o's of priority p at o P + p; an output sends its highest
nonempty priority's head cell (strict priority). Admission, read from the model's text alone
(``models/shared_buffer.py``), not from the solver. Lossy: a queue below its reserve r admits; above it the
shared part (B_s = B - N P r cells, ``used`` held beyond reserves, a lossless class's cells in the shared
memory among them) decides: ``dt`` while q - r < alpha_p (B_s - used), ``st`` while q - r < T, ``cs`` while
used < B_s, ``cp`` while q < floor(B / (N P)); ``pushout`` admits while the memory has room, and when full drops the last cell of
the longest queue in the arrival's place (or the arrival, when its own queue is as long as any). Lossless
(IEEE 802.1Qbb's PFC with ingress accounting, as SONiC configures it): an ingress group's (an input's
cells of one lossless priority) are counted in
the shared memory (while it has room) until the group reaches its XOFF threshold (``xoff`` cells, or
``xoff_alpha`` times the free memory) and sends XOFF for that priority; what it holds from then on is its headroom, its private
headroom first, then the shared headroom pool, and a cell is lost only when both are full. Its sender stops
``pause_slots`` after the XOFF (the cells in flight land in the headroom) and resumes ``pause_slots`` after the
group, its headroom given back, drains to the higher of ``xon`` and the threshold less ``xon_offset``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import kernel as K
from .cell_lists import append, give, remove, take
from .shared_buffer_state import (ARRIVAL, BURST, CP, DT, EV_DROP, EV_OPEN, EV_START, FIRST, HEAD, HR_PEAK, IN_POOL,
                                  IN_PRIVATE, IN_SHARED, INCAST, ING, LEFT, LEN, LOSSLESS_DROPS, M_ABSORBED,
                                  M_BG_DELIVERED, M_BG_OFFERED, M_COMPLETED, M_COMPLETION, M_DROPPED_P, M_DROPPING,
                                  M_EVENTS, M_FREE, M_OCC, M_OCC_P, M_OFFERED_P, M_PAUSED, M_XOFFS, NEVER, NIL,
                                  OCC_MAX, OCC_P99, OVERLOAD, POOL, POOL_PEAK, POOL_USED, PRIO, PRIVATE, PUSHED_OUT, PUSHOUT,
                                  RESUME_AT, SRC, ST, STAMP, STOP_AT, TAIL, TOTAL, TRAFFIC, USED, XOFF)


@njit(cache=True, inline="always")
def room(sw, q, used, total, alpha):
    """Whether a queue of ``q`` cells (its priority's ``alpha``) admits one more lossy cell, with ``used`` cells of
    the shared part held beyond reserves and ``total`` cells in the shared memory (pushout's full memory is its
    caller's)."""
    if total >= sw.cells:
        return False
    if sw.policy == CP:
        return q < sw.partition
    if q < sw.reserved:
        return True
    if used >= sw.shared:
        return False
    if sw.policy == DT:
        return q - sw.reserved < alpha * (sw.shared - used)
    if sw.policy == ST:
        return q - sw.reserved < sw.threshold
    return True                      # cs, and pushout while the memory has room


@njit(cache=True, inline="always")
def xoff_point(sw, g):
    """The cells a lossless group may hold in the shared memory before it sends XOFF: static, or alpha times the
    shared memory still free (a dynamic threshold, as SONiC's lossless ``dynamic_th``)."""
    if sw.xoff_alpha > 0.0:
        return sw.xoff_alpha * (sw.cells - g[TOTAL])
    return float(sw.xoff)


@njit(cache=True, inline="always")
def sending(grp, k, t):
    """Whether group ``k``'s sender may send in slot ``t``: not between its stop and its resume."""
    return not (grp[STOP_AT, k] <= t < grp[RESUME_AT, k])


@njit(cache=True, inline="always")
def push(cell, qs, g, d, stamp, src):
    """Take a free cell for the tail of queue ``d``."""
    c = take(cell, g)
    cell[STAMP, c] = stamp
    cell[SRC, c] = src
    append(cell, qs, d, c)


@njit(cache=True, inline="always")
def unlink(cell, qs, g, j, c):
    """Cell ``c`` of queue ``j`` leaves it, back to the free list."""
    remove(cell, qs, j, c)
    give(cell, g, c)


@njit(cache=True)
def longest(qs, n):
    best = 0
    for j in range(1, n):
        if qs[LEN, j] > qs[LEN, best]:
            best = j
    return best


@njit(cache=True, inline="always")
def _arrival(ports, g, sw, ld, i):
    """Input ``i``'s cell of the slot into ``ports[ARRIVAL, i]`` (its output, -1: none) and ``ports[PRIO, i]``
    (a priority drawn only with several, so one priority's run draws what it always did)."""
    n, npri = sw.n_ports, sw.priorities
    prio = 0
    if ld.kind == OVERLOAD:
        k = i // ld.feeders
        ports[ARRIVAL, i] = k if i < ld.congested * ld.feeders else -1
        prio = k % npri
    elif ld.kind == INCAST:
        if i < ld.degree:
            ports[ARRIVAL, i] = n - 1 if ports[LEFT, i] > 0 else -1
            prio = ld.priority
        elif ld.background > 0.0 and np.random.random() < ld.background:
            ports[ARRIVAL, i] = np.random.randint(0, n - 1)
            if npri > 1:
                prio = np.random.randint(0, npri)
        else:
            ports[ARRIVAL, i] = -1
    elif npri > 1 and ports[ARRIVAL, i] >= 0:
        prio = np.random.randint(0, npri)
    ports[PRIO, i] = prio


@njit(cache=True, inline="always")
def offer(ports, grp, g, sw, ld, t, run, tr, stats):
    """This slot's arrivals into ``ports[ARRIVAL]``: a paused sender sends nothing of its paused priority (an
    incast sender keeps its cells for later; a Bernoulli source draws none); a watched sender's paused slots
    are counted, over its classes."""
    n, npri = sw.n_ports, sw.priorities
    if ld.kind == TRAFFIC:
        K.draw_arrivals(ports[ARRIVAL], ports[BURST], tr, n)
    elif ld.kind == INCAST and t % ld.period == 0:
        g[EV_START], g[EV_DROP], g[EV_OPEN] = t, -1, 1
        for i in range(ld.degree):
            ports[LEFT, i] += ld.burst
    for i in range(n):
        _arrival(ports, g, sw, ld, i)
        k = i * npri + ports[PRIO, i]
        if t >= run.warmup and i < ld.senders:
            if ld.classes == 1:
                stats[M_PAUSED] += not sending(grp, k, t)
            else:
                for p in range(npri):
                    stats[M_PAUSED] += not sending(grp, i * npri + p, t)
        if not sending(grp, k, t):
            ports[ARRIVAL, i] = -1
        if ld.kind == INCAST and ports[ARRIVAL, i] == n - 1 and i < ld.degree:
            ports[LEFT, i] -= 1


@njit(cache=True, inline="always")
def _xoff(sw, grp, k, t, warmup, stats):
    """Group ``k`` sends XOFF in slot ``t``: its sender stops ``pause_slots`` later (unless it still is)."""
    grp[XOFF, k] = 1
    if grp[RESUME_AT, k] <= t or grp[STOP_AT, k] == NEVER:
        grp[STOP_AT, k] = t + 1 + sw.pause_slots
    grp[RESUME_AT, k] = NEVER
    if t >= warmup:
        stats[M_XOFFS] += 1


@njit(cache=True, inline="always")
def admit_lossless(cell, qs, grp, g, sw, k, d, t, warmup, stats, parts):
    """A lossless cell of group ``k`` for queue ``d``. Its group's cells are counted, not tagged: in the shared
    memory until the group sends XOFF (a static threshold is never passed), the rest in its private headroom,
    then in the pool (what a group holds from its XOFF on is its headroom); lost only when both are full."""
    # A group that has not sent XOFF takes its cell into the shared memory while the memory has room, then sends
    # XOFF if it is at its threshold: the cell that crosses a threshold (a dynamic one may fall under the group
    # between its cells) is the last before the pause, so the headroom holds exactly the cells in flight.
    where = -1
    if grp[XOFF, k] == 0 and grp[PRIVATE, k] + grp[POOL, k] == 0 and g[TOTAL] < sw.cells and \
            (sw.xoff_alpha > 0.0 or grp[ING, k] < sw.xoff):
        where = IN_SHARED
    elif grp[PRIVATE, k] < sw.headroom:
        where = IN_PRIVATE
    elif g[POOL_USED] < sw.pool:
        where = IN_POOL
    admitted = K.admit(stats, t, warmup, where >= 0, False)
    K.part_offered(parts, d, t, warmup, admitted)
    if not admitted:
        if t >= warmup:
            stats[LOSSLESS_DROPS] += 1
            stats[M_DROPPED_P + d % sw.priorities] += 1
        return False
    push(cell, qs, g, d, t, k)
    if where == IN_SHARED:
        g[TOTAL] += 1
        g[USED] += 1               # the lossy queues' dynamic threshold sees it taken (no reserves with lossless)
        grp[ING, k] += 1
        if grp[ING, k] >= xoff_point(sw, g) and grp[XOFF, k] == 0:
            _xoff(sw, grp, k, t, warmup, stats)
        return True
    if grp[XOFF, k] == 0:            # the memory was full before the group reached its threshold
        _xoff(sw, grp, k, t, warmup, stats)
    if where == IN_PRIVATE:
        grp[PRIVATE, k] += 1
    else:
        grp[POOL, k] += 1
        g[POOL_USED] += 1
        if g[POOL_USED] > stats[POOL_PEAK]:
            stats[POOL_PEAK] = g[POOL_USED]
    if grp[PRIVATE, k] + grp[POOL, k] > stats[HR_PEAK]:
        stats[HR_PEAK] = grp[PRIVATE, k] + grp[POOL, k]
    return True


@njit(cache=True, inline="always")
def admit_lossy(cell, qs, g, sw, k, d, t, warmup, stats, parts):
    """A lossy cell of group ``k`` for queue ``d``, by the policy (pushout making room when the memory is full)."""
    q = qs[LEN, d]
    ok = room(sw, q, g[USED], g[TOTAL], sw.alphas[d % sw.priorities])
    victim = -1
    if not ok and sw.policy == PUSHOUT:
        victim = longest(qs, qs.shape[1])
        if qs[LEN, victim] <= q:
            victim = -1
    # A pushout is counted as the arrival's loss (offered, dropped) while the cell lost is the longest queue's
    # last: conservation (arrived = delivered + queued) holds as for a refusal. Per priority, the loss is the
    # cell lost's.
    admitted = K.admit(stats, t, warmup, ok, False)
    K.part_offered(parts, d, t, warmup, admitted or victim >= 0)
    if not admitted and t >= warmup:
        stats[M_DROPPED_P + (victim if victim >= 0 else d) % sw.priorities] += 1
    if victim >= 0:
        unlink(cell, qs, g, victim, qs[TAIL, victim])
        K.part_left(parts, victim, t, warmup)
        stats[PUSHED_OUT] += 1
        if qs[LEN, victim] >= sw.reserved:
            g[USED] -= 1
        g[TOTAL] -= 1
    if admitted or victim >= 0:
        if q >= sw.reserved:
            g[USED] += 1
        g[TOTAL] += 1
        push(cell, qs, g, d, t, k)
        return True
    return False


@njit(cache=True, inline="always")
def admit_all(cell, qs, grp, ports, g, sw, ld, t, run, stats, parts):
    """Every arrival of the slot, inputs in an order rotated every slot (so none is favoured)."""
    n, npri = sw.n_ports, sw.priorities
    g[FIRST] = K.rr_next(g[FIRST], n)
    for m in range(n):
        i = g[FIRST] + m if g[FIRST] + m < n else g[FIRST] + m - n
        out = ports[ARRIVAL, i]
        if out < 0:
            continue
        prio = ports[PRIO, i]
        d, k = out * npri + prio, i * npri + prio
        if t >= run.warmup:
            stats[M_OFFERED_P + prio] += 1
            if ld.kind == INCAST and out != n - 1:
                stats[M_BG_OFFERED] += 1
        if sw.lossless_p[prio]:
            admitted = admit_lossless(cell, qs, grp, g, sw, k, d, t, run.warmup, stats, parts)
        else:
            admitted = admit_lossy(cell, qs, g, sw, k, d, t, run.warmup, stats, parts)
        if not admitted and ld.kind == INCAST and out == n - 1 and g[EV_DROP] < 0:
            g[EV_DROP] = t - g[EV_START]
    if ld.kind == INCAST and g[EV_OPEN] == 1 and t - g[EV_START] == ld.burst - 1 and g[EV_START] >= run.warmup \
            and not sw.lossless_p[ld.priority]:
        stats[M_EVENTS] += 1
        stats[M_ABSORBED] += ld.burst if g[EV_DROP] < 0 else g[EV_DROP]
        if g[EV_DROP] >= 0:
            stats[M_DROPPING] += 1


@njit(cache=True, inline="always")
def _release(cell, grp, g, sw, c, t, lossless):
    """A departing cell leaves its count: a lossy cell the shared memory; a lossless one its group, which
    gives back the pool first, then its private headroom, then the shared memory (a group's headroom is what
    it holds above its threshold). A lossless group drained to XON resumes its sender."""
    if not lossless:
        g[TOTAL] -= 1
        return
    k = cell[SRC, c]
    if grp[POOL, k] > 0:
        grp[POOL, k] -= 1
        g[POOL_USED] -= 1
    elif grp[PRIVATE, k] > 0:
        grp[PRIVATE, k] -= 1
    else:
        grp[ING, k] -= 1
        g[TOTAL] -= 1
        g[USED] -= 1
    # XON once the group is back under its threshold less the offset with its headroom given back (headroom
    # drains first, so a static threshold implies it): a dynamic threshold may rise while headroom is still held,
    # and a group resumed then would meet its next XOFF with less than the cells in flight.
    # Strictly under the threshold too, so that a group resumed with no offset crosses it again in the shared
    # memory (the cell that crosses is the last before the pause) rather than in its headroom.
    point = xoff_point(sw, g)
    if grp[XOFF, k] == 1 and grp[PRIVATE, k] + grp[POOL, k] == 0 and grp[ING, k] < point and \
            grp[ING, k] <= max(float(sw.xon), point - sw.xon_offset):
        grp[XOFF, k] = 0
        grp[RESUME_AT, k] = t + 1 + sw.pause_slots


@njit(cache=True, inline="always")
def _served(qs, j, npri):
    """Output ``j``'s queue to send from: its highest nonempty priority's (strict priority), -1 if none."""
    for p in range(npri - 1, -1, -1):
        if qs[LEN, j * npri + p] > 0:
            return j * npri + p
    return -1


@njit(cache=True, inline="always")
def depart_all(cell, qs, grp, g, sw, ld, t, run, stats, parts):
    """Each output sends its head cell of its highest nonempty priority; an incast's queue emptying completes
    its event."""
    n, npri = sw.n_ports, sw.priorities
    incast_q = (n - 1) * npri + ld.priority
    for j in range(n):
        q = _served(qs, j, npri)
        if q < 0:
            continue
        c = qs[HEAD, q]
        lossless = sw.lossless_p[q % npri] == 1
        if not lossless and qs[LEN, q] > sw.reserved:
            g[USED] -= 1
        K.depart(stats, parts, q, t, cell[STAMP, c], run.warmup)
        _release(cell, grp, g, sw, c, t, lossless)
        unlink(cell, qs, g, q, c)
        if ld.kind == INCAST and j != n - 1 and t >= run.warmup:
            stats[M_BG_DELIVERED] += 1
        if ld.kind == INCAST and q == incast_q and g[EV_OPEN] == 1 and qs[LEN, q] == 0 and \
                t - g[EV_START] >= ld.burst - 1:
            g[EV_OPEN] = 0
            if g[EV_START] >= run.warmup:
                stats[M_COMPLETION] += t - g[EV_START] + 1
                stats[M_COMPLETED] += 1


@njit(cache=True, inline="always")
def watched(sw, ld, m):
    """The ``m``-th watched queue: the k-th congested one (output k, priority k mod P), the incast's, or any."""
    if ld.kind == OVERLOAD:
        return m * sw.priorities + m % sw.priorities
    if ld.kind == INCAST:
        return (sw.n_ports - 1) * sw.priorities + ld.priority
    return m


@njit(cache=True, inline="always")
def sample(qs, g, hist, sw, ld, t, run, stats):
    """The watched queues (overall, per priority and their lengths' histogram) and the free shared memory at slot
    end, after departures."""
    if t < run.warmup:
        return
    count = ld.congested if ld.kind == OVERLOAD else 1 if ld.kind == INCAST else qs.shape[1]
    occ = 0
    for m in range(count):
        q = watched(sw, ld, m)
        occ += qs[LEN, q]
        hist[qs[LEN, q]] += 1
        stats[M_OCC_P + q % sw.priorities] += qs[LEN, q]
        if qs[LEN, q] > stats[OCC_MAX]:
            stats[OCC_MAX] = qs[LEN, q]
    stats[M_OCC] += occ
    stats[M_FREE] += sw.cells - g[TOTAL]


@njit(cache=True)
def percentile_99(hist, stats):
    """The least length at least 99 % of the watched queues' slot-end samples are at or under, into ``stats``."""
    total = hist.sum()
    if total == 0:
        return
    seen = 0
    for x in range(hist.size):
        seen += hist[x]
        if 100 * seen >= 99 * total:
            stats[OCC_P99] = x
            return
