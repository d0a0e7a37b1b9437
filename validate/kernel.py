"""The toolkit every simulation kernel is built from.

Each architecture module (``switchq.validate.arch.*``) writes its own
``@njit`` loop out of the pieces here, so the pieces are written once and
every architecture measures in the same way:

- a counter **layout**: the core counters every slotted kernel keeps
  (``STAT_*``), then the architecture's own, appended and named
  (:class:`Layout`); the harness reads counters by name, never by position;
- traffic sources (Bernoulli or on-off bursts; uniform, permutation or any
  destination matrix) that draw from NumPy's generator inside Numba, seeded
  once per replication, so a seed fixes the whole run; the destination
  codes ``DEST_*`` are the only ones any kernel uses;
- ring-buffer queues in preallocated 2-D arrays (one row a queue, a power
  of two long so positions wrap with a mask), with removal from inside the
  window for look-ahead scheduling;
- a binary event heap for event-driven kernels (integer times);
- round-robin pointers and popcount for port masks.

Conventions (the solvers use the same ones):

- arrivals happen at the start of a slot and may leave in the same slot;
- a cell's *wait* is the number of whole slots before the slot it is sent in,
  its *latency* is wait + 1 (the slot on the link);
- slots ``[0, warmup)`` are discarded; throughput counts cells leaving in the
  measured slots, waits count cells that arrived and left in them.

Nothing here allocates inside a slot loop.
"""

from __future__ import annotations

from collections import namedtuple

import numpy as np
from numba import njit


__all__ = ["Layout", "CORE", "Run", "TrafficArrays", "traffic_arrays", "queue_limit", "ring_storage"]

# The core counters of every slotted kernel, in this order at the start of its counter vector.
CORE = ("arrived",            # cells accepted into the system, all slots
        "delivered",          # cells sent to an output link, all slots
        "dropped",            # cells lost at a full buffer, all slots
        "queued",             # cells still inside at the end
        "m_offered",          # cells offered (accepted or dropped) in measured slots
        "m_delivered",        # cells sent in measured slots
        "m_dropped",          # cells dropped in measured slots
        "m_wait_sum",         # sum of waits of cells that arrived and left in measured slots
        "m_wait_count",       # number of such cells
        "overflow",           # arrivals refused because an "unbounded" queue hit its storage
        "m_latency_sum",      # sum of latencies (per cell, or per burst/packet where the architecture says so)
        "m_latency_count",
        "part",               # the part (see parts) whose backlog grew most beyond its allowance, -1: none kept
        "part_growth",        # its backlog's growth while measuring
        "part_offered")       # what was offered to it while measuring
(STAT_ARRIVED, STAT_DELIVERED, STAT_DROPPED, STAT_QUEUED, STAT_M_OFFERED, STAT_M_DELIVERED, STAT_M_DROPPED,
 STAT_M_WAIT_SUM, STAT_M_WAIT_COUNT, STAT_OVERFLOW, STAT_M_LATENCY_SUM, STAT_M_LATENCY_COUNT,
 STAT_PART, STAT_PART_GROWTH, STAT_PART_OFFERED) = range(len(CORE))
N_CORE = len(CORE)


class Layout:
    """Names of the columns of a kernel's counter vector: the core counters, then the kernel's own.

    Examples
    --------
    >>> lay = Layout(("copies", "copies_owed"))
    >>> lay.index("arrived"), lay.index("copies_owed"), lay.size
    (0, 16, 17)
    >>> lay.named(np.arange(17))["copies"]
    15
    >>> Layout(("completion_ps",), core=False).size
    1
    """

    def __init__(self, extra=(), core: bool = True):
        self.names = (CORE if core else ()) + tuple(extra)
        if len(set(self.names)) != len(self.names):
            raise ValueError(f"duplicate counter names in {self.names}")
        self._index = {name: i for i, name in enumerate(self.names)}

    @property
    def size(self) -> int:
        return len(self.names)

    def index(self, name: str) -> int:
        return self._index[name]

    def __contains__(self, name) -> bool:
        return name in self._index

    def zeros(self, run=None, dtype=np.int64) -> np.ndarray:
        """A fresh counter vector; with batch means (``run.batches`` > 1), room after it for the
        counters at the start of each batch (:func:`mark_batch`)."""
        blocks = 1 if run is None or run.batches < 2 else run.batches + 1
        out = np.zeros(self.size * blocks, dtype=dtype)
        if "part" in self._index:
            out[self._index["part"]] = -1
        return out

    def named(self, row) -> dict:
        """One counter vector as ``{name: value}`` (Python numbers); batch blocks left out."""
        return {name: row[i].item() for i, name in enumerate(self.names)}

    def column(self, rows: np.ndarray, name: str) -> np.ndarray:
        """Column ``name`` of a replications x counters array."""
        return rows[:, self._index[name]]


# What a slotted kernel is told about the run: measured slots, discarded warm-up, slots run on without
# arrivals afterwards (to drain, for conservation checks), the replication's seed, and how many batches
# the measured slots form for batch means (1: none; see mark_batch).
Run = namedtuple("Run", "slots warmup drain seed batches", defaults=(1,))


def batch_slots(slots: int, batches: int) -> np.ndarray:
    """Measured slots of each batch: equal, the last taking the remainder (as :func:`mark_batch` cuts them)."""
    out = np.full(batches, slots // batches, dtype=np.int64)
    out[-1] += slots - out.sum()
    return out


@njit(cache=True, inline="always")
def mark_batch(stats, t, run):
    """Batch means: at the start of measured slot ``t`` that begins batch b, copy the counters into block b + 1.

    Called once per slot by every slotted kernel. Block 0 of ``stats`` is the
    live counter vector; the harness takes batch b's counters as block b + 2
    minus block b + 1 (block 0 for the last), so a kernel counts as usual.
    """
    if run.batches > 1:
        k = t - run.warmup
        length = run.slots // run.batches
        if k >= 0 and k % length == 0 and k // length < run.batches:
            size = stats.size // (run.batches + 1)
            b = k // length + 1
            stats[b * size:(b + 1) * size] = stats[:size]
# Arrival process and destinations of a switch's traffic (see traffic_arrays).
TrafficArrays = namedtuple("TrafficArrays", "p_start p_end kind perm cdf")

# Destination kinds: the one numbering every kernel uses.
DEST_UNIFORM = 0        # any output (or, on a network, any other node), uniformly
DEST_PERMUTATION = 1    # perm[source]
DEST_MATRIX = 2         # row `source` of a destination CDF
DEST_MULTICAST = 3      # a set: size from a fanout law, uniform given its size

# Storage of an "unbounded" queue. Reaching it means the offered load exceeds what the architecture
# can carry (the queue would grow without limit); the harness then reports the run as unstable
# instead of quietly truncating.
UNBOUNDED_CELLS = 1 << 12
# A warm-up that never ends: nothing is measured while a kernel drains.
NEVER = 1 << 62


@njit(cache=True)
def seed_rng(seed):
    """Seed Numba's generator (separate from NumPy's outside the kernel)."""
    np.random.seed(seed)


@njit(cache=True)
def pow2_at_least(n):
    """The smallest power of two >= n (>= 1): ring sizes, so positions wrap with a mask."""
    size = 1
    while size < n:
        size *= 2
    return size


def ring_storage(limit):
    """Ring size for a queue of at most ``limit`` cells (a power of two), outside the kernels."""
    return 1 << max(0, int(limit) - 1).bit_length()


def queue_limit(buffer_cells):
    """``(unbounded, limit, storage)`` of a queue configured with ``buffer_cells`` (None: unbounded)."""
    unbounded = buffer_cells is None
    limit = UNBOUNDED_CELLS if unbounded else buffer_cells
    return unbounded, limit, ring_storage(limit)


@njit(cache=True, inline="always")
def rr_next(i, n):
    """The port after ``i`` in round-robin order."""
    return i + 1 if i + 1 < n else 0


@njit(cache=True, inline="always")
def rotated_word(step, start, n_words):
    """Step ``step`` (0 .. n_words) of a round-robin walk over a set kept as ``n_words`` 64-bit words, from
    bit ``start`` up and around: the word to read and the bits of it this step covers. Walking the set bits
    of ``word & bits`` for each step in turn visits members in the order ``start, start + 1, ...`` mod the size.

    >>> [rotated_word(s, 70, 2) for s in range(3)] == [(1, -1 << 6), (0, -1), (1, (1 << 6) - 1)]
    True
    """
    w0 = start >> 6
    if step == 0:
        return w0, -1 << (start & 63)
    if step < n_words:
        w = w0 + step
        return (w - n_words if w >= n_words else w), -1
    return w0, (1 << (start & 63)) - 1


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
def draw_arrivals(arrivals, burst_dest, tr, n_ports):
    """Fill ``arrivals[i]`` with the destination of the cell arriving at input i this slot (-1: none).

    ``burst_dest[i]`` is the destination of the burst in progress (-1: idle).
    An idle source starts a burst with probability ``tr.p_start``; after each
    cell the burst ends with probability ``tr.p_end`` = 1 / mean_burst.
    Bernoulli traffic is the case p_end = 1, p_start = load. One call per
    slot fills all inputs, so the per-input work is a tight loop with no
    call overhead.
    """
    p_start = tr.p_start
    p_end = tr.p_end
    kind = tr.kind
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
            d = draw_destination(i, kind, tr.perm, tr.cdf, n_ports)
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


@njit(cache=True, inline="always")
def lowest_bit(m):
    """Index of the lowest set bit of a non-zero mask."""
    return popcount((m & -m) - 1)


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
def rings(rows, size):
    """``rows`` empty ring queues of ``size`` (a power of two) int64 slots: (values, heads, lengths)."""
    return (np.zeros((rows, size), dtype=np.int64), np.zeros(rows, dtype=np.int64),
            np.zeros(rows, dtype=np.int64))


@njit(cache=True)
def voqs(n, size):
    """The VOQs of an ``n``-port switch: ring row ``i * n + j`` is VOQ (i, j), ``size`` slots each, and the
    cells each input holds: (values, heads, lengths, held)."""
    q, q_head, q_len = rings(n * n, size)
    return q, q_head, q_len, np.zeros(n, dtype=np.int64)


@njit(cache=True)
def sources(n):
    """Per-input source state: the destination of the burst in progress (-1: idle) and this slot's arrival."""
    return np.full(n, -1, dtype=np.int64), np.empty(n, dtype=np.int64)


@njit(cache=True)
def enqueue_voqs(stats, parts, t, warmup, arrivals, voqs, limit, unbounded):
    """Cells arriving in slot ``t`` join VOQ (i, destination), rings ``voqs = (q, head, len, held)``;
    ``parts`` counts them per output.

    An unbounded input keeps up to the ring's size per VOQ; a bounded one up to ``limit`` cells in all
    its VOQs together (any of them may hold all).
    """
    q, q_head, q_len, held = voqs
    n = held.shape[0]
    storage = q.shape[1]
    for i in range(n):
        d = arrivals[i]
        if d < 0:
            continue
        row = i * n + d
        room = q_len[row] < storage if unbounded else held[i] < limit
        admitted = admit(stats, t, warmup, room, unbounded)
        part_offered(parts, d, t, warmup, admitted)
        if admitted:
            ring_push(q, q_head, q_len, row, t)
            held[i] += 1


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
    """A cell leaves in slot ``t``: throughput, and, if it leaves in the measured window, its wait and latency.

    Waits are measured on the departures in the window, wherever the cell
    arrived: once warm, their sequence is stationary, so its mean is unbiased.
    Keeping only cells that also arrived in the window would leave out the
    ones waiting across its start, which are the long waits (length bias),
    and read low by about latency / window (6 % for 420-slot bursts in a
    5000-slot window).
    """
    stats[STAT_DELIVERED] += 1
    if t >= warmup:
        stats[STAT_M_DELIVERED] += 1
        stats[STAT_M_WAIT_SUM] += t - arrival
        stats[STAT_M_WAIT_COUNT] += 1
        stats[STAT_M_LATENCY_SUM] += t - arrival + 1
        stats[STAT_M_LATENCY_COUNT] += 1


# --------------------------------------------------------------------------- stability by part

# Backlog growth (share of the offered cells) that marks a run unstable. Stable runs measured here grow
# by under 0.1 % once warm (VOQ iSLIP at 0.95: 0.6 %, still warming); FIFO 32 x 32 at 0.6, 2 % over its
# saturation load, grows by 1.1 %, a crosspoint switch offered 10 % more than it carries by 10 %.
UNSTABLE_GROWTH = 0.01
# Random-walk allowance, in standard deviations sqrt(offered): judged per part and per replication, 64
# parts x 8 replications are 512 tests, and 4 sigmas keep a critically loaded but stable queue from being
# flagged (a one-sided normal tail of 3e-5 per test).
NOISE_SIGMAS = 4.0
# (Here, not in the harness that applies them, because keep_worst_part compiles them in: the kernels'
# cache is keyed on this file.)

# A system is only as stable as its worst part: one overloaded output of 32 grows by 1/32 of what the
# whole switch is offered, inside any whole-system allowance. So kernels also count, per part (an output,
# a destination node, a traffic class at a destination), what was offered to it and how far its backlog
# grew while measuring, and keep the part furthest beyond the allowance that the harness then judges
# (switchq.validate.harness.Backlog).


@njit(cache=True)
def parts(n):
    """Per-part counts while measuring: row 0 offered, row 1 backlog growth (admitted - left)."""
    return np.zeros((2, n), dtype=np.int64)


@njit(cache=True, inline="always")
def burst_granule(tr):
    """E[B^2] / E[B] of a source's geometric bursts (mean 1 / p_end): 2 x mean - 1, 1 for single cells."""
    return 2.0 / tr.p_end - 1.0


@njit(cache=True, inline="always")
def part_offered(parts, j, t, warmup, admitted):
    """One unit offered to part ``j`` in slot ``t`` (``admitted``: it joined the backlog, not dropped)."""
    if t >= warmup:
        parts[0, j] += 1
        if admitted:
            parts[1, j] += 1


@njit(cache=True, inline="always")
def part_left(parts, j, t, warmup, count=1):
    """``count`` units of part ``j`` delivered in slot ``t``."""
    if t >= warmup:
        parts[1, j] -= count


@njit(cache=True)
def keep_worst_part(stats, parts, granule):
    """Write the part whose growth is furthest beyond ``UNSTABLE_GROWTH`` x offered + ``NOISE_SIGMAS`` x
    sqrt(offered x granule) into the ``part*`` counters (the harness's rule, less its per-part constant;
    ``granule``: E[B^2] / E[B] of the batches units arrive in, see harness.backlog_allowed)."""
    best = -np.inf
    for j in range(parts.shape[1]):
        off = parts[0, j]
        if off == 0 and parts[1, j] <= 0:
            continue        # a part nothing was offered to (a node outside a permutation, a class unused)
        excess = parts[1, j] - UNSTABLE_GROWTH * off - NOISE_SIGMAS * np.sqrt(off * granule)
        if excess > best:
            best = excess
            stats[STAT_PART] = j
            stats[STAT_PART_GROWTH] = parts[1, j]
            stats[STAT_PART_OFFERED] = off


# --------------------------------------------------------------------------- VOQ matching

MATCH_PIM = 0      # Anderson, Owicki, Saxe & Thacker 1993: random grants, random accepts
MATCH_ISLIP = 1    # McKeown 1999: round-robin grants and accepts from per-port pointers


@njit(cache=True)
def matching_state(n):
    """Fresh :func:`match_voqs` state of an ``n``-port switch (pointers at 0, nothing matched)."""
    return (np.zeros(n, dtype=np.int64), np.zeros(n, dtype=np.int64), np.full(n, -1, dtype=np.int64),
            np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64))


@njit(cache=True)
def voq_switch(n, size):
    """What a VOQ-fed switch keeps: its VOQs (:func:`voqs`), its sources (:func:`sources`) and the state of its
    matching (:func:`matching_state`)."""
    return voqs(n, size), sources(n), matching_state(n)


@njit(cache=True)
def match_voqs(q_len, n, matching, iterations, state):
    """One request-grant-accept matching of inputs to outputs over VOQ lengths ``q_len[i * n + j]``.

    ``state = (grant_ptr, accept_ptr, in_match, out_match, grant)``: iSLIP's
    pointers (kept across calls), the match (``in_match[i]``: output of input
    i, ``out_match[j]``: input of output j; -1 free; the caller clears them,
    or marks an output it must not grant with any value >= 0) and scratch.
    PIM: each unmatched output grants a requesting unmatched input at
    random, each input accepts a grant at random. iSLIP: both round robin
    from pointers that move one past the partner only when a grant is
    accepted in the first iteration (which desynchronises them under load).
    """
    grant_ptr, accept_ptr, in_match, out_match, grant = state
    for it in range(iterations):
        # Grant: each unmatched output picks among unmatched inputs with a cell for it.
        any_grant = False
        for j in range(n):
            grant[j] = -1
            if out_match[j] >= 0:
                continue
            if matching == MATCH_ISLIP:
                start = grant_ptr[j]
                for k in range(n):
                    i = start + k
                    if i >= n:
                        i -= n
                    if in_match[i] < 0 and q_len[i * n + j] > 0:
                        grant[j] = i
                        break
            else:
                c = 0
                for i in range(n):
                    if in_match[i] < 0 and q_len[i * n + j] > 0:
                        c += 1
                        if np.random.random() * c < 1.0:
                            grant[j] = i
            if grant[j] >= 0:
                any_grant = True
        if not any_grant:
            break
        # Accept: each input that got grants picks one output.
        for i in range(n):
            if in_match[i] >= 0:
                continue
            pick = -1
            if matching == MATCH_ISLIP:
                start = accept_ptr[i]
                for k in range(n):
                    j = start + k
                    if j >= n:
                        j -= n
                    if grant[j] == i:
                        pick = j
                        break
            else:
                c = 0
                for j in range(n):
                    if grant[j] == i:
                        c += 1
                        if np.random.random() * c < 1.0:
                            pick = j
            if pick >= 0:
                in_match[i] = pick
                out_match[pick] = i
                if matching == MATCH_ISLIP and it == 0:
                    accept_ptr[i] = rr_next(pick, n)
                    grant_ptr[pick] = rr_next(i, n)


# --------------------------------------------------------------------------- event heap

@njit(cache=True)
def heap_push(heap_t, heap_c, size, t, code):
    """Insert (t, code) into the binary min-heap on t; ``size`` is a 1-element array. False if full."""
    i = size[0]
    if i >= heap_t.shape[0]:
        return False
    size[0] = i + 1
    while i > 0:
        parent = (i - 1) >> 1
        if heap_t[parent] <= t:
            break
        heap_t[i] = heap_t[parent]
        heap_c[i] = heap_c[parent]
        i = parent
    heap_t[i] = t
    heap_c[i] = code
    return True


@njit(cache=True)
def heap_pop(heap_t, heap_c, size):
    """Remove and return the earliest (t, code); the caller has checked the heap is not empty."""
    t = heap_t[0]
    code = heap_c[0]
    n = size[0] - 1
    size[0] = n
    if n > 0:
        last_t = heap_t[n]
        last_c = heap_c[n]
        i = 0
        while True:
            child = 2 * i + 1
            if child >= n:
                break
            if child + 1 < n and heap_t[child + 1] < heap_t[child]:
                child += 1
            if heap_t[child] >= last_t:
                break
            heap_t[i] = heap_t[child]
            heap_c[i] = heap_c[child]
            i = child
        heap_t[i] = last_t
        heap_c[i] = last_c
    return t, code


# --------------------------------------------------------------------------- traffic, outside the loop

def traffic_arrays(traffic, n_ports) -> TrafficArrays:
    """Plain arrays and scalars describing ``traffic`` for the kernels (see :func:`draw_arrivals`)."""
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
    return TrafficArrays(float(p_start), float(p_end), kind, perm, cdf)
